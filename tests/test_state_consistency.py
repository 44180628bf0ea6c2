"""Impossible states are refused, never played (state-format.md "Invariants").

Each board below is well-typed field by field, but no play of the rules reaches it; the loader refuses it
with a StateError naming the field, and the CLI exits 2 with that message (never a traceback, a hang or
an engine that dead-ends).  Each case has a twin that differs only where the invariant looks and is
accepted, so a refusal is for the reason named.  Then the property: of random well-typed states
(ygo_onto.testing.random_states), every one the loader accepts has an allowed action or a winner, and the
state an allowed action leads to is accepted too.
"""
from __future__ import annotations

import copy
import json
import os
import random

import pytest
from typer.testing import CliRunner

from ygo_onto import GameState, StateError
from ygo_onto.cli import app
from ygo_onto.testing.random_states import random_state

runner = CliRunner()
DECK = ["Feral Imp"] * 5


def board(**top) -> dict:
    """A's Main Phase 1 of turn 3 with a monster each; `top` replaces top-level keys."""
    state = {"format": "ygo-onto.state/1", "turn": 3, "turn_player": "A", "phase": "main1",
             "players": {"A": {"deck": list(DECK), "hand": ["Celtic Guardian"],
                               "monster_zones": [{"card": "Dark Magician"}, None, None, None, None]},
                         "B": {"deck": list(DECK), "monster_zones": [{"card": "Feral Imp"}, None, None, None, None]}}}
    state.update(top)
    return state


def goat_board(**top) -> dict:
    """board() in `goat`, whose cards open the selections on resolution (a swap, monsters destroyed per heads)."""
    state = {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "turn_player": "A", "phase": "main1",
             "players": {"A": {"hand": ["Sangan"], "monster_zones": [{"card": "Jinzo"}, None, None, None, None]},
                         "B": {"monster_zones": [{"card": "Sangan"}, None, None, None, None]}}}
    state.update(top)
    return state


def pending(kind: str, card: str | None, purpose: str, area: str = "hand", index: int = 0, **more) -> dict:
    action = {"type": kind, "player": "A"}
    if card is not None:
        action.update(card=card, **{"from": {"player": "A", "area": area, "index": index}})
    return {"action": action, "purpose": purpose, **more}


def with_hand(state: dict, hand: list[str]) -> dict:
    state["players"]["A"]["hand"] = hand
    return state


def attack(target=None, damage_step=False) -> dict:
    return {"attack": {"target": target, "damage_step": damage_step}}


def discard(hand_size: int) -> dict:
    return with_hand(board(phase="end", pending=pending("end_turn", None, "discard")), ["Feral Imp"] * hand_size)


def tribute_summon(card: str) -> dict:
    return with_hand(board(pending=pending("tribute_summon", card, "tribute")), [card])


def normal_summon(card: str) -> dict:
    return with_hand(board(pending=pending("normal_summon", card, "tribute")), [card])


def attacks(both: bool) -> dict:
    state = board(phase="battle")
    state["players"]["A"]["monster_zones"][0].update(attacks_declared=1, extra=attack({"player": "B", "area": "monster_zones", "index": 0}))
    if both:
        state["players"]["B"]["monster_zones"][0].update(attacks_declared=1, extra=attack({"player": "A", "area": "monster_zones", "index": 0}))
    return state


def won(winner) -> dict:
    return tribute_summon("Dark Magician") | {"winner": winner}


def zero_lp(winner) -> dict:
    state = board(winner=winner)
    state["players"]["B"]["life_points"] = 0
    return state


def two_links(same: bool) -> dict:
    state = board(priority="A")
    state["players"]["B"]["spell_trap_zones"] = [{"card": "Trap Hole", "position": "face_up"},
                                                 {"card": "Trap Hole", "position": "face_up"}, None, None, None]
    state["chain"] = [{"card": "Trap Hole", "player": "B", "zone": {"area": "spell_trap_zones", "index": 0}},
                      {"card": "Trap Hole", "player": "B", "zone": {"area": "spell_trap_zones", "index": 0 if same else 1}}]
    return state


def equipped(card: str, zone: int) -> dict:
    state = board()
    state["players"]["A"]["spell_trap_zones"] = [{"card": card, "position": "face_up",
                                                  "equipped_to": {"player": "A", "zone": zone}}, None, None, None, None]
    return state


def absorbed(position: str = "face_up", zone: int | None = 0) -> dict:
    """A Monster Card of B's in A's Spell & Trap Zone: an Equip Card only while equipped (GOAT's Thousand-Eyes Restrict)."""
    state = board()
    state["players"]["A"]["spell_trap_zones"] = [{"card": "Feral Imp", "owner": "B", "position": position,
                                                  "equipped_to": None if zone is None else {"player": "A", "zone": zone}},
                                                 None, None, None, None]
    return state


