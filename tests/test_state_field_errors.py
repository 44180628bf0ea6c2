"""Every key of the state format (docs/state-format.md) refuses a bad value through the CLI: exit 2, the message
names the field's path, never a traceback, never a hang.  Each case changes one field of a well-formed state
(the top level, a player, an area, a field card, its `extra`, a chain link, the pending action, the duel's
`extra`) to a wrong type, a value out of range, an unknown card name, a reference to an empty place or a wrong
area, a reference given twice, or references that disagree with each other."""
from __future__ import annotations

import copy
import json
from pathlib import Path

import pytest

from cli_runner import cli_bounded

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "main1-tribute.json"
DELETE = object()  # a case that leaves the key out
SECONDS = 20  # a hang is a bug: no case may take longer


def _official() -> dict:
    """examples/main1-tribute.json: A with two monsters and Red-Eyes in hand, B with a Set Magic Jammer."""
    return json.loads(EXAMPLE.read_text(encoding="utf-8"))


def _goat() -> dict:
    """A goat Main Phase 1: A's Asura Priest, B's Sangan and a Sheep Token, Sangan and Heavy Storm in Graveyards."""
    empty = [None] * 5
    return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "turn_player": "A", "phase": "main1",
            "players": {"A": {"deck": ["Sangan"] * 3, "hand": ["Heavy Storm"], "graveyard": ["Sangan"],
                              "monster_zones": [{"card": "Asura Priest"}, None, None, None, None],
                              "spell_trap_zones": list(empty)},
                        "B": {"deck": ["Sangan"] * 3, "hand": ["Sangan"], "graveyard": ["Heavy Storm"],
                              "monster_zones": [{"card": "Sangan"}, {"card": "Sheep Token", "summoned_by": "special"},
                                                None, None, None],
                              "spell_trap_zones": list(empty)}}}


def _set(state: dict, path: str, value) -> dict:
    """A copy of the state with the value at a dotted path (list indexes as numbers) set or, for DELETE, removed."""
    state = copy.deepcopy(state)
    parts = [int(p) if p.isdigit() else p for p in path.split(".")]
    node = state
    for part in parts[:-1]:
        if isinstance(node, dict) and part not in node:
            node[part] = {}
        node = node[part]
    if value is DELETE:
        del node[parts[-1]]
    else:
        node[parts[-1]] = value
    return state


def _run(tmp_path: Path, state, command=("allowed",)) -> tuple[int, str]:
    """`ygo-onto COMMAND STATE` in process, with a time bound; the text must hold no traceback."""
    path = tmp_path / "state.json"
    path.write_text(state if isinstance(state, str) else json.dumps(state), encoding="utf-8")
    return cli_bounded(SECONDS, command[0], path, *command[1:])


MZ = "players.A.monster_zones.0"  # A's first monster (Curse of Dragon in the official state, Asura Priest in goat)
REF_B_MZ0 = {"player": "B", "area": "monster_zones", "index": 0}
REF_EMPTY = {"player": "B", "area": "monster_zones", "index": 4}
REF_A_MZ0 = {"player": "A", "area": "monster_zones", "index": 0}

# (path changed, value, the field path the message names)
TOP = [
    ("format", DELETE, "format"), ("format", 1, "format"), ("format", "ygo-onto.state/2", "format"),
    ("ruleset", "modern", "ruleset"), ("ruleset", 1, "ruleset"), ("ruleset", None, "ruleset"),
    ("turn", 0, "turn"), ("turn", "3", "turn"), ("turn", 3.0, "turn"), ("turn", True, "turn"),
    ("turn", 10**7, "turn"),
    ("turn_player", "C", "turn_player"), ("turn_player", 0, "turn_player"), ("turn_player", None, "turn_player"),
    ("first_player", "C", "first_player"), ("first_player", ["A"], "first_player"),
    ("phase", "lunch", "phase"), ("phase", 3, "phase"),
    ("priority", "C", "priority"), ("priority", 1, "priority"),
    ("chain", {}, "chain"), ("chain", "none", "chain"), ("chain", [1], "chain[0]"),
    ("pending", [], "pending"), ("pending", "tribute", "pending"),
    ("winner", "C", "winner"), ("winner", 1, "winner"), ("winner", False, "winner"),
    ("rng_seed", "7", "rng_seed"), ("rng_seed", 2**64, "rng_seed"), ("rng_seed", 1.5, "rng_seed"),
    ("players", [], "players"), ("players", DELETE, "players"), ("players.B", DELETE, "players.B"),
    ("players.C", {}, "players.C"), ("players.A", [], "players.A"),
    ("extra", [], "extra"), ("extra", "x", "extra"),
    ("colour", "red", "colour"),
]

