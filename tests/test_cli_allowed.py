"""`ygo-onto allowed` prints every action id in full, however narrow the terminal (issue 11: ids were cut off)."""
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
