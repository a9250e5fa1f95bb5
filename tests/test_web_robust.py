"""Defects under concurrency and untrusted input (GameService), on SQLite and PostgreSQL:
"Play again" pressed by several people at once (also through two processes, and after the
finished game was forgotten by memory), the cap on games of bots only (also
through a stand-in for the only person of a table), names unique per table, creation
made once per client key, and one game's failing write in a group commit."""

from __future__ import annotations

import asyncio
import logging
import random
import threading
import time
from collections.abc import Awaitable, Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import replace
from pathlib import Path
from typing import Any, TypeVar

import pytest
from fastapi.testclient import TestClient
from web_helpers import LENIENT, make_client, state

from kardinal.rules.record import action_of
from kardinal.server.common.guard import Guard
from kardinal.server.common.refusal import Refused
from kardinal.server.play import tables
from kardinal.server.play.fair import BOTS_ONLY, PEOPLE
from kardinal.server.play.live import Connection, LiveGame
from kardinal.server.play.service import GameService
from kardinal.server.play.tables import MAX_BOT_GAMES
from kardinal.server.storage import PendingAction, Storage
from kardinal.server.web.app import create_app

T = TypeVar("T")
A, B = "192.0.2.1", "192.0.2.2"  # two addresses
BOTS3: dict[str, Any] = {"players": [{"kind": "bot", "level": "random"}] * 3}


def run(db_url: str, body: Callable[[GameService], Awaitable[T]], bot_pause: float = 0.0) -> T:
    """``body`` on a service of its own over ``db_url``, on a new event loop."""

    async def main() -> T:
        svc = GameService(Storage(db_url), bot_pause=bot_pause)
        try:
            return await body(svc)
        finally:
            for live in svc.live.values():
                if live.bot_task is not None:
                    live.bot_task.cancel()
            await asyncio.sleep(0)
            svc.executor.shutdown(wait=False, cancel_futures=True)
            svc.storage.close()

    return asyncio.run(main())


async def until(pred: Callable[[], Any], timeout: float = 30.0, what: str = "") -> Any:
    end = time.monotonic() + timeout
    while not (v := pred()):
        assert time.monotonic() < end, f"waited in vain: {what}"
        await asyncio.sleep(0.005)
    return v


def people(*kinds: str, **options: Any) -> dict[str, Any]:
    """A creation request: "person", "open" (a person seat anyone may take) or "bot"."""
    players = [
        {"name": f"B{i}", "kind": "bot", "level": "random"}
        if k == "bot"
        else {"name": f"P{i}", "kind": "person", **({"open": True} if k == "open" else {})}
        for i, k in enumerate(kinds)
    ]
    return {"players": players, **options}


async def joined(svc: GameService, spec: dict[str, Any], creator: str | None = None) -> tuple[LiveGame, dict[int, str]]:
    live, toks = await svc.create(spec, creator=creator)
    for seat, tok in toks.items():
        await svc.join(live.row.id, seat, tok)
    return live, toks


async def play_out(svc: GameService, live: LiveGame, toks: dict[int, str], rng: random.Random) -> None:
    """Random moves of the people (the bots play on their own) to the end."""
    while live.row.status != "finished":
        cur = live.state.current
        if cur in toks and live.acting_level(cur) is None:
            move = rng.choice(live.state.legal_moves())
            msg = {"seat": cur, "token": toks[cur], "version": live.version, "action": action_of(cur, move)}
            await svc.submit(live.row.id, msg)
        else:
            await asyncio.sleep(0.001)


async def finished_bots(svc: GameService, creator: str | None = None) -> LiveGame:
    live, _ = await svc.create(BOTS3, creator=creator)
    await until(lambda: live.row.status == "finished", 60, "the bots to finish")
    return live


def stored(svc: GameService) -> int:
    return len(svc.storage.list_games(None, None))


# -- 1. "Play again" pressed at once ---------------------------------------------------------


