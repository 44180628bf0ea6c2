"""selfplay's round robin of three or more decks: the pairings, the per-deck table and ratings, the CLI."""
import json
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ygo_onto.cli import app
from ygo_onto.decks import Deck
from ygo_onto.selfplay import round_robin_jobs, round_robin_summary, run_batch, wilson

from ray_runner import run_batch_on_ray

GOAT = Path(__file__).resolve().parent.parent / "examples" / "decks" / "goat"
THREE = [str(GOAT / f"{n}.ydk") for n in ("goat-control", "warrior", "chaos-control")]


def _without_time(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def test_round_robin_plays_every_pair_in_both_seats_and_swaps_agents():
    decks = [Deck(n) for n in "wxyz"]
    batch = round_robin_jobs(24, ("greedy", "random"), "goat", decks)  # 6 pairs, two rounds of 12 games
    seats = [(j.decks[0].name, j.decks[1].name) for j in batch]
    pairs = {frozenset(s) for s in seats}
    assert len(pairs) == 6
    assert sorted(seats[:12]) == sorted((x, y) for x in "wxyz" for y in "wxyz" if x != y)  # one round: both seats
    assert seats[0] == tuple(reversed(seats[1]))  # a pair's two games follow each other
    # over two rounds each agent has each deck of each pair in each seat once
    combos = {(j.seats[0], j.decks[0].name, j.decks[1].name) for j in batch}
    assert len(combos) == 24
    assert [j.seats for j in batch[:2]] == [("greedy", "random"), ("random", "greedy")]
    assert len({j.seed for j in batch}) == 24


def _rec(game, a, b, winner, error=None):
    rec = {"game": game, "decks": {"A": a, "B": b}, "winner": winner}
    if error:
        rec["error"] = error
    return rec


def test_round_robin_summary_on_known_results():
    records = [  # x beats y 3 times out of 4 (both seats); y and z draw once; z beats x twice; one crash
        _rec(0, "x", "y", "A"), _rec(1, "y", "x", "B"), _rec(2, "x", "y", "B"), _rec(3, "y", "x", "B"),
        _rec(4, "y", "z", "draw"), _rec(5, "z", "y", None),
        _rec(6, "x", "z", "B"), _rec(7, "z", "x", "A"), _rec(8, "z", "x", None, error="StateError: boom"),
    ]
    rr = round_robin_summary(records, ["x", "y", "z"])
    cell = {(e["deck"], e["opponent"]): e for e in rr["table"]}
    assert len(cell) == 6
    assert (cell["x", "y"]["games"], cell["x", "y"]["wins"]) == (4, 3)
    assert (cell["y", "x"]["games"], cell["y", "x"]["wins"]) == (4, 1)
    assert cell["x", "y"]["win_rate"] == 0.75 and cell["x", "y"]["ci95"] == list(wilson(3, 4))
    assert (cell["y", "z"]["games"], cell["y", "z"]["wins"]) == (2, 0)  # a draw and an unfinished duel
    assert (cell["z", "x"]["games"], cell["z", "x"]["wins"]) == (3, 2)  # the crash is a game z did not win
    ratings = {e["deck"]: e for e in rr["ratings"]}
    assert (ratings["x"]["games"], ratings["x"]["wins"]) == (7, 3)
    assert (ratings["z"]["games"], ratings["z"]["wins"]) == (5, 2)
    assert [e["deck"] for e in rr["ratings"]] == sorted("xyz", key=lambda d: -ratings[d]["ordinal"])
    for e in rr["ratings"]:
        assert e["ordinal"] == pytest.approx(e["mu"] - 3 * e["sigma"])
    # y only lost and drew: it rates below x, which won most of its rated games
    assert ratings["y"]["mu"] < ratings["x"]["mu"]
    # an unfinished duel and an error are not rated: dropping them leaves the ratings as they are
    rated = round_robin_summary([r for r in records if r["winner"] and not r.get("error")], ["x", "y", "z"])
    assert [(e["deck"], e["mu"]) for e in rated["ratings"]] == [(e["deck"], e["mu"]) for e in rr["ratings"]]


def test_round_robin_ratings_follow_the_results():
    # a always beats b, b always beats c, a always beats c: the ratings order them a, b, c
    records = []
    for g in range(30):
        x, y = [("a", "b"), ("b", "c"), ("a", "c")][g % 3]
        a, b = (x, y) if g % 2 == 0 else (y, x)
        records.append(_rec(g, a, b, "A" if a == x else "B"))
    rr = round_robin_summary(records, ["c", "b", "a"])
    assert [e["deck"] for e in rr["ratings"]] == ["a", "b", "c"]


def test_cli_round_robin_of_three_goat_decks(tmp_path):
    out = tmp_path / "rr.jsonl"
    # the shell expands `--decks examples/decks/goat/*.ydk` to one file after --decks and the rest as arguments
    result = CliRunner().invoke(app, ["selfplay", "--ruleset", "goat", "--games", "6", "--workers", "1", "--seed", "3",
                                      "--json", "--no-progress", "--out", str(out), "--decks", THREE[0], *THREE[1:]])
    assert result.exit_code == 0, result.output
    summary = json.loads(result.output)
    records = [json.loads(line) for line in out.read_text().splitlines()]
    assert summary["errors"] == 0 and len(records) == 6
    rr = summary["round_robin"]
    assert rr["decks"] == ["goat-control", "warrior", "chaos-control"]
    assert {frozenset(r["decks"].values()) for r in records} == {frozenset(p) for p in
                                                               [("goat-control", "warrior"),
                                                                ("goat-control", "chaos-control"),
                                                                ("warrior", "chaos-control")]}
    assert rr == round_robin_summary(records, rr["decks"])  # computed from the duels that were played
    assert sum(e["wins"] for e in rr["table"]) == sum(r["winner"] in ("A", "B") for r in records)
    # the tables print
    text = CliRunner().invoke(app, ["selfplay", "--ruleset", "goat", "--games", "6", "--workers", "1", "--seed", "3",
                                    "--decks", ",".join(THREE)])
    assert text.exit_code == 0, text.output
    assert "deck against deck" in text.output and "ratings" in text.output and "chaos-control" in text.output
    assert "round robin of 3 decks" in text.output  # the progress bar (stderr), with the wins per deck


@pytest.mark.parametrize("args,words", [
    (["--decks", f"{THREE[0]},{THREE[1]},{THREE[0]}"], ["--decks", "once", "goat-control.ydk"]),
    (["--decks", f"{THREE[0]},,{THREE[1]}"], ["--decks", "empty"]),
    ([THREE[0], THREE[1]], ["deck files follow --decks"]),
    (["--decks", THREE[0], THREE[1], "/no/such.ydk"], ["/no/such.ydk"]),
])
def test_cli_round_robin_bad_input_exits_2_before_any_duel(args, words, monkeypatch):
    import ygo_onto.selfplay as sp

    monkeypatch.setattr(sp, "play_job", lambda job: pytest.fail("a duel was played"))
    result = CliRunner().invoke(app, ["selfplay", "--ruleset", "goat", "--games", "2", "--workers", "1", *args])
    assert result.exit_code == 2, result.output
    for w in words:
        assert w in result.output
    assert "Traceback" not in result.output


def test_round_robin_on_processes_equals_one_process():
    two = run_batch(6, ("random", "random"), "goat", workers=2, seed=4, decks=THREE)
    one = run_batch(6, ("random", "random"), "goat", workers=1, seed=4, decks=THREE)
    assert _without_time(two.records) == _without_time(one.records)
    assert two.summary()["round_robin"] == one.summary()["round_robin"]




def test_round_robin_on_a_local_ray():
    pytest.importorskip("ray")
    result = run_batch_on_ray(6, ("random", "random"), "goat", workers=2, seed=4, decks=THREE)
    local = run_batch(6, ("random", "random"), "goat", workers=1, seed=4, decks=THREE)
    assert _without_time(result["records"]) == _without_time(local.records)
    assert result["round_robin"] == local.summary()["round_robin"]
