"""The same rules, fast: the compiled backend (`fast`, clingo) must infer exactly the facts the
reference (`pellet`) infers -- all of them, with their types -- on many real reasoner inputs.

The inputs (ygo_onto.testing.differential): the official and simplified rule scenarios' start states that fire
every rule some of them fires, filled up to MIN_CASES inputs (all of them with YGO_FULL_PELLET=1), every saved failure under
tests/fixtures/differential/, and states and apply steps (a state plus the transient facts of an
action, a battle or the start of a turn) met in random duels of both rulesets played with the
fast backend; deduplicated by their ABox.  Any difference fails the Pellet test, prints the
symmetric difference, and saves the input under tests/fixtures/differential/, so later runs
(and scripts/differential.py) replay it.

The Pellet side is marked `pellet`.  It runs the unchanged reference backend in a worker
process whose Pellet runs in a JVM started once (tests/conftest.py's pellet_pool), several
inputs to a Pellet run when the fast backend shows they cannot interact; an input on which a
joined run disagrees is run again alone.  test_the_shortcuts_give_the_reference_answer checks both shortcuts against plain runs.
"""
from __future__ import annotations

import os
import time
import zlib
from pathlib import Path

import pytest

from ygo_onto.testing import differential as D

HERE = Path(__file__).parent
SCENARIOS = HERE / "scenarios"
FIXTURES = HERE / "fixtures" / "differential"

MIN_CASES = 100        # the floor for one CI run
PLAYOUT_STATES = 30    # distinct states from random duels, on top of the scenarios and fixtures
PLAYOUT_STEPS = 20     # distinct apply-step inputs (state + transient facts) from the same duels
SEED = 0               # duels SEED, SEED+1, ... (both rulesets); scripts/differential.py varies it
BATCH = 8              # inputs per joined Pellet run
SHOW = 60              # lines of difference printed per failing input
CONFIRM = 5            # differences confirmed with a plain Pellet run before they are reported


@pytest.fixture(scope="module")
def engine_errors():
    return []


def _scenario_sample(starts: list) -> list:
    """The official and simplified scenario states a default run compares with Pellet: a cover of every rule that some
    of them fires (D.covering), filled up to the run's floor of inputs (MIN_CASES) with states that can share a Pellet
    run with a chosen one (the same facts on the TBox individuals, D.signature: a run costs seconds, a state joined
    to it little), then by a checksum of the name; every one with YGO_FULL_PELLET=1.  The goat scenarios' are
    tests/test_goat_reasoners.py's (every input of their steps)."""
    chosen = D.covering(starts)
    if len(chosen) == len(starts):
        return chosen
    joinable = {D.signature(c, D.fast_facts(c)[0]) for c in chosen if D.fast_facts(c)[1] is None}
    taken = {id(c) for c in chosen}
    rest = sorted((c for c in starts if id(c) not in taken),
                  key=lambda c: (D.fast_facts(c)[1] is not None or D.signature(c, D.fast_facts(c)[0]) not in joinable,
                                 zlib.crc32(c.name.encode())))
    return chosen + rest[:max(0, MIN_CASES - PLAYOUT_STATES - PLAYOUT_STEPS - len(chosen))]


@pytest.fixture(scope="module")
def scenario_starts():
    return [c for c in D.scenario_cases(SCENARIOS) if c.ruleset != "goat"]


@pytest.fixture(scope="module")
def cases(engine_errors, scenario_starts):
    base = D.dedupe(D.fixture_cases(FIXTURES) + _scenario_sample(scenario_starts))
    extra = D.sample_playouts(PLAYOUT_STATES, PLAYOUT_STEPS, seed=SEED, exclude={c.key() for c in base},
                              errors=engine_errors)
    return base + extra


def test_the_pellet_sample_fires_every_rule_the_scenario_states_fire(scenario_starts, cases):
    sample = [c for c in cases if c.name.startswith("scenario ")]
    assert not D.uncovered(scenario_starts, sample)
    assert {c.ruleset for c in sample} == {"official", "simplified"}


