"""SWRL rules in Protégé's text syntax: the one reader of rules/**/*.swrl, and a matcher of rule
bodies on facts.

* `parse_rule_file` reads a .swrl file into `Rule`s (name, text, the citation comment above it,
  file, line); `Knowledge` loads a ruleset with it.
* `parse_rule_text` reads one rule's text into body and head `Atom`s of `Term`s (the tokens and
  their priority are owlready2's rule lexer's): what the fast backend compiles and the
  vocabulary check reads.  `parse_rule` gives the same atoms with plain values (`RuleAtom`:
  `Var`, int, bool, names), for `explain` and `search`.
* `FactIndex`, `match_body` and `deepest_failure` match a body on facts, to explain inferences
  (which rule fired, on which facts; which atom failed).
"""
from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path

# ---------------------------------------------------------------------------------------------
# Rule files

@dataclass
class Rule:
    """One SWRL rule as written in rules/*.swrl (Protégé's text syntax)."""

    name: str  # e.g. "official/summons.swrl#3"
    text: str
    comment: str
    file: str
    line: int

    @property
    def where(self) -> str:
        """Where the rule is written: 'rules/official/battle.swrl:12', or, for a rule made in an ontology
        file with no ygo:ruleFile (a new rule typed into SWRLTab), 'in the ontology file'."""
        if not self.file:
            return "in the ontology file"
        return f"{self.file}:{self.line}" if self.line else self.file


def parse_rule_file(path: Path, name_prefix: str) -> list[Rule]:
    """Rules are blocks of non-comment lines; the '#' lines right above a rule are its comment."""
    rules, comment, body, start = [], [], [], 0
    shown = f"rules/{name_prefix}"
    lines = path.read_text(encoding="utf-8").splitlines() + [""]
    for number, line in enumerate(lines, 1):
        stripped = line.strip()
        if stripped.startswith("#"):
            if body:
                raise SyntaxError(f"{path}:{number}: a comment inside a rule; end the rule with a blank line first")
            comment.append(stripped.lstrip("#").strip())
        elif stripped:
            if not body:
                start = number
            body.append(stripped)
        elif body:
            text = " ".join(body)
            if "->" not in text:
                raise SyntaxError(f"{path}:{start}: expected 'body -> head', got {text!r}")
            rules.append(Rule(f"{name_prefix}#{len(rules) + 1}", text, " ".join(comment), shown, start))
            comment, body = [], []
        else:
            comment = []  # a comment block followed by a blank line is a file or section header
    return rules


# ---------------------------------------------------------------------------------------------
# Rule text (Protégé syntax; the tokens and their priority are owlready2's rule lexer's)

_TOKENS = [
    ("(", re.compile(r"\(")),
    (")", re.compile(r"\)")),
    (",", re.compile(r",")),
    (",", re.compile(r"\^")),
    ("IMP", re.compile(r"->")),
    ("FLOAT", re.compile(r"-[0-9]*\.[0-9]+")),
    ("FLOAT", re.compile(r"[0-9]*\.[0-9]+")),
    ("INT", re.compile(r"-[0-9]+")),
    ("INT", re.compile(r"[0-9]+")),
    ("STR", re.compile(r'".*?"')),
    ("STR", re.compile(r"'.*?'")),
    ("BOOL", re.compile(r"true")),
    ("BOOL", re.compile(r"false")),
    ("VAR", re.compile(r"\?[a-zA-Z0-9_]+")),
    ("NAME", re.compile(r"(?![0-9])[\w:/.#&-]+")),
]
_SPACE = re.compile(r"\s+")


class RuleSyntaxError(ValueError):
    pass


@dataclass(frozen=True)
class Term:
    kind: str  # var | name | int | float | bool | str
    value: object

    @property
    def is_var(self) -> bool:
        return self.kind == "var"

    def __str__(self):
        if self.kind == "var":
            return "?" + self.value
        if self.kind == "bool":
            return "true" if self.value else "false"
        if self.kind == "str":
            return '"' + self.value + '"'
        return str(self.value)


@dataclass(frozen=True)
class Atom:
    pred: str
    args: tuple[Term, ...]

    @property
    def predicate(self) -> str:
        return self.pred

    def __str__(self):
        return f"{self.pred}({', '.join(map(str, self.args))})"


