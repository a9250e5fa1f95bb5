"""Attacks on the server's mail (issue 42), against the SMTP server of test_web_mail.py:

- header injection through names, seat names and stored addresses (an RFC 2047 encoded
  word that decodes to a line break: CVE-2024-6923), asserted on the bytes the SMTP
  server received and on its envelope, for every kind of mail;
- an address mailed more often than its budget (confirmations set by many accounts, in
  two processes on one database), and "Forgot the password?" on someone else's name;
- account ids in unsubscribe tokens that are no ASCII digits or too large for the
  database, and other ids parsed from text;
- addresses with control characters, without a domain, too long: refused, nothing stored.

The mailer's clock (``Mailer.now``) stands in for time; nothing sleeps to let time pass.
"""

from __future__ import annotations

import email
import email.policy
import random
import re
import time
import unicodedata
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from limits import parse_many
from sqlalchemy import select, update
from test_web_mail import (
    PLAYERS,
    PW,
    PW2,
    Inbox,
    Smtp,
    add_address,
    get,
    link,
    mailer,
    post,
    sign_up,
    text_of,
    with_clock,
)
from web_helpers import LENIENT, make_client, play_out, wait_for_person

from kardinal.server.common.catalog import text
from kardinal.server.common.guard import Guard
from kardinal.server.community.account_routes import COOKIE
from kardinal.server.mail.addresses import valid_address
from kardinal.server.mail.headers import POLICY, HeaderProblem
from kardinal.server.mail.mailer import KINDS
from kardinal.server.mail.sender import MAX_ATTEMPTS, Permanent, message
from kardinal.server.mail.settings import mail_settings
from kardinal.server.mail.texts import MAILS
from kardinal.server.storage.mail import ClaimedMail, QueuedMail
from kardinal.server.storage.schema import accounts, mail_queue, mail_tokens

pytestmark = pytest.mark.usefixtures("cheap_hashes")

VICTIM = "victim@example.org"
# names of at most 24 characters that an unpatched email package turns into header lines
HOSTILE = "=?x?q?=0ABcc:aa@bb.cc?="  # a Bcc: header
HOSTILE_BODY = "=?x?q?=0A=0AHijacked?="  # the headers' end, then a body of the attacker's
HOSTILE_CRLF = "=?x?q?=0D=0ABcc:x@y.zz?="  # CR LF and a Bcc: header
INJECTED = ("aa@bb.cc", "x@y.zz")
HEADERS = {
    "content-type",
    "content-transfer-encoding",
    "mime-version",
    "from",
    "to",
    "subject",
    "date",
    "message-id",
    "auto-submitted",
    "content-language",
    "list-unsubscribe",
    "list-unsubscribe-post",
}


class RawInbox(Inbox):
    """The test's SMTP server, keeping each mail's bytes and envelope as received."""

    def __init__(self) -> None:
        super().__init__()
        self.raw: list[tuple[list[str], bytes]] = []

    async def handle_DATA(self, server: Any, session: Any, envelope: Any) -> str:
        with self.lock:
            self.raw.append((list(envelope.rcpt_tos), bytes(envelope.content)))
        return await super().handle_DATA(server, session, envelope)


@pytest.fixture
def smtp(monkeypatch: pytest.MonkeyPatch) -> Any:
    s = Smtp()
    s.inbox = RawInbox()
    s.start()
    monkeypatch.setenv("KARDINAL_SMTP_URL", f"smtp://127.0.0.1:{s.port}?starttls=0")
    monkeypatch.setenv("KARDINAL_MAIL_FROM", "kardinal@example.org")
    monkeypatch.setenv("KARDINAL_PUBLIC_URL", "http://testserver")
    yield s
    s.stop()


def lenient(**more: str) -> Guard:
    """The tests' lenient limits (a test's many requests come from one address), and ``more``."""
    return Guard({**LENIENT, **{k: parse_many(v) for k, v in more.items()}})


