"""Keyword abilities as data (ontology ygo:KeywordAbility, named by ygo:cardAbility on a card class): the catalog
reads them, the ABox says which monster on the field has or lacks each, and `fast` infers what Pellet infers on
every reasoner input of the battle scenarios that use them (tests/scenarios/goat)."""
from __future__ import annotations

from pathlib import Path

import pytest

from ygo_onto import abox
from ygo_onto.cards import catalog
from ygo_onto.state import normalize
from ygo_onto.testing import differential as D

GOAT_SCENARIOS = Path(__file__).parent / "scenarios" / "goat"
ABILITY_SCENARIOS = ["spirit-reaper-is-not-destroyed-by-battle", "spirit-reaper-attacking-a-stronger-monster-survives",
                     "spirit-reaper-set-and-attacked-survives-once-flipped",
                     "airknight-parshath-pierces-a-defense-position-monster",
                     "piercing-against-spirit-reaper-in-defense", "zombyra-the-dark-cannot-attack-directly"]
ABILITIES = ("cannotAttackDirectly", "indestructibleByBattle", "piercing")


def test_the_goat_catalog_reads_each_cards_keyword_abilities():
    cat = catalog("goat")
    assert cat.get("Spirit Reaper").abilities == ("indestructibleByBattle",)
    assert cat.get("Airknight Parshath").abilities == ("piercing",)
    assert cat.get("Zombyra the Dark").abilities == ("cannotAttackDirectly",)
    assert cat.get("Don Zaloog").abilities == ()


def _ability_facts(state: dict) -> set:
    return {f for f in abox.state_facts(normalize(state)) if f[0] in ("hasAbility", "lacksAbility")}


def test_a_face_up_monster_has_its_abilities_and_lacks_the_others():
    state = {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "battle", "players": {
        "A": {"monster_zones": [{"card": "Spirit Reaper", "position": "attack"}, None, None, None, None]},
        "B": {"monster_zones": [{"card": "Spirit Reaper", "position": "face_down_defense"}, None, None, None, None]}}}
    facts = _ability_facts(state)
    face_up, face_down = abox.card_ind("A", "monster_zones", 0), abox.card_ind("B", "monster_zones", 0)
    assert ("hasAbility", face_up, "indestructibleByBattle") in facts
    assert {("lacksAbility", face_up, a) for a in ABILITIES if a != "indestructibleByBattle"} <= facts
    # rulebook p. 11, cards.md Spirit Reaper: a face-down card has no active effects
    assert {f for f in facts if f[1] == face_down} == {("lacksAbility", face_down, a) for a in ABILITIES}


def test_a_card_without_abilities_lacks_every_one_in_official():
    state = {"format": "ygo-onto.state/1", "ruleset": "official", "turn": 3, "players": {
        "A": {"monster_zones": [{"card": "Dark Magician", "position": "attack"}, None, None, None, None]}, "B": {}}}
    c = abox.card_ind("A", "monster_zones", 0)
    assert _ability_facts(state) == {("lacksAbility", c, a) for a in ABILITIES}


@pytest.mark.pellet
def test_fast_infers_exactly_what_pellet_infers_on_the_keyword_ability_battles():
    cases = D.dedupe(D.scenario_step_cases([GOAT_SCENARIOS / f"{name}.json" for name in ABILITY_SCENARIOS]))
    assert any(("damageStep", abox.DUEL, True) in abox.state_facts(c.state, transient=c.transient) for c in cases)
    with D.PelletPool(workers=1) as pool:
        outcomes = D.compare(cases, pool, batch=4)
    failures = [o for o in outcomes if not o.same]
    assert len(outcomes) == len(cases)
    assert all(o.fast_error is None and o.pellet_error is None for o in outcomes)
    assert not failures, "\n".join(o.report() for o in failures[:3])
