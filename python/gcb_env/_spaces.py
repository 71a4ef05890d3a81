"""Observation and action spaces, and the observe command's answer as one flat observation."""

from __future__ import annotations

import binascii
import operator
from dataclasses import dataclass, field

import numpy as np
from gymnasium import spaces

__all__ = ["COUNTS", "Layout", "ACTION_KINDS", "InvalidAction", "checked_action"]

# The `counts` vector of the observe command, in its order.
COUNTS = ("alive", "population", "cities", "buildings", "territory")
ACTION_KINDS = ("noop", "spawn", "paint", "power")

_DTYPES = {"uint8": np.dtype("<u1"), "uint16": np.dtype("<u2"), "int32": np.dtype("<i4")}
_COUNT_MAX = float(2**24)  # exact in float32; the bridge caps population at 262,144 actors
_CELL_MAX = 65535.0  # the observe command caps per-cell counts there
_COORD_MAX = 1024.0  # 16 zones of 64 tiles, the largest world generate_world makes


def _decode(encoded: dict, size: int) -> np.ndarray:
    """One array of the observe answer, flat; its size checked against the layout's."""
    array = np.frombuffer(binascii.a2b_base64(encoded["base64"]), dtype=_DTYPES[encoded["dtype"]])
    if array.size != size:
        raise ValueError(f"an observe array of shape {encoded['shape']} where the layout expects {size} values")
    return array


@dataclass(frozen=True)
class Layout:
    """Where each part sits in the flat float32 observation (see README, "Observations")."""

    grid: int
    anchors: int
    # Masks already made, by (alive, which anchors exist): a few kinds repeat over a whole episode.
    _masks: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def cells(self) -> int:
        return self.grid * self.grid

    @property
    def slices(self) -> dict[str, slice]:
        c = self.cells
        return {
            "tiles": slice(0, c),
            "own": slice(c, 2 * c),
            "others": slice(2 * c, 3 * c),
            "wild": slice(3 * c, 4 * c),
            "territory": slice(4 * c, 5 * c),
            "counts": slice(5 * c, 5 * c + len(COUNTS)),
            "anchors": slice(5 * c + len(COUNTS), 5 * c + len(COUNTS) + 2 * self.anchors),
        }

    @property
    def size(self) -> int:
        return 5 * self.cells + len(COUNTS) + 2 * self.anchors

    @property
    def n_actions(self) -> int:
        return 1 + 3 * self.anchors

    def observation_box(self) -> spaces.Box:
        s = self.slices
        low = np.zeros(self.size, dtype=np.float32)
        high = np.empty(self.size, dtype=np.float32)
        high[s["tiles"]] = 255.0
        high[s["own"].start : s["territory"].stop] = _CELL_MAX
        high[s["counts"]] = _COUNT_MAX
        high[s["counts"].start] = 1.0  # alive
        low[s["anchors"]] = -1.0
        high[s["anchors"]] = _COORD_MAX
        return spaces.Box(low=low, high=high, dtype=np.float32)

    def space(self) -> spaces.Dict:
        return spaces.Dict(
            {
                "observation": self.observation_box(),
                "action_mask": spaces.Box(low=0, high=1, shape=(self.n_actions,), dtype=np.int8),
            }
        )

    def action(self, action: int) -> tuple[str, int]:
        """The macro action's kind and anchor index (-1 for the no-op)."""
        if action == 0:
            return "noop", -1
        kind, anchor = divmod(action - 1, self.anchors)
        return ACTION_KINDS[1 + kind], anchor

    def flatten(self, answer: dict) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
        """The observe answer as (flat observation, counts, anchors)."""
        c = self.cells
        n = len(COUNTS)
        out = np.empty(self.size, dtype=np.float32)
        out[:c] = _decode(answer["tiles"], c)
        out[c : 4 * c] = _decode(answer["actors"], 3 * c)
        out[4 * c : 5 * c] = _decode(answer["territory"], c)
        counts = _decode(answer["counts"], n)
        out[5 * c : 5 * c + n] = counts
        anchors = _decode(answer["anchors"], 2 * self.anchors)
        out[5 * c + n :] = anchors
        return out, counts, anchors.reshape(self.anchors, 2)

    def mask(self, counts: np.ndarray, anchors: np.ndarray) -> np.ndarray:
        """Legal now: the no-op always; the other actions at an anchor that exists while the kingdom lives."""
        alive = bool(counts[0] == 1)
        present = (anchors[:, 0] >= 0).tobytes()
        made = self._masks.get((alive, present))
        if made is None:
            made = np.zeros(self.n_actions, dtype=np.int8)
            made[0] = 1
            if alive:
                made[1:] = np.tile(np.frombuffer(present, dtype=np.bool_), 3)
            self._masks[(alive, present)] = made
        # A copy: the mask handed out is the caller's to change.
        return made.copy()


class InvalidAction(ValueError):
    """An action outside the action space, or masked out now. Nothing was sent to the bridge."""


def checked_action(layout: Layout, agent: str, action: object, mask: np.ndarray) -> int:
    """The action as an int, or InvalidAction naming the agent and the action."""
    if type(action) is int or isinstance(action, np.integer):
        value = int(action)  # type: ignore[arg-type]
        if 0 <= value < layout.n_actions and mask[value] != 0:
            return value
    legal = np.flatnonzero(mask).tolist()
    if action is None:
        raise InvalidAction(f"{agent}: no action (None), but {agent} is neither terminated nor truncated; legal actions now: {legal}")
    if isinstance(action, (bool, np.bool_)):
        raise InvalidAction(f"{agent}: action {action!r} is a boolean, not one of Discrete({layout.n_actions})")
    try:
        value = operator.index(action)  # type: ignore[arg-type]
    except TypeError:
        raise InvalidAction(f"{agent}: action {action!r} is not an integer of Discrete({layout.n_actions})") from None
    if not 0 <= value < layout.n_actions:
        raise InvalidAction(f"{agent}: action {value} is outside the action space Discrete({layout.n_actions})")
    if mask[value] == 0:
        kind, anchor = layout.action(value)
        raise InvalidAction(f"{agent}: action {value} ({kind} at anchor {anchor}) is masked out now; legal actions now: {legal}")
    return value
