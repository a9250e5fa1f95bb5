"""The sender: a loop in every server process that sends the queue's mail (the standard
library's ``smtplib``, in a thread).

Each mail is claimed before it is sent (storage/mail.py: ``claimed_until``, and on
PostgreSQL ``FOR UPDATE SKIP LOCKED``): two processes never send the same row. It is marked
sent in the database as soon as the mail server accepted it; a mail server that fails is
tried again later (BACKOFF doubling, up to MAX_ATTEMPTS; a refusal of the address itself
is not tried again), and a restart loses nothing: the row waits in the database.

What is left: a process that dies in the instant between the mail server's acceptance and
the mark (one database write, milliseconds) leaves a claimed row that is sent again once
its claim runs out (LEASE). That is at most one mail twice, after a crash; each mail's
``Message-ID`` is made from its queue key, the same both times, so that mail systems that
drop repeated Message-IDs show it once.

Logged: a mail's queue id, kind and outcome; never its address or its text (a link in it
may hold a token).
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import logging
import smtplib
import ssl
from email.headerregistry import Address
from email.message import EmailMessage
from email.utils import formatdate
from urllib.parse import urlsplit

from ..common import metrics
from ..storage.mail import ClaimedMail
from .addresses import valid_address
from .headers import POLICY
from .mailer import Mailer
from .settings import MailSettings

__all__ = ["run_sender", "send_due", "MAX_ATTEMPTS", "LEASE"]

log = logging.getLogger("kardinal.mail")

MAX_ATTEMPTS = 10
BACKOFF = 60.0  # seconds before the second try; doubled after each failure
MAX_BACKOFF = 6 * 3600.0
LEASE = 300.0  # a claim lasts this long (more than a send's timeouts: SMTP_TIMEOUT)
SMTP_TIMEOUT = 60.0
POLL = 10.0  # seconds between looks at the queue (mail of other processes, retries due)
KEEP_SENT = 30 * 86400.0  # a sent mail's row (its key: no second mail of it) is kept this long
TIDY_EVERY = 3600.0


class Permanent(Exception):
    """The mail server refused the mail itself (5xx): trying again would not help."""


SENDER_NAME = "Kardinal & König"  # the From header's display name, in every language


def message(m: ClaimedMail, settings: MailSettings) -> EmailMessage:
    """The mail as it is handed to the mail server, its headers made with :data:`POLICY`
    (headers.py); Permanent if it cannot be a sound mail (an address that is not one, a
    header that would break its line): such a mail is not sent, and never tried again."""
    if not valid_address(m.to_addr):
        raise Permanent("not a mail address")
    try:
        return _message(m, settings)
    except ValueError as e:  # HeaderProblem, or the email package's own refusal
        raise Permanent(type(e).__name__) from None


def _message(m: ClaimedMail, settings: MailSettings) -> EmailMessage:
    msg = EmailMessage(policy=POLICY)
    msg.set_content(str(m.body.get("text", "")))  # first: it replaces the Content-* headers
    msg["From"] = Address(SENDER_NAME, addr_spec=settings.sender)  # "Kardinal & König" <address>: the inbox names the site
    msg["To"] = m.to_addr
    msg["Subject"] = m.subject
    msg["Date"] = formatdate(localtime=False)
    host = urlsplit(settings.public_url).hostname or "kardinal"
    msg["Message-ID"] = f"<{hashlib.sha256(m.key.encode()).hexdigest()[:32]}@{host}>"  # the same if sent again
    msg["Auto-Submitted"] = "auto-generated"
    lang = m.body.get("lang")
    if isinstance(lang, str):
        msg["Content-Language"] = lang
    one_click = m.body.get("one_click")
    if isinstance(one_click, str):  # RFC 8058: the mail client's button posts to it
        msg["List-Unsubscribe"] = f"<{one_click}>"
        msg["List-Unsubscribe-Post"] = "List-Unsubscribe=One-Click"
    bytes(msg)  # written once here: a header that would break its line is refused now (StrictPolicy)
    return msg


def send_one(msg: EmailMessage, settings: MailSettings, to: str) -> None:
    """Hand one mail to the mail server (blocks: run it in a thread), for ``to`` alone:
    the envelope is never taken from the headers (smtplib would add any Cc or Bcc)."""
    s = settings.smtp
    context = ssl.create_default_context()
    smtp: smtplib.SMTP
    if s.tls == "tls":
        smtp = smtplib.SMTP_SSL(s.host, s.port, timeout=SMTP_TIMEOUT, context=context)
    else:
        smtp = smtplib.SMTP(s.host, s.port, timeout=SMTP_TIMEOUT)
    try:
        if s.tls == "starttls":
            smtp.starttls(context=context)
        if s.user:
            smtp.login(s.user, s.password or "")
        try:
            smtp.send_message(msg, from_addr=settings.sender, to_addrs=[to])
        except smtplib.SMTPRecipientsRefused:
            raise Permanent("SMTPRecipientsRefused") from None
        except smtplib.SMTPResponseException as e:
            if 500 <= e.smtp_code < 600:
                raise Permanent(f"{type(e).__name__} {e.smtp_code}") from None
            raise
    finally:
        with contextlib.suppress(Exception):
            smtp.quit()


def _what(e: BaseException) -> str:
    """What failed, without the address (an SMTP error's text may name it): its kind and code."""
    if isinstance(e, Permanent):
        return str(e)
    code = getattr(e, "smtp_code", None)
    return f"{type(e).__name__} {code}" if code is not None else type(e).__name__


async def send_due(mailer: Mailer) -> int:
    """Send every mail due now, one claimed at a time; returns how many were sent."""
    settings = mailer.settings
    if settings is None:
        return 0
    storage = mailer.storage
    sent = 0
    while True:
        m = await asyncio.to_thread(storage.claim_mail, mailer.now(), LEASE, MAX_ATTEMPTS)
        if m is None:
            return sent
        try:
            await asyncio.to_thread(send_one, message(m, settings), settings, m.to_addr)
        except Exception as e:  # noqa: BLE001 - any failure of the mail server: tried again later
            attempts = MAX_ATTEMPTS if isinstance(e, Permanent) else m.attempts + 1
            wait = min(MAX_BACKOFF, BACKOFF * 2 ** (attempts - 1))
            await asyncio.to_thread(storage.mail_failed, m.id, attempts, mailer.now() + wait, _what(e))
            metrics.notification_failed("mail", final=attempts >= MAX_ATTEMPTS)
            if attempts >= MAX_ATTEMPTS:
                log.error("mail %d (%s) not sent, given up after %d tries: %s", m.id, m.kind, attempts, _what(e))
            else:
                log.warning("mail %d (%s) not sent (%s); tried again in %d s", m.id, m.kind, _what(e), wait)
            if isinstance(e, Permanent):  # this mail cannot be sent: the others can
                continue
            return sent  # the mail server fails: the others wait for the next look
        await asyncio.to_thread(storage.mail_sent, m.id, mailer.now())
        metrics.notification_sent("mail")
        log.info("mail %d (%s) sent", m.id, m.kind)
        sent += 1


async def woken(stop: asyncio.Event, wake: asyncio.Event, poll: float) -> None:
    """Wait until the end (``stop``), a wake-up (``wake``: something queued) or ``poll``
    seconds have passed (another process's queuing, a retry due): a queue's next look."""
    waits = [asyncio.ensure_future(stop.wait()), asyncio.ensure_future(wake.wait())]
    try:
        await asyncio.wait(waits, timeout=poll, return_when=asyncio.FIRST_COMPLETED)
    finally:
        for w in waits:
            w.cancel()


async def run_sender(mailer: Mailer, stop: asyncio.Event, poll: float = POLL) -> None:
    """The sender's loop: send what is due, then wait for new mail of this process
    (:meth:`Mailer.wake`), the next look (``poll``), or the end."""
    if mailer.settings is None:
        return
    tidied = 0.0
    while not stop.is_set():
        mailer._wake.clear()
        try:
            await send_due(mailer)
            if mailer.now() - tidied > TIDY_EVERY:  # rows of mail sent long ago go
                tidied = mailer.now()
                await asyncio.to_thread(mailer.storage.forget_sent_mail, tidied - KEEP_SENT)
                longest = max(seconds for _n, seconds in mailer.address_limits())
                await asyncio.to_thread(mailer.storage.forget_mail_sends, tidied - longest)
        except Exception as e:  # noqa: BLE001 - the database failed: the next look tries again
            log.error("the mail queue cannot be read (%s)", type(e).__name__)
        await woken(stop, mailer._wake, poll)
