"""Accounts under attack (the security issue "a rated community an attacker cannot bend"):
a suspended account gets no session by any way, and a session it had opens nothing; a
browser with the account's device mark re-enters its password after a lock-out from
elsewhere; two new passwords from the same one at once: one wins; a game not listed in the
lobby does not tell which account sits in which seat; names are public, and say so."""

from __future__ import annotations

import random
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from limits import parse_many
from sqlalchemy import update
from test_web_mail import Smtp, add_address, link, smtp  # noqa: F401 - smtp: the fixture
from web_helpers import LENIENT, join_all, make_client, play_out, seats, tokens

from kardinal.server.common.guard import Guard
from kardinal.server.common.refusal import Refused
from kardinal.server.community import accounts as accounts_module
from kardinal.server.community.account_routes import COOKIE, DEVICE_COOKIE
from kardinal.server.community.accounts import Accounts
from kardinal.server.community.admin import Admin
from kardinal.server.storage import Storage
from kardinal.server.storage.schema import accounts

PW = "correct horse battery"
PW2 = "another good password"
SAME_SITE = {"origin": "http://testserver"}
ROOT = Path(__file__).resolve().parent.parent

pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as c:
        yield c


def call(c: TestClient, method: str, path: str, cookies: dict[str, str] | None = None, **kw: Any) -> Any:
    """A request as a page of this server sends it, with exactly these cookies."""
    c.cookies.clear()
    for k, v in (cookies or {}).items():
        c.cookies.set(k, v)
    try:
        return c.request(method, path, headers={**SAME_SITE, **kw.pop("headers", {})}, **kw)
    finally:
        c.cookies.clear()


def sign_up(c: TestClient, name: str) -> dict[str, str]:
    """A new account's cookies: its session and its device mark."""
    r = call(c, "POST", "/api/account/signup", json={"name": name, "password": PW})
    assert r.status_code == 200, r.text
    return {COOKIE: r.cookies[COOKIE], DEVICE_COOKIE: r.cookies[DEVICE_COOKIE]}


def accounts_of(c: TestClient) -> Accounts:
    acc: Accounts = c.app.state.accounts  # type: ignore[attr-defined]
    return acc


def storage_of(c: TestClient) -> Storage:
    return accounts_of(c).storage


def who(c: TestClient, cookies: dict[str, str]) -> Any:
    return call(c, "GET", "/api/account", {COOKIE: cookies[COOKIE]}).json()["account"]


def refused(c: TestClient, cookies: dict[str, str]) -> Any:
    """What asking who the session is signed in to is refused (its code)."""
    return call(c, "GET", "/api/account", {COOKIE: cookies[COOKIE]}).json()["error"]["code"]


def signs_in(c: TestClient, name: str, password: str) -> int:
    return int(call(c, "POST", "/api/account/signin", json={"name": name, "password": password}).status_code)


def rated_game(c: TestClient, cookies: dict[str, str] | None, public: bool = True) -> Any:
    return call(c, "POST", "/api/games", cookies, json={"players": seats("person", "bot", "bot"), "rated": True, "public": public})


# -- a suspended account: no session by any way -------------------------------------------------


def test_a_suspended_account_gets_no_session_through_forgot_the_password(tmp_path: Path, smtp: Smtp) -> None:  # noqa: F811
    with make_client(tmp_path) as c:
        s = sign_up(c, "Sly")
        add_address(c, s[COOKIE], smtp, "sly@example.org")
        Admin(storage_of(c), "operator").suspend("Sly", 3)
        assert refused(c, s) == "suspended"  # its sessions open nothing
        assert call(c, "POST", "/api/mail/forgot", json={"who": "Sly"}).status_code == 200
        token = link(smtp.inbox.wait("sly@example.org", 2)[-1], "reset")
        r = call(c, "POST", "/api/mail/reset", json={"token": token, "password": PW2})
        assert r.status_code == 403 and r.json()["error"]["code"] == "suspended", r.text
        assert COOKIE not in r.cookies  # no session, so no rated game either
        assert rated_game(c, dict(r.cookies)).json()["error"]["code"] == "rated_needs_account"
        # nothing changed: the password is the one before (once the suspension is lifted)
        Admin(storage_of(c), "operator").unsuspend("Sly")
        assert signs_in(c, "Sly", PW2) == 403 and signs_in(c, "Sly", PW) == 200


