"""Reading facts: the ABox facts into the evaluator's relations, and a model back into facts (with the consistency checks)."""
from __future__ import annotations

import itertools
import operator

from ...errors import ReasonerError
from .. import Facts
from .compiler import Compiled
from .names import INT_MAX, INT_MIN, cpred, ppred

def _check_consistency(knowledge, comp: Compiled, classes: dict[str, set[str]],
                       functional: dict[tuple[str, str], set], bad_range: list[tuple]) -> None:
    """What makes Pellet report an inconsistent state."""
    v = knowledge.vocabulary
    if bad_range:  # the first in a fixed order (the model is a set)
        p, s, value = min(bad_range, key=repr)
        raise ReasonerError(f"fast: the state is inconsistent with the ontology: {p}({s}, {value!r}) "
                            f"is not a value of {v.data_properties[p]}")
    individuals = sorted(classes)
    for group in comp.disjoint:
        for ind in individuals:
            common = classes[ind] & group
            if len(common) > 1:
                raise ReasonerError(f"fast: the state is inconsistent with the ontology: {ind} is in the disjoint "
                                    f"classes {', '.join(sorted(common))}")
    for (p, s) in sorted(functional):
        vals = functional[(p, s)]
        if len(vals) > 1:
            shown = ", ".join(sorted(repr(x) for _, x in vals))
            raise ReasonerError(f"fast: the state is inconsistent with the ontology: {p} is functional and "
                                f"{s} has the values {shown}")


_TRUE, _FALSE = ("true",), ("false",)


def _names(comp: Compiled, knowledge) -> tuple[dict, dict]:
    """Class name -> ASP predicate, property name -> (ASP predicate, kind), to read the facts (cached)."""
    if comp.names is None:
        v = knowledge.vocabulary
        props = {p: (ppred(p), "data") for p in v.data_properties}
        props.update((p, (ppred(p), "object")) for p in v.object_properties)
        comp.names = ({c: cpred(c) for c in v.classes}, props)
    return comp.names


def _abox(comp: Compiled, knowledge, facts) -> dict[tuple[str, int], set]:
    """The ABox facts as values of the evaluator, by predicate, with the checks (and messages) of
    facts_program.  Names are plain str, as clingo gives them back.

    What the previous call read is reused: when `facts` is a list that begins with the very fact
    tuples of the previous call (a state's ABox, then with an action's facts after it: see
    game.run_reasoner), only the rest is read; when it differs from the previous call's facts in
    a few facts (the next state of a duel: a median of five), only those are read or taken out
    (_abox_change).  The sets left unchanged are the previous call's, so the evaluator skips them."""
    parts = getattr(facts, "parts", None)
    if parts is not None:
        out = _abox_parts(comp, knowledge, facts, parts)
        # (the facts as sets are not computed: a list that extends these is read from the prefix)
        comp.last_abox = (tuple(facts), out, None)
        return out
    last = comp.last_abox
    out = sets = None
    plain = True
    if last is not None and type(facts) is list:
        if len(facts) >= len(last[0]) and all(map(operator.is_, facts, last[0])):
            out = dict(last[1])  # (the sets are never changed: the evaluator keeps them as its input)
            rest = facts[len(last[0]):]
            more, plain = _read_facts(comp, knowledge, rest)
            for key, values in more.items():
                _union_into(out, key, values)
            if plain and last[2] is not None:
                sets = last[2][0].union(rest), last[2][1].union(_booleans(rest))
        else:
            out, plain, sets = _abox_change(comp, knowledge, facts, last)
    if out is None:
        out, plain = _read_facts(comp, knowledge, facts)
    # a snapshot of immutable facts only: a list the caller changes later, or a fact that is a
    # list, must not look like the same facts
    comp.last_abox = (tuple(facts), out, sets) if plain and type(facts) is list else None
    return out


_BOOL = object()  # (a key of _abox_parts' counts: a fact with a boolean value, which a set does not tell from 1 or 0)


def _counted(facts, counts: dict, step: int, changed: list) -> None:
    """Count the facts in (step 1) or out (step -1) of `counts` (fact -> how many parts hold it;
    a fact with a boolean value under (_BOOL, fact)), listing in `changed` those whose count was 0
    (in) or came to 0 (out)."""
    get = counts.get
    for f in facts:
        key = (_BOOL, f) if type(f[-1]) is bool else f
        n = get(key, 0) + step
        if n:
            counts[key] = n
            if n == 1 and step == 1:
                changed.append(f)
        else:
            del counts[key]
            changed.append(f)


