"""Env actors on a Ray cluster (ray core; RLlib is not needed): each actor holds one env, and so
one bridge on the node it runs on. Rollouts then come from N actors at once, on one machine or many.

    from gcb_env import ray_rollouts

    ray_rollouts.init()                                  # a local cluster; init("ray://head:10001") for a real one
    actors = ray_rollouts.make_actors(4, {"ticks_per_cycle": 10, "max_cycles": 200})
    episodes = ray_rollouts.play(actors, seeds=range(10_000, 10_050), player="bot:round_robin", opponent="random")
    ray_rollouts.close(actors)

    vec = ray_rollouts.RayVectorEnv(4, opponent="random", seed=1, ticks_per_cycle=10, max_cycles=200)
    obs, masks = vec.reset()                            # arrays of N rows: one learning kingdom per actor
    obs, masks, rewards, dones, infos = vec.step(actions)

On a real cluster every node needs Node 20 and this package with the bridge it starts: an installed
`gcb`, or a checkout named by `GCB_BRIDGE` in the workers' environment, which Ray can set for them:

    ray_rollouts.init("ray://head-node:10001", runtime_env={"env_vars": {"GCB_BRIDGE": "node /opt/gcb/bin/gcb.js"}})

`init(address)` joins the cluster at that address (`ray start --head` prints it). Each actor asks
for `num_cpus` CPUs (1 by default: a bridge and its env keep about one core busy), so Ray places
about one actor per core, on whichever nodes have them.

The module imports ray; `import gcb_env` does not import this module (nor ray).
"""

from __future__ import annotations

import os
from typing import Any, Iterable, Mapping, Optional, Sequence

import numpy as np
import ray

from . import bots
from ._spaces import Layout

__all__ = ["init", "EnvActor", "make_actors", "play", "close", "RayVectorEnv"]


def init(address: Optional[str] = None, **kwargs: Any) -> None:
    """Joins the Ray cluster at `address`, or starts a local one (address None). Keyword arguments go
    to ray.init (num_cpus, object_store_memory, ...). Does nothing when Ray is already initialised."""
    if ray.is_initialized():
        return
    kwargs.setdefault("include_dashboard", False)
    kwargs.setdefault("log_to_driver", False)
    ray.init(address=address, **kwargs)


class EnvActor:
    """One Parallel env and what drives it. Made a Ray actor by make_actors; also usable in-process."""

    def __init__(self, env_kwargs: Mapping[str, Any], learner_opponent: Optional[str] = None, seed: Optional[int] = None):
        import gcb_env
        from .versus import VersusEnv

        self.env_kwargs = dict(env_kwargs)
        self.layout = Layout(int(env_kwargs.get("grid", 16)), int(env_kwargs.get("anchors", 4)))
        if learner_opponent is None:
            self.env = gcb_env.parallel_env(**env_kwargs)
            self.versus = None
        else:
            # One learning kingdom: the actor steps a VersusEnv and resets it itself when an episode ends.
            self.versus = VersusEnv(opponent=learner_opponent, **env_kwargs)
            self.env = self.versus.env
            self._seed = seed

    def facts(self) -> dict[str, Any]:
        """Where this actor and its bridge run (after the first reset)."""
        session = self.env.unwrapped._session
        bridge = session.bridge
        facts: dict[str, Any] = {"node": ray.get_runtime_context().get_node_id() if ray.is_initialized() else None, "worker_pid": os.getpid()}
        if bridge is not None:
            facts.update(pid=bridge.process.pid, port=bridge.port, dir=str(bridge.dir), tokens=sorted([*bridge.tokens.values(), bridge.god_token]))
        return facts

    # --- the Parallel env, call by call ---------------------------------------------------------

    def reset(self, seed: Optional[int] = None) -> tuple[dict, dict]:
        return self.env.reset(seed=seed)

    def step(self, actions: Mapping[str, int]) -> tuple[dict, dict, dict, dict, dict]:
        return self.env.step(dict(actions))

    def world_hash(self) -> str:
        return self.env.world_hash()

    def last_hash(self) -> Optional[str]:
        return self.env.last_hash

    # --- whole episodes -------------------------------------------------------------------------

    def play(self, seed: int, player: str, opponent: str, cycles: Optional[int] = None) -> dict[str, Any]:
        """One episode from world seed `seed`, as gcb_env.evaluate plays it (player kingdom_0, opponent
        kingdom_1), for at most `cycles` cycles; with hash_each_cycle, every cycle's world hash."""
        from .evaluate import PLAYER, OPPONENT, reset_player, load_player

        players = {PLAYER: load_player(player, self.layout), OPPONENT: load_player(opponent, self.layout)}
        observations, _ = self.env.reset(seed=seed)
        reset_player(players[PLAYER], 2 * seed)
        reset_player(players[OPPONENT], 2 * seed + 1)
        returns = dict.fromkeys(players, 0.0)
        hashes = []
        played = 0
        while self.env.agents and (cycles is None or played < cycles):
            actions = {a: int(players[a](observations[a]["observation"], observations[a]["action_mask"])) for a in self.env.agents}
            observations, rewards, terminations, _, _ = self.env.step(actions)
            for agent, reward in rewards.items():
                returns[agent] += float(reward)
            hashes.append(self.env.last_hash)
            played += 1
            if terminations.get(PLAYER):
                break
        return {"seed": seed, "return": returns[PLAYER], "opponent_return": returns[OPPONENT], "cycles": played, "hashes": hashes, "hash": self.env.world_hash()}

    # --- one learning kingdom (RayVectorEnv) ----------------------------------------------------

    def learner_reset(self) -> tuple[np.ndarray, np.ndarray, dict]:
        assert self.versus is not None, "made without learner_opponent"
        seen, info = self.versus.reset(seed=self._seed)
        return seen["observation"], seen["action_mask"], info

    def learner_step(self, action: int) -> tuple[np.ndarray, np.ndarray, float, bool, dict]:
        """The learner's action; after the episode's last step the next episode starts at once (its
        first observation is returned; the info holds the finished episode)."""
        assert self.versus is not None, "made without learner_opponent"
        seen, reward, terminated, truncated, info = self.versus.step(action)
        done = terminated or truncated
        if done:
            seen, reset_info = self.versus.reset()
            info = {**info, "truncated": truncated, "next_world_seed": reset_info["world_seed"]}
        return seen["observation"], seen["action_mask"], reward, done, info

    def close(self) -> None:
        self.env.close()


