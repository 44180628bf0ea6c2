"""The benchmark runs and reports (fast only, few samples: a smoke test, not a measurement)."""
from __future__ import annotations

import io
import json
import shutil
import subprocess
import tempfile
from pathlib import Path

import pytest
from rich.console import Console

from ygo_onto.bench import (BENCH_STATES, COMMIT_ALIASES, _median_rounds, bench_states, checkout_root, main,
                             puzzle_files, render, run_bench)
from ygo_onto.game import GameState
from ygo_onto.reasoning.fast import native
from ygo_onto.resources import example


def test_the_fixed_states_load_and_are_what_they_say():
    states, skipped = bench_states()
    assert "opening hand" in states and "mid-game (84 cards)" in states
    mid = states["mid-game (84 cards)"]
    in_play = sum(len(side[a]) for side in mid["players"].values()
                  for a in ("deck", "hand", "graveyard", "banished", "extra_deck"))
    in_play += sum(1 for side in mid["players"].values() for a in ("monster_zones", "spell_trap_zones")
                   for z in side[a] if z) + sum(1 for side in mid["players"].values() if side["field_zone"])
    assert in_play >= 80
    synchro = GameState.from_dict(states["Synchro board"])
    assert any(a.type == "synchro_summon" for a in synchro.allowed_actions("fast"))
    assert "chain in progress" in states and skipped == {}


def test_the_states_are_the_examples_files():
    for name, filename in BENCH_STATES.items():
        assert example(filename).is_file(), filename
        assert GameState.load(example(filename)).to_dict() == bench_states()[0][name]


def test_run_bench_measures_and_renders():
    puzzle = [p for p in puzzle_files() if "01-mirror-force" in p]
    result = run_bench(reasoners=("fast",), repeats=3, duels=("simplified",), max_actions=20, puzzles=puzzle)
    fast = result["reasoners"]["fast"]
    assert set(fast["latency"]) == set(result["states"])
    for x in fast["latency"].values():
        assert x["samples"] == 3 and 0 < x["p50_ms"] <= x["p95_ms"]
    duel = fast["duels"][0]
    assert duel["actions"] > 0 and fast["peak_rss_mb"] > 0
    assert fast["evaluator"] == native.describe()  # (which evaluator ran, and why not the native one)
    assert duel["reasoner_runs"] > duel["actions"] and duel["forced_moves"] >= 0  # an action: its run, its state's run
    assert result["machine"]["cores"] and result["versions"]["python"]
    json.dumps(result)
    out = io.StringIO()
    render(result, Console(file=out, width=140))
    assert "allowed_actions latency" in out.getvalue() and "opening hand" in out.getvalue()
    # the speed targets, next to what was measured (the mid-game latency; no official duel in this run)
    assert "speed targets" in out.getvalue() and "allowed_actions p50 ms, mid-game state" in out.getvalue()
    assert "official random duel" not in out.getvalue()
    solved = fast["solve"]["puzzles"]
    assert [r["result"] for r in solved] == ["win"] and solved[0]["nodes"] > 0 and fast["solve"]["nodes_per_s"] > 0
    assert "nodes/s" in out.getvalue()


