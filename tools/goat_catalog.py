#!/usr/bin/env python
"""Write the `goat` ruleset's card data from the GOAT format pack (src/ygo_onto/data/goat/, a copy of
the pack's cards.csv, cards.md and forbidden-and-limited.md):

- ontology/cards-goat.owl: the 110 cards as OWL classes (the catalog the engine reads);
- src/ygo_onto/data/goat/forbidden-and-limited.json: the format's list (`ygo-onto deck check` reads it).

    python tools/goat_catalog.py                 # from src/ygo_onto/data/goat/
    python tools/goat_catalog.py --pack DIR      # from another copy of the pack (copies its files in first)
    python tools/goat_catalog.py --check         # exit 1 if the written files are out of step

What each card gets:
- its facts from cards.csv (kind, Attribute, Type, Level, ATK/DEF, passcode, Fusion materials);
- its aliases: the pack's other name (`also_known_as`) and the ids the GOAT list names it by
  (`goat_list_id`: a GOAT or pre-errata version id), so a .ydk written for an EDOPro client in GOAT
  mode reads too;
- its rules description: the card's entry of cards.md (the pack's own words), without its facts and
  deck lines, as one paragraph;
- "cannot be Normal Summoned or Set" (cards.md's Summoning line) as special_summon_only, and so every Fusion
  Monster (rulebook p. 15: a Fusion Monster is a Special Summon Monster, revived only once properly Summoned);
- where the official catalog has the same card (the same OWL class name), the fields the official
  rules read of it (its activation's requirements, phases, staying on the field, an optional effect)
  and the effects it names (the official file's Effect and CardFilter individuals, copied into the goat
  namespace), so the official card rules and effect kinds play it in `goat` as they do in `official`;
- where src/ygo_onto/data/goat/effects/CLASS.ttl exists (CLASS: the card's class name), what that file
  says of the card instead: Turtle triples on the card's class (`goat:CLASS ygo:cardEffect goat:CLASSEffect;
  ygo:cardActivation "chooseOneTarget"`, any annotation the loader reads) and the named individuals its
  effects are (an Effect, its CardFilter). The card is read back as the engine reads a catalog class
  (ontofile.cards_from_graph), so a file that says something the loader refuses fails here, naming it.

The tokens the cards Special Summon (a SpecialSummonTokensEffect's tokenKind) are classes of the catalog too, under
ygo:Token: src/ygo_onto/data/goat/tokens/CLASS.ttl says the whole class (label, Level, ATK/DEF, Attribute, Type,
abilities), since no row of cards.csv has a token (it is not a card).
"""
from __future__ import annotations

import argparse
import csv
import json
import re
import shutil
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT / "src"))

from ygo_onto.cards import CATALOG_BASE, Card, catalog, catalog_file, catalog_owl_text, class_name  # noqa: E402

PACK = ROOT / "src" / "ygo_onto" / "data" / "goat"
EFFECTS = PACK / "effects"  # a card's effects as data: CLASS.ttl (module docstring)
TOKENS = PACK / "tokens"  # the tokens the pack's cards Special Summon: CLASS.ttl, a whole class under ygo:Token
PACK_FILES = ("README.md", "cards.csv", "cards.md", "decks.json", "forbidden-and-limited.md")
FORMAT_LIST = PACK / "forbidden-and-limited.json"

KINDS = {  # cards.csv `kind` -> (card_type, subtype, flip)
    "Effect Monster": ("monster", "effect", False), "Spirit Monster": ("monster", "effect", False),
    "Flip Effect Monster": ("monster", "effect", True), "Fusion Monster": ("monster", "fusion", False),
    "Normal Spell": ("spell", "normal", False), "Quick-Play Spell": ("spell", "quick_play", False),
    "Continuous Spell": ("spell", "continuous", False), "Equip Spell": ("spell", "equip", False),
    "Field Spell": ("spell", "field", False), "Ritual Spell": ("spell", "ritual", False),
    "Normal Trap": ("trap", "normal", False), "Continuous Trap": ("trap", "continuous", False),
    "Counter Trap": ("trap", "counter", False),
}
# what the official rules read of a card the official catalog has too
PLAY_FIELDS = ("activation", "phases", "stays_on_field", "optional_effect", "special_summon_only", "italian_name",
               "effects")
