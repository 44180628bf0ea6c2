"""An environment for agents: a PettingZoo AEC environment and a Gymnasium single-agent wrapper.

``env(ruleset="official", seed=0)`` returns the two-player AEC environment (agents ``"A"`` and ``"B"``;
the agent to act is the player holding priority, so a response window hands the turn to the
opponent for one decision).  ``SingleAgentEnv`` plays one seat against a fixed agent of ``duel.AGENTS``.

The action space and the observation encoding are the same for every ruleset and card pool (a card is
encoded by its features and a stable id, never by a place in a catalog) and documented in docs/env.md;
``action_layout()`` and ``observation_layout()`` give them as data.  Every index and every
observation is relative to the acting/observing player ("me" and "opp"), so one policy plays both seats.
The engine decides what is allowed (the mask is the allowed actions of the reasoner); this module only
numbers the actions and encodes the state.
"""
from __future__ import annotations

import contextlib
import random
from functools import lru_cache

try:
    import numpy as np
except ImportError as exc:  # (the agents extra: numpy comes with gymnasium)
    raise ImportError(f"ygo_onto.env needs the agents extra (NumPy, Gymnasium, PettingZoo): pip install "
                      f"'ygo-onto[agents]' ({exc})") from None

from .actions import Action
from .cards import MONSTER_TYPES, catalog
from .errors import IllegalActionError, StateError

# ---------------------------------------------------------------- the action space
PHASES = ("draw", "standby", "main1", "battle", "main2", "end")
# Card slots that an action may name, per side: every index a valid state can have (the input bounds
# of docs/decisions.md: 60 cards in hand or deck, 15 in the Extra Deck, 75 in the Graveyard or banished).
AREA_SLOTS = (("hand", 60), ("monster_zones", 5), ("spell_trap_zones", 5), ("field_zone", 1), ("graveyard", 75),
              ("banished", 75), ("extra_deck", 15), ("deck", 60))
SIDE_SLOTS = sum(n for _, n in AREA_SLOTS)  # 296
MAX_EFFECTS = 4  # a card's effects 0 .. 3 have a place each ("effect" of an activate action)
# Action kinds that name one card of the acting player (`from`), with the choice they carry.
FROM_KINDS = (("normal_summon", None), ("tribute_summon", None), ("set_monster", None), ("flip_summon", None),
              ("special_summon", None), ("special_summon", "defense"), ("synchro_summon", None),
              ("synchro_summon", "defense"), ("change_position", "attack"), ("change_position", "defense"),
              ("activate", None), ("activate", "defense"), *(("activate", f"effect{k}") for k in range(1, MAX_EFFECTS)),
              ("set_spell_trap", None),
              ("direct_attack", None))
SIMPLE = ("pass", "cancel", "end_turn")
DECLARABLE_LEVELS = 12  # a declare action's Level, 1 to 12 (ygo:declarableLevel), has a place each


def _slot_offsets() -> dict[str, int]:
    out, at = {}, 0
    for area, n in AREA_SLOTS:
        out[area] = at
        at += n
    return out


SLOT_OFFSET = _slot_offsets()


def action_layout() -> list[tuple[str, int, int]]:
    """The action space as (block, first index, size) rows, in order; the space is Discrete(sum of sizes)."""
    rows, at = [], 0
    for kind in SIMPLE:
        rows.append((kind, at, 1))
        at += 1
    rows.append(("next_phase:<phase>", at, len(PHASES)))
    at += len(PHASES)
    for kind, choice in FROM_KINDS:
        rows.append((f"{kind}{':' + choice if choice else ''}@me.<slot>", at, SIDE_SLOTS))
        at += SIDE_SLOTS
    rows.append(("select@<side>.<slot>", at, 2 * SIDE_SLOTS))
    at += 2 * SIDE_SLOTS
    rows.append(("attack@me.mz<i>><side>.mz<j>", at, 5 * 10))
    at += 50
    rows.append(("declare:level<n>", at, DECLARABLE_LEVELS))
    at += DECLARABLE_LEVELS
    return rows


LAYOUT = {name: (start, size) for name, start, size in action_layout()}
N_ACTIONS = sum(size for _, _, size in action_layout())


