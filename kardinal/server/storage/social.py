"""Profiles, follows and invitations by name in the database (migration 9's ``follows``
and ``invitations``; ``results``, ``ratings`` and ``rating_events`` read only: the
ratings write them). Every read here is bounded: a profile of an account with thousands of
games reads aggregates and a page of rows, never all of its games."""

from __future__ import annotations

from collections.abc import Iterable
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, and_, delete, func, insert, or_, select, tuple_, update
from sqlalchemy.exc import IntegrityError

from .schema import accounts, follows, games, invitations, rating_events, ratings, results, seat_owners

__all__ = ["SocialStorage", "MAX_FOLLOWS"]

MAX_FOLLOWS = 500  # the most follows (and followers) a list shows, and an account may have


class SocialStorage:
    """The profiles', follows' and invitations' part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py
        def _still_there(self) -> None: ...  # database.py

    # -- profiles ------------------------------------------------------------------

    def profile_unscored(self, account_id: int, limit: int) -> list[str]:
        """Up to ``limit`` of the account's finished games whose results are not stored yet
        (finished before results were stored): to be filled in (results.stored_results)."""
        q = (
            select(seat_owners.c.game_id)
            .join(games, games.c.id == seat_owners.c.game_id)
            .outerjoin(results, and_(results.c.game_id == seat_owners.c.game_id, results.c.seat == seat_owners.c.seat))
            .where(
                seat_owners.c.account_id == account_id,
                games.c.status == "finished",
                games.c.hotseat.is_(False),
                results.c.game_id.is_(None),
            )
            .order_by(seat_owners.c.since.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(q)]

    def profile_totals(self, account_id: int) -> list[dict[str, float]]:
        """The account's finished games by number of players: games, wins (shares), mean
        score and mean place; one aggregate query, however many games. Hot-seat games
        (everyone at one browser, every seat the account's) are left out."""
        q = (
            select(
                results.c.players,
                func.count().label("games"),
                func.sum(results.c.win).label("wins"),
                func.avg(results.c.score).label("score"),
                func.avg(results.c.place).label("place"),
            )
            .join(seat_owners, and_(seat_owners.c.game_id == results.c.game_id, seat_owners.c.seat == results.c.seat))
            .join(games, games.c.id == results.c.game_id)
            .where(seat_owners.c.account_id == account_id, games.c.hotseat.is_(False))  # one person at every seat: no result of theirs
            .group_by(results.c.players)
            .order_by(results.c.players)
        )
        with self.engine.connect() as conn:
            return [
                {
                    "players": int(r.players),
                    "games": int(r.games),
                    "wins": float(r.wins or 0),
                    "score": float(r.score),
                    "place": float(r.place),
                }
                for r in conn.execute(q)
            ]

    def profile_seats(self, account_id: int, limit: int, offset: int = 0) -> list[dict[str, Any]]:
        """A page of the account's seats, newest first, with its game's public columns and
        the seat's result (None while the game is not finished or its result not stored)."""
        q = (
            select(
                seat_owners.c.game_id,
                seat_owners.c.seat,
                games.c.status,
                games.c.created,
                games.c.updated,
                games.c.options,
                games.c.seats,
                results.c.players,
                results.c.place,
                results.c.score,
                results.c.win,
            )
            .join(games, games.c.id == seat_owners.c.game_id)
            .outerjoin(results, and_(results.c.game_id == seat_owners.c.game_id, results.c.seat == seat_owners.c.seat))
            .where(seat_owners.c.account_id == account_id)
            .order_by(seat_owners.c.since.desc(), seat_owners.c.game_id, seat_owners.c.seat)
            .limit(limit)
            .offset(offset)
        )
        with self.engine.connect() as conn:
            return [dict(r._mapping) for r in conn.execute(q)]

    def profile_rating(self, account_id: int) -> tuple[float, float, int] | None:
        """The account's rating (mu, sigma, rated games), or None: not rated yet."""
        with self.engine.connect() as conn:
            r = conn.execute(select(ratings.c.mu, ratings.c.sigma, ratings.c.games).where(ratings.c.account_id == account_id)).first()
        return (float(r.mu), float(r.sigma), int(r.games)) if r is not None else None

    def profile_history(self, account_id: int, limit: int) -> list[tuple[float, float, float, str]]:
        """The account's rating after each of its last ``limit`` rated games, oldest first:
        (at, mu, sigma, game)."""
        q = (
            select(rating_events.c.at, rating_events.c.mu, rating_events.c.sigma, rating_events.c.game_id)
            .where(rating_events.c.account_id == account_id)
            .order_by(rating_events.c.at.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            rows = [(float(r.at), float(r.mu), float(r.sigma), str(r.game_id)) for r in conn.execute(q)]
        return rows[::-1]

    # -- follows -------------------------------------------------------------------

    def follow(self, follower: int, followee: int, now: float) -> bool:
        """``follower`` follows ``followee`` (True: new; False: already did)."""
        self._still_there()
        try:
            with self._begin() as conn:
                conn.execute(insert(follows).values(follower_id=follower, followee_id=followee, since=now))
        except IntegrityError:
            return False
        return True

    def unfollow(self, follower: int, followee: int) -> None:
        self._still_there()
        with self._begin() as conn:
            conn.execute(delete(follows).where(follows.c.follower_id == follower, follows.c.followee_id == followee))

    def is_following(self, follower: int, followee: int) -> bool:
        with self.engine.connect() as conn:
            q = select(follows.c.since).where(follows.c.follower_id == follower, follows.c.followee_id == followee)
            return conn.execute(q).first() is not None

    def follow_counts(self, account_id: int) -> tuple[int, int]:
        """How many the account follows, and how many follow it."""
        with self.engine.connect() as conn:
            a = conn.execute(select(func.count()).select_from(follows).where(follows.c.follower_id == account_id)).scalar_one()
            b = conn.execute(select(func.count()).select_from(follows).where(follows.c.followee_id == account_id)).scalar_one()
        return int(a), int(b)

    def following(self, account_id: int, limit: int = MAX_FOLLOWS) -> list[tuple[str, float]]:
        """Whom the account follows (name, since), by name."""
        q = (
            select(accounts.c.name, follows.c.since)
            .join(accounts, accounts.c.id == follows.c.followee_id)
            .where(follows.c.follower_id == account_id)
            .order_by(accounts.c.name_key)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [(str(r.name), float(r.since)) for r in conn.execute(q)]

    def followers(self, account_id: int, limit: int = MAX_FOLLOWS) -> list[tuple[str, float]]:
        """Who follows the account (name, since), by name."""
        q = (
            select(accounts.c.name, follows.c.since)
            .join(accounts, accounts.c.id == follows.c.follower_id)
            .where(follows.c.followee_id == account_id)
            .order_by(accounts.c.name_key)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [(str(r.name), float(r.since)) for r in conn.execute(q)]

    def followed_by(self, account_id: int, among: Iterable[int]) -> set[int]:
        """Those of ``among`` who follow the account (the hosts of friends-only tables it may join)."""
        want = sorted(set(among))
        out: set[int] = set()
        with self.engine.connect() as conn:
            for i in range(0, len(want), 200):
                q = select(follows.c.follower_id).where(follows.c.followee_id == account_id, follows.c.follower_id.in_(want[i : i + 200]))
                out.update(int(r[0]) for r in conn.execute(q))
        return out

    # -- invitations ---------------------------------------------------------------

    def invite(self, game_id: str, seats: dict[int, int], inviter: int, now: float) -> None:
        """Seats of a new game kept for accounts (``{seat: account id}``)."""
        if not seats:
            return
        self._still_there()
        with self._begin() as conn:
            conn.execute(
                insert(invitations),
                [{"game_id": game_id, "seat": s, "account_id": a, "inviter_id": inviter, "at": now} for s, a in sorted(seats.items())],
            )

    def invitation(self, game_id: str, seat: int) -> tuple[int, int | None] | None:
        """The account a seat is kept for and who invited it, or None."""
        with self.engine.connect() as conn:
            r = conn.execute(
                select(invitations.c.account_id, invitations.c.inviter_id).where(
                    invitations.c.game_id == game_id, invitations.c.seat == seat
                )
            ).first()
        return (int(r.account_id), None if r.inviter_id is None else int(r.inviter_id)) if r is not None else None

    def invited(self, seats: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        """Those of ``seats`` kept for an account by an invitation, and its account."""
        with self.engine.connect() as conn:
            return self._invited(conn, seats)

    def _invited(self, conn: Connection, seats: list[tuple[str, int]]) -> dict[tuple[str, int], int]:
        out: dict[tuple[str, int], int] = {}
        for i in range(0, len(seats), 200):
            q = select(invitations.c.game_id, invitations.c.seat, invitations.c.account_id).where(
                tuple_(invitations.c.game_id, invitations.c.seat).in_(seats[i : i + 200])
            )
            out.update(((str(r.game_id), int(r.seat)), int(r.account_id)) for r in conn.execute(q))
        return out

    def end_invitations(self, account_id: int, seats: list[tuple[str, int]]) -> None:
        """The account's invitations to these seats end (it has taken them)."""
        if not seats:
            return
        self._still_there()
        with self._begin() as conn:
            self._end_invitations(conn, account_id, seats)

    def _end_invitations(self, conn: Connection, account_id: int, seats: list[tuple[str, int]]) -> None:
        for i in range(0, len(seats), 200):
            conn.execute(
                delete(invitations).where(
                    invitations.c.account_id == account_id, tuple_(invitations.c.game_id, invitations.c.seat).in_(seats[i : i + 200])
                )
            )

    def withdraw_invitation(self, inviter_id: int, game_id: str, seat: int) -> str | None:
        """The inviter ends an invitation it sent (the seat is kept for nobody any more): the
        name of the account it was for (None when it has none to that seat; "" when that
        account is gone)."""
        self._still_there()
        where = (invitations.c.inviter_id == inviter_id, invitations.c.game_id == game_id, invitations.c.seat == seat)
        with self._begin() as conn:
            found = conn.execute(
                select(accounts.c.name)
                .select_from(invitations)
                .outerjoin(accounts, accounts.c.id == invitations.c.account_id)
                .where(*where)
            ).first()
            if found is None:
                return None
            conn.execute(delete(invitations).where(*where))
        return found[0] or ""

    def invitations_to(self, account_id: int, limit: int = 200) -> list[dict[str, Any]]:
        """The account's pending invitations, newest first: game, seat, at, inviter's name
        (None: the inviter deleted their account)."""
        q = (
            select(invitations.c.game_id, invitations.c.seat, invitations.c.at, accounts.c.name)
            .outerjoin(accounts, accounts.c.id == invitations.c.inviter_id)
            .where(invitations.c.account_id == account_id)
            .order_by(invitations.c.at.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [{"game": str(r.game_id), "seat": int(r.seat), "at": float(r.at), "by": r.name} for r in conn.execute(q)]

    def invitations_by(self, account_id: int, limit: int = 200) -> list[dict[str, Any]]:
        """The invitations the account sent that are still pending, newest first."""
        q = (
            select(invitations.c.game_id, invitations.c.seat, invitations.c.at, accounts.c.name)
            .join(accounts, accounts.c.id == invitations.c.account_id)
            .where(invitations.c.inviter_id == account_id)
            .order_by(invitations.c.at.desc())
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [{"game": str(r.game_id), "seat": int(r.seat), "at": float(r.at), "to": str(r.name)} for r in conn.execute(q)]

    # -- an account deleted ----------------------------------------------------------

    def _forget_social(self, conn: Connection, account_id: int) -> None:
        """An account being deleted (AccountStorage.delete_account's transaction): its
        follows both ways and the invitations to it end; those it sent stay kept for
        their invitees, from nobody now (SQLite here does not enforce foreign keys)."""
        conn.execute(delete(follows).where(or_(follows.c.follower_id == account_id, follows.c.followee_id == account_id)))
        conn.execute(delete(invitations).where(invitations.c.account_id == account_id))
        conn.execute(update(invitations).where(invitations.c.inviter_id == account_id).values(inviter_id=None))
