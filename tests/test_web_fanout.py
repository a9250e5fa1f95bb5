"""Many spectators on one game (issue 45): what waits for a connection is bounded (a
spectator's newest state waits as one message, whatever it missed), a reader that does not
keep up holds up neither the players nor the other spectators, a player's connection never
skips anything (one that does not read is closed, and its page comes back for the whole
state), and a state message is made into a WebSocket frame once for everyone it goes to."""

from __future__ import annotations

import asyncio
import json
import random
from typing import Any

import pytest
from test_web_load_messages import Client, _live

from kardinal.server.play.live import OUTBOX_MAX, Connection, LiveGame, Outbox
from kardinal.server.play.ws import BEHIND, _At, _send_loop, frame


class FakeDirect:
    """A connection's socket written to at once (ws._Direct), taking more or not."""

    def __init__(self, ready: bool = True) -> None:
        self.open = ready
        self.frames: list[str] = []

    def ready(self) -> bool:
        return self.open

    def write(self, *texts: str) -> None:
        self.frames += texts


class FakeSocket:
    """A WebSocket whose reader reads everything sent the ASGI way, or (``stuck``) never
    reads: a send to it waits for ever."""

    def __init__(self, stuck: bool = False) -> None:
        self.sent: list[str] = []
        self.stuck = stuck
        self.closed: int | None = None

    async def send_text(self, text: str) -> None:
        if self.stuck:
            await asyncio.Event().wait()
        self.sent.append(text)

    async def close(self, code: int = 1000) -> None:
        self.closed = code


def _move(live: LiveGame, rng: random.Random) -> None:
    st = live.state.copy()
    st.play(rng.choice(st.legal_moves()))
    live.state = st


async def _drained(conn: Connection) -> None:
    """Until the connection's sender took everything waiting (turns of the loop, no clock)."""
    for _ in range(10_000):
        if conn.outbox.empty():
            return
        await asyncio.sleep(0)
    raise AssertionError("the sender did not take its outbox")


def test_a_slow_spectator_holds_up_nobody_and_gets_the_newest_state_not_every_one() -> None:
    async def run() -> None:
        live = _live(5)
        rng = random.Random(5)
        player = Connection({0: "t"}, delta=True)
        fast = Connection({}, delta=True)
        fast.direct = FakeDirect()
        slow = Connection({}, delta=True)  # its reader does not keep up: its socket takes nothing now
        slow.direct = FakeDirect(ready=False)
        stuck = Connection({}, delta=True)  # sent to the ASGI way, by a reader that never reads
        live.conns.update([player, fast, slow, stuck])
        to_player, to_stuck = FakeSocket(), FakeSocket(stuck=True)
        senders = [
            asyncio.create_task(_send_loop(to_player, None, _At(live), player)),  # type: ignore[arg-type]
            asyncio.create_task(_send_loop(to_stuck, None, _At(live), stuck)),  # type: ignore[arg-type]
        ]
        moves = 30
        for i in range(moves):  # as GameService._tell does: the players, then the spectators
            _move(live, rng)
            player.notify()
            player.outbox.put_nowait({"type": "ack", "id": f"a{i}", "version": live.version, "index": i, "duplicate": False})
            for c in (fast, slow, stuck):
                c.tell(live)
            await _drained(player)
        # the player got every acknowledgement, in order, and every decision of the game
        seen = Client()
        acks = []
        for text in to_player.sent:
            m = json.loads(text)
            if m["type"] == "ack":
                acks.append(m["id"])
            else:
                assert seen.take(text) == live.message(0) or m["version"] < live.version
        assert acks == [f"a{i}" for i in range(moves)]
        assert seen.history == live.message(0)["view"]["history"] and len(seen.history) == moves
        # the spectator who reads got each state at once, straight to its socket
        watcher = Client()
        assert len(fast.direct.frames) == moves
        assert [watcher.take(t)["version"] for t in fast.direct.frames] == list(range(1, moves + 1))
        assert watcher.take(fast.direct.frames[-1]) == live.message(None)
        # the ones who do not read have only the newest state waiting, not a message per change
        assert slow.outbox.qsize() == 1 and stuck.outbox.qsize() <= 1
        # once it reads again, the slow one gets that newest state: one message, not thirty
        slow.direct.open = True
        to_slow = FakeSocket()
        catching_up = asyncio.create_task(_send_loop(to_slow, None, _At(live), slow))  # type: ignore[arg-type]
        await _drained(slow)
        assert slow.direct.frames == [live.text_for(Connection({}, delta=True))] and to_slow.sent == []
        assert Client().take(slow.direct.frames[0]) == live.message(None)
        for t in [*senders, catching_up]:
            t.cancel()

    asyncio.run(run())


