"""Self-play data for learning: every decision of bots' games as a row, in Parquet shards.

``kardinal selfplay --bots hard,hard,hard,hard --games 100 --data DIR`` writes it (with
``--ray``, on a Ray cluster); ``docs/research/data.md`` documents the format and
``examples/load_selfplay.py`` loads it.

* :func:`game_rows` plays one game exactly as :func:`kardinal.bots.tournament.play_game`
  does (the same seating, seeds, moves and record) and returns, beside its
  :class:`~kardinal.bots.tournament.GameResult`, one row per decision (draws of R5.1
  included, marked by ``phase``) as columns of plain Python lists (they travel back
  from Ray workers pickled).
* :class:`DataWriter` writes the rows of whole games into shards ``part-00000.parquet``,
  ``part-00001.parquet``, ..., each complete on its own and put in place atomically
  (written under a temporary name, then renamed), so an interrupted run leaves only
  whole shards; :meth:`DataWriter.games_in` lists the games already written (resume).
* :func:`load` reads a directory back as one ``pyarrow.Table``, refusing data of another
  format version; :func:`arrays` turns it into numpy arrays for training.

A row holds only what the acting seat knew: its observation tensor is
:mod:`kardinal.research.encode` from that seat (public information and its own hand,
R13), the same tensor as the OpenSpiel and PettingZoo interfaces; actions are numbers of
the fixed table of :mod:`kardinal.research.actions`. Only the final result, known after
the game, is added to every row as the learning target.
"""

from __future__ import annotations

import json
import os
import time
from collections.abc import Sequence
from pathlib import Path
from types import TracebackType
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq

from kardinal import __version__
from kardinal.bots.base import Bot
from kardinal.bots.ismcts import ISMCTSBot
from kardinal.bots.runs import GameJob
from kardinal.bots.tournament import GameResult, play_game
from kardinal.rules.board import Board, get_board
from kardinal.rules.moves import Move
from kardinal.rules.scoring import win_shares
from kardinal.rules.state import DRAW, State

from .actions import ActionTable, action_table
from .encode import fields, tensor_size, write_tensor

__all__ = [
    "FORMAT",
    "FORMAT_VERSION",
    "COLUMNS",
    "DataFormatError",
    "game_rows",
    "job_rows",
    "data_metadata",
    "schema",
    "DataWriter",
    "load",
    "arrays",
]

FORMAT = "kardinal-selfplay"
# Raised whenever a column or a metadata key changes meaning, is removed or is added;
# load refuses any other version (a reader must not guess).
FORMAT_VERSION = 1

# the columns of a row, in this order (docs/research/data.md describes each)
COLUMNS = (
    "game",
    "decision",
    "seat",
    "entry",
    "phase",
    "observation",
    "legal",
    "action",
    "visits",
    "scores",
    "win_shares",
    "score",
    "margin",
    "win",
)

# metadata the caller gives (data_metadata builds it); the writer adds the rest
GIVEN_KEYS = ("board", "variants", "players", "bots", "seed")
# what makes shards one run's: a resumed run and every shard loaded together must agree on
# these (other keys a caller adds, a note or a date, may differ)
RUN_KEYS = (
    *GIVEN_KEYS,
    "format",
    "format_version",
    "kardinal_version",
    "board_digest",
    "observation_fields",
    "observation_size",
    "action_space",
    "action_table",
)

SHARD_GAMES = 100  # a shard at least every this many games,
SHARD_ROWS = 50_000  # or this many rows,
SHARD_SECONDS = 300.0  # or this long after its first game (a slow run loses at most this much when stopped)


class DataFormatError(ValueError):
    """A data directory this version cannot read or write to: another format, another
    format version, or the metadata of another run."""


# -- the rows of a game ----------------------------------------------------------------


def _visits(bot: Bot, table: ActionTable) -> list[int] | None:
    """The visits of the root's moves in the search that chose this decision, per action
    number (the prior's virtual visits left out); None when no search chose (a bot that
    does not search, or a search bot answering a single legal move or a draw by its rule)."""
    if not isinstance(bot, ISMCTSBot) or not bot.last_root:
        return None
    out = [0] * len(table)
    for move, (n, _mean) in bot.last_root.items():
        out[table.encode(move)] += n
    return out


