"""The evaluation protocol (gcb_env.evaluate): fixed seeds give the same report every time, the
intervals are Student's and Wilson's, a paired comparison is the mean of per-seed differences, the
CLI prints and writes the same figures; the players it loads (bots, policy files, MODULE:ATTR) keep
to the mask; and the env module stays free of torch and ray."""

from __future__ import annotations

import json
import math
import subprocess
import sys

import numpy as np
import pytest

import gcb_env
from gcb_env import bots, evaluate
from gcb_env._stats import mean_interval, t_quantile, wilson_interval
from gcb_env.policy import load_policy, save_policy
from gcb_env.versus import TRAINING_SEEDS, VersusEnv

LAYOUT = gcb_env.Layout(16, 4)
SEEDS = [10_000, 10_001, 10_002]
QUICK = {"max_cycles": 8}


def test_intervals_match_published_tables():
    # Student's t: the 97.5% quantiles of a two-sided 95% interval (any statistics table).
    for df, expected in [(1, 12.7062), (4, 2.7764), (9, 2.2622), (49, 2.0096), (1000, 1.9623)]:
        assert t_quantile(0.975, df) == pytest.approx(expected, abs=1e-4)
    assert t_quantile(0.025, 5) == pytest.approx(-2.5706, abs=1e-4)
    figures = mean_interval([1.0, 2.0, 3.0, 4.0, 5.0])
    half = 2.7764 * math.sqrt(2.5) / math.sqrt(5)
    assert figures["mean"] == 3.0 and figures["std"] == pytest.approx(math.sqrt(2.5))
    assert figures["ci"] == pytest.approx([3.0 - half, 3.0 + half], abs=1e-3)
    # Wilson's interval for 45 wins in 50: the textbook figures.
    assert wilson_interval(45, 50) == pytest.approx([0.7864, 0.9565], abs=1e-4)
    assert wilson_interval(0, 50)[0] == 0.0 and wilson_interval(50, 50)[1] == 1.0
    with pytest.raises(ValueError):
        mean_interval([])


def test_report_is_the_same_every_time_and_pairs_by_seed(shared_bridge):
    options = {"url": shared_bridge.url, "tokens": shared_bridge.tokens, **QUICK}
    first = evaluate.evaluate("default", "bot:round_robin", ["noop", "random"], SEEDS, baseline="random", env_options=options)
    again = evaluate.evaluate("default", "bot:round_robin", ["noop", "random"], SEEDS, baseline="random", env_options=options)
    assert first["seeds"] == SEEDS and not first["held_out"]
    assert "url" not in first["env"] and "tokens" not in first["env"], "no credential goes into a report"
    for one, other in zip(first["results"], again["results"]):
        assert one["episodes"] == other["episodes"], "one seed, one episode: returns and world hashes alike"
    for result in first["results"]:
        episodes = result["episodes"]
        assert [e["seed"] for e in episodes] == SEEDS
        assert all(e["cycles"] == QUICK["max_cycles"] for e in episodes)
        returns = [e["return"] for e in episodes]
        assert result["policy"]["mean"] == pytest.approx(np.mean(returns))
        low, high = result["policy"]["ci95"]
        assert low <= result["policy"]["mean"] <= high
        differences = [e["return"] - e["baseline_return"] for e in episodes]
        assert result["difference"]["mean"] == pytest.approx(np.mean(differences))
        assert result["difference"]["std"] == pytest.approx(np.std(differences, ddof=1))
    with pytest.raises(ValueError, match="its own bridge"):
        evaluate.evaluate("default", "noop", ["noop"], SEEDS, workers=2, env_options=options)
    # All the opponents at once: each seed's mean over them, paired by seed.
    overall = first["overall"]
    assert overall["opponents"] == ["noop", "random"]
    per_seed = np.mean([[e["return"] for e in r["episodes"]] for r in first["results"]], axis=0)
    per_seed_baseline = np.mean([[e["baseline_return"] for e in r["episodes"]] for r in first["results"]], axis=0)
    assert overall["policy"]["n"] == len(SEEDS) and overall["policy"]["mean"] == pytest.approx(per_seed.mean())
    assert overall["difference"]["std"] == pytest.approx(np.std(per_seed - per_seed_baseline, ddof=1))
    assert "all (by seed)" in evaluate.format_report(first)
    # The opponent plays the world's other kingdom: another opponent, other worlds.
    noop, random_ = first["results"]
    assert noop["opponent"] == "noop" and random_["opponent"] == "random"
    assert [e["hash"] for e in noop["episodes"]] != [e["hash"] for e in random_["episodes"]]


