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

import logging
from collections.abc import Callable
from importlib.metadata import entry_points

from kardinal.rules.board import Board

from .base import Bot
from .greedy import GreedyBot
from .ismcts import ISMCTSBot
from .random_bot import RandomBot

__all__ = ["Bot", "RandomBot", "GreedyBot", "ISMCTSBot", "make_bot", "register_bot", "BOTS", "BotFactory"]

BotFactory = Callable[[int, Board | None], Bot]

# name -> factory(seed, board); packages beside this one add theirs with register_bot
BOTS: dict[str, BotFactory] = {
    "random": lambda seed, board: RandomBot(seed, board),
    "greedy": lambda seed, board: GreedyBot(seed, board),
    "ismcts": lambda seed, board: ISMCTSBot(seed, board),
    "easy": lambda seed, board: GreedyBot(seed, board, noise=1.5),
    "medium": lambda seed, board: ISMCTSBot(seed, board, iterations=400, time_limit=0.4),
    "hard": lambda seed, board: ISMCTSBot(seed, board, iterations=2500, time_limit=1.5),
}


def register_bot(name: str, factory: BotFactory) -> None:
    """Make a bot available under ``name`` (to make_bot, tournaments, the clients)."""
    BOTS[name.lower()] = factory


def _load_plugins() -> None:
    """Bots from other packages, declared as ``kardinal.bots`` entry points.

    Each entry point is a function taking ``register_bot``; it registers only the bots
    that can run on this installation (the research package's OpenSpiel bot needs its
    extra). This keeps the dependency pointing the right way: research knows bots, bots
    know nothing of research.
    """
    for ep in entry_points(group="kardinal.bots"):
        try:
            ep.load()(register_bot)
        except Exception:  # a broken plug-in must not take the built-in bots with it
            logging.getLogger(__name__).exception("bot plug-in %s could not be loaded", ep.name)


def make_bot(name: str, seed: int = 0, board: Board | None = None) -> Bot:
    """A bot by name ('random', ...); ValueError listing the names if unknown."""
    try:
        factory = BOTS[name.lower()]
    except KeyError:
        raise ValueError(f"unknown bot {name!r}; choose from {', '.join(sorted(BOTS))}") from None
    return factory(seed, board)


_load_plugins()
