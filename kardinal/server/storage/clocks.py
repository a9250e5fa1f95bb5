"""Tables' clocks in the database (kardinal.server.clocks): a row per game with a clock,
the game's version it was written for, the seat whose time runs, its deadline (epoch
seconds; NO_DEADLINE while no time runs) and every seat's reserve. Several processes act on
a deadline once: the one whose compare-and-set (claim_clock) changes the row."""

from __future__ import annotations

import json
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, delete, insert, select, update
from sqlalchemy.exc import IntegrityError

from .schema import clocks, games

NO_DEADLINE = 1e15  # epoch seconds: no time runs (a bot's turn, the timed-out turn acted on)


@dataclass(frozen=True)
class ClockRow:
    game_id: str
    version: int
    seat: int  # -1: nobody's time runs
    deadline: float
    reserves: list[float | None]


class ClockStorage:
    """The clocks' part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py

    def clock_row(self, game_id: str) -> ClockRow | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(clocks).where(clocks.c.game_id == game_id)).first()
        return _clock(r) if r is not None else None

    def save_clock(self, row: ClockRow, now: float) -> bool:
        """Write a game's clock unless a row for a later version of the game is there
        (another process wrote it after a later move): True if written."""
        values = {"version": row.version, "seat": row.seat, "deadline": row.deadline, "reserves": json.dumps(row.reserves), "updated": now}
        with self._begin() as conn:
            done = conn.execute(update(clocks).where(clocks.c.game_id == row.game_id, clocks.c.version <= row.version).values(**values))
            if done.rowcount:
                return True
            try:
                with conn.begin_nested():
                    conn.execute(insert(clocks).values(game_id=row.game_id, **values))
            except IntegrityError:
                return False  # a later version's row
        return True

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

    def delete_clock(self, game_id: str) -> None:
        with self._begin() as conn:
            conn.execute(delete(clocks).where(clocks.c.game_id == game_id))


def _clock(r: object) -> ClockRow:
    reserves = json.loads(r.reserves)  # type: ignore[attr-defined]
    return ClockRow(r.game_id, int(r.version), int(r.seat), float(r.deadline), [None if x is None else float(x) for x in reserves])  # type: ignore[attr-defined]
