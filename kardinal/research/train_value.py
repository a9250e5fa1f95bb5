"""Train the search's learned leaf evaluation (:mod:`kardinal.bots.learned`).

``python -m kardinal.research.train_value`` plays :data:`SETTINGS`' games (tournament
games through :func:`kardinal.bots.tournament.play_game`, the same seed giving the same
games; bots with one move of look-ahead and noise on their move values, the rollout
policy's kind of play, so that the positions are those a rollout ends in), records at every
main decision every seat's :func:`~kardinal.bots.learned.value_features` and, when the game
is over, the points it scored from there on, and fits per stage of the game
(:meth:`Evaluator.leaf_stage`) a standardized ridge regression and networks of one hidden
layer (scikit-learn's ``MLPRegressor``, ReLU, Adam, early stopping) on the games whose
number is not a multiple of five; the others are held out. It prints and logs, per stage
and model, the held-out mean squared error of the points to come and, like
``fit_estimate``, the R² of each seat's predicted final margin over the best other seat and
how often the seat predicted ahead won, beside the fitted leaf
(:meth:`Evaluator.leaf_estimate`). The model named by ``--model`` (``auto``: the lowest
held-out error over all stages) is written to ``kardinal/bots/value_weights.json`` and the
log to ``kardinal/bots/value_weights.log.json``.

The data is cached (``--data``, an ``.npz``): a second run with other models does not play
the games again. Everything that decides the weights is in :data:`SETTINGS`.
"""

from __future__ import annotations

import argparse
import json
import multiprocessing
import random
import time
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import numpy as np

from kardinal.bots import BOTS, BotFactory, GreedyBot, register_bot
from kardinal.bots.evaluate import Evaluator
from kardinal.bots.learned import VALUE_FEATURES, WEIGHTS_FILE, ValueModel, value_features
from kardinal.bots.tournament import play_game
from kardinal.rules.board import get_board
from kardinal.rules.state import MAIN, State

# everything that decides the weights
SETTINGS: dict[str, Any] = {
    "seed": 35,  # tournament seed of the games (deals and bot seeds)
    "games": 3000,
    "players": [3, 4, 4, 5],  # game g has players[g % 4] players
    "noise": [0.0, 0.0, 0.5, 1.0, 1.5],  # each seat's noise on greedy's move values, drawn per game and seat
    "held_out_every": 5,  # games whose number is a multiple of this are held out
    "ridge_alpha": 1.0,
    "hidden": [32],
    "mlp_alpha": 10.0,
    "mlp_max_iter": 30,
    "train_seed": 0,  # scikit-learn's random_state
}


def _noisy(noise: float) -> BotFactory:
    return lambda seed, board: GreedyBot(seed, board, noise=noise)


@contextmanager
def _noisy_players(noise: tuple[float, ...]) -> Iterator[None]:
    """The noisy greedy players ``greedy~0.5`` ..., known while a game is played and gone
    again after it (a process that trains keeps its own list of bots: a server or a test
    in the same process never offers them)."""
    names = [f"greedy~{x}" for x in noise if f"greedy~{x}" not in BOTS]
    for x in noise:
        register_bot(f"greedy~{x}", _noisy(x))
    try:
        yield
    finally:
        for n in names:
            BOTS.pop(n, None)


Rows = tuple[list[list[float]], list[float], list[float], list[int], list[int], list[int], list[int], list[float]]


