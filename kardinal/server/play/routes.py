"""The HTTP API of games: the lobby, tables and seats, actions, and what a game leaves
(records, scorings, replays, chat). Every body is a declared model (schemas.py); the game
service, the rate limits and the client's address come in as dependencies."""

from __future__ import annotations

import asyncio
import json
import secrets
import time
from collections.abc import Callable
from dataclasses import asdict
from typing import Annotated, Any

from fastapi import APIRouter, Depends, Request
from fastapi.responses import JSONResponse, Response

from kardinal.bots import levels
from kardinal.rules.board import installed_boards
from kardinal.rules.variants import VARIANTS

from ..common.guard import Guard
from ..common.names import look_key, own_name
from ..common.refusal import Refused
from ..community.account_routes import maybe_signed_in
from ..community.accounts import Accounts
from ..community.rated import admit, check_creation
from ..community.social import Social
from ..storage import AccountRow
from ..web.http import client_address
from ..web.mapdata import named_board_json
from ..web.pages import root_of
from .chat import chat_message
from .messages import AckMessage, ChatMessage, ReplayMessage, ScoringMessage, StateMessage
from .rematch import moved
from .schemas import (
    ActionRequest,
    AgainAnswer,
    AgainRequest,
    BotList,
    Claimed,
    ClaimSeat,
    CreatedGame,
    CreateGame,
    GameList,
    GameSummary,
    Joined,
    JoinSeat,
    SeatLink,
    UndoRequest,
    VariantList,
)
from .service import GameService

router = APIRouter(tags=["games"])


def service(request: Request) -> GameService:
    """The process's game service (create_app puts it in the app's state)."""
    svc: GameService = request.app.state.service
    return svc


def limits(request: Request) -> Guard:
    """The rate limits per address (guard.py)."""
    guard: Guard = request.app.state.limits
    return guard


def addr(request: Request) -> str:
    """The client's address (behind a trusted proxy, the one it forwards)."""
    return client_address(request.scope)


def spend(bucket: str) -> Callable[[Request], None]:
    """A dependency that spends one of the address's ``bucket`` (guard.py), before the
    body is even looked at: an address over its limit is refused whatever it sends."""

    def spent(request: Request) -> None:
        limits(request).spend(bucket, addr(request))

    return spent


def over(bucket: str) -> Callable[[Request], None]:
    """A dependency that refuses an address already over its ``bucket`` (counting
    nothing: the route spends it when it does the work), before the body is looked at."""

    def checked(request: Request) -> None:
        limits(request).check(bucket, addr(request))

    return checked


Service = Annotated[GameService, Depends(service)]
Limits = Annotated[Guard, Depends(limits)]
# the account of the request's session (None: a guest): seats taken signed in are its
Account = Annotated[AccountRow | None, Depends(maybe_signed_in)]


def accounts(request: Request) -> Accounts:
    acc: Accounts = request.app.state.accounts
    return acc


def social(request: Request) -> Social:
    soc: Social = request.app.state.social
    return soc


@router.get("/api/board", response_model=dict[str, Any])
def get_board_json(id: str = "standard") -> Any:  # sync: FastAPI runs it in a thread
    """An installed board with its map layout (``id``: standard, reconstruction-1, ...)."""
    if id not in installed_boards():
        return JSONResponse({"error": {"code": "no_board", "message": f"boards: {', '.join(installed_boards())}", "params": {}}}, 404)
    return named_board_json(id)


@router.get("/api/bots", response_model=BotList)
async def bots() -> BotList:
    """The bots players choose from on this installation, weakest first, each described
    (not the research bots: a table takes them by name all the same)."""
    return {
        "levels": [name for name, _ in levels(offered=True)],
        "about": {
            name: {
                "summary": lv.summary,
                "seconds": lv.seconds,
                "strength": lv.strength,
                "record": asdict(lv.record) if lv.record else None,  # type: ignore[typeddict-item]
            }
            for name, lv in levels(offered=True)
        },
    }


