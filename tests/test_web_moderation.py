"""Moderation (kardinal.server.community.moderation, moderation_routes, admin; migration 10), on
SQLite and PostgreSQL: muting and blocking a player, reporting a chat line with its
context, and the operator's ``kardinal admin`` acting on a report: suspending (no sign-in,
no chat), deleting (seats renamed by the running server), a new password, the audit log.

The attacks named: a report or a mute forged from another site, reporting without a seat
or an account, a wrong seat token, flooding reports, a suspended account signing in or
chatting, and a report's text or a new password in the log."""

from __future__ import annotations

import logging
import secrets
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from limits import parse_many
from sqlalchemy import update
from typer.testing import CliRunner
from web_helpers import LENIENT, change_settings, make_client, seats, tokens

from kardinal.cli import app as cli
from kardinal.server.common.guard import Guard
from kardinal.server.common.refusal import Refused
from kardinal.server.community.account_routes import COOKIE
from kardinal.server.community.admin import Admin, AdminError
from kardinal.server.community.moderation import Moderation
from kardinal.server.play.service import GameService
from kardinal.server.storage.schema import accounts

PW = "correct horse battery"
SAME_SITE = {"origin": "http://testserver"}


pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


@pytest.fixture
def client(tmp_path: Path, db_url: str) -> Iterator[TestClient]:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def call(c: TestClient, method: str, path: str, secret: str | None = None, **kw: Any) -> Any:
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret)
    try:
        return c.request(method, path, headers={**SAME_SITE, **kw.pop("headers", {})}, **kw)
    finally:
        c.cookies.clear()


def sign_up(c: TestClient, name: str) -> str:
    r = call(c, "POST", "/api/account/signup", json={"name": name, "password": PW})
    assert r.status_code == 200, r.text
    return str(r.cookies[COOKIE])


def service_of(c: TestClient) -> GameService:
    s: GameService = c.app.state.service  # type: ignore[attr-defined]
    return s


def moderation_of(c: TestClient) -> Moderation:
    m: Moderation = c.app.state.moderation  # type: ignore[attr-defined]
    return m


def say(c: TestClient, gid: str, seat: int, text: str) -> int:
    line = c.portal.call(service_of(c).say, gid, {seat: "checked-by-the-socket"}, text)  # type: ignore[attr-defined]
    return int(line.idx)


def table(c: TestClient) -> tuple[dict[str, Any], str, str]:
    """A game of Anna (seat 0, an account), Bert (seat 1, an account) and a guest (seat 2)."""
    anna, bert = sign_up(c, "Anna"), sign_up(c, "Bert")
    g = call(c, "POST", "/api/games", anna, json={"players": seats("person", "person", "person")}).json()
    assert call(c, "POST", f"/api/games/{g['id']}/join", anna, json={"seat": 0, "token": tokens(g)[0]}).status_code == 200
    assert call(c, "POST", f"/api/games/{g['id']}/join", bert, json={"seat": 1, "token": tokens(g)[1]}).status_code == 200
    # (seats 0 and 1 are the accounts' now, with new tokens: their links open them no more)
    assert call(c, "POST", f"/api/games/{g['id']}/join", json={"seat": 2, "token": tokens(g)[2]}).status_code == 200
    return g, anna, bert


