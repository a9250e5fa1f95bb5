"""Faults an attacker's probe of the server found: addresses holding a NUL or another
control character (a 500 from PostgreSQL before, which cannot store a NUL in text)."""

from __future__ import annotations

from pathlib import Path

import pytest
from starlette.websockets import WebSocketDisconnect

from kardinal.server.web.http import MALFORMED_CLOSE
from tests.web_helpers import make_client

# every route the probe answered 500 on, and a few more that look a game or a name up
NUL_ADDRESSES = [
    "/api/games/%00",
    "/api/games/%00/state",
    "/api/games/%00/record",
    "/api/games/%00/ratings",
    "/api/games/%00/teach",
    "/api/games/%00/scoring",
    "/api/games/%00/chat",
    "/api/players/%00",
    "/player/%00",
    "/api/moderation/silenced?game=%00",
    "/api/games/x%00y/state?token=abc",
    "/api/games/abc/state?token=%00",
]


@pytest.mark.parametrize("address", NUL_ADDRESSES)
def test_a_nul_in_an_address_is_malformed_not_a_server_error(tmp_path: Path, db_url: str, address: str) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        r = c.get(address)
        assert r.status_code == 400, (address, r.status_code, r.text)
        assert r.json() == {"error": {"code": "malformed", "message": "the address holds a control character", "params": {}}}


@pytest.mark.parametrize("address", ["/api/players/a%01b", "/api/games/%1b%5b31m", "/api/players/x?y=%7f"])
def test_other_controls_in_an_address_are_malformed(tmp_path: Path, address: str) -> None:
    with make_client(tmp_path) as c:
        r = c.get(address)
        assert r.status_code == 400 and r.json()["error"]["code"] == "malformed", (address, r.text)


def test_ordinary_addresses_still_work(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        assert c.get("/api/games/nosuchgame").json()["error"]["code"] == "no_game"
        assert c.get("/api/players/Jos%C3%A9%20Mar%C3%ADa").status_code == 404
        assert c.get("/api/moderation/silenced?game=abc").status_code != 400


def test_a_websocket_with_a_nul_in_its_address_is_closed_before_it_is_accepted(tmp_path: Path, db_url: str) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        with pytest.raises(WebSocketDisconnect) as closed, c.websocket_connect("/ws/%00") as ws:
            ws.receive_json()
        assert closed.value.code == MALFORMED_CLOSE
        with c.websocket_connect("/ws/nosuchgame") as ws:  # an ordinary address: the game's refusal
            assert ws.receive_json()["code"] == "no_game"