SPECIAL_ONLY = "cannot be Normal Summoned or Set"
EFFECT_BIT = 0x20  # cards.csv edopro_type: TYPE_EFFECT (a monster without it has no effect: a Fusion of materials alone)


def _entries(md: str) -> dict[int, str]:
    """cards.md: passcode -> the entry's rules description as one paragraph (facts and deck lines left out:
    the catalog has the facts; the decks are the pack's)."""
    out = {}
    for m in re.finditer(r"^### (.+?) \((\d+)\)[^\n]*\n(.*?)(?=^#{2,3} |\Z)", md, re.M | re.S):
        lines = []
        for line in m.group(3).splitlines():
            text = line.strip()
            if not text or re.match(r"- \*\*(Card|Decks|List id):\*\*", text):
                continue
            text = re.sub(r"^- ", "", text).replace("**", "").replace("*", "")
            lines.append(text)
        out[int(m.group(2))] = " ".join(lines)
    return out


def _materials(text: str, where: str) -> tuple[str, ...]:
    out: list[str] = []
    for part in filter(None, (p.strip() for p in text.split("+"))):
        m = re.fullmatch(r"(.+?) x(\d+)", part)
        if not m:
            raise SystemExit(f"{where}: fusion_materials: expected 'NAME xN + ...', got {text!r}")
        out += [m.group(1)] * int(m.group(2))
    return tuple(out)


def _int(value: str, where: str) -> int | None:
    if value == "":
        return None
    if not value.isdigit():  # "?" : no card of the pack has one; the engine needs a number
        raise SystemExit(f"{where}: expected a number, got {value!r}")
    return int(value)


def goat_cards(pack: Path) -> list[Card]:
    """The catalog entries of the pack's cards, in cards.csv's order."""
    rows = list(csv.DictReader((pack / "cards.csv").open(encoding="utf-8")))
    texts = _entries((pack / "cards.md").read_text(encoding="utf-8"))
    official = catalog("official")
    cards = []
    for i, row in enumerate(rows, start=2):
        where = f"{pack / 'cards.csv'}:{i}"
        if row["kind"] not in KINDS:
            raise SystemExit(f"{where}: kind: expected one of {', '.join(KINDS)}, got {row['kind']!r}")
        card_type, subtype, flip = KINDS[row["kind"]]
        passcode = int(row["passcode"])
        description = texts.get(passcode)
        if description is None:
            raise SystemExit(f"{pack / 'cards.md'}: expected an entry '### {row['name']} ({passcode})', got none")
        aliases = [a for a in (row["also_known_as"],) if a]
        aliases += [i for i in row["goat_list_id"].split(";") if i and i != row["passcode"]]
        fields = dict(name=row["name"], card_type=card_type, subtype=subtype, flip=flip, passcode=passcode,
                      aliases=tuple(aliases), description=description)
        if card_type == "monster":
            fields.update(level=_int(row["level"], where), atk=_int(row["atk"], where),
                          defense=_int(row["def"], where), attribute=row["attribute"],
                          monster_type=row["monster_type"],
                          materials=_materials(row["fusion_materials"], where),
                          special_summon_only=SPECIAL_ONLY in description or subtype == "fusion",
                          no_effect=not int(row["edopro_type"], 16) & EFFECT_BIT)
        if (EFFECTS / f"{class_name(row['name'])}.ttl").is_file():
            pass  # its own effect file says how it plays (effect_files)
        elif row["name"] in official and official.get(row["name"]).class_name == class_name(row["name"]):
            same = official.get(row["name"])
            fields.update({f: getattr(same, f) for f in PLAY_FIELDS if getattr(same, f)})
        cards.append(Card(**fields))
    return cards


