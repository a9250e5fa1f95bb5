"""Move notation: str() and parse_move round-trip; canonical placements (R4.9); parse errors."""

from __future__ import annotations

import random

import pytest
from conftest import BB, ES, FA, FR, LI

from kardinal.rules.moves import DECK, Draw, Exchange, MoveParseError, Pass, Place, make_place, parse_move
from kardinal.rules.state import new_game


def test_notation_of_each_move_kind() -> None:
    assert str(make_place("italien", [LI, FR, FR], ["verona"], 1)) == "play FR,FR,LI italien verona+advisor"
    assert str(make_place("bayern", [BB, BB], ["wien", "passau"], 0)) == "play BB,BB bayern passau+wien"
    assert str(make_place("schwaben", [ES, ES], [], 2)) == "play ES,ES schwaben advisor+advisor"
    assert str(Exchange(FR, DECK)) == "exchange FR for deck"
    assert str(Exchange(FA, BB)) == "exchange FA for BB"
    assert str(Draw(DECK)) == "draw deck"
    assert str(Draw(LI)) == "draw LI"
    assert str(Pass()) == "pass"


@pytest.mark.parametrize(
    "text, move",
    [
        ("play FR,FR,LI italien verona+advisor", Place("italien", (FR, FR, LI), ("verona",), 1)),
        ("play LI,FR,FR italien advisor+verona", Place("italien", (FR, FR, LI), ("verona",), 1)),  # R4.9
        ("PLAY fr,Fr,li Italien Verona+A", Place("italien", (FR, FR, LI), ("verona",), 1)),
        ("play frankreich frankreich paris", Place("frankreich", (FR,), ("paris",), 0)),
        ("  exchange FR   for deck ", Exchange(FR, DECK)),
        ("exchange FR for pile", Exchange(FR, DECK)),
        ("exchange bayern-burgund for ES", Exchange(BB, ES)),
        ("draw deck", Draw(DECK)),
        ("draw fa", Draw(FA)),
        ("pass", Pass()),
    ],
)
def test_parse_move(text: str, move: object) -> None:
    assert parse_move(text) == move


@pytest.mark.parametrize(
    "text, words",
    [
        ("", "empty"),
        ("jump", "unknown move"),
        ("pass now", "pass"),
        ("draw", "draw"),
        ("draw XX", "unknown card"),
        ("exchange FR deck", "exchange"),
        ("exchange FR for XX", "unknown card"),
        ("play FR frankreich", "play"),
        ("play FR atlantis paris", "unknown country"),
        ("play XX frankreich paris", "unknown card"),
        ("play FR frankreich eiffel", "unknown piece"),
    ],
)
def test_parse_errors_say_what_is_wrong(text: str, words: str) -> None:
    with pytest.raises(MoveParseError) as e:
        parse_move(text)
    assert words in str(e.value)


def test_R4_9_same_pieces_any_order_is_the_same_move() -> None:
    a = parse_move("play LI,LI italien verona+pavia")
    b = parse_move("play LI,LI italien pavia+verona")
    assert a == b and hash(a) == hash(b)
    assert a.cloisters == ("pavia", "verona")
    assert parse_move("play LI,LI italien advisor+verona") == parse_move("play LI,LI italien verona+advisor")


def test_pieces_in_record_order_cloisters_first() -> None:
    m = make_place("italien", [LI, LI], ["verona"], 1)
    assert m.pieces == [{"type": "cloister", "site": "verona"}, {"type": "advisor"}]
    assert m.num_pieces == 2


def test_every_legal_move_round_trips_in_random_games() -> None:
    """parse_move(str(m)) == m for every legal move met (the properties file does more)."""
    rng = random.Random(8)
    for n in (3, 4, 5):
        for g in range(4):
            s = new_game(n, seed=300 + g)
            while not s.is_over:
                moves = s.legal_moves()
                for m in moves:
                    assert parse_move(str(m)) == m, m
                s.play_trusted(rng.choice(moves))
