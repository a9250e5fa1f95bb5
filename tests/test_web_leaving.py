"""When a person leaves a live table: the presence messages (who left, the seconds until a
bot stands in, computed as the stand-in decides it), the chat's notices when the stand-in
takes over and when they are back; a table whose other seats are all bots waits for its
person, also after a restart. Both databases (``db_url``); with PostgreSQL also two
processes, one of which holds the person's connection."""

from __future__ import annotations

import asyncio
import random
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from test_web_table import app_client, new_game, play_until_turn_of, until
from web_helpers import LENIENT, state

from kardinal.server.common.guard import Guard
from kardinal.server.play.live import Connection
from kardinal.server.play.presence import PRESENCE_EVERY, presence_of
from kardinal.server.play.service import GameService
from kardinal.server.storage import Storage
from kardinal.server.web.app import create_app

PEOPLE2 = [{"name": "Anna", "kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Bot", "kind": "bot", "level": "random"}]


def hello(ws: Any, seats: dict[int, str] | None, presence: bool = True) -> None:
    msg: dict[str, Any] = {"type": "hello", "presence": presence}
    if seats:
        msg["seats"] = {str(k): v for k, v in seats.items()}
    ws.send_json(msg)


def next_of(ws: Any, kind: str, seen: list[dict[str, Any]] | None = None) -> dict[str, Any]:
    """The next message of a type; every message read on the way is kept in ``seen``."""
    for _ in range(500):
        m = ws.receive_json()
        if seen is not None:
            seen.append(m)
        if m["type"] == kind:
            return dict(m)
    raise AssertionError(f"no {kind} message")


def test_the_others_hear_at_once_who_left_and_when_a_bot_plays_for_them(tmp_path: Path, db_url: str) -> None:
    rng = random.Random(7)
    with app_client(tmp_path, db_url) as client:
        gid, toks = new_game(client, "person", "person", "bot", away=2, standin="greedy")
        with client.websocket_connect(f"/ws/{gid}") as anna, client.websocket_connect(f"/ws/{gid}") as old:
            hello(old, None, presence=False)  # a client that did not ask for them gets none
            next_of(old, "state")
            hello(anna, {0: toks[0]})
            first = next_of(anna, "presence")
            assert first == {
                "type": "presence",
                "game": gid,
                "here": [0],
                "away": [{"seat": 1, "name": "P1", "standin_in": first["away"][0]["standin_in"]}],
            }
            with client.websocket_connect(f"/ws/{gid}") as ben:
                hello(ben, {1: toks[1]})
                mine = next_of(ben, "presence")
                assert mine["here"] == [0, 1] and mine["away"] == []
                assert next_of(anna, "presence") == mine  # Anna is told that Ben came
            # Ben closes his tab: Anna is told at once, with the seconds until a bot plays for him
            left = next_of(anna, "presence")
            assert left["here"] == [0] and [(a["seat"], a["name"]) for a in left["away"]] == [(1, "P1")]
            assert 0 < left["away"][0]["standin_in"] <= 2.0
            assert set(left) == {"type", "game", "here", "away"} and set(left["away"][0]) == {"seat", "name", "standin_in"}
            # Ben's turn comes: after the 2 s, the stand-in plays; the chat says so and Ben is no longer "away"
            play_until_turn_of(client, gid, toks, 1, rng)
            told: list[dict[str, Any]] = []
            notice = next_of(anna, "chat", told)
            assert [(x["kind"], x["seat"], x["name"], x["text"]) for x in notice["lines"]] == [("away", 1, "P1", "greedy")]
            until(lambda: state(client, gid)["players"][1]["standin"], what="the stand-in")
            if not any(m["type"] == "presence" and m["away"] == [] for m in told):  # told with the stand-in, or after
                assert next_of(anna, "presence")["away"] == []
            # he comes back: he is here again, and the chat says so
            with client.websocket_connect(f"/ws/{gid}") as ben:
                hello(ben, {1: toks[1]})
                told = []
                back = next_of(anna, "chat", told)
                assert [(x["kind"], x["seat"], x["name"]) for x in back["lines"]] == [("back", 1, "P1")]
                came = [m for m in told if m["type"] == "presence"] or [next_of(anna, "presence")]
                assert came[-1]["here"] == [0, 1] and came[-1]["away"] == []
            # the client without "presence" got the same chat, and never a presence message
            got: list[dict[str, Any]] = []
            next_of(old, "chat", got)
            next_of(old, "chat", got)
            assert not any(m["type"] == "presence" for m in got)


