"""What the reasoners know: the TBox (ontology/ygo-onto.owl), the card classes of a ruleset's
catalog, and the ruleset's SWRL rules (rules/common + rules/<ruleset>).

One `Knowledge` per ruleset, built once and cached.  It exposes the vocabulary as a table
(`Vocabulary`) so that every other module names ontology terms through it: a misspelt term
is an error at once (rdflib's DefinedNamespace habit).
"""
from __future__ import annotations

from contextvars import ContextVar
from dataclasses import dataclass, field
from functools import cached_property, lru_cache

from rdflib import Graph, Literal, Namespace, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS

from . import resources
from .cards import catalog
from .swrl import BUILTIN_NAMES, Rule, RuleSyntaxError, parse_rule_file, parse_rule_text  # noqa: F401  (Rule: re-exported)

# Where the files live (a source checkout or an installed wheel): resources.py.
ONTOLOGY_DIR = resources.ontology_dir()
RULES_DIR = resources.rules_dir()
TBOX_FILE = resources.tbox_file()

BASE = "http://ygo-onto.org/ontology"
YGO = Namespace(BASE + "#")
CARDS = {r: Namespace(f"http://ygo-onto.org/cards/{r}#") for r in ("official", "simplified")}
ABOX = Namespace("http://ygo-onto.org/state#")
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

    def annotated(self, key: str) -> dict[str, str]:
        """Terms carrying an annotation `key` (e.g. actionType), with its value (read once per key
        and number of annotated terms: the apply loop asks for every reasoner run)."""
        hit = self._annotated.get(key)
        if hit is None or hit[0] != len(self.annotations):
            hit = self._annotated[key] = (len(self.annotations),
                                          {term: ann[key] for term, ann in self.annotations.items() if key in ann})
        return dict(hit[1])


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
        self.cards_ns = CARDS[ruleset]
        self.source = source
        if tbox is not None:
            self.__dict__["tbox"] = tbox  # the cached_property's slot
        if rules is not None:
            self.rules = rules
            return
        self.rules = []
        for folder in ("common", ruleset):
            for path in sorted((RULES_DIR / folder).rglob("*.swrl")):
                self.rules.extend(parse_rule_file(path, path.relative_to(RULES_DIR).as_posix()))

    @cached_property
    def tbox(self) -> Graph:
        """The TBox plus one class per catalog card (labels in English and Italian, a description,
        and the catalog's facts as annotations: see ontofile.card_triples): ontology/ygo-onto.owl
        and ontology/cards-RULESET.owl, whatever Protégé saved in them about the cards."""
        from .cards import catalog_file, read_catalog_file

        g = Graph()
        g.parse(TBOX_FILE, format="xml")
        ns = self.cards_ns
        g.bind("ygo", YGO)
        g.bind("card", ns)
        for triple in read_catalog_file(catalog_file(self.ruleset), self.ruleset)[1]:
            g.add(triple)
        return g

    @cached_property
    def core_names(self) -> frozenset:
        """Local names of the terms in the ygo: namespace (the rest of the classes are cards)."""
        return frozenset(str(s)[len(str(YGO)):] for s in self.tbox.subjects() if str(s).startswith(str(YGO)))

    @cached_property
    def vocabulary(self) -> Vocabulary:
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
                    "destinationPlace", "marksCard", "counterKey"):
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


def knowledge(ruleset: str = "official") -> Knowledge:
    """The knowledge of a ruleset: the one an ontology file put in use (ontofile.Rules), else the sources'."""
    active = ACTIVE.get().get(ruleset)
    return active if active is not None else _source_knowledge(ruleset)


@lru_cache(maxsize=None)
def _source_knowledge(ruleset: str) -> Knowledge:
    k = Knowledge(ruleset)
    k.check_rules()
    return k


# ruleset -> Knowledge loaded from an ontology file (ontofile.Rules.use): knowledge() and
# cards.catalog() answer with it, so every module that names a ruleset sees the file's cards and rules.
ACTIVE: ContextVar[dict] = ContextVar("ygo_onto_active_knowledge", default={})
