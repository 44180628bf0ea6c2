"""Random well-typed states (docs/state-format.md): every field of the right type and within its bounds,
each card in an area its kind may be in, and everything else drawn at random, so that many of the
states are boards no duel reaches (two attacks at once, a pending action of the wrong card, 0 LP with
no winner, an Equip Spell on nothing).  The loader must refuse those (StateError naming the field);
every state it accepts must have an allowed action or a winner (tests/test_state_consistency.py).

`random_state(rng)` draws one state from a `random.Random`; the same seed gives the same state.
"""
from __future__ import annotations

import random

from ..cards import catalog
from ..state import (MONSTER_POSITIONS, PENDING_FROM_AREAS, PLAYERS, PURPOSES, SPELL_POSITIONS, SUMMON_METHODS,
                     phases_of)

PENDING_TYPES = ("end_turn", "tribute_summon", "set_monster", "special_summon", "synchro_summon", "activate",
                 "normal_summon", "flip_summon", "attack")


def _pick(rng: random.Random, items, weights=None):
    return rng.choices(items, weights)[0] if weights else rng.choice(items)


def _field_card(rng: random.Random, card, player: str) -> dict:
    """A field card of `card` with random flags; `owner` mostly its zone's player."""
    out = {"card": card.name, "owner": player if rng.random() < 0.9 else ("B" if player == "A" else "A")}
    if card.is_monster:
        out["position"] = _pick(rng, MONSTER_POSITIONS)
        out["summoned_this_turn"] = rng.random() < 0.3
        out["summoned_by"] = _pick(rng, SUMMON_METHODS)
        out["position_changed_this_turn"] = rng.random() < 0.2
        out["attacks_declared"] = _pick(rng, (0, 0, 0, 1, 2))
        if rng.random() < 0.1:
            out["atk_modifier"] = rng.randrange(-1000, 1001, 100)
    else:
        out["position"] = _pick(rng, SPELL_POSITIONS)
        out["set_this_turn"] = rng.random() < 0.2
    return out


def _ref(rng: random.Random, state: dict, areas=None) -> dict:
    """A reference to a random place (often a card of the state, sometimes an empty place)."""
    places = [(p, area, i) for p in PLAYERS for area, cards in state["players"][p].items()
              if isinstance(cards, list) and (areas is None or area in areas) for i, c in enumerate(cards) if c is not None]
    if places and rng.random() < 0.9:
        p, area, i = _pick(rng, places)
    else:
        p, area, i = _pick(rng, PLAYERS), _pick(rng, ("monster_zones", "spell_trap_zones")), rng.randrange(5)
    return {"player": p, "area": area, "index": i}


