"""Load test: simulated players and spectators against a running server, over loopback.

``kardinal loadtest --url http://127.0.0.1:8000 --games 50 --spectators 0 --seconds 20``
keeps GAMES live games of three simulated people each. Every person has its own
WebSocket, as a browser does (and asks for state messages as deltas of the history, with
its acknowledgements inside them, as the browser does); on its turn it sends a random
legal action, and the time from sending it to its acknowledgement is its latency.
SPECTATORS more sockets watch one more game, and the games that follow it ("Play
again"), from a process of their own; each follows within FOLLOW_SPREAD seconds, as
people who click the link do, over its own connection as the browser's page does. The clock starts a second (WARMUP) after every spectator
is connected and every person of the first games has its state. When a game ends a new
one is created, so the number of live games stays the same. The report: actions per
second and latency percentiles (p50, p90, p99, max) of the players' actions, and the
state messages the spectators received.

It measures a server someone started (``kardinal serve --bot-workers 0``); start it with
``--bot-pause 0`` if bots are to take part.

Two ways to load it:

- *Flat out* (the default): the simulated people never wait, so the figures are what the
  server can do (its capacity). The latency then follows from the throughput: with G
  games each waiting for its one move in flight, the mean latency is about G divided by
  the actions per second (Little's law), whatever the server does.
- *Paced* (``rate``): the games together offer RATE actions per second, each game one
  action every G/RATE seconds on a fixed schedule, as players who think would. A move's
  latency is counted from the moment it was due, not from when it was sent, so a server
  that falls behind is charged for every move waiting behind a slow one (no "coordinated
  omission"). This is the latency players feel at that load. The games start one after
  another over about the time a game takes, so that they end at different times as on a
  server in use; ``together`` starts them all at once (then they end within a second or
  two of each other, and as many new games begin at once).
"""

from __future__ import annotations

import array
import asyncio
import base64
import contextlib
import functools
import json
import multiprocessing
import os
import random
import time
import urllib.parse
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from typing import Any

from kardinal.tools.openfiles import raise_nofile

__all__ = ["LoadResult", "run_load"]

WARMUP = 1.0  # seconds between the start of the first games and the clock's
GAME_ACTIONS = 110  # about the actions of a game of three random players (paced games start spread over them)
# seconds within which the spectators of a game follow its "Play again" (the browser shows
# a link; people click it at different moments, not all in the same millisecond)
FOLLOW_SPREAD = 2.0
CONNECT_WAIT = 120.0  # seconds the spectators have to connect before the clock starts anyway
# seconds after the load stops within which a version must have been acknowledged for a
# spectator's lag to count (a later one may still be on its way when the spectators stop)
LAG_TAIL = 2.0


@dataclass
class LoadResult:
    seconds: float = 0.0
    actions: int = 0
    latencies: list[float] = field(default_factory=list)  # seconds
    refused: int = 0
    refusals: dict[str, int] = field(default_factory=dict)  # the refusals counted, by their error code
    games_finished: int = 0
    followed: int = 0  # games of the spectators' table that followed the one before ("Play again")
    spectator_messages: int = 0
    spectators: int = 0  # the spectators asked for
    spectators_connected: int = 0  # ... and how many of them connected
    # seconds from a state's version being acknowledged to its player until each spectator
    # connected to its game then got that version or a later one (see _lags)
    spectator_lags: list[float] = field(default_factory=list)
    spectators_missed: int = 0  # versions a spectator had not got LAG_TAIL seconds after their acknowledgement
    spectator_follows: int = 0  # times a spectator's connection went on to the next game (a follow message)
    spectator_reconnects: int = 0  # connections a spectator opened after its first (a drop, or a server that cannot follow)
    errors: list[str] = field(default_factory=list)
    rate: float | None = None  # the actions per second offered (paced), or None (flat out)
    since: float = 0.0  # the clock's start (perf_counter): actions due before it are not counted

    def percentile(self, p: float) -> float:
        return _percentile(sorted(self.latencies), p)

    def _codes(self) -> str:
        return ": " + ", ".join(f"{n} {code}" for code, n in sorted(self.refusals.items())) if self.refusals else ""

    def report(self) -> str:
        def ms(x: float) -> str:
            return f"{x * 1000:.1f} ms"

        offered = "flat out" if self.rate is None else f"{self.rate:.0f} offered"
        lines = [
            f"{self.actions} actions in {self.seconds:.1f} s: {self.actions / self.seconds:.0f} actions/s ({offered};"
            f" {self.games_finished} games finished, {self.refused} refused{self._codes()})",
            f"latency p50 {ms(self.percentile(50))}, p90 {ms(self.percentile(90))}, p99 {ms(self.percentile(99))},"
            f" max {ms(max(self.latencies, default=float('nan')))}",
        ]
        if self.spectators:
            lags = sorted(self.spectator_lags)
            lines.append(
                f"spectators: {self.spectators_connected} of {self.spectators} connected, received"
                f" {self.spectator_messages} state messages; lag p50 {ms(_percentile(lags, 50))}, p99"
                f" {ms(_percentile(lags, 99))}, max {ms(lags[-1] if lags else float('nan'))}"
                f' ({len(lags)} versions seen, {self.spectators_missed} missed); they followed "Play again"'
                f" {self.followed} times ({self.spectator_follows} follows over their connections,"
                f" {self.spectator_reconnects} connections opened again)"
            )
        if self.errors:
            lines.append(f"errors: {len(self.errors)} (first: {self.errors[0]})")
        return "\n".join(lines)


