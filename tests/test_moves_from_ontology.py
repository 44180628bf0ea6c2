"""A new KIND of move is ontology data, not Python: the primitive `move` reads where a card
goes from the operation property's annotations (ygo:destinationArea, ygo:destinationPlace, ygo:marksCard),
so an exported ontology gains operations the sources do not have (opBanishFromField, opShuffleIntoDeck:
tests/move_cards_onto.py) and two effect cards that use them, Dimensional Prison and The
Transmigration Prophecy, which are not in the catalog; the engine runs the saved file with the fast backend.

What the cards rely on (the official rulebook v6.0): a Normal Trap is Set first and activated from the
next turn on (p. 19), in the opponent's turn too, in answer to an attack declaration (pp. 26, 35-38);
a Quick-Play Spell is activated from the hand in its player's turn (p. 17); a card leaving the field
goes to its owner's areas (p. 43 "Control"); a Fusion Monster's place is the Extra Deck (p. 8).
"""
from __future__ import annotations

import copy
import json
import os
import random
import subprocess
import sys

import pytest
from move_cards_onto import NEW_CARDS, NEW_MOVES, YGO, with_new_moves
from ontofile_cards import NONE5, REPO, copy_graph, run, state, zones  # noqa: F401 (not all in each)
from ontofile_cards import cache as own_cache
from owlapi_edit import edit_in_a_process
from rdflib import Graph, Literal, URIRef

from ygo_onto import GameState, Rules
from ygo_onto.errors import StateError
from ygo_onto.knowledge import knowledge

cache = own_cache  # the module's own disk cache folder (a fixture, used by name)


@pytest.fixture(scope="module")
def onto(cache, official_export, tmp_path_factory):
    """The project's ontology exported by the CLI (conftest), the moves and cards added, saved as RDF/XML."""
    return with_new_moves(official_export, tmp_path_factory.mktemp("newmoves") / "ygo-newmoves.owl")


@pytest.fixture(scope="module")
def onto_graph(onto):
    """The file's triples, parsed once: the tests that edit them edit a copy."""
    return Graph().parse(onto, format="xml")


@pytest.fixture(scope="module")
def rules(onto):
    return Rules.load(onto)


def ids(s: GameState) -> list[str]:
    return [a.id for a in s.allowed_actions()]


def resolve(s: GameState) -> GameState:
    for _ in range(6):
        if not s.data["chain"] and s.data["pending"] is None:
            return s
        s = s.apply("pass")
    raise AssertionError(f"the chain did not resolve: {s.data['chain']}")


DM = {"card": "Dark Magician", "position": "attack"}  # 2500 ATK
CG = {"card": "Celtic Guardian", "position": "attack"}  # 1400 ATK
PRISON = {"card": "Dimensional Prison", "position": "face_down"}


# ---------------------------------------------------------------- the operations and cards are the file's data

def test_the_moves_and_cards_are_only_in_the_edited_file(onto, rules, official_export):
    v = rules.knowledge.vocabulary
    assert {op: (v.annotations[op]["primitive"], v.annotations[op]["destinationArea"],
                 v.annotations[op].get("destinationPlace")) for op in NEW_MOVES} == \
        {op: ("move", area, place) for op, (_, area, place) in NEW_MOVES.items()}
    assert {"Dimensional Prison", "The Transmigration Prophecy"} <= {c.name for c in rules.knowledge.catalog}
    # the sources know none of them: the catalog, the docs, the TBox, the rules and the driver are untouched
    source = knowledge("official")
    assert not set(NEW_MOVES) & (source.vocabulary.object_properties | set(source.vocabulary.annotations))
    assert not {"Dimensional Prison", "The Transmigration Prophecy", "Rush Recklessly"} & {c.name for c in source.catalog}
    for f in (REPO / "ontology" / "cards-official.owl", REPO / "ontology" / "ygo-onto.owl", REPO / "docs" / "cards.md",
              *sorted((REPO / "rules").rglob("*.swrl")), *sorted((REPO / "src").rglob("*.py"))):
        text = f.read_text(encoding="utf-8")
        assert "opBanishFromField" not in text and "Dimensional Prison" not in text and "Transmigration" not in text, f
        assert "Rush Recklessly" not in text and "RushRecklessly" not in text, f
    assert len(rules.knowledge.rules) == len(Rules.load(official_export).knowledge.rules) + 11
    listed = {c["name"]: c for c in json.loads(run("cards", "--json", "--ontology", onto).stdout)}
    assert listed["Dimensional Prison"]["kind"] == "Normal Trap"
    assert listed["The Transmigration Prophecy"]["kind"] == "Quick-Play Spell"


