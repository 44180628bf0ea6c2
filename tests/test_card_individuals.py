"""The individuals of cards (abox.card_ind, parse_card_ind): a card in a Deck or a hand is named by its card and its
copy, so a draw, a shuffle or a card leaving the hand renames no other card but that card's own later copies, and
every name turns back into its place."""
import copy
import random

from ygo_onto import abox
from ygo_onto.duel import new_duel
from ygo_onto.state import LIST_AREAS, PLAYERS


def _names(state: dict, p: str, area: str) -> list:
    return [abox.card_ind(p, area, i, state) for i in range(len(state["players"][p][area]))]


def _goat_state() -> dict:
    """A goat duel's first state (its hands and Decks hold copies of a card)."""
    return copy.deepcopy(new_duel("goat", 1).data)


def test_every_card_individual_names_its_place_back():
    state = _goat_state()
    for p in PLAYERS:
        for area in LIST_AREAS:
            names = _names(state, p, area)
            assert len(set(names)) == len(names), f"{p} {area}: two cards share an individual"
            for i, name in enumerate(names):
                assert abox.parse_card_ind(name, state) == {"player": p, "area": area, "index": i}


def test_a_draw_renames_no_card_left_in_the_deck_nor_in_the_hand():
    state = _goat_state()
    deck, hand = _names(state, "A", "deck"), _names(state, "A", "hand")
    side = state["players"]["A"]
    side["hand"].append(side["deck"].pop(0))
    assert _names(state, "A", "deck") == deck[1:]
    assert _names(state, "A", "hand")[:-1] == hand


def test_a_card_leaving_the_hand_renames_only_its_later_copies():
    state = _goat_state()
    side = state["players"]["A"]
    side["hand"] = ["Sangan", "Mystical Space Typhoon", "Sangan", "Pot of Greed"]
    before = _names(state, "A", "hand")
    side["hand"].pop(0)
    after = _names(state, "A", "hand")
    assert after == [before[1], before[0], before[3]]  # (the second Sangan is now the first)


def test_a_shuffle_renames_no_card_but_copies_of_one_card():
    state = _goat_state()
    side = state["players"]["B"]
    before = dict(zip(_names(state, "B", "deck"), side["deck"]))
    random.Random(7).shuffle(side["deck"])
    after = dict(zip(_names(state, "B", "deck"), side["deck"]))
    assert after == before  # (the same individuals, each still a copy of the same card)
