"""The scenarios with tension (grow, duel): their rules are the world's, by seed; a kingdom's budget
is enforced by the bridge (422 GAME_REJECTED over HTTP) and shown by the mask; a duel is zero-sum
and ends with a fall; the time feature; full intel; PettingZoo's checks for each scenario."""

from __future__ import annotations

import numpy as np
import pytest
from pettingzoo.test import api_test, parallel_api_test, seed_test

import gcb_env
from gcb_env._bridge import BridgeProcess
from gcb_env._http import BridgeCallError

from conftest import AGENTS, SharedBridge


@pytest.fixture(scope="module")
def seeing_bridge():
    """A bridge whose players also hold read_all: what duel's full intel needs."""
    bridge = BridgeProcess(AGENTS, seed=1, full_intel=True)
    yield SharedBridge(bridge)
    bridge.stop()


def _favor(env, agent: str) -> int:
    session = env.unwrapped._session
    kingdom = session._kingdoms[agent]
    return next(k["favor"] for k in session.call("god", "list_kingdoms")["items"] if k["id"] == kingdom)


def _anchor(env, agent: str) -> tuple[int, int]:
    x, y = env.unwrapped._session._anchors[agent][0]
    return int(x), int(y)


def test_grow_world_is_the_seeds(shared_bridge):
    env = shared_bridge.parallel_env(scenario="grow", max_cycles=5)
    try:
        hashes = []
        for _ in range(2):
            env.reset(seed=21)
            assert env.unwrapped._session.call("god", "get_world_state")["rules"] == "grow"
            for _ in range(3):
                env.step({agent: 1 for agent in env.agents})  # a newborn at the first city
            hashes.append(env.world_hash())
        assert hashes[0] == hashes[1]
        env.reset(seed=22)
        assert env.world_hash() != hashes[0]
    finally:
        env.close()


def test_over_budget_is_refused_and_changes_nothing(shared_bridge):
    env = shared_bridge.parallel_env(scenario="grow", max_cycles=5)
    try:
        env.reset(seed=23)
        session = env.unwrapped._session
        unit = session._units["kingdom_0"]
        x, y = _anchor(env, "kingdom_0")
        spawn = {"entity_id": unit, "x": x, "y": y, "adult": True}
        start = _favor(env, "kingdom_0")
        assert start == 20
        # The god pays nothing.
        session.call("god", "spawn", spawn, changes_world=True)
        assert _favor(env, "kingdom_0") == start
        # The kingdom's player pays 10 an adult: two, then refused.
        session.call("kingdom_0", "spawn", spawn, changes_world=True)
        session.call("kingdom_0", "spawn", spawn, changes_world=True)
        assert _favor(env, "kingdom_0") == 0
        before = env.world_hash()
        with pytest.raises(BridgeCallError) as refused:
            session.call("kingdom_0", "spawn", spawn, changes_world=True)
        assert (refused.value.status, refused.value.code) == (422, "GAME_REJECTED")
        assert "costs 10 favor" in refused.value.bridge_message and "holds 0" in refused.value.bridge_message
        assert env.world_hash() == before
        # A batch item is priced too.
        batch = session.call("kingdom_0", "batch", {"commands": [{"name": "spawn", "args": spawn}]}, changes_world=True)
        assert batch["results"][0]["ok"] is False and batch["results"][0]["error"]["code"] == "GAME_REJECTED"
        # The price list is published.
        actors = {a["id"]: a for a in session.call("god", "list_actors")["items"]}
        assert (actors[unit]["cost"], actors[unit]["adult_cost"]) == (4, 10)
    finally:
        env.close()


def test_mask_hides_what_the_budget_cannot_pay(shared_bridge):
    env = shared_bridge.parallel_env(scenario="grow", max_cycles=20)
    try:
        observations, _ = env.reset(seed=24)
        layout = env.unwrapped.layout
        prices = env.unwrapped._session._prices["kingdom_0"]
        economy = layout.slices["economy"]
        hidden = 0
        while env.agents:
            seen = observations["kingdom_0"]
            favor = float(seen["observation"][economy][0])
            mask = seen["action_mask"]
            for action in np.flatnonzero(mask)[1:]:
                kind, _ = layout.action(int(action))
                assert prices[kind] <= favor, (kind, prices[kind], favor)
            hidden += sum(1 for kind in layout.actions if prices[kind] > favor)
            # The dearest legal action each turn keeps the budget low.
            observations, *_ = env.step({agent: int(np.flatnonzero(observations[agent]["action_mask"])[-1]) for agent in env.agents})
        assert hidden > 0, "the budget ran short at least once"
    finally:
        env.close()


