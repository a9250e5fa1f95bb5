"""Web Push (issue 46): a notification on a device when it is the player's turn, when they
are invited, when a game ends, for the devices that asked for it on the account page.

- The installation's VAPID key (RFC 8292) is made once and kept in the database
  (``install_keys``: storage/push.py), so that every process signs with it; its public key
  is what the browser subscribes with (``GET /api/push``). The private key is never logged
  nor answered. The signature's ``sub`` (whom a push service may contact) is
  KARDINAL_PUSH_CONTACT, else ``mailto:`` KARDINAL_MAIL_FROM, else KARDINAL_PUBLIC_URL;
  without one, Web Push is off.
- A device subscribes with the push service's endpoint and its keys, and the kinds it
  wants (turn, invitation, end: as mail's); the subscription is the account's, per device.
- A push is a message of the mail queue (``channel = "push"``, one row per device and
  event, the key ``push:<event>:<subscription>``): queued once, claimed and marked sent as
  mail is (storage/mail.py), so a restart loses nothing and nothing goes twice. It is sent
  with ``pywebpush`` (RFC 8291, aes128gcm). A push service that answers 404 or 410 says
  the subscription is gone: it is deleted, and the row is not tried again; any other
  failure is tried again later, as mail's are (sender.py's BACKOFF and MAX_ATTEMPTS).
- The payload (JSON: ``title``, ``body``, ``tag``, ``url``) names the game by its other
  players in the device's language, and its ``url`` is ``/mail#open=<game>.<seat>``,
  which finds the seat through the session (no token in it). No hand, seed or token.
  The service worker (static/sw-push.js) shows it, one per game (``tag``), and a tap
  opens the URL.

Logged: a push's queue id, kind and outcome (the push service's HTTP status); never the
endpoint (it is the device's address) nor the payload.
"""

from __future__ import annotations

import asyncio
import base64
import ipaddress
import json
import logging
import time
from collections.abc import Callable
from typing import Any
from urllib.parse import urlsplit

import requests
from cryptography.hazmat.primitives.serialization import Encoding, PublicFormat
from py_vapid import Vapid02
from pywebpush import WebPushException, webpush

from ..common import metrics
from ..storage import Storage
from ..storage.mail import ClaimedMail, QueuedMail
from ..storage.push import PushSubscription
from .sender import BACKOFF, KEEP_SENT, LEASE, MAX_ATTEMPTS, MAX_BACKOFF, POLL, TIDY_EVERY, woken
from .texts import push_words

__all__ = ["Pusher", "run_push_sender", "send_due_push", "KINDS", "MAX_DEVICES"]

log = logging.getLogger("kardinal.mail")

KINDS = ("turn", "invitation", "end")
MAX_DEVICES = 20  # subscriptions per account (a new one beyond: refused)
PUSH_TIMEOUT = 30.0  # seconds for one push service's answer
PUSH_TTL = 86400  # seconds a push service keeps a push for a device that is off
GONE = (404, 410)  # the push service's answers for a subscription that is no more


def _local_host(host: str) -> bool:
    """A host name or address of this machine or a private network: "localhost", a name
    without a dot, or an address that is not global (127.0.0.1, 10.x, 169.254.x, ::1, ...).
    (A public name that resolves to such an address is not caught here.)"""
    try:
        return not ipaddress.ip_address(host).is_global
    except ValueError:
        return "." not in host or host == "localhost" or host.endswith((".localhost", ".local", ".internal"))


def _b64(data: bytes) -> str:
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode("ascii")


def _new_key() -> str:
    v = Vapid02()
    v.generate_keys()
    return bytes(v.private_pem()).decode("ascii")


class Pusher:
    """The Web Push of one server process: the queue's push messages, their sending, the
    installation's key (``sub``: the VAPID contact; None: Web Push is off)."""

    def __init__(self, storage: Storage, sub: str | None) -> None:
        self.storage = storage
        self.sub = sub
        self.now: Callable[[], float] = time.time
        self.endpoint_schemes: tuple[str, ...] = ("https",)  # a push service's address (tests add "http")
        # a push service on this host or its network (tests: theirs): never, or a browser's
        # subscription would make the server post to its neighbours (request forgery)
        self.local_endpoints = False
        self._vapid: Vapid02 | None = None
        self._wake = asyncio.Event()

    @property
    def enabled(self) -> bool:
        return self.sub is not None

    @property
    def reason(self) -> str:
        return (
            "Web Push is on"
            if self.enabled
            else "Web Push is off: no KARDINAL_PUSH_CONTACT, KARDINAL_MAIL_FROM or https KARDINAL_PUBLIC_URL"
        )

    def wake(self) -> None:
        self._wake.set()

    def vapid(self) -> Vapid02:
        """The installation's VAPID key (made and stored the first time; blocks: a thread)."""
        if self._vapid is None:
            pem = self.storage.install_key("vapid", _new_key, self.now())
            self._vapid = Vapid02.from_pem(pem.encode("ascii"))
        return self._vapid

    def public_key(self) -> str:
        """The key the browser subscribes with (``applicationServerKey``): the public
        point, uncompressed, base64url."""
        return _b64(self.vapid().public_key.public_bytes(Encoding.X962, PublicFormat.UncompressedPoint))

    def endpoint_ok(self, endpoint: str) -> bool:
        try:
            u = urlsplit(endpoint)
            u.port  # noqa: B018 - a port that is no number raises
        except ValueError:
            return False
        host = u.hostname or ""
        if not (u.scheme in self.endpoint_schemes and host and not u.username and not u.password):
            return False
        return self.local_endpoints or not _local_host(host)

    # -- queueing --------------------------------------------------------------------

    def message(self, event: str, sub: PushSubscription, kind: str, params: dict[str, Any], game_id: str, seat: int) -> QueuedMail:
        """The push of ``event`` (its mail's key, e.g. ``turn:<game>:<seat>:<n>``) to one
        device, in its language."""
        title, text = push_words(kind, sub.lang, params)
        payload = {"title": title, "body": text, "tag": f"game-{game_id}", "url": f"/mail#open={game_id}.{seat}"}
        return QueuedMail(f"push:{event}:{sub.id}", sub.account_id, kind, str(sub.id), "", payload, self.now(), channel="push")

    def queue(self, pushes: list[QueuedMail]) -> int:
        """Queue pushes (blocks: a thread); returns how many were new."""
        return sum(1 for p in pushes if self.storage.queue_mail(p, self.now()))


