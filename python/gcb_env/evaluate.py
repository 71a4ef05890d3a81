"""The evaluation protocol: a policy plays kingdom_0 of a named scenario on fixed held-out seeds
against each fixed opponent (kingdom_1), and the mean return comes with its 95% interval (duel: and
the win rate, with Wilson's interval).

    python -m gcb_env.evaluate --scenario default --policy bot:round_robin
    python -m gcb_env.evaluate --scenario default --policy ppo-default.npz --baseline bot:round_robin --json out.json

`--policy` (and `--baseline`) name a player:
- `bot:NAME` (or NAME alone): a bot of gcb_env.bots (noop, random; default: first_spawn, round_robin;
  grow: greedy_child, investor, tuned_grow; duel: aggressor, builder, tuned_duel);
- a file: a trained policy, read by gcb_env.policy.load_policy;
- `MODULE:ATTR`: an importable callable `policy(observation, action_mask) -> action`, or a class
  whose instances are one (a gcb_env.bots.Bot subclass gets the env's Layout).
A player with a `reset(seed)` method is reset at the start of each episode. Every episode depends on
its seed alone: the world is made from it, and the players' generators are seeded from it.

`--baseline` plays the same seeds against the same opponents, and the report adds the paired
difference policy − baseline, per seed, with its 95% interval: when that interval excludes 0, the
policy is better (or worse) than the baseline on these seeds beyond their noise. With several
opponents the report ends with all of them at once: each seed's mean over the opponents, paired by
seed (a seed's episodes share its world, so the seeds are the samples).

The held-out seeds are HELD_OUT (10,000 to 10,049) unless `--seeds` says otherwise; training
(gcb_env.baselines.ppo) never makes a world from them. The report is printed and, with `--json`,
written as JSON: the same figures and every episode's return, the opponent's, and the world hash at
its end.
"""

from __future__ import annotations

import argparse
import importlib
import inspect
import json
import multiprocessing
import sys
import time
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Callable, Mapping, Optional, Sequence

import numpy as np

from . import bots as bots_module
from ._scenarios import SCENARIO_SPECS, scenario_spec
from ._spaces import Layout
from ._stats import mean_interval, wilson_interval

__all__ = ["Scenario", "SCENARIOS", "HELD_OUT", "FIXED_OPPONENTS", "load_player", "reset_player", "play_episode", "evaluate", "main"]

HELD_OUT: tuple[int, ...] = tuple(range(10_000, 10_050))
FIXED_OPPONENTS: tuple[str, ...] = ("noop", "random", "first_spawn", "round_robin")
PLAYER, OPPONENT = "kingdom_0", "kingdom_1"
LEVEL = 0.95


@dataclass(frozen=True)
class Scenario:
    """A named task: the env's arguments, what is reported and what it means."""

    name: str
    description: str
    env: Mapping[str, Any] = field(default_factory=dict)
    metric: str = "return"

    def layout(self, options: Mapping[str, Any]) -> Layout:
        merged = {**self.env, **options}
        spec = scenario_spec(merged.get("scenario", "default"))
        grid = merged.get("grid") or spec.grid
        return Layout(int(grid), int(merged.get("anchors", 4)), spec.actions, spec.economy, spec.rivals)

    @property
    def opponents(self) -> tuple[str, ...]:
        """Its fixed opponents: the bots that play it."""
        return bots_module.SCENARIO_BOTS[self.name]


SCENARIOS: dict[str, Scenario] = {
    "default": Scenario(
        name="default",
        description=(
            "the env's own task: two kingdoms, 10 ticks a cycle, 200 cycles; the reward is the change of "
            "population + 10 x cities. Spawns are free, so it is a bandit with one dominant arm: kept as the "
            "reference the scenarios with tension are measured beside"
        ),
        env={"n_agents": 2, "ticks_per_cycle": 10, "max_cycles": 200},
    ),
    **{
        name: Scenario(name=name, description=SCENARIO_SPECS[name].description, env={"scenario": name}, metric="win rate" if SCENARIO_SPECS[name].zero_sum else "return")
        for name in ("grow", "duel")
    },
}

Player = Callable[[np.ndarray, np.ndarray], int]


