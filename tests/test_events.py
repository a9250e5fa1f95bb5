"""Public events from the core: what each decision caused, recorded by State.play (R5-R8, R12, R13)."""

from __future__ import annotations

import json
import pickle
import random

import pytest
from conftest import FA, game, pl, put_cloisters

from kardinal.bots.determinize import determinize
from kardinal.clients.text import describe_game
from kardinal.rules.events import Drew, GameEnded, IntermediateScoring, LastRound, NewDrawPile, Revealed, event_data, event_of
from kardinal.rules.moves import DECK, Draw
from kardinal.rules.record import record_of, record_steps, replay, rewind
from kardinal.rules.state import State, new_game
from kardinal.rules.view import view


def random_game(players: int, seed: int, upto: int | None = None) -> State:
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    while not s.is_over and (upto is None or len(s.history or []) < upto):
        s.play(rng.choice(s.legal_moves()))
    return s


def test_a_placement_and_its_draws_say_what_they_caused() -> None:
    """R5.1, R5.2: the blind draw names its card (for its owner), the refill turns up the display."""
    s = game(4, [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["LI", "LI", "BB"]], ["FA", "BB"], then=["ES", "LI"])
    put_cloisters(s, 1, ["mailand"])  # Italien is not empty (R4.6)
    s.play(pl("FR,FR,LI", "italien", "verona+venedig"))
    assert s.history is not None and s.history[-1].events == ()
    s.play(Draw(FA))
    assert s.history[-1].events == ()  # a display card taken: nothing hidden comes out yet
    s.play(Draw(DECK))
    assert s.history[-1].events == (Drew(0, "england-schwaben"),)
    s.play(Draw(DECK))
    # the hand is full: the display is refilled from the pile (R5.2)
    assert s.history[-1].events[0] == Drew(0, "lothringen-italien")
    assert isinstance(s.history[-1].events[1], Revealed) and len(s.history[-1].events[1].kinds) == 1


def test_views_hide_a_drawn_card_from_everyone_but_its_owner() -> None:
    """R13.2: "a card" to the others, the kind to the seat that drew it."""
    s = random_game(4, 3, upto=40)
    assert s.history is not None
    drawn = [(i, d) for i, d in enumerate(s.history) if any(isinstance(e, Drew) for e in d.events)]
    assert drawn
    for seat in (None, 0, 1, 2, 3):
        hist = view(s, seat)["history"]
        assert hist is not None
        for i, d in drawn:
            ev = next(e for e in hist[i]["events"] if e["type"] == "drew")
            assert ev["seat"] == d.seat
            assert (ev["kind"] is not None) == (seat == d.seat)


@pytest.mark.parametrize("players", [3, 4, 5])
def test_every_game_has_one_intermediate_scoring_and_one_end(players: int) -> None:
    """R7 happens once, with the breakdown the state keeps; R8 ends the game once, with the result."""
    for seed in range(40):
        s = random_game(players, seed)
        assert s.history is not None
        events = [e for d in s.history for e in d.events]
        inter = [e for e in events if isinstance(e, IntermediateScoring)]
        assert len(inter) == 1 and [list(r) for r in inter[0].by_country] == s.intermediate_scoring
        assert [e for e in events if isinstance(e, NewDrawPile)][0].size >= 0
        end = [e for e in events if isinstance(e, GameEnded)]
        assert len(end) == 1 and isinstance(s.history[-1].events[-1], GameEnded)
        assert list(end[0].scores) == s.scores and list(end[0].winners) == s.winners
        assert s.final_scoring is not None and list(end[0].chains) == s.final_scoring.chains
        last = [e for e in events if isinstance(e, LastRound)]
        assert end[0].reason == ("pile" if last else "blocked")
        assert len(last) == (1 if s.final_round else 0)
        if last:
            assert last[0].last_seat == players - 1  # R8.1: the seat before the start player


def test_events_as_data_round_trip() -> None:
    s = random_game(5, 8)
    assert s.history is not None
    for d in s.history:
        for e in d.events:
            data = json.loads(json.dumps(event_data(s.board, e, d.seat)))
            assert event_of(data) == e
            if isinstance(e, Drew):
                assert event_of(event_data(s.board, e, None)) == Drew(e.seat, None)


def test_one_replay_loop_gives_the_same_history() -> None:
    s = random_game(4, 12)
    rec = record_of(s)
    steps = list(record_steps(rec))
    assert [(x.seat, x.move) for x in steps] == [(d.seat, d.move) for d in s.history or []]
    # the steps carry the events the game had (a record has no seed: the same cards)
    assert [x.events for x in steps] == [d.events for d in s.history or []]
    assert replay(rec).key() == s.key()
    mid = rewind(s, 50)
    assert mid.history is not None and len(mid.history) == 50 and mid.history == (s.history or [])[:50]


def test_the_game_in_words_shows_the_scorings_from_the_events() -> None:
    s = random_game(3, 4)
    text = describe_game(record_of(s))
    assert text.count("intermediate scoring") == 1 and "Intermediate scoring (R7)" in text
    assert ("round is completed (R8.1)" in text) == s.final_round
    assert "Final scoring (R8.4)" in text


def test_determinized_history_has_the_same_view() -> None:
    """A state built from a view, with its history, shows that seat the same view (events included)."""
    s = random_game(4, 21, upto=70)
    for seat in range(4):
        v = view(s, seat)
        d = determinize(v, random.Random(seat), history=True)
        assert view(d, seat) == v


def test_state_pickles_and_prints() -> None:
    s = random_game(4, 2, upto=30)
    t = pickle.loads(pickle.dumps(s))
    assert t.key() == s.key() and t.history == s.history and t.board is s.board
    assert "seat" in str(s) and "scores=" in repr(s)
    t.play(t.legal_moves()[0])
    assert t.key() != s.key()  # independent
