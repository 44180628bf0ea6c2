"""The order of an activation's selections (rules/common/activation.swrl): the catalog's facts firstSelection,
secondSelection and lastSelection follow the order its cardActivation lists its SelectionRequirements in, and
handCost counts the cards its cost discards from the hand.  The goat cards that select a cost and then a target or a
declaration are data alone (tests/test_goat_cards_as_data.py); their behaviour is in their scenarios (tests/scenarios/goat)."""
from __future__ import annotations

from ygo_onto.abox import catalog_facts
from ygo_onto.cards import catalog

TWO_SELECTIONS = {"Raigeki Break": "chooseOneTarget", "Phoenix Wing Wind Blast": "chooseOneTarget",
                  "Tribe-Infecting Virus": "declareType"}


def _order(name: str) -> dict:
    facts = catalog_facts(catalog("goat").get(name), "c", "goat")
    return {f[0]: f[2] for f in facts if f[0] in ("firstSelection", "secondSelection", "lastSelection", "handCost")}


def test_a_cost_listed_first_is_selected_first_and_the_next_requirement_last():
    for name, second in TWO_SELECTIONS.items():
        assert _order(name) == {"firstSelection": "discardOneCard", "secondSelection": second,
                                "lastSelection": second, "handCost": 1}, name


def test_a_card_with_one_selection_has_it_first_and_last_and_no_hand_cost():
    assert _order("Dust Tornado") == {"firstSelection": "chooseOneTarget", "lastSelection": "chooseOneTarget",
                                      "handCost": 0}
    assert _order("Heavy Storm") == {"firstSelection": "nothingToSelect", "lastSelection": "nothingToSelect",
                                     "handCost": 0}
    # a PaymentRequirement and an OptionRequirement are not selections (Premature Burial: chooseOneTarget payLifePoints800)
    assert _order("Premature Burial")["lastSelection"] == "chooseOneTarget"
