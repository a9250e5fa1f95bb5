"""Benchmark: ISMCTS iterations per second, single process (not part of the tests).

``python -m kardinal.bots.bench`` (``--iterations``, ``--repeats``, ``--profile``,
``--classic`` for the settings before issue 14's deeper rollouts, :data:`CLASSIC`). The
positions are fixed (main decisions of greedy games, 3-5 players, early to late) and the
search has no time limit, so two versions of the bot do the same work and their rates
compare directly. Rates are given in process time (less disturbed by other programs on
the machine) and in wall-clock time.
"""

from __future__ import annotations

import cProfile
import pstats
import statistics
import time
from collections.abc import Callable, Sequence
from typing import Any

from kardinal.rules.state import MAIN, State, new_game
from kardinal.rules.view import view

from .greedy import GreedyBot
from .ismcts import CLASSIC, ISMCTSBot

# (players, deal seed, main decisions played by greedy before the position): early, middle
# and late positions of 3-5 player games
ISMCTS_POSITIONS = [
    (3, 11, 4),
    (3, 12, 18),
    (3, 13, 30),
    (4, 21, 2),
    (4, 22, 12),
    (4, 23, 22),
    (4, 24, 30),
    (5, 31, 6),
    (5, 32, 18),
    (5, 33, 30),
]


def ismcts_positions() -> list[State]:
    """The benchmark's positions: main decisions of greedy games (or their last one)."""
    out = []
    for players, seed, decisions in ISMCTS_POSITIONS:
        bots = [GreedyBot(100 + i) for i in range(players)]
        s = new_game(players, seed=seed)
        found = s.copy()
        done = 0
        while not s.is_over:
            if s.phase == MAIN and len(s.legal_moves()) > 1:
                found = s.copy()
                if done == decisions:
                    break
                done += 1
            s.play(bots[s.current].choose(view(s, s.current)))
        out.append(found)
    return out


def ismcts_rate(
    iterations: int, positions: Sequence[State], clock: Callable[[], float] = time.process_time, config: dict[str, Any] | None = None
) -> float:
    """ISMCTS iterations per second (no time limit) over the positions, one decision each
    (``config``: the bot's settings, the defaults if None)."""
    done = 0
    t0 = clock()
    for i, s in enumerate(positions):
        bot = ISMCTSBot(i, iterations=iterations, **(config or {}))
        bot.choose(view(s, s.current))
        done += bot.last_iterations
    return done / (clock() - t0)


def run_ismcts_bench(iterations: int = 1000, repeats: int = 3, profile: bool = False, classic: bool = False) -> None:
    positions = ismcts_positions()
    config = CLASSIC if classic else None
    print(
        f"ISMCTS{' (classic settings)' if classic else ''}, {iterations} iterations a decision on {len(positions)} positions"
        f" (3-5 players, early to late); median of {repeats} runs"
    )
    cpu = [ismcts_rate(iterations, positions, config=config) for _ in range(repeats)]
    wall = [ismcts_rate(iterations, positions, time.perf_counter, config) for _ in range(repeats)]
    print(f"iterations/s: {statistics.median(cpu):.0f} (process time), {statistics.median(wall):.0f} (wall clock)")
    if profile:
        prof = cProfile.Profile()
        prof.enable()
        ismcts_rate(iterations, positions, config=config)
        prof.disable()
        pstats.Stats(prof).sort_stats("tottime").print_stats(15)


if __name__ == "__main__":  # pragma: no cover
    import argparse

    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--iterations", type=int, default=1000)
    ap.add_argument("--repeats", type=int, default=3)
    ap.add_argument("--profile", action="store_true")
    ap.add_argument("--classic", action="store_true", help="the settings before issue 14 (rollouts of 4 decisions)")
    a = ap.parse_args()
    run_ismcts_bench(a.iterations, a.repeats, a.profile, a.classic)
