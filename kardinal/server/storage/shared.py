"""Several server processes on one PostgreSQL database: announcing a game's change to the
others (LISTEN/NOTIFY), the lease on a game's bots, and who is connected where."""

from __future__ import annotations

import threading
import time
from collections.abc import Callable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import (
    Connection,
    Engine,
    insert,
    select,
    text,
    update,
)
from sqlalchemy.exc import IntegrityError

from .schema import presence


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

    def _announce(self, conn: Connection, game_id: str) -> None:
        """Tell every other process listening that a game changed (delivered at commit);
        the message names this process, which already knows."""
        if self.shared:
            conn.execute(text("SELECT pg_notify(:ch, :msg)"), {"ch": self.CHANNEL, "msg": f"{self.origin} {game_id}"})

    def listen(self, on_change: Callable[[str], None], stop: threading.Event) -> None:
        """Call ``on_change(game_id)`` for every game another process changed,
        until ``stop`` is set; reconnects after a lost connection. Runs in its own thread."""
        import psycopg

        while not stop.is_set():
            try:
                with psycopg.connect(autocommit=True, **self._pg_params()) as conn:
                    conn.execute(f"LISTEN {self.CHANNEL}")
                    on_change("")  # (re)connected: anything may have changed meanwhile
                    while not stop.is_set():
                        for n in conn.notifies(timeout=0.5):
                            origin, _, game_id = n.payload.partition(" ")
                            if origin != self.origin:  # this process's own changes are known here
                                on_change(game_id)
            except psycopg.OperationalError:
                if stop.wait(1.0):
                    return

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
        """Note that these (game, seat) pairs have a connection to this process now."""
        if not seats:
            return
        now = time.time()
        with self._begin() as conn:
            for gid, seat in seats:
                done = conn.execute(update(presence).where(presence.c.game_id == gid, presence.c.seat == seat).values(seen=now))
                if done.rowcount == 0:
                    try:
                        with conn.begin_nested():
                            conn.execute(insert(presence).values(game_id=gid, seat=seat, seen=now))
                    except IntegrityError:
                        conn.execute(update(presence).where(presence.c.game_id == gid, presence.c.seat == seat).values(seen=now))

    def last_seen(self, game_id: str) -> dict[int, float]:
        """When each seat of a game was last connected to any process (mark_present)."""
        with self.engine.connect() as conn:
            return {int(r.seat): float(r.seen) for r in conn.execute(select(presence).where(presence.c.game_id == game_id))}