def play(job: tuple[int, int, int, tuple[float, ...]]) -> Rows:
    """One game's rows: features, points to come, the fitted leaf's points to come, stage,
    game, decision, seat, points so far."""
    game, players, seed, noise = job
    rng = random.Random(seed * 1_000_003 + game)
    names = [f"greedy~{rng.choice(noise)}" for _ in range(players)]
    ev = Evaluator(get_board(None))
    seen: list[tuple[int, list[list[float]], list[int], list[float]]] = []

    def on_decision(s: State, seat: int, move: object, bot: object) -> None:
        if s.phase == MAIN:
            fitted = ev.leaf_estimate(s)
            seen.append((ev.leaf_stage(s), value_features(ev, s), s.scores[:], [f - x for f, x in zip(fitted, s.scores)]))

    with _noisy_players(noise):
        result = play_game(names, players, game, seed, on_decision=on_decision)
    x: list[list[float]] = []
    y: list[float] = []
    fit: list[float] = []
    stage: list[int] = []
    g: list[int] = []
    k: list[int] = []
    p: list[int] = []
    score: list[float] = []
    for i, (st, feats, now, fitted) in enumerate(seen):
        for seat in range(players):
            x.append(feats[seat])
            y.append(float(result.scores[seat] - now[seat]))
            fit.append(fitted[seat])
            stage.append(st)
            g.append(game)
            k.append(i)
            p.append(seat)
            score.append(float(now[seat]))
    return x, y, fit, stage, g, k, p, score


def collect(path: Path | None, workers: int) -> dict[str, np.ndarray]:
    if path is not None and path.exists():
        with np.load(path) as z:
            return {k: z[k] for k in z.files}
    cfg = SETTINGS
    jobs = [(g, cfg["players"][g % len(cfg["players"])], cfg["seed"], tuple(cfg["noise"])) for g in range(cfg["games"])]
    parts: list[Rows] = []
    with multiprocessing.get_context("fork").Pool(workers) as pool:
        parts = list(pool.imap(play, jobs, chunksize=16))
    data = {
        "x": np.array([r for part in parts for r in part[0]], dtype=np.float64),
        "y": np.array([v for part in parts for v in part[1]]),
        "fitted": np.array([v for part in parts for v in part[2]]),
        "stage": np.array([v for part in parts for v in part[3]], dtype=np.int64),
        "game": np.array([v for part in parts for v in part[4]], dtype=np.int64),
        "decision": np.array([v for part in parts for v in part[5]], dtype=np.int64),
        "seat": np.array([v for part in parts for v in part[6]], dtype=np.int64),
        "score": np.array([v for part in parts for v in part[7]]),
    }
    if path is not None:
        path.parent.mkdir(parents=True, exist_ok=True)
        np.savez_compressed(path, **data)  # type: ignore[arg-type]
    return data


def make_model(kind: str, cfg: dict[str, Any] = SETTINGS) -> Any:
    """A scikit-learn pipeline: a scaler and a ridge regression (``ridge``) or a network of
    one hidden layer (``mlp32``, ``mlp64``)."""
    from sklearn.linear_model import Ridge
    from sklearn.neural_network import MLPRegressor
    from sklearn.pipeline import make_pipeline
    from sklearn.preprocessing import StandardScaler

    if kind == "ridge":
        return make_pipeline(StandardScaler(), Ridge(alpha=cfg["ridge_alpha"]))
    if kind.startswith("mlp"):
        return make_pipeline(
            StandardScaler(),
            MLPRegressor(
                hidden_layer_sizes=(int(kind[3:]),),
                alpha=cfg["mlp_alpha"],
                max_iter=cfg["mlp_max_iter"],
                early_stopping=True,
                random_state=cfg["train_seed"],
            ),
        )
    raise ValueError(f"unknown model {kind!r}: ridge, mlp32, mlp64")


def export(pipe: Any) -> dict[str, Any]:
    """One stage's parameters as :class:`~kardinal.bots.learned.ValueModel` reads them."""
    scaler, reg = pipe[0], pipe[-1]
    scale = [float(v) for v in scaler.scale_]
    stage: dict[str, Any] = {"mean": [float(v) for v in scaler.mean_], "scale": scale}
    if hasattr(reg, "coefs_"):
        stage["layers"] = [[c.tolist(), b.tolist()] for c, b in zip(reg.coefs_, reg.intercepts_, strict=True)]
    else:
        stage["layers"] = [[[[float(w)] for w in np.ravel(reg.coef_)], [float(np.ravel([reg.intercept_])[0])]]]
    return stage


