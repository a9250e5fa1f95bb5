"""The tutorial in the browser: completed by clicking (cards, sites, the coat of arms, Play,
the draw pile), with a wrong attempt that is explained, one step in German; and the rules
dialog opening in the game page at a rule number. Screen pictures go to build/screens."""

from __future__ import annotations

import time
from typing import Any

import pytest
from playwright.sync_api import expect
from webtools import BOTS4, choose_lang, create_game, new_page, shot

pytestmark = pytest.mark.browser

# each step's clicks: the cards (kind ids), then sites and coats of arms ("coat:<country>")
SOLUTIONS: dict[str, tuple[list[str], list[str]]] = {
    "first-cloister": (["franken-aragon"], ["mainz"]),
    "joker": (["franken-aragon", "bayern-burgund", "bayern-burgund"], ["frankfurt", "speyer"]),
    "three-frankreich": (["frankreich", "frankreich"], ["rouen", "tours"]),
    "refill": (["lothringen-italien", "lothringen-italien"], ["mailand", "verona"]),
    "exchange": (["england-schwaben"], ["display:frankreich"]),
    "advisor-limit": (["frankreich", "england-schwaben", "england-schwaben"], ["coat:frankreich", "coat:frankreich"]),
    "intermediate": (["franken-aragon"], ["nuernberg"]),
    "alliance": (["bayern-burgund"], ["coat:burgund"]),
    "chain": (["bayern-burgund"], ["besancon"]),
}


def open_tutorial(browser: Any, server: str, lang: str = "en", width: int = 1400, height: int = 950, step: int = 1) -> Any:
    page = new_page(browser, width, height)
    page.add_init_script(f"localStorage.setItem('kardinal-lang', '{lang}')")
    page.goto(f"{server}/tutorial#{step}")
    page.wait_for_selector("body[data-status=ready]")
    page.wait_for_selector("[data-site=paris]")
    return page


def choose(page: Any, cards: list[str], targets: list[str]) -> None:
    """Click the cards in the hand, then the sites and coats of arms, then Play (or, for an
    exchange, the display card taken: "display:<kind>")."""
    for kid in cards:
        page.locator(f"[data-zone=hand] .card[data-card={kid}][aria-pressed=false]").first.click()
    for t in targets:
        if t.startswith("display:"):
            page.locator(f"[data-zone=display] .card.legal[data-card={t[8:]}]").first.click()
            return
        if t.startswith("coat:"):
            page.locator(f"[data-coat={t[5:]}] .shield").click(force=True)
        else:
            page.locator(f"[data-site={t}] .spot").click(force=True)
    page.click("#play:not([disabled])")


def refill_from_display(page: Any, kid: str, times: int) -> None:
    """Take display cards one after the other (R5.1); the display is not refilled in between (R5.2)."""
    for k in range(times):
        feedback(page, "goon")
        shown = page.locator("[data-zone=display] .card").count()
        page.locator(f"[data-zone=display] .card.legal[data-card={kid}]").first.click()
        if k + 1 < times:
            page.wait_for_function(f"document.querySelectorAll('[data-zone=display] .card').length === {shown - 1}")


def feedback(page: Any, kind: str) -> str:
    page.wait_for_selector(f"body[data-feedback={kind}]")
    return str(page.inner_text("#msg"))


