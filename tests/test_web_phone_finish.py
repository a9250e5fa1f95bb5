"""The phone, finished (issue 32), in Debian's Chromium with touch emulated on an upright
phone (390x844, and a small one of 360x740), in English and German (and Danish, for the words): what opens (a refusal,
a hint, the scoring walk-through) opens on the screen; no word breaks inside itself and no
heading is clipped on the game page, the tutorial, the rules page and "My games"; every
control there and in the dialogs is at least 44 px; the line about the others' turns is on
the screen and the map is whole again after them; one tap chooses a coat of arms on an
enlarged map; a touch screen says "Tap" ("Tippe") where a desktop says "Click". Screen
pictures go to build/screens (phone-finish-*.png)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from test_web_phone import ON_TOP, SMALL_CONTROLS
from webtools import BOTS4, create_game, map_zoom, new_page, shot, take_turn, version, wait_turn

pytestmark = pytest.mark.browser

LOCALES = {"en": "en-GB", "de": "de-DE", "da": "da-DK"}
# two countries as each language names them on the map
COUNTRIES = {"en": {"Lorraine", "France"}, "de": {"Lothringen", "Frankreich"}, "da": {"Lothringen", "Frankrig"}}

# a word (a run of letters or digits) whose characters lie on more than one line: broken
# inside itself (a break at a hyphen or a slash ends the run, so it is allowed)
SPLIT_WORDS = r"""() => {
  const out = [];
  const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  for (let n = walker.nextNode(); n; n = walker.nextNode()) {
    const host = n.parentElement;
    if (!host || host.closest('svg, .sr-only, dialog:not([open]), [hidden], script, style')) continue;
    if (!host.getClientRects().length) continue;
    for (const m of n.data.matchAll(/[\p{L}\p{N}]+/gu)) {
      const r = document.createRange();
      r.setStart(n, m.index);
      r.setEnd(n, m.index + m[0].length);
      const lines = new Set([...r.getClientRects()].filter((x) => x.width > 0 && x.height > 0).map((x) => Math.round(x.top)));
      if (lines.size > 1) out.push(`${m[0]} in ${host.tagName.toLowerCase()}.${host.className}`);
    }
  }
  return out;
}"""

# headings, buttons and labels whose text is wider than their box (cut off or spilling out)
CLIPPED = r"""() => [...document.querySelectorAll('h1, h2, h3, h4, button, summary, label, th, .pile span')]
  .filter((e) => e.offsetParent !== null && !e.closest('.sr-only, svg') && e.clientWidth > 0 && e.scrollWidth > e.clientWidth + 1)
  .map((e) => `${e.tagName.toLowerCase()}#${e.id}.${e.className} "${e.textContent.trim().slice(0, 30)}" ${e.scrollWidth}>${e.clientWidth}`)"""

# SMALL_CONTROLS without the links inside a sentence of the rules' text (a link in running
# text is sized by its line, as WCAG 2.5.8 allows)
SMALL_CONTROLS_PAGES = SMALL_CONTROLS.replace(
    ".filter((e) => e.offsetParent !== null",
    ".filter((e) => !(e.tagName === 'A' && e.closest('.rules-text p, .rules-text li, .rules-text td, .rules-text blockquote')))\n  .filter((e) => e.offsetParent !== null",
)
assert SMALL_CONTROLS_PAGES != SMALL_CONTROLS


def phone(browser: Any, lang: str, width: int = 390, height: int = 844) -> Any:
    ctx = browser.new_context(viewport={"width": width, "height": height}, has_touch=True, is_mobile=True, locale=LOCALES[lang])
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    return page


def open_game(page: Any, server: str, players: list[dict[str, Any]]) -> dict[str, Any]:
    """A game of these players, opened at the seat of its one person."""
    g = create_game(server, players)
    (mine,) = g["seats"]
    page.goto(server + mine["url"])
    page.wait_for_selector("[data-site=paris]")
    return g


def check_words(page: Any, where: str) -> None:
    assert page.evaluate(SPLIT_WORDS) == [], f"{where}: a word broken inside itself"
    assert page.evaluate(CLIPPED) == [], f"{where}: a heading or control clipped"
    assert page.evaluate("document.documentElement.scrollWidth <= innerWidth"), f"{where}: the page scrolls sideways"


ME = [{"name": "Ann", "kind": "person"}]


@pytest.mark.parametrize("lang", ["en", "de", "da"])
@pytest.mark.parametrize("size", [(390, 844), (360, 740)])
def test_no_word_broken_no_heading_clipped_every_control_a_finger_wide(server: str, browser: Any, lang: str, size: tuple[int, int]) -> None:
    w, h = size
    page = phone(browser, lang, w, h)
    # the game: after a few turns (cards of every length in the hand and the display)
    open_game(page, server, ME + BOTS4[1:])
    rng = random.Random(w)
    for _ in range(6):
        if not wait_turn(page):
            break
        check_words(page, "the game")
        assert page.evaluate(SMALL_CONTROLS_PAGES) == []
        take_turn(page, rng, touch=True)
    wait_turn(page)
    check_words(page, "the game")
    page.locator("#side").evaluate("(s) => { s.scrollTop = s.scrollHeight; }")
    check_words(page, "the game, its side panel scrolled down")
    assert page.evaluate(SMALL_CONTROLS_PAGES) == []
    # the About dialog
    page.locator("#about-btn").tap()
    page.wait_for_selector("dialog#about[open]")
    assert page.evaluate(SMALL_CONTROLS_PAGES) == []
    page.locator("#about-close").tap()
    # the tutorial: its first hand has Lothringen / Frankreich, the names that broke
    page.goto(server + "/tutorial")
    page.wait_for_selector("[data-zone=hand] .card")
    names = page.locator(".card .cname").all_inner_texts()
    assert COUNTRIES[lang] <= set(names)
    check_words(page, "the tutorial")
    assert page.evaluate(SMALL_CONTROLS_PAGES) == []
    # ... and the rules dialog it opens from a rule's number
    page.locator(".tut-rules a.rule-link").first.tap()
    page.wait_for_selector("dialog.rules-dialog[open]")
    assert page.evaluate(SMALL_CONTROLS_PAGES) == []
    check_words(page, "the rules dialog")
    shot(page, f"phone-finish-{w}-{lang}-rules-dialog")
    # the rules page and My games
    for url in (f"/rules?lang={lang}", "/mine"):
        page.goto(server + url)
        page.wait_for_load_state("networkidle")
        check_words(page, url)
        assert page.evaluate(SMALL_CONTROLS_PAGES) == [], url
        shot(page, f"phone-finish-{w}-{lang}-{url[1:].split('?')[0]}")
    assert page.locator("a.btn").count() >= 1  # My games lists the game played above
    assert page.errors == []
    page.context.close()


def others_on_screen(page: Any) -> bool:
    """The others' turns since this player's last are said on the screen: every line of
    "Since your last turn" (above the hand) on the screen and on top, or, before there is
    one, the line about the last turn."""
    lines = page.locator("#since .since-line")
    if lines.count():
        return all(page.evaluate(ON_TOP_EL, lines.nth(k).element_handle()) for k in range(lines.count()))
    return bool(page.evaluate(ON_TOP, "#follow-line"))


# ON_TOP for an element rather than a selector
ON_TOP_EL = ON_TOP.replace("(sel) => { const e = document.querySelector(sel); if (!e) return false;", "(e) => { if (!e) return false;")
assert ON_TOP_EL != ON_TOP


@pytest.mark.parametrize("lang", ["en", "de"])
def test_what_opens_opens_in_view(server: str, browser: Any, lang: str) -> None:
    page = phone(browser, lang)
    open_game(page, server, ME + BOTS4[1:])
    assert wait_turn(page)
    rng = random.Random(lang)
    line = page.locator("#follow-line")
    while not line.inner_text().strip():  # this player's decisions (a placement, a draw) until the others have played
        take_turn(page, rng, touch=True)
        assert wait_turn(page)
    assert page.evaluate("document.body.dataset.phase") != "draw"
    # the others' last turn is said on the screen, under the hand
    shot(page, f"phone-finish-{lang}-turn")
    assert others_on_screen(page)
    # a refusal: the draw pile tapped before placing; the side panel scrolled to the pile
    side = page.locator("#side")
    side.evaluate("(s) => { s.scrollTop = s.scrollHeight; }")
    page.locator(".pile").tap()
    assert page.locator("#msg.bad").inner_text().strip()
    assert page.evaluate(ON_TOP, "#msg"), "the refusal is off the screen or under the hand"
    shot(page, f"phone-finish-{lang}-refusal")
    # a hint, asked for at the foot of the side panel
    side.evaluate("(s) => { s.scrollTop = s.scrollHeight; }")
    page.locator("#hint-btn").tap()
    page.wait_for_selector("#hint-list li", timeout=30000)
    assert page.evaluate(ON_TOP, "#hint-list li"), "the hint is off the screen or under the hand"
    shot(page, f"phone-finish-{lang}-hint")
    assert page.errors == []
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_walk_through_opens_on_the_screen(server: str, browser: Any, lang: str) -> None:
    g = create_game(server, BOTS4)
    page = phone(browser, lang)
    page.goto(server + g["watch"])
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=60000)
    page.wait_for_selector("#rp-show-inter")
    if page.locator("#scoring-overlay").count():
        page.locator("#sc-close").tap()
    # the side panel scrolled to its foot, the intermediate scoring's walk-through opened from the replay box
    page.locator("#side").evaluate("(s) => { s.scrollTop = s.scrollHeight; }")
    page.locator("#rp-show-inter").tap()
    page.wait_for_selector("#scoring-overlay[data-kind=intermediate]")
    for sel in ("#scoring-overlay", "#sc-title", "#sc-next"):
        assert page.evaluate(ON_TOP, sel), f"{sel} is off the screen or covered"
    # the map above it stays seen: the sheet covers the lower part of the screen only
    sheet, wrap = page.locator("#scoring-overlay").bounding_box(), page.locator("#mapwrap").bounding_box()
    assert sheet and wrap and sheet["y"] > wrap["y"] + wrap["height"] / 2
    check_words(page, "the walk-through")
    assert page.evaluate(SMALL_CONTROLS_PAGES) == []
    shot(page, f"phone-finish-{lang}-walk-through")
    page.locator("#sc-next").tap()
    assert page.evaluate(ON_TOP, "#sc-next")
    shot(page, f"phone-finish-{lang}-walk-through-2")
    assert page.errors == []
    page.context.close()


def legal_coat_card(page: Any) -> bool:
    """Tap the hand's cards in turn until one can put an advisor on a coat of arms (True), else clear."""
    cards = page.locator("[data-zone=hand] .card.legal")
    for k in range(cards.count()):
        cards.nth(k).tap()
        if page.locator(".coat.legal").count():
            return True
        page.locator("#clear").tap()
    return False


