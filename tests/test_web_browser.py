"""The browser client, driven by Playwright in Debian's Chromium: clicking only.

Needs /usr/bin/chromium, which ``make test`` installs; the helpers are in webtools.py.
"""

from __future__ import annotations

import random
import re
import time
from pathlib import Path
from typing import Any

import pytest
from webtools import (
    BOTS4,
    choose_lang,
    create_game,
    create_in_lobby,
    get,
    new_page,
    open_other_games,
    open_settings,
    stray_words,
    take_turn,
    version,
    wait_turn,
)

pytestmark = pytest.mark.browser


def test_a_complete_game_against_three_bots(server: str, browser: Any) -> None:
    page = new_page(browser)
    open_settings(page, server)
    for i in (1, 2, 3):
        page.select_option(f"#kind-{i}", "bot")
        page.select_option(f"#level-{i}", "random")
    page.fill("#name-0", "Ann")
    create_in_lobby(page)
    page.wait_for_selector("[data-site=paris]")
    board = get(server, "/api/board?id=standard")
    assert page.evaluate("document.body.dataset.board") == "standard"
    assert page.locator("[data-site]").count() == len(board["sites"]) == 51
    assert page.locator("[data-country]").count() == 9
    assert page.locator("[data-alliance]").count() == 15
    # colours from the board data: the countries' fills, the stripes on the cards
    fills = page.evaluate(
        "[...document.querySelectorAll('[data-country]')].map((g) => [g.dataset.country, g.querySelector('.land').getAttribute('fill')])"
    )
    assert dict(fills) == {c["id"]: c["colour"] for c in board["countries"]}
    # a game created with the defaults is played by the rules as written, and says so
    assert page.inner_text("#rules-info") == "Rules: as written"
    assert "Rules: as written" in page.inner_text("#log [data-event=rules]")
    rng = random.Random(7)
    decisions = 0
    while wait_turn(page):
        take_turn(page, rng)
        decisions += 1
        assert decisions < 400
    assert decisions > 10
    page.wait_for_selector("#standings")
    assert "Ann" in page.inner_text("#standings")
    assert page.locator("#log li:not(.event)").count() == version(page)
    assert page.locator("#log [data-event=intermediate]").count() == 1 and page.locator("#log [data-event=final]").count() == 1
    # the replay viewer steps back and forward through the finished game
    page.get_by_role("button", name="Back").click()
    page.wait_for_function(f"document.body.dataset.replay === '{version(page) - 1}'")
    page.get_by_role("button", name="First").click()
    page.wait_for_function("document.body.dataset.replay === '0'")
    assert page.locator("#log li:not(.event)").count() == 0
    page.get_by_role("button", name="Forward").click()
    page.wait_for_function("document.body.dataset.replay === '1'")
    with page.expect_download() as dl:
        page.get_by_role("link", name="Download the game record").click()
    import json

    rec = json.loads(Path(dl.value.path()).read_text())
    assert rec["format"] == "kardinal-record" and "seed" not in rec
    assert stray_words(page, "#replaybox") == set() and stray_words(page, "#players") == set()
    # German, and back
    choose_lang(page, "de")
    assert page.locator("text=Spielverlauf").count() == 1
    choose_lang(page, "en")
    assert page.errors == []
    assert page.console_errors == []
    page.context.close()


