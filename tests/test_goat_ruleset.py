"""The `goat` ruleset: its catalog (ontology/cards-goat.owl, written by tools/goat_catalog.py from the GOAT
pack's cards.csv and cards.md), the rules it plays (rules/common + rules/official + rules/goat), and what
it changes against `official` (docs/rulesets.md, "goat")."""
from __future__ import annotations

import csv
import json
import subprocess
import sys
from pathlib import Path

import pytest

from cli_runner import cli
from ygo_onto import GameState, resources
from ygo_onto.cards import RULE_FOLDERS, catalog
from ygo_onto.duel import new_duel
from ygo_onto.errors import StateError
from ygo_onto.knowledge import RULES_DIR, card_classes_with_rules, effect_status, knowledge
from ygo_onto.swrl import parse_rule_file, parse_rule_text

ROOT = Path(__file__).resolve().parent.parent
PACK = resources.data_dir() / "goat"
ROWS = list(csv.DictReader((PACK / "cards.csv").open(encoding="utf-8")))


def _state(ruleset: str, extra_deck: list[str]) -> dict:
    return {"format": "ygo-onto.state/1", "ruleset": ruleset, "turn": 3, "phase": "main1",
            "players": {"A": {"extra_deck": extra_deck, "deck": []}, "B": {}}}


def test_the_catalog_holds_the_packs_110_cards_with_their_facts():
    cat = catalog("goat")
    assert len([c for c in cat if not c.is_token]) == 110 == len(ROWS)
    assert [c.name for c in cat if c.is_token] == ["Sheep Token"]  # data/goat/tokens/: not a card of cards.csv
    for row in ROWS:
        card = cat.get(row["name"])
        assert card.passcode == int(row["passcode"])
        assert card.kind_label.replace("Flip ", "") in (row["kind"].replace("Flip ", ""), "Effect Monster")
        if card.is_monster:
            assert (card.level, card.atk, card.defense) == (int(row["level"]), int(row["atk"]), int(row["def"]))
            assert (card.attribute, card.monster_type) == (row["attribute"], row["monster_type"])
            assert card.extra_deck == (row["kind"] == "Fusion Monster")
            assert card.flip == (row["kind"] == "Flip Effect Monster")
        for list_id in row["goat_list_id"].split(";"):  # a GOAT version id finds the card
            if list_id != row["passcode"]:
                assert cat.get(list_id) is card
        if row["also_known_as"]:
            assert cat.get(row["also_known_as"]) is card
        materials = [(m.rsplit(" x", 1)[0], int(m.rsplit(" x", 1)[1])) for m in row["fusion_materials"].split(" + ") if m]
        assert card.materials == tuple(name for name, n in materials for _ in range(n))
        assert card.description and row["name"] not in ("",)


def test_a_cards_description_is_its_entry_in_the_packs_cards_md():
    cat = catalog("goat")
    md = (PACK / "cards.md").read_text(encoding="utf-8")
    sangan = cat.get("Sangan")
    assert "mandatory trigger" in sangan.description and "GOAT version" in sangan.description
    assert "Card:" not in sangan.description and "Decks:" not in sangan.description
    assert "1500 or less ATK" in md and "1500 or less ATK" in sangan.description


def test_special_summon_monsters_and_effectless_fusions_are_marked_from_the_pack():
    cat = catalog("goat")
    md = (PACK / "cards.md").read_text(encoding="utf-8")
    special = {c.name for c in cat if c.special_summon_only}
    assert special and all(f"### {n} (" in md for n in special)
    assert {"Black Luster Soldier - Envoy of the Beginning", "Chaos Sorcerer"} <= special
    no_effect = {r["name"] for r in ROWS if "Monster" in r["kind"] and not int(r["edopro_type"], 16) & 0x20}
    assert {c.name for c in cat if c.no_effect} == no_effect and len(no_effect) == 6


def test_a_card_both_catalogs_have_is_the_same_class_with_the_same_play_facts():
    goat, official = catalog("goat"), catalog("official")
    shared = [c for c in goat if c.name in official]
    assert {c.name for c in shared} >= {"Mirror Force", "Pot of Greed", "Mystical Space Typhoon"}
    for card in shared:
        other = official.get(card.name)
        assert card.class_name == other.class_name
        assert (card.activation, card.phases, card.stays_on_field, card.optional_effect) == \
               (other.activation, other.phases, other.stays_on_field, other.optional_effect)


