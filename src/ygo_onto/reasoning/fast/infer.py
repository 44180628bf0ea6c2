"""infer_facts: the model of a state's facts, by the evaluator or by clingo, read back as facts."""
from __future__ import annotations

import operator
from itertools import repeat

from ...errors import ReasonerError
from .clingo_backend import _clingo_model
from .. import Facts
from . import native
from .compiler import Compiled, compiled
from .evaluator import _Evaluator, _NotSupported, code_cache
from .facts import _CLASS, _KIND_OF, _OBJECT, _abox, _data, _merge_preds, _plan, _read_each, _read_model, _union_into
from .names import cpred, ppred

def _evaluator(comp: Compiled, equality: bool) -> _Evaluator | None:
    """The evaluator of the program (with or without the equality section): the native engine
    (native.py) unless YGO_FAST_EVALUATOR=python or it cannot be built or does not reproduce the
    program, then the Python one; None if neither reproduces the program (clingo runs it)."""
    slot = 1 if equality else 0
    ev = comp.evaluators[slot]
    if ev is None:
        program = comp.program if equality else comp.program_without_eq
        ev = False
        if native.EVALUATOR == "native":
            try:
                ev = native.NativeEvaluator(program, comp.parsed[slot])
            except _NotSupported:
                pass
        if not ev:
            try:
                ev = _Evaluator(program, comp.parsed[slot], code_cache(comp.code_entry))
            except _NotSupported:
                ev = False
        comp.evaluators[slot] = ev
    return ev or None


def _model(comp: Compiled, knowledge, facts, abox, equality: bool, check_merges: bool, evaluator: bool = True):
    """_read_model of the model of the program (with or without the equality section), computed
    by the evaluator, or by clingo when it cannot (or `evaluator` is False).  `abox`: a function
    that gives _abox of the facts (the native evaluator takes an abox.ABox by its parts instead)."""
    ev = _evaluator(comp, equality) if evaluator else None
    if ev is not None:
        with ev.lock:
            try:
                parts = getattr(facts, "parts", None)
                if parts is None or type(ev) is not native.NativeEvaluator or \
                        not ev.run_bundles(parts, lambda facts: _read_each(comp, knowledge, facts)):
                    ev.run(abox())
            except _NotSupported:
                pass
            else:
                return _read_evaluator(knowledge, comp, check_merges, ev)
    abox()  # (the facts' checks and messages, as before any evaluator run)
    return _read_model(knowledge, comp, check_merges, _clingo_model(comp, knowledge, facts, equality))


def _read_evaluator(knowledge, comp: Compiled, check_merges: bool, ev: _Evaluator):
    """_read_model of the evaluator's model.  After a run that went on from a model already read
    (ev.reading: the groups of that reading's Facts), only what changed is read, with, where a check
    could fail on it, the relations the merge and consistency checks compare it to (_checked,
    _related): after a run that only added
    atoms, the added atoms (the facts are those of the previous reading and of the new atoms);
    after a run that deleted and rederived, the atoms it added (the facts are the previous reading's, less those
    of the atoms it took out, and those of the added atoms).  A check fails on the whole model
    exactly when it fails on that part, with the same message (the previous model passed every
    check).  The facts are built by name (Facts' groups): the names that did not change share the
    previous reading's sets.  The added and the deleted-and-rederived runs are read in one pass over
    their change (_read_change) unless a check could fail on it: then by the steps above."""
    base, ev.reading = ev.reading, None
    columns = ev.change_columns() if base is not None and type(ev) is native.NativeEvaluator else None
    if columns is not None:
        groups = _read_columns(comp, knowledge, ev, base, *columns, check_merges)
        if groups is not None:
            ev.reading = groups
            return False, Facts(groups)
    added = ev.added_model()
    change = ev.changed_model() if added is None else None
    if columns is None and base is not None and (added is not None or change is not None):
        groups = _read_change(comp, knowledge, ev, base, *(change or ((), added)), check_merges)
        if groups is not None:
            ev.reading = groups
            return False, Facts(groups)
    if base is not None and change is not None:
        removed, added = change
        merges, result = _read_model(knowledge, comp, check_merges, _checked(comp, knowledge, ev, added, check_merges))
        if not merges:
            result = Facts(_groups_after(base, result.groups, _facts_of(comp, knowledge, removed)))
    elif base is not None and added is not None:
        merges, result = _read_model(knowledge, comp, check_merges, _checked(comp, knowledge, ev, added, check_merges))
        if not merges:
            result = Facts(_groups_after(base, result.groups))
    else:
        merges, result = _read_model(knowledge, comp, check_merges, ev.model())
    if not merges:
        ev.reading = result.groups
    return merges, result


