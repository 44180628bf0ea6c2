"""The duel state of docs/state-format.md (`ygo-onto.state/1`): validation, defaults, JSON.

A `GameState` is immutable from the outside: `apply` returns a new state (python-chess's
`Board` with OpenSpiel's clone-before-apply).  The reasoning lives in the ontology; this
module only checks that a state is well-formed and fills the defaults.
"""
from __future__ import annotations

import copy
import json
import math
import os
import re
from pathlib import Path
from typing import Any, NamedTuple

from .cards import MONSTER_TYPES, RULESETS, Catalog, catalog, official_based
from .errors import StateError

FORMAT = "ygo-onto.state/1"
VIEW_FORMAT = "ygo-onto.view/1"  # a player's view (view.py): cards hidden, never read as a state
PLAYERS = ("A", "B")
OFFICIAL_PHASES = ("draw", "standby", "main1", "battle", "main2", "end")
SIMPLIFIED_PHASES = ("main1", "battle", "main2")
LIST_AREAS = ("deck", "hand", "graveyard", "banished", "extra_deck")
ZONE_AREAS = ("monster_zones", "spell_trap_zones")
AREAS = LIST_AREAS + ZONE_AREAS + ("field_zone",)
MONSTER_POSITIONS = ("attack", "defense", "face_down_defense")
SPELL_POSITIONS = ("face_up", "face_down")
SUMMON_METHODS = ("normal", "tribute", "set", "flip", "special", "fusion", "ritual", "synchro")
PURPOSES = ("tribute", "target", "material", "cost", "discard", "declare", "swap", "chooseEffect", "perHeadsDestroy",
            "chooseSummonPosition", "lockZone", "effectTarget", "returnToDeck")
ZONE_PURPOSES = ("lockZone",)  # the purposes whose selections are empty Monster Zones, by their places (not cards)
SELECT_PURPOSES = PURPOSES + ("summon",)  # a select action's purpose: "summon" for the monster a Ritual or Fusion Spell Summons
# the state's extra keys of locks that last the turn they were activated in, each the players locked: their Summons
# (summonLockedThisTurn) and their Battle Phase (battlePhaseLockedThisTurn)
TURN_LOCKS = ("summon_lock", "battle_phase_lock")


class CardMark(NamedTuple):
    """A mark the state's extra keeps by card references: the ABox property each marked card is told (True), and the
    moves it lasts through (the area the card was in at the step's start, the area it is in now)."""
    prop: str
    keeps: frozenset


# The cards the state's extra marks by a card reference, each mark with the places it lasts in: (the card's area as a
# step starts, its area as the step ends). A card that goes anywhere else is a new card (rulebook p. 11) and loses it.
CARD_MARKS = {
    # effects negated (opNegateEffects: negate-battled.swrl): in the Monster Zone, and the Graveyard a battle sends it to
    "effects_negated": CardMark("effectsNegated", frozenset({("monster_zones", "monster_zones"),
                                                             ("monster_zones", "graveyard"), ("graveyard", "graveyard")})),
    # a due FLIP effect of a monster returned to the hand or the Deck (goat: TriggerDueWhenHidden, GOAT pack README
    # item 5), until its chain link is made (primitives.add_chain_link); told as on the field (justFlipped)
    "flipped_hidden": CardMark("justFlipped", frozenset({("monster_zones", "hand"), ("monster_zones", "deck"),
                                                         ("hand", "hand"), ("deck", "deck")})),
    # goat: a trigger whose event happened while links were left on the chain waits for the chain to be resolved
    # (opWaitForChainEnd: rules/goat/chain-end-triggers.swrl), while its card stays in the Graveyard
    "chain_end_triggers": CardMark("waitsForChainEnd", frozenset({("graveyard", "graveyard")})),
}
MONSTER_CARD_MARKS = ("effects_negated", "flipped_hidden")  # the marks only a monster gets (its effects, its FLIP)
# the areas a marked card may be in (the places its mark lasts in)
CARD_MARK_AREAS = {key: tuple(a for a in AREAS if any(now == a for _, now in mark.keeps)) for key, mark in CARD_MARKS.items()}

TOP_DEFAULTS = {"ruleset": "official", "turn": 1, "turn_player": "A", "first_player": "A", "phase": "main1",
                "priority": None, "chain": [], "pending": None, "winner": None, "rng_seed": 0}
PLAYER_DEFAULTS = {"life_points": 8000, "deck": [], "hand": [], "graveyard": [], "banished": [], "extra_deck": [],
                   "monster_zones": None, "spell_trap_zones": None, "field_zone": None, "normal_summon_used": False}
FIELD_CARD_DEFAULTS = {"owner": None, "position": None, "summoned_this_turn": False, "summoned_by": "normal",
                       "position_changed_this_turn": False, "attacks_declared": 0, "set_this_turn": False,
                       "equipped_to": None, "atk_modifier": 0, "def_modifier": 0, "counters": {}, "extra": {}}
CHAIN_KEYS = {"card", "player", "zone", "targets", "speed", "extra"}  # extra: options chosen on activation
MAX_EVENT_ORDER = 999  # the highest time of an event in its step (eventOrder: one per operation of the step)
PENDING_KEYS = {"action", "purpose", "needed", "chosen", "extra"}  # extra: a cost paid on the way (cost_level)
# actions-and-cli.md: where the card of an action that names it by `card` and `from` comes from
PENDING_FROM_AREAS = {"normal_summon": ("hand",), "tribute_summon": ("hand",), "set_monster": ("hand",),
                      "special_summon": ("hand",), "set_spell_trap": ("hand",), "synchro_summon": ("extra_deck",),
                      "activate": ("hand", "spell_trap_zones", "field_zone", "monster_zones"),
                      "flip_summon": ("monster_zones",), "change_position": ("monster_zones",),
                      "attack": ("monster_zones",), "direct_attack": ("monster_zones",)}
REF_KEYS = {"player", "area", "index"}

# Bounds on input (docs/decisions.md, "Input bounds"): what no duel can reach is bad input, refused
# before anything is built, so that a huge or absurd state fails at once with the field named.
MAX_LIFE_POINTS = 1_000_000  # LP: 0..this
MAX_MODIFIER = 1_000_000  # |atk_modifier|, |def_modifier|
MAX_COUNT = 1_000_000  # turn, attacks_declared, counters
# counters whose values name a step or a place (state-format.md, `counters`): the damage calculation window's sub-step
# (1, then 2 once a chain was built), and a Spell & Trap Zone (1-5 on the card's side, 6-10 on the other)
COUNTER_BOUNDS = {"damage_sub_step": 2, "activation_locked_by": 10}
MAX_RNG_SEED = 2**63 - 1  # rng_seed: a signed 64-bit integer
# cards per area of one player: a Main Deck of at most 60 cards and an Extra Deck of at most 15 (the
# official deck limits; rulebook v6.0 p. 2 sets only the minimum, 40); a hand can hold at most the Main
# Deck, a Graveyard or the banished cards at most all of a player's cards
AREA_LIMITS = {"deck": 60, "hand": 60, "graveyard": 75, "banished": 75, "extra_deck": 15}
MAX_OWNED = 75  # the cards one player owns (Main Deck and Extra Deck), wherever they are
# `goat`'s Fusion Deck has no size limit of its own (the GOAT pack README, "Decks": the format predates the
# 15-card Extra Deck limit; its Fusion toolbox has 22 cards): only the bound on the cards a player owns holds
RULESET_AREA_LIMITS = {"goat": {**AREA_LIMITS, "extra_deck": MAX_OWNED}}
MAX_CHAIN = 150  # chain links and pending selections: no more than the cards of a duel
MAX_NAME = 200  # characters of a card name
MAX_DEPTH = 32  # nesting of JSON objects and lists (a state needs 8; `extra` contents get the rest)
MAX_INT_DIGITS = 30  # longer integer literals are out of every bound above
MAX_VALUES = 100_000  # values in one state or action, `extra` contents included (a full duel needs < 5,000)


def copy_state(data: dict) -> dict:
    """A deep copy of a normalized state (the apply loop copies the state once per action), by its
    shape (normalize's keys): a list area's names copied as a list, a field card by one dict copy and
    its dict values; about a third of a pickle round trip's time (10 vs 29 us per state of a random
    duel; copy.deepcopy: 5x pickle).  Nothing mutable is shared with `data`."""
    out = data.copy()
    out["players"] = {p: _copy_side(side) for p, side in data["players"].items()}
    for key in _STATE_CONTAINERS:
        value = data.get(key)
        if value is not None:
            out[key] = copy_json(value)
    return out


_SCALARS = frozenset((str, int, bool, float, type(None)))
_STATE_CONTAINERS = ("chain", "pending", "extra")  # the top-level keys besides players that hold lists or dicts
_FIELD_CARD_DICTS = ("equipped_to", "counters", "extra")  # a field card's keys that may hold a dict


def copy_json(value):
    """A deep copy of a JSON value (dicts, lists, scalars)."""
    if type(value) is dict:
        return {k: x if type(x) in _SCALARS else copy_json(x) for k, x in value.items()}
    if type(value) is list:
        return [x if type(x) in _SCALARS else copy_json(x) for x in value]
    return value


def _copy_side(side: dict) -> dict:
    out = side.copy()
    for area in LIST_AREAS:  # card names (str)
        out[area] = side[area][:]
    for area in ZONE_AREAS:
        out[area] = [None if card is None else _copy_field_card(card) for card in side[area]]
    if side["field_zone"] is not None:
        out["field_zone"] = _copy_field_card(side["field_zone"])
    return out


def _copy_field_card(card: dict) -> dict:
    out = card.copy()
    for key in _FIELD_CARD_DICTS:
        value = card[key]
        if value:
            out[key] = copy_json(value)
        elif value is not None:  # (mostly: no counters, no extra)
            out[key] = {}
    return out


def opponent(player: str) -> str:
    return "B" if player == "A" else "A"


