"""``kardinal serve`` as an operator runs it: every option also from the environment, a
database given by path or URL, health endpoints, the version."""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from webtools import http_get, http_post

KARDINAL = Path(sys.executable).parent / "kardinal"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def wait_until_up(proc: subprocess.Popen[Any], base: str) -> None:
    """Wait until the server at ``base`` answers /healthz (it must not have exited)."""
    end = time.monotonic() + 30
    while True:
        try:
            http_get(base + "/healthz", timeout=2)
            return
        except httpx.TransportError:
            assert proc.poll() is None, "the server exited"
            assert time.monotonic() < end, "the server did not start"
            time.sleep(0.1)


def test_version() -> None:
    for cmd in ([str(KARDINAL), "--version"], [sys.executable, "-m", "kardinal", "--version"]):
        p = subprocess.run(cmd, capture_output=True, text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        assert p.stdout.startswith("kardinal ") and p.stdout.split()[1][0].isdigit()
        assert p.stdout.splitlines()[1] == "rules core and bots' search: compiled (mypyc)"  # make test builds it


def test_serve_takes_its_options_from_the_environment_and_answers_health_checks(tmp_path: Path) -> None:
    port = _free_port()
    db = tmp_path / "elsewhere" / "games.sqlite3"
    db.parent.mkdir()
    env = {**os.environ, "KARDINAL_PORT": str(port), "KARDINAL_DB": str(db), "KARDINAL_BOT_WORKERS": "0"}
    proc = subprocess.Popen([str(KARDINAL), "serve"], env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(proc, base)
        r = http_get(base + "/healthz", timeout=5)
        assert r.status_code == 200 and r.json() == {"status": "ok"}
        r = http_get(base + "/readyz", timeout=5)
        assert r.status_code == 200 and r.json() == {"status": "ok", "database": "ok"}
        # the database is where the environment said, not in ./data
        g = http_post(base + "/api/games", json={"players": [{"kind": "bot", "level": "random"}] * 3})
        assert g.status_code == 200, g.text
        assert db.exists() and db.stat().st_size > 0
    finally:
        proc.terminate()
        proc.wait(20)
    assert proc.stdout is not None
    assert str(db) in proc.stdout.read()


def test_readyz_says_unavailable_when_the_database_is_not(tmp_path: Path) -> None:
    from fastapi.testclient import TestClient

    from kardinal.server.web.app import create_app

    app = create_app(data_dir=tmp_path, bot_pause=0.0)
    with TestClient(app) as client:
        assert client.get("/readyz").status_code == 200
        storage = app.state.service.storage

        def down() -> None:
            raise ConnectionError("the database went away")

        storage.ping = down
        r = client.get("/readyz")
        assert r.status_code == 503 and r.json() == {"status": "unavailable", "database": "ConnectionError"}
        assert client.get("/healthz").status_code == 200


def _children(pid: int) -> set[int]:
    """The processes whose parent is ``pid`` (from /proc)."""
    out = set()
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            try:
                stat = (d / "stat").read_text()
            except OSError:
                continue
            if int(stat.rsplit(")", 1)[1].split()[1]) == pid:
                out.add(int(d.name))
    return out


def _alive(pid: int) -> bool:
    try:
        stat = (Path("/proc") / str(pid) / "stat").read_text()
    except OSError:
        return False
    return stat.rsplit(")", 1)[1].split()[0] != "Z"


@pytest.mark.parametrize("how", [signal.SIGTERM, signal.SIGKILL])
def test_bot_workers_never_outlive_the_server(tmp_path: Path, how: signal.Signals) -> None:
    port = _free_port()
    env = {**os.environ, "KARDINAL_PORT": str(port), "KARDINAL_DATA": str(tmp_path), "KARDINAL_BOT_WORKERS": "2", "KARDINAL_BOT_PAUSE": "0"}
    proc = subprocess.Popen([str(KARDINAL), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(proc, base)
        # bots' games make the pool start its worker processes
        for _ in range(3):
            assert http_post(base + "/api/games", json={"players": [{"kind": "bot", "level": "greedy"}] * 3}).status_code == 200
        end = time.monotonic() + 30
        workers: set[int] = set()
        while len(workers) < 2:
            workers = {
                p for p in _children(proc.pid) if "python" in (Path("/proc") / str(p) / "cmdline").read_bytes().decode(errors="replace")
            }
            assert time.monotonic() < end, "no bot worker started"
            time.sleep(0.1)
    finally:
        proc.send_signal(how)
        proc.wait(20)
    end = time.monotonic() + 10
    while any(_alive(p) for p in workers):
        assert time.monotonic() < end, f"bot workers outlived the server ({how.name})"
        time.sleep(0.1)


@pytest.mark.fuzz  # many games flat out: left out of make test-fast
def test_the_load_tool_plays_games_and_measures_them(tmp_path: Path) -> None:
    import asyncio

    from kardinal.tools.loadtest import run_load

    port = _free_port()
    # the load tool creates every game from one address: as the README says, the server it
    # measures is started without the limit on new games (flat out, games end within seconds)
    env = {
        **os.environ,
        "KARDINAL_PORT": str(port),
        "KARDINAL_DATA": str(tmp_path),
        "KARDINAL_BOT_WORKERS": "0",
        "KARDINAL_RATE_LIMITS": "create=100000/minute",
    }
    proc = subprocess.Popen([str(KARDINAL), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(proc, base)
        res = asyncio.run(run_load(base, games=2, spectators=3, seconds=3.0))
        # paced: 3 games (2 and the spectators') offer 30 actions a second between them
        paced = asyncio.run(run_load(base, games=2, spectators=3, seconds=4.0, rate=30.0))
        # signed in: one account's cookie on every request; the seats it opens become its
        signed = asyncio.run(run_load(base, games=2, seconds=3.0, signed_in=True))
    finally:
        proc.terminate()
        proc.wait(20)
    assert signed.errors == [] and signed.refused == 0 and signed.actions >= 20
    from sqlalchemy import func, select

    from kardinal.server.storage import Storage
    from kardinal.server.storage.schema import seat_owners

    st = Storage.sqlite(tmp_path / "kardinal.sqlite3")
    with st.engine.connect() as conn:
        assert conn.execute(select(func.count()).select_from(seat_owners)).scalar_one() >= 6  # 2 games of 3 seats at least
    st.close()
    assert res.errors == [] and res.refused == 0
    assert res.actions >= 20 and len(res.latencies) == res.actions
    assert 0 < res.percentile(50) <= res.percentile(99) <= max(res.latencies)
    assert res.spectator_messages >= 3
    # the spectators' table goes on after its first game: its people follow "Play again" to
    # the seats it gives them (the start player moved on), and play the next game too
    assert res.followed >= 1
    assert "actions/s" in res.report() and "p99" in res.report() and "flat out" in res.report()
    assert paced.errors == [] and paced.refused == 0
    # the schedule holds: about 30 a second (a game's end and the next one's start cost a
    # little), never more than offered
    assert 0.7 * 30 * 4 <= paced.actions <= 30 * 4 + 3
    assert "30 offered" in paced.report()


@pytest.mark.fuzz  # a server and three processes of the load tool: left out of make test-fast
@contextlib.contextmanager
def _quiet_server(tmp_path: Path) -> Iterator[str]:
    """``kardinal serve`` on a free port with its data in ``tmp_path``, no bot workers and
    no output: its address while inside."""
    port = _free_port()
    env = {**os.environ, "KARDINAL_PORT": str(port), "KARDINAL_DATA": str(tmp_path), "KARDINAL_BOT_WORKERS": "0"}
    proc = subprocess.Popen([str(KARDINAL), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(proc, base)
        yield base
    finally:
        proc.terminate()
        proc.wait(20)


def test_the_load_tool_deals_its_spectators_to_processes_and_measures_their_lag(tmp_path: Path) -> None:
    """``processes``: the spectators are dealt to processes of their own; all connect,
    and each version acknowledged to the watched game's players is seen by every spectator
    (its lag measured), through the server's frames written straight to the sockets."""
    import asyncio

    from kardinal.tools.loadtest import run_load

    with _quiet_server(tmp_path) as base:
        res = asyncio.run(run_load(base, games=1, spectators=5, seconds=4.0, rate=20.0, processes=2))
    assert res.errors == [] and res.spectators == res.spectators_connected == 5
    assert res.spectator_messages >= 5 and len(res.spectator_lags) >= 5 and res.spectators_missed == 0
    assert all(lag >= 0 for lag in res.spectator_lags)
    assert "5 of 5 connected" in res.report() and "lag p50" in res.report()


def test_the_spectators_lag_is_to_the_first_state_as_new_as_each_acknowledged_version() -> None:
    """A spectator may skip versions: its lag for one is the time to the first state of that
    version or a later one; versions acknowledged before it joined or after the end do not
    count, and one it never got is missed. The spectators are dealt out evenly."""
    import array

    from kardinal.tools.loadtest import _lags, _Seen, _split

    seen = _Seen()
    seen.games.append(("g", 10.0, array.array("q", [1, 3, 4]), array.array("d", [10.5, 12.0, 13.0])))
    acks = {"g": [(1, 10.2), (2, 11.0), (3, 11.5), (4, 12.9), (5, 13.5), (0, 9.0)], "h": [(1, 11.0)]}
    lags, missed = _lags(seen, acks, until=20.0)
    assert lags == pytest.approx([0.3, 1.0, 0.5, 0.1]) and missed == 1  # version 2 seen as 3; version 5 never
    assert _lags(seen, acks, until=12.0) == (pytest.approx([0.3, 1.0, 0.5]), 0)
    assert _split(10, 3) == [4, 3, 3] and _split(2, 4) == [1, 1]


def test_json_logs_name_requests_by_path_and_never_hold_a_token(tmp_path: Path) -> None:
    import json

    port = _free_port()
    env = {**os.environ, "KARDINAL_PORT": str(port), "KARDINAL_DATA": str(tmp_path), "KARDINAL_BOT_WORKERS": "0"}
    proc = subprocess.Popen(
        [str(KARDINAL), "serve", "--log-json", "--log-level", "info"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )
    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(proc, base)
        g = http_post(
            base + "/api/games", json={"players": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "level": "random"}]}
        ).json()
        tok = g["seats"][0]["token"]
        http_get(base + g["seats"][0]["url"])  # the invitation link, token in the query
        http_get(base + f"/api/games/{g['id']}/state", params={"seat": 0, "token": tok})
        http_post(base + f"/api/games/{g['id']}/join", json={"seat": 0, "token": "wrong"})
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    lines = [json.loads(x) for x in err.splitlines() if x.startswith("{")]
    paths = [x.get("path") for x in lines if x.get("logger") == "kardinal.access"]
    assert f"/game/{g['id']}" in paths and f"/api/games/{g['id']}/state" in paths
    assert all({"time", "level", "logger", "message"} <= x.keys() for x in lines)
    assert tok not in err and "token=" not in err


def test_sigterm_closes_every_socket_with_a_close_frame(tmp_path: Path) -> None:
    import asyncio
    import json

    import websockets

    port = _free_port()
    env = {**os.environ, "KARDINAL_PORT": str(port), "KARDINAL_DATA": str(tmp_path), "KARDINAL_BOT_WORKERS": "0"}
    proc = subprocess.Popen([str(KARDINAL), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    base = f"http://127.0.0.1:{port}"
    wait_until_up(proc, base)
    g = http_post(
        base + "/api/games", json={"players": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "level": "random"}]}
    ).json()

    async def watch() -> int | None:
        async with websockets.connect(f"ws://127.0.0.1:{port}/ws/{g['id']}") as ws:
            await ws.send(json.dumps({"type": "hello"}))
            assert json.loads(await ws.recv())["type"] == "welcome"
            proc.send_signal(signal.SIGTERM)
            try:
                while True:
                    await asyncio.wait_for(ws.recv(), 15)
            except websockets.ConnectionClosed as e:
                return e.rcvd.code if e.rcvd is not None else None
        return None

    try:
        code = asyncio.run(watch())
    finally:
        proc.wait(20)
    assert code == 1012  # "service restart": a client knows to come back
    # uvicorn shuts down gracefully, then re-raises the signal: the exit status says SIGTERM
    assert proc.returncode in (0, -signal.SIGTERM)


def test_serve_freezes_what_it_built_before_it_serves(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """Issue 13: full garbage collections walked the ~85,000 objects built at start every
    time (60-200 ms each under load), and the young generation was collected every 700
    allocations; serve freezes what it built and raises that before uvicorn starts."""
    import gc

    import uvicorn
    from typer.testing import CliRunner

    from kardinal.cli import app
    from kardinal.server.web import logs
    from kardinal.server.web.gcpolicy import GEN0

    seen: list[tuple[int, int]] = []
    monkeypatch.setattr(uvicorn, "run", lambda *a, **k: seen.append((gc.get_freeze_count(), gc.get_threshold()[0])))
    monkeypatch.setattr(logs, "setup_logging", lambda **k: None)  # this process's logging stays as it is
    thresholds = gc.get_threshold()
    gc.unfreeze()
    try:
        result = CliRunner().invoke(app, ["serve", "--data", str(tmp_path), "--bot-workers", "0"])
        assert result.exit_code == 0, result.output
        assert len(seen) == 1, seen
        frozen, young = seen[0]
        assert frozen > 10_000  # the app, its routes and modules at least
        assert young == GEN0 > thresholds[0]  # fewer, larger young collections
    finally:
        gc.unfreeze()
        gc.set_threshold(*thresholds)


def test_the_load_tool_reports_a_socket_the_server_closed() -> None:
    """A player's socket closed by the server (not by the end of the run) is an error of
    the run, not a silent end of that player."""
    import asyncio
    import random

    import websockets

    from kardinal.tools.loadtest import LoadResult, _person

    async def main() -> tuple[LoadResult, bool]:
        async def close_after_hello(ws: Any) -> None:
            await ws.recv()
            await ws.close(1001, "going away")

        async with websockets.serve(close_after_hello, "127.0.0.1", 0) as server:
            port = server.sockets[0].getsockname()[1]
            res, stop, done = LoadResult(), asyncio.Event(), asyncio.Event()
            try:
                await asyncio.wait_for(_person(f"ws://127.0.0.1:{port}/ws/g", 0, "t", random.Random(1), res, stop, done), 10)
            except ConnectionError as e:
                res.errors.append(str(e))
            return res, done.is_set()

    res, done = asyncio.run(main())
    assert not done
    assert len(res.errors) == 1 and "closed the connection (code 1001)" in res.errors[0]


def test_a_websocket_frame_that_is_no_utf8_is_one_log_line_and_a_json_log_holds_only_json(tmp_path: Path) -> None:
    """Found by a probe: a hello and, in the same write, a text frame of bytes that are no
    UTF-8 made uvicorn close the socket (1007, right) and log a traceback; the welcome sent
    after it raised and logged a second one ("Exception in ASGI application"). And with
    --log-json, uvicorn's own lines were plain text among the JSON lines."""
    import asyncio
    import base64
    import json

    port = _free_port()
    env = {**os.environ, "KARDINAL_PORT": str(port), "KARDINAL_DATA": str(tmp_path), "KARDINAL_BOT_WORKERS": "0"}
    proc = subprocess.Popen(
        [str(KARDINAL), "serve", "--log-json", "--log-level", "info"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE, text=True
    )

    def frame(opcode: int, data: bytes) -> bytes:  # a masked client frame (mask 0: the bytes as they are)
        assert len(data) < 126
        return bytes([0x80 | opcode, 0x80 | len(data)]) + b"\0\0\0\0" + data

    async def hello_then_bad_bytes(gid: str) -> None:
        r, w = await asyncio.open_connection("127.0.0.1", port)
        key = base64.b64encode(os.urandom(16)).decode()
        w.write(
            f"GET /ws/{gid} HTTP/1.1\r\nHost: 127.0.0.1\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
            f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n".encode()
        )
        await r.readuntil(b"\r\n\r\n")
        w.write(frame(1, b'{"type":"hello"}') + frame(1, b"\xff\xfe"))
        await w.drain()
        try:
            while await asyncio.wait_for(r.read(65536), 2.0):
                pass
        except (TimeoutError, ConnectionResetError):
            pass
        w.close()

    try:
        base = f"http://127.0.0.1:{port}"
        wait_until_up(proc, base)
        gid = http_post(base + "/api/games", json={"players": [{"kind": "person"}] * 3}).json()["id"]
        for _ in range(5):
            asyncio.run(hello_then_bad_bytes(gid))
        assert http_get(base + "/healthz").status_code == 200
    finally:
        proc.terminate()
        _, err = proc.communicate(timeout=20)
    assert "Traceback" not in err and "Exception in ASGI application" not in err, err[-3000:]
    lines = [json.loads(x) for x in err.splitlines() if x.strip()]  # every line is JSON
    assert any("Invalid UTF-8" in x["message"] and x["level"] == "INFO" for x in lines), lines[-5:]


def test_the_load_tools_spectators_follow_play_again_over_their_connections(tmp_path: Path) -> None:
    """The spectators follow each game of their table to the next ("Play again") as the
    browser's page does: a follow message over the connection they have, no new one."""
    import asyncio

    from kardinal.tools.loadtest import run_load

    with _quiet_server(tmp_path) as base:
        # their table alone, flat out: a game takes a fraction of a second; they follow at once
        res = asyncio.run(run_load(base, games=0, spectators=3, seconds=3.0, follow_spread=0.0))
    assert res.errors == [] and res.spectators_connected == 3 and res.followed >= 2
    # every game but the last (which may have begun as the load stopped) followed by all three
    assert res.spectator_follows >= 3 * (res.followed - 1) and res.spectator_reconnects == 0
    assert f"{res.spectator_follows} follows over their connections, 0 connections opened again" in res.report()
