"""The compiled program's least model, computed by a native engine (native.c, through cffi).

native.c is one fixed, generic semi-naive Datalog engine; the program is data handed to it: the
rules that `_Evaluator` reads (parse_program) become join plans here (`_Planner`, the same
greedy order as the Python evaluator's generated functions), so a new card never needs a C
compiler run.  setup.py compiles native.c at install into the plain shared library `_native`
next to this file (an editable install: in place), opened here with cffi.  No compiled module (no
compiler at install), or one built from another native.c than the one here: `UNAVAILABLE` says
why, and infer uses the Python `_Evaluator` (YGO_FAST_EVALUATOR=python chooses it too).

A run goes on from the previous model in C: by adding, when the input only grew (an action
declared in the state just reasoned about: semi-naive rounds from the new rows); by deleting and
rederiving, when input rows also went (the next state of a duel); from scratch, for a state unlike
the previous one.  C hands back only the difference from the previous model; `NativeEvaluator`
keeps a Python copy of the model (sets of tuples, as `_Evaluator.model` gives them) up to date with
it, and reports it as `added_model` (nothing was removed) or `changed_model` (removed, added), so
the facts read back stay proportional to the change.  A large change (another state's) is kept as
columns instead (`change_columns`, read by infer._read_columns) and applied to the copy of a
relation only when it is asked for.  Only the input relations that changed since
the previous run are converted (infer passes the same sets for unchanged predicates).  A state's
ABox with parts (abox.ABox) goes by bundles instead (run_bundles): each part is encoded and
registered in C once, a state is the list of its parts' bundle ids, and C finds which input rows
came and went (ng_bundle, ng_state), so Python does not compare facts or relations.

C's change is read back into Python objects by reader.c, the CPython extension module `_reader` that
setup.py builds with the engine: the rows or columns of _read_out, the model copy, and infer's facts of
the change (_read_change, _read_columns); it also finds a state's bundle ids (part_ids) and codes a new
part's facts and rows (fill_codes, bundle_rows), with the same answers as the Python code, which runs
where the module is not there (READER_UNAVAILABLE says why) and is the tests' reference for it.

Values cross as 64-bit integers: an int is itself; a str or a tuple (a constant, a function
term) is SYM_BASE + its id, interned here with its structure handed to C (for the order of
values of different kinds and the matching of function terms)."""
from __future__ import annotations

import hashlib
import importlib
import importlib.machinery
import operator
import os
import struct
import threading
import warnings
from itertools import chain, compress, repeat
from pathlib import Path

from ... import diskcache
from ...errors import ReasonerError
from .evaluator import _NotSupported, _vars, next_atom, parse_program, predicate_numbers
from .names import INT_MAX, INT_MIN

EVALUATORS = ("native", "python")
EVALUATOR = os.environ.get("YGO_FAST_EVALUATOR", "native")
if EVALUATOR not in EVALUATORS:
    raise ValueError(f"YGO_FAST_EVALUATOR: expected one of {', '.join(EVALUATORS)}, got {EVALUATOR!r}")

# the bundles an evaluator keeps registered (then C's are dropped and registered again as they come)
BUNDLE_CAP = 5_000
# the changes a relation's queue holds before they are applied to the Python copy of the model
PENDING_CAP = 8
SYM_BASE = 1 << 32
MAXAR = 16  # native.c's MAXAR: the widest relation
MAXREG = 256
ERR_NEGFUN, ERR_NOMEM, ERR_BUDGET = 1, 2, 4
# The budget of one run: the atoms its model may hold (a normal state's model has a few thousand).  A model that
# grows past it (rules that derive without end on some state, as integers that keep growing) stops the run with a
# ReasonerError naming the budget instead of running on.  YGO_FAST_MAX_ATOMS sets it (0: no bound).
DEFAULT_MAX_ATOMS = 2_000_000
BUDGET_ENV = "YGO_FAST_MAX_ATOMS"


_BUDGET = [None, DEFAULT_MAX_ATOMS]  # (the variable's text when last read, its value): read again when it changes


def max_atoms() -> int:
    """The budget in use: YGO_FAST_MAX_ATOMS if it is set (an integer >= 0), else DEFAULT_MAX_ATOMS (called once
    per run: the variable's text is compared, parsed only when it changed)."""
    text = os.environ.get(BUDGET_ENV)
    if text != _BUDGET[0]:
        from ...envvars import env_number

        _BUDGET[1] = env_number(BUDGET_ENV, DEFAULT_MAX_ATOMS, "an integer >= 0 (0: no bound)")
        _BUDGET[0] = text
    return _BUDGET[1]

_CDEF = """
typedef int64_t val;
typedef struct Engine Engine;
Engine *ng_new(int npred, const int *arity, int nidx, const int *idxdefs);
void ng_free(Engine *E);
int64_t ng_symbol(Engine *E, int kind, int32_t name, const char *bytes, int64_t len, int32_t arity, const val *args);
int ng_program(Engine *E, const int64_t *code, int64_t ncode, const int64_t *disp_start, const int64_t *disp,
               const int64_t *once, int64_t nonce, const int64_t *nfacts, const val *facts);
int ng_input(Engine *E, int p, const val *rows, int64_t n);
void ng_forget(Engine *E);
int ng_update(Engine *E);
int ng_checks(Engine *E, const int64_t *start, const int64_t *plans);
int ng_add(Engine *E, int p, const val *rows, int64_t n);
int ng_extend(Engine *E);
int64_t *ng_out(Engine *E);
int64_t ng_nout(Engine *E);
int ng_whole(Engine *E);
int64_t ng_size(Engine *E);
int ng_order(Engine *E, val a, val b);
int64_t ng_stat(Engine *E, int k);
void ng_set_unlike(Engine *E, int64_t unlike);
void ng_set_budget(Engine *E, int64_t n);
void ng_set_rollback(Engine *E, int on);
void ng_set_prune(Engine *E, int on);
int64_t ng_bundle(Engine *E, int64_t n, const int32_t *preds, const val *rows);
int64_t ng_bundle_buf(Engine *E, int64_t n, const char *buf);
int ng_state(Engine *E, int64_t n, const int32_t *ids);
int ng_state_buf(Engine *E, int64_t n, const char *buf);
void ng_bundles_reset(Engine *E);
void ng_clear_inputs(Engine *E);
const char *ng_source(void);
"""

