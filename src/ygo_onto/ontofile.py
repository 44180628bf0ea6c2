"""The ontology file that Protégé edits: rules with identity, cards as ontology data, and reading a
saved file back (`Rules.load`, the CLI's `--ontology`).

- Each SWRL rule of rules/**/*.swrl is exported as a named swrl:Imp
  (`http://ygo-onto.org/rules/official/summons.swrl#rule3`) with its name as rdfs:label (what
  SWRLTab shows), its rulebook citation (the comment above it) as rdfs:comment and its file as
  ygo:ruleFile.  The OWL API (Protégé) writes rules back as anonymous axioms, so a rule is found
  again by its label.
- Each card is a class under the design's card classes (NormalMonster, FieldSpell, ...) with the
  catalog's facts as annotations (ygo:cardLevel, ygo:cardAtk, ..., ygo:cardActivation with the
  ActivationRequirement individuals): `card_triples` writes them, `cards_from_graph` reads them.
- `Rules.load(path)` reads a saved file (RDF/XML or OWL/XML; owl:imports resolved through a
  catalog-v001.xml) into a `Knowledge` whose TBox, cards and rules are the file's, and checks it
  (vocabulary of every rule; for `fast`, that every rule compiles).  What it reads is cached on
  disk by the file's content hash, so a second run does not parse the file again.
"""
from __future__ import annotations

import contextlib
import dataclasses
import hashlib
import io
import json
import logging
import re
import xml.etree.ElementTree as ET
from pathlib import Path

from rdflib import BNode, Graph, Literal, URIRef
from rdflib.collection import Collection
from rdflib.namespace import OWL, RDF, RDFS, XSD

from . import diskcache
from .cards import MONSTER_CLASSES, SPELL_CLASSES, TRAP_CLASSES, Card, Catalog, class_name, official_based
from .envvars import env_number
from .errors import ReasonerError, StateError
from .knowledge import ABOX, ACTIVE, BASE, CARDS, RULES_DIR, YGO, Knowledge, Rule, VocabularyError, _LazyGraph

RULES_BASE = "http://ygo-onto.org/rules/"
SWRL = "http://www.w3.org/2003/11/swrl#"
SWRLB = "http://www.w3.org/2003/11/swrlb#"
SWRL_IMP = URIRef(SWRL + "Imp")
CACHE_VERSION = 1  # bump when what the disk cache holds changes shape


# ------------------------------------------------------------------------------------------ rules

def rule_iri(rule: Rule) -> URIRef:
    """'official/summons.swrl#3' -> http://ygo-onto.org/rules/official/summons.swrl#rule3."""
    path, _, number = rule.name.rpartition("#")
    return URIRef(f"{RULES_BASE}{path}#rule{number}")


def _arg_text(arg) -> str:
    """One argument of a parsed atom (swrl.parse_rule's, or the compiler's Term) as rule text."""
    kind = getattr(arg, "kind", None)
    if kind is not None:  # fast's Term(kind, value)
        value = arg.value
        if kind == "var":
            return "?" + str(value).lstrip("?")
        if kind == "bool":
            return "true" if value in (True, "true") else "false"
        if kind == "str":
            text = str(value)
            return text if text.startswith(('"', "'")) else f'"{text}"'
        return str(value)
    if hasattr(arg, "name") and type(arg).__name__ == "Var":
        return "?" + arg.name
    if isinstance(arg, bool):
        return "true" if arg else "false"
    if isinstance(arg, tuple) and len(arg) == 2 and arg[0] == "literal":
        return f'"{arg[1]}"'
    return str(arg)


def atom_texts(text: str) -> tuple[list[str], list[str]]:
    """A rule's body and head atoms, each as normalised text ('Pred(?x, 3)')."""
    from .swrl import parse_rule

    body, head = parse_rule(text)

    def show(atom):
        pred = getattr(atom, "predicate", None) or getattr(atom, "pred")
        return f"{pred}({', '.join(_arg_text(a) for a in atom.args)})"

    return [show(a) for a in body], [show(a) for a in head]


def rule_text(body: list[str], head: list[str]) -> str:
    return f"{', '.join(body)} -> {', '.join(head)}"


def same_rule(a: str, b: str) -> bool:
    """Two rule texts say the same (atoms compared as sets: the OWL API may reorder them)."""
    ba, ha = atom_texts(a)
    bb, hb = atom_texts(b)
    return set(ba) == set(bb) and set(ha) == set(hb)


# ------------------------------------------------------------------------------------------ cards

_KIND = {**{v: ("monster", k) for k, v in MONSTER_CLASSES.items()},
         **{v: ("spell", k) for k, v in SPELL_CLASSES.items()},
         **{v: ("trap", k) for k, v in TRAP_CLASSES.items()}}
_INT_FIELDS = {"cardLevel": "level", "cardAtk": "atk", "cardDef": "defense", "cardPasscode": "passcode"}
_STR_FIELDS = {"cardAttribute": "attribute", "cardMonsterType": "monster_type", "cardRitualMonster": "ritual_monster",
               "cardDescription": "description"}
_BOOL_FIELDS = {"cardStaysOnField": "stays_on_field", "cardSpecialSummonOnly": "special_summon_only",
                "cardOwnProcedureOnly": "own_procedure_only", "cardOptionalEffect": "optional_effect",
                "cardNeverSpecialSummoned": "never_special_summoned"}


