"""Play a duel through `ygo-onto mcp` as an LLM harness would, with a random "model" in place of the language model.

    python examples/mcp_random_agent.py --seed 3            # starts `ygo-onto mcp` on stdio and plays a duel
    python examples/mcp_random_agent.py --url http://127.0.0.1:8765/mcp   # a server started with --http 8765

Each decision goes as it would with a model: the harness gives the player to act its own view and its allowed
actions (ids with a line of text), the model answers with one id, the harness applies it.  Once, the model first
proposes an action that is not allowed, as models do: the server refuses it, listing the allowed ids, and `explain`
says which rule refuses it; the harness hands that back and asks again.  Needs the MCP SDK: pip install -e ".[mcp]".
"""
from __future__ import annotations

import argparse
import json
import os
import random
import sys

import anyio
from mcp import Client, StdioServerParameters


def prompt(view: dict, actions: list[dict]) -> str:
    """What a model would read: the player's view and the numbered choices (the model is random here)."""
    me = view["viewer"]
    mine, theirs = view["players"][me], view["players"]["B" if me == "A" else "A"]
    field = [fc["card"] or "a face-down card" for fc in mine["monster_zones"] if fc]
    lines = [f"You are player {me}. Turn {view['turn']}, phase {view['phase']}. "
             f"LP: you {mine['life_points']}, opponent {theirs['life_points']}.",
             f"Your hand: {', '.join(mine['hand']) or 'empty'}. Your monsters: {', '.join(field) or 'none'}.",
             f"The opponent holds {len(theirs['hand'])} cards; their deck has {len(theirs['deck'])}.",
             "Choose one action id:"]
    lines += [f"  {a['id']}: {a['text']}" for a in actions]
    return "\n".join(lines)


class RandomModel:
    """Stands in for a language model: reads the prompt, answers with an action id (once, a wrong one first)."""

    def __init__(self, seed: int):
        self.rng = random.Random(seed)
        self.tried_an_illegal_action = False

    def choose(self, text: str, ids: list[str]) -> str:
        if not self.tried_an_illegal_action and "next_phase:battle" not in ids:
            self.tried_an_illegal_action = True
            return "next_phase:battle"
        attacks = [i for i in ids if i.startswith(("attack", "direct_attack"))]
        summons = [i for i in ids if i.startswith(("normal_summon", "tribute_summon"))]
        return self.rng.choice(attacks or summons or ids)


def parse(result) -> tuple[bool, object]:
    text = result.content[0].text
    return result.is_error, (text if result.is_error else json.loads(text))


async def play(server, seed: int, ruleset: str, max_actions: int, say) -> dict:
    model = RandomModel(seed)
    async with Client(server) as client:
        async def call(tool, **args):
            return parse(await client.call_tool(tool, args))

        error, status = await call("new_duel", ruleset=ruleset, seed=seed)
        if error:
            raise SystemExit(f"new_duel: {status}")
        duel = status["duel"]
        say(f"duel {duel}: {ruleset}, seed {seed}; {status['to_act']} acts first")
        refusals = 0
        while status["winner"] is None and status["actions_played"] < max_actions:
            player = status["to_act"]
            _, view = await call("view", duel=duel, player=player)
            _, listed = await call("allowed_actions", duel=duel, player=player)
            text = prompt(view, listed["actions"])
            ids = [a["id"] for a in listed["actions"]]
            choice = model.choose(text, ids)
            error, result = await call("apply", duel=duel, action=choice, player=player)
            if error:  # hand the refusal and its reason back to the model, as a harness would, and ask again
                refusals += 1
                _, why = await call("explain", duel=duel, action=choice)
                say(f"  {player} proposed {choice}: {result}")
                say("  explain: " + why["text"].splitlines()[1].strip())
                continue
            status = result
            say(f"  {player}: {choice}  (LP A {status['life_points']['A']} / B {status['life_points']['B']})")
        return {"duel": duel, "winner": status["winner"], "actions": status["actions_played"], "refused": refusals}


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--ruleset", default="official")
    parser.add_argument("--max-actions", type=int, default=2000)
    parser.add_argument("--url", help="a streamable HTTP server's URL (default: start `ygo-onto mcp` on stdio)")
    parser.add_argument("--quiet", action="store_true", help="print only the result (JSON)")
    args = parser.parse_args(argv)
    # the server gets this process's environment (the SDK passes a few variables alone otherwise): its cache
    # directory (XDG_CACHE_HOME) and PYTHONPATH stay the harness's
    server = args.url or StdioServerParameters(command=sys.executable, args=["-m", "ygo_onto", "mcp"],
                                               env=dict(os.environ))
    say = (lambda _: None) if args.quiet else print
    result = anyio.run(play, server, args.seed, args.ruleset, args.max_actions, say)
    print(json.dumps(result))
    return 0 if result["winner"] is not None else 1


if __name__ == "__main__":
    sys.exit(main())
