"""What the reasoners know: the TBox (ontology/ygo-onto.owl), the card classes of a ruleset's
catalog, and the ruleset's SWRL rules (rules/common + rules/<ruleset>).

One `Knowledge` per ruleset, built once and cached.  It exposes the vocabulary as a table
(`Vocabulary`) so that every other module names ontology terms through it: a misspelt term
is an error at once (rdflib's DefinedNamespace habit).
"""
from __future__ import annotations

import hashlib
import warnings
from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property, lru_cache
from typing import TYPE_CHECKING

from . import diskcache, resources
from .cards import RULE_FOLDERS, RULESETS, Catalog, catalog
from .swrl import BUILTIN_NAMES, Rule, RuleSyntaxError, parse_rule_file, parse_rule_text  # noqa: F401  (Rule: re-exported)

# Where the files live (a source checkout or an installed wheel): resources.py.
ONTOLOGY_DIR = resources.ontology_dir()
RULES_DIR = resources.rules_dir()
TBOX_FILE = resources.tbox_file()

if TYPE_CHECKING:
    from rdflib import Graph

BASE = "http://ygo-onto.org/ontology"
_NAMESPACES = {"YGO": BASE + "#", "ABOX": "http://ygo-onto.org/state#"}
_CARDS_NS = {r: f"http://ygo-onto.org/cards/{r}#" for r in RULESETS}


def __getattr__(name: str):
    """YGO, ABOX (rdflib Namespaces) and CARDS (ruleset -> Namespace), made on first use: rdflib is
    not imported by a run whose knowledge comes from the disk cache."""
    if name in _NAMESPACES or name == "CARDS":
        from rdflib import Namespace

        value = {r: Namespace(ns) for r, ns in _CARDS_NS.items()} if name == "CARDS" else Namespace(_NAMESPACES[name])
        globals()[name] = value
        return value
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _ns(name: str):
    """YGO, ABOX or CARDS (see __getattr__), made once."""
    value = globals().get(name)
    return value if value is not None else __getattr__(name)

SWRLB_BUILTINS = {"add", "subtract", "multiply", "divide", "mod", "abs", "equal", "notEqual", "lessThan",
                  "lessThanOrEqual", "greaterThan", "greaterThanOrEqual", "booleanNot"}


class VocabularyError(KeyError):
    """An ontology term that does not exist (a typo in code or in a rule)."""


@dataclass
class Vocabulary:
    """The TBox as plain tables, for the readers and for the compiled (fast) backend."""

    classes: set[str] = field(default_factory=set)
    object_properties: set[str] = field(default_factory=set)
    data_properties: dict[str, str] = field(default_factory=dict)  # name -> xsd range local name
    individuals: dict[str, set[str]] = field(default_factory=dict)  # TBox individuals -> asserted classes
    subclass: dict[str, set[str]] = field(default_factory=dict)  # class -> direct named parents
    subproperty: dict[str, set[str]] = field(default_factory=dict)
    inverse: dict[str, str] = field(default_factory=dict)
    symmetric: set[str] = field(default_factory=set)
    functional: set[str] = field(default_factory=set)
    domain: dict[str, set[str]] = field(default_factory=dict)
    range: dict[str, set[str]] = field(default_factory=dict)
    # name == intersection of conjuncts: ("class", C) or ("some", prop, C)
    definitions: dict[str, list[tuple]] = field(default_factory=dict)
    annotations: dict[str, dict[str, str]] = field(default_factory=dict)
    tbox_facts: list[tuple] = field(default_factory=list)  # property assertions between TBox individuals
    labels: dict[str, str] = field(default_factory=dict)
    _annotated: dict = field(default_factory=dict, repr=False, compare=False)  # see annotated

    def check(self, name: str) -> str:
        if name in self.classes or name in self.object_properties or name in self.data_properties \
                or name in self.individuals:
            return name
        raise VocabularyError(f"no ontology term named {name!r}")

    def is_object_property(self, name: str) -> bool:
        return name in self.object_properties

    def ancestors(self, cls: str) -> set[str]:
        out, todo = set(), [cls]
        while todo:
            for parent in self.subclass.get(todo.pop(), ()):
                if parent not in out:
                    out.add(parent)
                    todo.append(parent)
        return out

    def annotated(self, key: str, shared: bool = False) -> dict[str, str]:
        """Terms carrying an annotation `key` (e.g. actionType), with its value (read once per key
        and number of annotated terms: the apply loop asks for every reasoner run).  `shared`: the
        table itself, not a copy (the caller only reads it)."""
        hit = self._annotated.get(key)
        if hit is None or hit[0] != len(self.annotations):
            hit = self._annotated[key] = (len(self.annotations),
                                          {term: ann[key] for term, ann in self.annotations.items() if key in ann})
        return hit[1] if shared else dict(hit[1])


