"""`explain` against the contract (actions-and-cli.md: "why the action is allowed (the rules that fired and the facts
they matched), or why a described action is not"; exit 0 allowed, 1 a rules refusal, 2 bad input), written as an
outside grader would: states from state-format.md, action objects in the contract's keys (no engine ids), and the
reason the rulebook (seed 003) gives for each refusal.  explain and apply agree on every object: explain judges it
as apply takes it, and says which allowed action(s) an object was read as (docs/decisions.md, "Actions, refusals
and `explain`")."""
import json

import pytest
from typer.testing import CliRunner

from ygo_onto import GameState
from ygo_onto.cli import app
from ygo_onto.explain import explain_action

runner = CliRunner()
FILLER = {"official": ["Feral Imp"] * 3, "simplified": ["Kuriboh"] * 3}


def state(ruleset="official", turn=3, phase="main1", A=None, B=None, **top):
    players = {p: {"deck": FILLER[ruleset], **(side or {})} for p, side in (("A", A), ("B", B))}
    return {"format": "ygo-onto.state/1", "ruleset": ruleset, "turn": turn, "turn_player": "A", "phase": phase,
            "players": players, **top}


def zones(*cards):
    return list(cards) + [None] * (5 - len(cards))


def cli(tmp_path, command, data, action):
    path = tmp_path / "state.json"
    path.write_text(json.dumps(data))
    result = runner.invoke(app, [command, str(path), action if isinstance(action, str) else json.dumps(action)])
    assert "Traceback" not in result.output
    return result


MAIN = state(A={"hand": ["Celtic Guardian", "Dark Magician", "Pot of Greed", "Trap Hole"],
                "monster_zones": zones({"card": "Feral Imp"})})
FIELD = state(A={"hand": ["Pot of Greed"],
                 "monster_zones": zones({"card": "Summoned Skull", "attacks_declared": 1},
                                        {"card": "Man-Eater Bug", "position": "face_down_defense",
                                         "summoned_this_turn": True, "summoned_by": "set"},
                                        {"card": "Feral Imp", "position": "defense", "position_changed_this_turn": True}),
                 "spell_trap_zones": zones({"card": "Mirror Force", "position": "face_down", "set_this_turn": True})},
              B={"monster_zones": zones({"card": "Celtic Guardian"})})
CHAIN = state(A={"hand": ["Pot of Greed"], "spell_trap_zones": zones({"card": "Dark Hole", "position": "face_down"})},
              B={"spell_trap_zones": zones({"card": "Sakuretsu Armor", "position": "face_up"})},
              chain=[{"card": "Sakuretsu Armor", "player": "B", "zone": {"area": "spell_trap_zones", "index": 0},
                      "targets": [], "speed": 2}], priority="A")
SIMPLE = state("simplified", A={"hand": ["Celtic Guardian", "Dark Magician"]})

ALLOWED = [
    ("normal summon by id", MAIN, "normal_summon@A.hand0", None),
    ("normal summon as an object", MAIN, {"type": "normal_summon", "card": "Celtic Guardian"}, None),
    ("Set, to defense (read as the Set)", MAIN, {"type": "set_monster", "card": "Celtic Guardian", "to": "defense"},
     "set_monster@A.hand0"),
    ("summon with from and to attack", MAIN, {"type": "normal_summon", "from": {"player": "A", "area": "hand", "index": 0},
                                              "to": "attack"}, "normal_summon@A.hand0"),
    ("next phase without to", MAIN, {"type": "next_phase"}, None),
    ("Battle to End through Main 2", state(phase="battle"), {"type": "next_phase", "to": "end"},
     "next_phase:main2, then next_phase:end"),
    ("a pass with nothing to answer", MAIN, {"type": "pass"}, "no action"),
    ("simplified: to the End Phase ends the turn", SIMPLE, {"type": "next_phase", "to": "end"}, "end_turn"),
    ("simplified: Battle Phase on turn 1", state("simplified", turn=1, A={"hand": ["Celtic Guardian"]}),
     {"type": "next_phase", "to": "battle"}, None),
]


@pytest.mark.parametrize("name,data,action,read_as", ALLOWED, ids=[a[0] for a in ALLOWED])
def test_explain_allowed_as_apply_takes_it(tmp_path, name, data, action, read_as):
    result = cli(tmp_path, "explain", data, action)
    assert result.exit_code == 0, result.output
    assert ": allowed" in result.output.splitlines()[0]
    assert "because of rule" in result.output or "read as: no action" in result.output
    if read_as:
        assert f"read as: {read_as}" in result.output, result.output
    assert cli(tmp_path, "apply", data, action).exit_code == 0


