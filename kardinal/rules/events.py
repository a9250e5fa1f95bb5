"""What a decision caused: public events recorded by ``State.play`` in the game's history.

A decision (the move a player chose) can cause more than itself: cards drawn from the
pile, cards turned up into the display, the intermediate scoring and the reshuffle (R7),
the start of the last round (R8.1), the end of the game with the final scoring (R8.4,
R12). ``State.play`` records them, in the order they happened, beside the move; every
client (the game in words, the terminal, the browser, the replay) reads them instead of
working them out again.

Events are small immutable values. One of them carries a secret: the card a player drew
from the pile (R13.2) is known only to that player; :func:`event_data` writes it for a
viewer, as "a card" for everyone else.
"""

from __future__ import annotations

from typing import Literal, NamedTuple

from typing_extensions import TypedDict  # see breakdown.py

from .board import Board
from .moves import Move

__all__ = [
    "Drew",
    "Revealed",
    "IntermediateScoring",
    "NewDrawPile",
    "LastRound",
    "GameEnded",
    "Event",
    "Decision",
    "EventData",
    "event_data",
    "event_of",
]


class Drew(NamedTuple):
    """``seat`` took the top card of the draw pile (R5.1, R6.1); ``kind`` is private to them.

    ``kind`` is None where it is not known (a history rebuilt from another player's view).
    """

    seat: int
    kind: str | None


class Revealed(NamedTuple):
    """Cards turned face up from the draw pile into the display (R2.2, R5.2, R6.2)."""

    kinds: tuple[str, ...]


class IntermediateScoring(NamedTuple):
    """R7.2: the cloister scoring when the draw pile ran out the first time.

    ``by_country``: points per country (board order) per seat; ``points``: per seat.
    """

    by_country: tuple[tuple[int, ...], ...]
    points: tuple[int, ...]


class NewDrawPile(NamedTuple):
    """R7.3: the discard pile became the new draw pile (its order stays hidden)."""

    size: int


class LastRound(NamedTuple):
    """R8.1: the draw pile ran out the second time; ``last_seat`` plays the last turn."""

    last_seat: int


class GameEnded(NamedTuple):
    """R8.4, R12: the final scoring and the result.

    ``reason``: "pile" (R8.1, the round after the second exhaustion is complete) or
    "blocked" (R8.3, nobody can place any piece). ``cloisters``, ``alliances``,
    ``chains``: final points per seat per category; ``scores``: the totals, intermediate
    scoring included; ``pieces_left``: the tie-break (R12.1); ``winners``: the seats that
    share the win.
    """

    reason: Literal["pile", "blocked"]
    cloisters: tuple[int, ...]
    alliances: tuple[int, ...]
    chains: tuple[int, ...]
    scores: tuple[int, ...]
    pieces_left: tuple[int, ...]
    winners: tuple[int, ...]


Event = Drew | Revealed | IntermediateScoring | NewDrawPile | LastRound | GameEnded


class Decision(NamedTuple):
    """One entry of a game's history: who decided, what, and what it caused."""

    seat: int
    move: Move
    events: tuple[Event, ...]


class EventData(TypedDict, total=False):
    """An event as JSON (views, server messages). ``type`` names it; the rest is its fields.

    ``kind`` of a ``drew`` event is null for everyone but the drawing seat.
    """

    type: str
    seat: int
    kind: str | None
    kinds: list[str]
    by_country: dict[str, list[int]]
    points: list[int]
    size: int
    last_seat: int
    reason: str
    cloisters: list[int]
    alliances: list[int]
    chains: list[int]
    scores: list[int]
    pieces_left: list[int]
    winners: list[int]


def event_data(board: Board, event: Event, viewer: int | None) -> EventData:
    """``event`` as JSON for ``viewer`` (a seat, or None for a spectator), hiding what R13 hides."""
    if isinstance(event, Drew):
        return {"type": "drew", "seat": event.seat, "kind": event.kind if viewer == event.seat else None}
    if isinstance(event, Revealed):
        return {"type": "revealed", "kinds": list(event.kinds)}
    if isinstance(event, IntermediateScoring):
        return {
            "type": "intermediate_scoring",
            "by_country": {c.id: list(row) for c, row in zip(board.countries, event.by_country)},
            "points": list(event.points),
        }
    if isinstance(event, NewDrawPile):
        return {"type": "new_draw_pile", "size": event.size}
    if isinstance(event, LastRound):
        return {"type": "last_round", "last_seat": event.last_seat}
    return {
        "type": "game_ended",
        "reason": event.reason,
        "cloisters": list(event.cloisters),
        "alliances": list(event.alliances),
        "chains": list(event.chains),
        "scores": list(event.scores),
        "pieces_left": list(event.pieces_left),
        "winners": list(event.winners),
    }


def event_of(data: EventData) -> Event:
    """The event that :func:`event_data` wrote (a hidden card stays None). KeyError if malformed."""
    kind = data["type"]
    if kind == "drew":
        return Drew(data["seat"], data["kind"])
    if kind == "revealed":
        return Revealed(tuple(data["kinds"]))
    if kind == "intermediate_scoring":
        return IntermediateScoring(tuple(tuple(r) for r in data["by_country"].values()), tuple(data["points"]))
    if kind == "new_draw_pile":
        return NewDrawPile(data["size"])
    if kind == "last_round":
        return LastRound(data["last_seat"])
    if kind == "game_ended":
        reason = data["reason"]
        if reason not in ("pile", "blocked"):
            raise KeyError("reason")
        return GameEnded(
            "pile" if reason == "pile" else "blocked",
            tuple(data["cloisters"]),
            tuple(data["alliances"]),
            tuple(data["chains"]),
            tuple(data["scores"]),
            tuple(data["pieces_left"]),
            tuple(data["winners"]),
        )
    raise KeyError(kind)
