"""The command line (docs/actions-and-cli.md): a thin layer over the Python API.

Exit codes: 0 success, 1 a rules refusal (an action that is not allowed), 2 bad input.
"""
from __future__ import annotations

import json
import os
import sys
from pathlib import Path
from typing import Optional

import typer

from . import reasoning
from .actions import describe
from .errors import IllegalActionError, ReplayMismatch, StateError, YgoError

app = typer.Typer(add_completion=False, no_args_is_help=True, pretty_exceptions_enable=False,
                  help="ygo-onto: a Yu-Gi-Oh! duel engine whose rules are SWRL rules run by an OWL reasoner.")


class _Console:
    """A rich Console made on first use: `apply` and `allowed --json` print plain text and do not import rich (~30 ms).
    Made again when COLUMNS changed since (rich reads the width it is given there once, when it is made: a command
    run in process, as by typer's CliRunner, would otherwise keep the width of an earlier run)."""

    def __init__(self, **options):
        self._options = options
        self._console = None
        self._columns = None

    def __getattr__(self, name):
        columns = os.environ.get("COLUMNS")
        if self._console is None or columns != self._columns:
            from rich.console import Console

            self._console, self._columns = Console(**self._options), columns
        return getattr(self._console, name)


out = _Console(soft_wrap=True)
err = _Console(stderr=True, soft_wrap=True)

DECKS_HELP = ("two .ydk deck files A.ydk,B.ydk, A's first (official, goat; default: official's sample decks, "
              "goat's chaos-control and warrior of examples/decks/goat/)")
REASONER_HELP = ("fast (the default: the same TBox and rules compiled to one Datalog program, evaluated by a C engine "
                 "compiled at install; without it, by a Python evaluator or clingo; the tests hold it to "
                 "Pellet's answers), pellet (the reference: Pellet through owlready2, seconds per state), pellet-jvm "
                 "(Pellet in one JVM kept alive: the pellet-jvm extra), hermit (TBox only: refuses SWRL builtins)")


def _fail(exc: Exception) -> None:
    code = 1 if isinstance(exc, IllegalActionError) else 2
    err.print(f"error: {exc}", markup=False, highlight=False)
    raise typer.Exit(code)


def _check_output(path: Path, option: str) -> None:
    """Before any work: `path` can be written (its directory exists, it is not a directory).

    :raises StateError: naming the option and the path.
    """
    parent = path.parent
    if path.is_dir():
        raise StateError(f"{option} {path}: expected a file to write, got a directory")
    if not parent.is_dir():
        raise StateError(f"{option} {path}: expected a file in an existing directory, got a missing directory {parent}")
    if not os.access(parent, os.W_OK) or (path.exists() and not os.access(path, os.W_OK)):
        raise StateError(f"{option} {path}: expected a file this user may write, got no permission")


def _write_text(path: Path, text: str, option: str) -> None:
    try:
        path.write_text(text, encoding="utf-8")
    except OSError as exc:
        _fail(StateError(f"{option} {path}: expected a writable file, got {exc.strerror or exc}"))


ONTOLOGY_HELP = ("run on this ontology file (saved by Protégé, or written by export-owl) instead of the "
                 "project's ontology/, rules/ and card catalog")


def _use_ontology(path: Optional[Path], reasoner: str = reasoning.DEFAULT):
    """--ontology: load the file's TBox, cards and rules and put them in use for this process."""
    if path is None:
        return None
    from .ontofile import Rules

    rules = Rules.load(path, reasoner=reasoner)
    rules.activate()
    return rules


def _load(path: Path, ruleset: Optional[str], rules=None):
    from .game import GameState
    from .state import read_json_file

    raw = read_json_file(path)
    if ruleset is not None and isinstance(raw, dict):
        raw = {**raw, "ruleset": ruleset}
    return GameState.from_dict(raw, source=str(path), rules=rules)


def _parse_action(text: str):
    from .state import loads, show

    text = text.strip()
    if text.startswith(("{", "[", '"')):  # JSON: it must be an action object
        try:
            action = loads(text, "ACTION")
        except StateError as exc:
            raise StateError(f"{exc} (ACTION: expected an action id or a JSON object)") from None
        if not isinstance(action, dict):
            raise StateError(f"ACTION: expected an action id or a JSON object, got {show(text)}")
        return action
    return text


