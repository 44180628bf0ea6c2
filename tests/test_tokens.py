"""Monster Tokens (state-format.md "Tokens"): a token is a class of the catalog under ygo:Token that exists only in a
Monster Zone; a state that puts one in a list of cards is refused (exit 2, the place named), and a token leaving the
field ceases to exist (tests/scenarios/goat/sheep-tokens-destroyed-cease-to-exist.json plays that)."""
from __future__ import annotations

import json
import sys
from pathlib import Path

import pytest

from cli_runner import cli
from ygo_onto.cards import catalog
from ygo_onto.errors import StateError
from ygo_onto.game import GameState

ROOT = Path(__file__).resolve().parent.parent


def _state(a: dict) -> dict:
    return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "main1",
            "players": {"A": {"deck": ["Sangan"], **a}, "B": {"deck": ["Sangan"]}}}


def test_the_sheep_token_is_a_token_class_of_the_goat_catalog_with_the_packs_stats():
    token = catalog("goat").get("Sheep Token")
    assert token.is_token and token.class_name == "SheepToken" and token.kind_classes == ["Token"]
    assert (token.level, token.atk, token.defense, token.attribute, token.monster_type) == (1, 0, 0, "EARTH", "Beast")
    assert token.abilities == ("cannotBeTributedForTributeSummon",)
    assert not catalog("goat").get("Scapegoat").is_token
    assert "Sheep Token" not in catalog("official")


@pytest.mark.parametrize("area", ["deck", "hand", "graveyard", "banished", "extra_deck"])
def test_a_token_in_a_list_of_cards_is_refused_naming_the_place(area):
    with pytest.raises(StateError, match=rf"players\.A\.{area}\[1\]: expected a card \(a token exists only in a "
                                          r"Monster Zone"):
        GameState.from_dict(_state({area: ["Sangan" if area != "extra_deck" else "Thousand-Eyes Restrict",
                                           "Sheep Token"]}))


def test_the_cli_refuses_a_token_in_the_graveyard_with_exit_2(tmp_path):
    path = tmp_path / "token.json"
    path.write_text(json.dumps(_state({"graveyard": ["Sheep Token"]})), encoding="utf-8")
    code, text = cli("allowed", path)
    assert code == 2 and "players.A.graveyard[0]" in text and "Sheep Token" in text


def test_a_token_on_the_field_loads_with_its_owner():
    state = GameState.from_dict(_state({"monster_zones": [None, {"card": "Sheep Token", "position": "defense",
                                                                  "owner": "B"}, None, None, None]}))
    fc = state.to_dict()["players"]["A"]["monster_zones"][1]
    assert (fc["card"], fc["owner"], fc["position"]) == ("Sheep Token", "B", "defense")


def test_a_token_kind_that_names_no_token_stops_the_catalog_tool():
    sys.path.insert(0, str(ROOT / "tools"))
    import goat_catalog

    cards = catalog("goat").cards
    effect = ("http://ygo-onto.org/cards/goat#ScapegoatEffect", "http://ygo-onto.org/ontology#tokenKind")
    goat_catalog.check_token_kinds(cards, [(*effect, "Sheep Token")])
    with pytest.raises(SystemExit, match="tokenKind: expected the name of a token"):
        goat_catalog.check_token_kinds(cards, [(*effect, "Sangan")])
    from rdflib import RDF, URIRef

    typed = (URIRef(effect[0]), RDF.type, URIRef("http://ygo-onto.org/ontology#SpecialSummonTokensEffect"))
    with pytest.raises(SystemExit, match="needs ygo:tokenCount, ygo:summonLockThisTurn"):
        goat_catalog.check_token_kinds(cards, [typed, (URIRef(effect[0]), URIRef(effect[1]), "Sheep Token")])


def test_a_deck_naming_a_token_is_refused_and_a_states_tokens_are_no_deck_cards(tmp_path):
    from ygo_onto.decks import deck_from_file

    deck = tmp_path / "deck.json"
    deck.write_text(json.dumps({"main": ["Sangan", "Sheep Token"]}), encoding="utf-8")
    with pytest.raises(StateError, match=r"main\[1\]: expected a card name, got the token 'Sheep Token'"):
        deck_from_file(deck, "goat")
    state = tmp_path / "state.json"
    state.write_text(json.dumps(_state({"monster_zones": [{"card": "Sheep Token", "position": "defense"},
                                                          None, None, None, None]})), encoding="utf-8")
    got, _ = deck_from_file(state, None, "A")
    assert got.main == ["Sangan"]