def card_triples(card: Card, ns) -> list[tuple]:
    """The triples of a card's class: its kind classes, labels, comment and the catalog's facts."""
    c = ns[card.class_name]
    out = [(c, RDF.type, OWL.Class)]
    out += [(c, RDFS.subClassOf, YGO[parent]) for parent in card.kind_classes]
    out.append((c, RDFS.label, Literal(card.name, lang="en")))
    if card.italian_name:
        out.append((c, RDFS.label, Literal(card.italian_name, lang="it")))
    out.append((c, RDFS.comment, Literal(f"{card.kind_label}. {card.description}".strip(), lang="en")))
    for prop, attr in _INT_FIELDS.items():
        if getattr(card, attr) is not None:
            out.append((c, YGO[prop], Literal(getattr(card, attr), datatype=XSD.integer)))
    for prop, attr in _STR_FIELDS.items():
        if getattr(card, attr):
            out.append((c, YGO[prop], Literal(getattr(card, attr))))
    for prop, attr in _BOOL_FIELDS.items():
        if getattr(card, attr):
            out.append((c, YGO[prop], Literal(True)))
    if card.materials:
        out.append((c, YGO.cardMaterials, Literal(" + ".join(card.materials))))
    if card.phases:
        out.append((c, YGO.cardPhases, Literal("|".join(card.phases))))
    out += [(c, YGO.cardAlias, Literal(a)) for a in card.aliases]
    # The requirements in order: one annotation each, numbered in an rdf:List-free way (a prefix
    # "n:" is not needed while a card has at most one of each; the catalog keeps their order).
    if card.activation:
        out.append((c, YGO.cardActivation, Literal(" ".join(card.activation))))
    out += [(c, YGO.cardEffect, ns[effect]) for effect in card.effects]  # (an Effect individual of the card file)
    out += [(c, YGO.cardAbility, YGO[ability]) for ability in card.abilities]  # (a KeywordAbility individual of the TBox)
    # any other catalog field (one added after this mapping was written) as "name=JSON", so a round trip keeps it
    for f in dataclasses.fields(card):
        if f.init and f.compare and f.name not in _MAPPED and getattr(card, f.name) != f.default:
            out.append((c, YGO.cardField, Literal(f"{f.name}={json.dumps(getattr(card, f.name))}")))
    return out


_MAPPED = {"name", "card_type", "subtype", "tuner", "flip", "italian_name", "materials", "phases", "activation", "effects",
           "abilities", "aliases", *_INT_FIELDS.values(), *_STR_FIELDS.values(), *_BOOL_FIELDS.values()}


def _local(uri) -> str:
    s = str(uri)
    return s.rsplit("#", 1)[-1] if "#" in s else s.rsplit("/", 1)[-1]


def cards_from_graph(g: Graph, ruleset: str) -> list[Card]:
    """Every card class of the ruleset's card namespace in g, read back as catalog entries.

    :raises StateError: a card class without its English label or kind (the message names it).
    """
    ns = str(CARDS[ruleset])
    cards = []
    for c in sorted({s for s in g.subjects(RDF.type, OWL.Class) if str(s).startswith(ns)}, key=str):
        where = f"card class {_local(c)}"
        kinds = [_KIND[_local(o)] for o in g.objects(c, RDFS.subClassOf) if str(o).startswith(str(YGO))
                 and _local(o) in _KIND]
        if not kinds:
            raise StateError(f"{where}: expected a subclass of one of {', '.join(sorted(_KIND))}, got none")
        parents = {_local(o) for o in g.objects(c, RDFS.subClassOf)}
        labels = {getattr(o, "language", None): str(o) for o in g.objects(c, RDFS.label)}
        name = labels.get("en") or labels.get(None)
        if not name:
            raise StateError(f"{where}: expected an English rdfs:label (the card's name), got none")
        fields: dict = {}
        card_type, subtype = kinds[0]

        def value(prop):
            return g.value(c, YGO[prop])

        for prop, attr in _INT_FIELDS.items():
            v = value(prop)
            if v is not None:
                try:
                    fields[attr] = int(v)
                except ValueError:
                    raise StateError(f"{where}: ygo:{prop}: expected an integer, got {str(v)!r}") from None
        for prop, attr in _STR_FIELDS.items():
            v = value(prop)
            if v is not None:
                fields[attr] = str(v)
        for prop, attr in _BOOL_FIELDS.items():
            v = value(prop)
            fields[attr] = v is not None and str(v).lower() in ("true", "1")
        for extra in g.objects(c, YGO.cardField):
            key, _, text = str(extra).partition("=")
            try:
                v = json.loads(text)
            except ValueError:
                raise StateError(f"{where}: ygo:cardField: expected name=JSON, got {str(extra)!r}") from None
            fields[key] = tuple(v) if isinstance(v, list) else v
        materials, phases, activation = value("cardMaterials"), value("cardPhases"), value("cardActivation")
        if "description" not in fields:  # a card made in Protégé may have only its comment
            comment = str(g.value(c, RDFS.comment) or "")
            fields["description"] = comment.split(". ", 1)[1] if ". " in comment else comment
        needed = {"cardLevel": "level", "cardAtk": "atk", "cardDef": "defense"} if card_type == "monster" else {}
        if card_type == "monster" and official_based(ruleset):  # the rules read them (currentAtk, a Field Spell's Type bonus, counts)
            needed.update({"cardAttribute": "attribute", "cardMonsterType": "monster_type"})
        for prop, attr in needed.items():
            if fields.get(attr) in (None, ""):
                raise StateError(f"{where}: a monster needs its ygo:{prop} annotation, got none")
        unknown = set(fields) - {f.name for f in dataclasses.fields(Card) if f.init}
        if unknown:
            raise StateError(f"{where}: ygo:cardField: expected a field of the catalog, got {', '.join(sorted(unknown))}")
        cards.append(Card(name=name, card_type=card_type, subtype=subtype, tuner="TunerMonster" in parents,
                          flip="FlipEffectMonster" in parents, italian_name=labels.get("it"),
                          materials=tuple(m.strip() for m in str(materials or "").split(" + ") if m.strip()),
                          phases=tuple(p for p in str(phases or "").split("|") if p),
                          activation=tuple(str(activation or "").split()),
                          effects=tuple(sorted(_local(e) for e in g.objects(c, YGO.cardEffect))),
                          abilities=tuple(sorted(_local(a) for a in g.objects(c, YGO.cardAbility))),
                          aliases=tuple(sorted(str(a) for a in g.objects(c, YGO.cardAlias))),
                          owl_class=_local(c) if _local(c) != class_name(name) else None, **fields))
    return cards


# ------------------------------------------------------------------------------------------ reading

