"""The mail settings, as the server's settings hold them (kardinal.server.common.settings, read
from the environment): ``KARDINAL_SMTP_URL`` (the mail server),
``KARDINAL_MAIL_FROM`` (the sender's address) and ``KARDINAL_PUBLIC_URL`` (the site's
address as players reach it, for the links in mails). Without all three, e-mail is off:
the site says so and nothing else changes.

``KARDINAL_SMTP_URL``: ``smtp://user:password@host:587`` (STARTTLS, required unless
``?starttls=0``: a relay on the same machine), or ``smtps://user:password@host:465``
(TLS from the start); user and password are optional and %-encoded. The password is
never logged nor shown: :class:`SmtpServer`'s ``repr`` leaves it out.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from urllib.parse import parse_qs, unquote, urlsplit

from .addresses import valid_address

__all__ = ["MailSettings", "SmtpServer", "mail_settings"]


@dataclass(frozen=True)
class SmtpServer:
    host: str
    port: int
    tls: str  # "starttls", "tls" (smtps) or "none"
    user: str | None = field(default=None, repr=False)
    password: str | None = field(default=None, repr=False)


@dataclass(frozen=True)
class MailSettings:
    smtp: SmtpServer
    sender: str  # the From address
    public_url: str  # e.g. "https://kardinal.example.org" (no trailing slash)


def parse_smtp_url(text: str) -> SmtpServer:
    """The mail server of ``KARDINAL_SMTP_URL``; ValueError (never naming the password) if malformed."""
    try:
        u = urlsplit(text.strip())
        port = u.port
    except ValueError:
        raise ValueError("KARDINAL_SMTP_URL: not a URL (smtp://user:password@host:587)") from None
    if u.scheme not in ("smtp", "smtps") or not u.hostname:
        raise ValueError("KARDINAL_SMTP_URL: smtp://... or smtps://... with a host")
    query = {k: v[-1] for k, v in parse_qs(u.query).items()}
    starttls = query.get("starttls", "1").lower() not in ("0", "false", "no", "off")
    tls = "tls" if u.scheme == "smtps" else ("starttls" if starttls else "none")
    return SmtpServer(
        host=u.hostname,
        port=port or (465 if u.scheme == "smtps" else 587),
        tls=tls,
        user=unquote(u.username) if u.username else None,
        password=unquote(u.password) if u.password else None,
    )


def mail_settings(e: Mapping[str, str]) -> tuple[MailSettings | None, str]:
    """The settings of the values by their variables' names (Settings.mail_values), or None
    and why e-mail is off (words for the operator's log; no secret)."""
    url, sender, public = (e.get(k, "").strip() for k in ("KARDINAL_SMTP_URL", "KARDINAL_MAIL_FROM", "KARDINAL_PUBLIC_URL"))
    missing = [k for k, v in (("KARDINAL_SMTP_URL", url), ("KARDINAL_MAIL_FROM", sender), ("KARDINAL_PUBLIC_URL", public)) if not v]
    if missing:
        return None, f"e-mail is off: {', '.join(missing)} not set"
    try:
        smtp = parse_smtp_url(url)
    except ValueError as err:
        return None, f"e-mail is off: {err}"
    if not valid_address(sender):
        return None, "e-mail is off: KARDINAL_MAIL_FROM is not a mail address"
    p = urlsplit(public)
    if p.scheme not in ("http", "https") or not p.netloc or p.query or p.fragment:
        return None, "e-mail is off: KARDINAL_PUBLIC_URL must be the site's address, e.g. https://kardinal.example.org"
    return MailSettings(smtp, sender, public.rstrip("/")), "e-mail is on"
