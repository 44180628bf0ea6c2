"""The card catalogs: the official catalog, the simplified ruleset's 40-card collection and the goat
ruleset's 110 cards (the GOAT format pack's pool).

The cards are ontology data: ontology/cards-official.owl, ontology/cards-simplified.owl and
ontology/cards-goat.owl (written by tools/goat_catalog.py from the pack)
(RDF/XML, edited in Protégé), each card a class under its kind with its facts as annotations
(ygo:cardLevel, ygo:cardAtk, ...; ontofile.card_triples and cards_from_graph).  This module
reads them (cached on disk by content hash) and writes them back (`ygo-onto import-owl`).
Adding a card is adding a class (plus rules, if it has an effect).
"""
from __future__ import annotations

import difflib
import re
import unicodedata
from dataclasses import dataclass, field
from functools import lru_cache

from . import resources
from .errors import StateError

RULESETS = ("official", "simplified", "goat")

# ruleset -> the folders of rules/ it plays, in order: `goat` is the official rules plus its own
# differences (rules/goat/; the GOAT pack README, "What the GOAT mode adds" and "MR1 base")
RULE_FOLDERS = {"official": ("common", "official"), "simplified": ("common", "simplified"),
                "goat": ("common", "official", "goat")}


def official_based(ruleset: str) -> bool:
    """True for a ruleset that plays the official rules (its turn structure, Field Zone, Extra Deck)."""
    return "official" in RULE_FOLDERS.get(ruleset, ())

# kind (card_type, subtype) -> ontology class of the card
# a "token" is a monster that is not a card (the goat pack's cards.md: "If a token leaves the field it ceases
# to exist"): a catalog class under ygo:Token that an effect Special Summons (SpecialSummonTokensEffect), never in a Deck
MONSTER_CLASSES = {"normal": "NormalMonster", "effect": "EffectMonster", "ritual": "RitualMonster",
                   "fusion": "FusionMonster", "synchro": "SynchroMonster", "token": "Token"}
SPELL_CLASSES = {"normal": "NormalSpell", "ritual": "RitualSpell", "continuous": "ContinuousSpell",
                 "quick_play": "QuickPlaySpell", "equip": "EquipSpell", "field": "FieldSpell"}
TRAP_CLASSES = {"normal": "NormalTrap", "continuous": "ContinuousTrap", "counter": "CounterTrap"}


# the monster Types of rulebook v6.0 p. 8, and the two later ones (Divine-Beast, Psychic)
MONSTER_TYPES = ("Aqua", "Beast", "Beast-Warrior", "Dinosaur", "Dragon", "Fairy", "Fiend", "Fish", "Insect", "Machine",
                 "Plant", "Pyro", "Reptile", "Rock", "Sea Serpent", "Spellcaster", "Thunder", "Warrior", "Winged Beast",
                 "Zombie", "Divine-Beast", "Psychic")


def type_individual(monster_type: str) -> str:
    """A monster Type's individual of the TBox ("Beast-Warrior" -> TypeBeastWarrior: hasMonsterType's value)."""
    return "Type" + monster_type.replace("-", "").replace(" ", "")


TYPE_NAMES = {type_individual(t): t for t in MONSTER_TYPES}  # TypeBeastWarrior -> "Beast-Warrior"


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
    own_procedure_only: bool = False  # "cannot be Special Summoned by other ways": only its own procedure brings it out
    never_special_summoned: bool = False  # "can never be Special Summoned" (a Spirit monster): Normal Summoned or Set only
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
    no_effect: bool = False  # a card other than a Normal Monster that has no effect (a Fusion Monster of materials alone)
    effects: tuple[str, ...] = ()  # its effects: Effect individuals of the card ontology (ygo:cardEffect; the rules of their kinds)
    abilities: tuple[str, ...] = ()  # its keyword abilities: KeywordAbility individuals of the TBox (ygo:cardAbility; piercing)
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
    def is_token(self) -> bool:
        """A Monster Token: it exists on the field only (state-format.md "Tokens")."""
        return self.card_type == "monster" and self.subtype == "token"

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
        if self.card_type == "monster":  # as cards.md words it: "Tuner Effect Monster", "Flip Effect Monster"
            prefix = "Tuner " if self.tuner else "Flip " if self.flip and self.subtype == "effect" else ""
            return f"{prefix}{self.subtype.title()} Monster"
        return f"{self.subtype.replace('_', '-').title()} {self.card_type.title()}"

    def summary(self) -> dict:
        """The card as `ygo-onto cards --json` and the MCP tool `cards` give it."""
        return {"name": self.name, "kind": self.kind_label, "level": self.level, "atk": self.atk, "def": self.defense,
                "attribute": self.attribute, "type": self.monster_type, "passcode": self.passcode,
                "description": self.description}


