"""Every CLI option of docs/actions-and-cli.md refuses a bad value before any work: exit 2, the message names the
option (or the file and its line, or the action), never a traceback, never a hang.  An action that is well-formed
but not allowed in its state is exit 1, the action named."""
from __future__ import annotations

from pathlib import Path

import pytest

from cli_runner import cli_bounded

EXAMPLE = str(Path(__file__).resolve().parent.parent / "examples" / "main1-tribute.json")
SECONDS = 30  # a hang is a bug: no command may take longer


def _run(*args) -> tuple[int, str]:
    return cli_bounded(SECONDS, *args)


@pytest.fixture(scope="module")
def files(tmp_path_factory) -> dict:
    """Bad deck files, bad JSON files, a missing file and a missing folder, by name."""
    d = tmp_path_factory.mktemp("bad")
    texts = {"passcode.ydk": "#main\n99999999\n#extra\n!side\n",  # no card has this passcode
             "empty.ydk": "",
             "section.ydk": "#main\n#extra\n46986414\n!side\n",  # Dark Magician under #extra
             "junk.ydk": "hello\n",
             "deck.ydk": "#main\n46986414\n",
             "names.json": '{"main": ["No Such Card"]}', "main.json": '{"main": "Dark Magician"}',
             "junk.json": "not json", "log.jsonl": '{"start": 1}\n'}
    paths = {}
    for name, text in texts.items():
        (d / name).write_text(text, encoding="utf-8")
        paths[name] = str(d / name)
    paths["missing"] = str(d / "missing.ydk")
    paths["nodir"] = str(d / "nodir" / "out.txt")
    paths["dir"] = str(d)
    return paths


