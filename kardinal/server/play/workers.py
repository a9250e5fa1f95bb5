"""The processes that run the bots for the web server.

``bot_executor(n)`` is a pool of ``n`` spawned processes. Each one watches its parent and
ends itself as soon as the parent is gone, however it went (SIGTERM, a crash, ``kill -9``):
a bot worker never outlives its server.
"""

from __future__ import annotations

import multiprocessing
import os
import threading
import time
from concurrent.futures import ProcessPoolExecutor

__all__ = ["bot_executor", "watch_parent"]


def _watch(parent: int, every: float) -> None:
    while True:
        time.sleep(every)
        if os.getppid() != parent:  # the parent died: this process was handed to another
            os._exit(0)


def watch_parent(parent: int, every: float = 0.25) -> None:
    """Run in each worker at its start: end the worker when ``parent`` is no longer its parent."""
    threading.Thread(target=_watch, args=(parent, every), name="watch-parent", daemon=True).start()


def bot_executor(workers: int) -> ProcessPoolExecutor:
    return ProcessPoolExecutor(workers, mp_context=multiprocessing.get_context("spawn"), initializer=watch_parent, initargs=(os.getpid(),))
