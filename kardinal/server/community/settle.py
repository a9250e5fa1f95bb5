"""The end of a game: its results stored and, at a rated table, its people's ratings
updated, in one transaction, once (lichess's ``PerfsUpdater``).

It listens to what changed (GameService.on_change): the action pipeline knows nothing of
it. Every process that sees a game finish (the one that played the last move, and the
others on one PostgreSQL database that catch up with it) settles it; the database lets only
one of them store the results (Storage.settle_game), and only that one updates ratings. A
settlement that fails (the database was away) is tried again a few times, and otherwise
done when the game's results are next asked for (results.stored_results).
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections import OrderedDict
from typing import TYPE_CHECKING

from ..play.live import LiveGame
from .ratings import MU0, SIGMA0, rater
from .results import seat_results, stored_results

if TYPE_CHECKING:
    from ..play.service import GameService

__all__ = ["Settler"]

log = logging.getLogger("kardinal.web")

REMEMBERED = 10000  # games this process knows are settled (the database knows all)
RETRIES = (1.0, 5.0, 30.0)  # seconds before each further try


class Settler:
    """Settles the games of one game service as they finish."""

    def __init__(self, service: GameService) -> None:
        self.service = service
        self.settled: OrderedDict[str, None] = OrderedDict()
        self.running: dict[str, asyncio.Task[None]] = {}
        service.on_change.append(self.changed)

    def changed(self, live: LiveGame) -> None:
        gid = live.row.id
        if live.row.status != "finished" or gid in self.settled or gid in self.running:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # not on the event loop: settled when its results are asked for
        task = self.running[gid] = loop.create_task(self._settle(live))
        task.add_done_callback(lambda _t: self.running.pop(gid, None))

    async def _settle(self, live: LiveGame) -> None:
        gid = live.row.id
        found = seat_results(live.state)
        rated = live.options.get("rated") is True
        update = rater(live.row.seats, found)
        finished = time.time()
        for wait in (0.0, *RETRIES):
            await asyncio.sleep(wait)
            try:
                await asyncio.to_thread(self.service.storage.settle_game, gid, found, rated, finished, update, (MU0, SIGMA0))
            except Exception as e:  # noqa: BLE001 - the database failed: try again, else when asked
                log.warning("game %s: its results could not be stored (%s)", gid, type(e).__name__)
                continue
            self.settled[gid] = None
            while len(self.settled) > REMEMBERED:
                self.settled.popitem(last=False)
            return

    async def rating_changes(self, game_id: str) -> dict[int, tuple[int, int]]:
        """A finished rated game's rating changes by seat of an account, (before, after)
        rounded as pages show them, once its ratings are updated: after this process's
        settlement of it (its tries included), else settled now if no process has
        (results.stored_results). Empty if the game cannot be settled."""
        task = self.running.get(game_id)
        if task is not None:
            await asyncio.wait([task])
        await stored_results(self.service, [game_id])
        found = await asyncio.to_thread(self.service.storage.game_rating_events, game_id)
        return {seat: (round(c["before"]), round(c["mu"])) for seat, c in found.items()}

    async def wait(self) -> None:
        """Until the settlements under way are done (tests; a server that stops)."""
        while self.running:
            await asyncio.gather(*list(self.running.values()), return_exceptions=True)
