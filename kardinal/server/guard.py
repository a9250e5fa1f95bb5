"""Rate limits per client address (moving windows, the ``limits`` library).

- ``create``: new games, 30 a minute (a person creates a few; a script thousands).
- ``claim``: seats taken from the lobby, 20 a minute.
- ``chat``: chat lines, 3 a second and 30 a minute.
- ``signup``: new accounts, 5 a minute and 20 an hour.
- ``signin``: sign-ins, 10 a minute and 100 an hour (every try of an address).
- ``signin_name``: failed sign-ins of one name (from any address), 5 a minute and 20 an
  hour; over it, that name's sign-ins wait (also with the right password: a guesser
  spread over many addresses tries a name a few times an hour). Counted by the name's
  key (names.name_key), not by address. A try takes its unit before its password is
  verified (:meth:`Guard.take`; given back if it succeeds), so that tries at once keep
  to the budget too.
- ``signin_device``: failed sign-ins from a browser that signed in to the account before
  (it holds the account's device mark, accounts.device_mark), per browser, 5 a minute and
  20 an hour: such a browser's tries count here instead of the name's, so that someone
  failing on purpose with the name elsewhere does not lock its owner out.
- ``seat_key``: seats' tokens handed to an account's devices, 60 a minute per account.
- ``invite``: names invited to seats (each looks up whether an account has the name), 20
  a minute and 100 an hour per account.
- ``follow``: follows and unfollows, 30 a minute and 300 an hour per account.
- ``report``: chat lines reported, 10 an hour.
- ``mail_forgot``: "Forgot the password?" per address, 5 a minute and 20 an hour.
- ``mail_account``, ``mail_address``: mails of a new password or an address's
  confirmation per account and per mail address, 3 an hour and 10 a day; over it, no mail
  (quietly: the answer to "Forgot the password?" is the same).
- ``bad_token``: wrong seat tokens, 5 a second and 60 a minute. Once an address is over,
  every token it sends is refused (``rate_limited``) until the window has room again, so
  guessing a token runs at a few tries per second whatever the protocol (HTTP or
  WebSocket). Right tokens cost nothing.

``KARDINAL_RATE_LIMITS`` changes them ("create=1000/minute,claim=50/minute"), for example
for a load test from one address. An address is the connection's peer, or behind a
reverse proxy the address it forwards: ``kardinal serve`` trusts ``X-Forwarded-For``
from the addresses in ``--forwarded-allow-ips`` (default 127.0.0.1), so
that it is the player's and not the proxy's (tests/test_web_nginx.py).
"""

from __future__ import annotations

import os
import time

from limits import RateLimitItem, parse_many, storage, strategies

from .refusal import Refused

__all__ = ["Guard", "RULES"]

DEFAULTS = {
    "create": "30/minute",
    "claim": "20/minute",
    "bad_token": "5/second;60/minute",
    "chat": "3/second;30/minute",
    "signup": "5/minute;20/hour",
    "signin": "10/minute;100/hour",
    "signin_name": "5/minute;20/hour",
    "signin_device": "5/minute;20/hour",
    "seat_key": "60/minute",
    "invite": "20/minute;100/hour",
    "follow": "30/minute;300/hour",
    "report": "10/hour",
    "mail_forgot": "5/minute;20/hour",
    "mail_account": "3/hour;10/day",
    "mail_address": "3/hour;10/day",
}


def rules_from(text: str | None) -> dict[str, list[RateLimitItem]]:
    """The limits, the defaults changed by ``text`` ("create=1000/minute,claim=50/minute";
    the environment's KARDINAL_RATE_LIMITS, e.g. for a load test from one address)."""
    spec = dict(DEFAULTS)
    for part in (text or "").split(","):
        if part.strip():
            kind, _, limits = part.partition("=")
            if kind.strip() not in DEFAULTS or not limits.strip():
                raise ValueError(f"KARDINAL_RATE_LIMITS: {part!r}; kinds: {', '.join(DEFAULTS)}, e.g. create=100/minute")
            spec[kind.strip()] = limits.strip()
    return {k: parse_many(v) for k, v in spec.items()}