def _slot(ref: dict, where: str) -> int:
    area, index = ref["area"], ref["index"]
    limit = dict(AREA_SLOTS)[area]
    if index >= limit:
        raise StateError(f"{where}: the action space holds {limit} {area} slots, got index {index}")
    return SLOT_OFFSET[area] + index


def encode_action(action, me: str) -> int:
    """The index of an allowed action for the acting player ``me`` (see docs/env.md)."""
    d = action.to_dict() if isinstance(action, Action) else action
    kind = d["type"]
    if kind in SIMPLE:
        return LAYOUT[kind][0]
    if kind == "next_phase":
        return LAYOUT["next_phase:<phase>"][0] + PHASES.index(d["to"])
    if kind == "declare":
        if not 1 <= d["level"] <= DECLARABLE_LEVELS:
            raise StateError(f"action {d['id']}: the action space holds Levels 1 to {DECLARABLE_LEVELS}, got {d['level']}")
        return LAYOUT["declare:level<n>"][0] + d["level"] - 1
    if kind == "select":
        ref = d["ref"]
        side = 0 if ref["player"] == me else 1
        return LAYOUT["select@<side>.<slot>"][0] + side * SIDE_SLOTS + _slot(ref, "select")
    src = d["from"]
    if src["player"] != me:
        raise StateError(f"action {d['id']}: expected a card of the acting player {me}, got {src['player']}")
    if kind == "attack":
        tgt = d["target_ref"]
        side = 0 if tgt["player"] == me else 1
        if src["area"] != "monster_zones" or tgt["area"] != "monster_zones":
            raise StateError(f"action {d['id']}: expected an attack between monster zones")
        return LAYOUT["attack@me.mz<i>><side>.mz<j>"][0] + src["index"] * 10 + side * 5 + tgt["index"]
    choice = d.get("to")
    if kind == "activate" and d.get("effect", 0):
        if d["effect"] >= MAX_EFFECTS or choice:
            raise StateError(f"action {d['id']}: the action space holds effects 0 to {MAX_EFFECTS - 1} (effect 0 "
                             f"alone with a position), got effect {d['effect']}{' to ' + choice if choice else ''}")
        choice = f"effect{d['effect']}"
    name = f"{kind}{':' + choice if choice else ''}@me.<slot>"
    if name not in LAYOUT:
        raise StateError(f"action {d['id']}: no place in the action space for {kind} with {choice!r}")
    return LAYOUT[name][0] + _slot(src, d["id"])


def action_index(actions: list, me: str) -> dict[int, Action]:
    """index -> allowed action; two actions on one index would be an encoding error."""
    out: dict[int, Action] = {}
    for a in actions:
        i = encode_action(a, me)
        if i in out:
            raise StateError(f"actions {out[i].id} and {a.id} share index {i} of the action space")
        out[i] = a
    return out


# ---------------------------------------------------------------- the observation
# Every card the observer may know of is a "card slot" of the same features, whatever the catalog: the
# observation's size is one number for every ruleset, and a card is known by its features and by a
# stable id an agent can embed (``card_id``), not by a place in one catalog's list.
POSITIONS = ("attack", "defense", "face_down_defense", "face_up", "face_down")
PURPOSES = ("tribute", "target", "material", "cost", "discard")
CARD_TYPES = ("monster", "spell", "trap")
SUBTYPES = ("normal", "effect", "fusion", "ritual", "synchro", "continuous", "quick_play", "equip", "field", "counter")
ATTRIBUTES = ("DARK", "LIGHT", "EARTH", "WATER", "FIRE", "WIND", "DIVINE")
ZONES = ("hand", "monster_zones", "spell_trap_zones", "field_zone", "graveyard", "banished", "extra_deck", "chain")
CARD_ID_RANGE = 2 ** 20  # card ids are 1 .. CARD_ID_RANGE - 1 (0: no card, or a hidden one)
SLOT_FEATURES = ("present", "hidden", "card_id", *(f"kind_{t}" for t in CARD_TYPES), *(f"sub_{t}" for t in SUBTYPES),
                 "tuner", *(f"attr_{a}" for a in ATTRIBUTES), *(f"type_{t}" for t in MONSTER_TYPES), "level", "atk",
                 "def", *(f"pos_{p}" for p in POSITIONS), *(f"zone_{z}" for z in ZONES), "mine", "owned_by_me",
                 "summoned_this_turn", "position_changed_this_turn", "attacks_declared", "set_this_turn", "equipped",
                 "atk_modifier", "def_modifier", "counters")