def field_spells(b_position: str) -> dict:
    state = board()
    state["players"]["A"]["field_zone"] = {"card": "Yami", "position": "face_up"}
    state["players"]["B"]["field_zone"] = {"card": "Yami", "position": b_position}
    return state


def link_on(card_there: str) -> dict:
    state = board(priority="A")
    state["players"]["B"]["spell_trap_zones"] = [{"card": card_there, "position": "face_up"}, None, None, None, None]
    state["chain"] = [{"card": "Trap Hole", "player": "B", "zone": {"area": "spell_trap_zones", "index": 0}}]
    return state


def simplified(state: dict) -> dict:
    """The board in the simplified ruleset (its catalog: Kuriboh for Feral Imp)."""
    state = copy.deepcopy(state) | {"ruleset": "simplified"}
    for p in ("A", "B"):
        state["players"][p]["deck"] = ["Kuriboh"] * 5
    state["players"]["B"]["monster_zones"][0]["card"] = "Kuriboh"
    return state


def simplified_chain(links: int) -> dict:
    state = simplified(board())
    state["players"]["A"]["spell_trap_zones"] = [{"card": "Dark Hole", "position": "face_up"}, None, None, None, None]
    state["chain"] = [{"card": "Dark Hole", "player": "A", "zone": {"area": "spell_trap_zones", "index": 0}}] * links
    return state


def summon_waiting(how: str | None, ruleset: str = "simplified") -> dict:
    """A's monster just summoned, `how` in its extra.just_summoned (None: no summon waiting)."""
    state = board()
    if how is not None:
        state["players"]["A"]["monster_zones"][0]["extra"] = {"just_summoned": how}
    return simplified(state) if ruleset == "simplified" else state


def attack_in(phase: str, damage_step=False, chain=False) -> dict:
    state = attacks(both=False) | {"phase": phase}
    state["players"]["A"]["monster_zones"][0]["extra"]["attack"]["damage_step"] = damage_step
    if chain:
        state["players"]["B"]["spell_trap_zones"] = [{"card": "Magic Jammer", "position": "face_up"}, None, None, None, None]
        state["chain"] = [{"card": "Magic Jammer", "player": "B", "speed": 3}]
    return state


def link_face(position: str) -> dict:
    state = link_on("Trap Hole")
    state["players"]["B"]["spell_trap_zones"][0]["position"] = position
    return state


def axe_in_graveyard(purpose: str) -> dict:
    """Axe of Despair's trigger from A's Graveyard, its Tribute being selected: its effect's cost (effectCost
    tributeOneMonster) selects for the purpose cost, not for the Tribute of a summon."""
    state = board(phase="battle", pending=pending("activate", "Axe of Despair", purpose, area="graveyard"))
    state["players"]["A"]["graveyard"] = ["Axe of Despair"]
    return state


def phase_end_asked(priority: str) -> dict:
    return board(priority=priority, extra={"phase_end": "battle"})


def procedure_summon(purpose: str) -> dict:
    """A goat Chaos Sorcerer's own Special Summon being built: its procedure (summonProcedure) banishes its cost from
    the Graveyard, so it selects for the purpose cost, not for a tribute (Red-Eyes Darkness Dragon's procedure)."""
    return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "main1",
            "pending": {**pending("special_summon", "Chaos Sorcerer", purpose), "needed": 2},
            "players": {"A": {"deck": ["Sangan"], "hand": ["Chaos Sorcerer"], "graveyard": ["Sangan", "Blade Knight"],
                              "monster_zones": [{"card": "Giant Orc"}, None, None, None, None]},
                        "B": {"deck": ["Sangan"]}}}


def waiting_trigger(graveyard: list) -> dict:
    """A trigger of one moment waiting for its chain link (extra.simultaneous_triggers): a card of the state."""
    state = board(extra={"simultaneous_triggers": [{"player": "A", "area": "graveyard", "index": 0}]})
    state["players"]["A"]["graveyard"] = graveyard
    return state


def destroyed_by_battle(sub_step: int | None) -> dict:
    """A monster destroyed by battle, on the field until the End of goat's Damage Step (extra.destroyed_by_battle):
    the Damage Step's sub-steps after damage calculation (extra.damage_step_end) are under way, or none is."""
    return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "battle",
            "extra": {} if sub_step is None else {"damage_step_end": {"sub_step": sub_step}},
            "players": {"A": {"monster_zones": [{"card": "D.D. Warrior Lady"}, None, None, None, None]},
                        "B": {"monster_zones": [{"card": "Sangan", "extra": {"destroyed_by_battle": True}},
                                                None, None, None, None]}}}


