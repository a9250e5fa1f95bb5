"""What the browser tests share: a live server, Debian's Chromium, pages, games, clicks,
screen pictures.

The browser tests need /usr/bin/chromium; ``make test`` installs it (``make system``) and a
missing browser is a failure, not a skip. Screen pictures go to ``build/screens`` (or
``$KARDINAL_SCREENS``); :func:`shot` writes one.
"""

from __future__ import annotations

import os
import random
import socket
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

CHROMIUM = "/usr/bin/chromium"

SCREENS = Path(os.environ.get("KARDINAL_SCREENS") or Path(__file__).resolve().parent.parent / "build" / "screens")


def shot(page: Any, name: str, full_page: bool = False) -> Path:
    """Write a screen picture of ``page`` to SCREENS/<name>.png and return its path."""
    SCREENS.mkdir(parents=True, exist_ok=True)
    path = SCREENS / f"{name}.png"
    page.screenshot(path=str(path), full_page=full_page)
    return path


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


DATA_DIRS: dict[str, Path] = {}  # each live server's data folder, by its address (e.g. for kardinal admin)
APPS: dict[str, Any] = {}  # each live server's app, by its address (e.g. to change its settings: web_helpers.change_settings)


def serve(tmp_path_factory: pytest.TempPathFactory, **app_args: Any) -> Iterator[str]:
    """A live server of a fresh data folder on a free port (the ``server`` fixture);
    ``app_args``: more of create_app's arguments (a clock the test moves on, say)."""
    import uvicorn
    from web_helpers import LENIENT  # the browser tests are not about rate limits (test_web_limits.py is)

    from kardinal.server.common.guard import Guard
    from kardinal.server.web.app import create_app

    data = tmp_path_factory.mktemp("web")
    app = create_app(data_dir=data, **{"bot_pause": 0.0, "guard": Guard(LENIENT), **app_args})
    port = _free_port()
    DATA_DIRS[f"http://127.0.0.1:{port}"] = data
    APPS[f"http://127.0.0.1:{port}"] = app
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=srv.run, daemon=True)
    t.start()
    end = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < end, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}"
    srv.should_exit = True
    t.join(10)


def phone(browser: Any, locale: str = "en-GB") -> Any:
    """A page on a 390x844 touch phone in its own context; ``page.errors``: uncaught exceptions."""
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale=locale, timezone_id="UTC")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


def sign_up_on_page(page: Any, base: str, name: str, password: str = "correct horse battery") -> None:
    """Sign up through the account page's form; back once the page says who is signed in."""
    page.goto(base + "/account")
    page.fill("#signup-name", name)
    page.fill("#signup-password", password)
    page.click("#signup-button")
    page.wait_for_selector("#signed-in-as")


# How long a page's waits and actions may take before they fail, unless a call says
# otherwise: a hang, not a loaded machine (Playwright's own 30 s ran out on a loaded machine
# while a finished game's replay step was fetched).
PAGE_TIMEOUT_MS = 90_000


def launch() -> Iterator[Any]:
    """Debian's Chromium under Playwright (the ``browser`` fixture); fails when it is missing."""
    assert Path(CHROMIUM).exists(), f"{CHROMIUM} is missing: `make test` installs it (make system)"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        made, made_page = b.new_context, b.new_page

        def new_context(*args: Any, **kw: Any) -> Any:
            kw.setdefault("service_workers", "block")  # see below
            ctx = made(*args, **kw)
            ctx.set_default_timeout(PAGE_TIMEOUT_MS)
            return ctx

        def new_page(*args: Any, **kw: Any) -> Any:
            kw.setdefault("service_workers", "block")
            page = made_page(*args, **kw)
            page.set_default_timeout(PAGE_TIMEOUT_MS)
            return page

        # every test's pages wait as long; and without the installed app's service worker (its
        # first visit fetches every static file once more: a fifth more time for the home
        # page's tests), which test_web_pwa.py tests in a profile of its own
        b.new_context, b.new_page = new_context, new_page
        yield b
        b.close()


