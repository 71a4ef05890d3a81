"""The bridge's research mode, as the env uses it: the lockstep clock, `step`, `world_hash` and the
savepoints. Every call of those commands goes through here."""

from __future__ import annotations

from typing import Any

from ._http import BridgeError, Connection

__all__ = ["SERVE_FLAGS", "LOCKSTEP", "check_clock", "step", "world_hash", "savepoint", "rewind"]

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


def step(god: Connection, ticks: int) -> dict[str, Any]:
    """`ticks` ticks back to back; the answer carries the tick and, for the god, the world hash."""
    result = god.call("step", {"ticks": ticks}, changes_world=True)
    if result.get("stopped"):
        raise BridgeError(
            f"step {ticks} stopped after {result.get('ticks')} ticks ({result['stopped']}): "
            "lower ticks_per_cycle so that a cycle fits the bridge's step deadline"
        )
    return result


def world_hash(god: Connection) -> str:
    return str(god.call("world_hash")["hash"])


def savepoint(god: Connection, label: str) -> int:
    return int(god.call("savepoint", {"label": label}, changes_world=True)["id"])


def rewind(god: Connection, savepoint_id: int) -> dict[str, Any]:
    return god.call("rewind", {"id": savepoint_id}, changes_world=True)