def marked(key: str, area: str, cards: list) -> dict:
    """A card marked by a reference in the duel's extra (effects_negated: a battle negated its effects; flipped_hidden:
    its FLIP effect is due in the hand or the Deck): a card of the state."""
    state = board(extra={key: [{"player": "A", "area": area, "index": 0}]})
    state["players"]["A"][area] = cards
    return state


def zone_choice(chosen: list[int], position: str = "attack", card: str = "Ojama King") -> dict:
    """GOAT: A's Ojama King (a ZoneLockEffect) choosing B's Monster Zones to lock (the purpose lockZone), the zones of
    `chosen` selected so far; B's Sangan occupies zone 1 (rules/common/effects/zone-lock.swrl)."""
    return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "turn_player": "A", "phase": "main1",
            "pending": {"action": {"type": "pass", "player": "A", "from": {"player": "A", "area": "monster_zones", "index": 0}},
                        "purpose": "lockZone", "needed": 3,
                        "chosen": [{"player": "B", "area": "monster_zones", "index": i} for i in chosen]},
            "players": {"A": {"deck": ["Sangan"], "monster_zones": [{"card": card, "position": position,
                                                                     "summoned_by": "special"}, None, None, None, None]},
                        "B": {"deck": ["Sangan"], "monster_zones": [None, {"card": "Sangan"}, None, None, None]}}}


