"""Helpers for the web tests: an app on a temporary database, and driving games over HTTP."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

from fastapi.testclient import TestClient
from limits import parse_many

from kardinal.server.common.guard import Guard
from kardinal.server.web.app import create_app

# the protocol tests send many requests, right and wrong, from one address in a moment;
# the production rate limits are tested in test_web_limits.py
LENIENT = {
    "create": parse_many("10000/minute"),
    "claim": parse_many("10000/minute"),
    "bad_token": parse_many("10000/second"),
    "chat": parse_many("10000/second"),
    "signup": parse_many("10000/minute"),
    "signin": parse_many("10000/minute"),
    "seat_key": parse_many("10000/minute"),
}


def make_client(data: Path, bot_pause: float = 0.0, guard: Guard | None = None, db_url: str | None = None) -> TestClient:
    """An app on ``data``'s SQLite file, or on the database ``db_url`` (the ``db_url`` fixture:
    SQLite and PostgreSQL)."""
    app = create_app(data_dir=data, db_url=db_url, bot_pause=bot_pause, guard=guard if guard is not None else Guard(LENIENT))
    return TestClient(app)


def change_settings(monkeypatch: Any, app: Any, **changes: Any) -> None:
    """A running app's settings changed for one test (as if it had started with them; the
    server reads them once at its start): ``app.state.settings``, and the operator's
    contact the game service holds."""
    monkeypatch.setitem(app.state._state, "settings", app.state.settings.model_copy(update=changes))
    if "contact" in changes:
        monkeypatch.setattr(app.state.service, "contact", changes["contact"])


def seats(*kinds: str) -> list[dict[str, Any]]:
    """Seat specs from "person" (invited by link) / "open" (a person seat anyone may take
    from the lobby) / "bot" / "bot:level"."""
    out: list[dict[str, Any]] = []
    for i, k in enumerate(kinds):
        if k.startswith("bot"):
            out.append({"name": f"B{i}", "kind": "bot", "level": k.partition(":")[2] or "random"})
        elif k == "open":
            out.append({"name": f"P{i}", "kind": "person", "open": True})
        else:
            out.append({"name": f"P{i}", "kind": "person"})
    return out


def create(client: TestClient, *kinds: str, hotseat: bool = False) -> dict[str, Any]:
    r = client.post("/api/games", json={"players": seats(*kinds), "hotseat": hotseat, "board": "standard"})
    assert r.status_code == 200, r.text
    return r.json()


def tokens(game: dict[str, Any]) -> dict[int, str]:
    return {s["seat"]: s["token"] for s in game["seats"]}


def join_all(client: TestClient, game: dict[str, Any]) -> None:
    for seat, tok in tokens(game).items():
        r = client.post(f"/api/games/{game['id']}/join", json={"seat": seat, "token": tok})
        assert r.status_code == 200, r.text


def state(client: TestClient, gid: str, seat: int | None = None, token: str | None = None) -> dict[str, Any]:
    params = {} if seat is None else {"seat": seat, "token": token}
    r = client.get(f"/api/games/{gid}/state", params=params)
    assert r.status_code == 200, r.text
    return r.json()


def wait_for_person(client: TestClient, gid: str, toks: dict[int, str], timeout: float = 20.0) -> dict[str, Any]:
    """Poll until a person is to act (their state message, with legal moves) or the game is over."""
    end = time.monotonic() + timeout
    while True:
        spec = state(client, gid)
        if spec["status"] == "finished":
            return spec
        cur = spec["view"]["current"]
        if cur in toks:
            msg = state(client, gid, cur, toks[cur])
            if "legal" in msg:
                return msg
        assert time.monotonic() < end, "bots did not hand the turn back"
        time.sleep(0.002)


def act(client: TestClient, gid: str, seat: int, token: str, version: int, action: dict[str, Any], cid: str | None = None) -> Any:
    body: dict[str, Any] = {"seat": seat, "token": token, "version": version, "action": action}
    if cid is not None:
        body["id"] = cid
    return client.post(f"/api/games/{gid}/actions", json=body)


def play_out(client: TestClient, gid: str, toks: dict[int, str], rng: random.Random, limit: int | None = None) -> dict[str, Any]:
    """Random person moves (bots play on the server) until the game ends or ``limit`` person moves."""
    n = 0
    while True:
        msg = wait_for_person(client, gid, toks)
        if msg["status"] == "finished" or (limit is not None and n >= limit):
            return msg
        seat = msg["seat"]
        r = act(client, gid, seat, toks[seat], msg["version"], rng.choice(msg["legal"]), cid=f"c{n}-{rng.random()}")
        assert r.status_code == 200, r.text
        n += 1