F = {name: i for i, name in enumerate(SLOT_FEATURES)}
GLOBAL_FEATURES = ("turn", "my_turn", "my_priority", "i_went_first", *(f"phase_{p}" for p in PHASES),
                   "my_lp", "opp_lp", "my_normal_summon_used", "opp_normal_summon_used", "chain_length",
                   "pending", *(f"pending_{p}" for p in PURPOSES), "pending_needed", "pending_chosen",
                   *(f"{s}_{a}_count" for s in ("my", "opp") for a in ("deck", "hand", "graveyard", "banished",
                                                                        "extra_deck")))
# (group, slots, side, area): the card slots, in order.  Hand and Extra Deck: the first cards of the list;
# Graveyard and banished: the last (the most recent).  The global block counts every area in full.
CARD_SLOT_GROUPS = (("my_hand", 20, "me", "hand"), ("my_monster_zones", 5, "me", "monster_zones"),
                    ("my_spell_trap_zones", 5, "me", "spell_trap_zones"), ("my_field_zone", 1, "me", "field_zone"),
                    ("opp_monster_zones", 5, "opp", "monster_zones"),
                    ("opp_spell_trap_zones", 5, "opp", "spell_trap_zones"), ("opp_field_zone", 1, "opp", "field_zone"),
                    ("my_graveyard", 20, "me", "graveyard"), ("opp_graveyard", 20, "opp", "graveyard"),
                    ("my_banished", 10, "me", "banished"), ("opp_banished", 10, "opp", "banished"),
                    ("my_extra_deck", 15, "me", "extra_deck"))
CHAIN_SLOTS = 5
HAND_SLOTS = 20
OBS_BOUND = 8.0  # every feature is clipped to [-8, 8] (LP of 64000 and more read as 8)
SCALE = {"lp": 8000.0, "stat": 5000.0, "level": 12.0, "turn": 100.0, "count": 40.0, "counters": 10.0}


@lru_cache(maxsize=None)
def card_id(name: str) -> int:
    """A card's stable id, 1 .. CARD_ID_RANGE - 1: the first 8 bytes of the SHA-256 of its catalog name (UTF-8),
    modulo CARD_ID_RANGE - 1, plus 1.  The same card has the same id in every ruleset and whatever cards a
    catalog gains; no two cards of the shipped catalogs share one (tested)."""
    import hashlib

    digest = hashlib.sha256(name.encode("utf-8")).digest()
    return 1 + int.from_bytes(digest[:8], "big") % (CARD_ID_RANGE - 1)


def card_ids(ruleset: str) -> dict[str, int]:
    """Card name -> its ``card_id``, for the ruleset's catalog."""
    return {c.name: card_id(c.name) for c in catalog(ruleset)}


def observation_layout(ruleset: str | None = None) -> list[tuple[str, int, int]]:
    """The observation vector as (block, first index, size) rows, in order (see docs/env.md); the same for
    every ruleset (``ruleset`` is accepted and ignored)."""
    slot = len(SLOT_FEATURES)
    rows, at = [], 0

    def add(name, size):
        nonlocal at
        rows.append((name, at, size))
        at += size

    add("global", len(GLOBAL_FEATURES))
    for group, count, _, _ in CARD_SLOT_GROUPS:
        add(f"{group} ({count} card slots x {slot})", count * slot)
    add(f"chain ({CHAIN_SLOTS} links x {slot}: card slots, link 1 first)", CHAIN_SLOTS * slot)
    return rows


def observation_size(ruleset: str | None = None) -> int:
    """The observation's length: the same for every ruleset."""
    return _OBS_SIZE


def _card_features(card) -> dict[int, float]:
    """The printed features of a catalog card: index in a card slot -> value."""
    out = {F["card_id"]: card_id(card.name) / CARD_ID_RANGE, F[f"kind_{card.card_type}"]: 1.0,
           F["tuner"]: float(card.tuner), F["level"]: (card.level or 0) / SCALE["level"],
           F["atk"]: (card.atk or 0) / SCALE["stat"], F["def"]: (card.defense or 0) / SCALE["stat"]}
    if card.subtype in SUBTYPES:
        out[F[f"sub_{card.subtype}"]] = 1.0
    if card.attribute in ATTRIBUTES:
        out[F[f"attr_{card.attribute}"]] = 1.0
    if card.monster_type in MONSTER_TYPES:
        out[F[f"type_{card.monster_type}"]] = 1.0
    return out


