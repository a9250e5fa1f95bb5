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
from kardinal.bots.evaluate import CARD_COST, CHAIN_SEED, PAIR_KEEP, Evaluator
from kardinal.bots.greedy import score_moves
from kardinal.bots.ismcts import EXCHANGE_WORTH, POLICY
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
    for m in moves:
        if isinstance(m, Place):
            out.append((ev.fast_place_score(m, g) + PAIR_KEEP * ev._pairs_left(hand, m.cards), m))
        elif not isinstance(m, Exchange):
            out.append((0.0, m))
    return with_exchange(out, ev, d, moves, EXCHANGE_WORTH)


def with_exchange(out: list[tuple[float, Move]], ev: Evaluator, d: State, moves: list[Move], worth: float) -> list[tuple[float, Move]]:
    """``out`` and the one exchange the cheap scores try (the last that takes from the draw
    pile and gives up a single card, else the first), worth ``worth`` before the final
    round and 0 in it."""
    hand = d.hands[d.current]
    exchange: Move | None = None
    for m in moves:
        if isinstance(m, Exchange) and (exchange is None or (m.take == DECK and hand[ev.kind_index[m.discard]] == 1)):
            exchange = m
    if exchange is not None:
        out.append((0.0 if d.final_round else worth, exchange))
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


def weighted_scored(ev: Evaluator, d: State, w: tuple[float, ...]) -> list[tuple[float, Move]]:
    """The cheap scores under the weights of ISMCTSBot's ``policy``, from every legal move and
    the whole gain table: each part of a placement times its weight (cloister gain, chain
    bonus of each site, advisor gain; the cards' cost, the pairs kept), a bonus for two
    pieces and one for three cards; the one exchange worth trying at its weight."""
    wcl, ws, wa, wc, wp, w2, w3, wx = w
    p = d.current
    hand = d.hands[p]
    g = ev.gains(d, p, ev.reachable(hand))
    moves = d.legal_moves()
    out: list[tuple[float, Move]] = []
    for m in moves:
        if isinstance(m, Place):
            c = ev.country_index[m.country]
            sites = [g.site[ev.site_index[x]] * ws for x in m.cloisters]
            if len(m.cloisters) == 2:
                v = g.cl2[c] * wcl + sites[0] + sites[1]
            elif m.cloisters:
                v = g.cl1[c] * wcl + sites[0]
                if m.advisors:
                    v += g.adv1[c] * wa
            else:
                v = (g.adv1[c] if m.advisors == 1 else g.adv2[c]) * wa
            kept = PAIR_KEEP * ev._pairs_left(hand, m.cards) * wp
            if m.num_pieces == 2:
                kept = kept + (w3 if len(m.cards) == 3 else 0.0) + w2
            out.append(((v - CARD_COST * len(m.cards) * wc) + kept, m))
        elif not isinstance(m, Exchange):
            out.append((0.0, m))
    return with_exchange(out, ev, d, moves, wx)


@pytest.mark.parametrize(("players", "seed"), [(3, 31), (4, 32), (5, 33)])
def test_a_weighed_policy_scores_moves_by_its_weights(players: int, seed: int) -> None:
    """``policy`` weighs the parts of the cheap score: the rollout's move, the scores and the
    tree's candidates are those of the weighed score over every legal move; the default
    weights are the hand-set score."""
    assert POLICY == (1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, EXCHANGE_WORTH)
    w = (1.0, 1.7, 1.4, 0.3, 1.3, 0.9, 0.4, -0.3)
    changed = 0
    for s in positions(players, seed):
        bot = ISMCTSBot(0, policy=w)
        ev = bot.evaluator(view(s, s.current))
        slow = weighted_scored(ev, s, w)
        assert bot._scored(s) == slow
        assert weighted_scored(ev, s, POLICY) == slow_scored(ev, s)
        best_v, best_m = slow[0]
        for v, m in slow:
            if v > best_v:
                best_v, best_m = v, m
        assert bot._best_move(s) == best_m
        plain = ISMCTSBot(0)
        plain.evaluator(view(s, s.current))
        changed += best_m != plain._best_move(s)
        ranked = sorted(slow, key=lambda x: -x[0])
        for k in (1, 3, 5, 10):
            assert bot._candidates(s, k) == [m for _, m in ranked[:k]]
    assert changed > 0  # the weights change the rollout's move somewhere


