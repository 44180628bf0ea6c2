"""The compiled program's least model, computed in Python (semi-naive evaluation)."""
from __future__ import annotations

import marshal
import operator
import re
import types
from typing import TYPE_CHECKING

from ... import diskcache
from .names import INT_MAX, INT_MIN

if TYPE_CHECKING:
    import clingo

# ---------------------------------------------------------------------------------------------
# The evaluator: the compiled program's least model, computed in Python
#
# The program is positive, so its one model is the least fixpoint of its rules, which clingo
# computes while grounding.  On a mid-game state of the real rulesets that costs clingo
# 50-150 ms: parsing ~1800 statements (again for every state), then instantiating ~900 rules,
# a hundred predicates of which form one recursive component, for a model of ~1000 atoms.
# `_Evaluator` runs the same program text (read once, by `parse_program`; the tests check it
# reads what clingo's parser reads) by semi-naive evaluation: a round hands the atoms each
# predicate gained in the previous round to the predicate's dispatcher, which calls the rules
# with that predicate in their body:
#
# * a rule h(...) :- b(X1, ..., Xn) of distinct variables (subclass, subproperty, inverse,
#   domain, range: half the rules) is a projection of the new atoms, done by set.update;
# * any other rule, once per positive body atom, is a generated function that joins the new
#   atoms with the other body atoms through hash indexes (comparisons as soon as their
#   variables are bound, then membership tests, lookups on bound variables, lookups on
#   constants, and scans last).  It is only called when every
#   predicate of the body holds atoms, and generated and compiled on that first call: most
#   rules are about cards and situations absent from a state.
#
# Values: an integer is an int, a string a str, any other symbol (constants included) a tuple
# (name, *arguments): `true` is ("true",), s("a") is ("s", "a").  Terms follow clingo: an
# arithmetic operation on a non-integer, or a division by zero, is undefined and makes its
# literal false; integers wrap at 32 bits; `/` and `\` truncate; values of different kinds are
# ordered by clingo's own comparison of symbols.  (-2147483648 / -1 is -2147483648 here; it
# kills clingo with SIGFPE.)  What the evaluator does not reproduce (a construct the compiler
# never writes; the negation of a function term at run time) raises _NotSupported, and the call
# goes to clingo.


class _NotSupported(Exception):
    pass


def _wrap(x: int) -> int:
    return x if INT_MIN <= x <= INT_MAX else (x - INT_MIN) % 2 ** 32 + INT_MIN


def _b_add(a, b):
    return _wrap(a + b) if type(a) is int and type(b) is int else None


def _b_sub(a, b):
    return _wrap(a - b) if type(a) is int and type(b) is int else None


def _b_mul(a, b):
    return _wrap(a * b) if type(a) is int and type(b) is int else None


def _quotient(a: int, b: int) -> int:
    q = abs(a) // abs(b)
    return q if (a < 0) == (b < 0) else -q


def _b_div(a, b):
    return _wrap(_quotient(a, b)) if type(a) is int and type(b) is int and b else None


def _b_mod(a, b):
    return _wrap(a - b * _quotient(a, b)) if type(a) is int and type(b) is int and b else None


def _b_neg(a):
    if type(a) is int:
        return _wrap(-a)
    if type(a) is tuple:  # clingo negates a function term (-f(x)): not a value here
        raise _NotSupported("the negation of a function term")
    return None


def _b_abs(a):
    return _wrap(abs(a)) if type(a) is int else None


def _symbol(v) -> clingo.Symbol:
    import clingo  # (on first use: a run that compares only integers or only strings never needs it)

    if type(v) is int:
        return clingo.Number(v)
    if type(v) is str:
        return clingo.String(v)
    return clingo.Function(v[0], [_symbol(x) for x in v[1:]])


def _value(sym: clingo.Symbol):
    import clingo

    t = sym.type
    if t == clingo.SymbolType.Number:
        return sym.number
    if t == clingo.SymbolType.String:
        return sym.string
    if t == clingo.SymbolType.Function and sym.positive:
        return (sym.name, *map(_value, sym.arguments))
    raise _NotSupported(f"the term {sym}")


def _lt(a, b):
    return a < b if type(a) is int and type(b) is int else _symbol(a) < _symbol(b)


def _le(a, b):
    return a <= b if type(a) is int and type(b) is int else _symbol(a) <= _symbol(b)


def _gt(a, b):
    return a > b if type(a) is int and type(b) is int else _symbol(a) > _symbol(b)


def _ge(a, b):
    return a >= b if type(a) is int and type(b) is int else _symbol(a) >= _symbol(b)


_HELPERS = {f.__name__: f for f in (_b_add, _b_sub, _b_mul, _b_div, _b_mod, _b_neg, _b_abs, _lt, _le, _gt, _ge)}
_ORDERINGS = {"<": "_lt", "<=": "_le", ">": "_gt", ">=": "_ge"}

# terms: ("v", name) | ("c", value) | ("f", name, [terms]) | ("op", helper, [terms]);
# body literals: ("atom", pred, [terms]) | ("cmp", op, left, right), pred = (name, arity)


