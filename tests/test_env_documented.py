"""The env and self-play checked as an AI author would use them, from
docs/env.md and the README only.

- the action space is re-derived from docs/env.md's table (parsed from the page), independently of
  env.py, and checked one-to-one against ``GameState.allowed_actions()`` on many states of both rulesets
  (random duels and every scenario state);
- stepping an index gives the state ``GameState.apply`` gives for the matching action;
- the observation vector is decoded by its documentation (size, blocks, fields, ranges, hiding);
- ``info["state"]`` is a valid state; rewards, termination and truncation at the end, a draw included;
- the Gymnasium wrapper; self-play records, determinism, both rulesets, two workers.
"""
import json
import random
import re
from pathlib import Path

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from ygo_onto import GameState  # noqa: E402
from ygo_onto.cards import catalog  # noqa: E402
from ygo_onto.duel import new_duel  # noqa: E402
from ygo_onto.env import (N_ACTIONS, action_index, encode_observation, env, observation_size,  # noqa: E402
                          single_agent_env)

ROOT = Path(__file__).resolve().parent.parent
DOC = (ROOT / "docs" / "env.md").read_text(encoding="utf-8")
SCENARIOS = sorted((ROOT / "tests" / "scenarios").glob("*/*.json"))


# ---------------------------------------------------------------- the action space, as the page documents it
def _doc_table(header: str) -> list[list[str]]:
    """The rows of the markdown table that follows ``header`` in docs/env.md."""
    part = DOC.split(header, 1)[1]
    if header.startswith("|"):
        part = "\n" + header + part
    rows = []
    for line in part.splitlines()[1:]:
        if not line.startswith("|"):
            if rows:
                break
            continue
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if set(cells[0]) <= {"-"}:
            continue
        rows.append(cells)
    return rows[1:]  # without the header row


def _doc_action_space():
    slots, at = {}, 0
    for area, n, first in _doc_table("A card slot is a place"):
        assert int(first) == at, f"docs/env.md: slot table: {area} starts at {first}, expected {at}"
        slots[area] = (at, int(n))
        at += int(n)
    side = at
    blocks = {}
    for block, first, size, *_ in _doc_table("| block | first index | size |"):
        blocks[block.split(" ")[0].strip("`")] = (int(first), int(size))
    title = re.search(r"## Action space: `Discrete\((\d+)\)`", DOC)
    return slots, side, blocks, int(title.group(1))


SLOTS, SIDE, BLOCKS, DOC_N = _doc_action_space()
PHASES = ["draw", "standby", "main1", "battle", "main2", "end"]


def _slot(ref):
    first, n = SLOTS[ref["area"]]
    assert 0 <= ref["index"] < n
    return first + ref["index"]


def doc_index(d: dict, me: str) -> int:
    """An action's index computed from docs/env.md's tables alone."""
    kind = d["type"]
    if kind in ("pass", "cancel", "end_turn"):
        return BLOCKS[kind][0]
    if kind == "next_phase":
        return BLOCKS["next_phase:<phase>"][0] + PHASES.index(d["to"])
    if kind == "select":
        ref = d["ref"]
        return BLOCKS["select@<side>.<slot>"][0] + SIDE * (ref["player"] != me) + _slot(ref)
    if kind == "declare":
        first, size = BLOCKS["declare:level<n>"]
        assert 1 <= d["level"] <= size, d
        return first + d["level"] - 1
    assert d["from"]["player"] == me, d
    if kind == "attack":
        tgt = d["target_ref"]
        assert d["from"]["area"] == tgt["area"] == "monster_zones"
        return BLOCKS["attack@me.mz<i>><side>.mz<j>"][0] + 10 * d["from"]["index"] + 5 * (tgt["player"] != me) \
            + tgt["index"]
    choice = d.get("to")
    if kind == "activate" and d.get("effect", 0):
        assert 1 <= d["effect"] <= 3 and not choice, d
        choice = f"effect{d['effect']}"
    return BLOCKS[f"{kind}{':' + choice if choice else ''}@me.<slot>"][0] + _slot(d["from"])


def _block_of(i: int) -> str:
    return next(b for b, (first, size) in BLOCKS.items() if first <= i < first + size)


