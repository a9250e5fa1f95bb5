"""The scorings of a game in detail, as JSON, for a client to walk through (R7, R8.4-R12).

:func:`scoring_breakdown` says, for the intermediate scoring and the final one, per country
who has how many cloisters, their places and points (R9); per alliance its two countries,
the advisors there, who holds each majority, who qualifies and for how much (R10); per seat
the chains that scored, as the sites along the roads (R11); and the result with its
tie-break (R12). Everything in it is public (R13.1: sites, advisors, scores and supplies);
it never holds a hand, the draw pile or the seed.

The points agree with the game's own scoring (``kardinal.rules.scoring``), which they
reuse; the tests check that they add up to the events' numbers.
"""

from __future__ import annotations

from collections.abc import Sequence

from typing_extensions import TypedDict  # typing's TypedDict on Python 3.11 gives pydantic no schema (the server's API)

from .board import Board
from .chains import chain_paths
from .events import GameEnded, IntermediateScoring
from .record import rewind
from .scoring import alliance_scoring, country_cloister_scores, majority_holders
from .state import State

__all__ = [
    "CountryBreakdown",
    "AllianceBreakdown",
    "ChainBreakdown",
    "IntermediateBreakdown",
    "FinalBreakdown",
    "ScoringBreakdown",
    "places",
    "country_breakdown",
    "cloister_breakdown",
    "alliance_breakdown",
    "chain_breakdown",
    "scoring_breakdown",
]


class CountryBreakdown(TypedDict):
    """R9 in one country: per seat its cloisters, its place (1 first, dense; 0 without a
    cloister) and its points; ``total``: the cloisters of all colours (what first place scores)."""

    country: str
    cloisters: list[int]
    places: list[int]
    points: list[int]
    total: int


class AllianceBreakdown(TypedDict):
    """R10 for one alliance: its two countries, the advisors per seat in each, who holds each
    majority (R10.2), who holds both (``qualifies``), what that is worth (``value``: every
    advisor in both countries) and the points per seat."""

    number: int
    across: str
    countries: list[str]
    advisors: list[list[int]]
    majority: list[list[int]]
    qualifies: list[int]
    value: int
    points: list[int]


class ChainBreakdown(TypedDict):
    """R11 for one seat: the chains that score, each as its sites in road order."""

    seat: int
    paths: list[list[str]]
    points: int


class IntermediateBreakdown(TypedDict):
    """R7.2: the cloister scoring when the draw pile ran out the first time, after ``step``
    decisions of the game."""

    step: int
    countries: list[CountryBreakdown]
    points: list[int]


class FinalBreakdown(TypedDict):
    """R8.4 and R12, after ``step`` decisions (the whole game). ``intermediate``,
    ``cloisters``, ``alliances``, ``chains`` per seat add up to ``scores``; ``order``: the
    seats from first to last (points, then pieces left, R12.1)."""

    step: int
    reason: str
    countries: list[CountryBreakdown]
    alliances_detail: list[AllianceBreakdown]
    chains_detail: list[ChainBreakdown]
    intermediate: list[int]
    cloisters: list[int]
    alliances: list[int]
    chains: list[int]
    scores: list[int]
    pieces_left: list[int]
    winners: list[int]
    order: list[int]


class ScoringBreakdown(TypedDict):
    """The scorings a game has had so far (None: not yet)."""

    players: int
    intermediate: IntermediateBreakdown | None
    final: FinalBreakdown | None


def places(counts: Sequence[int]) -> list[int]:
    """R9.2: dense places by cloister count, 1 first; 0 for a seat without a cloister.

    >>> places([3, 3, 1, 0])
    [1, 1, 2, 0]
    """
    distinct = sorted({c for c in counts if c > 0}, reverse=True)
    return [distinct.index(c) + 1 if c > 0 else 0 for c in counts]


