"""The native evaluator (reasoning/fast/native.c through native.py) gives exactly the Python
evaluator's models (which the other tests compare with clingo and Pellet), run after run."""
from __future__ import annotations

import functools
import os
import random
import shutil
import warnings
from pathlib import Path

import pytest

from ygo_onto.knowledge import knowledge
from ygo_onto.reasoning import fast
from ygo_onto.reasoning.fast import native
from ygo_onto.reasoning.fast.evaluator import _Evaluator, _NotSupported

from test_fast_backend import TERMS_PROGRAM, _clingo_atoms



def _compiler() -> str | None:
    return shutil.which(os.environ.get("CC") or "cc") or shutil.which("gcc")


# skipped only where the engine is not compiled and no compiler is found (an install without one: the Python
# evaluator runs); with a compiler, a module not built fails the first test instead of skipping them all
pytestmark = pytest.mark.skipif(native.library() is None and _compiler() is None,
                                reason="no compiled engine (no C compiler at install): the Python evaluator runs")


def test_the_engine_is_compiled_where_a_compiler_is_found():
    assert native.library() is not None, native.UNAVAILABLE


def _atoms(ev) -> set:
    return {(key, args) for key, rel in ev.model().items() for args in rel}


def _frozen(ev) -> dict:
    return {key: frozenset(rel) for key, rel in ev.model().items() if rel}


def test_terms_and_comparisons_are_clingos():
    """32-bit wrap, truncating division, undefined arithmetic on non-integers and division by zero,
    the order of values of different kinds, function terms matched, rules without atoms."""
    ev = native.NativeEvaluator(TERMS_PROGRAM)
    with ev.lock:
        ev.run({})
        assert _atoms(ev) == _clingo_atoms(TERMS_PROGRAM)


def test_constants_of_rules_at_the_edges_of_the_code_words():
    """The code is 32-bit words: a symbol constant of a rule becomes E_SYM and its id; integer
    constants of every size (16-bit edges, 32-bit edges) and arithmetic past them give clingo's model."""
    program = r"""n(40000). n(-40000). n(2147483647). n(-2147483648). n(5). n(32767). n(-32767).
    lp(40000, 70000). lp(5, "x"). lp(5, s(1)).
    big(X) :- n(X), X > 32766.  small(X) :- n(X), X < -32767.  top(X) :- n(X), X = 2147483647.
    bottom(X) :- n(X), X = -2147483648.  plus(X,Z) :- n(X), Z = X + 100000.  minus(X,Z) :- n(X), Z = X - 65536.
    hit(X) :- n(X), lp(X, 70000).  str(X) :- n(X), lp(X, "x").  fun(X) :- n(X), lp(X, s(1)).
    near(X) :- n(X), X != 32767, X != -32767, X < 40001."""
    ev = native.NativeEvaluator(program)
    with ev.lock:
        ev.run({})
        assert _atoms(ev) == _clingo_atoms(program)


def _random_value(rng: random.Random, depth: int = 0):
    kind = rng.randrange(5 if depth < 2 else 3)
    if kind == 0:
        return rng.choice([0, 1, -1, 7, -2 ** 31, 2 ** 31 - 1, rng.randrange(-1000, 1000)])
    if kind == 1:
        return rng.choice(["", "a", "b", "ab", "B", "é", "z" * 3, "a\nb", '"q"'])
    if kind == 2:
        return (rng.choice(["a", "b", "aa", "true", "false", "s"]),)
    return (rng.choice(["s", "f", "a", "ff"]), *(_random_value(rng, depth + 1) for _ in range(rng.randrange(1, 3))))


def test_order_of_values_is_clingos():
    from ygo_onto.reasoning.fast.evaluator import _symbol

    ev = native.NativeEvaluator("p(1).")
    rng = random.Random(5)
    values = [_random_value(rng) for _ in range(300)]
    for a in values:
        for b in rng.sample(values, 30) + [a]:
            sa, sb = _symbol(a), _symbol(b)
            expected = -1 if sa < sb else (1 if sb < sa else 0)
            assert ev.order(a, b) == expected, (a, b)
    key = functools.cmp_to_key(ev.order)
    assert sorted(values, key=key) == sorted(values, key=lambda v: functools.cmp_to_key(
        lambda x, y: -1 if _symbol(x) < _symbol(y) else (1 if _symbol(y) < _symbol(x) else 0))(v))


def test_what_it_does_not_reproduce_raises_and_a_later_run_starts_again():
    ev = native.NativeEvaluator("q(Y) :- p(X), Y = -X. r(X) :- p(X).")
    with ev.lock:
        ev.run({("p", 1): {(3,)}})
        assert _frozen(ev)[("q", 1)] == {(-3,)}
        with pytest.raises(_NotSupported):  # clingo's -a: a negative function term
            ev.run({("p", 1): {(("a",),), (4,)}})
        ev.run({("p", 1): {(5,)}})
        assert _frozen(ev) == {("p", 1): {(5,)}, ("q", 1): {(-5,)}, ("r", 1): {(5,)}}
    with pytest.raises(_NotSupported):
        native.NativeEvaluator("h(f(X)) :- p(X).")  # a function term built at run time
    with pytest.raises(_NotSupported):
        native.NativeEvaluator("p(X) :- q(Y), X < Y.")  # a comparison whose variables no atom binds


def test_changes_reported_are_the_differences_of_the_models():
    """After each run: added_model (nothing removed) or changed_model (removed, added) is exactly
    the difference from the previous model, and facts of predicates the program does not mention
    are carried as given."""
    program = "k1(X) :- a(X). k2(Y) :- k1(X), rel(X,Y). k1(Y) :- k2(X), rel(X,Y). w(X,M) :- k1(X), v(X,N), M=N+1."
    base = {("a", 1): {("x",)}, ("rel", 2): {("x", "y"), ("y", "z"), ("z", "y")}, ("v", 2): {("z", 4)}}
    steps = [base, {**base, ("v", 2): {("z", 4), ("y", 1)}}, {**base, ("a", 1): {("z",)}},
             {**base, ("a", 1): set(), ("b", 1): {("q",)}}, {**base, ("b", 1): {("q",), ("r",)}}, base]
    ev, py = native.NativeEvaluator(program), _Evaluator(program)
    ev.set_unlike(0)  # (delete and rederive even where most of these few facts change)
    before: dict = {}
    for i, facts in enumerate(steps):
        with ev.lock:
            ev.run(facts)
        py.run(facts)
        now = _frozen(ev)
        assert now == {k: frozenset(v) for k, v in py.model().items() if v}
        if i == 0:
            assert ev.added_model() is None and ev.changed_model() is None
        else:
            only_added, change = ev.added_model(), ev.changed_model()
            assert (only_added is None) != (change is None)  # (a change of more atoms than the new model holds: neither)
            removed, added = change if change is not None else ({}, only_added)
            keys = now.keys() | before.keys()
            assert {k: now.get(k, frozenset()) - before.get(k, frozenset()) for k in keys} == \
                {k: added.get(k, frozenset()) for k in keys}
            assert {k: before.get(k, frozenset()) - now.get(k, frozenset()) for k in keys} == \
                {k: removed.get(k, frozenset()) for k in keys}
        before = now


