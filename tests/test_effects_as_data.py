"""Effects as data: a card names its effects (ygo:cardEffect), the rules of each effect kind are written once
(rules/common/effects), game events are facts of one step, and the Decks are in the ABox of a duel that holds a
card whose effect looks there.  The cards' behaviour is in their scenarios (tests/scenarios/official: sangan-*, witch-*, and
the scenarios of the cards converted to data); here: which cards are data alone, what the ABox holds, and
fast = Pellet on every reasoner input of those scenarios (apply steps with their events included)."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from scenario_runner import load, run
from ygo_onto.abox import state_facts
from ygo_onto.cards import catalog
from ygo_onto.game import GameState
from ygo_onto.knowledge import RULES_DIR, knowledge
from ygo_onto.testing import differential as D

HERE = Path(__file__).parent
SCENARIOS = HERE / "scenarios" / "official"
# the scenarios whose every reasoner input is compared with Pellet: the two search cards (events, the Deck shown)
# and one scenario of each effect kind's other cards
PELLET_SCENARIOS = ["sangan-destroyed-by-battle-searches-its-deck", "sangan-tributed-searches-its-deck",
                    "sangan-discarded-from-the-hand-does-not-search",
                    "witch-of-the-black-forest-destroyed-by-dark-hole-searches-by-def",
                    "audit10-cards-raigeki-set-man-eater-bug-no-flip", "audit10-battle-man-eater-bug-flipped-by-attack",
                    "audit10-battle-mirror-force-on-declaration", "audit10-cards-pot-of-greed-last-two-cards",
                    "audit10-cards-harpies-feather-duster-lifts-swords-and-axe",
                    "audit10-cards-reborn-synchro-properly-summoned-only", "audit5-monster-reborn-opponents-monster-stays",
                    "axe-of-despair-sent-to-the-graveyard-tributes-to-return-on-top-of-the-deck",
                    "axe-of-despair-trigger-declined-stays-in-the-graveyard",
                    "axe-of-despair-with-no-monster-to-tribute-cannot-be-activated",
                    "axe-of-despair-on-the-opponents-monster-returns-for-its-controller",
                    "axe-of-despair-destroyed-by-mystical-space-typhoon-can-return",
                    "axe-of-despair-discarded-from-the-hand-does-not-return"]


def card_rule_lines(ruleset: str) -> dict[str, int]:
    """Per card class of the ruleset's catalog: how many lines of its rules (rules/common, rules/RULESET) name it."""
    text = [line for folder in ("common", ruleset) for path in sorted((RULES_DIR / folder).rglob("*.swrl"))
            for line in path.read_text(encoding="utf-8").splitlines() if line and not line.startswith("#")]
    return {card.class_name: sum(1 for line in text if re.search(rf"\b{card.class_name}\(", line))
            for card in catalog(ruleset)}


# Cards that name effects and keep rule lines for another part of their text, which the vocabulary cannot say yet
# (docs/adding-a-card.md, the official table): Axe of Despair's equip target and its ATK bonus.
OWN_RULES_BESIDE_EFFECTS = {"AxeOfDespair": 3}


def test_a_card_with_effects_needs_no_rule_of_its_own():
    lines = card_rule_lines("official")
    with_effects = [c for c in catalog("official") if c.effects]
    assert len(with_effects) >= 9
    for card in with_effects:
        assert lines[card.class_name] == OWN_RULES_BESIDE_EFFECTS.get(card.class_name, 0), \
            f"{card.name} names effects and still has rules of its own"
    for name in ("Sangan", "Witch of the Black Forest"):
        assert catalog("official").get(name).effects


def test_every_effect_a_card_names_is_an_effect_individual_with_its_kind_and_trigger():
    v = knowledge("official").vocabulary
    kinds = {c for c, parents in v.subclass.items() if "Effect" in parents}
    assert {"DestroyEffect", "DrawEffect", "SearchDeckEffect"} <= kinds
    triggers = {s: o for p, s, o in v.tbox_facts if p == "hasTrigger"}
    for card in catalog("official"):
        for effect in card.effects:
            assert v.individuals.get(effect, set()) & kinds, f"{card.name}: {effect} is of no effect kind"
            assert effect in triggers, f"{card.name}: {effect} has no trigger"
    for term in ("Effect", "CardFilter", "EffectTrigger", "MoveEvent", "appliesTo", "filterArea", "hasTrigger"):
        assert term in v.labels


def _deck_facts(facts):
    return [f for f in facts if f[0] == "placedIn" and "_deck" in f[2]]


