"""A published baseline, trained and measured as docs/scenarios.md reports it: PPO by the scenario's
recipe (gcb_env.baselines.ppo.RECIPES) within its time budget, then its best policy on validation
and its last policy on the held-out seeds, against the scenario's fixed opponents, each paired by
seed with the scenario's tuned bot. Prints one JSON object: what `npm run bench -- --only learn`
reads. Needs the [train] extra (torch).

    python python/bench/learn.py --scenario grow --seed 1 --out-dir /tmp/learn
"""

from __future__ import annotations

import argparse
import json
import os
from pathlib import Path

from gcb_env.baselines.ppo import RECIPES, Args, train
from gcb_env.evaluate import SCENARIOS, evaluate

# grow's two kingdoms never meet, so its opponent changes nothing but the world's shared randomness:
# the no-op, as its reference table. duel: every fixed opponent.
OPPONENTS = {"grow": ("noop",), "duel": None}


def headline(report: dict) -> dict:
    """The figures the benchmark prints: all opponents at once when there are several."""
    figures = report["overall"] or report["results"][0]
    out = {key: figures[key] for key in ("policy", "baseline", "difference")}
    for key in ("win_rate", "baseline_win_rate"):
        if key in figures:
            out[key] = figures[key]["mean"] if isinstance(figures[key], dict) else figures[key]
    out["per_opponent"] = {r["opponent"]: {"policy": r["policy"]["mean"], "baseline": r["baseline"]["mean"], "difference": r["difference"]} for r in report["results"]}
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", choices=sorted(RECIPES), default="grow")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--minutes", type=float, default=None, help="the training's budget (default: the recipe's)")
    parser.add_argument("--out-dir", default="learn-run")
    parser.add_argument("--workers", type=int, default=2, help="evaluation processes, each with its own bridge")
    options = parser.parse_args()
    out_dir = Path(options.out_dir)
    out_dir.mkdir(parents=True, exist_ok=True)
    recipe = dict(RECIPES[options.scenario])
    if options.minutes is not None:
        recipe["minutes"] = options.minutes
    out = out_dir / f"ppo-{options.scenario}-seed{options.seed}.npz"
    trained = train(Args(**recipe, seed=options.seed, out=str(out)))
    result = {
        "scenario": options.scenario,
        "seed": options.seed,
        "recipe": recipe,
        "steps": trained["steps"],
        "seconds": round(trained["seconds"], 1),
        "best_validation": trained["best_eval_return"],
        "cpus": os.cpu_count(),
        "load1": os.getloadavg()[0],
        "policies": {},
    }
    opponents = OPPONENTS[options.scenario] or SCENARIOS[options.scenario].opponents
    for which, path in (("best", trained["best"]), ("last", trained["out"])):
        if path is None:
            continue
        # The tuned bot a recipe imitates first is the one it is measured against.
        report = evaluate(options.scenario, path, opponents, baseline=recipe["teacher"], workers=options.workers)
        Path(path).with_suffix(".eval.json").write_text(json.dumps(report, indent=1))
        result["policies"][which] = {"file": path, **headline(report)}
    print(json.dumps(result))


if __name__ == "__main__":
    main()