def test_the_tutorial_completed_by_clicking(server: str, browser: Any) -> None:
    page = open_tutorial(browser, server)
    assert page.locator("#lesson h1").inner_text() == "The first cloister in an empty country"
    assert page.locator("#step-rules a[data-rule='R4.6']").count() == 1
    assert page.locator(".tut-pill").count() == len(SOLUTIONS)
    shot(page, "tutorial-wide-start")
    # a wrong attempt, explained: both Franken/Aragon cards for two cloisters in empty Franken
    choose(page, ["franken-aragon", "franken-aragon"], ["mainz", "fulda"])
    text = feedback(page, "refused")
    assert "R4.6" in text and "Franconia" in text and "single cloister" in text, text
    assert page.locator("#msg a[data-rule='R4.6']").count() == 1  # the rule is a link to the rules dialog
    assert page.locator("[data-site=mainz].taken").count() == 0  # nothing was placed
    shot(page, "tutorial-wide-refused")
    steps = list(SOLUTIONS)
    for i, sid in enumerate(steps):
        assert page.evaluate("document.body.dataset.step") == sid
        cards, targets = SOLUTIONS[sid]
        if sid == "alliance":  # a legal move that misses the task: explained with what it would score
            choose(page, ["lothringen-italien"], ["coat:italien"])
            text = feedback(page, "wrong")
            assert "Burgundy" in text and "Alliance 14" in text and "Nobody holds both" in text, text
            shot(page, "tutorial-wide-wrong-alliance")
        if sid == "exchange":  # a placement is legal, but this step asks for an exchange
            choose(page, ["franken-aragon"], ["frankfurt"])
            assert "about exchanging" in feedback(page, "wrong")
        choose(page, cards, targets)
        if sid == "intermediate":
            feedback(page, "goon")
            page.click(".pile.legal")
        if sid == "refill":
            refill_from_display(page, "bayern-burgund", 2)
        page.wait_for_selector("body[data-status=done]")
        assert page.locator("#msg.tut-good").count() == 1
        if sid == "intermediate":
            franken = page.locator("table.tut-score[data-country=franken]").inner_text()
            assert "7" in franken and "4" in franken and "2" in franken
            shot(page, "tutorial-wide-intermediate")
        if sid == "alliance":
            assert "Doris scores 6" in page.inner_text(".tut-alliance[data-alliance='14']")
        if sid == "chain":
            assert page.get_attribute(".tut-chain", "data-points") == "6"
            shot(page, "tutorial-wide-chain")
        page.click("#next")
        if i + 1 < len(steps):
            page.wait_for_selector(f"body[data-step={steps[i + 1]}][data-status=ready]")
    page.wait_for_selector("body[data-status=finished]")
    assert page.locator(".tut-pill.done").count() == len(SOLUTIONS)
    # the summary: every lesson, in the order of the steps, numbered and done
    lessons = page.locator("#tut-summary li")
    assert [lessons.nth(k).get_attribute("data-step") for k in range(lessons.count())] == steps
    assert page.locator("#tut-summary .tut-lesson.done").count() == len(steps)
    assert page.locator("#tut-summary .tut-lesson-mark").all_inner_texts() == [str(k + 1) for k in range(len(steps))]
    assert "Exchanging a card instead of placing" in page.inner_text("#tut-summary")
    assert page.inner_text("#tut-finished-text") == "You have played the rulebook's examples, lesson by lesson:"
    shot(page, "tutorial-wide-end")
    # lessons skipped: the end does not say every one was played (the fourth walk)
    page.evaluate(f"localStorage.setItem('kardinal-tutorial-done', JSON.stringify({steps[:1]!r}))")
    choose_lang(page, "de")
    expect(page.locator("#tut-finished-text")).to_have_text(
        "Die Beispiele der Spielanleitung, Lektion für Lektion (✓: gespielt; die anderen sind einen Tipp entfernt):"
    )
    assert page.locator("#tut-summary .tut-lesson.done").count() == 1
    choose_lang(page, "en")
    assert not page.errors, page.errors
    assert not page.console_errors, page.console_errors


def walk(page: Any) -> None:
    """Every step's solution by clicking, from the first step to the end page."""
    for sid in SOLUTIONS:
        page.wait_for_selector(f"body[data-step={sid}][data-status=ready]")
        cards, targets = SOLUTIONS[sid]
        choose(page, cards, targets)
        if sid == "intermediate":
            feedback(page, "goon")
            page.click(".pile.legal")
        if sid == "refill":
            refill_from_display(page, "bayern-burgund", 2)
        page.wait_for_selector("body[data-status=done]")
        if sid in ("refill", "exchange"):
            page.locator("#msg").scroll_into_view_if_needed()
            shot(page, f"tutorial-{page.viewport_size['width']}-{sid}-done")
        page.click("#next")
    page.wait_for_selector("body[data-status=finished]")


