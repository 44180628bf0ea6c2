"""A player's view of a duel (docs/state-format.md "A player's view", `ygo-onto.view/1`).

The state with what that player cannot see taken out, as in a duel at a table (rulebook v6.0 "Game Mat",
pp. 4-5: the Deck and the Fusion Deck lie face-down; the Graveyard's cards are face-up and the opponent
may look at them at any time):

- both Decks: hidden (the owner does not know its own Deck's order either); the count stays;
- the opponent's hand and Extra Deck: hidden; the counts stay (the player's own are visible);
- a face-down card on the field: visible to its controller (who Set it, or took it) and its owner, hidden to
  the other player;
- Graveyards, banished cards (banished face-up: this engine banishes no card face-down), face-up cards
  and chain links: public.

A hidden card is `null` where its name would be.  A view is marked by its own `format`, so that it is
never read as a full state (state.normalize refuses it, naming `format`).  The seed of the engine's
random draws (`rng_seed`) is left out: it would tell the next shuffle.
"""
from __future__ import annotations

from .errors import StateError
from .state import FIELD_CARD_DEFAULTS, LIST_AREAS, PLAYERS, VIEW_FORMAT, copy_state, show

# a face-down field card keeps what the table sees of it: where it is, its position, and when it came
HIDDEN_FIELD_KEYS = ("owner", "position", "summoned_this_turn", "summoned_by", "position_changed_this_turn",
                     "attacks_declared", "set_this_turn", "equipped_to")
FACE_DOWN = ("face_down", "face_down_defense")


def player_view(data: dict, player: str) -> dict:
    """The view of the normalized state `data` as `player` ("A" or "B") sees it.

    :raises StateError: `player` is not "A" or "B" (the message names `player`).
    """
    if player not in PLAYERS:
        raise StateError(f"player: expected 'A' or 'B', got {show(player)}")
    state = copy_state(data)
    view = {"format": VIEW_FORMAT, "viewer": player}
    view.update((k, v) for k, v in state.items() if k not in ("format", "rng_seed"))
    for side, cards in view["players"].items():
        lists = ["deck"] if side == player else ["deck", "hand", "extra_deck"]
        for area in lists:
            cards[area] = [None] * len(cards[area])
        for area in ("monster_zones", "spell_trap_zones"):
            for i, fc in enumerate(cards[area]):
                if fc is not None and not _visible(fc, side, player):
                    cards[area][i] = _hidden_field_card(fc)
        fc = cards["field_zone"]
        if fc is not None and not _visible(fc, side, player):
            cards["field_zone"] = _hidden_field_card(fc)
    if view["pending"] is not None:  # an action being built names its card: hidden where the card is hidden
        view["pending"]["action"] = action_as_seen(view["pending"]["action"], view)
    return view


NAMED_AT = (("card", "from"), ("card", "ref"), ("target", "target_ref"))  # an action's card names and their places


def action_as_seen(action: dict, view: dict) -> dict:
    """An action object as the player of `view` sees it: a card named at a place hidden in the view is `null`.
    The player's own Deck is the exception: an action that selects a card from it is one where the player
    looks through it (a search), so its cards are named."""
    out = dict(action)
    for name, place in NAMED_AT:
        ref = out.get(place)
        if name in out and isinstance(ref, dict) and _hidden_at(view, ref) \
                and not (ref["player"] == view["viewer"] and ref["area"] == "deck" and out.get("type") == "select"):
            out[name] = None
    return out


def _hidden_at(view: dict, ref: dict) -> bool:
    side = view["players"][ref["player"]]
    if ref["area"] == "field_zone":
        entry = side["field_zone"]
    else:
        cards = side[ref["area"]]
        entry = cards[ref["index"]] if ref["index"] < len(cards) else ""  # (no card there: nothing hidden)
    return entry is None if ref["area"] in LIST_AREAS else isinstance(entry, dict) and entry["card"] is None


def _visible(fc: dict, side: str, player: str) -> bool:
    return fc["position"] not in FACE_DOWN or player in (side, fc["owner"])


def _hidden_field_card(fc: dict) -> dict:
    return {"card": None, **{k: fc.get(k, FIELD_CARD_DEFAULTS[k]) for k in HIDDEN_FIELD_KEYS}}

