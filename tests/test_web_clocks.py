"""The tables' clocks (kardinal.server.play.clocks), on SQLite and PostgreSQL, with a time source
the tests move on by hand (create_app(clock=...)) and deadlines looked at when the test asks
(check_clocks): no test sleeps. Live: time a turn, then the reserve, the increment; a turn
whose time ran out is played by the stand-in (ordinary moves of the seat) and the log says
so. Turn-based: days a turn; the seat is stood in at its deadline and its person takes it
back. The deadlines survive a restart, two processes act on one once, a move racing the
timeout is applied or comes too late (never both), and bad clock options are refused."""

from __future__ import annotations

import asyncio
import random
import threading
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import LENIENT, act, play_out, seats, state, tokens

from kardinal.rules.record import record_of, replay
from kardinal.server.common.guard import Guard
from kardinal.server.play.service import GameService
from kardinal.server.storage.clocks import NO_DEADLINE
from kardinal.server.web.app import create_app

LIVE = {"move": 20, "reserve": 60, "increment": 10}


class FakeTime:
    """Unix time that moves only when the test says so."""

    def __init__(self) -> None:
        self.t = 1_900_000_000.0

    def __call__(self) -> float:
        return self.t

    def advance(self, seconds: float) -> None:
        self.t += seconds


def client_for(tmp_path: Path, db_url: str, clock: FakeTime) -> TestClient:
    # deadlines are looked at only when the test asks (check_clocks): clock_check an hour
    app = create_app(data_dir=tmp_path, db_url=db_url, bot_pause=0.0, guard=Guard(LENIENT), clock=clock, clock_check=3600.0)
    return TestClient(app)


def service(client: TestClient) -> GameService:
    svc: GameService = client.app.state.service  # type: ignore[attr-defined]
    return svc


def call(client: TestClient, fn: Any, *args: Any) -> Any:
    return client.portal.call(fn, *args)  # type: ignore[attr-defined]


def new_game(
    client: TestClient, clock: dict[str, Any] | None, mode: str = "live", kinds: tuple[str, ...] = ("person",) * 3
) -> tuple[str, dict[int, str]]:
    body: dict[str, Any] = {"players": seats(*kinds), "board": "standard", "mode": mode}
    if clock is not None:
        body["clock"] = clock
    r = client.post("/api/games", json=body)
    assert r.status_code == 200, r.text
    game = r.json()
    toks = tokens(game)
    for seat, tok in toks.items():
        assert client.post(f"/api/games/{game['id']}/join", json={"seat": seat, "token": tok}).status_code == 200
    return game["id"], toks


def play_turn(client: TestClient, gid: str, toks: dict[int, str], rng: random.Random) -> int:
    """The person to act plays their whole turn (a placement and the draws); returns their seat."""
    msg = state(client, gid)
    seat = msg["view"]["current"]
    while True:
        msg = state(client, gid, seat, toks[seat])
        if msg["status"] != "running" or msg["view"]["current"] != seat:
            return int(seat)
        r = act(client, gid, seat, toks[seat], msg["version"], rng.choice(msg["legal"]))
        assert r.status_code == 200, r.text


def stored(client: TestClient, gid: str) -> Any:
    call(client, service(client).clocks_stored)
    return service(client).storage.clock_row(gid)


def chat_kinds(client: TestClient, gid: str) -> list[tuple[str, str, str]]:
    return [(x.kind, x.name, x.text) for x in service(client).storage.chat_from(gid, 0)]


