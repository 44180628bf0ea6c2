"""Whole duels: setting one up from decks, agents that choose actions, logs that replay exactly."""
from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Callable, Iterator

from . import resources
from .actions import check_action_object
from .cards import catalog
from .errors import IllegalActionError, ReplayMismatch, StateError, YgoError
from .game import GameState, play_from
from .state import FORMAT, area_limits, decode_json_bytes, loads, normalize, show

SIMPLIFIED_DECK = (15, 5)  # monsters, spells (simplified spec 1.1.2)


def sample_decks() -> dict:
    return json.loads(resources.read_data("decks_official.json"))


MIN_DECK, MAX_COPIES = 40, 3  # rulebook v6.0 p. 2: a Deck of at least 40 cards, at most 3 copies of a card


def new_duel(ruleset: str = "official", seed: int = 0, reasoner: str = "fast", decks=None) -> GameState:
    """A duel at its first decision point: decks shuffled by the seed, 5 cards each, turn 1 begun.

    official and goat (rulebook p. 23: shuffle, draw 5; A goes first): `decks` are A's and B's, each a
    decks.Deck, a .ydk file's path, the name of a deck the package carries (official: a sample deck of
    ``sample_decks()``; goat: a reference deck of examples/decks/goat, e.g. "chaos-control") or a list of card
    names (the Main Deck and the Extra Deck together: Fusion and Synchro Monsters go to the Extra Deck).
    Without `decks`: official's two sample decks, goat's decks.DEFAULT_DECKS.
    simplified: 20 random cards each, 15 monsters and 5 spells; a random first player draws 1 extra (spec 2).
    The Side Decks are not played (a duel is one game of a match).

    :raises StateError: a bad ruleset or deck (the message names `ruleset` or `decks[i]`).
    """
    rng = random.Random(seed)
    players = {}
    first = "A"
    if ruleset in ("official", "goat"):
        for p, (main, extra) in zip("AB", _two_decks(ruleset, decks)):
            deck = list(main)
            rng.shuffle(deck)
            players[p] = {"deck": deck[5:], "hand": deck[:5], "extra_deck": list(extra)}
    elif ruleset == "simplified":
        if decks is not None:
            raise StateError(f"decks: expected none (the simplified ruleset deals 20 random cards each), got {show(decks)}")
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
        raise StateError(f"ruleset: expected one of official, simplified, goat, got {ruleset!r}")
    raw = {"format": FORMAT, "ruleset": ruleset, "turn": 1, "turn_player": first, "first_player": first,
           "phase": "main1" if ruleset == "simplified" else "draw", "rng_seed": rng.randrange(2**31),
           "players": players}
    state = normalize(raw)
    if ruleset == "simplified":
        return GameState(state)  # the extra card was the starting player's draw
    return play_from(state, {"turn_started": True}, reasoner)


def _two_decks(ruleset: str, decks) -> list[tuple[list, list]]:
    """(Main Deck, Extra Deck) of A and B: `decks` read as new_duel says; the ruleset's defaults when None."""
    from .decks import Deck, duel_decks, example_deck, read_ydk

    samples = sample_decks()
    if decks is None:
        decks = duel_decks(ruleset, None) or ("Dragons", "Warriors")
    if not isinstance(decks, (list, tuple)) or len(decks) != 2:
        raise StateError(f"decks: expected two decks (A's and B's), got {show(decks)}")
    if ruleset == "official":
        names = [k for k in samples if k != "extra_decks"]
    else:
        names = sorted(p.stem for p in example_deck(ruleset, "x").parent.glob("*.ydk"))
    expected = f"a .ydk file, a deck the package carries ({', '.join(names)}) or a list of card names"
    cat = catalog(ruleset)
    out = []
    for i, deck in enumerate(decks):
        where = f"decks[{i}]"
        if isinstance(deck, (str, Path)) and str(deck).lower().endswith(".ydk"):
            deck = read_ydk(deck, ruleset)
        if isinstance(deck, Deck):
            out.append((list(deck.main), list(deck.extra)))
            continue
        if isinstance(deck, str) and ruleset != "official" and deck in names:
            deck = read_ydk(example_deck(ruleset, deck), ruleset)
            out.append((list(deck.main), list(deck.extra)))
            continue
        if isinstance(deck, str):
            if deck not in names:
                raise StateError(f"{where}: expected {expected}, got {show(deck)}")
            out.append((list(samples[deck]), list(samples["extra_decks"][deck])))
            continue
        if not isinstance(deck, list) or len(deck) > 75:
            raise StateError(f"{where}: expected {expected} (at most 75), got {show(deck)}")
        cards = []
        for j, name in enumerate(deck):
            if not isinstance(name, str):
                raise StateError(f"{where}[{j}]: expected a card name, got {show(name)}")
            cards.append(cat.get(name, f"{where}[{j}]"))
        main = [c.name for c in cards if not c.extra_deck]
        extra = [c.name for c in cards if c.extra_deck]
        most_extra = area_limits(ruleset)["extra_deck"]
        if not MIN_DECK <= len(main) <= 60 or len(extra) > most_extra:
            raise StateError(f"{where}: expected a Main Deck of {MIN_DECK} to 60 cards and an Extra Deck of at most "
                             f"{most_extra}, got {len(main)} and {len(extra)}")
        many = sorted({n for n in main + extra if (main + extra).count(n) > MAX_COPIES})
        if many:
            raise StateError(f"{where}: expected at most {MAX_COPIES} copies of a card, got more of {', '.join(many)}")
        out.append((main, extra))
    return out


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


