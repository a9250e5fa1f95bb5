"""Declared messages (issue: a typed API that refuses bad input cleanly): every body and
WebSocket message is checked against its declaration before a handler sees it, and a
refusal is a 4xx in the project's error format naming the field, never a 500. The inputs
are the ones an attacker's probe sent (each gave a 500, a dropped socket, a traceback in
the log, or an upload read whole before the limit)."""

from __future__ import annotations

import logging
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from pydantic import ValidationError
from web_helpers import create, join_all, make_client, state, tokens

from kardinal.server.play.schemas import CLIENT_MESSAGE, SERVER_MESSAGE

SURROGATE = '"\\ud800"'  # a lone surrogate: valid JSON, not storable as UTF-8
HUGE = "1" + "0" * 5000  # beyond Python's 4,300 digits for int()


@pytest.fixture
def client(db_url: str, tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def running(client: TestClient) -> tuple[str, dict[int, str]]:
    g = create(client, "person", "person", "bot")
    join_all(client, g)
    return g["id"], tokens(g)


def post_raw(client: TestClient, path: str, text: str) -> Any:
    return client.post(path, content=text.encode("utf-8", "surrogatepass"), headers={"content-type": "application/json"})


def refused(r: Any, status: int, code: str, field: str | None = None) -> dict[str, Any]:
    assert r.status_code == status, r.text
    err: dict[str, Any] = r.json()["error"]
    assert err["code"] == code, err
    if field is not None:
        assert err["params"].get("field") == field, err
    return err


def test_a_lone_surrogate_as_an_action_id_is_refused_and_the_game_goes_on(client: TestClient, caplog: Any) -> None:
    """It was a 500 (UnicodeEncodeError in the storage's write) that failed other games'
    moves committed with it."""
    gid, toks = running(client)
    before = state(client, gid, 0, toks[0])
    legal = before["legal"][0]
    import json

    body = '{"id": ' + SURROGATE + ', "seat": 0, "token": "' + toks[0] + '", "version": 0, "action": ' + json.dumps(legal) + "}"
    with caplog.at_level(logging.INFO):
        refused(post_raw(client, f"/api/games/{gid}/actions", body), 400, "malformed", "id")
    assert not [r for r in caplog.records if r.exc_info], "a client's error logs no traceback"
    assert state(client, gid, 0, toks[0])["version"] == 0
    ok = client.post(f"/api/games/{gid}/actions", json={"id": "a1", "seat": 0, "token": toks[0], "version": 0, "action": legal})
    assert ok.status_code == 200 and ok.json()["index"] == 0


def test_malformed_numbers_and_nesting_are_refused(client: TestClient) -> None:
    gid, toks = running(client)
    # a 5,000-digit number, in every body that takes one
    for path, text in (
        ("/api/games", '{"players": [], "away": ' + HUGE + "}"),
        (f"/api/games/{gid}/join", '{"seat": ' + HUGE + ', "token": "x"}'),
        (
            f"/api/games/{gid}/actions",
            '{"seat": 0, "token": "' + toks[0] + '", "version": ' + HUGE + ', "action": {"seat": 0, "act": "pass"}}',
        ),
        (f"/api/games/{gid}/hint", '{"seat": 0, "token": "' + toks[0] + '", "version": ' + HUGE + "}"),
    ):
        r = post_raw(client, path, text)
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed", (path, r.text)
    # 2,000 nested brackets at /hint (a RecursionError before)
    refused(post_raw(client, f"/api/games/{gid}/hint", "[" * 2000 + "]" * 2000), 400, "malformed")
    # a number where a seat is, out of its range
    refused(client.post(f"/api/games/{gid}/claim", json={"seat": 10**30}), 400, "malformed", "seat")
    assert state(client, gid)["version"] == 0


def test_a_malformed_token_is_a_wrong_token_and_counts(tmp_path: Path) -> None:
    """``"token": "\\ud800"`` was a 500 and never counted toward the guessing budget."""
    from kardinal.server.common.guard import RULES, Guard
    from kardinal.server.web.app import create_app

    with TestClient(create_app(data_dir=tmp_path, bot_pause=0.0, guard=Guard(RULES))) as c:
        g = create(c, "person", "person", "bot")
        gid = g["id"]
        codes = []
        for _ in range(7):
            r = post_raw(c, f"/api/games/{gid}/join", '{"seat": 0, "token": ' + SURROGATE + "}")
            codes.append(r.json()["error"]["code"])
        assert codes[:5] == ["bad_token"] * 5 and codes[5:] == ["rate_limited"] * 2, codes


def test_play_again_with_a_seat_key_that_is_no_digit(client: TestClient) -> None:
    """``int("²")`` was a 500."""
    g = create(client, "bot", "bot", "bot")
    r = client.post(f"/api/games/{g['id']}/again", json={"seats": {"²": "x"}})
    refused(r, 403, "bad_token")


def test_types_are_not_guessed(client: TestClient) -> None:
    """``"hotseat": "false"`` made a hot-seat game."""
    n = len(client.get("/api/games").json()["games"])
    spec: dict[str, Any] = {"players": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "level": "random"}]}
    for field, bad in (
        ("hotseat", "false"),
        ("hotseat", 0),
        ("public", "yes"),
        ("away", "60"),
        ("variants", "joker-anywhere"),
        ("mode", "blitz"),
    ):
        refused(client.post("/api/games", json={**spec, field: bad}), 400, "malformed", field)
    refused(
        client.post("/api/games", json={**spec, "players": [{"kind": "person", "open": "true"}] * 3}), 400, "malformed", "players.0.open"
    )
    refused(client.post("/api/games", json={**spec, "players": [{"kind": "robot"}] * 3}), 400, "malformed", "players.0.kind")
    assert len(client.get("/api/games").json()["games"]) == n


