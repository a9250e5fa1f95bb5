"""Bot tournaments: ``kardinal tournament --bots hard,greedy,greedy,random --games 200``.

Games are played in blocks of rotations: a block of ``players`` games shares one deal
(the same seed, hence the same deck and reshuffle), and in game ``j`` of a block the
entry ``e`` (its position in ``--bots``) sits in seat ``(e + j) % players``. So every
entry sits in every seat equally often and meets every deal in every seat, which
removes the start-player advantage and much of the luck of the deal from the comparison.

Bots see only ``view(state, seat)``; every move they return is checked by the rules
(an illegal move stops the tournament with the bot's name and the rule).

Statistics per entry: wins (a shared win, R12.1, counts 1/k for each of k winners), the
win rate, the mean score, the mean margin to the winner (own score minus the best score,
0 for a winner), a rating, and the time per decision (wall clock, mean and max; over all
decisions and over main decisions, i.e. place/exchange/pass, leaving out the draws of
R5.1).

The rating is a batch fit over all games, not a sequential update (so the order of the
games does not matter): the Plackett-Luce model of finishing orders (Luce 1959, Plackett
1975; ahead means more points, then more pieces left, R12.1; players still equal are
split evenly over their orders), fitted by maximum likelihood with Hunter's MM algorithm
(Hunter 2004) and a weak prior (one win and one loss of each entry against a reference
of strength 1), on the Elo scale: 400 log10 of the strength, shifted to a mean of 1500.
A difference of 200 means the stronger finishes ahead of the weaker about 76% of the
time.

The intervals are 95% percentile intervals of a bootstrap over rotation blocks: the
games of one block share a deal, so whole blocks are resampled (1000 resamples, seeded
by the tournament's seed). The games of a block are not independent; an interval over
single games (Wilson's) would be too narrow.

``told`` (``kardinal tournament --told N``) is an experiment, not a way to play: entry N
is told every other player's hand (``view["known"]`` holds the whole hands; the order of
the draw pile stays hidden), so a tournament against the same entries without it, on the
same seed, measures what the hidden cards are worth to that bot. A search bot then deals
only the draw pile at random.

Deterministic given the seed, as long as the bots are (iteration-bounded search is;
a wall-clock budget that runs out makes the moves depend on the machine's speed).
"""

from __future__ import annotations

import itertools
import math
import random
import time
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any

from kardinal.rules.board import Board, get_board
from kardinal.rules.record import record_of
from kardinal.rules.scoring import win_shares
from kardinal.rules.state import DRAW, RuleError, State, new_game
from kardinal.rules.view import hand_view, view

from . import make_bot
from .base import Bot

if TYPE_CHECKING:
    from .runs import Engine

__all__ = [
    "GameResult",
    "EntryStats",
    "run_tournament",
    "play_game",
    "count_time",
    "block_games",
    "seating",
    "wilson",
    "finishing_orders",
    "plackett_luce",
    "LiveRatings",
    "ratings",
    "block_bootstrap",
    "summarize",
    "format_table",
]

RATING_MEAN = 1500.0
RESAMPLES = 1000


class BotError(RuntimeError):
    """A bot answered an illegal move."""


@dataclass
class GameResult:
    game: int
    deal_seed: int
    entry_of_seat: list[int]
    scores: list[int]
    winners: list[int]
    pieces_left: list[int]
    # per entry: [sum, count, max] of decision times, all decisions and main decisions
    times: list[list[float]]
    main_times: list[list[float]]
    record: dict[str, Any] | None = None
    # per entry: decisions a search's time limit ended before its iteration cap
    cut_short: list[int] = field(default_factory=list)


@dataclass
class EntryStats:
    entry: int
    bot: str
    games: int = 0
    wins: float = 0.0
    win_rate: float = 0.0
    ci_low: float = 0.0
    ci_high: float = 0.0
    mean_score: float = 0.0
    mean_margin: float = 0.0
    rating: float = RATING_MEAN
    rating_low: float = RATING_MEAN
    rating_high: float = RATING_MEAN
    decisions: int = 0
    time_mean: float = 0.0
    time_max: float = 0.0
    main_decisions: int = 0
    main_time_mean: float = 0.0
    main_time_max: float = 0.0
    cut_short: int = 0  # decisions its time limit ended before its iteration cap (see ISMCTSBot)
    seats: list[int] = field(default_factory=list)  # games played in each seat


