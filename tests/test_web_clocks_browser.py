"""A live table's clock in Chromium, its time run out: the person to act sees their time
count down under the header (the turn's own time, then the reserve; the page's clock, which
the test moves on: Playwright's clock), in red in its last 10 seconds (said once to screen
readers); then, when the server's time (moved on by the test: create_app(clock=...)) is
past the deadline, the stand-in's move and the notice in the chat and the log, and the
person who timed out told under their hand, in the first person, with the bot's move (also
in "Since your last turn"). A turn-based turn's time left in words, urgent in its last 6
hours, in My games and on the game page. The home
page's clock presets send the API's numbers. Desktop and a 390x844 touch phone, English and
German. No test sleeps, and no real time counts: both clocks move only when the test says
(the page's clock is paused before the page loads: Playwright's clock otherwise runs on with
real time between the test's steps, and a loaded machine slipped a second in)."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any

import pytest
from playwright.sync_api import expect
from test_web_axe import axe_scan, serious
from webtools import choose_lang, create_game, get, http_post, open_settings, serve, shot

pytestmark = pytest.mark.browser

WORDS = {
    "en": {
        "timeout": "Your time ran out: a bot (greedy) plays this turn for you.",
        "played": "Your time ran out; a bot (greedy) played for you: ",
        "since": "A bot for you",
        "log": "Your time ran out: a bot (greedy) plays this turn for you.",
        "warn": "Your time runs out in 10 seconds.",
        "reserve": "(reserve)",
        "quick": "Quick: 20 s a turn + 2 min reserve (+5 s a turn)",
        "days": "2 days a turn",
        "turn": "Turn-based",
    },
    "de": {
        "timeout": "Deine Zeit ist abgelaufen: ein Bot (gierig) spielt diesen Zug für dich.",
        "played": "Deine Zeit ist abgelaufen; ein Bot (gierig) hat für dich gespielt: ",
        "since": "Ein Bot für dich",
        "log": "Deine Zeit ist abgelaufen: ein Bot (gierig) spielt diesen Zug für dich.",
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
    assert http_post(f"{server}/api/games/{g['id']}/join", json={"seat": 1, "token": ben["token"]}).status_code == 200  # Ben is not here
    page = page_in(browser, phone, "en-GB" if lang == "en" else "de-DE")
    # the page's own clock moves when the test says, and only then: installed and paused
    # before the page loads (installed alone, it would run on with real time)
    page.clock.install(time=PAGE_T0)
    page.clock.pause_at(PAGE_T0 + 1)
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_selector("body[data-status=running]", state="attached")
    if page.evaluate("document.documentElement.lang") != lang:
        choose_lang(page, lang)
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
    # Anna is told where she looks, in the first person, with what the bot played for her
    # (under her hand, read out at once); "Since your last turn" lists the bot's turn too
    notice = page.locator("#msg[data-notice=timeout]")
    expect(notice).to_contain_text(words["played"])
    assert page.get_attribute("#msg", "role") == "alert"
    expect(notice).to_be_in_viewport()
    expect(page.locator("#since .since-line[data-standin=true][data-seat='0']")).to_contain_text(words["since"])
    shot(page, f"clock-timeout-notice-{where}")
    page.locator("#chatbox .chat-notice").last.scroll_into_view_if_needed()
    shot(page, f"clock-timeout-{where}")
    if phone:
        assert page.evaluate("document.documentElement.scrollWidth") <= 390  # nothing wider than the phone
    # the page opened again: the chat's history and the log still say it to Anna in the
    # first person (the notice of an earlier turn, not said under her hand again)
    page.reload()
    page.wait_for_selector("body[data-status=running]", state="attached")
    notices = page.locator("#chatbox .chat-notice")
    expect(notices.filter(has_text=words["timeout"])).to_have_count(1)
    expect(notices.filter(has_text="Anna")).to_have_count(0)
    expect(page.locator("#log [data-event=timeout]")).to_have_text(words["log"])
    expect(page.locator("#msg[data-notice=timeout]")).to_have_count(0)
    assert not page.errors, page.errors
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "de"])
def test_the_home_page_offers_clock_presets_and_sends_their_numbers(timed: tuple[str, FakeTime], browser: Any, lang: str) -> None:
    server, _ = timed
    words = WORDS[lang]
    page = page_in(browser, lang == "de", "en-GB" if lang == "en" else "de-DE")
    open_settings(page, server)
    if page.evaluate("document.documentElement.lang") != lang:
        choose_lang(page, lang)
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


def at(seconds: float) -> datetime:
    return datetime.fromtimestamp(seconds, tz=UTC)


def test_a_turn_based_turn_says_its_time_left_in_my_games_and_on_the_page(timed: tuple[str, FakeTime], browser: Any) -> None:
    """My games (desktop, English, then German) says how long the one to act has before a bot
    takes the turn, from the server's deadline by the page's own clock; in the last 6 hours
    it is urgent (in words and in red); the game page's clock says it too."""
    server, fake = timed
    page = page_in(browser, False, "en-GB")
    start = fake.t  # the server's time (not moved on here): the turn's deadline is 2 days on
    page.clock.install(time=at(start + 3600))
    page.clock.pause_at(at(start + 3601))
    page.goto(server + "/account")
    anna = "Anna" + str(int(start) % 10_000)
    status = page.evaluate(
        """async ([name]) => (await fetch('/api/account/signup', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({name, password: 'correct horse battery'})})).status""",
        [anna],
    )
    assert status == 200
    g = create_game(
        server,
        [{"name": anna, "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Robo", "kind": "bot", "level": "random"}],
        mode="turn",
        clock={"days": 2},
    )
    joined = page.evaluate(
        """async ([gid, token]) => (await fetch(`/api/games/${gid}/join`, {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({seat: 0, token})})).status""",
        [g["id"], g["seats"][0]["token"]],
    )
    assert joined == 200  # signed in: the seat is the account's
    assert http_post(f"{server}/api/games/{g['id']}/join", json={"seat": 1, "token": g["seats"][1]["token"]}).status_code == 200
    current = get(server, f"/api/games/{g['id']}")["current"]
    page.goto(server + "/mine")
    left = page.locator(f"#mine [data-game='{g['id']}'] .time-left")
    # 1 h after the turn began: 1 day and 22 h 59 min left (whole hours shown)
    expect(left).to_have_text("1 day 22 h left")
    assert "urgent" not in (left.get_attribute("class") or "")
    row = page.locator(f"#mine [data-game='{g['id']}']")
    assert current == 0  # Anna begins (R2.3)
    expect(row).to_contain_text("Your turn")
    assert (left.get_attribute("title") or "").startswith("Until ")
    shot(page, "mine-time-left-en")
    # 42 hours later (the page's clock; the list is asked for again every 15 s): urgent
    page.clock.fast_forward("42:00:00")
    page.clock.run_for(15_000)
    expect(left).to_have_text(re.compile(r"^Hurry: only 4 h 5\d min left$"))
    assert page.evaluate("getComputedStyle(document.querySelector('#mine .time-left')).color") == "rgb(179, 38, 30)"
    choose_lang(page, "de")
    expect(left).to_have_text(re.compile(r"^Beeil dich: nur noch 4 Std\. 5\d Min\.$"))
    shot(page, "mine-time-left-urgent-de")
    # the game page (opened from My games): the time left under the header, in words
    page.locator(f"#mine [data-game='{g['id']}'] a.btn").click()
    page.wait_for_selector("body[data-status=running]", state="attached")
    chip = page.locator(f"#clockline .clock-chip[data-seat='{current}']")
    expect(chip).to_contain_text("noch 2 Tage 0 Std.")  # the server's time has not moved: the whole 2 days
    page.clock.fast_forward("43:00:00")
    expect(chip).to_contain_text("Beeil dich: nur noch 5 Std. 0 Min.")
    assert chip.get_attribute("data-state") == "warn"
    expect(page.locator("#announce")).to_contain_text("Für deinen Zug bleiben weniger als 6 Stunden")
    shot(page, "game-time-left-urgent-de")
    assert not page.errors, page.errors
    page.context.close()

    # Ben, waiting on Anna's turn: its time left, but not his hurry (neither in words nor in red)
    ben = page_in(browser, False, "en-GB")
    ben.clock.install(time=at(start + 43 * 3600))
    ben.clock.pause_at(at(start + 43 * 3600 + 1))
    ben.goto(server + g["seats"][1]["url"])  # (this browser keeps Ben's seat)
    ben.wait_for_selector("body[data-status=running]", state="attached")
    ben.goto(server + "/mine")
    theirs = ben.locator(f"#mine [data-game='{g['id']}'] .time-left")
    expect(ben.locator(f"#mine [data-game='{g['id']}']")).to_contain_text(f"{anna} to play")
    expect(theirs).to_have_text(re.compile(r"^4 h 5\d min left$"))
    assert "urgent" not in (theirs.get_attribute("class") or "")
    assert ben.evaluate("getComputedStyle(document.querySelector('#mine .time-left')).color") != "rgb(179, 38, 30)"
    shot(ben, "mine-time-left-theirs-en")
    ben.locator(f"#mine [data-game='{g['id']}'] a.btn").click()
    ben.wait_for_selector("body[data-status=running]", state="attached")
    theirs = ben.locator("#clockline .clock-chip[data-seat='0']")
    expect(theirs).to_contain_text("2 days 0 h left")
    ben.clock.fast_forward("43:00:00")
    expect(theirs).to_contain_text("5 h 0 min left")
    assert "Hurry" not in theirs.inner_text() and theirs.get_attribute("data-state") == "turn"
    assert "6 hours" not in ben.locator("#announce").inner_text()
    shot(ben, "game-time-left-theirs-en")
    assert not ben.errors, ben.errors
    ben.context.close()