@lru_cache(maxsize=4096)  # called for every card of every ABox (a few hundred names in all)
def class_name(name: str) -> str:
    """Accents are dropped ('Protégé Dragon' -> ProtegeDragon), so a name typed in Protégé maps as expected."""
    name = "".join(ch for ch in unicodedata.normalize("NFKD", name) if not unicodedata.combining(ch))
    words = re.split(r"[^A-Za-z0-9]+", name.replace("'", ""))
    return "".join(w[:1].upper() + w[1:] for w in words if w)


def cards_naming(cat, vocabulary, memo: str, effects_of) -> frozenset:
    """The names (and aliases) of the catalog's cards that name one of the Effect individuals `effects_of(vocabulary)`
    gives (a set read off the ontology's data), memoized on the catalog under `memo` for that vocabulary."""
    got = cat.__dict__.get(memo)
    if got is None or got[0] is not vocabulary:
        effects = effects_of(vocabulary)
        got = cat.__dict__[memo] = (vocabulary, frozenset(
            n for c in cat.cards if set(c.effects) & effects for n in (c.name, *c.aliases)))
    return got[1]


class Catalog:
    """The cards of one ruleset, looked up by name without regard to case or aliases."""

    def __init__(self, ruleset: str, cards: list[Card]):
        self.ruleset = ruleset
        self.cards = cards
        self._by_key: dict[str, Card] = {}
        for card in cards:
            for n in (card.name, *card.aliases):
                self._by_key[n.casefold()] = card
        # the names as written, to the card their key gives (state_facts looks up every card of a state)
        self._by_name: dict[str, Card] = {n: self._by_key[n.casefold()] for card in cards
                                          for n in (card.name, *card.aliases)}

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
        card = self._by_name.get(name) if type(name) is str else None
        if card is None:
            card = self._by_key.get(str(name).casefold())
        if card is None:
            names = [c.name for c in self.cards]
            close = difflib.get_close_matches(str(name), names, n=3, cutoff=0.5)
            hint = f"; closest: {', '.join(close)}" if close else ""
            raise StateError(f"{where}: expected a card name of the {self.ruleset} catalog, got {name!r}{hint}")
        return card

    def search(self, query: str = "") -> list[Card]:
        """The cards matching a query, the card of that exact name (or alias) first, then those whose name holds
        it, then the others (kind, type, attribute, description), each group in the catalog's order: so
        `cards NAME` lists that card before a card whose description names it (a Ritual Spell names its monster)."""
        q = query.casefold()
        if not q:
            return list(self.cards)

        def rank(c: Card) -> int | None:
            names = [c.name.casefold(), *(a.casefold() for a in c.aliases), (c.italian_name or "").casefold()]
            if q in names:
                return 0
            if any(q in n for n in names):
                return 1
            if (q in c.description.casefold() or q in c.kind_label.casefold()
                    or q in (c.monster_type or "").casefold() or q in (c.attribute or "").casefold()):
                return 2
            return None

        ranked = [(r, i, c) for i, c in enumerate(self.cards) if (r := rank(c)) is not None]
        return [c for _, _, c in sorted(ranked, key=lambda t: t[:2])]


def catalog(ruleset: str = "official") -> Catalog:
    """The catalog of a ruleset: the one of an ontology file in use (ontofile.Rules), else the catalog file's (ontology/cards-RULESET.owl)."""
    from .knowledge import ACTIVE

    active = ACTIVE.get().get(ruleset)
    return active.catalog if active is not None else _source_catalog(ruleset)


@lru_cache(maxsize=None)
def _source_catalog(ruleset: str) -> Catalog:
    if ruleset not in RULESETS:
        raise StateError(f"ruleset: expected one of {', '.join(RULESETS)}, got {ruleset!r}")
    return Catalog(ruleset, read_catalog_cards(catalog_file(ruleset), ruleset))


# ---------------------------------------------------------------- the catalog files (ontology/cards-RULESET.owl)

