"""A server's periodic work, paced: the play domain's looks (people away, clocks, the other
processes' games) and community's (the operator's pending work) all wait on one stop event."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator


async def ticks(stop: asyncio.Event, every: float) -> AsyncIterator[None]:
    """Once every ``every`` seconds until ``stop`` is set (a server's periodic work: the
    tables' look for people away, the clocks, the other processes' games)."""
    while True:
        try:
            await asyncio.wait_for(stop.wait(), every)
        except TimeoutError:
            pass
        if stop.is_set():
            return
        yield
