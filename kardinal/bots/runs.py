"""Runs of many games (``kardinal tournament``, ``kardinal selfplay``): the games as jobs,
the engine that plays them, and the results file that lets a run resume.

A game is a job: its number decides its seating, its deal and its bots' seeds
(:func:`~kardinal.bots.tournament.play_game`), so a game is the same wherever it is
played. (A run of the kind ``random-moves`` plays :func:`random_moves_game` instead:
uniformly random legal moves straight from the rules core, the fast games ``kardinal
selfplay`` plays without bots.) The engine is pluggable: one process or a pool of processes on this machine
(:class:`LocalEngine`), or Ray tasks on a cluster (``kardinal.research.cluster``); so is
the job's function (the plain game, or a game that also returns its decisions as data).

The results file holds JSON lines, written and flushed game by game as they finish (in
the order they finish). The first line is the header, naming the run's settings::

    {"format": "kardinal-results", "version": 1, "command": "tournament", "kardinal": "0.1.0",
     "settings": {"bots": [...], "players": 4, "seed": 1, "games": 200, "board": "standard",
                  "board_digest": "sha256:...", "variants": [], "told": null, "records": false,
                  "kind": "bots"}}

and every other line one finished game (the fields of
:class:`~kardinal.bots.tournament.GameResult`; ``game`` counts from 0)::

    {"game": 5, "deal_seed": ..., "entry_of_seat": [3, 0, 1, 2], "scores": [...],
     "winners": [1], "pieces_left": [...], "cut_short": [...], "times": [...],
     "main_times": [...]}

with ``"record"`` (the game's record) when the settings' ``records`` is true. A run
given the file again with ``resume`` plays only the games the file lacks; a last line
cut short by a killed run is dropped; a file written with other settings is refused.
"""

from __future__ import annotations

import functools
import json
import multiprocessing
import os
import random
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from dataclasses import asdict, dataclass
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import IO, Any, Protocol, TypeVar

from kardinal.rules.board import Board, get_board
from kardinal.rules.record import record_of
from kardinal.rules.state import DRAW, new_game
from kardinal.rules.variants import parse_variants

from . import BOTS
from .tournament import GameResult, count_time, play_game

__all__ = [
    "Settings",
    "GameJob",
    "play_job",
    "random_moves_game",
    "Engine",
    "LocalEngine",
    "GameRun",
    "ResultsError",
    "EngineError",
    "read_header",
    "result_line",
    "result_of_line",
    "read_results",
    "RESULTS_FORMAT",
]

RESULTS_FORMAT = "kardinal-results"
BOTS_PLAY = "bots"
RANDOM_MOVES = "random-moves"
KINDS = (BOTS_PLAY, RANDOM_MOVES)
RESULTS_VERSION = 1

A = TypeVar("A")
R = TypeVar("R")
X = TypeVar("X")


class ResultsError(ValueError):
    """A results file that cannot be read, or that was written with other settings."""


class EngineError(RuntimeError):
    """An engine cannot play the games (a cluster out of reach, another kardinal on a node)."""


@functools.cache
def kardinal_version() -> str:
    try:
        return version("kardinal")
    except PackageNotFoundError:  # pragma: no cover - run from a source tree
        return "unknown"


@dataclass(frozen=True)
class Settings:
    """What decides a run's games: two runs with the same settings play the same games."""

    bots: tuple[str, ...]
    players: int
    seed: int
    games: int
    board: str | None = None  # an installed board's id or a board file; None: the standard board
    variants: tuple[str, ...] = ()
    told: int | None = None  # the entry (from 0) told every other hand (tournament.py)
    records: bool = False  # each game's record in its line of the results file
    # "bots": the bots play the tournament's games (play_game); "random-moves": uniformly
    # random legal moves straight from the rules core, game g dealt with seed + g, entry e
    # in seat e (random_moves_game: the games ``kardinal selfplay`` has always played)
    kind: str = "bots"

    def checked(self) -> Settings:
        """These settings with the bots' names and the variants normalised; a ValueError
        says what is wrong."""
        names = tuple(x.strip().lower() for x in self.bots)
        for x in names:
            if x not in BOTS:
                raise ValueError(f"unknown bot {x!r}; choose from {', '.join(sorted(BOTS))}")
        if len(names) != self.players:
            raise ValueError(f"--bots names {len(names)} bots, but there are {self.players} players: name one bot per seat")
        b = get_board(self.board)
        if self.players not in b.removed_per_kind:
            raise ValueError(f"the game is for {', '.join(map(str, b.player_counts))} players, not {self.players}")
        if self.games < 1:
            raise ValueError("--games must be at least 1")
        if self.told is not None and not 0 <= self.told < self.players:
            raise ValueError(f"--told names entry {self.told + 1}, but the entries are 1 to {self.players}")
        if self.kind not in KINDS:
            raise ValueError(f"unknown kind of run {self.kind!r}; choose from {', '.join(KINDS)}")
        if self.kind == RANDOM_MOVES and self.told is not None:
            raise ValueError("random moves see everything already: --told is for bots")
        variants = parse_variants(self.variants)
        return Settings(names, self.players, self.seed, self.games, self.board, variants, self.told, self.records, self.kind)

    def header(self, command: str) -> dict[str, Any]:
        """The results file's first line. The board is named by its id and content digest
        (not by the path of its file)."""
        b = get_board(self.board)
        settings: dict[str, Any] = {
            "bots": list(self.bots),
            "players": self.players,
            "seed": self.seed,
            "games": self.games,
            "board": b.id,
            "board_digest": b.digest,
            "variants": list(self.variants),
            "told": self.told,
            "records": self.records,
            "kind": self.kind,
        }
        return {
            "format": RESULTS_FORMAT,
            "version": RESULTS_VERSION,
            "command": command,
            "kardinal": kardinal_version(),
            "settings": settings,
        }

    def job(self, game: int, keep_record: bool = False) -> GameJob:
        keep = keep_record or self.records
        return GameJob(self.bots, self.players, game, self.seed, self.board, self.variants, self.told, keep, self.kind)


