"""The WebSocket of a game (``/ws/{game_id}``): a client says hello with the seats it
holds, then sends actions, undos, chat lines and pings (ClientMessage); it gets a state
message after every change, and acknowledgements, refusals and the chat (ServerMessage)."""

from __future__ import annotations

import asyncio
import contextlib
import re
import time
from typing import Any

from fastapi import APIRouter, WebSocket, WebSocketDisconnect
from pydantic import ValidationError
from starlette.types import ASGIApp, Receive, Scope, Send

from ..common.guard import Guard
from ..common.names import UNNAMED, own_name
from ..common.refusal import Refused, suspended
from ..common.schemas import CLIENT_ID, token_error
from ..community.account_routes import session_secret
from ..community.accounts import Accounts
from ..community.rated import admit
from ..storage import AccountRow
from ..web.http import SERVER_SEND, client_address, invalid_body, parse_json, route_path
from ..web.origin import cross_site
from .chat import chat_message
from .live import Connection, LiveGame
from .messages import ErrorMessage, json_text
from .schemas import CLIENT_MESSAGE, ActionMessage, ChatSay, FollowMessage, HelloMessage, PingMessage, UndoMessage
from .service import GameService

router = APIRouter()
_PATH = re.compile(r"/ws/([^/]+)")  # the route's path (its game id: as Starlette's {game_id}, no slash)

REVOKED = 4403  # the close code of a connection whose seats' tokens ended (a spectator may come back)
# ... and of one whose seats' account was suspended (kardinal.server.community.moderation): its page keeps
# the tokens (they open the seats again once the suspension ends) and watches meanwhile
SUSPENDED = 4423
# the close code of a connection that did not read what it was sent (its outbox overflowed:
# live.OUTBOX_MAX); its page connects again and gets the whole state (1013: try again later)
BEHIND = 1013


def direct_route(scope: Scope) -> ASGIApp | None:
    """The game's WebSocket for a WebSocket scope whose path is ``/ws/{game_id}`` (within the
    application: under a proxy's root path), served by the edge (web/http.py HttpEdge)
    without FastAPI's middleware and routing, which did nothing for it but took a third of
    the server's CPU for a spectator connecting; None for any other path (the app's routes)."""
    found = _PATH.fullmatch(route_path(scope))
    if found is None:
        return None
    game_id = found.group(1)

    async def serve(scope: Scope, receive: Receive, send: Send) -> None:
        await ws_game(WebSocket(scope, receive, send), game_id)

    return serve


