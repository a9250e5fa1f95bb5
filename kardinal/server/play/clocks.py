"""A table's clock, chosen at creation (``options.clock``: kardinal.server.play.options.clock_option).

Live tables: each turn has its own time (``move`` seconds), which runs first; then the
seat's reserve runs (``reserve`` seconds at the start, each seat its own), and after each
of the seat's turns played in time the reserve gains ``increment`` seconds, up to what it
started with (a buffer that refills, not a bank: in a game of 3 to 5 people, a reserve that
grew all game would let one person hold the others up at its end). A turn is the seat's
placement and the draws that refill its hand (R5.1): one clock for the whole turn (the
draws are quick; a clock that stopped for them would let a person hold the table up there).
When a live turn's time runs out, the table's stand-in bot (``options.standin``) plays that
turn for the seat, the log says so, and the person keeps their seat (their reserve is
spent; the next turn is theirs with its own time). Turn-based tables: ``days`` a turn and no
reserve; when it runs out, the stand-in plays for the seat until its person returns (as for
a person away from a live table: kardinal.server.play.presence), or, if they are at the table
then (their page open), that turn only. A seat whose account is suspended has its turns run
out as they start at a turn-based or rated table (barred_turn): the stand-in plays them at once.

No clock runs for a bot's turn (its own or a stand-in's), at a hot-seat table, or for the
last person of an unrated table (every other seat a bot's: nobody waits for them). At a
rated table it does (a rated table always has a clock: options.RATED_CLOCK): a person who
walks away from a game going badly does not stop it. There, as turn-based, a person whose
time ran out and who is not at the table (no page open) is stood in for until they return:
the stand-in plays the game out for them and it is rated as it ends (settle.py).

The deadlines are kept in the database (storage/clocks.py), written after every change of a
game's clock. Every process knows the earliest of them (read from the deadlines' index, one
row however many games there are: Storage.next_deadline) and lowers it as a deadline is
stored here or announced by another process (PostgreSQL's NOTIFY: Storage.listen); every
``clock_check`` seconds it compares it with the time, and reads the passed deadlines from the
database only when one has come (or every CLOCK_REFRESH seconds): a watcher whose cost does
not grow with the number of games (watch_clocks). A passed one is acted on by the one process whose compare-and-set on the row succeeds
(Storage.claim_clock), and only if the game is still at the version the deadline was for: a
move that arrives as the time runs out is either applied (the version moves on, the timeout
does nothing) or comes after the stand-in's (and is refused as stale), never both. A restart
loses nothing: the rows are read again (resume). The time the server was down is not
counted: every process stamps its row every ALIVE_EVERY seconds and when it stops, and a
process that starts while no other runs moves every running deadline on by the time since
the last stamp (Storage.start_process; lichess, too, gives time back after a restart).
The time source is ``now`` (Unix time), which tests replace (create_app(clock=...)).
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
import math
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any

from kardinal.rules.record import move_of
from kardinal.rules.state import RuleError
from kardinal.rules.view import view

from ..common.periodic import ticks
from ..common.refusal import Refused
from ..storage import GameRow
from ..storage.clocks import NO_DEADLINE, ClockRow, StoredTurn
from .botplay import bot_move
from .core import ServiceCore
from .fair import PEOPLE
from .live import Connection, LiveGame
from .messages import ClockMessage, ClockOptions
from .options import options_of
from .presence import PRESENCE_EVERY, last_person, standin_due

log = logging.getLogger("kardinal.web")

CLOCK_CHECK = 1.0  # seconds between looks at the deadlines (KARDINAL_CLOCK_CHECK)
ALIVE_EVERY = 5.0  # seconds between a process's stamps (a clock gets back the time since the last)
CLOCK_REFRESH = 60.0  # seconds: the earliest deadline is read again at least this often (a lost announcement)
DAY = 86400.0


def limits(spec: ClockOptions) -> tuple[float, float, float]:
    """A clock's (time a turn, reserve at the start, increment), in seconds."""
    if "days" in spec:
        return float(spec["days"]) * DAY, 0.0, 0.0
    return float(spec.get("move", 0.0)), float(spec.get("reserve", 0.0)), float(spec.get("increment", 0.0))


