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
  history         [[seat, move notation], ...] every decision so far; all are public
                  (a draw from the pile does not say which card)
"""

from __future__ import annotations

from typing import Any

from .state import State

__all__ = ["view", "VIEW_FORMAT"]

VIEW_FORMAT = "kardinal-view"


def _counts(ids: list[str], row: list[int]) -> dict[str, int]:
    return {ids[k]: c for k, c in enumerate(row) if c}


def view(state: State, seat: int | None) -> dict[str, Any]:
    """The state as ``seat`` may see it (R13); ``None`` for a spectator."""
    if seat is not None and not (isinstance(seat, int) and 0 <= seat < state.n):
        raise ValueError(f"no seat {seat!r} in a {state.n}-player game")
    b = state.board
    kids = [k.id for k in b.cards]
    cids = [c.id for c in b.countries]
    out: dict[str, Any] = {
        "format": VIEW_FORMAT,
        "board": b.name,
        "players": state.n,
        "seat": seat,
        "current": state.current,
        "phase": state.phase,
        "hand_sizes": [sum(h) for h in state.hands],
        "known": [_counts(kids, k) for k in state.known],
        "display": [kids[k] for k in state.display],
        "deck_size": state.deck_size,
        "discard": _counts(kids, state.discard),
        "removed": _counts(kids, state.removed),
        "sites": {b.sites[s].id: p for s, p in enumerate(state.owner) if p >= 0},
        "cloisters": dict(zip(cids, (r[:] for r in state.cloisters))),
        "advisors": dict(zip(cids, (r[:] for r in state.advisors))),
        "advisor_limit": dict(zip(cids, state.max_cl)),
        "supply": [{"cloisters": c, "advisors": a} for c, a in zip(state.supply_cl, state.supply_adv)],
        "scores": state.scores[:],
        "turns": state.turns[:],
        "exhaustions": state.exhaustions,
        "final_round": state.final_round,
        "breakdown": state.breakdown(),
        "winners": state.result_winners[:] if state.result_winners is not None else None,
        "history": [[p, str(m)] for p, m in state.history] if state.history is not None else None,
    }
    if seat is not None:
        out["hand"] = _counts(kids, state.hands[seat])
    return out