def game_rows(
    bot_names: Sequence[str],
    players: int,
    game: int,
    seed: int,
    board_name: str | None,
    variants: tuple[str, ...],
) -> tuple[GameResult, dict[str, list[Any]]]:
    """Play game number ``game`` as :func:`~kardinal.bots.tournament.play_game` does (its
    record kept) and return its result and its rows: a column (a plain list) per name of
    :data:`COLUMNS`, a row per decision in the order they were played."""
    board = get_board(board_name)
    table = action_table(board)
    cols: dict[str, list[Any]] = {name: [] for name in COLUMNS}
    obs = np.zeros(tensor_size(board, players), np.float32)
    enc = table.encode

    def on_decision(s: State, seat: int, move: Move, bot: Bot) -> None:
        write_tensor(obs, s, seat)
        legal = [False] * len(table)
        for i in table.encode_all(s.legal_moves()):
            legal[i] = True
        cols["decision"].append(len(cols["decision"]))
        cols["seat"].append(seat)
        cols["phase"].append("draw" if s.phase == DRAW else "main")  # plain strings: they are pickled
        cols["observation"].append(obs.tolist())
        cols["legal"].append(legal)
        cols["action"].append(enc(move))
        cols["visits"].append(_visits(bot, table))

    result = play_game(bot_names, players, game, seed, board, True, variants, on_decision=on_decision)
    entry_of = result.entry_of_seat
    shares = win_shares(result.winners, players)
    rows = len(cols["decision"])
    cols["game"] = [game] * rows
    cols["entry"] = [entry_of[seat] for seat in cols["seat"]]
    cols["scores"] = [result.scores[:] for _ in range(rows)]
    cols["win_shares"] = [shares[:] for _ in range(rows)]
    best_other = [max(x for q, x in enumerate(result.scores) if q != p) for p in range(players)]
    cols["score"] = [result.scores[seat] for seat in cols["seat"]]
    cols["margin"] = [result.scores[seat] - best_other[seat] for seat in cols["seat"]]
    cols["win"] = [shares[seat] for seat in cols["seat"]]
    return result, cols


def job_rows(job: GameJob) -> tuple[GameResult, dict[str, list[Any]]]:
    """:func:`game_rows` of a game of a run (:mod:`kardinal.bots.runs`): the job that
    ``kardinal selfplay --data`` hands its engine (processes here, or Ray tasks)."""
    return game_rows(job.bots, job.players, job.game, job.seed, job.board, job.variants)


# -- the format --------------------------------------------------------------------------


def data_metadata(bot_names: Sequence[str], players: int, seed: int, board_name: str | None, variants: Sequence[str]) -> dict[str, str]:
    """The metadata a :class:`DataWriter` is given: what the games were (the writer adds
    the format, the versions and the layouts)."""
    return {
        "board": get_board(board_name).id,
        "variants": ",".join(variants),
        "players": str(players),
        "bots": ",".join(x.strip().lower() for x in bot_names),
        "seed": str(seed),
    }


def schema(board: Board, players: int) -> pa.Schema:
    """The columns' types (without metadata) for a board and a number of players."""
    obs = tensor_size(board, players)
    actions = len(action_table(board))
    return pa.schema(
        [
            pa.field("game", pa.int32(), nullable=False),
            pa.field("decision", pa.int16(), nullable=False),
            pa.field("seat", pa.int8(), nullable=False),
            pa.field("entry", pa.int8(), nullable=False),
            pa.field("phase", pa.string(), nullable=False),
            pa.field("observation", pa.list_(pa.float32(), obs), nullable=False),
            pa.field("legal", pa.list_(pa.bool_(), actions), nullable=False),
            pa.field("action", pa.int16(), nullable=False),
            pa.field("visits", pa.list_(pa.int32(), actions), nullable=True),
            pa.field("scores", pa.list_(pa.int16(), players), nullable=False),
            pa.field("win_shares", pa.list_(pa.float32(), players), nullable=False),
            pa.field("score", pa.int16(), nullable=False),
            pa.field("margin", pa.int16(), nullable=False),
            pa.field("win", pa.float32(), nullable=False),
        ]
    )


def _full_metadata(given: dict[str, str]) -> dict[str, str]:
    missing = [k for k in GIVEN_KEYS if k not in given]
    if missing:
        raise ValueError(f"the data's metadata needs {', '.join(missing)} (see data_metadata)")
    board = get_board(given["board"])
    players = int(given["players"])
    table = action_table(board)
    meta = dict(given)
    meta.update(
        {
            "format": FORMAT,
            "format_version": str(FORMAT_VERSION),
            "kardinal_version": __version__,
            "board": board.id,
            "board_digest": board.digest,
            "observation_fields": json.dumps([[name, list(shape)] for name, shape in fields(board, players)]),
            "observation_size": str(tensor_size(board, players)),
            "action_space": str(len(table)),
            "action_table": table.describe(),
        }
    )
    return meta


