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
from dataclasses import dataclass, field
from pathlib import Path

from . import reasoning
from .abox import action_facts, state_facts
from .actions import Action, action_id, allowed_from_facts, check_action_object, parse_action_id, with_type_from_id
from .errors import IllegalActionError, StateError, YgoError
from .knowledge import knowledge
from .primitives import apply_operations
from .state import LIST_AREAS, copy_state, phases_of, loads, normalize, read_json_file, show

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
        return [f for f in reasoning.named(self.facts, vocabulary.annotated("primitive")) if len(f) == 3]


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

    def copy(self) -> "GameState":
        return GameState(copy_state(self.data), rules=self.rules)

    def __repr__(self) -> str:
        d = self.data
        lp = "/".join(str(d["players"][p]["life_points"]) for p in ("A", "B"))
        return f"<GameState {d['ruleset']} turn {d['turn']} {d['turn_player']} {d['phase']} LP {lp}>"

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
        if isinstance(action, str):
            parse_action_id(action)  # not even an action id: bad input, not a refusal
            matches = [a for a in allowed if a.id == action]
            wanted = action
        elif isinstance(action, dict):
            action = with_type_from_id(action)
            check_action_object(action)
            action = self._canonical_names(action)
            probe = {k: v for k, v in action.items() if k != "id"}
            matches = [a for a in allowed if all(_key_matches(a.to_dict(), k, v, self.data) for k, v in probe.items())]
            if len(matches) > 1 and "to" not in probe:  # a choice left out takes its default (a summon in Attack Position)
                matches = [a for a in matches if "to" not in a.to_dict()] or matches
            if len(matches) > 1 and probe.get("type") == "next_phase" and "to" not in probe:
                matches = matches[:1]  # "go on to the next phase": the nearest one (allowed is in phase order)
            if len(matches) > 1 and _alike(matches, self.data):
                matches = matches[:1]  # copies of one card that the state does not tell apart: the first
            wanted = action.get("id") or action_id({**action})
        else:
            raise StateError(f"action: expected an action id or object, got {show(action)}")
        if len(matches) == 1:
            return matches[0]
        if len(matches) > 1:
            raise IllegalActionError(f"action {show(wanted)} is ambiguous: it matches {', '.join(a.id for a in matches)}")
        if self.winner is not None:
            raise IllegalActionError(f"action {show(wanted)} is not allowed: the duel is over (winner: {self.winner})")
        shown = ", ".join(a.id for a in allowed) or "none"
        at_zero = [p for p in ("A", "B") if self.data["players"][p]["life_points"] <= 0]
        if not allowed and at_zero:  # a hand-written state at 0 LP: the duel is over (docs/decisions.md)
            raise IllegalActionError(f"action {show(wanted)} is not allowed: the duel is over "
                                     f"({' and '.join(at_zero)} at 0 LP); allowed: none")
        holder = self.data["priority"]
        if isinstance(action, dict) and action.get("player", holder) != holder:
            raise IllegalActionError(f"action {show(wanted)} by player {action['player']} is not allowed: player {holder} "
                                     f"holds priority and only they may act; allowed for {holder}: {shown}")
        raise IllegalActionError(f"action {show(wanted)} is not allowed in this state{self._why_not(action, reasoner) if why else ''}; "
                                 f"allowed: {shown}")

    def _why_not(self, action, reasoner: str) -> str:
        """The reason of a refusal, as `explain` finds it: the rule for this kind of action that comes
        closest, and its first condition that fails (actions-and-cli.md: the message says why)."""
        from .explain import explain_action, ground

        try:
            report = explain_action(self, action, reasoner)
        except IllegalActionError as exc:  # a named card that is nowhere in the state
            return f" ({str(exc).split(': ', 1)[-1]})"
        except YgoError:
            return ""
        if report.allowed or not report.failed:
            return ""
        def closeness(f):
            return f[1] / max(f[4], 1)

        best = closeness(max(report.failed, key=closeness))
        reasons = []
        for rule, count, atom, binding, total in [f for f in report.failed if closeness(f) == best][:3]:
            why = f"rule {rule.name}: {count} of {total} conditions hold; {ground(atom, binding)} fails"
            reasons.append(why + (f"; {rule.comment}" if rule.comment else ""))
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
            chosen = self.find_action(action, reasoner).to_dict()
        except IllegalActionError:
            # a script's action in the contract's words that names no allowed action as such, but one the rules
            # allow read another way (each reading says which; docs/decisions.md "Rulebook audit (session 6, ...)")
            for reading in (self._after_implied_choice, self._activation_under_way, self._activate_then_target,
                            self._pass_already_made, self._turn_end_named_as_phase, self._next_phase_through,
                            self._flip_as_mode_change):
                after = reading(action, reasoner)
                if after is not None:
                    return after
            raise
        with _using(self.rules):
            result = play(self.data, chosen, reasoner, self._cache.get(reasoner))
        result.rules = self.rules
        return result

    def _after_implied_choice(self, action, reasoner: str) -> "GameState | None":
        """A `select` made before the choice it waits for, when that choice has one candidate: the
        monster a Ritual Spell or a Fusion Spell Summons (purpose `summon`; copies of one card in the
        hand or Extra Deck are alike).  The rulebook (pp. 8-9) has the player choose the materials or
        tributes, and the contract's pending purposes have no choice of the monster, so a select of a
        material or tribute first implies it: the state after both, or None (then the refusal stands)."""
        kind = action.type if isinstance(action, Action) else (
            action.partition("@")[0] if isinstance(action, str) else action.get("type") if isinstance(action, dict) else None)
        if kind != "select":
            return None
        allowed = self.allowed_actions(reasoner)
        selects = [a for a in allowed if a.type == "select"]
        if not selects or any(a.type not in ("select", "cancel") for a in allowed) \
                or any(a["purpose"] != "summon" for a in selects) or len({a["card"] for a in selects}) != 1:
            return None
        implied = self.apply(selects[0], reasoner)
        try:
            return implied.apply(action, reasoner)
        except IllegalActionError:
            return None

    def _activation_under_way(self, action, reasoner: str) -> "GameState | None":
        """An `activate` object for the activation the pending action already is (a trigger or FLIP effect
        the engine opened when its monster was summoned or flipped, docs/decisions.md "Trigger effects stay
        a selection"): the same state, or with a `target`/`target_ref` the `select` of that target.  None when
        the object names another card, place, effect or player (then the refusal stands)."""
        pending = self.data["pending"]
        if not (isinstance(action, dict) and action.get("type") == "activate" and pending
                and pending["action"].get("type") == "activate"):
            return None
        built = pending["action"]
        named = self._canonical_names({k: v for k, v in action.items() if k in ("card", "target")})
        if ("card" in named and named["card"] != built.get("card")) or action.get("effect", 0) != built.get("effect", 0) \
                or any(k in action and action[k] != built.get(k) for k in ("from", "player")):
            return None
        if "target" not in action and "target_ref" not in action:
            return self.copy()
        choice = {"type": "select", **({"card": named["target"]} if "target" in named else {}),
                  **({"ref": action["target_ref"]} if "target_ref" in action else {})}
        try:
            return self.apply(choice, reasoner)
        except IllegalActionError:
            return None

    def _activate_then_target(self, action, reasoner: str) -> "GameState | None":
        """An `activate` object that names its target (`target`, `target_ref`, the keys of an attack's
        target): the activation, then the `select` of that target when the activation waits for one
        (state-format.md: targets are chosen as a pending action's selections).  The state after both,
        or None (then the refusal stands)."""
        if not (isinstance(action, dict) and action.get("type") == "activate"
                and ("target" in action or "target_ref" in action)):
            return None
        activation = {k: v for k, v in action.items() if k not in ("target", "target_ref", "id")}
        choice = {"type": "select", "purpose": "target",
                  **({"card": action["target"]} if "target" in action else {}),
                  **({"ref": action["target_ref"]} if "target_ref" in action else {})}
        try:
            started = self.apply(activation, reasoner)
            if (started.data["pending"] or {}).get("purpose") != "target":
                return None
            return started.apply(choice, reasoner)
        except IllegalActionError:
            return None

    def _pass_already_made(self, action, reasoner: str) -> "GameState | None":
        """A `pass` when nothing waits for an answer (no chain, no pending action, no window where a pass
        is allowed), or when the duel is over: the window it declines was already closed, since the engine
        passes by itself where a pass is the only choice (actions-and-cli.md: every state `apply` writes is
        a decision point).  The same state, or None (then the refusal stands).  A pass while a monster's
        optional trigger waits for its target (nothing chosen, `cancel` offered) declines it, as `cancel` does."""
        # (an Action, taken from an `allowed` list, is held to that list: only a script's id or object is read so)
        kind = action.strip() if isinstance(action, str) else action.get("type") if isinstance(action, dict) else None
        pending = self.data["pending"]
        if kind == "pass" and pending and pending["action"].get("type") == "activate" and not pending["chosen"] \
                and pending["action"].get("from", {}).get("area") == "monster_zones":
            # the optional trigger of a monster the engine opened: passing is declining it
            declines = [a for a in self.allowed_actions(reasoner) if a.type == "cancel"]
            return self.apply(declines[0], reasoner) if declines else None
        if kind == "pass" and pending and pending["action"].get("type") == "activate" and not pending["chosen"] \
                and pending["purpose"] == "target" and not self.data["chain"] \
                and not any(a.type in ("cancel", "pass") for a in self.allowed_actions(reasoner)):
            # a mandatory trigger (a FLIP effect) the engine opened after the window this pass was for had closed
            # (an attack on a Set FLIP monster the opponent could not answer): nothing to decline, the same state
            return self.copy()
        if kind != "pass" or self.data["pending"] is not None or (self.data["chain"] and self.winner is None):
            return None
        if any(a.type == "pass" for a in self.allowed_actions(reasoner)):  # a pass is the other player's to make
            return None
        return self.copy()


    def _next_phase_through(self, action, reasoner: str) -> "GameState | None":
        """A `next_phase` object whose `to` is a later phase of this turn than the next one (actions-and-cli.md:
        "go on to the named phase"; rulebook p. 24: the phases come in order): the turn player moves on phase
        by phase, each move one the rules allow, while the turn player keeps priority with nothing open (the
        Draw Phase to Main Phase 1 through the Standby Phase, the Battle Phase to the End Phase through Main
        Phase 2).  The state in the named phase, or None (then the refusal stands): a phase that is not ahead,
        or an opponent who takes the window at a phase's end (then the script must say what it does).  A move to
        the phase the turn player is already in (where `apply` brought it past an idle Draw and Standby Phase,
        actions-and-cli.md: every state it writes is a decision point) leaves the state as it is."""
        from .actions import PHASE_ORDER

        if not (isinstance(action, dict) and action.get("type") == "next_phase" and action.get("to") in PHASE_ORDER):
            return None
        if set(action) - {"type", "to", "player", "id"}:
            return None
        goal = PHASE_ORDER.index(action["to"])
        state, turn = self, self.data["turn"]
        data = self.data
        if (data["phase"] == action["to"] and data["winner"] is None and not data["chain"] and not data["pending"]
                and data["priority"] == data["turn_player"] and action.get("player", data["turn_player"]) == data["turn_player"]):
            return self.copy()  # already there: the engine passed through the idle phases before it by itself
        while True:
            data = state.data
            if (data["turn"] != turn or data["winner"] is not None or data["chain"] or data["pending"]
                    or data["priority"] != data["turn_player"] or PHASE_ORDER.index(data["phase"]) >= goal):
                return None
            if action.get("player", data["turn_player"]) != data["turn_player"]:
                return None
            try:
                state = state.apply({"type": "next_phase"}, reasoner)
            except IllegalActionError:
                return None
            if state.data["turn"] == turn and state.data["phase"] == action["to"] \
                    and state.data["priority"] == state.data["turn_player"]:
                return state

    def _turn_end_named_as_phase(self, action, reasoner: str) -> "GameState | None":
        """A `next_phase` to `end` in a ruleset whose turns have no End Phase (state-format.md: `simplified` has only
        main1, battle, main2; seed 002 section 4: "at any phase, you can request to end your turn"): the end of the
        turn, `end_turn`, from the phase it is in.  The state after it, or None (then the refusal stands)."""
        if isinstance(action, str):
            action = {"type": "next_phase", "to": "end"} if action.strip() == "next_phase:end" else None
        if not (isinstance(action, dict) and action.get("type") == "next_phase" and action.get("to") == "end"
                and set(action) <= {"type", "to", "player", "id"}) or "end" in phases_of(self.ruleset):
            return None
        ending = {"type": "end_turn", **({"player": action["player"]} if "player" in action else {})}
        try:
            return self.apply(ending, reasoner)
        except IllegalActionError:
            return None

    def _flip_as_mode_change(self, action, reasoner: str) -> "GameState | None":
        """A `flip_summon` (actions-and-cli.md: a face-down Defense monster to face-up Attack) where the rules offer that
        very change as a change of battle position instead (`simplified`, seed 002 4.1.1 items 6-7: a monster's mode is
        updated, once per turn; docs/decisions.md "Mode change"): that `change_position` to `attack`.  Only a monster
        face-down in Defense Position qualifies.  The state after it, or None (then the refusal stands)."""
        from .abox import card_at

        if not (isinstance(action, dict) and action.get("type") == "flip_summon"):
            return None
        change = {**{k: v for k, v in action.items() if k not in ("type", "id", "to")}, "type": "change_position", "to": "attack"}
        try:
            chosen = self.find_action(change, reasoner, why=False)
        except (IllegalActionError, StateError):
            return None
        monster = card_at(self.data, chosen["from"])
        if (monster or {}).get("position") != "face_down_defense":
            return None
        return self.apply(chosen, reasoner)


