"""Accounts' further defences (the security review's low findings), on SQLite and
PostgreSQL: a name cannot be locked out for its owner's browsers by failing on purpose
(device marks), seat tokens brought along at sign-in keep to the address's bad-token
budget, a new password ends every device's seat token however many seats and however
timed, "sign out everywhere", and the ``__Host-`` cookie prefix over HTTPS."""

from __future__ import annotations

import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from limits import parse_many
from web_helpers import LENIENT, join_all, make_client, seats, state, tokens, wait_for_person

from kardinal.server.common.guard import Guard
from kardinal.server.community.account_routes import COOKIE, DEVICE_COOKIE
from kardinal.server.community.accounts import Accounts, device_mark, device_nonce
from kardinal.server.storage import Storage

PW = "correct horse battery"
SAME_SITE = {"origin": "http://testserver"}


pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


@pytest.fixture
def client(tmp_path: Path, db_url: str) -> Iterator[TestClient]:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def post(c: TestClient, path: str, cookies: dict[str, str] | None = None, **kw: Any) -> Any:
    """A POST as a page of this server sends it, with exactly these cookies."""
    c.cookies.clear()
    for k, v in (cookies or {}).items():
        c.cookies.set(k, v)
    try:
        return c.post(path, headers={**SAME_SITE, **kw.pop("headers", {})}, **kw)
    finally:
        c.cookies.clear()


def who(c: TestClient, secret: str) -> Any:
    c.cookies.clear()
    c.cookies.set(COOKIE, secret)
    try:
        return c.get("/api/account").json()["account"]
    finally:
        c.cookies.clear()


def sign_in(c: TestClient, name: str, password: str = PW, device: str | None = None) -> Any:
    return post(c, "/api/account/signin", {DEVICE_COOKIE: device} if device else None, json={"name": name, "password": password})


def accounts_of(c: TestClient) -> Accounts:
    acc: Accounts = c.app.state.accounts  # type: ignore[attr-defined]
    return acc


# -- a name locked out by failing on purpose -------------------------------------------------


def test_failing_on_purpose_does_not_lock_out_the_owners_browser(tmp_path: Path, db_url: str) -> None:
    # the database's counts (PostgreSQL) are in fixed windows of the guard's clock: one that
    # stands still keeps the test within one minute's window (a run that crossed a minute's
    # end had its budget back, and a forged mark then signed in)
    still = time.time()
    guard = Guard({**LENIENT, "signin_name": parse_many("3/minute"), "signin_device": parse_many("3/minute")}, clock=lambda: still)
    with make_client(tmp_path, db_url=db_url, guard=guard) as c:
        r = post(c, "/api/account/signup", json={"name": "Anna", "password": PW})
        assert r.status_code == 200
        mark = r.cookies[DEVICE_COOKIE]  # the owner's browser got a device mark
        assert "HttpOnly" in r.headers["set-cookie"] and mark.count(".") == 2
        for _ in range(3):  # someone else fails with the name on purpose
            assert sign_in(c, "Anna", "wrong guess").json()["error"]["code"] == "bad_sign_in"
        r = sign_in(c, "Anna")  # a browser without the mark: the name's budget is used up
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
        r = sign_in(c, "Anna", device=mark)  # the owner's browser signs in all the same
        assert r.status_code == 200 and who(c, r.cookies[COOKIE])["name"] == "Anna"
        # a mark forged, tampered with, or of another account counts as none
        post(c, "/api/account/signup", json={"name": "Bert", "password": PW})
        aid, nonce, mac = mark.split(".")
        for fake in (f"{aid}.{nonce}.{'0' * 32}", f"{aid}.other.{mac}", f"{int(aid) + 1}.{nonce}.{mac}", "x" * 500):
            r = sign_in(c, "Anna", device=fake)
            assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", fake
        # the browser's own failures are limited too (its own budget)
        for _ in range(3):
            assert sign_in(c, "Anna", "wrong guess", device=mark).json()["error"]["code"] == "bad_sign_in"
        assert sign_in(c, "Anna", device=mark).json()["error"]["code"] == "rate_limited"