# ---------------------------------------------------------------- Dimensional Prison: banish the attacker

def prison_state(**kw):
    return state({"monster_zones": zones(DM)}, {"spell_trap_zones": zones(PRISON), "monster_zones": zones(CG)},
                 phase="battle", **kw)


def test_dimensional_prison_banishes_the_attacking_monster(rules):
    s = GameState.from_dict(prison_state(), rules=rules)
    assert not [a for a in ids(s) if a.startswith("activate")]  # no attack yet
    attacked = s.apply("attack@A.mz0>B.mz0")
    assert attacked.data["priority"] == "B" and "activate@B.stz0" in ids(attacked)  # pp. 26, 38
    picking = attacked.apply("activate@B.stz0")
    assert picking.data["pending"]["purpose"] == "target"
    assert [a for a in ids(picking) if a.startswith("select")] == ["select@A.mz0"]  # only the attacker
    after = resolve(picking.apply("select@A.mz0")).data
    a, b = after["players"]["A"], after["players"]["B"]
    assert a["banished"] == ["Dark Magician"] and a["monster_zones"] == NONE5 and a["graveyard"] == []
    assert b["graveyard"] == ["Dimensional Prison"] and b["spell_trap_zones"] == NONE5 and b["banished"] == []
    assert b["monster_zones"][0]["card"] == "Celtic Guardian"  # the attack never happened: no battle, no damage
    assert (a["life_points"], b["life_points"]) == (8000, 8000)
    assert after["phase"] == "battle" and after["priority"] == "A"
    assert GameState.from_dict(after, rules=rules).data["players"]["A"]["banished"] == ["Dark Magician"]  # loads again


def test_dimensional_prison_sends_a_monster_to_its_owners_banished_cards(rules):
    taken = {**DM, "owner": "B"}  # A controls B's monster (Brain Control): it goes to B's (p. 43)
    s = GameState.from_dict(state({"monster_zones": zones(taken)}, {"spell_trap_zones": zones(PRISON)},
                                  phase="battle"), rules=rules)
    after = resolve(s.apply("direct_attack@A.mz0").apply("activate@B.stz0").apply("select@A.mz0")).data
    assert after["players"]["B"]["banished"] == ["Dark Magician"] and after["players"]["A"]["banished"] == []
    assert after["players"]["A"]["life_points"] == 8000 and after["players"]["B"]["life_points"] == 8000


@pytest.mark.parametrize("why", ["set_this_turn", "own_turn", "main_phase"])
def test_dimensional_prison_is_refused(rules, why):
    if why == "set_this_turn":  # p. 19: not the turn it was Set
        s = GameState.from_dict(state({"monster_zones": zones(DM)}, {"spell_trap_zones": zones({**PRISON, "set_this_turn": True})},
                                      phase="battle"), rules=rules).apply("direct_attack@A.mz0")
        assert s.data["priority"] == "A"  # nothing B could activate: B is not asked
    elif why == "own_turn":  # its player's own monster attacks: "an opponent's monster"
        s = GameState.from_dict(state({"monster_zones": zones(DM), "spell_trap_zones": zones(PRISON)}, {},
                                      phase="battle"), rules=rules).apply("direct_attack@A.mz0")
    else:  # no attack declared
        s = GameState.from_dict(state({"monster_zones": zones(DM)}, {"spell_trap_zones": zones(PRISON)}), rules=rules)
    assert not [a for a in ids(s) if a.startswith("activate")], ids(s)


# ---------------------------------------------------------------- The Transmigration Prophecy: shuffle into the Deck

DECK_A = ["Dark Magician", "Pot of Greed", "Summoned Skull", "Mystical Elf", "Luster Dragon"]


def prophecy_state(seed=7):
    return state({"hand": ["The Transmigration Prophecy"], "deck": DECK_A,
                  "graveyard": ["Celtic Guardian", "Gaia the Dragon Champion"]},
                 {"graveyard": ["Raigeki"]}, rng_seed=seed)


