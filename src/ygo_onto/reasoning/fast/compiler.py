"""The TBox and the SWRL rules of a ruleset -> one ASP program (`Compiled`), cached per Knowledge."""
from __future__ import annotations

import warnings
import weakref
from dataclasses import dataclass, field

from ...errors import ReasonerError
from ...knowledge import reasoned_rules
from ...swrl import BUILTIN_NAMES, Atom, RuleSyntaxError, Term, parse_rule_text
from .names import INT_MAX, INT_MIN, _esc, _literal, _qstr, _range_type, cpred, ppred  # noqa: F401

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
                            "use the pellet backend or extend reasoning/fast/compiler.py")

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
    # evaluator.parse_program of program_without_eq and program, if known (the disk cache keeps the first)
    parsed: list = field(default_factory=lambda: [None, None], repr=False, compare=False)
    # the disk cache entry of the generated functions' code (evaluator.CodeCache), for a program from the sources
    code_entry: str | None = field(default=None, repr=False, compare=False)
    names: tuple | None = field(default=None, repr=False, compare=False)
    plan: dict | None = field(default=None, repr=False, compare=False)
    merge_preds: list | None = field(default=None, repr=False, compare=False)
    related: dict | None = field(default=None, repr=False, compare=False)  # see _related
    merging: dict | None = field(default=None, repr=False, compare=False)  # see infer._merging
    facts_memo: dict = field(default_factory=dict, repr=False, compare=False)  # see _abox
    last_abox: tuple | None = field(default=None, repr=False, compare=False)  # see _abox
    last_parts: tuple | None = field(default=None, repr=False, compare=False)  # see _abox_parts
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
        for index, rule in enumerate(reasoned_rules(self.k)):
            try:
                self.rule(index, rule)
            except (RuleSyntaxError, _Untranslatable) as exc:
                raise ReasonerError(f"fast: rule {rule.name} ({rule.where}): {exc}") from None

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
        where = f"{rule.name} ({rule.where})"
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
        if name in BUILTIN_NAMES:
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
# Cache and entry points

_CACHE: "weakref.WeakKeyDictionary" = weakref.WeakKeyDictionary()


def _fingerprint(knowledge) -> tuple:
    """The vocabulary object, the rule list object and its Rule objects: a new rule set is new
    objects (Knowledge, Rules loaded from a file, a test's rules).  A Rule's text changed in place
    on a live Knowledge is not seen: call forget(knowledge)."""
    return (knowledge.vocabulary, knowledge.rules, list(knowledge.rules))


def forget(knowledge) -> None:
    """Drop the compiled program of a knowledge (compiled again on next use)."""
    _CACHE.pop(knowledge, None)
    vars(knowledge).pop("preset_compiled", None)


def compiled(knowledge) -> Compiled:
    """The compiled program of a knowledge (cached per Knowledge object and rules, see _fingerprint)."""
    try:
        hit = _CACHE.get(knowledge)
    except TypeError:  # not weak-referenceable: compile every time
        return _Compiler(knowledge).compile()
    if hit is None:
        # the program the disk cache kept for a source knowledge (knowledge._from_entry), with the
        # fingerprint of the knowledge as it was loaded
        hit = getattr(knowledge, "preset_compiled", None)
        if hit is not None:
            _CACHE[knowledge] = hit
    rules = knowledge.rules
    # (list == list compares the same objects by identity first: a fraction of a microsecond)
    if hit is not None and hit[0][0] is knowledge.vocabulary and hit[0][1] is rules and rules == hit[0][2]:
        return hit[1]
    result = _Compiler(knowledge).compile()
    _CACHE[knowledge] = (_fingerprint(knowledge), result)
    return result


def compile_program(knowledge) -> str:
    """The ASP program of a ruleset (TBox + rules), as clingo reads it."""
    return compiled(knowledge).program
