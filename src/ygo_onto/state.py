"""The duel state of docs/state-format.md (`ygo-onto.state/1`): validation, defaults, JSON.

A `GameState` is immutable from the outside: `apply` returns a new state (python-chess's
`Board` with OpenSpiel's clone-before-apply).  The reasoning lives in the ontology; this
module only checks that a state is well-formed and fills the defaults.
"""
from __future__ import annotations

import copy
import json
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

TOP_DEFAULTS = {"ruleset": "official", "turn": 1, "turn_player": "A", "first_player": "A", "phase": "main1",
                "priority": None, "chain": [], "pending": None, "winner": None, "rng_seed": 0}
PLAYER_DEFAULTS = {"life_points": 8000, "deck": [], "hand": [], "graveyard": [], "banished": [], "extra_deck": [],
                   "monster_zones": None, "spell_trap_zones": None, "field_zone": None, "normal_summon_used": False}
FIELD_CARD_DEFAULTS = {"owner": None, "position": None, "summoned_this_turn": False, "summoned_by": "normal",
                       "position_changed_this_turn": False, "attacks_declared": 0, "set_this_turn": False,
                       "equipped_to": None, "atk_modifier": 0, "def_modifier": 0, "counters": {}, "extra": {}}
CHAIN_KEYS = {"card", "player", "zone", "targets", "speed", "extra"}  # extra: options chosen on activation
PENDING_KEYS = {"action", "purpose", "needed", "chosen"}
REF_KEYS = {"player", "area", "index"}


def opponent(player: str) -> str:
    return "B" if player == "A" else "A"


class _Checker:
    """Walks a raw state, filling defaults; every error names the field: 'where: expected X, got Y'."""

    def __init__(self, source: str):
        self.source = source

    def fail(self, where: str, expected: str, got: Any) -> None:
        prefix = f"{self.source}: " if self.source else ""
        raise StateError(f"{prefix}{where}: expected {expected}, got {json.dumps(got) if not isinstance(got, str) else repr(got)}")

    def keys(self, obj: Any, where: str, allowed: set[str], required: set[str] = frozenset()) -> dict:
        if not isinstance(obj, dict):
            self.fail(where, "an object", obj)
        for key in obj:
            if key not in allowed:
                self.fail(f"{where}.{key}" if where else key, f"a known key ({', '.join(sorted(allowed))})", key)
        for key in required:
            if key not in obj:
                self.fail(f"{where}.{key}" if where else key, "this required key", "nothing")
        return obj

    def int_(self, value: Any, where: str, minimum: int | None = None) -> int:
        if not isinstance(value, int) or isinstance(value, bool) or (minimum is not None and value < minimum):
            self.fail(where, "an integer" + (f" >= {minimum}" if minimum is not None else ""), value)
        return value

    def bool_(self, value: Any, where: str) -> bool:
        if not isinstance(value, bool):
            self.fail(where, "true or false", value)
        return value

    def choice(self, value: Any, where: str, options) -> Any:
        if value not in options:
            self.fail(where, "one of " + ", ".join(json.dumps(o) for o in options), value)
        return value

    def ref(self, value: Any, where: str) -> dict:
        self.keys(value, where, REF_KEYS, REF_KEYS)
        self.choice(value["player"], f"{where}.player", PLAYERS)
        self.choice(value["area"], f"{where}.area", AREAS)
        self.int_(value["index"], f"{where}.index", 0)
        return value


