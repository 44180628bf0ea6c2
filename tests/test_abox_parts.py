"""state_abox's memoized parts against the same states' ABoxes built with every memo empty (each part made
from the state alone): the same facts (with the types of their values) and the same parts, on every state of
whole duels of both rulesets, with the transient facts those duels give, so a memo's key holds all that its
part is made of.  A part equal to the previous state's is that same object (the fast backend finds it by id)."""
import copy

import pytest

from ygo_onto import abox, game
from ygo_onto.duel import new_duel, play_duel
from ygo_onto.state import PLAYERS

_MODULE_MEMOS = ("_ZONE_PARTS", "_INTERNED", "_SEEN_FACTS", "_SEEN_TYPES", "_SLOTS")
_CATALOG_MEMOS = ("_abox_memo", "_list_card_parts", "_placed_facts", "_list_names")


def _cold(state: dict, transient: dict | None = None) -> tuple[list, dict]:
    """(facts, parts) of the state's ABox built with every memo empty, the memos then put back as they were."""
    cat = abox._catalog(state["ruleset"])
    saved_cat = {name: cat.__dict__.pop(name) for name in _CATALOG_MEMOS if name in cat.__dict__}
    saved = {name: getattr(abox, name) for name in _MODULE_MEMOS}
    for name in _MODULE_MEMOS:
        setattr(abox, name, {})
    try:
        got = abox.state_abox(state, transient)
        return list(got), got.parts
    finally:
        for name in _CATALOG_MEMOS:
            cat.__dict__.pop(name, None)
        cat.__dict__.update(saved_cat)
        for name, memo in saved.items():
            setattr(abox, name, memo)


def _typed(facts) -> list:
    return [(f, tuple(map(type, f))) for f in facts]


def _same_as_cold(got: abox.ABox, state: dict, transient) -> None:
    facts, parts = _cold(state, transient)
    assert _typed(got) == _typed(facts)
    assert got.parts is not None and list(got.parts) == list(parts)
    for slot, part in parts.items():
        assert got.parts[slot] == part and _typed(got.parts[slot][0]) == _typed(part[0]), slot


@pytest.mark.parametrize("ruleset,seed,cap", [("official", 1, None), ("official", 3, None), ("simplified", 1, None),
                                              ("simplified", 4, None), ("official", 5, 40)])
def test_state_abox_gives_the_facts_and_parts_built_without_memos(monkeypatch, ruleset, seed, cap):
    """Every state_abox of a whole duel (state runs, transient facts included) equals the ABox built with every
    memo empty; a part equal to one of the previous ABox's is that same object, unless a memo was cleared in
    between (`cap`: memos cleared every 40 entries)."""
    monkeypatch.setattr(abox, "MEMO_CAP", cap or 100_000)
    real, seen, kinds = abox.state_abox, [], set()

    def checked(state, transient=None):
        got = real(state, transient)
        _same_as_cold(got, state, transient)
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
    """The transient facts a duel rarely gives (a die roll, a resolving chain, an action), and
    values the memo must not confuse with equal ones of another type (True == 1, 1.0 == 1 as keys)."""
    states = _mid_duel_states(ruleset, 2, 7)
    for state in states:
        for transient in ({"die": {"result": 4, "card": ("A", "hand", 0)}}, {"resolving": True},
                          {"turn_started": True, "action": {"id": "pass", "type": "pass", "player": "A"}}):
            _same_as_cold(abox.state_abox(state, transient), state, transient)
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
        _same_as_cold(abox.state_abox(odd), odd, None)


def test_a_value_a_memo_cannot_hash_gives_its_part_unmemoized():
    """A value no valid state holds, that a memo's key cannot hash: the ABox is still built (that part each time)."""
    state = _mid_duel_states("official", 2, 50)[-1]
    p, area, i = next((p, area, i) for p in PLAYERS for area in ("monster_zones", "spell_trap_zones")
                      for i, fc in enumerate(state["players"][p][area]) if fc is not None)
    state["players"][p][area][i]["atk_modifier"] = [1]
    facts, parts = _cold(state)
    got = abox.state_abox(state)
    assert list(got) == facts and got.parts == parts
    assert ("atkModifier", abox.card_ind(p, area, i), [1]) in facts


def test_with_action_gives_the_abox_of_the_state_with_the_action():
    """with_action of a state's ABox (its list not built yet, or built) is state_abox with the action: the
    facts and parts built without memos."""
    state = _mid_duel_states("official", 2, 50)[-1]
    action = {"id": "pass", "type": "pass", "player": "A"}
    for built in (False, True):
        base = abox.state_abox(state)
        if built:
            len(base)
        _same_as_cold(abox.with_action(base, action, state), state, {"action": action})
    changed = abox.state_abox(state)
    changed.append(("Duel", "another"))  # (a changed list drops its parts: with_action reads the list)
    got = abox.with_action(changed, action, state)
    assert list(got) == list(changed) + abox.action_facts(action, state)


def test_an_abox_built_when_first_used_is_its_list_for_every_reader():
    """state_abox builds its list when it is first used (the native evaluator reads the parts alone): every
    way of reading or changing it as a list sees the facts of its parts, in order."""
    import json
    import pickle

    state = _mid_duel_states("official", 2, 50)[-1]
    facts, parts = _cold(state)
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