def test_play_again_pressed_at_once_by_everyone_makes_one_game(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        # a game of bots only: anyone may ask; five at once, one new game, charged once
        old = await finished_bots(svc, A)
        charged: list[int] = []
        news = await asyncio.gather(*(svc.again(old.row.id, None, creator=A, charge=lambda: charged.append(1)) for _ in range(5)))
        assert len({n.row.id for n in news}) == 1 and news[0].row.id != old.row.id
        assert charged == [1] and stored(svc) == 2
        assert news[0].creator == A  # counted against the presser's bot-only games
        assert (await svc.again(old.row.id, None, creator=B, charge=lambda: charged.append(1))).row.id == news[0].row.id
        assert charged == [1]
        # a game of people: each presses with their own seat; one game, the tokens still theirs
        live, toks = await joined(svc, people("person", "bot", "person"))
        await play_out(svc, live, toks, random.Random(3))
        presses = [svc.again(live.row.id, {s: toks[s]}, creator=B, charge=lambda: charged.append(2)) for s in (0, 2, 0, 2, 0)]
        news = await asyncio.gather(*presses)
        assert len({n.row.id for n in news}) == 1 and charged == [1, 2] and stored(svc) == 4
        new = news[0]
        for seat, tok in toks.items():  # each at the seat they moved to (the start player moved on)
            await svc.join(new.row.id, (seat - 1) % 3, tok)
        assert new.row.status == "running"
        assert live.message(None)["again"] == new.row.id
        # untrusted seat keys: refused as a wrong seat, never another error
        for bad in ({"²": toks[0]}, {"9" * 5000: toks[0]}, {True: toks[0]}, {"-1": toks[0]}, {None: toks[0]}, {0.0: toks[0]}):
            with pytest.raises(Refused) as e:
                await svc.again(live.row.id, bad)  # type: ignore[arg-type]
            assert e.value.code == "bad_token", bad
        bad_seats: Any
        for bad_seats in (None, {}, [0], "0"):
            with pytest.raises(Refused) as e:
                await svc.again(live.row.id, bad_seats)
            assert e.value.code == "bad_token"
        assert (await svc.again(live.row.id, {"2": toks[2]})).row.id == new.row.id  # type: ignore[dict-item]

    run(db_url, body)


def test_play_again_pressed_at_once_over_http_makes_one_game(tmp_path: Path, db_url: str) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        gid = c.post("/api/games", json=BOTS3).json()["id"]
        end = time.monotonic() + 60
        while state(c, gid)["status"] != "finished":
            assert time.monotonic() < end, "the bots did not finish"
            time.sleep(0.01)
        start = threading.Barrier(5)

        def press() -> Any:
            start.wait()
            return c.post(f"/api/games/{gid}/again", json={})

        with ThreadPoolExecutor(5) as pool:
            answers = list(pool.map(lambda _: press(), range(5)))
        assert [r.status_code for r in answers] == [200] * 5, [r.text for r in answers]
        assert len({r.json()["id"] for r in answers}) == 1
        assert len(c.get("/api/games").json()["games"]) == 2


def test_play_again_of_bots_only_counts_against_the_pressers_cap(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        first, second = await finished_bots(svc), await finished_bots(svc)
        svc.bot_pause = 60.0  # the games made from now on keep running
        for _ in range(MAX_BOT_GAMES - 1):
            await svc.create(BOTS3, creator=A)
        news = await asyncio.gather(*(svc.again(first.row.id, None, creator=A) for _ in range(5)))
        assert len({n.row.id for n in news}) == 1
        assert svc.bot_games_of(A) == MAX_BOT_GAMES
        charged: list[int] = []
        with pytest.raises(Refused) as e:
            await svc.again(second.row.id, None, creator=A, charge=lambda: charged.append(1))
        assert e.value.code == "too_many_bot_games" and e.value.status == 429 and charged == []
        assert stored(svc) == 2 + MAX_BOT_GAMES
        # another address may
        assert (await svc.again(second.row.id, None, creator=B)).creator == B

    run(db_url, body)


def test_creations_at_once_keep_to_the_cap_of_bot_only_games(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        for _ in range(MAX_BOT_GAMES - 2):
            await svc.create(BOTS3, creator=A)
        out = await asyncio.gather(*(svc.create(BOTS3, creator=A) for _ in range(5)), return_exceptions=True)
        refused = [x for x in out if isinstance(x, Refused)]
        assert len(refused) == 3 and {x.code for x in refused} == {"too_many_bot_games"}
        assert svc.bot_games_of(A) == MAX_BOT_GAMES == stored(svc)

    run(db_url, body, bot_pause=60.0)


def test_a_failed_charge_makes_no_game(tmp_path: Path) -> None:
    def over() -> None:
        raise Refused("rate_limited", "slow down", 429)

    async def body(svc: GameService) -> None:
        old = await finished_bots(svc)
        with pytest.raises(Refused) as e:
            await svc.again(old.row.id, None, creator=A, charge=over)
        assert e.value.code == "rate_limited" and old.again is None and stored(svc) == 1
        assert svc.bot_games_of(A) == 0
        assert (await svc.again(old.row.id, None, creator=A)).row.id == old.again

    run(f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}", body)


def run_two(db_url: str, body: Callable[[GameService, GameService], Awaitable[T]]) -> T:
    """``body`` on two services over one database (two server processes' worth: each its
    own Storage, so its own connections, process id and leases), on a new event loop."""

    async def main() -> T:
        one, two = GameService(Storage(db_url), bot_pause=0.0), GameService(Storage(db_url), bot_pause=0.0)
        try:
            return await body(one, two)
        finally:
            for svc in (one, two):
                for live in svc.live.values():
                    if live.bot_task is not None:
                        live.bot_task.cancel()
            await asyncio.sleep(0)
            for svc in (one, two):
                svc.executor.shutdown(wait=False, cancel_futures=True)
                svc.storage.close()

    return asyncio.run(main())


def meet_before_creating(*services: GameService) -> list[int]:
    """Each service's next creations wait until every one of them has begun one (two
    presses racing, every time); the list counts those begun. ``del svc._create`` ends it."""
    arrived: list[int] = []
    everyone = asyncio.Event()
    for svc in services:
        real = svc._create

        async def meet(*args: Any, real: Any = real, **kwargs: Any) -> Any:
            arrived.append(1)
            if len(arrived) == len(services):
                everyone.set()
            await asyncio.wait_for(everyone.wait(), 10)
            return await real(*args, **kwargs)

        svc._create = meet  # type: ignore[method-assign]
    return arrived


def test_play_again_after_the_finished_game_was_forgotten_gives_the_same_game(db_url: str) -> None:
    """The follow-up is stored: a press after the finished game was dropped from memory
    (sweep: nobody looked at it for a minute; or evicted) gets the game the first press
    made, where the others wait; before, the link was in memory only and a second game was made."""

    async def body(svc: GameService) -> None:
        # people: seat 0 presses, the game is forgotten, seat 2 presses later
        live, toks = await joined(svc, people("person", "bot", "person"))
        await play_out(svc, live, toks, random.Random(5))
        await svc.wait_idle(live.row.id)
        new = await svc.again(live.row.id, {0: toks[0]}, creator=A)
        assert svc.sweep(now=time.monotonic() + 10**6) >= 1 and live.row.id not in svc.live
        later = await svc.again(live.row.id, {2: toks[2]}, creator=B)
        assert later.row.id == new.row.id and stored(svc) == 2
        back = svc.live[live.row.id]
        assert back is not live and back.again == new.row.id and back.message(2)["again"] == new.row.id
        for seat, tok in toks.items():  # the tokens are still theirs, at the seats they moved to
            await svc.join(new.row.id, (seat - 1) % 3, tok)
        assert svc.live[new.row.id].row.status == "running"
        # bots only, evicted from memory (more games than max_live) between two presses
        old = await finished_bots(svc, A)
        charged: list[int] = []
        first = await svc.again(old.row.id, None, creator=A, charge=lambda: charged.append(1))
        del svc.live[old.row.id]
        svc.live.pop(first.row.id, None)
        second = await svc.again(old.row.id, None, creator=B, charge=lambda: charged.append(2))
        assert second.row.id == first.row.id and charged == [1] and stored(svc) == 4

    run(db_url, body)


def test_a_reloaded_finished_game_names_its_follow_up(db_url: str) -> None:
    """A finished game read again from the database (another server process, or this one
    after a restart) names the game "Play again" started after it in its state messages."""

    async def body(svc: GameService) -> tuple[str, str, dict[int, str]]:
        live, toks = await joined(svc, people("person", "person", "bot"))
        await play_out(svc, live, toks, random.Random(8))
        new = await svc.again(live.row.id, {1: toks[1]})
        assert live.message(None)["again"] == new.row.id
        return live.row.id, new.row.id, toks

    old, new, toks = run(db_url, body)

    async def restarted(svc: GameService) -> None:
        live = await svc.fetch(old)
        assert live.again == new
        assert live.message(None)["again"] == new and live.message(0)["again"] == new
        assert f'"again":"{new}"' in live.message_text(1).replace(" ", "")
        assert (await svc.again(old, {0: toks[0]})).row.id == new and stored(svc) == 2

    run(db_url, restarted)


def test_play_again_pressed_through_two_processes_at_once_makes_one_game(db_url: str) -> None:
    """Two server processes on one database, a person pressing on each at the same moment
    (both have read the finished game, neither has seen a follow-up yet): one new game, and
    both get it; the other process's game is never stored."""

    async def body(one: GameService, two: GameService) -> None:
        for round_ in range(3):
            live1, toks = await joined(one, people("person", "bot", "person"))
            await play_out(one, live1, toks, random.Random(round_))
            live2 = await two.fetch(live1.row.id)
            assert live2.row.status == "finished" and live2.again is None
            # both have found no follow-up and go on to make one before either stores it
            # (the race, every time): each creation waits until the other's has begun
            arrived = meet_before_creating(one, two)
            a, b = await asyncio.gather(one.again(live1.row.id, {0: toks[0]}), two.again(live1.row.id, {2: toks[2]}))
            assert len(arrived) == 2
            assert a.row.id == b.row.id != live1.row.id
            assert live1.again == live2.again == a.row.id
            assert live1.message(None)["again"] == live2.message(None)["again"] == a.row.id
            assert stored(one) == 2 * (round_ + 1)  # the old game and one new one per round
            for svc in (one, two):  # the other game is kept nowhere
                assert all(svc.storage.get_game(gid) is not None for gid in svc.live)
                del svc._create
            for seat, tok in toks.items():  # their tokens hold in the one new game, on both (the start player moved on)
                await (one if seat == 0 else two).join(a.row.id, (seat - 1) % 3, tok)

    run_two(db_url, body)


def test_another_process_learns_the_follow_up_when_it_catches_up(db_url: str) -> None:
    """A process holding the finished game reads its follow-up when it catches up with the
    database (the announcement of the change, PostgreSQL: _catch_up_locked reads the row
    again), and tells its connections; a press there then gets that game."""

    async def body(one: GameService, two: GameService) -> None:
        old = await finished_bots(one)
        there = await two.fetch(old.row.id)
        conn = Connection({})
        await two.connect(there, conn)
        new = await one.again(old.row.id, None)
        two.changed_elsewhere(old.row.id)
        await until(lambda: there.again == new.row.id, 10, "the other process to read the follow-up")
        assert there.message(None)["again"] == new.row.id
        assert (await two.again(old.row.id, None)).row.id == new.row.id and stored(two) == 2

    run_two(db_url, body)


# -- 2. no stand-in for the last person; bot-only means played by bots ------------------------


def test_nobody_stands_in_for_the_only_person_at_a_table_of_bots(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        live, _ = await joined(svc, people("person", "bot", "bot", away=1), creator=A)  # joined, never connected
        await until(lambda: live.state.current == 0 and (live.bot_task is None or live.bot_task.done()), what="the person's turn")
        live.gone[0] = time.monotonic() - 60  # away for a minute
        assert not await svc.check_away(live)
        assert not live.row.seats[0].standin and not live.bots_only and svc.bot_games_of(A) == 0
        version = live.version
        await asyncio.sleep(0.2)
        assert live.version == version and live.state.current == 0  # the game waits for them

    run(db_url, body)


def test_a_table_of_two_people_gets_its_standin_but_not_for_the_last_one(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        live, toks = await joined(svc, people("person", "person", "bot", away=1), creator=A)
        anna = Connection({0: toks[0]})
        await svc.connect(live, anna)
        rng = random.Random(1)
        while live.state.current != 1:  # Anna plays until Ben (never connected) is to act
            if live.state.current == 0 and (live.bot_task is None or live.bot_task.done()):
                move = rng.choice(live.state.legal_moves())
                await svc.submit(live.row.id, {"seat": 0, "token": toks[0], "version": live.version, "action": action_of(0, move)})
            await asyncio.sleep(0.001)
        live.gone[1] = time.monotonic() - 60
        assert await svc.check_away(live)
        assert live.row.seats[1].standin and not live.bots_only and svc.bot_games_of(A) == 0
        await until(lambda: live.state.current != 1, what="the stand-in's move")
        # Anna leaves too: she is the last person; nobody plays for her
        svc.disconnect(live, anna)
        while live.state.current != 0:
            await asyncio.sleep(0.001)
            if live.state.current == 1:
                await svc.wait_idle(live.row.id)
        live.gone[0] = time.monotonic() - 60
        await svc.wait_idle(live.row.id)
        assert not await svc.check_away(live)
        assert not live.row.seats[0].standin and not live.bots_only

    run(db_url, body)


def test_a_table_every_seat_of_which_a_bot_plays_is_bots_only(tmp_path: Path) -> None:
    async def body(svc: GameService) -> None:
        live, _ = await joined(svc, people("person", "person", "bot", away=1), creator=A)
        assert not live.bots_only
        # every person stood in for (a state only an earlier version stored): nobody waits for
        # them, so no stand-in plays; the game waits for its people and is no game of bots
        live.row.seats = [replace(s, standin=True) if s.kind == "person" else s for s in live.row.seats]
        assert not live.bots_only and [live.acting_level(i) for i in (0, 1)] == [None, None]
        # a table every seat of which a bot plays
        live, _ = await joined(svc, people("bot", "bot", "bot"), creator=A)
        assert live.bots_only and svc.bot_games_of(A) == 1
        # its bots think after the people's games
        seen: list[int] = []
        real = svc.thinking.slot

        def slot(priority: int) -> Any:
            seen.append(priority)
            return real(priority)

        svc.thinking.slot = slot
        svc.start_bots(live)
        await until(lambda: seen, what="a bot to think")
        assert seen[0] == BOTS_ONLY
        # at a turn-based table nobody stands in: the people play their seats
        turn, _ = await joined(svc, people("person", "bot", "bot", mode="turn"), creator=A)
        turn.row.seats = [replace(s, standin=True) if s.kind == "person" else s for s in turn.row.seats]
        assert not turn.bots_only
        # a stand-in for one of two people: people are at the table
        two, _ = await joined(svc, people("person", "person", "bot"), creator=A)
        two.row.seats = [replace(s, standin=True) if i == 0 else s for i, s in enumerate(two.row.seats)]
        assert not two.bots_only and svc.bot_games_of(A) == 1
        seen.clear()
        svc.start_bots(two)
        if two.acting_level(two.state.current) is not None:
            await until(lambda: PEOPLE in seen, what="a bot of a table with people to think")

    run(f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}", body, bot_pause=0.01)


def test_the_reported_bypass_bots_no_longer_play_a_solo_persons_seat(tmp_path: Path, db_url: str) -> None:
    app = create_app(data_dir=tmp_path, db_url=db_url, bot_pause=0.0, guard=Guard(LENIENT), table_check=0.05)
    with TestClient(app) as c:
        players = [{"name": "Me", "kind": "person"}] + [{"kind": "bot", "level": "random"}] * 2
        g = c.post("/api/games", json={"players": players, "away": 1}).json()
        tok = g["seats"][0]["token"]
        assert c.post(f"/api/games/{g['id']}/join", json={"seat": 0, "token": tok}).status_code == 200
        end = time.monotonic() + 20
        while "legal" not in state(c, g["id"], 0, tok):
            assert time.monotonic() < end
            time.sleep(0.01)
        version = state(c, g["id"])["version"]
        time.sleep(1.6)  # longer than the away time, many looks at the table
        s = state(c, g["id"])
        assert s["version"] == version and s["view"]["current"] == 0 and not s["players"][0]["standin"]
        assert c.get(f"/api/games/{g['id']}/chat").json()["lines"] == []


# -- 3. names unique per table -----------------------------------------------------------------


def taken(e: pytest.ExceptionInfo[Refused], name: str) -> bool:
    v = e.value
    return v.code == "name_taken" and v.status == 409 and v.params == {"name": name} and name in v.message


def test_two_seats_of_a_new_table_may_not_have_one_name(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        for a, b in (("Anna", " ANNA "), ("Anna", "Ａｎｎａ"), ("Anna  Lee", "anna lee"), ("Straße", "STRASSE"), ("ﬁn", "Fin")):
            with pytest.raises(Refused) as e:
                await svc.create({"players": [{"name": a}, {"name": b}, {"kind": "bot"}]})
            assert taken(e, " ".join(b.split())), (a, b)
        with pytest.raises(Refused) as e:  # a bot's name too
            await svc.create({"players": [{"name": "Robo"}, {"kind": "bot", "name": "robo"}, {"kind": "bot"}]})
        assert taken(e, "robo")
        with pytest.raises(Refused) as e:  # a default name given to another seat
            await svc.create({"players": [{}, {"name": "player 1"}, {"kind": "bot"}]})
        assert taken(e, "player 1")
        assert stored(svc) == 0
        live, _ = await svc.create({"players": [{"name": "Anna"}, {"name": "Anne"}, {"kind": "bot"}]})
        assert live.names == ["Anna", "Anne", "Bot 3"]

    run(db_url, body)


def test_a_new_name_at_join_or_claim_may_not_be_another_seats(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        live, toks = await svc.create(people("person", "person", "bot", "open"))
        gid = live.row.id
        await svc.join(gid, 0, toks[0], "Bea")
        for name in ("bea", " BEA", "b2", "P3"):
            with pytest.raises(Refused) as e:
                await svc.join(gid, 1, toks[1], name)
            assert taken(e, name.strip())
        assert live.names == ["Bea", "P1", "B2", "P3"] and not live.row.seats[1].joined
        await svc.join(gid, 0, toks[0], "BEA")  # one's own name, written otherwise
        await svc.join(gid, 1, toks[1], "P0")  # nobody's now
        with pytest.raises(Refused) as e:
            await svc.claim(gid, 3, "p0")
        assert taken(e, "p0") and not live.row.seats[3].joined
        await svc.claim(gid, 3, "Cy")
        assert live.names == ["BEA", "P0", "B2", "Cy"] and live.row.status == "running"
        # two people choosing one name at once: one of them has it
        live, toks = await svc.create(people("person", "person", "bot"))
        out = await asyncio.gather(
            svc.join(live.row.id, 0, toks[0], "Zed"), svc.join(live.row.id, 1, toks[1], "zed"), return_exceptions=True
        )
        assert sum(isinstance(x, Refused) and x.code == "name_taken" for x in out) == 1
        assert sorted(n.lower() for n in live.names).count("zed") == 1
        live, _ = await svc.create(people("person", "open", "bot"))
        with pytest.raises(Refused) as e:
            await svc.claim(live.row.id, 1, "P0")
        assert taken(e, "P0")

    run(db_url, body)


def test_a_spectator_may_not_chat_under_a_players_name(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        live, _ = await joined(
            svc, {"players": [{"name": "Anna"}, {"kind": "bot", "name": "Robo"}, {"kind": "bot"}], "spectator_chat": True}
        )
        for name in ("anna", "ROBO", "Ａｎｎａ", " bot 3 "):
            with pytest.raises(Refused) as e:
                await svc.say(live.row.id, {}, "I am who I say", name)
            assert taken(e, name.strip()), name
        line = await svc.say(live.row.id, {}, "hi", "Kibitz")
        assert (line.seat, line.name) == (None, "Kibitz")
        assert [x.name for x in await svc.chat_lines(live)] == ["Kibitz"]

    run(db_url, body)


# -- 4. one game per client key ------------------------------------------------------------


def test_a_creation_key_makes_one_game_per_address(db_url: str) -> None:
    async def body(svc: GameService) -> None:
        spec = people("person", "person", "bot")
        charged: list[str] = []
        key = "k-" + "x" * 20
        two = await asyncio.gather(*(svc.create(spec, A, key) for _ in range(2)))
        (g1, t1), (g2, t2) = two
        assert g1.row.id == g2.row.id and t1 == t2 and stored(svc) == 1
        g3, t3 = await svc.create(spec, A, key)  # later: the same
        assert g3.row.id == g1.row.id and t3 == t1 and stored(svc) == 1
        # another address with the same key: its own game, never the first one's tokens
        g4, t4 = await svc.create(spec, B, key)
        assert g4.row.id != g1.row.id and set(t4.values()).isdisjoint(t1.values()) and stored(svc) == 2
        # a refused creation is not remembered: the form fixed, the same key makes the game
        key2 = "second_key_9"
        with pytest.raises(Refused):
            await svc.create({"players": [{"kind": "robot"}]}, A, key2)
        g5, _ = await svc.create(spec, A, key2)
        assert g5.row.id not in (g1.row.id, g4.row.id) and stored(svc) == 3
        assert (await svc.create(spec, A, key2))[0].row.id == g5.row.id
        # without a key every creation is new; a malformed key is refused
        assert (await svc.create(spec, A))[0].row.id != g1.row.id
        for bad in ("short", "y" * 65, "with space", "ümlaut12", 12345678, "\ud800" * 8):
            with pytest.raises(Refused) as e:
                await svc.create(spec, A, bad)  # type: ignore[arg-type]
            assert e.value.code == "malformed" and e.value.status == 400
        assert not charged
        # a double click charges once (the rate limit of creations)
        key3 = "third-key"
        await asyncio.gather(*(svc.create(spec, A, key3, charge=lambda: charged.append("c")) for _ in range(3)))
        assert charged == ["c"]

    run(db_url, body)


def test_creation_keys_are_kept_a_while_and_a_few_thousand_at_most(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(tables, "KEYS_KEPT", 2)

    async def body(svc: GameService) -> None:
        spec = people("person", "bot", "bot")
        first = (await svc.create(spec, A, "key-one-1"))[0].row.id
        for k in ("key-two-2", "key-three-3"):
            await svc.create(spec, A, k)
        assert len(svc._keys) == 2
        assert (await svc.create(spec, A, "key-three-3"))[0].row.id != first
        again = (await svc.create(spec, A, "key-one-1"))[0].row.id  # forgotten: a new game
        assert again != first
        monkeypatch.setattr(tables, "KEY_SECONDS", 0.0)
        assert (await svc.create(spec, A, "key-one-1"))[0].row.id != again  # too old: a new game
        # a game forgotten by memory is read again for a key sent again
        monkeypatch.setattr(tables, "KEY_SECONDS", 600.0)
        live, toks = await svc.create(spec, A, "key-four-4")
        del svc.live[live.row.id]
        back, toks2 = await svc.create(spec, A, "key-four-4")
        assert back is not live and back.row.id == live.row.id and toks2 == toks

    run(f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}", body)


# -- 5. one game's failing write in a group commit ---------------------------------------------


@pytest.mark.parametrize("mixed", [False, True], ids=["actions", "mixed"])
def test_one_games_failing_write_leaves_the_others_of_its_batch(db_url: str, mixed: bool, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.ERROR, logger="kardinal.web")

    async def body(svc: GameService) -> None:
        games = [await joined(svc, people("person", "person", "person")) for _ in range(3)]
        (g1, t1), (g2, t2), (bad, _) = games
        waiting, wtoks = await svc.create(people("person", "person", "bot"))

        def move(live: LiveGame, toks: dict[int, str], cid: str) -> dict[str, Any]:
            seat = live.state.current
            return {"seat": seat, "token": toks[seat], "version": 0, "id": cid, "action": action_of(seat, live.state.legal_moves()[0])}

        async def bad_move() -> int:
            async with bad.lock:
                return await svc._commit(bad, bad.state.current, bad.state.legal_moves()[0], "x\ud800")

        jobs: list[Awaitable[Any]] = [svc.submit(g1.row.id, move(g1, t1, "a")), bad_move(), svc.submit(g2.row.id, move(g2, t2, "b"))]
        if mixed:  # a new game and a seat change in the same transaction
            jobs += [svc.create(people("person", "bot", "bot")), svc.join(waiting.row.id, 0, wtoks[0], "Wanda")]
        out = await asyncio.gather(*jobs, return_exceptions=True)
        assert out[0] == {"type": "ack", "id": "a", "version": 1, "index": 0, "duplicate": False}
        assert out[2] == {"type": "ack", "id": "b", "version": 1, "index": 0, "duplicate": False}
        assert isinstance(out[1], Exception) and not isinstance(out[1], Refused)
        assert bad.version == 0 and svc.storage.count_actions(bad.row.id) == 0
        for g in (g1, g2):
            assert g.version == 1 and svc.storage.count_actions(g.row.id) == 1
            assert svc.storage.client_action(g.row.id, f"{g.state.history[0].seat}:{'a' if g is g1 else 'b'}") == 0  # type: ignore[index]
        if mixed:
            assert not isinstance(out[3], BaseException) and svc.storage.get_game(out[3][0].row.id) is not None
            row = svc.storage.get_game(waiting.row.id)
            assert row is not None and row.seats[0].name == "Wanda" and row.seats[0].joined
        # the failing game is named in one line, the others not at all
        lines = [r.getMessage() for r in caplog.records if bad.row.id in r.getMessage()]
        assert len(lines) == 1 and "\ud800" not in lines[0]
        assert not any(g.row.id in r.getMessage() for r in caplog.records for g in (g1, g2))
        # a duplicate in a failing batch is refused as it would have been in the batch
        seat = g1.state.current
        again = PendingAction(g1.row.id, 0, action_of(seat, g1.state.legal_moves()[0]), None)
        res = await asyncio.gather(svc._write(again), bad_move(), return_exceptions=True)
        assert type(res[0]).__name__ == "DuplicateAction" and isinstance(res[1], Exception)
        # and the games go on
        for g, toks in ((g1, t1), (g2, t2), (bad, games[2][1])):
            m = move(g, toks, "next")
            m["version"] = g.version
            await svc.submit(g.row.id, m)
        assert (g1.version, g2.version, bad.version) == (2, 2, 1)

    run(db_url, body)


def test_a_client_id_that_cannot_be_stored_is_malformed(tmp_path: Path) -> None:
    async def body(svc: GameService) -> None:
        live, toks = await joined(svc, people("person", "person", "person"))
        seat = live.state.current
        msg = {"seat": seat, "token": toks[seat], "version": 0, "id": "\ud800", "action": action_of(seat, live.state.legal_moves()[0])}
        with pytest.raises(Refused) as e:
            await svc.submit(live.row.id, msg)
        assert e.value.code == "malformed" and e.value.status == 400 and live.version == 0

    run(f"sqlite+pysqlite:///{tmp_path / 'k.sqlite3'}", body)


def test_bots_stop_with_the_server_and_wait_idle_waits_for_the_last_move(tmp_path: Path, caplog: Any) -> None:
    """Found by the fuzz tests: a bot loop that was handing over to a fresh one while it
    committed (its task briefly None) was not cancelled when the app stopped, so it went
    on against a shut executor ("cannot schedule new futures after shutdown", logged again
    and again); and wait_idle returned in that moment, with the bots' game still running."""

    async def body(svc: GameService) -> None:
        live, _ = await svc.create({"players": [{"kind": "bot", "level": "random"}] * 3})
        await svc.wait_idle(live.row.id)
        assert live.row.status == "finished", live.version

    run(f"sqlite+pysqlite:///{tmp_path / 'a.sqlite3'}", body)
    with caplog.at_level(logging.ERROR, logger="kardinal.web"):
        for _ in range(5):
            with make_client(tmp_path / "data", bot_pause=0.0) as c:
                c.post("/api/games", json={"players": [{"kind": "bot", "level": "random"}] * 3})
                c.post("/api/games", json={"players": [{"kind": "bot", "level": "random"}] * 4})
    assert [r.getMessage() for r in caplog.records if r.name == "kardinal.web"] == []
