"""PPO with action masking, in the style of CleanRL's ppo.py (one file, the whole algorithm in
view), on torch CPU: kingdom_0 learns against fixed bots, over N envs at once.

    pip install ./python[train]
    python -m gcb_env.baselines.ppo --scenario default --opponent random --envs 2 --total-steps 100000 --seed 1 --out ppo.npz

What it writes:
- `--out` (a .npz): the actor at the end, and `<out stem>-best.npz` the one with the best mean on the
  validation seeds so far (model selection that never sees the held-out seeds); each is the actor, which gcb_env.policy.load_policy plays without torch
  (`load_policy(path)(observation, action_mask) -> action`); `gcb_env.evaluate --policy ppo.npz`
  measures it on the held-out seeds;
- beside it, `<out>.pt`: the whole agent (actor, critic, optimiser) for a later look;
- `<out>.csv`: the learning curve, one row per update: env steps, seconds, the mean return of the
  training episodes finished since the last row, and every `--eval-every` updates the mean return
  of the greedy policy on the validation seeds (VALIDATION_SEEDS: neither training worlds nor the
  held-out ones).

One env step is one cycle of the env (kingdom_0 acts, the opponents act, the world runs its ticks).
Masked actions get a logit of -1e8, as in Huang and Ontañón's invalid action masking. The
observation goes through symlog (sign(x) · log(1 + |x|)) before the networks: counts of hundreds
and tile indexes on one scale. Training worlds come from gcb_env.versus.TRAINING_SEEDS, each env's
generator seeded with seed + its index. With `--total-steps` the run is the same every time for one
seed and one number of envs (torch on one thread); `--minutes` stops it at a wall-time budget
instead, wherever it has got to.
"""

from __future__ import annotations

import argparse
import csv
import json
import random
import shutil
import time
from dataclasses import asdict, dataclass
from pathlib import Path
from typing import Any, Optional, Sequence

import numpy as np
import torch
from torch import nn
from torch.distributions.categorical import Categorical

from ..evaluate import SCENARIOS, load_player, play_episode, reset_player
from ..policy import load_policy, save_policy
from ..versus import VersusEnv

__all__ = ["Args", "Agent", "RECIPES", "train", "load_policy", "VALIDATION_SEEDS"]

VALIDATION_SEEDS = tuple(range(900_000, 900_010))
# What the end of a run takes, reserved within --minutes: two bridges stopping, the files written.
CLOSING_S = 5.0


@dataclass
class Args:
    scenario: str = "default"
    opponent: str = "random"  # a bot, or several separated by commas: each episode's is drawn from them
    envs: int = 2
    vector: str = "async"  # async (a process per env), ray (an actor per env) or inproc
    seed: int = 1
    total_steps: int = 100_000
    minutes: Optional[float] = None
    num_steps: int = 128  # steps per env per rollout
    learning_rate: float = 2.5e-4
    anneal_lr: bool = True
    gamma: float = 0.99
    gae_lambda: float = 0.95
    minibatches: int = 4
    epochs: int = 4
    clip: float = 0.2
    ent_coef: float = 0.01
    vf_coef: float = 0.5
    # Value clipping, as CleanRL's, holds the critic within `clip` of its last value: on returns in the
    # hundreds that is a critic that barely moves, so it is off unless asked for.
    clip_vloss: bool = False
    reward_scale: float = 1.0  # rewards are multiplied by it for learning (the curve shows them unscaled)
    max_grad_norm: float = 0.5
    hidden: int = 128
    eval_every: int = 10  # updates between two validation runs (0: none)
    eval_opponent: str = "random"  # one bot, or several separated by commas
    out: str = "ppo.npz"
    max_cycles: Optional[int] = None  # shorter episodes than the scenario's
    # Learning from a bot first: for the first `teacher_steps` env steps the bot `teacher` plays and
    # the actor learns to imitate it (cross-entropy) while the critic learns its returns; PPO then
    # improves on that start instead of on a random one.
    teacher: str = ""
    teacher_steps: int = 0


