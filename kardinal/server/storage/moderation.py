"""Moderation in the database (migration 10): the players an account muted or blocked,
reported chat lines with their context, suspensions, and the operator's audit log."""

from __future__ import annotations

import json
from collections.abc import Iterable
from contextlib import AbstractContextManager
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from sqlalchemy import Connection, Engine, and_, delete, insert, or_, select, update
from sqlalchemy.exc import IntegrityError

from .schema import accounts, audit, blocks, chat, mutes, reports, seat_owners

__all__ = ["ModerationStorage", "Report", "AuditEntry"]

CONTEXT = 5  # chat lines kept on each side of a reported one


@dataclass(frozen=True)
class Report:
    id: int
    at: float
    reporter_id: int | None
    reporter_name: str
    game_id: str
    line: int
    seat: int | None
    account_id: int | None  # the writer's account, if the seat had one
    name: str
    text: str
    context: list[dict[str, Any]]
    reason: str
    status: str
    closed: float | None


@dataclass(frozen=True)
class AuditEntry:
    id: int
    at: float
    actor: str
    action: str
    account_id: int | None
    detail: dict[str, Any]
    pending: bool


def _report(r: Any) -> Report:
    return Report(
        int(r.id),
        float(r.at),
        None if r.reporter_id is None else int(r.reporter_id),
        str(r.reporter_name),
        str(r.game_id),
        int(r.line),
        None if r.seat is None else int(r.seat),
        None if r.account_id is None else int(r.account_id),
        str(r.name),
        str(r.text),
        json.loads(r.context),
        str(r.reason),
        str(r.status),
        None if r.closed is None else float(r.closed),
    )


