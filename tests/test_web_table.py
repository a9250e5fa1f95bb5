"""Playing online together: the chat, stand-ins for people who left, turn-based tables.

Both databases (the ``db_url`` fixture): with PostgreSQL the presence of people is also
written for other processes (Storage.mark_present) and read before a bot stands in.
"""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import LENIENT, act, state

from kardinal.server.common.guard import Guard
from kardinal.server.web.app import create_app


def app_client(tmp_path: Path, db_url: str, guard: Guard | None = None) -> TestClient:
    # bots move at once; the tables are looked at every 50 ms (a second in a real server)
    app = create_app(data_dir=tmp_path, db_url=db_url, bot_pause=0.0, guard=guard or Guard(LENIENT), table_check=0.05)
    return TestClient(app)


def new_game(client: TestClient, *kinds: str, **options: Any) -> tuple[str, dict[int, str]]:
    """A game of people ("person") and bots ("bot"), every person joined; ids and tokens."""
    players = [
        {"name": f"P{i}", "kind": "person"} if k == "person" else {"name": f"B{i}", "kind": "bot", "level": "random"}
        for i, k in enumerate(kinds)
    ]
    r = client.post("/api/games", json={"players": players, **options})
    assert r.status_code == 200, r.text
    g = r.json()
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    for seat, tok in toks.items():
        assert client.post(f"/api/games/{g['id']}/join", json={"seat": seat, "token": tok}).status_code == 200
    return g["id"], toks


def until(pred: Any, timeout: float = 20.0, what: str = "") -> Any:
    end = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        assert time.monotonic() < end, f"waited in vain: {what}"
        time.sleep(0.01)


def receive(ws: Any, kind: str) -> dict[str, Any]:
    """The next message of a type (state messages and others in between are passed over)."""
    for _ in range(200):
        m = ws.receive_json()
        if m["type"] == kind:
            return dict(m)
    raise AssertionError(f"no {kind} message")


# -- the chat ------------------------------------------------------------------------------


def test_players_chat_spectators_read_and_bad_lines_are_refused(tmp_path: Path, db_url: str) -> None:
    with app_client(tmp_path, db_url) as client:
        gid, toks = new_game(client, "person", "person", "bot")
        with client.websocket_connect(f"/ws/{gid}") as anna, client.websocket_connect(f"/ws/{gid}") as watcher:
            anna.send_json({"type": "hello", "seats": {"0": toks[0]}})
            receive(anna, "state")
            watcher.send_json({"type": "hello"})
            receive(watcher, "state")
            # what is said is stored as said (the page shows it as text), white space and
            # invisible controls cleaned
            anna.send_json({"type": "chat", "text": "  good  luck\u202e <b>all</b>\n"})
            for ws in (anna, watcher):
                line = receive(ws, "chat")["lines"]
                assert [(x["seat"], x["name"], x["kind"], x["text"]) for x in line] == [(0, "P0", "say", "good luck <b>all</b>")]
            # too long, empty, not text: refused, nothing stored
            for bad, code in (("x" * 301, "bad_chat"), ("  \u200b ", "bad_chat"), (17, "malformed")):
                anna.send_json({"type": "chat", "text": bad, "id": "c1"})
                err = receive(anna, "error")
                assert err["code"] == code and err["id"] == "c1", err
            # a spectator reads but may not write: the table did not allow it
            watcher.send_json({"type": "chat", "text": "hi"})
            assert receive(watcher, "error")["code"] == "chat_closed"
        lines = client.get(f"/api/games/{gid}/chat").json()["lines"]
        assert [x["text"] for x in lines] == ["good luck <b>all</b>"] and lines[0]["version"] == 0
        # a new connection gets the chat so far, after its first state
        with client.websocket_connect(f"/ws/{gid}") as late:
            late.send_json({"type": "hello", "seats": {"1": toks[1]}})
            assert late.receive_json()["type"] == "welcome"
            assert late.receive_json()["type"] == "state"
            assert [x["text"] for x in receive(late, "chat")["lines"]] == ["good luck <b>all</b>"]
        # a table that lets spectators talk: they write under a name of their choosing
        gid2, _ = new_game(client, "person", "bot", "bot", spectator_chat=True)
        with client.websocket_connect(f"/ws/{gid2}") as watcher:
            watcher.send_json({"type": "hello"})
            receive(watcher, "state")
            watcher.send_json({"type": "chat", "text": "nice move", "name": "Kibitz"})
            assert [(x["seat"], x["name"]) for x in receive(watcher, "chat")["lines"]] == [(None, "Kibitz")]
            watcher.send_json({"type": "chat", "text": "x", "name": "bad\u202ename"})
            assert receive(watcher, "error")["code"] == "bad_name"
            # no name given: no words stored ("a spectator", each page in its language)
            watcher.send_json({"type": "chat", "text": "hello"})
            assert [(x["seat"], x["name"]) for x in receive(watcher, "chat")["lines"]] == [(None, "")]


