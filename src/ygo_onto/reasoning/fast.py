"""The compiled backend: the ruleset's TBox and SWRL rules as one Datalog program.

Nothing here is written per rule.  `compile_program` reads the knowledge of a ruleset (the
`Vocabulary` tables, a few axioms of the TBox graph, the rule texts) and writes an ASP
program; it is positive, so it has exactly one model, the least fixpoint of the rules.
Each `infer` computes that model with the ABox facts added and reads it back.  The model is
computed in Python by `_Evaluator` (semi-naive evaluation of the same program, ~2-5 ms a
mid-game state), or by clingo (grounding: ~50-150 ms) for a program or a term the evaluator
does not reproduce exactly; `infer_facts(..., evaluator=False)` always asks clingo, and the
tests check that both give the same facts.  When a call's facts only add to the previous
call's (an action declared in the state just reasoned about), the evaluator goes on from the
previous model and only the added atoms are read back.

* one predicate per class (`c_<name>/1`) and per property (`p_<name>/2`, object and data
  properties alike); individuals are strings, integers are integers, booleans the constants
  `true`/`false`, data strings `s("...")`: four disjoint kinds of terms, so a string never
  equals an individual and True never equals 1;
* the TBox axioms that yield named facts: subclass, subproperty, inverse, symmetric,
  domain, range, the TBox individuals' classes and property values, and the equivalent-class
  definitions (C == A and B and some p.D) in both directions, including what the existential
  entails when its witness is anonymous (domain of p, subsumed definitions) or is forced to be
  a named individual by a functional super-property of p;
* owl:sameAs as Pellet infers it from functional and inverse-functional object properties
  (two values of one subject): the individuals are merged, every fact of one holds of the
  other.  That part of the program only runs when such a pair exists;
* every SWRL rule, parsed here from Protégé's text syntax (the tokens of owlready2's rule
  parser): class atoms, object and data property atoms, TBox individuals and literal constants
  (integers, true/false, strings), and the swrlb builtins with an exact integer meaning:
  equal, notEqual, lessThan, lessThanOrEqual, greaterThan, greaterThanOrEqual, add,
  subtract, multiply, integerDivide, mod, abs, unaryMinus, unaryPlus, booleanNot.  As in
  Pellet, an ordering holds only between two integers or two strings, and a function builtin
  only binds its first argument.  A rule Pellet accepts but never fires (a variable no atom
  binds, an empty body or head) is compiled as such, with a warning naming it.  Anything
  else (divide and pow, whose results are decimals; string, date and list builtins;
  sameAs/differentFrom atoms; data range atoms; decimal literals; unknown names) is a
  ReasonerError naming the rule.

TBox axioms outside that fragment (transitive or reflexive properties, property chains,
equivalent properties, hasValue, allValuesFrom, unions, cardinalities, subclass of a class
expression...) are a ReasonerError at compile time: the backend refuses rather than answer
differently from Pellet.

Consistency is checked after solving, so an inconsistent state raises ReasonerError as
Pellet does: disjoint classes sharing an individual, a functional data property with two
values, a data value outside its property's declared range (xsd integer, boolean, string).
Disjoint and irreflexive/asymmetric properties and differentFrom are not checked.

The result is what PelletBackend reads back (pellet.read_facts): every class membership and
property value of the named individuals, i.e. the TBox individuals and every ABox individual
that is the subject of a fact (asserted or inferred).
"""
from __future__ import annotations

import operator
import re
import warnings
import weakref
from dataclasses import dataclass, field

import clingo

from ..errors import ReasonerError
from . import register

# ---------------------------------------------------------------------------------------------
# Rule text parser (Protégé syntax; the tokens and their priority are owlready2's rule lexer's)

_TOKENS = [
    ("(", re.compile(r"\(")),
    (")", re.compile(r"\)")),
    (",", re.compile(r",")),
    (",", re.compile(r"\^")),
    ("IMP", re.compile(r"->")),
    ("FLOAT", re.compile(r"-[0-9]*\.[0-9]+")),
    ("FLOAT", re.compile(r"[0-9]*\.[0-9]+")),
    ("INT", re.compile(r"-[0-9]+")),
    ("INT", re.compile(r"[0-9]+")),
    ("STR", re.compile(r'".*?"')),
    ("STR", re.compile(r"'.*?'")),
    ("BOOL", re.compile(r"true")),
    ("BOOL", re.compile(r"false")),
    ("VAR", re.compile(r"\?[a-zA-Z0-9_]+")),
    ("NAME", re.compile(r"(?![0-9])[\w:/.#&-]+")),
]
_SPACE = re.compile(r"\s+")


class RuleSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class Term:
    kind: str  # var | name | int | float | bool | str
    value: object


@dataclass(frozen=True)
class Atom:
    pred: str
    args: tuple[Term, ...]


