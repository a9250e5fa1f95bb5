"""The HTTP side of accounts (accounts.py): the session cookie, and the routes under
``/api/account``: sign up, sign in and out, a new password, delete, the account's data,
"My games" and a seat's token for this device.

The cookie (COOKIE) holds the session's secret: ``HttpOnly`` (no script reads it),
``SameSite=Lax`` (another site's POST does not carry it), ``Secure`` when the request came
over HTTPS (behind a proxy: its ``X-Forwarded-Proto``, trusted from the addresses of
``--forwarded-allow-ips`` only), under the server's root path. Every request that changes
something is also checked for its origin (origin.py). A new session is made at every
sign-up, sign-in and new password, and the browser's session before it ends (a session id
planted in a browser is never the signed-in one).
"""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import JSONResponse
from starlette.requests import HTTPConnection

from ..common.refusal import Refused
from ..common.schemas import Done
from ..storage import AccountRow
from ..web.http import client_address, refusal_response
from ..web.pages import root_of
from .accounts import Accounts, SignedIn
from .schemas import AccountInfo, DeleteAccount, HeldSeats, MyGames, NewPassword, SeatKeyRequest, SeatToken, SignIn, SignOut, SignUp
from .social import Social

__all__ = ["router", "COOKIE", "DEVICE_COOKIE", "session_secret", "signed_in", "maybe_signed_in"]

COOKIE = "kardinal_session"
DEVICE_COOKIE = "kardinal_device"  # the browser's device mark (accounts.device_mark)
DEVICE_DAYS = 400  # how long a browser keeps it (the most browsers keep a cookie)
# over HTTPS at the site's root, the cookies take the "__Host-" prefix: the browser then
# accepts them only from this host over a secure connection, for the whole site, never
# set by a sibling domain (a planted session, or a tossed one, from another subdomain)
HOST_PREFIX = "__Host-"

router = APIRouter(tags=["accounts"])


def accounts(request: Request) -> Accounts:
    acc: Accounts = request.app.state.accounts
    return acc


def _cookie_name(request: HTTPConnection, name: str) -> str:
    secure = request.url.scheme in ("https", "wss")
    return HOST_PREFIX + name if secure and not str(request.scope.get("root_path") or "").rstrip("/") else name


def session_secret(request: HTTPConnection) -> str | None:
    """The session's secret a request or a WebSocket carries (its cookie), if any."""
    return request.cookies.get(_cookie_name(request, COOKIE)) or None


def device_of(request: Request) -> str | None:
    return request.cookies.get(_cookie_name(request, DEVICE_COOKIE)) or None


async def maybe_signed_in(request: Request) -> AccountRow | None:
    """The account this request's session is signed in to, or None (a guest). Looked up
    only when the request carries the cookie: a guest's request costs nothing."""
    secret = session_secret(request)
    if secret is None:
        return None
    return await accounts(request).account_of(secret)


async def signed_in(request: Request) -> AccountRow:
    """The request's account; Refused ``signed_out`` (401) without one."""
    account = await maybe_signed_in(request)
    if account is None:
        raise Refused("signed_out", "sign in first", 401)
    return account


Acc = Annotated[Accounts, Depends(accounts)]
Me = Annotated[AccountRow, Depends(signed_in)]


def _info(account: AccountRow | None) -> AccountInfo:
    return {"account": None if account is None else {"id": account.id, "name": account.name, "created": account.created}}


def _set_cookie(response: Response, request: Request, signed: SignedIn) -> None:
    """The session's cookie, and the browser's device mark if it gets a new one."""
    marks = [(COOKIE, signed.secret, signed.max_age)]
    if signed.device is not None:
        marks.append((DEVICE_COOKIE, signed.device, DEVICE_DAYS * 86400))
    for name, value, age in marks:
        response.set_cookie(
            _cookie_name(request, name),
            value,
            max_age=age,
            path=root_of(request) or "/",
            secure=request.url.scheme == "https",
            httponly=True,
            samesite="lax",
        )


def _clear_cookie(response: Response, request: Request) -> None:
    """The session's cookie goes (the device mark stays: it opens nothing)."""
    response.delete_cookie(
        _cookie_name(request, COOKIE), path=root_of(request) or "/", secure=request.url.scheme == "https", httponly=True, samesite="lax"
    )


@router.get("/api/account", response_model=AccountInfo)
async def who(request: Request, response: Response, acc: Acc) -> AccountInfo | JSONResponse:
    """Who this browser is signed in as (``account``: null for a guest), with the account's
    language (``lang``: null when it never said one), which a page takes when its browser
    has chosen none. A session of a
    suspended account is refused ``suspended`` with what its sign-in would be told
    (``until``, ``at``, ``why``, ``contact``) and kept: every page's header says so until the
    suspension ends, when the session opens the account again."""
    secret = session_secret(request)
    try:
        account = await acc.session_of(secret)
    except Refused as e:
        return refusal_response(e, {"Cache-Control": "no-store"})
    if account is None and secret is not None:
        _clear_cookie(response, request)  # ended or expired: the browser forgets it
    response.headers["Cache-Control"] = "no-store"
    info = _info(account)
    if account is not None and info["account"] is not None:
        info["account"]["lang"] = await acc.lang_of(account)
    return info