@router.websocket("/ws/{game_id}")  # (served by direct_route behind the edge; the route names it)
async def ws_game(ws: WebSocket, game_id: str) -> None:
    service: GameService = ws.app.state.service
    limits: Guard = ws.app.state.limits
    await ws.accept()
    try:
        live = await service.fetch(game_id)
    except Refused as e:
        with contextlib.suppress(WebSocketDisconnect, RuntimeError):  # the client may be gone already
            await _send(ws, json_text(_ws_error(e)))
            await ws.close(code=4404)
        return
    conn: Connection | None = None
    at: _At | None = None  # the game the connection's sender sends for (it changes as a spectator follows)
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
                if conn is None and isinstance(data, dict) and data.get("type") in ("action", "undo", "chat", "follow"):
                    raise Refused("malformed", "send hello first", 400)
                try:
                    msg = CLIENT_MESSAGE.validate_python(data)
                except ValidationError as e:
                    errors = e.errors()
                    if isinstance(data, dict) and data.get("type") in ("hello", "action", "undo") and token_error(errors, message=True):
                        limits.note("bad_token", client_address(ws.scope))  # a malformed token is a wrong one
                    raise invalid_body(errors, message=True) from None
            except Refused as e:
                await _send(ws, json_text(_ws_error(e, data.get("id") if isinstance(data, dict) else None)))
                continue
            # the message as sent (checked: exactly what its declaration accepts)
            assert isinstance(data, dict)
            if isinstance(msg, (HelloMessage, ActionMessage, UndoMessage)):  # these carry seat tokens
                try:
                    limits.check("bad_token", client_address(ws.scope))
                except Refused as e:
                    await _send(ws, json_text(_ws_error(e, data.get("id"))))
                    continue
            if isinstance(msg, HelloMessage):
                if conn is not None:
                    if not conn.revoked:  # (revoked: closing, the page says hello again on its next connection)
                        await _send(ws, json_text(_ws_error(Refused("malformed", "hello was already sent", 400))))
                    continue
                try:
                    seats, renewed = await _hello_seats(service, live, msg.seats, ws)
                except Refused as e:
                    if e.code == "bad_token":
                        limits.note("bad_token", client_address(ws.scope))
                    await _send(ws, json_text(_ws_error(await _told(service, live, e, msg.seats))))
                    continue
                conn = Connection(seats, delta=msg.delta, ack_in_state=msg.ack_in_state, presence=msg.presence)
                conn.direct = _direct(ws)
                welcome: dict[str, Any] = {"type": "welcome", "game": game_id, "seats": sorted(seats)}
                if renewed:  # seats that became the account's: their new tokens (the old ones end)
                    welcome["tokens"] = {str(s): t for s, t in sorted(renewed.items())}
                at = _At(live)
                await _begin(ws, service, live, conn, welcome)
                sender = asyncio.create_task(_send_loop(ws, service, at, conn))
            elif isinstance(msg, FollowMessage):
                assert conn is not None and at is not None  # refused before it was read: send hello first
                try:
                    if conn.seats:
                        raise Refused(
                            "malformed", "a connection holding seats does not follow: its people play again with their tokens", 400
                        )
                    if live.again is None:
                        raise Refused("malformed", "this game has no next game yet", 400)
                    after = await service.fetch(live.again)
                except Refused as e:
                    conn.outbox.put_nowait(_ws_error(e, msg.id))
                    continue
                # this game left as a closed connection leaves it, the next one joined as by a hello
                # (the same connection and sender: a crowd following a table makes no tasks)
                service.disconnect(live, conn)
                conn.restart()
                at.live = live = after
                game_id = after.row.id
                await _begin(ws, service, live, conn, {"type": "welcome", "game": game_id, "seats": []})
            elif isinstance(msg, (ActionMessage, UndoMessage)):
                assert conn is not None  # refused before it was read: send hello first
                try:
                    done = await (service.submit(game_id, data) if isinstance(msg, ActionMessage) else service.undo(game_id, data))
                    conn.outbox.put_nowait(done)
                except Refused as e:
                    if e.code == "bad_token":
                        limits.note("bad_token", client_address(ws.scope))
                    conn.outbox.put_nowait(_ws_error(await _told(service, live, e, {str(msg.seat): ""}), msg.id))
            elif isinstance(msg, ChatSay):
                assert conn is not None  # refused before it was read: send hello first
                try:
                    if conn.revoked:  # its seats' tokens ended: it speaks for no seat (it is closing)
                        raise Refused("bad_token", "no such seat, or a wrong token", 403)
                    limits.spend("chat", client_address(ws.scope))
                    await service.say(game_id, conn.seats, msg.text, msg.name)
                except Refused as e:
                    conn.outbox.put_nowait(_ws_error(e, msg.id))
            elif isinstance(msg, PingMessage):
                await _send(ws, json_text({"type": "pong"}))
    except WebSocketDisconnect:
        pass
    finally:
        if conn is not None:
            service.disconnect(live, conn)
        if sender is not None:
            sender.cancel()


class _At:
    """The game a connection's sender sends the state of (a spectator's follows: FollowMessage)."""

    __slots__ = ("live",)

    def __init__(self, live: LiveGame) -> None:
        self.live = live


async def _begin(ws: WebSocket, service: GameService, live: LiveGame, conn: Connection, welcome: dict[str, Any]) -> None:
    """A connection welcomed to a game (after its hello, or following the game before:
    FollowMessage): it is told the state, the chat so far, and who is here."""
    lines = await service.chat_lines(live)
    direct = conn.direct
    if not conn.seats and direct is not None and direct.ready() and not conn.busy and conn.outbox.empty():
        # a spectator (no hand: nothing a token guards): its welcome and the state in one write
        # (a crowd following a table costs a system call each, not two through the ASGI layers)
        direct.write(json_text(welcome), live.text_for(conn))
        await service.connect(live, conn)
    else:
        await _send(ws, json_text(welcome))
        await service.connect(live, conn)  # (its tokens checked again: the state only after)
        conn.notify()
    if lines:  # the chat so far, after the state (no chat message: nothing said yet)
        conn.outbox.put_nowait(chat_message(lines))
    service.tell_presence(live, to=conn)  # who is here (hello "presence" only)
    service.tell_clock(live, to=conn)  # the table's clock, if it has one (hello "presence" only)


async def _send(ws: WebSocket, text: str) -> None:
    """Send, or end the connection's loop as a disconnect when the socket is closed already:
    uvicorn closes it itself on a frame that is no UTF-8 (1007), and a send then raises
    RuntimeError (the client's doing, no server error: it logged a traceback each time)."""
    try:
        await ws.send_text(text)
    except RuntimeError:
        raise WebSocketDisconnect(1006) from None


