"""The server's HTTP and WebSocket protocol: every refusal path, joins, records, storage."""

from __future__ import annotations

import json
import random
import sqlite3
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import act, create, join_all, make_client, play_out, state, tokens

from kardinal.rules.record import replay
from kardinal.server.storage import MIGRATIONS, Storage


@pytest.fixture()
def client(tmp_path: Path, db_url: str) -> Any:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def count_actions(client: TestClient, gid: str) -> int:
    storage = client.app.state.service.storage  # type: ignore[attr-defined]
    return int(storage.count_actions(gid))


def running_three(client: TestClient) -> tuple[str, dict[int, str]]:
    g = create(client, "person", "person", "person")
    join_all(client, g)
    return g["id"], tokens(g)


def legal_of(client: TestClient, gid: str, seat: int, tok: str) -> list[dict[str, Any]]:
    return list(state(client, gid, seat, tok)["legal"])


def assert_refused(r: Any, status: int, code: str) -> dict[str, Any]:
    assert r.status_code == status, r.text
    err = r.json()["error"]
    assert err["code"] == code, err
    assert err["message"]
    return dict(err)


# -- lobby ---------------------------------------------------------------------------


def test_create_validates_the_seats(client: TestClient) -> None:
    for body in (
        {"players": [{"kind": "person"}] * 2},
        {"players": [{"kind": "person"}] * 6},
        {"players": [{"kind": "person"}, {"kind": "bot", "level": "nonsense"}, {"kind": "bot"}]},
        {"players": [{"kind": "alien"}] * 3},
        {"players": [{"kind": "person"}] * 3, "board": "/etc/passwd"},
        [1, 2, 3],
    ):
        assert_refused(client.post("/api/games", json=body), 400, "malformed")
    assert_refused(client.post("/api/games", content=b"{not json"), 400, "malformed")
    assert client.get("/api/games").json()["games"] == []


def test_game_starts_when_every_person_has_joined(client: TestClient) -> None:
    g = create(client, "person", "bot", "person")
    gid, toks = g["id"], tokens(g)
    assert sorted(toks) == [0, 2] and g["status"] == "open"
    assert g["seats"][0]["url"] == f"/game/{gid}?seat=0&token={toks[0]}"
    r = act(client, gid, 0, toks[0], 0, {"seat": 0, "act": "pass"})
    assert_refused(r, 409, "not_started")
    assert_refused(client.post(f"/api/games/{gid}/join", json={"seat": 0, "token": toks[2]}), 403, "bad_token")
    # a bot's seat has no token: any is refused, saying a bot plays it (a page that followed a
    # "Play again" table started with bots is told why it watches)
    assert_refused(client.post(f"/api/games/{gid}/join", json={"seat": 1, "token": "x"}), 403, "bot_seat")
    assert client.post(f"/api/games/{gid}/join", json={"seat": 0, "token": toks[0], "name": "  Anna  "}).json()["status"] == "open"
    assert client.post(f"/api/games/{gid}/join", json={"seat": 2, "token": toks[2]}).json()["status"] == "running"
    info = client.get(f"/api/games/{gid}").json()
    assert info["status"] == "running" and info["players"][0]["name"] == "Anna"
    assert "token_hash" not in json.dumps(client.get("/api/games").json())


def test_claim_a_free_seat_from_the_lobby(client: TestClient) -> None:
    g = create(client, "person", "open", "bot")
    gid, toks = g["id"], tokens(g)
    r = client.post(f"/api/games/{gid}/claim", json={"seat": 1, "name": "Ben"})
    assert r.status_code == 200, r.text
    new = r.json()["token"]
    assert new != toks[1]
    # the old invitation link of that seat no longer works, the new token does
    assert_refused(client.post(f"/api/games/{gid}/join", json={"seat": 1, "token": toks[1]}), 403, "bad_token")
    assert_refused(client.post(f"/api/games/{gid}/claim", json={"seat": 1}), 409, "seat_taken")
    assert_refused(client.post(f"/api/games/{gid}/claim", json={"seat": 2}), 409, "seat_taken")
    assert state(client, gid, 1, new)["view"]["seat"] == 1
    client.post(f"/api/games/{gid}/join", json={"seat": 0, "token": toks[0]})
    assert_refused(client.post(f"/api/games/{gid}/claim", json={"seat": 0}), 409, "not_open")


