"""Shared by the tests: run from the repository root (scripts/test-python.mjs does), so that each env
starts this checkout's bridge; a test that hangs ends the run with every thread's stack.

A bridge costs about 2 s of CPU to start, so the tests whose envs may use a running bridge share one
(`shared_bridge`): each of them makes its own world first (reset with a seed). The tests about the
env's own bridge (its start and end, a bridge that dies, envs that share nothing) start their own.
"""

from __future__ import annotations

import faulthandler
import sys
from dataclasses import dataclass
from typing import Any

import numpy as np
import pytest

import gcb_env
from gcb_env._bridge import BridgeProcess

# Beyond this a test is stuck, not slow: the whole run takes about a minute.
TEST_LIMIT_S = 300
AGENTS = ["kingdom_0", "kingdom_1"]


@pytest.fixture(autouse=True)
def hang_guard():
    faulthandler.dump_traceback_later(TEST_LIMIT_S, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


@dataclass
class SharedBridge:
    """A running bridge with a faction player for each of two kingdoms and a god, as an env's own."""

    process: BridgeProcess

    @property
    def url(self) -> str:
        return self.process.url

    @property
    def tokens(self) -> dict[str, str]:
        return {**self.process.tokens, "god": self.process.god_token}

    def env(self, **kwargs: Any):
        return gcb_env.env(url=self.url, tokens=self.tokens, **kwargs)

    def parallel_env(self, **kwargs: Any):
        return gcb_env.parallel_env(url=self.url, tokens=self.tokens, **kwargs)


@pytest.fixture(scope="session")
def shared_bridge():
    bridge = BridgeProcess(AGENTS, seed=1)
    yield SharedBridge(bridge)
    bridge.stop()


def legal_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A random action among those the mask allows."""
    return int(rng.choice(np.flatnonzero(mask)))
