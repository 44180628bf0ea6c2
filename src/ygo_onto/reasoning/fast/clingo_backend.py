"""clingo runs the same program: the fallback and the cross-check of the evaluator."""
from __future__ import annotations

from typing import TYPE_CHECKING

from ...errors import ReasonerError
from .compiler import Compiled
from .names import _literal, _qstr, cpred, ppred

if TYPE_CHECKING:
    import clingo


def facts_program(knowledge, facts) -> str:
    """The ABox facts as ASP facts."""
    v = knowledge.vocabulary
    lines = []
    classes, objs, datas = v.classes, v.object_properties, v.data_properties
    for f in facts:
        if len(f) == 2:
            cls, ind = f
            if cls not in classes:
                raise ReasonerError(f"fast: fact {f!r}: {cls!r} is not a class of the ontology")
            if not isinstance(ind, str):
                raise ReasonerError(f"fast: fact {f!r}: expected an individual name")
            lines.append(f"{cpred(cls)}({_qstr(ind)}).")
        elif len(f) == 3:
            p, s, o = f
            if not isinstance(s, str):
                raise ReasonerError(f"fast: fact {f!r}: expected an individual name as subject")
            if p in objs:
                if not isinstance(o, str):
                    raise ReasonerError(f"fast: fact {f!r}: {p} is an object property, expected an individual")
                lines.append(f"{ppred(p)}({_qstr(s)},{_qstr(o)}).")
            elif p in datas:
                try:
                    lines.append(f"{ppred(p)}({_qstr(s)},{_literal(o)}).")
                except ReasonerError as exc:
                    raise ReasonerError(f"fast: fact {f!r}: {exc}") from None
            else:
                raise ReasonerError(f"fast: fact {f!r}: {p!r} is not a property of the ontology")
        else:
            raise ReasonerError(f"fast: expected (Class, individual) or (property, subject, object), got {f!r}")
    return "\n".join(lines) + "\n"


def solve(program: str, facts_text: str) -> list[clingo.Symbol]:
    import clingo  # (imported when clingo runs: ~12 ms of a CLI call that the evaluator answers)

    ctl = clingo.Control(["--warn=none"])
    ctl.add("base", [], program)
    ctl.add("base", [], facts_text)
    ctl.ground([("base", [])])
    symbols = None
    with ctl.solve(yield_=True) as handle:
        for model in handle:
            symbols = model.symbols(shown=True)
            break
    if symbols is None:  # a positive program always has a model
        raise ReasonerError("fast: clingo found no model")
    return symbols



def _any_value(sym: clingo.Symbol):
    """A symbol of clingo's model as an evaluator value.  A negative function term (-true: the
    unaryMinus of a boolean) reads as its name and arguments, as the backend always read it."""
    import clingo

    t = sym.type
    if t == clingo.SymbolType.Number:
        return sym.number
    if t == clingo.SymbolType.String:
        return sym.string
    return (sym.name, *map(_any_value, sym.arguments))


def _clingo_model(comp: Compiled, knowledge, facts, equality: bool) -> dict[tuple[str, int], set]:
    """The shown atoms of the model as clingo computes it, by predicate."""
    symbols = solve(comp.program if equality else comp.program_without_eq, facts_program(knowledge, facts))
    out: dict[tuple[str, int], set] = {}
    for sym in symbols:
        args = sym.arguments
        out.setdefault((sym.name, len(args)), set()).add(tuple(map(_any_value, args)))
    return out
