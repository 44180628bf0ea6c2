"""The public API: `GameState` (load, allowed_actions, apply, to_dict) and `Action`.

python-chess's shape: one small surface over a cached computation.  A state runs the
reasoner once per backend (cached); `apply` returns a new state at the next decision point
and never changes the old one.
"""
from __future__ import annotations

import collections
import contextlib
import json
import random
import time
from dataclasses import dataclass, field
from pathlib import Path

from . import reasoning, script_input
from .abox import PHASE_INDIVIDUALS, state_abox, with_action
from .actions import (Action, action_id, allowed_from_facts, check_action_object, engine_choice, parse_action_id,
                      with_type_from_id)
from .errors import IllegalActionError, StateError, YgoError
from .knowledge import knowledge
from .primitives import apply_operations
from .state import copy_state, loads, normalize, read_json_file, show

MAX_STEPS = 64  # a safety bound on automatic steps in one apply; no legal sequence comes near it

# what the apply loop did, for `bench` (where a duel's time goes): reasoner runs, forced moves
COUNTS: collections.Counter = collections.Counter()


@dataclass
class Inference:
    """One reasoner run: its facts, the backend, the time it took, and the ABox it was given."""

    facts: set
    reasoner: str
    elapsed_ms: float
    abox: list = field(default_factory=list, repr=False)

    def operations(self, vocabulary) -> list[tuple]:
        return [f for f in reasoning.named(self.facts, vocabulary.annotated("primitive", shared=True)) if len(f) == 3]


