"""E-mail (kardinal.server.mail, issue 34) against a real SMTP server run by the tests
(aiosmtpd), on SQLite and PostgreSQL (the ``db_url`` fixture): an address confirmed by a
link, a new password by mail, the turn's mail of a turn-based game (once, with a link that
opens the seat), the end's mail, one-click unsubscribing, the queue across a restart and
two processes, e-mail off without settings, and no address, session or token in a log.

Time for the tokens' expiry and the retries is the mailer's clock (``Mailer.now``), set
by the tests: nothing sleeps to let a token expire.
"""

from __future__ import annotations

import asyncio
import email
import email.policy
import logging
import random
import re
import socket
import threading
import time
from collections.abc import Iterator
from email.message import EmailMessage, Message
from pathlib import Path
from typing import Any

import pytest
from aiosmtpd.controller import Controller
from fastapi.testclient import TestClient
from sqlalchemy import select
from web_helpers import act, make_client, play_out, state, wait_for_person

from kardinal.server.community.account_routes import COOKIE
from kardinal.server.mail import Mailer
from kardinal.server.storage.mail import QueuedMail
from kardinal.server.storage.schema import mail_queue, mail_tokens

PW = "correct horse battery"
PW2 = "another good password"
SAME_SITE = {"origin": "http://testserver"}
PUBLIC = "http://testserver"
PLAYERS = [{"name": "Anna"}, {"name": "B1", "kind": "bot", "level": "random"}, {"name": "B2", "kind": "bot", "level": "random"}]


pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Inbox:
    """What the test's SMTP server received (aiosmtpd's handler)."""

    def __init__(self) -> None:
        self.mails: list[tuple[list[str], Message]] = []
        self.delay = 0.0  # seconds the server takes over each mail
        self.lock = threading.Lock()

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        if self.delay:
            await asyncio.sleep(self.delay)
        with self.lock:
            self.mails.append((list(envelope.rcpt_tos), email.message_from_bytes(envelope.content, policy=email.policy.default)))
        return "250 OK"

    def to(self, addr: str) -> list[Message]:
        with self.lock:
            return [m for rcpt, m in self.mails if addr in rcpt]

    def wait(self, addr: str, n: int = 1, timeout: float = 30.0) -> list[Message]:
        """The mails to ``addr`` once there are ``n`` (a generous limit: not a speed test)."""
        end = time.monotonic() + timeout
        while len(self.to(addr)) < n:
            assert time.monotonic() < end, f"{n} mail(s) to {addr} did not arrive; got {len(self.to(addr))}"
            time.sleep(0.02)
        return self.to(addr)


class Smtp:
    """A real SMTP server on a fixed port, which a test may stop and start again."""

    def __init__(self) -> None:
        self.port = free_port()
        self.inbox = Inbox()
        self.controller: Controller | None = None

    def start(self) -> None:
        self.controller = Controller(self.inbox, hostname="127.0.0.1", port=self.port)
        self.controller.start()

    def stop(self) -> None:
        if self.controller is not None:
            self.controller.stop()
            self.controller = None


def serve_with_mail(tmp_path_factory: pytest.TempPathFactory, public: str) -> Iterator[tuple[str, Smtp]]:
    """A live server (webtools.serve) whose mail goes to an SMTP server of the test, with
    ``public`` as the links' site: for a module's fixture of browser tests."""
    from webtools import serve

    smtp = Smtp()
    smtp.start()
    with pytest.MonkeyPatch.context() as mp:  # only while the app is made: the other servers have no mail
        mp.setenv("KARDINAL_SMTP_URL", f"smtp://127.0.0.1:{smtp.port}?starttls=0")
        mp.setenv("KARDINAL_MAIL_FROM", "kardinal@example.org")
        mp.setenv("KARDINAL_PUBLIC_URL", public)
        gen = serve(tmp_path_factory)
        url = next(gen)
    yield url, smtp
    for _ in gen:
        pass
    smtp.stop()


@pytest.fixture
def smtp(monkeypatch: pytest.MonkeyPatch) -> Iterator[Smtp]:
    """The SMTP server, and the server's mail settings pointing at it."""
    s = Smtp()
    s.start()
    monkeypatch.setenv("KARDINAL_SMTP_URL", f"smtp://127.0.0.1:{s.port}?starttls=0")
    monkeypatch.setenv("KARDINAL_MAIL_FROM", "kardinal@example.org")
    monkeypatch.setenv("KARDINAL_PUBLIC_URL", PUBLIC)
    yield s
    s.stop()


class Clock:
    def __init__(self) -> None:
        self.t = time.time()

    def __call__(self) -> float:
        return self.t


def mailer(c: TestClient) -> Mailer:
    m: Mailer = c.app.state.mailer  # type: ignore[attr-defined]
    return m


def with_clock(c: TestClient) -> Clock:
    clock = Clock()
    mailer(c).now = clock
    c.app.state.game_mail.delay = 0.0  # type: ignore[attr-defined]
    return clock


def post(c: TestClient, path: str, secret: str | None = None, **kw: Any) -> Any:
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


def sign_up(c: TestClient, name: str) -> str:
    r = post(c, "/api/account/signup", json={"name": name, "password": PW})
    assert r.status_code == 200, r.text
    return str(r.cookies[COOKIE])


def text_of(m: Message) -> str:
    assert isinstance(m, EmailMessage) and not m.is_multipart()
    return str(m.get_content())


def link(m: Message, what: str, public: str = PUBLIC) -> str:
    """The token of a mail's ``/mail#<what>=...`` link."""
    found = re.search(rf"{re.escape(public)}/mail#{what}=([A-Za-z0-9_.-]+)", text_of(m))
    assert found, text_of(m)
    return found.group(1)


def add_address(c: TestClient, secret: str, smtp: Smtp, addr: str, lang: str = "en", tz: str | None = None) -> None:
    """Set and confirm ``addr`` for the account (through the mailed link); ``tz``: the browser's time zone."""
    before = len(smtp.inbox.to(addr))
    where = {"lang": lang} if tz is None else {"lang": lang, "tz": tz}
    r = post(c, "/api/account/email", secret, json={"email": addr, "password": PW, **where})
    assert r.status_code == 200, r.text
    mail = smtp.inbox.wait(addr, before + 1)[-1]
    r = post(c, "/api/mail/confirm", json={"token": link(mail, "confirm")})
    assert r.status_code == 200, r.text


# -- e-mail off -------------------------------------------------------------------------


