"""The server's metrics, for Prometheus: every metric's name, help text, labels and buckets
in this one module, and the small hooks the server's parts call where something happens
(kardinal.server.web.scrape serves them at ``/metrics``; docs/host/metrics.md says what
each one answers).

Several processes on one host (``kardinal serve`` once per port behind nginx) add up when
they share a folder: ``PROMETHEUS_MULTIPROC_DIR`` (prometheus-client's own variable, read
by the library as it is imported; this module reads no environment) names it, every
process writes its counts into files of its own there, and a scrape of any one of them
answers for all. Without it each process counts in memory and answers for itself.

What the labels may hold: only words from fixed, short lists (an action's outcome is
``ok``, ``duplicate`` or a refusal's code; a rate limit's kind; a bot's level; a game's
status). Never a game's id, a seat, a name, a token or anything of a hand: a metric is
the same whatever game it counts (tests/test_web_metrics.py checks it).

Every metric has labels, so that importing this module makes no value (several processes:
no file) until something is counted: a command of ``kardinal`` that only imports the
server's modules writes nothing into the folder.

A hook costs a few microseconds (a Counter's inc, a Histogram's observe, through a
label's child; docs/benchmarks/server.md); they sit where one action, one commit, one mail or one refusal passes,
never in a loop over connections. The gauges of things that exist (games in memory, open
WebSockets) are not counted up and down: :func:`sample` counts them when they are read.
"""

from __future__ import annotations

import functools
import os
import re
import time
from collections.abc import Awaitable, Callable, Iterable, Mapping
from pathlib import Path
from typing import Any, ParamSpec, TypeVar

from prometheus_client import (
    CONTENT_TYPE_PLAIN_0_0_4,
    CollectorRegistry,
    Counter,
    Gauge,
    Histogram,
    disable_created_metrics,
    generate_latest,
    multiprocess,
    values,
)
from prometheus_client.process_collector import ProcessCollector

from .refusal import Refused

__all__ = ["CONTENT_TYPE", "MULTIPROCESS", "exposition", "timed_action", "timed_commit", "bot_decision", "rate_limited"]

CONTENT_TYPE = CONTENT_TYPE_PLAIN_0_0_4  # the text format every Prometheus reads
# no "_created" series (a counter's start time): half the text, nothing a question needs
disable_created_metrics()  # type: ignore[no-untyped-call]
# several processes add up (PROMETHEUS_MULTIPROC_DIR was set when prometheus-client was imported)
MULTIPROCESS = bool(getattr(values.ValueClass, "_multiprocess", False))

# the metrics of this process (one process: what /metrics shows, with the process's CPU and memory)
REGISTRY = CollectorRegistry(auto_describe=True)

# seconds, from a millisecond to five seconds: an action's answer, a commit
LATENCY = (0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5, 5.0)
# seconds of a bot's turn: its search takes up to a few seconds at the hardest level
THINKING = (0.001, 0.01, 0.05, 0.1, 0.25, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0)
# the writes one group commit carries
BATCH = (1, 2, 4, 8, 16, 32, 64, 128, 256)

# -- actions ---------------------------------------------------------------------------------

ACTIONS = Counter(
    "kardinal_actions",
    "Actions of people received (HTTP and WebSocket), by kind (action, undo) and outcome (ok, duplicate: an id sent again, "
    "or the refusal's code such as stale_version, not_your_turn, illegal)",
    ["kind", "outcome"],
    registry=REGISTRY,
)
ACTION_SECONDS = Histogram(
    "kardinal_action_seconds",
    "Seconds from an action's arrival at the game service to its acknowledgement (checked, committed, everyone told), by kind",
    ["kind"],
    buckets=LATENCY,
    registry=REGISTRY,
)

# -- what exists now (sampled when read: sample) ----------------------------------------------