def _read_change(comp: Compiled, knowledge, ev: _Evaluator, base: dict, removed, added: dict,
                 check_merges: bool) -> dict | None:
    """The groups of the reading after a run that went on from the reading `base` (the previous
    reading's groups) and took out the atoms `removed`, put in `added`: what the three steps below
    give (_checked, _read_model of it, _groups_after of _facts_of), in one pass over the change, or
    None where a check could fail (_checked would read related relations) or an added atom is not
    what _read_model reads without a message (not an individual, a data value out of its range):
    the caller then takes those steps, which give the answer or the message.  No check needs more
    than the added atoms here: the merge, functional and disjointness checks fail only on a pair
    with an added atom, which _checked's test finds (as in _checked); the type and range checks
    are on single atoms."""
    plan, related = _keyed(comp, knowledge, ev)
    unnamed = comp.unnamed
    merging = _merging(comp) if check_merges else {}
    read = native.reader()
    if read is not None:  # (reader.c: the same steps; None also where they raise, the caller's steps then do)
        return read.read_change(base, plan, removed or None, added, unnamed, related, merging, ev.atoms, False)
    groups = dict(base)
    for key, rows in removed.items() if removed else ():
        _take_out(groups, plan.get(key), rows, unnamed)
    try:
        for key, rows in added.items():
            entry = plan.get(key)
            if entry is None:
                continue
            if key in related and _may_fail(ev, key, rows, entry, related, merging):
                return None
            out = _facts_added(entry, rows, unnamed)
            if out is None:
                return None
            _put_in(groups, entry[1], out)
    except ReasonerError:  # (_data: a value that is not a data value; the steps give the message)
        return None
    return groups


def _read_columns(comp: Compiled, knowledge, ev: _Evaluator, base: dict, removed: dict, added: dict,
                 check_merges: bool) -> dict | None:
    """_read_change of a change given as columns (the native evaluator's after a large change:
    NativeEvaluator.change_columns, each relation's atoms as a list of the values at each position),
    without the atoms built as rows: the same groups, or None where _read_change gives None.  A
    relation with many atoms is read in bulk (the types of a column as one set, the facts built by
    zip); one with a few, one atom at a time as _read_change does (cheaper there)."""
    plan, related = _keyed(comp, knowledge, ev)
    unnamed = comp.unnamed
    merging = _merging(comp) if check_merges else {}
    read = native.reader()
    if read is not None:
        return read.read_change(base, plan, removed, added, unnamed, related, merging, ev.atoms, True)
    groups = dict(base)
    for key, columns in removed.items():
        _take_out(groups, plan.get(key), zip(*columns), unnamed)
    try:
        for key, columns in added.items():
            entry = plan.get(key)
            if entry is None:
                continue
            kind, name, check_fun, rt, disjoint = entry
            if key in related and _may_fail(ev, key, zip(*columns), entry, related, merging):
                return None
            subjects = columns[0]
            if len(subjects) < _BULK:
                out = _facts_added(entry, zip(*columns), unnamed)
                if out is None:
                    return None
            elif set(map(type, subjects)) != _STR:
                return None
            elif kind == _CLASS:
                out = set(zip(repeat(name), subjects))
            else:
                values = columns[1]
                types = set(map(type, values))
                if kind == _OBJECT:
                    if types != _STR:
                        return None
                else:
                    if tuple in types:
                        values = _data_column(values)
                        types = set(map(type, values))
                    if rt != "any" and types != _TYPE_OF.get(rt):
                        return None
                out = set(zip(repeat(name), subjects, values))
            if len(subjects) >= _BULK and not unnamed.isdisjoint(subjects):
                out = {fact for fact in out if fact[1] not in unnamed}
            _put_in(groups, name, out)
    except ReasonerError:  # (_data: a value that is not a data value; the steps give the message)
        return None
    return groups


