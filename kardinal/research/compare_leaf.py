"""Measure search settings against each other in the same games (not part of the tests).

``python -m kardinal.research.compare_leaf --bots learned600,fitted600,greedy,greedy --games 200
--seed 101`` registers the named settings of :data:`SETTINGS` as bots, plays a tournament
(:func:`kardinal.bots.tournament.run_tournament`: rotation blocks sharing a deal, so every
entry plays every deal from every seat) and prints each entry's win rate and, for the
first two entries, the paired difference of their win rates in the same games with its 95%
block-bootstrap interval (whole rotation blocks resampled, 1,000 times, seeded). ``--bench``
instead times the named settings on the same positions (seconds and iterations per main
decision) to set budgets of equal time.
"""

from __future__ import annotations

import argparse
import json
import random
import statistics
import time
from collections.abc import Sequence
from typing import Any

from kardinal.bots import BotFactory, ISMCTSBot, make_bot, register_bot
from kardinal.bots.parallel import RootParallelBot
from kardinal.bots.tournament import GameResult, block_games, format_table, play_game, run_tournament, summarize
from kardinal.rules.scoring import win_shares

# name -> ISMCTSBot settings (a "workers" entry makes a RootParallelBot)
SETTINGS: dict[str, dict[str, Any]] = {
    "fitted600": {"iterations": 600, "depth": 8, "leaf": "fitted"},
    "learned600": {"iterations": 600, "depth": 8, "leaf": "learned"},
}


def _factory(cfg: dict[str, Any]) -> BotFactory:
    cfg = dict(cfg)
    workers = cfg.pop("workers", None)
    if workers is not None:
        return lambda seed, board: RootParallelBot(seed, board, workers=workers, **cfg)
    return lambda seed, board: ISMCTSBot(seed, board, **cfg)


def register(extra: dict[str, dict[str, Any]] | None = None) -> None:
    for name, cfg in {**SETTINGS, **(extra or {})}.items():
        register_bot(name, _factory(cfg))


