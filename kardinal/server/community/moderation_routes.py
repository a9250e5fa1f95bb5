"""The HTTP side of moderation (moderation.py): mute and block a player, the lists of them,
the seats of a game whose chat the account does not want to read, and reporting a line."""

from __future__ import annotations

from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response

from ..web.http import client_address
from .account_routes import Me, maybe_signed_in
from .moderation import Moderation
from .schemas import ModerationLists, MuteAnswer, MuteRequest, ReportAnswer, ReportRequest, Silenced

__all__ = ["router"]

router = APIRouter(tags=["moderation"])


def moderation(request: Request) -> Moderation:
    mod: Moderation = request.app.state.moderation
    return mod


Mod = Annotated[Moderation, Depends(moderation)]


@router.post("/api/moderation/mute", response_model=MuteAnswer)
async def mute(body: MuteRequest, mod: Mod, me: Me) -> MuteAnswer:
    """Mute a player's chat for this account (``on`` false: unmute), by name or by seat."""
    return {"scope": await mod.mute(me, body.on, body.game, body.seat, body.name)}


@router.post("/api/moderation/block", response_model=MuteAnswer)
async def block(body: MuteRequest, mod: Mod, me: Me) -> MuteAnswer:
    """Block a player (``on`` false: unblock): their chat hidden, no invitations between
    you, not seated together by "find me a table"."""
    return {"scope": await mod.block(me, body.on, body.game, body.seat, body.name)}


@router.get("/api/moderation", response_model=ModerationLists)
async def lists(response: Response, mod: Mod, me: Me) -> ModerationLists:
    """The players this account muted and blocked."""
    response.headers["Cache-Control"] = "no-store"
    return await mod.lists(me)  # type: ignore[return-value]


@router.get("/api/moderation/silenced", response_model=Silenced)
async def silenced(game: str, response: Response, mod: Mod, me: Me) -> Silenced:
    """The seats of ``game`` whose chat this account muted or blocked (``seats``), and
    which of them it muted and which it blocked."""
    response.headers["Cache-Control"] = "no-store"
    return await mod.silenced(me, game)  # type: ignore[return-value]


@router.post("/api/moderation/report", response_model=ReportAnswer)
async def report(body: ReportRequest, request: Request, mod: Mod) -> ReportAnswer:
    """Report a chat line to the operator: signed in, or as a player of the game (``seats``)."""
    me = await maybe_signed_in(request)
    seats = {int(k): v for k, v in body.seats.items()}
    found = await mod.report(me, seats, body.game, body.line, body.reason, client_address(request.scope))
    return {"report": found.id}