def _keyed(comp: Compiled, knowledge, ev: _Evaluator) -> tuple[dict, dict]:
    """_plan and _related_keys, equal dicts keyed by the native evaluator's own key objects where it has them:
    the keys of its changes are those objects, so a lookup finds its entry by identity, without comparing
    two tuples (a few lookups per changed relation, every run; cached on the evaluator)."""
    got = ev.keyed if type(ev) is native.NativeEvaluator else None
    if got is not None and got[0] is comp.plan and got[1] is comp.related:
        return got[2], got[3]
    plan, related = _plan(comp, knowledge), _related_keys(comp, knowledge)
    if type(ev) is not native.NativeEvaluator:
        return plan, related
    if got is None or got[0] is not plan or got[1] is not related:
        own = {key: key for key in ev.preds}
        got = ev.keyed = (plan, related, {own.get(key, key): entry for key, entry in plan.items()},
                          {own.get(key, key): {own.get(other, other) for other in others}
                           for key, others in related.items()})
    return got[2], got[3]


def _take_out(groups: dict, entry, rows, unnamed) -> None:
    """Take the facts of a relation's removed atoms (`entry`: its _plan entry, None if none) out of `groups`."""
    if entry is None:
        return
    kind, name = entry[0], entry[1]
    got = groups.get(name)
    if not got:
        return
    if kind == _CLASS:
        gone = {(name, s) for (s,) in rows if s not in unnamed}
    elif kind == _OBJECT:
        gone = {(name, s, o) for s, o in rows if s not in unnamed}
    else:
        gone = {(name, s, _data(v) if type(v) is tuple else v) for s, v in rows if s not in unnamed}
    rest = got - gone
    if rest:
        groups[name] = rest
    else:
        del groups[name]


def _facts_added(entry: tuple, rows, unnamed) -> set | None:
    """The facts of a relation's added atoms, one atom at a time, or None for an atom _read_model would
    not read without a message (not an individual, a data value out of its range); raises what _data raises."""
    kind, name, _, rt, _ = entry
    out: set = set()
    add = out.add
    if kind == _CLASS:
        for (subject,) in rows:
            if type(subject) is not str:
                return None
            if subject not in unnamed:
                add((name, subject))
    elif kind == _OBJECT:
        for subject, value in rows:
            if type(subject) is not str or type(value) is not str:
                return None
            if subject not in unnamed:
                add((name, subject, value))
    else:
        for subject, value in rows:
            if type(subject) is not str:
                return None
            if type(value) is tuple:
                value = _data(value)
            if rt != "any" and rt != _KIND_OF.get(type(value)):
                return None
            if subject not in unnamed:
                add((name, subject, value))
    return out


def _put_in(groups: dict, name: str, facts: set) -> None:
    if facts:
        got = groups.get(name)
        groups[name] = got | facts if got else facts


_DATA_OF: dict = {}  # a value of the model -> _data of it (the few data values of a duel, read often)


def _data_column(values: list) -> list:
    """_data of each function term among `values` (memoized by value; raises what _data raises)."""
    memo = _DATA_OF
    try:
        return [memo[v] if type(v) is tuple else v for v in values]
    except KeyError:
        if len(memo) > 100_000:
            memo.clear()
        for v in values:
            if type(v) is tuple and v not in memo:
                memo[v] = _data(v)
        return [memo[v] if type(v) is tuple else v for v in values]


def _groups_after(base: dict, read: dict, gone: set = frozenset()) -> dict:
    """The index by name of the previous reading (`base`), less the facts `gone`, with the facts
    just read (`read`) added."""
    groups = dict(base)
    by_name: dict[str, set] = {}
    for f in gone:
        by_name.setdefault(f[0], set()).add(f)
    for name, facts in by_name.items():
        rest = groups.get(name, frozenset()) - facts
        if rest:
            groups[name] = rest
        else:
            groups.pop(name, None)
    for name, facts in read.items():
        _union_into(groups, name, facts)
    return groups


def _facts_of(comp: Compiled, knowledge, atoms: dict) -> set:
    """The facts that these atoms of a model answer, as _read_model reads them (without its checks:
    for atoms taken out of a model that passed them)."""
    plan, unnamed, out = _plan(comp, knowledge), comp.unnamed, set()
    for key, rel in atoms.items():
        entry = plan.get(key)
        if entry is None:
            continue
        kind, name = entry[0], entry[1]
        if kind == _CLASS:
            out.update((name, s) for (s,) in rel if s not in unnamed)
        elif kind == _OBJECT:
            out.update((name, s, o) for s, o in rel if s not in unnamed)
        else:
            out.update((name, s, _data(v) if type(v) is tuple else v) for s, v in rel if s not in unnamed)
    return out