class _Checker:
    """Walks a raw state, filling defaults; every error names the field: 'where: expected X, got Y'."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, expected: str, got: Any, described: bool = False) -> None:
        """:param described: `got` is already words ("61 cards"), not a value to show."""
        prefix = f"{self.source}: " if self.source else ""
        where = where or "the state"  # the top level: no key to name
        raise StateError(f"{prefix}{where}: expected {expected}, got {got if described else show(got)}")

    def keys(self, obj: Any, where: str, allowed: set[str], required: set[str] = frozenset()) -> dict:
        if not isinstance(obj, dict):
            self.fail(where, "an object", obj)
        for key in obj:
            if key not in allowed:
                name = key if len(key) <= 60 else key[:40] + "..."
                self.fail(f"{where}.{name}" if where else name, f"a known key ({', '.join(sorted(allowed))})", key)
        for key in required:
            if key not in obj:
                self.fail(f"{where}.{key}" if where else key, "this required key", "nothing")
        return obj

    def int_(self, value: Any, where: str, minimum: int, maximum: int) -> int:
        if type(value) is not int or not minimum <= value <= maximum:
            self.fail(where, f"an integer from {minimum:,} to {maximum:,}", value)
        return value

    def bool_(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            self.fail(where, "true or false", value)
        return value

    def choice(self, value: Any, where: str, options) -> Any:
        # by type as well as value: 1.0 and true are not the zone 1
        if not any(type(value) is type(o) and value == o for o in options):
            self.fail(where, "one of " + ", ".join(json.dumps(o) for o in options), value)
        return value

    def list_(self, value: Any, where: str, what: str, limit: int) -> list:
        if not isinstance(value, list):
            self.fail(where, f"a list of {what}", value)
        if len(value) > limit:
            self.fail(where, f"at most {limit} {what}", f"{len(value):,} of them", described=True)
        return value

    def distinct(self, refs: list, where: str, what: str) -> None:
        """Each entry of a list of card references (or players) is named once: a second one is bad input."""
        seen = set()
        for j, r in enumerate(refs):
            key = (r["player"], r["area"], r["index"]) if isinstance(r, dict) else r
            if key in seen:
                self.fail(f"{where}[{j}]", f"{what} not named before in {where}", r)
            seen.add(key)

    def ref(self, value: Any, where: str, areas=AREAS, keys=REF_KEYS) -> dict:
        """A card reference {"player", "area", "index"} (a chain link's `zone`: {"area", "index"})."""
        self.keys(value, where, keys, keys)
        if "player" in keys:
            self.choice(value["player"], f"{where}.player", PLAYERS)
        self.choice(value["area"], f"{where}.area", areas)
        self.int_(value["index"], f"{where}.index", 0, area_size(value["area"]) - 1)
        return value


def area_limits(ruleset) -> dict:
    """The most cards each list area of a player may hold in a state of this ruleset."""
    return RULESET_AREA_LIMITS.get(ruleset, AREA_LIMITS) if isinstance(ruleset, str) else AREA_LIMITS


def area_size(area: str) -> int:
    """How many places an area has: the index of a card reference is below it (in any ruleset: a reference is
    read before its state's ruleset is known; the state then says whether a card is there)."""
    if area in ZONE_AREAS:
        return 5
    return 1 if area == "field_zone" else max(limits[area] for limits in (AREA_LIMITS, *RULESET_AREA_LIMITS.values()))


def normalize(raw: Any, source: str = "") -> dict:
    """A complete, checked copy of a raw state dict (defaults filled, card names canonical).

    Sizes are checked first (a list too long for its area fails before anything is built), then
    the nesting and the numbers of the whole value, then every field.

    :raises StateError: on an unknown key, a wrong type or value, a value out of its bounds, an
        unknown card name, a wrong zone count, or a card in a zone its kind cannot be in.
    """
    ck = _Checker(source)
    if isinstance(raw, dict) and raw.get("format") == VIEW_FORMAT:  # before its keys: `viewer` is not the reason
        ck.fail("format", f"{FORMAT!r} (a full state; a player's view hides cards and cannot be played from)",
                VIEW_FORMAT)
    ck.keys(raw, "", set(TOP_DEFAULTS) | {"format", "players", "extra"}, {"format", "players"})
    _check_sizes(ck, raw)
    check_json(raw, source=source)
    ck.choice(raw["format"], "format", (FORMAT,))
    state = {"format": FORMAT}
    for key, default in TOP_DEFAULTS.items():
        state[key] = copy.deepcopy(raw.get(key, default))
    ck.choice(state["ruleset"], "ruleset", RULESETS)
    ck.int_(state["turn"], "turn", 1, MAX_COUNT)
    ck.choice(state["turn_player"], "turn_player", PLAYERS)
    ck.choice(state["first_player"], "first_player", PLAYERS)
    ck.choice(state["phase"], "phase", phases_of(state["ruleset"]))
    if state["priority"] is None:  # who chooses next (docs/decisions.md): the player of a pending action; with an
        # open chain, the opponent of the last link's player, who may respond to it (rulebook p. 35); else the turn player
        pending = state["pending"] if isinstance(state["pending"], dict) else {}
        builder = pending.get("action", {}).get("player") if isinstance(pending.get("action"), dict) else None
        chain = state["chain"] if isinstance(state["chain"], list) else []
        last = chain[-1].get("player") if chain and isinstance(chain[-1], dict) else None
        state["priority"] = (builder if builder in PLAYERS else opponent(last) if not pending and last in PLAYERS
                             else state["turn_player"])
    ck.choice(state["priority"], "priority", PLAYERS)
    ck.choice(state["winner"], "winner", (None, "A", "B", "draw"))
    ck.int_(state["rng_seed"], "rng_seed", -MAX_RNG_SEED - 1, MAX_RNG_SEED)
    cat = catalog(state["ruleset"])
    # engine bookkeeping of the duel as a whole (docs/decisions.md): written only when there is some
    if raw.get("extra") is not None:
        _duel_extra(ck, cat, raw["extra"])
    if raw.get("extra"):
        state["extra"] = copy.deepcopy(raw["extra"])
        if "phase_end" in state["extra"]:  # rulebook p. 38: the phase asked for, waiting for the opponent's pass
            ck.choice(state["extra"]["phase_end"], "extra.phase_end", (*phases_of(state["ruleset"]), "turn"))
        if "damage_step_chain" in state["extra"]:  # rulebook p. 32: the open chain is in the Damage Step
            ck.choice(state["extra"]["damage_step_chain"], "extra.damage_step_chain", (True, False))
        if "summon_chain" in state["extra"]:  # GOAT priority: the open chain was begun in a Summon's window
            ck.choice(state["extra"]["summon_chain"], "extra.summon_chain", (True, False))
        if "simultaneous_triggers" in state["extra"]:  # triggers of one moment waiting for their chain links
            waiting = ck.list_(state["extra"]["simultaneous_triggers"], "extra.simultaneous_triggers",
                               "card references", MAX_CHAIN)
            for j, r in enumerate(waiting):  # each a card reference, with its trigger's event (goat) if known
                ck.ref({k: v for k, v in r.items() if k != "event"} if isinstance(r, dict) else r,
                       f"extra.simultaneous_triggers[{j}]")
                if "event" in r:
                    ck.int_(r["event"], f"extra.simultaneous_triggers[{j}].event", 1, MAX_EVENT_ORDER)
            ck.distinct(waiting, "extra.simultaneous_triggers", "a card")  # one trigger per card waits
        if "damage_step_end" in state["extra"]:  # goat's Damage Step after damage calculation, until its End
            end = ck.keys(state["extra"]["damage_step_end"], "extra.damage_step_end", {"sub_step"}, {"sub_step"})
            ck.choice(end["sub_step"], "extra.damage_step_end.sub_step", (1, 2))
        for key, areas in CARD_MARK_AREAS.items():  # cards marked by a reference: effects negated, a FLIP due off the field
            if key in state["extra"]:
                for j, r in enumerate(ck.list_(state["extra"][key], f"extra.{key}", "card references", 10)):
                    ck.ref(r, f"extra.{key}[{j}]", areas=areas)
                ck.distinct(state["extra"][key], f"extra.{key}", "a card")
        for lock in TURN_LOCKS:  # the players locked out of it this turn
            if lock in state["extra"]:
                locked = ck.list_(state["extra"][lock], f"extra.{lock}", "players", 2)
                for i, p in enumerate(locked):
                    ck.choice(p, f"extra.{lock}[{i}]", PLAYERS)
                ck.distinct(locked, f"extra.{lock}", "a player")

    players = ck.keys(raw["players"], "players", set(PLAYERS), set(PLAYERS))
    state["players"] = {p: _player(ck, cat, players[p], f"players.{p}", p, state["ruleset"]) for p in PLAYERS}
    for p in PLAYERS:  # what one player owns, wherever it is: a Main Deck and an Extra Deck at most
        owned = sum(len(state["players"][p][area]) for area in LIST_AREAS)
        owned += sum(1 for q in PLAYERS for fc in _field_cards(state["players"][q]) if fc["owner"] == p)
        if owned > MAX_OWNED:
            deck = "a Main Deck and a Fusion Deck" if state["ruleset"] in RULESET_AREA_LIMITS else "a Main Deck of 60 and an Extra Deck of 15"
            ck.fail(f"players.{p}", f"at most {MAX_OWNED} cards owned by {p} ({deck})",
                    f"{owned} cards", described=True)

    _check_attack_targets(ck, state)

    ck.list_(state["chain"], "chain", "chain links", MAX_CHAIN)
    for i, link in enumerate(state["chain"]):
        where = f"chain[{i}]"
        ck.keys(link, where, CHAIN_KEYS, {"card", "player"})
        link["card"] = _card(ck, cat, link["card"], f"{where}.card").name
        ck.choice(link["player"], f"{where}.player", PLAYERS)
        if "zone" not in link:  # left out: where the activated card sits (null is for a card not on the field)
            link["zone"] = _link_zone(ck, state, i, where)
        link.setdefault("targets", [])
        link.setdefault("speed", 1)
        if link["zone"] is not None:
            ck.ref(link["zone"], f"{where}.zone", tuple(a for a in AREAS if a != "hand"), {"area", "index"})
        ck.list_(link["targets"], f"{where}.targets", "card references", MAX_CHAIN)
        for j, t in enumerate(link["targets"]):
            ck.ref(t, f"{where}.targets[{j}]")
        ck.distinct(link["targets"], f"{where}.targets", "a card")  # (a card is targeted once: selections name it once)
        ck.choice(link["speed"], f"{where}.speed", (1, 2, 3))
        if "extra" in link:  # engine bookkeeping (docs/decisions.md), written only when not empty
            ck.keys(link["extra"], f"{where}.extra", set(link["extra"]) if isinstance(link["extra"], dict) else set())
            if "summon_position" in link["extra"]:
                ck.choice(link["extra"]["summon_position"], f"{where}.extra.summon_position", MONSTER_POSITIONS)
            if "declared_type" in link["extra"]:
                ck.choice(link["extra"]["declared_type"], f"{where}.extra.declared_type", MONSTER_TYPES)
            if "effect" in link["extra"]:  # the one effect of its card the link resolves (ygo:linkEffect)
                ck.choice(link["extra"]["effect"], f"{where}.extra.effect", cat.get(link["card"]).effects)
            if "counters" in link["extra"]:  # its card's counters as it was activated (ygo:linkCounters)
                ck.int_(link["extra"]["counters"], f"{where}.extra.counters", 0, MAX_COUNT)
            if "negated" in link["extra"]:  # a later link or a continuous effect negated it (ygo:negatedOnChain)
                ck.choice(link["extra"]["negated"], f"{where}.extra.negated", (True,))
            if "cost_level" in link["extra"]:  # the Level of a monster Tributed as its cost (level-of-cost.swrl)
                ck.int_(link["extra"]["cost_level"], f"{where}.extra.cost_level", 1, 12)

    if state["pending"] is not None:
        pending = ck.keys(state["pending"], "pending", PENDING_KEYS, {"action", "purpose"})
        from .actions import check_action_object

        check_action_object(pending["action"], "pending.action", source)
        if pending["action"]["type"] in ("select", "cancel"):  # the choices themselves: never waiting for one
            ck.fail("pending.action.type", "the action being built (a summon, an activation, end_turn, the pass on "
                    "which a chain resolves), not a choice made while one is built", pending["action"]["type"])
        ck.choice(pending["purpose"], "pending.purpose", PURPOSES)
        opened = made_in_duels(state["ruleset"])[0]
        if pending["purpose"] not in opened:  # (the rules of a purpose no card opens are not run: knowledge._never_made)
            ck.fail("pending.purpose", f"a purpose the {state['ruleset']} ruleset's cards open ("
                    + ", ".join(p for p in PURPOSES if p in opened) + ")", pending["purpose"])
        pending.setdefault("needed", 1)
        pending.setdefault("chosen", [])
        ck.int_(pending["needed"], "pending.needed", 1, MAX_CHAIN)
        ck.list_(pending["chosen"], "pending.chosen", "card references", MAX_CHAIN)
        for j, r in enumerate(pending["chosen"]):
            ck.ref(r, f"pending.chosen[{j}]")
        if "extra" in pending:  # the Level of a monster Tributed as the activation's cost, once paid (level-of-cost.swrl);
            # a trigger's event, its time in its step (goat: a decline passes over its event's other optional triggers)
            ck.keys(pending["extra"], "pending.extra", {"cost_level", "event"})
            if "cost_level" in pending["extra"]:
                ck.int_(pending["extra"]["cost_level"], "pending.extra.cost_level", 1, 12)
            if "event" in pending["extra"]:
                ck.int_(pending["extra"]["event"], "pending.extra.event", 1, MAX_EVENT_ORDER)
        _check_pending_refs(ck, cat, state, pending)
    for j, r in enumerate(state.get("extra", {}).get("simultaneous_triggers", ())):
        if card_name_at(state, r) is None:
            ck.fail(f"extra.simultaneous_triggers[{j}]", f"a reference to a card ({_place(r)} is empty)", r)
    for key in CARD_MARK_AREAS:
        for j, r in enumerate(state.get("extra", {}).get(key, ())):
            name = card_name_at(state, r)
            if name is None:
                ck.fail(f"extra.{key}[{j}]", f"a reference to a card ({_place(r)} is empty)", r)
            if key in MONSTER_CARD_MARKS and not cat.get(name).is_monster:
                ck.fail(f"extra.{key}[{j}]", f"a reference to a monster ({_place(r)} holds {name})", r)
    _check_destroyed_by_battle(ck, state)
    _check_attacked_monsters(ck, cat, state)
    _check_locked_zones(ck, cat, state)
    check_invariants(ck, cat, state)
    return state


def _check_destroyed_by_battle(ck: _Checker, state: dict) -> None:
    """A monster marked destroyed by battle (a field card's `extra.destroyed_by_battle`) waits on the field for the End of
    goat's Damage Step (GOAT pack README item 3): only in a Monster Zone, only while `extra.damage_step_end` is there."""
    held = "damage_step_end" in state.get("extra", {})
    for p in PLAYERS:
        side = state["players"][p]
        for area in ("monster_zones", "spell_trap_zones"):
            for i, fc in enumerate(side[area]):
                if fc is not None and fc["extra"].get("destroyed_by_battle"):
                    if area != "monster_zones" or not held:
                        ck.fail(f"players.{p}.{area}[{i}].extra.destroyed_by_battle",
                                "false or absent (true only for a monster in a Monster Zone during goat's Damage Step "
                                "after damage calculation, extra.damage_step_end)", True)


def _check_attacked_monsters(ck: _Checker, cat: Catalog, state: dict) -> None:
    """The monsters a monster attacked this turn (a field card's `extra.attacked_monsters`): only a monster in a Monster
    Zone with the keyword ability attacksEveryMonster marks them, each a distinct monster in a Monster Zone of its opponent's (rules/common/effects/attack-every-monster.swrl)."""
    from .abox import ATTACKS_EVERY_MONSTER

    for p in PLAYERS:
        side = state["players"][p]
        for area in ("monster_zones", "spell_trap_zones"):
            for i, fc in enumerate(side[area]):
                if fc is None or "attacked_monsters" not in fc["extra"]:
                    continue
                where = f"players.{p}.{area}[{i}].extra.attacked_monsters"
                if area != "monster_zones":
                    ck.fail(where, "absent (only a monster in a Monster Zone attacks)", fc["extra"]["attacked_monsters"])
                if ATTACKS_EVERY_MONSTER not in cat.get(fc["card"]).abilities:
                    ck.fail(where, f"absent ({fc['card']} has not the keyword ability {ATTACKS_EVERY_MONSTER}: the "
                            "monsters it attacked are not kept)", fc["extra"]["attacked_monsters"])
                seen = set()
                for j, r in enumerate(fc["extra"]["attacked_monsters"]):
                    if r["player"] != opponent(p) or card_name_at(state, r) is None or r["index"] in seen:
                        ck.fail(f"{where}[{j}]", f"a reference to a monster of {opponent(p)}'s, in a Monster Zone, "
                                "named once", r)
                    seen.add(r["index"])


def _check_locked_zones(ck: _Checker, cat: Catalog, state: dict) -> None:
    """The zones a monster's `extra.locked_zones` locks: only a card with a ZoneLockEffect chooses them (the pending
    purpose lockZone; rules/common/effects/zone-lock.swrl)."""
    from .abox import zone_lock_cards  # (the cards with a ZoneLockEffect: the catalog's data)

    for p in PLAYERS:
        for i, fc in enumerate(state["players"][p]["monster_zones"]):
            if fc is not None and "locked_zones" in fc["extra"] and fc["card"] not in zone_lock_cards(cat):
                ck.fail(f"players.{p}.monster_zones[{i}].extra.locked_zones", f"absent ({fc['card']} has no "
                        "ZoneLockEffect: it locks no zones)", fc["extra"]["locked_zones"])


def _check_attack_targets(ck: _Checker, state: dict) -> None:
    """An attack in progress (a monster's `extra.attack`) targets a monster: its `target` is a Monster Zone that
    holds a card (rulebook p. 27: an attack is declared on a monster on the field, or directly: `target` null)."""
    for p in PLAYERS:
        for i, fc in enumerate(state["players"][p]["monster_zones"]):
            attack = fc["extra"].get("attack") if fc is not None else None
            target = attack.get("target") if isinstance(attack, dict) else None
            if target is None:
                continue
            where = f"players.{p}.monster_zones[{i}].extra.attack.target"
            if target["area"] != "monster_zones":
                ck.fail(f"{where}.area", '"monster_zones" (an attack targets a monster on the field, or is direct: '
                        "target null)", target["area"])
            if card_at(state, target) is None:
                ck.fail(where, f"a reference to a monster ({_place(target)} is empty)", target)


def phases_of(ruleset: str) -> tuple:
    """The phases a state of this ruleset may be in (state-format.md `phase`)."""
    return OFFICIAL_PHASES if official_based(ruleset) else SIMPLIFIED_PHASES


def card_at(state: dict, ref: dict) -> dict | str | None:
    """The entry at a card reference: a name (list areas) or a field card (zones)."""
    side = state["players"][ref["player"]]
    if ref["area"] == "field_zone":
        return side["field_zone"] if ref["index"] == 0 else None
    cards = side[ref["area"]]
    return cards[ref["index"]] if 0 <= ref["index"] < len(cards) else None


def locked_zones(state: dict) -> frozenset:
    """The Monster Zones (player, index) a ZoneLockEffect locks: the zones a face-up monster's `extra.locked_zones`
    names, on the side of its controller's opponent (a ZoneLockEffect: the chosen zones cannot be used while its
    card remains face-up; primitives.lock_zones writes them, the zones its controller selected). A face-down or
    departed card locks nothing, so the zones are free again at once."""
    out = []
    for p in PLAYERS:
        for fc in state["players"][p]["monster_zones"]:
            if fc is not None and fc["extra"] and "locked_zones" in fc["extra"] and fc["position"] != "face_down_defense" \
                    and not fc["extra"].get("attempt"):  # (a Summon being attempted: its effects do not apply yet)
                out.extend((opponent(p), i) for i in fc["extra"]["locked_zones"])
    return frozenset(out)


def usable_monster_zones(state: dict, player: str, locked: frozenset | None = None) -> list[int]:
    """The player's Monster Zones a monster may be placed in, in zone order: empty and not locked (locked_zones).
    The one answer to "is there room": the ABox's `free` facts and freeMonsterZoneCount, and every primitive that
    places a monster, read it."""
    if locked is None:
        locked = locked_zones(state)
    return [i for i, z in enumerate(state["players"][player]["monster_zones"]) if z is None and (player, i) not in locked]


def card_name_at(state: dict, ref: dict) -> str | None:
    """The name of the card at a reference, or None for an empty place."""
    entry = card_at(state, ref)
    return entry["card"] if isinstance(entry, dict) else entry


def _link_zone(ck: _Checker, state: dict, number: int, where: str) -> dict | None:
    """The zone of a chain link that leaves `zone` out: the one card of its name on its player's field that
    no other link names as its zone (state-format.md "Chain link": `zone` is where the activated card
    sits), or null when there is none (a card not on the field); two such cards for one link are an error
    naming it (two links of one card leaving it out take the copies in zone order)."""
    link = state["chain"][number]
    named = {(other.get("player"), z.get("area"), z.get("index")) for other in state["chain"] if isinstance(other, dict)
             for z in [other.get("zone")] if isinstance(z, dict)}
    found = [{"area": area, "index": i} for area in ("spell_trap_zones", "field_zone", "monster_zones")
             for i in range(5 if area != "field_zone" else 1)
             if (link["player"], area, i) not in named and card_name_at(state, {"player": link["player"], "area": area, "index": i}) == link["card"]]
    # later links of the same card and player that leave `zone` out take the next copies, in chain order
    later = sum(1 for other in state["chain"][number + 1:] if isinstance(other, dict) and "zone" not in other
                and other.get("player") == link["player"] and other.get("card") == link["card"])
    if len(found) > 1 + later:
        ck.fail(f"{where}.zone", f"the zone of the activated card ({len(found)} cards named {link['card']} on "
                f"{link['player']}'s field: give `zone`)", "none (left out)", described=True)
    return found[0] if found else None


def _place(ref: dict) -> str:
    """Where a reference points, as the state's own path (`players.A.hand[0]`): an error names it."""
    if ref["area"] == "field_zone":
        return f"players.{ref['player']}.field_zone"
    return f"players.{ref['player']}.{ref['area']}[{ref['index']}]"


def _check_pending_refs(ck: _Checker, cat: Catalog, state: dict, pending: dict) -> None:
    """state-format.md "Pending action": the action being built and the cards chosen so far are cards
    of this state - every reference points at a card, a card is chosen at most once, the action's
    `card` is the card at its `from`, and its player makes the selections (holds priority)."""
    seen = set()
    zones = pending["purpose"] in ZONE_PURPOSES
    for j, r in enumerate(pending["chosen"]):
        if zones:  # a lockZone selection (rules/common/effects/zone-lock.swrl): unoccupied Monster Zones of the
            # opponent of the player who chooses (a ZoneLockEffect: "The zones must be unoccupied")
            if r["area"] != "monster_zones" or r["player"] == pending["action"].get("player", state["priority"]) \
                    or card_name_at(state, r) is not None:
                ck.fail(f"pending.chosen[{j}]", "an empty Monster Zone of the opponent of the player who chooses "
                        "(the zones a lockZone selection locks are unoccupied)", r)
        elif card_name_at(state, r) is None:
            ck.fail(f"pending.chosen[{j}]", f"a reference to a card ({_place(r)} is empty)", r)
        key = (r["player"], r["area"], r["index"])
        if key in seen:
            ck.fail(f"pending.chosen[{j}]", "a card not chosen before (a card is chosen once)", r)
        seen.add(key)
    action = pending["action"]
    action.setdefault("player", state["priority"])  # who selects: the priority player (given, or the turn player)
    if "card" in action:  # the catalog's own spelling, as everywhere in a state
        action["card"] = _card(ck, cat, action["card"], "pending.action.card").name
    if "from" not in action and action["type"] in PENDING_FROM_AREAS:
        # actions-and-cli.md: such an action names its card both by `card` and by `from`; a hand-written pending
        # that gives only the name gets the place of the one card of that name where the action takes it from
        name = action.get("card")
        side = state["players"][action["player"]]
        places = [{"player": action["player"], "area": area, "index": i}
                  for area in PENDING_FROM_AREAS[action["type"]]
                  for i in range(len(side[area]) if area != "field_zone" else 1)]
        found = [r for r in places if name is not None and card_name_at(state, r) == name]
        if len(found) != 1:
            ck.fail("pending.action.from", f"a card reference (the card the {action['type']} is built for"
                    + (f": {len(found)} cards named {name} where it can come from)" if name else ")"), None)
        action["from"] = found[0]
    if "from" in action:
        there = card_name_at(state, action["from"])
        if there is None:
            ck.fail("pending.action.from", f"a reference to a card ({_place(action['from'])} is empty)", action["from"])
        if "card" in action and action["card"] != there:
            ck.fail("pending.action.card", f"the card at pending.action.from ({there})", action["card"])
    if action.get("player") in PLAYERS and state["priority"] != action["player"]:
        ck.fail("priority", f"the player of the pending action ({action['player']}), who makes its selections",
                state["priority"])
    own = action.get("from")
    for j, r in enumerate(pending["chosen"]):
        # state-format.md "Pending action": the card the action is built for is never its own tribute, material,
        # cost or discard, and a card taken from the hand or the Extra Deck leaves that place as the action is
        # made (seed 001, CR 903.2a: an activated card is placed on the field first), so such a place is never
        # its own target; only a card on the field may choose itself (a FLIP effect's "1 monster on the field")
        if own is not None and (r["player"], r["area"], r["index"]) == (own["player"], own["area"], own["index"]) \
                and (pending["purpose"] != "target" or own["area"] in ("hand", "extra_deck")):
            ck.fail(f"pending.chosen[{j}]", f"a card other than the one the {action['type']} is built for "
                    f"(pending.action.from, {_place(own)}) as its {pending['purpose']}", r)
        # rulebook v6.0 glossary "Discard" (p. 42): a discarded card is sent from the hand to the Graveyard
        if pending["purpose"] == "discard" and (r["area"] != "hand" or r["player"] != action.get("player")):
            ck.fail(f"pending.chosen[{j}]", f"a card in the hand of {action.get('player')}, who discards it "
                    "(a discard is a card sent from the hand)", r)
        # a SwapControlEffect (rules/common/effects/swap.swrl): each player chooses a monster they control, the
        # link's player first; the selection is then the opponent's, so a chosen card is a monster of the other player
        if pending["purpose"] == "swap" and (r["area"] != "monster_zones" or r["player"] == action.get("player")):
            ck.fail(f"pending.chosen[{j}]", f"a monster in a Monster Zone of the player who chose first (not "
                    f"{action.get('player')}, who chooses now: a swap's choices are one of each player's monsters)", r)
        # a TossCoinsEffect with destroysPerHeads (rules/common/effects/per-heads.swrl): monsters on the field
        if pending["purpose"] == "perHeadsDestroy" and r["area"] != "monster_zones":
            ck.fail(f"pending.chosen[{j}]", "a monster in a Monster Zone (the monsters destroyed per heads)", r)


# ---------------------------------------------------------------- invariants
# Boards that no play of the rules reaches (state-format.md "Invariants"): each field may be well-formed on
# its own while the whole is impossible, and the engine would then misbehave (a dead end with no allowed
# action, a reasoner that finds the state inconsistent, a lost card).  Each invariant is a named check of a
# whole normalized state that returns the field to name, what was expected there and what was found (in words:
# values shown by `show`).

def _where_of(player: str, area: str, index: int) -> str:
    return _place({"player": player, "area": area, "index": index})


def _field_entries(state: dict):
    """(player, area, index, field card) of every card on the field."""
    for p in PLAYERS:
        side = state["players"][p]
        for area in ZONE_AREAS:
            for i, fc in enumerate(side[area]):
                if fc is not None:
                    yield p, area, i, fc
        if side["field_zone"] is not None:
            yield p, "field_zone", 0, side["field_zone"]


def _inv_winner_ends_the_duel(state: dict, cat: Catalog):
    """A winner ends the duel at once (rulebook p. 22): no pending action still plays."""
    if state["winner"] is not None and state["pending"] is not None:
        return "pending", f"null (the duel is over: winner is {json.dumps(state['winner'])})", f"a pending {state['pending']['action']['type']}"


def _inv_no_life_points_no_duel(state: dict, cat: Catalog):
    """A player at 0 LP has lost (rulebook p. 22): the duel goes on only while both have LP."""
    if state["winner"] is None:
        for p in PLAYERS:
            if state["players"][p]["life_points"] == 0:
                return (f"players.{p}.life_points", "more than 0 while the duel goes on (a player at 0 LP has lost: "
                        "set `winner`)", "0")


def _inv_one_attack_at_a_time(state: dict, cat: Catalog):
    """An attack in progress (`extra.attack`) is one the turn player declared in its Battle Phase with a monster in
    face-up Attack Position (rulebook pp. 26-28), one at a time, against a monster of the opponent (or none: a
    direct attack, or a target that left the field)."""
    attackers = [(p, i, fc) for p, area, i, fc in _field_entries(state)
                 if area == "monster_zones" and fc["extra"].get("attack") is not None]
    for n, (p, i, fc) in enumerate(attackers):
        where = f"{_where_of(p, 'monster_zones', i)}.extra.attack"
        if state["ruleset"] == "simplified":  # rulesets.md: no responses, so an attack resolves as it is declared
            return where, "no attack in progress (the simplified ruleset resolves an attack as it is declared)", "an attack"
        if p != state["turn_player"]:
            return where, f"no attack in progress (only the turn player, {state['turn_player']}, attacks)", "an attack"
        if n > 0:
            first = _where_of(p, "monster_zones", attackers[0][1])
            return where, f"no attack in progress ({first} is attacking: one attack at a time)", "a second attack"
        if state["phase"] != "battle":
            return where, "no attack in progress outside the Battle Phase", f"an attack in the phase {show(state['phase'])}"
        if fc["position"] != "attack" or fc["attacks_declared"] < 1:
            return (where, "no attack in progress (an attacker is in face-up Attack Position and has declared its "
                    "attack: attacks_declared 1 or more)",
                    f"an attack by a monster in {fc['position']} with attacks_declared {fc['attacks_declared']}")
        if fc["extra"]["attack"].get("damage_step") and not state["chain"] and not fc["counters"].get("damage_sub_step"):
            # rules/common/battle.swrl: damage is calculated as the window before the Damage Step closes, in the
            # same step, so an attack waits in the Damage Step only for a chain built there (rulebook p. 32), or in
            # the goat ruleset's damage calculation window (the attacker's counters.damage_sub_step: rules/goat/damage-step.swrl)
            return f"{where}.damage_step", "false while no chain is open (damage is calculated as the Damage Step " \
                "starts; an attack waits there only for a chain built in it, or in a window its attacker's " \
                "counters.damage_sub_step opened)", "true"
        target = fc["extra"]["attack"].get("target")
        if target is not None and (target["player"] == p or target["area"] != "monster_zones"
                                   or card_name_at(state, target) is None):
            return f"{where}.target", "a monster the opponent controls (null for a direct attack)", show(target)


# the summons the players answer in a window of their own (rulebook p. 38; extra.just_summoned): a Normal, Tribute or
# Flip Summon, and a Special Summon by a monster's own procedure (rules/common/effects/summon-procedure.swrl)
ANSWERED_SUMMONS = ("normal", "flip", "special")


def _inv_summon_answers_official_only(state: dict, cat: Catalog):
    """A summon waiting for the players' answers (`extra.just_summoned` "normal", "flip" or "special": the turn
    player's window, then the opponent's, rulebook p. 38) is an `official`-based state: the simplified ruleset has no responses, so a
    summon stands as it is made."""
    if state["ruleset"] == "simplified":
        for p, area, i, fc in _field_entries(state):
            if area == "monster_zones" and fc["extra"].get("just_summoned") in ANSWERED_SUMMONS:
                return (f"{_where_of(p, area, i)}.extra.just_summoned", "none (the simplified ruleset has no "
                        "response windows: a summon stands as it is made)", show(fc["extra"]["just_summoned"]))


def _inv_equip_spells_equip(state: dict, cat: Catalog):
    """Only a face-up Equip Spell is equipped to a monster (rulebook p. 17), or a face-up Continuous Trap linked to
    the monster it Special Summoned (a SpecialSummonEffect tiedToSummonedMonster), and its monster is on the field: an Equip Spell
    whose monster leaves is destroyed (the engine clears `equipped_to` as it happens)."""
    for p, area, i, fc in _field_entries(state):
        eq = fc["equipped_to"]
        if eq is None:
            continue
        card = cat.get(fc["card"])
        where = f"{_where_of(p, area, i)}.equipped_to"
        # a Continuous Trap is linked the same way to the monster it Special Summoned (tiedToSummonedMonster); a Monster
        # Card in a Spell & Trap Zone is an Equip Card (an EquipMonsterEffect's)
        if not (card.card_type == "spell" and card.subtype == "equip" or card.card_type == "trap" and card.subtype == "continuous"
                or card.is_monster and area == "spell_trap_zones"):
            return where, f"null ({card.name} is neither an Equip Spell, a Continuous Trap nor a Monster Card equipped as an Equip Card)", show(eq)
        if fc["position"] != "face_up":
            return where, "null (a face-down card equips nothing)", show(eq)
        if state["players"][eq["player"]]["monster_zones"][eq["zone"]] is None:
            return where, f"a Monster Zone holding a monster (players.{eq['player']}.monster_zones[{eq['zone']}] is empty)", show(eq)


def _inv_one_face_up_field_spell(state: dict, cat: Catalog):
    """Rulebook v6.0 p. 3 ("Field Zone": only 1 Field card can be active at a time) and p. 18 ("Field Spell
    Cards": only 1 face-up Field Spell can be on the field; a new one destroys the old): on the whole field,
    not one per side."""
    face_up = [p for p in PLAYERS if (fz := state["players"][p]["field_zone"]) is not None and fz["position"] == "face_up"]
    if len(face_up) > 1:
        return ("players.B.field_zone.position", "face_down (players.A.field_zone holds a face-up Field Spell: only 1 "
                "face-up Field Spell can be on the field, rulebook pp. 3 and 18)", '"face_up"')


def _inv_one_link_per_card(state: dict, cat: Catalog):
    """A chain link's `zone` holds the card it names, face-up, or nothing (the card left the field as the chain
    resolved), never another card; a card on the field is activated once in a chain: no two links name one place;
    and the simplified ruleset has no chains."""
    if state["chain"] and state["ruleset"] == "simplified":  # rulesets.md: the simplified spec has no chains
        return "chain", "[] (the simplified ruleset has no chains)", f"{len(state['chain'])} chain links"
    seen = {}
    for n, link in enumerate(state["chain"]):
        zone = link["zone"]
        if zone is None:
            continue
        ref = {"player": link["player"], **zone}
        there = card_at(state, ref)  # (a field card; a name where the card sits in a Graveyard: a FLIP effect)
        name = there["card"] if isinstance(there, dict) else there
        if name is not None and name != link["card"]:
            return f"chain[{n}].zone", f"the place of {link['card']} ({_place(ref)} holds {name})", show(zone)
        if isinstance(there, dict) and there["position"] in ("face_down", "face_down_defense"):
            # rulebook p. 20 (a Set card is activated by turning it face-up) and CR 903.2a (seed 001)
            return f"{_place(ref)}.position", f"face-up (the card of chain[{n}]: an activated card is face-up)", \
                show(there["position"])
        key = (link["player"], zone["area"], zone["index"])
        if key in seen:
            return (f"chain[{n}].zone", f"a card not on the chain already (chain[{seen[key]}] is the link of "
                    f"{_place(ref)})", show(zone))
        seen[key] = n


def _inv_phase_end_waits_for_the_opponent(state: dict, cat: Catalog):
    """A phase end the turn player asked for (`extra.phase_end`) waits for the opponent's pass (rulebook p. 38): with
    no chain open, the opponent holds priority, and what may be pending is an activation (a triggered effect's
    selections), never a summon or the turn's end, which the turn player has already moved past."""
    asked = state.get("extra", {}).get("phase_end")
    if asked is None or state["chain"]:
        return None
    other = opponent(state["turn_player"])
    if state["pending"] is None and state["priority"] != other:
        return "priority", f"{json.dumps(other)} (the opponent, whose pass ends the phase the turn player asked " \
            f"to end: extra.phase_end is {json.dumps(asked)})", show(state["priority"])
    if state["pending"] is not None and state["pending"]["action"]["type"] != "activate":
        return "pending", f"null or an activation (extra.phase_end is {json.dumps(asked)}: the turn player asked to end " \
            "the phase and waits for the opponent's pass)", f"a pending {state['pending']['action']['type']}"


def _selection_purposes(ruleset: str, card) -> set[str]:
    """The purposes the selections of a card's activation are for (the ontology's selectsFor of its
    SelectionRequirements: a Ritual Spell's tributes, a target, a discard cost), of its effects' own costs
    (effectCost: a Tribute paid for a Graveyard card's trigger, rules/common/effects/costs.swrl), of its effects'
    targets selected up to a count (selectsUpTo) or of their own filter (effectTargetFilter) and, for a card that asks
    chooseEffect, the choice of its effect."""
    from .knowledge import knowledge

    facts = knowledge(ruleset).vocabulary.tbox_facts
    table = {req: purpose.removesuffix("Purpose") for prop, req, purpose in facts if prop == "selectsFor"}
    costs = {req for prop, effect, req in facts if prop == "effectCost" and effect in card.effects}
    out = {table[req] for req in (*card.activation, *costs) if req in table}
    if any(prop == "selectsUpTo" and effect in card.effects for prop, effect, _n in facts):
        out.add("target")  # a trigger that targets up to N cards (rules/common/effects/tribute-summon.swrl)
    if any(prop == "effectTargetFilter" and effect in card.effects for prop, effect, _f in facts):
        out.add("effectTarget")  # a trigger's target of its own filter (rules/common/effects/hand-to-graveyard.swrl)
    if "cost" in out:  # state-format.md: a cost paid by discarding may be called a discard
        out.add("discard")
    if "chooseEffect" in card.activation:  # the choice of one of its effects (rules/common/effects/choose-effect.swrl)
        out.add("chooseEffect")
    return out


def _procedure_purpose(ruleset: str, card) -> str:
    """What a monster's own Special Summon procedure selects: the cards it banishes from the Graveyard (`cost`) when
    one of its effects has the trigger summonProcedure (rules/common/effects/summon-procedure.swrl), else a
    tribute (a card's own summoning rules)."""
    from .knowledge import knowledge

    facts = knowledge(ruleset).vocabulary.tbox_facts
    procedures = {effect for prop, effect, trigger in facts if prop == "hasTrigger" and trigger == "summonProcedure"}
    return "cost" if procedures & set(card.effects) else "tribute"


def _inv_pending_the_rules_open(state: dict, cat: Catalog):
    """A pending action is one whose selections the rules open (rules/*/summons.swrl, turn.swrl, activation.swrl):
    the End Phase discard of a hand above 6 (rulebook p. 31), the tributes of a Tribute Summon or Set of a Level 5+
    monster that may be Normal Summoned (pp. 14-15), the tribute of a monster's own Special Summon procedure, the
    materials of a Synchro Summon, and the selections of an activation."""
    pending = state["pending"]
    if pending is None:
        return None
    action, purpose = pending["action"], pending["purpose"]
    kind, player = action["type"], action["player"]
    name = action.get("card") or (card_name_at(state, action["from"]) if "from" in action else None)
    card = cat.get(name) if name is not None else None
    main = ("main1", "main2")
    wants = {"end_turn": ("discard",), "tribute_summon": ("tribute",), "set_monster": ("tribute",),
             "special_summon": (_procedure_purpose(state["ruleset"], card)
                                if kind == "special_summon" and card else "tribute",),
             "synchro_summon": ("material",)}
    if kind == "pass":  # a resolving effect's discards chosen on resolution (rules/common/effects/discard.swrl)
        if purpose == "swap":  # a SwapControlEffect's choices (rules/common/effects/swap.swrl): one of each player's
            if len(pending["chosen"]) != pending["needed"] - 1 or pending["needed"] not in (1, 2):
                return ("pending.needed", "1 (the first player's choice) or 2 with 1 chosen (the opponent's)",
                        f"{pending['needed']} with {len(pending['chosen'])} chosen")
            if not any(state["players"][player]["monster_zones"]):
                return f"players.{player}.monster_zones", "a monster (the one the swap asks for)", "none"
            return None
        if purpose == "perHeadsDestroy":  # a TossCoinsEffect's monsters to destroy (rules/common/effects/per-heads.swrl)
            on_field = sum(1 for p in state["players"].values() for z in p["monster_zones"] if z is not None)
            if on_field < pending["needed"]:  # (the monsters chosen are still on the field)
                return "pending.needed", f"at most {on_field} (the monsters on the field)", str(pending["needed"])
            return None
        if purpose == "declare":  # a Level declared on resolution (rules/common/effects/excavate.swrl): by the
            # opponent of the effect's card, named by `from`, one monster selected
            if "from" not in action or pending["needed"] != 1 or pending["chosen"]:
                return ("pending", "a Level to declare: pending.action.from the effect's card, needed 1, nothing chosen",
                        f"needed {pending['needed']} with {len(pending['chosen'])} chosen")
            return None
        if purpose == "returnToDeck":  # the card a ReturnToDeckEffect returns, chosen on resolution (rules/common/
            # effects/return-to-deck.swrl) by its link's player, from the effect's card, named by `from`
            if "from" not in action or pending["needed"] != 1 or pending["chosen"]:
                return ("pending", "a card to return: pending.action.from the effect's card, needed 1, nothing chosen",
                        f"needed {pending['needed']} with {len(pending['chosen'])} chosen")
            return None
        if purpose == "chooseSummonPosition":  # the monsters a PickUpAndSummonEffect Summons face-down (rules/common/
            # effects/pick-up.swrl): chosen by each player in turn, from the effect's card, named by `from`
            if "from" not in action:
                return "pending.action.from", "the effect's card (the pick-up whose positions are chosen)", "none"
            return None
        if purpose == "lockZone":  # the zones a ZoneLockEffect locks (rules/common/effects/zone-lock.swrl): chosen by
            # the controller of its card, face-up in a Monster Zone and named by `from`, up to its locksZones
            from .abox import zone_lock_cards  # (the cards with a ZoneLockEffect: the catalog's data)

            own = card_at(state, action["from"]) if "from" in action else None
            if not (isinstance(own, dict) and own["position"] != "face_down_defense" and "locked_zones" not in own["extra"]
                    and action["from"]["area"] == "monster_zones" and action["from"]["player"] == player
                    and own["card"] in zone_lock_cards(cat)):
                return ("pending.action.from", f"a face-up monster with a ZoneLockEffect in a Monster Zone of {player}'s "
                        "that has not chosen its zones (the card whose zones are chosen)", show(action.get("from")))
            if len(pending["chosen"]) >= pending["needed"]:
                return "pending.needed", f"more than the {len(pending['chosen'])} zones chosen", str(pending["needed"])
            other = opponent(player)
            if not pending["chosen"] and not usable_monster_zones(state, other):  # (at least 1 zone is chosen)
                return (f"players.{other}.monster_zones", "a free zone (the zones to lock are chosen among them)",
                        "none free")
            return None
        if purpose != "discard":  # a pass waits for nothing else: the type is what a selection of that purpose lacks
            return ("pending.action.type", f"an action that selects cards for the purpose {purpose} (a pending pass "
                    "selects only the discards, the swap, the monsters destroyed per heads, the positions of a "
                    "pick-up's Summons, the card to return or the Level a resolving effect asks for)", show(kind))
        if len(state["players"][player]["hand"]) < pending["needed"]:
            return (f"players.{player}.hand", f"at least {pending['needed']} cards (the discards asked for)",
                    f"{len(state['players'][player]['hand'])} cards")
        return None
    if kind not in wants and kind != "activate":
        return "pending.action.type", "an action that selects cards (end_turn, tribute_summon, set_monster, " \
            "special_summon, synchro_summon, activate, pass)", show(kind)
    if kind != "activate" and player != state["turn_player"]:
        return "pending.action.player", f"the turn player ({state['turn_player']}): only they {kind}", show(player)
    if kind in wants and purpose not in wants[kind]:
        return "pending.purpose", json.dumps(wants[kind][0]) + f" (what a {kind} selects)", show(purpose)
    if kind == "end_turn":
        hand = len(state["players"][player]["hand"])
        if state["phase"] != "end" or not official_based(state["ruleset"]):
            return "phase", "\"end\" (the End Phase discard, official ruleset: rulebook p. 31)", show(state["phase"])
        if hand <= 6 + len(pending["chosen"]):
            return (f"players.{player}.hand", f"more than {6 + len(pending['chosen'])} cards (an End Phase discard "
                    f"is down to 6 cards in hand, rulebook p. 31; {len(pending['chosen'])} chosen)", f"{hand} cards")
        return None
    if card is None:
        return "pending.action.card", "the card the action is built for", "none"
    own = action.get("from")  # (an activation's card may be anywhere: a FLIP effect goes on from the Graveyard)
    if kind != "activate" and (own["player"] != player or own["area"] not in PENDING_FROM_AREAS[kind]):
        return ("pending.action.from", f"a card of {player}'s " + " or ".join(PENDING_FROM_AREAS[kind])
                + f" (where a {kind} takes its card from)", show(own))
    if kind in ("tribute_summon", "set_monster", "special_summon", "synchro_summon") and state["phase"] not in main:
        return "phase", f"\"main1\" or \"main2\" (a {kind} is made in a Main Phase, rulebook p. 25)", show(state["phase"])
    if kind in ("tribute_summon", "set_monster"):
        if not card.is_monster or card.special_summon_only or card.subtype in ("ritual", "fusion", "synchro") \
                or (card.level or 0) < 5:
            return ("pending.action.card", "a Level 5 or higher monster that may be Normal Summoned (rulebook pp. 14-15: "
                    f"a Tribute Summon), not a {card.kind_label} of Level {card.level}", show(card.name))
    if kind == "special_summon" and not (card.is_monster and card.special_summon_only
                                         and card.subtype not in ("ritual", "fusion", "synchro")):
        return ("pending.action.card", "a monster Special Summoned by its own procedure from the hand (rulebook p. 15)",
                show(card.name))
    if kind == "synchro_summon" and card.subtype != "synchro":
        return "pending.action.card", "a Synchro Monster (rulesets.md \"Synchro Summon\")", show(card.name)
    if kind == "activate":
        purposes = _selection_purposes(state["ruleset"], card)
        if purpose not in purposes:
            return ("pending.purpose", f"a purpose the activation of {card.name} selects for ("
                    + (", ".join(sorted(purposes)) if purposes else f"{card.name} selects no cards") + ")", show(purpose))
    return None


INVARIANTS = (
    ("winner ends the duel", _inv_winner_ends_the_duel),
    ("0 LP ends the duel", _inv_no_life_points_no_duel),
    ("an attack in progress: the turn player's one, in its Battle Phase", _inv_one_attack_at_a_time),
    ("a summon waits for answers only where there are responses", _inv_summon_answers_official_only),
    ("only Equip Spells (and linked Continuous Traps) equip, to a monster", _inv_equip_spells_equip),
    ("one face-up Field Spell", _inv_one_face_up_field_spell),
    ("one link per card, on its card", _inv_one_link_per_card),
    ("a phase end waits for the opponent", _inv_phase_end_waits_for_the_opponent),
    ("a pending action the rules open", _inv_pending_the_rules_open),
)


def check_invariants(ck: _Checker, cat: Catalog, state: dict) -> None:
    """The INVARIANTS of a normalized state; the first broken one fails, naming its field."""
    for _name, check in INVARIANTS:
        found = check(state, cat)
        if found is not None:
            where, expected, got = found
            ck.fail(where, expected, got, described=True)


def _check_sizes(ck: _Checker, raw: dict) -> None:
    """The lengths of the lists a huge state would have, before anything else looks at them."""
    players = raw.get("players")
    for p in PLAYERS if isinstance(players, dict) else ():
        side = players.get(p)
        if not isinstance(side, dict):
            continue
        for area, limit in area_limits(raw.get("ruleset", TOP_DEFAULTS["ruleset"])).items():
            if isinstance(side.get(area), list) and len(side[area]) > limit:
                ck.fail(f"players.{p}.{area}", f"at most {limit} cards", f"{len(side[area]):,} cards", described=True)
        for area in ZONE_AREAS:
            if isinstance(side.get(area), list) and len(side[area]) != 5:
                ck.fail(f"players.{p}.{area}", "a list of exactly 5 entries (null or a field card)",
                        f"{len(side[area]):,} entries", described=True)
    if isinstance(raw.get("chain"), list) and len(raw["chain"]) > MAX_CHAIN:
        ck.fail("chain", f"at most {MAX_CHAIN} chain links", f"{len(raw['chain']):,} links", described=True)


def _field_cards(side: dict) -> list[dict]:
    return [fc for fc in [*side["monster_zones"], *side["spell_trap_zones"], side["field_zone"]] if fc is not None]


def _card(ck: _Checker, cat: Catalog, name: Any, where: str):
    """The catalog's card of a name (the error names the field and suggests close names)."""
    if not isinstance(name, str) or len(name) > MAX_NAME:
        ck.fail(where, f"a card name (a string of at most {MAX_NAME} characters)", name)
    return cat.get(name, f"{ck.source}: {where}" if ck.source else where)


def _duel_extra(ck: _Checker, cat: Catalog, extra: Any) -> None:
    """The state's `extra`: free, but the engine's own key must have its shape."""
    ck.keys(extra, "extra", set(extra) if isinstance(extra, dict) else set())
    if "properly_summoned" in extra:  # per player, the names of monsters properly summoned before (primitives.py)
        where = "extra.properly_summoned"
        ck.keys(extra["properly_summoned"], where, set(PLAYERS))
        for p, names in extra["properly_summoned"].items():
            ck.list_(names, f"{where}.{p}", "card names", MAX_OWNED)
            for i, name in enumerate(names):
                _card(ck, cat, name, f"{where}.{p}[{i}]")


def _player(ck: _Checker, cat: Catalog, raw: Any, where: str, player: str, ruleset: str) -> dict:
    ck.keys(raw, where, set(PLAYER_DEFAULTS))
    out = {}
    for key, default in PLAYER_DEFAULTS.items():
        out[key] = copy.deepcopy(raw.get(key, default))
    ck.int_(out["life_points"], f"{where}.life_points", 0, MAX_LIFE_POINTS)
    ck.bool_(out["normal_summon_used"], f"{where}.normal_summon_used")
    for area in LIST_AREAS:
        ck.list_(out[area], f"{where}.{area}", "card names", area_limits(ruleset)[area])
        names = []
        for i, name in enumerate(out[area]):
            card = _card(ck, cat, name, f"{where}.{area}[{i}]")
            if card.is_token:  # state-format.md "Tokens": a token that leaves the field ceases to exist
                ck.fail(f"{where}.{area}[{i}]", "a card (a token exists only in a Monster Zone: it is not a card)", card.name)
            if area == "extra_deck" and not card.extra_deck:
                ck.fail(f"{where}.{area}[{i}]", "a Fusion or Synchro monster", card.name)
            if area in ("deck", "hand") and card.extra_deck:
                ck.fail(f"{where}.{area}[{i}]", "a Main Deck card (Fusion and Synchro monsters live in the extra_deck)", card.name)
            names.append(card.name)
        out[area] = names
    if ruleset == "simplified":
        for area in ("extra_deck", "banished"):
            if out[area]:
                ck.fail(f"{where}.{area}", "an empty list (the simplified ruleset has no such area)", out[area])
    for area in ZONE_AREAS:
        zones = out[area] if area in raw else [None] * 5  # left out: five empty zones; null is an error
        if not isinstance(zones, list) or len(zones) != 5:
            ck.fail(f"{where}.{area}", "a list of exactly 5 entries (null or a field card)", zones)
        out[area] = [None if z is None else _field_card(ck, cat, z, f"{where}.{area}[{i}]", player, area)
                     for i, z in enumerate(zones)]
    if out["field_zone"] is not None:
        if ruleset == "simplified":
            ck.fail(f"{where}.field_zone", "null (the simplified ruleset has no Field Zone)", out["field_zone"])
        out["field_zone"] = _field_card(ck, cat, out["field_zone"], f"{where}.field_zone", player, "field_zone")
    return out


def made_in_duels(ruleset: str) -> tuple[frozenset, frozenset]:
    """(purposes, counter keys) of a ruleset: the pending actions' purposes its cards open (knowledge.made_in_duels),
    and the counters the ontology declares (abox.counter_declarations) that none of its cards sets while a rule needs
    one above 0 (that rule is not run).  A state with a pending action of another purpose, or such a counter, is
    refused."""
    from .abox import counter_declarations, zero_substitution
    from .knowledge import knowledge, made_in_duels as made, parsed_rules

    k = knowledge(ruleset)
    got = k.__dict__.get("_state_made")
    if got is None or got[0] is not k.rules:
        purposes, counters = made(k) or (frozenset(PURPOSES), None)
        unset = frozenset()
        if counters is not None:
            props = {prop: key for prop, key in counter_declarations(ruleset) if key not in counters}
            never = frozenset(props)
            unset = frozenset(props[a.pred] for body, _ in parsed_rules(k) if zero_substitution(body, never) is None
                              for a in body if a.pred in never)
        got = k.__dict__["_state_made"] = (k.rules, (purposes, unset))
    return got[1]


def _field_card(ck: _Checker, cat: Catalog, raw: Any, where: str, player: str, area: str) -> dict:
    ck.keys(raw, where, set(FIELD_CARD_DEFAULTS) | {"card"}, {"card"})
    card = _card(ck, cat, raw["card"], f"{where}.card")
    out = {"card": card.name}
    for key, default in FIELD_CARD_DEFAULTS.items():
        out[key] = copy.deepcopy(raw.get(key, default))
    if area == "monster_zones" and not card.is_monster:
        ck.fail(f"{where}.card", "a monster (this is a Monster Zone)", card.name)
    # a Monster Card sits in a Spell & Trap Zone only as an Equip Card (rulebook v6.0 glossary "Equip Card": Monster
    # Cards are sometimes treated as Equip Spell Cards; EquipMonsterEffect): equipped to a monster
    absorbed = area == "spell_trap_zones" and card.is_monster
    if absorbed and raw.get("equipped_to") is None:
        ck.fail(f"{where}.card", "a Spell or Trap that is not a Field Spell (this is a Spell & Trap Zone; a Monster "
                "Card sits here only as an Equip Card, with its equipped_to)", card.name)
    if area == "spell_trap_zones" and card.subtype == "field" and card.card_type == "spell":
        ck.fail(f"{where}.card", "a Spell or Trap that is not a Field Spell (this is a Spell & Trap Zone)", card.name)
    if area == "field_zone" and not (card.card_type == "spell" and card.subtype == "field"):
        ck.fail(f"{where}.card", "a Field Spell (this is the Field Zone)", card.name)
    if out["owner"] is None:
        out["owner"] = player
    ck.choice(out["owner"], f"{where}.owner", PLAYERS)
    positions = MONSTER_POSITIONS if card.is_monster and not absorbed else ("face_up",) if absorbed else SPELL_POSITIONS
    if out["position"] is None:
        out["position"] = positions[0]
    ck.choice(out["position"], f"{where}.position", positions)
    for key in ("summoned_this_turn", "position_changed_this_turn", "set_this_turn"):
        ck.bool_(out[key], f"{where}.{key}")
    ck.choice(out["summoned_by"], f"{where}.summoned_by", SUMMON_METHODS)
    ck.int_(out["attacks_declared"], f"{where}.attacks_declared", 0, MAX_COUNT)
    ck.int_(out["atk_modifier"], f"{where}.atk_modifier", -MAX_MODIFIER, MAX_MODIFIER)
    ck.int_(out["def_modifier"], f"{where}.def_modifier", -MAX_MODIFIER, MAX_MODIFIER)
    if out["equipped_to"] is not None:
        eq = ck.keys(out["equipped_to"], f"{where}.equipped_to", {"player", "zone"}, {"player", "zone"})
        ck.choice(eq["player"], f"{where}.equipped_to.player", PLAYERS)
        ck.choice(eq["zone"], f"{where}.equipped_to.zone", tuple(range(5)))
    for key in ("counters", "extra"):
        if not isinstance(out[key], dict):
            ck.fail(f"{where}.{key}", "an object", out[key])
    unset = None
    for key, value in out["counters"].items():  # counters count: each is a whole number
        ck.int_(value, f"{where}.counters.{key}", 0, COUNTER_BOUNDS.get(key, MAX_COUNT))
        if value:  # (a counter the ontology declares and no card of the ruleset sets: its rules are not run)
            unset = made_in_duels(cat.ruleset)[1] if unset is None else unset
            if key in unset:
                ck.fail(f"{where}.counters.{key}", f"none (no card of the {cat.ruleset} catalog sets this counter)",
                        value)
    _field_card_extra(ck, out["extra"], f"{where}.extra")
    if not card.is_monster:  # a Spell or a Trap is never Summoned, never attacks, never changes control
        for key in MONSTER_EXTRA_KEYS:
            if key in out["extra"]:
                ck.fail(f"{where}.extra.{key}", f"absent (a mark of a monster; {card.name} is a Spell or Trap)",
                        out["extra"][key])
    return out


# a field card's `extra` keys that only a monster has (state-format.md "Bookkeeping")
MONSTER_EXTRA_KEYS = ("attack", "replay", "second_attack", "attacked_monsters", "just_summoned", "effect_summoned",
                      "summon_timing_missed", "attempt", "control_until_end", "control_by_equip", "control_equip_gone",
                      "control_equip_negated", "banish_at_end_phase", "locked_zones", "flipped", "destroyed_by_battle")



def _field_card_extra(ck: _Checker, extra: dict, where: str) -> None:
    """A field card's `extra`: free, but the keys the engine itself writes (primitives.py) must have their shape."""
    for key in ("effect_declined", "control_until_end", "control_by_equip", "control_equip_gone", "control_equip_negated",
                "flipped", "replay", "banish_at_end_phase", "destroyed_by_battle", "second_attack", "effect_summoned",
                "summon_timing_missed"):
        if key in extra:
            ck.bool_(extra[key], f"{where}.{key}")
    if "just_summoned" in extra:
        ck.choice(extra["just_summoned"], f"{where}.just_summoned", SUMMON_METHODS)
    if "locked_zones" in extra:  # the opponent's Monster Zones a ZoneLockEffect locks (locked_zones)
        ck.list_(extra["locked_zones"], f"{where}.locked_zones", "zone indexes", 5)
        for j, i in enumerate(extra["locked_zones"]):
            ck.int_(i, f"{where}.locked_zones[{j}]", 0, 4)
        if len(set(extra["locked_zones"])) != len(extra["locked_zones"]):
            ck.fail(f"{where}.locked_zones", "distinct zone indexes", extra["locked_zones"])
    if "attacked_monsters" in extra:  # the monsters a monster that attacks every monster attacked this turn
        ck.list_(extra["attacked_monsters"], f"{where}.attacked_monsters", "card references", 5)
        for j, r in enumerate(extra["attacked_monsters"]):
            ck.ref(r, f"{where}.attacked_monsters[{j}]", areas=("monster_zones",))
    if "attempt" in extra:  # a Summon being attempted (state-format.md, the field card's `extra`)
        ck.choice(extra["attempt"], f"{where}.attempt", SUMMON_METHODS)
    if "summon_position" in extra:
        ck.choice(extra["summon_position"], f"{where}.summon_position", MONSTER_POSITIONS)
    if extra.get("attack") is not None:  # the attack being resolved (abox.battle_facts)
        attack = ck.keys(extra["attack"], f"{where}.attack", {"target", "damage_step", "target_lost", "opponent_passed"})
        if attack.get("target") is not None:
            ck.ref(attack["target"], f"{where}.attack.target")
        for key in ("damage_step", "target_lost", "opponent_passed"):
            if key in attack:
                ck.bool_(attack[key], f"{where}.attack.{key}")


def new_field_card(name: str, owner: str, position: str, **values) -> dict:
    out = {"card": name, **copy_json(FIELD_CARD_DEFAULTS)}  # (a card moving onto the field: copy.deepcopy took 4x as long)
    out.update(owner=owner, position=position, **values)
    return out


# ---------------------------------------------------------------- reading JSON
# Python's json module turns some inputs into exceptions that name no field (RecursionError on deep
# nesting, ValueError on an integer of 4,300+ digits) or into values no field can hold (NaN, 1e999).
# The loader keeps such numbers as markers and check_json names the field that holds one.

class BadNumber:
    """A JSON number no field can hold (an integer of 5,000 digits, 1e999, NaN), kept as a marker
    so that check_json names the field it is in."""

    __slots__ = ("text",)

    def __init__(self, text: str):
        self.text = text

    def __repr__(self) -> str:
        return self.text


def _parse_int(text: str):
    digits = len(text.lstrip("-"))
    return int(text) if digits <= MAX_INT_DIGITS else BadNumber(f"an integer of {digits:,} digits")


def _parse_float(text: str):
    value = float(text)
    return value if math.isfinite(value) else BadNumber(f"the number {text[:40]} (out of range)")


def _parse_constant(text: str):
    return BadNumber(f"{text} (not a JSON number)")


def show(value: Any, limit: int = 120) -> str:
    """A value as an error message shows it: JSON where it can be, and never more than `limit` characters."""
    if isinstance(value, str):
        text = repr(value)
    else:
        try:
            text = json.dumps(value, default=repr)
        except (ValueError, RecursionError):
            text = repr(type(value).__name__)
    return text if len(text) <= limit else text[: limit - 25] + f"... ({len(text):,} characters)"


def _path(parts) -> str:
    """('players', 'A', 'deck', 3) -> 'players.A.deck[3]'; a very deep path keeps its start and its depth."""
    parts = list(parts)
    out = ""
    for part in parts[:12]:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part)[:60])
    return out if len(parts) <= 12 else f"{out}... ({len(parts)} levels)"