@pytest.mark.parametrize("program,steps", [
    # a cycle that loses its support goes; what another derivation supports stays
    ("k1(X) :- a(X). k2(Y) :- k1(X), rel(X,Y). k1(Y) :- k2(X), rel(X,Y). "
     "w(X,M) :- k1(X), v(X,N), M=N+1. both(X) :- k1(X), k2(X).",
     [{("a", 1): {("x",)}, ("rel", 2): {("x", "y"), ("y", "z"), ("z", "y")}, ("v", 2): {("z", 4)}},
      {("a", 1): {("z",)}, ("rel", 2): {("x", "y"), ("y", "z"), ("z", "y")}, ("v", 2): {("z", 4)}},
      {("rel", 2): {("x", "y"), ("y", "z"), ("z", "y")}, ("v", 2): {("z", 4)}},
      {("a", 1): {("x",)}, ("rel", 2): {("x", "y")}, ("b", 1): {("q",)}},
      {("a", 1): {("x",)}, ("rel", 2): {("x", "y"), ("y", "z"), ("z", "y")}, ("v", 2): {("z", 4)}}]),
    # an input fact that is also derived stays when its derivation goes, and what it supports
    ("c(X) :- p(X,Y). d(X) :- c(X), e(X). f(Y) :- p(X,Y). c(Y) :- f(Y), e(Y). g(1) :- 1 < 2. h(X) :- g(X), e(_).",
     [{("c", 1): {("x",)}, ("p", 2): {("x", "y")}, ("e", 1): {("x",), ("y",)}},
      {("c", 1): {("x",)}, ("e", 1): {("x",), ("y",)}},
      {("p", 2): {("x", "y")}, ("e", 1): {("x",), ("y",)}, ("g", 1): {(1,)}},
      {("e", 1): {("x",)}},
      {("c", 1): {("x",)}, ("p", 2): {("x", "y")}, ("e", 1): {("x",), ("y",)}},
      {("c", 1): {("x",)}, ("p", 2): {("x", "y"), ("y", "x")}, ("e", 1): {("x",), ("y",)}},
      {}]),
])
@pytest.mark.parametrize("prune", [True, False])
def test_delete_and_rederive_gives_the_model_from_scratch(program, steps, prune):
    """prune: an atom that facts of the new run derive is kept instead of over-deleted (never on account
    of a cycle: only facts count)."""
    ev, scratch = native.NativeEvaluator(program), native.NativeEvaluator(program)
    ev.set_unlike(0)
    ev.set_prune(prune)
    for _ in range(3):  # (again and again: rows taken out stay behind as dead rows, then are compacted)
        for facts in steps:
            ev.run(facts)
            scratch._forget()  # (its previous model forgotten: a run from scratch)
            scratch.run(facts)
            assert _frozen(ev) == _frozen(scratch) == _frozen_py(program, facts)
    assert ev.stats()["dred"] >= 3
    if not prune:
        assert ev.stats()["kept"] == 0


@pytest.mark.parametrize("prune", [True, False])
def test_an_atom_that_facts_still_derive_is_kept_with_what_it_supports(prune):
    """c(x) loses one derivation (p(x,y) goes) but the fact q(x) still derives it: with prune it is kept,
    and d(x), f(x) with it, instead of over-deleted and derived again; in a cycle (k1, k2) only facts
    count, so the cycle goes when its support does."""
    program = ("c(X) :- p(X,Y). c(X) :- q(X). d(X) :- c(X), e(X). f(X) :- d(X). "
               "k1(X) :- a(X). k2(X) :- k1(X). k1(X) :- k2(X), e(X). h(X) :- g(X).")
    more = {("g", 1): {(i,) for i in range(30)}}  # (so that delete and rederive is not declined for size)
    s0 = {("p", 2): {("x", "y")}, ("q", 1): {("x",)}, ("e", 1): {("x",)}, ("a", 1): {("x",)}, **more}
    steps = [s0, {("q", 1): {("x",)}, ("e", 1): {("x",)}, **more}, s0,
             {("p", 2): {("x", "y")}, ("e", 1): {("x",)}, **more}, {("e", 1): {("x",)}, **more}]
    ev = native.NativeEvaluator(program)
    ev.set_unlike(0)
    ev.set_prune(prune)
    before: dict = {}
    for i, facts in enumerate(steps):
        ev.run(facts)
        now = _frozen(ev)
        assert now == _frozen_py(program, facts)
        if i and (ev.added_model() is not None or ev.changed_model() is not None):  # (else read whole)
            _assert_change(ev, before, now)
        before = now
    assert ev.stats()["dred"] >= 2
    assert (ev.stats()["kept"] > 0) == prune


def _frozen_py(program: str, facts: dict) -> dict:
    py = _Evaluator(program)
    py.run(facts)
    return {key: frozenset(v) for key, v in py.model().items() if v}


def _duel_inputs(ruleset: str, seed: int, cap: int) -> list[list]:
    """The ABoxes infer_facts gets in a duel, as lists of facts."""
    return [list(facts) for facts in _duel_aboxes(ruleset, seed, cap)]


