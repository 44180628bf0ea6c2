"""`ygo-onto mcp` (src/ygo_onto/mcp_server.py, docs/mcp.md) driven by the MCP SDK's own client: in process, over
stdio (the `ygo-onto mcp` command as a subprocess) and over streamable HTTP (`--http PORT`)."""
import json
import os
import random
import signal
import socket
import subprocess
import sys
import time

import pytest

pytest.importorskip("mcp")

import anyio  # noqa: E402
from mcp import Client, StdioServerParameters  # noqa: E402

from ygo_onto.duel import new_duel  # noqa: E402
from ygo_onto.mcp_server import build_server  # noqa: E402

TOOLS = {"new_duel", "view", "allowed_actions", "apply", "explain", "solve", "cards", "close_duel"}


def run(script, server=None):
    """Run `await script(call)` against a server (a new in-process one by default); `call(tool, **args)` gives
    (is_error, the result's JSON or the error's text)."""
    async def main():
        async with Client(server if server is not None else build_server()) as client:
            async def call(tool, **args):
                result = await client.call_tool(tool, args)
                text = result.content[0].text
                return result.is_error, (text if result.is_error else json.loads(text))
            return await script(call, client)
    return anyio.run(main)


def test_the_tools_are_listed():
    async def script(call, client):
        return {t.name for t in (await client.list_tools()).tools}
    assert run(script) == TOOLS


def test_a_whole_duel_by_tool_calls_alone():
    async def script(call, client):
        rng = random.Random(5)
        error, duel = await call("new_duel", ruleset="official", seed=5)
        assert not error and duel["to_act"] == "A" and duel["duel"] == "d1"
        status, played = duel, 0
        while status["winner"] is None:
            player = status["to_act"]
            error, view = await call("view", duel="d1", player=player)
            assert not error and view["viewer"] == player
            error, listed = await call("allowed_actions", duel="d1", player=player)
            assert not error and listed["actions"]
            ids = [a["id"] for a in listed["actions"]]
            attacks = [i for i in ids if i.startswith(("attack", "direct_attack"))]
            summons = [i for i in ids if i.startswith("normal_summon")]
            battle = [i for i in ids if i == "next_phase:battle"]
            choice = rng.choice(attacks or summons or battle or ids)
            error, status = await call("apply", duel="d1", action=choice, player=player)
            assert not error, status
            played += 1
            assert played < 1500
        return status, played, (await call("view", duel="d1", player="A"))[1]
    status, played, view = run(script)
    assert status["winner"] in ("A", "B") and status["to_act"] is None and status["actions_played"] == played
    loser = view["players"]["B" if status["winner"] == "A" else "A"]
    assert loser["life_points"] == 0 or not loser["deck"]  # rulebook p. 22: the two ways to lose


def test_an_illegal_action_is_refused_with_the_allowed_ones_listed_and_explained():
    async def script(call, client):
        await call("new_duel", seed=1)
        _, listed = await call("allowed_actions", duel="d1")
        refused = await call("apply", duel="d1", action="next_phase:battle")
        why = await call("explain", duel="d1", action="next_phase:battle")
        allowed = await call("explain", duel="d1", action=listed["actions"][0]["id"])
        _, after = await call("allowed_actions", duel="d1")
        return listed, refused, why, allowed, after
    listed, (error, text), (why_error, why), (_, allowed), after = run(script)
    assert error and "refused" in text and "not allowed" in text
    for action in listed["actions"]:
        assert action["id"] in text
    assert after["actions_played"] == 0 and after["actions"] == listed["actions"]  # the duel is unchanged
    # explain names the rule and the rulebook (turn 1: no Battle Phase for the first player, p. 26)
    assert not why_error and why["allowed"] is False
    assert "battlePhaseAllowed" in why["text"] and "p. 26" in why["text"]
    assert allowed["allowed"] is True