def check_json(value: Any, where: tuple = (), source: str = "") -> None:
    """The size (at most MAX_VALUES values), nesting (at most MAX_DEPTH levels) and numbers (no
    BadNumber) of a parsed JSON value.  Iterative, so any depth is safe to check.

    :raises StateError: naming the path of the first offending value.
    """
    prefix = f"{source}: " if source else ""
    stack = [(value, where)]
    total = 0
    while stack:
        item, path = stack.pop()
        if isinstance(item, dict):
            children = item.items()
        elif isinstance(item, list):
            children = enumerate(item)
        elif isinstance(item, BadNumber):
            raise StateError(f"{prefix}{_path(path) or 'value'}: expected a number within the bounds of its field, got {item.text}")
        else:
            continue
        if len(path) - len(where) >= MAX_DEPTH:
            raise StateError(f"{prefix}{_path(path)}: expected JSON nested at most {MAX_DEPTH} levels, got deeper nesting")
        total += len(item)
        if total > MAX_VALUES:
            raise StateError(f"{prefix}{_path(path) or 'value'}: expected at most {MAX_VALUES:,} values in all, "
                             f"got {len(item):,} here")
        for key, child in children:
            if isinstance(child, (dict, list, BadNumber)):
                stack.append((child, (*path, key)))