def _percentile(xs: list[float], p: float) -> float:
    """The ``p``th percentile of the sorted ``xs`` (nearest rank)."""
    if not xs:
        return float("nan")
    return xs[min(len(xs) - 1, int(round(p / 100 * (len(xs) - 1))))]


async def _create(http: Any, players: int) -> dict[str, Any]:
    r = await http.post("/api/games", json={"players": [{"kind": "person", "name": f"Load {i + 1}"} for i in range(players)]})
    r.raise_for_status()
    return dict(r.json())


def _loads(raw: str | bytes) -> Any:
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson comes with the web extra
        return json.loads(raw)
    return orjson.loads(raw)


def _dumps(obj: Any) -> str:
    try:
        import orjson
    except ImportError:  # pragma: no cover - orjson comes with the web extra
        return json.dumps(obj)
    return orjson.dumps(obj).decode()


# how the server lays out a state message for the seat to act (games.py, LiveGame.message_text):
# '{"seat":S,"legal":[A,A,...],"type":"state",...the shared head...,"history":...,"view":...}'
# and, for a connection that asked for it, ',"ack":{...}' before the last brace
_LEGAL_AT = '"legal":['
_LEGAL_END = '],"type":"state",'
_TAIL_AT = (',"history":', ',"view":')
_ACK_AT = ',"ack":{'


def _digest(raw: str) -> dict[str, Any]:
    """What a simulated person reads of a state message in which it acts: its head (type,
    status, version), the acknowledgement inside it, and ``legal`` as the actions' JSON
    texts (one is decoded when it is played). Decoding every legal action, the view and
    the history of each such message was about 30% of the load tool's CPU in a profile, and
    the load tool shares the machine with the server it measures: 0.77 and 0.68 ms of its
    CPU per action before, 0.56 and 0.51 after (50 games flat out, two pairs of runs
    alternately). A message of another layout is decoded whole."""
    i = raw.find(_LEGAL_AT, 0, 40)
    j = raw.find(_LEGAL_END, i) if i >= 0 else -1
    ends = [k for k in (raw.find(t, j) for t in _TAIL_AT) if k >= 0] if j >= 0 else []
    if not ends:
        m: dict[str, Any] = _loads(raw)
        if m.get("legal"):
            m["legal"] = [_dumps(a) for a in m["legal"]]
        return m
    head: dict[str, Any] = _loads("{" + raw[1 : i - 1] + "," + raw[j + 2 : min(ends)] + "}")  # "seat" and the head
    legal = raw[i + len(_LEGAL_AT) : j]
    # every action begins with its seat ('{"seat":'), which nothing inside one does
    head["legal"] = ['{"seat":' + a + "}" for a in legal[8:-1].split('},{"seat":')] if legal else []
    a = raw.rfind(_ACK_AT)
    if a >= 0:
        head["ack"] = _loads(raw[a + len(_ACK_AT) - 1 : -1])
    return head