@dataclass(frozen=True)
class GameJob:
    """One game of a run, everything a process (here or on another machine) needs to play it."""

    bots: tuple[str, ...]
    players: int
    game: int
    seed: int
    board: str | None
    variants: tuple[str, ...]
    told: int | None
    keep_record: bool
    kind: str = "bots"


def play_job(job: GameJob) -> tuple[GameResult, None]:
    """The plain game: its result, and nothing beside it."""
    b = get_board(job.board)
    if job.kind == RANDOM_MOVES:
        return random_moves_game(job.players, job.game, job.seed, b, job.keep_record, job.variants), None
    return play_game(job.bots, job.players, job.game, job.seed, b, job.keep_record, job.variants, job.told), None


def random_moves_game(
    players: int, game: int, seed: int, board: Board, keep_record: bool = False, variants: Sequence[str] = ()
) -> GameResult:
    """Game ``game`` of uniformly random legal moves, straight from the rules core (no views,
    no bots: about ten times as fast as the ``random`` bot's games): dealt with ``seed +
    game``, which also seeds the moves; seat e is entry e. ``kardinal selfplay`` without
    ``--bots`` has always played these games (their records name the seats "Random 1"...)."""
    s = new_game(players, seed=seed + game, board=board, variants=variants)
    rng = random.Random(seed + game)
    times = [[0.0, 0.0, 0.0] for _ in range(players)]
    main_times = [[0.0, 0.0, 0.0] for _ in range(players)]
    clock = time.perf_counter
    while not s.is_over:
        seat = s.current
        drawing = s.phase == DRAW
        t0 = clock()
        move = rng.choice(s.legal_moves())
        dt = clock() - t0
        count_time(times[seat], None if drawing else main_times[seat], dt)
        s.play_trusted(move)
    return GameResult(
        game=game,
        deal_seed=seed + game,
        entry_of_seat=list(range(players)),
        scores=s.scores[:],
        winners=list(s.winners or []),
        pieces_left=[s.pieces_left(p) for p in range(players)],
        times=times,
        main_times=main_times,
        record=record_of(s, [f"Random {i + 1}" for i in range(players)]) if keep_record else None,
        cut_short=[0] * players,
    )


class Engine(Protocol):
    """Plays jobs, yielding their results as they finish (in any order)."""

    def map_unordered(self, fn: Callable[[A], R], jobs: Sequence[A]) -> Iterator[R]: ...


class LocalEngine:
    """Jobs in this process (``workers=1``), or in a pool of processes on this machine
    (default: one per core)."""

    def __init__(self, workers: int | None = None) -> None:
        self.workers = workers

    def map_unordered(self, fn: Callable[[A], R], jobs: Sequence[A]) -> Iterator[R]:
        n = max(1, min(self.workers or os.cpu_count() or 1, len(jobs)))
        if n == 1:
            for j in jobs:
                yield fn(j)
            return
        with multiprocessing.get_context("fork").Pool(n) as pool:
            yield from pool.imap_unordered(fn, jobs)


# -- the results file ---------------------------------------------------------------------------


def result_line(r: GameResult, with_record: bool) -> dict[str, Any]:
    d = asdict(r)
    record = d.pop("record")
    if with_record:
        d["record"] = record
    return d