RULES: dict[str, list[RateLimitItem]] = rules_from(None)


class Guard:
    def __init__(self, rules: dict[str, list[RateLimitItem]] | None = None) -> None:
        # the defaults for any kind ``rules`` does not name
        self.rules = {**RULES, **rules} if rules is not None else rules_from(os.environ.get("KARDINAL_RATE_LIMITS"))
        self.limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())
        # when each (kind, address) was last counted: one counted nothing within its longest
        # window is under every limit, and is not looked up (the check of every move was a
        # twentieth of the server's time per move)
        self._last: dict[tuple[str, str], float] = {}
        self._prune_at = 10_000  # its size at which those whose windows have passed are dropped
        self._window = {k: max(r.get_expiry() for r in rs) for k, rs in self.rules.items()}
        self._taken: dict[tuple[str, str], int] = {}  # units taken and not yet given back or noted

    def _refuse(self, kind: str, addr: str) -> Refused:
        stats = [self.limiter.get_window_stats(r, kind, addr) for r in self.rules[kind]]
        reset = max((s.reset_time for s in stats if s.remaining <= 0), default=time.time())
        wait = max(1, int(reset - time.time() + 0.999))
        return Refused("rate_limited", f"too many requests; try again in {wait} s", 429, retry=wait)

    def _counted(self, kind: str, addr: str) -> None:
        now = time.monotonic()
        if len(self._last) > self._prune_at:  # forget those whose windows have passed
            self._last = {k: t for k, t in self._last.items() if now - t <= self._window[k[0]]}
            # many addresses all within their windows: the next look after as many again (a
            # look per request would cost each request the whole table)
            self._prune_at = max(10_000, 2 * len(self._last))
        self._last[(kind, addr)] = now

    def spend(self, kind: str, addr: str) -> None:
        """Count one request of ``kind`` from ``addr``; Refused ``rate_limited`` when over."""
        self._counted(kind, addr)
        if not all(self.limiter.hit(r, kind, addr) for r in self.rules[kind]):
            raise self._refuse(kind, addr)

    def check(self, kind: str, addr: str) -> None:
        """Refused ``rate_limited`` if ``addr`` is over its ``kind`` budget (counts nothing)."""
        last = self._last.get((kind, addr))
        if last is None or time.monotonic() - last > self._window[kind]:
            return
        if not all(self.limiter.test(r, kind, addr) for r in self.rules[kind]):
            raise self._refuse(kind, addr)

    def note(self, kind: str, addr: str) -> None:
        """Count one (e.g. a wrong token) without refusing this one."""
        self._counted(kind, addr)
        for r in self.rules[kind]:
            self.limiter.hit(r, kind, addr)

    def take(self, kind: str, addr: str) -> None:
        """Take one unit of ``addr``'s ``kind`` budget before an attempt whose outcome is
        not known yet (a password being verified); Refused ``rate_limited`` when the budget
        counted and the units taken are all used. Each take is ended by :meth:`give_back`
        (the attempt succeeded: it counts nothing) or :meth:`settle` (it failed: counted).
        Called on the event loop: no other take comes between the look and the count."""
        held = self._taken.get((kind, addr), 0)
        last = self._last.get((kind, addr))
        if last is not None and time.monotonic() - last <= self._window[kind]:
            if any(self.limiter.get_window_stats(r, kind, addr).remaining - held <= 0 for r in self.rules[kind]):
                raise self._refuse(kind, addr)
        elif any(r.amount - held <= 0 for r in self.rules[kind]):
            raise Refused("rate_limited", "too many requests; try again in 1 s", 429, retry=1)
        self._taken[(kind, addr)] = held + 1

    def give_back(self, kind: str, addr: str) -> None:
        """A unit :meth:`take` took is not spent (the attempt succeeded)."""
        held = self._taken.get((kind, addr), 0) - 1
        if held > 0:
            self._taken[(kind, addr)] = held
        else:
            self._taken.pop((kind, addr), None)

    def settle(self, kind: str, addr: str) -> None:
        """A unit :meth:`take` took is spent (the attempt failed): counted as :meth:`note` does."""
        self.give_back(kind, addr)
        self.note(kind, addr)
