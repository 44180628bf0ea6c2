"""Adding an EFFECT card is data plus rules, not Python: four official-era effect cards
that are not in the catalog (Hinotama, Dian Keto the Cure Master, Ring of Destruction, Hane-Hane) are added to
an exported ontology exactly as an ontology engineer adds them in Protégé (tests/effect_cards_onto.py:
a card class with its annotations, its SWRL rules as swrl:Imp), and the engine runs the saved file
(`--ontology FILE`, `Rules.load`) on hand-written states with the fast backend.

What each card relies on (the official rulebook v6.0): a Normal Spell is activated in
your Main Phase and goes to the Graveyard once resolved (p. 16), even the turn it is Set (p. 20);
a Normal Trap is Set first and cannot be activated the turn it was Set (p. 19), then whenever its
player holds priority (pp. 35-38: in the opponent's turn too, e.g. in answer to a summon); a player
at 0 Life Points loses, both at once is a draw (p. 22); a FLIP effect starts when the monster is
turned face-up (p. 11); a card leaving the field goes to its owner's hand (p. 43 "Control").
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from effect_cards_onto import NEW_CARDS, with_new_cards
from ontofile_cards import NONE5, REPO, copy_graph, run, state, zones  # noqa: F401 (not all in each)
from ontofile_cards import cache as own_cache
from owlapi_edit import edit_in_a_process
from ygo_onto import GameState, Rules
from ygo_onto.errors import StateError

cache = own_cache  # the module's own disk cache folder (a fixture, used by name)

EDIT = Path(__file__).resolve().parent / "owlapi_edit.py"


@pytest.fixture(scope="module")
def onto(cache, official_export, tmp_path_factory):
    """The project's ontology exported by the CLI (conftest), the three cards added, saved as RDF/XML."""
    return with_new_cards(official_export, tmp_path_factory.mktemp("newcards") / "ygo-newcards.owl")


@pytest.fixture(scope="module")
def onto_graph(onto):
    """The file's triples, parsed once: the tests that edit them edit a copy."""
    from rdflib import Graph

    return Graph().parse(onto, format="xml")


@pytest.fixture(scope="module")
def rules(onto):
    return Rules.load(onto)


def face_down(card, set_this_turn=False) -> dict:
    return {"card": card, "position": "face_down", "set_this_turn": set_this_turn}


def ids(s: GameState) -> list[str]:
    return [a.id for a in s.allowed_actions()]


def resolve(s: GameState) -> GameState:
    """Both players pass until the chain has resolved (no one holds an answer here)."""
    for _ in range(6):
        if not s.data["chain"] and s.data["pending"] is None:
            return s
        s = s.apply("pass")
    raise AssertionError(f"the chain did not resolve: {s.data['chain']}")


# ---------------------------------------------------------------- the cards are the file's data

def test_the_new_cards_are_only_in_the_edited_file(onto, rules, official_export):
    listed = {c["name"]: c for c in json.loads(run("cards", "--json", "--ontology", onto).stdout)}
    assert {"Hinotama", "Dian Keto the Cure Master", "Ring of Destruction", "Hane-Hane"} <= set(listed)
    assert listed["Hinotama"]["kind"] == "Normal Spell" and listed["Ring of Destruction"]["kind"] == "Normal Trap"
    assert (listed["Hane-Hane"]["kind"], listed["Hane-Hane"]["level"], listed["Hane-Hane"]["atk"]) == \
        ("Flip Effect Monster", 2, 450)
    assert listed["Dian Keto the Cure Master"]["description"] == NEW_CARDS["Dian Keto the Cure Master"]["description"]
    found = json.loads(run("cards", "Ring", "--json", "--ontology", onto).stdout)
    assert found[0]["name"] == "Ring of Destruction"
    # the project's own catalog and docs do not know them: they live in the test's ontology only
    sources = {c["name"] for c in json.loads(run("cards", "--json").stdout)}
    assert not {"Hinotama", "Dian Keto the Cure Master", "Ring of Destruction", "Hane-Hane"} & sources
    for f in (REPO / "ontology" / "cards-official.owl", REPO / "docs" / "cards.md"):
        assert "Hinotama" not in f.read_text(encoding="utf-8")
    with pytest.raises(StateError, match="Hinotama"):
        GameState.from_dict(state({"hand": ["Hinotama"]}, {}))
    assert len(rules.knowledge.rules) == len(Rules.load(official_export).knowledge.rules) + 11


