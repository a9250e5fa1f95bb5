"""Web Push (kardinal.server.mail.push, issue 46) against a push service run by the test
(push_service.py: it decrypts each push with the device's keys, RFC 8291, and checks its
VAPID signature): a device subscribes and unsubscribes, the turn's push arrives after the
move that made it due (decrypted: the game named by its players, a link to the seat, no
hand, seed or token), 404/410 drop the subscription, other failures are tried again, a
restart loses and doubles nothing, the key is made once per installation, deleting the
account deletes the subscriptions, and the export lists them without their secrets.

Time for the retries is the pusher's clock (``Pusher.now``), set by the tests."""

from __future__ import annotations

import json
import logging
import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from push_service import Device, PushService
from sqlalchemy import select
from test_web_mail import PW, Clock, play_turn, post, sign_up, turn_game
from web_helpers import make_client, wait_for_person

from kardinal.server.community.account_routes import COOKIE
from kardinal.server.mail.push import MAX_DEVICES, Pusher, send_due_push
from kardinal.server.storage.schema import install_keys, mail_queue, push_subscriptions

CONTACT = "mailto:push@example.org"

pytestmark = pytest.mark.usefixtures("cheap_hashes")


@pytest.fixture
def service(monkeypatch: pytest.MonkeyPatch) -> Iterator[PushService]:
    """The push service, and the server's Web Push contact (Web Push on, e-mail off)."""
    monkeypatch.setenv("KARDINAL_PUSH_CONTACT", CONTACT)
    s = PushService()
    yield s
    s.close()


def pusher(c: TestClient) -> Pusher:
    p: Pusher = c.app.state.pusher  # type: ignore[attr-defined]
    return p


def local(c: TestClient, delay: float | None = 0.0) -> Clock:
    """The app takes the test's push service (http on this machine) and the test's clock;
    ``delay``: the turn's wait before it is queued (None: the server's own)."""
    p = pusher(c)
    p.endpoint_schemes = ("https", "http")
    p.local_endpoints = True  # the test's push service, on this machine
    clock = Clock()
    p.now = clock
    if delay is not None:
        c.app.state.game_mail.delay = delay  # type: ignore[attr-defined]
    return clock


def subscribe(c: TestClient, secret: str, service: PushService, d: Device, lang: str = "en", **kinds: bool) -> Any:
    r = post(c, "/api/account/push", secret, json={"endpoint": service.endpoint(d), "keys": d.keys(), "lang": lang, **kinds})
    assert r.status_code == 200, r.text
    return r.json()


def queue_rows(c: TestClient) -> list[Any]:
    with pusher(c).storage.engine.connect() as conn:
        return list(conn.execute(select(mail_queue).where(mail_queue.c.channel == "push").order_by(mail_queue.c.id)))


def settle(c: TestClient) -> None:
    """Let the queued work finish: the background look-ups, then a look at the queue."""
    for _ in range(3):
        pusher(c).wake()
        time.sleep(0.3)