def test_a_view_over_mcp_hides_the_opponents_cards():
    start = new_duel("official", 2, "fast")
    async def script(call, client):
        await call("new_duel", seed=2)
        return (await call("view", duel="d1", player="B"))[1], (await call("allowed_actions", duel="d1", player="B"))[1]
    view, listed = run(script)
    assert view == start.view("B")
    text = json.dumps(view) + json.dumps(listed)
    a_hand = start.data["players"]["A"]["hand"]
    public = {n for p in ("A", "B") for n in start.data["players"][p]["graveyard"]} | set(start.data["players"]["B"]["hand"])
    for name in set(a_hand) - public:
        assert json.dumps(name) not in text, name
    assert listed["actions"] == []  # B does not act: A's actions would name A's hand


def test_the_one_to_act_alone_may_apply():
    async def script(call, client):
        await call("new_duel", seed=1)
        return await call("apply", duel="d1", action="end_turn", player="B")
    error, text = run(script)
    assert error and "player B may not act now: A holds priority" in text


def test_bad_arguments_name_the_argument_and_the_server_goes_on():
    async def script(call, client):
        out = {}
        out["seed"] = await call("new_duel", seed="x")
        out["ruleset"] = await call("new_duel", ruleset="chess")
        out["decks"] = await call("new_duel", decks=["Dragons", "Zombies"])
        out["decks[1][0]"] = await call("new_duel", decks=["Dragons", ["Blue Eyes Purple Dragon"] * 40])
        out["duel"] = await call("view", duel="d7", player="A")
        error, started = await call("new_duel", seed=3)
        out["player"] = await call("view", duel=started["duel"], player="C")
        out["action"] = await call("apply", duel=started["duel"], action="fly@A.hand0")
        out["max_nodes"] = await call("solve", duel=started["duel"], max_nodes=0)
        out["timeout"] = await call("solve", duel=started["duel"], timeout=-1)
        out["query"] = await call("cards", query="x" * 500)
        still = await call("allowed_actions", duel=started["duel"])
        return out, started, still
    out, started, still = run(script)
    for argument, (error, text) in out.items():
        assert error, (argument, text)
        assert argument.split("[")[0] in text, (argument, text)
        assert "Traceback" not in text
    assert "decks[1]" in out["decks"][1] and "decks[1][0]" in out["decks[1][0]"][1]
    assert started["duel"] == "d1"  # the failed new_duel calls started nothing
    assert not still[0] and still[1]["actions"]


def test_several_duels_at_once_each_under_its_id():
    async def script(call, client):
        _, one = await call("new_duel", seed=1)
        _, two = await call("new_duel", seed=2)
        await call("apply", duel=one["duel"], action="end_turn")
        views = [(await call("view", duel=d["duel"], player="A"))[1] for d in (one, two)]
        closed = await call("close_duel", duel=one["duel"])
        gone = await call("view", duel=one["duel"], player="A")
        return one, two, views, closed, gone
    one, two, (v1, v2), closed, gone = run(script)
    assert (one["duel"], two["duel"]) == ("d1", "d2")
    assert v1["turn"] == 2 and v2["turn"] == 1
    assert v2 == new_duel("official", 2, "fast").view("A")
    assert closed == (False, {"closed": "d1"}) and gone[0] and "duel:" in gone[1]


def test_solve_and_cards():
    async def script(call, client):
        _, d = await call("new_duel", seed=1)
        return await call("solve", duel=d["duel"], max_nodes=3, timeout=20), await call("cards", query="Dark Magician")
    (error, solved), (_, found) = run(script)
    assert not error and solved["result"] in ("unknown", "no_win", "win") and solved["nodes"] <= 3 + 1
    assert solved["text"].startswith(solved["result"])
    card = next(c for c in found["cards"] if c["name"] == "Dark Magician")
    assert card["atk"] == 2500 and card["kind"]


