"""The Parallel environment: every live kingdom acts, in a fixed order, then the world steps."""

from __future__ import annotations

from typing import Any, Mapping, Optional

import gymnasium
from pettingzoo import ParallelEnv

from ._session import AgentView
from ._spaces import InvalidAction, checked_action
from .aec import METADATA, check_render_mode, info_of, make_session

__all__ = ["KingdomsParallelEnv"]


class KingdomsParallelEnv(ParallelEnv):
    """See gcb_env.parallel_env() for the arguments and README.md for the spaces."""

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
        check_render_mode(render_mode)
        self.render_mode = render_mode
        self.max_cycles = max_cycles
        self.possible_agents, self._session = make_session(n_agents, seed, ticks_per_cycle, url, tokens, options)
        layout = self._session.layout
        self.observation_spaces = {agent: layout.space() for agent in self.possible_agents}
        self.action_spaces = {agent: gymnasium.spaces.Discrete(layout.n_actions) for agent in self.possible_agents}
        self.agents: list[str] = []
        self._views: dict[str, AgentView] = {}
        self.num_cycles = 0

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def _observation(self, agent: str) -> dict:
        view = self._views[agent]
        return {"observation": view.observation, "action_mask": view.mask}

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        self._views = self._session.reset(seed)
        self.agents = self.possible_agents[:]
        self.num_cycles = 0
        return {a: self._observation(a) for a in self.agents}, {a: info_of(self._views[a]) for a in self.agents}

    def step(self, actions: Mapping[str, Any]) -> tuple[dict, dict, dict, dict, dict]:
        # Every action is checked before any is sent: a bad one changes nothing.
        unknown = sorted(set(actions) - set(self.agents))
        if unknown:
            raise InvalidAction(f"actions for agents that are not live: {unknown}; live agents: {self.agents}")
        missing = [agent for agent in self.agents if agent not in actions]
        if missing:
            raise InvalidAction(f"no action for {', '.join(missing)}: every live agent acts each cycle (0 is the no-op)")
        chosen = {agent: checked_action(self._session.layout, agent, actions[agent], self._views[agent].mask) for agent in self.agents}
        rewards: dict[str, float] = {}
        for agent in self.agents:
            previous = self._views[agent]
            # The cycle's step goes out with the last agent's action (see Session.act).
            self._views[agent] = self._session.act(agent, chosen[agent], ends_cycle=agent == self.agents[-1])
            rewards[agent] = self._views[agent].score - previous.score
        if not self.agents:
            self._session.advance()
        self.num_cycles += 1
        truncated = self.num_cycles >= self.max_cycles
        observations = {a: self._observation(a) for a in self.agents}
        terminations = {a: not self._views[a].alive for a in self.agents}
        truncations = {a: truncated for a in self.agents}
        infos = {a: info_of(self._views[a]) for a in self.agents}
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos

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