def test_the_script_prints_json(capsys):
    assert main(["--reasoners", "fast", "--repeats", "2", "--max-actions", "5", "--json", "--no-puzzles"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert list(data["reasoners"]) == ["fast"]


def test_a_duel_played_in_rounds_is_reported_by_its_median_round():
    rounds = [[{"ruleset": "official", "seconds": s, "ms_per_action": s * 10}] for s in (0.5, 0.2, 0.9)]
    (duel,) = _median_rounds(rounds)
    assert duel["seconds"] == 0.5 and duel["rounds"] == 3
    assert duel["round_seconds"] == [0.5, 0.2, 0.9] and duel["round_ms_per_action"] == [5.0, 2.0, 9.0]
    (duel,) = _median_rounds(rounds[:2])  # (an even number: the lower middle one)
    assert duel["seconds"] == 0.2


def test_rounds_below_one_are_refused():
    with pytest.raises(SystemExit) as exc:
        main(["--reasoners", "fast", "--rounds", "0", "--no-puzzles"])
    assert exc.value.code == 2
    with pytest.raises(ValueError, match="rounds"):
        run_bench(reasoners=("fast",), rounds=0)


def test_the_layer_profile_names_every_layer_it_times(monkeypatch):
    """scripts/profile_layers.py (the profile of docs/performance.md): its timers wrap functions that exist,
    and a short duel's table shows the reasoner runs and the layers inside them."""
    import importlib.util
    from pathlib import Path

    path = Path(__file__).resolve().parents[1] / "scripts" / "profile_layers.py"
    spec = importlib.util.spec_from_file_location("profile_layers", path)
    profile = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(profile)
    for label, owner, name in profile.LAYERS:  # (restored after the test: the timers wrap these)
        monkeypatch.setattr(owner, name, getattr(owner, name))
    try:
        got = profile.profile_duel("simplified", seed=3, max_actions=12)
        assert got["actions"] == 12 and got["seconds"] > 0
        layers = got["layers"]
        assert layers["reasoner runs (game.run_reasoner)"] <= got["seconds"]
        assert 0 < layers["  ABox from the state (abox.state_abox)"] < layers["reasoner runs (game.run_reasoner)"]
        out = io.StringIO()
        assert profile.main(["--ruleset", "simplified", "--seed", "3", "--max-actions", "12"],
                            console=Console(file=out, width=120)) == 0
        assert "reasoner runs" in out.getvalue() and "ms per action" in out.getvalue()
    finally:  # (the native engine's timed library out again)
        from ygo_onto.knowledge import knowledge
        from ygo_onto.reasoning.fast.compiler import compiled

        for ev in compiled(knowledge("simplified")).evaluators:
            if isinstance(getattr(ev, "_lib", None), profile._TimedLibrary):
                ev._lib = ev._lib._lib


def test_a_bad_reasoner_spec_or_commit_is_refused_before_anything_runs():
    for spec in ("fast@nothing", "fast@scratch", "fast@python"):  # (only an earlier commit's code is compared)
        with pytest.raises(ValueError, match="fast@issue10 or fast@git:REV"):
            run_bench(reasoners=("fast", spec), duels=())
    for rev in ("0000000000000000000000000000000000000000", "--output=x"):
        with pytest.raises(SystemExit) as exc:
            main(["--reasoners", f"fast,fast@git:{rev}", "--no-puzzles"])
        assert exc.value.code == 2


@pytest.mark.skipif(checkout_root() is None or shutil.which("git") is None,
                    reason="needs this package's git checkout (an earlier commit's code is read from its history)")
def test_an_earlier_commit_plays_the_same_duels_in_rounds_and_is_compared_per_action():
    found = subprocess.run(["git", "-C", str(checkout_root()), "cat-file", "-e", COMMIT_ALIASES["issue10"] + "^{commit}"],
                           capture_output=True)
    if found.returncode:
        pytest.skip("a shallow clone: commit 0018414 is not in the history")
    before = set(Path(tempfile.gettempdir()).glob("ygo-bench-commit-*"))
    result = run_bench(reasoners=("fast", "fast@issue10"), repeats=2, duels=("simplified",), max_actions=12,
                       rounds=2)
    old = result["reasoners"]["fast@issue10"]
    duel, fast = old["duels"][0], result["reasoners"]["fast"]["duels"][0]
    assert old["evaluator"].startswith("the code of commit 0018414") and duel["rounds"] == 2 and duel["actions"] > 0
    by_round = [f / o for f, o in zip(fast["round_ms_per_action"], duel["round_ms_per_action"])]
    assert old["speedup_over_fast"]["duels"]["simplified"] == pytest.approx(sum(by_round) / 2)
    assert set(Path(tempfile.gettempdir()).glob("ygo-bench-commit-*")) == before  # (its files removed)
    out = io.StringIO()
    render(result, Console(file=out, width=160))
    assert "fast@issue10" in out.getvalue() and "earlier commits" in out.getvalue()


@pytest.mark.skipif(checkout_root() is None or shutil.which("git") is None or native.library() is None,
                    reason="needs this package's git checkout and its compiled engine (a C compiler)")
def test_a_commit_whose_c_the_packaging_builds_runs_its_native_engine():
    """fast@git:REV of a commit whose setup.py compiles the C parts: they are built in its folder (as an editable
    install builds them), so its duels run its native engine, and its `evaluator` says so."""
    result = run_bench(reasoners=("fast@git:HEAD",), duels=("simplified",), max_actions=8)
    old = result["reasoners"]["fast@git:HEAD"]
    assert old["evaluator"] == "the code of commit HEAD: native" and old["duels"][0]["actions"] > 0


def test_goat_duels_are_timed_beside_the_official_duel():
    """Issue 27's bench: GOAT duels of the benchmark decks in the same run as the official duel, with the ratio
    of their cost per action to the official duel's as a target row, and turns per second in the duel table."""
    result = run_bench(reasoners=("fast",), repeats=1, duels=("official", "goat:chaos-control+warrior"),
                       max_actions=15, puzzles=())
    duels = {d["ruleset"]: d for d in result["reasoners"]["fast"]["duels"]}
    assert set(duels) == {"official", "goat:chaos-control+warrior"} and duels["goat:chaos-control+warrior"]["actions"] > 0
    out = io.StringIO()
    render(result, Console(file=out, width=200))
    text = out.getvalue()
    assert "goat:chaos-control+warrior" in text and "turns/s" in text
    ratio = duels["goat:chaos-control+warrior"]["ms_per_action"] / duels["official"]["ms_per_action"]
    assert "a goat duel's ms per action / the official duel's" in text and f"{ratio:.2f}" in text


def test_a_bench_process_loads_every_dueled_ruleset_before_its_duels(monkeypatch):
    """The first call loads the first state's ruleset; every other ruleset of the duels is loaded with it (its
    knowledge and fast evaluator), so that a duel's time holds its play and not its ruleset's loading."""
    from ygo_onto import bench

    loaded = []
    monkeypatch.setattr(bench, "_load", lambda ruleset, reasoner: loaded.append((ruleset, reasoner)))
    states, _ = bench_states()
    first = next(iter(states.values()))["ruleset"]
    bench._start("fast", states, ("official", "simplified", "goat:chaos-control+warrior", "goat:chaos-turbo+warrior"))
    assert first == "official" and loaded == [("simplified", "fast"), ("goat", "fast")]