def _local(uri) -> str:
    s = str(uri)
    return s.rsplit("#", 1)[-1] if "#" in s else s.rsplit("/", 1)[-1]


class Knowledge:
    """TBox + card classes + rules of one ruleset.

    Built from the project's sources (ontology/, rules/, the catalog), or, through
    `ontofile.Rules.load`, from an ontology file saved by Protégé: then `source` names that file
    and `tbox`, `catalog` and `rules` are the file's.
    """

    def __init__(self, ruleset: str, catalog_=None, rules: list[Rule] | None = None, tbox: Graph | None = None,
                 source: str | None = None):
        self.ruleset = ruleset
        self.catalog = catalog_ if catalog_ is not None else catalog(ruleset)
        self.source = source
        if tbox is not None:
            self.__dict__["tbox"] = tbox  # the cached_property's slot
        if rules is not None:
            self.rules = rules
            return
        self.rules = []
        for folder in RULE_FOLDERS.get(ruleset, ("common", ruleset)):
            for path in sorted((RULES_DIR / folder).rglob("*.swrl")):
                self.rules.extend(parse_rule_file(path, path.relative_to(RULES_DIR).as_posix()))
        self.rules = _rules_of_catalog(self.rules, ruleset, self.catalog)

    @property
    def cards_ns(self):
        """The rdflib Namespace of the ruleset's card classes."""
        return _ns("CARDS")[self.ruleset]

    @cached_property
    def tbox(self) -> Graph:
        """The TBox plus one class per catalog card (labels in English and Italian, a description,
        and the catalog's facts as annotations: see ontofile.card_triples): ontology/ygo-onto.owl
        and ontology/cards-RULESET.owl, whatever Protégé saved in them about the cards."""
        from rdflib import Graph

        from .cards import catalog_file, read_catalog_file

        g = Graph()
        g.parse(TBOX_FILE, format="xml")
        ns = self.cards_ns
        g.bind("ygo", _ns("YGO"))
        g.bind("card", ns)
        for triple in read_catalog_file(catalog_file(self.ruleset), self.ruleset)[1]:
            g.add(triple)
        return g

    @cached_property
    def core_names(self) -> frozenset:
        """Local names of the terms in the ygo: namespace (the rest of the classes are cards)."""
        ygo = _NAMESPACES["YGO"]
        return frozenset(str(s)[len(ygo):] for s in self.tbox.subjects() if str(s).startswith(ygo))

    @cached_property
    def vocabulary(self) -> Vocabulary:
        from rdflib import Literal, URIRef
        from rdflib.collection import Collection
        from rdflib.namespace import OWL, RDF, RDFS

        YGO = _ns("YGO")
        g = self.tbox
        v = Vocabulary()
        for s in g.subjects(RDF.type, OWL.Class):
            if isinstance(s, URIRef):
                v.classes.add(_local(s))
        for s in g.subjects(RDF.type, OWL.ObjectProperty):
            v.object_properties.add(_local(s))
        for s in g.subjects(RDF.type, OWL.DatatypeProperty):
            rng = g.value(s, RDFS.range)
            v.data_properties[_local(s)] = _local(rng) if rng else "string"
        for s in g.subjects(RDF.type, OWL.NamedIndividual):
            v.individuals[_local(s)] = {_local(o) for o in g.objects(s, RDF.type) if o != OWL.NamedIndividual}
        for s, o in g.subject_objects(RDFS.subClassOf):
            if isinstance(s, URIRef) and isinstance(o, URIRef) and o != OWL.Thing:
                v.subclass.setdefault(_local(s), set()).add(_local(o))
        for s, o in g.subject_objects(RDFS.subPropertyOf):
            v.subproperty.setdefault(_local(s), set()).add(_local(o))
        for s, o in g.subject_objects(OWL.inverseOf):
            v.inverse[_local(s)] = _local(o)
        v.symmetric = {_local(s) for s in g.subjects(RDF.type, OWL.SymmetricProperty)}
        v.functional = {_local(s) for s in g.subjects(RDF.type, OWL.FunctionalProperty)}
        for s, o in g.subject_objects(RDFS.domain):
            v.domain.setdefault(_local(s), set()).add(_local(o))
        for s, o in g.subject_objects(RDFS.range):
            if _local(s) in v.object_properties:
                v.range.setdefault(_local(s), set()).add(_local(o))
        for s, o in g.subject_objects(OWL.equivalentClass):
            conjuncts = []
            for member in Collection(g, g.value(o, OWL.intersectionOf)):
                if isinstance(member, URIRef):
                    conjuncts.append(("class", _local(member)))
                else:
                    conjuncts.append(("some", _local(g.value(member, OWL.onProperty)),
                                      _local(g.value(member, OWL.someValuesFrom))))
            v.definitions[_local(s)] = conjuncts
        for key in ("actionType", "primitive", "stateKey", "resetEachTurn", "countsCards", "destinationArea",
                    "destinationPlace", "areaWhenFull", "marksCard", "counterKey", "reasonOfMove", "withholdsActions",
                    "highestAtkOf"):
            for s, o in g.subject_objects(YGO[key]):
                v.annotations.setdefault(_local(s), {})[key] = str(o)
        for s, o in g.subject_objects(RDFS.label):
            if getattr(o, "language", None) == "en":
                v.labels[_local(s)] = str(o)
        props = v.object_properties | set(v.data_properties)
        for s, p, o in g:
            if _local(p) in props and _local(s) in v.individuals:
                value = o.toPython() if isinstance(o, Literal) else _local(o)
                v.tbox_facts.append((_local(p), _local(s), value))
        return v

    def check_rules(self) -> None:
        """Every name a rule uses is in the vocabulary (a typo names its rule)."""
        v = self.vocabulary
        for rule in self.rules:
            where = f"rule {rule.name} ({rule.where})"
            try:
                body, head = parse_rule_text(rule.text)
            except RuleSyntaxError as exc:
                raise SyntaxError(f"{where}: {exc}") from None
            for atom in body + head:
                if atom.pred in BUILTIN_NAMES:
                    continue
                try:
                    v.check(atom.pred)
                    for arg in atom.args:
                        if arg.kind == "name":
                            v.check(arg.value)
                except VocabularyError as exc:
                    raise VocabularyError(f"{where}: {exc.args[0]}") from None


