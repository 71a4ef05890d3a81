"""PettingZoo environments over the Game Control Bridge: each agent is a kingdom of the sandbox world.

    import gcb_env
    env = gcb_env.env(seed=1)            # AEC
    penv = gcb_env.parallel_env(seed=1)  # Parallel

By default each env starts its own bridge (the lockstep clock, a fresh config dir, port 0) and
stops it on close(). README.md describes the agents, spaces, rewards and arguments.
"""

from __future__ import annotations

from typing import Any, Mapping, Optional

from pettingzoo.utils import wrappers

from ._bridge import BridgeExited, BridgeNotFound, find_bridge_command
from ._http import BridgeCallError, BridgeError, BridgeUnreachable
from ._spaces import COUNTS, InvalidAction, Layout
from .aec import KingdomsEnv
from .parallel import KingdomsParallelEnv

__all__ = [
    "env",
    "raw_env",
    "parallel_env",
    "KingdomsEnv",
    "KingdomsParallelEnv",
    "BridgeError",
    "BridgeCallError",
    "BridgeExited",
    "BridgeNotFound",
    "BridgeUnreachable",
    "InvalidAction",
    "COUNTS",
    "Layout",
    "find_bridge_command",
]

__version__ = "0.5.0"


def raw_env(
    seed: Optional[int] = None,
    n_agents: int = 2,
    ticks_per_cycle: int = 10,
    max_cycles: int = 1000,
    render_mode: Optional[str] = None,
    url: Optional[str] = None,
    tokens: Optional[Mapping[str, str]] = None,
    **options: Any,
) -> KingdomsEnv:
    """The AEC env without PettingZoo's checking wrappers."""
    return KingdomsEnv(seed, n_agents, ticks_per_cycle, max_cycles, render_mode, url, tokens, **options)


def env(
    seed: Optional[int] = None,
    n_agents: int = 2,
    ticks_per_cycle: int = 10,
    max_cycles: int = 1000,
    render_mode: Optional[str] = None,
    url: Optional[str] = None,
    tokens: Optional[Mapping[str, str]] = None,
    **options: Any,
) -> wrappers.OrderEnforcingWrapper:
    """The AEC env, wrapped as PettingZoo's own envs are (order enforcing).

    seed: the env's generator, which draws the world seed of each reset() given none.
    n_agents: kingdoms, 2 to 4. ticks_per_cycle: ticks the world runs after the last agent's turn.
    max_cycles: cycles before every agent is truncated. render_mode: None or "rgb_array".
    url, tokens: a running bridge (under the lockstep clock) instead of starting one; tokens maps
    each agent ("kingdom_0", ...) to a faction player's token and "god" to a god's.
    options: grid (16), anchors (4), zones ((2, 2) for two kingdoms), paint_tile ("grass"),
    paint_radius (2), power ("blessing"), timeout (60 s a request), start_timeout (90 s),
    hash_each_cycle (False: True sets last_hash after every cycle, at the cost of a world hash).
    """
    return wrappers.OrderEnforcingWrapper(raw_env(seed, n_agents, ticks_per_cycle, max_cycles, render_mode, url, tokens, **options))


def parallel_env(
    seed: Optional[int] = None,
    n_agents: int = 2,
    ticks_per_cycle: int = 10,
    max_cycles: int = 1000,
    render_mode: Optional[str] = None,
    url: Optional[str] = None,
    tokens: Optional[Mapping[str, str]] = None,
    **options: Any,
) -> KingdomsParallelEnv:
    """The Parallel env; the same arguments as env()."""
    return KingdomsParallelEnv(seed, n_agents, ticks_per_cycle, max_cycles, render_mode, url, tokens, **options)
