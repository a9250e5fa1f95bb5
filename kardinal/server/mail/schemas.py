"""The models of mail's routes (routes.py): an account's address and what it wants
mailed, the tokens of mailed links, a new password by mail (checked as common/schemas.py
says)."""

from __future__ import annotations

from typing import Annotated, Literal

from pydantic import Field
from typing_extensions import TypedDict

from ..common.schemas import Password, Strict

MailToken = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$", description="A token from a mailed link")]
Lang = Literal["en", "de", "da"]


class SetEmail(Strict):
    """``POST /api/account/email``: a new address (``""``: none), confirmed by a mailed
    link; the account's password, to be sure; ``lang``: the language of its mails; ``tz``:
    the browser's time zone (an IANA name, "Europe/Berlin"), the one its mails' times are
    said in (unknown or "": UTC)."""

    email: str = Field(max_length=254)
    password: Password
    lang: Lang = "en"
    tz: str = Field("", max_length=64)


class SetNotify(Strict):
    """``POST /api/account/notify``: which mails the account wants (those left out stay)."""

    turn: bool | None = None
    invitation: bool | None = None
    end: bool | None = None


class MailLink(Strict):
    """``POST /api/mail/confirm``, ``/api/mail/unsubscribe``: the token of a mailed link."""

    token: MailToken


class Forgot(Strict):
    """``POST /api/mail/forgot``: an account's name or its confirmed address."""

    who: str = Field(min_length=1, max_length=254)


class ResetPassword(Strict):
    """``POST /api/mail/reset``: the token of a mailed reset link and the new password."""

    token: MailToken
    password: Password


class MailOn(TypedDict):
    """Whether this server sends mail (``enabled``: false when its settings are missing)."""

    enabled: bool


class NotifyWishes(TypedDict):
    turn: bool
    invitation: bool
    end: bool


class MailStatus(TypedDict):
    """An account's address (shown to that account only), whether it is confirmed, and
    which mails it wants; ``enabled``: whether this server sends mail."""

    enabled: bool
    email: str | None
    confirmed: bool
    notify: NotifyWishes


class Unsubscribed(TypedDict):
    ok: bool
    kind: str
