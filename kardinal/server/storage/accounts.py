"""Accounts in the database: the accounts, their sessions (stored as hashes of the
cookies' secrets), and the seats that belong to them. No password or secret is ever read
back out of here but a password's hash, to verify it (kardinal.server.community.accounts)."""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from contextlib import AbstractContextManager
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, and_, bindparam, delete, insert, select, tuple_, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert
from sqlalchemy.exc import IntegrityError

from ..common.names import KEY_MARK, account_keys
from .rows import AccountRow, ChatLine, CorruptGame, GameRow, SeatRow, _row
from .schema import accounts, chat, games, invitations, rating_events, ratings, seat_owners, sessions

MAX_OWNED = 2000  # the most seats "My games" lists (newest first)


def _account(r: Any) -> AccountRow:
    return AccountRow(int(r.id), str(r.name), float(r.created), float(r.password_changed))


# Statements of a signed-in person's hello, made once with their parameters left open: a
# statement built anew for each call cost SQLAlchemy about 100 µs of Python to build and
# key, and executed ready-made about 13 µs (SQLite, in-process). A hello looks up its
# session and binds each seat it opens (bind_seats, one seat at a time).
_SESSION_ACCOUNT = (
    select(accounts)
    .join(sessions, sessions.c.account_id == accounts.c.id)
    .where(sessions.c.token_hash == bindparam("h"), sessions.c.expires > bindparam("now"))
)
_SEAT_INVITED = select(invitations.c.account_id).where(invitations.c.game_id == bindparam("g"), invitations.c.seat == bindparam("s"))
_GAME_OPTIONS = select(games.c.options).where(games.c.id == bindparam("g"))
_GAME_OPTIONS_LOCKED = _GAME_OPTIONS.with_for_update()
_SEAT_OWNER = select(seat_owners.c.account_id).where(seat_owners.c.game_id == bindparam("g"), seat_owners.c.seat == bindparam("s"))
_SEATS_OF_ACCOUNT_IN = select(seat_owners.c.seat).where(seat_owners.c.game_id == bindparam("g"), seat_owners.c.account_id == bindparam("a"))
_END_INVITATION = delete(invitations).where(
    invitations.c.game_id == bindparam("g"), invitations.c.seat == bindparam("s"), invitations.c.account_id == bindparam("a")
)
_TAKE_SEAT = {
    name: ins.values(game_id=bindparam("g"), seat=bindparam("s"), account_id=bindparam("a"), since=bindparam("now"))
    .on_conflict_do_nothing(index_elements=["game_id", "seat"])
    .returning(seat_owners.c.seat)
    for name, ins in (("postgresql", pg_insert(seat_owners)), ("sqlite", sqlite_insert(seat_owners)))
}


def _rated(options: str | None) -> bool:
    """Whether a game's stored options make it a rated table."""
    try:
        found = json.loads(options or "{}")
    except ValueError:
        return False
    return isinstance(found, dict) and found.get("rated") is True


