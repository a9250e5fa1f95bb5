"""Fair turns for the bots' thinking: a few slots (as many as there are bot workers), given
first to games with people in them, then to games of bots only, first come first served
within each. A person's bot opponent never waits behind a crowd of bot-only games.
"""

from __future__ import annotations

import asyncio
import heapq
import itertools
import time
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from ..common import metrics

__all__ = ["FairSlots", "PEOPLE", "BOTS_ONLY"]

PEOPLE = 0  # a game someone is playing: first
BOTS_ONLY = 1  # a game of bots only: when nobody else waits
TABLES = {PEOPLE: "people", BOTS_ONLY: "bots_only"}  # their names in the metrics


class FairSlots:
    def __init__(self, slots: int) -> None:
        self.free = max(1, slots)
        self._waiting: list[tuple[int, int, asyncio.Future[None]]] = []
        self._order = itertools.count()

    def waiting(self, priority: int | None = None) -> int:
        return sum(1 for p, _, f in self._waiting if not f.done() and (priority is None or p == priority))

    async def _acquire(self, priority: int) -> None:
        if self.free > 0 and not self.waiting():
            self.free -= 1
            return
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        heapq.heappush(self._waiting, (priority, next(self._order), fut))
        waiting = metrics.BOTS_WAITING.labels(TABLES[priority])
        waiting.inc()
        try:
            await fut
        except asyncio.CancelledError:
            if fut.done() and not fut.cancelled():
                self._release()  # granted, then cancelled: hand the slot on
            raise
        finally:
            waiting.dec()

    def _release(self) -> None:
        while self._waiting:
            _, _, fut = heapq.heappop(self._waiting)
            if not fut.done():
                fut.set_result(None)
                return
        self.free += 1

    @asynccontextmanager
    async def slot(self, priority: int) -> AsyncIterator[None]:
        start = time.perf_counter()
        await self._acquire(priority)
        metrics.BOT_WAIT_SECONDS.labels(TABLES[priority]).observe(time.perf_counter() - start)
        try:
            yield
        finally:
            self._release()
