"""The HTML board (ygo_onto.display.state_html) shows the state and never runs a reasoner."""
import pytest

from ygo_onto import GameState
from ygo_onto import reasoning
from ygo_onto.display import state_html


@pytest.fixture(autouse=True)
def no_reasoner(monkeypatch):
    def refuse(*args, **kwargs):
        raise AssertionError("state_html ran a reasoner")

    monkeypatch.setattr(reasoning, "get", refuse)
    monkeypatch.setattr(GameState, "infer", refuse)


def example_state() -> GameState:
    return GameState.from_dict({
        "format": "ygo-onto.state/1",
        "ruleset": "official",
        "turn": 3, "turn_player": "A", "phase": "main1",
        "players": {
            "A": {"life_points": 8000, "deck": ["Dark Magician", "Pot of Greed"],
                  "hand": ["Red-Eyes Black Dragon", "Mystical Space Typhoon"],
                  "graveyard": ["Celtic Guardian"],
                  "monster_zones": [{"card": "Curse of Dragon", "position": "attack"},
                                    {"card": "Gaia The Fierce Knight", "position": "defense"}, None, None, None]},
            "B": {"life_points": 6500, "deck": ["Blue-Eyes White Dragon"],
                  "spell_trap_zones": [{"card": "Magic Jammer", "position": "face_down"}, None, None, None, None]},
        },
    })


def test_board_shows_cards_life_points_and_face_down():
    html = state_html(example_state())
    for name in ("Red-Eyes Black Dragon", "Mystical Space Typhoon", "Curse of Dragon", "Gaia The Fierce Knight",
                 "Magic Jammer", "Celtic Guardian"):
        assert name in html, name
    assert "8000" in html and "6500" in html
    assert "face-down" in html
    assert "Main Phase 1" in html and "Turn 3" in html


def test_repr_html_is_the_board():
    state = example_state()
    assert state._repr_html_() == state_html(state)


def test_face_down_monster_and_pending_selection():
    raw = example_state().to_dict()
    raw["players"]["A"]["monster_zones"][2] = {"card": "Celtic Guardian", "position": "face_down_defense"}
    raw["pending"] = {"action": {"type": "tribute_summon", "player": "A", "card": "Red-Eyes Black Dragon",
                                 "from": {"player": "A", "area": "hand", "index": 0}},
                      "purpose": "tribute", "needed": 2,
                      "chosen": [{"player": "A", "area": "monster_zones", "index": 0}]}
    html = state_html(GameState.from_dict(raw))
    assert "face-down DEF" in html
    assert "Pending selection" in html and "A.mz0" in html


def test_text_is_escaped():
    raw = example_state().to_dict()
    raw["winner"] = "A"
    html = state_html(GameState.from_dict(raw))
    assert "winner: A" in html
    assert "Spell &amp; Trap" in html and "Spell & Trap" not in html
