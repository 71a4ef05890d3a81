"""Tunes a scenario's heuristic family by grid search on training seeds (never the held-out ones):
grow's gcb_env.bots.Investor against the no-op, duel's gcb_env.bots.Warlord against every duel
opponent. Prints each member's mean return (over the seeds and the opponents), best last; the best
member is what the scenario's tuned bot (tuned_grow, tuned_duel) fixes.

    python python/bench/tune.py --scenario grow --seeds 10
    python python/bench/tune.py --scenario duel --seeds 6 --grid '{"target": ["weakest", "strongest"]}'
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

FAMILIES = {
    "grow": (
        bots.Investor,
        ("noop",),
        {"switch": (0.0, 0.2, 0.35, 0.5, 0.65, 0.8), "bless": (False, True), "bless_min": (4,), "poor": (0.0, 1.0, 2.0)},
    ),
    "duel": (
        bots.Warlord,
        ("random", "aggressor", "builder"),
        {"strike_from": (1.0, 0.6, 0.3), "target": ("weakest", "strongest"), "weapons": (["lightning", "plague"], ["plague", "lightning"]), "heal_min": (0,), "save": (0.0,)},
    ),
}


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=sorted(FAMILIES), default="grow")
    parser.add_argument("--seeds", type=int, default=10, help="training seeds, from the first one up")
    parser.add_argument("--grid", type=json.loads, default=None, help='the values to try, as JSON: {"switch": [0, 0.1], ...}; a name left out keeps the default grid\'s values')
    parser.add_argument("--opponents", default=None, help="comma-separated bots (default: the family's)")
    args = parser.parse_args()
    family, opponents, grid = FAMILIES[args.scenario]
    grid = {**grid, **(args.grid or {})}
    opponents = args.opponents.split(",") if args.opponents else opponents
    seeds = [TRAINING_SEEDS[0] + n for n in range(args.seeds)]
    env = gcb_env.parallel_env(scenario=args.scenario)
    layout = env.layout
    rivals = [bots.make_bot(name, layout) for name in opponents]
    results = []
    try:
        for values in itertools.product(*grid.values()):
            params = {name: tuple(v) if isinstance(v, list) else v for name, v in zip(grid, values)}
            player = bots._member(family, "candidate", **params)(layout)
            rows = [play_episode(env, seed, player, rival) for rival in rivals for seed in seeds]
            result = {"mean": float(np.mean([r["return"] for r in rows])), **params}
            if "win" in rows[0]:
                result["win_rate"] = float(np.mean([r["win"] for r in rows]))
            results.append(result)
            print(json.dumps(result), flush=True)
    finally:
        env.close()
    print("best", json.dumps(max(results, key=lambda r: r["mean"])))


if __name__ == "__main__":
    main()
