"""The command line and Python API contract, checked as an outside grader would: only the contract (docs/actions-and-cli.md, state-format.md, cards.md) is assumed.

Every command of the CLI table, its exit codes (0 success, 1 a rules refusal, 2 bad input naming the
file, the field and what was expected, never a traceback), both rulesets, and the Python API
(GameState.load / from_dict, allowed_actions cached, apply of an Action, an id or a dict, the old
state unchanged, to_dict round trips, every state apply writes a decision point).
"""
from __future__ import annotations

import copy
import json
import random

import pytest
from cli_runner import cli

from ygo_onto import GameState, IllegalActionError, StateError

# state-format.md's own example: Main Phase 1 with a tribute available
EXAMPLE = {
    "format": "ygo-onto.state/1",
    "ruleset": "official",
    "turn": 3, "turn_player": "A", "phase": "main1",
    "players": {
        "A": {
            "life_points": 8000,
            "deck": ["Dark Magician", "Pot of Greed"],
            "hand": ["Red-Eyes Black Dragon", "Mystical Space Typhoon"],
            "monster_zones": [{"card": "Curse of Dragon", "position": "attack"},
                              {"card": "Gaia The Fierce Knight", "position": "defense"},
                              None, None, None],
        },
        "B": {
            "life_points": 6500,
            "deck": ["Blue-Eyes White Dragon"],
            "spell_trap_zones": [{"card": "Magic Jammer", "position": "face_down"}, None, None, None, None],
        },
    },
}

SIMPLIFIED = {
    "format": "ygo-onto.state/1", "ruleset": "simplified", "turn": 2, "turn_player": "B", "phase": "main1",
    "players": {
        "A": {"deck": ["Kuriboh", "Baby Dragon"], "monster_zones": [{"card": "Celtic Guardian"}, None, None, None, None]},
        "B": {"deck": ["Kuriboh"], "hand": ["Summoned Skull", "Dark Hole", "curse of dragon"],
              "monster_zones": [{"card": "Vorse Raider"}, None, None, None, None]},
    },
}

# the keys each action type names (actions-and-cli.md's table); `id`, `type`, `player` on every action
TYPE_KEYS = {
    "normal_summon": {"card", "from"}, "tribute_summon": {"card", "from"}, "set_monster": {"card", "from"},
    "flip_summon": {"card", "from"}, "change_position": {"card", "from", "to"}, "special_summon": {"card", "from"},
    "synchro_summon": {"card", "from"}, "activate": {"card", "from", "effect"}, "set_spell_trap": {"card", "from"},
    "attack": {"card", "from", "target", "target_ref"}, "direct_attack": {"card", "from"},
    "select": {"card", "ref", "purpose"}, "declare": {"level"}, "cancel": set(), "pass": set(), "next_phase": {"to"}, "end_turn": set(),
}


def write(tmp_path, data, name="state.json"):
    path = tmp_path / name
    path.write_text(data if isinstance(data, str) else json.dumps(data), encoding="utf-8")
    return path


# ---------------------------------------------------------------- allowed

def test_allowed_table_and_json(tmp_path):
    path = write(tmp_path, EXAMPLE)
    code, text = cli("allowed", path)
    assert code == 0 and "tribute_summon" in text
    code, text = cli("allowed", path, "--json", "--reasoner", "fast")
    assert code == 0
    out = json.loads(text)
    assert set(out) == {"actions", "reasoner", "elapsed_ms"}
    assert out["reasoner"] == "fast" and isinstance(out["elapsed_ms"], (int, float))
    ids = [a["id"] for a in out["actions"]]
    assert len(ids) == len(set(ids)) and all(isinstance(i, str) for i in ids)
    # Red-Eyes (Level 7) needs 2 tributes: offered as a Tribute Summon, never as a Normal Summon
    assert any(a["type"] == "tribute_summon" and a["card"] == "Red-Eyes Black Dragon" for a in out["actions"])
    assert not any(a["type"] == "normal_summon" for a in out["actions"])


BATTLE = {"format": "ygo-onto.state/1", "turn": 2, "phase": "battle", "players": {
    "A": {"deck": ["Dark Hole"], "hand": ["Mystical Space Typhoon"],
          "monster_zones": [{"card": "Dark Magician"}, {"card": "Celtic Guardian", "position": "face_down_defense"},
                            None, None, None]},
    "B": {"deck": ["Dark Hole"], "monster_zones": [{"card": "Mystical Elf", "position": "defense"}, None, None, None, None],
          "spell_trap_zones": [{"card": "Mirror Force", "position": "face_down"}, None, None, None, None]}}}
