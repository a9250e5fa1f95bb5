"""Several processes that feel like one (PostgreSQL; kardinal.server.play.shared): who is at
the table is told to the other processes as people come and go (LISTEN/NOTIFY), not found
by their looks every few seconds, and the stand-in's countdown runs from the moment the
person left, on every process. The clock watcher knows the earliest deadline (from the
deadlines' index, lowered as deadlines are stored here or announced by another process)
and reads the database only when one has come: its cost does not grow with the number of
games. A suspended seat's turn at a turn-based table runs out at once.

Two GameServices on one database stand for two processes (the three-process test through
nginx is in test_web_nginx.py)."""

from __future__ import annotations

import asyncio
import random
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import event, text
from test_web_clocks import FakeTime, chat_kinds, client_for, play_turn, service
from test_web_clocks import call as portal_call
from test_web_leaving import PEOPLE2
from test_web_suspended_seats import apply_pending, table
from web_helpers import state

from kardinal.server.community.admin import Admin
from kardinal.server.play.live import Connection, LiveGame
from kardinal.server.play.messages import PresenceMessage
from kardinal.server.play.presence import presence_of
from kardinal.server.play.service import GameService
from kardinal.server.storage import Storage
from kardinal.server.storage.clocks import ClockRow

WAIT = 10.0  # seconds a test waits for news from the other process (it comes in milliseconds)


@asynccontextmanager
async def processes(db_url: str, n: int = 2, **kwargs: Any) -> AsyncIterator[list[GameService]]:
    """``n`` services on one database, each listening to the others (keep_shared), once
    every one of them listens."""
    services = [GameService(Storage(db_url), bot_pause=0.0, **kwargs) for _ in range(n)]
    stop = asyncio.Event()
    tasks = [asyncio.create_task(s.keep_shared(stop)) for s in services]
    try:
        await until_async(lambda: listening(services[0].storage) >= n, "the listeners")
        yield services
    finally:
        stop.set()
        await asyncio.gather(*tasks)
        for s in services:
            s.executor.shutdown(wait=False, cancel_futures=True)
            s.storage.close()


def listening(storage: Storage) -> int:
    """The connections listening to the games' announcements (Storage.listen) now."""
    with storage.engine.connect() as conn:
        return int(conn.execute(text("SELECT count(*) FROM pg_stat_activity WHERE query LIKE 'LISTEN kardinal_games%'")).scalar_one())


async def until_async(ok: Callable[[], bool], what: str) -> None:
    end = time.monotonic() + WAIT
    while not await asyncio.to_thread(ok):
        assert time.monotonic() < end, f"{what}: not within {WAIT} s"
        await asyncio.sleep(0.02)


async def presence_told(conn: Connection, ok: Callable[[PresenceMessage], bool]) -> PresenceMessage:
    """The first presence message to ``conn`` that ``ok`` accepts (within WAIT seconds)."""
    end = time.monotonic() + WAIT
    while True:
        msg = await asyncio.wait_for(conn.outbox.get(), max(0.01, end - time.monotonic()))
        if msg is not None and msg["type"] == "presence" and ok(msg):  # type: ignore[typeddict-item]
            return msg  # type: ignore[return-value]


async def two_people(one: GameService) -> tuple[LiveGame, dict[int, str]]:
    live, toks = await one.create({"players": PEOPLE2, "away": 60})
    for s, t in toks.items():
        await one.join(live.row.id, s, t)
    return live, toks


def test_a_person_coming_to_or_leaving_one_process_is_told_at_the_other_at_once(db_url: str) -> None:
    """No look every few seconds runs here (watch_tables): what the other process hears
    comes from the announcement of the change (Storage.note_seats). The countdown to the
    stand-in runs from the moment she left, there too."""
    if not db_url.startswith("postgresql"):
        return  # one process: nothing is shared

    async def body() -> None:
        async with processes(db_url) as (one, two):
            live, toks = await two_people(one)
            there = await two.fetch(live.row.id)
            ben = Connection({1: toks[1]}, presence=True)
            await two.connect(there, ben)  # Ben at process two; Anna not here yet
            two.tell_presence(there, to=ben)  # (what his hello asks for: ws.py)
            first = await presence_told(ben, lambda m: True)
            assert first["here"] == [1] and [a["seat"] for a in first["away"]] == [0]
            anna = Connection({0: toks[0]}, presence=True)
            heard = time.monotonic()
            await one.connect(live, anna)  # Anna comes to process one
            came = await presence_told(ben, lambda m: 0 in m["here"])
            print(f"\npresence across processes: came {time.monotonic() - heard:.3f} s")
            assert came["here"] == [0, 1] and came["away"] == []
            # and process one tells Anna that Ben is there (at two)
            await presence_told(anna, lambda m: m["here"] == [0, 1])
            left = time.monotonic()
            one.disconnect(live, anna)  # Anna's tab closes
            gone = await presence_told(ben, lambda m: 0 not in m["here"])
            print(f"presence across processes: left {time.monotonic() - left:.3f} s")
            assert gone["here"] == [1] and [a["seat"] for a in gone["away"]] == [0]
            # the stand-in may play for her 60 s after she left (as process one decides it),
            # not 60 s after whenever two last looked
            countdown = gone["away"][0]["standin_in"]
            assert countdown is not None and 60 - (time.monotonic() - left) - 0.5 <= countdown <= 60

    asyncio.run(body())