class _NoRedirects(requests.Session):
    """A push service's answer as it is: a redirect is not followed (it could lead to this
    host or its network, which endpoint_ok refuses; a push service never redirects)."""

    def post(self, *args: Any, **kwargs: Any) -> requests.Response:
        kwargs["allow_redirects"] = False
        return super().post(*args, **kwargs)


def send_one(pusher: Pusher, sub: PushSubscription, payload: dict[str, Any]) -> None:
    """Hand one push to the device's push service (blocks: a thread); WebPushException if it
    refuses (a redirect too: not followed)."""
    with _NoRedirects() as session:
        _push(pusher, sub, payload, session)


def _push(pusher: Pusher, sub: PushSubscription, payload: dict[str, Any], session: requests.Session) -> None:
    webpush(
        {"endpoint": sub.endpoint, "keys": {"p256dh": sub.p256dh, "auth": sub.auth}},
        json.dumps(payload, ensure_ascii=False),
        vapid_private_key=pusher.vapid(),
        vapid_claims={"sub": str(pusher.sub)},  # a new dict each time: webpush adds aud and exp to it
        timeout=PUSH_TIMEOUT,
        ttl=PUSH_TTL,
        requests_session=session,
    )


def _status(e: BaseException) -> int | None:
    response = getattr(e, "response", None)
    code = getattr(response, "status_code", None)
    return code if isinstance(code, int) else None


async def _send_claimed(pusher: Pusher, m: ClaimedMail) -> bool:
    """Send one claimed push; True if the push service is failing (the others wait)."""
    storage = pusher.storage
    sub = await asyncio.to_thread(storage.push_subscription, int(m.to_addr)) if m.to_addr.isdigit() else None
    if sub is None:  # unsubscribed since: nothing to send
        await asyncio.to_thread(storage.mail_sent, m.id, pusher.now())
        return False
    try:
        await asyncio.to_thread(send_one, pusher, sub, m.body)
    except Exception as e:  # noqa: BLE001 - a push service that fails: tried again later
        code = _status(e)
        what = f"{type(e).__name__} {code}" if code is not None else type(e).__name__
        if code in GONE:
            await asyncio.to_thread(storage.drop_push_subscription, sub.id)
            await asyncio.to_thread(storage.mail_failed, m.id, MAX_ATTEMPTS, pusher.now(), what)
            metrics.notification_failed("push", final=True)
            log.info("push %d (%s): the subscription is gone (%d), deleted", m.id, m.kind, code)
            return False
        attempts = m.attempts + 1
        wait = min(MAX_BACKOFF, BACKOFF * 2 ** (attempts - 1))
        await asyncio.to_thread(storage.mail_failed, m.id, attempts, pusher.now() + wait, what)
        metrics.notification_failed("push", final=attempts >= MAX_ATTEMPTS)
        if attempts >= MAX_ATTEMPTS:
            log.error("push %d (%s) not sent, given up after %d tries: %s", m.id, m.kind, attempts, what)
        else:
            log.warning("push %d (%s) not sent (%s); tried again in %d s", m.id, m.kind, what, wait)
        # a redirect or a 4xx is this push's own trouble (the others may go); anything else: the service's
        return not (isinstance(e, WebPushException) and code is not None and 300 <= code < 500)
    await asyncio.to_thread(storage.mail_sent, m.id, pusher.now())
    metrics.notification_sent("push")
    log.info("push %d (%s) sent", m.id, m.kind)
    return False


async def send_due_push(pusher: Pusher) -> int:
    """Send every push due now, one claimed at a time; returns how many were handed on
    (sent, or gone with their subscription)."""
    if not pusher.enabled:
        return 0
    done = 0
    while True:
        m = await asyncio.to_thread(pusher.storage.claim_mail, pusher.now(), LEASE, MAX_ATTEMPTS, "push")
        if m is None:
            return done
        if await _send_claimed(pusher, m):
            return done
        done += 1


async def run_push_sender(pusher: Pusher, stop: asyncio.Event, poll: float = POLL) -> None:
    """The push sender's loop: send what is due, then wait for a new push of this process
    (:meth:`Pusher.wake`), the next look (``poll``: another process's, a retry), or the end."""
    if not pusher.enabled:
        return
    tidied = 0.0
    while not stop.is_set():
        pusher._wake.clear()
        try:
            await send_due_push(pusher)
            if pusher.now() - tidied > TIDY_EVERY:  # rows sent long ago go (mail's too: one queue)
                tidied = pusher.now()
                await asyncio.to_thread(pusher.storage.forget_sent_mail, tidied - KEEP_SENT)
        except Exception as e:  # noqa: BLE001 - the database failed: the next look tries again
            log.error("the push queue cannot be read (%s)", type(e).__name__)
        await woken(stop, pusher._wake, poll)