def tokenize(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _SPACE.match(text, pos)
        if m:
            pos = m.end()
            continue
        for kind, rx in _TOKENS:
            m = rx.match(text, pos)
            if m:
                out.append((kind, m.group()))
                pos = m.end()
                break
        else:
            raise RuleSyntaxError(f"unexpected character {text[pos]!r} at column {pos + 1}")
    return out


def parse_rule_text(text: str) -> tuple[list[Atom], list[Atom]]:
    """'A(?x), p(?x, ?y) -> B(?y)' -> (body atoms, head atoms)."""
    toks = tokenize(text)
    i = 0

    def peek():
        return toks[i][0] if i < len(toks) else "END"

    def take(kind):
        nonlocal i
        if peek() != kind:
            got = toks[i][1] if i < len(toks) else "the end of the rule"
            raise RuleSyntaxError(f"expected {kind}, got {got!r}")
        i += 1
        return toks[i - 1][1]

    def term():
        kind = peek()
        value = take(kind) if kind in ("VAR", "NAME", "INT", "FLOAT", "BOOL", "STR") else None
        if value is None:
            take("an argument")
        if kind == "VAR":
            return Term("var", value[1:])
        if kind == "NAME":
            return Term("name", value)
        if kind == "INT":
            return Term("int", int(value))
        if kind == "FLOAT":
            return Term("float", float(value))
        if kind == "BOOL":
            return Term("bool", value == "true")
        return Term("str", value[1:-1])

    def atom():
        pred = take("NAME")
        take("(")
        args = []
        if peek() != ")":
            args.append(term())
            while peek() == ",":
                take(",")
                args.append(term())
        take(")")
        return Atom(pred, tuple(args))

    def atoms(stop):
        out = []
        if peek() == stop:
            return out
        out.append(atom())
        while peek() == ",":
            take(",")
            out.append(atom())
        return out

    body = atoms("IMP")
    take("IMP")
    head = atoms("END")
    if i != len(toks):
        raise RuleSyntaxError(f"unexpected {toks[i][1]!r} after the head")
    return body, head


# ---------------------------------------------------------------------------------------------
# Names and values in ASP

def _esc(name: str) -> str:
    """An injective ASP-safe spelling: letters and digits stay, anything else is _<hex>_."""
    return "".join(ch if ch.isascii() and ch.isalnum() else f"_{ord(ch):x}_" for ch in name)


def cpred(cls: str) -> str:
    return "c_" + _esc(cls)


def ppred(prop: str) -> str:
    return "p_" + _esc(prop)


def _qstr(s: str) -> str:
    return '"' + s.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


INT_MIN, INT_MAX = -(2 ** 31), 2 ** 31 - 1


def _literal(value) -> str:
    """A Python data value as an ASP term."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int):
        if not INT_MIN <= value <= INT_MAX:
            raise ReasonerError(f"fast: the integer {value} is outside clingo's 32-bit range")
        return str(value)
    if isinstance(value, str):
        return "s(" + _qstr(value) + ")"
    raise ReasonerError(f"fast: expected an integer, a boolean or a string as a data value, got {value!r}")


_INT_TYPES = {"integer", "int", "long", "short", "byte", "nonNegativeInteger", "positiveInteger",
              "nonPositiveInteger", "negativeInteger", "unsignedInt", "unsignedLong", "unsignedShort",
              "unsignedByte"}
_STR_TYPES = {"string", "normalizedString", "token"}


def _range_type(xsd: str) -> str:
    if xsd in _INT_TYPES:
        return "int"
    if xsd == "boolean":
        return "bool"
    if xsd in _STR_TYPES:
        return "str"
    return "any"


# ---------------------------------------------------------------------------------------------
# TBox: what the backend can translate

_RDF = "http://www.w3.org/1999/02/22-rdf-syntax-ns#"
_RDFS = "http://www.w3.org/2000/01/rdf-schema#"
_OWL = "http://www.w3.org/2002/07/owl#"
_XSD = "http://www.w3.org/2001/XMLSchema#"
_OK_PREDICATES = {
    _RDF + "type", _RDF + "first", _RDF + "rest",
    _RDFS + "subClassOf", _RDFS + "subPropertyOf", _RDFS + "domain", _RDFS + "range", _RDFS + "label",
    _RDFS + "comment", _RDFS + "seeAlso", _RDFS + "isDefinedBy",
    _OWL + "inverseOf", _OWL + "equivalentClass", _OWL + "intersectionOf", _OWL + "onProperty",
    _OWL + "someValuesFrom", _OWL + "versionIRI", _OWL + "versionInfo", _OWL + "imports", _OWL + "priorVersion",
    # consistency only (ignored for inference, like Pellet's answers on a consistent ABox)
    _OWL + "disjointWith", _OWL + "members", _OWL + "propertyDisjointWith", _OWL + "differentFrom",
    _OWL + "distinctMembers",
}
_OK_TYPES = {
    _OWL + "Class", _OWL + "ObjectProperty", _OWL + "DatatypeProperty", _OWL + "AnnotationProperty",
    _OWL + "NamedIndividual", _OWL + "FunctionalProperty", _OWL + "InverseFunctionalProperty",
    _OWL + "SymmetricProperty", _OWL + "Restriction",
    _OWL + "AllDisjointClasses", _OWL + "Ontology", _OWL + "Thing", _OWL + "AsymmetricProperty",
    _OWL + "IrreflexiveProperty", _OWL + "AllDifferent", _RDFS + "Datatype", _RDF + "List",
}
_STD = (_RDF, _RDFS, _OWL, _XSD)


def check_tbox(graph) -> None:
    """Raise ReasonerError on an axiom the compiled program would not reproduce."""
    if graph is None:
        return
    from rdflib import BNode, URIRef

    def bad(what, s, p, o):
        raise ReasonerError(f"fast: the TBox has {what} ({s} {p} {o}); the fast backend does not translate it, "
                            "use the pellet backend or extend reasoning/fast.py")

    annotation = {str(s) for s in graph.subjects(URIRef(_RDF + "type"), URIRef(_OWL + "AnnotationProperty"))}
    for s, p, o in graph:
        ps = str(p)
        if ps.startswith(_STD) and ps not in _OK_PREDICATES and ps not in annotation:
            bad("an unsupported axiom", s, p, o)
        if ps == _RDF + "type":
            os_ = str(o)
            if isinstance(o, BNode):
                bad("an individual typed by a class expression", s, p, o)
            if os_.startswith(_STD) and os_ not in _OK_TYPES:
                bad("an unsupported declaration", s, p, o)
        elif ps in (_RDFS + "subClassOf", _RDFS + "domain", _RDFS + "range", _RDFS + "subPropertyOf",
                    _OWL + "inverseOf"):
            if not isinstance(s, URIRef) or not isinstance(o, URIRef):
                bad("an axiom on a class expression", s, p, o)
        elif ps == _OWL + "equivalentClass":
            if not isinstance(s, URIRef) or not isinstance(o, BNode) or \
                    set(map(str, graph.predicates(o))) - {_RDF + "type", _OWL + "intersectionOf"}:
                bad("an equivalence that is not a named class == an intersection", s, p, o)
        elif ps == _OWL + "someValuesFrom":
            if not isinstance(o, URIRef):
                bad("an existential on a class expression", s, p, o)
        elif ps == _OWL + "intersectionOf":
            from rdflib.collection import Collection

            for member in Collection(graph, o):
                if isinstance(member, BNode) and (graph.value(member, URIRef(_OWL + "onProperty")) is None
                                                  or graph.value(member, URIRef(_OWL + "someValuesFrom")) is None):
                    bad("an intersection member that is neither a named class nor some p.C", s, p, o)


# ---------------------------------------------------------------------------------------------
# The compiler

@dataclass
class Compiled:
    program: str
    out: dict[str, tuple[str, str]]  # ASP predicate -> ("class" | "object" | "data", name)
    unnamed: frozenset  # names of classes and properties that are not individuals
    disjoint: list[frozenset] = field(default_factory=list)
    ranges: dict[str, str] = field(default_factory=dict)  # data property -> declared kind
    never: list[str] = field(default_factory=list)  # rules that never fire (as in Pellet), and why
    # the program without the equality section: the same model while no functional property
    # gives a subject two values (the common case), and faster to ground
    program_without_eq: str = ""
    functional: frozenset = frozenset()  # functional object properties
    inverse_functional: frozenset = frozenset()
    # built on first use: the evaluators of program_without_eq and program (False: clingo runs it),
    # and the predicates of the vocabulary's names (see _names)
    evaluators: list = field(default_factory=lambda: [None, None], repr=False, compare=False)
    names: tuple | None = field(default=None, repr=False, compare=False)
    plan: dict | None = field(default=None, repr=False, compare=False)
    merge_preds: list | None = field(default=None, repr=False, compare=False)
    related: dict | None = field(default=None, repr=False, compare=False)  # see _related
    facts_memo: dict = field(default_factory=dict, repr=False, compare=False)  # see _abox
    last_abox: tuple | None = field(default=None, repr=False, compare=False)  # see _abox
    read_memo: dict = field(default_factory=dict, repr=False, compare=False)  # see _read_model


class _Compiler:
    def __init__(self, knowledge):
        self.k = knowledge
        v = self.v = knowledge.vocabulary
        self.lines: list[str] = []
        self.inverse: dict[str, set[str]] = {}
        for a, b in v.inverse.items():
            self.inverse.setdefault(a, set()).add(b)
            self.inverse.setdefault(b, set()).add(a)
        self.props = set(v.object_properties) | set(v.data_properties)
        self.needs_bnot = False
        self.needs_kind = False
        self.never: list[str] = []
        self.fresh = 0
        self.ranges = declared_ranges(knowledge)
        self.inverse_functional = inverse_functional(knowledge) & set(v.object_properties)
        self.existentials: dict[tuple[str, str], str] = {}
        self._implied_memo: dict[frozenset, frozenset] = {}

    # -- helpers
    def emit(self, line: str) -> None:
        self.lines.append(line)

    def roles(self, prop: str) -> set[tuple[str, bool]]:
        """(q, forward) for every q that an edge x -prop-> w entails: q(x, w) if forward else q(w, x)."""
        out, todo = set(), [(prop, True)]
        while todo:
            q, fwd = todo.pop()
            if (q, fwd) in out:
                continue
            out.add((q, fwd))
            for sup in self.v.subproperty.get(q, ()):
                todo.append((sup, fwd))
            for inv in self.inverse.get(q, ()):
                todo.append((inv, not fwd))
            if q in self.v.symmetric:
                todo.append((q, not fwd))
        return out

    def edge_classes(self, prop: str) -> tuple[set[str], set[str]]:
        """Named classes of the source and of the target of an edge x -prop-> w."""
        src, dst = set(), set()
        for q, fwd in self.roles(prop):
            (src if fwd else dst).update(self.v.domain.get(q, ()))
            (dst if fwd else src).update(self.v.range.get(q, ()))
        return src, dst

    def implied(self, classes) -> frozenset:
        """The named classes a member of every class in `classes` belongs to (TBox only)."""
        v = self.v
        key = frozenset(classes)
        if key in self._implied_memo:
            return self._implied_memo[key]
        self._implied_memo[key] = key  # a cycle through an anonymous witness: what is known so far
        cur = set(key)
        changed = True
        while changed:
            changed = False
            new = set()
            for c in cur:
                new |= v.subclass.get(c, set())
                for conj in v.definitions.get(c, ()):
                    if conj[0] == "class":
                        new.add(conj[1])
                    else:
                        src, _ = self.edge_classes(conj[1])
                        new |= src
            for d, conjs in v.definitions.items():
                if d not in cur and all(self.satisfied(conj, cur) for conj in conjs):
                    new.add(d)
            new -= cur
            new.discard("Thing")
            if new:
                cur |= new
                changed = True
        result = frozenset(cur)
        self._implied_memo[key] = result
        return result

    def satisfied(self, conj: tuple, classes: set[str]) -> bool:
        """Whether every member of `classes` satisfies a definition conjunct."""
        if conj[0] == "class":
            return conj[1] in classes or conj[1] == "Thing"
        _, q, b = conj
        for c in classes:
            for other in self.v.definitions.get(c, ()):
                if other[0] == "some" and self.some_implies(other[1], other[2], q, b):
                    return True
        return False

    def some_implies(self, p: str, c: str, q: str, b: str) -> bool:
        """some p.c is a subclass of some q.b."""
        if (q, True) not in self.roles(p):
            return False
        if b == "Thing":
            return True
        _, dst = self.edge_classes(p)
        witness = ({c} if c != "Thing" else set()) | dst
        return b in self.implied(witness)

    # -- TBox
    def tbox(self) -> None:
        v = self.v
        self.emit("% ---- TBox")
        for c, parents in sorted(v.subclass.items()):
            for parent in sorted(parents):
                self.emit(f"{cpred(parent)}(X) :- {cpred(c)}(X).")
        for p, supers in sorted(v.subproperty.items()):
            for sup in sorted(supers):
                self.emit(f"{ppred(sup)}(X,Y) :- {ppred(p)}(X,Y).")
        for a, b in sorted(v.inverse.items()):
            self.emit(f"{ppred(b)}(Y,X) :- {ppred(a)}(X,Y).")
            self.emit(f"{ppred(a)}(Y,X) :- {ppred(b)}(X,Y).")
        for p in sorted(v.symmetric):
            self.emit(f"{ppred(p)}(Y,X) :- {ppred(p)}(X,Y).")
        for p, classes in sorted(v.domain.items()):
            for c in sorted(classes - {"Thing"}):
                self.emit(f"{cpred(c)}(X) :- {ppred(p)}(X,_).")
        for p, classes in sorted(v.range.items()):
            if p in v.object_properties:
                for c in sorted(classes - {"Thing"}):
                    self.emit(f"{cpred(c)}(Y) :- {ppred(p)}(_,Y).")
        self.emit("% ---- TBox individuals")
        for ind, classes in sorted(v.individuals.items()):
            for c in sorted(classes - {"Thing"}):
                self.emit(f"{cpred(c)}({_qstr(ind)}).")
        for p, s, o in sorted(v.tbox_facts, key=repr):
            if p in v.object_properties:
                self.emit(f"{ppred(p)}({_qstr(s)},{_qstr(o)}).")
            else:
                try:
                    self.emit(f"{ppred(p)}({_qstr(s)},{_literal(o)}).")
                except ReasonerError as exc:
                    raise ReasonerError(f"fast: TBox value {p}({s}, {o!r}): {exc}") from None
        self.definitions()

    def definitions(self) -> None:
        v = self.v
        if not v.definitions:
            return
        self.emit("% ---- equivalent-class definitions")
        for d, conjs in sorted(v.definitions.items()):
            for conj in conjs:
                if conj[0] == "some":
                    if conj[1] not in v.object_properties:
                        raise ReasonerError(f"fast: the definition of {d} restricts {conj[1]}, not an object "
                                            "property; the fast backend only translates some p.C on object properties")
                    self.existentials.setdefault((conj[1], conj[2]), f"x_{len(self.existentials)}")
        for (p, c), pred in self.existentials.items():
            target = f", {cpred(c)}(Y)" if c != "Thing" else ""
            self.emit(f"{pred}(X) :- {ppred(p)}(X,Y){target}.")
        for d, conjs in sorted(v.definitions.items()):
            body = []
            for conj in conjs:
                if conj[0] == "class":
                    if conj[1] != "Thing":
                        body.append(f"{cpred(conj[1])}(X)")
                        self.emit(f"{cpred(conj[1])}(X) :- {cpred(d)}(X).")
                else:
                    body.append(f"{self.existentials[(conj[1], conj[2])]}(X)")
            self.emit(f"{cpred(d)}(X) :- {', '.join(body)}.")
            for conj in conjs:
                if conj[0] != "some":
                    continue
                _, p, c = conj
                src, _ = self.edge_classes(p)
                for cls in sorted(src - {"Thing"}):
                    self.emit(f"{cpred(cls)}(X) :- {cpred(d)}(X).")
                # an anonymous p-successor that entails another existential of a definition
                for (q, b), pred in self.existentials.items():
                    if (q, b) != (p, c) and self.some_implies(p, c, q, b):
                        self.emit(f"{pred}(X) :- {cpred(d)}(X).")
                # a functional super-property of p (or an inverse-functional one of its inverse) makes
                # the named successor the witness
                for q, fwd in sorted(self.roles(p)):
                    if fwd and q in v.functional:
                        edge = f"{ppred(q)}(X,Y)"
                    elif not fwd and q in self.inverse_functional:
                        edge = f"{ppred(q)}(Y,X)"
                    else:
                        continue
                    if (q, fwd) != (p, True):
                        self.emit(f"{ppred(p)}(X,Y) :- {cpred(d)}(X), {edge}.")
                    if c != "Thing":
                        self.emit(f"{cpred(c)}(Y) :- {cpred(d)}(X), {edge}.")

    def equality(self) -> None:
        """Individuals a functional (or inverse-functional) property makes the same (owl:sameAs):
        Pellet merges them, so every fact about one holds for the other."""
        v = self.v
        functional = sorted(p for p in v.functional if p in v.object_properties)
        if not functional and not self.inverse_functional:
            return
        self.emit("% ---- equality (owl:sameAs from functional properties) and its congruence")
        for p in functional:
            self.emit(f"eq_(Y,Z) :- {ppred(p)}(X,Y), {ppred(p)}(X,Z), Y!=Z.")
        for p in sorted(self.inverse_functional):
            self.emit(f"eq_(X,Z) :- {ppred(p)}(X,Y), {ppred(p)}(Z,Y), X!=Z.")
        self.emit("eq_(Y,X) :- eq_(X,Y).")
        self.emit("eq_(X,Z) :- eq_(X,Y), eq_(Y,Z), X!=Z.")
        classes = set(v.classes) | {c for cs in v.individuals.values() for c in cs} - {"Thing"}
        for c in sorted(classes):
            self.emit(f"{cpred(c)}(Y) :- eq_(X,Y), {cpred(c)}(X).")
        for p in sorted(self.props):
            self.emit(f"{ppred(p)}(Y,O) :- eq_(X,Y), {ppred(p)}(X,O).")
            if p in v.object_properties:
                self.emit(f"{ppred(p)}(S,Y) :- eq_(X,Y), {ppred(p)}(S,X).")

    # -- rules
    def rules(self) -> None:
        self.emit("% ---- SWRL rules")
        for index, rule in enumerate(self.k.rules):
            try:
                self.rule(index, rule)
            except (RuleSyntaxError, _Untranslatable) as exc:
                raise ReasonerError(f"fast: rule {rule.name} ({rule.file}:{rule.line}): {exc}") from None

    def rule(self, index: int, rule) -> None:
        body, head = parse_rule_text(rule.text)
        types: dict[str, str] = {}
        lits, builtins, bound = [], [], set()
        for atom in body:
            kind = self.atom_kind(atom)
            if kind == "builtin":
                builtins.append(atom)
            else:
                lits.append(self.atom(atom, kind, types))
                bound |= {t.value for t in atom.args if t.kind == "var"}
        heads = []
        for atom in head:
            kind = self.atom_kind(atom)
            if kind == "builtin":
                raise _Untranslatable(f"builtin {atom.pred} in the head")
            heads.append((atom, kind))
        where = f"{rule.name} ({rule.file}:{rule.line})"
        # builtins: bind the first argument of a function once its other arguments are bound
        pending, never = list(builtins), None
        while pending and never is None:
            progress = False
            for atom in list(pending):
                out = self.builtin(atom, bound, types)
                if out is not None:
                    lits.extend(out)
                    pending.remove(atom)
                    progress = True
            if not progress:
                atom = pending[0]
                free = [t.value for t in atom.args if t.kind == "var" and t.value not in bound]
                never = (f"{atom.pred}: ?{', ?'.join(free)} is not bound by the body (Pellet only binds the "
                         "first argument of a function builtin)")
        if never is None and not body:
            never = "its body is empty"
        if never is None and not head:
            never = "its head is empty"
        if never is None:
            free = sorted({t.value for a, _ in heads for t in a.args if t.kind == "var"} - bound)
            if free:
                never = f"?{', ?'.join(free)} in the head is not bound by the body"
        if never is None and _NEVER in lits:
            never = "it orders values of different kinds, or booleans"
        if never is not None:
            # Pellet accepts such a rule and never fires it: so does this program, but say so
            self.emit(f"% {where}: never fires: {never}")
            self.never.append(f"rule {where} never fires: {never}")
            return
        head_atoms = [self.atom(a, kind, dict(types), head=True) for a, kind in heads]
        body_text = ", ".join(lits)
        self.emit(f"% {where}")
        if len(head_atoms) == 1:
            self.emit(f"{head_atoms[0]} :- {body_text}.")
        else:
            used = sorted({t.value for a in head for t in a.args if t.kind == "var"})
            aux = f"r_{index}" + (f"({','.join(_var(x) for x in used)})" if used else "")
            self.emit(f"{aux} :- {body_text}.")
            for h in head_atoms:
                self.emit(f"{h} :- {aux}.")

    def atom_kind(self, atom: Atom) -> str:
        v, name = self.v, atom.pred
        if name in _BUILTIN_NAMES:
            return "builtin"
        if name.casefold() in ("sameas", "differentfrom"):
            raise _Untranslatable(f"{name} atoms are not supported by the fast backend")
        if name in ("int", "decimal", "string", "normalizedString"):
            raise _Untranslatable(f"the data range atom {name}(...) is not supported by the fast backend")
        if name in v.classes:
            return "class"
        if name in v.object_properties:
            return "object"
        if name in v.data_properties:
            return "data"
        raise _Untranslatable(f"{name!r} is not a class, a property or a builtin of the ontology")

    def term(self, t: Term, want: str, types: dict[str, str]) -> str:
        """An argument in a position that wants an individual ('ind') or a data value ('int', 'bool',
        'str' or 'any').  Records the kind of a variable (a join across kinds fails by itself: the
        four kinds are disjoint sets of ASP terms)."""
        if t.kind == "var":
            if types.get(t.value, "any") == "any":
                types[t.value] = want
            return _var(t.value)
        if t.kind == "name":
            if want != "ind":
                raise _Untranslatable(f"the individual {t.value} where a data value is expected")
            if t.value not in self.v.individuals:
                raise _Untranslatable(f"{t.value!r} is not an individual of the TBox")
            return _qstr(t.value)
        if want == "ind":
            raise _Untranslatable(f"the literal {t.value!r} where an individual is expected")
        if t.kind == "float":
            raise _Untranslatable(f"the decimal {t.value} (clingo has integers only)")
        return _literal(t.value)

    def atom(self, atom: Atom, kind: str, types: dict[str, str], head: bool = False) -> str:
        if kind == "class":
            if len(atom.args) != 1:
                raise _Untranslatable(f"class atom {atom.pred} with {len(atom.args)} arguments")
            return f"{cpred(atom.pred)}({self.term(atom.args[0], 'ind', types)})"
        if len(atom.args) != 2:
            raise _Untranslatable(f"property atom {atom.pred} with {len(atom.args)} arguments")
        s = self.term(atom.args[0], "ind", types)
        if kind == "object":
            o = self.term(atom.args[1], "ind", types)
        else:
            o = self.term(atom.args[1], self.ranges.get(atom.pred, "any") if not head else "any", types)
        return f"{ppred(atom.pred)}({s},{o})"

    def builtin(self, atom: Atom, bound: set[str], types: dict[str, str]) -> list[str] | None:
        """The ASP literals of a builtin, or None while an argument it needs is not bound yet."""
        name, args = atom.pred, atom.args
        spec = _BUILTINS.get(name)
        if spec is None:
            raise _Untranslatable(f"the builtin {name} is not supported by the fast backend")
        arity, binds, template = spec
        if name in ("add", "multiply") and len(args) > 3:  # n-ary: the first is the sum/product of the rest
            op = "+" if name == "add" else "*"
            template = "{0}=" + op.join("{%d}" % i for i in range(1, len(args)))
        elif len(args) != arity:
            raise _Untranslatable(f"{name} takes {arity} arguments, got {len(args)}")
        first = args[0]
        needs = args[1:] if binds else args
        if any(t.kind == "var" and t.value not in bound for t in needs):
            return None
        for t in args:
            if t.kind == "var" and types.get(t.value) == "ind":
                raise _Untranslatable(f"{name} on ?{t.value}, an individual (builtins take data values)")
            if t.kind == "name":
                raise _Untranslatable(f"{name} on the individual {t.value} (builtins take data values)")
        terms = [self.term(t, "any", types) for t in args]
        out = []
        if name in _ORDER:
            out = self.same_kind(args, terms, types)
            if out is None:
                return [_NEVER]
        if name == "booleanNot":
            self.needs_bnot = True
        if binds and first.kind == "var" and first.value not in bound:
            bound.add(first.value)
            types[first.value] = "bool" if name == "booleanNot" else "int"
        out.insert(0, template.format(*terms))
        return out

    def static_type(self, t: Term, types: dict[str, str]) -> str:
        if t.kind == "var":
            return types.get(t.value, "any")
        return {"int": "int", "bool": "bool", "str": "str"}.get(t.kind, "any")

    def same_kind(self, args, terms, types) -> list[str] | None:
        """Guards so that an ordering holds only between two integers or two strings, as in Pellet
        (clingo orders any two terms; Pellet neither compares across kinds nor orders booleans).
        None: the comparison never holds."""
        kinds = [self.static_type(t, types) for t in args]
        known = set(kinds) - {"any"}
        if len(known) > 1 or known & {"bool", "ind"}:
            return None
        if not known:
            self.needs_kind = True
            self.fresh += 1
            k = f"K__{self.fresh}"
            return [f"kind_({terms[0]},{k})", f"kind_({terms[1]},{k})"]
        kind = known.pop()
        out = []
        for kd, term in zip(kinds, terms):
            if kd == "any":
                if kind == "int":
                    out.append(f"{term}+0={term}")
                else:
                    self.fresh += 1
                    out.append(f"{term}=s(S__{self.fresh})")
        return out

    def compile(self) -> Compiled:
        check_tbox(getattr(self.k, "tbox", None))
        self.emit("% ygo-onto fast backend: generated from the TBox and the SWRL rules; do not edit")
        self.tbox()
        self.rules()
        self.lines.append(_EQ_MARK)
        self.equality()
        self.lines.append(_EQ_MARK)
        if self.needs_bnot:
            self.emit("bnot(true,false). bnot(false,true).")
        if self.needs_kind:  # the kind of every data value (for comparisons of untyped values)
            for p in sorted(self.v.data_properties):
                self.emit(f"value_(X) :- {ppred(p)}(_,X).")
            self.emit("kind_(X,int) :- value_(X), X+0=X.")
            self.emit("kind_(X,str) :- value_(X), X=s(_).")
        out = {}
        for c in self.v.classes:
            out[cpred(c)] = ("class", c)
        for ind_classes in self.v.individuals.values():
            for c in ind_classes - {"Thing"}:
                out[cpred(c)] = ("class", c)
        for p in self.v.object_properties:
            out[ppred(p)] = ("object", p)
        for p in self.v.data_properties:
            out[ppred(p)] = ("data", p)
        self.emit("% ---- output")
        for pred, (kind, _) in sorted(out.items()):
            self.emit(f"#show {pred}/{1 if kind == 'class' else 2}.")
        unnamed = (set(self.v.classes) | self.props) - set(self.v.individuals)
        for message in self.never:
            warnings.warn(f"fast: {message}", stacklevel=4)
        i, j = self.lines.index(_EQ_MARK), len(self.lines) - 1 - self.lines[::-1].index(_EQ_MARK)
        full = self.lines[:i] + self.lines[i + 1:j] + self.lines[j + 1:]
        without_eq = self.lines[:i] + self.lines[j + 1:]
        functional = {p for p in self.v.functional if p in self.v.object_properties}
        return Compiled("\n".join(full) + "\n", out, frozenset(unnamed), _disjoint(self.k),
                        self.ranges, self.never, "\n".join(without_eq) + "\n", frozenset(functional),
                        frozenset(self.inverse_functional))


_EQ_MARK = "%%EQ%%"


class _Untranslatable(Exception):
    pass


def _var(name: str) -> str:
    return "V_" + name


# name: (arity, binds the first argument, ASP template)
_BUILTINS = {
    "equal": (2, False, "{0}={1}"),
    "notEqual": (2, False, "{0}!={1}"),
    "lessThan": (2, False, "{0}<{1}"),
    "lessThanOrEqual": (2, False, "{0}<={1}"),
    "greaterThan": (2, False, "{0}>{1}"),
    "greaterThanOrEqual": (2, False, "{0}>={1}"),
    "add": (3, True, "{0}={1}+{2}"),
    "subtract": (3, True, "{0}={1}-{2}"),
    "multiply": (3, True, "{0}={1}*{2}"),
    "integerDivide": (3, True, "{0}={1}/{2}"),
    "mod": (3, True, "{0}={1}\\{2}"),
    "abs": (2, True, "{0}=|{1}|"),
    "unaryMinus": (2, True, "{0}=-{1}"),
    "unaryPlus": (2, True, "{0}={1}+0"),
    "booleanNot": (2, True, "bnot({1},{0})"),
}
_NEVER = "#false"
_ORDER = {"lessThan", "lessThanOrEqual", "greaterThan", "greaterThanOrEqual"}
# every name owlready2's rule parser takes for a builtin (so they are not looked up as classes)
_BUILTIN_NAMES = {
    "equal", "notEqual", "lessThan", "lessThanOrEqual", "greaterThan", "greaterThanOrEqual", "add", "subtract",
    "multiply", "divide", "integerDivide", "mod", "pow", "unaryPlus", "unaryMinus", "abs", "ceiling", "floor",
    "round", "roundHalfToEven", "sin", "cos", "tan", "booleanNot", "stringEqualIgnoreCase", "stringConcat",
    "substring", "stringLength", "normalizeSpace", "upperCase", "lowerCase", "translate", "contains",
    "containsIgnoreCase", "startsWith", "endsWith", "substringBefore", "substringAfter", "matches", "replace",
    "tokenize", "yearMonthDuration", "dayTimeDuration", "dateTime", "date", "time", "addYearMonthDurations",
    "subtractYearMonthDurations", "multiplyYearMonthDuration", "divideYearMonthDurations", "addDayTimeDurations",
    "subtractDayTimeDurations", "multiplyDayTimeDurations", "divideDayTimeDuration", "subtractDates",
    "subtractTimes", "addYearMonthDurationToDateTime", "addDayTimeDurationToDateTime",
    "subtractYearMonthDurationFromDateTime", "subtractDayTimeDurationFromDateTime", "addYearMonthDurationToDate",
    "addDayTimeDurationToDate", "subtractYearMonthDurationFromDate", "subtractDayTimeDurationFromDate",
    "addDayTimeDurationToTime", "subtractDayTimeDurationFromTime", "subtractDateTimesYieldingYearMonthDuration",
    "subtractDateTimesYieldingDayTimeDuration", "resolveURI", "anyURI", "listConcat", "listIntersection",
    "listSubtraction", "member", "length", "first", "rest", "sublist", "empty",
}


def declared_ranges(k) -> dict[str, str]:
    """Data property -> kind of its declared range ('int', 'bool', 'str' or 'any').

    Vocabulary.data_properties says 'string' for a property with no rdfs:range; here such a
    property is 'any'."""
    v = k.vocabulary
    g = getattr(k, "tbox", None)
    if g is None:
        return {p: _range_type(r) for p, r in v.data_properties.items()}
    from rdflib import URIRef

    declared = set()
    for s, o in g.subject_objects(URIRef(_RDFS + "range")):
        name = str(s).rsplit("#", 1)[-1]
        if name in v.data_properties:
            declared.add(name)
    return {p: _range_type(r) if p in declared else "any" for p, r in v.data_properties.items()}


def inverse_functional(k) -> set[str]:
    """Inverse-functional object properties (not in Vocabulary: read from the TBox graph)."""
    g = getattr(k, "tbox", None)
    if g is None:
        return set(getattr(k.vocabulary, "inverse_functional", ()))
    from rdflib import URIRef

    return {str(s).rsplit("#", 1)[-1]
            for s in g.subjects(URIRef(_RDF + "type"), URIRef(_OWL + "InverseFunctionalProperty"))}


def _disjoint(k) -> list[frozenset]:
    """Groups of pairwise disjoint named classes (owl:disjointWith, owl:AllDisjointClasses)."""
    g = getattr(k, "tbox", None)
    if g is None:
        return []
    from rdflib import URIRef
    from rdflib.collection import Collection

    def local(x):
        s = str(x)
        return s.rsplit("#", 1)[-1] if "#" in s else s.rsplit("/", 1)[-1]

    out = []
    for s, o in g.subject_objects(URIRef(_OWL + "disjointWith")):
        out.append(frozenset((local(s), local(o))))
    for node in g.subjects(URIRef(_RDF + "type"), URIRef(_OWL + "AllDisjointClasses")):
        members = g.value(node, URIRef(_OWL + "members"))
        if members is not None:
            out.append(frozenset(local(m) for m in Collection(g, members)))
    return out


# ---------------------------------------------------------------------------------------------
# The evaluator: the compiled program's least model, computed in Python
#
# The program is positive, so its one model is the least fixpoint of its rules, which clingo
# computes while grounding.  On a mid-game state of the real rulesets that costs clingo
# 50-150 ms: parsing ~1800 statements (again for every state), then instantiating ~900 rules,
# a hundred predicates of which form one recursive component, for a model of ~1000 atoms.
# `_Evaluator` runs the same program text (read once, by `_parse_program`; the tests check it
# reads what clingo's parser reads) by semi-naive evaluation: a round hands the atoms each
# predicate gained in the previous round to the predicate's dispatcher, which calls the rules
# with that predicate in their body:
#
# * a rule h(...) :- b(X1, ..., Xn) of distinct variables (subclass, subproperty, inverse,
#   domain, range: half the rules) is a projection of the new atoms, done by set.update;
# * any other rule, once per positive body atom, is a generated function that joins the new
#   atoms with the other body atoms through hash indexes (comparisons as soon as their
#   variables are bound, then membership tests, lookups on bound variables, lookups on
#   constants, and scans last).  It is only called when every
#   predicate of the body holds atoms, and generated and compiled on that first call: most
#   rules are about cards and situations absent from a state.
#
# Values: an integer is an int, a string a str, any other symbol (constants included) a tuple
# (name, *arguments): `true` is ("true",), s("a") is ("s", "a").  Terms follow clingo: an
# arithmetic operation on a non-integer, or a division by zero, is undefined and makes its
# literal false; integers wrap at 32 bits; `/` and `\` truncate; values of different kinds are
# ordered by clingo's own comparison of symbols.  (-2147483648 / -1 is -2147483648 here; it
# kills clingo with SIGFPE.)  What the evaluator does not reproduce (a construct the compiler
# never writes; the negation of a function term at run time) raises _NotSupported, and the call
# goes to clingo.


class _NotSupported(Exception):
    pass


def _wrap(x: int) -> int:
    return x if INT_MIN <= x <= INT_MAX else (x - INT_MIN) % 2 ** 32 + INT_MIN


def _b_add(a, b):
    return _wrap(a + b) if type(a) is int and type(b) is int else None


def _b_sub(a, b):
    return _wrap(a - b) if type(a) is int and type(b) is int else None


def _b_mul(a, b):
    return _wrap(a * b) if type(a) is int and type(b) is int else None


def _quotient(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _b_div(a, b):
    return _wrap(_quotient(a, b)) if type(a) is int and type(b) is int and b else None


def _b_mod(a, b):
    return _wrap(a - b * _quotient(a, b)) if type(a) is int and type(b) is int and b else None


def _b_neg(a):
    if type(a) is int:
        return _wrap(-a)
    if type(a) is tuple:  # clingo negates a function term (-f(x)): not a value here
        raise _NotSupported("the negation of a function term")
    return None


def _b_abs(a):
    return _wrap(abs(a)) if type(a) is int else None


def _symbol(v) -> clingo.Symbol:
    if type(v) is int:
        return clingo.Number(v)
    if type(v) is str:
        return clingo.String(v)
    return clingo.Function(v[0], [_symbol(x) for x in v[1:]])


def _value(sym: clingo.Symbol):
    t = sym.type
    if t == clingo.SymbolType.Number:
        return sym.number
    if t == clingo.SymbolType.String:
        return sym.string
    if t == clingo.SymbolType.Function and sym.positive:
        return (sym.name, *map(_value, sym.arguments))
    raise _NotSupported(f"the term {sym}")


def _lt(a, b):
    return a < b if type(a) is int and type(b) is int else _symbol(a) < _symbol(b)


def _le(a, b):
    return a <= b if type(a) is int and type(b) is int else _symbol(a) <= _symbol(b)


def _gt(a, b):
    return a > b if type(a) is int and type(b) is int else _symbol(a) > _symbol(b)


def _ge(a, b):
    return a >= b if type(a) is int and type(b) is int else _symbol(a) >= _symbol(b)


_HELPERS = {f.__name__: f for f in (_b_add, _b_sub, _b_mul, _b_div, _b_mod, _b_neg, _b_abs, _lt, _le, _gt, _ge)}
_ORDERINGS = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}

# terms: ("v", name) | ("c", value) | ("f", name, [terms]) | ("op", helper, [terms]);
# body literals: ("atom", pred, [terms]) | ("cmp", op, left, right), pred = (name, arity)


def _read_program(program: str):
    """The rules of a program as (head atom, body literals); raises _NotSupported on anything
    but the positive normal rules, #show directives and comments the compiler writes."""
    from clingo import ast

    T = ast.ASTType
    binary = {ast.BinaryOperator.Plus: "_b_add", ast.BinaryOperator.Minus: "_b_sub",
              ast.BinaryOperator.Multiplication: "_b_mul", ast.BinaryOperator.Division: "_b_div",
              ast.BinaryOperator.Modulo: "_b_mod"}
    unary = {ast.UnaryOperator.Minus: "_b_neg", ast.UnaryOperator.Absolute: "_b_abs"}
    compare = {ast.ComparisonOperator.Equal: "=", ast.ComparisonOperator.NotEqual: "!=",
               ast.ComparisonOperator.LessThan: "<", ast.ComparisonOperator.LessEqual: "<=",
               ast.ComparisonOperator.GreaterThan: ">", ast.ComparisonOperator.GreaterEqual: ">="}
    anonymous = 0

    def term(x):
        nonlocal anonymous
        t = x.ast_type
        if t == T.Variable:
            if x.name == "_":
                anonymous += 1
                return ("v", f"#{anonymous}")  # never a clingo variable's name
            return ("v", x.name)
        if t == T.SymbolicTerm:
            return ("c", _value(x.symbol))
        if t == T.Function and not x.external and x.name:
            args = [term(a) for a in x.arguments]
            if all(a[0] == "c" for a in args):
                return ("c", (x.name, *(a[1] for a in args)))
            return ("f", x.name, args)
        if t == T.BinaryOperation and x.operator_type in binary:
            return operation(binary[x.operator_type], [term(x.left), term(x.right)])
        if t == T.UnaryOperation and x.operator_type in unary:
            return operation(unary[x.operator_type], [term(x.argument)])
        raise _NotSupported(f"the term {x}")

    def operation(helper, args):
        if all(a[0] == "c" for a in args):  # a constant such as -1
            value = _HELPERS[helper](*(a[1] for a in args))
            if value is None:
                raise _NotSupported("an undefined constant term")
            return ("c", value)
        return ("op", helper, args)

    def atom(lit):
        if lit.ast_type != T.Literal or lit.sign != ast.Sign.NoSign:
            raise _NotSupported(f"the literal {lit}")
        a = lit.atom
        if a.ast_type == T.SymbolicAtom:
            s = a.symbol
            if s.ast_type == T.Function and not s.external and s.name:
                args = [term(x) for x in s.arguments]
                return ("atom", (s.name, len(args)), args)
            if s.ast_type == T.SymbolicTerm and s.symbol.type == clingo.SymbolType.Function and s.symbol.positive \
                    and s.symbol.name:
                args = [("c", _value(x)) for x in s.symbol.arguments]
                return ("atom", (s.symbol.name, len(args)), args)
        elif a.ast_type == T.Comparison and len(a.guards) == 1:
            return ("cmp", compare[a.guards[0].comparison], term(a.term), term(a.guards[0].term))
        raise _NotSupported(f"the literal {lit}")

    rules = []

    def statement(s):
        t = s.ast_type
        if t == T.Rule:
            head = atom(s.head)
            if head[0] != "atom":
                raise _NotSupported(f"the head {s.head}")
            rules.append((head, [atom(b) for b in s.body]))
        elif t == T.Program:
            if s.name != "base" or len(s.parameters):
                raise _NotSupported(f"the program part {s.name}")
        elif t not in (T.ShowSignature, T.Comment):
            raise _NotSupported(f"the statement {s}")

    ast.parse_string(program, statement)
    return rules


_ASP_TOKEN = re.compile(r"""
    (?P<skip>\s+|%[^\n]*)
  | (?P<str>"(?:[^"\\\n]|\\["\\n])*")
  | (?P<num>[0-9]+)
  | (?P<var>_*[A-Z][A-Za-z0-9_']*|_(?![A-Za-z0-9_']))
  | (?P<id>_*[a-z][A-Za-z0-9_']*)
  | (?P<show>\#show(?![A-Za-z0-9_']))
  | (?P<op>:-|!=|<=|>=|\*\*|[=<>+\-*/\\|(),.])
""", re.VERBOSE)
_ASP_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}
_ASP_BINARY = {"+": "_b_add", "-": "_b_sub", "*": "_b_mul", "/": "_b_div", "\\": "_b_mod"}
_ASP_COMPARE = {"=", "!=", "<", "<=", ">", ">="}