def test_two_browsers_play_one_online_game(server: str, browser: Any) -> None:
    g = create_game(
        server, [{"name": "Ann", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Bot", "kind": "bot", "level": "random"}]
    )
    a, b = new_page(browser), new_page(browser)
    a.goto(server + g["seats"][0]["url"])
    b.goto(server + g["seats"][1]["url"])
    rng = random.Random(3)
    moves = {0: 0, 1: 0}
    reloaded = False
    while min(moves.values()) < 4:
        for seat, page in ((0, a), (1, b)):
            page.wait_for_function("document.body.dataset.status === 'running'")
            if page.evaluate("document.body.dataset.myTurn") == "true":
                take_turn(page, rng)
                moves[seat] += 1
        if moves[0] >= 2 and not reloaded:
            # a reload mid-game: the same link brings back the same seat, hand and position
            a.wait_for_function("document.body.dataset.version === String(" + str(version(b)) + ")")
            hand_before = a.inner_text("[data-zone=hand]")
            v = version(a)
            a.reload()
            a.wait_for_function(f"document.body.dataset.version === '{v}'")
            assert a.inner_text("[data-zone=hand]") == hand_before
            reloaded = True
        time.sleep(0.02)
    # both pages show the same game, at a person's turn (the bot may still be moving: one
    # page could show its move and the other not yet)
    for _ in range(20):
        b.wait_for_function(f"Number(document.body.dataset.version) >= {version(a)}")
        a.wait_for_function(f"Number(document.body.dataset.version) >= {version(b)}")
        turns = [p.evaluate("document.body.dataset.myTurn") for p in (a, b)]
        if version(a) == version(b) and "true" in turns:
            break
    assert version(a) == version(b) and "true" in turns
    assert a.inner_text("#log") == b.inner_text("#log")
    assert "Ann" in a.inner_text("#log") and "Ben" in a.inner_text("#log")
    # the kind of a card drawn from the pile is told to the one who drew it only (R13.2)
    for page, seat in ((a, 0), (b, 1)):
        told = page.eval_on_selector_all("#log li[title]", "lis => lis.map((li) => [li.className, li.title])")
        assert all(cls == f"s{seat}" and title.startswith("you drew ") for cls, title in told), told
    assert a.errors == [] and b.errors == []
    # a spectator sees the game but no hand
    s = new_page(browser)
    s.goto(server + g["watch"])
    s.wait_for_selector("[data-site=paris]")
    s.wait_for_function("document.body.dataset.status === 'running'")
    assert s.locator("[data-zone=hand]").count() == 0
    assert s.locator("#log li:not(.event)").count() > 0 and s.locator("#log li[title]").count() == 0
    # a wrong link says so, and shows the game as to a spectator
    w = new_page(browser)
    w.goto(server + f"/game/{g['id']}?seat=1&token=not-the-token")
    w.wait_for_function("document.body.dataset.status === 'running'")
    assert "This link does not hold that seat (a wrong or outdated token)." in w.inner_text("#msg")
    assert w.locator("[data-zone=hand]").count() == 0
    for p in (a, b, s, w):
        p.context.close()


def test_hotseat_hides_the_hand_until_asked(server: str, browser: Any) -> None:
    g = create_game(
        server,
        [{"name": "Ann", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Bot", "kind": "bot", "level": "random"}],
        hotseat=True,
    )
    page = new_page(browser)
    page.goto(server + g["hotseat_url"])
    rng = random.Random(5)
    for name in ("Ann", "Ben", "Ann"):
        button = page.get_by_role("button", name=f"{name}'s turn — show my hand")
        button.wait_for()
        assert page.locator("[data-zone=hand]").count() == 0
        button.click()
        assert page.locator("[data-zone=hand] .card").count() == 3
        if name == "Ben":
            # a click the rules do not allow is refused with a message, and nothing is sent
            v = version(page)
            page.locator("[data-zone=hand] .card.legal").first.click()
            page.locator(".site:not(.legal) .spot").first.click()
            assert "No cloister can go to" in page.inner_text("#msg")
            assert version(page) == v
            page.get_by_role("button", name="Clear selection").click()
        while True:
            take_turn(page, rng)
            if page.evaluate("document.body.dataset.phase") != "draw" or page.evaluate("document.body.dataset.myTurn") != "true":
                break
    assert page.errors == []
    page.context.close()


def test_a_variant_chosen_in_the_lobby_shows_on_the_game_page(server: str, browser: Any) -> None:
    from playwright.sync_api import expect

    page = new_page(browser)
    open_settings(page, server)
    # by default: no variant, the standard board
    assert not page.is_checked("#variant-joker-anywhere")
    assert page.input_value("#board") == "standard"
    assert page.inner_text("#rules-summary") == "Rules: as written"
    for i in (1, 2, 3):
        page.select_option(f"#kind-{i}", "bot")
        page.select_option(f"#level-{i}", "random")
    page.check("#variant-joker-anywhere")
    assert page.inner_text("#rules-summary") == "Variant: joker-anywhere"
    create_in_lobby(page)
    page.wait_for_function("document.body.dataset.status === 'running'")
    gid = page.url.split("/game/")[1].split("?")[0]
    assert get(server, f"/api/games/{gid}")["variants"] == ["joker-anywhere"]
    assert page.inner_text("#rules-info") == "Variant: joker-anywhere"
    assert page.evaluate("document.body.dataset.variants") == "joker-anywhere"
    assert "Variant: joker-anywhere" in page.inner_text("#log [data-event=rules]")
    assert page.locator("#log li").first.get_attribute("data-event") == "rules"  # at the start of the log
    choose_lang(page, "de")
    assert page.inner_text("#rules-info") == "Variante: joker-anywhere"
    assert "Variante: joker-anywhere" in page.inner_text("#log [data-event=rules]")
    choose_lang(page, "en")
    # the lobby's list shows it too; a game by the rules as written has no such mark
    plain = create_game(server, BOTS4[:3] + [{"name": "Cy", "kind": "person"}])
    page.goto(server + "/")
    open_other_games(page)  # (a running game: folded away under the open tables)
    row = page.locator(f":is(#games, #other-games) [data-game='{gid}']")
    row.wait_for()
    assert "Variant: joker-anywhere" in row.inner_text() and row.get_attribute("data-variants") == "joker-anywhere"
    other = page.locator(f":is(#games, #other-games) [data-game='{plain['id']}']")
    assert "Variant" not in other.inner_text() and other.get_attribute("data-variants") == ""
    choose_lang(page, "de")
    expect(page.locator(f":is(#games, #other-games) [data-game='{gid}']")).to_contain_text("Variante: joker-anywhere")
    choose_lang(page, "en")
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def test_the_page_draws_the_board_of_its_own_game(server: str, browser: Any) -> None:
    """A game on the earlier board (reconstruction-1, 50 sites) is drawn on that board,
    whichever board is the default; the lobby offers the installed boards."""
    page = new_page(browser)
    boards: list[str] = []
    page.on("request", lambda r: boards.append(r.url.split("?", 1)[-1]) if "/api/board" in r.url else None)
    open_settings(page, server)
    options = page.eval_on_selector_all("#board option", "os => os.map((o) => o.value)")
    assert options == get(server, "/api/variants")["boards"] and "reconstruction-1" in options
    for i in (1, 2, 3):
        page.select_option(f"#kind-{i}", "bot")
        page.select_option(f"#level-{i}", "random")
    page.select_option("#board", "reconstruction-1")
    create_in_lobby(page)
    page.wait_for_function("document.body.dataset.status === 'running'")
    gid = page.url.split("/game/")[1].split("?")[0]
    assert get(server, f"/api/games/{gid}")["board"] == "reconstruction-1"
    assert page.evaluate("document.body.dataset.board") == "reconstruction-1"
    old = get(server, "/api/board?id=reconstruction-1")
    assert page.locator("[data-site]").count() == len(old["sites"]) == 50
    assert {page.get_attribute(f"[data-site={s['id']}]", "data-site") for s in old["sites"]} == {s["id"] for s in old["sites"]}
    assert "id=reconstruction-1" in boards
    assert "Board: reconstruction-1" in page.inner_text("#log [data-event=rules]")
    page.goto(server + "/")
    open_other_games(page)
    row = page.locator(f":is(#games, #other-games) [data-game='{gid}']").inner_text()
    assert "Board: reconstruction-1" in row
    # when it was created, as an en-GB browser writes dates: the day first
    created = time.gmtime(next(g["created"] for g in get(server, "/api/games")["games"] if g["id"] == gid))
    assert re.search(rf"\b{created.tm_mday} [A-Z][a-z]{{2,4}} {created.tm_year}, \d\d:\d\d\b", row), row
    assert page.errors == [] and page.console_errors == []
    page.context.close()


# the number of the decision whose line comes last before a log entry
PREVIOUS_DECISION = "(li) => { let p = li.previousElementSibling; while (p && p.classList.contains('event')) p = p.previousElementSibling; return p.value; }"


def test_the_log_reads_the_events_of_a_bots_only_game(server: str, browser: Any) -> None:
    """Intermediate scoring, last round and the end, each right after the decision that
    caused it, with the points the events carry; no errors in the console all game long."""
    g = create_game(server, BOTS4)
    page = new_page(browser)
    page.goto(server + g["watch"])
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=120000)
    msg = get(server, f"/api/games/{g['id']}/state")
    history = msg["view"]["history"]
    names = [p["name"] for p in msg["players"]]
    assert version(page) == len(history)
    assert page.locator("#log li:not(.event)").count() == len(history)

    def caused(kind: str) -> tuple[int, dict[str, Any]]:
        found = [(i + 1, e) for i, h in enumerate(history) for e in h["events"] if e["type"] == kind]
        assert len(found) == 1, kind
        return found[0]

    for kind, event_type, mark in (("intermediate", "intermediate_scoring", "intermediate"), ("last_round", "last_round", "last_round")):
        after, event = caused(event_type)
        assert msg["marks"][mark] == after
        item = page.locator(f"#log [data-event={kind}]")
        assert item.count() == 1 and item.get_attribute("data-after") == str(after)
        # the entry follows the decision that caused it
        assert item.evaluate(PREVIOUS_DECISION) == after
        text = item.inner_text()
        if kind == "intermediate":
            assert "intermediate scoring" in text
            for name, points in zip(names, event["points"]):
                assert f"{name} {points}" in text
        else:
            assert names[event["last_seat"]] in text
    after, ended = caused("game_ended")
    assert after == len(history)
    final = page.locator("#log [data-event=final]")
    assert final.count() == 1 and final.get_attribute("data-after") == str(after) and final.evaluate(PREVIOUS_DECISION) == after
    for name, points in zip(names, ended["scores"]):
        assert f"{name} {points}" in final.inner_text()
    assert ended["scores"] == msg["view"]["scores"]
    for w in ended["winners"]:
        assert names[w] in final.inner_text().split("Winner")[1]
    # German: the same entries in German words
    choose_lang(page, "de")
    assert "Zwischenwertung" in page.inner_text("#log [data-event=intermediate]")
    choose_lang(page, "en")
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def test_the_log_does_not_read_notation(server: str, browser: Any) -> None:
    """The page describes moves from the record actions: with the notation of every
    history entry replaced by nonsense on the way, the log reads the same."""
    import json

    g = create_game(server, BOTS4[:3])
    plain = new_page(browser)
    plain.goto(server + g["watch"])
    plain.wait_for_function("document.body.dataset.status === 'finished'", timeout=120000)
    garbled = new_page(browser)

    def garble(ws: Any) -> None:
        srv = ws.connect_to_server()

        def from_server(message: str | bytes) -> None:
            m = json.loads(message)
            for h in (m.get("view") or {}).get("history") or []:
                h["notation"] = "nonsense ?? !!"
            ws.send(json.dumps(m))

        srv.on_message(from_server)

    garbled.route_web_socket("**/ws/*", garble)
    garbled.goto(server + g["watch"])
    garbled.wait_for_function("document.body.dataset.status === 'finished'", timeout=60000)
    assert garbled.inner_text("#log") == plain.inner_text("#log")
    assert "nonsense" not in garbled.inner_text("#log")
    assert garbled.locator("#log li:not(.event)").count() == version(garbled) > 0
    assert plain.errors == garbled.errors == [] and plain.console_errors == garbled.console_errors == []
    for p in (plain, garbled):
        p.context.close()


def test_a_full_game_on_a_phone_sized_window(server: str, browser: Any) -> None:
    """390x844: every click of a whole game reaches its target, in German at the end, and
    nothing goes wrong in the console."""
    g = create_game(server, [{"name": "Ann", "kind": "person"}] + BOTS4[1:])
    page = new_page(browser, 390, 844)
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_selector("[data-site=paris]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390  # no sideways scrolling
    # the map is enlarged on request and panned inside its frame; the game is played so
    page.get_by_role("button", name="Enlarge map").click()
    assert page.evaluate("(w => w.scrollWidth > 1.5 * w.clientWidth)(document.getElementById('mapwrap'))")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    rng = random.Random(11)
    decisions = 0
    # on a phone the intermediate scoring is a sheet over the hand: read, then closed, also
    # when it opens in the middle of a turn (Playwright closes it before its next action)
    page.add_locator_handler(page.locator("#scoring-overlay"), lambda _o: page.locator("#sc-close").click())
    while wait_turn(page):
        take_turn(page, rng)
        decisions += 1
        assert decisions < 400
    page.wait_for_selector("#standings")
    choose_lang(page, "de")
    whole = page.get_by_role("button", name="Ganze Karte")
    if whole.count():  # still enlarged (the map is made whole on this player's turn after the others' turns)
        whole.click()
    assert page.evaluate("(w => w.scrollWidth <= w.clientWidth + 1)(document.getElementById('mapwrap'))")
    assert page.inner_text("#rules-info") == "Regeln: wie im Regelheft"
    assert page.locator("#log [data-event=final]").count() == 1 and "Spielende" in page.inner_text("#log [data-event=final]")
    assert page.evaluate("document.documentElement.scrollWidth") <= 390
    choose_lang(page, "en")
    assert page.errors == [] and page.console_errors == []
    page.context.close()
