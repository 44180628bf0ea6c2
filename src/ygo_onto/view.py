"""A player's view of a duel (docs/state-format.md "A player's view", `ygo-onto.view/1`).

The state with what that player cannot see taken out, as in a duel at a table (rulebook v6.0 p. 5:
the Deck is face-down and its order unknown; p. 6: a Set card is face-down, and its controller may
look at it; the Graveyard and the banished cards are face-up, public):

- both Decks: hidden (the owner does not know its own Deck's order either); the count stays;
- the opponent's hand and Extra Deck: hidden; the counts stay (the player's own are visible);
- a face-down card on the field: visible to its controller and its owner, hidden to anyone else;
- Graveyards, banished cards, face-up cards and chain links: public.

A hidden card is `null` where its name would be.  A view is marked by its own `format`, so that it is
never read as a full state (state.normalize refuses it, naming `format`).  The seed of the engine's
random draws (`rng_seed`) is left out: it would tell the next shuffle.
"""
from __future__ import annotations

from .errors import StateError
from .state import FIELD_CARD_DEFAULTS, PLAYERS, VIEW_FORMAT, copy_state, show

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
    hidden = set()  # (side, area, index) of every place hidden to the player: a pending action there is hidden too
    for side, cards in view["players"].items():
        lists = ["deck"] if side == player else ["deck", "hand", "extra_deck"]
        for area in lists:
            hidden.update((side, area, i) for i in range(len(cards[area])))
            cards[area] = [None] * len(cards[area])
        for area in ("monster_zones", "spell_trap_zones"):
            for i, fc in enumerate(cards[area]):
                if fc is not None and not _visible(fc, side, player):
                    cards[area][i] = _hidden_field_card(fc)
                    hidden.add((side, area, i))
        fc = cards["field_zone"]
        if fc is not None and not _visible(fc, side, player):
            cards["field_zone"] = _hidden_field_card(fc)
            hidden.add((side, "field_zone", 0))
    pending = view["pending"]
    if pending is not None and "card" in pending["action"]:
        place = pending["action"].get("from")
        if place is not None and (place["player"], place["area"], place["index"]) in hidden:
            pending["action"]["card"] = None
    return view


def _visible(fc: dict, side: str, player: str) -> bool:
    return fc["position"] not in FACE_DOWN or player in (side, fc["owner"])


def _hidden_field_card(fc: dict) -> dict:
    return {"card": None, **{k: fc.get(k, FIELD_CARD_DEFAULTS[k]) for k in HIDDEN_FIELD_KEYS}}

