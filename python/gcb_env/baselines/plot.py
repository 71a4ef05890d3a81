"""The learning curve of one or more PPO runs as a PNG: return by env steps, the training episodes'
(thin) and the validation seeds' (thick), one colour per run, with the references (bots' mean
returns on the same validation seeds) as dashed lines, and the steps spent imitating a bot shaded.

    python -m gcb_env.baselines.plot ppo-1.csv ppo-2.csv --reference round_robin=227.2 --out docs/learning-curve.png
"""

from __future__ import annotations

import argparse
import csv
from pathlib import Path
from typing import Optional, Sequence


SMOOTH = 20


def read_curve(path: Path) -> dict[str, list[float]]:
    steps, train, eval_steps, evals = [], [], [], []
    imitated = 0.0
    with open(path, newline="") as f:
        for row in csv.DictReader(f):
            if row.get("phase") == "imitate":
                imitated = float(row["steps"])
            if row["train_return"] != "":
                steps.append(float(row["steps"]))
                train.append(float(row["train_return"]))
            if row["eval_return"] != "":
                eval_steps.append(float(row["steps"]))
                evals.append(float(row["eval_return"]))
    return {"steps": steps, "train": train, "eval_steps": eval_steps, "eval": evals, "imitated": imitated}


def plot(curves: Sequence[Path], references: dict[str, float], out: Path, title: str) -> Path:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(figsize=(8, 5.5), dpi=100)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for n, path in enumerate(curves):
        curve = read_curve(path)
        colour = colours[n % len(colours)]
        if curve["imitated"] and n == 0:
            axes.axvspan(0, curve["imitated"], color="0.85", alpha=0.5, linewidth=0, label="imitating the tuned bot")
        # One update's few episodes are noise: the mean of the last SMOOTH updates' shows the trend.
        smooth = [sum(curve["train"][max(0, i - SMOOTH + 1) : i + 1]) / len(curve["train"][max(0, i - SMOOTH + 1) : i + 1]) for i in range(len(curve["train"]))]
        axes.plot(curve["steps"], smooth, color=colour, alpha=0.45, linewidth=1, label=f"{path.stem}: training episodes (mean of {SMOOTH} updates)")
        axes.plot(curve["eval_steps"], curve["eval"], color=colour, linewidth=2.2, marker="o", markersize=3, label=f"{path.stem}: validation seeds (greedy)")
    for n, (name, value) in enumerate(sorted(references.items(), key=lambda item: -item[1])):
        axes.axhline(value, color="0.3", linestyle="--", linewidth=1)
        axes.annotate(f"{name} {value:.1f}", xy=(0, value), xytext=(4, 3), textcoords="offset points", fontsize=8, color="0.3")
    axes.set_xlabel("env steps (cycles of kingdom_0)")
    axes.set_ylabel("return")
    axes.set_title(title)
    # Below the axes: inside, it hid the dips it is there to explain.
    axes.legend(fontsize=8, loc="upper center", bbox_to_anchor=(0.5, -0.13), ncol=2, frameon=False)
    axes.grid(alpha=0.3)
    figure.tight_layout()
    figure.savefig(out)
    plt.close(figure)
    return out


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gcb_env.baselines.plot", description=__doc__.split("\n\n")[0])
    parser.add_argument("curves", nargs="+", type=Path, help="the .csv files ppo writes beside its policy")
    parser.add_argument("--reference", action="append", default=[], help="NAME=RETURN, a dashed line (repeat)")
    parser.add_argument("--title", default="PPO learning curve")
    parser.add_argument("--out", type=Path, default=Path("learning-curve.png"))
    args = parser.parse_args(argv)
    references = {}
    for item in args.reference:
        name, _, value = item.partition("=")
        references[name] = float(value)
    print(plot(args.curves, references, args.out, args.title))


if __name__ == "__main__":
    main()
