"""Observations of one player as a flat float tensor and as text (R13: public + own hand).

Both adapters (OpenSpiel, PettingZoo) use this. The tensor is the concatenation of the
fields below, in this order; ``fields(board, n)`` gives their names and shapes. Counts
are raw numbers (not normalised); one-hot fields are 0/1.

===============  ===========  ====================================================
field            shape        meaning
===============  ===========  ====================================================
seat             n            one-hot: whose observation this is
current          n            one-hot: the seat to act (all 0 when the game is over)
phase            4            one-hot: dealing (chance), main, draw, over
hand             K            own hand, cards per kind (R13.2: only own)
hand_sizes       n            cards in each hand (public)
known            n x K        cards known to be in each hand (taken from the display)
display          K            face-up cards per kind
deck_size        1            cards in the draw pile
discard          K            discard pile per kind
removed          K            cards removed at setup per kind (R2.1)
sites            S x n        one-hot owner of each cloister site (all 0: free)
advisors         C x n        advisors per country and seat
advisor_limit    C            most cloisters of one player per country (R4.8)
supply           n x 2        cloisters and advisors left per seat
scores           n            points so far
turns            n            turns taken per seat
exhaustions      3            one-hot: times the draw pile has been used up (0, 1, 2)
final_round      1            1 while the last round is completed (R8.1)
===============  ===========  ====================================================

K card kinds (5), C countries (9), S cloister sites (50 on the standard board), n players.
A seat of ``None`` (a public observer) sees the same with ``seat`` and ``hand`` all 0.
"""

from __future__ import annotations

import numpy as np

from kardinal.rules.board import Board
from kardinal.rules.state import DRAW, MAIN, OVER, State

__all__ = ["fields", "tensor_size", "write_tensor", "observation_text"]

PHASES = ("deal", MAIN, DRAW, OVER)


def fields(board: Board, n: int) -> list[tuple[str, tuple[int, ...]]]:
    K, C, S = len(board.cards), len(board.countries), len(board.sites)
    return [
        ("seat", (n,)),
        ("current", (n,)),
        ("phase", (4,)),
        ("hand", (K,)),
        ("hand_sizes", (n,)),
        ("known", (n, K)),
        ("display", (K,)),
        ("deck_size", (1,)),
        ("discard", (K,)),
        ("removed", (K,)),
        ("sites", (S, n)),
        ("advisors", (C, n)),
        ("advisor_limit", (C,)),
        ("supply", (n, 2)),
        ("scores", (n,)),
        ("turns", (n,)),
        ("exhaustions", (3,)),
        ("final_round", (1,)),
    ]


def tensor_size(board: Board, n: int) -> int:
    return sum(int(np.prod(shape)) for _, shape in fields(board, n))


def write_tensor(out: np.ndarray, s: State, seat: int | None, dealing: bool = False, own_hand: bool = True) -> None:
    """Fill ``out`` (flat, float32, ``tensor_size`` long) with ``seat``'s observation of ``s``.

    Written in three numpy operations (the fields before ``sites`` as one list, the
    owned sites by index, the fields after them as one list): a numpy write per field
    cost more than the rest of a step of the adapters.
    """
    n = s.n
    K = len(s.discard)
    head: list[float] = [0.0] * (2 * n + 4)  # seat, current, phase
    if seat is not None:
        head[seat] = 1.0
    if not dealing and s.phase != OVER:
        head[n + s.current] = 1.0
    head[2 * n + (0 if dealing else PHASES.index(s.phase))] = 1.0
    head += s.hands[seat] if seat is not None and own_hand else [0] * K
    head += [sum(h) for h in s.hands]
    for row in s.known:
        head += row
    display = [0] * K
    for k in s.display:
        display[k] += 1
    head += display
    head.append(s.deck_size)
    head += s.discard
    head += s.removed
    i = len(head)
    out[:i] = head
    sites = len(s.owner) * n
    out[i : i + sites] = 0.0
    owned = [i + site * n + p for site, p in enumerate(s.owner) if p >= 0]
    if owned:
        out[owned] = 1.0
    i += sites
    tail: list[float] = []
    for row in s.advisors:
        tail += row
    tail += s.most_cloisters
    for p in range(n):
        tail.append(s.supply_cl[p])
        tail.append(s.supply_adv[p])
    tail += s.scores
    tail += s.turns
    exhaustions = [0, 0, 0]
    exhaustions[s.exhaustions] = 1
    tail += exhaustions
    tail.append(1 if s.final_round else 0)
    assert i + len(tail) == len(out), (i + len(tail), len(out))
    out[i:] = tail


def _cards(board: Board, row: list[int]) -> str:
    return " ".join(f"{board.cards[k].short}x{c}" for k, c in enumerate(row) if c) or "-"


def observation_text(s: State, seat: int | None, dealing: bool = False, own_hand: bool = True) -> str:
    """The same information as the tensor, as readable lines (deterministic)."""
    b = s.board
    n = s.n
    phase = "deal" if dealing else s.phase
    lines = [
        f"seat {seat if seat is not None else '-'}; to act {s.current if not dealing and s.phase != OVER else '-'}; phase {phase}",
        f"hand {_cards(b, s.hands[seat]) if seat is not None and own_hand else '?'}",
        "hand sizes " + " ".join(str(sum(h)) for h in s.hands),
        "known " + " | ".join(_cards(b, k) for k in s.known),
        f"display {' '.join(b.cards[k].short for k in s.display) or '-'}; draw pile {s.deck_size}",
        f"discard {_cards(b, s.discard)}; removed {_cards(b, s.removed)}",
        "cloisters " + " ".join(f"{b.sites[i].id}:{p}" for i, p in enumerate(s.owner) if p >= 0),
        "advisors " + " ".join(f"{b.countries[c].id}:{','.join(map(str, row))}" for c, row in enumerate(s.advisors) if any(row)),
        "supply " + " ".join(f"{s.supply_cl[p]}/{s.supply_adv[p]}" for p in range(n)),
        "scores " + " ".join(map(str, s.scores)) + "; turns " + " ".join(map(str, s.turns)),
        f"exhaustions {s.exhaustions}; final round {'yes' if s.final_round else 'no'}",
    ]
    return "\n".join(lines)
