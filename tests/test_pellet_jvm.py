"""pellet-jvm (Pellet in one warm JVM, reasoning/pellet_jvm.py) against the reference `pellet`
(owlready2's sync_reasoner_pellet, a new Java process per call) and against `fast`.

The states: scenario start states and the states their steps lead to (played with `fast`),
chosen so that some have a chain, a pending selection and an attack being resolved.  Facts are
compared with their Python types (True is not 1).  Marked `pellet`: the reference costs seconds
per state.  The timings are printed (pytest -s, or -rP).
"""
from __future__ import annotations

import json
import statistics
import time
from pathlib import Path

import pytest

from ygo_onto import GameState
from ygo_onto.abox import state_facts
from ygo_onto.errors import ReasonerError, YgoError
from ygo_onto.knowledge import knowledge
from ygo_onto.reasoning import get, names
from ygo_onto.reasoning.pellet_jvm import abox_ntriples, literal_value

pytestmark = pytest.mark.pellet

SCENARIOS = Path(__file__).parent / "scenarios"
# scenario -> how many of its steps to play (each intermediate state is a case)
# scenario -> how many of its steps to play (each intermediate state is a case); 8 cases, each through the reference
# Pellet (a new Java process, seconds per call) once and pellet-jvm twice
PLAYED = {
    "official/chain-rulebook-example": 3,          # a chain of 1, 2, 3 links; Magic Jammer's discard pending
    "official/attack-window-pass-goes-to-damage": 1,  # an attack in its response window
    "simplified/sacrifice-two-for-level-7-8": 1,   # a pending tribute selection
}
MIN_CASES = 8
XSD = "http://www.w3.org/2001/XMLSchema#"


def typed(facts) -> set[tuple]:
    return {tuple((type(x).__name__, x) for x in f) for f in facts}


def difference(got, expected, got_name: str, expected_name: str) -> str:
    a, b = typed(got), typed(expected)
    only_got = sorted((tuple(x for _, x in f) for f in a - b), key=repr)
    only_expected = sorted((tuple(x for _, x in f) for f in b - a), key=repr)
    return (f"{got_name} only ({len(only_got)}): {only_got}\n"
            f"{expected_name} only ({len(only_expected)}): {only_expected}")


def kind(data: dict) -> set[str]:
    out = set()
    if data["chain"]:
        out.add("chain")
    if data["pending"]:
        out.add("pending")
    if any(fc and fc["extra"].get("attack") for side in data["players"].values() for fc in side["monster_zones"]):
        out.add("battle")
    return out


def build_cases() -> list[tuple[str, str, list, set]]:
    """(name, ruleset, ABox facts, kinds) for each distinct state."""
    cases, seen = [], set()
    for scenario, n_steps in PLAYED.items():
        path = SCENARIOS / f"{scenario}.json"
        if not path.is_file():  # scenarios come and go; test_cases_cover_chain_pending_and_battle guards
            continue
        sc = json.loads(path.read_text(encoding="utf-8"))
        state = GameState.from_dict(sc["state"], source=str(path))
        states = [state]
        try:
            for step in sc.get("steps", [])[:n_steps]:
                state = state.apply(step, "fast")
                states.append(state)
        except YgoError:  # the rules changed under the scenario: keep the states reached
            pass
        for i, st in enumerate(states):
            facts = state_facts(st.data, lean=True)
            key = (st.ruleset, frozenset(typed(facts)))
            if key not in seen:
                seen.add(key)
                cases.append((f"{scenario}#{i}", st.ruleset, facts, kind(st.data)))
    return cases


CASES = build_cases()


@pytest.fixture(scope="module")
def results():
    """Every case through the three backends once; pellet-jvm twice (the second pass warm, timed)."""
    pellet, jvm, fast = get("pellet"), get("pellet-jvm"), get("fast")
    out = {"pellet": {}, "pellet-jvm": {}, "pellet-jvm again": {}, "fast": {}}
    times = {"pellet": [], "pellet-jvm first": [], "pellet-jvm": []}
    t = time.perf_counter()
    jvm.infer(knowledge(CASES[0][1]), CASES[0][2])  # starts the JVM
    start_s = time.perf_counter() - t
    for name, ruleset, facts, _ in CASES:
        k = knowledge(ruleset)
        t = time.perf_counter()
        out["pellet-jvm"][name] = jvm.infer(k, facts)
        times["pellet-jvm first"].append(time.perf_counter() - t)
    for name, ruleset, facts, _ in CASES:  # warm now: the timed pass, in the same order
        k = knowledge(ruleset)
        t = time.perf_counter()
        out["pellet-jvm again"][name] = jvm.infer(k, facts)
        times["pellet-jvm"].append(time.perf_counter() - t)
        t = time.perf_counter()
        out["pellet"][name] = pellet.infer(k, facts)
        times["pellet"].append(time.perf_counter() - t)
        out["fast"][name] = fast.infer(k, facts)
    lines = [f"pellet-jvm vs pellet on {len(CASES)} states (JVM start and first call: {start_s:.2f} s)"]
    for label, ts in times.items():
        lines.append(f"  {label:18s} per call: median {statistics.median(ts):.3f} s, mean {statistics.mean(ts):.3f} s, "
                     f"min {min(ts):.3f} s, max {max(ts):.3f} s")
    lines.append(f"  speed-up (median, warm): {statistics.median(times['pellet']) / statistics.median(times['pellet-jvm']):.1f}x")
    print("\n" + "\n".join(lines))
    out["timings"] = times
    return out


