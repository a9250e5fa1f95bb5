"""A spectator's page follows "Play again" in place (issue 45): its next-game control goes on
to watch the new game over the page's own WebSocket (no page load, no second connection), at
the new game's address, with nothing of the game before kept; the people's moves there then
show; after a drop it connects again to the new game. On a desktop in English and on a phone
in German."""

from __future__ import annotations

import json
import random
from collections.abc import Iterator
from typing import Any

import httpx
import pytest
from playwright.sync_api import expect
from web_helpers import create, join_all, play_out, tokens, wait_for_person
from websockets.sync.client import connect
from webtools import new_page, phone, shot

pytestmark = pytest.mark.browser

OLD_LINE = "good game, everyone"


@pytest.fixture(scope="module")
def client(server: str) -> Iterator[httpx.Client]:
    """The people's HTTP client of the live server (web_helpers' create, join_all, play_out)."""
    with httpx.Client(base_url=server, timeout=120) as c:
        yield c


def say(server: str, gid: str, seat: int, token: str, text: str) -> None:
    """A person says something in a game's chat (over its WebSocket, as a page does)."""
    with connect(server.replace("http", "ws", 1) + f"/ws/{gid}") as ws:
        ws.send(json.dumps({"type": "hello", "seats": {str(seat): token}}))
        ws.send(json.dumps({"type": "chat", "id": "chat-1", "text": text}))
        while (m := json.loads(ws.recv()))["type"] != "chat" or not any(x["text"] == text for x in m["lines"]):
            assert m["type"] != "error", m


def play_again(client: httpx.Client, gid: str, toks: dict[int, str]) -> tuple[str, dict[int, str]]:
    """Every person of a finished game asks for Play again and joins the new game at their
    seat there: its id and the people's tokens by their new seats."""
    new, where = "", {}
    for seat, tok in toks.items():
        r = client.post(f"/api/games/{gid}/again", json={"seats": {str(seat): tok}})
        assert r.status_code == 200, r.text
        new, where[int(r.json()["seats"][str(seat)])] = r.json()["id"], tok
    for seat, tok in where.items():
        assert client.post(f"/api/games/{new}/join", json={"seat": seat, "token": tok}).status_code == 200
    return new, where


def watch_and_follow(page: Any, server: str, client: httpx.Client, name: str, words: tuple[str, str]) -> tuple[list[Any], dict[int, str]]:
    """A spectator's page of a finished game follows its people to the next one; ``words``:
    what its final table then says, and its button. Returns the page's sockets (routed
    through, to be dropped) and the people's tokens in the new game."""
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    routes: list[Any] = []

    def route(ws: Any) -> None:
        routes.append(ws)
        ws.connect_to_server()

    page.route_web_socket("**/ws/*", route)
    g = create(client, "person", "bot", "person")
    gid, toks = g["id"], tokens(g)
    join_all(client, g)
    play_out(client, gid, toks, random.Random(7))
    say(server, gid, 0, toks[0], OLD_LINE)
    page.goto(f"{server}/game/{gid}")
    expect(page.locator("body")).to_have_attribute("data-status", "finished")
    expect(page.locator("#final-table")).to_be_visible()
    expect(page.locator("#chatbox")).to_contain_text(OLD_LINE)
    # the people play again: the spectator's page offers the next game
    new, where = play_again(client, gid, toks)
    expect(page.locator("#final-again")).to_have_text(words[1])
    expect(page.locator("#finalbox .fin-ready")).to_have_text(words[0])  # (not "waiting for you": it watches)
    page.locator("#finalbox").scroll_into_view_if_needed()
    shot(page, f"follow-{name}-final")
    page.click("#final-again")
    page.wait_for_url(f"**/game/{new}")
    # the new game, as a page opened on it shows it: its players in their new seats, its
    # history, no final table, none of the old game's chat
    expect(page.locator("body")).to_have_attribute("data-status", "running")
    info = client.get(f"/api/games/{new}").json()
    for seat, p in enumerate(info["players"]):
        expect(page.locator(f"#players tr[data-seat='{seat}']")).to_contain_text(p["name"])
    expect(page.locator("#finalbox")).to_be_hidden()
    expect(page.locator("#final-table")).to_have_count(0)
    expect(page.locator("#scoring-overlay")).to_have_count(0)
    expect(page.locator("#chatbox")).not_to_contain_text(OLD_LINE)
    # the people's moves in the new game come to the page
    play_out(client, new, where, random.Random(8), limit=2)
    version = client.get(f"/api/games/{new}/state").json()["version"]
    assert version >= 2
    page.wait_for_function("(v) => Number(document.body.dataset.version) >= v", arg=version)
    expect(page.locator("#log li")).not_to_have_count(0)
    assert len(sockets) == 1, sockets  # followed over the page's own socket: no second one
    shot(page, f"follow-{name}")
    assert page.errors == []
    return routes, where


def bots_only_game_followed(page: Any, server: str, client: httpx.Client) -> None:
    """A watcher of a game of bots only starts its next game (Play again) and follows to it
    over the same socket."""
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))
    g = create(client, "bot", "bot", "bot")
    gid = g["id"]
    wait_for_person(client, gid, {})  # (over: the page shows its result, no walk-through opens by itself)
    page.goto(f"{server}/game/{gid}")
    expect(page.locator("#final-again")).to_be_visible()
    page.click("#final-again")
    page.wait_for_url(lambda u: "/game/" in u and gid not in u)
    new = page.url.rsplit("/", 1)[1]
    assert client.get(f"/api/games/{gid}/state").json()["again"] == new
    # the new game's page: its record once it is over, the old one's no more
    expect(page.locator(f"#download[href$='/api/games/{new}/record']")).to_be_visible()
    assert len(sockets) == 1, sockets
    assert page.errors == []
    page.context.close()


def test_a_spectator_follows_play_again_in_place(server: str, browser: Any, client: httpx.Client) -> None:
    """Desktop, English; then a phone in German. Back to the old game's address: its page.
    A game of bots only: its watcher's Play again follows too."""
    desk = new_page(browser)
    routes, where = watch_and_follow(
        desk, server, client, "desktop-en", ("The same players have started a new game.", "Watch the new game")
    )
    new = desk.url.rsplit("/", 1)[1]
    # the connection drops: the page connects again to the game it follows now, and its moves come
    with desk.expect_websocket() as again:
        routes[0].close()
    assert again.value.url.endswith(f"/ws/{new}")
    play_out(client, new, where, random.Random(9), limit=1)
    version = client.get(f"/api/games/{new}/state").json()["version"]
    desk.wait_for_function("(v) => Number(document.body.dataset.version) >= v", arg=version)
    desk.go_back()
    expect(desk.locator("body")).to_have_attribute("data-status", "finished")
    assert new not in desk.url
    expect(desk.locator("#final-table")).to_be_visible()
    desk.context.close()
    bots_only_game_followed(new_page(browser), server, client)
    de = phone(browser, "de-DE")
    watch_and_follow(de, server, client, "phone-de", ("Dieselben Spieler haben ein neues Spiel begonnen.", "Das neue Spiel ansehen"))
    assert de.evaluate("document.documentElement.lang") == "de"
    de.context.close()