def _how_it_ended(data: dict) -> str:
    """Why the duel is over, read off the final state (the state format keeps only the winner):
    the loser at 0 LP, else the loser's empty deck (rulebook p. 22: the two ways to lose)."""
    winner = data["winner"]
    if winner is None:
        return ""
    players = data["players"]
    if winner == "draw":
        return " (both players at 0 LP)"
    loser = "B" if winner == "A" else "A"
    if players[loser]["life_points"] <= 0:
        return f" ({loser} at 0 LP)"
    if not players[loser]["deck"]:
        return f" ({loser} could not draw from an empty deck)"
    return ""


@app.command()
def allowed(state: Path = typer.Argument(..., help="a state file (state-format.md)"),
            json_out: bool = typer.Option(False, "--json", help="print JSON instead of a table"),
            reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
            ruleset: Optional[str] = typer.Option(None, help="official, simplified or goat (default: the state's)"),
            ontology: Optional[Path] = typer.Option(None, "--ontology", help=ONTOLOGY_HELP)):
    """The actions the player holding priority may take now."""
    try:
        st = _load(state, ruleset, _use_ontology(ontology, reasoner))
        actions = st.allowed_actions(reasoner)
        inference = st.infer(reasoner)
    except YgoError as exc:
        _fail(exc)
    if json_out:
        print(json.dumps({"actions": [a.to_dict() for a in actions], "reasoner": reasoner,
                          "elapsed_ms": round(inference.elapsed_ms, 1)}, indent=2))
        return
    from rich.table import Table

    table = Table(title=f"{st!r}: {len(actions)} allowed actions ({reasoner}, {inference.elapsed_ms:.0f} ms)")
    # ids are copied into `apply`: their column never truncates nor wraps (the others wrap instead)
    table.add_column("id", no_wrap=True, min_width=max((len(a.id) for a in actions), default=2))
    for col in ("type", "player", "what"):
        table.add_column(col, overflow="fold")
    for a in actions:
        d = a.to_dict()
        table.add_row(d["id"], d["type"], d["player"], describe(d))
    pending = st.to_dict()["pending"]
    if pending:  # the action being built (a trigger effect's is an `activate` of its card: docs/decisions.md)
        built = pending["action"]
        what = " ".join(str(x) for x in (built["type"], built.get("card", ""),
                                         f"(effect {built['effect']})" if "effect" in built else "") if x)
        table.caption = (f"pending: {what}; {len(pending['chosen'])} of {pending['needed']} selected "
                         f"as {pending['purpose']}" + ("; cancel backs out" if any(a.type == "cancel" for a in actions) else ""))
    out.print(table)


@app.command()
def apply(state: Path = typer.Argument(..., help="a state file"),
          action: str = typer.Argument(..., help="an action id from `allowed`, or an action object as JSON"),
          output: Optional[Path] = typer.Option(None, "-o", "--output", help="write the new state here (default stdout)"),
          reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
          ruleset: Optional[str] = typer.Option(None, help="official, simplified or goat (default: the state's)"),
          ontology: Optional[Path] = typer.Option(None, "--ontology", help=ONTOLOGY_HELP)):
    """Apply one action and write the next decision-point state."""
    try:
        if output:
            _check_output(output, "-o")
        st = _load(state, ruleset, _use_ontology(ontology, reasoner))
        nxt = st.apply(_parse_action(action), reasoner)
    except YgoError as exc:
        _fail(exc)
    text = nxt.to_json()
    if output:
        _write_text(output, text + "\n", "-o")
        d = nxt.data
        now = f"winner {d['winner']}" if d["winner"] is not None else \
            f"turn {d['turn']}, {d['phase']} phase, {d['priority']} to act"
        print(f"wrote {output}: {now}")
    else:
        print(text)


@app.command()
def view(state: Path = typer.Argument(..., help="a state file"),
         as_player: str = typer.Option(..., "--as", help="A or B: the player whose view to print"),
         output: Optional[Path] = typer.Option(None, "-o", "--output", help="write the view here (default stdout)")):
    """The state as one player sees it (state-format.md "A player's view"): the opponent's hand, both Decks and
    face-down cards the player does not control or own are hidden; their counts stay."""
    try:
        if as_player not in ("A", "B"):
            raise StateError(f"--as: expected A or B, got {as_player!r}")
        if output:
            _check_output(output, "-o")
        text = json.dumps(_load(state, None).view(as_player), indent=2)
    except YgoError as exc:
        _fail(exc)
    if output:
        _write_text(output, text + "\n", "-o")
    else:
        print(text)


