"""Limits (defects found under attack): request bodies and WebSocket messages are capped
in size and in JSON depth, and refused with a clear error that changes nothing; a bad
WebSocket message is answered, never a dropped socket; an action id is echoed only if
it is a valid one."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import create, join_all, make_client, tokens

from kardinal.clients.web.app import MAX_BODY, MAX_DEPTH


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with make_client(tmp_path) as c:
        yield c


def games(client: TestClient) -> int:
    return len(client.get("/api/games").json()["games"])


def test_an_oversized_body_is_refused_before_it_is_read(client: TestClient) -> None:
    n = games(client)
    big = b'{"players": [], "pad": "' + b"x" * MAX_BODY + b'"}'
    r = client.post("/api/games", content=big, headers={"content-type": "application/json"})
    assert r.status_code == 413 and r.json()["error"]["code"] == "too_large"
    assert r.json()["error"]["params"] == {"max": MAX_BODY}
    # without a Content-Length (chunked), reading stops at the limit too
    r = client.post("/api/games", content=iter([b'{"pad": "', b"x" * MAX_BODY, b'"}']), headers={"content-type": "application/json"})
    assert r.status_code == 413
    assert games(client) == n


@pytest.mark.parametrize("depth", [MAX_DEPTH + 1, 1000, 100_000])
def test_deep_json_is_malformed_not_a_server_error(client: TestClient, depth: int) -> None:
    deep = "[" * depth + "]" * depth
    if len(deep) > MAX_BODY:
        deep = "[" * (MAX_BODY // 2 - 1) + "]" * (MAX_BODY // 2 - 1)  # as deep as fits
    r = client.post("/api/games", content=deep.encode(), headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed", r.text


def test_json_as_deep_as_the_protocol_needs_is_read(client: TestClient) -> None:
    ok = "[" * MAX_DEPTH + "]" * MAX_DEPTH
    r = client.post("/api/games", content=ok.encode(), headers={"content-type": "application/json"})
    assert r.status_code == 400 and "expected a JSON object" in r.json()["error"]["message"]


def test_bad_websocket_messages_are_answered_and_the_socket_stays(client: TestClient) -> None:
    g = create(client, "person", "person", "bot")
    join_all(client, g)
    tok = tokens(g)
    with client.websocket_connect(f"/ws/{g['id']}") as ws:
        ws.send_bytes(b"\x00\x01binary")
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "malformed" and "binary" in err["message"]
        ws.send_text("[" * 5000 + "]" * 5000)
        assert ws.receive_json()["code"] == "malformed"
        ws.send_text('{"type": "x", "pad": "' + "y" * MAX_BODY + '"}')
        assert ws.receive_json()["code"] == "too_large"
        ws.send_text('{"type": "hello", "seats": {"0": "' + tok[0] + '"}}')
        assert ws.receive_json()["type"] == "welcome"
        assert ws.receive_json()["type"] == "state"
        # an action with an over-long id: refused, and the id is not echoed back
        long_id = "i" * 5000
        ws.send_json({"type": "action", "id": long_id, "version": 0, "seat": 0, "token": tok[0], "action": {"seat": 0, "act": "pass"}})
        err = ws.receive_json()
        assert err["type"] == "error" and err["id"] is None and long_id not in str(err)
        # a good id is echoed
        ws.send_json({"type": "action", "id": "a1", "version": 0, "seat": 0, "token": tok[0], "action": {"seat": 0, "act": "pass"}})
        err = ws.receive_json()
        assert err["id"] == "a1" and err["code"] == "illegal"
        ws.send_json({"type": "ping"})
        assert ws.receive_json() == {"type": "pong"}