def test_the_inputs_are_many_distinct_and_varied(cases, engine_errors):
    assert len(cases) >= MIN_CASES
    assert len({c.key() for c in cases}) == len(cases)
    assert {c.ruleset for c in cases} == set(D.RULESETS)
    names = " ".join(c.name for c in cases)
    assert "scenario official/" in names and "scenario simplified/" in names
    assert sum(1 for c in cases if c.transient) >= PLAYOUT_STEPS // 2, "too few apply-step inputs"
    assert sum(1 for c in cases if c.name.startswith("playout") and not c.transient) >= PLAYOUT_STATES
    # engine errors are the playout tests' business (tests/test_playouts.py); here they only shorten duels
    if engine_errors:
        print("engine errors met while collecting (see test_playouts):", *engine_errors, sep="\n  ")


def test_the_fast_backend_answers_every_input(cases):
    unanswered = [(c.name, err) for c in cases for _, err in [D.fast_facts(c)] if err]
    assert not unanswered


def test_a_failure_is_saved_and_replayed(tmp_path, cases):
    step = next(c for c in cases if c.transient)
    plain = next(c for c in cases if not c.transient)
    for case in (plain, step):
        o = D.Outcome(case, only_fast=[("Monster", "X")], only_pellet=[("level", "X", 4)])
        path = D.save_failure(o, tmp_path)
        assert path.parent == tmp_path and path.name == D.fixture_name(case)
        assert D.save_failure(o, tmp_path) == path  # the same input is one fixture
    replayed = D.fixture_cases(tmp_path)
    assert len(replayed) == 2
    assert {c.key() for c in replayed} == {plain.key(), step.key()}
    assert "only_fast" in (tmp_path / D.fixture_name(plain)).read_text()


def test_a_joined_answer_is_split_back_per_input(cases):
    group = D.joinable_group(cases, 3)
    assert len(group) == 3
    answers = [D.fast_facts(c)[0] for c in group]
    from ygo_onto.knowledge import knowledge
    from ygo_onto.reasoning import get

    k = knowledge(group[0].ruleset)
    parts, shared, crossed = D.split(get("fast").infer(k, D.combine(group)), 3, k.vocabulary)
    assert not crossed
    for n, answer in enumerate(answers):
        assert D.typed(parts[n] | shared) == D.typed(answer)


@pytest.mark.pellet
def test_the_shortcuts_give_the_reference_answer(cases, pellet_pool):
    """A warm JVM answers as a new `java` process does; a joined run, split, as single runs do."""
    group = D.joinable_group(cases[::-1], 3)  # from the end: playout states and apply steps
    assert group, "no three inputs that can share a Pellet run"
    problems = D.shortcuts_agree(group, pellet_pool)
    assert not problems, "\n".join(problems)


@pytest.mark.pellet
def test_fast_infers_exactly_what_pellet_infers(cases, pellet_pool):
    t0, runs0 = time.perf_counter(), pellet_pool.runs
    outcomes = D.compare(cases, pellet_pool, batch=BATCH)
    elapsed = time.perf_counter() - t0
    failures = [o for o in outcomes if not o.same]
    # the first CONFIRM are reported from plain Pellet runs (a new java process each, ~8 s)
    failures = [D.confirm_cold(o) for o in failures[:CONFIRM]] + failures[CONFIRM:]
    harness = [o for o in failures if o.warm_disagrees]
    failures = [o for o in failures if not o.same]
    joined = sum(1 for o in outcomes if o.joined > 1)
    print(f"\ndifferential: {len(outcomes)} inputs ({sum(1 for c in cases if c.transient)} apply steps), "
          f"{pellet_pool.runs - runs0} Pellet runs ({joined} inputs answered by joined runs), {elapsed:.1f} s, "
          f"{len(failures)} differences")
    reports = []
    for o in failures:
        path = D.save_failure(o, FIXTURES)
        lines = o.report().splitlines()
        shown = lines[:SHOW] + ([f"  ... {len(lines) - SHOW} more"] if len(lines) > SHOW else [])
        reports.append("\n".join(shown) + f"\n  saved as {path.relative_to(HERE.parent)}")
    assert not harness, "warm Pellet answered differently from a new java process on: " + ", ".join(
        o.case.name for o in harness)
    assert not failures, f"{len(failures)} of {len(outcomes)} inputs differ:\n" + "\n".join(reports)