SPECIAL = {"format": "ygo-onto.state/1", "turn": 2, "players": {
    "A": {"deck": ["Dark Hole"], "hand": ["Red-Eyes Darkness Dragon"], "extra_deck": ["Junk Warrior"],
          "monster_zones": [{"card": "Red-Eyes Black Dragon"}, {"card": "Junk Synchron"}, {"card": "Petit Dragon"},
                            {"card": "Celtic Guardian", "position": "face_down_defense"}, None]},
    "B": {"deck": ["Dark Hole"]}}}


@pytest.mark.parametrize("data", [EXAMPLE, BATTLE, SPECIAL, SIMPLIFIED], ids=["example", "battle", "special", "simplified"])
def test_every_listed_action_has_its_keys_and_applies_by_id_and_by_object(data):
    state = GameState.from_dict(data)
    actions = state.allowed_actions(reasoner="fast")
    assert actions
    for action in actions:
        d = action.to_dict()
        assert {"id", "type", "player"} <= set(d) and d["player"] in ("A", "B")
        assert TYPE_KEYS[d["type"]] <= set(d), (d, TYPE_KEYS[d["type"]] - set(d))
        by_action = state.apply(action).to_dict()
        assert state.apply(d["id"]).to_dict() == by_action
        assert state.apply(d).to_dict() == by_action
        assert state.apply({k: v for k, v in d.items() if k != "id"}).to_dict() == by_action


# ---------------------------------------------------------------- apply

def test_apply_by_id_and_by_json_object_with_output_file(tmp_path):
    path = write(tmp_path, EXAMPLE)
    out1, out2 = tmp_path / "o1.json", tmp_path / "o2.json"
    assert cli("apply", path, "tribute_summon@A.hand0", "-o", out1)[0] == 0
    obj = {"type": "tribute_summon", "card": "Red-Eyes Black Dragon", "from": {"player": "A", "area": "hand", "index": 0}}
    assert cli("apply", path, json.dumps(obj), "-o", out2)[0] == 0
    first, second = json.loads(out1.read_text()), json.loads(out2.read_text())
    assert first == second
    assert first["pending"]["purpose"] == "tribute" and first["pending"]["needed"] == 2 and first["pending"]["chosen"] == []
    # stdout by default: the same state
    code, text = cli("apply", path, "tribute_summon@A.hand0")
    assert code == 0 and json.loads(text) == first
    # the written state loads and offers the selections (and cancel: no cost paid yet)
    types = {a.type for a in GameState.load(out1).allowed_actions("fast")}
    assert types == {"select", "cancel"}


def test_apply_object_by_alias_and_case():
    state = GameState.from_dict(EXAMPLE)
    exact = state.apply("tribute_summon@A.hand0").to_dict()
    assert state.apply({"type": "tribute_summon", "card": "red-eyes b. dragon"}).to_dict() == exact
    assert state.apply({"type": "tribute_summon", "card": "RED-EYES BLACK DRAGON"}).to_dict() == exact


def test_apply_refusal_is_exit_1_and_says_why(tmp_path):
    path = write(tmp_path, EXAMPLE)
    code, text = cli("apply", path, "normal_summon@A.hand0")
    assert code == 1 and "not allowed" in text and "tribute_summon@A.hand0" in text
    # another player than the one holding priority
    code, text = cli("apply", path, json.dumps({"type": "end_turn", "player": "B"}))
    assert code == 1 and "priority" in text


def test_refusal_of_an_object_whose_card_is_not_at_its_reference_names_the_key(tmp_path):
    """The object's kind and place name an allowed action, but `card` names another card: the message
    must not read 'tribute_summon@A.hand0 is not allowed ... allowed: tribute_summon@A.hand0'."""
    path = write(tmp_path, EXAMPLE)
    obj = {"type": "tribute_summon", "card": "Dark Magician", "from": {"player": "A", "area": "hand", "index": 0}}
    code, text = cli("apply", path, json.dumps(obj))
    assert code == 1
    assert "action.card" in text and "Red-Eyes Black Dragon" in text and "Dark Magician" in text