def test_a_device_mark_ends_with_the_password(client: TestClient) -> None:
    r = post(client, "/api/account/signup", json={"name": "Anna", "password": PW})
    mark, secret = r.cookies[DEVICE_COOKIE], r.cookies[COOKIE]
    found = accounts_of(client).storage.account_login("anna")
    assert found is not None
    account, stored = found
    assert device_nonce(mark, account.id, stored) is not None
    assert device_nonce(device_mark(account.id, stored), account.id + 1, stored) is None
    r = post(client, "/api/account/password", {COOKIE: secret}, json={"current": PW, "new": "another password"})
    assert r.status_code == 200 and r.cookies[DEVICE_COOKIE] != mark  # this browser gets a new one
    found = accounts_of(client).storage.account_login("anna")
    assert found is not None and device_nonce(mark, account.id, found[1]) is None
    assert device_nonce(r.cookies[DEVICE_COOKIE], account.id, found[1]) is not None


# -- seat tokens brought along at sign-in -----------------------------------------------------


def test_tokens_brought_along_keep_to_the_bad_token_budget(tmp_path: Path, db_url: str) -> None:
    guard = Guard({**LENIENT, "bad_token": parse_many("2/minute")})
    with make_client(tmp_path, db_url=db_url, guard=guard) as c:
        games = [c.post("/api/games", json={"players": seats("person", "bot", "bot")}).json() for _ in range(4)]
        wrong = {g["id"]: {"0": "A" * 24} for g in games[:3]}
        right = {games[3]["id"]: {"0": tokens(games[3])[0]}}
        r = post(c, "/api/account/signup", json={"name": "Anna", "password": PW, "held": {**wrong, **right}})
        # two wrong tokens use up the address's budget: the rest are not checked
        assert r.status_code == 200 and r.json()["brought"] == 0
        assert accounts_of(c).storage.seat_owner(games[3]["id"], 0) is None
        # the same right token from another address is brought along
        acc = accounts_of(c)
        signed = c.portal.call(acc.sign_in, "Anna", PW, "10.9.9.9")  # type: ignore[attr-defined]
        assert c.portal.call(acc.bring, signed.account, right, "10.9.9.9")[0] == 1  # type: ignore[attr-defined]


# -- seat tokens of devices after a new password ------------------------------------------------