@dataclass
class _Pace:
    """A paced game's schedule: its next action is due at ``due`` (perf_counter seconds),
    each one ``every`` seconds after the one before."""

    every: float
    due: float


async def _person(
    ws_url: str,
    seat: int,
    token: str,
    rng: random.Random,
    res: LoadResult,
    stop: asyncio.Event,
    done: asyncio.Event,
    pace: _Pace | None = None,
    started: Callable[[], None] | None = None,
    headers: dict[str, str] | None = None,
    acked: Callable[[int], None] | None = None,
) -> None:
    """One simulated person; ``started``: called once it has its first state message;
    ``headers``: sent with the WebSocket's opening (a signed-in person's cookie);
    ``acked``: called with the version of each of its actions acknowledged."""
    import websockets

    sent: dict[str, float] = {}
    n = 0
    token_text = _dumps(token)
    latest: dict[str, Any] | None = None  # the newest state message in which this seat acts
    welcomed = False  # a state message came: the hello was taken

    async def act() -> None:
        # awaited by the receiving loop: while it waits for its action's time, nothing is read
        nonlocal n
        if latest is None or sent or not latest.get("legal"):
            return
        start = time.perf_counter()
        if pace is not None:  # the latency counts from when the action was due
            due = pace.due
            pace.due = due + pace.every
            if due > start:
                await asyncio.sleep(due - start)
                if stop.is_set():
                    return
            start = due
        n += 1
        aid = f"{seat}-{n}"
        sent[aid] = start
        action = rng.choice(latest["legal"])  # its JSON text (_digest)
        await ws.send(
            f'{{"type":"action","id":"{aid}","seat":{seat},"token":{token_text},"version":{latest["version"]},"action":{action}}}'
        )

    async with websockets.connect(ws_url, max_size=2**22, additional_headers=headers) as ws:
        await ws.send(_dumps({"type": "hello", "seats": {str(seat): token}, "delta": True, "ack_in_state": True}))
        async with _closed_on(stop, ws):
            async for raw in ws:
                if stop.is_set():
                    break
                # a state message in which another seat acts is only looked at for the end and
                # for this seat's acknowledgement (a person reads only what concerns them: the
                # load is the server's to measure)
                if (
                    isinstance(raw, str)
                    and raw.startswith('{"seat"')
                    and '"legal":' not in raw
                    and '"status":"finished"' not in raw
                    and '"ack":' not in raw
                ):
                    latest = None
                    welcomed = True
                    if started is not None:
                        started()
                        started = None
                    continue
                m: Any = _digest(raw) if isinstance(raw, str) and raw.startswith('{"seat"') else _loads(raw)
                kind = m.get("type")
                ack = m.get("ack") if kind == "state" else m if kind == "ack" else None
                if ack is not None and ack.get("id") in sent:  # alone, or inside the state it made
                    start = sent.pop(ack["id"])
                    if start >= res.since:
                        res.latencies.append(time.perf_counter() - start)
                        res.actions += 1
                    if acked is not None:
                        acked(ack["version"])
                if kind == "welcome" and (m.get("tokens") or {}).get(str(seat)):
                    # opened signed in, the seat became the account's: its new token from now on
                    token_text = _dumps(m["tokens"][str(seat)])
                elif kind == "ack":
                    if latest is not None and latest["version"] != m["version"]:
                        latest = None  # the state after this action is still to come
                    await act()
                elif kind == "error":
                    if m.get("id") is None and not welcomed:  # the hello: this person has no seat
                        raise ConnectionError(f"the hello was refused: {m.get('code')} ({m.get('message')})")
                    sent.pop(m.get("id"), None)
                    if time.perf_counter() >= res.since:
                        res.refused += 1
                        code = str(m.get("code", "?"))
                        res.refusals[code] = res.refusals.get(code, 0) + 1
                    await act()
                elif kind == "state":
                    latest = m
                    welcomed = True
                    if started is not None:
                        started()
                        started = None
                    if m["status"] == "finished":
                        if seat == 0 and time.perf_counter() >= res.since:
                            res.games_finished += 1
                        done.set()
                        return
                    await act()
            else:  # the socket closed: by _closed_on when the load stops, else by the server
                if not stop.is_set():
                    raise ConnectionError(f"the server closed the connection (code {ws.close_code})")


