"""The edge of every request: the size limit (before a body is read), the security headers,
the access log's line, the client's address, and refusals in the API's format."""

from __future__ import annotations

import logging
import re
import time
from collections.abc import Callable, Sequence
from typing import Any

import orjson
from fastapi.responses import JSONResponse, Response
from starlette.datastructures import URL, MutableHeaders, QueryParams
from starlette.exceptions import HTTPException
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from ..common.names import MAX_NAME
from ..common.refusal import Refused
from ..common.schemas import first_error, token_error
from ..play.chat import MAX_CHAT


def refusal_response(e: Refused, headers: dict[str, str] | None = None) -> JSONResponse:
    return JSONResponse({"error": e.to_json()}, status_code=e.status, headers=headers)


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


def invalid_body(errors: Sequence[Any], message: bool = False) -> Refused:
    """A refusal of a body or message that failed its declaration: ``malformed`` with the
    path of the first field at fault (``params.field``)."""
    if token_error(errors, message):  # told apart from a wrong token by nothing
        where, _ = first_error([e for e in errors if token_error([e], message)], message)
        return Refused("bad_token", "no such seat, or a wrong token", 403, field=where)
    path, words = first_error(errors, message)
    # names and chat lines keep the refusals the pages say in words of their own
    if path == "name" or path.endswith(".name"):
        return Refused("bad_name", f"{path}: {words}", 400, max=MAX_NAME)
    if path == "text" and message and not str(errors[0].get("type", "")).endswith("_type"):
        return Refused("bad_chat", f"{path}: {words}", 400, max=MAX_CHAT)
    if not path:
        return Refused("malformed", words, 400)
    return Refused("malformed", f"{path}: {words}", 400, field=path)


def route_path(scope: Scope) -> str:
    """The request's path within the application: under a reverse proxy's root path
    (``--root-path``), the scope's path begins with the root, which is taken off (a check of
    the path as sent would miss every route there)."""
    path: str = scope["path"]
    root: str = scope.get("root_path", "")
    return path[len(root) :] if root and path.startswith(root) else path


def client_address(scope: Scope) -> str:
    """The client's address (behind a trusted proxy, the one it forwards)."""
    client = scope.get("client")
    return str(client[0]) if client else "?"


SERVER_SEND = "kardinal.server_send"  # a WebSocket's scope: the ASGI server's own send (HttpEdge)


class HttpEdge:
    """Every HTTP response (and a WebSocket's address: see ``unaddressable``): no page of this site sends its address to anyone else (a game
    page is opened with its seat's token in the address: Referer), nor may be framed by
    another site; and the access log's line (the path only: a query string can hold a
    seat token). ``check``: an answer that refuses a request before it is read (None:
    it goes on). ``max_body``: a body longer than this is refused (413 ``too_large``)
    before it is read, by its Content-Length, or once that many bytes have come of a body
    sent without one (Starlette's own limit answers in plain text, not in the API's
    format). ``sockets``: a WebSocket's handler found by its path, served from here without
    the framework's middleware and routing (the game's socket: they were a third of the
    cost of a spectator connecting), or None: the app's routes. A plain ASGI middleware: Starlette's ``BaseHTTPMiddleware`` ran each request
    in task groups of its own, a sixth of the cost of starting a game."""

    def __init__(
        self,
        app: ASGIApp,
        check: Callable[[Scope], Response | None] | None = None,
        max_body: int = MAX_BODY,
        sockets: Callable[[Scope], ASGIApp | None] | None = None,
    ) -> None:
        self.app = app
        self.check = check
        self.sockets = sockets
        self.max_body = max_body
        self.access = logging.getLogger("kardinal.access")

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "websocket" and unaddressable(scope):
            await send({"type": "websocket.close", "code": MALFORMED_CLOSE})  # not accepted
            return
        if scope["type"] == "websocket":
            scope[SERVER_SEND] = send  # the server's own, before any layer wraps it (play/ws.py writes state messages directly)
            own = self.sockets(scope) if self.sockets is not None else None
            if own is not None:  # served from here, past the framework's layers
                await own(scope, receive, send)
                return
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
            refusal = refusal_response(_TOO_LARGE)
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


# what no path or query parameter of this API holds: the C0 controls (NUL among them: a
# PostgreSQL text cannot hold it), DEL and surrogates (no UTF-8 text holds one)
_UNADDRESSABLE = re.compile("[\x00-\x1f\x7f\ud800-\udfff]")
_MALFORMED_ADDRESS = Refused("malformed", "the address holds a control character", 400)


MALFORMED_CLOSE = 4400  # the close code of a WebSocket whose address is malformed (before it is accepted)


def unaddressable(scope: Scope) -> bool:
    """Whether the request's path or a name or value of its query, as decoded, holds a
    control character or a surrogate."""
    query = QueryParams(scope.get("query_string", b""))
    texts = [scope.get("path", ""), *(t for item in query.multi_items() for t in item)]
    return any(_UNADDRESSABLE.search(t) for t in texts)


def malformed_address(scope: Scope) -> Response | None:
    """Refused ``malformed`` (400) if the address is :func:`unaddressable`; None otherwise.
    Checked at the edge, before any route looks an id or a name up."""
    return refusal_response(_MALFORMED_ADDRESS) if unaddressable(scope) else None


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