_ASP_TOKEN = re.compile(r"""
    (?P<skip>\s+|%[^\n]*)
  | (?P<str>"(?:[^"\\\n]|\\["\\n])*")
  | (?P<num>[0-9]+)
  | (?P<var>_*[A-Z][A-Za-z0-9_']*|_(?![A-Za-z0-9_']))
  | (?P<id>_*[a-z][A-Za-z0-9_']*)
  | (?P<show>\#show(?![A-Za-z0-9_']))
  | (?P<op>:-|!=|<=|>=|\*\*|[=<>+\-*/\\|(),.])
""", re.VERBOSE)
_ASP_ESCAPES = {"\\\\": "\\", '\\"': '"', "\\n": "\n"}
_ASP_BINARY = {"+": "_b_add", "-": "_b_sub", "*": "_b_mul", "/": "_b_div", "\\": "_b_mod"}
_ASP_COMPARE = {"=", "!=", "<", "<=", ">", ">="}


def parse_program(program: str):
    """The rules of a program as (head atom, body literals), as the evaluators read them: a parser of the
    statements the compiler writes (rules, facts, #show, % comments; clingo's AST, the same rules, is slow to
    walk from Python).  Raises _NotSupported on anything else (then clingo runs the program); tests check
    that it reads the real programs as clingo's parser does."""
    if "%*" in program:  # a block comment
        raise _NotSupported("a block comment")
    toks: list[tuple[str, str]] = []
    pos, n = 0, len(program)
    match = _ASP_TOKEN.match
    while pos < n:
        m = match(program, pos)
        if m is None:
            raise _NotSupported(f"the text at {program[pos:pos + 20]!r}")
        pos = m.end()
        kind = m.lastgroup
        if kind != "skip":
            toks.append((kind, m.group()))
    toks.append(("end", ""))
    i = 0
    anonymous = 0

    def take(text=None):
        nonlocal i
        tok = toks[i]
        if text is not None and tok[1] != text:
            raise _NotSupported(f"{tok[1]!r} where {text!r} is expected")
        i += 1
        return tok

    def operation(helper, args):
        if all(a[0] == "c" for a in args):
            value = _HELPERS[helper](*(a[1] for a in args))
            if value is None:
                raise _NotSupported("an undefined constant term")
            return ("c", value)
        return ("op", helper, args)

    def term():
        left = product()
        while toks[i][1] in ("+", "-") and toks[i][0] == "op":
            op = take()[1]
            left = operation(_ASP_BINARY[op], [left, product()])
        return left

    def product():
        left = unary()
        while toks[i][1] in ("*", "/", "\\"):
            op = take()[1]
            left = operation(_ASP_BINARY[op], [left, unary()])
        if toks[i][1] == "**":
            raise _NotSupported("**")
        return left

    def unary():
        nonlocal anonymous
        kind, text = take()
        if text == "-" and kind == "op":
            return operation("_b_neg", [unary()])
        if text == "|" and kind == "op":
            inner = term()
            take("|")
            return operation("_b_abs", [inner])
        if text == "(" and kind == "op":  # (a term in parentheses: clingo's `(t)` is t)
            inner = term()
            take(")")
            return inner
        if kind == "num":
            return ("c", int(text))
        if kind == "str":
            return ("c", re.sub(r'\\["\\n]', lambda m: _ASP_ESCAPES[m.group()], text[1:-1]))
        if kind == "var":
            if text == "_":
                anonymous += 1
                return ("v", f"#{anonymous}")
            return ("v", text)
        if kind == "id":
            if toks[i][1] != "(":
                return ("c", (text,))
            take("(")
            args = [term()]
            while toks[i][1] == ",":
                take(",")
                args.append(term())
            take(")")
            if all(a[0] == "c" for a in args):
                return ("c", (text, *(a[1] for a in args)))
            return ("f", text, args)
        raise _NotSupported(f"the term starting with {text!r}")

    def atom(t):
        if t[0] == "c" and type(t[1]) is tuple:
            return ("atom", (t[1][0], len(t[1]) - 1), [("c", a) for a in t[1][1:]])
        if t[0] == "f":
            return ("atom", (t[1], len(t[2])), t[2])
        raise _NotSupported(f"the atom {t}")

    def literal():
        t = term()
        if toks[i][1] in _ASP_COMPARE:
            op = take()[1]
            return ("cmp", op, t, term())
        return atom(t)

    rules = []
    while toks[i][0] != "end":
        if toks[i][0] == "show":
            take()
            if take()[0] != "id":
                raise _NotSupported("a #show of a term")
            take("/")
            if take()[0] != "num":
                raise _NotSupported("a #show without an arity")
            take(".")
            continue
        head = atom(term())
        body = []
        if toks[i][1] == ":-":
            take()
            body.append(literal())
            while toks[i][1] == ",":
                take()
                body.append(literal())
        take(".")
        rules.append((head, body))
    return rules