@contextlib.asynccontextmanager
async def _closed_on(stop: asyncio.Event, ws: Any) -> AsyncIterator[None]:
    """While inside: ``ws`` is closed once ``stop`` is set, which ends the loop receiving
    from it. One task waits for the stop: a timeout around every receive (as before) cost
    the load a task and a timer per message (13% of its CPU per action)."""

    async def close_on_stop() -> None:
        await stop.wait()
        await ws.close()

    closer = asyncio.create_task(close_on_stop())
    try:
        yield
    finally:
        closer.cancel()


def _pace(every: float | None, rng: random.Random) -> _Pace | None:
    """A new game's schedule: its first action due within one interval from now (the games
    are spread over the interval, not all due at once)."""
    if every is None:
        return None
    return _Pace(every, time.perf_counter() + rng.random() * every)


async def _table(
    base: str,
    http: Any,
    players: int,
    rng: random.Random,
    res: LoadResult,
    stop: asyncio.Event,
    every: float | None = None,
    started: Callable[[], None] | None = None,
    delay: float = 0.0,
    headers: dict[str, str] | None = None,
) -> None:
    """One live game after another, until stopped; ``every``: paced, an action every so many
    seconds; ``started``: called by each person of the first game once it has its state;
    ``delay``: seconds before the first game is created."""
    await asyncio.sleep(delay)
    while not stop.is_set():
        try:
            g = await _create(http, players)
        except Exception as e:  # noqa: BLE001 - reported, then the table tries again
            res.errors.append(f"create: {e!r}")
            await asyncio.sleep(0.5)
            continue
        await _play(base, g["id"], {s["seat"]: s["token"] for s in g["seats"]}, rng, res, stop, every, started, headers)
        started = None


async def _play(
    base: str,
    gid: str,
    tokens: dict[int, str],
    rng: random.Random,
    res: LoadResult,
    stop: asyncio.Event,
    every: float | None,
    started: Callable[[], None] | None = None,
    headers: dict[str, str] | None = None,
    acks: dict[str, list[tuple[int, float]]] | None = None,
) -> None:
    """One game's people, each on a WebSocket of their own, until it ends or the load stops;
    ``acks``: where to note when each version of the game was acknowledged to its player
    (game -> [(version, time.monotonic())])."""
    ws_url = base.replace("http", "ws", 1) + f"/ws/{gid}"
    done = asyncio.Event()
    pace = _pace(every, rng)
    acked = None
    if acks is not None:
        noted = acks.setdefault(gid, [])

        def acked(version: int) -> None:
            noted.append((version, time.monotonic()))

    people = [
        asyncio.create_task(_person(ws_url, seat, tok, random.Random(rng.random()), res, stop, done, pace, started, headers, acked))
        for seat, tok in tokens.items()
    ]
    await asyncio.wait(people, return_when=asyncio.ALL_COMPLETED)
    for p in people:
        if p.exception() is not None:
            res.errors.append(f"player: {p.exception()!r}")


async def _watched(
    base: str,
    http: Any,
    g: dict[str, Any],
    rng: random.Random,
    res: LoadResult,
    stop: asyncio.Event,
    every: float | None,
    acks: dict[str, list[tuple[int, float]]],
) -> None:
    """The spectators' table: one game after another, each the "Play again" of the one
    before (the spectators follow it, within FOLLOW_SPREAD seconds: see _spectator);
    ``acks``: when each version of its games was acknowledged (see _play)."""
    tokens = {s["seat"]: s["token"] for s in g["seats"]}
    gid = g["id"]
    while not stop.is_set():
        await _play(base, gid, tokens, rng, res, stop, every, acks=acks)
        if stop.is_set():
            return
        r = await http.post(f"/api/games/{gid}/again", json={"seats": {str(k): t for k, t in tokens.items()}})
        r.raise_for_status()
        again = r.json()
        # the start player moves on one seat: each token is now another seat's (the answer
        # says whose); sent for its old seat, it was refused and the table stood still
        tokens = {again["seats"][str(k)]: t for k, t in tokens.items()}
        gid = again["id"]
        res.followed += 1