# What each scenario's published baseline was trained with (docs/scenarios.md): `--recipe NAME` starts
# from these, and flags given beside it override them.
RECIPES: dict[str, dict[str, Any]] = {
    "grow": dict(
        scenario="grow", opponent="noop", eval_opponent="noop", envs=2, vector="async", total_steps=180_000, minutes=15.0,
        teacher="bot:tuned_grow", teacher_steps=20_000, gamma=1.0, reward_scale=0.05,
    ),
    "duel": dict(
        scenario="duel", opponent="noop,random,aggressor,builder,tuned_duel", eval_opponent="noop,random,aggressor,builder,tuned_duel",
        envs=2, vector="async", total_steps=180_000, minutes=15.0, teacher="bot:tuned_duel", teacher_steps=20_000,
        gamma=1.0, reward_scale=0.02, eval_every=25,
    ),
}


def symlog(x: torch.Tensor) -> torch.Tensor:
    return torch.sign(x) * torch.log1p(torch.abs(x))


def layer_init(layer: nn.Linear, std: float = float(np.sqrt(2)), bias: float = 0.0) -> nn.Linear:
    torch.nn.init.orthogonal_(layer.weight, std)
    torch.nn.init.constant_(layer.bias, bias)
    return layer


class Agent(nn.Module):
    """Separate actor and critic MLPs (tanh), as CleanRL's; the actor is what the .npz holds."""

    def __init__(self, observation_size: int, n_actions: int, hidden: int):
        super().__init__()
        self.critic = nn.Sequential(
            layer_init(nn.Linear(observation_size, hidden)), nn.Tanh(), layer_init(nn.Linear(hidden, hidden)), nn.Tanh(), layer_init(nn.Linear(hidden, 1), std=1.0)
        )
        self.actor = nn.Sequential(
            layer_init(nn.Linear(observation_size, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, hidden)),
            nn.Tanh(),
            layer_init(nn.Linear(hidden, n_actions), std=0.01),
        )

    def value(self, x: torch.Tensor) -> torch.Tensor:
        return self.critic(symlog(x)).squeeze(-1)

    def act(self, x: torch.Tensor, mask: torch.Tensor, action: Optional[torch.Tensor] = None):
        logits = self.actor(symlog(x))
        logits = torch.where(mask, logits, torch.tensor(-1e8))
        dist = Categorical(logits=logits)
        if action is None:
            action = dist.sample()
        # The entropy of the legal actions only: a masked action's p log p is 0, not -1e8 · 0.
        p_log_p = torch.where(mask, dist.probs * dist.logits, torch.zeros_like(logits))
        return action, dist.log_prob(action), -p_log_p.sum(-1), self.critic(symlog(x)).squeeze(-1)

    def actor_layers(self) -> list[tuple[np.ndarray, np.ndarray]]:
        return [(m.weight.detach().numpy().copy(), m.bias.detach().numpy().copy()) for m in self.actor if isinstance(m, nn.Linear)]


# --- N envs at once --------------------------------------------------------------------------


