"""PettingZoo's own checks, on envs that each start their own bridge."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, render_test, seed_test

import gcb_env


def test_installed_as_a_package():
    # The tests run against `pip install ./python`, not the sources: the env must find the bridge from there.
    assert "site-packages" in Path(gcb_env.__file__).parts, gcb_env.__file__


@pytest.fixture(scope="module")
def aec_env(shared_bridge):
    """One AEC env for the API test and the long episode: each resets it first."""
    env = shared_bridge.env(seed=7, ticks_per_cycle=1, max_cycles=1000)
    yield env
    env.close()


def test_api(aec_env):
    api_test(aec_env, num_cycles=1000)


def test_seed():
    # Two envs in one process, each with its own bridge: they share nothing, and run the same way.
    seed_test(lambda: gcb_env.env(seed=3, ticks_per_cycle=2), num_cycles=500)


def test_parallel_api(shared_bridge):
    env = shared_bridge.parallel_env(seed=11, ticks_per_cycle=1)
    try:
        parallel_api_test(env, num_cycles=400)
    finally:
        env.close()


def test_render_rgb_array(shared_bridge):
    # render_test first builds an env with render_mode="human" only to read metadata["render_modes"];
    # this env draws rgb_array alone, so every env it builds draws rgb_array.
    made = []

    def env_fn(render_mode=None):
        env = shared_bridge.env(seed=5, render_mode="rgb_array")
        made.append(env)
        return env

    try:
        render_test(env_fn)
    finally:
        for env in made:
            env.close()
    assert len(made) == 2, "one env for the metadata, one for rgb_array"


def test_random_episode_keeps_max_cycles(aec_env):
    max_cycles = 1000
    env = aec_env
    rng = np.random.default_rng(0)
    turns = dict.fromkeys(env.possible_agents, 0)
    env.reset(seed=21)
    for agent in env.agent_iter():
        obs, _reward, terminated, truncated, _info = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        turns[agent] += 1
        env.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert env.unwrapped.num_cycles == max_cycles
    survivors = [a for a, n in turns.items() if n == max_cycles]
    assert survivors, f"no kingdom lasted the {max_cycles} cycles: {turns}"
    assert all(n <= max_cycles for n in turns.values()), turns
    assert env.agents == []