def test_time_a_turn_then_the_reserve_and_the_increment_up_to_its_start(tmp_path: Path, db_url: str) -> None:
    t = FakeTime()
    rng = random.Random(1)
    with client_for(tmp_path, db_url, t) as client:
        gid, toks = new_game(client, LIVE)
        live = service(client).live[gid]
        first = state(client, gid)["view"]["current"]
        row = stored(client, gid)
        assert (row.seat, row.reserves) == (first, [60.0, 60.0, 60.0])
        assert row.deadline == t() + 20 + 60  # the turn's own 20 s, then the reserve's 60
        t.advance(50)  # 30 s beyond the turn's own time: 30 s of the reserve left, +10
        assert play_turn(client, gid, toks, rng) == first
        assert live.clock.reserves[first] == 40.0
        second = live.clock.seat
        assert second != first and stored(client, gid).deadline == t() + 20 + 60
        t.advance(5)  # within the turn's own time: the reserve gains 10 s, but no more than its start
        play_turn(client, gid, toks, rng)
        assert live.clock.reserves[second] == 60.0
        t.advance(3)
        play_turn(client, gid, toks, rng)
        assert live.clock.seat == first
        t.advance(25)  # 5 s of the reserve: 40 - 5 + 10
        play_turn(client, gid, toks, rng)
        assert live.clock.reserves[first] == 45.0
        row = stored(client, gid)
        assert row.reserves == [45.0, 60.0, 60.0] and row.version == live.version
        assert call(client, service(client).check_clocks) == []  # no deadline has passed
        assert not [k for k in chat_kinds(client, gid) if k[0] != "say"]


def test_a_live_turn_whose_time_ran_out_is_played_by_the_stand_in_and_the_log_says_so(tmp_path: Path, db_url: str) -> None:
    t = FakeTime()
    with client_for(tmp_path, db_url, t) as client:
        gid, toks = new_game(client, {"move": 10, "reserve": 30, "increment": 5})
        seat = state(client, gid)["view"]["current"]
        before = state(client, gid)["version"]
        t.advance(39)
        assert call(client, service(client).check_clocks) == []  # a second to go
        t.advance(1.5)
        assert call(client, service(client).check_clocks) == [gid]
        msg = state(client, gid)
        assert msg["view"]["current"] != seat and msg["version"] >= before + 2  # the placement and its draws
        turn = service(client).storage.actions(gid)[before:]
        assert {a["seat"] for a in turn} == {seat}  # ordinary moves of the seat
        assert msg["players"][seat]["standin"] is False  # they keep their seat
        assert ("timeout", f"P{seat}", "medium") in chat_kinds(client, gid)
        live = service(client).live[gid]
        assert live.clock.reserves[seat] == 0.0 and live.clock.seat == msg["view"]["current"]
        # the stored log is an ordinary one: read again, it replays to the same game
        again = service(client).replayed(gid)
        assert again.state.history is not None and len(again.state.history) == msg["version"]
        assert again.state.current == live.state.current and again.state.hands == live.state.hands
        assert len(replay(record_of(live.state, seed=True)).history or []) == msg["version"]
        assert call(client, service(client).check_clocks) == []  # acted on once
        # the next turn is the next person's, with its own time
        assert stored(client, gid).deadline == t() + 10 + 30


def test_a_turn_based_seat_is_stood_in_at_its_deadline_and_back_when_its_person_returns(tmp_path: Path, db_url: str) -> None:
    t = FakeTime()
    with client_for(tmp_path, db_url, t) as client:
        gid, toks = new_game(client, {"days": 2}, mode="turn")
        seat = state(client, gid)["view"]["current"]
        assert stored(client, gid).deadline == t() + 2 * 86400
        t.advance(2 * 86400 - 60)
        assert call(client, service(client).check_clocks) == []
        t.advance(61)
        assert call(client, service(client).check_clocks) == [gid]
        call(client, service(client).wait_idle, gid)
        msg = state(client, gid)
        assert msg["players"][seat]["standin"] is True
        assert msg["view"]["current"] != seat  # the stand-in played the turn
        assert ("timeout_away", f"P{seat}", "medium") in chat_kinds(client, gid)
        # the next person's time runs (days from the stand-in's move)
        assert stored(client, gid).seat == msg["view"]["current"]
        # the person returns (opens the game): the seat is theirs again, and the log says so
        with client.websocket_connect(f"/ws/{gid}") as ws:
            ws.send_json({"type": "hello", "seats": {str(seat): toks[seat]}, "presence": True})
            kinds = set()
            for _ in range(6):
                m = ws.receive_json()
                kinds.add(m["type"])
                if m["type"] == "clock":
                    assert m["seat"] == msg["view"]["current"] and m["clock"] == {"days": 2}
                    assert 0 < m["remaining"] <= 2 * 86400
                    break
            assert "clock" in kinds
        assert state(client, gid)["players"][seat]["standin"] is False
        for _ in range(100):  # (the notice is written as the seat is taken back)
            if ("back", f"P{seat}", "") in chat_kinds(client, gid):
                break
            call(client, asyncio.sleep, 0.05)
        assert ("back", f"P{seat}", "") in chat_kinds(client, gid)