PLAYER = [
    ("players.A.life_points", -1, "players.A.life_points"), ("players.A.life_points", "8000", "players.A.life_points"),
    ("players.A.life_points", 2_000_000, "players.A.life_points"), ("players.A.life_points", None, "players.A.life_points"),
    ("players.A.life_points", 8000.5, "players.A.life_points"),
    ("players.A.deck", "Dark Magician", "players.A.deck"), ("players.A.deck", [1], "players.A.deck[0]"),
    ("players.A.deck", ["Dark Magic Ian"], "players.A.deck[0]"), ("players.A.deck", None, "players.A.deck"),
    ("players.A.deck", ["Dark Magician"] * 61, "players.A.deck"),
    ("players.A.deck", ["Thousand Dragon"], "players.A.deck[0]"),  # a Fusion Monster in the Main Deck
    ("players.A.hand", None, "players.A.hand"), ("players.A.hand", [None], "players.A.hand[0]"),
    ("players.A.hand", ["x" * 300], "players.A.hand[0]"), ("players.A.hand", [{"card": "Feral Imp"}], "players.A.hand[0]"),
    ("players.A.graveyard", [["Feral Imp"]], "players.A.graveyard[0]"),
    ("players.A.banished", {"0": "Feral Imp"}, "players.A.banished"),
    ("players.A.extra_deck", ["Dark Magician"], "players.A.extra_deck[0]"),
    ("players.A.monster_zones", None, "players.A.monster_zones"),
    ("players.A.monster_zones", [None] * 4, "players.A.monster_zones"),
    ("players.A.monster_zones", [None] * 6, "players.A.monster_zones"),
    ("players.A.monster_zones", "none", "players.A.monster_zones"),
    ("players.A.monster_zones.2", "Feral Imp", "players.A.monster_zones[2]"),
    ("players.A.monster_zones.2", {"card": "Pot of Greed"}, "players.A.monster_zones[2].card"),
    ("players.A.spell_trap_zones", {}, "players.A.spell_trap_zones"),
    ("players.B.spell_trap_zones.1", {"card": "Dark Magician"}, "players.B.spell_trap_zones[1].card"),
    ("players.B.spell_trap_zones.1", {"card": "Yami"}, "players.B.spell_trap_zones[1].card"),  # a Field Spell
    ("players.A.field_zone", "Yami", "players.A.field_zone"),
    ("players.A.field_zone", {"card": "Dark Magician"}, "players.A.field_zone.card"),
    ("players.A.field_zone", {"card": "Pot of Greed"}, "players.A.field_zone.card"),
    ("players.A.normal_summon_used", "yes", "players.A.normal_summon_used"),
    ("players.A.normal_summon_used", 1, "players.A.normal_summon_used"),
    ("players.A.normal_summon_used", None, "players.A.normal_summon_used"),
    ("players.A.sideboard", [], "players.A.sideboard"),
]