def test_an_invited_seat_is_taken_with_its_link_only(client: TestClient) -> None:
    """A stranger in the lobby cannot take the seat meant for an invited friend (found under
    attack: any visitor could claim any free seat, and the friend's link stopped working)."""
    g = create(client, "person", "person", "open")
    gid, toks = g["id"], tokens(g)
    lobby = {p["seat"]: p for p in client.get(f"/api/games/{gid}").json()["players"]}
    assert (lobby[1]["open"], lobby[2]["open"]) == (False, True)
    before = client.get(f"/api/games/{gid}").json()
    err = assert_refused(client.post(f"/api/games/{gid}/claim", json={"seat": 1, "name": "Mallory"}), 403, "seat_invited")
    assert err["params"] == {}
    assert client.get(f"/api/games/{gid}").json() == before
    # the friend's link still works; the open seat can be taken by anyone
    assert client.post(f"/api/games/{gid}/join", json={"seat": 1, "token": toks[1]}).status_code == 200
    assert client.post(f"/api/games/{gid}/claim", json={"seat": 2, "name": "Stranger"}).status_code == 200
    # open seats make no sense at one browser: hot-seat seats are never open
    h = create(client, "person", "open", "bot", hotseat=True)
    assert [p["open"] for p in client.get(f"/api/games/{h['id']}").json()["players"]] == [False, False, False]


def test_hotseat_runs_at_once_with_every_token(client: TestClient) -> None:
    g = create(client, "person", "person", "bot", "person", hotseat=True)
    assert g["status"] == "running"
    assert g["hotseat_url"] == f"/game/{g['id']}?tokens=" + ",".join(f"{s}:{t}" for s, t in sorted(tokens(g).items()))


# -- the order of the checks ---------------------------------------------------------------


def test_every_refusal_changes_nothing(client: TestClient) -> None:
    gid, toks = running_three(client)
    legal = legal_of(client, gid, 0, toks[0])
    good = legal[0]
    cases: list[tuple[Any, int, str]] = [
        ({"seat": 0, "token": toks[0], "version": 0}, 400, "malformed"),  # no action
        ({"seat": 0, "token": toks[0], "action": good}, 400, "malformed"),  # no version
        ({"seat": 0, "token": toks[0], "version": "0", "action": good}, 400, "malformed"),
        ({"seat": 0, "token": toks[0], "version": 0, "action": good, "id": 5}, 400, "malformed"),
        ({"seat": 0, "token": toks[0], "version": 0, "action": {"seat": 0, "act": "fly"}}, 400, "malformed"),
        ({"seat": 0, "token": toks[0], "version": 0, "action": {**good, "seat": 1}}, 400, "malformed"),
        ({"seat": 0, "token": "wrong", "version": 0, "action": good}, 403, "bad_token"),
        ({"seat": 0, "token": toks[1], "version": 0, "action": good}, 403, "bad_token"),
        ({"seat": 7, "token": toks[0], "version": 0, "action": good}, 403, "bad_token"),
        ({"seat": 0, "version": 0, "action": good}, 403, "bad_token"),
        ({"seat": 1, "token": toks[1], "version": 0, "action": {**good, "seat": 1}}, 409, "not_your_turn"),
        ({"seat": 0, "token": toks[0], "version": 3, "action": good}, 409, "stale_version"),
        ({"seat": 0, "token": toks[0], "version": 0, "action": {"seat": 0, "act": "pass"}}, 422, "illegal"),
        ({"seat": 0, "token": toks[0], "version": 0, "action": {"seat": 0, "act": "draw", "from": "deck"}}, 422, "illegal"),
    ]
    before = state(client, gid, 0, toks[0])
    for body, status, code in cases:
        err = assert_refused(client.post(f"/api/games/{gid}/actions", json=body), status, code)
        if code == "illegal":
            assert err["rule"] in ("R3.1", "R5.1")
    assert_refused(client.post(f"/api/games/{gid}/actions", content=b"nope"), 400, "malformed")
    assert_refused(act(client, "nogame", 0, toks[0], 0, good), 404, "no_game")
    # a wrong token is refused before anything about the game is said (turn, version, rules)
    assert_refused(act(client, gid, 1, "wrong", 99, {"seat": 1, "act": "pass"}), 403, "bad_token")
    assert state(client, gid, 0, toks[0]) == before
    assert count_actions(client, gid) == 0