@dataclass(frozen=True)
class ClockRun:
    """A table's clock now: whose turn's time runs (``seat``; None: nobody's), since when
    (``start``, Unix time), the turn's first action (``turn``: the game's version then),
    every seat's reserve at the start of its turn (None: a seat without a clock, a bot's),
    and whether the running turn's time ran out (``expired``: a bot plays it)."""

    version: int
    seat: int | None
    start: float
    turn: int
    reserves: tuple[float | None, ...]
    expired: bool = False

    def deadline(self, spec: ClockOptions) -> float:
        """When the running turn's time is out (NO_DEADLINE: none runs, or it ran out)."""
        if self.seat is None or self.expired:
            return NO_DEADLINE
        move, _, _ = limits(spec)
        return self.start + move + (self.reserves[self.seat] or 0.0)


def seat_deadline(live: LiveGame, seat: int) -> float | None:
    """When the turn of ``seat`` runs out, as Unix time (seconds since 1970-01-01 UTC), and
    a bot takes it over (live: plays the turn; turn-based: stands in until the person
    returns); None while no time of the seat's runs (not its turn, no clock, a bot's turn,
    a stand-in's, or its time already ran out). Clocks are public: anyone at the table or
    watching may be told. ("My games" and the turn mail say it; the page counts down.)"""
    spec, run = live.options["clock"], live.clock
    if spec is None or run is None or run.seat != seat:
        return None
    at = run.deadline(spec)
    return None if at >= NO_DEADLINE else at


def bot_deadline(live: LiveGame, seat: int, unix_now: float) -> float | None:
    """When a bot will play the turn of ``seat``, as Unix time (``unix_now``: the time
    source's now): the sooner of its clock's deadline (seat_deadline) and, at a live table
    its person is away from, the moment a stand-in takes over (presence.standin_due: the
    table's "away" seconds after they left, often long before the clock's). None: neither
    comes. ("My games" counts down to it.)"""
    mono = time.monotonic()
    due = standin_due(live, seat, mono)
    # (the stand-in's moment to the second: it is converted from the monotonic clock anew at
    # every look, and a summary that changed by microseconds would redraw the lists asking it)
    times = [seat_deadline(live, seat), None if due is None else float(round(unix_now + max(0.0, due - mono)))]
    return min((t for t in times if t is not None), default=None)


def stored_turn(turn: StoredTurn, row: GameRow) -> tuple[int, float | None] | None:
    """Whose turn a running game is at and when it runs out (:func:`seat_deadline`), from
    what the database holds (Storage.stored_turns), as the game read into memory would
    say (Clocks._read); None where the database does not say: the seat to act of a game
    whose last action was stored without it (before migration 15), or a clock stored for
    another version of the game (the process stopped between a move and its clock's write;
    read into memory, the turn's time would start again)."""
    to_act = 0 if turn.version == 0 else turn.to_act  # seat 0 starts (R2.3)
    if to_act is None:
        return None
    run, spec = turn.clock, options_of(row)["clock"]
    if spec is None or run is None or len(run.reserves) != len(row.seats):
        return to_act, None  # no clock runs (as Clocks._read: none is read)
    if run.version != turn.version:
        return None
    return to_act, run.deadline if run.seat == to_act and run.deadline < NO_DEADLINE else None


def turn_start(live: LiveGame) -> int:
    """The version at which the turn of the seat to act began (its first action)."""
    hist = live.state.history or []
    seat, i = live.state.current, len(hist)
    while i > 0 and hist[i - 1].seat == seat:
        i -= 1
    return i


def clocked_seat(live: LiveGame) -> int | None:
    """The seat whose time runs now, if any (see the module's doc)."""
    if live.row.status != "running" or live.state.is_over or live.row.hotseat:
        return None
    seat = live.state.current
    if seat is None or live.row.seats[seat].kind != "person" or live.acting_level(seat) is not None:
        return None
    if last_person(live, seat) and not live.options["rated"]:
        return None
    return int(seat)


def until_back(live: LiveGame) -> bool:
    """A stand-in whose seat's time ran out plays on until its person returns: the table is
    turn-based or rated (at a rated table, one who walked away does not stop the game)."""
    return live.options["mode"] == "turn" or live.options["rated"]


def barred_turn(live: LiveGame, seat: int) -> bool:
    """The turns of ``seat`` run out as they start: its account is suspended (SeatRow.barred,
    kardinal.server.community.moderation) and the table is turn-based or rated, so the
    stand-in plays for it now (within ``clock_check`` seconds), not when a day has passed.
    (A suspension's end is real time, as core.py checks it, whatever clock the table runs on.)"""
    return until_back(live) and live.row.seats[seat].barred_now(time.time())


