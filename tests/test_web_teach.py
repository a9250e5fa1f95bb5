"""Hints and the post-game review in the browser (teach.js), driven by Playwright in
Debian's Chromium. Screen pictures go to build/screens (webtools.shot)."""

from __future__ import annotations

import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from web_helpers import change_settings
from webtools import APPS, HTTP_TIMEOUT, choose_lang, create_game, get, new_page, shot, wait_turn

pytestmark = pytest.mark.browser

ME_AND_BOTS = [{"name": "Ann", "kind": "person"}] + [{"name": f"Bot {i}", "kind": "bot", "level": "random"} for i in (1, 2, 3)]
BOTS3 = [{"name": n, "kind": "bot", "level": "random"} for n in ("Ada", "Ben", "Cleo")]


@pytest.fixture(autouse=True)
def small_budgets(server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # the server runs in this process: its settings are changed for each test
    change_settings(monkeypatch, APPS[server], hint_seconds=1.0, review_iterations=30)
    yield


def placed(action: dict[str, Any]) -> tuple[list[str], bool]:
    """The sites and whether an advisor goes to the coat of arms, of a placement."""
    pieces = action.get("pieces", [])
    return [p["site"] for p in pieces if p["type"] == "cloister"], any(p["type"] == "advisor" for p in pieces)


def test_a_hint_is_listed_and_drawn_on_the_map(server: str, browser: Any) -> None:
    g = create_game(server, ME_AND_BOTS)
    page = new_page(browser)
    page.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + g["seats"][0]["url"])
    assert wait_turn(page)
    assert page.evaluate("document.body.dataset.phase") == "main"  # seat 0 begins
    page.wait_for_selector("#hint-btn")
    page.click("#hint-btn")
    page.wait_for_selector("#hint-list li", timeout=30000)
    items = page.locator("#hint-list li")
    assert 1 <= items.count() <= 3
    # the list is what the server said, in words, with the expected margins
    version = int(page.evaluate("document.body.dataset.version"))
    marks = 0
    for i in range(items.count()):
        li = items.nth(i)
        assert li.get_attribute("data-rank") == str(i + 1)
        assert "expected margin" in li.inner_text()
    hint = page.evaluate(
        f"fetch('/api/games/{g['id']}/hint', {{method: 'POST', headers: {{'content-type': 'application/json'}},"
        f" body: JSON.stringify({{seat: 0, token: {g['seats'][0]['token']!r}, version: {version}}})}}).then(r => r.json())"
    )
    for i, o in enumerate(hint["options"]):
        a = o["action"]
        mark = page.locator(f"#map .teach-fx [data-hint-rank='{i + 1}']")
        if a["act"] != "place":
            assert mark.count() == 0
            continue
        sites, advisor = placed(a)
        assert mark.locator(".tc-ring").count() == len(sites) + (1 if advisor else 0)
        for sid in sites:  # the list names the sites as the map does
            assert page.text_content(f"#map [data-site='{sid}'] .site-name") in items.nth(i).inner_text()
        marks += 1
    assert marks >= 1, "no placement among the hints at the first turn"
    # the best move's cards are outlined in the hand
    best = hint["options"][0]["action"]
    if best["act"] == "place":
        hinted = page.locator("[data-zone=hand] .card.tc-hinted")
        assert sorted(hinted.nth(k).get_attribute("data-card") for k in range(hinted.count())) == sorted(best["cards"])
    shot(page, "teach-hint")
    # in German
    choose_lang(page, "de")
    assert page.inner_text("#hint-btn") == "Tipp"
    assert "erwarteter Abstand" in page.inner_text("#hint-list")
    choose_lang(page, "en")
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def test_review_of_a_finished_game_with_its_chart_and_better_moves(server: str, browser: Any) -> None:
    g = create_game(server, BOTS3)
    end = time.monotonic() + 60
    while get(server, f"/api/games/{g['id']}")["status"] != "finished":  # opened once over: the walk-through offered, not opened
        assert time.monotonic() < end, "the bots did not finish"
        time.sleep(0.05)
    page = new_page(browser)
    page.goto(server + g["watch"])
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=60000)
    page.wait_for_selector("#final-walk")
    page.click("#review-btn")
    page.wait_for_selector("#win-chart", timeout=120000)
    review = get(server, f"/api/games/{g['id']}/review")["review"]
    assert review["seats"] == [0, 1, 2]  # a game of bots: every seat
    # one line per player, through every turn's estimate
    lines = page.locator("#win-chart polyline.tc-line")
    assert lines.count() == 3
    for seat in range(3):
        pts = page.locator(f"#win-chart polyline[data-seat='{seat}']").get_attribute("points")
        assert len(pts.split(" ")) == len(review["chances"])
    assert page.locator("#review-summary li").count() == 3
    # the turns along the bottom, counted as the replay counts them, from 0 to the last
    ticks = page.locator("#win-chart text[data-turn]")
    assert ticks.count() >= 2 and ticks.first.inner_html() == "turn 0"
    last = re.fullmatch(r"Turn \d+ of (\d+)", page.inner_text("#rp-turn"))
    assert last and ticks.last.inner_html() == ticks.last.get_attribute("data-turn") == last.group(1)
    # every seat's three costliest decisions, each with the better move, in words
    costly = page.locator("ol.tc-costly li")
    top = [i for seat in review["seats"] for i in review["costliest"][str(seat)]]
    assert costly.count() == len(top) == 9, review["costliest"]
    assert [int(costly.nth(k).get_attribute("data-index")) for k in range(costly.count())] == top
    byindex = {d["index"]: d for d in review["decisions"]}
    others = [d for d in review["decisions"] if d["verdict"] and d["index"] not in top]
    assert page.locator("#review-list li").count() == len(others)
    shot(page, "teach-review")
    # a costly decision: the replay goes to the position before it; the map shows both moves
    d = next((byindex[i] for i in top if byindex[i]["best"]["action"]["act"] == "place"), byindex[top[0]])
    item = f"ol.tc-costly li[data-index='{d['index']}']"
    page.click(f"{item} .tc-slip")
    page.wait_for_function(f"document.body.dataset.replay === '{d['index']}'")
    page.wait_for_selector(f"{item}.on .tc-pair")
    text = page.inner_text(item)
    shown = re.search(r"([0-9.]+) points", text)
    assert shown and float(shown.group(1)) == pytest.approx(d["cost"], abs=0.051)
    assert "Better" in text and "Played" in text and "instead would have gained" in text, text
    # the decision names the turn the replay now shows, and its player's own move number
    turn = re.fullmatch(r"Turn (\d+) of \d+", page.inner_text("#rp-turn"))
    assert turn and re.match(rf"\W*Turn {turn.group(1)} \(own move {d['turn']}\)", text), text  # after the seat's mark
    if d["best"]["action"]["act"] == "place":
        sites, advisor = placed(d["best"]["action"])
        assert page.locator("#map .teach-fx [data-review=better] .tc-ring").count() == len(sites) + (1 if advisor else 0)
    if d["played"]["action"]["act"] == "place":
        assert page.locator("#map .teach-fx [data-review=played]").count() == 1
    shot(page, "teach-review-better-move")
    # the chart's marker follows the replay; leaving the position clears the map
    page.click("#rp-last")
    page.wait_for_function(f"document.body.dataset.replay === '{review['chances'][-1]['step']}'")
    assert page.locator("#map .teach-fx [data-review]").count() == 0
    choose_lang(page, "de")
    assert "Siegchance" in page.inner_text("#teachbox")
    choose_lang(page, "en")
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def test_a_hints_figures_read_the_right_way_round(server: str, browser: Any) -> None:
    """The first option is the search's choice; a later one with a slightly higher expected
    margin says so instead of "+0.9 points against the best"; what rounds to zero reads
    0.0; the searches are counted out of the whole search."""
    page = new_page(browser)
    page.goto(server + "/")
    page.wait_for_selector("#play-now")
    pas = {"act": "pass", "seat": 0}
    hint = {
        "how": "search",
        "iterations": 2400,
        "options": [
            {"action": pas, "visits": 800, "margin": -35.4, "vs_best": 0.0},
            {"action": pas, "visits": 600, "margin": -34.5, "vs_best": 0.9},
            {"action": pas, "visits": 500, "margin": -35.42, "vs_best": -0.02},
            {"action": pas, "visits": 400, "margin": -38.0, "vs_best": -2.6},
        ],
    }
    texts = page.evaluate(
        """async (h) => {
            const { Teach } = await import("/static/teach.js");
            const list = Teach.prototype.hintList.call({ page: { board: null } }, h);
            return [...list.querySelectorAll(".tc-facts")].map((f) => f.textContent);
        }""",
        hint,
    )
    assert texts[0] == "expected margin −35.4 points · 800 of 2,400 searches"
    assert texts[1].startswith("expected margin −34.5 points · +0.9 points against the first, which the search still prefers")
    assert texts[2] == "expected margin −35.4 points · as many points as the first · 500 of 2,400 searches"
    assert texts[3] == "expected margin −38.0 points · −2.6 points against the best · 400 of 2,400 searches"
    assert not any("±" in t or "−0.0" in t for t in texts)
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def test_on_an_enlarged_map_the_hint_is_brought_into_the_frame(server: str, browser: Any) -> None:
    """A phone: the map enlarged and moved to a far corner; the hint's best placement is
    moved into the frame when it arrives."""
    g = create_game(server, ME_AND_BOTS)
    page = new_page(browser, 390, 844)
    page.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + g["seats"][0]["url"])
    assert wait_turn(page)
    for _ in range(3):
        page.click("#zoom-more")
    # the corner far from Italy, France and the middle of the map: the sea off England
    page.evaluate("(() => { const w = document.getElementById('mapwrap'); w.scrollLeft = 0; w.scrollTop = 0; })()")
    page.click("#hint-btn")
    page.wait_for_selector("#hint-list li", timeout=30000)
    rank = next(i + 1 for i in range(page.locator("#hint-list li").count()) if page.locator(f"#map [data-hint-rank='{i + 1}']").count())
    inside = page.evaluate(
        """(rank) => {
            const w = document.getElementById('mapwrap').getBoundingClientRect();
            return [...document.querySelectorAll(`#map [data-hint-rank='${rank}'] .tc-ring`)].every((c) => {
                const r = c.getBoundingClientRect();
                return r.left >= w.left && r.right <= w.right && r.top >= w.top && r.bottom <= w.bottom;
            });
        }""",
        rank,
    )
    shot(page, "teach-hint-phone")
    assert inside
    assert page.errors == [] and page.console_errors == []


