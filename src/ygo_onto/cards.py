"""The card catalogs: the official catalog and the simplified ruleset's 40-card collection.

Card facts live in CSV files under ygo_onto/data; this module only reads them.  Each card
becomes an OWL class in the loaded ontology (see knowledge.py), so adding a card is adding a
CSV row (plus rules, if it has an effect).
"""
from __future__ import annotations

import csv
import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from . import resources
from .errors import StateError

RULESETS = ("official", "simplified")

# kind columns of the CSV -> ontology class of the card
MONSTER_CLASSES = {"normal": "NormalMonster", "effect": "EffectMonster", "ritual": "RitualMonster",
                   "fusion": "FusionMonster", "synchro": "SynchroMonster"}
SPELL_CLASSES = {"normal": "NormalSpell", "ritual": "RitualSpell", "continuous": "ContinuousSpell",
                 "quick_play": "QuickPlaySpell", "equip": "EquipSpell", "field": "FieldSpell"}
TRAP_CLASSES = {"normal": "NormalTrap", "continuous": "ContinuousTrap", "counter": "CounterTrap"}


@dataclass(frozen=True)
class Card:
    """One catalog entry (facts only; rules give it behaviour)."""

    name: str
    card_type: str  # monster | spell | trap
    subtype: str
    level: int | None = None
    atk: int | None = None
    defense: int | None = None
    attribute: str | None = None
    monster_type: str | None = None
    tuner: bool = False
    special_summon_only: bool = False
    flip: bool = False
    materials: tuple[str, ...] = ()
    ritual_monster: str | None = None
    italian_name: str | None = None
    aliases: tuple[str, ...] = ()
    passcode: int | None = None
    phases: tuple[str, ...] = ()
    stays_on_field: bool = False  # a spell or trap that stays after resolving (Continuous, Equip, Field; Swords)
    activation: tuple[str, ...] = ()  # its activation's requirements: ActivationRequirement individuals of the ontology
    optional_effect: bool = False  # a monster effect its player may decline ("you can")
    description: str = ""
    extra_deck: bool = field(init=False, default=False)
    # the card's OWL class when an ontology file names it otherwise than class_name(name) would
    owl_class: str | None = field(default=None, compare=False, repr=False)

    def __post_init__(self):
        object.__setattr__(self, "extra_deck", self.subtype in ("fusion", "synchro"))

    @property
    def is_monster(self) -> bool:
        return self.card_type == "monster"

    @property
    def class_name(self) -> str:
        """The card's OWL class: its name in UpperCamelCase ("Dragon-Knight's Sword #2" -> DragonKnightsSword2)."""
        return self.owl_class or class_name(self.name)

    @property
    def kind_classes(self) -> list[str]:
        """The ontology classes the card belongs to by kind."""
        if self.card_type == "monster":
            classes = [MONSTER_CLASSES[self.subtype]]
            if self.tuner:
                classes.append("TunerMonster")
            if self.flip:
                classes.append("FlipEffectMonster")
            return classes
        if self.card_type == "spell":
            return [SPELL_CLASSES[self.subtype]]
        return [TRAP_CLASSES[self.subtype]]

    @property
    def kind_label(self) -> str:
        if self.card_type == "monster":
            extra = " Tuner" if self.tuner else ""
            return f"{self.subtype.title()}{extra} Monster"
        return f"{self.subtype.replace('_', '-').title()} {self.card_type.title()}"


@lru_cache(maxsize=4096)  # called for every card of every ABox (a few hundred names in all)
def class_name(name: str) -> str:
    """Accents are dropped ('Protégé Dragon' -> ProtegeDragon), so a name typed in Protégé maps as expected."""
    name = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    words = re.split(r"[^A-Za-z0-9]+", name.replace("'", ""))
    return "".join(w[:1].upper() + w[1:] for w in words if w)


def _int(value: str) -> int | None:
    return int(value) if value not in ("", None) else None


def _bool(value: str) -> bool:
    return value.strip().lower() == "true"


def _rows(filename: str):
    text = resources.read_data(filename)
    return list(csv.DictReader(text.splitlines()))


class Catalog:
    """The cards of one ruleset, looked up by name without regard to case or aliases."""

    def __init__(self, ruleset: str, cards: list[Card]):
        self.ruleset = ruleset
        self.cards = cards
        self._by_key: dict[str, Card] = {}
        for card in cards:
            for n in (card.name, *card.aliases):
                self._by_key[n.casefold()] = card

    def __iter__(self):
        return iter(self.cards)

    def __len__(self) -> int:
        return len(self.cards)

    def __contains__(self, name: str) -> bool:
        return name.casefold() in self._by_key

    def get(self, name: str, where: str = "card") -> Card:
        """The card of that name.

        :raises StateError: the name is not in this catalog; the message lists the closest names.
        """
        card = self._by_key.get(str(name).casefold())
        if card is None:
            names = [c.name for c in self.cards]
            close = difflib.get_close_matches(str(name), names, n=3, cutoff=0.5)
            hint = f"; closest: {', '.join(close)}" if close else ""
            raise StateError(f"{where}: expected a card name of the {self.ruleset} catalog, got {name!r}{hint}")
        return card

    def search(self, query: str = "") -> list[Card]:
        q = query.casefold()
        return [c for c in self.cards if not q or q in c.name.casefold() or q in c.description.casefold()
                or q in (c.italian_name or "").casefold() or q in c.kind_label.casefold()
                or q in (c.monster_type or "").casefold() or q in (c.attribute or "").casefold()]