def test_a_suspended_account_gets_no_session_by_any_way(client: TestClient) -> None:
    s = sign_up(client, "Sly")
    account = who(client, s)
    acc = accounts_of(client)
    Admin(storage_of(client), "operator").suspend("Sly", 3)
    # signing in: refused as suspended with the right password only
    r = call(client, "POST", "/api/account/signin", json={"name": "Sly", "password": PW})
    assert r.status_code == 403 and r.json()["error"]["code"] == "suspended" and COOKIE not in r.cookies
    r = call(client, "POST", "/api/account/signin", s, json={"name": "Sly", "password": "wrong guess"})  # even with its device mark
    assert r.json()["error"]["code"] == "bad_sign_in"
    # a new password by any way (a mailed link's): refused, nothing changed
    row = storage_of(client).account_row(account["id"])
    assert row is not None
    with pytest.raises(Refused) as no:
        client.portal.call(acc.set_new_password, row, PW2)  # type: ignore[attr-defined]
    assert no.value.code == "suspended"
    Admin(storage_of(client), "operator").unsuspend("Sly")
    assert signs_in(client, "Sly", PW) == 200


def test_a_session_of_a_suspended_account_opens_nothing(client: TestClient) -> None:
    s = sign_up(client, "Sly")
    g = call(client, "POST", "/api/games", s, json={"players": seats("person", "bot", "bot")}).json()
    join_all(client, g)
    # the account is suspended (or while a session of it is made): the session stays in the
    # database, and opens nothing
    with storage_of(client).engine.begin() as conn:
        conn.execute(update(accounts).where(accounts.c.name == "Sly").values(suspended_until=2e9))
    assert refused(client, s) == "suspended"
    for method, path, body in (
        ("POST", "/api/account/seat", {"game": g["id"], "seat": 0}),  # a seat's token for a device
        ("POST", "/api/account/password", {"current": PW, "new": PW2}),
        ("GET", "/api/account/games", None),
        ("POST", "/api/find-table", {}),
    ):
        r = call(client, method, path, s, json=body)
        assert r.status_code == 401 and r.json()["error"]["code"] == "signed_out", (path, r.text)
    assert rated_game(client, s).json()["error"]["code"] == "rated_needs_account"


