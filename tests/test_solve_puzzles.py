"""`ygo-onto solve` as a puzzle author or a grader would use it.

The puzzles of tests/fixtures/solve_puzzles/ were written from the rulebook (seed 003) and the
contract (README "Solving a puzzle", docs/actions-and-cli.md), in both rulesets: a win this turn
by one line (Raigeki, Dark Hole, a Tribute Summon, Axe of Despair, Polymerization, a Synchro
Summon, Brain Control, Monster Reborn, a Flip Summon, Typhoon before Mirror Force, three
attackers against Sakuretsu Armor, ...) and no win (LP too high, turn 1 of the first player,
monsters that already attacked, Main Phase 2, the opponent's Set answers).  Each carries its
expected result in `extra.puzzle`.  A found line must be legal (every step an allowed action,
exactly as `allowed --json` prints it) and win when replayed with `apply` (the winner is the
turn player); the strategy must cover every answer the opponent has along it.
"""
import json
import math
from pathlib import Path

import pytest
from puzzle_cache import expected, solved
from typer.testing import CliRunner

from ygo_onto import GameState, StateError
from ygo_onto.cli import app
from ygo_onto.search import format_strategy, reachable_damage, solve

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures" / "solve_puzzles"
PUZZLES = sorted(FIXTURES.glob("*.json"))
BIG = {  # many cards in hand and a Sakuretsu Armor: a proof either way takes long
    "format": "ygo-onto.state/1", "turn": 3, "phase": "main1",
    "players": {
        "A": {"hand": ["Pot of Greed", "Vorse Raider", "Celtic Guardian", "Axe of Despair", "Brain Control"],
              "deck": ["Raigeki", "Dark Hole", "Monster Reborn", "Feral Imp"], "graveyard": ["Summoned Skull"],
              "monster_zones": [{"card": "Feral Imp"}, {"card": "Mystical Elf"}, None, None, None]},
        "B": {"deck": ["Beaver Warrior"] * 3,
              "monster_zones": [{"card": "Summoned Skull"}, {"card": "Celtic Guardian"}, None, None, None],
              "spell_trap_zones": [{"card": "Sakuretsu Armor", "position": "face_down"}, None, None, None, None]}}}
runner = CliRunner()


WINS = [p for p in PUZZLES if expected(p) == "win"]
NO_WINS = [p for p in PUZZLES if expected(p) == "no_win"]


def test_the_fixtures_cover_both_rulesets_and_both_answers():
    rulesets = {(json.loads(p.read_text())["ruleset"], expected(p)) for p in PUZZLES}
    assert rulesets == {("official", "win"), ("official", "no_win"), ("simplified", "win"), ("simplified", "no_win")}


@pytest.mark.parametrize("path", PUZZLES, ids=lambda p: p.stem)
def test_each_puzzle_gets_its_expected_answer(path):
    result = solved(path)
    assert result.result == expected(path), f"{path.name}: {result.result} in {result.nodes} nodes"
    assert (result.line != []) == (result.result == "win")
    assert result.limit is None


def _walk(state: GameState, line: list, branches: list, me: str) -> None:
    """Replay a line step by step: each step must be an allowed action (the same object `allowed
    --json` prints), the line must end with `me` the winner, and at each decision of the opponent
    every allowed answer must be the line's own or have a branch, which is replayed in turn."""
    states = [state]
    for step in line:
        here = states[-1]
        assert here.winner is None, "the line goes on after the duel is over"
        allowed = [a.to_dict() for a in here.allowed_actions("fast")]
        assert step in allowed, f"{step['id']} is not allowed at {here!r}"
        states.append(here.apply(step, "fast"))
    assert states[-1].winner == me, f"the line ends with winner {states[-1].winner}"
    for i, step in enumerate(line):
        if step["player"] == me:
            continue
        answers = {a.id for a in states[i].allowed_actions("fast")}
        covered = {step["id"]} | {b["answer"]["id"] for b in branches if b["at"] == i}
        assert answers == covered, f"answers of the opponent without a continuation: {answers - covered}"
    for b in branches:
        at = states[b["at"]]
        assert at.data["priority"] != me, "a branch starts at an answer of the opponent"
        _walk(at.apply(b["answer"], "fast"), b["line"], b["branches"], me)


@pytest.mark.parametrize("path", WINS, ids=lambda p: p.stem)
def test_the_line_is_legal_and_wins_against_every_answer(path):
    result = solved(path)
    start = GameState.load(path)
    me = start.data["turn_player"]
    out = result.to_dict()
    _walk(start, out["line"], out["strategy"].get("branches", []), me)


