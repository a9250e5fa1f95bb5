"""Bots. ``make_bot("hard", seed=1)`` builds one from its name or level.

Every bot gets only ``view(state, seat)`` (R13) and is deterministic given its seed.

* ``random``: uniform over the legal decisions.
* ``greedy``: one move of look-ahead with a hand-written evaluation (``greedy.py``).
* ``ismcts``: SO-ISMCTS, 1000 iterations a decision (``ismcts.py``).
* levels for people: ``easy`` = greedy with noise on its move values; ``medium`` =
  ismcts with at most 400 iterations and 0.4 s (wall clock) a decision; ``hard`` =
  ismcts with at most 2500 iterations and 1.5 s a decision (the wall-clock limit, with
  the set-up, keeps a decision under 2 s even on a loaded machine). Draw decisions and
  single legal moves are answered at once.
"""

from __future__ import annotations

from collections.abc import Callable

from ..board import Board
from .base import Bot
from .greedy import GreedyBot
from .ismcts import ISMCTSBot
from .random_bot import RandomBot

__all__ = ["Bot", "RandomBot", "GreedyBot", "ISMCTSBot", "make_bot", "BOTS"]


def _openspiel_ismcts(seed: int, board: Board | None) -> Bot:
    """OpenSpiel's ISMCTS on python_kardinal (needs the research extra); 1.5 s per decision, as 'hard'."""
    from ..research.ismcts_bot import OpenSpielISMCTSBot

    return OpenSpielISMCTSBot(seed, board)


# name -> factory(seed, board); bot modules add themselves here
BOTS: dict[str, Callable[[int, Board | None], Bot]] = {
    "random": lambda seed, board: RandomBot(seed, board),
    "greedy": lambda seed, board: GreedyBot(seed, board),
    "ismcts": lambda seed, board: ISMCTSBot(seed, board),
    "easy": lambda seed, board: GreedyBot(seed, board, noise=1.5),
    "medium": lambda seed, board: ISMCTSBot(seed, board, iterations=400, time_limit=0.4),
    "hard": lambda seed, board: ISMCTSBot(seed, board, iterations=2500, time_limit=1.5),
    "openspiel-ismcts": _openspiel_ismcts,
}


def make_bot(name: str, seed: int = 0, board: Board | None = None) -> Bot:
    """A bot by name ('random', ...); ValueError listing the names if unknown."""
    try:
        factory = BOTS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(sorted(BOTS))}") from None
    return factory(seed, board)
