"""What the AEC and the Parallel env share: the bridge (started or given), one connection per agent
and one for the env's god credential, worlds made and rewound, actions and observations."""

from __future__ import annotations

import base64
import json
import urllib.parse
from dataclasses import dataclass
from typing import Any, Mapping, Optional, Sequence

import numpy as np

from . import _research
from ._bridge import BridgeProcess
from ._config import MAX_SEED, Config
from ._http import BridgeCallError, BridgeError, BridgeUnreachable, Connection, RequestOrder
from ._png import decode_png
from ._scenarios import ACTION_TARGETS
from ._spaces import Layout

__all__ = ["Session", "AgentView", "GOD"]

GOD = "god"
# What a failed step of the cycle is raised as, from the env's next call (its answer is read then).
_STEP_FAILED = "the previous cycle's step"
# A seed whose world founded fewer kingdoms than agents is replaced by the next of these, in order.
_RESEED_STEP = 7919
_RESEED_TRIES = 16


# The power each action kind invokes.
_POWERS = {"fertilize": "fertilizer", "bless": "blessing", "lightning": "lightning", "plague": "plague"}

# Batch bodies kept (one per agent, action and anchor position): a long episode moves anchors.
_MAX_BODIES = 4096


def _json(value: Any) -> bytes:
    return json.dumps(value, separators=(",", ":")).encode()


@dataclass
class AgentView:
    """One agent's latest observation, as the env hands it out, and what follows from it."""

    observation: np.ndarray
    mask: np.ndarray
    # population + 10 x cities, as the agent's player sees them.
    score: float
    alive: bool
    tick: int
    refused: Optional[str] = None
    # With the rival's part (duel): its score, and whether it still stands (None: no rival part).
    rival_score: Optional[float] = None
    rival_alive: Optional[bool] = None