def test_unknown_fields_are_refused_everywhere(client: TestClient) -> None:
    gid, toks = running(client)
    spec = {"players": [{"kind": "person"}, {"kind": "person"}, {"kind": "bot", "level": "random"}]}
    refused(client.post("/api/games", json={**spec, "colour": "red"}), 400, "malformed", "colour")
    refused(client.post("/api/games", json={"players": [{"kind": "person", "hat": 1}] * 3}), 400, "malformed", "players.0.hat")
    refused(client.post(f"/api/games/{gid}/join", json={"seat": 0, "token": toks[0], "admin": True}), 400, "malformed", "admin")
    action = {"seat": 0, "act": "pass", "extra": 1}
    r = client.post(f"/api/games/{gid}/actions", json={"seat": 0, "token": toks[0], "version": 0, "action": action})
    refused(r, 400, "malformed", "action.extra")
    refused(client.post(f"/api/games/{gid}/review", json={"x": 1}), 400, "malformed", "x")


@pytest.mark.parametrize("path", ["/api/tutorial/joker", "/api/games/{gid}/hint", "/api/games", "/api/games/{gid}/actions"])
def test_the_size_limit_stops_reading_a_body_on_every_route(client: TestClient, path: str) -> None:
    """/api/tutorial/{step} and /hint read the whole body first: 100 MB were uploaded
    before the 413. A body without a length is read no further than the limit (the app is
    called as the server calls it, a chunk at a time: the test client would send it whole)."""
    gid, _ = running(client)
    received = 0
    answer: list[dict[str, Any]] = []

    async def receive() -> dict[str, Any]:
        nonlocal received
        received += 1  # 1,000 chunks of 64 KiB if it were all read
        return {"type": "http.request", "body": b" " * 65536, "more_body": received < 1000}

    async def send(message: dict[str, Any]) -> None:
        answer.append(message)

    async def call(headers: list[tuple[bytes, bytes]]) -> None:
        scope = {
            "type": "http",
            "asgi": {"version": "3.0"},
            "http_version": "1.1",
            "method": "POST",
            "scheme": "http",
            "path": path.format(gid=gid),
            "raw_path": path.format(gid=gid).encode(),
            "root_path": "",
            "query_string": b"",
            "headers": [(b"content-type", b"application/json"), *headers],
            "client": ("127.0.0.1", 5000),
            "server": ("testserver", 80),
            "state": {},
        }
        await client.app(scope, receive, send)  # type: ignore[arg-type]

    portal = client.portal  # type: ignore[attr-defined]
    portal.call(call, [])
    assert answer[0]["status"] == 413 and b'"too_large"' in answer[1]["body"], answer
    assert received <= 2, f"{received} chunks of 64 KiB were read"
    # with a length that says too much, nothing is read at all
    received, answer[:] = 0, []
    portal.call(call, [(b"content-length", str(100 * 2**20).encode())])
    assert answer[0]["status"] == 413 and received == 0


def test_websocket_messages_are_declared_both_ways(client: TestClient) -> None:
    """What a client may send is refused with the field's path (the socket stays); every
    message the server sends in a played game is one its declaration accepts."""
    gid, toks = running(client)
    with client.websocket_connect(f"/ws/{gid}") as ws:
        ws.send_text('{"type": "hello", "seats": {"0": ' + SURROGATE + "}}")
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] in ("malformed", "bad_token"), err
        ws.send_text('{"type": "hello", "seats": {"0": "' + toks[0] + '"}, "delta": "yes"}')
        err = ws.receive_json()
        assert err["code"] == "malformed" and err["params"]["field"] == "delta", err
        ws.send_text('{"type": "ping", "n": ' + HUGE + "}")
        assert ws.receive_json()["code"] == "malformed"
        ws.send_json({"type": "hello", "seats": {"0": toks[0]}, "delta": True, "ack_in_state": True})
        seen = [ws.receive_json(), ws.receive_json()]
        assert [m["type"] for m in seen] == ["welcome", "state"]
        st = seen[-1]
        action = st["legal"][0]
        ws.send_json({"type": "action", "id": "x1", "seat": 0, "token": toks[0], "version": st["version"], "action": action})
        seen.append(ws.receive_json())
        ws.send_json({"type": "action", "id": "x2", "seat": 0, "token": toks[0], "version": 0, "action": {**action, "seat": "0"}})
        err = ws.receive_json()
        assert err["code"] == "malformed" and err["id"] == "x2" and err["params"]["field"] == "action.seat", err
        seen.append(err)
        ws.send_json({"type": "ping"})
        seen.append(ws.receive_json())
    for m in seen:
        SERVER_MESSAGE.validate_python(m)  # raises if the server sent what it does not declare