def test_the_transmigration_prophecy_shuffles_two_cards_into_their_owners_decks(rules):
    s = GameState.from_dict(prophecy_state(), rules=rules)
    picking = s.apply("activate@A.hand0")
    assert picking.data["pending"]["needed"] == 2
    assert [a for a in ids(picking) if a.startswith("select")] == ["select@A.gy0", "select@A.gy1", "select@B.gy0"]
    after = resolve(picking.apply("select@A.gy0").apply("select@B.gy0")).data
    a, b = after["players"]["A"], after["players"]["B"]
    assert sorted(a["deck"]) == sorted(DECK_A + ["Celtic Guardian"]) and len(a["deck"]) == 6
    assert sorted(b["deck"]) == sorted(["Pot of Greed"] * 3 + ["Raigeki"])
    assert a["graveyard"] == ["Gaia the Dragon Champion", "The Transmigration Prophecy"] and b["graveyard"] == []
    assert a["hand"] == [] and a["spell_trap_zones"] == NONE5
    # shuffled from the duel's seeded RNG: the state carries the next seed, and the same seed replays exactly
    assert after["rng_seed"] != 7
    again = resolve(GameState.from_dict(prophecy_state(), rules=rules).apply("activate@A.hand0")
                    .apply("select@A.gy0").apply("select@B.gy0")).data
    assert again == after
    shuffled = {tuple(resolve(GameState.from_dict(prophecy_state(seed), rules=rules).apply("activate@A.hand0")
                              .apply("select@A.gy0").apply("select@B.gy0")).data["players"]["A"]["deck"])
                for seed in range(8)}
    assert len(shuffled) > 1  # the Deck is shuffled, not appended to


def test_the_transmigration_prophecy_returns_a_fusion_monster_to_the_extra_deck(rules):
    picking = GameState.from_dict(prophecy_state(), rules=rules).apply("activate@A.hand0")
    after = resolve(picking.apply("select@A.gy1").apply("select@A.gy0")).data
    a = after["players"]["A"]
    assert a["extra_deck"] == ["Gaia the Dragon Champion"] and "Gaia the Dragon Champion" not in a["deck"]
    assert sorted(a["deck"]) == sorted(DECK_A + ["Celtic Guardian"])
    assert a["graveyard"] == ["The Transmigration Prophecy"]


@pytest.mark.parametrize("graveyards", [([], []), (["Celtic Guardian"], []), ([], ["Raigeki"])])
def test_the_transmigration_prophecy_needs_two_targets(rules, graveyards):
    gy_a, gy_b = graveyards
    s = GameState.from_dict(state({"hand": ["The Transmigration Prophecy"], "graveyard": gy_a}, {"graveyard": gy_b}),
                            rules=rules)
    assert "activate@A.hand0" not in ids(s) and "set_spell_trap@A.hand0" in ids(s)
    two = GameState.from_dict(state({"hand": ["The Transmigration Prophecy"], "graveyard": gy_a + ["Mystical Elf"]},
                                    {"graveyard": gy_b}), rules=rules)
    assert ("activate@A.hand0" in ids(two)) == bool(gy_a or gy_b)


# ---------------------------------------------------------------- Rush Recklessly: +700 ATK until the End Phase

LUSTER = {"card": "Luster Dragon", "position": "attack"}  # 1900 ATK


def battle_over(s: GameState) -> GameState:
    """Both players pass until the attack is over (no one holds an answer here)."""
    for _ in range(6):
        if not any(fc and "attack" in fc["extra"] for p in "AB" for fc in s.data["players"][p]["monster_zones"]):
            return s
        s = s.apply("pass")
    raise AssertionError("the attack did not end")