def drained(c: TestClient, timeout: float = 30.0) -> None:
    """Wait until the background look-ups ("Forgot the password?") are done and every mail
    queued is sent or given up: then the SMTP server has all it will get."""
    m = mailer(c)
    end = time.monotonic() + timeout
    while True:
        # the look-ups first: one that ends after the queue was read queued its mail unseen
        looking = bool(m._tasks)
        with m.storage.engine.connect() as conn:
            waiting = conn.execute(select(mail_queue.c.id).where(mail_queue.c.sent.is_(None), mail_queue.c.attempts < MAX_ATTEMPTS)).first()
        if waiting is None and not looking:
            return
        assert time.monotonic() < end, "the queue was not sent"
        m.wake()
        time.sleep(0.02)


def header_block(raw: bytes) -> bytes:
    head, sep, _body = raw.partition(b"\r\n\r\n")
    assert sep, raw
    return head


def assert_sound(rcpt: list[str], raw: bytes, to: str) -> None:
    """One recipient, the one meant, and only the server's own headers, each once and on
    its own line (a folded line goes on with white space)."""
    assert rcpt == [to], rcpt
    head = header_block(raw)
    names = [line.split(b":", 1)[0].decode().lower() for line in head.split(b"\r\n") if line[:1] not in (b" ", b"\t")]
    assert set(names) <= HEADERS and len(names) == len(set(names)), names
    assert b"\n" not in head.replace(b"\r\n", b"") and b"\r" not in head.replace(b"\r\n", b"")
    for bad in INJECTED:
        assert bad.encode() not in head, head
    assert b"Hijacked" not in head


def kind_of(raw: bytes) -> str:
    """Which of the server's mails (texts.py) this is, by its subject as a mail client reads it."""
    subject = str(email.message_from_bytes(raw, policy=email.policy.default)["Subject"])
    for kind in MAILS:  # "{begun}": digits and a month's name, the server's
        words = text("en", f"mail.{kind}.subject")
        pattern = re.escape(words).replace(re.escape("{begun}"), r"\d{1,2} [A-Z][a-z]+, \d\d:\d\d")
        pattern = pattern.replace(re.escape("{kind}"), "(live|turn-based) game")  # the server's words (kind_words)
        if re.fullmatch(pattern, subject):
            return kind
    raise AssertionError(subject)


ONE_CLICK = re.compile(r"<http://testserver/api/mail/unsubscribe\?t=[0-9]+\.([a-z]+)\.[0-9a-f]{32}>")


def one_click_url(raw: bytes, kind: str) -> str | None:
    """RFC 2369 and RFC 8058 as a mail client reads them: a notification's List-Unsubscribe
    is ``<URL>`` of its kind on its own header line, as written (an RFC 2047 encoded word is
    not decoded there: the compat32 parser, as many clients, reads it as it is), with
    List-Unsubscribe-Post; an account's own mail (confirm, reset) has neither. The URL."""
    lines = header_block(raw).split(b"\r\n")
    raw_lines = [line for line in lines if line.lower().startswith(b"list-unsubscribe")]
    urls = set()
    for policy in (email.policy.default, email.policy.compat32):
        msg = email.message_from_bytes(raw, policy=policy)
        if kind not in KINDS:
            assert msg["List-Unsubscribe"] is None and msg["List-Unsubscribe-Post"] is None and raw_lines == [], (kind, raw_lines)
            continue
        url = str(msg["List-Unsubscribe"])
        found = ONE_CLICK.fullmatch(url)
        assert found is not None and found.group(1) == kind, (kind, url)
        assert str(msg["List-Unsubscribe-Post"]) == "List-Unsubscribe=One-Click"
        urls.add(url)
    if kind not in KINDS:
        return None
    (url,) = urls
    assert raw_lines == [b"List-Unsubscribe: " + url.encode(), b"List-Unsubscribe-Post: List-Unsubscribe=One-Click"], raw_lines
    return url[1:-1]


# -- 2. header injection -----------------------------------------------------------------


