"""The reference backend: Pellet through owlready2 (sync_reasoner_pellet).

Each call builds a fresh World (knowledge + ABox), so no inference of an earlier state can
leak into this one, runs Pellet with property-value inference, and reads back every fact
about the named individuals.
"""
from __future__ import annotations

import owlready2
from owlready2 import sync_reasoner_pellet

from ..errors import ReasonerError
from ..knowledge import ABOX, YGO, Knowledge
from . import register
from .owl import state_world


def read_facts(world, k: Knowledge) -> set[tuple]:
    """Every class membership and property value of the named individuals, in fact form."""
    v = k.vocabulary
    prefixes = (str(YGO), str(k.cards_ns), str(ABOX))
    out: set[tuple] = set()
    props = {str(YGO[p]): p for p in (*v.object_properties, *v.data_properties)}
    for ind in world.individuals():
        if not ind.iri.startswith(prefixes):
            continue
        name = ind.name
        for cls in ind.INDIRECT_is_a:
            c_iri = getattr(cls, "iri", None)
            if c_iri and c_iri.startswith(prefixes):
                out.add((cls.name, name))
        for p_iri, p in props.items():
            prop = world[p_iri]
            if prop is None:
                continue
            for value in prop._get_values_for_individual(ind) if hasattr(prop, "_get_values_for_individual") else getattr(ind, p, []) or []:
                out.add((p, name, value.name if hasattr(value, "iri") else value))
    return out


@register("pellet")
class PelletBackend:
    name = "pellet"

    def infer(self, knowledge: Knowledge, facts: list[tuple]) -> set[tuple]:
        world = state_world(knowledge, facts)
        inferences = world.get_ontology("http://ygo-onto.org/inferences")
        try:
            with inferences:
                sync_reasoner_pellet(world, infer_property_values=True, infer_data_property_values=True, debug=0)
        except owlready2.OwlReadyInconsistentOntologyError as exc:
            raise ReasonerError(f"Pellet: the state is inconsistent with the ontology: {exc}") from None
        result = read_facts(world, knowledge)
        world.close()
        return result