@pytest.mark.parametrize("ruleset,seed,cap", [("official", 1, 80), ("simplified", 2, 60)])
def test_the_same_models_as_the_python_evaluator_on_every_input_of_a_duel(ruleset, seed, cap):
    """Both programs (with and without the equality section), on the ABox inputs of a duel in
    order (runs that go on from a model and runs from scratch, as they come), and on the same
    inputs shuffled (every run a different state)."""
    from ygo_onto.reasoning.fast.facts import _abox

    warnings.simplefilter("ignore")
    inputs = _duel_inputs(ruleset, seed, cap)
    k = knowledge(ruleset)
    comp = fast.compiled(k)
    aboxes = [_abox(comp, k, facts) for facts in inputs]
    assert len(aboxes) > cap
    shuffled = aboxes[:]
    random.Random(seed).shuffle(shuffled)
    for slot, program in ((0, comp.program_without_eq), (1, comp.program)):
        nat, py = native.NativeEvaluator(program, comp.parsed[slot]), _Evaluator(program, comp.parsed[slot])
        scratch = native.NativeEvaluator(program, comp.parsed[slot])
        extended = 0
        for abox in aboxes + shuffled[:60]:
            nat.run(abox)
            py.run(abox)
            expected = {key: frozenset(v) for key, v in py.model().items() if v}
            assert _frozen(nat) == expected
            extended += nat.added_model() is not None
            if nat.added_model() is None and nat.changed_model() is None:  # a model read whole
                assert nat.reading is None
            if slot == 0:
                scratch._forget()  # (a run from scratch)
                scratch.run(abox)
                assert _frozen(scratch) == expected
        assert extended > len(aboxes) // 4
        stats = nat.stats()  # every way a run goes was taken
        assert stats["dred"] > len(aboxes) // 4 and stats["extend"] > len(aboxes) // 4 and stats["scratch"] > 0


def test_infer_uses_the_native_evaluator_and_falls_back_to_python(monkeypatch):
    from ygo_onto.reasoning.fast import infer as fast_infer

    k = knowledge("simplified")
    comp = fast.compiled(k)
    if native.EVALUATOR == "native":
        assert isinstance(fast_infer._evaluator(comp, False), native.NativeEvaluator)
        assert native.describe() == "native"
    saved = list(comp.evaluators)
    try:
        comp.evaluators[:] = [None, None]
        monkeypatch.setattr(native, "_LIB", None)
        monkeypatch.setattr(native, "UNAVAILABLE", "no C compiler (test)")
        monkeypatch.setattr(native, "EVALUATOR", "native")
        assert type(fast_infer._evaluator(comp, False)) is _Evaluator
        assert native.describe() == "python (native unavailable: no C compiler (test))"
    finally:
        comp.evaluators[:] = saved


def test_without_the_compiled_engine_the_python_evaluator_runs_and_describe_says_why(monkeypatch, tmp_path):
    """A package folder without the compiled modules (an install on a machine without a C compiler): the
    engine and the reader are unavailable, each saying why, and describe() names the Python evaluator."""
    monkeypatch.setattr(native, "__file__", str(tmp_path / "native.py"))
    for name, load in (("_native", native._load), ("_reader", native._load_reader)):
        with pytest.raises(RuntimeError, match=f"no compiled {name} module"):
            load()
    monkeypatch.setattr(native, "_LIB", None)
    monkeypatch.setattr(native, "UNAVAILABLE", None)
    monkeypatch.setattr(native, "EVALUATOR", "native")
    assert native.library() is None and "no compiled _native module" in native.UNAVAILABLE
    assert native.describe() == f"python (native unavailable: {native.UNAVAILABLE})"


def test_a_module_compiled_from_another_source_is_not_used(monkeypatch, tmp_path):
    """Beside its C source (a checkout, an editable install), a compiled module is used only if it was built from
    that source as it is (setup.py gives it the source's SHA-256): an edit to the C not rebuilt is refused,
    with a warning.  Without the source beside it (an installed wheel) there is nothing to check."""
    here = Path(native.__file__).parent
    for name in ("_native", "_reader"):
        built = native._compiled(name)
        shutil.copy2(built, tmp_path / built.name)
    monkeypatch.setattr(native, "__file__", str(tmp_path / "native.py"))
    for source in ("native.c", "reader.c"):
        (tmp_path / source).write_bytes((here / source).read_bytes() + b"\n/* an edit */\n")
    for source, load in (("native.c", native._load), ("reader.c", native._load_reader)):
        with pytest.warns(RuntimeWarning, match=f"not built from .*{source}"), \
                pytest.raises(RuntimeError, match=f"not built from .*{source}"):
            load()
    for source in ("native.c", "reader.c"):
        shutil.copy2(here / source, tmp_path / source)
    assert native._load()[1].ng_new is not None and native._load_reader().read_rows is not None
    for source in ("native.c", "reader.c"):
        (tmp_path / source).unlink()
    assert native._load()[1].ng_new is not None and native._load_reader().read_rows is not None


@pytest.mark.parametrize("ruleset,seed,cap", [("official", 3, 60), ("simplified", 4, 40)])
def test_the_facts_read_back_equal_the_python_evaluators(monkeypatch, ruleset, seed, cap):
    """infer_facts through each evaluator on the inputs of a duel, then on the same inputs in another
    order: the same facts and the same index by name (the native evaluator reports what changed,
    or its whole model when most of it did)."""
    warnings.simplefilter("ignore")
    inputs = _duel_inputs(ruleset, seed, cap)
    k = knowledge(ruleset)
    comp = fast.compiled(k)
    saved = comp.evaluators
    by = {"native": [None, None], "python": [None, None]}
    try:
        for facts in inputs + random.Random(seed).sample(inputs, 40):
            got = {}
            for name, evaluators in by.items():
                monkeypatch.setattr(native, "EVALUATOR", name)
                comp.evaluators = evaluators
                got[name] = fast.infer_facts(k, facts)
            assert got["native"] == got["python"]
            assert {n: frozenset(g) for n, g in got["native"].groups.items()} == \
                {n: frozenset(g) for n, g in got["python"].groups.items()}
        assert isinstance(by["native"][0], native.NativeEvaluator) and type(by["python"][0]) is _Evaluator
    finally:
        comp.evaluators = saved


def _infer_by_each(monkeypatch, k, comp, by: dict, facts) -> dict:
    """infer_facts through each evaluator of `by` (name -> its two evaluator slots): the native one
    gets the facts as given (an ABox by its parts), the Python one as a list."""
    got = {}
    for name, evaluators in by.items():
        monkeypatch.setattr(native, "EVALUATOR", name)
        comp.evaluators = evaluators
        got[name] = fast.infer_facts(k, facts if name == "native" else list(facts))
    return got


