"""apply's readings of a script's select around the choice the engine makes by itself (script_input.py)."""
import pytest

from ygo_onto import GameState
from ygo_onto.errors import IllegalActionError

POLY = {"format": "ygo-onto.state/1", "turn": 3, "players": {
    "A": {"deck": ["Feral Imp"] * 3, "hand": ["Polymerization", "Curse of Dragon"],
          "monster_zones": [{"card": "Gaia The Fierce Knight"}, None, None, None, None],
          "extra_deck": ["Gaia the Dragon Champion"]},
    "B": {"deck": ["Feral Imp"] * 3}}}


def activated() -> GameState:
    return GameState.from_dict(POLY).apply({"type": "activate", "card": "Polymerization"}, "fast")


def test_the_engine_selects_the_one_fusion_monster_and_offers_the_materials():
    state = activated()
    assert state.to_dict()["pending"]["chosen"] == [{"player": "A", "area": "extra_deck", "index": 0}]
    assert sorted(a.id for a in state.allowed_actions("fast")) == ["cancel", "select@A.hand1", "select@A.mz0"]


@pytest.mark.parametrize("choice", ["select@A.extra0", {"type": "select", "card": "Gaia the Dragon Champion"},
                                    {"type": "select", "card": "Gaia the Dragon Champion", "purpose": "summon"}])
def test_a_script_that_selects_the_monster_itself_finds_it_selected(choice):
    state = activated()
    assert state.apply(choice, "fast").to_dict() == state.to_dict()


def test_a_material_selected_twice_is_still_refused():
    state = activated().apply("select@A.hand1", "fast")
    with pytest.raises(IllegalActionError):
        state.apply("select@A.hand1", "fast")
    with pytest.raises(IllegalActionError):
        state.apply({"type": "select", "card": "Curse of Dragon"}, "fast")


JUNK = {"format": "ygo-onto.state/1", "turn": 3, "players": {
    "A": {"deck": ["Feral Imp"] * 3, "hand": ["Junk Synchron"], "graveyard": ["Petit Dragon"]},
    "B": {"deck": ["Feral Imp"] * 3}}}


def test_the_opponents_pass_does_not_decline_the_summoners_trigger():
    summoned = GameState.from_dict(JUNK).apply({"type": "normal_summon", "card": "Junk Synchron"}, "fast")
    assert summoned.to_dict()["pending"]["action"]["card"] == "Junk Synchron"
    # B's pass on the summon, written before A's choice: nothing declined, the same state
    assert summoned.apply({"type": "pass", "player": "B"}, "fast").to_dict() == summoned.to_dict()
    # A's own pass (or a pass naming no player) declines the optional trigger, as cancel does
    for mine in ({"type": "pass", "player": "A"}, {"type": "pass"}):
        assert summoned.apply(mine, "fast").to_dict()["pending"] is None


AXE = {"format": "ygo-onto.state/1", "turn": 3, "phase": "battle", "players": {
    "A": {"deck": ["Feral Imp"] * 3, "monster_zones": [{"card": "Summoned Skull"}, None, None, None, None]},
    "B": {"deck": ["Feral Imp"] * 3, "monster_zones": [{"card": "Mystical Elf"}, {"card": "Feral Imp"}, None, None, None],
          "spell_trap_zones": [{"card": "Axe of Despair", "equipped_to": {"player": "B", "zone": 0}}, None, None, None, None]}}}


def test_a_pass_declines_the_optional_trigger_of_a_card_in_the_graveyard():
    # Axe of Despair reaches B's Graveyard with its monster, destroyed by battle: B's trigger waits for its cost
    sent = GameState.from_dict(AXE).apply("attack@A.mz0>B.mz0", "fast")
    assert sent.to_dict()["pending"]["action"]["from"] == {"player": "B", "area": "graveyard", "index": 1}
    # A's pass, written before B's choice: nothing declined, the same state
    assert sent.apply({"type": "pass", "player": "A"}, "fast").to_dict() == sent.to_dict()
    # B's own pass (or a pass naming no player) declines it, as cancel does: the Axe stays, Feral Imp too
    cancelled = sent.apply("cancel", "fast").to_dict()
    for mine in ({"type": "pass", "player": "B"}, "pass"):
        declined = sent.apply(mine, "fast").to_dict()
        assert declined == cancelled and declined["pending"] is None
        assert declined["players"]["B"]["graveyard"] == ["Mystical Elf", "Axe of Despair"]
        assert declined["players"]["B"]["monster_zones"][1]["card"] == "Feral Imp"


def test_the_opponents_pass_before_a_ritual_spells_tributes_waits_for_them():
    state = GameState.from_dict({"format": "ygo-onto.state/1", "turn": 3, "players": {
        "A": {"hand": ["Black Magic Ritual", "Magician of Black Chaos", "Celtic Guardian"],
              "monster_zones": [{"card": "Feral Imp"}, None, None, None, None]}, "B": {}}})
    activated = state.apply({"type": "activate", "card": "Black Magic Ritual"}, "fast")
    assert activated.apply({"type": "pass", "player": "B"}, "fast").to_dict() == activated.to_dict()
    with pytest.raises(IllegalActionError):  # A's own pass is no choice of tributes
        activated.apply({"type": "pass", "player": "A"}, "fast")


def test_every_reading_says_what_it_reads():
    # explain reports each reading by READING_SAYS (a reading without its sentence was an internal error there)
    from ygo_onto import script_input
    assert {r.__name__ for r in script_input.READINGS} <= set(script_input.READING_SAYS)


def test_explain_reads_an_end_phase_discard_before_end_turn():
    import json
    from pathlib import Path
    from ygo_onto.explain import explain_action
    sc = json.loads((Path(__file__).parent / "scenarios/official/audit10-examples-end-phase-discard-down-to-six.json")
                    .read_text(encoding="utf-8"))
    state = GameState.from_dict(sc["state"]).apply({"type": "next_phase", "to": "end"}, "fast")
    report = explain_action(state, {"type": "select", "card": "Petit Dragon"}, "fast")
    assert "end of the turn" in report.reading


ATTACK = {"format": "ygo-onto.state/1", "turn": 4, "phase": "battle", "players": {
    "A": {"monster_zones": [{"card": "Summoned Skull"}, None, None, None, None], "hand": ["Pot of Greed"]},
    "B": {"monster_zones": [{"card": "Celtic Guardian"}, None, None, None, None],
          "spell_trap_zones": [{"card": "Sakuretsu Armor", "position": "face_down"}, None, None, None, None]}}}


def test_the_attackers_pass_in_the_opponents_window_is_made_and_its_spell_still_refused():
    """Rulebook v6.0 p. 38: the turn player's pass hands priority to the opponent, as the engine did on the attack
    declaration: "attack; A passes; B passes" deals the damage; A's own card there is still refused (docs/decisions.md
    "Script readings")."""
    attack = {"type": "attack", "card": "Summoned Skull", "target": "Celtic Guardian"}
    declared = GameState.from_dict(ATTACK).apply(attack, "fast")
    assert declared.to_dict()["priority"] == "B"
    assert declared.apply({"type": "pass", "player": "A"}, "fast").to_dict() == declared.to_dict()
    done = declared.apply({"type": "pass", "player": "A"}, "fast").apply({"type": "pass", "player": "B"}, "fast")
    assert done.to_dict()["players"]["B"]["life_points"] == 6900
    with pytest.raises(IllegalActionError):
        declared.apply({"type": "activate", "card": "Pot of Greed", "player": "A"}, "fast")
