"""Four envs at once, each in its own process with its own bridge: no port, dir or token shared, and
the same world hashes as the same seeds run one after another."""

from __future__ import annotations

import multiprocessing
import pickle
import time
from concurrent.futures import ProcessPoolExecutor

import numpy as np

import gcb_env

SEEDS = [101, 202, 303, 404]
CYCLES = 40


def episode(seed: int, env=None) -> dict:
    """CYCLES cycles of seeded legal actions on the world of `seed`; the hash after each cycle, and
    what the env's own bridge was given (an env given here runs on a bridge it did not start)."""
    own = env is None
    if own:
        env = gcb_env.parallel_env(seed=seed, ticks_per_cycle=2, hash_each_cycle=True)
    began = time.time()
    try:
        obs, _ = env.reset(seed=seed)
        rng = np.random.default_rng(seed)
        hashes = []
        for _ in range(CYCLES):
            actions = {agent: int(rng.choice(np.flatnonzero(obs[agent]["action_mask"]))) for agent in env.agents}
            obs, *_ = env.step(actions)
            hashes.append(env.last_hash)
        if not own:
            return {"hashes": hashes}
        bridge = env.unwrapped._session.bridge
        return {
            "hashes": hashes,
            "port": bridge.port,
            "dir": str(bridge.dir),
            "tokens": [*bridge.tokens.values(), bridge.god_token],
            "began": began,
            "ended": time.time(),
        }
    finally:
        if own:
            env.close()


def test_an_env_not_yet_reset_pickles():
    # Vector envs (SuperSuit, RLlib) send envs to their worker processes: until its first reset an env
    # holds no process and no socket, and each copy starts its own bridge there.
    env = gcb_env.parallel_env(seed=3)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.possible_agents == env.possible_agents and copy.unwrapped._session.bridge is None
    wrapped = pickle.loads(pickle.dumps(gcb_env.env(seed=3)))
    assert wrapped.unwrapped._session.bridge is None


def test_four_envs_in_four_processes(shared_bridge):
    with ProcessPoolExecutor(max_workers=len(SEEDS), mp_context=multiprocessing.get_context("spawn")) as pool:
        runs = list(pool.map(episode, SEEDS))

    assert max(r["began"] for r in runs) < min(r["ended"] for r in runs), "the four ran at the same time"
    assert len({r["port"] for r in runs}) == len(SEEDS), "ports"
    assert len({r["dir"] for r in runs}) == len(SEEDS), "dirs"
    tokens = [token for r in runs for token in r["tokens"]]
    assert len(set(tokens)) == len(tokens), "tokens"

    # The same seeds, one after another, in one env of this process.
    env = shared_bridge.parallel_env(seed=0, ticks_per_cycle=2, hash_each_cycle=True)
    try:
        for seed, run in zip(SEEDS, runs):
            assert episode(seed, env)["hashes"] == run["hashes"], f"seed {seed}"
    finally:
        env.close()
    assert len({tuple(r["hashes"]) for r in runs}) == len(SEEDS), "four seeds, four histories"
