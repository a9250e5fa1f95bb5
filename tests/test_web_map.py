"""The map and the cards in the browser: shapes from the board data, pieces with a colour and
a mark, popups that explain a site, a coat of arms and an alliance on hover and on tap (a tap
with cards selected still plays), cards in their countries' colours with names and no
overflow, in English and German. Screen pictures go to build/screens."""

from __future__ import annotations

import random
from typing import Any

import pytest
from webtools import BOTS4, create_game, new_page, shot, take_turn, tap_card_for_a_site, tap_on_map, wait_turn

pytestmark = pytest.mark.browser

ANNA = [{"name": "Anna", "kind": "person"}]


def open_game(
    browser: Any, server: str, lang: str = "en", width: int = 1400, height: int = 950, touch: bool = False
) -> tuple[Any, dict[str, Any]]:
    g = create_game(server, ANNA + BOTS4[:3])
    if touch:
        ctx = browser.new_context(viewport={"width": width, "height": height}, has_touch=True, is_mobile=True, locale="en-GB")
        page = ctx.new_page()
        page.errors = []
        page.on("pageerror", lambda e: page.errors.append(str(e)))
    else:
        page = new_page(browser, width, height)
    page.add_init_script(f"localStorage.setItem('kardinal-lang', '{lang}'); localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_selector("[data-site=paris]")
    return page, g


def play_some(page: Any, turns: int, seed: int = 5) -> None:
    rng = random.Random(seed)
    for _ in range(turns):
        if not wait_turn(page):
            return
        take_turn(page, rng)
    wait_turn(page)


def test_map_shapes_pieces_and_popups(server: str, browser: Any) -> None:
    page, _ = open_game(browser, server)
    assert page.locator("#map .country path.land").count() == 9
    assert page.locator("#map .coast-line").count() == 1
    assert page.locator("#map .alliance.sea").count() == 6 and page.locator("#map .alliance.land").count() == 9
    assert "alliance across the sea" in page.locator("#map .legend").inner_html()
    play_some(page, 6)
    # pieces: churches and figures with the seat's mark beside the colour
    assert page.locator("#map .site .cloister").count() >= 4
    marks = set(page.eval_on_selector_all("#map .cloister .mark", "els => els.map(e => e.dataset.mark)"))
    assert len(marks) >= 2
    shot(page, "map-wide")

    # hover: a site, a coat of arms, an alliance explain themselves
    page.hover("[data-site=paris] .spot", force=True)
    info = page.locator(".map-info")
    info.wait_for(state="visible")
    assert "Paris" in info.inner_text() and "France" in info.inner_text()
    page.hover("[data-coat=bayern] .shield")
    assert "Bavaria" in info.inner_text() and "R4.8" in info.inner_text()
    page.hover("[data-alliance='4']")
    text = info.inner_text()
    assert "France" in text and "Lorraine" in text and "Frankreich" not in text
    assert "If the game ended now" in text  # the server's standing is there
    assert sorted(page.eval_on_selector_all("#map .country.ally", "els => els.map(e => e.dataset.country)")) == ["frankreich", "lothringen"]
    shot(page, "map-popup-alliance")
    assert not page.errors


def test_english_and_german_names_and_no_overflow(server: str, browser: Any) -> None:
    for lang, words, not_words in [
        ("en", ["Franconia", "Bavaria"], ["Franken", "Bayern"]),
        ("de", ["Franken", "Bayern"], ["Franconia", "Bavaria"]),
    ]:
        page, _ = open_game(browser, server, lang=lang)
        play_some(page, 1)
        names = " ".join(page.eval_on_selector_all("#map .country-name", "els => els.map(e => e.textContent)"))
        assert all(w in names for w in words) and not any(w in names for w in not_words), names
        cards = page.locator(".card")
        assert cards.count() >= 4
        for i in range(cards.count()):
            text = cards.nth(i).inner_text()
            assert not any(code in text.split() for code in ("FA", "BB", "LI", "ES", "FR")), text
        overflow = page.evaluate(
            """() => [...document.querySelectorAll('.card, .card .cname, .pile, .pile span, .buttons button')]
                 .filter(e => e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1)
                 .map(e => e.className + ': ' + e.textContent)"""
        )
        assert overflow == [], overflow
        # a two-country card shows both colours
        two = page.locator(".card.two").first
        if two.count():
            assert two.locator(".band").count() == 2
        shot(page, f"cards-{lang}")
        page.context.close()


def test_phone_tap_explains_and_selected_tap_plays(server: str, browser: Any) -> None:
    page, _ = open_game(browser, server, width=390, height=844, touch=True)
    page.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=20000)
    info = page.locator(".map-info")
    page.locator("[data-coat=frankreich] .shield").tap()
    info.wait_for(state="visible")
    assert "France" in info.inner_text()
    page.locator("[data-alliance='15']").tap()
    assert "Italy" in info.inner_text() and "Bavaria" in info.inner_text()
    shot(page, "map-phone-tap")
    # with a card selected, a tap on a legal site or coat plays it as a click does
    before = int(page.evaluate("document.body.dataset.version"))
    tap_card_for_a_site(page)
    target = page.locator(".site.legal .spot")
    assert target.count(), "no card of the hand reaches a free site"
    # the whole map on a phone: the sites lie closer than a finger, so the first tap zooms in
    assert tap_on_map(page, target.first) >= 1
    assert page.locator(".site.selected").count() == 1 and info.is_hidden()
    page.locator("#play:not([disabled])").tap()
    page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=10000)
    assert not page.errors
