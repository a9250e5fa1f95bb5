"""The web server's app (FastAPI): ``create_app()`` puts it together.

The pages (``/`` the lobby, ``/game/{id}`` a game, ``/rules``, ``/tutorial``, the
documentation site at ``/docs/``), the games' HTTP API (routes.py), their WebSocket
(ws.py), hints and reviews (teach.py) and the tutorial (tutorial.py) over one game service
(service.py) and its database (storage.py); every request passes the edge of http.py (the
size limit, headers, the access log) and every refusal is answered in the API's format
(``{"error": {code, message, params}}``). The OpenAPI document (``/openapi.json``, shown at
``/api/docs``) is the API's reference, with the WebSocket's messages in it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import re
from collections.abc import AsyncIterator, Callable
from concurrent.futures import Executor
from importlib import metadata, resources
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request, WebSocket
from fastapi.exceptions import RequestValidationError
from fastapi.openapi.utils import get_openapi
from fastapi.responses import HTMLResponse, JSONResponse, Response
from fastapi.staticfiles import StaticFiles
from fastapi_offline import FastAPIOffline
from starlette.datastructures import QueryParams
from starlette.exceptions import HTTPException
from starlette.types import Scope

from ..common import metrics
from ..common.catalog import browser_catalog, pick
from ..common.guard import Guard, rules_from
from ..common.refusal import Refused
from ..common.schemas import token_error
from ..common.settings import Settings, load_settings
from ..community.account_routes import router as account_router
from ..community.accounts import Accounts
from ..community.moderation import Moderation
from ..community.moderation_routes import router as moderation_router
from ..community.rating_routes import router as rating_router
from ..community.settle import Settler
from ..community.social import Social
from ..community.social_routes import router as social_router
from ..mail import GameMail, Mailer, Pusher, mail_settings, run_push_sender, run_sender
from ..mail.routes import router as mail_router
from ..play.routes import router as routes_router
from ..play.schemas import CLIENT_MESSAGE, SERVER_MESSAGE
from ..play.service import GameService
from ..play.teach import router as teach_router
from ..play.tutorial import router as tutorial_router
from ..play.ws import direct_route
from ..play.ws import router as ws_router
from ..storage import Storage, StorageError
from .http import MAX_BODY, HttpEdge, client_address, invalid_body, malformed_address, refusal_response, route_path
from .mapdata import named_board_json
from .origin import cross_site
from .pages import root_of, static_page, version_header
from .pwa import Shell
from .pwa import router as pwa_router
from .rules_page import rules_response
from .schemas import ErrorBody, Health, Readiness
from .scrape import keep_sampling
from .scrape import router as metrics_router

__all__ = ["create_app", "DEFAULT_DATA"]

DEFAULT_DATA = Path("data")
log = logging.getLogger("kardinal.web")
STATIC = Path(str(resources.files("kardinal.clients.web").joinpath("static")))
# the documentation site as `make docs` builds it (mkdocs.yml): beside the checkout's
# sources, or where KARDINAL_DOCS says
DOCS_SITE = Path(__file__).resolve().parents[3] / "site"


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
    401: {"model": ErrorBody, "description": "signed_out: the operation needs an account's session"},
    403: {
        "model": ErrorBody,
        "description": "bad_token (no such seat, or a wrong token), bot_seat (a bot plays the seat now), not allowed at this table, bad_sign_in, "
        "wrong_password (the account's password re-entered), suspended, "
        "or cross_site (a request from another site's page)",
    },
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
    clock: Callable[[], float] | None = None,
    clock_check: float | None = None,
    settings: Settings | None = None,
    static_dir: Path | None = None,
) -> FastAPI:
    """The app; state in ``data_dir/kardinal.sqlite3`` (or ``db_url``). ``table_check``:
    seconds between looks for people away on their turn (GameService.watch_tables);
    ``idle_expiry``: seconds without a change after which an unfinished game expires
    (None: never); ``docs_dir``: the built documentation site, served at ``/docs/``
    (default: KARDINAL_DOCS, else the checkout's ``site/``); ``clock``: the time source of
    the tables' clocks (Unix time; tests pass their own); ``clock_check``: seconds between
    looks at their deadlines (default: KARDINAL_CLOCK_CHECK, else 1). ``settings``: the
    server's settings (default: read from the environment, kardinal.server.common.settings; a
    malformed one raises SettingsError); the arguments given here change them, and the
    app keeps the result on ``app.state.settings``. ``static_dir``: the browser's files
    (default: the package's; tests give a copy to change)."""
    paths = {"data": data_dir, "docs": docs_dir}
    given = {**{k: Path(v) for k, v in paths.items() if v is not None}, "bot_pause": bot_pause, "clock_check": clock_check}
    settings = (settings or load_settings()).model_copy(update={k: v for k, v in given.items() if v is not None})
    metrics.check_folder()  # several processes' metrics: their folder must be there (ValueError)
    storage = Storage.sqlite(settings.data / "kardinal.sqlite3") if db_url is None else Storage(db_url)
    service = GameService(storage, bot_pause=settings.bot_pause, executor=executor, max_live=max_live, idle_expiry=idle_expiry)
    service.contact = settings.contact
    if clock is not None:
        service.now = clock

    @contextlib.asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        # the map layout takes a second to compute: do it now, off the event loop
        layout = asyncio.get_running_loop().run_in_executor(None, named_board_json, "standard")
        await service.start()  # the time the server was down given back, the games resumed (clocks.py)
        stop = asyncio.Event()
        shared = asyncio.create_task(service.keep_shared(stop)) if storage.shared else None
        tables = asyncio.create_task(service.watch_tables(stop, every=table_check))
        operator = asyncio.create_task(app.state.moderation.keep_applying(stop))  # kardinal admin's pending work
        clocks = asyncio.create_task(service.watch_clocks(stop, every=settings.clock_check))
        log.info("%s", mailer.reason)  # on, or off and which setting is missing (never a setting's value)
        sender = asyncio.create_task(run_sender(mailer, stop))
        sampler = asyncio.create_task(keep_sampling(service, stop))  # the metrics' gauges (several processes)
        log.info("%s", pusher.reason)
        push_sender = asyncio.create_task(run_push_sender(pusher, stop))
        yield
        stop.set()
        await operator
        await tables
        await clocks
        await sender
        await sampler
        await push_sender
        if shared is not None:
            await shared
        await layout
        service.stop_bots()
        storage.close()

    # FastAPIOffline: the docs UI's scripts from the package, not from a CDN (a server on a
    # closed network, or a browser that blocks third parties, showed an empty page)
    app = FastAPIOffline(
        static_url="/api/docs-static",
        title="Kardinal",
        summary="Kardinal & König online: tables, seats, moves, hints, replays",
        version=_VERSION,
        lifespan=lifespan,
        docs_url="/api/docs",
        redoc_url=None,
        responses=ERRORS,
    )
    app.state.settings = settings
    app.state.service = service
    app.state.settler = Settler(service)  # a finished game's results and ratings (settle.py)
    app.openapi = lambda: _openapi(app)  # type: ignore[method-assign]

    static = static_dir or STATIC
    app.state.shell = Shell.of(static)  # the static files' version, for the service worker (pwa.py)
    app.mount("/static", StaticFiles(directory=static), name="static")
    site = Path(settings.docs or DOCS_SITE)
    if (site / "index.html").is_file():
        # the site's links are relative: it works under /docs/ and under a proxy's root path
        app.mount("/docs", StaticFiles(directory=site, html=True), name="docs")
    else:

        @app.get("/docs/{rest:path}", include_in_schema=False)
        async def no_docs(rest: str) -> HTMLResponse:
            return HTMLResponse(_NO_DOCS, status_code=404)

    limits = app.state.limits = guard if guard is not None else Guard(rules_from(settings.rate_limits))
    if storage.shared:  # several processes on one PostgreSQL database: their budgets are one
        limits.share(storage)
    app.state.accounts = Accounts(storage, service, limits, days=settings.session_days)
    app.state.social = Social(storage, service, limits)  # profiles, follows, invitations (social.py)
    app.state.moderation = Moderation(storage, service, limits)
    # e-mail (mail/): its settings (missing or malformed: off, and the log says why), the queue's sender, the games' mails
    mailer = app.state.mailer = Mailer(storage, limits, *mail_settings(settings.mail_values()))
    mailer.accounts = app.state.accounts
    pusher = app.state.pusher = Pusher(storage, settings.push_sub())  # Web Push (mail/push.py): the same events, to devices
    app.state.game_mail = GameMail(mailer, now=lambda: service.now(), pusher=pusher)  # the tables' clock, as set now or later
    service.on_change.append(app.state.game_mail.on_change)
    app.state.social.on_invited.append(app.state.game_mail.notify_invited)  # invited by name: a mail, if wanted
    app.state.game_mail.ratings = app.state.settler.rating_changes  # a rated game's end mail says the new rating
    service.on_follow_up.append(app.state.game_mail.notify_follow_up)  # a turn-based table played again: those not there invited

    def addr(conn: Request | WebSocket) -> str:
        return client_address(conn.scope)

    @app.exception_handler(Refused)
    async def refused(request: Request, e: Refused) -> JSONResponse:
        if e.code == "bad_token":
            limits.note("bad_token", addr(request))  # a wrong token: guessing is slowed
        return refusal_response(e)

    @app.exception_handler(RequestValidationError)
    async def invalid(request: Request, e: RequestValidationError) -> JSONResponse:
        """A body that is not what its route declares: 400 ``malformed`` naming the field
        (the client's error: no traceback, only the access log's line)."""
        errors = e.errors()
        if token_error(errors):  # a missing or malformed token is a wrong one: guessing is slowed
            limits.note("bad_token", addr(request))
        return refusal_response(invalid_body(errors))

    @app.exception_handler(HTTPException)
    async def http_refused(request: Request, e: HTTPException) -> Response:
        """Starlette's own refusals in the project's format: a body over the limit, one
        that is not JSON (FastAPI: "There was an error parsing the body"), no such page."""
        if e.status_code == 413:
            return refusal_response(Refused("too_large", f"at most {MAX_BODY} bytes", 413, max=MAX_BODY))
        if e.status_code == 400:
            return refusal_response(Refused("malformed", "the body must be JSON", 400))
        if e.status_code == 404:
            return refusal_response(Refused("not_found", "no such page", 404))
        if e.status_code == 405:
            return refusal_response(Refused("not_allowed", f"{request.method} is not allowed here", 405))
        return JSONResponse({"error": {"code": "http", "message": str(e.detail), "params": {}}}, e.status_code, headers=e.headers)

    # requests that carry a seat token: refused while their address is over its budget of wrong tokens
    tokened = re.compile(r"^/api/games/[^/]+/(actions|undo|join|again|state|hint)$")

    def token_guard(scope: Scope) -> Response | None:
        # (the path within the application: checked against the path as sent, under a
        # reverse proxy's --root-path, this guard let every guess through)
        if tokened.match(route_path(scope)) and (scope["method"] == "POST" or "token" in QueryParams(scope["query_string"])):
            try:
                limits.check("bad_token", client_address(scope))
            except Refused as e:
                return refusal_response(e)
        return None

    def edge_check(scope: Scope) -> Response | None:
        return malformed_address(scope) or cross_site(scope) or token_guard(scope)

    app.add_middleware(HttpEdge, check=edge_check, sockets=direct_route)

    @app.exception_handler(StorageError)
    async def storage_failed(_request: Request, e: StorageError) -> JSONResponse:
        log.error("the database cannot be used: %s", e)
        return refusal_response(Refused("unavailable", "the game could not be saved; nothing was changed", 503))

    @app.get("/healthz", response_model=Health, tags=["operations"])
    async def healthz() -> Health:
        """Alive: the process answers (for a process supervisor)."""
        return {"status": "ok"}

    @app.get("/readyz", response_model=None, tags=["operations"], responses={200: {"model": Readiness}, 503: {"model": Readiness}})
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

    @app.get("/account", include_in_schema=False)
    async def account_page(request: Request) -> HTMLResponse:
        """Sign up, sign in and out, a new password, delete the account, its data."""
        return static_page(request, "account.html")

    @app.get("/game/{game_id}", include_in_schema=False)
    async def game_page(request: Request, game_id: str) -> HTMLResponse:
        return static_page(request, "game.html")

    @app.get("/i18n/catalog.json", include_in_schema=False)
    async def i18n_catalog(request: Request, want: str = "") -> Response:
        """The browser's words: the catalog of the first language of ``want`` (a comma list:
        the page's choice, then the browser's languages) that has one, else English
        (common/catalog.py). Revalidated by its ETag: a new release's words are fetched."""
        body, etag = browser_catalog(pick(*want.split(",")[:10]))
        headers = {"ETag": etag, "Cache-Control": "no-cache", "Vary": "Accept-Encoding"}
        if request.headers.get("if-none-match") == etag:
            return Response(status_code=304, headers=headers)
        return Response(body, media_type="application/json", headers=headers)

    app.include_router(teach_router)  # hints and reviews (teach.py)
    app.include_router(tutorial_router)  # /tutorial, /api/tutorial, /api/rules (tutorial.py)

    @app.get("/rules", include_in_schema=False)
    def rules_page(request: Request, lang: str | None = None) -> Response:  # sync: reads docs/rules.md
        """The rules (docs/rules.md) in English or German: ``?lang=de``, else the browser's language."""
        page = rules_response(lang, request.headers.get("accept-language"), root_of(request))
        page.headers.update(version_header(request))
        return page

    app.include_router(routes_router)  # the games' HTTP API (routes.py)
    app.include_router(ws_router)  # the games' WebSocket (ws.py)
    app.include_router(account_router)  # accounts and sessions (account_routes.py)
    app.include_router(social_router)  # profiles, follows, invitations by name (social_routes.py)
    app.include_router(moderation_router)  # mute, block, report (moderation_routes.py)
    app.include_router(mail_router)  # e-mail: addresses, resets, unsubscribing, the /mail page (mail/routes.py)
    app.include_router(rating_router)  # ratings, the leaderboard, find me a table (rating_routes.py)
    app.include_router(pwa_router)  # the installable app: manifest, service worker, offline page (pwa.py)
    app.include_router(metrics_router)  # /metrics for Prometheus, with the operator's token (scrape.py)
    return app