def _metadata_of(path: Path) -> dict[str, str]:
    raw = pq.read_schema(path).metadata or {}
    return {k.decode(): v.decode() for k, v in raw.items() if not k.startswith(b"ARROW:")}


def _check_format(path: Path, meta: dict[str, str]) -> None:
    if meta.get("format") != FORMAT:
        raise DataFormatError(f"{path} is not Kardinal self-play data (no format {FORMAT!r} in its metadata)")
    version = meta.get("format_version")
    if version != str(FORMAT_VERSION):
        raise DataFormatError(
            f"{path} has format version {version}, but this Kardinal ({__version__}) reads version {FORMAT_VERSION} only: "
            "read it with the Kardinal that wrote it, or produce the data again"
        )


def _differ(a: dict[str, str], b: dict[str, str]) -> list[str]:
    """The keys of :data:`RUN_KEYS` two shards' metadata disagree on."""
    return [k for k in RUN_KEYS if a.get(k) != b.get(k)]


def _shards(directory: Path) -> list[Path]:
    return sorted(directory.glob("part-*.parquet"))


# -- writing -----------------------------------------------------------------------------


class DataWriter:
    """Writes the rows of whole games into Parquet shards in ``directory``.

    ``metadata``: at least board, variants, players, bots and seed (:func:`data_metadata`);
    the format, its version, the Kardinal version, the board's digest, the observation
    layout and the action space are added. A directory that already holds shards is
    continued (resume) if their metadata agrees on :data:`RUN_KEYS`, and refused otherwise. A shard is
    written once ``games_per_shard`` games or ``rows_per_shard`` rows are waiting, or
    ``seconds_per_shard`` after the first of them arrived, and at :meth:`close`.
    """

    def __init__(
        self,
        directory: Path,
        metadata: dict[str, str],
        games_per_shard: int = SHARD_GAMES,
        rows_per_shard: int = SHARD_ROWS,
        seconds_per_shard: float = SHARD_SECONDS,
    ) -> None:
        self._clock = time.monotonic
        self.directory = Path(directory)
        self.metadata = _full_metadata(metadata)
        board = get_board(self.metadata["board"])
        self.players = int(self.metadata["players"])
        self.schema = schema(board, self.players).with_metadata(self.metadata)
        self.games_per_shard = games_per_shard
        self.rows_per_shard = rows_per_shard
        self.seconds_per_shard = seconds_per_shard
        self.directory.mkdir(parents=True, exist_ok=True)
        for tmp in self.directory.glob(".part-*.parquet.tmp"):
            tmp.unlink()  # a shard an interrupted run did not finish: its games are played again
        existing = _shards(self.directory)
        for path in existing:
            old = _metadata_of(path)
            _check_format(path, old)
            differ = _differ(old, self.metadata)
            if differ:
                raise DataFormatError(
                    f"{self.directory} holds data of another run ({path.name} differs in {', '.join(differ)}): write to another directory"
                )
        self.written = self.games_in(self.directory) if existing else set()
        self._next = 1 + max((int(p.stem.split("-")[1]) for p in existing), default=-1)
        self._pending: list[pa.Table] = []
        self._pending_games: set[int] = set()
        self._rows = 0
        self._since = 0.0
        self.closed = False

    def add(self, game: int, columns: dict[str, list[Any]]) -> None:
        """Queue the rows of one whole game (the columns of :func:`game_rows`); a game
        already written or queued is refused."""
        if self.closed:
            raise ValueError("the writer is closed")
        if set(columns) != set(COLUMNS):
            raise ValueError(f"the columns must be {', '.join(COLUMNS)}; got {', '.join(sorted(columns))}")
        lengths = {len(v) for v in columns.values()}
        if len(lengths) != 1:
            raise ValueError(f"the columns of game {game} have different lengths: {sorted(lengths)}")
        if any(g != game for g in columns["game"]):
            raise ValueError(f"the rows given for game {game} name other games")
        if game in self.written or game in self._pending_games:
            raise ValueError(f"game {game} is already in {self.directory}")
        try:
            table = pa.table({name: columns[name] for name in COLUMNS}, schema=self.schema)
        except (pa.ArrowInvalid, pa.ArrowTypeError, OverflowError) as e:
            raise ValueError(f"the rows of game {game} do not fit the format: {e}") from None
        if not self._pending:
            self._since = self._clock()
        self._pending.append(table)
        self._pending_games.add(game)
        self._rows += table.num_rows
        if (
            len(self._pending) >= self.games_per_shard
            or self._rows >= self.rows_per_shard
            or self._clock() - self._since >= self.seconds_per_shard
        ):
            self.flush()

    def flush(self) -> None:
        """Write the games waiting as one shard (nothing if none wait)."""
        if not self._pending:
            return
        table = pa.concat_tables(self._pending)
        name = f"part-{self._next:05d}.parquet"
        tmp = self.directory / f".{name}.tmp"
        pq.write_table(table, tmp, compression="zstd")
        with open(tmp, "rb") as f:
            os.fsync(f.fileno())
        os.replace(tmp, self.directory / name)
        self._next += 1
        self.written |= self._pending_games
        self._pending = []
        self._pending_games = set()
        self._rows = 0

    def close(self) -> None:
        """Write what waits; the writer takes no more games."""
        if not self.closed:
            self.flush()
            self.closed = True

    def __enter__(self) -> DataWriter:
        return self

    def __exit__(self, kind: type[BaseException] | None, value: BaseException | None, tb: TracebackType | None) -> None:
        self.close()

    @staticmethod
    def games_in(directory: Path) -> set[int]:
        """The games whose rows are in the directory's shards (each whole in one shard)."""
        out: set[int] = set()
        for path in _shards(Path(directory)):
            _check_format(path, _metadata_of(path))
            games = pq.read_table(path, columns=["game"]).column("game").to_pylist()
            out.update(games)
        return out