FRAME = "(() => { const w = document.getElementById('mapwrap'); return [w.scrollLeft, w.scrollTop]; })()"

# scroll the map's frame so that a shield's top lies 4 px below the frame's top (as far as the
# map goes, else its bottom 4 px above the frame's bottom); returns the frame's scroll position
AT_THE_EDGE = """(s) => {
  const w = document.getElementById('mapwrap'), wr = w.getBoundingClientRect();
  w.scrollTop += s.getBoundingClientRect().top - (wr.top + 4);
  const r = s.getBoundingClientRect();
  if (r.top > wr.top + 24) w.scrollTop += r.bottom - (wr.top + w.clientHeight - 4);
  return [w.scrollLeft, w.scrollTop];
}"""


@pytest.mark.parametrize("lang", ["en", "de"])
def test_one_tap_for_a_coat_and_the_whole_map_after_the_others(server: str, browser: Any, lang: str) -> None:
    page = phone(browser, lang)
    open_game(page, server, ME + BOTS4[1:])
    rng = random.Random(5)
    coats = 0
    for _ in range(40):
        if not wait_turn(page) or coats >= 2:
            break
        if page.evaluate("document.body.dataset.phase") != "draw" and not page.locator("#pass").count() and legal_coat_card(page):
            # the map enlarged (as a player does to see), then one tap on a coat of arms chooses it
            if map_zoom(page) < 2:
                page.locator("#zoom").tap()
            z = map_zoom(page)
            assert z >= 2
            coat = page.locator(".coat.legal .shield").first
            coat.scroll_into_view_if_needed()
            # at the frame's edge (where the keyboard's focus would scroll the frame): the tap
            # must not move the map from under the finger
            frame = page.evaluate(AT_THE_EDGE, coat.element_handle())
            hit = page.evaluate(
                "(s) => { const r = s.getBoundingClientRect(); const h = document.elementFromPoint(r.left + r.width / 2, r.top + r.height / 2);"
                " return `${Math.round(r.width)}x${Math.round(r.height)} at ${Math.round(r.left)},${Math.round(r.top)}: ${h && h.outerHTML.slice(0, 80)}`; }",
                coat.element_handle(),
            )
            box = coat.bounding_box()
            assert box
            page.touchscreen.tap(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)  # a finger, where the shield is now
            assert map_zoom(page) == z, f"the tap zoomed instead of choosing (the shield {hit})"
            assert page.evaluate(FRAME) == frame, "the frame scrolled under the finger"
            assert page.locator(".coat.selected").count() == 1
            coats += 1
            if coats == 1:
                shot(page, f"phone-finish-{lang}-coat")
            if page.locator("#play:not([disabled])").count():
                v = version(page)
                page.locator("#play").tap()
                page.wait_for_function(f"Number(document.body.dataset.version) > {v}")
            else:
                page.locator("#clear").tap()
                take_turn(page, rng, touch=True)
            while wait_turn(page) and page.evaluate("document.body.dataset.phase") == "draw":
                take_turn(page, rng, touch=True)  # this player's draw: the map as it was
            # the others have played: on this player's turn the map is whole again, the line about them on the screen
            if wait_turn(page):
                assert map_zoom(page) == 1
                assert others_on_screen(page)
            continue
        take_turn(page, rng, touch=True)
    assert coats >= 1, "no card could place an advisor in 40 turns"
    assert page.errors == []
    page.context.close()


def test_tap_on_a_touch_screen_click_on_a_desktop(server: str, browser: Any) -> None:
    texts = "(async () => { const m = await import('/static/i18n.js'); return [m.T('choosePieces'), m.touchWords('Click the coat of arms; klicke das Wappen')]; })()"
    for lang, tap, click in (("en", "Tap", "Click"), ("de", "Tippe", "Klicke")):
        page = phone(browser, lang)
        page.goto(server + "/tutorial")
        page.wait_for_selector("[data-zone=hand] .card")
        pieces, words = page.evaluate(texts)
        assert pieces.startswith(tap) and click not in pieces
        assert words == "Tap the coat of arms; tippe das Wappen"
        page.context.close()
        desk = new_page(browser)
        desk.add_init_script(f"localStorage.setItem('kardinal-lang', '{lang}')")
        desk.goto(server + "/tutorial")
        desk.wait_for_selector("[data-zone=hand] .card")
        pieces, words = desk.evaluate(texts)
        assert pieces.startswith(click)
        assert words == "Click the coat of arms; klicke das Wappen"
        desk.context.close()