@pytest.mark.parametrize("rollback,unlike", [(True, 0), (True, 10**9), (False, 0)])
def test_the_atoms_a_run_added_come_back_in_the_next_state(rollback, unlike):
    """After a run that went on by adding, the next state keeps some of the added inputs (which the
    rollback took out), derives atoms that run added, and gives a derived atom as an input: the
    model is the Python evaluator's, the change is from the model with the added atoms (unlike
    10**9: declined after the rollback, from scratch; 0: delete and rederive)."""
    program = "k1(X) :- a(X). k2(Y) :- k1(X), rel(X,Y). k1(Y) :- k2(X), rel(X,Y). w(X,M) :- k1(X), v(X,N), M=N+1."
    rel = {("rel", 2): {("x", "y"), ("y", "z"), ("z", "y")}}
    s0 = {("a", 1): {("x",)}, **rel, ("v", 2): {("z", 4)}}
    s1 = {**s0, ("v", 2): {("z", 4), ("y", 1)}, ("k1", 1): {("y",)}}  # (going on: adds)
    s2 = {("a", 1): {("z",)}, **rel, ("v", 2): {("z", 4), ("y", 1)}, ("k1", 1): {("y",)}}
    s3 = {**s2, ("k2", 1): {("y",)}, ("v", 2): {("z", 4), ("y", 1), ("x", 0)}}  # (k2(y) was derived)
    s4 = {**rel, ("v", 2): {("z", 4), ("y", 1)}, ("k2", 1): {("y",)}}
    s5 = {**s4, ("a", 1): {("x",)}}
    # (many new rows of v and w: their hash sets grow while the rows the rollback took out come back)
    s6 = {**s1, ("k1", 1): {("y",)} | {(f"n{i}",) for i in range(40)},
          ("v", 2): {("y", 1)} | {(f"n{i}", i) for i in range(40)}}
    steps = [s0, s1, s2, s3, s4, s5, s0, s1, s0, s1, s4, s0, s1, s6, s0, s1, s6]
    ev = native.NativeEvaluator(program)
    ev.set_rollback(rollback)
    ev.set_unlike(unlike)
    before: dict = {}
    changes = 0
    for i, facts in enumerate(steps):
        ev.run(facts)
        now = _frozen(ev)
        assert now == _frozen_py(program, facts)
        if ev.added_model() is not None or ev.changed_model() is not None:
            changes += 1
            _assert_change(ev, before, now)
        else:  # (a change larger than the model: read whole)
            assert i in (0, 14) and ev.reading is None
        before = now
    stats = ev.stats()
    assert changes == len(steps) - 2
    assert stats["extend"] == 7 and stats["rollback"] == (7 if rollback else 0)
    # (unlike 0: some runs are declined still, where most of this small model is over-deleted)
    assert stats["dred_declined" if unlike else "dred"] >= 3, stats


def _assert_change(ev, before: dict, now: dict) -> None:
    """What the evaluator reports as changed (only added, or removed and added) is now - before."""
    only_added, change = ev.added_model(), ev.changed_model()
    removed, added = change if change is not None else ({}, only_added)
    keys = now.keys() | before.keys()
    assert {key: now.get(key, frozenset()) - before.get(key, frozenset()) for key in keys} == \
        {key: added.get(key, frozenset()) for key in keys}
    assert {key: before.get(key, frozenset()) - now.get(key, frozenset()) for key in keys} == \
        {key: removed.get(key, frozenset()) for key in keys}


@pytest.mark.parametrize("rollback,unlike,prune", [(True, 8, True), (True, 10**9, True), (False, 8, True),
                                                  (True, 8, False), (False, 8, False)])
def test_a_run_after_going_on_by_adding_takes_the_added_atoms_out_first(rollback, unlike, prune):
    """A run on the next state after a run that went on by adding (an action declared): C takes the
    atoms that run added out again (rollback), then deletes and rederives the state's own change, or,
    declined (unlike 10**9: every such run), runs from scratch.  The models are the Python
    evaluator's, and the change reported is from the model of the run before (with the added atoms),
    as without the rollback."""
    from ygo_onto.reasoning.fast.facts import _abox

    warnings.simplefilter("ignore")
    k = knowledge("official")
    comp = fast.compiled(k)
    aboxes = [_abox(comp, k, facts) for facts in _duel_inputs("official", 3, 60)]
    nat, py = native.NativeEvaluator(comp.program_without_eq, comp.parsed[0]), _Evaluator(comp.program_without_eq, comp.parsed[0])
    nat.set_rollback(rollback)
    nat.set_unlike(unlike)
    nat.set_prune(prune)
    before: dict = {}
    changes = 0
    for abox in aboxes:
        nat.run(abox)
        py.run(abox)
        now = _frozen(nat)
        assert now == {key: frozenset(v) for key, v in py.model().items() if v}
        if nat.added_model() is not None or nat.changed_model() is not None:
            changes += 1
            _assert_change(nat, before, now)
        before = now
    stats = nat.stats()
    assert changes > len(aboxes) // 2 and stats["extend"] > len(aboxes) // 4
    assert (stats["kept"] > 0) == (prune and unlike == 8)
    if not rollback:
        assert stats["rollback"] == 0
    elif unlike == 8:
        assert stats["rollback"] == stats["extend"] and stats["dred"] > stats["rollback"] // 2
    else:
        assert stats["rollback"] == stats["extend"] and stats["dred_declined"] >= stats["rollback"]


def _duel_aboxes(ruleset: str, seed: int, cap: int) -> list:
    """The ABoxes infer_facts gets in a duel, as given (abox.ABox with their parts)."""
    from ygo_onto.duel import new_duel, play_duel

    aboxes = []
    real = fast.infer_facts

    def record(k, facts, evaluator=True):
        aboxes.append(facts)
        return real(k, facts, evaluator)

    fast.infer_facts = record
    try:
        for _ in play_duel(new_duel(ruleset, seed), ("random", "random"), seed=seed, max_actions=cap):
            pass
    finally:
        fast.infer_facts = real
    return aboxes


@pytest.mark.parametrize("ruleset,seed,cap,bundles", [("official", 5, 60, None), ("simplified", 6, 40, None),
                                                      ("official", 8, 30, 64)])