def test_hostile_names_reach_no_header_of_any_mail(tmp_path: Path, smtp: Smtp) -> None:
    """An account, an inviter and seats named with encoded line breaks: every kind of mail
    (confirm, reset, turn, invitation, end: each of texts.py) is sent to its address alone,
    with the server's headers only; the names are in the text. Issue 43 (2): each
    notification's List-Unsubscribe is its one-click ``<URL>`` as written (one of more than
    78 characters went out as RFC 2047 encoded words, which mail clients do not decode
    there), and a POST to it as RFC 8058's turns that kind off; confirm and reset have none."""
    inbox = smtp.inbox
    assert isinstance(inbox, RawInbox)
    with make_client(tmp_path, guard=lenient(mail_forgot="1000/minute")) as c:
        with_clock(c)
        victim = sign_up(c, HOSTILE)
        add_address(c, victim, smtp, VICTIM)  # confirm
        post(c, "/api/mail/forgot", json={"who": HOSTILE})  # reset
        reset = link(inbox.wait(VICTIM, 2)[-1], "reset")
        r = post(c, "/api/mail/reset", json={"token": reset, "password": PW2})
        assert r.status_code == 200, r.text
        victim = r.cookies[COOKIE]
        r = post(c, "/api/account/notify", victim, json={"turn": True, "invitation": True, "end": True})
        assert r.status_code == 200, r.text
        # an invitation from an account whose name ends the headers
        inviter = sign_up(c, HOSTILE_BODY)
        players = [{"kind": "person"}, {"kind": "person", "account": HOSTILE}, {"kind": "bot", "level": "random"}]
        assert post(c, "/api/games", inviter, json={"players": players}).status_code == 200
        # a turn-based game with seats named to inject, played to its end
        seats = [{"name": "Anna"}, *({"name": n, "kind": "bot", "level": "random"} for n in (HOSTILE_CRLF, HOSTILE_BODY))]
        g = post(c, "/api/games", victim, json={"players": seats, "mode": "turn"}).json()
        gid, tok = g["id"], g["seats"][0]["token"]
        assert post(c, f"/api/games/{gid}/join", victim, json={"seat": 0, "token": tok}).status_code == 200
        wait_for_person(c, gid, {0: tok})
        play_out(c, gid, {0: tok}, random.Random(7))
        drained(c)
        with inbox.lock:
            got = list(inbox.raw)
        kinds, urls = set(), {}
        for rcpt, raw in got:
            assert_sound(rcpt, raw, VICTIM)
            kind = kind_of(raw)
            kinds.add(kind)
            url = one_click_url(raw, kind)
            if url is not None:
                assert len("List-Unsubscribe: <>" + url) > 78
                urls[kind] = url
        assert kinds == set(MAILS) == {"confirm", "reset", *KINDS}, kinds
        for kind, url in urls.items():  # as a mail client's button does: no cookie, no Origin
            r = c.post(
                url.removeprefix("http://testserver"),
                content=b"List-Unsubscribe=One-Click",
                headers={"content-type": "application/x-www-form-urlencoded"},
            )
            assert r.status_code == 200 and r.json() == {"ok": True, "kind": kind}, r.text
            assert get(c, "/api/account/email", victim).json()["notify"][kind] is False
    assert all(inbox.to(a) == [] for a in INJECTED)
    texts = [text_of(m) for m in inbox.to(VICTIM)]
    assert any(HOSTILE in t for t in texts) and any(HOSTILE_BODY in t for t in texts) and any(HOSTILE_CRLF in t for t in texts)


def claimed(subject: str, to: str = VICTIM) -> ClaimedMail:
    return ClaimedMail(1, "test:1", None, "confirm", to, subject, {"text": "hello", "lang": "en"}, 0, 0.0)


