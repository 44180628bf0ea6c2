"""Puzzles with their expected result in `extra.puzzle`, solved once per test process (tests/test_search.py,
tests/test_solve_puzzles.py)."""
import json
from pathlib import Path

from ygo_onto import GameState
from ygo_onto.search import solve

_SOLVED: dict = {}


def solved(path: Path):
    if path not in _SOLVED:
        _SOLVED[path] = solve(GameState.load(path), reasoner="fast", timeout=120)
    return _SOLVED[path]


def expected(path: Path) -> str:
    return json.loads(path.read_text())["extra"]["puzzle"]["expected"]
