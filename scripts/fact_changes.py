#!/usr/bin/env python
"""How much the reasoner's input and output change from one run to the next over fixed-seed duels: a count, not a
time, so steady on a shared machine.  `python scripts/fact_changes.py [--seed 1] [DUEL ...]` (DUEL: a bench duel,
`official`, `simplified` or `goat:DECK+DECK`; the bench's by default).

Per duel: the reasoner runs and, per run, the mean number of ABox facts added and removed against the run before
(the evaluator goes on from the previous model and works on that change) and of model facts added and removed.
"""
from __future__ import annotations

import argparse

from ygo_onto import reasoning
from ygo_onto.bench import DUELS, duel_spec
from ygo_onto.duel import new_duel, play_duel


def count(duel: str, seed: int) -> dict:
    backend = reasoning.get("fast")
    cls = type(backend)
    plain = cls.infer
    seen = {"runs": 0, "abox": 0, "model": 0, "last": (frozenset(), frozenset())}

    def infer(self, knowledge, facts):
        model = plain(self, knowledge, facts)
        abox, out = frozenset(facts), frozenset(model)
        before = seen["last"]
        seen["runs"] += 1
        seen["abox"] += len(abox ^ before[0])
        seen["model"] += len(out ^ before[1])
        seen["last"] = (abox, out)
        return model

    cls.infer = infer
    try:
        name, decks = duel_spec(duel)
        state = new_duel(name, seed, "fast", decks=decks)
        actions = sum(1 for _ in play_duel(state, ("random", "random"), seed=seed, reasoner="fast"))
    finally:
        cls.infer = plain
    runs = max(seen["runs"], 1)
    return {"duel": duel, "actions": actions, "runs": seen["runs"], "abox": seen["abox"] / runs,
            "model": seen["model"] / runs}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("duels", nargs="*", default=list(DUELS))
    ap.add_argument("--seed", type=int, default=1)
    args = ap.parse_args()
    print(f"{'duel':40} {'actions':>7} {'runs':>6} {'ABox +/- per run':>17} {'model +/- per run':>18}")
    for duel in args.duels:
        r = count(duel, args.seed)
        print(f"{r['duel']:40} {r['actions']:7} {r['runs']:6} {r['abox']:17.1f} {r['model']:18.1f}")


if __name__ == "__main__":
    main()
