"""The wheel carries what the engine reads (the ontology, every rule file, the card data, the
examples) and the fast backend's compiled C parts, and works away from the checkout.  .ci/run goes further: a fresh venv, the wheel
installed with its dependencies, the CLI run there.  Here the wheel is built (about 10 s; pip
fetches setuptools for the build, the test skips when it cannot) and unpacked; its package runs
with this venv's dependencies."""
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent


def native_compiler() -> bool:
    """A C compiler that setup.py's build finds (then the wheel must carry the compiled modules)."""
    return bool(shutil.which(os.environ.get("CC") or "cc") or shutil.which("gcc"))


COMPILED = ("_native", "_reader")  # (setup.py's extension modules, in ygo_onto/reasoning/fast/)


def compiled_in(names) -> set:
    """The compiled modules among these file names."""
    return {m for m in COMPILED for n in names
            if Path(n).parent.as_posix().endswith("ygo_onto/reasoning/fast") and Path(n).name.startswith(m + ".")
            and Path(n).suffix in (".so", ".pyd")}

pytestmark = pytest.mark.wheel


@pytest.fixture(scope="module")
def wheel(tmp_path_factory) -> Path:
    if os.environ.get("YGO_BUILT_WHEEL"):  # .ci/run has just built it from this checkout: not twice
        return Path(os.environ["YGO_BUILT_WHEEL"])
    # built from a copy of what goes in, so that no stale build/ of the checkout slips in
    source = tmp_path_factory.mktemp("source")
    for name in ("pyproject.toml", "setup.py", "README.md"):
        shutil.copy2(REPO / name, source / name)
    for name in ("src", "ontology", "rules", "examples"):
        shutil.copytree(REPO / name, source / name,  # (no module compiled in place: the build compiles them)
                        ignore=shutil.ignore_patterns("__pycache__", "*.egg-info", "*.so", "*.pyd"))
    out = tmp_path_factory.mktemp("wheel")
    build = subprocess.run([sys.executable, "-m", "pip", "wheel", "-q", "--no-deps",
                            "-w", str(out), str(source)], capture_output=True, text=True, cwd=out)
    if build.returncode != 0:
        pytest.skip(f"cannot build a wheel here: {build.stderr.strip()[-300:]}")
    (whl,) = out.glob("ygo_onto-*.whl")
    return whl


def test_wheel_carries_ontology_rules_data_and_examples(wheel):
    names = set(zipfile.ZipFile(wheel).namelist())
    wanted = {f"ygo_onto/ontology/{p.name}" for p in (REPO / "ontology").iterdir() if p.suffix in (".owl", ".xml")}
    wanted |= {f"ygo_onto/rules/{p.relative_to(REPO / 'rules').as_posix()}" for p in (REPO / "rules").rglob("*.swrl")}
    wanted |= {f"ygo_onto/examples/{p.name}" for p in (REPO / "examples").glob("*.json")}
    wanted |= {f"ygo_onto/data/{p.relative_to(REPO / 'src/ygo_onto/data').as_posix()}"
               for p in (REPO / "src/ygo_onto/data").rglob("*") if p.is_file()}
    wanted |= {f"ygo_onto/examples/{p.relative_to(REPO / 'examples').as_posix()}"
               for p in (REPO / "examples" / "decks").rglob("*.ydk")}
    assert "ygo_onto/ontology/ygo-onto.owl" in wanted and len(wanted) > 20
    assert {"ygo_onto/ontology/cards-goat.owl", "ygo_onto/data/goat/forbidden-and-limited.json",
            "ygo_onto/examples/decks/goat/chaos-control.ydk"} <= wanted
    assert wanted - names == set()
    # the C parts compiled by the build (the native engine, the reader of its change)
    if native_compiler():
        assert compiled_in(names) == set(COMPILED), sorted(n for n in names if "reasoning/fast" in n)


