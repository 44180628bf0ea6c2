"""Battle as data: keyword abilities (ontology ygo:KeywordAbility, named by ygo:cardAbility on a card class) and the
battle damage event (ygo:BattleDamageEvent, the trigger onBattleDamage). The catalog reads the abilities, the ABox
says which monster on the field has or lacks each, a battle damage event is recorded only for a card an effect of
which watches it, and `fast` infers what Pellet infers on every reasoner input of the battle scenarios that use them
(tests/scenarios/goat)."""
from __future__ import annotations

import copy
import json

from pathlib import Path

import pytest

from ygo_onto import abox
from ygo_onto.cards import catalog
from ygo_onto.game import GameState
from ygo_onto.state import normalize
from ygo_onto.testing import differential as D

GOAT_SCENARIOS = Path(__file__).parent / "scenarios" / "goat"
ABILITY_SCENARIOS = ["spirit-reaper-is-not-destroyed-by-battle", "spirit-reaper-attacking-a-stronger-monster-survives",
                     "spirit-reaper-set-and-attacked-survives-once-flipped",
                     "airknight-parshath-pierces-a-defense-position-monster",
                     "piercing-against-spirit-reaper-in-defense", "zombyra-the-dark-cannot-attack-directly",
                     "airknight-parshath-draws-when-it-inflicts-battle-damage",
                     "airknight-parshath-draws-nothing-without-battle-damage",
                     "airknight-parshath-in-defense-draws-when-its-def-inflicts-damage"]
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


def _battle_damage_events(state: dict) -> tuple[list, list]:
    """The events the apply loop records for the next step of a direct attack by the monster in A's first zone, and
    the facts of that step."""
    game = GameState.from_dict(state)
    sink: list = []
    with D._recording_steps(sink):
        game.apply("direct_attack@A.mz0", "fast")
    events = [e for _, t in sink if t and "events" in t for e in t["events"]]
    facts = [f for data, t in sink if t and "events" in t for f in abox.state_facts(data, True, t)]
    return events, facts


def test_battle_damage_is_an_event_only_for_a_card_that_watches_it():
    def state(card):
        return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "battle", "players": {
            "A": {"deck": ["Sangan"], "monster_zones": [{"card": card, "position": "attack"}, None, None, None, None]},
            "B": {}}}
    events, facts = _battle_damage_events(state("Airknight Parshath"))
    assert events == [("A", "monster_zones", 0, None, None, None)]
    assert {("BattleDamageEvent", "event1"), ("eventCard", "event1", abox.card_ind("A", "monster_zones", 0))} <= set(facts)
    assert _battle_damage_events(state("Giant Orc")) == ([], [])


def _every_input(monkeypatch) -> list:
    """The start state and every reasoner input of the scenarios' steps, those without transient facts too (the
    damage calculation's: D.scenario_step_cases keeps only the inputs with transient facts)."""
    from ygo_onto import game

    sink: list = []
    original = game.run_reasoner

    def recorder(data, reasoner, transient=None, base=None):
        sink.append((copy.deepcopy(data), copy.deepcopy(transient)))
        return original(data, reasoner, transient, base)

    monkeypatch.setattr(game, "run_reasoner", recorder)
    cases = []
    for name in ABILITY_SCENARIOS:
        sc = json.loads((GOAT_SCENARIOS / f"{name}.json").read_text(encoding="utf-8"))
        state = GameState.from_dict(sc["state"])
        cases.append(D.Case(f"{name} start", state.to_dict()))
        for step in sc["steps"]:
            del sink[:]
            state = state.apply(step, "fast")
            cases += [D.Case(f"{name} {step} input {i}", data, transient) for i, (data, transient) in enumerate(sink)]
    return D.dedupe(cases)


@pytest.mark.pellet
def test_fast_infers_exactly_what_pellet_infers_on_the_battle_scenarios(monkeypatch):
    cases = _every_input(monkeypatch)
    assert sum(1 for c in cases if ("damageStep", abox.DUEL, True) in abox.state_facts(c.state, transient=c.transient)) >= 9
    assert any(c.transient and "events" in c.transient for c in cases)
    with D.PelletPool(workers=1) as pool:
        outcomes = D.compare(cases, pool, batch=4)
    failures = [o for o in outcomes if not o.same]
    assert len(outcomes) == len(cases)
    assert all(o.fast_error is None and o.pellet_error is None for o in outcomes)
    assert not failures, "\n".join(o.report() for o in failures[:3])
