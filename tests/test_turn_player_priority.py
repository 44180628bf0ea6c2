"""The turn player's priority after its own summon and attack declaration (rulebook v6.0 p. 38).

The turn player acts first after its own Normal, Tribute or Flip Summon and after its attack
declaration (`turnPlayerWindow`); its pass hands priority to the opponent; the opponent's pass on an
attack gives the attacker a last window before the Damage Step (`attackAnswered`). The inputs here
are every state and apply step of the scenarios tests/scenarios/official/priority-*.json; the fast
backend must infer on them exactly what Pellet infers (the `pellet` test: by default the inputs that fire every rule
any of them fires, all with YGO_FULL_PELLET=1), and the windows must be there (the fast-only tests).
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ygo_onto import GameState
from ygo_onto.abox import DUEL
from ygo_onto.testing import differential as D

SCENARIOS = sorted((Path(__file__).parent / "scenarios" / "official").glob("priority-*.json"))


@pytest.fixture(scope="module")
def cases():
    return D.scenario_step_cases(SCENARIOS)


def _facts(case):
    facts, err = D.fast_facts(case)
    assert err is None, err
    return set(facts)


def test_the_scenarios_are_there():
    assert len(SCENARIOS) >= 5


def test_the_turn_player_window_opens_after_its_summon_and_its_attack(cases):
    states = [c for c in cases if not c.transient]
    windows = [c for c in states if ("fulfilled", "turnPlayerWindow", True) in _facts(c)]
    summon = [c for c in windows if ("summonInProgress", DUEL, True) in _facts(c)]
    attack = [c for c in windows if ("battleInProgress", DUEL, True) in _facts(c)]
    assert summon and attack
    for c in windows:  # the turn player holds it, and nothing of an open Main Phase is offered there
        assert c.state["priority"] == c.state["turn_player"]
        assert ("fulfilled", "openState", True) not in _facts(c)


def test_the_attacker_gets_a_window_after_the_opponent_passes(cases):
    after_pass = [c for c in cases if not c.transient and ("attackAnswered", DUEL, True) in _facts(c)]
    assert after_pass
    for c in after_pass:
        assert ("fulfilled", "turnPlayerWindow", True) in _facts(c)
        # the declaration's moment is gone: the opponent's Sakuretsu Armor no longer answers it
        actions = GameState.from_dict(c.state).allowed_actions("fast")
        assert actions and all(a.to_dict().get("player") == c.state["turn_player"] for a in actions)


@pytest.mark.pellet
def test_fast_infers_what_pellet_infers_in_the_new_windows(cases, pellet_pool):
    assert len(cases) >= 20
    # by default the inputs that fire every rule some input fires (a cover, D.covering: among them the windows'
    # states after a summon or an attack, with the turn player or the opponent to act); every one with
    # YGO_FULL_PELLET=1 (README "Tests and CI")
    chosen = D.covering(cases)
    assert not D.uncovered(cases, chosen)
    assert len(chosen) >= 8
    outcomes = D.compare(chosen, pellet_pool, batch=8)
    failures = [o for o in outcomes if not o.same]
    assert not failures, "\n".join(o.report() for o in failures[:3])
