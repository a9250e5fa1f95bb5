"""The bot interface: a bot sees only ``view(state, seat)`` and answers a legal move."""

from __future__ import annotations

import random
from abc import ABC, abstractmethod

from kardinal.rules.board import Board, get_board
from kardinal.rules.moves import Move
from kardinal.rules.state import State
from kardinal.rules.view import ViewData

from .determinize import determinize


class Bot(ABC):
    """A player. ``choose`` gets the view of the seat to act (never the hidden state).

    Bots are deterministic given their seed: the same seed and the same sequence of
    views give the same moves.
    """

    name: str = "bot"

    def __init__(self, seed: int = 0, board: Board | None = None) -> None:
        self.seed = seed
        self.rng = random.Random(seed)
        self.board = board

    def _board(self, view: ViewData) -> Board:
        if self.board is None:
            self.board = get_board(view["board"])
        return self.board

    def sample(self, view: ViewData) -> State:
        """A state consistent with the view (hidden cards drawn at random)."""
        return determinize(view, self.rng, self._board(view))

    def legal_moves(self, view: ViewData) -> list[Move]:
        """The legal moves of the seat to act; they depend only on what it knows."""
        return self.sample(view).legal_moves()

    @abstractmethod
    def choose(self, view: ViewData) -> Move: ...