def _alike(matches: list, state: dict) -> bool:
    """Whether the matching actions differ only in which copy of one card they take from one area: a hand,
    deck, Graveyard, banished pile or Extra Deck holds names only, so its copies are the same card; copies in
    Monster or Spell & Trap Zones are alike when everything the state says of them is the same (the first,
    lowest zone, is then taken).  Copies that differ (a position, a modifier, a counter) stay distinct."""
    from .abox import card_at, card_name_at

    dicts = [a.to_dict() for a in matches]
    for key in {k for d in dicts for k in d} - {"id"}:
        values = [d.get(key) for d in dicts]
        if all(v == values[0] for v in values):
            continue
        if key not in ("from", "ref", "target_ref") or any(not isinstance(v, dict) for v in values):
            return False
        if len({(v["player"], v["area"]) for v in values}) != 1:
            return False
        cards = [card_at(state, v) if values[0]["area"] not in LIST_AREAS else card_name_at(state, v) for v in values]
        if any(c != cards[0] for c in cards):
            return False
    return True


def _key_matches(allowed: dict, key: str, value, state: dict) -> bool:
    """Whether an allowed action has `key` = `value` of a (partial) action object, reading what the object
    may say in the contract's words (actions-and-cli.md, state-format.md):
    - `to` left out of an allowed action is its default position: Attack Position for a summon, and
      face-down Defense Position for `set_monster` (`"defense"` or `"face_down_defense"` name it);
    - a select's `purpose` may be the pending action's (the monster a Ritual Spell or a Fusion Spell
      Summons is selected with purpose `summon`, which state-format.md does not list: its pending's
      purpose names it too), and a cost paid by discarding a card from the hand may be called `discard`;
    - `effect` 0, its default, is what an action without `effect` has."""
    if key == "effect" and "effect" not in allowed:  # actions-and-cli.md: `effect` is an int, default 0
        return value == 0
    if key == "to" and "to" not in allowed:
        return value in (("defense", "face_down_defense") if allowed["type"] == "set_monster" else ("attack",))
    if key == "purpose" and allowed["type"] == "select" and value != allowed.get("purpose"):
        pending = (state.get("pending") or {}).get("purpose")
        return value == pending or (value == "discard" and pending == "cost" and allowed["ref"]["area"] == "hand")
    return allowed.get(key) == value