def test_a_device_subscribes_and_unsubscribes(tmp_path: Path, db_url: str, service: PushService) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        local(c)
        on = c.get("/api/push").json()
        assert on["enabled"] is True and len(on["key"]) == 87  # a P-256 point, uncompressed, base64url
        anna = sign_up(c, "Anna")
        phone, laptop = service.device("phone"), service.device("laptop")
        body = {"endpoint": service.endpoint(phone), "keys": phone.keys(), "turn": True}
        assert post(c, "/api/account/push", json=body).status_code == 401  # signed in only
        assert subscribe(c, anna, service, phone, turn=True, end=True) == {
            "enabled": True,
            "subscribed": True,
            "notify": {"turn": True, "invitation": False, "end": True},
        }
        # per device: the laptop has none; asking about it says so
        r = post(c, "/api/account/push/device", anna, json={"endpoint": service.endpoint(laptop)})
        assert r.json()["subscribed"] is False
        assert post(c, "/api/account/push/device", anna, json={"endpoint": service.endpoint(phone)}).json()["notify"]["end"] is True
        # another account does not see the phone's subscription
        ben = sign_up(c, "Ben")
        assert post(c, "/api/account/push/device", ben, json={"endpoint": service.endpoint(phone)}).json()["subscribed"] is False
        # all off: the subscription goes
        assert subscribe(c, anna, service, phone)["subscribed"] is False
        subscribe(c, anna, service, phone, invitation=True)
        r = post(c, "/api/account/push/remove", anna, json={"endpoint": service.endpoint(phone)})
        assert r.status_code == 200 and r.json()["subscribed"] is False
        assert pusher(c).storage.push_subscriptions_of(1) == []
        # bad input: refused, nothing stored
        for bad in (
            {**body, "endpoint": "ftp://127.0.0.1/x"},
            {**body, "endpoint": "http://127.0.0.1:1ftp/x"},
            {**body, "endpoint": "http://user:pw@127.0.0.1/x"},
            {**body, "keys": {"p256dh": "x", "auth": "y"}},
            {**body, "extra": 1},
        ):
            assert post(c, "/api/account/push", anna, json=bad).status_code == 400
        pusher(c).endpoint_schemes = ("https",)  # as the server has it: https only, no local hosts
        pusher(c).local_endpoints = False
        r = post(c, "/api/account/push", anna, json=body)
        assert r.status_code == 400 and r.json()["error"]["code"] == "bad_endpoint"
        # nor a host of its own machine or network: the server would post there for anyone
        for host in ("127.0.0.1", "[::1]", "localhost", "10.1.2.3", "169.254.169.254", "192.168.0.1", "db", "x.internal"):
            r = post(c, "/api/account/push", anna, json={**body, "endpoint": f"https://{host}/push/x"})
            assert r.status_code == 400 and r.json()["error"]["code"] == "bad_endpoint", host
        assert pusher(c).storage.push_subscriptions_of(1) == []


def test_at_most_so_many_devices(tmp_path: Path, service: PushService) -> None:
    with make_client(tmp_path) as c:
        local(c)
        anna = sign_up(c, "Anna")
        devices = [service.device(f"d{i}") for i in range(MAX_DEVICES + 1)]
        for d in devices[:MAX_DEVICES]:
            subscribe(c, anna, service, d, turn=True)
        body = {"endpoint": service.endpoint(devices[-1]), "keys": devices[-1].keys(), "turn": True}
        r = post(c, "/api/account/push", anna, json=body)
        assert r.status_code == 409 and r.json()["error"]["code"] == "too_many_devices"
        subscribe(c, anna, service, devices[0], turn=True, end=True)  # one it has: changed as ever


def test_the_turns_push_arrives_decrypted_and_opens_the_seat(tmp_path: Path, db_url: str, service: PushService, capsys: Any) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        local(c, delay=None)  # the server's own wait before a turn's push
        anna = sign_up(c, "Anna")
        phone, tablet = service.device("phone"), service.device("tablet")
        subscribe(c, anna, service, phone, lang="de", turn=True)
        subscribe(c, anna, service, tablet, end=True)  # the tablet wants the end only
        gid, tok = turn_game(c, anna)
        msg = wait_for_person(c, gid, {0: tok})
        (push,) = service.wait(phone)
        # the delay from the move that made it due (the game's last change) to the push service
        row = pusher(c).storage.get_game(gid)
        assert row is not None
        due = row.updated
        with capsys.disabled():
            print(f"\nthe turn's push arrived {push.at - due:.2f} s after the move that made it due")
        assert service.errors == []
        assert push.payload == {
            "title": "Du bist dran",
            "body": "Dein Spiel gegen B1 und B2 wartet auf deinen Zug.",
            "tag": f"game-{gid}",
            "url": f"/mail#open={gid}.0",
        }
        # the signature: this service's origin, a day at most, the installation's contact and key
        assert push.claims["aud"] == service.origin and push.claims["sub"] == CONTACT
        assert time.time() < push.claims["exp"] <= time.time() + 86400
        assert push.vapid_key == c.get("/api/push").json()["key"]
        # nothing hidden: no seat token, no hand, no seed (the payload is the four fields above)
        text = json.dumps(push.payload)
        assert tok not in text and str(row.seed) not in text
        for card in msg["view"]["hand"]:
            assert json.dumps(card) not in text
        # the link opens the seat through the session: no token in it
        r = post(c, "/api/account/seat", anna, json={"game": gid, "seat": 0})
        assert r.status_code == 200
        assert service.to(tablet) == []
        # sent: the row keeps its key only
        (row,) = queue_rows(c)
        assert row.sent is not None and row.body == "{}" and row.key.startswith(f"push:turn:{gid}:0:")
        # once seat 0 has moved and the turn comes back: the next push; never two of one turn
        play_turn(c, gid, tok, random.Random(3))
        wait_for_person(c, gid, {0: tok})
        service.wait(phone, 2)
        settle(c)
        assert len(service.to(phone)) == 2 and len({r.key for r in queue_rows(c)}) == 2


