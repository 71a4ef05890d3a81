"""The named tasks of the env, one row each: what `scenario=` selects.

A scenario is the world's rules (the bridge's `generate_world` `rules`), the env's defaults for the
episode, its macro actions, what its observation holds beyond the common parts, and how it is
rewarded. README.md ("Scenarios") and docs/research.md describe them for users; this table is what
the env, the bots and the evaluation protocol read."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Optional

__all__ = ["ScenarioSpec", "SCENARIO_SPECS", "ACTION_TARGETS", "DEFAULT_SCENARIO", "scenario_spec"]

DEFAULT_SCENARIO = "default"

# Each macro action kind: whose anchor it aims at ("own" cities or the "rival"'s).
ACTION_TARGETS = {
    "spawn": "own",  # the default scenario's: one newborn of the kingdom's race
    "paint": "own",  # paint_tile (the env's paint_tile and paint_radius)
    "power": "own",  # invoke_power (the env's power)
    "child": "own",  # spawn one newborn
    "adult": "own",  # spawn one adult
    "fertilize": "own",  # invoke_power fertilizer
    "bless": "own",  # invoke_power blessing
    "lightning": "rival",  # invoke_power lightning
    "plague": "rival",  # invoke_power plague
}


@dataclass(frozen=True)
class ScenarioSpec:
    name: str
    description: str
    # generate_world's `rules` (None: not sent, the bridge's sandbox).
    rules: Optional[str]
    ticks_per_cycle: int
    max_cycles: int
    # The macro action kinds after the no-op, each once per anchor (see ACTION_TARGETS).
    actions: tuple[str, ...]
    grid: int = 16
    # The observation's extra parts: the budget and each anchor city's figures; the rival's.
    economy: bool = False
    rivals: bool = False
    # Whether each player sees every kingdom unless the env is told otherwise.
    full_intel: bool = False
    # None: the n_agents argument decides (2 to 4); else the only number of agents.
    n_agents: Optional[int] = None
    # Zero-sum: each cycle kingdom_0 gets the change of (its score - its rival's) and kingdom_1 the
    # opposite; a fall ends the episode, +fall_bonus to the winner and -fall_bonus to the loser.
    zero_sum: bool = False
    fall_bonus: float = 0.0


SCENARIO_SPECS: dict[str, ScenarioSpec] = {
    spec.name: spec
    for spec in (
        ScenarioSpec(
            name="default",
            description=(
                "the sandbox's rules (everything free); the reward is the change of population + 10 x cities. A spawn "
                "is a free +1 whatever the state, so it is a bandit with one dominant arm: kept for v0.5's clients and as "
                "the reference the scenarios with tension are measured beside"
            ),
            rules=None,
            ticks_per_cycle=10,
            max_cycles=1000,
            actions=("spawn", "paint", "power"),
        ),
        ScenarioSpec(
            name="grow",
            description=(
                "grow's rules: every action costs favor, which each city adds every 32 ticks (1 + 1 per 100 tiles of its "
                "land, up to 60 held); food comes from the cities' fertile land, and a blessed adult breeds twice as "
                "often. Actions: a newborn (+1 now), an adult (it breeds), fertilize (greener land, more food), bless. "
                "The reward is the change of population + 10 x cities: spend a refilling budget where and when it pays"
            ),
            rules="grow",
            ticks_per_cycle=40,
            max_cycles=50,
            actions=("child", "adult", "fertilize", "bless"),
            grid=8,
            economy=True,
            n_agents=2,
        ),
        ScenarioSpec(
            name="duel",
            description=(
                "duel's rules: two human kingdoms 28 to 36 tiles apart, at war from the start, each with grow's budget; "
                "a kingdom left without a city falls. Actions: an adult or a blessing at an own city, lightning or plague "
                "at a rival city. Zero-sum: the change of (own score - the rival's), +-100 on a fall, which ends the episode"
            ),
            rules="duel",
            ticks_per_cycle=40,
            max_cycles=50,
            actions=("adult", "bless", "lightning", "plague"),
            grid=8,
            economy=True,
            rivals=True,
            full_intel=True,
            n_agents=2,
            zero_sum=True,
            fall_bonus=100.0,
        ),
    )
}


def scenario_spec(name: str) -> ScenarioSpec:
    try:
        return SCENARIO_SPECS[name]
    except (KeyError, TypeError):
        raise ValueError(f"scenario must be one of {', '.join(SCENARIO_SPECS)}, got {name!r}") from None
