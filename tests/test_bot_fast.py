"""The search bots' fast paths against their slow, obvious versions (the oracles).

ISMCTS scores moves from memoised per-country tables and builds only the moves it
returns; the slow version plays through ``legal_moves`` and the whole gain table. They
must agree exactly (the same floats, the same order, the same first maximum), or play
would change (see test_bot_pinned.py).
"""

from __future__ import annotations

import math
import random

import pytest

from kardinal.bots import GreedyBot, ISMCTSBot
from kardinal.bots.determinize import Determinizer, determinize
from kardinal.bots.evaluate import CHAIN_SEED, PAIR_KEEP, Evaluator
from kardinal.bots.greedy import score_moves
from kardinal.bots.ismcts import EXCHANGE_WORTH
from kardinal.rules.chains import chain_score
from kardinal.rules.moves import DECK, Exchange, Move, Place
from kardinal.rules.state import DRAW, MAIN, State, new_game
from kardinal.rules.view import view


def slow_scored(ev: Evaluator, d: State) -> list[tuple[float, Move]]:
    """The ISMCTS move scores as first written: every legal move, the whole gain table."""
    moves = d.legal_moves()
    p = d.current
    hand = d.hands[p]
    g = ev.gains(d, p, ev.reachable(hand))
    out: list[tuple[float, Move]] = []
    exchange: Move | None = None
    for m in moves:
        if isinstance(m, Place):
            out.append((ev.fast_place_score(m, g) + PAIR_KEEP * ev._pairs_left(hand, m.cards), m))
        elif isinstance(m, Exchange):
            if exchange is None or (m.take == DECK and hand[ev.kind_index[m.discard]] == 1):
                exchange = m
        else:
            out.append((0.0, m))
    if exchange is not None:
        out.append((0.0 if d.final_round else EXCHANGE_WORTH, exchange))
    return out


def slow_chain_estimate(ev: Evaluator, owner: list[int], p: int) -> float:
    """The evaluation's chain estimate as first written: R11 chain points of seat p, plus a
    little for each run of 2-3 sites with a free site beside it."""
    mine = [s for s, o in enumerate(owner) if o == p]
    if len(mine) < 2:
        return 0.0
    nb = ev.nb
    mset = set(mine)
    seen: set[int] = set()
    extra = 0.0
    for v in mine:
        if v in seen:
            continue
        stack = [v]
        seen.add(v)
        size = 0
        open_end = False
        while stack:
            x = stack.pop()
            size += 1
            for y in nb[x]:
                if y in mset:
                    if y not in seen:
                        seen.add(y)
                        stack.append(y)
                elif owner[y] < 0:
                    open_end = True
        if 1 < size < 4 and open_end:
            extra += CHAIN_SEED * (size - 1)
    return chain_score(mine, nb) + extra


def positions(players: int, seed: int) -> list[State]:
    """Every main decision of a game of greedy and random-ish players (some moves are random)."""
    rng = random.Random(seed)
    bots = [GreedyBot(seed + i) for i in range(players)]
    s = new_game(players, seed=seed, history=False)
    out = []
    while not s.is_over:
        if s.phase == MAIN:
            out.append(s.copy(history=False))
        if rng.random() < 0.3:
            s.play(rng.choice(s.legal_moves()))
        else:
            s.play(bots[s.current].choose(view(s, s.current)))
    return out


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (5, 3), (4, 4)])
def test_fast_move_scores_equal_the_slow_ones(players: int, seed: int) -> None:
    for s in positions(players, seed):
        bot = ISMCTSBot(0)
        ev = bot.evaluator(view(s, s.current))
        slow = slow_scored(ev, s)
        assert bot._scored(s) == slow
        best_v, best_m = slow[0]
        for v, m in slow:
            if v > best_v:
                best_v, best_m = v, m
        assert bot._best_move(s) == best_m
        ranked = sorted(slow, key=lambda x: -x[0])
        for k in (1, 3, 5, 10):
            assert bot._candidates(s, k) == [m for _, m in ranked[:k]]


@pytest.mark.parametrize(("players", "seed"), [(3, 21), (4, 22), (5, 23)])
def test_lookahead_rollout_move_is_greedys_choice_of_the_three_best(players: int, seed: int) -> None:
    """rollout="lookahead": of the 3 moves of the highest cheap score (the slow ranking),
    the placement greedy's own move values (score_moves) rank first; the best cheap move
    when it is not a placement."""
    looked = differs = 0
    for s in positions(players, seed):
        bot = ISMCTSBot(0, rollout="lookahead")
        ev = bot.evaluator(view(s, s.current))
        ranked = [m for _, m in sorted(slow_scored(ev, s), key=lambda x: -x[0])[:3]]
        places = [m for m in ranked if isinstance(m, Place)]
        if not isinstance(ranked[0], Place) or len(ranked) == 1:
            expected = ranked[0]
        else:
            values = score_moves(ev, s, s.current, places)
            expected = max(values, key=lambda x: x[0])[1]  # the first of the highest value
            looked += 1
            differs += expected != ranked[0]
        before = s.copy(history=False)
        assert bot._lookahead_move(s) == expected
        assert s.hands == before.hands and s.owner == before.owner  # played on a copy
    assert looked > 10 and differs > 0  # greedy's look does not always agree with the cheap scores
    with pytest.raises(ValueError):
        ISMCTSBot(0, rollout="random")