@router.get("/api/variants", response_model=VariantList)
async def variants() -> VariantList:
    """The rule variants a game can be created with (R14), and the installed boards."""
    return {"variants": dict(VARIANTS), "boards": list(installed_boards())}


@router.get("/api/games", response_model=GameList)
async def list_games(request: Request, service: Service) -> GameList:
    """The lobby: the public games, newest first (a game made private is reached only
    through its links; an open friends-only table only by its host's friends)."""
    rows = await asyncio.to_thread(service.storage.list_games)
    rows = await social(request).lobby([r for r in rows if r.options.get("public") is not False], lambda: maybe_signed_in(request))
    return {"games": [service.summary(r) for r in rows]}  # type: ignore[misc]


@router.post("/api/games", response_model=CreatedGame)
async def create_game(
    body: CreateGame,
    request: Request,
    service: Service,
    limits: Limits,
    account: Account,
    _over: Annotated[None, Depends(over("create"))],
) -> CreatedGame:
    """A new table: its seats' secret links (shown once: keep them) and the spectators'
    address. ``key``: the client's key for this creation (the same key twice makes one game).
    Signed in, the creator's seat is the account's at once: the first person seat ("Your name"
    on the form) unless it is open to anyone or kept for an invited account (so My games
    lists the table, and the game's plain address opens the seat on any device the account
    signs in on), or every seat of a hot-seat table. Another seat opened signed in becomes
    the account's then (the game's WebSocket)."""
    spec = body.model_dump(exclude_unset=True, exclude={"key"})
    # invitations by name and friends-only tables (social.py): checked before anything is made
    invited = await social(request).invitees(account, spec["players"], body.hotseat)
    for s, a in invited.items():
        spec["players"][s].setdefault("name", a.name)
    if account is not None:
        own_seat(spec["players"], account)
    if body.friends:
        if account is None:
            raise Refused("signed_out", "sign in to open a table to friends only", 401)
        spec["host"] = account.id
    check_creation(spec, account)  # a rated table: signed in, no hot-seat, no hints (rated.py)
    where = addr(request)
    # charged once a game is really made: the second click of a double click (the same
    # key) gets the first one's game and costs nothing
    live, tokens = await service.create(spec, creator=where, key=body.key, charge=lambda: limits.spend("create", where))
    gid = live.row.id
    page = f"{root_of(request)}/game/{gid}"  # the addresses are under the server's root path
    seats: list[SeatLink] = [
        {"seat": s, "name": live.row.seats[s].name, "token": t, "url": f"{page}?seat={s}&token={t}"} for s, t in sorted(tokens.items())
    ]
    out: CreatedGame = {
        "id": gid,
        "status": live.row.status,
        "seats": seats,
        "watch": page,
        "public": live.options["public"],
    }
    if account is not None and invited:  # before the creator's seats: a kept seat stays the invitee's
        await social(request).invite(gid, account, invited)
    if account is not None and tokens:
        # an open seat is not the creator's (whoever claims it from the lobby gets a new
        # token), nor one kept for an invited account (attach leaves it to them)
        if live.row.hotseat:
            mine = await accounts(request).attach(account, [(gid, s) for s in sorted(tokens)])
        elif not live.row.seats[first := min(tokens)].open:
            mine = await accounts(request).attach(account, [(gid, first)])
        else:
            mine = []
        for _, s in mine:  # the creator's WebSocket opens them with nothing to bind (LiveGame.owned_by)
            live.note_owner(s, account.id)
    if live.row.hotseat:
        out["hotseat_url"] = f"{page}?tokens=" + ",".join(f"{s}:{t}" for s, t in sorted(tokens.items()))
    return out


@router.get("/api/games/{game_id}", response_model=GameSummary)
async def game_info(game_id: str, service: Service) -> GameSummary:
    """A game as the lobby lists it."""
    return service.summary((await service.fetch(game_id)).row)  # type: ignore[return-value]


