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

from ._spaces import CITY_STATS, Layout

_STAT = {name: n for n, name in enumerate(CITY_STATS)}

__all__ = ["Bot", "NoOp", "RandomLegal", "FirstSpawn", "RoundRobin", "GreedyChild", "Investor", "TunedGrow", "Aggressor", "Builder", "Warlord", "TunedDuel", "BOTS", "SCENARIO_BOTS", "make_bot"]


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





# --- grow and duel ------------------------------------------------------------------------------


class ScenarioBot(Bot):
    """A bot that reads the scenarios' extra parts: the time left, the budget, each city's figures."""

    def part(self, observation: np.ndarray, name: str) -> np.ndarray:
        return observation[self.layout.slices[name]]

    def time_left(self, observation: np.ndarray) -> float:
        return float(self.part(observation, "time")[0])

    def city_rows(self, observation: np.ndarray, name: str = "cities") -> np.ndarray:
        """[anchors, len(CITY_STATS)]: each anchor city's figures (zeros past the last)."""
        return self.part(observation, name).reshape(self.layout.anchors, len(CITY_STATS))

    def room(self, observation: np.ndarray) -> np.ndarray:
        """Free housing per anchor city (-1 where there is no city)."""
        rows = self.city_rows(observation)
        present = self.part(observation, "anchors").reshape(self.layout.anchors, 2)[:, 0] >= 0
        return np.where(present, rows[:, _STAT["housing"]] - rows[:, _STAT["units"]], -1)

    def best_legal(self, kind: str, scores: np.ndarray, mask: np.ndarray) -> Optional[int]:
        """The legal action `kind` at the anchor of highest score (never one scored -inf), or None."""
        for anchor in np.argsort(-scores, kind="stable"):
            if scores[anchor] == -np.inf:
                break
            action = self.legal(kind, int(anchor), mask)
            if action is not None:
                return action
        return None


class GreedyChild(ScenarioBot):
    """grow: a newborn at the city with most free housing whenever the budget allows."""

    name = "greedy_child"

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        action = self.best_legal("child", self.room(observation).astype(float), mask)
        return 0 if action is None else action


class Investor(ScenarioBot):
    """grow: adults (which breed) while more than `switch` of the episode is left, newborns after;
    a blessing on the city with most adults when `bless` and there is room; fertilize a city whose
    land feeds it poorly (fertile per tile under `poor`) while more than `switch` is left. The tuned
    member of this family (tuned on training seeds) is the bot named `tuned_grow`."""

    name = "investor"
    switch = 0.5
    bless = False
    bless_min = 4  # adults a city needs for a blessing to be worth it
    poor = 0.0

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        room = self.room(observation).astype(float)
        rows = self.city_rows(observation)
        if self.time_left(observation) > self.switch:
            if self.poor > 0:
                share = rows[:, _STAT["fertile"]] / np.maximum(1.0, rows[:, _STAT["territory"]])
                poor = np.where(room >= 0, self.poor - share, -1.0)
                if poor.max() > 0:
                    action = self.best_legal("fertilize", poor, mask)
                    if action is not None:
                        return action
            if self.bless:
                unblessed = np.where((rows[:, _STAT["blessed"]] == 0) & (room > 2), rows[:, _STAT["adults"]], -1.0)
                if unblessed.max() >= self.bless_min:
                    action = self.best_legal("bless", unblessed, mask)
                    if action is not None:
                        return action
            action = self.best_legal("adult", room, mask)
        else:
            action = self.best_legal("child", room, mask)
        return 0 if action is None else action


class Aggressor(ScenarioBot):
    """duel: lightning at the rival city with most people whenever affordable, else an adult at home."""

    name = "aggressor"

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        rival = self.city_rows(observation, "rival_cities")[:, _STAT["units"]].astype(float)
        for kind in ("lightning", "plague"):
            action = self.best_legal(kind, rival, mask)
            if action is not None:
                return action
        action = self.best_legal("adult", self.room(observation).astype(float), mask)
        return 0 if action is None else action


