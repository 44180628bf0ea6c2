"""Agents that look ahead: a one-ply greedy agent and a search agent (``solve`` for a win this turn).

An agent is a callable ``(state, actions, rng) -> action`` (see ``duel.AGENTS``).  Both agents here
ask the engine only: the children of a state come from ``allowed_actions`` + ``apply`` on the
immutable ``GameState`` (OpenSpiel's clone-before-apply), so no rule of the game is written here.
The score below is a heuristic of *play*, not a rule: it says what a state is worth, never what is
allowed.

Both agents see the whole state the engine sees (the opponent's hand and the deck order included):
they are baselines for self-play, not fair players.
"""
from __future__ import annotations

import random
from collections import OrderedDict

from .cards import catalog
from .game import GameState

WIN_SCORE = 1_000_000.0
# Weights of the state score (LP points per unit).  A card is worth a few hundred LP; a monster on
# the field its ATK (attack) or DEF (defense) plus the card.
CARD_ON_FIELD = 300.0
CARD_IN_HAND = 150.0
MONSTER_STAT = 0.5


def score(state: GameState, me: str) -> float:
    """What ``state`` is worth to player ``me``: the LP difference, the board and the cards (higher is better)."""
    d = state.data
    winner = d["winner"]
    if winner == me:
        return WIN_SCORE
    if winner in ("A", "B"):
        return -WIN_SCORE
    if winner == "draw":
        return 0.0
    opp = "B" if me == "A" else "A"
    return _side(d, me) - _side(d, opp)


def _side(d: dict, p: str) -> float:
    player = d["players"][p]
    cat = catalog(d["ruleset"])
    value = float(player["life_points"]) + CARD_IN_HAND * len(player["hand"])
    for fc in player["monster_zones"]:
        if fc:
            card = cat.get(fc["card"])
            stat = (card.atk or 0) + fc.get("atk_modifier", 0) if fc["position"] == "attack" \
                else (card.defense or 0) + fc.get("def_modifier", 0)
            value += CARD_ON_FIELD + MONSTER_STAT * max(stat, 0)
    value += CARD_ON_FIELD * sum(1 for fc in player["spell_trap_zones"] if fc)
    if player.get("field_zone"):
        value += CARD_ON_FIELD
    return value


PENDING_DEPTH = 4  # selections of one action followed to their end (a Tribute Summon's 2 tributes, a target)


def _value(state: GameState, me: str, reasoner: str, depth: int = PENDING_DEPTH) -> float:
    """The score of a state; while I am in the middle of an action (a pending choice of mine), the best of
    its completions, so that starting a Tribute Summon is worth what the summon is worth."""
    d = state.data
    if depth <= 0 or d["winner"] is not None or d["pending"] is None or d["priority"] != me:
        return score(state, me)
    options = [a for a in state.allowed_actions(reasoner) if a.type != "cancel"]
    if not options:
        return score(state, me)
    return max(_value(state.apply(a, reasoner), me, reasoner, depth - 1) for a in options)


def greedy_choice(state: GameState, actions: list, rng: random.Random, reasoner: str = "fast"):
    """The action whose resulting state scores best for the player holding priority (ties: at random).

    An action begun is finished: it was chosen for the value of its best completion, so `cancel` is
    taken only when nothing else is allowed (scored state by state, starting and cancelling an
    action could win in turn for ever)."""
    me = state.data["priority"]
    actions = [a for a in actions if a.type != "cancel"] or actions
    best, best_score = [], None
    for action in actions:
        value = _value(state.apply(action, reasoner), me, reasoner)
        if best_score is None or value > best_score:
            best, best_score = [action], value
        elif value == best_score:
            best.append(action)
    return best[0] if len(best) == 1 else rng.choice(best)


def greedy_agent(state, actions, rng):
    """One ply: apply each allowed action to the (immutable) state and keep the best-scoring result
    (an action's own selections are followed to their end, see ``_value``)."""
    return greedy_choice(state, actions, rng)


# ---------------------------------------------------------------- the search agent
SEARCH_MAX_NODES = 150  # the budget of one solve call (states expanded)