def _swrl_arg(g: Graph, node) -> str:
    if isinstance(node, Literal):
        if node.datatype in (XSD.integer, XSD.int, XSD.long, XSD.short, XSD.nonNegativeInteger):
            return str(int(node))
        if node.datatype == XSD.boolean:
            return "true" if node.toPython() is True else "false"
        if node.datatype in (XSD.decimal, XSD.double, XSD.float):
            return str(node)
        return '"' + str(node).replace('"', '\\"') + '"'
    s = str(node)
    if (node, RDF.type, URIRef(SWRL + "Variable")) in g or s.startswith("urn:swrl"):
        return "?" + _local(s)
    return _local(s)


def _swrl_atom(g: Graph, atom, where: str) -> str:
    kind = _local(g.value(atom, RDF.type) or "")
    a1, a2 = g.value(atom, URIRef(SWRL + "argument1")), g.value(atom, URIRef(SWRL + "argument2"))
    if kind == "ClassAtom":
        return f"{_local(g.value(atom, URIRef(SWRL + 'classPredicate')))}({_swrl_arg(g, a1)})"
    if kind in ("IndividualPropertyAtom", "DatavaluedPropertyAtom"):
        return f"{_local(g.value(atom, URIRef(SWRL + 'propertyPredicate')))}({_swrl_arg(g, a1)}, {_swrl_arg(g, a2)})"
    if kind == "BuiltinAtom":
        args = Collection(g, g.value(atom, URIRef(SWRL + "arguments")))
        return f"{_local(g.value(atom, URIRef(SWRL + 'builtin')))}({', '.join(_swrl_arg(g, a) for a in args)})"
    if kind == "SameIndividualAtom":
        return f"sameAs({_swrl_arg(g, a1)}, {_swrl_arg(g, a2)})"
    if kind == "DifferentIndividualsAtom":
        return f"differentFrom({_swrl_arg(g, a1)}, {_swrl_arg(g, a2)})"
    raise StateError(f"{where}: expected a SWRL atom, got a {kind or 'node without rdf:type'}")


def rules_from_graph(g: Graph, source: str) -> list[tuple[Rule, object]]:
    """Every swrl:Imp of g as (Rule, its node).  A rule's name is its label if it has one (the
    exported rules' names: 'official/summons.swrl#3'), else 'imported#N'."""
    out = []
    unnamed = 0
    taken: set[str] = set()
    for node in sorted(g.subjects(RDF.type, SWRL_IMP), key=lambda n: (str(g.value(n, RDFS.label) or "~"), str(n))):
        label = g.value(node, RDFS.label)
        if label is None:
            unnamed += 1
        name = str(label) if label is not None else f"imported#{unnamed}"
        while name in taken:  # a rule copied in Protégé with its label: a new rule
            name += "+"
        taken.add(name)
        where = f"{source}: rule {name}"
        parts = []
        for key in ("body", "head"):
            lst = g.value(node, URIRef(SWRL + key))
            atoms = [] if lst is None or lst == RDF.nil else list(Collection(g, lst))
            parts.append([_swrl_atom(g, a, where) for a in atoms])
        rule_file = g.value(node, YGO.ruleFile)
        comment = g.value(node, RDFS.comment)
        out.append((Rule(name, rule_text(*parts), str(comment) if comment is not None else "",
                         str(rule_file) if rule_file is not None else "", 0), node))
    return out


def _rule_triples(g: Graph) -> set:
    """The triples that make up the SWRL rules (the Imps, their atoms, lists and variables)."""
    out, todo, seen = set(), list(g.subjects(RDF.type, SWRL_IMP)), set()
    while todo:
        n = todo.pop()
        if n in seen:
            continue
        seen.add(n)
        for p, o in g.predicate_objects(n):
            out.add((n, p, o))
            if isinstance(o, BNode):
                todo.append(o)
    for v in g.subjects(RDF.type, URIRef(SWRL + "Variable")):
        out.update((v, p, o) for p, o in g.predicate_objects(v))
    return out


def split_graph(g: Graph) -> tuple[Graph, list]:
    """(the TBox and card classes, the rule triples) of a saved file; state individuals dropped."""
    rules = _rule_triples(g)
    # axiom annotations (owl:Axiom reifications) say nothing the engine reads
    for ax in set(g.subjects(RDF.type, OWL.Axiom)):
        rules.update(g.triples((ax, None, None)))
    tbox = Graph()
    tbox.bind("ygo", YGO)
    abox = str(ABOX)
    for t in g:
        if t in rules or str(t[0]).startswith(abox):
            continue
        tbox.add(t)
    # owlready2's and the OWL API's leftovers: a second ontology header
    for header in list(tbox.subjects(RDF.type, OWL.Ontology)):
        if str(header) != BASE:
            tbox.remove((header, None, None))
    return tbox, rules


def _catalog_uris(directory: Path) -> dict[str, Path]:
    uris: dict[str, Path] = {}
    for d in (directory, *directory.parents[:2]):
        cat = d / "catalog-v001.xml"
        if cat.is_file():
            try:
                root = ET.fromstring(check_xml_file(cat, "an XML catalog"))
            except ET.ParseError as exc:
                raise StateError(f"{cat}: expected an XML catalog, got {exc}") from None
            for u in root.iter():
                if u.tag.endswith("uri") and u.get("name") and u.get("uri"):
                    uris.setdefault(u.get("name"), (d / u.get("uri")).resolve())
    return uris


def read_graph(path: Path) -> tuple[Graph, list[Path]]:
    """The file as one rdflib graph, its owl:imports merged in (resolved through catalog-v001.xml).

    :returns: (graph, every file read).
    :raises StateError: not a file, not RDF/XML or OWL/XML, or an import that no catalog resolves.
    """
    path = Path(path)
    if not path.is_file():
        raise StateError(f"{path}: expected an ontology file, got no such file")
    g = _parse(path)
    files, done = [path], {str(BASE)}
    todo = [str(o) for o in g.objects(None, OWL.imports)]
    uris = _catalog_uris(path.resolve().parent)
    while todo:
        iri = todo.pop()
        if iri in done:
            continue
        done.add(iri)
        target = uris.get(iri)
        if target is None or not target.is_file():
            raise StateError(f"{path}: owl:imports {iri}: expected a catalog-v001.xml entry for it next to the file, "
                             "got none (imports are resolved offline)")
        sub = _parse(target)
        files.append(target)
        todo += [str(o) for o in sub.objects(None, OWL.imports)]
        for t in sub:
            if t[1] != OWL.imports:
                g.add(t)
    for t in list(g.triples((None, OWL.imports, None))):
        g.remove(t)
    return g, files