def _parse_program(program: str):
    """_read_program's result without clingo's AST, which is slow to walk from Python: a parser of
    the statements the compiler writes (rules, facts, #show, % comments).  Raises _NotSupported
    on anything else; tests check that both readers agree on the real programs."""
    if "%*" in program:  # a block comment
        raise _NotSupported("a block comment")
    toks: list[tuple[str, str]] = []
    pos, n = 0, len(program)
    match = _ASP_TOKEN.match
    while pos < n:
        m = match(program, pos)
        if m is None:
            raise _NotSupported(f"the text at {program[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind != "skip":
            toks.append((kind, m.group()))
    toks.append(("end", ""))
    i = 0
    anonymous = 0

    def take(text=None):
        nonlocal i
        tok = toks[i]
        if text is not None and tok[1] != text:
            raise _NotSupported(f"{tok[1]!r} where {text!r} is expected")
        i += 1
        return tok

    def operation(helper, args):
        if all(a[0] == "c" for a in args):
            value = _HELPERS[helper](*(a[1] for a in args))
            if value is None:
                raise _NotSupported("an undefined constant term")
            return ("c", value)
        return ("op", helper, args)

    def term():
        left = product()
        while toks[i][1] in ("+", "-") and toks[i][0] == "op":
            op = take()[1]
            left = operation(_ASP_BINARY[op], [left, product()])
        return left

    def product():
        left = unary()
        while toks[i][1] in ("*", "/", "\\"):
            op = take()[1]
            left = operation(_ASP_BINARY[op], [left, unary()])
        if toks[i][1] == "**":
            raise _NotSupported("**")
        return left

    def unary():
        nonlocal anonymous
        kind, text = take()
        if text == "-" and kind == "op":
            return operation("_b_neg", [unary()])
        if text == "|" and kind == "op":
            inner = term()
            take("|")
            return operation("_b_abs", [inner])
        if kind == "num":
            return ("c", int(text))
        if kind == "str":
            return ("c", re.sub(r'\\["\\n]', lambda m: _ASP_ESCAPES[m.group()], text[1:-1]))
        if kind == "var":
            if text == "_":
                anonymous += 1
                return ("v", f"#{anonymous}")
            return ("v", text)
        if kind == "id":
            if toks[i][1] != "(":
                return ("c", (text,))
            take("(")
            args = [term()]
            while toks[i][1] == ",":
                take(",")
                args.append(term())
            take(")")
            if all(a[0] == "c" for a in args):
                return ("c", (text, *(a[1] for a in args)))
            return ("f", text, args)
        raise _NotSupported(f"the term starting with {text!r}")

    def atom(t):
        if t[0] == "c" and type(t[1]) is tuple:
            return ("atom", (t[1][0], len(t[1]) - 1), [("c", a) for a in t[1][1:]])
        if t[0] == "f":
            return ("atom", (t[1], len(t[2])), t[2])
        raise _NotSupported(f"the atom {t}")

    def literal():
        t = term()
        if toks[i][1] in _ASP_COMPARE:
            op = take()[1]
            return ("cmp", op, t, term())
        return atom(t)

    rules = []
    while toks[i][0] != "end":
        if toks[i][0] == "show":
            take()
            if take()[0] != "id":
                raise _NotSupported("a #show of a term")
            take("/")
            if take()[0] != "num":
                raise _NotSupported("a #show without an arity")
            take(".")
            continue
        head = atom(term())
        body = []
        if toks[i][1] == ":-":
            take()
            body.append(literal())
            while toks[i][1] == ",":
                take()
                body.append(literal())
        take(".")
        rules.append((head, body))
    return rules


def _vars(t) -> set:
    if t[0] == "v":
        return {t[1]}
    if t[0] == "c":
        return set()
    return set().union(*map(_vars, t[2]))


def _has_op(t) -> bool:
    return t[0] == "op" or (t[0] == "f" and any(map(_has_op, t[2])))


def _index_add(index: dict, key, tuples) -> None:
    """Add tuples to an index of a relation: key(tuple) -> the tuples with that key."""
    for t in tuples:
        k = key(t)
        got = index.get(k)
        if got is None:
            index[k] = [t]
        else:
            got.append(t)


class _Evaluator:
    """The least model of a positive program (see above), `run` after `run`: each run starts
    from the program's facts, or goes on from the previous model when its facts only add to the
    previous run's (see `run`).  Not reentrant: `run` and the reading of `model` happen under
    `lock`."""

    def __init__(self, program: str):
        import threading

        self.lock = threading.Lock()
        self._extra: dict = {}
        try:
            rules = _parse_program(program)
        except _NotSupported:
            rules = _read_program(program)
        self.preds: dict[tuple[str, int], int] = {}
        for head, body in rules:
            self.pred(head[1])
            for lit in body:
                if lit[0] == "atom":
                    self.pred(lit[1])
        n = len(self.preds)
        self._keys = list(self.preds)
        self.relations: list[set] = [set() for _ in range(n)]
        self._pending: list[set] = [set() for _ in range(n)]
        self._indexes: list[list] = [[] for _ in range(n)]  # (key of a tuple, dict key -> tuples)
        self._clear = [x.clear for x in self.relations + self._pending]
        ns: dict = dict(_HELPERS)
        for i in range(n):
            ns[f"S{i}"], ns[f"P{i}"] = self.relations[i], self._pending[i]
        self._ns = ns
        self._facts: dict[int, set] = {}
        self._once = []
        self._functions = 0
        calls: list[list[str]] = [[] for _ in range(n)]  # the lines of the dispatcher of each predicate
        # the predicates whose pending atoms to collect after a round in which p had new atoms
        reach: list[set] = [set() for _ in range(n)]
        once_heads: set[int] = set()
        for head, body in rules:
            h = self.pred(head[1])
            for lit in body:
                if lit[0] == "atom":
                    reach[self.pred(lit[1])].add(h)
            if not body:
                if any(t[0] != "c" for t in head[2]):
                    raise _NotSupported(f"the fact {head} with variables")
                self._facts.setdefault(h, set()).add(tuple(t[1] for t in head[2]))
                continue
            projection = self.projection(head, body)
            if projection is not None:
                calls[self.pred(body[0][1])].append(projection)
                continue
            atoms = [i for i, lit in enumerate(body) if lit[0] == "atom"]
            for i in atoms:
                q = self.pred(body[i][1])
                others = sorted({self.pred(lit[1]) for lit in body if lit[0] == "atom"} - {q})
                call = f"{self.stub(head, body, i)}(delta)"
                calls[q].append(f"if {' and '.join(f'S{o}' for o in others)}: {call}" if others else call)
            if not atoms:
                self._once.append(self.function(head, body, None))
                once_heads.add(h)
        self._dispatch = [self.dispatcher(q, lines) if lines else None for q, lines in enumerate(calls)]
        self._reach = [tuple(sorted(r)) for r in reach]
        self._once_heads = tuple(sorted(once_heads))
        self._touched: set[int] = set()  # the predicates that hold atoms (to clear before the next run)
        self._dirty = False  # a run stopped half-way: clear everything
        self._input: dict | None = None  # the facts of the last run, if it completed
        # after a run that went on from the previous model: the atoms it added, by predicate
        # (None after a run from the program's facts); see added_model
        self._added: dict[int, set] | None = None
        self._extra_added: dict = {}
        # the caller's reading of the model as it was before the atoms of `_added` (or None): a
        # run from the program's facts drops it (see _read_evaluator)
        self.reading = None

    def pred(self, key: tuple[str, int]) -> int:
        if key not in self.preds:
            self.preds[key] = len(self.preds)
        return self.preds[key]

    def projection(self, head, body) -> str | None:
        """The dispatcher's line for a rule h(Xi, ...) :- b(X1, ..., Xn) (distinct variables), else None."""
        if len(body) != 1 or body[0][0] != "atom" or not head[2]:
            return None
        args = body[0][2]
        names = [t[1] for t in args if t[0] == "v"]
        if len(names) != len(args) or len(set(names)) != len(names):
            return None
        if any(t[0] != "v" or t[1] not in names or t[1].startswith("#") for t in head[2]):
            return None
        positions = [names.index(t[1]) for t in head[2]]
        update = f"P{self.pred(head[1])}.update"
        if positions == list(range(len(args))):
            return f"{update}(delta)"
        getter = f"G{'_'.join(map(str, positions))}"
        self._ns[getter] = operator.itemgetter(*positions)
        if len(positions) == 1:
            return f"{update}(zip(map({getter}, delta)))"
        return f"{update}(map({getter}, delta))"

    def dispatcher(self, q: int, lines: list[str]):
        """The dispatcher of predicate q: first a stub that compiles it when q first has new atoms."""

        def stub(delta):
            source = f"def D{q}(delta):\n" + "".join(f" {line}\n" for line in lines)
            exec(compile(source, f"<fast evaluator: D{q}>", "exec"), self._ns)  # noqa: S102 (generated)
            fn = self._dispatch[q] = self._ns[f"D{q}"]
            fn(delta)

        return stub

    def stub(self, head, body, first: int) -> str:
        """The name of the function of the rule for body atom `first`: first a stub that compiles it
        (when the dispatcher first calls it: all the body's predicates hold atoms) and replaces itself."""
        self._functions += 1
        name = f"R{self._functions}"

        def stub(delta):
            self.function(head, body, first, name)(delta)

        self._ns[name] = stub
        return name

    def index(self, p: int, pattern: tuple[int, ...]) -> str:
        """The name of the index of predicate p on the argument positions `pattern`, made (and
        filled from what p holds now) if new."""
        name = f"X{p}_{'_'.join(map(str, pattern))}"
        if name not in self._ns:
            index: dict = {}
            key = operator.itemgetter(*pattern)
            _index_add(index, key, self.relations[p])
            self._ns[name] = index
            self._indexes[p].append((key, index))
            self._clear.append(index.clear)
        return name

    def function(self, head, body, first: int | None, name: str | None = None):
        if name is None:
            self._functions += 1
            name = f"R{self._functions}"
        source = self.rule_source(name, head, body, first)
        exec(compile(source, f"<fast evaluator: {name}>", "exec"), self._ns)  # noqa: S102 (generated)
        return self._ns[name]

    # -- code generation
    def rule_source(self, name: str, head, body, first: int | None) -> str:
        """A function that adds to P<head> the head atoms of the rule's instances in which body
        atom `first` is one of `delta` (None: a rule without atoms, run once)."""
        lines = [f"def {name}({'delta' if first is not None else ''}):"]
        if first is None:  # (a dispatcher checks the others before calling)
            others = sorted({self.pred(lit[1]) for lit in body if lit[0] == "atom"})
            if others:
                lines.append(f" if not ({' and '.join(f'S{p}' for p in others)}): return")
        lines.append(f" add = P{self.pred(head[1])}.add")
        env: dict[str, str] = {}  # variable -> Python expression of its value
        depth = 1
        fresh = iter(range(10 ** 6))

        def emit(line):
            lines.append(" " * depth + line)

        def value(t) -> str:
            """Python expression of a term whose variables are bound (may be None if it has an op)."""
            kind = t[0]
            if kind == "v":
                return env[t[1]]
            if kind == "c":
                return repr(t[1])
            if kind == "f":
                return "(" + ", ".join([repr(t[1])] + [value(a) for a in t[2]]) + ",)"
            return f"{t[1]}({', '.join(value(a) for a in t[2])})"

        def match(t, expr: str, conds: list[str]) -> None:
            """Conditions for expr to match t; binds t's unbound variables in env."""
            kind = t[0]
            if kind == "v":
                if t[1] in env:
                    conds.append(f"{expr} == {env[t[1]]}")
                elif not t[1].startswith("#"):
                    env[t[1]] = expr
            elif kind == "c":
                conds.append(f"{expr} == {t[1]!r}")
            elif kind == "f" and not _has_op(t):
                conds.append(f"type({expr}) is tuple and len({expr}) == {len(t[2]) + 1} and {expr}[0] == {t[1]!r}")
                for j, a in enumerate(t[2], 1):
                    match(a, f"{expr}[{j}]", conds)
            else:
                raise _NotSupported("an operation in a position to match")

        def bound(t) -> bool:
            return all(v in env for v in _vars(t))

        def computed(t, conds: list[str]) -> str:
            """The expression of a bound term; arithmetic goes to a temporary that must be defined."""
            if not _has_op(t):
                return value(t)
            x = f"e{next(fresh)}"
            emit(f"{x} = {value(t)}")
            conds.append(f"{x} is not None")
            return x

        def guard(conds: list[str]) -> None:
            nonlocal depth
            if conds:
                emit(f"if {' and '.join(conds)}:")
                depth += 1

        def atom(lit, source: str | None) -> None:
            nonlocal depth
            _, key, args = lit
            p = self.pred(key)
            keys = [j for j, t in enumerate(args) if bound(t) and t[0] != "v" or t[0] == "v" and t[1] in env]
            if source is None and len(keys) == len(args):
                emit(f"if ({''.join(value(t) + ', ' for t in args)}) in S{p}:")
                depth += 1
                return
            if source is None and keys:
                k = value(args[keys[0]]) if len(keys) == 1 else \
                    "(" + ", ".join(value(args[j]) for j in keys) + ")"
                source = f"{self.index(p, tuple(keys))}.get({k}, ())"
                rest = [j for j in range(len(args)) if j not in keys]
            else:
                source = source or f"S{p}"
                rest = list(range(len(args)))
            n = next(fresh)
            names = [f"a{n}_{j}" for j in range(len(args))]
            emit(f"for ({''.join(x + ', ' for x in names)}) in {source}:" if args else f"for _ in {source}:")
            depth += 1
            conds: list[str] = []
            for j in rest:
                match(args[j], names[j], conds)
            guard(conds)

        def comparison(lit) -> bool:
            """Emit a comparison whose variables are bound (a test) or that binds one side (an
            assignment or a match); False if it must wait."""
            nonlocal depth
            _, op, left, right = lit
            if bound(left) and bound(right):
                conds = []
                a, b = (computed(t, conds) for t in (left, right))
                if op == "=":
                    conds.append(f"{a} == {b}")
                elif op == "!=":
                    conds.append(f"{a} != {b}")
                else:
                    conds.append(f"{_ORDERINGS[op]}({a}, {b})")
                guard(conds)
                return True
            if op != "=":
                return False
            for free, given in ((left, right), (right, left)):
                if bound(given) and not bound(free) and not _has_op(free):
                    x = f"e{next(fresh)}"
                    emit(f"{x} = {value(given)}")
                    conds = [f"{x} is not None"] if _has_op(given) else []
                    match(free, x, conds)
                    guard(conds)
                    return True
            return False

        todo = [i for i in range(len(body)) if i != first]
        if first is not None:
            atom(body[first], "delta")
        while todo:
            for i in todo:
                if body[i][0] == "cmp" and comparison(body[i]):
                    todo.remove(i)
                    break
            else:
                best = None
                for i in todo:
                    lit = body[i]
                    if lit[0] != "atom":
                        continue
                    nb = sum(1 for t in lit[2] if bound(t))
                    nv = sum(1 for t in lit[2] if t[0] != "c" and bound(t))
                    # a membership test, then a lookup by bound variables (a constant such as
                    # true is shared by many atoms), then by constants, then a scan
                    score = (nb == len(lit[2]), nv, nb)
                    if best is None or score > best[0]:
                        best = (score, i)
                if best is None:
                    raise _NotSupported(f"a comparison whose variables no atom binds in the rule of {head}")
                todo.remove(best[1])
                atom(body[best[1]], None)
        conds = []
        if not all(bound(t) for t in head[2]):
            raise _NotSupported(f"an unsafe variable in the head {head}")
        hvals = [computed(t, conds) for t in head[2]]
        guard(conds)
        emit(f"add(({''.join(v + ', ' for v in hvals)}))")
        return "\n".join(lines) + "\n"

    # -- evaluation
    def run(self, facts: dict[tuple[str, int], set]) -> None:
        """The least model with these facts ((name, arity) -> tuples) added; call under `lock`.

        If every fact of the previous (completed) run is among `facts` (the state just reasoned
        about, with an action declared), the run goes on from the previous model with the new
        facts as the delta: the program is positive, so the model only grows, and semi-naive
        evaluation from a model of some facts reaches the least model of more facts."""
        previous, self._input = self._input, None
        if previous is not None and not self._dirty and self._extends(previous, facts):
            self._dirty = True
            self._added = {}
            self._loop(self._insert_new(previous, facts), set())
            self._input = facts
            return
        self._added = None
        self._extra_added = {}
        self.reading = None
        relations, indexes = self.relations, self._indexes
        if self._dirty:
            for clear in self._clear:
                clear()
        else:
            for p in self._touched:
                relations[p].clear()
                for _, index in indexes[p]:
                    index.clear()
        self._dirty = True
        self._touched = set()
        self._extra = {}  # facts of predicates the program does not mention
        delta = dict(self._facts)  # (sets that no one changes: the rounds make new ones)
        preds = self.preds
        for key, tuples in facts.items():
            p = preds.get(key)
            if p is None:
                self._extra[key] = tuples
            elif p in delta:
                delta[p] = delta[p] | tuples
            else:
                delta[p] = tuples
        for p, tuples in delta.items():
            self.insert(p, tuples)
        for fn in self._once:
            fn()
        self._loop(delta, set(self._once_heads))
        self._input = facts

    @staticmethod
    def _extends(previous: dict, facts: dict) -> bool:
        """Whether every fact of `previous` is among `facts`."""
        for key, old in previous.items():
            new = facts.get(key)
            if new is not old and (new is None or not old <= new):  # (_abox shares unchanged sets)
                return False
        return True

    def _insert_new(self, previous: dict, facts: dict) -> dict[int, set]:
        """Insert the facts not in `previous` that the model lacks; the delta of the first round."""
        preds, relations = self.preds, self.relations
        delta: dict[int, set] = {}
        self._extra_added = {}
        for key, tuples in facts.items():
            old = previous.get(key)
            if tuples is old:
                continue
            new = tuples - old if old else tuples
            if not new:
                continue
            p = preds.get(key)
            if p is None:
                self._extra[key] = tuples
                self._extra_added[key] = new
            else:
                new = new - relations[p]
                if new:
                    self.insert(p, new)
                    delta[p] = new
        return delta

    def _loop(self, delta: dict[int, set], collect: set) -> None:
        """Semi-naive rounds from `delta` (atoms already inserted) to the fixpoint."""
        relations, pendings = self.relations, self._pending
        dispatch, reach, insert = self._dispatch, self._reach, self.insert
        while True:
            for p, tuples in delta.items():
                fn = dispatch[p]
                if fn is not None:
                    collect.update(reach[p])
                    fn(tuples)
            delta = {}
            for p in collect:
                pending = pendings[p]
                if pending:
                    new = pending - relations[p]
                    pending.clear()
                    if new:
                        insert(p, new)
                        delta[p] = new
            if not delta:
                self._dirty = False
                return
            collect = set()

    def insert(self, p: int, new: set) -> None:
        self._touched.add(p)
        self.relations[p].update(new)
        if self._added is not None:
            got = self._added.get(p)
            if got is None:
                self._added[p] = set(new)
            else:
                got.update(new)
        for key, index in self._indexes[p]:
            _index_add(index, key, new)

    def model(self) -> dict[tuple[str, int], set]:
        """The predicates that hold atoms after `run`, (name, arity) -> tuples."""
        keys = self._keys
        out = {keys[p]: self.relations[p] for p in self._touched}
        out.update(self._extra)
        return out

    def added_model(self) -> dict[tuple[str, int], set] | None:
        """The atoms the last run added to the previous model, as `model` gives them (None if it
        ran from the program's facts)."""
        if self._added is None:
            return None
        keys = self._keys
        out = {keys[p]: atoms for p, atoms in self._added.items()}
        out.update(self._extra_added)
        return out


# ---------------------------------------------------------------------------------------------
# Cache and entry points

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


_RULE_KEY = operator.attrgetter("name", "text")


def _fingerprint(knowledge) -> tuple:
    return (id(knowledge.vocabulary), tuple(map(_RULE_KEY, knowledge.rules)))


def compiled(knowledge) -> Compiled:
    """The compiled program of a knowledge (cached per Knowledge object and rule texts)."""
    fp = _fingerprint(knowledge)
    try:
        hit = _CACHE.get(knowledge)
    except TypeError:  # not weak-referenceable: compile every time
        return _Compiler(knowledge).compile()
    if hit is not None and hit[0] == fp:
        return hit[1]
    result = _Compiler(knowledge).compile()
    _CACHE[knowledge] = (fp, result)
    return result


def compile_program(knowledge) -> str:
    """The ASP program of a ruleset (TBox + rules), as clingo reads it."""
    return compiled(knowledge).program


def facts_program(knowledge, facts) -> str:
    """The ABox facts as ASP facts."""
    v = knowledge.vocabulary
    lines = []
    classes, objs, datas = v.classes, v.object_properties, v.data_properties
    for f in facts:
        if len(f) == 2:
            cls, ind = f
            if cls not in classes:
                raise ReasonerError(f"fast: fact {f!r}: {cls!r} is not a class of the ontology")
            if not isinstance(ind, str):
                raise ReasonerError(f"fast: fact {f!r}: expected an individual name")
            lines.append(f"{cpred(cls)}({_qstr(ind)}).")
        elif len(f) == 3:
            p, s, o = f
            if not isinstance(s, str):
                raise ReasonerError(f"fast: fact {f!r}: expected an individual name as subject")
            if p in objs:
                if not isinstance(o, str):
                    raise ReasonerError(f"fast: fact {f!r}: {p} is an object property, expected an individual")
                lines.append(f"{ppred(p)}({_qstr(s)},{_qstr(o)}).")
            elif p in datas:
                try:
                    lines.append(f"{ppred(p)}({_qstr(s)},{_literal(o)}).")
                except ReasonerError as exc:
                    raise ReasonerError(f"fast: fact {f!r}: {exc}") from None
            else:
                raise ReasonerError(f"fast: fact {f!r}: {p!r} is not a property of the ontology")
        else:
            raise ReasonerError(f"fast: expected (Class, individual) or (property, subject, object), got {f!r}")
    return "\n".join(lines) + "\n"


def solve(program: str, facts_text: str) -> list[clingo.Symbol]:
    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], program)
    ctl.add("base", [], facts_text)
    ctl.ground([("base", [])])
    symbols = None
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            symbols = model.symbols(shown=True)
            break
    if symbols is None:  # a positive program always has a model
        raise ReasonerError("fast: clingo found no model")
    return symbols


