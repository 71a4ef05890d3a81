"""Learner steps per second with N envs at once, to budget a training run: one learner step is one
cycle of a two-kingdom Parallel env (kingdom_0 acts, the opponent bot acts, the world runs
ticks_per_cycle ticks), with random legal actions for the learner. Three ways to run N envs:

- `inproc`: N envs in this process, stepped one after another (each env's ticks still run in its
  bridge while Python goes on to the next env);
- `async`: a Gymnasium AsyncVectorEnv, one worker process per env (the vector recipe of docs/research.md);
- `ray`: gcb_env.ray_rollouts.RayVectorEnv, one Ray actor per env on a local cluster.

Prints one JSON object. The bridges' start and first worlds are not timed.

    python python/bench/throughput.py --mode async --envs 2 --seconds 30
"""

from __future__ import annotations

import argparse
import json
import os
import time

import numpy as np


def cpu_seconds(pid: int) -> float:
    """User and system CPU of a process so far (Linux), or NaN."""
    try:
        with open(f"/proc/{pid}/stat") as f:
            fields = f.read().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, ValueError, IndexError):
        return float("nan")


def legal(rng: np.random.Generator, masks: np.ndarray) -> list[int]:
    return [int(rng.choice(np.flatnonzero(m))) for m in masks]


def run_inproc(n: int, seconds: float, env_kwargs: dict, opponent: str) -> dict:
    from gcb_env.versus import VersusEnv

    envs = [VersusEnv(opponent=opponent, **env_kwargs) for _ in range(n)]
    rng = np.random.default_rng(0)
    try:
        seen = [env.reset(seed=i)[0] for i, env in enumerate(envs)]
        bridges = [env.env.unwrapped._session.bridge.process.pid for env in envs]
        bridge_cpu = sum(cpu_seconds(pid) for pid in bridges)
        times = os.times()
        steps = episodes = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            for i, env in enumerate(envs):
                action = legal(rng, [seen[i]["action_mask"]])[0]
                obs, _, terminated, truncated, _ = env.step(action)
                if terminated or truncated:
                    obs, _ = env.reset()
                    episodes += 1
                seen[i] = obs
                steps += 1
        seconds = time.perf_counter() - start
        ended = os.times()
        python_cpu = ended.user + ended.system - times.user - times.system
        bridge_cpu = sum(cpu_seconds(pid) for pid in bridges) - bridge_cpu
        # CPU a step, both sides: what bounds steps/s on an idle machine (cores / CPU a step).
        return {
            "steps": steps,
            "seconds": seconds,
            "episodes": episodes,
            "cpu_ms_per_step": {"bridge": round(1000 * bridge_cpu / steps, 3), "python": round(1000 * python_cpu / steps, 3)},
        }
    finally:
        for env in envs:
            env.close()


def _make(env_kwargs: dict, opponent: str):
    def make():
        from gcb_env.versus import VersusEnv

        return VersusEnv(opponent=opponent, **env_kwargs)

    return make


def run_async(n: int, seconds: float, env_kwargs: dict, opponent: str) -> dict:
    import gymnasium

    vec = gymnasium.vector.AsyncVectorEnv(
        [_make(env_kwargs, opponent) for _ in range(n)], context="spawn", autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP
    )
    rng = np.random.default_rng(0)
    try:
        obs, _ = vec.reset(seed=list(range(n)))
        steps = episodes = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            obs, _, terminated, truncated, _ = vec.step(np.array(legal(rng, obs["action_mask"])))
            episodes += int(np.count_nonzero(terminated | truncated))
            steps += n
        return {"steps": steps, "seconds": time.perf_counter() - start, "episodes": episodes}
    finally:
        vec.close()


def run_ray(n: int, seconds: float, env_kwargs: dict, opponent: str) -> dict:
    from gcb_env import ray_rollouts

    ray_rollouts.init(num_cpus=max(2, n))
    vec = ray_rollouts.RayVectorEnv(n, opponent=opponent, seed=0, **env_kwargs)
    rng = np.random.default_rng(0)
    try:
        _, masks = vec.reset()
        steps = episodes = 0
        start = time.perf_counter()
        while time.perf_counter() - start < seconds:
            _, masks, _, dones, _ = vec.step(legal(rng, masks))
            episodes += int(np.count_nonzero(dones))
            steps += n
        return {"steps": steps, "seconds": time.perf_counter() - start, "episodes": episodes}
    finally:
        vec.close()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--mode", choices=["inproc", "async", "ray"], default="inproc")
    parser.add_argument("--envs", type=int, default=1)
    parser.add_argument("--seconds", type=float, default=30.0)
    parser.add_argument("--ticks", type=int, default=10)
    parser.add_argument("--max-cycles", type=int, default=200)
    parser.add_argument("--opponent", default="random")
    args = parser.parse_args()
    env_kwargs = {"n_agents": 2, "ticks_per_cycle": args.ticks, "max_cycles": args.max_cycles}
    run = {"inproc": run_inproc, "async": run_async, "ray": run_ray}[args.mode]
    load_before = os.getloadavg()[0]
    figures = run(args.envs, args.seconds, env_kwargs, args.opponent)
    rate = figures["steps"] / figures["seconds"]
    print(
        json.dumps(
            {
                "mode": args.mode,
                "envs": args.envs,
                "ticks_per_cycle": args.ticks,
                "steps_per_s": round(rate, 1),
                "steps_in_15_min": int(rate * 900),
                **figures,
                "load1_before": load_before,
                "load1_after": os.getloadavg()[0],
            }
        )
    )


if __name__ == "__main__":
    main()
