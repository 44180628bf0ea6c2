"""A fuzzer of bad input: malformed states, actions and duel logs, made by a
fixed-seed generator from the example and scenario states and a short real duel log.

Every input goes through the CLI (in-process, typer's CliRunner; two through a real process)
and must give exit 2 with a message naming the file and the field (or the line of a log):
never a traceback, never exit 1 (a rules refusal), never a hang (each run has a time limit).
Random mutations (a value replaced by junk) may happen to give a valid state; those may
exit 0, and the test checks that most mutations are refused.
"""
from __future__ import annotations

import json
import random
import signal
import subprocess
import sys
import time
from contextlib import contextmanager
from pathlib import Path

import pytest
from typer.testing import CliRunner

from ygo_onto import GameState
from ygo_onto.cards import catalog
from ygo_onto.cli import app

ROOT = Path(__file__).resolve().parent.parent
SEED = 20261123
CASE_SECONDS = 20  # one CLI run on bad input: anything near this is a hang
runner = CliRunner()

JUNK = [None, "x", "", 1.5, -1, 2**31, -(2**31) - 1, 10**18, True, [], [1], {}, {"k": 1}]
HUGE = "9" * 5000  # Python refuses to read integers of 4,300+ digits


def _path(parts) -> str:
    out = ""
    for part in parts:
        out += f"[{part}]" if isinstance(part, int) else (f".{part}" if out else str(part))
    return out