CATALOG_BASE = "http://ygo-onto.org/cards/"
TBOX_IRI = "http://ygo-onto.org/ontology"
CACHE_VERSION = 1  # bump when what the disk cache holds changes shape


def catalog_file(ruleset: str):
    """ontology/cards-RULESET.owl (official, simplified, goat): the cards as OWL classes (the source)."""
    return resources.ontology_dir() / f"cards-{ruleset}.owl"


def _card_order(text: str, ns: str) -> dict[str, int]:
    """Card IRI -> its place in the file: the catalog keeps the file's order (random decks draw from it)."""
    order: dict[str, int] = {}
    for m in re.finditer(r'rdf:about="([^"]+)"', text):
        iri = m.group(1)
        iri = ns + iri[1:] if iri.startswith("#") else iri
        order.setdefault(iri, len(order))
    return order


def _catalog_entry(path, ruleset: str) -> tuple[bytes, str]:
    """(the file's bytes, the name of its disk cache entry: a digest of the file, the ruleset and the readers' code)."""
    import hashlib
    from pathlib import Path

    from . import diskcache

    path = Path(path)
    try:
        data = path.read_bytes()
    except OSError as exc:
        raise StateError(f"{path}: expected the card catalog of the {ruleset} ruleset, got {exc.strerror}") from None
    code = diskcache.modules_digest("cards.py", "ontofile.py")
    return data, "cards-" + hashlib.sha256(data + f"|{ruleset}|{CACHE_VERSION}|{code}".encode()).hexdigest()


def read_catalog_cards(path, ruleset: str) -> list[Card]:
    """The cards of a catalog file (read_catalog_file's first half), from a disk cache entry of their
    own: reading them back does not import rdflib (the triples are rdflib terms)."""
    from . import diskcache

    _, entry = _catalog_entry(path, ruleset)
    hit = diskcache.load(entry + ".cards.pickle")
    if isinstance(hit, list):
        return hit
    return read_catalog_file(path, ruleset)[0]


def read_catalog_file(path, ruleset: str, cache: bool = True) -> tuple[list[Card], list[tuple]]:
    """(the cards, every triple about them) of a catalog file, in the file's order.

    rdflib parses the file once; the result is cached on disk by the file's content hash
    (parsing costs a few tenths of a second, the cache a few milliseconds).

    :raises StateError: the file is not RDF/XML, or a card class lacks a fact the engine needs.
    """
    from pathlib import Path

    from . import diskcache

    path = Path(path)
    data, entry = _catalog_entry(path, ruleset)
    if cache:
        hit = diskcache.load(entry + ".pickle")  # None: no entry, or a broken one (read again)
        if hit is not None:
            return hit
    from rdflib import Graph
    from rdflib.namespace import OWL, RDF

    from .ontofile import cards_from_graph

    g = Graph()
    try:
        g.parse(data=data, format="xml", publicID=CATALOG_BASE + ruleset)
    except Exception as exc:  # rdflib raises SAX and its own errors with a line number
        raise StateError(f"{path}: expected an OWL file in RDF/XML, got {type(exc).__name__}: {str(exc)[:200]}") from None
    try:
        cards = cards_from_graph(g, ruleset)
    except StateError as exc:
        raise StateError(f"{path}: {exc}") from None
    ns = CATALOG_BASE + ruleset + "#"
    order = _card_order(data.decode("utf-8", "replace"), ns)
    cards.sort(key=lambda c: order.get(ns + c.class_name, len(order)))
    headers = set(g.subjects(RDF.type, OWL.Ontology))
    triples = sorted((t for t in g if t[0] not in headers), key=lambda t: tuple(str(x) for x in t))
    result = (cards, triples)
    if cache:
        diskcache.store(entry + ".pickle", result)
        diskcache.store(entry + ".cards.pickle", cards)
    return result


def _xml_escape(text: str) -> str:
    return text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


_PREFIXES = {"http://www.w3.org/1999/02/22-rdf-syntax-ns#": "rdf", "http://www.w3.org/2000/01/rdf-schema#": "rdfs",
             "http://www.w3.org/2002/07/owl#": "owl", "http://www.w3.org/2001/XMLSchema#": "xsd",
             TBOX_IRI + "#": "ygo"}