@pytest.mark.parametrize("name", ["o-mirror-force-typhoon", "o-sakuretsu-three-attackers", "s-change-of-heart",
                                  "o-b-is-the-turn-player"])
def test_the_cli_line_replays_with_the_cli_apply(tmp_path, name):
    """As a grader: `solve --json`, then each action object given to `ygo-onto apply` as JSON text."""
    path = FIXTURES / f"{name}.json"
    res = runner.invoke(app, ["solve", str(path), "--json"])
    assert res.exit_code == 0, res.output
    out = json.loads(res.output)
    assert set(out) == {"result", "line", "strategy", "nodes", "seconds"} and out["result"] == "win"
    current = path
    for i, action in enumerate(out["line"]):
        nxt = tmp_path / f"step{i}.json"
        res = runner.invoke(app, ["apply", str(current), json.dumps(action), "-o", str(nxt)])
        assert res.exit_code == 0, f"step {i} {action['id']}: {res.output}"
        current = nxt
    final = json.loads(current.read_text())
    assert final["winner"] == json.loads(path.read_text())["turn_player"]


@pytest.mark.parametrize("path", NO_WINS[:3], ids=lambda p: p.stem)
def test_no_win_is_exit_0_with_a_message(path):
    res = runner.invoke(app, ["solve", str(path)])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("no_win:") and "no line wins this turn" in res.output
    res = runner.invoke(app, ["solve", str(path), "--json"])
    out = json.loads(res.output)
    assert res.exit_code == 0 and out["result"] == "no_win" and out["line"] == [] and out["strategy"] == {}


def test_the_opponents_answers_are_considered():
    """The doc promises a win 'whatever the opponent answers': a Set Mirror Force / Sakuretsu / MST
    that can stop the line makes it no win, and the winning line shows the answer it survives."""
    assert solved(FIXTURES / "o-no-win-mirror-force.json").result == "no_win"
    assert solved(FIXTURES / "o-no-win-typhoon-on-the-axe.json").result == "no_win"
    sak = solved(FIXTURES / "o-sakuretsu-three-attackers.json").to_dict()
    answers = [a for a in sak["line"] if a["player"] == "B"] + [b["answer"] for b in sak["strategy"]["branches"]]
    assert any(a["type"] == "activate" and a["card"] == "Sakuretsu Armor" for a in answers)


def test_own_swords_activated_this_turn_does_not_stop_the_attack():
    """Swords of Revealing Light binds the opponent's monsters, not its own player's (cards.md)."""
    state = GameState.load(FIXTURES / "o-own-swords-irrelevant.json")
    after = state.apply("activate@A.hand0", "fast")
    assert after.data["chain"] == [] and after.data["priority"] == "A"
    again = solve(after, reasoner="fast")
    assert again.result == "win" and any(a.type == "direct_attack" for a in again.line)


@pytest.mark.parametrize("name", ["s-card-destruction-after-battle", "s-card-destruction-main-2",
                                  "s-pot-of-greed-draws-card-destruction"])
def test_a_win_without_damage_is_not_pruned_after_the_battle_phase(name):
    """The bound 'no damage after the Battle Phase' must not prune a deck-out win (simplified
    Card Destruction in Main Phase 2, seed 002 section 3): it holds only when no card
    that makes a player lose otherwise is in the state."""
    state = GameState.load(FIXTURES / f"{name}.json")
    assert math.isinf(reachable_damage(state, "A", state.data["turn"]))
    result = solved(FIXTURES / f"{name}.json")
    assert result.result == "win" and result.line[-1].to_dict()["card"] == "Card Destruction"


def test_the_bound_still_prunes_without_such_a_card():
    state = GameState.load(FIXTURES / "o-no-win-main-phase-2.json")
    assert reachable_damage(state, "A", state.data["turn"]) == 0
    s_state = GameState.load(FIXTURES / "s-no-win-already-attacked.json")
    assert reachable_damage(s_state, "A", s_state.data["turn"]) == 0
    # the opponent's Card Destruction is its own choice to play: it does not lift the bound
    d = json.loads((FIXTURES / "s-card-destruction-main-2.json").read_text())
    d["players"]["A"]["hand"], d["players"]["B"]["hand"] = ["Kuriboh"], ["Card Destruction"]
    theirs = GameState.from_dict(d)
    assert reachable_damage(theirs, "A", theirs.data["turn"]) == 0
    assert solve(theirs).result == "no_win"
    # the turn player's copy in its Deck counts only when a card of its own may still draw it
    d["players"]["A"]["deck"] = ["Card Destruction", "Celtic Guardian"]
    deck_only = GameState.from_dict(d)
    assert reachable_damage(deck_only, "A", deck_only.data["turn"]) == 0
    d["players"]["A"]["hand"] = ["Kuriboh", "Pot of Greed"]
    drawable = GameState.from_dict(d)
    assert math.isinf(reachable_damage(drawable, "A", drawable.data["turn"]))


