"""Who is at the table: connections coming and going, telling them of changes (a large
audience in rounds), the look every second for people away, and clean-up: games nobody
uses leave memory, idle ones expire."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Iterable
from dataclasses import replace
from typing import Any

from ..common.periodic import ticks
from .core import ServiceCore
from .live import Connection, LiveGame
from .messages import AwayData, PresenceMessage

log = logging.getLogger("kardinal.web")

PRESENCE_EVERY = 5.0  # seconds: how often a process notes its connections (several processes)
EXPIRY_EVERY = 600.0  # seconds between looks for idle games to expire
FINISHED_KEPT = 60.0  # seconds a finished (or expired) game nobody looks at stays in memory
# ... and at most this many of them (the most recently asked for): the memory they take does
# not grow with the number of games finished a minute
FINISHED_MAX = 200
IDLE_KEPT = 3600.0  # ... and a running one nobody is connected to (at least twice its "away")
SPECTATORS_AT_ONCE = 200  # spectators told of a change in one go (more: see GameService._tell)
# ... and in a round to a larger audience, how many are told between two turns of the event
# loop (the players of every game go on between: 10,000 spectators take 0.14 s a round, the
# writes' system calls most of it; with 200 a turn, the players' p90 was 37-48 ms, with 50 24-34 ms)
SPECTATORS_PER_TURN = 50
SPECTATORS_PAUSE = 0.1  # seconds: a large audience is told of changes at most this often
# ... and a larger one less often: SPECTATORS_PAUSE longer for every SPECTATORS_PER_PAUSE, so
# that its rounds of sends take about the same share of the server's time however many watch
# (a send straight to the socket, Connection.tell, costs 10-50 µs, most of it the system's),
# and long enough that a round takes at most SPECTATORS_SHARE of the time, as the last one
# took (a busy machine); but never longer than SPECTATORS_PAUSE_MAX: every spectator sees
# the newest state within a second
SPECTATORS_PER_PAUSE = 2000
SPECTATORS_SHARE = 0.25
SPECTATORS_PAUSE_MAX = 0.5


def spectators_pause(audience: int, cost: float = 0.0) -> float:
    """Seconds between two rounds of news to ``audience`` spectators of one game, the
    last of which took ``cost`` seconds."""
    pause = max(SPECTATORS_PAUSE * audience / SPECTATORS_PER_PAUSE, cost / SPECTATORS_SHARE)
    return min(SPECTATORS_PAUSE_MAX, max(SPECTATORS_PAUSE, pause))


async def _tell_spectators(live: LiveGame, audience: int) -> None:
    """Tell a game's spectators of its newest state, after a pause (spectators_pause: the
    changes meanwhile go out together), SPECTATORS_PER_TURN at a time (Connection.tell:
    the same bytes straight to each socket that takes them now)."""
    await asyncio.sleep(spectators_pause(audience, live.spectators_cost))
    live.spectators_due = None  # a change from now on is told in another round
    conns = [c for c in live.conns if not c.seats]
    cost = 0.0
    for i in range(0, len(conns), SPECTATORS_PER_TURN):
        if i:
            await asyncio.sleep(0)  # (the game may change meanwhile: its texts are made again)
        t0 = time.perf_counter()
        made: dict[Any, tuple[str, Any]] = {}
        now = live.conns  # (one that left meanwhile, or followed to the next game, is told nothing more of this one)
        for c in conns[i : i + SPECTATORS_PER_TURN]:
            if c in now:
                c.tell(live, made)
        cost += time.perf_counter() - t0
    live.spectators_cost = cost


def last_person(live: LiveGame, seat: int) -> bool:
    """Every seat but ``seat`` is played by a bot (its own or a stand-in): nobody waits for
    its person, so nobody stands in for them (else bots would play the whole game, a game of
    bots only past its address's cap, with the people's turns at thinking)."""
    return all(live.acting_level(i) is not None for i in range(len(live.row.seats)) if i != seat)


def lately(noted: float, wall: float) -> bool:
    """A note of presence by another process (written as the person came, and every
    PRESENCE_EVERY seconds while they are there: Storage.mark_present) is recent enough at
    ``wall`` (time.time()) to count the person as there (a process that died stops noting)."""
    return wall - noted < 3 * PRESENCE_EVERY


def seen_elsewhere(live: LiveGame, seat: int, wall: float) -> bool:
    """Several processes: the person of ``seat`` is connected to another process (noted
    there lately, and not noted as gone: LiveGame.seen). ``wall``: time.time()."""
    seen = live.seen.get(seat)
    return seen is not None and lately(seen, wall)


def at_table(live: LiveGame, seat: int, wall: float | None = None) -> bool:
    """The person of ``seat`` has the game open now: connected to this process, or noted
    lately by another (seen_elsewhere; ``wall``: time.time()). What the table's presence shows."""
    return seat in live.present or seen_elsewhere(live, seat, time.time() if wall is None else wall)