def _rules_of_catalog(rules: list[Rule], ruleset: str, cat) -> list[Rule]:
    """The rules a ruleset plays of those it borrows: a ruleset that plays another's folders (`goat`
    plays rules/official/) leaves out the lender's card rules about a card its own catalog lacks
    (a rule naming JunkWarrior has nothing to apply to in `goat`, and the class is not in its
    vocabulary).  A card is the same card in both catalogs when its OWL class name is the same."""
    lenders = [r for r in RULE_FOLDERS.get(ruleset, ()) if r in RULESETS and r != ruleset]
    if not lenders:
        return rules
    own = {c.class_name for c in cat}
    absent = {c.class_name for lender in lenders for c in catalog(lender)} - own
    if not absent:
        return rules
    kept = []
    for rule in rules:
        body, head = parse_rule_text(rule.text)
        if not any(atom.pred in absent for atom in body + head):
            kept.append(rule)
    return kept


def parsed_once(k, name: str, rules: list[Rule], parse) -> list:
    """`parse(rule.text)` of each of the rules, in their order, made once per Knowledge and rule list: kept on `k` as
    `name` (a list changed in place is parsed again).  The parsed atoms are read, never changed."""
    got = k.__dict__.get(name)
    if got is None or got[0] is not rules or got[1] != rules:
        got = k.__dict__[name] = (rules, list(rules), [parse(r.text) for r in rules])
    return got[2]


