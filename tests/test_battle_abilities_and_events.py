"""Battle as data: keyword abilities (ontology ygo:KeywordAbility, named by ygo:cardAbility on a card class) and the
battle damage event (ygo:BattleDamageEvent, the trigger onBattleDamage). The catalog reads the abilities, the ABox
says which monster on the field has or lacks each, a battle damage event is recorded only for a card an effect of
which watches it. The battle scenarios are in tests/scenarios/goat; `fast` = Pellet on their every reasoner input is
tests/test_goat_reasoners.py's comparison."""
from __future__ import annotations

from ygo_onto import abox
from ygo_onto.cards import catalog
from ygo_onto.game import GameState
from ygo_onto.knowledge import knowledge
from ygo_onto.state import normalize
from ygo_onto.testing import differential as D

# the keyword abilities of the vocabulary (ontology ygo:KeywordAbility), every one of which some goat card has
ABILITIES = tuple(sorted(i for i, classes in knowledge("goat").vocabulary.individuals.items()
                         if "KeywordAbility" in classes))


def test_the_goat_catalog_reads_each_cards_keyword_abilities():
    cat = catalog("goat")
    assert cat.get("Spirit Reaper").abilities == ("destroyedWhenTargeted", "indestructibleByBattle")
    assert cat.get("Reaper on the Nightmare").abilities == ("canAttackDirectly", "destroyedWhenTargeted",
                                                            "indestructibleByBattle")
    assert cat.get("Airknight Parshath").abilities == ("piercing",)
    assert cat.get("Zombyra the Dark").abilities == ("cannotAttackDirectly",)
    assert cat.get("Don Zaloog").abilities == ()
    assert cat.get("Dark Flare Knight").abilities == ("noBattleDamageToController",)
    assert cat.get("Asura Priest").abilities == ("attacksEveryMonster",)
    assert len(ABILITIES) == 9


def _ability_facts(state: dict) -> set:
    return {f for f in abox.state_facts(normalize(state)) if f[0] in ("hasAbility", "lacksAbility")}


def test_a_face_up_monster_has_its_abilities_and_lacks_the_others():
    state = {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "battle", "players": {
        "A": {"monster_zones": [{"card": "Spirit Reaper", "position": "attack"}, None, None, None, None]},
        "B": {"monster_zones": [{"card": "Spirit Reaper", "position": "face_down_defense"}, None, None, None, None]}}}
    facts = _ability_facts(state)
    face_up, face_down = abox.card_ind("A", "monster_zones", 0), abox.card_ind("B", "monster_zones", 0)
    own = {"destroyedWhenTargeted", "indestructibleByBattle"}
    assert {("hasAbility", face_up, a) for a in own} <= facts
    assert {("lacksAbility", face_up, a) for a in ABILITIES if a not in own} <= facts
    # rulebook p. 11, cards.md Spirit Reaper: a face-down card has no active effects
    assert {f for f in facts if f[1] == face_down} == {("lacksAbility", face_down, a) for a in ABILITIES}


def test_a_card_without_abilities_lacks_every_one_some_card_of_its_catalog_has():
    """goat: a monster without abilities (Darkfire Dragon) lacks each one; official: no card has one, so none is
    told (the rules run read each as lacking: docs/decisions.md, "Counts, abilities and effect kinds a catalog never
    makes")."""
    c = abox.card_ind("A", "monster_zones", 0)
    for ruleset, card, told in (("goat", "Darkfire Dragon", ABILITIES), ("official", "Dark Magician", ())):
        state = {"format": "ygo-onto.state/1", "ruleset": ruleset, "turn": 3, "players": {
            "A": {"monster_zones": [{"card": card, "position": "attack"}, None, None, None, None]}, "B": {}}}
        assert _ability_facts(state) == {("lacksAbility", c, a) for a in told}


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
    assert events == [("A", "monster_zones", 0, None, None, "BattleDamageEvent", 1)]  # (its time in the step: the first)
    assert {("BattleDamageEvent", "event1"), ("eventCard", "event1", abox.card_ind("A", "monster_zones", 0))} <= set(facts)
    assert _battle_damage_events(state("Giant Orc")) == ([], [])


def test_a_direct_attack_is_its_own_event_for_a_card_that_watches_it():
    def state(card):
        return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "battle", "players": {
            "A": {"deck": ["Sangan"], "monster_zones": [{"card": card, "position": "attack"}, None, None, None, None]},
            "B": {"hand": ["Giant Orc"]}}}
    # Spirit Reaper's discard watches battle damage by a direct attack (onDirectBattleDamage) only
    events, facts = _battle_damage_events(state("Spirit Reaper"))
    assert events == [("A", "monster_zones", 0, None, None, "DirectBattleDamageEvent", 1)]
    assert ("DirectBattleDamageEvent", "event1") in set(facts)
    # Airknight Parshath's draw watches any battle damage, not the direct attack as such
    events, _ = _battle_damage_events(state("Airknight Parshath"))
    assert events == [("A", "monster_zones", 0, None, None, "BattleDamageEvent", 1)]  # (its time in the step: the first)
