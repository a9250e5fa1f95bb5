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
from typing import Any

from kardinal.rules.board import Board, get_board
from kardinal.rules.moves import parse_move
from kardinal.rules.state import State

__all__ = ["determinize", "unseen_cards"]


def _row(board: Board, counts: dict[str, int]) -> list[int]:
    row = [0] * len(board.cards)
    for kid, c in counts.items():
        row[board.kind_index[kid]] = c
    return row


def unseen_cards(v: dict[str, Any], board: Board | None = None) -> list[int]:
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


def determinize(v: dict[str, Any], rng: random.Random, board: Board | None = None, history: bool = False) -> State:
    """A state with the same view for ``v["seat"]``, hidden cards drawn uniformly."""
    b = board or get_board(v["board"])
    n = v["players"]
    seat = v["seat"]
    K = len(b.cards)
    pool = [k for k, c in enumerate(unseen_cards(v, b)) for _ in range(c)]
    rng.shuffle(pool)
    s = State.__new__(State)
    s.board = b
    s.n = n
    s.known = [_row(b, k) for k in v["known"]]
    s.hands = []
    for p in range(n):
        if p == seat:
            s.hands.append(_row(b, v["hand"]))
            continue
        hand = s.known[p][:]
        for _ in range(v["hand_sizes"][p] - sum(hand)):
            hand[pool.pop()] += 1
        s.hands.append(hand)
    if len(pool) != v["deck_size"]:
        raise ValueError("inconsistent view: the unseen cards do not fill the hands and the draw pile")
    s.deck = s.initial_deck = tuple(pool)
    s.pos = 0
    s.display = sorted(b.kind_index[k] for k in v["display"])
    s.discard = _row(b, v["discard"])
    s.removed = _row(b, v["removed"])
    s.owner = [-1] * len(b.sites)
    for sid, p in v["sites"].items():
        s.owner[b.site_index[sid]] = p
    s.cloisters = [list(v["cloisters"][c.id]) for c in b.countries]
    s.advisors = [list(v["advisors"][c.id]) for c in b.countries]
    s.adv_total = [sum(r) for r in s.advisors]
    s.max_cl = [max(r) for r in s.cloisters]
    s.free_sites = [tuple(b.sites[i].id for i in c.sites if s.owner[i] < 0) for c in b.countries]
    s.supply_cl = [x["cloisters"] for x in v["supply"]]
    s.supply_adv = [x["advisors"] for x in v["supply"]]
    s.scores = list(v["scores"])
    s.current = v["current"]
    s.phase = v["phase"]
    s.exhaustions = v["exhaustions"]
    s.final_round = v["final_round"]
    s.turns = list(v["turns"])
    s.seed = rng.getrandbits(63)
    s.reshuffle = None
    s.given_reshuffle = None
    inter = v["breakdown"].get("intermediate_by_country")
    s.intermediate = [list(inter[c.id]) for c in b.countries] if inter else None
    s.final = None
    # the public history, so that the view is the same with history on
    s.history = [(p, parse_move(m, b)) for p, m in v.get("history") or []] if history else None
    s.result_winners = None
    assert len(s.hands) == n and K == len(s.discard)
    return s