def parsed_rules(k) -> list[tuple]:
    """(body atoms, head atoms) of each of k.rules, in their order, for the analyses that read every rule
    (abox.idle_counts, abox.idle_abilities, reasoned_rules, card_classes_with_rules)."""
    return parsed_once(k, "_parsed_rules", k.rules, parse_rule_text)


def reasoned_rules(k) -> list[Rule]:
    """The rules the reasoners run for a Knowledge (both, so fast = Pellet): k.rules read for its catalog.  A count
    no card of the catalog makes is always 0 (abox.idle_counts): a rule that needs it above 0 never fires and is
    left out, and an idle count's atom is left out of the others, its variable read as 0, as the ABox does not
    assert it.  So for a keyword ability no card has (abox.idle_abilities): a rule needing it never fires, and its
    lacksAbility atom always holds.  A rule that asks for effect data no card of the catalog gives never fires and is
    left out (_never_said).  Made once per Knowledge and rule list; k.rules (exported) stay as written."""
    if not isinstance(k, Knowledge):  # (a test's knowledge, with no catalog)
        return k.rules
    got = k.__dict__.get("_reasoned_rules")
    if got is not None and got[0] is k.rules and got[1] == k.rules:
        return got[2]
    from dataclasses import replace

    from .abox import abilities_never_hold, idle_abilities, idle_counts, zero_substitution
    from .swrl import Atom, Term

    zero, idle = idle_counts(k)
    absent, idle_abilities_ = idle_abilities(k)

    def idle_atom(atom: Atom) -> bool:
        return atom.pred in idle or (atom.pred == "lacksAbility" and atom.args[1].kind == "name"
                                     and atom.args[1].value in idle_abilities_)

    parsed = dict(zip((rule.name for rule in k.rules), parsed_rules(k)))
    live = [rule for rule in k.rules if zero_substitution(parsed[rule.name][0], zero) is not None
            and not abilities_never_hold(parsed[rule.name][0], absent)]
    while True:  # (a rule left out may have been the only one to derive what another needs)
        heads = [parsed[rule.name][1] for rule in live]
        never = _never_said(k.vocabulary, {a.pred for head in heads for a in head})
        made = _made(k.vocabulary, [parsed[rule.name] for rule in live])  # (purposes, counters, unmade)
        kept_rules = [rule for rule in live if not any(map(never, parsed[rule.name][0])) and not made[2](parsed[rule.name][0])]
        if len(kept_rules) == len(live):
            break
        live = kept_rules
    out = []
    for rule in live:
        body, head = parsed[rule.name]
        if not any(map(idle_atom, body)):
            out.append(rule)
            continue
        read = {t.value for a in body if a.pred in idle for t in a.args[1:] if t.is_var}

        def sub(atom: Atom) -> Atom:
            return Atom(atom.pred, tuple(Term("int", 0) if t.is_var and t.value in read else t for t in atom.args))

        kept = [sub(a) for a in body if not idle_atom(a)]  # (a comparison of two numbers left holds: zero_substitution)
        kept = [a for a in kept if a.pred not in _COMPARING or any(t.is_var for t in a.args)]
        out.append(replace(rule, text=", ".join(map(str, kept)) + " -> " + ", ".join(str(sub(a)) for a in head)))
    k.__dict__["_reasoned_rules"] = (k.rules, list(k.rules), out)
    k.__dict__["_made_in_duels"] = (k.rules, made[:2])  # (the last round's: the rules kept are the rules it read)
    return out


