"""The wheel carries what the engine reads (the ontology, every rule file, the card data, the
examples) and works away from the checkout.  .ci/run goes further: a fresh venv, the wheel
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
    from ygo_onto.reasoning.fast import native
    return native._compiler() is not None

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
        shutil.copytree(REPO / name, source / name, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
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
    wanted |= {f"ygo_onto/data/{p.name}" for p in (REPO / "src/ygo_onto/data").iterdir() if p.is_file()}
    assert "ygo_onto/ontology/ygo-onto.owl" in wanted and len(wanted) > 20
    assert wanted - names == set()
    # the C sources built at run time (the native engine, the reader of its change)
    assert {"ygo_onto/reasoning/fast/native.c", "ygo_onto/reasoning/fast/reader.c"} <= names


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
    built = run("-c", "from ygo_onto.reasoning.fast import native; "
                      "print(native.library() is not None, native.reader() is not None, native.READER_UNAVAILABLE)")
    assert built.returncode == 0, built.stderr
    if native_compiler():
        assert built.stdout.split()[:2] == ["True", "True"], built.stdout
    allowed = run("-m", "ygo_onto", "allowed", "puzzle.json", "--json")
    assert allowed.returncode == 0, allowed.stderr
    assert any(a["type"] == "activate" for a in json.loads(allowed.stdout)["actions"])
    solved = run("-m", "ygo_onto", "solve", "puzzle.json")
    assert solved.returncode == 0, solved.stderr
    assert "winning line" in solved.stdout
    # the README's examples/... paths: `examples --copy` puts the wheel's examples where they say
    copied = run("-m", "ygo_onto", "examples", "--copy", "examples")
    assert copied.returncode == 0 and (work / "examples" / "main1-tribute.json").is_file(), copied.stderr
    assert run("-m", "ygo_onto", "allowed", "examples/main1-tribute.json").returncode == 0
    # import-owl writes only into a checkout: the wheel's files in site-packages are left alone
    exported = run("-m", "ygo_onto", "export-owl", "export.owl")
    assert exported.returncode == 0, exported.stderr
    refused = run("-m", "ygo_onto", "import-owl", "export.owl")
    assert refused.returncode == 2 and "expected a source checkout" in refused.stderr, refused.stderr
