"""An Equip Card whose monster leaves the field: the monster's MoveEvent names the Equip Cards it had at the step's
start (eventEquip), and the rules destroy them in the next step (rulebook p. 17; rules/official/cards/effects.swrl);
the driver marks nothing on the Equip Card. And the card marks of the state's extra (state.CARD_MARKS): each is told
in the ABox by its table entry's property."""
from __future__ import annotations

from pathlib import Path

from scenario_runner import load
from ygo_onto.abox import card_ind, state_facts
from ygo_onto.game import GameState
from ygo_onto.state import CARD_MARKS
from ygo_onto.testing import differential as D

SCENARIOS = Path(__file__).parent / "scenarios" / "official"


def test_a_monster_leaving_the_field_names_its_equip_spell_in_its_move_event():
    sc = load(SCENARIOS / "equip-destroyed-when-monster-leaves.json")  # Dark Hole on Celtic Guardian with an Axe
    sink: list = []
    with D._recording_steps(sink):
        after = GameState.from_dict(sc["state"]).apply(sc["steps"][0], "fast")
    moved = [(data, t) for data, t in sink if t and any(e[:5] == ("A", "graveyard", 0, "monster_zones", "graveyard")
                                                        for e in t.get("events", ()))]
    assert len(moved) == 1, "one step follows the monster's destruction"
    data, transient = moved[0]
    axe = data["players"]["A"]["spell_trap_zones"][0]
    assert axe["card"] == "Axe of Despair" and axe["equipped_to"] is None and not axe["extra"], \
        "the Equip Spell is equipped to no card and carries no mark: the event says what happened"
    facts = set(state_facts(data, True, transient))
    events = [f[1] for f in facts if f[0] == "eventCard" and f[2] == card_ind("A", "graveyard", 0)]
    assert [("eventEquip", v, card_ind("A", "spell_trap_zones", 0)) in facts for v in events] == [True]
    assert ("OffFieldArea", "graveyardArea") not in facts, "the area's class is the TBox's, not a fact of the state"
    assert "Axe of Despair" in after.to_dict()["players"]["A"]["graveyard"]


def test_a_move_with_no_equip_names_none():
    sc = load(SCENARIOS / "equip-destroyed-when-monster-leaves.json")
    state = sc["state"]
    bare = {**state, "players": {**state["players"], "A": {**state["players"]["A"], "spell_trap_zones": [None] * 5}}}
    sink: list = []
    with D._recording_steps(sink):
        GameState.from_dict(bare).apply(sc["steps"][0], "fast")
    assert not [f for data, t in sink if t for f in state_facts(data, True, t) if f[0] == "eventEquip"]


def test_each_card_mark_is_told_by_its_property():
    places = {"effects_negated": ("official", "monster_zones"), "flipped_hidden": ("goat", "hand"),
              "chain_end_triggers": ("goat", "graveyard")}
    assert set(places) == set(CARD_MARKS)
    for key, (ruleset, area) in places.items():
        side = {"hand": [], "graveyard": [], "monster_zones": [None] * 5}
        side[area] = [{"card": "Sangan"}, None, None, None, None] if area == "monster_zones" else ["Sangan"]
        state = GameState.from_dict({"format": "ygo-onto.state/1", "ruleset": ruleset, "turn": 3, "players": {
            "A": side, "B": {}}, "extra": {key: [{"player": "A", "area": area, "index": 0}]}}).to_dict()
        facts = state_facts(state)
        told = {f for f in facts if len(f) == 3 and f[1] == card_ind("A", area, 0, state) and f[2] is True
                and f[0] in {m.prop for m in CARD_MARKS.values()}}
        assert told == {(CARD_MARKS[key].prop, card_ind("A", area, 0, state), True)}, key
