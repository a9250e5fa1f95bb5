"""The installable app (issue 46, item 1): the manifest, the service worker that keeps the
static files of one version, the offline page in the player's language, "Install".

The API-level tests read what the server serves; the two browser tests (desktop in English,
a phone in German) install the worker in Chromium and check, on one page each: the
DevTools protocol finds the manifest without errors and the app installable, the Install
button is offered, a reload without a network shows the offline page in the page's
language and never an API answer from a cache, and a release (a changed static file)
replaces the old cache by the new version's files.

Chromium counts a context without a profile (Playwright's new_context) as incognito, where
nothing installs: the browser tests open a persistent context of their own.
"""

from __future__ import annotations

import json
import random
import re
import shutil
import struct
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import webtools
from fastapi.testclient import TestClient
from web_helpers import make_client
from webtools import APPS, BOTS4, CHROMIUM, PAGE_TIMEOUT_MS, create_game, serve, shot, take_turn, wait_turn

import kardinal.clients.web as web
from kardinal.server.web.app import create_app
from kardinal.server.web.pwa import Shell

STATIC = Path(web.__file__).parent / "static"
PAGES = ["/", "/mine", "/account", "/game/g1", "/players", "/player/anna", "/mail", "/tutorial", "/rules", "/offline"]


def _png_size(data: bytes) -> tuple[int, int]:
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    width, height = struct.unpack(">II", data[16:24])
    return width, height


def _worker_version(script: str) -> str:
    found = re.search(r'^const VERSION = "([0-9a-f]+)";$', script, re.M)
    assert found, "the worker names no version"
    return found.group(1)


def test_the_manifest_names_the_app_its_colours_and_icons_every_page_links(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        r = c.get("/manifest.webmanifest")
        assert r.status_code == 200 and r.headers["content-type"] == "application/manifest+json"
        m = r.json()
        assert m["name"] == "Kardinal & König" and m["short_name"] == "Kardinal" and m["lang"] == "en"
        assert m["display"] == "standalone" and m["start_url"] == m["scope"] == m["id"] == "./"
        style = (STATIC / "style.css").read_text(encoding="utf-8")
        assert f"background: {m['background_color']};" in style and f"background: {m['theme_color']};" in style  # body, header
        sizes = {}
        for icon in m["icons"]:
            got = c.get("/" + icon["src"])
            assert got.status_code == 200 and got.headers["content-type"] == icon["type"], icon
            if icon["type"] == "image/png":
                w, h = _png_size(got.content)
                assert f"{w}x{h}" == icon["sizes"], icon
                sizes[icon["sizes"], icon["purpose"]] = icon["src"]
        assert {("192x192", "any"), ("512x512", "any"), ("512x512", "maskable")} <= set(sizes)
        assert _png_size(c.get("/static/apple-touch-icon.png").content) == (180, 180)
        for path in PAGES:
            page = c.get(path).text
            head = page[page.index("<head>") : page.index("</head>")]
            assert '<link rel="manifest" href="/manifest.webmanifest">' in head, path
            assert '<link rel="apple-touch-icon" href="/static/apple-touch-icon.png">' in head, path
            assert '<script type="module" src="/static/pwa.js"></script>' in head, path


def test_the_worker_names_the_version_of_the_static_files_and_a_changed_file_changes_it(tmp_path: Path) -> None:
    static = tmp_path / "static"
    shutil.copytree(STATIC, static)
    with TestClient(create_app(data_dir=tmp_path, bot_pause=0.0, static_dir=static)) as c:
        r = c.get("/sw.js")
        assert r.status_code == 200 and r.headers["content-type"].startswith("text/javascript")
        assert r.headers["cache-control"] == "no-cache"  # the browser asks each time: a release is seen on the next visit
        version = _worker_version(r.text)
        assert '"__VERSION__"' not in r.text and '["__FILES__"]' not in r.text
        assert 'importScripts(new URL("static/sw-push.js", SCOPE).href)' in r.text
        files = re.search(r"^const FILES = (\[.*\]);$", r.text, re.M)
        assert files
        kept = set(re.findall(r'"(static/[^"]+)"', files.group(1)))
        assert {"static/style.css", "static/pwa.js", "static/offline.js", "static/i18n.js", "static/icon-192.png"} <= kept
        assert not kept & {"static/sw.js", "static/sw-push.js", "static/index.html", "static/rules.md"}
        for path in PAGES:  # every page names the version it belongs to
            assert c.get(path).headers["x-kardinal-version"] == version, path
        assert "x-kardinal-version" not in c.get("/api/games").headers
        # a release: one static file changed, the server started again
        (static / "style.css").write_text((static / "style.css").read_text(encoding="utf-8") + "/* 2 */\n", encoding="utf-8")
        assert c.get("/sw.js").text == r.text  # the version is the one the server started with
    with TestClient(create_app(data_dir=tmp_path, bot_pause=0.0, static_dir=static)) as c:
        again = c.get("/sw.js").text
        assert _worker_version(again) != version and c.get("/").headers["x-kardinal-version"] == _worker_version(again)


def test_under_a_root_path_the_worker_and_manifest_are_under_it(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, bot_pause=0.0), root_path="/kardinal") as c:
        page = c.get("/kardinal/").text
        assert '<link rel="manifest" href="/kardinal/manifest.webmanifest">' in page and 'src="/kardinal/static/pwa.js"' in page
        assert c.get("/kardinal/sw.js").status_code == 200
        # the manifest's addresses are relative to it: under the root as it is
        assert c.get("/kardinal/manifest.webmanifest").json()["start_url"] == "./"
        assert 'href="/kardinal/static/style.css"' in c.get("/kardinal/offline").text


# ---------------------------------------------------------------- in Chromium


