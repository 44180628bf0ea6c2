"""The design's A* (section 1): `solve` finds a line that wins this turn, and says so when there is none."""
import json
from pathlib import Path

from typer.testing import CliRunner

from ygo_onto import GameState
from ygo_onto.cli import app
from ygo_onto.search import solve

PUZZLE = Path(__file__).resolve().parent.parent / "examples" / "puzzle-raigeki.json"


def test_solve_finds_a_line_that_wins_and_replays():
    state = GameState.load(PUZZLE)
    result = solve(state, reasoner="fast")
    assert result.line is not None
    # Raigeki clears B's field, then Celtic Guardian's 1400 direct attack takes B's 1400 LP
    assert [a.id for a in result.line] == ["activate@A.hand0", "next_phase:battle", "direct_attack@A.mz0"]
    for action in result.line:
        state = state.apply(action, "fast")
    assert state.winner == "A"


def test_solve_reports_no_line_when_the_turn_cannot_win(tmp_path):
    raw = json.loads(PUZZLE.read_text())
    # only Raigeki and Celtic Guardian's 1400: 100 LP short
    raw["players"]["A"]["hand"] = ["Raigeki"]
    raw["players"]["A"]["monster_zones"][1] = None
    raw["players"]["B"]["life_points"] = 1500
    path = tmp_path / "no-win.json"
    path.write_text(json.dumps(raw))
    assert solve(GameState.load(path), reasoner="fast").line is None
    result = CliRunner().invoke(app, ["solve", str(path)])
    assert result.exit_code == 1 and "no winning line" in result.output


def test_cli_solve_prints_the_line():
    result = CliRunner().invoke(app, ["solve", str(PUZZLE)])
    assert result.exit_code == 0, result.output
    assert "direct_attack@A.mz0" in result.output