class CodeCache:
    """The code objects of the generated functions, by source text (the same source always
    compiles to the same code), shared by the evaluators of one program.  With a disk cache entry
    (diskcache: `fastcode-<ruleset>-<key of the sources>.marshal`), the entry is read on the first
    function needed, and the codes compiled since are added to it when the process exits: a
    later process compiles only the functions no earlier run needed."""

    def __init__(self, entry: str | None):
        self.entry = entry
        self.codes: dict | None = None
        self.read = 0

    def get(self, source: str, name: str):
        if self.entry is None:  # (a program not from the sources: compiled as its evaluator needs them)
            return compile(source, f"<fast evaluator: {name}>", "exec")
        codes = self.codes
        if codes is None:
            codes = self.codes = self._load()
        code = codes.get(source)
        if code is None:
            code = codes[source] = compile(source, f"<fast evaluator: {name}>", "exec")
        return code

    def _load(self) -> dict:
        if not diskcache.enabled():
            return {}
        import atexit

        atexit.register(self.save)
        codes = self._read()
        self.read = len(codes)
        return codes

    def _read(self) -> dict:
        data = diskcache.read_bytes(self.entry)
        if not data:
            return {}
        try:
            codes = marshal.loads(data)
        except Exception:  # a broken entry: compiled again
            return {}
        if not isinstance(codes, dict) or not all(type(k) is str and type(v) is types.CodeType
                                                  for k, v in codes.items()):
            return {}
        return codes

    def save(self) -> None:
        """Add the codes compiled in this process to the entry (with any another process added)."""
        if self.codes is None or len(self.codes) <= self.read or len(self.codes) > 100_000:
            return
        codes = self._read()
        codes.update(self.codes)
        self.read = len(self.codes)
        diskcache.write_bytes(self.entry, marshal.dumps(codes))


_CODE_CACHES: dict = {}


def code_cache(entry: str | None) -> CodeCache:
    """The CodeCache of a disk cache entry (None: none, every function compiled)."""
    got = _CODE_CACHES.get(entry)
    if got is None:
        got = _CODE_CACHES[entry] = CodeCache(entry)
    return got


def _vars(t) -> set:
    if t[0] == "v":
        return {t[1]}
    if t[0] == "c":
        return set()
    return set().union(*map(_vars, t[2]))


def predicate_numbers(rules) -> dict[tuple[str, int], int]:
    """(name, arity) -> its number, in the order the rules first mention each predicate (a rule's
    head, then its body atoms): the numbering of the Python and the native evaluator."""
    preds: dict[tuple[str, int], int] = {}
    for head, body in rules:
        preds.setdefault(head[1], len(preds))
        for lit in body:
            if lit[0] == "atom":
                preds.setdefault(lit[1], len(preds))
    return preds


def _has_op(t) -> bool:
    return t[0] == "op" or (t[0] == "f" and any(map(_has_op, t[2])))


def next_atom(body, todo: list[int], bound, head) -> int:
    """The body atom (of those in `todo`) to join next, given which terms are bound: a
    membership test, then a lookup by bound variables (a constant such as true is shared by
    many atoms), then by constants, then a scan; the first of equals.  The Python and the native
    evaluator join in this order."""
    best = None
    for i in todo:
        lit = body[i]
        if lit[0] != "atom":
            continue
        nb = nv = 0
        for t in lit[2]:
            if bound(t):
                nb += 1
                if t[0] != "c":
                    nv += 1
        score = (nb == len(lit[2]), nv, nb)
        if best is None or score > best[0]:
            best = (score, i)
    if best is None:
        raise _NotSupported(f"a comparison whose variables no atom binds in the rule of {head}")
    return best[1]


def _index_add(index: dict, key, tuples) -> None:
    """Add tuples to an index of a relation: key(tuple) -> the tuples with that key."""
    for t in tuples:
        k = key(t)
        got = index.get(k)
        if got is None:
            index[k] = [t]
        else:
            got.append(t)