def test_the_deadline_survives_a_restart(tmp_path: Path, db_url: str) -> None:
    t = FakeTime()
    rng = random.Random(3)
    with client_for(tmp_path, db_url, t) as client:
        gid, toks = new_game(client, LIVE)
        t.advance(30)
        play_turn(client, gid, toks, rng)
        seat = state(client, gid)["view"]["current"]
        deadline = stored(client, gid).deadline
        reserves = service(client).live[gid].clock.reserves
    t.advance(100)  # the server was down past the deadline: the 100 s are given back
    with client_for(tmp_path, db_url, t) as client:
        row = stored(client, gid)
        assert (row.deadline, tuple(row.reserves)) == (deadline + 100, reserves)
        assert service(client).get(gid).clock.reserves == reserves  # read with its game
        assert call(client, service(client).check_clocks) == []
        t.advance(deadline + 100 - t() - 1)  # a second before the deadline moved on
        assert call(client, service(client).check_clocks) == []
        t.advance(2)
        assert call(client, service(client).check_clocks) == [gid]
        msg = state(client, gid)
        assert msg["view"]["current"] != seat
        assert ("timeout", f"P{seat}", "medium") in chat_kinds(client, gid)


def test_a_crashed_server_gives_back_the_time_since_its_last_stamp(tmp_path: Path, db_url: str) -> None:
    """No stop in order (killed): the last stamp says when it was last known running. A
    start that finds the server down gives back every running deadline's time, and only
    those: a bot's turn (no deadline) stays as it was. The first start gives nothing back."""
    from kardinal.server.play.clocks import ALIVE_EVERY
    from kardinal.server.storage import Storage
    from kardinal.server.storage.clocks import ClockRow

    st = Storage(db_url)
    try:
        assert st.start_process("first", 1000.0, 3 * ALIVE_EVERY) == 0.0  # nothing stamped before
        st.save_clock(ClockRow("g1", 4, 1, 1030.0, [60.0, 60.0, 60.0]), 1000.0)
        st.save_clock(ClockRow("g2", 7, -1, NO_DEADLINE, [60.0, None, 60.0]), 1000.0)
        st.stamp_process("first", 1005.0)  # then killed: no stamp of its stop
        assert st.start_process("second", 1100.0, 3 * ALIVE_EVERY) == 95.0
        g1, g2 = st.clock_row("g1"), st.clock_row("g2")
        assert g1 is not None and (g1.deadline, g1.version, g1.seat, g1.reserves) == (1125.0, 4, 1, [60.0, 60.0, 60.0])
        assert g2 is not None and g2.deadline == NO_DEADLINE
        assert st.due_clocks(1124.0) == [] and [r.game_id for r in st.due_clocks(1125.0)] == ["g1"]
        # the same process started again at once (an app's second start): nothing was down
        assert st.start_process("second", 1100.0, 3 * ALIVE_EVERY) == 0.0
    finally:
        st.close()


def test_a_running_server_taking_over_games_gives_no_time_back(tmp_path: Path, pg: Any) -> None:
    """PostgreSQL: every few seconds a server looks for games to take over (keep_shared:
    resume). Only its start may give back the time the server was down: a lone process that
    looked again moved every running deadline on by the time since its last look, and no
    turn's time ever ran out."""
    t = FakeTime()
    with client_for(tmp_path, str(pg.new_database()), t) as client:
        gid, _ = new_game(client, LIVE)
        before = stored(client, gid).deadline
        t.advance(10)
        call(client, service(client).resume)  # what keep_shared does every 2 s
        assert stored(client, gid).deadline == before
        t.advance(LIVE["move"] + LIVE["reserve"])
        assert call(client, service(client).check_clocks) == [gid]