def made_in_duels(k) -> tuple[frozenset, frozenset] | None:
    """(purposes, counter keys): the pending actions' purposes and the card counters the rules a Knowledge runs
    (reasoned_rules) can make in its duels (_never_made); None for a test's knowledge (no catalog: anything)."""
    if not isinstance(k, Knowledge):
        return None
    got = k.__dict__.get("_made_in_duels")
    if got is None or got[0] is not k.rules:
        k.__dict__.pop("_reasoned_rules", None)
        reasoned_rules(k)
        got = k.__dict__["_made_in_duels"]
    return got[1]


def _never_said(v: Vocabulary, derived: set):
    """A test of a rule atom: whether it asks for effect data (an atom about an individual of ygo:Effect) that the
    catalog's data never gives: a subclass of Effect no Effect individual belongs to, or a property of Effects no
    Effect has (with that value).  The ABox tells no fact about an Effect (they are the catalog's TBox individuals)
    but those of abox.EFFECT_FACTS, so such an atom never holds, unless a rule in `derived` (or the TBox: a
    definition, a domain or range, a subproperty, an inverse) gives it.  An official duel does not run the rules of the GOAT pack's effect kinds."""
    def of_effects(term: str) -> bool:
        return term == "Effect" or "Effect" in v.ancestors(term)

    from .abox import EFFECT_FACTS

    inferred = {p for parents in v.subproperty.values() for p in parents} | set(v.inverse) | set(v.inverse.values()) \
        | v.symmetric | derived | set(EFFECT_FACTS)
    effect_props = {p for p, domains in v.domain.items() if domains and all(map(of_effects, domains)) and p not in inferred}
    values: dict = {}
    typing = set()  # (the classes the TBox's facts give their individuals, by the domains and ranges)
    for p, _, o in v.tbox_facts:
        values.setdefault(p, set()).add(o)
        typing |= v.domain.get(p, set()) | (v.range.get(p, set()) if o in v.individuals else set())
    had = {c for asserted in typing.union(*v.individuals.values()) for c in (asserted, *v.ancestors(asserted))}
    typed = {c for table in (v.domain, v.range) for p, cs in table.items() if p not in effect_props for c in cs}
    sources = derived | typed | set(v.definitions)
    empty = {c for c in v.classes if of_effects(c) and c not in had and c != "Effect"
             and not any(d in sources for d in v.classes if d == c or c in v.ancestors(d))}

    def never(atom) -> bool:
        if len(atom.args) == 1:
            return atom.pred in empty
        if len(atom.args) != 2 or atom.pred not in effect_props:
            return False
        given, value = values.get(atom.pred, ()), atom.args[1]
        return not given or (not value.is_var and value.value not in given)
    return never


def _never_made(v: Vocabulary, rules: list[tuple]):
    """A test of a rule body: whether it needs a fact of the state that no duel of the ruleset makes, as `rules` (the
    parsed rules run) and the driver's primitives stand: a pending action of a purpose no operation they infer opens
    (`purpose(?x, chooseSummonPositionPurpose)`: primitives.purposes_opened), or a card counter (a data property with a
    ygo:counterKey, 0 in the ABox where the card has none) above 0 where no operation they infer sets it (its
    ygo:counterKey on an operation of the primitive set_counter).  A duel starts with no pending action and no counter,
    and state.normalize refuses a state that has one the ruleset never makes (made_in_duels), so such a body never
    holds.  What the rules make is a least fixpoint: a rule counts once its own body's purposes and counters are made
    (a rule that opens the selection it needs makes nothing).  The purposes an operation can name are followed through
    the rule heads and the TBox's facts (_object_values); a property the rules neither derive nor find in the TBox is
    the ABox's and may hold any value."""
    return _made(v, rules)[2]