REFUSED = [
    ("second Normal Summon", state(A={"hand": ["Celtic Guardian"], "normal_summon_used": True}),
     {"type": "normal_summon", "card": "Celtic Guardian"}, ["once per turn"]),
    ("Level 7 with one tribute", MAIN, {"type": "tribute_summon", "card": "Dark Magician"},
     ["greaterThanOrEqual(1, 2)", "tributing"]),
    ("Battle Phase on turn 1", state(turn=1), {"type": "next_phase", "to": "battle"},
     ["goes first cannot conduct a Battle Phase on the first turn"]),
    ("trap Set this turn", FIELD, {"type": "activate", "card": "Mirror Force"},
     ["setThisTurn(A_spell_trap_zones_0_card, false)", "cannot be activated the turn it was Set"]),
    ("Flip Summon the turn it was Set", FIELD, {"type": "flip_summon", "card": "Man-Eater Bug"},
     ["summonedThisTurn(A_monster_zones_1_card, false)", "not on the turn it was Set"]),
    ("second change of position", FIELD, {"type": "change_position", "card": "Feral Imp", "to": "attack"},
     ["positionChangedThisTurn(A_monster_zones_2_card, false)"]),
    ("attack by a monster that attacked", state(phase="battle", A=FIELD["players"]["A"], B=FIELD["players"]["B"]),
     {"type": "attack", "card": "Summoned Skull", "target": "Celtic Guardian"},
     ["attacksDeclared(A_monster_zones_0_card, 0)", "once per turn"]),
    ("Speed 1 spell answering a chain", CHAIN, {"type": "activate", "card": "Pot of Greed"},
     ["Spell Speed 1 spells only in your own Main Phase", "chainLength(theDuel, 0)"]),
    ("Set Speed 1 spell answering a chain", CHAIN, {"type": "activate", "card": "Dark Hole"},
     ["Spell Speed 1 spells only in your own Main Phase", "chainLength(theDuel, 0)"]),
    ("Normal Spell in the opponent's turn", state(A={"hand": ["Pot of Greed"]}, turn_player="B", priority="A"),
     {"type": "activate", "card": "Pot of Greed"}, ["TurnPlayer(playerA)", "only in your own Main Phase"]),
    ("simplified: a Synchro Summon", SIMPLE, {"type": "synchro_summon", "card": "Dark Magician"},
     ["no rule of the simplified ruleset allows a synchro_summon"]),
    ("simplified: second Normal Summon", state("simplified", A={"hand": ["Celtic Guardian"], "normal_summon_used": True}),
     {"type": "normal_summon", "card": "Celtic Guardian"}, ["once per turn"]),
    ("Quick-Play Spell Set this turn", state(A={"spell_trap_zones": zones({"card": "Mystical Space Typhoon",
                                                                           "position": "face_down", "set_this_turn": True})},
                                              B={"spell_trap_zones": zones({"card": "Trap Hole", "position": "face_down"})}),
     {"type": "activate", "card": "Mystical Space Typhoon"}, ["a Set Quick-Play Spell cannot be activated the turn it was Set"]),
    ("change of position of a face-down monster (a copy also in the hand)",
     state(A={"hand": ["Celtic Guardian"], "monster_zones": zones({"card": "Celtic Guardian", "position": "face_down_defense"})}),
     {"type": "change_position", "card": "Celtic Guardian", "to": "attack"},
     ["change_position@A.mz0:attack", "face-down ones are Flip Summoned instead"]),
    ("card that its from does not hold", MAIN,
     {"type": "normal_summon", "card": "Dark Magician", "from": {"player": "A", "area": "hand", "index": 0}},
     ["card='Dark Magician' where it has card='Celtic Guardian'"]),
]


@pytest.mark.parametrize("name,data,action,reasons", REFUSED, ids=[r[0] for r in REFUSED])
def test_explain_refusal_names_the_cause(tmp_path, name, data, action, reasons):
    result = cli(tmp_path, "explain", data, action)
    assert result.exit_code == 1, result.output
    assert ": not allowed" in result.output.splitlines()[0]
    for reason in reasons:
        assert reason in result.output, (reason, result.output)
    refused = cli(tmp_path, "apply", data, action)
    assert refused.exit_code == 1, refused.output
    if "card=" in reasons[0] or "no rule of" in reasons[0]:  # apply's message gives that reason too
        assert reasons[0] in refused.output, refused.output


def test_explain_bad_input_is_exit_2(tmp_path):
    """A trap in the simplified ruleset is no card of its catalog: bad input, the name said (cards.md)."""
    result = cli(tmp_path, "explain", SIMPLE, {"type": "set_spell_trap", "card": "Trap Hole"})
    assert result.exit_code == 2 and "Trap Hole" in result.output, result.output
    result = cli(tmp_path, "explain", MAIN, {"type": "summon_please", "card": "Celtic Guardian"})
    assert result.exit_code == 2 and "action.type" in result.output, result.output