# (name, the impossible state, the field its refusal names, the possible twin)
CASES = [
    ("End Phase discard with 6 or fewer cards in hand", discard(6), "players.A.hand", discard(7)),
    ("End Phase discard outside the End Phase", discard(8) | {"phase": "main2"}, "phase", discard(8)),
    ("End Phase discard of a tribute", with_hand(board(phase="end", pending=pending("end_turn", None, "tribute")), ["Feral Imp"] * 8),
     "pending.purpose", discard(8)),
    ("Tribute Summon of a Ritual Monster", tribute_summon("Magician of Black Chaos"), "pending.action.card",
     tribute_summon("Dark Magician")),
    ("Tribute Summon of a spell", tribute_summon("Dark Hole"), "pending.action.card", tribute_summon("Dark Magician")),
    ("Tribute Summon of a Level 4 monster", tribute_summon("Celtic Guardian"), "pending.action.card",
     tribute_summon("Dark Magician")),
    ("Tribute Summon in the Battle Phase", tribute_summon("Dark Magician") | {"phase": "battle"}, "phase",
     tribute_summon("Dark Magician")),
    ("Normal Summon of a spell", normal_summon("Dark Hole"), "pending.action.type", tribute_summon("Dark Magician")),
    ("Normal Summon of a monster", normal_summon("Celtic Guardian"), "pending.action.type", tribute_summon("Dark Magician")),
    ("a discard chosen on resolution of more cards than the hand holds",
     with_hand(board(pending=pending("pass", None, "discard", needed=2)), ["Feral Imp"]), "players.A.hand",
     with_hand(board(pending=pending("pass", None, "discard", needed=2)), ["Feral Imp", "Feral Imp"])),
    ("a pending pass selecting tributes", board(pending=pending("pass", None, "tribute")), "pending.action.type",
     board(pending=pending("pass", None, "discard"))),
    ("a swap chosen on resolution asked of the second player with nothing chosen",
     goat_board(pending=pending("pass", None, "swap", needed=2)), "pending.needed",
     goat_board(pending=pending("pass", None, "swap", needed=1))),
    ("monsters destroyed per heads asked for more than the field holds",
     goat_board(pending=pending("pass", None, "perHeadsDestroy", needed=3)), "pending.needed",
     goat_board(pending=pending("pass", None, "perHeadsDestroy", needed=2))),
    ("a selection of a purpose no card of the ruleset opens", board(pending=pending("pass", None, "swap", needed=1)),
     "pending.purpose", goat_board(pending=pending("pass", None, "swap", needed=1))),
    ("an activation selecting what it never selects",
     with_hand(board(pending=pending("activate", "Mystical Space Typhoon", "discard")), ["Mystical Space Typhoon"]),
     "pending.purpose", with_hand(board(pending=pending("activate", "Mystical Space Typhoon", "target")), ["Mystical Space Typhoon"])),
    ("both players with an attack in progress", attacks(both=True), "players.B.monster_zones[0].extra.attack", attacks(both=False)),
    ("a winner while a pending action plays", won("A"), "pending", won(None)),
    ("0 LP with no winner", zero_lp(None), "players.B.life_points", zero_lp("A")),
    ("two chain links on one card", two_links(same=True), "chain[1].zone", two_links(same=False)),
    ("equipped_to on a card that is neither an Equip Spell nor a Continuous Trap", equipped("Swords of Revealing Light", 0),
     "players.A.spell_trap_zones[0].equipped_to", equipped("Axe of Despair", 0)),
    ("an Equip Spell equipped to an empty zone", equipped("Axe of Despair", 3), "players.A.spell_trap_zones[0].equipped_to",
     equipped("Axe of Despair", 0)),
    ("a Monster Card in a Spell & Trap Zone equipped to nothing", absorbed(zone=None),
     "players.A.spell_trap_zones[0].card", absorbed()),
    ("a Monster Card Set in a Spell & Trap Zone", absorbed("face_down"), "players.A.spell_trap_zones[0].position",
     absorbed()),
    ("two face-up Field Spells, one on each side", field_spells("face_up"), "players.B.field_zone", field_spells("face_down")),
    ("a chain link whose zone holds another card", link_on("Mirror Force"), "chain[0].zone", link_on("Trap Hole")),
    ("a chain link of a face-down card", link_face("face_down"), "players.B.spell_trap_zones[0].position", link_face("face_up")),
    ("a chain in the simplified ruleset", simplified_chain(1), "chain", simplified_chain(0)),
    ("an attack in progress in the simplified ruleset", simplified(attacks(both=False)),
     "players.A.monster_zones[0].extra.attack", simplified(board(phase="battle"))),
    ("a summon waiting for answers in the simplified ruleset", summon_waiting("normal"),
     "players.A.monster_zones[0].extra.just_summoned", summon_waiting(None)),
    ("an attack in progress in Main Phase 2", attack_in("main2"), "players.A.monster_zones[0].extra.attack", attack_in("battle")),
    ("a phase end asked, the turn player still holding priority", phase_end_asked("A"), "priority", phase_end_asked("B")),
    ("an attack waiting in the Damage Step with no chain", attack_in("battle", damage_step=True),
     "players.A.monster_zones[0].extra.attack.damage_step", attack_in("battle", damage_step=True, chain=True)),
    ("a Graveyard effect selecting what its cost never selects", axe_in_graveyard("tribute"), "pending.purpose",
     axe_in_graveyard("cost")),
    ("a summon procedure that banishes its cost selecting a tribute", procedure_summon("tribute"), "pending.purpose",
     procedure_summon("cost")),
    ("a waiting trigger of an empty place", waiting_trigger([]), "extra.simultaneous_triggers[0]",
     waiting_trigger(["Man-Eater Bug"])),
    ("negated effects of an empty place", marked("effects_negated", "graveyard", []), "extra.effects_negated[0]",
     marked("effects_negated", "graveyard", ["Man-Eater Bug"])),
    ("a FLIP effect due in an empty hand", marked("flipped_hidden", "hand", []), "extra.flipped_hidden[0]",
     marked("flipped_hidden", "hand", ["Man-Eater Bug"])),
    ("a Monster Zone chosen to lock that a monster occupies", zone_choice([1]), "pending.chosen[0]", zone_choice([2])),
    ("zones chosen to lock for a face-down monster", zone_choice([], "face_down_defense"), "pending.action.from",
     zone_choice([])),
    ("zones chosen to lock for a monster without a ZoneLockEffect", zone_choice([], card="Jinzo"), "pending.action.from",
     zone_choice([])),
    ("a monster destroyed by battle on the field outside the Damage Step", destroyed_by_battle(None),
     "players.B.monster_zones[0].extra.destroyed_by_battle", destroyed_by_battle(2)),
]


@pytest.mark.parametrize("name,state,field,twin", CASES, ids=[c[0] for c in CASES])
def test_an_impossible_state_is_refused_naming_the_field(name, state, field, twin):
    with pytest.raises(StateError) as refused:
        GameState.from_dict(copy.deepcopy(state))
    assert field in str(refused.value), f"{name}: the message does not name {field}: {refused.value}"
    GameState.from_dict(copy.deepcopy(twin))  # the same board where the invariant holds is a state


@pytest.mark.parametrize("name,state,field", [c[:3] for c in CASES[::4]], ids=[c[0] for c in CASES[::4]])
def test_the_cli_refuses_an_impossible_state_with_exit_2(tmp_path, name, state, field):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(state), encoding="utf-8")
    for command in (["allowed", str(path)], ["apply", str(path), "pass"]):
        result = runner.invoke(app, command)
        assert result.exit_code == 2, f"{name}: {command[0]} exit {result.exit_code}: {result.output[-500:]}"
        assert str(path) in result.output and field in result.output, result.output
        assert "Traceback" not in result.output


