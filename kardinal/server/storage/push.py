"""Web Push in the database: each device's subscription (its push service's address and
keys, the kinds of notification it wants, its language) and the installation's VAPID key.

The pushes themselves wait in the mail queue (storage/mail.py: ``channel = "push"``, the
subscription's id in ``to_addr``), claimed and marked sent as mail is: one queue, one
claim/lease, nothing lost across a restart, nothing sent twice.

The VAPID key is made once per installation: the first process that needs it inserts one
(``ON CONFLICT DO NOTHING``) and every process then reads the one stored, so that all
processes of an installation sign with the same key and the browsers' subscriptions (made
for its public key) keep working.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, delete, select
from sqlalchemy.dialects.postgresql import insert as pg_insert
from sqlalchemy.dialects.sqlite import insert as sqlite_insert

from .schema import install_keys, push_subscriptions, seat_owners

__all__ = ["PushStorage", "PushSubscription"]


@dataclass(frozen=True)
class PushSubscription:
    """A device's subscription: its push service's ``endpoint`` and keys (``p256dh``,
    ``auth``: base64url, as the browser gives them), the ``kinds`` it wants, its ``lang``."""

    id: int
    account_id: int
    endpoint: str
    p256dh: str
    auth: str
    kinds: frozenset[str]
    lang: str
    created: float


def _kinds(text: str) -> frozenset[str]:
    try:
        out = json.loads(text)
    except ValueError:
        return frozenset()
    return frozenset(k for k in out if isinstance(k, str)) if isinstance(out, list) else frozenset()


def _row(r: object) -> PushSubscription:
    m = r._mapping  # type: ignore[attr-defined]
    return PushSubscription(
        int(m["id"]),
        int(m["account_id"]),
        str(m["endpoint"]),
        str(m["p256dh"]),
        str(m["auth"]),
        _kinds(str(m["kinds"])),
        str(m["lang"]),
        float(m["created"]),
    )


class PushStorage:
    """Web Push's part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py
        def _still_there(self) -> None: ...  # database.py

    def _upsert(self) -> Any:
        """This database's INSERT with ON CONFLICT."""
        return pg_insert if self.engine.dialect.name == "postgresql" else sqlite_insert

    # -- the installation's key ------------------------------------------------------

    def install_key(self, name: str, make: Callable[[], str], now: float) -> str:
        """The installation's key ``name``: the stored one, or ``make()``'s stored now if
        there is none (a key made at the same time by another process loses: every
        process returns the one stored first)."""
        with self.engine.connect() as conn:
            found = conn.execute(select(install_keys.c.value).where(install_keys.c.name == name)).scalar_one_or_none()
        if found is not None:
            return str(found)
        with self._begin() as conn:
            ins = self._upsert()(install_keys).values(name=name, value=make(), created=now)
            conn.execute(ins.on_conflict_do_nothing(index_elements=["name"]))
            return str(conn.execute(select(install_keys.c.value).where(install_keys.c.name == name)).scalar_one())

    # -- subscriptions ---------------------------------------------------------------

    def save_push_subscription(
        self, account_id: int, endpoint: str, p256dh: str, auth: str, kinds: list[str], lang: str, now: float
    ) -> PushSubscription:
        """A device subscribes (or changes what it wants): one row per endpoint, the
        account's that subscribed it last (a device signed in to another account)."""
        self._still_there()
        values = {"account_id": account_id, "p256dh": p256dh, "auth": auth, "kinds": json.dumps(sorted(kinds)), "lang": lang}
        with self._begin() as conn:
            ins = self._upsert()(push_subscriptions).values(endpoint=endpoint, created=now, **values)
            conn.execute(ins.on_conflict_do_update(index_elements=["endpoint"], set_=values))
            r = conn.execute(select(push_subscriptions).where(push_subscriptions.c.endpoint == endpoint)).one()
        return _row(r)

    def push_subscription(self, sub_id: int) -> PushSubscription | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(push_subscriptions).where(push_subscriptions.c.id == sub_id)).first()
        return None if r is None else _row(r)

    def push_subscription_of(self, account_id: int, endpoint: str) -> PushSubscription | None:
        """The account's subscription of this endpoint (a device asking what it has)."""
        q = select(push_subscriptions).where(push_subscriptions.c.account_id == account_id, push_subscriptions.c.endpoint == endpoint)
        with self.engine.connect() as conn:
            r = conn.execute(q).first()
        return None if r is None else _row(r)

    def push_subscriptions_of(self, account_id: int) -> list[PushSubscription]:
        q = select(push_subscriptions).where(push_subscriptions.c.account_id == account_id).order_by(push_subscriptions.c.id)
        with self.engine.connect() as conn:
            return [_row(r) for r in conn.execute(q)]

    def unsubscribe_push(self, account_id: int, endpoint: str) -> bool:
        """The account's device unsubscribes; True if it had a subscription."""
        q = delete(push_subscriptions).where(push_subscriptions.c.account_id == account_id, push_subscriptions.c.endpoint == endpoint)
        with self._begin() as conn:
            return bool(conn.execute(q).rowcount)

    def drop_push_subscription(self, sub_id: int) -> None:
        """The push service said a subscription is gone (404, 410): it goes."""
        with self._begin() as conn:
            conn.execute(delete(push_subscriptions).where(push_subscriptions.c.id == sub_id))

    def push_wishes(self, game_id: str, seats: list[int]) -> dict[int, tuple[int, list[PushSubscription]]]:
        """The seats of a game whose accounts have push subscriptions: {seat: (account, its subscriptions)}."""
        q = (
            select(seat_owners.c.seat, push_subscriptions)
            .join(push_subscriptions, push_subscriptions.c.account_id == seat_owners.c.account_id)
            .where(seat_owners.c.game_id == game_id, seat_owners.c.seat.in_(seats))
            .order_by(push_subscriptions.c.id)
        )
        out: dict[int, tuple[int, list[PushSubscription]]] = {}
        with self.engine.connect() as conn:
            for r in conn.execute(q):
                sub = _row(r)
                out.setdefault(int(r.seat), (sub.account_id, []))[1].append(sub)
        return out

    def delete_push_of(self, conn: Connection, account_id: int) -> None:
        """An account's subscriptions go (an account deleted), in ``conn``'s transaction
        (its queued pushes go with its queued mail: storage/mail.py)."""
        conn.execute(delete(push_subscriptions).where(push_subscriptions.c.account_id == account_id))