def _checked(comp: Compiled, knowledge, ev: _Evaluator, added: dict, check_merges: bool) -> dict:
    """What _read_model must read of a model that went on from one that passed every check, with
    `added` atoms: `added` alone when no check can fail on the new model, else `added` with the
    relations the checks compare it to (_related: the checks then fail with their messages).

    A check that fails on the new model fails on a pair of atoms (two values of a functional
    property, or of a merging one; two classes of a disjointness axiom) or on one atom (a value
    out of its range), and one of them is an added atom.  So it is enough to look, in C loops,
    at the relations and classes that the added atoms reach: a functional (merging) relation
    with as many subjects (objects) as atoms, an added member of a class of a disjointness
    axiom in none of the axiom's other classes.  The range check reads the added atoms."""
    plan, related = _plan(comp, knowledge), _related_keys(comp, knowledge)
    merging = _merging(comp) if check_merges else {}
    for key, rows in added.items():
        entry = plan.get(key)
        if entry is not None and key in related and _may_fail(ev, key, rows, entry, related, merging):
            return _related(comp, knowledge, ev, added)
    return added


def _may_fail(ev: _Evaluator, key, rows, entry: tuple, related: dict, merging: dict) -> bool:
    """_checked's test of the added atoms `rows` of `key` (one of _related_keys, `entry` its _plan):
    whether a check can fail on them and the model."""
    if entry[4]:  # a class of a disjointness axiom
        others = [atoms for other in related[key] if other != key and (atoms := ev.atoms(other))]
        return bool(others) and any(row in atoms for row in rows for atoms in others)
    positions = (0,) if entry[2] else merging.get(key, ())  # (a functional data property: its subjects)
    atoms = ev.atoms(key) if positions else None
    return bool(atoms) and any(len(set(map(_AT[pos], atoms))) != len(atoms) for pos in positions)


_AT = (operator.itemgetter(0), operator.itemgetter(1))
_STR = {str}
_BULK = 8  # _read_columns: the atoms of a relation from which it reads them in bulk (below: one by one, cheaper)
_TYPE_OF = {kind: {t} for t, kind in _KIND_OF.items()}  # a data range -> the one type of its values


def _merging(comp: Compiled) -> dict:
    """(ASP predicate, 2) -> the positions (0 subject, 1 object) where two atoms of it with the same
    value there merge individuals (facts._merge_preds by predicate)."""
    if comp.merging is None:
        merging: dict = {}
        for key, pos in _merge_preds(comp):
            merging[key] = merging.get(key, ()) + (pos,)
        comp.merging = merging
    return comp.merging


def _related_keys(comp: Compiled, knowledge) -> dict:
    """(ASP predicate, arity) -> the relations the checks compare it to: the classes of its
    disjointness axioms; itself, for a functional or inverse-functional property (cached)."""
    if comp.related is None:
        related: dict = {}
        for group in comp.disjoint:
            keys = [(cpred(c), 1) for c in sorted(group)]
            for key in keys:
                related.setdefault(key, set()).update(keys)
        for p in knowledge.vocabulary.functional | comp.functional | comp.inverse_functional:
            related.setdefault((ppred(p), 2), set()).add((ppred(p), 2))
        comp.related = related
    return comp.related


def _related(comp: Compiled, knowledge, ev: _Evaluator, added: dict) -> dict:
    """The added atoms, and in full the relations the checks relate them to: the same functional
    (inverse-functional) property, the classes of the same disjointness axioms."""
    related = _related_keys(comp, knowledge)
    out = dict(added)
    for key in added:
        for other in related.get(key, ()):
            atoms = ev.atoms(other)
            if atoms is not None:
                out[other] = atoms
    return out


def prepare(knowledge) -> None:
    """Compile the knowledge's program (or take it from the disk cache) and make its evaluator, as its first
    infer_facts does (bench: a duel's time without the loading)."""
    _evaluator(compiled(knowledge), False)


def infer_facts(knowledge, facts, evaluator: bool = True) -> set[tuple]:
    """Every fact about the named individuals; evaluator=False: computed by clingo (the same
    answer, ~20-50x slower; for tests)."""
    comp = compiled(knowledge)
    read: list = []

    def abox() -> dict:  # (read once, when asked)
        if not read:
            read.append(_abox(comp, knowledge, facts))
        return read[0]

    merges, result = _model(comp, knowledge, facts, abox, False, True, evaluator)
    if merges:
        _, result = _model(comp, knowledge, facts, abox, True, False, evaluator)
    return result
