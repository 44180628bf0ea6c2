"""The catalog's activation data against the ontology and the rules.

A card's activation requirements are data (the catalog's `activation` column naming
ActivationRequirement individuals of the ontology); the generic rules of
rules/common/activation.swrl read them.  These tests keep the data and the rules in step.
"""
import re

import pytest

from ygo_onto.knowledge import knowledge

RULESETS = ["official", "simplified"]


def _activatable(k) -> set[str]:
    """Classes of the cards whose rules say when they can be activated or trigger: a card's own rule, or the
    generic rules of the effects it names (rules/common/effects, whose first atom is no card class)."""
    names = {card.class_name for card in k.catalog if card.effects}
    for rule in k.rules:
        body, head = rule.text.split("->")
        own = re.match(r"\s*(\w+)\(\?c\)", body)
        if ("ActivationConditionMet(?c)" in head or "opTriggerEffect(?c" in head) and own and own.group(1) in k.vocabulary.classes \
                and own.group(1) not in ("EffectTriggered",):
            names.add(own.group(1))
    return names


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_requirement_the_catalog_names_is_an_individual_of_the_ontology(ruleset):
    k = knowledge(ruleset)
    v = k.vocabulary
    for card in k.catalog:
        for requirement in card.activation:
            classes = v.individuals.get(requirement)
            assert classes, f"{card.name}: {requirement} is not an individual of the ontology"
            assert classes & {"SelectionRequirement", "PaymentRequirement", "OptionRequirement"}, (card.name, classes)


@pytest.mark.parametrize("ruleset", RULESETS)
def test_every_activatable_card_has_exactly_one_selection_requirement(ruleset):
    k = knowledge(ruleset)
    v = k.vocabulary
    activatable = _activatable(k)
    assert len(activatable) >= (17 if ruleset == "official" else 10)
    for card in k.catalog:
        if card.class_name not in activatable:
            continue
        selections = [r for r in card.activation if "SelectionRequirement" in v.individuals.get(r, ())]
        assert len(selections) == 1, f"{card.name}: expected one SelectionRequirement, got {card.activation}"


def test_the_activation_steps_are_ordered_individuals():
    v = knowledge("official").vocabulary
    facts = v.tbox_facts
    steps = {s for s, classes in v.individuals.items() if "ActivationStep" in classes}
    numbers = {s: o for p, s, o in facts if p == "stepNumber"}
    following = {s: o for p, s, o in facts if p == "nextStep"}
    assert steps == set(numbers) and len(steps) == 6
    order = sorted(steps, key=lambda s: int(numbers[s]))
    assert order[0] == "stepTurnFaceUp" and order[-1] == "stepOpponentMayRespond"
    assert all(following[a] == b for a, b in zip(order, order[1:]))
    # targets are chosen before costs are paid (seed 001, CR 903.2e before 903.2g)
    assert order.index("stepChooseTargets") < order.index("stepPayCosts")


@pytest.mark.parametrize("ruleset", ["official", "simplified", "goat"])
def test_no_individual_gives_a_functional_property_two_values(ruleset):
    """A functional property with two values on one individual makes the reasoners read the two values as one
    individual (a filter with filterPosition attackPosition and defensePosition: every Attack Position monster
    would be in Defense Position too); a card's effect or filter names one value (docs/adding-a-card.md)."""
    v = knowledge(ruleset).vocabulary
    values: dict = {}
    for p, s, o in v.tbox_facts:
        if p in v.functional:
            values.setdefault((p, s), set()).add(o)
    assert values and not {key: got for key, got in values.items() if len(got) > 1}