def test_back_before_the_countdown_ends_clears_the_notice_and_says_nothing_in_the_chat(tmp_path: Path) -> None:
    with app_client(tmp_path, f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}") as client:
        gid, toks = new_game(client, "person", "person", "bot", away=3600)
        with client.websocket_connect(f"/ws/{gid}") as anna:
            hello(anna, {0: toks[0]})
            with client.websocket_connect(f"/ws/{gid}") as ben:
                hello(ben, {1: toks[1]})
                assert [a["seat"] for a in next_of(anna, "presence")["away"]] == [1]  # Anna's first: Ben not yet here
                assert next_of(anna, "presence")["away"] == []
            left = next_of(anna, "presence")
            assert left["away"][0]["seat"] == 1 and 3590 < left["away"][0]["standin_in"] <= 3600
            with client.websocket_connect(f"/ws/{gid}") as ben:
                hello(ben, {1: toks[1]})
                assert next_of(anna, "presence") == {"type": "presence", "game": gid, "here": [0, 1], "away": []}
        assert client.get(f"/api/games/{gid}/chat").json()["lines"] == []


def test_the_deadline_is_the_stand_ins_own(tmp_path: Path) -> None:
    """presence_of says 0 seconds exactly when check_away stands in (on the person's turn),
    and None for a table's last person."""

    async def body() -> None:
        svc = GameService(Storage(f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}"), bot_pause=0.0)
        try:
            players = [
                {"name": "Anna", "kind": "person"},
                {"name": "Ben", "kind": "person"},
                {"name": "Bot", "kind": "bot", "level": "random"},
            ]
            live, toks = await svc.create({"players": players, "away": 30})
            for s, t in toks.items():
                await svc.join(live.row.id, s, t)
            await svc.wait_idle(live.row.id)  # the bot may begin
            seat = live.state.current
            other = 1 - seat
            await svc.connect(live, Connection({other: toks[other]}))
            now = time.monotonic()
            live.gone[seat] = now - 29.5
            msg = presence_of(live, now)[1]
            assert [(a["seat"], a["standin_in"]) for a in msg["away"]] == [(seat, 0.5)]
            assert not await svc.check_away(live)
            live.gone[seat] = time.monotonic() - 30.1
            assert presence_of(live)[1]["away"][0]["standin_in"] == 0.0
            assert await svc.check_away(live)
            assert presence_of(live)[1]["away"] == []  # stood in for: no longer waited for
            # Ben leaves as well: Anna's stand-in plays; Ben is the last person, nobody plays for him
            svc.disconnect(live, next(iter(live.conns)))
            assert presence_of(live)[1]["away"] == [{"seat": other, "name": live.row.seats[other].name, "standin_in": None}]
        finally:
            svc.executor.shutdown(wait=False, cancel_futures=True)
            svc.storage.close()

    asyncio.run(body())


def test_a_table_of_bots_waits_for_its_person_after_a_restart_and_the_lobby_lists_it_running(tmp_path: Path) -> None:
    url = f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}"

    def server() -> TestClient:
        return TestClient(create_app(data_dir=tmp_path, db_url=url, bot_pause=0.0, guard=Guard(LENIENT), table_check=0.05))

    with server() as client:
        gid, toks = new_game(client, "person", "bot", "bot", away=1)
        with client.websocket_connect(f"/ws/{gid}") as me:
            hello(me, {0: toks[0]})
            next_of(me, "state")
        play_until_turn_of(client, gid, toks, 0, random.Random(2))
        version = state(client, gid)["version"]
    with server() as client:  # the server restarts; its person has gone
        time.sleep(1.5)  # longer than the away time, the tables looked at every 50 ms: nobody stands in
        spec = state(client, gid)
        assert spec["status"] == "running" and spec["version"] == version and not spec["players"][0]["standin"]
        assert client.get(f"/api/games/{gid}/chat").json()["lines"] == []
        listed = {g["id"]: g["status"] for g in client.get("/api/games").json()["games"]}
        assert listed[gid] == "running"
        with client.websocket_connect(f"/ws/{gid}") as watcher:  # a spectator: the game waits for them
            hello(watcher, None)
            assert next_of(watcher, "presence")["away"] == [{"seat": 0, "name": "P0", "standin_in": None}]