def test_rush_recklessly_gains_700_atk_until_the_end_phase(rules):
    s = GameState.from_dict(state({"hand": ["Rush Recklessly"], "monster_zones": zones(CG)},
                                  {"monster_zones": zones(LUSTER)}), rules=rules)
    picking = s.apply("activate@A.hand0")
    assert [a for a in ids(picking) if a.startswith("select")] == ["select@A.mz0", "select@B.mz0"]
    boosted = resolve(picking.apply("select@A.mz0"))
    cg = boosted.data["players"]["A"]["monster_zones"][0]
    assert cg["counters"] == {"atk_until_end_phase": 700} and cg["atk_modifier"] == 0
    assert boosted.data["players"]["A"]["graveyard"] == ["Rush Recklessly"]
    # 1400 + 700 = 2100 against 1900: the attacker wins and B takes 200 (rulebook p. 27)
    after = battle_over(boosted.apply("next_phase:battle").apply("attack@A.mz0>B.mz0")).data
    assert after["players"]["B"]["life_points"] == 7800 and after["players"]["B"]["graveyard"] == ["Luster Dragon"]
    assert after["players"]["A"]["monster_zones"][0]["card"] == "Celtic Guardian"
    # the End Phase ends it: the next turn starts without it (a written state keeps it until then, and loads again)
    again = GameState.from_dict(after, rules=rules)
    ended = again.apply("end_turn").data
    assert ended["turn"] == 4 and ended["players"]["A"]["monster_zones"][0]["counters"] == {}


def test_rush_recklessly_without_it_the_attack_loses_and_two_add_up(rules):
    s = GameState.from_dict(state({"monster_zones": zones(CG)}, {"monster_zones": zones(LUSTER)}, phase="battle"),
                            rules=rules)
    lost = battle_over(s.apply("attack@A.mz0>B.mz0")).data  # 1400 against 1900
    assert lost["players"]["A"]["life_points"] == 7500 and lost["players"]["A"]["graveyard"] == ["Celtic Guardian"]
    two = GameState.from_dict(state({"hand": ["Rush Recklessly", "Rush Recklessly"], "monster_zones": zones(CG)}, {}),
                              rules=rules)
    two = resolve(resolve(two.apply("activate@A.hand0").apply("select@A.mz0")).apply("activate@A.hand0")
                  .apply("select@A.mz0"))
    assert two.data["players"]["A"]["monster_zones"][0]["counters"] == {"atk_until_end_phase": 1400}
    # a target that left the field or is face-down: nothing to gain; no face-up monster: no activation
    none = GameState.from_dict(state({"hand": ["Rush Recklessly"], "monster_zones": zones(
        {"card": "Celtic Guardian", "position": "face_down_defense"})}, {}), rules=rules)
    assert "activate@A.hand0" not in ids(none) and "set_spell_trap@A.hand0" in ids(none)


# ---------------------------------------------------------------- the primitive reads the place: top of the Deck (the TBox's opToDeckTop)

def test_a_move_to_the_top_of_the_deck_is_the_files_data(rules):
    from ygo_onto.primitives import apply_operations

    data = copy.deepcopy(GameState.from_dict(state({"monster_zones": zones(DM)}, {"graveyard": ["Raigeki"]}),
                                             rules=rules).data)
    apply_operations(data, [("opToDeckTop", "A_monster_zones_0_card", "playerA"),
                            ("opBanishFromField", "B_graveyard_0_card", "playerB")],
                     {}, rules.knowledge.vocabulary, random.Random(0))
    assert data["players"]["A"]["deck"] == ["Dark Magician"] * 4 and data["players"]["A"]["monster_zones"] == NONE5
    assert data["players"]["B"]["banished"] == ["Raigeki"] and data["players"]["B"]["graveyard"] == []
    assert data["rng_seed"] == 0  # no shuffle: nothing random was drawn


# ---------------------------------------------------------------- what a move needs is checked on load

@pytest.mark.parametrize("case", ["no_area", "unknown_area", "place_in_a_zone", "unknown_place", "counter_without_key",
                                  "full_area_not_a_list", "full_area_on_a_list"])