# native.c's opcodes
S_REQ, S_DELTA, S_SCAN, S_LOOKUP, S_MEMBER, S_CMP, S_MATCH, S_NMATCH, S_EMIT, S_HEAD, S_FOUND = range(1, 12)
# S_POOL: the predicate lists of the S_REQ steps; then the steps on the rows older than the round's
# delta (the atoms before the delta atom)
S_POOL, S_SCAN_OLD, S_LOOKUP_OLD, S_MEMBER_OLD = range(12, 16)
E_CONST, E_REG, E_ADD, E_SUB, E_MUL, E_DIV, E_MOD, E_NEG, E_ABS = range(1, 10)
P_ANY, P_BIND, P_EQ, P_FUN = range(1, 5)
_COMPARE = {"=": 1, "!=": 2, "<": 3, "<=": 4, ">": 5, ">=": 6}
_BINARY = {"_b_add": E_ADD, "_b_sub": E_SUB, "_b_mul": E_MUL, "_b_div": E_DIV, "_b_mod": E_MOD}
_UNARY = {"_b_neg": E_NEG, "_b_abs": E_ABS}

UNAVAILABLE: str | None = None  # why the native engine cannot be used (None: not tried yet, or it can)
_LIB = None
READER_UNAVAILABLE: str | None = None  # why reader.c cannot be used (None: not tried yet, or it can)
_READER = None


def _compiled(name: str) -> Path:
    """The compiled module `name` (_native, _reader) that the packaging built next to this file (setup.py);
    raises RuntimeError when there is none."""
    here = Path(__file__).parent
    for suffix in importlib.machinery.EXTENSION_SUFFIXES:
        if (here / f"{name}{suffix}").is_file():
            return here / f"{name}{suffix}"
    raise RuntimeError(f"no compiled {name} module in {here} (setup.py builds it at install, with a C compiler: "
                       f"`pip install .`, or `pip install -e .` in a checkout)")


def _check_source(name: str, built: str) -> None:
    """Raise RuntimeError when the C source `name` is here (a checkout, an editable install) and is not the
    one its module was built from (`built`: the SHA-256 setup.py gave it): an edit not yet rebuilt."""
    source = Path(__file__).with_name(name)
    if source.is_file() and hashlib.sha256(source.read_bytes()).hexdigest() != built:
        why = f"the compiled module is not built from {source} as it is now (rebuild it: `pip install -e .`)"
        warnings.warn(f"ygo-onto: {why}; the Python code runs instead", RuntimeWarning, stacklevel=2)
        raise RuntimeError(why)


def _tried(load) -> tuple:
    """(load(), None), or (None, the reason it failed): a compiled part, tried once (any failure: the Python
    code runs instead)."""
    try:
        return load(), None
    except Exception as e:  # noqa: BLE001
        return None, f"{type(e).__name__}: {e}".strip()


def library():
    """(ffi, lib) of the compiled engine, or None (UNAVAILABLE says why: the Python evaluator runs then)."""
    global _LIB, UNAVAILABLE
    if _LIB is None and UNAVAILABLE is None:
        _LIB, UNAVAILABLE = _tried(_load)
    return _LIB


def _load():
    """native.c's shared library (the module _native, which has no Python module init), opened with cffi."""
    import cffi

    ffi = cffi.FFI()
    ffi.cdef(_CDEF)
    lib = ffi.dlopen(str(_compiled("_native")))
    _check_source("native.c", ffi.string(lib.ng_source()).decode())
    return ffi, lib


def reader():
    """The C reader of a run's change (reader.c, the extension module _reader), or None (READER_UNAVAILABLE
    says why: the Python code reads it then)."""
    global _READER, READER_UNAVAILABLE
    if _READER is None and READER_UNAVAILABLE is None:
        _READER, READER_UNAVAILABLE = _tried(_load_reader)
    return _READER


def _load_reader():
    """reader.c's extension module (_reader)."""
    _compiled("_reader")  # (the message of a module not built)
    module = importlib.import_module(f"{__package__}._reader")
    _check_source("reader.c", module.source)
    return module


def describe() -> str:
    """Which evaluator the fast backend uses in this process, and why not the native one (or why the
    Python code, not reader.c, reads its changes back)."""
    if EVALUATOR == "python":
        return "python (YGO_FAST_EVALUATOR=python)"
    if library() is None:
        return f"python (native unavailable: {UNAVAILABLE})"
    if reader() is None:  # (the engine runs; its changes are read back by the slower Python code)
        return f"native, read by Python ({READER_UNAVAILABLE})"
    return "native"


def _plan_entry(program: str) -> str:
    """The disk cache entry of a program's plan (by the program and the code that plans and runs it:
    the join order and the parser are evaluator.py's)."""
    h = hashlib.sha256(program.encode())
    ffi, lib = library()
    h.update(diskcache.modules_digest("reasoning/fast/native.py", "reasoning/fast/evaluator.py").encode())
    h.update(ffi.string(lib.ng_source()))  # (native.c's SHA-256, as its module was built from it)
    return f"nativeplan-{h.hexdigest()[:24]}.pickle"


def _cached_plan(program: str) -> dict | None:
    plan = diskcache.load(_plan_entry(program)) if diskcache.enabled() else None
    return plan if isinstance(plan, dict) and ("code" in plan or "unsupported" in plan) else None


def _store_plan(program: str, plan: dict) -> None:
    if diskcache.enabled():
        diskcache.store(_plan_entry(program), plan)
        diskcache.prune("nativeplan-", keep=8)


def _has(t, kind: str) -> bool:
    return t[0] == kind or (t[0] in ("f", "op") and any(_has(a, kind) for a in t[2]))


_FIRST, _SECOND, _THIRD, _FIFTH = (operator.itemgetter(i) for i in (0, 1, 2, 4))
_INT32 = struct.Struct("=i")
_PACK = [struct.Struct(f"={a}q").pack for a in range(MAXAR + 1)]  # a row of each arity as native int64 bytes
_ZERO = bytes(8)  # (C is handed a valid pointer for an empty bundle)


def _columns(rows) -> tuple:
    """A relation's atoms as columns: a list of the values at each position, in one order."""
    return tuple(map(list, zip(*rows)))


