"""state_abox's memoized parts against a reference builder without memos (state_facts as at commit 4b147c2,
copied below, which builds every part anew): the same facts (with the types of their values) and the same
parts, on every state of whole duels of both rulesets, with the transient facts those duels give."""
import copy

import pytest

from ygo_onto import abox, game
from ygo_onto.abox import (
    DUEL,
    KIND_INDIVIDUALS,
    PENDING,
    PHASE_INDIVIDUALS,
    POSITION_INDIVIDUALS,
    SUMMONING_TYPES,
    _zone_facts,
    action_facts,
    battle_facts,
    card_counts,
    card_ind,
    counter_declarations,
    iter_cards,
    link_facts,
    placed_card_facts,
    player_aggregates,
    player_ind,
    strongest_in_graveyards,
    typed_part,
)
from ygo_onto.cards import catalog
from ygo_onto.duel import new_duel, play_duel
from ygo_onto.state import PLAYERS, card_name_at, opponent


def _reference_abox(state: dict, transient: dict | None = None) -> tuple[list, dict]:
    """(facts, parts) as the reference builder gives them."""
    marks: list = []
    facts = _reference_facts(state, True, transient, marks)
    ends = [mark[1] for mark in marks[1:]] + [len(facts)]
    parts = {}
    for mark, end in zip(marks, ends):
        parts[mark[0]] = mark[2] if len(mark) == 3 else typed_part(tuple(facts[mark[1]:end]))
    return facts, parts


def _typed(facts) -> list:
    return [(f, tuple(map(type, f))) for f in facts]


_DUEL_PART = {"Duel", "currentPhase", "turnNumber", "duelOver", "chainLength", "hasPending", "turnStarted", "turnEnding",
              "damageStepChain", "phaseEndsTo"}


def _cut_as_now(parts: dict) -> dict:
    """The reference's parts as state_abox cuts them, so that a new state encodes small parts
    alone: the reference's part "duel" is two parts, "duel" (the phase, the turn and the like: new in most
    states) then "board" (the strongest monster in the Graveyards, the card counts, the attack, a die roll: new
    in few); its part ("player", p) is three, ("player", p) (the player, whose turn), ("priority", p) (it goes
    back and forth in most states) and ("side", p) (first player, opponent, life points, counts).  The facts and
    their order are the same."""
    out = {}
    for slot, part in parts.items():
        facts = part[0]
        if slot == "duel":
            cut = next(i for i, f in enumerate(facts) if f[0] not in _DUEL_PART)
            out["duel"], out["board"] = typed_part(facts[:cut]), typed_part(facts[cut:])
        elif slot[0] == "player":
            assert facts[0][0] == "Player" and facts[1][0] in ("TurnPlayer", "NonTurnPlayer")
            cut = 3 if facts[2][0] == "PriorityPlayer" else 2
            out[slot] = typed_part(facts[:2])
            out[("priority", slot[1])] = typed_part(facts[2:cut])
            out[("side", slot[1])] = typed_part(facts[cut:])
        else:
            out[slot] = part
    return out


def _same_as_reference(got: abox.ABox, state: dict, transient) -> None:
    facts, parts = _reference_abox(state, transient)
    parts = _cut_as_now(parts)
    assert _typed(got) == _typed(facts)
    assert got.parts is not None and list(got.parts) == list(parts)
    for slot, part in parts.items():
        assert got.parts[slot] == part and _typed(got.parts[slot][0]) == _typed(part[0]), slot


@pytest.mark.parametrize("ruleset,seed,cap", [("official", 1, None), ("official", 3, None), ("simplified", 1, None),
                                              ("simplified", 4, None), ("official", 5, 40)])
def test_state_abox_gives_the_facts_and_parts_of_the_code_before(monkeypatch, ruleset, seed, cap):
    """Every state_abox of a whole duel (state runs, transient facts included) equals the reference's; none falls
    back to state_facts; and a part equal to one of the previous ABox's is that same object (the fast backend
    finds it by id), unless a memo was cleared in between (`cap`: memos cleared every 40 entries)."""
    def no_fallback(*args, **kwargs):
        raise AssertionError("state_abox fell back to state_facts")

    monkeypatch.setattr(abox, "state_facts", no_fallback)
    monkeypatch.setattr(abox, "MEMO_CAP", cap or 100_000)
    real, seen, kinds = abox.state_abox, [], set()

    def checked(state, transient=None):
        got = real(state, transient)
        _same_as_reference(got, state, transient)
        before = seen[-1] if seen else {}
        for slot, part in got.parts.items():
            if slot in before and before[slot] == part and cap is None:
                assert before[slot] is part, slot
        seen.append(got.parts)
        kinds.update(transient or {})
        return got

    monkeypatch.setattr(game, "state_abox", checked)
    actions = sum(1 for _ in play_duel(new_duel(ruleset, seed), ("random", "random"), seed=seed))
    assert actions > 50 and len(seen) > actions
    assert "turn_started" in kinds