def test_the_decks_are_in_the_abox_throughout_a_duel_holding_a_card_that_searches():
    """Sangan looks in its Deck: both Decks are in the ABox in every state of its duel, the searching one's with
    every card (abox.visible_decks)."""
    sc = load(SCENARIOS / "sangan-destroyed-by-battle-searches-its-deck.json")
    state = GameState.from_dict(sc["state"])
    assert {f[2] for f in _deck_facts(state_facts(state.to_dict()))} == {"A_deck", "B_deck"}, "before the search"
    searching = state.apply(sc["steps"][0], "fast").to_dict()
    assert searching["pending"]["action"]["card"] == "Sangan"
    shown = _deck_facts(state_facts(searching))
    assert {f[2] for f in shown} == {"A_deck", "B_deck"}
    assert len([f for f in shown if f[2] == "B_deck"]) == len(searching["players"]["B"]["deck"])


def _recorded(steps_of):
    sink: list = []
    with D._recording_steps(sink):
        steps_of()
    return sink


def test_a_move_event_is_a_fact_of_the_next_step_for_a_watched_card_only():
    sc = load(SCENARIOS / "sangan-destroyed-by-battle-searches-its-deck.json")
    state = GameState.from_dict(sc["state"])
    inputs = _recorded(lambda: state.apply(sc["steps"][0], "fast"))
    events = [t["events"] for _, t in inputs if "events" in t]
    assert events == [[("B", "graveyard", 0, "monster_zones", "graveyard", "destroyedByBattleReason", 1)]]
    data, transient = next((d, t) for d, t in inputs if "events" in t)
    facts = state_facts(data, True, transient)
    assert ("moveReason", "event1", "destroyedByBattleReason") in facts
    assert ("eventCard", "event1", "B_graveyard_0_card") in facts
    # the same battle against a monster no effect watches: no event at all
    plain = {**sc["state"], "players": {**sc["state"]["players"], "B": {**sc["state"]["players"]["B"],
                                                                         "monster_zones": [{"card": "Feral Imp"}, None, None, None, None]}}}
    inputs = _recorded(lambda: GameState.from_dict(plain).apply(sc["steps"][0], "fast"))
    assert inputs and not [t for _, t in inputs if "events" in t]


@pytest.mark.pellet
def test_fast_infers_what_pellet_infers_on_the_effect_scenarios(pellet_pool):
    cases = []
    for name in PELLET_SCENARIOS:
        path = SCENARIOS / f"{name}.json"
        sc = load(path)
        cases.append(D.Case(f"scenario {name}", GameState.from_dict(sc["state"]).to_dict()))
        for i, (data, transient) in enumerate(_recorded(lambda: run(path, "fast"))):
            cases.append(D.Case(f"scenario {name} step {i}", data, transient))
    # by default the inputs that fire every rule some input fires (a cover, D.covering), among them inputs with a
    # game event (the new facts); all with YGO_FULL_PELLET=1 (README "Tests and CI")
    every = D.dedupe(cases)
    cases = D.covering(every)
    assert not D.uncovered(every, cases)
    assert any(c.transient and "events" in c.transient for c in cases)
    outcomes = D.compare(cases, pellet_pool, batch=4)
    failures = [o for o in outcomes if not o.same]
    assert not failures, "\n".join(o.report()[:2000] for o in failures)


def test_random_duels_with_the_search_cards_finish_and_search():
    """Official duels whose decks hold Sangan and Witch of the Black Forest (every fourth card, and a Sangan in each
    opening hand), random agents: they finish without an engine error, and searches open and choose a Deck card."""
    from ygo_onto.duel import new_duel, play_duel

    searches = chosen = 0
    for seed in (1, 2, 3):
        s = new_duel("official", seed, "fast").to_dict()
        for p in "AB":
            deck = s["players"][p]["deck"]
            for i in range(0, len(deck), 4):
                deck[i] = "Sangan" if i % 8 == 0 else "Witch of the Black Forest"
            s["players"][p]["hand"][0] = "Sangan"
        last = None
        for _, action, nxt in play_duel(GameState.from_dict(s), ("random", "random"), seed=seed, reasoner="fast",
                                        max_actions=400):
            pending = nxt.to_dict()["pending"]
            searches += bool(pending and pending["action"].get("card") in ("Sangan", "Witch of the Black Forest"))
            chosen += action.id.startswith("select@") and ".deck" in action.id
            last = nxt
        assert last is not None
    assert searches > 0 and chosen > 0


def test_the_goat_banish_position_and_damage_cards_are_data_alone():
    """Book of Moon, Nobleman of Crossout, Ring of Destruction and Night Assailant's FLIP are played by the effect kinds'
    rules alone (src/ygo_onto/data/goat/effects/*.ttl): no rule line of rules/common or rules/goat names them."""
    v = knowledge("goat").vocabulary
    cat = catalog("goat")
    lines = card_rule_lines("goat")
    kinds = {"Book of Moon": {"ChangePositionEffect"}, "Nobleman of Crossout": {"BanishEffect"},
             "Ring of Destruction": {"DestroyEffect", "DamageEffect"}, "Night Assailant": {"DestroyEffect"}}
    for name, expected in kinds.items():
        card = cat.get(name)
        assert expected <= {k for e in card.effects for k in v.individuals.get(e, set())}, name
        assert lines[card.class_name] == 0, f"{name} names effects and still has rules of its own"
