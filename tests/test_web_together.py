"""Online together, in Chromium: two people chat; one closes the tab, a bot takes over after
the (shortened) away time, the person comes back and plays on; the turn is signalled;
"My games" lists the games this browser holds a seat in; a stranger in the lobby cannot
take an invited seat; the lobby explains its bot levels and the table options.
"""

from __future__ import annotations

import random
from typing import Any

from playwright.sync_api import expect
from webtools import create_game, get, http_post, new_page, open_settings, shot, stray_words, take_turn, wait_turn


def open_seat(browser: Any, url: str) -> Any:
    page = new_page(browser, 1280, 900)
    page.goto(url)  # a full address
    page.wait_for_selector("#chat-text")
    return page


def chat_texts(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#chatbox .chat-lines li").all_inner_texts()]


def test_two_people_chat_one_leaves_a_bot_stands_in_and_they_come_back(server: str, browser: Any) -> None:
    rng = random.Random(12)
    g = create_game(
        server,
        [{"name": "Anna", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Robo", "kind": "bot", "level": "random"}],
        away=1,
        standin="greedy",
    )
    anna = open_seat(browser, server + g["seats"][0]["url"])
    ben = open_seat(browser, server + g["seats"][1]["url"])
    for p in (anna, ben):  # the game starts when both have come
        p.wait_for_selector("body[data-status=running]", state="attached")
    # they talk; what is said is shown as text (never as markup)
    anna.fill("#chat-text", "Hello Ben <b>good luck</b>")
    anna.press("#chat-text", "Enter")
    ben.wait_for_function("[...document.querySelectorAll('#chatbox .chat-lines li')].some(li => li.textContent.includes('good luck'))")
    assert "Anna: Hello Ben <b>good luck</b>" in chat_texts(ben)
    assert ben.locator("#chatbox .chat-lines b").count() == 0
    ben.fill("#chat-text", "Thanks, Anna!")
    ben.click("#chat-send")
    anna.wait_for_function("document.querySelector('#chatbox .chat-lines').textContent.includes('Thanks, Anna!')")
    assert "Here now: Anna, Ben." in anna.inner_text("#chatbox .chat-here")
    shot(anna, "together-chat")
    # Ben closes his tab (his browser keeps his seat); Anna plays on, and after a second
    # away on his turn a bot plays for him; the table is told
    context = ben.context
    ben.close()
    anna.wait_for_function("document.querySelector('#chatbox .chat-here').textContent.includes('Here now: Anna.')")
    while not anna.locator("#chatbox .chat-notice").count():
        if anna.evaluate("document.body.dataset.myTurn") == "true":
            take_turn(anna, rng)
        else:
            anna.wait_for_timeout(100)
    notice = anna.inner_text("#chatbox .chat-notice")
    assert "Ben is not at the table; a bot (greedy) plays for them meanwhile." in notice
    assert "A bot plays for Ben." in anna.inner_text("#chatbox .chat-here")
    # the game log says so too, and marks the moves the bot makes for him
    anna.wait_for_selector("#log [data-event=away]", state="attached")
    assert "Ben is not at the table: a bot (greedy) plays for them." in anna.inner_text("#log [data-event=away]")
    version = anna.evaluate("Number(document.body.dataset.version)")
    history = get(server, f"/api/games/{g['id']}/state")["view"]["history"]
    anna_turns = 0
    while not any(d["action"]["seat"] == 1 for d in get(server, f"/api/games/{g['id']}/state")["view"]["history"][len(history) :]):
        assert wait_turn(anna), "the game ended before the stand-in moved"
        take_turn(anna, rng)
        anna_turns += 1
        assert anna_turns < 40, "the stand-in never moved for Ben"
    anna.wait_for_selector("#log [data-standin=true]", state="attached")
    assert "(a bot for Ben)" in anna.inner_text("#log [data-standin=true] >> nth=0")
    shot(anna, "together-standin")
    # Ben's My games (his browser holds the seat) tells him a bot plays for him, and how to come back
    mine = new_page_in(context)
    mine.goto(f"{server}/mine")
    expect(mine.locator(f"[data-game='{g['id']}'] .mine-standin")).to_have_text("a bot plays for you: open your seat to play again")
    mine.close()
    # Ben comes back (the game's address; his seat's token is in his browser) and plays on
    ben = new_page_in(context)
    ben.goto(f"{server}/game/{g['id']}")
    ben.wait_for_selector("#chat-text")
    anna.wait_for_function("[...document.querySelectorAll('#chatbox .chat-notice')].some(li => li.textContent.includes('Ben is back'))")
    # his own page says it to him in the first person (the chat and the log, read again as it opened)
    ben.wait_for_function("[...document.querySelectorAll('#chatbox .chat-notice')].some(li => li.textContent.includes('You are back'))")
    assert "You are back and play again." in chat_texts(ben)
    assert "You were not at the table; a bot (greedy) plays for you until you are back." in chat_texts(ben)
    assert "Ben has" not in " ".join(chat_texts(ben)) and "Ben is back" not in " ".join(chat_texts(ben))
    assert ben.inner_text("#log [data-event=away]") == "You were not at the table: a bot (greedy) plays for you."
    # his turn comes: the tab says so, and he plays it himself (nobody stands in while he is here)
    while True:
        if ben.evaluate("document.body.dataset.myTurn") == "true":
            break
        if anna.evaluate("document.body.dataset.myTurn") == "true":
            take_turn(anna, rng)
        else:
            anna.wait_for_timeout(100)
    assert ben.title().startswith("▶ Your turn")
    assert ben.evaluate("document.querySelector('link[rel=icon]').getAttribute('href')") == "/static/favicon-turn.svg"
    assert anna.title() == "Kardinal & König"
    ben.wait_for_timeout(1500)  # longer than the away time: the turn is still his
    assert ben.evaluate("document.body.dataset.myTurn") == "true"
    take_turn(ben, rng)
    assert anna.evaluate("Number(document.body.dataset.version)") > version
    # "My games" in Ben's browser: this game, and whose turn it is
    mine = new_page_in(context)
    mine.goto(f"{server}/mine")
    mine.wait_for_selector(f"[data-game='{g['id']}']")
    row = mine.inner_text(f"[data-game='{g['id']}']")
    assert "Ben (you)" in row and "Anna" in row
    shot(mine, "together-my-games")
    assert not anna.errors and not ben.errors and not mine.errors
    # a browser that holds no seat: "My games" says so, and nothing else
    stranger = new_page(browser)
    stranger.goto(f"{server}/mine")
    stranger.wait_for_selector("#mine-none")
    assert stranger.locator("#mine-count").count() == 0 and stray_words(stranger, "#mine") == set()
    stranger.context.close()
    # the chat is stored with the game, and each line with the moment it was said
    lines = get(server, f"/api/games/{g['id']}/chat")["lines"]
    assert [(x["kind"], x["name"]) for x in lines][:2] == [("say", "Anna"), ("say", "Ben")]
    assert {"away", "back"} <= {x["kind"] for x in lines}


def new_page_in(context: Any) -> Any:
    page = context.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    return page


def test_a_stranger_in_the_lobby_cannot_take_an_invited_seat(server: str, browser: Any) -> None:
    g = create_game(
        server,
        [{"name": "Host", "kind": "person"}, {"name": "Friend", "kind": "person"}, {"name": "Anyone", "kind": "person", "open": True}],
    )
    page = new_page(browser)
    page.goto(server + "/")
    page.wait_for_selector(f"[data-game='{g['id']}']")
    row = page.locator(f"[data-game='{g['id']}']")
    assert row.locator("[data-claim]").count() == 1  # only the seat opened to anyone
    assert row.locator(f"[data-claim='{g['id']}:2']").count() == 1
    assert row.locator(f"[data-claim='{g['id']}:1']").count() == 0
    # the seats not open to anyone are "reserved" (for whoever holds their links: the creator's
    # too, which "[invited]" called them), the open one "free"
    assert "Host [reserved], Friend [reserved], Anyone [free]" in row.inner_text()
    # and the server refuses it to a stranger who asks without the page
    r = http_post(f"{server}/api/games/{g['id']}/claim", json={"seat": 1, "name": "Mallory"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "seat_invited"
    assert get(server, f"/api/games/{g['id']}")["players"][1]["joined"] is False
    # a game made private is not listed at all
    hidden = create_game(server, [{"name": "Host", "kind": "person"}, {"name": "Friend", "kind": "person"}, {"kind": "bot"}], public=False)
    page.reload()
    page.wait_for_selector(f"[data-game='{g['id']}']")
    assert page.locator(f"[data-game='{hidden['id']}']").count() == 0


def test_the_lobby_orders_and_explains_the_bot_levels_and_creates_a_turn_based_table(server: str, browser: Any) -> None:
    levels = get(server, "/api/bots")
    page = new_page(browser)
    open_settings(page, server)
    options = page.locator("#level-1 option")
    assert [options.nth(i).get_attribute("value") for i in range(options.count())] == levels["levels"]
    assert levels["levels"].index("random") < levels["levels"].index("greedy") < levels["levels"].index("hard")
    # a level in words: how strong, how long it thinks; how it plays and its record behind "Details"
    assert (
        options.nth(levels["levels"].index("hard")).inner_text() == f"Strong – thinks up to {levels['about']['hard']['seconds']} s a move"
    )
    page.select_option("#level-1", "hard")
    about = page.locator("#level-about-1")
    assert about.inner_text().startswith("Strong: A challenge") and "ISMCTS" not in about.inner_text()
    about.locator("summary").click()
    details = about.inner_text()
    assert "How it plays: Searches the game tree" in details
    assert "won 68% of 200 four-player games against three bots of the level “Greedy” (95% interval 62–74%" in details
    assert page.locator("#level-0").count() == 0  # a person has no level
    # the table: turn-based (no stand-in then), spectators may talk
    page.check("#mode-turn")
    assert page.locator("#away").count() == 0
    page.check("#spectator-chat")
    page.select_option("#kind-2", "person")
    page.select_option("#kind-3", "bot")
    page.click("#create-btn")
    page.wait_for_selector("[data-seat-link]")
    link = page.locator("[data-seat-link='0']").get_attribute("href")
    gid = link.split("/game/")[1].split("?")[0]
    table = get(server, f"/api/games/{gid}/state")["table"]
    assert table["mode"] == "turn" and table["spectator_chat"] is True and table["hints"] is False
    shot(page, "lobby-levels")
    assert not page.errors