def test_the_node_budget_gives_unknown_and_says_so(tmp_path):
    big = tmp_path / "big.json"
    big.write_text(json.dumps(BIG))
    res = runner.invoke(app, ["solve", str(big), "--max-nodes", "15"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("unknown:") and "--max-nodes 15" in res.output
    res = runner.invoke(app, ["solve", str(big), "--max-nodes", "15", "--json"])
    out = json.loads(res.output)
    assert out["result"] == "unknown" and out["line"] == [] and out["nodes"] <= 15
    result = solve(GameState.from_dict(BIG), max_nodes=15)
    assert result.result == "unknown" and result.limit == "nodes" and result.nodes <= 15


def test_the_time_budget_gives_unknown_and_says_so(tmp_path):
    big = tmp_path / "big.json"
    big.write_text(json.dumps(BIG))
    res = runner.invoke(app, ["solve", str(big), "--timeout", "1.5"])
    assert res.exit_code == 0, res.output
    assert res.output.startswith("unknown:") and "--timeout 1.5 s" in res.output
    result = solve(GameState.from_dict(BIG), timeout=1.5)
    assert result.result == "unknown" and result.limit == "time"
    assert result.seconds < 1.5 + 10  # one state's reasoning may overrun; the machine is shared


def test_a_finished_duel_says_so(tmp_path):
    d = json.loads((FIXTURES / "o-flip-summon.json").read_text())
    d["players"]["B"]["life_points"] = 0
    for winner, answer in (("A", "win"), ("B", "no_win")):
        d["winner"] = winner
        path = tmp_path / f"won-{winner}.json"
        path.write_text(json.dumps(d))
        res = runner.invoke(app, ["solve", str(path)])
        assert res.exit_code == 0 and res.output.startswith(f"{answer}:")
        assert f"already over (won by {winner})" in res.output
        assert solve(GameState.load(path)).line == []


def test_python_api_refuses_a_budget_that_cannot_run():
    state = GameState.load(FIXTURES / "o-raigeki.json")
    for kwargs in ({"max_nodes": 0}, {"max_nodes": -1}, {"max_nodes": 2.5}, {"max_nodes": True},
                   {"timeout": 0}, {"timeout": -1.0}, {"timeout": float("nan")}):
        with pytest.raises(StateError):
            solve(state, **kwargs)
    assert solve(state, timeout=float("inf")).result == "win"  # the search agent's call


@pytest.mark.parametrize("content,args,word", [
    (None, [], "expected a readable state file"),
    ("{bad", [], "expected JSON"),
    ("[]", [], "expected an object"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {"hand": ["Blue Eyes"]}, "B": {}}}', [], "Blue-Eyes White Dragon"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {"colour": 1}, "B": {}}}', [], "colour"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}}', ["--ruleset", "bogus"], "ruleset"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}}', ["--max-nodes", "0"], "--max-nodes"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}}', ["--max-nodes", "abc"], "max-nodes"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}}', ["--timeout", "nan"], "--timeout"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}}', ["--timeout", "-1"], "--timeout"),
    ('{"format": "ygo-onto.state/1", "players": {"A": {}, "B": {}}}', ["--reasoner", "bogus"], "reasoner"),
], ids=["missing", "syntax", "not-an-object", "unknown-card", "unknown-key", "ruleset", "max-nodes-0",
        "max-nodes-text", "timeout-nan", "timeout-negative", "reasoner"])
def test_bad_input_is_exit_2_with_a_message(tmp_path, content, args, word):
    path = tmp_path / "puzzle.json"
    if content is not None:
        path.write_text(content)
    res = runner.invoke(app, ["solve", str(path), *args])
    assert res.exit_code == 2, res.output
    assert word in res.output and "Traceback" not in res.output


def test_format_strategy_names_the_budget():
    result = solve(GameState.from_dict(BIG), max_nodes=3)
    assert "--max-nodes 3" in format_strategy(result)