def turn_started(live: LiveGame, seat: int | None, spec: ClockOptions, reserves: tuple[float | None, ...], now: float) -> float:
    """When a turn of ``seat`` that starts ``now`` started, as its clock counts: now, or, for
    a barred seat (barred_turn), as long ago as its time lasts (its deadline is now)."""
    if seat is None or not barred_turn(live, seat):
        return now
    move, _, _ = limits(spec)
    return now - move - (reserves[seat] or 0.0)


def advance(run: ClockRun | None, live: LiveGame, spec: ClockOptions, now: float) -> ClockRun:
    """The clock after a change of the game (a move, a seat stood in or back, its end), at
    ``now``: the turn that ended spends its reserve (the time beyond the turn's own) and,
    played in time, gains the increment; a new turn's time starts."""
    move, reserve, increment = limits(spec)
    seat = clocked_seat(live)
    version = live.version
    turn = turn_start(live)
    if run is None:
        full = tuple(reserve if sr.kind == "person" else None for sr in live.row.seats)
        return ClockRun(version, seat, turn_started(live, seat, spec, full, now), turn, full)
    if seat is not None and seat == run.seat and turn == run.turn:
        return replace(run, version=version)  # the same turn goes on
    reserves = list(run.reserves)
    if run.seat is not None:  # the running turn ended, or its clock stopped (a stand-in took the seat)
        left = reserves[run.seat] or 0.0
        if run.expired:
            left = 0.0
        else:
            left = max(0.0, left - max(0.0, now - run.start - move))
            if version > run.turn and (run.seat != live.state.current or turn != run.turn):
                left = min(reserve, left + increment)  # played in time
        reserves[run.seat] = left
    return ClockRun(version, seat, turn_started(live, seat, spec, tuple(reserves), now), turn, tuple(reserves))


def run_of(row: ClockRow, live: LiveGame, spec: ClockOptions, now: float) -> ClockRun:
    """A stored clock (its turn: the one the game is at now)."""
    seat = None if row.seat < 0 else row.seat
    move, _, _ = limits(spec)
    expired = seat is not None and row.deadline >= NO_DEADLINE
    start = row.deadline - move - (row.reserves[seat] or 0.0) if seat is not None and not expired else now
    return ClockRun(row.version, seat, start, turn_start(live), tuple(row.reserves), expired)


def clock_message(live: LiveGame, run: ClockRun, spec: ClockOptions, now: float) -> ClockMessage:
    move, _, _ = limits(spec)
    remaining = move_left = None
    if run.seat is not None:
        move_left = 0.0 if run.expired else round(max(0.0, run.start + move - now), 1)
        remaining = 0.0 if run.expired else round(max(0.0, run.deadline(spec) - now), 1)
    return {
        "type": "clock",
        "game": live.row.id,
        "version": run.version,
        "seat": run.seat,
        "remaining": remaining,
        "move_left": move_left,
        "reserves": [None if r is None else round(r, 1) for r in run.reserves],
        "expired": run.expired,
        "clock": spec,
    }