def _check_consistency(knowledge, comp: Compiled, classes: dict[str, set[str]],
                       functional: dict[tuple[str, str], set], bad_range: list[tuple]) -> None:
    """What makes Pellet report an inconsistent state."""
    v = knowledge.vocabulary
    if bad_range:  # the first in a fixed order (the model is a set)
        p, s, value = min(bad_range, key=repr)
        raise ReasonerError(f"fast: the state is inconsistent with the ontology: {p}({s}, {value!r}) "
                            f"is not a value of {v.data_properties[p]}")
    individuals = sorted(classes)
    for group in comp.disjoint:
        for ind in individuals:
            common = classes[ind] & group
            if len(common) > 1:
                raise ReasonerError(f"fast: the state is inconsistent with the ontology: {ind} is in the disjoint "
                                    f"classes {', '.join(sorted(common))}")
    for (p, s) in sorted(functional):
        vals = functional[(p, s)]
        if len(vals) > 1:
            shown = ", ".join(sorted(repr(x) for _, x in vals))
            raise ReasonerError(f"fast: the state is inconsistent with the ontology: {p} is functional and "
                                f"{s} has the values {shown}")


_TRUE, _FALSE = ("true",), ("false",)


def _names(comp: Compiled, knowledge) -> tuple[dict, dict]:
    """Class name -> ASP predicate, property name -> (ASP predicate, kind), to read the facts (cached)."""
    if comp.names is None:
        v = knowledge.vocabulary
        props = {p: (ppred(p), "data") for p in v.data_properties}
        props.update((p, (ppred(p), "object")) for p in v.object_properties)
        comp.names = ({c: cpred(c) for c in v.classes}, props)
    return comp.names


