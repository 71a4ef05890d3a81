"""Fixed players for the kingdoms env: the opponents of the evaluation protocol and the references a
learned policy is measured against. Numpy only (no torch), so any worker can run them.

A policy here is a callable `policy(observation, action_mask) -> action` over one agent's flat
observation and mask, as the env hands them out; one that keeps state between turns also has
`reset(seed)`, which the evaluation calls at the start of each episode. Bots that draw at random
draw from a generator seeded there, so an episode is the same every time it is played.

    bot = gcb_env.bots.make_bot("round_robin", env.unwrapped.layout)  # or Layout(grid, anchors)
    bot.reset(seed)
    action = bot(obs["observation"], obs["action_mask"])
"""

from __future__ import annotations

from typing import Callable, Optional

import numpy as np

from ._spaces import Layout

__all__ = ["Bot", "NoOp", "RandomLegal", "FirstSpawn", "RoundRobin", "BOTS", "make_bot"]


class Bot:
    """A player of one kingdom: `reset(seed)` at each episode's start, then one call per turn."""

    name = "bot"

    def __init__(self, layout: Layout):
        self.layout = layout
        # Each macro action's index, by (kind, anchor): the bots name what they want, not a number.
        self.index = {layout.action(a): a for a in range(layout.n_actions)}
        self.turn = 0

    def reset(self, seed: Optional[int] = None) -> None:
        self.turn = 0

    def __call__(self, observation: np.ndarray, mask: np.ndarray) -> int:
        action = self.choose(observation, mask)
        self.turn += 1
        return action

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        raise NotImplementedError

    def legal(self, kind: str, anchor: int, mask: np.ndarray) -> Optional[int]:
        """The action `kind` at `anchor` when the mask allows it now, else None."""
        action = self.index.get((kind, anchor))
        return action if action is not None and mask[action] else None

    def cities(self, observation: np.ndarray) -> int:
        """How many anchors the observation holds (the kingdom's first cities, up to `anchors`)."""
        anchors = observation[self.layout.slices["anchors"]].reshape(self.layout.anchors, 2)
        return int(np.count_nonzero(anchors[:, 0] >= 0))


class NoOp(Bot):
    """Never acts: the world runs on its own."""

    name = "noop"

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return 0


class RandomLegal(Bot):
    """A legal action at random, the no-op included, from a generator seeded by reset(seed)."""

    name = "random"

    def __init__(self, layout: Layout):
        super().__init__(layout)
        self.rng = np.random.default_rng(0)

    def reset(self, seed: Optional[int] = None) -> None:
        super().reset(seed)
        self.rng = np.random.default_rng(seed)

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        return int(self.rng.choice(np.flatnonzero(mask)))


class FirstSpawn(Bot):
    """Spawns at the first city every turn: the one arm that dominates the default task."""

    name = "first_spawn"

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        action = self.legal("spawn", 0, mask)
        return 0 if action is None else action


class RoundRobin(Bot):
    """Spawns at each city in turn, and blesses the first city every `bless_every` turns."""

    name = "round_robin"
    bless_every = 60

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        if self.turn % self.bless_every == 0:
            blessing = self.legal("power", 0, mask)
            if blessing is not None:
                return blessing
        cities = self.cities(observation)
        if cities == 0:
            return 0
        action = self.legal("spawn", self.turn % cities, mask)
        return 0 if action is None else action


BOTS: dict[str, Callable[[Layout], Bot]] = {bot.name: bot for bot in (NoOp, RandomLegal, FirstSpawn, RoundRobin)}


def make_bot(name: str, layout: Layout) -> Bot:
    """The bot of that name (one of BOTS) for an env of that layout."""
    try:
        return BOTS[name](layout)
    except KeyError:
        raise ValueError(f"no bot named {name!r}; the bots are {sorted(BOTS)}") from None