@pytest.mark.parametrize(("lang", "phone"), [("en", False), ("de", True), ("en", True), ("de", False)])
def test_the_whole_tutorial_by_clicking_from_a_first_visit(server: str, browser: Any, lang: str, phone: bool) -> None:
    """From a first visit of /tutorial (nothing remembered) to the end page, every step by
    clicking; on a desktop and on a 390x844 touch phone, in English and German. The time it
    takes is printed (measured, not asserted)."""
    if phone:
        ctx = browser.new_context(
            viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="de-DE" if lang == "de" else "en-GB"
        )
    else:
        ctx = browser.new_context(viewport={"width": 1400, "height": 950}, locale="de-DE" if lang == "de" else "en-GB")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.add_init_script(f"localStorage.setItem('kardinal-lang', '{lang}')")
    t0 = time.perf_counter()
    page.goto(f"{server}/tutorial")
    walk(page)
    seconds = time.perf_counter() - t0
    print(f"\ntutorial from a first visit to the end by clicking ({lang}, {'phone 390x844' if phone else 'desktop'}): {seconds:.1f} s")
    words = page.inner_text("#lesson")
    assert ("Du kennst das Spiel" if lang == "de" else "You know the game") in words
    assert ("Eine Karte tauschen statt einsetzen" if lang == "de" else "Exchanging a card instead of placing") in words
    assert page.locator("#tut-summary li").count() == len(SOLUTIONS)
    shot(page, f"tutorial-end-{lang}-{'phone' if phone else 'desktop'}", full_page=phone)
    assert not errors, errors
    ctx.close()


def test_the_exchange_step_on_a_phone_in_german(server: str, browser: Any) -> None:
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="de-DE")
    page = ctx.new_page()
    page.add_init_script("localStorage.setItem('kardinal-lang', 'de')")
    page.goto(f"{server}/tutorial#5")
    page.wait_for_selector("body[data-step=exchange][data-status=ready]")
    assert page.locator("#lesson h1").inner_text() == "Eine Karte tauschen statt einsetzen"
    page.locator("[data-zone=hand] .card[data-card=england-schwaben]").first.tap()
    # one card chosen: the display cards and the pile are what it can be exchanged for
    assert page.locator("[data-zone=display] .card.legal").count() == 2 and page.locator(".pile.legal").count() == 1
    shot(page, "tutorial-phone-de-exchange", full_page=True)
    page.locator("[data-zone=display] .card.legal[data-card=lothringen-italien]").tap()
    text = feedback(page, "wrong")
    assert "Frankreich" in text and "Auslage" in text, text
    choose(page, ["england-schwaben"], ["display:frankreich"])
    page.wait_for_selector("body[data-status=done]")
    assert "Ablagestapel" in page.inner_text("#msg")
    page.locator("#msg").scroll_into_view_if_needed()
    shot(page, "tutorial-phone-de-exchange-done")
    ctx.close()


def test_a_step_in_german_on_a_phone(server: str, browser: Any) -> None:
    page = open_tutorial(browser, server, lang="de", width=390, height=844, step=3)
    assert page.locator("#lesson h1").inner_text() == "Drei Karten Frankreich"
    shot(page, "tutorial-phone-de", full_page=True)
    # all three Frankreich cards: refused by R4.3, in German
    choose(page, ["frankreich", "frankreich", "frankreich"], ["rouen", "tours"])
    text = feedback(page, "refused")
    assert "R4.3" in text and "Regeln" in text, text
    shot(page, "tutorial-phone-de-refused", full_page=True)
    # the pair as a joker elsewhere: one cloister in Italien
    choose(page, ["frankreich", "frankreich"], ["verona"])
    page.wait_for_selector("body[data-status=done]")
    assert "Richtig" in page.inner_text("#msg")
    # the rule's link opens the rules dialog there, in German
    page.locator("#step-rules a[data-rule='R4.3']").click()
    page.wait_for_selector("#rules-dialog[data-loaded=de][data-rule='R4.3']")
    assert "Joker" in page.inner_text("#rules-dialog [id='R4.3']")
    shot(page, "tutorial-phone-de-rules")
    assert not page.errors, page.errors


