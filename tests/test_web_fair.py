"""Bots' thinking is shared fairly (fair.py): games with people go first, and one address
may run only a few games of bots only at once."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import pytest
from web_helpers import make_client

from kardinal.server.play.fair import BOTS_ONLY, PEOPLE, FairSlots
from kardinal.server.play.tables import MAX_BOT_GAMES


def test_people_go_before_bots_only_and_each_kind_in_turn() -> None:
    async def run() -> list[str]:
        slots = FairSlots(1)
        order: list[str] = []
        gate = asyncio.Event()

        async def job(name: str, priority: int) -> None:
            async with slots.slot(priority):
                order.append(name)
                if name == "first":
                    await gate.wait()

        first = asyncio.create_task(job("first", BOTS_ONLY))
        await asyncio.sleep(0)
        others = [
            asyncio.create_task(job(n, p))
            for n, p in (("bots-1", BOTS_ONLY), ("bots-2", BOTS_ONLY), ("people-1", PEOPLE), ("people-2", PEOPLE))
        ]
        await asyncio.sleep(0)
        assert slots.waiting() == 4 and slots.waiting(PEOPLE) == 2
        gate.set()
        await asyncio.gather(first, *others)
        assert slots.free == 1
        return order

    assert asyncio.run(run()) == ["first", "people-1", "people-2", "bots-1", "bots-2"]


def test_a_cancelled_waiter_gives_its_turn_on() -> None:
    async def run() -> list[str]:
        slots = FairSlots(1)
        order: list[str] = []
        gate = asyncio.Event()

        async def job(name: str) -> None:
            async with slots.slot(PEOPLE):
                order.append(name)
                if name == "a":
                    await gate.wait()

        a = asyncio.create_task(job("a"))
        await asyncio.sleep(0)
        b = asyncio.create_task(job("b"))
        c = asyncio.create_task(job("c"))
        await asyncio.sleep(0)
        b.cancel()
        gate.set()
        await asyncio.gather(a, c)
        with pytest.raises(asyncio.CancelledError):
            await b
        assert slots.free == 1 and slots.waiting() == 0
        return order

    assert asyncio.run(run()) == ["a", "c"]


@pytest.fixture
def slow_client(tmp_path: Path) -> Any:
    with make_client(tmp_path, bot_pause=5.0) as c:  # slow bots: the games keep running
        yield c


def test_one_address_runs_a_few_bot_only_games_at_once(slow_client: Any) -> None:
    bots = {"players": [{"kind": "bot", "level": "random"}] * 3}
    for _ in range(MAX_BOT_GAMES):
        assert slow_client.post("/api/games", json=bots).status_code == 200
    r = slow_client.post("/api/games", json=bots)
    assert r.status_code == 429 and r.json()["error"]["code"] == "too_many_bot_games"
    assert r.json()["error"]["params"] == {"max": MAX_BOT_GAMES}
    # a game with a person in it is always possible
    r = slow_client.post("/api/games", json={"players": [{"kind": "person"}] + [{"kind": "bot", "level": "random"}] * 2})
    assert r.status_code == 200
