"""The state format: defaults, round trip through the ABox, and every kind of bad input."""
import json

import pytest
from typer.testing import CliRunner

from ygo_onto import GameState, StateError
from ygo_onto.abox import facts_to_state, state_facts
from ygo_onto.cli import app
from ygo_onto.knowledge import knowledge

MIN = {"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}}
EXAMPLE = "examples/main1-tribute.json"


def test_minimal_state_gets_every_default():
    d = GameState.from_dict(MIN).to_dict()
    assert d["ruleset"] == "official" and d["turn"] == 1 and d["phase"] == "main1"
    assert d["priority"] == "A" and d["chain"] == [] and d["pending"] is None and d["winner"] is None
    assert d["players"]["B"]["life_points"] == 8000
    assert d["players"]["A"]["monster_zones"] == [None] * 5


def test_field_card_defaults_follow_the_card_kind():
    raw = json.loads(json.dumps(MIN))
    raw["players"]["A"]["monster_zones"] = [{"card": "Dark Magician"}, None, None, None, None]
    raw["players"]["A"]["spell_trap_zones"] = [{"card": "Trap Hole"}, None, None, None, None]
    d = GameState.from_dict(raw).to_dict()["players"]["A"]
    assert d["monster_zones"][0]["position"] == "attack" and d["monster_zones"][0]["owner"] == "A"
    assert d["spell_trap_zones"][0]["position"] == "face_up"


def test_names_match_without_case_and_by_alias():
    raw = json.loads(json.dumps(MIN))
    raw["players"]["A"]["hand"] = ["curse Of dragon", "Red-Eyes B. Dragon"]
    assert GameState.from_dict(raw).to_dict()["players"]["A"]["hand"] == ["Curse of Dragon", "Red-Eyes Black Dragon"]


@pytest.mark.parametrize("ruleset", ["official", "simplified"])
def test_state_round_trips_through_its_individuals(ruleset):
    """Reading the full ABox back gives the same JSON (state-format.md: the JSON twin of the ABox)."""
    if ruleset == "official":
        state = GameState.load(EXAMPLE).to_dict()
        state["players"]["A"]["graveyard"] = ["Feral Imp", "Pot of Greed"]
        state["players"]["B"]["monster_zones"][3] = {"card": "Man-Eater Bug", "position": "face_down_defense",
                                                      "summoned_this_turn": True, "summoned_by": "set", "owner": "A"}
        state["players"]["A"]["extra_deck"] = ["Junk Warrior"]
    else:
        state = GameState.from_dict({**MIN, "ruleset": "simplified", "turn": 4, "turn_player": "B",
                                     "players": {"A": {"hand": ["Kuriboh"], "deck": ["Cosmo Queen", "Raigeki"]},
                                                 "B": {"life_points": 100, "normal_summon_used": True,
                                                       "monster_zones": [None, {"card": "Kuriboh", "attacks_declared": 1}, None, None, None]}}}).to_dict()
    state = GameState.from_dict(state).to_dict()
    facts = state_facts(state, lean=False)
    back = facts_to_state(facts, knowledge(ruleset).vocabulary, ruleset, state)
    assert GameState.from_dict(back).to_dict() == state


def test_file_round_trip(tmp_path):
    s = GameState.load(EXAMPLE)
    p = tmp_path / "s.json"
    p.write_text(s.to_json())
    assert GameState.load(p).to_dict() == s.to_dict()


BAD = [
    ({"players": {"A": {}, "B": {}}}, "format"),
    ({**MIN, "format": "ygo-onto.state/2"}, "format"),
    ({**MIN, "colour": "red"}, "colour"),
    ({**MIN, "ruleset": "speed"}, "ruleset"),
    ({**MIN, "turn": 0}, "turn"),
    ({**MIN, "phase": "main3"}, "phase"),
    ({**MIN, "ruleset": "simplified", "phase": "draw"}, "phase"),
    ({**MIN, "players": {"A": {}}}, "players.B"),
    ({**MIN, "players": {"A": {"hand": ["Blue Eyes White Dragon"]}, "B": {}}}, "Blue-Eyes White Dragon"),
    ({**MIN, "players": {"A": {"lifepoints": 10}, "B": {}}}, "players.A.lifepoints"),
    ({**MIN, "players": {"A": {"monster_zones": [None, None]}, "B": {}}}, "exactly 5"),
    ({**MIN, "players": {"A": {"monster_zones": None}, "B": {}}}, "players.A.monster_zones"),
    ({**MIN, "players": {"A": {"spell_trap_zones": None}, "B": {}}}, "players.A.spell_trap_zones"),
    ({**MIN, "players": {"A": {"monster_zones": [{"card": "Dark Hole"}, None, None, None, None]}, "B": {}}}, "a monster"),
    ({**MIN, "players": {"A": {"spell_trap_zones": [{"card": "Dark Magician"}, None, None, None, None]}, "B": {}}}, "Spell or Trap"),
    ({**MIN, "players": {"A": {"monster_zones": [{"card": "Dark Magician", "position": "face_up"}, None, None, None, None]}, "B": {}}}, "position"),
    ({**MIN, "players": {"A": {"hand": ["Gaia the Dragon Champion"]}, "B": {}}}, "extra_deck"),
    ({**MIN, "players": {"A": {"extra_deck": ["Dark Magician"]}, "B": {}}}, "Fusion or Synchro"),
    ({**MIN, "players": {"A": {"monster_zones": [{"card": "Dark Magician", "spin": 1}, None, None, None, None]}, "B": {}}}, "spin"),
    ({**MIN, "players": {"A": {"life_points": "8000"}, "B": {}}}, "life_points"),
    ({**MIN, "ruleset": "simplified", "players": {"A": {"hand": ["Mirror Force"]}, "B": {}}}, "simplified catalog"),
    ({**MIN, "pending": {"action": {"type": "tribute_summon"}, "purpose": "fun"}}, "pending.purpose"),
]

# state-format.md "Pending action": a hand-written pending holds cards of the state, each chosen once
_SIDE = {"hand": ["Blue-Eyes White Dragon"], "monster_zones": [{"card": "Feral Imp"}, {"card": "Mystical Elf"}, None, None, None]}
_BUILT = {"type": "tribute_summon", "player": "A", "card": "Blue-Eyes White Dragon", "from": {"player": "A", "area": "hand", "index": 0}}


def _pending(chosen=(), action=None, **top):
    mz = [{"player": "A", "area": "monster_zones", "index": i} for i in chosen]
    return {**MIN, **top, "players": {"A": _SIDE, "B": {}},
            "pending": {"action": action or _BUILT, "purpose": "tribute", "needed": 2, "chosen": mz}}


BAD += [
    (_pending((0, 0)), "pending.chosen[1]"),
    (_pending((3,)), "pending.chosen[0]"),
    (_pending(action={**_BUILT, "from": {"player": "A", "area": "hand", "index": 4}}), "pending.action.from"),
    (_pending(action={**_BUILT, "card": "Dark Magician"}), "pending.action.card"),
    (_pending(priority="B"), "priority"),
    (_pending(action={"type": "tribute_summon", "card": "Dark Magician"}), "pending.action.from"),
]

# the card an action is built for is not its own choice where it leaves its place (a Spell activated from the hand
# as its own target, the Magic Jammer being activated as its own discard), and a discard is a card of the hand
_JAM = {"type": "activate", "player": "B", "card": "Magic Jammer", "from": {"player": "B", "area": "spell_trap_zones", "index": 0}}
_MST = {"type": "activate", "player": "A", "card": "Mystical Space Typhoon", "from": {"player": "A", "area": "hand", "index": 0}}


def _chosen(action, purpose, ref):
    return {**MIN, "priority": action["player"], "chain": [{"card": "Dark Hole", "player": "A", "zone": None}],
            "players": {"A": {"hand": ["Mystical Space Typhoon"]},
                        "B": {"hand": ["Pot of Greed"], "spell_trap_zones": [{"card": "Magic Jammer", "position": "face_down"},
                              {"card": "Mirror Force", "position": "face_down"}, None, None, None]}},
            "pending": {"action": action, "purpose": purpose, "needed": 1, "chosen": [ref]}}


BAD += [
    (_chosen(_MST, "target", _MST["from"]), "pending.chosen[0]: expected a card other than"),
    (_chosen(_JAM, "cost", _JAM["from"]), "pending.chosen[0]: expected a card other than"),
    (_chosen(_JAM, "discard", _JAM["from"]), "pending.chosen[0]: expected a card other than"),
    (_chosen(_JAM, "discard", {"player": "B", "area": "spell_trap_zones", "index": 1}), "pending.chosen[0]: expected a card in the hand of B"),
    (_chosen(_JAM, "discard", {"player": "A", "area": "hand", "index": 0}), "pending.chosen[0]: expected a card in the hand of B"),
]


def test_pending_action_by_name_gets_its_place_and_player():
    """actions-and-cli.md: `card` and `from` name the same card; a hand-written pending giving the name only
    is completed with the one card of that name where the action takes it from, and the priority player."""
    raw = _pending((0,), action={"type": "tribute_summon", "card": "blue-eyes white dragon"})
    action = GameState.from_dict(raw).to_dict()["pending"]["action"]
    assert action["from"] == {"player": "A", "area": "hand", "index": 0} and action["player"] == "A"
    assert action["card"] == "Blue-Eyes White Dragon"


@pytest.mark.parametrize("raw,needle", BAD, ids=[b[1] for b in BAD])
def test_bad_state_is_a_clear_error(raw, needle):
    with pytest.raises(StateError) as info:
        GameState.from_dict(raw)
    assert needle in str(info.value)
    assert "expected" in str(info.value)


def test_unknown_card_suggests_close_names():
    raw = json.loads(json.dumps(MIN))
    raw["players"]["A"]["hand"] = ["Dark Magican"]
    with pytest.raises(StateError, match="closest: Dark Magician"):
        GameState.from_dict(raw)


runner = CliRunner()


def _write(tmp_path, raw, name="s.json"):
    p = tmp_path / name
    p.write_text(raw if isinstance(raw, str) else json.dumps(raw))
    return str(p)


@pytest.mark.parametrize("content,needle", [
    ("{not json", "expected JSON"),
    (json.dumps({**MIN, "players": {"A": {"hand": ["Nope"]}, "B": {}}}), "players.A.hand[0]"),
])
def test_cli_bad_input_exits_2_naming_the_file(tmp_path, content, needle):
    path = _write(tmp_path, content)
    for args in (["allowed", path], ["apply", path, "end_turn"], ["explain", path, "end_turn"]):
        result = runner.invoke(app, args)
        assert result.exit_code == 2, (args, result.output)
        assert path in result.output and needle in result.output
        assert "Traceback" not in result.output


def test_cli_missing_file_exits_2(tmp_path):
    result = runner.invoke(app, ["allowed", str(tmp_path / "nope.json")])
    assert result.exit_code == 2 and "nope.json" in result.output


def test_cli_bad_action_json_exits_2():
    result = runner.invoke(app, ["apply", EXAMPLE, "{oops"])
    assert result.exit_code == 2 and "ACTION" in result.output


@pytest.mark.parametrize("action,needle", [
    ('{"type": "normal_summon", "crd": "Kuriboh"}', "action.crd"),
    ('{"type": "trap_activate"}', "action.type"),
    ('{"card": "Dark Magician"}', "action.type"),
    ('{"type": "activate", "card": "Dark Hole", "effect": "zero"}', "action.effect"),
    ('{"type": "next_phase", "to": "sideways"}', "action.to"),
    ('{"type": "normal_summon", "from": "A.hand0"}', "action.from"),
    ('[1, 2]', "ACTION"),
])
def test_cli_malformed_action_object_exits_2_naming_the_key(action, needle):
    """actions-and-cli.md: bad input (an unknown key, an unknown type) is exit 2, not a rules refusal."""
    result = runner.invoke(app, ["apply", EXAMPLE, action])
    assert result.exit_code == 2, result.output
    assert needle in result.output and "Traceback" not in result.output


def test_cli_unknown_reasoner_exits_2():
    result = runner.invoke(app, ["allowed", EXAMPLE, "--reasoner", "magic"])
    assert result.exit_code == 2 and "reasoner" in result.output


def test_cli_cards_search():
    result = runner.invoke(app, ["cards", "red-eyes", "--json"])
    assert result.exit_code == 0
    names = {c["name"] for c in json.loads(result.output)}
    assert {"Red-Eyes Black Dragon", "Red-Eyes Darkness Dragon"} <= names
    simplified = runner.invoke(app, ["cards", "fence", "--ruleset", "simplified", "--json"])
    assert len(json.loads(simplified.output)) == 4


def test_cli_hermit_explains_why_it_cannot_run_the_rules():
    result = runner.invoke(app, ["allowed", EXAMPLE, "--reasoner", "hermit"])
    assert result.exit_code == 2
    assert "builtin" in result.output and "pellet" in result.output


@pytest.mark.parametrize("ruleset", ["official", "simplified"])
def test_an_actions_facts_follow_the_states_own(ruleset):
    """game.run_reasoner builds an action's ABox from the state's: state_facts must put the action last."""
    from ygo_onto.abox import action_facts
    from ygo_onto.duel import new_duel

    state = new_duel(ruleset, 3)
    for action in state.allowed_actions():
        a = action.to_dict()
        assert state_facts(state.data, True, {"action": a}) == state_facts(state.data, True) + action_facts(a, state.data)


def _containers(value, found: dict) -> dict:
    """id -> container, for every dict and list in a JSON value."""
    if type(value) in (dict, list):
        found[id(value)] = value
        for x in (value.values() if type(value) is dict else value):
            _containers(x, found)
    return found


def test_a_copy_equals_its_state_and_shares_nothing_mutable():
    """copy_state copies by the state's shape (the apply loop's copy, to_dict): every dict and list is new,
    key order is kept, and a pickle round trip gives the same JSON."""
    import pickle

    from ygo_onto.state import copy_state

    raw = {"format": "ygo-onto.state/1", "phase": "battle", "extra": {"properly_summoned": {"A": ["Junk Warrior"]}},
           "chain": [{"card": "Trap Hole", "player": "B", "zone": {"area": "spell_trap_zones", "index": 0},
                      "targets": [{"player": "A", "area": "monster_zones", "index": 0}],
                      "extra": {"summon_position": "defense"}}],
           "players": {"A": {"hand": ["Feral Imp"], "graveyard": ["Junk Warrior"],
                             "monster_zones": [{"card": "Dark Magician", "counters": {"turns": 2}, "attacks_declared": 1,
                                                "extra": {"attack": {"target": {"player": "B", "area": "monster_zones",
                                                                                "index": 1}, "damage_step": False}}},
                                               None, None, None, None],
                             "spell_trap_zones": [{"card": "Axe of Despair", "equipped_to": {"player": "A", "zone": 0}},
                                                  None, None, None, None]},
                       "B": {"monster_zones": [None, {"card": "Man-Eater Bug"}, None, None, None],
                             "spell_trap_zones": [{"card": "Trap Hole"}, None, None, None, None],
                             "field_zone": {"card": "Yami"}}}}
    pending = GameState.load(EXAMPLE).apply("tribute_summon@A.hand0").data
    assert pending["pending"] is not None
    for data in (GameState.from_dict(raw).data, GameState.from_dict(MIN).data, pending):
        copied = copy_state(data)
        assert json.dumps(copied) == json.dumps(data) == json.dumps(pickle.loads(pickle.dumps(data)))
        assert not set(_containers(copied, {})) & set(_containers(data, {}))
