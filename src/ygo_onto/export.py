"""Writing the ontology for Protégé, and checking the TBox with HermiT."""
from __future__ import annotations

import io
from pathlib import Path

from rdflib import Graph, URIRef
from rdflib.namespace import OWL, RDF

from .abox import state_facts
from .errors import ReasonerError, StateError
from .knowledge import BASE, knowledge

SWRL_IMP = "http://www.w3.org/2003/11/swrl#Imp"


def export(path: Path, ruleset: str, state=None) -> tuple[int, int]:
    """Write TBox + card classes + rules (+ the state's individuals, deck included) as RDF/XML.

    :returns: (number of SWRL rules, number of triples) as rdflib reads the written file back.
    """
    from .reasoning.owl import add_facts, knowledge_world

    k = knowledge(ruleset)
    world, _ = knowledge_world(k)
    if state is not None:
        add_facts(world, k, state_facts(state.data, lean=False))
    buf = io.BytesIO()
    world.save(buf, format="ntriples")
    g = Graph()
    g.parse(data=buf.getvalue().decode("utf-8"), format="nt")
    # One ontology header: owlready2's own <http://anonymous> and the ABox's header would make
    # Protégé and the OWL API pick the wrong ontology IRI.
    for header in list(g.subjects(RDF.type, OWL.Ontology)):
        if str(header) != BASE:
            g.remove((header, None, None))
    # Rules with identity (an IRI, their file) and the ruleset on the header: ontofile.py reads them back.
    from .ontofile import header_triples, name_rules

    name_rules(g, k)
    for t in header_triples(k.ruleset):
        g.add(t)
    g.bind("ygo", "http://ygo-onto.org/ontology#")
    g.bind("card", str(k.cards_ns))
    g.bind("swrl", "http://www.w3.org/2003/11/swrl#")
    try:
        g.serialize(destination=str(path), format="xml")
    except OSError as exc:
        raise StateError(f"{path}: expected a writable file, got {exc.strerror}") from None
    world.close()
    check = Graph()
    check.parse(str(path), format="xml")
    rules = sum(1 for _ in check.subjects(RDF.type, URIRef(SWRL_IMP)))
    return rules, len(check)


def hermit_check(ruleset: str = "official") -> str:
    """Classify the TBox (with the card classes) with HermiT and report.

    HermiT refuses SWRL rules that use builtins, so it sees the TBox alone; the rules run on
    Pellet (or the compiled backend).
    """
    from owlready2 import OwlReadyInconsistentOntologyError, World, sync_reasoner_hermit

    k = knowledge(ruleset)
    world = World()
    onto = world.get_ontology("http://ygo-onto.org/ontology")
    onto.load(fileobj=io.BytesIO(k.tbox.serialize(format="nt", encoding="utf-8")), format="ntriples")
    try:
        with onto:
            sync_reasoner_hermit(world, debug=0)
    except OwlReadyInconsistentOntologyError as exc:
        raise ReasonerError(f"HermiT: the {ruleset} TBox is inconsistent: {exc}") from None
    unsat = [c.name for c in world.inconsistent_classes()]
    if unsat:
        raise ReasonerError(f"HermiT: unsatisfiable classes in the {ruleset} TBox: {', '.join(unsat)}")
    return (f"HermiT: the {ruleset} TBox is consistent; {len(k.vocabulary.classes)} classes, all satisfiable; "
            f"{len(k.rules)} rules use only ontology terms")
