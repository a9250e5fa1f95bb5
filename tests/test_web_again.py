"""The scorings in detail over HTTP (GET /api/games/{id}/scoring) and "Play again"
(POST /api/games/{id}/again): the same players, the start player moved on one seat (R2.3),
the people keep their tokens for the seats they moved to."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from conftest import keys_deep
from fastapi.testclient import TestClient
from web_helpers import create, join_all, make_client, play_out, state, tokens


@pytest.fixture()
def client(tmp_path: Path, db_url: str) -> Any:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def finish_bots(client: TestClient, gid: str, timeout: float = 60.0) -> dict[str, Any]:
    end = time.monotonic() + timeout
    while True:
        msg = state(client, gid)
        if msg["status"] == "finished":
            return msg
        assert time.monotonic() < end, "the bots did not finish"
        time.sleep(0.01)


def ended(msg: dict[str, Any]) -> dict[str, Any]:
    (e,) = [e for h in msg["view"]["history"] for e in h["events"] if e["type"] == "game_ended"]
    return dict(e)


def test_scoring_of_a_finished_bot_game_adds_up_to_its_events(client: TestClient) -> None:
    g = client.post("/api/games", json={"players": [{"kind": "bot", "level": "random"}] * 4}).json()
    msg = finish_bots(client, g["id"])
    r = client.get(f"/api/games/{g['id']}/scoring")
    assert r.status_code == 200, r.text
    sc = r.json()
    assert sc["type"] == "scoring" and sc["version"] == msg["version"]
    fin = sc["scoring"]["final"]
    e = ended(msg)
    assert fin["scores"] == e["scores"] == msg["view"]["scores"]
    for p in range(4):
        assert fin["intermediate"][p] + fin["cloisters"][p] + fin["alliances"][p] + fin["chains"][p] == fin["scores"][p]
    assert fin["winners"] == e["winners"]
    inter = sc["scoring"]["intermediate"]
    (ie,) = [x for h in msg["view"]["history"] for x in h["events"] if x["type"] == "intermediate_scoring"]
    assert inter["points"] == ie["points"]
    assert inter["step"] == msg["marks"]["intermediate"]
    # public only (R13)
    assert not keys_deep(sc) & {"hand", "hands", "deck", "seed", "reshuffle", "token", "token_hash"}


def test_scoring_of_a_running_game_has_no_final_yet(client: TestClient) -> None:
    g = create(client, "person", "person", "person")
    join_all(client, g)
    sc = client.get(f"/api/games/{g['id']}/scoring").json()
    assert sc["scoring"] == {"players": 3, "intermediate": None, "final": None}
    assert client.get("/api/games/nope/scoring").status_code == 404


def test_play_again_with_bots_only_same_seats_board_and_variants(client: TestClient) -> None:
    players = [{"name": f"Bot {i}", "kind": "bot", "level": lvl} for i, lvl in enumerate(["random", "greedy", "random"])]
    g = client.post("/api/games", json={"players": players, "board": "reconstruction-1", "variants": ["joker-anywhere"]}).json()
    r = client.post(f"/api/games/{g['id']}/again", json={})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"
    finish_bots(client, g["id"])
    r = client.post(f"/api/games/{g['id']}/again", json={})
    assert r.status_code == 200, r.text
    new = r.json()["id"]
    assert new != g["id"]
    assert r.json()["seats"] == {}  # no seat asked for
    info = client.get(f"/api/games/{new}").json()
    # the start player moved on one seat: the old seat 1 begins, the old seat 0 sits last
    assert [(p["name"], p["kind"], p["level"]) for p in info["players"]] == [
        ("Bot 1", "bot", "greedy"),
        ("Bot 2", "bot", "random"),
        ("Bot 0", "bot", "random"),
    ]
    assert info["board"] == "reconstruction-1" and info["variants"] == ["joker-anywhere"]
    # once per game: asking again gives the same new game; the old game's messages name it
    assert client.post(f"/api/games/{g['id']}/again", json={}).json()["id"] == new
    assert state(client, g["id"])["again"] == new


def test_play_again_people_keep_their_tokens_for_the_seats_they_moved_to(client: TestClient) -> None:
    g = create(client, "person", "bot", "person")
    toks = tokens(g)
    join_all(client, g)
    play_out(client, g["id"], toks, random.Random(3))
    gid = g["id"]
    # a spectator (no token) or a wrong token may not start it
    assert client.post(f"/api/games/{gid}/again", json={}).status_code == 403
    assert client.post(f"/api/games/{gid}/again", json={"seats": {"0": "wrong"}}).status_code == 403
    r = client.post(f"/api/games/{gid}/again", json={"seats": {"2": toks[2]}})
    assert r.status_code == 200, r.text
    new = r.json()["id"]
    # the asker learns only where the seat it asked for went: the old seat 2 is the new seat 1
    assert r.json()["seats"] == {"2": 1}
    info = client.get(f"/api/games/{new}").json()
    # the old seat 1 (the bot) begins; names and kinds follow their players
    assert [(p["name"], p["kind"]) for p in info["players"]] == [("B1", "bot"), ("P2", "person"), ("P0", "person")]
    assert info["status"] == "open"  # the people join with the tokens they hold
    where = {0: 2, 2: 1}
    for seat, tok in toks.items():
        # the old seat's number in the new game is someone else's seat (or a bot's): refused, nothing changes
        assert client.post(f"/api/games/{new}/join", json={"seat": seat, "token": tok}).status_code == 403
        assert client.post(f"/api/games/{new}/join", json={"seat": where[seat], "token": tok}).status_code == 200
    assert client.get(f"/api/games/{new}").json()["status"] == "running"
    msg = state(client, new, 2, toks[0])
    assert msg["seat"] == 2 and "hand" in msg["view"]
    # the other person asks too: the same game, and where their seat went
    r = client.post(f"/api/games/{gid}/again", json={"seats": {"0": toks[0]}})
    assert r.json()["id"] == new and r.json()["seats"] == {"0": 2}


def test_play_again_twice_moves_the_start_player_on_each_time(client: TestClient) -> None:
    """Three games in a row of four: every seat begins in turn, and a person's token follows
    them round the table."""
    g = create(client, "person", "bot", "bot", "bot", hotseat=True)
    tok = tokens(g)[0]
    gid, seat = g["id"], 0
    firsts = []
    for k in range(3):
        play_out(client, gid, {seat: tok}, random.Random(10 + k))
        info = client.get(f"/api/games/{gid}").json()
        firsts.append(info["players"][0]["name"])
        r = client.post(f"/api/games/{gid}/again", json={"seats": {str(seat): tok}}).json()
        assert r["seats"] == {str(seat): (seat - 1) % 4}
        gid, seat = r["id"], r["seats"][str(seat)]
        assert client.get(f"/api/games/{gid}").json()["players"][seat]["name"] == "P0"
        assert state(client, gid, seat, tok)["seat"] == seat
    assert firsts == ["P0", "B1", "B2"]
    assert client.get(f"/api/games/{gid}").json()["players"][0]["name"] == "B3"


def test_play_again_hotseat_runs_at_once(client: TestClient) -> None:
    g = create(client, "person", "person", "bot", hotseat=True)
    toks = tokens(g)
    play_out(client, g["id"], toks, random.Random(4))
    r = client.post(f"/api/games/{g['id']}/again", json={"seats": {str(s): t for s, t in toks.items()}}).json()
    new = r["id"]
    assert r["seats"] == {"0": 2, "1": 0}
    info = client.get(f"/api/games/{new}").json()
    assert info["status"] == "running" and info["hotseat"]
    assert [p["name"] for p in info["players"]] == ["P1", "B2", "P0"]
    # every token works for the seat its person moved to, and for no other
    assert state(client, new, 2, toks[0])["seat"] == 2 and state(client, new, 0, toks[1])["seat"] == 0
    assert client.get(f"/api/games/{new}/state", params={"seat": 0, "token": toks[0]}).status_code == 403


def test_where_the_people_went_is_found_by_their_tokens_also_in_an_older_follow_up() -> None:
    """A follow-up made before the start player moved on kept the seats: the seats answered
    are found by the token hashes, so they hold for both."""
    from kardinal.server.play.rematch import moved, rotated
    from kardinal.server.storage import SeatRow

    old = [
        SeatRow("Ann", "person", None, "h0", True),
        SeatRow("Bot", "bot", "random", None, True),
        SeatRow("Ben", "person", None, "h2", True),
    ]
    assert [s.name for s in rotated(old)] == ["Bot", "Ben", "Ann"]
    assert moved(old, rotated(old)) == {0: 2, 2: 1}
    assert moved(old, old) == {0: 0, 2: 2}  # an older follow-up: the same seats
    assert moved(old, [SeatRow("X", "person", None, "other", True)] * 3) == {}  # nobody's token there


def recv_until(ws: Any, kind: str) -> dict[str, Any]:
    while True:
        m = ws.receive_json()
        if m["type"] == kind:
            return dict(m)


def test_a_spectator_follows_play_again_over_the_same_connection(client: TestClient) -> None:
    """A spectator's connection goes on to the game Play again started (FollowMessage): a
    welcome naming it, then its state from the start of its history; nothing more of the
    game before. Refused, changing nothing: before the next game exists, before hello, and
    for a connection holding seats (its people play again with their tokens)."""
    g = create(client, "person", "bot", "person")
    toks = tokens(g)
    join_all(client, g)
    gid = g["id"]
    with client.websocket_connect(f"/ws/{gid}") as spec, client.websocket_connect(f"/ws/{gid}") as early:
        early.send_json({"type": "follow", "id": "f0"})  # before hello
        err = recv_until(early, "error")
        assert err["code"] == "malformed" and "hello" in err["message"]
        spec.send_json({"type": "hello", "delta": True, "presence": True})
        assert recv_until(spec, "welcome") == {"type": "welcome", "game": gid, "seats": []}
        first = recv_until(spec, "state")
        assert first["game"] == gid and "again" not in first
        spec.send_json({"type": "follow", "id": "f1"})  # the game is not over: no next game yet
        err = recv_until(spec, "error")
        assert err["code"] == "malformed" and err["id"] == "f1" and "no next game" in err["message"]
        play_out(client, gid, toks, random.Random(5))
        with client.websocket_connect(f"/ws/{gid}") as seated:
            seated.send_json({"type": "hello", "seats": {"0": toks[0]}})
            recv_until(seated, "welcome")
            r = client.post(f"/api/games/{gid}/again", json={"seats": {"0": toks[0]}})
            new = r.json()["id"]
            while recv_until(seated, "state").get("again") != new:
                pass
            seated.send_json({"type": "follow", "id": "f2"})  # a seat's connection does not follow
            err = recv_until(seated, "error")
            assert err["code"] == "malformed" and err["id"] == "f2" and "seats" in err["message"]
        while (m := recv_until(spec, "state")).get("again") != new:
            assert m["game"] == gid
        spec.send_json({"type": "follow", "id": "f3"})
        assert recv_until(spec, "welcome") == {"type": "welcome", "game": new, "seats": []}
        m = recv_until(spec, "state")
        # the new game's state, whole (not a delta of the history held for the game before)
        assert m["game"] == new and m["status"] == "open" and m["seat"] is None
        assert "history" not in m and "hand" not in m["view"]
        assert [p["name"] for p in m["players"]] == [p["name"] for p in client.get(f"/api/games/{new}").json()["players"]]
        # it watches the new game now: its changes come, and none of the old game's
        for seat, tok in toks.items():
            where = r.json()["seats"].get(str(seat))
            if where is None:
                where = client.post(f"/api/games/{gid}/again", json={"seats": {str(seat): tok}}).json()["seats"][str(seat)]
            assert client.post(f"/api/games/{new}/join", json={"seat": where, "token": tok}).status_code == 200
        while (m := recv_until(spec, "state"))["status"] != "running":
            assert m["game"] == new
        # a delta of the history this connection was sent of the new game (from its start)
        assert m["game"] == new and m["history"]["from"] == 0 and len(m["history"]["entries"]) == m["version"]


def test_a_spectator_following_a_chain_of_games_is_in_the_newest_only(client: TestClient) -> None:
    """Probe (issue 46 follow-up): a spectator that follows along a chain of "Play again"
    games is a listener of the newest game only (none of the games before keeps it: no
    memory or messages left behind), is counted present for no seat, and a follow sent
    twice goes on once (the second: no next game yet, nothing changed)."""
    service = client.app.state.service  # type: ignore[attr-defined]
    g = create(client, "bot", "bot", "bot")
    gid = g["id"]
    chain = [gid]
    with client.websocket_connect(f"/ws/{gid}") as spec:
        spec.send_json({"type": "hello"})
        recv_until(spec, "welcome")
        for i in range(3):
            finish_bots(client, chain[-1])
            while recv_until(spec, "state")["status"] != "finished":
                pass
            new = client.post(f"/api/games/{chain[-1]}/again", json={}).json()["id"]
            chain.append(new)
            while recv_until(spec, "state").get("again") != new:
                pass
            spec.send_json({"type": "follow", "id": f"a{i}"})
            spec.send_json({"type": "follow", "id": f"b{i}"})  # again at once: the new game has no next one yet
            assert recv_until(spec, "welcome")["game"] == new
            err = recv_until(spec, "error")
            assert err["id"] == f"b{i}" and "no next game" in err["message"]
            assert len(service.live[new].conns) == 1 and service.live[new].present == set()
            before = [service.live[g] for g in chain[:-1] if g in service.live]  # (a game may have left memory)
            assert all(not live.conns for live in before), chain


@pytest.mark.timeout(300)
def test_a_spectator_at_another_process_follows_play_again(tmp_path: Path, pg: Any) -> None:
    """Two processes on one PostgreSQL database (two apps, each listening to the other): a
    spectator at process B of a game its people play at process A follows their "Play
    again" when B has caught up with it. Before, a follow is refused (no next game yet,
    nothing changed); after, B's connection is in the new game only, counted for no seat,
    shown no hand, and the new game's changes made at A reach it."""
    db = str(pg.new_database())
    with make_client(tmp_path / "a", db_url=db) as a, make_client(tmp_path / "b", db_url=db) as b:
        g = create(a, "person", "bot", "person")
        gid, toks = g["id"], tokens(g)
        join_all(a, g)
        with b.websocket_connect(f"/ws/{gid}") as spec:
            spec.send_json({"type": "hello", "delta": True})
            assert recv_until(spec, "welcome") == {"type": "welcome", "game": gid, "seats": []}
            play_out(a, gid, toks, random.Random(7))
            while recv_until(spec, "state")["status"] != "finished":  # B caught up with A's moves
                pass
            spec.send_json({"type": "follow", "id": "f1"})  # the game is over, and no next game yet
            err = recv_until(spec, "error")
            assert err["code"] == "malformed" and err["id"] == "f1" and "no next game" in err["message"]
            r = a.post(f"/api/games/{gid}/again", json={"seats": {str(s): t for s, t in toks.items()}})
            assert r.status_code == 200, r.text
            new, moved = r.json()["id"], r.json()["seats"]
            while recv_until(spec, "state").get("again") != new:  # B heard of it from A
                pass
            spec.send_json({"type": "follow", "id": "f2"})
            assert recv_until(spec, "welcome") == {"type": "welcome", "game": new, "seats": []}
            m = recv_until(spec, "state")
            assert m["game"] == new and m["status"] == "open" and m["seat"] is None and "hand" not in m["view"]
            service_b = b.app.state.service  # type: ignore[attr-defined]
            assert len(service_b.live[new].conns) == 1 and service_b.live[new].present == set()
            assert gid not in service_b.live or not service_b.live[gid].conns
            # the people take their seats of the new game at A: B's spectator sees it running
            for seat, tok in toks.items():
                assert a.post(f"/api/games/{new}/join", json={"seat": moved[str(seat)], "token": tok}).status_code == 200
            while (m := recv_until(spec, "state"))["status"] != "running":
                assert m["game"] == new
            assert m["seat"] is None and "hand" not in m["view"]
