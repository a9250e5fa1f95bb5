"""When a person leaves, in Chromium: the others see at once who left and a countdown to
the stand-in under the header (it goes down, on the page's own clock), the notice goes
when they come back in time; else the chat says when the bot takes over, and that they are
back. Two people and a bot, two browser contexts; desktop and a 390x844 touch phone,
English and German."""

from __future__ import annotations

import random
import re
from typing import Any

import pytest
from webtools import create_game, shot, take_turn

pytestmark = pytest.mark.browser

WORDS = {
    "en": {
        "left": "Ben has left – a bot takes over in ",
        "back": "Ben is back",
        "standin": "Ben is not at the table; a bot (greedy) plays for them meanwhile.",
        "now": "A bot now plays for Ben, until Ben comes back.",
    },
    "de": {
        "left": "Ben ist gegangen – ein Bot übernimmt in ",
        "back": "Ben ist zurück",
        "standin": "Ben ist nicht am Tisch; ein Bot (gierig) spielt solange an diesem Platz.",
        "now": "Ein Bot spielt jetzt für Ben, bis Ben zurückkommt.",
    },
}


def page_in(browser: Any, phone: bool, locale: str) -> Any:
    if phone:
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale=locale, timezone_id="UTC")
    else:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale, timezone_id="UTC")
    return opened(ctx)


def opened(ctx: Any) -> Any:
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def seconds_left(page: Any) -> int:
    """The countdown the notice shows now, in seconds."""
    m = re.search(r"(\d+):(\d\d)\.", page.inner_text("#presence"))
    assert m, page.inner_text("#presence")
    return int(m.group(1)) * 60 + int(m.group(2))


def play_until(anna: Any, ben: Any, whose: str, rng: random.Random, touch: bool) -> None:
    """Both play (the bot plays itself) until it is ``whose`` ("anna" or "ben") turn."""
    for _ in range(200):
        a, b = (p.evaluate("document.body.dataset.myTurn") == "true" for p in (anna, ben))
        if (whose == "anna" and a) or (whose == "ben" and b):
            return
        if a:
            take_turn(anna, rng, touch)
        elif b:
            take_turn(ben, rng, touch)
        else:
            anna.wait_for_timeout(100)
    raise AssertionError(f"never {whose}'s turn")


@pytest.mark.parametrize(("phone", "lang"), [(False, "en"), (True, "de")], ids=["desktop-en", "phone-de"])
def test_the_table_sees_who_left_and_counts_down_to_the_stand_in(server: str, browser: Any, phone: bool, lang: str) -> None:
    words = WORDS[lang]
    locale = "en-GB" if lang == "en" else "de-DE"
    rng = random.Random(4)
    g = create_game(
        server,
        [{"name": "Anna", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Robo", "kind": "bot", "level": "random"}],
        away=8,
        standin="greedy",
    )
    anna = page_in(browser, phone, locale)
    ben = page_in(browser, phone, locale)
    anna.goto(server + g["seats"][0]["url"])
    ben.goto(server + g["seats"][1]["url"])
    for p in (anna, ben):
        p.wait_for_selector("body[data-status=running]", state="attached")
    assert anna.locator("#presence").is_hidden()
    context = ben.context

    # Ben closes his tab while Anna is to play, and comes back in time: the notice comes and goes,
    # and the chat says nothing
    play_until(anna, ben, "anna", rng, phone)
    ben.close()
    anna.wait_for_selector("#presence:visible")
    assert anna.inner_text("#presence").startswith(words["left"])
    ben = opened(context)
    ben.goto(f"{server}/game/{g['id']}")
    anna.wait_for_selector("#presence", state="hidden")
    assert anna.locator("#chatbox .chat-notice").count() == 0

    # now on his turn: Anna sees at once who left and the time until a bot plays for him, going down
    play_until(anna, ben, "ben", rng, phone)
    ben.close()
    anna.wait_for_selector("#presence:visible")
    assert anna.inner_text("#presence").startswith(words["left"])
    first = seconds_left(anna)
    assert 0 < first <= 8
    anna.wait_for_function(
        "(n) => { const m = /(\\d+):(\\d\\d)\\./.exec(document.querySelector('#presence').textContent); return m && Number(m[1]) * 60 + Number(m[2]) < n; }",
        arg=first,
    )
    assert seconds_left(anna) < first
    box = anna.locator("#presence").bounding_box()
    assert box is not None and box["y"] < 140 and box["height"] >= 20  # under the header, where the turn is said
    shot(anna, f"presence-left-{'phone' if phone else 'desktop'}-{lang}")

    # the countdown ends on his turn: the stand-in plays; the chat says so, and the line under the header
    anna.wait_for_function(
        "(t) => [...document.querySelectorAll('#chatbox .chat-notice')].some(li => li.textContent.includes(t))", arg=words["standin"]
    )
    anna.wait_for_function("(t) => document.querySelector('#presence').textContent === t", arg=words["now"])
    shot(anna, f"presence-standin-{'phone' if phone else 'desktop'}-{lang}")

    # he comes back: "is back"
    ben = opened(context)
    ben.goto(f"{server}/game/{g['id']}")
    anna.wait_for_function(
        "(t) => [...document.querySelectorAll('#chatbox .chat-notice')].some(li => li.textContent.includes(t))", arg=words["back"]
    )
    assert anna.locator("#presence").is_hidden()
    anna.locator("#chatbox").scroll_into_view_if_needed()
    shot(anna, f"presence-back-{'phone' if phone else 'desktop'}-{lang}")
    assert not anna.errors and not ben.errors