def standin_at(live: LiveGame, seat: int, now: float, wall: float) -> float | None:
    """When (on the time.monotonic clock) a bot may play for the person of ``seat``, who
    is away, as BotPlay.check_away decides it: their table's "away" seconds after they left
    this process (``gone``) or, several processes, another (``left``: the countdown is the
    same on every process); and after another process last noted them there (one that
    died), at least 3 PRESENCE_EVERY; it does on their turn from then on. None: nobody will
    (a live table's last person, a turn-based table)."""
    if live.options["mode"] != "live" or last_person(live, seat):
        return None
    away = live.options["away"]
    since = [t for t in (live.gone.get(seat), None if seat not in live.left else now + live.left[seat] - wall) if t is not None]
    at = max(since, default=now) + away
    seen = live.seen.get(seat)
    if seen is not None:
        at = max(at, now + seen + max(away, 3 * PRESENCE_EVERY) - wall)
    return at


def standin_due(live: LiveGame, seat: int, now: float | None = None, wall: float | None = None) -> float | None:
    """When (on the time.monotonic clock) a bot will play for the person of ``seat`` at a
    live table if they stay away (standin_at, as BotPlay.check_away decides it): None while
    the game is not running, they are at the table (at this process or, lately, another),
    a bot stands in for them already, or none will."""
    now = time.monotonic() if now is None else now
    wall = time.time() if wall is None else wall
    sr = live.row.seats[seat]
    if live.row.status != "running" or sr.kind != "person" or sr.standin or at_table(live, seat, wall):
        return None
    return standin_at(live, seat, now, wall)


def presence_of(live: LiveGame, now: float | None = None, wall: float | None = None) -> tuple[tuple[Any, ...], PresenceMessage]:
    """Who is at the table now (see PresenceMessage), and what it is made from (the same
    while nothing changes: the deadlines on the monotonic clock, not the seconds left)."""
    now = time.monotonic() if now is None else now
    wall = time.time() if wall is None else wall
    here: list[int] = []
    away: list[AwayData] = []
    ats: list[tuple[int, float | None]] = []
    running = live.row.status == "running" and not live.row.hotseat and live.options["mode"] == "live"
    for seat, sr in enumerate(live.row.seats):
        if sr.kind != "person":
            continue
        if at_table(live, seat, wall):
            here.append(seat)
        elif running and not sr.standin:
            at = standin_at(live, seat, now, wall)
            ats.append((seat, None if at is None else round(at, 1)))
            away.append({"seat": seat, "name": sr.name, "standin_in": None if at is None else round(max(0.0, at - now), 1)})
    msg: PresenceMessage = {"type": "presence", "game": live.row.id, "here": here, "away": away}
    return (tuple(here), tuple(ats), tuple(a["name"] for a in away)), msg


