"""The bridge's research mode, as the env uses it: the lockstep clock, `step`, `world_hash` and the
savepoints. Every call of those commands goes through here."""

from __future__ import annotations

import functools
import json
from typing import Any, Callable, Optional

from ._http import BridgeError, Connection

__all__ = ["SERVE_FLAGS", "LOCKSTEP", "check_clock", "step_later", "finish_step", "world_hash", "savepoint", "rewind"]

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


def step_later(conn: Connection, ticks: int, then: Callable[[dict[str, Any]], None], failure: Optional[str] = None) -> None:
    """`ticks` ticks back to back, answered before the connection's client sends anything else: `then`
    gets the answer of the whole of them (see finish_step), and an error is raised as `failure`'s."""
    conn.call_later("step", _step_body(ticks), lambda result: then(finish_step(conn, result, ticks)), changes_world=True, failure=failure)


def finish_step(conn: Connection, result: dict[str, Any], ticks: int) -> dict[str, Any]:
    """The answer of a step of `ticks` once every one of them ran: its first answer's `tick_before`,
    its last answer's `tick` and `hash`, and `ticks`.

    A step the bridge yielded (`stopped: "yielded"`: it ran part of its ticks and let another agent's
    waiting command run at the tick reached) is stepped again for the rest, as many times as it takes;
    so the cycle runs its ticks whatever else the bridge serves, and the episode and its hashes are the
    same. A step cut short by the bridge's deadline (`stopped: "deadline"`) is an error: the cycle
    would have run fewer ticks."""
    first, left = result, ticks
    while result.get("stopped") == "yielded":
        ran = result.get("ticks")
        # A yielded step ran the tick in progress at least: anything else would step forever.
        if type(ran) is not int or not 0 < ran <= left:
            raise BridgeError(f"step {left} yielded after {ran!r} ticks; a bridge yields after 1 to {left}")
        left -= ran
        if left == 0:
            break
        result = conn.call_body("step", _step_body(left), changes_world=True)
    if result.get("stopped") and result.get("stopped") != "yielded":
        raise BridgeError(
            f"step {left} stopped after {result.get('ticks')} ticks ({result['stopped']}): "
            "lower ticks_per_cycle so that a cycle fits the bridge's step deadline"
        )
    return {**result, "tick_before": first.get("tick_before"), "ticks": ticks}


def world_hash(god: Connection) -> str:
    return str(god.call("world_hash")["hash"])


def savepoint(god: Connection, label: str) -> int:
    return int(god.call("savepoint", {"label": label}, changes_world=True)["id"])


def rewind(god: Connection, savepoint_id: int) -> dict[str, Any]:
    return god.call("rewind", {"id": savepoint_id}, changes_world=True)
