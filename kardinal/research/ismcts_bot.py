"""``openspiel-ismcts``: OpenSpiel's own ISMCTS on ``python_kardinal``, as a yardstick.

It is ``open_spiel.python.algorithms.ismcts.ISMCTSBot`` unchanged in its search (UCT,
c = 2, random-rollout evaluator, max-visit final policy, inconsistent action sets
allowed, tree nodes keyed by information-state strings), with two adaptations:

* like every bot it sees only the view of its seat: each simulation starts from a fresh
  determinization of the view (``state_from_view``, the same sampler the project's own
  bots use), set as the ISMCTS resampler;
* the budget is a number of simulations, or seconds per decision (checked between
  simulations, at least one simulation), so it can be compared at equal time.

Returns are ``"win"`` by default (1/w for each of w winners, else 0: UCT's usual 0..1
scale); ``returns="scores"`` searches on raw points instead.
"""

from __future__ import annotations

import random
import time
from typing import Any

import numpy as np
from open_spiel.python.algorithms import ismcts, mcts

from kardinal.bots.base import Bot
from kardinal.rules.board import Board, installed_boards
from kardinal.rules.moves import Move
from kardinal.rules.view import ViewData

from .openspiel_game import KardinalGame, KardinalState, load, state_from_view

__all__ = ["OpenSpielISMCTSBot"]


class _BudgetedISMCTS(ismcts.ISMCTSBot):  # type: ignore[misc]
    """ISMCTSBot.run_search with a wall-clock budget next to the simulation cap."""

    seconds: float | None = None
    last_simulations = 0

    def run_search(self, state: Any) -> list[tuple[int, float]]:
        self.reset()
        legal = state.legal_actions()
        if len(legal) == 1:
            self.last_simulations = 0
            return [(legal[0], 1.0)]
        self._root_node = self.create_new_node(state)
        key = self.get_state_key(state)
        deadline = time.perf_counter() + self.seconds if self.seconds is not None else None
        sims = 0
        while sims < self._max_simulations and (deadline is None or sims == 0 or time.perf_counter() < deadline):
            sampled = self.sample_root_state(state)
            assert key == self.get_state_key(sampled)
            self.run_simulation(sampled)
            sims += 1
        self.last_simulations = sims
        legal = state.legal_actions()
        node = self.filter_illegals(self._root_node, legal)
        return self.get_final_policy(state, node)  # type: ignore[no-any-return]


class OpenSpielISMCTSBot(Bot):
    name = "openspiel-ismcts"

    def __init__(
        self,
        seed: int = 0,
        board: Board | None = None,
        simulations: int | None = None,
        seconds: float | None = 1.5,
        uct_c: float = 2.0,
        returns: str = "win",
    ) -> None:
        super().__init__(seed, board)
        if board is not None and board.id not in installed_boards():
            raise ValueError(f"openspiel-ismcts plays on the installed boards only ({', '.join(installed_boards())})")
        if simulations is None and seconds is None:
            raise ValueError("openspiel-ismcts needs a number of simulations or seconds per decision")
        self.simulations = simulations
        self.seconds = seconds
        self.uct_c = uct_c
        self.returns = returns
        self._games: dict[tuple[int, str, tuple[str, ...]], KardinalGame] = {}
        self.last_simulations = 0

    def _game(self, players: int, board: str, variants: tuple[str, ...]) -> KardinalGame:
        """The game of the view's size, board and rule variants (R14)."""
        key = (players, board, variants)
        g = self._games.get(key)
        if g is None:
            g = self._games[key] = load(players, self.returns, variants=variants, board=board)
        return g

    def choose(self, view: ViewData) -> Move:
        game = self._game(view["players"], view["board"], tuple(view["variants"]))
        rng = random.Random(self.rng.getrandbits(63))
        root = state_from_view(game, view, rng)
        legal = root.legal_actions()
        if len(legal) == 1:
            self.last_simulations = 0
            return game.table.decode(legal[0])
        np_rng = np.random.RandomState(rng.getrandbits(32))
        bot = _BudgetedISMCTS(
            game,
            mcts.RandomRolloutEvaluator(n_rollouts=1, random_state=np_rng),
            self.uct_c,
            max_simulations=self.simulations if self.simulations is not None else 1 << 62,
            random_state=np_rng,
            final_policy_type=ismcts.ISMCTSFinalPolicyType.MAX_VISIT_COUNT,
            allow_inconsistent_action_sets=True,
        )
        bot.seconds = self.seconds

        def resample(state: KardinalState, player: int) -> KardinalState:
            return state_from_view(game, view, rng)

        bot.set_resampler(resample)
        _, action = bot.step_with_policy(root)
        self.last_simulations = bot.last_simulations
        return game.table.decode(int(action))