class ModerationStorage:
    """The moderation's part of :class:`Storage`."""

    engine: Engine

    if TYPE_CHECKING:

        def _begin(self) -> AbstractContextManager[Connection]: ...  # database.py
        def _still_there(self) -> None: ...  # database.py

    # -- mutes and blocks ------------------------------------------------------------

    def _pair(self, table: Any, col: str, account_id: int, other_id: int, on: bool, now: float) -> None:
        self._still_there()
        with self._begin() as conn:
            if on:
                try:
                    with conn.begin_nested():
                        conn.execute(insert(table).values(account_id=account_id, **{col: other_id}, since=now))
                except IntegrityError:
                    pass  # already
            else:
                conn.execute(delete(table).where(table.c.account_id == account_id, table.c[col] == other_id))

    def set_mute(self, account_id: int, muted_id: int, on: bool, now: float) -> None:
        self._pair(mutes, "muted_id", account_id, muted_id, on, now)

    def set_block(self, account_id: int, blocked_id: int, on: bool, now: float) -> None:
        self._pair(blocks, "blocked_id", account_id, blocked_id, on, now)

    def muted_and_blocked(self, account_id: int) -> tuple[list[tuple[int, str]], list[tuple[int, str]]]:
        """The accounts an account muted and those it blocked: (id, name), by name."""
        out: list[list[tuple[int, str]]] = []
        with self.engine.connect() as conn:
            for table, col in ((mutes, mutes.c.muted_id), (blocks, blocks.c.blocked_id)):
                q = select(accounts.c.id, accounts.c.name).join(table, col == accounts.c.id).where(table.c.account_id == account_id)
                out.append(sorted(((int(r.id), str(r.name)) for r in conn.execute(q)), key=lambda x: x[1].casefold()))
        return out[0], out[1]

    def silenced_seats(self, account_id: int, game_id: str) -> tuple[list[int], list[int]]:
        """The seats of a game whose accounts this account muted, and those it blocked
        (their chat is hidden from it), each by seat."""
        owners = select(seat_owners.c.seat, seat_owners.c.account_id).where(seat_owners.c.game_id == game_id).subquery()
        out: list[list[int]] = []
        with self.engine.connect() as conn:
            for table, col in ((mutes, mutes.c.muted_id), (blocks, blocks.c.blocked_id)):
                them = select(col).where(table.c.account_id == account_id)
                q = select(owners.c.seat).where(owners.c.account_id.in_(them)).order_by(owners.c.seat)
                out.append([int(r.seat) for r in conn.execute(q)])
        return out[0], out[1]

    def blocked_between(self, ids: Iterable[int], others: Iterable[int]) -> bool:
        """Whether any account of ``ids`` blocked any of ``others``, or the other way round
        (no invitation between them; "find me a table" does not seat them together)."""
        a, b = sorted(set(ids)), sorted(set(others))
        if not a or not b:
            return False
        q = select(blocks.c.account_id).where(
            or_(and_(blocks.c.account_id.in_(a), blocks.c.blocked_id.in_(b)), and_(blocks.c.account_id.in_(b), blocks.c.blocked_id.in_(a)))
        )
        with self.engine.connect() as conn:
            return conn.execute(q.limit(1)).first() is not None

    # -- reports ---------------------------------------------------------------------

    def add_report(self, reporter_id: int | None, reporter_name: str, game_id: str, line: int, reason: str, now: float) -> Report | None:
        """Store a report of a chat line (a player's "say") with the lines around it as they
        are now and the writer's account, if any; None if there is no such line. One report
        of a line per reporter: a second returns the first."""
        self._still_there()
        with self._begin() as conn:
            said = conn.execute(select(chat).where(chat.c.game_id == game_id, chat.c.idx == line, chat.c.kind == "say")).first()
            if said is None:
                return None
            if reporter_id is not None:
                had = conn.execute(
                    select(reports).where(reports.c.game_id == game_id, reports.c.line == line, reports.c.reporter_id == reporter_id)
                ).first()
                if had is not None:
                    return _report(had)
            around = conn.execute(
                select(chat)
                .where(chat.c.game_id == game_id, chat.c.idx >= line - CONTEXT, chat.c.idx <= line + CONTEXT)
                .order_by(chat.c.idx)
            )
            context = [{"idx": r.idx, "at": r.at, "seat": r.seat, "kind": r.kind, "name": r.name, "text": r.text} for r in around]
            owner = None
            if said.seat is not None:
                o = conn.execute(
                    select(seat_owners.c.account_id).where(seat_owners.c.game_id == game_id, seat_owners.c.seat == said.seat)
                ).first()
                owner = None if o is None else int(o[0])
            values = {
                "at": now,
                "reporter_id": reporter_id,
                "reporter_name": reporter_name,
                "game_id": game_id,
                "line": line,
                "seat": said.seat,
                "account_id": owner,
                "name": said.name,
                "text": said.text,
                "context": json.dumps(context),
                "reason": reason,
                "status": "open",
                "closed": None,
            }
            rid = int(conn.execute(insert(reports).values(**values).returning(reports.c.id)).scalar_one())
            r = conn.execute(select(reports).where(reports.c.id == rid)).one()
        return _report(r)

    def reports_list(self, status: str | None = "open", limit: int = 200) -> list[Report]:
        q = select(reports).order_by(reports.c.at).limit(limit)
        if status is not None:
            q = q.where(reports.c.status == status)
        with self.engine.connect() as conn:
            return [_report(r) for r in conn.execute(q)]

    def report_by_id(self, report_id: int) -> Report | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(reports).where(reports.c.id == report_id)).first()
        return None if r is None else _report(r)

    def reports_by(self, reporter_id: int) -> list[Report]:
        with self.engine.connect() as conn:
            return [_report(r) for r in conn.execute(select(reports).where(reports.c.reporter_id == reporter_id).order_by(reports.c.at))]

    def close_report(self, report_id: int, status: str, now: float) -> bool:
        self._still_there()
        with self._begin() as conn:
            r = conn.execute(update(reports).where(reports.c.id == report_id).values(status=status, closed=now))
        return bool(r.rowcount)

    # -- the operator's actions -----------------------------------------------------------

    def suspension(self, account_id: int) -> tuple[float, str] | None:
        """Until when an account is suspended and the operator's reason ("": none given);
        None: it never was, or the suspension was lifted."""
        q = select(accounts.c.suspended_until, accounts.c.suspended_reason).where(accounts.c.id == account_id)
        with self.engine.connect() as conn:
            r = conn.execute(q).first()
        return None if r is None or r[0] is None else (float(r[0]), r[1] or "")

    def suspended_seats(self, game_id: str, now: float) -> dict[int, tuple[float, str]]:
        """The seats of a game whose accounts are suspended at ``now``: until when, and why."""
        q = (
            select(seat_owners.c.seat, accounts.c.suspended_until, accounts.c.suspended_reason)
            .join(accounts, seat_owners.c.account_id == accounts.c.id)
            .where(seat_owners.c.game_id == game_id, accounts.c.suspended_until > now)
        )
        with self.engine.connect() as conn:
            return {int(r[0]): (float(r[1]), r[2] or "") for r in conn.execute(q)}

    def seat_suspended(self, game_id: str, seat: int, now: float) -> tuple[float, str] | None:
        """Until when the account a seat belongs to is suspended, and why (None: not, or no account)."""
        q = (
            select(accounts.c.suspended_until, accounts.c.suspended_reason)
            .join(seat_owners, seat_owners.c.account_id == accounts.c.id)
            .where(seat_owners.c.game_id == game_id, seat_owners.c.seat == seat, accounts.c.suspended_until > now)
        )
        with self.engine.connect() as conn:
            r = conn.execute(q).first()
        return None if r is None else (float(r[0]), r[1] or "")

    def suspend(self, account_id: int, until: float | None, reason: str = "") -> None:
        """Suspend an account until a time, for a reason its owner is told (``until`` None:
        lift it). Its sessions stay: refused while it is suspended, their holder told so
        (Accounts.session_of); they open the account again once the suspension ends or is
        lifted, until they expire as they would have."""
        self._still_there()
        with self._begin() as conn:
            kept = reason if until is not None and reason else None
            conn.execute(update(accounts).where(accounts.c.id == account_id).values(suspended_until=until, suspended_reason=kept))

    def add_audit(self, actor: str, action: str, account_id: int | None, detail: dict[str, Any], now: float, pending: bool = False) -> int:
        self._still_there()
        with self._begin() as conn:
            r = conn.execute(
                insert(audit)
                .values(at=now, actor=actor, action=action, account_id=account_id, detail=json.dumps(detail), pending=pending)
                .returning(audit.c.id)
            )
            return int(r.scalar_one())

    def audit_log(self, limit: int = 100, pending_only: bool = False) -> list[AuditEntry]:
        q = select(audit).order_by(audit.c.id.desc()).limit(limit)
        if pending_only:
            q = select(audit).where(audit.c.pending.is_(True)).order_by(audit.c.id).limit(limit)
        with self.engine.connect() as conn:
            return [
                AuditEntry(int(r.id), float(r.at), str(r.actor), str(r.action), r.account_id, json.loads(r.detail), bool(r.pending))
                for r in conn.execute(q)
            ]

    def audit_done(self, entry_id: int) -> bool:
        """Mark an entry's work done; True for the one caller that did (several processes)."""
        self._still_there()
        with self._begin() as conn:
            r = conn.execute(update(audit).where(audit.c.id == entry_id, audit.c.pending.is_(True)).values(pending=False))
        return bool(r.rowcount)

    def delete_moderation_of(self, conn: Connection, account_id: int) -> None:
        """An account deleted: its mutes and blocks, both ways (its reports stay, without it)."""
        for table, col in ((mutes, mutes.c.muted_id), (blocks, blocks.c.blocked_id)):
            conn.execute(delete(table).where(or_(table.c.account_id == account_id, col == account_id)))
        conn.execute(update(reports).where(reports.c.reporter_id == account_id).values(reporter_id=None))
        conn.execute(update(reports).where(reports.c.account_id == account_id).values(account_id=None))