@dataclass
class GameState:
    """A duel state (docs/state-format.md) with its reasoning cached per backend."""

    data: dict
    _cache: dict = field(default_factory=dict, repr=False, compare=False)
    _allowed: dict = field(default_factory=dict, repr=False, compare=False)  # reasoner -> allowed actions
    # an ontology file's TBox, cards and rules (ontofile.Rules.load) instead of the project's sources
    rules: object = field(default=None, repr=False, compare=False)

    # ---------------------------------------------------------------- construction
    @classmethod
    def from_dict(cls, raw: dict, source: str = "", rules=None) -> "GameState":
        """:raises StateError: the state is not valid (the message names the field)."""
        with _using(rules):
            if rules is not None and isinstance(raw, dict) and raw.get("ruleset", rules.ruleset) != rules.ruleset:
                raise StateError(f"{source or 'state'}: ruleset: expected {rules.ruleset!r} (the ruleset of "
                                 f"{rules.path}), got {raw.get('ruleset')!r}")
            if rules is not None and isinstance(raw, dict) and "ruleset" not in raw:
                raw = {**raw, "ruleset": rules.ruleset}
            return cls(normalize(raw, source), rules=rules)

    @classmethod
    def load(cls, path: str | Path, rules=None) -> "GameState":
        """:raises StateError: the file is missing, not JSON, or not a valid state."""
        return cls.from_dict(read_json_file(path), source=str(path), rules=rules)

    @classmethod
    def from_json(cls, text: str, rules=None) -> "GameState":
        """:raises StateError: the text is not JSON or not a valid state (the message names the field)."""
        return cls.from_dict(loads(text), rules=rules)

    def to_dict(self) -> dict:
        return copy_state(self.data)

    def to_json(self, indent: int | None = 2) -> str:
        return json.dumps(self.data, indent=indent)

    def view(self, player: str) -> dict:
        """The state as `player` ("A" or "B") sees it: docs/state-format.md "A player's view" (`ygo-onto.view/1`).

        :raises StateError: `player` is not "A" or "B".
        """
        from .view import player_view

        return player_view(self.data, player)

    def copy(self) -> "GameState":
        return GameState(copy_state(self.data), rules=self.rules)

    def __repr__(self) -> str:
        d = self.data
        lp = "/".join(str(d["players"][p]["life_points"]) for p in ("A", "B"))
        # who decides here when it is not the turn player, and why (a chain, or the window at a phase's end, p. 38)
        asked = d.get("extra", {}).get("phase_end")
        why = "" if not asked else " before the turn ends" if asked == "turn" else f" before {d['phase']} ends (to {asked})"
        who = f", {d['priority']} to answer{why}" if d["priority"] != d["turn_player"] or asked else ""
        return f"<GameState {d['ruleset']} turn {d['turn']} {d['turn_player']} {d['phase']} LP {lp}{who}>"

    def _repr_html_(self):
        from .display import state_html
        return state_html(self)

    @property
    def ruleset(self) -> str:
        return self.data["ruleset"]

    @property
    def winner(self) -> str | None:
        return self.data["winner"]

    # ---------------------------------------------------------------- reasoning
    def infer(self, reasoner: str = reasoning.DEFAULT) -> Inference:
        """The reasoner's facts about this state (one run per backend, cached)."""
        if reasoner not in self._cache:
            with _using(self.rules):
                self._cache[reasoner] = run_reasoner(self.data, reasoner)
        return self._cache[reasoner]

    def allowed_actions(self, reasoner: str = reasoning.DEFAULT) -> list[Action]:
        """The actions the player holding priority may take now (read once per backend, cached)."""
        if reasoner not in self._allowed:
            with _using(self.rules):
                k = knowledge(self.ruleset)
                self._allowed[reasoner] = allowed_from_facts(self.infer(reasoner).facts, k.vocabulary, self.data)
        return list(self._allowed[reasoner])

    def find_action(self, action, reasoner: str = reasoning.DEFAULT, why: bool = True) -> Action:
        """The allowed action that `action` names: an id, an Action, or a (partial) action object.

        :raises IllegalActionError: no allowed action matches; the message says what is allowed and
            (`why`) the first condition that fails, as `explain` finds it.
        """
        allowed = self.allowed_actions(reasoner)
        if isinstance(action, Action):
            if action in allowed:  # (an Action of allowed_actions: a frozen dataclass, equal field by field)
                return action
            action = action.to_dict()
        # (not even an action id: bad input, not a refusal, raised by parse_action_id); `next_phase` without its
        # `to` is the object without it (actions-and-cli.md: "the next phase in order")
        if isinstance(action, str) and parse_action_id(action) == {"type": "next_phase", "id": "next_phase"}:
            action = {"type": "next_phase"}
        if isinstance(action, str):
            matches = [a for a in allowed if a.id == action]
            wanted = action
        elif isinstance(action, dict):
            action = with_type_from_id(action)
            check_action_object(action)
            action = self._canonical_names(action)
            probe = {k: v for k, v in action.items() if k != "id"}
            matches = [a for a in allowed if all(script_input.key_matches(a.to_dict(), k, v, self.data) for k, v in probe.items())]
            if len(matches) > 1 and "to" not in probe:  # a choice left out takes its default (a summon in Attack Position)
                matches = [a for a in matches if "to" not in a.to_dict()] or matches
            if len(matches) > 1 and probe.get("type") == "next_phase" and "to" not in probe:
                matches = matches[:1]  # "go on to the next phase": the nearest one (allowed is in phase order)
            if len(matches) > 1 and script_input.alike(matches, self.data):
                matches = matches[:1]  # copies of one card that the state does not tell apart: the first
            wanted = action.get("id") or action_id({**action})
            if isinstance(action.get("card"), str) and not any(k in action for k in ("from", "ref")):
                wanted += f" {action['card']}"  # the id names no card: "normal_summon" and its card
        else:
            raise StateError(f"action: expected an action id or object, got {show(action)}")
        if len(matches) == 1:
            named = action.get("id") if isinstance(action, dict) else None
            if isinstance(named, str) and named != matches[0].id and any(a.id == named for a in allowed):
                # the object names two allowed actions, one by its id and one by its other keys: bad input, not a refusal
                raise StateError(f"action.id: expected {show(matches[0].id)} (the action its other keys name) or "
                                         f"no id, got {show(named)}, another allowed action")
            return matches[0]
        if len(matches) > 1:
            raise IllegalActionError(f"action {show(wanted)} is ambiguous: it matches {', '.join(a.id for a in matches)}")
        if self.winner is not None:
            raise IllegalActionError(f"action {show(wanted)} is not allowed: the duel is over (winner: {self.winner})")
        shown = ", ".join(a.id for a in allowed) or "none"
        holder = self.data["priority"]
        if isinstance(action, dict) and action.get("player", holder) != holder:
            raise IllegalActionError(f"action {show(wanted)} by player {action['player']} is not allowed: player {holder} "
                                     f"holds priority and only they may act; allowed for {holder}: {shown}")
        misfit = self._misfit(action, allowed)
        if misfit:
            raise IllegalActionError(f"action {show(wanted)} is not allowed as described: {misfit}"
                                     f"{self._why_not(action, reasoner) if why else ''}; allowed: {shown}")
        raise IllegalActionError(f"action {show(wanted)} is not allowed in this state{self._why_not(action, reasoner) if why else ''}; "
                                 f"allowed: {shown}")

    def _misfit(self, action, allowed: list) -> str:
        """For an object that names an allowed action by its kind and place (the card at `from`/`ref`/`target_ref`,
        or the card it names) but gives another value for some key (the `card` at that place, a select's
        `purpose`): those keys and what the allowed actions have there, "" if there is no such action."""
        if not isinstance(action, dict):
            return ""
        places = ("from", "ref", "target_ref")
        best: dict[tuple, list] = {}
        for candidate in allowed:
            d = candidate.to_dict()
            if d["type"] != action.get("type"):
                continue
            differ = tuple(sorted(k for k, v in action.items()
                                  if k != "id" and not script_input.key_matches(d, k, v, self.data)))
            if (not differ or "player" in differ or any(k in places for k in differ)
                    or ("card" in differ and not any(k in action for k in places))):
                continue
            best.setdefault(differ, []).append(d)
        if not best:
            return ""
        differ = min(best, key=len)
        return "; ".join(f"action.{k}: expected {' or '.join(dict.fromkeys(show(d[k]) if k in d else 'none (left out)' for d in best[differ]))}, "
                         f"got {show(action[k])}" for k in differ)

    def _why_not(self, action, reasoner: str) -> str:
        """The reason of a refusal, as `explain` finds it: the rule for this kind of action that comes
        closest, and its first condition that fails (actions-and-cli.md: the message says why)."""
        from .explain import explain_action, ground, ground_failing

        try:
            report = explain_action(self, action, reasoner, as_written=True)
        except IllegalActionError as exc:  # a named card that is nowhere in the state
            return f" ({str(exc).split(': ', 1)[-1]})"
        except YgoError:
            return ""
        if report.no_rule or report.mismatch:
            return f" ({report.no_rule or report.mismatch})"
        if report.allowed or not report.failed:
            return ""
        def closeness(f):
            return f[1] / max(f[4], 1)

        top = max(report.failed, key=closeness)
        # a rule that fails at the same condition after as many that hold is as close: an attack in Main
        # Phase 1 fails the attack rule and the Replay rule at openBattlePhase; naming the shorter alone
        # (closer by share) told a student about replays
        same = [f for f in report.failed if f[1] == top[1] and str(ground(f[2], f[3])) == str(ground(top[2], top[3]))]
        reasons = []
        for failure in [f for f in report.failed if closeness(f) == closeness(top) or f in same][:3]:
            rule, count, atom, binding, total = failure
            why = f"rule {rule.name}: {count} of {total} conditions hold; {ground_failing(rule, atom, binding)} fails"
            reasons.append(why + (f"; {rule.comment}" if rule.comment else ""))
            for deeper, fact, _ in report.deepest([failure])[:2]:  # a derived condition: what it comes down to
                if deeper is not rule:
                    reasons[-1] += f"; that is because rule {deeper.name}'s {fact} fails" + \
                        (f" ({deeper.comment})" if deeper.comment else "")
        # rules that come equally close are all named: the first alone may not be the reason a player
        # looks for (turn 1's Battle Phase: 'in order' and 'only when this turn permits one' tie)
        return " (" + "; or ".join(reasons) + ")"

    def _canonical_names(self, action: dict) -> dict:
        """`card` and `target` as the catalog spells them: names match without regard to case or
        aliases (cards.md); a name not in the catalog is bad input that suggests the closest names."""
        from .cards import catalog

        with _using(self.rules):
            cat = catalog(self.ruleset)
            return {k: cat.get(v, f"action.{k}").name if k in ("card", "target") else v for k, v in action.items()}

    def apply(self, action, reasoner: str = reasoning.DEFAULT) -> "GameState":
        """A new state: `action` carried out, then every automatic consequence, up to the next decision point.

        :raises IllegalActionError: the action is not allowed now.
        """
        try:
            found = self.find_action(action, reasoner)
            script_input.record(found)
            chosen = found.to_dict()
        except IllegalActionError:
            # a script's action in the contract's words that names no allowed action as such, but one the rules
            # allow read another way (each reading says which; docs/decisions.md "Script readings")
            for reading in script_input.READINGS:
                after = reading(self, action, reasoner)
                if after is not None:
                    return after
            raise
        with _using(self.rules):
            result = play(self.data, chosen, reasoner, self._cache.get(reasoner))
        result.rules = self.rules
        return result