FIELD_CARD = [
    (f"{MZ}.card", DELETE, f"{MZ.replace('.0', '[0]')}.card"), (f"{MZ}.card", 7, "monster_zones[0].card"),
    (f"{MZ}.card", "Curse of Dragons!", "monster_zones[0].card"), (f"{MZ}.card", None, "monster_zones[0].card"),
    (f"{MZ}.owner", "C", "monster_zones[0].owner"), (f"{MZ}.owner", 0, "monster_zones[0].owner"),
    (f"{MZ}.position", "face_up", "monster_zones[0].position"), (f"{MZ}.position", "sideways", "monster_zones[0].position"),
    ("players.B.spell_trap_zones.0.position", "attack", "players.B.spell_trap_zones[0].position"),
    (f"{MZ}.summoned_this_turn", 1, "monster_zones[0].summoned_this_turn"),
    (f"{MZ}.summoned_by", "magic", "monster_zones[0].summoned_by"),
    (f"{MZ}.summoned_by", None, "monster_zones[0].summoned_by"),
    (f"{MZ}.position_changed_this_turn", "no", "monster_zones[0].position_changed_this_turn"),
    (f"{MZ}.attacks_declared", -1, "monster_zones[0].attacks_declared"),
    (f"{MZ}.attacks_declared", 1.5, "monster_zones[0].attacks_declared"),
    (f"{MZ}.attacks_declared", 10**7, "monster_zones[0].attacks_declared"),
    ("players.B.spell_trap_zones.0.set_this_turn", None, "players.B.spell_trap_zones[0].set_this_turn"),
    ("players.B.spell_trap_zones.0.equipped_to", {"player": "A", "zone": 7}, "spell_trap_zones[0].equipped_to.zone"),
    ("players.B.spell_trap_zones.0.equipped_to", {"player": "A"}, "spell_trap_zones[0].equipped_to.zone"),
    ("players.B.spell_trap_zones.0.equipped_to", "A.mz0", "spell_trap_zones[0].equipped_to"),
    ("players.B.spell_trap_zones.0.equipped_to", {"player": "C", "zone": 0}, "spell_trap_zones[0].equipped_to.player"),
    ("players.B.spell_trap_zones.0.equipped_to", {"player": "A", "zone": 1.0}, "spell_trap_zones[0].equipped_to.zone"),
    # a reference that disagrees with the card: a Set trap is no Equip Spell
    ("players.B.spell_trap_zones.0.equipped_to", {"player": "A", "zone": 0}, "spell_trap_zones[0].equipped_to"),
    (f"{MZ}.atk_modifier", "100", "monster_zones[0].atk_modifier"),
    (f"{MZ}.atk_modifier", 10**7, "monster_zones[0].atk_modifier"),
    (f"{MZ}.def_modifier", -(10**7), "monster_zones[0].def_modifier"),
    (f"{MZ}.def_modifier", None, "monster_zones[0].def_modifier"),
    (f"{MZ}.counters", [], "monster_zones[0].counters"), (f"{MZ}.counters", {"turns": -1}, "counters.turns"),
    (f"{MZ}.counters", {"turns": "2"}, "counters.turns"), (f"{MZ}.counters", {"turns": 1.5}, "counters.turns"),
    (f"{MZ}.counters", {"turns": None}, "counters.turns"),
    (f"{MZ}.counters", {"bogus": -1}, "monster_zones[0].counters.bogus"),  # any counter counts from 0
    (f"{MZ}.extra", [], "monster_zones[0].extra"), (f"{MZ}.extra", "x", "monster_zones[0].extra"),
    (f"{MZ}.nickname", "Curse", "monster_zones[0].nickname"),
]

BOOL_MARKS = ("effect_declined", "control_until_end", "control_by_equip", "control_equip_gone", "control_equip_negated",
              "flipped", "replay", "banish_at_end_phase", "destroyed_by_battle", "second_attack", "effect_summoned",
              "summon_timing_missed")