def test_refusal_of_a_select_with_the_wrong_purpose_names_the_purpose():
    """A pending Tribute Summon: a select of a right tribute for purpose `target` is refused naming `purpose`."""
    pending = GameState.from_dict(EXAMPLE).apply("tribute_summon@A.hand0")
    with pytest.raises(IllegalActionError, match=r"action\.purpose: expected 'tribute', got 'target'"):
        pending.apply({"type": "select", "card": "Curse of Dragon", "purpose": "target"})
    chosen = pending.apply({"type": "select", "card": "Curse of Dragon", "purpose": "tribute"})
    assert chosen.to_dict()["pending"]["chosen"] == [{"player": "A", "area": "monster_zones", "index": 0}]
    done = chosen.apply({"type": "select", "ref": {"player": "A", "area": "monster_zones", "index": 1}})
    d = done.to_dict()
    assert d["pending"] is None and d["players"]["A"]["normal_summon_used"] is True
    assert d["players"]["A"]["graveyard"] == ["Curse of Dragon", "Gaia The Fierce Knight"]
    assert [m["card"] for m in d["players"]["A"]["monster_zones"] if m] == ["Red-Eyes Black Dragon"]
    # cancel before any tribute: back to the state before the summon
    assert pending.apply("cancel").to_dict() == GameState.from_dict(EXAMPLE).to_dict()


def test_an_object_whose_id_names_another_allowed_action_is_bad_input(tmp_path):
    """An object copied from `allowed --json` and edited: its id and its other keys name two different allowed
    actions. Neither reading is sure, so it is bad input naming `id`; a stale id (not allowed now) is ignored."""
    path = write(tmp_path, EXAMPLE)
    code, text = cli("apply", path, json.dumps({"id": "end_turn", "type": "next_phase", "to": "battle"}))
    assert code == 2 and "action.id" in text and "next_phase:battle" in text
    edited = {"id": "change_position@A.mz0:defense", "type": "change_position", "card": "Gaia The Fierce Knight", "to": "attack"}
    code, text = cli("apply", path, json.dumps(edited))
    assert code == 2 and "change_position@A.mz1:attack" in text
    state = GameState.from_dict(EXAMPLE)
    stale = {"id": "normal_summon@A.hand4", "type": "next_phase", "to": "battle"}
    assert state.apply(stale).to_dict() == state.apply("next_phase:battle").to_dict()


@pytest.mark.parametrize("action, field", [
    ('{"type": "tribute_summon"', "ACTION"),                                   # JSON syntax error
    ("[1, 2]", "ACTION"),                                                       # not an object
    ('{"type": "fly"}', "action.type"),
    ('{"type": "end_turn", "foo": 1}', "action.foo"),
    ('{"type": "activate", "card": "Mystical Space Typhoon", "effect": true}', "action.effect"),   # bool for int
    ('{"type": "activate", "card": "Mystical Space Typhoon", "effect": "0"}', "action.effect"),
    ('{"type": "end_turn", "player": "C"}', "action.player"),
    ('{"type": "declare", "level": "5"}', "action.level"),                      # a declared Level is an int
    ("declare:five", "declare:five"),                                           # an id's Level is a number
    ('{"type": "tribute_summon", "from": {"player": "A", "area": "pocket", "index": 0}}', "action.from.area"),
    ('{"type": "tribute_summon", "from": {"player": "A", "area": "hand", "index": true}}', "action.from.index"),
    ('{"type": "tribute_summon", "card": "Red Eyes Blak Dragon"}', "action.card"),
    ("bogus", "action"),
    ("", "action"),
])
def test_bad_action_is_exit_2_naming_the_field(tmp_path, action, field):
    path = write(tmp_path, EXAMPLE)
    for command in ("apply", "explain"):
        code, text = cli(command, path, action)
        assert code == 2, (command, action, text)
        assert text.startswith("error: ") and field in text, text
        assert "expected" in text


# ---------------------------------------------------------------- files

