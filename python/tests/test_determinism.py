"""Two envs, one seed, one seeded action sequence: the same observations, rewards and world hash at
every one of 1,000 cycles (PettingZoo's parallel_seed_test compares the first step only). And the
order of an AEC cycle's requests, on which that rests."""

from __future__ import annotations

import json

import numpy as np

import gcb_env
from conftest import legal_action
from gcb_env._http import Connection

CYCLES = 1000


def test_parallel_runs_match_cycle_by_cycle(shared_bridge):
    # Two bridge processes: the shared one, and the second env's own.
    first = shared_bridge.parallel_env(seed=99, ticks_per_cycle=1, max_cycles=CYCLES, hash_each_cycle=True)
    second = gcb_env.parallel_env(seed=99, ticks_per_cycle=1, max_cycles=CYCLES, hash_each_cycle=True)
    try:
        obs_a, infos_a = first.reset(seed=1234)
        obs_b, infos_b = second.reset(seed=1234)
        rng = np.random.default_rng(42)
        hashes = set()
        for cycle in range(CYCLES):
            assert first.agents == second.agents, f"cycle {cycle}: live agents differ"
            if not first.agents:
                break
            for agent in first.agents:
                np.testing.assert_array_equal(obs_a[agent]["observation"], obs_b[agent]["observation"], err_msg=f"cycle {cycle}, {agent}")
                np.testing.assert_array_equal(obs_a[agent]["action_mask"], obs_b[agent]["action_mask"])
            assert infos_a == infos_b, f"cycle {cycle}"
            actions = {agent: legal_action(rng, obs_a[agent]["action_mask"]) for agent in first.agents}
            obs_a, rewards_a, term_a, trunc_a, infos_a = first.step(actions)
            obs_b, rewards_b, term_b, trunc_b, infos_b = second.step(actions)
            assert rewards_a == rewards_b, f"cycle {cycle}"
            assert (term_a, trunc_a) == (term_b, trunc_b), f"cycle {cycle}"
            assert first.last_hash is not None and first.last_hash == second.last_hash, f"cycle {cycle}: world hashes differ"
            hashes.add(first.last_hash)
        assert first.num_cycles == CYCLES
        assert len(hashes) > CYCLES // 2, "the hash follows the world"
        assert first.world_hash() == second.world_hash()

        # Another seed makes another world.
        second.reset(seed=1235)
        assert second.world_hash() != first.world_hash()
    finally:
        first.close()
        second.close()


def test_reset_with_the_same_seed_rewinds_to_the_same_world(shared_bridge):
    env = shared_bridge.parallel_env(seed=5, ticks_per_cycle=3)
    try:
        start, _ = env.reset(seed=77)
        start_hash = env.world_hash()
        rng = np.random.default_rng(1)
        obs = start
        for _ in range(20):
            obs, *_ = env.step({agent: legal_action(rng, obs[agent]["action_mask"]) for agent in env.agents})
        moved = env.world_hash()
        assert moved != start_hash
        again, _ = env.reset(seed=77)
        assert env.world_hash() == start_hash
        for agent in env.agents:
            np.testing.assert_array_equal(again[agent]["observation"], start[agent]["observation"])
        # reset() without a seed draws the next one from the env's generator, seeded by reset(seed=77).
        env.reset()
        drawn = env.world_hash()
        env.reset(seed=77)
        env.reset()
        assert env.world_hash() == drawn
    finally:
        env.close()


def test_an_aec_cycle_sends_each_agents_turn_then_the_step(shared_bridge, monkeypatch):
    """Each agent's turn goes out as that agent, in order; the cycle's step only after the last one, and
    the next turn only once the step has answered (each request after the one before is answered)."""
    log = []
    send, receive = Connection.send, Connection.receive

    def logged_send(self, method, path, body=None, changes_world=False):
        send(self, method, path, body, changes_world)
        log.append(("send", self.agent, json.loads(body)["name"] if body else path))

    def logged_receive(self):
        answer = receive(self)
        log.append(("answer", self.agent))
        return answer

    env = shared_bridge.env(seed=3, ticks_per_cycle=2)
    try:
        env.reset(seed=21)
        rng = np.random.default_rng(5)
        monkeypatch.setattr(Connection, "send", logged_send)
        monkeypatch.setattr(Connection, "receive", logged_receive)
        for _ in range(3 * len(env.possible_agents)):
            env.step(legal_action(rng, env.last()[0]["action_mask"]))
        tick = env.unwrapped._session.last_tick
    finally:
        env.close()
    first, second = env.possible_agents
    turn = {"batch", "observe"}
    sends = [(who, name) for kind, who, *name in log if kind == "send" for name in name]
    assert [who for who, _ in sends] == [first, second, first] * 3
    assert [name in turn for _, name in sends] == [True, True, False] * 3
    assert [name for _, name in sends][2::3] == ["step"] * 3
    # Every send after the first is preceded by the answer to the one before.
    for n, entry in enumerate(log):
        if entry[0] == "send" and n > 0:
            assert log[n - 1][0] == "answer", f"request {entry} went out before the answer to the one before it"
    assert tick == 3 * 2, "three cycles of ticks_per_cycle ticks each"
