"""The deployments of the README, run: nginx (Debian's package, installed by ``make
system``) in front of two server processes on one PostgreSQL database, with
deploy/nginx.conf (at the root of a host) and deploy/nginx-path.conf (under /kardinal/) as
they are shipped, only their ports changed. Pages, the API and the game's WebSockets go
through it, on either process; players are told apart by the address nginx forwards;
under a path, a game is created and played in Chromium.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import os
import random
import re
import subprocess
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import httpx
import pytest
import websockets
from test_web_two_processes import Server, _free_port
from webtools import HTTP_TIMEOUT, http_get, http_post, new_page, shot, take_turn, wait_turn

ROOT = Path(__file__).resolve().parent.parent
NGINX = "/usr/sbin/nginx"


def nginx_config(conf: str, tmp: Path, port: int, upstreams: list[int]) -> Path:
    """A whole nginx.conf around a shipped server config: its upstream ports and listen
    port replaced, everything nginx writes kept in ``tmp``."""
    conf = re.sub(r"server 127\.0\.0\.1:800[12];", "", conf, count=0)
    conf = conf.replace("upstream kardinal {", "upstream kardinal {\n" + "".join(f"    server 127.0.0.1:{p};\n" for p in upstreams), 1)
    conf = conf.replace("listen 80;", f"listen 127.0.0.1:{port};")
    for d in ("body", "proxy", "fastcgi", "uwsgi", "scgi"):
        (tmp / d).mkdir(exist_ok=True)
        os.chmod(tmp / d, 0o777)
    whole = f"""
