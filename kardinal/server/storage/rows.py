"""What the database holds, as the server uses it: games and seats, pending writes, chat
lines; and the errors of storing them."""

from __future__ import annotations

import json
import sqlite3
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any


class DuplicateAction(Exception):
    """The client action id was already applied (or the index is taken)."""


@dataclass
class SeatRow:
    name: str
    kind: str  # "person" or "bot"
    level: str | None = None  # bot level
    token_hash: str | None = None  # sha256 hex of the seat's secret token (persons)
    joined: bool = False
    open: bool = False  # a person seat anyone may take from the lobby (else only its invitation link)
    standin: bool = False  # the person is away: a bot (GameRow.options["standin"]) plays for them
    # sha256 hex of the further tokens this seat's account handed to its other devices
    # (Tables.seat_key): each opens the seat as its own token does; newest last
    keys: list[str] = field(default_factory=list)
    # until when (Unix time) the seat's account is suspended by the operator: no token opens
    # the seat until then (kardinal.server.community.moderation); None: never, or lifted. Never shown.
    barred: float | None = None

    def barred_now(self, now: float) -> bool:
        """Its account is suspended at ``now``: no token opens the seat."""
        return self.barred is not None and self.barred > now

    def to_json(self) -> dict[str, Any]:
        extra: dict[str, Any] = {"keys": list(self.keys)} if self.keys else {}
        if self.barred is not None:
            extra["barred"] = self.barred
        return {
            "standin": self.standin,
            "name": self.name,
            "kind": self.kind,
            "level": self.level,
            "token_hash": self.token_hash,
            "joined": self.joined,
            "open": self.open,
            **extra,
        }


@dataclass(frozen=True)
class SeatResult:
    """What a seat of a finished game came to (kardinal.server.community.results)."""

    seat: int
    players: int
    place: float  # 1 = first; seats still tied share the mean of their places
    score: int
    win: float  # the seat's share of the win: 1/k for each of k winners, else 0


@dataclass(frozen=True)
class AccountRow:
    """An account as the server uses it (never its password hash outside the accounts module)."""

    id: int
    name: str
    created: float
    password_changed: float


@dataclass
class GameRow:
    id: str
    board: str
    seats: list[SeatRow]
    hotseat: bool
    deck: list[str]
    seed: int
    status: str = "open"
    reshuffle: list[str] | None = None
    variants: list[str] = field(default_factory=list)
    # how the table plays: "mode" ("live" or "turn"), "away" (seconds before a person who
    # left is stood in for), "standin" (that bot's level), "hints" (the people agreed to
    # hints), "spectator_chat" (spectators may write in the chat)
    options: dict[str, Any] = field(default_factory=dict)
    created: float = field(default_factory=time.time)
    updated: float = field(default_factory=time.time)
    again: str | None = None  # the game "Play again" started after this one (Storage.create_follow_up)


@dataclass(frozen=True)
class PendingAction:
    """An action to append (Storage.write_batch): what append_action takes (``to_act``:
    the seat to act after it; None: not known)."""

    game_id: str
    idx: int
    action: Mapping[str, Any]
    client_id: str | None = None
    status: str | None = None
    reshuffle: list[str] | None = None
    to_act: int | None = None


@dataclass(frozen=True)
class SeatChange:
    """A change of a game's seats (and its status with them) to commit (Storage.write_batch):
    what update_game takes; ``at``: the time written as the row's ``updated``."""

    game_id: str
    seats: list[SeatRow]
    status: str
    at: float


# what a group commit writes (Storage.write_batch): an action, a change of seats, a new game
PendingWrite = PendingAction | SeatChange | GameRow


class StorageError(Exception):
    """The database cannot be used: damaged, of a newer schema, or gone while in use."""


def sqlite_backup(source: str | Path, target: str | Path) -> Path:
    """A consistent copy of a SQLite database, also while a server writes to it (SQLite's
    online backup API: copying the file itself misses what is still in the WAL). The
    source is only read: not migrated, not changed."""
    target = Path(target)
    if target.exists():
        raise StorageError(f"{target} exists; choose a new file")
    src = sqlite3.connect(f"file:{Path(source)}?mode=ro", uri=True)
    try:
        dst = sqlite3.connect(target)
        try:
            src.backup(dst)
        finally:
            dst.close()
    except sqlite3.DatabaseError as e:
        target.unlink(missing_ok=True)
        raise StorageError(f"{source} cannot be copied: {e}") from None
    finally:
        src.close()
    return target


class CorruptGame(Exception):
    """A stored game that cannot be read (its row or its log); its id, never its data."""

    def __init__(self, game_id: str, what: str) -> None:
        super().__init__(f"game {game_id}: {what} cannot be read")
        self.game_id = game_id


def _row(r: Any) -> GameRow:
    try:
        return _parse_row(r)
    except (ValueError, TypeError, KeyError, AttributeError) as e:  # malformed JSON or fields
        raise CorruptGame(str(r.id), f"its row ({type(e).__name__})") from None


def _parse_row(r: Any) -> GameRow:
    return GameRow(
        id=r.id,
        board=r.board,
        seats=[SeatRow(**s) for s in json.loads(r.seats)],
        hotseat=bool(r.hotseat),
        deck=json.loads(r.deck),
        seed=int(r.seed),
        status=r.status,
        reshuffle=json.loads(r.reshuffle) if r.reshuffle else None,
        variants=json.loads(r.variants),
        options=_options(json.loads(r.options)),
        created=r.created,
        updated=r.updated,
        again=_game_id(r.again),
    )


def _game_id(x: Any) -> str | None:
    if x is not None and not isinstance(x, str):
        raise TypeError("again")
    return x


def _options(x: Any) -> dict[str, Any]:
    if not isinstance(x, dict):
        raise TypeError("options")
    return x


@dataclass(frozen=True)
class ChatLine:
    """One line of a game's chat (or a notice to the table); public."""

    idx: int
    at: float
    version: int
    seat: int | None
    kind: str
    name: str
    text: str

    def to_json(self) -> dict[str, Any]:
        return {
            "idx": self.idx,
            "at": self.at,
            "version": self.version,
            "seat": self.seat,
            "kind": self.kind,
            "name": self.name,
            "text": self.text,
        }