class Vector:
    """reset() -> (observations, masks); step(actions) -> (observations, masks, rewards, dones,
    finished episodes); an env whose episode ended has already started the next."""

    def __init__(self, args: Args, env_kwargs: dict):
        self.n = args.envs
        self.kind = args.vector
        if self.kind == "ray":
            from .. import ray_rollouts

            ray_rollouts.init(num_cpus=max(2, self.n))
            self.actors = [
                ray_rollouts.make_actors(1, env_kwargs, learner_opponent=args.opponent, seed=args.seed + i)[0] for i in range(self.n)
            ]
        elif self.kind == "async":
            import gymnasium

            self.vec = gymnasium.vector.AsyncVectorEnv(
                [_maker(args.opponent, env_kwargs) for _ in range(self.n)],
                context="spawn",
                autoreset_mode=gymnasium.vector.AutoresetMode.SAME_STEP,
            )
        elif self.kind == "inproc":
            self.envs = [VersusEnv(opponent=args.opponent, **env_kwargs) for _ in range(self.n)]
        else:
            raise ValueError(f"vector must be async, ray or inproc, got {self.kind!r}")
        self.seed = args.seed

    def reset(self) -> tuple[np.ndarray, np.ndarray]:
        if self.kind == "ray":
            import ray

            answers = ray.get([a.learner_reset.remote() for a in self.actors])
            return np.stack([a[0] for a in answers]), np.stack([a[1] for a in answers])
        if self.kind == "async":
            obs, _ = self.vec.reset(seed=[self.seed + i for i in range(self.n)])
            return obs["observation"], obs["action_mask"]
        seen = [env.reset(seed=self.seed + i)[0] for i, env in enumerate(self.envs)]
        return np.stack([s["observation"] for s in seen]), np.stack([s["action_mask"] for s in seen])

    def step(self, actions: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray, list[dict]]:
        if self.kind == "ray":
            import ray

            answers = ray.get([a.learner_step.remote(int(x)) for a, x in zip(self.actors, actions)])
            finished = [a[4]["episode"] for a in answers if a[3]]
            return (
                np.stack([a[0] for a in answers]),
                np.stack([a[1] for a in answers]),
                np.array([a[2] for a in answers], dtype=np.float32),
                np.array([a[3] for a in answers]),
                finished,
            )
        if self.kind == "async":
            obs, rewards, terminated, truncated, infos = self.vec.step(actions)
            dones = terminated | truncated
            # Under SAME_STEP autoreset the info of an episode's last step is the reset's: its own is final_info.
            last = infos.get("final_info", {})
            finished = []
            if "episode" in last:
                for i in np.flatnonzero(last["_episode"]):
                    finished.append({key: value[i] for key, value in last["episode"].items() if not key.startswith("_")})
            return obs["observation"], obs["action_mask"], rewards.astype(np.float32), dones, finished
        out, finished = [], []
        for env, action in zip(self.envs, actions):
            seen, reward, terminated, truncated, info = env.step(int(action))
            done = terminated or truncated
            if done:
                finished.append(info["episode"])
                seen, _ = env.reset()
            out.append((seen, reward, done))
        return (
            np.stack([o[0]["observation"] for o in out]),
            np.stack([o[0]["action_mask"] for o in out]),
            np.array([o[1] for o in out], dtype=np.float32),
            np.array([o[2] for o in out]),
            finished,
        )

    def close(self) -> None:
        if self.kind == "ray":
            from .. import ray_rollouts

            ray_rollouts.close(self.actors)
        elif self.kind == "async":
            self.vec.close()
        else:
            for env in self.envs:
                env.close()


def _maker(opponent: str, env_kwargs: dict):
    def make() -> VersusEnv:
        return VersusEnv(opponent=opponent, **env_kwargs)

    return make


# --- validation --------------------------------------------------------------------------------


def validate(path: Path, env: Any, layout: Any, opponent: str) -> float:
    """The mean return of the saved (greedy) policy on the validation seeds, against each of the
    opponents (comma-separated) in turn."""
    policy = load_policy(path)
    rivals = [load_player(name, layout) for name in opponent.split(",")]
    return float(np.mean([play_episode(env, seed, policy, rival)["return"] for rival in rivals for seed in VALIDATION_SEEDS]))


# --- training ----------------------------------------------------------------------------------