def test_a_gone_subscription_is_dropped_and_a_failing_service_tried_again(tmp_path: Path, db_url: str, service: PushService) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        clock = local(c)
        anna = sign_up(c, "Anna")
        phone, old = service.device("phone"), service.device("old")
        subscribe(c, anna, service, old, turn=True)
        subscribe(c, anna, service, phone, turn=True)
        service.answers = [410, 503]  # the old device is gone; the service fails for the phone once
        gid, tok = turn_game(c, anna)
        wait_for_person(c, gid, {0: tok})
        end = time.monotonic() + 30
        while len(service.refused) < 2 or any(r.attempts == 0 for r in queue_rows(c)):
            assert time.monotonic() < end, (service.refused, queue_rows(c))
            time.sleep(0.05)
        assert sorted(service.refused) == [("/push/old", 410), ("/push/phone", 503)]
        assert [s.endpoint for s in pusher(c).storage.push_subscriptions_of(1)] == [service.endpoint(phone)]
        gone, failed = sorted(queue_rows(c), key=lambda r: r.to_addr != "1")
        assert gone.failed == "WebPushException 410" and gone.sent is None
        assert failed.failed == "WebPushException 503" and failed.attempts == 1 and failed.send_after >= clock.t + 59
        # a minute on: the phone's is sent; the gone one is not tried again
        clock.t += 61
        pusher(c).wake()
        (push,) = service.wait(phone)
        settle(c)
        assert service.to(phone) == [push] and sorted(service.refused) == [("/push/old", 410), ("/push/phone", 503)]
        assert service.errors == []


def test_a_restart_loses_and_doubles_nothing_and_keeps_the_key(tmp_path: Path, db_url: str, service: PushService) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        clock = local(c)
        key = c.get("/api/push").json()["key"]
        anna = sign_up(c, "Anna")
        phone = service.device("phone")
        subscribe(c, anna, service, phone, turn=True)
        service.down()  # the push service is down: nothing answers
        gid, tok = turn_game(c, anna)
        wait_for_person(c, gid, {0: tok})
        end = time.monotonic() + 30
        while not (rows := queue_rows(c)) or rows[0].attempts < 1:
            assert time.monotonic() < end
            time.sleep(0.05)
        assert rows[0].sent is None and rows[0].failed == "ConnectionError"
        later = clock.t + 120
    service.up()
    with make_client(tmp_path, db_url=db_url) as c:
        clock = local(c)
        clock.t = later
        assert c.get("/api/push").json()["key"] == key  # the installation's key, kept in its database
        pusher(c).wake()
        service.wait(phone)
        settle(c)
        assert len(service.to(phone)) == 1 and service.errors == []
        with pusher(c).storage.engine.connect() as conn:
            assert conn.execute(select(install_keys.c.name)).scalars().all() == ["vapid"]


