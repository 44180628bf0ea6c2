"""Differential testing of the reasoner backends: `fast` against `pellet` (the reference).

Both backends take the same ABox facts and must return the same set of facts, compared with
their Python types (True is not 1).  Used by tests/test_differential.py (a CI-sized run) and
scripts/differential.py (thousands of inputs on demand).

* **Cases** are reasoner inputs: a state (its `state_facts`), or a state with the transient
  facts of one apply step (an action, a battle, the start of a turn), recorded while the fast
  backend plays random duels.  They come from the rule scenarios, from random playouts, and
  from earlier failures saved under tests/fixtures/differential/.  Two cases with the same
  ABox are one case (the ABox leaves the deck's order out, so many states coincide).
* **Pellet, warm.**  A Pellet run through owlready2 costs 5-9 s, a good part of it a new JVM
  that loads and JIT-compiles Pellet and Jena.  `PelletPool` runs the *unchanged* reference
  backend (reasoning/pellet.py, owlready2's `sync_reasoner_pellet`: the same N-Triples file,
  the same Pellet command line, the same output parsing) in worker processes whose owlready2
  hands the Pellet command to a JVM started once per worker (JPype; reasoning/pellet_jvm.py's
  `warm_owlready2_pellet`) instead of a new `java` process.  Workers are spawned processes, so their JVM never meets one the caller may run
  (tests/test_export.py's).
* **Pellet, joined.**  Most of what is left is per run (the TBox, the rules' network), so
  `compare` gives Pellet several cases in one ABox, each case's individuals renamed apart
  (`combine`), and splits the answer back (`split`).  The cases share the TBox individuals,
  through which rules could carry facts from one case to another, so cases are joined only
  when the fast backend shows, on that very joined ABox, that each case gets exactly its own
  answer (`plan_joins`); and a case whose joined answer differs from fast's is run again
  alone, so a reported difference always comes from a plain single run.
  `shortcuts_agree` checks both shortcuts against a new `java` process and single runs.
* **Samples.**  A default test run compares a sample of its cases with Pellet: `fired_rules` names the rules whose
  body holds on a case (fast's evaluator on the program with a probe per rule), and `covering` picks cases until they
  fire every rule (or rules file) that any case fires; `uncovered` names what a sample leaves out.
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import multiprocessing
import os
import random
import re
import zlib
from dataclasses import dataclass, field
from pathlib import Path
from collections.abc import Callable, Iterable, Iterator

from ..abox import state_facts
from ..errors import ReasonerError
from ..knowledge import knowledge
from ..state import normalize

RULESETS = ("official", "simplified", "goat")


# ---------------------------------------------------------------------------------------------
# cases

@dataclass
class Case:
    """One reasoner input: a state (and the transient facts of an apply step, if any)."""

    name: str
    state: dict
    transient: dict | None = None
    facts_override: list | None = field(default=None, repr=False)  # a saved fixture's exact ABox
    actions: int = 0  # for a playout: the actions played before it
    _fast: tuple | None = field(default=None, repr=False, compare=False)
    _key: tuple | None = field(default=None, repr=False, compare=False)
    _fired: frozenset | None = field(default=None, repr=False, compare=False)

    @property
    def ruleset(self) -> str:
        return self.state["ruleset"]

    def facts(self) -> list[tuple]:
        if self.facts_override is not None:
            return self.facts_override
        return state_facts(self.state, lean=True, transient=self.transient)

    def key(self) -> tuple:
        if self._key is None:
            self._key = (self.ruleset, frozenset(typed(self.facts())))
        return self._key


def typed(facts: Iterable[tuple]) -> set[tuple]:
    """Facts with the type of every term: in Python True == 1, so a plain set cannot tell them apart."""
    return {tuple((type(x).__name__, x) for x in f) for f in facts}


def untyped(tfacts: Iterable[tuple]) -> list[tuple]:
    return [tuple(x for _, x in f) for f in tfacts]


def dedupe(cases: Iterable[Case]) -> list[Case]:
    seen, out = set(), []
    for c in cases:
        k = c.key()
        if k not in seen:
            seen.add(k)
            out.append(c)
    return out


def scenario_step_cases(paths, every_input: bool = False) -> list[Case]:
    """Every state of the rule scenarios at `paths` (tests/scenarios/<ruleset>/*.json): the start, each reasoner
    input of each step (the apply loop's states with their transient facts; with every_input, those without
    transient facts too, such as the damage calculation's) and the state after each step."""
    from ..game import GameState

    out = []
    for path in paths:
        sc = json.loads(Path(path).read_text(encoding="utf-8"))
        state = GameState.from_dict(sc["state"], source=str(path))
        out.append(Case(f"{Path(path).stem} start", state.to_dict()))
        for n, step in enumerate(sc.get("steps", []), 1):
            steps: list = []
            with _recording_steps(steps, every_input):
                state = state.apply(step, "fast")
            out += [Case(f"{Path(path).stem} step {n} input {i}", data, transient)
                    for i, (data, transient) in enumerate(steps)]
            out.append(Case(f"{Path(path).stem} after step {n}", state.to_dict()))
    return dedupe(out)


def scenario_cases(scenario_dir: Path) -> list[Case]:
    """The start state of every rule scenario (tests/scenarios/<ruleset>/*.json)."""
    out = []
    for path in sorted(Path(scenario_dir).glob("*/*.json")):
        sc = json.loads(path.read_text(encoding="utf-8"))
        out.append(Case(f"scenario {path.parent.name}/{path.stem}", normalize(sc["state"], source=str(path))))
    return out


def fixture_cases(fixture_dir: Path) -> list[Case]:
    """Saved failures (save_failure): replayed from their state, or from their exact ABox when an
    apply step's transient facts were part of the input."""
    out = []
    for path in sorted(Path(fixture_dir).glob("*.json")):
        fx = json.loads(path.read_text(encoding="utf-8"))
        facts = [tuple(f) for f in fx["facts"]] if fx.get("transient") and fx.get("facts") else None
        out.append(Case(f"fixture {path.name}", normalize(fx["state"], source=str(path)), fx.get("transient"), facts))
    return out


@contextlib.contextmanager
def _recording_steps(sink: list | None, every_input: bool = False):
    """While active, every reasoner input of GameState.apply with transient facts (with every_input: every one) is
    appended to sink, as (state, transient facts)."""
    from .. import game

    original = getattr(game, "run_reasoner", None)
    if sink is None or original is None:
        yield
        return

    def recorder(data, reasoner, transient=None, base=None):  # (base saves rebuilding the same ABox)
        if transient or every_input:
            sink.append((copy.deepcopy(data), copy.deepcopy(transient)))
        return original(data, reasoner, transient, base)

    game.run_reasoner = recorder
    try:
        yield
    finally:
        game.run_reasoner = original


def playout_cases(ruleset: str, seed: int, max_actions: int = 300, agents=("random", "random"),
                  steps: bool = True, errors: list | None = None) -> Iterator[Case]:
    """The states of one random duel played with the fast backend (new_duel + play_duel), and,
    with steps=True, the inputs of the apply steps between them (state + transient facts).

    An engine error ends the duel; it is appended to `errors` (the playout tests judge it).
    """
    from ..duel import new_duel, play_duel

    state = new_duel(ruleset, seed, "fast")
    yield Case(f"playout {ruleset} seed {seed} start", state.to_dict())
    sink: list = [] if steps else None
    it = play_duel(state, agents, seed=seed, reasoner="fast", max_actions=max_actions)
    n = 0
    while True:
        with _recording_steps(sink):
            try:
                item = next(it)
            except StopIteration:
                return
            except Exception as exc:  # noqa: BLE001 - an engine bug must not stop the comparison
                if errors is not None:
                    errors.append(f"{ruleset} seed {seed} after {n} actions: {type(exc).__name__}: {exc}")
                return
        n += 1
        _, action, nxt = item
        for i, (data, transient) in enumerate(sink or ()):
            yield Case(f"playout {ruleset} seed {seed} action {n} ({action.id}) step {i}", data, transient,
                       actions=n - 1)
        if sink:
            sink.clear()
        yield Case(f"playout {ruleset} seed {seed} after action {n} ({action.id})", nxt.to_dict(), actions=n)


def sample_playouts(n_states: int, n_steps: int, seed: int = 0, rulesets=RULESETS, stride: int = 3,
                    per_duel: int = 6, max_skip: int = 60, exclude: set | None = None,
                    errors: list | None = None) -> list[Case]:
    """About n_states distinct states and n_steps distinct apply-step inputs from random duels,
    seeds seed, seed+1, ... in turn over the rulesets.  Each duel is first played a random
    number of actions (up to max_skip), so that openings do not crowd out later states; then
    one of every `stride` new inputs is kept (neighbouring states are much alike), at most
    `per_duel` of each kind, and the duel is left as soon as it has given its share."""
    seen = set(exclude or ())
    states: list[Case] = []
    steps: list[Case] = []
    rng = random.Random(seed)
    duel_seed = seed
    while len(states) < n_states or len(steps) < n_steps:
        for ruleset in rulesets:
            took = {True: 0, False: 0}
            skip = rng.randrange(max_skip + 1)
            cap = skip + 2 * stride * per_duel
            for case in playout_cases(ruleset, duel_seed, cap, steps=n_steps > 0, errors=errors):
                is_step = bool(case.transient)
                bucket, want = (steps, n_steps) if is_step else (states, n_states)
                if (case.actions >= skip and len(bucket) < want and took[is_step] < per_duel
                        and not rng.randrange(stride)):
                    k = case.key()
                    if k not in seen:
                        seen.add(k)
                        bucket.append(case)
                        took[is_step] += 1
                if ((len(states) >= n_states or took[False] >= per_duel)
                        and (len(steps) >= n_steps or took[True] >= per_duel)):
                    break
        duel_seed += 1
        if duel_seed - seed > 10_000:  # pragma: no cover - the engine cannot produce that many
            break
    return states + steps


# ---------------------------------------------------------------------------------------------
# coverage: the rules a case fires, and a Pellet sample that fires them all

_RULE_LINE = re.compile(r"^% (\S+) \((rules/[^)]*)\)$")
_PROBES: dict = {}  # id(Compiled) -> (the Compiled, kept alive; the probe's evaluator; rule names by number)


def _probe(k):
    """The ruleset's compiled program (with its equality section) with a probe per SWRL rule: `fired_(N) :- BODY.`
    next to the rule's own `HEAD :- BODY.` (the compiler writes each rule under a comment naming it).  The program is
    positive, so the probes change nothing else in the model, and fired_(N) holds exactly when rule N's body holds in
    it.  A rule the compiler writes as never firing has no line under its comment and no probe."""
    from ..reasoning.fast import _Evaluator, _NotSupported, compiled
    from ..reasoning.fast import native

    comp = compiled(k)
    got = _PROBES.get(id(comp))
    if got is not None and got[0] is comp:
        return got
    lines, names, out = comp.program.splitlines(), [], []
    for n, line in enumerate(lines):
        out.append(line)
        m = _RULE_LINE.match(line)
        if m and n + 1 < len(lines) and " :- " in lines[n + 1]:
            out.append(f"fired_({len(names)}) :- {lines[n + 1].split(' :- ', 1)[1]}")
            names.append(m.group(1))
    program = "\n".join(out)
    try:
        ev = native.NativeEvaluator(program)
    except _NotSupported:
        ev = _Evaluator(program)
    _PROBES[id(comp)] = got = (comp, ev, names)
    return got


def fired_rules(case: Case) -> frozenset[str]:
    """The names (`common/battle.swrl#3`) of the rules whose body holds on the case's model, as fast computes it:
    one more run of the evaluator, a few milliseconds (kept on the case)."""
    if case._fired is None:
        from ..reasoning.fast.facts import _read_facts

        k = knowledge(case.ruleset)
        comp, ev, names = _probe(k)
        facts, _ = _read_facts(comp, k, case.facts())
        with ev.lock:
            ev.run(facts)
            case._fired = frozenset(names[n] for (n,) in ev.atoms(("fired_", 1)) or ())
    return case._fired


def rule_file(rule: str) -> str:
    """The rules file of a rule name (`common/battle.swrl#3` -> `common/battle.swrl`): a coarser unit to cover."""
    return rule.split("#", 1)[0]


def _units(case: Case, unit) -> frozenset:
    rules = fired_rules(case)
    return rules if unit is None else frozenset(map(unit, rules))


def uncovered(cases: list[Case], chosen: list[Case], unit=None) -> dict[str, set[str]]:
    """Per ruleset, the rules (or, with unit=rule_file, the rules files) some case fires and no chosen case fires."""
    out: dict[str, set[str]] = {}
    for c in cases:
        out.setdefault(c.ruleset, set()).update(_units(c, unit))
    for c in chosen:
        out.get(c.ruleset, set()).difference_update(_units(c, unit))
    return {r: left for r, left in out.items() if left}


def covering(cases: list[Case], keep=lambda case: False, covered: Iterable[Case] = (), unit=None) -> list[Case]:
    """The Pellet comparison's share of `cases` in a default run: those `keep` names, then, one at a time, the case
    that fires the most rules that no case chosen (nor any of `covered`, compared with Pellet elsewhere) fires, until
    the chosen cases fire every rule that any case fires, per ruleset (a greedy set cover; a tie goes to the smaller
    ABox, then to the name's checksum, so that the choice does not depend on the cases' order); with unit=rule_file,
    every rules file instead of every rule.  Every case with YGO_FULL_PELLET=1.  In case order."""
    if os.environ.get("YGO_FULL_PELLET"):
        return list(cases)
    chosen = {i for i, c in enumerate(cases) if keep(c)}
    done: dict[str, set] = {}
    for c in [*covered, *(cases[i] for i in chosen)]:
        done.setdefault(c.ruleset, set()).update(_units(c, unit))
    left = {i: _units(c, unit) - done.get(c.ruleset, set()) for i, c in enumerate(cases) if i not in chosen}
    size = {i: len(cases[i].facts()) for i in left}
    while True:
        left = {i: rules for i, rules in left.items() if rules}
        if not left:
            return [c for i, c in enumerate(cases) if i in chosen]
        best = max(left, key=lambda i: (len(left[i]), -size[i], -zlib.crc32(cases[i].name.encode())))
        chosen.add(best)
        ruleset, gained = cases[best].ruleset, left.pop(best)
        left = {i: (rules - gained if cases[i].ruleset == ruleset else rules) for i, rules in left.items()}


# ---------------------------------------------------------------------------------------------
# comparing

@dataclass
class Outcome:
    """The two backends' answers on one case."""

    case: Case
    only_fast: list = field(default_factory=list)
    only_pellet: list = field(default_factory=list)
    fast_error: str | None = None
    pellet_error: str | None = None
    pellet_ms: float = 0.0
    joined: int = 1  # how many cases shared the Pellet run that answered this one
    warm_disagrees: bool = False  # set by confirm_cold

    @property
    def same(self) -> bool:
        # both backends must reject (inconsistent state) or accept the input, and then agree
        return ((self.fast_error is None) == (self.pellet_error is None)
                and not self.only_fast and not self.only_pellet)

    def report(self) -> str:
        lines = [f"{self.case.name} ({self.case.ruleset}): fast and pellet differ"]
        if self.warm_disagrees:
            lines.append("  (the warm Pellet answer was not the plain one: the harness is wrong too)")
        if self.fast_error or self.pellet_error:
            lines.append(f"  fast:   {self.fast_error or 'ok'}")
            lines.append(f"  pellet: {self.pellet_error or 'ok'}")
        lines += [f"  fast only:   {f}" for f in self.only_fast]
        lines += [f"  pellet only: {f}" for f in self.only_pellet]
        return "\n".join(lines)


def fast_facts(case: Case):
    """(facts, None) or (None, the error): fast's answer on the case (kept on the case)."""
    from ..reasoning import get

    if case._fast is None:
        try:
            case._fast = get("fast").infer(knowledge(case.ruleset), case.facts()), None
        except ReasonerError as exc:
            case._fast = None, str(exc)
    return case._fast


def outcome(case: Case, fast_result, pellet_result) -> Outcome:
    (f, ferr), (p, perr, ms) = fast_result, pellet_result
    out = Outcome(case, fast_error=ferr, pellet_error=perr, pellet_ms=ms)
    if f is not None and p is not None:
        tf, tp = typed(f), typed(p)
        out.only_fast = sorted(untyped(tf - tp), key=repr)
        out.only_pellet = sorted(untyped(tp - tf), key=repr)
    return out


def compare(cases: list[Case], pool: PelletPool, progress: Callable[[Outcome], None] | None = None,
            batch: int = 8) -> list[Outcome]:
    """Every case through both backends; outcomes in case order.

    Pellet runs in the pool, on batches of `batch` cases of one ruleset joined into one ABox
    (each case's individuals renamed apart, see `combine`), while fast runs here meanwhile.
    A batch is used only when the fast backend shows the cases do not interact in it (`split`
    of fast's answer on the joined ABox is exactly fast's answers on the cases); any case on
    which a batch answer differs from fast is run again alone, and only that single, plain
    Pellet answer can fail it.
    """
    import queue

    results: list[Outcome | None] = [None] * len(cases)
    fast = {}
    done: queue.Queue = queue.Queue()
    pending = 0

    def submit(indices: list[int], facts: list) -> None:
        nonlocal pending
        pending += 1
        pool.submit(cases[indices[0]].ruleset, facts, lambda r, ix=tuple(indices): done.put((ix, r)))

    def finish(i: int, pellet_result, joined: int = 1) -> None:
        results[i] = outcome(cases[i], fast[i], pellet_result)
        results[i].joined = joined
        if progress:
            progress(results[i])

    def flush(chunk: list[int]) -> None:
        for group in plan_joins([cases[i] for i in chunk], [fast[i] for i in chunk], cap=batch):
            ix = [chunk[n] for n in group]
            submit(ix, combine([cases[i] for i in ix]) if len(ix) > 1 else cases[ix[0]].facts())

    # Cases join well only when they agree on the facts of the shared TBox individuals (the
    # rules' global conditions, e.g. fulfilled(openState, true)): bucket them by those facts.
    buckets: dict[tuple, list[int]] = {}
    for i, c in enumerate(cases):
        fast[i] = fast_facts(c)
        f, err = fast[i]
        if err is not None or batch <= 1:
            flush([i])
        else:
            sig = signature(c, f)
            bucket = buckets.setdefault(sig, [])
            bucket.append(i)
            if len(bucket) >= POOL_FACTOR * batch:
                flush(buckets.pop(sig))
        while pending and not done.empty():
            pending -= 1
            _collect(cases, done.get(), fast, finish, submit)
    for chunk in buckets.values():
        flush(chunk)
    while pending:
        pending -= 1
        _collect(cases, done.get(), fast, finish, submit)
    return results  # type: ignore[return-value]


def signature(case: Case, fast_answer) -> tuple:
    """The ruleset and the facts on TBox individuals: cases alike in it may share a Pellet run."""
    v = knowledge(case.ruleset).vocabulary
    return case.ruleset, frozenset(typed(x for x in fast_answer if x[1] in v.individuals))


def joinable_group(cases: list[Case], n: int) -> list[Case]:
    """n cases that `compare` would join into one Pellet run (for checking that shortcut), the
    first ones found in order; [] if there are none."""
    buckets: dict[tuple, list[Case]] = {}
    for c in cases:
        f, err = fast_facts(c)
        if err is not None:
            continue
        group = buckets.setdefault(signature(c, f), [])
        if batchable(group + [c], [fast_facts(x) for x in group + [c]]) if group else True:
            group.append(c)
            if len(group) == n:
                return group
    return []


def _collect(cases, item, fast, finish, submit) -> None:
    indices, (facts, error, ms) = item
    if len(indices) == 1:
        finish(indices[0], (facts, error, ms))
        return
    if error is not None:  # one inconsistent case makes the batch inconsistent: find it alone
        for i in indices:
            submit([i], cases[i].facts())
        return
    k = knowledge(cases[indices[0]].ruleset)
    parts, shared, crossed = split(facts, len(indices), k.vocabulary)
    for n, i in enumerate(indices):
        answer = parts[n] | shared
        f, ferr = fast[i]
        if not crossed and ferr is None and typed(answer) == typed(f):
            finish(i, (answer, None, ms / len(indices)), len(indices))
        else:
            submit([i], cases[i].facts())


# --- batching: several cases in one ABox

_PREFIX = "case{}__"
POOL_FACTOR = 4  # cases of one signature are planned into joined runs POOL_FACTOR * batch at a time


def _rename(name, prefix: str, v):
    return name if name in v.individuals else prefix + name


def combine(cases: list[Case]) -> list[tuple]:
    """The ABoxes of the cases as one: every ABox individual of case n is renamed case<n>__<name>;
    the TBox individuals (phases, positions, types...) are shared."""
    v = knowledge(cases[0].ruleset).vocabulary
    out = []
    for n, c in enumerate(cases):
        prefix = _PREFIX.format(n)
        for f in c.facts():
            if len(f) == 2:
                out.append((f[0], _rename(f[1], prefix, v)))
            elif f[0] in v.object_properties:
                out.append((f[0], _rename(f[1], prefix, v), _rename(f[2], prefix, v)))
            else:
                out.append((f[0], _rename(f[1], prefix, v), f[2]))
    return out


def split(facts, n: int, v) -> tuple[list[set], set, list]:
    """An answer on a combined ABox as (the facts of each case, renamed back; the facts on TBox
    individuals only; the facts that mix two cases)."""
    import re

    rx = re.compile(r"case(\d+)__(.*)\Z", re.DOTALL)
    parts: list[set] = [set() for _ in range(n)]
    shared, crossed = set(), []

    def owner(term):
        m = rx.match(term) if isinstance(term, str) and term not in v.individuals else None
        return (int(m.group(1)), m.group(2)) if m else (None, term)

    for f in facts:
        if len(f) == 2:
            terms = [owner(f[1])]
        elif f[0] in v.object_properties:
            terms = [owner(f[1]), owner(f[2])]
        else:
            terms = [owner(f[1]), (None, f[2])]
        cases_in = {c for c, _ in terms if c is not None}
        back = (f[0], *[t for _, t in terms])
        if not cases_in:
            shared.add(back)
        elif len(cases_in) == 1:
            parts[cases_in.pop()].add(back)
        else:
            crossed.append(f)
    return parts, shared, crossed


def _join_check(cases: list[Case], fast_answers: list) -> tuple[set, set]:
    """Run fast on the joined ABox: (pairs of cases that interact, cases answered wrongly otherwise)."""
    from ..reasoning import get

    k = knowledge(cases[0].ruleset)
    try:
        joined = get("fast").infer(k, combine(cases))
    except ReasonerError:
        return set(), set(range(len(cases)))
    parts, shared, crossed = split(joined, len(cases), k.vocabulary)
    rx = _case_rx()
    edges = set()
    for f in crossed:
        ns = sorted({int(m.group(1)) for t in f[1:] if isinstance(t, str) for m in [rx.match(t)] if m})
        edges.update((a, b) for a in ns for b in ns if a < b)
    touched = {n for e in edges for n in e}
    wrong = {n for n, (f, _) in enumerate(fast_answers)
             if typed(parts[n] | shared) != typed(f) and n not in touched}
    return edges, wrong


def _case_rx():
    import re

    return re.compile(r"case(\d+)__")


def batchable(cases: list[Case], fast_answers: list) -> bool:
    """Whether the cases can share one Pellet run: on the joined ABox, fast derives exactly its
    answers on each case (nothing flows from one case to another through a shared individual)."""
    if any(err is not None for _, err in fast_answers):
        return False
    edges, wrong = _join_check(cases, fast_answers)
    return not edges and not wrong


def plan_joins(cases: list[Case], fast_answers: list, cap: int = 8, depth: int = 2) -> list[list[int]]:
    """The cases (indices) in groups of at most `cap` that can each share one Pellet run,
    checked with fast.  Cases that interact on the joined ABox (a card of one case targeting a
    monster of another through a shared individual, a Field Spell raising every monster...) go
    to different groups; a group is checked again, `depth` times, and else split into single runs."""
    n = len(cases)
    if n == 1:
        return [[0]]
    if any(err is not None for _, err in fast_answers):
        return [[i] for i in range(n)]
    edges, wrong = _join_check(cases, fast_answers)
    if not edges and not wrong and n <= cap:
        return [list(range(n))]
    if depth == 0:
        return [[i] for i in range(n)]
    # Which pairs interact: those the joined run showed, and, for a case answered wrongly
    # without showing with whom, every pair with it that fails a joined check of its own
    # (fast on two cases takes a few ms; a Pellet run saved, seconds).
    conflicts = set(edges)
    for w in sorted(wrong):
        for j in range(n):
            pair = (min(w, j), max(w, j))
            if j == w or pair in conflicts:
                continue
            e, bad = _join_check([cases[pair[0]], cases[pair[1]]], [fast_answers[pair[0]], fast_answers[pair[1]]])
            if e or bad:
                conflicts.add(pair)
    degree = {i: sum(1 for p in conflicts if i in p) for i in range(n)}
    groups: list[list[int]] = []
    for i in sorted(range(n), key=lambda i: -degree[i]):  # the most constrained first
        for g in groups:
            if len(g) < cap and all((min(i, j), max(i, j)) not in conflicts for j in g):
                g.append(i)
                break
        else:
            groups.append([i])
    out: list[list[int]] = []
    for g in groups:
        g.sort()
        sub = plan_joins([cases[i] for i in g], [fast_answers[i] for i in g], cap, depth - 1)
        out += [[g[i] for i in part] for part in sub]
    return out


def confirm_cold(o: Outcome) -> Outcome:
    """The outcome again with Pellet run the plain way (a new `java` process, here): a failure
    is reported from this, so that it never rests on a shortcut.  `warm_disagrees` is set when
    the warm answer was not the plain one (a harness bug, not a backend difference)."""
    import time

    from ..reasoning import get

    t = time.perf_counter()
    try:
        pellet = get("pellet").infer(knowledge(o.case.ruleset), o.case.facts()), None
    except ReasonerError as exc:
        pellet = None, str(exc)
    again = outcome(o.case, fast_facts(o.case), (*pellet, (time.perf_counter() - t) * 1000))
    again.warm_disagrees = (again.only_fast, again.only_pellet, again.pellet_error is None) != (
        o.only_fast, o.only_pellet, o.pellet_error is None)
    return again


# --- failures as fixtures

def fixture_name(case: Case) -> str:
    """<ruleset>-<hash of the ABox>.json: the same input is always the same file."""
    digest = hashlib.sha1(repr(sorted(case.key()[1], key=repr)).encode()).hexdigest()[:12]
    return f"{case.ruleset}-{digest}.json"


def save_failure(o: Outcome, fixture_dir: Path) -> Path:
    """The failing input as a fixture (fixture_cases reads it back): its state, loadable with
    GameState.from_dict, the transient facts and exact ABox of an apply step, and the difference."""
    fixture_dir = Path(fixture_dir)
    fixture_dir.mkdir(parents=True, exist_ok=True)
    path = fixture_dir / fixture_name(o.case)
    record = {
        "name": o.case.name,
        "state": o.case.state,
        "transient": o.case.transient or None,
        "facts": [list(f) for f in o.case.facts()],
        "fast_error": o.fast_error,
        "pellet_error": o.pellet_error,
        "only_fast": [list(f) for f in o.only_fast],
        "only_pellet": [list(f) for f in o.only_pellet],
    }
    path.write_text(json.dumps(record, indent=1, default=_jsonable) + "\n", encoding="utf-8")
    return path


def _jsonable(value):
    if isinstance(value, (set, frozenset, tuple)):
        return sorted(value, key=repr) if isinstance(value, (set, frozenset)) else list(value)
    raise TypeError(f"not JSON: {value!r}")


# ---------------------------------------------------------------------------------------------
# Pellet in warm JVMs (reasoning/pellet_jvm.py's, one per worker)

def _init_worker(warm: bool) -> None:
    import warnings

    warnings.simplefilter("ignore")
    if warm:
        from ..reasoning.pellet_jvm import warm_owlready2_pellet

        warm_owlready2_pellet()


def _pellet_job(job):
    """(index, (ruleset, facts)) -> (index, (facts or None, error or None, ms))."""
    import time

    from ..reasoning import get

    index, (ruleset, facts) = job
    t = time.perf_counter()
    try:
        result = get("pellet").infer(knowledge(ruleset), facts)
        return index, (result, None, (time.perf_counter() - t) * 1000)
    except ReasonerError as exc:
        return index, (None, str(exc), (time.perf_counter() - t) * 1000)


class PelletPool:
    """Worker processes running the reference Pellet backend (warm JVMs by default)."""

    def __init__(self, workers: int | None = None, warm: bool = True, max_tasks: int = 400):
        self.workers = workers or max(1, min(os.cpu_count() or 1, 4))
        self.runs = 0  # Pellet runs submitted
        ctx = multiprocessing.get_context("spawn")
        self._pool = ctx.Pool(self.workers, initializer=_init_worker, initargs=(warm,), maxtasksperchild=max_tasks)

    def imap(self, jobs: list) -> Iterator[tuple[int, tuple]]:
        """(index, (facts, error, ms)) as they finish."""
        yield from self._pool.imap_unordered(_pellet_job, list(enumerate(jobs)))

    def submit(self, ruleset: str, facts: list, callback) -> None:
        """Run one job; callback((facts, error, ms)) in a thread of the pool when it is done."""
        self.runs += 1
        def done(result):
            callback(result[1])

        def failed(exc):
            callback((None, f"worker failed: {type(exc).__name__}: {exc}", 0.0))

        self._pool.apply_async(_pellet_job, ((0, (ruleset, facts)),), callback=done, error_callback=failed)

    def infer(self, ruleset: str, facts: list) -> tuple:
        return self._pool.apply(_pellet_job, ((0, (ruleset, facts)),))[1]

    def close(self) -> None:
        self._pool.terminate()
        self._pool.join()

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def shortcuts_agree(cases: list[Case], pool: PelletPool) -> list[str]:
    """The two shortcuts of `compare` give what the plain reference gives, on real cases that
    `compare` would join: the joined warm run of all the cases, split, equals a plain owlready2
    run (a new `java` process) on cases[0] and warm single runs on the others.  Returns the problems."""
    from ..reasoning import get

    problems = []
    k = knowledge(cases[0].ruleset)

    def diff(what, a, b):
        ta, tb = typed(a), typed(b)
        if ta != tb:
            problems.append(f"{what}: only in the first: {sorted(untyped(ta - tb), key=repr)[:20]}; "
                            f"only in the second: {sorted(untyped(tb - ta), key=repr)[:20]}")

    references = [get("pellet").infer(k, cases[0].facts())]
    for c in cases[1:]:
        facts, error, _ = pool.infer(c.ruleset, c.facts())
        if error:
            return [f"warm Pellet failed on {c.name}: {error}"]
        references.append(facts)
    joined, error, _ = pool.infer(cases[0].ruleset, combine(cases))
    if error:
        return [f"the joined Pellet run failed: {error}"]
    parts, shared, crossed = split(joined, len(cases), k.vocabulary)
    if crossed:
        problems.append(f"the joined run mixes cases: {crossed[:10]}")
    for n, c in enumerate(cases):
        what = "a new java process" if n == 0 else "a warm single run"
        diff(f"joined warm run (split) vs {what} on {c.name}", parts[n] | shared, references[n])
    return problems