# The largest OWL file read (an export with a state is about 2 MB): a larger one is refused before it is parsed.
# YGO_MAX_OWL_BYTES sets the bound.
DEFAULT_MAX_OWL_BYTES = 32 * 1024 * 1024
MAX_OWL_BYTES_ENV = "YGO_MAX_OWL_BYTES"
# The XML entities a file may declare (Protégé may write its namespaces as entities): plain text each, at most
# this long, and all their uses together at most EXPANSION_FACTOR times the file's size.
MAX_ENTITY_VALUE = 1024
EXPANSION_FACTOR = 4
_ENTITY_USE = re.compile(rb"&([A-Za-z_][\w.:-]*);")


def max_owl_bytes() -> int:
    """The size bound in use: YGO_MAX_OWL_BYTES if it is set (bytes, an integer >= 0), else DEFAULT_MAX_OWL_BYTES."""
    return env_number(MAX_OWL_BYTES_ENV, DEFAULT_MAX_OWL_BYTES, "a number of bytes (an integer >= 0)")


class _Prolog(Exception):
    """The root element began: the declarations before it are all read."""


def check_xml_file(path: Path, what: str = "an ontology file") -> bytes:
    """The bytes of an XML file this project reads (an ontology, an import, a catalog), once they pass two bounds:
    the file's size (max_owl_bytes), and its entity declarations: no external or parameter entity, no entity
    whose text uses another (nesting: the "billion laughs", a few hundred bytes that expand to gigabytes), none
    longer than MAX_ENTITY_VALUE, and their uses together no more than EXPANSION_FACTOR times the file.

    :raises StateError: naming the file and the bound it passes, or the entity.
    """
    from xml.parsers import expat

    size = path.stat().st_size
    bound = max_owl_bytes()
    if size > bound:
        raise StateError(f"{path}: expected {what} of at most {bound:,} bytes ({MAX_OWL_BYTES_ENV} sets the bound), "
                         f"got {size:,} bytes")
    data = path.read_bytes()
    if b"<!ENTITY" not in data:
        return data
    entities: dict[str, int] = {}

    def declared(name, is_parameter, value, _base, system_id, public_id, _notation):
        if is_parameter or system_id or public_id or value is None:
            raise StateError(f"{path}: expected {what} without external or parameter XML entities, got the entity "
                             f"{name!r} (refused: an entity may read other files or expand without bound)")
        if "&" in value or "%" in value:
            raise StateError(f"{path}: expected {what} whose XML entities are plain text, got the entity {name!r} "
                             "that uses another (refused: nested entities expand without bound)")
        if len(value) > MAX_ENTITY_VALUE:
            raise StateError(f"{path}: expected XML entities of at most {MAX_ENTITY_VALUE} characters, got the "
                             f"entity {name!r} of {len(value):,}")
        entities[name] = len(value)

    def root(*_args):
        raise _Prolog()

    parser = expat.ParserCreate()
    parser.EntityDeclHandler = declared
    parser.StartElementHandler = root
    try:
        parser.Parse(data, True)
    except _Prolog:
        pass
    except expat.ExpatError:  # not XML: the parser that reads it says where
        return data
    grown = sum(entities.get(m.group(1).decode("ascii", "replace"), 0) for m in _ENTITY_USE.finditer(data))
    if grown > EXPANSION_FACTOR * size:
        raise StateError(f"{path}: expected XML entities that expand to at most {EXPANSION_FACTOR} times the file's "
                         f"size, got {grown:,} characters from a file of {size:,} bytes (refused: entity expansion)")
    return data


@contextlib.contextmanager
def quiet_rdflib():
    """rdflib logs a traceback for a typed literal it cannot convert (`"abc"^^xsd:integer`) as it parses: the
    checks after the parse name the literal and its property, so that log stays off the user's terminal."""
    logger = logging.getLogger("rdflib.term")
    before = logger.disabled
    logger.disabled = True
    try:
        yield
    finally:
        logger.disabled = before


def _parse(path: Path) -> Graph:
    data = check_xml_file(path)
    head = data[:2000].decode("utf-8", "replace")
    g = Graph()
    if "<Ontology" in head and "www.w3.org/2002/07/owl#" in head and "<rdf:RDF" not in head:
        from .owlxml import parse_owlxml  # OWL/XML, as Protégé saves it on request

        return parse_owlxml(path)
    try:
        with quiet_rdflib():
            g.parse(data=data, format="xml", publicID=path.resolve().as_uri())
    except Exception as exc:  # rdflib raises SAX and its own errors with a line number
        if hasattr(exc, "getLineNumber"):  # (a SAXParseException: the XML itself does not parse)
            raise StateError(f"{path}: expected an OWL file (RDF/XML or OWL/XML), got XML that does not parse: "
                             f"line {exc.getLineNumber()}, column {exc.getColumnNumber()}: {exc.getMessage()}") from None
        raise StateError(f"{path}: expected an OWL file (RDF/XML or OWL/XML), got {type(exc).__name__}: "
                         f"{str(exc)[:200]}") from None
    if not any(g.subjects(RDF.type, OWL.Ontology)) and not any(g.subjects(RDF.type, OWL.Class)):
        raise StateError(f"{path}: expected an OWL ontology (RDF/XML or OWL/XML), got {_what_xml(data)}")
    return g