def train(args: Args) -> dict[str, Any]:
    import gcb_env

    scenario = SCENARIOS[args.scenario]
    env_kwargs = dict(scenario.env)
    if args.max_cycles is not None:
        env_kwargs["max_cycles"] = args.max_cycles
    layout = scenario.layout(env_kwargs)
    random.seed(args.seed)
    np.random.seed(args.seed)
    torch.manual_seed(args.seed)
    torch.set_num_threads(1)  # the bridges need the cores; and one thread keeps the run the same every time
    out = Path(args.out)
    batch = args.envs * args.num_steps
    minibatch = batch // args.minibatches
    updates = max(1, args.total_steps // batch)
    agent = Agent(layout.size, layout.n_actions, args.hidden)
    optimiser = torch.optim.Adam(agent.parameters(), lr=args.learning_rate, eps=1e-5)

    obs = torch.zeros((args.num_steps, args.envs, layout.size))
    masks = torch.zeros((args.num_steps, args.envs, layout.n_actions), dtype=torch.bool)
    actions = torch.zeros((args.num_steps, args.envs), dtype=torch.long)
    logprobs = torch.zeros((args.num_steps, args.envs))
    rewards = torch.zeros((args.num_steps, args.envs))
    dones = torch.zeros((args.num_steps, args.envs))
    values = torch.zeros((args.num_steps, args.envs))

    started = time.perf_counter()  # the budget counts the bridges' start too
    vector = Vector(args, env_kwargs)
    teachers = [load_player(args.teacher, layout) for _ in range(args.envs)] if args.teacher and args.teacher_steps > 0 else []
    for n, teacher in enumerate(teachers):
        reset_player(teacher, args.seed + n)
    validation_env = gcb_env.parallel_env(**env_kwargs) if args.eval_every else None
    curve_path = out.with_suffix(".csv")
    best_path = out.with_name(out.stem + "-best" + out.suffix)
    best: Optional[float] = None
    rows: list[dict] = []
    last_update = 0.0
    steps = 0
    try:
        next_obs_np, next_mask_np = vector.reset()
        next_obs = torch.tensor(next_obs_np, dtype=torch.float32)
        next_mask = torch.tensor(next_mask_np != 0)
        next_done = torch.zeros(args.envs)
        for update in range(1, updates + 1):
            # Stop while the next update (as long as the last) and the closing (the envs' bridges
            # stop, the files are written: CLOSING_S at most) still end within the budget.
            if args.minutes is not None and time.perf_counter() - started + last_update + CLOSING_S > 60 * args.minutes:
                break
            update_started = time.perf_counter()
            if args.anneal_lr:
                optimiser.param_groups[0]["lr"] = (1.0 - (update - 1.0) / updates) * args.learning_rate
            finished: list[dict] = []
            imitating = bool(teachers) and steps < args.teacher_steps
            for t in range(args.num_steps):
                steps += args.envs
                obs[t], masks[t], dones[t] = next_obs, next_mask, next_done
                with torch.no_grad():
                    if imitating:
                        shown = torch.tensor([int(teacher(o, m)) for teacher, o, m in zip(teachers, next_obs_np, next_mask_np)])
                        action, logprob, _, value = agent.act(next_obs, next_mask, shown)
                    else:
                        action, logprob, _, value = agent.act(next_obs, next_mask)
                actions[t], logprobs[t], values[t] = action, logprob, value
                next_obs_np, next_mask_np, reward, done, episodes = vector.step(action.numpy())
                finished.extend(episodes)
                rewards[t] = torch.tensor(reward) * args.reward_scale
                next_obs = torch.tensor(next_obs_np, dtype=torch.float32)
                next_mask = torch.tensor(next_mask_np != 0)
                next_done = torch.tensor(done, dtype=torch.float32)
                for n in np.flatnonzero(done) if imitating else ():
                    reset_player(teachers[n], args.seed + n + steps)

            with torch.no_grad():
                next_value = agent.value(next_obs)
                advantages = torch.zeros_like(rewards)
                last = torch.zeros(args.envs)
                for t in reversed(range(args.num_steps)):
                    if t == args.num_steps - 1:
                        nonterminal, following = 1.0 - next_done, next_value
                    else:
                        nonterminal, following = 1.0 - dones[t + 1], values[t + 1]
                    delta = rewards[t] + args.gamma * following * nonterminal - values[t]
                    last = delta + args.gamma * args.gae_lambda * nonterminal * last
                    advantages[t] = last
                returns = advantages + values

            b_obs, b_masks = obs.reshape(batch, -1), masks.reshape(batch, -1)
            b_actions, b_logprobs = actions.reshape(-1), logprobs.reshape(-1)
            b_advantages, b_returns, b_values = advantages.reshape(-1), returns.reshape(-1), values.reshape(-1)
            order = np.arange(batch)
            clip_fractions = []
            for _ in range(args.epochs):
                np.random.shuffle(order)
                for start in range(0, batch, minibatch):
                    idx = order[start : start + minibatch]
                    _, new_logprob, entropy, new_value = agent.act(b_obs[idx], b_masks[idx], b_actions[idx])
                    if imitating:
                        # The teacher's actions are the targets: cross-entropy, and no clipped ratio (they are off-policy).
                        policy_loss = -new_logprob.mean()
                        clip_fractions.append(0.0)
                    else:
                        log_ratio = new_logprob - b_logprobs[idx]
                        ratio = log_ratio.exp()
                        clip_fractions.append(((ratio - 1.0).abs() > args.clip).float().mean().item())
                        adv = b_advantages[idx]
                        adv = (adv - adv.mean()) / (adv.std() + 1e-8)
                        policy_loss = torch.max(-adv * ratio, -adv * torch.clamp(ratio, 1 - args.clip, 1 + args.clip)).mean()
                    value_loss = (new_value - b_returns[idx]) ** 2
                    if args.clip_vloss:
                        value_clipped = b_values[idx] + torch.clamp(new_value - b_values[idx], -args.clip, args.clip)
                        value_loss = torch.max(value_loss, (value_clipped - b_returns[idx]) ** 2)
                    value_loss = 0.5 * value_loss.mean()
                    loss = policy_loss - args.ent_coef * entropy.mean() + args.vf_coef * value_loss
                    optimiser.zero_grad()
                    loss.backward()
                    nn.utils.clip_grad_norm_(agent.parameters(), args.max_grad_norm)
                    optimiser.step()

            row = {
                "update": update,
                "steps": steps,
                "seconds": round(time.perf_counter() - started, 1),
                "train_return": float(np.mean([e["r"] for e in finished])) if finished else "",
                "episodes": len(finished),
                "entropy": round(float(entropy.mean().detach()), 4),
                "clip_fraction": round(float(np.mean(clip_fractions)), 4),
                "eval_return": "",
                "phase": "imitate" if imitating else "ppo",
            }
            if validation_env is not None and (update % args.eval_every == 0 or update == updates):
                save(agent, out, args, layout, steps)
                row["eval_return"] = validate(out, validation_env, layout, args.eval_opponent)
                # Model selection on the validation seeds (never the held-out ones): the best so far is kept beside.
                if best is None or row["eval_return"] > best:
                    best = row["eval_return"]
                    shutil.copyfile(out, best_path)
            rows.append(row)
            last_update = time.perf_counter() - update_started
            _write_curve(curve_path, rows)
            print(json.dumps(row), flush=True)
    finally:
        vector.close()
        if validation_env is not None:
            validation_env.close()
    save(agent, out, args, layout, steps)
    torch.save({"agent": agent.state_dict(), "optimiser": optimiser.state_dict(), "args": asdict(args), "steps": steps}, out.with_suffix(".pt"))
    return {"out": str(out), "best": str(best_path) if best is not None else None, "best_eval_return": best, "curve": str(curve_path), "steps": steps, "seconds": time.perf_counter() - started, "rows": rows}


def save(agent: Agent, out: Path, args: Args, layout: Any, steps: int) -> None:
    meta = {"trainer": "gcb_env.baselines.ppo", "scenario": args.scenario, "grid": layout.grid, "anchors": layout.anchors, "steps": steps, "args": asdict(args)}
    save_policy(out, agent.actor_layers(), meta)


def _write_curve(path: Path, rows: Sequence[dict]) -> None:
    with open(path, "w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)


def main(argv: Optional[Sequence[str]] = None) -> None:
    parser = argparse.ArgumentParser(prog="python -m gcb_env.baselines.ppo", description=__doc__.split("\n\n")[0])
    parser.add_argument("--recipe", choices=sorted(RECIPES), help="start from a published baseline's settings (flags beside it override them)")
    for name, default in asdict(Args()).items():
        flag = "--" + name.replace("_", "-")
        if isinstance(default, bool):
            parser.add_argument(flag, type=lambda v: v.lower() in ("1", "true", "yes"), default=default)
        elif default is None:
            parser.add_argument(flag, type=float if name == "minutes" else int, default=None)
        else:
            parser.add_argument(flag, type=type(default), default=default)
    recipe = parser.parse_known_args(argv)[0].recipe
    if recipe is not None:
        parser.set_defaults(**RECIPES[recipe])
    chosen = vars(parser.parse_args(argv))
    chosen.pop("recipe")
    args = Args(**chosen)
    if args.scenario not in SCENARIOS:
        parser.error(f"no scenario named {args.scenario!r}; the scenarios are {sorted(SCENARIOS)}")
    result = train(args)
    print(json.dumps({k: v for k, v in result.items() if k != "rows"}))


if __name__ == "__main__":
    main()