def test_the_documented_action_space_is_the_code_s():
    assert DOC_N == N_ACTIONS == max(first + size for first, size in BLOCKS.values())
    assert SIDE == 296
    e = env(ruleset="official", seed=0)
    assert e.action_space("A").n == e.action_space("B").n == DOC_N


def _check_mask(state: GameState, seen_blocks: set) -> dict:
    """The allowed actions of ``state`` one-to-one with the documented indices; returns index -> action."""
    actions = state.allowed_actions()
    me = state.data["priority"]
    documented = {}
    for a in actions:
        assert a.to_dict().get("player", me) == me, (a.id, me)  # the agent to act is the one whose actions they are
        i = doc_index(a.to_dict(), me)
        assert 0 <= i < DOC_N
        assert i not in documented, f"{a.id} and {documented[i].id} share index {i}"
        documented[i] = a
        seen_blocks.add(_block_of(i))
    index = action_index(actions, me)
    assert {i: a.id for i, a in index.items()} == {i: a.id for i, a in documented.items()}
    return documented


def test_every_scenario_state_has_a_one_to_one_mask():
    """Every scenario's state and the states its steps reach (chains, selections, Synchro, effect 1, ...)."""
    seen: set = set()
    checked = 0
    for path in SCENARIOS:
        sc = json.loads(path.read_text(encoding="utf-8"))
        try:
            state = GameState.from_dict(sc["state"])
        except Exception:  # noqa: BLE001 - scenarios of bad input
            continue
        for step in [None, *sc.get("steps", [])]:
            if step is not None:
                try:
                    state = state.apply(step if isinstance(step, str) else state.find_action(step))
                except Exception:  # noqa: BLE001 - a step the scenario expects refused
                    break
            if state.winner is not None:
                break
            _check_mask(state, seen)
            checked += 1
    assert checked > 600
    # every kind of action a scenario reaches has its documented place; the blocks no scenario reaches:
    never = set(BLOCKS) - seen
    # a card's second effect is chosen by an activate (Don Zaloog's second option: chooseEffect); no card has a choice
    # of three effects
    assert never == {f"activate:effect{k}@me.<slot>" for k in (2, 3)}, sorted(never)


def test_every_action_type_the_rules_can_infer_has_its_block():
    """The vocabulary's action types (the ``actionType`` annotations the rules' conclusions carry) each have a
    documented block: no allowed action can fall outside the action space."""
    from ygo_onto.knowledge import knowledge

    for ruleset in ("official", "simplified", "goat"):
        for cls, spec in knowledge(ruleset).vocabulary.annotated("actionType").items():
            kind, *pairs = spec.split()
            extra = dict(p.split("=", 1) for p in pairs)
            if kind in ("pass", "cancel", "end_turn"):
                assert kind in BLOCKS
            elif kind == "next_phase":
                assert "next_phase:<phase>" in BLOCKS
            elif kind == "select":
                assert "select@<side>.<slot>" in BLOCKS
            elif kind == "attack":
                assert "attack@me.mz<i>><side>.mz<j>" in BLOCKS
            elif kind == "declare":
                assert "declare:level<n>" in BLOCKS
            else:
                assert set(extra) <= {"to"}, (cls, spec)
                to = extra.get("to")
                assert f"{kind}{':' + to if to else ''}@me.<slot>" in BLOCKS, (cls, spec)


def _walk(ruleset: str, seed: int, steps: int):
    """A random duel through the env, checking at each decision: mask == allowed actions, step == apply,
    observation as documented, info["state"] a valid state."""
    e = env(ruleset=ruleset, seed=seed)
    e.reset(seed=seed)
    raw = e.unwrapped
    rng = random.Random(seed)
    seen: set = set()
    n = 0
    for agent in e.agent_iter(steps):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            e.step(None)
            continue
        state = raw.state_
        assert agent == state.data["priority"]
        documented = _check_mask(state, seen)
        assert sorted(np.flatnonzero(obs["action_mask"]).tolist()) == sorted(documented)
        assert obs["action_mask"].dtype == np.int8 and e.observation_space(agent).contains(obs)
        assert info["actions"] == {i: a.id for i, a in documented.items()}
        assert GameState.from_dict(info["state"]).to_dict() == state.to_dict() == info["state"]
        _check_observation(info["state"], agent, obs["observation"])
        other = "B" if agent == "A" else "A"
        assert not e.observe(other)["action_mask"].any()  # only the agent to act has a move
        i = rng.choice(sorted(documented))
        expected = state.apply(documented[i]).to_dict()
        e.step(i)
        assert raw.state_.to_dict() == expected
        n += 1
    return raw, n