def random_state(rng: random.Random) -> dict:
    """One random well-typed state (a dict for GameState.from_dict)."""
    ruleset = _pick(rng, ("official", "simplified"), (3, 1))
    cat = catalog(ruleset)
    cards = list(cat.cards)
    main = [c for c in cards if not c.extra_deck]
    monsters = [c for c in cards if c.is_monster]
    spells_traps = [c for c in cards if not c.is_monster and not (c.card_type == "spell" and c.subtype == "field")]
    fields = [c for c in cards if c.card_type == "spell" and c.subtype == "field"]
    extra = [c for c in cards if c.extra_deck]
    turn_player = _pick(rng, PLAYERS)
    state = {"format": "ygo-onto.state/1", "ruleset": ruleset, "turn": rng.randint(1, 8), "turn_player": turn_player,
             "first_player": _pick(rng, PLAYERS), "phase": _pick(rng, phases_of(ruleset)), "rng_seed": rng.randrange(1000),
             "players": {}}
    for p in PLAYERS:
        side = {"life_points": _pick(rng, (8000, 8000, 4000, 500, 0), (8, 8, 4, 2, 1)),
                "deck": [c.name for c in rng.choices(main, k=_pick(rng, (0, 1, 5, 10)))],
                "hand": [c.name for c in rng.choices(main, k=_pick(rng, (0, 1, 3, 5, 6, 7, 9)))],
                "graveyard": [c.name for c in rng.choices(cards, k=_pick(rng, (0, 0, 1, 3)))],
                "normal_summon_used": rng.random() < 0.3}
        side["monster_zones"] = [_field_card(rng, _pick(rng, monsters), p) if rng.random() < 0.35 else None
                                 for _ in range(5)]
        side["spell_trap_zones"] = [_field_card(rng, _pick(rng, spells_traps), p) if rng.random() < 0.25 else None
                                    for _ in range(5)]
        if ruleset == "official":
            side["banished"] = [c.name for c in rng.choices(cards, k=_pick(rng, (0, 0, 1)))]
            side["extra_deck"] = [c.name for c in rng.choices(extra, k=_pick(rng, (0, 1, 2)))] if extra else []
            if fields and rng.random() < 0.3:
                side["field_zone"] = _field_card(rng, _pick(rng, fields), p)
        state["players"][p] = side
    # an attack in progress, an Equip Spell's monster: on any monster, of either side
    for p in PLAYERS:
        for fc in state["players"][p]["monster_zones"]:
            if fc is not None and rng.random() < 0.04:
                fc["extra"] = {"attack": {"target": _ref(rng, state, ("monster_zones",)) if rng.random() < 0.7 else None,
                                          "damage_step": rng.random() < 0.3}}
        for fc in state["players"][p]["spell_trap_zones"]:
            if fc is not None and rng.random() < 0.06:
                fc["equipped_to"] = {"player": _pick(rng, PLAYERS), "zone": rng.randrange(5)}
    # the engine's bookkeeping (state-format.md "Bookkeeping"), at random
    for p in PLAYERS:
        for fc in state["players"][p]["monster_zones"]:
            if fc is not None and rng.random() < 0.15:
                key = _pick(rng, ("just_summoned", "flipped", "replay", "control_until_end", "effect_declined"))
                fc.setdefault("extra", {})[key] = _pick(rng, SUMMON_METHODS) if key == "just_summoned" else True
            if fc is not None and rng.random() < 0.05:
                fc["counters"] = {"atk_until_end_phase": _pick(rng, (300, 500))}
        for fc in state["players"][p]["spell_trap_zones"]:
            if fc is not None and rng.random() < 0.05:
                fc["counters"] = {"turns": rng.randint(0, 3)}
    if rng.random() < 0.1:
        state["extra"] = {"phase_end": _pick(rng, (*phases_of(ruleset), "turn"))}
    if rng.random() < 0.05:
        state.setdefault("extra", {})["damage_step_chain"] = True
    # a chain of 0-3 links, mostly of cards on the field
    for _ in range(_pick(rng, (0, 0, 0, 1, 1, 2, 3))):
        p = _pick(rng, PLAYERS)
        link = {"card": _pick(rng, cards).name, "player": p, "speed": _pick(rng, (1, 2, 2, 3))}
        if rng.random() < 0.8:
            ref = _ref(rng, state, ("spell_trap_zones", "monster_zones", "field_zone"))
            if ref["player"] == p:
                entry = state["players"][p][ref["area"]]
                entry = entry[ref["index"]] if isinstance(entry, list) else entry
                if entry is not None and rng.random() < 0.8:
                    link["card"] = entry["card"]
                link["zone"] = {"area": ref["area"], "index": ref["index"]}
        else:
            link["zone"] = None
        if rng.random() < 0.5:
            link["targets"] = [_ref(rng, state)]
        state.setdefault("chain", []).append(link)
    if state.get("chain") and rng.random() < 0.5:
        state["priority"] = _pick(rng, PLAYERS)
    # a pending action of a random kind, card and purpose
    if rng.random() < 0.3:
        kind = _pick(rng, PENDING_TYPES)
        p = turn_player if rng.random() < 0.8 else _pick(rng, PLAYERS)
        action = {"type": kind, "player": p}
        areas = PENDING_FROM_AREAS.get(kind)
        if areas:
            side = state["players"][p]
            places = [{"player": p, "area": a, "index": i} for a in areas
                      for i, c in enumerate(side.get(a) or [] if a != "field_zone" else [side.get(a)]) if c is not None]
            if not places:  # a card in the hand to build it for
                side["hand"].append(_pick(rng, main).name)
                places = [{"player": p, "area": "hand", "index": len(side["hand"]) - 1}]
            ref = _pick(rng, places)
            entry = side[ref["area"]] if ref["area"] == "field_zone" else side[ref["area"]][ref["index"]]
            action["card"] = entry if isinstance(entry, str) else entry["card"]
            action["from"] = ref
        usual = {"end_turn": "discard", "tribute_summon": "tribute", "set_monster": "tribute",
                 "special_summon": "tribute", "synchro_summon": "material", "activate": "target"}
        purpose = usual[kind] if kind in usual and rng.random() < 0.6 else _pick(rng, PURPOSES)
        chosen = []
        for _ in range(_pick(rng, (0, 0, 1, 2))):
            ref = _ref(rng, state, ("hand", "monster_zones") if purpose != "target" else None)
            if ref != action.get("from") and ref not in chosen:
                chosen.append(ref)
        state["pending"] = {"action": action, "purpose": purpose, "needed": _pick(rng, (1, 1, 2, 3)),
                            "chosen": chosen}
        if kind == "end_turn" and rng.random() < 0.7:
            state["phase"] = "end"
        state["priority"] = p
    if rng.random() < 0.1:
        state["winner"] = _pick(rng, ("A", "B", "draw"))
    return state
