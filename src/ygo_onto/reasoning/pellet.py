"""The reference backend: Pellet through owlready2 (sync_reasoner_pellet).

Each call builds a fresh World (knowledge + ABox), so no inference of an earlier state can
leak into this one, runs Pellet with property-value inference, and reads back every fact
about the named individuals.
"""
from __future__ import annotations

import subprocess

import owlready2
from rdflib import Literal, URIRef
from rdflib.namespace import OWL, RDF, RDFS
from owlready2 import sync_reasoner_pellet

from ..envvars import env_number
from ..errors import ReasonerError
from ..knowledge import ABOX, YGO, Knowledge
from . import register
from .owl import state_world


def read_facts(world, k: Knowledge) -> set[tuple]:
    """Every class membership and property value of the named individuals, in fact form.

    Read from the quadstore (asserted and inferred triples alike), with class memberships
    closed over the class hierarchy as it stands after Pellet's classification.
    (owlready2 may show a loaded individual's .iri under another namespace; storids are exact.)
    """
    v = k.vocabulary
    prefixes = (str(YGO), str(k.cards_ns), str(ABOX))
    graph = world.as_rdflib_graph()
    local = {}

    def name_of(node):
        s = str(node)
        if s not in local:
            local[s] = s.rsplit("#", 1)[-1] if s.startswith(prefixes) else None
        return local[s]

    named = {str(s) for s in graph.subjects(RDF.type, OWL.NamedIndividual)}
    named |= {str(s) for s, _, _ in graph.triples((None, None, None)) if str(s).startswith(str(ABOX))}
    parents: dict[str, set[str]] = {}
    for s, o in graph.subject_objects(RDFS.subClassOf):
        if isinstance(s, URIRef) and isinstance(o, URIRef) and name_of(s) and name_of(o):
            parents.setdefault(name_of(s), set()).add(name_of(o))
    for s, o in graph.subject_objects(OWL.equivalentClass):
        if isinstance(s, URIRef) and isinstance(o, URIRef) and name_of(s) and name_of(o):
            parents.setdefault(name_of(s), set()).add(name_of(o))
            parents.setdefault(name_of(o), set()).add(name_of(s))

    def closure(cls: str) -> set[str]:
        out, todo = {cls}, [cls]
        while todo:
            for p in parents.get(todo.pop(), ()):
                if p not in out:
                    out.add(p)
                    todo.append(p)
        return out

    props = set(v.object_properties) | set(v.data_properties)
    out: set[tuple] = set()
    for s in named:
        subject = name_of(s)
        if subject is None:
            continue
        for p, o in graph.predicate_objects(URIRef(s)):
            if p == RDF.type:
                c = name_of(o) if isinstance(o, URIRef) else None
                if c:
                    out.update((a, subject) for a in closure(c))
            elif name_of(p) in props:
                out.add((name_of(p), subject, _value(o, v.data_properties.get(name_of(p))) if isinstance(o, Literal) else name_of(o)))
    return out


def _value(literal: Literal, range_: str | None):
    """A literal as Python: Pellet writes rule-made strings as rdf:PlainLiteral and may write a
    rule-made integer as a decimal (3.0); both are read back as the property's range says."""
    value = literal.toPython()
    if isinstance(value, Literal):
        return str(value)
    if range_ == "integer" and isinstance(value, float) and value.is_integer():
        return int(value)
    if range_ == "integer" and not isinstance(value, (int, bool)):
        return int(value)
    return value


# The budget of one Pellet run, in seconds (a run takes seconds): Java is stopped after it and the run is a
# ReasonerError naming it, never a hang.  YGO_PELLET_TIMEOUT sets it (0: no bound).
DEFAULT_TIMEOUT = 600.0
TIMEOUT_ENV = "YGO_PELLET_TIMEOUT"


def timeout() -> float:
    """The budget in use: YGO_PELLET_TIMEOUT if it is set (seconds, >= 0), else DEFAULT_TIMEOUT."""
    return env_number(TIMEOUT_ENV, DEFAULT_TIMEOUT, "a number of seconds >= 0 (0: no bound)", integer=False)


@register("pellet")
class PelletBackend:
    name = "pellet"

    def infer(self, knowledge: Knowledge, facts: list[tuple]) -> set[tuple]:
        world = state_world(knowledge, facts)
        inferences = world.get_ontology("http://ygo-onto.org/inferences")
        budget = timeout()
        kargs = owlready2.reasoning._subprocess_kargs  # (owlready2 runs Java with these subprocess.run arguments)
        kargs["timeout"] = budget or None
        try:
            with inferences:
                sync_reasoner_pellet(world, infer_property_values=True, infer_data_property_values=True, debug=0)
        except owlready2.OwlReadyInconsistentOntologyError as exc:
            raise ReasonerError(f"Pellet: the state is inconsistent with the ontology: {exc}") from None
        except subprocess.TimeoutExpired:  # (subprocess.run has killed Java)
            world.close()
            raise ReasonerError(f"Pellet: the reasoner did not reach its fixpoint within its budget of {budget:g} s "
                                f"({TIMEOUT_ENV})") from None
        finally:
            kargs.pop("timeout", None)
        result = read_facts(world, knowledge)
        world.close()
        return result
