"""Actions a class annotated ygo:withholdsActions takes off the allowed actions (SWRL cannot say "unless"), or too few
targets a player may choose (SWRL cannot count: actions.short_of_targets): the
allowed actions and `explain` agree that such an action is not allowed, and say which inferred fact withholds it."""
from __future__ import annotations

from pathlib import Path

from scenario_runner import load

from ygo_onto import GameState
from ygo_onto.explain import explain_action

GOAT = Path(__file__).parent / "scenarios" / "goat"


def test_explain_names_the_monster_that_must_attack_as_the_reason_the_battle_phase_cannot_end():
    state = GameState.from_dict(load(GOAT / "berserk-gorilla-must-attack-before-the-battle-phase-ends.json")["state"])
    assert "next_phase:main2" not in [a.id for a in state.allowed_actions("fast")]
    report = explain_action(state, "next_phase:main2")
    assert not report.allowed
    assert "A_monster_zones_0_card is inferred MustAttackReady" in report.text()
    after = state.apply("direct_attack@A.mz0", "fast")
    assert explain_action(after, "next_phase:main2").allowed


def test_explain_names_the_tie_that_keeps_a_set_card_from_being_activated():
    sc = load(GOAT / "xing-zhen-hu-locks-its-two-set-targets.json")
    state = GameState.from_dict(sc["state"])
    for step in sc["steps"][:5]:
        state = state.apply(step, "fast")
    report = explain_action(state, "activate@A.stz1")
    assert not report.allowed
    assert "A_spell_trap_zones_1_card is inferred ActivationLocked" in report.text()
    assert explain_action(state, "activate@A.stz2").allowed


def test_explain_says_an_activation_whose_only_targets_are_protected_is_not_offered():
    sc = load(GOAT / "king-dragun-leaves-only-dragons-so-no-targeting-effect-is-offered.json")
    state = GameState.from_dict(sc["state"])
    assert "activate@A.hand0" not in [a.id for a in state.allowed_actions("fast")]
    report = explain_action(state, "activate@A.hand0")
    assert not report.allowed
    assert "targetProtectedFrom" in report.text()
    after = state.apply("activate@A.hand1", "fast").apply("pass", "fast")  # Smashing Ground destroys King Dragun
    assert explain_action(after, "activate@A.mz1").allowed
