"""Results of finished games in the database (migration 9's ``results``): written once
per game; read by profiles and ratings."""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING

from sqlalchemy import Connection, Engine, insert, select

from .rows import SeatResult
from .schema import results

__all__ = ["ResultStorage"]


class ResultStorage:
    """The results' part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py
        def _still_there(self) -> None: ...  # database.py

    def save_results(self, game_id: str, rows: Sequence[SeatResult], rated: bool, finished: float, conn: Connection | None = None) -> bool:
        """Store a finished game's results, once: True if this call stored them, False if
        they were there already (another process, or an earlier call, stored them). With
        ``conn``, inside that transaction (a rating update commits with its results)."""
        if conn is None:
            self._still_there()
            with self._begin() as c:
                return self.save_results(game_id, rows, rated, finished, c)
        if conn.execute(select(results.c.seat).where(results.c.game_id == game_id).limit(1)).first() is not None:
            return False
        conn.execute(
            insert(results),
            [
                {
                    "game_id": game_id,
                    "seat": r.seat,
                    "players": r.players,
                    "place": r.place,
                    "score": r.score,
                    "win": r.win,
                    "rated": rated,
                    "finished": finished,
                }
                for r in rows
            ],
        )
        return True

    def results_of(self, game_ids: Iterable[str]) -> dict[str, list[tuple[SeatResult, bool, float]]]:
        """The stored results of these games: per game, (result, rated, finished) by seat;
        a game without stored results is missing from the answer."""
        want = sorted(set(game_ids))
        out: dict[str, list[tuple[SeatResult, bool, float]]] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(want), 200):
                q = select(results).where(results.c.game_id.in_(want[i : i + 200])).order_by(results.c.game_id, results.c.seat)
                for r in conn.execute(q):
                    res = SeatResult(int(r.seat), int(r.players), float(r.place), int(r.score), float(r.win))
                    out.setdefault(str(r.game_id), []).append((res, bool(r.rated), float(r.finished)))
        return out
