"""The HTTP side of mail (kardinal.server.mail): the page ``/mail`` that mailed links open
(their tokens in the URL's fragment, posted by the page), and the routes under
``/api/mail`` and ``/api/account/email|notify|lang``.

``POST /api/mail/unsubscribe`` is also the ``List-Unsubscribe`` address of every
notification (RFC 8058): a mail client posts ``List-Unsubscribe=One-Click`` to it with
the token in the query (``?t=``; the token can do nothing but turn that mail off, and the
access log never writes a query). From a mail client it comes without a cookie and without
an ``Origin`` (origin.py lets that pass: no browser page).

Web Push (push.py): ``GET /api/push`` (on or off, and the key to subscribe with) and this
device's subscription under ``/api/account/push``, given by its endpoint (in the body,
never in a URL: it is the device's address).
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from ..common.refusal import Refused
from ..common.schemas import Done
from ..community.account_routes import Me, _set_cookie, device_of, session_secret
from ..web.http import client_address
from ..web.pages import static_page
from . import Mailer
from .push import KINDS as PUSH_KINDS
from .push import MAX_DEVICES, Pusher
from .schemas import (
    Forgot,
    MailLink,
    MailOn,
    MailStatus,
    PushDevice,
    PushOn,
    PushStatus,
    ResetPassword,
    SetEmail,
    SetLang,
    SetNotify,
    Subscribe,
    Unsubscribed,
)

__all__ = ["router"]

router = APIRouter(tags=["mail"])


def mailer_of(request: Request) -> Mailer:
    m: Mailer = request.app.state.mailer
    return m


@router.get("/mail", include_in_schema=False)
async def mail_page(request: Request) -> HTMLResponse:
    """Where mailed links lead: confirm an address, a new password, unsubscribe, open a seat."""
    page = static_page(request, "mail.html")
    page.headers["Referrer-Policy"] = "no-referrer"
    page.headers["Cache-Control"] = "no-store"
    return page


@router.get("/api/mail", response_model=MailOn)
async def mail_on(request: Request) -> MailOn:
    """Whether this server sends mail (its SMTP settings are set)."""
    return {"enabled": mailer_of(request).enabled}


@router.get("/api/account/email", response_model=MailStatus)
async def email_status(request: Request, response: Response, me: Me) -> MailStatus:
    """The account's address, whether it is confirmed, and which mails it wants."""
    response.headers["Cache-Control"] = "no-store"
    return await mailer_of(request).status(me)  # type: ignore[return-value]


@router.post("/api/account/email", response_model=MailStatus)
async def set_email(body: SetEmail, request: Request, response: Response, me: Me) -> MailStatus:
    """A new address (``""``: none), with the account's password; a link to confirm it is
    mailed to it, and nothing else until it is confirmed. ``mail_off`` when this server
    sends no mail."""
    m = mailer_of(request)
    await m.set_address(me, body.email, body.password, body.lang, device_of(request), body.tz)
    response.headers["Cache-Control"] = "no-store"
    return await m.status(me)  # type: ignore[return-value]


@router.post("/api/account/lang", response_model=Done)
async def set_lang(body: SetLang, request: Request, me: Me) -> Done:
    """The account's language (chosen on a page while signed in): its mails are written in it."""
    await mailer_of(request).set_lang(me, body.lang)
    return {"ok": True}


@router.post("/api/account/notify", response_model=MailStatus)
async def set_notify(body: SetNotify, request: Request, response: Response, me: Me) -> MailStatus:
    """Which mails the account wants: your turn, invitations, a game's end (a confirmed address first)."""
    response.headers["Cache-Control"] = "no-store"
    return await mailer_of(request).set_notify(me, body.model_dump())  # type: ignore[return-value]


@router.post("/api/mail/confirm", response_model=Done)
async def confirm(body: MailLink, request: Request) -> Done:
    """Confirm an address with the token of the link mailed to it (once, within a day)."""
    await mailer_of(request).confirm(body.token)
    return {"ok": True}


@router.post("/api/mail/forgot", response_model=Done)
async def forgot(body: Forgot, request: Request) -> Done:
    """ "Forgot the password?": a link to set a new one is mailed to the account of this
    name or confirmed address. The answer is the same whether or not there is one (and
    whether or not this server sends mail: the page says so beforehand)."""
    await mailer_of(request).forgot(body.who, client_address(request.scope))
    return {"ok": True}


@router.post("/api/mail/reset", response_model=Done)
async def reset(body: ResetPassword, request: Request, response: Response) -> Done:
    """A new password through a mailed link (once, within 30 minutes): every session of the
    account ends, and the seats' tokens of its devices; this browser is signed in."""
    m = mailer_of(request)
    signed = await m.reset(body.token, body.password)
    if session_secret(request) is not None:
        assert m.accounts is not None
        await m.accounts.sign_out(session_secret(request))
    _set_cookie(response, request, signed)
    return {"ok": True}


