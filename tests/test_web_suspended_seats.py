"""A suspended account's seats (kardinal.server.community.moderation; SeatRow.barred): no way into
them opens them until the suspension ends: the seat's link token over the WebSocket or
HTTP, a key the account handed to another device, a page open when the operator suspended
it (told why and closed with 4423: its page keeps the tokens), "Play again" (it may not ask;
its seat in the new game is barred too). Its games go on: a bot stands in for it as for
anyone away, at a turn-based or rated table on each of its turns at once (no day waited).
Lifted, every way opens the seat again, and a turn-based table's turns wait for it again.
Both databases (``db_url``).

The attack: a suspended player who kept his seat's link (or an open tab) plays on, where
his signed-in pages were told that he may not (found by the third new-user walk)."""

from __future__ import annotations

import random
import time
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from starlette.websockets import WebSocketDisconnect
from test_web_clocks import FakeTime, chat_kinds, client_for, play_turn, service, stored
from test_web_clocks import call as portal_call
from test_web_leaving import hello, next_of
from test_web_moderation import call, service_of, sign_up
from test_web_table import app_client, play_until_turn_of, until
from web_helpers import act, play_out, state

from kardinal.server.community.admin import Admin
from kardinal.server.community.moderation import Moderation

pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


def apply_pending(c: TestClient) -> int:
    m: Moderation = c.app.state.moderation  # type: ignore[attr-defined]
    return int(c.portal.call(m.apply_pending))  # type: ignore[attr-defined]


def table(c: TestClient, **options: Any) -> tuple[str, dict[int, str], str, str]:
    """A live game of Anna (seat 0) and Bert (seat 1), both accounts, and a bot; its id,
    the seats' tokens as the accounts hold them, and the two sessions."""
    anna, bert = sign_up(c, "Anna"), sign_up(c, "Bert")
    players = [{"name": "Anna", "kind": "person"}, {"name": "Bert", "kind": "person"}, {"name": "Bot", "kind": "bot", "level": "random"}]
    g = call(c, "POST", "/api/games", anna, json={"players": players, **options}).json()
    toks = {s["seat"]: s["token"] for s in g["seats"]}
    for seat, who in ((0, anna), (1, bert)):
        r = call(c, "POST", f"/api/games/{g['id']}/join", who, json={"seat": seat, "token": toks[seat]})
        assert r.status_code == 200, r.text
        toks[seat] = r.json().get("token") or toks[seat]  # a seat that became the account's: its new token
    return g["id"], toks, anna, bert


def refused(r: Any, code: str = "suspended") -> dict[str, Any]:
    assert r.status_code == 403, r.text
    err: dict[str, Any] = r.json()["error"]
    assert err["code"] == code, err
    return err


def test_no_way_into_a_suspended_accounts_seat_opens_it_and_a_bot_plays_for_it(tmp_path: Path, db_url: str) -> None:
    rng = random.Random(3)
    with app_client(tmp_path, db_url) as c:
        gid, toks, anna, bert = table(c, away=2, standin="greedy")
        key = call(c, "POST", "/api/account/seat", bert, json={"game": gid, "seat": 1}).json()["token"]  # another device's
        adm = Admin(service_of(c).storage, "ops")
        with c.websocket_connect(f"/ws/{gid}") as tab:  # Bert's page, open when he is suspended
            hello(tab, {1: toks[1]})
            assert next_of(tab, "welcome")["seats"] == [1]
            adm.suspend("Bert", 3, "insults in game")
            assert apply_pending(c) == 1
            told = next_of(tab, "error")
            assert told["code"] == "suspended" and told["params"]["why"] == "insults in game"
            assert abs(told["params"]["at"] - (time.time() + 3 * 86400)) < 60
            with pytest.raises(WebSocketDisconnect) as closed:
                for _ in range(50):
                    tab.receive_json()
            assert closed.value.code == 4423  # (not 4403: the page keeps its tokens for later)
        version = state(c, gid)["version"]
        # the link's token, again over the WebSocket: refused, why said; the page may watch
        with c.websocket_connect(f"/ws/{gid}") as tab:
            hello(tab, {1: toks[1]})
            err = next_of(tab, "error")
            assert err["code"] == "suspended" and err["params"]["why"] == "insults in game"
            hello(tab, None)
            assert next_of(tab, "welcome")["seats"] == []
            assert "legal" not in next_of(tab, "state")
        # over HTTP, with the token or the device's key: the state of the seat, a move, an undo
        for tok in (toks[1], key):
            refused(c.get(f"/api/games/{gid}/state", params={"seat": 1, "token": tok}))
            refused(act(c, gid, 1, tok, version, {"act": "pass", "seat": 1}))
            refused(c.post(f"/api/games/{gid}/undo", json={"seat": 1, "token": tok, "version": version}))
        # signed in: the session opens nothing (no new device key)
        assert call(c, "POST", "/api/account/seat", bert, json={"game": gid, "seat": 1}).status_code in (401, 403)
        assert state(c, gid)["version"] == version  # nothing changed
        # the game goes on: Anna plays, and on Bert's turn a bot stands in for him
        play_until_turn_of(c, gid, {0: toks[0]}, 1, rng)
        until(lambda: state(c, gid)["players"][1]["standin"], what="the stand-in")
        until(lambda: state(c, gid)["view"]["current"] != 1, what="the stand-in's move")
        # a wrong token is still a wrong token (nothing said of the account)
        refused(c.get(f"/api/games/{gid}/state", params={"seat": 1, "token": "x" * 24}), "bad_token")
        # lifted: every way opens the seat again, and Bert takes it back from the stand-in
        adm.unsuspend("Bert")
        assert apply_pending(c) == 1
        for tok in (toks[1], key):
            assert c.get(f"/api/games/{gid}/state", params={"seat": 1, "token": tok}).status_code == 200
        with c.websocket_connect(f"/ws/{gid}") as tab:
            hello(tab, {1: toks[1]})
            assert next_of(tab, "welcome")["seats"] == [1]
            until(lambda: not state(c, gid)["players"][1]["standin"], what="Bert back")


