"""A push service for the tests (Web Push, issue 46): an HTTP server on this machine that
receives what the server pushes, decrypts it with the keys of a device the test made
(RFC 8291, aes128gcm, with ``http_ece``), checks the VAPID signature (RFC 8292: ES256 with
the key the request names, ``aud`` its own origin, ``exp`` within a day, ``sub``), and
answers as the test says (201 by default; 410, 503, ...)."""

from __future__ import annotations

import base64
import json
import os
import threading
import time
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import http_ece
from cryptography.hazmat.primitives import hashes
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat


def b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass
class Device:
    """A browser's subscription: its private key and auth secret stay with the test."""

    path: str
    key: ec.EllipticCurvePrivateKey = field(default_factory=lambda: ec.generate_private_key(ec.SECP256R1()))
    auth: bytes = field(default_factory=lambda: os.urandom(16))

    def keys(self) -> dict[str, str]:
        return {"p256dh": b64(self.key.public_key().public_bytes(Encoding.X962, PublicFormat.UncompressedPoint)), "auth": b64(self.auth)}


@dataclass
class Received:
    path: str
    at: float  # time.time() when it arrived
    payload: dict[str, Any]
    claims: dict[str, Any]
    vapid_key: str  # the k= of the Authorization header: the server's public key
    ttl: str | None


def check_vapid(authorization: str) -> tuple[dict[str, Any], str]:
    """The claims of a ``vapid t=<JWT>, k=<key>`` header, its ES256 signature checked."""
    assert authorization.startswith("vapid "), authorization
    parts = dict(p.strip().split("=", 1) for p in authorization[len("vapid ") :].split(","))
    head, body, sig = parts["t"].split(".")
    assert json.loads(unb64(head)) == {"typ": "JWT", "alg": "ES256"}
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64(parts["k"]))
    raw = unb64(sig)
    der = encode_dss_signature(int.from_bytes(raw[:32], "big"), int.from_bytes(raw[32:], "big"))
    public.verify(der, f"{head}.{body}".encode("ascii"), ec.ECDSA(hashes.SHA256()))  # raises if forged
    return json.loads(unb64(body)), parts["k"]


class PushService:
    """The push service: ``devices`` by their path; ``answers``: the statuses to answer
    next (then 201); ``received``: what it accepted, decrypted; ``refused``: paths it did
    not accept; ``errors``: pushes that failed its checks (answered 400)."""

    def __init__(self) -> None:
        self.devices: dict[str, Device] = {}
        self.answers: list[int] = []
        self.received: list[Received] = []
        self.refused: list[tuple[str, int]] = []
        self.errors: list[str] = []  # a push it could not decrypt or whose signature failed
        self.delay = 0.0  # seconds it takes over each push (a slow service)
        self.lock = threading.Lock()
        service = self

        class Handler(BaseHTTPRequestHandler):
            def do_POST(self) -> None:  # noqa: N802 - http.server's name
                body = self.rfile.read(int(self.headers.get("Content-Length", "0")))
                status = service.take(self.path, {k.lower(): v for k, v in self.headers.items()}, body)
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args: Any) -> None:
                pass

        self.handler = Handler
        self.server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self.port = int(self.server.server_address[1])
        self.origin = f"http://127.0.0.1:{self.port}"
        self.serve()

    def serve(self) -> None:
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def down(self) -> None:
        """Nothing listens: a connection is refused."""
        self.close()

    def up(self) -> None:
        """Listening again, on the same port."""
        self.server = ThreadingHTTPServer(("127.0.0.1", self.port), self.handler)
        self.serve()

    def device(self, name: str) -> Device:
        d = self.devices[name] = Device(f"/push/{name}")
        return d

    def endpoint(self, d: Device) -> str:
        return self.origin + d.path

    def take(self, path: str, headers: dict[str, str], body: bytes) -> int:
        if self.delay:
            time.sleep(self.delay)
        with self.lock:
            status = self.answers.pop(0) if self.answers else 201
            if status >= 300:
                self.refused.append((path, status))
                return status
        try:
            d = next(d for d in self.devices.values() if d.path == path)
            assert headers.get("content-encoding") == "aes128gcm", headers
            claims, k = check_vapid(headers["authorization"])
            plain = http_ece.decrypt(body, private_key=d.key, auth_secret=d.auth, version="aes128gcm")
        except Exception as e:  # noqa: BLE001 - the test looks at errors
            with self.lock:
                self.errors.append(f"{path}: {type(e).__name__} {e}")
            return 400
        with self.lock:
            self.received.append(Received(path, time.time(), json.loads(plain), claims, k, headers.get("ttl")))
        return status

    def to(self, d: Device) -> list[Received]:
        with self.lock:
            return [r for r in self.received if r.path == d.path]

    def wait(self, d: Device, n: int = 1, timeout: float = 30.0) -> list[Received]:
        """The pushes to ``d`` once there are ``n`` (a generous limit: not a speed test)."""
        end = time.monotonic() + timeout
        while len(self.to(d)) < n:
            assert time.monotonic() < end, f"{n} push(es) to {d.path} did not arrive; got {len(self.to(d))}; errors: {self.errors}"
            time.sleep(0.02)
        return self.to(d)

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()
