"""Accounts (kardinal.server.community.accounts, account_routes, origin): sign up, sign in and out,
sessions in a cookie, a new password, deleting an account and its data; the seats that
belong to an account ("My games" on any device, a seat's token for another device). Each
on SQLite and PostgreSQL (the ``db_url`` fixture).

The security tests name the attack they stand against: session fixation, forged
cross-site requests, guessing passwords (rate limits, one refusal, a verify for a name
without an account), one account reading another's data, and secrets in the log.
"""

from __future__ import annotations

import asyncio
import logging
import threading
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path
from typing import Any

import pytest
from argon2 import PasswordHasher
from fastapi.testclient import TestClient
from limits import parse_many
from sqlalchemy import select
from web_helpers import LENIENT, create, join_all, make_client, seats, state, tokens, wait_for_person

from kardinal.server.common.guard import Guard
from kardinal.server.common.refusal import Refused
from kardinal.server.community import passwords
from kardinal.server.community.account_routes import COOKIE
from kardinal.server.community.accounts import Accounts
from kardinal.server.play.live import hash_token
from kardinal.server.storage import MIGRATIONS, Storage
from kardinal.server.storage.schema import accounts as accounts_table
from kardinal.server.storage.schema import sessions as sessions_table

PW = "correct horse battery"
SAME_SITE = {"origin": "http://testserver"}  # what a page of this server sends with a POST


pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


@pytest.fixture
def client(tmp_path: Path, db_url: str) -> Iterator[TestClient]:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def post(c: TestClient, path: str, secret: str | None = None, **kw: Any) -> Any:
    """A POST as a page of this server sends it, with the session ``secret`` (or none)."""
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret)
    try:
        return c.post(path, headers={**SAME_SITE, **kw.pop("headers", {})}, **kw)
    finally:
        c.cookies.clear()


def get(c: TestClient, path: str, secret: str | None = None, **kw: Any) -> Any:
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret)
    try:
        return c.get(path, **kw)
    finally:
        c.cookies.clear()


def sign_up(c: TestClient, name: str, password: str = PW, **body: Any) -> str:
    """A new account; its session's secret (the cookie)."""
    r = post(c, "/api/account/signup", json={"name": name, "password": password, **body})
    assert r.status_code == 200, r.text
    return str(r.cookies[COOKIE])


def sign_in(c: TestClient, name: str, password: str = PW, secret: str | None = None, **body: Any) -> Any:
    return post(c, "/api/account/signin", secret, json={"name": name, "password": password, **body})


def who(c: TestClient, secret: str | None) -> Any:
    return get(c, "/api/account", secret).json()["account"]


def my_games(c: TestClient, secret: str) -> dict[str, list[int]]:
    r = get(c, "/api/account/games", secret)
    assert r.status_code == 200, r.text
    return {g["game"]["id"]: g["seats"] for g in r.json()["games"]}


def accounts_of(c: TestClient) -> Accounts:
    acc: Accounts = c.app.state.accounts  # type: ignore[attr-defined]
    return acc


# -- storage and hashing ------------------------------------------------------------------


@pytest.mark.empty_database
def test_migration_8_makes_the_accounts_tables(db_url: str) -> None:
    st = Storage(db_url)
    try:
        assert st.schema_version() == len(MIGRATIONS) == 17
        aid = st.create_account("Anna", "anna", "$argon2id$x", 1.0)
        assert aid is not None and aid.id >= 1
        assert st.create_account("ANNA", "anna", "$argon2id$y", 2.0) is None  # the key is unique
        other = st.create_account("Bert", "bert", "$argon2id$z", 3.0)
        assert other is not None and other.id > aid.id
        st.delete_account(other.id)
        third = st.create_account("Cleo", "cleo", "$argon2id$w", 4.0)
        assert third is not None and third.id > other.id  # ids are never reused
    finally:
        st.close()


def test_production_cost_is_argon2id_of_rfc_9106() -> None:
    h = PasswordHasher()  # what passwords.HASHER is outside these tests
    assert h.hash("x" * 8).startswith("$argon2id$v=19$m=65536,t=3,p=4$")
    assert isinstance(passwords.HASHER, PasswordHasher)