daemon off;
pid {tmp}/nginx.pid;
error_log {tmp}/error.log;
events {{ worker_connections 256; }}
http {{
    access_log off;
    client_body_temp_path {tmp}/body;
    proxy_temp_path {tmp}/proxy;
    fastcgi_temp_path {tmp}/fastcgi;
    uwsgi_temp_path {tmp}/uwsgi;
    scgi_temp_path {tmp}/scgi;
{conf}
}}
"""
    path = tmp / "nginx.conf"
    path.write_text(whole, encoding="utf-8")
    return path


def deploy(
    pg: Any, tmp_path: Path, shipped: str, env: dict[str, str], path: str = "", processes: int = 2
) -> Iterator[tuple[str, list[Server]]]:
    """nginx with a shipped config in front of ``processes`` servers; yields the servers'
    address through it (nginx's, and the ``path`` they live under)."""
    assert Path(NGINX).exists(), f"{NGINX} is missing: `make test` installs it (make system)"
    db = pg.new_database()
    servers = [Server(db, tmp_path, "abcdefgh"[i], env) for i in range(processes)]
    for s in servers:
        s.start()
    port = _free_port()
    conf = nginx_config((ROOT / "deploy" / shipped).read_text(encoding="utf-8"), tmp_path, port, [s.port for s in servers])
    test = subprocess.run([NGINX, "-t", "-c", str(conf)], capture_output=True, text=True)
    assert test.returncode == 0, test.stderr
    proc = subprocess.Popen([NGINX, "-c", str(conf)], stderr=subprocess.PIPE)
    base = f"http://127.0.0.1:{port}{path}"
    try:
        end = time.monotonic() + 20
        while True:
            try:
                if http_get(base + "/healthz", timeout=2).status_code == 200:
                    break
            except httpx.TransportError:
                pass
            assert proc.poll() is None, proc.stderr.read() if proc.stderr else b""
            assert time.monotonic() < end, "nginx did not answer"
            time.sleep(0.1)
        yield base, servers
    finally:
        proc.terminate()
        proc.wait(10)
        for s in servers:
            s.stop()


@pytest.fixture()
def deployment(pg: Any, tmp_path: Path) -> Iterator[tuple[str, list[Server]]]:
    yield from deploy(pg, tmp_path, "nginx.conf", {})


@pytest.fixture()
def three_processes(pg: Any, tmp_path: Path) -> Iterator[tuple[str, list[Server]]]:
    yield from deploy(pg, tmp_path, "nginx.conf", {}, processes=3)


@pytest.fixture()
def under_a_path(pg: Any, tmp_path: Path) -> Iterator[tuple[str, list[Server]]]:
    yield from deploy(pg, tmp_path, "nginx-path.conf", {"KARDINAL_ROOT_PATH": "/kardinal"}, "/kardinal")


async def play_through(base: str, game: dict[str, Any], moves: int) -> list[int]:
    """Both people connect through nginx and play ``moves`` decisions in turn; returns the
    versions each state message reached, per socket."""
    ws_base = base.replace("http://", "ws://")
    toks = {s["seat"]: s["token"] for s in game["seats"]}
    socks = [await websockets.connect(f"{ws_base}/ws/{game['id']}") for _ in toks]
    try:
        latest: dict[int, dict[str, Any]] = {}
        for ws, (seat, tok) in zip(socks, toks.items(), strict=True):
            await ws.send(json.dumps({"type": "hello", "seats": {str(seat): tok}}))
        played = 0
        while played < moves:
            for ws, seat in zip(socks, toks, strict=True):
                try:
                    m = json.loads(await asyncio.wait_for(ws.recv(), 0.05))
                except TimeoutError:
                    continue
                if m["type"] == "state":
                    latest[seat] = m
                    if m.get("legal") and m["version"] == max(x["version"] for x in latest.values()):
                        await ws.send(
                            json.dumps(
                                {
                                    "type": "action",
                                    "id": f"m{played}",
                                    "seat": seat,
                                    "token": toks[seat],
                                    "version": m["version"],
                                    "action": m["legal"][0],
                                }
                            )
                        )
                        played += 1
        # the states the last moves made are on their way to each socket: read them
        for ws, seat in zip(socks, toks, strict=True):
            while seat not in latest or latest[seat]["version"] < moves:
                m = json.loads(await asyncio.wait_for(ws.recv(), 10))
                if m["type"] == "state":
                    latest[seat] = m
        return [latest[s]["version"] for s in toks]
    finally:
        for ws in socks:
            await ws.close()


def test_the_shipped_nginx_config_serves_two_processes(deployment: tuple[str, list[Server]]) -> None:
    base, servers = deployment
    lobby = http_get(base + "/")
    assert lobby.status_code == 200 and "Kardinal" in lobby.text
    assert http_get(base + "/static/lobby.js").status_code == 200
    assert http_get(base + "/readyz").status_code == 200
    # a game created through nginx, joined and played through it over WebSockets
    seats = [{"kind": "person", "name": "Ann"}, {"kind": "person", "name": "Ben"}, {"kind": "bot", "level": "random"}]
    g = http_post(base + "/api/games", json={"players": seats}).json()
    for s in g["seats"]:
        assert http_post(f"{base}/api/games/{g['id']}/join", json={"seat": s["seat"], "token": s["token"]}).status_code == 200
    versions = asyncio.run(play_through(base, g, 12))
    assert min(versions) >= 12
    # both processes answer for the game (round robin), and agree
    for s in servers:
        assert http_get(f"{s.url}/api/games/{g['id']}/state").json()["version"] >= 12
    # nginx's own limit matches the server's: a large body is refused before it
    assert http_post(base + "/api/games", content=b"x" * 100_000, headers={"content-type": "application/json"}).status_code == 413


def test_players_behind_nginx_are_told_apart_by_their_forwarded_address(deployment: tuple[str, list[Server]]) -> None:
    """Rate limits count per player, not per proxy: wrong tokens from one player's address
    do not lock out another's (uvicorn trusts nginx's X-Forwarded-For from 127.0.0.1)."""
    base, _ = deployment
    g = http_post(base + "/api/games", json={"players": [{"kind": "person"}, {"kind": "bot"}, {"kind": "bot"}]}).json()
    url = f"{base}/api/games/{g['id']}/state"
    # each process keeps its own budget (5 a second, 60 a minute): past 120 tries the
    # guesser is refused, however slowly the requests go through
    codes: list[int] = []
    with httpx.Client(timeout=HTTP_TIMEOUT) as http:
        while 429 not in codes and len(codes) < 130:
            codes.append(http.get(url, params={"seat": 0, "token": "wrong"}, headers={"X-Forwarded-For": "203.0.113.7"}).status_code)
    assert 429 in codes and set(codes) == {403, 429}  # the guesser is slowed down ...
    ok = http_get(url, params={"seat": 0, "token": g["seats"][0]["token"]}, headers={"X-Forwarded-For": "198.51.100.9"})
    assert ok.status_code == 200  # ... and the real player is not


def test_under_a_path_a_game_is_created_and_played_in_the_browser(under_a_path: tuple[str, list[Server]], browser: Any) -> None:
    """Every address of the pages is under /kardinal/: styles, scripts, the API, the game's
    WebSocket, the links to the rules, the tutorial and "My games"."""
    base, _ = under_a_path
    host = base.removesuffix("/kardinal")
    assert http_get(host + "/kardinal", follow_redirects=False).headers["location"].endswith("/kardinal/")
    page = new_page(browser)
    failed: list[str] = []
    # (a request still on its way when the page moves on, as the home page's lists may be
    # when Play now is pressed, is aborted by the browser: no wrong address, which answers 404)
    page.on("requestfailed", lambda r: failed.append(r.url) if r.failure != "net::ERR_ABORTED" else None)
    page.on("response", lambda r: failed.append(f"{r.status} {r.url}") if r.status >= 400 else None)
    page.goto(base + "/")
    page.wait_for_selector("#bot-level-about")  # the bots' levels came through the path
    for link in ("#rules-link", "#tutorial-link", "#mine-link", "#learn"):
        assert page.get_attribute(link, "href").startswith("/kardinal/"), link
    page.click("#play-now")  # one person and bots: straight to the game
    page.wait_for_url("**/kardinal/game/*")
    page.wait_for_selector("body[data-status=running]", state="attached")
    rng = random.Random(4)
    for _ in range(3):
        assert wait_turn(page)
        take_turn(page, rng)
    assert page.evaluate("Number(document.body.dataset.version)") >= 3
    shot(page, "nginx-under-a-path")
    assert not failed and not page.errors, (failed, page.errors)


NEWS = 10.0  # seconds a player waits for news from another process (it comes in milliseconds)


class Player:
    """A person's page through nginx: one WebSocket (presence and chat asked for), every
    message kept; it opens again (through nginx: another process) when its process dies."""

    def __init__(self, base: str, gid: str, seat: int, token: str) -> None:
        self.url = base.replace("http://", "ws://") + f"/ws/{gid}"
        self.seat, self.token = seat, token
        self.state: dict[str, Any] = {}
        self.presence: dict[str, Any] = {}
        self.chat: list[str] = []
        self.acked: list[tuple[int, dict[str, Any]]] = []
        self.sent: dict[str, dict[str, Any]] = {}
        self.news = asyncio.Condition()
        self.ws: Any = None
        self.reopened = 0
        self.reader: asyncio.Task[None] | None = None

    async def open(self) -> None:
        self.ws = await websockets.connect(self.url)
        await self.ws.send(json.dumps({"type": "hello", "seats": {str(self.seat): self.token}, "presence": True}))
        self.reader = asyncio.create_task(self._read())

    async def _read(self) -> None:
        while True:
            try:
                m = json.loads(await self.ws.recv())
            except websockets.ConnectionClosed:
                await self._reopen()
                continue
            if m["type"] == "state":
                self.state = m
            elif m["type"] == "presence":
                self.presence = m
            elif m["type"] == "chat":
                self.chat += [line["text"] for line in m["lines"]]
            elif m["type"] == "ack" and m["id"] in self.sent:
                self.acked.append((m["index"], self.sent[m["id"]]))
            async with self.news:
                self.news.notify_all()

    async def _reopen(self) -> None:
        """Its process died: open again through nginx (which sends it to a live one)."""
        self.reopened += 1
        end = time.monotonic() + 30
        while True:
            try:
                self.ws = await websockets.connect(self.url)
                await self.ws.send(json.dumps({"type": "hello", "seats": {str(self.seat): self.token}, "presence": True}))
                return
            except (OSError, websockets.WebSocketException):
                assert time.monotonic() < end, "no process took the page"
                await asyncio.sleep(0.1)

    async def until(self, ok: Any, what: str) -> float:
        """Wait (at most NEWS seconds) until ``ok(self)``; returns the seconds it took."""
        start = time.monotonic()
        async with self.news:
            await asyncio.wait_for(self.news.wait_for(lambda: ok(self)), NEWS)
        return time.monotonic() - start

    async def play(self, stop: asyncio.Event) -> None:
        """Move whenever its state says it is this seat's turn (each version once)."""
        done: set[tuple[int, int]] = set()  # (the page's openings, the version): once each
        while not stop.is_set():
            st = self.state
            if st.get("legal") and (self.reopened, st["version"]) not in done and st.get("status") == "running":
                done.add((self.reopened, st["version"]))
                action = st["legal"][len(done) % len(st["legal"])]
                mid = f"{self.seat}-{st['version']}"
                self.sent[mid] = action
                body = {"type": "action", "id": mid, "seat": self.seat, "token": self.token, "version": st["version"], "action": action}
                with contextlib.suppress(websockets.ConnectionClosed):  # its process died: the next state says
                    await self.ws.send(json.dumps(body))
            async with self.news:
                with contextlib.suppress(TimeoutError):
                    await asyncio.wait_for(self.news.wait(), 0.5)

    async def close(self) -> None:
        if self.reader is not None:
            self.reader.cancel()
        await self.ws.close()


def test_three_processes_behind_nginx_feel_like_one_and_a_kill_9_loses_nothing(three_processes: tuple[str, list[Server]]) -> None:
    """Three people of one game, each connected through nginx to another process: each sees
    the others come (presence), what they say (chat) and their moves, at once (the delays
    measured are printed); then the process that runs the game's bot is killed with kill -9
    mid-game: its person's page opens again at another process, the bot's lease moves, and
    every acknowledged action is in the finished game."""
    base, servers = three_processes
    seats = [{"kind": "person", "name": n} for n in ("Ann", "Ben", "Cem")] + [{"kind": "bot", "level": "random"}]
    g = http_post(servers[0].url + "/api/games", json={"players": seats}).json()  # its bots run at a (the lease)
    gid = g["id"]
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    for seat, tok in toks.items():
        assert http_post(f"{base}/api/games/{gid}/join", json={"seat": seat, "token": tok}).status_code == 200

    async def body() -> None:
        people = [Player(base, gid, seat, toks[seat]) for seat in (0, 1, 2)]
        for p in people:  # one after another: nginx's round robin gives each its own process
            last = time.monotonic()
            await p.open()
            await p.until(lambda p: p.state, "the state")
        where = [[pl["seat"] for pl in http_get(f"{s.url}/api/games/{gid}").json()["players"] if pl["present"]] for s in servers]
        assert sorted(where) == [[0], [1], [2]], where  # each process holds one person
        # presence: each sees the other two, connected to other processes
        came = []
        for p in people:  # (the seconds since Cem's page opened)
            await p.until(lambda p: p.presence.get("here") == [0, 1, 2], "everyone here")
            came.append(time.monotonic() - last)
        # chat: Ann's line reaches Ben and Cem
        await people[0].ws.send(json.dumps({"type": "chat", "text": "Hallo zusammen"}))
        said = [await p.until(lambda p: "Hallo zusammen" in p.chat, "the chat line") for p in people[1:]]
        # moves: everyone's, and the bot's, seen by all
        stop = asyncio.Event()
        players = [asyncio.create_task(p.play(stop)) for p in people]
        for p in people:
            await p.until(lambda p: p.state["version"] >= 12, "twelve actions")
        print(f"\nthree processes: presence {max(came):.3f} s, chat {max(said):.3f} s (the longest wait)")
        # kill -9 the process that runs the bot, mid-game
        killed_at = max(p.state["version"] for p in people)
        victim = 0  # where the game was created: its bot's lease is there
        servers[victim].kill9()
        for p in people:
            end = time.monotonic() + 120
            while p.state.get("status") != "finished":
                assert time.monotonic() < end, f"the game did not end (version {p.state.get('version')})"
                await p.until(lambda p: True, "news")
        stop.set()
        await asyncio.gather(*players)
        assert [p.reopened for p in people].count(0) == 2  # only the killed process's person opened again
        for p in people:
            await p.close()
        rec = http_get(f"{base}/api/games/{gid}/record").json()
        for p in people:  # every acknowledged action is in the game, at its index
            assert p.acked, p.seat
            for index, action in p.acked:
                assert rec["actions"][index] == action, (p.seat, index)
        bot_after = [a for a in rec["actions"][killed_at:] if a["seat"] == 3]
        assert bot_after, "the bot did not play after its process died (its lease did not move)"
        for i, s in enumerate(servers):
            if i != victim:
                assert http_get(f"{s.url}/api/games/{gid}/record").json() == rec

    with ThreadPoolExecutor(1) as thread:  # (an event loop of its own: the browser's runs in this thread)
        thread.submit(asyncio.run, body()).result()