def test_a_legal_end_phase_discard_writes_a_state_that_loads():
    """The twin of the first case plays: the discard leaves 6 cards, and the state written after it loads again."""
    state = GameState.from_dict(discard(7))
    select = next(a for a in state.allowed_actions("fast") if a.type == "select")
    after = state.apply(select, "fast")
    assert len(after.data["players"]["A"]["hand"]) == 6
    GameState.from_dict(after.to_dict())


def test_a_monster_equipped_as_an_equip_card_writes_a_state_that_loads():
    """GOAT's Thousand-Eyes Restrict absorbs the opponent's face-down monster: the state the engine writes, with the
    Monster Card in a Spell & Trap Zone equipped to it, loads again and is the same state."""
    state = GameState.from_dict({"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "main1", "players": {
        "A": {"deck": ["Sangan"], "monster_zones": [{"card": "Thousand-Eyes Restrict", "summoned_by": "special"},
                                                    None, None, None, None]},
        "B": {"deck": ["Sangan"], "monster_zones": [{"card": "Sangan", "position": "face_down_defense"},
                                                    None, None, None, None]}}})
    for step in ("activate@A.mz0", "select@B.mz0"):
        state = state.apply(step, "fast")
    equip = state.data["players"]["A"]["spell_trap_zones"][0]
    assert (equip["card"], equip["owner"], equip["position"], equip["equipped_to"]) == \
        ("Sangan", "B", "face_up", {"player": "A", "zone": 0})
    assert GameState.from_dict(json.loads(json.dumps(state.to_dict()))).to_dict() == state.to_dict()


def test_a_state_in_the_middle_of_a_zone_choice_loads_again_and_plays_on(tmp_path):
    """GOAT's Ojama King: a state whose controller has chosen 1 of the zones to lock loads again as the same state,
    allows the other free zones and a pass (not the occupied zone, not the one chosen), and plays on to the lock; a
    chosen zone index out of range is refused on the command line with exit 2 naming the field."""
    state = GameState.from_dict(zone_choice([4]))
    assert GameState.from_dict(json.loads(state.to_json())).to_dict() == state.to_dict()
    assert [a.id for a in state.allowed_actions("fast")] == ["select@B.mz0", "select@B.mz2", "select@B.mz3", "pass"]
    after = state.apply("select@B.mz0", "fast").apply("pass", "fast")
    assert after.data["pending"] is None and after.data["players"]["A"]["monster_zones"][0]["extra"] == {"locked_zones": [0, 4]}
    path = tmp_path / "choice.json"
    path.write_text(state.to_json(), encoding="utf-8")
    why = runner.invoke(app, ["explain", str(path), "select@B.mz2"])  # the rule that allows an empty zone's select
    assert why.exit_code == 0 and "select@B.mz2: allowed" in why.output and "zone-lock.swrl" in why.output, why.output
    bad = zone_choice([4])
    bad["pending"]["chosen"][0]["index"] = 7
    path = tmp_path / "state.json"
    path.write_text(json.dumps(bad), encoding="utf-8")
    result = runner.invoke(app, ["allowed", str(path)])
    assert result.exit_code == 2 and "pending.chosen[0].index" in result.output and "Traceback" not in result.output


# ---------------------------------------------------------------- the property

COUNT = int(os.environ.get("YGO_STATE_PROPERTY_COUNT", "1000"))  # more: YGO_STATE_PROPERTY_COUNT=20000


def test_every_accepted_state_has_an_allowed_action_or_a_winner_and_leads_to_states():
    rng = random.Random(20261129)
    refused = playable = 0
    for n in range(COUNT):
        raw = random_state(rng)
        try:
            state = GameState.from_dict(copy.deepcopy(raw))
        except StateError:
            refused += 1
            continue
        if state.winner is None:
            allowed = state.allowed_actions("fast")
            assert allowed, f"state {n}: accepted, no winner and no allowed action: {json.dumps(raw)}"
            # what the engine writes from a state is a state: the invariants refuse no board the rules reach
            after = state.apply(allowed[0], "fast").to_dict()
            try:
                GameState.from_dict(after)
            except StateError as exc:
                raise AssertionError(f"state {n}: {allowed[0].id} wrote a state the loader refuses ({exc}): "
                                     f"{json.dumps(raw)}") from None
        playable += 1
    # the generator bites both ways: it makes impossible states and possible ones
    assert refused >= COUNT // 5 and playable >= COUNT // 5, (refused, playable)