def test_a_player_that_does_not_read_is_closed_never_skipped() -> None:
    """A player's outbox keeps every message, in order; past OUTBOX_MAX waiting (its reader
    is gone or stuck) the connection is closed (BEHIND) instead of dropping any: its page
    comes back and gets the whole state."""

    async def run() -> None:
        live = _live(2)
        player = Connection({0: "t"}, delta=True)
        for i in range(OUTBOX_MAX + 10):
            player.outbox.put_nowait({"type": "ack", "id": f"a{i}", "version": 0, "index": i, "duplicate": False})
        assert player.outbox.qsize() == OUTBOX_MAX and player.outbox.overflowed
        assert [m["id"] for m in player.outbox.items if m is not None][:3] == ["a0", "a1", "a2"]
        ws = FakeSocket()
        await _send_loop(ws, None, _At(live), player)  # type: ignore[arg-type]
        assert ws.closed == BEHIND and ws.sent == []

    asyncio.run(run())


def test_what_waits_for_a_spectator_is_the_newest_of_each_kind() -> None:
    spectator, player = Outbox(latest_only=True), Outbox()
    chat: dict[str, Any] = {"type": "chat", "lines": []}
    for box in (spectator, player):
        box.put_nowait(None)
        box.put_nowait(chat)  # type: ignore[arg-type]
        box.put_nowait({"type": "presence", "game": "g", "here": [0], "away": []})
        box.put_nowait(None)
        box.put_nowait({"type": "presence", "game": "g", "here": [0, 1], "away": []})
        box.put_nowait(None)
        box.put_nowait(None)
    # a spectator: one state notice wherever it waits, the newest presence, every chat line
    assert [m if m is None else m["type"] for m in spectator.items] == [None, "chat", "presence"]
    assert spectator.items[2]["here"] == [0, 1]  # type: ignore[index]
    # a player: everything in order; only a run of state notices waits as one
    assert [m if m is None else m["type"] for m in player.items] == [None, "chat", "presence", None, "presence", None]
    assert spectator.ready.is_set()
    while not spectator.empty():
        spectator.get_nowait()
    assert not spectator.ready.is_set()


@pytest.mark.parametrize("size", [0, 125, 126, 65535, 65536, 200_000])
def test_a_frame_is_what_the_websocket_library_makes(size: int) -> None:
    from websockets.frames import Frame, Opcode

    text = "é" * (size // 2) + "x" * (size % 2)
    assert frame(text) == Frame(Opcode.TEXT, text.encode()).serialize(mask=False)
    assert frame(text) is frame(text)  # made once for everyone it goes to


def test_a_welcome_and_the_state_go_in_one_write_and_only_the_states_frame_is_kept() -> None:
    """_Direct.write(welcome, state): one write of both frames, in order; the shared state's
    frame is kept for the next connection, the connection's own welcome's is not (a crowd
    of welcomes would push the shared frames out)."""
    from websockets.frames import Frame, Opcode

    from kardinal.server.play.ws import _Direct, _frames

    class Transport:
        def __init__(self) -> None:
            self.writes: list[bytes] = []

        def write(self, data: bytes) -> None:
            self.writes.append(data)

    class Proto:
        transport = Transport()

    state = '{"type":"state","version":3}'
    welcomes = [f'{{"type":"welcome","game":"g{i}","seats":[]}}' for i in range(40)]
    direct = _Direct(Proto())
    for w in welcomes:
        direct.write(w, state)
    writes = Proto.transport.writes
    assert len(writes) == len(welcomes)
    assert writes[0] == Frame(Opcode.TEXT, welcomes[0].encode()).serialize(mask=False) + Frame(Opcode.TEXT, state.encode()).serialize(
        mask=False
    )
    assert _frames[id(state)][0] is state and not any(v[0] in welcomes for v in _frames.values())
