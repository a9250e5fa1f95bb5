"""Fit the leaf evaluation of the search (:data:`kardinal.bots.evaluate.LEAF_WEIGHTS`) to
the outcomes of games played by bots (not part of the tests).

``python -m kardinal.research.fit_estimate --games 2400`` plays games of greedy bots (each
seat with a random amount of noise on its move values, 0 to 1.5 points, so that the
positions vary), records at every main decision every seat's features
(:meth:`Evaluator.leaf_features`: its standing cloister majorities, alliance majorities
held in both and in one country, chain points and short runs, pieces and cards left, each
also times the share of the draw pile still to come), and fits, per stage of the game
(before the intermediate scoring, after it, the final round), the points still to come
(final score minus the points so far) by least squares, for each player count. Half the
games are fitted, the other half held out: it prints the weights (to paste into ``evaluate.py``) and,
on the held-out games, how well the hand-written :meth:`Evaluator.estimate` and the fitted
one predict each seat's final margin over the best other seat (R²) and the winner.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import pickle
import random
from typing import Any

from kardinal.bots.evaluate import LEAF_FEATURES, Evaluator
from kardinal.bots.greedy import GreedyBot
from kardinal.rules.state import MAIN, new_game
from kardinal.rules.view import view


def play(job: tuple[int, int]) -> list[tuple[int, int, int, int, list[float], float, float, float]]:
    """One game: per main decision and seat, (game, decision, seat, stage, features, points
    now, the hand-written estimate, final score)."""
    game, players = job
    rng = random.Random(game)
    bots = [GreedyBot(game * 10 + i, noise=rng.choice([0.0, 0.0, 0.5, 1.0, 1.5])) for i in range(players)]
    s = new_game(players, seed=game)
    ev = Evaluator(s.board)
    rows: list[tuple[int, int, int, list[float], float, float]] = []
    k = 0
    while not s.is_over:
        if s.phase == MAIN:
            est = ev.estimate(s)
            stage = ev.leaf_stage(s)
            for p in range(players):
                rows.append((k, p, stage, ev.leaf_features(s, p), float(s.scores[p]), est[p]))
            k += 1
        s.play(bots[s.current].choose(view(s, s.current)))
    return [(game, k, p, st, f, now, est, float(s.scores[p])) for k, p, st, f, now, est in rows]


def fit(rows: list[Any]) -> list[list[float]]:
    import numpy as np

    out = []
    for stage in range(3):
        sel = [r for r in rows if r[3] == stage]
        x = np.array([r[4] for r in sel])
        y = np.array([r[7] - r[5] for r in sel])
        w, *_ = np.linalg.lstsq(x, y, rcond=None)
        out.append([round(float(v), 4) for v in w])
    return out


def margins(rows: list[Any], est_of: Any) -> tuple[float, float]:
    """R² of the predicted final margin over the best other seat, and how often the seat
    predicted ahead won (each decision of each game is one prediction)."""
    by: dict[tuple[int, int], list[Any]] = {}
    for r in rows:
        by.setdefault((r[0], r[1]), []).append(r)
    ss_res = ss_tot = 0.0
    pairs = []
    hits = total = 0
    for group in by.values():
        group.sort(key=lambda r: r[2])
        pred = [est_of(r) for r in group]
        final = [r[7] for r in group]
        for p in range(len(group)):
            others = [x for q, x in enumerate(final) if q != p]
            po = [x for q, x in enumerate(pred) if q != p]
            pairs.append((pred[p] - max(po), final[p] - max(others)))
        hits += final[max(range(len(pred)), key=lambda q: pred[q])] == max(final)
        total += 1
    mean = sum(t for _, t in pairs) / len(pairs)
    for pr, t in pairs:
        ss_res += (t - pr) ** 2
        ss_tot += (t - mean) ** 2
    return 1 - ss_res / ss_tot, hits / total


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__)
    ap.add_argument("--games", type=int, default=2400)
    ap.add_argument("--players", type=int, nargs="+", default=[3, 4, 4, 5])
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--rows", help="a pickle file of the games' rows: read if it exists, else written")
    a = ap.parse_args()
    if a.rows and os.path.exists(a.rows):
        with open(a.rows, "rb") as fin:
            rows = pickle.load(fin)
    else:
        jobs = [(g, a.players[g % len(a.players)]) for g in range(a.games)]
        with multiprocessing.get_context("fork").Pool(a.workers) as pool:
            rows = [(n, *r) for game, n in zip(pool.imap(play, jobs, chunksize=8), (n for _, n in jobs)) for r in game]
        if a.rows:
            with open(a.rows, "wb") as fout:
                pickle.dump(rows, fout)
    counts = sorted(set(r[0] for r in rows))
    weights: dict[int, list[list[float]]] = {}
    # every four games (3, 4, 4 and 5 players) alternate between fitted and held out
    test_by: dict[int, list[Any]] = {}
    for n in counts:
        mine = [r[1:] for r in rows if r[0] == n]
        weights[n] = fit([r for r in mine if (r[0] // 4) % 2 == 0])
        test_by[n] = [r for r in mine if (r[0] // 4) % 2 == 1]
    print("LEAF_WEIGHTS = {")
    for n in counts:
        print(f"    {n}: (")
        for stage, w in enumerate(weights[n]):
            print(f"        # stage {stage}: " + ", ".join(f"{name} {v:+.3f}" for name, v in zip(LEAF_FEATURES, w)))
            print(f"        ({', '.join(map(str, w))}),")
        print("    ),")
    print("}")
    for n in counts:
        test = test_by[n]
        print(f"{n} players: {len(test)} rows held out")

        def fitted(r: Any, w: list[list[float]] = weights[n]) -> float:
            return float(r[5] + sum(x * y for x, y in zip(w[r[3]], r[4])))

        for name, est in (("hand-written estimate", lambda r: r[6]), ("fitted", fitted), ("points so far", lambda r: r[5])):
            r2, hit = margins(test, est)
            print(f"  {name}: R² of the margin {r2:.3f}, the seat predicted ahead won {hit:.3f}")
            for stage in range(3):
                r2, hit = margins([r for r in test if r[3] == stage], est)
                print(f"     stage {stage}: R² {r2:.3f}, winner {hit:.3f}")


if __name__ == "__main__":  # pragma: no cover
    main()
