"""A refusal whose failing condition is a comparison names what was compared
(actions-and-cli.md: exit 1, "the message says why"). A second monster in one turn of the simplified game
(seed 002 4.1.1 item 1) names not only "greaterThan(0, 0) fails" but also
normalSummonsLeft(playerA, 0), the fact the 0 came from (docs/decisions.md, "Actions, refusals and `explain`")."""
import json

from typer.testing import CliRunner

from ygo_onto.cli import app

runner = CliRunner()

STATE = {"format": "ygo-onto.state/1", "ruleset": "simplified", "turn": 3, "phase": "main1",
         "players": {"A": {"deck": ["Kuriboh"], "hand": ["Summoned Skull", "Harpie Lady"], "normal_summon_used": True,
                           "monster_zones": [{"card": "Celtic Guardian"}, None, None, None, None]},
                     "B": {"deck": ["Kuriboh"]}}}


def run(tmp_path, command, action):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(STATE))
    return runner.invoke(app, [command, str(path), json.dumps(action)])


def test_second_monster_of_the_turn_names_the_count_compared(tmp_path):
    for action in ({"type": "normal_summon", "card": "Harpie Lady"}, {"type": "tribute_summon", "card": "Summoned Skull"}):
        result = run(tmp_path, "apply", action)
        assert result.exit_code == 1
        assert "greaterThan(0, 0) (with normalSummonsLeft(playerA, 0)) fails" in result.output
        explained = run(tmp_path, "explain", action)
        assert "this one fails: greaterThan(0, 0) (with normalSummonsLeft(playerA, 0))" in explained.output
        assert "item 1" in explained.output or "once per turn" in explained.output


FULL = {"format": "ygo-onto.state/1", "ruleset": "simplified", "turn": 3, "phase": "main1",
        "players": {"A": {"deck": ["Kuriboh"] * 3, "hand": ["Pot of Greed", "Celtic Guardian"],
                          "monster_zones": [{"card": "Kuriboh"}] * 5,
                          "spell_trap_zones": [{"card": "Raigeki", "position": "face_down"}] * 5},
                    "B": {"deck": ["Kuriboh"]}}}


def test_full_slots_name_the_players_own_zone(tmp_path):
    """Seed 002 4.1 Example 5: with all slots filled nothing is added. The refusal used to come down to
    "onSideOf(B_spell_trap_zones_1, playerA) fails" (a free zone of the opponent's); it now names a zone of A's
    that is not free."""
    path = tmp_path / "full.json"
    path.write_text(json.dumps(FULL))
    for action, zone in (({"type": "normal_summon", "card": "Celtic Guardian"}, "A_monster_zones_"),
                         ({"type": "activate", "card": "Pot of Greed"}, "A_spell_trap_zones_"),
                         ({"type": "set_spell_trap", "card": "Pot of Greed"}, "A_spell_trap_zones_")):
        result = runner.invoke(app, ["apply", str(path), json.dumps(action)])
        assert result.exit_code == 1
        assert f"free({zone}" in result.output and "onSideOf(B_" not in result.output


def test_a_condition_with_no_value_at_all_is_followed_down(tmp_path):
    """Change Of Heart with every Monster Zone of A's filled: the refusal stopped at "selectable(card, ?t)" (no
    target, an unbound value, was not followed); it now comes down to a zone of A's that is not free. Raigeki
    with no opponent monster names the count compared."""
    data = json.loads(json.dumps(FULL))
    data["players"]["A"]["hand"] = ["Change Of Heart", "Raigeki"]
    data["players"]["A"]["spell_trap_zones"] = [None] * 5
    data["players"]["B"]["monster_zones"] = [{"card": "Gemini Elf"}, None, None, None, None]
    path = tmp_path / "coh.json"
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["apply", str(path), json.dumps({"type": "activate", "card": "Change Of Heart"})])
    assert result.exit_code == 1 and "free(A_monster_zones_" in result.output
    data["players"]["B"]["monster_zones"] = [None] * 5
    path.write_text(json.dumps(data))
    result = runner.invoke(app, ["apply", str(path), json.dumps({"type": "activate", "card": "Raigeki"})])
    assert result.exit_code == 1 and "greaterThan(0, 0) (with monsterCount(playerB, 0)) fails" in result.output