@pytest.fixture(scope="module")
def playwright() -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        yield p


@pytest.fixture(scope="module")
def app_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """A live server of a copy of the static files (a test changes one: a release)."""
    static = tmp_path_factory.mktemp("pwa") / "static"
    shutil.copytree(STATIC, static)
    for base in serve(tmp_path_factory, static_dir=static):
        yield base, static


def _context(playwright: Any, profile: Path, **kw: Any) -> Any:
    ctx = playwright.chromium.launch_persistent_context(
        str(profile), executable_path=CHROMIUM, args=["--no-sandbox"], timezone_id="UTC", **kw
    )
    ctx.set_default_timeout(PAGE_TIMEOUT_MS)
    return ctx


def _cache_names(page: Any) -> list[str]:
    return list(page.evaluate("caches.keys()"))


def _wait_for_caches(page: Any, names: list[str]) -> None:
    """Wait until the page's origin has these caches and no others (each poll asks anew;
    wait_for_function does not wait for a promise)."""
    page.wait_for_function(
        "want => { caches.keys().then(k => { window.cacheNames = JSON.stringify(k); }); return window.cacheNames === want; }",
        arg=json.dumps(names, separators=(",", ":")),
    )


def _release(base: str, static: Path, mark: str) -> str:
    """A new version: a static file changed, the server's shell read again (as at a restart)."""
    style = static / "style.css"
    style.write_text(style.read_text(encoding="utf-8") + f"/* {mark} */\n", encoding="utf-8")
    app = APPS[base]
    app.state.shell = Shell.of(static)
    return str(app.state.shell.version)


def _check_the_app(page: Any, base: str, static: Path, name: str, offline_title: str, offline_words: str, touch: bool = False) -> None:
    """The installable app's checks on one page (desktop or phone), in the page's language."""
    from playwright.sync_api import expect

    version = APPS[base].state.shell.version
    page.goto(base + "/")
    page.wait_for_function("navigator.serviceWorker.controller !== null")  # installed and controlling (clients.claim)
    assert _cache_names(page) == [f"kardinal-{version}"]
    # the manifest is valid and the app installable (the DevTools protocol)
    cdp = page.context.new_cdp_session(page)
    manifest = cdp.send("Page.getAppManifest")
    assert manifest["url"] == base + "/manifest.webmanifest" and manifest["errors"] == [], manifest["errors"]
    assert cdp.send("Page.getInstallabilityErrors")["installabilityErrors"] == []
    # the browser offers to install: the header's button
    expect(page.locator("#install")).to_be_visible()
    assert page.locator("#install").get_attribute("title")
    shot(page, f"pwa-{name}-install")
    # the network cut: the offline page in the page's language; an API answer is never kept
    assert page.evaluate("fetch('/api/games').then(r => r.status)") == 200
    page.context.set_offline(True)
    try:
        page.reload()
        expect(page.locator("h1")).to_have_text(offline_title)
        expect(page.locator("#offline-text")).to_contain_text(offline_words)
        assert page.url == base + "/"  # the page asked for, shown as offline
        assert page.evaluate("fetch('/api/games').then(() => 'answered', () => 'failed')") == "failed"
        shot(page, f"pwa-{name}-offline")
    finally:
        page.context.set_offline(False)
    # a release: the next visit installs the new worker, which keeps only the new version's files
    new = _release(base, static, f"release for {name}")
    page.reload()
    expect(page.locator("#install")).to_be_attached()
    _wait_for_caches(page, [f"kardinal-{new}"])
    page.wait_for_function("navigator.serviceWorker.controller !== null")
    kept = page.evaluate(f"caches.open('kardinal-{new}').then(c => c.match('/static/style.css')).then(r => r.text())")
    assert f"/* release for {name} */" in kept
    assert f"/* release for {name} */" in page.evaluate("fetch('/static/style.css').then(r => r.text())")
    # a game under the worker: live over its WebSocket (the bots' moves arrive), a move is taken
    game = create_game(base, BOTS4[:3] + [{"name": "Ann", "kind": "person"}])
    (seat,) = game["seats"]  # the person's invitation (seat 3)
    page.goto(base + seat["url"])
    assert page.evaluate("navigator.serviceWorker.controller !== null")
    assert wait_turn(page)  # after three bots' moves, each sent over the socket
    before = webtools.version(page)
    assert before >= 3
    take_turn(page, random.Random(46), touch=touch)
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}")
    assert page.errors == [], page.errors


def _watched(page: Any) -> Any:
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.errors = errors
    return page


@pytest.mark.browser
def test_desktop_installs_the_app_offline_page_in_english_and_a_release_replaces_the_cache(
    playwright: Any, app_server: tuple[str, Path], tmp_path: Path
) -> None:
    base, static = app_server
    ctx = _context(playwright, tmp_path / "profile", viewport={"width": 1400, "height": 950}, locale="en-GB")
    try:
        page = _watched(ctx.pages[0] if ctx.pages else ctx.new_page())
        _check_the_app(page, base, static, "desktop", "No connection", "cannot reach the Kardinal & König server")
    finally:
        ctx.close()


@pytest.mark.browser
def test_a_phone_in_german_installs_the_app_offline_page_in_german_and_a_release_replaces_the_cache(
    playwright: Any, app_server: tuple[str, Path], tmp_path: Path
) -> None:
    base, static = app_server
    phone = {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True, "locale": "de-DE"}
    ctx = _context(playwright, tmp_path / "profile", **phone)
    try:
        page = _watched(ctx.pages[0] if ctx.pages else ctx.new_page())
        _check_the_app(page, base, static, "phone", "Keine Verbindung", "erreicht den Server von Kardinal & König gerade nicht", touch=True)
    finally:
        ctx.close()
