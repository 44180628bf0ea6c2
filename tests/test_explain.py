"""explain, apply and allowed agree: an action is allowed for the player holding priority only."""
import json

import pytest
from typer.testing import CliRunner

from ygo_onto import GameState, IllegalActionError
from ygo_onto.cli import app
from ygo_onto.explain import explain_action

EXAMPLE = "examples/main1-tribute.json"
runner = CliRunner()


@pytest.mark.parametrize("player,allowed", [("A", True), ("B", False)])
def test_end_turn_by_a_player_allowed_apply_and_explain_agree(player, allowed):
    """actions-and-cli.md: `allowed` lists the actions of the player holding priority (A here), with that player."""
    state = GameState.load(EXAMPLE)
    action = {"type": "end_turn", "player": player}
    listed = any(a.to_dict() == {**a.to_dict(), **action} for a in state.allowed_actions())
    assert listed == allowed
    assert explain_action(state, action).allowed == allowed
    if allowed:
        state.apply(action)
    else:
        with pytest.raises(IllegalActionError, match="player B is not allowed: player A holds priority"):
            state.apply(action)
    for command in ("apply", "explain"):
        result = runner.invoke(app, [command, EXAMPLE, json.dumps(action)])
        assert result.exit_code == (0 if allowed else 1), (command, result.output)
        assert "Traceback" not in result.output
    if not allowed:
        assert "does not hold priority" in runner.invoke(app, ["explain", EXAMPLE, json.dumps(action)]).output


def test_a_partial_action_object_is_explained_as_apply_takes_it():
    """actions-and-cli.md: an action object that leaves out a choice takes the one allowed action it matches;
    explain reads it the same way (it used to ask for a card reference)."""
    partial = {"type": "activate", "card": "Mystical Space Typhoon"}
    state = GameState.load(EXAMPLE)
    assert state.find_action(partial).id == "activate@A.hand1"
    report = explain_action(state, partial)
    assert report.allowed and report.fired
    result = runner.invoke(app, ["explain", EXAMPLE, json.dumps(partial)])
    assert result.exit_code == 0, result.output
    # one that matches no allowed action is explained for the first copy of the named card (here in the deck)
    result = runner.invoke(app, ["explain", EXAMPLE, json.dumps({"type": "activate", "card": "Pot of Greed"})])
    assert result.exit_code == 1 and result.output.startswith("activate@A.deck1: not allowed"), result.output