def _run(main: Any) -> Any:
    """Run the load's event loop, on uvloop where it is installed (it comes with uvicorn's
    standard extra): the load costs less of the machine it shares with the server."""
    try:
        import uvloop
    except ImportError:  # pragma: no cover
        return asyncio.run(main)
    return uvloop.run(main)


@dataclass
class _Seen:
    """What one spectator got: for each game it watched, when it connected to it (its
    welcome, time.monotonic()) and the state messages' versions with when each came."""

    games: list[tuple[str, float, array.array[int], array.array[float]]] = field(default_factory=list)

    def joined(self, gid: str) -> None:
        self.games.append((gid, time.monotonic(), array.array("q"), array.array("d")))

    def got(self, version: int) -> None:
        _, _, versions, times = self.games[-1]
        versions.append(version)
        times.append(time.monotonic())


def _version_of(raw: str) -> int | None:
    """The version of a state message (its head, before the history, holds it)."""
    i = raw.find('"version":')
    if i < 0:
        return None
    i += len('"version":')
    j = i
    while j < len(raw) and raw[j].isdigit():
        j += 1
    return int(raw[i:j]) if j > i else None


def _lags(seen: _Seen, acks: dict[str, list[tuple[int, float]]], until: float) -> tuple[list[float], int]:
    """How late a spectator saw each version acknowledged (to its player) while it watched the
    game, up to ``until``: the time from the acknowledgement to the first state message of
    that version or a later one (a spectator may skip to the latest state). Returns the
    lags in seconds, and how many versions it never saw."""
    lags: list[float] = []
    missed = 0
    for gid, joined, versions, times in seen.games:
        k = 0
        for version, at in sorted(acks.get(gid, [])):
            if at < joined or at > until:
                continue
            while k < len(versions) and versions[k] < version:
                k += 1
            if k == len(versions):
                missed += 1
            else:
                lags.append(max(0.0, times[k] - at))
    return lags, missed