def test_the_catalog_and_format_list_are_in_step_with_the_pack():
    done = subprocess.run([sys.executable, str(ROOT / "tools" / "goat_catalog.py"), "--check"],
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout + done.stderr


def test_goat_plays_the_official_rules_and_its_own_folder():
    assert RULE_FOLDERS["goat"] == ("common", "official", "goat")
    k, official = knowledge("goat"), knowledge("official")
    own = {c.class_name for c in k.catalog}
    absent = {c.class_name for c in official.catalog} - own
    files = [p for folder in RULE_FOLDERS["goat"] for p in sorted((RULES_DIR / folder).rglob("*.swrl"))]
    every = [r for p in files for r in parse_rule_file(p, p.relative_to(RULES_DIR).as_posix())]

    def names(rule):
        body, head = parse_rule_text(rule.text)
        return {a.pred for a in body + head}

    kept = [r for r in every if not names(r) & absent]
    assert [r.text for r in k.rules] == [r.text for r in kept]
    assert len(kept) < len(every)  # the official card rules about cards goat lacks are left out
    assert [r.text for r in official.rules if not names(r) & absent] == \
           [r.text for r in k.rules if not r.name.startswith("goat/")]
    own_files = {p.relative_to(RULES_DIR).as_posix() for p in sorted((RULES_DIR / "goat").rglob("*.swrl"))
                 if parse_rule_file(p, p.relative_to(RULES_DIR).as_posix())}  # (mr1-base.swrl has comments alone)
    assert {r.name.split("#")[0] for r in k.rules if r.name.startswith("goat/")} == own_files
    assert {"goat/positions.swrl", "goat/snatch-steal.swrl", "goat/ignition-priority.swrl"} <= own_files
    k.check_rules()  # every name a goat rule uses is in goat's vocabulary


def test_the_official_ruleset_reads_nothing_of_goat():
    k = knowledge("official")
    assert not any(r.name.startswith("goat/") for r in k.rules)
    assert "Scapegoat" not in k.catalog and len(k.catalog) == 84


def test_cards_lists_whether_each_effect_is_played():
    status = effect_status("goat")
    named = card_classes_with_rules(knowledge("goat"))
    cat = catalog("goat")
    assert {n for n, s in status.items() if s == "played"} == {
        c.name for c in cat if c.effects or (c.abilities and not c.is_token) or c.class_name in named}
    assert {n for n, s in status.items() if s == "none"} == {c.name for c in cat if c.no_effect or c.is_token}
    assert status["Pot of Greed"] == "played" and status["Sangan"] == "played" and status["Scapegoat"] == "played"
    assert status["Sheep Token"] == "none"
    assert cat.get("Sangan").effects and "Sangan" not in {c.name for c in cat if c.class_name in named}  # data alone
    code, text = cli("cards", "--ruleset", "goat", "--json")
    assert code == 0
    import json

    listed = json.loads(text)
    assert len(listed) == 111 and {c["name"]: c["effect"] for c in listed} == status  # the 110 cards and the token
    code, text = cli("cards", "504700178", "--ruleset", "goat", "--json")  # Sangan's GOAT version id
    assert code == 0 and json.loads(text)[0]["name"] == "Sangan"


def test_first_turn_draw_is_played_as_in_official():
    """MR1's 1ST_TURN_DRAW: the first player draws in their first Draw Phase; rulebook v6.0 p. 24 too."""
    for ruleset in ("goat", "official"):
        start = new_duel(ruleset, 4)
        first = start.data["first_player"]
        other = "B" if first == "A" else "A"
        # the first decision point: Main Phase 1, or the Draw Phase once its card is drawn when a Quick-Play Spell of
        # the hand can be activated there (goat seed 4: Scapegoat, rulebook p. 18)
        assert start.data["turn"] == 1 and start.data["phase"] in ("draw", "main1")
        if start.data["phase"] == "draw":
            assert [a.type for a in start.allowed_actions("fast")].count("activate") >= 1
        assert len(start.data["players"][first]["hand"]) == 6
        assert len(start.data["players"][other]["hand"]) == 5


def test_the_fusion_deck_has_no_15_card_limit_in_goat():
    """GOAT pack README, "Decks": no Fusion Deck size limit (the toolbox has 22 cards); official keeps 15."""
    toolbox = [c.name for c in catalog("goat") if c.extra_deck] * 2  # 34 cards
    state = GameState.from_dict(_state("goat", toolbox[:34]))
    assert len(state.data["players"]["A"]["extra_deck"]) == 34
    official_fusions = [c.name for c in catalog("official") if c.extra_deck]
    with pytest.raises(StateError, match=r"players\.A\.extra_deck: expected at most 15"):
        GameState.from_dict(_state("official", (official_fusions * 16)[:16]))
    with pytest.raises(StateError, match=r"players\.A\.extra_deck: expected at most 75"):  # still bounded
        GameState.from_dict(_state("goat", (toolbox * 3)[:76]))
    with pytest.raises(StateError, match="at most 75 cards owned by A"):  # what a player owns stays bounded
        GameState.from_dict({**_state("goat", toolbox[:34]), "players": {
            "A": {"extra_deck": toolbox[:34], "deck": ["Sangan"] * 42}, "B": {}}})


def _summon_window(hand: list[str]) -> dict:
    """A's window right after its own Normal Summon of Sangan (rulebook p. 38), with Exiled Force face-up
    beside it and Torrential Tribute Set on B's side."""
    return {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "turn_player": "A", "phase": "main1",
            "players": {"A": {"hand": hand, "deck": ["Sangan"] * 3,
                              "monster_zones": [{"card": "Exiled Force"},
                                                {"card": "Sangan", "summoned_this_turn": True,
                                                 "extra": {"just_summoned": "normal"}}, None, None, None]},
                        "B": {"deck": ["Sangan"] * 3, "monster_zones": [{"card": "Giant Orc"}, None, None, None, None],
                              "spell_trap_zones": [{"card": "Torrential Tribute", "position": "face_down"},
                                                   None, None, None, None]}}}


def test_ignition_priority_opens_ignition_effects_in_the_turn_players_summon_window():
    """GOAT pack README item 1, TCG_FAST_EFFECT_IGNITION (rules/goat/ignition-priority.swrl): in its window right
    after its own Summon, the turn player may start a chain with an ignition effect (Exiled Force on the field,
    Thunder Dragon from the hand). The official rules alone (the goat rules without that file) allow only Spell
    Speed 2 or more there; in an open Main Phase both allow the ignition effects."""
    from ygo_onto.knowledge import ACTIVE, Knowledge

    goat = knowledge("goat")
    official_rules = Knowledge("goat", catalog_=goat.catalog, tbox=goat.tbox,
                               rules=[r for r in goat.rules if not r.name.startswith("goat/ignition-priority.swrl")])
    assert len(official_rules.rules) == len(goat.rules) - 5
    ignition = {"activate@A.mz0", "activate@A.hand0"}

    def allowed(data: dict, k=None) -> set[str]:
        token = ACTIVE.set({**ACTIVE.get(), "goat": k}) if k is not None else None
        try:
            return {a.id for a in GameState.from_dict(data).allowed_actions("fast")}
        finally:
            if token is not None:
                ACTIVE.reset(token)

    window = _summon_window(["Thunder Dragon"])
    assert ignition <= allowed(window) and "pass" in allowed(window)
    assert not ignition & allowed(window, official_rules) and "pass" in allowed(window, official_rules)
    open_main = {**window, "players": {**window["players"], "A": {**window["players"]["A"], "monster_zones": [
        {"card": "Exiled Force"}, {"card": "Sangan", "summoned_this_turn": True}, None, None, None]}}}
    assert ignition <= allowed(open_main) and ignition <= allowed(open_main, official_rules)


def test_a_monster_destroyed_by_battle_is_on_the_field_while_the_after_battle_chain_resolves():
    """GOAT pack README item 3 (6_STEP_BATLLE_STEP): "End of the Damage Step. Monsters destroyed by battle are sent to
    the Graveyard". D.D. Warrior Lady destroys Sangan by battle: while her trigger is Chain Link 1, Sangan is still
    face-up in its Monster Zone, marked destroyed (extra.destroyed_by_battle), and its owner's Graveyard is empty; she
    banishes it from there, and it never reaches the Graveyard (rules/goat/damage-step.swrl)."""
    from ygo_onto.testing import differential as D

    sc = json.loads((Path(__file__).parent / "scenarios" / "goat" /
                     "damage-step-end-sangan-banished-by-dd-warrior-lady-does-not-search.json").read_text())
    inputs: list = []
    with D._recording_steps(inputs, every_input=True):
        after = GameState.from_dict(sc["state"]).apply(sc["steps"][0], "fast").to_dict()
    on_chain = [data for data, _ in inputs if [link["card"] for link in data["chain"]] == ["D.D. Warrior Lady"]]
    assert on_chain, "D.D. Warrior Lady's trigger was never a chain link"
    for data in on_chain:
        sangan = data["players"]["B"]["monster_zones"][0]
        assert sangan is not None and sangan["card"] == "Sangan" and sangan["position"] == "attack"
        assert sangan["extra"].get("destroyed_by_battle") is True
        assert data["players"]["B"]["graveyard"] == []
        assert data["extra"]["damage_step_end"] == {"sub_step": 2}
    assert after["players"]["B"]["banished"] == ["Sangan"] and after["players"]["B"]["graveyard"] == []
    assert "damage_step_end" not in after.get("extra", {})