def test_every_way_to_a_session_asks_the_one_rule(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Sign-up, sign-in, a new password and every request's session all ask
    accounts.session_refused: made to refuse everyone, no way gives a session."""
    s = sign_up(client, "Anna")
    monkeypatch.setattr(
        accounts_module, "session_refused", lambda until, now, why="", contact="": Refused("suspended", "no session for anyone", 403)
    )
    assert refused(client, s) == "suspended"
    for path, body in (
        ("/api/account/signup", {"name": "Bert", "password": PW}),
        ("/api/account/signin", {"name": "Anna", "password": PW}),
    ):
        r = call(client, "POST", path, json=body)
        assert r.status_code == 403 and r.json()["error"]["code"] == "suspended" and COOKIE not in r.cookies, path
    row = storage_of(client).account_named("Anna")
    assert row is not None
    with pytest.raises(Refused):
        client.portal.call(accounts_of(client).set_new_password, row, PW2)  # type: ignore[attr-defined]
    monkeypatch.undo()
    assert who(client, s)["name"] == "Anna" and signs_in(client, "Anna", PW) == 200


# -- the device mark in the password's re-checks ------------------------------------------------


def test_the_owners_browser_reenters_its_password_after_a_lockout_from_elsewhere(tmp_path: Path) -> None:
    guard = Guard({**LENIENT, "signin_name": parse_many("3/minute"), "signin_device": parse_many("3/minute")})
    with make_client(tmp_path, guard=guard) as c:
        mine = sign_up(c, "Anna")
        for _ in range(3):  # someone else fails with the name on purpose
            assert signs_in(c, "Anna", "wrong guess") == 403
        session_only = {COOKIE: mine[COOKIE]}
        # without the device mark the name's budget is used up; with it, as at sign-in, not
        for path, body in (("/api/account/email", {"email": "", "password": PW}), ("/api/account/password", {"current": PW, "new": PW2})):
            r = call(c, "POST", path, session_only, json=body)
            assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited", (path, r.text)
            r = call(c, "POST", path, mine, json=body)
            assert r.status_code == 200, (path, r.text)
        mine = {k: r.cookies[k] for k in (COOKIE, DEVICE_COOKIE)}  # the new password's session and mark
        # the browser's own failures are limited (its own budget), and deleting asks as they do
        for _ in range(3):
            r = call(c, "POST", "/api/account/delete", mine, json={"password": "wrong guess"})
            assert r.json()["error"]["code"] == "wrong_password"
        r = call(c, "POST", "/api/account/delete", mine, json={"password": PW2})
        assert r.status_code == 429


# -- two new passwords at once ----------------------------------------------------------------


def test_two_new_passwords_from_the_same_one_at_once_one_wins(tmp_path: Path, db_url: str, monkeypatch: pytest.MonkeyPatch) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        mine = sign_up(c, "Anna")
        storage = storage_of(c)
        both = threading.Barrier(2, timeout=60)
        real = storage.account_password

        def read_by_both(account_id: int) -> str | None:
            stored = real(account_id)
            both.wait()  # each request has read the password before either goes on
            return stored

        monkeypatch.setattr(storage, "account_password", read_by_both)

        def change(new: str) -> Any:
            cookie = f"{COOKIE}={mine[COOKIE]}"
            return c.post("/api/account/password", headers={**SAME_SITE, "cookie": cookie}, json={"current": PW, "new": new})

        c.cookies.clear()
        with ThreadPoolExecutor(2) as pool:
            answers = list(pool.map(change, ["first new password", "second new password"]))
        assert sorted(r.status_code for r in answers) == [200, 403], [r.text for r in answers]
        lost = next(r for r in answers if r.status_code == 403)
        assert lost.json()["error"]["code"] == "wrong_password" and COOKIE not in lost.cookies
        monkeypatch.undo()
        won = "first new password" if answers[0].status_code == 200 else "second new password"
        lose = ({"first new password", "second new password"} - {won}).pop()
        assert [signs_in(c, "Anna", p) for p in (won, lose, PW)] == [200, 403, 403]


# -- a game not listed in the lobby tells no account ------------------------------------------


def private_table(c: TestClient, public: bool) -> tuple[dict[str, Any], dict[str, str], dict[str, str]]:
    """A game of Anna (seat 0) and Bert (seat 1), both with accounts, and a bot."""
    anna, bert = sign_up(c, f"Anna{int(public)}"), sign_up(c, f"Bert{int(public)}")
    g = call(c, "POST", "/api/games", anna, json={"players": seats("person", "person", "bot"), "public": public}).json()
    for seat, who_ in ((0, anna), (1, bert)):
        r = call(c, "POST", f"/api/games/{g['id']}/join", who_, json={"seat": seat, "token": tokens(g)[seat]})
        assert r.status_code == 200, r.text
    return g, anna, bert


def test_a_game_not_listed_does_not_tell_who_sits_in_it(client: TestClient) -> None:
    for public in (True, False):
        g, anna, bert = private_table(client, public)
        gid, scope = g["id"], "account" if public else "game"
        # muting or blocking a seat: of a private game, as a guest's seat (this browser, this game)
        for kind in ("mute", "block"):
            r = call(client, "POST", f"/api/moderation/{kind}", anna, json={"game": gid, "seat": 1})
            assert r.status_code == 200 and r.json() == {"scope": scope}, r.text
        lists = call(client, "GET", "/api/moderation", anna).json()
        assert lists == ({"muted": [{"name": "Bert1"}], "blocked": [{"name": "Bert1"}]} if public else {"muted": [], "blocked": []})
        # a mute by name does not tell where the account sits in a private game
        assert call(client, "POST", "/api/moderation/mute", bert, json={"name": f"Anna{int(public)}"}).status_code == 200
        assert call(client, "GET", f"/api/moderation/silenced?game={gid}", bert).json()["seats"] == ([0] if public else [])
        # one's own seat is one's own
        r = call(client, "POST", "/api/moderation/mute", anna, json={"game": gid, "seat": 0})
        assert r.json()["error"]["code"] == "not_yourself"
        # profiles: a private game on its own player's alone
        for viewer, shown in ((anna, public), (bert, True)):
            last = call(client, "GET", f"/api/players/Bert{int(public)}", viewer).json()["last"]
            assert [x["game"] for x in last] == ([gid] if shown else [])


def test_a_private_rated_games_ratings_name_the_askers_seat_alone(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    r = rated_game(client, anna, public=False)
    assert r.status_code == 200, r.text
    g = r.json()
    assert call(client, "POST", f"/api/games/{g['id']}/join", anna, json={"seat": 0, "token": tokens(g)[0]}).status_code == 200
    assert play_out(client, g["id"], {0: tokens(g)[0]}, random.Random(5))["status"] == "finished"
    mine = settled(client, g["id"], anna)
    assert list(mine["seats"]) == ["0"] and mine["seats"]["0"]["name"] == "Anna"
    for viewer in (None, sign_up(client, "Bert")):
        out = settled(client, g["id"], viewer)
        assert out["rated"] is True and out["seats"] == {}


def settled(c: TestClient, gid: str, cookies: dict[str, str] | None) -> Any:
    """The game's rating changes once settled (its settlement is a task of the server), as
    tests/test_web_ratings.py waits for them."""
    end = time.monotonic() + 20
    while True:
        out = call(c, "GET", f"/api/games/{gid}/ratings", {COOKIE: cookies[COOKIE]} if cookies else None).json()
        if out["settled"]:
            return out
        assert time.monotonic() < end
        time.sleep(0.02)


# -- names are public ---------------------------------------------------------------------------


def test_names_are_public_and_the_privacy_section_says_so(client: TestClient) -> None:
    """A decision: an account's name is public (its profile says it exists, as its seats,
    the leaderboard and its followers do); looking names up by profile, follow, mute and
    invitation all answer ``no_player`` alike for a name without an account, and follow and
    invitations keep to budgets per account (guard.py)."""
    anna = sign_up(client, "Anna")
    assert client.get("/api/players/Nobody").json()["error"]["code"] == "no_player"
    assert call(client, "POST", "/api/account/follow", anna, json={"name": "Nobody", "follow": True}).json()["error"]["code"] == "no_player"
    assert call(client, "POST", "/api/moderation/mute", anna, json={"name": "Nobody"}).json()["error"]["code"] == "no_player"
    r = call(
        client, "POST", "/api/games", anna, json={"players": [{"name": "A", "kind": "person", "account": "Nobody"}, *seats("bot", "bot")]}
    )
    assert r.json()["error"]["code"] == "no_player"
    assert client.get("/api/players/anna").json()["name"] == "Anna"
    text = (ROOT / "docs" / "play" / "browser.md").read_text()
    privacy = text[text.index("## Fair play and privacy") :]
    assert "names are public" in privacy and "not listed in the lobby" in privacy