def _made(v: Vocabulary, rules: list[tuple]) -> tuple[frozenset, frozenset, object]:
    """(purposes, counter keys, unmade): the pending actions' purposes and the card counters the operations the rules
    infer can make, and the test of a body that needs another (see _never_made); every purpose when an operation's
    purpose is not known."""
    from .abox import zero_substitution
    from .primitives import purposes_opened
    from .state import PURPOSES

    values_of = _object_values(v, rules)
    counted = {prop: key for prop, key in v.annotated("counterKey").items()
               if prop in v.data_properties and "primitive" not in v.annotations[prop]}
    setters = {prop: v.annotations[prop]["counterKey"] for prop in v.annotated("counterKey")
               if v.annotations[prop].get("primitive") == "set_counter"}
    derived = {a.pred for _, head in rules for a in head}
    purposes, counters = set(), {key for prop, key in counted.items() if prop in derived}

    def unmade(body) -> bool:
        if any(a.pred == "purpose" and len(a.args) == 2 and a.args[1].kind == "name"
               and a.args[1].value.removesuffix("Purpose") not in purposes for a in body):
            return True
        unset = frozenset(prop for prop, key in counted.items() if key not in counters)
        return bool(unset) and zero_substitution(body, unset) is None

    while True:
        before = (len(purposes), len(counters))
        for body, head in rules:
            if unmade(body):
                continue
            for atom in head:
                opened = purposes_opened(atom.pred, values_of)
                purposes.update(PURPOSES if opened is None else opened)
                if atom.pred in setters and not (atom.args[-1].kind == "int" and atom.args[-1].value == 0):
                    counters.add(setters[atom.pred])  # (an operation that sets it to 0 removes it)
        if (len(purposes), len(counters)) == before:
            return frozenset(purposes), frozenset(counters), unmade


def _object_values(v: Vocabulary, rules: list[tuple]):
    """values_of(prop): the individuals the rules' heads and the TBox's facts can give as the object of `prop` (a
    constant of a head, or a variable's values where the body binds it as the object of another property, followed
    the same way), None where that is not known (a property of the ABox, an inverse or a subproperty, a variable
    bound otherwise)."""
    tbox: dict = {}
    for p, _, o in v.tbox_facts:
        tbox.setdefault(p, set()).add(o)
    by_head: dict = {}
    for body, head in rules:
        for atom in head:
            if len(atom.args) == 2:
                by_head.setdefault(atom.pred, []).append((atom.args[1], body))
    related = set(v.inverse) | set(v.inverse.values()) | v.symmetric | set(v.subproperty) \
        | {p for parents in v.subproperty.values() for p in parents}
    memo: dict = {}

    def values_of(prop: str):
        if prop in memo:
            return memo[prop]
        memo[prop] = None  # (a cycle through prop: not known)
        if prop in related or (prop not in tbox and prop not in by_head):
            return None
        out = set(tbox.get(prop, ()))
        for term, body in by_head.get(prop, ()):
            if not term.is_var:
                out.add(term.value)
                continue
            bound = [values_of(a.pred) for a in body if len(a.args) == 2 and a.args[1] == term
                     and a.pred not in _COMPARING]
            known = [b for b in bound if b is not None]
            if not known:
                return None
            out |= set.intersection(*map(set, known))
        memo[prop] = out
        return out
    return values_of


_COMPARING = {"equal", "notEqual", "lessThan", "lessThanOrEqual", "greaterThan", "greaterThanOrEqual"}


