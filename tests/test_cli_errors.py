"""Input that once raised an internal error or ran without end: action ids, an attack's target, a reasoner
run past its budget, Ctrl-C.  Each is exit 2 (or 130 for Ctrl-C) with one line naming what is wrong."""
from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from cli_runner import cli
from ygo_onto import GameState
from ygo_onto.errors import ReasonerError, StateError
from ygo_onto.state import read_json_file

EXAMPLE = Path(__file__).resolve().parent.parent / "examples" / "main1-tribute.json"


def test_a_bare_next_phase_goes_to_the_next_phase():
    code, text = cli("apply", EXAMPLE, "next_phase")
    assert code == 0, text
    after = json.loads(text)
    assert after["phase"] == "battle"  # main1-tribute.json is in Main Phase 1 of turn 3: the next phase in order
    code, text = cli("explain", EXAMPLE, "next_phase")
    assert code == 0 and "allowed" in text, text


@pytest.mark.parametrize("action_id, named", [
    ("next_phase@A.hand0", "card reference"),
    ("next_phase:lunch", "a phase"),
    ("pass:attack", "takes no `to`"),
    ("end_turn@A.mz0", "card reference"),
    ("normal_summon@A.hand0>B.mz0", "only in an attack"),
    ("normal_summon@A.hand0:upside_down", '"attack", "defense"'),
    ("normal_summon@A.hand999999", "from 0 to 59 in hand"),  # an index past its area, as for an object's reference
    ("attack@A.mz0>B.mz9", "from 0 to 4 in mz"),
])
def test_an_id_part_its_type_does_not_take_is_bad_input(action_id, named):
    for command in ("apply", "explain"):
        code, text = cli(command, EXAMPLE, action_id)
        assert code == 2, (command, text)
        assert action_id in text and named in text, text
        assert "internal" not in text, text


def _attacking_state(target) -> dict:
    """Battle Phase of turn 3: A's Dark Magician attacks `target`; B holds priority with a Set Mirror Force."""
    return {"format": "ygo-onto.state/1", "ruleset": "official", "turn": 3, "turn_player": "A", "phase": "battle",
            "priority": "B",
            "players": {"A": {"deck": ["Feral Imp"] * 3,
                              "monster_zones": [{"card": "Dark Magician", "attacks_declared": 1,
                                                "extra": {"attack": {"target": target}}},
                                                None, None, None, None]},
                        "B": {"deck": ["Feral Imp"] * 3, "hand": ["Celtic Guardian"],
                              "monster_zones": [{"card": "Celtic Guardian"}, None, None, None, None],
                              "spell_trap_zones": [{"card": "Mirror Force", "position": "face_down"},
                                                   None, None, None, None]}}}


@pytest.mark.parametrize("target, field", [
    ({"player": "B", "area": "hand", "index": 0}, "extra.attack.target.area"),  # a card in the hand: no monster
    ({"player": "B", "area": "monster_zones", "index": 3}, "extra.attack.target"),  # an empty zone
    ({"player": "B", "area": "monster_zones"}, "extra.attack.target"),  # not a card reference
])
def test_an_attack_target_that_is_no_monster_is_bad_input(tmp_path, target, field):
    path = tmp_path / "attack.json"
    path.write_text(json.dumps(_attacking_state(target)), encoding="utf-8")
    for args in (("allowed", path), ("apply", path, "pass"), ("apply", path, "select@B.mz0"),
                 ("apply", path, "activate@B.stz0")):
        code, text = cli(*args)
        assert code == 2, (args, text)
        assert f"players.A.monster_zones[0].{field}" in text, text
        assert "internal" not in text and "Token" not in text, text


def test_an_attack_on_a_monster_loads():
    state = GameState.from_dict(_attacking_state({"player": "B", "area": "monster_zones", "index": 0}))
    assert {a.id for a in state.allowed_actions("fast")} == {"activate@B.stz0", "pass"}


def test_a_fast_run_past_its_budget_is_a_clean_error(monkeypatch):
    data = read_json_file(EXAMPLE)
    data["players"]["A"]["life_points"] = 1234  # a state not reasoned about yet in this process (none is cached)
    state = GameState.from_dict(data)
    monkeypatch.setenv("YGO_FAST_MAX_ATOMS", "50")  # a state's model has hundreds of atoms
    with pytest.raises(ReasonerError, match="did not reach its fixpoint within its budget of 50 atoms"):
        state.allowed_actions("fast")
    monkeypatch.delenv("YGO_FAST_MAX_ATOMS")
    # the engine is whole after the stopped run: the same state's answer, as in a fresh process
    again = GameState.from_dict(read_json_file(EXAMPLE))
    assert "tribute_summon@A.hand0" in {a.id for a in again.allowed_actions("fast")}


def test_the_budget_on_the_command_line(monkeypatch, tmp_path):
    data = read_json_file(EXAMPLE)
    data["players"]["B"]["life_points"] = 4321  # a state not reasoned about yet in this process (none is cached)
    path = tmp_path / "state.json"
    path.write_text(json.dumps(data), encoding="utf-8")
    monkeypatch.setenv("YGO_FAST_MAX_ATOMS", "50")
    code, text = cli("allowed", path)
    assert code == 2 and "YGO_FAST_MAX_ATOMS" in text and "fixpoint" in text, text
    monkeypatch.setenv("YGO_FAST_MAX_ATOMS", "lots")
    code, text = cli("allowed", path)
    assert code == 2 and "YGO_FAST_MAX_ATOMS: expected an integer" in text, text


