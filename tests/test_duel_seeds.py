"""Duels that once crashed play to the end with every invariant of the playouts (tests/playout_checks.py).

Seed 3142: `ygo-onto duel --seed 3142 --agents random,random` offered a Ritual Summon with all 5 Monster
Zones full and only tributes from the hand ("internal: no free monster_zones for ..."), at action ~300.
"""
import pytest

from playout_checks import play_checked

CRASHED = [("official", 3142, ("random", "random"))]


@pytest.mark.parametrize("ruleset,seed,agents", CRASHED, ids=[f"{r}-{s}" for r, s, _ in CRASHED])
def test_a_duel_that_crashed_plays_to_the_end(ruleset, seed, agents):
    report = play_checked(ruleset, seed, agents, max_actions=1000)
    assert not report.get("crashed") and not report["problems"], report["problems"]
    assert report["winner"] is not None, f"no winner after {report['actions']} actions"