def card_classes_with_rules(k: Knowledge) -> set[str]:
    """The card classes some rule of the ruleset names: the cards whose effects are played (a card
    no rule names plays without its effect: `ygo-onto cards` and docs/cards.md say so)."""
    own = {c.class_name for c in k.catalog}
    named = set()
    for body, head in parsed_rules(k):
        named.update(atom.pred for atom in body + head if atom.pred in own)
        named.update(arg.value for atom in body + head for arg in atom.args
                     if arg.kind == "name" and arg.value in own)
    return named


def effect_status(ruleset: str) -> dict[str, str]:
    """Card name -> whether its effect is played: "played" (it names effects of the effect vocabulary, or keyword
    abilities and is not a token, or some rule names its class), "none" (a Normal Monster, a token, or a card the catalog marks no_effect), "not yet" (neither: it
    plays as its facts alone)."""
    k = knowledge(ruleset)
    named = card_classes_with_rules(k)
    return {c.name: "played" if c.effects or (c.abilities and not c.is_token) or c.class_name in named else
            "none" if (c.card_type == "monster" and c.subtype in ("normal", "token")) or c.no_effect else "not yet"
            for c in k.catalog}


def knowledge(ruleset: str = "official") -> Knowledge:
    """The knowledge of a ruleset: the one an ontology file put in use (ontofile.Rules), else the sources'."""
    active = ACTIVE.get().get(ruleset)
    return active if active is not None else _source_knowledge(ruleset)


@lru_cache(maxsize=None)
def _source_knowledge(ruleset: str) -> Knowledge:
    """The knowledge of the sources (ontology/, rules/), checked; through the disk cache (see
    _sources_key), which also holds the fast backend's compiled program."""
    key = _sources_key(ruleset) if ruleset in RULESETS and diskcache.enabled() else None
    entry = f"knowledge-{ruleset}-{key}.pickle"
    if key is not None:
        data = diskcache.load(entry)
        if data is not None:
            try:
                return _from_entry(data, ruleset)
            except Exception:  # an entry of another shape: built again
                pass
    k = Knowledge(ruleset)
    k.check_rules()
    if key is not None:
        diskcache.store(entry, _entry(k, f"fastcode-{ruleset}-{key}.marshal"))
        for prefix in ("knowledge-", "fastcode-"):
            diskcache.prune(f"{prefix}{ruleset}-")
    return k


# bump when the shape of a knowledge entry changes (the package's code is in the key anyway)
CACHE_VERSION = 2
# what a knowledge entry keeps of what is made of a Knowledge once (abox.idle_counts, abox.idle_abilities,
# reasoned_rules): a new process would otherwise spend a few tenths of a second making it again
DERIVED_ENTRIES = ("_idle_counts", "_idle_abilities", "_reasoned_rules", "_made_in_duels")


def _sources_key(ruleset: str) -> str | None:
    """sha256 of everything the source knowledge of a ruleset is derived from: every file of
    ontology/ (TBox, card catalogs, catalog-v001.xml), every rules/**/*.swrl, the card data
    (data/), the package's code and the Python version, the rdflib and clingo installs.  None
    when a file cannot be read (no cache then)."""
    try:
        libs = [_library_stamp(name) for name in ("rdflib", "clingo")]
        h = hashlib.sha256(f"{ruleset}|{CACHE_VERSION}|{diskcache.package_code()}|{'|'.join(libs)}".encode())
        data_dir = resources.data_dir()
        for root, files in ((ONTOLOGY_DIR, sorted(p for p in ONTOLOGY_DIR.iterdir() if p.is_file())),
                            (RULES_DIR, sorted(RULES_DIR.rglob("*.swrl"))),
                            (data_dir, sorted(p for p in data_dir.iterdir() if p.is_file()))):
            h.update(f"|{root.name}:{diskcache.files_digest(files, root)}".encode())
        return h.hexdigest()
    except OSError:
        return None