@app.command()
def explain(state: Path = typer.Argument(..., help="a state file"),
            action: str = typer.Argument(..., help="an action id or an action object as JSON"),
            reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
            ruleset: Optional[str] = typer.Option(None, help="official, simplified or goat (default: the state's)"),
            ontology: Optional[Path] = typer.Option(None, "--ontology", help=ONTOLOGY_HELP)):
    """Why an action is allowed (the rules that fired and the facts they matched), or why not."""
    from .explain import explain_action

    try:
        st = _load(state, ruleset, _use_ontology(ontology, reasoner))
        report = explain_action(st, _parse_action(action), reasoner)
    except YgoError as exc:
        _fail(exc)
    out.print(report.text(), markup=False, highlight=False, emoji=False)
    if not report.allowed:
        raise typer.Exit(1)


@app.command()
def duel(ruleset: str = typer.Option("official", help="official, simplified or goat"),
         seed: int = typer.Option(0, help="the seed of shuffles, dice and random agents"),
         agents: str = typer.Option("aggressive,random", help="two of: " + ", ".join(["random", "first", "aggressive", "greedy", "search"])),
         log: Optional[Path] = typer.Option(None, help="write a JSON-lines log that `replay` checks"),
         reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
         max_actions: int = typer.Option(2000, help="stop after this many actions"),
         decks: Optional[str] = typer.Option(None, help=DECKS_HELP),
         ontology: Optional[Path] = typer.Option(None, "--ontology", help=ONTOLOGY_HELP)):
    """A whole duel between two agents, narrated turn by turn.  The log is written as the duel goes:
    a duel an error stops leaves its log up to the error, and the error as its last line."""
    from .duel import AGENTS, DuelLog, error_text, new_duel, play_duel

    names = tuple(a.strip() for a in agents.split(","))
    if len(names) != 2 or any(n not in AGENTS for n in names):
        _fail(StateError(f"--agents: expected two of {', '.join(AGENTS)} separated by a comma, got {agents!r}"))
    if max_actions < 0:
        _fail(StateError(f"--max-actions: expected an integer >= 0, got {max_actions}"))
    try:
        if log:
            _check_output(log, "--log")
        rules = _use_ontology(ontology, reasoner)
        if rules is not None and rules.ruleset != ruleset:
            raise StateError(f"--ruleset: expected {rules.ruleset!r} (the ruleset of {ontology}), got {ruleset!r}")
        from .decks import duel_decks

        start = new_duel(ruleset, seed, reasoner, duel_decks(ruleset, decks))
    except YgoError as exc:
        _fail(exc)
    try:
        writer = DuelLog(log, start, {"ruleset": ruleset, "seed": seed, "agents": list(names)}) if log else None
    except OSError as exc:
        _fail(StateError(f"--log {log}: expected a writable file, got {exc.strerror or exc}"))
    attempted = []  # the action being applied, if any: where an engine error happened
    final, count, turn = start, 0, None
    try:
        for st, action, nxt in play_duel(start, names, seed, reasoner, max_actions,
                                         chosen=lambda _state, a: attempted.append(a)):
            if st.data["turn"] != turn:
                turn = st.data["turn"]
                lp = st.data["players"]
                out.print(f"[bold]Turn {turn}[/bold] ({st.data['turn_player']}) LP A {lp['A']['life_points']} / B {lp['B']['life_points']}")
            d = action.to_dict()
            out.print(f"  {d['player']}: {d['type']} {describe(d)}", highlight=False)
            if writer:
                writer.step(action, nxt)
            attempted.clear()
            final, count = nxt, count + 1
    except BaseException as exc:
        if writer:
            writer.end(error=error_text(exc), action=attempted[-1] if attempted else None)
            err.print(f"log written to {log}, up to the error after {count} actions", markup=False, highlight=False)
        if isinstance(exc, YgoError):
            _fail(exc)
        raise
    lp = final.data["players"]
    out.print(f"[bold]Result[/bold]: winner {final.winner or 'none yet'}{_how_it_ended(final.data)} after {count} actions; "
              f"LP A {lp['A']['life_points']} / B {lp['B']['life_points']}")
    if writer:
        writer.end(final.winner)
        out.print(f"log written to {log}")