def test_time_left(shared_bridge):
    env = shared_bridge.parallel_env(scenario="grow", max_cycles=4)
    try:
        observations, _ = env.reset(seed=25)
        time = env.unwrapped.layout.slices["time"]
        seen = [float(observations["kingdom_0"]["observation"][time][0])]
        while env.agents:
            observations, _, _, truncations, _ = env.step({agent: 0 for agent in env.agents})
            seen.append(float(observations["kingdom_0"]["observation"][time][0]))
        assert seen == [1.0, 0.75, 0.5, 0.25, 0.0]
        assert truncations["kingdom_0"]
    finally:
        env.close()


def test_duel_is_zero_sum_sees_the_rival_and_ends_with_a_fall(seeing_bridge):
    env = seeing_bridge.parallel_env(scenario="duel", max_cycles=50)
    try:
        observations, _ = env.reset(seed=26)
        layout = env.unwrapped.layout
        s = layout.slices
        seen = observations["kingdom_0"]["observation"]
        assert seen[s["others"]].sum() > 0, "full intel: the other kingdom's people are seen"
        assert seen[s["rival_anchors"]][0] >= 0, "and its cities"
        assert observations["kingdom_0"]["action_mask"][layout.index("lightning", 0)] == 1
        session = env.unwrapped._session
        for _ in range(2):
            _, rewards, terminations, _, _ = env.step({agent: 0 for agent in env.agents})
            assert rewards["kingdom_0"] == -rewards["kingdom_1"]
            assert not any(terminations.values())
        # The god wipes out kingdom_1's cities: it falls, and the duel is over for both.
        for x, y in session._rival_anchors["kingdom_0"].tolist():
            if x >= 0:
                session.call("god", "invoke_power", {"power_id": "atomic_bomb", "x": x, "y": y}, changes_world=True)
        # An observation is taken before its cycle's ticks: the fall, counted at the next census, shows a cycle later.
        for cycle in range(3):
            _, rewards, terminations, _, _ = env.step({agent: 0 for agent in env.agents})
            assert rewards["kingdom_0"] == -rewards["kingdom_1"]
            if any(terminations.values()):
                break
        assert cycle <= 1
        assert terminations == {"kingdom_0": True, "kingdom_1": True}
        assert rewards["kingdom_0"] > 100, "the winner's bonus"
        assert env.agents == []
    finally:
        env.close()


def test_grow_has_no_full_intel_by_default(shared_bridge):
    env = shared_bridge.parallel_env(scenario="grow", max_cycles=2)
    try:
        observations, _ = env.reset(seed=27)
        s = env.unwrapped.layout.slices
        assert observations["kingdom_0"]["observation"][s["others"]].sum() == 0
        assert "rival_anchors" not in s
    finally:
        env.close()


@pytest.mark.parametrize("scenario", ["grow", "duel"])
def test_pettingzoo_api(seeing_bridge, scenario):
    env = seeing_bridge.env(scenario=scenario, seed=5, max_cycles=30)
    try:
        api_test(env, num_cycles=60)
    finally:
        env.close()
    env = seeing_bridge.parallel_env(scenario=scenario, seed=6, max_cycles=30)
    try:
        parallel_api_test(env, num_cycles=60)
    finally:
        env.close()


@pytest.mark.parametrize("scenario", ["grow", "duel"])
def test_pettingzoo_seed(scenario):
    seed_test(lambda: gcb_env.env(scenario=scenario, seed=3, max_cycles=20), num_cycles=40)