_UNSUBSCRIBE_BODY = {
    "requestBody": {
        "required": True,
        "content": {
            "application/json": {"schema": {"$ref": "#/components/schemas/MailLink"}},
            "application/x-www-form-urlencoded": {
                "schema": {"type": "object", "properties": {"List-Unsubscribe": {"type": "string", "enum": ["One-Click"]}}}
            },
        },
    }
}


@router.post("/api/mail/unsubscribe", response_model=Unsubscribed, openapi_extra=_UNSUBSCRIBE_BODY)
async def unsubscribe(request: Request, t: str | None = None) -> Unsubscribed:
    """Turn one kind of mail off without signing in: ``?t=<token>`` with the body
    ``List-Unsubscribe=One-Click`` (RFC 8058, a mail client's button), or the page's JSON
    ``{"token": ...}`` (the link in the mail)."""
    raw = await request.body()
    try:  # the query's token is checked as the body's is (MailLink): ASCII, at most 100 characters
        link = MailLink.model_validate_json(raw) if t is None else MailLink(token=t)
    except ValueError:
        raise Refused("malformed", "token: the token of the mail's link", 400) from None
    if t is not None and b"List-Unsubscribe=One-Click" not in raw:
        raise Refused("malformed", "the body of a one-click unsubscribe is List-Unsubscribe=One-Click", 400)
    kind = await mailer_of(request).unsubscribe(link.token)
    return {"ok": True, "kind": kind}


# -- Web Push (push.py) ------------------------------------------------------------------


def pusher_of(request: Request) -> Pusher:
    p: Pusher = request.app.state.pusher
    return p


async def _device_status(pusher: Pusher, account_id: int, endpoint: str) -> PushStatus:
    sub = await asyncio.to_thread(pusher.storage.push_subscription_of, account_id, endpoint)
    kinds = sub.kinds if sub is not None else frozenset()
    return {
        "enabled": pusher.enabled,
        "subscribed": sub is not None,
        "notify": {"turn": "turn" in kinds, "invitation": "invitation" in kinds, "end": "end" in kinds},
    }


@router.get("/api/push", response_model=PushOn)
async def push_on(request: Request) -> PushOn:
    """Whether this server sends Web Push, and its public key (the browser subscribes with it)."""
    p = pusher_of(request)
    return {"enabled": p.enabled, "key": await asyncio.to_thread(p.public_key) if p.enabled else None}


@router.post("/api/account/push/device", response_model=PushStatus)
async def push_device(body: PushDevice, request: Request, response: Response, me: Me) -> PushStatus:
    """What this device (its push endpoint) gets for the account."""
    response.headers["Cache-Control"] = "no-store"
    return await _device_status(pusher_of(request), me.id, body.endpoint)


@router.post("/api/account/push", response_model=PushStatus)
async def subscribe_push(body: Subscribe, request: Request, response: Response, me: Me) -> PushStatus:
    """This device's notifications: its subscription and what it wants (all off: the
    subscription goes). ``push_off`` when this server sends no Web Push, ``bad_endpoint``
    for an address that is no push service's, ``too_many_devices`` beyond MAX_DEVICES."""
    p = pusher_of(request)
    response.headers["Cache-Control"] = "no-store"
    if not p.enabled:
        raise Refused("push_off", "Web Push is off on this server", 409)
    if not p.endpoint_ok(body.endpoint):
        raise Refused("bad_endpoint", "endpoint: a push service's https address", 400)
    kinds = [k for k in PUSH_KINDS if getattr(body, k)]
    if not kinds:
        await asyncio.to_thread(p.storage.unsubscribe_push, me.id, body.endpoint)
        return await _device_status(p, me.id, body.endpoint)
    have = await asyncio.to_thread(p.storage.push_subscriptions_of, me.id)
    if len(have) >= MAX_DEVICES and all(s.endpoint != body.endpoint for s in have):
        raise Refused(
            "too_many_devices", f"at most {MAX_DEVICES} devices get notifications; turn them off on one first", 409, max=MAX_DEVICES
        )
    await asyncio.to_thread(
        p.storage.save_push_subscription, me.id, body.endpoint, body.keys.p256dh, body.keys.auth, kinds, body.lang, p.now()
    )
    return await _device_status(p, me.id, body.endpoint)


@router.post("/api/account/push/remove", response_model=PushStatus)
async def unsubscribe_push(body: PushDevice, request: Request, response: Response, me: Me) -> PushStatus:
    """This device gets no more notifications for the account."""
    p = pusher_of(request)
    response.headers["Cache-Control"] = "no-store"
    await asyncio.to_thread(p.storage.unsubscribe_push, me.id, body.endpoint)
    return await _device_status(p, me.id, body.endpoint)
