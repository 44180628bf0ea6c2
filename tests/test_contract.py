"""The public contract (docs/actions-and-cli.md, docs/state-format.md) checked through the CLI, as an outside user runs it."""
import json
import re

from typer.testing import CliRunner

from ygo_onto import GameState
from ygo_onto.cli import app

STATE = {"format": "ygo-onto.state/1",
         "players": {"A": {"hand": ["Celtic Guardian"], "deck": ["Dark Hole"],
                           "monster_zones": [{"card": "Feral Imp"}, None, None, None, None]},
                     "B": {"deck": ["Pot of Greed"]}}}


def _write(tmp_path, data, name="state.json"):
    path = tmp_path / name
    path.write_text(json.dumps(data))
    return str(path)


def test_action_object_card_names_match_without_regard_to_case(tmp_path):
    """cards.md: names are matched without regard to case (and aliases); an action object's `card` too."""
    path = _write(tmp_path, STATE)
    result = CliRunner().invoke(app, ["apply", path, '{"type": "normal_summon", "card": "celtic GUARDIAN"}'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["players"]["A"]["monster_zones"][1]["card"] == "Celtic Guardian"
    result = CliRunner().invoke(app, ["explain", path, '{"type": "normal_summon", "card": "celtic guardian"}'])
    assert result.exit_code == 0 and "normal_summon@A.hand0: allowed" in result.output, result.output


def test_action_object_unknown_card_name_is_bad_input_with_suggestions(tmp_path):
    path = _write(tmp_path, STATE)
    result = CliRunner().invoke(app, ["apply", path, '{"type": "normal_summon", "card": "Celtc Guardian"}'])
    assert result.exit_code == 2
    assert "action.card" in result.output and "closest: Celtic Guardian" in result.output


def test_zero_life_points_without_a_winner_is_bad_input(tmp_path):
    """state-format.md "Invariants": a player at 0 LP has lost (rulebook p. 22), so a state at 0 LP names its winner;
    one that does not is refused (exit 2, the field named) by every command."""
    data = json.loads(json.dumps(STATE))
    data["players"]["B"]["life_points"] = 0
    path = _write(tmp_path, data)
    for command in (["allowed", path, "--json"], ["apply", path, "end_turn"]):
        result = CliRunner().invoke(app, command)
        assert result.exit_code == 2 and "players.B.life_points" in result.output and "winner" in result.output, result.output
    data["winner"] = "A"
    result = CliRunner().invoke(app, ["apply", _write(tmp_path, data), "end_turn"])
    assert result.exit_code == 1 and "duel is over" in result.output, result.output


def test_replay_takes_ruleset_and_checks_it_against_the_log(tmp_path):
    """actions-and-cli.md: all commands take --ruleset where they reason; replay's must be the log's."""
    log = tmp_path / "duel.jsonl"
    result = CliRunner().invoke(app, ["duel", "--ruleset", "simplified", "--seed", "3", "--log", str(log),
                                      "--max-actions", "8"])
    assert result.exit_code == 0, result.output
    ok = CliRunner().invoke(app, ["replay", str(log), "--ruleset", "simplified"])
    assert ok.exit_code == 0, ok.output
    bad = CliRunner().invoke(app, ["replay", str(log), "--ruleset", "official"])
    assert bad.exit_code == 2 and "--ruleset" in bad.output and "simplified" in bad.output


def test_simplified_duel_starts_as_seed_002_section_2(tmp_path):
    """Seed 002 1.1.2 and 2 (rulesets.md "simplified"), read from a logged duel's start as an outside grader
    would: each deck is 20 distinct cards of the collection, 15 monsters and 5 spells; 8000 LP each; each
    player draws 5 and the randomly chosen starting player 1 extra card; turn 1 of the starter, in Main (1);
    the starter's turn-1 draw is that extra card (the second player draws its first card as turn 2 starts)."""
    from ygo_onto.cards import catalog

    cat, starters = catalog("simplified"), set()
    for seed in range(6):
        log = tmp_path / f"duel{seed}.jsonl"
        result = CliRunner().invoke(app, ["duel", "--ruleset", "simplified", "--seed", str(seed), "--log", str(log),
                                          "--max-actions", "1"])
        assert result.exit_code == 0, result.output
        start = json.loads(log.read_text().splitlines()[0])["start"]
        first = start["first_player"]
        starters.add(first)
        assert (start["turn"], start["turn_player"], start["phase"], start["winner"]) == (1, first, "main1", None)
        for p, player in start["players"].items():
            cards = player["deck"] + player["hand"]
            assert len(cards) == 20 and len(set(cards)) == 20 and player["life_points"] == 8000
            assert sum(cat.get(c).is_monster for c in cards) == 15
            assert len(player["hand"]) == (6 if p == first else 5)
            assert not player["graveyard"] and player["monster_zones"] == [None] * 5
    assert starters == {"A", "B"}  # seeds 0-5 pick both players


def test_explain_a_described_action_that_is_not_allowed(tmp_path):
    """actions-and-cli.md: explain says why a described action is not allowed (exit 1), also for a partial
    object without a card reference: the named card is looked up where it is (the first copy)."""
    path = _write(tmp_path, STATE)
    result = CliRunner().invoke(app, ["explain", path, '{"type": "direct_attack", "card": "Celtic Guardian"}'])
    assert result.exit_code == 1, result.output
    assert result.output.startswith("direct_attack@A.hand0: not allowed") and "does not hold" in result.output
    result = CliRunner().invoke(app, ["explain", path, '{"type": "activate", "card": "Raigeki"}'])
    assert result.exit_code == 1 and "no card of that name" in result.output
    result = CliRunner().invoke(app, ["explain", path, '{"type": "attack", "card": "Feral Imp", "target": "Mystical Elf"}'])
    assert result.exit_code == 1 and "no monster of that name" in result.output


def test_cards_search_finds_a_card_by_an_alias():
    """cards.md: the catalog may give a card older printed names as aliases ("Red-Eyes B. Dragon")."""
    result = CliRunner().invoke(app, ["cards", "red-eyes b.", "--json"])
    assert result.exit_code == 0
    assert [c["name"] for c in json.loads(result.stdout)] == ["Red-Eyes Black Dragon"]


def test_cards_query_lists_the_named_card_first_with_cards_md_kind():
    """cards.md's tables as `ygo-onto cards NAME --json` shows them: the card of that name first (Black Magic
    Ritual's text names Magician of Black Chaos), and cards.md's kind names (Flip Effect, Tuner Effect Monster)."""
    for name, kind, facts in [("Magician of Black Chaos", "Ritual Monster", (8, 2800, 2600)),
                              ("Man-Eater Bug", "Flip Effect Monster", (2, 450, 600)),
                              ("Junk Synchron", "Tuner Effect Monster", (3, 1300, 500)),
                              ("curse of dragon", "Normal Monster", (5, 2000, 1500))]:
        result = CliRunner().invoke(app, ["cards", name, "--json"])
        assert result.exit_code == 0
        first = json.loads(result.stdout)[0]
        assert first["name"].casefold() == name.casefold() and first["kind"] == kind
        assert (first["level"], first["atk"], first["def"]) == facts
    result = CliRunner().invoke(app, ["cards", "Flip Effect Monster", "--json"])
    assert [c["name"] for c in json.loads(result.stdout)] == ["Man-Eater Bug"]


def test_a_refusal_says_why(tmp_path):
    """actions-and-cli.md: exit 1 on a rules refusal, "the message says why": the closest rule and its
    first failing condition, as explain finds them, then what is allowed."""
    path = _write(tmp_path, STATE)
    result = CliRunner().invoke(app, ["apply", path, "next_phase:battle"])
    assert result.exit_code == 1
    assert "not allowed in this state (rule " in result.output and "fails" in result.output
    assert "allowed: normal_summon@A.hand0" in result.output
    result = CliRunner().invoke(app, ["apply", path, '{"type": "activate", "card": "Raigeki"}'])
    assert result.exit_code == 1 and "no card of that name is in this state" in result.output


def test_an_action_object_may_give_only_its_id(tmp_path):
    path = _write(tmp_path, STATE)
    result = CliRunner().invoke(app, ["apply", path, '{"id": "normal_summon@A.hand0"}'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["players"]["A"]["monster_zones"][1]["card"] == "Celtic Guardian"
    assert CliRunner().invoke(app, ["apply", path, '{"id": "bogus"}']).exit_code == 2


def test_an_ambiguous_partial_object_is_refused_listing_the_matches(tmp_path):
    """Two copies of one card on the field that the state tells apart (here their positions) are two different
    plays: a partial object naming the card only is refused, listing the matches; `from` chooses. Copies of one
    card in the hand are the same card (a hand holds names only): the first is taken, as is the first of two
    field copies the state says the same of."""
    data = json.loads(json.dumps(STATE))
    data["turn"] = 3
    data["players"]["A"]["hand"] = ["Celtic Guardian", "Celtic Guardian"]
    data["players"]["A"]["monster_zones"] = [{"card": "Feral Imp"}, {"card": "Feral Imp", "position": "defense"},
                                             {"card": "Beaver Warrior"}, {"card": "Beaver Warrior"}, None]
    path = _write(tmp_path, data)
    result = CliRunner().invoke(app, ["apply", path, '{"type": "change_position", "card": "Feral Imp"}'])
    assert result.exit_code == 1 and "change_position@A.mz0:defense, change_position@A.mz1:attack" in result.output
    ok = CliRunner().invoke(app, ["apply", path, '{"type": "change_position", "card": "Feral Imp", '
                                                 '"from": {"player": "A", "area": "monster_zones", "index": 1}}'])
    assert ok.exit_code == 0, ok.output
    assert json.loads(ok.stdout)["players"]["A"]["monster_zones"][1]["position"] == "attack"
    same = CliRunner().invoke(app, ["apply", path, '{"type": "change_position", "card": "Beaver Warrior"}'])
    assert same.exit_code == 0, same.output
    assert [json.loads(same.stdout)["players"]["A"]["monster_zones"][i]["position"] for i in (2, 3)] == ["defense", "attack"]
    copies = CliRunner().invoke(app, ["apply", path, '{"type": "normal_summon", "card": "Celtic Guardian"}'])
    assert copies.exit_code == 0, copies.output
    assert json.loads(copies.stdout)["players"]["A"]["hand"] == ["Celtic Guardian"]


def test_priority_left_out_is_the_pending_actions_player(tmp_path):
    """state-format.md: `priority` defaults to "who chooses the next action"; with a pending action (here B's
    Counter Trap waiting for its discard cost in A's turn) that is the pending action's player."""
    data = {"format": "ygo-onto.state/1", "turn": 2,
            "chain": [{"card": "Dark Hole", "player": "A", "zone": {"area": "spell_trap_zones", "index": 0}}],
            "pending": {"action": {"type": "activate", "card": "Magic Jammer", "effect": 0, "player": "B",
                                   "from": {"player": "B", "area": "spell_trap_zones", "index": 0}},
                        "purpose": "cost", "needed": 1, "chosen": []},
            "players": {"A": {"spell_trap_zones": [{"card": "Dark Hole"}, None, None, None, None],
                              "monster_zones": [{"card": "Feral Imp"}, None, None, None, None]},
                        "B": {"spell_trap_zones": [{"card": "Magic Jammer"}, None, None, None, None],
                              "hand": ["Feral Imp"]}}}
    path = _write(tmp_path, data)
    result = CliRunner().invoke(app, ["allowed", path, "--json"])
    assert result.exit_code == 0, result.output
    assert [(a["id"], a["player"]) for a in json.loads(result.stdout)["actions"]] == [("select@B.hand0", "B"),
                                                                                     ("cancel", "B")]


def test_duel_result_says_how_the_duel_ended():
    """actions-and-cli.md: `duel` narrates a whole duel; its last line names the winner and why (rulebook
    p. 22: 0 LP, or a draw from an empty deck), read off the final state."""
    result = CliRunner().invoke(app, ["duel", "--seed", "1"])
    assert result.exit_code == 0, result.output
    last = result.output.strip().splitlines()[-1]
    assert re.match(r"Result: winner ([AB]) \(([AB]) (at 0 LP|could not draw from an empty deck)\) after \d+ actions", last), last
    winner, loser = re.match(r"Result: winner (\w) \((\w)", last).groups()
    assert winner != loser


def test_a_summon_named_with_its_default_position_matches(tmp_path):
    """actions-and-cli.md: normal_summon is "face-up Attack"; an action object that says so (`"to": "attack"`)
    names the same allowed action, while a position the rules do not offer is refused (exit 1)."""
    path = _write(tmp_path, STATE)
    result = CliRunner().invoke(app, ["apply", path, '{"type": "normal_summon", "card": "Celtic Guardian", "to": "attack"}'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["players"]["A"]["monster_zones"][1]["position"] == "attack"
    result = CliRunner().invoke(app, ["apply", path, '{"type": "normal_summon", "card": "Celtic Guardian", "to": "defense"}'])
    assert result.exit_code == 1, result.output


def test_a_position_in_to_is_a_rules_question_an_unknown_word_bad_input(tmp_path):
    """state-format.md names three monster positions; a `to` naming one the rules do not offer (a change of
    position to face-down, Rulebook v6.0 p. 25) is a refusal (exit 1), a word that is no position bad input (2);
    a Set named with its face-down Defense Position is the Set."""
    path = _write(tmp_path, {**STATE, "turn": 3})
    down = '{"type": "change_position", "card": "Feral Imp", "to": "face_down_defense"}'
    assert CliRunner().invoke(app, ["apply", path, down]).exit_code == 1
    bad = CliRunner().invoke(app, ["apply", path, '{"type": "change_position", "card": "Feral Imp", "to": "sideways"}'])
    assert bad.exit_code == 2 and "action.to" in bad.output
    result = CliRunner().invoke(app, ["apply", path, '{"type": "set_monster", "card": "Celtic Guardian", "to": "defense"}'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout)["players"]["A"]["monster_zones"][1]["position"] == "face_down_defense"


def test_an_activation_may_name_its_target(tmp_path):
    """state-format.md: targets are chosen as the pending action's selections; an `activate` object that
    names its target (`target` or `target_ref`, as an attack does) is the activation and that selection,
    and a target the card cannot take is refused (exit 1)."""
    data = {"format": "ygo-onto.state/1", "turn": 3,
            "players": {"A": {"hand": ["Mystical Space Typhoon"], "deck": ["Dark Hole"],
                              "monster_zones": [{"card": "Feral Imp"}, None, None, None, None]},
                        "B": {"deck": ["Pot of Greed"],
                              "spell_trap_zones": [{"card": "Trap Hole", "position": "face_down"}, None, None, None, None]}}}
    path = _write(tmp_path, data)
    result = CliRunner().invoke(app, ["apply", path, '{"type": "activate", "card": "Mystical Space Typhoon", "target": "Trap Hole"}'])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert out["players"]["B"]["graveyard"] == ["Trap Hole"] and out["pending"] is None
    wrong = CliRunner().invoke(app, ["apply", path, '{"type": "activate", "card": "Mystical Space Typhoon", "target": "Feral Imp"}'])
    assert wrong.exit_code == 1, wrong.output


def test_a_pass_with_nothing_to_answer_leaves_the_state(tmp_path):
    """actions-and-cli.md: every state `apply` writes is a decision point, the engine passing where a pass is
    the only choice; a script's `pass` for such a window (nothing on the chain, nothing pending) leaves the
    state as it is (exit 0). A pass that is the other player's to make is still refused."""
    path = _write(tmp_path, STATE)
    result = CliRunner().invoke(app, ["apply", path, '{"type": "pass", "player": "B"}'])
    assert result.exit_code == 0, result.output
    assert json.loads(result.stdout) == GameState.load(path).to_dict()
    data = {"format": "ygo-onto.state/1", "turn": 3,
            "chain": [{"card": "Dark Hole", "player": "A"}],
            "players": {"A": {"spell_trap_zones": [{"card": "Dark Hole"}, None, None, None, None], "deck": ["Dark Hole"]},
                        "B": {"spell_trap_zones": [{"card": "Magic Jammer", "position": "face_down"}, None, None, None, None],
                              "hand": ["Feral Imp"], "deck": ["Pot of Greed"]}}}
    chain = _write(tmp_path, data, "chain.json")
    listed = json.loads(CliRunner().invoke(app, ["allowed", chain, "--json"]).stdout)
    assert sorted(listed) == ["actions", "elapsed_ms", "reasoner"]
    assert [(a["id"], a["player"]) for a in listed["actions"]] == [("activate@B.stz0", "B"), ("pass", "B")]
    assert CliRunner().invoke(app, ["apply", chain, '{"type": "pass", "player": "A"}']).exit_code == 1
    # priority back with A, the last link's player: B's pass on it was made (by the engine where B could only
    # pass); a script's pass for B leaves the state as it is (docs/decisions.md "Script readings")
    passed = _write(tmp_path, {**data, "priority": "A"}, "passed.json")
    again = CliRunner().invoke(app, ["apply", passed, '{"type": "pass", "player": "B"}'])
    assert again.exit_code == 0, again.output
    assert json.loads(again.stdout) == GameState.load(passed).to_dict()


def test_simplified_turn_end_and_flip_read_as_the_rules_have_them(tmp_path):
    """rulesets.md "simplified": the turn is Main 1 -> Battle -> Main 2 and may end at any phase, with no End
    Phase; a `next_phase` to `end` there is the turn's end (`end_turn`), while in `official`, where the End Phase
    is a phase, it goes on to that phase (from the Battle Phase through Main Phase 2), and `draw` names no
    phase of the simplified turn (exit 1). A `flip_summon` of a face-down DEFENSE monster is its mode change to
    ATTACK (seed 002 4.1.1 items 6-7); of a monster in ATTACK mode it is refused."""
    deck = ["Kuriboh", "Mokey Mokey"]
    simp = {"format": "ygo-onto.state/1", "ruleset": "simplified", "turn": 3, "phase": "battle",
            "players": {"A": {"deck": deck, "monster_zones": [{"card": "Kuriboh"},
                                                              {"card": "Baby Dragon", "position": "face_down_defense"},
                                                              None, None, None]},
                        "B": {"deck": deck}}}
    path = _write(tmp_path, simp)
    result = CliRunner().invoke(app, ["apply", path, '{"type": "next_phase", "to": "end"}'])
    assert result.exit_code == 0, result.output
    out = json.loads(result.stdout)
    assert (out["turn"], out["turn_player"], out["phase"], out["players"]["B"]["hand"]) == (4, "B", "main1", ["Kuriboh"])
    assert CliRunner().invoke(app, ["apply", path, '{"type": "next_phase", "to": "draw"}']).exit_code == 1
    official = {"format": "ygo-onto.state/1", "turn": 3, "phase": "battle",
                "players": {"A": {"deck": ["Dark Hole"]}, "B": {"deck": ["Pot of Greed"]}}}
    # (official: the End Phase is a phase, reached through Main Phase 2: docs/decisions.md "Script readings")
    result = CliRunner().invoke(app, ["apply", _write(tmp_path, official, "o.json"), '{"type": "next_phase", "to": "end"}'])
    assert result.exit_code == 0, result.output
    assert (json.loads(result.stdout)["turn"], json.loads(result.stdout)["phase"]) == (3, "end")
    main1 = _write(tmp_path, {**simp, "phase": "main1"}, "m1.json")
    result = CliRunner().invoke(app, ["apply", main1, '{"type": "flip_summon", "card": "Baby Dragon"}'])
    assert result.exit_code == 0, result.output
    flipped = json.loads(result.stdout)["players"]["A"]["monster_zones"][1]
    assert (flipped["position"], flipped["position_changed_this_turn"]) == ("attack", True)
    assert CliRunner().invoke(app, ["apply", main1, '{"type": "flip_summon", "card": "Kuriboh"}']).exit_code == 1


def test_next_phase_to_an_idle_phase_apply_passed_by_itself(tmp_path):
    """actions-and-cli.md: every state `apply` writes is a decision point, so a turn whose Draw and Standby
    Phases are idle opens in Main Phase 1; a script's "go on to the Standby Phase", then "to Main Phase 1"
    (as an object or as the id `next_phase:standby`) leaves that state as it is.  A phase really behind
    (Main Phase 1 from the Battle Phase) is still refused, and `simplified` has no Standby Phase."""
    data = {"format": "ygo-onto.state/1", "turn": 3, "phase": "main2",
            "players": {"A": {"deck": ["Dark Hole"]}, "B": {"deck": ["Pot of Greed", "Feral Imp"], "hand": ["Feral Imp"]}}}
    result = CliRunner().invoke(app, ["apply", _write(tmp_path, data), "end_turn"])
    assert result.exit_code == 0, result.output
    opened = json.loads(result.stdout)
    assert (opened["turn"], opened["turn_player"], opened["phase"]) == (4, "B", "main1")
    path = _write(tmp_path, opened, "b.json")
    for move in ('{"type": "next_phase", "to": "standby"}', "next_phase:standby", "next_phase:draw", "next_phase:main1"):
        result = CliRunner().invoke(app, ["apply", path, move])
        assert result.exit_code == 0, (move, result.output)
        assert json.loads(result.stdout) == opened, move
    battle = _write(tmp_path, {**opened, "phase": "battle"}, "battle.json")
    assert CliRunner().invoke(app, ["apply", battle, "next_phase:main1"]).exit_code == 1
    assert CliRunner().invoke(app, ["apply", battle, "next_phase:standby"]).exit_code == 1
    simp = _write(tmp_path, {**data, "ruleset": "simplified", "phase": "main1",
                             "players": {"A": {"deck": ["Kuriboh"]}, "B": {"deck": ["Kuriboh"]}}}, "s.json")
    assert CliRunner().invoke(app, ["apply", simp, "next_phase:standby"]).exit_code == 1