@pytest.mark.parametrize("ruleset,seed,steps", [("simplified", 21, 400), ("official", 22, 150), ("goat", 23, 150)])
def test_random_duels_mask_step_observation_info(ruleset, seed, steps):
    raw, n = _walk(ruleset, seed, steps)
    assert n > 50


# ---------------------------------------------------------------- the observation, as the page documents it
KINDS = ("monster", "spell", "trap")
SUBTYPES = ("normal", "effect", "fusion", "ritual", "synchro", "continuous", "quick_play", "equip", "field", "counter")
ATTRIBUTES = ("DARK", "LIGHT", "EARTH", "WATER", "FIRE", "WIND", "DIVINE")
TYPES = ("Aqua", "Beast", "Beast-Warrior", "Dinosaur", "Dragon", "Fairy", "Fiend", "Fish", "Insect", "Machine", "Plant",
         "Pyro", "Reptile", "Rock", "Sea Serpent", "Spellcaster", "Thunder", "Warrior", "Winged Beast", "Zombie",
         "Divine-Beast", "Psychic")
ZONES = ("hand", "monster_zones", "spell_trap_zones", "field_zone", "graveyard", "banished", "extra_deck", "chain")
POSITIONS = ("attack", "defense", "face_down_defense", "face_up", "face_down")


def _doc_card_id(name: str) -> int:
    import hashlib

    return 1 + int.from_bytes(hashlib.sha256(name.encode("utf-8")).digest()[:8], "big") % (2 ** 20 - 1)


def _doc_slot(cat, name, zone, mine, owned_by_me, fc=None, hidden=False) -> np.ndarray:
    """A card slot of 72 features, built from docs/env.md's table."""
    v = []
    card = None if hidden else cat.get(name)

    def onehot(values, value):
        return [float(value == x) for x in values]

    v += [1.0, float(hidden)]
    v += [0.0] if hidden else [_doc_card_id(card.name) / 2 ** 20]
    v += [0.0] * 3 if hidden else onehot(KINDS, card.card_type)
    v += [0.0] * 10 if hidden else onehot(SUBTYPES, card.subtype)
    v += [0.0] if hidden else [float(card.tuner)]
    v += [0.0] * 7 if hidden else onehot(ATTRIBUTES, card.attribute)
    v += [0.0] * 22 if hidden else onehot(TYPES, card.monster_type)
    v += [0.0] * 3 if hidden else [(card.level or 0) / 12, (card.atk or 0) / 5000, (card.defense or 0) / 5000]
    v += onehot(POSITIONS, fc["position"]) if fc else [0.0] * 5
    v += onehot(ZONES, zone)
    v += [float(mine), float(owned_by_me)]
    if fc:
        v += [fc.get("summoned_this_turn", False), fc.get("position_changed_this_turn", False),
              fc.get("attacks_declared", 0) / 3, fc.get("set_this_turn", False), fc.get("equipped_to") is not None]
        v += [0.0] * 3 if hidden else [fc.get("atk_modifier", 0) / 5000, fc.get("def_modifier", 0) / 5000,
                                       sum((fc.get("counters") or {}).values()) / 10]
    else:
        v += [0.0] * 8
    assert len(v) == 72
    return np.clip(np.asarray(v, dtype=np.float32), -8, 8)