def catalog(ruleset: str = "official") -> Catalog:
    """The catalog of a ruleset: the one of an ontology file in use (ontofile.Rules), else the CSV files'."""
    from .knowledge import ACTIVE

    active = ACTIVE.get().get(ruleset)
    return active.catalog if active is not None else _source_catalog(ruleset)


@lru_cache(maxsize=None)
def _source_catalog(ruleset: str) -> Catalog:
    if ruleset == "official":
        cards = [Card(name=r["name"], card_type=r["card_type"], subtype=r["subtype"], level=_int(r["level"]),
                      atk=_int(r["atk"]), defense=_int(r["def"]), attribute=r["attribute"] or None,
                      monster_type=r["monster_type"] or None, tuner=_bool(r["tuner"]),
                      special_summon_only=_bool(r["special_summon_only"]), flip=_bool(r["flip"]),
                      materials=tuple(m.strip() for m in r["materials"].split(" + ") if m.strip()),
                      ritual_monster=r["ritual_monster"] or None, italian_name=r["italian_name"] or None,
                      aliases=tuple(a for a in r["aliases"].split("|") if a), passcode=_int(r["passcode"]),
                      stays_on_field=_bool(r["stays_on_field"]), activation=tuple(r["activation"].split()),
                      optional_effect=_bool(r["optional_effect"]), description=r["description"])
                 for r in _rows("cards_official.csv")]
    elif ruleset == "simplified":
        cards = [Card(name=r["name"], card_type="monster", subtype="normal", level=int(r["level"]),
                      atk=int(r["atk"]), defense=int(r["def"]), description=r["description"])
                 for r in _rows("simplified_monsters.csv")]
        cards += [Card(name=r["name"], card_type="spell", subtype="normal", phases=tuple(r["phases"].split("|")),
                       activation=tuple(r["activation"].split()), description=r["description"])
                  for r in _rows("simplified_spells.csv")]
    else:
        raise StateError(f"ruleset: expected one of {', '.join(RULESETS)}, got {ruleset!r}")
    return Catalog(ruleset, cards)


# ---------------------------------------------------------------- writing rows back (ygo-onto import-owl)

def _cell(value) -> str:
    if value is None:
        return ""
    if isinstance(value, bool):
        return "true" if value else "false"
    return str(value)


def card_row(card: Card, ruleset: str) -> tuple[str, dict]:
    """(CSV file name, row) of a card: the inverse of catalog()."""
    if ruleset == "simplified":
        if card.card_type == "monster":
            return "simplified_monsters.csv", {"name": card.name, "level": _cell(card.level), "atk": _cell(card.atk),
                                               "def": _cell(card.defense), "description": card.description}
        return "simplified_spells.csv", {"name": card.name, "phases": "|".join(card.phases),
                                         "activation": " ".join(card.activation), "description": card.description}
    return "cards_official.csv", {
        "name": card.name, "italian_name": card.italian_name or "", "aliases": "|".join(card.aliases),
        "passcode": _cell(card.passcode), "card_type": card.card_type, "subtype": card.subtype,
        "attribute": card.attribute or "", "monster_type": card.monster_type or "", "level": _cell(card.level),
        "atk": _cell(card.atk), "def": _cell(card.defense), "tuner": _cell(card.tuner),
        "special_summon_only": _cell(card.special_summon_only), "flip": _cell(card.flip),
        "materials": " + ".join(card.materials), "ritual_monster": card.ritual_monster or "",
        "stays_on_field": _cell(card.stays_on_field), "activation": " ".join(card.activation),
        "optional_effect": "true" if card.optional_effect else "", "description": card.description}


def write_rows(ruleset: str, cards: list[Card], old: dict[str, Card]) -> dict[str, str]:
    """The new text of the ruleset's CSV files for this card list: an unchanged card keeps its line
    as written, a changed one is written again in place, a new one goes at the end.

    :returns: {path of the CSV file: its new text}, only for files that change.
    """
    import io

    data_dir = resources.data_dir()
    by_file: dict[str, dict[str, Card]] = {}
    for card in cards:
        by_file.setdefault(card_row(card, ruleset)[0], {})[card.name] = card
    files = {"official": ["cards_official.csv"],
             "simplified": ["simplified_monsters.csv", "simplified_spells.csv"]}[ruleset]
    out = {}
    for filename in files:
        path = data_dir.joinpath(filename)
        lines = path.read_text(encoding="utf-8").splitlines()
        header = next(csv.reader([lines[0]]))
        wanted = by_file.get(filename, {})
        new_lines, seen = [lines[0]], set()

        def fmt(card):
            buf = io.StringIO()
            csv.DictWriter(buf, fieldnames=header, lineterminator="", extrasaction="ignore", restval="").writerow(
                card_row(card, ruleset)[1])
            return buf.getvalue()

        for line in lines[1:]:
            name = next(csv.reader([line]))[0] if line.strip() else None
            if name is None or name not in wanted:
                continue  # a removed card (or a blank line)
            seen.add(name)
            new_lines.append(line if old.get(name) == wanted[name] else fmt(wanted[name]))
        new_lines += [fmt(c) for n, c in wanted.items() if n not in seen]
        text = "\n".join(new_lines) + "\n"
        if text != path.read_text(encoding="utf-8"):
            out[str(path)] = text
    return out