def make_actors(n: int, env_kwargs: Mapping[str, Any], num_cpus: float = 1, **actor_kwargs: Any) -> list:
    """N EnvActor actors, each with its own env (and bridge, started at its first reset)."""
    remote = ray.remote(num_cpus=num_cpus)(EnvActor)
    return [remote.remote(dict(env_kwargs), **actor_kwargs) for _ in range(n)]


def play(actors: Sequence, seeds: Iterable[int], player: str, opponent: str, cycles: Optional[int] = None) -> list[dict]:
    """One episode per seed, spread over the actors (each plays its share one after another), in the
    order of `seeds`."""
    seeds = list(seeds)
    futures = [actors[n % len(actors)].play.remote(seed, player, opponent, cycles) for n, seed in enumerate(seeds)]
    return ray.get(futures)


def close(actors: Sequence) -> None:
    """Each actor closes its env (and stops its bridge), then ends."""
    ray.get([actor.close.remote() for actor in actors])
    for actor in actors:
        ray.kill(actor)


class RayVectorEnv:
    """N actors, each one learning kingdom against `opponent` (a bot of gcb_env.bots), stepped
    together: the learner's side of a vector env. Episodes restart by themselves; actor i draws its
    worlds from a generator seeded with seed + i, in gcb_env.versus.TRAINING_SEEDS."""

    def __init__(self, n: int, opponent: str = "noop", seed: int = 0, num_cpus: float = 1, **env_kwargs: Any):
        _check_bot(opponent)
        self.n = n
        self.actors = [
            ray.remote(num_cpus=num_cpus)(EnvActor).remote(dict(env_kwargs), learner_opponent=opponent, seed=seed + i) for i in range(n)
        ]

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        answers = ray.get([actor.learner_reset.remote() for actor in self.actors])
        return np.stack([a[0] for a in answers]), np.stack([a[1] for a in answers])

    def step(self, actions: Sequence[int]) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        answers = ray.get([actor.learner_step.remote(int(a)) for actor, a in zip(self.actors, actions)])
        observations = np.stack([a[0] for a in answers])
        masks = np.stack([a[1] for a in answers])
        rewards = np.array([a[2] for a in answers], dtype=np.float32)
        dones = np.array([a[3] for a in answers], dtype=bool)
        return observations, masks, rewards, dones, [a[4] for a in answers]

    def close(self) -> None:
        close(self.actors)


def _check_bot(name: str) -> None:
    if name.removeprefix("bot:") not in bots.BOTS:
        raise ValueError(f"no bot named {name!r}; the bots are {sorted(bots.BOTS)}")
