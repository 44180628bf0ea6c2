#!/usr/bin/env python
"""Write the YuGiOh_Game collection (the `simplified` catalog) as its two CSV files.

The course specification (seed 002, 1.1.1) keeps its 40 cards in two CSV files, one for monsters and
one for spells, and the project keeps them so (docs/rulesets.md, `simplified`, "Cards").  The cards' source stays the ontology
(ontology/cards-simplified.owl, docs/decisions.md "Editing in Protégé"); these files are written from it:

    python tools/collection_csv.py           # rewrite src/ygo_onto/data/yugioh-game-{monsters,spells}.csv
    python tools/collection_csv.py --check   # exit 1 if they are out of step with the catalog

tests/test_collection_csv.py runs the check.  The columns are the ones tools/import_cards_csv.py reads
(monsters: name, level, atk, def, description; spells: name, phases, activation, description), so the
files can be edited and imported back: python tools/import_cards_csv.py simplified MONSTERS SPELLS.
"""
from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from ygo_onto.cards import catalog  # noqa: E402

DATA = ROOT / "src" / "ygo_onto" / "data"
MONSTERS = DATA / "yugioh-game-monsters.csv"
SPELLS = DATA / "yugioh-game-spells.csv"


def _csv(header: list[str], rows: list[list]) -> str:
    out = io.StringIO()
    w = csv.writer(out, lineterminator="\n")
    w.writerow(header)
    w.writerows(rows)
    return out.getvalue()


def render() -> dict[Path, str]:
    cat = catalog("simplified")
    monsters = [[c.name, c.level, c.atk, c.defense, c.description] for c in cat if c.is_monster]
    spells = [[c.name, "|".join(c.phases), " ".join(c.activation), c.description] for c in cat if not c.is_monster]
    return {MONSTERS: _csv(["name", "level", "atk", "def", "description"], monsters),
            SPELLS: _csv(["name", "phases", "activation", "description"], spells)}


def main(argv: list[str]) -> int:
    rendered = render()
    if "--check" in argv:
        stale = [p for p, text in rendered.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
        for p in stale:
            print(f"{p.relative_to(ROOT)} is out of step with ontology/cards-simplified.owl: run python tools/collection_csv.py")
        return 1 if stale else 0
    for p, text in rendered.items():
        p.write_text(text, encoding="utf-8")
        print(p.relative_to(ROOT))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