def test_the_end_and_an_invitation_are_pushed_to_the_devices_that_want_them(tmp_path: Path, service: PushService) -> None:
    with make_client(tmp_path) as c:
        local(c)
        anna = sign_up(c, "Anna")
        phone = service.device("phone")
        subscribe(c, anna, service, phone, end=True, invitation=True)
        gm = c.app.state.game_mail  # type: ignore[attr-defined]
        gid, tok = turn_game(c, anna)
        c.portal.call(gm.notify_invited, 1, gid, 0, "Ben")  # type: ignore[union-attr]
        c.portal.call(gm.notify_invited, 1, gid, 0, "Ben")  # type: ignore[union-attr]
        (push,) = service.wait(phone)
        assert push.payload["title"] == "An invitation"
        assert push.payload["body"] == "Ben invites you to a game against B1 and B2."
        assert push.payload["url"] == f"/mail#open={gid}.0"
        rng = random.Random(5)
        while c.get(f"/api/games/{gid}").json()["status"] != "finished":
            play_turn(c, gid, tok, rng)
        end = service.wait(phone, 2)[1]
        assert end.payload["title"] == "Game over" and end.payload["body"].startswith("Your game against B1 and B2 is over. You ")
        settle(c)
        assert len(service.to(phone)) == 2 and service.errors == []


def test_deleting_the_account_deletes_its_subscriptions_and_the_export_lists_them(
    tmp_path: Path, db_url: str, service: PushService, caplog: pytest.LogCaptureFixture
) -> None:
    caplog.set_level(logging.DEBUG)
    with make_client(tmp_path, db_url=db_url) as c:
        local(c)
        anna = sign_up(c, "Anna")
        phone = service.device("phone")
        subscribe(c, anna, service, phone, lang="de", turn=True)
        c.cookies.set(COOKIE, anna)
        r = c.get("/api/account/data")
        c.cookies.clear()
        assert r.status_code == 200, r.text
        data = r.json()
        assert data["push"] == [{"service": "127.0.0.1", "created": data["push"][0]["created"], "notify": ["turn"], "lang": "de"}]
        assert service.endpoint(phone) not in r.text and phone.keys()["auth"] not in r.text
        r = post(c, "/api/account/delete", anna, json={"password": PW})
        assert r.status_code == 200, r.text
        with pusher(c).storage.engine.connect() as conn:
            assert conn.execute(select(push_subscriptions)).all() == []
        # the private key is in no log nor answer
        answer = c.get("/api/push").text
        storage = pusher(c).storage
        with storage.engine.connect() as conn:
            pem = conn.execute(select(install_keys.c.value)).scalar_one()
        body = pem.split("-----")[2].strip().splitlines()[0]
        assert body not in caplog.text and body not in answer
        assert service.endpoint(phone) not in caplog.text


def test_two_processes_send_each_push_once(pg: Any, service: PushService) -> None:
    """Two senders (as of two processes: each its own Storage) on one PostgreSQL database
    send a queue of pushes to a slow push service: each arrives once, and both took part."""
    import asyncio

    from kardinal.server.storage import Storage

    url = str(pg.new_database())
    stores = [Storage(url), Storage(url)]
    try:
        account = stores[0].create_account("Anna", "anna", "$argon2id$x", 1.0)
        assert account is not None
        phone = service.device("phone")
        keys = phone.keys()
        sub = stores[0].save_push_subscription(account.id, service.endpoint(phone), keys["p256dh"], keys["auth"], ["turn"], "en", 1.0)
        senders = [Pusher(st, CONTACT) for st in stores]
        for p in senders:
            p.endpoint_schemes = ("http",)
            p.local_endpoints = True
        n = 30
        pushes = [senders[0].message(f"turn:g{i}:0:0", sub, "turn", {"others": f"game {i}", "deadline": ""}, f"g{i}", 0) for i in range(n)]
        senders[0].queue(pushes)
        senders[1].queue(pushes)  # the same events seen by the other process: one row each (the key)
        with stores[0].engine.connect() as conn:
            assert len(conn.execute(select(mail_queue.c.key).where(mail_queue.c.channel == "push")).all()) == n
        service.delay = 0.05

        async def both() -> list[int]:
            return list(await asyncio.gather(*(send_due_push(p) for p in senders)))

        sent = asyncio.run(both())
        assert sum(sent) == n and all(k > 0 for k in sent), sent
        bodies = sorted(r.payload["body"] for r in service.to(phone))
        assert bodies == sorted(f"Your game against game {i} waits for your move." for i in range(n)) and service.errors == []
    finally:
        for st in stores:
            st.close()