def test_import_owl_would_bring_the_cards_and_rules_into_the_sources(onto):
    from ygo_onto.ontofile import plan_import

    summary = plan_import(onto)["summary"]  # a plan only: nothing is written
    assert sorted(summary["cards added"]) == ["Dian Keto the Cure Master", "Hane-Hane", "Hinotama",
                                              "Ring of Destruction"]
    assert len(summary["rules added"]) == 11 and not summary["rules changed"] and not summary["rules removed"]


def test_import_owl_writes_them_into_a_copy_of_the_sources_that_then_plays_them(onto, tmp_path):
    import shutil

    copy = tmp_path / "repo"
    for part in ("ontology", "rules", "src"):
        shutil.copytree(REPO / part, copy / part, ignore=shutil.ignore_patterns("__pycache__", "*.egg-info"))
    env = {**os.environ, "PYTHONPATH": str(copy / "src")}

    def cli(*args):
        done = subprocess.run([sys.executable, "-m", "ygo_onto", *map(str, args)], cwd=copy, env=env,
                              capture_output=True, text=True, timeout=600)
        assert done.returncode == 0, done.stderr
        return done.stdout

    assert "cards added: 4" in cli("import-owl", onto)
    imported = (copy / "rules" / "official" / "imported.swrl").read_text(encoding="utf-8")
    assert "-> opGainLifePoints(?p, 1000)" in imported and "# Hinotama (LOB)" in imported
    path = tmp_path / "s.json"
    path.write_text(json.dumps(state({"hand": ["Hinotama"]}, {})), encoding="utf-8")
    after = json.loads(cli("apply", path, "activate@A.hand0"))  # the sources now, no --ontology
    assert after["players"]["B"]["life_points"] == 7500


# ---------------------------------------------------------------- Hinotama: 500 damage to the opponent

def test_hinotama_through_the_cli(onto, tmp_path):
    path = tmp_path / "hinotama.json"
    path.write_text(json.dumps(state({"hand": ["Hinotama"]}, {})), encoding="utf-8")
    allowed = [a["id"] for a in json.loads(run("allowed", path, "--json", "--ontology", onto).stdout)["actions"]]
    assert "activate@A.hand0" in allowed
    # `apply` goes on to the next decision: B holds no answer, so the chain resolves
    done = json.loads(run("apply", path, "activate@A.hand0", "--ontology", onto).stdout)
    assert done["players"]["B"]["life_points"] == 7500 and done["players"]["A"]["life_points"] == 8000
    assert done["players"]["A"]["graveyard"] == ["Hinotama"] and done["chain"] == []
    assert done["players"]["A"]["spell_trap_zones"] == NONE5


def test_hinotama_rules(rules):
    s = GameState.from_dict(state({"hand": ["Hinotama"]}, {"life_points": 500}), rules=rules)
    assert "activate@A.hand0" in ids(s) and "set_spell_trap@A.hand0" in ids(s)
    won = resolve(s.apply("activate@A.hand0"))
    assert won.data["players"]["B"]["life_points"] == 0 and won.data["winner"] == "A"  # p. 22
    # Set, it may be activated in the same Main Phase (p. 20)
    set_ = GameState.from_dict(state({"spell_trap_zones": zones(face_down("Hinotama", True))}, {}), rules=rules)
    assert resolve(set_.apply("activate@A.stz0")).data["players"]["B"]["life_points"] == 7500
    # refused: in the Battle Phase (p. 16: a Normal Spell only in your Main Phase), in the opponent's turn
    battle = GameState.from_dict(state({"hand": ["Hinotama"]}, {}, phase="battle"), rules=rules)
    assert not [a for a in ids(battle) if a.startswith("activate")]
    theirs = GameState.from_dict(state({"spell_trap_zones": zones(face_down("Hinotama"))},
                                       {"hand": ["Celtic Guardian"]}, turn_player="B"), rules=rules)
    summoned = theirs.apply("normal_summon@B.hand0")
    assert summoned.data["priority"] == "B"  # A is not asked: a Set Normal Spell cannot answer (Spell Speed 1, p. 37)


# ---------------------------------------------------------------- Dian Keto: gain 1000 Life Points