def _mid_duel_states(ruleset: str, seed: int, every: int) -> list[dict]:
    states, real = [], game.state_abox

    def keep(state, transient=None):
        if len(states) < 1000:
            states.append(copy.deepcopy(state))
        return real(state, transient)

    game.state_abox = keep
    try:
        for _ in play_duel(new_duel(ruleset, seed), ("random", "random"), seed=seed, max_actions=120):
            pass
    finally:
        game.state_abox = real
    return states[::every]


@pytest.mark.parametrize("ruleset", ["official", "simplified"])
def test_state_abox_with_every_kind_of_transient_fact_and_odd_values(ruleset):
    """The transient facts a duel rarely gives (a die roll, a resolving chain with negated links, an action), and
    values the memo must not confuse with equal ones of another type (True == 1, 1.0 == 1 as keys)."""
    states = _mid_duel_states(ruleset, 2, 7)
    for state in states:
        for transient in ({"die": {"result": 4, "card": ("A", "hand", 0)}}, {"resolving": True, "negated": {1}},
                          {"turn_started": True, "action": {"id": "pass", "type": "pass", "player": "A"}}):
            _same_as_reference(abox.state_abox(state, transient), state, transient)
    odd = copy.deepcopy(states[-1])
    placed = [(p, area, i) for p in PLAYERS for area in ("monster_zones", "spell_trap_zones")
              for i, fc in enumerate(odd["players"][p][area]) if fc is not None]
    assert placed
    for value in (1, True, 1.0, 0, False):
        for p, area, i in placed:
            fc = odd["players"][p][area][i]
            fc["atk_modifier"] = fc["attacks_declared"] = value
            fc["summoned_this_turn"] = fc["set_this_turn"] = bool(value) if value is not True else 1
        odd["turn"] = value
        odd["players"]["A"]["life_points"] = value
        _same_as_reference(abox.state_abox(odd), odd, None)


def test_state_abox_falls_back_where_a_key_cannot_be_read():
    """A value the memo cannot hash (not a fact the fast backend reads): the ABox is still state_facts' own."""
    state = _mid_duel_states("official", 2, 50)[-1]
    p, area, i = next((p, area, i) for p in PLAYERS for area in ("monster_zones", "spell_trap_zones")
                      for i, fc in enumerate(state["players"][p][area]) if fc is not None)
    state["players"][p][area][i]["atk_modifier"] = [1]
    facts, parts = _reference_abox(state)
    got = abox.state_abox(state)
    assert list(got) == facts and got.parts == _cut_as_now(parts)



def test_with_action_gives_the_abox_of_the_state_with_the_action():
    """with_action of a state's ABox (its list not built yet, or built) is state_abox with the action: the
    reference's facts and parts."""
    state = _mid_duel_states("official", 2, 50)[-1]
    action = {"id": "pass", "type": "pass", "player": "A"}
    for built in (False, True):
        base = abox.state_abox(state)
        if built:
            len(base)
        _same_as_reference(abox.with_action(base, action), state, {"action": action})
    changed = abox.state_abox(state)
    changed.append(("Duel", "another"))  # (a changed list drops its parts: with_action reads the list)
    got = abox.with_action(changed, action)
    assert list(got) == list(changed) + abox.action_facts(action)


def test_an_abox_built_when_first_used_is_its_list_for_every_reader():
    """state_abox builds its list when it is first used (the native evaluator reads the parts alone): every
    way of reading or changing it as a list sees the facts of its parts, in order."""
    import json
    import pickle

    state = _mid_duel_states("official", 2, 50)[-1]
    facts, parts = _reference_abox(state)
    parts = _cut_as_now(parts)
    readers = {
        "iter": lambda a: list(a) == facts, "tuple": lambda a: tuple(a) == tuple(facts),
        "len": lambda a: len(a) == len(facts), "bool": lambda a: bool(a),
        "index": lambda a: a[3] == facts[3] and a[2:9] == facts[2:9] and a.index(facts[5]) == 5,
        "in": lambda a: facts[-1] in a, "eq": lambda a: a == facts and facts == a and not a != facts,
        "list + abox": lambda a: [("X", "x")] + a == [("X", "x")] + facts,
        "abox + list": lambda a: a + [1] == facts + [1],
        "extend a list": lambda a: (lambda out: (out.extend(a), out)[1])([]) == facts,
        "repr": lambda a: repr(a) == repr(facts), "json": lambda a: json.loads(json.dumps(a)) == json.loads(json.dumps(facts)),
        "pickle": lambda a: (lambda b: b == facts and b.parts == parts)(pickle.loads(pickle.dumps(a))),
        "copy": lambda a: a.copy() == facts and copy.copy(a) == facts, "count": lambda a: a.count(facts[0]) == 1,
        "reversed": lambda a: list(reversed(a)) == facts[::-1],
        "append": lambda a: (a.append(1), a[-1] == 1 and a[:-1] == facts and a.parts is None)[1],
    }
    failed = [name for name, reads in readers.items() if not reads(abox.state_abox(state))]
    assert not failed
    got = abox.state_abox(state)
    assert got.parts == parts and len(got) == len(facts) and type(got) is abox.ABox  # (built: a plain ABox from now on)
    import threading

    for _ in range(20):  # (threads reading one ABox at once: each sees the whole list)
        got, seen = abox.state_abox(state), []
        readers = [threading.Thread(target=lambda: seen.append(list(got))) for _ in range(4)]
        for reader in readers:
            reader.start()
        for reader in readers:
            reader.join()
        assert seen == [facts] * 4