def test_workers_give_the_report_one_process_gives(shared_bridge):
    # Two worker processes, each with its own env and bridge, share the seeds out; the episodes are
    # the ones the shared bridge plays in this process.
    one = evaluate.evaluate("default", "random", ["random"], SEEDS[:2], env_options={"url": shared_bridge.url, "tokens": shared_bridge.tokens, **QUICK})
    two = evaluate.evaluate("default", "random", ["random"], SEEDS[:2], workers=2, env_options=QUICK)
    assert two["results"][0]["episodes"] == one["results"][0]["episodes"]


def test_the_cli_prints_and_writes_the_same_report(tmp_path):
    out = tmp_path / "report.json"
    done = subprocess.run(
        [sys.executable, "-m", "gcb_env.evaluate", "--policy", "first_spawn", "--opponent", "noop", "--seeds", "10000-10001", "--max-cycles", "5", "--json", str(out)],
        capture_output=True,
        text=True,
        timeout=240,
    )
    assert done.returncode == 0, done.stderr
    report = json.loads(out.read_text())
    assert report["scenario"] == "default" and report["policy"] == "first_spawn" and report["seeds"] == [10_000, 10_001]
    (result,) = report["results"]
    low, high = result["policy"]["ci95"]
    assert f"{result['policy']['mean']:.1f} [{low:.1f}, {high:.1f}]" in done.stdout
    assert "noop" in done.stdout and "95% interval" in done.stdout


def test_the_cli_refuses_a_bad_player_before_any_bridge_starts(capsys, monkeypatch):
    started = []
    monkeypatch.setattr(gcb_env, "parallel_env", lambda *a, **k: started.append(k))
    for spec, why in [("bot:nobody", "no bot named 'nobody'"), ("no_such_module:policy", "no_such_module"), ("neither", "neither a bot")]:
        with pytest.raises(SystemExit) as exited:
            evaluate.main(["--policy", spec])
        assert exited.value.code == 2 and why in capsys.readouterr().err
    assert started == [], "no env was made, so no bridge started"


def test_the_held_out_seeds_are_fifty_and_never_trained_on():
    assert len(evaluate.HELD_OUT) >= 50 and len(set(evaluate.HELD_OUT)) == len(evaluate.HELD_OUT)
    low, high = TRAINING_SEEDS
    assert all(not low <= seed < high for seed in evaluate.HELD_OUT)
    assert set(evaluate.FIXED_OPPONENTS) <= set(bots.BOTS) and {"noop", "random"} <= set(evaluate.FIXED_OPPONENTS)


def _one_hot_policy(path, favourite: int, second: int):
    """A policy file whose logits rank `favourite` first and `second` next, whatever it sees."""
    size, n = LAYOUT.size, LAYOUT.n_actions
    bias = np.zeros(n)
    bias[favourite], bias[second] = 2.0, 1.0
    layers = [(np.zeros((4, size)), np.zeros(4)), (np.zeros((n, 4)), bias)]
    return save_policy(path, layers, {"scenario": "default"})


def test_a_policy_file_plays_the_best_legal_action(tmp_path):
    path = _one_hot_policy(tmp_path / "p.npz", favourite=7, second=1)
    policy = load_policy(path)
    observation = np.zeros(LAYOUT.size, dtype=np.float32)
    mask = np.zeros(LAYOUT.n_actions, dtype=np.int8)
    mask[[0, 1, 7]] = 1
    assert policy(observation, mask) == 7
    mask[7] = 0
    assert policy(observation, mask) == 1, "a masked action is never played, however high its logit"
    assert policy(observation, np.zeros_like(mask)) == 0
    assert policy.meta["scenario"] == "default" and policy.meta["n_actions"] == LAYOUT.n_actions
    # Sampling draws from the masked softmax, the same draws for the same seed.
    mask[:] = 1
    sampled = load_policy(path, sample=True, seed=3)
    draws = [sampled(observation, mask) for _ in range(40)]
    sampled.reset(3)
    assert [sampled(observation, mask) for _ in range(40)] == draws
    assert set(draws) > {7}
    with pytest.raises(ValueError, match="observation of shape"):
        policy(np.zeros(5), mask)
    (tmp_path / "not.npz").write_bytes(b"not a policy")
    with pytest.raises(ValueError, match="not a gcb_env policy file"):
        load_policy(tmp_path / "not.npz")


