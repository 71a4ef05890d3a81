"""The bridge's research mode, as the env uses it: the lockstep clock, `step`, `world_hash` and the
savepoints. Every call of those commands goes through here."""

from __future__ import annotations

import functools
import json
from typing import Any, Callable

from ._http import BridgeError, Connection

__all__ = ["SERVE_FLAGS", "LOCKSTEP", "check_clock", "step_later", "check_step", "world_hash", "savepoint", "rewind"]

# `gcb serve` flags: the world moves only through `step`, and commands run as soon as they arrive.
SERVE_FLAGS = ["--lockstep"]
LOCKSTEP = "lockstep"


def check_clock(health: dict) -> None:
    """A bridge given by url must run the lockstep clock: under realtime each action waits for a frame
    and the world moves between two agents' turns, so no episode could be replayed."""
    clock = health.get("clock")
    if clock != LOCKSTEP:
        raise BridgeError(
            f"the bridge runs the {clock or 'realtime'} clock; the env needs the lockstep clock: "
            "start it with `gcb serve --lockstep` (or `[Game] clock = \"lockstep\"` in bridge.toml)"
        )


@functools.lru_cache(maxsize=16)
def _step_body(ticks: int) -> bytes:
    return json.dumps({"name": "step", "args": {"ticks": ticks}}, separators=(",", ":")).encode()


def step_later(conn: Connection, ticks: int, then: Callable[[dict[str, Any]], None]) -> None:
    """`ticks` ticks back to back, answered before the connection's client sends anything else: `then`
    gets the answer (the tick and, for a read_all holder, the world hash)."""
    body = _step_body(ticks)

    def checked(result: dict[str, Any]) -> None:
        check_step(result, ticks)
        then(result)

    conn.call_later("step", body, checked, changes_world=True)


def check_step(result: dict[str, Any], ticks: int) -> None:
    """A step cut short by the bridge's deadline is an error: the cycle would have run fewer ticks."""
    if result.get("stopped"):
        raise BridgeError(
            f"step {ticks} stopped after {result.get('ticks')} ticks ({result['stopped']}): "
            "lower ticks_per_cycle so that a cycle fits the bridge's step deadline"
        )


def world_hash(god: Connection) -> str:
    return str(god.call("world_hash")["hash"])


def savepoint(god: Connection, label: str) -> int:
    return int(god.call("savepoint", {"label": label}, changes_world=True)["id"])


def rewind(god: Connection, savepoint_id: int) -> dict[str, Any]:
    return god.call("rewind", {"id": savepoint_id}, changes_world=True)