def test_the_declarations_refuse_what_the_protocol_never_sends() -> None:
    good = {"type": "action", "id": "a", "seat": 0, "token": "t", "version": 0, "action": {"seat": 0, "act": "draw", "from": "deck"}}
    CLIENT_MESSAGE.validate_python(good)
    for bad in (
        {**good, "version": -1},
        {**good, "version": True},
        {**good, "seat": 10},
        {**good, "id": "\u00e9"},
        {**good, "id": "x" * 101},
        {**good, "action": {"seat": 0, "act": "draw", "from": "sky"}},
        {**good, "action": {"seat": 0, "act": "place", "country": "x", "cards": [], "pieces": [{"type": "tower"}]}},
        {"type": "chat", "text": "hi\x00"},
        {"type": "chat", "text": ""},
        {"type": "hello", "seats": {"10": "t"}},
        {"type": "launch"},
    ):
        with pytest.raises(ValidationError):
            CLIENT_MESSAGE.validate_python(bad)


def test_the_openapi_document_declares_every_operation(client: TestClient) -> None:
    doc = client.get("/openapi.json").json()
    ops = {(m.upper(), p): op for p, item in doc["paths"].items() for m, op in item.items()}
    routes = {
        (m, r.path)
        for r in client.app.routes  # type: ignore[attr-defined]
        if getattr(r, "include_in_schema", False) and getattr(r, "methods", None)
        for m in r.methods - {"HEAD"}
    }
    assert routes and routes <= set(ops), routes - set(ops)
    for (method, path), op in ops.items():
        assert "200" in op["responses"] and op["responses"]["200"].get("content"), (method, path)
        # refusals in the project's format, not FastAPI's {"detail": ...}
        assert "HTTPValidationError" not in str(op["responses"]), (method, path)
        if method == "POST" and not path.endswith("/review"):
            assert op["requestBody"]["content"]["application/json"]["schema"]["$ref"].startswith("#/components/schemas/"), path
    schemas = doc["components"]["schemas"]
    assert {"ClientMessage", "ServerMessage", "ErrorBody", "CreateGame", "StateMessage"} <= set(schemas)
    assert schemas["CreateGame"]["additionalProperties"] is False


def test_the_document_says_what_this_installation_takes(client: TestClient) -> None:
    """Found by Schemathesis: the document let any string through where the server wants a
    board, a variant or a bot level it has, and any number of seats: a client (and a
    fuzzer) could not know. Now it names them, as the server checks them."""
    import re

    from kardinal.bots import BOTS, served_bots
    from kardinal.rules.board import installed_boards
    from kardinal.rules.variants import VARIANTS

    schemas = client.get("/openapi.json").json()["components"]["schemas"]
    create, seat = schemas["CreateGame"]["properties"], schemas["PlayerSpec"]["properties"]
    assert set(create["board"]["enum"]) == set(installed_boards())
    items = create["variants"]["items"]  # a single one is a "const"
    assert set(items.get("enum", [items.get("const")])) == set(VARIANTS)
    assert (create["players"]["minItems"], create["players"]["maxItems"]) == (3, 5)
    level = re.compile(create["standin"]["pattern"])
    assert all(level.match(x) and level.match(x.upper()) for x in served_bots()) and not level.match("god")
    assert [x for x in BOTS if level.match(x)] == [x for x in BOTS if x in served_bots()]  # not expert-parallel
    assert seat["level"]["anyOf"][0]["pattern"] == create["standin"]["pattern"]
    r = client.post("/api/games", json={"players": [{"kind": "person"}] * 3, "standin": "god"})
    assert r.status_code == 400 and r.json()["error"]["params"]["field"] == "standin"


def test_the_api_docs_page_needs_nothing_from_outside(client: TestClient) -> None:
    """/api/docs showed an empty page where a CDN cannot be reached (FastAPI's own page
    loads Swagger UI from one): its scripts and styles come from the server."""
    import re

    page = client.get("/api/docs")
    assert page.status_code == 200
    assets = re.findall(r'(?:src|href)="([^"]+)"', page.text)
    assert assets and all(a.startswith("/") for a in assets), assets
    for a in assets:
        assert client.get(a).status_code == 200, a
    assert "/openapi.json" in page.text
