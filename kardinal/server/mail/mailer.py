"""The server's mail: an account's address (confirmed by a link), a new password by mail,
what an account wants mailed and its one-click unsubscribe; every mail goes through the
queue in the database (storage/mail.py) and is sent by :mod:`.sender`.

Tokens sent by mail are random (256 bits), single use and short-lived; the database keeps
their SHA-256 only. The links carry them in the URL's fragment (``/mail#reset=...``),
which a browser never sends: the page posts them. A mail waiting in the queue holds its
text, links included, until it is sent (then its address and text are blanked); a reset
link in it works for RESET_MINUTES.

How often an address is mailed (the docs' "Mail" in operations.md says the same):

- A confirmation: the account's budget (the guard's ``mail_account``, per account, 3 an
  hour and 10 a day) and the address's (the guard's ``mail_address`` limits, 3 an hour
  and 10 a day by default, counted in the database: ``mail_sends``), whichever account
  and process asks. Over either, the new address is refused (``rate_limited``) and
  nothing changes.
- A new password: one working link per account at a time. "Forgot the password?" for an
  account that was mailed a reset link which still works (unused, within RESET_MINUTES)
  mails nothing: that mail is the one to use. So whoever asks, and however often, an
  account's address gets at most one reset mail per RESET_MINUTES, and nobody can spend
  the owner's budget: when the owner asks, either a link that works is already in their
  mailbox or a new one is mailed. Who asks is limited too (``mail_forgot``, per client
  address).

An unsubscribe token is ``<account>.<kind>.<HMAC>``, keyed with a random key of the
account's address (``notify["key"]``, made anew with every new address, never shown): it
can do one thing, turn that kind of mail off for that account, and a mail forwarded to
someone else lets them do no more. It is no server-wide secret: nothing else is keyed
with it, and a new address ends the old links.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import logging
import re
import secrets
import time
from collections.abc import Callable
from typing import TYPE_CHECKING, Any

from ..common import metrics
from ..common.catalog import langs
from ..common.guard import Guard
from ..common.names import name_key
from ..common.refusal import Refused
from ..community.passwords import check_password
from ..storage import Storage
from ..storage.mail import AddressBudgetSpent, QueuedMail
from .addresses import valid_address
from .headers import has_controls
from .settings import MailSettings
from .texts import render, zone_of

if TYPE_CHECKING:
    from ..community.accounts import Accounts, SignedIn
    from ..storage import AccountRow

__all__ = ["Mailer", "KINDS", "CONFIRM_HOURS", "RESET_MINUTES"]

log = logging.getLogger("kardinal.mail")

KINDS = ("turn", "invitation", "end")  # what an account may ask to be mailed (each off until chosen)
CONFIRM_HOURS = 24
RESET_MINUTES = 30
ADDRESS_LIMITS = ((3, 3600.0), (10, 86400.0))  # confirmations to one address (the guard's may change them)
# an unsubscribe token: an account's id (ASCII digits, no leading zero, within a 64-bit
# integer), one of KINDS, the HMAC's 32 hex digits
_UNSUBSCRIBE = re.compile(r"([1-9][0-9]{0,17})\.([a-z]{1,16})\.([0-9a-f]{32})")


def token_hash(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def bad_link() -> Refused:
    """The one refusal of a mailed link that does not work: wrong, used or expired alike."""
    return Refused("bad_mail_link", "this link does not work (any more): it was used, it expired, or it is wrong", 403)


class Mailer:
    """The mail of one server process: its settings (None: e-mail is off), the queue, and
    ``now`` (the clock tokens and retries go by; tests set their own)."""

    def __init__(self, storage: Storage, guard: Guard, settings: MailSettings | None = None, reason: str = "") -> None:
        self.storage = storage
        self.guard = guard
        self.settings = settings
        self.reason = reason or ("e-mail is on" if settings else "e-mail is off")
        self.now: Callable[[], float] = time.time
        self.accounts: Accounts | None = None  # set by the app
        self._wake = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    @property
    def enabled(self) -> bool:
        return self.settings is not None

    def wake(self) -> None:
        """Tell this process's sender there is mail (or the time moved on)."""
        self._wake.set()

    def later(self, coro: Any) -> None:
        """Run ``coro`` after the answer (its time and outcome tell the client nothing)."""
        task = asyncio.get_running_loop().create_task(coro)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    def link(self, path: str) -> str:
        assert self.settings is not None
        return self.settings.public_url + path

    def queue(self, mail: QueuedMail) -> bool:
        """Queue a mail (in a thread: blocks); True if queued now (not before under its key)."""
        done = self.storage.queue_mail(mail, self.now())
        return done

    def address_limits(self) -> list[tuple[int, float]]:
        """An address's confirmations: (how many, in how many seconds), ..., from the
        guard's ``mail_address`` rule (KARDINAL_RATE_LIMITS may change it)."""
        rules = getattr(self.guard, "rules", {}).get("mail_address")
        if not rules:
            return list(ADDRESS_LIMITS)
        return [(int(r.amount), float(r.get_expiry())) for r in rules]

    def _mail(
        self, key: str, account_id: int | None, kind: str, to: str, lang: str, params: dict[str, Any], unsubscribe: bool
    ) -> QueuedMail:
        """A mail rendered in ``lang``, with its unsubscribe links if it is a notification;
        ValueError for an address that is not one (stored before addresses were checked
        as they are now) or a subject that is no header's (sender.py refuses both too)."""
        if not valid_address(to):
            raise ValueError("not a mail address")
        unsub = None
        links: dict[str, str] = {}
        if unsubscribe and account_id is not None:
            tok = self.unsubscribe_token(account_id, kind, params.get("_key", ""))
            unsub = self.link(f"/mail#unsubscribe={tok}")
            links["one_click"] = self.link(f"/api/mail/unsubscribe?t={tok}")
        subject, text = render(kind, lang, {k: v for k, v in params.items() if not k.startswith("_")}, unsub)
        if has_controls(subject):
            raise ValueError("a subject with a control character")
        return QueuedMail(key, account_id, kind, to, subject, {"text": text, "lang": lang, **links}, self.now())

    # -- unsubscribing ---------------------------------------------------------------

    @staticmethod
    def _mac(key: str, account_id: int, kind: str) -> str:
        return hmac.new(key.encode("utf-8"), f"unsubscribe:{account_id}:{kind}".encode(), hashlib.sha256).hexdigest()[:32]

    def unsubscribe_token(self, account_id: int, kind: str, key: str) -> str:
        return f"{account_id}.{kind}.{self._mac(key, account_id, kind)}"

    async def unsubscribe(self, token: str) -> str:
        """Turn one kind of mail off for the account a token names; returns the kind."""
        found_token = _UNSUBSCRIBE.fullmatch(token)
        if found_token is None or found_token.group(2) not in KINDS:
            raise bad_link()
        aid, kind, mac = int(found_token.group(1)), found_token.group(2), found_token.group(3)
        found = await asyncio.to_thread(self.storage.mail_address, aid)
        key = found.notify.get("key") if found is not None else None
        if found is None or not isinstance(key, str) or not hmac.compare_digest(mac, self._mac(key, aid, kind)):
            raise bad_link()
        await asyncio.to_thread(self.storage.update_notify, aid, {kind: False})
        log.info("account %d: %s mail turned off by its unsubscribe link", aid, kind)
        return kind

    # -- an account's address --------------------------------------------------------

    async def status(self, account: AccountRow) -> dict[str, Any]:
        """What the account page shows: whether e-mail is on, the address (to its own
        account only), whether it is confirmed, and the opt-ins."""
        found = await asyncio.to_thread(self.storage.mail_address, account.id)
        notify = found.notify if found is not None else {}
        return {
            "enabled": self.enabled,
            "email": found.email if found is not None else None,
            "confirmed": bool(found and found.confirmed),
            "notify": {k: notify.get(k) is True for k in KINDS},
        }

    async def set_address(self, account: AccountRow, email: str, password: str, lang: str, device: str | None = None, tz: str = "") -> None:
        """A new address for the account (its password again: a session alone may not
        point the account's password resets elsewhere), unconfirmed until the link mailed
        to it is opened; nothing but that mail goes to it meanwhile. ``email`` "": none.
        ``lang`` and ``tz`` (the browser's time zone; one Python does not know: none) are
        what its mails are written in."""
        assert self.accounts is not None
        email = email.strip(" ")
        if email and not valid_address(email):
            raise Refused(
                "bad_email",
                "that is not a mail address: name@example.org, in ASCII letters, digits and .!#$%&'*+/=?^_`{|}~- before the @"
                " and a domain name after it",
                400,
            )
        if email and not self.enabled:
            raise Refused("mail_off", "e-mail is off on this server", 409)
        await self.accounts.reauth(account, password, device)  # (``device``: the browser's device mark)
        found = await asyncio.to_thread(self.storage.mail_address, account.id)
        old = found.notify if found is not None else {}
        lang = lang if lang in langs() else str(old.get("lang", "en"))
        where = {"lang": lang, **({"tz": tz} if zone_of(tz) is not None else {})}
        if not email:
            await asyncio.to_thread(self.storage.set_mail_address, account.id, None, where, None, 0.0, 0.0, None)
            log.info("account %d: mail address removed", account.id)
            return
        if found is not None and found.email == email and found.confirmed:
            if any(old.get(k) != v for k, v in where.items()):
                await asyncio.to_thread(self.storage.update_notify, account.id, where)
            return
        self.guard.spend("mail_account", str(account.id))
        token = secrets.token_urlsafe(32)
        now = self.now()
        # a new address is a new consent: each kind off until chosen; a new unsubscribe key
        notify = {**where, "key": secrets.token_urlsafe(24), **{k: False for k in KINDS}}
        mail = self._mail(
            f"confirm:{token_hash(token)[:32]}",
            account.id,
            "confirm",
            email,
            lang,
            {"name": account.name, "link": self.link(f"/mail#confirm={token}"), "hours": CONFIRM_HOURS},
            unsubscribe=False,
        )
        try:
            await asyncio.to_thread(
                self.storage.set_mail_address,
                account.id,
                email,
                notify,
                token_hash(token),
                now,
                now + CONFIRM_HOURS * 3600,
                mail,
                self.address_limits(),
            )
        except AddressBudgetSpent as e:
            metrics.rate_limited("mail_address")
            wait = int(e.retry + 0.999)
            raise Refused("rate_limited", f"too many mails to this address; try again in {wait} s", 429, retry=wait) from None
        log.info("account %d: a new mail address, its confirmation queued", account.id)
        self.wake()

    async def confirm(self, token: str) -> None:
        aid = await asyncio.to_thread(self.storage.use_token, token_hash(token), "confirm", self.now()) if 0 < len(token) <= 100 else None
        if aid is None:
            raise bad_link()
        log.info("account %d: mail address confirmed", aid)

    async def set_lang(self, account: AccountRow, lang: str) -> None:
        """The account's language, which its mails are written in (kept with its mail wishes,
        address or none); Refused ``bad_lang`` for a language without a catalog."""
        if lang not in langs():
            raise Refused("bad_lang", f"there are no words in the language {lang!r}", 400, langs=", ".join(langs()))
        await asyncio.to_thread(self.storage.update_notify, account.id, {"lang": lang})

    async def set_notify(self, account: AccountRow, wishes: dict[str, bool | None]) -> dict[str, Any]:
        """Turn kinds of mail on or off (a confirmed address first)."""
        found = await asyncio.to_thread(self.storage.mail_address, account.id)
        if found is None or not found.email or not found.confirmed:
            raise Refused("no_address", "confirm a mail address first", 409)
        changes = {k: bool(v) for k, v in wishes.items() if k in KINDS and v is not None}
        await asyncio.to_thread(self.storage.update_notify, account.id, changes)
        return await self.status(account)

    # -- a new password by mail ------------------------------------------------------

    async def forgot(self, who: str, where: str) -> None:
        """ "Forgot the password?": counted per client address here; the look-up and the
        mail happen after the answer (:meth:`later`), so that neither the answer nor its
        time tells whether the name or address has an account."""
        self.guard.spend("mail_forgot", where)
        if self.enabled:
            self.later(self._forgot(who.strip()))

    async def _forgot(self, who: str) -> None:
        try:
            # an address, or a name (a name may hold an "@" too: both are looked up)
            found = await asyncio.to_thread(self.storage.accounts_by_address, who) if "@" in who else []
            row = await asyncio.to_thread(self.storage.mail_account_by_key, name_key(who)) if who else None
            if row is not None and row[2] and row[3] and all(f[0] != row[0] for f in found):
                found.append((row[0], row[1], row[2], row[4]))
            for aid, name, email, notify in found:
                token = secrets.token_urlsafe(32)
                now = self.now()
                lang = str(notify.get("lang", "en"))
                mail = self._mail(
                    f"reset:{token_hash(token)[:32]}",
                    aid,
                    "reset",
                    email,
                    lang,
                    {"name": name, "link": self.link(f"/mail#reset={token}"), "minutes": RESET_MINUTES},
                    unsubscribe=False,
                )
                stored = await asyncio.to_thread(
                    self.storage.store_reset, aid, email, token_hash(token), now, now + RESET_MINUTES * 60, mail
                )
                if stored:
                    log.info("account %d: a new password by mail, queued", aid)
                else:
                    log.info("account %d: a new password by mail asked while its last link works; nothing new mailed", aid)
            self.wake()
        except Exception as e:  # noqa: BLE001 - after the answer: logged, nobody waits for it
            log.error("a new password by mail could not be queued (%s)", type(e).__name__)

    async def reset(self, token: str, password: str) -> SignedIn:
        """Set a new password through a reset link (once): as a new password does, every
        session of the account and the seats' tokens of its devices end; this browser is
        signed in."""
        assert self.accounts is not None
        check_password(password)  # a weak one is refused before the link is used up
        aid = await asyncio.to_thread(self.storage.use_token, token_hash(token), "reset", self.now()) if 0 < len(token) <= 100 else None
        account = await asyncio.to_thread(self.storage.account_row, aid) if aid is not None else None
        if account is None:
            raise bad_link()
        signed = await self.accounts.set_new_password(account, password)
        log.info("account %d: a new password set by a mailed link", aid)
        return signed