def test_an_illegal_placement_names_the_rule(client: TestClient) -> None:
    gid, toks = running_three(client)
    msg = state(client, gid, 0, toks[0])
    hand = msg["view"]["hand"]
    card = sorted(hand)[0]
    # a card the seat does not hold twice, played as a pair
    bad = {"seat": 0, "act": "place", "country": "frankreich", "cards": [card] * 3, "pieces": [{"type": "cloister", "site": "paris"}] * 2}
    err = assert_refused(act(client, gid, 0, toks[0], 0, bad), 422, "illegal")
    assert err["rule"].startswith("R")
    assert count_actions(client, gid) == 0


def test_a_refusal_carries_a_code_and_params_to_say_it_in_any_language(client: TestClient) -> None:
    gid, toks = running_three(client)
    msg = state(client, gid, 0, toks[0])
    held = msg["view"]["hand"]
    kinds = [k["id"] for k in client.get("/api/board").json()["cards"]]
    card = next(k for k in kinds if not held.get(k))
    # three of a card the seat does not hold (R4.1): the card, what is held, what was played
    bad = {"seat": 0, "act": "place", "country": "frankreich", "cards": [card] * 3, "pieces": [{"type": "cloister", "site": "paris"}] * 2}
    err = assert_refused(act(client, gid, 0, toks[0], 0, bad), 422, "illegal")
    assert (err["rule"], err["reason"], err["params"]) == ("R4.1", "card_not_in_hand", {"card": card, "have": 0, "play": 3})
    # someone else's turn: the name of the seat to act
    other = {**legal_of(client, gid, 0, toks[0])[0], "seat": 1}
    err = assert_refused(act(client, gid, 1, toks[1], 0, other), 409, "not_your_turn")
    assert err["params"] == {"name": msg["players"][0]["name"]}
    # a refusal that needs no words of its own still has (empty) params
    err = assert_refused(act(client, gid, 0, "wrong", 0, other), 403, "bad_token")
    assert err["params"] == {}


def test_a_repeated_action_id_is_applied_once(client: TestClient) -> None:
    gid, toks = running_three(client)
    move = legal_of(client, gid, 0, toks[0])[0]
    r1 = act(client, gid, 0, toks[0], 0, move, cid="abc")
    assert r1.status_code == 200 and r1.json()["duplicate"] is False
    v = r1.json()["version"]
    assert v == 1
    r2 = act(client, gid, 0, toks[0], 0, move, cid="abc")  # the same submission again (e.g. a retry)
    assert r2.status_code == 200, r2.text
    assert r2.json()["duplicate"] is True and r2.json()["version"] == 1 and r2.json()["index"] == 0
    assert count_actions(client, gid) == 1
    assert len(state(client, gid)["view"]["history"]) == 1


def test_the_turn_moves_on_with_the_seat(client: TestClient) -> None:
    gid, toks = running_three(client)
    rng = random.Random(3)
    for _ in range(12):
        msg = state(client, gid)
        cur = msg["view"]["current"]
        for other in toks:
            if other != cur:
                assert "legal" not in state(client, gid, other, toks[other])
        mine = state(client, gid, cur, toks[cur])
        r = act(client, gid, cur, toks[cur], mine["version"], rng.choice(mine["legal"]))
        assert r.status_code == 200, r.text
    assert count_actions(client, gid) == 12


# -- websockets ----------------------------------------------------------------------------