def load_player(spec: str, layout: Layout) -> Player:
    """The player a spec names (see the module's docstring)."""
    name = spec[4:] if spec.startswith("bot:") else spec
    if name in bots_module.BOTS:
        return bots_module.make_bot(name, layout)
    if spec.startswith("bot:"):
        raise ValueError(f"no bot named {name!r}; the bots are {sorted(bots_module.BOTS)}")
    path = Path(spec)
    if path.is_file():
        from .policy import load_policy

        return load_policy(path)
    module_name, _, attr = spec.partition(":")
    if not attr:
        raise ValueError(f"--policy {spec!r} is neither a bot (bot:NAME), a policy file nor MODULE:ATTR")
    try:
        target = getattr(importlib.import_module(module_name), attr)
    except (ImportError, AttributeError) as err:
        raise ValueError(f"--policy {spec!r}: {err}") from None
    if inspect.isclass(target):
        return target(layout) if issubclass(target, bots_module.Bot) else target()
    if not callable(target):
        raise ValueError(f"--policy {spec!r} is not callable: a policy is callable(observation, action_mask) -> action")
    return target


def reset_player(player: Player, seed: int) -> None:
    """Starts a player's episode: its reset(seed), when it has one."""
    reset = getattr(player, "reset", None)
    if callable(reset):
        reset(seed)


def play_episode(env: Any, seed: int, player: Player, opponent: Player) -> dict[str, Any]:
    """One episode of a Parallel env from world seed `seed`: `player` plays kingdom_0, `opponent`
    kingdom_1. The players' generators are seeded from the world seed, each its own way."""
    observations, _ = env.reset(seed=seed)
    reset_player(player, 2 * seed)
    reset_player(opponent, 2 * seed + 1)
    players = {PLAYER: player, OPPONENT: opponent}
    returns = dict.fromkeys(players, 0.0)
    cycles = 0
    while env.agents:
        actions = {agent: int(players[agent](observations[agent]["observation"], observations[agent]["action_mask"])) for agent in env.agents}
        observations, rewards, terminations, _, _ = env.step(actions)
        for agent, reward in rewards.items():
            returns[agent] += float(reward)
        cycles += 1
        if terminations.get(PLAYER):
            break
    row = {
        "seed": seed,
        "return": returns[PLAYER],
        "opponent_return": returns[OPPONENT],
        "cycles": cycles,
        "hash": env.world_hash(),
    }
    scenario = getattr(env.unwrapped, "scenario", None)
    if scenario is not None and scenario.zero_sum:
        # A win: the rival fell, or the higher score at the end (population + 10 x cities); a tie is half.
        standing = env.unwrapped._standing(env.possible_agents[-1])[0]
        row["win"] = 1.0 if standing > 0 else 0.5 if standing == 0 else 0.0
    return row


def _play_seeds(scenario_name: str, specs: Sequence[str], opponents: Sequence[str], seeds: Sequence[int], options: Mapping[str, Any]) -> list[dict]:
    """Every (seed, opponent, player spec) on one env: a worker's share of an evaluation."""
    import gcb_env

    scenario = SCENARIOS[scenario_name]
    layout = scenario.layout(options)
    env = gcb_env.parallel_env(**{**scenario.env, **options})
    try:
        rows = []
        for opponent_name in opponents:
            opponent = bots_module.make_bot(opponent_name, layout)
            for spec in specs:
                player = load_player(spec, layout)
                for seed in seeds:
                    rows.append({"opponent": opponent_name, "player": spec, **play_episode(env, seed, player, opponent)})
        return rows
    finally:
        env.close()


def _summary(values: Sequence[float]) -> dict:
    figures = mean_interval(values, LEVEL)
    return {"n": figures["n"], "mean": figures["mean"], "std": figures["std"], "ci95": figures["ci"]}