def _abox(comp: Compiled, knowledge, facts) -> dict[tuple[str, int], set]:
    """The ABox facts as values of the evaluator, by predicate, with the checks (and messages) of
    facts_program.  Names are plain str, as clingo gives them back.

    When `facts` is a list that begins with the very fact tuples of the previous call (a state's
    ABox, then with an action's facts after it: see game.run_reasoner), only the rest is read."""
    last = comp.last_abox
    if last is not None and type(facts) is list and len(facts) >= len(last[0]) \
            and all(map(operator.is_, facts, last[0])):
        out = dict(last[1])  # (the sets are never changed: the evaluator keeps them as its input)
        more, plain = _read_facts(comp, knowledge, facts[len(last[0]):])
        for key, values in more.items():
            old = out.get(key)
            out[key] = old | values if old else values
    else:
        out, plain = _read_facts(comp, knowledge, facts)
    # a snapshot of immutable facts only: a list the caller changes later, or a fact that is a
    # list, must not look like the same facts
    comp.last_abox = (tuple(facts), out) if plain and type(facts) is list else None
    return out


def _read_facts(comp: Compiled, knowledge, facts) -> tuple[dict[tuple[str, int], set], bool]:
    """_abox without the reuse: the facts by predicate, and whether every fact was a tuple."""
    classes, props = _names(comp, knowledge)
    plain = True
    memo = comp.facts_memo
    if len(memo) > 50_000:
        memo.clear()
    out: dict[tuple[str, int], set] = {}
    get = memo.get
    for f in facts:
        # the facts of a duel repeat from state to state: each is read once.  (True == 1 and they
        # hash alike: a hit counts only if the value has the type it had; a name never equals a
        # non-string.)
        try:
            hit = get(f)
        except TypeError:  # unhashable: an error below
            hit = None
        if hit is not None and type(f[-1]) is hit[2]:
            key = hit[0]
            rel = out.get(key)
            if rel is None:
                out[key] = {hit[1]}
            else:
                rel.add(hit[1])
            continue
        n = len(f)
        if n == 2:
            cls, ind = f
            pred = classes.get(cls)
            if pred is None:
                raise ReasonerError(f"fast: fact {f!r}: {cls!r} is not a class of the ontology")
            if type(ind) is not str:
                if not isinstance(ind, str):
                    raise ReasonerError(f"fast: fact {f!r}: expected an individual name")
                ind = str.__str__(ind)
            key, value = (pred, 1), (ind,)
        elif n == 3:
            p, s, o = f
            if type(s) is not str:
                if not isinstance(s, str):
                    raise ReasonerError(f"fast: fact {f!r}: expected an individual name as subject")
                s = str.__str__(s)
            entry = props.get(p)
            if entry is None:
                raise ReasonerError(f"fast: fact {f!r}: {p!r} is not a property of the ontology")
            t = type(o)
            if entry[1] == "object":
                if t is not str:
                    if not isinstance(o, str):
                        raise ReasonerError(f"fast: fact {f!r}: {p} is an object property, expected an individual")
                    o = str.__str__(o)
            elif t is int or t is not bool and t is not str and isinstance(o, int):
                if not INT_MIN <= o <= INT_MAX:
                    raise ReasonerError(f"fast: fact {f!r}: fast: the integer {o} is outside clingo's 32-bit range")
                if t is not int:
                    o = int(o)
            elif t is bool:
                o = _TRUE if o else _FALSE
            elif isinstance(o, str):
                o = ("s", str.__str__(o))
            else:
                raise ReasonerError(f"fast: fact {f!r}: fast: expected an integer, a boolean or a string as a data "
                                    f"value, got {o!r}")
            key, value = (entry[0], 2), (s, o)
        else:
            raise ReasonerError(f"fast: expected (Class, individual) or (property, subject, object), got {f!r}")
        if type(f) is tuple:
            memo[f] = (key, value, type(f[-1]))
        else:
            plain = False
        rel = out.get(key)
        if rel is None:
            out[key] = {value}
        else:
            rel.add(value)
    return out, plain


