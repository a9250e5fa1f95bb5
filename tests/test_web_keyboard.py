"""The keyboard and screen readers, in Debian's Chromium: a whole game with key presses alone
(Tab, Shift+Tab, Enter, Space, Page Down, Escape; no click), the arrow keys on the map
(along the roads), Escape one step back, the focus kept where it was after the page redraws,
names that carry the state, and the others' moves read out in a live region."""

from __future__ import annotations

import random
from typing import Any

import pytest
from webtools import BOTS4, create_game, new_page, shot, version, wait_turn

pytestmark = pytest.mark.browser

ACTIVE = """() => { const a = document.activeElement; if (!a || a === document.body) return {};
  return { id: a.id, card: a.dataset.card || null, site: a.getAttribute('data-site'), coat: a.getAttribute('data-coat'),
    pile: a.dataset.pile || null, zone: (a.closest('[data-zone]') || {}).dataset?.zone || null,
    cls: a.getAttribute('class') || '', label: a.getAttribute('aria-label') || a.textContent.trim(), inMap: Boolean(a.closest('#map')) }; }"""


def active(page: Any) -> dict[str, Any]:
    return dict(page.evaluate(ACTIVE))


def tab_until(page: Any, test: Any, back: bool = False, limit: int = 150) -> dict[str, Any]:
    """Press Tab (or Shift+Tab) until the focused element passes ``test``; return it."""
    for _ in range(limit):
        a = active(page)
        if a and test(a):
            return a
        page.keyboard.press("Shift+Tab" if back else "Tab")
    raise AssertionError(f"no such element in {limit} presses of Tab; at {active(page)}")


def chosen(page: Any) -> int:
    return int(page.locator(".site.selected, .coat.selected").count())


def is_legal_card(page: Any, zone: str) -> Any:
    legal = set(page.eval_on_selector_all(f"[data-zone={zone}] .card.legal", "els => els.map((e) => e.dataset.card)"))
    return lambda a: a.get("zone") == zone and a.get("card") in legal and "legal" in a.get("cls", "")


def key_turn(page: Any, rng: random.Random) -> None:
    """One decision by keys alone."""
    before = version(page)
    if page.locator("#pass").count():
        tab_until(page, lambda a: a.get("id") == "pass")
        page.keyboard.press("Enter")
    elif page.evaluate("document.body.dataset.phase") == "draw":
        tab_until(page, lambda a: (a.get("pile") and "legal" in a["cls"]) or (a.get("zone") == "display" and "legal" in a.get("cls", "")))
        page.keyboard.press(rng.choice(["Enter", " "]))
    else:
        tab_until(page, is_legal_card(page, "hand"))
        for _ in range(rng.randrange(3)):  # now and then another card of the hand
            page.keyboard.press("Tab")
            if not is_legal_card(page, "hand")(active(page)):
                page.keyboard.press("Shift+Tab")
                break
        page.keyboard.press(rng.choice(["Enter", " "]))
        a = active(page)
        assert a.get("zone") == "hand" and a.get("card"), f"the focus left the hand after choosing a card: {a}"
        placed = False
        for _ in range(3):
            targets = page.locator(".site.legal, .coat.legal").count()
            if page.locator("#play:not([disabled])").count() and (rng.random() < 0.6 or not targets):
                tab_until(page, lambda a: a.get("id") == "play")
                page.keyboard.press("Enter")
                placed = True
                break
            if not targets:
                break
            # into the map: its one tab stop is the first place the choice can reach
            a = tab_until(page, lambda a: a.get("inMap"), back=True)
            assert "legal" in a["cls"] or "selected" in a["cls"], a
            for _ in range(rng.randrange(targets)):
                page.keyboard.press("PageDown")
            a = active(page)
            assert a["inMap"] and ("legal" in a["cls"] or "selected" in a["cls"]), a
            n = chosen(page)
            page.keyboard.press(rng.choice(["Enter", " "]))
            assert active(page).get("site") == a.get("site") and active(page).get("coat") == a.get("coat")  # the focus stays
            assert chosen(page) != n or a.get("coat")  # a site toggles; a coat adds an advisor
        if not placed:
            if page.locator("#play:not([disabled])").count():
                tab_until(page, lambda a: a.get("id") == "play")
                page.keyboard.press("Enter")
            else:  # no placement with this card: Escape takes it back; exchange one for the top of the pile
                while page.locator("[data-zone=hand] .card.selected").count():
                    page.keyboard.press("Escape")
                tab_until(page, is_legal_card(page, "hand"))
                page.keyboard.press("Enter")
                tab_until(page, lambda a: a.get("pile") == "deck")
                page.keyboard.press("Enter")
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=10000)


def open_game(browser: Any, server: str) -> Any:
    g = create_game(server, [{"name": "Ann", "kind": "person"}] + BOTS4[1:])
    page = new_page(browser)
    page.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_selector("[data-site=paris]")
    return page