def _what_xml(data: bytes) -> str:
    """What an XML file that is not OWL holds, for the message: its root element, or RDF without OWL."""
    from xml.parsers import expat

    tags: list = []

    def root(name, _attrs):
        tags.append(name)
        raise _Prolog()

    parser = expat.ParserCreate(namespace_separator=" ")
    parser.StartElementHandler = root
    try:
        parser.Parse(data, True)
    except (_Prolog, expat.ExpatError):
        pass
    if not tags:
        return "no XML element"
    ns, _, local = tags[0].rpartition(" ")
    if (ns, local) == ("http://www.w3.org/1999/02/22-rdf-syntax-ns#", "RDF"):
        return "RDF with no owl:Ontology and no owl:Class"
    return f"XML whose root element is <{local}>" + (f" (namespace {ns})" if ns else "") + \
        ", not <rdf:RDF> (RDF/XML) nor <Ontology> (OWL/XML)"


def ruleset_of(g: Graph, path) -> str:
    named = g.value(URIRef(BASE), YGO.ruleset)
    if named is not None:
        if str(named) not in CARDS:
            raise StateError(f"{path}: ygo:ruleset: expected one of {', '.join(CARDS)}, got {str(named)!r}")
        return str(named)
    found = [r for r, ns in CARDS.items() if any(str(s).startswith(str(ns)) for s in g.subjects(RDF.type, OWL.Class))]
    if len(found) != 1:
        raise StateError(f"{path}: expected the ygo:ruleset annotation on the ontology ({', '.join(CARDS)}), got none")
    return found[0]


def _source_lines(rules: list[Rule], ruleset: str) -> None:
    """A rule the sources hold unchanged keeps its line there (explain shows file:line)."""
    from .knowledge import _source_knowledge

    try:
        src = {r.name: r for r in _source_knowledge(ruleset).rules}
    except Exception:  # sources that do not load are not this file's problem
        return
    for r in rules:
        if r.name in src and r.file == src[r.name].file and same_rule(r.text, src[r.name].text):
            r.line = src[r.name].line


def _code_hash() -> str:
    """The readers' own code: a cache entry written by other code is not used."""
    return diskcache.modules_digest("ontofile.py", "cards.py", "knowledge.py", "primitives.py")  # primitives: _check_operations


def _cache_dir() -> Path:
    return diskcache.cache_dir()


def _check(k: Knowledge, path) -> None:
    """Every rule's vocabulary is declared; no TBox individual (and no class) falls in two disjoint classes."""
    try:
        k.check_rules()
    except VocabularyError as exc:
        raise StateError(f"{path}: {exc.args[0]}; declare it in the ontology or fix the rule") from None
    v = k.vocabulary
    _check_operations(k, path)
    for card in k.catalog:
        if card.monster_type and "Type" + card.monster_type.replace("-", "").replace(" ", "") not in v.individuals:
            types = sorted(i[4:] for i in v.individuals if i.startswith("Type"))
            raise StateError(f"{path}: card class {card.class_name}: ygo:cardMonsterType: expected one of "
                             f"{', '.join(types)}, got {card.monster_type!r}")
    groups = _disjoint_groups(k.tbox)
    for ind, classes in sorted(v.individuals.items()):
        closure = set(classes).union(*(v.ancestors(c) for c in classes)) if classes else set()
        for group in groups:
            if len(group & closure) > 1:
                raise StateError(f"{path}: the TBox is inconsistent: individual {ind} is a member of the disjoint "
                                 f"classes {', '.join(sorted(group & closure))}")
    for c in sorted(v.classes):
        closure = v.ancestors(c) | {c}
        for group in groups:
            if len(group & closure) > 1:
                raise StateError(f"{path}: the TBox is inconsistent: class {c} is a subclass of the disjoint "
                                 f"classes {', '.join(sorted(group & closure))} (it can have no member)")


def _check_operations(k: Knowledge, path) -> None:
    """What the rules infer as operations can be carried out: every property annotated ygo:primitive names
    a primitive of the driver (primitives.PRIMITIVES) and has its place in a step's order (primitives.ORDER),
    and no rule concludes an `op...` property without that annotation (it would change nothing, silently:
    the OWL API declares an unknown property a rule names, so a typo would load)."""
    from .primitives import LIST_AREAS, MOVE_AREAS, ORDER, PLACES, PRIMITIVES
    from .swrl import parse_rule_text

    ops = k.vocabulary.annotated("primitive")
    for prop, name in sorted(ops.items()):
        if name not in PRIMITIVES:
            raise StateError(f"{path}: property {prop}: ygo:primitive: expected one of the driver's primitives "
                             f"({', '.join(sorted(PRIMITIVES))}), got {name!r}")
        if name == "move":  # where the card goes is the property's data (primitives.move)
            ann = k.vocabulary.annotations[prop]
            area = ann.get("destinationArea")
            if area not in MOVE_AREAS:
                raise StateError(f"{path}: property {prop}: ygo:destinationArea: expected one of "
                                 f"{', '.join(MOVE_AREAS)} (where the primitive move puts the card), "
                                 f"got {'none' if area is None else repr(area)}")
            place = ann.get("destinationPlace")
            if place is not None and (place not in PLACES or area not in LIST_AREAS):
                raise StateError(f"{path}: property {prop}: ygo:destinationPlace: expected one of {', '.join(PLACES)} "
                                 f"on a move to a list of cards ({', '.join(LIST_AREAS)}), got {place!r} "
                                 f"(destinationArea {area})")
            mark = ann.get("marksCard")
            if mark is not None and not (re.fullmatch(r"[a-z][a-z_]*", mark) and area in ("monster_zones", "spell_trap_zones")):
                raise StateError(f"{path}: property {prop}: ygo:marksCard: expected a bookkeeping key (lower case "
                                 f"and _) on a move to monster_zones or spell_trap_zones, got {mark!r} "
                                 f"(destinationArea {area})")
            full = ann.get("areaWhenFull")
            if full is not None and (full not in LIST_AREAS or area not in ("monster_zones", "spell_trap_zones")):
                raise StateError(f"{path}: property {prop}: ygo:areaWhenFull: expected one of {', '.join(LIST_AREAS)} "
                                 f"on a move to monster_zones or spell_trap_zones, got {full!r} (destinationArea {area})")
            continue  # a new move operation has its place in a step by its destination (primitives.step_place)
        if name == "set_counter":  # which counter is the property's data (primitives.set_counter)
            key = k.vocabulary.annotations[prop].get("counterKey")
            if key is None or not re.fullmatch(r"[a-z][a-z_]*", key):
                raise StateError(f"{path}: property {prop}: ygo:counterKey: expected the key of the card's counter "
                                 f"it sets (lower case and _), got {'none' if key is None else repr(key)}")
            continue  # a new counter operation is carried out with the cards' values (primitives.step_place)
        if prop not in ORDER:
            raise StateError(f"{path}: property {prop}: expected an operation the driver knows (its place in a step "
                             f"and what primitive {name!r} does with it are in primitives.py), got a new one; "
                             f"infer an existing operation property instead (docs/decisions.md, \"Cards as data\")")
    for prop, key in sorted(k.vocabulary.annotated("counterKey").items()):
        if prop not in ops and not (prop in k.vocabulary.data_properties and re.fullmatch(r"[a-z][a-z_]*", key)):
            raise StateError(f"{path}: property {prop}: ygo:counterKey: expected on a data property (a card's "
                             f"counter, read as a fact) the key of the counter (lower case and _), got {key!r}")
    for rule in k.rules:
        for atom in parse_rule_text(rule.text)[1]:
            if re.fullmatch(r"op[A-Z]\w*", atom.pred) and atom.pred not in ops:
                raise StateError(f"{path}: rule {rule.name} ({rule.where}): {atom.pred} has no ygo:primitive "
                                 f"annotation: nothing would carry the operation out; expected one of "
                                 f"{', '.join(sorted(ops))}")