def test_a_suspended_player_cannot_ask_to_play_again_and_his_seat_in_the_new_game_is_barred(tmp_path: Path, db_url: str) -> None:
    with app_client(tmp_path, db_url) as c:
        gid, toks, _anna, _bert = table(c)
        assert play_out(c, gid, {0: toks[0], 1: toks[1]}, random.Random(5))["status"] == "finished"
        Admin(service_of(c).storage, "ops").suspend("Bert", 2, "spam")
        assert apply_pending(c) == 0  # a finished game's seats are not barred: nothing to do
        err = refused(c.post(f"/api/games/{gid}/again", json={"seats": {"1": toks[1]}}))
        assert err["params"]["why"] == "spam"
        r = c.post(f"/api/games/{gid}/again", json={"seats": {"0": toks[0]}})
        assert r.status_code == 200, r.text
        new = r.json()["id"]
        # the start player moved on: old seat 1 (Bert) is new seat 0, old seat 0 (Anna) new seat 2
        refused(c.get(f"/api/games/{new}/state", params={"seat": 0, "token": toks[1]}))
        assert c.get(f"/api/games/{new}/state", params={"seat": 2, "token": toks[0]}).status_code == 200


def test_a_suspended_seats_turns_at_a_turn_based_table_are_played_at_once_until_it_is_lifted(tmp_path: Path, db_url: str) -> None:
    """Bert is suspended while Anna is to act at a turn-based table (a day a turn): when his
    turn comes, the stand-in plays it at the clock watcher's next look, not a day later, and
    the log says only that he is not at the table; his next turn too, at once. Lifted: his
    turn waits for him again, a day, as anyone's. (Suspended on his own turn:
    test_web_cluster.py.)"""
    clock, rng = FakeTime(), random.Random(4)
    with client_for(tmp_path, db_url, clock) as c:
        gid, toks, _, _ = table(c, mode="turn", clock={"days": 1})
        svc, adm = service(c), Admin(service(c).storage, "ops")
        adm.suspend("Bert", 3, "insults in game")
        assert apply_pending(c) == 1
        assert play_turn(c, gid, toks, rng) == 0  # Anna's turn: Bert's comes
        clock.advance(0.01)
        assert portal_call(c, svc.check_clocks) == [gid]  # his time ran out as it started
        portal_call(c, svc.wait_idle, gid)
        msg = state(c, gid)
        assert msg["players"][1]["standin"] and msg["view"]["current"] == 0  # the stand-in played, then the bot
        assert [(kind, text) for kind, name, text in chat_kinds(c, gid) if name == "Bert"] == [("away", "medium")]
        # his next turn: the stand-in plays it at once (no deadline runs for it)
        version = msg["version"]
        assert play_turn(c, gid, toks, rng) == 0
        portal_call(c, svc.wait_idle, gid)
        msg = state(c, gid)
        assert msg["view"]["current"] == 0 and msg["version"] > version + 2
        # lifted: the seat is his again, and his turn waits for him
        adm.unsuspend("Bert")
        assert apply_pending(c) == 1
        assert not state(c, gid)["players"][1]["standin"]
        assert play_turn(c, gid, toks, rng) == 0
        portal_call(c, svc.wait_idle, gid)
        assert state(c, gid)["view"]["current"] == 1
        assert stored(c, gid).deadline == clock() + 86400
        clock.advance(86400 - 60)
        assert portal_call(c, svc.check_clocks) == []
        assert state(c, gid)["view"]["current"] == 1