def test_websocket_play_and_refusals(client: TestClient) -> None:
    gid, toks = running_three(client)
    with client.websocket_connect(f"/ws/{gid}") as ws:
        ws.send_text("not json")
        assert ws.receive_json()["code"] == "malformed"
        ws.send_json({"type": "action", "seat": 0})
        assert ws.receive_json()["code"] == "malformed"  # hello first
        ws.send_json({"type": "hello", "seats": {"0": "bad"}})
        assert ws.receive_json()["code"] == "bad_token"
        ws.send_json({"type": "hello", "seats": {"0": toks[0]}})
        assert ws.receive_json() == {"type": "welcome", "game": gid, "seats": [0]}
        msg = ws.receive_json()
        assert msg["type"] == "state" and msg["seat"] == 0 and "hand" in msg["view"] and msg["legal"]
        ws.send_json({"type": "dance"})
        assert ws.receive_json()["code"] == "malformed"
        ws.send_json({"type": "action", "id": "w1", "seat": 0, "token": toks[0], "version": 5, "action": msg["legal"][0]})
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "stale_version" and err["id"] == "w1"
        ws.send_json({"type": "action", "id": "w2", "seat": 0, "token": toks[0], "version": 0, "action": msg["legal"][0]})
        after = ws.receive_json()
        assert after["type"] == "state" and after["version"] == 1
        ack = ws.receive_json()
        assert ack == {"type": "ack", "id": "w2", "version": 1, "index": 0, "duplicate": False}
        ws.send_json({"type": "action", "id": "w2", "seat": 0, "token": toks[0], "version": 0, "action": msg["legal"][0]})
        assert ws.receive_json()["duplicate"] is True
    assert count_actions(client, gid) == 1


def test_an_acknowledgement_comes_inside_the_state_for_a_client_that_asks(client: TestClient) -> None:
    """Hello ``"ack_in_state": true``: the action's acknowledgement is the ``ack`` of the state
    message it made (one frame, not two); the other seats' messages carry none; a duplicate,
    which makes no state, is acknowledged alone; a refusal is an error as ever."""
    gid, toks = running_three(client)
    with client.websocket_connect(f"/ws/{gid}") as ws, client.websocket_connect(f"/ws/{gid}") as other:
        ws.send_json({"type": "hello", "seats": {"0": toks[0]}, "delta": True, "ack_in_state": True})
        other.send_json({"type": "hello", "seats": {"1": toks[1]}, "ack_in_state": True})
        assert ws.receive_json()["type"] == other.receive_json()["type"] == "welcome"
        msg = ws.receive_json()
        assert msg["type"] == "state" and "ack" not in msg and other.receive_json()["version"] == 0
        ws.send_json({"type": "action", "id": "a1", "seat": 0, "token": toks[0], "version": 0, "action": msg["legal"][0]})
        after = ws.receive_json()
        while after["version"] == 0:  # the state as the other connection came (who is here)
            assert after["type"] == "state" and "ack" not in after
            after = ws.receive_json()
        assert after["type"] == "state" and after["version"] == 1
        assert after["ack"] == {"type": "ack", "id": "a1", "version": 1, "index": 0, "duplicate": False}
        seen = other.receive_json()
        while seen["version"] == 0:
            seen = other.receive_json()
        assert seen["type"] == "state" and "ack" not in seen
        ws.send_json({"type": "action", "id": "a1", "seat": 0, "token": toks[0], "version": 0, "action": msg["legal"][0]})
        assert ws.receive_json() == {"type": "ack", "id": "a1", "version": 1, "index": 0, "duplicate": True}
        ws.send_json({"type": "action", "id": "a2", "seat": 0, "token": toks[0], "version": 0, "action": msg["legal"][0]})
        err = ws.receive_json()
        assert err["type"] == "error" and err["code"] == "stale_version" and err["id"] == "a2"
    assert count_actions(client, gid) == 1


def test_websocket_spectator_sees_no_hand(client: TestClient) -> None:
    gid, toks = running_three(client)
    with client.websocket_connect(f"/ws/{gid}") as ws:
        ws.send_json({"type": "hello"})
        assert ws.receive_json()["seats"] == []
        msg = ws.receive_json()
        assert msg["seat"] is None and "hand" not in msg["view"] and "legal" not in msg
        ws.send_json({"type": "action", "id": "s", "seat": 0, "token": "guess", "version": 0, "action": {"seat": 0, "act": "pass"}})
        assert ws.receive_json()["code"] == "bad_token"


def test_websocket_unknown_game(client: TestClient) -> None:
    with client.websocket_connect("/ws/nosuchgame") as ws:
        assert ws.receive_json()["code"] == "no_game"


