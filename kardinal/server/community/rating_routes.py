"""The HTTP side of ratings: the leaderboard (``/players`` and ``/api/leaderboard``), a
finished game's rating changes, the account's rating, "find me a table", and starting a
waiting table with bots."""

from __future__ import annotations

import asyncio
from typing import Annotated

from fastapi import APIRouter, Depends, Request, Response
from fastapi.responses import HTMLResponse

from kardinal.bots import levels

from ..play.service import GameService
from ..storage import AccountRow
from ..web.http import client_address
from ..web.pages import root_of, static_page
from .account_routes import Me, maybe_signed_in
from .privacy import told_owners
from .rated import fill_plan, fill_with_bots, find_table, rating_now
from .ratings import BOT_RATINGS, MU0, SIGMA0, shown
from .results import stored_results
from .schemas import Filled, FillPlan, FillSeats, FindTable, FoundTable, GameRatings, Leaderboard, MyRating

__all__ = ["router", "leaderboard_games"]

router = APIRouter(tags=["ratings"])

RECENT = 50  # the account's last games whose results are made sure of (its page)


def leaderboard_games(request: Request) -> int:
    """Rated games a player needs to be on the leaderboard (``KARDINAL_LEADERBOARD_GAMES``: the app's settings)."""
    n: int = request.app.state.settings.leaderboard_games
    return n


def _service(request: Request) -> GameService:
    svc: GameService = request.app.state.service
    return svc


Service = Annotated[GameService, Depends(_service)]
Viewer = Annotated[AccountRow | None, Depends(maybe_signed_in)]


@router.get("/players", include_in_schema=False)
async def players_page(request: Request) -> HTMLResponse:
    """The leaderboard's page."""
    return static_page(request, "players.html")


@router.get("/api/leaderboard", response_model=Leaderboard)
async def leaderboard(request: Request, service: Service, response: Response) -> Leaderboard:
    """The players with at least ``min_games`` rated games, best first by mu − 2 sigma
    (``rating``: mu, ``pm``: 2 sigma, rounded); and the bots' fixed ratings, for scale."""
    n = leaderboard_games(request)
    rows = await asyncio.to_thread(service.storage.leaderboard, n)
    response.headers["Cache-Control"] = "no-store"
    return {
        "min_games": n,
        "players": [
            {
                "rank": i + 1,
                "name": name,
                "rating": shown(mu, sigma)[0],
                "pm": shown(mu, sigma)[1],
                "mu": mu,
                "sigma": sigma,
                "games": games,
            }
            for i, (name, mu, sigma, games) in enumerate(rows)
        ],
        "bots": [
            {
                "level": name,
                "rating": round(BOT_RATINGS[name].mu),
                "low": round(BOT_RATINGS[name].low),
                "high": round(BOT_RATINGS[name].high),
                "measured": BOT_RATINGS[name].measured,
            }
            for name, _ in levels(offered=True)
            if name in BOT_RATINGS
        ],
        "newcomer": round(MU0),
    }


@router.get("/api/games/{game_id}/ratings", response_model=GameRatings)
async def game_ratings(game_id: str, service: Service, response: Response, viewer: Viewer) -> GameRatings:
    """A finished game's rating changes per seat of an account (``settled``: the game's
    results are stored; a rated game's ratings were updated with them); of a game not
    listed in the lobby, the asking account's own seat's only (privacy.py). Asking
    settles a finished game that was not yet (its update had failed)."""
    live = await service.fetch(game_id)
    if live.row.status != "finished":  # finished through another process, maybe (PostgreSQL)
        live = await service.caught_up(live)
    rated = live.options["rated"]
    response.headers["Cache-Control"] = "no-store"
    if live.row.status != "finished":
        return {"game": game_id, "rated": rated, "settled": False, "seats": {}}
    have = await stored_results(service, [game_id])
    changes = await asyncio.to_thread(service.storage.game_rating_events, game_id) if rated else {}
    told = told_owners(live.row.options, {s: c["account_id"] for s, c in changes.items()}, viewer.id if viewer is not None else None)
    return {
        "game": game_id,
        "rated": rated,
        "settled": game_id in have,
        "seats": {
            str(s): {
                "name": c["account"],
                "before": round(c["before"]),
                "after": round(c["mu"]),
                "change": round(c["mu"]) - round(c["before"]),
                "pm": round(2 * c["sigma"]),
                "pm_before": round(2 * (c["sigma_before"] if c["sigma_before"] is not None else SIGMA0)),
            }
            for s, c in sorted(changes.items())
            if s in told
        },
    }


@router.get("/api/account/rating", response_model=MyRating)
async def my_rating(request: Request, service: Service, me: Me, response: Response) -> MyRating:
    """The account's rating (a newcomer's before its first rated game) and its rated games,
    newest first. The account's last finished games are settled first if they were not."""
    owned = await asyncio.to_thread(service.storage.owned_seats, me.id, RECENT)
    await stored_results(service, [g for g, _ in owned])
    mu, sigma, games = (await rating_now(service, [me.id]))[me.id]
    events = await asyncio.to_thread(service.storage.rating_events_of, me.id)
    response.headers["Cache-Control"] = "no-store"
    return {
        "rating": shown(mu, sigma)[0],
        "pm": shown(mu, sigma)[1],
        "mu": mu,
        "sigma": sigma,
        "games": games,
        "min_games": leaderboard_games(request),
        "events": [
            {"game": e["game"], "at": e["at"], "before": round(e["before"]), "after": round(e["mu"]), "pm": round(2 * e["sigma"])}
            for e in events
        ],
    }


@router.post("/api/find-table", response_model=FoundTable)
async def find_me_a_table(body: FindTable, request: Request, service: Service, me: Me) -> FoundTable:
    """Find me a table: a seat at the open rated table whose people's rating is closest to
    the account's, else a new rated table of four with three open seats (``new``). The
    answer's link opens the seat (a token: keep it as a seat's link is kept)."""
    limits = request.app.state.limits
    where = client_address(request.scope)
    limits.check("create", where)
    live, seat, token, new = await find_table(service, me, where, charge=lambda: limits.spend("create", where))
    page = f"{root_of(request)}/game/{live.row.id}"
    return {"id": live.row.id, "seat": seat, "token": token, "url": f"{page}?seat={seat}&token={token}", "new": new}


@router.get("/api/games/{game_id}/fill", response_model=FillPlan)
async def get_fill_plan(game_id: str, service: Service) -> FillPlan:
    """The seats "Start with bots" would give bots now: none while every free seat is kept
    for someone (the page then offers no button, and says the table waits for them); at a
    "Play again" table, until when its people's seats are kept for them (``until``)."""
    seats, until = await fill_plan(service, await service.fetch(game_id))
    return {"seats": seats, "until": None if until is None else int(until) + 1}


@router.post("/api/games/{game_id}/fill", response_model=Filled)
async def fill(game_id: str, body: FillSeats, service: Service) -> Filled:
    """Start a table that waits for people: a person who has taken a seat of it (their
    token) puts bots in its free seats (a rated table: of the level closest to its people's
    rating; else of its stand-in level); the game starts."""
    live, level = await fill_with_bots(service, game_id, body.seat, body.token)
    return {"ok": True, "status": live.row.status, "level": level}