def test_a_header_that_would_break_its_line_is_refused() -> None:
    settings, _ = mail_settings(
        {"KARDINAL_SMTP_URL": "smtp://127.0.0.1:25", "KARDINAL_MAIL_FROM": "k@example.org", "KARDINAL_PUBLIC_URL": "https://k.example.org"}
    )
    assert settings is not None
    for subject in (f"A new password for {HOSTILE}", f"Hi {HOSTILE_BODY}", "a\r\nBcc: aa@bb.cc", "a\x00b", "a\u2028b"):
        with pytest.raises(Permanent):
            message(claimed(subject), settings)
    for to in (f"{VICTIM}\r\nBcc: aa@bb.cc", "=?x?q?=0A?=@bb.cc", "\x00@example.org", f"{HOSTILE} <{VICTIM}>"):
        with pytest.raises(Permanent):
            message(claimed("hello", to), settings)
    # the policy by itself, as the email package's own check of 3.13 does
    msg = EmailMessage(policy=POLICY)
    with pytest.raises(HeaderProblem):
        msg["Subject"] = HOSTILE
    ok = message(claimed("Bestätige deine Mailadresse " + "x" * 200), settings)  # long and not ASCII: folded, still sound
    assert_sound([VICTIM], bytes(ok), VICTIM)


def test_a_mail_that_cannot_be_sound_is_given_up_at_once(tmp_path: Path, smtp: Smtp) -> None:
    """Mail queued before addresses were checked (an address with a line break, a NUL, an
    encoded word) is not sent and not tried again; the mail after it is sent."""
    with make_client(tmp_path) as c:
        clock = with_clock(c)
        storage = mailer(c).storage
        bad = [f"{VICTIM}\r\nBcc: aa@bb.cc", "\x00@example.org", "=?x?q?=0A?=@example.org"]
        for i, to in enumerate(bad):
            storage.queue_mail(QueuedMail(f"test:bad{i}", None, "confirm", to, "hello", {"text": "hi"}, clock.t), clock.t)
        storage.queue_mail(QueuedMail("test:good", None, "confirm", VICTIM, "hello", {"text": "hi"}, clock.t + 1), clock.t)
        clock.t += 2
        drained(c)
        with storage.engine.connect() as conn:
            rows = {r.key: r for r in conn.execute(select(mail_queue))}
        for i in range(len(bad)):
            assert rows[f"test:bad{i}"].sent is None and rows[f"test:bad{i}"].attempts == MAX_ATTEMPTS
            assert rows[f"test:bad{i}"].failed == "not a mail address"
        assert rows["test:good"].sent is not None
    assert [rcpt for rcpt, _raw in smtp.inbox.raw] == [[VICTIM]]  # type: ignore[attr-defined]


def test_a_stored_address_that_is_not_one_is_never_mailed(tmp_path: Path, smtp: Smtp) -> None:
    """An address stored before addresses were checked as now: neither a reset nor an
    invitation is queued for it."""
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, VICTIM)
        post(c, "/api/account/notify", secret, json={"invitation": True})
        aid = get(c, "/api/account", secret).json()["account"]["id"]
        storage = mailer(c).storage
        with storage.engine.begin() as conn:
            conn.execute(update(accounts).where(accounts.c.id == aid).values(email=f"{VICTIM}\r\nBcc: aa@bb.cc"))
        post(c, "/api/mail/forgot", json={"who": "Anna"})
        hook = c.app.state.game_mail.notify_invited  # type: ignore[attr-defined]
        gid = post(c, "/api/games", json={"players": PLAYERS, "mode": "turn"}).json()["id"]
        assert c.portal.call(hook, aid, gid, 0, "Bert") is False  # type: ignore[attr-defined]
        drained(c)
        with storage.engine.connect() as conn:
            kinds = [r.kind for r in conn.execute(select(mail_queue))]
        assert kinds == ["confirm"]


# -- 4. how often an address is mailed ---------------------------------------------------


def set_email(c: TestClient, secret: str, addr: str) -> Any:
    return post(c, "/api/account/email", secret, json={"email": addr, "password": PW})