@app.command()
def selfplay(games: int = typer.Option(100, help="how many duels"),
             agents: str = typer.Option("random,random", help="two of: random, first, aggressive, greedy, search "
                                        "(they swap seats every game)"),
             ruleset: str = typer.Option("official", help="official, simplified or goat"),
             workers: int = typer.Option(2, help="processes (or Ray CPUs) playing at once; 1 plays in this process"),
             out_path: Optional[Path] = typer.Option(None, "--out", help="write one JSON record per duel here (JSON lines)"),
             seed: int = typer.Option(0, help="the batch's seed: game i's seed is derived from it"),
             use_ray: bool = typer.Option(False, "--ray", help="run the duels on a local Ray"),
             ray_address: Optional[str] = typer.Option(None, help="run the duels on this Ray cluster (implies --ray)"),
             reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
             max_actions: int = typer.Option(2000, help="a duel still going after this many actions is unfinished"),
             json_out: bool = typer.Option(False, "--json", help="print the summary as JSON instead of tables"),
             progress: bool = typer.Option(True, help="show a progress bar (on stderr)"),
             decks: Optional[str] = typer.Option(None, help=DECKS_HELP + "; three or more (separated by commas, or "
                                                 "a shell glob such as examples/decks/goat/*.ydk): a round robin of them"),
             more_decks: Optional[list[str]] = typer.Argument(None, metavar="DECK.ydk", show_default=False,
                                                              help="more deck files for --decks (what a shell glob "
                                                                   "after --decks expands to)")):
    """Many seeded duels in parallel: one record per duel, win rates with 95% intervals, actions per second.

    With three or more decks, a round robin: every pair of decks in both seats, a deck-against-deck
    table of win rates with 95% intervals, and a rating per deck (OpenSkill)."""
    from .selfplay import run_batch, summary_tables

    names = tuple(a.strip() for a in agents.split(","))
    if more_decks and decks is None:
        _fail(StateError(f"selfplay: unexpected argument {more_decks[0]!r} (deck files follow --decks)"))
    deck_list = [p.strip() for p in decks.split(",")] + list(more_decks or []) if decks is not None else None
    try:
        batch = run_batch(games, names, ruleset, workers, seed, out_path, use_ray, ray_address, reasoner, max_actions,
                          progress=progress, decks=deck_list)
    except YgoError as exc:
        _fail(exc)
    summary = batch.summary()
    if json_out:
        print(json.dumps(summary, indent=2))
        return
    for table in summary_tables(summary):
        out.print(table)
    if out_path:
        out.print(f"{len(batch.records)} records written to {out_path}")


@app.command()
def replay(log: Path = typer.Argument(..., help="a log written by `duel --log`"),
           reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
           ruleset: Optional[str] = typer.Option(None, help="official, simplified or goat: checked against the log's (default: the log's)")):
    """Replay a logged duel, checking every step against the log."""
    from .duel import replay_log
    from .state import show

    count = 0
    ending: dict = {}
    try:
        for step, _state, action, same in replay_log(log, reasoner, ending, ruleset):
            count += 1
            if not same:
                what = action.get("id", action) if isinstance(action, dict) else action
                err.print(f"error: {log}: line {step}: the state after {show(what)} differs from the log",
                          markup=False, highlight=False)
                raise typer.Exit(1)
    except ReplayMismatch as exc:  # the log's result is not the replay's: as a state that differs
        err.print(f"error: {exc}", markup=False, highlight=False)
        raise typer.Exit(1)
    except YgoError as exc:
        _fail(exc)
    out.print(f"{log}: {count} actions replayed; every state matches the log", markup=False, highlight=False)
    if ending:
        if not ending["reproduced"]:
            err.print(f"error: {log}: the logged duel stopped on the error {ending['error']!r}, but replaying it "
                      f"gives {ending['got']!r}", markup=False, highlight=False)
            raise typer.Exit(1)
        out.print(f"the logged duel stopped on an error, and it happens again: {ending['error']}",
                  markup=False, highlight=False)