class AccountStorage:
    """The accounts' part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py
        def _still_there(self) -> None: ...  # database.py
        def _forget_social(self, conn: Connection, account_id: int) -> None: ...  # social.py
        def delete_moderation_of(self, conn: Connection, account_id: int) -> None: ...  # moderation.py
        def delete_mail_of(self, conn: Connection, account_id: int) -> None: ...  # mail.py
        def _invited(self, conn: Connection, seats: list[tuple[str, int]]) -> dict[tuple[str, int], int]: ...  # social.py
        def _end_invitations(self, conn: Connection, account_id: int, seats: list[tuple[str, int]]) -> None: ...  # social.py
        def delete_push_of(self, conn: Connection, account_id: int) -> None: ...  # push.py

    # -- accounts ------------------------------------------------------------------

    def create_account(self, name: str, name_key: str, password_hash: str, now: float) -> AccountRow | None:
        """A new account; None if ``name_key`` is taken (nothing is written then)."""
        self._still_there()
        try:
            with self._begin() as conn:
                r = conn.execute(
                    insert(accounts)
                    .values(name=name, name_key=name_key, password=password_hash, created=now, password_changed=now)
                    .returning(accounts.c.id)
                )
                aid = int(r.scalar_one())
        except IntegrityError:
            return None
        return AccountRow(aid, name, now, now)

    def account_login(self, name: str) -> tuple[AccountRow, str] | None:
        """The account of a name (by both its keys: names.account_keys) and its password's
        hash (to verify a sign-in), or None."""
        with self.engine.connect() as conn:
            r = conn.execute(select(accounts).where(accounts.c.name_key.in_(account_keys(name))).order_by(accounts.c.id)).first()
        return (_account(r), str(r.password)) if r is not None else None

    def account_named(self, name: str) -> AccountRow | None:
        """The account of a name (by both its keys: names.account_keys), or None."""
        found = self.account_login(name)
        return found[0] if found is not None else None

    def older_account_names(self) -> list[str]:
        """The names of the accounts stored by the key of before (names.name_key, not
        names.account_keys' first): a new name is compared with these one by one."""
        with self.engine.connect() as conn:
            return [str(r[0]) for r in conn.execute(select(accounts.c.name).where(~accounts.c.name_key.startswith(KEY_MARK)))]

    def account_row(self, account_id: int) -> AccountRow | None:
        """The account of an id, or None."""
        with self.engine.connect() as conn:
            r = conn.execute(select(accounts).where(accounts.c.id == account_id)).first()
        return _account(r) if r is not None else None

    def account_password(self, account_id: int) -> str | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(accounts.c.password).where(accounts.c.id == account_id)).first()
        return str(r[0]) if r is not None else None

    def set_password(self, account_id: int, password_hash: str, now: float, keep: str | None = None, expected: str | None = None) -> bool:
        """A new password; every session of the account ends but ``keep`` (a new one).
        With ``expected``: only if the stored hash is still that one (compare and set, in
        one statement: of two changes from the same password, one wins on every database);
        False (nothing changed) if it is not."""
        self._still_there()
        q = update(accounts).where(accounts.c.id == account_id)
        if expected is not None:
            q = q.where(accounts.c.password == expected)
        with self._begin() as conn:
            if conn.execute(q.values(password=password_hash, password_changed=now)).rowcount != 1:
                return False
            q2 = delete(sessions).where(sessions.c.account_id == account_id)
            if keep is not None:
                q2 = q2.where(sessions.c.token_hash != keep)
            conn.execute(q2)
        return True

    def rehash_password(self, account_id: int, password_hash: str, old: str) -> None:
        """The same password hashed again (with today's parameters), if the stored hash is
        still ``old`` (not changed meanwhile); the sessions stay."""
        self._still_there()
        with self._begin() as conn:
            conn.execute(update(accounts).where(accounts.c.id == account_id, accounts.c.password == old).values(password=password_hash))

    def delete_account(self, account_id: int) -> list[tuple[str, int]]:
        """Delete an account, its sessions and its claim on its seats (the games stay);
        returns the seats that were its own."""
        self._still_there()
        with self._begin() as conn:
            owned = [
                (str(r.game_id), int(r.seat))
                for r in conn.execute(select(seat_owners.c.game_id, seat_owners.c.seat).where(seat_owners.c.account_id == account_id))
            ]
            conn.execute(delete(sessions).where(sessions.c.account_id == account_id))
            conn.execute(delete(seat_owners).where(seat_owners.c.account_id == account_id))
            self._forget_social(conn, account_id)  # follows, invitations (social.py)
            self.delete_moderation_of(conn, account_id)
            self.delete_mail_of(conn, account_id)  # its mail tokens and queued mail (storage/mail.py)
            self.delete_push_of(conn, account_id)  # its devices' push subscriptions (storage/push.py)
            conn.execute(delete(rating_events).where(rating_events.c.account_id == account_id))  # its rating and its history
            conn.execute(delete(ratings).where(ratings.c.account_id == account_id))
            conn.execute(delete(accounts).where(accounts.c.id == account_id))
        return owned

    # -- sessions ------------------------------------------------------------------

    def new_session(self, token_hash: str, account_id: int, now: float, expires: float, ending: str | None = None) -> None:
        """Store a session (its secret's hash); ``ending``: the session this one replaces
        (the browser's before it signed in), deleted in the same transaction. Sessions
        past their time are deleted on the way."""
        self._still_there()
        with self._begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.expires < now))
            if ending is not None:
                conn.execute(delete(sessions).where(sessions.c.token_hash == ending))
            conn.execute(insert(sessions).values(token_hash=token_hash, account_id=account_id, created=now, expires=expires))

    def session_account(self, token_hash: str, now: float) -> tuple[AccountRow, float | None, str] | None:
        """The account a session (by its secret's hash) is signed in to, if it has not
        expired, until when the account is suspended (None: it is not) and the operator's
        reason ("": none given)."""
        with self.engine.connect() as conn:
            r = conn.execute(_SESSION_ACCOUNT, {"h": token_hash, "now": now}).first()
        if r is None:
            return None
        return _account(r), None if r.suspended_until is None else float(r.suspended_until), r.suspended_reason or ""

    def end_session(self, token_hash: str) -> None:
        self._still_there()
        with self._begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.token_hash == token_hash))

    def end_sessions(self, account_id: int) -> None:
        """Every session of the account ends."""
        self._still_there()
        with self._begin() as conn:
            conn.execute(delete(sessions).where(sessions.c.account_id == account_id))

    def sessions_of(self, account_id: int) -> list[dict[str, float]]:
        """When each of an account's sessions began and ends (never their secrets)."""
        with self.engine.connect() as conn:
            rows = conn.execute(
                select(sessions.c.created, sessions.c.expires).where(sessions.c.account_id == account_id).order_by(sessions.c.created)
            )
            return [{"created": float(r.created), "expires": float(r.expires)} for r in rows]

    # -- seats ---------------------------------------------------------------------

    def attach_seats(self, account_id: int, seats: Iterable[tuple[str, int]], now: float) -> list[tuple[str, int]]:
        """The seats become the account's, those that belong to no account yet (a seat of
        another account stays its); returns those now the account's (also those that were).
        See :meth:`take_seats`."""
        return self.take_seats(account_id, seats, now)[0]

    def take_seats(
        self, account_id: int, seats: Iterable[tuple[str, int]], now: float
    ) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """:meth:`attach_seats`, and which of the seats became the account's by this call.

        At a rated table (the table option ``rated``) an account has one seat at most: a
        further seat of it stays nobody's. Checked in the transaction that takes the seat,
        with the game's row locked (PostgreSQL: several processes), so that two requests at
        once cannot give one account two seats of a rated table."""
        pairs = sorted(set(seats))
        if not pairs:
            return [], []
        self._still_there()
        with self._begin() as conn:
            return self._take_seats(conn, account_id, pairs, now)

    def bind_seats(
        self, account_id: int, seats: Iterable[tuple[str, int]], now: float
    ) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """:meth:`take_seats` of those seats not kept for another account by an invitation
        (social.py), and the account's own invitations to the seats it holds then end: all in
        one transaction (it was three, each its own trip to a thread: a quarter of what a
        signed-in person's hello cost the database). Returns what take_seats returns."""
        pairs = sorted(set(seats))
        if not pairs:
            return [], []
        self._still_there()
        if len(pairs) == 1:
            return self._bind_seat(account_id, *pairs[0], now)
        return self._bind_many(account_id, pairs, now)

    def _bind_many(self, account_id: int, pairs: list[tuple[str, int]], now: float) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """:meth:`bind_seats` of several seats (``pairs``: sorted, each once)."""
        with self._begin() as conn:
            kept = self._invited(conn, pairs)
            mine, new = self._take_seats(conn, account_id, [p for p in pairs if kept.get(p, account_id) == account_id], now)
            self._end_invitations(conn, account_id, [p for p in mine if p in kept])
        return mine, new

    def _bind_seat(self, account_id: int, game_id: str, seat: int, now: float) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """:meth:`bind_seats` of one seat (a hello's), the same in fewer and ready-made
        statements: an invitation of the seat, the game's options (its row locked on
        PostgreSQL), the account's seat at a rated table, the seat taken; who holds the seat
        is read only when it was not taken now."""
        pair = (game_id, seat)
        at = {"g": game_id, "s": seat, "a": account_id, "now": now}
        with self._begin() as conn:
            kept = conn.execute(_SEAT_INVITED, at).scalar()
            if kept is not None and int(kept) != account_id:
                return [], []  # kept for another account by an invitation
            locked = _GAME_OPTIONS_LOCKED if self.engine.dialect.name == "postgresql" else _GAME_OPTIONS
            rated = _rated(conn.execute(locked, at).scalar())
            held = conn.execute(_SEATS_OF_ACCOUNT_IN, at).scalar() if rated else None
            if held is None or int(held) == seat:  # (at a rated table: one seat each)
                if conn.execute(_TAKE_SEAT[self.engine.dialect.name], at).first() is not None:  # taken now
                    if kept is not None:
                        conn.execute(_END_INVITATION, at)
                    return [pair], [pair]
            owner = conn.execute(_SEAT_OWNER, at).scalar()
            if owner is None or int(owner) != account_id:
                return [], []
            if kept is not None:
                conn.execute(_END_INVITATION, at)
            return [pair], []

    def _take_seats(
        self, conn: Connection, account_id: int, pairs: list[tuple[str, int]], now: float
    ) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """:meth:`take_seats` in the transaction ``conn`` (``pairs``: sorted, each once)."""
        ins = pg_insert(seat_owners) if self.engine.dialect.name == "postgresql" else sqlite_insert(seat_owners)
        new: list[tuple[str, int]] = []
        rated = self._rated_locked(conn, sorted({g for g, _ in pairs}))
        held = {g: s for g, s in self._seats_of_account(conn, account_id, sorted(rated))}
        for g, s in pairs:
            if g in rated and held.get(g, s) != s:
                continue  # one seat of a rated table each
            r = conn.execute(
                ins.values(game_id=g, seat=s, account_id=account_id, since=now)
                .on_conflict_do_nothing(index_elements=["game_id", "seat"])
                .returning(seat_owners.c.seat)
            )
            if r.first() is not None:  # inserted now (rowcount is no sure sign of it on PostgreSQL)
                new.append((g, s))
                if g in rated:
                    held[g] = s
        mine = set(self._owned_among(conn, account_id, pairs))
        return [p for p in pairs if p in mine], new

    def _rated_locked(self, conn: Connection, ids: list[str]) -> set[str]:
        """Those of these games that are rated tables, their rows locked until the
        transaction ends (PostgreSQL; SQLite writes one transaction at a time anyway)."""
        out: set[str] = set()
        for i in range(0, len(ids), 200):
            q = select(games.c.id, games.c.options).where(games.c.id.in_(ids[i : i + 200])).order_by(games.c.id)
            if self.engine.dialect.name == "postgresql":
                q = q.with_for_update()
            out.update(str(r.id) for r in conn.execute(q) if _rated(r.options))
        return out

    def _seats_of_account(self, conn: Connection, account_id: int, ids: list[str]) -> Iterator[tuple[str, int]]:
        for i in range(0, len(ids), 200):
            q = select(seat_owners.c.game_id, seat_owners.c.seat).where(
                seat_owners.c.account_id == account_id, seat_owners.c.game_id.in_(ids[i : i + 200])
            )
            for r in conn.execute(q):
                yield (str(r.game_id), int(r.seat))

    def _owned_among(self, conn: Connection, account_id: int, pairs: list[tuple[str, int]]) -> Iterator[tuple[str, int]]:
        for i in range(0, len(pairs), 200):
            chunk = pairs[i : i + 200]
            q = select(seat_owners.c.game_id, seat_owners.c.seat).where(
                seat_owners.c.account_id == account_id, tuple_(seat_owners.c.game_id, seat_owners.c.seat).in_(chunk)
            )
            for r in conn.execute(q):
                yield (str(r.game_id), int(r.seat))

    def copy_owners(self, old_id: str, new_id: str, moved: dict[int, int], now: float) -> None:
        """The seats of game ``new_id`` belong to the accounts whose seats of ``old_id`` they
        follow ("Play again": ``moved`` is {old seat: new seat})."""
        for old, aid in self.game_owners(old_id).items():
            if old in moved:
                self.attach_seats(aid, [(new_id, moved[old])], now)

    def drop_seat_owner(self, game_id: str, seat: int, but: int | None = None) -> None:
        """The seat belongs to no account (claimed from the lobby: a new player's); ``but``:
        unless it is this account's."""
        self._still_there()
        where = and_(seat_owners.c.game_id == game_id, seat_owners.c.seat == seat)
        if but is not None:
            where = and_(where, seat_owners.c.account_id != but)
        with self._begin() as conn:
            conn.execute(delete(seat_owners).where(where))

    def release_seat(self, game_id: str, seat: int, account_id: int) -> None:
        """The seat is no longer the account's (it was kept for a claim that failed)."""
        self._still_there()
        with self._begin() as conn:
            conn.execute(
                delete(seat_owners).where(
                    and_(seat_owners.c.game_id == game_id, seat_owners.c.seat == seat, seat_owners.c.account_id == account_id)
                )
            )

    def game_owners(self, game_id: str) -> dict[int, int]:
        """The accounts a game's seats belong to: {seat: account id}."""
        q = select(seat_owners.c.seat, seat_owners.c.account_id).where(seat_owners.c.game_id == game_id)
        with self.engine.connect() as conn:
            return {int(r.seat): int(r.account_id) for r in conn.execute(q)}

    def seat_owner(self, game_id: str, seat: int) -> int | None:
        with self.engine.connect() as conn:
            r = conn.execute(
                select(seat_owners.c.account_id).where(and_(seat_owners.c.game_id == game_id, seat_owners.c.seat == seat))
            ).first()
        return int(r[0]) if r is not None else None

    def owned_seats(self, account_id: int, limit: int | None = MAX_OWNED) -> list[tuple[str, int]]:
        """The account's seats, newest first (``limit`` None: all of them)."""
        q = (
            select(seat_owners.c.game_id, seat_owners.c.seat)
            .where(seat_owners.c.account_id == account_id)
            .order_by(seat_owners.c.since.desc(), seat_owners.c.game_id, seat_owners.c.seat)
        )
        if limit is not None:
            q = q.limit(limit)
        with self.engine.connect() as conn:
            return [(str(r.game_id), int(r.seat)) for r in conn.execute(q)]

    def unfinished_seats(self, account_id: int) -> list[tuple[str, int]]:
        """The account's seats in games not over yet (open or running): those a suspension
        bars (kardinal.server.community.moderation)."""
        q = (
            select(seat_owners.c.game_id, seat_owners.c.seat)
            .join(games, games.c.id == seat_owners.c.game_id)
            .where(seat_owners.c.account_id == account_id, games.c.status.in_(("open", "running")))
            .order_by(seat_owners.c.game_id, seat_owners.c.seat)
        )
        with self.engine.connect() as conn:
            return [(str(r.game_id), int(r.seat)) for r in conn.execute(q)]

    def games_by_id(self, ids: Iterable[str]) -> dict[str, GameRow]:
        """The stored games of these ids (an unreadable one is left out)."""
        want = sorted(set(ids))
        out: dict[str, GameRow] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(want), 200):
                for r in conn.execute(select(games).where(games.c.id.in_(want[i : i + 200]))):
                    try:
                        out[str(r.id)] = _row(r)
                    except CorruptGame:
                        continue
        return out

    def seats_by_game(self, ids: Iterable[str]) -> dict[str, list[SeatRow]]:
        """Only the seats of these games (to check tokens without reading whole games)."""
        want = sorted(set(ids))
        out: dict[str, list[SeatRow]] = {}
        with self.engine.connect() as conn:
            for i in range(0, len(want), 200):
                for r in conn.execute(select(games.c.id, games.c.seats).where(games.c.id.in_(want[i : i + 200]))):
                    try:
                        out[str(r.id)] = [SeatRow(**s) for s in json.loads(r.seats)]
                    except (ValueError, TypeError):
                        continue
        return out

    def chat_of_seats(self, seats: Iterable[tuple[str, int]]) -> list[tuple[str, ChatLine]]:
        """What these seats wrote in their games' chats (an account's data)."""
        pairs = sorted(set(seats))
        out: list[tuple[str, ChatLine]] = []
        with self.engine.connect() as conn:
            for i in range(0, len(pairs), 200):
                q = (
                    select(chat)
                    .where(chat.c.kind == "say", tuple_(chat.c.game_id, chat.c.seat).in_(pairs[i : i + 200]))
                    .order_by(chat.c.game_id, chat.c.idx)
                )
                out += [(str(r.game_id), ChatLine(r.idx, r.at, r.version, r.seat, r.kind, r.name, r.text)) for r in conn.execute(q)]
        return out
