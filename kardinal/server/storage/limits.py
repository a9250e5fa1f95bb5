"""Rate limits' counts in the database (migration 12's ``rate_counts``), for the processes
that share a PostgreSQL database (kardinal.server.common.guard): each count is changed by one
statement that returns the new value, so that every process sees every other's at once.

The statements run on a small pool of their own in autocommit (PostgreSQL): a count is one
round trip, and never waits for a connection the games' threads hold."""

from __future__ import annotations

from collections.abc import Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, create_engine, delete, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from .schema import rate_counts

__all__ = ["LimitStorage", "Window"]

# one window of one budget: (budget, e.g. "signin_name/60"; key; the window's start; its end)
Window = tuple[str, str, int, float]


class LimitStorage:
    """The rate limits' part of :class:`Storage`."""

    engine: Engine
    url: str
    _rate_engine: Engine | None = None

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py

    def _counting(self) -> AbstractContextManager[Connection]:
        """A connection for one counting statement: PostgreSQL, its own small pool in
        autocommit (one round trip, no BEGIN and COMMIT); SQLite, a write transaction."""
        if self.engine.dialect.name != "postgresql":
            return self._begin()
        if self._rate_engine is None:
            # short timeouts: a count is made on the event loop, which must not wait long
            self._rate_engine = create_engine(
                self.engine.url,
                hide_parameters=True,
                isolation_level="AUTOCOMMIT",
                pool_size=2,
                max_overflow=2,
                pool_timeout=2.0,
                connect_args={"connect_timeout": 2},
            )
        return self._rate_engine.connect()

    def count_rates(self, windows: Sequence[Window], delta: int) -> dict[tuple[str, str, int], int]:
        """Add ``delta`` to the counts of these windows (a window not counted yet starts at 0),
        atomically, in one statement; returns each window's count after it."""
        if not windows:
            return {}
        ins = pg_insert(rate_counts) if self.engine.dialect.name == "postgresql" else sqlite_insert(rate_counts)
        rows = [{"budget": b, "key": k, "start": s, "count": delta, "until": u} for b, k, s, u in windows]
        values = ins.values(rows)
        stmt = values.on_conflict_do_update(
            index_elements=["budget", "key", "start"], set_={"count": rate_counts.c.count + values.excluded.count}
        ).returning(rate_counts.c.budget, rate_counts.c.key, rate_counts.c.start, rate_counts.c.count)
        with self._counting() as conn:
            return {(str(r[0]), str(r[1]), int(r[2])): int(r[3]) for r in conn.execute(stmt)}

    def uncount_rates(self, windows: Sequence[Window]) -> None:
        """Take one off the counts of these windows (a unit given back: the attempt succeeded)."""
        with self._counting() as conn:
            for b, k, s, _ in windows:
                w = (rate_counts.c.budget == b) & (rate_counts.c.key == k) & (rate_counts.c.start == s)
                conn.execute(update(rate_counts).where(w, rate_counts.c.count > 0).values(count=rate_counts.c.count - 1))

    def prune_rates(self, now: float) -> int:
        """Forget the counts whose windows have passed; returns how many."""
        with self._counting() as conn:
            return int(conn.execute(delete(rate_counts).where(rate_counts.c.until < now)).rowcount or 0)

    def _close_rates(self) -> None:
        if self._rate_engine is not None:
            self._rate_engine.dispose()
            self._rate_engine = None