def _check_observation(state: dict, me: str, vec: np.ndarray) -> None:
    ruleset = state["ruleset"]
    cat = catalog(ruleset)
    assert vec.shape == (8817,) == (observation_size(ruleset),) and vec.dtype == np.float32
    assert np.all(vec >= -8) and np.all(vec <= 8)
    opp = "B" if me == "A" else "A"
    mine, theirs = state["players"][me], state["players"][opp]
    g = vec[:33]
    pending = state["pending"] or {}
    expected = [min(state["turn"] / 100, 1), state["turn_player"] == me, state["priority"] == me,
                state["first_player"] == me, *(state["phase"] == p for p in PHASES),
                mine["life_points"] / 8000, theirs["life_points"] / 8000, mine["normal_summon_used"],
                theirs["normal_summon_used"], len(state["chain"]) / 5, bool(state["pending"]),
                *(pending.get("purpose") == p for p in ("tribute", "target", "material", "cost", "discard")),
                pending.get("needed", 0) / 5, len(pending.get("chosen", [])) / 5,
                *(len(p[a]) / 40 for p in (mine, theirs) for a in ("deck", "hand", "graveyard", "banished",
                                                                   "extra_deck"))]
    assert np.allclose(g, np.clip(np.asarray(expected, dtype=np.float32), -8, 8), atol=1e-6), (g, expected)
    slots = []  # the expected card slots, in the documented order (None: empty)
    slots += [_doc_slot(cat, n, "hand", True, True) for n in mine["hand"][:20]] + [None] * (20 - len(mine["hand"][:20]))
    for side, holder, p in (("me", me, mine), ("opp", opp, theirs)):
        for area, cards in (("monster_zones", p["monster_zones"]), ("spell_trap_zones", p["spell_trap_zones"]),
                            ("field_zone", [p["field_zone"]])):
            for fc in cards:
                if not fc:
                    slots.append(None)
                    continue
                hidden = side == "opp" and fc["position"] in ("face_down", "face_down_defense")
                slots.append(_doc_slot(cat, fc["card"], area, holder == me, (fc.get("owner") or holder) == me, fc,
                                       hidden))
    for area, count, who, p in (("graveyard", 20, me, mine), ("graveyard", 20, opp, theirs),
                                ("banished", 10, me, mine), ("banished", 10, opp, theirs)):
        last = p[area][-count:]
        slots += [_doc_slot(cat, n, area, who == me, who == me) for n in last] + [None] * (count - len(last))
    first = mine["extra_deck"][:15]
    slots += [_doc_slot(cat, n, "extra_deck", True, True) for n in first] + [None] * (15 - len(first))
    links = state["chain"][:5]
    slots += [_doc_slot(cat, link["card"], "chain", link["player"] == me, link["player"] == me) for link in links]
    slots += [None] * (5 - len(links))
    assert 33 + 72 * len(slots) == len(vec)
    for i, want in enumerate(slots):
        got = vec[33 + 72 * i: 33 + 72 * (i + 1)]
        if want is None:
            assert not got.any(), i
        else:
            assert np.allclose(got, want, atol=1e-6), (i, got, want)


def test_the_observation_hides_what_the_observer_may_not_see():
    for ruleset, seed in (("official", 31), ("simplified", 32), ("goat", 33)):
        state = new_duel(ruleset, seed)
        rng = random.Random(seed)
        for _ in range(40):  # a few turns in, with cards set on the field
            actions = state.allowed_actions()
            if not actions or state.winner:
                break
            state = state.apply(rng.choice(actions))
        d = state.to_dict()
        names = [c.name for c in catalog(ruleset)]
        for me in ("A", "B"):
            opp = "B" if me == "A" else "A"
            other = json.loads(json.dumps(d))
            p = other["players"][opp]
            rng.shuffle(p["hand"])
            p["hand"] = [rng.choice(names) for _ in p["hand"]]
            for who in ("A", "B"):
                rng.shuffle(other["players"][who]["deck"])
            for fc in p["monster_zones"] + p["spell_trap_zones"] + [p["field_zone"]]:
                if fc and fc["position"] in ("face_down", "face_down_defense"):
                    fc["card"] = rng.choice(names)
            assert np.array_equal(encode_observation(d, me), encode_observation(other, me))


# ---------------------------------------------------------------- the end of a duel
DRAW = ROOT / "tests" / "scenarios" / "simplified" / "audit9-simpcards-card-destruction-both-decks-short-is-a-draw.json"


def _finish_from(state: dict, step_id: str, max_actions: int = 2000):
    e = env(ruleset=state["ruleset"], max_actions=max_actions)
    e.reset(seed=0, options={"state": state})
    last = {}
    for agent in e.agent_iter(50):
        obs, reward, term, trunc, info = e.last()
        last[agent] = (reward, term, trunc)
        if term or trunc:
            e.step(None)
            continue
        index = {a: i for i, a in info["actions"].items()}
        e.step(index[step_id])
    return e, last


