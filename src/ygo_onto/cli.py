"""The command line (docs/actions-and-cli.md): a thin layer over the Python API.

Exit codes: 0 success, 1 a rules refusal (an action that is not allowed), 2 bad input.
"""
from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Optional

import typer
from rich.console import Console
from rich.table import Table

from . import reasoning
from .errors import IllegalActionError, StateError, YgoError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="ygo-onto: a Yu-Gi-Oh! duel engine whose rules are SWRL rules run by an OWL reasoner.")
out = Console(soft_wrap=True)
err = Console(stderr=True, soft_wrap=True)

REASONER_HELP = ("pellet (the reference: Pellet through owlready2), fast (the same rules compiled for clingo), "
                 "pellet-jvm (Pellet in one JVM kept alive), hermit (TBox only: refuses SWRL builtins)")


def _fail(exc: Exception) -> None:
    code = 1 if isinstance(exc, IllegalActionError) else 2
    err.print(f"error: {exc}", markup=False, highlight=False)
    raise typer.Exit(code)


def _load(path: Path, ruleset: Optional[str]):
    from .game import GameState
    from .state import read_json_file

    raw = read_json_file(path)
    if ruleset is not None and isinstance(raw, dict):
        raw = {**raw, "ruleset": ruleset}
    return GameState.from_dict(raw, source=str(path))


def _parse_action(text: str):
    text = text.strip()
    if text.startswith(("{", "[", '"')):  # JSON: it must be an action object
        try:
            action = json.loads(text)
        except json.JSONDecodeError as exc:
            raise StateError(f"ACTION: expected an action id or a JSON object, got invalid JSON ({exc.msg})") from None
        if not isinstance(action, dict):
            raise StateError(f"ACTION: expected an action id or a JSON object, got {text}")
        return action
    return text


def _describe(a: dict) -> str:
    parts = []
    if "card" in a:
        parts.append(a["card"])
    if "target" in a:
        parts.append(f"-> {a['target']}")
    if "to" in a:
        parts.append(f"to {a['to']}")
    if "purpose" in a:
        parts.append(f"({a['purpose']})")
    return " ".join(parts)


@app.command()
def allowed(state: Path = typer.Argument(..., help="a state file (state-format.md)"),
            json_out: bool = typer.Option(False, "--json", help="print JSON instead of a table"),
            reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
            ruleset: Optional[str] = typer.Option(None, help="official or simplified (default: the state's)")):
    """The actions the player holding priority may take now."""
    try:
        st = _load(state, ruleset)
        actions = st.allowed_actions(reasoner)
        inference = st.infer(reasoner)
    except YgoError as exc:
        _fail(exc)
    if json_out:
        print(json.dumps({"actions": [a.to_dict() for a in actions], "reasoner": reasoner,
                          "elapsed_ms": round(inference.elapsed_ms, 1)}, indent=2))
        return
    table = Table(title=f"{st!r}: {len(actions)} allowed actions ({reasoner}, {inference.elapsed_ms:.0f} ms)")
    for col in ("id", "type", "player", "what"):
        table.add_column(col)
    for a in actions:
        d = a.to_dict()
        table.add_row(d["id"], d["type"], d["player"], _describe(d))
    out.print(table)


@app.command()
def apply(state: Path = typer.Argument(..., help="a state file"),
          action: str = typer.Argument(..., help="an action id from `allowed`, or an action object as JSON"),
          output: Optional[Path] = typer.Option(None, "-o", "--output", help="write the new state here (default stdout)"),
          reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
          ruleset: Optional[str] = typer.Option(None, help="official or simplified (default: the state's)")):
    """Apply one action and write the next decision-point state."""
    try:
        st = _load(state, ruleset)
        nxt = st.apply(_parse_action(action), reasoner)
    except YgoError as exc:
        _fail(exc)
    text = nxt.to_json()
    if output:
        output.write_text(text + "\n", encoding="utf-8")
    else:
        print(text)


@app.command()
def explain(state: Path = typer.Argument(..., help="a state file"),
            action: str = typer.Argument(..., help="an action id or an action object as JSON"),
            reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
            ruleset: Optional[str] = typer.Option(None, help="official or simplified (default: the state's)")):
    """Why an action is allowed (the rules that fired and the facts they matched), or why not."""
    from .explain import explain_action

    try:
        st = _load(state, ruleset)
        report = explain_action(st, _parse_action(action), reasoner)
    except YgoError as exc:
        _fail(exc)
    out.print(report.text(), markup=False, highlight=False)
    if not report.allowed:
        raise typer.Exit(1)


@app.command()
def duel(ruleset: str = typer.Option("official", help="official or simplified"),
         seed: int = typer.Option(0, help="the seed of shuffles, dice and random agents"),
         agents: str = typer.Option("aggressive,random", help="two of: " + ", ".join(["random", "first", "aggressive"])),
         log: Optional[Path] = typer.Option(None, help="write a JSON-lines log that `replay` checks"),
         reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
         max_actions: int = typer.Option(2000, help="stop after this many actions")):
    """A whole duel between two agents, narrated turn by turn."""
    from .duel import AGENTS, new_duel, play_duel, write_log

    names = tuple(a.strip() for a in agents.split(","))
    if len(names) != 2 or any(n not in AGENTS for n in names):
        _fail(StateError(f"--agents: expected two of {', '.join(AGENTS)} separated by a comma, got {agents!r}"))
    try:
        start = new_duel(ruleset, seed, reasoner)
        steps = []
        turn = None
        for st, action, nxt in play_duel(start, names, seed, reasoner, max_actions):
            if st.data["turn"] != turn:
                turn = st.data["turn"]
                lp = st.data["players"]
                out.print(f"[bold]Turn {turn}[/bold] ({st.data['turn_player']}) LP A {lp['A']['life_points']} / B {lp['B']['life_points']}")
            d = action.to_dict()
            out.print(f"  {d['player']}: {d['type']} {_describe(d)}", highlight=False)
            steps.append((st, action, nxt))
    except YgoError as exc:
        _fail(exc)
    final = steps[-1][2] if steps else start
    lp = final.data["players"]
    out.print(f"[bold]Result[/bold]: winner {final.winner or 'none yet'} after {len(steps)} actions; "
              f"LP A {lp['A']['life_points']} / B {lp['B']['life_points']}")
    if log:
        write_log(log, start, steps, {"ruleset": ruleset, "seed": seed, "agents": list(names)})
        out.print(f"log written to {log}")


