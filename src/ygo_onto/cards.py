"""The card catalogs: the official catalog and the simplified ruleset's 40-card collection.

Card facts live in CSV files under ygo_onto/data; this module only reads them.  Each card
becomes an OWL class in the loaded ontology (see knowledge.py), so adding a card is adding a
CSV row (plus rules, if it has an effect).
"""
from __future__ import annotations

import csv
import difflib
import re
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

    def __post_init__(self):
        object.__setattr__(self, "extra_deck", self.subtype in ("fusion", "synchro"))

    @property
    def is_monster(self) -> bool:
        return self.card_type == "monster"

    @property
    def class_name(self) -> str:
        """The card's OWL class: its name in UpperCamelCase ('Red-Eyes Black Dragon' -> RedEyesBlackDragon)."""
        return class_name(self.name)

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


@lru_cache(maxsize=None)
def catalog(ruleset: str = "official") -> Catalog:
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
