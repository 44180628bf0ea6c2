#!/usr/bin/env python
"""The records of random duels, to check that a change to the apply loop keeps behaviour exactly:
`PYTHONPATH=TREE/src python scripts/duel_records.py OUT.json [--seeds 1-5]`, once per tree, then `cmp` the files.

A record is, per official and simplified duel of each seed (random agents, fast): the start state and its
allowed actions, then per action the action, the state it led to (key order kept) and its allowed actions.
"""
from __future__ import annotations

import argparse
import hashlib
import json

from ygo_onto.duel import new_duel, play_duel


def records(seeds) -> dict:
    out = {}
    for ruleset in ("official", "simplified"):
        for seed in seeds:
            s = new_duel(ruleset, seed, "fast")
            rec = [s.to_dict(), [a.to_dict() for a in s.allowed_actions("fast")]]
            for _, action, nxt in play_duel(s, ("random", "random"), seed=seed, reasoner="fast"):
                rec += [action.to_dict(), nxt.to_dict(),
                        [a.to_dict() for a in nxt.allowed_actions("fast")] if nxt.winner is None else None]
            out[f"{ruleset}{seed}"] = rec
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("out")
    ap.add_argument("--seeds", default="1-5", help="first-last")
    args = ap.parse_args()
    first, last = map(int, args.seeds.split("-"))
    text = json.dumps(records(range(first, last + 1)))  # (no sort_keys: a state's key order is part of it)
    with open(args.out, "w", encoding="utf-8") as f:
        f.write(text)
    print(hashlib.sha256(text.encode()).hexdigest())


if __name__ == "__main__":
    main()