def choose_lang(page: Any, lang: str) -> None:
    """Choose the page's language in its header (#lang), as a person does, and wait until
    the page speaks it (its catalog is loaded: i18n.js setLang)."""
    page.select_option("#lang", lang)
    page.wait_for_function("(l) => document.documentElement.lang === l", arg=lang)


def new_page(browser: Any, width: int = 1400, height: int = 950, timezone_id: str = "UTC", locale: str = "en-GB") -> Any:
    """A page in its own context; ``page.errors``: uncaught exceptions, ``page.console_errors``:
    messages the page logged as errors (a failed request, a refused module, console.error);
    ``locale``: the browser's language (the page's, where the page has it)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale=locale, timezone_id=timezone_id)
    page = ctx.new_page()
    errors: list[str] = []
    console: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: console.append(f"{m.text} ({m.location.get('url')})") if m.type == "error" else None)
    page.errors = errors
    page.console_errors = console
    return page


def open_settings(page: Any, base: str) -> None:
    """Open the home page and unfold "All table settings" as a person does (a click on its
    summary): the form of seats, levels, board, rule variants and table."""
    page.goto(base + "/")
    page.locator("#settings-summary").click()
    page.wait_for_selector("#kind-1")


def open_other_games(page: Any) -> None:
    """Unfold the home page's list of the games under way and finished."""
    page.wait_for_selector("#other-games-summary")
    if not page.evaluate("document.getElementById('other-games').open"):
        page.locator("#other-games-summary").click()


def create_in_lobby(page: Any, then: str | None = "**/game/*?seat=0&token=*") -> None:
    """Press the lobby's "Create game", wait for the server's answer and (``then``) for the
    page it leads to. A failure says which step did not happen: the request never sent
    (the press was lost), the server's refusal, or a page that did not load, with what the
    lobby shows and the page's errors."""

    def state() -> str:
        shown = page.locator("#created").inner_text() if page.locator("#created").count() else ""
        return f"the lobby shows {shown!r}; page errors {page.errors}; console errors {page.console_errors}"

    def creates(r: Any) -> bool:
        return bool(r.method == "POST" and r.url.endswith("/api/games"))

    sent: list[str] = []
    page.on("request", lambda r: sent.append(r.url) if creates(r) else None)
    button = page.get_by_role("button", name="Create game")
    try:
        with page.expect_response(lambda r: creates(r.request), timeout=20000) as answer:
            button.click()
    except Exception as e:  # playwright's TimeoutError
        what = "the server did not answer the request to create a game" if sent else "pressing Create game sent no request"
        raise AssertionError(f"{what} ({e}); {state()}") from None
    r = answer.value
    assert r.ok, f"the server refused the game: {r.status} {r.text()}; {state()}"
    if then is not None:  # (the answer's body is gone once the page has moved on)
        try:
            page.wait_for_url(then, timeout=30000)
        except Exception as e:
            raise AssertionError(f"the game was created but its page did not load: at {page.url} ({e}); {state()}") from None


def stray_words(page: Any, selector: str) -> set[str]:
    """Words of a program's nothing shown as text in ``selector`` ("null", "undefined", "NaN")."""
    return {"null", "undefined", "NaN"} & set(page.inner_text(selector).replace("(", " ").replace(")", " ").split())


# A test's own request to a live server waits as long as it takes on a loaded machine (httpx's
# default gives up after 5 s: a test failed so under load), bounded so a hung server still fails.
HTTP_TIMEOUT = 120.0


def http_get(url: str, **kw: Any) -> Any:
    """httpx.get with HTTP_TIMEOUT (unless the call gives its own)."""
    import httpx

    kw.setdefault("timeout", HTTP_TIMEOUT)
    return httpx.get(url, **kw)


def http_post(url: str, **kw: Any) -> Any:
    """httpx.post with HTTP_TIMEOUT (unless the call gives its own)."""
    import httpx

    kw.setdefault("timeout", HTTP_TIMEOUT)
    return httpx.post(url, **kw)


def create_game(base: str, players: list[dict[str, Any]], hotseat: bool = False, **more: Any) -> dict[str, Any]:
    r = http_post(f"{base}/api/games", json={"players": players, "hotseat": hotseat, **more})
    assert r.status_code == 200, r.text
    return dict(r.json())