def _evaluator(comp: Compiled, equality: bool) -> _Evaluator | None:
    """The evaluator of the program (with or without the equality section); None if the program
    has a construct it does not reproduce."""
    slot = 1 if equality else 0
    ev = comp.evaluators[slot]
    if ev is None:
        try:
            ev = _Evaluator(comp.program if equality else comp.program_without_eq)
        except _NotSupported:
            ev = False
        comp.evaluators[slot] = ev
    return ev or None


def _any_value(sym: clingo.Symbol):
    """A symbol of clingo's model as an evaluator value.  A negative function term (-true: the
    unaryMinus of a boolean) reads as its name and arguments, as the backend always read it."""
    t = sym.type
    if t == clingo.SymbolType.Number:
        return sym.number
    if t == clingo.SymbolType.String:
        return sym.string
    return (sym.name, *map(_any_value, sym.arguments))


def _clingo_model(comp: Compiled, knowledge, facts, equality: bool) -> dict[tuple[str, int], set]:
    """The shown atoms of the model as clingo computes it, by predicate."""
    symbols = solve(comp.program if equality else comp.program_without_eq, facts_program(knowledge, facts))
    out: dict[tuple[str, int], set] = {}
    for sym in symbols:
        args = sym.arguments
        out.setdefault((sym.name, len(args)), set()).add(tuple(map(_any_value, args)))
    return out


