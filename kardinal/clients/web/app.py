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
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from starlette.datastructures import URL, MutableHeaders, QueryParams
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from kardinal.bots import levels
from kardinal.rules.board import installed_boards
from kardinal.rules.variants import VARIANTS

from .games import Connection, GameService, LiveGame, Refused, chat_message
from .guard import Guard
from .mapdata import named_board_json
from .messages import AckMessage, ChatMessage, ErrorMessage, ReplayMessage, ScoringMessage, json_text
from .pages import root_of, static_page
from .rules_page import rules_response
from .storage import Storage, StorageError
from .teach import router as teach_router
from .tutorial import router as tutorial_router

__all__ = ["create_app", "DEFAULT_DATA"]

DEFAULT_DATA = Path("data")
log = logging.getLogger("kardinal.web")
STATIC = Path(str(resources.files("kardinal.clients.web").joinpath("static")))


def _error(e: Refused) -> JSONResponse:
    return JSONResponse({"error": e.to_json()}, status_code=e.status)


MAX_BODY = 64 * 1024  # bytes of a request body or a WebSocket message; a whole game record is about 20 KB
MAX_DEPTH = 16  # nesting of JSON arrays and objects; the deepest message the protocol has is 5


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
    """A request's or message's JSON, refused (``too_large``, ``malformed``) before it can
    cost much: at most MAX_BODY bytes, at most MAX_DEPTH deep."""
    if len(raw) > MAX_BODY:
        raise Refused("too_large", f"at most {MAX_BODY} bytes", 413, max=MAX_BODY)
    # a nesting deeper than the limit is refused before the parser recurses into it
    opens = raw.count(b"[") + raw.count(b"{") if isinstance(raw, bytes) else raw.count("[") + raw.count("{")
    try:
        data = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError, RecursionError):
        raise Refused("malformed", "the body must be JSON", 400) from None
    if opens > MAX_DEPTH and not _depth_ok(data):
        raise Refused("malformed", f"JSON nested deeper than {MAX_DEPTH}", 400)
    return data


async def _body(request: Request) -> Any:
    length = request.headers.get("content-length")
    if length is not None and (not length.isdigit() or int(length) > MAX_BODY):
        raise Refused("too_large", f"at most {MAX_BODY} bytes", 413, max=MAX_BODY)
    raw = b""
    async for chunk in request.stream():  # a body without a length is read no further than the limit
        raw += chunk
        if len(raw) > MAX_BODY:
            raise Refused("too_large", f"at most {MAX_BODY} bytes", 413, max=MAX_BODY)
    return parse_json(raw)


