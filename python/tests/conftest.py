"""Shared by the tests: run from the repository root (scripts/test-python.mjs does), so that each env
starts this checkout's bridge; a test that hangs ends the run with every thread's stack."""

from __future__ import annotations

import faulthandler
import sys

import numpy as np
import pytest

# Beyond this a test is stuck, not slow: the whole run takes about a minute.
TEST_LIMIT_S = 300


@pytest.fixture(autouse=True)
def hang_guard():
    faulthandler.dump_traceback_later(TEST_LIMIT_S, exit=True, file=sys.stderr)
    yield
    faulthandler.cancel_dump_traceback_later()


def legal_action(rng: np.random.Generator, mask: np.ndarray) -> int:
    """A random action among those the mask allows."""
    return int(rng.choice(np.flatnonzero(mask)))
