"""Ratings in the database (migration 9's ``ratings`` and ``rating_events``): a finished
game's results and its rating update are committed in one transaction, once per game."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, desc, insert, select, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from .rows import SeatResult
from .schema import accounts, rating_events, ratings, seat_owners

__all__ = ["RatingStorage", "Update"]

# a game's rating update: the ratings of its seats that belong to accounts ({seat: (mu, sigma)})
# in, their ratings after the game out (kardinal.server.community.ratings.rater)
Update = Callable[[dict[int, tuple[float, float]]], dict[int, tuple[float, float]]]


class RatingStorage:
    """The ratings' part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py
        def _still_there(self) -> None: ...  # database.py
        def save_results(
            self, game_id: str, rows: Sequence[SeatResult], rated: bool, finished: float, conn: Connection | None = None
        ) -> bool: ...  # results.py

    def settle_game(
        self, game_id: str, rows: Sequence[SeatResult], rated: bool, finished: float, rate: Update, start: tuple[float, float]
    ) -> bool:
        """Store a finished game's results and, if it is rated, update the ratings of the
        accounts its seats belong to (one seat each; an account at two seats of one game is
        left out) and note each change in ``rating_events``: all in one transaction, and only
        by the call that stored the results (True), so that a game counts once however many
        calls and processes settle it. ``start``: a newcomer's (mu, sigma)."""
        self._still_there()
        try:
            with self._begin() as conn:
                if not self.save_results(game_id, rows, rated, finished, conn):
                    return False
                if rated:
                    self._rate(conn, game_id, finished, rate, start)
                return True
        except IntegrityError:  # another process stored them at the same time (PostgreSQL)
            return False

    def _rate(self, conn: Connection, game_id: str, at: float, rate: Update, start: tuple[float, float]) -> None:
        owner: dict[int, int] = {}
        seats_of: dict[int, int] = {}
        for r in conn.execute(select(seat_owners.c.seat, seat_owners.c.account_id).where(seat_owners.c.game_id == game_id)):
            owner[int(r.seat)] = int(r.account_id)
            seats_of[int(r.account_id)] = seats_of.get(int(r.account_id), 0) + 1
        owner = {s: a for s, a in owner.items() if seats_of[a] == 1}
        if not owner:
            return
        ids = sorted(owner.values())
        ins = pg_insert(ratings) if self.engine.dialect.name == "postgresql" else sqlite_insert(ratings)
        conn.execute(
            ins.on_conflict_do_nothing(index_elements=["account_id"]),
            [{"account_id": a, "mu": start[0], "sigma": start[1], "games": 0, "updated": at} for a in ids],
        )
        q = select(ratings).where(ratings.c.account_id.in_(ids))
        if self.engine.dialect.name == "postgresql":
            q = q.with_for_update()  # two games of one account settled at once: one after the other
        now = {int(r.account_id): (float(r.mu), float(r.sigma), int(r.games)) for r in conn.execute(q)}
        after = rate({s: now[a][:2] for s, a in owner.items()})
        for s, a in owner.items():
            mu, sigma = after[s]
            conn.execute(update(ratings).where(ratings.c.account_id == a).values(mu=mu, sigma=sigma, games=now[a][2] + 1, updated=at))
            conn.execute(insert(rating_events).values(account_id=a, game_id=game_id, at=at, mu=mu, sigma=sigma, before=now[a][0]))

    def ratings_of(self, account_ids: Sequence[int]) -> dict[int, tuple[float, float, int]]:
        """(mu, sigma, rated games) of these accounts; one that never played a rated game is missing."""
        want = sorted(set(account_ids))
        out: dict[int, tuple[float, float, int]] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(want), 200):
                for r in conn.execute(select(ratings).where(ratings.c.account_id.in_(want[i : i + 200]))):
                    out[int(r.account_id)] = (float(r.mu), float(r.sigma), int(r.games))
        return out

    def rating_events_of(self, account_id: int, limit: int = 500) -> list[dict[str, Any]]:
        """An account's rated games, newest first: the game, when, mu before and after, sigma after."""
        q = select(rating_events).where(rating_events.c.account_id == account_id).order_by(desc(rating_events.c.at)).limit(limit)
        with self.engine.connect() as conn:
            return [
                {"game": str(r.game_id), "at": float(r.at), "before": float(r.before), "mu": float(r.mu), "sigma": float(r.sigma)}
                for r in conn.execute(q)
            ]

    def game_rating_events(self, game_id: str) -> dict[int, dict[str, Any]]:
        """A game's rating changes by seat: the account's name and id, mu before and after, sigma
        before (its previous game's, or None for its first) and after."""
        q = (
            select(seat_owners.c.seat, accounts.c.name, rating_events)
            .join(
                rating_events, (rating_events.c.account_id == seat_owners.c.account_id) & (rating_events.c.game_id == seat_owners.c.game_id)
            )
            .join(accounts, accounts.c.id == seat_owners.c.account_id)
            .where(seat_owners.c.game_id == game_id)
        )
        out: dict[int, dict[str, Any]] = {}
        with self.engine.connect() as conn:
            for r in conn.execute(q):
                prev = conn.execute(
                    select(rating_events.c.sigma)
                    .where(rating_events.c.account_id == r.account_id, rating_events.c.at < r.at)
                    .order_by(desc(rating_events.c.at))
                    .limit(1)
                ).first()
                out[int(r.seat)] = {
                    "account": str(r.name),
                    "account_id": int(r.account_id),
                    "before": float(r.before),
                    "mu": float(r.mu),
                    "sigma": float(r.sigma),
                    "sigma_before": float(prev[0]) if prev is not None else None,
                }
        return out

    def leaderboard(self, min_games: int, limit: int = 100) -> list[tuple[str, float, float, int]]:
        """The accounts with at least ``min_games`` rated games: (name, mu, sigma, games),
        best first by mu - 2 sigma."""
        q = (
            select(accounts.c.name, ratings.c.mu, ratings.c.sigma, ratings.c.games)
            .join(accounts, accounts.c.id == ratings.c.account_id)
            .where(ratings.c.games >= min_games)
            .order_by(desc(ratings.c.mu - 2 * ratings.c.sigma), accounts.c.name_key)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [(str(r.name), float(r.mu), float(r.sigma), int(r.games)) for r in conn.execute(q)]
