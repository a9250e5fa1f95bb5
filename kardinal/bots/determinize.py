"""Determinization: a full state consistent with what one player knows.

Bots see only ``view(state, seat)``. To search, or just to list their legal moves, they
build a state from the view in which the hidden cards (other hands, the draw pile)
are filled in at random from the cards nobody can locate: all cards of the game, less
the removed ones, the discard pile, the display, their own hand and the cards known to
be in other hands (taken from the display). The result has the same view for that seat
as the real state; its future chance (the reshuffle) is drawn from ``rng``.
"""

from __future__ import annotations

import random
from collections.abc import Callable

from kardinal.rules.board import Board, get_board
from kardinal.rules.events import Decision, event_of
from kardinal.rules.record import move_of
from kardinal.rules.state import State
from kardinal.rules.view import ViewData

__all__ = ["determinize", "Determinizer", "unseen_cards", "public_history", "TRIES"]

TRIES = 64  # deals a Determinizer with a belief tries before it keeps one it did not accept


def _row(board: Board, counts: dict[str, int]) -> list[int]:
    row = [0] * len(board.cards)
    for kid, c in counts.items():
        row[board.kind_index[kid]] = c
    return row


def unseen_cards(v: ViewData, board: Board | None = None) -> list[int]:
    """Per kind, the cards whose place the viewer cannot know (other hands, draw pile)."""
    b = board or get_board(v["board"])
    removed = _row(b, v["removed"])
    discard = _row(b, v["discard"])
    left = [k.count - removed[i] - discard[i] for i, k in enumerate(b.cards)]
    for kid in v["display"]:
        left[b.kind_index[kid]] -= 1
    seat = v["seat"]
    if seat is not None:
        for kid, c in v["hand"].items():
            left[b.kind_index[kid]] -= c
    for p, known in enumerate(v["known"]):
        if p != seat:
            for kid, c in known.items():
                left[b.kind_index[kid]] -= c
    if min(left) < 0:
        raise ValueError("inconsistent view: more cards located than exist")
    return left


def public_history(v: ViewData, board: Board) -> list[Decision]:
    """The decisions of a view's history (a card another player drew stays unknown)."""
    out = []
    for entry in v.get("history") or []:
        seat, move = move_of(entry["action"])
        out.append(Decision(seat, move, tuple(event_of(e) for e in entry["events"])))
    return out


def determinize(v: ViewData, rng: random.Random, board: Board | None = None, history: bool = False) -> State:
    """A state with the same view for ``v["seat"]``, hidden cards drawn uniformly."""
    b = board or get_board(v["board"])
    n = v["players"]
    seat = v["seat"]
    pool = [k for k, c in enumerate(unseen_cards(v, b)) for _ in range(c)]
    rng.shuffle(pool)
    known = [_row(b, k) for k in v["known"]]
    hands = []
    for p in range(n):
        if p == seat:
            hands.append(_row(b, v["hand"]))
            continue
        hand = known[p][:]
        for _ in range(v["hand_sizes"][p] - sum(hand)):
            hand[pool.pop()] += 1
        hands.append(hand)
    if len(pool) != v["deck_size"]:
        raise ValueError("inconsistent view: the unseen cards do not fill the hands and the draw pile")
    owner = [-1] * len(b.sites)
    for sid, p in v["sites"].items():
        owner[b.site_index[sid]] = p
    inter = v["breakdown"].get("intermediate_by_country")
    return State(
        b,
        n,
        hands=hands,
        known=known,
        display=[b.kind_index[k] for k in v["display"]],
        deck=pool,
        discard=_row(b, v["discard"]),
        removed=_row(b, v["removed"]),
        owner=owner,
        advisors=[v["advisors"][c.id] for c in b.countries],
        supply=[(x["cloisters"], x["advisors"]) for x in v["supply"]],
        scores=v["scores"],
        current=v["current"],
        phase=v["phase"],
        exhaustions=v["exhaustions"],
        final_round=v["final_round"],
        turns=v["turns"],
        seed=rng.getrandbits(63),
        intermediate_scoring=[inter[c.id] for c in b.countries] if inter else None,
        # the public history, so that the view is the same with history on
        history=public_history(v, b) if history else False,
        variants=v.get("variants", ()),
    )


class Determinizer:
    """:func:`determinize` for many samples of one view: the public position is built once.

    ``sample(rng)`` deals exactly what ``determinize(v, rng, board)`` deals with the same
    generator (the same random draws in the same order), onto a copy of that position.
    Search bots sample thousands of times per decision; this keeps the set-up out of
    the loop.
    """

    def __init__(
        self, v: ViewData, board: Board | None = None, accept: Callable[[list[list[int]], random.Random], bool] | None = None
    ) -> None:
        b = board or get_board(v["board"])
        self.seat = v["seat"]
        # a belief over the other hands (:mod:`kardinal.bots.infer`): a deal of the hands is
        # kept when accept(hands, rng) says so (rejection sampling), else dealt again
        self.accept = accept
        self.pool = [k for k, c in enumerate(unseen_cards(v, b)) for _ in range(c)]
        self.known = [_row(b, k) for k in v["known"]]
        self.own = _row(b, v["hand"])
        self.deal = [v["hand_sizes"][p] - sum(self.known[p]) for p in range(v["players"])]
        if len(self.pool) - sum(d for p, d in enumerate(self.deal) if p != self.seat) != v["deck_size"]:
            raise ValueError("inconsistent view: the unseen cards do not fill the hands and the draw pile")
        self.template = determinize(v, random.Random(0), b)

    def sample(self, rng: random.Random) -> State:
        """A state with the same view for the seat, hidden cards drawn uniformly (no history);
        with ``accept``, drawn from that belief (at most :data:`TRIES` deals, the last one
        kept)."""
        tries = 0
        while True:
            pool = self.pool[:]
            rng.shuffle(pool)
            hands = self._deal(pool)
            tries += 1
            if self.accept is None or tries >= TRIES or self.accept(hands, rng):
                break
        s = self.template.copy(history=False)
        s.set_pile(hands, pool, rng.getrandbits(63))
        return s

    def _deal(self, pool: list[int]) -> list[list[int]]:
        """The hands dealt from the end of a shuffled pool (which keeps the rest: the draw pile)."""
        hands = []
        for p, known in enumerate(self.known):
            if p == self.seat:
                hands.append(self.own[:])
                continue
            hand = known[:]
            for _ in range(self.deal[p]):
                hand[pool.pop()] += 1
            hands.append(hand)
        return hands
