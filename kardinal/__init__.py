"""Kardinal: the rules of Kardinal & König (Michael Schacht, Goldsieber 2000), exactly."""

from kardinal.rules.board import Board, BoardError, get_board, load_board, standard_board
from kardinal.rules.moves import DECK, Draw, Exchange, Move, MoveParseError, Pass, Place, make_place, parse_move
from kardinal.rules.state import DRAW, MAIN, OVER, RuleError, State, apply, legal_moves, new_game

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