def test_explain_reads_a_material_select_before_the_fusion_monster(tmp_path):
    """A material `select` before the one-candidate Fusion monster choice: in a state `apply` wrote the engine made
    that choice (allowed as such); in a hand-written pending with nothing chosen apply takes the choice first, explain says so."""
    start = GameState.from_dict(state(A={"hand": ["Polymerization", "Gaia The Fierce Knight", "Curse of Dragon"],
                                         "extra_deck": ["Gaia the Dragon Champion"]}))
    pending = start.apply({"type": "activate", "card": "Polymerization"})
    action = {"type": "select", "card": "Gaia The Fierce Knight", "purpose": "material"}
    report = explain_action(pending, action)
    assert report.allowed and not report.read_as, report.text()
    written = pending.to_dict()
    written["pending"]["chosen"] = []
    written = GameState.from_dict(written)
    report = explain_action(written, action)
    assert report.allowed and report.read_as == ["select@A.extra0", "select@A.hand1"], report.text()
    written.apply(action)


def test_explain_output_keeps_action_ids_as_written(tmp_path):
    """`next_phase:end` stays as written (the console once turned ':end:' into an emoji)."""
    result = cli(tmp_path, "explain", MAIN, "next_phase:end")
    assert result.output.startswith("next_phase:end: allowed"), result.output


@pytest.mark.parametrize("data,action,cause", [
    (FIELD, {"type": "activate", "card": "Mirror Force"}, "cannot be activated the turn it was Set"),
    (CHAIN, {"type": "activate", "card": "Pot of Greed"}, "chainLength(theDuel, 0) fails"),
    (state(turn=1), {"type": "next_phase", "to": "battle"}, "goes first cannot conduct a Battle Phase on the first turn"),
    (state(A={"spell_trap_zones": zones({"card": "Mystical Space Typhoon", "position": "face_down", "set_this_turn": True})}),
     {"type": "activate", "card": "Mystical Space Typhoon"}, "a Set Quick-Play Spell cannot be activated the turn it was Set"),
], ids=["trap Set this turn", "Speed 1 on a chain", "turn 1 Battle Phase", "Quick-Play Set this turn"])
def test_apply_refusal_says_the_cause_explain_finds(tmp_path, data, action, cause):
    """actions-and-cli.md exit 1: "the message says why": apply's message follows a derived condition to the cause too."""
    result = cli(tmp_path, "apply", data, action)
    assert result.exit_code == 1 and cause in result.output, result.output


def test_explain_takes_an_action_of_allowed_actions():
    """The Python counterpart takes what `apply` takes: an Action of `allowed_actions()` too (it was bad input)."""
    data = GameState.from_dict(MAIN)
    for action in data.allowed_actions():
        report = explain_action(data, action)
        assert report.allowed and report.fired, report.text()


def test_explain_during_a_tribute_selection(tmp_path):
    """A pending Tribute Summon (state-format.md "Pending action"): only selects (and cancel) are allowed. A spell is
    no tribute (rulebook p. 14: the tributes are monsters you control); a `next_phase` without `to` is refused
    (exit 1, as apply refuses it; it was bad input for explain) because a selection is under way."""
    pending = GameState.from_dict(state(A={"hand": ["Summoned Skull", "Pot of Greed"],
                                           "monster_zones": zones({"card": "Feral Imp"})}))
    pending = pending.apply({"type": "tribute_summon", "card": "Summoned Skull"}).to_dict()
    result = cli(tmp_path, "explain", pending, {"type": "select", "card": "Pot of Greed"})
    assert result.exit_code == 1 and "Monster(A_hand_" in result.output and "the tributes are monsters you control" \
        in result.output, result.output
    result = cli(tmp_path, "explain", pending, {"type": "next_phase"})
    assert result.exit_code == 1 and "hasPending(theDuel, false)" in result.output, result.output
    assert cli(tmp_path, "apply", pending, {"type": "next_phase"}).exit_code == 1
    result = cli(tmp_path, "explain", pending, {"type": "select", "card": "Feral Imp"})
    assert result.exit_code == 0, result.output


@pytest.mark.parametrize("data", [MAIN, FIELD, SIMPLE], ids=["main1", "field", "simplified"])
def test_explain_and_apply_agree_on_contract_objects(data):
    """Every allowed action written in the contract's keys alone (no ids, no references), plus the moves a
    script writes without looking (pass, cancel, next_phase to each phase): explain allows exactly what apply takes."""
    from ygo_onto import IllegalActionError

    st = GameState.from_dict(data)
    objects = [{k: v for k, v in a.to_dict().items() if k in ("type", "card", "to", "target")} for a in st.allowed_actions()]
    objects += [{"type": t} for t in ("pass", "cancel", "end_turn", "next_phase")]
    objects += [{"type": "next_phase", "to": p} for p in ("main1", "battle", "main2", "end")]
    for action in objects:
        try:
            st.apply(action)
            applied = True
        except IllegalActionError:
            applied = False
        assert explain_action(st, action).allowed == applied, action
