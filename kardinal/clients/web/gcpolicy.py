"""The server process's garbage collection: what exists at start is never walked again.

CPython frees almost everything by reference counting; its cycle collector looks for
garbage that refers to itself. A *full* collection walks every object the process holds:
the games in memory (their histories are named tuples, which the collector never stops
tracking), the connections, and everything built at start: the modules, FastAPI's routes
and models, the board tables, about 85,000 objects. Under load (issue 13) full collections
took 60-200 ms on the reference machine, and every game waited for each of them.

``kardinal serve`` therefore freezes what exists once the app is built (``gc.freeze``:
those objects move to a generation no collection looks at; they live as long as the
process anyway). Measured with 50 games at 500 moves/s, 20 s: three full collections
either way, 58-157 ms each before, 77-92 ms after.

Tried and not kept: collecting the young generations less often (10,000 allocations
instead of 700) made each of those collections longer (76 ms instead of 2 ms for the middle
generation with a thousand spectators coming and going); full collections on a timer
instead of CPython's rule let the garbage of closed connections pile up (356,000 objects
after 20 s of that, a 612 ms collection).
"""

from __future__ import annotations

import gc

__all__ = ["tune"]


def tune() -> None:
    """Collect, then freeze what the process holds now: call it once everything the server
    needs is imported and built, before it serves."""
    gc.collect()
    gc.freeze()
