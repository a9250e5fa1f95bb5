"""The end of a game and the way on, in Debian's Chromium (desktop and a 390x844 touch
phone, English and German): the final table stays on the finished game's page with "Play
again" (the start player moved on one seat, the person's token working at their new seat)
and "New game"; a finished game opened later shows its result and offers the walk-through
instead of opening it; "Since your last turn" above the hand lists each other player's
turn, and a line tapped marks its places on the map (since.js)."""

from __future__ import annotations

import random
import time
from typing import Any

import httpx
import pytest
from webtools import choose_lang, create_game, get, http_get, shot, stray_words, take_turn, wait_turn

pytestmark = pytest.mark.browser

ME_AND_BOTS = [{"name": "Ann", "kind": "person"}] + [{"name": f"Bot {i}", "kind": "bot", "level": "random"} for i in (1, 2, 3)]

# the two screens and languages every part is seen in
SCREENS = [
    pytest.param({"width": 1400, "height": 950, "phone": False, "locale": "en-GB"}, id="desktop-en"),
    pytest.param({"width": 390, "height": 844, "phone": True, "locale": "de-DE"}, id="phone-de"),
]


def open_page(browser: Any, screen: dict[str, Any], speed: str = "off") -> Any:
    """A page on this screen and in its language; the others' turns not animated (``speed``)."""
    ctx = browser.new_context(
        viewport={"width": screen["width"], "height": screen["height"]},
        has_touch=screen["phone"],
        is_mobile=screen["phone"],
        locale=screen["locale"],
        timezone_id="UTC",
    )
    page = ctx.new_page()
    page.errors, page.console_errors = [], []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.add_init_script(f"localStorage.setItem('kardinal-follow-speed', '{speed}')")
    return page


def press(page: Any, screen: dict[str, Any], selector: str) -> None:
    """A tap on the phone, a click on the desktop."""
    loc = page.locator(selector)
    loc.scroll_into_view_if_needed()
    if screen["phone"]:
        loc.tap()
    else:
        loc.click()


def play_out_over_http(server: str, gid: str, toks: dict[int, str], seed: int) -> dict[str, Any]:
    """The people's turns by random legal moves over HTTP (the bots play on the server),
    until the game is over: a page open meanwhile watches it end."""
    rng = random.Random(seed)
    n = 0
    with httpx.Client(base_url=server, timeout=30) as c:
        end = time.monotonic() + 180
        while True:
            assert time.monotonic() < end, "the game did not end"
            spec = c.get(f"/api/games/{gid}/state").json()
            if spec["status"] == "finished":
                return dict(spec)
            cur = spec["view"]["current"]
            if spec["status"] != "running" or cur not in toks:
                time.sleep(0.01)
                continue
            msg = c.get(f"/api/games/{gid}/state", params={"seat": cur, "token": toks[cur]}).json()
            if "legal" not in msg:
                time.sleep(0.01)
                continue
            body = {"seat": cur, "token": toks[cur], "version": msg["version"], "action": rng.choice(msg["legal"]), "id": f"e{n}"}
            r = c.post(f"/api/games/{gid}/actions", json=body)
            assert r.status_code in (200, 409), r.text  # 409: a bot's move came first (stale version): ask again
            n += 1


def final_table_shows_the_result(page: Any, server: str, gid: str) -> None:
    """#finalbox: every seat in the order of the final scoring, its points, the winners marked."""
    final = get(server, f"/api/games/{gid}/scoring")["scoring"]["final"]
    page.wait_for_selector("#finalbox #final-table")
    rows = page.locator("#final-table tr")
    assert [int(rows.nth(i).get_attribute("data-seat")) for i in range(rows.count())] == final["order"]
    for i, seat in enumerate(final["order"]):
        text = rows.nth(i).inner_text()
        assert str(final["scores"][seat]) in text
        assert ("★" in text) == (seat in final["winners"]), text


def visible_on_screen(page: Any, selector: str) -> bool:
    """The element is on the screen and not covered or scrolled away inside its panel: what
    lies at its middle is it (or inside it)."""
    return bool(
        page.evaluate(
            "(s) => { const e = document.querySelector(s); const r = e.getBoundingClientRect();"
            " if (!r.width || r.top < 0 || r.bottom > window.innerHeight) return false;"
            " const at = document.elementFromPoint(r.left + Math.min(r.width / 2, 20), r.top + r.height / 2);"
            " return Boolean(at) && (at === e || e.contains(at)); }",
            selector,
        )
    )


