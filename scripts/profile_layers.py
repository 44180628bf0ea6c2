#!/usr/bin/env python
"""Where a duel's time goes, layer by layer:
`python scripts/profile_layers.py [--ruleset official] [--seed 1] [--max-actions N] [--fresh]`.

Timers around the apply loop's layers (no profiler slowing the rest down), for one random duel after a
warm-up duel: each layer's ms per action and its share of the duel.  Layers nest (the evaluator's run is
inside a reasoner run; C inside the evaluator's run), so shares do not add up to 100%.  With --fresh,
the same for `allowed_actions` on the bench's mid-game state, after another state was reasoned about
(as `ygo-onto bench` measures it).  The numbers of docs/performance.md ("Where a duel's time goes") come from it.
"""
from __future__ import annotations

import argparse
import statistics
import sys
import time
from collections import Counter

from rich.console import Console
from rich.table import Table

from ygo_onto import game
from ygo_onto.reasoning.fast import evaluator, infer, native

# (label, module or class, attribute): the layers, outermost first
LAYERS = [
    ("reasoner runs (game.run_reasoner)", game, "run_reasoner"),
    ("  ABox from the state (abox.state_abox)", game, "state_abox"),
    ("  ABox into the evaluator's relations (facts._abox)", infer, "_abox"),
    ("  evaluator run, native, the ABox as bundles (NativeEvaluator.run_bundles)", native.NativeEvaluator,
     "run_bundles"),
    ("  evaluator run, native, the ABox as sets (NativeEvaluator.run)", native.NativeEvaluator, "run"),
    ("  evaluator run, Python (_Evaluator.run)", evaluator._Evaluator, "run"),
    ("  reading facts back (infer._read_evaluator)", infer, "_read_evaluator"),
    ("carrying out operations (apply_operations)", game, "apply_operations"),
    ("allowed actions (allowed_from_facts)", game, "allowed_from_facts"),
    ("forced-move check (game._forced_move)", game, "_forced_move"),
    ("state copy (copy_state)", game, "copy_state"),
]
C_CALLS = ("ng_state", "ng_state_buf", "ng_update", "ng_extend")  # the native library's runs and state changes
C_LABEL = "    C: the native engine's runs (and ng_state)"


SPENT: Counter = Counter()  # label -> seconds, while the timers are installed


def _timed(owner, name: str, label: str) -> None:
    real = getattr(owner, name)

    def timed(*args, **kwargs):
        start = time.perf_counter()
        try:
            return real(*args, **kwargs)
        finally:
            SPENT[label] += time.perf_counter() - start

    timed.profiled = True
    setattr(owner, name, timed)


class _TimedLibrary:
    """The native library with its run calls timed (the other calls pass through)."""

    def __init__(self, lib):
        self._lib = lib

    def __getattr__(self, name):
        real = getattr(self._lib, name)
        if name not in C_CALLS:
            return real

        def timed(*args):
            start = time.perf_counter()
            try:
                return real(*args)
            finally:
                SPENT[C_LABEL] += time.perf_counter() - start

        return timed


def install_timers(ruleset: str) -> None:
    """Timers around LAYERS and the native engine's runs of the ruleset's evaluators (once)."""
    from ygo_onto.knowledge import knowledge
    from ygo_onto.reasoning.fast.compiler import compiled

    for label, owner, name in LAYERS:
        if not getattr(getattr(owner, name), "profiled", False):
            _timed(owner, name, label)
    for ev in compiled(knowledge(ruleset)).evaluators:
        if isinstance(ev, native.NativeEvaluator) and not isinstance(ev._lib, _TimedLibrary):
            ev._lib = _TimedLibrary(ev._lib)


def profile_duel(ruleset: str = "official", seed: int = 1, max_actions: int = 2000) -> dict:
    """{"actions", "seconds", "layers": {label: seconds}} of one random duel (bench.measure_duel, after a
    warm-up duel)."""
    from ygo_onto.bench import measure_duel

    measure_duel(ruleset, "fast", seed, max_actions)  # warm-up: compile, load, first runs
    install_timers(ruleset)
    SPENT.clear()
    got = measure_duel(ruleset, "fast", seed, max_actions)
    return {"actions": got["actions"], "seconds": got["seconds"], "layers": dict(SPENT)}


def profile_fresh(samples: int = 40) -> dict:
    """{"p50_ms", "mean_ms", "layers": {label: mean seconds}} of allowed_actions on the bench's mid-game
    state, each sample after the Synchro board state was reasoned about (as `ygo-onto bench` measures it)."""
    from ygo_onto.bench import bench_states
    from ygo_onto.game import GameState

    states, _ = bench_states()
    mid, other = states["mid-game (84 cards)"], states["Synchro board"]
    GameState.from_dict(mid).allowed_actions("fast")
    install_timers("official")
    totals: Counter = Counter()
    times = []
    for _ in range(samples):
        GameState.from_dict(other).allowed_actions("fast")
        state = GameState.from_dict(mid)
        SPENT.clear()
        start = time.perf_counter()
        state.allowed_actions("fast")
        times.append(time.perf_counter() - start)
        totals.update(SPENT)
    return {"p50_ms": statistics.median(times) * 1000, "mean_ms": statistics.mean(times) * 1000,
            "layers": {k: v / samples for k, v in totals.items()}}


def _table(title: str, rows: list[tuple[str, float, float]], unit: str) -> Table:
    table = Table(title=title)
    table.add_column("layer")
    table.add_column(unit, justify="right")
    table.add_column("share", justify="right")
    for label, value, share in rows:
        table.add_row(label, f"{value:.3f}", f"{share:.0%}")
    return table


def main(argv: list[str] | None = None, console: Console | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--ruleset", default="official", choices=("official", "simplified"))
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--max-actions", type=int, default=2000)
    parser.add_argument("--fresh", action="store_true", help="also allowed_actions on a fresh mid-game state")
    args = parser.parse_args(argv)
    console = console or Console()
    order = [label for label, _, _ in LAYERS[:6]] + [C_LABEL] + [label for label, _, _ in LAYERS[6:]]
    got = profile_duel(args.ruleset, args.seed, args.max_actions)
    n, total = max(got["actions"], 1), got["seconds"]
    rows = [(label, got["layers"][label] * 1000 / n, got["layers"][label] / total) for label in order
            if got["layers"].get(label)]
    console.print(_table(f"{args.ruleset} random duel, seed {args.seed}: {got['actions']} actions, "
                         f"{total * 1000 / n:.2f} ms per action", rows, "ms per action"))
    if args.fresh:
        fresh = profile_fresh()
        mean = fresh["mean_ms"] / 1000
        rows = [(label, fresh["layers"][label] * 1000, fresh["layers"][label] / mean) for label in order
                if fresh["layers"].get(label)]
        console.print(_table(f"allowed_actions on a fresh mid-game state: p50 {fresh['p50_ms']:.2f} ms, "
                             f"mean {fresh['mean_ms']:.2f} ms", rows, "ms (mean)"))
    return 0


if __name__ == "__main__":
    sys.exit(main())