def seating(game: int, players: int) -> list[int]:
    """entry_of_seat for a game: game j of each block rotates the entries by j seats.

    >>> [seating(g, 3) for g in range(3)]
    [[0, 1, 2], [2, 0, 1], [1, 2, 0]]
    """
    rot = game % players
    return [(seat - rot) % players for seat in range(players)]


def deal_seed(seed: int, game: int, players: int) -> int:
    """The deal of a game: shared by the games of one rotation block."""
    return (seed * 1_000_003 + game // players) % (2**63)


def bot_seed(seed: int, game: int, entry: int) -> int:
    return (seed * 7_919 + game * 131 + entry * 17 + 1) % (2**63)


def count_time(every: list[float], main: list[float] | None, dt: float) -> None:
    """A decision's time ``dt`` into an entry's [sum, count, max] of all its decisions, and of
    its main decisions (``main``; None for a draw, R5.1)."""
    for acc in (every,) if main is None else (every, main):
        acc[0] += dt
        acc[1] += 1
        acc[2] = max(acc[2], dt)


def block_games(games: int, players: int) -> int:
    """``games`` rounded up to whole rotation blocks of ``players`` games (a ValueError for
    fewer than one game).

    >>> block_games(10, 4)
    12
    """
    if games < 1:
        raise ValueError("--games must be at least 1")
    return -(-games // players) * players if players > 0 else games


def play_game(
    bot_names: Sequence[str],
    players: int,
    game: int,
    seed: int,
    board: Board | None = None,
    keep_record: bool = False,
    variants: Sequence[str] = (),
    told: int | None = None,
    on_decision: Callable[[State, int, Any, Bot], None] | None = None,
) -> GameResult:
    """Play game number ``game`` of a tournament (seating and seeds from the number);
    ``told``: the entry told every other hand (see the module doc); ``on_decision(state,
    seat, move, bot)``: told of every decision before it is played (the state as the bot
    was asked it; self-play data reads it there)."""
    b = board or get_board(None)
    entry_of_seat = seating(game, players)
    ds = deal_seed(seed, game, players)
    bots = [make_bot(bot_names[e], bot_seed(seed, game, e), b) for e in entry_of_seat]
    s = new_game(players, seed=ds, board=b, history=True, variants=variants)
    times = [[0.0, 0.0, 0.0] for _ in range(players)]
    main_times = [[0.0, 0.0, 0.0] for _ in range(players)]
    while not s.is_over:
        seat = s.current
        drawing = s.phase == DRAW
        v = view(s, seat)
        if entry_of_seat[seat] == told:
            # every other hand whole, as that seat's own hand is shown
            v["known"] = [v["known"][p] if p == seat else hand_view(s, p) for p in range(players)]
        t0 = time.perf_counter()
        move = bots[seat].choose(v)
        dt = time.perf_counter() - t0
        e = entry_of_seat[seat]
        count_time(times[e], None if drawing else main_times[e], dt)
        if on_decision is not None:
            on_decision(s, seat, move, bots[seat])
        try:
            s.play(move)
        except RuleError as err:
            raise BotError(f"game {game}: bot {bot_names[e]!r} (entry {e}, seat {seat}) played {move}: {err}") from None
    # a record says which player was told the hands: it was not a fair game
    names = [f"{bot_names[e]} ({e + 1}{', told every hand' if e == told else ''})" for e in entry_of_seat]
    cut_short = [0] * players
    for seat, e in enumerate(entry_of_seat):
        cut_short[e] = int(getattr(bots[seat], "cut_short", 0))
    return GameResult(
        game=game,
        deal_seed=ds,
        entry_of_seat=entry_of_seat,
        scores=s.scores[:],
        winners=list(s.winners or []),
        pieces_left=[s.pieces_left(p) for p in range(players)],
        times=times,
        main_times=main_times,
        record=record_of(s, names) if keep_record else None,
        cut_short=cut_short,
    )


def wilson(successes: float, n: int, z: float = 1.959964) -> tuple[float, float]:
    """95% Wilson score interval for a proportion.

    >>> lo, hi = wilson(50, 100)
    >>> round(lo, 3), round(hi, 3)
    (0.404, 0.596)
    """
    if n <= 0:
        return (0.0, 1.0)
    phat = successes / n
    denom = 1 + z * z / n
    centre = (phat + z * z / (2 * n)) / denom
    half = z * math.sqrt(phat * (1 - phat) / n + z * z / (4 * n * n)) / denom
    lo = 0.0 if successes <= 0 else max(0.0, centre - half)
    hi = 1.0 if successes >= n else min(1.0, centre + half)
    return (lo, hi)


def finishing_orders(result: GameResult) -> list[tuple[float, tuple[int, ...]]]:
    """A game's finishing order of entries, best first, with its weight: players still equal
    (points, then pieces left, R12.1) are split evenly over all their orders.

    >>> finishing_orders(GameResult(0, 0, [2, 0, 1], [5, 9, 5], [1], [1, 0, 1], [], []))
    [(0.5, (0, 2, 1)), (0.5, (0, 1, 2))]
    """
    n = len(result.scores)
    key = [(result.scores[s], result.pieces_left[s]) for s in range(n)]
    groups: list[list[int]] = []
    for seat in sorted(range(n), key=lambda s: key[s], reverse=True):
        if groups and key[groups[-1][0]] == key[seat]:
            groups[-1].append(seat)
        else:
            groups.append([seat])
    orders: list[tuple[int, ...]] = [()]
    for g in groups:
        orders = [o + p for o in orders for p in itertools.permutations(g)]
    w = 1.0 / len(orders)
    return [(w, tuple(result.entry_of_seat[s] for s in o)) for o in orders]


class _Tally:
    """What the Plackett-Luce fit needs of a set of games: per entry, the weight of the
    stages it was chosen at (finished ahead of everyone still left), and per set of entries
    (a bit mask) the weight of the stages that chose among exactly that set."""

    def __init__(self, entries: int) -> None:
        self.chosen = [0.0] * entries
        self.stages: dict[int, float] = {}

    def add_game(self, result: GameResult) -> None:
        for w, order in finishing_orders(result):
            left = 0
            for e in order:
                left |= 1 << e
            for e in order[:-1]:
                self.chosen[e] += w
                self.stages[left] = self.stages.get(left, 0.0) + w
                left &= ~(1 << e)

    def add(self, other: _Tally) -> None:
        for e, x in enumerate(other.chosen):
            self.chosen[e] += x
        for m, x in other.stages.items():
            self.stages[m] = self.stages.get(m, 0.0) + x


def _fit(t: _Tally, start: list[float] | None = None, tol: float = 1e-7, limit: int = 500) -> list[float]:
    """Plackett-Luce strengths by Hunter's MM algorithm, with one virtual win and one
    virtual loss of each entry against a reference of strength 1 (which also fixes the scale)."""
    n = len(t.chosen)
    g = list(start) if start is not None else [1.0] * n
    members = {m: [e for e in range(n) if m >> e & 1] for m in t.stages}
    for _ in range(limit):
        den = [2.0 / (x + 1.0) for x in g]  # the two virtual games
        for m, w in t.stages.items():
            es = members[m]
            share = w / sum(g[e] for e in es)
            for e in es:
                den[e] += share
        new = [(t.chosen[e] + 1.0) / den[e] for e in range(n)]
        done = max(abs(math.log(a / b)) for a, b in zip(new, g)) < tol
        g = new
        if done:
            break
    return g


def ratings(strengths: Sequence[float]) -> list[float]:
    """Strengths on the Elo scale (400 log10), shifted to a mean of 1500."""
    r = [400.0 * math.log10(x) for x in strengths]
    shift = RATING_MEAN - sum(r) / len(r)
    return [x + shift for x in r]


def plackett_luce(results: Sequence[GameResult], entries: int) -> list[float]:
    """Every entry's rating from all games' finishing orders (see the module docstring)."""
    t = _Tally(entries)
    for r in results:
        t.add_game(r)
    return ratings(_fit(t))


class LiveRatings:
    """The ratings of the games so far, for a progress display: each game is added to the
    tally as it ends, and each fit starts from the last one (the same fit as
    :func:`plackett_luce`, to its tolerance)."""

    def __init__(self, entries: int) -> None:
        self._tally = _Tally(entries)
        self._strengths: list[float] | None = None

    def add(self, result: GameResult) -> None:
        self._tally.add_game(result)

    def ratings(self) -> list[float]:
        self._strengths = _fit(self._tally, self._strengths)
        return ratings(self._strengths)


def _blocks(results: Sequence[GameResult], players: int) -> list[list[GameResult]]:
    by: dict[int, list[GameResult]] = {}
    for r in results:
        by.setdefault(r.game // players, []).append(r)
    return [by[k] for k in sorted(by)]


def block_bootstrap(
    results: Sequence[GameResult], entries: int, resamples: int = RESAMPLES, seed: int = 0
) -> tuple[list[tuple[float, float]], list[tuple[float, float]]]:
    """95% percentile intervals, per entry, of the win rate and of the rating, resampling
    whole rotation blocks (the games sharing a deal) with replacement."""
    players = len(results[0].scores) if results else entries
    blocks = _blocks(results, players)
    tallies = []
    wins = []
    games = []
    for blk in blocks:
        t = _Tally(entries)
        w = [0.0] * entries
        for r in blk:
            t.add_game(r)
            for seat, x in enumerate(win_shares(r.winners, players)):
                w[r.entry_of_seat[seat]] += x
        tallies.append(t)
        wins.append(w)
        games.append(len(blk))
    rng = random.Random(seed)
    full = _Tally(entries)
    for t in tallies:
        full.add(t)
    start = _fit(full)
    rates: list[list[float]] = [[] for _ in range(entries)]
    rated: list[list[float]] = [[] for _ in range(entries)]
    for _ in range(resamples if blocks else 0):
        t = _Tally(entries)
        w = [0.0] * entries
        n = 0
        for _ in blocks:
            k = rng.randrange(len(blocks))
            t.add(tallies[k])
            n += games[k]
            for e in range(entries):
                w[e] += wins[k][e]
        for e, x in enumerate(ratings(_fit(t, start, tol=1e-4))):
            rated[e].append(x)
            rates[e].append(w[e] / n)

    def interval(xs: list[float]) -> tuple[float, float]:
        if not xs:
            return (0.0, 1.0)
        xs.sort()
        return (xs[int(0.025 * (len(xs) - 1))], xs[int(math.ceil(0.975 * (len(xs) - 1)))])

    return [interval(x) for x in rates], [interval(x) for x in rated]


def summarize(bot_names: Sequence[str], results: Sequence[GameResult], seed: int = 0, resamples: int = RESAMPLES) -> list[EntryStats]:
    """Per-entry statistics of a list of game results (in any order)."""
    n = len(bot_names)
    stats = [EntryStats(entry=e, bot=bot_names[e], seats=[0] * n) for e in range(n)]
    tsum = [[0.0, 0.0, 0.0] for _ in range(n)]
    msum = [[0.0, 0.0, 0.0] for _ in range(n)]
    scores: list[list[int]] = [[] for _ in range(n)]
    margins: list[list[int]] = [[] for _ in range(n)]
    ordered = sorted(results, key=lambda r: r.game)
    for r in ordered:
        top = max(r.scores)
        for seat, e in enumerate(r.entry_of_seat):
            st = stats[e]
            st.games += 1
            st.seats[seat] += 1
            st.wins += win_shares(r.winners, n)[seat]
            scores[e].append(r.scores[seat])
            margins[e].append(r.scores[seat] - top)
        for e, c in enumerate(r.cut_short):
            stats[e].cut_short += c
        for e in range(n):
            for acc, src in ((tsum[e], r.times[e]), (msum[e], r.main_times[e])):
                acc[0] += src[0]
                acc[1] += src[1]
                acc[2] = max(acc[2], src[2])
    rating = plackett_luce(ordered, n)
    rate_ci, rating_ci = block_bootstrap(ordered, n, resamples, seed)
    for e, st in enumerate(stats):
        if st.games:
            st.win_rate = st.wins / st.games
            st.ci_low, st.ci_high = rate_ci[e]
            st.mean_score = sum(scores[e]) / st.games
            st.mean_margin = sum(margins[e]) / st.games
        st.rating = rating[e]
        st.rating_low, st.rating_high = rating_ci[e]
        st.decisions = int(tsum[e][1])
        st.time_mean = tsum[e][0] / tsum[e][1] if tsum[e][1] else 0.0
        st.time_max = tsum[e][2]
        st.main_decisions = int(msum[e][1])
        st.main_time_mean = msum[e][0] / msum[e][1] if msum[e][1] else 0.0
        st.main_time_max = msum[e][2]
    return stats


def run_tournament(
    bot_names: Sequence[str],
    games: int,
    players: int,
    seed: int,
    workers: int | None = None,
    board_name: str | None = None,
    records: Path | None = None,
    progress: Callable[[int, int], None] | None = None,
    variants: Sequence[str] = (),
    told: int | None = None,
    *,
    engine: Engine | None = None,
    out: Path | None = None,
    resume: bool = False,
) -> tuple[list[EntryStats], list[GameResult]]:
    """Play the tournament; ``games`` is rounded up to whole rotation blocks; ``told``:
    the entry (from 0) told every other hand, an experiment (see the module doc).
    ``engine``: what plays the games (default: ``workers`` processes here, see
    :mod:`kardinal.bots.runs`); ``out``: the results file, written game by game, which
    ``resume`` continues."""
    from .runs import GameRun, LocalEngine, Settings, play_job  # (runs imports this module)

    total = block_games(games, players)
    settings = Settings(tuple(bot_names), players, seed, total, board_name, tuple(variants), told)
    run = GameRun(settings, out=out, resume=resume, records=records)
    for _ in run.play(engine or LocalEngine(workers), play_job):
        if progress is not None:
            progress(len(run.results), total)
    results = run.sorted_results()
    return summarize(run.settings.bots, results, seed), results


def as_data(stats: Sequence[EntryStats], games: int, players: int, seed: int) -> dict[str, Any]:
    return {
        "games": games,
        "players": players,
        "seed": seed,
        "interval": f"95% percentile bootstrap over rotation blocks (the games sharing a deal resampled together), {RESAMPLES} resamples",
        "rating": "Plackett-Luce fit to every game's finishing order (maximum likelihood, MM; a weak prior), Elo scale (400 log10), mean 1500",
        "entries": [
            {
                "entry": st.entry,
                "bot": st.bot,
                "games": st.games,
                "wins": st.wins,
                "win_rate": st.win_rate,
                "win_rate_ci95": [st.ci_low, st.ci_high],
                "mean_score": st.mean_score,
                "mean_margin_to_winner": st.mean_margin,
                "rating": st.rating,
                "rating_ci95": [st.rating_low, st.rating_high],
                "seats": st.seats,
                "decisions": st.decisions,
                "time_per_decision_mean_s": st.time_mean,
                "time_per_decision_max_s": st.time_max,
                "main_decisions": st.main_decisions,
                "main_time_mean_s": st.main_time_mean,
                "main_time_max_s": st.main_time_max,
                "main_cut_short": st.cut_short,
            }
            for st in stats
        ],
    }


def format_table(stats: Sequence[EntryStats], games: int, players: int, seed: int) -> str:
    blocks = -(-games // players)
    lines = [
        f"{games} games, {players} players, seed {seed}; seats rotated in blocks of {players} games sharing a deal",
        f"95% CI: bootstrap over the {blocks} blocks (deals), {RESAMPLES} resamples; rating: Plackett-Luce fit to the finishing orders,",
        "  Elo scale (+200: ahead of the other about 76% of the time), mean 1500",
        "time per decision (wall clock): all decisions, and main decisions (place/exchange, not draws);",
        "cut: decisions a search's time limit ended before its iteration budget (the level then depends on the machine)",
        "",
        f"{'#':>2} {'bot':<10} {'wins':>7} {'win rate':>8} {'95% CI':>15} {'score':>6} {'margin':>7} {'rating':>6} {'95% CI':>11}"
        f" {'mean ms':>8} {'max ms':>8} {'main ms':>8} {'main max':>9} {'cut':>5}",
    ]
    for st in stats:
        ci = f"[{st.ci_low:.3f},{st.ci_high:.3f}]"
        rci = f"[{st.rating_low:.0f},{st.rating_high:.0f}]"
        lines.append(
            f"{st.entry + 1:>2} {st.bot:<10} {st.wins:>7.2f} {st.win_rate:>8.3f} {ci:>15} {st.mean_score:>6.1f} {st.mean_margin:>7.1f}"
            f" {st.rating:>6.0f} {rci:>11} {st.time_mean * 1e3:>8.1f} {st.time_max * 1e3:>8.1f} {st.main_time_mean * 1e3:>8.1f}"
            f" {st.main_time_max * 1e3:>9.1f} {st.cut_short:>5}"
        )
    return "\n".join(lines)