class _Evaluator:
    """The least model of a positive program (see above), `run` after `run`: each run starts
    from the program's facts, or goes on from the previous model when its facts only add to the
    previous run's (see `run`).  Not reentrant: `run` and the reading of `model` happen under
    `lock`."""

    def __init__(self, program: str, rules=None, codes: CodeCache | None = None):
        """`rules`: parse_program(program), if known; `codes`: where the generated functions'
        code objects are kept (see CodeCache)."""
        import threading

        self.lock = threading.Lock()
        self._extra: dict = {}
        self._codes = codes if codes is not None else code_cache(None)
        if rules is None:
            rules = parse_program(program)
        self.preds = predicate_numbers(rules)
        n = len(self.preds)
        self._keys = list(self.preds)
        self.relations: list[set] = [set() for _ in range(n)]
        self._pending: list[set] = [set() for _ in range(n)]
        self._indexes: list[list] = [[] for _ in range(n)]  # (key of a tuple, dict key -> tuples)
        self._clear = [x.clear for x in self.relations + self._pending]
        ns: dict = dict(_HELPERS)
        for i in range(n):
            ns[f"S{i}"], ns[f"P{i}"] = self.relations[i], self._pending[i]
        self._ns = ns
        self._facts: dict[int, set] = {}
        self._once = []
        self._functions = 0
        calls: list[list[str]] = [[] for _ in range(n)]  # the lines of the dispatcher of each predicate
        # the predicates whose pending atoms to collect after a round in which p had new atoms
        reach: list[set] = [set() for _ in range(n)]
        once_heads: set[int] = set()
        self._by_head: dict[int, list] = {}  # head predicate -> its rules with a body (see _update)
        for head, body in rules:
            h = self.pred(head[1])
            if body:
                self._by_head.setdefault(h, []).append((head, body))
            for lit in body:
                if lit[0] == "atom":
                    reach[self.pred(lit[1])].add(h)
            if not body:
                if any(t[0] != "c" for t in head[2]):
                    raise _NotSupported(f"the fact {head} with variables")
                self._facts.setdefault(h, set()).add(tuple(t[1] for t in head[2]))
                continue
            projection = self.projection(head, body)
            if projection is not None:
                calls[self.pred(body[0][1])].append(projection)
                continue
            atoms = [i for i, lit in enumerate(body) if lit[0] == "atom"]
            body_preds = {self.pred(body[i][1]) for i in atoms}
            for i in atoms:
                q = self.pred(body[i][1])
                others = sorted(body_preds - {q})
                call = f"{self.stub(head, body, i)}(delta)"
                calls[q].append(f"if {' and '.join(f'S{o}' for o in others)}: {call}" if others else call)
            if not atoms:
                self._once.append(self.function(head, body, None))
                once_heads.add(h)
        self._dispatch = [self.dispatcher(q, lines) if lines else None for q, lines in enumerate(calls)]
        self._reach = [tuple(sorted(r)) for r in reach]
        self._once_heads = tuple(sorted(once_heads))
        self._once_atoms: dict[int, set] | None = None  # what the rules without atoms derive (constant)
        self._checks: dict[int, object] = {}  # head predicate -> its rules' check function (see _update)
        self._touched: set[int] = set()  # the predicates that hold atoms (to clear before the next run)
        self._dirty = False  # a run stopped half-way: clear everything
        self._input: dict | None = None  # the facts of the last run, if it completed
        # after a run that went on from the previous model: the atoms it added, by predicate
        # (None after a run from the program's facts); see added_model
        self._added: dict[int, set] | None = None
        self._extra_added: dict = {}
        self._change: tuple | None = None  # after an _update: the atoms it removed and added (changed_model)
        # after a run that went on from the previous model by adding atoms (and was not itself such a
        # run after another): (the previous run's facts, its facts of predicates the program does not
        # mention, the atoms added by (name, arity)), to take them out again before the next run
        self._rollback: tuple | None = None
        # the caller's reading of the model as it was before the atoms of `_added` (or None): a
        # run from the program's facts drops it (see _read_evaluator)
        self.reading = None

    def pred(self, key: tuple[str, int]) -> int:
        if key not in self.preds:
            self.preds[key] = len(self.preds)
        return self.preds[key]

    def projection(self, head, body) -> str | None:
        """The dispatcher's line for a rule h(Xi, ...) :- b(X1, ..., Xn) (distinct variables), else None."""
        if len(body) != 1 or body[0][0] != "atom" or not head[2]:
            return None
        args = body[0][2]
        names = [t[1] for t in args if t[0] == "v"]
        if len(names) != len(args) or len(set(names)) != len(names):
            return None
        if any(t[0] != "v" or t[1] not in names or t[1].startswith("#") for t in head[2]):
            return None
        positions = [names.index(t[1]) for t in head[2]]
        update = f"P{self.pred(head[1])}.update"
        if positions == list(range(len(args))):
            return f"{update}(delta)"
        getter = f"G{'_'.join(map(str, positions))}"
        self._ns[getter] = operator.itemgetter(*positions)
        if len(positions) == 1:
            return f"{update}(zip(map({getter}, delta)))"
        return f"{update}(map({getter}, delta))"

    def dispatcher(self, q: int, lines: list[str]):
        """The dispatcher of predicate q: first a stub that compiles it when q first has new atoms."""

        def stub(delta):
            source = f"def D{q}(delta):\n" + "".join(f" {line}\n" for line in lines)
            exec(self._codes.get(source, f"D{q}"), self._ns)  # noqa: S102 (generated)
            fn = self._dispatch[q] = self._ns[f"D{q}"]
            fn(delta)

        return stub

    def stub(self, head, body, first: int) -> str:
        """The name of the function of the rule for body atom `first`: first a stub that compiles it
        (when the dispatcher first calls it: all the body's predicates hold atoms) and replaces itself."""
        self._functions += 1
        name = f"R{self._functions}"

        def stub(delta):
            self.function(head, body, first, name)(delta)

        self._ns[name] = stub
        return name

    def index(self, p: int, pattern: tuple[int, ...]) -> str:
        """The name of the index of predicate p on the argument positions `pattern`, made (and
        filled from what p holds now) if new."""
        name = f"X{p}_{'_'.join(map(str, pattern))}"
        if name not in self._ns:
            index: dict = {}
            key = operator.itemgetter(*pattern)
            _index_add(index, key, self.relations[p])
            self._ns[name] = index
            self._indexes[p].append((key, index))
            self._clear.append(index.clear)
        return name

    def function(self, head, body, first: int | None, name: str | None = None):
        if name is None:
            self._functions += 1
            name = f"R{self._functions}"
        source = self.rule_source(name, head, body, first)
        exec(self._codes.get(source, name), self._ns)  # noqa: S102 (generated)
        return self._ns[name]

    # -- code generation
    def rule_source(self, name: str, head, body, first: int | None, check: bool = False) -> str:
        """A function that adds to P<head> the head atoms of the rule's instances in which body
        atom `first` is one of `delta` (None: a rule without atoms, run once).  check=True: a
        function of a head tuple `t`, whether an instance of the rule derives it from the model
        as it is (see _update)."""
        if check:
            lines = [f"def {name}(t):"]
        else:
            lines = [f"def {name}({'delta' if first is not None else ''}):"]
            if first is None:  # (a dispatcher checks the others before calling)
                others = sorted({self.pred(lit[1]) for lit in body if lit[0] == "atom"})
                if others:
                    lines.append(f" if not ({' and '.join(f'S{p}' for p in others)}): return")
            lines.append(f" add = P{self.pred(head[1])}.add")
        env: dict[str, str] = {}  # variable -> Python expression of its value
        depth = 1
        fresh = iter(range(10 ** 6))

        def emit(line):
            lines.append(" " * depth + line)

        def value(t) -> str:
            """Python expression of a term whose variables are bound (may be None if it has an op)."""
            kind = t[0]
            if kind == "v":
                return env[t[1]]
            if kind == "c":
                return repr(t[1])
            if kind == "f":
                return "(" + ", ".join([repr(t[1])] + [value(a) for a in t[2]]) + ",)"
            return f"{t[1]}({', '.join(value(a) for a in t[2])})"

        def match(t, expr: str, conds: list[str]) -> None:
            """Conditions for expr to match t; binds t's unbound variables in env."""
            kind = t[0]
            if kind == "v":
                if t[1] in env:
                    conds.append(f"{expr} == {env[t[1]]}")
                elif not t[1].startswith("#"):
                    env[t[1]] = expr
            elif kind == "c":
                conds.append(f"{expr} == {t[1]!r}")
            elif kind == "f" and not _has_op(t):
                conds.append(f"type({expr}) is tuple and len({expr}) == {len(t[2]) + 1} and {expr}[0] == {t[1]!r}")
                for j, a in enumerate(t[2], 1):
                    match(a, f"{expr}[{j}]", conds)
            else:
                raise _NotSupported("an operation in a position to match")

        term_vars: dict[int, set] = {}  # id of a term of the rule -> its variables (the rule's terms live)

        def bound(t) -> bool:
            kind = t[0]
            if kind == "v":
                return t[1] in env
            if kind == "c":
                return True
            got = term_vars.get(id(t))
            if got is None:
                got = term_vars[id(t)] = _vars(t)
            return all(v in env for v in got)

        def computed(t, conds: list[str]) -> str:
            """The expression of a bound term; arithmetic goes to a temporary that must be defined."""
            if not _has_op(t):
                return value(t)
            x = f"e{next(fresh)}"
            emit(f"{x} = {value(t)}")
            conds.append(f"{x} is not None")
            return x

        def guard(conds: list[str]) -> None:
            nonlocal depth
            if conds:
                emit(f"if {' and '.join(conds)}:")
                depth += 1

        def atom(lit, source: str | None) -> None:
            nonlocal depth
            _, key, args = lit
            p = self.pred(key)
            keys = [j for j, t in enumerate(args) if bound(t) and t[0] != "v" or t[0] == "v" and t[1] in env]
            if source is None and len(keys) == len(args):
                emit(f"if ({''.join(value(t) + ', ' for t in args)}) in S{p}:")
                depth += 1
                return
            if source is None and keys:
                k = value(args[keys[0]]) if len(keys) == 1 else \
                    "(" + ", ".join(value(args[j]) for j in keys) + ")"
                source = f"{self.index(p, tuple(keys))}.get({k}, ())"
                rest = [j for j in range(len(args)) if j not in keys]
            else:
                source = source or f"S{p}"
                rest = list(range(len(args)))
            n = next(fresh)
            names = [f"a{n}_{j}" for j in range(len(args))]
            emit(f"for ({''.join(x + ', ' for x in names)}) in {source}:" if args else f"for _ in {source}:")
            depth += 1
            conds: list[str] = []
            for j in rest:
                match(args[j], names[j], conds)
            guard(conds)

        def comparison(lit) -> bool:
            """Emit a comparison whose variables are bound (a test) or that binds one side (an
            assignment or a match); False if it must wait."""
            nonlocal depth
            _, op, left, right = lit
            if bound(left) and bound(right):
                conds = []
                a, b = (computed(t, conds) for t in (left, right))
                if op == "=":
                    conds.append(f"{a} == {b}")
                elif op == "!=":
                    conds.append(f"{a} != {b}")
                else:
                    conds.append(f"{_ORDERINGS[op]}({a}, {b})")
                guard(conds)
                return True
            if op != "=":
                return False
            for free, given in ((left, right), (right, left)):
                if bound(given) and not bound(free) and not _has_op(free):
                    x = f"e{next(fresh)}"
                    emit(f"{x} = {value(given)}")
                    conds = [f"{x} is not None"] if _has_op(given) else []
                    match(free, x, conds)
                    guard(conds)
                    return True
            return False

        todo = [i for i in range(len(body)) if i != first]
        if check:  # the head's terms match the tuple first
            conds = [f"len(t) == {len(head[2])}"]
            for j, ht in enumerate(head[2]):
                match(ht, f"t[{j}]", conds)
            guard(conds)
        elif first is not None:
            atom(body[first], "delta")
        while todo:
            for i in todo:
                if body[i][0] == "cmp" and comparison(body[i]):
                    todo.remove(i)
                    break
            else:
                i = next_atom(body, todo, bound, head)
                todo.remove(i)
                atom(body[i], None)
        if check:
            emit("return True")
            return "\n".join(lines) + "\n return False\n"
        conds = []
        if not all(bound(t) for t in head[2]):
            raise _NotSupported(f"an unsafe variable in the head {head}")
        hvals = [computed(t, conds) for t in head[2]]
        guard(conds)
        emit(f"add(({''.join(v + ', ' for v in hvals)}))")
        return "\n".join(lines) + "\n"

    # -- evaluation
    def run(self, facts: dict[tuple[str, int], set]) -> None:
        """The least model with these facts ((name, arity) -> tuples) added; call under `lock`.

        If every fact of the previous (completed) run is among `facts` (the state just reasoned
        about, with an action declared), the run goes on from the previous model with the new
        facts as the delta: the program is positive, so the model only grows, and semi-naive
        evaluation from a model of some facts reaches the least model of more facts."""
        previous, self._input = self._input, None
        rollback, self._rollback = self._rollback, None
        self._change = None
        if previous is not None and not self._dirty and self._extends(previous, facts):
            self._dirty = True
            self._added = {}
            extra = dict(self._extra)
            self._loop(self._insert_new(previous, facts), set())
            self._input = facts
            if rollback is None:
                self._rollback = (previous, extra, self.added_model())
            return
        if rollback is not None and not self._dirty:
            # the previous run went on from a model (of `previous`) by adding atoms only: taking
            # them out gives that model back, where delete and rederive would find them again
            # (an action's consequences: most of what the next state's run over-deleted)
            previous, self._extra, taken = rollback
            for key, atoms in taken.items():
                p = self.preds.get(key)
                if p is not None and atoms:
                    self.remove(p, atoms)
            if self._extends(previous, facts):
                self._dirty = True
                self._added = {}
                self._loop(self._insert_new(previous, facts), set())
                self._input = facts
                self._change = self._after_rollback(taken, {}, self.added_model())
                self._added = None
                return
            if self._updated(previous, facts):
                self._input = facts
                self._change = self._after_rollback(taken, *self._change)
                return
        elif previous is not None and not self._dirty:
            if self._updated(previous, facts):
                self._input = facts
                return
        self._added = None
        self._extra_added = {}
        self.reading = None
        relations, indexes = self.relations, self._indexes
        if self._dirty:
            for clear in self._clear:
                clear()
        else:
            for p in self._touched:
                relations[p].clear()
                for _, index in indexes[p]:
                    index.clear()
        self._dirty = True
        self._touched = set()
        self._extra = {}  # facts of predicates the program does not mention
        delta = dict(self._facts)  # (sets that no one changes: the rounds make new ones)
        preds = self.preds
        for key, tuples in facts.items():
            p = preds.get(key)
            if p is None:
                self._extra[key] = tuples
            elif p in delta:
                delta[p] = delta[p] | tuples
            else:
                delta[p] = tuples
        for p, tuples in delta.items():
            self.insert(p, tuples)
        for fn in self._once:
            fn()
        if self._once_atoms is None:
            self._once_atoms = {p: set(self._pending[p]) for p in self._once_heads}
        self._loop(delta, set(self._once_heads))
        self._input = facts

    @staticmethod
    def _after_rollback(taken: dict, removed: dict, added: dict) -> tuple[dict, dict]:
        """The change from the model before a rollback (that model less the atoms `taken`, then
        `removed` taken out and `added` put in), by (name, arity): what changed_model gives."""
        gone = dict(removed)
        for key, atoms in taken.items():
            back = added.get(key)
            rest = atoms - back if back else atoms
            if rest:
                got = gone.get(key)
                gone[key] = got | rest if got else rest
        new = {}
        for key, atoms in added.items():
            was = taken.get(key)
            rest = atoms - was if was else atoms
            if rest:
                new[key] = rest
        return gone, new

    def _changes(self, previous: dict, facts: dict) -> tuple[dict, dict, dict, tuple[dict, dict]]:
        """What `facts` removes from and adds to `previous`, by predicate of the program; the facts
        of predicates the program does not mention (kept as they are), and what `facts` removes
        from and adds to those, by (name, arity)."""
        preds = self.preds
        removed: dict = {}
        added: dict = {}
        extra = dict(self._extra)
        extra_removed: dict = {}
        extra_added: dict = {}
        for key in previous.keys() | facts.keys():
            old, new = previous.get(key), facts.get(key)
            if old is new:
                continue
            p = preds.get(key)
            if p is None:
                if new:
                    extra[key] = new
                else:
                    extra.pop(key, None)
                into_removed, into_added, at = extra_removed, extra_added, key
            else:
                into_removed, into_added, at = removed, added, p
            if old:
                gone = old - new if new else old
                if gone:
                    into_removed[at] = gone
            if new:
                more = new - old if old else new
                if more:
                    into_added[at] = more
        return removed, added, extra, (extra_removed, extra_added)

    UNLIKE = 8  # _update starts from scratch when more than 1/UNLIKE of the input facts changed

    def _updated(self, previous: dict, facts: dict) -> bool:
        """_update, and False where it meets what it does not support (the run then starts from scratch)."""
        try:
            return self._update(previous, facts)
        except _NotSupported:
            return False

    def _update(self, previous: dict, facts: dict) -> bool:
        """The least model of `facts` from the model of `previous` when facts were also removed:
        delete and rederive (DRed, Gupta, Mumick and Subrahmanian 1993).

        1. Over-delete: every atom with a derivation that uses a removed fact, found by the same
           semi-naive rounds as insertion (the rule functions, with the removed atoms as the delta,
           joined with the model as it was).
        2. Take them out of the model.
        3. Rederive the over-deleted atoms that still hold: a program fact, an input fact, the
           head of a rule without atoms, or the head of a rule instance whose body holds in what
           is left (a check function per rule, generated like the rule functions with the head's
           terms bound).
        4. Insert the rederived atoms and the added facts, and run semi-naive rounds to the fixpoint.

        The program is positive, so the result is the least model of `facts`: the tests compare
        it with a run from scratch and with clingo on the states of whole duels.  Returns False
        (nothing changed; the caller runs from scratch) when more than 1/UNLIKE of the input facts
        changed or the removal would take out most of the model, where starting again is cheaper.

        An atom that is a fact of the new run (a program fact, a constant head, an input fact) is
        not over-deleted, nor is anything on its account: it is in the new model whatever else
        goes.  Without that cut, taking a card out of a zone over-deleted the Card atom that the
        domain of placedIn also gives, and everything joined with it: a third of the model for a
        change of a few atoms."""
        relations, keys = self.relations, self._keys
        removed, added, extra, extra_change = self._changes(previous, facts)
        if not removed:
            return False
        # a state unlike the previous one (not the next state of a duel: a median of 5 of ~900 input
        # facts change there) is cheaper from scratch than deleting most of the model first
        changed = sum(map(len, removed.values())) + sum(map(len, added.values()))
        if changed * self.UNLIKE > sum(map(len, facts.values())):
            return False
        size = sum(map(len, relations))
        self._dirty = True
        once = self._once_atoms or {}

        def explicit(p: int, tuples: set) -> set:
            """Of `tuples`, those that are not facts of the new run (see above)."""
            for s in (self._facts.get(p), once.get(p), facts.get(keys[p])):
                if s:
                    tuples = tuples - s
            return tuples

        # 1. over-delete
        pendings = self._pending
        gone_all: dict[int, set] = {}
        delta: dict[int, set] = {}
        for p, tuples in removed.items():
            tuples = explicit(p, tuples & relations[p])
            if tuples:
                delta[p] = tuples
                gone_all[p] = set(tuples)
        count = sum(map(len, delta.values()))
        while delta:
            collect: set = set()
            self._fire(delta, collect)
            delta = {}
            for p in collect:
                pending = pendings[p]
                if pending:
                    got = gone_all.get(p)
                    new = pending - got if got else set(pending)
                    pending.clear()
                    new &= relations[p]
                    new = explicit(p, new)
                    if new:
                        if got is None:
                            gone_all[p] = new.copy()
                        else:
                            got |= new
                        delta[p] = new
                        count += len(new)
            if count * 2 > size:  # most of the model: from scratch is cheaper
                for pending in pendings:
                    pending.clear()
                return False
        # 2. take them out
        for p, tuples in gone_all.items():
            self.remove(p, tuples)
        # 3. rederive (an over-deleted atom is no fact of the new run: explicit() kept those)
        self._added = {}  # what 4. inserts: with gone_all, the change the caller reads (self._change)
        self._extra_added = {}
        self._extra = extra
        back: dict[int, set] = {}
        for p, tuples in gone_all.items():
            keep = set(filter(self.check(p), tuples))
            if keep:
                back[p] = keep
        # 4. insert
        delta = {}
        for p in back.keys() | added.keys():
            new = back.get(p, set()) | added.get(p, set())
            new -= relations[p]
            if new:
                self.insert(p, new)
                delta[p] = new
        self._loop(delta, set())
        # (the caller's reading stays: it reads the change, self._change)
        inserted, self._added = self._added, None
        removed_atoms = {keys[p]: gone - inserted[p] if p in inserted else gone for p, gone in gone_all.items()}
        added_atoms = {keys[p]: new - gone_all[p] if p in gone_all else new for p, new in inserted.items()}
        removed_atoms.update(extra_change[0])
        added_atoms.update(extra_change[1])
        self._change = ({k: v for k, v in removed_atoms.items() if v}, {k: v for k, v in added_atoms.items() if v})
        return True

    def check(self, p: int):
        """The check function of predicate p (made on first use): whether an instance of one of the
        rules with head p derives a head tuple `t` from the model as it is.  One function, the
        checks of the rules one after the other (each block returns True where its rule derives
        t), so that an atom no rule rederives costs one call."""
        got = self._checks.get(p)
        if got is None:
            self._functions += 1
            name = f"C{self._functions}"
            blocks = []
            for head, body in self._by_head.get(p, ()):
                source = self.rule_source(name, head, body, None, check=True)
                # "def name(t):\n" + the block + " return False\n": the blocks in one function
                blocks.append(source[source.index("\n") + 1:-len(" return False\n")])
            source = f"def {name}(t):\n{''.join(blocks)} return False\n"
            exec(self._codes.get(source, name), self._ns)  # noqa: S102 (generated)
            got = self._checks[p] = self._ns[name]
        return got

    def remove(self, p: int, gone: set) -> None:
        """Take atoms out of relation p and its indexes."""
        rel = self.relations[p]
        rel -= gone
        for key, index in self._indexes[p]:
            if len(gone) * 4 > len(rel):
                index.clear()
                _index_add(index, key, rel)
                continue
            for t in gone:
                k = key(t)
                lst = index[k]
                lst.remove(t)
                if not lst:
                    del index[k]

    @staticmethod
    def _extends(previous: dict, facts: dict) -> bool:
        """Whether every fact of `previous` is among `facts`."""
        for key, old in previous.items():
            new = facts.get(key)
            if new is not old and (new is None or not old <= new):  # (_abox shares unchanged sets)
                return False
        return True

    def _insert_new(self, previous: dict, facts: dict) -> dict[int, set]:
        """Insert the facts not in `previous` that the model lacks; the delta of the first round."""
        preds, relations = self.preds, self.relations
        delta: dict[int, set] = {}
        self._extra_added = {}
        for key, tuples in facts.items():
            old = previous.get(key)
            if tuples is old:
                continue
            new = tuples - old if old else tuples
            if not new:
                continue
            p = preds.get(key)
            if p is None:
                self._extra[key] = tuples
                self._extra_added[key] = new
            else:
                new = new - relations[p]
                if new:
                    self.insert(p, new)
                    delta[p] = new
        return delta

    def _fire(self, delta: dict[int, set], collect: set) -> None:
        """One round: the rules reading each changed relation run on its new tuples; the relations
        they may write are added to `collect` (their results wait in self._pending)."""
        dispatch, reach = self._dispatch, self._reach
        for p, tuples in delta.items():
            fn = dispatch[p]
            if fn is not None:
                collect.update(reach[p])
                fn(tuples)

    def _take_pending(self, preds, delta: dict[int, set]) -> dict[int, set]:
        """Move the atoms waiting in the pending sets of `preds` that their relations lack into
        the relations, and into `delta` (the next round's); returns delta."""
        relations, pendings, insert = self.relations, self._pending, self.insert
        for p in preds:
            pending = pendings[p]
            if pending:
                new = pending - relations[p]
                pending.clear()
                if new:
                    insert(p, new)
                    got = delta.get(p)
                    delta[p] = got | new if got else new
        return delta

    def _loop(self, delta: dict[int, set], collect: set) -> None:
        """Semi-naive rounds from `delta` (atoms already inserted) to the fixpoint."""
        while True:
            self._fire(delta, collect)
            delta = self._take_pending(collect, {})
            if not delta:
                self._dirty = False
                return
            collect = set()

    def insert(self, p: int, new: set) -> None:
        self._touched.add(p)
        self.relations[p].update(new)
        if self._added is not None:
            got = self._added.get(p)
            if got is None:
                self._added[p] = set(new)
            else:
                got.update(new)
        for key, index in self._indexes[p]:
            _index_add(index, key, new)

    def model(self) -> dict[tuple[str, int], set]:
        """The predicates that hold atoms after `run`, (name, arity) -> tuples."""
        keys = self._keys
        out = {keys[p]: self.relations[p] for p in self._touched}
        out.update(self._extra)
        return out

    def atoms(self, key: tuple[str, int]) -> set | None:
        """The atoms of one relation of `model` ((name, arity)), or None where `model` has none."""
        p = self.preds.get(key)
        if p is not None and p in self._touched:
            return self.relations[p]
        return self._extra.get(key)

    def changed_model(self) -> tuple[dict, dict] | None:
        """After a run that deleted and rederived (_update): the atoms it took out of the previous
        model and the atoms it added, by (name, arity), as `model` gives them (facts of predicates
        the program does not mention included).  None after any other run."""
        return self._change

    def added_model(self) -> dict[tuple[str, int], set] | None:
        """The atoms the last run added to the previous model, as `model` gives them (None if it
        ran from the program's facts)."""
        if self._added is None:
            return None
        keys = self._keys
        out = {keys[p]: atoms for p, atoms in self._added.items()}
        out.update(self._extra_added)
        return out