_TOKEN = re.compile(r'"(?:[^"\\]|\\.)*"|[{}\[\],]')


def _deep_path(text: str) -> tuple[str, int]:
    """Where JSON text nests deeper than MAX_DEPTH: (path, line).  Only called when parsing failed."""
    stack: list[list] = []  # per open object or list: [kind, key or index, expecting a key]
    for m in _TOKEN.finditer(text):
        token = m.group()
        if token in "{[":
            if len(stack) >= MAX_DEPTH:
                return _path(part[1] for part in stack if part[1] is not None), text.count("\n", 0, m.start()) + 1
            stack.append(["{", None, True] if token == "{" else ["[", 0, False])
        elif token in "}]":
            if stack:
                stack.pop()
        elif token == ",":
            if stack and stack[-1][0] == "[":
                stack[-1][1] += 1
            elif stack:
                stack[-1][2] = True
        elif stack and stack[-1][0] == "{" and stack[-1][2]:  # a key
            try:
                stack[-1][1] = json.loads(token)
            except ValueError:
                stack[-1][1] = token[1:-1]
            stack[-1][2] = False
    return "", 1


class _Repeated(dict):
    """An object whose JSON text gave one key twice (`key`): JSON leaves the reading to the reader."""
    key = ""


def _path_to(value: Any, target: dict, path: str = "") -> str | None:
    """The field path ('players.A.monster_zones[0]') of the object `target` within `value`, or None."""
    if value is target:
        return path
    items = value.items() if isinstance(value, dict) else enumerate(value) if isinstance(value, list) else ()
    for k, v in items:
        if isinstance(v, (dict, list)):
            found = _path_to(v, target, f"{path}[{k}]" if isinstance(k, int) else f"{path}.{k}" if path else str(k))
            if found is not None:
                return found
    return None


