"""A player's view (src/ygo_onto/view.py, docs/state-format.md "A player's view"): what it hides and shows, that a
view is never read as a state, `ygo-onto view --as`, and that no name the player cannot know is in a view or in
the acting player's actions, over random duels."""
import json

import pytest

from cli_runner import cli
from ygo_onto.duel import play_duel
from ygo_onto.errors import StateError
from ygo_onto.game import GameState
from ygo_onto.view import action_as_seen

FACE_DOWN = ("face_down", "face_down_defense")


def _fc(name, position, **more):
    return {"card": name, "position": position, **more}


# every card in one place only, so that a name tells where it came from
STATE = {
    "format": "ygo-onto.state/1", "turn": 3, "phase": "main1", "rng_seed": 12345,
    "players": {
        "A": {"deck": ["Baby Dragon", "Silver Fang"], "hand": ["Dark Magician"], "graveyard": ["Harpie Lady"],
              "banished": ["Swordstalker"], "extra_deck": ["Junk Warrior"],
              "monster_zones": [_fc("Feral Imp", "face_down_defense"),
                                _fc("Mokey Mokey", "face_down_defense", owner="B"), None, None, None],
              "spell_trap_zones": [_fc("Mirror Force", "face_down"), None, None, None, None]},
        "B": {"deck": ["Judge Man"], "hand": ["Cosmo Queen", "Magic Jammer"], "graveyard": ["Mad Dog of Darkness"],
              "banished": ["Blackland Fire Dragon"], "extra_deck": ["Gaia the Dragon Champion"],
              "monster_zones": [_fc("Battle Ox", "attack", atk_modifier=300),
                                _fc("Witty Phantom", "face_down_defense", atk_modifier=-200, counters={"turns": 2}),
                                _fc("Koumori Dragon", "face_down_defense", owner="A"), None, None],
              "spell_trap_zones": [_fc("Trap Hole", "face_down"), _fc("Swords of Revealing Light", "face_up"),
                                   None, None, None],
              "field_zone": _fc("Yami", "face_down")},
    },
}
HIDDEN = {"A": {"Baby Dragon", "Silver Fang", "Judge Man", "Cosmo Queen", "Magic Jammer", "Gaia the Dragon Champion",
                "Witty Phantom", "Trap Hole", "Yami"},
          "B": {"Baby Dragon", "Silver Fang", "Judge Man", "Dark Magician", "Junk Warrior", "Feral Imp", "Mirror Force"}}
ALL_NAMES = {"Baby Dragon", "Silver Fang", "Dark Magician", "Harpie Lady", "Swordstalker", "Junk Warrior", "Feral Imp",
             "Mokey Mokey", "Mirror Force", "Judge Man", "Cosmo Queen", "Magic Jammer", "Mad Dog of Darkness",
             "Blackland Fire Dragon", "Gaia the Dragon Champion", "Battle Ox", "Witty Phantom", "Koumori Dragon",
             "Trap Hole", "Swords of Revealing Light", "Yami"}


@pytest.mark.parametrize("player", ["A", "B"])
def test_a_view_names_exactly_the_cards_the_player_can_see(player):
    view = GameState.from_dict(STATE).view(player)
    text = json.dumps(view)
    for name in ALL_NAMES:
        assert (json.dumps(name) in text) == (name not in HIDDEN[player]), name
    assert view["format"] == "ygo-onto.view/1" and view["viewer"] == player
    assert "rng_seed" not in view  # it would tell the next shuffle


def test_counts_stay_and_public_places_are_as_in_the_state():
    state = GameState.from_dict(STATE)
    view = state.view("A")
    a, b = view["players"]["A"], view["players"]["B"]
    assert a["deck"] == [None, None] and b["deck"] == [None]
    assert b["hand"] == [None, None] and b["extra_deck"] == [None]
    assert a["hand"] == ["Dark Magician"] and a["extra_deck"] == ["Junk Warrior"]
    assert b["graveyard"] == ["Mad Dog of Darkness"] and b["banished"] == ["Blackland Fire Dragon"]
    assert b["monster_zones"][0] == state.data["players"]["B"]["monster_zones"][0]  # face-up: all of it
    # a hidden card keeps where it is and its position, and nothing that tells what it is
    phantom = b["monster_zones"][1]
    assert phantom["card"] is None and phantom["position"] == "face_down_defense" and phantom["owner"] == "B"
    assert "atk_modifier" not in phantom and "counters" not in phantom
    assert b["field_zone"]["card"] is None and b["spell_trap_zones"][0]["card"] is None
    assert b["spell_trap_zones"][2] is None  # an empty zone stays empty
    # face-down cards of the other side that the player owns, and the player's own Set cards: visible
    assert b["monster_zones"][2]["card"] == "Koumori Dragon"
    assert a["monster_zones"][0]["card"] == "Feral Imp" and a["spell_trap_zones"][0]["card"] == "Mirror Force"