def test_an_abox_by_bundles_gives_the_facts_of_the_same_abox_as_a_list(monkeypatch, ruleset, seed, cap, bundles):
    """run_bundles (a state's ABox by its parts, each a bundle of rows registered once in C) against
    the Python evaluator on the same facts as a list: the ABoxes of a duel in order (next states,
    actions declared), shuffled (other states), and mixed with lists (C's inputs then go by
    ng_input, and back).  The same facts, the same index by name.  bundles: a small cap of bundles,
    so that C's bundles are dropped and registered again within the duel."""
    warnings.simplefilter("ignore")
    aboxes = _duel_aboxes(ruleset, seed, cap)
    assert all(getattr(a, "parts", None) is not None for a in aboxes)  # (the action runs too)
    if bundles is not None:
        monkeypatch.setattr(native, "BUNDLE_CAP", bundles)
    k = knowledge(ruleset)
    comp = fast.compiled(k)
    rng = random.Random(seed)
    sequence = aboxes + rng.sample(aboxes, 40) + [list(a) if i % 3 == 0 else a
                                                  for i, a in enumerate(rng.sample(aboxes, 30))]
    saved = comp.evaluators
    by = {"native": [None, None], "python": [None, None]}
    by_bundles = []
    real_run_bundles = native.NativeEvaluator.run_bundles

    def run_bundles(self, parts, read):
        done = real_run_bundles(self, parts, read)
        by_bundles.append(done)
        return done

    monkeypatch.setattr(native.NativeEvaluator, "run_bundles", run_bundles)
    try:
        for facts in sequence:
            got = _infer_by_each(monkeypatch, k, comp, by, facts)
            assert got["native"] == got["python"]
            assert {n: frozenset(g) for n, g in got["native"].groups.items()} == \
                {n: frozenset(g) for n, g in got["python"].groups.items()}
        stats = by["native"][0].stats()
    finally:
        comp.evaluators = saved
    with_parts = sum(getattr(a, "parts", None) is not None for a in sequence)
    assert sum(by_bundles) == len(by_bundles) >= with_parts  # (every ABox with parts went by bundles)
    assert stats["dred"] > len(aboxes) // 4 and stats["extend"] > len(aboxes) // 4 and stats["scratch"] > 0


def test_a_part_that_cannot_be_read_gives_the_message_of_the_abox_as_a_list():
    """A part with a fact that is not of the ontology: the message of the same facts as a list; a part
    with a fact that is a list (not read by bundles): the facts of the same ABox as a list."""
    from ygo_onto.abox import ABox, typed_part
    from ygo_onto.errors import ReasonerError

    k = knowledge("official")
    abox = _duel_aboxes("official", 7, 5)[-1]
    got = {}
    for case, more in (("bad", (("NoSuchClass", "x"), ("lifePoints", "y", 2 ** 40))), ("list", (["Duel", "x"],))):
        bad = ABox(list(abox) + list(more))
        bad.parts = {**abox.parts, "more": typed_part(more)}
        for facts in (bad, list(bad)):
            fast.infer_facts(k, abox)  # (a model to go on from)
            try:
                got.setdefault(case, []).append(fast.infer_facts(k, facts))
            except ReasonerError as e:
                got[case].append(str(e))
    assert got["bad"][0] == got["bad"][1] and "NoSuchClass" in got["bad"][0]
    assert got["list"][0] == got["list"][1] and ("Duel", "x") in got["list"][0]
    assert fast.infer_facts(k, abox) == fast.infer_facts(k, list(abox), evaluator=False)



def test_a_part_whose_types_are_not_its_values_goes_by_the_list(monkeypatch):
    """A part that gives other types than its values' (an int taken for a bool): not registered as a bundle (an
    equal part with the right types must not find it), the facts go as a list; the same facts as the list's."""
    from ygo_onto.abox import ABox

    k = knowledge("official")
    abox = _duel_aboxes("official", 7, 5)[-1]
    slot = next(slot for slot, part in abox.parts.items() if int in part[1])
    facts, types = abox.parts[slot]
    wrong = ABox(abox)
    wrong.parts = {**abox.parts, slot: (facts, tuple(bool if t is int else t for t in types))}
    went = []
    real = native.NativeEvaluator.run_bundles

    def run_bundles(self, parts, read):
        went.append(real(self, parts, read))
        return went[-1]

    monkeypatch.setattr(native.NativeEvaluator, "run_bundles", run_bundles)
    assert fast.infer_facts(k, wrong) == fast.infer_facts(k, list(abox), evaluator=False)
    assert went == [False]
    assert fast.infer_facts(k, abox) == fast.infer_facts(k, list(abox), evaluator=False) and went == [False, True]

def test_facts_of_a_class_the_program_does_not_mention_come_and_go_with_their_parts(monkeypatch):
    """A fact of a class no rule mentions (kept in Python, not in C) in one part, then in two, then in
    none: the facts of the same ABoxes as lists through the Python evaluator."""
    from ygo_onto.abox import ABox, typed_part

    k = knowledge("official")
    comp = fast.compiled(k)
    aboxes = _duel_aboxes("official", 9, 6)
    unmentioned = ("Operation", "someOperation")

    def with_parts(abox, **more):
        out = ABox(list(abox) + [f for part in more.values() for f in part])
        out.parts = {**abox.parts, **{slot: typed_part(part) for slot, part in more.items()}}
        return out

    sequence = [aboxes[-2], with_parts(aboxes[-2], x=(unmentioned,)),
                with_parts(aboxes[-1], x=(unmentioned,), y=(unmentioned, ("Duel", "theDuel"))),
                with_parts(aboxes[-1], y=(unmentioned,)), aboxes[-1]]
    saved = comp.evaluators
    by = {"native": [None, None], "python": [None, None]}
    try:
        for facts in sequence:
            got = _infer_by_each(monkeypatch, k, comp, by, facts)
            assert got["native"] == got["python"]
            assert (unmentioned in got["native"]) == (unmentioned in facts)
        assert by["native"][0]._extra_of  # (the bundle path was taken)
    finally:
        comp.evaluators = saved


def _read_tiny(facts):
    """_read_each for the made-up program of the test below: (class, x) and (property, x, value)."""
    return [((f[0], len(f) - 1), tuple(f[1:])) for f in facts]


def _tiny_model(program: str, facts) -> dict:
    """The Python evaluator's model of the program with these facts (read by _read_tiny)."""
    sets: dict = {}
    for key, value in _read_tiny(facts):
        sets.setdefault(key, set()).add(value)
    ev = _Evaluator(program)
    ev.run(sets)
    return _frozen(ev)