def test_the_rules_dialog_opens_in_the_game_page_at_a_rule(server: str, browser: Any) -> None:
    g = create_game(server, [{"name": "Anna", "kind": "person"}] + BOTS4[:2])
    page = new_page(browser)
    page.add_init_script("localStorage.setItem('kardinal-lang', 'en'); localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_selector("[data-site=paris]")
    page.evaluate("import('/static/rules-dialog.js').then((m) => m.openRule('R4.8'))")
    page.wait_for_selector("#rules-dialog[data-loaded=en][data-rule='R4.8']")
    target = page.locator("#rules-dialog [id='R4.8']")
    assert "coat of arms" in target.inner_text()
    box, frame = target.bounding_box(), page.locator("#rules-dialog .rules-text").bounding_box()
    assert frame["y"] - 2 <= box["y"] <= frame["y"] + frame["height"] / 2  # scrolled to the rule
    shot(page, "rules-dialog-game")
    # a rule number in a refusal line is a link to the dialog
    page.keyboard.press("Escape")
    page.evaluate("document.getElementById('msg').textContent = 'Refused: R4.6: Franken is empty'")
    page.locator("#msg a[data-rule='R4.6']").click()
    page.wait_for_selector("#rules-dialog[open][data-rule='R4.6']")
    page.keyboard.press("Escape")
    # the header's Rules link opens the dialog at the top
    page.click("#rules-link")
    page.wait_for_selector("#rules-dialog[open][data-loaded=en]")
    assert not page.errors, page.errors


def test_the_lobby_links_the_tutorial(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    page.click("#tutorial-link")
    page.wait_for_selector("body[data-status=ready]")
    assert page.url.endswith("/tutorial") or "/tutorial#" in page.url
    assert not page.errors, page.errors


@pytest.mark.parametrize(("lang", "phone"), [("en", False), ("de", True)])
def test_the_rules_dialog_opens_on_how_a_turn_goes(server: str, browser: Any, lang: str, phone: bool) -> None:
    """The header's Rules link: the dialog opens on the turn in a few sentences, then the full
    rules with their sources (desktop in English, a 390x844 touch phone in German)."""
    size = {"width": 390, "height": 844} if phone else {"width": 1400, "height": 950}
    ctx = browser.new_context(viewport=size, has_touch=phone, is_mobile=phone, locale="de-DE" if lang == "de" else "en-GB")
    page = ctx.new_page()
    page.add_init_script(f"localStorage.setItem('kardinal-lang', '{lang}')")
    page.goto(f"{server}/tutorial")
    page.wait_for_selector("body[data-status=ready]")
    page.click("#rules-link")
    page.wait_for_selector(f"#rules-dialog[open][data-loaded={lang}]")
    turn = page.locator("#rules-dialog #rules-turn")
    words = turn.inner_text()
    if lang == "de":
        assert "So geht ein Zug" in words and "Entweder" in words and "tauschst" in words and "Auslage" in words, words
    else:
        assert "How a turn goes" in words and "Either" in words and "exchange one card" in words and "display" in words, words
    # it is what the dialog shows first: at the top of the text, before the sources
    frame = page.locator("#rules-dialog .rules-text").bounding_box()
    box = turn.bounding_box()
    assert frame["y"] <= box["y"] < frame["y"] + 120
    assert box["y"] + box["height"] / 2 < frame["y"] + frame["height"]  # most of it in view
    sources = page.locator("#rules-dialog [id='sources--quellen--kilder']").bounding_box()
    assert sources["y"] > box["y"] + box["height"]
    # its rule numbers open the rules themselves
    turn.locator("a.rule-ref", has_text="R6").first.click()
    page.wait_for_selector("#rules-dialog[data-rule='R6']")
    page.locator("#rules-dialog .rules-toc-turn").click()
    page.wait_for_function("document.querySelector('#rules-dialog').dataset.rule === 'how-a-turn-goes--so-geht-ein-zug--sådan-går-en-tur'")
    shot(page, f"rules-dialog-turn-{lang}-{'phone' if phone else 'desktop'}")
    ctx.close()
