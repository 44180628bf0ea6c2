"""Every rule scenario, with the compiled backend; the Pellet run of them is marked `pellet`."""
import pytest

from scenario_runner import all_scenarios, load, run

SCENARIOS = all_scenarios()


def test_there_are_enough_scenarios_and_each_cites_its_rule():
    assert len(SCENARIOS) >= 40
    for path in SCENARIOS:
        sc = load(path)
        assert sc["rule"].strip(), f"{path.name} cites no rule"
        assert any(k in sc for k in ("allowed", "forbidden", "expect", "allowed_after", "forbidden_after")), path.name


@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_fast(path):
    run(path, "fast")


@pytest.mark.pellet
@pytest.mark.parametrize("path", SCENARIOS, ids=lambda p: f"{p.parent.name}/{p.stem}")
def test_scenario_pellet(path):
    run(path, "pellet")
