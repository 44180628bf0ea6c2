"""Rule scenarios as data (tests/scenarios/<ruleset>/*.json), python-chess's perft habit.

A scenario: {"name", "rule" (the rulebook passage it checks), "state", "allowed", "forbidden",
"steps", "expect", "allowed_after", "forbidden_after"}, and optionally "checks": {"N": {"expect",
"allowed", "forbidden"}}, checked after the first N steps (a script across turns, checked at each turn), and
"refused": actions that `apply` must refuse after the steps (IllegalActionError, exit 1 on the command line),
each tried on the state after the steps, which no reading of script_input.py may carry out.  Actions are given by id
(`normal_summon@A.hand0`) or as partial action objects ({"type": "attack"}): an object
matches every allowed action that has all its keys.
"""
from __future__ import annotations

import json
from pathlib import Path

from ygo_onto import GameState
from ygo_onto.errors import IllegalActionError

SCENARIOS = Path(__file__).parent / "scenarios"


def all_scenarios() -> list[Path]:
    return sorted(SCENARIOS.glob("*/*.json"))


def load(path: Path) -> dict:
    return json.loads(path.read_text(encoding="utf-8"))


def matches(action, spec) -> bool:
    if isinstance(spec, str):
        return action.id == spec
    d = action.to_dict()
    return all(d.get(k) == v for k, v in spec.items())


def get_path(data, path: str):
    for part in path.split("."):
        data = data[int(part)] if isinstance(data, list) else data[part]
    return data


def check_actions(state: GameState, allowed, forbidden, reasoner: str, when: str) -> None:
    actions = state.allowed_actions(reasoner)
    ids = [a.id for a in actions]
    for spec in allowed:
        assert any(matches(a, spec) for a in actions), f"{when}: expected {spec} allowed; allowed: {ids}"
    for spec in forbidden:
        hits = [a.id for a in actions if matches(a, spec)]
        assert not hits, f"{when}: expected {spec} forbidden; but allowed: {hits}"


def check_state(state: GameState, check: dict, reasoner: str, when: str) -> None:
    for key, expected in check.get("expect", {}).items():
        got = get_path(state.to_dict(), key)
        assert got == expected, f"{when}: {key}: expected {expected!r}, got {got!r}"
    if check.get("allowed") or check.get("forbidden"):
        check_actions(state, check.get("allowed", []), check.get("forbidden", []), reasoner, when)


def run(path: Path, reasoner: str) -> GameState:
    sc = load(path)
    state = GameState.from_dict(sc["state"], source=str(path))
    check_actions(state, sc.get("allowed", []), sc.get("forbidden", []), reasoner, "before the steps")
    checks = sc.get("checks", {})
    for n, step in enumerate(sc.get("steps", []), 1):
        state = state.apply(step, reasoner)
        if str(n) in checks:
            check_state(state, checks[str(n)], reasoner, f"after step {n} ({step})")
    for key, expected in sc.get("expect", {}).items():
        got = get_path(state.to_dict(), key)
        assert got == expected, f"after {sc.get('steps')}: {key}: expected {expected!r}, got {got!r}"
    if sc.get("allowed_after") or sc.get("forbidden_after"):
        check_actions(state, sc.get("allowed_after", []), sc.get("forbidden_after", []), reasoner, "after the steps")
    for action in sc.get("refused", []):
        try:
            state.apply(action, reasoner)
        except IllegalActionError:
            continue
        raise AssertionError(f"after the steps: expected {action} refused, but apply carried it out")
    return state