def _model(comp: Compiled, knowledge, facts, abox, equality: bool, check_merges: bool, evaluator: bool = True):
    """_read_model of the model of the program (with or without the equality section), computed
    by the evaluator, or by clingo when it cannot (or `evaluator` is False)."""
    ev = _evaluator(comp, equality) if evaluator else None
    if ev is not None:
        with ev.lock:
            try:
                ev.run(abox)
            except _NotSupported:
                pass
            else:
                return _read_evaluator(knowledge, comp, check_merges, ev)
    return _read_model(knowledge, comp, check_merges, _clingo_model(comp, knowledge, facts, equality))


def _read_evaluator(knowledge, comp: Compiled, check_merges: bool, ev: _Evaluator):
    """_read_model of the evaluator's model.  After a run that went on from a model already read
    (ev.reading), only the added atoms are read, with the relations that the merge and consistency
    checks compare them to (_related): the facts are those of the previous reading and of the new
    atoms, and a check fails on the whole model exactly when it fails on that part, with the
    same message (the previous model passed every check)."""
    base, ev.reading = ev.reading, None
    added = ev.added_model()
    if base is None or added is None:
        merges, result = _read_model(knowledge, comp, check_merges, ev.model())
    else:
        merges, result = _read_model(knowledge, comp, check_merges, _related(comp, knowledge, ev.model(), added))
        if not merges:
            result |= base
    if not merges:
        ev.reading = frozenset(result)
    return merges, result


