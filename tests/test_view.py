"""R13 what each player knows: views hold public information and the viewer's own hand
only; determinize builds a state with the same view. (Random-game versions of these checks
are in test_properties.py.)"""

from __future__ import annotations

import json
import random
from typing import Any

import pytest
from conftest import BB, FA, game, hidden_twin, keys_deep, pl, public_of, put_cloisters, random_game

from kardinal.bots.determinize import determinize, unseen_cards
from kardinal.rules.moves import DECK, Draw, Exchange
from kardinal.rules.state import State, new_game
from kardinal.rules.view import view

BIG_SEED = 8234567890123456789

KEYS = {
    "format",
    "board",
    "players",
    "seat",
    "current",
    "phase",
    "hand_sizes",
    "known",
    "display",
    "deck_size",
    "discard",
    "removed",
    "sites",
    "cloisters",
    "advisors",
    "advisor_limit",
    "supply",
    "scores",
    "turns",
    "exhaustions",
    "final_round",
    "breakdown",
    "winners",
    "variants",
    "history",
}


def midgame(players: int = 4, steps: int = 60, seed: int = BIG_SEED) -> State:
    s = new_game(players, seed=seed)
    rng = random.Random(1)
    for _ in range(steps):
        s.play(rng.choice(s.legal_moves()))
    return s


def test_view_keys_and_spectator_has_no_hand() -> None:
    s = midgame()
    assert set(view(s, 1)) == KEYS | {"hand"}
    assert set(view(s, None)) == KEYS
    assert view(s, None)["seat"] is None
    assert view(s, 2)["hand"] == {s.board.cards[k].id: c for k, c in enumerate(s.hands[2]) if c}


def test_R13_views_differ_only_in_hand_and_seat() -> None:
    s = midgame()
    views = [view(s, p) for p in range(s.n)] + [view(s, None)]
    strip = [public_of(x) for x in views]
    assert all(x == strip[0] for x in strip)
    # what differs is only what the seat knows anyway: its hand, and the cards it drew itself
    assert views[-1]["history"] == strip[0]["history"]


def test_R13_3_no_seed_and_no_deck_order_in_the_view_text() -> None:
    s = midgame()
    assert s.seed == BIG_SEED
    for p in [None, *range(s.n)]:
        text = json.dumps(view(s, p))
        assert str(BIG_SEED) not in text
        assert "seed" not in text and "reshuffle" not in text
        assert "deck" not in keys_deep(view(s, p))  # only deck_size (and "deck" as a draw's source)
        assert '"deck": [' not in text and '"initial_deck"' not in text


def test_R13_hidden_information_does_not_change_views() -> None:
    rng = random.Random(5)
    changed = 0
    for seed in range(10):
        s = midgame(players=3 + seed % 3, steps=20 + 7 * seed, seed=seed)
        t = hidden_twin(s, rng)
        changed += t.hands != s.hands or t.deck != s.deck
        assert view(t, None) == view(s, None)
        assert view(t, 0) == view(s, 0)  # seat 0's hand is unchanged
    assert changed >= 8  # the twins really differ


def test_R13_1_history_does_not_reveal_cards_drawn_from_the_pile() -> None:
    s = game(4, [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["LI", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(s, 1, ["mailand"])
    s.play(pl("FR,FR,LI", "italien", "verona+venedig"))
    s.play(Draw(DECK))
    s.play(Draw(FA))
    s.play(Draw(DECK))
    s.play(Exchange(BB, DECK))
    v = view(s, 2)
    assert [(h["action"]["seat"], h["notation"]) for h in v["history"]] == [
        (0, "play FR,FR,LI italien venedig+verona"),
        (0, "draw deck"),
        (0, "draw FA"),
        (0, "draw deck"),
        (1, "exchange BB for deck"),
    ]
    # a card drawn from the pile is "a card" to everyone but the seat that drew it
    drew = [e for h in v["history"] for e in h["events"] if e["type"] == "drew"]
    assert [(e["seat"], e["kind"]) for e in drew] == [(0, None), (0, None), (1, None)]
    mine = [e for h in view(s, 0)["history"] for e in h["events"] if e["type"] == "drew"]
    assert [e["kind"] for e in mine[:2]] == [s.board.cards[s.deck[i]].id for i in (14, 15)]
    # R13.1: the display card taken is public; the pile cards are not
    assert v["known"][0] == {FA: 1}
    assert v["hand_sizes"] == [3, 3, 3, 3]


def test_view_refuses_a_bad_seat() -> None:
    s = midgame()
    for bad in (-1, 4, "0", 1.0):
        with pytest.raises(ValueError):
            view(s, bad)  # type: ignore[arg-type]


def same_view_and_moves(s: State, seat: int, rng: random.Random) -> None:
    v = view(s, seat)
    d = determinize(v, rng, history=True)
    assert view(d, seat) == v
    d2 = determinize(v, rng)
    v2 = view(d2, seat)
    assert {k: x for k, x in v2.items() if k != "history"} == {k: x for k, x in v.items() if k != "history"}
    if s.current == seat and not s.is_over:
        assert d.legal_moves() == s.legal_moves()


def test_determinize_same_view_and_moves_for_every_seat() -> None:
    rng = random.Random(9)
    for seed in range(6):
        s = midgame(players=3 + seed % 3, steps=15 + 13 * seed, seed=seed)
        for seat in range(s.n):
            same_view_and_moves(s, seat, rng)


def test_determinize_fills_hidden_cards_from_unseen_cards() -> None:
    s = midgame(steps=33)
    v = view(s, 0)
    unseen = unseen_cards(v)
    hidden_total = sum(v["hand_sizes"][p] - sum(v["known"][p].values()) for p in range(1, s.n)) + v["deck_size"]
    assert sum(unseen) == hidden_total
    d = determinize(v, random.Random(1))
    for p in range(1, s.n):
        for k in range(5):
            assert d.hands[p][k] >= d.known[p][k]
    assert d.deck_size == s.deck_size


def test_spectator_view_of_a_finished_game() -> None:
    s = random_game(4, 2)
    v: dict[str, Any] = view(s, None)
    assert v["phase"] == "over" and v["winners"] == s.winners
    assert v["scores"] == s.scores
    json.dumps(v)
