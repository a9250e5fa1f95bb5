"""Root-parallel ISMCTS: several independent searches of one decision, one a process.

:class:`RootParallelBot` runs ``workers`` :class:`~kardinal.bots.ismcts.ISMCTSBot` searches
of the same view with different seeds at the same time, each with the whole budget of one
search (its iterations, steps and time limit), and plays the root move with the most
visits summed over them (root parallelisation: Cazenave & Jouandeau 2007, Chaslot, Winands
& van den Herik 2008). On a machine with a core free for each, it searches ``workers`` times
as much in the same wall time. The first search runs in the bot's own process, the others
in processes forked for the decision (``os.fork``: it works inside a tournament's worker
processes too, which may not start ``multiprocessing`` children) that send back their root
visits and the state of their random generator and exit; every one is waited for before
``choose`` returns, also when it fails. Where ``os.fork`` is missing (Windows) the searches
run one after the other, with the same result.

Search ``i`` has the seed ``seed + SEED_STEP * i`` (the first is the bot's own), and keeps
its random generator from decision to decision as a single search does, so with an
iteration or step budget the moves are those of the same searches run one after the other:
deterministic given the seed and the number of workers. Ties of the summed visits go to
the move the first search ranked first. Draw decisions (R5.1) are answered by the first
search alone (it answers them at once, by greedy's rule).
"""

from __future__ import annotations

import os
import pickle
import select
from typing import Any

from kardinal.rules.board import Board
from kardinal.rules.moves import Move
from kardinal.rules.state import DRAW
from kardinal.rules.view import ViewData

from .base import Bot
from .ismcts import ISMCTSBot

__all__ = ["RootParallelBot", "SEED_STEP"]

SEED_STEP = 7_919  # seed of search i: the bot's seed plus i times this


class RootParallelBot(Bot):
    """``workers`` ISMCTS searches (``search``: ISMCTSBot's settings) merged at the root."""

    name = "parallel"

    def __init__(self, seed: int = 0, board: Board | None = None, workers: int = 2, fork: bool = True, **search: Any) -> None:
        super().__init__(seed, board)
        if workers < 1:
            raise ValueError(f"workers must be at least 1, not {workers}")
        self.workers = workers
        self.fork = fork and hasattr(os, "fork")
        self.searches = [ISMCTSBot(seed + SEED_STEP * i, board, **search) for i in range(workers)]
        self.last_root: dict[Move, tuple[int, float]] = {}  # merged: (visits, mean reward)
        self.last_iterations = 0
        self.cut_short = 0

    def choose(self, view: ViewData) -> Move:
        first = self.searches[0]
        if self.workers == 1 or (view["phase"] == DRAW and first.draw_steps is None):
            move = first.choose(view)
            self.last_root = dict(first.last_root)
            self.last_iterations = first.last_iterations
            self.cut_short = first.cut_short
            return move
        others = self.searches[1:]
        if self.fork:
            results = self._forked(view)
        else:
            results = [(first.choose(view), *self._report(first))]
            results += [(b.choose(view), *self._report(b)) for b in others]
        for b, (_, _, _, rng, cut) in zip(self.searches[1:], results[1:], strict=True):
            b.rng.setstate(rng)
            b.cut_short = cut
        self.cut_short = sum(r[4] for r in results)
        merged: dict[Move, list[float]] = {}
        for _, root, _, _, _ in results:
            for m, (visits, mean) in root.items():
                acc = merged.setdefault(m, [0.0, 0.0])
                acc[0] += visits
                acc[1] += visits * mean
        self.last_iterations = sum(r[2] for r in results)
        if not merged:  # a single legal move: every search answered it at once
            return results[0][0]
        self.last_root = {m: (int(v), t / v if v else 0.0) for m, (v, t) in merged.items()}
        best = max(self.last_root.values(), key=lambda x: x[0])[0]
        return next(m for m, (v, _) in self.last_root.items() if v == best)

    @staticmethod
    def _report(b: ISMCTSBot) -> tuple[dict[Move, tuple[int, float]], int, Any, int]:
        return dict(b.last_root), b.last_iterations, b.rng.getstate(), b.cut_short

    def _forked(self, view: ViewData) -> list[tuple[Move, dict[Move, tuple[int, float]], int, Any, int]]:
        """The searches, all but the first in forked processes (waited for in every case)."""
        children: list[tuple[int, int]] = []  # (pid, read end)
        try:
            for b in self.searches[1:]:
                r, w = os.pipe()
                pid = os.fork()
                if pid == 0:  # pragma: no cover - the child (coverage does not follow it)
                    code = 0
                    try:
                        os.close(r)
                        got = pickle.dumps((b.choose(view), *self._report(b)))
                        with os.fdopen(w, "wb") as pipe:
                            pipe.write(got)
                    except BaseException:
                        code = 1
                    finally:
                        os._exit(code)
                os.close(w)
                children.append((pid, r))
            mine = (self.searches[0].choose(view), *self._report(self.searches[0]))
            out = [mine]
            for _, r in children:
                out.append(pickle.loads(_read_all(r)))
            return out
        finally:
            for pid, r in children:
                try:
                    os.close(r)
                except OSError:
                    pass
                os.waitpid(pid, 0)


def _read_all(fd: int) -> bytes:
    """Everything a child writes to its pipe until it closes it; an error if it sent nothing."""
    parts = []
    while True:
        select.select([fd], [], [])
        chunk = os.read(fd, 1 << 16)
        if not chunk:
            break
        parts.append(chunk)
    if not parts:
        raise RuntimeError("a search process of the root-parallel bot failed")
    return b"".join(parts)