def _lookahead_agents() -> dict[str, Agent]:
    from .agents import greedy_agent, search_agent  # agents.py looks ahead with GameState.apply

    return {"greedy": greedy_agent, "search": search_agent}


AGENTS: dict[str, Agent] = {"random": random_agent, "first": first_agent, "aggressive": aggressive_agent,
                            **_lookahead_agents()}


def play_duel(state: GameState, agents: tuple[str, str], seed: int = 0, reasoner: str = "fast",
              max_actions: int = 2000, chosen: Callable | None = None) -> Iterator[tuple[GameState, object, GameState]]:
    """Yield (state, action, next_state) until the duel ends or max_actions.

    `chosen(state, action)`, if given, is called with each action before it is applied (so that
    a log can name the action an engine error happened on)."""
    rng = random.Random(seed)
    for name in set(agents):  # an agent with memory starts each duel afresh
        reset = getattr(AGENTS[name], "reset", None)
        if reset:
            reset()
    for _ in range(max_actions):
        if state.winner is not None:
            return
        actions = state.allowed_actions(reasoner)
        if not actions:
            return
        who = state.data["priority"]
        agent = AGENTS[agents[0] if who == "A" else agents[1]]
        action = agent(state, actions, rng)
        if chosen is not None:
            chosen(state, action)
        nxt = state.apply(action, reasoner)
        yield state, action, nxt
        state = nxt


class Duel:
    """A duel as a stack of states, as python-chess's Board keeps its moves: `push` an action, `pop` it back.

    States are immutable (`GameState.apply` returns a new one), so undoing is going back to the state
    before: nothing is recomputed, and each state keeps its cached reasoning.

    ``duel = Duel(new_duel("official", seed=1)); duel.push(duel.actions[0]); duel.pop()``
    """

    def __init__(self, start: GameState, reasoner: str = "fast"):
        self.start = start
        self.reasoner = reasoner
        self.moves: list = []  # the actions pushed, oldest first: an Action, or an object apply read another way
        self._states = [start]

    @property
    def state(self) -> GameState:
        """The current state (a decision point, or a finished duel)."""
        return self._states[-1]

    @property
    def actions(self) -> list:
        """The actions allowed in the current state (one reasoner run, cached by the state)."""
        return self.state.allowed_actions(self.reasoner)

    @property
    def winner(self) -> str | None:
        return self.state.winner

    def push(self, action) -> GameState:
        """Apply an action (an Action, an id or an action object) to the current state and keep the new one.

        :raises IllegalActionError: the action is not allowed now; the duel is unchanged.
        """
        nxt = self.state.apply(action, self.reasoner)
        try:  # the allowed action it named; an object apply read another way (script_input) is kept as written
            action = self.state.find_action(action, self.reasoner, why=False)
        except IllegalActionError:
            pass
        self.moves.append(action)
        self._states.append(nxt)
        return nxt

    def pop(self):
        """Undo the last push and return its action.

        :raises IndexError: nothing was pushed.
        """
        if not self.moves:
            raise IndexError("pop from a duel with no actions pushed")
        self._states.pop()
        return self.moves.pop()

    def save_log(self, path: str | Path, meta: dict | None = None) -> None:
        """The duel so far as a log that `ygo-onto replay` checks (see DuelLog)."""
        write_log(Path(path), self.start, list(zip(self._states, self.moves, self._states[1:])),
                  {"ruleset": self.start.ruleset, **(meta or {})})

    def __len__(self) -> int:
        return len(self.moves)

    def __repr__(self) -> str:
        return f"<Duel {len(self.moves)} actions, at {self.state!r}>"

    def _repr_html_(self):
        return self.state._repr_html_()


def error_text(exc: BaseException) -> str:
    """An error as a duel log records it: a YgoError by its message, any other by its type too."""
    return str(exc) if isinstance(exc, YgoError) else f"{type(exc).__name__}: {exc}"