# -- reading -----------------------------------------------------------------------------


def load(directory: Path, columns: Sequence[str] | None = None) -> pa.Table:
    """Every shard of a directory as one table (shards in order), its metadata the first
    shard's (the shards must agree on :data:`RUN_KEYS`); ``columns``: only these (all by
    default). :class:`DataFormatError` for another format or version, or shards of
    different runs."""
    paths = _shards(Path(directory))
    if not paths:
        raise FileNotFoundError(f"no self-play data (part-*.parquet) in {directory}")
    unknown = [c for c in columns or () if c not in COLUMNS]
    if unknown:
        raise ValueError(f"no column {', '.join(unknown)}; the columns are {', '.join(COLUMNS)}")
    metas = []
    for path in paths:
        meta = _metadata_of(path)
        _check_format(path, meta)
        metas.append(meta)
    for path, meta in zip(paths[1:], metas[1:]):
        differ = _differ(metas[0], meta)
        if differ:
            raise DataFormatError(
                f"{path.name} and {paths[0].name} in {directory} are of different runs (they differ in {', '.join(differ)})"
            )
    return pa.concat_tables([pq.read_table(p, columns=list(columns) if columns is not None else None) for p in paths])


def _matrix(column: pa.ChunkedArray, dtype: Any) -> tuple[np.ndarray, np.ndarray]:
    """A fixed-size list column as a (rows, width) array (0 where null) and its validity."""
    arr = column.combine_chunks()
    width = column.type.list_size
    valid = np.asarray(arr.is_valid().to_numpy(zero_copy_only=False), bool)
    out = np.zeros((len(arr), width), dtype)
    out[valid] = np.asarray(arr.flatten().to_numpy(zero_copy_only=False), dtype).reshape(-1, width)
    return out, valid


# arrays' flat columns and their numpy types
_FLAT = (("action", np.int64), ("win", np.float32), ("score", np.int32), ("margin", np.int32), ("seat", np.int64), ("game", np.int64))


def arrays(table: pa.Table) -> dict[str, np.ndarray]:
    """The table's columns as numpy arrays for training (those it has, see
    :func:`load`'s ``columns``): ``observation`` (rows x tensor size, float32), ``legal``
    (rows x actions, bool), ``action`` (rows), ``visits`` (rows x actions, int32, 0 where
    no search chose) and ``searched`` (rows, bool), ``win`` (the acting seat's win share),
    ``score`` and ``margin`` (its final points and its margin to the best other seat),
    ``seat``, ``game`` and ``draw`` (a draw decision, R5.1)."""
    have = set(table.column_names)
    out: dict[str, np.ndarray] = {}
    if "observation" in have:
        out["observation"] = _matrix(table.column("observation"), np.float32)[0]
    if "legal" in have:
        out["legal"] = _matrix(table.column("legal"), bool)[0]
    if "visits" in have:
        out["visits"], out["searched"] = _matrix(table.column("visits"), np.int32)
    if "phase" in have:
        out["draw"] = np.asarray(table.column("phase").to_numpy(zero_copy_only=False) == "draw", bool)
    for name, dtype in _FLAT:
        if name in have:
            out[name] = np.asarray(table.column(name).to_numpy(), dtype)
    return out
