import fcntl
import os
import stat
import sys
import warnings
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest

# scripts/test.sh runs the tests on two processes (pytest-xdist, --dist loadgroup).  The tests of
# these modules stay together on one process: they share a module fixture that costs seconds to
# minutes (Pellet runs, a warm JVM, 96 duels, a local Ray, repo copies), or start servers.
KEEP_TOGETHER = {"test_differential", "test_pellet_jvm", "test_playouts", "test_protege", "test_fuzz",
                 "test_quality", "test_wheel", "test_selfplay", "test_notebooks", "test_bench", "test_env",
                 "test_goat_duels", "test_goat_reasoners"}


@pytest.hookimpl(wrapper=True)
def pytest_collection_modifyitems(config, items):
    """Mark the KEEP_TOGETHER tests with their group before xdist's own hook reads the marks; after
    it, on a worker, a grouped test's id must carry its group (`...@test_playouts`): otherwise
    loadgroup silently spreads the group over both processes and each sets up the module fixture
    (pytest-xdist#1386 with pytest 9.2: the reason for pyproject's pin); that is a warning
    in the run's summary: the tests still pass, in minutes more."""
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if module in KEEP_TOGETHER:
            item.add_marker(pytest.mark.xdist_group(module))
    result = yield
    if not (os.environ.get("PYTEST_XDIST_WORKER") and config.getvalue("loadgroup")):
        return result
    grouped = [item for item in items if item.get_closest_marker("xdist_group")]
    if grouped and not all("@" in item.nodeid for item in grouped):
        warnings.warn(pytest.PytestWarning(
            f"pytest-xdist's --dist loadgroup does not group tests with pytest {pytest.__version__} "
            "(pytest-xdist#1386): install the test extra's pytest (pip install -e '.[test]')"))
    return result


@pytest.fixture(scope="session")
def official_export(tmp_path_factory) -> Path:
    """The sources' `official` ontology as `ygo-onto export-owl FILE` writes it (no state): written once per test run,
    shared by the tests that read it or edit a copy of it (test_protege, test_owl_input, test_cli_first_use,
    test_*_from_ontology), where each exported it again (about 10 s of CPU each).  export-owl itself is checked by
    test_export and test_cli_contract.  The processes of an xdist run share one file (a lock in their common
    temporary folder); a test that edits it edits a copy (the file is made read-only)."""
    from cli_runner import cli

    root = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        root = root.parent  # (the workers' folders share their parent)
    path = root / "official-export.owl"
    with open(root / "official-export.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not path.is_file():
            partial = root / "official-export.partial.owl"
            code, text = cli("export-owl", partial)
            assert code == 0, text
            partial.chmod(stat.S_IRUSR | stat.S_IRGRP | stat.S_IROTH)
            partial.rename(path)
    return path


@pytest.fixture(scope="session")
def pellet_pool():
    """The reference Pellet backend in a warm JVM (testing.differential.PelletPool), shared by the modules of this
    process that compare `fast` with Pellet (test_differential, test_effects_as_data, test_goat_reasoners,
    test_turn_player_priority, test_own_procedure_only_revival), where each started its own JVMs and paid their
    start and first, cold runs.  One worker: the tests run on two processes for two cores, so a second Pellet worker
    per process only made three processes share them."""
    from ygo_onto.testing import differential as D

    with D.PelletPool(workers=1) as pool:
        yield pool


def pytest_sessionfinish(session, exitstatus):
    """Shut down a JVM a test started (test_export's OWL API, pellet-jvm) before the interpreter exits: JPype's own
    shutdown at exit crashes the process now and then with a segmentation fault after every test passed
    (jpype-project/jpype#1144, #1141), which fails the run; an explicit shutdownJVM avoids it."""
    jpype = sys.modules.get("jpype")
    if jpype is not None and jpype.isJVMStarted():
        jpype.shutdownJVM()