@app.command()
def solve(puzzle: Path = typer.Argument(..., help="a state file: find a line of play that wins this turn"),
          json_out: bool = typer.Option(False, "--json", help="print JSON: result, line, strategy, nodes, seconds"),
          reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP),
          max_nodes: int = typer.Option(20000, "--max-nodes", help="answer unknown after expanding this many states"),
          timeout: float = typer.Option(60.0, "--timeout", help="answer unknown after this many seconds"),
          ruleset: Optional[str] = typer.Option(None, help="official, simplified or goat (default: the state's)"),
          ontology: Optional[Path] = typer.Option(None, "--ontology", help=ONTOLOGY_HELP)):
    """Search (AND-OR proof-number search) for a line that wins this turn whatever the opponent answers.

    Exit 0 for every answer (win, no_win, unknown); 2 on bad input."""
    from .search import format_strategy
    from .search import solve as solve_puzzle

    if max_nodes < 1:
        _fail(StateError(f"--max-nodes: expected an int >= 1, got {max_nodes}"))
    if not timeout > 0:
        _fail(StateError(f"--timeout: expected a number of seconds > 0, got {timeout}"))
    try:
        st = _load(puzzle, ruleset, _use_ontology(ontology, reasoner))
        result = solve_puzzle(st, reasoner=reasoner, max_nodes=max_nodes, timeout=timeout)
    except YgoError as exc:
        _fail(exc)
    if json_out:
        print(json.dumps(result.to_dict(), indent=2))
        return
    out.print(format_strategy(result), markup=False, highlight=False)


@app.command("export-owl")
def export_owl(output: Path = typer.Argument(..., help="the RDF/XML file to write"),
               state: Optional[Path] = typer.Option(None, "--state", help="also write this state's individuals"),
               ruleset: Optional[str] = typer.Option(None, help="official, simplified or goat (default: the state's, else official)")):
    """The ontology with its rules (and a state's individuals) as one RDF/XML file for Protégé."""
    from .export import export

    try:
        _check_output(output, "OUTPUT")
        st = _load(state, ruleset) if state else None
        n_rules, n_triples = export(output, ruleset or (st.ruleset if st else "official"), st)
    except YgoError as exc:
        _fail(exc)
    out.print(f"wrote {output}: {n_triples} triples, {n_rules} SWRL rules")


@app.command("import-owl")
def import_owl_cmd(source: Path = typer.Argument(..., help="an ontology saved by Protégé (RDF/XML or OWL/XML), e.g. an edited export"),
                   dry_run: bool = typer.Option(False, "--dry-run", help="print the summary, write nothing")):
    """Write the changes of a saved ontology back into ontology/, rules/ and the card catalog."""
    from .ontofile import import_owl

    try:
        summary = import_owl(source, dry_run=dry_run)
    except YgoError as exc:
        _fail(exc)
    verb = "would change" if dry_run else "changed"
    for key in ("rules changed", "rules added", "rules removed", "cards added", "cards changed", "cards removed"):
        items = summary[key]
        out.print(f"{key}: {len(items)}" + (f" ({', '.join(items)})" if items else ""), highlight=False)
    out.print(f"axioms added: {summary['axioms added']}; axioms removed: {summary['axioms removed']}")
    files = summary["files"]
    if files:
        out.print(f"{source}: {verb} {len(files)} file{'s' if len(files) != 1 else ''}:", highlight=False)
        for f in files:
            out.print(f"  {f}", highlight=False, markup=False)
    else:
        out.print(f"{source}: no change to the sources", highlight=False)