def test_four_accounts_cannot_mail_one_address_more_than_three_times_an_hour(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    """The issue's attack: four fresh accounts set the victim's address three times each.
    Three confirmations go out; the other nine are refused and change nothing."""
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        secrets_ = [sign_up(c, f"Mallory{i}") for i in range(4)]
        codes = [set_email(c, s, VICTIM).status_code for s in secrets_ for _ in range(3)]
        assert codes == [200] * 3 + [429] * 9
        for s in secrets_[1:]:
            assert get(c, "/api/account/email", s).json()["email"] is None  # refused: nothing stored
        drained(c)
        assert len(smtp.inbox.to(VICTIM)) <= 3
        assert mailer(c).storage.mail_sends_to(VICTIM, "confirm", 0.0) == 3


def test_an_address_budget_is_per_address_across_accounts_and_windows(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    """With each account's own budget out of the way: 3 an hour and 10 a day per address,
    whatever the case of its letters; the answer says how long to wait."""
    with make_client(tmp_path, db_url=db_url, guard=lenient(mail_account="1000/minute")) as c:
        clock = with_clock(c)
        start = clock.t
        secrets_ = [sign_up(c, f"Mallory{i}") for i in range(12)]
        spelled = [VICTIM, VICTIM.upper(), "Victim@Example.org"]
        sent, waits = 0, []
        for hour in range(4):
            clock.t = start + hour * 3601
            for k in range(4):
                r = set_email(c, secrets_[sent], spelled[k % 3])
                if r.status_code == 200:
                    sent += 1
                    continue
                assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
                waits.append(r.json()["error"]["params"]["retry"])
                break
        assert sent == 10  # 3, 3, 3, then 1: the day's 10
        # the hour's window, three times; then the day's, until the first three leave it
        assert all(3500 < w <= 3600 for w in waits[:3]) and 86400 - 3 * 3601 - 5 < waits[3] <= 86400 - 3 * 3601, waits
        clock.t = start + 4 * 3601
        r = set_email(c, secrets_[10], VICTIM)
        assert r.status_code == 429 and 3600 < r.json()["error"]["params"]["retry"] <= 86400
        assert set_email(c, secrets_[10], "someone.else@example.org").status_code == 200  # another address: its own budget
        clock.t = start + 86400 + 1  # the first hour's three left the day's window
        assert set_email(c, secrets_[11], VICTIM).status_code == 200
        drained(c)
        assert len(smtp.inbox.to(VICTIM)) + len(smtp.inbox.to(VICTIM.upper())) + len(smtp.inbox.to(spelled[2])) == 11


def test_an_address_budget_holds_across_two_servers_on_one_database(tmp_path: Path, pg: Any, smtp: Smtp) -> None:
    """Two server processes' apps on one PostgreSQL database share the count. (Only on
    PostgreSQL: several processes share a database there; SQLite serves one process by
    design, docs/host/postgresql.md, and two apps on one SQLite file under load failed it.)"""
    db_url = pg.new_database()
    guard = lenient(mail_account="1000/minute")
    with make_client(tmp_path, db_url=db_url, guard=guard) as a, make_client(tmp_path, db_url=db_url, guard=lenient()) as b:
        with_clock(a)
        with_clock(b)
        codes = []
        for i in range(6):
            c = (a, b)[i % 2]
            codes.append(set_email(c, sign_up(c, f"Mallory{i}"), VICTIM).status_code)
        assert codes == [200, 200, 200, 429, 429, 429]
        drained(a)
        drained(b)
        assert len(smtp.inbox.to(VICTIM)) == 3


def test_forgot_on_someones_name_never_spends_their_reset(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    """Someone asks for Anna's password again and again (from many client addresses): one
    reset mail per 30 minutes at most, and whenever Anna asks herself, a link that works is
    in her mailbox."""
    with make_client(tmp_path, db_url=db_url, guard=lenient(mail_forgot="1000/minute")) as c:
        clock = with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, VICTIM)
        start = clock.t
        for step in range(18):  # every 10 minutes for 3 hours, 5 requests each
            clock.t = start + step * 600
            for _ in range(5):
                assert post(c, "/api/mail/forgot", json={"who": "anna"}).json() == {"ok": True}
            drained(c)
        resets = smtp.inbox.to(VICTIM)[1:]
        assert 1 <= len(resets) <= 6  # at most one each 30 minutes (3 hours: 6)
        # Anna asks now: nothing new, but the last mail's link works
        clock.t += 60
        post(c, "/api/mail/forgot", json={"who": "Anna"})
        drained(c)
        assert len(smtp.inbox.to(VICTIM)) == 1 + len(resets)
        r = post(c, "/api/mail/reset", json={"token": link(resets[-1], "reset"), "password": PW2})
        assert r.status_code == 200, r.text
        # the link used, her next request is mailed at once
        post(c, "/api/mail/forgot", json={"who": VICTIM})
        drained(c)
        assert len(smtp.inbox.to(VICTIM)) == 2 + len(resets)


def test_a_reset_mail_is_not_repeated_while_its_link_works(tmp_path: Path, smtp: Smtp) -> None:
    with make_client(tmp_path, guard=lenient(mail_forgot="1000/minute")) as c:
        clock = with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, VICTIM)
        for _ in range(12):
            post(c, "/api/mail/forgot", json={"who": "Anna"})
        drained(c)
        assert len(smtp.inbox.to(VICTIM)) == 2
        first = link(smtp.inbox.to(VICTIM)[-1], "reset")
        clock.t += 30 * 60 + 1  # that link expired: the next request mails a new one
        post(c, "/api/mail/forgot", json={"who": "Anna"})
        drained(c)
        assert len(smtp.inbox.to(VICTIM)) == 3 and link(smtp.inbox.to(VICTIM)[-1], "reset") != first
        with mailer(c).storage.engine.connect() as conn:
            assert len(list(conn.execute(select(mail_tokens).where(mail_tokens.c.kind == "reset")))) == 1


# -- 7. ids parsed from text ---------------------------------------------------------------

HEX = "0" * 32
ODD_IDS = ["²", "٣", "9" * 40, "9" * 19, "01", "-1", "+1", " 1", "1 ", "1_0", "0x1", "１"]


def test_unsubscribe_tokens_with_odd_account_ids_are_refused(tmp_path: Path, smtp: Smtp) -> None:
    """``int("²")`` raised, and 40 nines overflowed SQLite's integer: a 500 each. Now a
    token's id is ASCII digits within a 64-bit integer, or the token is refused (4xx)."""
    with make_client(tmp_path) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        add_address(c, secret, smtp, VICTIM)
        for aid in [*ODD_IDS, "0", ""]:
            token = f"{aid}.turn.{HEX}"
            r = c.post("/api/mail/unsubscribe", params={"t": token}, content=b"List-Unsubscribe=One-Click")
            assert r.status_code in (400, 403), (aid, r.status_code)
            r = post(c, "/api/mail/unsubscribe", json={"token": token})
            assert r.status_code in (400, 403), (aid, r.status_code)
        for bad in ("1.turn." + HEX.upper(), "1.TURN." + HEX, "1.turn." + HEX + "\n", "1.nope." + HEX, "x" * 101):
            r = c.post("/api/mail/unsubscribe", params={"t": bad}, content=b"List-Unsubscribe=One-Click")
            assert r.status_code in (400, 403), (bad, r.status_code)


def test_other_ids_from_text_are_refused_not_crashed(tmp_path: Path) -> None:
    """Seat numbers as object keys, a seat in a query, a replay's step, a tutorial's step:
    odd digits and huge numbers are a 4xx (these were parsed strictly already)."""
    with make_client(tmp_path) as c:
        g = post(c, "/api/games", json={"players": PLAYERS}).json()
        gid, tok = g["id"], g["seats"][0]["token"]
        for odd in ODD_IDS:
            seats = {odd: tok}
            answers = [
                post(c, f"/api/games/{gid}/again", json={"seats": seats}),
                post(c, "/api/moderation/report", json={"game": gid, "line": 0, "reason": "x", "seats": seats}),
                post(c, "/api/account/signup", json={"name": "Odd", "password": PW, "held": {gid: seats}}),
                c.get(f"/api/games/{gid}/state", params={"seat": odd, "token": tok}),
                c.get(f"/api/games/{gid}/replay/{odd}"),
                c.get(f"/api/tutorial/{odd}"),
            ]
            assert all(400 <= r.status_code < 500 for r in answers), (odd, [r.status_code for r in answers])
            with c.websocket_connect(f"/ws/{gid}") as ws:
                ws.send_json({"type": "hello", "seats": seats})
                assert ws.receive_json()["type"] == "error"


# -- 11. addresses -----------------------------------------------------------------------

GOOD = [
    "anna@example.org",
    "anna.b+kardinal@mail.example.co.uk",
    "o'neil@example.org",
    "x_y-z@sub-domain.example",
    "a@b.xn--p1ai",
    "a@xn--bcher-kva.example",
    "{weird}!#$%&*/=^`|~?@example.org",
]
BAD = [
    "\x00@example.org",
    "an\x00na@example.org",
    "anna@example.org\r",
    "anna@example.org\n",
    "anna@exam\r\nple.org",
    "anna\r\nBcc: aa@bb.cc@example.org",
    "an\x7fna@example.org",
    "an\tna@example.org",
    "anna@example.org\t",
    "an\u200bna@example.org",  # a format character (Cf): zero width space
    "an\u202ena@example.org",  # a bidirectional override
    "an\u0085na@example.org",
    "ännä@example.org",
    "anna@exämple.org",
    "a" * 65 + "@example.org",
    "anna@" + "a" * 63 + "." + "b" * 63 + "." + "c" * 63 + "." + "d" * 60 + ".org",
    "anna@localhost",
    "anna@example",
    "anna@example.o",
    "anna@example.123",
    "anna@-example.org",
    "anna@example-.org",
    "anna@example..org",
    "anna@.example.org",
    "anna@@example.org",
    "anna@exa@mple.org",
    "@example.org",
    "anna@",
    ".anna@example.org",
    "anna.@example.org",
    "an..na@example.org",
    '"anna"@example.org',
    "anna@[192.0.2.1]",
    "=?x?q?=0A?=@example.org",
    "anna <anna@example.org>",
    "anna@example.org, eve@example.com",
    "an na@example.org",
]


def test_valid_address_takes_plain_addresses_only() -> None:
    assert all(valid_address(a) for a in GOOD), [a for a in GOOD if not valid_address(a)]
    assert not any(valid_address(a) for a in BAD), [a for a in BAD if valid_address(a)]
    controls = [chr(i) for i in range(0x110000) if unicodedata.category(chr(i)) in ("Cc", "Cf")][:400]
    assert not any(valid_address(f"an{ch}na@example.org") for ch in controls)
    longest = "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 58 + ".ee"
    too_long = "a" * 64 + "@" + "b" * 63 + "." + "c" * 63 + "." + "d" * 59 + ".ee"
    assert len(longest) == 254 and valid_address(longest) and len(too_long) == 255 and not valid_address(too_long)
    assert not valid_address(None) and not valid_address(b"anna@example.org")


def test_an_address_that_is_not_one_is_refused_and_nothing_is_stored(tmp_path: Path, db_url: str, smtp: Smtp) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        with_clock(c)
        secret = sign_up(c, "Anna")
        for bad in BAD:
            r = set_email(c, secret, bad)
            assert r.status_code == 400 and r.json()["error"]["code"] in ("bad_email", "malformed"), (bad, r.text)
        r = post(c, "/api/account/email", secret, json={"email": "a" * 300 + "@example.org", "password": PW})
        assert r.status_code == 400
        assert get(c, "/api/account/email", secret).json()["email"] is None
        storage = mailer(c).storage
        with storage.engine.connect() as conn:
            assert list(conn.execute(select(mail_queue))) == [] and list(conn.execute(select(mail_tokens))) == []
        assert set_email(c, secret, " anna@example.org ").status_code == 200  # spaces around it are not part of it
        assert get(c, "/api/account/email", secret).json()["email"] == "anna@example.org"