def test_missing_files_and_directories_are_exit_2_naming_the_path(tmp_path):
    state = write(tmp_path, EXAMPLE)
    missing = tmp_path / "nope.json"
    for args in (("allowed", missing), ("allowed", tmp_path), ("apply", missing, "end_turn"), ("apply", tmp_path, "end_turn"),
                 ("explain", missing, "end_turn"), ("solve", missing), ("replay", missing), ("replay", tmp_path),
                 ("export-owl", tmp_path / "x.owl", "--state", missing), ("export-owl", tmp_path),
                 ("apply", state, "end_turn", "-o", tmp_path), ("apply", state, "end_turn", "-o", tmp_path / "no" / "o.json"),
                 ("duel", "--max-actions", "2", "--log", tmp_path)):
        code, text = cli(*args)
        assert code == 2, (args, text)
        named = str(args[-1]) if args[0] in ("export-owl", "duel") or "-o" in args else str(args[1])
        assert named in text or str(tmp_path) in text, (args, text)


# ---------------------------------------------------------------- states that are bad input

def _set(path, value):
    def change(d):
        obj = d
        for key in path[:-1]:
            obj = obj[key]
        obj[path[-1]] = value
    return change


def _drop(path):
    def change(d):
        obj = d
        for key in path[:-1]:
            obj = obj[key]
        del obj[path[-1]]
    return change


A = ("players", "A")
TRIBUTE = {"type": "tribute_summon", "card": "Red-Eyes Black Dragon", "from": {"player": "A", "area": "hand", "index": 0},
           "player": "A"}
BAD_STATES = [
    ("no-format", _drop(("format",)), "format"),
    ("format-2", _set(("format",), "ygo-onto.state/2"), "format"),
    ("ruleset", _set(("ruleset",), "modern"), "ruleset"),
    ("turn-0", _set(("turn",), 0), "turn"),
    ("turn-str", _set(("turn",), "3"), "turn"),
    ("turn-bool", _set(("turn",), True), "turn"),
    ("turn-float", _set(("turn",), 3.0), "turn"),
    ("turn-player", _set(("turn_player",), "C"), "turn_player"),
    ("phase", _set(("phase",), "main3"), "phase"),
    ("priority", _set(("priority",), "C"), "priority"),
    ("winner", _set(("winner",), "C"), "winner"),
    ("rng-bool", _set(("rng_seed",), False), "rng_seed"),
    ("no-players", _drop(("players",)), "players"),
    ("no-B", _drop(("players", "B")), "players.B"),
    ("player-C", _set(("players", "C"), {}), "players.C"),
    ("4-monster-zones", _set(A + ("monster_zones",), [None] * 4), "players.A.monster_zones"),
    ("6-monster-zones", _set(A + ("monster_zones",), [None] * 6), "players.A.monster_zones"),
    ("4-st-zones", _set(A + ("spell_trap_zones",), [None] * 4), "players.A.spell_trap_zones"),
    ("unknown-card", _set(A + ("hand",), ["Blue Eyes White Dragn"]), "players.A.hand[0]"),
    ("hand-not-list", _set(A + ("hand",), "Dark Magician"), "players.A.hand"),
    ("hand-int", _set(A + ("hand",), [3]), "players.A.hand[0]"),
    ("lp-bool", _set(A + ("life_points",), True), "players.A.life_points"),
    ("lp-str", _set(A + ("life_points",), "8000"), "players.A.life_points"),
    ("nsu-int", _set(A + ("normal_summon_used",), 1), "players.A.normal_summon_used"),
    ("spell-position", _set(A + ("spell_trap_zones",), [{"card": "Pot of Greed", "position": "attack"}, None, None, None, None]),
     "players.A.spell_trap_zones[0].position"),
    ("monster-position", _set(A + ("monster_zones",), [{"card": "Dark Magician", "position": "face_up"}, None, None, None, None]),
     "players.A.monster_zones[0].position"),
    ("spell-in-monster-zone", _set(A + ("monster_zones",), [{"card": "Pot of Greed"}, None, None, None, None]),
     "players.A.monster_zones[0].card"),
    ("summoned-int", _set(A + ("monster_zones",), [{"card": "Dark Magician", "summoned_this_turn": 0}, None, None, None, None]),
     "players.A.monster_zones[0].summoned_this_turn"),
    ("card-extra-key", _set(A + ("monster_zones",), [{"card": "Dark Magician", "foo": 1}, None, None, None, None]),
     "players.A.monster_zones[0].foo"),
    ("player-extra-key", _set(A + ("foo",), 1), "players.A.foo"),
    ("top-extra-key", _set(("foo",), 1), "foo"),
    ("extra-not-object", _set(A + ("monster_zones",), [{"card": "Dark Magician", "extra": [1]}, None, None, None, None]),
     "players.A.monster_zones[0].extra"),
    ("pending-purpose", _set(("pending",), {"action": TRIBUTE, "purpose": "sacrifice", "needed": 2, "chosen": []}),
     "pending.purpose"),
    ("pending-no-action", _set(("pending",), {"purpose": "tribute", "needed": 2, "chosen": []}), "pending.action"),
    ("pending-needed-bool", _set(("pending",), {"action": TRIBUTE, "purpose": "tribute", "needed": True, "chosen": []}),
     "pending.needed"),
    ("pending-pass", _set(("pending",), {"action": {"type": "pass"}, "purpose": "tribute", "needed": 1, "chosen": []}),
     "pending.action.type"),
    ("pending-select", _set(("pending",), {"action": {"type": "select", "card": "Curse of Dragon"}, "purpose": "tribute"}),
     "pending.action.type"),
    ("chain-no-card", _set(("chain",), [{"player": "B", "zone": None, "targets": [], "speed": 2}]), "chain[0].card"),
    ("chain-speed-4", _set(("chain",), [{"card": "Pot of Greed", "player": "A", "zone": None, "targets": [], "speed": 4}]),
     "chain[0].speed"),
    ("chain-speed-bool", _set(("chain",), [{"card": "Mystical Space Typhoon", "player": "A", "zone": None, "targets": [],
                                            "speed": True}]), "chain[0].speed"),
    ("chain-not-list", _set(("chain",), {}), "chain"),
    ("not-an-object", lambda d: [1, 2], "the state"),
    ("not-json", lambda d: '{"format": ', "JSON"),
    ("empty-file", lambda d: "", "JSON"),
]


