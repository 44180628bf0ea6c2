#!/usr/bin/env bash
# The test command of the README: every test file, Pellet included (see docs/development.md "Tests and CI").
# The OWL API test runs in a process of its own: a process starts one JVM, and that test needs
# the OWL API on the JVM's class path (pellet-jvm then shares a JVM it did not start).  It runs alongside the
# rest (its output follows theirs), so that it does not keep a core idle for its minute.
set -euo pipefail
export_log="$(mktemp)"
trap 'rm -f "$export_log"' EXIT
python -m pytest -q -p no:cacheprovider tests/test_export.py "$@" >"$export_log" 2>&1 &
export_pid=$!
# The rest on two processes (pytest-xdist; YGO_TEST_WORKERS to change): the Pellet tests are most of
# the time and run on one core each; tests/conftest.py keeps the tests sharing a costly fixture together.
# --max-worker-restart 0: a crashed worker fails the run at once (pytest-xdist replaces it otherwise,
# and with --dist loadgroup the run can then wait forever).
status=0
python -m pytest -q -p no:cacheprovider -n "${YGO_TEST_WORKERS:-2}" --dist loadgroup --max-worker-restart 0 \
  --ignore=tests/test_export.py "$@" || status=$?
export_status=0
wait "$export_pid" || export_status=$?
echo "tests/test_export.py (run alongside):"
cat "$export_log"
exit $(( status ? status : export_status ))