@pytest.mark.pellet
def test_a_pellet_run_past_its_budget_is_a_clean_error(monkeypatch):
    monkeypatch.setenv("YGO_PELLET_TIMEOUT", "0.2")  # Java does not even start in that time
    state = GameState.from_dict(read_json_file(EXAMPLE))
    started = time.monotonic()
    with pytest.raises(ReasonerError, match=r"within its budget of 0.2 s \(YGO_PELLET_TIMEOUT\)"):
        state.allowed_actions("pellet")
    assert time.monotonic() - started < 30
    monkeypatch.setenv("YGO_PELLET_TIMEOUT", "-1")
    with pytest.raises(StateError, match="YGO_PELLET_TIMEOUT: expected a number of seconds"):
        GameState.from_dict(read_json_file(EXAMPLE)).allowed_actions("pellet")


@pytest.mark.pellet
def test_a_pellet_jvm_run_past_its_budget_is_a_clean_error(monkeypatch):
    """YGO_PELLET_TIMEOUT bounds the warm JVM's Pellet too (Pellet's own interruption), and the JVM answers the
    next run as before."""
    pytest.importorskip("jpype")
    data = read_json_file(EXAMPLE)
    GameState.from_dict(data).allowed_actions("pellet-jvm")  # the JVM started and Pellet loaded: not in the budget
    data["players"]["A"]["life_points"] = 2345  # a state not reasoned about yet in this process (none is cached)
    monkeypatch.setenv("YGO_PELLET_TIMEOUT", "0.01")
    started = time.monotonic()
    with pytest.raises(ReasonerError, match=r"pellet-jvm: .*within its budget of 0.01 s \(YGO_PELLET_TIMEOUT\)"):
        GameState.from_dict(data).allowed_actions("pellet-jvm")
    assert time.monotonic() - started < 30
    monkeypatch.delenv("YGO_PELLET_TIMEOUT")
    data["players"]["A"]["life_points"] = 2346
    assert "tribute_summon@A.hand0" in {a.id for a in GameState.from_dict(data).allowed_actions("pellet-jvm")}


def test_every_reasoner_the_cli_offers_is_bounded_or_refuses_at_once():
    """Each `--reasoner` choice either has a budget (fast: YGO_FAST_MAX_ATOMS; pellet, pellet-jvm:
    YGO_PELLET_TIMEOUT, tested above) or never runs the rules (hermit refuses them at once)."""
    from ygo_onto import reasoning

    assert set(reasoning.names()) == {"fast", "pellet", "pellet-jvm", "hermit"}, "a new reasoner: give it a budget"
    started = time.monotonic()
    with pytest.raises(ReasonerError, match="hermit: HermiT refuses SWRL rules with builtin atoms"):
        GameState.from_dict(read_json_file(EXAMPLE)).allowed_actions("hermit")
    assert time.monotonic() - started < 30


def _interrupt(args: list[str], tmp_path: Path, after: float = 8.0, child: bool = False):
    """Run `ygo-onto ARGS`, send it SIGINT after `after` seconds (child: once it has started a child process, as
    Pellet's Java), and return (the finished process, the child processes it had)."""
    env = {**os.environ, "COLUMNS": "200"}
    env.pop("YGO_DEBUG", None)
    proc = subprocess.Popen([sys.executable, "-m", "ygo_onto", *args], cwd=tmp_path, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    deadline = time.monotonic() + (120 if child else after)
    children: list[str] = []
    while time.monotonic() < deadline and proc.poll() is None:
        time.sleep(0.2)
        if child:
            children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
            if children:
                time.sleep(0.5)
                break
    assert proc.poll() is None, "the command ended before it was interrupted: give it more to do"
    if not children:
        children = subprocess.run(["pgrep", "-P", str(proc.pid)], capture_output=True, text=True).stdout.split()
    proc.send_signal(signal.SIGINT)
    out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(proc.args, proc.returncode, out, err), children


@pytest.mark.parametrize("args", [
    ["selfplay", "--games", "500", "--workers", "1", "--no-progress"],  # in the middle of a batch
    ["selfplay", "--games", "2000", "--workers", "2", "--no-progress"],  # while worker processes play
])
def test_ctrl_c_ends_a_command_with_130_and_one_line(tmp_path, args):
    done, children = _interrupt(args, tmp_path)
    assert done.returncode == 130, (done.returncode, done.stderr[-2000:])
    assert "Traceback" not in done.stderr and "Traceback" not in done.stdout, done.stderr[-2000:]
    assert done.stderr.strip().splitlines()[-1] == "error: interrupted (Ctrl-C)", done.stderr[-2000:]
    assert not _alive(children), "a worker process outlived the interrupted command"


def _alive(pids: list[str]) -> list[str]:
    time.sleep(1)
    return [pid for pid in pids if Path(f"/proc/{pid}").exists()
            and "zombie" not in Path(f"/proc/{pid}/status").read_text(errors="replace")]


@pytest.mark.pellet
def test_ctrl_c_stops_a_pellet_run_and_its_java(tmp_path):
    done, children = _interrupt(["allowed", str(EXAMPLE), "--reasoner", "pellet"], tmp_path, child=True)
    assert children, "Pellet's Java never started"
    assert done.returncode == 130, done.stderr[-2000:]
    assert "Traceback" not in done.stderr, done.stderr[-2000:]
    assert not _alive(children), "Java outlived the interrupted command"