def tokenize(text: str) -> list[tuple[str, str]]:
    out, pos = [], 0
    while pos < len(text):
        m = _SPACE.match(text, pos)
        if m:
            pos = m.end()
            continue
        for kind, rx in _TOKENS:
            m = rx.match(text, pos)
            if m:
                out.append((kind, m.group()))
                pos = m.end()
                break
        else:
            raise RuleSyntaxError(f"unexpected character {text[pos]!r} at column {pos + 1}")
    return out


def parse_rule_text(text: str) -> tuple[list[Atom], list[Atom]]:
    """'A(?x), p(?x, ?y) -> B(?y)' -> (body atoms, head atoms)."""
    toks = tokenize(text)
    i = 0

    def peek():
        return toks[i][0] if i < len(toks) else "END"

    def take(kind):
        nonlocal i
        if peek() != kind:
            got = toks[i][1] if i < len(toks) else "the end of the rule"
            raise RuleSyntaxError(f"expected {kind}, got {got!r}")
        i += 1
        return toks[i - 1][1]

    def term():
        kind = peek()
        value = take(kind) if kind in ("VAR", "NAME", "INT", "FLOAT", "BOOL", "STR") else None
        if value is None:
            take("an argument")
        if kind == "VAR":
            return Term("var", value[1:])
        if kind == "NAME":
            return Term("name", value)
        if kind == "INT":
            return Term("int", int(value))
        if kind == "FLOAT":
            return Term("float", float(value))
        if kind == "BOOL":
            return Term("bool", value == "true")
        return Term("str", value[1:-1])

    def atom():
        pred = take("NAME")
        take("(")
        args = []
        if peek() != ")":
            args.append(term())
            while peek() == ",":
                take(",")
                args.append(term())
        take(")")
        return Atom(pred, tuple(args))

    def atoms(stop):
        out = []
        if peek() == stop:
            return out
        out.append(atom())
        while peek() == ",":
            take(",")
            out.append(atom())
        return out

    body = atoms("IMP")
    take("IMP")
    head = atoms("END")
    if i != len(toks):
        raise RuleSyntaxError(f"unexpected {toks[i][1]!r} after the head")
    return body, head


def parse_rule(text: str) -> tuple[list[RuleAtom], list[RuleAtom]]:
    """'body -> head' into (body atoms, head atoms) as plain values: an argument is a `Var`, an
    int, a bool, an individual's name (str), a float or ("literal", text) for a string literal.
    The same tokens as parse_rule_text; raises SyntaxError (RuleSyntaxError)."""
    body, head = parse_rule_text(text)
    return [_plain(a) for a in body], [_plain(a) for a in head]


@dataclass(frozen=True)
class Var:
    name: str

    def __str__(self):
        return "?" + self.name


@dataclass(frozen=True)
class RuleAtom:
    """An atom of parse_rule: `predicate` and plain `args` (see parse_rule)."""

    predicate: str
    args: tuple

    def __str__(self):
        return f"{self.predicate}({', '.join(_fmt(a) for a in self.args)})"


def _fmt(a) -> str:
    if isinstance(a, Var):
        return str(a)
    if isinstance(a, bool):
        return "true" if a else "false"
    if isinstance(a, tuple) and a and a[0] == "literal":
        return '"' + a[1] + '"'
    return str(a)


def _plain(atom: Atom) -> RuleAtom:
    args = []
    for t in atom.args:
        if t.kind == "var":
            args.append(Var(t.value))
        elif t.kind == "str":
            args.append(("literal", t.value))
        else:
            args.append(t.value)
    return RuleAtom(atom.pred, tuple(args))