@app.command("examples")
def examples_cmd(copy_to: Optional[Path] = typer.Option(None, "--copy", help="copy them into this folder (made if "
                                                         "missing; a file already there is kept)"),
                 json_out: bool = typer.Option(False, "--json", help="print JSON: each example's name and path")):
    """The example states that come with ygo-onto (the README's examples/...): where they are, or copies of them."""
    import shutil

    from . import resources

    base = resources.examples_dir()
    found = sorted(p.relative_to(base).as_posix() for p in base.rglob("*.json"))
    if copy_to is None:
        if json_out:
            print(json.dumps([{"name": n, "path": str(base / n)} for n in found], indent=2))
            return
        out.print(f"{len(found)} examples in {base} (ygo-onto examples --copy DIR copies them):",
                  markup=False, highlight=False)
        for name in found:
            out.print(f"  {name}", markup=False, highlight=False)
        return
    if copy_to.exists() and not copy_to.is_dir():
        _fail(StateError(f"--copy {copy_to}: expected a folder, got a file"))
    copied, kept = [], []
    try:
        for name in found:
            target = copy_to / name
            if target.exists():
                kept.append(name)
                continue
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(base / name, target)
            copied.append(name)
    except OSError as exc:
        _fail(StateError(f"--copy {copy_to}: expected a folder this user may write, got {exc.strerror or exc}"))
    out.print(f"copied {len(copied)} examples into {copy_to}" + (f"; kept {len(kept)} already there" if kept else ""),
              markup=False, highlight=False)


@app.command()
def cards(query: str = typer.Argument("", help="a part of a name, kind, type, attribute or description"),
          ruleset: str = typer.Option("official", help="official, simplified or goat"),
          json_out: bool = typer.Option(False, "--json", help="print JSON"),
          ontology: Optional[Path] = typer.Option(None, "--ontology", help=ONTOLOGY_HELP)):
    """The card catalog, searchable.  `effect` says whether the card's effect is played: "played" (rules
    name the card), "none" (a Normal Monster: it has none), "not yet" (no rule names it yet: it plays as
    its facts alone, a monster without its effect, a Spell or Trap that can be Set but not activated)."""
    from .cards import catalog

    try:
        rules = _use_ontology(ontology, None)
        if rules is not None:
            ruleset = rules.ruleset
        found = catalog(ruleset).search(query)
        from .knowledge import effect_status

        status = effect_status(ruleset)
    except YgoError as exc:
        _fail(exc)
    if json_out:
        print(json.dumps([{**c.summary(), "effect": status[c.name]} for c in found], indent=2))
        return
    from rich.table import Table

    table = Table(title=f"{ruleset} catalog: {len(found)} cards" + (f" matching {query!r}" if query else ""))
    for col in ("name", "kind", "facts", "effect", "description"):
        table.add_column(col)
    for c in found:
        facts = f"L{c.level} {c.attribute or ''} {c.monster_type or ''} {c.atk}/{c.defense}".replace("  ", " ") if c.is_monster else ""
        table.add_row(c.name, c.kind_label, facts, status[c.name], c.description)
    out.print(table)


deck_app = typer.Typer(no_args_is_help=True, help="Decks as .ydk files (YGOPro/EDOPro): check one against a format, export one.")
app.add_typer(deck_app, name="deck")


@deck_app.command("check")
def deck_check(deck: Path = typer.Argument(..., help="a .ydk deck file"),
               ruleset: str = typer.Option("goat", help="goat or official: the format to check against")):
    """Check a deck against the ruleset's format: Main Deck size, Side Deck size, Extra Deck size (official),
    the Forbidden & Limited list over Main, Side and Extra Decks, cards outside the pool.  Exit 0 with a
    summary, or exit 2 naming each problem."""
    from .decks import check_deck, deck_summary

    try:
        got, problems = check_deck(deck, ruleset)
    except YgoError as exc:
        _fail(exc)
    if problems:
        for p in problems:
            err.print(f"error: {p}", markup=False, highlight=False)
        err.print(f"{deck}: {len(problems)} problem{'s' if len(problems) != 1 else ''} ({ruleset})", markup=False,
                  highlight=False)
        raise typer.Exit(2)
    out.print(f"{deck_summary(got)}: legal in {ruleset}", markup=False, highlight=False)