def shared_individuals(cards: list[Card]) -> list[tuple]:
    """The triples of the official card file's named individuals that the cards' effects reach (an Effect, its
    CardFilter), their IRIs moved from the official card namespace into the goat one."""
    from rdflib import Graph, URIRef
    from rdflib.namespace import OWL, RDF

    official, goat = CATALOG_BASE + "official#", CATALOG_BASE + "goat#"
    g = Graph()
    g.parse(catalog_file("official"), format="xml")
    named = {s for s in g.subjects(RDF.type, OWL.NamedIndividual) if str(s).startswith(official)}

    def moved(t):
        return URIRef(goat + str(t)[len(official):]) if t in named else t

    todo = [URIRef(official + e) for c in cards for e in c.effects]
    seen: set = set()
    out = []
    while todo:
        s = todo.pop()
        if s in seen or s not in named:
            continue
        seen.add(s)
        for p, o in g.predicate_objects(s):
            out.append((moved(s), p, moved(o)))
            todo.append(o)
    return sorted(out)


def effect_files(cards: list[Card]) -> tuple[list[Card], list[tuple]]:
    """The cards with what their effect files (EFFECTS/CLASS.ttl) add to their classes, and the files' named
    individuals' triples. A file may speak of its own card's class and of individuals of the goat namespace."""
    from rdflib import Graph, Namespace
    from rdflib.namespace import OWL, RDF

    from ygo_onto.errors import StateError
    from ygo_onto.ontofile import card_triples, cards_from_graph

    ns = Namespace(CATALOG_BASE + "goat#")
    by_class = {c.class_name: c for c in cards}
    out_cards, individuals = list(cards), []
    for path in sorted(EFFECTS.glob("*.ttl")):
        where = path.relative_to(ROOT)
        card = by_class.get(path.stem)
        if card is None:
            raise SystemExit(f"{where}: expected the class name of a card of cards.csv, got {path.stem!r}")
        g = Graph()
        try:
            g.parse(path, format="turtle")
        except Exception as e:  # rdflib raises several kinds on bad Turtle
            raise SystemExit(f"{where}: not Turtle: {e}") from None
        named = set(g.subjects(RDF.type, OWL.NamedIndividual))
        for s, p, o in g:
            if s != ns[card.class_name] and s not in named:
                raise SystemExit(f"{where}: a triple about {s}: expected the card's class {ns[card.class_name]} "
                                 f"or a named individual of the file")
            if s in named and not str(s).startswith(str(ns)):
                raise SystemExit(f"{where}: individual {s}: expected an IRI of the goat namespace {ns}")
        whole = Graph()
        for t in card_triples(card, ns):
            whole.add(t)
        for t in g.triples((ns[card.class_name], None, None)):
            whole.add(t)
        try:
            (read,) = cards_from_graph(whole, "goat")
        except StateError as e:
            raise SystemExit(f"{where}: {e}") from None
        missing = [e for e in read.effects if ns[e] not in named]
        if missing:
            raise SystemExit(f"{where}: ygo:cardEffect {', '.join(missing)}: expected a named individual of the file")
        out_cards[out_cards.index(card)] = read
        individuals += [t for t in g if t[0] in named]
    return out_cards, individuals


def token_files() -> list[Card]:
    """The token classes of TOKENS/CLASS.ttl, read as the engine reads a catalog class: each a subclass of ygo:Token."""
    from rdflib import Graph

    from ygo_onto.errors import StateError
    from ygo_onto.ontofile import cards_from_graph

    out = []
    for path in sorted(TOKENS.glob("*.ttl")):
        where = path.relative_to(ROOT)
        g = Graph()
        try:
            g.parse(path, format="turtle")
        except Exception as e:  # rdflib raises several kinds on bad Turtle
            raise SystemExit(f"{where}: not Turtle: {e}") from None
        try:
            read = cards_from_graph(g, "goat")
        except StateError as e:
            raise SystemExit(f"{where}: {e}") from None
        if len(read) != 1 or not read[0].is_token or read[0].class_name != path.stem:
            raise SystemExit(f"{where}: expected one class {path.stem} under ygo:Token, got "
                             f"{', '.join(c.class_name + ' (' + c.kind_label + ')' for c in read) or 'none'}")
        out.append(read[0])
    return out


