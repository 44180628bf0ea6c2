"""A self-play batch on a local Ray, in a process of its own: Ray's core worker installs crash-signal handlers in
the process that starts it, and a JVM started earlier in the same pytest worker (pellet-jvm, which uses SIGSEGV for
its own null checks) then dies at its next such signal (seen: "node down: Not properly terminated")."""
from __future__ import annotations

import json
import subprocess
import sys

import pytest

_SCRIPT = """
import json, sys
from pathlib import Path
import ray
from ygo_onto.selfplay import run_batch
try:
    ray.init(address="local", num_cpus=2, include_dashboard=False, log_to_driver=False, configure_logging=False)
except Exception as exc:  # a machine where Ray cannot start
    print(json.dumps({"skip": f"ray cannot start here: {exc}"}))
    sys.exit(0)
kwargs = json.loads(sys.argv[2])
if "out" in kwargs:
    kwargs["out"] = Path(kwargs["out"])
try:
    batch = run_batch(*json.loads(sys.argv[1]), use_ray=True, **kwargs)
finally:
    ray.shutdown()
print(json.dumps({"records": batch.records, "round_robin": batch.summary().get("round_robin")}))
"""


def run_batch_on_ray(*args, timeout: int = 900, **kwargs) -> dict:
    """{"records", "round_robin"} of run_batch(*args, use_ray=True, **kwargs) (JSON-able arguments; `out`, a path,
    is passed as its text); the test is skipped where Ray cannot start."""
    if "out" in kwargs:
        kwargs["out"] = str(kwargs["out"])
    run = subprocess.run([sys.executable, "-c", _SCRIPT, json.dumps(args), json.dumps(kwargs)], capture_output=True,
                         text=True, timeout=timeout)
    assert run.returncode == 0, run.stderr[-3000:]
    result = json.loads(run.stdout.strip().splitlines()[-1])
    if "skip" in result:
        pytest.skip(result["skip"])
    return result