def test_mute_by_seat_or_name_and_what_it_hides(client: TestClient) -> None:
    g, anna, bert = table(client)
    gid = g["id"]
    r = call(client, "POST", "/api/moderation/mute", anna, json={"game": gid, "seat": 1})
    assert r.status_code == 200 and r.json() == {"scope": "account"}
    assert call(client, "GET", f"/api/moderation/silenced?game={gid}", anna).json() == {"seats": [1], "muted": [1], "blocked": []}
    assert call(client, "GET", f"/api/moderation/silenced?game={gid}", bert).json() == {
        "seats": [],
        "muted": [],
        "blocked": [],
    }  # one's own, not the other's
    # a guest's seat: the browser keeps it for that game
    assert call(client, "POST", "/api/moderation/mute", anna, json={"game": gid, "seat": 2}).json() == {"scope": "game"}
    r = call(client, "POST", "/api/moderation/mute", anna, json={"game": gid, "seat": 0})
    assert r.status_code == 400 and r.json()["error"]["code"] == "not_yourself"
    assert call(client, "GET", "/api/moderation", anna).json() == {"muted": [{"name": "Bert"}], "blocked": []}
    r = call(client, "POST", "/api/moderation/mute", anna, json={"name": "Nobody"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_player"
    assert call(client, "POST", "/api/moderation/mute", anna, json={"name": "bert", "on": False}).json() == {"scope": "account"}
    assert call(client, "GET", f"/api/moderation/silenced?game={gid}", anna).json() == {"seats": [], "muted": [], "blocked": []}
    # signed out: refused; forged from another site: refused, nothing changes
    assert call(client, "POST", "/api/moderation/mute", json={"name": "Bert"}).json()["error"]["code"] == "signed_out"
    r = call(client, "POST", "/api/moderation/mute", anna, json={"name": "Bert"}, headers={"origin": "https://evil.example"})
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    assert call(client, "GET", "/api/moderation", anna).json()["muted"] == []
    # another account's lists are its own
    assert call(client, "GET", "/api/moderation", bert).json() == {"muted": [], "blocked": []}


def test_block_hides_the_chat_and_keeps_the_two_apart(client: TestClient) -> None:
    g, anna, bert = table(client)
    storage = service_of(client).storage
    assert call(client, "POST", "/api/moderation/block", bert, json={"name": "Anna"}).json() == {"scope": "account"}
    assert call(client, "GET", f"/api/moderation/silenced?game={g['id']}", bert).json() == {"seats": [0], "muted": [], "blocked": [0]}
    # muted too: both said (the chat's menu offers to unmute and to unblock)
    assert call(client, "POST", "/api/moderation/mute", bert, json={"name": "Anna"}).json() == {"scope": "account"}
    assert call(client, "GET", f"/api/moderation/silenced?game={g['id']}", bert).json() == {"seats": [0], "muted": [0], "blocked": [0]}
    assert call(client, "POST", "/api/moderation/mute", bert, json={"name": "Anna", "on": False}).json() == {"scope": "account"}
    ids = {n: storage.account_named(n.lower()) for n in ("Anna", "Bert")}
    a, b = ids["Anna"], ids["Bert"]
    assert a is not None and b is not None
    assert storage.blocked_between([a.id], [b.id]) and storage.blocked_between([b.id], [a.id])  # both ways
    carl = storage.create_account("Carl", "carl", "x", 1.0)
    assert carl is not None and not storage.blocked_between([a.id], [carl.id])
    assert call(client, "GET", "/api/moderation", bert).json() == {"muted": [], "blocked": [{"name": "Anna"}]}
    assert call(client, "GET", "/api/account/data", bert).json()["blocked"] == ["Anna"]
    # ... and no table together, taken from the lobby either way (the fourth walk: "Join" seated them)
    players = [{"name": "Host", "kind": "person"}, {"kind": "person", "open": True}, {"kind": "bot", "level": "random"}]
    for host, guest in ((anna, bert), (bert, anna)):
        t = call(client, "POST", "/api/games", host, json={"players": players}).json()
        r = call(client, "POST", f"/api/games/{t['id']}/claim", guest, json={"seat": 1})
        assert r.status_code == 409 and r.json()["error"]["code"] == "blocked_table", r.text
        assert client.get(f"/api/games/{t['id']}").json()["players"][1]["joined"] is False  # nothing changed
    r = call(client, "POST", f"/api/games/{t['id']}/claim", json={"seat": 1, "name": "Dora"})  # anyone else may
    assert r.status_code == 200, r.text
    # deleting an account takes its mutes and blocks along, both ways
    assert call(client, "POST", "/api/account/delete", anna, json={"password": PW}).status_code == 200
    assert call(client, "GET", "/api/moderation", bert).json() == {"muted": [], "blocked": []}


def test_report_a_line_with_its_context(client: TestClient, caplog: pytest.LogCaptureFixture) -> None:
    g, anna, bert = table(client)
    gid = g["id"]
    for i in range(3):
        say(client, gid, 0, f"hello {i}")
    bad = say(client, gid, 1, "something very rude")
    say(client, gid, 2, "after it")
    with caplog.at_level(logging.DEBUG):
        r = call(client, "POST", "/api/moderation/report", anna, json={"game": gid, "line": bad, "reason": "insults"})
        assert r.status_code == 200, r.text
        # a guest at the table reports with their seat's token
        r2 = call(client, "POST", "/api/moderation/report", json={"game": gid, "line": bad, "reason": "rude", "seats": {"2": tokens(g)[2]}})
        assert r2.status_code == 200
    assert "something very rude" not in caplog.text and "insults" not in caplog.text
    rid = r.json()["report"]
    rep = service_of(client).storage.report_by_id(rid)
    assert rep is not None and rep.text == "something very rude" and rep.name == g["seats"][1]["name"] and rep.seat == 1
    assert rep.account_id is not None and rep.reporter_name == "Anna" and rep.status == "open"
    assert [x["text"] for x in rep.context] == ["hello 0", "hello 1", "hello 2", "something very rude", "after it"]
    # the same line again by the same account: the one report
    assert call(client, "POST", "/api/moderation/report", anna, json={"game": gid, "line": bad, "reason": "again"}).json()["report"] == rid
    # refused: no account and no seat (a spectator), a wrong token, no such line, an empty reason
    r = call(client, "POST", "/api/moderation/report", json={"game": gid, "line": bad, "reason": "x"})
    assert r.status_code == 401 and r.json()["error"]["code"] == "signed_out"
    r = call(client, "POST", "/api/moderation/report", json={"game": gid, "line": bad, "reason": "x", "seats": {"2": "A" * 24}})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
    r = call(client, "POST", "/api/moderation/report", anna, json={"game": gid, "line": 999, "reason": "x"})
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_line"
    r = call(client, "POST", "/api/moderation/report", anna, json={"game": gid, "line": bad, "reason": "   "})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_report"
    r = call(
        client,
        "POST",
        "/api/moderation/report",
        anna,
        json={"game": gid, "line": bad, "reason": "x"},
        headers={"origin": "https://evil.example"},
    )
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    assert len(service_of(client).storage.reports_list()) == 2
    # the reporter's data download has what they reported (the writer's has nothing of it)
    data = call(client, "GET", "/api/account/data", anna).json()
    assert [(r["game"], r["line"], r["reason"], r["status"]) for r in data["reports"]] == [(gid, bad, "insults", "open")]
    assert call(client, "GET", "/api/account/data", bert).json()["reports"] == []


def test_reports_are_limited_per_address(tmp_path: Path, db_url: str) -> None:
    with make_client(tmp_path, db_url=db_url, guard=Guard({**LENIENT, "report": parse_many("2/hour")})) as c:
        g, anna, _ = table(c)
        lines = [say(c, g["id"], 1, f"line {i}") for i in range(3)]
        for x in lines[:2]:
            assert call(c, "POST", "/api/moderation/report", anna, json={"game": g["id"], "line": x, "reason": "spam"}).status_code == 200
        r = call(c, "POST", "/api/moderation/report", anna, json={"game": g["id"], "line": lines[2], "reason": "spam"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"


def test_the_operator_acts_on_a_report(client: TestClient, caplog: pytest.LogCaptureFixture, monkeypatch: pytest.MonkeyPatch) -> None:
    g, anna, bert = table(client)
    gid = g["id"]
    service = service_of(client)
    storage = service.storage
    bad = say(client, gid, 1, "something very rude")
    rid = call(client, "POST", "/api/moderation/report", anna, json={"game": gid, "line": bad, "reason": "insults"}).json()["report"]
    adm = Admin(storage, "ops")
    assert [r.id for r in adm.reports()] == [rid]
    with pytest.raises(AdminError):
        adm.suspend("Nobody", 1)
    with pytest.raises(AdminError):
        adm.suspend("Bert", 1, report_id=rid + 100)
    adm.suspend("Bert", 3, "insults in game", rid)
    assert adm.reports() == [] and storage.report_by_id(rid).status == "acted"  # type: ignore[union-attr]
    assert client.portal.call(moderation_of(client).apply_pending) == 1  # type: ignore[attr-defined]  # his seat barred
    assert service.get(gid).row.seats[1].barred_now(time.time())  # (test_web_suspended_seats.py: what that means)
    # suspended: its session opens nothing (told why), it cannot sign in (told only with the right password), nor chat
    assert call(client, "GET", "/api/account", bert).json()["error"]["code"] == "suspended"
    r = call(client, "POST", "/api/account/signin", json={"name": "Bert", "password": PW})
    assert r.status_code == 403 and r.json()["error"]["code"] == "suspended" and "UTC" in r.json()["error"]["params"]["until"]
    told = r.json()["error"]["params"]
    # the player is told the operator's reason, the time (for their own time zone) and whom to ask (unset: nobody named)
    assert told["why"] == "insults in game" and told["contact"] == "" and abs(told["at"] - (time.time() + 3 * 86400)) < 60
    r = call(client, "POST", "/api/account/signin", json={"name": "Bert", "password": "wrong password"})
    assert r.json()["error"]["code"] == "bad_sign_in"  # the same as for any wrong password
    with pytest.raises(Refused) as e:
        change_settings(monkeypatch, client.app, contact="moderation@example.org")
        say(client, gid, 1, "more")
    assert e.value.code == "suspended" and e.value.params["why"] == "insults in game"
    assert e.value.params["contact"] == "moderation@example.org"
    say(client, gid, 2, "the guest still talks")  # the others are not affected
    adm.unsuspend("bert")
    assert client.portal.call(moderation_of(client).apply_pending) == 1  # type: ignore[attr-defined]
    assert not service.get(gid).row.seats[1].barred_now(time.time())
    assert call(client, "POST", "/api/account/signin", json={"name": "Bert", "password": PW}).status_code == 200
    say(client, gid, 1, "sorry")
    # a new password: printed once, every session ends, the devices' seat tokens end (by the server)
    bert = call(client, "POST", "/api/account/signin", json={"name": "Bert", "password": PW}).cookies[COOKIE]
    key = call(client, "POST", "/api/account/seat", bert, json={"game": gid, "seat": 1}).json()["token"]
    assert client.get(f"/api/games/{gid}/state", params={"seat": 1, "token": key}).status_code == 200
    with caplog.at_level(logging.DEBUG):
        password = adm.new_password("Bert")
        assert client.portal.call(moderation_of(client).apply_pending) == 1  # type: ignore[attr-defined]
    assert password not in caplog.text
    assert call(client, "GET", "/api/account", bert).json()["account"] is None
    assert client.get(f"/api/games/{gid}/state", params={"seat": 1, "token": key}).status_code == 403
    assert call(client, "POST", "/api/account/signin", json={"name": "Bert", "password": password}).status_code == 200
    # deleted by the operator: the account goes, its seat is renamed by the running server
    assert adm.delete("Bert", "repeated insults") == 1
    assert storage.account_named("bert") is None
    assert client.portal.call(moderation_of(client).apply_pending) == 1  # type: ignore[attr-defined]
    assert client.portal.call(moderation_of(client).apply_pending) == 0  # type: ignore[attr-defined]  # done once
    assert service.get(gid).row.seats[1].name == "deleted player"
    assert [(e.actor, e.action, e.pending) for e in adm.audit()] == [
        ("ops", "delete", False),
        ("ops", "new_password", False),
        ("ops", "unsuspend", False),
        ("ops", "suspend", False),
    ]
    assert all(password not in str(e.detail) for e in adm.audit())


def test_a_suspended_accounts_session_is_told_why_and_opens_the_account_again_when_it_ends(
    client: TestClient, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The session of a suspended account stays: asked who it is (every page's header asks),
    it is refused ``suspended`` with what a sign-in with the right password is told, nothing
    more, and opens nothing; a forged cookie is a guest's; the session works again, the same
    one, when the suspension ends. (Before: the suspension deleted the sessions, and the
    player's pages silently showed a guest's.)"""
    change_settings(monkeypatch, client.app, contact="moderation@example.org")
    anna, bert = sign_up(client, "Anna"), sign_up(client, "Bert")
    shared = call(client, "POST", "/api/account/signin", json={"name": "Bert", "password": PW}).cookies[COOKIE]  # another device
    adm = Admin(service_of(client).storage, "ops")
    adm.suspend("Bert", 3, "insults in game")
    r = call(client, "GET", "/api/account", bert)
    assert r.status_code == 403 and r.headers["cache-control"] == "no-store", r.text
    assert "set-cookie" not in r.headers  # kept: the next page says it again
    told = r.json()["error"]
    signing_in = call(client, "POST", "/api/account/signin", json={"name": "Bert", "password": PW}).json()["error"]
    assert told == signing_in and told["code"] == "suspended"
    assert set(told["params"]) == {"until", "at", "why", "contact"}  # nothing of the account but that
    assert told["params"]["why"] == "insults in game" and told["params"]["contact"] == "moderation@example.org"
    assert abs(told["params"]["at"] - (time.time() + 3 * 86400)) < 60 and told["params"]["until"].endswith(" UTC")
    # it opens nothing
    r = call(client, "GET", "/api/account/games", bert)
    assert r.status_code == 401 and r.json()["error"]["code"] == "signed_out"
    # a forged cookie, and one signed out (this browser forgets it), are a guest's: told nothing
    assert call(client, "POST", "/api/account/signout", shared, json={}).status_code == 200
    for cookie in (secrets.token_urlsafe(32), shared, ""):
        r = call(client, "GET", "/api/account", cookie)
        assert r.status_code == 200 and r.json() == {"account": None}, (cookie, r.text)
    assert call(client, "GET", "/api/account", anna).json()["account"]["name"] == "Anna"  # the others are not affected
    # the suspension ends: the same session opens the account again (until it expires, as before)
    with service_of(client).storage.engine.begin() as conn:
        conn.execute(update(accounts).where(accounts.c.name == "Bert").values(suspended_until=time.time() - 60))
    assert call(client, "GET", "/api/account", bert).json()["account"]["name"] == "Bert"
    assert call(client, "GET", "/api/account/games", bert).status_code == 200
    # suspended again and lifted by the operator: the same
    adm.suspend("Bert", 3)
    assert call(client, "GET", "/api/account", bert).json()["error"]["params"]["why"] == ""
    adm.unsuspend("Bert")
    assert call(client, "GET", "/api/account", bert).json()["account"]["name"] == "Bert"


def test_kardinal_admin_on_the_command_line(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        g, anna, bert = table(c)
        bad = say(c, g["id"], 1, "something very rude")
        rid = call(c, "POST", "/api/moderation/report", anna, json={"game": g["id"], "line": bad, "reason": "insults"}).json()["report"]
    run = CliRunner()
    args = ["--data", str(tmp_path)]
    out = run.invoke(cli, ["admin", "reports", *args])
    assert out.exit_code == 0 and f"#{rid}" in out.output and "something very rude" in out.output and "\n1 open report\n" in out.output
    out = run.invoke(cli, ["admin", "report", str(rid), *args])
    assert out.exit_code == 0 and "> " in out.output and "insults" in out.output
    out = run.invoke(cli, ["admin", "suspend", "Bert", "--days", "2", "--report", str(rid), "--actor", "ops", "--reason", "x" * 301, *args])
    assert out.exit_code == 2 and "at most 300 characters" in out.output  # the player reads it: kept short
    out = run.invoke(cli, ["admin", "suspend", "Bert", "--days", "2", "--report", str(rid), "--actor", "ops", *args])
    assert out.exit_code == 0 and "Bert is suspended until" in out.output
    out = run.invoke(cli, ["admin", "suspend", "Nobody", *args])
    assert out.exit_code == 2 and "there is no account" in out.output
    out = run.invoke(cli, ["admin", "delete", "Bert", *args])
    assert out.exit_code == 2 and "--yes" in out.output
    out = run.invoke(cli, ["admin", "new-password", "Anna", *args])
    assert out.exit_code == 0 and "the new password of Anna: " in out.output
    password = out.output.rsplit(": ", 1)[1].strip()
    out = run.invoke(cli, ["admin", "audit", *args])
    assert out.exit_code == 0 and "suspend" in out.output and "new_password" in out.output and password not in out.output
    assert "0 open reports" in run.invoke(cli, ["admin", "reports", *args]).output
    assert "\n1 report\n" in run.invoke(cli, ["admin", "reports", "--all", *args]).output
    with make_client(tmp_path) as c:  # the server started again finds the new password's pending work and does it
        r = call(c, "POST", "/api/account/signin", json={"name": "Anna", "password": password})
        assert r.status_code == 200
        # (done by a task of the server's start: looked for until it is, or 60 s)
        end = time.monotonic() + 60
        while any(e.pending for e in Admin(service_of(c).storage, "x").audit()) and time.monotonic() < end:
            time.sleep(0.02)
        assert [(e.action, e.pending) for e in Admin(service_of(c).storage, "x").audit()[:2]] == [
            ("new_password", False),
            ("suspend", False),
        ]
    out = run.invoke(cli, ["admin", "delete", "Bert", "--yes", *args])
    assert out.exit_code == 0 and "Bert is deleted; 1 seat is renamed by the running server" in out.output


def test_the_operators_contact_is_one_short_line_or_the_server_does_not_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kardinal.server.common.settings import SettingsError, load_settings

    monkeypatch.setenv("KARDINAL_CONTACT", "  write to   mod@example.org ")
    assert load_settings().contact == "write to mod@example.org"
    for bad in ("x" * 201, "mod@example.org\x07"):
        monkeypatch.setenv("KARDINAL_CONTACT", bad)
        with pytest.raises(SettingsError, match="KARDINAL_CONTACT"):
            make_client(tmp_path)
    monkeypatch.delenv("KARDINAL_CONTACT")
    assert load_settings().contact == ""