def test_hotseat_connection_gets_the_acting_persons_view(client: TestClient) -> None:
    g = create(client, "person", "person", "person", hotseat=True)
    gid, toks = g["id"], tokens(g)
    seen: set[int] = set()
    acks = 0
    with client.websocket_connect(f"/ws/{gid}") as ws:
        ws.send_json({"type": "hello", "seats": {str(s): t for s, t in toks.items()}})
        assert ws.receive_json()["seats"] == [0, 1, 2]
        while len(seen) < 3 or acks < 8:
            msg = ws.receive_json()
            if msg["type"] == "ack":
                acks += 1
                continue
            assert msg["type"] == "state"
            cur = msg["view"]["current"]
            assert msg["seat"] == cur and msg["legal"] and "hand" in msg["view"]
            seen.add(cur)
            if msg["version"] < 12:
                ws.send_json(
                    {
                        "type": "action",
                        "id": f"h{msg['version']}",
                        "seat": cur,
                        "token": toks[cur],
                        "version": msg["version"],
                        "action": msg["legal"][0],
                    }
                )
    assert seen == {0, 1, 2}


# -- finished games: record and replay ---------------------------------------------------


def test_record_and_replay_only_when_finished(client: TestClient) -> None:
    g = create(client, "person", "bot", "bot", "bot")
    gid, toks = g["id"], tokens(g)
    join_all(client, g)
    assert_refused(client.get(f"/api/games/{gid}/record"), 409, "not_finished")
    assert_refused(client.get(f"/api/games/{gid}/replay/0"), 409, "not_finished")
    end = play_out(client, gid, toks, random.Random(5))
    assert end["status"] == "finished" and end["view"]["winners"]
    r = client.get(f"/api/games/{gid}/record")
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    rec = r.json()
    assert "seed" not in rec and rec["players"] == ["P0", "B1", "B2", "B3"]
    st = replay(rec)
    assert st.is_over and st.scores == end["view"]["scores"]
    step = client.get(f"/api/games/{gid}/replay/7").json()
    assert step["step"] == 7 and step["total"] == len(rec["actions"]) and len(step["view"]["history"]) == 7
    assert len(step["hands"]) == 4
    assert_refused(client.get(f"/api/games/{gid}/replay/{len(rec['actions']) + 1}"), 400, "malformed")
    assert_refused(act(client, gid, 0, toks[0], end["version"], {"seat": 0, "act": "pass"}), 409, "game_over")
    summary = client.get(f"/api/games/{gid}").json()
    assert summary["status"] == "finished" and summary["scores"] == st.scores


# -- storage ---------------------------------------------------------------------------------


def test_storage_schema_and_wal(tmp_path: Path) -> None:
    s = Storage.sqlite(tmp_path / "db" / "k.sqlite3")
    assert s.schema_version() == len(MIGRATIONS)
    assert s.migrate() == len(MIGRATIONS)  # idempotent
    s.close()
    con = sqlite3.connect(tmp_path / "db" / "k.sqlite3")
    assert con.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert con.execute("SELECT version FROM schema_version").fetchall() == [(len(MIGRATIONS),)]
    con.close()


def test_pages_and_board(client: TestClient) -> None:
    assert "lobby.js" in client.get("/").text
    assert "game.js" in client.get("/game/abc").text
    b = client.get("/api/board?id=reconstruction-1").json()
    assert len(b["sites"]) == 50 and len(b["alliances"]) == 15 and len(b["countries"]) == 9
    assert b["reconstruction"] is True and "reconstruction" in b["about"]
    for s in b["sites"]:
        assert 0 < s["xy"][0] < b["width"] and 0 < s["xy"][1] < b["height"] and len(s["cell"]) >= 3
    assert {a["number"] for a in b["alliances"] if a["across"] == "sea"} == {1, 2, 3, 5, 6, 15}
    assert client.get("/static/game.js").status_code == 200


