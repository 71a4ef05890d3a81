"""The AEC environment: kingdoms take turns; after the last one the world steps `ticks_per_cycle`."""

from __future__ import annotations

from typing import Any, Mapping, Optional

import gymnasium
from pettingzoo import AECEnv

from ._session import AgentView, Config, Session
from ._spaces import checked_action

__all__ = ["KingdomsEnv", "METADATA", "make_session", "info_of"]

METADATA = {"name": "gcb_kingdoms_v0", "render_modes": ["rgb_array"], "is_parallelizable": True, "render_fps": 10}


def make_session(
    n_agents: int,
    seed: Optional[int],
    ticks_per_cycle: int,
    url: Optional[str],
    tokens: Optional[Mapping[str, str]],
    options: Mapping[str, Any],
) -> tuple[list[str], Session]:
    agents = [f"kingdom_{n}" for n in range(n_agents)] if isinstance(n_agents, int) else []
    config = Config(n_agents=n_agents, ticks_per_cycle=ticks_per_cycle, **options)
    return agents, Session(agents, config, seed, url, tokens)


def info_of(view: AgentView) -> dict[str, Any]:
    """The same in every run of one seed and one action sequence (seed_test compares them)."""
    return {"tick": view.tick, "refused": view.refused}


def check_render_mode(render_mode: Optional[str]) -> None:
    if render_mode is not None and render_mode not in METADATA["render_modes"]:
        raise ValueError(f"render_mode must be None or one of {METADATA['render_modes']}, got {render_mode!r}")


class KingdomsEnv(AECEnv):
    """See gcb_env.env() for the arguments and README.md for the spaces."""

    metadata = METADATA

    def __init__(
        self,
        seed: Optional[int] = None,
        n_agents: int = 2,
        ticks_per_cycle: int = 10,
        max_cycles: int = 1000,
        render_mode: Optional[str] = None,
        url: Optional[str] = None,
        tokens: Optional[Mapping[str, str]] = None,
        **options: Any,
    ):
        super().__init__()
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.possible_agents, self._session = make_session(n_agents, seed, ticks_per_cycle, url, tokens, options)
        layout = self._session.layout
        self.observation_spaces = {agent: layout.space() for agent in self.possible_agents}
        self.action_spaces = {agent: gymnasium.spaces.Discrete(layout.n_actions) for agent in self.possible_agents}
        self.agents: list[str] = []
        self._views: dict[str, AgentView] = {}
        self._cycle: list[str] = []
        self._position = 0
        self.num_cycles = 0

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict:
        view = self._views[agent]
        return {"observation": view.observation, "action_mask": view.mask}

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        self._views = self._session.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: info_of(self._views[agent]) for agent in self.agents}
        self.num_cycles = 0
        self._cycle = self.agents[:]
        self._position = 0
        self.agent_selection = self._cycle[0]

    def step(self, action: Any) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        # Checked before anything is sent: a bad action changes nothing.
        value = checked_action(self._session.layout, agent, action, self._views[agent].mask)
        self._cumulative_rewards[agent] = 0.0
        previous = self._views[agent]
        # The cycle's step goes out with the last agent's turn (see Session.act).
        ends_cycle = self._position + 1 >= len(self._cycle)
        view = self._session.act(agent, value, ends_cycle)
        self._views[agent] = view
        self._clear_rewards()
        self.rewards[agent] = view.score - previous.score
        self.terminations[agent] = not view.alive
        self.infos[agent] = info_of(view)
        self._position += 1
        if ends_cycle:
            self.num_cycles += 1
            if self.num_cycles >= self.max_cycles:
                for name in self.agents:
                    self.truncations[name] = True
            self._cycle = [name for name in self.agents if not (self.terminations[name] or self.truncations[name])]
            self._position = 0
        if self._cycle:
            self.agent_selection = self._cycle[self._position]
        self._accumulate_rewards()
        self._deads_step_first()

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the env with render_mode='rgb_array'")
            return None
        return self._session.render()

    def world_hash(self) -> str:
        """The bridge's 64-bit digest of the whole world now (16 hex digits)."""
        return self._session.world_hash()

    @property
    def last_hash(self) -> Optional[str]:
        """The world hash after the last cycle, with hash_each_cycle=True (else None)."""
        return self._session.last_hash

    def close(self) -> None:
        self._session.close()
