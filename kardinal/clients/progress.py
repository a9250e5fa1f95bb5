"""The progress of a run of games on standard error (``kardinal tournament``, ``selfplay``):
games done, the rate, the time left and the current ratings.

On a terminal it is a bar that redraws itself (rich); elsewhere (a pipe, a log file) a
line now and then (every ``every`` seconds, none if the run is shorter). Standard output
stays for the results, so ``--json`` can be piped while the bar shows. Whether standard
error is a terminal is rich's answer (``TTY_COMPATIBLE=1`` and ``TTY_INTERACTIVE=1`` force
it).
"""

from __future__ import annotations

import sys
import time
from collections.abc import Sequence
from types import TracebackType

from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, ProgressColumn, Task, TextColumn
from rich.text import Text

from kardinal.bots.tournament import GameResult, LiveRatings

__all__ = ["RunProgress", "rate_text", "duration_text"]

RATINGS_EVERY = 1.0  # seconds between two fits of the ratings shown


def rate_text(per_second: float) -> str:
    """Games a second, a minute or an hour, whichever reads best.

    >>> rate_text(12.34), rate_text(0.05), rate_text(0.0005)
    ('12.3 games/s', '3.0 games/min', '1.8 games/h')
    """
    if per_second >= 1:
        return f"{per_second:.1f} games/s"
    if per_second * 60 >= 1:
        return f"{per_second * 60:.1f} games/min"
    return f"{per_second * 3600:.1f} games/h"


def duration_text(seconds: float) -> str:
    """A duration as a clock shows it.

    >>> duration_text(59), duration_text(3725), duration_text(200000)
    ('0:59', '1:02:05', '2 d 7:33:20')
    """
    s = int(round(seconds))
    d, s = divmod(s, 86400)
    h, s = divmod(s, 3600)
    m, s = divmod(s, 60)
    text = f"{h}:{m:02d}:{s:02d}" if h or d else f"{m}:{s:02d}"
    return f"{d} d {text}" if d else text


class _Speed:
    """The games of this run so far over the time since it started (a resumed run's earlier
    games do not count)."""

    def __init__(self, done: int, total: int) -> None:
        self.start = time.monotonic()
        self.first = done
        self.done = done
        self.total = total

    def rate(self) -> float | None:
        n = self.done - self.first
        t = time.monotonic() - self.start
        return n / t if n > 0 and t > 0 else None

    def left(self) -> float | None:
        r = self.rate()
        return (self.total - self.done) / r if r else None


class _RateColumn(ProgressColumn):
    def __init__(self, speed: _Speed) -> None:
        super().__init__()
        self.speed = speed

    def render(self, task: Task) -> Text:
        r = self.speed.rate()
        return Text(rate_text(r) if r else "- games/s", style="progress.data.speed")


class _LeftColumn(ProgressColumn):
    def __init__(self, speed: _Speed) -> None:
        super().__init__()
        self.speed = speed

    def render(self, task: Task) -> Text:
        left = self.speed.left()
        return Text(f"{duration_text(left)} left" if left is not None else "-:-- left", style="progress.remaining")


class RunProgress:
    """``with RunProgress(bots, total, done) as p: ... p.add(result)``: the bar (or the
    occasional line) of a run of ``total`` games of which ``done`` were played before."""

    def __init__(self, bots: Sequence[str], total: int, done: Sequence[GameResult] = (), every: float = 60.0) -> None:
        self.bots = list(bots)
        self.console = Console(stderr=True)
        self.live = self.console.is_interactive
        self.every = every
        self.speed = _Speed(len(done), total)
        self.ratings = LiveRatings(len(self.bots))
        for r in done:
            self.ratings.add(r)
        self._fitted = 0.0
        self._said = time.monotonic()
        self._text = self._ratings_text() if done else ""
        self.progress: Progress | None = None
        if self.live:
            self.progress = Progress(
                TextColumn("games"),
                BarColumn(),
                MofNCompleteColumn(),
                _RateColumn(self.speed),
                _LeftColumn(self.speed),
                TextColumn("{task.fields[ratings]}"),
                console=self.console,
                auto_refresh=False,  # no thread: the bar is drawn as games end (the pool forks after it starts)
                redirect_stdout=False,
                redirect_stderr=False,
            )
            self._task = self.progress.add_task("games", total=total, completed=len(done), ratings=self._text)

    def __enter__(self) -> RunProgress:
        if self.progress is not None:
            self.progress.start()
            self.progress.refresh()
        return self

    def __exit__(self, kind: type[BaseException] | None, err: BaseException | None, tb: TracebackType | None) -> None:
        if self.progress is not None:
            self._text = self._ratings_text()
            self.progress.update(self._task, ratings=self._text)
            self.progress.stop()

    def _ratings_text(self) -> str:
        rated = self.ratings.ratings()
        self._fitted = time.monotonic()
        return "  ".join(f"{e + 1} {name} {r:.0f}" for e, (name, r) in enumerate(zip(self.bots, rated)))

    def add(self, result: GameResult) -> None:
        """One more game finished."""
        self.speed.done += 1
        self.ratings.add(result)
        now = time.monotonic()
        if now - self._fitted >= RATINGS_EVERY or self.speed.done == self.speed.total:
            self._text = self._ratings_text()
        if self.progress is not None:
            self.progress.update(self._task, advance=1, ratings=self._text, refresh=True)
        elif now - self._said >= self.every:
            self._said = now
            r = self.speed.rate()
            left = self.speed.left()
            parts = [f"{self.speed.done} of {self.speed.total} games"]
            if r:
                parts.append(rate_text(r))
            if left is not None:
                parts.append(f"{duration_text(left)} left")
            print(", ".join(parts) + f"; ratings: {self._ratings_text()}", file=sys.stderr, flush=True)

    def echo(self, line: str) -> None:
        """A line of results on standard output; above the bar when both are the terminal."""
        if self.progress is not None and sys.stdout.isatty():
            self.progress.console.print(line, markup=False, highlight=False, soft_wrap=True)
        else:
            print(line, flush=True)