def test_dian_keto_gains_life_points(rules):
    s = GameState.from_dict(state({"life_points": 3000, "hand": ["Dian Keto the Cure Master"]}, {}), rules=rules)
    assert "activate@A.hand0" in ids(s)
    after = resolve(s.apply("activate@A.hand0"))
    assert after.data["players"]["A"]["life_points"] == 4000 and after.data["players"]["B"]["life_points"] == 8000
    assert after.data["players"]["A"]["graveyard"] == ["Dian Keto the Cure Master"]
    # no maximum in the rulebook: 8000 is where a duel starts (p. 22), not a cap
    full = GameState.from_dict(state({"hand": ["Dian Keto the Cure Master"]}, {}), rules=rules)
    assert resolve(full.apply("activate@A.hand0")).data["players"]["A"]["life_points"] == 9000
    # the state's bound on Life Points (state-format: 0..1,000,000) holds
    top = GameState.from_dict(state({"life_points": 999_500, "hand": ["Dian Keto the Cure Master"]}, {}), rules=rules)
    assert resolve(top.apply("activate@A.hand0")).data["players"]["A"]["life_points"] == 1_000_000
    battle = GameState.from_dict(state({"hand": ["Dian Keto the Cure Master"]}, {}, phase="battle"), rules=rules)
    assert not [a for a in ids(battle) if a.startswith("activate")]


# ---------------------------------------------------------------- Ring of Destruction: a trap with a target

def ring_state(a=None, b_monsters=(), set_this_turn=False, **kw):
    return state({"spell_trap_zones": zones(face_down("Ring of Destruction", set_this_turn)), **(a or {})},
                 {"monster_zones": zones(*b_monsters)}, **kw)


DM = {"card": "Dark Magician", "position": "attack"}  # 2500 ATK
CG = {"card": "Celtic Guardian", "position": "attack"}  # 1400 ATK


def test_ring_of_destruction_targets_destroys_and_burns_both(rules):
    s = GameState.from_dict(ring_state({"life_points": 2000}, [DM, CG]), rules=rules)
    assert "activate@A.stz0" in ids(s)
    picking = s.apply("activate@A.stz0")
    assert picking.data["pending"]["purpose"] == "target"
    # only a face-up monster of the opponent whose ATK is at most A's 2000 LP
    assert [a for a in ids(picking) if a.startswith("select")] == ["select@B.mz1"]
    after = resolve(picking.apply("select@B.mz1"))
    a, b = after.data["players"]["A"], after.data["players"]["B"]
    assert b["monster_zones"][0]["card"] == "Dark Magician" and b["monster_zones"][1] is None
    assert b["graveyard"] == ["Celtic Guardian"] and a["graveyard"] == ["Ring of Destruction"]
    assert (a["life_points"], b["life_points"]) == (600, 6600)
    assert a["spell_trap_zones"] == NONE5


def test_ring_of_destruction_both_at_zero_is_a_draw(rules):
    s = GameState.from_dict(ring_state({"life_points": 1400}, [CG]), rules=rules)
    after = resolve(s.apply("activate@A.stz0").apply("select@B.mz0")).data
    assert (after["players"]["A"]["life_points"], after["players"]["B"]["life_points"]) == (0, 6600)
    assert after["winner"] == "B"  # p. 22: A's own Ring brought A to 0
    both = ring_state({"life_points": 1400}, [CG])
    both["players"]["B"]["life_points"] = 1400
    s = GameState.from_dict(both, rules=rules).apply("activate@A.stz0").apply("select@B.mz0")
    assert resolve(s).data["winner"] == "draw"  # p. 22: both at 0 at once


def test_ring_of_destruction_answers_a_summon_in_the_opponents_turn(rules):
    s = GameState.from_dict(state({"spell_trap_zones": zones(face_down("Ring of Destruction"))},
                                  {"hand": ["Celtic Guardian"]}, turn_player="B"), rules=rules)
    summoned = s.apply("normal_summon@B.hand0")
    assert summoned.data["priority"] == "A" and "activate@A.stz0" in ids(summoned)  # pp. 19, 38
    after = resolve(summoned.apply("activate@A.stz0").apply("select@B.mz0"))
    assert after.data["players"]["B"]["graveyard"] == ["Celtic Guardian"]
    assert (after.data["players"]["A"]["life_points"], after.data["players"]["B"]["life_points"]) == (6600, 6600)


