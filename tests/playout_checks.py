"""Invariants of a duel state and of a played duel (OpenSpiel / PettingZoo conformance habits),
for tests/test_playouts.py.  Plain functions of a state dict, so they run in worker processes.

Every check returns a list of problems (strings); empty means the invariant holds.
"""
from __future__ import annotations

import hashlib
import json
import tempfile
import time
import traceback
from collections import Counter
from pathlib import Path

from ygo_onto import GameState
from ygo_onto.cards import catalog
from ygo_onto.duel import new_duel, play_duel, replay_log, write_log
from ygo_onto.errors import IllegalActionError, YgoError
from ygo_onto.state import LIST_AREAS, PLAYERS, ZONE_AREAS

MONSTER_AREAS = ("monster_zones",)
FIELD_CARD_AREAS = ZONE_AREAS + ("field_zone",)


def cards_by_owner(data: dict) -> dict[str, Counter]:
    """Every card of the duel, counted by owner: a card in a list area belongs to that side (cards
    go to their owner's deck, hand, graveyard...); a card on the field carries its owner.  Cards
    on the chain are on the field (a Spell or Trap resolving stays in its zone), so they are not
    counted again. A token is not a card (state-format.md "Tokens"): it comes and goes, uncounted."""
    cat = catalog(data["ruleset"])
    out = {p: Counter() for p in PLAYERS}
    for p in PLAYERS:
        side = data["players"][p]
        for area in LIST_AREAS:
            out[p].update(side[area])
        for area in ZONE_AREAS:
            for fc in side[area]:
                if fc is not None and not cat.get(fc["card"]).is_token:
                    out[fc["owner"]][fc["card"]] += 1
        if side["field_zone"] is not None:
            out[side["field_zone"]["owner"]][side["field_zone"]["card"]] += 1
    return out


def state_problems(data: dict, start_cards: dict[str, Counter] | None = None) -> list[str]:
    """The invariants of one reached state."""
    problems = []
    try:
        again = GameState.from_dict(json.loads(json.dumps(data))).to_dict()
        if again != data:
            problems.append("the state is not plain JSON or not normal: GameState.from_dict(json(state)) differs")
    except YgoError as exc:
        problems.append(f"the state does not load back: {exc}")
    for p in PLAYERS:
        side = data["players"][p]
        lp = side["life_points"]
        if not isinstance(lp, int) or isinstance(lp, bool) or lp < 0:
            problems.append(f"players.{p}.life_points: expected an int >= 0, got {lp!r}")
        for area in ZONE_AREAS:
            if not isinstance(side[area], list) or len(side[area]) != 5:
                problems.append(f"players.{p}.{area}: expected 5 entries, got {side[area]!r}")
    for i, link in enumerate(data["chain"]):
        zone = link.get("zone")
        if zone is None:
            continue
        side = data["players"][link["player"]]
        entry = side["field_zone"] if zone["area"] == "field_zone" else side[zone["area"]][zone["index"]] \
            if zone["index"] < len(side[zone["area"]]) else None
        # a link's card may be in a list area (the Graveyard: a card that paid its own cost, a Graveyard effect),
        # where a card is its name
        name = entry["card"] if isinstance(entry, dict) else entry
        if name != link["card"]:
            problems.append(f"chain[{i}]: {link['card']} should be in {link['player']}'s {zone['area']}"
                            f"[{zone['index']}], found {name!r}")
    if start_cards is not None:
        now = cards_by_owner(data)
        for p in PLAYERS:
            if now[p] != start_cards[p]:
                lost, new = start_cards[p] - now[p], now[p] - start_cards[p]
                problems.append(f"{p}'s cards are not conserved: lost {dict(lost)}, appeared {dict(new)}")
    return problems


def digest(data: dict) -> str:
    return hashlib.sha1(json.dumps(data, sort_keys=True).encode()).hexdigest()


