#!/usr/bin/env python
"""Import cards from CSV tables into a catalog file of ontology/ (cards-RULESET.owl).

The cards' source is the ontology (ontology/cards-official.owl, ontology/cards-simplified.owl,
edited in Protégé).  This tool wrote those files once from the CSV tables that used to be the
source (git history: src/ygo_onto/data/*.csv) and stays as a table import: cards of a CSV
replace the cards of the same name, new ones are added at the end.

    python tools/import_cards_csv.py official cards.csv [--out FILE]
    python tools/import_cards_csv.py simplified monsters.csv spells.csv [--out FILE]

Columns (official): name, italian_name, aliases (|), passcode, card_type, subtype, attribute,
monster_type, level, atk, def, tuner, special_summon_only, flip, materials (' + '),
ritual_monster, stays_on_field, activation (space separated), optional_effect, description.
Simplified: a monsters table (name, level, atk, def, description) and a spells table
(name, phases (|), activation, description); a table is recognised by its columns.
"""
from __future__ import annotations

import argparse
import csv
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from ygo_onto.cards import Card, catalog_file, catalog_owl_text, read_catalog_file  # noqa: E402
from ygo_onto.errors import StateError  # noqa: E402


def _int(value: str) -> int | None:
    return int(value) if value not in ("", None) else None


def _bool(value: str) -> bool:
    return (value or "").strip().lower() == "true"


def cards_of(path: Path, ruleset: str) -> list[Card]:
    with path.open(encoding="utf-8", newline="") as f:
        rows = list(csv.DictReader(f))
    out = []
    for number, r in enumerate(rows, 2):
        try:
            if ruleset == "official":
                out.append(Card(name=r["name"], card_type=r["card_type"], subtype=r["subtype"], level=_int(r["level"]),
                                atk=_int(r["atk"]), defense=_int(r["def"]), attribute=r["attribute"] or None,
                                monster_type=r["monster_type"] or None, tuner=_bool(r["tuner"]),
                                special_summon_only=_bool(r["special_summon_only"]), flip=_bool(r["flip"]),
                                materials=tuple(m.strip() for m in r["materials"].split(" + ") if m.strip()),
                                ritual_monster=r["ritual_monster"] or None, italian_name=r["italian_name"] or None,
                                aliases=tuple(a for a in r["aliases"].split("|") if a), passcode=_int(r["passcode"]),
                                stays_on_field=_bool(r["stays_on_field"]), activation=tuple(r["activation"].split()),
                                optional_effect=_bool(r["optional_effect"]), description=r["description"]))
            elif "phases" in r:
                out.append(Card(name=r["name"], card_type="spell", subtype="normal",
                                phases=tuple(r["phases"].split("|")), activation=tuple(r["activation"].split()),
                                description=r["description"]))
            else:
                out.append(Card(name=r["name"], card_type="monster", subtype="normal", level=int(r["level"]),
                                atk=int(r["atk"]), defense=int(r["def"]), description=r["description"]))
        except (KeyError, ValueError) as exc:
            raise SystemExit(f"{path}:{number}: expected the {ruleset} columns, got {type(exc).__name__}: {exc}")
    return out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("ruleset", choices=("official", "simplified"))
    ap.add_argument("csv", nargs="+", type=Path)
    ap.add_argument("--out", type=Path, help="the catalog file to write (default: ontology/cards-RULESET.owl)")
    ap.add_argument("--replace", action="store_true", help="the tables are the whole catalog (no card of the file kept)")
    args = ap.parse_args(argv)
    out = args.out or catalog_file(args.ruleset)
    cards: list[Card] = []
    triples: list = []  # (the file's individuals, kept: a card's Effect and its CardFilter)
    if out.is_file() and not args.replace:
        try:
            cards, triples = read_catalog_file(out, args.ruleset, cache=False)
        except StateError as exc:
            print(exc, file=sys.stderr)
            return 2
    for path in args.csv:
        for card in cards_of(path, args.ruleset):
            cards = [c for c in cards if c.name != card.name] + [card] if all(c.name != card.name for c in cards) \
                else [card if c.name == card.name else c for c in cards]
    out.write_text(catalog_owl_text(args.ruleset, cards, triples), encoding="utf-8")
    print(f"{out}: {len(cards)} cards")
    return 0


if __name__ == "__main__":
    sys.exit(main())