async def _answer_signed(acc: Acc, signed: SignedIn, held: HeldSeats, request: Request, response: Response) -> AccountInfo:
    """The answer to a sign-up or sign-in: the session's cookie set, the account, and how
    many of the seats this browser holds (``held``) are the account's now."""
    _set_cookie(response, request, signed)
    out = _info(signed.account)
    out["brought"], renewed = await acc.bring(signed.account, held, client_address(request.scope))
    if renewed:
        out["tokens"] = renewed
        response.headers["Cache-Control"] = "no-store"  # seat tokens: kept by no cache
    return out


@router.post("/api/account/signup", response_model=AccountInfo)
async def sign_up(body: SignUp, request: Request, response: Response, acc: Acc) -> AccountInfo:
    """A new account, signed in at once; the seats this browser holds (``held``) become its."""
    signed = await acc.sign_up(body.name, body.password, client_address(request.scope), session_secret(request))
    return await _answer_signed(acc, signed, body.held, request, response)


@router.post("/api/account/signin", response_model=AccountInfo)
async def sign_in(body: SignIn, request: Request, response: Response, acc: Acc) -> AccountInfo:
    """Sign in: a new session (the browser's one before ends). A wrong password and a name
    without an account get the same refusal (``bad_sign_in``); limited per address and
    per name (``rate_limited``)."""
    signed = await acc.sign_in(body.name, body.password, client_address(request.scope), session_secret(request), device_of(request))
    return await _answer_signed(acc, signed, body.held, request, response)


@router.post("/api/account/signout", response_model=Done)
async def sign_out(body: SignOut, request: Request, response: Response, acc: Acc) -> Done:
    """End this browser's session; ``everywhere``: every session of the account, and the
    seats' tokens handed to its devices (as a new password does)."""
    if body.everywhere:
        account = await maybe_signed_in(request)
        if account is not None:
            await acc.sign_out_everywhere(account)
    await acc.sign_out(session_secret(request))
    _clear_cookie(response, request)
    return {"ok": True}


@router.post("/api/account/password", response_model=Done)
async def new_password(body: NewPassword, request: Request, response: Response, acc: Acc, me: Me) -> Done:
    """A new password: every session of the account ends (this browser gets a new one),
    and so do the seats' tokens handed to its devices."""
    signed = await acc.change_password(me, body.current, body.new, device_of(request))
    _set_cookie(response, request, signed)
    return {"ok": True}


@router.post("/api/account/delete", response_model=Done)
async def delete_account(body: DeleteAccount, request: Request, response: Response, acc: Acc, me: Me) -> Done:
    """Delete the account (its games stay, its seats named "deleted player")."""
    await acc.delete(me, body.password, device_of(request))
    _clear_cookie(response, request)
    return {"ok": True}


@router.get("/api/account/data", response_model=None, responses={200: {"model": dict[str, object]}})
async def account_data(acc: Acc, me: Me) -> JSONResponse:
    """Everything the server keeps of the account, as a JSON file."""
    return JSONResponse(
        await acc.data(me),
        headers={"Content-Disposition": f'attachment; filename="kardinal-account-{me.id}.json"', "Cache-Control": "no-store"},
    )


@router.get("/api/account/games", response_model=MyGames)
async def my_games(response: Response, acc: Acc, me: Me) -> MyGames:
    """Every game the account has a seat in, newest first ("My games" on any device)."""
    response.headers["Cache-Control"] = "no-store"
    return {"games": await acc.my_games(me)}  # type: ignore[typeddict-item]


@router.post("/api/account/seat", response_model=SeatToken)
async def seat_key(body: SeatKeyRequest, request: Request, response: Response, acc: Acc, me: Me) -> SeatToken:
    """A token of one of the account's seats for this device (in this answer only: keep it
    as a seat's link's token is kept); ``not_your_seat`` for another's. A seat kept for the
    account by an invitation is taken now (Social.take: it becomes the account's, with a
    new token), so that the link of an invitation's mail opens it in one step."""
    response.headers["Cache-Control"] = "no-store"
    soc: Social = request.app.state.social
    if await soc.invited(me, body.game, body.seat):
        token = await soc.take(me, body.game, body.seat, acc.bind)
    else:
        token = await acc.seat_key(me, body.game, body.seat, session_secret(request))
    return {"game": body.game, "seat": body.seat, "token": token}
