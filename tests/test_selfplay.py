"""Self-play at scale (src/ygo_onto/selfplay.py) and the look-ahead agents (src/ygo_onto/agents.py)."""
import json
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ygo_onto import GameState
from ygo_onto.agents import SearchAgent, greedy_agent, score
from ygo_onto.cli import app
from ygo_onto.duel import AGENTS
from ygo_onto.selfplay import game_seed, jobs, run_batch, wilson

from ray_runner import run_batch_on_ray

PUZZLE = Path(__file__).resolve().parent.parent / "examples" / "puzzle-raigeki.json"
FIELDS = {"game", "seed", "ruleset", "agents", "first_player", "winner", "winner_agent", "turns", "actions", "seconds"}


def _without_time(records):
    return [{k: v for k, v in r.items() if k != "seconds"} for r in records]


def test_wilson_interval():
    lo, hi = wilson(5, 10)
    assert (round(lo, 4), round(hi, 4)) == (0.2366, 0.7634)
    lo, hi = wilson(0, 10)
    assert lo == 0.0 and round(hi, 4) == 0.2775
    assert wilson(0, 0) == (0.0, 1.0)


def test_game_seeds_are_stable_and_seats_alternate():
    assert game_seed(0, 0) == game_seed(0, 0) != game_seed(0, 1) != game_seed(1, 1)
    batch = jobs(4, ("greedy", "random"), "official", seed=7)
    assert [j.seats for j in batch] == [("greedy", "random"), ("random", "greedy")] * 2
    assert [j.seed for j in batch] == [game_seed(7, i) for i in range(4)]


def test_a_batch_on_processes_equals_the_same_batch_in_one_process(tmp_path):
    out = tmp_path / "results.jsonl"
    two = run_batch(3, ("aggressive", "random"), "simplified", workers=2, seed=11, out=out)
    lines = [json.loads(line) for line in out.read_text().splitlines()]
    assert [r["game"] for r in lines] == [0, 1, 2]
    for r in lines:
        assert FIELDS <= set(r) and "error" not in r
        assert r["winner"] in ("A", "B", "draw") and r["actions"] > 0 and r["turns"] >= 1
        assert r["winner_agent"] == (r["agents"][r["winner"]] if r["winner"] in ("A", "B") else None)
    one = run_batch(3, ("aggressive", "random"), "simplified", workers=1, seed=11)
    assert _without_time(one.records) == _without_time(lines) == _without_time(two.records)
    summary = two.summary()
    assert summary["games"] == 3 and summary["actions"] == sum(r["actions"] for r in lines)
    by = {(r["agent"], r["when"]): r for r in summary["rows"]}
    assert by[("aggressive", "all")]["wins"] + by[("random", "all")]["wins"] + summary["draws"] == 3
    assert by[("aggressive", "going first")]["games"] + by[("aggressive", "going second")]["games"] == 3
    assert summary["actions_per_second"] > 0


def test_a_crashing_duel_is_recorded_and_the_batch_goes_on(monkeypatch):
    def boom(state, actions, rng):
        if state.data["turn"] >= 2:
            raise RuntimeError("agent failed")
        return actions[-1]

    monkeypatch.setitem(AGENTS, "boom", boom)
    batch = run_batch(2, ("boom", "aggressive"), "simplified", workers=1, seed=3)
    assert len(batch.records) == 2
    for rec in batch.records:
        assert rec["error"] == "RuntimeError: agent failed"
        assert rec["seed"] == game_seed(3, rec["game"])
        assert rec["last_state"]["turn"] >= 2 and "agent failed" in rec["traceback"]
    assert batch.summary()["errors"] == 2


def test_cli_selfplay_prints_the_summary_and_writes_records(tmp_path):
    out = tmp_path / "r.jsonl"
    result = CliRunner().invoke(app, ["selfplay", "--games", "2", "--agents", "aggressive,random", "--ruleset",
                                      "simplified", "--workers", "1", "--out", str(out), "--seed", "5"])
    assert result.exit_code == 0, result.output
    assert "win rates" in result.output and "actions per second" in result.output
    assert len(out.read_text().splitlines()) == 2


@pytest.mark.parametrize("args,words", [
    (["--out", "/no/such/dir/r.jsonl"], ["--out", "missing directory"]),
    (["--agents", "random,nobody"], ["--agents", "nobody"]),
    (["--agents", "random"], ["--agents"]),
    (["--ruleset", "speed"], ["--ruleset", "speed"]),
    (["--games", "0"], ["--games"]),
])
def test_cli_selfplay_bad_input_exits_2_before_any_duel(args, words, monkeypatch):
    import ygo_onto.selfplay as sp

    monkeypatch.setattr(sp, "play_job", lambda job: pytest.fail("a duel was played"))
    result = CliRunner().invoke(app, ["selfplay", "--games", "2", "--workers", "1", *args])
    assert result.exit_code == 2, result.output
    for w in words:
        assert w in result.output




def test_selfplay_on_a_local_ray(tmp_path):
    pytest.importorskip("ray")
    out = tmp_path / "ray.jsonl"
    records = run_batch_on_ray(4, ("aggressive", "random"), "simplified", workers=2, seed=2, out=out,
                               timeout=600)["records"]
    assert [r["game"] for r in records] == [0, 1, 2, 3]
    local = run_batch(4, ("aggressive", "random"), "simplified", workers=1, seed=2)
    assert _without_time(records) == _without_time(local.records)
    assert len(out.read_text().splitlines()) == 4


# ---------------------------------------------------------------- agents
def test_score_prefers_more_lp_and_a_win():
    state = GameState.load(PUZZLE)
    d = state.to_dict()
    d["players"]["B"]["life_points"] = 100
    better = GameState.from_dict(d)
    assert score(better, "A") > score(state, "A") and score(better, "B") < score(state, "B")
    d["winner"] = "A"
    assert score(GameState.from_dict(d), "A") > score(better, "A")


def test_greedy_takes_the_attack_that_wins():
    d = json.loads(PUZZLE.read_text())
    d["phase"] = "battle"
    d["players"]["B"]["monster_zones"] = [None] * 5
    state = GameState.from_dict(d)
    actions = state.allowed_actions()
    assert {a.id for a in actions} >= {"direct_attack@A.mz0", "next_phase:main2"}
    choice = greedy_agent(state, actions, random.Random(0))
    assert choice.id == "direct_attack@A.mz0"
    assert state.apply(choice).winner == "A"


def test_search_agent_plays_solves_line_to_the_win():
    agent = SearchAgent()
    state = GameState.load(PUZZLE)
    rng = random.Random(0)
    played = []
    while state.winner is None and len(played) < 10:
        actions = state.allowed_actions()
        action = agent(state, actions, rng)
        played.append(action.id)
        state = state.apply(action)
    assert state.winner == "A"
    assert played[0] == "activate@A.hand0"  # Raigeki first: the line solve found
    assert agent.solves == 1  # the rest of the line was followed, not searched again


def test_greedy_and_search_agents_play_in_selfplay():
    # a whole greedy duel takes 20-100 s on a loaded 2-core machine: 20 actions show the plumbing
    batch = run_batch(1, ("greedy", "search"), "simplified", workers=1, seed=1, max_actions=20)
    rec = batch.records[0]
    assert "error" not in rec and rec["actions"] == 20 and rec["winner"] is None
    assert batch.summary()["unfinished"] == 1