def get(base: str, path: str) -> Any:
    r = http_get(base + path)
    assert r.status_code == 200, r.text
    return r.json()


BOTS4 = [{"name": f"Bot {i + 1}", "kind": "bot", "level": "random"} for i in range(4)]


def page_api(page: Any, method: str, path: str, body: Any = None) -> Any:
    """A request as the page's own scripts send it (same origin, the session's cookie)."""
    return page.evaluate(
        """async ([method, path, body]) => {
            const r = await fetch(path, {method, headers: {'content-type': 'application/json'}, body: body === null ? undefined : JSON.stringify(body)});
            return {status: r.status, json: await r.json()};
        }""",
        [method, path, body],
    )


def version(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.version || -1"))


def wait_turn(page: Any, timeout: float = 20000) -> bool:
    """Wait until this page may act (True) or the game is over (False)."""
    page.wait_for_function("document.body.dataset.myTurn === 'true' || document.body.dataset.status === 'finished'", timeout=timeout)
    return bool(page.evaluate("document.body.dataset.myTurn === 'true'"))


def take_turn(page: Any, rng: random.Random, touch: bool = False) -> None:
    """One decision by clicking (``touch``: by taps alone, the map tapped as a finger
    does): draw, place (cards, then sites/coat, then Play), exchange or pass."""

    def press(target: Any) -> None:
        if touch:
            target.tap()
        else:
            target.click()

    def on_map(target: Any) -> None:
        if not touch:
            target.click()
            return
        chosen = page.locator(".site.selected, .coat.selected").count()
        tap_on_map(page, target)
        assert page.locator(".site.selected, .coat.selected").count() >= chosen

    before = version(page)
    if page.locator("#pass").count():
        press(page.locator("#pass"))
    elif page.evaluate("document.body.dataset.phase") == "draw":
        options = page.locator(".pile.legal, [data-zone=display] .card.legal")
        press(options.nth(rng.randrange(options.count())))
    else:
        hand = page.locator("[data-zone=hand] .card.legal")
        press(hand.nth(rng.randrange(hand.count())))
        placed = False
        for _ in range(3):
            sites = page.locator(".site.legal .spot")
            coats = page.locator(".coat.legal .shield")
            n_sites, n_coats = sites.count(), coats.count()
            if page.locator("#play:not([disabled])").count() and (rng.random() < 0.6 or not (n_sites + n_coats)):
                press(page.locator("#play"))
                placed = True
                break
            if n_sites + n_coats == 0:
                break
            k = rng.randrange(n_sites + n_coats)
            on_map(sites.nth(k) if k < n_sites else coats.nth(k - n_sites))
        if not placed:
            if page.locator("#play:not([disabled])").count():
                press(page.locator("#play"))
            else:  # no placement with this card: exchange it for the top of the pile
                press(page.locator("#clear"))
                press(page.locator("[data-zone=hand] .card.legal").first)
                press(page.locator(".pile").first)
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=10000)


def tap_card_for_a_site(page: Any) -> None:
    """Tap the hand's cards in turn until one can found a cloister (a free site is legal)."""
    cards = page.locator("[data-zone=hand] .card.legal")
    for k in range(cards.count()):
        cards.nth(k).tap()
        if page.locator(".site.legal .spot").count():
            return
        page.locator("#clear").tap()


def map_zoom(page: Any) -> float:
    return float(page.evaluate("document.getElementById('map').dataset.zoom"))


def tap_on_map(page: Any, target: Any, limit: int = 8) -> int:
    """Tap a site or a coat of arms as a finger does: where the targets lie closer than a
    finger's width on the screen, a tap zooms the map in and chooses nothing, so tap again
    until one chooses; return how many taps zoomed."""
    zooms = 0
    for _ in range(limit):
        z = map_zoom(page)
        # where the finger lands, whatever lies on top there: another site's spot may cover
        # part of this one (Playwright's own check would wait for it to be uncovered)
        target.tap(force=True)
        if map_zoom(page) <= z:
            return zooms
        zooms += 1
    raise AssertionError(f"{limit} taps only zoomed the map")
