"""The database (:class:`Storage`): games, their append-only action logs, chat lines; the
group commit of several games' writes; backups and migrations at start-up."""

from __future__ import annotations

import contextlib
import json
import logging
import secrets
import sqlite3
import threading
import time
from collections.abc import Iterator, Mapping, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any, TypeGuard

from sqlalchemy import (
    Connection,
    Engine,
    create_engine,
    delete,
    event,
    func,
    insert,
    or_,
    select,
    text,
    update,
)
from sqlalchemy.exc import DBAPIError, IntegrityError

from ..common import metrics
from .accounts import AccountStorage
from .clocks import ClockStorage
from .limits import LimitStorage
from .mail import MailStorage
from .moderation import ModerationStorage
from .push import PushStorage
from .ratings import RatingStorage
from .results import ResultStorage
from .rows import (
    ChatLine,
    CorruptGame,
    DuplicateAction,
    GameRow,
    PendingAction,
    PendingWrite,
    SeatChange,
    SeatRow,
    StorageError,
    _game_id,
    _row,
    sqlite_backup,
)
from .schema import (
    _INSERT_ACTION,
    _INSERT_ACTION_SQL,
    _TOUCH_GAME,
    _TOUCH_GAME_SQL,
    MIGRATION_LOCK,
    MIGRATIONS,
    actions,
    chat,
    games,
    schema_version,
)
from .shared import SharedStorage
from .social import SocialStorage

log = logging.getLogger("kardinal.web")


