"""What each seat of a finished game came to: its place, score and share of the win (R12.1).

A finished game's results are stored once (the ``results`` table, migration 9): profiles
and ratings read them and never replay games. :func:`seat_results` computes them from a
finished game's state; it is also how games finished before migration 9 get theirs.
"""

from __future__ import annotations

import asyncio
from collections.abc import Iterable
from typing import TYPE_CHECKING

from kardinal.rules.scoring import win_shares
from kardinal.rules.state import State

from ..common.refusal import Refused
from ..storage import SeatResult
from .ratings import MU0, SIGMA0, rater

if TYPE_CHECKING:
    from ..play.service import GameService

__all__ = ["SeatResult", "seat_results", "places", "stored_results"]


def places(scores: list[int], pieces_left: list[int]) -> list[float]:
    """Each seat's place, best first (R12.1: more points, then more pieces left); seats still
    equal share the mean of the places they cover.

    >>> places([10, 30, 30, 5], [2, 1, 1, 9])
    [3.0, 1.5, 1.5, 4.0]
    >>> places([10, 30, 30], [2, 4, 1])
    [3.0, 1.0, 2.0]
    """
    key = list(zip(scores, pieces_left))
    order = sorted(range(len(key)), key=lambda s: key[s], reverse=True)
    out = [0.0] * len(key)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and key[order[j + 1]] == key[order[i]]:
            j += 1
        mean = (i + j) / 2 + 1
        for k in range(i, j + 1):
            out[order[k]] = mean
        i = j + 1
    return out


def seat_results(state: State) -> list[SeatResult]:
    """Every seat's result of a finished game (ValueError if it is not over)."""
    if not state.is_over:
        raise ValueError("the game is not over")
    n = state.n
    left = [state.pieces_left(p) for p in range(n)]
    place = places(list(state.scores), left)
    shares = win_shares(state.winners or [], n)
    return [SeatResult(p, n, place[p], int(state.scores[p]), shares[p]) for p in range(n)]


async def stored_results(service: GameService, game_ids: Iterable[str]) -> dict[str, list[tuple[SeatResult, bool, float]]]:
    """The results of these games, per game (result, rated, finished) by seat; a finished
    game without stored results (finished before migration 9) is replayed once and its
    results stored. Games not finished, or unreadable, are missing from the answer."""
    want = sorted(set(game_ids))
    storage = service.storage
    have = await asyncio.to_thread(storage.results_of, want)
    missing = [g for g in want if g not in have]
    if not missing:
        return have
    rows = await asyncio.to_thread(storage.games_by_id, missing)
    for gid, row in rows.items():
        if row.status != "finished":
            continue
        live = service.live.get(gid)  # (a copy not yet caught up with another process is not over: the log is read)
        try:
            state = live.state if live is not None and live.state.is_over else (await asyncio.to_thread(service.replayed, gid)).state
            found = seat_results(state)
        except (Refused, ValueError):
            continue  # unreadable, or its log ends before the end
        rated = row.options.get("rated") is True
        # a rated game's ratings are updated with its results, once (settle.py)
        await asyncio.to_thread(storage.settle_game, gid, found, rated, row.updated, rater(row.seats, found), (MU0, SIGMA0))
        have[gid] = [(r, rated, row.updated) for r in found]
    return have