def play_first_legal(server: str, g: dict[str, Any]) -> None:
    """Seat 0 (a person) always plays the first legal move, by HTTP, until the game ends."""
    import time

    import httpx

    seat = g["seats"][0]
    with httpx.Client(base_url=server, timeout=HTTP_TIMEOUT) as c:
        assert c.post(f"/api/games/{g['id']}/join", json={"seat": 0, "token": seat["token"]}).status_code == 200
        end = time.monotonic() + 120
        while time.monotonic() < end:
            msg = c.get(f"/api/games/{g['id']}/state", params={"seat": 0, "token": seat["token"]}).json()
            if msg["status"] == "finished":
                return
            if msg.get("legal"):
                body = {"seat": 0, "token": seat["token"], "version": msg["version"], "action": msg["legal"][0]}
                r = c.post(f"/api/games/{g['id']}/actions", json=body)
                assert r.status_code in (200, 409), r.text  # 409: a bot moved first; ask again
            else:
                time.sleep(0.02)
    raise AssertionError("the game did not end")


def test_the_review_of_a_first_legal_card_game_shows_three_better_moves(server: str, browser: Any) -> None:
    """A game lost by always playing the first legal card: the review shows the person's
    three costliest decisions, each with the better move and what it would have gained,
    on a desktop in English and on a phone in German."""
    g = create_game(server, [{"name": "Ann", "kind": "person"}] + [{"name": n, "kind": "bot", "level": "greedy"} for n in ("Ben", "Cleo")])
    play_first_legal(server, g)
    page = new_page(browser)
    page.add_init_script("localStorage.setItem('kardinal-lang', 'en'); localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_function("document.body.dataset.status === 'finished'")
    page.wait_for_selector("#final-walk")  # finished before the page opened: the walk-through offered, not opened
    assert page.locator("#scoring-overlay").count() == 0
    page.click("#review-btn")
    page.wait_for_selector("#win-chart", timeout=120000)
    review = get(server, f"/api/games/{g['id']}/review")["review"]
    assert review["seats"] == [0]  # the person only
    top = review["costliest"]["0"]
    assert len(top) == 3
    byindex = {d["index"]: d for d in review["decisions"]}
    items = page.locator("ol.tc-costly[data-seat='0'] li")
    assert items.count() == 3
    for k, i in enumerate(top):
        d = byindex[i]
        assert d["best"]["action"] != d["played"]["action"] and d["cost"] > 0
        li = items.nth(k)
        assert li.get_attribute("data-index") == str(i)
        instead = li.locator(".tc-instead").inner_text()
        m = re.search(r"instead would have gained ([0-9.]+) points more", instead)
        assert m and float(m.group(1)) == pytest.approx(d["cost"], abs=0.051), instead
        assert li.locator(".tc-better-line").count() == 1 and li.locator(".tc-played-line").count() == 1
    assert "Ann: the three costliest decisions" in page.inner_text("#teachbox")
    page.locator("ol.tc-costly li").first.scroll_into_view_if_needed()
    shot(page, "teach-review-first-legal")
    assert page.errors == [] and page.console_errors == []
    page.context.close()
    # on a phone, in German: the same three, with German numbers
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="de-DE")
    phone = ctx.new_page()
    phone.add_init_script("localStorage.setItem('kardinal-lang', 'de'); localStorage.setItem('kardinal-follow-speed', 'off')")
    phone.goto(server + g["seats"][0]["url"])
    phone.wait_for_function("document.body.dataset.status === 'finished'")
    phone.wait_for_selector("#final-walk")  # finished before the page opened: the walk-through offered, not opened
    assert phone.locator("#scoring-overlay").count() == 0
    phone.wait_for_selector("ol.tc-costly[data-seat='0'] li", timeout=30000)
    assert phone.locator("ol.tc-costly li").count() == 3
    first = phone.locator("ol.tc-costly li").first
    text = first.inner_text()
    # the cost in German digits, rounded by the page (Intl.NumberFormat rounds a half up,
    # Python's format to even: 9.25 is "9,3" there and "9.2" here), so compared as a number
    m = re.search(r"hätte (?:stattdessen )?([0-9]+,[0-9]) Punkte mehr", text)  # a placement, or another move
    assert m and float(m.group(1).replace(",", ".")) == pytest.approx(byindex[top[0]]["cost"], abs=0.051), text
    assert "Besser" in text, text
    assert "die drei teuersten Entscheidungen" in phone.inner_text("#teachbox")
    first.scroll_into_view_if_needed()
    shot(phone, "teach-review-first-legal-phone-de")
    ctx.close()
