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


# the goat cards played by data alone (src/ygo_onto/data/goat/effects/): every state and apply step of their scenarios
CARD_SCENARIOS = [SCENARIOS / "goat" / f"{name}.json" for name in (
    "heavy-storm-destroys-every-spell-and-trap",
    "magician-of-faith-flip-adds-a-spell-from-the-graveyard",
    "magician-of-faith-flip-with-no-spell-in-the-graveyard-does-nothing",
    "gravekeepers-spy-flip-summons-a-gravekeeper-from-the-deck",
    "sinister-serpent-returns-to-the-hand-in-its-owners-standby-phase",
    "sinister-serpent-is-not-returned-in-the-main-phase",
    "sinister-serpent-stops-the-turn-in-its-owners-standby-phase",
    "sinister-serpent-declined-stays-in-the-graveyard",
    "gravekeepers-spy-with-no-gravekeeper-in-the-deck-summons-nothing",
    "premature-burial-goes-with-its-monster-destroyed-by-battle",
    "premature-burial-revives-in-attack-position-and-equips",
    "premature-burial-destroyed-destroys-its-monster",
    "call-of-the-haunted-revives-in-attack-position",
    "call-of-the-haunted-destroyed-destroys-its-monster",
    "call-of-the-haunted-is-destroyed-with-its-monster-destroyed-by-battle",
)]


@pytest.mark.pellet
def test_fast_infers_exactly_what_pellet_infers_on_the_goat_card_scenarios_steps():
    cases = D.scenario_step_cases(CARD_SCENARIOS)
    assert len(cases) >= 2 * len(CARD_SCENARIOS) and any(c.transient for c in cases)
    with D.PelletPool(workers=1) as pool:
        outcomes = D.compare(cases, pool, batch=4)
    failures = [o for o in outcomes if not o.same]
    assert len(outcomes) == len(cases)
    assert all(o.fast_error is None and o.pellet_error is None for o in outcomes)
    assert not failures, "\n".join(o.report() for o in failures[:3])
