"""Several server processes on one PostgreSQL database: announcing a game's change to the
others (LISTEN/NOTIFY), the lease on a game's bots, and who is connected where."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable, Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Connection,
    Engine,
    delete,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError, SQLAlchemyError

from .schema import presence

PRESENCE_ROWS_KEPT = 86400.0  # seconds: a note of presence is removed a day after it was written
LISTEN_POLL = 0.5  # seconds: how often the listener looks whether it is to stop (besides being woken)


class SharedStorage:
    """The several-process part of :class:`Storage`."""

    CHANNEL = "kardinal_games"  # PostgreSQL's channel of the announcements (LISTEN/NOTIFY)
    engine: Engine
    url: str
    origin: str  # names this process's announcements
    _lease_conn: Any  # the connection holding this process's bot leases
    _lease_guard: threading.Lock

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py

    @property
    def shared(self) -> bool:
        """Whether other server processes may use this database (PostgreSQL): then every
        change is announced (NOTIFY) and bots run under a lease."""
        return self.engine.dialect.name == "postgresql"

    def _announce(self, conn: Connection, game_id: str, note: str = "") -> None:
        """Tell every other process listening that a game changed (delivered at commit);
        the message names this process, which already knows. ``note``: what changed, if not
        the game itself ("presence": who is connected where; "clock DEADLINE": a clock
        stored; see listen)."""
        if self.shared:
            msg = f"{self.origin} {game_id} {note}" if note else f"{self.origin} {game_id}"
            conn.execute(text("SELECT pg_notify(:ch, :msg)"), {"ch": self.CHANNEL, "msg": msg})

    def listen(self, on_change: Callable[[str], None], stop: threading.Event, on_note: Callable[[str, str], None] | None = None) -> None:
        """Call ``on_change(game_id)`` for every game another process changed, and
        ``on_note(game_id, note)`` for its other news (_announce's ``note``), until ``stop``
        is set; reconnects after a lost connection. Runs in its own thread."""
        import psycopg

        while not stop.is_set():
            try:
                with psycopg.connect(autocommit=True, **self._pg_params()) as conn:
                    conn.execute(f"LISTEN {self._wake_channel}")
                    conn.execute(f"LISTEN {self.CHANNEL}")  # (its last statement: what pg_stat_activity shows)
                    on_change("")  # (re)connected: anything may have changed meanwhile
                    while not stop.is_set():
                        for n in conn.notifies(timeout=LISTEN_POLL):
                            if n.channel != self.CHANNEL:  # woken (wake_listener): look at the stop flag now
                                break
                            origin, _, rest = n.payload.partition(" ")
                            if origin == self.origin:  # this process's own changes are known here
                                continue
                            game_id, _, note = rest.partition(" ")
                            if not note:
                                on_change(game_id)
                            elif on_note is not None:
                                on_note(game_id, note)
            except psycopg.OperationalError:
                if stop.wait(1.0):
                    return

    @property
    def _wake_channel(self) -> str:
        return f"kardinal_wake_{self.origin}"  # this process's alone

    def wake_listener(self) -> None:
        """Wake :meth:`listen` to look at its stop flag now (set it first), not at its next
        look; if the database cannot be reached, the listener stops at that look."""
        if not self.shared:
            return
        try:
            with self._begin() as conn:
                conn.execute(text(f"NOTIFY {self._wake_channel}"))
        except SQLAlchemyError:
            pass

    def _pg_params(self) -> dict[str, Any]:
        params = self.engine.url.translate_connect_args(username="user", database="dbname")
        params.update({k: v for k, v in self.engine.url.query.items() if isinstance(v, str)})
        return params

    def try_lease(self, game_id: str) -> bool:
        """Take the lease on a game's bots: True if this process may run them now, False if
        another process holds it. On PostgreSQL a lease is an advisory lock on this
        process's own lease connection: a process that dies gives all of its leases back
        with that connection, and the others take the games over."""
        if not self.shared:
            return True
        import psycopg

        with self._lease_guard:
            for attempt in (1, 2):
                try:
                    if self._lease_conn is None or self._lease_conn.closed:
                        self._lease_conn = psycopg.connect(autocommit=True, **self._pg_params())
                    row = self._lease_conn.execute("SELECT pg_try_advisory_lock(hashtextextended(%s, 7))", (game_id,)).fetchone()
                    return bool(row and row[0])
                except psycopg.OperationalError:
                    self._lease_conn = None  # lost: every lease went with it; try a new connection once
                    if attempt == 2:
                        return False
        return False

    def release_lease(self, game_id: str) -> None:
        if not self.shared or self._lease_conn is None:
            return
        import psycopg

        with self._lease_guard:
            try:
                self._lease_conn.execute("SELECT pg_advisory_unlock(hashtextextended(%s, 7))", (game_id,))
            except psycopg.OperationalError:
                self._lease_conn = None

    def mark_present(self, seats: list[tuple[str, int]]) -> None:
        """Note that these (game, seat) pairs have a connection to this process now (every
        few seconds: a process that dies stops noting them). Notes of a day ago are removed."""
        now = time.time()
        with self._begin() as conn:
            for gid, seat in seats:
                self._note_seat(conn, gid, seat, now, True)
            conn.execute(delete(presence).where(presence.c.seen < now - PRESENCE_ROWS_KEPT))

    def note_seats(self, game_id: str, here: Iterable[int], left: Iterable[int]) -> None:
        """The people of these seats of a game came to this process (``here``) or left it
        (``left``) now: noted, and the other processes told (they tell their connections
        who is at the table)."""
        now = time.time()
        with self._begin() as conn:
            for seat in here:
                self._note_seat(conn, game_id, seat, now, True)
            for seat in left:
                self._note_seat(conn, game_id, seat, now, False)
            self._announce(conn, game_id, "presence")

    def _note_seat(self, conn: Connection, game_id: str, seat: int, now: float, here: bool) -> None:
        mine = (presence.c.game_id == game_id, presence.c.seat == seat, presence.c.process == self.origin)
        if conn.execute(update(presence).where(*mine).values(seen=now, here=here)).rowcount:
            return
        try:
            with conn.begin_nested():
                conn.execute(insert(presence).values(game_id=game_id, seat=seat, process=self.origin, seen=now, here=here))
        except IntegrityError:  # (this process's own row: written meanwhile by another of its threads)
            conn.execute(update(presence).where(*mine).values(seen=now, here=here))

    def seat_notes(self, game_id: str, but: str | None = None) -> SeatNotes:
        """What the processes (but the one named ``but``) noted of a game's seats."""
        seen: dict[int, float] = {}
        left: dict[int, float] = {}
        q = select(presence.c.seat, presence.c.seen, presence.c.here).where(presence.c.game_id == game_id)
        if but is not None:
            q = q.where(presence.c.process != but)
        with self.engine.connect() as conn:
            for r in conn.execute(q):
                notes = seen if r.here else left
                notes[int(r.seat)] = max(float(r.seen), notes.get(int(r.seat), 0.0))
        return SeatNotes(seen, left)

    def last_seen(self, game_id: str) -> dict[int, float]:
        """When each seat of a game was last noted connected to any process (mark_present,
        note_seats); a seat whose person left every process is not in it."""
        return self.seat_notes(game_id).seen


@dataclass(frozen=True)
class SeatNotes:
    """What other processes noted of a game's seats (Storage.seat_notes), in Unix time: the
    seats connected there and when that was last noted (``seen``: a process notes its own
    every few seconds), and the seats that left there and when (``left``)."""

    seen: dict[int, float]
    left: dict[int, float]
