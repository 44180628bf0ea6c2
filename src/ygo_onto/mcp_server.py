"""`ygo-onto mcp`: the engine as a Model Context Protocol server (docs/mcp.md), on the official MCP Python SDK.

A thin layer: `Duels` holds the duels being played, each a `duel.Duel` under an id, and every tool calls the
Python API (`duel.new_duel`, `GameState.view`, `allowed_actions`, `Duel.push`, `explain_action`, `search.solve`,
the card catalog).  A tool's bad argument or a refused action is a YgoError; the server turns it into an MCP
tool error (`isError`) whose text names the argument, and goes on serving.
"""
from __future__ import annotations

import itertools
import threading
from typing import Any

from . import reasoning
from .actions import describe
from .cards import RULESETS, catalog
from .duel import Duel, new_duel
from .errors import IllegalActionError, StateError, YgoError
from .state import PLAYERS, show
from .view import action_as_seen

MAX_DUELS = 100  # duels kept at once: a client that never closes one cannot grow the server without bound
MAX_SOLVE_NODES = 200_000
MAX_SOLVE_SECONDS = 300.0
INSTRUCTIONS = (
    "A Yu-Gi-Oh! duel engine whose rules are SWRL rules run by an OWL reasoner. Start a duel with new_duel; "
    "the player to act is `to_act`. Each turn: view (your player's view: hidden cards are null), allowed_actions "
    "(ids with a line of text each), then apply one id. explain says why an action is allowed or refused, "
    "naming the rules and facts. solve searches for a line that wins this turn. cards looks up card text.")


class Duels:
    """The duels of one server, each under an id ("d1", "d2", ...), and the tools' work on them."""

    def __init__(self, reasoner: str = reasoning.DEFAULT):
        self.reasoner = reasoner
        self.duels: dict[str, Duel] = {}
        self._ids = itertools.count(1)
        # the SDK runs a tool function in a worker thread, and two clients (HTTP) can call at once: one call at a
        # time, since the engine's caches and the knowledge in use are the process's
        self.lock = threading.Lock()

    # ------------------------------------------------------------------ arguments
    def _duel(self, duel) -> Duel:
        if duel not in self.duels:
            known = ", ".join(self.duels) or "none started: call new_duel"
            raise StateError(f"duel: expected the id of a duel of this server ({known}), got {show(duel)}")
        return self.duels[duel]

    @staticmethod
    def _player(player, argument: str = "player") -> str:
        if player not in PLAYERS:
            raise StateError(f"{argument}: expected 'A' or 'B', got {show(player)}")
        return player

    @staticmethod
    def _status(d: Duel) -> dict:
        data = d.state.data
        return {"to_act": None if data["winner"] is not None else data["priority"], "winner": data["winner"],
                "turn": data["turn"], "turn_player": data["turn_player"], "phase": data["phase"],
                "life_points": {p: data["players"][p]["life_points"] for p in PLAYERS}, "actions_played": len(d)}

    # ------------------------------------------------------------------ the tools
    def new_duel(self, ruleset: str = "official", seed: int = 0, decks=None) -> dict:
        if len(self.duels) >= MAX_DUELS:
            raise StateError(f"new_duel: expected at most {MAX_DUELS} duels at once, got one more: close_duel one first")
        if type(seed) is not int or not 0 <= seed < 2**63:
            raise StateError(f"seed: expected an integer from 0 to 2**63-1, got {show(seed)}")
        start = new_duel(ruleset, seed, self.reasoner, decks)
        key = f"d{next(self._ids)}"
        self.duels[key] = Duel(start, self.reasoner)
        return {"duel": key, "ruleset": ruleset, "seed": seed, **self._status(self.duels[key])}

    def view(self, duel: str, player: str) -> dict:
        return self._duel(duel).state.view(self._player(player))

    def allowed_actions(self, duel: str, player: str | None = None) -> dict:
        """The actions of the player to act, each an id and a line of text that names only the cards that player
        can see (an attack on a face-down monster names no monster).  With `player`: that player's actions, none
        while the other one acts (their actions would name the cards in their hand)."""
        d = self._duel(duel)
        status = self._status(d)
        if (player is not None and self._player(player) != status["to_act"]) or status["to_act"] is None:
            return {**status, "actions": []}  # (a duel that is over: nobody acts)
        seen = d.state.view(status["to_act"])  # the actions as the acting player sees them
        return {**status, "actions": [{"id": a.id, "text": _line(action_as_seen(a.to_dict(), seen))}
                                      for a in d.actions]}

    def apply(self, duel: str, action, player: str | None = None) -> dict:
        d = self._duel(duel)
        if not isinstance(action, (str, dict)):
            raise StateError(f"action: expected an action id or an action object, got {show(action)}")
        to_act = self._status(d)["to_act"]
        if player is not None and self._player(player) != to_act:
            raise IllegalActionError(f"player {player} may not act now: " + (
                "the duel is over" if to_act is None else f"{to_act} holds priority"))
        before = d.state
        d.push(action)
        applied = d.moves[-1]
        return {"applied": applied.id if hasattr(applied, "id") else applied, "by": before.data["priority"],
                **self._status(d)}

    def explain(self, duel: str, action) -> dict:
        from .explain import explain_action

        if not isinstance(action, (str, dict)):
            raise StateError(f"action: expected an action id or an action object, got {show(action)}")
        report = explain_action(self._duel(duel).state, action, self.reasoner)
        return {"allowed": report.allowed, "text": report.text()}

    def solve(self, duel: str, max_nodes: int = 2000, timeout: float = 10.0) -> dict:
        from .search import format_strategy, solve

        if type(max_nodes) is not int or not 1 <= max_nodes <= MAX_SOLVE_NODES:
            raise StateError(f"max_nodes: expected an integer from 1 to {MAX_SOLVE_NODES}, got {show(max_nodes)}")
        if not isinstance(timeout, (int, float)) or isinstance(timeout, bool) or not 0 < timeout <= MAX_SOLVE_SECONDS:
            raise StateError(f"timeout: expected a number of seconds above 0 and at most {MAX_SOLVE_SECONDS:g}, "
                             f"got {show(timeout)}")
        result = solve(self._duel(duel).state, reasoner=self.reasoner, max_nodes=max_nodes, timeout=float(timeout))
        return {**result.to_dict(), "text": format_strategy(result)}

    def cards(self, query: str = "", ruleset: str = "official") -> dict:
        if ruleset not in RULESETS:
            raise StateError(f"ruleset: expected one of {', '.join(RULESETS)}, got {show(ruleset)}")
        if not isinstance(query, str) or len(query) > 200:
            raise StateError(f"query: expected a text of at most 200 characters, got {show(query)}")
        return {"cards": [c.summary() for c in catalog(ruleset).search(query)]}

    def close_duel(self, duel: str) -> dict:
        self._duel(duel)
        del self.duels[duel]
        return {"closed": duel}