@pytest.mark.parametrize("name, change, field", BAD_STATES, ids=[b[0] for b in BAD_STATES])
def test_bad_state_is_exit_2_naming_file_and_field(tmp_path, name, change, field):
    data = copy.deepcopy(EXAMPLE)
    changed = change(data)
    path = write(tmp_path, data if changed is None else changed, f"{name}.json")
    code, text = cli("allowed", path)
    assert code == 2, text
    assert text.startswith(f"error: {path}: ") and field in text and "expected" in text, text


def test_a_key_given_twice_is_bad_input_not_the_last_value(tmp_path):
    """state-format.md: "a typo never passes silently"; JSON leaves a repeated key to the reader."""
    text = json.dumps(EXAMPLE).replace('"position": "attack"', '"position": "attack", "position": "defense"', 1)
    path = write(tmp_path, text)
    code, out = cli("allowed", path)
    assert code == 2 and f"{path}: players.A.monster_zones[0].position" in out and "twice" in out
    code, out = cli("apply", write(tmp_path, EXAMPLE, "ok.json"), '{"type": "end_turn", "type": "pass"}')
    assert code == 2 and "type" in out and "twice" in out


def test_simplified_state_refuses_what_the_ruleset_lacks(tmp_path):
    for change, field in ((_set(("phase",), "draw"), "phase"), (_set(A + ("field_zone",), {"card": "Dark Hole"}), "field_zone"),
                          (_set(A + ("hand",), ["Mystical Space Typhoon"]), "players.A.hand[0]")):
        data = copy.deepcopy(SIMPLIFIED)
        change(data)
        code, text = cli("allowed", write(tmp_path, data))
        assert code == 2 and field in text, text
    # --ruleset on a state of the other ruleset's cards: bad input, not a traceback
    code, text = cli("allowed", write(tmp_path, EXAMPLE), "--ruleset", "simplified")
    assert code == 2 and "simplified" in text


def test_cli_options_are_checked(tmp_path):
    path = write(tmp_path, EXAMPLE)
    assert cli("allowed", path, "--reasoner", "bogus")[0] == 2
    assert cli("allowed", path, "--ruleset", "bogus")[0] == 2
    assert cli("duel", "--agents", "random")[0] == 2
    assert cli("duel", "--agents", "random,bogus")[0] == 2
    assert cli("duel", "--ruleset", "bogus")[0] == 2


# ---------------------------------------------------------------- explain

