"""Self-play at scale: many seeded duels on processes (or on Ray), one JSON record per duel, a summary.

Game ``i`` of a batch gets the seed ``game_seed(seed, i)`` and seats the two agents by parity: even
games put ``agents[0]`` on A, odd games on B (in the official ruleset A goes first, so each agent
goes first in half the games; the simplified ruleset draws the first player from the seed).  A duel
is a pure function of its seed, its agents and its ruleset, so a batch gives the same records
(all but ``seconds``) whatever the number of workers or the backend.

A duel that raises is recorded with its seed, the error and the last state it reached; the batch
goes on.

With more than two decks the batch is a round robin (``round_robin_jobs``): every pair of decks, each
deck in both seats, and a summary per deck (a deck-against-deck table of win rates, a rating per deck).
"""
from __future__ import annotations

import hashlib
import json
import math
import os
import sys
import time
import traceback
from dataclasses import dataclass
from pathlib import Path

from .errors import StateError

MAX_ACTIONS = 2000  # a duel that has not ended after this many actions is recorded with winner null


def game_seed(seed: int, i: int) -> int:
    """The seed of game ``i`` of a batch started with ``seed`` (stable across processes and machines)."""
    digest = hashlib.sha256(f"ygo-onto selfplay {seed} {i}".encode()).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF


@dataclass(frozen=True)
class Job:
    game: int
    seed: int
    seats: tuple[str, str]  # the agents on A and on B
    ruleset: str
    reasoner: str = "fast"
    max_actions: int = MAX_ACTIONS
    decks: tuple | None = None  # A's and B's decks.Deck (None: the ruleset's own decks)


def jobs(games: int, agents: tuple[str, str], ruleset: str, seed: int = 0, reasoner: str = "fast",
         max_actions: int = MAX_ACTIONS, decks: tuple | None = None) -> list[Job]:
    return [Job(i, game_seed(seed, i), agents if i % 2 == 0 else (agents[1], agents[0]), ruleset, reasoner,
                max_actions, decks) for i in range(games)]


