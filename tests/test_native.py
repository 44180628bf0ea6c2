"""The native evaluator (reasoning/fast/native.c through native.py) gives exactly the Python
evaluator's models (which the other tests compare with clingo and Pellet), run after run."""
from __future__ import annotations

import functools
import random
import warnings

import pytest

from ygo_onto.knowledge import knowledge
from ygo_onto.reasoning import fast
from ygo_onto.reasoning.fast import native
from ygo_onto.reasoning.fast.evaluator import _Evaluator, _NotSupported

from test_fast_backend import TERMS_PROGRAM, _clingo_atoms

# skipped only where no compiler is found (the Python evaluator then runs); with a compiler, a failed
# build fails the first test instead of skipping them all
pytestmark = pytest.mark.skipif(native._compiler() is None, reason="no C compiler: the Python evaluator runs")


def test_the_library_builds_where_a_compiler_is_found():
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


@pytest.mark.parametrize("update", ["dred", "scratch"])
def test_changes_reported_are_the_differences_of_the_models(update):
    """After each run: added_model (nothing removed) or changed_model (removed, added) is exactly
    the difference from the previous model, and facts of predicates the program does not mention
    are carried as given."""
    program = "k1(X) :- a(X). k2(Y) :- k1(X), rel(X,Y). k1(Y) :- k2(X), rel(X,Y). w(X,M) :- k1(X), v(X,N), M=N+1."
    base = {("a", 1): {("x",)}, ("rel", 2): {("x", "y"), ("y", "z"), ("z", "y")}, ("v", 2): {("z", 4)}}
    steps = [base, {**base, ("v", 2): {("z", 4), ("y", 1)}}, {**base, ("a", 1): {("z",)}},
             {**base, ("a", 1): set(), ("b", 1): {("q",)}}, {**base, ("b", 1): {("q",), ("r",)}}, base]
    ev, py = native.NativeEvaluator(program), _Evaluator(program)
    ev.update = update
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
    scratch.update = "scratch"
    for _ in range(3):  # (again and again: rows taken out stay behind as dead rows, then are compacted)
        for facts in steps:
            ev.run(facts)
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
        scratch.update = "scratch"
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


def test_the_library_builds_without_the_disk_cache(monkeypatch, tmp_path):
    monkeypatch.setenv("YGO_NO_CACHE", "1")
    monkeypatch.setattr(native, "_TMPDIR", str(tmp_path))
    ffi, lib = native._load()
    assert [p.name for p in tmp_path.iterdir() if p.suffix == ".so"]
    assert lib.ng_new is not None
    monkeypatch.setenv("CC", "/nonexistent/cc")
    with pytest.raises(RuntimeError, match="no C compiler"):
        native._load()


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
