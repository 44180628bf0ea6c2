"""SWRL rule text (Protégé syntax) -> atoms."""
from __future__ import annotations

import re
from dataclasses import dataclass

# ---------------------------------------------------------------------------------------------
# Rule text parser (Protégé syntax; the tokens and their priority are owlready2's rule lexer's)

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


@dataclass(frozen=True)
class Atom:
    pred: str
    args: tuple[Term, ...]


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