@deck_app.command("export")
def deck_export(source: Path = typer.Argument(..., help="a state file (the --player's cards: Main Deck, hand, "
                                              "Graveyard, banished and field cards they own; their Extra Deck), "
                                              "a deck JSON ({\"main\": [names], \"extra\": [...], \"side\": [...]}) "
                                              "or a .ydk file (written again with the real passcodes)"),
                output: Path = typer.Option(..., "-o", "--output", help="the .ydk file to write"),
                player: str = typer.Option("A", help="A or B: whose cards, for a state file"),
                ruleset: Optional[str] = typer.Option(None, help="official or goat (default: the state's, else goat)")):
    """Write a deck as a .ydk file (one passcode per copy under #main, #extra and !side)."""
    from .decks import deck_from_file, ydk_text

    try:
        _check_output(output, "--output")
        deck, ruleset = deck_from_file(source, ruleset, player)
        text = ydk_text(deck, ruleset)
    except YgoError as exc:
        _fail(exc)
    _write_text(output, text, "--output")
    out.print(f"wrote {output}: Main Deck {len(deck.main)}, Extra Deck {len(deck.extra)}, Side Deck {len(deck.side)} "
              f"cards ({ruleset})", markup=False, highlight=False)


@app.command()
def bench(reasoners: str = typer.Option("fast,pellet", help="comma-separated backends to measure"),
          repeats: Optional[int] = typer.Option(None, help="latency samples per state for fast (default 30)"),
          pellet_repeats: Optional[int] = typer.Option(None, help="latency samples per state for pellet (default 3)"),
          with_pellet_duel: bool = typer.Option(False, help="also time a whole duel with Pellet (hours)"),
          rounds: int = typer.Option(3, min=1, help="times each reasoner's duels are played, each in a new process, "
                                                    "the reasoners taking turns; the median is reported"),
          puzzles: bool = typer.Option(True, help="time solve on the example puzzles (nodes/s, seconds per puzzle)"),
          json_out: bool = typer.Option(False, "--json", help="print JSON instead of tables"),
          ontology: Optional[Path] = typer.Option(None, "--ontology", help=ONTOLOGY_HELP)):
    """Benchmark the reasoners: allowed_actions latency (p50/p95), whole duels, peak memory."""
    from .bench import main as bench_main

    try:
        _use_ontology(ontology, "fast" if "fast" in reasoners.split(",") else reasoners.split(",")[0])
    except YgoError as exc:
        _fail(exc)
    argv = ["--reasoners", reasoners, "--rounds", str(rounds)]
    if repeats is not None:
        argv += ["--repeats", str(repeats)]
    if pellet_repeats is not None:
        argv += ["--pellet-repeats", str(pellet_repeats)]
    if with_pellet_duel:
        argv.append("--with-pellet-duel")
    if not puzzles:
        argv.append("--no-puzzles")
    if json_out:
        argv.append("--json")
    raise typer.Exit(bench_main(argv))


@app.command()
def mcp(http: Optional[int] = typer.Option(None, "--http", help="serve streamable HTTP on this port (at /mcp) "
                                           "instead of stdio"),
        host: str = typer.Option("127.0.0.1", help="with --http: the address to listen on"),
        reasoner: str = typer.Option(reasoning.DEFAULT, help=REASONER_HELP)):
    """Serve the engine to agents over the Model Context Protocol (docs/mcp.md): stdio, or --http PORT."""
    try:
        if http is not None and not 1 <= http <= 65535:
            raise StateError(f"--http: expected a port from 1 to 65535, got {http}")
        reasoning.get(reasoner)
        try:
            import mcp as _sdk  # noqa: F401  (the optional dependency: a missing one is named, not a traceback)
        except ImportError:
            raise StateError("mcp: expected the MCP Python SDK, got none installed: pip install 'ygo-onto[mcp]'") from None
    except YgoError as exc:
        _fail(exc)
    from .mcp_server import serve

    serve(reasoner, http, host)


@app.command()
def check(ruleset: str = typer.Option("official", help="official, simplified or goat"),
          ontology: Optional[Path] = typer.Option(None, "--ontology", help=ONTOLOGY_HELP)):
    """Check the TBox with HermiT (consistency, classification) and every rule's vocabulary."""
    from .export import hermit_check

    try:
        rules = _use_ontology(ontology, None)
        report = hermit_check(rules.ruleset if rules is not None else ruleset)
    except YgoError as exc:
        _fail(exc)
    out.print(report)


