"""The marks of attacks beyond the first (state-format.md, a monster's `extra`): `attacked_monsters` (a monster with
the keyword ability attacksEveryMonster, GOAT's Asura Priest) and `second_attack` (a SecondAttackEffect's right, GOAT's
Black Luster Soldier - Envoy of the Beginning): they round-trip, and bad ones are refused naming the field."""
import copy
import json

import pytest
from typer.testing import CliRunner

from ygo_onto import GameState, StateError
from ygo_onto.abox import state_facts
from ygo_onto.cli import app

B0 = {"player": "B", "area": "monster_zones", "index": 0}
MARKED = {"format": "ygo-onto.state/1", "ruleset": "goat", "turn": 3, "phase": "battle", "players": {
    "A": {"monster_zones": [{"card": "Asura Priest", "attacks_declared": 1, "extra": {"attacked_monsters": [B0]}},
                            {"card": "Black Luster Soldier - Envoy of the Beginning", "summoned_by": "special",
                             "attacks_declared": 1, "counters": {"effect_used_this_turn": 1},
                             "extra": {"second_attack": True}}, None, None, None]},
    "B": {"monster_zones": [{"card": "Gravekeeper's Guard", "position": "defense"},
                            {"card": "Gravekeeper's Spy", "position": "defense"}, None, None, None]}}}


def test_the_marks_round_trip_and_give_their_facts(tmp_path):
    state = GameState.from_dict(MARKED).to_dict()
    assert state["players"]["A"]["monster_zones"][0]["extra"] == {"attacked_monsters": [B0]}
    assert state["players"]["A"]["monster_zones"][1]["extra"] == {"second_attack": True}
    path = tmp_path / "s.json"
    path.write_text(GameState.from_dict(MARKED).to_json())
    assert GameState.load(path).to_dict() == state
    facts = state_facts(state, lean=False)
    assert ("notYetAttackedBy", "B_monster_zones_1_card", "A_monster_zones_0_card") in facts
    assert not any(f[0] == "notYetAttackedBy" and f[1] == "B_monster_zones_0_card" for f in facts)
    assert ("secondAttackRight", "A_monster_zones_1_card", True) in facts


def _marked(where, value):
    raw = copy.deepcopy(MARKED)
    fc = raw["players"]["A"]["monster_zones"][where]
    fc["extra"] = {**fc["extra"], **value}
    return raw


BAD = [
    (_marked(0, {"attacked_monsters": [{"player": "A", "area": "monster_zones", "index": 1}]}),
     "players.A.monster_zones[0].extra.attacked_monsters[0]"),
    (_marked(0, {"attacked_monsters": [{"player": "B", "area": "monster_zones", "index": 3}]}),
     "players.A.monster_zones[0].extra.attacked_monsters[0]"),
    (_marked(0, {"attacked_monsters": [B0, B0]}), "players.A.monster_zones[0].extra.attacked_monsters[1]"),
    (_marked(0, {"attacked_monsters": [{"player": "B", "area": "hand", "index": 0}]}),
     "players.A.monster_zones[0].extra.attacked_monsters[0].area"),
    (_marked(0, {"attacked_monsters": B0}), "players.A.monster_zones[0].extra.attacked_monsters"),
    (_marked(1, {"second_attack": "yes"}), "players.A.monster_zones[1].extra.second_attack"),
]


@pytest.mark.parametrize("raw,needle", BAD, ids=[b[1] for b in BAD])
def test_a_bad_mark_is_refused_naming_its_field(raw, needle):
    with pytest.raises(StateError) as info:
        GameState.from_dict(raw)
    assert needle in str(info.value) and "expected" in str(info.value)


def test_the_command_line_exits_2_on_a_bad_mark(tmp_path):
    path = tmp_path / "bad.json"
    path.write_text(json.dumps(BAD[0][0]))
    result = CliRunner().invoke(app, ["allowed", str(path)])
    assert result.exit_code == 2 and "attacked_monsters[0]" in result.output
