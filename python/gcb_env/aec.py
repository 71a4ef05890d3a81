"""The AEC environment: kingdoms take turns; after the last one the world steps `ticks_per_cycle`."""

from __future__ import annotations

from typing import Any, Optional

from pettingzoo import AECEnv

from ._base import METADATA, KingdomsBase
from ._spaces import checked_action

__all__ = ["KingdomsEnv", "METADATA"]


class KingdomsEnv(KingdomsBase, AECEnv):
    """The AEC env; KingdomsBase has its arguments and README.md its spaces."""

    # The live agents of the cycle under way, in turn order, and whose turn it is among them.
    _cycle: list[str] = []
    _position = 0

    def observe(self, agent: str) -> dict:
        return self._observation(agent)

    def reset(self, seed: Optional[int] = None, options: Optional[dict] = None) -> None:
        self._views = self._session.reset(seed)
        self.agents = self.possible_agents[:]
        self.rewards = {agent: 0.0 for agent in self.agents}
        self._cumulative_rewards = {agent: 0.0 for agent in self.agents}
        self.terminations = {agent: False for agent in self.agents}
        self.truncations = {agent: False for agent in self.agents}
        self.infos = {agent: self._info(self._views[agent]) for agent in self.agents}
        self.num_cycles = 0
        self._start_standing()
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
        self.infos[agent] = self._info(view)
        if self.scenario.zero_sum:
            # duel: at the end of each cycle one view scores both kingdoms, and a fall ends the episode for both.
            if ends_cycle:
                cycle_rewards, over = self._zero_sum_cycle(agent)
                for name in self.agents:
                    self.rewards[name] = cycle_rewards[name]
                    self.terminations[name] = over
        else:
            self.rewards[agent] = view.score - previous.score
            self.terminations[agent] = not view.alive
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
