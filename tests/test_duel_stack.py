"""Duel: push and pop actions on a stack of states (STYLE.md: python-chess's Board.push / pop)."""
from __future__ import annotations

import pytest

from ygo_onto import Duel, IllegalActionError
from ygo_onto.duel import new_duel, replay_log


@pytest.fixture(scope="module")
def start():
    return new_duel("official", seed=3)


def test_push_then_pop_returns_to_the_state_before(start):
    duel = Duel(start)
    before = duel.state.to_dict()
    first = duel.actions[0]
    after = duel.push(first)
    assert duel.state is after and len(duel) == 1
    assert after.to_dict() != before
    assert duel.pop() == first
    assert duel.state.to_dict() == before and len(duel) == 0
    with pytest.raises(IndexError):
        duel.pop()


def test_an_illegal_push_leaves_the_duel_as_it_was(start):
    duel = Duel(start)
    duel.push(duel.actions[0])
    kept = duel.state
    with pytest.raises(IllegalActionError):
        duel.push({"type": "direct_attack", "card": kept.data["players"]["A"]["hand"][0]})  # turn 1: no Battle Phase
    assert duel.state is kept and len(duel) == 1


def test_pushes_by_id_and_by_object_are_logged_and_replay(start, tmp_path):
    duel = Duel(start)
    duel.push(duel.actions[0].id)
    obj = {k: v for k, v in duel.actions[-1].to_dict().items() if k not in ("id", "from", "ref", "target_ref")}
    duel.push(obj)
    log = tmp_path / "duel.jsonl"
    duel.save_log(log)
    steps = list(replay_log(log))
    assert len(steps) == 2 and all(match for *_, match in steps)
    assert steps[-1][1].to_dict() == duel.state.to_dict()