def test_a_process_started_beside_a_running_one_gives_nothing_back(pg: Any) -> None:
    """PostgreSQL, several processes: while one runs (stamped lately, not stopped) the server
    is not down, whatever another's start finds; processes that start at once after the
    server was down give the time back once, not once each."""
    from kardinal.server.play.clocks import ALIVE_EVERY
    from kardinal.server.storage import Storage
    from kardinal.server.storage.clocks import ClockRow

    db_url = str(pg.new_database())
    within = 3 * ALIVE_EVERY
    stores = [Storage(db_url) for _ in range(3)]
    try:
        a, b, c = stores
        a.start_process("a", 1000.0, within)
        a.save_clock(ClockRow("g", 3, 0, 1050.0, [30.0, 30.0, 30.0]), 1000.0)
        a.stamp_process("a", 1010.0)
        assert b.start_process("b", 1020.0, within) == 0.0  # a runs (stamped 10 s ago)
        assert a.clock_row("g").deadline == 1050.0
        b.stamp_process("b", 1030.0, stopped=True)
        # a was killed after its stamp at 1010; b stopped in order at 1030: down since 1030
        results: list[float] = []
        go = threading.Barrier(2)

        def start(st: Storage, name: str) -> None:
            go.wait()
            results.append(st.start_process(name, 1200.0, within))

        threads = [threading.Thread(target=start, args=(st, n)) for st, n in ((b, "b2"), (c, "c"))]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        assert sorted(results) == [0.0, 170.0]  # one of the two gave back the 170 s
        assert a.clock_row("g").deadline == 1050.0 + 170.0
    finally:
        for st in stores:
            st.close()


def test_a_server_stopped_in_order_gives_the_time_back_to_the_table(tmp_path: Path, db_url: str) -> None:
    """Through the app: the players see the turn's time as it was when the server stopped."""
    t = FakeTime()
    with client_for(tmp_path, db_url, t) as client:
        gid, toks = new_game(client, {"move": 30})
        t.advance(10)
        before = service(client).live[gid].clock.deadline({"move": 30})
    t.advance(600)  # ten minutes down: the turn had 20 s left, and still has
    with client_for(tmp_path, db_url, t) as client:
        assert call(client, service(client).check_clocks) == []
        run = service(client).get(gid).clock
        assert run.deadline({"move": 30}) - t() == pytest.approx(before - (t() - 600))
        t.advance(21)
        assert call(client, service(client).check_clocks) == [gid]


def test_a_move_racing_the_timeout_is_applied_or_too_late_never_both(tmp_path: Path, db_url: str) -> None:
    t = FakeTime()
    with client_for(tmp_path, db_url, t) as client:
        outcomes = set()
        for order in ("timeout first", "move first", "at once", "at once"):
            gid, toks = new_game(client, {"move": 5})
            msg = state(client, gid)
            seat = msg["view"]["current"]
            mine = state(client, gid, seat, toks[seat])
            t.advance(6)
            svc = service(client)
            body = {"seat": seat, "token": toks[seat], "version": mine["version"], "action": mine["legal"][0]}

            async def race(body: dict[str, Any] = body, gid: str = gid, order: str = order, svc: GameService = svc) -> tuple[Any, Any]:
                async def move() -> Any:
                    try:
                        return await svc.submit(gid, body)
                    except Exception as e:  # noqa: BLE001 - the refusal is the outcome
                        return e

                if order == "timeout first":
                    acted = await svc.check_clocks()
                    return await move(), acted
                if order == "move first":
                    moved = await move()
                    return moved, await svc.check_clocks()
                return tuple(await asyncio.gather(move(), svc.check_clocks()))  # at once: the event loop's order

            moved, acted = call(client, race)
            acted = [g for g in acted if g == gid]  # (the earlier rounds' next turns run out too)
            lines = [x for x in service(client).storage.chat_from(gid, 0) if x.kind == "timeout"]
            at = mine["version"]
            if isinstance(moved, dict):  # the person's action came first: it is the one at its index
                assert moved["index"] == at and not moved["duplicate"]
                assert service(client).storage.actions(gid)[at] == body["action"]
                # the turn's time ran out all the same: the stand-in plays the rest of it (the
                # draws), from after the person's action
                assert acted == [] or (acted == [gid] and len(lines) == 1 and lines[0].version > at)
                outcomes.add("move")
            else:  # the timeout came first: the stand-in's action is at that index, the person's refused
                assert acted == [gid] and len(lines) == 1 and lines[0].version == at
                assert moved.code in ("stale_version", "not_your_turn")
                assert service(client).storage.actions(gid)[at]["seat"] == seat
                outcomes.add("timeout")
            assert len(service(client).storage.actions(gid)) == state(client, gid)["version"]
        assert outcomes == {"move", "timeout"}  # each order came up


