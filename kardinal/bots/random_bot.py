"""``random``: uniform over the legal decisions."""

from __future__ import annotations

from typing import Any

from kardinal.rules.moves import Move

from .base import Bot


class RandomBot(Bot):
    name = "random"

    def choose(self, view: dict[str, Any]) -> Move:
        return self.rng.choice(self.legal_moves(view))
