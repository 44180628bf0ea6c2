#!/usr/bin/env bash
# The test command of the README: every test file, Pellet included (see README "Tests and CI").
# The OWL API test runs in a process of its own: a process starts one JVM, and that test needs
# the OWL API on the JVM's class path (pellet-jvm then shares a JVM it did not start).
set -euo pipefail
python -m pytest -q -p no:cacheprovider tests/test_export.py "$@"
python -m pytest -q -p no:cacheprovider --ignore=tests/test_export.py "$@"
