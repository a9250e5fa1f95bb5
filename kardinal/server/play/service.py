"""The server's authority over games: one :class:`GameService` per process.

It is put together from one part a concern, each in its own module, so that a reader who
wants to change one thing opens one file:

- :mod:`.core`: the games in memory, the database, the bots' executor; reading a game.
- :mod:`.tables`: create (once per client key), join, claim; names unique at a table.
- :mod:`.pipeline`: an action checked in a fixed order, committed (group commit), told.
- :mod:`.botplay`: the bots' turns, and stand-ins for people away on their turn.
- :mod:`.presence`: connections, telling them of changes, away, expiry, clean-up.
- :mod:`.chat`: the game's chat and the table's notices.
- :mod:`.rematch`: "Play again".
- :mod:`.shared`: several processes on one database.
- :mod:`.clocks`: the tables' clocks, and what happens when a turn's time runs out.
- :mod:`.finished`: scorings, records and replays.

Every action is checked in a fixed order (:meth:`Pipeline.submit`): the message is well
formed, the game exists, the seat's secret token, a repeated client action id (applied
once), the game is running, whose turn, the expected state version (number of actions so
far), and the rules (``State.check``). An accepted action is committed to the database
before anyone is told. Bots see only ``view(state, seat)`` and run in an executor so they
never block the event loop.
"""

from __future__ import annotations

from .botplay import BotPlay
from .chat import Chat
from .clocks import Clocks
from .core import ServiceCore
from .finished import Finished
from .pipeline import Pipeline
from .presence import Presence
from .rematch import Rematch
from .shared import Shared
from .tables import Tables

__all__ = ["GameService"]


class GameService(Clocks, Tables, Rematch, Pipeline, BotPlay, Presence, Chat, Shared, Finished, ServiceCore):
    """All games of one server process (see the module's list of its parts)."""