@pytest.mark.parametrize("why", ["set_this_turn", "face_down_only", "atk_above_lp", "no_monster", "in_hand"])
def test_ring_of_destruction_is_refused(rules, why):
    if why == "set_this_turn":  # p. 19: not the turn it was Set
        s = ring_state(None, [CG], set_this_turn=True)
    elif why == "face_down_only":  # no face-up monster: no target
        s = ring_state(None, [{"card": "Celtic Guardian", "position": "face_down_defense"}])
    elif why == "atk_above_lp":  # 2500 ATK against 2000 LP: no target
        s = ring_state({"life_points": 2000}, [DM])
    elif why == "no_monster":
        s = ring_state(None, [])
    else:  # p. 19: a trap is Set before it is activated
        s = state({"hand": ["Ring of Destruction"]}, {"monster_zones": zones(CG)})
    allowed = ids(GameState.from_dict(s, rules=rules))
    assert not [a for a in allowed if a.startswith("activate")], allowed
    if why == "in_hand":
        assert "set_spell_trap@A.hand0" in allowed


def test_explain_names_the_missing_target(onto, tmp_path):
    path = tmp_path / "ring.json"
    path.write_text(json.dumps(ring_state({"life_points": 2000}, [DM])), encoding="utf-8")
    done = run("explain", path, "activate@A.stz0", "--ontology", onto, check=False)
    # the refusal is followed down to the card's own rule and the comparison that fails
    assert done.returncode == 1 and "activate@A.stz0: not allowed" in done.stdout, done.stdout + done.stderr
    assert "selectable(A_spell_trap_zones_0_card, ?t)" in done.stdout
    assert "lessThanOrEqual(2500, 2000)" in done.stdout and "(in the ontology file)" in done.stdout


# ---------------------------------------------------------------- Hane-Hane: a FLIP monster with a target

def test_hane_hane_flip_summoned_returns_a_monster_to_the_hand(rules):
    hane = {"card": "Hane-Hane", "position": "face_down_defense"}
    s = GameState.from_dict(state({"monster_zones": zones(hane)}, {"monster_zones": zones(DM)}), rules=rules)
    assert "flip_summon@A.mz0" in ids(s) and not [a for a in ids(s) if a.startswith("activate")]  # FLIP: not at will
    flipped = s.apply("flip_summon@A.mz0")
    # p. 11: the FLIP effect starts as it is turned face-up; its player selects the target (either side, itself too)
    pending = flipped.data["pending"]
    assert pending and pending["purpose"] == "target" and pending["action"]["card"] == "Hane-Hane"
    assert sorted(a for a in ids(flipped) if a.startswith("select")) == ["select@A.mz0", "select@B.mz0"]
    after = resolve(flipped.apply("select@B.mz0")).data
    assert after["players"]["B"]["monster_zones"] == NONE5 and after["players"]["B"]["hand"] == ["Dark Magician"]
    assert after["players"]["A"]["monster_zones"][0]["card"] == "Hane-Hane"
    assert after["players"]["A"]["monster_zones"][0]["position"] == "attack"
    # its own owner's hand (rulebook p. 43 "Control"): a monster B controls but A owns goes back to A
    taken = {**DM, "owner": "A"}
    s = GameState.from_dict(state({"monster_zones": zones(hane)}, {"monster_zones": zones(taken)}), rules=rules)
    after = resolve(s.apply("flip_summon@A.mz0").apply("select@B.mz0")).data
    assert after["players"]["A"]["hand"] == ["Dark Magician"] and after["players"]["B"]["hand"] == []


def test_hane_hane_returns_a_fusion_or_synchro_monster_to_the_extra_deck(rules):
    hane = {"card": "Hane-Hane", "position": "face_down_defense"}
    gaia = {"card": "Gaia the Dragon Champion", "position": "attack", "summoned_by": "fusion"}
    junk = {"card": "Junk Warrior", "position": "attack", "summoned_by": "synchro"}
    s = GameState.from_dict(state({"monster_zones": zones(hane)}, {"monster_zones": zones(gaia, junk)}), rules=rules)
    s = s.apply("flip_summon@A.mz0")
    after = resolve(s.apply("select@B.mz0")).data
    assert after["players"]["B"]["extra_deck"] == ["Gaia the Dragon Champion"] and after["players"]["B"]["hand"] == []
    s = GameState.from_dict(after, rules=rules)  # the state written loads again: no Fusion Monster in a hand
    assert s.data["players"]["B"]["monster_zones"][1]["card"] == "Junk Warrior"
    again = GameState.from_dict(state({"monster_zones": zones(hane)}, {"monster_zones": zones(junk)}), rules=rules)
    after = resolve(again.apply("flip_summon@A.mz0").apply("select@B.mz0")).data
    assert after["players"]["B"]["extra_deck"] == ["Junk Warrior"]


