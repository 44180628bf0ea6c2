"""The aggregates SWRL cannot take read what they aggregate from the ontology's declarations, not from Python: a
Graveyard count counts the monsters of the Type its `ygo:countsCards` names (Red-Eyes Darkness Dragon's
`graveyardDragonCount`, `type:TypeDragon in=graveyard per=player`), and the highest ATK of a set is the card its
`ygo:highestAtkOf` names the areas of (the simplified Monster Reborn's `strongestInGraveyards`); a count's
`except=counter:KEY` leaves out the cards carrying that counter, so two counts a rule subtracts together count each
card once (goat's `cannotBeTributedCount` and `tributeLockedCount`)."""
from __future__ import annotations

import pytest

from ygo_onto import abox
from ygo_onto.cards import catalog
from ygo_onto.knowledge import VocabularyError
from ygo_onto.state import normalize


def _state(ruleset: str, grave_a: list, grave_b: list, hand_a: tuple = ()) -> dict:
    return normalize({"format": "ygo-onto.state/1", "ruleset": ruleset, "turn": 3, "phase": "main1", "players": {
        "A": {"graveyard": grave_a, "hand": list(hand_a)}, "B": {"graveyard": grave_b}}})


GRAVE = ["Blue-Eyes White Dragon", "Dark Magician", "Mirror Force", "Luster Dragon", "Celtic Guardian"]


def test_the_graveyard_count_counts_the_type_the_ontology_names():
    state = _state("official", GRAVE, ["Baby Dragon"])
    facts = abox.state_facts(state)
    assert ("graveyardDragonCount", abox.player_ind("A"), 2) in facts
    assert ("graveyardDragonCount", abox.player_ind("B"), 1) in facts


def test_another_type_named_is_counted_with_no_change_to_python(monkeypatch):
    (decl,) = [d for d in abox.count_declarations("official") if d[0] == "graveyardDragonCount"]
    monkeypatch.setattr(abox, "count_declarations", lambda ruleset: ((decl[0], "type:TypeSpellcaster", *decl[2:]),))
    state = _state("official", GRAVE, [])
    assert abox.graveyard_counts(state, "A", catalog("official")) == [("graveyardDragonCount", 1)]


def test_a_graveyard_count_of_the_opponents_side_is_refused(monkeypatch):
    (decl,) = [d for d in abox.count_declarations("official") if d[0] == "graveyardDragonCount"]
    monkeypatch.setattr(abox, "count_declarations", lambda ruleset: ((*decl[:4], "opponent", *decl[5:]),))
    with pytest.raises(VocabularyError, match="graveyardDragonCount"):
        abox.graveyard_counts(_state("official", GRAVE, []), "A", catalog("official"))


def test_the_highest_atk_ties_go_to_player_a_then_to_the_oldest_card():
    state = _state("simplified", ["Dark Magician", "Blue-Eyes White Dragon", "Blue-Eyes White Dragon"],
                   ["Blue-Eyes White Dragon"])
    assert abox.highest_atk_facts(state, catalog("simplified")) == (
        ("strongestInGraveyards", abox.DUEL, abox.card_ind("A", "graveyard", 1)),)
    state = _state("simplified", ["Dark Magician"], ["Mage Power", "Blue-Eyes White Dragon"])
    assert abox.highest_atk_facts(state, catalog("simplified")) == (
        ("strongestInGraveyards", abox.DUEL, abox.card_ind("B", "graveyard", 1)),)
    assert abox.highest_atk_facts(_state("simplified", ["Mage Power"], []), catalog("simplified")) == ()


def test_the_highest_atk_looks_in_the_areas_its_declaration_names(monkeypatch):
    monkeypatch.setattr(abox, "highest_atk_declarations",
                        lambda ruleset: (("strongestInGraveyards", "monster", ("hand",)),))
    state = _state("simplified", ["Blue-Eyes White Dragon"], [], hand_a=("Mage Power", "Dark Magician"))
    assert abox.highest_atk_facts(state, catalog("simplified")) == (
        ("strongestInGraveyards", abox.DUEL, abox.card_ind("A", "hand", 1, state)),)


def test_a_count_leaves_out_the_cards_carrying_its_except_counter():
    sheep = {"card": "Sheep Token", "position": "defense"}
    state = normalize({"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "main1", "players": {
        "A": {"monster_zones": [sheep, {**sheep, "owner": "B", "counters": {"cannot_be_tributed": 1}},
                                {"card": "Sangan", "position": "attack"}, None, None]}, "B": {}}})
    counts = {(f[0], f[1]): f[2] for f in abox.card_counts(state, catalog("goat"))}
    a = abox.player_ind("A")
    # the token Mind Control took is counted once: by its counter, not by its keyword ability
    assert (counts[("cannotBeTributedCount", a)], counts[("tributeLockedCount", a)]) == (1, 1)