def round_robin_jobs(games: int, agents: tuple[str, str], ruleset: str, decks: list, seed: int = 0,
                     reasoner: str = "fast", max_actions: int = MAX_ACTIONS) -> list[Job]:
    """Every pair of ``decks`` (three or more ``decks.Deck``), each deck in both seats.

    Game ``i`` plays the pair ``(i // 2) mod P`` of the P pairs (in the order of ``decks``), and the
    pair's two decks swap seats every game, so each pair plays in both seats, one game after the other.
    The agents swap seats every game as in ``jobs``; from one round of the P pairs to the next the
    decks' seats are flipped, so that over two rounds each agent plays each deck of a pair in each seat.
    """
    pairs = [(x, y) for k, x in enumerate(decks) for y in decks[k + 1:]]
    out = []
    for i in range(games):
        x, y = pairs[(i // 2) % len(pairs)]
        flip = (i % 2) ^ ((i // (2 * len(pairs))) % 2)
        out.append(Job(i, game_seed(seed, i), agents if i % 2 == 0 else (agents[1], agents[0]), ruleset, reasoner,
                       max_actions, (y, x) if flip else (x, y)))
    return out


def play_job(job: Job) -> dict:
    """One duel, as a JSON record; never raises (an error is recorded with the last state)."""
    from .duel import new_duel, play_duel

    record = {"game": job.game, "seed": job.seed, "ruleset": job.ruleset,
              "agents": {"A": job.seats[0], "B": job.seats[1]}, "first_player": None, "winner": None,
              "winner_agent": None, "turns": 0, "actions": 0, "seconds": 0.0}
    if job.decks:
        record["decks"] = {"A": job.decks[0].name, "B": job.decks[1].name}
    start = time.perf_counter()
    state = None
    try:
        state = new_duel(job.ruleset, job.seed, job.reasoner, job.decks)
        record["first_player"] = state.data["first_player"]
        for _, _, nxt in play_duel(state, job.seats, job.seed, job.reasoner, job.max_actions):
            record["actions"] += 1
            state = nxt
        record["winner"] = state.winner
        record["turns"] = state.data["turn"]
        if state.winner in ("A", "B"):
            record["winner_agent"] = record["agents"][state.winner]
    except Exception as exc:  # noqa: BLE001 - a crash is a result of the batch, recorded, not raised
        record["error"] = f"{type(exc).__name__}: {exc}"
        record["traceback"] = traceback.format_exc(limit=8)
        record["last_state"] = state.to_dict() if state is not None else None
        if state is not None:
            record["turns"] = state.data["turn"]
    record["seconds"] = round(time.perf_counter() - start, 4)
    return record


def check_out_path(out: Path | None) -> None:
    """Bad input before any work: ``--out`` must be a file in an existing directory."""
    if out is None:
        return
    out = Path(out)
    if out.is_dir():
        raise StateError(f"--out {out}: expected a file path, got a directory")
    parent = out.parent if str(out.parent) else Path(".")
    if not parent.is_dir():
        raise StateError(f"--out {out}: expected a file in an existing directory, got a missing directory {parent}")
    if not os.access(parent, os.W_OK):
        raise StateError(f"--out {out}: expected a writable directory, got {parent} (not writable)")


# ---------------------------------------------------------------- running a batch
def run_local(batch: list[Job], workers: int, on_record=None) -> list[dict]:
    """The jobs on ``workers`` processes (1: in this process).  ``on_record(record)`` as each ends."""
    records = []
    if workers <= 1:
        for job in batch:
            rec = play_job(job)
            records.append(rec)
            if on_record:
                on_record(rec)
        return records
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor, as_completed
    from concurrent.futures.process import BrokenProcessPool

    from .knowledge import knowledge

    for ruleset in {j.ruleset for j in batch}:  # load once; forked workers inherit it
        knowledge(ruleset)
    ctx = multiprocessing.get_context("fork") if "fork" in multiprocessing.get_all_start_methods() else None

    def emit(rec):
        records.append(rec)
        if on_record:
            on_record(rec)

    broken = []  # jobs whose pool broke: a duel killed its process (os._exit, the OOM killer, a signal)
    with ProcessPoolExecutor(max_workers=workers, mp_context=ctx) as pool:
        futures = {pool.submit(play_job, job): job for job in batch}
        try:
            for fut in as_completed(futures):
                try:
                    emit(fut.result())
                except BrokenProcessPool:
                    broken.append(futures[fut])
        except BaseException:  # Ctrl-C (or an error of on_record): the duels not started are dropped, not played out,
            # and the workers' duels under way are stopped (they would outlive this process otherwise)
            processes = list((getattr(pool, "_processes", None) or {}).values())  # (shutdown forgets them)
            pool.shutdown(wait=False, cancel_futures=True)
            for process in processes:
                process.terminate()
            raise
    if broken:  # each again in a process of its own, so that the one that dies is known and the rest go on
        from concurrent.futures import ThreadPoolExecutor

        def alone(job):
            with ProcessPoolExecutor(max_workers=1, mp_context=ctx) as own:
                try:
                    return own.submit(play_job, job).result()
                except BrokenProcessPool:
                    return died_record(job)

        with ThreadPoolExecutor(max_workers=workers) as threads:
            for rec in threads.map(alone, sorted(broken, key=lambda j: j.game)):
                emit(rec)
    return records


def died_record(job: Job, why: str = "the process playing the duel died") -> dict:
    """The record of a duel whose process ended abruptly: its seed replays it (``ygo-onto duel --seed``)."""
    return {"game": job.game, "seed": job.seed, "ruleset": job.ruleset,
            "agents": {"A": job.seats[0], "B": job.seats[1]}, "first_player": None, "winner": None,
            "winner_agent": None, "turns": 0, "actions": 0, "seconds": 0.0,
            "error": f"WorkerDied: {why} (the duel's last state died with it; its seed replays the duel)",
            "traceback": "", "last_state": None}


def ray_init(workers: int, address: str | None = None, announce: bool = False) -> bool:
    """Start (or join) Ray unless it runs already; True when this call started it.  `announce`: say so on stderr
    first (Ray takes about half a minute to start, with no word of its own)."""
    try:
        import ray
    except ImportError:
        raise StateError("--ray: expected the ray package (pip install 'ygo-onto[agents]'), got none installed") from None
    if ray.is_initialized():
        return False
    if announce:
        where = f"joining the Ray cluster at {address}" if address else f"starting a local Ray ({max(1, workers)} CPUs)"
        print(f"{where}: this takes about half a minute...", file=sys.stderr, flush=True)
    kwargs = {"include_dashboard": False, "log_to_driver": False, "configure_logging": False}
    try:
        if address:
            ray.init(address=address, **kwargs)
        else:
            ray.init(address="local", num_cpus=max(1, workers), **kwargs)  # a new local Ray, never a stale one
    except Exception as exc:  # noqa: BLE001 - Ray's own errors (ConnectionError, RuntimeError, ...)
        option = f"--ray-address {address}" if address else "--ray"
        raise StateError(f"{option}: expected a Ray {'cluster to join' if address else 'that starts'}, "
                         f"got {type(exc).__name__}: {exc}") from None
    return True


def run_ray(batch: list[Job], workers: int, address: str | None = None, on_record=None) -> list[dict]:
    """The jobs as Ray tasks: on a local Ray (``address`` None: started here with ``workers`` CPUs) or on a
    cluster (``address``, e.g. ``ray://head:10001`` or ``auto``; its nodes need ygo-onto installed)."""
    import ray

    started = ray_init(workers, address)
    try:
        remote = ray.remote(num_cpus=1, max_retries=0)(play_job)
        of = {}
        for job in batch:
            of[remote.remote(job)] = job
        pending = list(of)
        records = []
        while pending:
            done, pending = ray.wait(pending, num_returns=1)
            for ref in done:
                try:
                    rec = ray.get(ref)
                except Exception as exc:  # noqa: BLE001 - the task's worker died (play_job itself never raises)
                    rec = died_record(of[ref], f"the Ray task died: {type(exc).__name__}")
                records.append(rec)
                if on_record:
                    on_record(rec)
        return records
    finally:
        if started:
            ray.shutdown()


def run_batch(games: int, agents: tuple[str, str], ruleset: str = "official", workers: int = 1, seed: int = 0,
              out: Path | None = None, use_ray: bool = False, ray_address: str | None = None,
              reasoner: str = "fast", max_actions: int = MAX_ACTIONS, progress: bool = False,
              decks: str | list[str] | None = None) -> "Batch":
    """Play a batch and write its records (sorted by game) to ``out``; returns the records and the wall time.

    ``decks``: None (the ruleset's decks), ``"A.ydk,B.ydk"`` (A's and B's), or three or more deck files (a
    list, or one string separated by commas): a round robin of them (``round_robin_jobs``).

    :raises StateError: bad input (an unknown agent or ruleset, ``out`` in a missing directory), before any duel.
    """
    from .cards import RULESETS
    from .duel import AGENTS

    if games < 1:
        raise StateError(f"--games: expected an int >= 1, got {games}")
    if workers < 1:
        raise StateError(f"--workers: expected an int >= 1, got {workers}")
    if max_actions < 0:  # (as `duel --max-actions`)
        raise StateError(f"--max-actions: expected an integer >= 0, got {max_actions}")
    if len(agents) != 2 or any(a not in AGENTS for a in agents):
        raise StateError(f"--agents: expected two of {', '.join(AGENTS)} separated by a comma, got {','.join(agents)!r}")
    if ruleset not in RULESETS:
        raise StateError(f"--ruleset: expected one of {', '.join(RULESETS)}, got {ruleset!r}")
    check_out_path(out)
    from .decks import duel_decks, read_ydk

    paths = [p.strip() for p in (decks.split(",") if isinstance(decks, str) else decks or [])]
    if len(paths) > 2:
        if ruleset == "simplified":
            duel_decks(ruleset, ",".join(paths))  # its own message: simplified reads no deck file
        if not all(paths):
            raise StateError(f"--decks: expected deck files, got an empty name in {','.join(paths)!r}")
        if len(set(paths)) != len(paths):
            twice = sorted({p for p in paths if paths.count(p) > 1})
            raise StateError(f"--decks: expected each deck file once in a round robin, got {', '.join(twice)} twice")
        read = [read_ydk(p, ruleset) for p in paths]
        names = [d.name for d in read]
        if len(set(names)) != len(names):
            raise StateError(f"--decks: expected decks with different names (their file names), got {names}")
        batch = round_robin_jobs(games, agents, ruleset, read, seed, reasoner, max_actions)
        title = f"round robin of {len(read)} decks ({ruleset})"
    else:
        batch = jobs(games, agents, ruleset, seed, reasoner, max_actions,
                     duel_decks(ruleset, ",".join(paths)) if paths else None)
        title = f"{agents[0]} vs {agents[1]} ({ruleset})"
        read = None
    sink = open(out, "w", encoding="utf-8") if out else None  # records as they end, in case the batch is cut short
    bar = _Progress(games, title, by_deck=read is not None) if progress else None

    def on_record(rec):
        if sink:
            sink.write(json.dumps(rec) + "\n")
            sink.flush()
        if bar:
            bar.advance(rec)

    ray_started = (use_ray or ray_address) and ray_init(workers, ray_address, announce=progress)  # (not timed)
    start = time.perf_counter()
    try:
        if bar:
            bar.start()
        if use_ray or ray_address:
            records = run_ray(batch, workers, ray_address, on_record)
        else:
            records = run_local(batch, workers, on_record)
    finally:
        if bar:
            bar.stop()
        if sink:
            sink.close()
        if ray_started:
            import ray

            ray.shutdown()
    wall = time.perf_counter() - start
    records.sort(key=lambda r: r["game"])
    if out:  # the same file, now in game order
        tmp = Path(str(out) + ".tmp")
        tmp.write_text("".join(json.dumps(r) + "\n" for r in records), encoding="utf-8")
        os.replace(tmp, out)
    return Batch(records, wall, tuple(agents), [d.name for d in read] if read else None)


class _Progress:
    """A rich progress bar (on stderr) with the running win counts (per agent and seat, or per deck)."""

    def __init__(self, total: int, title: str, by_deck: bool = False):
        from rich.console import Console
        from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn, TimeElapsedColumn, TimeRemainingColumn

        self.progress = Progress(TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn(),
                                 TimeElapsedColumn(), TimeRemainingColumn(), TextColumn("{task.fields[status]}"),
                                 console=Console(stderr=True), transient=False)
        self.task = self.progress.add_task(title, total=total, status="")
        self.wins: dict[str, int] = {}
        self.errors = 0
        self.by_deck = by_deck

    def start(self):
        self.progress.start()

    def stop(self):
        self.progress.stop()

    def advance(self, rec: dict):
        if rec.get("error"):
            self.errors += 1
        elif rec["winner"] in ("A", "B"):
            key = rec["decks"][rec["winner"]] if self.by_deck else f"{rec['winner_agent']}@{rec['winner']}"
            self.wins[key] = self.wins.get(key, 0) + 1
        status = " ".join(f"{k}:{v}" for k, v in sorted(self.wins.items()))
        if self.errors:
            status += f" errors:{self.errors}"
        self.progress.update(self.task, advance=1, status=status)


# ---------------------------------------------------------------- the summary
def wilson(successes: int, n: int, z: float = 1.959963984540054) -> tuple[float, float]:
    """The Wilson score interval of a proportion (95% by default); (0, 1) when n is 0."""
    if n == 0:
        return 0.0, 1.0
    p = successes / n
    denom = 1 + z * z / n
    centre = (p + z * z / (2 * n)) / denom
    half = z * math.sqrt(p * (1 - p) / n + z * z / (4 * n * n)) / denom
    return max(0.0, centre - half), min(1.0, centre + half)


@dataclass
class Batch:
    records: list[dict]
    wall_seconds: float
    agents: tuple[str, str]
    decks: list[str] | None = None  # a round robin's decks, in the order given

    def summary(self) -> dict:
        """Win rates with 95% Wilson intervals, per agent (slot of --agents) and per first player; speed."""
        recs = self.records
        slots = [f"{self.agents[0]} (1st)", f"{self.agents[1]} (2nd)"] if self.agents[0] == self.agents[1] \
            else list(self.agents)

        def seat_of(rec, slot):  # which player slot `slot` of --agents played in this game
            return "A" if (rec["game"] % 2 == 0) == (slot == 0) else "B"

        rows = []
        for slot, label in enumerate(slots):
            for going in (None, True, False):
                sel = [r for r in recs if going is None or (r["first_player"] == seat_of(r, slot)) == going]
                wins = sum(1 for r in sel if r["winner"] == seat_of(r, slot))
                lo, hi = wilson(wins, len(sel))
                rows.append({"agent": label, "when": {None: "all", True: "going first", False: "going second"}[going],
                             "games": len(sel), "wins": wins, "win_rate": wins / len(sel) if sel else None,
                             "ci95": [lo, hi]})
        first_wins = sum(1 for r in recs if r["first_player"] and r["winner"] == r["first_player"])
        lo, hi = wilson(first_wins, len(recs))
        actions = sum(r["actions"] for r in recs)
        turns = sum(r["turns"] for r in recs)
        duel_seconds = sum(r["seconds"] for r in recs)
        return {
            "games": len(recs),
            "draws": sum(1 for r in recs if r["winner"] == "draw"),
            "unfinished": sum(1 for r in recs if r["winner"] is None and not r.get("error")),
            "errors": sum(1 for r in recs if r.get("error")),
            "rows": rows,
            "first_player": {"games": len(recs), "wins": first_wins, "win_rate": first_wins / len(recs) if recs else None,
                             "ci95": [lo, hi]},
            "actions": actions, "turns": turns,
            "wall_seconds": self.wall_seconds,
            "actions_per_second": actions / self.wall_seconds if self.wall_seconds else None,
            "turns_per_second": turns / self.wall_seconds if self.wall_seconds else None,
            "actions_per_second_per_worker": actions / duel_seconds if duel_seconds else None,
            **({"round_robin": round_robin_summary(recs, self.decks)} if self.decks else {}),
        }


def round_robin_summary(records: list[dict], decks: list[str]) -> dict:
    """A round robin's results per deck, from its records (each with ``decks`` {"A": name, "B": name}).

    ``table``: for each ordered pair (deck, opponent), the games between them (both seats), the deck's
    wins and its win rate with a 95% Wilson interval; draws, unfinished duels and errors count as games
    the deck did not win.  ``ratings``: an OpenSkill Plackett-Luce rating per deck (mu, sigma and the
    conservative ``ordinal`` mu - 3 sigma), rated game by game in game order with no drift (``tau`` 0; a draw
    is a tie; unfinished duels and errors are not rated), best ordinal first.  A rating made game by game
    depends a little on the games' order: decks whose mu differ by less than their sigmas are not ranked.
    """
    from openskill.models import PlackettLuce

    played = {(x, y): [0, 0] for x in decks for y in decks if x != y}  # (games, wins of x)
    model = PlackettLuce(tau=0.0)  # no drift: a deck's strength does not change during a batch (tau > 0 lets the
    # last games outweigh the first, as suits players who learn)
    rating = {d: model.rating(name=d) for d in decks}
    for rec in sorted(records, key=lambda r: r["game"]):
        a, b = rec["decks"]["A"], rec["decks"]["B"]
        for me, them, seat in ((a, b, "A"), (b, a, "B")):
            played[(me, them)][0] += 1
            played[(me, them)][1] += rec["winner"] == seat
        if rec.get("error") or rec["winner"] not in ("A", "B", "draw"):
            continue
        ranks = [0, 0] if rec["winner"] == "draw" else ([0, 1] if rec["winner"] == "A" else [1, 0])
        [[rating[a]], [rating[b]]] = model.rate([[rating[a]], [rating[b]]], ranks=ranks)
    table = []
    for (x, y), (n, w) in played.items():
        lo, hi = wilson(w, n)
        table.append({"deck": x, "opponent": y, "games": n, "wins": w, "win_rate": w / n if n else None,
                      "ci95": [lo, hi]})
    ratings = sorted(({"deck": d, "mu": r.mu, "sigma": r.sigma, "ordinal": r.ordinal(),
                       "games": sum(played[(d, o)][0] for o in decks if o != d),
                       "wins": sum(played[(d, o)][1] for o in decks if o != d)} for d, r in rating.items()),
                     key=lambda e: -e["ordinal"])
    return {"decks": list(decks), "table": table, "ratings": ratings, "rating_model": "openskill PlackettLuce, tau 0"}


def summary_tables(summary: dict):
    """The summary as rich tables (win rates; speed)."""
    from rich.table import Table

    def pct(x):
        return "-" if x is None else f"{100 * x:.1f}%"

    wins = Table(title=f"{summary['games']} duels: win rates (95% Wilson interval)")
    for col in ("agent", "when", "games", "wins", "win rate", "95% CI"):
        wins.add_column(col, justify="right" if col in ("games", "wins", "win rate") else "left")
    for r in summary["rows"]:
        wins.add_row(r["agent"], r["when"], str(r["games"]), str(r["wins"]), pct(r["win_rate"]),
                     f"{pct(r['ci95'][0])} - {pct(r['ci95'][1])}")
    fp = summary["first_player"]
    wins.add_row("first player", "all", str(fp["games"]), str(fp["wins"]), pct(fp["win_rate"]),
                 f"{pct(fp['ci95'][0])} - {pct(fp['ci95'][1])}")
    speed = Table(title="speed")
    speed.add_column("measure")
    speed.add_column("value", justify="right")

    def num(x, fmt="{:.1f}"):
        return "-" if x is None else fmt.format(x)

    for name, value in (("actions (decisions)", str(summary["actions"])), ("turns", str(summary["turns"])),
                        ("wall seconds", num(summary["wall_seconds"])),
                        ("actions per second", num(summary["actions_per_second"])),
                        ("turns per second", num(summary["turns_per_second"])),
                        ("actions per second per worker", num(summary["actions_per_second_per_worker"])),
                        ("draws / unfinished / errors",
                         f"{summary['draws']} / {summary['unfinished']} / {summary['errors']}")):
        speed.add_row(name, value)
    if "round_robin" in summary:
        return (wins, *round_robin_tables(summary["round_robin"]), speed)
    return wins, speed


def round_robin_tables(rr: dict):
    """A round robin as rich tables: deck against deck (the row deck's win rate and 95% interval), ratings."""
    from rich.table import Table

    cell = {(e["deck"], e["opponent"]): e for e in rr["table"]}
    grid = Table(title="deck against deck: the row deck's win rate (95% Wilson interval), games")
    grid.add_column("deck")
    for d in rr["decks"]:
        grid.add_column(d, justify="center")
    for x in rr["decks"]:
        row = []
        for y in rr["decks"]:
            e = cell.get((x, y))
            if e is None:
                row.append("-")
            elif not e["games"]:
                row.append("no games")
            else:
                row.append(f"{100 * e['win_rate']:.0f}% ({100 * e['ci95'][0]:.0f}-{100 * e['ci95'][1]:.0f}) n={e['games']}")
        grid.add_row(x, *row)
    ratings = Table(title=f"ratings ({rr['rating_model']}; ordinal = mu - 3 sigma)")
    for col in ("deck", "ordinal", "mu", "sigma", "games", "wins"):
        ratings.add_column(col, justify="left" if col == "deck" else "right")
    for e in rr["ratings"]:
        ratings.add_row(e["deck"], f"{e['ordinal']:.2f}", f"{e['mu']:.2f}", f"{e['sigma']:.2f}", str(e["games"]),
                        str(e["wins"]))
    return grid, ratings