def test_pip_install_into_a_fresh_venv_leaves_the_compiled_modules(wheel, tmp_path):
    """`pip install` of the wheel (what `pip install .` builds and installs) into a fresh venv: the compiled
    modules are in the installed package."""
    if not native_compiler():
        pytest.skip("no C compiler: the wheel has no compiled modules (the Python evaluator runs)")
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    python = venv / ("Scripts" if os.name == "nt" else "bin") / "python"
    site = subprocess.run([str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
                          capture_output=True, text=True, check=True).stdout.strip()
    done = subprocess.run([sys.executable, "-m", "pip", "--python", str(python), "install", "-q", "--no-deps",
                           "--no-index", str(wheel)], capture_output=True, text=True)
    if done.returncode and "no such option: --python" in done.stderr:  # (pip before 22.3)
        done = subprocess.run([sys.executable, "-m", "pip", "install", "-q", "--no-deps", "--no-index",
                               "--target", site, str(wheel)], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    installed = [p.relative_to(site).as_posix() for p in Path(site).rglob("*") if p.is_file()]
    assert compiled_in(installed) == set(COMPILED), installed[:20]


def test_unpacked_wheel_runs_outside_the_checkout(wheel, tmp_path):
    site = tmp_path / "site"
    zipfile.ZipFile(wheel).extractall(site)
    work = tmp_path / "work"
    work.mkdir()
    (work / "puzzle.json").write_text((REPO / "examples/puzzle-raigeki.json").read_text(encoding="utf-8"))
    env = {**os.environ, "PYTHONPATH": str(site)}

    def run(*args):
        return subprocess.run([sys.executable, *args], capture_output=True, text=True, cwd=work, env=env,
                              timeout=300)

    where = run("-c", "import ygo_onto, ygo_onto.resources as r; "
                      "print(ygo_onto.__file__, r.from_checkout(), r.rules_dir(), r.example('bench-chain.json').is_file())")
    assert where.returncode == 0, where.stderr
    module, checkout, rules, bench_example = where.stdout.split()
    assert module.startswith(str(site)) and checkout == "False" and rules.startswith(str(site))
    assert bench_example == "True"
    built = run("-c", "from ygo_onto.reasoning.fast import native; print(native.describe())")
    assert built.returncode == 0, built.stderr
    if native_compiler():  # (the wheel's compiled modules, with no C source beside them)
        assert built.stdout.strip() == "native", built.stdout
    allowed = run("-m", "ygo_onto", "allowed", "puzzle.json", "--json")
    assert allowed.returncode == 0, allowed.stderr
    assert any(a["type"] == "activate" for a in json.loads(allowed.stdout)["actions"])
    solved = run("-m", "ygo_onto", "solve", "puzzle.json")
    assert solved.returncode == 0, solved.stderr
    assert "winning line" in solved.stdout
    # the goat ruleset: its catalog, format list and reference decks come from the wheel
    deck = site / "ygo_onto" / "examples" / "decks" / "goat" / "warrior.ydk"
    checked = run("-m", "ygo_onto", "deck", "check", str(deck), "--ruleset", "goat")
    assert checked.returncode == 0 and "legal in goat" in checked.stdout, checked.stderr
    duel = run("-m", "ygo_onto", "duel", "--ruleset", "goat", "--max-actions", "20")
    assert duel.returncode == 0 and "Result:" in duel.stdout, duel.stderr
    # the README's examples/... paths: `examples --copy` puts the wheel's examples where they say
    copied = run("-m", "ygo_onto", "examples", "--copy", "examples")
    assert copied.returncode == 0 and (work / "examples" / "main1-tribute.json").is_file(), copied.stderr
    assert run("-m", "ygo_onto", "allowed", "examples/main1-tribute.json").returncode == 0
    # import-owl writes only into a checkout: the wheel's files in site-packages are left alone
    exported = run("-m", "ygo_onto", "export-owl", "export.owl")
    assert exported.returncode == 0, exported.stderr
    refused = run("-m", "ygo_onto", "import-owl", "export.owl")
    assert refused.returncode == 2 and "expected a source checkout" in refused.stderr, refused.stderr
