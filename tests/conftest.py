import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).parent))

import pytest

# scripts/test.sh runs the tests on two processes (pytest-xdist, --dist loadgroup).  The tests of
# these modules stay together on one process: they share a module fixture that costs seconds to
# minutes (Pellet runs, a warm JVM, 96 duels, a local Ray, repo copies), or start servers.
KEEP_TOGETHER = {"test_differential", "test_pellet_jvm", "test_playouts", "test_protege", "test_fuzz",
                 "test_quality", "test_wheel", "test_selfplay", "test_notebooks", "test_bench", "test_env"}


def pytest_collection_modifyitems(config, items):
    for item in items:
        module = item.module.__name__.rsplit(".", 1)[-1] if item.module else ""
        if module in KEEP_TOGETHER:
            item.add_marker(pytest.mark.xdist_group(module))
