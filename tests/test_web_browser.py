"""The browser client, driven by Playwright in Debian's Chromium: clicking only.

Needs /usr/bin/chromium (``apt-get install chromium``); skipped without it unless CI is
set (in CI these tests must run).
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

pytestmark = [
    pytest.mark.browser,
    pytest.mark.skipif(
        not Path(CHROMIUM).exists() and not os.environ.get("CI"), reason=f"{CHROMIUM} is missing (apt-get install chromium)"
    ),
]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    import uvicorn

    from kardinal.clients.web.app import create_app

    app = create_app(data_dir=tmp_path_factory.mktemp("web"), bot_pause=0.0)
    port = _free_port()
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


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        b = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        yield b
        b.close()


def new_page(browser: Any, width: int = 1400, height: int = 950) -> Any:
    """A page in its own context; ``page.errors``: uncaught exceptions, ``page.console_errors``:
    messages the page logged as errors (a failed request, a refused module, console.error)."""
    ctx = browser.new_context(viewport={"width": width, "height": height}, locale="en-GB")
    page = ctx.new_page()
    errors: list[str] = []
    console: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: console.append(f"{m.text} ({m.location.get('url')})") if m.type == "error" else None)
    page.errors = errors
    page.console_errors = console
    return page


def create_game(base: str, players: list[dict[str, Any]], hotseat: bool = False, **more: Any) -> dict[str, Any]:
    import httpx

    r = httpx.post(f"{base}/api/games", json={"players": players, "hotseat": hotseat, **more})
    assert r.status_code == 200, r.text
    return dict(r.json())


def get(base: str, path: str) -> Any:
    import httpx

    r = httpx.get(base + path)
    assert r.status_code == 200, r.text
    return r.json()


BOTS4 = [{"name": f"Bot {i + 1}", "kind": "bot", "level": "random"} for i in range(4)]


def version(page: Any) -> int:
    return int(page.evaluate("document.body.dataset.version || -1"))


def wait_turn(page: Any, timeout: float = 20000) -> bool:
    """Wait until this page may act (True) or the game is over (False)."""
    page.wait_for_function("document.body.dataset.myTurn === 'true' || document.body.dataset.status === 'finished'", timeout=timeout)
    return bool(page.evaluate("document.body.dataset.myTurn === 'true'"))


def take_turn(page: Any, rng: random.Random) -> None:
    """One decision by clicking: draw, place (cards, then sites/coat, then Play), exchange or pass."""
    before = version(page)
    if page.locator("#pass").count():
        page.get_by_role("button", name="Pass").click()
    elif page.evaluate("document.body.dataset.phase") == "draw":
        options = page.locator(".pile.legal, [data-zone=display] .card.legal")
        options.nth(rng.randrange(options.count())).click()
    else:
        hand = page.locator("[data-zone=hand] .card.legal")
        hand.nth(rng.randrange(hand.count())).click()
        placed = False
        for _ in range(3):
            sites = page.locator(".site.legal .spot")
            coats = page.locator(".coat.legal .shield")
            n_sites, n_coats = sites.count(), coats.count()
            if page.locator("#play:not([disabled])").count() and (rng.random() < 0.6 or not (n_sites + n_coats)):
                page.get_by_role("button", name="Play").click()
                placed = True
                break
            if n_sites + n_coats == 0:
                break
            k = rng.randrange(n_sites + n_coats)
            (sites.nth(k) if k < n_sites else coats.nth(k - n_sites)).click()
        if not placed:
            if page.locator("#play:not([disabled])").count():
                page.get_by_role("button", name="Play").click()
            else:  # no placement with this card: exchange it for the top of the pile
                page.get_by_role("button", name="Clear selection").click()
                page.locator("[data-zone=hand] .card.legal").first.click()
                page.get_by_role("button", name="Draw pile").click()
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=10000)


def test_a_complete_game_against_three_bots(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    page.wait_for_selector("#kind-1")
    for i in (1, 2, 3):
        page.select_option(f"#kind-{i}", "bot")
        page.select_option(f"#level-{i}", "random")
    page.fill("#name-0", "Ann")
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/game/*?seat=0&token=*")
    page.wait_for_selector("[data-site=paris]")
    board = get(server, "/api/board?id=standard")
    assert page.evaluate("document.body.dataset.board") == "standard"
    assert page.locator("[data-site]").count() == len(board["sites"]) == 51
    assert page.locator("[data-country]").count() == 9
    assert page.locator("[data-alliance]").count() == 15
    # colours from the board data: the countries' fills, the stripes on the cards
    fills = page.evaluate(
        "[...document.querySelectorAll('[data-country]')].map((g) => [g.dataset.country, g.querySelector('polygon').getAttribute('fill')])"
    )
    assert dict(fills) == {c["id"]: c["colour"] for c in board["countries"]}
    # a game created with the defaults is played by the rules as written, and says so
    assert page.inner_text("#rules-info") == "Rules: as written"
    assert "Rules: as written" in page.inner_text("#log [data-event=rules]")
    rng = random.Random(7)
    decisions = 0
    while wait_turn(page):
        take_turn(page, rng)
        decisions += 1
        assert decisions < 400
    assert decisions > 10
    page.wait_for_selector("#standings")
    assert "Ann" in page.inner_text("#standings")
    assert page.locator("#log li:not(.event)").count() == version(page)
    assert page.locator("#log [data-event=intermediate]").count() == 1 and page.locator("#log [data-event=final]").count() == 1
    # the replay viewer steps back and forward through the finished game
    page.get_by_role("button", name="Back").click()
    page.wait_for_function(f"document.body.dataset.replay === '{version(page) - 1}'")
    page.get_by_role("button", name="First").click()
    page.wait_for_function("document.body.dataset.replay === '0'")
    assert page.locator("#log li:not(.event)").count() == 0
    page.get_by_role("button", name="Forward").click()
    page.wait_for_function("document.body.dataset.replay === '1'")
    with page.expect_download() as dl:
        page.get_by_role("link", name="Download the game record").click()
    import json

    rec = json.loads(Path(dl.value.path()).read_text())
    assert rec["format"] == "kardinal-record" and "seed" not in rec
    # German, and back
    page.get_by_role("button", name="Deutsch").click()
    assert page.locator("text=Spielverlauf").count() == 1
    page.get_by_role("button", name="English").click()
    assert page.errors == []
    assert page.console_errors == []
    page.context.close()


def test_two_browsers_play_one_online_game(server: str, browser: Any) -> None:
    g = create_game(
        server, [{"name": "Ann", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Bot", "kind": "bot", "level": "random"}]
    )
    a, b = new_page(browser), new_page(browser)
    a.goto(server + g["seats"][0]["url"])
    b.goto(server + g["seats"][1]["url"])
    rng = random.Random(3)
    moves = {0: 0, 1: 0}
    reloaded = False
    while min(moves.values()) < 4:
        for seat, page in ((0, a), (1, b)):
            page.wait_for_function("document.body.dataset.status === 'running'")
            if page.evaluate("document.body.dataset.myTurn") == "true":
                take_turn(page, rng)
                moves[seat] += 1
        if moves[0] >= 2 and not reloaded:
            # a reload mid-game: the same link brings back the same seat, hand and position
            a.wait_for_function("document.body.dataset.version === String(" + str(version(b)) + ")")
            hand_before = a.inner_text("[data-zone=hand]")
            v = version(a)
            a.reload()
            a.wait_for_function(f"document.body.dataset.version === '{v}'")
            assert a.inner_text("[data-zone=hand]") == hand_before
            reloaded = True
        time.sleep(0.02)
    # both pages show the same game
    b.wait_for_function(f"Number(document.body.dataset.version) >= {version(a)}")
    a.wait_for_function(f"Number(document.body.dataset.version) >= {version(b)}")
    assert a.inner_text("#log") == b.inner_text("#log")
    assert "Ann" in a.inner_text("#log") and "Ben" in a.inner_text("#log")
    assert a.errors == [] and b.errors == []
    # a spectator sees the game but no hand
    s = new_page(browser)
    s.goto(server + g["watch"])
    s.wait_for_selector("[data-site=paris]")
    s.wait_for_function("document.body.dataset.status === 'running'")
    assert s.locator("[data-zone=hand]").count() == 0
    # a wrong link says so, and shows the game as to a spectator
    w = new_page(browser)
    w.goto(server + f"/game/{g['id']}?seat=1&token=not-the-token")
    w.wait_for_function("document.body.dataset.status === 'running'")
    assert "wrong token" in w.inner_text("#msg")
    assert w.locator("[data-zone=hand]").count() == 0
    for p in (a, b, s, w):
        p.context.close()


def test_hotseat_hides_the_hand_until_asked(server: str, browser: Any) -> None:
    g = create_game(
        server,
        [{"name": "Ann", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Bot", "kind": "bot", "level": "random"}],
        hotseat=True,
    )
    page = new_page(browser)
    page.goto(server + g["hotseat_url"])
    rng = random.Random(5)
    for name in ("Ann", "Ben", "Ann"):
        button = page.get_by_role("button", name=f"{name}'s turn — show my hand")
        button.wait_for()
        assert page.locator("[data-zone=hand]").count() == 0
        button.click()
        assert page.locator("[data-zone=hand] .card").count() == 3
        if name == "Ben":
            # a click the rules do not allow is refused with a message, and nothing is sent
            v = version(page)
            page.locator("[data-zone=hand] .card.legal").first.click()
            page.locator(".site:not(.legal) .spot").first.click()
            assert "No cloister can go to" in page.inner_text("#msg")
            assert version(page) == v
            page.get_by_role("button", name="Clear selection").click()
        while True:
            take_turn(page, rng)
            if page.evaluate("document.body.dataset.phase") != "draw" or page.evaluate("document.body.dataset.myTurn") != "true":
                break
    assert page.errors == []
    page.context.close()