def paired(results: Sequence[GameResult], a: int, b: int, players: int, seed: int, resamples: int = 1000) -> tuple[float, float, float]:
    """Entry a's win rate minus entry b's in the same games (percentage points) and the 95%
    interval of a bootstrap over rotation blocks."""
    blocks: dict[int, list[float]] = {}
    for r in results:
        shares = win_shares(r.winners, players)
        seat_of = {e: s for s, e in enumerate(r.entry_of_seat)}
        blocks.setdefault(r.game // players, []).append(shares[seat_of[a]] - shares[seat_of[b]])
    diffs = [sum(v) for v in blocks.values()]
    sizes = [len(v) for v in blocks.values()]
    mean = 100 * sum(diffs) / sum(sizes)
    rng = random.Random(seed)
    boot = []
    idx = range(len(diffs))
    for _ in range(resamples):
        pick = [rng.choice(idx) for _ in idx]
        boot.append(100 * sum(diffs[i] for i in pick) / sum(sizes[i] for i in pick))
    boot.sort()
    return mean, boot[int(0.025 * resamples)], boot[int(0.975 * resamples) - 1]


def bench(names: Sequence[str], positions: int, seed: int) -> dict[str, dict[str, float]]:
    """Seconds and iterations per main decision of each bot on the same positions (main
    decisions of four-player greedy games), the bots interleaved position by position."""
    from kardinal.bots.greedy import GreedyBot
    from kardinal.rules.state import MAIN, new_game
    from kardinal.rules.view import ViewData, view

    views: list[ViewData] = []
    g = 0
    while len(views) < positions:
        s = new_game(4, seed=seed * 1000 + g)
        bots = [GreedyBot(g * 10 + i) for i in range(4)]
        k = 0
        while not s.is_over:
            if s.phase == MAIN:
                if k % 7 == g % 7:
                    views.append(view(s, s.current))
                k += 1
            s.play(bots[s.current].choose(view(s, s.current)))
        g += 1
    searchers = {n: make_bot(n, seed) for n in names}
    secs: dict[str, list[float]] = {n: [] for n in names}
    its: dict[str, list[float]] = {n: [] for n in names}
    for v in views[:positions]:
        for n, b in searchers.items():
            t0 = time.perf_counter()
            b.choose(v)
            secs[n].append(time.perf_counter() - t0)
            its[n].append(float(getattr(b, "last_iterations", 0)))
    return {
        n: {
            "seconds_mean": statistics.mean(secs[n]),
            "seconds_median": statistics.median(secs[n]),
            "iterations_mean": statistics.mean(its[n]),
        }
        for n in names
    }


def _play_one(job: tuple[tuple[str, ...], int, int, int]) -> GameResult:
    names, players, game, seed = job
    return play_game(names, players, game, seed)


def play_lines(names: Sequence[str], games: int, players: int, seed: int, workers: int, path: str) -> list[GameResult]:
    """The tournament's games, each written to ``path`` (JSON lines) as it ends, so that a run
    stopped early keeps its games; games already in the file are not played again."""
    import dataclasses
    import os

    from kardinal.bots.runs import LocalEngine

    done: dict[int, GameResult] = {}
    if os.path.exists(path):
        with open(path, encoding="utf-8") as f:
            for line in f:
                r = GameResult(**json.loads(line))
                done[r.game] = r
    total = block_games(games, players) if games else 0  # (--summary plays none)
    jobs = [(tuple(names), players, g, seed) for g in range(total) if g not in done]
    with open(path, "a", encoding="utf-8") as out:
        for r in LocalEngine(workers).map_unordered(_play_one, jobs):
            done[r.game] = r
            out.write(json.dumps(dataclasses.asdict(r)) + "\n")
            out.flush()
    return [done[g] for g in sorted(done)]


def whole_blocks(results: Sequence[GameResult], players: int) -> list[GameResult]:
    """The games of the rotation blocks that were played to the end."""
    count: dict[int, int] = {}
    for r in results:
        count[r.game // players] = count.get(r.game // players, 0) + 1
    return [r for r in results if count[r.game // players] == players]


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--bots", required=True)
    ap.add_argument("--games", type=int, default=100)
    ap.add_argument("--players", type=int, default=4)
    ap.add_argument("--seed", type=int, default=101)
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument(
        "--define", action="append", default=[], help='NAME=JSON settings, e.g. learned900={"iterations": 900, "leaf": "learned"}'
    )
    ap.add_argument("--bench", type=int, metavar="POSITIONS", help="time the bots on this many positions instead")
    ap.add_argument("--out", help="a JSON file for the results")
    ap.add_argument("--lines", help="write each game to this JSON-lines file as it ends (resumes from it)")
    ap.add_argument("--summary", action="store_true", help="with --lines: only summarize the whole blocks already played")
    a = ap.parse_args()
    extra = {}
    for d in a.define:
        name, _, js = d.partition("=")
        extra[name] = json.loads(js)
    register(extra)
    names = a.bots.split(",")
    if a.bench:
        print(json.dumps(bench(names, a.bench, a.seed), indent=1))
        return
    t0 = time.perf_counter()
    if a.lines:
        results = play_lines(names, 0 if a.summary else a.games, a.players, a.seed, a.workers, a.lines)
        results = whole_blocks(results, a.players)
        stats = summarize(names, results, a.seed)
    else:
        stats, results = run_tournament(names, a.games, a.players, a.seed, workers=a.workers)
    print(format_table(stats, len(results), a.players, a.seed))
    diff = paired(results, 0, 1, a.players, a.seed)
    print(
        f"paired: {names[0]} minus {names[1]}: {diff[0]:+.1f} points (95% interval {diff[1]:+.1f} to {diff[2]:+.1f}), {len(results)} games, {time.perf_counter() - t0:.0f} s"
    )
    if a.out:
        with open(a.out, "w", encoding="utf-8") as f:
            json.dump(
                {
                    "bots": names,
                    "settings": {n: {**SETTINGS, **extra}.get(n) for n in names},
                    "seed": a.seed,
                    "games": len(results),
                    "paired": diff,
                    "entries": [
                        {
                            "bot": s.bot,
                            "win_rate": s.win_rate,
                            "ci": [s.ci_low, s.ci_high],
                            "main_time_mean": s.main_time_mean,
                            "main_time_max": s.main_time_max,
                            "cut_short": s.cut_short,
                        }
                        for s in stats
                    ],
                },
                f,
                indent=1,
            )


if __name__ == "__main__":  # pragma: no cover
    main()
