"""Integer bounds (docs/decisions.md): no sum a rule makes leaves 32 bits, so fast (clingo) and Pellet agree.
atk_modifier 2147483647 would overflow in fast (the attacker would lose), so the loader refuses it."""
import json

import pytest
from typer.testing import CliRunner

from ygo_onto import GameState, StateError
from ygo_onto.cli import app
from ygo_onto.state import MAX_MODIFIER


def state_with(**field_card):
    return {"format": "ygo-onto.state/1", "turn": 3,
            "players": {"A": {"monster_zones": [{"card": "Mokey Mokey", **field_card}, None, None, None, None]}, "B": {}}}


@pytest.mark.parametrize("key,value", [("atk_modifier", 2147483647), ("def_modifier", -MAX_MODIFIER - 1)])
def test_a_modifier_out_of_bounds_is_bad_input_naming_the_field(tmp_path, key, value):
    with pytest.raises(StateError, match=rf"players.A.monster_zones\[0\].{key}: expected an integer from"):
        GameState.from_dict(state_with(**{key: value}))
    path = tmp_path / "s.json"
    path.write_text(json.dumps(state_with(**{key: value})))
    result = CliRunner().invoke(app, ["allowed", str(path)])
    assert result.exit_code == 2 and key in result.output and "Traceback" not in result.output


def test_the_largest_sum_a_rule_makes_stays_in_32_bits():
    """currentAtk adds printed ATK (at most 5000), a modifier, 1000 per Axe (at most 10), Yami's 200 per copy (2)
    and a monster's own bonus (300 per Dragon in a Graveyard: at most 60 cards)."""
    assert 5000 + MAX_MODIFIER + 10 * 1000 + 2 * 200 + 60 * 300 < 2 ** 31 - 1
    assert -MAX_MODIFIER - 10 * 1000 - 2 * 200 > -(2 ** 31)
