"""Every rule scenario, with the compiled backend and with Pellet.

Pellet through owlready2 (the reference) takes ~10 s per state with the full rule base, so CI
runs a sample of scenarios with it (PELLET_SAMPLE) and a fixed four-hundredth of them with
`pellet-jvm`: the same Pellet jars kept alive in one JVM, whose facts equal the reference's
(tests/test_pellet_jvm.py, on the rulebook's chain example among others).  Every scenario's
state is also compared fact by fact with Pellet in tests/test_differential.py.
YGO_FULL_PELLET=1 runs every scenario on both.
"""
import os
import zlib

import pytest

from scenario_runner import all_scenarios, load, run

SCENARIOS = all_scenarios()
IDS = [f"{p.parent.name}/{p.stem}" for p in SCENARIOS]
# the simplified battle table (each Pellet step costs ~10 s; the rulebook's chain example, ~2 minutes
# on it, runs on pellet-jvm, whose facts test_pellet_jvm compares with the reference's on that very chain)
PELLET_SAMPLE = {"simplified/defense-target-stronger"}
PELLET = [p for p, i in zip(SCENARIOS, IDS) if os.environ.get("YGO_FULL_PELLET") or i in PELLET_SAMPLE]
# a fixed four-hundredth for pellet-jvm (by a checksum of the id, so it does not shift as scenarios are added),
# and the rulebook's chain example: 3 official scenarios at 10-25 s each, as the effect vocabulary's rules make
# every Pellet run longer; the differential test compares with Pellet, fact by fact, the scenario states that fire
# every rule some scenario state fires
# The goat scenarios are left to tests/test_goat_reasoners.py, which compares every fact of the reasoner inputs of
# their steps that fire every rules file some input fires (the facts equal, so are the answers).
PELLET_JVM = [p for p, i in zip(SCENARIOS, IDS)
              if os.environ.get("YGO_FULL_PELLET")
              or (zlib.crc32(i.encode()) % 400 == 0 and not i.startswith("goat/")) or i == "official/chain-rulebook-example"]


def test_there_are_enough_scenarios_and_each_cites_its_rule():
    assert len(SCENARIOS) >= 40
    for path in SCENARIOS:
        sc = load(path)
        assert sc["rule"].strip(), f"{path.name} cites no rule"
        assert any(k in sc for k in ("allowed", "forbidden", "expect", "allowed_after", "forbidden_after")), path.name
    assert len(PELLET) >= len(PELLET_SAMPLE), "a sampled scenario was renamed"


@pytest.mark.parametrize("path", SCENARIOS, ids=IDS)
def test_scenario_fast(path):
    run(path, "fast")


@pytest.mark.pellet
@pytest.mark.parametrize("path", PELLET, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_pellet(path):
    run(path, "pellet")


@pytest.mark.pellet
@pytest.mark.parametrize("path", PELLET_JVM, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_pellet_jvm(path):
    run(path, "pellet-jvm")