WEBSOCKETS = Gauge(
    "kardinal_websockets",
    "Open game WebSockets that said hello, by kind: player (holds a seat) or spectator",
    ["kind"],
    multiprocess_mode="livesum",
    registry=REGISTRY,
)
LIVE_GAMES = Gauge(
    "kardinal_live_games",
    "Games in memory, by status (open, running, finished, expired)",
    ["status"],
    multiprocess_mode="livesum",
    registry=REGISTRY,
)
SOCKET_KINDS = ("player", "spectator")
GAME_STATUSES = ("open", "running", "finished", "expired")

# -- bots ------------------------------------------------------------------------------------

BOTS_WAITING = Gauge(
    "kardinal_bot_decisions_waiting",
    "Bot decisions (and hints, reviews) waiting for a bot worker, by table (people: a game with people in it; bots_only)",
    ["table"],
    multiprocess_mode="livesum",
    registry=REGISTRY,
)
BOT_WAIT_SECONDS = Histogram(
    "kardinal_bot_wait_seconds",
    "Seconds a bot decision (or hint, review) waited for a bot worker, by table (people, bots_only)",
    ["table"],
    buckets=THINKING,
    registry=REGISTRY,
)
BOT_SECONDS = Histogram(
    "kardinal_bot_decision_seconds",
    "Seconds a bot worker took for one decision, by the bot's level",
    ["level"],
    buckets=THINKING,
    registry=REGISTRY,
)

# -- notifications: mail now; Web Push joins with channel="push" (its sender calls the same hooks) --

NOTIFICATIONS_QUEUED = Counter(
    "kardinal_notifications_queued",
    "Notifications put in the queue, by channel (mail) and kind (confirm, reset, turn, invitation, end)",
    ["channel", "kind"],
    registry=REGISTRY,
)
NOTIFICATIONS_SENT = Counter(
    "kardinal_notifications_sent",
    "Notifications handed on (mail: accepted by the mail server), by channel",
    ["channel"],
    registry=REGISTRY,
)
NOTIFICATIONS_FAILED = Counter(
    "kardinal_notifications_failed",
    "Failed tries to send a notification, by channel and final (yes: given up, never tried again; no: tried again later)",
    ["channel", "final"],
    registry=REGISTRY,
)

# -- the database ------------------------------------------------------------------------------

COMMIT_SECONDS = Histogram(
    "kardinal_db_commit_seconds",
    "Seconds of one group commit of the games' writes (actions, seat changes, new games) in one transaction, by database "
    "(sqlite, postgresql)",
    ["database"],
    buckets=LATENCY,
    registry=REGISTRY,
)
COMMIT_WRITES = Histogram(
    "kardinal_db_commit_writes",
    "Writes carried by one group commit (more than one: games waited for the disk together), by database",
    ["database"],
    buckets=BATCH,
    registry=REGISTRY,
)

# -- rate limits ---------------------------------------------------------------------------------

RATE_LIMITED = Counter(
    "kardinal_rate_limited",
    "Requests refused by a rate limit (rate_limited, 429), by the limit's kind (create, chat, bad_token, signin, ...)",
    ["kind"],
    registry=REGISTRY,
)

if not MULTIPROCESS:  # (several processes: each one's CPU is its own, and not added up)
    ProcessCollector(registry=REGISTRY)


# -- hooks ------------------------------------------------------------------------------------------

P = ParamSpec("P")
A = TypeVar("A", bound=Mapping[str, Any])
T = TypeVar("T")


def timed_action(kind: str) -> Callable[[Callable[P, Awaitable[A]]], Callable[P, Awaitable[A]]]:
    """Count an action method's calls by outcome and observe their time (a decorator of the
    game service's ``submit`` and ``undo``, which return the acknowledgement)."""

    def wrap(f: Callable[P, Awaitable[A]]) -> Callable[P, Awaitable[A]]:
        @functools.wraps(f)
        async def timed(*args: P.args, **kwargs: P.kwargs) -> A:
            start = time.perf_counter()
            outcome = "error"
            try:
                ack = await f(*args, **kwargs)
                outcome = "duplicate" if ack.get("duplicate") else "ok"
                return ack
            except Refused as e:
                outcome = e.code
                raise
            finally:
                ACTION_SECONDS.labels(kind).observe(time.perf_counter() - start)
                ACTIONS.labels(kind, outcome).inc()

        return timed

    return wrap