def test_an_action_names_no_card_the_player_cannot_see():
    view = GameState.from_dict(STATE).view("A")
    attack = {"type": "attack", "player": "A", "card": "Battle Ox",
              "from": {"player": "A", "area": "monster_zones", "index": 0},
              "target": "Witty Phantom", "target_ref": {"player": "B", "area": "monster_zones", "index": 1}}
    seen = action_as_seen(attack, view)
    assert seen["target"] is None and seen["card"] == "Battle Ox"
    select = {"type": "select", "player": "A", "card": "Cosmo Queen", "purpose": "discard",
              "ref": {"player": "B", "area": "hand", "index": 0}}
    assert action_as_seen(select, view)["card"] is None
    # a search of the player's own Deck: the player looks through it
    search = {"type": "select", "player": "A", "card": "Silver Fang", "purpose": "target",
              "ref": {"player": "A", "area": "deck", "index": 1}}
    assert action_as_seen(search, view)["card"] == "Silver Fang"


def test_a_pending_action_built_from_a_hidden_place_names_no_card():
    raw = json.loads(json.dumps(STATE))
    raw["players"]["B"]["hand"] = ["Cosmo Queen", "Magic Jammer"]
    raw["turn_player"] = "B"
    raw["pending"] = {"action": {"type": "tribute_summon", "player": "B", "card": "Cosmo Queen",
                                 "from": {"player": "B", "area": "hand", "index": 0}},
                      "purpose": "tribute", "needed": 2, "chosen": []}
    state = GameState.from_dict(raw)
    assert state.view("A")["pending"]["action"]["card"] is None
    assert state.view("B")["pending"]["action"]["card"] == "Cosmo Queen"


def test_a_view_is_never_read_as_a_state(tmp_path):
    view = GameState.from_dict(STATE).view("A")
    with pytest.raises(StateError, match=r"format: expected 'ygo-onto.state/1' \(a full state"):
        GameState.from_dict(view)
    path = tmp_path / "view.json"
    path.write_text(json.dumps(view))
    code, out = cli("allowed", path)
    assert code == 2 and f"{path}: format:" in out
    with pytest.raises(StateError, match="player: expected 'A' or 'B'"):
        GameState.from_dict(STATE).view("C")


def test_view_command(tmp_path):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(STATE))
    code, out = cli("view", path, "--as", "B")
    assert code == 0
    assert json.loads(out) == GameState.from_dict(STATE).view("B")
    code, out = cli("view", path, "--as", "C")
    assert code == 2 and "--as: expected A or B" in out


# ---------------------------------------------------------------- random duels

def _places(data, player):
    """(names the player can see, names the player cannot see) by docs/state-format.md "A player's view"."""
    seen, hidden = set(), set()
    for side, cards in data["players"].items():
        for area in ("deck", "hand", "graveyard", "banished", "extra_deck"):
            secret = area == "deck" or (side != player and area in ("hand", "extra_deck"))
            (hidden if secret else seen).update(cards[area])
        for fc in [*cards["monster_zones"], *cards["spell_trap_zones"], cards["field_zone"]]:
            if fc is not None:
                secret = fc["position"] in FACE_DOWN and player not in (side, fc["owner"])
                (hidden if secret else seen).add(fc["card"])
    seen.update(link["card"] for link in data["chain"])  # an activation is public
    for names in data.get("extra", {}).get("properly_summoned", {}).values():
        seen.update(names)  # monsters in a Graveyard
    return seen, hidden


def _check(state: GameState, reasoner="fast"):
    data = state.data
    for player in ("A", "B"):
        view = state.view(player)
        seen, hidden = _places(data, player)
        secrets = hidden - seen
        text = json.dumps(view)
        leaked = [n for n in secrets if json.dumps(n) in text]
        assert not leaked, (player, leaked, state)
        for side in ("A", "B"):
            for area in ("deck", "hand", "graveyard", "banished", "extra_deck"):
                assert len(view["players"][side][area]) == len(data["players"][side][area])
        if player == data["priority"] and data["winner"] is None:
            for action in state.allowed_actions(reasoner):
                shown = action_as_seen(action.to_dict(), view)
                searched = shown.get("ref", {}).get("area") == "deck"
                named = {shown.get("card"), shown.get("target")} - {None}
                assert searched or not named & secrets, (player, action, state)


@pytest.mark.parametrize("ruleset,seed", [("official", 1), ("official", 2), ("simplified", 3)])
def test_no_hidden_name_leaks_over_a_random_duel(ruleset, seed):
    from ygo_onto.duel import new_duel

    start = new_duel(ruleset, seed, "fast")
    _check(start)
    count = 0
    for _, _, nxt in play_duel(start, ("random", "random"), seed, "fast", max_actions=400):
        _check(nxt)
        count += 1
    assert count > 20
