"""What a new user meets first: the bundled examples, import-owl on an installed package, the extras a
module needs, the --reasoner help, Ray's start-up, a state file saved as UTF-16, and `apply -o`."""
from __future__ import annotations

import json
import subprocess
import sys
import tomllib
import types
from pathlib import Path

import pytest

from cli_runner import cli
from ygo_onto import resources
from ygo_onto.errors import StateError

ROOT = Path(__file__).resolve().parent.parent
EXAMPLE = ROOT / "examples" / "main1-tribute.json"


def test_examples_lists_every_bundled_example():
    code, text = cli("examples")
    assert code == 0, text
    expected = sorted(p.relative_to(resources.examples_dir()).as_posix() for p in resources.examples_dir().rglob("*.json"))
    assert "main1-tribute.json" in expected and "puzzles/16-brain-control.json" in expected
    assert [line.strip() for line in text.splitlines()[1:]] == expected
    code, text = cli("examples", "--json")
    assert [e["name"] for e in json.loads(text)] == expected
    assert all(Path(e["path"]).is_file() for e in json.loads(text))


def test_examples_copy_makes_the_readme_paths_work(tmp_path):
    code, text = cli("examples", "--copy", tmp_path / "examples")
    assert code == 0 and "copied" in text, text
    copied = tmp_path / "examples" / "main1-tribute.json"
    assert copied.read_bytes() == EXAMPLE.read_bytes()
    assert (tmp_path / "examples" / "puzzles" / "13-ritual-black-chaos.json").is_file()
    code, text = cli("allowed", copied, "--json")  # the README's first command, on the copy
    assert code == 0 and json.loads(text)["actions"], text
    copied.write_text("{}", encoding="utf-8")  # a file of the user's is kept
    code, text = cli("examples", "--copy", tmp_path / "examples")
    assert code == 0 and "kept" in text and copied.read_text(encoding="utf-8") == "{}", text
    code, text = cli("examples", "--copy", EXAMPLE)
    assert code == 2 and "--copy" in text and "expected a folder" in text, text


def _export_with_a_changed_card(tmp_path, export: Path) -> Path:
    text = export.read_text(encoding="utf-8")
    marker = '<ygo:cardAtk rdf:datatype="http://www.w3.org/2001/XMLSchema#integer">'
    at = text.index(marker) + len(marker)
    end = text.index("<", at)
    edited = tmp_path / "edited.owl"
    edited.write_text(text[:at] + str(int(text[at:end]) + 100) + text[end:], encoding="utf-8")
    return edited


def test_import_owl_names_the_files_it_would_change_and_refuses_an_installed_package(tmp_path, monkeypatch,
                                                                                     official_export):
    edited = _export_with_a_changed_card(tmp_path, official_export)
    code, text = cli("import-owl", "--dry-run", edited)
    assert code == 0, text
    assert "would change" in text and str(ROOT / "ontology" / "cards-official.owl") in text, text
    # an installed wheel: its ontology/ and rules/ are copies in site-packages, not sources
    monkeypatch.setattr(resources, "from_checkout", lambda: False)
    before = (ROOT / "ontology" / "cards-official.owl").read_bytes()
    code, text = cli("import-owl", edited)
    assert code == 2, text
    assert "expected a source checkout" in text and "installed package" in text and "--dry-run" in text, text
    assert (ROOT / "ontology" / "cards-official.owl").read_bytes() == before
    assert cli("import-owl", "--dry-run", edited)[0] == 0  # seeing what it would change writes nothing


def test_import_owl_with_no_change_names_no_file(official_export):
    code, text = cli("import-owl", "--dry-run", official_export)
    assert code == 0 and "no change to the sources" in text and "file" not in text.split("axioms")[-1], text


def _python(code: str) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)


@pytest.mark.parametrize("blocked, call", [
    ("numpy", "import ygo_onto.env"),
    ("pettingzoo", "import ygo_onto.env as e; e.env()"),
    ("gymnasium", "import ygo_onto.env as e; e.single_agent_env()"),
])
def test_the_environment_without_the_agents_extra_names_the_extra(blocked, call):
    done = _python(f"import sys; sys.modules[{blocked!r}] = None\n"
                   f"try:\n    {call}\nexcept ImportError as exc:\n    print(exc)\nelse:\n    print('imported')")
    assert "pip install 'ygo-onto[agents]'" in done.stdout, done.stdout + done.stderr


def test_pellet_jvm_is_an_extra_and_says_so():
    extras = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]["optional-dependencies"]
    assert any(d.startswith("jpype1") for d in extras["pellet-jvm"])
    assert "ygo-onto[pellet-jvm]" in (ROOT / "README.md").read_text(encoding="utf-8")
    done = _python("import sys; sys.modules['jpype'] = None\n"
                   "from ygo_onto import GameState\nfrom ygo_onto.state import read_json_file\n"
                   f"try:\n    GameState.from_dict(read_json_file({str(EXAMPLE)!r})).allowed_actions('pellet-jvm')\n"
                   "except Exception as exc:\n    print(exc)")
    assert "pip install 'ygo-onto[pellet-jvm]'" in done.stdout, done.stdout + done.stderr


def test_the_reasoner_help_says_what_fast_is():
    code, text = cli("allowed", "--help")
    words = " ".join(text.replace("│", " ").split())
    assert "C engine" in words and "Datalog" in words, words
    assert "Python functions" not in words


def test_selfplay_on_ray_says_it_is_starting_ray(monkeypatch, capsys):
    from ygo_onto import selfplay

    calls = []
    fake = types.SimpleNamespace(is_initialized=lambda: False, init=lambda **kw: calls.append(kw))
    monkeypatch.setitem(sys.modules, "ray", fake)
    assert selfplay.ray_init(3, None, announce=True) is True
    err = capsys.readouterr().err
    assert "starting a local Ray (3 CPUs)" in err and "half a minute" in err, err
    assert calls and calls[0]["num_cpus"] == 3
    assert selfplay.ray_init(2, "ray://head:10001", announce=True)
    assert "joining the Ray cluster at ray://head:10001" in capsys.readouterr().err
    assert selfplay.ray_init(2, None, announce=False)
    assert capsys.readouterr().err == ""


@pytest.mark.parametrize("encoding, bom", [("utf-16-le", b"\xff\xfe"), ("utf-16-be", b"\xfe\xff"),
                                           ("utf-32-le", b"\xff\xfe\x00\x00")])
def test_a_state_file_saved_as_utf16_is_read(tmp_path, encoding, bom):
    text = EXAMPLE.read_text(encoding="utf-8")
    path = tmp_path / "state.json"
    path.write_bytes(bom + text.encode(encoding))  # as PowerShell's `>` writes a file
    assert json.loads(cli("allowed", path, "--json")[1])["actions"] == \
        json.loads(cli("allowed", EXAMPLE, "--json")[1])["actions"]
    code, out = cli("apply", path, "tribute_summon@A.hand0")
    assert code == 0 and json.loads(out)["pending"]["purpose"] == "tribute", out
    path.write_bytes(bom + text.encode(encoding)[:-1])  # cut inside a character
    code, out = cli("allowed", path)
    assert code == 2 and str(path) in out and encoding.upper() in out and "byte order mark" in out, out


def test_apply_o_confirms_in_one_line(tmp_path):
    out = tmp_path / "next.json"
    code, text = cli("apply", EXAMPLE, "next_phase:battle", "-o", out)
    assert code == 0, text
    assert text.strip() == f"wrote {out}: turn 3, battle phase, A to act"
    assert json.loads(out.read_text(encoding="utf-8"))["phase"] == "battle"