def _line(action: dict) -> str:
    """An allowed action as one line: its player, its type, and its card, target, choice or purpose (a hidden
    card: "a hidden card")."""
    shown = {k: "a hidden card" if k in ("card", "target") and v is None else v for k, v in action.items()}
    return " ".join(x for x in (action["player"] + ":", action["type"].replace("_", " "), describe(shown)) if x)


def build_server(reasoner: str = reasoning.DEFAULT):
    """The MCPServer (the SDK's FastMCP) with the tools of docs/mcp.md on a new `Duels`."""
    from mcp.server.mcpserver import MCPServer
    from mcp.server.mcpserver.exceptions import ToolError

    duels = Duels(reasoner)
    server = MCPServer("ygo-onto", instructions=INSTRUCTIONS, log_level="WARNING")  # a refusal is no news

    def call(method, *args):
        try:
            with duels.lock:
                return method(*args)
        except IllegalActionError as exc:
            raise ToolError(f"refused: {exc}") from None
        except YgoError as exc:
            raise ToolError(str(exc)) from None

    @server.tool()
    def new_duel(ruleset: str = "official", seed: int = 0,
                 decks: list[str | list[str]] | None = None) -> dict:
        """Start a duel; returns its id (`duel`) and who acts first (`to_act`). ruleset: official, simplified or goat.
        seed: the shuffles and dice. decks (official, goat): A's and B's, each a deck the package carries
        (official: Dragons, Warriors; goat: chaos-control, warrior, ... as `ygo-onto examples` lists them) or a
        list of card names; left out, official plays Dragons against Warriors, goat chaos-control against warrior."""
        return call(duels.new_duel, ruleset, seed, decks)

    @server.tool()
    def view(duel: str, player: str) -> dict:
        """The duel as `player` (A or B) sees it: the opponent's hand, both Decks and face-down cards the player
        does not control or own are null; counts stay. Format: ygo-onto.view/1 (docs/state-format.md)."""
        return call(duels.view, duel, player)

    @server.tool()
    def allowed_actions(duel: str, player: str | None = None) -> dict:
        """The actions the player to act (`to_act`) may take now: each an `id` (for apply) and a line of `text`.
        Give `player` as an agent: the list is empty while the other player acts."""
        return call(duels.allowed_actions, duel, player)

    @server.tool()
    def apply(duel: str, action: str | dict[str, Any], player: str | None = None) -> dict:
        """Take an action: an id from allowed_actions (or an action object, docs/actions-and-cli.md). An action
        that is not allowed is refused with the reason and the allowed ids; the duel is unchanged. `player`: the
        agent's player, refused unless it is the one to act."""
        return call(duels.apply, duel, action, player)

    @server.tool()
    def explain(duel: str, action: str | dict[str, Any]) -> dict:
        """Why an action is allowed (the rules that fire and the facts they match) or why not (the rule that
        comes closest and its condition that fails). Reads the full state."""
        return call(duels.explain, duel, action)

    @server.tool()
    def solve(duel: str, max_nodes: int = 2000, timeout: float = 10.0) -> dict:
        """Search for a line that wins this turn whatever the opponent answers: result win, no_win or unknown
        (out of budget: max_nodes states expanded, or timeout seconds). Reads the full state."""
        return call(duels.solve, duel, max_nodes, timeout)

    @server.tool()
    def cards(query: str = "", ruleset: str = "official") -> dict:
        """Card text: the catalog's cards whose name, kind, type, attribute or text holds `query`."""
        return call(duels.cards, query, ruleset)

    @server.tool()
    def close_duel(duel: str) -> dict:
        """Forget a duel (at most 100 are kept at once)."""
        return call(duels.close_duel, duel)

    server.duels = duels
    return server


def serve(reasoner: str = reasoning.DEFAULT, http_port: int | None = None, host: str = "127.0.0.1") -> None:
    """Serve on stdio, or with `http_port` on streamable HTTP at http://HOST:PORT/mcp."""
    server = build_server(reasoner)
    if http_port is None:
        server.run(transport="stdio")
    else:
        server.run(transport="streamable-http", host=host, port=http_port)