FIELD_EXTRA = [(f"{MZ}.extra.{key}", value, f"monster_zones[0].extra.{key}")
               for key in BOOL_MARKS for value in ("yes", 1, None)] + [
    (f"{MZ}.extra.just_summoned", "magic", "extra.just_summoned"), (f"{MZ}.extra.just_summoned", True, "extra.just_summoned"),
    (f"{MZ}.extra.attempt", "x", "extra.attempt"), (f"{MZ}.extra.summon_position", "up", "extra.summon_position"),
    (f"{MZ}.extra.attack", "B.mz0", "extra.attack"), (f"{MZ}.extra.attack", {"aim": 1}, "extra.attack.aim"),
    (f"{MZ}.extra.attack", {"target": "B.mz0"}, "extra.attack.target"),
    (f"{MZ}.extra.attack", {"target": None, "damage_step": "no"}, "extra.attack.damage_step"),
    (f"{MZ}.extra.attack", {"target": None, "target_lost": 0}, "extra.attack.target_lost"),
    (f"{MZ}.extra.attack", {"target": None, "opponent_passed": None}, "extra.attack.opponent_passed"),
    (f"{MZ}.extra.attack", {"target": {"player": "B", "area": "monster_zones", "index": 9}}, "extra.attack.target.index"),
    # an attack in Main Phase 1 (the invariant of one attack at a time, in the Battle Phase)
    (f"{MZ}.extra.attack", {"target": None}, "monster_zones[0].extra.attack"),
    # a monster's marks on a Set Trap
    *[(f"players.B.spell_trap_zones.0.extra.{key}", value, f"players.B.spell_trap_zones[0].extra.{key}")
      for key, value in (("attack", {"target": None}), ("just_summoned", "normal"), ("locked_zones", [0]),
                         ("second_attack", True), ("control_until_end", True), ("flipped", True))],
    # references that disagree with the board: an Equip Spell equipped to an empty Monster Zone
    ("players.B.spell_trap_zones.1", {"card": "Axe of Despair", "equipped_to": {"player": "A", "zone": 3}},
     "players.B.spell_trap_zones[1].equipped_to"),
    # destroyed by battle outside goat's Damage Step after damage calculation
    (f"{MZ}.extra.destroyed_by_battle", True, "monster_zones[0].extra.destroyed_by_battle"),
]

GOAT_MZ = "players.A.monster_zones.0"
GOAT_FIELD_EXTRA = [
    (f"{GOAT_MZ}.extra.attacked_monsters", "B.mz0", "extra.attacked_monsters"),
    (f"{GOAT_MZ}.extra.attacked_monsters", [1], "extra.attacked_monsters[0]"),
    (f"{GOAT_MZ}.extra.attacked_monsters", [{"player": "B", "area": "hand", "index": 0}],
     "extra.attacked_monsters[0].area"),
    (f"{GOAT_MZ}.extra.attacked_monsters", [REF_EMPTY], "extra.attacked_monsters[0]"),  # an empty zone
    (f"{GOAT_MZ}.extra.attacked_monsters", [{"player": "A", "area": "monster_zones", "index": 0}],
     "extra.attacked_monsters[0]"),  # its own side
    (f"{GOAT_MZ}.extra.attacked_monsters", [REF_B_MZ0, REF_B_MZ0], "extra.attacked_monsters[1]"),  # twice
    (f"{GOAT_MZ}.extra.attacked_monsters", [REF_B_MZ0] * 6, "extra.attacked_monsters"),
    (f"{GOAT_MZ}.extra.locked_zones", "0,1", "extra.locked_zones"),
    (f"{GOAT_MZ}.extra.locked_zones", [7], "extra.locked_zones[0]"),
    (f"{GOAT_MZ}.extra.locked_zones", [1.0], "extra.locked_zones[0]"),
    (f"{GOAT_MZ}.extra.locked_zones", [True], "extra.locked_zones[0]"),
    (f"{GOAT_MZ}.extra.locked_zones", [2, 2], "extra.locked_zones"),
    (f"{GOAT_MZ}.extra.locked_zones", [0, 1, 2, 3, 4, 0], "extra.locked_zones"),
    (f"{GOAT_MZ}.extra.just_summoned", "special ", "extra.just_summoned"),
    (f"{GOAT_MZ}.extra.locked_zones", [0], "monster_zones[0].extra.locked_zones"),  # Asura Priest locks no zones
    ("players.B.monster_zones.0.extra.attacked_monsters", [{"player": "A", "area": "monster_zones", "index": 0}],
     "players.B.monster_zones[0].extra.attacked_monsters"),  # Sangan does not attack every monster
    ("players.B.monster_zones.1.extra.summon_timing_missed", "true", "players.B.monster_zones[1].extra.summon_timing_missed"),
    (f"{GOAT_MZ}.counters", {"damage_sub_step": 3}, "counters.damage_sub_step"),  # 1 or 2
    ("players.A.spell_trap_zones.0", {"card": "Heavy Storm", "position": "face_down", "counters": {"activation_locked_by": 11}},
     "players.A.spell_trap_zones[0].counters.activation_locked_by"),  # a Spell & Trap Zone: 1 to 10
    ("players.A.graveyard", ["Sheep Token"], "players.A.graveyard[0]"),  # a token is no card
    # a FLIP due in the hand, an effect negated in the Graveyard: of monsters, not of Heavy Storm
    ("extra.flipped_hidden", [{"player": "A", "area": "hand", "index": 0}], "extra.flipped_hidden[0]"),
    ("extra.effects_negated", [{"player": "B", "area": "graveyard", "index": 0}], "extra.effects_negated[0]"),
    ("players.A.extra_deck", ["Sangan"], "players.A.extra_deck[0]"),
]

