"""Locks that negate effects (trapEffectLock, spellEffectLock) and forbid activations or Summons (spellLock,
summonLock): the driver's per-card counts the rules of rules/common/effects/locks.swrl read.  The lock cards'
data-alone check is tests/test_goat_cards_as_data.py's; their play is in their scenarios
(tests/scenarios/goat/royal-decree-*, jinzo-negates-*, spell-canceller-*, the-last-warrior-from-another-planet-*)."""
from __future__ import annotations

from ygo_onto.abox import state_facts
from ygo_onto.game import GameState

LOCK_CARDS = ("Royal Decree", "Spell Canceller", "Jinzo", "The Last Warrior from Another Planet")


def _state(b_traps, chain=()):
    return GameState.from_dict({
        "format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "turn_player": "A", "phase": "main1",
        "players": {"A": {"deck": ["Sangan"], "spell_trap_zones": [{"card": "Dust Tornado", "position": "face_down"},
                                                                  None, None, None, None]},
                    "B": {"deck": ["Sangan"], "spell_trap_zones": [*b_traps, *[None] * (5 - len(b_traps))]}},
        "chain": list(chain)}).to_dict()


def _counts(state, prop):
    return {f[1]: f[2] for f in state_facts(state) if f[0] == prop}


def test_a_trap_lock_counts_the_other_face_up_lock_cards_not_itself():
    counts = _counts(_state([{"card": "Royal Decree", "position": "face_up"}]), "trapEffectLockCount")
    assert counts == {"A_spell_trap_zones_0_card": 1, "B_spell_trap_zones_0_card": 0}
    two = _counts(_state([{"card": "Royal Decree", "position": "face_up"}, {"card": "Royal Decree", "position": "face_up"}]),
                  "trapEffectLockCount")
    assert two == {"A_spell_trap_zones_0_card": 2, "B_spell_trap_zones_0_card": 1, "B_spell_trap_zones_1_card": 1}


def test_a_face_down_lock_card_or_one_whose_activation_waits_on_the_chain_locks_nothing():
    down = _counts(_state([{"card": "Royal Decree", "position": "face_down"}]), "trapEffectLockCount")
    assert set(down.values()) == {0}
    link = {"card": "Royal Decree", "player": "B", "zone": {"area": "spell_trap_zones", "index": 0}, "targets": [],
            "speed": 2}
    waiting = _counts(_state([{"card": "Royal Decree", "position": "face_up"}], [link]), "trapEffectLockCount")
    assert set(waiting.values()) == {0}


def test_a_spell_lock_is_counted_for_the_duel_and_per_spell():
    state = GameState.from_dict({
        "format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "turn_player": "A", "phase": "main1",
        "players": {"A": {"monster_zones": [{"card": "Spell Canceller", "position": "attack"}, None, None, None, None],
                          "spell_trap_zones": [{"card": "Premature Burial", "position": "face_up"}, None, None, None,
                                               None]},
                    "B": {}}}).to_dict()
    assert _counts(state, "faceUpSpellLockCount") == {"theDuel": 1}
    assert _counts(state, "spellEffectLockCount") == {"A_spell_trap_zones_0_card": 1}
