"""Whole duels: setting one up from decks, agents that choose actions, logs that replay exactly."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Callable, Iterator

from . import resources
from .cards import catalog
from .errors import StateError
from .game import GameState, play_from
from .state import FORMAT, normalize

SIMPLIFIED_DECK = (15, 5)  # monsters, spells (simplified spec 1.1.2)


def sample_decks() -> dict:
    return json.loads(resources.read_data("decks_official.json"))


def new_duel(ruleset: str = "official", seed: int = 0, reasoner: str = "fast") -> GameState:
    """A duel at its first decision point: decks shuffled by the seed, 5 cards each, turn 1 begun.

    official: the two sample decks (rulebook p. 23: shuffle, draw 5; A goes first).
    simplified: 20 random cards each, 15 monsters and 5 spells; a random first player draws 1 extra (spec 2).
    """
    rng = random.Random(seed)
    players = {}
    first = "A"
    if ruleset == "official":
        decks = sample_decks()
        for p, deck_name in zip("AB", ("Dragons", "Warriors")):
            deck = list(decks[deck_name])
            rng.shuffle(deck)
            players[p] = {"deck": deck[5:], "hand": deck[:5], "extra_deck": list(decks["extra_decks"][deck_name])}
    elif ruleset == "simplified":
        cat = catalog("simplified")
        monsters = [c.name for c in cat if c.is_monster]
        spells = [c.name for c in cat if not c.is_monster]
        first = rng.choice("AB")
        for p in "AB":
            deck = rng.sample(monsters, SIMPLIFIED_DECK[0]) + rng.sample(spells, SIMPLIFIED_DECK[1])
            rng.shuffle(deck)
            n = 6 if p == first else 5
            players[p] = {"deck": deck[n:], "hand": deck[:n]}
    else:
        raise StateError(f"ruleset: expected official or simplified, got {ruleset!r}")
    raw = {"format": FORMAT, "ruleset": ruleset, "turn": 1, "turn_player": first, "first_player": first,
           "phase": "draw" if ruleset == "official" else "main1", "rng_seed": rng.randrange(2**31),
           "players": players}
    state = normalize(raw)
    if ruleset == "simplified":
        return GameState(state)  # the extra card was the starting player's draw
    return play_from(state, {"turn_started": True}, reasoner)


Agent = Callable[[GameState, list, random.Random], object]


def random_agent(state, actions, rng):
    return rng.choice(actions)


def first_agent(state, actions, rng):
    return actions[0]


def aggressive_agent(state, actions, rng):
    """Summons, attacks and moves on; a simple baseline that finishes duels."""
    order = ["attack", "direct_attack", "tribute_summon", "normal_summon", "select", "activate", "flip_summon",
             "set_spell_trap", "set_monster", "next_phase", "end_turn"]
    for kind in order:
        options = [a for a in actions if a.type == kind]
        if kind == "next_phase":
            options = [a for a in options if a["to"] in ("battle", "main2", "main1", "standby", "end")]
        if options:
            return rng.choice(options)
    return rng.choice(actions)


AGENTS: dict[str, Agent] = {"random": random_agent, "first": first_agent, "aggressive": aggressive_agent}


def play_duel(state: GameState, agents: tuple[str, str], seed: int = 0, reasoner: str = "fast",
              max_actions: int = 2000) -> Iterator[tuple[GameState, object, GameState]]:
    """Yield (state, action, next_state) until the duel ends or max_actions."""
    rng = random.Random(seed)
    for _ in range(max_actions):
        if state.winner is not None:
            return
        actions = state.allowed_actions(reasoner)
        if not actions:
            return
        who = state.data["priority"]
        agent = AGENTS[agents[0] if who == "A" else agents[1]]
        action = agent(state, actions, rng)
        nxt = state.apply(action, reasoner)
        yield state, action, nxt
        state = nxt


def write_log(path: Path, start: GameState, steps: list[tuple], meta: dict) -> None:
    with open(path, "w", encoding="utf-8") as f:
        f.write(json.dumps({"start": start.to_dict(), **meta}) + "\n")
        for _, action, nxt in steps:
            f.write(json.dumps({"action": action.to_dict(), "state": nxt.to_dict()}) + "\n")


def replay_log(path: Path, reasoner: str = "fast") -> Iterator[tuple[int, GameState, dict, bool]]:
    """Re-apply every logged action; yield (step, state, action, matches_logged_state)."""
    try:
        lines = Path(path).read_text(encoding="utf-8").splitlines()
    except OSError as exc:
        raise StateError(f"{path}: expected a readable log file, got {exc.strerror}") from None
    if not lines:
        raise StateError(f"{path}: expected a duel log (JSON lines), got an empty file")
    try:
        records = [json.loads(line) for line in lines if line.strip()]
    except json.JSONDecodeError as exc:
        raise StateError(f"{path}: expected JSON lines, got a syntax error: {exc.msg}") from None
    if "start" not in records[0]:
        raise StateError(f"{path}: line 1: expected the duel's start state ('start'), got keys {sorted(records[0])}")
    state = GameState.from_dict(records[0]["start"], source=f"{path}: line 1")
    for i, rec in enumerate(records[1:], 2):
        if "action" not in rec:
            raise StateError(f"{path}: line {i}: expected an 'action', got keys {sorted(rec)}")
        state = state.apply(rec["action"], reasoner)
        yield i, state, rec["action"], state.to_dict() == rec.get("state")
