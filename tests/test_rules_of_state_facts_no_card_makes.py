"""The catalog filter leaves out the rules guarded by a fact of the state that no card of the ruleset makes: a pending
action of a purpose no operation of the rules run opens, a card counter above 0 that no operation of the rules run
sets (knowledge._never_made, a least fixpoint).  Such a rule cannot fire: a duel starts with neither, the operations
the rules run never make one (checked here on the ABox of every state of a duel of each ruleset), and a state that has
one is refused (state.made_in_duels)."""
from __future__ import annotations

import pytest

from ygo_onto import abox
from ygo_onto.duel import new_duel, play_duel
from ygo_onto.errors import StateError
from ygo_onto.knowledge import Knowledge, _never_made, knowledge, made_in_duels, reasoned_rules
from ygo_onto.state import PURPOSES, normalize
from ygo_onto.swrl import Rule, parse_rule_text

PICK_UP = "purpose(?x, chooseSummonPositionPurpose)"  # (GOAT's Cyber Jar: rules/common/effects/pick-up.swrl)


def test_the_rules_of_a_purpose_no_card_opens_are_left_out_where_no_card_opens_it():
    official, goat = knowledge("official"), knowledge("goat")
    assert any(PICK_UP in r.text for r in official.rules)  # (rules/common: every ruleset reads them)
    assert not any(PICK_UP in r.text for r in reasoned_rules(official))
    assert any(PICK_UP in r.text for r in reasoned_rules(goat))
    assert "chooseSummonPosition" not in made_in_duels(official)[0] and "chooseSummonPosition" in made_in_duels(goat)[0]
    assert "cannot_be_tributed" not in made_in_duels(official)[1] and "cannot_be_tributed" in made_in_duels(goat)[1]
    assert not any("cannotBeTributedThisTurn(?m, 1)" in r.text for r in reasoned_rules(official))


def test_every_purpose_of_the_state_format_is_opened_in_some_ruleset():
    """A purpose whose opening operation the filter cannot trace (primitives.OPENED_PURPOSES, opOpenSelection's and
    opTriggerEffect's purposes) counts as never opened, and its rules would be left out everywhere."""
    opened = set().union(*(made_in_duels(knowledge(r))[0] for r in ("official", "simplified", "goat")))
    assert set(PURPOSES) <= opened, sorted(set(PURPOSES) - opened)


def _with(rules: list[str]) -> Knowledge:
    """The official knowledge with these rules added (parsed for the analysis; not compiled)."""
    k = knowledge("official")
    added = [Rule(f"test#{i}", text, "", "", 0) for i, text in enumerate(rules, 1)]
    k2 = Knowledge("official", catalog_=k.catalog, rules=[*reasoned_rules(k), *added])
    k2.__dict__["vocabulary"] = k.vocabulary
    return k2


def test_a_purpose_counts_once_a_rule_that_can_fire_opens_it():
    reads = "PendingAction(?x), purpose(?x, swapPurpose), Duel(?d) -> PassAllowed(?d)"
    opens_itself = "PendingAction(?x), purpose(?x, swapPurpose), pendingPlayer(?x, ?p) -> opAskSwap(?p, 1)"
    opens = "TurnPlayer(?p), Duel(?d), currentPhase(?d, mainPhase1) -> opAskSwap(?p, 1)"
    k = _with([reads, opens_itself])
    assert "swap" not in made_in_duels(k)[0]  # (a rule that needs the selection it opens makes nothing)
    assert not {"test#1", "test#2"} & {r.name for r in reasoned_rules(k)}
    k = _with([reads, opens_itself, opens])
    assert "swap" in made_in_duels(k)[0] and {"test#1", "test#2"} <= {r.name for r in reasoned_rules(k)}


def test_a_counter_counts_once_a_rule_sets_it_above_0():
    v = knowledge("official").vocabulary
    needs = parse_rule_text("Monster(?m), cannotBeTributedThisTurn(?m, 1) -> Card(?m)")
    clears = parse_rule_text("Monster(?m), cannotBeTributedThisTurn(?m, 1) -> opSetCannotBeTributedThisTurn(?m, 0)")
    sets = parse_rule_text("Monster(?m), summonedThisTurn(?m, true) -> opSetCannotBeTributedThisTurn(?m, 1)")
    assert _never_made(v, [needs, clears])(needs[0])
    assert not _never_made(v, [needs, clears, sets])(needs[0])
    assert not _never_made(v, [needs])(parse_rule_text("Monster(?m), cannotBeTributedThisTurn(?m, 0) -> Card(?m)")[0])


def _state(ruleset: str, **board) -> dict:
    return {"format": "ygo-onto.state/1", "ruleset": ruleset, "turn": 3, "phase": "main1", "players": {
        "A": {"hand": ["Sangan" if ruleset == "goat" else "Celtic Guardian"], **board}, "B": {}}}


def test_a_state_with_a_purpose_or_a_counter_its_ruleset_never_makes_is_refused():
    pending = {"action": {"type": "pass", "player": "A"}, "purpose": "swap", "needed": 1, "chosen": []}
    with pytest.raises(StateError, match=r"pending\.purpose: expected a purpose the simplified ruleset's cards open"):
        normalize({**_state("simplified"), "pending": pending})
    zones = [{"card": "Celtic Guardian", "position": "attack", "counters": {"cannot_be_tributed": 1}}] + [None] * 4
    with pytest.raises(StateError, match=r"players\.A\.monster_zones\[0\]\.counters\.cannot_be_tributed"):
        normalize(_state("official", monster_zones=zones))
    normalize(_state("goat", monster_zones=[{**zones[0], "card": "Sangan"}] + [None] * 4))  # (Mind Control sets it)
    zones[0]["counters"] = {"cannot_be_tributed": 0}  # (0: no counter)
    normalize(_state("official", monster_zones=zones))


@pytest.mark.parametrize("ruleset, decks", [("official", None), ("simplified", None),
                                            ("goat", ["chaos-control", "warrior"])])
def test_no_duel_makes_a_fact_the_left_out_rules_need(ruleset, decks):
    """Every state of a random duel: its pending purpose is one the rules run open, and each counter above 0 of a
    card is one they set (the ABox's facts, which are all a left-out rule could have read)."""
    k = knowledge(ruleset)
    purposes, counters = made_in_duels(k)
    props = dict(abox.counter_declarations(ruleset))
    state = new_duel(ruleset, 2, "fast", decks=decks)
    seen = 0
    for _, _, nxt in play_duel(state, ("random", "random"), seed=2, reasoner="fast"):
        for fact in abox.state_facts(nxt.data):
            if fact[0] == "purpose":
                assert fact[2].removesuffix("Purpose") in purposes, fact
                seen += 1
            elif fact[0] in props and fact[2]:
                assert props[fact[0]] in counters, fact
    assert seen  # (the duel opened selections)
