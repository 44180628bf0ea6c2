"""The agents' environment (src/ygo_onto/env.py, docs/env.md): PettingZoo's API test, masks equal to the
allowed actions, a whole random duel ending with +1/-1, the Gymnasium wrapper."""
import random

import numpy as np
import pytest

pytest.importorskip("pettingzoo")
pytest.importorskip("gymnasium")

from ygo_onto.duel import new_duel  # noqa: E402
from ygo_onto.env import (N_ACTIONS, action_index, action_layout, encode_action, encode_observation, env,  # noqa: E402
                          observation_layout, observation_size, single_agent_env)


def test_layouts_are_contiguous_and_fixed():
    at = 0
    for _, start, size in action_layout():
        assert start == at
        at += size
    assert at == N_ACTIONS == 5695
    for ruleset, size in (("official", 8817), ("simplified", 8817), ("goat", 8817)):
        at = 0
        for _, start, n in observation_layout(ruleset):
            assert start == at
            at += n
        assert at == observation_size(ruleset) == size


def test_pettingzoo_api_test():
    from pettingzoo.test import api_test

    api_test(env(ruleset="simplified", seed=3), num_cycles=150, verbose_progress=False)


def test_pettingzoo_seed_test():
    from pettingzoo.test import seed_test

    seed_test(lambda: env(ruleset="simplified"), num_cycles=40)


def _play_random(e, seed, limit=3000):
    rng = random.Random(seed)
    e.reset(seed=seed)
    rewards = {a: 0.0 for a in e.possible_agents}
    steps = 0
    for agent in e.agent_iter(limit):
        obs, reward, term, trunc, info = e.last()
        rewards[agent] += reward
        if term or trunc:
            e.step(None)
            continue
        raw = e.unwrapped
        allowed = raw.state_.allowed_actions()
        mask = obs["action_mask"]
        # the mask is exactly the allowed actions, one index each
        assert sorted(np.flatnonzero(mask).tolist()) == sorted(encode_action(a, agent) for a in allowed)
        assert len(allowed) == int(mask.sum())
        assert info["state"]["priority"] == agent
        assert obs["observation"].shape == (observation_size(raw.ruleset),)
        e.step(int(rng.choice(np.flatnonzero(mask))))
        steps += 1
    return rewards, steps, e.unwrapped.state_


def test_a_random_duel_ends_with_plus_minus_one():
    ruleset, seed = "simplified", 5  # an official random duel takes 10-20 s; test_playouts plays those
    e = env(ruleset=ruleset, seed=seed)
    rewards, steps, final = _play_random(e, seed)
    assert final.winner in ("A", "B"), f"the duel did not end in {steps} steps"
    loser = "B" if final.winner == "A" else "A"
    assert rewards == {final.winner: 1.0, loser: -1.0}
    assert steps > 10


def test_every_action_of_random_duels_has_its_own_index():
    for ruleset, seed in (("official", 2), ("simplified", 9)):
        state = new_duel(ruleset, seed)
        rng = random.Random(seed)
        for _ in range(60):
            actions = state.allowed_actions()
            if not actions:
                break
            me = state.data["priority"]
            index = action_index(actions, me)
            assert len(index) == len(actions) and all(0 <= i < N_ACTIONS for i in index)
            state = state.apply(rng.choice(actions))


def test_observation_hides_the_opponents_hand_and_face_down_cards():
    state = new_duel("official", 4).to_dict()
    me, opp = "A", "B"
    state["players"][opp]["spell_trap_zones"][0] = {"card": "Mirror Force", "position": "face_down"}
    a = encode_observation(state, me)
    other = {**state, "players": {**state["players"], opp: {**state["players"][opp]}}}
    other["players"][opp]["hand"] = list(reversed(state["players"][opp]["hand"]))
    other["players"][opp]["spell_trap_zones"] = [{"card": "Trap Hole", "position": "face_down"}, None, None, None, None]
    b = encode_observation(other, me)
    assert np.array_equal(a, b)  # same count, same face-down slot: the same observation
    assert not np.array_equal(encode_observation(state, opp), encode_observation(other, opp))  # the owner sees them


def test_illegal_action_is_refused():
    from ygo_onto.errors import IllegalActionError

    e = env(ruleset="simplified", seed=1)
    e.reset(seed=1)
    mask = e.observe(e.agent_selection)["action_mask"]
    with pytest.raises(IllegalActionError):
        e.step(int(np.flatnonzero(mask == 0)[0]))


def test_gymnasium_wrapper_plays_against_a_fixed_agent():
    from gymnasium.utils.env_checker import check_env

    g = single_agent_env(ruleset="simplified", opponent="aggressive", seat="B", seed=2)
    check_env(g, skip_render_check=True)
    obs, info = g.reset(seed=2)
    rng = random.Random(0)
    total, done, truncated, steps = 0.0, False, False, 0
    while not (done or truncated):
        assert info["state"]["priority"] == "B"
        legal = np.flatnonzero(info["action_mask"])
        assert np.array_equal(legal, np.flatnonzero(g.action_masks()))
        obs, reward, done, truncated, info = g.step(int(rng.choice(legal)))
        total += reward
        steps += 1
    assert done and total in (1.0, -1.0)
    assert info["state"]["winner"] == ("B" if total == 1.0 else "A")


def test_the_example_plays_random_against_greedy(capsys):
    import runpy
    import sys
    from pathlib import Path

    example = Path(__file__).resolve().parent.parent / "examples" / "env_random_vs_greedy.py"
    argv = sys.argv
    sys.argv = [str(example), "--games", "1", "--seed", "4"]
    try:
        runpy.run_path(str(example), run_name="__main__")
    finally:
        sys.argv = argv
    out = capsys.readouterr().out
    assert "game 0: A=greedy B=random winner" in out and "total rewards" in out


def test_player_view_gives_each_agent_its_view_alone():
    import json

    e = env(ruleset="official", seed=2, player_view=True)
    e.reset(seed=2)
    full = e.unwrapped.state_  # the full state stays there, for debugging
    for agent in ("A", "B"):
        info = e.infos[agent]
        assert "state" not in info and info["view"] == full.view(agent)
    opponent_hand = set(full.data["players"]["A"]["hand"]) - set(full.data["players"]["B"]["hand"])
    assert not any(json.dumps(n) in json.dumps(e.infos["B"]) for n in opponent_hand)
    g = single_agent_env(ruleset="simplified", seat="B", seed=1, player_view=True)
    _, info = g.reset(seed=1)
    assert "state" not in info and info["view"]["viewer"] == "B"
    assert info["view"] == g.aec.state_.view("B")