def test_a_draw_ends_both_with_reward_zero():
    sc = json.loads(DRAW.read_text(encoding="utf-8"))
    e, last = _finish_from(sc["state"], sc["steps"][0])
    assert e.unwrapped.state_.winner == "draw"
    assert last == {"A": (0.0, True, False), "B": (0.0, True, False)}
    assert e.agents == []


def test_a_win_ends_with_plus_and_minus_one():
    state = json.loads((ROOT / "examples" / "puzzle-raigeki.json").read_text(encoding="utf-8"))
    state.pop("puzzle", None)
    gs = GameState.from_dict(state)
    # the quickest win: follow solve's line
    from ygo_onto.search import solve

    line = solve(gs).line
    e = env(ruleset=gs.ruleset)
    e.reset(seed=0, options={"state": state})
    rewards = {"A": 0.0, "B": 0.0}
    ends, played = {}, set()
    steps = 0
    for agent in e.agent_iter(200):
        obs, reward, term, trunc, info = e.last()
        rewards[agent] += reward
        if term or trunc:
            ends[agent] = (term, trunc)
            e.step(None)
            continue
        me = info["state"]["priority"]
        legal = e.unwrapped.legal_actions()
        ids = {a.id: i for i, a in legal.items()}
        want = [getattr(a, "id", a.get("id") if isinstance(a, dict) else a) for a in line]
        pick = next((ids[w] for w in want if w in ids and w not in played), next(iter(legal)))
        played.add(legal[pick].id)
        e.step(pick)
        steps += 1
        assert me == agent
    winner = e.unwrapped.state_.winner
    assert winner in ("A", "B")
    assert rewards[winner] == 1.0 and rewards["B" if winner == "A" else "A"] == -1.0
    assert ends == {"A": (True, False), "B": (True, False)}


def test_a_duel_cut_at_max_actions_is_truncated_with_reward_zero():
    e = env(ruleset="simplified", seed=3, max_actions=5)
    e.reset(seed=3)
    ends, steps = {}, 0
    for agent in e.agent_iter(100):
        obs, reward, term, trunc, info = e.last()
        if term or trunc:
            ends[agent] = (reward, term, trunc)
            e.step(None)
            continue
        e.step(int(np.flatnonzero(obs["action_mask"])[0]))
        steps += 1
    assert steps == 5 and ends == {"A": (0.0, False, True), "B": (0.0, False, True)}


def test_reset_from_a_state_checks_it():
    from ygo_onto.errors import YgoError

    e = env(ruleset="simplified")
    with pytest.raises(YgoError):
        e.reset(options={"state": {"ruleset": "simplified", "turn": "x"}})
    with pytest.raises(YgoError):  # a state of the other ruleset
        e.reset(options={"state": new_duel("official", 1).to_dict()})


# ---------------------------------------------------------------- Gymnasium
def test_gymnasium_seat_a_against_greedy_and_illegal_moves():
    g = single_agent_env(ruleset="simplified", opponent="greedy", seat="A", seed=5)
    obs, info = g.reset(seed=5)
    again, _ = single_agent_env(ruleset="simplified", opponent="greedy", seat="A").reset(seed=5)
    assert np.array_equal(obs, again)  # the same seed, the same start
    illegal = int(np.flatnonzero(info["action_mask"] == 0)[0])
    o2, r, term, trunc, info2 = g.step(illegal)
    assert (r, term, trunc, info2["illegal_action"]) == (-1.0, True, False, illegal)
    raising = single_agent_env(ruleset="simplified", opponent="greedy", seat="A", seed=5, illegal="raise")
    raising.reset(seed=5)
    from ygo_onto.errors import IllegalActionError

    with pytest.raises(IllegalActionError):
        raising.step(illegal)
    obs, info = g.reset(seed=5)
    rng = random.Random(1)
    rewards, done, trunc, steps = [], False, False, 0
    while not (done or trunc):
        assert g.observation_space.contains(obs) and info["state"]["priority"] == "A"
        obs, reward, done, trunc, info = g.step(int(rng.choice(np.flatnonzero(info["action_mask"]))))
        rewards.append(reward)
        steps += 1
    assert done and rewards[-1] in (1.0, -1.0) and not any(rewards[:-1])
    assert info["state"]["winner"] == ("A" if rewards[-1] == 1.0 else "B")


