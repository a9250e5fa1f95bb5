""" "My games" of an account (``GET /api/account/games``) says what a game is at however long
ago it was last looked at: whose turn it is and when that turn runs out (the deadline,
Unix time, for the page to say the time left), and a finished game's scores, also once the
game has left the server's memory (Presence.sweep: a finished one a minute after it was
last asked for, a running one an hour after)."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import text
from test_web_accounts import get, post, sign_up
from test_web_clocks import FakeTime, call, client_for, service
from web_helpers import act, play_out, seats, wait_for_person

from kardinal.server.play.clocks import seat_deadline

pytestmark = pytest.mark.usefixtures("cheap_hashes")

DAY = 86400


@pytest.fixture
def timed(tmp_path: Path, db_url: str) -> Iterator[tuple[TestClient, FakeTime]]:
    t = FakeTime()
    with client_for(tmp_path, db_url, t) as c:
        yield c, t


def listed(c: TestClient, secret: str, gid: str) -> dict[str, Any]:
    r = get(c, "/api/account/games", secret)
    assert r.status_code == 200, r.text
    game: dict[str, Any] = next(g["game"] for g in r.json()["games"] if g["game"]["id"] == gid)
    return game


def forget_all(c: TestClient) -> None:
    """The server forgets every game nobody is connected to (as it does after a while)."""
    svc = service(c)
    call(c, svc.clocks_stored)
    svc.sweep(now=time.monotonic() + 10 * DAY)
    assert not svc.live


def new_game(c: TestClient, secret: str, kinds: tuple[str, ...], **options: Any) -> tuple[str, dict[int, str]]:
    """A game created signed in; the account joins seat 0 (its token: the one the join
    gives, when the seat became the account's), the others join by their links."""
    r = post(c, "/api/games", secret, json={"players": seats(*kinds), "board": "standard", **options})
    assert r.status_code == 200, r.text
    game = r.json()
    toks = {s["seat"]: s["token"] for s in game["seats"]}
    for seat, tok in list(toks.items()):
        r = post(c, f"/api/games/{game['id']}/join", secret if seat == 0 else None, json={"seat": seat, "token": tok})
        assert r.status_code == 200, r.text
        toks[seat] = r.json().get("token") or tok
    return game["id"], toks


def test_my_games_says_when_the_turn_runs_out_also_for_a_game_out_of_memory(timed: tuple[TestClient, FakeTime]) -> None:
    c, t = timed
    anna = sign_up(c, "Anna")
    gid, _ = new_game(c, anna, ("person", "person", "bot"), mode="turn", clock={"days": 2})
    start = t()
    game = listed(c, anna, gid)
    current = game["current"]
    assert current in (0, 1)
    assert game["deadline"] == pytest.approx(start + 2 * DAY)  # absolute: the page says the time left
    # the one function the mail uses too, on the game in memory
    live = service(c).live[gid]
    assert seat_deadline(live, current) == game["deadline"]
    assert seat_deadline(live, 1 - current) is None  # not that seat's turn: no time of its runs
    # a day later, the game long out of memory: the same deadline, read back with the game
    t.advance(DAY)
    forget_all(c)
    again = listed(c, anna, gid)
    assert again["current"] == current and again["deadline"] == pytest.approx(start + 2 * DAY)
    # the lobby's summary of the game (a guest's "My games" reads it) says it too
    assert get(c, f"/api/games/{gid}").json()["deadline"] == pytest.approx(start + 2 * DAY)


def test_my_games_gives_no_deadline_without_a_clock(timed: tuple[TestClient, FakeTime]) -> None:
    c, _ = timed
    anna = sign_up(c, "Anna")
    gid, _ = new_game(c, anna, ("person", "person", "bot"), mode="turn")
    game = listed(c, anna, gid)
    assert "current" in game and "deadline" not in game


def test_my_games_keeps_a_finished_games_scores_after_it_left_memory(timed: tuple[TestClient, FakeTime]) -> None:
    c, _ = timed
    anna = sign_up(c, "Anna")
    gid, toks = new_game(c, anna, ("person", "bot", "bot"))
    end = play_out(c, gid, {0: toks[0]}, random.Random(4))
    assert end["status"] == "finished"
    scores, winners = end["view"]["scores"], end["view"]["winners"]
    assert listed(c, anna, gid)["scores"] == scores
    forget_all(c)  # a minute later nobody looked at it: the server forgot it
    game = listed(c, anna, gid)
    assert game["status"] == "finished"
    assert game["scores"] == scores and game["winners"] == winners
    assert gid not in service(c).live  # read from the stored results, not by replaying the game into memory


def play_until_seat(c: TestClient, gid: str, toks: dict[int, str], seat: int, rng: random.Random) -> dict[str, Any]:
    """Random moves of the people (bots play on the server) until ``seat``'s turn begins."""
    msg = wait_for_person(c, gid, toks)
    while msg["seat"] != seat or msg["version"] == 0:
        r = act(c, gid, msg["seat"], toks[msg["seat"]], msg["version"], rng.choice(msg["legal"]), cid=f"c{msg['version']}")
        assert r.status_code == 200, r.text
        msg = wait_for_person(c, gid, toks)
    return msg


def test_my_games_reads_whose_turn_without_reading_the_games_into_memory(timed: tuple[TestClient, FakeTime]) -> None:
    """Asked every 15 s, "My games" kept every game of the account in memory (and replayed
    each cold one at every look): whose turn it is and its deadline are read from the
    database, and a game out of memory stays out."""
    c, t = timed
    anna = sign_up(c, "Anna")
    svc = service(c)
    gid, toks = new_game(c, anna, ("person", "person", "bot"), mode="turn", clock={"days": 2})
    t.advance(3600)
    msg = play_until_seat(c, gid, toks, 1, random.Random(7))  # Ben's turn, begun an hour in
    in_memory = listed(c, anna, gid)
    assert in_memory["current"] == 1 and in_memory["deadline"] == pytest.approx(t() + 2 * DAY)
    forget_all(c)
    t.advance(DAY)
    game = listed(c, anna, gid)
    assert gid not in svc.live  # not read into memory
    assert game["current"] == 1 and game["deadline"] == pytest.approx(in_memory["deadline"])
    # as the game read back says (the function the mail and the game's page use)
    back = call(c, svc.fetch, gid)
    assert back.version == msg["version"] and seat_deadline(back, back.state.current) == pytest.approx(game["deadline"])
    # a game whose last move was stored before the seat to act was (migration 15): replayed
    # to tell, and not kept in memory either
    forget_all(c)
    with svc.storage.engine.begin() as conn:
        conn.execute(text("UPDATE games SET to_act = NULL WHERE id = :gid"), {"gid": gid})
    replayed = listed(c, anna, gid)
    assert replayed["current"] == 1 and replayed["deadline"] == pytest.approx(game["deadline"])
    assert gid not in svc.live


LIVE_CLOCK = {"move": 45, "reserve": 300, "increment": 5}


@pytest.mark.parametrize("away", [60, 3600])
def test_my_games_at_a_live_table_counts_down_to_the_bot_that_comes_first(timed: tuple[TestClient, FakeTime], away: int) -> None:
    """Issue 43's walk: My games counted down the live clock's 5 min 45 s while a person away
    from a live table gets a stand-in after the table's "away" seconds, often sooner. The
    deadline is when a bot really plays the seat: the sooner of the two."""
    c, t = timed
    anna = sign_up(c, "Anna")
    before = time.monotonic()
    gid, toks = new_game(c, anna, ("person", "person", "bot"), mode="live", clock=LIVE_CLOCK, away=away)
    start = t()  # (the fake clock of the live clock; nobody opened the game: both people are away)
    clock_runs_out = start + LIVE_CLOCK["move"] + LIVE_CLOCK["reserve"]
    game = listed(c, anna, gid)
    after = time.monotonic()
    assert game["current"] == 0
    if away >= LIVE_CLOCK["move"] + LIVE_CLOCK["reserve"]:
        assert game["deadline"] == pytest.approx(clock_runs_out)  # the clock comes first
        return
    # the stand-in: "away" seconds after the game was read into memory (between before and
    # after, on the monotonic clock), told on the clock's time to the second
    assert round(start + away - (after - before)) <= game["deadline"] <= round(start + away)
    summary = get(c, f"/api/games/{gid}").json()  # (the lobby's summary: a guest's My games reads it)
    assert round(start + away - (time.monotonic() - before)) <= summary["deadline"] <= round(start + away)
    # Anna at the table (the game's page open): no stand-in comes, the clock's deadline it is
    with c.websocket_connect(f"/ws/{gid}") as ws:
        ws.send_json({"type": "hello", "seats": {"0": toks[0]}, "presence": True})
        for _ in range(10):  # (until the table is told she is here)
            m = ws.receive_json()
            if m["type"] == "presence" and 0 in m["here"]:
                break
        assert m["type"] == "presence" and 0 in m["here"]
        assert listed(c, anna, gid)["deadline"] == pytest.approx(clock_runs_out)