def evaluate(
    scenario: str,
    policy: str,
    opponents: Optional[Sequence[str]] = None,
    seeds: Sequence[int] = HELD_OUT,
    baseline: Optional[str] = None,
    workers: int = 1,
    env_options: Optional[Mapping[str, Any]] = None,
) -> dict[str, Any]:
    """The report as a dict (what --json writes). `env_options` go to the env beside the scenario's
    (url and tokens for a running bridge, a shorter max_cycles for a quick look)."""
    if scenario not in SCENARIOS:
        raise ValueError(f"no scenario named {scenario!r}; the scenarios are {sorted(SCENARIOS)}")
    # None: the scenario's fixed opponents.
    opponents = SCENARIOS[scenario].opponents if opponents is None else opponents
    for name in opponents:
        if name not in bots_module.BOTS:
            raise ValueError(f"no opponent named {name!r}; the fixed opponents are {sorted(bots_module.BOTS)}")
    seeds = [int(s) for s in seeds]
    if len(set(seeds)) != len(seeds) or not seeds:
        raise ValueError("seeds must be distinct, and at least one")
    options = dict(env_options or {})
    if workers > 1 and "url" in options:
        # Each worker's env makes its worlds with generate_world: on one bridge they would overwrite each other's.
        raise ValueError("workers > 1 needs an env per worker, each with its own bridge: leave out url and tokens")
    specs = [policy] + ([baseline] if baseline is not None else [])
    layout = SCENARIOS[scenario].layout(options)
    for spec in specs:
        load_player(spec, layout)  # a bad spec fails here, before any bridge starts
    started = time.perf_counter()
    workers = max(1, min(workers, len(seeds)))
    if workers == 1:
        rows = _play_seeds(scenario, specs, opponents, seeds, options)
    else:
        shares = [seeds[n::workers] for n in range(workers)]
        with ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn")) as pool:
            jobs = [pool.submit(_play_seeds, scenario, specs, opponents, share, options) for share in shares]
            rows = [row for job in jobs for row in job.result()]
    by_key = {(row["opponent"], row["player"], row["seed"]): row for row in rows}
    results = []
    for opponent in opponents:
        episodes = []
        for seed in seeds:
            row = by_key[(opponent, policy, seed)]
            episode = {key: row[key] for key in ("seed", "return", "opponent_return", "cycles", "hash", "win") if key in row}
            if baseline is not None:
                other = by_key[(opponent, baseline, seed)]
                episode["baseline_return"] = other["return"]
                episode["baseline_hash"] = other["hash"]
                if "win" in other:
                    episode["baseline_win"] = other["win"]
            episodes.append(episode)
        result: dict[str, Any] = {"opponent": opponent, "policy": _summary([e["return"] for e in episodes])}
        result["opponent_return"] = _summary([e["opponent_return"] for e in episodes])
        if baseline is not None:
            result["baseline"] = _summary([e["baseline_return"] for e in episodes])
            result["difference"] = _summary([e["return"] - e["baseline_return"] for e in episodes])
        if episodes and "win" in episodes[0]:
            result["win_rate"] = _rate([e["win"] for e in episodes])
            if baseline is not None:
                result["baseline_win_rate"] = _rate([e["baseline_win"] for e in episodes])
        result["episodes"] = episodes
        results.append(result)
    definition = SCENARIOS[scenario]
    overall = _overall(results, baseline is not None) if len(results) > 1 else None
    return {
        "scenario": scenario,
        "description": definition.description,
        "env": {**definition.env, **{k: v for k, v in options.items() if k not in ("url", "tokens")}},
        "metric": definition.metric,
        "level": LEVEL,
        "policy": policy,
        "baseline": baseline,
        "player": PLAYER,
        "seeds": seeds,
        "held_out": seeds == list(HELD_OUT),
        "seconds": time.perf_counter() - started,
        "results": results,
        "overall": overall,
    }


def _overall(results: Sequence[Mapping[str, Any]], paired: bool) -> dict[str, Any]:
    """All the opponents at once: each seed's mean over the opponents, then the interval over the
    seeds (a seed's episodes share its world, so the seeds, not the episodes, are the samples)."""
    per_seed = np.mean([[e["return"] for e in r["episodes"]] for r in results], axis=0)
    out: dict[str, Any] = {"opponents": [r["opponent"] for r in results], "policy": _summary(per_seed.tolist())}
    if paired:
        baseline = np.mean([[e["baseline_return"] for e in r["episodes"]] for r in results], axis=0)
        out["baseline"] = _summary(baseline.tolist())
        out["difference"] = _summary((per_seed - baseline).tolist())
    if "win_rate" in results[0]:
        out["win_rate"] = float(np.mean([r["win_rate"]["mean"] for r in results]))
        if paired:
            out["baseline_win_rate"] = float(np.mean([r["baseline_win_rate"]["mean"] for r in results]))
    return out


