"""Hints and post-game reviews over HTTP: the bot's judgement of a game's positions.

One router, included by ``app.py``; the game service is ``request.app.state.service``.
The judging itself is ``kardinal.bots.analysis``; it runs in the service's bot executor
(never on the event loop), in the bots' fair slots.

* ``GET /api/games/{id}/teach``: what may be asked of this game (``hints``: the table
  allows them, see ``LiveGame.hints_allowed``) and how far its review is.
* ``POST /api/games/{id}/hint`` ``{"seat", "token", "version"}``: the best three moves
  for the seat to act, from its view only (a few seconds at most: the ``hard`` level's
  search). Refusals: ``bad_token`` (403; an address sending too many wrong tokens is
  refused ``rate_limited``, 429, as guard.py does elsewhere), ``hints_off`` (403: the people did not agree
  to hints when the game was created), ``not_started``, ``game_over``,
  ``not_your_turn``, ``stale_version`` (409). A hint is kept per game, version and
  seat: asking again costs nothing, and two requests for one hint share one search.
* ``POST /api/games/{id}/review`` starts the review of a finished game (``not_finished``
  otherwise) and ``GET`` the same address reports it: ``status`` "none", "running"
  (``done`` of ``total`` decisions) or "done" (with the review). It rates the main
  decisions of the people (every seat in a game of bots only), each from the view its
  seat had then, one decision per executor job at the priority of games of bots only,
  so live games go first; it is kept in memory for the server's lifetime (the most
  recent 200 games; at most 4 are made at once, ``busy`` (429) beyond). A finished game is public (its replay shows every hand), and so
  is its review. The review names each seat's three costliest decisions (``costliest``,
  however small their cost), each with the better move; a decision is a mistake by its
  cost or by its gain against the best move's (``analysis.verdict``). Each decision is
  one search of ``KARDINAL_REVIEW_ITERATIONS``: the cost of a review is bounded by the
  number of decisions, whatever is shown.

Budgets: ``KARDINAL_HINT_SECONDS`` (1.5) and ``KARDINAL_HINT_ITERATIONS`` (2,400, the hard level's, with its fitted leaf) per
hint, ``KARDINAL_REVIEW_ITERATIONS`` (400) per reviewed decision.
"""

from __future__ import annotations

import asyncio
import hashlib
import logging
from collections import OrderedDict
from dataclasses import dataclass, field
from typing import Any

from fastapi import APIRouter, Request

from kardinal.bots.analysis import (
    RELATIVE,
    VERDICTS,
    costliest,
    hint,
    rate_decision,
    review_plan,
)
from kardinal.rules.record import record_of
from kardinal.rules.view import ViewData, view

from ..common.guard import Guard
from ..common.names import seat_name
from ..common.refusal import Refused
from .fair import BOTS_ONLY, PEOPLE
from .live import LiveGame
from .schemas import HintAnswer, HintRequest, ReviewRequest, ReviewStatus, TeachInfo
from .service import GameService

__all__ = ["router", "hint_job"]

log = logging.getLogger("kardinal.web")

router = APIRouter(tags=["hints and reviews"])

KEEP_REVIEWS = 200
KEEP_HINTS = 500
MAX_REVIEWING = 4  # reviews under way at once in one process; more wait to be asked again


def hint_job(v: ViewData, iterations: int, seconds: float, seed: int) -> dict[str, Any]:
    """Run in a worker: the hint for a view, JSON-ready."""
    return hint(v, iterations=iterations, time_limit=seconds, seed=seed).to_json()


def plan_job(record: dict[str, Any], seats: list[int]) -> tuple[list[tuple[int, int, int, ViewData, Any]], list[dict[str, Any]]]:
    """Run in a worker: the decisions to rate (index, seat, turn, view, action) and the chances to win."""
    decisions, chances = review_plan(record, seats)
    return (
        [(d.index, d.seat, d.turn, d.view, d.action) for d in decisions],
        [{"step": k, "chances": [round(x, 4) for x in c]} for k, c in chances],
    )