def timed_commit(f: Callable[[Any, list[Any]], T]) -> Callable[[Any, list[Any]], T]:
    """Observe a group commit's time and size (a decorator of ``Storage.write_batch``), by
    the storage's database (its engine's dialect)."""

    @functools.wraps(f)
    def timed(self: Any, batch: list[Any]) -> T:
        start = time.perf_counter()
        try:
            return f(self, batch)
        finally:
            database = self.engine.dialect.name
            COMMIT_SECONDS.labels(database).observe(time.perf_counter() - start)
            COMMIT_WRITES.labels(database).observe(len(batch))

    return timed


async def bot_decision(level: str, decision: Awaitable[T]) -> T:
    """Await a bot's decision in a worker, observing its time by the bot's level."""
    start = time.perf_counter()
    try:
        return await decision
    finally:
        BOT_SECONDS.labels(level).observe(time.perf_counter() - start)


def rate_limited(kind: str) -> None:
    RATE_LIMITED.labels(kind).inc()


def notification_queued(channel: str, kind: str) -> None:
    NOTIFICATIONS_QUEUED.labels(channel, kind).inc()


def notification_sent(channel: str) -> None:
    NOTIFICATIONS_SENT.labels(channel).inc()


def notification_failed(channel: str, final: bool) -> None:
    NOTIFICATIONS_FAILED.labels(channel, "yes" if final else "no").inc()


def sample(statuses: Iterable[str], sockets: Iterable[str]) -> None:
    """Set the gauges of what exists in this process now: the status of each game in
    memory, the kind of each open WebSocket (player, spectator)."""
    for gauge, names, seen in ((LIVE_GAMES, GAME_STATUSES, list(statuses)), (WEBSOCKETS, SOCKET_KINDS, list(sockets))):
        for name in names:
            gauge.labels(name).set(seen.count(name))


# -- exposition -------------------------------------------------------------------------------------

_PID_FILE = re.compile(r"^gauge_live\w*?_(\d+)\.db$")


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:  # someone else's process: alive
        return True
    return True


def forget_dead(folder: Path) -> list[int]:
    """Drop the gauges of processes that are gone (killed, or stopped without their own
    goodbye): their last values would count on forever. Returns their pids. Their counters
    and histograms stay: a count already made stays made."""
    dead = set()
    for p in folder.glob("gauge_live*.db"):
        m = _PID_FILE.match(p.name)
        if m and int(m.group(1)) != os.getpid() and not _alive(int(m.group(1))):
            dead.add(int(m.group(1)))
    for pid in sorted(dead):
        multiprocess.mark_process_dead(pid, str(folder))  # type: ignore[no-untyped-call]
    return sorted(dead)


def goodbye() -> None:
    """This process stops: its gauges leave the sums (several processes)."""
    if MULTIPROCESS:
        multiprocess.mark_process_dead(os.getpid())  # type: ignore[no-untyped-call]


def check_folder() -> None:
    """ValueError, naming the variable, if several processes are to add up
    (PROMETHEUS_MULTIPROC_DIR) and its folder is not there: every count would fail."""
    if MULTIPROCESS:
        try:
            multiprocess.MultiProcessCollector(None)  # type: ignore[no-untyped-call]
        except ValueError:
            raise ValueError("PROMETHEUS_MULTIPROC_DIR: not a folder (make it, empty, before the server's processes start)") from None


def exposition() -> bytes:
    """The metrics in Prometheus's text format: this process's, or (several processes)
    every process's of the host added up."""
    if not MULTIPROCESS:
        return generate_latest(REGISTRY)
    registry = CollectorRegistry()
    collector = multiprocess.MultiProcessCollector(registry)  # type: ignore[no-untyped-call]
    forget_dead(Path(collector._path))
    return generate_latest(registry)