def test_a_new_password_ends_the_devices_tokens_of_every_seat(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = post(client, "/api/account/signup", json={"name": "Anna", "password": PW}).cookies[COOKIE]
    games = [post(client, "/api/games", {COOKIE: secret}, json={"players": seats("person", "bot", "bot")}).json() for _ in range(3)]
    keys = {}
    for g in games:
        r = post(client, "/api/account/seat", {COOKIE: secret}, json={"game": g["id"], "seat": 0})
        assert r.status_code == 200
        keys[g["id"]] = r.json()["token"]
        join_all(client, g)
        wait_for_person(client, g["id"], {0: keys[g["id"]]})  # the device's token works
    # "My games" lists at most a number of seats; the tokens of all of them end
    monkeypatch.setattr(Storage.owned_seats, "__defaults__", (1,))
    r = post(client, "/api/account/password", {COOKIE: secret}, json={"current": PW, "new": "another password"})
    assert r.status_code == 200
    for g in games:
        assert client.get(f"/api/games/{g['id']}/state", params={"seat": 0, "token": keys[g["id"]]}).status_code == 403
        assert state(client, g["id"], 0, tokens(g)[0])["seat"] == 0  # the seat's own link still works


def test_a_token_made_while_the_password_changes_ends_with_it(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    secret = post(client, "/api/account/signup", json={"name": "Anna", "password": PW}).cookies[COOKIE]
    g = post(client, "/api/games", {COOKIE: secret}, json={"players": seats("person", "bot", "bot")}).json()
    join_all(client, g)
    service = client.app.state.service  # type: ignore[attr-defined]
    storage: Storage = service.storage
    made: list[str] = []
    real = service.seat_key

    async def racing(game_id: str, seat: int) -> str:
        token = await real(game_id, seat)
        made.append(token)
        # meanwhile another browser of the account sets a new password (its keys dropped before this one was made)
        found = storage.account_login("anna")
        assert found is not None
        storage.set_password(found[0].id, found[1], found[0].password_changed + 1.0)
        return token

    monkeypatch.setattr(service, "seat_key", racing)
    r = post(client, "/api/account/seat", {COOKIE: secret}, json={"game": g["id"], "seat": 0})
    assert r.status_code == 401 and r.json()["error"]["code"] == "signed_out"
    assert made and client.get(f"/api/games/{g['id']}/state", params={"seat": 0, "token": made[0]}).status_code == 403


# -- sign out everywhere -------------------------------------------------------------------


def test_sign_out_everywhere_ends_every_session_and_device_token(client: TestClient) -> None:
    laptop = post(client, "/api/account/signup", json={"name": "Anna", "password": PW}).cookies[COOKIE]
    phone = sign_in(client, "Anna").cookies[COOKIE]
    g = post(client, "/api/games", {COOKIE: laptop}, json={"players": seats("person", "bot", "bot")}).json()
    key = post(client, "/api/account/seat", {COOKIE: phone}, json={"game": g["id"], "seat": 0}).json()["token"]
    join_all(client, g)
    assert state(client, g["id"], 0, key)["seat"] == 0
    assert post(client, "/api/account/signout", {COOKIE: laptop}, json={}).status_code == 200  # this browser only
    assert who(client, laptop) is None and who(client, phone)["name"] == "Anna"
    laptop = sign_in(client, "Anna").cookies[COOKIE]
    r = post(client, "/api/account/signout", {COOKIE: laptop}, json={"everywhere": True})
    assert r.status_code == 200
    assert who(client, laptop) is None and who(client, phone) is None
    assert client.get(f"/api/games/{g['id']}/state", params={"seat": 0, "token": key}).status_code == 403
    assert state(client, g["id"], 0, tokens(g)[0])["seat"] == 0
    # forged from another site: refused, nothing ends
    other = sign_in(client, "Anna").cookies[COOKIE]
    r = post(client, "/api/account/signout", {COOKIE: other}, json={"everywhere": True}, headers={"origin": "https://evil.example"})
    assert r.status_code == 403 and who(client, other)["name"] == "Anna"


# -- the __Host- prefix ----------------------------------------------------------------------


def test_over_https_the_cookies_take_the_host_prefix(tmp_path: Path) -> None:
    app = make_client(tmp_path).app
    with TestClient(app, base_url="https://kardinal.example") as c:
        r = c.post("/api/account/signup", json={"name": "Anna", "password": PW}, headers={"origin": "https://kardinal.example"})
        assert r.status_code == 200, r.text
        cookies = r.headers.get_list("set-cookie")
        assert len(cookies) == 2 and all(
            h.startswith("__Host-") and "Secure" in h and "Path=/;" in h + ";" and "Domain" not in h for h in cookies
        )
        secret = r.cookies["__Host-" + COOKIE]
        c.cookies.clear()
        c.cookies.set("__Host-" + COOKIE, secret)
        assert c.get("/api/account").json()["account"]["name"] == "Anna"
        # a cookie without the prefix (set by a sibling domain, say) is not read over HTTPS
        c.cookies.clear()
        c.cookies.set(COOKIE, secret)
        assert c.get("/api/account").json()["account"] is None
    # under a path (behind a proxy at /kardinal) the prefix cannot hold (it needs Path=/): none
    with TestClient(app, base_url="https://kardinal.example", root_path="/kardinal") as c:
        r = c.post("/kardinal/api/account/signin", json={"name": "Anna", "password": PW}, headers={"origin": "https://kardinal.example"})
        assert r.status_code == 200, r.text
        assert all(h.startswith(("kardinal_session=", "kardinal_device=")) for h in r.headers.get_list("set-cookie"))


def test_refusal_codes_are_the_same_with_and_without_a_mark(client: TestClient) -> None:
    """No enumeration through the mark: a wrong password with a valid mark and a name
    without an account get the same refusal."""
    mark = post(client, "/api/account/signup", json={"name": "Anna", "password": PW}).cookies[DEVICE_COOKIE]
    a = sign_in(client, "Anna", "wrong guess", device=mark).json()
    b = sign_in(client, "Nobody", "wrong guess", device=mark).json()
    assert a == b and a["error"]["code"] == "bad_sign_in"