def _solve_win(state: GameState, max_nodes: int = SEARCH_MAX_NODES) -> list | None:
    """The one place the agent calls ``search.solve``: the line of a proved win this turn, or None.

    The budget is a node count only (no timeout), so a duel's result does not depend on the machine's
    speed: the same seed gives the same duel.
    """
    import inspect

    from .search import solve

    accepted = inspect.signature(solve).parameters
    kwargs = {"max_nodes": max_nodes} if "max_nodes" in accepted else {}
    if "timeout" in accepted:
        kwargs["timeout"] = float("inf")
    result = solve(state, **kwargs)
    verdict = getattr(result, "result", None)
    if verdict is not None:  # the AND-OR solve: "win", "no_win" or "unknown"
        return list(result.line or []) if verdict == "win" else None
    return list(result.line) if result.line else None  # the earlier A*: a line or None


def _may_win_now(state: GameState, me: str) -> bool:
    """A cheap filter before calling solve (play heuristic, not a rule): it is my turn, I hold priority
    outside a chain or a pending choice, in Main Phase 1 or the Battle Phase, and the opponent's LP is
    within reach of the ATK of my monsters and of the monsters in my hand."""
    d = state.data
    if d["turn_player"] != me or d["priority"] != me or d["chain"] or d["pending"]:
        return False
    if d["phase"] not in ("main1", "battle"):
        return False
    cat = catalog(d["ruleset"])
    opp = "B" if me == "A" else "A"
    mine = d["players"][me]
    atk = sum((cat.get(fc["card"]).atk or 0) + fc.get("atk_modifier", 0) for fc in mine["monster_zones"] if fc)
    in_hand = [cat.get(n).atk or 0 for n in mine["hand"] if cat.get(n).is_monster]
    atk += max(in_hand, default=0)
    return d["players"][opp]["life_points"] <= atk


class SearchAgent:
    """Plays a winning line when ``solve`` finds one this turn, else plays greedy.

    A found line is remembered state by state (the key is the state's JSON), so the next decisions
    follow it without searching again.  Search costs seconds, so the agent searches once per phase
    (Main Phase 1, Battle Phase) of each of its turns, at the first decision there that passes the
    cheap filter ``_may_win_now``; it searches again in that phase only after a win was found and the
    opponent answered off the line (the win proved for every answer, the continuation is found again).
    Memories are bounded and forgotten at the start of a duel.
    """

    def __init__(self, max_nodes: int = SEARCH_MAX_NODES, memory: int = 4096, reasoner: str = "fast"):
        self.max_nodes = max_nodes
        self.reasoner = reasoner
        self._plan: OrderedDict[str, object] = OrderedDict()  # state key -> the line's action there
        self._searched: OrderedDict[tuple, bool] = OrderedDict()  # (player, turn, phase) searched
        self._memory = memory
        self.solves = 0  # solve calls made (for reports)

    def reset(self) -> None:
        """Forget plans and searches (at the start of a duel, so a duel never depends on the ones before)."""
        self._plan.clear()
        self._searched.clear()

    def _remember(self, table: OrderedDict, key: str, value) -> None:
        table[key] = value
        while len(table) > self._memory:
            table.popitem(last=False)

    def __call__(self, state, actions, rng):
        me = state.data["priority"]
        key = state.to_json(indent=None)
        planned = self._plan.get(key)
        if planned is not None and planned in actions:
            return planned
        when = (me, state.data["turn"], state.data["phase"])
        # once per phase; again after the opponent answered off a winning line (the win still holds)
        if self._searched.get(when, True) and _may_win_now(state, me):
            self.solves += 1
            line = _solve_win(state, self.max_nodes)
            self._remember(self._searched, when, bool(line))
            if line:
                node = state
                for action in line:  # the line's states, so that my next decisions follow it
                    if node.data["priority"] == me:  # (a state where the opponent chooses is not mine to plan)
                        self._remember(self._plan, node.to_json(indent=None), action)
                    node = node.apply(action, self.reasoner)
                if line[0] in actions:
                    return line[0]
        return greedy_choice(state, actions, rng, self.reasoner)


search_agent = SearchAgent()