def _rate(wins: Sequence[float]) -> dict[str, Any]:
    """A win rate (a tie counts half) with Wilson's 95% interval."""
    return {"mean": float(np.mean(wins)), "ci95": wilson_interval(float(sum(wins)), len(wins), LEVEL), "n": len(wins)}


def _interval(figures: Mapping[str, Any], digits: int = 1) -> str:
    low, high = figures["ci95"]
    return f"{figures['mean']:.{digits}f} [{low:.{digits}f}, {high:.{digits}f}]"


def format_report(report: Mapping[str, Any]) -> str:
    seeds = report["seeds"]
    which = "held-out seeds" if report["held_out"] else "seeds"
    lines = [
        f"scenario {report['scenario']}: {report['description']}",
        f"{report['player']} played by {report['policy']} on {len(seeds)} {which} ({seeds[0]}..{seeds[-1]}); "
        f"mean {report['metric']} [{int(report['level'] * 100)}% interval]",
    ]
    header = f"{'opponent':<14}{'policy':<26}"
    if report["baseline"] is not None:
        header += f"{'baseline ' + report['baseline']:<30}{'policy - baseline (paired)':<28}"
    lines.append(header + "opponent's return")
    for result in report["results"]:
        line = f"{result['opponent']:<14}{_interval(result['policy']):<26}"
        if report["baseline"] is not None:
            line += f"{_interval(result['baseline']):<30}{_interval(result['difference']):<28}"
        line += _interval(result["opponent_return"])
        if "win_rate" in result:
            line += f"   win rate {_interval(result['win_rate'], 2)}"
            if "baseline_win_rate" in result:
                line += f", baseline's {_interval(result['baseline_win_rate'], 2)}"
        lines.append(line)
    overall = report.get("overall")
    if overall is not None:
        line = f"{'all (by seed)':<14}{_interval(overall['policy']):<26}"
        if report["baseline"] is not None:
            line += f"{_interval(overall['baseline']):<30}{_interval(overall['difference']):<28}"
        if "win_rate" in overall:
            line += f"win rate {overall['win_rate']:.2f}" + (f", baseline's {overall['baseline_win_rate']:.2f}" if "baseline_win_rate" in overall else "")
        lines.append(line)
    lines.append(f"{report['seconds']:.0f} s")
    return "\n".join(lines)


def parse_seeds(text: str) -> list[int]:
    """'10000-10049', '1,2,3' or a mix ('1-3,7')."""
    seeds: list[int] = []
    for part in text.split(","):
        part = part.strip()
        low, dash, high = part.partition("-")
        try:
            seeds.extend(range(int(low), int(high) + 1) if dash else [int(part)])
        except ValueError:
            raise argparse.ArgumentTypeError(f"seeds look like 10000-10049 or 1,2,3; got {text!r}") from None
    return seeds


def main(argv: Optional[Sequence[str]] = None) -> int:
    parser = argparse.ArgumentParser(prog="python -m gcb_env.evaluate", description=__doc__.split("\n\n")[0])
    parser.add_argument("--scenario", default="default", choices=sorted(SCENARIOS))
    parser.add_argument("--policy", required=True, help="bot:NAME, a policy file, or MODULE:ATTR")
    parser.add_argument("--baseline", help="another player for a paired comparison on the same seeds")
    parser.add_argument("--opponent", action="append", choices=sorted(bots_module.BOTS), help="an opponent (repeat for several); the scenario's fixed ones by default")
    parser.add_argument("--seeds", type=parse_seeds, default=list(HELD_OUT), help="world seeds (default: the held-out 10000-10049)")
    parser.add_argument("--workers", type=int, default=1, help="processes, each with its own env and bridge")
    parser.add_argument("--max-cycles", type=int, help="shorter episodes than the scenario's (a quick look, not the protocol)")
    parser.add_argument("--json", type=Path, help="write the report there as JSON")
    args = parser.parse_args(argv)
    options = {} if args.max_cycles is None else {"max_cycles": args.max_cycles}
    try:
        report = evaluate(args.scenario, args.policy, args.opponent or None, args.seeds, args.baseline, args.workers, options)
    except ValueError as err:
        parser.error(str(err))
    print(format_report(report))
    if args.json is not None:
        args.json.write_text(json.dumps(report, indent=1) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
