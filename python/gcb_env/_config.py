"""The env's arguments, checked once at construction and kept as plain Python values.

A count is an integer: a Python int or a numpy integer, never a bool (True is an int to Python) nor a
float, even 2.0. A duration is a finite number of seconds above 0. Each wrong one is a ValueError
that names it, before anything starts."""

from __future__ import annotations

import math
from dataclasses import dataclass, fields
from typing import Any, Mapping, Optional

import numpy as np

from ._scenarios import DEFAULT_SCENARIO, SCENARIO_SPECS, ScenarioSpec, scenario_spec

__all__ = ["Config", "MAX_SEED", "checked_seed"]

MAX_SEED = 2**31 - 1
# generate_world's sizes in 64-tile zones with enough kingdoms for n agents: the sandbox founds
# max(2, round(zones / 4)) of them.
_ZONES = {2: (2, 2), 3: (3, 4), 4: (4, 4)}
# generate_world's bounds on a side, in zones, and paint_tile's on the radius.
_ZONE_RANGE = (2, 16)
_RADIUS_RANGE = (0, 200)
# Ids of tiles and powers are at most 64 characters on the bridge.
_MAX_ID = 64


def _count(name: str, value: Any, low: int, high: Optional[int] = None) -> int:
    span = f"from {low} to {high}" if high is not None else f"of at least {low}"
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, np.integer)):
        raise ValueError(f"{name} must be an integer {span} (a Python or numpy integer, not a bool or a float), got {value!r} ({type(value).__name__})")
    number = int(value)
    if number < low or (high is not None and number > high):
        raise ValueError(f"{name} must be an integer {span}, got {number}")
    return number


def _seconds(name: str, value: Any) -> float:
    if isinstance(value, (bool, np.bool_)) or not isinstance(value, (int, float, np.integer, np.floating)):
        raise ValueError(f"{name} must be a number of seconds above 0, got {value!r} ({type(value).__name__})")
    seconds = float(value)
    if not (math.isfinite(seconds) and seconds > 0):
        raise ValueError(f"{name} must be a finite number of seconds above 0, got {value!r}")
    return seconds


def _identifier(name: str, value: Any) -> str:
    if not isinstance(value, str) or not 1 <= len(value) <= _MAX_ID:
        raise ValueError(f"{name} must be a string of 1 to {_MAX_ID} characters, got {value!r}")
    return value


def checked_seed(seed: Any) -> Optional[int]:
    """The constructor's seed: None, or an integer of at least 0 (it seeds numpy's generator)."""
    return None if seed is None else _count("seed", seed, 0)


@dataclass(frozen=True)
class Config:
    n_agents: int = 2
    ticks_per_cycle: int = 10
    max_cycles: int = 1000
    scenario: str = DEFAULT_SCENARIO
    # Whether each player sees every kingdom (observe's others, wild and rival parts): the scenario's default when None.
    full_intel: Optional[bool] = None
    # None: the scenario's (16 for the default scenario).
    grid: Optional[int] = None
    anchors: int = 4
    zones: Optional[tuple[int, int]] = None
    paint_tile: str = "grass"
    paint_radius: int = 2
    power: str = "blessing"
    timeout: float = 60.0
    start_timeout: float = 90.0
    # The world hash after every cycle (last_hash) costs the bridge a hash of the whole world a cycle:
    # off, the cycle's step goes out as the first agent (a player holds advance_time) and answers none.
    hash_each_cycle: bool = False

    @property
    def spec(self) -> ScenarioSpec:
        return SCENARIO_SPECS[self.scenario]

    @property
    def sees_all(self) -> bool:
        return self.spec.full_intel if self.full_intel is None else self.full_intel

    @classmethod
    def make(
        cls, n_agents: Any, ticks_per_cycle: Any, max_cycles: Any, options: Mapping[str, Any], scenario: Any = DEFAULT_SCENARIO, full_intel: Any = None
    ) -> "Config":
        """The checked config; ValueError naming the first wrong argument, TypeError for an unknown one.
        n_agents, ticks_per_cycle, max_cycles and the grid option left as None take the scenario's."""
        known = [f.name for f in fields(cls) if f.name not in ("n_agents", "ticks_per_cycle", "max_cycles", "scenario", "full_intel")]
        unknown = sorted(set(options) - set(known))
        if unknown:
            raise TypeError(f"unknown option {unknown[0]!r}: the options are {', '.join(known)}")
        given = {**{name: getattr(cls, name) for name in known}, **options}
        spec = scenario_spec(scenario)
        if full_intel is not None and not isinstance(full_intel, (bool, np.bool_)):
            raise ValueError(f"full_intel must be True, False or None (the scenario's: {spec.full_intel}), got {full_intel!r}")
        if spec.zero_sum and full_intel is not None and not full_intel:
            raise ValueError(f"scenario {spec.name!r} needs full_intel: its reward reads the rival's score, which a player sees only with it")
        if n_agents is None:
            n_agents = spec.n_agents or 2
        agents = _count("n_agents", n_agents, 2, 4)
        if spec.n_agents is not None and agents != spec.n_agents:
            raise ValueError(f"scenario {spec.name!r} is played by {spec.n_agents} kingdoms: n_agents must be {spec.n_agents}, got {agents}")
        ticks_per_cycle = spec.ticks_per_cycle if ticks_per_cycle is None else ticks_per_cycle
        max_cycles = spec.max_cycles if max_cycles is None else max_cycles
        grid = spec.grid if given["grid"] is None else given["grid"]
        zones = given["zones"]
        if zones is None:
            zones = _ZONES[agents]
        elif isinstance(zones, (str, bytes)) or not hasattr(zones, "__len__") or len(zones) != 2:
            raise ValueError(f"zones must be two integers (zone_x, zone_y) from {_ZONE_RANGE[0]} to {_ZONE_RANGE[1]}, got {zones!r}")
        else:
            zones = tuple(_count("zones", side, *_ZONE_RANGE) for side in zones)
        if not isinstance(given["hash_each_cycle"], (bool, np.bool_)):
            raise ValueError(f"hash_each_cycle must be True or False, got {given['hash_each_cycle']!r}")
        return cls(
            n_agents=agents,
            ticks_per_cycle=_count("ticks_per_cycle", ticks_per_cycle, 1, 10_000),
            max_cycles=_count("max_cycles", max_cycles, 1),
            scenario=spec.name,
            full_intel=None if full_intel is None else bool(full_intel),
            grid=_count("grid", grid, 4, 64),
            anchors=_count("anchors", given["anchors"], 1, 16),
            zones=zones,
            paint_tile=_identifier("paint_tile", given["paint_tile"]),
            paint_radius=_count("paint_radius", given["paint_radius"], *_RADIUS_RANGE),
            power=_identifier("power", given["power"]),
            timeout=_seconds("timeout", given["timeout"]),
            start_timeout=_seconds("start_timeout", given["start_timeout"]),
            hash_each_cycle=bool(given["hash_each_cycle"]),
        )