LINK = {"card": "Magic Jammer", "player": "B", "zone": {"area": "spell_trap_zones", "index": 0}, "speed": 3}


def _chain(**changes):
    link = dict(LINK, **changes)
    return [{k: v for k, v in link.items() if v is not DELETE}]


def _flip_jammer(state: dict) -> dict:
    """The official state with B's Magic Jammer face-up, as a card on the chain is (its link is the case's)."""
    return _set(state, "players.B.spell_trap_zones.0.position", "face_up")


CHAIN = [
    ("chain", ["Magic Jammer"], "chain[0]"),
    ("chain", _chain(card=DELETE), "chain[0].card"), ("chain", _chain(card="Magic Jamer"), "chain[0].card"),
    ("chain", _chain(card=3), "chain[0].card"),
    ("chain", _chain(player=DELETE), "chain[0].player"), ("chain", _chain(player="C"), "chain[0].player"),
    ("chain", _chain(zone="stz0"), "chain[0].zone"),
    ("chain", _chain(zone={"area": "hand", "index": 0}), "chain[0].zone.area"),
    ("chain", _chain(zone={"area": "spell_trap_zones", "index": 5}), "chain[0].zone.index"),
    ("chain", _chain(card="Mirror Force"), "chain[0].zone"),  # its zone holds another card
    ("chain", _chain(zone={"area": "spell_trap_zones"}), "chain[0].zone"),
    ("chain", _chain(zone={"player": "B", "area": "spell_trap_zones", "index": 0}), "chain[0].zone"),
    ("chain", _chain(targets="A.mz0"), "chain[0].targets"), ("chain", _chain(targets=[1]), "chain[0].targets[0]"),
    ("chain", _chain(targets=[{"player": "A", "area": "attic", "index": 0}]), "chain[0].targets[0].area"),
    ("chain", _chain(targets=[{"player": "A", "area": "hand", "index": -1}]), "chain[0].targets[0].index"),
    ("chain", _chain(targets=[REF_A_MZ0, REF_A_MZ0]), "chain[0].targets[1]"),  # one card targeted twice
    ("chain", _chain(speed=4), "chain[0].speed"), ("chain", _chain(speed="3"), "chain[0].speed"),
    ("chain", _chain(extra="x"), "chain[0].extra"),
    ("chain", _chain(extra={"summon_position": "up"}), "chain[0].extra.summon_position"),
    ("chain", _chain(extra={"declared_type": "Robot"}), "chain[0].extra.declared_type"),
    ("chain", _chain(extra={"effect": "NoSuchEffect"}), "chain[0].extra.effect"),
    ("chain", _chain(extra={"counters": -1}), "chain[0].extra.counters"),
    ("chain", _chain(extra={"negated": "yes"}), "chain[0].extra.negated"),
    ("chain", _chain(extra={"cost_level": 13}), "chain[0].extra.cost_level"),
    ("chain", _chain(extra={"cost_level": "4"}), "chain[0].extra.cost_level"),
    ("chain", _chain(order=1), "chain[0].order"),
    ("chain", _chain() * 2, "chain[1].zone"),  # two links on one card
]

TRIBUTE = {"action": {"type": "tribute_summon", "player": "A", "card": "Red-Eyes Black Dragon",
                      "from": {"player": "A", "area": "hand", "index": 0}},
           "purpose": "tribute", "needed": 1, "chosen": []}


def _pending(**changes):
    pending = dict(copy.deepcopy(TRIBUTE), **changes)
    return {k: v for k, v in pending.items() if v is not DELETE}