def test_nothing_is_told_before_the_database_has_the_action(tmp_path: Path) -> None:
    with TestClient(create_app_for(tmp_path), raise_server_exceptions=True) as client:
        gid, toks = running_three(client)
        storage = client.app.state.service.storage  # type: ignore[attr-defined]
        move = legal_of(client, gid, 0, toks[0])[0]
        with client.websocket_connect(f"/ws/{gid}") as ws:
            ws.send_json({"type": "hello"})
            assert ws.receive_json()["type"] == "welcome"
            assert ws.receive_json()["version"] == 0

            def broken(*_a: Any, **_k: Any) -> None:
                raise OSError("disk full")

            real = storage.append_action
            storage.append_action = broken
            with pytest.raises(OSError):
                act(client, gid, 0, toks[0], 0, move)
            storage.append_action = real
            assert state(client, gid)["version"] == 0  # the game did not move in memory either
            r = act(client, gid, 0, toks[0], 0, move)
            assert r.status_code == 200
            assert ws.receive_json()["version"] == 1  # the first message the spectator gets is the committed move


def create_app_for(tmp_path: Path) -> Any:
    from kardinal.server.web.app import create_app

    return create_app(data_dir=tmp_path, bot_pause=0.0)


def test_idle_games_leave_memory_and_come_back_from_the_log(tmp_path: Path) -> None:
    from kardinal.server.web.app import create_app

    with TestClient(create_app(data_dir=tmp_path, bot_pause=0.0, max_live=2)) as client:
        service = client.app.state.service  # type: ignore[attr-defined]
        rng = random.Random(9)
        games = [running_three(client) for _ in range(4)]
        assert len(service.live) <= 2
        for _ in range(3):
            for gid, toks in games:
                msg = state(client, gid)
                cur = msg["view"]["current"]
                mine = state(client, gid, cur, toks[cur])
                assert act(client, gid, cur, toks[cur], mine["version"], rng.choice(mine["legal"])).status_code == 200
                assert len(service.live) <= 2
        for gid, _ in games:
            assert state(client, gid)["version"] == 3 == count_actions(client, gid)