def _abox_parts(comp: Compiled, knowledge, facts, parts: dict) -> dict:
    """_abox of an abox.ABox: from the reading of the previous ABox, by its parts that are not equal
    to the previous ABox's (a next state of a duel changes a few parts of ~40); its facts in no
    part that is left and in no other part are taken out, those of the new parts in no part of
    before are read.  Without a previous ABox, or where a fact is not what state_facts gives,
    the facts are read in full (with the messages of _read_facts)."""
    last, comp.last_parts = comp.last_parts, None
    changed = None
    if last is not None:
        before, counts, out = last
        # the parts that changed (the facts, and the types of their values: True == 1), or None
        # where they hold many of the facts (another state than the next one: read in full)
        changed = [slot for slot in parts if parts[slot] != before.get(slot)]
        size = sum(len(parts[slot][0]) + len(before[slot][0] if slot in before else ()) for slot in changed)
        left = [slot for slot in before if slot not in parts]
        size += sum(len(before[slot][0]) for slot in left)
        if size * 4 > len(facts):
            changed = None
    if changed is not None:
        try:
            if counts is None:  # (counted when first needed: see below)
                counts = {}
                for part, _ in before.values():
                    _counted(part, counts, 1, [])
            came: list = []
            went: list = []
            for slot in changed:
                _counted(parts[slot][0], counts, 1, came)
                old = before.get(slot)
                if old:
                    _counted(old[0], counts, -1, went)
            for slot in left:
                _counted(before[slot][0], counts, -1, went)
            memo = comp.facts_memo
            gone: dict = {}
            for f in went:
                if ((_BOOL, f) if type(f[-1]) is bool else f) in counts:
                    continue  # (in another part: moved)
                hit = memo.get(f)
                if hit is None or type(f[-1]) is not hit[2]:
                    raise LookupError(f)
                gone.setdefault(hit[0], set()).add(hit[1])
            new = [f for f in came if ((_BOOL, f) if type(f[-1]) is bool else f) in counts]
            more, plain = _read_facts(comp, knowledge, new)
            if not plain:
                raise LookupError(new)
            out = dict(out)
            for key, values in gone.items():
                rest = out[key] - values
                if rest:
                    out[key] = rest
                else:
                    del out[key]
        except (TypeError, IndexError, LookupError, ReasonerError):
            pass  # read in full
        else:
            for key, values in more.items():
                _union_into(out, key, values)
            comp.last_parts = (parts, counts, out)
            return out
    out, plain = _read_facts(comp, knowledge, facts)
    if plain:  # (the facts by how many parts hold them are counted when a next ABox needs them)
        comp.last_parts = (parts, None, out)
    return out


def _booleans(facts) -> frozenset:
    """The facts whose value is a boolean (C loops only: this runs on every state of a duel)."""
    is_bool = map(operator.is_, map(type, map(operator.itemgetter(-1), facts)), itertools.repeat(bool))
    return frozenset(itertools.compress(facts, is_bool))


def _abox_change(comp: Compiled, knowledge, facts: list, last: tuple) -> tuple[dict | None, bool, tuple | None]:
    """_abox from the previous call's reading `last` when `facts` changes few of its facts:
    (reading, plain, (the facts as a set, those with a boolean value)), or (None, ...) to read
    them in full.  Sets compare facts as tuples, where True == 1: a fact in both that became (or
    stopped being) a boolean is a change they do not see, so that is read in full too."""
    try:
        sets = current, flags = frozenset(facts), _booleans(facts)
    except (TypeError, IndexError):  # an unhashable or empty fact: read in full (an error)
        return None, False, None
    if last[2] is None:
        return None, True, sets
    before, before_flags = last[2]
    gone, new = before - current, current - before
    if (len(gone) + len(new)) * 4 > len(current) or (flags ^ before_flags) - gone - new:
        return None, True, sets
    memo = comp.facts_memo
    out = dict(last[1])
    for f in gone:
        hit = memo.get(f)
        if hit is None or type(f[-1]) is not hit[2]:  # (emptied: it holds at most 50,000 facts)
            return None, True, sets
        key = hit[0]
        rest = out[key] - {hit[1]}
        if rest:
            out[key] = rest
        else:
            del out[key]
    try:
        more, plain = _read_facts(comp, knowledge, new)
    except ReasonerError:  # read in full: the message names the first bad fact in the list's order
        return None, True, sets
    for key, values in more.items():
        _union_into(out, key, values)
    return out, plain, sets