# ---------------------------------------------------------------- self-play from the command line
def _selfplay(tmp_path, name, *args):
    from typer.testing import CliRunner

    from ygo_onto.cli import app

    out = tmp_path / name
    result = CliRunner().invoke(app, ["selfplay", *args, "--out", str(out), "--no-progress"])
    assert result.exit_code == 0, result.output
    return [json.loads(line) for line in out.read_text().splitlines()], result.output


@pytest.mark.parametrize("ruleset,agents", [("simplified", "random,aggressive"), ("official", "aggressive,random")])
def test_selfplay_records_are_reproducible_and_replayable(tmp_path, ruleset, agents):
    from ygo_onto.duel import play_duel

    args = ["--games", "2", "--agents", agents, "--ruleset", ruleset, "--workers", "2", "--seed", "5"]
    one, text = _selfplay(tmp_path, "one.jsonl", *args)
    two, _ = _selfplay(tmp_path, "two.jsonl", *args)
    strip = [{k: v for k, v in r.items() if k != "seconds"} for r in one]
    assert strip == [{k: v for k, v in r.items() if k != "seconds"} for r in two]
    for r in one:
        assert {"seed", "agents", "first_player", "winner", "turns", "actions", "seconds"} <= set(r)
        assert "error" not in r and r["seconds"] > 0
        # the record is the duel its seed plays
        state = new_duel(ruleset, r["seed"])
        assert r["first_player"] == state.data["first_player"]
        seats = (r["agents"]["A"], r["agents"]["B"])
        n = 0
        for _, _, state in play_duel(state, seats, r["seed"]):
            n += 1
        assert (n, state.winner, state.data["turn"]) == (r["actions"], r["winner"], r["turns"])
    assert sorted(r["agents"]["A"] for r in one) == sorted(agents.split(","))  # seats swapped
    for word in ("win rate", "95% CI", "going first", "going second", "first player", "actions per second"):
        assert word in text


def _play_or_die(job):
    """Game 1 ends its process, as the OOM killer or a signal would."""
    import os

    from ygo_onto import selfplay

    if job.game == 1:
        os._exit(3)
    return selfplay.ORIGINAL_PLAY_JOB(job)


def test_a_duel_that_kills_its_worker_process_is_recorded_and_the_batch_goes_on(monkeypatch):
    """A duel that ends its process broke the process pool and the whole batch raised BrokenProcessPool;
    now it is a record with its seed and the other duels go on."""
    from ygo_onto import selfplay

    monkeypatch.setattr(selfplay, "ORIGINAL_PLAY_JOB", selfplay.play_job, raising=False)
    monkeypatch.setattr(selfplay, "play_job", _play_or_die)
    batch = selfplay.run_batch(3, ("aggressive", "random"), "simplified", workers=2, seed=4)
    by_game = {r["game"]: r for r in batch.records}
    assert sorted(by_game) == [0, 1, 2]
    assert by_game[1]["error"].startswith("WorkerDied") and by_game[1]["seed"] == selfplay.game_seed(4, 1)
    assert by_game[0]["winner"] in ("A", "B", "draw") and by_game[2]["winner"] in ("A", "B", "draw")
    assert batch.summary()["errors"] == 1


def test_gymnasium_opponent_may_be_an_agent_function():
    from ygo_onto.env import encode_action

    calls = []

    def lowest_index(state, actions, rng):  # a policy of one's own, over the action space
        me = state.data["priority"]
        calls.append(me)
        return min(actions, key=lambda a: encode_action(a, me))

    g = single_agent_env(ruleset="simplified", opponent=lowest_index, seat="B", seed=6)
    obs, info = g.reset(seed=6)
    for _ in range(30):
        obs, reward, done, trunc, info = g.step(int(np.flatnonzero(info["action_mask"])[-1]))
        if done or trunc:
            break
    assert calls and set(calls) == {"A"}
    with pytest.raises(Exception, match="agent function"):
        single_agent_env(opponent="nobody")


def test_a_state_without_winner_or_allowed_action_is_a_truncation_not_a_draw(monkeypatch):
    e = env(ruleset="simplified", seed=1)
    monkeypatch.setattr(GameState, "allowed_actions", lambda self, reasoner="fast": [])
    e.reset(seed=1)
    obs, reward, term, trunc, info = e.last()
    assert (reward, term, trunc, info["no_allowed_action"]) == (0.0, False, True, True)
    assert not obs["action_mask"].any()
