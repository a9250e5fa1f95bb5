"""Kardinal as a PettingZoo AEC environment (``kardinal_v0``, in the style of pettingzoo.classic).

>>> from kardinal.research.pettingzoo_env import env
>>> e = env(players=4)
>>> e.reset(seed=1)
>>> e.agent_selection
'player_0'
>>> obs, reward, termination, truncation, info = e.last()
>>> sorted(obs), obs["observation"].shape, int(obs["action_mask"].sum()) > 0
(['action_mask', 'observation'], (326,), True)

* Agents ``player_0`` .. ``player_{n-1}`` are the seats (``player_0`` is the start player).
  The same agent may act several times in a row (drawing card by card, R5.1).
* Actions: ``Discrete(1507)`` on the standard board, the fixed table of :mod:`kardinal.research.actions`.
* Observations: a dict with ``observation`` (float32 vector, the fields of
  :mod:`kardinal.research.encode`; public information and the agent's own hand only,
  R13) and ``action_mask`` (int8, 1 for the legal actions of the agent to act, all 0
  for the others).
* Rewards only at the end: ``rewards="scores"`` (default) gives each agent its final
  score; ``rewards="win"`` gives 1/w to each of the w winners (R12.1) and 0 to the others.
* Chance happens inside ``step`` (the deck is shuffled by the seeded rules core at
  ``reset(seed=...)``; the reshuffle of R7.3 follows from the same seed), so the same
  seed and actions give the same game.
* ``env()`` adds the usual wrappers (an illegal action ends the game with reward -1 for
  the agent that chose it); ``raw_env`` is the bare environment.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from gymnasium import spaces
from gymnasium.utils import EzPickle, seeding
from pettingzoo import AECEnv
from pettingzoo.utils import wrappers
from pettingzoo.utils.env_logger import EnvLogger

from kardinal.rules.board import get_board
from kardinal.rules.scoring import win_shares
from kardinal.rules.state import State, new_game
from kardinal.rules.variants import parse_variants

from .actions import action_table
from .encode import observation_text, tensor_size, write_tensor

__all__ = ["env", "raw_env", "stock_env", "Checked"]

OBS_HIGH = 1.0e6  # every field is a count or a score, far below this


def env(**kwargs: Any) -> AECEnv:
    """``raw_env(**kwargs)`` with the checks of pettingzoo.classic's environments (see :class:`Checked`)."""
    return Checked(raw_env(**kwargs))


def stock_env(**kwargs: Any) -> AECEnv:
    """``raw_env`` in PettingZoo's own three wrappers, which :class:`Checked` does in one.

    The same behaviour step for step (the tests compare them), about half the steps a second.
    """
    e: AECEnv = raw_env(**kwargs)
    e = wrappers.TerminateIllegalWrapper(e, illegal_reward=-1)
    e = wrappers.AssertOutOfBoundsWrapper(e)
    return wrappers.OrderEnforcingWrapper(e)


def _after_reset(name: str) -> Any:
    """A property of :class:`Checked` that reads the bare environment's attribute ``name``,
    or raises AttributeError before ``reset`` as OrderEnforcingWrapper does."""

    def read(self: Checked) -> Any:
        if not self._has_reset:
            raise AttributeError(f"{name} cannot be accessed before reset")
        return getattr(self._raw, name)

    return property(read)


