"""Invariants over many random games (3, 4 and 5 players), with Hypothesis and with plain
seeded loops. Default: about 1500 games; KARDINAL_LONG=1 plays ten times as many.

Checked: every card is somewhere (R1.1, R2.1); pieces are conserved and never move (R1.2, R4.10); the
advisor limit (R4.8) and site capacity (R4.7); the intermediate scoring happens exactly
once (R7); scores never fall; every game ends (bounded decisions); when the game ends by
R8.1 every player had the same number of turns; the final score is the intermediate plus
the final scoring (R8.4) and the winners follow R12.1; records replay to the same state;
every legal move's notation parses back; views hold no hidden information (R13) and
determinize keeps the view and the legal moves.
"""

from __future__ import annotations

import json
import random
import tomllib
from importlib import resources

import pytest
from conftest import LONG, assert_replays_identically, card_total, check_consistent, hidden_twin, keys_deep, public_of
from hypothesis import given, settings
from hypothesis import strategies as st

from kardinal.bots.determinize import determinize
from kardinal.rules.board import Board, parse_board
from kardinal.rules.chains import chain_score_slow
from kardinal.rules.moves import parse_move
from kardinal.rules.record import record_of, replay
from kardinal.rules.state import DRAW, MAIN, OVER, State, new_game
from kardinal.rules.view import view

SCALE = 10 if LONG else 1
MAX_DECISIONS = 2000  # a game has about 100-150 decisions; every game must end well before


class Stats:
    def __init__(self) -> None:
        self.games = 0
        self.by_r81 = 0
        self.by_r83 = 0


def check_step_invariants(s: State, full: list[int]) -> None:
    b = s.board
    # R1.1/R2.1: hands + display + pile + discard + removed = every card of every kind
    assert card_total(s) == full
    # R1.2/R4.10: supply + placed = 20 cloisters, 8 advisors
    for p in range(s.n):
        assert s.supply_cl[p] + s.owner.count(p) == b.supply_cloisters
        assert s.supply_adv[p] + sum(row[p] for row in s.advisors) == b.supply_advisors
        assert s.supply_cl[p] >= 0 and s.supply_adv[p] >= 0
        assert s.hand_size(p) <= 3 and min(s.hands[p]) >= 0
        assert all(0 <= kn <= h for kn, h in zip(s.known[p], s.hands[p]))
    # R4.8: never more advisors than the largest cloister count
    for c in range(len(b.countries)):
        assert s.advisors_total[c] <= s.most_cloisters[c]
    assert len(s.display) <= 2
    assert s.phase in (MAIN, DRAW, OVER)


def independent_final(s: State) -> list[int]:
    """R9-R11 written out again (R9.3 as: first place scores the total, any other player
    scores the smallest count above their own), for comparison with s.final_scoring.total."""
    b = s.board
    n = s.n
    total = [0] * n
    for c in b.countries:
        counts = [sum(1 for i in c.sites if s.owner[i] == p) for p in range(n)]
        for p in range(n):
            if counts[p] == 0:
                continue
            above = [x for x in counts if x > counts[p]]
            total[p] += min(above) if above else sum(counts)
    for al in b.alliances:
        rows = [s.advisors[c] for c in al.countries]
        value = sum(rows[0]) + sum(rows[1])
        for p in range(n):
            if all(r[p] > 0 and r[p] == max(r) for r in rows):
                total[p] += value
    for p in range(n):
        total[p] += chain_score_slow([i for i, o in enumerate(s.owner) if o == p], b.neighbours)
    return total


