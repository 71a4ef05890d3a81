"""What the AEC and the Parallel env share: their arguments (written once, here), spaces, rendering,
hashes and close. Each API's own module adds only its turns: aec.py and parallel.py."""

from __future__ import annotations

import inspect
from typing import Any, Callable, Mapping, Optional, TypeVar

import gymnasium

from ._config import Config, checked_seed
from ._session import AgentView, Session

__all__ = ["KingdomsBase", "METADATA", "ARGUMENTS", "with_env_arguments"]

METADATA = {"name": "gcb_kingdoms_v0", "render_modes": ["rgb_array"], "is_parallelizable": True, "render_fps": 10}

ARGUMENTS = """
    seed: the env's generator, which draws the world seed of each reset() given none (an integer >= 0).
    scenario: the task, "default", "grow" or "duel" (README.md, "Scenarios"); it sets the defaults of
    n_agents, ticks_per_cycle, max_cycles and grid, the actions, the observation's extra parts and
    the reward. full_intel: each player sees every kingdom (others, wild and the rival's parts
    filled); None takes the scenario's (True for duel, False otherwise).
    n_agents: kingdoms, 2 to 4 (grow and duel: 2). ticks_per_cycle: ticks the world runs after the
    last agent's turn, 1 to 10,000 (default 10; grow and duel 40). max_cycles: cycles before every
    agent is truncated (>= 1; default 1000; grow and duel 50). render_mode: None or "rgb_array".
    Counts are Python or numpy integers, never bools or floats.
    url, tokens: a running bridge (under the lockstep clock) instead of starting one; tokens maps
    each agent ("kingdom_0", ...) to a faction player's token and "god" to a god's.
    options: grid (16; grow and duel 8; 4..64), anchors (4, 1..16), zones ((2, 2) for two kingdoms, each side 2..16),
    paint_tile ("grass"), paint_radius (2, 0..200), power ("blessing"), timeout (60: seconds for each
    whole answer), start_timeout (90 s), hash_each_cycle (False: True sets last_hash after every
    cycle, at the cost of a world hash).
    A wrong argument is a ValueError naming it, raised here.
"""


class KingdomsBase:
    metadata = METADATA

    def __init__(
        self,
        seed: Optional[int] = None,
        n_agents: Optional[int] = None,
        ticks_per_cycle: Optional[int] = None,
        max_cycles: Optional[int] = None,
        render_mode: Optional[str] = None,
        url: Optional[str] = None,
        tokens: Optional[Mapping[str, str]] = None,
        scenario: str = "default",
        full_intel: Optional[bool] = None,
        **options: Any,
    ):
        super().__init__()
        if render_mode is not None and render_mode not in METADATA["render_modes"]:
            raise ValueError(f"render_mode must be None or one of {METADATA['render_modes']}, got {render_mode!r}")
        config = Config.make(n_agents, ticks_per_cycle, max_cycles, options, scenario, full_intel)
        self.scenario = config.spec
        self.render_mode = render_mode
        self.max_cycles = config.max_cycles
        self.possible_agents = [f"kingdom_{n}" for n in range(config.n_agents)]
        self._session = Session(self.possible_agents, config, checked_seed(seed), url, tokens)
        layout = self._session.layout
        self.observation_spaces = {agent: layout.space() for agent in self.possible_agents}
        self.action_spaces = {agent: gymnasium.spaces.Discrete(layout.n_actions) for agent in self.possible_agents}
        self.agents: list[str] = []
        self._views: dict[str, AgentView] = {}
        self.num_cycles = 0
        self._last_standing = 0.0

    # --- zero-sum scenarios (duel) ------------------------------------------------------------

    def _standing(self, agent: str) -> tuple[float, bool]:
        """kingdom_0's standing as `agent`'s latest view shows both kingdoms: its score minus the
        rival's, +-fall_bonus once a kingdom has fallen; and whether one has (the episode is over)."""
        view = self._views[agent]
        own_fell, rival_fell = not view.alive, not view.rival_alive
        standing = view.score - (view.rival_score or 0.0)
        if rival_fell and not own_fell:
            standing += self.scenario.fall_bonus
        elif own_fell and not rival_fell:
            standing -= self.scenario.fall_bonus
        sign = 1.0 if agent == self.possible_agents[0] else -1.0
        return sign * standing, own_fell or rival_fell

    def _zero_sum_cycle(self, last: str) -> tuple[dict[str, float], bool]:
        """Each agent's reward for the cycle that `last` closed, from one view (the last agent's, which
        sees both kingdoms after every action of the cycle), so that they sum to zero; and whether a
        kingdom has fallen."""
        standing, over = self._standing(last)
        change = standing - self._last_standing
        self._last_standing = standing
        first = self.possible_agents[0]
        return {agent: (change if agent == first else -change) for agent in self.possible_agents}, over

    def _start_standing(self) -> None:
        self._last_standing = self._standing(self.possible_agents[-1])[0] if self.scenario.zero_sum else 0.0

    def observation_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> gymnasium.spaces.Space:
        return self.action_spaces[agent]

    def _observation(self, agent: str) -> dict:
        view = self._views[agent]
        return {"observation": view.observation, "action_mask": view.mask}

    @staticmethod
    def _info(view: AgentView) -> dict[str, Any]:
        """The same in every run of one seed and one action sequence (seed_test compares them)."""
        return {"tick": view.tick, "refused": view.refused}

    def render(self) -> Any:
        if self.render_mode is None:
            gymnasium.logger.warn("render() without a render_mode: make the env with render_mode='rgb_array'")
            return None
        return self._session.render()

    @property
    def layout(self):
        """Where each part of the observation sits, and what each action is (gcb_env.Layout)."""
        return self._session.layout

    def world_hash(self) -> str:
        """The bridge's 64-bit digest of the whole world now (16 hex digits)."""
        return self._session.world_hash()

    @property
    def last_hash(self) -> Optional[str]:
        """The world hash after the last cycle, with hash_each_cycle=True (else None)."""
        return self._session.last_hash

    def close(self) -> None:
        self._session.close()


KingdomsBase.__doc__ = f"""The arguments of both envs:{ARGUMENTS}"""

_Maker = TypeVar("_Maker", bound=Callable[..., Any])


def with_env_arguments(maker: _Maker) -> _Maker:
    """Gives a function that passes (*args, **kwargs) on to an env the env's own signature and the
    description of its arguments, for help() and editors."""
    returns = inspect.signature(maker).return_annotation
    maker.__signature__ = inspect.signature(KingdomsBase).replace(return_annotation=returns)  # type: ignore[attr-defined]
    maker.__doc__ = f"{maker.__doc__}\n{ARGUMENTS}"
    return maker