class Presence(ServiceCore):
    """Connections, news to them, away and clean-up, for a :class:`GameService`. (kardinal.server.play.service puts the parts together.)"""

    async def connect(self, live: LiveGame, conn: Connection) -> None:
        """A connection holding ``conn.seats`` opened: those people are here. A person a
        bot stood in for takes the seat back (the bot finishes no move for them after)."""
        live.conns.add(conn)
        if conn.seats:  # (a spectator changes nothing of who is here: 10,000 of them are not counted again each)
            live.conns_changed()
        conn.check_tokens(live.row.seats)  # a seat's tokens changed since its hello was checked
        for seat in conn.seats:
            live.gone.pop(seat, None)
            sr = live.row.seats[seat]
            if sr.standin:
                await self._set_seat(live, seat, replace(sr, standin=False))
                self._notice(live, seat, "back")
        if conn.seats:
            self._tell(live)
            self._note_seats(live, conn.seats, ())
        if self.storage.shared:  # who is at the other processes, read now (not at the next look)
            self.presence_elsewhere(live.row.id)
        self.tell_presence(live, but=conn)

    async def here_now(self, live: LiveGame) -> set[int]:
        """The person seats of a game connected now to this process or (several processes)
        lately noted by another (Storage.mark_present, every PRESENCE_EVERY seconds)."""
        here = set(live.present)
        if self.storage.shared:
            wall = time.time()
            seen = await asyncio.to_thread(self.storage.last_seen, live.row.id)
            here |= {seat for seat, at in seen.items() if lately(at, wall)}
        return here

    def disconnect(self, live: LiveGame, conn: Connection) -> None:
        """A connection closed: the seats no other connection holds are away from now."""
        live.conns.discard(conn)
        if conn.seats:
            live.conns_changed()
        if not live.conns:
            live.forget_texts()  # made again when someone comes (memory: thousands of games)
        left = [s for s in conn.seats if s not in live.present]
        now = time.monotonic()
        for seat in left:
            live.gone[seat] = now
        if left:
            self._tell(live)
            self._note_seats(live, (), left)
        self.tell_presence(live)

    def _note_seats(self, live: LiveGame, here: Iterable[int], left: Iterable[int]) -> None:
        """Several processes: note that the people of these seats came to this process or
        left it, and tell the others (Storage.note_seats), in the order they came and went."""
        if not self.storage.shared:
            return
        here, left = list(here), list(left)
        before = live.notes_written

        async def write() -> None:
            if before is not None:
                await asyncio.wait([before])
            try:
                await asyncio.to_thread(self.storage.note_seats, live.row.id, here, left)
            except Exception as e:  # noqa: BLE001 - logged; the note every PRESENCE_EVERY follows
                log.error("game %s: noting who is connected failed (%s)", live.row.id, type(e).__name__)

        try:
            live.notes_written = asyncio.get_running_loop().create_task(write())
        except RuntimeError:  # no event loop (the server stops)
            pass

    def presence_elsewhere(self, game_id: str) -> None:
        """Another process told that someone came to a game or left it (Storage.note_seats):
        its notes are read, and the connections here told, if someone here watches."""
        live = self.live.get(game_id)
        if live is None or not live.conns:
            return
        live.notes_due = True
        if live.notes_read is None or live.notes_read.done():
            live.notes_read = asyncio.get_running_loop().create_task(self._read_notes(live))

    async def _read_notes(self, live: LiveGame) -> None:
        try:
            while live.notes_due:
                live.notes_due = False
                await self._notes_of(live)
                self.tell_presence(live)
        except Exception as e:  # noqa: BLE001 - logged; the look every PRESENCE_EVERY follows
            log.error("game %s: reading who is connected elsewhere failed (%s)", live.row.id, type(e).__name__)

    async def _notes_of(self, live: LiveGame) -> None:
        """Read what the other processes noted of the game's seats (LiveGame.seen, left)."""
        notes = await asyncio.to_thread(self.storage.seat_notes, live.row.id, self.storage.origin)
        live.seen, live.left = notes.seen, notes.left

    def tell_presence(self, live: LiveGame, to: Connection | None = None, but: Connection | None = None) -> None:
        """Tell the connections that asked for them (hello ``presence``) who is at the table,
        if that changed since they were last told; ``to``: tell this one (just connected)
        now whatever it is, and the others only if it changed; ``but``: not this one."""
        key, msg = presence_of(live)
        changed = key != live.presence_told
        live.presence_told = key
        if not changed:  # (not a look at every connection: a crowd comes and goes one by one)
            if to is not None and to.presence and to is not but:
                to.outbox.put_nowait(msg)
            return
        for c in list(live.conns):
            if c.presence and c is not but and (changed or c is to):
                c.outbox.put_nowait(msg)

    def _tell(self, live: LiveGame) -> None:
        """Send everyone the new state: the players first (the mover's acknowledgement
        follows their state message), then the spectators. A large audience (more than
        SPECTATORS_AT_ONCE) is told at most every SPECTATORS_PAUSE seconds (longer for a
        larger one: spectators_pause), SPECTATORS_PER_TURN at a time with a turn of the event
        loop between: a thousand spectators cost one round of sends per pause however fast
        the game goes, and never hold up the players of any game for long (a spectator gets
        the newest state; a delta holds every entry since the one before)."""
        spectators = []
        for c in list(live.conns):
            if c.seats:
                c.notify()
            else:
                spectators.append(c)
        if len(spectators) <= SPECTATORS_AT_ONCE:
            for c in spectators:
                c.tell(live)
            return
        if live.spectators_due is None or live.spectators_due.done():
            try:
                live.spectators_due = asyncio.get_running_loop().create_task(_tell_spectators(live, len(spectators)))
            except RuntimeError:  # no event loop (a tool): at once
                for c in spectators:
                    c.notify()

    async def watch_tables(self, stop: asyncio.Event, every: float = 1.0) -> None:
        """Every ``every`` seconds: stand in for the people of live games who have been
        away on their turn longer than their table allows; with several processes, also
        note who is connected here (the others read it before standing in)."""
        last_mark = 0.0
        last_expiry = 0.0
        async for _ in ticks(stop, every):
            try:
                if self.storage.shared and time.monotonic() - last_mark >= PRESENCE_EVERY:
                    last_mark = time.monotonic()
                    # (a waiting table's too: a rated one starts with those at it, rated.away_from_table)
                    here = [(g.row.id, s) for g in self.live.values() if g.row.status in ("running", "open") for s in g.present]
                    await asyncio.to_thread(self.storage.mark_present, here)
                    # ... and read who is connected elsewhere, for the people here (presence messages)
                    for g in list(self.live.values()):
                        if (
                            g.conns
                            and g.row.status == "running"
                            and any(sr.kind == "person" and i not in g.present for i, sr in enumerate(g.row.seats))
                        ):
                            await self._notes_of(g)
                for live in list(self.live.values()):
                    await self.check_away(live)
                    if live.conns:
                        self.tell_presence(live)  # a game that ended, a stand-in, another process's news
                self.sweep()
                if self.idle_expiry is not None and time.monotonic() - last_expiry >= min(EXPIRY_EVERY, self.idle_expiry / 2):
                    last_expiry = time.monotonic()
                    await self.expire_idle()
            except Exception as e:  # noqa: BLE001 - logged; tried again in a moment
                log.error("watching the tables failed (%s)", type(e).__name__)

    async def expire_idle(self) -> list[str]:
        """End the unfinished games nobody has changed for ``idle_expiry`` seconds: their
        status becomes "expired" (kept, never continued; the lobby lists them no more)."""
        if self.idle_expiry is None:
            return []
        ids = await asyncio.to_thread(self.storage.expire_idle, time.time() - self.idle_expiry)
        for gid in ids:
            live = self.live.get(gid)
            if live is not None:
                live.row.status = "expired"
                if live.bot_task is not None:
                    live.bot_task.cancel()
                self._changed(live)
        if ids:
            log.info("%d idle games expired", len(ids))
        return ids

    def sweep(self, now: float | None = None) -> int:
        """Forget the games nobody uses (reloaded from the database when asked for): a
        finished or expired one FINISHED_KEPT seconds after it was last asked for, a running
        one IDLE_KEPT (at least twice its table's "away") after; of the finished ones no
        more than FINISHED_MAX; never one with a connection, a bot at work or a change under
        way. Returns how many."""
        now = time.monotonic() if now is None else now
        gone, ended = [], []
        for lv in self.live.values():
            if lv.conns or (lv.bot_task is not None and not lv.bot_task.done()) or lv.lock.locked() or lv.seat_lock.locked():
                continue
            if lv.again_lock.locked():
                continue
            if lv.catching_up:
                continue
            finished = lv.row.status in ("finished", "expired")
            keep = FINISHED_KEPT if finished else max(IDLE_KEPT, 2 * lv.options["away"])
            if now - lv.touched >= keep:
                gone.append(lv)
            elif finished:
                ended.append(lv)
        if len(ended) > FINISHED_MAX:
            ended.sort(key=lambda lv: lv.touched)
            gone += ended[: len(ended) - FINISHED_MAX]
        for lv in gone:
            del self.live[lv.row.id]
            if lv.leased:
                self.storage.release_lease(lv.row.id)
        return len(gone)

    def _evict(self) -> None:
        """Forget the least recently changed idle games (no listener, no bot at work) beyond max_live."""
        if len(self.live) <= self.max_live:
            return
        idle = [
            lv
            for lv in self.live.values()
            if not lv.conns and (lv.bot_task is None or lv.bot_task.done()) and not lv.lock.locked() and not lv.again_lock.locked()
        ]
        idle.sort(key=lambda lv: lv.touched)
        for lv in idle[: len(self.live) - self.max_live]:
            del self.live[lv.row.id]
            if lv.leased:
                self.storage.release_lease(lv.row.id)