def _using(rules):
    """The knowledge of an ontology file in use for a block (ontofile.Rules.use), or nothing to do."""
    return rules.use() if rules is not None else contextlib.nullcontext()


def run_reasoner(data: dict, reasoner: str, transient: dict | None = None, base: Inference | None = None) -> Inference:
    """The reasoner on the state with the transient facts.  `base`: a run on the same state without
    transient facts; when the transient facts are an action alone, the ABox is base's and the
    action's (state_facts adds an action's facts last), not built again."""
    k = knowledge(data["ruleset"])
    backend = reasoning.get(reasoner)
    if base is not None and transient is not None and transient.keys() == {"action"}:
        abox = base.abox + action_facts(transient["action"])
    else:
        abox = state_facts(data, lean=True, transient=transient)
    with reasoning.Timer() as t:
        facts = backend.infer(k, abox)
    COUNTS["runs"] += 1
    return Inference(facts, reasoner, t.ms, abox)


def play(data: dict, action: dict, reasoner: str, base: Inference | None = None) -> GameState:
    """The apply loop: reason, carry out the inferred operations, until none is left.  `base`: the
    inference of `data` itself, if known (see run_reasoner)."""
    return play_from(data, {"action": action}, reasoner, base)


def play_from(data: dict, transient: dict, reasoner: str, base: Inference | None = None) -> GameState:
    """The apply loop from given transient facts (an action, or the start of a turn); `base` as in play."""
    k = knowledge(data["ruleset"])
    vocab = k.vocabulary
    state = copy_state(data)
    rng = random.Random(state["rng_seed"])
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


def _forced_move(state: dict, inference: Inference, allowed: list[Action]) -> dict | None:
    """The move the engine makes by itself where there is nothing to decide:

    - a response window or chain where the only allowed action is `pass` is skipped (passed);
    - a phase marked ygo:skipWhenIdle (Draw, Standby) is passed through when its only actions
      are moving on.
    SWRL cannot say "no other action is allowed" (negation), so this small check lives here.
    """
    from .abox import PHASE_INDIVIDUALS

    if len(allowed) == 1 and allowed[0].type == "pass":
        return allowed[0].to_dict()
    phase = PHASE_INDIVIDUALS[state["phase"]]
    if ("skipWhenIdle", phase, True) not in inference.facts:
        return None
    moves = [a for a in allowed if a.type == "next_phase"]
    if moves and all(a.type in ("next_phase", "end_turn") for a in allowed):
        return moves[0].to_dict()
    return None