# The two commands a harness calls once per step: their plain forms (the arguments, each option at most once,
# as `--name value`, `--name=value` or, for -o, `-o value`) are read here and the command is called as typer
# would call it.  typer reads everything else (help, the other commands, anything unusual), with its messages.
# (typer 0.2x coerces every parameter that is not a flag through pydantic: ~0.1 s of a call's start-up.)
_PLAIN = {
    "allowed": (("state",), {"--json": "json_out", "--reasoner": "reasoner", "--ruleset": "ruleset",
                             "--ontology": "ontology"}),
    "apply": (("state", "action"), {"-o": "output", "--output": "output", "--reasoner": "reasoner",
                                    "--ruleset": "ruleset", "--ontology": "ontology"}),
}
_PLAIN_FLAGS = {"--json"}
_PLAIN_PATHS = {"state", "ontology", "output"}


def _plain_call(argv: list[str]):
    """(the command, its keyword arguments) for a plain call of `allowed` or `apply`, else None."""
    if not argv or argv[0] not in _PLAIN:
        return None
    names, options = _PLAIN[argv[0]]
    positional, values, i = [], {}, 1
    while i < len(argv):
        token = argv[i]
        i += 1
        if not token or token == "-":
            return None
        if not token.startswith("-"):
            positional.append(token)
            continue
        name, eq, value = token.partition("=")
        dest = options.get(name)
        if dest is None or dest in values or (eq and name == "-o"):
            return None
        if name in _PLAIN_FLAGS:
            if eq:
                return None
            values[dest] = True
            continue
        if not eq:
            if i >= len(argv):
                return None
            value = argv[i]
            i += 1
        if not value or value.startswith("-"):
            return None
        values[dest] = value
    if len(positional) != len(names):
        return None
    values.update(zip(names, positional))
    kwargs = {"reasoner": reasoning.DEFAULT, "ruleset": None, "ontology": None,
              **({"json_out": False} if argv[0] == "allowed" else {"output": None})}
    kwargs.update((k, Path(v) if k in _PLAIN_PATHS else v) for k, v in values.items())
    return (allowed if argv[0] == "allowed" else apply), kwargs


def _run_plain(command, kwargs) -> None:
    """Run a command as typer's standalone mode would: typer.Exit is the exit code, a closed pipe 1 (^C: main)."""
    import errno

    try:
        command(**kwargs)
        sys.stdout.flush()
    except typer.Exit as exc:
        sys.exit(exc.exit_code)
    except OSError as exc:
        if exc.errno != errno.EPIPE:
            raise
        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        sys.exit(1)


class Interrupted(BaseException):
    """Ctrl-C (SIGINT) during a command: raised by _on_sigint, a BaseException that click does not catch (it turns
    KeyboardInterrupt into "Aborted!" and exit 1), so main ends the command with exit 130 and one line."""


def _on_sigint(_signum, _frame) -> None:
    """The first Ctrl-C stops the command where Python runs next (the blocks on its way out run: a child
    process is stopped, a log is closed); a second one ends the process at once."""
    if _on_sigint.seen:
        os._exit(130)
    _on_sigint.seen = True
    raise Interrupted()


_on_sigint.seen = False


def _interrupted() -> None:
    try:
        sys.stdout.flush()
    except (OSError, ValueError):  # (a closed pipe or stream: nothing more to write there)
        pass
    try:
        err.print("error: interrupted (Ctrl-C)", markup=False, highlight=False)
        sys.stderr.flush()
    finally:
        os._exit(130)  # (no cleanup left to wait for: a worker pool's or Ray's shutdown could block again)


def main() -> None:
    import signal

    try:
        signal.signal(signal.SIGINT, _on_sigint)
    except ValueError:  # not the main thread (main called from a thread): Python's own handler stays
        pass
    try:
        plain = _plain_call(sys.argv[1:])
        if plain is not None:
            _run_plain(*plain)
            return
        app()
    except (Interrupted, KeyboardInterrupt):
        _interrupted()
    except YgoError as exc:  # pragma: no cover - commands catch their own
        err.print(f"error: {exc}", markup=False)
        sys.exit(2)
    except Exception as exc:  # a bug, not bad input: still one line, not a traceback (YGO_DEBUG=1 shows it)
        if os.environ.get("YGO_DEBUG"):
            raise
        err.print(f"error: internal error {type(exc).__name__}: {exc} (please report it; YGO_DEBUG=1 shows where)",
                  markup=False, highlight=False)
        sys.exit(2)


if __name__ == "__main__":
    main()