def _ints(d: dict[str, Any], key: str, n: int | None) -> list[int]:
    x = d.get(key)
    if not isinstance(x, list) or not all(isinstance(v, int) and not isinstance(v, bool) for v in x) or (n is not None and len(x) != n):
        raise ValueError(f"{key!r} must be a list of {n if n is not None else 'some'} integers")
    return x


def _times(d: dict[str, Any], key: str, n: int) -> list[list[float]]:
    x = d.get(key)
    ok = isinstance(x, list) and len(x) == n
    ok = ok and all(isinstance(t, list) and len(t) == 3 and all(isinstance(v, int | float) for v in t) for t in x)  # type: ignore[union-attr]
    if not ok:
        raise ValueError(f"{key!r} must be {n} lists [sum, count, max]")
    return [[float(v) for v in t] for t in x]  # type: ignore[union-attr]


def result_of_line(d: Any, players: int) -> GameResult:
    """A game's result from its line of a results file (a ValueError says what is wrong)."""
    if not isinstance(d, dict):
        raise ValueError("a game's line must be a JSON object")
    game = d.get("game")
    seed = d.get("deal_seed")
    if not isinstance(game, int) or isinstance(game, bool) or game < 0:
        raise ValueError("'game' must be a whole number from 0")
    if not isinstance(seed, int) or isinstance(seed, bool):
        raise ValueError("'deal_seed' must be a whole number")
    seats = _ints(d, "entry_of_seat", players)
    if sorted(seats) != list(range(players)):
        raise ValueError(f"'entry_of_seat' must name each of the {players} entries once")
    winners = _ints(d, "winners", None)
    if not all(0 <= w < players for w in winners):
        raise ValueError("'winners' must be seats")
    record = d.get("record")
    if record is not None and not isinstance(record, dict):
        raise ValueError("'record' must be a record (a JSON object)")
    return GameResult(
        game=game,
        deal_seed=seed,
        entry_of_seat=seats,
        scores=_ints(d, "scores", players),
        winners=winners,
        pieces_left=_ints(d, "pieces_left", players),
        times=_times(d, "times", players),
        main_times=_times(d, "main_times", players),
        record=record,
        cut_short=_ints(d, "cut_short", players),
    )


def _header(raw: bytes, path: Path) -> dict[str, Any]:
    try:
        header = json.loads(raw)
    except (json.JSONDecodeError, UnicodeDecodeError):
        header = None
    if not isinstance(header, dict) or header.get("format") != RESULTS_FORMAT or not isinstance(header.get("settings"), dict):
        raise ResultsError(f"{path} is not a results file (its first line is not a {RESULTS_FORMAT} header)")
    if header.get("version") != RESULTS_VERSION:
        raise ResultsError(f"{path}: results format version {header.get('version')!r}; this version of kardinal reads {RESULTS_VERSION}")
    if not isinstance(header["settings"].get("players"), int):
        raise ResultsError(f"{path}: its header names no number of players")
    return header


def read_header(path: Path) -> dict[str, Any]:
    """A results file's first line: the settings of its run."""
    try:
        with path.open("rb") as f:
            raw = f.readline()
    except OSError as e:
        raise ResultsError(f"cannot read {path}: {e.strerror}") from None
    if not raw.endswith(b"\n"):
        raise ResultsError(f"{path} is not a results file: it holds no complete first line")
    return _header(raw, path)


def read_results(path: Path, records: bool | Collection[int] = True) -> tuple[dict[str, Any], list[GameResult], int]:
    """A results file's header, its games, and the length in bytes of its complete lines: a
    last line cut short (no newline at its end, or not JSON: a run killed while writing it)
    is left out. ``records``: keep the games' records (all, none, or these games'). A
    ResultsError says what is wrong with anything else."""
    header = read_header(path)
    players = header["settings"]["players"]
    results: list[GameResult] = []
    seen: set[int] = set()
    good = 0
    with path.open("rb") as f:
        lines = iter(f)
        good = len(next(lines))
        number = 1
        for raw in lines:
            number += 1
            if not raw.endswith(b"\n"):
                break  # the last line, cut short: dropped
            try:
                r = result_of_line(json.loads(raw), players)
            except (json.JSONDecodeError, UnicodeDecodeError, ValueError) as e:
                if f.read(1) == b"":
                    break  # the last line, cut short where a newline happened to be: dropped
                raise ResultsError(f"{path}, line {number}: {e}") from None
            if r.game in seen:
                raise ResultsError(f"{path}, line {number}: game {r.game} is there twice")
            if records is not True and (records is False or r.game not in records):
                r.record = None
            seen.add(r.game)
            results.append(r)
            good += len(raw)
    return header, results, good


def _differences(ours: dict[str, Any], theirs: dict[str, Any]) -> list[str]:
    out = []
    for k, v in ours.items():
        if k == "board_digest" and theirs.get("board") != ours["board"]:
            continue  # the board's id already differs
        if theirs.get(k) != v:
            out.append(f"{k} {json.dumps(theirs.get(k))} there, {json.dumps(v)} here")
    return out