def _disjoint_groups(g) -> list[frozenset]:
    """Groups of pairwise disjoint named classes (owl:disjointWith, owl:AllDisjointClasses)."""
    out = [frozenset((_local(s), _local(o))) for s, o in g.subject_objects(OWL.disjointWith)]
    for node in g.subjects(RDF.type, OWL.AllDisjointClasses):
        members = g.value(node, OWL.members)
        if members is not None:
            out.append(frozenset(_local(m) for m in Collection(g, members)))
    return out


class Rules:
    """The TBox, cards and SWRL rules of an ontology file, ready for the engine.

    >>> rules = Rules.load("saved.owl")          # doctest: +SKIP
    >>> GameState.load("state.json", rules=rules).allowed_actions()   # doctest: +SKIP
    """

    def __init__(self, knowledge: Knowledge, path: Path, digest: str, cached: bool):
        self.knowledge = knowledge
        self.path = path
        self.digest = digest
        self.cached = cached  # read from the disk cache, not parsed

    @property
    def ruleset(self) -> str:
        return self.knowledge.ruleset

    def __repr__(self) -> str:
        return f"<Rules {self.ruleset} from {self.path}: {len(self.knowledge.rules)} rules, {len(self.knowledge.catalog)} cards>"

    @classmethod
    def load(cls, path: str | Path, reasoner: str | None = "fast", cache: bool = True) -> "Rules":
        """Read an ontology file saved by Protégé (or written by export-owl).

        :raises StateError: not OWL, an import no catalog resolves, a rule with undeclared
            vocabulary, an inconsistent TBox; for reasoner "fast", a rule it cannot translate.
        """
        path = Path(path)
        if not path.is_file():
            raise StateError(f"{path}: expected an ontology file, got no such file")
        digest = hashlib.sha256(check_xml_file(path) + f"|{CACHE_VERSION}|{_code_hash()}".encode()).hexdigest()
        entry = f"{digest}.pickle"
        k = None
        data = diskcache.load(entry) if cache else None
        if data is not None:
            with contextlib.suppress(Exception):  # a stale or broken cache entry is read again
                if data["files"] and all(Path(f).is_file() and hashlib.sha256(Path(f).read_bytes()).hexdigest() == h
                                         for f, h in data["files"][1:]):
                    k = _from_cached(data, path)
        cached = k is not None
        if k is None:
            g, files = read_graph(path)
            ruleset = ruleset_of(g, path)
            tbox, _ = split_graph(g)
            rules = [r for r, _ in rules_from_graph(g, str(path))]
            _source_lines(rules, ruleset)
            try:
                cat = Catalog(ruleset, cards_from_graph(tbox, ruleset))
            except StateError as exc:
                raise StateError(f"{path}: {exc}") from None
            k = Knowledge(ruleset, catalog_=cat, rules=rules, tbox=tbox, source=str(path))
            _check(k, path)
            if cache and diskcache.enabled():
                with contextlib.suppress(OSError):
                    diskcache.store(entry, {
                        "ruleset": ruleset, "cards": list(cat), "rules": rules,
                        "tbox": tbox.serialize(format="nt", encoding="utf-8"),
                        "vocabulary": k.vocabulary,
                        "files": [(str(f), hashlib.sha256(Path(f).read_bytes()).hexdigest()) for f in files]})
        rules_obj = cls(k, path, digest, cached)
        if reasoner == "fast":
            rules_obj.compile()
        return rules_obj

    def compile(self) -> None:
        """Compile for the fast backend now (a rule it cannot translate is an error naming it)."""
        from .reasoning.fast import compiled

        try:
            compiled(self.knowledge)
        except ReasonerError as exc:
            raise StateError(f"{self.path}: {exc}") from None

    @contextlib.contextmanager
    def use(self):
        """Within the block, the engine runs this file's knowledge for its ruleset."""
        token = ACTIVE.set({**ACTIVE.get(), self.ruleset: self.knowledge})
        try:
            yield self
        finally:
            ACTIVE.reset(token)

    def activate(self) -> None:
        """From now on (in this context), the engine runs this file's knowledge (the CLI's --ontology)."""
        ACTIVE.set({**ACTIVE.get(), self.ruleset: self.knowledge})


def _from_cached(data: dict, path: Path) -> Knowledge:
    k = Knowledge(data["ruleset"], catalog_=Catalog(data["ruleset"], data["cards"]), rules=data["rules"],
                  tbox=_LazyGraph(data["tbox"]), source=str(path))
    k.__dict__["vocabulary"] = data["vocabulary"]
    return k


