"""The goat cards played by data alone (src/ygo_onto/data/goat/effects/): they name effects of reusable kinds
and no rule names them; a filter on a part of a name is the catalog's namePart facts; a FLIP effect that looks in
the Deck shows its controller's Deck.  Their behaviour is in their scenarios (tests/scenarios/goat), and fast =
Pellet on every step of those in tests/test_goat_reasoners.py."""
from __future__ import annotations

import re
from pathlib import Path

from scenario_runner import load
from ygo_onto.abox import state_facts
from ygo_onto.cards import catalog
from ygo_onto.game import GameState
from ygo_onto.knowledge import RULES_DIR, knowledge

SCENARIOS = Path(__file__).parent / "scenarios" / "goat"
DATA_ALONE = ("Heavy Storm", "Magician of Faith", "Sinister Serpent", "Gravekeeper's Spy", "Premature Burial",
              "Call of the Haunted", "Chaos Sorcerer", "Black Luster Soldier - Envoy of the Beginning", "Gigantes",
              "D.D. Warrior Lady", "D.D. Assailant", "Giant Rat",
              "Just Desserts", "Secret Barrel", "Ceasefire", "Des Koala", "Magic Cylinder",
              "Dekoichi the Battlechanted Locomotive", "Gravekeeper's Guard", "Giant Trunade",
              "Mobius the Frost Monarch", "Zaborg the Thunder Monarch", "Thestalos the Firestorm Monarch",
              "Spirit Reaper", "Reaper on the Nightmare", "Dark Blade the Dragon Knight", "Kycoo the Ghost Destroyer",
              "Scapegoat", "Creature Swap", "Smashing Ground", "Enraged Battle Ox", "Giant Orc",
              "Fusilier Dragon, the Dual-Mode Beast", "Dark Balter the Terrible", "Ryu Senshi", "Dark Magician of Chaos",
              "Skilled Dark Magician", "Blowback Dragon", "Metamorphosis", "Thousand-Eyes Restrict",
              "Sacred Crane", "Magical Merchant", "Monster Gate", "Reasoning", "Cyber Jar", "Dimension Fusion", "Return from the Different Dimension",
              "Gravity Bind", "Level Limit - Area B", "Gyaku-Gire Panda", "King Tiger Wanghu", "Lava Golem",
              "Breaker the Magical Warrior", "Zombyra the Dark", "Kinetic Soldier", "Blade Knight",
              "Royal Decree", "Spell Canceller", "Jinzo", "The Last Warrior from Another Planet",
              "Raigeki Break", "Phoenix Wing Wind Blast", "Tribe-Infecting Virus", "Trap Dustshoot",
              "Injection Fairy Lily", "Solemn Judgment",
              "Fiend Skull Dragon", "Gatling Dragon", "King Dragun",
              "Berserk Gorilla", "Soul Exchange", "Xing Zhen Hu",
              "Stealth Bird", "Don Zaloog", "Wave-Motion Cannon", "Chain Energy", "Ojama King",
              "Mystic Swordsman LV2", "Night Assailant", "Sangan")


def test_the_goat_cards_with_effects_have_no_rule_of_their_own():
    lines = [line for folder in ("common", "official", "goat") for path in sorted((RULES_DIR / folder).rglob("*.swrl"))
             for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    cat = catalog("goat")
    for name in DATA_ALONE:
        card = cat.get(name)
        assert card.effects, f"{name} names no effect"
        assert not [line for line in lines if re.search(rf"\b{card.class_name}\(", line)], f"{name} has rules of its own"


def test_the_new_effect_kinds_and_trigger_are_in_the_vocabulary():
    v = knowledge("goat").vocabulary
    kinds = {c for c, parents in v.subclass.items() if "Effect" in parents}
    assert {"SpecialSummonEffect", "AddToHandEffect"} <= kinds
    triggers = {o for p, _s, o in v.tbox_facts if p == "hasTrigger"}
    assert "onStandbyPhase" in triggers
    for term in ("specialSummonPosition", "tiedToSummonedMonster", "affectsItself", "filterNameContains", "namePart",
                 "namedMonsterCards"):
        assert term in v.labels


def test_a_name_part_is_a_fact_of_the_cards_whose_name_contains_it():
    sc = load(SCENARIOS / "gravekeepers-spy-flip-summons-a-gravekeeper-from-the-deck.json")
    state = GameState.from_dict(sc["state"])
    flipped = state.apply(sc["steps"][0], "fast").to_dict()
    facts = state_facts(flipped)
    parts = {(f[1], f[2]) for f in facts if f[0] == "namePart"}
    names = {f[1]: f[2] for f in facts if f[0] == "cardName"}
    assert parts and all(p == "Gravekeeper's" and "Gravekeeper's" in names[c] for c, p in parts)
    assert {c for c, _ in parts} == {c for c, n in names.items() if "Gravekeeper's" in n}


def _decks(facts):
    return {f[2] for f in facts if f[0] == "placedIn" and "_deck" in f[2]}


def test_a_flip_effect_that_looks_in_the_deck_sees_both_decks_before_during_and_after():
    """The duel holds Gravekeeper's Spy (a FLIP effect that looks in the Deck): both Decks are in the ABox in every
    state, not only while the effect may be used (abox.visible_decks)."""
    sc = load(SCENARIOS / "gravekeepers-spy-flip-summons-a-gravekeeper-from-the-deck.json")
    state = GameState.from_dict(sc["state"])
    assert _decks(state_facts(state.to_dict())) == {"A_deck", "B_deck"}, "both Decks before the flip"
    flipped = state.apply(sc["steps"][0], "fast").to_dict()
    assert flipped["pending"]["action"]["card"] == "Gravekeeper's Spy"
    assert _decks(state_facts(flipped)) == {"A_deck", "B_deck"}
    done = GameState.from_dict(flipped).apply(sc["steps"][1], "fast").to_dict()
    assert _decks(state_facts(done)) == {"A_deck", "B_deck"}, "both Decks once the effect resolved"
