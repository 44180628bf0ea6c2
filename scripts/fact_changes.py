#!/usr/bin/env python
"""How much the reasoner's input and output change from one run to the next over fixed-seed duels: a count, not a
time, so steady on a shared machine.  `python scripts/fact_changes.py [--seed 1] [DUEL ...]` (DUEL: a bench duel,
`official`, `simplified` or `goat:DECK+DECK`; the bench's by default).

Per duel: the reasoner runs and, per run, the mean number of ABox facts added and removed against the run before
(the evaluator goes on from the previous model and works on that change) and of model facts added and removed; the
runs that show or hide a Deck's cards (abox.visible_decks) and their share of the model's change, per run of the duel.
`--top N` adds, per duel, the N predicates (a class or a property) whose model facts change most, with their share of
every model change and how many of them were in the ABox (asserted, not derived).
"""
from __future__ import annotations

import argparse
from collections import Counter

from ygo_onto import reasoning
from ygo_onto.abox import zone_ind
from ygo_onto.bench import DUELS, duel_spec
from ygo_onto.duel import new_duel, play_duel
from ygo_onto.state import PLAYERS

DECKS = frozenset(zone_ind(p, "deck") for p in PLAYERS)


def count(duel: str, seed: int) -> dict:
    backend = reasoning.get("fast")
    cls = type(backend)
    plain = cls.infer
    seen = {"runs": 0, "abox": 0, "model": 0, "last": (frozenset(), frozenset()), "decks": frozenset(), "toggles": 0,
            "toggled": 0}
    model_by, abox_by = Counter(), Counter()

    def infer(self, knowledge, facts):
        model = plain(self, knowledge, facts)
        abox, out = frozenset(facts), frozenset(model)
        before = seen["last"]
        seen["runs"] += 1
        changed_abox, changed = abox ^ before[0], out ^ before[1]
        seen["abox"] += len(changed_abox)
        seen["model"] += len(changed)
        # the Decks whose cards the ABox shows (abox.visible_decks): a run that shows or hides one, and its change
        decks = frozenset(f[2] for f in abox if f[0] == "placedIn" and f[2] in DECKS)
        if seen["runs"] > 1:  # (the first run's model is all new: not a change from one run to the next)
            model_by.update(f[0] for f in changed)
            abox_by.update(f[0] for f in changed_abox)
            if decks != seen["decks"]:
                seen["toggles"] += 1
                seen["toggled"] += len(changed)
        seen["decks"] = decks
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
            "model": seen["model"] / runs, "toggles": seen["toggles"], "toggled": seen["toggled"] / runs,
            "model_by": model_by, "abox_by": abox_by}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("duels", nargs="*", default=list(DUELS))
    ap.add_argument("--seed", type=int, default=1)
    ap.add_argument("--top", type=int, default=0, help="per duel, the N predicates whose model facts change most")
    args = ap.parse_args()
    print(f"{'duel':40} {'actions':>7} {'runs':>6} {'ABox +/- per run':>17} {'model +/- per run':>18}"
          f" {'Deck shown/hidden':>17} {'their model +/- per run':>23}")
    for duel in args.duels:
        r = count(duel, args.seed)
        print(f"{r['duel']:40} {r['actions']:7} {r['runs']:6} {r['abox']:17.1f} {r['model']:18.1f}"
              f" {r['toggles']:17} {r['toggled']:23.1f}")
        total = sum(r["model_by"].values()) or 1
        for pred, n in r["model_by"].most_common(args.top):
            print(f"    {pred:44} {n / max(r['runs'], 1):7.2f} per run {100 * n / total:5.1f}%"
                  f"  (ABox {r['abox_by'][pred] / max(r['runs'], 1):.2f})")


if __name__ == "__main__":
    main()