def _read_facts(comp: Compiled, knowledge, facts) -> tuple[dict[tuple[str, int], set], bool]:
    """_abox without the reuse: the facts by predicate, and whether every fact was a tuple."""
    classes, props = _names(comp, knowledge)
    plain = True
    memo = comp.facts_memo
    if len(memo) > 50_000:
        memo.clear()
    out: dict[tuple[str, int], set] = {}
    get = memo.get
    for f in facts:
        # the facts of a duel repeat from state to state: each is read once.  (True == 1 and they
        # hash alike: a hit counts only if the value has the type it had; a name never equals a
        # non-string.)
        try:
            hit = get(f)
        except TypeError:  # unhashable: an error below
            hit = None
        if hit is not None and type(f[-1]) is hit[2]:
            key = hit[0]
            rel = out.get(key)
            if rel is None:
                out[key] = {hit[1]}
            else:
                rel.add(hit[1])
            continue
        key, value = _reading(f, classes, props)
        if type(f) is tuple:
            memo[f] = (key, value, type(f[-1]))
        else:
            plain = False
        rel = out.get(key)
        if rel is None:
            out[key] = {value}
        else:
            rel.add(value)
    return out, plain


def _reading(f, classes: dict, props: dict) -> tuple:
    """A fact as (key, value) of the evaluator's relations, with the checks (and messages) of facts_program."""
    n = len(f)
    if n == 2:
        cls, ind = f
        pred = classes.get(cls)
        if pred is None:
            raise ReasonerError(f"fast: fact {f!r}: {cls!r} is not a class of the ontology")
        if type(ind) is not str:
            if not isinstance(ind, str):
                raise ReasonerError(f"fast: fact {f!r}: expected an individual name")
            ind = str.__str__(ind)
        return (pred, 1), (ind,)
    if n == 3:
        p, s, o = f
        if type(s) is not str:
            if not isinstance(s, str):
                raise ReasonerError(f"fast: fact {f!r}: expected an individual name as subject")
            s = str.__str__(s)
        entry = props.get(p)
        if entry is None:
            raise ReasonerError(f"fast: fact {f!r}: {p!r} is not a property of the ontology")
        t = type(o)
        if entry[1] == "object":
            if t is not str:
                if not isinstance(o, str):
                    raise ReasonerError(f"fast: fact {f!r}: {p} is an object property, expected an individual")
                o = str.__str__(o)
        elif t is int or t is not bool and t is not str and isinstance(o, int):
            if not INT_MIN <= o <= INT_MAX:
                raise ReasonerError(f"fast: fact {f!r}: fast: the integer {o} is outside clingo's 32-bit range")
            if t is not int:
                o = int(o)
        elif t is bool:
            o = _TRUE if o else _FALSE
        elif isinstance(o, str):
            o = ("s", str.__str__(o))
        else:
            raise ReasonerError(f"fast: fact {f!r}: fast: expected an integer, a boolean or a string as a data "
                                f"value, got {o!r}")
        return (entry[0], 2), (s, o)
    raise ReasonerError(f"fast: expected (Class, individual) or (property, subject, object), got {f!r}")


def _read_each(comp: Compiled, knowledge, facts) -> list | None:
    """Each fact read as _read_facts reads it: [(key, value)] in the order of `facts`, or None if a
    fact is not a tuple; raises ReasonerError as _read_facts does.  (native's bundles: a new part's
    new facts in one call; they keep their own memo, so facts_memo is neither read nor filled.)"""
    classes, props = _names(comp, knowledge)
    out = []
    for f in facts:
        if type(f) is not tuple:
            return None
        out.append(_reading(f, classes, props))
    return out


def _not_individual(pred: str, value):
    return ReasonerError(f"fast: the model has {pred}(..., {value!r}, ...) where an individual is expected")


def _data(value):
    """A value of the model as a data value: s("...") is a string, true and false booleans."""
    if value[0] == "true":
        return True
    if value[0] == "false":
        return False
    if len(value) > 1 and type(value[1]) is str:  # s("...")
        return value[1]
    raise ReasonerError(f"fast: the model has the data value {value!r}")


_CLASS, _OBJECT, _DATA = 0, 1, 2