def loads(text: str, source: str = "") -> Any:
    """JSON text -> a value; bad JSON and nesting too deep to parse are a StateError naming the place.

    A number out of every bound is kept as a BadNumber: `normalize` and `check_action_object` check
    the value they are given (check_json), after its sizes, and name the field that holds it.

    :raises StateError: the text is not JSON, or it nests too deep to parse.
    """
    prefix = f"{source}: " if source else ""
    repeated: list[_Repeated] = []

    def unique_keys(pairs: list) -> dict:
        obj = dict(pairs)
        if len(obj) != len(pairs):
            seen: set = set()
            obj = _Repeated(obj)
            obj.key = next(k for k, _ in pairs if k in seen or seen.add(k))
            repeated.append(obj)
        return obj

    hooks = {"parse_float": _parse_float, "parse_constant": _parse_constant,  # rare in a state: no cost
             "object_pairs_hook": unique_keys}
    try:
        try:
            value = json.loads(text, **hooks)
        except ValueError as exc:  # an integer too long for Python (4,300+ digits): parse again, marking it
            if isinstance(exc, json.JSONDecodeError):
                raise
            value = json.loads(text, parse_int=_parse_int, **hooks)
    except json.JSONDecodeError as exc:
        raise StateError(f"{prefix}expected JSON, got a syntax error at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
    except RecursionError:
        path, line = _deep_path(text)
        raise StateError(f"{prefix}{path or 'value'}: expected JSON nested at most {MAX_DEPTH} levels, "
                         f"got deeper nesting (line {line})") from None
    if repeated:  # JSON leaves a repeated key to the reader: the first value would be dropped without a word
        where = _path_to(value, repeated[0]) or ""
        key = repeated[0].key if len(repeated[0].key) <= 60 else repeated[0].key[:40] + "..."
        raise StateError(f"{prefix}{where + '.' if where else ''}{key}: expected each key once in its object, "
                         f"got it twice (JSON would keep only the last value)")
    return value


# byte order marks of the encodings other than UTF-8 that a state file may be in (UTF-32's first: UTF-16 LE's is its start)
UNICODE_BOMS = ((b"\xff\xfe\x00\x00", "utf-32-le"), (b"\x00\x00\xfe\xff", "utf-32-be"),
                (b"\xff\xfe", "utf-16-le"), (b"\xfe\xff", "utf-16-be"))


def decode_json_bytes(data: bytes, source: str = "") -> str:
    """UTF-8 bytes -> text (a leading byte order mark dropped).  Bytes that are not UTF-8 are an
    error naming the field whose string holds them (or, outside any string, their line).

    A file that starts with a UTF-16 or UTF-32 byte order mark (PowerShell's `>` and Notepad write UTF-16 so) is
    read in that encoding: its text is the same JSON.

    :raises StateError: the bytes are not UTF-8 (nor UTF-16/UTF-32 after their byte order mark).
    """
    for bom, encoding in UNICODE_BOMS:
        if data.startswith(bom):
            try:
                return data[len(bom):].decode(encoding)
            except UnicodeDecodeError as exc:
                prefix = f"{source}: " if source else ""
                raise StateError(f"{prefix}expected {encoding.upper()} text after its byte order mark (or UTF-8), got "
                                 f"bytes that are not {encoding.upper()} at byte {exc.start + len(bom)}") from None
    try:
        return data.decode("utf-8").removeprefix("\ufeff")
    except UnicodeDecodeError as exc:
        bad, line = data[exc.start], data.count(b"\n", 0, exc.start) + 1
    prefix = f"{source}: " if source else ""
    where = ""
    try:  # parse with the bad bytes kept as lone surrogates (U+DC80-U+DCFF) to find the string holding them
        value = json.loads(data.decode("utf-8", "surrogateescape"))
    except (ValueError, RecursionError):
        value = None
    stack = [(value, ())]
    while stack and not where:
        item, path = stack.pop()
        if isinstance(item, str) and re.search("[\udc80-\udcff]", item):
            where = _path(path) or "value"
        elif isinstance(item, dict):
            for key, child in item.items():
                if re.search("[\udc80-\udcff]", key):
                    where = _path((*path, "<a key>"))
                stack.append((child, (*path, key)))
        elif isinstance(item, list) and len(path) < MAX_DEPTH:
            stack.extend((child, (*path, i)) for i, child in enumerate(item))
    at = f" at line {line}" if b"\n" in data.rstrip(b"\r\n") else ""
    raise StateError(f"{prefix}{where + ': ' if where else ''}expected UTF-8 text, got the byte 0x{bad:02x}{at}")


def read_text_file(path: str | Path, what: str = "state file") -> str:
    """The UTF-8 text of a file; errors name the file (and, for bytes that are not UTF-8, the field).

    :raises StateError: the file cannot be read or is not UTF-8 text.
    """
    if not isinstance(path, (str, os.PathLike)):
        raise StateError(f"path: expected the path of a {what} (a str or a Path), got {show(path)}")
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise StateError(f"{path}: expected a readable {what}, got {exc.strerror or exc}") from None
    except ValueError as exc:  # a path with a NUL byte
        raise StateError(f"{show(str(path))}: expected the path of a {what}, got {exc}") from None
    return decode_json_bytes(data, str(path))


def read_json_file(path: str | Path) -> Any:
    """The JSON value in a file; errors name the file.

    :raises StateError: the file is missing, not UTF-8, or not JSON (see `loads`).
    """
    return loads(read_text_file(path), str(path))