@dataclass
class ReviewJob:
    """A review being made or made: its progress, and its result."""

    seats: list[int]
    iterations: int
    total: int = 0
    chances: list[dict[str, Any]] = field(default_factory=list)
    decisions: list[dict[str, Any]] = field(default_factory=list)
    status: str = "running"  # running, done, failed
    task: asyncio.Task[None] | None = None


@dataclass
class Teaching:
    """The hints and reviews of one server process."""

    hints: OrderedDict[tuple[str, int, int], asyncio.Future[dict[str, Any]]] = field(default_factory=OrderedDict)
    reviews: OrderedDict[str, ReviewJob] = field(default_factory=OrderedDict)
    # wrong seat tokens sent to /hint: an address over its budget is refused (rate_limited)
    # whatever it sends, as at the other addresses that take a token (guard.py)
    guard: Guard = field(default_factory=Guard)


def _teaching(request: Request) -> Teaching:
    state = request.app.state
    t = getattr(state, "teaching", None)
    if t is None:
        t = state.teaching = Teaching()
        storage = state.service.storage
        if storage.shared:  # several processes: the wrong tokens' budget is theirs together
            t.guard.share(storage)
    return t


def _service(request: Request) -> GameService:
    service: GameService = request.app.state.service
    return service


def _review_seats(live: LiveGame) -> list[int]:
    people = [i for i, s in enumerate(live.row.seats) if s.kind == "person"]
    return people or list(range(len(live.row.seats)))


def _review_status(job: ReviewJob | None) -> dict[str, Any]:
    if job is None:
        return {"status": "none"}
    out: dict[str, Any] = {"status": job.status, "done": len(job.decisions), "total": job.total, "seats": job.seats}
    if job.status == "done":
        out["review"] = {
            "format": "kardinal-review",
            "seats": job.seats,
            "iterations": job.iterations,
            "verdicts": {name: least for least, name in VERDICTS},
            "relative": RELATIVE,
            "chances": job.chances,
            "decisions": job.decisions,
            # each seat's three costliest decisions, however small: what the review shows first
            "costliest": {str(p): costliest(job.decisions, p) for p in job.seats},
        }
    return out


@router.get("/api/games/{game_id}/teach", response_model=TeachInfo)
async def teach_info(game_id: str, request: Request) -> TeachInfo:
    """What may be asked of this game: hints (the table allows them), and its review."""
    live = await _service(request).fetch(game_id)
    job = _teaching(request).reviews.get(live.row.id)
    return {"game": live.row.id, "hints": live.hints_allowed, "finished": live.row.status == "finished", "review": _review_status(job)}


@router.post("/api/games/{game_id}/hint", response_model=None, responses={200: {"model": HintAnswer}})
async def post_hint(game_id: str, body: HintRequest, request: Request) -> dict[str, Any]:
    """The best three moves for the asking seat, whose turn it is, from its view only."""
    service = _service(request)
    live = await service.fetch(game_id)
    teaching = _teaching(request)
    addr = request.client.host if request.client is not None else "?"
    teaching.guard.check("bad_token", addr)
    try:
        seat = service._auth(live, body.seat, body.token)
    except Refused:
        teaching.guard.note("bad_token", addr)
        raise
    version = body.version
    if not live.hints_allowed:
        raise Refused("hints_off", "hints were not agreed to when this game was created", 403)
    if live.row.status == "open":
        raise Refused("not_started", "the game starts when every player has joined")
    if live.state.is_over:
        raise Refused("game_over", "the game is over")
    if live.state.current != seat:
        name = seat_name(live.row.seats[live.state.current].name, live.state.current)
        raise Refused("not_your_turn", f"it is {name}'s turn", name=name)
    if version != live.version:
        raise Refused("stale_version", f"the game has moved on: version {live.version}, not {version}", version=live.version)
    key = (live.row.id, live.version, seat)
    fut = teaching.hints.get(key)
    if fut is None or (fut.done() and (fut.cancelled() or fut.exception() is not None)):
        seat_view = view(live.state, seat)  # the seat's own view, nothing else
        seed = int.from_bytes(hashlib.sha256(f"hint:{live.row.id}:{seat}:{live.version}".encode()).digest()[:8], "big")
        settings = request.app.state.settings  # KARDINAL_HINT_ITERATIONS, KARDINAL_HINT_SECONDS
        iterations, seconds = settings.hint_iterations, settings.hint_seconds
        fut = asyncio.ensure_future(_run_hint(service, seat_view, iterations, seconds, seed))
        teaching.hints[key] = fut
        while len(teaching.hints) > KEEP_HINTS:
            teaching.hints.popitem(last=False)
    try:
        result = await asyncio.shield(fut)
    except Exception:
        log.exception("a hint failed in game %s", live.row.id)
        raise Refused("unavailable", "the hint could not be computed", 503) from None
    return {"type": "hint", "game": live.row.id, "version": key[1], **result}