def test_evaluation_reports_duel_win_rate():
    from gcb_env.evaluate import evaluate

    report = evaluate("duel", "bot:aggressor", ["builder"], seeds=[10_000, 10_001], baseline="bot:noop", env_options={"max_cycles": 3})
    result = report["results"][0]
    assert report["metric"] == "win rate"
    assert result["win_rate"]["n"] == 2 and 0.0 <= result["win_rate"]["mean"] <= 1.0
    assert all(e["win"] in (0.0, 0.5, 1.0) and e["baseline_win"] in (0.0, 0.5, 1.0) for e in result["episodes"])
    low, high = result["win_rate"]["ci95"]
    assert 0.0 <= low <= result["win_rate"]["mean"] <= high <= 1.0


def test_duel_bots_keep_to_the_mask_and_are_seeded(seeing_bridge):
    from gcb_env import bots
    from gcb_env.evaluate import play_episode

    env = seeing_bridge.parallel_env(scenario="duel", max_cycles=10)
    layout = env.unwrapped.layout
    try:
        for name in bots.SCENARIO_BOTS["duel"]:
            bot, opponent = bots.make_bot(name, layout), bots.make_bot("aggressor", layout)
            # An action the mask forbids would raise InvalidAction inside the env.
            assert play_episode(env, 10_004, bot, opponent) == play_episode(env, 10_004, bot, opponent), name
    finally:
        env.close()


def test_tuned_duel_strikes_a_crowded_rival_city_with_plague_first():
    from gcb_env import bots
    from gcb_env._spaces import CITY_STATS
    from gcb_env.evaluate import SCENARIOS

    layout = SCENARIOS["duel"].layout({})
    bot = bots.make_bot("tuned_duel", layout)
    s, k, width = layout.slices, layout.anchors, len(CITY_STATS)
    units, housing = CITY_STATS.index("units"), CITY_STATS.index("housing")

    def seen(rival_units, favor=60.0):
        obs = np.zeros(layout.size, dtype=np.float32)
        obs[s["time"]] = 1.0
        obs[s["anchors"]] = [3, 3] + [-1, -1] * (k - 1)
        obs[s["rival_anchors"]] = [5, 5, 6, 6] + [-1, -1] * (k - 2)
        rival = np.zeros((k, width), dtype=np.float32)
        rival[: len(rival_units), units] = rival_units
        obs[s["rival_cities"]] = rival.ravel()
        own = np.zeros((k, width), dtype=np.float32)
        own[0, housing] = 20
        obs[s["cities"]] = own.ravel()
        obs[s["economy"]] = [favor, 60, 2]
        return obs

    everything = np.ones(layout.n_actions, dtype=np.int8)
    # The rival's crowded city (at least strike_min people) takes plague; a thin one is left alone.
    assert layout.action(bot(seen([4, 12]), everything)) == ("plague", 1)
    without_plague = everything.copy()
    without_plague[layout.index("plague", 1)] = 0
    assert layout.action(bot(seen([4, 12]), without_plague)) == ("lightning", 1)
    assert layout.action(bot(seen([4, 9]), everything)) == ("adult", 0), "no rival city is worth a strike: build"
    assert bot(seen([4, 9], favor=5.0), everything) == 0, "too poor for an adult: wait"


@pytest.mark.parametrize("scenario", ["grow", "duel"])
def test_the_published_baseline_plays_its_published_episodes(request, scenario):
    """The policy file in docs/baselines, loaded with numpy alone, plays the first held-out seeds'
    episodes of its published report again: the same returns and the same final world hashes."""
    import json
    from pathlib import Path

    from gcb_env import bots
    from gcb_env.evaluate import play_episode
    from gcb_env.policy import load_policy

    folder = Path(__file__).resolve().parents[2] / "docs" / "baselines"
    report = json.loads((folder / f"eval-{scenario}-ppo-seed1.json").read_text())
    policy = load_policy(folder / f"ppo-{scenario}-seed1.npz")
    # Each scenario's own intel: duel's players see everything, grow's do not.
    bridge = request.getfixturevalue("seeing_bridge" if scenario == "duel" else "shared_bridge")
    env = bridge.parallel_env(scenario=scenario)
    try:
        layout = env.unwrapped.layout
        for result in report["results"][:2]:
            opponent = bots.make_bot(result["opponent"], layout)
            for published in result["episodes"][:2]:
                episode = play_episode(env, published["seed"], policy, opponent)
                assert (episode["return"], episode["hash"]) == (published["return"], published["hash"]), (result["opponent"], published["seed"])
    finally:
        env.close()