def test_a_suspension_lifted_on_the_seats_turn_before_the_stand_in_took_it_gives_the_whole_turn(tmp_path: Path, db_url: str) -> None:
    """Bert's turn came while he was suspended (it ran out at once), and the operator lifted
    the suspension before the clock watcher's next look: the turn is his, with a whole day."""
    clock, rng = FakeTime(), random.Random(5)
    with client_for(tmp_path, db_url, clock) as c:
        gid, toks, _, _ = table(c, mode="turn", clock={"days": 1})
        svc, adm = service(c), Admin(service(c).storage, "ops")
        adm.suspend("Bert", 3)
        assert apply_pending(c) == 1
        assert play_turn(c, gid, toks, rng) == 0
        assert stored(c, gid).deadline <= clock()  # his turn ran out as it started
        adm.unsuspend("Bert")
        assert apply_pending(c) == 1
        clock.advance(0.01)
        assert portal_call(c, svc.check_clocks) == []
        assert stored(c, gid).deadline == pytest.approx(clock() - 0.01 + 86400)
        assert state(c, gid)["view"]["current"] == 1 and not state(c, gid)["players"][1]["standin"]


def test_a_rated_game_played_out_by_a_suspended_players_stand_in_is_rated_as_a_leavers(tmp_path: Path, db_url: str) -> None:
    """At a rated turn-based table, Bert's turns are the stand-in's at once while he is
    suspended (the game does not wait days for each), and the game is rated as for anyone
    stood in for at its end: he is rated last (ratings.forfeited), whatever the stand-in
    made of it."""
    from test_web_ratings import settled

    clock, rng = FakeTime(), random.Random(7)
    with client_for(tmp_path, db_url, clock) as c:
        gid, toks, _, _ = table(c, mode="turn", rated=True)
        svc = service(c)
        Admin(svc.storage, "ops").suspend("Bert", 3)
        assert apply_pending(c) == 1
        assert play_turn(c, gid, toks, rng) == 0
        clock.advance(0.01)
        assert portal_call(c, svc.check_clocks) == [gid]
        assert play_out(c, gid, {0: toks[0]}, rng)["status"] == "finished"  # no day waited for any of his turns
        assert state(c, gid)["players"][1]["standin"]
        assert settled(c, gid)["seats"]["1"]["change"] < 0


def test_a_suspended_player_whose_page_was_open_on_his_turn_is_stood_in_for_until_lifted(tmp_path: Path, db_url: str) -> None:
    """Bert's page is open on his turn when he is suspended: it is closed, and the stand-in
    takes his seat until the suspension is lifted (not this turn only, as for a person at
    the table whose time ran out: a suspended seat is stood in for whatever page was open,
    clocks.Clocks._time_out); the log says only that he is not at the table."""
    clock, rng = FakeTime(), random.Random(8)
    with client_for(tmp_path, db_url, clock) as c:
        gid, toks, _, _ = table(c, mode="turn", clock={"days": 1})
        svc, adm = service(c), Admin(service(c).storage, "ops")
        assert play_turn(c, gid, toks, rng) == 0
        with c.websocket_connect(f"/ws/{gid}") as tab:
            hello(tab, {1: toks[1]})
            assert next_of(tab, "welcome")["seats"] == [1]
            adm.suspend("Bert", 3)
            assert apply_pending(c) == 1
            assert next_of(tab, "error")["code"] == "suspended"
            with pytest.raises(WebSocketDisconnect):
                for _ in range(50):
                    tab.receive_json()
        clock.advance(0.01)
        assert portal_call(c, svc.check_clocks) == [gid]
        portal_call(c, svc.wait_idle, gid)
        assert state(c, gid)["players"][1]["standin"] and state(c, gid)["view"]["current"] == 0
        assert [kind for kind, name, _ in chat_kinds(c, gid) if name == "Bert"] == ["away"]


def test_at_a_turn_based_table_without_a_clock_the_stand_in_takes_a_suspended_seat_until_lifted(tmp_path: Path, db_url: str) -> None:
    """No deadline runs there to run out: the stand-in takes Bert's seat as the suspension is
    applied (the log: not at the table), and plays his turns; lifted, they wait for him."""
    clock, rng = FakeTime(), random.Random(9)
    with client_for(tmp_path, db_url, clock) as c:
        gid, toks, _, _ = table(c, mode="turn")
        svc, adm = service(c), Admin(service(c).storage, "ops")
        adm.suspend("Bert", 3)
        assert apply_pending(c) == 1
        assert state(c, gid)["players"][1]["standin"]
        assert play_turn(c, gid, toks, rng) == 0
        portal_call(c, svc.wait_idle, gid)
        assert state(c, gid)["view"]["current"] == 0  # his turn played, and the bot's
        assert [kind for kind, name, _ in chat_kinds(c, gid) if name == "Bert"] == ["away"]
        adm.unsuspend("Bert")
        assert apply_pending(c) == 1
        assert play_turn(c, gid, toks, rng) == 0
        portal_call(c, svc.wait_idle, gid)
        assert state(c, gid)["view"]["current"] == 1 and not state(c, gid)["players"][1]["standin"]
