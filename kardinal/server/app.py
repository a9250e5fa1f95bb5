"""The web server: an ASGI app (FastAPI) with a JSON lobby API and WebSockets for live play.

Pages: ``/`` the lobby, ``/game/{id}`` a game (``?seat=2&token=...`` for a player,
``?tokens=0:...,2:...`` for hot-seat, nothing for spectators).

API: ``GET /api/board``, ``GET /api/bots``, ``GET|POST /api/games``,
``GET /api/games/{id}``, ``POST /api/games/{id}/join``, ``POST /api/games/{id}/claim``,
``POST /api/games/{id}/actions``, ``GET /api/games/{id}/state``,
``GET /api/games/{id}/record`` and ``/replay/{step}`` (finished games only).

WebSocket ``/ws/{id}``: the client sends ``{"type": "hello", "seats": {"2": token}}``
(no seats: a spectator; ``"delta": true``: state messages after the first carry only the
history's new entries, see StateMessage), then ``{"type": "action", "id", "seat",
"token", "version", "action"}``; the server answers ``welcome``, ``state`` (after every
change), ``ack`` and ``error`` messages. Every state message is built from
``kardinal.rules.view``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import re
import time
from collections.abc import AsyncIterator, Callable, Sequence
from concurrent.futures import Executor
from importlib import metadata, resources
from pathlib import Path
from typing import Any

import orjson
from fastapi import Depends, FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from pydantic import ValidationError
from starlette.datastructures import URL, MutableHeaders, QueryParams
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kardinal.bots import levels
from kardinal.rules.board import installed_boards
from kardinal.rules.variants import VARIANTS

from .chat import MAX_CHAT, chat_message
from .guard import Guard
from .live import Connection, LiveGame
from .mapdata import named_board_json
from .messages import AckMessage, ChatMessage, ErrorMessage, ReplayMessage, ScoringMessage, StateMessage, json_text
from .names import MAX_NAME
from .pages import root_of, static_page
from .refusal import Refused
from .rules_page import rules_response
from .schemas import (
    CLIENT_MESSAGE,
    SERVER_MESSAGE,
    ActionMessage,
    ActionRequest,
    AgainAnswer,
    AgainRequest,
    BotList,
    ChatSay,
    Claimed,
    ClaimSeat,
    CreatedGame,
    CreateGame,
    ErrorBody,
    GameList,
    GameSummary,
    Health,
    HelloMessage,
    Joined,
    JoinSeat,
    PingMessage,
    Readiness,
    SeatLink,
    UndoMessage,
    UndoRequest,
    VariantList,
    first_error,
    token_error,
)
from .service import GameService
from .storage import Storage, StorageError
from .teach import router as teach_router
from .tutorial import router as tutorial_router

__all__ = ["create_app", "DEFAULT_DATA"]

DEFAULT_DATA = Path("data")
log = logging.getLogger("kardinal.web")
STATIC = Path(str(resources.files("kardinal.clients.web").joinpath("static")))
# the documentation site as `make docs` builds it (mkdocs.yml): beside the checkout's
# sources, or where KARDINAL_DOCS says
DOCS_SITE = Path(__file__).resolve().parents[2] / "site"


def _error(e: Refused) -> JSONResponse:
    return JSONResponse({"error": e.to_json()}, status_code=e.status)


MAX_BODY = 64 * 1024  # bytes of a request body or a WebSocket message; a whole game record is about 20 KB
MAX_DEPTH = 16  # nesting of JSON arrays and objects in a WebSocket message; the deepest the protocol has is 5


def _depth_ok(x: Any) -> bool:
    """Whether JSON data nests no deeper than MAX_DEPTH (iteratively: no recursion to exhaust)."""
    stack: list[tuple[Any, int]] = [(x, 1)]
    while stack:
        v, d = stack.pop()
        if isinstance(v, dict):
            v = list(v.values())
        if isinstance(v, list):
            if d > MAX_DEPTH:
                return False
            stack.extend((c, d + 1) for c in v)
    return True


def parse_json(raw: bytes | str) -> Any:
    """A WebSocket message's JSON, refused (``too_large``, ``malformed``) before it can
    cost much: at most MAX_BODY bytes, at most MAX_DEPTH deep. orjson refuses what cannot
    be stored (lone surrogates) and numbers beyond 64 bits, and never recurses deeply."""
    if len(raw) > MAX_BODY:
        raise Refused("too_large", f"at most {MAX_BODY} bytes", 413, max=MAX_BODY)
    # a nesting deeper than the limit is refused before the parser recurses into it
    opens = raw.count(b"[") + raw.count(b"{") if isinstance(raw, bytes) else raw.count("[") + raw.count("{")
    try:
        data = orjson.loads(raw)
    except (ValueError, RecursionError):  # orjson.JSONDecodeError is a ValueError
        raise Refused("malformed", "the body must be JSON", 400) from None
    if opens > MAX_DEPTH and not _depth_ok(data):
        raise Refused("malformed", f"JSON nested deeper than {MAX_DEPTH}", 400)
    return data


def _invalid(errors: Sequence[Any], message: bool = False) -> Refused:
    """A refusal of a body or message that failed its declaration: ``malformed`` with the
    path of the first field at fault (``params.field``)."""
    path, words = first_error(errors, message)
    if token_error(errors):  # told apart from a wrong token by nothing
        return Refused("bad_token", "no such seat, or a wrong token", 403, field=path)
    # names and chat lines keep the refusals the pages say in words of their own
    if path == "name" or path.endswith(".name"):
        return Refused("bad_name", f"{path}: {words}", 400, max=MAX_NAME)
    if path == "text" and message and not str(errors[0].get("type", "")).endswith("_type"):
        return Refused("bad_chat", f"{path}: {words}", 400, max=MAX_CHAT)
    if not path:
        return Refused("malformed", words, 400)
    return Refused("malformed", f"{path}: {words}", 400, field=path)


try:
    _VERSION = metadata.version("kardinal")
except metadata.PackageNotFoundError:  # run from a source tree that was never installed
    _VERSION = "0"

# the refusals any operation may give, each in the project's error format (ErrorBody)
ERRORS: dict[int | str, dict[str, Any]] = {
    400: {
        "model": ErrorBody,
        "description": "malformed: the body or a parameter is not what the operation declares (params.field names it)",
    },
    403: {"model": ErrorBody, "description": "bad_token (no such seat, or a wrong token), or not allowed at this table"},
    404: {"model": ErrorBody, "description": "no_game, or no such page"},
    409: {"model": ErrorBody, "description": "not possible now: not your turn, a stale version, a seat taken, a name taken..."},
    413: {"model": ErrorBody, "description": f"too_large: a body of more than {MAX_BODY} bytes"},
    422: {"model": ErrorBody, "description": "illegal: the rules refuse the move (params, rule and reason say why)"},
    429: {"model": ErrorBody, "description": "rate_limited (params.retry: seconds), or too many games of bots only"},
    503: {"model": ErrorBody, "description": "unavailable: the database or a worker could not do it; nothing was changed"},
}


def _openapi(app: FastAPI) -> dict[str, Any]:
    """The OpenAPI document, with the WebSocket's messages as the schemas ClientMessage
    (what a client sends on ``/ws/{game_id}``) and ServerMessage (what it receives)."""
    if app.openapi_schema is None:
        doc = get_openapi(title=app.title, version=app.version, summary=app.summary, description=_WS_DOC, routes=app.routes)
        schemas = doc.setdefault("components", {}).setdefault("schemas", {})
        for name, adapter in (("ClientMessage", CLIENT_MESSAGE), ("ServerMessage", SERVER_MESSAGE)):
            js = adapter.json_schema(ref_template="#/components/schemas/{model}")
            for k, v in js.pop("$defs", {}).items():
                schemas.setdefault(k, v)
            schemas[name] = js
        app.openapi_schema = doc
    return app.openapi_schema


_WS_DOC = """The JSON API of a Kardinal server. Every refusal is `{"error": {"code", "message", "params"}}`
with a stable `code`; a body that is not what its operation declares is refused with `malformed`
and the field's path in `params.field`.