class Checked(wrappers.OrderEnforcingWrapper):  # type: ignore[misc]
    """The three wrappers pettingzoo.classic puts around its games, as one layer.

    ``TerminateIllegalWrapper(illegal_reward=-1)`` (an action the action mask forbids ends the
    game: -1 for the agent that chose it, 0 for the others), ``AssertOutOfBoundsWrapper``
    (an action outside the action space is an AssertionError) and ``OrderEnforcingWrapper``
    (calls before ``reset`` are errors; it is one, so ``agent_iter`` checks the loop as
    PettingZoo's does). Their code, step for step, in the same order; but each of the three
    forwards every attribute to the next through ``__getattr__`` (``agent_selection``,
    ``terminations`` and the others are read several times a step), which took about half
    of a step's time. Here the attributes read every step are properties that read the bare
    environment at once, and an action that is a plain ``int`` is checked against the
    space's size directly (others still by ``space.contains``). :func:`stock_env` builds the
    three wrappers themselves; ``tests/test_research_pettingzoo.py`` plays both side by side.
    """

    def __init__(self, env: raw_env) -> None:
        super().__init__(env)
        self._raw = env
        self._illegal_value = -1.0
        self._prev_obs: dict[str, np.ndarray] | None = None
        self._prev_info: dict[str, Any] | None = None
        self._terminated = False  # ended by an illegal action

    # -- what the loop reads every step, straight from the bare environment ----------

    agent_selection = _after_reset("agent_selection")
    agents = _after_reset("agents")
    terminations = _after_reset("terminations")
    truncations = _after_reset("truncations")
    rewards = _after_reset("rewards")
    infos = _after_reset("infos")

    @property
    def _cumulative_rewards(self) -> dict[str, float]:
        return self._raw._cumulative_rewards

    def last(self, observe: bool = True) -> tuple[dict[str, np.ndarray] | None, float, bool, bool, dict[str, Any]]:
        raw = self._raw
        agent = self.agent_selection
        obs = self.observe(agent) if observe else None
        return obs, raw._cumulative_rewards[agent], raw.terminations[agent], raw.truncations[agent], raw.infos[agent]

    # -- the three wrappers' methods --------------------------------------------------

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        self._has_reset = True
        self._has_updated = True
        self._terminated = False
        self._prev_obs = None
        self._prev_info = None
        self._raw.reset(seed=seed, options=options)

    def observe(self, agent: str) -> dict[str, np.ndarray] | None:
        if not self._has_reset:
            EnvLogger.error_observe_before_reset()
        raw = self._raw
        obs = raw.observe(agent)
        if agent == raw.agent_selection:
            self._prev_obs = obs
            self._prev_info = raw.infos.get(agent, {})
        return obs

    def step(self, action: Any) -> None:
        # OrderEnforcingWrapper
        if not self._has_reset:
            EnvLogger.error_step_before_reset()
        raw = self._raw
        if not raw.agents:
            self._has_updated = True
            EnvLogger.warn_step_after_terminated_truncated()
            return
        self._has_updated = True
        # AssertOutOfBoundsWrapper
        agent = raw.agent_selection
        dead = raw.terminations[agent] or raw.truncations[agent]
        if not (action is None and dead):
            inside = 0 <= action < raw.num_actions if type(action) is int else raw.action_spaces[agent].contains(action)
            assert inside, "action is not in action space"
        # TerminateIllegalWrapper
        if self._prev_obs is None:
            self.observe(agent)
        assert self._prev_obs is not None
        mask = self._prev_obs["action_mask"]
        self._prev_obs = None
        self._prev_info = None
        if self._terminated and dead:
            raw._was_dead_step(action)
        elif not dead and not mask[action]:
            EnvLogger.warn_on_illegal_move()
            raw._cumulative_rewards[agent] = 0
            raw.terminations = dict.fromkeys(raw.agents, True)
            raw.truncations = dict.fromkeys(raw.agents, True)
            raw.rewards = dict.fromkeys(raw.truncations, 0)
            raw.rewards[agent] = float(self._illegal_value)
            raw._accumulate_rewards()
            raw._deads_step_first()
            self._terminated = True
        else:
            raw.step(action)

    def __str__(self) -> str:
        return str(self._raw)