class Builder(ScenarioBot):
    """duel: adults at the city with most room (soldiers and breeders), a blessing on a sick city."""

    name = "builder"

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        sick = self.city_rows(observation)[:, _STAT["sick"]].astype(float)
        if sick.max() > 0:
            action = self.best_legal("bless", sick, mask)
            if action is not None:
                return action
        action = self.best_legal("adult", self.room(observation).astype(float), mask)
        return 0 if action is None else action


class Warlord(ScenarioBot):
    """duel: a family of strikers. Cure an own city with at least `heal_min` sick (0: never); strike a
    rival city once no more than `strike_from` of the episode is left, the `target` one ("weakest":
    fewest people, to take a city away; "strongest": most) among those with at least `strike_min`
    people, with the first affordable of `weapons`;
    otherwise an adult at the city with most room, when the favor left after it is at least `save`
    (kept for the next strike). The tuned member (grid search on training seeds against every duel
    opponent: python/bench/tune_duel.py) is the bot named `tuned_duel`."""

    name = "warlord"
    heal_min = 0
    strike_from = 1.0
    strike_min = 0.0
    target = "weakest"
    weapons: tuple[str, ...] = ("lightning", "plague")
    save = 0.0
    adult_price = 10.0

    def choose(self, observation: np.ndarray, mask: np.ndarray) -> int:
        rows = self.city_rows(observation)
        if self.heal_min > 0:
            sick = rows[:, _STAT["sick"]].astype(float)
            if sick.max() >= self.heal_min:
                action = self.best_legal("bless", sick, mask)
                if action is not None:
                    return action
        if self.time_left(observation) <= self.strike_from:
            units = self.city_rows(observation, "rival_cities")[:, _STAT["units"]].astype(float)
            present = self.part(observation, "rival_anchors").reshape(self.layout.anchors, 2)[:, 0] >= 0
            scores = np.where(present & (units >= self.strike_min), -units if self.target == "weakest" else units, -np.inf)
            for kind in self.weapons if np.isfinite(scores).any() else ():
                action = self.best_legal(kind, scores, mask)
                if action is not None:
                    return action
        favor = float(self.part(observation, "economy")[0])
        if favor - self.adult_price >= self.save:
            action = self.best_legal("adult", self.room(observation).astype(float), mask)
            if action is not None:
                return action
        return 0


def _member(base: type, name: str, **params) -> type:
    """A named member of a bot family: its parameters set."""
    return type(name.title().replace("_", ""), (base,), {"name": name, **params})


# The tuned member of the Investor family (grid search on training seeds: python/bench/tune.py --scenario grow).
TunedGrow = _member(Investor, "tuned_grow", switch=0.04, bless=True, bless_min=16, poor=0.0)
# The tuned member of the Warlord family (python/bench/tune.py --scenario duel).
TunedDuel = _member(Warlord, "tuned_duel", weapons=("plague", "lightning"), strike_min=10.0, strike_from=1.0, heal_min=0, save=0.0)

BOTS: dict[str, Callable[[Layout], Bot]] = {
    bot.name: bot for bot in (NoOp, RandomLegal, FirstSpawn, RoundRobin, GreedyChild, Investor, TunedGrow, Aggressor, Builder, TunedDuel)
}
# The bots that play each scenario's fixed opponents and references (noop and random play every one).
SCENARIO_BOTS: dict[str, tuple[str, ...]] = {
    "default": ("noop", "random", "first_spawn", "round_robin"),
    "grow": ("noop", "random", "greedy_child", "investor", "tuned_grow"),
    "duel": ("noop", "random", "aggressor", "builder", "tuned_duel"),
}


def make_bot(name: str, layout: Layout) -> Bot:
    """The bot of that name (one of BOTS) for an env of that layout."""
    try:
        return BOTS[name](layout)
    except KeyError:
        raise ValueError(f"no bot named {name!r}; the bots are {sorted(BOTS)}") from None