def test_a_solo_game_stored_with_a_stand_in_waits_for_its_person(tmp_path: Path) -> None:
    """A game stored by an earlier version while a stand-in played for the only person (at a
    table of bots) is not played out by it: the game waits, and the person plays on."""
    import json

    import sqlalchemy as sa

    url = f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}"

    def server() -> TestClient:
        return TestClient(create_app(data_dir=tmp_path, db_url=url, bot_pause=0.0, guard=Guard(LENIENT), table_check=0.05))

    with server() as client:
        gid, toks = new_game(client, "person", "bot", "bot", away=1)
        play_until_turn_of(client, gid, toks, 0, random.Random(3))
        version = state(client, gid)["version"]
    engine = sa.create_engine(url)
    with engine.begin() as db:  # as an earlier version stored it: a stand-in for the person
        seats = json.loads(db.execute(sa.text("SELECT seats FROM games WHERE id = :g"), {"g": gid}).scalar_one())
        seats[0]["standin"] = True
        db.execute(sa.text("UPDATE games SET seats = :s WHERE id = :g"), {"s": json.dumps(seats), "g": gid})
    engine.dispose()
    with server() as client:
        time.sleep(1.0)  # the tables looked at every 50 ms, the bots without a pause: nobody plays seat 0
        spec = state(client, gid)
        assert spec["players"][0]["standin"] and spec["status"] == "running" and spec["version"] == version
        with client.websocket_connect(f"/ws/{gid}") as me:  # the person comes back: their seat is theirs again
            hello(me, {0: toks[0]})
            until(lambda: not state(client, gid)["players"][0]["standin"])
        assert state(client, gid)["version"] == version


def test_with_two_processes_a_person_connected_to_the_other_is_here_and_the_deadline_counts_from_its_note(
    tmp_path: Path, db_url: str
) -> None:
    if not db_url.startswith("postgresql"):
        return  # one process: nothing is shared

    async def body() -> None:
        one, two = GameService(Storage(db_url), bot_pause=0.0), GameService(Storage(db_url), bot_pause=0.0)
        try:
            live, toks = await one.create({"players": PEOPLE2, "away": 60})
            for s, t in toks.items():
                await one.join(live.row.id, s, t)
            await one.connect(live, Connection({0: toks[0]}))
            there = await two.fetch(live.row.id)
            await two.connect(there, Connection({1: toks[1]}))
            wall = time.time()
            await asyncio.to_thread(two.storage.mark_present, [(live.row.id, 1)])  # what two's watch does every 5 s
            live.seen = await asyncio.to_thread(one.storage.last_seen, live.row.id)  # ... and one's reads
            assert presence_of(live)[1]["here"] == [0, 1] and presence_of(live)[1]["away"] == []
            # Ben's tab closes at two; one hears no more of him: after 3 notes missed he is away,
            # and a bot may play for him 60 s after his last note (as one's check_away decides)
            seen = live.seen[1]
            assert wall <= seen <= time.time()
            # 15 s after the last note (and 10 ms: floating point), on both clocks read once (no
            # time of this machine's in between: under load that was more than the tolerance)
            wall_now, mono_now = time.time(), time.monotonic()
            wait = seen + 3 * PRESENCE_EVERY + 0.01 - wall_now
            msg = presence_of(live, mono_now + wait, wall_now + wait)[1]
            assert msg["here"] == [0] and msg["away"][0]["seat"] == 1
            assert abs(msg["away"][0]["standin_in"] - (60 - 3 * PRESENCE_EVERY)) < 0.2
        finally:
            for svc in (one, two):
                svc.executor.shutdown(wait=False, cancel_futures=True)
                svc.storage.close()

    asyncio.run(body())