def _using(rules):
    """The knowledge of an ontology file in use for a block (ontofile.Rules.use), or nothing to do."""
    return rules.use() if rules is not None else contextlib.nullcontext()


def run_reasoner(data: dict, reasoner: str, transient: dict | None = None, base: Inference | None = None) -> Inference:
    """The reasoner on the state with the transient facts.  `base`: a run on the same state without
    transient facts; when the transient facts are an action alone, the ABox is base's and the
    action's (state_abox adds an action's facts last), not built again."""
    k = knowledge(data["ruleset"])
    backend = reasoning.get(reasoner)
    if base is not None and transient is not None and len(transient) == 1 and "action" in transient:
        abox = with_action(base.abox, transient["action"], data)
    else:
        abox = state_abox(data, transient)
    start = time.perf_counter()
    facts = backend.infer(k, abox)
    elapsed_ms = (time.perf_counter() - start) * 1000
    COUNTS["runs"] += 1
    return Inference(facts, reasoner, elapsed_ms, abox)


def play(data: dict, action: dict, reasoner: str, base: Inference | None = None) -> GameState:
    """The apply loop: reason, carry out the inferred operations, until none is left.  `base`: the
    inference of `data` itself, if known (see run_reasoner)."""
    return play_from(data, {"action": action}, reasoner, base)


