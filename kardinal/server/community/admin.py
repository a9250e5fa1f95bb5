"""The operator's work (``kardinal admin``): reports of chat lines, suspending, deleting an
account, a new password for an account, and the audit log of all of it.

Works on the database directly, also while servers run: what it changes of accounts
(sessions, suspension, a password) holds at once for every server process, because they
read those from the database on every request. What it changes of games' seats (a deleted
account's seats renamed "deleted player", the seats' tokens of its devices ended) is left
in the audit log as pending and done by a running server within seconds
(moderation.Moderation.apply_pending), or by the next one that starts.

Every action is written to the audit log with the operator's name (the system user
running the command, or ``--actor``); never a password or a token.
"""

from __future__ import annotations

import secrets
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from typing import Any

from ..storage import AccountRow, Storage
from ..storage.moderation import AuditEntry, Report
from .passwords import _hash

__all__ = ["Admin", "AdminError", "when"]


MAX_SUSPEND_REASON = 300  # characters of a suspension's reason, which its player is told


class AdminError(Exception):
    """What the operator asked cannot be done (no such account or report); says why."""


def when(t: float | None) -> str:
    return "-" if t is None else datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M UTC")


@dataclass
class Admin:
    storage: Storage
    actor: str

    def account(self, name: str) -> AccountRow:
        found = self.storage.account_named(name)
        if found is None:
            raise AdminError(f"there is no account {name!r}")
        return found

    def _report(self, report_id: int | None) -> Report | None:
        if report_id is None:
            return None
        r = self.storage.report_by_id(report_id)
        if r is None:
            raise AdminError(f"there is no report {report_id}")
        return r

    def _done(self, action: str, account: AccountRow | None, detail: dict[str, Any], report: Report | None, pending: bool = False) -> int:
        now = time.time()
        if report is not None:
            self.storage.close_report(report.id, "acted", now)
            detail = {**detail, "report": report.id}
        return self.storage.add_audit(self.actor, action, account.id if account else None, detail, now, pending)

    # -- reports -------------------------------------------------------------------------

    def reports(self, everything: bool = False) -> list[Report]:
        return self.storage.reports_list(None if everything else "open")

    def report(self, report_id: int) -> Report:
        r = self._report(report_id)
        assert r is not None
        return r

    def close(self, report_id: int, dismiss: bool) -> None:
        r = self.report(report_id)
        self.storage.close_report(r.id, "dismissed" if dismiss else "acted", time.time())
        self.storage.add_audit(self.actor, "dismiss" if dismiss else "close", r.account_id, {"report": r.id}, time.time())

    # -- accounts ------------------------------------------------------------------------

    def suspend(self, name: str, days: float, reason: str = "", report_id: int | None = None) -> float:
        """Suspend an account for ``days`` (its sessions open nothing until then; it cannot
        sign in or chat); ``reason`` is told to its owner when refused, also on the pages of
        a browser signed in to it (and kept in the audit log)."""
        if not 0 < days <= 36500:
            raise AdminError("days: more than 0, at most 36500")
        reason = " ".join(reason.split())
        if len(reason) > MAX_SUSPEND_REASON:
            raise AdminError(f"reason: at most {MAX_SUSPEND_REASON} characters (the player is told it)")
        account, report = self.account(name), self._report(report_id)
        until = time.time() + days * 86400
        self.storage.suspend(account.id, until, reason)
        seats = self.storage.unfinished_seats(account.id)  # barred by a running server (Moderation.apply_pending)
        detail = {"name": account.name, "until": until, "reason": reason, "seats": [list(s) for s in seats]}
        self._done("suspend", account, detail, report, pending=bool(seats))
        return until

    def unsuspend(self, name: str) -> None:
        account = self.account(name)
        self.storage.suspend(account.id, None)
        seats = self.storage.unfinished_seats(account.id)  # opened again by a running server
        self._done("unsuspend", account, {"name": account.name, "seats": [list(s) for s in seats]}, None, pending=bool(seats))

    def delete(self, name: str, reason: str = "", report_id: int | None = None) -> int:
        """Delete an account as its owner can (its games stay, its seats named "deleted
        player" by a running server); returns how many seats it had."""
        account, report = self.account(name), self._report(report_id)
        owned = self.storage.delete_account(account.id)
        self._done(
            "delete", account, {"name": account.name, "reason": reason, "seats": [list(s) for s in owned]}, report, pending=bool(owned)
        )
        return len(owned)

    def new_password(self, name: str) -> str:
        """A new random password for an account, to hand to its owner by a way you trust;
        every session ends, and (by a running server) its devices' seat tokens. Returned
        once, never stored or logged."""
        account = self.account(name)
        password = secrets.token_urlsafe(12)
        self.storage.set_password(account.id, _hash(password), time.time(), None)
        seats = self.storage.owned_seats(account.id, None)
        self._done("new_password", account, {"name": account.name, "seats": [list(s) for s in seats]}, None, pending=bool(seats))
        return password

    def audit(self, limit: int = 50) -> list[AuditEntry]:
        return self.storage.audit_log(limit)
