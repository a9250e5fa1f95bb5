"""Benchmark: complete random games per second, single process (not part of the tests)."""

from __future__ import annotations

import cProfile
import pstats
import random
import statistics
import time
from collections.abc import Callable, Sequence

from kardinal.rules.board import Board
from kardinal.rules.state import new_game


def random_games(
    players: int,
    games: int,
    seed: int,
    clock: Callable[[], float] = time.perf_counter,
    board: Board | None = None,
    variants: Sequence[str] = (),
) -> tuple[float, int]:
    """Play ``games`` random games (moves from legal_moves, each checked); seconds and decisions."""
    decisions = 0
    t0 = clock()
    for g in range(games):
        s = new_game(players, seed=seed + g, history=False, board=board, variants=variants)
        rng = random.Random(seed + g)
        while not s.is_over:
            s.play(rng.choice(s.legal_moves()))
            decisions += 1
    return clock() - t0, decisions


def run_bench(
    games: int = 300, seed: int = 1, profile: bool = False, repeats: int = 3, board: Board | None = None, variants: Sequence[str] = ()
) -> None:
    where = (
        f" (board {board.id if board else 'standard'}{', variants ' + ', '.join(variants) if variants else ''})"
        if board or variants
        else ""
    )
    print(f"random games, moves from legal_moves and checked by play; median of {repeats} runs of {games} games{where}")
    print(f"{'players':>7} {'games/s':>9} {'decisions/s':>12} {'decisions/game':>15}")
    for n in (3, 4, 5):
        rates = []
        dec = 0
        for _ in range(repeats):
            dt, dec = random_games(n, games, seed, board=board, variants=variants)
            rates.append((games / dt, dec / dt))
        gps = statistics.median(r[0] for r in rates)
        dps = statistics.median(r[1] for r in rates)
        print(f"{n:>7} {gps:>9.0f} {dps:>12.0f} {dec / games:>15.1f}")
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        random_games(4, games, seed, board=board, variants=variants)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(12)
