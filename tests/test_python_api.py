"""The Python API of the contract (actions-and-cli.md, "Python API"; state-format.md), checked as a
student in a notebook or an AI author would use it: the tests follow the contract's words, not the code.

    state = GameState.load("state.json")            # or GameState.from_dict(d); bad input raises StateError (a ValueError)
    actions = state.allowed_actions(reasoner="fast") # list of Action; one reasoner run per state, cached
    state2 = state.apply(actions[0])                 # a new state at the next decision point; the old one is unchanged
    state2.to_dict()                                 # the JSON object of state-format.md
"""
import copy
import json

import pytest

import ygo_onto
from ygo_onto import GameState

# The keys each action type carries besides id, type and player (actions-and-cli.md, the table).
TYPE_KEYS = {
    "normal_summon": {"card", "from"},
    "tribute_summon": {"card", "from"},
    "set_monster": {"card", "from"},
    "flip_summon": {"card", "from"},
    "change_position": {"card", "from", "to"},
    "special_summon": {"card", "from"},
    "synchro_summon": {"card", "from"},
    "activate": {"card", "from"},
    "set_spell_trap": {"card", "from"},
    "attack": {"card", "from", "target", "target_ref"},
    "direct_attack": {"card", "from"},
    "select": {"card", "ref", "purpose"},
    "declare": {"level"},
    "cancel": set(),
    "pass": set(),
    "next_phase": {"to"},
    "end_turn": set(),
}
AREAS = {"hand", "deck", "graveyard", "banished", "extra_deck", "monster_zones", "spell_trap_zones",
         "field_zone"}


def small_state():
    """A Main Phase 1 a student would write by hand: a Level 4 to summon, a Level 7 without enough
    tributes, a spell, a monster on each side, a face-down trap for B."""
    return {
        "format": "ygo-onto.state/1",
        "turn": 3, "turn_player": "A", "phase": "main1",
        "players": {
            "A": {
                "deck": ["Dark Magician", "Pot of Greed"],
                "hand": ["Celtic Guardian", "Dark Magician", "Raigeki"],
                "monster_zones": [{"card": "Curse of Dragon", "position": "attack"}, None, None, None, None],
            },
            "B": {
                "life_points": 6500,
                "deck": ["Blue-Eyes White Dragon"],
                "monster_zones": [{"card": "Celtic Guardian"}, None, None, None, None],
                "spell_trap_zones": [{"card": "Magic Jammer", "position": "face_down"}, None, None, None, None],
            },
        },
    }


def as_dict(action):
    """The JSON object of an Action (the contract gives it as a JSON object with these keys)."""
    d = action.to_dict()
    assert isinstance(d, dict)
    return d


@pytest.fixture(scope="module")
def state():
    return GameState.from_dict(small_state())


@pytest.fixture(scope="module")
def actions(state):
    return state.allowed_actions(reasoner="fast")


def find(actions, type_, card=None):
    for a in actions:
        d = as_dict(a)
        if d["type"] == type_ and (card is None or d.get("card") == card):
            return a
    raise AssertionError(f"no {type_} {card or ''} among {[as_dict(a) for a in actions]}")


# ---- loading -------------------------------------------------------------------------------------

def test_errors_are_importable_from_the_package_and_are_value_errors():
    assert issubclass(ygo_onto.StateError, ValueError)
    assert issubclass(ygo_onto.IllegalActionError, ValueError)


def test_load_reads_a_file_and_from_dict_a_dict(tmp_path, state):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(small_state()))
    loaded = GameState.load(str(path))
    assert loaded.to_dict() == state.to_dict()
    assert GameState.load(path).to_dict() == state.to_dict()  # a pathlib.Path too