def test_explain_allowed_and_refused(tmp_path):
    path = write(tmp_path, EXAMPLE)
    code, text = cli("explain", path, "tribute_summon@A.hand0")
    assert code == 0 and "allowed" in text and "rule" in text
    code, text = cli("explain", path, "normal_summon@A.hand0")
    assert code == 1 and "not allowed" in text and "fails" in text
    code, text = cli("explain", path, json.dumps({"type": "normal_summon", "card": "Red-Eyes Black Dragon"}))
    assert code == 1 and "not allowed" in text


# ---------------------------------------------------------------- duel and replay

@pytest.mark.parametrize("ruleset", ["official", "simplified"])
def test_duel_log_replays_and_is_deterministic(tmp_path, ruleset):
    log1, log2 = tmp_path / "a.jsonl", tmp_path / "b.jsonl"
    args = ("duel", "--ruleset", ruleset, "--seed", "7", "--agents", "random,aggressive", "--max-actions", "40")
    code, text = cli(*args, "--log", log1)
    assert code == 0 and text.strip()
    assert cli(*args, "--log", log2)[0] == 0
    assert log1.read_text() == log2.read_text()
    lines = [json.loads(line) for line in log1.read_text().splitlines()]
    assert "start" in lines[0] and "end" in lines[-1]
    assert all({"action", "state"} <= set(rec) for rec in lines[1:-1])
    code, text = cli("replay", log1)
    assert code == 0, text


def _tamper(log, out, change):
    records = [json.loads(line) for line in log.read_text().splitlines()]
    change(records)
    out.write_text("".join(json.dumps(r) + "\n" for r in records))
    return out


@pytest.fixture(scope="module")
def finished_log(tmp_path_factory):
    log = tmp_path_factory.mktemp("log") / "duel.jsonl"
    code, text = cli("duel", "--seed", "3", "--agents", "random,random", "--log", log)
    assert code == 0
    assert json.loads(log.read_text().splitlines()[-1])["end"]["winner"] in ("A", "B", "draw")
    return log


def test_replay_of_a_tampered_log_fails(tmp_path, finished_log):
    def lp(r):
        r[5]["state"]["players"]["A"]["life_points"] += 1

    def other_action(r):
        r[5]["action"] = {"type": "end_turn", "player": r[5]["action"]["player"]}

    def winner(r):
        r[-1]["end"]["winner"] = "B" if r[-1]["end"]["winner"] == "A" else "A"

    def start(r):
        r[0]["start"]["players"]["A"]["life_points"] = 7999

    for change in (lp, other_action, winner, start):
        code, text = cli("replay", _tamper(finished_log, tmp_path / f"{change.__name__}.jsonl", change))
        assert code == 1, (change.__name__, text)
        assert "error" in text
    # cut short, or a broken line: bad input
    cut = _tamper(finished_log, tmp_path / "cut.jsonl", lambda r: r.__delitem__(slice(10, None)))
    assert cli("replay", cut)[0] == 2
    broken = tmp_path / "broken.jsonl"
    broken.write_text("\n".join(finished_log.read_text().splitlines()[:4]) + "\n{not json\n")
    code, text = cli("replay", broken)
    assert code == 2 and "line 5" in text
    empty = tmp_path / "empty.jsonl"
    empty.write_text("")
    assert cli("replay", empty)[0] == 2


# ---------------------------------------------------------------- solve

def test_solve(tmp_path):
    win = {"format": "ygo-onto.state/1", "turn": 2, "players": {
        "A": {"deck": ["Dark Hole"], "monster_zones": [{"card": "Blue-Eyes White Dragon"}, None, None, None, None]},
        "B": {"life_points": 3000, "deck": ["Dark Hole"]}}}
    code, text = cli("solve", write(tmp_path, win), "--json")
    assert code == 0
    out = json.loads(text)
    assert out["result"] == "win" and out["line"][-1]["type"] == "direct_attack"
    state = GameState.from_dict(win)
    for action in out["line"]:
        state = state.apply(action)
    assert state.winner == "A"
    lose = copy.deepcopy(win)
    lose["players"]["A"]["monster_zones"][0] = {"card": "Celtic Guardian"}
    code, text = cli("solve", write(tmp_path, lose, "lose.json"), "--json")
    assert code == 0 and json.loads(text)["result"] == "no_win"


# ---------------------------------------------------------------- export-owl