def _plan(comp: Compiled, knowledge) -> dict:
    """(ASP predicate, arity) -> what an atom of it answers: (kind, name, functional data property?,
    declared range, in a disjointness axiom?) (cached)."""
    if comp.plan is None:
        functional = knowledge.vocabulary.functional
        disjoint = set().union(*comp.disjoint) if comp.disjoint else set()
        plan = {}
        for pred, (kind, name) in comp.out.items():
            if kind == "class":
                plan[(pred, 1)] = (_CLASS, name, False, "any", name in disjoint)
            elif kind == "object":
                plan[(pred, 2)] = (_OBJECT, name, False, "any", False)
            else:
                plan[(pred, 2)] = (_DATA, name, name in functional, comp.ranges.get(name, "any"), False)
        comp.plan = plan
    return comp.plan


def _read_model(knowledge, comp: Compiled, check_merges: bool, model: dict) -> tuple[bool, set[tuple] | None]:
    """(True, None) if check_merges and the model merges individuals (see _merges), else (False,
    the facts it answers) after the consistency checks."""
    if check_merges and _merges(comp, model):
        return True, None
    unnamed = comp.unnamed
    plan = _plan(comp, knowledge)
    groups: dict[str, set] = {}  # name -> its facts (sets shared with the memo: never changed in place)
    classes: dict[str, set[str]] = {}  # of the classes in a disjointness axiom
    functional: dict[tuple[str, str], set] = {}
    bad_range: list[tuple] = []
    # Most relations of a model are equal to one of the model before (86% of the atoms in a
    # duel), so the facts of each relation are remembered with the atoms they were read from.
    # A relation is remembered only when the whole model passed the checks; its own checks
    # (types, ranges, a functional property's values) then pass again on the same atoms.  The
    # classes of a disjointness axiom are checked together, so they are always read.
    memo = comp.read_memo
    read: list[tuple] = []
    for key, rel in model.items():
        entry = plan.get(key)
        if entry is None or not rel:
            continue
        kind, name, check_fun, rt, disjoint = entry
        if not disjoint:
            hit = memo.get(key)
            if hit is not None and hit[0] == rel:
                _union_into(groups, name, hit[1])
                continue
        out: set[tuple] = set()
        add = out.add
        read.append((key, rel, out))
        if kind == _CLASS:
            for (subject,) in rel:
                if type(subject) is not str:
                    raise _not_individual(key[0], subject)
                if subject not in unnamed:
                    add((name, subject))
                if disjoint:
                    classes.setdefault(subject, set()).add(name)
        elif kind == _OBJECT:
            for subject, value in rel:
                if type(subject) is not str or type(value) is not str:
                    raise _not_individual(key[0], value if type(subject) is str else subject)
                if subject not in unnamed:
                    add((name, subject, value))
        else:
            for subject, value in rel:
                if type(subject) is not str:
                    raise _not_individual(key[0], subject)
                if type(value) is tuple:
                    value = _data(value)
                if check_fun:  # typed: 1 and True are different values
                    functional.setdefault((name, subject), set()).add((type(value), value))
                if rt != "any" and rt != _KIND_OF.get(type(value)):
                    bad_range.append((name, subject, value))
                if subject not in unnamed:
                    add((name, subject, value))
    _check_consistency(knowledge, comp, classes, functional, bad_range)
    for key, rel, out in read:
        _union_into(groups, plan[key][1], out)
        if not plan[key][4]:
            memo[key] = (frozenset(rel), out)
    return False, Facts(groups)


def _union_into(sets: dict, key, values: set) -> None:
    """Add `values` under `key` of a dict of sets that are shared (an evaluator input, a memo, a
    reading): never changed in place, a new set where the key has some."""
    got = sets.get(key)
    sets[key] = got | values if got else values


_KIND_OF = {int: "int", bool: "bool", str: "str"}


def _merge_preds(comp: Compiled) -> list:
    """((ASP predicate, 2), position) of each functional (0: two values of a subject) and inverse-functional
    (1: two subjects of a value) object property: where two atoms merge individuals (cached)."""
    if comp.merge_preds is None:
        comp.merge_preds = [((ppred(p), 2), 0) for p in sorted(comp.functional)] + \
                           [((ppred(p), 2), 1) for p in sorted(comp.inverse_functional)]
    return comp.merge_preds


def _merges(comp: Compiled, model: dict) -> bool:
    """Whether a functional (inverse-functional) object property gives a subject (object) two values."""
    for key, pos in _merge_preds(comp):
        rel = model.get(key)
        if rel:
            seen: dict = {}
            for pair in rel:
                if seen.setdefault(pair[pos], pair[1 - pos]) != pair[1 - pos]:
                    return True
    return False
