"""The Parallel environment: every live kingdom acts, in a fixed order, then the world steps."""

from __future__ import annotations

from typing import Any, Mapping, Optional

from pettingzoo import ParallelEnv

from ._base import KingdomsBase
from ._spaces import InvalidAction, checked_action

__all__ = ["KingdomsParallelEnv"]


class KingdomsParallelEnv(KingdomsBase, ParallelEnv):
    """The Parallel env; KingdomsBase has its arguments and README.md its spaces."""

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> tuple[dict, dict]:
        self._views = self._session.reset(seed)
        self.agents = self.possible_agents[:]
        self.num_cycles = 0
        self._start_standing()
        return {a: self._observation(a) for a in self.agents}, {a: self._info(self._views[a]) for a in self.agents}

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
        if self.scenario.zero_sum and self.agents:
            # duel: one view scores both, and a fall ends the episode for both.
            cycle_rewards, over = self._zero_sum_cycle(self.agents[-1])
            rewards = {a: cycle_rewards[a] for a in self.agents}
            terminations = {a: over for a in self.agents}
        truncations = {a: truncated for a in self.agents}
        infos = {a: self._info(self._views[a]) for a in self.agents}
        self.agents = [a for a in self.agents if not (terminations[a] or truncations[a])]
        return observations, rewards, terminations, truncations, infos