def test_a_minimal_hand_written_state_loads_with_the_defaults():
    d = GameState.from_dict({"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}}).to_dict()
    assert d["ruleset"] == "official" and d["turn"] == 1 and d["turn_player"] == "A"
    assert d["phase"] == "main1" and d["chain"] == [] and d["pending"] is None and d["winner"] is None
    assert d["players"]["A"]["life_points"] == 8000
    assert d["players"]["B"]["monster_zones"] == [None] * 5


def bad(mutate):
    d = small_state()
    mutate(d)
    with pytest.raises(ygo_onto.StateError) as info:
        GameState.from_dict(d)
    assert isinstance(info.value, ValueError)
    return str(info.value)


@pytest.mark.parametrize("mutate, named", [
    (lambda d: d.pop("format"), "format"),
    (lambda d: d.__setitem__("format", "ygo-onto.state/9"), "format"),
    (lambda d: d.__setitem__("phase", "main3"), "phase"),
    (lambda d: d.__setitem__("turn", 0), "turn"),
    (lambda d: d.__setitem__("turn_player", "C"), "turn_player"),
    (lambda d: d.__setitem__("ruleset", "speed"), "ruleset"),
    (lambda d: d.__setitem__("pahse", "main1"), "pahse"),
    (lambda d: d.pop("players"), "players"),
    (lambda d: d["players"].pop("B"), "B"),
    (lambda d: d["players"]["A"].__setitem__("life_points", "8000"), "life_points"),
    (lambda d: d["players"]["A"].__setitem__("monster_zones", [None] * 4), "monster_zones"),
    (lambda d: d["players"]["A"]["monster_zones"][0].__setitem__("position", "sideways"), "position"),
    (lambda d: d["players"]["A"]["monster_zones"][0].__setitem__("atk", 100), "atk"),
    (lambda d: d["players"]["A"].__setitem__("hand", "Raigeki"), "hand"),
])
def test_bad_input_raises_state_error_naming_the_field(mutate, named):
    assert named in bad(mutate)


def test_an_unknown_card_name_is_named_with_the_closest_names():
    message = bad(lambda d: d["players"]["A"]["hand"].append("Dark Magican"))
    assert "Dark Magican" in message and "Dark Magician" in message


def test_load_of_a_missing_file_or_not_json_raises_state_error_naming_the_file(tmp_path):
    path = tmp_path / "broken.json"
    path.write_text("{not json")
    with pytest.raises(ygo_onto.StateError) as info:
        GameState.load(str(path))
    assert "broken.json" in str(info.value)
    with pytest.raises(ygo_onto.StateError) as info:
        GameState.load(str(tmp_path / "missing.json"))
    assert "missing.json" in str(info.value)


def test_from_dict_does_not_keep_a_reference_to_the_callers_dict():
    d = small_state()
    s = GameState.from_dict(d)
    before = s.to_dict()
    d["players"]["A"]["hand"].append("Pot of Greed")
    d["players"]["A"]["monster_zones"][0]["position"] = "defense"
    d["phase"] = "battle"
    assert s.to_dict() == before


# ---- allowed actions -----------------------------------------------------------------------------

def test_allowed_actions_are_action_objects_with_the_keys_of_their_type(actions):
    assert isinstance(actions, list) and actions
    ids = [a.id for a in actions]
    assert len(set(ids)) == len(ids), ids
    for a in actions:
        d = as_dict(a)
        assert isinstance(a, ygo_onto.Action)
        assert a.id == d["id"] and isinstance(d["id"], str)
        assert a.type == d["type"] and d["type"] in TYPE_KEYS, d
        assert a.player == d["player"] == "A", d
        missing = TYPE_KEYS[d["type"]] - set(d)
        assert not missing, (d, missing)
        for key in ("from", "target_ref", "ref"):
            if key in d:
                ref = d[key]
                assert set(ref) >= {"player", "area", "index"}, d
                assert ref["area"] in AREAS and isinstance(ref["index"], int), d
        json.dumps(d)  # a JSON object
        assert dict(a) == d and set(a) == set(d) and all(k in a for k in d) and "nothing" not in a


def test_the_actions_of_a_small_main_phase(actions):
    kinds = {(as_dict(a)["type"], as_dict(a).get("card")) for a in actions}
    assert ("normal_summon", "Celtic Guardian") in kinds
    assert ("set_monster", "Celtic Guardian") in kinds
    assert ("activate", "Raigeki") in kinds
    assert ("set_spell_trap", "Raigeki") in kinds
    # Dark Magician (Level 7) needs two tributes; A has one monster.
    assert ("tribute_summon", "Dark Magician") not in kinds
    assert not any(t in ("attack", "direct_attack") for t, _ in kinds)  # not in Main Phase 1
    assert any(as_dict(a)["type"] == "next_phase" and as_dict(a)["to"] == "battle" for a in actions)
    assert ("end_turn", None) in kinds
    summon = as_dict(find(actions, "normal_summon", "Celtic Guardian"))
    assert summon["from"] == {"player": "A", "area": "hand", "index": 0}


def test_one_reasoner_run_per_state_cached(monkeypatch):
    import ygo_onto.game as game
    runs = []
    real = game.run_reasoner
    monkeypatch.setattr(game, "run_reasoner", lambda *a, **k: runs.append(1) or real(*a, **k))
    fresh = GameState.from_dict(small_state())
    first = fresh.allowed_actions(reasoner="fast")
    assert len(runs) == 1
    second = fresh.allowed_actions(reasoner="fast")
    fresh.infer("fast")
    assert len(runs) == 1  # cached
    assert [as_dict(a) for a in second] == [as_dict(a) for a in first]
    # a state apply returns knows its own allowed actions already when it computed them
    after = fresh.apply(first[0])
    n = len(runs)
    after.allowed_actions(reasoner="fast")
    after.allowed_actions(reasoner="fast")
    assert len(runs) <= n + 1


def test_changing_the_returned_list_does_not_change_the_cache(state):
    fresh = GameState.from_dict(small_state())
    first = fresh.allowed_actions(reasoner="fast")
    n = len(first)
    first.clear()
    assert len(fresh.allowed_actions(reasoner="fast")) == n


def test_an_unknown_reasoner_is_a_value_error_naming_it(state):
    with pytest.raises(ValueError) as info:
        GameState.from_dict(small_state()).allowed_actions(reasoner="hermite")
    assert "hermite" in str(info.value)


# ---- apply ---------------------------------------------------------------------------------------

def test_apply_an_action_gives_a_new_state_and_leaves_the_old_unchanged(state, actions):
    before = copy.deepcopy(state.to_dict())
    summon = find(actions, "normal_summon", "Celtic Guardian")
    after = state.apply(summon)
    assert isinstance(after, GameState) and after is not state
    assert state.to_dict() == before
    d = after.to_dict()
    assert d["players"]["A"]["hand"] == ["Dark Magician", "Raigeki"]
    zones = [z["card"] if z else None for z in d["players"]["A"]["monster_zones"]]
    assert "Celtic Guardian" in zones and "Curse of Dragon" in zones
    assert d["players"]["A"]["normal_summon_used"] is True
    # the old state still answers as before, its cached facts included (apply goes on from them)
    assert [a.id for a in state.allowed_actions(reasoner="fast")] == [a.id for a in actions]
    for other in actions:
        state.apply(other)
    assert set(state.infer("fast").facts) == set(GameState.from_dict(small_state()).infer("fast").facts)


def test_mutating_to_dict_changes_neither_state(state, actions):
    before = copy.deepcopy(state.to_dict())
    after = state.apply(find(actions, "normal_summon", "Celtic Guardian"))
    after_before = copy.deepcopy(after.to_dict())
    for s in (state, after):
        d = s.to_dict()
        d["phase"] = "end"
        d["players"]["A"]["hand"].append("Pot of Greed")
        d["players"]["A"]["monster_zones"][0]["position"] = "defense"
        d["players"]["B"]["spell_trap_zones"][0]["counters"]["x"] = 1
        d["players"]["B"]["deck"].clear()
    assert state.to_dict() == before
    assert after.to_dict() == after_before


def test_apply_by_id_and_by_partial_dict_give_the_same_state(state, actions):
    summon = find(actions, "normal_summon", "Celtic Guardian")
    by_action = state.apply(summon).to_dict()
    assert state.apply(summon.id).to_dict() == by_action
    assert state.apply(as_dict(summon)).to_dict() == by_action
    assert state.apply({"type": "normal_summon", "card": "Celtic Guardian"}).to_dict() == by_action


def test_apply_to_the_next_decision_point(state, actions):
    # Raigeki: B has a face-down trap, so after activation B may respond (a decision point for B)
    # or, once the chain resolves, B's monster is destroyed.
    after = state.apply(find(actions, "activate", "Raigeki"))
    d = after.to_dict()
    assert d["priority"] in ("A", "B")
    if d["chain"]:
        assert d["priority"] == "B"
        assert {as_dict(a)["player"] for a in after.allowed_actions(reasoner="fast")} == {"B"}
    else:
        assert d["players"]["B"]["monster_zones"][0] is None


def test_a_tribute_summon_through_its_selections():
    d = small_state()
    d["players"]["A"]["monster_zones"][1] = {"card": "Celtic Guardian", "position": "defense"}
    s = GameState.from_dict(d)
    building = s.apply({"type": "tribute_summon", "card": "Dark Magician"})
    pending = building.to_dict()["pending"]
    assert pending["purpose"] == "tribute" and pending["needed"] == 2 and pending["chosen"] == []
    choices = building.allowed_actions(reasoner="fast")
    assert {a.type for a in choices} == {"select", "cancel"}
    assert all(a.get("purpose") == "tribute" and a.get("ref")["area"] == "monster_zones"
               for a in choices if a.type == "select")
    assert building.apply("cancel").to_dict() == s.to_dict()
    one = building.apply(find(choices, "select", "Curse of Dragon"))
    done = one.apply({"type": "select", "card": "Celtic Guardian"}).to_dict()
    assert done["pending"] is None
    assert [z and z["card"] for z in done["players"]["A"]["monster_zones"]] == ["Dark Magician", None, None, None, None]
    assert sorted(done["players"]["A"]["graveyard"]) == ["Celtic Guardian", "Curse of Dragon"]
    assert done["players"]["A"]["monster_zones"][0]["summoned_by"] == "tribute"


def test_to_dict_round_trips_through_from_dict(state, actions):
    for s in (state, state.apply(find(actions, "normal_summon", "Celtic Guardian")),
              state.apply(find(actions, "activate", "Raigeki"))):
        d = s.to_dict()
        again = GameState.from_dict(d)
        assert again.to_dict() == d
        assert json.loads(json.dumps(d)) == d
        assert [a.id for a in again.allowed_actions(reasoner="fast")] == \
            [a.id for a in s.allowed_actions(reasoner="fast")]


def test_an_illegal_action_raises_illegal_action_error_saying_why(state):
    with pytest.raises(ygo_onto.IllegalActionError) as info:
        state.apply({"type": "normal_summon", "card": "Dark Magician"})
    assert isinstance(info.value, ValueError)
    message = str(info.value)
    assert "Dark Magician" in message and len(message) > 20
    with pytest.raises(ygo_onto.IllegalActionError) as info:
        state.apply({"type": "attack", "card": "Curse of Dragon", "target": "Celtic Guardian"})
    message = str(info.value)
    # the reason is the attack rule (p. 27) and the phase, not only the Replay rule (p. 28) that fails
    # at the same condition
    assert "Battle Phase" in message and "p. 27" in message
    assert message.index("p. 27") < message.index("Replay") if "Replay" in message else True


def test_an_id_that_is_not_allowed_raises_illegal_action_error_naming_it(state):
    with pytest.raises(ygo_onto.IllegalActionError) as info:
        state.apply("normal_summon@A.hand1")  # Dark Magician: Level 7
    assert "normal_summon@A.hand1" in str(info.value) and "4" in str(info.value)
    # text that is not an action id at all is bad input (docs/decisions.md "Action ids"): still a
    # ValueError naming it
    with pytest.raises(ValueError) as info:
        state.apply("no-such-action")
    assert "no-such-action" in str(info.value)


def test_an_action_of_another_state_is_checked_against_this_state(state, actions):
    summon = find(actions, "normal_summon", "Celtic Guardian")
    after = state.apply(summon)
    with pytest.raises(ygo_onto.IllegalActionError):
        after.apply(summon)  # the Normal Summon of this turn is spent, the card is no longer in hand


def test_a_failed_apply_leaves_the_state_unchanged(state):
    before = copy.deepcopy(state.to_dict())
    with pytest.raises(ygo_onto.IllegalActionError):
        state.apply({"type": "normal_summon", "card": "Dark Magician"})
    assert state.to_dict() == before


# ---- the reference reasoner ----------------------------------------------------------------------

@pytest.mark.pellet
def test_pellet_gives_the_same_action_ids_as_fast():
    s = GameState.from_dict(small_state())
    fast = sorted(a.id for a in s.allowed_actions(reasoner="fast"))
    pellet = sorted(a.id for a in GameState.from_dict(small_state()).allowed_actions(reasoner="pellet"))
    assert pellet == fast


def test_an_actions_to_dict_is_a_new_object_each_time(actions):
    """Action.to_dict decodes once and hands out copies: changing one (a nested reference too) changes
    neither the action nor the next to_dict."""
    for action in actions:
        first = action.to_dict()
        expected = copy.deepcopy(first)
        for value in first.values():
            if isinstance(value, dict):
                value["index"] = 99
        first["type"] = "changed"
        assert action.to_dict() == expected and action.to_dict() is not action.to_dict()
        assert action.type == expected["type"]


def test_action_values_are_written_as_json_dumps_writes_them():
    from ygo_onto.actions import _json

    for value in ({"player": "A", "area": "hand", "index": 2}, {}, {"b": {"x": [1, 2.5, None]}, "a": "é\n\"", "c": True},
                  {"z": 1.0, "y": float("inf")}, [1, {"b": 1, "a": 2}], "ü", 3, -0, True, None, 2.5, {1: "int key"}):
        assert _json(value) == json.dumps(value, sort_keys=True)


def test_allowed_actions_come_in_one_order_whatever_the_order_of_the_facts():
    """allowed_from_facts sorts the actions (their kind and card's place, then their id where those tie), so the order
    of the facts (reasoning.named promises none; a set's changes with the hash seed between processes) changes
    nothing: the same list for the facts in any order."""
    import random

    from ygo_onto.actions import allowed_from_facts
    from ygo_onto.bench import bench_states
    from ygo_onto.knowledge import knowledge

    states, _ = bench_states()
    sizes = []
    for data in states.values():
        state = GameState.from_dict(data)
        expected = state.allowed_actions("fast")
        facts = sorted(state.infer("fast").facts, key=repr)
        vocabulary = knowledge(state.ruleset).vocabulary
        for order in range(4):
            random.Random(order).shuffle(facts)
            assert allowed_from_facts(facts, vocabulary, state.data) == expected
        sizes.append(len(expected))
    assert max(sizes) > 5  # (states with many allowed actions among them)
