"""Phones and tablets, in Debian's Chromium with touch emulated (hasTouch, isMobile): a whole
game by taps alone on an upright phone (390x844), the layout of a phone turned (844x390) and
of a tablet (768x1024), every control at least 44 px, the map zoomed by pinching, by a double
tap and by a tap where the sites crowd (which chooses nothing). Screen pictures go to
build/screens (phone-*.png)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from webtools import BOTS4, create_game, map_zoom, shot, take_turn, tap_card_for_a_site, tap_on_map, version, wait_turn

pytestmark = pytest.mark.browser

TARGET = 44  # px: the smallest touch target

# every control a finger uses (a check box: with its label) that is smaller than TARGET either way
SMALL_CONTROLS = """() => [...document.querySelectorAll('button, a[href], select, input, summary')]
  .filter((e) => e.offsetParent !== null && !e.closest('dialog:not([open])') && !e.closest('#log'))
  .map((e) => [e, ((e.type === 'checkbox' || e.type === 'radio') && e.labels && e.labels[0] ? e.labels[0] : e).getBoundingClientRect()])
  .filter(([e, r]) => r.width > 0 && (r.width < 44 || r.height < 44))
  .map(([e, r]) => `${e.tagName.toLowerCase()}#${e.id}.${e.className} "${(e.textContent || '').trim().slice(0, 20)}" ${Math.round(r.width)}x${Math.round(r.height)}`)"""

# whether the element's middle is on the screen and the element itself is there (nothing over it)
ON_TOP = """(sel) => { const e = document.querySelector(sel); if (!e) return false;
  const r = e.getBoundingClientRect(); const x = r.left + r.width / 2, y = r.top + r.height / 2;
  if (x < 0 || y < 0 || x > innerWidth || y > innerHeight) return false;
  const hit = document.elementFromPoint(x, y); return Boolean(hit && (hit === e || e.contains(hit))); }"""


def phone(browser: Any, server: str, width: int, height: int, url: str) -> Any:
    ctx = browser.new_context(viewport={"width": width, "height": height}, has_touch=True, is_mobile=True, locale="en-GB")
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + url)
    page.wait_for_selector("[data-site=paris]")
    return page


def check_layout(page: Any, width: int, height: int) -> None:
    """No sideways scrolling; the map, the hand and the Play button on the screen together,
    nothing over them; every control 44 px or more."""
    assert page.evaluate("document.documentElement.scrollWidth") <= width
    assert page.evaluate("document.documentElement.scrollHeight") <= height  # the page itself does not scroll
    box = page.locator("#mapwrap").bounding_box()
    assert box and box["y"] >= 0 and box["y"] + box["height"] <= height and box["height"] >= 200
    for sel in ("[data-zone=hand] .card", "#play", "#clear", "#zoom"):
        assert page.evaluate(ON_TOP, sel), f"{sel} is off the screen or covered"
    assert page.evaluate(SMALL_CONTROLS) == []


def tap_turn(page: Any, rng: random.Random) -> None:
    """One decision by taps alone: draw, place (cards, then sites or a coat, then Play), exchange or pass."""
    take_turn(page, rng, touch=True)


def test_a_full_game_by_taps_on_an_upright_phone(server: str, browser: Any) -> None:
    g = create_game(server, [{"name": "Ann", "kind": "person"}] + BOTS4[1:])
    page = phone(browser, server, 390, 844, g["seats"][0]["url"])
    assert wait_turn(page)
    check_layout(page, 390, 844)
    # the whole map: the sites are dots of 8 px or more; names wait for an enlarged map
    spot = page.locator("[data-site=paris] .spot").bounding_box()
    assert spot and spot["width"] >= 8
    assert page.locator("[data-site=paris] .site-name").is_hidden()
    shot(page, "phone-portrait")
    rng = random.Random(12)
    decisions = zoomed_taps = 0
    # (a tap that zoomed is counted as it happens: the map is whole again once the others have played)
    page.evaluate("window.zooms = 0; document.addEventListener('map-zoomed', () => { window.zooms += 1; })")
    # the intermediate scoring's sheet: read, then closed by a tap on its button, which is on
    # top; also when it opens in the middle of a turn (it opens once the page has fetched the
    # scoring: a look at the turn's start missed it, and a tap on Play waited behind it)
    closed: list[bool] = []

    def close_sheet(_sheet: Any) -> None:
        closed.append(bool(page.evaluate(ON_TOP, "#sc-close")))
        page.locator("#sc-close").tap()

    page.add_locator_handler(page.locator("#scoring-overlay.sc-intermediate"), close_sheet)
    while wait_turn(page):
        if decisions % 15 == 14:
            # the map's button both ways, on this seat's turn: then nothing else moves the map
            # (when the turn comes back the page shows the whole map by itself: a tap on
            # "Whole map" while the others played could land just after that and enlarge it)
            if map_zoom(page) == 1:
                page.get_by_role("button", name="Enlarge map").tap()
                assert map_zoom(page) == 2.5
            page.get_by_role("button", name="Whole map").tap()
            assert map_zoom(page) == 1
        tap_turn(page, rng)
        zoomed = page.evaluate("window.zooms") > zoomed_taps
        zoomed_taps = page.evaluate("window.zooms")
        decisions += 1
        if zoomed and zoomed_taps <= 2 and map_zoom(page) > 1:
            shot(page, "phone-portrait-zoomed")
        assert decisions < 400
    assert decisions > 10 and zoomed_taps >= 1
    assert closed == [True]  # the intermediate scoring came once, its sheet closed by its button
    page.wait_for_selector("#standings")
    shot(page, "phone-portrait-end")
    # enlarged: names 10 px high or more, a site's hit area a finger wide
    if map_zoom(page) < 2:
        if map_zoom(page) > 1:
            page.get_by_role("button", name="Whole map").tap()
        page.get_by_role("button", name="Enlarge map").tap()
    name = page.locator("[data-site=paris] .site-name")
    assert name.is_visible()
    box = name.bounding_box()
    assert box and box["height"] >= 10
    hit = page.locator("[data-site=paris] .hit").bounding_box()
    assert hit and hit["width"] >= TARGET - 1
    assert "Ann" in page.inner_text("#standings")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    assert page.errors == []
    page.context.close()


def test_a_phone_turned_and_a_tablet(server: str, browser: Any) -> None:
    for width, height, name in ((844, 390, "phone-landscape"), (768, 1024, "tablet-portrait"), (1024, 768, "tablet-landscape")):
        g = create_game(server, [{"name": "Ann", "kind": "person"}] + BOTS4[1:])
        page = phone(browser, server, width, height, g["seats"][0]["url"])
        assert wait_turn(page)
        check_layout(page, width, height)
        # the map beside the hand (turned) or above it (upright), never under it
        m, h = page.locator("#mapwrap").bounding_box(), page.locator("[data-zone=hand]").bounding_box()
        assert m and h
        if width > height:
            assert m["x"] + m["width"] <= h["x"]
        else:
            assert m["y"] + m["height"] <= h["y"]
        rng = random.Random(width)
        for _ in range(3):
            if not wait_turn(page):
                break
            tap_turn(page, rng)
        wait_turn(page)
        shot(page, name)
        assert page.errors == []
        page.context.close()


def touch_points(cdp: Any, kind: str, points: list[tuple[float, float]]) -> None:
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": [{"x": x, "y": y, "id": i} for i, (x, y) in enumerate(points)]})


def test_pinch_double_tap_and_a_crowded_tap(server: str, browser: Any) -> None:
    g = create_game(server, [{"name": "Ann", "kind": "person"}] + BOTS4[1:])
    page = phone(browser, server, 390, 844, g["seats"][0]["url"])
    assert wait_turn(page)
    box = page.locator("#mapwrap").bounding_box()
    assert box
    cx, cy = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    # two fingers spread apart: the map grows by their ratio, the point between them stays put
    paris = page.locator("[data-site=paris] .spot")
    whole = page.locator("#map").bounding_box()
    assert whole
    cdp = page.context.new_cdp_session(page)
    touch_points(cdp, "touchStart", [(cx - 30, cy), (cx + 30, cy)])
    for step in range(1, 6):
        touch_points(cdp, "touchMove", [(cx - 30 - 12 * step, cy), (cx + 30 + 12 * step, cy)])
    touch_points(cdp, "touchEnd", [])
    cdp.detach()
    assert 2.8 < map_zoom(page) < 3.2  # 180 px apart from 60
    # the map grew by the zoom and its frame scrolls (a finger pans it)
    grown = page.locator("#map").bounding_box()
    assert grown and abs(grown["width"] / whole["width"] - map_zoom(page)) < 0.02
    assert page.evaluate("(w => w.scrollWidth > 2 * w.clientWidth)(document.getElementById('mapwrap'))")
    page.get_by_role("button", name="Whole map").tap()
    assert map_zoom(page) == 1
    # a double tap on the sea zooms in twice as near; one tap on a site chooses nothing
    sea = (box["x"] + 12, box["y"] + box["height"] - 12)
    page.touchscreen.tap(*sea)
    page.touchscreen.tap(*sea)
    assert map_zoom(page) == 2
    page.get_by_role("button", name="Whole map").tap()
    # with a card chosen, a tap among crowded sites zooms in until they are a finger apart
    tap_card_for_a_site(page)
    target = page.locator(".site.legal .spot").first
    before = page.locator(".site.selected, .coat.selected").count()
    v = version(page)
    target.tap()
    assert map_zoom(page) > 1 and page.locator(".site.selected, .coat.selected").count() == before
    tap_on_map(page, target)
    assert page.locator(".site.selected, .coat.selected").count() == before + 1
    # the chosen target's nearest neighbour on the screen: a finger's width away, or the zoom is at its largest
    gap = page.evaluate("""() => {
      const c = (n) => { const r = n.getBoundingClientRect(); return [r.left + r.width / 2, r.top + r.height / 2]; };
      const all = [...document.querySelectorAll('[data-site] .spot, [data-coat] .shield')];
      const me = document.querySelector('.site.selected .spot, .coat.selected .shield');
      const [x, y] = c(me);
      return Math.min(...all.filter((n) => n !== me).map((n) => Math.hypot(c(n)[0] - x, c(n)[1] - y)));
    }""")
    assert gap >= TARGET or map_zoom(page) == 8
    assert version(page) == v
    pos = page.locator("[data-site=paris]").bounding_box()
    assert pos  # the map is still drawn
    assert paris.count() == 1
    assert page.errors == []
    page.context.close()