# (arguments, with {name} for a file of `files`; text the message must hold)
CASES = [
    (["allowed", EXAMPLE, "--ruleset", "modern"], "ruleset"),
    (["allowed", EXAMPLE, "--reasoner", "oracle"], "reasoner"),
    (["allowed", "{missing}"], "missing.ydk"),
    (["allowed", "{dir}"], "expected a readable state file"),
    (["allowed", "{junk.json}"], "junk.json"),
    (["duel", "--ruleset", "modern"], "ruleset"),
    (["duel", "--decks", "{missing},{missing}"], "missing.ydk"),
    (["duel", "--decks", "{passcode.ydk},{passcode.ydk}"], "passcode.ydk:2"),
    (["duel", "--decks", "{empty.ydk},{empty.ydk}"], "empty.ydk"),
    (["duel", "--decks", "{section.ydk},{section.ydk}"], "section.ydk:3"),
    (["duel", "--decks", "{junk.ydk},{junk.ydk}"], "junk.ydk:1"),
    (["duel", "--decks", "{deck.ydk}"], "--decks"),
    (["duel", "--decks", ","], "--decks"),
    (["duel", "--decks", "{deck.ydk},{deck.ydk},{deck.ydk}"], "--decks"),
    (["duel", "--decks", "{dir},{dir}"], "expected a .ydk deck file"),
    (["duel", "--ruleset", "simplified", "--decks", "{deck.ydk},{deck.ydk}"], "--decks"),
    (["duel", "--reasoner", "oracle"], "reasoner"),
    (["duel", "--seed", "x"], "--seed"),
    (["duel", "--max-actions", "-1"], "--max-actions"),
    (["duel", "--agents", "foo,bar"], "--agents"),
    (["duel", "--agents", "random"], "--agents"),
    (["duel", "--log", "{nodir}"], "--log"),
    (["selfplay", "--games", "0", "--no-progress"], "--games"),
    (["selfplay", "--games", "-1", "--no-progress"], "--games"),
    (["selfplay", "--games", "x"], "--games"),
    (["selfplay", "--games", "1", "--workers", "0", "--no-progress"], "--workers"),
    (["selfplay", "--games", "1", "--workers", "-2", "--no-progress"], "--workers"),
    (["selfplay", "--games", "1", "--agents", "foo,bar", "--no-progress"], "--agents"),
    (["selfplay", "--games", "1", "--ruleset", "modern", "--no-progress"], "--ruleset"),
    (["selfplay", "--games", "1", "--max-actions", "-1", "--no-progress"], "--max-actions"),
    (["selfplay", "--games", "1", "--seed", "x"], "--seed"),
    (["selfplay", "--games", "1", "--out", "{nodir}", "--no-progress"], "--out"),
    (["selfplay", "--games", "1", "--decks", "{missing},{missing}", "--no-progress"], "missing.ydk"),
    (["selfplay", "--games", "1", "--decks", "{passcode.ydk},{deck.ydk},{junk.ydk}", "--no-progress"],
     "passcode.ydk:2"),
    (["selfplay", "--games", "1", "{deck.ydk}", "--no-progress"], "deck files follow --decks"),
    (["deck", "check", "{missing}"], "missing.ydk"),
    (["deck", "check", "{passcode.ydk}"], "passcode.ydk:2"),
    (["deck", "check", "{empty.ydk}"], "#main"),
    (["deck", "check", "{section.ydk}"], "section.ydk:3"),
    (["deck", "check", "{junk.ydk}"], "junk.ydk:1"),
    (["deck", "check", "{dir}"], "expected a .ydk deck file"),
    (["deck", "check", "{deck.ydk}", "--ruleset", "simplified"], "--ruleset"),
    (["deck", "export", "{missing}", "-o", "{dir}/out.ydk"], "missing.ydk"),
    (["deck", "export", "{names.json}", "-o", "{dir}/out.ydk"], "main[0]"),
    (["deck", "export", "{main.json}", "-o", "{dir}/out.ydk"], "main"),
    (["deck", "export", "{junk.json}", "-o", "{dir}/out.ydk"], "junk.json"),
    (["deck", "export", "{passcode.ydk}", "-o", "{dir}/out.ydk"], "passcode.ydk:2"),
    (["deck", "export", EXAMPLE, "-o", "{nodir}"], "--output"),
    (["deck", "export", EXAMPLE, "-o", "{dir}"], "--output"),
    (["deck", "export", EXAMPLE, "-o", "{dir}/out.ydk", "--player", "C"], "--player"),
    (["deck", "export", EXAMPLE, "-o", "{dir}/out.ydk", "--ruleset", "modern"], "--ruleset"),
    (["bench", "--reasoners", "oracle", "--no-puzzles"], "reasoner"),
    (["bench", "--reasoners", ",", "--no-puzzles"], "--reasoners"),
    (["bench", "--rounds", "0", "--no-puzzles"], "--rounds"),
    (["bench", "--repeats", "0", "--reasoners", "fast", "--no-puzzles"], "--repeats"),
    (["bench", "--repeats", "-3", "--reasoners", "fast", "--no-puzzles"], "--repeats"),
    (["bench", "--pellet-repeats", "1", "--reasoners", "fast", "--no-puzzles"], "--pellet-repeats"),
    (["solve", EXAMPLE, "--max-nodes", "0"], "--max-nodes"),
    (["solve", EXAMPLE, "--max-nodes", "x"], "--max-nodes"),
    (["solve", EXAMPLE, "--timeout", "-1"], "--timeout"),
    (["solve", EXAMPLE, "--timeout", "nan"], "--timeout"),
    (["solve", EXAMPLE, "--timeout", "0"], "--timeout"),
    (["solve", "{missing}"], "missing.ydk"),
    (["explain", EXAMPLE, "foo@@"], "foo@@"),
    (["explain", EXAMPLE, ""], "action"),
    (["explain", EXAMPLE, '{"type": 1}'], "action.type"),
    (["explain", EXAMPLE, '{"type": "normal_summon", "card": "No Such Card"}'], "action.card"),
    (["explain", EXAMPLE, "[1]"], "ACTION"),
    (["explain", EXAMPLE, '{"type": "attack"'], "ACTION"),
    (["apply", EXAMPLE, "bogus"], "bogus"),
    (["apply", EXAMPLE, '{"type": "select", "ref": {"player": "A", "area": "moon", "index": 0}}'], "action.ref.area"),
    (["apply", EXAMPLE, '{"type": "normal_summon", "card": "Red-Eyes Black Dragon", '
                        '"from": {"player": "A", "area": "hand", "index": 1.0}}'], "action.from.index"),
    (["apply", EXAMPLE, '{"type": "normal_summon", "colour": "red"}'], "colour"),
    (["apply", EXAMPLE, "declare:13"], "declare:13"),
    (["apply", EXAMPLE, "next_phase", "-o", "{nodir}"], "-o "),
    (["view", EXAMPLE, "--as", "C"], "--as"),
    (["view", EXAMPLE], "--as"),
    (["replay", "{missing}"], "missing.ydk"),
    (["replay", "{log.jsonl}"], "line 1"),
    (["replay", "{junk.json}"], "line 1"),
    (["cards", "--ruleset", "modern"], "ruleset"),
    (["export-owl", "{nodir}"], "OUTPUT"),
    (["export-owl", "{dir}/x.owl", "--state", "{junk.json}"], "junk.json"),
    (["mcp", "--http", "99999"], "--http"),
    (["mcp", "--http", "-1"], "--http"),
    (["check", "--ruleset", "modern"], "ruleset"),
    (["examples", "--copy", "{junk.json}"], "--copy"),
]


def _fill(arg: str, files: dict) -> str:
    for name, path in files.items():
        arg = arg.replace("{" + name + "}", path)
    return arg


@pytest.mark.parametrize("args, named", CASES, ids=lambda v: " ".join(v) if isinstance(v, list) else None)
def test_a_bad_option_or_argument_is_exit_2_naming_it(files, args, named):
    code, text = _run(*(_fill(a, files) for a in args))
    assert code == 2, text
    assert named in text, text


@pytest.mark.parametrize("action", ["normal_summon@A.hand0", "normal_summon@B.hand0", "attack@A.mz0>B.mz0"])
def test_a_well_formed_action_the_state_does_not_allow_is_exit_1_naming_it(action):
    for command in ("apply", "explain"):
        code, text = _run(command, EXAMPLE, action)
        assert code == 1, (command, text)
        assert action in text or command == "explain", text
