"""``random``: uniform over the legal decisions."""

from __future__ import annotations

from kardinal.rules.moves import Move
from kardinal.rules.view import ViewData

from .base import Bot


class RandomBot(Bot):
    name = "random"

    def choose(self, view: ViewData) -> Move:
        return self.rng.choice(self.legal_moves(view))
