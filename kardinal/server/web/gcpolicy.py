"""The server process's garbage collection: fewer, larger young collections, and what
exists at start is never walked again.

CPython frees almost everything by reference counting; its cycle collector looks for
garbage that refers to itself, in three generations. Measured under load (issue 13, the
reference machine, 15-20 s runs):

* The youngest generation was collected every 700 net allocations. A move allocates
  messages, futures and frames that live a few milliseconds; collected that often, many
  were still alive, were walked, and moved on to older generations, which then had to be
  walked too. With 50 games flat out the collector took 1.4 s of every 15 s (gen0 650-670
  ms, gen1 250-300 ms, 6-7 full collections of 64-74 ms each). Every ``GEN0`` allocations
  instead: 0.25-0.28 s, no full collection started by CPython, and 900 and 832 moves/s
  against 821 and 695 in the same session (two runs each).
* A *full* collection walks every object the process holds: the games in memory (their
  histories are named tuples, which the collector never stops tracking), the connections,
  and everything built at start: the modules, FastAPI's routes and models, the board
  tables, about 85,000 objects. ``gc.freeze`` moves those to a generation no collection
  looks at (they live as long as the process anyway): with 50 games at 500 moves/s, full
  collections took 58-157 ms before and 77-92 ms after.

With a thousand spectators coming and going (their connections' objects live a few seconds
and leave cycles) the larger young generation makes its collections longer (gen0 4-7 ms,
gen1 67-78 ms instead of 0.1 and 3.5 ms) but full collections rare (1-2 in 20 s instead of
17-20 of 62-77 ms): the players' p99 was 76 and 96 ms against 102 and 94 ms.

Tried and not kept: full collections on a timer instead of CPython's rule let the garbage
of closed connections pile up (356,000 objects after 20 s of spectators, a 612 ms
collection).
"""

from __future__ import annotations

import gc

__all__ = ["GEN0", "tune"]

GEN0 = 10_000  # net allocations between collections of the youngest generation (CPython: 700)


def tune() -> None:
    """Collect, freeze what the process holds now, and collect the young generation every
    GEN0 allocations: call it once everything the server needs is imported and built,
    before it serves (the server process only: it changes the whole process)."""
    gc.collect()
    gc.freeze()
    _, gen1, gen2 = gc.get_threshold()
    gc.set_threshold(GEN0, gen1, gen2)