def play_from(data: dict, transient: dict, reasoner: str, base: Inference | None = None) -> GameState:
    """The apply loop from given transient facts (an action, or the start of a turn); `base` as in play."""
    k = knowledge(data["ruleset"])
    vocab = k.vocabulary
    state = copy_state(data)
    rng = _SeededOnUse(state["rng_seed"])
    action = transient.get("action") or {"id": "start of turn"}
    for _ in range(MAX_STEPS):
        inference = run_reasoner(state, reasoner, transient, base)
        base = None
        ops = inference.operations(vocab)
        if not ops:
            if "action" in transient:
                raise YgoError(f"internal: no rule carries out the action {action['id']!r}")
            allowed = None if state["winner"] is not None else allowed_from_facts(inference.facts, vocab, state)
            idle = None if allowed is None else _forced_move(state, inference, allowed)
            if idle is None:
                result = GameState(state)
                if not transient:  # the facts of the state itself: what allowed_actions would compute
                    result._cache[reasoner] = inference
                    if allowed is not None:
                        result._allowed[reasoner] = allowed
                return result
            base = None if transient else inference  # the same state: its ABox with the move's facts
            transient = {"action": idle}
            COUNTS["forced_moves"] += 1
            continue
        transient = apply_operations(state, ops, transient, vocab, rng, inference.facts)
        if state["winner"] is not None:
            state["pending"] = None
            return GameState(state)
    raise YgoError(f"internal: more than {MAX_STEPS} automatic steps after {action['id']!r}")


class _SeededOnUse:
    """random.Random(seed), made when a primitive first draws from it (a shuffle, a die): most actions draw
    nothing, and seeding a Random costs about as much as a small step."""

    def __init__(self, seed: int):
        self._seed = seed
        self._rng = None

    def __getattr__(self, name):  # (only names not set here: the Random's methods)
        if self._rng is None:
            self._rng = random.Random(self._seed)
        return getattr(self._rng, name)


def _forced_move(state: dict, inference: Inference, allowed: list[Action]) -> dict | None:
    """The move the engine makes by itself where there is nothing to decide:

    - a response window or chain where the only allowed action is `pass` is skipped (passed);
    - a phase marked ygo:skipWhenIdle (Draw, Standby) is passed through when its only actions
      are moving on;
    - a selection whose purpose is marked ygo:chosenByTheEngineWhenAlike is made when every card
      it may select is a copy of one card (the first copy; backing out stays possible after it).
    SWRL cannot say "no other action is allowed" (negation), so this small check lives here.
    """
    if len(allowed) == 1 and allowed[0].type == "pass":
        return allowed[0].to_dict()
    choice = engine_choice(inference.facts, allowed)
    if choice is not None:
        return choice.to_dict()
    phase = PHASE_INDIVIDUALS[state["phase"]]
    if ("skipWhenIdle", phase, True) not in inference.facts:
        return None
    moves = [a for a in allowed if a.type == "next_phase"]
    if moves and all(a.type in ("next_phase", "end_turn") for a in allowed):
        return moves[0].to_dict()
    return None