**WebSocket `/ws/{game_id}`**, for live play: the client sends `hello` first (the seats it holds:
`{"seats": {"2": token}}`; none for a spectator), then `action`, `undo`, `chat` and `ping` messages
(the schema `ClientMessage`); the server answers with `welcome`, then a `state` message after every
change, and `ack`, `error`, `chat` and `pong` messages (the schema `ServerMessage`). Messages are
JSON text of at most 64 KiB."""


_NO_DOCS = """<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Kardinal: documentation</title></head>
<body><h1>The documentation is not built here</h1><p>This installation has no built documentation site.
<code>make docs</code> in a checkout builds it (from <code>docs/</code>); <code>make run</code> builds it before it starts
the server, and <code>KARDINAL_DOCS</code> may name a built site elsewhere.</p><p><a href="../">Back to the lobby</a></p></body></html>
"""


def create_app(
    data_dir: str | Path | None = None,
    db_url: str | None = None,
    bot_pause: float | None = None,
    executor: Executor | None = None,
    max_live: int = 5000,
    guard: Guard | None = None,
    table_check: float = 1.0,
    idle_expiry: float | None = None,
    docs_dir: str | Path | None = None,
) -> FastAPI:
    """The app; state in ``data_dir/kardinal.sqlite3`` (or ``db_url``). ``table_check``:
    seconds between looks for people away on their turn (GameService.watch_tables);
    ``idle_expiry``: seconds without a change after which an unfinished game expires
    (None: never); ``docs_dir``: the built documentation site, served at ``/docs/``
    (default: KARDINAL_DOCS, else the checkout's ``site/``)."""
    if db_url is None:
        d = Path(data_dir) if data_dir is not None else Path(os.environ.get("KARDINAL_DATA", DEFAULT_DATA))
        storage = Storage.sqlite(d / "kardinal.sqlite3")
    else:
        storage = Storage(db_url)
    if bot_pause is None:
        bot_pause = float(os.environ.get("KARDINAL_BOT_PAUSE", "0.6"))
    service = GameService(storage, bot_pause=bot_pause, executor=executor, max_live=max_live, idle_expiry=idle_expiry)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # the map layout takes a second to compute: do it now, off the event loop
        layout = asyncio.get_running_loop().run_in_executor(None, named_board_json, "standard")
        await service.resume()
        stop = asyncio.Event()
        shared = asyncio.create_task(service.keep_shared(stop)) if storage.shared else None
        tables = asyncio.create_task(service.watch_tables(stop, every=table_check))
        yield
        stop.set()
        await tables
        if shared is not None:
            await shared
        await layout
        for live in service.live.values():
            if live.bot_task is not None:
                live.bot_task.cancel()
        service.executor.shutdown(wait=False, cancel_futures=True)
        storage.close()

    app = FastAPI(
        title="Kardinal",
        summary="Kardinal & König online: tables, seats, moves, hints, replays",
        version=_VERSION,
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        responses=ERRORS,
    )
    app.state.service = service
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]

    app.mount("/static", StaticFiles(directory=STATIC), name="static")
    site = Path(docs_dir if docs_dir is not None else os.environ.get("KARDINAL_DOCS") or DOCS_SITE)
    if (site / "index.html").is_file():
        # the site's links are relative: it works under /docs/ and under a proxy's root path
        app.mount("/docs", StaticFiles(directory=site, html=True), name="docs")
    else:

        @app.get("/docs/{rest:path}", include_in_schema=False)
        async def no_docs(rest: str) -> HTMLResponse:
            return HTMLResponse(_NO_DOCS, status_code=404)

    limits = guard if guard is not None else Guard()

    def addr(conn: Request | WebSocket) -> str:
        return _addr(conn.scope)

    def spend(bucket: str) -> Callable[[Request], None]:
        """A dependency that spends one of the address's ``bucket`` (guard.py), before the
        body is even looked at: an address over its limit is refused whatever it sends."""

        def spent(request: Request) -> None:
            limits.spend(bucket, addr(request))

        return spent

    def over(bucket: str) -> Callable[[Request], None]:
        """A dependency that refuses an address already over its ``bucket`` (counting
        nothing: the route spends it when it does the work), before the body is looked at."""

        def checked(request: Request) -> None:
            limits.check(bucket, addr(request))

        return checked

    @app.exception_handler(Refused)
    async def refused(request: Request, e: Refused) -> JSONResponse:
        if e.code == "bad_token":
            limits.note("bad_token", addr(request))  # a wrong token: guessing is slowed
        return _error(e)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        """A body that is not what its route declares: 400 ``malformed`` naming the field
        (the client's error: no traceback, only the access log's line)."""
        errors = e.errors()
        if token_error(errors):  # a missing or malformed token is a wrong one: guessing is slowed
            limits.note("bad_token", addr(request))
        return _error(_invalid(errors))

    @app.exception_handler(HTTPException)
    async def http_refused(request: Request, e: HTTPException) -> Response:
        """Starlette's own refusals in the project's format: a body over the limit, one
        that is not JSON (FastAPI: "There was an error parsing the body"), no such page."""
        if e.status_code == 413:
            return _error(Refused("too_large", f"at most {MAX_BODY} bytes", 413, max=MAX_BODY))
        if e.status_code == 400:
            return _error(Refused("malformed", "the body must be JSON", 400))
        if e.status_code == 404:
            return _error(Refused("not_found", "no such page", 404))
        if e.status_code == 405:
            return _error(Refused("not_allowed", f"{request.method} is not allowed here", 405))
        return JSONResponse({"error": {"code": "http", "message": str(e.detail), "params": {}}}, e.status_code, headers=e.headers)

    # requests that carry a seat token: refused while their address is over its budget of wrong tokens
    tokened = re.compile(r"^/api/games/[^/]+/(actions|undo|join|again|state|hint)$")

    def token_guard(scope: Scope) -> Response | None:
        # the path within the application: under a reverse proxy's --root-path, the scope's
        # path begins with the root (checked against the path as sent, this guard let every
        # guess through there)
        path, root = scope["path"], scope.get("root_path", "")
        if root and path.startswith(root):
            path = path[len(root) :]
        if tokened.match(path) and (scope["method"] == "POST" or "token" in QueryParams(scope["query_string"])):
            try:
                limits.check("bad_token", _addr(scope))
            except Refused as e:
                return _error(e)
        return None

    app.add_middleware(_HttpHeaders, check=token_guard)

    @app.exception_handler(StorageError)
    async def storage_failed(_request: Request, e: StorageError) -> JSONResponse:
        log.error("the database cannot be used: %s", e)
        return _error(Refused("unavailable", "the game could not be saved; nothing was changed", 503))

    @app.get("/healthz", response_model=Health)
    async def healthz() -> Health:
        """Alive: the process answers (for a process supervisor)."""
        return {"status": "ok"}

    @app.get("/readyz", response_model=None, responses={200: {"model": Readiness}, 503: {"model": Readiness}})
    async def readyz() -> JSONResponse:
        """Ready: the database answers (for a load balancer); 503 while it does not."""
        try:
            await asyncio.to_thread(storage.ping)
        except Exception as e:  # noqa: BLE001 - any failure means "not ready"; its kind only, no details
            return JSONResponse({"status": "unavailable", "database": type(e).__name__}, status_code=503)
        return JSONResponse({"status": "ok", "database": "ok"})

    # the pages, with the server's root path (pages.py: behind a proxy, under a path)
    @app.get("/", include_in_schema=False)
    async def lobby_page(request: Request) -> HTMLResponse:
        return static_page(request, "index.html")

    @app.get("/mine", include_in_schema=False)
    async def my_games_page(request: Request) -> HTMLResponse:
        """The games this browser holds a seat in (their tokens are in its storage)."""
        return static_page(request, "mine.html")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(request: Request, game_id: str) -> HTMLResponse:
        return static_page(request, "game.html")

    app.include_router(teach_router)  # hints and reviews (teach.py)
    app.include_router(tutorial_router)  # /tutorial, /api/tutorial, /api/rules (tutorial.py)

    @app.get("/rules", include_in_schema=False)
    def rules_page(request: Request, lang: str | None = None) -> Response:  # sync: reads docs/rules.md
        """The rules (docs/rules.md) in English or German: ``?lang=de``, else the browser's language."""
        return rules_response(lang, request.headers.get("accept-language"), root_of(request))

    @app.get("/api/board", response_model=dict[str, Any])
    def get_board_json(id: str = "standard") -> Any:  # sync: FastAPI runs it in a thread
        """An installed board with its map layout (``id``: standard, reconstruction-1, ...)."""
        if id not in installed_boards():
            return JSONResponse({"error": {"code": "no_board", "message": f"boards: {', '.join(installed_boards())}"}}, 404)
        return named_board_json(id)

    @app.get("/api/bots", response_model=BotList)
    async def bots() -> BotList:
        """The bots that can run on this installation, weakest first, each described."""
        return {
            "levels": [name for name, _ in levels()],
            "about": {name: {"summary": lv.summary, "seconds": lv.seconds, "strength": lv.strength} for name, lv in levels()},
        }

    @app.get("/api/variants", response_model=VariantList)
    async def variants() -> VariantList:
        """The rule variants a game can be created with (R14), and the installed boards."""
        return {"variants": dict(VARIANTS), "boards": list(installed_boards())}

    @app.get("/api/games", response_model=GameList)
    async def list_games() -> GameList:
        """The lobby: the public games, newest first (a game made private is reached only
        through its links)."""
        rows = await asyncio.to_thread(storage.list_games)
        return {"games": [service.summary(r) for r in rows if r.options.get("public") is not False]}  # type: ignore[misc]

    @app.post("/api/games", response_model=CreatedGame)
    async def create_game(body: CreateGame, request: Request, _over: None = Depends(over("create"))) -> CreatedGame:
        """A new table: its seats' secret links (shown once: keep them) and the spectators'
        address. ``key``: the client's key for this creation (the same key twice makes one game)."""
        spec = body.model_dump(exclude_unset=True, exclude={"key"})
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
        if live.row.hotseat:
            out["hotseat_url"] = f"{page}?tokens=" + ",".join(f"{s}:{t}" for s, t in sorted(tokens.items()))
        return out

    @app.get("/api/games/{game_id}", response_model=GameSummary)
    async def game_info(game_id: str) -> GameSummary:
        """A game as the lobby lists it."""
        return service.summary((await service.fetch(game_id)).row)  # type: ignore[return-value]

    @app.post("/api/games/{game_id}/join", response_model=Joined)
    async def join(game_id: str, body: JoinSeat) -> Joined:
        """Take one's seat by its link; the game starts when every seat has been taken."""
        live = await service.join(game_id, body.seat, body.token, body.name)
        return {"ok": True, "status": live.row.status}

    @app.post("/api/games/{game_id}/claim", response_model=Claimed)
    async def claim(game_id: str, body: ClaimSeat, request: Request, _spent: None = Depends(spend("claim"))) -> Claimed:
        """Take a free open seat from the lobby: its new secret link."""
        tok = await service.claim(game_id, body.seat, body.name)
        return {"seat": body.seat, "token": tok, "url": f"{root_of(request)}/game/{game_id}?seat={body.seat}&token={tok}"}

    # the answers are made by the service from typed messages: declared for the document,
    # not validated again on their way out (``responses``, not ``response_model``)
    @app.post("/api/games/{game_id}/actions", response_model=None, responses={200: {"model": AckMessage}})
    async def post_action(game_id: str, body: ActionRequest) -> AckMessage:
        """One decision of the seat whose token it carries, at state ``version``."""
        return await service.submit(game_id, body.model_dump(by_alias=True, exclude_unset=True))

    @app.post("/api/games/{game_id}/undo", response_model=None, responses={200: {"model": AckMessage}})
    async def post_undo(game_id: str, body: UndoRequest) -> AckMessage:
        """Take back one's own placement before drawing."""
        return await service.undo(game_id, body.model_dump(exclude_unset=True))

    @app.get("/api/games/{game_id}/state", response_model=None, responses={200: {"model": StateMessage}})
    async def get_state(game_id: str, seat: int | None = None, token: str | None = None) -> Response:
        """The state message (``StateMessage``), made once per change and shared."""
        live = await service.fetch(game_id)
        if seat is not None:
            service._auth(live, seat, token)
        return Response(live.message_text(seat), media_type="application/json")

    @app.get("/api/games/{game_id}/record", response_model=None, responses={200: {"model": dict[str, Any]}})
    async def get_record(game_id: str) -> Response:
        """A finished game's record (kardinal-record: replays to the same game anywhere)."""
        await service.fetch(game_id)  # read off the event loop (then in memory)
        rec = service.record(game_id)
        return Response(
            json.dumps(rec, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="kardinal-{game_id}.json"'},
        )

    @app.get("/api/games/{game_id}/scoring", response_model=None, responses={200: {"model": ScoringMessage}})
    async def get_scoring(game_id: str) -> ScoringMessage:
        """The intermediate and final scoring so far, in detail (public; live games and replays)."""
        await service.fetch(game_id)
        return service.scoring(game_id)

    @app.post("/api/games/{game_id}/again", response_model=AgainAnswer)
    async def play_again(game_id: str, body: AgainRequest, request: Request) -> AgainAnswer:
        """Play again after a finished game: ``{"seats": {seat: token}}`` (the tokens the
        page holds; nothing in a game of bots only). The people keep their tokens; however
        many press it, one new game, counted against the first presser's limits."""
        held = {int(k): tok for k, tok in body.seats.items()} if body.seats is not None else None
        where = addr(request)
        new = await service.again(game_id, held, creator=where, charge=lambda: limits.spend("create", where))
        return {"id": new.row.id, "status": new.row.status, "watch": f"{root_of(request)}/game/{new.row.id}"}

    @app.get("/api/games/{game_id}/chat", response_model=None, responses={200: {"model": ChatMessage}})
    async def get_chat(game_id: str) -> ChatMessage:
        """The game's chat (public: players and spectators read it; the replay shows it)."""
        return chat_message(await service.chat_lines(await service.fetch(game_id)))

    @app.get("/api/games/{game_id}/replay/{step}", response_model=None, responses={200: {"model": ReplayMessage}})
    async def replay_step(game_id: str, step: int) -> ReplayMessage:
        """A finished game after ``step`` actions, with every hand."""
        await service.fetch(game_id)
        return service.replay_step(game_id, step)

    @app.websocket("/ws/{game_id}")
    async def ws_game(ws: WebSocket, game_id: str) -> None:
        await ws.accept()
        try:
            live = await service.fetch(game_id)
        except Refused as e:
            await ws.send_text(json_text(_ws_error(e)))
            await ws.close(code=4404)
            return
        conn: Connection | None = None
        sender: asyncio.Task[None] | None = None
        try:
            while True:
                frame = await ws.receive()
                if frame["type"] == "websocket.disconnect":
                    break
                text = frame.get("text")
                data: Any = None
                try:
                    if text is None:
                        raise Refused("malformed", "messages are JSON text, not binary", 400)
                    data = parse_json(text)
                    if conn is None and isinstance(data, dict) and data.get("type") in ("action", "undo", "chat"):
                        raise Refused("malformed", "send hello first", 400)
                    try:
                        msg = CLIENT_MESSAGE.validate_python(data)
                    except ValidationError as e:
                        errors = e.errors()
                        if isinstance(data, dict) and data.get("type") in ("hello", "action", "undo") and token_error(errors):
                            limits.note("bad_token", addr(ws))  # a malformed token is a wrong one
                        raise _invalid(errors, message=True) from None
                except Refused as e:
                    await ws.send_text(json_text(_ws_error(e, data.get("id") if isinstance(data, dict) else None)))
                    continue
                # the message as sent (checked: exactly what its declaration accepts)
                assert isinstance(data, dict)
                if isinstance(msg, (HelloMessage, ActionMessage, UndoMessage)):  # these carry seat tokens
                    try:
                        limits.check("bad_token", addr(ws))
                    except Refused as e:
                        await ws.send_text(json_text(_ws_error(e, data.get("id"))))
                        continue
                if isinstance(msg, HelloMessage):
                    if conn is not None:
                        await ws.send_text(json_text(_ws_error(Refused("malformed", "hello was already sent", 400))))
                        continue
                    try:
                        seats = await _hello_seats(service, live, msg.seats)
                    except Refused as e:
                        if e.code == "bad_token":
                            limits.note("bad_token", addr(ws))
                        await ws.send_text(json_text(_ws_error(e)))
                        continue
                    conn = Connection(seats, delta=msg.delta, ack_in_state=msg.ack_in_state)
                    await ws.send_text(json_text({"type": "welcome", "game": game_id, "seats": sorted(seats)}))
                    lines = await service.chat_lines(live)
                    await service.connect(live, conn)
                    sender = asyncio.create_task(_send_loop(ws, live, conn))
                    conn.notify()
                    if lines:  # the chat so far, after the state (no chat message: nothing said yet)
                        conn.outbox.put_nowait(chat_message(lines))
                elif isinstance(msg, (ActionMessage, UndoMessage)):
                    if conn is None:
                        await ws.send_text(json_text(_ws_error(Refused("malformed", "send hello first", 400))))
                        continue
                    try:
                        done = await (service.submit(game_id, data) if isinstance(msg, ActionMessage) else service.undo(game_id, data))
                        conn.outbox.put_nowait(done)
                    except Refused as e:
                        if e.code == "bad_token":
                            limits.note("bad_token", addr(ws))
                        conn.outbox.put_nowait(_ws_error(e, msg.id))
                elif isinstance(msg, ChatSay):
                    if conn is None:
                        await ws.send_text(json_text(_ws_error(Refused("malformed", "send hello first", 400))))
                        continue
                    try:
                        limits.spend("chat", addr(ws))
                        await service.say(game_id, conn.seats, msg.text, msg.name)
                    except Refused as e:
                        conn.outbox.put_nowait(_ws_error(e, msg.id))
                elif isinstance(msg, PingMessage):
                    await ws.send_text(json_text({"type": "pong"}))
        except WebSocketDisconnect:
            pass
        finally:
            if conn is not None:
                service.disconnect(live, conn)
            if sender is not None:
                sender.cancel()

    return app


def _addr(scope: Scope) -> str:
    """The client's address (behind a trusted proxy, the one it forwards)."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


class _HttpHeaders:
    """Every HTTP response: no page of this site sends its address to anyone else (a game
    page is opened with its seat's token in the address: Referer), nor may be framed by
    another site; and the access log's line (the path only: a query string can hold a
    seat token). ``check``: an answer that refuses a request before it is read (None:
    it goes on). ``max_body``: a body longer than this is refused (413 ``too_large``)
    before it is read, by its Content-Length, or once that many bytes have come of a body
    sent without one (Starlette's own limit answers in plain text, not in the API's
    format). A plain ASGI middleware: Starlette's ``BaseHTTPMiddleware`` ran each request
    in task groups of its own, a sixth of the cost of starting a game."""

    def __init__(self, app: ASGIApp, check: Callable[[Scope], Response | None] | None = None, max_body: int = MAX_BODY) -> None:
        self.app = app
        self.check = check
        self.max_body = max_body
        self.access = logging.getLogger("kardinal.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        t0 = time.perf_counter()
        status = 0

        async def send_headed(message: Message) -> None:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
                headers = MutableHeaders(scope=message)
                headers["Referrer-Policy"] = "no-referrer"
                headers["X-Content-Type-Options"] = "nosniff"
                headers["X-Frame-Options"] = "DENY"
            await send(message)

        refusal = self.check(scope) if self.check is not None else None
        length = _content_length(scope)
        if refusal is None and length is not None and length > self.max_body:
            refusal = _error(_TOO_LARGE)
        if refusal is None and length is None:
            receive = _counted(receive, self.max_body)
        await (self.app if refusal is None else refusal)(scope, receive, send_headed)
        if status and self.access.isEnabledFor(logging.INFO):
            path = URL(scope=scope).path
            self.access.info(
                "%s %s %d",
                scope["method"],
                path,
                status,
                extra={"method": scope["method"], "path": path, "status": status, "ms": round((time.perf_counter() - t0) * 1000, 1)},
            )


_TOO_LARGE = Refused("too_large", f"at most {MAX_BODY} bytes", 413, max=MAX_BODY)


class _BodyTooLarge(HTTPException):
    """A body sent without a length went past the limit while it was read (answered as
    ``too_large`` by the app's handler of HTTPException)."""

    def __init__(self) -> None:
        super().__init__(413, "too large")


def _content_length(scope: Scope) -> int | None:
    """The request's Content-Length; a malformed one counts as too large."""
    for k, v in scope["headers"]:
        if k == b"content-length":
            return int(v) if v.isdigit() and len(v) < 19 else 1 << 62
    return None


def _counted(receive: Receive, limit: int) -> Receive:
    """``receive`` that refuses a body once more than ``limit`` bytes of it have come."""
    seen = 0

    async def counted() -> Message:
        nonlocal seen
        message = await receive()
        if message["type"] == "http.request":
            seen += len(message.get("body", b""))
            if seen > limit:
                raise _BodyTooLarge()
        return message

    return counted


_ECHOED = re.compile(r"[!-~]{1,100}")  # a client id as ClientId declares it


def _ws_error(e: Refused, action_id: object = None) -> ErrorMessage:
    """A refusal over the WebSocket; the action's id is echoed only if it is a valid one."""
    echo = action_id if isinstance(action_id, str) and _ECHOED.fullmatch(action_id) else None
    return {"type": "error", "id": echo, **e.to_json()}


async def _hello_seats(service: GameService, live: LiveGame, seats: dict[str, str] | None) -> dict[int, str]:
    """Check every token of a hello (its seat keys are digits: HelloMessage); a person who
    connects has joined their seat."""
    if seats is None:
        return {}
    out: dict[int, str] = {}
    for k, tok in seats.items():
        seat = int(k)
        service._auth(live, seat, tok)
        out[seat] = tok
    for seat, tok in out.items():
        await service.join(live.row.id, seat, tok)
    return out


async def _send_loop(ws: WebSocket, live: LiveGame, conn: Connection) -> None:
    """Send a connection's outbox; a run of state notices becomes one state message. The
    acknowledgement of the connection's own action is queued right after the state notice
    its action made (GameService.submit returns it without a pause): to a connection that
    asked for it (``ack_in_state``), it goes inside that state message."""
    queued = conn.outbox._queue  # type: ignore[attr-defined]
    try:
        while True:
            item = await conn.outbox.get()
            if item is None:
                while queued and queued[0] is None:
                    conn.outbox.get_nowait()
                text = live.text_for(conn)
                if conn.ack_in_state and queued and queued[0] is not None and queued[0]["type"] == "ack":
                    text = f'{text[:-1]},"ack":{json_text(conn.outbox.get_nowait())}}}'
                await ws.send_text(text)
            else:
                await ws.send_text(json_text(item))
    except Exception:
        return