def _related(comp: Compiled, knowledge, model: dict, added: dict) -> dict:
    """The added atoms, and in full the relations the checks relate them to: the same functional
    (inverse-functional) property, the classes of the same disjointness axioms."""
    if comp.related is None:
        related: dict = {}
        for group in comp.disjoint:
            keys = [(cpred(c), 1) for c in sorted(group)]
            for key in keys:
                related.setdefault(key, set()).update(keys)
        for p in knowledge.vocabulary.functional | comp.functional | comp.inverse_functional:
            related.setdefault((ppred(p), 2), set()).add((ppred(p), 2))
        comp.related = related
    out = dict(added)
    for key in added:
        for other in comp.related.get(key, ()):
            if other in model:
                out[other] = model[other]
    return out


def infer_facts(knowledge, facts, evaluator: bool = True) -> set[tuple]:
    """Every fact about the named individuals; evaluator=False: computed by clingo (the same
    answer, ~20-50x slower; for tests)."""
    comp = compiled(knowledge)
    abox = _abox(comp, knowledge, facts)
    merges, result = _model(comp, knowledge, facts, abox, False, True, evaluator)
    if merges:
        _, result = _model(comp, knowledge, facts, abox, True, False, evaluator)
    return result


def _not_individual(pred: str, value):
    return ReasonerError(f"fast: the model has {pred}(..., {value!r}, ...) where an individual is expected")


def _data(value):
    """A value of the model as a data value: s("...") is a string, true and false booleans."""
    if value[0] == "true":
        return True
    if value[0] == "false":
        return False
    if len(value) > 1 and type(value[1]) is str:  # s("...")
        return value[1]
    raise ReasonerError(f"fast: the model has the data value {value!r}")


_CLASS, _OBJECT, _DATA = 0, 1, 2


def _plan(comp: Compiled, knowledge) -> dict:
    """(ASP predicate, arity) -> what an atom of it answers: (kind, name, functional data property?,
    declared range, in a disjointness axiom?) (cached)."""
    if comp.plan is None:
        functional = knowledge.vocabulary.functional
        disjoint = set().union(*comp.disjoint) if comp.disjoint else set()
        plan = {}
        for pred, (kind, name) in comp.out.items():
            if kind == "class":
                plan[(pred, 1)] = (_CLASS, name, False, "any", name in disjoint)
            elif kind == "object":
                plan[(pred, 2)] = (_OBJECT, name, False, "any", False)
            else:
                plan[(pred, 2)] = (_DATA, name, name in functional, comp.ranges.get(name, "any"), False)
        comp.plan = plan
    return comp.plan


def _read_model(knowledge, comp: Compiled, check_merges: bool, model: dict) -> tuple[bool, set[tuple] | None]:
    """(True, None) if check_merges and the model merges individuals (see _merges), else (False,
    the facts it answers) after the consistency checks."""
    if check_merges and _merges(comp, model):
        return True, None
    unnamed = comp.unnamed
    plan = _plan(comp, knowledge)
    result: set[tuple] = set()
    classes: dict[str, set[str]] = {}  # of the classes in a disjointness axiom
    functional: dict[tuple[str, str], set] = {}
    bad_range: list[tuple] = []
    # Most relations of a model are equal to one of the model before (86% of the atoms in a
    # duel), so the facts of each relation are remembered with the atoms they were read from.
    # A relation is remembered only when the whole model passed the checks; its own checks
    # (types, ranges, a functional property's values) then pass again on the same atoms.  The
    # classes of a disjointness axiom are checked together, so they are always read.
    memo = comp.read_memo
    read: list[tuple] = []
    for key, rel in model.items():
        entry = plan.get(key)
        if entry is None or not rel:
            continue
        kind, name, check_fun, rt, disjoint = entry
        if not disjoint:
            hit = memo.get(key)
            if hit is not None and hit[0] == rel:
                result |= hit[1]
                continue
        out: set[tuple] = set()
        add = out.add
        read.append((key, rel, out))
        if kind == _CLASS:
            for (subject,) in rel:
                if type(subject) is not str:
                    raise _not_individual(key[0], subject)
                if subject not in unnamed:
                    add((name, subject))
                if disjoint:
                    classes.setdefault(subject, set()).add(name)
        elif kind == _OBJECT:
            for subject, value in rel:
                if type(subject) is not str or type(value) is not str:
                    raise _not_individual(key[0], value if type(subject) is str else subject)
                if subject not in unnamed:
                    add((name, subject, value))
        else:
            for subject, value in rel:
                if type(subject) is not str:
                    raise _not_individual(key[0], subject)
                if type(value) is tuple:
                    value = _data(value)
                if check_fun:  # typed: 1 and True are different values
                    functional.setdefault((name, subject), set()).add((type(value), value))
                if rt != "any" and rt != _KIND_OF.get(type(value)):
                    bad_range.append((name, subject, value))
                if subject not in unnamed:
                    add((name, subject, value))
    _check_consistency(knowledge, comp, classes, functional, bad_range)
    for key, rel, out in read:
        result |= out
        if not plan[key][4]:
            memo[key] = (frozenset(rel), out)
    return False, result


_KIND_OF = {int: "int", bool: "bool", str: "str"}


def _merges(comp: Compiled, model: dict) -> bool:
    """Whether a functional (inverse-functional) object property gives a subject (object) two values."""
    if comp.merge_preds is None:
        comp.merge_preds = [((ppred(p), 2), 0) for p in sorted(comp.functional)] + \
                           [((ppred(p), 2), 1) for p in sorted(comp.inverse_functional)]
    for key, pos in comp.merge_preds:
        rel = model.get(key)
        if rel:
            seen: dict = {}
            for pair in rel:
                if seen.setdefault(pair[pos], pair[1 - pos]) != pair[1 - pos]:
                    return True
    return False


@register("fast")
class FastBackend:
    name = "fast"

    def infer(self, knowledge, facts: list[tuple]) -> set[tuple]:
        return infer_facts(knowledge, facts)
