"""The HTTP side of social.py: a player's profile (page and JSON), following, and the
invitations by name of the signed-in account. Every request that changes something is
signed in (``Me``) and passes the origin check (origin.py, for every non-GET request)."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import HTMLResponse

from ..common.refusal import Refused
from ..common.schemas import Done
from ..storage import AccountRow
from ..web.pages import static_page
from .account_routes import Acc, Me, maybe_signed_in
from .schemas import Following, FollowLists, FollowRequest, InvitationRequest, Invitations, Profile, SeatToken
from .social import Social

__all__ = ["router"]

router = APIRouter(tags=["players"])


def social(request: Request) -> Social:
    s: Social = request.app.state.social
    return s


Soc = Annotated[Social, Depends(social)]
Viewer = Annotated[AccountRow | None, Depends(maybe_signed_in)]


@router.get("/player/{name:path}", include_in_schema=False)
async def player_page(name: str, request: Request, soc: Soc) -> HTMLResponse:
    """A player's profile page (its script reads /api/players/{name}); 404 for a name
    without an account (never made, or deleted), the same page saying so."""
    page = static_page(request, "player.html")
    try:
        await soc.account(name)
    except Refused:
        page.status_code = 404
    return page


@router.get("/api/players/{name:path}", response_model=Profile)
async def player(name: str, response: Response, soc: Soc, viewer: Viewer) -> Profile:
    """A player's public profile: games, wins, mean score and place by number of players,
    the rating and its history, the last games (to watch or replay). ``no_player`` (404)
    for a name without an account."""
    response.headers["Cache-Control"] = "no-store"
    return await soc.profile(name, viewer)  # type: ignore[return-value]


@router.post("/api/account/follow", response_model=Following)
async def follow(body: FollowRequest, soc: Soc, me: Me) -> Following:
    """Follow a player (``follow: false``: stop); not oneself (``follow_self``)."""
    name, now = await soc.follow(me, body.name, body.follow)
    return {"name": name, "following": now}


@router.get("/api/account/follows", response_model=FollowLists)
async def follows(response: Response, soc: Soc, me: Me) -> FollowLists:
    """Whom the account follows, and who follows it."""
    response.headers["Cache-Control"] = "no-store"
    return await soc.follow_lists(me)  # type: ignore[return-value]


@router.get("/api/account/invitations", response_model=Invitations)
async def invitations(response: Response, soc: Soc, me: Me) -> Invitations:
    """The account's pending invitations by name (``received``) and those it sent that
    nobody has taken yet (``sent``), of games still open or under way."""
    response.headers["Cache-Control"] = "no-store"
    return await soc.invitations(me)  # type: ignore[return-value]


@router.post("/api/account/invitations/take", response_model=SeatToken)
async def take(body: InvitationRequest, response: Response, soc: Soc, acc: Acc, me: Me) -> SeatToken:
    """Take a seat the account is invited to: it is the account's, and this device gets a
    token of it (in this answer only). ``no_invitation`` for a seat kept for another."""
    response.headers["Cache-Control"] = "no-store"
    token = await soc.take(me, body.game, body.seat, acc.bind)
    return {"game": body.game, "seat": body.seat, "token": token}


@router.post("/api/account/invitations/decline", response_model=Done)
async def decline(body: InvitationRequest, soc: Soc, me: Me) -> Done:
    """Decline an invitation (the seat's link still works for whoever has it)."""
    await soc.decline(me, body.game, body.seat)
    return {"ok": True}


@router.post("/api/account/invitations/withdraw", response_model=Done)
async def withdraw(body: InvitationRequest, soc: Soc, me: Me) -> Done:
    """Withdraw an invitation the account sent (``no_invitation`` when it sent none to
    that seat): the seat is kept for nobody any more; its link still works."""
    await soc.withdraw(me, body.game, body.seat)
    return {"ok": True}