def test_new_duel_with_decks():
    from ygo_onto.duel import sample_decks

    warriors = sample_decks()["Warriors"]
    async def script(call, client):
        _, d = await call("new_duel", seed=4, decks=["Warriors", warriors])
        return (await call("view", duel=d["duel"], player="A"))[1], (await call("view", duel=d["duel"], player="B"))[1]
    a, b = run(script)
    hands = a["players"]["A"]["hand"] + b["players"]["B"]["hand"]
    assert set(hands) <= set(warriors)


def _server_command():
    return [sys.executable, "-m", "ygo_onto", "mcp"]


def test_the_mcp_command_serves_on_stdio():
    # the SDK passes the server a few variables alone: the cache directory (XDG_CACHE_HOME) too
    params = StdioServerParameters(command=sys.executable, args=_server_command()[1:], env=dict(os.environ))
    async def script(call, client):
        _, d = await call("new_duel", seed=1)
        return await call("allowed_actions", duel=d["duel"]), await call("apply", duel=d["duel"], action="bogus")
    (error, listed), (bad, text) = run(script, params)
    assert not error and "normal_summon@A.hand0" in [a["id"] for a in listed["actions"]]
    assert bad and "action:" in text


def _free_port():
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def test_the_mcp_command_serves_streamable_http():
    port = _free_port()
    proc = subprocess.Popen([*_server_command(), "--http", str(port)], stdout=subprocess.DEVNULL,
                            stderr=subprocess.PIPE, start_new_session=True)
    try:
        deadline = time.time() + 60
        while True:
            with socket.socket() as s:
                if s.connect_ex(("127.0.0.1", port)) == 0:
                    break
            assert proc.poll() is None, proc.stderr.read().decode()
            assert time.time() < deadline, "the server did not listen within 60 s"
            time.sleep(0.2)
        async def script(call, client):
            _, d = await call("new_duel", seed=1)
            return await call("view", duel=d["duel"], player="A")
        error, view = run(script, f"http://127.0.0.1:{port}/mcp")
        assert not error and view["viewer"] == "A"
    finally:
        os.killpg(proc.pid, signal.SIGTERM)
        proc.wait(timeout=30)


def test_the_mcp_command_refuses_a_bad_port():
    from cli_runner import cli

    code, out = cli("mcp", "--http", "70000")
    assert code == 2 and "--http: expected a port" in out


def test_the_random_agent_example_plays_a_duel_through_the_server():
    from pathlib import Path

    example = Path(__file__).resolve().parent.parent / "examples" / "mcp_random_agent.py"
    done = subprocess.run([sys.executable, str(example), "--seed", "3"], capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-2000:]
    lines = done.stdout.strip().splitlines()
    result = json.loads(lines[-1])
    assert result["winner"] in ("A", "B") and result["actions"] > 10
    # its model proposed an action that is not allowed: refused with the allowed ids, then explained by rule
    assert result["refused"] == 1
    assert any("refused" in line and "allowed:" in line for line in lines)
    assert any(line.strip().startswith("explain: rule ") for line in lines)


def test_calls_at_once_are_served_one_at_a_time():
    """The SDK runs each call in a worker thread: calls made together still give each duel its own id and state."""
    async def script(call, client):
        results = {}

        async def play(seed):
            _, d = await call("new_duel", seed=seed)
            _, listed = await call("allowed_actions", duel=d["duel"])
            error, after = await call("apply", duel=d["duel"], action=listed["actions"][-1]["id"])
            results[seed] = (d["duel"], error, after, (await call("view", duel=d["duel"], player="A"))[1])

        async with anyio.create_task_group() as group:
            for seed in range(1, 5):
                group.start_soon(play, seed)
        return results
    results = run(script)
    assert sorted(r[0] for r in results.values()) == ["d1", "d2", "d3", "d4"]
    for seed, (_, error, after, view) in results.items():
        start = new_duel("official", seed, "fast")
        expected = start.apply(start.allowed_actions()[-1])
        assert not error and view == expected.view("A")