def normalize(raw: Any, source: str = "") -> dict:
    """A complete, checked copy of a raw state dict (defaults filled, card names canonical).

    :raises StateError: on an unknown key, a wrong type or value, an unknown card name,
        a wrong zone count, or a card in a zone its kind cannot be in.
    """
    ck = _Checker(source)
    ck.keys(raw, "", set(TOP_DEFAULTS) | {"format", "players", "extra"}, {"format", "players"})
    if raw["format"] != FORMAT:
        ck.fail("format", json.dumps(FORMAT), raw["format"])
    state = {"format": FORMAT}
    for key, default in TOP_DEFAULTS.items():
        state[key] = copy.deepcopy(raw.get(key, default))
    ck.choice(state["ruleset"], "ruleset", RULESETS)
    ck.int_(state["turn"], "turn", 1)
    ck.choice(state["turn_player"], "turn_player", PLAYERS)
    ck.choice(state["first_player"], "first_player", PLAYERS)
    phases = OFFICIAL_PHASES if state["ruleset"] == "official" else SIMPLIFIED_PHASES
    ck.choice(state["phase"], "phase", phases)
    if state["priority"] is None:
        state["priority"] = state["turn_player"]
    ck.choice(state["priority"], "priority", PLAYERS)
    ck.choice(state["winner"], "winner", (None, "A", "B", "draw"))
    ck.int_(state["rng_seed"], "rng_seed")
    # engine bookkeeping of the duel as a whole (docs/decisions.md): written only when there is some
    if raw.get("extra") is not None and not isinstance(raw["extra"], dict):
        ck.fail("extra", "an object", raw["extra"])
    if raw.get("extra"):
        state["extra"] = copy.deepcopy(raw["extra"])
        if "phase_end" in state["extra"]:  # rulebook p. 38: the phase asked for, waiting for the opponent's pass
            ck.choice(state["extra"]["phase_end"], "extra.phase_end", (*phases, "turn"))
    cat = catalog(state["ruleset"])

    players = ck.keys(raw["players"], "players", set(PLAYERS), set(PLAYERS))
    state["players"] = {p: _player(ck, cat, players[p], f"players.{p}", p, state["ruleset"]) for p in PLAYERS}

    if not isinstance(state["chain"], list):
        ck.fail("chain", "a list of chain links", state["chain"])
    for i, link in enumerate(state["chain"]):
        where = f"chain[{i}]"
        ck.keys(link, where, CHAIN_KEYS, {"card", "player"})
        link["card"] = cat.get(link["card"], f"{source + ': ' if source else ''}{where}.card").name
        ck.choice(link["player"], f"{where}.player", PLAYERS)
        link.setdefault("zone", None)
        link.setdefault("targets", [])
        link.setdefault("speed", 1)
        ck.choice(link["speed"], f"{where}.speed", (1, 2, 3))
        for j, t in enumerate(link["targets"]):
            ck.ref(t, f"{where}.targets[{j}]")
        if "extra" in link:  # engine bookkeeping (docs/decisions.md), written only when not empty
            ck.keys(link["extra"], f"{where}.extra", set(link["extra"]) if isinstance(link["extra"], dict) else set())

    if state["pending"] is not None:
        pending = ck.keys(state["pending"], "pending", PENDING_KEYS, {"action", "purpose"})
        ck.keys(pending["action"], "pending.action", set(pending["action"]) if isinstance(pending["action"], dict) else set())
        ck.choice(pending["purpose"], "pending.purpose", PURPOSES)
        pending.setdefault("needed", 1)
        pending.setdefault("chosen", [])
        ck.int_(pending["needed"], "pending.needed", 1)
        for j, r in enumerate(pending["chosen"]):
            ck.ref(r, f"pending.chosen[{j}]")
    return state


def _player(ck: _Checker, cat: Catalog, raw: Any, where: str, player: str, ruleset: str) -> dict:
    ck.keys(raw, where, set(PLAYER_DEFAULTS))
    out = {}
    for key, default in PLAYER_DEFAULTS.items():
        out[key] = copy.deepcopy(raw.get(key, default))
    ck.int_(out["life_points"], f"{where}.life_points")
    ck.bool_(out["normal_summon_used"], f"{where}.normal_summon_used")
    label = f"{ck.source}: " if ck.source else ""
    for area in LIST_AREAS:
        if not isinstance(out[area], list):
            ck.fail(f"{where}.{area}", "a list of card names", out[area])
        names = []
        for i, name in enumerate(out[area]):
            if not isinstance(name, str):
                ck.fail(f"{where}.{area}[{i}]", "a card name", name)
            card = cat.get(name, f"{label}{where}.{area}[{i}]")
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
    label = f"{ck.source}: " if ck.source else ""
    card = cat.get(raw["card"], f"{label}{where}.card")
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
    ck.int_(out["attacks_declared"], f"{where}.attacks_declared", 0)
    ck.int_(out["atk_modifier"], f"{where}.atk_modifier")
    ck.int_(out["def_modifier"], f"{where}.def_modifier")
    if out["equipped_to"] is not None:
        eq = ck.keys(out["equipped_to"], f"{where}.equipped_to", {"player", "zone"}, {"player", "zone"})
        ck.choice(eq["player"], f"{where}.equipped_to.player", PLAYERS)
        ck.choice(eq["zone"], f"{where}.equipped_to.zone", range(5))
    for key in ("counters", "extra"):
        if not isinstance(out[key], dict):
            ck.fail(f"{where}.{key}", "an object", out[key])
    return out


def new_field_card(name: str, owner: str, position: str, **values) -> dict:
    out = {"card": name, **copy.deepcopy(FIELD_CARD_DEFAULTS)}
    out.update(owner=owner, position=position, **values)
    return out


def read_json_file(path: str | Path) -> dict:
    """The JSON object in a file; errors name the file.

    :raises StateError: the file is missing or is not JSON.
    """
    try:
        text = Path(path).read_text(encoding="utf-8")
    except OSError as exc:
        raise StateError(f"{path}: expected a readable state file, got {exc.strerror or exc}") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as exc:
        raise StateError(f"{path}: expected JSON, got a syntax error at line {exc.lineno} column {exc.colno}: {exc.msg}") from None