async def _told(service: GameService, live: LiveGame, e: Refused, seats: dict[str, str] | None) -> Refused:
    """A refusal as its page is told it: ``suspended`` (a seat of a suspended account: core's
    _auth) with the operator's reason, which the seat does not hold (its owner's page only)."""
    if e.code != "suspended" or not seats:
        return e
    for k in sorted(seats):
        found = await asyncio.to_thread(service.storage.seat_suspended, live.row.id, int(k), time.time())
        if found is not None:
            return suspended(*found, service.contact)
    return e


def _ws_error(e: Refused, action_id: object = None) -> ErrorMessage:
    """A refusal over the WebSocket; the action's id is echoed only if it is a valid one."""
    echo = action_id if isinstance(action_id, str) and CLIENT_ID.fullmatch(action_id) else None
    return {"type": "error", "id": echo, **e.to_json()}


async def _hello_seats(
    service: GameService, live: LiveGame, seats: dict[str, str] | None, ws: WebSocket
) -> tuple[dict[int, str], dict[int, str]]:
    """Check every token of a hello (its seat keys are digits: HelloMessage); a person who
    connects has joined their seat (a rated table's seat: signed in, rated.admit). Seats
    opened signed in (the session's cookie, from a page of this site: origin.py) become
    the account's (a seat of another account stays its); one that becomes the account's
    gets a new token (Accounts.own). Returns the seats with the tokens the connection
    holds, and the new tokens."""
    if seats is None:
        return {}, {}
    out: dict[int, str] = {}
    for k, tok in seats.items():
        seat = int(k)
        service._auth(live, seat, tok)
        out[seat] = tok
    if not out:
        return out, {}
    accounts: Accounts = ws.app.state.accounts
    account = None if _bound_already(live, out) else await _account(ws)
    kept: set[int] = set()  # seats kept for the account by admit (a rated table)
    try:
        if live.options["rated"] and any(not live.row.seats[s].joined for s in out):
            for seat in out:
                if await admit(accounts, live, seat, account):
                    kept.add(seat)
        for seat, tok in out.items():
            # signed in, an unnamed seat takes the account's name (while the table is open)
            named = own_name(live.row.seats, seat, account.name) if account is not None and live.row.status == "open" else None
            await service.join(live.row.id, seat, tok, named)
    except BaseException:
        if account is not None:
            for seat in kept:
                await asyncio.to_thread(service.storage.release_seat, live.row.id, seat, account.id)
        raise
    renewed: dict[int, str] = {}
    if account is not None:
        for seat, tok in out.items():
            if seat not in kept and live.owned_by(seat, account.id):
                continue  # the account's already, the seat unchanged since: nothing to bind
            mine, new = await accounts.own(account, live.row.id, seat, tok, seat in kept)
            if new is not None:
                renewed[seat] = out[seat] = new
            if mine:
                live.note_owner(seat, account.id)
    return out, renewed


def _bound_already(live: LiveGame, seats: dict[int, str]) -> bool:
    """Whether a session would change nothing of this hello, so that its account need not
    be looked up: every seat is known to be an account's (LiveGame.owner: binding it
    changes nothing, whichever account opens it), none is a rated table's seat still to be
    taken (rated.admit), nor an unnamed seat of an open table (it would take the name)."""
    rows = live.row.seats
    return all(
        live.owner(s) is not None
        and not (live.options["rated"] and not rows[s].joined)
        and not (live.row.status == "open" and rows[s].name == UNNAMED)
        for s in seats
    )


async def _account(ws: WebSocket) -> AccountRow | None:
    """The account of the WebSocket's session cookie, from a page of this site (origin.py)."""
    secret = session_secret(ws)
    if not secret or cross_site({**ws.scope, "type": "http", "method": "POST"}) is not None:
        return None
    accounts: Accounts = ws.app.state.accounts
    return await accounts.account_of(secret)