def _rows(key, columns: tuple) -> set:
    """The atoms of relation `key` given as columns."""
    return set(zip(*columns)) if key[1] else {()}


def _rows_of(change: dict) -> dict:
    return {key: _rows(key, columns) for key, columns in change.items()}


class _Unread(Exception):
    """run_bundles: a part that it does not read (the caller hands the facts over as a list)."""


class NativeEvaluator:
    """The least model of a positive program, computed by native.c (see above); the interface of
    `_Evaluator` that infer uses: run, model, atoms, added_model, changed_model,
    reading, lock.  Raises _NotSupported (at construction, or from run) for what
    it does not reproduce; the caller then uses the Python evaluator (or clingo)."""

    def __init__(self, program: str, rules=None):
        lib = library()
        if lib is None:
            raise _NotSupported(f"the native evaluator: {UNAVAILABLE}")
        self._ffi, self._lib = lib
        self.lock = threading.Lock()
        self.reading = None
        plan = _cached_plan(program)
        if plan is None:
            plan = self._plan(program, rules)
            _store_plan(program, plan)
        if "unsupported" in plan:
            raise _NotSupported(plan["unsupported"])
        code, disp, once, facts, checks = (plan[k] for k in ("code", "disp", "once", "facts", "checks"))
        self.preds = plan["preds"]
        self._keys = list(self.preds)
        self._arity = tuple(key[1] for key in self._keys)  # (a tuple: reader.c reads it as one)
        self._enc = plan["enc"]  # value -> its code (ints: themselves)
        self._dec = {code: v for v, code in self._enc.items() if type(v) is not int}  # code of a symbol -> value
        # the symbols by code - SYM_BASE, as reader.c decodes them (their codes are consecutive; None: not)
        self._values = [self._dec[SYM_BASE + k] for k in range(len(self._dec))] \
            if all(SYM_BASE <= code < SYM_BASE + len(self._dec) for code in self._dec) else None
        self._names = plan["names"]  # function names -> ids
        self._syms = list(plan["syms"])  # symbols not yet handed to C
        self._nsyms = 0  # symbols handed to C
        self._indexes = plan["indexes"]  # (pred, positions) -> index id
        idxdefs: list[int] = []
        for (p, positions), _ in sorted(self._indexes.items(), key=lambda kv: kv[1]):
            idxdefs += [p, len(positions), *positions]
        ffi, clib = self._ffi, self._lib
        n = len(self._keys)
        engine = clib.ng_new(n, ffi.new("int[]", self._arity or [0]), len(self._indexes),
                             ffi.new("int[]", idxdefs or [0]))
        if engine == ffi.NULL:
            raise MemoryError("the native evaluator")
        self._engine = ffi.gc(engine, clib.ng_free)
        self._flush()
        starts = [0]
        for d in disp:
            starts.append(starts[-1] + len(d))
        flat_facts = [v for rows in facts for row in rows for v in row]
        rc = clib.ng_program(self._engine, ffi.new("int64_t[]", code or [0]), len(code),
                             ffi.new("int64_t[]", starts), ffi.new("int64_t[]", [x for d in disp for x in d] or [0]),
                             ffi.new("int64_t[]", once or [0]), len(once),
                             ffi.new("int64_t[]", [len(rows) for rows in facts] or [0]),
                             ffi.new("int64_t[]", flat_facts or [0]))
        if rc:
            raise MemoryError("the native evaluator") if rc == ERR_NOMEM else RuntimeError(f"native.c refused the plans (error {rc})")
        if checks is not None:
            starts = [0]
            for c in checks:
                starts.append(starts[-1] + len(c))
            if clib.ng_checks(self._engine, ffi.new("int64_t[]", starts),
                              ffi.new("int64_t[]", [x for c in checks for x in c] or [0])):
                raise MemoryError("the native evaluator")
        self._given: dict = {}  # (name, arity) of the program -> the set object last handed to C
        # run_bundles: a part of an ABox by content (its rows as bytes, or the part: see _bundle) -> its bundle
        # id in C; id(part) -> its bundle id for each part object seen (kept alive in _alive, so no other object
        # can take its id: abox.state_abox gives an equal part as the same object, found without hashing); a
        # bundle id -> its facts of predicates the program does not mention (rare)
        self._bundles: dict = {}
        self._ids: dict = {}
        # the previous run_bundles' part objects and their bundle ids: most parts are the same objects in the same
        # slots (an action's run: every part of its state's, and the action), found by identity there
        self._last_parts: tuple = ((), [])
        self.keyed = None  # infer._keyed's plan and related keys by this evaluator's key objects
        self._intptr = ffi.typeof("intptr_t")  # (_read_out casts C's output pointer to it every run)
        self._alive: list = []
        self._extra_of: dict = {}
        self._codes: dict = {}  # a fact -> _code of it
        self._code_of_id: dict = {}  # id(fact) -> _code of it, holding that fact object (_bundle)
        self._bundled = False  # C's inputs are those of run_bundles (run hands its own over anew)
        self._extra: dict = {}  # facts of predicates the program does not mention, as given
        self._model: dict = {}  # the model, (name, arity) -> tuples, less the changes still in _pending
        # (name, arity) -> the changes of the runs since, not yet applied to _model: [(removed, added)], each
        # as columns (_columns) or None; applied when the relation is asked for (atoms, model), so a run's
        # change is decoded to rows only where it is read as rows
        self._pending: dict = {}
        self._fresh = True  # the next run reports its whole model
        self._size = 0  # atoms in the model
        self._cols: tuple | None = None  # a large change read as a change: (removed, added) as columns
        self._added: dict | None = None  # added_model, changed_model (after a large change: built when asked)
        self._change: tuple | None = None

    def _plan(self, program: str, rules) -> dict:
        """The program as native.c's data (join plans, dispatch, facts, check plans, symbols),
        or {"unsupported": why}: what the disk cache keeps of it."""
        try:
            if rules is None:
                rules = parse_program(program)
            self.preds = predicate_numbers(rules)
            if any(key[1] > MAXAR for key in self.preds):
                raise _NotSupported(f"a predicate of more than {MAXAR} arguments")
            self._enc: dict = {}  # value -> its code (ints: themselves)
            self._dec: dict = {}  # code of a symbol -> its value
            self._values = None
            self._names: dict[str, int] = {}  # function names -> ids
            self._syms: list = []  # symbols not yet handed to C
            self._nsyms = 0  # symbols handed to C
            self._indexes: dict[tuple, int] = {}  # (pred, positions) -> index id
            code: list[int] = []
            disp: list[list[int]] = [[] for _ in self.preds]
            # (the plans a predicate's delta runs are laid out together in the code, for the cache)
            plans: list[list[list[int]]] = [[] for _ in self.preds]
            once: list[int] = []
            facts: list[list] = [[] for _ in self.preds]
            # a rule's predicates, in the order of their first atom, are one list of the pool for all its
            # plans (they were 16% of the code, repeated in every plan of a rule)
            pool: list[int] = []
            pooled: dict[tuple, int] = {}
            for head, body in rules:
                h = self.preds[head[1]]
                if not body:
                    if any(t[0] != "c" for t in head[2]):
                        raise _NotSupported(f"the fact {head} with variables")
                    facts[h].append([self._intern(t[1]) for t in head[2]])
                    continue
                atoms = [i for i, lit in enumerate(body) if lit[0] == "atom"]
                if not atoms:
                    once.append(len(code))
                    code += _Planner(self, head, body, None).code
                    continue
                preds = list(dict.fromkeys(self.preds[body[i][1]] for i in atoms))
                at = pooled.get(tuple(preds))
                if at is None:
                    at = pooled[tuple(preds)] = len(pool)
                    pool += preds
                for i in atoms:
                    q = self.preds[body[i][1]]
                    plan = _Planner(self, head, body, i).code
                    # every predicate of the rule holds rows (the delta's does), those of the atoms before
                    # the delta atom (a prefix of the list) rows older than the delta
                    nold = len({self.preds[body[j][1]] for j in atoms if j < i})
                    required = [S_REQ, 5, at, nold, len(preds)] if nold or len(preds) > 1 else []
                    plans[q].append(required + plan)
            for q, its in enumerate(plans):
                for plan in its:
                    disp[q].append(len(code))
                    code += plan
            # the check plans of delete and rederive (without them, a run that removes facts is from scratch)
            checks: list[list[int]] | None = [[] for _ in self.preds]
            try:
                plans = [[] for _ in self.preds]
                for head, body in rules:
                    if any(lit[0] == "atom" for lit in body):
                        plans[self.preds[head[1]]].append(_Planner(self, head, body, None, check=True).code)
                for h, its in enumerate(plans):
                    for plan in its:
                        checks[h].append(len(code))
                        code += plan
            except _NotSupported:
                checks = None
            if pool:
                code += [S_POOL, 2 + len(pool), *pool]
        except _NotSupported as e:
            return {"unsupported": str(e)}
        return {"preds": self.preds, "enc": self._enc, "names": self._names, "syms": self._syms,
                "indexes": self._indexes, "code": code, "disp": disp, "once": once, "facts": facts, "checks": checks}

    def index(self, p: int, positions: tuple) -> int:
        got = self._indexes.get((p, positions))
        if got is None:
            got = self._indexes[(p, positions)] = len(self._indexes)
        return got

    def name_id(self, name: str) -> int:
        got = self._names.get(name)
        if got is None:
            got = self._names[name] = len(self._names)
        return got

    # -- values
    def _intern(self, v) -> int:
        code = self._enc.get(v)
        if code is not None and type(v) is not bool:
            return code
        t = type(v)
        if t is int:
            if not INT_MIN <= v <= INT_MAX:
                raise _NotSupported(f"the integer {v} (beyond 32 bits)")
            self._enc[v] = v
            return v
        if t is str:
            sym = (1, -1, v.encode("utf-8", "surrogatepass"), ())
        elif t is tuple and v and type(v[0]) is str:
            args = tuple(self._intern(a) for a in v[1:])
            sym = (0 if len(v) == 1 else 2, self.name_id(v[0]), v[0].encode("utf-8", "surrogatepass"), args)
        else:
            raise _NotSupported(f"the value {v!r}")
        code = SYM_BASE + self._nsyms + len(self._syms)
        self._syms.append(sym)
        self._enc[v] = code
        self._dec[code] = v
        if self._values is not None:
            self._values.append(v)
        return code

    def _flush(self) -> None:
        """Hand the symbols interned since the last call to C."""
        ffi, clib, engine = self._ffi, self._lib, self._engine
        for kind, name, data, args in self._syms:
            got = clib.ng_symbol(engine, kind, name, data, len(data), len(args), ffi.new("int64_t[]", list(args) or [0]))
            if got != self._nsyms:
                raise MemoryError("the native evaluator")
            self._nsyms += 1
        self._syms = []

    def _rows(self, tuples) -> list[int]:
        enc = self._enc
        flat = [v for t in tuples for v in t]
        try:
            return [enc[v] for v in flat]
        except KeyError:
            return [self._intern(v) for v in flat]

    # -- a run
    def run(self, facts: dict) -> None:
        """The least model with these facts ((name, arity) -> tuples) added; call under `lock`.

        When every input fact of the previous run is among `facts` (the state just reasoned about,
        with an action declared), C goes on from the previous model with the new facts (the model
        only grows); any other run deletes and rederives from the previous model (or starts from
        scratch where that costs less), with only the changed inputs handed over."""
        ffi, clib, engine, preds = self._ffi, self._lib, self._engine, self.preds
        extends = not self._fresh
        if self._bundled:  # (C holds run_bundles' inputs: every input relation is handed over anew)
            clib.ng_clear_inputs(engine)
            self._given = {}
            self._bundled = extends = False
        given, extra = self._given, {}
        given_get = given.get
        changed = []  # (pred, set, previous set or None)
        seen = 0  # keys of `given` among the facts
        for key, tuples in facts.items():
            old = given_get(key)
            if old is tuples:  # (most keys: the facts layer passes the same set when it did not change)
                seen += 1
                continue
            p = preds.get(key)
            if p is None:
                extra[key] = tuples
                continue
            if old is not None:
                seen += 1
                if old == tuples:  # (an equal set built anew, as when a part of the ABox next to it changed)
                    given[key] = tuples
                    continue
            changed.append((p, key, tuples, old))
            if extends and old is not None and not old <= tuples:
                extends = False
        gone = [key for key in given if key not in facts] if seen < len(given) else ()
        if gone:
            extends = False
        try:
            if extends:
                for p, key, tuples, old in changed:
                    new = tuples - old if old else tuples
                    rows = self._rows(new)
                    if len(rows) != len(new) * key[1]:
                        raise _NotSupported(f"a fact of {key[0]} with the wrong number of arguments")
                    given[key] = tuples
                    if self._syms:
                        self._flush()
                    if clib.ng_add(engine, p, ffi.new("int64_t[]", rows or [0]), len(new)):
                        raise MemoryError("the native evaluator")
            else:
                for p, key, tuples, old in changed:
                    rows = self._rows(tuples)
                    if len(rows) != len(tuples) * key[1]:
                        raise _NotSupported(f"a fact of {key[0]} with the wrong number of arguments")
                    given[key] = None  # (C holds something else until ng_input returns)
                    if clib.ng_input(engine, p, ffi.new("int64_t[]", rows or [0]), len(tuples)):
                        raise MemoryError("the native evaluator")
                    given[key] = tuples
                for key in gone:
                    clib.ng_input(engine, preds[key], ffi.NULL, 0)
                    del given[key]
            self._go(extends)
        except BaseException:
            self._forget()
            raise
        self._after(extra)

    def run_bundles(self, parts: dict, read) -> bool:
        """run() of an ABox given by its parts (abox.ABox.parts: part -> (its facts, the types of their
        values)); call under `lock`.  Each part is read (`read`: facts -> [((name, arity), values)] of
        each fact, or None where a fact is not a tuple, raising ReasonerError: facts._read_each) and
        registered in C as a bundle of rows once (memoized by the part object, and by its content); C
        finds which bundles came and went since the previous state and which input rows changed.  False,
        with nothing run, when a part cannot be read here (the caller hands the facts over to run, which
        gives the message of the first bad fact in the list's order)."""
        if len(self._bundles) > BUNDLE_CAP:  # (C's bundles dropped: they are registered again as they come)
            self._lib.ng_bundles_reset(self._engine)
            self._bundles, self._extra_of = {}, {}
            self._ids, self._alive = {}, []
            self._last_parts = ((), [])
        elif len(self._alive) > BUNDLE_CAP:  # (part objects no longer kept: found by content again)
            self._ids, self._alive = {}, []
        values = list(parts.values())
        known = self._ids
        last_values, last_ids = self._last_parts
        c = reader()
        if c is not None:  # (the ids as int32 bytes, handed to ng_state_buf as they are)
            ids = c.part_ids(values, last_values, last_ids, known)
            if type(ids) is list:  # (the indexes of parts without a bundle id)
                if not self._register(values, ids, read):
                    return False
                ids = c.part_ids(values, last_values, last_ids, known)
        else:
            if type(last_ids) is bytes:  # (the previous run's, by reader.c)
                last_ids = list(memoryview(last_ids).cast("i"))
            n, n_last = len(values), len(last_values)
            # (the slots whose part is not the previous run's object: their ids by the part object, most of them
            # objects of an earlier ABox)
            differ = list(compress(range(n), chain(map(operator.is_not, values, last_values),
                                                   repeat(True, n - n_last))))
            if len(differ) > 8:  # (another state than the previous run's: all by the part object)
                ids = list(map(known.get, map(id, values)))
            else:
                ids = last_ids[:n] if n <= n_last else last_ids + [None] * (n - n_last)
                for i in differ:
                    ids[i] = known.get(id(values[i]))
            if None in ids:
                missing = [i for i, bid in enumerate(ids) if bid is None]
                if not self._register(values, missing, read):
                    return False
                for i in missing:
                    ids[i] = known[id(values[i])]
        extra: dict = {}
        if self._extra_of:  # (facts of predicates the program does not mention: rare)
            for bid in memoryview(ids).cast("i") if type(ids) is bytes else ids:
                for key, more in self._extra_of.get(bid, {}).items():
                    extra[key] = extra[key] | more if key in extra else more
        ffi, clib, engine = self._ffi, self._lib, self._engine
        try:
            if self._syms:
                self._flush()
            self._given, self._bundled = {}, True
            self._last_parts = (values, ids)  # (values keeps its parts alive: no other object takes their ids)
            mode = clib.ng_state_buf(engine, len(values), ids) if type(ids) is bytes else \
                clib.ng_state(engine, len(ids), ffi.new("int32_t[]", ids))
            if mode < 0:
                raise MemoryError("the native evaluator") if -mode == ERR_NOMEM else \
                    RuntimeError(f"the native evaluator refused the state (error {-mode})")
            self._go(mode == 0)
        except BaseException:
            self._forget()
            raise
        self._after(extra)
        return True

    def _register(self, values: list, indexes: list, read) -> bool:
        """The bundle id of each part values[i] (i in indexes) put in _ids, the part kept alive (its id then
        names no other object); False when a part cannot be read here (_bundle's _Unread)."""
        known, alive = self._ids, self._alive
        try:
            for i in indexes:
                part = values[i]
                known[id(part)] = self._bundle(part, read)
                alive.append(part)
        except _Unread:
            return False
        return True

    def _bundle(self, part: tuple, read) -> int:
        """The bundle id of a part (facts, the types of their values: abox.typed_part), the part
        registered in C if no equal part was; raises _Unread.  With reader.c the part's rows (one bytes
        object) are its key in the memo (a bytes object's hash is computed once; equal rows are equal
        facts with the same types: a fact's code holds the type of its value), else the part itself (_alive
        keeps it already)."""
        facts, types = part
        # each fact's code by the fact object first (abox.kept_part gives an equal fact as the same object): no
        # tuple hashed
        by_id = self._code_of_id
        if len(by_id) > 30_000:
            by_id.clear()
        c = reader()
        if c is not None and type(facts) is tuple and type(types) is tuple:
            got = c.bundle_rows(facts, types, by_id)
            if type(got) is list:  # (the indexes of facts without a code)
                if len(self._codes) > 100_000:
                    self._codes.clear()
                try:
                    done = c.fill_codes(facts, got, by_id, self._codes, read, self.preds, self._enc, self._intern)
                except ReasonerError:
                    raise _Unread from None
                if not done:
                    raise _Unread
                got = c.bundle_rows(facts, types, by_id)
            if type(got) is bytes:
                bid = self._bundles.get(got)
                if bid is None:
                    bid = self._lib.ng_bundle_buf(self._engine, len(facts), got)
                    if bid < 0:
                        raise MemoryError("the native evaluator")
                    self._bundles[got] = bid
                return bid
        # (without reader.c, or a part with facts of predicates the program does not mention)
        try:
            bid = self._bundles.get(part)
        except TypeError:  # (an unhashable fact: not a fact)
            raise _Unread from None
        if bid is not None:
            return bid
        codes = list(map(by_id.get, map(id, facts)))
        if None in codes:
            self._fill(facts, [i for i, code in enumerate(codes) if code is None], read)
            codes = list(map(by_id.get, map(id, facts)))
        if tuple(map(_FIRST, codes)) != types:  # (the types the part gives are not its values': each code holds
            raise _Unread  # the type of its fact's value, the fact being that object)
        rows = codes
        if None in map(_SECOND, codes):  # (facts of predicates the program does not mention)
            extra: dict = {}
            for code in codes:
                if code[1] is None:
                    name, value = code[2]
                    extra[name] = extra[name] | {value} if name in extra else frozenset({value})
            rows = [code for code in codes if code[1] is not None]
        else:
            extra = None
        # (each code holds its predicate and row as native bytes: joined, not converted value by value)
        ffi = self._ffi
        preds = ffi.from_buffer("int32_t[]", b"".join(map(_FIFTH, rows)) or _ZERO)
        bid = self._lib.ng_bundle(self._engine, len(rows), preds,
                                  ffi.from_buffer("int64_t[]", b"".join(map(_THIRD, rows)) or _ZERO))
        if bid < 0:
            raise MemoryError("the native evaluator")
        self._bundles[part] = bid
        if extra:
            self._extra_of[bid] = extra
        return bid

    def _fill(self, facts: tuple, indexes: list, read) -> None:
        """The codes of facts[i] for i in indexes put in _code_of_id: an equal fact's (by content), else new
        ones (read in one call: a new part has a few new facts).  (reader.c's fill_codes gives the same.)"""
        by_id, get = self._code_of_id, self._codes.get
        new = []
        for i in indexes:
            f = facts[i]
            try:
                code = get(f)
            except TypeError:  # (an unhashable fact: not a fact)
                raise _Unread from None
            if code is None or code[0] is not type(f[-1]):
                new.append(f)
                continue
            if code[3] is not f:  # (the code holds its fact: no other object takes its id while kept)
                code = (*code[:3], f, code[4])
            by_id[id(f)] = code
        if new:
            for code in self._code(new, read):
                by_id[id(code[3])] = code

    def _code(self, facts: list, read) -> list:
        """The code of each fact: (the type of its value, its predicate's number or None if the program does
        not mention it, its row's values encoded as native int64 bytes or (key, value) for None, the fact,
        the predicate's number as native int32 bytes), remembered by the fact; raises _Unread for what
        `read` does not read as facts."""
        try:
            readings = read(facts)
        except ReasonerError:
            raise _Unread from None
        if readings is None or len(readings) != len(facts):
            raise _Unread
        if len(self._codes) > 100_000:
            self._codes.clear()
        preds, enc, out = self.preds, self._enc, []
        for fact, (key, value) in zip(facts, readings):
            p = preds.get(key)
            if p is None:
                code = (type(fact[-1]), None, (key, value), fact, b"")
            else:
                if len(value) != key[1]:
                    raise _Unread
                encoded = list(map(enc.get, value))  # (no value read is a bool, which _intern tells from 1)
                if None in encoded:
                    encoded = list(map(self._intern, value))
                code = (type(fact[-1]), p, _PACK[len(value)](*encoded), fact, _INT32.pack(p))
            self._codes[fact] = code
            out.append(code)
        return out

    def _go(self, extends: bool) -> None:
        """The C run after the inputs were handed over: going on by adding (extends), else delete and
        rederive (or from scratch); the change is then in C's output buffer."""
        self._cols = self._added = self._change = None
        clib, engine = self._lib, self._engine
        if self._syms:
            self._flush()
        clib.ng_set_budget(engine, max_atoms())
        rc = clib.ng_extend(engine) if extends else clib.ng_update(engine)
        if rc == ERR_BUDGET:
            from ...errors import ReasonerError

            self._forget()
            raise ReasonerError(f"fast: the reasoner did not reach its fixpoint within its budget of {max_atoms():,} "
                                f"atoms ({BUDGET_ENV}; a state's model normally holds a few thousand): its rules derive without end here")
        if rc:
            raise _NotSupported("the negation of a function term") if rc == ERR_NEGFUN else \
                RuntimeError(f"the native evaluator failed (error {rc})")

    def _after(self, extra: dict) -> None:
        """The Python copy of the model after a run: C's change, and the facts of predicates the
        program does not mention (`extra`, as given)."""
        whole = self._fresh or self._lib.ng_whole(self._engine)  # (the first run, or another state)
        removed, added, gone, came, as_rows = self._read_out(whole)
        # the facts of predicates the program does not mention
        old_extra, self._extra = self._extra, extra
        if old_extra or extra:
            for key in old_extra.keys() | extra.keys():
                old, new = old_extra.get(key), extra.get(key)
                if old is new:
                    continue
                if old:
                    less = old - new if new else old
                    if less:
                        removed[key] = less if as_rows else _columns(less)
                if new:
                    more = new - old if old else new
                    if more:
                        added[key] = more if as_rows else _columns(more)
        if whole:
            self._fresh = False
            self.reading = None
            self._size = came
            return
        self._size += came - gone
        if gone + came > self._size:
            # a model unlike the previous one (another state): reading all of it once costs less than
            # reading what went and what came (infer._read_change reads an atom that came or went at
            # about the cost of an atom of a whole reading)
            self.reading = None
        elif not as_rows:
            self._cols = (removed, added)
        elif removed:
            self._change = (removed, added)
        else:
            self._added = added

    def _forget(self) -> None:
        """After a run that stopped: the next one starts the reading again from its whole model."""
        self._lib.ng_forget(self._engine)
        self._fresh = True
        self.reading = None
        self._model, self._pending = {}, {}

    def _read_out(self, whole: bool) -> tuple[dict, dict, int, int, bool]:
        """The change C reports (the whole model after ng_forget, or for another state's): removed,
        added by (name, arity), how many atoms went and came, and whether the atoms are rows (sets of
        tuples) or columns (_columns).  A small change, as a duel's next state, is applied to _model at
        once, as rows (what most runs read).  A large one (a whole model, another state's) stays as
        columns, read in bulk (infer._read_columns), and is queued on _pending (after a whole model,
        in place of the previous model): building its rows would cost about as much as reading it."""
        clib, engine = self._lib, self._engine
        if whole:
            self._model, self._pending = {}, {}
        n = clib.ng_nout(engine)
        if not n:
            return {}, {}, 0, 0, True
        read = reader() if self._values is not None else None
        if read is not None:  # (reader.c: the same dicts, model copy and queues as the Python code below)
            at = int(self._ffi.cast(self._intptr, clib.ng_out(engine)))
            if whole or n > self._size:
                return (*read.read_columns(at, n, self._values, self._keys, self._arity, self._pending,
                                           self._apply, PENDING_CAP), False)
            return (*read.read_rows(at, n, self._values, self._keys, self._arity, self._model, self._pending,
                                    self._apply), True)
        removed: dict = {}
        added: dict = {}
        # (a memoryview's tolist makes the ints faster than ffi.unpack)
        buf = memoryview(self._ffi.buffer(clib.ng_out(engine), n * 8)).cast("q").tolist()
        # every value decoded in one pass: the counts between the rows are below SYM_BASE, so they stay
        vals = list(map(self._dec.get, buf, buf))
        keys, arity, pending, model = self._keys, self._arity, self._pending, self._model
        gone = came = 0
        i = 0
        if whole or n > self._size:  # (about half the model's atoms or more: 2-3 values an atom)
            while i < n:
                p, nr, na = buf[i], buf[i + 1], buf[i + 2]
                i += 3
                a = arity[p]
                key = keys[p]
                less = more = None
                if nr:
                    j = i + nr * a
                    less = removed[key] = _cut_columns(vals, i, j, a)
                    gone += nr
                    i = j
                if na:
                    j = i + na * a
                    more = added[key] = _cut_columns(vals, i, j, a)
                    came += na
                    i = j
                queue = pending.get(key)
                if queue is None:
                    pending[key] = [(less, more)]
                else:
                    queue.append((less, more))
                    if len(queue) > PENDING_CAP:
                        self._apply(key)
            return removed, added, gone, came, False
        while i < n:
            p, nr, na = buf[i], buf[i + 1], buf[i + 2]
            i += 3
            a = arity[p]
            key = keys[p]
            if pending and key in pending:
                self._apply(key)
            if nr:
                j = i + nr * a
                rows = _cut_rows(vals, i, j, a)
                removed[key] = rows
                got = model.get(key)
                if got is not None:
                    gone += nr
                    got -= rows
                    if not got:
                        del model[key]
                i = j
            if na:
                j = i + na * a
                rows = _cut_rows(vals, i, j, a)
                added[key] = rows
                came += na
                got = model.get(key)
                if got is None:
                    model[key] = set(rows)
                else:
                    got |= rows
                i = j
        return removed, added, gone, came, True

    def _apply(self, key) -> None:
        """The changes of `key` on _pending applied to _model."""
        model = self._model
        got = model.get(key)
        for less, more in self._pending.pop(key):
            if less is not None and got:
                got -= _rows(key, less)
            if more is not None:
                if got is None:
                    got = _rows(key, more)
                elif key[1]:
                    got.update(zip(*more))
                else:
                    got.add(())
        if got:
            model[key] = got
        else:
            model.pop(key, None)

    def model(self) -> dict:
        """The predicates that hold atoms after `run`, (name, arity) -> tuples."""
        for key in list(self._pending):
            self._apply(key)
        out = dict(self._model)
        out.update(self._extra)
        return out

    def atoms(self, key) -> set | None:
        if key in self._pending:
            self._apply(key)
        got = self._model.get(key)
        return got if got is not None else self._extra.get(key)

    def added_model(self) -> dict | None:
        """After a run whose model only added atoms to the previous run's: those atoms (with the
        facts of predicates the program does not mention), else None."""
        if self._added is None and self._cols is not None and not self._cols[0]:
            self._added = _rows_of(self._cols[1])
        return self._added

    def changed_model(self) -> tuple[dict, dict] | None:
        """After a run whose model also lost atoms of the previous run's: (removed, added)."""
        if self._change is None and self._cols is not None and self._cols[0]:
            self._change = (_rows_of(self._cols[0]), _rows_of(self._cols[1]))
        return self._change

    def change_columns(self) -> tuple[dict, dict] | None:
        """After a run with a large change (another state's) read as a change: (removed, added), each
        relation's atoms as columns (_columns), as infer._read_columns reads them (added_model and
        changed_model build their rows when asked); else None."""
        return self._cols

    def size(self) -> int:
        """The number of atoms of the last model (of the program's predicates)."""
        return self._lib.ng_size(self._engine)

    def set_unlike(self, unlike: int) -> None:
        """Delete and rederive runs from scratch when more than 1/unlike of the input facts
        changed (default 8, as _Evaluator.UNLIKE; 0: never, for tests)."""
        self._lib.ng_set_unlike(self._engine, unlike)

    def set_rollback(self, on: bool) -> None:
        """Whether a run after one that went on by adding first takes the added atoms out again (the
        default), or deletes and rederives them with the rest (for tests and measures)."""
        self._lib.ng_set_rollback(self._engine, int(on))

    def set_prune(self, on: bool) -> None:
        """Whether delete and rederive keeps an atom that facts of the new run derive instead of
        over-deleting it, and what it supports (the default), or over-deletes it (for tests and measures)."""
        self._lib.ng_set_prune(self._engine, int(on))

    def stats(self) -> dict:
        """How many runs went which way (from scratch, delete and rederive, going on from the model),
        how many of the runs after going on took the added atoms out first (rollback), and how many atoms
        delete and rederive kept instead of over-deleting them (kept: facts of the new run derive them)."""
        names = ("scratch", "dred", "extend", "dred_declined", "rollback", "kept")
        return {name: self._lib.ng_stat(self._engine, k) for k, name in enumerate(names)}

    def order(self, a, b) -> int:
        """clingo's order of two values as the engine computes it (-1, 0, 1; for tests)."""
        codes = self._intern(a), self._intern(b)
        self._flush()
        return self._lib.ng_order(self._engine, *codes)