@pytest.mark.parametrize(("players", "seed"), [(3, 51), (4, 52)])
def test_softmax_rollout_move_is_drawn_from_the_k_best_by_their_scores(players: int, seed: int) -> None:
    """rollout="softmax": the k best moves with their scores as the slow ranking gives them,
    one drawn with probability exp(score / temperature) over their sum."""
    drawn_other = 0
    for s in positions(players, seed):
        bot = ISMCTSBot(0, rollout="softmax", temperature=0.8, k=4)
        ev = bot.evaluator(view(s, s.current))
        ranked = sorted(slow_scored(ev, s), key=lambda x: -x[0])[:4]
        got = bot._ranked(s, 4)
        if len(ranked) > 1:
            assert got == ranked
        for r in range(5):
            bot.rng = random.Random(r)
            if len(got) == 1:
                assert bot._softmax_move(s) == got[0][1]
                continue
            weights = [math.exp((v - got[0][0]) / 0.8) for v, _ in got]
            u = random.Random(r).random() * sum(weights)
            expected = got[-1][1]
            for (_, m), x in zip(got, weights):
                u -= x
                if u < 0.0:
                    expected = m
                    break
            assert bot._softmax_move(s) == expected
            drawn_other += expected != got[0][1]
    assert drawn_other > 0  # not always the best
    with pytest.raises(ValueError, match="temperature"):
        ISMCTSBot(0, rollout="softmax", temperature=0.0)
    with pytest.raises(ValueError, match="8 weights"):
        ISMCTSBot(0, policy=(1.0, 2.0))


def draw_positions(players: int, seed: int) -> list[State]:
    """Every draw decision with a choice of a game of greedy players."""
    bots = [GreedyBot(seed + i) for i in range(players)]
    s = new_game(players, seed=seed, history=False)
    out = []
    while not s.is_over:
        if s.phase == DRAW and len(s.legal_moves()) > 1:
            out.append(s.copy(history=False))
        s.play(bots[s.current].choose(view(s, s.current)))
    return out


@pytest.mark.parametrize(("players", "seed"), [(3, 41), (4, 42), (5, 43)])
def test_a_weighed_draw_rule_takes_the_draw_of_the_highest_worth(players: int, seed: int) -> None:
    """``draw_policy``: a display card is worth its pair and three-of-a-kind weights plus the
    value weight times the best one-piece placement it allows (from the whole gain table,
    0 if none); the pile its own weight; the first of the highest is drawn, the pile first."""
    w = (1.5, 3.0, -2.5, 0.8)
    drawn_display = drawn_pile = 0
    for s in draw_positions(players, seed):
        bot = ISMCTSBot(0, draw_policy=w)
        ev = bot.evaluator(view(s, s.current))
        p = s.current
        g = ev.gains(s, p)
        hand = s.hands[p]
        options: list[tuple[float, str]] = [(w[0], DECK)] if s.deck_size else []
        for k in sorted(set(s.display)):
            best = 0.0
            for c in s.board.cards[k].countries:
                if s.free_sites[c] and s.supply_cl[p]:
                    best = max(best, g.cl1[c] + max(g.site[ev.site_index[x]] for x in s.free_sites[c]))
                if s.most_cloisters[c] > s.advisors_total[c] and s.supply_adv[p]:
                    best = max(best, g.adv1[c])
            worth = (w[1] if hand[k] >= 1 else 0.0) + (w[2] if hand[k] >= 2 else 0.0) + w[3] * best
            options.append((worth, s.board.cards[k].id))
        expected = options[0]
        for o in options[1:]:
            if o[0] > expected[0] + 1e-9:
                expected = o
        got = bot._weighed_draw(s, w)
        assert (DECK if got < 0 else s.board.cards[got].id) == expected[1]
        drawn_pile += got < 0
        drawn_display += got >= 0
    assert drawn_pile and drawn_display  # both kinds of draw are taken
    t = draw_positions(players, seed)[0]
    bot = ISMCTSBot(0, draw_policy=w)
    bot.evaluator(view(t, t.current))
    bot._draws(t)
    assert t.phase != DRAW  # the whole refill is played
    with pytest.raises(ValueError, match="4 weights"):
        ISMCTSBot(0, draw_policy=(1.0,))


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
        ISMCTSBot(0, leaf="grown")  # "learned" is an option since issue 35 (test_learned.py)
