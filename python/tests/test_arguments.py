"""The env's arguments are checked at construction: counts are integers (Python or numpy, never bool
or float) in range, and the timeouts are positive numbers. Nothing here starts a bridge."""

from __future__ import annotations

import inspect
import json

import numpy as np
import pytest

import gcb_env

MAKERS = [gcb_env.env, gcb_env.parallel_env, gcb_env.raw_env]

BAD = [
    ({"n_agents": 2.0}, "n_agents"),
    ({"n_agents": True}, "n_agents"),
    ({"n_agents": 5}, "n_agents"),
    ({"n_agents": "2"}, "n_agents"),
    ({"ticks_per_cycle": True}, "ticks_per_cycle"),
    ({"ticks_per_cycle": 10.0}, "ticks_per_cycle"),
    ({"ticks_per_cycle": 0}, "ticks_per_cycle"),
    ({"ticks_per_cycle": 10_001}, "ticks_per_cycle"),
    ({"max_cycles": -1}, "max_cycles"),
    ({"max_cycles": 0}, "max_cycles"),
    ({"max_cycles": 1.5}, "max_cycles"),
    ({"max_cycles": True}, "max_cycles"),
    ({"max_cycles": np.float64(3)}, "max_cycles"),
    ({"grid": 16.0}, "grid"),
    ({"grid": 3}, "grid"),
    ({"grid": np.bool_(True)}, "grid"),
    ({"anchors": 0}, "anchors"),
    ({"anchors": False}, "anchors"),
    ({"paint_radius": -1}, "paint_radius"),
    ({"paint_radius": 2.5}, "paint_radius"),
    ({"paint_radius": 201}, "paint_radius"),
    ({"zones": (2, 2.0)}, "zones"),
    ({"zones": (1, 2)}, "zones"),
    ({"zones": (2, 17)}, "zones"),
    ({"zones": 4}, "zones"),
    ({"zones": (2, 2, 2)}, "zones"),
    ({"timeout": 0}, "timeout"),
    ({"timeout": -1}, "timeout"),
    ({"timeout": float("nan")}, "timeout"),
    ({"timeout": float("inf")}, "timeout"),
    ({"timeout": True}, "timeout"),
    ({"timeout": "5"}, "timeout"),
    ({"start_timeout": 0}, "start_timeout"),
    ({"seed": -1}, "seed"),
    ({"seed": 1.5}, "seed"),
    ({"seed": True}, "seed"),
    ({"hash_each_cycle": "yes"}, "hash_each_cycle"),
    ({"paint_tile": ""}, "paint_tile"),
    ({"power": 7}, "power"),
]


@pytest.mark.parametrize("make", MAKERS, ids=lambda make: make.__name__)
@pytest.mark.parametrize("kwargs, name", BAD, ids=[f"{next(iter(k))}={next(iter(k.values()))!r}" for k, _ in BAD])
def test_a_bad_argument_is_a_value_error_naming_it(make, kwargs, name):
    with pytest.raises(ValueError, match=f"^{name} must be"):
        make(**kwargs)


def test_an_unknown_option_is_named_with_the_known_ones():
    with pytest.raises(TypeError, match="unknown option 'gird'.*grid"):
        gcb_env.parallel_env(gird=8)


def test_numpy_integers_are_counts_and_become_python_ints():
    env = gcb_env.parallel_env(
        seed=np.int64(3), n_agents=np.int32(3), ticks_per_cycle=np.uint16(4), max_cycles=np.int64(5), grid=np.int8(8), zones=(np.int64(3), 4), timeout=np.float32(2.5)
    )
    config = env.unwrapped._session.config
    assert env.max_cycles == 5 and type(env.max_cycles) is int
    assert (config.n_agents, config.ticks_per_cycle, config.grid, config.zones, config.timeout) == (3, 4, 8, (3, 4), 2.5)
    assert json.dumps([config.n_agents, config.ticks_per_cycle, config.grid, list(config.zones)]), "each one goes into a JSON body"
    assert len(env.possible_agents) == 3


def test_every_factory_has_the_envs_one_signature():
    one = list(inspect.signature(gcb_env.KingdomsEnv).parameters.values())
    assert list(inspect.signature(gcb_env.KingdomsParallelEnv).parameters.values()) == one
    for make in MAKERS:
        assert list(inspect.signature(make).parameters.values()) == one, make.__name__
        assert "ticks_per_cycle" in make.__doc__ and "hash_each_cycle" in make.__doc__, make.__name__
