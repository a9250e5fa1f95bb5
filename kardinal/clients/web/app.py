"""The web server: an ASGI app (FastAPI) with a JSON lobby API and WebSockets for live play.

Pages: ``/`` the lobby, ``/game/{id}`` a game (``?seat=2&token=...`` for a player,
``?tokens=0:...,2:...`` for hot-seat, nothing for spectators).

API: ``GET /api/board``, ``GET /api/bots``, ``GET|POST /api/games``,
``GET /api/games/{id}``, ``POST /api/games/{id}/join``, ``POST /api/games/{id}/claim``,
``POST /api/games/{id}/actions``, ``GET /api/games/{id}/state``,
``GET /api/games/{id}/record`` and ``/replay/{step}`` (finished games only).

WebSocket ``/ws/{id}``: the client sends ``{"type": "hello", "seats": {"2": token}}``
(no seats: a spectator), then ``{"type": "action", "id", "seat", "token", "version",
"action"}``; the server answers ``welcome``, ``state`` (after every change), ``ack``
and ``error`` messages. Every state message is built from ``kardinal.rules.view``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
from collections.abc import AsyncIterator
from concurrent.futures import Executor
from importlib import resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket, WebSocketDisconnect
from fastapi.responses import FileResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles

from kardinal.bots import BOTS
from kardinal.rules.board import installed_boards
from kardinal.rules.variants import VARIANTS

from .games import Connection, GameService, LiveGame, Refused
from .mapdata import named_board_json
from .messages import AckMessage, ErrorMessage, ReplayMessage, StateMessage
from .rules_page import rules_response
from .storage import Storage

__all__ = ["create_app", "DEFAULT_DATA"]

DEFAULT_DATA = Path("data")
STATIC = Path(str(resources.files("kardinal.clients.web").joinpath("static")))


def _error(e: Refused) -> JSONResponse:
    return JSONResponse({"error": e.to_json()}, status_code=e.status)


async def _body(request: Request) -> Any:
    try:
        return json.loads(await request.body())
    except (json.JSONDecodeError, UnicodeDecodeError):
        raise Refused("malformed", "the body must be JSON", 400) from None


def create_app(
    data_dir: str | Path | None = None,
    db_url: str | None = None,
    bot_pause: float | None = None,
    executor: Executor | None = None,
    max_live: int = 5000,
) -> FastAPI:
    """The app; state in ``data_dir/kardinal.sqlite3`` (or ``db_url``)."""
    if db_url is None:
        d = Path(data_dir) if data_dir is not None else Path(os.environ.get("KARDINAL_DATA", DEFAULT_DATA))
        storage = Storage.sqlite(d / "kardinal.sqlite3")
    else:
        storage = Storage(db_url)
    if bot_pause is None:
        bot_pause = float(os.environ.get("KARDINAL_BOT_PAUSE", "0.6"))
    service = GameService(storage, bot_pause=bot_pause, executor=executor, max_live=max_live)

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # the map layout takes a second to compute: do it now, off the event loop
        layout = asyncio.get_running_loop().run_in_executor(None, named_board_json, "standard")
        await service.resume()
        yield
        await layout
        for live in service.live.values():
            if live.bot_task is not None:
                live.bot_task.cancel()
        service.executor.shutdown(wait=False, cancel_futures=True)
        storage.close()

    app = FastAPI(title="Kardinal", lifespan=lifespan, docs_url="/api/docs", redoc_url=None)
    app.state.service = service
    app.mount("/static", StaticFiles(directory=STATIC), name="static")

    @app.exception_handler(Refused)
    async def refused(_request: Request, e: Refused) -> JSONResponse:
        return _error(e)

    @app.get("/", include_in_schema=False)
    async def lobby_page() -> FileResponse:
        return FileResponse(STATIC / "index.html")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(game_id: str) -> FileResponse:
        return FileResponse(STATIC / "game.html")

    @app.get("/rules", include_in_schema=False)
    def rules_page(request: Request, lang: str | None = None) -> Response:  # sync: reads docs/rules.md
        """The rules (docs/rules.md) in English or German: ``?lang=de``, else the browser's language."""
        return rules_response(lang, request.headers.get("accept-language"))

    @app.get("/api/board")
    def get_board_json(id: str = "standard") -> Any:  # sync: FastAPI runs it in a thread
        """An installed board with its map layout (``id``: standard, reconstruction-1, ...)."""
        if id not in installed_boards():
            return JSONResponse({"error": {"code": "no_board", "message": f"boards: {', '.join(installed_boards())}"}}, 404)
        return named_board_json(id)

    @app.get("/api/bots")
    async def bots() -> dict[str, Any]:
        return {"levels": sorted(BOTS)}

    @app.get("/api/variants")
    async def variants() -> dict[str, Any]:
        """The rule variants a game can be created with (R14), and the installed boards."""
        return {"variants": dict(VARIANTS), "boards": list(installed_boards())}

    @app.get("/api/games")
    async def list_games() -> dict[str, Any]:
        return {"games": [service.summary(r) for r in storage.list_games()]}

    @app.post("/api/games")
    async def create_game(request: Request) -> dict[str, Any]:
        live, tokens = service.create(await _body(request))
        gid = live.row.id
        seats = [
            {"seat": s, "name": live.row.seats[s].name, "token": t, "url": f"/game/{gid}?seat={s}&token={t}"}
            for s, t in sorted(tokens.items())
        ]
        out: dict[str, Any] = {"id": gid, "status": live.row.status, "seats": seats, "watch": f"/game/{gid}"}
        if live.row.hotseat:
            out["hotseat_url"] = f"/game/{gid}?tokens=" + ",".join(f"{s}:{t}" for s, t in sorted(tokens.items()))
        return out

    @app.get("/api/games/{game_id}")
    async def game_info(game_id: str) -> dict[str, Any]:
        return service.summary(service.get(game_id).row)

    @app.post("/api/games/{game_id}/join")
    async def join(game_id: str, request: Request) -> dict[str, Any]:
        body = await _body(request)
        if not isinstance(body, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        live = service.join(game_id, body.get("seat"), body.get("token"), body.get("name"))
        return {"ok": True, "status": live.row.status}

    @app.post("/api/games/{game_id}/claim")
    async def claim(game_id: str, request: Request) -> dict[str, Any]:
        body = await _body(request)
        if not isinstance(body, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        seat = body.get("seat")
        tok = service.claim(game_id, seat, body.get("name"))
        return {"seat": seat, "token": tok, "url": f"/game/{game_id}?seat={seat}&token={tok}"}

    # response_model=None: the typed messages are contracts for mypy and readers, not for re-validation
    @app.post("/api/games/{game_id}/actions", response_model=None)
    async def post_action(game_id: str, request: Request) -> AckMessage:
        return await service.submit(game_id, await _body(request))

    @app.post("/api/games/{game_id}/undo", response_model=None)
    async def post_undo(game_id: str, request: Request) -> AckMessage:
        """Take back one's own placement before drawing: ``{"seat", "token", "version"}``."""
        return await service.undo(game_id, await _body(request))

    @app.get("/api/games/{game_id}/state", response_model=None)
    async def get_state(game_id: str, seat: int | None = None, token: str | None = None) -> StateMessage:
        live = service.get(game_id)
        if seat is not None:
            service._auth(live, seat, token)
        return live.message(seat)

    @app.get("/api/games/{game_id}/record")
    async def get_record(game_id: str) -> Response:
        rec = service.record(game_id)
        return Response(
            json.dumps(rec, indent=1) + "\n",
            media_type="application/json",
            headers={"Content-Disposition": f'attachment; filename="kardinal-{game_id}.json"'},
        )

    @app.get("/api/games/{game_id}/replay/{step}", response_model=None)
    async def replay_step(game_id: str, step: int) -> ReplayMessage:
        return service.replay_step(game_id, step)

    @app.websocket("/ws/{game_id}")
    async def ws_game(ws: WebSocket, game_id: str) -> None:
        await ws.accept()
        try:
            live = service.get(game_id)
        except Refused as e:
            await ws.send_json({"type": "error", **e.to_json()})
            await ws.close(code=4404)
            return
        conn: Connection | None = None
        sender: asyncio.Task[None] | None = None
        try:
            while True:
                text = await ws.receive_text()
                try:
                    msg = json.loads(text)
                except json.JSONDecodeError:
                    msg = None
                if not isinstance(msg, dict) or not isinstance(msg.get("type"), str):
                    await ws.send_json({"type": "error", "code": "malformed", "message": "expected a JSON object with a 'type'"})
                    continue
                kind = msg["type"]
                if kind == "hello":
                    if conn is not None:
                        await ws.send_json({"type": "error", "code": "malformed", "message": "hello was already sent"})
                        continue
                    try:
                        seats = _hello_seats(service, live, msg.get("seats"))
                    except Refused as e:
                        await ws.send_json({"type": "error", **e.to_json()})
                        continue
                    conn = Connection(seats)
                    live.conns.add(conn)
                    await ws.send_json({"type": "welcome", "game": game_id, "seats": sorted(seats)})
                    sender = asyncio.create_task(_send_loop(ws, live, conn))
                    conn.notify()
                elif kind == "action":
                    if conn is None:
                        await ws.send_json({"type": "error", "code": "malformed", "message": "send hello first"})
                        continue
                    try:
                        ack = await service.submit(game_id, msg)
                        conn.outbox.put_nowait(ack)
                    except Refused as e:
                        err: ErrorMessage = {"type": "error", "id": msg.get("id"), **e.to_json()}
                        conn.outbox.put_nowait(err)
                elif kind == "undo":
                    if conn is None:
                        await ws.send_json({"type": "error", "code": "malformed", "message": "send hello first"})
                        continue
                    try:
                        conn.outbox.put_nowait(await service.undo(game_id, msg))
                    except Refused as e:
                        undo_err: ErrorMessage = {"type": "error", "id": None, **e.to_json()}
                        conn.outbox.put_nowait(undo_err)
                elif kind == "ping":
                    await ws.send_json({"type": "pong"})
                else:
                    await ws.send_json({"type": "error", "code": "malformed", "message": f"unknown message type {kind!r}"})
        except WebSocketDisconnect:
            pass
        finally:
            if conn is not None:
                live.conns.discard(conn)
            if sender is not None:
                sender.cancel()

    return app


def _hello_seats(service: GameService, live: LiveGame, seats: Any) -> dict[int, str]:
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
        service.join(live.row.id, seat, tok)
    return out


async def _send_loop(ws: WebSocket, live: LiveGame, conn: Connection) -> None:
    """Send a connection's outbox; a run of state notices becomes one state message."""
    try:
        while True:
            item = await conn.outbox.get()
            if item is None:
                while not conn.outbox.empty() and conn.outbox._queue[0] is None:  # type: ignore[attr-defined]
                    conn.outbox.get_nowait()
                await ws.send_json(live.message(live.seat_for(conn.seats)))
            else:
                await ws.send_json(item)
    except Exception:
        return