def play_checked(players: int, seed: int, stats: Stats, deep: bool = False, board: Board | None = None) -> State:
    """One random game with every invariant checked after every decision."""
    s = new_game(players, seed=seed, board=board)
    rng = random.Random(seed * 7 + players)
    full = [k.count for k in s.board.cards]
    assert sum(full) == 55
    check_step_invariants(s, full)
    inter_scores: list[int] | None = None
    decisions = 0
    while not s.is_over:
        decisions += 1
        assert decisions <= MAX_DECISIONS, "the game does not end"
        moves = s.legal_moves()
        assert moves
        if deep:
            assert len(moves) == len(set(moves))
            for m in moves:
                assert parse_move(str(m)) == m, m
        seat_before = s.current
        before_owner = s.owner[:]
        before_adv = [row[:] for row in s.advisors]
        before_scores = s.scores[:]
        before_exh = s.exhaustions
        before_inter = s.intermediate_scoring
        s.play(rng.choice(moves))
        check_step_invariants(s, full)
        # R4.10: placed pieces never move and are never removed
        assert all(a == b for a, b in zip(s.owner, before_owner) if b >= 0)
        assert all(x >= y for r1, r0 in zip(s.advisors, before_adv) for x, y in zip(r1, r0))
        # scores never fall, and change only at the intermediate scoring or the end
        assert all(a >= b for a, b in zip(s.scores, before_scores))
        if before_exh == 0 and s.exhaustions >= 1:
            assert before_inter is None and s.intermediate_scoring is not None
            pts = [sum(row[p] for row in s.intermediate_scoring) for p in range(players)]
            assert [a - b for a, b in zip(s.scores, before_scores)] == pts or s.is_over
            inter_scores = pts
        else:
            assert s.intermediate_scoring is before_inter  # R7: exactly once
            if not s.is_over:
                assert s.scores == before_scores
        if deep and decisions % 5 == 0:
            check_consistent(s)
        if s.phase == MAIN and s.current != seat_before:
            # R8.3: a new turn starts only while someone can still place
            assert any(s.can_place_any(p) for p in range(players))
    check_consistent(s)
    # the end: R8.4 and R12.1
    assert s.final_scoring is not None and s.winners
    inter = inter_scores or [0] * players
    assert s.scores == [i + f for i, f in zip(inter, s.final_scoring.total)]
    left = [s.pieces_left(p) for p in range(players)]
    top = max(s.scores)
    best = max(left[p] for p in range(players) if s.scores[p] == top)
    assert s.winners == [p for p in range(players) if s.scores[p] == top and left[p] == best]
    if deep:
        assert s.final_scoring.total == independent_final(s)
    nobody = not any(s.can_place_any(p) for p in range(players))
    if nobody:
        stats.by_r83 += 1
    else:
        # R8.1: the pile was used up twice and the round completed
        stats.by_r81 += 1
        assert s.exhaustions == 2 and s.final_round
        assert s.history is not None and s.history[-1][0] == players - 1
        assert len(set(s.turns)) == 1, s.turns
    stats.games += 1
    return s


