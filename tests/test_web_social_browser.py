"""Profiles, following and invitations by name in the browser: a profile with numbers, a
rating and its chart on a desktop in English and a phone in German, and the finished games'
scores in the player's own "My games"; A invites B by name
from "Play with friends", B (signed in on another browser context, a phone in German) sees
the invitation in "My games" and takes the seat; A follows B from B's profile."""

from __future__ import annotations

import threading
import time
from collections.abc import Iterator
from typing import Any

import pytest
from playwright.sync_api import expect
from sqlalchemy import insert, update
from test_web_axe import axe_scan, serious
from webtools import choose_lang, new_page, open_settings, page_api, phone, shot, stray_words
from webtools import sign_up_on_page as sign_up

from kardinal.server.storage import SeatResult
from kardinal.server.storage.schema import games, rating_events, ratings

pytestmark = pytest.mark.browser

PW = "correct horse battery"
DAY = 86400.0


@pytest.fixture(scope="module")
def live(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """A live server and its app (to put finished games and a rating in its database)."""
    import uvicorn
    from web_helpers import LENIENT
    from webtools import _free_port

    from kardinal.server.common.guard import Guard
    from kardinal.server.web.app import create_app

    app = create_app(data_dir=tmp_path_factory.mktemp("social"), bot_pause=0.0, guard=Guard(LENIENT))
    port = _free_port()
    srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
    t = threading.Thread(target=srv.run, daemon=True)
    t.start()
    end = time.monotonic() + 20
    while not srv.started:
        assert time.monotonic() < end, "the server did not start"
        time.sleep(0.02)
    yield f"http://127.0.0.1:{port}", app
    srv.should_exit = True
    t.join(10)


def no_overflow(page: Any) -> None:
    width = page.evaluate("document.scrollingElement.scrollWidth")
    assert width <= 390, f"the page is {width} px wide on a 390 px phone"


def played(app: Any, page: Any, name: str) -> list[str]:
    """Three finished games of the signed-in account ``name`` (3, 3 and 4 players) and five
    rated games' history, put in the database as the game's end and the ratings store them."""
    storage = app.state.service.storage
    aid = storage.account_named(name.lower()).id
    out = []
    t0 = 1_750_000_000.0
    for k, (n, mine) in enumerate([(3, (1.0, 61, 1.0)), (3, (2.0, 44, 0.0)), (4, (1.5, 52, 0.5))]):
        players = [{"name": name, "kind": "person"}] + [{"kind": "bot", "level": "random", "name": f"Bot {i}"} for i in range(1, n)]
        made = page_api(page, "POST", "/api/games", {"players": players})
        assert made["status"] == 200, made
        gid = made["json"]["id"]
        assert page_api(page, "POST", f"/api/games/{gid}/join", {"seat": 0, "token": made["json"]["seats"][0]["token"]})["status"] == 200
        with storage.engine.begin() as conn:
            conn.execute(update(games).where(games.c.id == gid).values(status="finished", updated=t0 + k * DAY))
        found = [SeatResult(0, n, mine[0], mine[1], mine[2])] + [SeatResult(s, n, float(s + 1), 30 - s, 0.0) for s in range(1, n)]
        storage.save_results(gid, found, True, t0 + k * DAY)
        app.state.service.live.pop(gid, None)
        out.append(gid)
    history = [(1500.0, 350.0), (1580.4, 290.2), (1545.0, 240.0), (1630.6, 200.1), (1612.2, 170.3)]  # the ratings' scale
    with storage.engine.begin() as conn:
        conn.execute(insert(ratings).values(account_id=aid, mu=1612.2, sigma=170.3, games=5, updated=t0 + 5 * DAY))
        conn.execute(
            insert(rating_events),
            [
                {"account_id": aid, "game_id": f"r{i}", "at": t0 + i * DAY, "mu": mu, "sigma": sg, "before": mu - 1}
                for i, (mu, sg) in enumerate(history)
            ],
        )
    return out


def test_a_profile_on_a_desktop_in_english_and_a_phone_in_german(live: tuple[str, Any], browser: Any) -> None:
    base, app = live
    page = new_page(browser)
    sign_up(page, base, "Clara")
    gids = played(app, page, "Clara")
    # her My games: a finished game of her account's offers no "Forget" (the fourth walk:
    # pressed, it did nothing; the account's list keeps it)
    page.goto(base + "/mine")
    row = page.locator(f'li[data-game="{gids[0]}"]')
    expect(row).to_contain_text("61")
    assert row.locator("[data-forget]").count() == 0
    visitor = new_page(browser)  # a guest
    visitor.goto(base + "/player/clara")
    visitor.wait_for_selector("#rating-chart svg")
    assert visitor.inner_text("#profile-name") == "Clara"
    assert visitor.inner_text("#rating-value").startswith("1,612 ± 341")
    assert visitor.inner_text("#stats-total") == "3 finished games · 1.5 wins"
    assert visitor.locator("#stats-table tbody tr").count() == 2
    assert visitor.inner_text('#stats-table tr[data-players="3"]').split("\t") == ["3", "2", "1", "52.5", "1.5"]
    svg = visitor.locator("#rating-chart svg")
    assert svg.get_attribute("role") == "img"
    assert visitor.locator("#rating-chart-title").text_content() == "Clara's rating over time"
    desc = visitor.locator("#rating-chart-desc").text_content()
    assert "5 rated games" in desc and "lowest 1,500" in desc and "highest 1,631" in desc
    assert visitor.locator("#rating-chart table.chart-table tbody tr").count() == 5
    hrefs = visitor.eval_on_selector_all("#last-games a", "(xs) => xs.map((a) => a.getAttribute('href'))")
    assert hrefs == [f"/game/{g}" for g in reversed(gids)]  # replays, newest first, never a seat's link
    assert "token" not in visitor.content()
    assert visitor.inner_text("#follow-sign-in") == "Sign in to follow Clara."
    shot(visitor, "profile-desktop-en", full_page=True)
    visitor.locator("#rating-chart summary").click()
    shot(visitor, "profile-chart-table-desktop-en", full_page=True)
    assert serious(axe_scan(visitor, "profile")) == []
    assert stray_words(visitor, "main") == set()
    choose_lang(visitor, "de")  # German by the page's choice, on the desktop
    visitor.wait_for_function("document.getElementById('rating-title').textContent === 'Wertung'")
    assert visitor.inner_text("#stats-total") == "3 beendete Spiele · 1,5 Siege"
    # each count agrees with its own number (before: "1 Siege" beside three games)
    one = visitor.evaluate(
        """async () => { const { T } = await import('/static/i18n.js');
            return [T('statsTotal', { n: 1 }), T('statsTotalWins', { n: 1, w: '1' }), T('statsTotalWins', { n: 2, w: '2' })]; }"""
    )
    assert one == ["1 beendetes Spiel", "1 Sieg", "2 Siege"]
    assert visitor.locator("#rating-chart-title").text_content() == "Die Wertung von Clara im Lauf der Zeit"
    shot(visitor, "profile-desktop-de", full_page=True)

    mobile = phone(browser, "de-DE")
    mobile.goto(base + "/player/Clara")
    mobile.wait_for_selector("#rating-chart svg")
    assert mobile.locator("#rating-title").text_content() == "Wertung"
    assert mobile.inner_text("#rating-value").startswith("1.612 ± 341")
    assert mobile.inner_text("#stats-total") == "3 beendete Spiele · 1,5 Siege"
    assert mobile.inner_text('#stats-table tr[data-players="3"]').split("\t")[3] == "52,5"
    no_overflow(mobile)
    for sel in ("#last-games a", "#account-link", "#lang", "#rating-chart summary"):
        box = mobile.locator(sel).first.bounding_box()
        assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 390, (sel, box)
    chart = mobile.locator("#rating-chart svg").bounding_box()
    assert chart is not None and chart["width"] <= 390 and chart["height"] > 100
    shot(mobile, "profile-phone-de", full_page=True)
    assert stray_words(mobile, "main") == set()
    words = set(mobile.inner_text("main").replace("·", " ").split())
    assert not words & {"Rating", "Games", "place", "points", "Replay", "Follows", "Followers", "finished", "wins"}, words
    mobile.goto(base + "/player/Niemand")
    mobile.wait_for_selector("h1")
    assert mobile.inner_text("h1") == "Niemand heißt Niemand."
    own = page
    own.goto(base + "/player/Clara")
    own.wait_for_selector("#profile-you")
    assert own.locator("#follow-button").count() == 0  # not oneself
    # her My games: each finished game's scores after whose they are (from the stored results)
    own.goto(base + "/mine")
    first = own.locator(f'li[data-game="{gids[0]}"]')
    expect(first).to_contain_text("over — you 61 · Bot 1 29 · Bot 2 28")
    expect(own.locator(f'li[data-game="{gids[2]}"]')).to_contain_text("over — you 52 · Bot 1 29 · Bot 2 28 · Bot 3 27")
    assert "Clara" not in first.inner_text()  # the names once, with the scores
    shot(own, "mine-finished-scores-desktop-en")
    assert not (visitor.errors or mobile.errors or own.errors), (visitor.errors, mobile.errors, own.errors)
    for p in (visitor, mobile, own):
        p.context.close()


def test_a_invites_b_by_name_b_takes_the_seat_on_a_phone_a_follows_b(live: tuple[str, Any], browser: Any) -> None:
    base, _app = live
    anna = new_page(browser)
    sign_up(anna, base, "Anna")
    ben = phone(browser, "de-DE")
    sign_up(ben, base, "Ben")

    # Anna: Play with friends, one friend, invited by the account's name
    anna.goto(base + "/")
    anna.wait_for_function("document.getElementById('account-link').textContent === 'Anna'")
    anna.click("#play-friends")
    anna.click("label[for=friends-1]")
    anna.fill("#friend-account-0", "ben")
    # ... a turn-based table (the new-user walk: Play with friends made live games only)
    assert anna.inner_text("#friends-mode-why").startswith("Everyone sits at the table now")
    anna.click("label[for=friends-mode-turn]")
    assert anna.inner_text("#friends-mode-why").startswith("Each of you moves when you have time, within a day a turn")
    shot(anna, "invite-by-name-desktop-en")
    anna.click("#friends-create")
    anna.wait_for_selector(".kept-for")
    assert "kept for the account Ben" in anna.inner_text('li[data-invite="1"]')
    gid = anna.evaluate("Object.keys(localStorage).find((k) => k.startsWith('kardinal-seats:')).split(':')[1]")
    table = page_api(anna, "GET", f"/api/games/{gid}")["json"]["table"]
    assert (table["mode"], table["clock"]) == ("turn", {"days": 1}), table
    # Anna's seat is her account's from the start: My games lists it before she opens it
    assert [(g["game"]["id"], g["seats"]) for g in page_api(anna, "GET", "/api/account/games")["json"]["games"]] == [(gid, [0])]
    shot(anna, "invite-created-desktop-en")
    anna.goto(base + "/mine")
    anna.wait_for_selector(f'li[data-sent="{gid}:1"]')
    sent = anna.inner_text(f'li[data-sent="{gid}:1"]')
    # which table, and how it is played (the walk: two tables' invitations of Ben looked alike)
    assert "Ben is invited (seat 2, not taken yet) to the table of Anna" in sent and "turn-based" in sent, sent

    # Ben, on his phone in German: My games shows the invitation; he takes the seat
    ben.goto(base + "/mine")
    inv = ben.locator(f'li[data-invitation="{gid}:1"]')
    inv.wait_for()
    assert "Anna lädt dich an einen Tisch ein" in inv.inner_text()
    # ... and says how the table is played (the walk: an invitation did not say live or turn-based)
    assert inv.locator("[data-how]").inner_text() == "rundenbasiert" and inv.locator("[data-how]").get_attribute("data-how") == "turn"
    # a count of games none of which waits for one's move says so (the walk: "your turn in 0")
    counts = ben.evaluate(
        """async () => { const { T } = await import('/static/i18n.js');
            return [T('mineUpdatedNone', { n: 3, k: 0 }), T('mineUpdated', { n: 1, k: 1 })]; }"""
    )
    assert counts == ["3 Spiele · keins wartet auf deinen Zug", "1 Spiel · du bist dran in 1"]
    assert inv.locator("a.player-link").get_attribute("href") == "/player/Anna"
    no_overflow(ben)
    box = inv.locator("button[data-take]").bounding_box()
    assert box is not None and box["height"] >= 44
    shot(ben, "invitation-phone-de", full_page=True)
    assert serious(axe_scan(ben, "mine-invitation")) == []
    assert stray_words(ben, "main") == set()
    inv.locator("button[data-take]").click()
    ben.wait_for_url(f"**/game/{gid}")
    assert "token" not in ben.url
    assert list(ben.evaluate(f"JSON.parse(localStorage.getItem('kardinal-seats:{gid}'))")) == ["1"]
    ben.wait_for_function("document.body.dataset.myTurn !== undefined", timeout=30000)
    # the table waits for Anna, whose seat bots may not take: no "Start with bots" to be
    # refused (the walk), but why it waits
    expect(ben.locator("#fill-kept")).to_have_text(
        "Die freien Plätze sind für die erwarteten Mitspieler reserviert: Das Spiel beginnt, wenn sie kommen."
    )
    assert ben.locator("#fill-bots").count() == 0
    mine = page_api(ben, "GET", "/api/account/games")["json"]["games"]
    assert [(g["game"]["id"], g["seats"]) for g in mine] == [(gid, [1])]
    assert page_api(anna, "GET", "/api/account/invitations")["json"]["sent"] == []  # taken: no longer pending
    shot(ben, "invitation-taken-phone-de")
    # Anna's My games: the table waits for her alone (the new-user walk: "waiting for players")
    anna.goto(base + "/mine")
    anna.wait_for_function(
        f"(document.querySelector('li[data-game=\"{gid}\"]') || {{}}).innerText?.includes('Everyone else is here: open your seat to start')"
    )
    assert anna.get_attribute(f'li[data-game="{gid}"]', "data-state") == "my-turn"
    # Anna, signed in on a device that holds no link of the table (no "Open my seat"), opens
    # the game's plain address: her seat, not a spectator's view (the new-user walk)
    anna.evaluate("localStorage.clear(); sessionStorage.clear()")
    anna.goto(f"{base}/game/{gid}")
    anna.wait_for_function("document.querySelector('tr.me[data-seat=\"0\"]') !== null", timeout=30000)
    assert list(anna.evaluate(f"JSON.parse(localStorage.getItem('kardinal-seats:{gid}'))")) == ["0"] and "token" not in anna.url

    # Anna follows Ben from his profile; each sees it on the account page
    anna.goto(base + "/player/Ben")
    anna.wait_for_selector("#follow-button")
    assert anna.inner_text("#follow-button") == "Follow"
    anna.click("#follow-button")
    anna.wait_for_function("document.getElementById('follow-button').textContent === 'Stop following'")
    assert anna.get_attribute("#follow-button", "aria-pressed") == "true"
    shot(anna, "profile-following-desktop-en")
    anna.goto(base + "/account")
    anna.wait_for_selector("#following-list")
    assert anna.inner_text("#following-list").startswith("Ben")
    ben.goto(base + "/account")
    ben.wait_for_selector("#followers-list")
    assert ben.inner_text("#followers-list") == "Anna"
    assert ben.locator("#followers-title").text_content() == "Dir folgen"
    no_overflow(ben)
    shot(ben, "account-followers-phone-de", full_page=True)
    assert serious(axe_scan(ben, "account-followers")) == []

    # a table for friends only: Ben (whom Anna follows) sees it and joins; a stranger sees nothing
    players = [{"name": "Anna", "kind": "person"}, {"kind": "person", "open": True}, {"kind": "bot", "level": "random"}]
    made = page_api(anna, "POST", "/api/games", {"players": players, "friends": True})
    assert made["status"] == 200, made
    fid = made["json"]["id"]
    stranger = new_page(browser)
    stranger.goto(base + "/")
    stranger.wait_for_selector("#games h2")
    assert stranger.locator(f'li[data-game="{fid}"]').count() == 0
    assert page_api(stranger, "POST", f"/api/games/{fid}/claim", {"seat": 1})["json"]["error"]["code"] == "friends_only"
    ben.goto(base + "/")
    row = ben.locator(f'li[data-game="{fid}"]')
    row.wait_for()
    assert "nur Freunde" in row.inner_text()
    no_overflow(ben)
    row.scroll_into_view_if_needed()
    shot(ben, "friends-only-lobby-phone-de")
    row.locator("button[data-claim]").click()  # (signed in: joined at once, under the account's name)
    ben.wait_for_url(f"**/game/{fid}*")

    # the full table settings: a person seat kept for an account by name, friends only
    open_settings(anna, base)
    anna.select_option("#kind-1", "person")
    anna.fill("#account-1", "Ben")
    anna.check("#friends-only")
    anna.locator("#account-1").scroll_into_view_if_needed()
    shot(anna, "table-settings-invite-desktop-en")
    anna.click("#create-btn")
    anna.wait_for_function("document.getElementById('created').textContent !== ''")
    assert anna.locator(".kept-for").count() == 1, anna.inner_text("#created")
    assert "kept for the account Ben" in anna.inner_text('li[data-invite="1"]')
    got = page_api(ben, "GET", "/api/account/invitations")["json"]["received"]
    assert [(i["by"], i["game"]["table"]["friends"]) for i in got] == [("Anna", True)]
    # Anna thinks better of it: My games withdraws the invitation; Ben's is gone
    sid = got[0]["game"]["id"]
    anna.goto(base + "/mine")
    withdraw = anna.locator(f'button[data-withdraw="{sid}:1"]')
    assert withdraw.get_attribute("aria-label") == "Withdraw the invitation of Ben (seat 2)"
    withdraw.click()
    anna.wait_for_selector(f'li[data-sent="{sid}:1"]', state="detached")
    assert page_api(ben, "GET", "/api/account/invitations")["json"]["received"] == []
    assert not anna.errors and not ben.errors and not stranger.errors, (anna.errors, ben.errors, stranger.errors)
    for p in (anna, ben, stranger):
        p.context.close()


def play_out_over_http(base: str, gid: str, toks: dict[int, str], seed: int) -> None:
    """The people's random moves over HTTP (the bots play on the server) to the game's end."""
    import random

    from webtools import http_get, http_post

    rng = random.Random(seed)
    end = time.monotonic() + 300
    while time.monotonic() < end:
        spec = http_get(f"{base}/api/games/{gid}/state").json()
        if spec["status"] == "finished":
            return
        cur = spec["view"]["current"]
        msg = http_get(f"{base}/api/games/{gid}/state", params={"seat": cur, "token": toks[cur]}).json() if cur in toks else {}
        if "legal" not in msg:
            time.sleep(0.01)
            continue
        body = {"seat": cur, "token": toks[cur], "version": msg["version"], "action": rng.choice(msg["legal"])}
        assert http_post(f"{base}/api/games/{gid}/actions", json=body).status_code in (200, 409)
    raise AssertionError("the game did not end")


def test_play_again_keeps_the_peoples_seats_a_while_then_a_bot_may_take_one_and_its_person_is_told(
    live: tuple[str, Any], browser: Any
) -> None:
    """The fourth new-user walk: Alice pressed Play again, then "Start with bots" three seconds
    later, and a bot took Bruno's seat while he was still on the old game's page; following
    there he was a spectator without a word why. Now the people of the game before keep
    their seats a while (a live table's "away" time), the page says until when; after it, a
    bot may take a seat, and its person, following, is told why they watch."""
    from webtools import create_game, http_get, http_post

    base, app = live
    g = create_game(base, [{"name": "Alice", "kind": "person"}, {"name": "Bruno", "kind": "person"}, {"kind": "bot", "level": "random"}])
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    for seat, tok in toks.items():
        assert http_post(f"{base}/api/games/{g['id']}/join", json={"seat": seat, "token": tok}).status_code == 200
    play_out_over_http(base, g["id"], toks, 3)
    r = http_post(f"{base}/api/games/{g['id']}/again", json={"seats": {"0": toks[0]}})
    assert r.status_code == 200, r.text
    new, alice_seat = r.json()["id"], r.json()["seats"]["0"]
    alice = new_page(browser)
    alice.goto(f"{base}/game/{new}?tokens={alice_seat}:{toks[0]}")
    expect(alice.locator("#fill-later")).to_contain_text("The players of the last game may come until ")
    assert alice.locator("#fill-bots").count() == 0
    shot(alice, "again-fill-later-desktop-en")
    app.state.service.live[new].row.created -= 200  # (as if the 3 minutes had passed)
    alice.reload()
    alice.click("#fill-bots")
    alice.wait_for_selector("body[data-status=running]", state="attached")
    # Bruno follows from the old game's final table: his seat went to a bot, and he is told so
    r = http_post(f"{base}/api/games/{g['id']}/again", json={"seats": {"1": toks[1]}})
    assert r.status_code == 200 and r.json()["id"] == new and r.json()["seats"] == {} and r.json()["gone"] == [1]
    bruno = new_page(browser)
    bruno.goto(f"{base}/game/{g['id']}?seat=1&token={toks[1]}")
    bruno.click("#final-again")
    bruno.wait_for_url(f"**/game/{new}")
    expect(bruno.locator("#msg.bad")).to_have_text("A bot plays this seat: the table was started without you, so you watch.")
    expect(bruno.locator("body")).to_have_attribute("data-auth", "bot")
    shot(bruno, "again-bot-seat-desktop-en")
    assert "null" not in bruno.inner_text("#chatbox") and bruno.locator("#chat-public").count() == 0  # a spectator's chat
    # ... and his old seat's token, sent to the new game's seat, is told the same by the server
    err = http_get(f"{base}/api/games/{new}/state", params={"seat": 0, "token": toks[1]}).json()["error"]
    assert err["code"] == "bot_seat"
    assert not alice.errors and not bruno.errors, (alice.errors, bruno.errors)
    alice.context.close()
    bruno.context.close()


def test_a_refused_join_is_said_in_its_row_and_a_seat_a_bot_took_is_said_in_my_games(live: tuple[str, Any], browser: Any) -> None:
    """The fifth new-user walk: the lobby's Join, refused (a block between the two), showed
    nothing; and My games listed a game whose seat a bot had taken as "Bot 2 (you)"."""
    base, _app = live
    alice, bruno = new_page(browser), new_page(browser)
    sign_up(alice, base, "Alicia")
    sign_up(bruno, base, "Brunold")
    assert page_api(alice, "POST", "/api/moderation/block", {"name": "Brunold"})["status"] == 200
    players = [{"kind": "person"}, {"kind": "person", "open": True}, {"kind": "bot", "level": "random"}]
    made = page_api(alice, "POST", "/api/games", {"players": players})["json"]
    bruno.goto(base + "/")
    bruno.locator(f'#games li[data-game="{made["id"]}"] button[data-claim]').click()
    note = bruno.locator(f'#games li[data-game="{made["id"]}"] .claim-refused')
    expect(note).to_have_text("A block is between you and someone at this table: take a seat at another table.")
    assert note.get_attribute("role") == "alert"
    # a game whose seat this browser held is a bot's now: not "(you)", but why
    g = page_api(
        alice,
        "POST",
        "/api/games",
        {"players": [{"kind": "person"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}]},
    )
    gid, tok = g["json"]["id"], g["json"]["seats"][0]["token"]
    assert page_api(alice, "POST", f"/api/games/{gid}/join", {"seat": 0, "token": tok})["status"] == 200
    bruno.evaluate(f"localStorage.setItem('kardinal-seats:{gid}', JSON.stringify({{'1': 'x'.repeat(24)}}))")  # (as a claim left it)
    bruno.goto(base + "/mine")
    row = bruno.locator(f'li[data-game="{gid}"]')
    expect(row.locator(".mine-lost")).to_have_text("begun without you: a bot plays the seat you had")
    assert "(you)" not in row.inner_text()
    assert not bruno.errors, bruno.errors
    alice.context.close()
    bruno.context.close()
