"""Web Push against an attacker with an account (issue 46 follow-up): a subscription whose
key is no P-256 point (every push to it failed in the sender, holding up everyone's), and
a push service that redirects (the server followed it: to this host or its network,
which the subscription's own address may not name)."""

from __future__ import annotations

import base64
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from push_service import PushService
from test_web_mail import post, sign_up, turn_game
from test_web_push import local, pusher, queue_rows, service, subscribe  # noqa: F401 - service: the fixture
from web_helpers import make_client, wait_for_person


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def test_keys_that_are_no_p256_point_or_secret_are_refused(tmp_path: Path, service: PushService) -> None:  # noqa: F811
    with make_client(tmp_path) as c:
        local(c)
        anna = sign_up(c, "Anna")
        d = service.device("phone")
        good = d.keys()
        for keys in (
            {**good, "p256dh": b64(b"\x04" + bytes(64))},  # 65 bytes, not on the curve
            {**good, "p256dh": b64(b"\x04" + b"\x01" * 64)},
            {**good, "p256dh": b64(b"\x05" + bytes(64))},  # not an uncompressed point
            {**good, "p256dh": b64(bytes(64))},  # 64 bytes
            {**good, "auth": b64(bytes(17))},  # 17 bytes
        ):
            r = post(c, "/api/account/push", anna, json={"endpoint": service.endpoint(d), "keys": keys, "turn": True})
            assert r.status_code == 400 and r.json()["error"]["code"] == "malformed", (keys, r.text)
        assert pusher(c).storage.push_subscriptions_of(1) == []
        subscribe(c, anna, service, d, turn=True)  # the device's own keys: taken
        assert len(pusher(c).storage.push_subscriptions_of(1)) == 1


class Redirector:
    """A "push service" that answers every push with a redirect (307: keep the POST) to
    ``to``; ``hits`` counts them."""

    def __init__(self, to: str) -> None:
        self.hits = 0
        outer = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                self.rfile.read(int(self.headers.get("Content-Length", "0")))
                outer.hits += 1
                self.send_response(307)
                self.send_header("Location", to)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.url = f"http://127.0.0.1:{self.server.server_address[1]}/push/r"
        import threading

        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def test_a_push_service_that_redirects_is_not_followed(tmp_path: Path, service: PushService) -> None:  # noqa: F811
    """A push to a subscription whose service redirects (here to the test's push service, a
    stand-in for an address of the server's network) goes no further: the push fails
    (a redirect: its own trouble, the others go on) and nothing reaches where it pointed."""
    inner = service.device("inner")  # where the redirect points: must never get a request
    r = Redirector(service.endpoint(inner))
    try:
        with make_client(tmp_path) as c:
            local(c)
            anna = sign_up(c, "Anna")
            res = post(c, "/api/account/push", anna, json={"endpoint": r.url, "keys": inner.keys(), "turn": True})
            assert res.status_code == 200, res.text
            phone = service.device("phone")
            subscribe(c, anna, service, phone, turn=True)
            gid, tok = turn_game(c, anna)
            wait_for_person(c, gid, {0: tok})
            service.wait(phone)  # the other device's push went (the redirect held nothing up)
            end = time.monotonic() + 30
            while not any(row.failed for row in queue_rows(c)):
                assert time.monotonic() < end, queue_rows(c)
                time.sleep(0.05)
            assert r.hits == 1
            assert service.to(inner) == [] and service.errors == []
            (failed,) = [row for row in queue_rows(c) if row.failed]
            assert failed.failed == "WebPushException 307" and failed.sent is None
    finally:
        r.close()
