"""Scoring (R9 cloisters, R10 alliances, R11 chains, R12 the winner), as breakdowns.

These functions take plain counts so that they serve the game, the position scorer
(``kardinal score``) and the bots alike.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field

from .board import Board
from .chains import chain_score

__all__ = [
    "country_cloister_scores",
    "cloister_scoring",
    "alliance_scoring",
    "chain_scoring",
    "FinalScoring",
    "final_scoring",
    "winners",
    "win_shares",
    "majority",
    "majority_holders",
]


def country_cloister_scores(counts: Sequence[int]) -> list[int]:
    """R9.2-R9.3 for one country: counts of cloisters per seat -> points per seat.

    >>> country_cloister_scores([4, 2, 1])   # R9.4 Franken: green, red, blue
    [7, 4, 2]
    >>> country_cloister_scores([2, 2, 1])   # R9.4 Lothringen: red, purple, blue
    [5, 5, 2]
    """
    distinct = sorted({c for c in counts if c > 0}, reverse=True)
    if not distinct:
        return [0] * len(counts)
    # place 1 scores the total; place k scores the count held by a player of place k-1
    value = {distinct[0]: sum(counts)}
    for k in range(1, len(distinct)):
        value[distinct[k]] = distinct[k - 1]
    return [value[c] if c > 0 else 0 for c in counts]


def cloister_scoring(cloisters: Sequence[Sequence[int]]) -> list[list[int]]:
    """R9 for every country: [country][seat] counts -> [country][seat] points."""
    return [country_cloister_scores(row) for row in cloisters]


def majority(advisors: Sequence[int]) -> list[bool]:
    """R10.2: who holds the advisor majority in one country (ties all hold it)."""
    top = max(advisors, default=0)
    return [top > 0 and a == top for a in advisors]


def alliance_scoring(board: Board, advisors: Sequence[Sequence[int]]) -> list[tuple[int, list[int]]]:
    """R10.3: per alliance in board order, (number, points per seat)."""
    n = len(advisors[0]) if advisors else 0
    maj = [majority(row) for row in advisors]
    out = []
    for al in board.alliances:
        a, b = al.countries
        value = sum(advisors[a]) + sum(advisors[b])
        out.append((al.number, [value if maj[a][p] and maj[b][p] else 0 for p in range(n)]))
    return out


def chain_scoring(board: Board, owner: Sequence[int], n: int) -> list[int]:
    """R11 per seat, from the owner (seat or -1) of each site."""
    per: list[list[int]] = [[] for _ in range(n)]
    for site, seat in enumerate(owner):
        if seat >= 0:
            per[seat].append(site)
    return [chain_score(sites, board.neighbours) for sites in per]


@dataclass
class FinalScoring:
    """The final scoring (R8.4) as a breakdown; totals do not include earlier points."""

    by_country: list[list[int]]  # [country][seat], R9
    by_alliance: list[tuple[int, list[int]]]  # (number, [seat]), R10
    chains: list[int]  # [seat], R11
    cloisters: list[int] = field(init=False)
    alliances: list[int] = field(init=False)
    total: list[int] = field(init=False)

    def __post_init__(self) -> None:
        n = len(self.chains)
        self.cloisters = [sum(row[p] for row in self.by_country) for p in range(n)]
        self.alliances = [sum(pts[p] for _, pts in self.by_alliance) for p in range(n)]
        self.total = [self.cloisters[p] + self.alliances[p] + self.chains[p] for p in range(n)]


def final_scoring(
    board: Board, cloisters: Sequence[Sequence[int]], advisors: Sequence[Sequence[int]], owner: Sequence[int]
) -> FinalScoring:
    n = len(cloisters[0])
    return FinalScoring(cloister_scoring(cloisters), alliance_scoring(board, advisors), chain_scoring(board, owner, n))


def winners(scores: Sequence[int], pieces_left: Sequence[int]) -> list[int]:
    """R12.1: most points; ties broken by most pieces left in supply; still tied share."""
    best = max(zip(scores, pieces_left))
    return [p for p in range(len(scores)) if (scores[p], pieces_left[p]) == best]


def win_shares(winners: Sequence[int], players: int) -> list[float]:
    """Each seat's share of the win (R12.1: k tied winners get 1/k each; everyone else 0).

    >>> win_shares([1, 3], 4)
    [0.0, 0.5, 0.0, 0.5]
    """
    return [1.0 / len(winners) if p in winners else 0.0 for p in range(players)]


def majority_holders(advisors: Sequence[int]) -> list[int]:
    """R10.2 as seats: those holding the advisor majority of a country."""
    return [p for p, held in enumerate(majority(advisors)) if held]