PENDING = [
    ("pending", _pending(purpose=DELETE), "pending.purpose"), ("pending", _pending(action=DELETE), "pending.action"),
    ("pending", _pending(action="tribute_summon"), "pending.action"),
    ("pending", _pending(action={"type": "teleport", "player": "A"}), "pending.action.type"),
    ("pending", _pending(action={"type": "select", "player": "A"}), "pending.action.type"),
    ("pending", _pending(purpose="lunch"), "pending.purpose"), ("pending", _pending(purpose=1), "pending.purpose"),
    ("pending", _pending(needed=0), "pending.needed"), ("pending", _pending(needed="2"), "pending.needed"),
    ("pending", _pending(needed=151), "pending.needed"),
    ("pending", _pending(chosen="A.mz0"), "pending.chosen"), ("pending", _pending(chosen=[1]), "pending.chosen[0]"),
    ("pending", _pending(chosen=[REF_EMPTY]), "pending.chosen[0]"),
    ("pending", _pending(needed=2, chosen=[REF_A_MZ0, REF_A_MZ0]), "pending.chosen[1]"),
    ("pending", _pending(extra="x"), "pending.extra"), ("pending", _pending(extra={"cost_level": 0}), "pending.extra.cost_level"),
    ("pending", _pending(extra={"event": 0}), "pending.extra.event"), ("pending", _pending(extra={"mood": 1}), "pending.extra.mood"),
    ("pending", _pending(mood=1), "pending.mood"),
    # references that disagree: `from` names an empty place, or another card than `card`
    ("pending", _pending(action=dict(TRIBUTE["action"], **{"from": {"player": "A", "area": "hand", "index": 7}})),
     "pending.action.from"),
    ("pending", _pending(action=dict(TRIBUTE["action"], card="Dark Magician")), "pending.action"),
    ("pending", dict(_pending(), **{"action": dict(TRIBUTE["action"], player="C")}), "pending.action.player"),
]

DUEL_EXTRA = [
    ("extra.properly_summoned", "A", "extra.properly_summoned"),
    ("extra.properly_summoned", {"C": []}, "extra.properly_summoned.C"),
    ("extra.properly_summoned", {"A": "Dark Magician"}, "extra.properly_summoned.A"),
    ("extra.properly_summoned", {"A": ["Dark Magican"]}, "extra.properly_summoned.A[0]"),
    ("extra.phase_end", "lunch", "extra.phase_end"), ("extra.damage_step_chain", "yes", "extra.damage_step_chain"),
    ("extra.summon_chain", 1, "extra.summon_chain"),
    ("extra.simultaneous_triggers", "A.mz0", "extra.simultaneous_triggers"),
    ("extra.simultaneous_triggers", [1], "extra.simultaneous_triggers[0]"),
    ("extra.simultaneous_triggers", [dict(REF_A_MZ0, event=0)], "extra.simultaneous_triggers[0].event"),
    ("extra.simultaneous_triggers", [dict(REF_A_MZ0, event="1")], "extra.simultaneous_triggers[0].event"),
    ("extra.simultaneous_triggers", [REF_EMPTY], "extra.simultaneous_triggers[0]"),
    ("extra.simultaneous_triggers", [REF_A_MZ0, REF_A_MZ0], "extra.simultaneous_triggers[1]"),
    ("extra.damage_step_end", "1", "extra.damage_step_end"),
    ("extra.damage_step_end", {"sub_step": 3}, "extra.damage_step_end.sub_step"),
    ("extra.damage_step_end", {}, "extra.damage_step_end.sub_step"),
    ("extra.summon_lock", "A", "extra.summon_lock"), ("extra.summon_lock", ["C"], "extra.summon_lock[0]"),
    ("extra.summon_lock", ["A", "A"], "extra.summon_lock[1]"),
    ("extra.battle_phase_lock", [1], "extra.battle_phase_lock[0]"),
    ("extra.battle_phase_lock", ["A", "B", "A"], "extra.battle_phase_lock"),
]
for key, wrong_area in (("effects_negated", "hand"), ("flipped_hidden", "graveyard"), ("chain_end_triggers", "hand")):
    DUEL_EXTRA += [
        (f"extra.{key}", "A.mz0", f"extra.{key}"), (f"extra.{key}", [1], f"extra.{key}[0]"),
        (f"extra.{key}", [{"player": "A", "area": wrong_area, "index": 0}], f"extra.{key}[0].area"),
        (f"extra.{key}", [REF_A_MZ0] * 11, f"extra.{key}"),
    ]