def check_token_kinds(cards: list[Card], individuals: list[tuple]) -> None:
    """Every SpecialSummonTokensEffect of an effect file gives its tokenKind, tokenCount and summonLockThisTurn, and
    every tokenKind names a token class of the catalog."""
    from rdflib.namespace import RDF

    tokens = {c.name for c in cards if c.is_token}
    kinds = {s for s, p, o in individuals if p == RDF.type and str(o).endswith("#SpecialSummonTokensEffect")}
    for effect in sorted(kinds):
        given = {str(p).rsplit("#", 1)[-1] for s, p, o in individuals if s == effect}
        missing = [t for t in ("tokenKind", "tokenCount", "summonLockThisTurn") if t not in given]
        if missing:
            raise SystemExit(f"{effect}: a SpecialSummonTokensEffect needs ygo:{', ygo:'.join(missing)}, got none")
    for s, p, o in individuals:
        if str(p).endswith("#tokenKind") and str(o) not in tokens:
            raise SystemExit(f"{s}: ygo:tokenKind: expected the name of a token of {TOKENS.relative_to(ROOT)} "
                             f"({', '.join(sorted(tokens)) or 'none'}), got {str(o)!r}")


def format_list(pack: Path, cards: list[Card]) -> dict:
    """forbidden-and-limited.md as data: every listed card with its passcode, list ids and limit;
    checked against cards.csv's goat_limit for the pool's cards."""
    text = (pack / "forbidden-and-limited.md").read_text(encoding="utf-8")
    limits = {"Forbidden": 0, "Limited": 1, "Semi-limited": 2}
    listed, section = [], None
    for line in text.splitlines():
        m = re.match(r"## (Forbidden|Limited|Semi-limited) \(", line)
        if m:
            section = limits[m.group(1)]
            continue
        if line.startswith("## "):
            section = None
        m = re.match(r"\| (.+?) \| (\d+) \| (.*?) \|$", line)
        if section is not None and m:
            ids = re.findall(r"\d+", m.group(3))
            listed.append({"name": m.group(1), "passcode": int(m.group(2)), "list_ids": [int(i) for i in ids],
                           "limit": section})
    rows = {int(r["passcode"]): int(r["goat_limit"])
            for r in csv.DictReader((pack / "cards.csv").open(encoding="utf-8"))}
    by_code = {e["passcode"]: e["limit"] for e in listed}
    for card in (c for c in cards if not c.is_token):  # a token is not a card: no Deck holds it
        if by_code.get(card.passcode, 3) != rows[card.passcode]:
            raise SystemExit(f"{card.name}: forbidden-and-limited.md says {by_code.get(card.passcode, 3)}, "
                             f"cards.csv's goat_limit {rows[card.passcode]}")
    return {"list": "GOAT (April 2005 TCG)", "default_limit": 3,
            "source": "the GOAT format pack's forbidden-and-limited.md (tools/goat_catalog.py)",
            "pool": "the cards of the goat catalog (ontology/cards-goat.owl)", "cards": listed}


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pack", type=Path, help="a copy of the GOAT pack to copy into src/ygo_onto/data/goat/ first")
    ap.add_argument("--check", action="store_true", help="exit 1 if the written files are out of step")
    args = ap.parse_args(argv)
    if args.pack and not args.check:
        for name in PACK_FILES:
            shutil.copyfile(args.pack / name, PACK / name)
    cards, own = effect_files(goat_cards(PACK))
    cards += token_files()
    check_token_kinds(cards, own)
    outputs = {catalog_file("goat"): catalog_owl_text("goat", cards, sorted(set(shared_individuals(cards)) | set(own))),
               FORMAT_LIST: json.dumps(format_list(PACK, cards), indent=1, ensure_ascii=False) + "\n"}
    stale = [p for p, text in outputs.items() if not p.is_file() or p.read_text(encoding="utf-8") != text]
    if args.check:
        for p in stale:
            print(f"{p}: out of step with {PACK} (run python tools/goat_catalog.py)")
        return 1 if stale else 0
    for p, text in outputs.items():
        p.write_text(text, encoding="utf-8")
        print(f"wrote {p.relative_to(ROOT)}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