def test_sign_up_stores_a_hash_and_a_session_hash_only(client: TestClient) -> None:
    r = post(client, "/api/account/signup", json={"name": "  Anna  Maria ", "password": PW})
    assert r.status_code == 200, r.text
    assert r.json()["account"]["name"] == "Anna Maria" and r.json()["brought"] == 0
    secret = r.cookies[COOKIE]
    cookie = r.headers["set-cookie"]
    assert "HttpOnly" in cookie and "SameSite=lax" in cookie and "Path=/" in cookie and "Secure" not in cookie
    assert who(client, secret)["name"] == "Anna Maria"
    st = client.app.state.service.storage  # type: ignore[attr-defined]
    with st.engine.connect() as conn:
        stored = conn.execute(select(accounts_table.c.password)).scalar_one()
        hashes = list(conn.execute(select(sessions_table.c.token_hash)).scalars())
    assert stored.startswith("$argon2id$") and PW not in stored
    assert len(hashes) == 1 and secret not in hashes[0] and hashes[0] != secret


def test_the_cookie_is_secure_over_https(tmp_path: Path) -> None:
    app = make_client(tmp_path).app
    with TestClient(app, base_url="https://kardinal.example") as c:
        r = c.post("/api/account/signup", json={"name": "Anna", "password": PW}, headers={"origin": "https://kardinal.example"})
        assert r.status_code == 200, r.text
        assert "Secure" in r.headers["set-cookie"]
        # a header a client sets itself is no proof of HTTPS: only a trusted proxy's counts
        # (uvicorn's --forwarded-allow-ips makes the scheme https; this app sees http)
    with TestClient(app) as c:
        r = c.post("/api/account/signin", json={"name": "Anna", "password": PW}, headers={"x-forwarded-proto": "https"})
        assert r.status_code == 200 and "Secure" not in r.headers["set-cookie"]