def test_chat_is_rate_limited_per_address(tmp_path: Path) -> None:
    url = f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}"
    with app_client(tmp_path, url, guard=Guard({k: v for k, v in LENIENT.items() if k != "chat"})) as client:  # the default: 3/s
        gid, toks = new_game(client, "person", "bot", "bot")
        with client.websocket_connect(f"/ws/{gid}") as ws:
            ws.send_json({"type": "hello", "seats": {"0": toks[0]}})
            receive(ws, "state")
            for i in range(4):
                ws.send_json({"type": "chat", "text": f"line {i}", "id": f"l{i}"})
            said = [receive(ws, "chat")["lines"][0]["text"] for _ in range(3)]
            err = receive(ws, "error")
        assert said == ["line 0", "line 1", "line 2"]
        assert err["code"] == "rate_limited" and err["id"] == "l3"
        assert len(client.get(f"/api/games/{gid}/chat").json()["lines"]) == 3


def test_table_options_are_checked(tmp_path: Path) -> None:
    with app_client(tmp_path, f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}") as client:
        players = [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}]
        for bad in (
            {"mode": "blitz"},
            {"away": 0},
            {"away": "5"},
            {"away": True},
            {"standin": "god"},
            {"hints": "yes"},
            {"spectator_chat": 1},
        ):
            r = client.post("/api/games", json={"players": players, **bad})
            assert r.status_code == 400 and r.json()["error"]["code"] == "malformed", (bad, r.text)
        r = client.post("/api/games", json={"players": players, "mode": "turn", "standin": "Hard", "hints": True})
        assert r.status_code == 200
        table = state(client, r.json()["id"])["table"]
        assert table == {
            "mode": "turn",
            "away": 180.0,
            "standin": "hard",
            "hints": True,
            "spectator_chat": False,
            "public": True,
            "friends": False,
            "clock": None,
            "rated": False,
        }


# -- stand-ins ------------------------------------------------------------------------------


def my_turn(client: TestClient, gid: str, seat: int, tok: str) -> dict[str, Any] | None:
    msg = state(client, gid, seat, tok)
    return msg if "legal" in msg else None


def play_until_turn_of(client: TestClient, gid: str, toks: dict[int, str], seat: int, rng: random.Random) -> None:
    """The other people play random moves until ``seat`` is to act."""
    while True:
        spec = state(client, gid)
        assert spec["status"] == "running"
        cur = spec["view"]["current"]
        if cur == seat:
            return
        if cur in toks:
            msg = until(lambda c=cur: my_turn(client, gid, c, toks[c]), what="a person's turn")  # type: ignore[misc]
            r = act(client, gid, cur, toks[cur], msg["version"], rng.choice(msg["legal"]))
            assert r.status_code == 200, r.text
        else:
            time.sleep(0.01)


