"""Env actors on a local Ray cluster (gcb_env.ray_rollouts): four actors, each with its own bridge,
play four seeds at once; their worlds share nothing, and each world's hash after every cycle is the
one the same seed gives run one after another in this process."""

from __future__ import annotations

import pytest
import ray  # scripts/python-venv.mjs installs it: the test never skips

from gcb_env import Layout, ray_rollouts
from gcb_env.evaluate import OPPONENT, PLAYER, reset_player, load_player

SEEDS = [101, 202, 303, 404]
CYCLES = 25
ENV = {"n_agents": 2, "ticks_per_cycle": 10, "hash_each_cycle": True}


@pytest.fixture(scope="module")
def cluster(tmp_path_factory):
    # Four logical CPUs whatever the machine: the actors mostly wait on their bridges. Ray's session
    # files go under pytest's temporary dir, which pytest prunes, rather than piling up in /tmp/ray.
    ray_rollouts.init(num_cpus=4, object_store_memory=80 * 1024 * 1024, _temp_dir=str(tmp_path_factory.mktemp("ray")))
    yield
    ray.shutdown()


def sequential_hashes(shared_bridge, seed: int) -> list[str]:
    """The same episode as an actor plays, in this process on the shared bridge."""
    env = shared_bridge.parallel_env(**ENV)
    layout = Layout(16, 4)
    players = {PLAYER: load_player("random", layout), OPPONENT: load_player("round_robin", layout)}
    try:
        observations, _ = env.reset(seed=seed)
        reset_player(players[PLAYER], 2 * seed)
        reset_player(players[OPPONENT], 2 * seed + 1)
        hashes = []
        for _ in range(CYCLES):
            actions = {a: players[a](observations[a]["observation"], observations[a]["action_mask"]) for a in env.agents}
            observations, *_ = env.step(actions)
            hashes.append(env.last_hash)
        return hashes
    finally:
        env.close()


def test_four_actors_play_independent_worlds_that_match_a_sequential_run(cluster, shared_bridge):
    actors = ray_rollouts.make_actors(4, ENV)
    try:
        episodes = ray_rollouts.play(actors, SEEDS, player="random", opponent="round_robin", cycles=CYCLES)
        facts = ray.get([actor.facts.remote() for actor in actors])
    finally:
        ray_rollouts.close(actors)

    # Four bridges, one per actor: no process, port, dir or token shared.
    for key in ("worker_pid", "pid", "port", "dir"):
        assert len({f[key] for f in facts}) == 4, key
    tokens = [t for f in facts for t in f["tokens"]]
    assert len(set(tokens)) == len(tokens)

    assert [e["seed"] for e in episodes] == SEEDS
    for episode in episodes:
        assert episode["cycles"] == CYCLES and len(episode["hashes"]) == CYCLES
        assert episode["hashes"] == sequential_hashes(shared_bridge, episode["seed"]), f"seed {episode['seed']}"
        assert episode["hash"] == episode["hashes"][-1]
    # Four seeds, four worlds: no actor saw another's.
    assert len({e["hashes"][0] for e in episodes}) == 4


def test_a_vector_of_actors_restarts_episodes_on_training_worlds(cluster):
    vec = ray_rollouts.RayVectorEnv(2, opponent="noop", seed=7, ticks_per_cycle=5, max_cycles=3)
    try:
        observations, masks = vec.reset()
        assert observations.shape[0] == 2 and masks.shape[0] == 2
        finished = []
        for _ in range(3):
            observations, masks, rewards, dones, infos = vec.step([0, 0])
            finished += [info for info, done in zip(infos, dones) if done]
        assert dones.all() and len(finished) == 2
        assert all(info["episode"]["l"] == 3 for info in finished)
        # Each actor's worlds come from its own generator (seed + index): two different worlds.
        assert finished[0]["episode"]["world_seed"] != finished[1]["episode"]["world_seed"]
        assert all(info["next_world_seed"] != info["episode"]["world_seed"] for info in finished)
    finally:
        vec.close()
    with pytest.raises(ValueError, match="no bot named"):
        ray_rollouts.RayVectorEnv(1, opponent="nobody")