class Clocks(ServiceCore):
    """The tables' clocks of a :class:`GameService`. (kardinal.server.play.service puts the parts together.)"""

    now: Callable[[], float] = staticmethod(time.time)  # the time source (Unix time); tests set their own

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.on_change.append(self._clock_changed)
        self._clock_writes: dict[str, asyncio.Task[None]] = {}
        # the earliest deadline that runs, as last read (-inf: to be read) and lowered since
        # (watch_clocks), when it was read (time.monotonic), and the deadlines told since the
        # read began (one stored meanwhile may be missing from what it found)
        self._next_deadline = -math.inf
        self._deadline_read = -math.inf
        self._told_since_read = math.inf

    def _read(self, game_id: str) -> LiveGame:
        """A game read from the database, with its clock as stored (in the same thread)."""
        live = super()._read(game_id)
        spec = live.options["clock"]
        if spec is not None:
            row = self.storage.clock_row(game_id)
            if row is not None and len(row.reserves) == len(live.row.seats):
                run = run_of(row, live, spec, self.now())
                # stored before the game's last change (the process stopped between): that change now
                live.clock = run if row.version == live.version else advance(run, live, spec, self.now())
        return live

    async def cold_turns(self, rows: list[GameRow]) -> dict[str, tuple[int, float | None]]:
        """Whose turn these running games (not in memory) are at and when it runs out, read
        without reading them into memory ("My games", asked every 15 s, kept every game of
        the account in memory and replayed the cold ones at each look): as stored
        (stored_turn); a game the database does not say that of is replayed in a thread
        and not kept (replayed). An unreadable game is left out."""
        stored = await asyncio.to_thread(self.storage.stored_turns, [row.id for row in rows]) if rows else {}
        out: dict[str, tuple[int, float | None]] = {}
        for row in rows:
            turn = stored.get(row.id)
            told = stored_turn(turn, row) if turn is not None else None
            if told is None:
                try:
                    live = await asyncio.to_thread(self.replayed, row.id)
                except Refused:
                    continue
                told = live.state.current, seat_deadline(live, live.state.current)
            out[row.id] = told
        return out

    async def start(self) -> int:
        """The server starts: first, before any clock is read, the time the server was down
        is given back (Storage.start_process); then the games are resumed. Once: a process
        that registered its start again later would count the time since its last stamp as
        down and move every running deadline on by it."""
        down = await asyncio.to_thread(self.storage.start_process, self.storage.origin, self.now(), 3 * ALIVE_EVERY)
        if down > 0.0:
            log.info("the server was down for %.0f s: the clocks running then got it back", down)
        return await self.resume()

    async def resume(self) -> int:
        """At start-up (start), and every few seconds on PostgreSQL (Shared.keep_shared: games
        whose process has gone): the games whose clock waits for a bot are read (their bots,
        stand-ins of turn-based seats among them, play on; a live turn whose time ran out is
        played); the deadlines of the others are looked at in the database (watch_clocks)."""
        n: int = await super().resume()  # type: ignore[misc]
        for gid in await asyncio.to_thread(self.storage.clocked_games):
            try:
                live = await self.fetch(gid)
            except Refused:
                continue
            self._clock_changed(live)
            self.start_bots(live)
            run = live.clock
            if run is not None and run.expired and live.options["mode"] == "live" and clocked_seat(live) == run.seat:
                # the process stopped while a stand-in played a turn whose time ran out: it plays on
                asyncio.get_running_loop().create_task(self._stand_in_resumed(live, run.seat))
            n += 1
        return n

    async def _stand_in_resumed(self, live: LiveGame, seat: int) -> None:
        try:
            async with live.lock:
                await self._stand_in_turn(live, seat)
        except Exception as e:  # noqa: BLE001 - logged; the game goes on
            log.error("game %s: a stand-in's turn failed (%s)", live.row.id, type(e).__name__)

    def _clock_changed(self, live: LiveGame) -> None:
        """The game changed (on_change): advance its clock; store it and tell the table if it changed."""
        spec = live.options["clock"]
        if spec is None:
            return
        run = advance(live.clock, live, spec, self.now())
        if run == live.clock:
            return
        live.clock = run
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:  # no event loop (a tool): nothing to store or tell
            return
        if self.storage.shared and live.catching_up:
            # another process's change: its clock is the one it stores (it knows whether the
            # turn ran out); this one takes it from the database
            loop.create_task(self._follow_row(live))
        else:
            self._store_clock(live)
        self.tell_clock(live)

    async def _follow_row(self, live: LiveGame) -> None:
        """Take the clock another process stored for the game's version now (it is written
        right after the move: looked for a few times)."""
        spec = live.options["clock"]
        assert spec is not None
        for i in range(8):
            try:
                row = await asyncio.to_thread(self.storage.clock_row, live.row.id)
            except Exception as e:  # noqa: BLE001 - logged; the next change tries again
                log.error("game %s: reading its clock failed (%s)", live.row.id, type(e).__name__)
                return
            if row is not None and row.version > live.version:
                return  # the game moved on meanwhile: that change follows its own row
            if row is not None and row.version == live.version and len(row.reserves) == len(live.row.seats):
                run = run_of(row, live, spec, self.now())
                if run != live.clock:
                    live.clock = run
                    self.tell_clock(live)
                return
            await asyncio.sleep(0.05 * (i + 1))

    def _store_clock(self, live: LiveGame) -> None:
        run, spec = live.clock, live.options["clock"]
        assert run is not None and spec is not None
        row = ClockRow(live.row.id, run.version, -1 if run.seat is None else run.seat, run.deadline(spec), list(run.reserves))
        task = asyncio.get_running_loop().create_task(self._write_clock(row, self._clock_writes.get(live.row.id)))
        self._clock_writes[live.row.id] = task
        task.add_done_callback(lambda t: self._clock_writes.pop(row.game_id, None) if self._clock_writes.get(row.game_id) is t else None)

    async def _write_clock(self, row: ClockRow, before: asyncio.Task[None] | None) -> None:
        if before is not None:  # a game's clock is written in the order it changed
            await asyncio.wait([before])
        try:
            if await asyncio.to_thread(self.storage.save_clock, row, self.now()):
                self.deadline_elsewhere(row.deadline)
        except Exception as e:  # noqa: BLE001 - logged; the next change writes it again
            log.error("game %s: storing its clock failed (%s)", row.game_id, type(e).__name__)

    def deadline_elsewhere(self, deadline: float) -> None:
        """A deadline was stored (by this process, or announced by another): the watcher
        looks at the clocks when it comes, if before the earliest it knew of."""
        self._next_deadline = min(self._next_deadline, deadline)
        self._told_since_read = min(self._told_since_read, deadline)

    async def clocks_stored(self) -> None:
        """Wait until every clock change so far is in the database (tests, tools)."""
        while self._clock_writes:
            await asyncio.wait(list(self._clock_writes.values()))

    def tell_clock(self, live: LiveGame, to: Connection | None = None) -> None:
        """Tell the table's clock to the connections that take presence messages (``to``: only that one)."""
        spec, run = live.options["clock"], live.clock
        if spec is None:
            return
        if run is None:
            run = live.clock = advance(None, live, spec, self.now())
        msg = clock_message(live, run, spec, self.now())
        for c in [to] if to is not None else list(live.conns):
            if c.presence:
                c.outbox.put_nowait(msg)

    async def watch_clocks(self, stop: asyncio.Event, every: float = CLOCK_CHECK) -> None:
        """Every ``every`` seconds: if the earliest deadline has come (or was not read for
        CLOCK_REFRESH seconds), act on the passed deadlines (check_clocks), else nothing (no
        query); every ALIVE_EVERY seconds and at the stop: this process's stamp (resume)."""

        async def check() -> None:
            async for _ in ticks(stop, every):
                try:
                    if self._next_deadline <= self.now() or time.monotonic() - self._deadline_read >= CLOCK_REFRESH:
                        await self.check_clocks()
                except Exception as e:  # noqa: BLE001 - logged; tried again in a moment
                    log.error("looking at the clocks failed (%s)", type(e).__name__)

        async def stamp() -> None:
            async for _ in ticks(stop, ALIVE_EVERY):
                await self._stamp(stopped=False)

        await asyncio.gather(check(), stamp())
        await self._stamp(stopped=True)

    async def _stamp(self, stopped: bool) -> None:
        try:
            await asyncio.to_thread(self.storage.stamp_process, self.storage.origin, self.now(), stopped)
        except Exception as e:  # noqa: BLE001 - logged; the next stamp tries again
            log.error("stamping this process as running failed (%s)", type(e).__name__)

    async def check_clocks(self) -> list[str]:
        """Act on every passed deadline this process claims (Storage.claim_clock: one process
        for each), the games at once; returns the games acted on."""
        await self.clocks_stored()
        now = self.now()
        rows = await asyncio.to_thread(self.storage.due_clocks, now)
        done = await asyncio.gather(*(self._claim(row, now) for row in rows))
        await self._read_next_deadline()
        return [row.game_id for row, acted in zip(rows, done) if acted]

    async def _read_next_deadline(self) -> None:
        """The earliest deadline that runs, from the database's index (and any told meanwhile)."""
        self._told_since_read = math.inf
        read_at = time.monotonic()
        found = await asyncio.to_thread(self.storage.next_deadline)
        self._next_deadline = min(math.inf if found is None else found, self._told_since_read)
        self._deadline_read = read_at

    async def deadline_now(self, live: LiveGame, seat: int) -> bool:
        """The seat's turn runs out now (its account was suspended): a turn-based or rated
        table's stand-in takes it at once (the watcher acts on it within ``clock_check``
        seconds), not a day later. True if its time was running."""
        if live.options["clock"] is None or not until_back(live):
            return False
        await self.clocks_stored()
        now = self.now()
        if not await asyncio.to_thread(self.storage.deadline_now, live.row.id, seat, now):
            return False
        self.deadline_elsewhere(now)
        return True

    def turn_again(self, live: LiveGame, seat: int) -> None:
        """The running turn of ``seat`` gets its whole time from now: its account's suspension
        was lifted on its turn, which ran out at once (barred_turn, deadline_now) and which
        the stand-in has not taken yet (the stored deadline changes: the watcher's claim of
        the one that passed fails)."""
        run, spec = live.clock, live.options["clock"]
        if spec is None or run is None or run.seat != seat or run.expired:
            return
        live.clock = replace(run, start=self.now())
        self._store_clock(live)
        self.tell_clock(live)

    async def _claim(self, row: ClockRow, now: float) -> bool:
        if not await asyncio.to_thread(self.storage.claim_clock, row, now):
            return False  # a move, another process or a later write came first
        try:
            return await self._time_out(row)
        except Refused:
            return False  # the game is gone or unreadable (logged)
        except Exception as e:  # noqa: BLE001 - logged; the game goes on
            log.error("game %s: acting on its clock failed (%s)", row.game_id, type(e).__name__)
            return False

    async def _time_out(self, row: ClockRow) -> bool:
        """A claimed deadline: if the game is still where it was (the version and seat of the
        row), the turn's time ran out, and the log says so: live, the stand-in plays the turn
        (holding the game, so that no move of the person's comes between); turn-based or
        rated, it stands in for the seat until its person returns (one at the table: this
        turn only). False if the game moved on."""
        live = await self.fetch(row.game_id)
        spec = live.options["clock"]
        if spec is None:
            return False
        async with live.lock:
            if self.storage.shared and await self._catch_up_locked(live):
                self._changed(live)
            run = live.clock
            seat = clocked_seat(live)
            if live.version != row.version or seat is None or seat != row.seat or run is None or run.seat != seat or run.expired:
                return False
            live.clock = replace(run, expired=True)
            self._store_clock(live)
            self.tell_clock(live)
            sr = live.row.seats[seat]
            # turn-based or rated, the seat is stood in until its person returns (at a rated
            # table, one who walked away from a game does not stop it); but a person at the
            # table now (their page open) is there: the stand-in plays this turn only, as live.
            # A suspended person's seat is stood in whatever page is open (none opens it), and
            # the log says only that they are not at the table (not why: that is theirs)
            barred = barred_turn(live, seat)
            stays = barred or (until_back(live) and not await self._at_table(live, seat))
            kind = "away" if barred else "timeout_away" if stays else "timeout"
            await self._add_line(live, seat, kind, sr.name, live.options["standin"])
            if stays:
                await self._set_seat(live, seat, replace(sr, standin=True))  # the stand-in plays (start_bots)
            else:
                await self._stand_in_turn(live, seat)
        return True

    async def _at_table(self, live: LiveGame, seat: int) -> bool:
        """The person of ``seat`` is connected now (to this process, or lately to another)."""
        if seat in live.present:
            return True
        if not self.storage.shared:
            return False
        seen = (await asyncio.to_thread(self.storage.last_seen, live.row.id)).get(seat)
        return seen is not None and time.time() - seen < 3 * PRESENCE_EVERY

    async def _stand_in_turn(self, live: LiveGame, seat: int) -> None:
        """A live turn whose time ran out: the stand-in plays it to its end (the placement
        and the draws), each an ordinary move of the seat. The caller holds the game's lock."""
        loop = asyncio.get_running_loop()
        level = live.options["standin"]
        turn = turn_start(live)
        for _ in range(20):  # a turn is a placement and a few draws
            if live.row.status != "running" or live.state.is_over or live.state.current != seat or turn_start(live) != turn:
                return
            version = live.version
            seed = int.from_bytes(hashlib.sha256(f"{live.row.id}:{seat}:{version}:clock".encode()).digest()[:8], "big")
            seat_view = view(live.state, seat)  # a bot receives only its view
            try:
                async with self.thinking.slot(PEOPLE):
                    action = await loop.run_in_executor(self.executor, bot_move, level, seed, live.row.board, seat_view)
            except Exception:
                if self.stopping:
                    return
                log.exception("stand-in %s failed in game %s; a random move instead", level, live.row.id)
                action = bot_move("random", seed, live.row.board, seat_view)
            _, move = move_of(action)
            try:
                live.state.check(move)
            except RuleError:
                _, move = move_of(bot_move("random", seed, live.row.board, seat_view))
            try:
                await self._commit(live, seat, move, None)
            except Refused as e:  # another process's move came first (stale), or the database failed
                log.info("game %s: a stand-in's move was not stored (%s)", live.row.id, e.code)
                return
