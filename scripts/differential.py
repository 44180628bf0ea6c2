#!/usr/bin/env python
"""Differential testing on demand: fast vs Pellet on thousands of reasoner inputs.

    python scripts/differential.py --states 2000 --seed 100 --ruleset both

Plays random duels (seeds SEED, SEED+1, ...) with the fast backend, keeps N distinct inputs
(states, and with --steps also apply steps: a state plus an action's transient facts), runs
each through both backends (Pellet warm and joined as in tests/test_differential.py), and
writes every input on which they differ to tests/fixtures/differential/ (which the test
replays on every run).  --scenarios and --fixtures add those inputs too.  Exit status 1 when
a difference was found.
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent


def main(argv=None) -> int:
    from rich.console import Console
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

    from ygo_onto.testing import differential as D

    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--states", type=int, default=1000, help="distinct playout inputs to compare (default 1000)")
    ap.add_argument("--seed", type=int, default=1000, help="first duel seed (default 1000; CI uses 0...)")
    ap.add_argument("--ruleset", choices=("official", "simplified", "both"), default="both")
    ap.add_argument("--steps", type=float, default=0.3,
                    help="share of apply-step inputs among the playout inputs (default 0.3)")
    ap.add_argument("--scenarios", action="store_true", help="also every rule scenario's state")
    ap.add_argument("--fixtures", action="store_true", help="also the saved failures")
    ap.add_argument("--workers", type=int, default=None, help="Pellet worker processes (default: cores)")
    ap.add_argument("--batch", type=int, default=8, help="inputs per joined Pellet run (1: no joining)")
    ap.add_argument("--cold", action="store_true", help="a new Java process per Pellet run (the plain reference)")
    ap.add_argument("--confirm", type=int, default=10,
                    help="differences re-run with a plain Pellet run before they are written (default 10)")
    ap.add_argument("--out", type=Path, default=ROOT / "tests" / "fixtures" / "differential",
                    help="where failures are written (default tests/fixtures/differential)")
    args = ap.parse_args(argv)
    console = Console(stderr=True)
    rulesets = D.RULESETS if args.ruleset == "both" else (args.ruleset,)

    t0 = time.perf_counter()
    base: list = []
    if args.fixtures:
        base += D.fixture_cases(args.out)
    if args.scenarios:
        base += [c for c in D.scenario_cases(ROOT / "tests" / "scenarios") if c.ruleset in rulesets]
    base = [c for c in D.dedupe(base) if c.ruleset in rulesets]
    n_steps = round(args.states * args.steps)
    n_states = args.states - n_steps
    errors: list[str] = []
    with console.status(f"playing random duels for {args.states} distinct inputs ..."):
        cases = base + D.sample_playouts(n_states, n_steps, seed=args.seed, rulesets=rulesets,
                                         exclude={c.key() for c in base}, errors=errors)
    console.print(f"{len(cases)} inputs ({sum(1 for c in cases if c.transient)} apply steps) "
                  f"in {time.perf_counter() - t0:.0f} s")
    for e in errors:
        console.print(f"[yellow]engine error while playing[/] {e}")

    failures = []
    columns = (TextColumn("[progress.description]{task.description}"), BarColumn(), MofNCompleteColumn(),
               TextColumn("{task.fields[bad]} differ"), TimeElapsedColumn(), TimeRemainingColumn())
    t1 = time.perf_counter()
    with D.PelletPool(args.workers, warm=not args.cold) as pool, Progress(*columns, console=console) as progress:
        task = progress.add_task("fast vs pellet", total=len(cases), bad=0)

        def step(o):
            if not o.same:
                failures.append(o)
                progress.console.print(f"[red]differ[/] {o.case.name}")
            progress.update(task, advance=1, bad=len(failures))

        outcomes = D.compare(cases, pool, step, batch=args.batch)
    elapsed = time.perf_counter() - t1
    joined = sum(1 for o in outcomes if o.joined > 1)
    console.print(f"{len(outcomes)} inputs compared in {elapsed:.0f} s ({elapsed / max(len(outcomes), 1):.2f} s each; "
                  f"{pool.runs} Pellet runs, {joined} inputs answered by joined runs): {len(failures)} differ")
    if failures and args.confirm:
        n = min(args.confirm, len(failures))
        console.print(f"confirming {n} difference(s) with plain Pellet runs (a new java process each) ...")
        failures = [D.confirm_cold(o) for o in failures[:n]] + failures[n:]
    for o in failures:
        if o.same:
            console.print(f"[yellow]{o.case.name}: the plain Pellet run agrees with fast; the warm one did not[/]")
        else:
            path = D.save_failure(o, args.out)
            console.print(o.report())
            console.print(f"  saved as {path}")
    return 1 if any(not o.same or o.warm_disagrees for o in failures) else 0


if __name__ == "__main__":
    sys.exit(main())