def _library_stamp(name: str) -> str:
    """Where a library is installed, its __init__'s size and time and the version in the name of its
    dist-info folder (an upgrade changes them), found without importing it (importlib.metadata costs
    a CLI call 40 ms)."""
    import importlib.util
    import os

    try:
        origin = importlib.util.find_spec(name).origin
        st = os.stat(origin)
        site = os.path.dirname(os.path.dirname(origin))
        infos = sorted(d for d in os.listdir(site) if d.lower().startswith(name + "-") and d.endswith(".dist-info"))
    except Exception:
        return f"{name}=?"
    return f"{name}={origin}:{st.st_size}:{st.st_mtime_ns}:{','.join(infos)}"


def _entry(k: Knowledge, code_entry: str) -> dict:
    """What the cache keeps of a source knowledge: its tables, rules and TBox (N-Triples), and the
    fast backend's compiled program with its parsed form and the name of the entry of its
    generated functions' code (None if the program does not compile: the error comes again on use)."""
    from .errors import ReasonerError
    from .reasoning.fast.compiler import compiled
    from .reasoning.fast.evaluator import parse_program

    try:
        comp = compiled(k)
    except ReasonerError:
        comp = None
    else:
        comp.parsed[0] = parse_program(comp.program_without_eq)
        comp.code_entry = code_entry
    reasoned_rules(k)  # (and the catalog's idle counts and abilities it reads: kept below, made once per sources)
    return {"ruleset": k.ruleset, "cards": list(k.catalog), "rules": k.rules,
            "tbox": k.tbox.serialize(format="nt", encoding="utf-8"), "vocabulary": k.vocabulary,
            "compiled": comp, "derived": {name: k.__dict__[name] for name in DERIVED_ENTRIES if name in k.__dict__}}


def _from_entry(data: dict, ruleset: str) -> Knowledge:
    if data["ruleset"] != ruleset:
        raise ValueError(ruleset)
    k = Knowledge(ruleset, catalog_=Catalog(ruleset, data["cards"]), rules=data["rules"],
                  tbox=_LazyGraph(data["tbox"]))
    k.__dict__["vocabulary"] = data["vocabulary"]
    k.__dict__.update(data["derived"])  # (each names the rules it was made of: the same list, pickled once)
    comp = data["compiled"]
    if comp is not None:
        # compiler.compiled takes it for as long as the rules are these (its fingerprint)
        k.preset_compiled = ((k.vocabulary, k.rules, list(k.rules)), comp)
        for message in comp.never:  # as compiling them would warn
            warnings.warn(f"fast: {message}", stacklevel=2)
    return k


class _LazyGraph:
    """A TBox graph kept as N-Triples (a cache entry's), parsed only when something reads it
    (fast's compiler, explain's comments; the vocabulary tables come from the cache)."""

    def __init__(self, nt: bytes):
        self._nt = nt
        self._g = None

    def _graph(self) -> Graph:
        if self._g is None:
            from rdflib import Graph

            self._g = Graph()
            self._g.parse(data=self._nt.decode("utf-8"), format="nt")
        return self._g

    def serialize(self, *args, **kwargs):
        if kwargs.get("format") == "nt" and kwargs.get("encoding") == "utf-8" and not args:
            return self._nt
        return self._graph().serialize(*args, **kwargs)

    def __getattr__(self, name):
        if name.startswith("__"):  # (pickle, copy: not the graph's)
            raise AttributeError(name)
        return getattr(self._graph(), name)

    def __iter__(self):
        return iter(self._graph())

    def __len__(self):
        return len(self._graph())

    def __contains__(self, t):
        return t in self._graph()


# ruleset -> Knowledge loaded from an ontology file (ontofile.Rules.use): knowledge() and
# cards.catalog() answer with it, so every module that names a ruleset sees the file's cards and rules.
ACTIVE: ContextVar[dict] = ContextVar("ygo_onto_active_knowledge", default={})