def test_a_new_parts_rows_are_the_same_with_and_without_the_reader(monkeypatch):
    """reader.c's bundle_rows against the Python steps of _bundle, on parts of new and known facts: the
    same rows in one buffer (predicates padded to 8 bytes, then the values), the indexes of the facts
    without a code, None for a part it leaves to Python (a value's type not the one the part gives, a
    predicate the program does not mention); part_ids the ids of the Python steps; both give the Python
    evaluator's models, and ng_bundle_buf and ng_state_buf read buffers that are not aligned."""
    import cffi

    program = "r(X) :- q(X). s(X, Y) :- p(X, Y), q(X)."
    parts = [((("q", "a"), ("p", "a", 1)), (str, int)), ((("q", "b"), ("p", "a", 1), ("p", "b", "c")), (str, int, str)),
             ((("q", "a"), ("p", "a", 2)), (str, int)), ((), ()),
             ((tuple(["q", "a"]), ("p", "a", 2), tuple(["q", "c"])), (str, int, str))]  # (equal facts, other objects)
    module = native.reader()
    evs = {}
    for c_reader in (True, False):
        monkeypatch.setattr(native, "reader", lambda: module if c_reader else None)  # (reader.c, or the Python code)
        ev = evs[c_reader] = native.NativeEvaluator(program)
        with ev.lock:
            for i in range(len(parts)):
                assert ev.run_bundles({"x": parts[i], "y": parts[i - 1]}, _read_tiny)
                assert _frozen(ev) == _tiny_model(program, parts[i][0] + parts[i - 1][0])
        assert {type(key) for key in ev._bundles} == {bytes if c_reader else tuple}  # (the memo by the rows: C's)
        for facts, types in parts:
            codes = [ev._code_of_id[id(f)] for f in facts]
            head = b"".join(code[4] for code in codes)
            assert module.bundle_rows(facts, types, ev._code_of_id) == \
                head + bytes(len(head) % 8) + b"".join(code[2] for code in codes)
            if int in types:
                assert module.bundle_rows(facts, tuple(bool if t is int else t for t in types), ev._code_of_id) is None
            new = (tuple(["q", "new"]), parts[1][0][0], tuple(["p", "new", 3]))  # (two facts never coded)
            assert module.bundle_rows(facts + new, types + (str, str, int), ev._code_of_id) == \
                [len(facts), len(facts) + 2]
    # (reader.c's fill_codes: the codes of _fill and _code, by the fact object and by content; part_ids: the ids)
    assert evs[True]._codes == evs[False]._codes and evs[True]._code_of_id == evs[False]._code_of_id
    assert list(memoryview(evs[True]._last_parts[1]).cast("i")) == evs[False]._last_parts[1]
    values, ids = evs[True]._last_parts
    known = evs[True]._ids
    assert module.part_ids(values, values, ids, known) == module.part_ids(values, [], b"", known) == ids
    assert module.part_ids([values[0], parts[0][:1] + parts[0][1:]], [], b"", known) == [1]  # (a part object never seen)
    assert module.part_ids([values[1]], [values[1]], bytes(4), {}) == bytes(4)  # (the same object: the last id)
    assert all(code[3] is f for f in (f for part in parts for f in part[0]) for code in [evs[True]._code_of_id[id(f)]])
    ev = native.NativeEvaluator(program)
    with ev.lock:
        assert ev.run_bundles({"x": parts[1]}, _read_tiny)
        assert module.bundle_rows(parts[1][0], parts[1][1] + (int,), ev._code_of_id) is None  # (a type more)
        assert module.bundle_rows(parts[1][0], (str, bool, str), ev._code_of_id) is None
        unmentioned = ((("q", "a"), ("t", "a")), (str, str))
        assert ev.run_bundles({"x": unmentioned}, _read_tiny) and ev._extra_of  # (by the Python steps: kept aside)
        assert module.bundle_rows(*unmentioned, ev._code_of_id) is None
        rows = module.bundle_rows(*parts[1], ev._code_of_id)
        ffi = cffi.FFI()
        buf = ffi.new("char[]", len(rows) + 4)
        ffi.memmove(buf + 4, rows, len(rows))
        bid = ev._lib.ng_bundle_buf(ev._engine, len(parts[1][0]), buf + 4)
        ids = ffi.new("char[]", 8)
        ffi.memmove(ids + 1, ffi.new("int32_t[]", [bid]), 4)
        mode = ev._lib.ng_state_buf(ev._engine, 1, ids + 1)  # (not aligned for int32 either)
        assert bid >= 0 and mode >= 0
        ev._go(mode == 0)
        ev._after({})
        assert _frozen(ev) == _tiny_model(program, parts[1][0])


# -- reader.c: C's change read back into Python objects (and the Python code that reads where it is not built)

def _typed_groups(facts) -> dict:
    """A reading's index by name, each fact with the types of its values (True is not 1), each group's type."""
    return {name: (type(group), frozenset(tuple((type(x), x) for x in f) for f in group))
            for name, group in facts.groups.items()}


def _copy_state(ev) -> tuple:
    """What a native evaluator keeps of the model after a run, read without applying anything."""
    return (ev._model, ev._pending, ev._size, ev._fresh, ev.change_columns(), ev._added, ev._change)


def test_the_reader_is_compiled_where_a_compiler_is_found():
    assert native.reader() is not None, native.READER_UNAVAILABLE


@pytest.mark.parametrize("ruleset,seed,cap", [("official", 7, 70), ("simplified", 8, 50)])
def test_the_c_reader_gives_the_python_codes_model_copy_and_facts(monkeypatch, ruleset, seed, cap):
    """Two native evaluators, one reading C's change with reader.c, one with the Python code, on the
    ABoxes of a duel in order (next states, actions declared), shuffled and mixed with lists (other
    states), then the bench's states each after each other one: after every run the same model copy
    (its relations, the queues of changes not applied yet, the counts), the same change handed to
    infer, the same facts and index by name (types of values and groups too), the same model."""
    from itertools import permutations

    from ygo_onto.bench import bench_states
    from ygo_onto.game import GameState

    warnings.simplefilter("ignore")
    k = knowledge(ruleset)
    aboxes = _duel_aboxes(ruleset, seed, cap)
    rng = random.Random(seed)
    sequence = aboxes + rng.sample(aboxes, 30) + [list(a) if i % 3 == 0 else a
                                                  for i, a in enumerate(rng.sample(aboxes, 20))]
    if ruleset == "official":  # (the bench's states: a fresh state's large change, read as columns)
        captured = []
        real = fast.infer_facts

        def record(k, facts, evaluator=True):
            captured.append(facts)
            return real(k, facts, evaluator)

        monkeypatch.setattr(fast, "infer_facts", record)
        states, _ = bench_states()
        for first, then in permutations(list(states.values())[:4], 2):
            GameState.from_dict(first).allowed_actions("fast")
            GameState.from_dict(then).allowed_actions("fast")
        monkeypatch.setattr(fast, "infer_facts", real)
        sequence += captured
    comp = fast.compiled(k)
    module = native.reader()
    calls: dict = {}

    class Counted:  # (every C reading counted: the C side does read)
        def __getattr__(self, name):
            def call(*args):
                got = getattr(module, name)(*args)
                calls[name, got is None] = calls.get((name, got is None), 0) + 1
                return got
            return call

    counted = Counted()
    saved = comp.evaluators
    by = {True: [None, None], False: [None, None]}
    try:
        for facts in sequence:
            got = {}
            for c_reader, evaluators in by.items():
                monkeypatch.setattr(native, "reader", lambda: counted if c_reader else None)
                comp.evaluators = evaluators
                got[c_reader] = fast.infer_facts(k, facts)
            assert got[True] == got[False]
            assert _typed_groups(got[True]) == _typed_groups(got[False])
            for slot in (0, 1):
                c_ev, py_ev = by[True][slot], by[False][slot]
                if c_ev is not None or py_ev is not None:
                    assert _copy_state(c_ev) == _copy_state(py_ev)
                    assert c_ev.reading == py_ev.reading
        for slot in (0, 1):
            if by[True][slot] is not None:
                assert _frozen(by[True][slot]) == _frozen(by[False][slot])
    finally:
        comp.evaluators = saved
    assert calls.get(("read_rows", False), 0) > len(aboxes) and calls.get(("read_columns", False), 0) > 10
    assert calls.get(("read_change", False), 0) > len(aboxes)
    assert calls.get(("bundle_rows", False), 0) > 10  # (a new part's rows: the C side coded them)
    assert calls.get(("part_ids", False), 0) > len(aboxes)  # (a state's bundle ids: by the C side)