# ------------------------------------------------------------------------------------------ export

def name_rules(g: Graph, k: Knowledge) -> None:
    """Give each exported swrl:Imp (a blank node labelled with the rule's name) its IRI and ygo:ruleFile."""
    by_name = {r.name: r for r in k.rules}
    for node in list(g.subjects(RDF.type, SWRL_IMP)):
        rule = by_name.get(str(g.value(node, RDFS.label)))
        if rule is None:
            continue
        new = rule_iri(rule) if k.source is None else node
        if new != node:
            for p, o in list(g.predicate_objects(node)):
                g.remove((node, p, o))
                g.add((new, p, o))
        if rule.file:
            g.add((new, YGO.ruleFile, Literal(rule.file)))


def header_triples(ruleset: str) -> list[tuple]:
    return [(URIRef(BASE), YGO.ruleset, Literal(ruleset))]


RULE_FILE_RE = re.compile(r"^rules/([\w\-./]+\.swrl)$")


def rule_path(rule_file: str) -> Path | None:
    """rules/official/summons.swrl -> the file under RULES_DIR (None if the name is not a rules file)."""
    m = RULE_FILE_RE.match(rule_file or "")
    if not m or ".." in m.group(1):
        return None
    return RULES_DIR / m.group(1)


def io_bytes(g: Graph) -> bytes:
    buf = io.BytesIO()
    g.serialize(buf, format="nt", encoding="utf-8")
    return buf.getvalue()


# ------------------------------------------------------------------------------------------ import-owl

def canonical_axioms(g: Graph, skip=frozenset()) -> set[str]:
    """The graph's statements as canonical strings: blank-node structures (restrictions, lists of
    intersectionOf / members) written out, list members sorted, so two files that say the same
    compare equal whatever their blank-node ids and list order (the OWL API reorders them)."""
    referenced = {o for _, _, o in g if isinstance(o, BNode)}

    def node(n, depth=0) -> str:
        if isinstance(n, BNode):
            if depth > 50:
                return "[...]"
            first = g.value(n, RDF.first)
            if first is not None or n == RDF.nil:
                return "(" + " ".join(sorted(node(m, depth + 1) for m in Collection(g, n))) + ")"
            return "[" + "; ".join(sorted(f"{p.n3()} {node(o, depth + 1)}" for p, o in g.predicate_objects(n))) + "]"
        if isinstance(n, Literal):  # RDF 1.1: a plain literal is an xsd:string
            datatype = None if n.datatype == XSD.string else n.datatype
            return Literal(str(n), lang=n.language, datatype=datatype).n3()
        return n.n3()

    out = set()
    for s, p, o in g:
        if (s, p, o) in skip:
            continue
        if isinstance(s, BNode):
            if s in referenced:
                continue
            out.add(node(s))
        else:
            out.add(f"{s.n3()} {p.n3()} {node(o)}")
    return out


def _segments(lines: list[str]) -> list[tuple[int, int, int]]:
    """Per rule of a rules file, in order: (first line of its comment block, first body line, end)."""
    out, comment_start, body_start = [], None, None
    for i, line in enumerate(lines + [""]):
        stripped = line.strip()
        if stripped.startswith("#"):
            if comment_start is None:
                comment_start = i
        elif stripped:
            if body_start is None:
                body_start = i
        elif body_start is not None:
            out.append((comment_start if comment_start is not None else body_start, body_start, i))
            comment_start = body_start = None
        else:
            comment_start = None
    return out


def _ordered_like(new_text: str, old_text: str) -> str:
    """new_text with its atoms in old_text's order where they match (a changed atom takes the place
    of the removed one with the same predicate), so an edit shows as a small diff."""
    (nb, nh), (ob, oh) = atom_texts(new_text), atom_texts(old_text)

    def order(new, old):
        placed, rest = {}, []
        free = list(range(len(old)))
        for a in new:
            if a in old and old.index(a) in free:
                placed[old.index(a)] = a
                free.remove(old.index(a))
            else:
                rest.append(a)
        for a in list(rest):
            pred = a.split("(", 1)[0]
            match = next((i for i in free if old[i].split("(", 1)[0] == pred), None)
            if match is not None:
                placed[match] = a
                free.remove(match)
                rest.remove(a)
        return [placed[i] for i in sorted(placed)] + rest

    return rule_text(order(nb, ob), order(nh, oh))


def _comment_lines(comment: str) -> list[str]:
    return [f"# {comment}"] if comment else []


