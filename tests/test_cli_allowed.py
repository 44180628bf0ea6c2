"""`ygo-onto allowed` prints every action id in full, however narrow the terminal (rich would cut them off)."""
import pytest
from typer.testing import CliRunner

from ygo_onto import GameState
from ygo_onto.cli import app

EXAMPLE = "examples/main1-tribute.json"


@pytest.mark.parametrize("width", [40, 60, 80])
def test_allowed_table_shows_whole_ids(width):
    ids = [a.id for a in GameState.load(EXAMPLE).allowed_actions()]
    assert "change_position@A.mz0:defense" in ids
    result = CliRunner().invoke(app, ["allowed", EXAMPLE], env={"COLUMNS": str(width)})
    assert result.exit_code == 0, result.output
    cells = {line.split("│")[1].strip() for line in result.output.splitlines() if line.count("│") > 2}
    for action_id in ids:
        assert action_id in cells, (action_id, result.output)
    assert "…" not in result.output.split("allowed actions", 1)[1].split("\n", 1)[1]


def test_a_trigger_effect_shows_as_the_activate_being_built(tmp_path):
    """docs/decisions.md 'Trigger effects': Junk Synchron's optional trigger is an `activate` of the card, built
    by selecting its target (or declined with cancel); the table says so under the selections."""
    import json

    scenario = json.loads(open("tests/scenarios/official/junk-synchron-trigger.json", encoding="utf-8").read())
    state = GameState.from_dict(scenario["state"]).apply("normal_summon@A.hand0")
    path = tmp_path / "trigger.json"
    path.write_text(state.to_json())
    result = CliRunner().invoke(app, ["allowed", str(path)], env={"COLUMNS": "100"})
    assert result.exit_code == 0, result.output
    assert "pending: activate Junk Synchron (effect 0)" in result.output and "cancel backs out" in result.output
    assert {a.id for a in state.allowed_actions()} == {"select@A.gy0", "cancel"}
