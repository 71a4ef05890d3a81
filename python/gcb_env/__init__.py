"""PettingZoo environments over the Game Control Bridge: each agent is a kingdom of the sandbox world.

    import gcb_env
    env = gcb_env.env(seed=1)            # AEC
    penv = gcb_env.parallel_env(seed=1)  # Parallel

By default each env starts its own bridge (the lockstep clock, a fresh config dir, port 0) and
stops it on close(). README.md describes the agents, spaces, rewards and arguments.
"""

from __future__ import annotations

from typing import Any

from pettingzoo.utils import wrappers

from ._base import with_env_arguments
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


@with_env_arguments
def raw_env(*args: Any, **kwargs: Any) -> KingdomsEnv:
    """The AEC env without PettingZoo's checking wrappers."""
    return KingdomsEnv(*args, **kwargs)


@with_env_arguments
def env(*args: Any, **kwargs: Any) -> wrappers.OrderEnforcingWrapper:
    """The AEC env, wrapped as PettingZoo's own envs are (order enforcing)."""
    return wrappers.OrderEnforcingWrapper(KingdomsEnv(*args, **kwargs))


@with_env_arguments
def parallel_env(*args: Any, **kwargs: Any) -> KingdomsParallelEnv:
    """The Parallel env."""
    return KingdomsParallelEnv(*args, **kwargs)