@lru_cache(maxsize=None)
def _features_of(ruleset: str, name: str) -> tuple[tuple[int, float], ...]:
    return tuple(_card_features(catalog(ruleset).get(name)).items())


def encode_observation(state: dict, me: str) -> np.ndarray:
    """The state as player ``me`` sees it: the opponent's hand, face-down cards, Extra Deck and both decks stay
    hidden (their sizes are in the global block)."""
    ruleset = state["ruleset"]
    opp = "B" if me == "A" else "A"
    vec = np.zeros(_OBS_SIZE, dtype=np.float32)
    mine, theirs = state["players"][me], state["players"][opp]
    g = [min(state["turn"] / SCALE["turn"], 1.0), state["turn_player"] == me, state["priority"] == me,
         state["first_player"] == me, *(state["phase"] == p for p in PHASES),
         mine["life_points"] / SCALE["lp"], theirs["life_points"] / SCALE["lp"],
         mine["normal_summon_used"], theirs["normal_summon_used"], len(state["chain"]) / CHAIN_SLOTS]
    pending = state["pending"]
    g += [pending is not None, *((pending or {}).get("purpose") == p for p in PURPOSES),
          (pending or {}).get("needed", 0) / 5.0, len((pending or {}).get("chosen", [])) / 5.0]
    for p in (mine, theirs):
        g += [len(p[a]) / SCALE["count"] for a in ("deck", "hand", "graveyard", "banished", "extra_deck")]
    vec[:len(g)] = np.asarray(g, dtype=np.float32)
    slot = len(SLOT_FEATURES)

    def put_card(offset: int, name: str, zone: str, holder: str, fc: dict | None = None, hidden: bool = False):
        v = vec[offset:offset + slot]
        v[F["present"]] = 1.0
        v[F[f"zone_{zone}"]] = 1.0
        v[F["mine"]] = holder == me
        if hidden:
            v[F["hidden"]] = 1.0
        else:
            for i, x in _features_of(ruleset, name):
                v[i] = x
        owner = holder if fc is None else (fc.get("owner") or holder)
        v[F["owned_by_me"]] = owner == me
        if fc is not None:
            v[F[f"pos_{fc['position']}"]] = 1.0
            v[F["summoned_this_turn"]] = fc.get("summoned_this_turn", False)
            v[F["position_changed_this_turn"]] = fc.get("position_changed_this_turn", False)
            v[F["attacks_declared"]] = fc.get("attacks_declared", 0) / 3.0
            v[F["set_this_turn"]] = fc.get("set_this_turn", False)
            v[F["equipped"]] = fc.get("equipped_to") is not None
            if not hidden:
                v[F["atk_modifier"]] = fc.get("atk_modifier", 0) / SCALE["stat"]
                v[F["def_modifier"]] = fc.get("def_modifier", 0) / SCALE["stat"]
                v[F["counters"]] = sum((fc.get("counters") or {}).values()) / SCALE["counters"]

    at = len(GLOBAL_FEATURES)
    for _, count, side, area in CARD_SLOT_GROUPS:
        holder, p = (me, mine) if side == "me" else (opp, theirs)
        if area in ("monster_zones", "spell_trap_zones", "field_zone"):
            cards = p[area] if area != "field_zone" else [p["field_zone"]]
            for i, fc in enumerate(cards[:count]):
                if fc:
                    hidden = side == "opp" and fc["position"] in ("face_down", "face_down_defense")
                    put_card(at + i * slot, fc["card"], area, holder, fc, hidden)
        else:
            names = p[area][:count] if area in ("hand", "extra_deck") else p[area][-count:]
            for i, name in enumerate(names):
                put_card(at + i * slot, name, area, holder)
        at += count * slot
    for i, link in enumerate(state["chain"][:CHAIN_SLOTS]):
        put_card(at + i * slot, link["card"], "chain", link["player"])
    return np.clip(vec, -OBS_BOUND, OBS_BOUND, out=vec)