def test_two_processes_act_on_a_deadline_once(tmp_path: Path, pg: Any) -> None:
    """Several processes share only PostgreSQL."""
    db_url = str(pg.new_database())
    t = FakeTime()
    with client_for(tmp_path / "a", db_url, t) as a, client_for(tmp_path / "b", db_url, t) as b:
        gids = [new_game(a, {"move": 5, "reserve": 5})[0] for _ in range(3)]
        for gid in gids:
            state(b, gid)  # both processes hold the games
            stored(a, gid)
        t.advance(11)
        results: dict[str, list[str]] = {}
        go = threading.Barrier(2)

        def check(name: str, c: TestClient) -> None:
            go.wait()
            results[name] = call(c, service(c).check_clocks)

        threads = [threading.Thread(target=check, args=(n, c)) for n, c in (("a", a), ("b", b))]
        for th in threads:
            th.start()
        for th in threads:
            th.join(60)
        assert sorted(results["a"] + results["b"]) == sorted(gids)  # each game acted on once
        for c in (a, b):
            call(c, service(c).clocks_stored)
        for gid in gids:
            assert [k[0] for k in chat_kinds(a, gid)].count("timeout") == 1
            assert service(a).storage.clock_row(gid).deadline < NO_DEADLINE  # the next turn's clock runs
        assert call(a, service(a).check_clocks) == [] and call(b, service(b).check_clocks) == []
        # both processes see the same clock: the one that acted stored it, the other took it
        for gid in gids:
            want = service(a).storage.clock_row(gid)
            assert want.reserves[want.seat - 1 if want.seat else 2] == 0.0  # the seat that ran out: no reserve left
            for c in (a, b):
                for _ in range(100):  # (the other process hears of the moves from the database)
                    run = service(c).live[gid].clock
                    if run.version == want.version and list(run.reserves) == want.reserves:
                        break
                    call(c, asyncio.sleep, 0.05)
                assert (run.version, run.seat, list(run.reserves)) == (want.version, want.seat, want.reserves)


@pytest.mark.parametrize(
    ("mode", "clock"),
    [
        ("live", {"move": 2}),  # too short
        ("live", {"move": 20, "reserve": -1}),
        ("live", {"move": 20, "increment": 9999}),
        ("live", {"reserve": 60}),  # no time a turn
        ("live", {"move": 20, "days": 1}),
        ("live", {"days": 1}),  # days are for turn-based tables
        ("turn", {"move": 20}),
        ("turn", {"days": 0}),
        ("turn", {"days": 15}),
        ("turn", {"days": 1.5}),
        ("live", {"move": "20"}),
        ("live", {"move": True}),
        ("live", "fast"),
    ],
)
def test_bad_clock_options_are_refused_and_change_nothing(tmp_path: Path, mode: str, clock: Any) -> None:
    t = FakeTime()
    with client_for(tmp_path, f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}", t) as client:
        before = service(client).storage.game_ids("open") + service(client).storage.game_ids("running")
        r = client.post("/api/games", json={"players": seats("person", "person", "person"), "mode": mode, "clock": clock})
        assert r.status_code == 400, r.text
        assert r.json()["error"]["code"] == "malformed"
        assert service(client).storage.game_ids("open") + service(client).storage.game_ids("running") == before
    from kardinal.server.common.refusal import Refused
    from kardinal.server.play.options import table_options

    with pytest.raises(Refused):
        table_options({"mode": mode, "clock": clock})