@pytest.mark.parametrize(("players", "seed"), [(3, 11), (4, 12), (5, 13), (4, 14)])
def test_random_rollout_move_is_the_choice_from_legal_moves(players: int, seed: int) -> None:
    """The rollout's random move counts the legal moves: the same draw, the same move."""
    for s in positions(players, seed):
        bot = ISMCTSBot(0)
        bot.evaluator(view(s, s.current))
        for r in range(6):
            bot.rng = random.Random(r)
            expected = random.Random(r).choice(s.legal_moves())
            assert bot._random_move(s) == expected
            assert bot.rng.random() == pytest.approx(_after_choice(r, len(s.legal_moves())))


def _after_choice(r: int, n: int) -> float:
    rng = random.Random(r)
    rng.choice(range(n))
    return rng.random()


@pytest.mark.parametrize(("players", "seed"), [(3, 5), (4, 6), (5, 7)])
def test_memoised_evaluation_equals_the_direct_one(players: int, seed: int) -> None:
    ev = Evaluator(new_game(players, seed=0).board)
    for s in positions(players, seed):
        for p in range(players):
            assert ev.chain_estimate(s.owner, p) == slow_chain_estimate(ev, s.owner, p)
            g = ev.gains(s, p)
            sb = ev.site_bonus_memo(s.owner, p)
            assert [sb[v] for v, o in enumerate(s.owner) if o < 0] == [g.site[v] for v, o in enumerate(s.owner) if o < 0]
            mult = 2 if s.exhaustions == 0 else 1
            for c in range(ev.C):
                assert ev.cloister_gain(s.cloisters[c], p, len(s.free_sites[c]), mult) == (g.cl1[c], g.cl2[c])
                if g.adv1[c] or g.adv2[c]:
                    assert ev.advisor_gain(s.advisors, c, p) == (g.adv1[c], g.adv2[c])


@pytest.mark.parametrize(("players", "seed"), [(3, 8), (4, 9), (5, 10)])
def test_determinizer_equals_determinize(players: int, seed: int) -> None:
    """The sampler built once per decision deals exactly what determinize deals, draw for draw."""
    s = new_game(players, seed=seed)
    bots = [GreedyBot(i) for i in range(players)]
    step = 0
    while not s.is_over:
        if step % 3 == 0 or s.phase == DRAW:
            v = view(s, s.current)
            r1, r2 = random.Random(step), random.Random(step)
            sampler = Determinizer(v)
            for _ in range(3):
                a, b = determinize(v, r1), sampler.sample(r2)
                assert a.key() == b.key()
                assert (a.seed, a.initial_deck, a.top, a.intermediate_scoring) == (b.seed, b.initial_deck, b.top, b.intermediate_scoring)
                assert (a.most_cloisters, a.advisors_total, a.free_sites, a.cloisters) == (
                    b.most_cloisters,
                    b.advisors_total,
                    b.free_sites,
                    b.cloisters,
                )
                assert a.history is None and b.history is None
                assert math.isclose(r1.random(), r2.random())
        s.play(bots[s.current].choose(view(s, s.current)))
        step += 1


def test_the_ismcts_benchmark_counts_iterations() -> None:
    """kardinal.bots.bench measures iterations per second (speed is measured there, never asserted)."""
    from kardinal.bots.bench import ismcts_rate

    calls = iter([0.0, 2.0])
    assert ismcts_rate(5, positions(3, 1)[3:5], clock=lambda: next(calls)) == 5.0  # 10 iterations in 2 "seconds"


@pytest.mark.parametrize(("players", "seed"), [(3, 15), (4, 16), (5, 17)])
def test_fitted_leaf_estimate_equals_its_features(players: int, seed: int) -> None:
    """The search's fitted leaf evaluation (memoised) is the weighted sum of leaf_features
    (the plain version the fit used); with the hand-written weights it is Evaluator.estimate."""
    from kardinal.bots import evaluate

    ev = Evaluator(new_game(players, seed=0).board)
    states = positions(players, seed)
    for s in states:
        assert ev.leaf_estimate(s) == pytest.approx(ev.leaf_estimate_slow(s), abs=1e-9)
    hand_written = [
        (mult, 1.0, evaluate.PARTIAL_ALLIANCE, 1.0, CHAIN_SEED) + (0.0,) * (len(evaluate.LEAF_FEATURES) - 5) for mult in (2.0, 1.0, 1.0)
    ]
    saved = evaluate.LEAF_WEIGHTS[players]
    evaluate.LEAF_WEIGHTS[players] = tuple(hand_written)
    try:
        ev = Evaluator(new_game(players, seed=0).board)
        for s in states:
            assert ev.leaf_estimate(s) == pytest.approx(ev.estimate(s), abs=1e-9)
    finally:
        evaluate.LEAF_WEIGHTS[players] = saved


def test_the_fitted_leaf_is_an_option_of_the_search() -> None:
    """ISMCTSBot(leaf="fitted") searches with the fitted evaluation, reproducibly; the default is the plain one."""
    s = positions(4, 18)[6]
    moves = []
    for _ in range(2):
        bot = ISMCTSBot(3, iterations=60, leaf="fitted")
        moves.append((bot.choose(view(s, s.current)), bot.last_root))
    assert moves[0] == moves[1]
    assert ISMCTSBot(0).leaf == "plain"
    with pytest.raises(ValueError, match="leaf"):
        ISMCTSBot(0, leaf="learned")
