"""Four envs at once, each in its own process with its own bridge, as docs/research.md runs them (a
Gymnasium AsyncVectorEnv of one kingdom each): no port, dir or token shared, and the same world
hashes as the same seeds run one after another."""

from __future__ import annotations

import os
import pickle
import time

import gymnasium
import numpy as np

import gcb_env
from conftest import legal_action

SEEDS = [101, 202, 303, 404]
CYCLES = 40


class OneKingdom(gymnasium.Env):
    """kingdom_0 of a gcb_env Parallel env as a Gymnasium env; the other kingdoms pass (action 0).
    The wrapper of docs/research.md, "Many environments"."""

    def __init__(self, **options):
        self.env = gcb_env.parallel_env(**options)
        self.agent = self.env.possible_agents[0]
        self.observation_space = self.env.observation_space(self.agent)
        self.action_space = self.env.action_space(self.agent)

    def reset(self, *, seed=None, options=None):
        observations, infos = self.env.reset(seed=seed)
        return observations[self.agent], infos[self.agent]

    def step(self, action):
        actions = {agent: 0 for agent in self.env.agents}
        actions[self.agent] = int(action)
        observations, rewards, terminations, truncations, infos = self.env.step(actions)
        a = self.agent
        return observations[a], rewards[a], terminations[a], truncations[a], infos[a]

    def close(self):
        self.env.close()


class ReportingKingdom(OneKingdom):
    """What the test reads of each worker: the world hash after each cycle, and what its bridge was given."""

    def step(self, action):
        observation, reward, terminated, truncated, info = super().step(action)
        return observation, reward, terminated, truncated, {**info, "world_hash": self.env.last_hash}

    def bridge_facts(self) -> dict:
        bridge = self.env.unwrapped._session.bridge
        return {
            "worker": os.getpid(),
            "pid": bridge.process.pid,
            "port": bridge.port,
            "dir": str(bridge.dir),
            "tokens": [*bridge.tokens.values(), bridge.god_token],
        }


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    return True


def test_an_env_not_yet_reset_pickles():
    # Vector envs (SuperSuit, RLlib) send envs to their worker processes: until its first reset an env
    # holds no process and no socket, and each copy starts its own bridge there.
    env = gcb_env.parallel_env(seed=3)
    copy = pickle.loads(pickle.dumps(env))
    assert copy.possible_agents == env.possible_agents and copy.unwrapped._session.bridge is None
    wrapped = pickle.loads(pickle.dumps(gcb_env.env(seed=3)))
    assert wrapped.unwrapped._session.bridge is None


def test_four_envs_in_four_processes(shared_bridge):
    options = {"ticks_per_cycle": 2, "hash_each_cycle": True}
    vec = gymnasium.vector.AsyncVectorEnv([lambda: ReportingKingdom(**options) for _ in SEEDS], context="spawn")
    try:
        observations, _ = vec.reset(seed=SEEDS)
        rng = np.random.default_rng(0)
        played, hashes = [], []
        for cycle in range(CYCLES):
            actions = [legal_action(rng, mask) for mask in observations["action_mask"]]
            observations, _rewards, terminated, truncated, infos = vec.step(actions)
            assert not terminated.any() and not truncated.any(), f"cycle {cycle}: an episode ended, so a worker reset"
            played.append(actions)
            hashes.append(list(infos["world_hash"]))
        facts = vec.call("bridge_facts")
        assert all(_alive(f["pid"]) for f in facts), "the four bridges run at the same time"
    finally:
        vec.close()

    assert len({f["worker"] for f in facts} - {os.getpid()}) == len(SEEDS), "four worker processes"
    assert len({f["port"] for f in facts}) == len(SEEDS), "ports"
    assert len({f["dir"] for f in facts}) == len(SEEDS), "dirs"
    tokens = [token for f in facts for token in f["tokens"]]
    assert len(set(tokens)) == len(tokens), "tokens"
    deadline = time.monotonic() + 10
    while any(_alive(f["pid"]) for f in facts) and time.monotonic() < deadline:
        time.sleep(0.05)
    assert not any(_alive(f["pid"]) for f in facts), "closing the vector env stopped every bridge"

    # The same seeds and actions, one after another, in one env of this process.
    env = ReportingKingdom(url=shared_bridge.url, tokens=shared_bridge.tokens, **options)
    try:
        for n, seed in enumerate(SEEDS):
            env.reset(seed=seed)
            alone = [env.step(actions[n])[4]["world_hash"] for actions in played]
            assert alone == [cycle[n] for cycle in hashes], f"seed {seed}"
    finally:
        env.close()
    assert len({tuple(cycle[n] for cycle in hashes) for n in range(len(SEEDS))}) == len(SEEDS), "four seeds, four histories"