def test_a_failing_bot_does_not_stop_the_game(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kardinal.bots import BOTS, RandomBot

    class Broken(RandomBot):
        def choose(self, view: dict[str, Any]) -> Any:
            raise RuntimeError("bug in a bot")

    class Cheat(RandomBot):
        def choose(self, view: dict[str, Any]) -> Any:
            from kardinal.rules.moves import Pass

            return Pass()  # never legal while a placement or an exchange is possible

    monkeypatch.setitem(BOTS, "broken", lambda seed, board: Broken(seed, board))
    monkeypatch.setitem(BOTS, "cheat", lambda seed, board: Cheat(seed, board))
    with make_client(tmp_path) as client:
        g = create(client, "person", "bot:broken", "bot:cheat")
        gid, toks = g["id"], tokens(g)
        join_all(client, g)
        end = play_out(client, gid, toks, random.Random(2))
        assert end["status"] == "finished"
        assert any(h["action"]["seat"] in (1, 2) for h in end["view"]["history"])


# -- undo: one's own placement, before drawing -----------------------------------------------


def undo(client: TestClient, gid: str, seat: int, tok: str, version: int) -> Any:
    return client.post(f"/api/games/{gid}/undo", json={"seat": seat, "token": tok, "version": version})


def test_a_placement_is_taken_back_before_drawing_and_leaves_no_trace(client: TestClient) -> None:
    gid, toks = running_three(client)
    before = state(client, gid, 0, toks[0])
    place = next(a for a in before["legal"] if a["act"] == "place")
    assert act(client, gid, 0, toks[0], 0, place).status_code == 200
    placed = state(client, gid, 0, toks[0])
    assert placed["view"]["phase"] == "draw" and placed["version"] == 1
    # another seat cannot take it back, nor can a stale version
    assert_refused(undo(client, gid, 1, toks[1], 1), 409, "cannot_undo")
    assert_refused(undo(client, gid, 0, toks[0], 0), 409, "stale_version")
    assert_refused(undo(client, gid, 0, "wrong", 1), 403, "bad_token")
    r = undo(client, gid, 0, toks[0], 1)
    assert r.status_code == 200, r.text
    assert r.json()["version"] == 0
    assert state(client, gid, 0, toks[0]) == before
    assert count_actions(client, gid) == 0
    # nothing to take back now
    assert_refused(undo(client, gid, 0, toks[0], 0), 409, "cannot_undo")
    # the game goes on as if the placement had never been sent, and its record replays
    assert act(client, gid, 0, toks[0], 0, place).status_code == 200
    assert count_actions(client, gid) == 1


def test_no_undo_once_a_card_is_drawn_or_for_an_exchange(client: TestClient) -> None:
    gid, toks = running_three(client)
    legal = legal_of(client, gid, 0, toks[0])
    place = next(a for a in legal if a["act"] == "place")
    assert act(client, gid, 0, toks[0], 0, place).status_code == 200
    draw = next(a for a in legal_of(client, gid, 0, toks[0]) if a["act"] == "draw")
    assert act(client, gid, 0, toks[0], 1, draw).status_code == 200
    v = count_actions(client, gid)
    err = assert_refused(undo(client, gid, 0, toks[0], v), 409, "cannot_undo")
    assert err["params"] == {}
    assert count_actions(client, gid) == v
    # an exchange (R6) is not a placement: it is never taken back
    gid, toks = running_three(client)
    ex = next(a for a in legal_of(client, gid, 0, toks[0]) if a["act"] == "exchange")
    assert act(client, gid, 0, toks[0], 0, ex).status_code == 200
    assert_refused(undo(client, gid, 0, toks[0], 1), 409, "cannot_undo")
    assert count_actions(client, gid) == 1


def test_undo_over_the_websocket(client: TestClient) -> None:
    gid, toks = running_three(client)
    place = next(a for a in legal_of(client, gid, 0, toks[0]) if a["act"] == "place")
    with client.websocket_connect(f"/ws/{gid}") as ws:
        ws.send_json({"type": "hello", "seats": {"0": toks[0]}})
        assert ws.receive_json()["type"] == "welcome"
        assert ws.receive_json()["version"] == 0
        ws.send_json({"type": "action", "id": "p1", "version": 0, "seat": 0, "token": toks[0], "action": place})
        msgs = [ws.receive_json(), ws.receive_json()]
        assert {m["type"] for m in msgs} == {"ack", "state"}
        ws.send_json({"type": "undo", "version": 1, "seat": 0, "token": toks[0]})
        msgs = [ws.receive_json(), ws.receive_json()]
        assert {m["type"] for m in msgs} == {"ack", "state"}
        assert next(m for m in msgs if m["type"] == "state")["version"] == 0


def test_action_ids_belong_to_their_seat(client: TestClient) -> None:
    """Two seats may happen to use the same action id: each is its own action (found
    under load: ids were deduplicated per game, and the second seat's move was dropped)."""
    gid, toks = running_three(client)
    # seat 0 places, draws: its turn ends; then seat 1 acts with the same id seat 0 used
    legal = legal_of(client, gid, 0, toks[0])
    place = next(a for a in legal if a["act"] == "place")
    assert act(client, gid, 0, toks[0], 0, place, cid="same").json()["duplicate"] is False
    while state(client, gid, 0, toks[0]).get("legal"):
        a = legal_of(client, gid, 0, toks[0])[0]
        assert act(client, gid, 0, toks[0], count_actions(client, gid), a).status_code == 200
    v = count_actions(client, gid)
    move = legal_of(client, gid, 1, toks[1])[0]
    r = act(client, gid, 1, toks[1], v, move, cid="same")
    assert r.status_code == 200 and r.json()["duplicate"] is False and r.json()["index"] == v
    assert count_actions(client, gid) == v + 1
    # and a retry by seat 1 is still recognised as its own
    assert act(client, gid, 1, toks[1], v, move, cid="same").json()["duplicate"] is True


def test_a_failed_write_changes_no_seat(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """A claim whose database write fails leaves the seat as it was: free, its name
    unchanged, claimable again (found under faults: memory was changed first)."""
    g = create(client, "person", "open", "bot")
    service = client.app.state.service  # type: ignore[attr-defined]
    storage = service.storage
    real = storage.update_game

    def broken(*a: Any, **k: Any) -> None:
        raise OSError("disk full")

    monkeypatch.setattr(storage, "update_game", broken)
    with pytest.raises(OSError):
        client.post(f"/api/games/{g['id']}/claim", json={"seat": 1, "name": "Eve"})
    players = client.get(f"/api/games/{g['id']}").json()["players"]
    assert players[1]["joined"] is False and players[1]["name"] != "Eve"
    monkeypatch.setattr(storage, "update_game", real)
    r = client.post(f"/api/games/{g['id']}/claim", json={"seat": 1, "name": "Eve"})
    assert r.status_code == 200, r.text
    assert client.get(f"/api/games/{g['id']}").json()["players"][1] == {
        "seat": 1,
        "name": "Eve",
        "kind": "person",
        "level": None,
        "joined": True,
        "open": True,
        "standin": False,
        "present": False,
    }


def test_a_state_message_is_made_once_per_change_for_every_spectator(client: TestClient) -> None:
    """A thousand spectators cost one view per change (found under load: the view was
    rebuilt per connection), and a change is never hidden by the reuse."""
    service = client.app.state.service  # type: ignore[attr-defined]
    gid, toks = running_three(client)
    live = service.get(gid)
    a = live.message_text(None)
    assert live.message_text(None) is a  # the same text, not made again
    assert json.loads(a) == live.message(None)
    # a move: a new message
    move = next(m for m in legal_of(client, gid, 0, toks[0]) if m["act"] == "place")
    assert act(client, gid, 0, toks[0], 0, move).status_code == 200
    b = live.message_text(None)
    assert b is not a and json.loads(b)["version"] == 1 and json.loads(b) == live.message(None)
    # an undo back to the same version number is a new message too
    assert client.post(f"/api/games/{gid}/undo", json={"seat": 0, "token": toks[0], "version": 1}).status_code == 200
    c = live.message_text(None)
    assert json.loads(c) == live.message(None) and json.loads(c)["version"] == 0
    # each seat's own message holds its own hand
    mine = json.loads(live.message_text(0))
    assert mine["seat"] == 0 and "hand" in mine["view"] and "hand" not in json.loads(live.message_text(None))["view"]


def test_an_action_id_of_the_longest_allowed_length_is_kept(client: TestClient) -> None:
    gid, toks = running_three(client)
    move = legal_of(client, gid, 0, toks[0])[0]
    long_id = "x" * 100  # the protocol allows 1-100 characters
    r = act(client, gid, 0, toks[0], 0, move, cid=long_id)
    assert r.status_code == 200, r.text
    assert act(client, gid, 0, toks[0], 0, move, cid=long_id).json()["duplicate"] is True


def test_every_http_response_carries_the_privacy_headers(client: TestClient) -> None:
    """Pages, API answers and refusals alike: no Referer leaves (a game's address holds a
    seat token), no sniffing, no framing by another site."""
    g = client.post("/api/games", json={"players": [{"kind": "person"}, {"kind": "bot", "level": "random"}] * 2}).json()
    answers = [
        client.get("/"),
        client.get(f"/game/{g['id']}"),
        client.get(f"/api/games/{g['id']}/state"),
        client.get("/api/games/nosuchgame/state"),  # 404
        client.post("/api/games", content=b"{"),  # 400
        client.get("/static/style.css"),
    ]
    assert [r.status_code for r in answers] == [200, 200, 200, 404, 400, 200]
    for r in answers:
        assert r.headers["referrer-policy"] == "no-referrer"
        assert r.headers["x-content-type-options"] == "nosniff"
        assert r.headers["x-frame-options"] == "DENY"


def test_the_game_socket_is_served_from_the_edge_by_its_path_alone() -> None:
    """direct_route (play/ws.py): the edge serves /ws/{game_id} itself, past the framework's
    layers, under a proxy's root path too; any other path is left to the app's routes."""
    from kardinal.server.play.ws import direct_route

    def scope(path: str, root: str = "") -> dict[str, Any]:
        return {"type": "websocket", "path": path, "root_path": root}

    assert direct_route(scope("/ws/abc123")) is not None
    assert direct_route(scope("/kardinal/ws/abc123", "/kardinal")) is not None
    for path in ("/ws/", "/ws/a/b", "/wsx/a", "/api/ws/a", "/ws", "/kardinal/ws/a"):
        assert direct_route(scope(path)) is None, path