def test_a_full_game_by_keyboard_alone(server: str, browser: Any) -> None:
    page = open_game(browser, server)
    rng = random.Random(21)
    decisions = 0
    while wait_turn(page):
        key_turn(page, rng)
        decisions += 1
        if decisions == 3:
            shot(page, "keyboard-game")
        assert decisions < 400
    assert decisions > 10
    page.wait_for_selector("#standings")
    assert "Ann" in page.inner_text("#standings")
    # the others' decisions and the scorings were read out
    said = page.inner_text("#announce")
    assert "Bot " in said and "Game over" in said and "final scoring" in said
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def test_arrows_escape_names_and_the_live_region(server: str, browser: Any) -> None:
    page = open_game(browser, server)
    assert page.get_attribute("#map", "aria-label") == "Map of the board"
    assert "Arrow keys" in page.inner_text("#map-help")
    # a free site says so; a coat of arms tells its advisors and limit
    assert page.get_attribute("[data-site=york]", "aria-label") == "York, England: free"
    assert page.get_attribute("[data-coat=england]", "aria-label") == "England 0/0: coat of arms; advisors: none; at most 0"
    # the arrow keys go along the roads: London to Canterbury and back
    a = tab_until(page, lambda a: a.get("inMap"))
    assert a.get("site") or a.get("coat"), a  # the map's one tab stop: a site or a coat of arms, never the map itself
    help_box = page.locator("#map-help").bounding_box()  # the keys, shown while the focus is on the map
    assert help_box and help_box["width"] > 200
    page.evaluate("document.querySelector('[data-site=london]').focus()")
    page.keyboard.press("ArrowRight")
    assert active(page)["site"] == "canterbury"
    page.keyboard.press("ArrowLeft")
    assert active(page)["site"] == "london"
    page.keyboard.press("ArrowUp")  # within the country: its coat of arms lies between London and Lincoln
    assert active(page)["coat"] == "england"
    page.keyboard.press("ArrowUp")
    assert active(page)["site"] == "lincoln"
    # the keyboard's focus shows the site's popup
    assert page.locator(".map-info").is_visible() and "Lincoln" in page.inner_text(".map-info")
    assert wait_turn(page)
    # a site before a card: the page says what comes first
    page.keyboard.press("Enter")
    assert page.inner_text("#msg") == "First choose one or two cards of your hand, then where their pieces go."
    # a card, a site, then Escape twice: the site and the card come back, one step each
    page.keyboard.press("Tab")
    tab_until(page, is_legal_card(page, "hand"))
    cards = page.locator("[data-zone=hand] .card.legal")
    for _ in range(cards.count()):
        page.keyboard.press("Enter")
        if page.locator(".site.legal").count():
            break
        page.keyboard.press("Escape")
        page.keyboard.press("Tab")
        tab_until(page, is_legal_card(page, "hand"))
    assert page.locator(".site.legal").count(), "no card of the hand reaches a free site"
    a = tab_until(page, lambda a: a.get("inMap"), back=True)
    while not a.get("site"):
        page.keyboard.press("PageDown")
        a = active(page)
    assert a["label"].endswith("; can be chosen"), a
    page.keyboard.press("Enter")
    assert chosen(page) == 1
    label = page.get_attribute(f"[data-site={a['site']}]", "aria-label")
    assert label.endswith("; chosen") and page.get_attribute(f"[data-site={a['site']}]", "aria-pressed") == "true"
    page.keyboard.press("Escape")
    assert chosen(page) == 0 and page.locator("[data-zone=hand] .card.selected").count() == 1
    page.keyboard.press("Escape")
    page.keyboard.press("Escape")  # the country, then the card
    assert page.locator("[data-zone=hand] .card.selected").count() == 0
    assert active(page).get("inMap")  # the focus stayed on the map
    # play a turn: the bots' moves are read out, a taken site says whose cloister it is
    rng = random.Random(4)
    key_turn(page, rng)
    while wait_turn(page) and page.evaluate("document.body.dataset.phase") == "draw":
        key_turn(page, rng)
    page.wait_for_function("document.querySelectorAll('#announce p').length > 0")
    assert "Bot 4 " in page.inner_text("#announce")  # the last to move before Ann
    taken = page.locator(".site.taken").first
    assert ": cloister of " in (taken.get_attribute("aria-label") or "")
    # the language by the keyboard: the header's list (English first, then by code: Dansk,
    # Deutsch), German two down by the arrow key
    assert page.get_by_role("combobox", name="Language").count() == 1
    languages = page.locator("#lang")  # (its name is said in the page's language: "Sprog" once Danish)
    languages.press("ArrowDown")
    page.wait_for_function("document.documentElement.lang === 'da'")
    languages.press("ArrowDown")
    page.wait_for_function("document.documentElement.lang === 'de'")
    assert page.get_attribute("[data-coat=england]", "aria-label").startswith("England ") and "Wappen" in page.get_attribute(
        "[data-coat=england]", "aria-label"
    )
    assert page.errors == [] and page.console_errors == []
    page.context.close()


# the focused element's box lies inside the map's frame
IN_FRAME = """() => { const a = document.activeElement, w = document.getElementById('mapwrap');
  const r = a.getBoundingClientRect(), f = w.getBoundingClientRect();
  return r.left >= f.left && r.top >= f.top && r.right <= f.left + w.clientWidth && r.bottom <= f.top + w.clientHeight; }"""


def test_the_keyboard_focus_on_an_enlarged_map_is_brought_into_its_frame(server: str, browser: Any) -> None:
    page = open_game(browser, server)
    page.locator("#zoom").press("Enter")
    page.locator("#zoom-more").press("Enter")  # 4 times the whole map: most of it outside the frame
    assert page.evaluate("Number(document.getElementById('map').dataset.zoom)") == 4
    page.evaluate("document.getElementById('mapwrap').scrollTo(0, 0)")
    a = tab_until(page, lambda a: a.get("inMap"))
    outside = 0
    for _ in range(12):  # the coats of arms one after another, all over the map: each is scrolled to
        page.keyboard.press("PageDown")
        a = active(page)
        assert a.get("coat"), a
        assert page.evaluate(IN_FRAME), f"the focus on {a['coat']} is outside the map's frame"
        outside += page.evaluate("(() => { const w = document.getElementById('mapwrap'); return w.scrollLeft + w.scrollTop > 0; })()")
    assert outside  # the frame moved to follow the focus
    assert page.errors == [] and page.console_errors == []
    page.context.close()