def test_hane_hane_alone_returns_itself(rules):
    hane = {"card": "Hane-Hane", "position": "face_down_defense"}
    s = GameState.from_dict(state({"monster_zones": zones(hane)}, {}), rules=rules).apply("flip_summon@A.mz0")
    assert [a for a in ids(s) if a.startswith("select")] == ["select@A.mz0"]
    after = resolve(s.apply("select@A.mz0")).data
    assert after["players"]["A"]["hand"] == ["Hane-Hane"] and after["players"]["A"]["monster_zones"] == NONE5


# ---------------------------------------------------------------- the file goes through the OWL API (Protégé's library)

def test_the_file_loaded_and_saved_by_the_owl_api_plays_the_same(onto, tmp_path):
    saved = tmp_path / "saved.owl"
    edit_in_a_process(onto, saved, "noop")
    again = Rules.load(saved)
    assert {"Hinotama", "Dian Keto the Cure Master", "Ring of Destruction"} <= {c.name for c in again.knowledge.catalog}
    s = GameState.from_dict(ring_state({"hand": ["Dian Keto the Cure Master"], "life_points": 2000}, [DM, CG]),
                            rules=again)
    after = resolve(s.apply("activate@A.stz0").apply("select@B.mz1"))
    after = resolve(GameState.from_dict(after.data, rules=again).apply("activate@A.hand0"))
    assert (after.data["players"]["A"]["life_points"], after.data["players"]["B"]["life_points"]) == (1600, 6600)


# ---------------------------------------------------------------- what an operation needs is checked on load

def _edited(onto_graph, tmp_path, edit):
    g = copy_graph(onto_graph)
    edit(g)
    out = tmp_path / "edited.owl"
    g.serialize(out, format="xml")
    return out


@pytest.mark.parametrize("case", ["typo_declared", "new_operation", "unknown_primitive"])
def test_an_operation_nothing_carries_out_is_refused_on_load(onto_graph, tmp_path, case):
    from rdflib import Literal, URIRef
    from rdflib.namespace import OWL, RDF

    from effect_cards_onto import YGO, add_rule

    def edit(g):
        if case == "typo_declared":  # the OWL API declares a property a rule names: the typo loads, and does nothing
            g.add((URIRef(YGO + "opGainLifePoint"), RDF.type, OWL.DatatypeProperty))
            add_rule(g, "typo#1", "Dian Keto with a typo.", "ResolvingLink(?l), linkCard(?l, ?c), "
                     "DianKetoTheCureMaster(?c), linkPlayer(?l, ?p) -> opGainLifePoint(?p, 1000)")
        elif case == "new_operation":  # a new operation property on an existing primitive: no place in a step
            g.add((URIRef(YGO + "opHeal"), RDF.type, OWL.DatatypeProperty))
            g.add((URIRef(YGO + "opHeal"), URIRef(YGO + "primitive"), Literal("change_lp")))
        else:
            g.set((URIRef(YGO + "opGainLifePoints"), URIRef(YGO + "primitive"), Literal("heal")))

    path = _edited(onto_graph, tmp_path, edit)
    with pytest.raises(StateError) as err:
        Rules.load(path, cache=False)
    expected = {"typo_declared": "rule typo#1 (in the ontology file): opGainLifePoint has no ygo:primitive",
                "new_operation": "property opHeal: expected an operation the driver knows",
                "unknown_primitive": "property opGainLifePoints: ygo:primitive: expected one of"}[case]
    assert expected in str(err.value), str(err.value)
    done = run("cards", "Hinotama", "--ontology", path, check=False)
    assert done.returncode == 2 and expected in done.stderr and "Traceback" not in done.stderr, done.stderr