def _cut_rows(vals: list, i: int, j: int, a: int) -> set:
    """The rows vals[i:j] of arity `a` as a set of tuples."""
    if a == 1:
        return set(zip(vals[i:j]))
    return set(zip(*[iter(vals[i:j])] * a)) if a else {()}


def _cut_columns(vals: list, i: int, j: int, a: int) -> tuple:
    """The rows vals[i:j] of arity `a` as columns: the values at each position, one list each."""
    if a == 1:
        return (vals[i:j],)
    if a == 2:
        return (vals[i:j:2], vals[i + 1:j:2])
    return tuple(vals[i + k:j:a] for k in range(a))


class _Planner:
    """The join plan (native.c's bytecode) of a rule for one body atom as the delta (None: a rule
    without atoms), in the order of _Evaluator.rule_source: comparisons as soon as their
    variables are bound, then membership tests, lookups by bound variables, by constants, scans.

    Semi-naive without repeats: the atoms before the delta atom (in the body's order) read only
    the rows older than the round's delta (the _OLD steps), those after it every row, so a rule
    instance whose atoms came in one round is derived once, by the plan of its first new atom."""

    def __init__(self, ev: NativeEvaluator, head, body, first: int | None, check: bool = False):
        """check=True: the rule's check plan (delete and rederive): whether an instance of the rule
        derives the tuple being checked (its head's terms matched first) from the model as it is."""
        self.ev = ev
        self.env: dict[str, int] = {}  # variable -> register
        self.code: list[int] = []
        todo = [i for i in range(len(body)) if i != first]
        if check:
            if any(t[0] not in ("v", "c") for t in head[2]):
                raise _NotSupported(f"a head term to match in {head}")
            self.step(S_HEAD, [len(head[2]), *(x for t in head[2] for x in self.pattern(t))])
        elif first is not None:
            self.atom(body[first], delta=True)
        while todo:
            for i in todo:
                if body[i][0] == "cmp" and self.comparison(body[i]):
                    todo.remove(i)
                    break
            else:
                i = next_atom(body, todo, self.keyable, head)
                todo.remove(i)
                self.atom(body[i], delta=False, old=first is not None and i < first)
        if check:
            self.step(S_FOUND, [])
            return
        if not all(self.bound(t) for t in head[2]):
            raise _NotSupported(f"an unsafe variable in the head {head}")
        self.step(S_EMIT, [self.ev.preds[head[1]], *(x for t in head[2] for x in self.expr(t))])

    def step(self, op: int, args: list[int]) -> None:
        self.code += [op, len(args) + 2, *args]

    def bound(self, t) -> bool:
        if t[0] == "v":
            return t[1] in self.env
        if t[0] == "c":
            return True
        return all(v in self.env for v in _vars(t))

    def keyable(self, t) -> bool:
        """A term whose value a lookup can use as a key (function terms are matched instead)."""
        return t[0] != "f" and self.bound(t) and not _has(t, "f")

    def expr(self, t) -> list[int]:
        kind = t[0]
        if kind == "v":
            return [E_REG, self.env[t[1]]]
        if kind == "c":
            return [E_CONST, self.ev._intern(t[1])]
        if kind == "op":
            op = _BINARY.get(t[1]) or _UNARY.get(t[1])
            if op is None or len(t[2]) != (1 if t[1] in _UNARY else 2):
                raise _NotSupported(f"the operation {t[1]}")
            return [op, *(x for a in t[2] for x in self.expr(a))]
        raise _NotSupported("a function term built at run time")

    def pattern(self, t) -> list[int]:
        """Match a value against t, binding t's unbound variables."""
        kind = t[0]
        if kind == "v":
            if t[1].startswith("#"):
                return [P_ANY]
            reg = self.env.get(t[1])
            if reg is not None:
                return [P_EQ, E_REG, reg]
            reg = self.env[t[1]] = len(self.env)
            if reg >= MAXREG:
                raise _NotSupported("a rule of too many variables")
            return [P_BIND, reg]
        if kind == "f":
            if _has(t, "op"):
                raise _NotSupported("an operation in a function term to match")
            out = [P_FUN, self.ev.name_id(t[1]), len(t[2])]
            for a in t[2]:
                out += self.pattern(a)
            return out
        if kind == "op" and not self.bound(t):
            raise _NotSupported("an operation in a position to match")
        return [P_EQ, *self.expr(t)]

    def atom(self, lit, delta: bool, old: bool = False) -> None:
        _, key, args = lit
        p = self.ev.preds[key]
        if delta:
            self.step(S_DELTA, [p, *(x for t in args for x in self.pattern(t))])
            return
        keys = tuple(j for j, t in enumerate(args) if self.keyable(t))
        if keys and len(keys) == len(args):
            self.step(S_MEMBER_OLD if old else S_MEMBER, [p, *(x for t in args for x in self.expr(t))])
        elif keys:
            ix = self.ev.index(p, keys)
            out = [ix, *(x for j in keys for x in self.expr(args[j]))]
            for j, t in enumerate(args):
                out += [P_ANY] if j in keys else self.pattern(t)
            self.step(S_LOOKUP_OLD if old else S_LOOKUP, out)
        else:
            self.step(S_SCAN_OLD if old else S_SCAN, [p, *(x for t in args for x in self.pattern(t))])

    def comparison(self, lit) -> bool:
        """Plan a comparison whose variables are bound (a test) or that binds one side (an
        assignment or a match); False if it must wait."""
        _, op, left, right = lit
        if self.bound(left) and self.bound(right):
            fl, fr = _has(left, "f"), _has(right, "f")
            if not fl and not fr:
                self.step(S_CMP, [_COMPARE[op], *self.expr(left), *self.expr(right)])
                return True
            if op not in ("=", "!=") or (fl and fr):
                raise _NotSupported("a comparison of a function term built at run time")
            given, pattern = (right, left) if fl else (left, right)
            self.step(S_MATCH if op == "=" else S_NMATCH, [*self.expr(given), *self.pattern(pattern)])
            return True
        if op != "=":
            return False
        for free, given in ((left, right), (right, left)):
            if self.bound(given) and not self.bound(free) and not _has(free, "op"):
                self.step(S_MATCH, [*self.expr(given), *self.pattern(free)])
                return True
        return False