@pytest.mark.parametrize("players", [3, 4, 5])
def test_invariants_over_many_random_games(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    stats = Stats()
    for g in range(450 * SCALE):
        play_checked(players, 100_000 * players + g, stats, deep=g % 25 == 0)
    assert stats.games == 450 * SCALE
    assert stats.by_r81 > 0  # the usual ending is met
    with capsys.disabled():
        print(f"\n[properties] {players} players: {stats.games} games, R8.1 endings {stats.by_r81}, R8.3 endings {stats.by_r83}")


def small_supply_board() -> Board:
    """The standard board with 5 cloisters and 2 advisors a player: R8.3 endings are common."""
    text = resources.files("kardinal.rules").joinpath("data/standard.toml").read_text(encoding="utf-8")
    text = text.replace("cloisters = 20\nadvisors = 8", "cloisters = 5\nadvisors = 2")
    b = parse_board(tomllib.loads(text))
    assert (b.supply_cloisters, b.supply_advisors) == (5, 2)
    return b


@pytest.mark.parametrize("players", [3, 4, 5])
def test_R8_3_endings_on_a_small_supply_board(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    b = small_supply_board()
    stats = Stats()
    for g in range(60 * SCALE):
        s = play_checked(players, 900_000 + 1000 * players + g, stats, deep=g % 10 == 0, board=b)
        if not any(s.can_place_any(p) for p in range(players)):
            # ended at once (R8.3), after the last mover's turn: a round may be incomplete,
            # but seats up to the last mover have one turn more than those after it
            assert s.history is not None
            last = s.history[-1][0]
            assert s.turns == [s.turns[0] if p <= last else s.turns[0] - 1 for p in range(players)]
    assert stats.by_r83 > 10
    with capsys.disabled():
        print(f"\n[properties] small supply, {players} players: R8.1 endings {stats.by_r81}, R8.3 endings {stats.by_r83}")


@settings(max_examples=40 * SCALE, deadline=None)
@given(players=st.sampled_from([3, 4, 5]), seed=st.integers(0, 2**63 - 1))
def test_invariants_hypothesis(players: int, seed: int) -> None:
    play_checked(players, seed, Stats(), deep=True)


# -- records ------------------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_record_json_replay_identical(players: int) -> None:
    rng = random.Random(players)
    for g in range(30 * SCALE):
        s = new_game(players, seed=rng.getrandbits(63))
        while not s.is_over:
            s.play_trusted(rng.choice(s.legal_moves()))
        rec = assert_replays_identically(s)
        # replaying any prefix gives the state at that point (spot check one prefix)
        if g % 10 == 0 and s.history:
            k = rng.randrange(len(s.history))
            u = new_game(players, deck=rec["deck"], reshuffle=rec.get("reshuffle"))
            for d in s.history[:k]:
                u.play(d.move)
            assert replay(rec, stop=k).key() == u.key()


@settings(max_examples=25 * SCALE, deadline=None)
@given(players=st.sampled_from([3, 4, 5]), seed=st.integers(0, 2**63 - 1))
def test_record_replay_hypothesis(players: int, seed: int) -> None:
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    while not s.is_over:
        s.play(rng.choice(s.legal_moves()))
    t = replay(json.loads(json.dumps(record_of(s))))
    assert t.key() == s.key() and t.scores == s.scores and t.winners == s.winners


# -- notation ---------------------------------------------------------------------------------


def test_every_legal_move_notation_round_trips() -> None:
    rng = random.Random(77)
    moves_seen = 0
    for g in range(30 * SCALE):
        s = new_game(3 + g % 3, seed=5000 + g)
        while not s.is_over:
            moves = s.legal_moves()
            for m in moves:
                assert parse_move(str(m)) == m, m
            moves_seen += len(moves)
            s.play_trusted(rng.choice(moves))
    assert moves_seen > 10_000


# -- views --------------------------------------------------------------------------------------


def check_views(s: State, rng: random.Random) -> None:
    seed_text = str(s.seed)
    views = {p: view(s, p) for p in [None, *range(s.n)]}
    for p, v in views.items():
        text = json.dumps(v)
        assert seed_text not in text
        assert "deck" not in keys_deep(v) and "reshuffle" not in text
        assert public_of(v) == public_of(views[None])
        if p is not None:
            own = {s.board.cards[k].id: c for k, c in enumerate(s.hands[p]) if c}
            assert v["hand"] == own
        else:
            assert "hand" not in v
    # the same position with other hidden cards (hands, pile order, seed): the same views
    twin = hidden_twin(s, rng)
    assert view(twin, None) == views[None]
    assert view(twin, 0) == views[0]  # hidden_twin keeps seat 0's hand
    # determinize: the same view for that seat and the same legal moves (when it is to act)
    seat = s.current
    d = determinize(views[seat], rng, history=True)
    assert view(d, seat) == views[seat]
    assert d.legal_moves() == s.legal_moves()
    other = (seat + 1) % s.n
    d2 = determinize(views[other], rng)
    assert {k: x for k, x in view(d2, other).items() if k != "history"} == {k: x for k, x in views[other].items() if k != "history"}


@pytest.mark.parametrize("players", [3, 4, 5])
def test_views_hide_everything_private_in_random_games(players: int) -> None:
    rng = random.Random(players * 31)
    checked = 0
    for _ in range(12 * SCALE):
        s = new_game(players, seed=rng.getrandbits(63) | (1 << 62))  # a long seed: easy to spot
        while not s.is_over:
            if rng.random() < 0.15:
                check_views(s, rng)
                checked += 1
            s.play_trusted(rng.choice(s.legal_moves()))
    assert checked > 100


@settings(max_examples=20 * SCALE, deadline=None)
@given(players=st.sampled_from([3, 4, 5]), seed=st.integers(1 << 40, 2**63 - 1), steps=st.integers(0, 200))
def test_views_hypothesis(players: int, seed: int, steps: int) -> None:
    s = new_game(players, seed=seed)
    rng = random.Random(seed)
    for _ in range(steps):
        if s.is_over:
            break
        s.play_trusted(rng.choice(s.legal_moves()))
    if not s.is_over:
        check_views(s, rng)
