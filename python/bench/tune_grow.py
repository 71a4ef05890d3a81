"""Tunes the grow scenario's heuristic family (gcb_env.bots.Investor) by grid search on training
seeds (never the held-out ones), against the no-op opponent; prints each member's mean return, best
last. The best member is what gcb_env.bots.TunedGrow fixes.

    python python/bench/tune_grow.py --seeds 10
"""

from __future__ import annotations

import argparse
import itertools
import json

import numpy as np

import gcb_env
from gcb_env import bots
from gcb_env.evaluate import play_episode
from gcb_env.versus import TRAINING_SEEDS

GRID = {"switch": (0.0, 0.2, 0.35, 0.5, 0.65, 0.8), "bless": (False, True), "bless_min": (4,), "poor": (0.0, 1.0, 2.0)}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--seeds", type=int, default=10, help="training seeds, from the first one up")
    parser.add_argument("--grid", type=json.loads, default=GRID, help='the values to try, as JSON: {"switch": [0, 0.1], ...}')
    args = parser.parse_args()
    seeds = [TRAINING_SEEDS[0] + n for n in range(args.seeds)]
    env = gcb_env.parallel_env(scenario="grow")
    layout = env.layout
    opponent = bots.make_bot("noop", layout)
    results = []
    try:
        for values in itertools.product(*args.grid.values()):
            params = dict(zip(args.grid, values))
            player = bots._member(bots.Investor, "candidate", **params)(layout)
            returns = [play_episode(env, seed, player, opponent)["return"] for seed in seeds]
            results.append((float(np.mean(returns)), params))
            print(json.dumps({"mean": results[-1][0], **params}), flush=True)
    finally:
        env.close()
    best = max(results, key=lambda r: r[0])
    print("best", json.dumps({"mean": best[0], **best[1]}))


if __name__ == "__main__":
    main()