def base_states(rng: random.Random, n: int = 24) -> list[tuple[str, dict]]:
    """The examples and a sample of scenario states, those with a chain or a pending action first."""
    states = [(p.stem, json.loads(p.read_text())) for p in sorted((ROOT / "examples").glob("*.json"))]
    states = [(name, s) for name, s in states if isinstance(s, dict) and s.get("format")]
    scenarios = []
    for p in sorted((ROOT / "tests" / "scenarios").glob("*/*.json")):
        data = json.loads(p.read_text())
        if isinstance(data.get("state"), dict):
            scenarios.append((p.stem, data["state"]))
    special = [x for x in scenarios if x[1].get("chain") or x[1].get("pending") or "equipped_to" in json.dumps(x[1])]
    rng.shuffle(special)
    rest = [x for x in scenarios if x not in special]
    rng.shuffle(rest)
    # with every default written out, so that every field is there to be broken
    return [(name, GameState.from_dict(s).to_dict()) for name, s in states + special[: n // 2] + rest[: n // 2]]


def nodes(value, path=()):
    """Every (path, value) under a JSON value, the value itself first."""
    yield path, value
    if isinstance(value, dict):
        for k, v in value.items():
            yield from nodes(v, (*path, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            yield from nodes(v, (*path, i))


def get(value, path):
    for part in path:
        value = value[part]
    return value


def put(value, path, new):
    get(value, path[:-1])[path[-1]] = new


def in_free_extra(path) -> bool:
    """Inside an `extra` object (free content), or a key the engine itself reads there."""
    return "extra" in path[:-1] or (path and path[-1] == "extra")


@contextmanager
def time_limit(seconds: int, what: str):
    def hang(signum, frame):
        raise TimeoutError(f"{what}: still running after {seconds} s (a hang)")

    old = signal.signal(signal.SIGALRM, hang)
    signal.alarm(seconds)
    try:
        yield
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)


def run(args: list[str], what: str):
    t0 = time.perf_counter()
    with time_limit(CASE_SECONDS, what):
        result = runner.invoke(app, args)
    if result.exception is not None and not isinstance(result.exception, SystemExit):
        raise AssertionError(f"{what}: {type(result.exception).__name__}: {result.exception} (a traceback)") from result.exception
    assert "Traceback" not in result.output, what
    return result, time.perf_counter() - t0


def expect_bad(args: list[str], what: str, *needles: str):
    """Exit 2 and every needle in the message."""
    result, seconds = run(args, what)
    assert result.exit_code == 2, f"{what}: exit {result.exit_code}, expected 2: {result.output[-600:]}"
    for needle in needles:
        assert needle in result.output, f"{what}: the message does not name {needle!r}: {result.output[-600:]}"
    assert len(result.output) < 2000, f"{what}: a message of {len(result.output)} characters"
    return result, seconds


class Files:
    def __init__(self, root: Path):
        self.root = root
        self.n = 0

    def write(self, content, suffix=".json") -> str:
        self.n += 1
        path = self.root / f"case{self.n}{suffix}"
        if isinstance(content, bytes):
            path.write_bytes(content)
        elif isinstance(content, str):
            path.write_text(content, encoding="utf-8")
        else:
            path.write_text(json.dumps(content), encoding="utf-8")
        return str(path)


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    return Files(tmp_path_factory.mktemp("fuzz"))


@pytest.fixture(scope="module")
def rng():
    return random.Random(SEED)


@pytest.fixture(scope="module")
def bases(rng):
    return base_states(rng)


# ---------------------------------------------------------------- states: targeted malformations

INT_FIELDS = ("turn", "rng_seed", "life_points", "attacks_declared", "atk_modifier", "def_modifier", "needed",
              "speed", "index", "zone", "turns")


def int_fields(state):
    return [p for p, v in nodes(state) if p and p[-1] in INT_FIELDS and type(v) is int and not in_free_extra(p)]


def test_integers_out_of_bounds_name_the_field(files, rng, bases):
    """LP, modifiers, counters, zone indexes... >= 2^31, floats and booleans where an int is meant."""
    cases = 0
    for name, base in bases:
        for path in rng.sample(int_fields(base), min(4, len(int_fields(base)))):
            state = json.loads(json.dumps(base))
            big = [2**63, -(2**63) - 1] if path[-1] == "rng_seed" else [2**31, -(2**31), 10**18, 1_000_001]
            value = rng.choice(big + [1.0, True, "7", 2.0**40])
            if path[-1] in ("turns",):  # a counter: a whole number
                value = rng.choice([2**31, -1, 1.0])
            put(state, path, value)
            f = files.write(state)
            expect_bad(["allowed", f], f"{name} {_path(path)}={value!r}", f, _path(path))
            cases += 1
    assert cases >= 40


def test_integers_python_cannot_read_name_the_field(files, rng, bases):
    for name, base in bases[:8]:
        path = rng.choice(int_fields(base))
        state = json.loads(json.dumps(base))
        put(state, path, 987654321987654321)
        f = files.write(json.dumps(state).replace("987654321987654321", HUGE))
        expect_bad(["allowed", f], f"{name} {_path(path)} of 5000 digits", f, _path(path), "5,000 digits")


@pytest.mark.parametrize("depth", [40, 999, 1000, 5000, 100_000])
def test_deep_nesting_names_the_field(files, rng, bases, depth):
    name, base = rng.choice(bases)
    candidates = [p for p, v in nodes(base) if p and not in_free_extra(p) and len(p) <= 4]
    for path in rng.sample(candidates, 3) + [("extra",)]:
        state = json.loads(json.dumps(base))
        put(state, path, "@@DEEP@@")
        text = json.dumps(state).replace('"@@DEEP@@"', "[" * depth + "]" * depth)
        f = files.write(text)
        for cmd in (["allowed", f], ["apply", f, "end_turn"], ["explain", f, "end_turn"]):
            expect_bad(cmd, f"{name} {_path(path)} nested {depth}", f, _path(path))


def test_not_utf8_names_the_file_and_the_field(files, rng, bases):
    for name, base in bases[:10]:
        strings = [p for p, v in nodes(base) if p and isinstance(v, str)]
        path = rng.choice(strings)
        state = json.loads(json.dumps(base))
        put(state, path, "@@BYTES@@")
        data = json.dumps(state).encode().replace(b"@@BYTES@@", rng.choice([b"\xff", b"Dark \xc3(", b"\xed\xa0\x80", b"\x80abc"]))
        f = files.write(data)
        expect_bad(["allowed", f], f"{name} {_path(path)} not UTF-8", f, _path(path), "UTF-8")
    f = files.write(b"\xff\xfe{\x00")  # UTF-16 with a byte order mark: read as UTF-16 (state-format.md), "{" alone
    expect_bad(["allowed", f], "UTF-16", f, "expected JSON")
    f = files.write(b"\xff\xfe{\x00\x00\xd8")  # UTF-16 cut inside a character
    expect_bad(["allowed", f], "bad UTF-16", f, "UTF-16")


def test_wrong_shapes_of_chain_and_pending(files, rng, bases):
    """Targets / chosen not lists, a zone that is not a valid object, an empty pending.action,
    equipped_to.zone given as 1.0; and more of the same kinds."""
    base = json.loads(json.dumps(bases[0][1]))
    link = {"card": "Trap Hole", "player": "B"}
    pend = {"action": {"type": "tribute_summon", "player": "A"}, "purpose": "tribute"}
    cases = [
        ({"chain": [{**link, "targets": 5}]}, "chain[0].targets"),
        ({"chain": [{**link, "targets": "A.mz0"}]}, "chain[0].targets"),
        ({"chain": [{**link, "targets": {"player": "A"}}]}, "chain[0].targets"),
        ({"chain": [{**link, "targets": [5]}]}, "chain[0].targets[0]"),
        ({"chain": [{**link, "targets": [{"player": "A", "area": "hand", "index": 1.0}]}]}, "chain[0].targets[0].index"),
        ({"chain": [{**link, "targets": [{"player": "A", "area": "monster_zones", "index": 5}]}]}, "chain[0].targets[0].index"),
        ({"chain": [{**link, "zone": 3}]}, "chain[0].zone"),
        ({"chain": [{**link, "zone": "spell_trap_zones"}]}, "chain[0].zone"),
        ({"chain": [{**link, "zone": {}}]}, "chain[0].zone"),
        ({"chain": [{**link, "zone": {"area": "nowhere", "index": 0}}]}, "chain[0].zone.area"),
        ({"chain": [{**link, "zone": {"area": "spell_trap_zones", "index": 1.0}}]}, "chain[0].zone.index"),
        ({"chain": [{**link, "zone": {"area": "spell_trap_zones", "index": 2**31}}]}, "chain[0].zone.index"),
        ({"chain": [{**link, "zone": {"area": "hand", "index": 0}}]}, "chain[0].zone.area"),
        ({"chain": [{**link, "speed": 1.0}]}, "chain[0].speed"),
        ({"chain": [{**link, "speed": True}]}, "chain[0].speed"),
        ({"chain": [{**link, "card": 7}]}, "chain[0].card"),
        ({"chain": [{**link, "extra": {"summon_position": "sideways"}}]}, "chain[0].extra.summon_position"),
        ({"chain": {"0": link}}, "chain"),
        ({"chain": [link] * 151}, "chain"),
        ({"pending": {**pend, "chosen": 3}}, "pending.chosen"),
        ({"pending": {**pend, "chosen": "A.mz0"}}, "pending.chosen"),
        ({"pending": {**pend, "chosen": [{"player": "A", "area": "monster_zones", "index": 9}]}}, "pending.chosen[0].index"),
        ({"pending": {**pend, "action": {}}}, "pending.action.type"),
        ({"pending": {**pend, "action": []}}, "pending.action"),
        ({"pending": {**pend, "action": "tribute_summon@A.hand0"}}, "pending.action"),
        ({"pending": {**pend, "action": {"type": "tribute_summon", "from": {"player": "A"}}}}, "pending.action.from"),
        ({"pending": {**pend, "action": {"type": "tribute_summon", "to": 1}}}, "pending.action.to"),
        ({"pending": {**pend, "action": {"type": "activate", "effect": 2**40}}}, "pending.action.effect"),
        ({"pending": {**pend, "needed": 2**31}}, "pending.needed"),
        ({"pending": {**pend, "needed": 1.0}}, "pending.needed"),
        ({"pending": {"purpose": "tribute"}}, "pending.action"),
        ({"pending": []}, "pending"),
        ({"extra": {"properly_summoned": {"A": "Dark Magician"}}}, "extra.properly_summoned.A"),
        ({"extra": {"properly_summoned": {"C": []}}}, "extra.properly_summoned.C"),
        ({"extra": []}, "extra"),
    ]
    monster = {"card": "Dark Magician"}
    axe = {"card": "Axe of Despair"}
    zone_cases = [
        ("spell_trap_zones", 0, {**axe, "equipped_to": {"player": "A", "zone": 1.0}}, "equipped_to.zone"),
        ("spell_trap_zones", 0, {**axe, "equipped_to": {"player": "A", "zone": True}}, "equipped_to.zone"),
        ("spell_trap_zones", 0, {**axe, "equipped_to": {"player": "A", "zone": 5}}, "equipped_to.zone"),
        ("spell_trap_zones", 0, {**axe, "equipped_to": {"player": "A"}}, "equipped_to.zone"),
        ("spell_trap_zones", 0, {**axe, "equipped_to": [0]}, "equipped_to"),
        ("monster_zones", 0, {**monster, "counters": {"turns": 1.0}}, "counters.turns"),
        ("monster_zones", 0, {**monster, "counters": []}, "counters"),
        ("monster_zones", 0, {**monster, "extra": {"attack": {"target": {"player": "B", "area": "mz", "index": 0}}}},
         "extra.attack.target.area"),
        ("monster_zones", 0, {**monster, "extra": {"attack": 5}}, "extra.attack"),
        ("monster_zones", 0, {**monster, "extra": {"attack": {"damage_step": "yes"}}}, "extra.attack.damage_step"),
        ("monster_zones", 0, {**monster, "extra": {"just_summoned": "magic"}}, "extra.just_summoned"),
        ("monster_zones", 0, {**monster, "extra": {"summon_position": 0}}, "extra.summon_position"),
        ("monster_zones", 0, {**monster, "extra": {"effect_declined": 1}}, "extra.effect_declined"),
        ("monster_zones", 0, {**monster, "extra": {"destroyed_by_battle": "yes"}}, "extra.destroyed_by_battle"),
        ("monster_zones", 0, {**monster, "extra": {"destroyed_by_battle": True}}, "extra.destroyed_by_battle"),
        ("monster_zones", 0, {**monster, "extra": {"locked_zones": [5]}}, "extra.locked_zones[0]"),
        ("monster_zones", 0, {**monster, "extra": {"locked_zones": [1, 1]}}, "extra.locked_zones"),
        ("monster_zones", 0, {**monster, "extra": {"locked_zones": 2}}, "extra.locked_zones"),
        ("monster_zones", 0, {**monster, "card": "x" * 100_000}, "monster_zones[0].card"),
        ("monster_zones", 0, {**monster, "summoned_by": None}, "monster_zones[0].summoned_by"),
    ]
    for key_values, needle in cases:
        state = {**base, **key_values}
        f = files.write(state)
        for cmd in (["allowed", f], ["apply", f, "end_turn"]):
            expect_bad(cmd, needle, f, needle)
    for area, i, card, needle in zone_cases:
        state = json.loads(json.dumps(base))
        state["players"]["A"][area] = [None] * 5
        state["players"]["A"][area][i] = card
        f = files.write(state)
        expect_bad(["allowed", f], needle, f, f"players.A.{area}[{i}]", needle)


def test_card_counts_that_cannot_occur_fail_fast(files, rng, bases):
    """At most 60 cards in the deck, 15 in the Extra Deck, the zone limits, and the hand/graveyard bounds
    (docs/decisions.md); a 4-million-card state fails in about the time it takes to read it."""
    cat = catalog("official")
    main = [c.name for c in cat if not c.extra_deck]
    extra = [c.name for c in cat if c.extra_deck]
    name, base = bases[0]
    cases = [
        ("deck", [main[0]] * 61), ("hand", [main[1]] * 61), ("graveyard", [main[2]] * 76),
        ("banished", [main[3]] * 76), ("extra_deck", [extra[0]] * 16),
        ("monster_zones", [None] * 6), ("spell_trap_zones", [None] * 4), ("monster_zones", [None] * 100_000),
    ]
    for area, value in cases:
        state = json.loads(json.dumps(base))
        state["players"]["B"][area] = value
        f = files.write(state)
        expect_bad(["allowed", f], f"{area} of {len(value)}", f, f"players.B.{area}")
    state = json.loads(json.dumps(base))  # 60 + 16: each area within its bound, but more cards than a player owns
    state["players"]["A"].update(deck=[main[0]] * 60, hand=[], graveyard=[main[1]] * 16, banished=[], extra_deck=[])
    f = files.write(state)
    expect_bad(["allowed", f], "76 cards owned", f, "players.A", "owned")
    state = json.loads(json.dumps(base))
    state["players"]["A"]["deck"] = [main[0]] * 4_000_000
    f = files.write(state)
    _, seconds = expect_bad(["allowed", f], "4 million cards", f, "players.A.deck", "at most 60")
    assert seconds < CASE_SECONDS / 2
    state = json.loads(json.dumps(base))
    state["extra"] = {"notes": list(range(1_000_000))}
    f = files.write(state)
    expect_bad(["allowed", f], "a million values in extra", f, "extra.notes")


# ---------------------------------------------------------------- states: random mutations

def test_random_mutations_exit_0_or_2_naming_the_field(files, rng, bases):
    """A random value replaced by junk, a random key added, a random entry deleted: either the state is
    still valid (exit 0), or exit 2 naming the file and the changed field."""
    refused = total = 0
    for round_ in range(6):
        for name, base in bases:
            all_nodes = [p for p, _ in nodes(base) if p]
            path = rng.choice(all_nodes)
            state = json.loads(json.dumps(base))
            kind = rng.choice(["junk", "junk", "junk", "key", "delete"])
            if kind == "junk":
                value = rng.choice(JUNK)
                put(state, path, value)
                needle = _path(path)
            elif kind == "key":
                dicts = [p for p, v in nodes(state) if isinstance(v, dict)]
                path = rng.choice(dicts)
                get(state, path)["zzz_unknown"] = 1
                needle = _path((*path, "zzz_unknown"))
            else:
                parent = get(state, path[:-1])
                if isinstance(parent, list):
                    parent.pop(path[-1])
                    needle = _path(path[:-1])
                else:
                    del parent[path[-1]]
                    needle = _path(path) if path[-1] in ("card", "player", "format", "players", "A", "B", "action",
                                                         "purpose", "area", "index", "zone") else _path(path[:-1])
            f = files.write(state)
            what = f"{name} round {round_}: {kind} {_path(path)}"
            result, _ = run(["allowed", f], what)
            total += 1
            if result.exit_code == 0:
                continue
            refused += 1
            assert result.exit_code == 2, f"{what}: exit {result.exit_code}: {result.output[-600:]}"
            assert f in result.output, f"{what}: the message does not name the file: {result.output[-600:]}"
            if not in_free_extra(path):
                assert needle in result.output or (needle.rsplit(".", 1)[0] in result.output), \
                    f"{what}: the message does not name {needle!r}: {result.output[-600:]}"
    assert refused >= total // 2, f"only {refused} of {total} mutations refused: the fuzzer is not biting"


# ---------------------------------------------------------------- actions

@pytest.mark.parametrize("action,needle", [
    ('{"type": "select", "ref": {"player": "A", "area": "hand", "index": 2147483648}}', "action.ref"),
    ('{"type": "select", "ref": {"player": "A", "area": "hand", "index": 1.0}}', "action.ref"),
    ('{"type": "select", "ref": {"player": "A", "area": "hand", "index": -1}}', "action.ref"),
    ('{"type": "activate", "card": "Dark Hole", "effect": ' + HUGE + '}', "action.effect"),
    ('{"type": "activate", "card": "Dark Hole", "effect": 4294967296}', "action.effect"),
    ('{"type": "activate", "card": "Dark Hole", "effect": NaN}', "action.effect"),
    ('{"type": "activate", "card": "Dark Hole", "effect": 1e999}', "action.effect"),
    ('{"type": "activate", "card": ' + "[" * 3000 + "]" * 3000 + '}', "card"),
    ('{"type": "activate", "card": ' + "[" * 100 + "]" * 100 + '}', "action.card"),
    ('{"type": "activate", "card": "' + "x" * 100_000 + '"}', "action.card"),
    ('{"type": 5}', "action.type"),
    ('{}', "action.type"),
    ('"end_turn"', "ACTION"),
    ('null', "action id"),
    ('{"type": "end_turn"', "ACTION"),
])
def test_malformed_action_objects_name_the_key(action, needle):
    for command in ("apply", "explain"):
        expect_bad([command, str(ROOT / "examples" / "main1-tribute.json"), action], f"{command} {action[:40]}", needle)


@pytest.mark.parametrize("action_id", ["select@A.hand" + "9" * 5000, "attack@A.mz0>B.mz" + "1" * 40, "nonsense@@"])
def test_malformed_action_ids_in_explain(action_id):
    expect_bad(["explain", str(ROOT / "examples" / "main1-tribute.json"), action_id], action_id[:20], "action")


# ---------------------------------------------------------------- output paths

def test_output_into_a_missing_directory_fails_before_work(tmp_path):
    example = str(ROOT / "examples" / "main1-tribute.json")
    missing = tmp_path / "no" / "such" / "dir"
    expect_bad(["apply", example, "end_turn", "-o", str(missing / "next.json")], "apply -o", str(missing), "-o")
    expect_bad(["apply", example, "end_turn", "-o", str(tmp_path)], "apply -o a directory", str(tmp_path))
    result, seconds = expect_bad(["duel", "--seed", "1", "--log", str(missing / "duel.jsonl")], "duel --log",
                                 str(missing), "--log")
    assert "Turn" not in result.output and seconds < 5, "the duel was played before the log path was checked"
    expect_bad(["export-owl", str(missing / "x.owl")], "export-owl", str(missing))


# ---------------------------------------------------------------- duel logs

@pytest.fixture(scope="module")
def duel_log(tmp_path_factory):
    path = tmp_path_factory.mktemp("log") / "duel.jsonl"
    result, _ = run(["duel", "--ruleset", "simplified", "--seed", "4", "--max-actions", "8", "--log", str(path)], "duel")
    assert result.exit_code == 0, result.output
    lines = path.read_text().splitlines()
    assert len(lines) == 10 and json.loads(lines[-1]) == {"end": {"actions": 8, "winner": None}}
    return lines


def test_a_whole_log_replays(files, duel_log):
    f = files.write("\n".join(duel_log) + "\n", ".jsonl")
    result, _ = run(["replay", f], "replay")
    assert result.exit_code == 0 and "8 actions replayed" in result.output, result.output


def test_malformed_logs_name_the_line(files, rng, duel_log):
    lines = list(duel_log)
    for keep in (1, 2, 5, 9):  # cut at a line boundary: before the end record
        f = files.write("\n".join(lines[:keep]) + "\n", ".jsonl")
        expect_bad(["replay", f], f"cut after {keep} lines", f, "cut short", f"line {keep}")
    for n in (2, 6, 10):  # cut inside a line
        text = "\n".join(lines[:n - 1] + [lines[n - 1][: len(lines[n - 1]) // 2]])
        f = files.write(text, ".jsonl")
        expect_bad(["replay", f], f"cut inside line {n}", f, f"line {n}", "cut short")
    for junk in ("[1, 2]", "5", '"x"', "null", "true"):
        n = rng.randrange(2, len(lines) + 1)
        f = files.write("\n".join(lines[: n - 1] + [junk] + lines[n:]), ".jsonl")
        expect_bad(["replay", f], f"line {n} is {junk}", f, f"line {n}", "a JSON object")
    n = rng.randrange(2, len(lines))
    data = "\n".join(lines).encode().split(b"\n")
    data[n - 1] = data[n - 1].replace(b'"type"', b'"ty\xffpe"', 1)
    f = files.write(b"\n".join(data), ".jsonl")
    expect_bad(["replay", f], f"line {n} not UTF-8", f, f"line {n}", "UTF-8")
    start = json.loads(lines[0])
    for path, value in [(("start", "players", "A", "life_points"), 2**31), (("start", "turn"), 1.0),
                        (("start", "players", "B", "deck"), ["Kuriboh"] * 61), (("start",), [])]:
        rec = json.loads(json.dumps(start))
        put(rec, path, value)
        f = files.write("\n".join([json.dumps(rec)] + lines[1:]), ".jsonl")
        expect_bad(["replay", f], f"start {_path(path)}", f, "line 1", _path(path[1:]) if len(path) > 1 else "start")
    for field, value, needle in [("action", {"type": "select", "ref": "A.hand0"}, "action.ref"),
                                 ("action", {"type": "fly"}, "action.type"), ("action", 5, "action"),
                                 ("action", {"type": "activate", "effect": 10**30}, "action.effect")]:
        n = rng.randrange(2, len(lines))
        rec = json.loads(lines[n - 1])
        rec[field] = value
        f = files.write("\n".join(lines[: n - 1] + [json.dumps(rec)] + lines[n:]), ".jsonl")
        expect_bad(["replay", f], f"line {n} {field}={value!r}", f, f"line {n}", needle)
    n = rng.randrange(2, len(lines))
    f = files.write("\n".join(lines[: n - 1] + ['{"step": 1}'] + lines[n:]), ".jsonl")
    expect_bad(["replay", f], "no action", f, f"line {n}", "action")
    f = files.write("\n".join(lines[:-1] + ['{"end": {"actions": 99, "winner": null}}']), ".jsonl")
    expect_bad(["replay", f], "end.actions", f, "end.actions")
    f = files.write("\n".join(lines + [lines[-2]]), ".jsonl")
    expect_bad(["replay", f], "after the end", f, f"line {len(lines) + 1}")
    n = rng.randrange(2, len(lines))
    f = files.write("\n".join(lines[: n - 1] + ['{"action": ' + "[" * 2000 + "]" * 2000 + "}"] + lines[n:]), ".jsonl")
    expect_bad(["replay", f], "deep line", f, f"line {n}", "nested")
    f = files.write("", ".jsonl")
    expect_bad(["replay", f], "empty log", f)
    expect_bad(["replay", str(Path(f).parent / "missing.jsonl")], "missing log", "missing.jsonl")


def test_a_crashed_duel_leaves_its_log_and_replays_to_the_error(files, duel_log):
    """duel --log writes what was played, then the error; replay reproduces the error."""
    lines = list(duel_log)
    rec = json.loads(lines[4])
    end = {"end": {"actions": 3, "error": "internal: a test error", "action": rec["action"]}}
    f = files.write("\n".join(lines[:4] + [json.dumps(end)]), ".jsonl")
    result, _ = run(["replay", f], "replay of a crash that does not happen again")
    assert result.exit_code == 1 and "a test error" in result.output, result.output


# ---------------------------------------------------------------- the real entry point

def test_the_console_entry_point_exits_2_without_a_traceback(files, bases):
    name, base = bases[0]
    f1 = files.write(json.dumps(base).encode().replace(b'"format"', b'"for\xffmat"'))
    f2 = files.write("[" * 100_000 + "]" * 100_000)
    for f in (f1, f2):
        with time_limit(60, f):
            proc = subprocess.run([sys.executable, "-m", "ygo_onto", "allowed", f], capture_output=True, text=True,
                                  timeout=60)
        assert proc.returncode == 2 and "Traceback" not in proc.stderr and f in proc.stderr, proc.stderr[-600:]