def test_without_the_reader_the_python_code_reads(monkeypatch, tmp_path):
    """No compiled reader.c (a package folder without _reader): READER_UNAVAILABLE says why, describe() says
    the Python code reads, and it gives the same duel."""
    from ygo_onto.duel import new_duel, play_duel

    assert native.library() is not None
    monkeypatch.setattr(native, "__file__", str(tmp_path / "native.py"))
    monkeypatch.setattr(native, "_READER", None)
    monkeypatch.setattr(native, "READER_UNAVAILABLE", None)
    monkeypatch.setattr(native, "EVALUATOR", "native")
    assert native.reader() is None and "no compiled _reader module" in native.READER_UNAVAILABLE
    assert native.describe() == f"native, read by Python ({native.READER_UNAVAILABLE})"

    def states():
        return [s.to_dict() for _, _, s in play_duel(new_duel("simplified", 2), ("random", "random"), seed=2,
                                                     max_actions=30)]

    k = knowledge("simplified")
    comp = fast.compiled(k)
    saved = comp.evaluators
    try:
        comp.evaluators = [None, None]
        without = states()
        monkeypatch.undo()  # (the reader as it was)
        comp.evaluators = [None, None]
        assert native.reader() is not None
        assert states() == without
    finally:
        comp.evaluators = saved


def test_the_reader_refuses_a_buffer_that_is_not_well_formed():
    """Counts that would read past the buffer, or a predicate out of range: a ValueError, nothing read past."""
    import cffi

    module = native.reader()
    ffi = cffi.FFI()
    keys, arities = [("p", 2), ("q", 1)], (2, 1)
    for words in ([0, 2, 0, 7, 7], [0, 0, 1], [1, 0], [5, 1, 0, 7], [0, -1, 0], [1, 1, 0, 7, 0, 1]):
        buf = ffi.new("int64_t[]", words)
        at = int(ffi.cast("intptr_t", buf))
        with pytest.raises(ValueError, match="not well formed"):
            module.read_rows(at, len(words), [], keys, arities, {}, {}, None)
        with pytest.raises(ValueError, match="not well formed"):
            module.read_columns(at, len(words), [], keys, arities, {}, None, 8)
    buf = ffi.new("int64_t[]", [0, 1, 1, 3, native.SYM_BASE, 4, native.SYM_BASE + 1, 1, 0, 1, native.SYM_BASE + 5])
    model: dict = {("p", 2): {(3, "a")}}
    removed, added, gone, came = module.read_rows(int(ffi.cast("intptr_t", buf)), 11, ["a", ("f", 1)], keys,
                                                  arities, model, {}, None)
    assert removed == {("p", 2): {(3, "a")}} and added == {("p", 2): {(4, ("f", 1))}, ("q", 1): {(native.SYM_BASE + 5,)}}
    assert (gone, came) == (1, 2) and model == {("p", 2): {(4, ("f", 1))}, ("q", 1): {(native.SYM_BASE + 5,)}}


def test_the_c_reading_of_a_change_is_the_python_ones_on_random_changes(monkeypatch):
    """infer._read_change and _read_columns with reader.c and with the Python code on random changes
    of a made-up plan: classes (some in disjointness axioms), object properties (some merging), data
    properties (functional, with a declared range), unnamed subjects, values of every kind (data
    terms, a term that is not a data value, non-strings where an individual goes): the same groups
    (types too), or None from both (a check that could fail, an atom not read without a message)."""
    from types import SimpleNamespace

    from ygo_onto.reasoning.fast import infer as fast_infer

    module = native.reader()
    plan = {("a", 1): (0, "A", False, "any", True), ("b", 1): (0, "B", False, "any", True),
            ("c", 1): (0, "C", False, "any", False), ("o", 2): (1, "O", False, "any", False),
            ("m", 2): (1, "M", False, "any", False), ("d", 2): (2, "D", True, "int", False),
            ("e", 2): (2, "E", False, "any", False), ("s", 2): (2, "S", False, "str", False)}
    related = {("a", 1): {("a", 1), ("b", 1)}, ("b", 1): {("a", 1), ("b", 1)}, ("d", 2): {("d", 2)},
               ("m", 2): {("m", 2)}}
    merging = {("m", 2): (1,)}
    subjects = ["x", "y", "z", "u", 3]
    values = ["x", "y", 1, 2, True, ("s", "t"), ("true",), ("false",), ("f", 1)]
    rng = random.Random(5)
    monkeypatch.setattr(fast_infer, "_plan", lambda comp, k: plan)
    monkeypatch.setattr(fast_infer, "_related_keys", lambda comp, k: related)
    monkeypatch.setattr(fast_infer, "_merging", lambda comp: merging)
    comp = SimpleNamespace(unnamed=frozenset({"u"}))

    def atoms(key) -> set:
        rows = set()
        for _ in range(rng.randrange(3 if rng.random() < 0.8 else 14)):
            s = rng.choice(subjects[:4])
            rows.add((s,) if key[1] == 1 else (s, rng.choice(values[:4] if key[0] != "e" else values)))
        if key[0] in "acos" and rng.random() < 0.05:
            rows.add((3,) if key[1] == 1 else ("x", 3))
        return rows

    def clean(rows):  # (removed atoms were read before: no data term that is not a data value)
        return {row for row in rows if not (len(row) == 2 and row[1] == ("f", 1))}

    def typed(groups):
        if groups is None:
            return None
        return {n: (type(g), frozenset(tuple((type(x), x) for x in f) for f in g)) for n, g in groups.items()}

    outcomes = {"none": 0, "groups": 0}
    for _ in range(600):
        model = {key: atoms(key) for key in plan if rng.random() < 0.6}
        ev = SimpleNamespace(atoms=model.get)
        base = {name: {(name, "x", 1) if kind else (name, "x")} for kind, name, *_ in
                rng.sample(list(plan.values()), 4)}
        base["Z"] = {("Z", "q")}
        removed = {key: clean(atoms(key)) for key in rng.sample(list(plan), 3)}
        removed = {key: rows for key, rows in removed.items() if rows}
        added = {key: atoms(key) for key in rng.sample(list(plan), 4)}
        added = {key: rows for key, rows in added.items() if rows}
        added[("q", 1)] = {("x",)}  # (a relation the plan does not read)
        for check_merges in (True, False):
            got = {}
            for c_reader in (True, False):
                monkeypatch.setattr(native, "reader", lambda: module if c_reader else None)
                as_rows = fast_infer._read_change(comp, None, ev, base, removed, added, check_merges)
                as_columns = fast_infer._read_columns(
                    comp, None, ev, base, {k: native._columns(r) for k, r in removed.items()},
                    {k: native._columns(r) for k, r in added.items()}, check_merges)
                got[c_reader] = typed(as_rows), typed(as_columns)
            assert got[True] == got[False]
            outcomes["none" if got[True][0] is None else "groups"] += 1
    assert min(outcomes.values()) > 150