class Storage(
    AccountStorage,
    ClockStorage,
    MailStorage,
    PushStorage,
    ResultStorage,
    RatingStorage,
    SocialStorage,
    ModerationStorage,
    SharedStorage,
    LimitStorage,
):
    """Games and action logs in a SQL database (SQLite by default)."""

    def __init__(self, url: str) -> None:
        if url.startswith(("postgresql://", "postgres://")):
            url = "postgresql+psycopg://" + url.split("://", 1)[1]  # the driver this project installs
        self.url = url
        # hide_parameters: a database error never logs a statement's values (token hashes, decks)
        self.engine: Engine = create_engine(
            url, hide_parameters=True, connect_args={"check_same_thread": False} if url.startswith("sqlite") else {}
        )
        self.path: Path | None = None  # the SQLite file
        self._lease_conn: Any = None  # PostgreSQL: the connection holding this process's bot leases
        self._lease_guard = threading.Lock()
        self.origin = secrets.token_hex(6)  # names this process's announcements (PostgreSQL)
        self._inode: tuple[int, int] | None = None
        # SQLite has one writer at a time. Its threads here take turns on a lock, woken at
        # once, rather than meeting SQLite's lock, whose waiting sleeps up to 100 ms at a time
        # (a few games starting while moves were committed stalled every game for a second)
        self._writer = threading.Lock() if url.startswith("sqlite") else None
        self._plain_conn: Any = None  # SQLite: the driver's connection _write_plain keeps (under _writer)
        if url.startswith("sqlite"):
            event.listen(self.engine, "connect", _sqlite_pragmas)
            name = self.engine.url.database
            if name and name != ":memory:":
                self.path = Path(name)
        self.check_integrity()
        self.migrate()
        if self.path is not None:
            st = self.path.stat()
            self._inode = (st.st_dev, st.st_ino)

    @contextmanager
    def _begin(self) -> Iterator[Connection]:
        """A transaction that may write (SQLite: one of this process's at a time)."""
        if self._writer is None:
            with self.engine.begin() as conn:
                yield conn
            return
        with self._writer, self.engine.begin() as conn:
            yield conn

    @classmethod
    def sqlite(cls, path: str | Path) -> Storage:
        p = Path(path)
        p.parent.mkdir(parents=True, exist_ok=True)
        return cls(f"sqlite+pysqlite:///{p}")

    def check_integrity(self) -> None:
        """At start: refuse a SQLite file that is damaged (``PRAGMA quick_check``)."""
        if self.path is None or not self.path.exists():
            return
        try:
            with self.engine.connect() as conn:
                result = [r[0] for r in conn.execute(text("PRAGMA quick_check"))]
        except DBAPIError as e:
            raise StorageError(f"{self.path} is not a readable SQLite database ({type(e.orig).__name__})") from None
        if result != ["ok"]:
            raise StorageError(f"{self.path} is damaged (PRAGMA quick_check: {'; '.join(map(str, result[:3]))}); restore a backup")

    def migrate(self) -> int:
        """Apply the migrations not yet applied; returns the schema version.

        A database of a newer schema (made by a newer version of Kardinal) is refused; a
        SQLite file is copied to ``<file>.v<N>.bak`` before it is migrated.
        """
        with self.engine.connect() as conn:
            version = (
                conn.execute(select(schema_version.c.version)).scalar_one() if self.engine.dialect.has_table(conn, "schema_version") else 0
            )
        if version > len(MIGRATIONS):
            raise StorageError(
                f"the database has schema version {version}, newer than this Kardinal knows ({len(MIGRATIONS)}): upgrade Kardinal"
            )
        if 0 < version < len(MIGRATIONS) and self.path is not None:
            self.backup(self.path.with_name(f"{self.path.name}.v{version}.bak"))
        with self._begin() as conn:
            if self.engine.dialect.name == "postgresql":
                # processes started together on one database migrate one after another
                # (the others then find the migrations done); the lock ends with the transaction
                conn.execute(text("SELECT pg_advisory_xact_lock(:key)"), {"key": MIGRATION_LOCK})
            if not self.engine.dialect.has_table(conn, "schema_version"):
                schema_version.create(conn)
                conn.execute(insert(schema_version).values(version=0))
            version = conn.execute(select(schema_version.c.version)).scalar_one()
            for i in range(version, len(MIGRATIONS)):
                MIGRATIONS[i](conn)
                conn.execute(update(schema_version).values(version=i + 1))
            return len(MIGRATIONS) if version < len(MIGRATIONS) else version

    def backup(self, target: str | Path) -> Path:
        """A consistent copy of this SQLite database while it is in use (sqlite_backup)."""
        if self.path is None:
            raise StorageError("backup copies a SQLite database; for PostgreSQL use pg_dump")
        return sqlite_backup(self.path, target)

    def _still_there(self) -> None:
        """Refuse to write when the SQLite file was deleted or replaced while the server
        runs: a write would go to a file nobody can open again, and be lost."""
        if self.path is None or self._inode is None:
            return
        try:
            st = self.path.stat()
        except FileNotFoundError:
            raise StorageError(f"the database file {self.path} is gone") from None
        if (st.st_dev, st.st_ino) != self._inode:
            raise StorageError(f"the database file {self.path} was replaced while in use")

    def ping(self) -> None:
        """Raise if the database cannot be reached (a trivial query) or its file is gone."""
        self._still_there()
        with self.engine.connect() as conn:
            conn.execute(text("SELECT 1"))

    def schema_version(self) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(schema_version.c.version)).scalar_one())

    def close(self) -> None:
        if self._writer is not None:
            with self._writer:
                self._drop_plain_conn()
        if self._lease_conn is not None:
            self._lease_conn.close()
            self._lease_conn = None
        self._close_rates()
        self.engine.dispose()

    # -- games --------------------------------------------------------------------

    def create_game(self, g: GameRow) -> None:
        self._still_there()
        with self._begin() as conn:
            self._insert_game(conn, g)

    def _insert_game(self, conn: Connection, g: GameRow) -> None:
        conn.execute(
            insert(games).values(
                id=g.id,
                created=g.created,
                board=g.board,
                seats=json.dumps([s.to_json() for s in g.seats]),
                hotseat=g.hotseat,
                deck=json.dumps(g.deck),
                reshuffle=json.dumps(g.reshuffle) if g.reshuffle is not None else None,
                seed=g.seed,
                status=g.status,
                updated=g.updated,
                variants=json.dumps(g.variants),
                options=json.dumps(g.options),
                again=g.again,
            )
        )

    def create_follow_up(self, old_id: str, g: GameRow, replacing: str | None = None) -> str | None:
        """Store ``g`` as the game "Play again" started after game ``old_id``, unless another
        one is that game already: returns the follow-up's id, ``g.id`` if this made it, else
        the one made first (``g`` is not stored then), or None if there is no game ``old_id``.

        One transaction: the old game's row claims the new id (a compare-and-set, ``again``
        still empty, or still ``replacing``: a follow-up found unreadable), and only if it
        did the new game is inserted. Either both are stored or neither: no crash leaves a
        claim without its game. Of two at once (two processes), the second waits for the
        first's row lock (PostgreSQL) or its write (SQLite) and then finds the claim taken."""
        self._still_there()
        free = games.c.again.is_(None) if replacing is None else or_(games.c.again.is_(None), games.c.again == replacing)
        with self._begin() as conn:
            if conn.execute(update(games).where(games.c.id == old_id, free).values(again=g.id)).rowcount == 1:
                self._insert_game(conn, g)
                self._announce(conn, old_id)
                return g.id
            return _game_id(conn.execute(select(games.c.again).where(games.c.id == old_id)).scalar_one_or_none())

    def follow_up(self, game_id: str) -> str | None:
        """The id of the game "Play again" started after game ``game_id``, if any."""
        with self.engine.connect() as conn:
            return _game_id(conn.execute(select(games.c.again).where(games.c.id == game_id)).scalar_one_or_none())

    def follows_another(self, game_id: str) -> bool:
        """Whether game ``game_id`` was started by "Play again" after another. (Not indexed:
        asked only when a waiting table is started with bots.)"""
        with self.engine.connect() as conn:
            return conn.execute(select(games.c.id).where(games.c.again == game_id).limit(1)).first() is not None

    def get_game(self, game_id: str) -> GameRow | None:
        with self.engine.connect() as conn:
            r = conn.execute(select(games).where(games.c.id == game_id)).first()
        return _row(r) if r is not None else None

    def list_games(self, status: str | None = None, limit: int | None = 200) -> list[GameRow]:
        q = select(games).order_by(games.c.created.desc())
        if limit is not None:
            q = q.limit(limit)
        if status is not None:
            q = q.where(games.c.status == status)
        with self.engine.connect() as conn:
            rows = list(conn.execute(q))
        out = []
        for r in rows:
            try:
                out.append(_row(r))
            except CorruptGame as e:  # one unreadable game does not hide the others
                log.error("%s; left out of the list", e)
        return out

    def game_ids(self, status: str, with_bots: bool = False) -> list[str]:
        """Ids of the games in a status (only those with a bot seat, if asked)."""
        q = select(games.c.id).where(games.c.status == status)
        if with_bots:
            q = q.where(games.c.seats.like('%"kind": "bot"%'))
        with self.engine.connect() as conn:
            return [r[0] for r in conn.execute(q)]

    # -- several server processes on one PostgreSQL database ------------------------

    def actions_from(self, game_id: str, idx: int) -> list[dict[str, Any]]:
        """The game's actions from index ``idx`` on (to catch up with another process)."""
        with self.engine.connect() as conn:
            rows = list(
                conn.execute(select(actions.c.action).where(actions.c.game_id == game_id, actions.c.idx >= idx).order_by(actions.c.idx))
            )
        try:
            return [json.loads(r[0]) for r in rows]
        except (ValueError, TypeError):
            raise CorruptGame(game_id, "its log") from None

    def update_game(
        self,
        game_id: str,
        *,
        seats: list[SeatRow] | None = None,
        status: str | None = None,
        reshuffle: list[str] | None = None,
        at: float | None = None,
    ) -> float:
        """Change a game's row; returns the time it was written (the row's ``updated``)."""
        values: dict[str, Any] = {"updated": time.time() if at is None else at}
        if seats is not None:
            values["seats"] = json.dumps([s.to_json() for s in seats])
        if status is not None:
            values["status"] = status
        if reshuffle is not None:
            values["reshuffle"] = json.dumps(reshuffle)
        self._still_there()
        with self._begin() as conn:
            conn.execute(update(games).where(games.c.id == game_id).values(**values))
            self._announce(conn, game_id)
        return float(values["updated"])

    # -- actions ------------------------------------------------------------------

    def append_action(
        self,
        game_id: str,
        idx: int,
        action: Mapping[str, Any],
        client_id: str | None = None,
        *,
        status: str | None = None,
        reshuffle: list[str] | None = None,
        to_act: int | None = None,
    ) -> None:
        """Commit one action (and, in the same transaction, a status or reshuffle change, and
        the seat to act after it: ``to_act``, None if not known).

        Raises DuplicateAction if the index or the client id is taken; nothing is written then.
        """
        self._still_there()
        one = [PendingAction(game_id, idx, action, client_id, status, reshuffle, to_act)]
        try:
            if self._plain(one):
                self._write_plain(one)
            else:
                with self._begin() as conn:
                    self._write_actions(conn, one, time.time())
        except (IntegrityError, sqlite3.IntegrityError):
            raise DuplicateAction(f"action {idx} / {client_id!r} of game {game_id} exists") from None

    @metrics.timed_commit
    def write_batch(self, batch: list[PendingWrite]) -> list[Exception | None]:
        """Commit several games' writes in one transaction (one wait for the disk for all:
        group commit): actions, seat changes and new games. For each, None (committed) or
        the exception its own method (:meth:`append_action`, :meth:`update_game`,
        :meth:`create_game`) would have raised (DuplicateAction: nothing of it written).
        If any of them is refused, the others are committed one by one instead, so a
        refusal never takes another game's write with it. An error of the database itself
        is raised (nothing of the batch was committed then). One game's writes in a batch
        are written in their order."""
        if len(batch) == 1:
            return [self._write_one(batch[0])]
        self._still_there()
        if self._plain(batch):
            try:
                self._write_plain(batch)
            except sqlite3.IntegrityError:
                return [self._write_one(w) for w in batch]
            return [None] * len(batch)
        now = time.time()
        try:
            with self._begin() as conn:
                run: list[PendingAction] = []  # consecutive actions: written together
                for w in batch:
                    if isinstance(w, PendingAction):
                        run.append(w)
                        continue
                    if run:
                        self._write_actions(conn, run, now)
                        run = []
                    if isinstance(w, SeatChange):
                        self._write_seats(conn, w)
                    else:
                        self._insert_game(conn, w)
                if run:
                    self._write_actions(conn, run, now)
        except IntegrityError:
            return [self._write_one(w) for w in batch]
        return [None] * len(batch)

    def _plain(self, batch: Sequence[PendingWrite]) -> TypeGuard[Sequence[PendingAction]]:
        """Only actions that change no status and no reshuffle, to SQLite: :meth:`_write_plain`."""
        return self._writer is not None and all(isinstance(w, PendingAction) and w.status is None and w.reshuffle is None for w in batch)

    def _write_plain(self, batch: Sequence[PendingAction]) -> None:
        """Commit plain actions (:meth:`_plain`) through SQLite's own driver, in one
        transaction: the same two statements as :meth:`_write_actions`, without SQLAlchemy's
        connection, transaction and statement layers, which cost about 0.3 ms of the
        interpreter a commit (the event loop's thread waits for it). With 50 games at 600
        moves/s, where most commits hold one or two actions, the writing thread took 20% less
        CPU (3.8-4.3 s instead of 4.9-5.5 s in 15 s; four pairs of runs, alternately) and the
        whole server 4-15% less; the latency's change was within the runs' noise. Raises
        sqlite3's IntegrityError if an index or a client id is taken (nothing is written then).

        The connection is kept from one commit to the next (taken from the pool once, then
        used only under the writer's lock): taking it from the pool and giving it back (a
        rollback on return) for every commit was a quarter of the writing thread's time in
        Python. A connection that failed otherwise than by a refused write is closed, and the
        next commit takes a new one."""
        assert self._writer is not None
        now = time.time()
        rows = [(a.game_id, a.idx, json.dumps(a.action), a.client_id, now) for a in batch]
        with self._writer:
            if self._plain_conn is None:
                self._plain_conn = self.engine.raw_connection()  # from the pool: the pragmas are set (_sqlite_pragmas)
            dbapi = self._plain_conn
            try:
                cur = dbapi.cursor()  # the driver begins the transaction at the first statement
                try:
                    cur.executemany(_INSERT_ACTION_SQL, rows)
                    cur.executemany(_TOUCH_GAME_SQL, [(now, a.to_act, a.game_id) for a in batch])
                finally:
                    cur.close()
                dbapi.commit()
            except sqlite3.IntegrityError:
                dbapi.rollback()  # nothing of it is written; the connection is sound
                raise
            except BaseException:
                self._drop_plain_conn()  # rolled back as it is closed
                raise

    def _drop_plain_conn(self) -> None:
        """Close the connection _write_plain keeps (the caller holds the writer's lock)."""
        conn, self._plain_conn = self._plain_conn, None
        if conn is not None:
            with contextlib.suppress(Exception):  # already broken: nothing more to undo
                conn.rollback()
            with contextlib.suppress(Exception):
                conn.close()

    def _write_one(self, w: PendingWrite) -> Exception | None:
        try:
            if isinstance(w, PendingAction):
                self.append_action(w.game_id, w.idx, w.action, w.client_id, status=w.status, reshuffle=w.reshuffle, to_act=w.to_act)
            elif isinstance(w, SeatChange):
                self.update_game(w.game_id, seats=w.seats, status=w.status, at=w.at)
            else:
                self.create_game(w)
        except (DuplicateAction, StorageError, IntegrityError) as e:
            return e
        return None

    def _write_seats(self, conn: Connection, w: SeatChange) -> None:
        seats = json.dumps([s.to_json() for s in w.seats])
        conn.execute(update(games).where(games.c.id == w.game_id).values(seats=seats, status=w.status, updated=w.at))
        self._announce(conn, w.game_id)

    def _write_actions(self, conn: Connection, batch: list[PendingAction], now: float) -> None:
        """Write a batch's actions and their games' rows, each kind of statement once for
        all of them (executemany: a statement per action was most of a commit's time)."""
        conn.execute(
            _INSERT_ACTION,
            [{"game_id": a.game_id, "idx": a.idx, "action": json.dumps(a.action), "client_id": a.client_id, "created": now} for a in batch],
        )
        plain = [{"gid": a.game_id, "now": now, "to_act": a.to_act} for a in batch if a.status is None and a.reshuffle is None]
        if plain:
            conn.execute(_TOUCH_GAME, plain)
        for a in batch:
            if a.status is None and a.reshuffle is None:
                continue
            values: dict[str, Any] = {"updated": now, "to_act": a.to_act}
            if a.status is not None:
                values["status"] = a.status
            if a.reshuffle is not None:
                values["reshuffle"] = json.dumps(a.reshuffle)
            conn.execute(update(games).where(games.c.id == a.game_id).values(**values))
        for gid in dict.fromkeys(a.game_id for a in batch):
            self._announce(conn, gid)

    def remove_last_action(self, game_id: str, idx: int) -> None:
        """Take back action ``idx``, which must be the game's last (an undo). DuplicateAction
        (nothing removed) if it is not the last one any more. (The seat to act stays: an undo
        takes back a placement of the seat to act, which acts again.)"""
        self._still_there()
        with self._begin() as conn:
            last = conn.execute(select(func.max(actions.c.idx)).where(actions.c.game_id == game_id)).scalar_one()
            if last != idx:
                raise DuplicateAction(f"action {idx} is not the last of game {game_id} (that is {last})")
            conn.execute(delete(actions).where(actions.c.game_id == game_id, actions.c.idx == idx))
            conn.execute(update(games).where(games.c.id == game_id).values(updated=time.time()))
            self._announce(conn, game_id)

    def actions(self, game_id: str) -> list[dict[str, Any]]:
        """The game's whole log, in order."""
        return self.actions_from(game_id, 0)

    def client_action(self, game_id: str, client_id: str) -> int | None:
        """The index of the action a client id was applied as, or None."""
        with self.engine.connect() as conn:
            r = conn.execute(select(actions.c.idx).where(actions.c.game_id == game_id, actions.c.client_id == client_id)).first()
        return int(r[0]) if r is not None else None

    def expire_idle(self, before: float) -> list[str]:
        """Games not finished and unchanged since ``before`` (Unix time) end as "expired";
        returns their ids. Their logs stay (nothing is deleted)."""
        self._still_there()
        with self._begin() as conn:
            ids = [r[0] for r in conn.execute(select(games.c.id).where(games.c.status.in_(("open", "running")), games.c.updated < before))]
            if ids:
                conn.execute(update(games).where(games.c.id.in_(ids)).values(status="expired", updated=time.time()))
                for gid in ids:
                    self._announce(conn, gid)
        return ids

    # -- the chat, and presence ----------------------------------------------------

    def add_chat(self, game_id: str, version: int, seat: int | None, kind: str, name: str, text_: str) -> ChatLine:
        """Append a line to a game's chat (its index follows the last; a race between
        processes is retried)."""
        self._still_there()
        for _ in range(5):
            try:
                with self._begin() as conn:
                    last = conn.execute(select(func.max(chat.c.idx)).where(chat.c.game_id == game_id)).scalar_one()
                    line = ChatLine(0 if last is None else int(last) + 1, time.time(), version, seat, kind, name, text_)
                    conn.execute(insert(chat).values(game_id=game_id, **{k: v for k, v in line.to_json().items()}))
                    self._announce(conn, game_id)
                return line
            except IntegrityError:
                continue
        raise StorageError(f"game {game_id}: the chat line could not be stored")

    def chat_from(self, game_id: str, idx: int = 0) -> list[ChatLine]:
        """A game's chat lines from index ``idx`` on, in order."""
        with self.engine.connect() as conn:
            rows = conn.execute(select(chat).where(chat.c.game_id == game_id, chat.c.idx >= idx).order_by(chat.c.idx))
            return [ChatLine(r.idx, r.at, r.version, r.seat, r.kind, r.name, r.text) for r in rows]

    def count_actions(self, game_id: str) -> int:
        with self.engine.connect() as conn:
            return int(conn.execute(select(func.count()).select_from(actions).where(actions.c.game_id == game_id)).scalar_one())


def _sqlite_pragmas(dbapi_conn: Any, _record: Any) -> None:
    cur = dbapi_conn.cursor()
    cur.execute("PRAGMA journal_mode=WAL")
    cur.execute("PRAGMA synchronous=FULL")
    cur.execute("PRAGMA busy_timeout=5000")
    cur.close()
