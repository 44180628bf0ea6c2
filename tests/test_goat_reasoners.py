"""`fast` = `pellet` on `goat` states: the compiled backend infers exactly the facts the reference infers,
with goat's rules (common + official + goat, the official card rules about cards goat lacks left out) and
its catalog, on every reasoner input of the goat rule scenarios' steps and on states and apply steps of goat
duels of the benchmark decks (ygo_onto.testing.differential, as tests/test_differential.py does for every
ruleset)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ygo_onto import abox
from ygo_onto.testing import differential as D

SCENARIOS = Path(__file__).parent / "scenarios"


@pytest.fixture(scope="module")
def scenario_steps():
    """The start, every reasoner input of every step (the damage calculation's, without transient facts, too: the
    battle abilities' and events' states) and the state after each step of every goat scenario: the summon window,
    a face-up lock, an Equip Spell leaving, a flip, a pending discard are reached by the steps alone."""
    return D.scenario_step_cases(sorted((SCENARIOS / "goat").glob("*.json")), every_input=True)


@pytest.fixture(scope="module")
def duel_states(scenario_steps):
    return D.sample_playouts(6, 1, seed=7, rulesets=("goat",), exclude={c.key() for c in scenario_steps})


def test_the_goat_inputs_are_varied_and_fast_answers_them(scenario_steps, duel_states):
    cases = scenario_steps + duel_states
    assert len(duel_states) >= 6 and {c.ruleset for c in cases} == {"goat"}
    assert sum(1 for c in scenario_steps if c.transient) > 100
    assert sum(1 for c in scenario_steps if " input " in c.name and not c.transient) > 20
    # the damage calculations of the battle scenarios (keyword abilities, battle damage events) are among them
    assert sum(1 for c in scenario_steps if ("damageStep", abox.DUEL, True) in abox.state_facts(c.state, transient=c.transient)) >= 9
    assert not [(c.name, err) for c in cases for _, err in [D.fast_facts(c)] if err]


def _assert_pellet_agrees(cases: list, pool: D.PelletPool) -> None:
    outcomes = D.compare(cases, pool, batch=4)
    assert len(outcomes) == len(cases)
    assert all(o.fast_error is None and o.pellet_error is None and o.pellet_ms > 0 for o in outcomes)
    failures = [o for o in outcomes if not o.same]
    assert not failures, "\n".join(o.report()[:2000] for o in failures[:3])


@pytest.mark.pellet
def test_fast_infers_exactly_what_pellet_infers_on_goat_duel_states(duel_states, pellet_pool):
    _assert_pellet_agrees(duel_states, pellet_pool)


def _pellet_sample(scenario_steps: list) -> list:
    """The inputs a default run compares with Pellet: a cover of every rules file that some input fires (a Pellet run
    costs seconds and goat inputs seldom share one; a cover of every rule takes five times the inputs); every input
    with YGO_FULL_PELLET=1 (README "Tests and CI")."""
    return D.covering(scenario_steps, unit=D.rule_file)


def test_the_pellet_sample_fires_every_rules_file_the_goat_scenarios_fire(scenario_steps):
    sample = _pellet_sample(scenario_steps)
    assert not D.uncovered(scenario_steps, sample, unit=D.rule_file)
    assert any(c.transient for c in sample)
    rules = D.uncovered(scenario_steps, [])["goat"]
    left = D.uncovered(scenario_steps, sample).get("goat", set())
    print(f"\ngoat Pellet sample: {len(sample)} of {len(scenario_steps)} inputs; they fire every rules file and "
          f"{len(rules) - len(left)} of the {len(rules)} rules the inputs fire")


@pytest.mark.pellet
def test_fast_infers_exactly_what_pellet_infers_on_the_goat_scenario_steps(scenario_steps, pellet_pool):
    _assert_pellet_agrees(_pellet_sample(scenario_steps), pellet_pool)