class _Socket(asyncio.Protocol):
    """A WebSocket client as lean as the load's spectators need (RFC 6455 over a plain
    asyncio Protocol): 10,000 of them share the server's two cores on one machine, where in
    life they would be on machines of their own, so their own work is kept to the least that
    still behaves as a browser (a masked frame per message sent, a pong to every ping, the
    closing handshake). Each message received goes to ``on_message`` as text; ``closed`` is
    set once the connection ended. The websockets library's client cost about ten times as
    much per message received, CPU the server then lacked."""

    def __init__(self, path: str, host: str, on_message: Callable[[str], None]) -> None:
        self.key = base64.b64encode(os.urandom(16)).decode()
        self.request = (
            f"GET {path} HTTP/1.1\r\nHost: {host}\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {self.key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        ).encode()
        self.on_message = on_message
        self.buf = bytearray()
        self.parts: list[bytes] = []  # a fragmented message's frames so far
        self.upgraded = False
        self.transport: Any = None  # (asyncio's Transport, or uvloop's, which is none)
        self.opened = asyncio.get_running_loop().create_future()
        self.closed = asyncio.Event()

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        self.transport = transport
        self.transport.write(self.request)

    def connection_lost(self, exc: Exception | None) -> None:
        if not self.opened.done():
            self.opened.set_exception(ConnectionError("closed before the handshake"))
        self.closed.set()

    def send(self, text: str, opcode: int = 0x1) -> None:
        """A message to the server: one frame, masked as a client's must be."""
        if self.transport is None or self.transport.is_closing():
            return
        data = text.encode()
        n = len(data)
        assert n < 1 << 16  # (a spectator's messages are a few bytes)
        head = bytes((0x80 | opcode, 0x80 | n)) if n < 126 else bytes((0x80 | opcode, 0x80 | 126)) + n.to_bytes(2, "big")
        mask = os.urandom(4)
        masked = (int.from_bytes(data, "little") ^ int.from_bytes((mask * (n // 4 + 1))[:n], "little")).to_bytes(n, "little")
        self.transport.write(head + mask + masked)

    def close(self) -> None:
        if self.transport is not None and not self.transport.is_closing():
            self.send_control(0x8, (1000).to_bytes(2, "big"))
            self.transport.close()

    def send_control(self, opcode: int, payload: bytes) -> None:
        if self.transport is not None and not self.transport.is_closing():
            mask = os.urandom(4)
            masked = bytes(b ^ mask[i % 4] for i, b in enumerate(payload))
            self.transport.write(bytes((0x80 | opcode, 0x80 | len(payload))) + mask + masked)

    def data_received(self, data: bytes) -> None:
        buf = self.buf
        buf += data
        if not self.upgraded:
            end = buf.find(b"\r\n\r\n")
            if end < 0:
                return
            status = bytes(buf[: buf.find(b"\r\n")])
            del buf[: end + 4]
            if b" 101 " not in status + b" ":
                self.opened.set_exception(ConnectionError(status.decode(errors="replace")))
                assert self.transport is not None
                self.transport.close()
                return
            self.upgraded = True
            self.opened.set_result(None)
        while len(buf) >= 2:
            b0, b1 = buf[0], buf[1]
            n, at = b1 & 0x7F, 2
            if n == 126:
                if len(buf) < 4:
                    return
                n, at = int.from_bytes(buf[2:4], "big"), 4
            elif n == 127:
                if len(buf) < 10:
                    return
                n, at = int.from_bytes(buf[2:10], "big"), 10
            if len(buf) < at + n:
                return
            payload = bytes(buf[at : at + n])
            del buf[: at + n]
            opcode = b0 & 0x0F
            if opcode == 0x9:  # ping: pong
                self.send_control(0xA, payload)
            elif opcode == 0x8:  # the server closes: so does this end
                self.close()
            elif opcode in (0x0, 0x1, 0x2):
                self.parts.append(payload)
                if b0 & 0x80:
                    whole = b"".join(self.parts)
                    self.parts.clear()
                    self.on_message(whole.decode())


def _same(sock: _Socket) -> _Socket:
    return sock


async def _spectator(
    base: str,
    gid: str,
    counts: list[int],
    stop: asyncio.Event,
    all_ready: asyncio.Event,
    n: int,
    rng: random.Random,
    seen: _Seen,
    spread: float = FOLLOW_SPREAD,
) -> None:
    """Watch a game and the games that follow it ("Play again"), as the browser's page
    does: over the same connection (a follow message), each at a random moment within
    FOLLOW_SPREAD seconds of seeing it announced (people click the link when they see it);
    a connection that closes is opened again (and one to a server that does not follow so
    is opened to the next game). Of the messages only the version is read and noted in
    ``seen`` (a spectator's work is the server's to measure, not this process's: _Socket).
    ``counts``: [connected, state messages, follows over the connection, connections opened
    after the first]; ``spread``: FOLLOW_SPREAD."""
    url = urllib.parse.urlsplit(base)
    loop = asyncio.get_running_loop()
    first = True
    later: set[asyncio.Task[None]] = set()
    following: str | None = None  # the next game, once announced on this connection
    again: str | None = None  # ... a server that cannot follow so: the game to connect to

    async def follow(sock: _Socket) -> None:
        await asyncio.sleep(rng.random() * spread)
        sock.send('{"type":"follow"}')

    def heard(raw: str) -> None:
        nonlocal gid, first, following, again
        if stop.is_set():
            return
        if '"type":"welcome"' in raw[:40]:
            if following:
                counts[2] += 1
            elif not first:  # a new connection's
                counts[3] += 1
            gid = json.loads(raw)["game"]
            following = None
            seen.joined(gid)
            if first:
                first = False
                counts[0] += 1
                if counts[0] >= n:
                    all_ready.set()
        elif '"type":"state"' in raw:
            counts[1] += 1
            version = _version_of(raw)
            if version is not None:
                seen.got(version)
            if not following and '"again":"' in raw:
                following = json.loads(raw)["again"]
                task = asyncio.create_task(follow(sock))
                later.add(task)
                task.add_done_callback(later.discard)
        elif following and '"type":"error"' in raw[:40]:  # a server that cannot: a new connection
            again = following
            sock.close()

    try:
        while not stop.is_set():
            following = again = None
            sock = _Socket(f"{url.path.rstrip('/')}/ws/{gid}", url.netloc, heard)
            await loop.create_connection(functools.partial(_same, sock), url.hostname or "127.0.0.1", url.port or 80)
            await sock.opened
            sock.send('{"type":"hello","delta":true}')
            ended = asyncio.create_task(sock.closed.wait())
            stopped = asyncio.create_task(stop.wait())
            await asyncio.wait((ended, stopped), return_when=asyncio.FIRST_COMPLETED)
            stopped.cancel()
            ended.cancel()
            sock.close()
            if again is not None:
                gid = again
    finally:
        for task in later:  # (a follow not yet sent as the load stops)
            task.cancel()


def _spectators_main(base: str, gid: str, n: int, pipe: Any, seed: int = 0, spread: float = FOLLOW_SPREAD) -> None:
    """A process of spectators (on other machines, in life): it says how many connected
    (within CONNECT_WAIT seconds), watches until told to stop (with when the versions were
    acknowledged: see _lags), and sends back the messages counted and the lags."""
    raise_nofile()

    async def run() -> None:
        stop, ready = asyncio.Event(), asyncio.Event()
        counts = [0, 0, 0, 0]
        rng = random.Random(seed * 1_000_003 + n)
        seen = [_Seen() for _ in range(n)]
        tasks = [
            asyncio.create_task(_spectator(base, gid, counts, stop, ready, n, random.Random(rng.random()), seen[i], spread))
            for i in range(n)
        ]
        try:
            await asyncio.wait_for(ready.wait(), CONNECT_WAIT)
        except TimeoutError:
            pass
        pipe.send(counts[0])
        loop = asyncio.get_running_loop()
        acks, until = await loop.run_in_executor(None, pipe.recv)  # stop
        sent = counts[1]
        stop.set()
        await asyncio.gather(*tasks, return_exceptions=True)
        lags: list[float] = []
        missed = 0
        for one in seen:
            got, lost = _lags(one, acks, until)
            lags += got
            missed += lost
        pipe.send((sent, array.array("d", lags), missed, counts[2], counts[3]))

    _run(run())


def _split(n: int, parts: int) -> list[int]:
    """``n`` spectators dealt to ``parts`` processes as evenly as may be (none empty)."""
    parts = max(1, min(parts, n))
    return [n // parts + (1 if i < n % parts else 0) for i in range(parts)]


async def run_load(
    url: str | list[str],
    games: int,
    spectators: int = 0,
    seconds: float = 20.0,
    players: int = 3,
    seed: int = 1,
    rate: float | None = None,
    together: bool = False,
    signed_in: bool = False,
    processes: int = 1,
    follow_spread: float = FOLLOW_SPREAD,
) -> LoadResult:
    """``processes``: how many processes of its own the spectators are dealt to (each is one
    core at most: 10,000 connected from 2 within CONNECT_WAIT on a 2-core machine). ``signed_in``: the people are signed in (one account, made at the start): every
    request and WebSocket carries its session cookie, each game is created signed in and
    its seats become the account's as they are opened. ``url``: the server, or several processes of one server (one database): the tables
    are dealt to them in turn; the spectators' game is the first process's. The clock
    starts once every spectator is connected. ``rate``: paced, the actions per second
    all the games offer together (the spectators' game among them); None: flat out.
    Paced games start one after another over the time a game takes (GAME_ACTIONS actions),
    so that they end at different times as on a server in use; ``together``: all at once
    (they then end within a second or two of each other, and 50 games begin again at once).
    Flat out, the games start together. ``follow_spread``: the spectators follow each game's
    "Play again" within this many seconds (FOLLOW_SPREAD)."""
    import httpx

    urls = [url] if isinstance(url, str) else list(url)
    url = urls[0]
    if rate is not None and rate <= 0:
        raise ValueError("rate must be positive")
    if processes < 1:
        raise ValueError("processes must be at least 1")
    res = LoadResult(rate=rate, since=float("inf"), spectators=spectators)
    acks: dict[str, list[tuple[int, float]]] = {}
    every = None if rate is None else (games + (1 if spectators else 0)) / rate
    rng = random.Random(seed)
    stop = asyncio.Event()
    async with contextlib.AsyncExitStack() as stack:
        # an idle connection is let go before the server's keep-alive ends (uvicorn: 5 s, as
        # httpx's own default): a request sent as the server closed it failed ("ReadError")
        limits = httpx.Limits(keepalive_expiry=2.0)
        headers: dict[str, str] | None = None
        if signed_in:
            headers = await _account(url)
        https = [await stack.enter_async_context(httpx.AsyncClient(base_url=u, timeout=30, limits=limits, headers=headers)) for u in urls]
        http = https[0]
        tables: list[asyncio.Task[None]] = []
        watchers: list[tuple[Any, Any]] = []  # (process, its end of the pipe)
        if spectators:
            # the spectators (in processes of their own) watch a table of their own: its
            # games one after another
            g = await _create(http, players)
            ctx = multiprocessing.get_context("spawn")
            for i, n in enumerate(_split(spectators, processes)):
                mine, theirs = ctx.Pipe()
                proc = ctx.Process(target=_spectators_main, args=(url, g["id"], n, theirs, seed + i, follow_spread), daemon=True)
                proc.start()
                watchers.append((proc, mine))
            connected = sum(await asyncio.gather(*(asyncio.to_thread(mine.recv) for _, mine in watchers)))
            res.spectators_connected = connected
            if connected < spectators:
                res.errors.append(f"only {connected} of {spectators} spectators connected")
            tables.append(asyncio.create_task(_watched(url, http, g, random.Random(rng.random()), res, stop, every, acks)))
        # the clock starts WARMUP seconds after the first games have started (every person
        # has its state): their start, all at once, is not what is measured
        waiting, all_started = [games * players], asyncio.Event()

        def started() -> None:
            waiting[0] -= 1
            if waiting[0] <= 0:
                all_started.set()

        tables += [
            asyncio.create_task(
                _table(
                    urls[i % len(urls)],
                    https[i % len(urls)],
                    players,
                    random.Random(rng.random()),
                    res,
                    stop,
                    every,
                    started,
                    0.0 if every is None or together else i / games * GAME_ACTIONS * every,
                    headers,
                )
            )
            for i in range(games)
        ]
        if games:
            try:
                await asyncio.wait_for(all_started.wait(), 120 + (GAME_ACTIONS * every if every is not None else 0))
            except TimeoutError:
                res.errors.append(f"only {games * players - waiting[0]} of {games * players} people started in time")
        await asyncio.sleep(WARMUP)
        res.since = t0 = time.perf_counter()
        await asyncio.sleep(seconds)
        stop.set()
        res.seconds = time.perf_counter() - t0
        until = time.monotonic() - LAG_TAIL
        for _, mine in watchers:
            mine.send((acks, until))
        for proc, mine in watchers:
            sent, lags, missed, follows, reconnects = await asyncio.to_thread(mine.recv)
            res.spectator_messages += sent
            res.spectator_follows += follows
            res.spectator_reconnects += reconnects
            res.spectator_lags += lags
            res.spectators_missed += missed
            await asyncio.to_thread(proc.join, 30)
        await asyncio.gather(*tables, return_exceptions=True)
    return res


async def _account(url: str) -> dict[str, str]:
    """A new account for the load's people (a random name and password): the headers its
    requests carry (the session's cookie, and the page's origin, as a browser sends them)."""
    import secrets

    import httpx

    origin = {"origin": url.rstrip("/")}
    async with httpx.AsyncClient(base_url=url, timeout=30) as http:
        r = await http.post(
            "/api/account/signup", json={"name": f"load-{secrets.token_hex(4)}", "password": secrets.token_urlsafe(16)}, headers=origin
        )
        r.raise_for_status()
        secret = next(v for k, v in r.cookies.items() if k.endswith("kardinal_session"))
    return {**origin, "cookie": f"kardinal_session={secret}"}


def main(
    url: str,
    games: int,
    spectators: int,
    seconds: float,
    rate: float | None = None,
    together: bool = False,
    signed_in: bool = False,
    processes: int = 1,
) -> LoadResult:
    """``url``: one address, or several separated by commas (processes sharing one database)."""
    urls = [u.strip() for u in url.split(",") if u.strip()]
    raised = raise_nofile()
    if raised is not None:
        print(f"(the limit on open files raised to {raised})")
    res: LoadResult = _run(
        run_load(urls, games, spectators, seconds, rate=rate, together=together, signed_in=signed_in, processes=processes)
    )
    print(res.report())
    return res