def test_without_settings_email_is_off_and_nothing_breaks(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for k in ("KARDINAL_SMTP_URL", "KARDINAL_MAIL_FROM", "KARDINAL_PUBLIC_URL"):
        monkeypatch.delenv(k, raising=False)
    with make_client(tmp_path) as c:
        assert get(c, "/api/mail").json() == {"enabled": False}
        secret = sign_up(c, "Anna")
        st = get(c, "/api/account/email", secret).json()
        assert st["enabled"] is False and st["email"] is None
        r = post(c, "/api/account/email", secret, json={"email": "anna@example.org", "password": PW})
        assert r.status_code == 409 and r.json()["error"]["code"] == "mail_off"
        # the same answer as ever, and nothing queued
        assert post(c, "/api/mail/forgot", json={"who": "Anna"}).json() == {"ok": True}
        r = post(c, "/api/games", secret, json={"players": PLAYERS, "mode": "turn"})
        assert r.status_code == 200, r.text
        with mailer(c).storage.engine.connect() as conn:
            assert list(conn.execute(select(mail_queue))) == []


def test_a_partial_or_malformed_setting_keeps_email_off() -> None:
    from kardinal.server.mail import mail_settings

    ok = {
        "KARDINAL_SMTP_URL": "smtps://u:s%40cret@mail.example.org",
        "KARDINAL_MAIL_FROM": "k@example.org",
        "KARDINAL_PUBLIC_URL": "https://k.example.org/",
    }
    s, why = mail_settings(ok)
    assert (
        s is not None
        and s.smtp.port == 465
        and s.smtp.tls == "tls"
        and s.smtp.password == "s@cret"
        and s.public_url == "https://k.example.org"
    )
    assert "s@cret" not in repr(s) and "s%40cret" not in repr(s)
    s, why = mail_settings({**ok, "KARDINAL_SMTP_URL": "smtp://mail.example.org"})
    assert s is not None and s.smtp.tls == "starttls" and s.smtp.port == 587
    for broken in (
        {"KARDINAL_SMTP_URL": ""},
        {"KARDINAL_SMTP_URL": "http://x"},
        {"KARDINAL_MAIL_FROM": "nobody"},
        {"KARDINAL_PUBLIC_URL": "kardinal.example.org"},
    ):
        s, why = mail_settings({**ok, **broken})
        assert s is None and why.startswith("e-mail is off") and "cret" not in why


# -- an address --------------------------------------------------------------------------


def test_an_address_is_confirmed_by_a_link_once_and_within_a_day(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        clock = with_clock(c)
        secret = sign_up(c, "Anna")
        assert get(c, "/api/mail").json() == {"enabled": True}
        # the account's password is needed (a session alone may not redirect its resets)
        r = post(c, "/api/account/email", secret, json={"email": "anna@example.org", "password": "wrong password"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "wrong_password"
        for bad in ("not an address", "anna@example.org\r\nBcc: eve@example.com", "anna@example.org>, <eve@example.com"):
            r = post(c, "/api/account/email", secret, json={"email": bad, "password": PW})  # no header injection either
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_email", bad
        # another site's page cannot set it (forged cross-site request)
        r = post(
            c, "/api/account/email", secret, json={"email": "eve@example.com", "password": PW}, headers={"origin": "https://evil.example"}
        )
        assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
        r = post(c, "/api/account/email", secret, json={"email": "anna@example.org", "password": PW, "lang": "de"})
        assert r.status_code == 200 and r.json() == {
            "enabled": True,
            "email": "anna@example.org",
            "confirmed": False,
            "notify": {"turn": False, "invitation": False, "end": False},
        }
        # until it is confirmed, nothing else is mailed to it: no opt-in, no reset
        r = post(c, "/api/account/notify", secret, json={"turn": True})
        assert r.status_code == 409 and r.json()["error"]["code"] == "no_address"
        (mail,) = smtp.inbox.wait("anna@example.org")
        assert mail["Subject"] == "Kardinal & König: bestätige deine Mailadresse"
        # the inbox names the site, as a mail client reads the header
        (sender,) = mail["From"].addresses
        assert (sender.display_name, sender.addr_spec) == ("Kardinal & König", "kardinal@example.org")
        assert "List-Unsubscribe" not in mail  # asked for by the person: no list to leave
        token = link(mail, "confirm")
        with mailer(c).storage.engine.connect() as conn:
            hashes = list(conn.execute(select(mail_tokens.c.token_hash)).scalars())
        assert len(hashes) == 1 and token not in hashes[0]  # only its SHA-256 is kept
        # a wrong token, then the right one (once)
        r = post(c, "/api/mail/confirm", json={"token": "x" * 43})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_mail_link"
        assert post(c, "/api/mail/confirm", json={"token": token}).status_code == 200
        assert get(c, "/api/account/email", secret).json()["confirmed"] is True
        r = post(c, "/api/mail/confirm", json={"token": token})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_mail_link"
        # another address: unconfirmed again; its link a day later does not work
        r = post(c, "/api/account/email", secret, json={"email": "anna@example.com", "password": PW})
        assert r.json()["confirmed"] is False
        late = link(smtp.inbox.wait("anna@example.com")[0], "confirm")
        clock.t += 24 * 3600 + 1
        r = post(c, "/api/mail/confirm", json={"token": late})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_mail_link"
        assert get(c, "/api/account/email", secret).json()["confirmed"] is False
        # no address at all
        r = post(c, "/api/account/email", secret, json={"email": "", "password": PW})
        assert r.status_code == 200 and r.json()["email"] is None


def test_another_account_never_sees_the_address(tmp_path: Path, smtp: Smtp) -> None:
    with make_client(tmp_path) as c:
        with_clock(c)
        anna = sign_up(c, "Anna")
        add_address(c, anna, smtp, "anna@example.org")
        bert = sign_up(c, "Bert")
        assert get(c, "/api/account/email", bert).json()["email"] is None
        assert "anna@example.org" not in get(c, "/api/account/data", bert).text
        assert get(c, "/api/account/email").status_code == 401
        data = get(c, "/api/account/data", anna).json()
        assert data["mail"] == {
            "email": "anna@example.org",
            "confirmed": True,
            "notify": {"lang": "en", "turn": False, "invitation": False, "end": False},
        }


# -- a new password by mail --------------------------------------------------------------


def test_a_new_password_by_mail(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        clock = with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        other = post(c, "/api/account/signin", json={"name": "Anna", "password": PW}).cookies[COOKIE]
        # the same answer for a name, an address, and neither
        answers = [post(c, "/api/mail/forgot", json={"who": w}) for w in ("nobody here", "nobody@example.org", "anna")]
        assert {(r.status_code, r.text) for r in answers} == {(200, '{"ok":true}')}
        (mail,) = smtp.inbox.wait("anna@example.org", 2)[1:]
        assert mail["Subject"] == "Kardinal & König: a new password for your account" and "Hello Anna," in text_of(mail)
        token = link(mail, "reset")
        # a weak password is refused before the link is used up
        r = post(c, "/api/mail/reset", json={"token": token, "password": "short"})
        assert r.status_code == 400
        r = post(c, "/api/mail/reset", json={"token": token, "password": PW2})
        assert r.status_code == 200, r.text
        new = r.cookies[COOKIE]
        # every session before ends (as a new password does); this browser is signed in
        assert get(c, "/api/account", secret).json()["account"] is None
        assert get(c, "/api/account", other).json()["account"] is None
        assert get(c, "/api/account", new).json()["account"]["name"] == "Anna"
        assert post(c, "/api/account/signin", json={"name": "Anna", "password": PW}).status_code == 403
        assert post(c, "/api/account/signin", json={"name": "Anna", "password": PW2}).status_code == 200
        # once only
        r = post(c, "/api/mail/reset", json={"token": token, "password": "yet another one"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_mail_link"
        # by the address, and too late: 30 minutes
        post(c, "/api/mail/forgot", json={"who": "ANNA@example.org"})
        late = link(smtp.inbox.wait("anna@example.org", 3)[-1], "reset")
        clock.t += 31 * 60
        r = post(c, "/api/mail/reset", json={"token": late, "password": "yet another one"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "bad_mail_link"


def test_a_reset_ends_the_seats_tokens_of_the_accounts_devices(tmp_path: Path, smtp: Smtp) -> None:
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        g = post(c, "/api/games", secret, json={"players": PLAYERS, "mode": "turn"}).json()
        gid = g["id"]
        key = post(c, "/api/account/seat", secret, json={"game": gid, "seat": 0}).json()["token"]
        assert c.get(f"/api/games/{gid}/state", params={"seat": 0, "token": key}).status_code == 200
        post(c, "/api/mail/forgot", json={"who": "Anna"})
        token = link(smtp.inbox.wait("anna@example.org", 2)[-1], "reset")
        assert post(c, "/api/mail/reset", json={"token": token, "password": PW2}).status_code == 200
        assert c.get(f"/api/games/{gid}/state", params={"seat": 0, "token": key}).status_code == 403
        assert c.get(f"/api/games/{gid}/state", params={"seat": 0, "token": g["seats"][0]["token"]}).status_code == 200


def test_resets_asked_while_a_link_works_are_not_mailed_and_the_answer_stays(tmp_path: Path, smtp: Smtp) -> None:
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        answers = {post(c, "/api/mail/forgot", json={"who": "Anna"}).text for _ in range(4)}
        assert answers == {'{"ok":true}'}
        smtp.inbox.wait("anna@example.org", 2)
        send_and_settle(c)
        assert len(smtp.inbox.to("anna@example.org")) == 2  # the confirmation and one reset: its link works
        # per client address: the sixth in a minute is refused, whatever the name
        assert post(c, "/api/mail/forgot", json={"who": "nobody"}).status_code == 200
        r = post(c, "/api/mail/forgot", json={"who": "nobody"})
        assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"


def test_the_answer_to_forgot_does_not_wait_for_the_look_up(tmp_path: Path, smtp: Smtp, monkeypatch: pytest.MonkeyPatch) -> None:
    """Timing: whether a name or an address has an account is looked up after the answer
    is sent. The look-up is held until the answer has come: the answer cannot depend on it."""
    with make_client(tmp_path) as c:
        with_clock(c)
        storage = mailer(c).storage
        release = threading.Event()
        looked: list[str] = []
        real = storage.mail_account_by_key

        def held(key: str) -> Any:
            # released by the test once the answer came; an answer that waited for this
            # look-up would come only after the wait ran out, recorded False
            looked.append(f"{key}:{release.wait(10)}")
            return real(key)

        monkeypatch.setattr(storage, "mail_account_by_key", held)
        r = post(c, "/api/mail/forgot", json={"who": "Anna"})
        assert r.status_code == 200 and r.json() == {"ok": True}
        release.set()  # the answer came while the look-up was held (or had not begun)
        end = time.monotonic() + 30
        while not looked:
            assert time.monotonic() < end
            time.sleep(0.01)
        assert looked == ["anna:True"]


def send_and_settle(c: TestClient) -> None:
    """Let the queued work finish: the background look-ups, then a look at the queue."""
    for _ in range(3):
        mailer(c).wake()
        time.sleep(0.3)


# -- the games' mails --------------------------------------------------------------------


def turn_game(c: TestClient, secret: str) -> tuple[str, str]:
    """A turn-based game of the account's person seat 0 and a bot, started; (id, seat token)."""
    r = post(c, "/api/games", secret, json={"players": PLAYERS, "mode": "turn"})
    assert r.status_code == 200, r.text
    g = r.json()
    tok = g["seats"][0]["token"]
    assert post(c, f"/api/games/{g['id']}/join", secret, json={"seat": 0, "token": tok}).status_code == 200
    return g["id"], tok


def begun(c: TestClient, gid: str, lang: str, zone: str | None = None) -> str:
    """When the game was begun, as its mails' subjects say it (a month's name and digits)."""
    from kardinal.server.mail.texts import begun_words

    words = begun_words(c.get(f"/api/games/{gid}").json()["created"], lang, zone)
    assert re.fullmatch(r"\d{1,2}\.? [A-Za-z][a-zä]+, (kl\. \d\d\.\d\d|\d\d:\d\d)", words), words
    return words


def play_turn(c: TestClient, gid: str, tok: str, rng: random.Random) -> None:
    """Seat 0 plays its turn, this one only: until a bot has decided after it (returns
    once the turn is back, or the game is over). The bots may have moved and handed the
    turn back before the state is looked at: a look at whose turn it is then played a
    second turn, and a test counted one turn mail too many (once, on a loaded machine)."""
    start: int | None = None
    while True:
        msg = wait_for_person(c, gid, {0: tok})
        hist = msg["view"]["history"]
        start = len(hist) if start is None else start
        if msg["status"] == "finished" or any(h["action"]["seat"] != 0 for h in hist[start:]):
            return
        assert act(c, gid, 0, tok, msg["version"], rng.choice(msg["legal"])).status_code == 200


def test_the_turn_mail_arrives_once_and_its_link_opens_the_seat(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        r = post(c, "/api/account/notify", secret, json={"turn": True})
        assert r.json()["notify"] == {"turn": True, "invitation": False, "end": False}
        gid, tok = turn_game(c, secret)
        rng = random.Random(3)
        wait_for_person(c, gid, {0: tok})
        turns = smtp.inbox.wait("anna@example.org", 2)[1:]
        mail = turns[0]
        # no player's text, no game id: when the game was begun (two games' mails are two threads)
        assert mail["Subject"] == f"Kardinal & König: your turn in the game of {begun(c, gid, 'en')}"
        assert "your game against B1 and B2." in text_of(mail) and gid not in text_of(mail).replace(f"#open={gid}.0", "")
        assert "runs out" not in text_of(mail)  # no clock runs for the last person of an unrated table
        assert mail["List-Unsubscribe-Post"] == "List-Unsubscribe=One-Click"
        assert re.fullmatch(rf"<{re.escape(PUBLIC)}/api/mail/unsubscribe\?t=[0-9]+\.turn\.[0-9a-f]{{32}}>", mail["List-Unsubscribe"])
        # the link opens the seat: signed in, the session gets its token; no token in the mail
        assert tok not in text_of(mail)
        game, seat = link(mail, "open").rsplit(".", 1)
        assert (game, seat) == (gid, "0")
        r = post(c, "/api/account/seat", secret, json={"game": game, "seat": int(seat)})
        assert r.status_code == 200
        assert "legal" in c.get(f"/api/games/{gid}/state", params={"seat": 0, "token": r.json()["token"]}).json()
        # not signed in on that device: sign in first (the page says so)
        assert post(c, "/api/account/seat", json={"game": game, "seat": 0}).status_code == 401
        # the game changes meanwhile (a chat line, the page opened again): still one mail
        post(c, f"/api/games/{gid}/chat", json={"seat": 0, "token": tok, "text": "hello"})
        send_and_settle(c)
        assert len(smtp.inbox.to("anna@example.org")) == 2
        # once seat 0 has moved and the turn comes back: the next mail
        play_turn(c, gid, tok, rng)
        wait_for_person(c, gid, {0: tok})
        smtp.inbox.wait("anna@example.org", 3)
        send_and_settle(c)
        mails = smtp.inbox.to("anna@example.org")
        assert len(mails) == 3 and len({m["Message-ID"] for m in mails}) == 3


def test_no_turn_or_end_mail_while_the_reader_is_at_the_table(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    """Anna has the game open when her turn comes: the page tells her, so her turn mail
    waits; she leaves with the turn still hers, and it goes. At the table again, every turn
    she moves before leaving mails nothing; nor does the end, which she sees there. Ben,
    not at the table, gets the end mail."""
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        gm = c.app.state.game_mail  # type: ignore[attr-defined]
        gm.at_table_every = 0.01
        anna, ben = sign_up(c, "Anna"), sign_up(c, "Ben")
        add_address(c, anna, smtp, "anna@example.org")
        add_address(c, ben, smtp, "ben@example.org")
        assert post(c, "/api/account/notify", anna, json={"turn": True, "end": True}).status_code == 200
        assert post(c, "/api/account/notify", ben, json={"end": True}).status_code == 200
        players = [{"kind": "person"}, {"kind": "person"}, {"name": "B", "kind": "bot", "level": "random"}]
        g = post(c, "/api/games", anna, json={"players": players, "mode": "turn"}).json()
        gid, toks = g["id"], {s["seat"]: s["token"] for s in g["seats"]}

        def take(seat: int, secret: str) -> None:
            r = post(c, f"/api/games/{gid}/join", secret, json={"seat": seat, "token": toks[seat]})
            assert r.status_code == 200, r.text
            toks[seat] = r.json().get("token", toks[seat])  # the account's seat: a new token

        def hello(ws: Any) -> None:
            ws.send_json({"type": "hello", "seats": {"0": toks[0]}})
            assert ws.receive_json()["type"] == "welcome"

        rng = random.Random(6)
        take(0, anna)
        with c.websocket_connect(f"/ws/{gid}") as ws:  # at the table before the game starts, so before her first turn
            hello(ws)
            take(1, ben)
            while (msg := wait_for_person(c, gid, toks))["seat"] == 1:  # Ben's turns, until Anna's
                assert act(c, gid, 1, toks[1], msg["version"], rng.choice(msg["legal"])).status_code == 200
            end = time.monotonic() + 30
            while (gid, 0) not in gm.held:  # her turn's mail, waiting
                assert time.monotonic() < end, "the turn mail did not wait"
                time.sleep(0.01)
            assert len(smtp.inbox.to("anna@example.org")) == 1  # the confirmation only
        # she left, the turn still hers: the mail goes
        mail = smtp.inbox.wait("anna@example.org", 2)[-1]
        assert mail["Subject"].startswith("Kardinal & König: your turn in the game of ")
        with c.websocket_connect(f"/ws/{gid}") as ws:
            hello(ws)
            assert play_out(c, gid, toks, rng)["status"] == "finished"
            smtp.inbox.wait("ben@example.org", 2)  # (queued after Anna's would have been: by seat)
            with mailer(c).storage.engine.connect() as conn:
                keys = {r.key for r in conn.execute(select(mail_queue).where(mail_queue.c.key.contains(f":{gid}:")))}
            assert f"end:{gid}:1" in keys and f"end:{gid}:0" not in keys
            assert len([k for k in keys if k.startswith(f"turn:{gid}:0:")]) == 1  # the one she left before playing
        assert len(smtp.inbox.to("anna@example.org")) == 2


def test_a_live_game_and_an_account_that_did_not_ask_get_no_turn_mail(tmp_path: Path, smtp: Smtp) -> None:
    with make_client(tmp_path) as c:
        with_clock(c)
        anna = sign_up(c, "Anna")
        add_address(c, anna, smtp, "anna@example.org")
        gid, tok = turn_game(c, anna)  # Anna did not ask for turn mail
        wait_for_person(c, gid, {0: tok})
        post(c, "/api/account/notify", anna, json={"turn": True})
        r = post(c, "/api/games", anna, json={"players": PLAYERS, "mode": "live"})
        g = r.json()
        post(c, f"/api/games/{g['id']}/join", anna, json={"seat": 0, "token": g["seats"][0]["token"]})
        wait_for_person(c, g["id"], {0: g["seats"][0]["token"]})
        send_and_settle(c)
        assert len(smtp.inbox.to("anna@example.org")) == 1  # the confirmation only


def test_no_turn_mail_or_push_tells_a_suspended_player_that_it_is_his_turn(
    tmp_path: Path, smtp: Smtp, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Bert is suspended: his turns at a turn-based table are the stand-in's at once
    (clocks.barred_turn), and his seat would not open; none is told to him as his. Lifted,
    his turn is told again."""
    from test_web_clocks import play_turn as play_whole_turn
    from test_web_suspended_seats import apply_pending, table

    from kardinal.server.community.admin import Admin

    with make_client(tmp_path) as c:
        told: list[int] = []  # the seats whose turn mail (and push) was begun

        async def turn(live: Any, seat: int, key: str) -> None:
            told.append(seat)

        monkeypatch.setattr(c.app.state.game_mail, "_turn", turn)  # type: ignore[attr-defined]
        gid, toks, _, _ = table(c, mode="turn", clock={"days": 1})
        adm = Admin(c.app.state.service.storage, "ops")  # type: ignore[attr-defined]
        adm.suspend("Bert", 3, "insults in game")
        assert apply_pending(c) == 1
        told.clear()
        assert play_whole_turn(c, gid, toks, random.Random(2)) == 0  # Anna's turn: then Bert's
        assert told == []
        wait_for_person(c, gid, {0: toks[0]})  # (the stand-in played his turn)
        adm.unsuspend("Bert")
        assert apply_pending(c) == 1
        told.clear()
        assert play_whole_turn(c, gid, toks, random.Random(3)) == 0
        assert told == [1]


def test_the_end_mail_has_the_result(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org", lang="de")
        post(c, "/api/account/notify", secret, json={"end": True})
        gid, tok = turn_game(c, secret)
        final = play_out(c, gid, {0: tok}, random.Random(5))
        assert final["status"] == "finished"
        mail = smtp.inbox.wait("anna@example.org", 2)[-1]
        assert mail["Subject"] == f"Kardinal & König: die Partie vom {begun(c, gid, 'de')} ist beendet" and mail["Content-Language"] == "de"
        body = text_of(mail)
        assert "dein Spiel gegen B1 und B2 ist beendet." in body and gid not in body.replace(f"#open={gid}.0", "")
        spec = state(c, gid)
        scores, names = spec["view"]["scores"], [p["name"] for p in spec["players"]]
        assert all(f"{n}: {sc}" in body for n, sc in zip(names, scores))
        # the win as the game decided it (equal points are told apart by the rules' tie-break, or the win is shared)
        winners = c.get(f"/api/games/{gid}").json()["winners"]
        assert ("Du hast gewonnen" in body) == (winners == [0]) and ("Du teilst dir den Sieg" in body) == (
            0 in winners and len(winners) > 1
        )
        assert f"{PUBLIC}/mail#unsubscribe=" in body
        send_and_settle(c)
        assert len(smtp.inbox.to("anna@example.org")) == 2


def test_the_end_mail_of_a_rated_game_says_the_new_rating(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    """A rated game's end mail says how the reader's rating changed, as the game's ratings
    page has it (once the settlement updated it); an unrated game's says no rating."""
    from kardinal.server.mail.texts import rating_words

    assert rating_words("de", 1500, 1488) == "Deine Wertung ging von 1500 auf 1488 (−12)."
    assert rating_words("da", 1500, 1500) == "Din rating gik fra 1500 til 1500 (+0)."
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        post(c, "/api/account/notify", secret, json={"end": True})
        for rated in (True, False):
            r = post(c, "/api/games", secret, json={"players": PLAYERS, "rated": rated})
            assert r.status_code == 200, r.text
            g = r.json()
            j = post(c, f"/api/games/{g['id']}/join", secret, json={"seat": 0, "token": g["seats"][0]["token"]})
            tok = j.json().get("token", g["seats"][0]["token"])
            assert play_out(c, g["id"], {0: tok}, random.Random(6))["status"] == "finished"
            body = text_of(smtp.inbox.wait("anna@example.org", 2 if rated else 3)[-1])
            if rated:
                seat = c.get(f"/api/games/{g['id']}/ratings").json()["seats"]["0"]
                sign = "+" if seat["change"] >= 0 else "−"
                assert f"Your rating went from {seat['before']} to {seat['after']} ({sign}{abs(seat['change'])})." in body, body
            else:
                assert "rating" not in body, body


def test_a_shared_place_is_said_as_the_final_table_shows_it(tmp_path: Path, smtp: Smtp) -> None:
    """The fourth new-user walk: two seats tied for second were told "Du bist 2,5. geworden"
    and listed "2,5." where the page shows both 2nd; the next seat is 4th."""
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org", lang="de")
        post(c, "/api/account/notify", secret, json={"end": True})
        gid, _tok = turn_game(c, secret)
        seats = [("Anna", False), ("B1", True), ("B2", True), ("B3", True)]
        table = [(0, 47, 2.5, 0.0), (1, 47, 2.5, 0.0), (2, 60, 1.0, 1.0), (3, 30, 4.0, 0.0)]  # as SeatResult has them
        c.portal.call(c.app.state.game_mail._end, gid, [0], seats, table, 0.0)  # type: ignore[attr-defined]
        body = text_of(smtp.inbox.wait("anna@example.org", 2)[-1])
        assert "Du teilst dir den 2. Platz, mit 47 Punkten." in body and "2,5" not in body
        assert "1.  B2: 60\r\n2.  Anna: 47\r\n2.  B1: 47\r\n4.  B3: 30" in body
    from kardinal.server.mail.texts import places_shown, result_words

    assert places_shown([1.0, 2.5, 2.5, 4.0]) == [1, 2, 2, 4] and places_shown([1.5, 1.5, 3.0]) == [1, 1, 3]
    assert result_words("en", 2, 47, 0.0, tied=True) == "You share 2nd place with 47 points."
    assert result_words("en", 3, 20, 0.0) == "You came 3rd with 20 points."


# the end mail in each language but English: its subject and opening, an unnamed seat's name, its words for a result
END_MAIL = {
    "de": ("die Partie vom {begun} ist beendet", "dein Spiel gegen Spieler 2 und B1 ist beendet.", "Spieler 2", "Punkten."),
    "da": ("spillet fra {begun} er slut", "Dit spil mod Spiller 2 og B1 er slut.", "Spiller 2", "point."),
}


@pytest.mark.parametrize("lang", sorted(END_MAIL))
def test_an_unnamed_seat_is_named_in_the_readers_language(tmp_path: Path, smtp: Smtp, lang: str) -> None:
    """Issue 43, item 12: a seat stored with no name is "Spieler 2" in a German mail; in a
    Danish one (issue 46) "Spiller 2", in a mail all in Danish."""
    subject, opening, unnamed, result = END_MAIL[lang]
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org", lang=lang)
        post(c, "/api/account/notify", secret, json={"end": True})
        players = [{"name": "Anna"}, {"kind": "person"}, {"name": "B1", "kind": "bot", "level": "random"}]
        r = post(c, "/api/games", secret, json={"players": players})
        assert r.status_code == 200, r.text
        g = r.json()
        toks = {s["seat"]: s["token"] for s in g["seats"]}
        r = post(c, f"/api/games/{g['id']}/join", secret, json={"seat": 0, "token": toks[0]})
        assert r.status_code == 200, r.text
        assert "token" not in r.json()  # the creator's seat: the account's since the table was made, its token stays
        assert post(c, f"/api/games/{g['id']}/join", None, json={"seat": 1, "token": toks[1]}).status_code == 200
        assert state(c, g["id"])["players"][1]["name"] == ""
        final = play_out(c, g["id"], toks, random.Random(3))
        assert final["status"] == "finished"
        mail = smtp.inbox.wait("anna@example.org", 2)[-1]
        body = text_of(mail)
        assert f"{unnamed}: {final['view']['scores'][1]}" in body and "Player" not in body
        assert mail["Subject"] == "Kardinal & König: " + subject.format(begun=begun(c, g["id"], lang)) and mail["Content-Language"] == lang
        assert opening in body and result in body and f"{PUBLIC}/mail#unsubscribe=" in body
        if lang == "da":  # the confirmation and the end mail: no word of the English or German mails
            for m in smtp.inbox.to("anna@example.org"):
                assert not foreign_in_danish(m["Subject"] + " " + text_of(m)), (m["Subject"], text_of(m))


# words of the English and German mails that Danish does not share (a Danish mail holds none)
FOREIGN_IN_DANISH = re.compile(
    r"\b(Hello|Hallo|your|you|the|game|games|points|Punkten|Spiel|Spieler|dein|deine|Mail|Link|und|and|turn|Zug|"
    r"confirm|bestätige|Konto|account|password|Passwort|replay|Wiederholung|won|gewonnen|place|Platz|over|beendet)\b"
)


def foreign_in_danish(text: str) -> list[str]:
    """The English and German words of a mail's text, its links left out (their paths are no words)."""
    return FOREIGN_IN_DANISH.findall(re.sub(r"\S+://\S+", " ", text))


def test_the_invitation_hook_mails_once_those_who_asked(tmp_path: Path, smtp: Smtp) -> None:
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        aid = get(c, "/api/account", secret).json()["account"]["id"]
        hook = c.app.state.game_mail.notify_invited  # type: ignore[attr-defined]
        portal = c.portal  # type: ignore[attr-defined]
        g1 = post(c, "/api/games", json={"players": PLAYERS, "mode": "turn"}).json()["id"]
        assert portal.call(hook, aid, g1, 0, "Bert") is False  # not asked for
        post(c, "/api/account/notify", secret, json={"invitation": True})
        assert portal.call(hook, aid, "nosuchgame", 0, "Bert") is False  # no such game: nothing to invite to
        assert portal.call(hook, aid, g1, 0, "Bert") is True
        assert portal.call(hook, aid, g1, 0, "Bert") is False  # once
        mail = smtp.inbox.wait("anna@example.org", 2)[-1]
        # the subject says the kind of table and when it was made (two invitations told apart
        # in the inbox: the walk found two alike), in the server's words only
        assert re.fullmatch(r"Kardinal & König: an invitation to a turn-based game of \d+ \w+, \d\d:\d\d", mail["Subject"]), mail["Subject"]
        assert link(mail, "open") == f"{g1}.0"
        # ... and says how the table plays: turn-based, without a clock here
        assert (
            "Bert invites you to a game against B1 and B2. It is a turn-based game: you move when you have time, without a time limit."
            in text_of(mail)
        )
        # wired: a table made by Bert with a seat kept for Anna by name mails her
        bert = sign_up(c, "Bert")
        players = [{"kind": "person"}, {"kind": "person", "account": "anna"}, {"kind": "bot", "level": "random"}]
        r = post(c, "/api/games", bert, json={"players": players})
        assert r.status_code == 200, r.text
        mail = smtp.inbox.wait("anna@example.org", 3)[-1]
        assert "Bert invites you" in text_of(mail) and link(mail, "open") == f"{r.json()['id']}.1"
        assert mail["Subject"].startswith("Kardinal & König: an invitation to a live game of ")
        assert (
            "It is a live game: everyone plays at the table at the same time, and a bot plays for a player away for 3 minutes."
            in text_of(mail)
        )


def test_play_again_at_a_turn_based_table_invites_those_not_there(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    """Anna presses "Play again" after a turn-based game with Ben: Ben, not at the table
    then, gets the new game's invitation from Anna (if he wants invitations), once however
    many press; Anna, who asked, none. Its link opens Ben's seat of the new game. A live
    table's Play again mails nobody (its people are at the table)."""
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        anna, ben = sign_up(c, "Anna"), sign_up(c, "Ben")
        for secret, addr in ((anna, "anna@example.org"), (ben, "ben@example.org")):
            add_address(c, secret, smtp, addr)
            assert post(c, "/api/account/notify", secret, json={"invitation": True}).status_code == 200
        players = [{"kind": "person"}, {"kind": "person"}, {"name": "B", "kind": "bot", "level": "random"}]
        ids = {}
        for mode in ("turn", "live"):
            g = post(c, "/api/games", anna, json={"players": players, "mode": mode}).json()
            toks = {s["seat"]: s["token"] for s in g["seats"]}
            for seat, secret in ((0, anna), (1, ben)):
                r = post(c, f"/api/games/{g['id']}/join", secret, json={"seat": seat, "token": toks[seat]})
                assert r.status_code == 200, r.text
                toks[seat] = r.json().get("token", toks[seat])  # the account's seat: a new token
            assert play_out(c, g["id"], toks, random.Random(4))["status"] == "finished"
            r = post(c, f"/api/games/{g['id']}/again", anna, json={"seats": {"0": toks[0]}})
            assert r.status_code == 200, r.text
            ids[mode] = (g["id"], r.json()["id"], toks)
        old, new, toks = ids["turn"]
        (mail,) = smtp.inbox.wait("ben@example.org", 2)[1:]
        assert mail["Subject"].startswith("Kardinal & König: an invitation to a turn-based game of ")
        assert "Anna invites you to a game against B and Anna." in text_of(mail)  # (the seats moved on one: R2.3)
        game, seat = link(mail, "open").rsplit(".", 1)
        # Ben presses it too (on the old game's page): the same new game, no second mail; the
        # mail's link is to the seat his seat of the game before moved to
        r = post(c, f"/api/games/{old}/again", ben, json={"seats": {"1": toks[1]}})
        assert r.json()["id"] == game == new and r.json()["seats"] == {"1": int(seat)}
        # the link opens that seat: signed in, the session gets its token
        r = post(c, "/api/account/seat", ben, json={"game": game, "seat": int(seat)})
        assert r.status_code == 200, r.text
        assert post(c, f"/api/games/{new}/join", ben, json={"seat": int(seat), "token": r.json()["token"]}).status_code == 200
        send_and_settle(c)
        assert len(smtp.inbox.to("ben@example.org")) == 2  # the confirmation, the one invitation
        assert len(smtp.inbox.to("anna@example.org")) == 1  # the confirmation only: she asked


# -- unsubscribing -----------------------------------------------------------------------


def test_unsubscribe_in_one_click_and_by_the_link(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        post(c, "/api/account/notify", secret, json={"turn": True, "end": True})
        gid, tok = turn_game(c, secret)
        mail = smtp.inbox.wait("anna@example.org", 2)[-1]
        url = mail["List-Unsubscribe"].strip("<>")
        path = url[len(PUBLIC) :]
        # RFC 8058: the mail client posts the form body, without a cookie or an Origin
        r = c.post(path, content=b"List-Unsubscribe=One-Click", headers={"content-type": "application/x-www-form-urlencoded"})
        assert r.status_code == 200 and r.json() == {"ok": True, "kind": "turn"}
        assert get(c, "/api/account/email", secret).json()["notify"] == {"turn": False, "invitation": False, "end": True}
        assert c.get(path).status_code == 405  # a GET (a link scanner) changes nothing
        assert c.post(path, content=b"").status_code == 400
        # the link in the text: its page posts the token
        post(c, "/api/account/notify", secret, json={"turn": True})
        token = link(mail, "unsubscribe")
        assert post(c, "/api/mail/unsubscribe", json={"token": token}).json() == {"ok": True, "kind": "turn"}
        assert get(c, "/api/account/email", secret).json()["notify"]["turn"] is False
        # a forged one, another kind's, another account's: refused
        aid, kind, mac = token.split(".")
        for bad in (f"{aid}.end.{mac}", f"{int(aid) + 1}.turn.{mac}", f"{aid}.turn.{'0' * 32}", "nonsense"):
            r = post(c, "/api/mail/unsubscribe", json={"token": bad})
            assert r.status_code == 403 and r.json()["error"]["code"] == "bad_mail_link", bad
        assert get(c, "/api/account/email", secret).json()["notify"]["end"] is True
        # a new address ends the old links
        add_address(c, secret, smtp, "anna@example.com")
        post(c, "/api/account/notify", secret, json={"turn": True})
        assert post(c, "/api/mail/unsubscribe", json={"token": token}).status_code == 403
        del gid, tok


def test_two_boxes_ticked_at_once_both_stay_ticked(tmp_path: Path, db_url: str, smtp: Smtp, monkeypatch: pytest.MonkeyPatch) -> None:
    """The account page posts each box on its own; two in flight at once must not undo each
    other (it lost the turn mail once: the second wrote back what it had read before the
    first was written). The interleaving is made, not waited for: the other box's post is
    written between this post's read of the account and its write."""
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        storage = mailer(c).storage
        read = storage.mail_address
        done: list[bool] = []

        def read_then_the_other_box(account_id: int) -> Any:
            found = read(account_id)
            if not done:
                done.append(True)
                assert post(c, "/api/account/notify", secret, json={"end": True}).status_code == 200
            return found

        monkeypatch.setattr(storage, "mail_address", read_then_the_other_box)
        assert post(c, "/api/account/notify", secret, json={"turn": True}).status_code == 200
        monkeypatch.setattr(storage, "mail_address", read)
        assert done and get(c, "/api/account/email", secret).json()["notify"] == {"turn": True, "invitation": False, "end": True}


# -- the queue ---------------------------------------------------------------------------


def test_a_restart_between_queueing_and_sending_loses_and_doubles_nothing(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    smtp.stop()  # the mail server is down
    with make_client(tmp_path, db_url=db_url) as c:
        clock = with_clock(c)
        secret = sign_up(c, "Anna")
        r = post(c, "/api/account/email", secret, json={"email": "anna@example.org", "password": PW})
        assert r.status_code == 200
        storage = mailer(c).storage
        end = time.monotonic() + 30
        while True:  # the sender tried, failed, and set the next try a minute on
            with storage.engine.connect() as conn:
                row = conn.execute(select(mail_queue)).one()
            if row.attempts >= 1:
                break
            assert time.monotonic() < end
            time.sleep(0.05)
        assert row.sent is None and row.send_after >= clock.t + 59 and row.failed == "ConnectionRefusedError"
        later = clock.t + 120
    smtp.start()
    with make_client(tmp_path, db_url=db_url) as c:
        clock = with_clock(c)
        clock.t = later
        mailer(c).wake()
        (mail,) = smtp.inbox.wait("anna@example.org")
        send_and_settle(c)
        assert len(smtp.inbox.to("anna@example.org")) == 1
        with mailer(c).storage.engine.connect() as conn:
            row = conn.execute(select(mail_queue)).one()
        assert row.sent is not None and row.to_addr == "" and row.body == "{}"  # sent: the address and text go
        assert post(c, "/api/mail/confirm", json={"token": link(mail, "confirm")}).status_code == 200


def test_two_processes_send_each_mail_once(tmp_path: Path, smtp: Smtp, pg: Any) -> None:
    """Two server processes (``kardinal serve``) on one PostgreSQL database send a queue of
    mails: each arrives once, and both took part (a slow mail server: their looks overlap)."""
    from test_web_two_processes import Server

    from kardinal.server.storage import Storage

    url = str(pg.new_database())
    smtp.inbox.delay = 0.12  # ~12 s for the queue: more than a sender's time between looks (POLL)
    storage = Storage(url)
    n = 100
    try:
        now = time.time()
        for i in range(n):
            storage.queue_mail(QueuedMail(f"test:{i}", None, "confirm", f"p{i}@example.org", f"mail {i}", {"text": "hello"}, now), now)
    finally:
        storage.close()
    env = {
        "KARDINAL_SMTP_URL": f"smtp://127.0.0.1:{smtp.port}?starttls=0",
        "KARDINAL_MAIL_FROM": "kardinal@example.org",
        "KARDINAL_PUBLIC_URL": PUBLIC,
        "KARDINAL_LOG_LEVEL": "info",
        # this checkout's kardinal, also where the installed command's is another's
        "PYTHONPATH": str(Path(__file__).resolve().parents[1]),
    }
    servers = [Server(url, tmp_path, name, env) for name in ("a", "b")]
    try:
        for srv in servers:
            srv.start()
        for i in range(n):
            smtp.inbox.wait(f"p{i}@example.org", timeout=120)
        time.sleep(1.0)  # a second copy would have come by now: both senders look again meanwhile
    finally:
        for srv in servers:
            srv.stop()
    with smtp.inbox.lock:
        got = [rcpt[0] for rcpt, _m in smtp.inbox.mails]
    assert sorted(got) == sorted(f"p{i}@example.org" for i in range(n))
    sent = [len(re.findall(r"mail \d+ \(confirm\) sent", srv.log.read_text())) for srv in servers]
    assert sum(sent) == n and all(k > 0 for k in sent), sent


# -- deletion and logs -------------------------------------------------------------------


def test_deleting_the_account_deletes_its_tokens_and_mail(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        smtp.stop()
        post(c, "/api/mail/forgot", json={"who": "Anna"})
        storage = mailer(c).storage
        end = time.monotonic() + 30
        while True:
            with storage.engine.connect() as conn:
                if conn.execute(select(mail_queue).where(mail_queue.c.kind == "reset")).first() is not None:
                    break
            assert time.monotonic() < end
            time.sleep(0.05)
        assert post(c, "/api/account/delete", secret, json={"password": PW}).status_code == 200
        with storage.engine.connect() as conn:
            assert list(conn.execute(select(mail_tokens))) == []
            assert list(conn.execute(select(mail_queue).where(mail_queue.c.sent.is_(None)))) == []
        smtp.start()


def test_no_address_session_or_token_in_a_log(tmp_path: Path, smtp: Smtp, caplog: pytest.LogCaptureFixture) -> None:
    caplog.set_level(logging.DEBUG)
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org")
        post(c, "/api/account/notify", secret, json={"turn": True, "end": True})
        post(c, "/api/mail/forgot", json={"who": "anna@example.org"})
        reset = link(smtp.inbox.wait("anna@example.org", 2)[-1], "reset")
        new = post(c, "/api/mail/reset", json={"token": reset, "password": PW2}).cookies[COOKIE]
        gid, tok = turn_game(c, new)
        play_out(c, gid, {0: tok}, random.Random(1))
        mails = smtp.inbox.wait("anna@example.org", 4)
        unsub = link(mails[-1], "unsubscribe")
        post(c, "/api/mail/unsubscribe", json={"token": unsub})
        smtp.stop()  # and a failing mail server
        post(c, "/api/mail/forgot", json={"who": "Anna"})
        send_and_settle(c)
    secrets_ = ["anna@example.org", "example.org", secret, new, reset, tok, unsub, PW, PW2]
    confirm = link(mails[0], "confirm")
    secrets_.append(confirm)
    # the test's SMTP server's own log aside, and its HTTP client's (which writes the query of a state's GET)
    ours = [r for r in caplog.records if not r.name.startswith(("mail.log", "httpx"))]
    text = "\n".join(r.getMessage() for r in ours)
    assert "mail" in text and "sent" in text  # the flow was logged
    for s in secrets_:
        assert s not in text, s
    smtp.start()


# -- what the games' mails say -----------------------------------------------------------


def test_the_words_for_players_and_time_left() -> None:
    """Other players named as a sentence does, an unnamed seat in the reader's language,
    the time left in two units, the deadline in the reader's time zone or in UTC said."""
    from kardinal.server.mail.texts import deadline_words, left_words, names_list, others_words, when_words

    assert [names_list(n, "en") for n in (["Anna"], ["Anna", "Ben"], ["Anna", "Ben", "Carl"])] == [
        "Anna",
        "Anna and Ben",
        "Anna, Ben and Carl",
    ]
    assert names_list(["Anna", "Ben", "Carl"], "de") == "Anna, Ben und Carl"
    seats = [("Anna", False), ("", False), ("", True), ("Dora", True)]
    assert others_words(seats, 0, "en") == "Player 2, Bot 3 and Dora"
    assert others_words(seats, 3, "de") == "Anna, Spieler 2 und Bot 3"
    assert [left_words(s, "en") for s in (2 * 86400 + 23 * 3600 + 59 * 60, 3 * 86400, 5 * 3600 + 600, 3600, 30)] == [
        "2 days 23 hours",
        "3 days",
        "5 hours 10 minutes",
        "1 hour",
        "1 minute",
    ]
    assert left_words(2 * 86400 + 23 * 3600, "de") == "2 Tage und 23 Stunden" and left_words(86400 + 60, "de") == "1 Tag"
    at = 1795000000.0  # 18 November 2026, 11:06:40 UTC
    assert when_words(at, "en") == "18 November 2026 at 11:06 UTC"
    assert when_words(at, "de", "Europe/Berlin") == "18. November 2026 um 12:06 Uhr (Europe/Berlin)"
    assert when_words(at, "en", "Mars/Olympus") == when_words(at, "en", "../../etc/passwd") == "18 November 2026 at 11:06 UTC"
    assert deadline_words(None, at, "en") == ""


def test_the_mails_words_in_danish() -> None:
    """Issue 46: a Danish reader's mails say names, times and results the Danish way:
    "18. november 2026 kl. 12.06", "2 dage og 23 timer", "Spiller 2", "2. plads"."""
    from kardinal.server.mail.texts import (
        MAILS,
        begun_words,
        deadline_words,
        how_words,
        kind_words,
        left_words,
        names_list,
        others_words,
        render,
        result_words,
        when_words,
    )

    assert names_list(["Anna", "Ben", "Carl"], "da") == "Anna, Ben og Carl"
    assert others_words([("Anna", False), ("", False), ("", True), ("Dora", True)], 3, "da") == "Anna, Spiller 2 og Bot 3"
    assert left_words(2 * 86400 + 23 * 3600, "da") == "2 dage og 23 timer" and left_words(86400 + 60, "da") == "1 dag"
    assert left_words(3600 + 60, "da") == "1 time og 1 minut"
    at = 1795000000.0  # 18 November 2026, 11:06:40 UTC
    assert when_words(at, "da", "Europe/Copenhagen") == "18. november 2026 kl. 12.06 (Europe/Copenhagen)"
    assert when_words(at, "da") == "18. november 2026 kl. 11.06 UTC"
    assert begun_words(at, "da", "Europe/Copenhagen") == "18. november, kl. 12.06"
    assert deadline_words(at, at - 3 * 86400, "da") == (
        "\n\nDin tid til denne tur løber ud den 18. november 2026 kl. 11.06 UTC: omkring 3 dage tilbage."
        " Derefter spiller en bot for dig, indtil du er tilbage."
    )
    assert how_words({"mode": "live", "away": 60.0, "rated": True}, "da") == (
        "Det er et livespil: alle spiller ved bordet på samme tid, og en bot spiller for en spiller, der er væk i 1 minut. Det er rated."
    )
    assert "inden for 3 dage pr. tur" in how_words({"mode": "turn", "clock": {"days": 3}}, "da")
    assert kind_words({"mode": "turn"}, "da") == "turbaseret spil"
    assert result_words("da", 2, 47, 0.0, tied=True) == "Du deler 2. plads med 47 point."
    assert (
        result_words("da", 3, 20, 0.0) == "Du kom på 3. plads med 20 point." and result_words("da", 1, 61, 1.0) == "Du vandt med 61 point."
    )
    # every mail, every placeholder filled, in Danish words only (that the catalog has every message: test_catalogs.py)
    params = {"name": "Anna", "hours": 24, "minutes": 30, "link": "https://x/mail", "begun": "1. maj, kl. 10.00", "others": "Ben",
              "deadline": "", "kind": "livespil", "inviter": "Ben", "how": "", "you": "", "table": ""}  # fmt: skip
    for kind in MAILS:
        notification = kind in ("turn", "invitation", "end")  # (they have an unsubscribe line)
        subject, body = render(kind, "da", params, unsubscribe="https://x/u" if notification else None)
        assert "{" not in subject + body, kind
        assert not foreign_in_danish(subject + " " + body), (kind, foreign_in_danish(subject + " " + body))


def test_an_invitation_says_how_the_table_plays() -> None:
    """The new-user walk (issue 43): an invitation did not say whether its game was live or
    turn-based, nor how long a turn may take."""
    from kardinal.server.mail.texts import how_words

    assert how_words({"mode": "live", "away": 300.0}, "en") == (
        "It is a live game: everyone plays at the table at the same time, and a bot plays for a player away for 5 minutes."
    )
    assert how_words({"mode": "live", "away": 60.0, "rated": True}, "de") == (
        "Es ist ein Live-Spiel: alle sitzen zur gleichen Zeit am Tisch, und für eine Person, die 1 Minute weg ist, spielt ein Bot. Es wird gewertet."
    )
    assert how_words({"mode": "turn", "clock": {"days": 1}}, "en") == (
        "It is a turn-based game: you move when you have time, within 1 day a turn; then a bot plays for you until you are back."
    )
    assert "innerhalb von 3 Tagen je Zug" in how_words({"mode": "turn", "clock": {"days": 3}}, "de")
    assert (
        how_words({"mode": "turn", "clock": None}, "de")
        == "Es ist ein rundenbasiertes Spiel: du ziehst, wenn du Zeit hast, ohne Zeitlimit."
    )


FROZEN = 1795000000.0 - 3 * 86400  # the tables' clock of the test below: each turn's 3 days end at 1795000000


def test_the_turn_mail_names_the_other_players_and_says_the_time_left(tmp_path: Path, smtp: Smtp) -> None:
    """Issue 43 (5, 4): a turn mail names the game by the reader's opponents, in the
    reader's language, and a clocked turn-based game's says when the turn's time runs out
    (in the time zone the reader's browser gave, else in UTC said) and how long that is."""
    with make_client(tmp_path) as c:
        with_clock(c)
        c.app.state.service.now = lambda: FROZEN  # type: ignore[attr-defined]
        anna, ben = sign_up(c, "Anna"), sign_up(c, "Ben")
        add_address(c, anna, smtp, "anna@example.org", lang="de", tz="Europe/Berlin")
        add_address(c, ben, smtp, "ben@example.org")  # no time zone given: UTC
        for who in (anna, ben):
            post(c, "/api/account/notify", who, json={"turn": True})
        bots = [{"name": n, "kind": "bot", "level": "random"} for n in ("Carl", "Dora")]
        players = [{"name": "Anna"}, {"name": "Ben"}, *bots]
        g = post(c, "/api/games", anna, json={"players": players, "mode": "turn", "clock": {"days": 3}}).json()
        toks = {i: g["seats"][i]["token"] for i in (0, 1)}
        for i, who in ((0, anna), (1, ben)):
            r = post(c, f"/api/games/{g['id']}/join", who, json={"seat": i, "token": toks[i]})
            assert r.status_code == 200, r.text
            toks[i] = r.json().get("token") or toks[i]  # a seat that became the account's: its new token
        addresses = {0: "anna@example.org", 1: "ben@example.org"}
        rng = random.Random(4)
        while any(len(smtp.inbox.to(a)) < 2 for a in addresses.values()):  # each seat's first turn, whoever begins
            msg = wait_for_person(c, g["id"], toks)
            seat = msg["seat"]
            smtp.inbox.wait(addresses[seat], 2)
            assert act(c, g["id"], seat, toks[seat], msg["version"], rng.choice(msg["legal"])).status_code == 200
        mail = smtp.inbox.to("anna@example.org")[1]
        assert mail["Subject"] == f"Kardinal & König: du bist dran in der Partie vom {begun(c, g['id'], 'de', 'Europe/Berlin')}"
        assert "du bist dran in deinem Spiel gegen Ben, Carl und Dora.\r\n\r\n" in text_of(mail)
        assert (
            "Deine Zeit für diesen Zug läuft am 18. November 2026 um 12:06 Uhr (Europe/Berlin) ab: noch etwa 3 Tage."
            " Danach spielt ein Bot für dich, bis du zurück bist."
        ) in text_of(mail)
        mail = smtp.inbox.to("ben@example.org")[1]
        assert mail["Subject"] == f"Kardinal & König: your turn in the game of {begun(c, g['id'], 'en')}"
        assert "it is your turn in your game against Anna, Carl and Dora.\r\n\r\n" in text_of(mail)
        assert "runs out on 18 November 2026 at 11:06 UTC: about 3 days left. Then a bot plays for you" in text_of(mail)


def test_the_language_chosen_on_a_page_is_the_accounts_and_its_mails(tmp_path: Path, smtp: Smtp) -> None:
    """Issue 46: a language chosen on a page while signed in (POST /api/account/lang) is the
    account's: its mails come in it, whatever language the address was set in; a language
    without a catalog is refused and changes nothing."""
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, "anna@example.org", lang="en")
        # not signed in: nothing to remember it for
        r = post(c, "/api/account/lang", None, json={"lang": "de"})
        assert r.status_code == 401, r.text
        for bad in ("xx", "fr", "DE", "de-AT", ""):
            r = post(c, "/api/account/lang", secret, json={"lang": bad})
            assert r.status_code == 400, (bad, r.text)
            assert r.json()["error"]["code"] in ("bad_lang", "malformed"), r.text
        assert mailer(c).storage.mail_address(1).notify["lang"] == "en"  # type: ignore[union-attr]
        assert get(c, "/api/account", secret).json()["account"]["lang"] == "en"
        r = post(c, "/api/account/lang", secret, json={"lang": "de"})
        assert r.status_code == 200 and r.json() == {"ok": True}, r.text
        # the account's language, for a page on another device that has chosen none
        assert get(c, "/api/account", secret).json()["account"]["lang"] == "de"
        assert get(c, "/api/account", sign_up(c, "Bert")).json()["account"]["lang"] is None  # never said
        post(c, "/api/account/notify", secret, json={"end": True})
        g = post(c, "/api/games", secret, json={"players": PLAYERS}).json()
        toks = {s["seat"]: s["token"] for s in g["seats"]}
        assert post(c, f"/api/games/{g['id']}/join", secret, json={"seat": 0, "token": toks[0]}).status_code == 200
        final = play_out(c, g["id"], toks, random.Random(5))
        assert final["status"] == "finished"
        mail = smtp.inbox.wait("anna@example.org", 2)[-1]
        assert mail["Subject"].startswith("Kardinal & König: die Partie vom "), mail["Subject"]
        assert mail["Content-Language"] == "de"
        assert "dein Spiel gegen B1 und B2 ist beendet" in text_of(mail)


def test_the_accounts_language_is_not_set_from_another_sites_page(tmp_path: Path) -> None:
    """Probe (issue 46 follow-up): a page of another site that posts a language for a
    signed-in visitor (its Origin, else its Referer, else Sec-Fetch-Site: cross-site) is
    refused, and the account's language stays unset."""
    with make_client(tmp_path) as c:
        secret = sign_up(c, "Anna")
        for forged in (
            {"origin": "https://evil.example"},
            {"referer": "https://evil.example/x"},
            {"sec-fetch-site": "cross-site"},
            {"origin": "null"},
        ):
            c.cookies.clear()
            c.cookies.set(COOKIE, secret)
            r = c.post("/api/account/lang", json={"lang": "de"}, headers=forged)
            assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site", (forged, r.text)
        assert get(c, "/api/account", secret).json()["account"]["lang"] is None
