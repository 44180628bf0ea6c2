"""`fast` = `pellet` on `goat` states: the compiled backend infers exactly the facts the reference infers,
with goat's rules (common + official + goat, the official card rules about cards goat lacks left out) and
its catalog, on the goat rule scenarios' states and on states and apply steps of goat duels of the
benchmark decks (ygo_onto.testing.differential, as tests/test_differential.py does for every ruleset)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ygo_onto.testing import differential as D

SCENARIOS = Path(__file__).parent / "scenarios"


@pytest.fixture(scope="module")
def cases():
    scenarios = [c for c in D.scenario_cases(SCENARIOS) if c.ruleset == "goat"]
    playouts = D.sample_playouts(6, 4, seed=7, rulesets=("goat",), exclude={c.key() for c in scenarios})
    return scenarios + playouts


def test_the_goat_inputs_are_varied_and_fast_answers_them(cases):
    assert len(cases) >= 12 and {c.ruleset for c in cases} == {"goat"}
    assert sum(1 for c in cases if c.transient) >= 2
    assert not [(c.name, err) for c in cases for _, err in [D.fast_facts(c)] if err]


@pytest.mark.pellet
def test_fast_infers_exactly_what_pellet_infers_on_goat_states(cases):
    with D.PelletPool(workers=1) as pool:
        outcomes = D.compare(cases, pool, batch=4)
    failures = [o for o in outcomes if not o.same]
    assert len(outcomes) == len(cases)
    assert all(o.fast_error is None and o.pellet_error is None and o.pellet_ms > 0 for o in outcomes)
    assert not failures, "\n".join(o.report() for o in failures[:3])


# the goat scenarios of the draw, discard, hand and Life Point effects (DrawEffect on a trap, GainLifePointsEffect,
# DiscardEffect whole, at random and chosen on resolution, the search filtered by Type and Level, Thunder Dragon's
# ignition from the hand): every reasoner input of their steps, the resolution's pending discard and the random
# discard's step included
HAND_SCENARIOS = ["jar-of-greed-draws-one-card", "upstart-goblin-draws-and-gives-the-opponent-1000",
                  "card-destruction-discards-both-hands-and-draws-as-many",
                  "reinforcement-of-the-army-adds-a-level-4-or-lower-warrior",
                  "graceful-charity-draws-3-then-discards-2-chosen-on-resolution",
                  "delinquent-duo-random-then-chosen-discard", "thunder-dragon-discards-itself-to-add-up-to-2",
                  "reinforcement-of-the-army-in-the-deck-does-nothing"]


@pytest.mark.pellet
def test_fast_infers_what_pellet_infers_on_every_step_of_the_hand_scenarios():
    from scenario_runner import run

    cases = []
    for name in HAND_SCENARIOS:
        path = SCENARIOS / "goat" / f"{name}.json"
        sink: list = []
        with D._recording_steps(sink):
            run(path, "fast")
        cases += [D.Case(f"scenario {name} step {i}", data, transient) for i, (data, transient) in enumerate(sink)]
    cases = D.dedupe(cases)
    assert len(cases) >= 3 * len(HAND_SCENARIOS)
    with D.PelletPool(workers=1) as pool:
        outcomes = D.compare(cases, pool, batch=4)
    failures = [o for o in outcomes if not o.same]
    assert all(o.fast_error is None and o.pellet_error is None for o in outcomes)
    assert not failures, "\n".join(o.report()[:2000] for o in failures[:3])