class GameRun:
    """The games of one run with its results file: which games are done, which are left,
    and playing them (each result written to the file and the records folder as it comes).

    ``out``: the results file; without ``resume`` it must not exist yet (a run never
    overwrites one). ``records``: a folder for every game's record (``game-0001.json`` is
    game 0). ``record_games``: games whose record is kept in memory for the caller (the
    result's ``record``), e.g. the first game to show it."""

    def __init__(
        self,
        settings: Settings,
        *,
        command: str = "tournament",
        out: Path | None = None,
        resume: bool = False,
        records: Path | None = None,
        record_games: Collection[int] = (),
    ) -> None:
        self.settings = settings.checked()
        self.command = command
        self.out = out
        self.records = records
        self.record_games = set(record_games)
        self.results: list[GameResult] = []  # every finished game: the file's, then this run's
        self.notes: list[str] = []  # what the caller may want to tell (a dropped line, another version)
        self.again: set[int] = set()  # finished games played again (play_again)
        self._keep = 0  # bytes of the file to keep
        self._header = self.settings.header(command)
        if resume and out is None:
            raise ValueError("--resume needs the results file (--out)")
        if out is not None and out.exists() and out.stat().st_size > 0:
            if not resume:
                raise ResultsError(f"{out} exists: add --resume to play the games it lacks, or name another file")
            self._load(out)
        done = {r.game for r in self.results}
        self.todo = [g for g in range(self.settings.games) if g not in done]  # the games this run plays

    def _load(self, path: Path) -> None:
        header, results, good = read_results(path, self.record_games)
        diff = _differences(self._header["settings"], header["settings"])
        if diff:
            raise ResultsError(f"{path} was written with other settings ({'; '.join(diff)}): give the same settings, or name another file")
        if size := path.stat().st_size - good:
            self.notes.append(
                f"{path}: its last line was cut short ({size} bytes, a run ended while writing it): that game is played again"
            )
        if header.get("kardinal") != self._header["kardinal"]:
            self.notes.append(f"{path} was begun by kardinal {header.get('kardinal')}; this is {self._header['kardinal']}")
        for r in results:
            if not 0 <= r.game < self.settings.games:
                raise ResultsError(f"{path}: game {r.game} is not one of the {self.settings.games} games of these settings")
        self.results = results
        self._keep = good

    def play_again(self, games: Collection[int]) -> None:
        """Play these finished games again, for what the job returns beside the result (the
        data rows of games whose result was written but whose rows were lost); their lines
        are not written twice, nor their results counted twice."""
        again = set(games) & {r.game for r in self.results}
        self.again |= again
        self.todo = sorted(set(self.todo) | again)

    @property
    def total(self) -> int:
        return self.settings.games

    def _open(self) -> IO[str] | None:
        if self.out is None:
            return None
        if self._keep:
            with self.out.open("r+b") as cut:
                cut.truncate(self._keep)  # a line cut short goes
            return self.out.open("a", encoding="utf-8", newline="\n")
        self.out.parent.mkdir(parents=True, exist_ok=True)
        f = self.out.open("w", encoding="utf-8", newline="\n")
        f.write(json.dumps(self._header, separators=(",", ":")) + "\n")
        f.flush()
        self._keep = f.tell()
        return f

    def play(self, engine: Engine, job: Callable[[GameJob], tuple[GameResult, X]]) -> Iterator[tuple[GameResult, X]]:
        """Play the games left (``todo``) with ``job`` (:func:`play_job`, or one that returns
        more beside the result), yielding each result and what came beside it once it is
        written; ``results`` then holds it too."""
        jobs = [self.settings.job(g, self.records is not None or g in self.record_games) for g in self.todo]
        if self.records is not None:
            self.records.mkdir(parents=True, exist_ok=True)
        f = self._open()
        try:
            for r, extra in engine.map_unordered(job, jobs):
                if r.game in self.again:
                    yield r, extra  # its result is there already
                    continue
                if f is not None:
                    f.write(json.dumps(result_line(r, self.settings.records), separators=(",", ":")) + "\n")
                    f.flush()
                if self.records is not None and r.record is not None:
                    path = self.records / f"game-{r.game + 1:04d}.json"
                    path.write_text(json.dumps(r.record, indent=1) + "\n", encoding="utf-8")
                if r.game not in self.record_games:
                    r.record = None  # a long run keeps no records in memory
                self.results.append(r)
                yield r, extra
        finally:
            if f is not None:
                f.close()

    def sorted_results(self) -> list[GameResult]:
        return sorted(self.results, key=lambda r: r.game)
