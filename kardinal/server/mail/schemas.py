"""The models of mail's routes (routes.py): an account's address and what it wants
mailed, the tokens of mailed links, a new password by mail (checked as common/schemas.py
says)."""

from __future__ import annotations

import base64
import binascii
from typing import Annotated

from cryptography.hazmat.primitives.asymmetric import ec
from pydantic import AfterValidator, Field
from typing_extensions import TypedDict

from ..common.schemas import Password, Strict

MailToken = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$", description="A token from a mailed link")]
# a language's code ("en", "de"): one without a catalog (common/catalog.py) is refused where it is used
Lang = Annotated[str, Field(min_length=2, max_length=3, pattern=r"^[a-z]{2,3}$", description="A language's code (its catalog's name)")]


class SetEmail(Strict):
    """``POST /api/account/email``: a new address (``""``: none), confirmed by a mailed
    link; the account's password, to be sure; ``lang``: the language of its mails; ``tz``:
    the browser's time zone (an IANA name, "Europe/Berlin"), the one its mails' times are
    said in (unknown or "": UTC)."""

    email: str = Field(max_length=254)
    password: Password
    lang: Lang = "en"
    tz: str = Field("", max_length=64)


class SetLang(Strict):
    """``POST /api/account/lang``: the account's language (a language there is a catalog for)."""

    lang: Lang


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


# -- Web Push (push.py) ------------------------------------------------------------------

Endpoint = Annotated[
    str, Field(min_length=8, max_length=1000, pattern=r"^[\x21-\x7e]+$", description="The push service's address for this device")
]


def _unb64(text: str) -> bytes:
    try:
        return base64.urlsafe_b64decode(text.rstrip("=") + "=" * (-len(text.rstrip("=")) % 4))
    except (binascii.Error, ValueError):
        raise ValueError("not base64url") from None


def _p256_point(text: str) -> str:
    """A device's public key: a point of the curve P-256, uncompressed (a key that is none
    made every push to the device fail in the sender, each one holding up the others)."""
    raw = _unb64(text)
    if len(raw) != 65 or raw[0] != 4:
        raise ValueError("p256dh: a P-256 public key, uncompressed (65 bytes)")
    try:
        ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), raw)
    except ValueError:
        raise ValueError("p256dh: not a point of the curve P-256") from None
    return text


def _auth_secret(text: str) -> str:
    if len(_unb64(text)) != 16:
        raise ValueError("auth: 16 bytes")
    return text


class PushKeys(Strict):
    """A subscription's keys as the browser gives them (base64url): the device's public
    key (a P-256 point, 65 bytes) and its authentication secret (16 bytes); checked."""

    p256dh: Annotated[str, Field(min_length=86, max_length=88, pattern=r"^[A-Za-z0-9_-]+=*$"), AfterValidator(_p256_point)]
    auth: Annotated[str, Field(min_length=22, max_length=24, pattern=r"^[A-Za-z0-9_-]+=*$"), AfterValidator(_auth_secret)]


class PushDevice(Strict):
    """``POST /api/account/push/device``, ``/api/account/push/remove``: this device's endpoint."""

    endpoint: Endpoint


class Subscribe(Strict):
    """``POST /api/account/push``: this device's subscription (``PushSubscription.toJSON()``'s
    endpoint and keys), which notifications it wants, and their language."""

    endpoint: Endpoint
    keys: PushKeys
    turn: bool = False
    invitation: bool = False
    end: bool = False
    lang: Lang = "en"


class PushOn(TypedDict):
    """Whether this server sends Web Push, and the key a browser subscribes with
    (``applicationServerKey``, base64url; null when off)."""

    enabled: bool
    key: str | None


class PushStatus(TypedDict):
    """This device's subscription: whether there is one for the account, and what it wants."""

    enabled: bool
    subscribed: bool
    notify: NotifyWishes