def _qname(uri: str) -> str:
    for ns, prefix in _PREFIXES.items():
        if uri.startswith(ns):
            return f"{prefix}:{uri[len(ns):]}"
    raise ValueError(f"no prefix for {uri}")


def catalog_owl_text(ruleset: str, cards: list[Card], triples=()) -> str:
    """A catalog file's RDF/XML, laid out as Protégé saves it (one owl:Class block per card, in
    the catalog's order): the ontology header imports the TBox by IRI (catalog-v001.xml resolves it).
    `triples` (those of a catalog file or of an ontology holding it) give the file's named individuals (a card's
    Effect and its CardFilter): each after the card that names it, one the file names elsewhere at the end."""
    from rdflib import Literal, Namespace, URIRef
    from rdflib.namespace import OWL, RDF, RDFS

    from .ontofile import card_triples

    iri = CATALOG_BASE + ruleset
    ns = Namespace(iri + "#")
    title = {"official": "the official ruleset's cards", "simplified": "the simplified ruleset's 40 cards",
             "goat": "the goat ruleset's cards (the GOAT format pack's 110)"}[ruleset]
    out = ['<?xml version="1.0"?>',
           f'<rdf:RDF xmlns="{iri}#"', f'     xml:base="{iri}"',
           *(f'     xmlns:{p}="{n}"' for n, p in _PREFIXES.items()), '>', "",
           f'    <owl:Ontology rdf:about="{iri}">',
           f'        <owl:imports rdf:resource="{TBOX_IRI}"/>',
           f'        <rdfs:label xml:lang="en">ygo-onto cards: {title}</rdfs:label>',
           '        <rdfs:comment xml:lang="en">The card catalog of the ' + ruleset + ' ruleset: each card a class under '
           'its kind (ygo:NormalMonster, ygo:FieldSpell, ...) with its printed facts as annotations (ygo:cardLevel, '
           'ygo:cardAtk, ...). Edited in Protégé; what a card does is in its SWRL rules (rules/).</rdfs:comment>',
           '    </owl:Ontology>', ""]
    def values(pairs) -> None:
        for p, o in pairs:
            tag = _qname(str(p))
            if isinstance(o, URIRef):
                out.append(f'        <{tag} rdf:resource="{o}"/>')
            elif isinstance(o, Literal) and o.language:
                out.append(f'        <{tag} xml:lang="{o.language}">{_xml_escape(str(o))}</{tag}>')
            elif isinstance(o, Literal) and o.datatype:
                out.append(f'        <{tag} rdf:datatype="{o.datatype}">{_xml_escape(str(o))}</{tag}>')
            else:
                out.append(f"        <{tag}>{_xml_escape(str(o))}</{tag}>")

    about: dict = {}  # the file's named individuals: subject -> its (predicate, object) pairs
    named = {str(t[0]) for t in triples if t[1] == RDF.type and t[2] == OWL.NamedIndividual and str(t[0]).startswith(str(ns))}
    for t in triples:
        if str(t[0]) in named:
            about.setdefault(str(t[0]), []).append((t[1], t[2]))
    written: set = set()

    def individual(iri_: str) -> None:
        """An individual's block (its types, labels and comments first, the rest by property), then the
        file's individuals it names (an Effect's CardFilter)."""
        if iri_ in written or iri_ not in about:
            return
        written.add(iri_)
        pairs = [po for po in about[iri_] if po != (RDF.type, OWL.NamedIndividual)]
        first = {RDF.type: 0, RDFS.label: 1, RDFS.comment: 2}
        pairs.sort(key=lambda po: (first.get(po[0], 3), _qname(str(po[0])) if po[0] not in first else "", str(po[1])))
        out.extend([f"    <!-- {iri_} -->", "", f'    <owl:NamedIndividual rdf:about="{iri_}">'])
        values(pairs)
        out.extend(["    </owl:NamedIndividual>", ""])
        for _, o in pairs:
            individual(str(o))

    for card in cards:
        c = ns[card.class_name]
        out += [f"    <!-- {c} -->", "", f'    <owl:Class rdf:about="{c}">']
        values((p, o) for _, p, o in card_triples(card, ns)[1:])
        out += ["    </owl:Class>", ""]
        for effect in card.effects:
            individual(str(ns[effect]))
    for iri_ in sorted(named):
        individual(iri_)
    out.append("</rdf:RDF>")
    return "\n".join(out) + "\n"
