"""Mail in the database: an account's address and what it wants mailed, the single-use
tokens sent by mail (only their SHA-256), and the mail queue (kardinal.server.mail).

A mail is queued once: the queue's ``key`` is unique, so a mail queued again (another
process, a retry, the same turn seen twice) is the same row. A sender claims one row at a
time (``claimed_until``; on PostgreSQL ``FOR UPDATE SKIP LOCKED``, so that several
processes never take the same row), and marks it sent as soon as the mail server accepted
it; a sent row keeps its key and when, not its address or its text.

An address's budget (``mail_sends``): each confirmation mailed to an address is a row of
the SHA-256 of the address and when; a new one is refused (:class:`AddressBudgetSpent`)
while the rows within a window are as many as its limit, whichever account asks and in
whichever process (on PostgreSQL an advisory lock per address makes the count and the
new row one step).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, and_, delete, func, insert, or_, select, text, update
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from ..common import metrics
from ..common.names import account_keys
from .schema import ADDRESS_LOCK, accounts, mail_queue, mail_sends, mail_tokens, seat_owners


def address_hash(email: str) -> str:
    """What ``mail_sends`` keeps of an address: the SHA-256 of it in lower case."""
    return hashlib.sha256(email.lower().encode("utf-8")).hexdigest()


class AddressBudgetSpent(Exception):
    """An address had as many mails of a kind as its limits allow; ``retry``: seconds
    until one more fits."""

    def __init__(self, retry: float) -> None:
        super().__init__(f"try again in {retry:.0f} s")
        self.retry = retry


@dataclass(frozen=True)
class MailAddress:
    """An account's address (None: none), whether it is confirmed, and its ``notify`` JSON."""

    email: str | None
    confirmed: bool
    notify: dict[str, Any]


@dataclass(frozen=True)
class QueuedMail:
    """A mail to queue (``body``: JSON-able parts, rendered when it is sent)."""

    key: str
    account_id: int | None
    kind: str
    to_addr: str
    subject: str
    body: dict[str, Any]
    send_after: float
    channel: str = "mail"  # or "push": to_addr is a push subscription's id (storage/push.py)


@dataclass(frozen=True)
class ClaimedMail:
    id: int
    key: str
    account_id: int | None
    kind: str
    to_addr: str
    subject: str
    body: dict[str, Any]
    attempts: int
    claimed_until: float


def _notify(text: str | None) -> dict[str, Any]:
    try:
        out = json.loads(text or "{}")
    except ValueError:
        return {}
    return out if isinstance(out, dict) else {}