# every name owlready2's rule parser takes for a builtin (so they are not looked up as classes)
BUILTIN_NAMES = {
    "equal", "notEqual", "lessThan", "lessThanOrEqual", "greaterThan", "greaterThanOrEqual", "add", "subtract",
    "multiply", "divide", "integerDivide", "mod", "pow", "unaryPlus", "unaryMinus", "abs", "ceiling", "floor",
    "round", "roundHalfToEven", "sin", "cos", "tan", "booleanNot", "stringEqualIgnoreCase", "stringConcat",
    "substring", "stringLength", "normalizeSpace", "upperCase", "lowerCase", "translate", "contains",
    "containsIgnoreCase", "startsWith", "endsWith", "substringBefore", "substringAfter", "matches", "replace",
    "tokenize", "yearMonthDuration", "dayTimeDuration", "dateTime", "date", "time", "addYearMonthDurations",
    "subtractYearMonthDurations", "multiplyYearMonthDuration", "divideYearMonthDurations", "addDayTimeDurations",
    "subtractDayTimeDurations", "multiplyDayTimeDurations", "divideDayTimeDuration", "subtractDates",
    "subtractTimes", "addYearMonthDurationToDateTime", "addDayTimeDurationToDateTime",
    "subtractYearMonthDurationFromDateTime", "subtractDayTimeDurationFromDateTime", "addYearMonthDurationToDate",
    "addDayTimeDurationToDate", "subtractYearMonthDurationFromDate", "subtractDayTimeDurationFromDate",
    "addDayTimeDurationToTime", "subtractDayTimeDurationFromTime", "subtractDateTimesYieldingYearMonthDuration",
    "subtractDateTimesYieldingDayTimeDuration", "resolveURI", "anyURI", "listConcat", "listIntersection",
    "listSubtraction", "member", "length", "first", "rest", "sublist", "empty",
}


# ---------------------------------------------------------------------------------------------
# Matching bodies on facts (explain)

BUILTINS = {
    "equal": lambda a, b: a == b, "notEqual": lambda a, b: a != b,
    "lessThan": lambda a, b: a < b, "lessThanOrEqual": lambda a, b: a <= b,
    "greaterThan": lambda a, b: a > b, "greaterThanOrEqual": lambda a, b: a >= b,
}
ARITHMETIC = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b}


def _value(arg, binding):
    if isinstance(arg, Var):
        return binding.get(arg.name, _UNBOUND)
    if isinstance(arg, tuple) and arg and arg[0] == "literal":
        return arg[1]
    return arg


_UNBOUND = object()


def _same(a, b) -> bool:
    return a == b and type(a) is type(b) if isinstance(a, bool) or isinstance(b, bool) else a == b


class FactIndex:
    def __init__(self, facts):
        self.by_pred: dict[str, list[tuple]] = {}
        for f in facts:
            self.by_pred.setdefault(f[0], []).append(f[1:])

    def match(self, atom: RuleAtom, binding: dict):
        """Bindings extending `binding` under which the atom holds."""
        if atom.predicate in BUILTINS:
            a, b = (_value(x, binding) for x in atom.args)
            if a is not _UNBOUND and b is not _UNBOUND and BUILTINS[atom.predicate](a, b):
                yield binding
            return
        if atom.predicate in ARITHMETIC:
            r, a, b = atom.args
            va, vb = _value(a, binding), _value(b, binding)
            if va is _UNBOUND or vb is _UNBOUND:
                return
            result = ARITHMETIC[atom.predicate](va, vb)
            vr = _value(r, binding)
            if vr is _UNBOUND:
                yield {**binding, r.name: result}
            elif vr == result:
                yield binding
            return
        for row in self.by_pred.get(atom.predicate, ()):
            new = dict(binding)
            ok = True
            for arg, val in zip(atom.args, row):
                v = _value(arg, new)
                if v is _UNBOUND:
                    new[arg.name] = val
                elif not _same(v, val):
                    ok = False
                    break
            if ok:
                yield new


def match_body(index: FactIndex, atoms: list[RuleAtom], binding: dict):
    """Every complete binding of the body; the join goes atom by atom, left to right."""
    if not atoms:
        yield binding
        return
    for b in index.match(atoms[0], binding):
        yield from match_body(index, atoms[1:], b)


def deepest_failure(index: FactIndex, atoms: list[RuleAtom], binding: dict) -> tuple[int, dict]:
    """How many leading atoms can be satisfied together, and a binding that gets that far."""
    best = (0, binding)

    def walk(i, b):
        nonlocal best
        if i > best[0]:
            best = (i, b)
        if i == len(atoms) or best[0] == len(atoms):
            return
        for nb in index.match(atoms[i], b):
            walk(i + 1, nb)

    walk(0, binding)
    return best