def test_export_owl_takes_the_ruleset_of_its_state(tmp_path):
    """A simplified state exports the simplified ruleset's rules (tests/test_export.py reads the official export, with
    and without a state, and the simplified one chosen with --ruleset)."""
    rdflib = pytest.importorskip("rdflib")
    from rdflib.namespace import RDF

    from ygo_onto.knowledge import knowledge

    imp = rdflib.URIRef("http://www.w3.org/2003/11/swrl#Imp")
    out = tmp_path / "simplified.owl"
    assert cli("export-owl", out, "--state", write(tmp_path, SIMPLIFIED, "s.json"))[0] == 0
    graph = rdflib.Graph()
    graph.parse(out, format="xml")
    assert len(set(graph.subjects(RDF.type, imp))) == len(knowledge("simplified").rules) < len(knowledge("official").rules)


# ---------------------------------------------------------------- cards

@pytest.mark.parametrize("query, name", [
    ("Red-Eyes B. Dragon", "Red-Eyes Black Dragon"),
    ("red-eyes b. dragon", "Red-Eyes Black Dragon"),
    ("CURSE OF DRAGON", "Curse of Dragon"),
    ("Drago nero occhi rossi", "Red-Eyes Black Dragon"),
    ("Polimerizzazione", "Polymerization"),
    ("Tifone spaziale mistico", "Mystical Space Typhoon"),
])
def test_cards_query(query, name):
    code, text = cli("cards", query, "--json")
    assert code == 0
    assert name in [c["name"] for c in json.loads(text)]


def test_cards_kinds_as_cards_md_words_them():
    code, text = cli("cards", "--json")
    kinds = {c["name"]: c["kind"] for c in json.loads(text)}
    assert kinds["Junk Synchron"] == "Tuner Effect Monster" and kinds["Man-Eater Bug"] == "Flip Effect Monster"
    assert kinds["Red-Eyes Darkness Dragon"] == "Effect Monster" and kinds["Magic Jammer"] == "Counter Trap"
    assert kinds["Mystical Space Typhoon"] == "Quick-Play Spell" and kinds["Gaia the Dragon Champion"] == "Fusion Monster"
    code, text = cli("cards", "flip effect monster", "--json")
    assert [c["name"] for c in json.loads(text)] == ["Man-Eater Bug"]


def test_cards_simplified_catalog():
    code, text = cli("cards", "--ruleset", "simplified", "--json")
    cards = json.loads(text)
    assert code == 0 and len(cards) == 40
    assert sum(c["kind"].endswith("Spell") for c in cards) == 10


def test_state_names_match_without_case_and_by_alias():
    data = copy.deepcopy(EXAMPLE)
    data["players"]["A"]["hand"] = ["red-eyes b. dragon", "MYSTICAL SPACE TYPHOON"]
    state = GameState.from_dict(data)
    assert state.to_dict()["players"]["A"]["hand"] == ["Red-Eyes Black Dragon", "Mystical Space Typhoon"]
    assert [a.id for a in state.allowed_actions("fast")] == [a.id for a in GameState.from_dict(EXAMPLE).allowed_actions("fast")]


# ---------------------------------------------------------------- Python API

def test_errors_are_value_errors(tmp_path):
    assert issubclass(StateError, ValueError) and issubclass(IllegalActionError, ValueError)
    with pytest.raises(StateError):
        GameState.load(tmp_path / "missing.json")
    with pytest.raises(StateError):
        GameState.load(tmp_path)
    with pytest.raises(ValueError):
        GameState.from_dict({"format": "ygo-onto.state/1"})
    with pytest.raises(IllegalActionError):
        GameState.from_dict(EXAMPLE).apply("normal_summon@A.hand0")
    for bad in (None, 5, ["end_turn"]):
        with pytest.raises(ValueError):
            GameState.from_dict(EXAMPLE).apply(bad)
    for bad in (None, 5):
        with pytest.raises(StateError, match="path"):
            GameState.load(bad)


def test_load_equals_from_dict_and_input_is_not_changed(tmp_path):
    data = copy.deepcopy(EXAMPLE)
    state = GameState.from_dict(data)
    assert data == EXAMPLE
    assert GameState.load(write(tmp_path, EXAMPLE)).to_dict() == state.to_dict()
    out = state.to_dict()
    out["turn"] = 99
    out["players"]["A"]["hand"].append("Dark Hole")
    assert state.to_dict()["turn"] == 3 and len(state.to_dict()["players"]["A"]["hand"]) == 2


