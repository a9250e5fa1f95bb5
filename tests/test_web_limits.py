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

from kardinal.server.web.http import MAX_BODY, MAX_DEPTH


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


# -- rate limits per address (the production rules of guard.py) -------------------------------


def strict_client(tmp_path: Path) -> TestClient:
    from kardinal.server.common.guard import RULES, Guard
    from kardinal.server.web.app import create_app

    return TestClient(create_app(data_dir=tmp_path, bot_pause=0.0, guard=Guard(RULES)))


def test_creating_games_is_limited_per_address(tmp_path: Path) -> None:
    with strict_client(tmp_path) as c:
        people = {"players": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "level": "random"}]}
        codes = [c.post("/api/games", json=people).status_code for _ in range(32)]
        assert codes[:30] == [200] * 30 and codes[30:] == [429, 429]
        err = c.post("/api/games", json={"players": []}).json()["error"]
        assert err["code"] == "rate_limited" and 1 <= err["params"]["retry"] <= 60
        assert len(c.get("/api/games").json()["games"]) == 30


def test_a_creation_sent_twice_with_its_key_is_charged_once(tmp_path: Path) -> None:
    """A double click (the same client key twice) makes one game and spends one creation
    of the address's budget of 30: 29 games each asked for twice, then a 30th, all made.
    (An address at its budget is refused before its request is read, a repeat too.)"""
    with strict_client(tmp_path) as c:
        people = {"players": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "level": "random"}]}
        ids = []
        for i in range(29):
            for _ in range(2):
                r = c.post("/api/games", json={**people, "key": f"click-{i:04d}"})
                assert r.status_code == 200, (i, r.text)
                ids.append(r.json()["id"])
        assert len(set(ids)) == 29 and ids[0::2] == ids[1::2]
        assert c.post("/api/games", json={**people, "key": "the-thirtieth"}).status_code == 200
        assert c.post("/api/games", json={**people, "key": "one-more-game"}).status_code == 429


def test_guessing_tokens_is_slowed_to_a_few_tries_a_second(tmp_path: Path) -> None:
    with strict_client(tmp_path) as c:
        g = create(c, "person", "person", "bot")
        tok = tokens(g)
        gid = g["id"]
        wrong = [c.post(f"/api/games/{gid}/join", json={"seat": 0, "token": f"guess-{i}"}).json()["error"]["code"] for i in range(8)]
        assert wrong[:5] == ["bad_token"] * 5 and wrong[5:] == ["rate_limited"] * 3
        # while over, even the right token is refused: a guess cannot be told from a hit
        r = c.post(f"/api/games/{gid}/join", json={"seat": 0, "token": tok[0]})
        assert r.status_code == 429
        # over the WebSocket too, with the same budget
        with c.websocket_connect(f"/ws/{gid}") as ws:
            ws.send_json({"type": "hello", "seats": {"1": tok[1]}})
            assert ws.receive_json()["code"] == "rate_limited"


def test_wrong_tokens_over_the_websocket_count(tmp_path: Path) -> None:
    with strict_client(tmp_path) as c:
        g = create(c, "person", "person", "bot")
        with c.websocket_connect(f"/ws/{g['id']}") as ws:
            codes = []
            for i in range(7):
                ws.send_json({"type": "hello", "seats": {"0": f"guess-{i}"}})
                codes.append(ws.receive_json()["code"])
        assert codes[:5] == ["bad_token"] * 5 and codes[5:] == ["rate_limited"] * 2
        assert c.post(f"/api/games/{g['id']}/join", json={"seat": 0, "token": "x"}).json()["error"]["code"] == "rate_limited"


def test_the_limits_can_be_set_from_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kardinal.server.common.guard import rules_from
    from kardinal.server.web.app import create_app

    assert [str(r) for r in rules_from("create=2/minute")["create"]] == ["2 per 1 minute"]
    assert [str(r) for r in rules_from(None)["create"]] == ["30 per 1 minute"]
    with pytest.raises(ValueError, match="kinds: create, claim, bad_token"):
        rules_from("creates=5/minute")
    monkeypatch.setenv("KARDINAL_RATE_LIMITS", "create=2/minute")
    with TestClient(create_app(data_dir=tmp_path, bot_pause=0.0)) as c:
        people = {"players": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "level": "random"}]}
        assert [c.post("/api/games", json=people).status_code for _ in range(3)] == [200, 200, 429]


def test_the_guard_looks_up_only_addresses_it_counted_within_their_window() -> None:
    from kardinal.server.common.guard import Guard, rules_from
    from kardinal.server.common.refusal import Refused

    guard = Guard(rules_from("bad_token=3/minute"))
    for _ in range(3):
        guard.note("bad_token", "10.0.0.1")
    with pytest.raises(Refused) as e:
        guard.check("bad_token", "10.0.0.1")
    assert e.value.code == "rate_limited"
    guard.check("bad_token", "10.0.0.2")  # never counted: under every limit
    # thousands of other addresses later, the one over its limit is still refused
    for i in range(10_050):
        guard.note("bad_token", f"10.1.{i // 256}.{i % 256}")
    with pytest.raises(Refused):
        guard.check("bad_token", "10.0.0.1")


def test_guessing_is_slowed_under_a_root_path_too(tmp_path: Path) -> None:
    """Behind a reverse proxy with --root-path, a request's path begins with the root (as
    uvicorn gives it); the guard of the requests that carry tokens sees it as the app's."""
    from kardinal.server.common.guard import RULES, Guard
    from kardinal.server.web.app import create_app

    app = create_app(data_dir=tmp_path, bot_pause=0.0, guard=Guard(RULES))
    with TestClient(app, root_path="/kardinal") as c:
        g = c.post("/kardinal/api/games", json={"players": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}]}).json()
        gid = g["id"]
        wrong = [
            c.post(f"/kardinal/api/games/{gid}/join", json={"seat": 0, "token": f"guess-{i}"}).json()["error"]["code"] for i in range(7)
        ]
        assert wrong == ["bad_token"] * 5 + ["rate_limited"] * 2
        r = c.get(f"/kardinal/api/games/{gid}/state", params={"seat": 0, "token": g["seats"][0]["token"]})
        assert r.status_code == 429 and r.headers["referrer-policy"] == "no-referrer"