def test_backend_is_registered():
    assert "pellet-jvm" in names()


def test_cases_cover_chain_pending_and_battle():
    assert len(CASES) >= MIN_CASES, [c[0] for c in CASES]
    kinds = set().union(*(c[3] for c in CASES))
    assert {"chain", "pending", "battle"} <= kinds, kinds
    assert {c[1] for c in CASES} == {"official", "simplified"}


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_facts_as_pellet(results, case):
    name = case[0]
    got, expected = results["pellet-jvm"][name], results["pellet"][name]
    assert typed(got) == typed(expected), f"{name}:\n" + difference(got, expected, "pellet-jvm", "pellet")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_same_facts_as_fast(results, case):
    name = case[0]
    got, expected = results["pellet-jvm"][name], results["fast"][name]
    assert typed(got) == typed(expected), f"{name}:\n" + difference(got, expected, "pellet-jvm", "fast")


@pytest.mark.parametrize("case", CASES, ids=[c[0] for c in CASES])
def test_no_state_leaks_between_calls(results, case):
    """The second pass (after every other state went through the same JVM) answers as the first."""
    name = case[0]
    got, first = results["pellet-jvm again"][name], results["pellet-jvm"][name]
    assert typed(got) == typed(first), f"{name}:\n" + difference(got, first, "second call", "first call")


def test_faster_than_pellet(results):
    t = results["timings"]
    assert statistics.median(t["pellet-jvm"]) < statistics.median(t["pellet"])


def test_inconsistent_state_is_a_reasoner_error():
    """A functional data property with two values: both backends refuse the state."""
    name, ruleset, facts, _ = CASES[0]
    bad = facts + [("turnNumber", "theDuel", 99)]
    for backend in ("pellet-jvm", "pellet"):
        with pytest.raises(ReasonerError, match="inconsistent"):
            get(backend).infer(knowledge(ruleset), bad)
    # and the JVM is still fine afterwards
    assert get("pellet-jvm").infer(knowledge(ruleset), facts)


def test_abox_ntriples_types_literals_as_owlready2():
    k = knowledge("official")
    text = abox_ntriples(k, [("Duel", "theDuel"), ("turnNumber", "theDuel", 3), ("duelOver", "theDuel", False),
                             ("cardName", "x", 'Say "hi"\\ é\n')]).decode("utf-8")
    assert f'"3"^^<{XSD}integer>' in text and f'"false"^^<{XSD}boolean>' in text
    assert f'"Say \\"hi\\"\\\\ \\u00E9\\n"^^<{XSD}string>' in text
    assert text.count("NamedIndividual") == 1


def test_literal_values_read_as_the_reference_reads_them():
    """The literal text of a DATAPROPVAL line, parsed as owlready2 does, converted as pellet._value does."""
    assert literal_value(f"literal(3,(),{XSD}integer)", "integer") == (3,)
    assert literal_value(f"literal(3.0,(),{XSD}decimal)", "integer") == (3,)
    assert literal_value(f"literal(true,(),{XSD}boolean)", "boolean") == (True,)
    assert literal_value(f"literal(Dark Hole,(),{XSD}string)", "string") == ("Dark Hole",)
    assert literal_value("literal(tribute,(),http://www.w3.org/1999/02/22-rdf-syntax-ns#PlainLiteral)",
                         "string") == ("tribute",)
    assert type(literal_value(f"literal(1,(),{XSD}integer)", "integer")[0]) is int
    assert type(literal_value(f"literal(false,(),{XSD}boolean)", "boolean")[0]) is bool


def test_a_jvm_that_cannot_start_is_a_reasoner_error():
    from ygo_onto.reasoning import pellet_jvm

    class NoJvm:
        def startJVM(self, *args, **kwargs):  # noqa: N802
            raise OSError("JVM cannot be restarted")

    with pytest.raises(ReasonerError, match="did not start: JVM cannot be restarted"):
        pellet_jvm._start_jvm(NoJvm())


def test_no_jpype_is_a_reasoner_error(monkeypatch):
    import sys

    from ygo_onto.reasoning import pellet_jvm

    monkeypatch.setitem(sys.modules, "jpype", None)  # import jpype -> ImportError
    with pytest.raises(ReasonerError, match="needs JPype"):
        pellet_jvm._Pellet()
