"""Random playouts with invariants (OpenSpiel's random-simulation tests, PettingZoo's API tests).

Duels from new_duel in both rulesets, several seeds, played by random and aggressive agents with
the fast backend to the end or MAX_ACTIONS; after every step (tests/playout_checks.py):

* every card is in exactly one place: the cards of each owner (deck, hand, graveyard, banished,
  extra deck, and on the field by their `owner`) are the start's, none created or lost; a card
  on the chain is in the zone its link names;
* the state is valid: GameState.from_dict accepts it unchanged (5 entries per zone list, only
  monsters in Monster Zones, ...), and life points are ints >= 0;
* the applied action was in the allowed list; an action no longer allowed is refused;
* once there is a winner, no action is allowed (and a duel without one is never stuck);
* determinism: the duel played again from its seed, in another process (another hash seed),
  reaches the same states; and a log written with write_log replays with replay_log, every
  state matching (every LOG_EVERY-th duel; the others are the same code path).

The duels run in worker processes (one per core); the replays from the seed run here meanwhile.
SEEDS_PER_KIND (so DUELS) and MAX_ACTIONS set the cost: 24 duels take about a minute and a half on 2 cores.
"""
from __future__ import annotations

import multiprocessing
import os
from collections import Counter

import pytest

from playout_checks import cards_by_owner, play_checked, replay_digests, state_problems
from ygo_onto import GameState
from ygo_onto.duel import new_duel

RULESETS = ("official", "simplified")
AGENTS = (("random", "random"), ("aggressive", "aggressive"), ("random", "aggressive"))
# A cap per ruleset and agents: aggressive agents finish most duels under theirs (official ~70
# actions, simplified ~35); random ones rarely finish and are cut short to see more openings.
MAX_ACTIONS = {("official", False): 24, ("official", True): 80, ("simplified", False): 40, ("simplified", True): 60}
SEEDS_PER_KIND = 4
DUELS = [(ruleset, seed, agents) for seed in range(SEEDS_PER_KIND) for ruleset in RULESETS for agents in AGENTS]
LOG_EVERY = 5       # every 5th duel writes its log and replays it
REPLAY_EVERY = 5    # every 5th duel is played again from its seed in this process
WORKERS = max(1, min(os.cpu_count() or 1, 4))


def cap(duel) -> int:
    ruleset, _, agents = duel
    return MAX_ACTIONS[(ruleset, "aggressive" in agents)]


def duel_id(duel) -> str:
    ruleset, seed, agents = duel
    return f"{ruleset}-{'-'.join(agents)}-{seed}"


@pytest.fixture(scope="module")
def played():
    """{duel: report} for every duel, and {duel: digests} of the replays from the seed."""
    ctx = multiprocessing.get_context("spawn")
    with ctx.Pool(WORKERS) as pool:
        jobs = {duel: pool.apply_async(play_checked, (duel[0], duel[1], duel[2], cap(duel)),
                                       {"check_log": i % LOG_EVERY == 0})
                for i, duel in enumerate(DUELS)}
        replays = {duel: replay_digests(duel[0], duel[1], duel[2], cap(duel))
                   for i, duel in enumerate(DUELS) if i % REPLAY_EVERY == 1}
        reports = {duel: job.get() for duel, job in jobs.items()}
    total = sum(r["actions"] for r in reports.values())
    won = sum(1 for r in reports.values() if r["winner"] is not None)
    print(f"\nplayouts: {len(DUELS)} duels, {total} actions, {won} won, "
          f"{sum(r['seconds'] for r in reports.values()):.0f} s of play in {WORKERS} workers")
    return reports, replays


@pytest.mark.parametrize("duel", DUELS, ids=duel_id)
def test_random_playout_keeps_the_invariants(played, duel):
    report = played[0][duel]
    assert not report["problems"], f"{report['where']}:\n" + "\n".join(report["problems"])


@pytest.mark.parametrize("duel", [d for i, d in enumerate(DUELS) if i % REPLAY_EVERY == 1], ids=duel_id)
def test_the_same_seed_replays_the_same_states(played, duel):
    reports, replays = played
    played_states, again = reports[duel]["digests"], replays[duel]
    assert again[:len(played_states)] == played_states, f"{duel_id(duel)}: the replay from the seed diverges"
    if not reports[duel]["problems"]:
        assert len(again) == len(played_states)


def test_the_playouts_reach_the_ends_of_duels(played):
    """The invariants are only as good as the states the duels reach: some duels must be won."""
    reports, _ = played
    assert any(r["winner"] is not None for r in reports.values())
    assert sum(r["actions"] for r in reports.values()) >= len(DUELS) * 10


# ---------------------------------------------------------------------------------------------
# the checks themselves catch what they should

def test_the_checks_catch_a_broken_state():
    start = new_duel("simplified", 0)
    data = start.to_dict()
    cards = cards_by_owner(data)
    assert state_problems(data, cards) == []
    moved = start.to_dict()
    moved["players"]["A"]["graveyard"].append(moved["players"]["A"]["hand"].pop())
    assert state_problems(moved, cards) == []  # moved, not lost
    lost = start.to_dict()
    lost["players"]["A"]["hand"].pop()
    assert any("not conserved" in p for p in state_problems(lost, cards))
    stolen = start.to_dict()
    stolen["players"]["B"]["hand"].append(stolen["players"]["A"]["hand"].pop())
    assert any("not conserved" in p for p in state_problems(stolen, cards))
    negative = start.to_dict()
    negative["players"]["B"]["life_points"] = -100
    assert any("life_points" in p for p in state_problems(negative, cards))
    short = start.to_dict()
    short["players"]["A"]["monster_zones"] = [None] * 4
    assert any("5 entries" in p or "does not load" in p for p in state_problems(short, cards))


def test_the_checks_count_field_cards_by_owner():
    data = GameState.from_dict({
        "format": "ygo-onto.state/1",
        "players": {"A": {"monster_zones": [{"card": "Dark Magician", "owner": "B"}, None, None, None, None],
                          "hand": ["Dark Magician"]},
                    "B": {}}}).to_dict()
    assert cards_by_owner(data) == {"A": Counter({"Dark Magician": 1}), "B": Counter({"Dark Magician": 1})}