@app.command()
def replay(log: Path = typer.Argument(..., help="a log written by `duel --log`"),
           reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP)):
    """Replay a logged duel, checking every step against the log."""
    from .duel import replay_log

    count = 0
    try:
        for step, _state, action, same in replay_log(log, reasoner):
            count += 1
            if not same:
                err.print(f"error: {log}: line {step}: the state after {action.get('id', action)} differs from the log")
                raise typer.Exit(1)
    except YgoError as exc:
        _fail(exc)
    out.print(f"{log}: {count} actions replayed; every state matches the log")


@app.command()
def solve(puzzle: Path = typer.Argument(..., help="a state file: find a line of play that wins this turn"),
          reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
          max_nodes: int = typer.Option(5000, help="give up after expanding this many states"),
          ruleset: Optional[str] = typer.Option(None, help="official or simplified (default: the state's)")):
    """Search (A*) for a line of play that wins this turn, and print it."""
    from .search import solve as solve_puzzle

    try:
        st = _load(puzzle, ruleset)
        result = solve_puzzle(st, reasoner=reasoner, max_nodes=max_nodes)
    except YgoError as exc:
        _fail(exc)
    if result.line is None:
        out.print(f"no winning line this turn ({result.expanded} states searched)")
        raise typer.Exit(1)
    out.print(f"winning line ({len(result.line)} actions, {result.expanded} states searched):")
    for i, a in enumerate(result.line, 1):
        out.print(f"  {i}. {a.id}  {_describe(a.to_dict())}", highlight=False)


@app.command("export-owl")
def export_owl(output: Path = typer.Argument(..., help="the RDF/XML file to write"),
               state: Optional[Path] = typer.Option(None, "--state", help="also write this state's individuals"),
               ruleset: Optional[str] = typer.Option(None, help="official or simplified (default: the state's, else official)")):
    """The ontology with its rules (and a state's individuals) as one RDF/XML file for Protégé."""
    from .export import export

    try:
        st = _load(state, ruleset) if state else None
        n_rules, n_triples = export(output, ruleset or (st.ruleset if st else "official"), st)
    except YgoError as exc:
        _fail(exc)
    out.print(f"wrote {output}: {n_triples} triples, {n_rules} SWRL rules")


@app.command()
def cards(query: str = typer.Argument("", help="a part of a name, kind, type, attribute or description"),
          ruleset: str = typer.Option("official", help="official or simplified"),
          json_out: bool = typer.Option(False, "--json", help="print JSON")):
    """The card catalog, searchable."""
    from .cards import catalog

    try:
        found = catalog(ruleset).search(query)
    except YgoError as exc:
        _fail(exc)
    if json_out:
        print(json.dumps([{"name": c.name, "kind": c.kind_label, "level": c.level, "atk": c.atk, "def": c.defense,
                           "attribute": c.attribute, "type": c.monster_type, "description": c.description}
                          for c in found], indent=2))
        return
    table = Table(title=f"{ruleset} catalog: {len(found)} cards" + (f" matching {query!r}" if query else ""))
    for col in ("name", "kind", "facts", "description"):
        table.add_column(col)
    for c in found:
        facts = f"L{c.level} {c.attribute or ''} {c.monster_type or ''} {c.atk}/{c.defense}".replace("  ", " ") if c.is_monster else ""
        table.add_row(c.name, c.kind_label, facts, c.description)
    out.print(table)


@app.command()
def bench(reasoners: str = typer.Option("fast,pellet", help="comma-separated backends to measure"),
          repeats: Optional[int] = typer.Option(None, help="latency samples per state for fast (default 30)"),
          pellet_repeats: Optional[int] = typer.Option(None, help="latency samples per state for pellet (default 3)"),
          with_pellet_duel: bool = typer.Option(False, help="also time a whole duel with Pellet (hours)"),
          json_out: bool = typer.Option(False, "--json", help="print JSON instead of tables")):
    """Benchmark the reasoners: allowed_actions latency (p50/p95), whole duels, peak memory."""
    from .bench import main as bench_main

    argv = ["--reasoners", reasoners]
    if repeats:
        argv += ["--repeats", str(repeats)]
    if pellet_repeats:
        argv += ["--pellet-repeats", str(pellet_repeats)]
    if with_pellet_duel:
        argv.append("--with-pellet-duel")
    if json_out:
        argv.append("--json")
    raise typer.Exit(bench_main(argv))


@app.command()
def check(ruleset: str = typer.Option("official", help="official or simplified")):
    """Check the TBox with HermiT (consistency, classification) and every rule's vocabulary."""
    from .export import hermit_check

    try:
        report = hermit_check(ruleset)
    except YgoError as exc:
        _fail(exc)
    out.print(report)


def main() -> None:
    try:
        app()
    except YgoError as exc:  # pragma: no cover - commands catch their own
        err.print(f"error: {exc}", markup=False)
        sys.exit(2)


if __name__ == "__main__":
    main()
