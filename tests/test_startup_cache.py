"""The disk cache of the sources' knowledge and compiled program (ygo_onto/diskcache.py, docs/decisions.md
'CLI start-up cache'): a warm CLI call answers as a cold one; an edit to any source (rules,
ontology, card data, the package's code) is seen at once; a broken entry is built again; YGO_NO_CACHE=1
turns it off.  The CLI runs in a copy of the sources, with a cache folder of its own."""
import json
import os
import pickle
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from ygo_onto.reasoning.fast import native

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = "examples/main1-tribute.json"


@pytest.fixture
def copy(tmp_path):
    root = tmp_path / "repo"
    for part in ("ontology", "rules", "src", "examples"):
        shutil.copytree(REPO / part, root / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    return root


def run(copy: Path, cache: Path, *args, env=None):
    environ = {k: v for k, v in os.environ.items() if k != "YGO_NO_CACHE"}
    environ.update({"PYTHONPATH": str(copy / "src"), "XDG_CACHE_HOME": str(cache), **(env or {})})
    return subprocess.run([sys.executable, "-m", "ygo_onto", *map(str, args)], cwd=copy, env=environ,
                          capture_output=True, text=True, timeout=600)


def allowed(copy: Path, cache: Path, env=None) -> list[str]:
    done = run(copy, cache, "allowed", EXAMPLE, "--json", env=env)
    assert done.returncode == 0, done.stderr
    return [a["id"] for a in json.loads(done.stdout)["actions"]]


def entries(cache: Path, prefix: str) -> list[Path]:
    folder = cache / "ygo-onto"
    return sorted(folder.glob(prefix + "*")) if folder.is_dir() else []


def test_a_warm_call_answers_as_a_cold_one_and_reads_the_cache(copy, tmp_path):
    cache = tmp_path / "cache"
    cold = allowed(copy, cache)
    assert "tribute_summon@A.hand0" in cold
    [knowledge] = entries(cache, "knowledge-official-")
    # the native evaluator's plan of the program (where the engine is compiled: the copy has the checkout's modules)
    plans = entries(cache, "nativeplan-")
    assert len(plans) == (native.library() is not None)
    assert not entries(cache, "native-") and not entries(cache, "reader-")  # (the C is compiled at install only)
    written = [p.stat().st_mtime_ns for p in [knowledge, *plans]]
    assert allowed(copy, cache) == cold
    assert [p.stat().st_mtime_ns for p in [knowledge, *plans]] == written  # read, not built again
    probe = ("from ygo_onto.knowledge import knowledge, _LazyGraph; import sys; "
             "k = knowledge('official'); print(type(k.__dict__.get('tbox')).__name__, 'rdflib' in sys.modules)")
    environ = {**os.environ, "PYTHONPATH": str(copy / "src"), "XDG_CACHE_HOME": str(cache)}
    environ.pop("YGO_NO_CACHE", None)
    out = subprocess.run([sys.executable, "-c", probe], cwd=copy, env=environ, capture_output=True, text=True)
    assert out.stdout.split() == ["_LazyGraph", "False"], out.stderr
    # the Python evaluator's generated functions' codes are kept; a state reached by apply adds to them
    python = {"YGO_FAST_EVALUATOR": "python"}
    assert allowed(copy, cache, env=python) == cold
    [code] = entries(cache, "fastcode-official-")
    before = code.stat().st_size
    done = run(copy, cache, "apply", EXAMPLE, "tribute_summon@A.hand0", "-o", tmp_path / "next.json", env=python)
    assert done.returncode == 0, done.stderr
    assert code.stat().st_size >= before


def test_a_broken_entry_is_built_again(copy, tmp_path):
    cache = tmp_path / "cache"
    cold = allowed(copy, cache)
    for path in entries(cache, ""):
        path.write_bytes(b"\x80\x04garbage" if path.suffix != ".marshal" else b"\xe3not code")
    assert allowed(copy, cache) == cold
    [knowledge] = entries(cache, "knowledge-official-")
    assert pickle.loads(knowledge.read_bytes())["ruleset"] == "official"
    for path in entries(cache, ""):  # truncated entries
        path.write_bytes(path.read_bytes()[:100])
    assert allowed(copy, cache) == cold


def test_ygo_no_cache_reads_and_writes_nothing(copy, tmp_path):
    cache = tmp_path / "cache"
    cold = allowed(copy, cache, env={"YGO_NO_CACHE": "1"})
    assert entries(cache, "") == []
    assert allowed(copy, cache) == cold and entries(cache, "knowledge-")


def test_an_edit_to_a_rules_file_is_seen(copy, tmp_path):
    cache = tmp_path / "cache"
    cold = allowed(copy, cache)
    rules = copy / "rules" / "common" / "turn.swrl"
    text = rules.read_text(encoding="utf-8")
    rules.write_text(text + "\n# a typo\nNoSuchClassAnywhere(?p) -> Player(?p)\n", encoding="utf-8")
    done = run(copy, cache, "allowed", EXAMPLE, "--json")
    assert done.returncode != 0 and "NoSuchClassAnywhere" in done.stderr
    rules.write_text(text, encoding="utf-8")
    assert allowed(copy, cache) == cold
    (copy / "rules" / "official" / "zz-new.swrl").write_text("# a new file\nNoSuchClassAtAll(?p) -> Player(?p)\n")
    done = run(copy, cache, "allowed", EXAMPLE, "--json")
    assert done.returncode != 0 and "NoSuchClassAtAll" in done.stderr


def test_an_edit_to_the_card_data_or_the_ontology_is_seen(copy, tmp_path):
    cache = tmp_path / "cache"
    cold = allowed(copy, cache)
    assert "tribute_summon@A.hand0" in cold and "normal_summon@A.hand0" not in cold
    cards = copy / "ontology" / "cards-official.owl"
    text = cards.read_text(encoding="utf-8")
    # the level-7 monster in hand becomes a level-4 one: summoned without a tribute
    start = text.index('rdf:about="http://ygo-onto.org/cards/official#RedEyesBlackDragon"')
    block = text[start:text.index("</owl:Class>", start)]
    cards.write_text(text.replace(block, re.sub(r">7</ygo:cardLevel>", ">4</ygo:cardLevel>", block)), encoding="utf-8")
    edited = allowed(copy, cache)
    assert "normal_summon@A.hand0" in edited and "tribute_summon@A.hand0" not in edited
    cards.write_text(text, encoding="utf-8")
    assert allowed(copy, cache) == cold
    tbox = copy / "ontology" / "ygo-onto.owl"
    tbox.write_text(tbox.read_text(encoding="utf-8").replace("ontology#lifePoints\"", "ontology#lifePointsRenamed\""),
                    encoding="utf-8")
    done = run(copy, cache, "allowed", EXAMPLE, "--json")
    assert done.returncode != 0 and "lifePoints" in done.stderr


def test_an_edit_to_the_package_code_makes_a_new_entry(copy, tmp_path):
    cache = tmp_path / "cache"
    cold = allowed(copy, cache)
    module = copy / "src" / "ygo_onto" / "primitives.py"
    module.write_text(module.read_text(encoding="utf-8") + "\n# edited\n", encoding="utf-8")
    assert allowed(copy, cache) == cold
    assert len(entries(cache, "knowledge-official-")) == 2


def test_the_key_covers_every_source_file(tmp_path, monkeypatch):
    from ygo_onto import knowledge as kn

    for part in ("ontology", "rules"):
        shutil.copytree(REPO / part, tmp_path / part)
    shutil.copytree(REPO / "src" / "ygo_onto" / "data", tmp_path / "data")
    monkeypatch.setattr(kn, "ONTOLOGY_DIR", tmp_path / "ontology")
    monkeypatch.setattr(kn, "RULES_DIR", tmp_path / "rules")
    monkeypatch.setattr(kn.resources, "data_dir", lambda: tmp_path / "data")
    monkeypatch.delenv("YGO_NO_CACHE", raising=False)
    seen = {kn._sources_key("official")}
    assert kn._sources_key("simplified") not in seen
    for path in (tmp_path / "ontology" / "ygo-onto.owl", tmp_path / "ontology" / "cards-simplified.owl",
                 tmp_path / "ontology" / "catalog-v001.xml", tmp_path / "rules" / "simplified" / "turn.swrl",
                 tmp_path / "data" / "decks_official.json"):
        path.write_bytes(path.read_bytes() + b"\n")
        key = kn._sources_key("official")
        assert key not in seen, path
        seen.add(key)
    (tmp_path / "rules" / "official" / "cards" / "extra.swrl").write_text("")
    assert kn._sources_key("official") not in seen
    seen.add(kn._sources_key("official"))
    (tmp_path / "rules" / "official" / "cards" / "extra.swrl").rename(tmp_path / "rules" / "official" / "extra2.swrl")
    assert kn._sources_key("official") not in seen


# ---------------------------------------------------------------- the CLI's plain calls (cli._plain_call)

PLAIN = [["allowed", EXAMPLE], ["allowed", EXAMPLE, "--json"], ["allowed", "--json", EXAMPLE],
         ["allowed", EXAMPLE, "--reasoner=fast", "--json"], ["allowed", EXAMPLE, "--ruleset", "simplified"],
         ["allowed", "no-such-state.json"], ["allowed", EXAMPLE, "--reasoner", "no-such"],
         ["allowed", EXAMPLE, "--ontology", "no-such.owl"],
         ["apply", EXAMPLE, "end_turn"], ["apply", EXAMPLE, "no-such-action"], ["apply", EXAMPLE, '{"type": "end_turn"}'],
         ["apply", EXAMPLE, "tribute_summon@A.hand0", "-o", "OUT"], ["apply", EXAMPLE, "end_turn", "--output=OUT"],
         ["apply", EXAMPLE, "end_turn", "-o", "no-such-dir/out.json"]]


@pytest.mark.parametrize("argv", PLAIN, ids=lambda a: " ".join(a)[:60])
def test_a_plain_call_answers_as_typer_does(argv, tmp_path):
    """main() calls `allowed`/`apply` itself for their plain forms: the same output, files and exit code as typer's."""
    from ygo_onto.cli import _plain_call

    assert _plain_call([a.replace("OUT", "x") for a in argv]) is not None
    environ = {**os.environ, "PYTHONPATH": str(REPO / "src"), "COLUMNS": "120"}
    results = []
    for how, code in (("plain", "from ygo_onto.cli import main; main()"), ("typer", "from ygo_onto.cli import app; app()")):
        out = tmp_path / f"{how}.json"
        args = [str(out) if a == "OUT" else a.replace("--output=OUT", f"--output={out}") for a in argv]
        args = [a.replace("OUT", str(out)) for a in args]
        done = subprocess.run([sys.executable, "-c", code, *args], cwd=REPO, env=environ, capture_output=True,
                              text=True, timeout=600)
        stdout = re.sub(r'(\(fast, )\d+( ms\))|("elapsed_ms": )[\d.]+', r"\1\2\3", done.stdout)  # (timings)
        stdout = stdout.replace(str(out), "OUT")  # (`apply -o` names the file it wrote)
        results.append((done.returncode, stdout, done.stderr.replace(str(out), "OUT"),
                        out.read_text() if out.exists() else None))
    assert results[0] == results[1]


@pytest.mark.parametrize("argv", [[], ["--help"], ["allowed"], ["allowed", "--help"], ["allowed", "a", "b"],
                                  ["allowed", "a", "--reasoner"], ["allowed", "a", "--json=1"],
                                  ["allowed", "a", "--json", "--json"], ["allowed", "--", "a"], ["allowed", "a", "-o", "x"],
                                  ["apply", "a"], ["apply", "a", "b", "-o"], ["apply", "a", "b", "-o=x"],
                                  ["apply", "a", "b", "--reasoner", "--json"], ["apply", "a", ""], ["explain", "a", "b"],
                                  ["duel"]])
def test_anything_else_is_typers(argv):
    from ygo_onto.cli import _plain_call

    assert _plain_call(argv) is None


def test_old_entries_are_pruned(tmp_path, monkeypatch):
    from ygo_onto import diskcache

    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    monkeypatch.delenv("YGO_NO_CACHE", raising=False)
    for i in range(12):
        diskcache.store(f"knowledge-official-{i:02d}.pickle", i)
        path = tmp_path / "ygo-onto" / f"knowledge-official-{i:02d}.pickle"
        os.utime(path, ns=(i * 10**9, i * 10**9))
    diskcache.store("knowledge-simplified-x.pickle", 0)
    diskcache.prune("knowledge-official-")
    assert sorted(p.name for p in (tmp_path / "ygo-onto").iterdir()) == \
        [f"knowledge-official-{i:02d}.pickle" for i in range(4, 12)] + ["knowledge-simplified-x.pickle"]
    assert diskcache.load("knowledge-official-11.pickle") == 11
