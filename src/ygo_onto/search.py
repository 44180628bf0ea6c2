"""Search over the decision tree (the design's A*, section 1): find a line that wins this turn.

Each node is a GameState; children come from allowed_actions + apply (the state is never
mutated, OpenSpiel's clone-before-apply).  Cost: actions taken; heuristic: the opponent's LP
divided by the largest ATK the turn player has on the field (a rough count of attacks still
needed; zero once the opponent is at 0).
"""
from __future__ import annotations

import heapq
import itertools
from dataclasses import dataclass

from .cards import catalog
from .game import GameState


@dataclass
class SolveResult:
    line: list | None
    expanded: int


def _heuristic(state: GameState, me: str) -> float:
    d = state.data
    opp = "B" if me == "A" else "A"
    lp = d["players"][opp]["life_points"]
    if d["winner"] == me:
        return 0.0
    cat = catalog(d["ruleset"])
    atk = max([cat.get(fc["card"]).atk or 0 for fc in d["players"][me]["monster_zones"] if fc] or [0])
    return lp / atk if atk else lp / 1000.0


def solve(state: GameState, reasoner: str = "fast", max_nodes: int = 5000) -> SolveResult:
    """A* over this turn's actions; a line ends when the turn player wins, and never crosses the turn."""
    me = state.data["turn_player"]
    turn = state.data["turn"]
    counter = itertools.count()
    frontier = [(_heuristic(state, me), next(counter), 0, state, [])]
    seen = set()
    expanded = 0
    while frontier and expanded < max_nodes:
        _, _, cost, node, line = heapq.heappop(frontier)
        if node.winner == me:
            return SolveResult(line, expanded)
        key = node.to_json(indent=None)
        if key in seen or node.winner is not None or node.data["turn"] != turn:
            continue
        seen.add(key)
        expanded += 1
        for action in node.allowed_actions(reasoner):
            if action.type == "end_turn":
                continue
            child = node.apply(action, reasoner)
            if child.data["turn"] != turn and child.winner != me:
                continue
            heapq.heappush(frontier, (cost + 1 + _heuristic(child, me), next(counter), cost + 1, child, line + [action]))
    return SolveResult(None, expanded)