def margins(pred: np.ndarray, y: np.ndarray, game: np.ndarray, decision: np.ndarray) -> tuple[float, float]:
    """R² of each seat's predicted final margin over the best other seat, and how often the
    seat predicted ahead won (``pred``, ``y``: final totals)."""
    res: list[float] = []
    tot: list[float] = []
    hits = groups = 0
    key = game * 10_000 + decision
    order = np.argsort(key, kind="stable")
    key, pred, y = key[order], pred[order], y[order]
    bounds = np.flatnonzero(np.diff(key)) + 1
    for a, b in zip(np.r_[0, bounds], np.r_[bounds, len(key)], strict=True):
        pp, yy = pred[a:b], y[a:b]
        for q in range(b - a):
            po = np.delete(pp, q).max()
            yo = np.delete(yy, q).max()
            res.append(pp[q] - po)
            tot.append(yy[q] - yo)
        hits += int(yy[int(np.argmax(pp))] == yy.max())
        groups += 1
    t = np.array(tot)
    r2 = 1.0 - float(np.sum((t - np.array(res)) ** 2)) / float(np.sum((t - t.mean()) ** 2))
    return r2, hits / groups


def train(data: dict[str, np.ndarray], kinds: list[str], cfg: dict[str, Any] = SETTINGS) -> tuple[dict[str, list[Any]], dict[str, Any]]:
    """Fit every kind of model per stage; the fitted pipelines and the log."""
    held = data["game"] % cfg["held_out_every"] == 0
    log: dict[str, Any] = {"rows": int(len(data["y"])), "held_out_rows": int(held.sum()), "stages": []}
    fitted: dict[str, list[Any]] = {k: [] for k in kinds}
    for st in range(3):
        tr = (data["stage"] == st) & ~held
        te = (data["stage"] == st) & held
        entry: dict[str, Any] = {"stage": st, "train_rows": int(tr.sum()), "held_out_rows": int(te.sum()), "models": {}}
        base = float(np.mean((data["fitted"][te] - data["y"][te]) ** 2))
        entry["models"]["fitted leaf"] = {"held_out_mse": base}
        for kind in kinds:
            t0 = time.perf_counter()
            pipe = make_model(kind, cfg).fit(data["x"][tr], data["y"][tr])
            secs = time.perf_counter() - t0
            mse_tr = float(np.mean((pipe.predict(data["x"][tr]) - data["y"][tr]) ** 2))
            mse_te = float(np.mean((pipe.predict(data["x"][te]) - data["y"][te]) ** 2))
            entry["models"][kind] = {"train_mse": mse_tr, "held_out_mse": mse_te, "seconds": round(secs, 2)}
            reg = pipe[-1]
            if getattr(reg, "n_iter_", None) is not None:
                entry["models"][kind]["epochs"] = int(reg.n_iter_)
            fitted[kind].append(pipe)
        log["stages"].append(entry)
    return fitted, log


