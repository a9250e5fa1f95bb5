"""Tables' clocks in the database (kardinal.server.play.clocks): a row per game with a clock,
the game's version it was written for, the seat whose time runs, its deadline (epoch
seconds; NO_DEADLINE while no time runs) and every seat's reserve. Several processes act on
a deadline once: the one whose compare-and-set (claim_clock) changes the row.

The server's processes stamp a row each (``server_processes``) every few seconds and when
they stop: a process that starts while no other runs moves every running deadline on by
the time since the last stamp (start_process), the time the server was down."""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, delete, func, insert, select, text, update
from sqlalchemy.exc import IntegrityError

from .schema import ALIVE_LOCK, actions, clocks, games, server_processes

NO_DEADLINE = 1e15  # epoch seconds: no time runs (a bot's turn, the timed-out turn acted on)
PROCESS_ROWS_KEPT = 86400.0  # seconds: a process's row is removed a day after its last stamp


@dataclass(frozen=True)
class ClockRow:
    game_id: str
    version: int
    seat: int  # -1: nobody's time runs
    deadline: float
    reserves: list[float | None]


@dataclass(frozen=True)
class StoredTurn:
    """Whose turn a game is at, as stored: the seat to act (None: not stored; at version 0
    it is seat 0's), the game's version (its number of actions) and its clock's row."""

    game_id: str
    to_act: int | None
    version: int
    clock: ClockRow | None


