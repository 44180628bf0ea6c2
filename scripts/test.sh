#!/usr/bin/env bash
# The test command of the README: every test, with the Pellet part chosen to fit CI's time.
#   all fast tests (scenarios, differential on generated states, playouts, state, CLI, export, quality)
#   + the Pellet tests marked `pellet` (Pellet scenarios, the Pellet side of the differential test, notebook)
set -euo pipefail
python -m pytest -q -p no:cacheprovider "$@"
