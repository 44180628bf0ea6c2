"""Which Deck cards the reasoning ABox shows and with which facts (abox.visible_decks, deck_cards_in_use, deck_reach):
both Decks throughout a duel that holds a card looking in a Deck, wherever that card lies, and none otherwise; a Deck
card's hasEffect only where its own effect may be used there; the top cards' cardIndex only in a duel that holds a
card reading them.  The full ABox (lean=False) keeps every Deck card with all its facts."""
import copy

from ygo_onto import abox
from ygo_onto.duel import new_duel
from ygo_onto.state import PLAYERS

GOAT = "examples/decks/goat/"


def _state(ruleset: str, decks=None) -> dict:
    return copy.deepcopy(new_duel(ruleset, 1, decks=decks).data)


def _deck_cards(facts, p: str) -> set:
    deck = abox.zone_ind(p, "deck")
    return {f[1] for f in facts if f[0] == "placedIn" and f[2] == deck}


def _looking_anywhere(state: dict, names: frozenset) -> list:
    """(player, area) of every card of these names in the state's lists."""
    return [(p, area) for p in PLAYERS for area in ("deck", "hand", "graveyard", "banished")
            for n in state["players"][p][area] if n in names]


def test_a_duel_with_a_card_that_looks_in_a_deck_shows_both_decks_wherever_that_card_lies():
    state = _state("goat")
    lookers = abox.deck_lookers(abox._catalog("goat"))
    assert _looking_anywhere(state, lookers), "the sample goat decks hold a card that looks in a Deck"
    for p in PLAYERS:
        assert len(_deck_cards(abox.state_facts(state), p)) == len(state["players"][p]["deck"])
    # every such card moved to a Graveyard (no search spell in a hand, no trigger, no link): the Decks stay shown
    for p in PLAYERS:
        side = state["players"][p]
        for area in ("deck", "hand"):
            side["graveyard"] += [n for n in side[area] if n in lookers]
            side[area] = [n for n in side[area] if n not in lookers]
    facts = abox.state_facts(state)
    for p in PLAYERS:
        assert len(_deck_cards(facts, p)) == len(state["players"][p]["deck"]) > 0
    # no such card left in the duel: the Decks' counts alone
    for p in PLAYERS:
        state["players"][p]["graveyard"] = [n for n in state["players"][p]["graveyard"] if n not in lookers]
    facts = abox.state_facts(state)
    assert not any(_deck_cards(facts, p) for p in PLAYERS)
    assert ("deckCount", abox.player_ind("A"), len(state["players"]["A"]["deck"])) in facts


def test_a_duel_without_such_a_card_shows_no_deck_but_its_count():
    state = _state("official")
    assert not _looking_anywhere(state, abox.deck_lookers(abox._catalog("official")))
    facts = abox.state_facts(state)
    assert not any(_deck_cards(facts, p) for p in PLAYERS)
    full = abox.state_facts(state, lean=False)
    assert all(len(_deck_cards(full, p)) == len(state["players"][p]["deck"]) for p in PLAYERS)


def _effects(facts, cards: set) -> set:
    return {f[1] for f in facts if f[0] == "hasEffect" and f[1] in cards}


def test_a_deck_card_has_its_effects_only_where_they_may_be_used_in_the_deck():
    state = _state("goat")
    cat = abox._catalog("goat")
    i = next(i for i, n in enumerate(state["players"]["A"]["deck"]) if cat.get(n).effects)
    card = abox.card_ind("A", "deck", i, state)
    lean, full = abox.state_facts(state), abox.state_facts(state, lean=False)
    assert card in _deck_cards(lean, "A") and card not in _effects(lean, {card})
    assert card in _effects(full, {card}), "the full ABox keeps a Deck card's effects"
    # its FLIP effect due in the Deck (pack README item 5): its effects are there to be used
    state["extra"] = {**state.get("extra", {}), "flipped_hidden": [{"player": "A", "area": "deck", "index": i}]}
    lean = abox.state_facts(state)
    assert _effects(lean, _deck_cards(lean, "A")) == {card}


def _indexed(facts, cards: set) -> set:
    return {f[1] for f in facts if f[0] == "cardIndex" and f[1] in cards}


def test_a_decks_top_cards_have_a_card_index_only_in_a_duel_with_a_card_that_reads_them():
    reach = abox.deck_reach("goat")
    pick_uppers = abox.pick_uppers(abox._catalog("goat"))
    assert reach > 0 and pick_uppers
    with_jar = _state("goat", [GOAT + "reasoning-gate-turbo.ydk", GOAT + "goat-control.ydk"])
    assert _looking_anywhere(with_jar, pick_uppers)
    facts = abox.state_facts(with_jar)
    top = {abox.card_ind("A", "deck", i, with_jar) for i in range(reach)}
    assert _indexed(facts, _deck_cards(facts, "A")) == top
    without = _state("goat")
    assert not _looking_anywhere(without, pick_uppers)
    facts = abox.state_facts(without)
    assert _deck_cards(facts, "A") and not _indexed(facts, _deck_cards(facts, "A"))
