"""Several processes on one database (PostgreSQL): hear the others' changes and catch up,
and take over the bots of games whose process has gone."""

from __future__ import annotations

import asyncio
import logging
import threading

from kardinal.rules.record import action_of, steps

from ..common.periodic import ticks
from ..common.refusal import Refused
from .core import ServiceCore
from .live import LiveGame

log = logging.getLogger("kardinal.web")


class Shared(ServiceCore):
    """A :class:`GameService` among several processes on one database. (kardinal.server.play.service puts the parts together.)"""

    async def keep_shared(self, stop: asyncio.Event, every: float = 2.0) -> None:
        """Several processes (PostgreSQL): listen to the others' changes, and every few
        seconds take over the bots of games whose process has gone (their leases are free)."""
        loop = asyncio.get_running_loop()
        halt = threading.Event()
        listener = threading.Thread(
            target=self.storage.listen,
            args=(
                lambda gid: loop.call_soon_threadsafe(self.changed_elsewhere, gid),
                halt,
                lambda gid, note: loop.call_soon_threadsafe(self.noted_elsewhere, gid, note),
            ),
            name="kardinal-listen",
            daemon=True,
        )
        listener.start()
        try:
            async for _ in ticks(stop, every):
                try:
                    await self.resume()
                except Exception as e:  # noqa: BLE001 - logged; tried again in a moment
                    log.error("taking over games failed (%s)", type(e).__name__)
        finally:
            halt.set()
            await asyncio.to_thread(self.storage.wake_listener)
            await asyncio.to_thread(listener.join, 5)

    async def resume(self) -> int:
        """At start-up: load every running game with a bot and let its bots play on.

        Games of persons only are loaded when someone asks for them.
        """
        ids = await asyncio.to_thread(self.storage.game_ids, "running", True)
        resumed = 0
        for gid in ids:
            try:
                self.start_bots(await self.fetch(gid))
                resumed += 1
            except Refused:  # an unreadable game (logged) does not stop the others
                pass
            await asyncio.sleep(0)
        return resumed

    def changed_elsewhere(self, game_id: str) -> None:
        """The database announced a change of ``game_id`` ("": of any game, after the
        listener reconnected): bring the copy in memory up to date. Call on the event loop."""
        targets = list(self.live.values()) if not game_id else [g for g in (self.live.get(game_id),) if g is not None]
        for live in targets:
            if live.catching_up:
                live.catch_again = True
                continue
            live.catching_up = True
            asyncio.get_running_loop().create_task(self._catch_up(live))

    def noted_elsewhere(self, game_id: str, note: str) -> None:
        """Another process's news other than a game's change (Storage.listen): someone came
        to it or left it (presence), or it stored a deadline (clock). Call on the event loop."""
        kind, _, arg = note.partition(" ")
        if kind == "presence":
            self.presence_elsewhere(game_id)
        elif kind == "clock":
            try:
                self.deadline_elsewhere(float(arg))
            except ValueError:
                log.error("a deadline announced by another process was not a number")

    async def caught_up(self, live: LiveGame) -> LiveGame:
        """The game in memory brought up to date with the database now, not when the
        announcement of another process's change arrives (a route that answers from the
        game's status: a game finished through another process is not answered as running).
        One process alone on its database (SQLite) knows every change already."""
        if self.storage.shared:
            async with live.lock:
                changed = await self._catch_up_locked(live)
            if changed:  # told as another process's change (its clock is the one it stored: clocks.py)
                following, live.catching_up = live.catching_up, True
                try:
                    self._changed(live)
                finally:
                    live.catching_up = following
        return live

    async def _catch_up(self, live: LiveGame) -> None:
        try:
            while True:
                live.catch_again = False
                async with live.lock:
                    changed = await self._catch_up_locked(live)
                if changed:
                    self._changed(live)
                if not live.catch_again:
                    return
        except Exception as e:  # noqa: BLE001 - logged; the next announcement tries again
            log.error("game %s: catching up with the database failed (%s)", live.row.id, type(e).__name__)
        finally:
            live.catching_up = False

    async def _catch_up_locked(self, live: LiveGame) -> bool:
        """Read what other processes wrote (moves, an undo, seats, status); the caller holds
        the game's lock. True if anything changed."""
        gid = live.row.id
        row = await asyncio.to_thread(self.storage.get_game, gid)
        if row is None:
            return False
        have = live.version
        log_from = await asyncio.to_thread(self.storage.actions_from, gid, max(0, have - 1))
        assert live.state.history is not None
        mine_last = action_of(live.state.history[-1].seat, live.state.history[-1].move) if have else None
        changed = False
        if have and (not log_from or log_from[0] != mine_last):  # a move taken back (and maybe another made)
            live.state = (await asyncio.to_thread(self._load, row)).state
            changed = True
        elif len(log_from) > (1 if have else 0):
            st = live.state.copy()
            for _ in steps(st, log_from[1:] if have else log_from, have):
                pass
            live.state = st
            changed = True
        # the row (seats, status) only if written after the copy in memory: a slower read must
        # not undo a change this process has made meanwhile
        seats = [s.to_json() for s in row.seats]
        newer = row.updated > live.row.updated
        if newer and (
            seats != [s.to_json() for s in live.row.seats] or row.status != live.row.status or row.reshuffle != live.row.reshuffle
        ):
            live.row.seats, live.row.status, live.row.reshuffle = row.seats, row.status, row.reshuffle
            changed = True
        if newer:
            live.row.updated = row.updated
        if row.again is not None and row.again != live.again:  # "Play again" pressed through another process
            live.again = row.again
            changed = True
        if live.chat is not None:  # lines said through another process
            self._heard(live, await asyncio.to_thread(self.storage.chat_from, gid, live.chat_seen))
        return changed
