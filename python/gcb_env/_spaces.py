"""Observation and action spaces, and the observe command's answer as one flat observation."""

from __future__ import annotations

import binascii
import operator
from dataclasses import dataclass, field
from typing import Optional

import numpy as np
from gymnasium import spaces

from ._scenarios import ACTION_TARGETS

__all__ = ["COUNTS", "ECONOMY", "CITY_STATS", "Layout", "ACTION_KINDS", "InvalidAction", "checked_action"]

# The `counts` vector of the observe command, in its order.
COUNTS = ("alive", "population", "cities", "buildings", "territory")
# observe's `economy` and `anchor_stats` rows, in their order.
ECONOMY = ("favor", "cap", "income")
CITY_STATS = ("units", "housing", "food", "buildings", "territory", "fertile", "adults", "sick", "blessed")
# The default scenario's action kinds after the no-op.
DEFAULT_ACTIONS = ("spawn", "paint", "power")
ACTION_KINDS = ("noop", *DEFAULT_ACTIONS)

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
class Seen:
    """What one observe answer says, beside the flat observation: what the mask and the reward read."""

    counts: np.ndarray
    anchors: np.ndarray  # [anchors, 2]
    favor: float = 0.0
    rival_counts: Optional[np.ndarray] = None  # None: no rival part asked, or no rival left
    rival_anchors: Optional[np.ndarray] = None  # [anchors, 2]


@dataclass(frozen=True)
class Layout:
    """Where each part sits in the flat float32 observation (see README, "Observations"), and what
    each action is. `Layout(grid, anchors)` is the default scenario's."""

    grid: int
    anchors: int
    actions: tuple = DEFAULT_ACTIONS
    economy: bool = False
    rivals: bool = False
    # Masks already made, by what they depend on: a few kinds repeat over a whole episode.
    _masks: dict = field(default_factory=dict, init=False, repr=False, compare=False)

    @property
    def cells(self) -> int:
        return self.grid * self.grid

    @property
    def slices(self) -> dict[str, slice]:
        c, k = self.cells, self.anchors
        parts = [
            ("tiles", c),
            ("own", c),
            ("others", c),
            ("wild", c),
            ("territory", c),
            ("counts", len(COUNTS)),
            ("anchors", 2 * k),
            ("time", 1),
        ]
        if self.economy:
            parts += [("economy", len(ECONOMY)), ("cities", k * len(CITY_STATS))]
        if self.rivals:
            parts += [("rival_counts", len(COUNTS)), ("rival_anchors", 2 * k), ("rival_cities", k * len(CITY_STATS))]
        out, at = {}, 0
        for name, size in parts:
            out[name] = slice(at, at + size)
            at += size
        return out

    @property
    def size(self) -> int:
        return list(self.slices.values())[-1].stop

    @property
    def n_actions(self) -> int:
        return 1 + len(self.actions) * self.anchors

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
        high[s["time"]] = 1.0
        for name in ("economy", "cities", "rival_counts", "rival_cities"):
            if name in s:
                high[s[name]] = _COUNT_MAX
        if "rival_counts" in s:
            high[s["rival_counts"].start] = 1.0
            low[s["rival_anchors"]] = -1.0
            high[s["rival_anchors"]] = _COORD_MAX
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
        return self.actions[kind], anchor

    def index(self, kind: str, anchor: int) -> int:
        """The action of that kind at that anchor."""
        return 1 + self.actions.index(kind) * self.anchors + anchor

    def flatten(self, answer: dict, time_left: float) -> tuple[np.ndarray, Seen]:
        """The observe answer as (flat observation, what the mask and reward read). `time_left`: the
        share of the episode's cycles still to come, 1.0 at reset and 0 at the last."""
        s = self.slices
        c, k = self.cells, self.anchors
        out = np.zeros(self.size, dtype=np.float32)
        out[s["tiles"]] = _decode(answer["tiles"], c)
        out[s["own"].start : s["wild"].stop] = _decode(answer["actors"], 3 * c)
        out[s["territory"]] = _decode(answer["territory"], c)
        counts = _decode(answer["counts"], len(COUNTS))
        out[s["counts"]] = counts
        anchors = _decode(answer["anchors"], 2 * k)
        out[s["anchors"]] = anchors
        out[s["time"]] = time_left
        favor = 0.0
        if self.economy:
            if "economy" in answer:
                economy = _decode(answer["economy"], len(ECONOMY))
                out[s["economy"]] = economy
                favor = float(economy[0])
            if "anchor_stats" in answer:
                out[s["cities"]] = _decode(answer["anchor_stats"], k * len(CITY_STATS))
        rival_counts = rival_anchors = None
        if self.rivals:
            rival = answer.get("rival")
            if rival:
                rival_counts = _decode(rival["counts"], len(COUNTS))
                rival_anchors = _decode(rival["anchors"], 2 * k)
                out[s["rival_counts"]] = rival_counts
                out[s["rival_anchors"]] = rival_anchors
                out[s["rival_cities"]] = _decode(rival["anchor_stats"], k * len(CITY_STATS))
                rival_anchors = rival_anchors.reshape(k, 2)
            else:
                out[s["rival_anchors"]] = -1.0
        return out, Seen(counts, anchors.reshape(k, 2), favor, rival_counts, rival_anchors)

    def mask(self, seen: Seen, prices: Optional[dict] = None) -> np.ndarray:
        """Legal now: the no-op always; while the kingdom lives, an action at an anchor that exists (its
        own, or the rival's for an action aimed at the rival) and whose price its favor covers."""
        alive = bool(seen.counts[0] == 1)
        own = (seen.anchors[:, 0] >= 0).tobytes()
        rival = b"" if seen.rival_anchors is None else (seen.rival_anchors[:, 0] >= 0).tobytes()
        affordable = tuple(prices is None or prices.get(kind, 0) <= seen.favor for kind in self.actions)
        key = (alive, own, rival, affordable)
        made = self._masks.get(key)
        if made is None:
            made = np.zeros(self.n_actions, dtype=np.int8)
            made[0] = 1
            if alive:
                present = {"own": np.frombuffer(own, dtype=np.bool_), "rival": np.frombuffer(rival, dtype=np.bool_) if rival else np.zeros(self.anchors, dtype=np.bool_)}
                for n, kind in enumerate(self.actions):
                    if affordable[n]:
                        made[1 + n * self.anchors : 1 + (n + 1) * self.anchors] = present[ACTION_TARGETS[kind]]
            self._masks[key] = made
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