class Session:
    def __init__(
        self,
        agents: Sequence[str],
        config: Config,
        seed: Optional[int],
        url: Optional[str] = None,
        tokens: Optional[Mapping[str, str]] = None,
    ):
        self.agents = list(agents)
        self.config = config
        spec = config.spec
        self.spec = spec
        self.layout = Layout(config.grid, config.anchors, spec.actions, spec.economy, spec.rivals)
        self.zones = config.zones
        self._rng = np.random.default_rng(seed)
        self._first_seed = seed
        self._bridge: Optional[BridgeProcess] = None
        self._conns: dict[str, Connection] = {}
        self._world_seed: Optional[int] = None
        self._savepoint: Optional[int] = None
        self._units: dict[str, str] = {}
        self._kingdoms: dict[str, Any] = {}
        self._anchors: dict[str, np.ndarray] = {}
        self._rival_anchors: dict[str, np.ndarray] = {}
        observe_args = {"grid": config.grid, "anchors": config.anchors, **({"rival_anchors": config.anchors} if spec.rivals else {})}
        self._observe = {"name": "observe", "args": observe_args}
        # Each agent's price of each action kind in the world made last (list_actors, list_powers).
        self._prices: dict[str, Optional[dict[str, float]]] = {}
        # Cycles run since the reset: the observation's time feature.
        self.cycles = 0
        # Request bodies made once: every turn sends one of a few, and encoding each again cost more
        # Python time than the rest of the turn's bookkeeping.
        self._observe_json = _json(self._observe)
        self._bodies: dict[tuple, bytes] = {}
        # Every request of the env, on every connection, one after another (the cycle's step is answered
        # before anything else goes out).
        self._order = RequestOrder()
        self._last_tick = 0
        self._last_hash: Optional[str] = None
        self._closed = False
        if (url is None) != (tokens is None):
            raise ValueError("url and tokens go together: both for a running bridge, or neither to start one")
        if url is not None and tokens is not None:
            self._attach(url, tokens)

    # --- connections -----------------------------------------------------------------------

    def _attach(self, url: str, tokens: Mapping[str, str]) -> None:
        """A running bridge: every credential is checked now, so a wrong url or token fails here."""
        missing = [name for name in [*self.agents, GOD] if name not in tokens]
        if missing:
            raise ValueError(f"tokens needs one token for each of {[*self.agents, GOD]}; missing: {missing}")
        parsed = urllib.parse.urlsplit(url)
        if parsed.scheme != "http" or not parsed.hostname or parsed.port is None:
            raise ValueError(f"url must look like http://127.0.0.1:8723, got {url!r}")
        self._connect(parsed.hostname, parsed.port, tokens[GOD], {a: tokens[a] for a in self.agents})
        try:
            health = self._conns[GOD].get_json("/health")
        except BridgeUnreachable as err:
            self.close()
            raise BridgeUnreachable(f"no bridge answers at {url}: {err}") from None
        except BridgeError:
            self.close()
            raise
        try:
            _research.check_clock(health)
            self._check_credentials()
        except BridgeError:
            self.close()
            raise

    def _check_credentials(self) -> None:
        for name, conn in self._conns.items():
            try:
                who = conn.call("whoami")
            except BridgeCallError as err:
                raise BridgeError(f"the token given for {name} was refused: {err.status} {err.code}: {err.bridge_message}") from None
            if not isinstance(who, dict):
                raise BridgeError(f"{conn.url} does not answer as a bridge: whoami as {name} answered {str(who)[:200]!r}")
            if name == GOD and who.get("role") != "god":
                raise BridgeError(f"the token given for {GOD} belongs to {who.get('agent_id')!r}, a {who.get('role')}; it must be a god")
            if name != GOD and who.get("role") == "god":
                raise BridgeError(f"the token given for {name} is a god's; each agent needs a faction player claiming its kingdom")
            if name != GOD and self.config.sees_all and who.get("partial_intel") and "read_all" not in (who.get("permissions") or []):
                raise BridgeError(f"full_intel needs each player to see every kingdom: the token given for {name} lacks read_all under partial intel")

    def _connect(self, host: str, port: int, god: str, players: Mapping[str, str]) -> None:
        on_failure = self._on_failure
        timeout = self.config.timeout
        order = self._order
        self._conns = {GOD: Connection(host, port, god, GOD, timeout, on_failure, order)}
        for agent, token in players.items():
            self._conns[agent] = Connection(host, port, token, agent, timeout, on_failure, order)

    def _on_failure(self, err: BaseException) -> None:
        # A dropped connection is often the first sign of a bridge going down: the kernel resets its
        # sockets before its exit can be collected. A moment's wait tells a dead bridge from a glitch.
        if self._bridge is not None:
            self._bridge.exited_unreaped(2.0)
            self._bridge.check_alive()

    def _start(self) -> None:
        if self._closed:
            raise BridgeError("this env is closed; make a new one")
        if self._conns:
            return
        seed = self._first_seed if self._first_seed is not None else 1234
        self._bridge = BridgeProcess(self.agents, seed % (MAX_SEED + 1), self.config.start_timeout, full_intel=self.config.sees_all)
        self._connect("127.0.0.1", self._bridge.port, self._bridge.god_token, self._bridge.tokens)

    def call(self, who: str, name: str, args: Optional[dict] = None, changes_world: bool = False) -> Any:
        if self._bridge is not None:
            self._bridge.check_alive()
        return self._conns[who].call(name, args, changes_world=changes_world)

    # --- worlds ----------------------------------------------------------------------------

    def reset(self, seed: Optional[int]) -> dict[str, AgentView]:
        self._start()
        if seed is not None:
            if not isinstance(seed, (int, np.integer)) or not 0 <= int(seed) <= MAX_SEED:
                raise ValueError(f"seed must be an integer from 0 to {MAX_SEED}, got {seed!r}")
            self._rng = np.random.default_rng(int(seed))
            world_seed = int(seed)
        else:
            world_seed = int(self._rng.integers(0, MAX_SEED, endpoint=True))
        god = self._conns[GOD]
        rewound = False
        if world_seed == self._world_seed and self._savepoint is not None:
            try:
                self._last_hash = _research.rewind(god, self._savepoint).get("hash")
                rewound = True
            except BridgeCallError as err:
                # Another client of a shared bridge made or loaded a world since, which drops savepoints.
                if err.code != "GAME_REJECTED":
                    raise
        if not rewound:
            self._make_world(world_seed)
        self.cycles = 0
        answers = {agent: self._observe_now(agent) for agent in self.agents}
        for agent, answer in answers.items():
            self._kingdoms[agent] = answer.get("kingdom_id")
        self._units = self._units_of()
        self._prices = self._prices_of() if self.spec.economy else {}
        views = {agent: self._view(agent, answers[agent], time_left=1.0) for agent in self.agents}
        self._bodies.clear()  # they name the units of the world before
        return views

    def _make_world(self, seed: int) -> None:
        god = self._conns[GOD]
        candidate = seed
        for _ in range(_RESEED_TRIES):
            rules = {} if self.spec.rules is None else {"rules": self.spec.rules}
            god.call("generate_world", {"zone_x": self.zones[0], "zone_y": self.zones[1], "seed": candidate, **rules}, changes_world=True)
            kingdoms = [k for k in god.call("list_kingdoms")["items"] if not k.get("wild")]
            if len(kingdoms) >= len(self.agents):
                break
            candidate = (candidate + _RESEED_STEP) % (MAX_SEED + 1)
        else:
            raise BridgeError(f"no world with {len(self.agents)} kingdoms from seed {seed} and the {_RESEED_TRIES - 1} seeds after it")
        # generate_world dropped the previous world's savepoints.
        self._savepoint = _research.savepoint(god, f"seed {seed}")
        self._world_seed = seed
        self._last_hash = None

    def _units_of(self) -> dict[str, str]:
        """The unit each agent spawns: the civilised creature of its kingdom's race."""
        kingdoms = {k["id"]: k["race"] for k in self.call(GOD, "list_kingdoms")["items"]}
        units = {}
        for item in self.call(GOD, "list_actors")["items"]:
            if item.get("kind") == "civ" and item.get("race") is not None:
                units.setdefault(item["race"], item["id"])
        return {agent: units.get(kingdoms.get(self._kingdoms[agent], ""), "") for agent in self.agents}

    def _prices_of(self) -> dict[str, Optional[dict[str, float]]]:
        """What each action kind costs each agent's kingdom under the world's rules, from the price lists
        (list_actors and list_powers answer a `cost` under rules that price actions)."""
        actors = {item["id"]: item for item in self.call(GOD, "list_actors")["items"]}
        powers = {item["id"]: float(item.get("cost", 0)) for item in self.call(GOD, "list_powers")["items"]}
        out: dict[str, Optional[dict[str, float]]] = {}
        for agent in self.agents:
            unit = actors.get(self._units[agent], {})
            out[agent] = {
                "spawn": float(unit.get("cost", 0)),
                "child": float(unit.get("cost", 0)),
                "adult": float(unit.get("adult_cost", 0)),
                "power": powers.get(self.config.power, 0.0),
                "fertilize": powers.get(_POWERS["fertilize"], 0.0),
                "bless": powers.get(_POWERS["bless"], 0.0),
                "lightning": powers.get(_POWERS["lightning"], 0.0),
                "plague": powers.get(_POWERS["plague"], 0.0),
            }
        return out

    # --- turns -----------------------------------------------------------------------------

    def _view(self, agent: str, answer: dict, refused: Optional[str] = None, time_left: float = 1.0) -> AgentView:
        observation, seen = self.layout.flatten(answer, time_left)
        self._kingdoms[agent] = answer.get("kingdom_id")
        self._anchors[agent] = seen.anchors
        if seen.rival_anchors is not None:
            self._rival_anchors[agent] = seen.rival_anchors
        counts = seen.counts
        rival = seen.rival_counts
        return AgentView(
            observation=observation,
            mask=self.layout.mask(seen, self._prices.get(agent)),
            score=float(counts[1]) + 10.0 * float(counts[2]),
            alive=bool(counts[0] == 1),
            tick=int(answer["tick"]),
            refused=refused,
            rival_score=None if not self.spec.rivals else (0.0 if rival is None else float(rival[1]) + 10.0 * float(rival[2])),
            rival_alive=None if not self.spec.rivals else bool(rival is not None and rival[0] == 1),
        )

    def command_for(self, agent: str, action: int) -> Optional[dict]:
        kind, anchor = self.layout.action(action)
        if kind == "noop":
            return None
        points = self._rival_anchors[agent] if ACTION_TARGETS[kind] == "rival" else self._anchors[agent]
        x, y = (int(v) for v in points[anchor])
        if kind in ("spawn", "child", "adult"):
            adult = {"adult": True} if kind == "adult" else {}
            return {"name": "spawn", "args": {"entity_id": self._units[agent], "x": x, "y": y, "count": 1, **adult}}
        if kind == "paint":
            return {"name": "paint_tile", "args": {"x": x, "y": y, "tile_id": self.config.paint_tile, "radius": self.config.paint_radius}}
        power = self.config.power if kind == "power" else _POWERS[kind]
        return {"name": "invoke_power", "args": {"power_id": power, "x": x, "y": y}}

    def _observe_now(self, agent: str) -> dict:
        return self.call_body(agent, "observe", self._observe_json)

    def call_body(self, who: str, name: str, body: bytes, changes_world: bool = False) -> Any:
        if self._bridge is not None:
            self._bridge.check_alive()
        return self._conns[who].call_body(name, body, changes_world=changes_world)

    def _batch_body(self, agent: str, action: int, anchor: int) -> bytes:
        """The batch of the action's command and the observation, as bytes, made once per command."""
        kind, _ = self.layout.action(action)
        points = self._rival_anchors[agent] if ACTION_TARGETS[kind] == "rival" else self._anchors[agent]
        x, y = points[anchor].tolist()
        key = (agent, action, x, y)
        body = self._bodies.get(key)
        if body is None:
            if len(self._bodies) >= _MAX_BODIES:
                self._bodies.clear()
            command = _json(self.command_for(agent, action))
            body = b'{"name":"batch","args":{"commands":[%s,%s],"stop_on_error":false}}' % (command, self._observe_json)
            self._bodies[key] = body
        return body

    def act(self, agent: str, action: int, ends_cycle: bool = False) -> AgentView:
        """The agent's action and its next observation, in one request; with `ends_cycle`, then the
        cycle's step (advance), sent before the observation is decoded so that the bridge steps
        meanwhile."""
        kind, anchor = self.layout.action(action)
        refused = None
        # The observation is the agent's for its next turn, in the next cycle.
        time_left = max(0.0, (self.config.max_cycles - self.cycles - 1) / self.config.max_cycles)
        if kind == "noop":  # the observation alone
            seen = self._observe_now(agent)
        else:
            batch = self.call_body(agent, "batch", self._batch_body(agent, action, anchor), changes_world=True)
            done, observed = batch["results"]
            if not observed.get("ok"):
                error = observed.get("error", {})
                raise BridgeError(f"observe as {agent} failed: {error.get('code')}: {error.get('message')}")
            refused = None if done.get("ok") else str(done.get("error", {}).get("code", "REFUSED"))
            seen = observed["result"]
        if ends_cycle:
            self.advance()
        return self._view(agent, seen, refused, time_left)

    def advance(self) -> None:
        """The cycle's ticks, after the last agent. Its answer is read only before the env's next request:
        meanwhile the bridge runs the ticks while Python goes on (the env's bookkeeping, the caller's
        choice of the next action). A failure is raised by the next call, as "the previous cycle's step
        failed: ...", with the class it has (BridgeCallError, BridgeExited, ...)."""
        stepper = GOD if self.config.hash_each_cycle else self.agents[0]
        self.cycles += 1
        _research.step_later(self._conns[stepper], self.config.ticks_per_cycle, self._stepped, failure=_STEP_FAILED)

    def _stepped(self, result: dict) -> None:
        self._last_tick = int(result["tick"])
        self._last_hash = result.get("hash")

    @property
    def last_tick(self) -> int:
        self._order.settle()
        return self._last_tick

    @property
    def last_hash(self) -> Optional[str]:
        self._order.settle()
        return self._last_hash

    def world_hash(self) -> str:
        self._start()
        return _research.world_hash(self._conns[GOD])

    def render(self) -> np.ndarray:
        self._start()
        shot = self.call(GOD, "screenshot", {"format": "png", "max_dimension": 512})
        return decode_png(base64.b64decode(shot["base64"]))

    def close(self) -> None:
        self._closed = True
        try:
            self._order.settle()  # the last step's answer, so that the bridge ran it
        except BridgeError:
            pass  # the env is going away: nothing is left to raise it from
        self._order.drop()
        for conn in self._conns.values():
            conn.close()
        self._conns = {}
        if self._bridge is not None:
            bridge, self._bridge = self._bridge, None
            bridge.stop()

    @property
    def bridge(self) -> Optional[BridgeProcess]:
        return self._bridge