def plan_import(path: str | Path) -> dict:
    """What import-owl would change: {"rules": {file: new text}, "cards": {catalog file: new text},
    "tbox": new ygo-onto.owl text or None, "summary": {...}}.

    :raises StateError: the file does not load, or a rule `fast` cannot compile (nothing is written).
    """
    from . import cards as cards_mod
    from .knowledge import TBOX_FILE, _source_knowledge

    loaded = Rules.load(path, reasoner="fast", cache=False)
    k = loaded.knowledge
    src = _source_knowledge(k.ruleset)
    summary = {"rules changed": [], "rules added": [], "rules removed": [], "axioms added": 0,
               "axioms removed": 0, "cards added": [], "cards changed": [], "cards removed": []}

    # ---- rules
    by_name = {r.name: r for r in k.rules}
    src_by_file: dict[str, list[Rule]] = {}
    for r in src.rules:
        src_by_file.setdefault(r.file, []).append(r)
    new_files: dict[str, str] = {}
    for rule_file, rules in src_by_file.items():
        file_path = rule_path(rule_file)
        lines = file_path.read_text(encoding="utf-8").splitlines()
        segs = _segments(lines)
        if len(segs) != len(rules):  # the reader and this segmenter disagree: leave the file alone
            raise StateError(f"{rule_file}: expected {len(rules)} rules, found {len(segs)} blocks")
        out, pos, touched = [], 0, False
        for rule, (c0, b0, end) in zip(rules, segs):
            out += lines[pos:c0]
            pos = end
            new = by_name.get(rule.name)
            if new is None:
                summary["rules removed"].append(rule.name)
                touched = True
                if pos < len(lines) and not lines[pos].strip():
                    pos += 1  # the blank line after it
                continue
            body = lines[b0:end] if same_rule(new.text, rule.text) else [_ordered_like(new.text, rule.text)]
            comment = lines[c0:b0] if new.comment == rule.comment else _comment_lines(new.comment)
            if body != lines[b0:end] or comment != lines[c0:b0]:
                summary["rules changed"].append(rule.name)
                touched = True
            out += comment + body
        out += lines[pos:]
        if touched:
            new_files[rule_file] = "\n".join(out) + "\n"
    known = {r.name for r in src.rules}
    for rule in k.rules:
        if rule.name in known:
            continue
        target = rule.file if rule_path(rule.file) is not None and rule.file.split("/")[1] in ("common", k.ruleset) \
            else f"rules/{k.ruleset}/imported.swrl"
        if target not in new_files:
            p = rule_path(target)
            new_files[target] = p.read_text(encoding="utf-8") if p.is_file() else \
                "# Rules added in Protégé and brought back by `ygo-onto import-owl`.\n"
        text = new_files[target].rstrip("\n") + "\n\n" + "\n".join(_comment_lines(rule.comment) + [rule.text]) + "\n"
        new_files[target] = text
        summary["rules added"].append(f"{rule.name} -> {target}")

    # ---- cards
    card_files: dict[str, str] = {}
    old_cards = {c.name: c for c in src.catalog}
    new_cards = {c.name: c for c in k.catalog}
    for name, card in new_cards.items():
        if name not in old_cards:
            summary["cards added"].append(name)
        elif card != old_cards[name]:
            summary["cards changed"].append(name)
    summary["cards removed"] = sorted(set(old_cards) - set(new_cards))
    if summary["cards added"] or summary["cards changed"] or summary["cards removed"]:
        # the catalog file is written again, the cards in the sources' order (new ones at the end)
        place = {name: i for i, name in enumerate(old_cards)}
        ordered = sorted(k.catalog, key=lambda c: (place.get(c.name, len(place)), list(new_cards).index(c.name)))
        card_files[str(cards_mod.catalog_file(k.ruleset))] = cards_mod.catalog_owl_text(k.ruleset, ordered, list(k.tbox))

    # ---- TBox axioms (everything but the card classes, the rules and the export's header annotation)
    cards_ns = str(k.cards_ns)

    def core(g):
        skip = {t for t in g if str(t[0]).startswith(cards_ns) or t[1] == YGO.ruleset}
        return canonical_axioms(g, skip)

    tbox_now = Graph().parse(TBOX_FILE, format="xml")
    old_ax, new_ax = core(tbox_now), core(k.tbox)
    tbox_text = None
    if old_ax != new_ax:
        summary["axioms added"] = len(new_ax - old_ax)
        summary["axioms removed"] = len(old_ax - new_ax)
        g = Graph()
        g.bind("ygo", YGO)
        g.bind("owl", OWL)
        for t in k.tbox:
            if not str(t[0]).startswith(cards_ns) and t[1] != YGO.ruleset:
                g.add(t)
        tbox_text = g.serialize(format="xml")
    return {"rules": new_files, "cards": card_files, "tbox": tbox_text, "summary": summary, "ruleset": k.ruleset}


def import_owl(path: str | Path, dry_run: bool = False) -> dict:
    """Write a saved ontology's changes back into ontology/ (the TBox, the card catalog) and rules/.

    :returns: the summary (see plan_import), with "files": the files it changes (dry_run: would change).
    :raises StateError: the file does not load; or, not dry_run, the package is an installed wheel, not a checkout.
    """
    from . import resources
    from .knowledge import TBOX_FILE

    if not dry_run and not resources.from_checkout():
        # the sources are a checkout's files (ontology/, rules/, edited and kept in git): an installed wheel's copies
        # in site-packages are not sources, and a change there would be lost at the next install
        raise StateError(f"import-owl {path}: expected a source checkout to write into (ontology/ and rules/ next to "
                         f"src/), got the installed package at {resources.ontology_dir().parent}; run it from a clone "
                         "of the repository (pip install -e .), or give --dry-run to see what it would change")
    plan = plan_import(path)
    files = [str(rule_path(f)) for f, text in plan["rules"].items() if rule_path(f) and _differs(rule_path(f), text)]
    files += [f for f, text in plan["cards"].items() if _differs(Path(f), text)]
    if plan["tbox"] is not None:
        files.append(str(TBOX_FILE))
    docs = RULES_DIR.parent / "docs" / "cards.md"
    if plan["cards"] and resources.from_checkout() and docs.is_file():
        files.append(str(docs))
    plan["summary"]["files"] = files
    if not dry_run:
        for rule_file, text in plan["rules"].items():
            p = rule_path(rule_file)
            if text.strip() and any(not ln.strip().startswith("#") and ln.strip() for ln in text.splitlines()):
                p.write_text(text, encoding="utf-8")
            elif p.is_file():
                p.write_text(text, encoding="utf-8")
        for card_path, text in plan["cards"].items():
            Path(card_path).write_text(text, encoding="utf-8")
        if plan["cards"]:
            _cards_doc()
        if plan["tbox"] is not None:
            TBOX_FILE.write_text(plan["tbox"], encoding="utf-8")
    return plan["summary"]


def _differs(path: Path | None, text: str) -> bool:
    """Whether writing `text` to `path` changes the file."""
    return path is None or not path.is_file() or path.read_text(encoding="utf-8") != text


def _cards_doc() -> None:
    """docs/cards.md follows the catalog (tests/test_docs.py): in a checkout, its tool writes it again."""
    import subprocess
    import sys

    from . import resources

    tool = RULES_DIR.parent / "tools" / "cards_doc.py"
    if resources.from_checkout() and tool.is_file() and (RULES_DIR.parent / "docs").is_dir():
        subprocess.run([sys.executable, str(tool)], cwd=RULES_DIR.parent, capture_output=True, timeout=300)
