"""Script readings around the Draw Phase and the opponent's phase-end chain (docs/decisions.md "Script
readings").  Refusals a scenario cannot state (the runner's steps must all be taken)."""
import json
from pathlib import Path

import pytest

from ygo_onto import GameState
from ygo_onto.errors import IllegalActionError

FD = lambda c: {"card": c, "position": "face_down"}  # noqa: E731
SUMMON = {"type": "normal_summon", "card": "Celtic Guardian"}


def _draw_phase(**a_side):
    return {"format": "ygo-onto.state/1", "turn": 3, "turn_player": "A", "phase": "draw",
            "players": {"A": {"deck": ["Feral Imp"] * 3, "hand": ["Celtic Guardian"], **a_side},
                        "B": {"deck": ["Feral Imp"] * 3, "spell_trap_zones": [FD("Mirror Force"), None, None, None, None]}}}


@pytest.mark.parametrize("phase", ["draw", "standby"])
def test_summon_in_a_hand_written_idle_draw_or_standby_phase_is_refused(phase):
    # rulebook v6.0 p. 24: a Normal Summon is a Main Phase action; the engine never stops in an idle Draw or
    # Standby Phase (only moving on allowed), so this state was written there on purpose: no main_phase_first
    state = GameState.from_dict({**_draw_phase(), "phase": phase})
    assert {a.type for a in state.allowed_actions("fast")} <= {"next_phase", "end_turn"}
    with pytest.raises(IllegalActionError):
        state.apply(SUMMON, "fast")


def test_summon_where_the_engine_stops_in_the_draw_phase_goes_through_main_phase_1():
    # A's Set Typhoon has a target: the engine stops in A's Draw Phase, and a script's summon there means Main 1
    state = GameState.from_dict(_draw_phase(spell_trap_zones=[FD("Mystical Space Typhoon"), None, None, None, None]))
    after = state.apply(SUMMON, "fast").to_dict()
    assert after["phase"] == "main1" and after["players"]["A"]["monster_zones"][0]["card"] == "Celtic Guardian"


def test_attack_after_the_pass_that_resolved_the_opponents_phase_end_chain_is_refused():
    # rulebook p. 38: B's chain at the end of A's Main Phase 1 spent A's request; A's bare pass resolved it and the
    # state written shows A in Main Phase 1 (a script is given that state): an attack there is refused as written
    # (write next_phase again), unlike an object written while the chain was still open (own_link_let_resolve)
    sc = json.loads((Path(__file__).parent / "scenarios/official/audit11-left-pass-resolves-opponents-phase-end-chain.json").read_text())
    state = GameState.from_dict(sc["state"])
    for step in sc["steps"][:4]:
        state = state.apply(step, "fast")
    assert state.to_dict()["phase"] == "main1"
    with pytest.raises(IllegalActionError):
        state.apply(sc["steps"][-1], "fast")