class MailStorage:
    """The mail's part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py
        def _still_there(self) -> None: ...  # database.py

    def _insert_mail(self, conn: Connection, m: QueuedMail, now: float) -> bool:
        """Queue ``m`` unless a mail of its key is queued (or was sent); True if queued."""
        ins = pg_insert(mail_queue) if self.engine.dialect.name == "postgresql" else sqlite_insert(mail_queue)
        r = conn.execute(
            ins.values(
                key=m.key,
                account_id=m.account_id,
                kind=m.kind,
                to_addr=m.to_addr,
                subject=m.subject,
                body=json.dumps(m.body),
                created=now,
                send_after=m.send_after,
                attempts=0,
                channel=m.channel,
            ).on_conflict_do_nothing(index_elements=["key"])
        )
        if r.rowcount:
            metrics.notification_queued(m.channel, m.kind)
        return bool(r.rowcount)

    def _lock_address(self, conn: Connection, to_hash: str) -> None:
        """Hold the address's lock until ``conn``'s transaction ends (PostgreSQL; SQLite's
        writes are one at a time already)."""
        if self.engine.dialect.name == "postgresql":
            key = int.from_bytes(bytes.fromhex(to_hash[:8]), "big", signed=True)
            conn.execute(text("SELECT pg_advisory_xact_lock(:c, :k)"), {"c": ADDRESS_LOCK, "k": key})

    def _spend_address(self, conn: Connection, email: str, kind: str, now: float, limits: Sequence[tuple[int, float]]) -> None:
        """Count one mail of ``kind`` to ``email`` in ``conn``'s transaction; AddressBudgetSpent
        (nothing counted) when ``limits`` ((how many, in how many seconds), ...) are reached."""
        h = address_hash(email)
        self._lock_address(conn, h)
        longest = max((seconds for _n, seconds in limits), default=0.0)
        q = select(mail_sends.c.at).where(mail_sends.c.to_hash == h, mail_sends.c.kind == kind, mail_sends.c.at > now - longest)
        times = sorted(float(t) for t in conn.execute(q).scalars())
        waits = [
            inside[len(inside) - n] + seconds - now for n, seconds in limits if len(inside := [t for t in times if t > now - seconds]) >= n
        ]
        if waits:
            raise AddressBudgetSpent(max(1.0, max(waits)))
        conn.execute(insert(mail_sends).values(to_hash=h, kind=kind, at=now))

    def forget_mail_sends(self, before: float) -> int:
        """Rows of ``mail_sends`` from before ``before`` go (outside every window); returns how many."""
        with self._begin() as conn:
            return int(conn.execute(delete(mail_sends).where(mail_sends.c.at < before)).rowcount)

    def mail_sends_to(self, email: str, kind: str, since: float) -> int:
        """How many mails of ``kind`` went to ``email`` since ``since`` (operations and tests)."""
        q = (
            select(func.count())
            .select_from(mail_sends)
            .where(mail_sends.c.to_hash == address_hash(email), mail_sends.c.kind == kind, mail_sends.c.at >= since)
        )
        with self.engine.connect() as conn:
            return int(conn.execute(q).scalar_one())

    # -- addresses -------------------------------------------------------------------

    def mail_address(self, account_id: int) -> MailAddress | None:
        """The account's address and wishes (None: no such account)."""
        with self.engine.connect() as conn:
            r = conn.execute(
                select(accounts.c.email, accounts.c.email_confirmed, accounts.c.notify).where(accounts.c.id == account_id)
            ).first()
        return None if r is None else MailAddress(r.email, bool(r.email_confirmed), _notify(r.notify))

    def set_mail_address(
        self,
        account_id: int,
        email: str | None,
        notify: dict[str, Any],
        token_hash: str | None,
        now: float,
        expires: float,
        mail: QueuedMail | None,
        limits: Sequence[tuple[int, float]] = (),
    ) -> None:
        """A new address (unconfirmed; None: none), the account's wishes, and in the same
        transaction: the account's tokens before end, the confirmation's token is stored
        (its hash) and its mail queued, counted against the address's budget (``limits``:
        AddressBudgetSpent, and nothing changes, when it is spent)."""
        self._still_there()
        with self._begin() as conn:
            if mail is not None:
                self._spend_address(conn, mail.to_addr, mail.kind, now, limits)
            conn.execute(
                update(accounts).where(accounts.c.id == account_id).values(email=email, email_confirmed=False, notify=json.dumps(notify))
            )
            conn.execute(delete(mail_tokens).where(mail_tokens.c.account_id == account_id))
            # mail not yet sent to the address before is not sent (its wishes ended with it)
            conn.execute(delete(mail_queue).where(mail_queue.c.account_id == account_id, mail_queue.c.sent.is_(None)))
            if token_hash is not None and email is not None:
                conn.execute(
                    insert(mail_tokens).values(
                        token_hash=token_hash, account_id=account_id, kind="confirm", email=email, created=now, expires=expires
                    )
                )
            if mail is not None:
                self._insert_mail(conn, mail, now)

    def update_notify(self, account_id: int, changes: dict[str, Any]) -> None:
        """Set some of an account's mail wishes, the others kept: read and written in one
        transaction with the row locked (PostgreSQL; SQLite writes one at a time), so two
        boxes ticked at once both stay ticked."""
        self._still_there()
        with self._begin() as conn:
            q = select(accounts.c.notify).where(accounts.c.id == account_id)
            if self.engine.dialect.name == "postgresql":
                q = q.with_for_update()
            r = conn.execute(q).first()
            if r is None:
                return
            notify = {**_notify(r.notify), **changes}
            conn.execute(update(accounts).where(accounts.c.id == account_id).values(notify=json.dumps(notify)))

    def accounts_by_address(self, email: str, limit: int = 5) -> list[tuple[int, str, str, dict[str, Any]]]:
        """The accounts whose confirmed address is ``email`` (case aside): (id, name, address, notify)."""
        q = (
            select(accounts.c.id, accounts.c.name, accounts.c.email, accounts.c.notify)
            .where(func.lower(accounts.c.email) == email.lower(), accounts.c.email_confirmed.is_(True))
            .order_by(accounts.c.id)
            .limit(limit)
        )
        with self.engine.connect() as conn:
            return [(int(r.id), str(r.name), str(r.email), _notify(r.notify)) for r in conn.execute(q)]

    def mail_account_by_key(self, name_key: str) -> tuple[int, str, str | None, bool, dict[str, Any]] | None:
        """(id, name, address, confirmed, notify) of the account of a name (or its key:
        names.account_keys finds it by both of its keys)."""
        with self.engine.connect() as conn:
            r = conn.execute(
                select(accounts.c.id, accounts.c.name, accounts.c.email, accounts.c.email_confirmed, accounts.c.notify)
                .where(accounts.c.name_key.in_(account_keys(name_key)))
                .order_by(accounts.c.id)
            ).first()
        return None if r is None else (int(r.id), str(r.name), r.email, bool(r.email_confirmed), _notify(r.notify))

    def mail_wishes(self, game_id: str, seats: list[int]) -> dict[int, tuple[int, str, str, dict[str, Any]]]:
        """The seats of a game whose accounts have a confirmed address: {seat: (account,
        name, address, notify)}."""
        q = (
            select(seat_owners.c.seat, accounts.c.id, accounts.c.name, accounts.c.email, accounts.c.notify)
            .join(accounts, accounts.c.id == seat_owners.c.account_id)
            .where(seat_owners.c.game_id == game_id, seat_owners.c.seat.in_(seats), accounts.c.email_confirmed.is_(True))
        )
        with self.engine.connect() as conn:
            return {int(r.seat): (int(r.id), str(r.name), str(r.email), _notify(r.notify)) for r in conn.execute(q) if r.email}

    # -- tokens ----------------------------------------------------------------------

    def store_reset(self, account_id: int, email: str, token_hash: str, now: float, expires: float, mail: QueuedMail) -> bool:
        """A reset token (its hash) and its mail, in one transaction, unless a reset link
        mailed to the account at ``email`` still works (unused, not expired): then nothing
        (False), and that mail is the one to use. The account's reset tokens before end."""
        self._still_there()
        with self._begin() as conn:
            self._lock_address(conn, address_hash(email))
            live = conn.execute(
                select(func.count())
                .select_from(mail_tokens)
                .where(
                    mail_tokens.c.account_id == account_id,
                    mail_tokens.c.kind == "reset",
                    mail_tokens.c.email == email,
                    mail_tokens.c.used.is_(None),
                    mail_tokens.c.expires > now,
                )
            ).scalar_one()
            if live:
                return False
            conn.execute(delete(mail_tokens).where(mail_tokens.c.account_id == account_id, mail_tokens.c.kind == "reset"))
            conn.execute(delete(mail_tokens).where(mail_tokens.c.expires < now))
            conn.execute(
                insert(mail_tokens).values(
                    token_hash=token_hash, account_id=account_id, kind="reset", email=email, created=now, expires=expires
                )
            )
            self._insert_mail(conn, mail, now)
            return True

    def use_token(self, token_hash: str, kind: str, now: float) -> int | None:
        """Use a token once: the account it is for, or None (no such token, used, expired,
        or for an address the account no longer has). A confirmation confirms the address
        in the same transaction."""
        self._still_there()
        with self._begin() as conn:
            r = conn.execute(
                update(mail_tokens)
                .where(
                    mail_tokens.c.token_hash == token_hash,
                    mail_tokens.c.kind == kind,
                    mail_tokens.c.used.is_(None),
                    mail_tokens.c.expires > now,
                )
                .values(used=now)
                .returning(mail_tokens.c.account_id, mail_tokens.c.email)
            ).first()
            if r is None:
                return None
            aid, email = int(r.account_id), str(r.email)
            if kind == "confirm":
                done = conn.execute(
                    update(accounts).where(accounts.c.id == aid, accounts.c.email == email).values(email_confirmed=True)
                ).rowcount
            else:
                done = conn.execute(
                    select(func.count())
                    .select_from(accounts)
                    .where(accounts.c.id == aid, accounts.c.email == email, accounts.c.email_confirmed.is_(True))
                ).scalar_one()
            return aid if done else None

    # -- the queue -------------------------------------------------------------------

    def queue_mail(self, mail: QueuedMail, now: float) -> bool:
        """Queue a mail unless its key was queued before; True if queued now."""
        self._still_there()
        with self._begin() as conn:
            return self._insert_mail(conn, mail, now)

    def claim_mail(self, now: float, lease: float, max_attempts: int, channel: str = "mail") -> ClaimedMail | None:
        """The next mail due (oldest first) of ``channel`` ("mail", "push"), claimed until
        ``now + lease`` so that no other sender takes it meanwhile; None when none is due."""
        self._still_there()
        due = and_(
            mail_queue.c.channel == channel,
            mail_queue.c.sent.is_(None),
            mail_queue.c.send_after <= now,
            mail_queue.c.attempts < max_attempts,
            or_(mail_queue.c.claimed_until.is_(None), mail_queue.c.claimed_until < now),
        )
        q = select(mail_queue).where(due).order_by(mail_queue.c.send_after, mail_queue.c.id).limit(1)
        if self.engine.dialect.name == "postgresql":
            q = q.with_for_update(skip_locked=True)
        until = now + lease
        with self._begin() as conn:
            r = conn.execute(q).first()
            if r is None:
                return None
            conn.execute(update(mail_queue).where(mail_queue.c.id == r.id).values(claimed_until=until))
        try:
            body = json.loads(r.body)
        except ValueError:
            body = {}
        return ClaimedMail(int(r.id), str(r.key), r.account_id, str(r.kind), str(r.to_addr), str(r.subject), body, int(r.attempts), until)

    def mail_sent(self, mail_id: int, now: float) -> None:
        """Sent: the row keeps its key (no second mail of it) and when; its address and text go."""
        with self._begin() as conn:
            conn.execute(
                update(mail_queue)
                .where(mail_queue.c.id == mail_id)
                .values(sent=now, claimed_until=None, to_addr="", subject="", body="{}", failed=None)
            )

    def mail_failed(self, mail_id: int, attempts: int, retry_at: float, error: str) -> None:
        """A try failed: tried again at ``retry_at`` (never once ``attempts`` reached the
        sender's maximum); ``error`` names what failed, never the address."""
        with self._begin() as conn:
            conn.execute(
                update(mail_queue)
                .where(mail_queue.c.id == mail_id)
                .values(attempts=attempts, send_after=retry_at, claimed_until=None, failed=error[:300])
            )

    def mail_row(self, key: str) -> dict[str, Any] | None:
        """A queued mail's row by its key (operations and tests)."""
        with self.engine.connect() as conn:
            r = conn.execute(select(mail_queue).where(mail_queue.c.key == key)).first()
        return None if r is None else dict(r._mapping)

    def forget_sent_mail(self, before: float) -> int:
        """Rows of mail sent before ``before`` go (their keys kept no turn from a second mail
        long enough); returns how many."""
        with self._begin() as conn:
            return int(conn.execute(delete(mail_queue).where(mail_queue.c.sent.is_not(None), mail_queue.c.sent < before)).rowcount)

    def delete_mail_of(self, conn: Connection, account_id: int) -> None:
        """An account's tokens and its queued mail go (an account deleted), in ``conn``'s transaction."""
        conn.execute(delete(mail_tokens).where(mail_tokens.c.account_id == account_id))
        conn.execute(delete(mail_queue).where(and_(mail_queue.c.account_id == account_id)))