_OBS_SIZE = sum(size for _, _, size in observation_layout())


def render_text(d: dict) -> str:
    """A few lines of text for ``render_mode="ansi"``: turn, phase, LP, hands and fields."""
    lines = [f"turn {d['turn']} {d['turn_player']} {d['phase']} priority {d['priority']} winner {d['winner']}"]
    for p in ("A", "B"):
        pl = d["players"][p]
        field = [f"{fc['card']} ({fc['position']})" if fc else "-" for fc in pl["monster_zones"] + pl["spell_trap_zones"]]
        lines.append(f"{p} LP {pl['life_points']} hand {pl['hand']} deck {len(pl['deck'])} field {field}")
    return "\n".join(lines)


# ---------------------------------------------------------------- the AEC environment
@contextlib.contextmanager
def _agents_extra():
    """An import of the agents extra: its absence says which extra to install."""
    try:
        yield
    except ImportError as exc:
        raise ImportError(f"ygo_onto.env needs the agents extra (Gymnasium, PettingZoo): pip install "
                          f"'ygo-onto[agents]' ({exc})") from None


def env(ruleset: str = "official", seed: int | None = None, **kwargs):
    """The PettingZoo AEC environment (wrapped in PettingZoo's order-enforcing wrapper)."""
    with _agents_extra():
        from pettingzoo.utils import wrappers

    return wrappers.OrderEnforcingWrapper(raw_env(ruleset=ruleset, seed=seed, **kwargs))


def raw_env(ruleset: str = "official", seed: int | None = None, reasoner: str = "fast", max_actions: int = 2000,
            render_mode: str | None = None, decks: str | None = None, player_view: bool = False):
    """`decks`: two .ydk files "A.ydk,B.ydk" (official, goat), as `ygo-onto duel --decks`.
    ``player_view``: each agent's ``info`` carries its own view of the duel (``info[agent]["view"]``, state-format.md
    "A player's view") instead of the full state; the full state stays at ``env.unwrapped.state_``, for debugging."""
    return _env_class()(ruleset, seed, reasoner, max_actions, render_mode, decks, player_view)


