"""Durable state of the server: games and their append-only action logs, seats, chat.

Everything goes through :class:`Storage` (SQLAlchemy Core 2.x): a SQLite file in WAL mode
by default, or PostgreSQL (several processes on one database). The schema is versioned:
``schema_version`` holds the number of migrations applied, and :data:`MIGRATIONS` are
applied in order at start-up (schema.py). The rows the server reads and writes are in
rows.py; the database itself in database.py, its several-process part in shared.py,
accounts, their sessions and the seats they own in accounts.py.

The games table holds server-side secrets (the seed, the deck, the reshuffle, token
hashes), and the accounts' password and session hashes. Nothing here is ever sent to a
client as such: the server builds every message from ``kardinal.rules.view``.
"""

from __future__ import annotations

from .database import Storage
from .rows import (
    AccountRow,
    ChatLine,
    CorruptGame,
    DuplicateAction,
    GameRow,
    PendingAction,
    PendingWrite,
    SeatChange,
    SeatResult,
    SeatRow,
    StorageError,
    sqlite_backup,
)
from .schema import MIGRATIONS

__all__ = [
    "AccountRow",
    "SeatResult",
    "Storage",
    "GameRow",
    "SeatRow",
    "ChatLine",
    "DuplicateAction",
    "PendingAction",
    "PendingWrite",
    "SeatChange",
    "CorruptGame",
    "StorageError",
    "sqlite_backup",
    "MIGRATIONS",
]
