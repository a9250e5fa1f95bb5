"""A live table's clock in Chromium, its time run out: the person to act sees their time
count down under the header (the turn's own time, then the reserve; the page's clock, which
the test moves on: Playwright's clock), in red in its last 10 seconds (said once to screen
readers); then, when the server's time (moved on by the test: create_app(clock=...)) is
past the deadline, the stand-in's move and the notice in the chat and the log. The home
page's clock presets send the API's numbers. Desktop and a 390x844 touch phone, English and
German. No test sleeps, and no real time counts: both clocks move only when the test says
(the page's clock is paused before the page loads: Playwright's clock otherwise runs on with
real time between the test's steps, and a loaded machine slipped a second in)."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from test_web_axe import axe_scan, serious
from webtools import create_game, get, open_settings, serve, shot

pytestmark = pytest.mark.browser

WORDS = {
    "en": {
        "timeout": "Anna's time ran out: a bot (greedy) plays this turn for them.",
        "log": "Anna's time ran out: a bot (greedy) plays this turn.",
        "warn": "Your time runs out in 10 seconds.",
        "reserve": "(reserve)",
        "quick": "Quick: 20 s a turn + 2 min reserve (+5 s a turn)",
        "days": "2 days a turn",
        "turn": "Turn-based",
    },
    "de": {
        "timeout": "Die Zeit von Anna ist abgelaufen: ein Bot (gierig) spielt diesen Zug für Anna.",
        "log": "Die Zeit von Anna ist abgelaufen: ein Bot (gierig) spielt diesen Zug.",
        "warn": "Deine Zeit läuft in 10 Sekunden ab.",
        "reserve": "(Reserve)",
        "quick": "Schnell: 20 s je Zug + 2 min Reserve (+5 s je Zug)",
        "days": "2 Tage je Zug",
        "turn": "Rundenbasiert",
    },
}


PAGE_T0 = 1_900_000_000  # the page's clock (seconds; any time will do: the page counts durations)


class FakeTime:
    def __init__(self) -> None:
        self.t = 1_900_000_000.0

    def __call__(self) -> float:
        return self.t


@pytest.fixture(scope="module")
def timed(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, FakeTime]]:
    """A live server whose clocks run on a time the test moves on (deadlines looked at often)."""
    fake = FakeTime()
    for url in serve(tmp_path_factory, clock=fake, clock_check=0.1):
        yield url, fake


def page_in(browser: Any, phone: bool, locale: str) -> Any:
    if phone:
        ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale=locale, timezone_id="UTC")
    else:
        ctx = browser.new_context(viewport={"width": 1280, "height": 900}, locale=locale, timezone_id="UTC")
    page = ctx.new_page()
    page.errors = []
    page.console_errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def chip(page: Any, seat: int) -> str:
    return str(page.inner_text(f"#clockline .clock-chip[data-seat='{seat}']"))


@pytest.mark.parametrize(
    ("phone", "lang"), [(False, "en"), (True, "de"), (False, "de"), (True, "en")], ids=["desktop-en", "phone-de", "desktop-de", "phone-en"]
)
def test_a_live_turn_runs_out_the_stand_in_plays_and_the_log_says_so(
    timed: tuple[str, FakeTime], browser: Any, phone: bool, lang: str
) -> None:
    server, fake = timed
    words = WORDS[lang]
    where = f"{'phone' if phone else 'desktop'}-{lang}"
    g = create_game(
        server,
        [{"name": "Anna", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Robo", "kind": "bot", "level": "random"}],
        standin="greedy",
        clock={"move": 20, "reserve": 30, "increment": 5},
    )
    ben = g["seats"][1]
    assert httpx.post(f"{server}/api/games/{g['id']}/join", json={"seat": 1, "token": ben["token"]}).status_code == 200  # Ben is not here
    page = page_in(browser, phone, "en-GB" if lang == "en" else "de-DE")
    # the page's own clock moves when the test says, and only then: installed and paused
    # before the page loads (installed alone, it would run on with real time)
    page.clock.install(time=PAGE_T0)
    page.clock.pause_at(PAGE_T0 + 1)
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_selector("body[data-status=running]", state="attached")
    if page.evaluate("document.documentElement.lang") != lang:
        page.locator("#lang").click()
    page.wait_for_selector("#clockline:visible")
    assert page.evaluate("document.body.dataset.myTurn") == "true"  # Anna begins (R2.3)

    # Anna's time: the turn's 20 s, then her 30 s of reserve; Ben's reserve; none for the bot
    assert chip(page, 0).replace("\n", " ").strip().endswith("0:20 + 0:30"), chip(page, 0)
    assert chip(page, 1).strip().endswith("0:30")
    assert page.locator("#clockline .clock-chip[data-seat='2']").count() == 0
    box = page.locator("#clockline").bounding_box()
    assert box is not None and box["y"] < 140  # under the header, where the turn is said
    shot(page, f"clock-running-{where}")

    # 25 s later (the page's clock): the turn's own time is over, the reserve runs
    page.clock.run_for(25_000)
    page.wait_for_function("document.querySelector(\"#clockline .clock-chip[data-seat='0']\").dataset.state === 'reserve'")
    assert words["reserve"] in chip(page, 0) and "0:25" in chip(page, 0)
    # the last 10 seconds: red, and said once
    page.clock.run_for(16_000)
    page.wait_for_function("document.querySelector(\"#clockline .clock-chip[data-seat='0']\").dataset.state === 'warn'")
    assert "0:09" in chip(page, 0)
    assert page.locator("#announce").inner_text().count(words["warn"]) == 1
    page.clock.run_for(3_000)
    assert page.locator("#announce").inner_text().count(words["warn"]) == 1  # not every second
    shot(page, f"clock-warn-{where}")
    # from here on nothing is read off the page's countdown: its clock runs on again (axe-core
    # waits on timers of its own, which a paused clock never fires)
    page.clock.resume()
    assert serious(axe_scan(page, f"clock-{where}")) == []

    # the server's time runs out (its clock is moved on): the stand-in plays Anna's turn, the
    # chat and the log say so, and the clock goes on with the next person
    before = get(server, f"/api/games/{g['id']}/state")["version"]
    page.clock.run_for(7_000)
    fake.t += 51
    page.clock.run_for(1_000)  # (the socket's messages come whatever the page's clock)
    page.wait_for_function(
        "(t) => [...document.querySelectorAll('#chatbox .chat-notice')].some(li => li.textContent.includes(t))", arg=words["timeout"]
    )
    page.wait_for_function("(t) => document.querySelector('#log').textContent.includes(t)", arg=words["log"])
    page.wait_for_function("document.body.dataset.myTurn !== 'true' && document.querySelectorAll('#log [data-standin=true]').length >= 2")
    after = get(server, f"/api/games/{g['id']}/state")
    assert after["version"] >= before + 2 and after["view"]["current"] != 0
    assert after["players"][0]["standin"] is False  # Anna keeps her seat
    page.wait_for_function("!document.querySelector(\"#clockline .clock-chip[data-seat='0']\").getAttribute('aria-current')")
    assert chip(page, 0).strip().endswith("0:00")  # her reserve is spent
    if after["view"]["current"] == 1:
        page.wait_for_function("document.querySelector(\"#clockline .clock-chip[data-seat='1']\").getAttribute('aria-current') === 'true'")
    assert page.locator("#log [data-standin=true]").count() >= 2  # the stand-in's moves, in Anna's name
    page.locator("#chatbox .chat-notice").last.scroll_into_view_if_needed()
    shot(page, f"clock-timeout-{where}")
    if phone:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_home_page_offers_clock_presets_and_sends_their_numbers(timed: tuple[str, FakeTime], browser: Any, lang: str) -> None:
    server, _ = timed
    words = WORDS[lang]
    page = page_in(browser, lang == "de", "en-GB" if lang == "en" else "de-DE")
    open_settings(page, server)
    if page.evaluate("document.documentElement.lang") != lang:
        page.locator("#lang").click()
    page.select_option("#kind-1", "person")
    page.wait_for_selector("#clock")
    assert words["quick"] in page.locator("#clock").inner_text()
    page.select_option("#clock", "quick")
    page.locator("#clock").scroll_into_view_if_needed()
    shot(page, f"clock-choice-{lang}")
    assert serious(axe_scan(page, f"clock-choice-{lang}")) == []
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/games")) as req:
        page.locator("#create-btn").click()
    body = req.value.post_data_json
    assert body["clock"] == {"move": 20, "reserve": 120, "increment": 5}
    # turn-based: days
    open_settings(page, server)
    page.select_option("#kind-1", "person")
    page.locator("#mode-turn").check()
    page.select_option("#clock", "days2")
    assert words["days"] in page.locator("#clock").inner_text()
    with page.expect_request(lambda r: r.method == "POST" and r.url.endswith("/api/games")) as req:
        page.locator("#create-btn").click()
    assert req.value.post_data_json["clock"] == {"days": 2} and req.value.post_data_json["mode"] == "turn"
    assert not page.errors, page.errors
    page.context.close()
