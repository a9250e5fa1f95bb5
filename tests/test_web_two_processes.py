"""Two server processes on one PostgreSQL database: any process serves any game, moves are
ordered by the database, every process hears every move (LISTEN/NOTIFY), each bot
decision is made once (a lease per game), and when a process dies its games and bots are
taken over by the other. Twenty games with bots are played to the end while one process
is killed with kill -9 and started again; every acknowledged move is in the final
records."""

from __future__ import annotations

import asyncio
import os
import random
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

import httpx
from webtools import http_get, http_post

KARDINAL = Path(sys.executable).parent / "kardinal"
GAMES = 20


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Server:
    def __init__(self, db: str, tmp: Path, name: str, env: dict[str, str] | None = None) -> None:
        self.db, self.port, self.name = db, _free_port(), name
        self.env = env or {}
        self.log = tmp / f"{name}.log"
        self.proc: subprocess.Popen[bytes] | None = None

    @property
    def url(self) -> str:
        return f"http://127.0.0.1:{self.port}"

    def start(self) -> None:
        env = {
            **os.environ,
            "KARDINAL_DB": self.db,
            "KARDINAL_PORT": str(self.port),
            "KARDINAL_BOT_WORKERS": "0",
            "KARDINAL_BOT_PAUSE": "0",
            **self.env,
        }
        self.proc = subprocess.Popen([str(KARDINAL), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=self.log.open("ab"))
        end = time.monotonic() + 30
        while True:
            try:
                if http_get(self.url + "/readyz", timeout=2).status_code == 200:
                    return
            except httpx.TransportError:
                pass
            assert self.proc.poll() is None, self.log.read_text()
            assert time.monotonic() < end, f"{self.name} did not start"
            time.sleep(0.1)

    def kill9(self) -> None:
        assert self.proc is not None
        self.proc.send_signal(signal.SIGKILL)
        self.proc.wait(10)

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.terminate()
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()


async def person(servers: list[Server], gid: str, seat: int, token: str, acked: list[tuple[int, dict[str, Any]]], deadline: float) -> None:
    """Plays one seat over HTTP, on its own server, moving to the other when it is down;
    retries an unanswered action with the same id (applied once)."""
    rng = random.Random(f"{gid}:{seat}")
    which = seat % 2
    n = 0
    async with httpx.AsyncClient(timeout=5) as http:
        while time.monotonic() < deadline:
            base = servers[which].url
            try:
                r = await http.get(f"{base}/api/games/{gid}/state", params={"seat": seat, "token": token})
                st = r.json()
                if r.status_code != 200:
                    await asyncio.sleep(0.05)
                    continue
                if st["status"] == "finished":
                    return
                if not st.get("legal"):
                    await asyncio.sleep(0.05)
                    continue
                action = rng.choice(st["legal"])
                n += 1
                body = {"seat": seat, "token": token, "version": st["version"], "action": action, "id": f"{seat}-{n}"}
                while True:  # the same action, with the same id, until some server answers
                    try:
                        r = await http.post(f"{servers[which].url}/api/games/{gid}/actions", json=body)
                        break
                    except httpx.TransportError:
                        which = 1 - which
                        await asyncio.sleep(0.1)
                if r.status_code == 200:
                    acked.append((r.json()["index"], action))
            except httpx.TransportError:
                which = 1 - which  # that server is down: the other one
                await asyncio.sleep(0.1)
    raise AssertionError(f"game {gid} seat {seat} did not end in time")


def test_two_processes_play_twenty_games_through_a_kill_9(pg: Any, tmp_path: Path) -> None:
    db = pg.new_database()
    a, b = Server(db, tmp_path, "a"), Server(db, tmp_path, "b")
    a.start()
    b.start()
    try:
        games = []
        for i in range(GAMES):
            srv = (a, b)[i % 2]
            seats = [{"kind": "person", "name": "P1"}, {"kind": "person", "name": "P2"}, {"kind": "bot", "level": "random"}]
            g = http_post(srv.url + "/api/games", json={"players": seats}).json()
            for s in g["seats"]:  # each person joins at the other process: any process serves any game
                r = http_post((b, a)[i % 2].url + f"/api/games/{g['id']}/join", json={"seat": s["seat"], "token": s["token"]})
                assert r.status_code == 200, r.text
            games.append(g)
        acked: dict[str, list[tuple[int, dict[str, Any]]]] = {g["id"]: [] for g in games}

        async def play() -> None:
            deadline = time.monotonic() + 240
            tasks = [
                asyncio.create_task(person([a, b], g["id"], s["seat"], s["token"], acked[g["id"]], deadline))
                for g in games
                for s in g["seats"]
            ]
            # kill mid-game: once some moves are acknowledged (however loaded the machine is)
            until = time.monotonic() + 60
            while sum(len(x) for x in acked.values()) < 20 and time.monotonic() < until:
                await asyncio.sleep(0.1)
            moved = sum(len(x) for x in acked.values())
            b.kill9()  # mid-game: its sockets, its bots, its moves in flight
            await asyncio.sleep(1.0)
            b.start()
            await asyncio.gather(*tasks)
            assert moved > 0, "nothing was played before the kill"

        asyncio.run(play())
        # every game ended; every acknowledged move is in its record, at its index
        bots_moves = 0
        for g in games:
            rec = http_get(f"{a.url}/api/games/{g['id']}/record").json()
            assert rec["result"]["winners"], g["id"]
            for index, action in acked[g["id"]]:
                assert rec["actions"][index] == action, (g["id"], index)
            # the bots' decisions: each once (every index holds exactly one action, and they replay)
            bots_moves += sum(1 for x in rec["actions"] if x["seat"] == 2)
            assert http_get(f"{b.url}/api/games/{g['id']}/record").json() == rec  # both processes agree
        assert bots_moves > GAMES * 10
    finally:
        a.stop()
        b.stop()