def test_a_page_opened_at_another_process_is_told_at_once_who_is_there(db_url: str) -> None:
    """Anna is at process one; Ben opens his page at process two, which had not loaded the
    game: it reads who is at the other processes as he comes, not at its next look."""
    if not db_url.startswith("postgresql"):
        return

    async def body() -> None:
        async with processes(db_url) as (one, two):
            live, toks = await two_people(one)
            await one.connect(live, Connection({0: toks[0]}))
            await until_async(lambda: 0 in one.storage.last_seen(live.row.id), "her note")
            there = await two.fetch(live.row.id)
            ben = Connection({1: toks[1]}, presence=True)
            await two.connect(there, ben)
            two.tell_presence(there, to=ben)
            await presence_told(ben, lambda m: m["here"] == [0, 1])

    asyncio.run(body())


def test_a_person_at_two_processes_who_leaves_one_is_still_at_the_table(db_url: str) -> None:
    """Each process notes its own connections: Anna with a tab at each of two processes who
    closes one is still at the table for the third (and no countdown to a stand-in starts)."""
    if not db_url.startswith("postgresql"):
        return

    async def body() -> None:
        async with processes(db_url, 3) as (one, two, three):
            live, toks = await two_people(one)
            watcher = Connection({1: toks[1]}, presence=True)
            at_three = await three.fetch(live.row.id)
            await three.connect(at_three, watcher)
            three.tell_presence(at_three, to=watcher)
            at_one, at_two = Connection({0: toks[0]}), Connection({0: toks[0]})
            await one.connect(live, at_one)
            await two.connect(await two.fetch(live.row.id), at_two)
            await presence_told(watcher, lambda m: m["here"] == [0, 1])
            one.disconnect(live, at_one)  # her tab at one closes
            await until_async(lambda: 0 in at_three.left, "three hearing that she left one")
            await until_async(lambda: not (at_three.notes_read and not at_three.notes_read.done()), "three reading the notes")
            here = presence_of(at_three)[1]
            assert here["here"] == [0, 1] and here["away"] == []  # she is at two

    asyncio.run(body())


def count_clock_reads(storage: Storage) -> list[str]:
    """The statements that read the clocks table from now on (appended as they run)."""
    seen: list[str] = []

    def before(conn: Any, cursor: Any, statement: str, *args: Any) -> None:
        if statement.lstrip().upper().startswith("SELECT") and "FROM clocks" in statement:
            seen.append(statement)

    event.listen(storage.engine, "before_cursor_execute", before)
    return seen


class CountedTime(FakeTime):
    """A fake clock that counts how often it is read (the watcher reads it once a look)."""

    def __init__(self) -> None:
        super().__init__()
        self.reads = 0

    def __call__(self) -> float:
        self.reads += 1
        return self.t


