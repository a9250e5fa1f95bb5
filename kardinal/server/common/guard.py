"""Rate limits per client address, name or account.

One process (SQLite, single-process by design) counts in memory, in moving windows (the
``limits`` library). Several processes on one PostgreSQL database count in the database
instead (:meth:`Guard.share`, storage/limits.py), so that every budget holds across them
and not once per process: each count is one atomic statement that returns the new count
(a round trip), in fixed windows (each minute, hour, day of the clock, counted from the
Unix epoch; at a window's turn a budget may pass up to twice in a short time). If the
database fails, each process counts in memory (asking it again every RETRY seconds): the
budget of each process still holds.
A process learns another's counts as it counts itself: a check that counts nothing
(:meth:`Guard.check`) looks at the counts this process last saw, so an address over a
budget through another process may get one more try here before it is refused (wrong
tokens: one a process). :meth:`Guard.take` (a password being verified) counts in the
database before the verify: tries at once through any number of processes keep to the
budget exactly. A sign-in counts its address's try and its name's unit in one statement
(:meth:`Guard.spend_and_take`).

- ``create``: new games, 30 a minute (a person creates a few; a script thousands).
- ``claim``: seats taken from the lobby, 20 a minute.
- ``chat``: chat lines, 3 a second and 30 a minute.
- ``signup``: new accounts, 5 a minute and 20 an hour.
- ``signin``: sign-ins, 10 a minute and 100 an hour (every try of an address).
- ``signin_name``: failed sign-ins of one name (from any address), 5 a minute and 20 an
  hour; over it, that name's sign-ins wait (also with the right password: a guesser
  spread over many addresses tries a name a few times an hour). Counted by the name's
  account key (names.account_keys: look-alike names share it), not by address. A try takes its unit before its password is
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
- ``mail_account``: mails confirming an address, per account, 3 an hour and 10 a day.
- ``mail_address``: mails confirming an address, per address across all accounts, 3 an
  hour and 10 a day, counted in the database (mail_sends) by the mail module, not here:
  over it, the address is refused (``rate_limited``). A new password's mail is not
  counted here: an account has one working reset link at a time, and none is mailed while
  it works (kardinal.server.mail.mailer), so nobody spends its owner's budget.
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

import logging
import math
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from limits import RateLimitItem, parse_many, storage, strategies

from . import metrics
from .refusal import Refused

log = logging.getLogger("kardinal.web")

__all__ = ["Guard", "RULES", "Counts"]

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


def _refusal(kind: str, wait: int) -> Refused:
    """The refusal of a request over its ``kind`` budget (counted in the metrics): wait ``wait`` seconds."""
    metrics.rate_limited(kind)
    return Refused("rate_limited", f"too many requests; try again in {wait} s", 429, retry=wait)


class Counts(Protocol):
    """Where the counts of several processes meet (Storage on PostgreSQL: storage/limits.py)."""

    def count_rates(self, windows: Sequence[tuple[str, str, int, float]], delta: int) -> dict[tuple[str, str, int], int]: ...
    def uncount_rates(self, windows: Sequence[tuple[str, str, int, float]]) -> None: ...
    def prune_rates(self, now: float) -> int: ...


PRUNE_EVERY = 1000  # counts in the database between two clean-ups of the windows passed
RETRY = 10.0  # seconds after a failed count before the database is asked again

Windows = tuple[tuple[str, str, int, float], ...]
Budget = tuple[str, str]  # (kind, addr)


class Guard:
    """The rate limits of one process (``rules``: the defaults changed, e.g.
    ``rules_from(settings.rate_limits)``): :meth:`spend`, :meth:`check`, :meth:`note`, and
    :meth:`take` with :meth:`give_back` or :meth:`settle`; Refused ``rate_limited`` (429,
    ``retry``: seconds) when over. ``clock``: the time source of the shared counts' windows
    (Unix time; tests pass their own)."""

    def __init__(self, rules: dict[str, list[RateLimitItem]] | None = None, clock: Callable[[], float] = time.time) -> None:
        # the defaults for any kind ``rules`` does not name
        self.rules = {**RULES, **rules} if rules is not None else dict(RULES)
        self.limiter = strategies.MovingWindowRateLimiter(storage.MemoryStorage())
        # when each (kind, address) was last counted: one counted nothing within its longest
        # window is under every limit, and is not looked up (the check of every move was a
        # twentieth of the server's time per move)
        self._last: dict[tuple[str, str], float] = {}
        self._prune_at = 10_000  # its size at which those whose windows have passed are dropped
        self._window = {k: max(r.get_expiry() for r in rs) for k, rs in self.rules.items()}
        self._taken: dict[tuple[str, str], int] = {}  # units taken and not yet given back or noted
        self.clock = clock
        self.counts: Counts | None = None  # several processes: the database's counts (share)
        self._seen: dict[tuple[str, str], dict[tuple[str, str, int], int]] = {}  # the shared counts last seen
        self._held: dict[tuple[str, str], list[Windows | None]] = {}  # the windows of the units taken there
        self._seen_prune_at = 10_000
        self._since_prune = 0
        self._failing = False  # the database failed at the last count (logged once)
        self._retry_at = 0.0  # time.monotonic() before which the database is not asked (it failed)

    def share(self, counts: Counts) -> None:
        """Count in ``counts`` too (several processes on one PostgreSQL database): every
        budget holds across the processes. The first call wins (a guard shared by two apps)."""
        if self.counts is None:
            self.counts = counts

    # -- the memory counts (one process) ---------------------------------------------------

    def _refuse(self, kind: str, addr: str) -> Refused:
        stats = [self.limiter.get_window_stats(r, kind, addr) for r in self.rules[kind]]
        reset = max((s.reset_time for s in stats if s.remaining <= 0), default=time.time())
        return _refusal(kind, max(1, int(reset - time.time() + 0.999)))

    def _counted(self, kind: str, addr: str) -> None:
        now = time.monotonic()
        if len(self._last) > self._prune_at:  # forget those whose windows have passed
            self._last = {k: t for k, t in self._last.items() if now - t <= self._window[k[0]]}
            # many addresses all within their windows: the next look after as many again (a
            # look per request would cost each request the whole table)
            self._prune_at = max(10_000, 2 * len(self._last))
        self._last[(kind, addr)] = now

    def _spend_here(self, kind: str, addr: str) -> None:
        self._counted(kind, addr)
        if not all(self.limiter.hit(r, kind, addr) for r in self.rules[kind]):
            raise self._refuse(kind, addr)

    def _check_here(self, kind: str, addr: str) -> None:
        last = self._last.get((kind, addr))
        if last is None or time.monotonic() - last > self._window[kind]:
            return
        if not all(self.limiter.test(r, kind, addr) for r in self.rules[kind]):
            raise self._refuse(kind, addr)

    def _note_here(self, kind: str, addr: str) -> None:
        self._counted(kind, addr)
        for r in self.rules[kind]:
            self.limiter.hit(r, kind, addr)

    def _take_here(self, kind: str, addr: str) -> None:
        held = self._taken.get((kind, addr), 0)
        last = self._last.get((kind, addr))
        if last is not None and time.monotonic() - last <= self._window[kind]:
            if any(self.limiter.get_window_stats(r, kind, addr).remaining - held <= 0 for r in self.rules[kind]):
                raise self._refuse(kind, addr)
        elif any(r.amount - held <= 0 for r in self.rules[kind]):
            raise _refusal(kind, 1)
        self._taken[(kind, addr)] = held + 1

    def _give_back_here(self, kind: str, addr: str) -> None:
        held = self._taken.get((kind, addr), 0) - 1
        if held > 0:
            self._taken[(kind, addr)] = held
        else:
            self._taken.pop((kind, addr), None)

    # -- the database's counts (several processes) --------------------------------------------

    def _windows(self, kind: str, addr: str, now: float) -> Windows:
        """The fixed windows ``now`` is in, one per limit of ``kind``."""
        out = []
        for r in self.rules[kind]:
            length = int(r.get_expiry())
            start = int(now // length) * length
            out.append((f"{kind}/{length}", addr, start, float(start + length)))
        return tuple(out)

    def _count_shared(self, budgets: Sequence[Budget]) -> list[tuple[Windows, list[int]]] | None:
        """Count one of each (kind, addr) in the database, in one statement: for each, its
        windows and their counts now (None: no database, or it failed: count in memory)."""
        if self.counts is None or time.monotonic() < self._retry_at:
            return None
        now = self.clock()
        windows = [self._windows(kind, addr, now) for kind, addr in budgets]
        try:
            got = self.counts.count_rates([w for ws in windows for w in ws], 1)
            self._since_prune += 1
            if self._since_prune >= PRUNE_EVERY:
                self._since_prune = 0
                self.counts.prune_rates(now)
        except Exception as e:  # noqa: BLE001 - the database failed: each process's own counts hold
            if not self._failing:
                log.warning("rate limits: counting in the database failed (%s); counting in this process only", type(e).__name__)
            self._failing = True
            self._retry_at = time.monotonic() + RETRY  # not a wait on every request while it is away
            return None
        self._failing = False
        out = []
        for (kind, addr), ws in zip(budgets, windows):
            counts = [got.get(w[:3], 0) for w in ws]
            self._see(kind, addr, ws, counts, now)
            out.append((ws, counts))
        return out

    def _see(self, kind: str, addr: str, windows: Windows, counts: Sequence[int], now: float) -> None:
        """Keep the counts last seen (for :meth:`check`); those of windows passed are dropped
        when there are many (as ``_last`` is)."""
        if len(self._seen) > self._seen_prune_at:
            self._seen = {k: v for k, v in self._seen.items() if any(w[2] + int(w[0].rpartition("/")[2]) > now for w in v)}
            self._seen_prune_at = max(10_000, 2 * len(self._seen))
        self._seen[(kind, addr)] = {w[:3]: n for w, n in zip(windows, counts)}

    def _over(self, kind: str, windows: Windows, counts: Sequence[int], held: int = 0) -> Refused | None:
        """Refused if a count (with ``held`` more to come) passes its limit: ``retry`` when the
        last of the full windows ends."""
        ends = [w[3] for w, n, r in zip(windows, counts, self.rules[kind]) if n + held > r.amount]
        if not ends:
            return None
        return _refusal(kind, max(1, math.ceil(max(ends) - self.clock())))

    def _check_shared(self, kind: str, addr: str) -> None:
        seen = self._seen.get((kind, addr))
        if seen is None:
            return
        windows = self._windows(kind, addr, self.clock())
        refused = self._over(kind, windows, [seen.get(w[:3], 0) + 1 for w in windows])
        if refused is not None:
            raise refused

    # -- the budgets ----------------------------------------------------------------------------

    def spend(self, kind: str, addr: str) -> None:
        """Count one request of ``kind`` from ``addr``; Refused ``rate_limited`` when over."""
        self.spend_and_take((kind, addr), None)

    def check(self, kind: str, addr: str) -> None:
        """Refused ``rate_limited`` if ``addr`` is over its ``kind`` budget (counts nothing;
        no round trip: the shared counts as this process last saw them)."""
        self._check_here(kind, addr)
        self._check_shared(kind, addr)

    def note(self, kind: str, addr: str) -> None:
        """Count one (e.g. a wrong token) without refusing this one."""
        if self._count_shared([(kind, addr)]) is None:
            self._note_here(kind, addr)

    def take(self, kind: str, addr: str) -> None:
        """Take one unit of ``addr``'s ``kind`` budget before an attempt whose outcome is
        not known yet (a password being verified); Refused ``rate_limited`` when the budget
        counted and the units taken are all used. Each take is ended by :meth:`give_back`
        (the attempt succeeded: it counts nothing) or :meth:`settle` (it failed: counted).
        In memory, called on the event loop, no other take comes between the look and the
        count; in the database, the unit is counted at once (one statement that returns the
        count), so that takes through several processes at once keep to the budget too."""
        shared = self._count_shared([(kind, addr)])
        if shared is None:
            self._take_here(kind, addr)
        else:
            self._take_counted(kind, shared[0])
        self._hold((kind, addr), None if shared is None else shared[0][0])

    def spend_and_take(self, spend: Budget, take: Budget | None) -> None:
        """:meth:`spend` one of ``spend`` and :meth:`take` one of ``take`` (None: nothing),
        in the database in one round trip (a sign-in: its address's try and its name's)."""
        shared = self._count_shared([spend] if take is None else [spend, take])
        if shared is None:
            self._spend_here(*spend)
            if take is not None:
                self._take_here(*take)
                self._hold(take, None)
            return
        refused = self._over(spend[0], *shared[0])
        if take is None:
            if refused is not None:
                raise refused
            return
        if refused is not None:
            self._uncount(shared[1][0])
            raise refused
        self._take_counted(take[0], shared[1])
        self._hold(take, shared[1][0])

    def _take_counted(self, kind: str, counted: tuple[Windows, list[int]]) -> None:
        """A unit counted in the database: given back at once if over (Refused)."""
        refused = self._over(kind, *counted)
        if refused is not None:
            self._uncount(counted[0])
            raise refused

    def _hold(self, budget: Budget, windows: Windows | None) -> None:
        if self.counts is not None:
            self._held.setdefault(budget, []).append(windows)

    def _uncount(self, windows: Windows) -> None:
        if self.counts is None:
            return
        try:
            self.counts.uncount_rates(windows)
        except Exception as e:  # noqa: BLE001 - the unit stays counted till its window ends
            log.warning("rate limits: giving a unit back in the database failed (%s)", type(e).__name__)

    def _held_windows(self, kind: str, addr: str) -> Windows | None:
        """The windows a unit taken was counted in (None: it was taken in memory)."""
        held = self._held.get((kind, addr))
        if not held:
            return None
        windows = held.pop()
        if not held:
            del self._held[(kind, addr)]
        return windows

    def give_back(self, kind: str, addr: str) -> None:
        """A unit :meth:`take` took is not spent (the attempt succeeded)."""
        windows = self._held_windows(kind, addr)
        if windows is None:
            self._give_back_here(kind, addr)
        else:
            self._uncount(windows)

    def settle(self, kind: str, addr: str) -> None:
        """A unit :meth:`take` took is spent (the attempt failed): counted as :meth:`note`
        does (in the database it was counted when taken)."""
        if self._held_windows(kind, addr) is None:
            self._give_back_here(kind, addr)
            self._note_here(kind, addr)