@pytest.mark.parametrize("screen", SCREENS)
def test_a_game_to_the_end_keeps_its_final_table_and_play_again_moves_the_start_player_on(
    server: str, browser: Any, screen: dict[str, Any]
) -> None:
    de = screen["locale"] == "de-DE"
    g = create_game(server, ME_AND_BOTS)
    gid, tok = g["id"], g["seats"][0]["token"]
    page = open_page(browser, screen)
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_function("document.body.dataset.status === 'running'", timeout=20000)
    assert page.locator("#finalbox").is_hidden()  # no result while the game runs
    play_out_over_http(server, gid, {0: tok}, seed=11)
    # the game ended while the page watched: the walk-through opens by itself, as before
    page.wait_for_selector("#scoring-overlay[data-kind=final]", timeout=30000)
    press(page, screen, "#sc-skip")
    page.wait_for_selector("#sc-totals")
    press(page, screen, "#sc-close")
    assert page.locator("#scoring-overlay").count() == 0
    # the final table stays, with both ways on, in view
    final_table_shows_the_result(page, server, gid)
    assert page.inner_text("#final-title").lower() == ("endergebnis" if de else "final result")
    assert page.inner_text("#final-again") == ("Nochmal spielen" if de else "Play again")
    assert page.inner_text("#final-new") == ("Neues Spiel" if de else "New game")
    assert page.get_attribute("#final-new", "href") == "/"
    assert visible_on_screen(page, "#final-title") and visible_on_screen(page, "#final-again")
    assert not stray_words(page, "#finalbox")
    shot(page, f"end-final-table-{screen['locale']}-{'phone' if screen['phone'] else 'desktop'}")
    if screen["phone"]:  # every control of the table a finger's size
        for sel in ("#final-again", "#final-new", "#final-walk"):
            assert page.locator(sel).bounding_box()["height"] >= 44, sel
    # Play again: the old seat 1 begins; Ann (seat 0) now sits last, her token working there
    press(page, screen, "#final-again")
    page.wait_for_url(lambda u: "/game/" in u and gid not in u, timeout=20000)
    new = page.url.rsplit("/", 1)[1].split("?")[0]
    info = get(server, f"/api/games/{new}")
    assert [p["name"] for p in info["players"]] == ["Bot 1", "Bot 2", "Bot 3", "Ann"]
    assert get(server, f"/api/games/{gid}/state")["again"] == new
    assert "token" not in page.url  # the token went to the browser's storage, not the address
    assert page.evaluate(f"JSON.parse(localStorage.getItem('kardinal-seats:{new}'))") == {"3": tok}
    page.wait_for_selector("[data-zone=hand] .card", timeout=20000)  # her hand: the page holds seat 3
    assert http_get(f"{server}/api/games/{new}/state", params={"seat": 3, "token": tok}).json()["seat"] == 3
    assert http_get(f"{server}/api/games/{new}/state", params={"seat": 0, "token": tok}).status_code == 403
    page.wait_for_function("document.body.dataset.status === 'running'", timeout=20000)
    assert page.errors == [] and page.console_errors == []
    page.context.close()


@pytest.mark.parametrize("screen", SCREENS)
def test_a_finished_game_opened_later_shows_its_result_and_offers_the_walk_through(
    server: str, browser: Any, screen: dict[str, Any]
) -> None:
    """Hot-seat, two people and a bot, finished before the page opens (as from the lobby
    or "My games"): the result, not the 26 pages; Play again keeps both people's tokens
    at their new seats."""
    de = screen["locale"] == "de-DE"
    players = [{"name": "Ann", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Bot 3", "kind": "bot", "level": "random"}]
    g = create_game(server, players, hotseat=True)
    gid = g["id"]
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    play_out_over_http(server, gid, toks, seed=5)
    page = open_page(browser, screen)
    page.goto(server + f"/game/{gid}?tokens=0:{toks[0]},1:{toks[1]}")
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=20000)
    final_table_shows_the_result(page, server, gid)
    page.wait_for_timeout(300)  # (a walk-through that would open by itself has had its moment: none may)
    assert page.locator("#scoring-overlay").count() == 0
    walk = page.locator("#final-walk")
    assert walk.inner_text() == ("Schlusswertung Schritt für Schritt" if de else "Show the final scoring step by step")
    assert visible_on_screen(page, "#final-title") and visible_on_screen(page, "#final-walk")
    assert not stray_words(page, "#finalbox")
    shot(page, f"end-opened-later-{screen['locale']}-{'phone' if screen['phone'] else 'desktop'}")
    # the other language: the table's words follow at once
    choose_lang(page, "en" if de else "de")
    assert page.inner_text("#final-title").lower() == ("final result" if de else "endergebnis")
    assert page.inner_text("#final-new") == ("New game" if de else "Neues Spiel")
    choose_lang(page, "de" if de else "en")
    # offered: one press opens it at its beginning, and closing it leaves the result
    press(page, screen, "#final-walk")
    page.wait_for_selector("#scoring-overlay[data-kind=final][data-step=intro]")
    press(page, screen, "#sc-close")
    assert page.locator("#scoring-overlay").count() == 0 and page.locator("#final-table").is_visible()
    # a reload does not force it either
    page.reload()
    page.wait_for_selector("#final-table")
    assert page.locator("#scoring-overlay").count() == 0
    # Play again in hot-seat: Ben (old seat 1) begins, Ann sits last; both tokens go along
    press(page, screen, "#final-again")
    page.wait_for_url(lambda u: "/game/" in u and gid not in u, timeout=20000)
    new = page.url.rsplit("/", 1)[1].split("?")[0]
    assert [p["name"] for p in get(server, f"/api/games/{new}")["players"]] == ["Ben", "Bot 3", "Ann"]
    assert page.evaluate(f"JSON.parse(localStorage.getItem('kardinal-seats:{new}'))") == {"0": toks[1], "2": toks[0]}
    # Ben's turn at this screen: his hand behind its curtain, then his to play
    page.wait_for_selector("#reveal", timeout=20000)
    assert "Ben" in page.inner_text("#reveal")
    press(page, screen, "#reveal")
    page.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=20000)
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def places_of(entries: list[dict[str, Any]]) -> tuple[set[str], set[str]]:
    sites: set[str] = set()
    coats: set[str] = set()
    for e in entries:
        a = e["action"]
        if a["act"] == "place":
            for p in a["pieces"]:
                if p["type"] == "cloister":
                    sites.add(p["site"])
                else:
                    coats.add(a["country"])
    return sites, coats