def evaluate_margins(data: dict[str, np.ndarray], fitted: dict[str, list[Any]], cfg: dict[str, Any] = SETTINGS) -> dict[str, Any]:
    """Per model, held out, per stage: the R² of the final margin and the winner hit rate."""
    held = data["game"] % cfg["held_out_every"] == 0
    out: dict[str, Any] = {}
    preds: dict[str, np.ndarray] = {"fitted leaf": data["fitted"]}
    for kind, pipes in fitted.items():
        p = np.zeros(len(data["y"]))
        for st, pipe in enumerate(pipes):
            sel = held & (data["stage"] == st)
            p[sel] = pipe.predict(data["x"][sel])
        preds[kind] = p
    for name, p in preds.items():
        out[name] = {}
        for st in range(3):
            sel = held & (data["stage"] == st)
            now = data["score"][sel]
            r2, hit = margins(p[sel] + now, data["y"][sel] + now, data["game"][sel], data["decision"][sel])
            out[name][st] = {"margin_r2": round(r2, 4), "winner": round(hit, 4)}
    return out


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    ap.add_argument("--data", type=Path, default=Path("value-data.npz"), help="cache of the games' rows (read if present)")
    ap.add_argument("--workers", type=int, default=2)
    ap.add_argument("--games", type=int, help=f"games to play (default {SETTINGS['games']})")
    ap.add_argument("--models", default="ridge,mlp32")
    ap.add_argument("--model", default="auto", help="the model to write (auto: lowest held-out error)")
    ap.add_argument("--out", type=Path, default=WEIGHTS_FILE)
    ap.add_argument("--bench", action="store_true", help="only time one evaluation of the shipped model against the fitted leaf")
    a = ap.parse_args()
    if a.bench:
        from kardinal.bots import native

        print(json.dumps({"compiled": native.status(), "microseconds": bench()}))
        return
    cfg = dict(SETTINGS)
    if a.games:
        SETTINGS["games"] = cfg["games"] = a.games
    t0 = time.perf_counter()
    data = collect(a.data, a.workers)
    t_data = time.perf_counter() - t0
    kinds = a.models.split(",")
    fitted, log = train(data, kinds, cfg)
    log["settings"] = cfg
    log["data_seconds"] = round(t_data, 1)
    log["margins"] = evaluate_margins(data, fitted, cfg)
    total = {k: sum(st["models"][k]["held_out_mse"] * st["held_out_rows"] for st in log["stages"]) for k in kinds}
    best = min(kinds, key=lambda k: total[k]) if a.model == "auto" else a.model
    log["chosen"] = best
    weights = {
        "version": 1,
        "model": best,
        "target": "each seat's points still to come (final score minus points so far), per stage",
        "features": list(VALUE_FEATURES),
        "stages": [export(p) for p in fitted[best]],
    }
    ValueModel(weights)  # it loads
    a.out.write_text(json.dumps(weights, separators=(",", ":")) + "\n", encoding="utf-8")
    log["seconds"] = round(time.perf_counter() - t0, 1)
    a.out.with_suffix(".log.json").write_text(json.dumps(log, indent=1) + "\n", encoding="utf-8")
    print(json.dumps({k: v for k, v in log.items() if k != "settings"}, indent=1))


def bench(positions: int = 200, passes: int = 5, seed: int = 3) -> dict[str, float]:
    """Microseconds per evaluation of every seat (median of ``passes`` over ``positions`` main
    decisions of four-player greedy games, memos emptied before each pass): the fitted leaf,
    the learned one, and the learned one's features alone."""
    from kardinal.bots.greedy import GreedyBot
    from kardinal.bots.learned import default_model
    from kardinal.rules.state import new_game
    from kardinal.rules.view import view

    states: list[State] = []
    g = 0
    while len(states) < positions:
        s = new_game(4, seed=seed * 1000 + g)
        bots = [GreedyBot(g * 10 + i) for i in range(4)]
        while not s.is_over:
            if s.phase == MAIN:
                states.append(s.copy())
            s.play(bots[s.current].choose(view(s, s.current)))
        g += 1
    states = states[:positions]
    ev = Evaluator(states[0].board)
    model = default_model()
    out: dict[str, float] = {}
    for name, f in (
        ("fitted", ev.leaf_estimate),
        ("learned", lambda s: model.estimate(ev, s)),
        ("features", lambda s: value_features(ev, s)),
    ):
        times = []
        for _ in range(passes):
            ev.clear_memos(full=True)
            t0 = time.perf_counter()
            for s in states:
                f(s)
            times.append((time.perf_counter() - t0) / len(states) * 1e6)
        out[name] = round(float(np.median(times)), 1)
    return out


if __name__ == "__main__":  # pragma: no cover
    main()
