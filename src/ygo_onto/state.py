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
from typing import Any

from .cards import RULESETS, Catalog, catalog
from .errors import StateError

FORMAT = "ygo-onto.state/1"
PLAYERS = ("A", "B")
OFFICIAL_PHASES = ("draw", "standby", "main1", "battle", "main2", "end")
SIMPLIFIED_PHASES = ("main1", "battle", "main2")
LIST_AREAS = ("deck", "hand", "graveyard", "banished", "extra_deck")
ZONE_AREAS = ("monster_zones", "spell_trap_zones")
AREAS = LIST_AREAS + ZONE_AREAS + ("field_zone",)
MONSTER_POSITIONS = ("attack", "defense", "face_down_defense")
SPELL_POSITIONS = ("face_up", "face_down")
SUMMON_METHODS = ("normal", "tribute", "set", "flip", "special", "fusion", "ritual", "synchro")
PURPOSES = ("tribute", "target", "material", "cost", "discard")
SELECT_PURPOSES = PURPOSES + ("summon",)  # a select action's purpose: "summon" for the monster a Ritual or Fusion Spell Summons

TOP_DEFAULTS = {"ruleset": "official", "turn": 1, "turn_player": "A", "first_player": "A", "phase": "main1",
                "priority": None, "chain": [], "pending": None, "winner": None, "rng_seed": 0}
PLAYER_DEFAULTS = {"life_points": 8000, "deck": [], "hand": [], "graveyard": [], "banished": [], "extra_deck": [],
                   "monster_zones": None, "spell_trap_zones": None, "field_zone": None, "normal_summon_used": False}
FIELD_CARD_DEFAULTS = {"owner": None, "position": None, "summoned_this_turn": False, "summoned_by": "normal",
                       "position_changed_this_turn": False, "attacks_declared": 0, "set_this_turn": False,
                       "equipped_to": None, "atk_modifier": 0, "def_modifier": 0, "counters": {}, "extra": {}}
CHAIN_KEYS = {"card", "player", "zone", "targets", "speed", "extra"}  # extra: options chosen on activation
PENDING_KEYS = {"action", "purpose", "needed", "chosen"}
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
MAX_RNG_SEED = 2**63 - 1  # rng_seed: a signed 64-bit integer
# cards per area of one player: a Main Deck of at most 60 cards and an Extra Deck of at most 15 (the
# official deck limits; rulebook v6.0 p. 2 sets only the minimum, 40); a hand can hold at most the Main
# Deck, a Graveyard or the banished cards at most all of a player's cards
AREA_LIMITS = {"deck": 60, "hand": 60, "graveyard": 75, "banished": 75, "extra_deck": 15}
MAX_OWNED = 75  # the cards one player owns (Main Deck and Extra Deck), wherever they are
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

    def ref(self, value: Any, where: str, areas=AREAS, keys=REF_KEYS) -> dict:
        """A card reference {"player", "area", "index"} (a chain link's `zone`: {"area", "index"})."""
        self.keys(value, where, keys, keys)
        if "player" in keys:
            self.choice(value["player"], f"{where}.player", PLAYERS)
        self.choice(value["area"], f"{where}.area", areas)
        self.int_(value["index"], f"{where}.index", 0, area_size(value["area"]) - 1)
        return value


def area_size(area: str) -> int:
    """How many places an area has: the index of a card reference is below it."""
    if area in ZONE_AREAS:
        return 5
    return 1 if area == "field_zone" else AREA_LIMITS[area]


def normalize(raw: Any, source: str = "") -> dict:
    """A complete, checked copy of a raw state dict (defaults filled, card names canonical).

    Sizes are checked first (a list too long for its area fails before anything is built), then
    the nesting and the numbers of the whole value, then every field.

    :raises StateError: on an unknown key, a wrong type or value, a value out of its bounds, an
        unknown card name, a wrong zone count, or a card in a zone its kind cannot be in.
    """
    ck = _Checker(source)
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

    players = ck.keys(raw["players"], "players", set(PLAYERS), set(PLAYERS))
    state["players"] = {p: _player(ck, cat, players[p], f"players.{p}", p, state["ruleset"]) for p in PLAYERS}
    for p in PLAYERS:  # what one player owns, wherever it is: a Main Deck and an Extra Deck at most
        owned = sum(len(state["players"][p][area]) for area in LIST_AREAS)
        owned += sum(1 for q in PLAYERS for fc in _field_cards(state["players"][q]) if fc["owner"] == p)
        if owned > MAX_OWNED:
            ck.fail(f"players.{p}", f"at most {MAX_OWNED} cards owned by {p} (a Main Deck of 60 and an Extra Deck of 15)",
                    f"{owned} cards", described=True)

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
        ck.choice(link["speed"], f"{where}.speed", (1, 2, 3))
        if "extra" in link:  # engine bookkeeping (docs/decisions.md), written only when not empty
            ck.keys(link["extra"], f"{where}.extra", set(link["extra"]) if isinstance(link["extra"], dict) else set())
            if "summon_position" in link["extra"]:
                ck.choice(link["extra"]["summon_position"], f"{where}.extra.summon_position", MONSTER_POSITIONS)

    if state["pending"] is not None:
        pending = ck.keys(state["pending"], "pending", PENDING_KEYS, {"action", "purpose"})
        from .actions import check_action_object

        check_action_object(pending["action"], "pending.action", source)
        if pending["action"]["type"] in ("select", "cancel", "pass"):  # the choices themselves: never waiting for one
            ck.fail("pending.action.type", "the action being built (a summon, an activation, end_turn), not a "
                    "choice made while one is built", pending["action"]["type"])
        ck.choice(pending["purpose"], "pending.purpose", PURPOSES)
        pending.setdefault("needed", 1)
        pending.setdefault("chosen", [])
        ck.int_(pending["needed"], "pending.needed", 1, MAX_CHAIN)
        ck.list_(pending["chosen"], "pending.chosen", "card references", MAX_CHAIN)
        for j, r in enumerate(pending["chosen"]):
            ck.ref(r, f"pending.chosen[{j}]")
        _check_pending_refs(ck, cat, state, pending)
    return state