def test_allowed_actions_is_cached(monkeypatch):
    state = GameState.from_dict(EXAMPLE)
    runs = []
    infer = state.infer
    monkeypatch.setattr(state, "infer", lambda *a, **k: runs.append(a) or infer(*a, **k))
    first = state.allowed_actions(reasoner="fast")
    second = state.allowed_actions(reasoner="fast")
    assert first == second and len(runs) <= 1


def test_apply_leaves_the_old_state_and_action_unchanged():
    state = GameState.from_dict(EXAMPLE)
    before = state.to_dict()
    action = {"type": "tribute_summon", "card": "Red-Eyes Black Dragon"}
    kept = copy.deepcopy(action)
    after = state.apply(action)
    assert state.to_dict() == before and action == kept
    assert after.to_dict() != before
    assert [a.id for a in state.allowed_actions("fast")] == [a.id for a in GameState.from_dict(EXAMPLE).allowed_actions("fast")]


def test_minimal_state_gets_the_documented_defaults():
    state = GameState.from_dict({"format": "ygo-onto.state/1", "players": {"A": {}, "B": {
        "monster_zones": [{"card": "Dark Magician"}, None, None, None, None],
        "spell_trap_zones": [{"card": "Pot of Greed"}, None, None, None, None]}}})
    d = state.to_dict()
    assert (d["ruleset"], d["turn"], d["turn_player"], d["first_player"], d["phase"], d["priority"], d["chain"],
            d["pending"], d["winner"], d["rng_seed"]) == ("official", 1, "A", "A", "main1", "A", [], None, None, 0)
    a = d["players"]["A"]
    assert (a["life_points"], a["deck"], a["hand"], a["graveyard"], a["banished"], a["extra_deck"], a["field_zone"],
            a["normal_summon_used"]) == (8000, [], [], [], [], [], None, False)
    assert a["monster_zones"] == [None] * 5 and a["spell_trap_zones"] == [None] * 5
    monster = d["players"]["B"]["monster_zones"][0]
    assert monster["owner"] == "B" and monster["position"] == "attack" and monster["summoned_this_turn"] is False
    assert monster["summoned_by"] == "normal" and monster["attacks_declared"] == 0 and monster["equipped_to"] is None
    assert monster["atk_modifier"] == 0 and monster["def_modifier"] == 0 and monster["counters"] == {} and monster["extra"] == {}
    assert d["players"]["B"]["spell_trap_zones"][0]["position"] == "face_up"
    # the extra object is free and kept as it is
    data = copy.deepcopy(EXAMPLE)
    data["players"]["A"]["monster_zones"][0]["extra"] = {"note": [1, {"x": None}]}
    assert GameState.from_dict(data).to_dict()["players"]["A"]["monster_zones"][0]["extra"] == {"note": [1, {"x": None}]}


@pytest.mark.parametrize("ruleset", ["official", "simplified"])
def test_every_state_apply_writes_is_a_decision_point_and_round_trips(ruleset):
    from ygo_onto.duel import new_duel

    state = new_duel(ruleset, 11, "fast")
    rng = random.Random(11)
    for _ in range(60):
        actions = state.allowed_actions("fast")
        if state.winner is not None:
            assert actions == []
            break
        assert actions, "a state apply wrote with no winner and nothing to do"
        assert {a.to_dict()["player"] for a in actions} == {state.to_dict()["priority"]}
        assert len({a.id for a in actions}) == len(actions)
        assert not all(a.type == "pass" for a in actions), "the engine passes by itself where a pass is the only choice"
        d = state.to_dict()
        again = GameState.from_dict(json.loads(json.dumps(d)))
        assert again.to_dict() == d
        assert [a.id for a in again.allowed_actions("fast")] == [a.id for a in actions]
        action = rng.choice(actions)
        nxt = state.apply(action)
        assert state.to_dict() == d
        state = nxt


def test_a_finished_duel_refuses_every_action():
    data = copy.deepcopy(EXAMPLE)
    data["players"]["B"]["deck"] = []
    state = GameState.from_dict(data).apply("end_turn")  # B must draw from an empty deck
    assert state.winner == "A" and state.allowed_actions("fast") == []
    with pytest.raises(IllegalActionError, match="over"):
        state.apply("end_turn")