@pytest.mark.parametrize("games", [10, 2000])
def test_the_clock_watcher_reads_the_database_only_when_a_deadline_comes(db_url: str, games: int) -> None:
    """With many clocks stored, far ahead: the watcher's looks (every few ms here) do not
    read the clocks table, however many there are; a deadline stored by this process, or
    by another (announced: PostgreSQL), is acted on when it comes."""

    async def body() -> None:
        group = processes(db_url) if db_url.startswith("postgresql") else alone(db_url)
        async with group as services:
            clock = CountedTime()
            for s in services:
                s.now = clock
            svc, other = services[0], services[-1]
            far = clock() + 86400.0
            with svc.storage.engine.begin() as conn:
                conn.execute(
                    text("INSERT INTO clocks (game_id, version, seat, deadline, reserves, updated) VALUES (:g, 0, 0, :d, '[null]', 0)"),
                    [{"g": f"g{i:05d}", "d": far + i} for i in range(games)],
                )
            stop = asyncio.Event()
            watch = asyncio.create_task(svc.watch_clocks(stop, every=0.005))
            try:
                await until_async(lambda: clock.reads >= 5, "the first looks")
                reads = count_clock_reads(svc.storage)
                looks = clock.reads
                await until_async(lambda: clock.reads >= looks + 100, "a hundred looks")
                assert reads == [], f"{len(reads)} reads of the clocks in {clock.reads - looks} looks"
                # a deadline comes: read once, acted on (the row is unknown to the games: not claimed)
                clock.advance(86400.0 + 0.5)
                # read twice: the passed deadlines, then the next one (check_clocks), each in a thread
                await until_async(lambda: len(reads) >= 2, "the reads of the passed deadline and the next one")
                # another process stores a deadline before the next one: this watcher hears of it
                reads.clear()
                soon = clock() + 10.0
                await asyncio.to_thread(other.storage.save_clock, ClockRow("soon", 0, 0, soon, [None]), clock())
                if other is svc:  # one process (SQLite): it stored the deadline itself (as _write_clock tells it)
                    svc.deadline_elsewhere(soon)
                looks = clock.reads
                await until_async(lambda: clock.reads >= looks + 20, "twenty looks")
                assert reads == []  # not yet
                clock.advance(10.0)
                await until_async(lambda: len(reads) >= 1, "the read of the announced deadline")
            finally:
                stop.set()
                await watch

    asyncio.run(body())


@asynccontextmanager
async def alone(db_url: str) -> AsyncIterator[list[GameService]]:
    svc = GameService(Storage(db_url), bot_pause=0.0)
    try:
        yield [svc]
    finally:
        svc.executor.shutdown(wait=False, cancel_futures=True)
        svc.storage.close()


@pytest.mark.usefixtures("cheap_hashes")
def test_a_suspended_seats_turn_at_a_turn_based_table_runs_out_at_once(tmp_path: Path, db_url: str) -> None:
    """Anna's account is suspended on her turn of a turn-based game (a day a turn): the
    stand-in plays for her now, not a day later."""
    clock = FakeTime()
    with client_for(tmp_path, db_url, clock) as c:
        gid, _, _, _ = table(c, mode="turn", clock={"days": 1})
        svc = service(c)
        portal_call(c, svc.clocks_stored)
        assert portal_call(c, svc.check_clocks) == []  # a day to go
        Admin(svc.storage, "ops").suspend("Anna", 3, "insults in game")
        assert apply_pending(c) == 1
        clock.advance(0.01)
        assert portal_call(c, svc.check_clocks) == [gid]  # her turn ran out
        assert svc.get(gid).row.seats[0].standin
        # the others are told that she is not at the table, not that her time ran out (nor why)
        assert [(kind, name) for kind, name, _ in chat_kinds(c, gid)] == [("away", "Anna")]


@pytest.mark.usefixtures("cheap_hashes")
def test_a_seat_barred_at_one_process_has_its_turn_run_out_at_another(tmp_path: Path, pg: Any) -> None:
    """Process a bars Bert's seat (his account suspended); Anna's move that brings his turn
    is made at process b, which hears of the bar (the seat's change is announced and read
    before the move): his turn's deadline is now there, and b's watcher has the stand-in play."""
    db_url = str(pg.new_database())
    clock, rng = FakeTime(), random.Random(6)
    with client_for(tmp_path / "a", db_url, clock) as a, client_for(tmp_path / "b", db_url, clock) as b:
        gid, toks, _, _ = table(a, mode="turn", clock={"days": 1})
        assert state(b, gid)["view"]["current"] == 0  # b holds the game too
        Admin(service(a).storage, "ops").suspend("Bert", 3, "insults in game")
        portal_call(a, service(a).bar_seat, gid, 1)  # (what apply_pending does at a)
        assert play_turn(b, gid, toks, rng) == 0
        clock.advance(0.01)
        assert portal_call(b, service(b).check_clocks) == [gid]
        portal_call(b, service(b).wait_idle, gid)
        assert state(b, gid)["players"][1]["standin"] and state(b, gid)["view"]["current"] == 0