def test_names_and_passwords_are_checked(client: TestClient) -> None:
    sign_up(client, "Anna")
    for name, code in (("ＡＮＮＡ", "account_name_taken"), (" anna ", "account_name_taken"), ("", "bad_name"), ("a\u202eb", "bad_name")):
        r = post(client, "/api/account/signup", json={"name": name, "password": PW})
        assert r.json()["error"]["code"] == code, (name, r.text)
    assert post(client, "/api/account/signup", json={"name": "x" * 25, "password": PW}).json()["error"]["code"] == "bad_name"
    r = post(client, "/api/account/signup", json={"name": "Deleted Player", "password": PW})
    assert r.json()["error"]["code"] == "account_name_taken"
    r = post(client, "/api/account/signup", json={"name": "Bert", "password": "short"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_password" and r.json()["error"]["params"]["min"] == 8
    r = post(client, "/api/account/signup", json={"name": "Bert", "password": "x" * 257})
    assert r.status_code == 400 and r.json()["error"]["params"]["field"] == "password"
    r = post(client, "/api/account/signup", json={"name": "Bert", "password": PW, "admin": True})
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"
    assert who(client, None) is None


def test_sign_in_and_out(client: TestClient) -> None:
    sign_up(client, "Anna")
    r = sign_in(client, "anna")  # the name's key: any case
    assert r.status_code == 200 and r.json()["account"]["name"] == "Anna"
    secret = r.cookies[COOKIE]
    assert who(client, secret)["name"] == "Anna"
    r = post(client, "/api/account/signout", secret, json={})
    assert r.status_code == 200 and 'kardinal_session=""' in r.headers["set-cookie"]
    assert who(client, secret) is None
    assert get(client, "/api/account/games", secret).json()["error"]["code"] == "signed_out"


# -- attacks ------------------------------------------------------------------------------


def test_session_fixation_a_planted_session_is_not_the_signed_in_one(client: TestClient) -> None:
    """An attacker plants a session of their own in the victim's browser (a known value,
    and a real session of the attacker's account); the victim's sign-in makes a new one and
    ends the planted one."""
    planted = sign_up(client, "Mallory")
    r = sign_in(client, "Mallory", secret=planted)  # also one's own session is replaced
    assert r.status_code == 200 and r.cookies[COOKIE] != planted
    assert who(client, planted) is None
    planted = r.cookies[COOKIE]
    sign_up(client, "Victim")
    r = sign_in(client, "Victim", secret=planted)
    victims = r.cookies[COOKIE]
    assert victims != planted and who(client, victims)["name"] == "Victim"
    assert who(client, planted) is None  # what the attacker knows opens nothing
    r = sign_in(client, "Victim", secret="chosen-by-the-attacker")
    assert r.status_code == 200 and r.cookies[COOKIE] != "chosen-by-the-attacker"


@pytest.mark.parametrize(
    "headers",
    [
        {"origin": "https://evil.example"},
        {"origin": "null"},
        {"origin": "http://testserver.evil.example"},
        {"referer": "https://evil.example/page"},
        {"sec-fetch-site": "cross-site"},
        {"sec-fetch-site": "same-site"},
    ],
)
def test_forged_cross_site_requests_are_refused_and_change_nothing(client: TestClient, headers: dict[str, str]) -> None:
    secret = sign_up(client, "Anna")
    game = create(client, "person", "bot", "bot")
    for path, body in (
        ("/api/account/password", {"current": PW, "new": "a new password"}),
        ("/api/account/delete", {"password": PW}),
        ("/api/account/signout", {}),
        ("/api/games", {"players": seats("person", "bot", "bot")}),
        (f"/api/games/{game['id']}/claim", {"seat": 0}),
        ("/api/account/signup", {"name": "Forged", "password": PW}),
    ):
        client.cookies.set(COOKIE, secret)
        r = client.post(path, json=body, headers=headers)
        client.cookies.clear()
        assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site", (path, r.text)
    assert who(client, secret)["name"] == "Anna"  # not signed out, not deleted
    assert sign_in(client, "Anna").status_code == 200  # the password is the old one
    assert sign_in(client, "Forged").json()["error"]["code"] == "bad_sign_in"
    assert len(client.get("/api/games").json()["games"]) == 1
    # the same requests from this server's pages go through
    assert post(client, "/api/account/signout", secret, json={}).status_code == 200
    ok = post(client, "/api/games", json={"players": seats("person", "bot", "bot")}, headers={"sec-fetch-site": "same-origin"})
    assert ok.status_code == 200
    ok = client.post("/api/games", json={"players": seats("person", "bot", "bot")}, headers={"referer": "http://testserver/"})
    assert ok.status_code == 200


def test_guessing_one_refusal_for_no_such_name_and_a_wrong_password(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The same status and words for a name without an account and a wrong password, and
    a password verify in both (the time of the answer tells nothing: counted, not timed)."""
    sign_up(client, "Anna")
    verified: list[str] = []

    class Counting(PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> bool:
            verified.append(str(hash))
            return super().verify(hash, password)

    monkeypatch.setattr(passwords, "HASHER", Counting(time_cost=1, memory_cost=1024, parallelism=1))
    wrong = sign_in(client, "Anna", "not the password")
    nobody = sign_in(client, "Nobody", "not the password")
    bad_name = sign_in(client, "a\u202eb", "not the password")
    assert wrong.status_code == nobody.status_code == bad_name.status_code == 403
    assert (
        wrong.json()
        == nobody.json()
        == bad_name.json()
        == {"error": {"code": "bad_sign_in", "message": "wrong name or password", "params": {}}}
    )
    assert len(verified) == 3 and all(h.startswith("$argon2id$") for h in verified)
    assert COOKIE not in wrong.cookies and COOKIE not in nobody.cookies


def test_guessing_is_limited_per_address(tmp_path: Path, db_url: str) -> None:
    guard = Guard({**LENIENT, "signin": parse_many("3/minute"), "signin_name": parse_many("100/minute")})
    with make_client(tmp_path, db_url=db_url, guard=guard) as c:
        sign_up(c, "Anna")
        for i in range(3):
            assert sign_in(c, f"Name{i}", "guess").json()["error"]["code"] == "bad_sign_in"
        r = sign_in(c, "Anna")  # over: also the right password waits
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited" and r.json()["error"]["params"]["retry"] >= 1


def test_guessing_one_name_from_many_addresses_is_limited_per_name(client: TestClient) -> None:
    sign_up(client, "Anna")
    sign_up(client, "Bert")
    acc = accounts_of(client)
    portal = client.portal  # type: ignore[attr-defined]
    for i in range(5):  # 5 failures a minute (guard.py), each from another address
        with pytest.raises(Refused) as e:
            portal.call(acc.sign_in, "Anna", "guess", f"10.0.0.{i}")
        assert e.value.code == "bad_sign_in"
    with pytest.raises(Refused) as e:
        portal.call(acc.sign_in, "ANNA", PW, "10.0.1.1")  # the name's key, from a new address
    assert e.value.code == "rate_limited"
    assert portal.call(acc.sign_in, "Bert", PW, "10.0.1.1").account.name == "Bert"  # another name is not held up
    # the name's failures count also for names without an account (nothing tells them apart)
    for i in range(5):
        with pytest.raises(Refused):
            portal.call(acc.sign_in, "Nobody", "guess", f"10.0.2.{i}")
    with pytest.raises(Refused) as e:
        portal.call(acc.sign_in, "Nobody", "guess", "10.0.3.1")
    assert e.value.code == "rate_limited"


def test_one_account_cannot_read_anothers_data(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    bert = sign_up(client, "Bert")
    g = post(client, "/api/games", anna, json={"players": seats("person", "bot", "bot")}).json()
    assert my_games(client, anna) == {g["id"]: [0]}
    assert my_games(client, bert) == {}
    r = post(client, "/api/account/seat", bert, json={"game": g["id"], "seat": 0})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_seat"
    r = post(client, "/api/account/seat", bert, json={"game": "nosuchgame", "seat": 0})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_seat"  # no such game: the same
    data = get(client, "/api/account/data", bert).json()
    assert data["account"]["name"] == "Bert" and data["games"] == [] and g["id"] not in str(data)
    for path in ("/api/account/data", "/api/account/games"):
        assert get(client, path).status_code == 401
    assert post(client, "/api/account/seat", json={"game": g["id"], "seat": 0}).status_code == 401
    # a guest's token of another account's seat does not move it to a new account
    r = post(client, "/api/account/signup", json={"name": "Cleo", "password": PW, "held": {g["id"]: {"0": tokens(g)[0]}}})
    assert r.json()["brought"] == 0
    assert my_games(client, r.cookies[COOKIE]) == {} and my_games(client, anna) == {g["id"]: [0]}


def test_no_secret_in_the_log(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    """A whole flow (sign up, create, play, another device's seat, a new password, sign
    in, out, delete) logged at DEBUG: no password, session secret or seat token in it."""
    secrets: list[str] = [PW, "the new password"]
    with caplog.at_level(logging.DEBUG):
        s1 = sign_up(client, "Anna")
        g = post(client, "/api/games", s1, json={"players": seats("person", "bot", "bot")}).json()
        secrets += [s1, tokens(g)[0]]
        join_all(client, g)
        st = wait_for_person(client, g["id"], tokens(g))
        r = client.post(
            f"/api/games/{g['id']}/actions", json={"seat": 0, "token": tokens(g)[0], "version": st["version"], "action": st["legal"][0]}
        )
        assert r.status_code == 200, r.text
        r2 = sign_in(client, "Anna")
        s2 = r2.cookies[COOKIE]
        key = post(client, "/api/account/seat", s2, json={"game": g["id"], "seat": 0}).json()["token"]
        secrets += [s2, key]
        assert state(client, g["id"], 0, key)["seat"] == 0
        r3 = post(client, "/api/account/password", s2, json={"current": PW, "new": "the new password"})
        secrets.append(r3.cookies[COOKIE])
        sign_in(client, "Anna", PW)  # the old one: refused
        s4 = sign_in(client, "Anna", "the new password").cookies[COOKIE]
        secrets.append(s4)
        get(client, "/api/account/data", s4)
        post(client, "/api/account/signout", s4, json={})
        s5 = sign_in(client, "Anna", "the new password").cookies[COOKIE]
        secrets.append(s5)
        assert post(client, "/api/account/delete", s5, json={"password": "the new password"}).status_code == 200
    server_lines = [r for r in caplog.records if not r.name.startswith(("httpx", "httpcore"))]  # the test's own client aside
    assert any(r.name == "kardinal.access" for r in server_lines)
    text = "\n".join(f"{r.name} {r.getMessage()} {r.__dict__}" for r in server_lines)
    for s in secrets:
        assert s not in text


# -- seats, My games, another device ----------------------------------------------------------


def test_seats_taken_signed_in_belong_to_the_account(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    one = post(client, "/api/games", anna, json={"players": seats("person", "bot", "bot")}).json()  # one person seat: hers
    two = post(client, "/api/games", anna, json={"players": seats("person", "person", "bot")}).json()  # the first seat: hers
    hot = post(client, "/api/games", anna, json={"players": seats("person", "person", "bot"), "hotseat": True}).json()
    assert my_games(client, anna) == {one["id"]: [0], two["id"]: [0], hot["id"]: [0, 1]}
    # joining by link, signed in
    r = post(client, f"/api/games/{two['id']}/join", anna, json={"seat": 1, "token": tokens(two)[1]})
    assert r.status_code == 200
    # claiming an open seat, signed in
    guest = create(client, "person", "open", "bot")
    r = post(client, f"/api/games/{guest['id']}/claim", anna, json={"seat": 1, "name": "Anna"})
    assert r.status_code == 200
    # opening a seat on the game's WebSocket, signed in
    other = create(client, "person", "person", "bot")
    client.cookies.set(COOKIE, anna)
    with client.websocket_connect(f"/ws/{other['id']}") as ws:
        ws.send_json({"type": "hello", "seats": {"0": tokens(other)[0]}})
        assert ws.receive_json()["type"] == "welcome"
    client.cookies.clear()
    # ... but not from another site's page
    third = create(client, "person", "person", "bot")
    client.cookies.set(COOKIE, anna)
    with client.websocket_connect(f"/ws/{third['id']}", headers={"origin": "https://evil.example"}) as ws:
        ws.send_json({"type": "hello", "seats": {"0": tokens(third)[0]}})
        assert ws.receive_json()["type"] == "welcome"
    client.cookies.clear()
    assert my_games(client, anna) == {one["id"]: [0], hot["id"]: [0, 1], two["id"]: [0, 1], guest["id"]: [1], other["id"]: [0]}
    # a guest's links work as ever, and a guest owns nothing
    assert state(client, two["id"], 0, tokens(two)[0])["seat"] == 0


def test_a_guest_keeps_the_seats_the_browser_holds(client: TestClient) -> None:
    a = create(client, "person", "bot", "bot")
    b = create(client, "person", "person", "bot")
    held = {a["id"]: {"0": tokens(a)[0]}, b["id"]: {"0": tokens(b)[0], "1": "wrong-token"}, "nosuchgame": {"0": "abc"}}
    r = post(client, "/api/account/signup", json={"name": "Anna", "password": PW, "held": held})
    assert r.status_code == 200 and r.json()["brought"] == 2
    anna = r.cookies[COOKIE]
    assert my_games(client, anna) == {a["id"]: [0], b["id"]: [0]}
    c = create(client, "person", "bot", "bot")
    r = sign_in(client, "Anna", held={c["id"]: {"0": tokens(c)[0]}})
    assert r.json()["brought"] == 1
    assert set(my_games(client, r.cookies[COOKIE])) == {a["id"], b["id"], c["id"]}
    assert my_games(client, anna)[b["id"]] == [0]  # the seat whose token was wrong is not hers


def test_another_device_gets_a_working_seat(client: TestClient) -> None:
    laptop = sign_up(client, "Anna")
    g = post(client, "/api/games", laptop, json={"players": seats("person", "bot", "bot")}).json()
    phone = sign_in(client, "Anna").cookies[COOKIE]
    assert my_games(client, phone) == {g["id"]: [0]}
    r = post(client, "/api/account/seat", phone, json={"game": g["id"], "seat": 0})
    assert r.status_code == 200 and r.headers["cache-control"] == "no-store"
    key = r.json()["token"]
    assert key != tokens(g)[0]
    join_all(client, g)
    st = wait_for_person(client, g["id"], {0: key})
    assert "legal" in st
    r = client.post(f"/api/games/{g['id']}/actions", json={"seat": 0, "token": key, "version": st["version"], "action": st["legal"][0]})
    assert r.status_code == 200, r.text
    assert state(client, g["id"], 0, tokens(g)[0])["seat"] == 0  # the first device's token still works
    # a new password ends the devices' tokens (a stolen session's too), not the seat's own
    assert post(client, "/api/account/password", laptop, json={"current": PW, "new": "another password"}).status_code == 200
    assert client.get(f"/api/games/{g['id']}/state", params={"seat": 0, "token": key}).status_code == 403
    assert state(client, g["id"], 0, tokens(g)[0])["seat"] == 0
    assert who(client, phone) is None and who(client, laptop) is None  # every session ended


def test_a_new_password_ends_every_session(client: TestClient) -> None:
    one = sign_up(client, "Anna")
    two = sign_in(client, "Anna").cookies[COOKIE]
    # a wrong current password is told as such, whatever its length: the length rule is a new password's
    r = post(client, "/api/account/password", one, json={"current": "not it at all!!", "new": "another password"})
    assert r.status_code == 403 and r.json()["error"] == {
        "code": "wrong_password",
        "message": "that is not the account's password",
        "params": {},
    }
    r = post(client, "/api/account/delete", one, json={"password": "short"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "wrong_password"
    r = post(client, "/api/account/password", one, json={"current": PW, "new": "short"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_password" and r.json()["error"]["params"] == {"min": 8, "max": 256}
    assert who(client, two)["name"] == "Anna"  # nothing changed yet
    r = post(client, "/api/account/password", one, json={"current": PW, "new": "another password"})
    assert r.status_code == 200
    three = r.cookies[COOKIE]
    assert who(client, one) is None and who(client, two) is None and who(client, three)["name"] == "Anna"
    assert sign_in(client, "Anna").json()["error"]["code"] == "bad_sign_in"
    assert sign_in(client, "Anna", "another password").status_code == 200


def test_deleting_an_account_keeps_its_games_under_deleted_player(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    g = post(
        client,
        "/api/games",
        anna,
        json={"players": [{"name": "Anna", "kind": "person"}, {"name": "B", "kind": "bot"}, {"name": "C", "kind": "bot"}]},
    ).json()
    other = sign_in(client, "Anna").cookies[COOKIE]
    r = post(client, "/api/account/delete", anna, json={"password": "wrong password"})
    assert r.status_code == 403 and who(client, anna)["name"] == "Anna"
    r = post(client, "/api/account/delete", anna, json={"password": PW})
    assert r.status_code == 200
    assert who(client, anna) is None and who(client, other) is None
    assert sign_in(client, "Anna").json()["error"]["code"] == "bad_sign_in"
    info = client.get(f"/api/games/{g['id']}").json()
    assert info["players"][0]["name"] == "deleted player"
    assert state(client, g["id"], 0, tokens(g)[0])["seat"] == 0  # the seat's link still plays
    again = sign_up(client, "Anna")  # the name is free again; a new account owns nothing
    assert my_games(client, again) == {}


def test_the_accounts_data_as_json(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    g = post(client, "/api/games", anna, json={"players": seats("person", "bot", "bot"), "spectator_chat": True}).json()
    client.cookies.clear()
    with client.websocket_connect(f"/ws/{g['id']}") as ws:
        ws.send_json({"type": "hello", "seats": {"0": tokens(g)[0]}})
        assert ws.receive_json()["type"] == "welcome"
        ws.send_json({"type": "chat", "text": "hello table"})
        for _ in range(10):
            if ws.receive_json().get("type") == "chat":
                break
    r = get(client, "/api/account/data", anna)
    assert r.status_code == 200 and "attachment" in r.headers["content-disposition"]
    data = r.json()
    assert data["format"] == "kardinal-account-data" and data["account"]["name"] == "Anna"
    assert [x["id"] for x in data["games"]] == [g["id"]] and data["games"][0]["seat"] == 0
    assert len(data["sessions"]) == 1
    assert any(line["text"] == "hello table" for line in data["chat"])
    text = r.text
    for secret in (anna, tokens(g)[0], PW, "argon2"):
        assert secret not in text


# the last commit before migration 8 (accounts)
BEFORE_M8 = "4a8e97c"


@pytest.mark.empty_database
def test_migration_8_on_a_database_made_by_the_previous_code(db_url: str, tmp_path: Path) -> None:
    """Games stored before accounts belong to no account; their links play on, and a guest
    who signs up brings their seats along."""
    from test_web_postgres import run_earlier_code

    made = run_earlier_code(
        BEFORE_M8,
        tmp_path,
        f"""
        import json
        from fastapi.testclient import TestClient
        from kardinal.server.app import create_app  # where the app was in that commit
        with TestClient(create_app(db_url={db_url!r}, bot_pause=0.0)) as c:
            g = c.post("/api/games", json={{"players": [{{"kind": "person"}}, {{"kind": "bot"}}, {{"kind": "bot"}}]}}).json()
            print(json.dumps(g))
        """,
        db_url,
    )
    with make_client(tmp_path, db_url=db_url) as c:
        assert c.app.state.service.storage.schema_version() == len(MIGRATIONS) == 17  # type: ignore[attr-defined]
        held = {made["id"]: {"0": tokens(made)[0]}}
        r = post(c, "/api/account/signup", json={"name": "Anna", "password": PW, "held": held})
        assert r.status_code == 200 and r.json()["brought"] == 1
        assert my_games(c, r.cookies[COOKIE]) == {made["id"]: [0]}
        tok = r.json()["tokens"][made["id"]]["0"]  # the seat is the account's: a new token
        assert c.post(f"/api/games/{made['id']}/join", json={"seat": 0, "token": tok}).status_code == 200
        assert "legal" in wait_for_person(c, made["id"], {0: tok})


def test_play_again_keeps_the_seats_with_their_accounts(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    g = post(client, "/api/games", anna, json={"players": seats("person", "bot", "bot")}).json()
    join_all(client, g)
    st = wait_for_person(client, g["id"], tokens(g))
    while st["status"] != "finished":
        r = client.post(
            f"/api/games/{g['id']}/actions", json={"seat": 0, "token": tokens(g)[0], "version": st["version"], "action": st["legal"][0]}
        )
        assert r.status_code == 200, r.text
        st = wait_for_person(client, g["id"], tokens(g))
    r = post(client, f"/api/games/{g['id']}/again", json={"seats": {"0": tokens(g)[0]}})
    assert r.status_code == 200, r.text
    new = r.json()
    assert my_games(client, anna) == {g["id"]: [0], new["id"]: [new["seats"]["0"]]}


def test_a_claimed_open_seat_is_the_claimants_alone(client: TestClient) -> None:
    """Taking over a lobby seat: its creator, signed in, keeps no hold on an open seat (not
    at creation, not by bringing its token, not by a device's token), and once a stranger
    claims it, it is the stranger's alone (My games, a device's token), even if an earlier
    version had given it to the creator's account with a device's token."""
    mallory = sign_up(client, "Mallory")
    victim = sign_up(client, "Victim")
    g = post(client, "/api/games", mallory, json={"players": seats("open", "bot", "bot")}).json()
    gid, tok = g["id"], tokens(g)[0]
    assert my_games(client, mallory) == {}  # the only person seat, but open: not hers
    assert sign_in(client, "Mallory", held={gid: {"0": tok}}).json()["brought"] == 0
    r = post(client, "/api/account/seat", mallory, json={"game": gid, "seat": 0})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_seat"
    # as an earlier version left it: the seat Mallory's, with a device's token of hers
    acc = accounts_of(client)
    mallory_id = who(client, mallory)["id"]
    client.portal.call(asyncio.to_thread, acc.storage.attach_seats, mallory_id, [(gid, 0)], 0.0)  # type: ignore[attr-defined]
    key = "an earlier device's token of the seat"
    live = client.portal.call(acc.service.fetch, gid)  # type: ignore[attr-defined]
    client.portal.call(acc.service._set_seat, live, 0, replace(live.row.seats[0], keys=[hash_token(key)]))  # type: ignore[attr-defined]
    assert client.get(f"/api/games/{gid}/state", params={"seat": 0, "token": key}).status_code == 200
    # the victim claims it, signed in
    r = post(client, f"/api/games/{gid}/claim", victim, json={"seat": 0, "name": "Vic"})
    assert r.status_code == 200, r.text
    claimed = r.json()["token"]
    r = post(client, "/api/account/seat", mallory, json={"game": gid, "seat": 0})
    assert r.status_code == 403 and r.json()["error"]["code"] == "not_your_seat"
    assert client.get(f"/api/games/{gid}/state", params={"seat": 0, "token": key}).status_code == 403
    assert client.get(f"/api/games/{gid}/state", params={"seat": 0, "token": tok}).status_code == 403
    assert my_games(client, mallory) == {}
    assert my_games(client, victim) == {gid: [0]}
    r = post(client, "/api/account/seat", victim, json={"game": gid, "seat": 0})
    assert r.status_code == 200, r.text
    assert state(client, gid, 0, r.json()["token"])["seat"] == 0
    assert state(client, gid, 0, claimed)["seat"] == 0
    assert [x["id"] for x in get(client, "/api/account/data", mallory).json()["games"]] == []


def test_a_lobby_seat_with_its_creator_seated_elsewhere(client: TestClient) -> None:
    """The reviewer's first scenario: the creator's own seat and an open one; bringing the
    open seat's token gives nothing, and after a stranger's claim the creator's token of it
    opens nothing."""
    mallory = sign_up(client, "Mallory")
    g = post(client, "/api/games", mallory, json={"players": seats("person", "open", "bot")}).json()
    gid, toks = g["id"], tokens(g)
    assert sign_in(client, "Mallory", held={gid: {"1": toks[1]}}).json()["brought"] == 0
    assert post(client, "/api/account/seat", mallory, json={"game": gid, "seat": 1}).status_code == 403
    assert post(client, f"/api/games/{gid}/claim", json={"seat": 1, "name": "Victim"}).status_code == 200
    assert client.get(f"/api/games/{gid}/state", params={"seat": 1, "token": toks[1]}).status_code == 403
    assert post(client, "/api/account/seat", mallory, json={"game": gid, "seat": 1}).status_code == 403


def test_guessing_one_name_with_many_tries_at_once_keeps_to_the_budget(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Tries at once (each from another address) verify no more passwords than the name's
    budget (5 a minute): each takes its unit before its verify; the right password waits
    too, and a success gives its unit back."""
    sign_up(client, "Anna")
    sign_up(client, "Bert")
    acc = accounts_of(client)
    verified: list[str] = []

    class Counting(PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> bool:
            verified.append(str(password))
            return super().verify(hash, password)

    monkeypatch.setattr(passwords, "HASHER", Counting(time_cost=1, memory_cost=1024, parallelism=1))

    async def tries(name: str, pws: list[str]) -> list[str]:
        async def one(i: int, pw: str) -> str:
            try:
                await acc.sign_in(name, pw, f"10.9.{i // 250}.{i % 250}")
            except Refused as e:
                return e.code
            return "ok"

        return list(await asyncio.gather(*(one(i, pw) for i, pw in enumerate(pws))))

    got = client.portal.call(tries, "Anna", [f"guess{i:03d}" for i in range(40)] + [PW])  # type: ignore[attr-defined]
    assert len(verified) == 5 and got.count("bad_sign_in") == 5 and got.count("rate_limited") == 36
    assert got[-1] == "rate_limited"
    # successes at once: each gives its unit back (a person signing in on a few devices)
    verified.clear()
    got = client.portal.call(tries, "Bert", [PW] * 4)  # type: ignore[attr-defined]
    assert got == ["ok"] * 4 and len(verified) == 4
    assert client.portal.call(tries, "Bert", [PW] * 4) == ["ok"] * 4  # type: ignore[attr-defined]


def test_sign_ins_waiting_for_a_hash_do_not_hold_up_the_database(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Many sign-ins at once wait for the two hashing threads of their own: a request that
    reads the database (the lobby) is answered while they wait (before, each waited in a
    thread of the pool the database's calls use, and the lobby waited behind them); more
    than MAX_WAITING at once are refused ``busy`` (503)."""
    acc = accounts_of(client)
    gate = threading.Event()
    entered: list[str] = []
    order: list[str] = []

    class Held(PasswordHasher):
        def verify(self, hash: str | bytes, password: str | bytes) -> bool:
            entered.append(str(password))
            gate.wait(60)
            return super().verify(hash, password)

    monkeypatch.setattr(passwords, "HASHER", Held(time_cost=1, memory_cost=1024, parallelism=1))
    n = passwords.MAX_WAITING + 8

    async def one(i: int) -> str:
        try:
            await acc.sign_in(f"Nobody{i}", "a guess at it", f"10.8.0.{i}")
        except Refused as e:
            return e.code
        return "ok"

    async def many() -> list[str]:
        return list(await asyncio.gather(*(one(i) for i in range(n))))

    signins = client.portal.start_task_soon(many)  # type: ignore[attr-defined]
    while len(entered) < 2 or passwords._waiting < passwords.MAX_WAITING:  # every hashing thread held, the rest waiting
        time.sleep(0.01)
    busy = sign_in(client, "Nobody", "a guess at it")
    assert busy.status_code == 503 and busy.json()["error"]["code"] == "busy"

    def lobby() -> None:
        r = client.get("/api/games")
        order.append(f"lobby {r.status_code}")

    t = threading.Thread(target=lobby)
    t.start()
    t.join(20)  # before: the lobby waits for the gate, opened after this at the latest
    order.append("hashes let go")
    gate.set()
    t.join()
    got = signins.result(60)
    assert order == ["lobby 200", "hashes let go"]
    assert got.count("bad_sign_in") == passwords.MAX_WAITING and got.count("busy") == n - passwords.MAX_WAITING
    assert len(entered) == passwords.MAX_WAITING