@router.post("/api/games/{game_id}/join", response_model=Joined)
async def join(game_id: str, body: JoinSeat, request: Request, service: Service, account: Account) -> Joined:
    """Take one's seat by its link; the game starts when every seat has been taken.
    Signed in, the seat is the account's (unless it is another account's already); a rated
    table's seats are for accounts only (``rated_needs_account``), one each (``rated_one_seat``).
    A seat that becomes the account's gets a new secret link (``token``, ``url``): the one
    it was taken with opens it no more (whoever else was shown it, its creator too)."""
    live = await service.fetch(game_id)
    service._auth(live, body.seat, body.token)
    newly = await admit(accounts(request), live, body.seat, account)
    # the seat becomes the account's first, and its new token is set in the same change that
    # takes it: the link others were shown ends before the game this join may start
    if account is not None:
        _mine, new = await accounts(request).bind(account, [(game_id, body.seat)])
        newly = newly or (game_id, body.seat) in new
    tok = secrets.token_urlsafe(18) if newly else None
    name = body.name
    if name is None and account is not None and live.row.status == "open":
        name = own_name(live.row.seats, body.seat, account.name)  # signed in: an unnamed seat takes the account's name
    try:
        live = await service.join(game_id, body.seat, body.token, name, new_token=tok)
    except BaseException:
        if newly and account is not None:  # the account's by this request: free again
            await asyncio.to_thread(service.storage.release_seat, game_id, body.seat, account.id)
        raise
    out: Joined = {"ok": True, "status": live.row.status}
    if tok is not None:
        out["token"] = tok
        out["url"] = seat_url(request, game_id, body.seat, tok)
    return out


def own_seat(players: list[dict[str, Any]], account: AccountRow) -> None:
    """Signed in, the creator's seat (the first: "Your name"), a person's seat kept for
    nobody else and given no name, takes the account's name (unless another seat has it)."""
    first = players[0] if players else None
    if (
        not isinstance(first, dict)
        or first.get("kind", "person") != "person"
        or first.get("name")
        or first.get("open")
        or first.get("account")
    ):
        return
    others = [p.get("name") for p in players[1:] if isinstance(p, dict)]
    if not any(isinstance(n, str) and look_key(n) == look_key(account.name) for n in others):
        first["name"] = account.name


def seat_url(request: Request, game_id: str, seat: int, token: str) -> str:
    """A seat's secret link (under the server's root path)."""
    return f"{root_of(request)}/game/{game_id}?seat={seat}&token={token}"


@router.post("/api/games/{game_id}/claim", response_model=Claimed)
async def claim(
    game_id: str,
    body: ClaimSeat,
    request: Request,
    service: Service,
    account: Account,
    _spent: Annotated[None, Depends(spend("claim"))],
) -> Claimed:
    """Take a free open seat from the lobby: its new secret link (signed in: the seat is the
    account's; a rated table's only signed in, one seat each). At a friends-only table, only for the accounts its host follows (``friends_only``)."""
    await social(request).check_claim(game_id, account)
    live = await service.fetch(game_id)
    kept = await admit(accounts(request), live, body.seat, account)  # a rated table: kept for the account
    name = body.name
    if not (name and name.strip()) and account is not None:
        name = own_name(live.row.seats, body.seat, account.name, named_too=True) or name  # signed in: the account's name
    try:
        tok = await service.claim(game_id, body.seat, name, owner=account.id if account is not None else None)
    except BaseException:
        if kept and account is not None:
            await asyncio.to_thread(service.storage.release_seat, game_id, body.seat, account.id)
        raise
    if account is not None:
        await accounts(request).attach(account, [(game_id, body.seat)])
    return {"seat": body.seat, "token": tok, "url": seat_url(request, game_id, body.seat, tok)}


# the answers are made by the service from typed messages: declared for the document,
# not validated again on their way out (``responses``, not ``response_model``)
@router.post("/api/games/{game_id}/actions", response_model=None, responses={200: {"model": AckMessage}})
async def post_action(game_id: str, body: ActionRequest, service: Service) -> AckMessage:
    """One decision of the seat whose token it carries, at state ``version``."""
    return await service.submit(game_id, body.model_dump(by_alias=True, exclude_unset=True))