def country_breakdown(country: str, counts: Sequence[int]) -> CountryBreakdown:
    return {
        "country": country,
        "cloisters": list(counts),
        "places": places(counts),
        "points": country_cloister_scores(counts),
        "total": sum(counts),
    }


def cloister_breakdown(board: Board, cloisters: Sequence[Sequence[int]]) -> list[CountryBreakdown]:
    """R9 for every country, in the conventional order of R9.1 (the board's order)."""
    return [country_breakdown(c.id, row) for c, row in zip(board.countries, cloisters)]


def alliance_breakdown(board: Board, advisors: Sequence[Sequence[int]]) -> list[AllianceBreakdown]:
    """R10 for every alliance, in number order (R10.1)."""
    out: list[AllianceBreakdown] = []
    for al, (number, pts) in zip(board.alliances, alliance_scoring(board, advisors)):
        a, b = al.countries
        out.append(
            {
                "number": number,
                "across": al.across,
                "countries": [board.countries[a].id, board.countries[b].id],
                "advisors": [list(advisors[a]), list(advisors[b])],
                "majority": [majority_holders(advisors[a]), majority_holders(advisors[b])],
                "qualifies": [p for p, x in enumerate(pts) if x],
                "value": sum(advisors[a]) + sum(advisors[b]),
                "points": list(pts),
            }
        )
    return out


def chain_breakdown(board: Board, owner: Sequence[int], n: int) -> list[ChainBreakdown]:
    """R11 per seat: the scoring chains (site ids in road order) and their points."""
    out: list[ChainBreakdown] = []
    for seat in range(n):
        paths = chain_paths([s for s, p in enumerate(owner) if p == seat], board.neighbours)
        out.append({"seat": seat, "paths": [[board.sites[i].id for i in path] for path in paths], "points": sum(map(len, paths))})
    return out


def _order(scores: Sequence[int], left: Sequence[int]) -> list[int]:
    """Seats from first to last: most points, then most pieces left (R12.1), then seat."""
    return sorted(range(len(scores)), key=lambda p: (-scores[p], -left[p], p))


def scoring_breakdown(state: State) -> ScoringBreakdown:
    """The intermediate and the final scoring of ``state`` so far, in detail.

    The cloisters of the intermediate scoring are those on the board when it happened:
    the game is replayed to the decision that took the last card (``state`` must keep its
    history for that, ValueError otherwise).
    """
    b = state.board
    n = state.n
    inter: IntermediateBreakdown | None = None
    fin: FinalBreakdown | None = None
    step = None
    reason = "pile"
    for i, d in enumerate(state.history or ()):
        for e in d.events:
            if isinstance(e, IntermediateScoring):
                step = i + 1
            elif isinstance(e, GameEnded):
                reason = e.reason
    if state.intermediate_scoring is not None:
        if step is None:
            raise ValueError("the intermediate scoring needs the game's history")
        # a decision that takes a card places no piece: the board after it is the board scored
        then = rewind(state, step)
        countries = cloister_breakdown(b, then.cloisters)
        assert [c["points"] for c in countries] == state.intermediate_scoring
        inter = {"step": step, "countries": countries, "points": [sum(c["points"][p] for c in countries) for p in range(n)]}
    fs = state.final_scoring
    if fs is not None:
        left = [state.pieces_left(p) for p in range(n)]
        ipts = inter["points"] if inter else [0] * n
        fin = {
            "step": len(state.history) if state.history is not None else 0,
            "reason": reason,
            "countries": cloister_breakdown(b, state.cloisters),
            "alliances_detail": alliance_breakdown(b, state.advisors),
            "chains_detail": chain_breakdown(b, state.owner, n),
            "intermediate": ipts,
            "cloisters": list(fs.cloisters),
            "alliances": list(fs.alliances),
            "chains": list(fs.chains),
            "scores": state.scores[:],
            "pieces_left": left,
            "winners": list(state.winners or ()),
            "order": _order(state.scores, left),
        }
    return {"players": n, "intermediate": inter, "final": fin}
