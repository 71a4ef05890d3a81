"""One kingdom of a Parallel env as a Gymnasium env, the others played by fixed bots: what a
single-agent learner (gcb_env.baselines.ppo, a Gymnasium vector env, a Ray actor) steps.

    env = VersusEnv(opponent="random", n_agents=2, ticks_per_cycle=10, max_cycles=200)
    obs, info = env.reset(seed=1)          # obs: {"observation": ..., "action_mask": ...}
    obs, reward, terminated, truncated, info = env.step(action)

kingdom_0 learns. A reset without an explicit world draws the world's seed from the env's
generator, in TRAINING_SEEDS: never one of the evaluation's held-out seeds (gcb_env.evaluate.HELD_OUT),
so what is learnt there is measured on worlds never seen. `reset(seed=s)` seeds that generator;
`reset(options={"world_seed": w})` plays world w itself. Each bot's generator is seeded from the
world's seed, so one seed and one sequence of actions give one episode. On the episode's last step
`info["episode"]` holds the return, the length in cycles and the world's seed.
"""

from __future__ import annotations

from typing import Any, Optional

import gymnasium
import numpy as np

from . import bots
from ._spaces import Layout

__all__ = ["VersusEnv", "TRAINING_SEEDS", "LEARNER"]

# World seeds for training: [low, high). The evaluation's held-out seeds lie below.
TRAINING_SEEDS = (1_000_000, 2**31 - 1)
LEARNER = "kingdom_0"


class VersusEnv(gymnasium.Env):
    """See the module's docstring. `opponent` names a bot of gcb_env.bots for every other kingdom, or
    several separated by commas, one of which (drawn at each reset from the env's generator) plays
    the episode; the other arguments go to gcb_env.parallel_env."""

    metadata = {"render_modes": []}

    def __init__(self, opponent: str = "noop", **env_kwargs: Any):
        import gcb_env

        self.opponent_name = opponent
        self.env_kwargs = dict(env_kwargs)
        self.env = gcb_env.parallel_env(**env_kwargs)
        self.layout: Layout = self.env.layout
        self.opponent_names = tuple(name.strip() for name in opponent.split(","))
        others = [agent for agent in self.env.possible_agents if agent != LEARNER]
        self._rosters = [{agent: bots.make_bot(name, self.layout) for agent in others} for name in self.opponent_names]
        self.opponents = self._rosters[0]
        self.observation_space = self.env.observation_space(LEARNER)
        self.action_space = self.env.action_space(LEARNER)
        self._rng = np.random.default_rng()
        self._observations: dict = {}
        self._return = 0.0
        self._cycles = 0
        self.world_seed: Optional[int] = None

    def reset(self, *, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        if seed is not None:
            self._rng = np.random.default_rng(seed)
        world = (options or {}).get("world_seed")
        self.world_seed = int(world) if world is not None else int(self._rng.integers(*TRAINING_SEEDS))
        if len(self._rosters) > 1:
            self.opponents = self._rosters[int(self._rng.integers(len(self._rosters)))]
        self._observations, infos = self.env.reset(seed=self.world_seed)
        for n, bot in enumerate(self.opponents.values()):
            bot.reset(2 * self.world_seed + 1 + 2 * n)
        self._return = 0.0
        self._cycles = 0
        return self._observations[LEARNER], {**infos[LEARNER], "world_seed": self.world_seed}

    def step(self, action: Any) -> tuple[dict, float, bool, bool, dict]:
        actions = {}
        for agent in self.env.agents:
            if agent == LEARNER:
                actions[agent] = int(action)
            else:
                seen = self._observations[agent]
                actions[agent] = int(self.opponents[agent](seen["observation"], seen["action_mask"]))
        self._observations, rewards, terminations, truncations, infos = self.env.step(actions)
        reward = float(rewards[LEARNER])
        terminated, truncated = bool(terminations[LEARNER]), bool(truncations[LEARNER])
        self._return += reward
        self._cycles += 1
        info = dict(infos[LEARNER])
        if terminated or truncated:
            info["episode"] = {"r": self._return, "l": self._cycles, "world_seed": self.world_seed}
        return self._observations[LEARNER], reward, terminated, truncated, info

    def world_hash(self) -> str:
        return self.env.world_hash()

    @property
    def last_hash(self) -> Optional[str]:
        return self.env.last_hash

    def close(self) -> None:
        self.env.close()