def test_a_bot_stands_in_for_a_person_who_left_until_they_come_back(tmp_path: Path, db_url: str) -> None:
    rng = random.Random(5)
    with app_client(tmp_path, db_url) as client:
        gid, toks = new_game(client, "person", "person", "bot", away=1, standin="greedy")
        with client.websocket_connect(f"/ws/{gid}") as anna:
            anna.send_json({"type": "hello", "seats": {"0": toks[0]}})
            receive(anna, "state")
            with client.websocket_connect(f"/ws/{gid}") as ben:  # Ben is here ...
                ben.send_json({"type": "hello", "seats": {"1": toks[1]}})
                receive(ben, "state")
                assert [p["present"] for p in state(client, gid)["players"]] == [True, True, False]
            # ... and closes the tab: the table waits for him (1 s here), then a bot plays his turns
            until(lambda: state(client, gid)["players"][1]["present"] is False, what="Ben gone")
            version = state(client, gid)["version"]
            play_until_turn_of(client, gid, toks, 1, rng)
            spec = until(lambda: (s := state(client, gid))["players"][1]["standin"] and s, what="a stand-in")
            assert spec["players"][1]["present"] is False
            notice = receive(anna, "chat")["lines"]
            assert [(x["kind"], x["seat"], x["name"], x["text"]) for x in notice] == [("away", 1, "P1", "greedy")]
            # the stand-in plays Ben's turns (Anna and the bot play on)
            moved = len(state(client, gid)["view"]["history"])
            play_until_turn_of(client, gid, toks, 1, rng)
            until(lambda: state(client, gid)["view"]["current"] != 1, what="the stand-in's move")
            stood = [d for d in state(client, gid)["view"]["history"][moved:] if d["action"]["seat"] == 1]
            assert stood and state(client, gid)["version"] > version
            # Ben comes back with his link: the seat is his again, the table is told
            with client.websocket_connect(f"/ws/{gid}") as ben:
                ben.send_json({"type": "hello", "seats": {"1": toks[1]}})
                receive(ben, "state")
                assert [(x["kind"], x["seat"]) for x in receive(anna, "chat")["lines"]] == [("back", 1)]
                assert state(client, gid)["players"][1]["standin"] is False
                play_until_turn_of(client, gid, toks, 1, rng)
                msg = until(lambda: my_turn(client, gid, 1, toks[1]), what="Ben's turn")
                time.sleep(1.5)  # longer than the away time: nobody plays for him while he is here
                assert my_turn(client, gid, 1, toks[1]) is not None and state(client, gid)["version"] == msg["version"]
                r = act(client, gid, 1, toks[1], msg["version"], msg["legal"][0])
                assert r.status_code == 200, r.text


@pytest.mark.parametrize("options", [{"mode": "turn", "away": 1}, {"hotseat": False, "away": 3600}])
def test_nobody_stands_in_at_turn_based_tables_or_before_the_away_time(tmp_path: Path, options: dict[str, Any]) -> None:
    with app_client(tmp_path, f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}") as client:
        gid, toks = new_game(client, "person", "person", "bot", **options)
        play_until_turn_of(client, gid, toks, 1, random.Random(1))
        version = state(client, gid)["version"]
        time.sleep(1.5)  # longer than the short away time: a live table would have a stand-in by now
        spec = state(client, gid)
        assert spec["version"] == version and spec["view"]["current"] == 1 and not spec["players"][1]["standin"]
        assert client.get(f"/api/games/{gid}/chat").json()["lines"] == []


# -- idle games expire ----------------------------------------------------------------------


def test_idle_games_expire_after_the_operators_time_and_finished_ones_stay(tmp_path: Path) -> None:
    url = f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}"
    app = create_app(data_dir=tmp_path, db_url=url, bot_pause=0.0, guard=Guard(LENIENT), table_check=0.05, idle_expiry=1.0)
    with TestClient(app) as client:
        idle, toks = new_game(client, "person", "person", "bot")
        bots = client.post("/api/games", json={"players": [{"kind": "bot", "level": "random"}] * 3}).json()["id"]
        until(lambda: state(client, bots)["status"] == "finished", what="the bots' game to end")
        # a game someone keeps playing does not expire while its idle one does
        busy, btoks = new_game(client, "person", "person", "bot")
        rng = random.Random(3)
        end = time.monotonic() + 3.0
        while time.monotonic() < end:
            msg = until(lambda: next((m for s, t in btoks.items() if (m := my_turn(client, busy, s, t))), None), what="a turn")
            assert act(client, busy, msg["seat"], btoks[msg["seat"]], msg["version"], rng.choice(msg["legal"])).status_code == 200
            time.sleep(0.1)
        until(lambda: state(client, idle)["status"] == "expired", what="the idle game to expire")
        assert state(client, busy)["status"] == "running" and state(client, bots)["status"] == "finished"
        # an expired game is kept (to look at) but takes no more moves; the lobby lists it as expired
        seat = state(client, idle)["view"]["current"]
        r = act(client, idle, seat, toks[seat], state(client, idle)["version"], {"act": "pass", "seat": seat})
        assert r.status_code == 409 and r.json()["error"]["code"] == "expired"
        listed = {g["id"]: g["status"] for g in client.get("/api/games").json()["games"]}
        assert listed[idle] == "expired" and listed[bots] == "finished"
