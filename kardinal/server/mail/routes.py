"""The HTTP side of mail (kardinal.server.mail): the page ``/mail`` that mailed links open
(their tokens in the URL's fragment, posted by the page), and the routes under
``/api/mail`` and ``/api/account/email|notify|lang``.

``POST /api/mail/unsubscribe`` is also the ``List-Unsubscribe`` address of every
notification (RFC 8058): a mail client posts ``List-Unsubscribe=One-Click`` to it with
the token in the query (``?t=``; the token can do nothing but turn that mail off, and the
access log never writes a query). From a mail client it comes without a cookie and without
an ``Origin`` (origin.py lets that pass: no browser page).
"""

from __future__ import annotations

from fastapi import APIRouter, Request, Response
from fastapi.responses import HTMLResponse

from ..common.refusal import Refused
from ..common.schemas import Done
from ..community.account_routes import Me, _set_cookie, device_of, session_secret
from ..web.http import client_address
from ..web.pages import static_page
from . import Mailer
from .schemas import Forgot, MailLink, MailOn, MailStatus, ResetPassword, SetEmail, SetLang, SetNotify, Unsubscribed

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