@pytest.mark.parametrize("screen", SCREENS)
def test_since_your_last_turn_lists_each_bots_turn_and_marks_its_places(server: str, browser: Any, screen: dict[str, Any]) -> None:
    de = screen["locale"] == "de-DE"
    g = create_game(server, ME_AND_BOTS)
    page = open_page(browser, screen)
    page.goto(server + g["seats"][0]["url"])
    rng = random.Random(7)
    assert wait_turn(page)
    assert page.locator("#since").is_hidden()  # the first turn of the game: nobody has moved yet
    marked_one = False
    for _round in range(6):
        take_turn(page, rng, touch=screen["phone"])
        while page.evaluate("document.body.dataset.phase") == "draw" and page.evaluate("document.body.dataset.myTurn") == "true":
            take_turn(page, rng, touch=screen["phone"])
        assert wait_turn(page)
        # my turn again: one line per bot, in the order they played, saying what each did
        history = get(server, f"/api/games/{g['id']}/state")["view"]["history"]
        mine = max(i for i, h in enumerate(history) if h["action"]["seat"] == 0 and h["action"]["act"] != "draw")
        since = history[mine + 1 :]
        per_seat = {s: [h for h in since if h["action"]["seat"] == s] for s in (1, 2, 3)}
        page.wait_for_selector("#since .since-line")
        lines = page.locator("#since .since-line")
        assert lines.count() == 3
        assert not stray_words(page, "#since")
        assert page.inner_text("#since-title").lower() == ("seit deinem letzten zug" if de else "since your last turn")
        for k, seat in enumerate((1, 2, 3)):
            line = lines.nth(k)
            assert line.get_attribute("data-seat") == str(seat)
            text = line.get_attribute("title")
            main = next(h["action"] for h in per_seat[seat] if h["action"]["act"] != "draw")
            assert text.startswith(f"Bot {seat}"), text
            if main["act"] == "exchange":
                assert ("tauschte" if de else "exchanged") in text
            if main["act"] == "place":
                words = ("Kloster", "Klöster", "Rat", "Räte") if de else ("cloister", "advisor")
                assert " in " in text and any(w in text for w in words), text
            # public only: a card drawn from the pile is never named
            for h in per_seat[seat]:
                for ev in h["events"]:
                    assert ev.get("type") != "drew" or ev.get("kind") is None
            sites, coats = places_of(per_seat[seat])
            if not sites and not coats:
                assert line.evaluate("n => n.tagName") == "SPAN"  # nothing on the map to point at
                continue
            # a tap marks its places on the map: exactly the sites and coats of arms of that turn
            press(page, screen, f"#since .since-line >> nth={k}")
            assert line.get_attribute("aria-pressed") == "true"
            got_sites = set(page.eval_on_selector_all("#map .site.since-mark", "ns => ns.map(n => n.dataset.site)"))
            got_coats = set(page.eval_on_selector_all("#map .coat.since-mark", "ns => ns.map(n => n.dataset.coat)"))
            assert (got_sites, got_coats) == (sites, coats)
            assert page.locator("#map .since-ring").count() == len(sites) + len(coats)
            if not marked_one:
                shot(page, f"end-since-{screen['locale']}-{'phone' if screen['phone'] else 'desktop'}")
                marked_one = True
            press(page, screen, f"#since .since-line >> nth={k}")  # tapped again: unmarked
            assert page.locator("#map .since-mark").count() == 0
        if screen["phone"]:
            buttons = page.locator("#since button.since-line")  # a line with places to mark is a control: a finger's size
            assert buttons.count() >= 1 and all(buttons.nth(k).bounding_box()["height"] >= 44 for k in range(buttons.count()))
            assert all(lines.nth(k).bounding_box()["height"] < 80 for k in range(3))  # at most three lines each, however long
            # nothing of a line is cut off: it fits its three lines (a line is cut only when it is longer)
            assert page.eval_on_selector_all("#since .since-text", "ns => ns.filter(n => n.scrollHeight > n.clientHeight + 1).length") == 0
        if marked_one and _round >= 1:
            break
    assert marked_one, "no bot placed a piece in six rounds"
    assert page.errors == [] and page.console_errors == []
    page.context.close()