async def _send_loop(ws: WebSocket, service: GameService, at: _At, conn: Connection) -> None:
    """Send a connection's outbox (a run of state notices waits there as one state
    message: live.Outbox). The acknowledgement of the connection's own action is queued
    right after the state notice its action made (GameService.submit returns it without a
    pause): to a connection that asked for it (``ack_in_state``), it goes inside that state
    message. A connection whose outbox overflowed (it does not read) is closed."""
    out = conn.outbox
    try:
        while True:
            await out.ready.wait()
            if conn.revoked:  # its tokens open its seats no more: told so, and closed
                if conn.barred is not None:  # its account suspended: told why, the tokens kept
                    told = await _told(service, at.live, suspended(conn.barred, "", service.contact), {str(s): "" for s in conn.seats})
                    await ws.send_text(json_text(_ws_error(told)))
                    await ws.close(code=SUSPENDED)
                    return
                await ws.send_text(json_text(_ws_error(Refused("bad_token", "no such seat, or a wrong token", 403))))
                await ws.close(code=REVOKED)
                return
            if out.overflowed:
                await ws.close(code=BEHIND)
                return
            item = out.get_nowait()
            if item is None:
                text = at.live.text_for(conn)
                if conn.ack_in_state and not out.empty() and (ack := out.peek()) is not None and ack["type"] == "ack":
                    text = f'{text[:-1]},"ack":{json_text(out.get_nowait())}}}'
            else:
                text = json_text(item)
            await _write(ws, conn, text)
    except Exception:
        return


async def _write(ws: WebSocket, conn: Connection, text: str) -> None:
    """Send ``text``: straight to the socket if it takes it now, else the server's way
    (which waits until a slow reader caught up; meanwhile ``busy``: Connection.tell
    writes nothing past it)."""
    direct = conn.direct
    if direct is not None and direct.ready():
        direct.write(text)
        return
    conn.busy = True
    try:
        await ws.send_text(text)
    finally:
        conn.busy = False


WRITE_BUFFER_HIGH = 16 * 1024  # bytes (asyncio's default: 64 KiB, which 10,000 readers that fall behind hold each)

# the texts last sent directly and their frames, by the text's identity: a state message is
# one text shared by its audience (live.LiveGame.message_text), made into bytes once
_frames: dict[int, tuple[str, bytes]] = {}
_FRAMES_KEPT = 16


def frame(text: str) -> bytes:
    """``text`` as a WebSocket text frame from the server (unmasked, unfragmented, not
    compressed: RFC 6455 section 5.2), made once for every connection it goes to."""
    hit = _frames.get(id(text))
    if hit is not None and hit[0] is text:
        return hit[1]
    made = _framed(text)
    if len(_frames) >= _FRAMES_KEPT:
        _frames.clear()
    _frames[id(text)] = (text, made)
    return made


def _framed(text: str) -> bytes:
    """``text`` as a frame (see frame), made now and not kept: a connection's own message."""
    data = text.encode()
    n = len(data)
    if n < 126:
        head = bytes((0x81, n))
    elif n < 1 << 16:
        head = bytes((0x81, 126)) + n.to_bytes(2, "big")
    else:
        head = bytes((0x81, 127)) + n.to_bytes(8, "big")
    return head + data


class _Direct:
    """A WebSocket served by uvicorn's websockets-sansio protocol (its default), written to
    without the ASGI layers: a message is a frame made once (``frame``) and handed to the
    socket, with no task woken per connection. Only while the socket is open, has no
    extension (no compression: ``kardinal serve`` offers none) and takes more (a reader
    that does not keep up pauses it: then it gets the newest state once it caught up)."""

    __slots__ = ("proto",)

    def __init__(self, proto: Any) -> None:
        self.proto = proto

    def ready(self) -> bool:
        p = self.proto
        return bool(
            p.writable.is_set() and p.handshake_complete and not p.close_sent and not p.disconnected and not p.transport.is_closing()
        )

    def write(self, *texts: str) -> None:
        # in one write; the last text may be shared (a state message: its frame kept), the
        # ones before it are this connection's own (a welcome: not kept, which would push
        # the shared frames out of _frames)
        shared = frame(texts[-1])
        self.proto.transport.write(b"".join([*map(_framed, texts[:-1]), shared]) if len(texts) > 1 else shared)


def _direct(ws: WebSocket) -> _Direct | None:
    """The connection's socket to write to directly, if the server is uvicorn's
    websockets-sansio protocol without extensions (see _Direct); else None: every
    message goes the ASGI way (the test client, another server, compression)."""
    try:
        from uvicorn.protocols.websockets.websockets_sansio_impl import WebSocketsSansIOProtocol
        from websockets.protocol import State
    except ImportError:  # pragma: no cover - uvicorn comes with the web extra
        return None
    proto = getattr(ws.scope.get(SERVER_SEND), "__self__", None)
    if not isinstance(proto, WebSocketsSansIOProtocol) or proto.conn.extensions or proto.conn.state is not State.OPEN:
        return None
    # a reader that does not keep up has at most this much waiting for it in the server: then
    # its socket takes nothing more (writing pauses) until it read most of it
    proto.transport.set_write_buffer_limits(high=WRITE_BUFFER_HIGH)
    return _Direct(proto)
