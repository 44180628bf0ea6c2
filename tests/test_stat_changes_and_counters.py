"""ATK/DEF changes and Spell Counters as data: the effect kinds ModifyStatEffect and PlaceCounterEffect, the cost
removeOneSpellCounter, the triggers onNormalSummon and onDestroysByBattle. The driver's closure facts
(continuousStatChangeCount, battlingStatTypeCount) and the DestroysByBattleEvent are checked here; the cards'
behaviour is in their scenarios (tests/scenarios/goat: breaker-*, zombyra-the-dark-*, blade-knight-*,
kinetic-soldier-*), and `fast` = Pellet on their every reasoner input is tests/test_goat_reasoners.py's comparison."""
from __future__ import annotations

from ygo_onto import abox
from ygo_onto.game import GameState
from ygo_onto.state import normalize
from ygo_onto.testing import differential as D

CARDS = ("Breaker the Magical Warrior", "Zombyra the Dark", "Kinetic Soldier", "Blade Knight")


def _state(a_monsters: list, b_monsters: list, **extra) -> dict:
    return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "battle", "players": {
        "A": {"deck": ["Sangan"], "monster_zones": a_monsters + [None] * (5 - len(a_monsters))},
        "B": {"deck": ["Sangan"], "monster_zones": b_monsters + [None] * (5 - len(b_monsters))}}, **extra}


def _facts(state: dict, prop: str) -> dict:
    return {f[1]: f[2] for f in abox.state_facts(normalize(state)) if f[0] == prop}


def test_only_a_face_up_monster_with_a_continuous_change_counts_it():
    counts = _facts(_state([{"card": "Blade Knight", "position": "attack"},
                            {"card": "Blade Knight", "position": "face_down_defense"},
                            {"card": "Zombyra the Dark", "position": "attack"}], []), "continuousStatChangeCount")
    # rulebook p. 11: a face-down monster's effects are not active; Zombyra's change is triggered, not continuous
    assert counts == {abox.card_ind("A", "monster_zones", 0): 1, abox.card_ind("A", "monster_zones", 1): 0,
                      abox.card_ind("A", "monster_zones", 2): 0}


def test_kinetic_soldier_counts_a_warrior_it_battles_only():
    kinetic = abox.card_ind("B", "monster_zones", 0)
    attack = {"target": {"player": "B", "area": "monster_zones", "index": 0}}
    for attacker, battling in (("Zombyra the Dark", 1), ("Breaker the Magical Warrior", 0)):
        state = _state([{"card": attacker, "position": "attack", "attacks_declared": 1, "extra": {"attack": attack}}],
                       [{"card": "Kinetic Soldier", "position": "attack"}])
        assert _facts(state, "battlingStatTypeCount") == {kinetic: battling}
    idle = _state([{"card": "Zombyra the Dark", "position": "attack"}], [{"card": "Kinetic Soldier", "position": "attack"}])
    assert _facts(idle, "battlingStatTypeCount") == {kinetic: 0}


def _events_of_attack(state: dict) -> list:
    game = GameState.from_dict(state)
    sink: list = []
    with D._recording_steps(sink):
        game = game.apply("attack@A.mz0>B.mz0", "fast").apply({"type": "pass", "player": "B"}, "fast").apply("pass", "fast")
    return [e for _, t in sink if t and "events" in t for e in t["events"]]


def test_destroying_by_battle_is_an_event_only_for_a_card_that_watches_it():
    def state(card):
        return _state([{"card": card, "position": "attack"}], [{"card": "Kycoo the Ghost Destroyer", "position": "attack"}])
    # (an event: the card's place, where it came from and went, its class, its time in the step)
    assert ("A", "monster_zones", 0, None, None, "DestroysByBattleEvent") in [e[:6] for e in _events_of_attack(state("Zombyra the Dark"))]
    assert not [e for e in _events_of_attack(state("Giant Orc")) if e[5] == "DestroysByBattleEvent"]