def test_a_move_without_a_destination_or_a_counter_without_its_key_is_refused_on_load(onto_graph, tmp_path, case):
    g = copy_graph(onto_graph)
    op, area, place = URIRef(YGO + "opBanishFromField"), URIRef(YGO + "destinationArea"), URIRef(YGO + "destinationPlace")
    if case == "no_area":
        g.remove((op, area, None))
    elif case == "unknown_area":
        g.set((op, area, Literal("exile")))
    elif case == "place_in_a_zone":
        g.set((op, area, Literal("monster_zones")))
        g.add((op, place, Literal("start")))
    elif case == "unknown_place":
        g.set((URIRef(YGO + "opShuffleIntoDeck"), place, Literal("bottom")))
    elif case == "full_area_not_a_list":  # where a card goes when the zones are full is a list of cards
        g.set((URIRef(YGO + "opReturnControl"), URIRef(YGO + "areaWhenFull"), Literal("spell_trap_zones")))
    elif case == "full_area_on_a_list":  # and only a move to zones can find them full
        g.add((op, URIRef(YGO + "areaWhenFull"), Literal("graveyard")))
    else:  # a counter operation must name its counter
        g.remove((URIRef(YGO + "opSetAtkUntilEndPhase"), URIRef(YGO + "counterKey"), None))
    path = tmp_path / "edited.owl"
    g.serialize(path, format="xml")
    with pytest.raises(StateError) as err:
        Rules.load(path, cache=False)
    expected = {"no_area": "property opBanishFromField: ygo:destinationArea: expected one of deck, hand", "unknown_area": "(where the primitive move puts the card), got 'exile'",
                "place_in_a_zone": "property opBanishFromField: ygo:destinationPlace: expected one of end, start, shuffled",
                "unknown_place": "property opShuffleIntoDeck: ygo:destinationPlace",
                "counter_without_key": "property opSetAtkUntilEndPhase: ygo:counterKey: expected the key",
                "full_area_not_a_list": "property opReturnControl: ygo:areaWhenFull: expected one of deck, hand",
                "full_area_on_a_list": "property opBanishFromField: ygo:areaWhenFull: expected one of deck, hand"}[case]
    assert expected in str(err.value), str(err.value)
    if case == "no_area":
        assert str(err.value).endswith("got none")


# ---------------------------------------------------------------- Protégé's library and import-owl carry them

def test_the_file_loaded_and_saved_by_the_owl_api_plays_the_same(onto, tmp_path):
    saved = tmp_path / "saved.owl"
    edit_in_a_process(onto, saved, "noop")
    again = Rules.load(saved)
    assert again.knowledge.vocabulary.annotations["opShuffleIntoDeck"]["destinationPlace"] == "shuffled"
    s = GameState.from_dict(prison_state(), rules=again)
    after = resolve(s.apply("attack@A.mz0>B.mz0").apply("activate@B.stz0").apply("select@A.mz0")).data
    assert after["players"]["A"]["banished"] == ["Dark Magician"]


def test_import_owl_writes_the_moves_into_a_copy_of_the_sources_that_then_plays_them(onto, tmp_path):
    import shutil

    copy_ = tmp_path / "repo"
    for part in ("ontology", "rules", "src"):
        shutil.copytree(REPO / part, copy_ / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {**os.environ, "PYTHONPATH": str(copy_ / "src")}
    done = subprocess.run([sys.executable, "-m", "ygo_onto", "import-owl", str(onto)], cwd=copy_, env=env,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0 and "cards added: 3" in done.stdout, done.stdout + done.stderr
    tbox = Graph().parse(copy_ / "ontology" / "ygo-onto.owl", format="xml")
    assert str(tbox.value(URIRef(YGO + "opBanishFromField"), URIRef(YGO + "destinationArea"))) == "banished"
    assert str(tbox.value(URIRef(YGO + "opShuffleIntoDeck"), URIRef(YGO + "destinationPlace"))) == "shuffled"
    path = tmp_path / "s.json"
    path.write_text(json.dumps(prison_state()), encoding="utf-8")
    script = ("import json,sys; from ygo_onto import GameState\n"
              "s = GameState.load(sys.argv[1]).apply('attack@A.mz0>B.mz0').apply('activate@B.stz0').apply('select@A.mz0')\n"
              "while s.data['chain'] or s.data['pending']: s = s.apply('pass')\n"
              "print(json.dumps(s.data['players']['A']['banished']))")
    done = subprocess.run([sys.executable, "-c", script, str(path)], cwd=copy_, env=env, capture_output=True,
                          text=True, timeout=600)  # the sources now, no ontology file
    assert done.returncode == 0, done.stderr
    assert json.loads(done.stdout) == ["Dark Magician"]
    assert NEW_CARDS["Dimensional Prison"]["description"] in (copy_ / "ontology" / "cards-official.owl").read_text("utf-8")