class DuelLog:
    """A duel's log, written line by line as the duel is played (JSON lines), so that a duel that
    stops on an error leaves its log up to the error:

    - line 1: ``{"start": state, "ruleset", "seed", "agents"}``
    - one line per action: ``{"action": action object, "state": the state it led to}``
    - a last line ``{"end": {"actions": N, "winner": W}}``, or for a duel an error stopped,
      ``{"end": {"actions": N, "error": message, "action": the action being applied, or null}}``.
      A log without it was cut short, and `replay` says so.
    """

    def __init__(self, path: Path, start: GameState, meta: dict):
        self.path = Path(path)
        self.actions = 0
        self._file = open(self.path, "w", encoding="utf-8")
        self._write({"start": start.to_dict(), **meta})

    def _write(self, record: dict) -> None:
        self._file.write(json.dumps(record) + "\n")
        self._file.flush()

    def step(self, action, nxt: GameState) -> None:
        self.actions += 1
        self._write({"action": action.to_dict() if hasattr(action, "to_dict") else action, "state": nxt.to_dict()})

    def end(self, winner: str | None = None, error: str | None = None, action=None) -> None:
        end = {"actions": self.actions}
        if error is None:
            end["winner"] = winner
        else:
            end["error"] = error
            end["action"] = action.to_dict() if hasattr(action, "to_dict") else action
        self._write({"end": end})
        self._file.close()


def write_log(path: Path, start: GameState, steps: list[tuple], meta: dict) -> None:
    log = DuelLog(path, start, meta)
    for _, action, nxt in steps:
        log.step(action, nxt)
    log.end(steps[-1][2].winner if steps else start.winner)


def replay_log(path: Path, reasoner: str = "fast", ending: dict | None = None,
               ruleset: str | None = None) -> Iterator[tuple[int, GameState, dict, bool]]:
    """Re-apply every logged action; yield (step, state, action, matches_logged_state).
    `ruleset`, if given, must be the ruleset of the log's start state.

    The log must end with its `end` record (see DuelLog); a log that stopped on an error is
    replayed up to it and the failing action is tried again: `ending` (a dict, if given) gets
    ``error`` (the logged message), ``reproduced`` (bool) and ``got`` (the message now, or None).

    :raises StateError: the log is not a duel log: a line that is not a JSON object, a missing
        key, a bad state or action (named with its line), or a log cut short (no `end` record).
    :raises ReplayMismatch: the `end` record's winner is not the one the replay reaches.
    """
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise StateError(f"{path}: expected a readable log file, got {exc.strerror or exc}") from None
    lines = [(n, decode_json_bytes(line, f"{path}: line {n}")) for n, line in enumerate(data.split(b"\n"), 1)
             if line.strip()]
    if not lines:
        raise StateError(f"{path}: expected a duel log (JSON lines), got an empty file")
    records = []
    for n, line in lines:
        try:
            rec = loads(line, f"{path}: line {n}")
        except StateError as exc:
            if n == lines[-1][0] and "syntax error" in str(exc):
                raise StateError(f"{exc} (the last line: the log is cut short)") from None
            raise
        if not isinstance(rec, dict):
            raise StateError(f"{path}: line {n}: expected a JSON object, got {show(rec)}")
        records.append((n, rec))
    n, first = records[0]
    if "start" not in first:
        raise StateError(f"{path}: line {n}: expected the duel's start state ('start'), got keys {show(sorted(first))}")
    state = GameState.from_dict(first["start"], source=f"{path}: line {n}: start")
    if ruleset is not None and ruleset != state.ruleset:  # --ruleset: a check, since the log's start state names its ruleset
        raise StateError(f"--ruleset: expected {state.ruleset!r} (the ruleset of {path}), got {ruleset!r}")
    count = 0
    last = n
    for n, rec in records[1:]:
        if "end" in rec:
            break
        if "action" not in rec:
            raise StateError(f"{path}: line {n}: expected an 'action' (or the log's 'end'), got keys {show(sorted(rec))}")
        if isinstance(rec["action"], dict):
            check_action_object(rec["action"], "action", f"{path}: line {n}")
        elif not isinstance(rec["action"], str):
            raise StateError(f"{path}: line {n}: action: expected an action object or id, got {show(rec['action'])}")
        state = state.apply(rec["action"], reasoner)
        count += 1
        last = n
        yield n, state, rec["action"], state.to_dict() == rec.get("state")
    else:
        raise StateError(f"{path}: line {last}: expected the log's 'end' record after the last action, got the end "
                         f"of the file: the log is cut short after {count} actions")
    end = rec["end"]
    if not isinstance(end, dict) or type(end.get("actions")) is not int:
        raise StateError(f"{path}: line {n}: end: expected an object with the number of 'actions', got {show(end)}")
    if end["actions"] != count:
        raise StateError(f"{path}: line {n}: end.actions: expected {count} (the actions logged before it), "
                         f"got {end['actions']}: the log is cut short or edited")
    if len(records) > count + 2:
        raise StateError(f"{path}: line {records[count + 2][0]}: expected nothing after the 'end' record, got a line")
    if "error" not in end and "winner" in end and end["winner"] != state.winner:  # the result the log says
        raise ReplayMismatch(f"{path}: line {n}: end.winner: expected {show(state.winner)} (the winner the replayed "
                             f"duel reaches), got {show(end['winner'])}: the log's result differs from the replay")
    if "error" in end:
        got = None
        if end.get("action") is not None:
            try:
                state.apply(end["action"], reasoner)
            except Exception as exc:  # noqa: BLE001 - the logged error, whatever it was, is what to reproduce
                got = error_text(exc)
        if ending is not None:
            ending.update(error=end["error"], reproduced=got == end["error"], got=got)