def play_checked(ruleset: str, seed: int, agents: tuple[str, str], max_actions: int, reasoner: str = "fast",
                 check_log: bool = False, decks: tuple | None = None) -> dict:
    """Play one duel, checking every reached state; with check_log, also write its log and
    replay it.  `decks`: A's and B's decks.Deck (default: the ruleset's).  Returns {'problems',
    'actions', 'winner', 'digests', 'seconds'}."""
    t0 = time.perf_counter()
    problems: list[str] = []
    digests: list[str] = []
    where = f"{ruleset} seed {seed} {'/'.join(agents)}" + (f" {decks[0].name}/{decks[1].name}" if decks else "")
    start = new_duel(ruleset, seed, reasoner, decks)
    start_cards = cards_by_owner(start.data)
    problems += [f"start: {p}" for p in state_problems(start.data)]
    digests.append(digest(start.data))
    steps = []
    last = start
    previous_allowed: list = []
    try:
        for before, action, after in play_duel(start, agents, seed=seed, reasoner=reasoner, max_actions=max_actions):
            n = len(steps) + 1
            allowed = before.allowed_actions(reasoner)
            stale = [a for a in previous_allowed if a not in allowed]
            if stale:  # an action that was allowed a step ago but is not now must be refused
                try:
                    before.apply(stale[0], reasoner)
                    problems.append(f"before action {n}: {stale[0].id} is not allowed, yet apply accepted it")
                except IllegalActionError:
                    pass
            previous_allowed = allowed
            if action not in allowed:
                problems.append(f"action {n} {action.id}: applied but not in the allowed list {[a.id for a in allowed]}")
            if before.winner is not None:
                problems.append(f"action {n} {action.id}: applied after the duel was won by {before.winner}")
            problems += [f"after action {n} {action.id}: {p}" for p in state_problems(after.data, start_cards)]
            digests.append(digest(after.data))
            steps.append((before, action, after))
            last = after
            if len(problems) > 20:
                break
    except Exception as exc:  # noqa: BLE001 - an engine error is a finding, reported with its place
        tb = traceback.format_exception(type(exc), exc, exc.__traceback__)
        problems.append(f"after {len(steps)} actions ({steps[-1][1].id if steps else 'start'}): engine error "
                        f"{type(exc).__name__}: {exc}\n" + "".join(tb[-4:]))
        return {"where": where, "problems": problems, "actions": len(steps), "winner": last.winner,
                "digests": digests, "seconds": time.perf_counter() - t0, "crashed": True}
    final_actions = last.allowed_actions(reasoner)
    if last.winner is not None and final_actions:
        problems.append(f"the duel is won by {last.winner} yet actions are allowed: {[a.id for a in final_actions[:5]]}")
    if last.winner is None and not final_actions:
        problems.append("no winner and no allowed action: the duel is stuck")
    if check_log and steps:
        with tempfile.TemporaryDirectory() as tmp:
            path = Path(tmp) / "duel.jsonl"
            write_log(path, start, steps, {"ruleset": ruleset, "seed": seed, "agents": list(agents)})
            replayed = list(replay_log(path, reasoner))
            if len(replayed) != len(steps):
                problems.append(f"the log replays {len(replayed)} actions, not {len(steps)}")
            bad = [i for i, _, _, same in replayed if not same]
            if bad:
                problems.append(f"the log's replay differs from the logged state at lines {bad[:10]}")
            if [digest(s.data) for _, s, _, _ in replayed] != digests[1:]:
                problems.append("the log's replay does not reach the played states")
    return {"where": where, "problems": problems, "actions": len(steps), "winner": last.winner,
            "digests": digests, "seconds": time.perf_counter() - t0, "crashed": False}


def replay_digests(ruleset: str, seed: int, agents: tuple[str, str], max_actions: int, reasoner: str = "fast",
                   decks: tuple | None = None) -> list[str]:
    """The states of the duel played again from its seed (for the determinism check)."""
    start = new_duel(ruleset, seed, reasoner, decks)
    out = [digest(start.data)]
    try:
        for _, _, after in play_duel(start, agents, seed=seed, reasoner=reasoner, max_actions=max_actions):
            out.append(digest(after.data))
    except Exception:  # noqa: BLE001 - reported by play_checked
        pass
    return out