async def _run_hint(service: GameService, v: ViewData, iterations: int, seconds: float, seed: int) -> dict[str, Any]:
    loop = asyncio.get_running_loop()
    async with service.thinking.slot(PEOPLE):
        result: dict[str, Any] = await loop.run_in_executor(service.executor, hint_job, v, iterations, seconds, seed)
    return result


@router.get("/api/games/{game_id}/review", response_model=None, responses={200: {"model": ReviewStatus}})
async def get_review(game_id: str, request: Request) -> dict[str, Any]:
    """The review of a finished game: "none" (not asked for), "running" with its progress, or "done"."""
    live = await _service(request).fetch(game_id)
    return {"game": live.row.id, **_review_status(_teaching(request).reviews.get(live.row.id))}


@router.post("/api/games/{game_id}/review", response_model=None, responses={200: {"model": ReviewStatus}})
async def start_review(game_id: str, request: Request, body: ReviewRequest | None = None) -> dict[str, Any]:
    """Start the review of a finished game (once: asking again reports the one under way).
    The body, if any, is an empty object."""
    service = _service(request)
    live = await service.fetch(game_id)
    if live.row.status != "finished":
        raise Refused("not_finished", "a game is reviewed once it is over")
    teaching = _teaching(request)
    job = teaching.reviews.get(live.row.id)
    if job is None or job.status == "failed":
        if sum(1 for j in teaching.reviews.values() if j.status == "running") >= MAX_REVIEWING:
            raise Refused("busy", f"{MAX_REVIEWING} reviews are being made; ask again in a minute", 429, max=MAX_REVIEWING)
        iterations = request.app.state.settings.review_iterations  # KARDINAL_REVIEW_ITERATIONS
        job = ReviewJob(_review_seats(live), iterations)
        teaching.reviews[live.row.id] = job
        while len(teaching.reviews) > KEEP_REVIEWS:
            _, old = teaching.reviews.popitem(last=False)
            if old.task is not None:
                old.task.cancel()
        job.task = asyncio.create_task(_run_review(service, live, job))
    teaching.reviews.move_to_end(live.row.id)
    return {"game": live.row.id, **_review_status(job)}


async def _run_review(service: GameService, live: LiveGame, job: ReviewJob) -> None:
    loop = asyncio.get_running_loop()
    try:
        record = record_of(live.state, live.names)
        async with service.thinking.slot(BOTS_ONLY):
            plan, chances = await loop.run_in_executor(service.executor, plan_job, record, job.seats)
        job.chances = chances
        job.total = len(plan)
        for index, _seat, turn, v, action in plan:
            async with service.thinking.slot(BOTS_ONLY):
                rated = await loop.run_in_executor(service.executor, rate_decision, v, action, index, turn, job.iterations, index)
            job.decisions.append(rated)
        job.status = "done"
    except asyncio.CancelledError:
        job.status = "failed"
        raise
    except Exception:
        log.exception("the review of game %s failed", live.row.id)
        job.status = "failed"
