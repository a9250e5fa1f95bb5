"""A fixed, documented action space for learning interfaces (OpenSpiel, PettingZoo).

Every decision of the game is one integer. The table is built once from the board, in
this order (ids of the board file, in file order):

1. ``Place`` moves. For each country, in board order:
   for each card set that may place pieces there (R4.2-R4.5), in the order
   "one piece" sets then "two piece" sets, each group sorted as kind-id tuples, and for
   each piece set that fits the number of pieces, in the order
   one piece: each cloister site (board order), then one advisor;
   two pieces: each pair of cloister sites (board order), each site with one advisor,
   then two advisors.
   Card sets for one piece: one card of a kind naming the country, or a joker pair of
   any kind. Card sets for two pieces: two cards naming the country, or a joker pair
   of any kind plus one card naming the country.
2. ``Exchange(discard, take)``: for each kind to discard, each kind to take from the
   display, then ``deck``.
3. ``Draw(source)``: each kind from the display, then ``deck``.
4. ``Pass``.

Whether an entry is legal depends on the position (hand, free sites, supplies,
advisor limits); ``legal_actions`` of the adapters lists the legal ones. The table
follows the board it is built from: on the standard board it has 1,507 entries (1,470
placements, 30 exchanges, 6 draws, 1 pass), on ``reconstruction-1`` (one Lothringen
site fewer) 1,471 (1,434 placements) (see ``ActionTable.describe``); the numbers are
checked by the tests.
"""

from __future__ import annotations

from functools import cache
from itertools import combinations

from kardinal.rules.board import Board
from kardinal.rules.moves import DECK, Draw, Exchange, Move, Pass, Place

__all__ = ["ActionTable", "action_table"]


class ActionTable:
    """The bijection between the decisions of the game and ``range(len(table))``."""

    def __init__(self, board: Board) -> None:
        self.board = board
        kinds = [k.id for k in board.cards]
        moves: list[Move] = []
        place_counts: list[int] = []
        for c in board.countries:
            start = len(moves)
            naming = [k.id for k in board.cards if c.index in k.countries]
            ones: set[tuple[str, ...]] = {(k,) for k in naming} | {(j, j) for j in kinds}
            twos: set[tuple[str, ...]] = {tuple(sorted((a, b))) for a in naming for b in naming}
            twos |= {tuple(sorted((j, j, k))) for j in kinds for k in naming}
            sites = [board.sites[i].id for i in c.sites]
            one_pieces: list[tuple[tuple[str, ...], int]] = [((s,), 0) for s in sites] + [((), 1)]
            two_pieces: list[tuple[tuple[str, ...], int]] = [(tuple(sorted(p)), 0) for p in combinations(sites, 2)]
            two_pieces += [((s,), 1) for s in sites] + [((), 2)]
            for cards in sorted(ones):
                moves += [Place(c.id, cards, cl, a) for cl, a in one_pieces]
            for cards in sorted(twos):
                moves += [Place(c.id, cards, cl, a) for cl, a in two_pieces]
            place_counts.append(len(moves) - start)
        self.num_place = len(moves)
        self.place_counts = place_counts
        self.first_exchange = len(moves)
        moves += [Exchange(d, t) for d in kinds for t in kinds + [DECK]]
        self.first_draw = len(moves)
        moves += [Draw(t) for t in kinds + [DECK]]
        self.pass_action = len(moves)
        moves.append(Pass())
        self.moves: tuple[Move, ...] = tuple(moves)
        self.index: dict[Move, int] = {m: i for i, m in enumerate(moves)}
        if len(self.index) != len(moves):  # pragma: no cover - a board with duplicate ids
            raise ValueError("the action table has duplicate entries")

    def __len__(self) -> int:
        return len(self.moves)

    def encode(self, move: Move) -> int:
        """The action number of a move (KeyError if the move is not in the table)."""
        i = self.index.get(move)
        if i is None and isinstance(move, Place):
            i = self.index.get(Place(move.country, tuple(sorted(move.cards)), tuple(sorted(move.cloisters)), move.advisors))
        if i is None:
            raise KeyError(f"not a move of this board: {move}")
        return i

    def encode_all(self, moves: list[Move]) -> list[int]:
        """The action numbers of moves, in their order (KeyError if one is not in the table)."""
        index = self.index
        try:
            return [index[m] for m in moves]  # legal_moves gives canonical moves: the table's
        except KeyError:
            return [self.encode(m) for m in moves]

    def decode(self, action: int) -> Move:
        """The move of an action number (ValueError if out of range)."""
        if not 0 <= action < len(self.moves):
            raise ValueError(f"action {action} is not in 0..{len(self.moves) - 1}")
        return self.moves[action]

    def describe(self) -> str:
        b = self.board
        parts = ", ".join(f"{c.id} {n}" for c, n in zip(b.countries, self.place_counts))
        return (
            f"{len(self)} actions: {self.num_place} placements ({parts}), "
            f"{self.first_draw - self.first_exchange} exchanges, {self.pass_action - self.first_draw} draws, 1 pass"
        )


@cache
def action_table(board: Board) -> ActionTable:
    """The table of a board, built once."""
    return ActionTable(board)
