"""What the readings of an unnamed window (script_input.window_declined,
own_link_let_resolve, main_phase_first, pass_already_made) must still refuse (docs/decisions.md
"Script readings").  Rulebook v6.0 p. 38 (priority), pp. 35-36 (chains)."""
import pytest

from ygo_onto import GameState
from ygo_onto.errors import IllegalActionError

FD = lambda c: {"card": c, "position": "face_down"}  # noqa: E731
STATE = {"format": "ygo-onto.state/1", "turn": 3, "turn_player": "A",
         "players": {"A": {"deck": ["Feral Imp"] * 3, "hand": ["Celtic Guardian", "Swords of Revealing Light"],
                           "spell_trap_zones": [FD("Pot of Greed"), FD("Mystical Space Typhoon"), None, None, None]},
                     "B": {"deck": ["Feral Imp"] * 3, "hand": ["Feral Imp"],
                           "spell_trap_zones": [FD("Mystical Space Typhoon"), FD("Magic Jammer"), None, None, None]}}}
SUMMON = {"type": "normal_summon", "card": "Celtic Guardian"}
SWORDS = {"type": "activate", "card": "Swords of Revealing Light"}
TO_BATTLE = {"type": "next_phase", "to": "battle"}

CASES = [
    # B's summon window let go, but the object stays illegal: a second Normal Summon/Set this turn (p. 14)
    ([SUMMON], {"type": "set_monster", "card": "Celtic Guardian"}),
    # a select or cancel with nothing pending, in a window
    ([SUMMON], {"type": "select", "card": "Celtic Guardian"}),
    ([SUMMON], {"type": "cancel"}),
    # A's Swords on the chain, B not yet asked (the last link is A's): A's next actions are refused (p. 35)
    ([SWORDS], {"type": "end_turn"}),
    ([SWORDS], TO_BATTLE),
    ([SWORDS], SUMMON),
    ([SWORDS], {"type": "activate", "card": "Pot of Greed"}),
    ([SWORDS], {"type": "pass", "player": "A"}),
    # after the pass at Main Phase 1's end the phase is over: a Main Phase action is refused in the Battle Phase
    ([TO_BATTLE], SUMMON),
    # a Counter Trap with nothing to negate, after the window is let go
    ([TO_BATTLE], {"type": "activate", "card": "Magic Jammer"}),
    # phases do not go back (p. 24)
    ([TO_BATTLE], {"type": "next_phase", "to": "main1"}),
    # A's End Phase: A's Spell after B's window is let go is still no Spell of A's in the End Phase
    ([{"type": "end_turn"}], {"type": "activate", "card": "Pot of Greed"}),
    # B's Typhoon answering its own B-turn move is no action of A's turn: B's summon in A's window is refused
    ([SUMMON], {"type": "normal_summon", "card": "Feral Imp", "player": "B"}),
    # B's Typhoon at A's End Phase, A (holding a Set Typhoon) not yet asked: B's turn-4 summon does not end A's turn
    ([{"type": "end_turn"}, {"type": "activate", "card": "Mystical Space Typhoon", "player": "B", "target": "Pot of Greed"}],
     {"type": "normal_summon", "card": "Feral Imp", "player": "B"}),
]


@pytest.mark.parametrize("steps,bad", CASES, ids=[f"{i}-{c[1]['type']}" for i, c in enumerate(CASES)])
def test_still_refused(steps, bad):
    state = GameState.from_dict(STATE)
    for step in steps:
        state = state.apply(step, "fast")
    with pytest.raises(IllegalActionError):
        state.apply(bad, "fast")


def test_draw_phase_summon_goes_through_main_phase_1_only_for_the_turn_player():
    # B's turn 4 stops in B's Draw Phase (B's Set Typhoon has a target); A's action there is refused
    state = GameState.from_dict({**STATE, "turn": 4, "turn_player": "B", "phase": "draw"})
    with pytest.raises(IllegalActionError):
        state.apply({"type": "normal_summon", "card": "Celtic Guardian", "player": "A"}, "fast")
    after = state.apply({"type": "normal_summon", "card": "Feral Imp"}, "fast")
    assert after.data["phase"] == "main1" and after.data["players"]["B"]["monster_zones"][0]["card"] == "Feral Imp"
    # an attack is no Main Phase action: not read through to the Battle Phase
    with pytest.raises(IllegalActionError):
        after.apply({"type": "direct_attack", "card": "Feral Imp"}, "fast")
