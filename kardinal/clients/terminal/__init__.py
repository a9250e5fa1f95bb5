"""The terminal client: ``kardinal play``.

People (hot-seat, one keyboard) and bots at one terminal. Rich draws the table from
each person's view (R13); moves are entered through numbered menus that offer only
legal choices, or in move notation. ``--record FILE`` saves after every decision and
``--resume FILE`` continues. A save file of an unfinished game holds the order of the
draw pile and the seed of the reshuffle: it is private to whoever saved it and must not
be handed to the other players (a finished game's record holds no seed).
"""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path

from rich.console import Console

from kardinal.bots import BOTS
from kardinal.rules.board import Board
from kardinal.rules.record import IllegalAction, RecordError, load_record, replay
from kardinal.rules.state import new_game

from .game import Quit, Session
from .seats import Seat, SeatError, SeatSpec, build_seats, parse_seats_option, seats_from_argv, seats_of_save

__all__ = ["play", "Session", "Quit", "Seat", "SeatError"]


class PlayError(ValueError):
    """Options that cannot start a game; the message says why."""


def play(
    board: Board,
    players: int | None = None,
    persons: Sequence[str] = (),
    bots: Sequence[str] = (),
    seats: str | None = None,
    seed: int | None = None,
    record: Path | None = None,
    resume: Path | None = None,
    argv: Sequence[str] | None = None,
    board_given: bool = False,
    console: Console | None = None,
    variants: Sequence[str] = (),
) -> int:
    """Set up (or resume) a game and play it at this terminal; the exit status."""
    con = console or Console(highlight=False, markup=False, emoji=False)
    available = sorted(BOTS)
    try:
        if resume is not None:
            if persons or bots or seats or players is not None or seed is not None or variants:
                raise PlayError(
                    "--resume takes the players, the seed and the rule variants from the save file; give no --players/--seat/--bot/--seats/--seed/--variant"
                )
            try:
                data = load_record(resume)
                state = replay(data, board if board_given else None)
            except (RecordError, IllegalAction) as e:
                raise PlayError(f"cannot resume from {resume}: {e}") from None
            if state.is_over:
                raise PlayError(f"the game in {resume} is already over (see: kardinal replay {resume})")
            names = list(data["players"])
            seat_list = seats_of_save(data, names, available)
            saved_seed = data.get("seed")
            state.reseed(saved_seed if isinstance(saved_seed, int) and not isinstance(saved_seed, bool) else None)
            record = record or resume
        else:
            if seats is not None:
                if persons or bots:
                    raise PlayError("give the seats either with --seats or with --seat/--bot, not both")
                specs = parse_seats_option(seats)
            else:
                specs = seats_from_argv(argv if argv is not None else sys.argv[1:], list(persons), list(bots))
            seat_list = build_seats(specs, players, available, board.player_counts)
            state = new_game(len(seat_list), seed=seed, board=board, variants=variants)
    except (PlayError, SeatError) as e:
        con.print(f"error: {e}", style="bold red")
        return 2
    session = Session(state, seat_list, con, record=record)
    if resume is not None:
        session.notices.append(f"Resumed the game saved in {resume}.")
    return session.run()


__all__ += ["PlayError", "SeatSpec"]