@lru_cache(maxsize=None)
def _env_class():
    with _agents_extra():
        from gymnasium import spaces
        from pettingzoo import AECEnv

    class YgoAECEnv(AECEnv):
        """Two players, A and B; the agent to act holds priority.  Rewards: +1 / -1 at the end (0 for a draw
        or a duel cut at ``max_actions``, which is a truncation)."""

        metadata = {"name": "ygo_onto_v0", "render_modes": ["ansi"], "is_parallelizable": False}

        def __init__(self, ruleset, seed, reasoner, max_actions, render_mode, decks=None, player_view=False):
            super().__init__()
            from .cards import RULESETS
            from .decks import duel_decks

            if player_view not in (True, False):
                raise StateError(f"player_view: expected True or False, got {player_view!r}")
            self.player_view = player_view
            if ruleset not in RULESETS:
                raise StateError(f"ruleset: expected one of {', '.join(RULESETS)}, got {ruleset!r}")
            self.decks = duel_decks(ruleset, decks) if decks else None
            if render_mode not in (None, "ansi"):
                raise StateError(f"render_mode: expected None or 'ansi', got {render_mode!r}")
            self.ruleset = ruleset
            self.reasoner = reasoner
            self.max_actions = max_actions
            self.render_mode = render_mode
            self.possible_agents = ["A", "B"]
            n_obs = observation_size(ruleset)
            space = spaces.Dict({
                "observation": spaces.Box(low=-OBS_BOUND, high=OBS_BOUND, shape=(n_obs,), dtype=np.float32),
                "action_mask": spaces.Box(low=0, high=1, shape=(N_ACTIONS,), dtype=np.int8),
            })
            self.observation_spaces = {a: space for a in self.possible_agents}
            self.action_spaces = {a: spaces.Discrete(N_ACTIONS) for a in self.possible_agents}
            self._seeds = random.Random(seed)
            self._next_seed = seed
            self.state_ = None

        def observation_space(self, agent):
            return self.observation_spaces[agent]

        def action_space(self, agent):
            return self.action_spaces[agent]

        # -- the duel
        def reset(self, seed=None, options=None):
            from .duel import new_duel

            if seed is not None:
                self._seeds = random.Random(seed)
                self._next_seed = seed
            duel_seed = self._next_seed if self._next_seed is not None else self._seeds.randrange(2**31)
            self._next_seed = None
            self.duel_seed = duel_seed
            start = (options or {}).get("state")
            self.state_ = new_duel(self.ruleset, duel_seed, self.reasoner, self.decks) if start is None \
                else self._start_state(start)
            self.n_actions = 0
            self.agents = list(self.possible_agents)
            self.rewards = {a: 0.0 for a in self.agents}
            self._cumulative_rewards = {a: 0.0 for a in self.agents}
            self.terminations = {a: False for a in self.agents}
            self.truncations = {a: False for a in self.agents}
            self._refresh()
            if self.state_.winner is not None:  # a duel over at its start: nothing to play
                self._finish()
            elif not self._legal:
                self._stuck()

        def _start_state(self, start):
            """``reset(options={"state": ...})``: a state JSON (dict or text) or a GameState of this ruleset."""
            from .game import GameState

            if isinstance(start, GameState):
                state = start
            elif isinstance(start, str):
                state = GameState.from_json(start)
            else:
                state = GameState.from_dict(start, "options['state']")
            if state.ruleset != self.ruleset:
                raise StateError(f"options['state']: expected a state of the {self.ruleset} ruleset, "
                                 f"got {state.ruleset!r}")
            return state

        def _refresh(self):
            st = self.state_
            self._legal = {} if st.winner is not None else action_index(st.allowed_actions(self.reasoner),
                                                                      st.data["priority"])
            self.agent_selection = st.data["priority"]
            shared = None if self.player_view else st.to_dict()
            self.infos = {a: {**({"view": st.view(a)} if self.player_view else {"state": shared}),
                              "duel_seed": self.duel_seed,
                              "actions": {i: a_.id for i, a_ in self._legal.items()} if a == self.agent_selection
                              else {}} for a in self.agents}

        def _finish(self):
            winner = self.state_.winner
            for a in self.agents:
                self.rewards[a] = 0.0 if winner not in ("A", "B") else (1.0 if a == winner else -1.0)
                self.terminations[a] = True

        def _stuck(self):
            """No winner and no allowed action (an engine fault, never seen): the duel is cut, not ended, so that
            it does not read as a draw (selfplay records it as unfinished too)."""
            for a in self.agents:
                self.truncations[a] = True
                self.infos[a]["no_allowed_action"] = True

        def observe(self, agent):
            mask = np.zeros(N_ACTIONS, dtype=np.int8)
            if agent == self.agent_selection and not (self.terminations.get(agent) or self.truncations.get(agent)):
                mask[list(self._legal)] = 1
            return {"observation": encode_observation(self.state_.data, agent), "action_mask": mask}

        def legal_actions(self) -> dict[int, Action]:
            """index -> the allowed action, for the agent to act."""
            return dict(self._legal)

        def step(self, action):
            agent = self.agent_selection
            if self.terminations[agent] or self.truncations[agent]:
                self._was_dead_step(action)
                return
            chosen = self._legal.get(int(action)) if action is not None else None
            if chosen is None:
                allowed = ", ".join(f"{i}={a.id}" for i, a in self._legal.items())
                raise IllegalActionError(f"action {action!r} is not allowed for {agent}; allowed: {allowed}")
            self._cumulative_rewards[agent] = 0.0
            self.state_ = self.state_.apply(chosen, self.reasoner)
            self.n_actions += 1
            self._refresh()
            if self.state_.winner is not None:
                self._finish()
            elif not self._legal:
                self._stuck()
            elif self.n_actions >= self.max_actions:
                for a in self.agents:
                    self.truncations[a] = True
            self._accumulate_rewards()

        def render(self):
            if self.render_mode is None:
                return None
            return render_text(self.state_.data)

        def close(self):
            pass

    return YgoAECEnv