def create_app(
    data_dir: str | Path | None = None,
    db_url: str | None = None,
    bot_pause: float | None = None,
    executor: Executor | None = None,
    max_live: int = 5000,
    guard: Guard | None = None,
    table_check: float = 1.0,
    idle_expiry: float | None = None,
) -> FastAPI:
    """The app; state in ``data_dir/kardinal.sqlite3`` (or ``db_url``). ``table_check``:
    seconds between looks for people away on their turn (GameService.watch_tables);
    ``idle_expiry``: seconds without a change after which an unfinished game expires
    (None: never)."""
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

    app = FastAPI(title="Kardinal", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.service = service

    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    limits = guard if guard is not None else Guard()

    def addr(conn: Request | WebSocket) -> str:
        return _addr(conn.scope)

    @app.exception_handler(Refused)
    async def refused(request: Request, e: Refused) -> JSONResponse:
        if e.code == "bad_token":
            limits.note("bad_token", addr(request))  # a wrong token: guessing is slowed
        return _error(e)

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

    @app.get("/healthz", include_in_schema=False)
    async def healthz() -> dict[str, str]:
        """Alive: the process answers (for a process supervisor)."""
        return {"status": "ok"}

    @app.get("/readyz", include_in_schema=False, response_model=None)
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

    @app.get("/api/board")
    def get_board_json(id: str = "standard") -> Any:  # sync: FastAPI runs it in a thread
        """An installed board with its map layout (``id``: standard, reconstruction-1, ...)."""
        if id not in installed_boards():
            return JSONResponse({"error": {"code": "no_board", "message": f"boards: {', '.join(installed_boards())}"}}, 404)
        return named_board_json(id)

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        """The bots that can run on this installation, weakest first, each described."""
        return {
            "levels": [name for name, _ in levels()],
            "about": {name: {"summary": lv.summary, "seconds": lv.seconds, "strength": lv.strength} for name, lv in levels()},
        }

    @app.get("/api/variants")
    async def variants() -> dict[str, Any]:
        """The rule variants a game can be created with (R14), and the installed boards."""
        return {"variants": dict(VARIANTS), "boards": list(installed_boards())}

    @app.get("/api/games")
    async def list_games() -> dict[str, Any]:
        """The lobby: the public games, newest first (a game made private is reached only
        through its links)."""
        rows = await asyncio.to_thread(storage.list_games)
        return {"games": [service.summary(r) for r in rows if r.options.get("public") is not False]}

    @app.post("/api/games")
    async def create_game(request: Request) -> dict[str, Any]:
        limits.spend("create", addr(request))
        live, tokens = await service.create(await _body(request), creator=addr(request))
        gid = live.row.id
        page = f"{root_of(request)}/game/{gid}"  # the addresses are under the server's root path
        seats = [
            {"seat": s, "name": live.row.seats[s].name, "token": t, "url": f"{page}?seat={s}&token={t}"} for s, t in sorted(tokens.items())
        ]
        out: dict[str, Any] = {
            "id": gid,
            "status": live.row.status,
            "seats": seats,
            "watch": page,
            "public": live.options["public"],
        }
        if live.row.hotseat:
            out["hotseat_url"] = f"{page}?tokens=" + ",".join(f"{s}:{t}" for s, t in sorted(tokens.items()))
        return out

    @app.get("/api/games/{game_id}")
    async def game_info(game_id: str) -> dict[str, Any]:
        return service.summary((await service.fetch(game_id)).row)

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: str, request: Request) -> dict[str, Any]:
        body = await _body(request)
        if not isinstance(body, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        live = await service.join(game_id, body.get("seat"), body.get("token"), body.get("name"))
        return {"ok": True, "status": live.row.status}

    @app.post("/api/games/{game_id}/claim")
    async def claim(game_id: str, request: Request) -> dict[str, Any]:
        limits.spend("claim", addr(request))
        body = await _body(request)
        if not isinstance(body, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        seat = body.get("seat")
        tok = await service.claim(game_id, seat, body.get("name"))
        return {"seat": seat, "token": tok, "url": f"{root_of(request)}/game/{game_id}?seat={seat}&token={tok}"}

    # response_model=None: the typed messages are contracts for mypy and readers, not for re-validation
    @app.post("/api/games/{game_id}/actions", response_model=None)
    async def post_action(game_id: str, request: Request) -> AckMessage:
        return await service.submit(game_id, await _body(request))

    @app.post("/api/games/{game_id}/undo", response_model=None)
    async def post_undo(game_id: str, request: Request) -> AckMessage:
        """Take back one's own placement before drawing: ``{"seat", "token", "version"}``."""
        return await service.undo(game_id, await _body(request))

    @app.get("/api/games/{game_id}/state", response_model=None)
    async def get_state(game_id: str, seat: int | None = None, token: str | None = None) -> Response:
        """The state message (``StateMessage``), made once per change and shared."""
        live = await service.fetch(game_id)
        if seat is not None:
            service._auth(live, seat, token)
        return Response(live.message_text(seat), media_type="application/json")

    @app.get("/api/games/{game_id}/record")
    async def get_record(game_id: str) -> Response:
        await service.fetch(game_id)  # read off the event loop (then in memory)
        rec = service.record(game_id)
        return Response(
            json.dumps(rec, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="kardinal-{game_id}.json"'},
        )

    @app.get("/api/games/{game_id}/scoring", response_model=None)
    async def get_scoring(game_id: str) -> ScoringMessage:
        """The intermediate and final scoring so far, in detail (public; live games and replays)."""
        await service.fetch(game_id)
        return service.scoring(game_id)

    @app.post("/api/games/{game_id}/again")
    async def play_again(game_id: str, request: Request) -> dict[str, Any]:
        """Play again after a finished game: ``{"seats": {seat: token}}`` (the tokens the
        page holds; nothing in a game of bots only). The people keep their tokens."""
        body = await _body(request)
        if not isinstance(body, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        new = await service.again(game_id, body.get("seats"))
        return {"id": new.row.id, "status": new.row.status, "watch": f"{root_of(request)}/game/{new.row.id}"}

    @app.get("/api/games/{game_id}/chat", response_model=None)
    async def get_chat(game_id: str) -> ChatMessage:
        """The game's chat (public: players and spectators read it; the replay shows it)."""
        return chat_message(await service.chat_lines(await service.fetch(game_id)))

    @app.get("/api/games/{game_id}/replay/{step}", response_model=None)
    async def replay_step(game_id: str, step: int) -> ReplayMessage:
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
                try:
                    if text is None:
                        raise Refused("malformed", "messages are JSON text, not binary", 400)
                    msg = parse_json(text)
                    if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
                        raise Refused("malformed", "expected a JSON object with a 'type'", 400)
                except Refused as e:
                    await ws.send_text(json_text(_ws_error(e)))
                    continue
                kind = msg["type"]
                if kind in ("hello", "action", "undo"):  # these carry seat tokens
                    try:
                        limits.check("bad_token", addr(ws))
                    except Refused as e:
                        await ws.send_text(json_text(_ws_error(e, msg.get("id"))))
                        continue
                if kind == "hello":
                    if conn is not None:
                        await ws.send_text(json_text(_ws_error(Refused("malformed", "hello was already sent", 400))))
                        continue
                    try:
                        seats = await _hello_seats(service, live, msg.get("seats"))
                    except Refused as e:
                        if e.code == "bad_token":
                            limits.note("bad_token", addr(ws))
                        await ws.send_text(json_text(_ws_error(e)))
                        continue
                    conn = Connection(seats, delta=msg.get("delta") is True, ack_in_state=msg.get("ack_in_state") is True)
                    await ws.send_text(json_text({"type": "welcome", "game": game_id, "seats": sorted(seats)}))
                    lines = await service.chat_lines(live)
                    await service.connect(live, conn)
                    sender = asyncio.create_task(_send_loop(ws, live, conn))
                    conn.notify()
                    if lines:  # the chat so far, after the state (no chat message: nothing said yet)
                        conn.outbox.put_nowait(chat_message(lines))
                elif kind in ("action", "undo"):
                    if conn is None:
                        await ws.send_text(json_text(_ws_error(Refused("malformed", "send hello first", 400))))
                        continue
                    try:
                        conn.outbox.put_nowait(await (service.submit if kind == "action" else service.undo)(game_id, msg))
                    except Refused as e:
                        if e.code == "bad_token":
                            limits.note("bad_token", addr(ws))
                        conn.outbox.put_nowait(_ws_error(e, msg.get("id")))
                elif kind == "chat":
                    if conn is None:
                        await ws.send_text(json_text(_ws_error(Refused("malformed", "send hello first", 400))))
                        continue
                    try:
                        limits.spend("chat", addr(ws))
                        await service.say(game_id, conn.seats, msg.get("text"), msg.get("name"))
                    except Refused as e:
                        conn.outbox.put_nowait(_ws_error(e, msg.get("id")))
                elif kind == "ping":
                    await ws.send_text(json_text({"type": "pong"}))
                else:
                    await ws.send_text(json_text(_ws_error(Refused("malformed", "unknown message type", 400))))
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
    it goes on). A plain ASGI middleware: Starlette's ``BaseHTTPMiddleware`` ran each
    request in task groups of its own, a sixth of the cost of starting a game."""

    def __init__(self, app: ASGIApp, check: Callable[[Scope], Response | None] | None = None) -> None:
        self.app = app
        self.check = check
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


def _ws_error(e: Refused, action_id: object = None) -> ErrorMessage:
    """A refusal over the WebSocket; the action's id is echoed only if it is a valid one."""
    echo = action_id if isinstance(action_id, str) and 1 <= len(action_id) <= 100 else None
    return {"type": "error", "id": echo, **e.to_json()}


async def _hello_seats(service: GameService, live: LiveGame, seats: Any) -> dict[int, str]:
    """Check every token of a hello; a person who connects has joined their seat."""
    if seats is None:
        return {}
    if not isinstance(seats, dict):
        raise Refused("malformed", "'seats' must be an object: seat -> token", 400)
    out: dict[int, str] = {}
    for k, tok in seats.items():
        try:
            seat = int(k)
        except (TypeError, ValueError):
            raise Refused("malformed", "'seats' keys must be seat numbers", 400) from None
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