class ClockStorage:
    """The clocks' part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        @property
        def shared(self) -> bool: ...  # shared.py

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py

        def _announce(self, conn: Connection, game_id: str, note: str = "") -> None: ...  # shared.py

    def clock_row(self, game_id: str) -> ClockRow | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(clocks).where(clocks.c.game_id == game_id)).first()
        return _clock(r) if r is not None else None

    def stored_turns(self, ids: Iterable[str]) -> dict[str, StoredTurn]:
        """The turns of these games as stored (one statement per 200 games, one snapshot
        each: the seat to act, the version and the clock of one moment); a game whose clock
        row cannot be read is left out."""
        want = sorted(set(ids))
        version = select(func.coalesce(func.max(actions.c.idx) + 1, 0)).where(actions.c.game_id == games.c.id).scalar_subquery()
        q = select(
            games.c.id.label("gid"),
            games.c.to_act,
            version.label("n"),
            clocks.c.version.label("clock_version"),
            clocks.c.seat,
            clocks.c.deadline,
            clocks.c.reserves,
        ).select_from(games.outerjoin(clocks, clocks.c.game_id == games.c.id))
        out: dict[str, StoredTurn] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(want), 200):
                for r in conn.execute(q.where(games.c.id.in_(want[i : i + 200]))):
                    try:
                        clock = None if r.clock_version is None else _clock_of(r.gid, r.clock_version, r.seat, r.deadline, r.reserves)
                    except (ValueError, TypeError):
                        continue
                    to_act = None if r.to_act is None else int(r.to_act)
                    out[str(r.gid)] = StoredTurn(str(r.gid), to_act, int(r.n), clock)
        return out

    def save_clock(self, row: ClockRow, now: float) -> bool:
        """Write a game's clock unless a row for a later version of the game is there
        (another process wrote it after a later move): True if written."""
        values = {"version": row.version, "seat": row.seat, "deadline": row.deadline, "reserves": json.dumps(row.reserves), "updated": now}
        with self._begin() as conn:
            done = conn.execute(update(clocks).where(clocks.c.game_id == row.game_id, clocks.c.version <= row.version).values(**values))
            if not done.rowcount:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(clocks).values(game_id=row.game_id, **values))
                except IntegrityError:
                    return False  # a later version's row
            self._deadline_told(conn, row.game_id, row.deadline)
        return True

    def _deadline_told(self, conn: Connection, game_id: str, deadline: float) -> None:
        """Tell the other processes (PostgreSQL; at commit) of a deadline that runs: their
        watchers wake for it if it comes before the one they wait for (watch_clocks)."""
        if deadline < NO_DEADLINE:
            self._announce(conn, game_id, f"clock {deadline!r}")

    def next_deadline(self) -> float | None:
        """The earliest deadline that runs (None: none), read from the deadlines' index
        (one row, however many games there are)."""
        with self.engine.connect() as conn:
            q = select(clocks.c.deadline).where(clocks.c.deadline < NO_DEADLINE).order_by(clocks.c.deadline).limit(1)
            found = conn.execute(q).scalar_one_or_none()
        return None if found is None else float(found)

    def deadline_now(self, game_id: str, seat: int, now: float) -> bool:
        """The running time of ``seat`` in a game runs out now (its account was suspended:
        the stand-in takes its turn at once, not when its deadline comes); True if it ran."""
        with self._begin() as conn:
            done = conn.execute(
                update(clocks)
                .where(clocks.c.game_id == game_id, clocks.c.seat == seat, clocks.c.deadline > now, clocks.c.deadline < NO_DEADLINE)
                .values(deadline=now, updated=now)
            )
            if done.rowcount:
                self._deadline_told(conn, game_id, now)
        return bool(done.rowcount)

    def claim_clock(self, row: ClockRow, now: float) -> bool:
        """Act on a passed deadline: True for exactly one caller (of any process), the one
        whose compare-and-set found the row still as read (the same version and deadline)
        and set it to NO_DEADLINE; False if a move, another process or a later write came first."""
        with self._begin() as conn:
            done = conn.execute(
                update(clocks)
                .where(clocks.c.game_id == row.game_id, clocks.c.version == row.version, clocks.c.deadline == row.deadline)
                .where(clocks.c.deadline <= now)
                .values(deadline=NO_DEADLINE, updated=now)
            )
            return done.rowcount == 1

    def due_clocks(self, now: float, limit: int = 100) -> list[ClockRow]:
        """The clocks whose deadline has passed, the oldest first."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(clocks).where(clocks.c.deadline <= now).order_by(clocks.c.deadline).limit(limit))
            return [_clock(r) for r in rows]

    def clocked_games(self) -> list[str]:
        """The running games whose clock waits for a bot (a bot's turn, a stand-in's, a turn
        whose time ran out): picked up at start-up. (The others wait for a person; their
        deadlines are looked at in the database: due_clocks.)"""
        with self.engine.connect() as conn:
            q = (
                select(clocks.c.game_id)
                .join(games, games.c.id == clocks.c.game_id)
                .where(games.c.status == "running", clocks.c.deadline >= NO_DEADLINE)
            )
            return [r[0] for r in conn.execute(q)]

    def start_process(self, process: str, now: float, running_within: float) -> float:
        """A server process starts, before it reads a clock: registers ``process`` as running
        and returns the seconds the server was down (0.0: it was not). It was down if no
        other process runs (on PostgreSQL: none stamped within ``running_within`` seconds and
        not stopped; a SQLite file has one process); then every deadline that runs moves on
        by the time since the last stamp of any process, so that a turn's time is spent by
        its player and not by the server's stop. On PostgreSQL the processes starting at
        once do this one after another (the second finds the first running: once)."""
        with self._begin() as conn:
            if self.shared:
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": ALIVE_LOCK})
            rows = conn.execute(select(server_processes.c.id, server_processes.c.alive, server_processes.c.stopped)).all()
            last = max((float(r.alive) for r in rows), default=None)
            others = self.shared and any(r.id != process and not r.stopped and float(r.alive) > now - running_within for r in rows)
            down = now - last if last is not None and not others and now > last else 0.0
            if down > 0.0:
                conn.execute(update(clocks).where(clocks.c.deadline < NO_DEADLINE).values(deadline=clocks.c.deadline + down, updated=now))
            gone = (server_processes.c.alive < now - PROCESS_ROWS_KEPT) | (server_processes.c.id == process)  # (started again)
            conn.execute(delete(server_processes).where(gone))
            conn.execute(insert(server_processes).values(id=process, alive=now, stopped=False))
        return down

    def stamp_process(self, process: str, now: float, stopped: bool = False) -> None:
        """A running process's sign of life (``stopped``: its last, as it stops in order)."""
        with self._begin() as conn:
            done = conn.execute(update(server_processes).where(server_processes.c.id == process).values(alive=now, stopped=stopped))
            if not done.rowcount:  # removed meanwhile (a day without a stamp: the machine slept)
                conn.execute(insert(server_processes).values(id=process, alive=now, stopped=stopped))

    def delete_clock(self, game_id: str) -> None:
        with self._begin() as conn:
            conn.execute(delete(clocks).where(clocks.c.game_id == game_id))


def _clock(r: object) -> ClockRow:
    return _clock_of(r.game_id, r.version, r.seat, r.deadline, r.reserves)  # type: ignore[attr-defined]


def _clock_of(game_id: str, version: int, seat: int, deadline: float, reserves: str) -> ClockRow:
    return ClockRow(game_id, int(version), int(seat), float(deadline), [None if x is None else float(x) for x in json.loads(reserves)])
