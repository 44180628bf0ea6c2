"""A monster that "cannot be Special Summoned by other ways" (cards.md Red-Eyes Darkness Dragon) is no
Monster Reborn target, even after a proper summon (rulebook v6.0 p. 15): the catalog's fact
`summonedOnlyByOwnProcedure`, read by Monster Reborn's target rule. The fast backend must infer on the
states of its scenarios exactly what Pellet infers.
"""
from __future__ import annotations

from pathlib import Path

import pytest

from ygo_onto.cards import catalog
from ygo_onto.testing import differential as D

SCENARIOS = [Path(__file__).parent / "scenarios" / "official" / f"{name}.json" for name in (
    "red-eyes-darkness-dragon-not-revived-after-proper-summon",
    "red-eyes-darkness-dragon-alone-no-reborn-target",
    "two-properly-summoned-copies-both-revivable",
)]


@pytest.fixture(scope="module")
def cases():
    return D.scenario_step_cases(SCENARIOS)


def test_only_the_card_whose_text_says_so_is_marked():
    marked = [c.name for c in catalog("official") if c.own_procedure_only]
    assert marked == ["Red-Eyes Darkness Dragon"]
    assert all(c.special_summon_only for c in catalog("official") if c.own_procedure_only)


def test_monster_reborn_never_targets_it(cases):
    for case in cases:
        facts, err = D.fast_facts(case)
        assert err is None, err
        marked = {f[1] for f in facts if f[0] == "summonedOnlyByOwnProcedure" and f[2] is True}
        assert not any(f[0] == "selectable" and f[2] in marked for f in facts), case.name


@pytest.mark.pellet
def test_fast_infers_what_pellet_infers(cases, pellet_pool):
    # the inputs that fire every rule some input fires (a cover, D.covering; all with YGO_FULL_PELLET=1)
    chosen = D.covering(cases)
    assert not D.uncovered(cases, chosen)
    outcomes = D.compare(chosen, pellet_pool, batch=8)
    failures = [o for o in outcomes if not o.same]
    assert not failures, "\n".join(o.report() for o in failures[:3])