@router.post("/api/games/{game_id}/undo", response_model=None, responses={200: {"model": AckMessage}})
async def post_undo(game_id: str, body: UndoRequest, service: Service) -> AckMessage:
    """Take back one's own placement before drawing."""
    return await service.undo(game_id, body.model_dump(exclude_unset=True))


@router.get("/api/games/{game_id}/state", response_model=None, responses={200: {"model": StateMessage}})
async def get_state(game_id: str, service: Service, seat: int | None = None, token: str | None = None) -> Response:
    """The state message (``StateMessage``), made once per change and shared."""
    live = await service.fetch(game_id)
    if seat is not None:
        service._auth(live, seat, token)
    return Response(live.message_text(seat), media_type="application/json")


@router.get("/api/games/{game_id}/record", response_model=None, responses={200: {"model": dict[str, Any]}})
async def get_record(game_id: str, service: Service) -> Response:
    """A finished game's record (kardinal-record: replays to the same game anywhere)."""
    await service.fetch(game_id)  # read off the event loop (then in memory)
    rec = service.record(game_id)
    return Response(
        json.dumps(rec, indent=1) + "\n",
        media_type="application/json",
        headers={"Content-Disposition": f'attachment; filename="kardinal-{game_id}.json"'},
    )


@router.get("/api/games/{game_id}/scoring", response_model=None, responses={200: {"model": ScoringMessage}})
async def get_scoring(game_id: str, service: Service) -> ScoringMessage:
    """The intermediate and final scoring so far, in detail (public; live games and replays)."""
    await service.fetch(game_id)
    return service.scoring(game_id)


@router.post("/api/games/{game_id}/again", response_model=AgainAnswer)
async def play_again(game_id: str, body: AgainRequest, request: Request, service: Service, limits: Limits) -> AgainAnswer:
    """Play again after a finished game: ``{"seats": {seat: token}}`` (the tokens the
    page holds; nothing in a game of bots only). The people keep their tokens, the start
    player moves on one seat; ``seats`` answers where each seat asked for sits in the new
    game (``{old seat: new seat}``). However many press it, one new game, counted against
    the first presser's limits."""
    held = {int(k): tok for k, tok in body.seats.items()} if body.seats is not None else None
    where = addr(request)
    # a block promises no table together again (moderation.py): no follow-up seats both
    owners = list((await asyncio.to_thread(service.storage.game_owners, game_id)).values())
    if len(owners) > 1 and await asyncio.to_thread(service.storage.blocked_between, owners, owners):
        raise Refused("blocked_at_table", "someone at this table has blocked another player: make a new table instead", 409)
    made: list[bool] = []  # by this press (charged only then): its people are told of it, once

    def charge() -> None:
        limits.spend("create", where)
        made.append(True)

    new = await service.again(game_id, held, creator=where, charge=charge)
    old = await service.fetch(game_id)
    follows = moved(old.row.seats, new.row.seats)
    # the new game's seats belong to the accounts whose seats they follow
    await asyncio.to_thread(service.storage.copy_owners, game_id, new.row.id, follows, time.time())
    if made:
        await service.followed_up(game_id, new.row.id, follows, sorted(held or {}))
    seats = {str(s): n for s, n in follows.items() if held is not None and s in held}
    gone = sorted(s for s in held or {} if s not in follows)  # their seats went to bots (a table started without them)
    return {"id": new.row.id, "status": new.row.status, "watch": f"{root_of(request)}/game/{new.row.id}", "seats": seats, "gone": gone}


@router.get("/api/games/{game_id}/chat", response_model=None, responses={200: {"model": ChatMessage}})
async def get_chat(game_id: str, service: Service) -> ChatMessage:
    """The game's chat (public: players and spectators read it; the replay shows it)."""
    return chat_message(await service.chat_lines(await service.fetch(game_id)))


@router.get("/api/games/{game_id}/replay/{step}", response_model=None, responses={200: {"model": ReplayMessage}})
async def replay_step(game_id: str, step: int, service: Service) -> ReplayMessage:
    """A finished game after ``step`` actions, with every hand."""
    await service.fetch(game_id)
    return service.replay_step(game_id, step)