def test_the_reader_keeps_no_reference_it_does_not_hand_back():
    """Every reading, its results dropped, leaves the reference counts of the values it read as they were
    (a reference kept per call would leak memory over a duel)."""
    import sys

    import cffi

    module = native.reader()
    ffi = cffi.FFI()
    big, name, term = 10 ** 9 + 7, "someone", ("s", "text")
    values = [name, term, ("true",), "other"]
    keys, arities = [("p", 2), ("c", 1), ("d", 2)], (2, 1, 2)
    sym = native.SYM_BASE
    words = [0, 1, 2, sym + 3, big, sym, big, sym, sym + 3, 1, 1, 1, sym + 3, sym,
             2, 1, 2, sym, sym + 1, sym + 3, sym + 2, sym, big]
    buf = ffi.new("int64_t[]", words)
    at = int(ffi.cast("intptr_t", buf))
    plan = {("p", 2): (1, "P", False, "any", False), ("c", 1): (0, "C", False, "any", True),
            ("d", 2): (2, "D", True, "any", False)}
    related = {("c", 1): {("c", 1), ("b", 1)}, ("d", 2): {("d", 2)}}
    watched = (name, term, big, "P", "C", "D", "other")

    def readings():
        model: dict = {}
        for _ in range(3):
            module.read_rows(at, len(words), values, keys, arities, model, {}, None)
        pending: dict = {}
        for _ in range(3):
            module.read_columns(at, len(words), values, keys, arities, pending, pending.pop, 1)
        removed, added, _, _ = module.read_rows(at, len(words), values, keys, arities, {}, {}, None)
        columns = {key: native._columns(rows) for key, rows in added.items()}
        base = {"P": {("P", "other", big)}, "C": {("C", name)}, "Z": {("Z", name)}}
        for check_merges in ({}, {("p", 2): (0, 1)}):
            for atoms in ({("b", 1): {("x",)}, ("d", 2): {("x", 1)}}.get, {("b", 1): {(name,)}}.get):
                module.read_change(base, plan, removed, added, frozenset({"u"}), related, check_merges, atoms, False)
                module.read_change(base, plan, columns, columns, frozenset(), related, check_merges, atoms, True)

    readings()
    before = [sys.getrefcount(v) for v in watched]
    for _ in range(200):
        readings()
    assert [sys.getrefcount(v) for v in watched] == before


def test_the_bundle_functions_keep_no_reference_they_do_not_hand_back():
    """reader.c's bundle_rows, fill_codes and part_ids, their results dropped, on every path (facts without a code, a
    code by content, a new code with a value interned, a predicate the program does not mention, a reading
    refused or raising; part_ids): the reference counts of what they read are as they were."""
    import struct
    import sys

    module = native.reader()
    facts = (("q", "ref-a"), ("p", "ref-a", 1), ("t", "ref-b"), ("p", "ref-a", "ref-b"))
    types = (str, int, str, str)
    preds = {("q", 1): 0, ("p", 2): 1}
    same = (tuple(["q", "ref-a"]),)

    def refuse(facts):
        raise ValueError("no")

    def coding():
        by_id: dict = {}
        codes: dict = {}
        enc = {"ref-a": native.SYM_BASE, 1: 1}
        assert module.bundle_rows(facts, types, by_id) == [0, 1, 2, 3]
        assert module.fill_codes(facts, [0, 1, 2, 3], by_id, codes, _read_tiny, preds, enc,
                                 lambda v: enc.setdefault(v, native.SYM_BASE + len(enc))) is True
        assert module.bundle_rows(facts, types, by_id) is None  # (t: not the program's)
        assert type(module.bundle_rows(facts[:2], types[:2], by_id)) is bytes
        assert module.fill_codes(same, [0], by_id, codes, refuse, preds, enc, None) is True  # (by content)
        assert module.fill_codes((("q", "z"),), [0], by_id, codes, lambda f: None, preds, enc, None) is False
        assert module.fill_codes(([1],), [0], by_id, codes, _read_tiny, preds, enc, None) is False
        with pytest.raises(ValueError):
            module.fill_codes((("q", "y"),), [0], by_id, codes, refuse, preds, enc, None)
        parts_of = {id(facts): 3, id(same): 5}
        assert module.part_ids([facts, same], [facts], struct.pack("=i", 7), parts_of) == struct.pack("=2i", 7, 5)
        assert module.part_ids([facts, same, types], [], b"", parts_of) == [2]
        with pytest.raises(ValueError):
            module.part_ids([types], [], b"", {id(types): -1})

    coding()
    watched = (*facts, *same, "ref-a", "ref-b", ("p", 2))  # (not the types or small ints: shared by everything)
    before = [sys.getrefcount(v) for v in watched]
    for _ in range(200):
        coding()
    assert [sys.getrefcount(v) for v in watched] == before