def phases_of(ruleset: str) -> tuple:
    """The phases a state of this ruleset may be in (state-format.md `phase`)."""
    return OFFICIAL_PHASES if ruleset == "official" else SIMPLIFIED_PHASES


def card_at(state: dict, ref: dict) -> dict | str | None:
    """The entry at a card reference: a name (list areas) or a field card (zones)."""
    side = state["players"][ref["player"]]
    if ref["area"] == "field_zone":
        return side["field_zone"] if ref["index"] == 0 else None
    cards = side[ref["area"]]
    return cards[ref["index"]] if 0 <= ref["index"] < len(cards) else None


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
    for j, r in enumerate(pending["chosen"]):
        if card_name_at(state, r) is None:
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


def _check_sizes(ck: _Checker, raw: dict) -> None:
    """The lengths of the lists a huge state would have, before anything else looks at them."""
    players = raw.get("players")
    for p in PLAYERS if isinstance(players, dict) else ():
        side = players.get(p)
        if not isinstance(side, dict):
            continue
        for area, limit in AREA_LIMITS.items():
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
        ck.list_(out[area], f"{where}.{area}", "card names", AREA_LIMITS[area])
        names = []
        for i, name in enumerate(out[area]):
            card = _card(ck, cat, name, f"{where}.{area}[{i}]")
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


def _field_card(ck: _Checker, cat: Catalog, raw: Any, where: str, player: str, area: str) -> dict:
    ck.keys(raw, where, set(FIELD_CARD_DEFAULTS) | {"card"}, {"card"})
    card = _card(ck, cat, raw["card"], f"{where}.card")
    out = {"card": card.name}
    for key, default in FIELD_CARD_DEFAULTS.items():
        out[key] = copy.deepcopy(raw.get(key, default))
    if area == "monster_zones" and not card.is_monster:
        ck.fail(f"{where}.card", "a monster (this is a Monster Zone)", card.name)
    if area == "spell_trap_zones" and (card.is_monster or card.subtype == "field" and card.card_type == "spell"):
        ck.fail(f"{where}.card", "a Spell or Trap that is not a Field Spell (this is a Spell & Trap Zone)", card.name)
    if area == "field_zone" and not (card.card_type == "spell" and card.subtype == "field"):
        ck.fail(f"{where}.card", "a Field Spell (this is the Field Zone)", card.name)
    if out["owner"] is None:
        out["owner"] = player
    ck.choice(out["owner"], f"{where}.owner", PLAYERS)
    positions = MONSTER_POSITIONS if card.is_monster else SPELL_POSITIONS
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
    for key, value in out["counters"].items():  # counters count: each is a whole number
        ck.int_(value, f"{where}.counters.{key}", 0, MAX_COUNT)
    _field_card_extra(ck, out["extra"], f"{where}.extra")
    return out


def _field_card_extra(ck: _Checker, extra: dict, where: str) -> None:
    """A field card's `extra`: free, but the keys the engine itself writes (primitives.py) must have their shape."""
    for key in ("effect_declined", "control_until_end", "flipped", "replay"):
        if key in extra:
            ck.bool_(extra[key], f"{where}.{key}")
    if "just_summoned" in extra:
        ck.choice(extra["just_summoned"], f"{where}.just_summoned", SUMMON_METHODS)
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


def decode_json_bytes(data: bytes, source: str = "") -> str:
    """UTF-8 bytes -> text (a leading byte order mark dropped).  Bytes that are not UTF-8 are an
    error naming the field whose string holds them (or, outside any string, their line).

    :raises StateError: the bytes are not UTF-8.
    """
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
