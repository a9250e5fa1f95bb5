"""Bots at the table: their turns (run in the executor, from their seat's view only, in turns
with other games: fair.py), and stand-ins for people away on their turn in live games."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import time
from dataclasses import replace

from kardinal.bots import make_bot
from kardinal.rules.board import get_board
from kardinal.rules.record import RecordAction, action_of, move_of
from kardinal.rules.state import RuleError
from kardinal.rules.view import ViewData, view

from ..common import metrics
from ..common.refusal import Refused
from .core import ServiceCore
from .fair import BOTS_ONLY, PEOPLE
from .live import LiveGame
from .presence import PRESENCE_EVERY, last_person

log = logging.getLogger("kardinal.web")


def bot_move(level: str, seed: int, board_name: str, seat_view: ViewData) -> RecordAction:
    """Run in a worker: the bot's decision for the view, as a record action."""
    board = get_board(board_name)
    bot = make_bot(level, seed, board)
    seat = seat_view["seat"]
    assert seat is not None
    return action_of(seat, bot.choose(seat_view))


class BotPlay(ServiceCore):
    """The bots' turns and the stand-ins of a :class:`GameService`. (kardinal.server.play.service puts the parts together.)"""

    def start_bots(self, live: LiveGame) -> None:
        """Start the bot loop of a game if a bot is to act (not once the service stops)."""
        if self.stopping or live.row.status != "running" or live.state.is_over:
            return
        if live.acting_level(live.state.current) is None:
            return
        if live.bot_task is not None and not live.bot_task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        live.bot_task = loop.create_task(self._bots(live))

    async def _bots(self, live: LiveGame) -> None:
        loop = asyncio.get_running_loop()
        if self.storage.shared and not live.leased:
            # several processes: the one holding the game's lease runs its bots (each decision once)
            live.leased = await asyncio.to_thread(self.storage.try_lease, live.row.id)
            if not live.leased:
                return
        failures = 0  # storage errors in a row: the loop waits longer each time, and never gives up
        while live.row.status == "running" and not live.state.is_over and not self.stopping:
            seat = live.state.current
            level = live.acting_level(seat)
            if level is None:
                return
            if self.bot_pause > 0:
                await asyncio.sleep(self.bot_pause)
            version = live.version
            seed = int.from_bytes(hashlib.sha256(f"{live.row.id}:{seat}:{version}".encode()).digest()[:8], "big")
            seat_view = view(live.state, seat)  # a bot receives only its view
            try:
                async with self.thinking.slot(BOTS_ONLY if live.bots_only else PEOPLE):
                    action = await metrics.bot_decision(
                        level, loop.run_in_executor(self.executor, bot_move, level, seed, live.row.board, seat_view)
                    )
            except Exception:
                if self.stopping:
                    return  # the executor was shut down: the server stops
                log.exception("bot %s failed in game %s; a random move instead", level, live.row.id)
                action = bot_move("random", seed, live.row.board, seat_view)
            async with live.lock:
                if live.acting_level(seat) is None:
                    return  # the person came back while the stand-in thought: their turn
                if live.version != version or live.state.current != seat:
                    continue
                _, move = move_of(action)
                try:
                    live.state.check(move)
                except RuleError:
                    log.error("bot %s chose an illegal move %s in game %s; a random move instead", level, move, live.row.id)
                    _, move = move_of(bot_move("random", seed, live.row.board, seat_view))
                live.bot_task = None  # _commit's start_bots must not see this task as running
                try:
                    await self._commit(live, seat, move, None)
                except Refused as e:
                    live.bot_task = asyncio.current_task()
                    if e.code == "stale_version":
                        continue  # another process moved first; the game has caught up
                    failures += 1
                    log.error("game %s: a bot's move was refused (%s, %d in a row); trying again", live.row.id, e.code, failures)
                except Exception as e:  # noqa: BLE001 - the database failed: nothing was applied; try again
                    live.bot_task = asyncio.current_task()
                    failures += 1
                    log.error(
                        "game %s: storing a bot's move failed (%s, %d in a row); trying again", live.row.id, type(e).__name__, failures
                    )
                else:
                    failures = 0
                    if live.bot_task is not None:
                        return  # a fresh loop took over
            if failures:
                await asyncio.sleep(min(30.0, 0.1 * 2**failures))

    async def wait_idle(self, game_id: str, timeout: float = 30.0) -> None:
        """Wait until no bot is to act (for tests and tools): no bot loop runs, and none is
        due (a loop hands over to a fresh one while it commits: it is then briefly not
        there, with the bot's next turn still to come)."""
        live = self.get(game_id)
        end = time.monotonic() + timeout
        while (live.bot_task is not None and not live.bot_task.done()) or self._bot_due(live):
            if time.monotonic() > end:
                raise TimeoutError("bots still playing")
            await asyncio.sleep(0.005)

    def _bot_due(self, live: LiveGame) -> bool:
        """A bot is to act in the game now."""
        return live.row.status == "running" and not live.state.is_over and live.acting_level(live.state.current) is not None

    def stop_bots(self) -> None:
        """The server stops: no bot loop starts from now on, and the running ones end (a loop
        that hands over while it commits is caught by ``stopping``, not by its task)."""
        self.stopping = True
        for live in self.live.values():
            if live.bot_task is not None:
                live.bot_task.cancel()
        self.executor.shutdown(wait=False, cancel_futures=True)

    async def check_away(self, live: LiveGame) -> bool:
        """Stand in for the person to act if they have been away too long (live games), but
        never for the last person of the table (every other seat a bot's or stood in for: the
        game waits for them). True if a stand-in took the seat."""
        if live.row.status != "running" or live.state.is_over or live.options["mode"] != "live":
            return False
        seat = live.state.current
        sr = live.row.seats[seat]
        if sr.kind != "person" or sr.standin or seat in live.present or last_person(live, seat):
            return False
        away = live.options["away"]
        since = live.gone.get(seat)
        if since is None or time.monotonic() - since < away:
            return False
        if self.storage.shared:  # connected to another process?
            seen = (await asyncio.to_thread(self.storage.last_seen, live.row.id)).get(seat)
            if seen is not None and time.time() - seen < max(away, 3 * PRESENCE_EVERY):
                return False
        async with live.lock:
            sr = live.row.seats[seat]
            if live.state.current != seat or sr.standin or seat in live.present or live.row.status != "running":
                return False
            if last_person(live, seat):
                return False
            await self._set_seat(live, seat, replace(sr, standin=True))
        self._notice(live, seat, "away")
        self.tell_presence(live)
        return True
