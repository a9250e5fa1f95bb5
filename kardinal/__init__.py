"""Kardinal: the rules of Kardinal & König (Michael Schacht, Goldsieber 2000), exactly."""

from kardinal import native

native.prefer_fresh()  # before a compiled module is imported: compiled only if fresh (native.py)

from kardinal.rules.board import Board, BoardError, get_board, load_board, standard_board  # noqa: E402
from kardinal.rules.moves import DECK, Draw, Exchange, Move, MoveParseError, Pass, Place, make_place, parse_move  # noqa: E402
from kardinal.rules.state import DRAW, MAIN, OVER, RuleError, State, apply, legal_moves, new_game  # noqa: E402

__version__ = "0.1.0"

__all__ = [
    "Board",
    "BoardError",
    "get_board",
    "load_board",
    "standard_board",
    "DECK",
    "Draw",
    "Exchange",
    "Move",
    "MoveParseError",
    "Pass",
    "Place",
    "make_place",
    "parse_move",
    "DRAW",
    "MAIN",
    "OVER",
    "RuleError",
    "State",
    "apply",
    "legal_moves",
    "new_game",
]
