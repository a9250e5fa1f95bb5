"""Players' names (defects found under attack): a name is normalised (NFC, white space
collapsed) and refused with a clear error, changing nothing, when it holds control,
format (bidirectional override), surrogate or unassigned characters or is too long; such
a name never reaches the lobby."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import create, make_client


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with make_client(tmp_path) as c:
        yield c


def body(name: str) -> bytes:
    # written by hand: a lone surrogate cannot be encoded by json.dumps + utf-8
    return (
        '{"players": [{"name": "' + name + '", "kind": "person"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}]}'
    ).encode()


@pytest.mark.parametrize(
    "raw",
    [
        "\\ud800",  # a lone surrogate
        "Ann\\u202eevil",  # RIGHT-TO-LEFT OVERRIDE
        "Ann\\u2066x",  # LEFT-TO-RIGHT ISOLATE
        "Ann\\u0000",  # NUL
        "Ann\\u0007",  # BEL
        "Ann\\u200bB",  # ZERO WIDTH SPACE (a format character)
        "Ann\\ue000",  # private use
        "x" * 25,  # too long
    ],
)
def test_a_bad_name_is_refused_and_changes_nothing(client: TestClient, raw: str) -> None:
    before = client.get("/api/games").json()
    r = client.post("/api/games", content=body(raw), headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_name" and err["params"] == {"max": 24}
    assert client.get("/api/games").json() == before


def test_a_bad_name_in_a_claim_leaves_the_seat_free_and_the_lobby_working(client: TestClient) -> None:
    g = create(client, "person", "open", "bot")
    r = client.post(f"/api/games/{g['id']}/claim", content=b'{"seat": 1, "name": "\\udfff"}', headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name"
    lobby = client.get("/api/games")
    assert lobby.status_code == 200
    # the seat can still be claimed, with a good name
    r = client.post(f"/api/games/{g['id']}/claim", json={"seat": 1, "name": "Ben"})
    assert r.status_code == 200, r.text
    names = [p["name"] for p in client.get(f"/api/games/{g['id']}").json()["players"]]
    assert names[1] == "Ben"


def test_names_are_normalised(client: TestClient) -> None:
    r = client.post("/api/games", content=body("  Jose\\u0301 \\t  Mari\\u0301a  "), headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    g = r.json()
    players = client.get(f"/api/games/{g['id']}").json()["players"]
    assert players[0]["name"] == "José María"  # NFC, one space
    assert len("José María") == 10
    # no name at all: the default
    r = client.post("/api/games", content=body("   "), headers={"content-type": "application/json"})
    assert r.json()["seats"][0]["name"] == "Player 1"