# -- state_facts as at commit 4b147c2 (abox.py), the reference builder

def _reference_facts(state: dict, lean: bool = True, transient: dict | None = None, marks: list | None = None) -> list[tuple]:
    """The ABox of a state (plus the transient facts of an apply step: theAction, a new turn, a resolving chain).

    The action's facts come last: with transient {"action": a} the ABox is the state's own and
    action_facts(a) (game.run_reasoner relies on it).  `marks`, if given, gets (part, index of its
    first fact) for each part of the list (see ABox)."""
    cat = catalog(state["ruleset"])
    counters = counter_declarations(state["ruleset"])  # the ontology's counters (ygo:counterKey), once per state
    transient = transient or {}
    facts: list[tuple] = []
    add = facts.append
    if marks is None:
        def mark(part):
            pass
    else:
        def mark(part):
            marks.append((part, len(facts)))
    mark("duel")
    add(("Duel", DUEL))
    add(("currentPhase", DUEL, PHASE_INDIVIDUALS[state["phase"]]))
    add(("turnNumber", DUEL, state["turn"]))
    add(("duelOver", DUEL, state["winner"] is not None))
    add(("chainLength", DUEL, len(state["chain"])))
    add(("hasPending", DUEL, state["pending"] is not None))
    add(("turnStarted", DUEL, bool(transient.get("turn_started"))))
    phase_end = state.get("extra", {}).get("phase_end")  # rulebook p. 38: the opponent's window at a phase end
    add(("turnEnding", DUEL, phase_end == "turn"))
    # rulebook p. 32: a chain built in the Damage Step after damage calculation (a FLIP effect of an attacked monster)
    add(("damageStepChain", DUEL, bool(state.get("extra", {}).get("damage_step_chain"))))
    if phase_end in PHASE_INDIVIDUALS:
        add(("phaseEndsTo", DUEL, PHASE_INDIVIDUALS[phase_end]))
    strongest = strongest_in_graveyards(state, cat)
    if strongest is not None:
        add(("strongestInGraveyards", DUEL, card_ind(*strongest)))
    die = transient.get("die")
    if die:
        add(("dieResult", DUEL, die["result"]))
        add(("dieRolledFor", DUEL, card_ind(*die["card"])))
    facts.extend(card_counts(state, cat))
    facts.extend(battle_facts(state))
    for p in PLAYERS:
        side = state["players"][p]
        me = player_ind(p)
        mark(("player", p))
        add(("Player", me))
        add(("TurnPlayer" if state["turn_player"] == p else "NonTurnPlayer", me))
        if state["priority"] == p:
            add(("PriorityPlayer", me))
        if state["first_player"] == p:
            add(("FirstPlayer", me))
        add(("opponentOf", me, player_ind(opponent(p))))
        add(("lifePoints", me, side["life_points"]))
        add(("normalSummonsLeft", me, 0 if side["normal_summon_used"] else 1))
        # closure facts: counts kept by the driver
        add(("monsterCount", me, sum(1 for z in side["monster_zones"] if z is not None)))
        add(("handCount", me, len(side["hand"])))
        add(("deckCount", me, len(side["deck"])))
        for name, value in player_aggregates(state, p, cat).items():
            add((name, me, value))
        mark(("zones", p))
        _zone_facts(add, state, side, p, me)
    pending = state["pending"]
    chosen = {(r["player"], r["area"], r["index"]) for r in pending["chosen"]} if pending else set()
    list_parts: dict = {}  # (the reference builds every part anew)
    if len(list_parts) > 50_000:
        list_parts.clear()
    for p, area, i, name, fc in iter_cards(state, lean):
        if fc is None:  # a card in a list area (hand, Graveyard, ...): its facts depend on these alone
            here = (p, area, i)
            key = (name, p, area, i, here in chosen, area == "graveyard" and
                   name in state.get("extra", {}).get("properly_summoned", {}).get(p, ()))
            got = list_parts.get(key)
            if got is None:
                card, c, placed = placed_card_facts(cat, name, p, area, i, p)
                part = (*placed, ("chosenForPending", c, key[4]))
                if area == "graveyard" and card.special_summon_only:  # rulebook p. 15: revived only if properly summoned before
                    part += (("properlySummoned", c, key[5]),)
                got = list_parts[key] = typed_part(part)
            if marks is not None:
                marks.append((here, len(facts), got))
            facts.extend(got[0])
            continue
        mark((p, area, i))
        card, c, placed = placed_card_facts(cat, name, p, area, i, fc["owner"] if fc else p)
        facts.extend(placed)
        add(("chosenForPending", c, (p, area, i) in chosen))
        if area == "graveyard" and card.special_summon_only:  # rulebook p. 15: revived only if properly summoned before
            add(("properlySummoned", c, name in state.get("extra", {}).get("properly_summoned", {}).get(p, ())))
        if fc is not None:
            pos = POSITION_INDIVIDUALS[fc["position"]]
            add(("monsterPosition" if card.is_monster else "spellTrapPosition", c, pos))
            add(("atkModifier", c, fc["atk_modifier"]))
            add(("defModifier", c, fc["def_modifier"]))
            for prop, key in counters:
                add((prop, c, fc["counters"].get(key, 0)))
            if card.is_monster:
                add(("summonedThisTurn", c, fc["summoned_this_turn"]))
                add(("positionChangedThisTurn", c, fc["position_changed_this_turn"]))
                add(("attacksDeclared", c, fc["attacks_declared"]))
                add(("summonedAs", c, fc["summoned_by"] + "Summon"))
                add(("justFlipped", c, bool(fc["extra"].get("flipped"))))
                add(("effectDeclined", c, bool(fc["extra"].get("effect_declined"))))
                add(("replayRight", c, bool(fc["extra"].get("replay"))))
                add(("controlReturnsAtEnd", c, bool(fc["extra"].get("control_until_end"))))
                add(("controlUntilEndGiven", c, "control_until_end" in fc["extra"]))
                if fc["extra"].get("just_summoned"):
                    add(("justSummonedBy", c, fc["extra"]["just_summoned"] + "Summon"))
            else:
                add(("setThisTurn", c, fc["set_this_turn"]))
                eq = fc["equipped_to"]
                if eq is not None:
                    target = state["players"][eq["player"]]["monster_zones"][eq["zone"]]
                    if target is not None:
                        add(("equippedTo", c, card_ind(eq["player"], "monster_zones", eq["zone"])))
                    add(("equipTargetGone", c, target is None))
                elif fc["extra"].get("equip_target_gone"):  # its monster left the field (primitives.Step.finish)
                    add(("equipTargetGone", c, True))
                add(("turnsCounterGiven", c, "turns" in fc["counters"]))
                if "turns" in fc["counters"]:
                    add(("swordsTurnsLeft", c, fc["counters"]["turns"]))
    mark("pending")
    if pending:
        action = pending["action"]
        add(("PendingAction", PENDING))
        add(("pendingKind", PENDING, KIND_INDIVIDUALS[action["type"]]))
        if "from" in action:
            ref = action["from"]
            add(("pendingActor", PENDING, card_ind(ref["player"], ref["area"], ref["index"])))
        add(("pendingPlayer", PENDING, player_ind(action.get("player", state["turn_player"]))))
        add(("purpose", PENDING, pending["purpose"] + "Purpose"))
        if action["type"] in SUMMONING_TYPES:
            add(("summonPosition", PENDING, POSITION_INDIVIDUALS[action.get("to", "attack")]))
        add(("selectionsNeeded", PENDING, pending["needed"]))
        add(("selectionsMade", PENDING, len(pending["chosen"])))
        chosen_names = [n for n in (card_name_at(state, r) for r in pending["chosen"]) if n]
        add(("selectedLevelTotal", PENDING, sum(cat.get(n).level or 0 for n in chosen_names)))
        if pending["chosen"]:  # the selection order counts (a Ritual Spell's first choice is its Ritual Monster), as a link's targets do
            first = pending["chosen"][0]
            add(("pendingFirstChosen", PENDING, card_ind(first["player"], first["area"], first["index"])))
    for i, link in enumerate(state["chain"], 1):
        mark(("link", i))
        facts.extend(link_facts(state, i, link, transient))
    action = transient.get("action")
    if action:
        mark("action")
        facts.extend(action_facts(action))
    return facts