def test_evaluate_plays_a_policy_file_and_an_importable_player(shared_bridge, tmp_path):
    path = _one_hot_policy(tmp_path / "spawner.npz", favourite=1, second=0)  # spawn at the first city
    options = {"url": shared_bridge.url, "tokens": shared_bridge.tokens, **QUICK}
    report = evaluate.evaluate("default", str(path), ["noop"], SEEDS[:2], baseline="gcb_env.bots:FirstSpawn", env_options=options)
    (result,) = report["results"]
    # The file's player and the bot spawn at the first city every turn: the same episodes.
    assert [e["return"] for e in result["episodes"]] == [e["baseline_return"] for e in result["episodes"]]
    assert [e["hash"] for e in result["episodes"]] == [e["baseline_hash"] for e in result["episodes"]]
    assert result["difference"]["mean"] == 0.0


@pytest.mark.parametrize("scenario", ["default", "grow"])
def test_bots_keep_to_the_mask_and_random_is_seeded(shared_bridge, scenario):
    # duel's bots: tests/test_scenarios.py, on a bridge whose players see every kingdom.
    env = shared_bridge.parallel_env(scenario=scenario, max_cycles=15)
    layout = env.unwrapped.layout
    try:
        for name in bots.SCENARIO_BOTS[scenario]:
            bot = bots.make_bot(name, layout)
            opponent = bots.make_bot("random", layout)
            # An action the mask forbids would raise InvalidAction inside the env.
            first = evaluate.play_episode(env, 10_003, bot, opponent)
            again = evaluate.play_episode(env, 10_003, bot, opponent)
            assert first == again, name
    finally:
        env.close()
    assert set(bots.BOTS) == {name for names in bots.SCENARIO_BOTS.values() for name in names}, "each bot plays a scenario"
    with pytest.raises(ValueError, match="no bot named"):
        bots.make_bot("nobody", LAYOUT)


def test_versus_env_draws_training_worlds_and_reports_episodes(shared_bridge):
    env = VersusEnv(opponent="random", url=shared_bridge.url, tokens=shared_bridge.tokens, max_cycles=3)
    try:
        _, info = env.reset(seed=5)
        low, high = TRAINING_SEEDS
        assert low <= info["world_seed"] < high
        first_world = info["world_seed"]
        done = False
        while not done:
            _, _, terminated, truncated, info = env.step(0)
            done = terminated or truncated
        assert info["episode"]["l"] == 3 and info["episode"]["world_seed"] == first_world
        _, info = env.reset(seed=5)
        assert info["world_seed"] == first_world, "the same seed draws the same worlds"
        _, info = env.reset(options={"world_seed": 10_000})
        assert info["world_seed"] == 10_000
    finally:
        env.close()


def test_versus_env_draws_its_opponent_from_several_at_each_reset(shared_bridge):
    env = VersusEnv(opponent="noop,random,first_spawn", url=shared_bridge.url, tokens=shared_bridge.tokens, max_cycles=2)
    try:
        drawn = []
        env.reset(seed=11)
        for _ in range(12):
            drawn.append(next(iter(env.opponents.values())).name)
            env.reset()
        assert set(drawn) == {"noop", "random", "first_spawn"}, drawn
        env.reset(seed=11)
        again = []
        for _ in range(12):
            again.append(next(iter(env.opponents.values())).name)
            env.reset()
        assert again == drawn, "one seed, one sequence of opponents"
    finally:
        env.close()


def test_the_env_module_imports_neither_torch_nor_ray():
    code = (
        "import sys, gcb_env, gcb_env.bots, gcb_env.evaluate, gcb_env.policy, gcb_env.versus;"
        "print(sorted(m for m in ('torch', 'ray') if m in sys.modules))"
    )
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=60)
    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "[]", "vector workers spawned for the env stay small"