DUEL_EXTRA += [
    ("extra.effects_negated", [REF_EMPTY], "extra.effects_negated[0]"),
    ("extra.effects_negated", [REF_A_MZ0, REF_A_MZ0], "extra.effects_negated[1]"),
    ("extra.chain_end_triggers", [{"player": "B", "area": "graveyard", "index": 4}], "extra.chain_end_triggers[0]"),
]


def _case_id(case):
    path, value, _ = case
    shown = "<left out>" if value is DELETE else json.dumps(value)
    return f"{path}={shown if len(shown) <= 70 else shown[:30] + '...' + shown[-30:]}"


@pytest.mark.parametrize("case", TOP + PLAYER + FIELD_CARD + FIELD_EXTRA + PENDING + DUEL_EXTRA, ids=_case_id)
def test_an_official_state_field_with_a_bad_value_is_exit_2_naming_it(tmp_path, case):
    path, value, named = case
    code, text = _run(tmp_path, _set(_official(), path, value))
    assert code == 2, text
    assert named in text, text


def _battle(state: dict) -> dict:
    """The official state in A's Battle Phase, Curse of Dragon having declared an attack."""
    return _set(_set(state, "phase", "battle"), f"{MZ}.attacks_declared", 1)


BATTLE = [  # an attack whose target is not a monster of the opponent's
    (f"{MZ}.extra.attack", {"target": {"player": "A", "area": "monster_zones", "index": 1}}, "extra.attack.target"),
    (f"{MZ}.extra.attack", {"target": REF_EMPTY}, "extra.attack.target"),
    (f"{MZ}.extra.attack", {"target": {"player": "B", "area": "spell_trap_zones", "index": 0}}, "extra.attack.target.area"),
    (f"{MZ}.extra.attack", {"target": None, "damage_step": True}, "extra.attack.damage_step"),  # no chain there
]


@pytest.mark.parametrize("case", BATTLE, ids=_case_id)
def test_an_attack_that_disagrees_with_the_board_is_exit_2_naming_it(tmp_path, case):
    path, value, named = case
    code, text = _run(tmp_path, _set(_battle(_official()), path, value))
    assert code == 2, text
    assert named in text, text


@pytest.mark.parametrize("case", CHAIN, ids=_case_id)
def test_a_chain_link_with_a_bad_value_is_exit_2_naming_it(tmp_path, case):
    path, value, named = case
    state = _set(_flip_jammer(_official()), path, value)
    code, text = _run(tmp_path, state)
    assert code == 2, text
    assert named in text, text


@pytest.mark.parametrize("case", GOAT_FIELD_EXTRA, ids=_case_id)
def test_a_goat_field_card_mark_with_a_bad_value_is_exit_2_naming_it(tmp_path, case):
    path, value, named = case
    code, text = _run(tmp_path, _set(_goat(), path, value))
    assert code == 2, text
    assert named in text, text


def test_the_base_states_load(tmp_path):
    """The cases change one field of states that load: what makes them fail is that field."""
    for state in (_official(), _flip_jammer(_official()), _goat(), _battle(_official())):
        code, text = _run(tmp_path, state)
        assert code == 0, text
    linked = _set(_flip_jammer(_official()), "chain", _chain())
    code, text = _run(tmp_path, linked)
    assert code == 0, text
    pending = _set(_official(), "pending", _pending())
    code, text = _run(tmp_path, pending)
    assert code == 0, text


@pytest.mark.parametrize("text, named", [
    ("", "state.json"), ("{", "state.json"), ("[]", "the state"), ("null", "the state"), ('"state"', "the state"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}, "turn": NaN}', "turn"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}, "turn": 1e400}', "turn"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}, "turn": 1, "turn": 2}', "turn"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {"hand": [' + "[" * 40 + "]" * 40 + "]}, \"B\": {}}}", "players.A.hand"),
])
def test_a_state_file_that_is_no_state_object_is_exit_2_naming_it(tmp_path, text, named):
    code, out = _run(tmp_path, text)
    assert code == 2, out
    assert named in out, out
