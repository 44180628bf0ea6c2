"""A small reader of SWRL rules in Protégé's text syntax, and a matcher of rule bodies on facts.

Used to explain inferences (which rule fired, on which facts; which atom failed).  The same
atoms are what the compiled backend translates.
"""
from __future__ import annotations

import re
from dataclasses import dataclass

BUILTINS = {
    "equal": lambda a, b: a == b, "notEqual": lambda a, b: a != b,
    "lessThan": lambda a, b: a < b, "lessThanOrEqual": lambda a, b: a <= b,
    "greaterThan": lambda a, b: a > b, "greaterThanOrEqual": lambda a, b: a >= b,
}
ARITHMETIC = {"add": lambda a, b: a + b, "subtract": lambda a, b: a - b, "multiply": lambda a, b: a * b}
_ATOM = re.compile(r"\s*([A-Za-z_][\w\-]*)\s*\(([^()]*)\)\s*(?:,|$)")


@dataclass(frozen=True)
class Var:
    name: str

    def __str__(self):
        return "?" + self.name


@dataclass(frozen=True)
class Atom:
    predicate: str
    args: tuple

    def __str__(self):
        return f"{self.predicate}({', '.join(_fmt(a) for a in self.args)})"


def _fmt(a) -> str:
    if isinstance(a, Var):
        return str(a)
    if isinstance(a, bool):
        return "true" if a else "false"
    if isinstance(a, str) and a.startswith('"'):
        return a
    return str(a)


def _arg(text: str):
    text = text.strip()
    if text.startswith("?"):
        return Var(text[1:])
    if text in ("true", "false"):
        return text == "true"
    if re.fullmatch(r"-?\d+", text):
        return int(text)
    if text.startswith('"') and text.endswith('"'):
        return ("literal", text[1:-1])
    return text  # an individual's name


def parse_atoms(text: str) -> list[Atom]:
    atoms, pos = [], 0
    text = text.strip()
    while pos < len(text):
        m = _ATOM.match(text, pos)
        if not m:
            raise SyntaxError(f"expected an atom like Pred(?x, ?y) at {text[pos:pos + 40]!r}")
        args = tuple(_arg(a) for a in m.group(2).split(",")) if m.group(2).strip() else ()
        atoms.append(Atom(m.group(1), args))
        pos = m.end()
    return atoms


def parse_rule(text: str) -> tuple[list[Atom], list[Atom]]:
    """'body -> head' into (body atoms, head atoms)."""
    if "->" not in text:
        raise SyntaxError(f"expected 'body -> head', got {text!r}")
    body, head = text.split("->", 1)
    return parse_atoms(body), parse_atoms(head)


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

    def match(self, atom: Atom, binding: dict):
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


def match_body(index: FactIndex, atoms: list[Atom], binding: dict):
    """Every complete binding of the body; the join goes atom by atom, left to right."""
    if not atoms:
        yield binding
        return
    for b in index.match(atoms[0], binding):
        yield from match_body(index, atoms[1:], b)


def deepest_failure(index: FactIndex, atoms: list[Atom], binding: dict) -> tuple[int, dict]:
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