# ---------------------------------------------------------------- the Gymnasium single-agent wrapper
def single_agent_env(ruleset: str = "official", opponent: str = "random", seat: str = "A", seed: int | None = None,
                     reasoner: str = "fast", max_actions: int = 2000, illegal: str = "lose", decks: str | None = None,
                     player_view: bool = False):
    """A Gymnasium environment: the learner plays ``seat`` against ``opponent`` (a name of ``duel.AGENTS``, or an
    agent function ``(state, actions, rng) -> one of actions`` as those are, e.g. a frozen copy of a policy).

    ``illegal``: what an action outside the mask does: ``"lose"`` ends the episode with reward -1 and
    ``info["illegal_action"]`` (PettingZoo's TerminateIllegalWrapper does the same), ``"raise"`` raises
    IllegalActionError.  ``player_view``: ``info["view"]`` (the seat's view) instead of ``info["state"]``, as in
    ``raw_env``.
    """
    if illegal not in ("lose", "raise"):
        raise StateError(f"illegal: expected 'lose' or 'raise', got {illegal!r}")
    return _gym_class()(ruleset, opponent, seat, seed, reasoner, max_actions, illegal, decks, player_view)


@lru_cache(maxsize=None)
def _gym_class():
    with _agents_extra():
        import gymnasium

    class YgoSingleAgentEnv(gymnasium.Env):
        """One seat of the AEC environment; the opponent's decisions are made inside ``step``.

        Observation: the vector of docs/env.md (a Box); ``info["action_mask"]`` and ``action_masks()`` give the
        mask (sb3-contrib's MaskablePPO reads ``action_masks``), ``info["state"]`` the state JSON.  Reward: +1 / -1
        when the duel ends.
        """

        metadata = {"render_modes": ["ansi"]}

        def __init__(self, ruleset, opponent, seat, seed, reasoner, max_actions, illegal, decks=None, player_view=False):
            from .duel import AGENTS

            if not callable(opponent) and opponent not in AGENTS:
                raise StateError(f"opponent: expected one of {', '.join(AGENTS)} or an agent function "
                                 f"(state, actions, rng) -> action, got {opponent!r}")
            if seat not in ("A", "B"):
                raise StateError(f"seat: expected 'A' or 'B', got {seat!r}")
            self.aec = raw_env(ruleset, seed, reasoner, max_actions, decks=decks, player_view=player_view)
            self.seat = seat
            self.opponent = opponent if callable(opponent) else AGENTS[opponent]
            self.illegal = illegal
            self.observation_space = self.aec.observation_space(seat)["observation"]
            self.action_space = self.aec.action_space(seat)
            self._rng = random.Random(seed)

        def _opponent_moves(self):
            aec = self.aec
            while aec.agents and aec.agent_selection != self.seat and not aec.terminations[aec.agent_selection] \
                    and not aec.truncations[aec.agent_selection]:
                legal = aec.legal_actions()
                by_action = {a: i for i, a in legal.items()}
                choice = self.opponent(aec.state_, list(legal.values()), self._rng)
                aec.step(by_action[choice])

        def _obs(self):
            obs = self.aec.observe(self.seat)
            st = self.aec.state_
            info = {"action_mask": obs["action_mask"],
                    **({"view": st.view(self.seat)} if self.aec.player_view else {"state": st.to_dict()}),
                    "actions": {i: a.id for i, a in self.aec.legal_actions().items()}}
            return obs["observation"], info

        def action_masks(self) -> np.ndarray:
            return self.aec.observe(self.seat)["action_mask"].astype(bool)

        def reset(self, seed=None, options=None):
            super().reset(seed=seed)
            if seed is not None:
                self._rng = random.Random(seed)
            self.aec.reset(seed=seed)
            forget = getattr(self.opponent, "reset", None)  # an agent with memory starts each duel afresh
            if forget:
                forget()
            self._opponent_moves()
            return self._obs()

        def step(self, action):
            aec = self.aec
            if int(action) not in aec.legal_actions() and self.illegal == "lose":
                obs, info = self._obs()
                return obs, -1.0, True, False, {**info, "illegal_action": int(action)}
            aec.step(int(action))
            self._opponent_moves()
            done = aec.terminations[self.seat]
            truncated = aec.truncations[self.seat] and not done
            reward = float(aec._cumulative_rewards.get(self.seat, 0.0)) if (done or truncated) else 0.0
            obs, info = self._obs()
            return obs, reward, bool(done), bool(truncated), info

        def render(self):
            return render_text(self.aec.state_.data)

    return YgoSingleAgentEnv
