"""What one player may know (R13): the only form in which state reaches a player.

``view(state, seat)`` is a JSON-ready dict. It holds everything public (R13.1) and the
hand of ``seat``; ``view(state, None)`` is a spectator's and holds no hand. It never
holds another player's hand cards, the order of the draw pile, the reshuffle, or the seed.

Keys:
  format, board, players, seat, current, phase ("main", "draw", "over"),
  hand            {kind: count} of this seat's hand (absent for spectators)
  hand_sizes      [seat] number of cards in each hand
  known           [seat] {kind: count} cards known to be in each hand: taken from the
                  display and not possibly played since (a lower bound, public)
  display         [kind, ...] the face-up cards
  deck_size       cards in the draw pile
  discard         {kind: count} the discard pile (public, R13.1)
  removed         {kind: count} removed at setup (R2.1)
  sites           {site: seat} every cloister on the board
  cloisters       {country: [seat counts]}
  advisors        {country: [seat counts]}
  advisor_limit   {country: most cloisters of one player there} (R4.8)
  supply          [seat] {"cloisters": n, "advisors": n}
  scores          [seat] points so far
  turns           [seat] turns taken
  exhaustions     times the draw pile has been used up (0, 1, 2)
  final_round     whether the last round is being completed (R8.1)
  breakdown       scorings so far (see State.breakdown)
  winners         [seat, ...] once the game is over, else null
  variants        [name, ...] the rule variants of the game (R14); empty: the rules as written
  history         [{"action": record action, "notation": text, "events": [event, ...]}, ...]
                  every decision so far with what it caused (kardinal.rules.events); all
                  public, except that a card drawn from the pile shows its kind only to
                  the seat that drew it ("kind": null for everyone else)
"""

from __future__ import annotations

from typing import Any

from typing_extensions import TypedDict  # see breakdown.py

from .board import Board
from .events import Decision, EventData, event_data
from .record import RecordAction, action_of
from .state import State

__all__ = ["view", "hand_view", "VIEW_FORMAT", "ViewData", "HistoryEntry", "SupplyData", "history_entry"]

VIEW_FORMAT = "kardinal-view"


class HistoryEntry(TypedDict):
    """One decision in a view: the record action, its notation, and what it caused."""

    action: RecordAction
    notation: str
    events: list[EventData]


class SupplyData(TypedDict):
    cloisters: int
    advisors: int


class ViewData(TypedDict, total=False):
    """A view, as documented above (``hand`` only for a seat)."""

    format: str
    board: str
    players: int
    seat: int | None
    current: int
    phase: str
    hand: dict[str, int]
    hand_sizes: list[int]
    known: list[dict[str, int]]
    display: list[str]
    deck_size: int
    discard: dict[str, int]
    removed: dict[str, int]
    sites: dict[str, int]
    cloisters: dict[str, list[int]]
    advisors: dict[str, list[int]]
    advisor_limit: dict[str, int]
    supply: list[SupplyData]
    scores: list[int]
    turns: list[int]
    exhaustions: int
    final_round: bool
    breakdown: dict[str, Any]
    winners: list[int] | None
    variants: list[str]
    history: list[HistoryEntry] | None


def history_entry(board: Board, decision: Decision, viewer: int | None) -> HistoryEntry:
    """One decision as ``viewer`` (a seat, or None) may see it."""
    return {
        "action": action_of(decision.seat, decision.move),
        "notation": str(decision.move),
        "events": [event_data(board, e, viewer) for e in decision.events],
    }


def _counts(ids: list[str], row: list[int]) -> dict[str, int]:
    return {ids[k]: c for k, c in enumerate(row) if c}


def view(state: State, seat: int | None, history: bool = True) -> ViewData:
    """The state as ``seat`` may see it (R13); ``None`` for a spectator. ``history=False``
    leaves the history out (a server that keeps it as text already, entry by entry, with
    :func:`history_entry`); everything else is the same."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < state.n):
        raise ValueError(f"no seat {seat!r} in a {state.n}-player game")
    b = state.board
    kids = [k.id for k in b.cards]
    cids = [c.id for c in b.countries]
    out: ViewData = {
        "format": VIEW_FORMAT,
        "board": getattr(b, "id", b.name),
        "players": state.n,
        "seat": seat,
        "current": state.current,
        "phase": state.phase.value,
        "hand_sizes": [sum(h) for h in state.hands],
        "known": [_counts(kids, k) for k in state.known],
        "display": [kids[k] for k in state.display],
        "deck_size": state.deck_size,
        "discard": _counts(kids, state.discard),
        "removed": _counts(kids, state.removed),
        "sites": {b.sites[s].id: p for s, p in enumerate(state.owner) if p >= 0},
        "cloisters": dict(zip(cids, (r[:] for r in state.cloisters))),
        "advisors": dict(zip(cids, (r[:] for r in state.advisors))),
        "advisor_limit": dict(zip(cids, state.most_cloisters)),
        "supply": [{"cloisters": c, "advisors": a} for c, a in zip(state.supply_cl, state.supply_adv)],
        "scores": state.scores[:],
        "turns": state.turns[:],
        "exhaustions": state.exhaustions,
        "final_round": state.final_round,
        "breakdown": state.breakdown(),
        "winners": list(state.winners) if state.winners is not None else None,
        "variants": list(state.variants),
    }
    if history:
        out["history"] = [history_entry(b, d, seat) for d in state.history] if state.history is not None else None
    if seat is not None:
        out["hand"] = hand_view(state, seat)
    return out


def hand_view(state: State, seat: int) -> dict[str, int]:
    """The ``hand`` of ``view(state, seat)``: that seat's own cards, {kind: count}."""
    return _counts([k.id for k in state.board.cards], state.hands[seat])
