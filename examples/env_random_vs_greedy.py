"""A random agent and the greedy agent play through the PettingZoo environment (docs/env.md).

    python examples/env_random_vs_greedy.py [--ruleset simplified] [--games 2] [--seed 0]

The random agent picks any index the action mask allows; the greedy agent turns the mask back into
the allowed actions (``legal_actions()``) and scores each resulting state (ygo_onto.agents).
"""
import argparse
import random

import numpy as np

from ygo_onto.agents import greedy_agent
from ygo_onto.env import env


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--ruleset", default="simplified")
    parser.add_argument("--games", type=int, default=2)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args()

    duel_env = env(ruleset=args.ruleset)
    rng = random.Random(args.seed)
    totals = {"random": 0.0, "greedy": 0.0}
    for game in range(args.games):
        seats = {"A": "greedy", "B": "random"} if game % 2 == 0 else {"A": "random", "B": "greedy"}
        duel_env.reset(seed=args.seed + game)
        steps = 0
        for agent in duel_env.agent_iter():
            obs, reward, terminated, truncated, info = duel_env.last()
            totals[seats[agent]] += reward
            if terminated or truncated:
                duel_env.step(None)
                continue
            if seats[agent] == "random":
                action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            else:
                legal = duel_env.unwrapped.legal_actions()  # index -> allowed action
                state = duel_env.unwrapped.state_
                chosen = greedy_agent(state, list(legal.values()), rng)
                action = next(i for i, a in legal.items() if a == chosen)
            duel_env.step(action)
            steps += 1
        winner = duel_env.unwrapped.state_.winner
        print(f"game {game}: A={seats['A']} B={seats['B']} winner {winner} "
              f"({seats.get(winner, 'none')}) after {steps} actions")
    print("total rewards:", totals)


if __name__ == "__main__":
    main()