def test_no_clock_by_default_none_for_a_hot_seat_and_play_again_keeps_it(tmp_path: Path) -> None:
    t = FakeTime()
    from kardinal.server.common.refusal import Refused
    from kardinal.server.play.options import options_of, table_options

    assert table_options({})["clock"] is None
    with pytest.raises(Refused):
        table_options({"clock": {"move": 20}, "hotseat": True})
    with client_for(tmp_path, f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}", t) as client:
        gid, toks = new_game(client, None)
        assert state(client, gid)["table"]["clock"] is None
        assert service(client).storage.clock_row(gid) is None
        assert options_of(service(client).storage.get_game(gid))["clock"] is None
        gid2, _ = new_game(client, {"move": 30, "reserve": 120, "increment": 5})
        assert state(client, gid2)["table"]["clock"] == {"move": 30.0, "reserve": 120.0, "increment": 5.0}
        # one person and bots: nobody waits for the person, so no time runs; "Play again" keeps the clock
        gid3, toks3 = new_game(client, {"days": 3}, mode="turn", kinds=("person", "bot", "bot"))
        assert stored(client, gid3) is None or stored(client, gid3).seat == -1
        play_out(client, gid3, toks3, random.Random(5))
        new = call(client, service(client).again, gid3, toks3)
        assert new.options["clock"] == {"days": 3} and new.options["mode"] == "turn"


def test_a_stand_in_turn_cut_short_by_a_restart_is_played_after_it(tmp_path: Path, db_url: str) -> None:
    """The process claimed a live deadline and stopped before the stand-in moved: the next
    start plays that turn (nobody else would: the deadline is claimed)."""
    t = FakeTime()
    with client_for(tmp_path, db_url, t) as client:
        gid, toks = new_game(client, {"move": 5})
        seat = state(client, gid)["view"]["current"]
        t.advance(6)
        row = stored(client, gid)
        assert service(client).storage.claim_clock(row, t())  # ... and the process stops here
    with client_for(tmp_path, db_url, t) as client:
        end = 200
        while state(client, gid)["view"]["current"] == seat and end:
            call(client, asyncio.sleep, 0.05)
            end -= 1
        msg = state(client, gid)
        assert msg["view"]["current"] != seat and {a["seat"] for a in service(client).storage.actions(gid)} == {seat}
        assert service(client).live[gid].clock.reserves[seat] == 0.0


def test_a_turn_based_person_at_the_table_at_the_deadline_keeps_the_seat(tmp_path: Path, db_url: str) -> None:
    """Their page is open when the days run out: the stand-in plays that turn only."""
    t = FakeTime()
    with client_for(tmp_path, db_url, t) as client:
        gid, toks = new_game(client, {"days": 1}, mode="turn")
        seat = state(client, gid)["view"]["current"]
        with client.websocket_connect(f"/ws/{gid}") as ws:
            ws.send_json({"type": "hello", "seats": {str(seat): toks[seat]}, "presence": True})
            assert ws.receive_json()["type"] == "welcome"
            while seat not in service(client).live[gid].present:
                call(client, asyncio.sleep, 0.01)
            t.advance(86401)
            assert call(client, service(client).check_clocks) == [gid]
            msg = state(client, gid)
            assert msg["view"]["current"] != seat and msg["players"][seat]["standin"] is False
            assert ("timeout", f"P{seat}", "medium") in chat_kinds(client, gid)
            assert "timeout_away" not in [k[0] for k in chat_kinds(client, gid)]
