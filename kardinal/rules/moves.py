"""Moves as small hashable values with a notation that round-trips.

>>> m = parse_move("play LI,FR,FR italien verona+advisor")
>>> m
Place(country='italien', cards=('frankreich', 'frankreich', 'lothringen-italien'), cloisters=('verona',), advisors=1)
>>> str(m)
'play FR,FR,LI italien verona+advisor'
>>> parse_move(str(m)) == m
True
>>> str(parse_move("exchange FR for deck")), str(parse_move("draw BB")), str(parse_move("pass"))
('exchange FR for deck', 'draw BB', 'pass')

A placement is canonical by construction: cards sorted, cloister sites sorted, then the
number of advisors. Two placements with the same cards and the same pieces on the same
sites are the same move (R4.9), whatever order they were written in; the order
cloisters-then-advisors is always a legal placement order when any order is.
"""

from __future__ import annotations

from typing import Final, NamedTuple

from .board import Board, standard_board

__all__ = ["Place", "Exchange", "Draw", "Pass", "Move", "MoveParseError", "parse_move", "DECK"]

DECK: Final = "deck"


class MoveParseError(ValueError):
    """Text that is not a move in Kardinal notation."""

    code = "parse"


class Place(NamedTuple):
    """Play 1-3 cards and place 1-2 pieces in one country (R4)."""

    country: str
    cards: tuple[str, ...]
    cloisters: tuple[str, ...]
    advisors: int

    @property
    def pieces(self) -> list[dict[str, str]]:
        """The pieces in a legal placement order (record form)."""
        out = [{"type": "cloister", "site": s} for s in self.cloisters]
        out += [{"type": "advisor"} for _ in range(self.advisors)]
        return out

    @property
    def num_pieces(self) -> int:
        return len(self.cloisters) + self.advisors

    def __str__(self) -> str:
        b = standard_board() if _NOTATION_BOARD is None else _NOTATION_BOARD
        cards = ",".join(_short(b, c) for c in self.cards)
        pieces = "+".join(list(self.cloisters) + ["advisor"] * self.advisors)
        return f"play {cards} {self.country} {pieces}"


class Exchange(NamedTuple):
    """Discard one card and take a display card or the top of the draw pile (R6)."""

    discard: str
    take: str  # DECK or a card kind on display

    def __str__(self) -> str:
        b = standard_board() if _NOTATION_BOARD is None else _NOTATION_BOARD
        take = DECK if self.take == DECK else _short(b, self.take)
        return f"exchange {_short(b, self.discard)} for {take}"


class Draw(NamedTuple):
    """Draw one card while refilling the hand (R5.1): a display card or the top of the pile."""

    source: str  # DECK or a card kind on display

    def __str__(self) -> str:
        b = standard_board() if _NOTATION_BOARD is None else _NOTATION_BOARD
        return "draw " + (DECK if self.source == DECK else _short(b, self.source))


class Pass(NamedTuple):
    """Neither a placement nor an exchange is possible (R3.1)."""

    def __str__(self) -> str:
        return "pass"


Move = Place | Exchange | Draw | Pass

# Notation prints card kinds by their short code; moves carry ids, so printing needs a
# board. Boards with other kinds can be set with set_notation_board.
_NOTATION_BOARD: Board | None = None


def set_notation_board(board: Board | None) -> None:
    global _NOTATION_BOARD
    _NOTATION_BOARD = board


def _short(board: Board, kind_id: str) -> str:
    i = board.kind_index.get(kind_id)
    return board.cards[i].short if i is not None else kind_id


def make_place(country: str, cards: list[str] | tuple[str, ...], cloisters: list[str] | tuple[str, ...], advisors: int) -> Place:
    """A placement in canonical form (cards and sites sorted)."""
    return Place(country, tuple(sorted(cards)), tuple(sorted(cloisters)), advisors)


def _kind(board: Board, tok: str) -> str:
    try:
        return board.cards[board.kind(tok)].id
    except KeyError:
        raise MoveParseError(f"unknown card {tok!r} (cards: {', '.join(k.short for k in board.cards)})") from None


def parse_move(text: str, board: Board | None = None) -> Move:
    """Parse Kardinal notation; raises MoveParseError saying what is wrong."""
    b = board or _NOTATION_BOARD or standard_board()
    toks = text.strip().split()
    if not toks:
        raise MoveParseError("empty move")
    verb = toks[0].lower()
    if verb == "pass":
        if len(toks) != 1:
            raise MoveParseError("'pass' takes nothing after it")
        return Pass()
    if verb == "draw":
        if len(toks) != 2:
            raise MoveParseError("expected 'draw deck' or 'draw <card>'")
        src = toks[1]
        return Draw(DECK if src.lower() in (DECK, "pile") else _kind(b, src))
    if verb == "exchange":
        if len(toks) != 4 or toks[2].lower() != "for":
            raise MoveParseError("expected 'exchange <card> for deck' or 'exchange <card> for <card>'")
        take = toks[3]
        return Exchange(_kind(b, toks[1]), DECK if take.lower() in (DECK, "pile") else _kind(b, take))
    if verb == "play":
        if len(toks) != 4:
            raise MoveParseError("expected 'play <cards> <country> <pieces>', e.g. 'play FR,FR frankreich paris+advisor'")
        cards = [_kind(b, c) for c in toks[1].split(",") if c]
        country = toks[2].lower()
        if country not in b.country_index:
            raise MoveParseError(f"unknown country {toks[2]!r}")
        cloisters: list[str] = []
        advisors = 0
        for p in toks[3].split("+"):
            pl = p.lower()
            if pl in ("advisor", "a"):
                advisors += 1
            elif pl in b.site_index:
                cloisters.append(pl)
            else:
                raise MoveParseError(f"unknown piece {p!r}: a cloister site id or 'advisor'")
        return make_place(country, cards, cloisters, advisors)
    raise MoveParseError(f"unknown move {toks[0]!r}: expected play, exchange, draw or pass")
