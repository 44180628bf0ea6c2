"""Whole `goat` duels of the four benchmark decks (chaos-control, warrior, chaos-turbo, chaos-warrior: the GOAT
pack's decks.json), every pair in both seats, with the invariants of tests/playout_checks.py after every step
(cards conserved, states valid and normal, applied actions allowed, no action after a win, no stuck duel),
the duel's log replaying it, and the duel played again from its seed reaching the same states.

Aggressive agents finish a duel in a few dozen actions; a random agent's duel is cut at MAX_ACTIONS and must
still hold the invariants.  YGO_GOAT_SEEDS=N plays N seeds of each pair (default 1: 12 duels of each kind).
"""
from __future__ import annotations

import itertools
import multiprocessing
import os

import pytest

from playout_checks import play_checked, replay_digests
from ygo_onto.decks import example_deck, read_ydk

BENCHMARK = ("chaos-control", "warrior", "chaos-turbo", "chaos-warrior")
SEEDS = int(os.environ.get("YGO_GOAT_SEEDS", "1"))
PAIRS = list(itertools.permutations(BENCHMARK, 2))  # 12: every pair, in both seats
MAX_ACTIONS = {"aggressive": 600, "random": 60}
DUELS = [(a, b, seed, kind) for seed in range(SEEDS) for a, b in PAIRS for kind in ("aggressive", "random")]
WORKERS = max(1, min(os.cpu_count() or 1, 2))


def _decks(a: str, b: str) -> tuple:
    return tuple(read_ydk(example_deck("goat", n), "goat") for n in (a, b))


def _id(duel) -> str:
    a, b, seed, kind = duel
    return f"{a}-vs-{b}-{kind}-{seed}"


@pytest.fixture(scope="module")
def played():
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WORKERS) as pool:
        jobs = {duel: pool.apply_async(play_checked, ("goat", 100 + duel[2], (duel[3],) * 2, MAX_ACTIONS[duel[3]]),
                                       {"check_log": i % 4 == 0, "decks": _decks(duel[0], duel[1])})
                for i, duel in enumerate(DUELS)}
        return {duel: job.get(timeout=1800) for duel, job in jobs.items()}


@pytest.mark.parametrize("duel", DUELS, ids=_id)
def test_the_invariants_hold(played, duel):
    report = played[duel]
    assert not report["problems"], f"{report['where']}:\n" + "\n".join(report["problems"])
    assert report["actions"] > 0


@pytest.mark.parametrize("duel", [d for d in DUELS if d[3] == "aggressive"], ids=_id)
def test_the_duel_finishes_with_a_winner(played, duel):
    report = played[duel]
    # a draw is a finish too: Ring of Destruction's damage to both players can bring both to 0 at once (GOAT pack
    # cards.md Ring of Destruction: "both can reach 0 and the duel is a draw"); a duel cut at MAX_ACTIONS has none
    assert report["winner"] in ("A", "B", "draw"), f"{report['where']}: no winner after {report['actions']} actions"


def test_a_duel_played_again_from_its_seed_reaches_the_same_states(played):
    for duel in DUELS[::5]:
        again = replay_digests("goat", 100 + duel[2], (duel[3],) * 2, MAX_ACTIONS[duel[3]], decks=_decks(*duel[:2]))
        assert again == played[duel]["digests"], _id(duel)