class raw_env(AECEnv, EzPickle):  # type: ignore[misc]
    metadata: dict[str, Any] = {"render_modes": ["human", "ansi"], "name": "kardinal_v0", "is_parallelizable": False}

    def __init__(
        self,
        players: int = 4,
        rewards: str = "scores",
        render_mode: str | None = None,
        variants: Sequence[str] = (),
        board: str = "standard",
    ) -> None:
        EzPickle.__init__(self, players, rewards, render_mode, variants, board)
        super().__init__()
        self.variants = parse_variants(variants)  # VariantError (a ValueError) names the known ones
        b = get_board(board)
        if players not in b.removed_per_kind:
            raise ValueError(f"kardinal_v0 is for 3 to 5 players, not {players}")
        if rewards not in ("scores", "win"):
            raise ValueError(f"rewards must be 'scores' or 'win', not {rewards!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(f"render_mode must be one of {self.metadata['render_modes']}")
        self.board = b
        self.n = players
        self.reward_mode = rewards
        self.render_mode = render_mode
        self.table = action_table(b)
        self.num_actions = len(self.table)
        self.possible_agents = [f"player_{i}" for i in range(players)]
        self.agents = self.possible_agents[:]
        size = tensor_size(b, players)
        self.observation_spaces = {
            a: spaces.Dict(
                {
                    "observation": spaces.Box(low=0.0, high=OBS_HIGH, shape=(size,), dtype=np.float32),
                    "action_mask": spaces.Box(low=0, high=1, shape=(len(self.table),), dtype=np.int8),
                }
            )
            for a in self.possible_agents
        }
        self.action_spaces = {a: spaces.Discrete(len(self.table)) for a in self.possible_agents}
        self._size = size
        self._np_random, _ = seeding.np_random(None)
        self.state: State | None = None

    def observation_space(self, agent: str) -> spaces.Space[Any]:
        return self.observation_spaces[agent]

    def action_space(self, agent: str) -> spaces.Space[Any]:
        return self.action_spaces[agent]

    def observe(self, agent: str) -> dict[str, np.ndarray]:
        s = self.state
        assert s is not None, "call reset() first"
        seat = self.possible_agents.index(agent)
        obs = np.zeros(self._size, np.float32)
        write_tensor(obs, s, seat)
        mask = np.zeros(len(self.table), np.int8)
        if not s.is_over and seat == s.current:
            mask[self.table.encode_all(s.legal_moves())] = 1
        return {"observation": obs, "action_mask": mask}

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        if seed is not None:
            self._np_random, _ = seeding.np_random(seed)
        game_seed = int(self._np_random.integers(0, 2**62))
        self.state = new_game(self.n, seed=game_seed, board=self.board, history=False, variants=self.variants)
        self.agents = self.possible_agents[:]
        self.rewards = dict.fromkeys(self.agents, 0.0)
        self._cumulative_rewards = dict.fromkeys(self.agents, 0.0)
        self.terminations = dict.fromkeys(self.agents, False)
        self.truncations = dict.fromkeys(self.agents, False)
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.agent_selection = self.agents[self.state.current]

    def step(self, action: int | None) -> None:
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            self._was_dead_step(action)
            return
        s = self.state
        assert s is not None, "call reset() first"
        assert action is not None
        s.play(self.table.decode(int(action)))  # RuleError, naming the rule, if illegal
        self._cumulative_rewards[agent] = 0.0
        if s.is_over:
            if self.reward_mode == "scores":
                self.rewards = {a: float(s.scores[i]) for i, a in enumerate(self.agents)}
            else:
                self.rewards = dict(zip(self.agents, win_shares(s.winners or [], s.n)))
            self.terminations = dict.fromkeys(self.agents, True)
        else:
            self.rewards = dict.fromkeys(self.agents, 0.0)
            self.agent_selection = self.agents[s.current]
        self._accumulate_rewards()
        if self.render_mode == "human":
            self.render()

    def render(self) -> str | None:
        if self.render_mode is None or self.state is None:
            return None
        text = observation_text(self.state, None)
        if self.render_mode == "human":
            print(text)
            return None
        return text

    def close(self) -> None:
        pass
