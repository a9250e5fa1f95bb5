"""Bots: they see only views (R13), answer legal moves, are deterministic given a seed.

Time budgets are checked through iteration counts, never through timed assertions.
"""

from __future__ import annotations

import functools
import math
import random
from typing import Any

import pytest
from conftest import LONG, burn

from kardinal.bots import BOTS, Bot, GreedyBot, ISMCTSBot, make_bot
from kardinal.bots.determinize import determinize
from kardinal.bots.evaluate import Evaluator
from kardinal.rules.moves import Draw, Move, Place
from kardinal.rules.state import DRAW, MAIN, State, new_game
from kardinal.rules.view import view

VIEW_KEYS = set(view(new_game(4, seed=1), 0))


def small_ismcts(seed: int) -> ISMCTSBot:
    return ISMCTSBot(seed, iterations=12, depth=2, root_k=4, k=3)


def play(bots: list[Bot], players: int, seed: int, check_view: bool = True) -> State:
    """A complete game; every move is checked by the rules (play validates)."""
    s = new_game(players, seed=seed)
    while not s.is_over:
        v = view(s, s.current)
        if check_view:
            assert set(v) == VIEW_KEYS
        s.play(bots[s.current].choose(v))
    return s


def mid_game(players: int = 4, seed: int = 3, main_decisions: int = 30) -> State:
    """A position some way into a game (greedy players), at a main decision (a fresh copy)."""
    return _mid_game(players, seed, main_decisions).copy()


@functools.cache
def _mid_game(players: int, seed: int, main_decisions: int) -> State:
    bots = [GreedyBot(i) for i in range(players)]
    s = new_game(players, seed=seed)
    done = 0
    while done < main_decisions or s.phase != MAIN:
        if s.phase == MAIN:
            done += 1
        s.play(bots[s.current].choose(view(s, s.current)))
    assert not s.is_over
    return s


class SpyBot(Bot):
    """Records what it is given and plays the first legal move."""

    def __init__(self, seed: int = 0) -> None:
        super().__init__(seed)
        self.seen: list[Any] = []

    def choose(self, v: dict[str, Any]) -> Move:
        self.seen.append(v)
        return self.legal_moves(v)[0]


def test_registry_has_every_level() -> None:
    for name in ("random", "greedy", "ismcts", "easy", "medium", "hard", "expert"):
        assert name in BOTS
        assert isinstance(make_bot(name, seed=1), Bot)
    with pytest.raises(ValueError, match="unknown bot"):
        make_bot("grandmaster")


def test_level_budgets() -> None:
    """medium answers within 0.5 s and hard within 2 s per decision (wall clock, R: issue 3)."""
    medium, hard = make_bot("medium"), make_bot("hard")
    assert isinstance(medium, ISMCTSBot) and isinstance(hard, ISMCTSBot)
    assert medium.time_limit is not None and medium.time_limit <= 0.5
    assert hard.time_limit is not None and hard.time_limit <= 2.0


def test_search_levels_are_iteration_budgets() -> None:
    """A level is its iteration budget (reproducible), stronger levels search more; the
    wall clock is a safety limit at the level's advertised seconds."""
    from kardinal.bots import LEVEL_DEPTH, LEVEL_ITERATIONS, LEVEL_LEAF, LEVEL_STEPS, LEVELS

    budgets = []
    for name in ("medium", "hard", "expert"):
        bot = make_bot(name)
        assert isinstance(bot, ISMCTSBot)
        assert (bot.iterations, bot.steps) == (LEVEL_ITERATIONS.get(name), LEVEL_STEPS.get(name))
        assert (bot.depth, bot.leaf, bot.root) == (LEVEL_DEPTH[name], LEVEL_LEAF[name], "ucb")
        assert bot.time_limit == LEVELS[name].seconds
        # the work: main decisions played, at most depth + 1 an iteration (a step budget counts them)
        budgets.append(bot.steps if bot.steps is not None else bot.iterations * (bot.depth + 1) if bot.iterations else 0)
    assert 0 < budgets[0] < budgets[1] < budgets[2]
    assert set(LEVEL_ITERATIONS).isdisjoint(LEVEL_STEPS)  # one budget a level
    assert LEVELS["medium"].rank < LEVELS["hard"].rank < LEVELS["expert"].rank


def test_bots_receive_only_views_in_a_tournament_game() -> None:
    """R13: the tournament hands each bot view(state, seat) of its own seat, nothing else."""
    from kardinal.bots import tournament

    spies = [SpyBot(i) for i in range(3)]
    saved = dict(BOTS)
    it = iter(spies)
    BOTS["spy"] = lambda seed, board: next(it)
    try:
        tournament.play_game(["spy", "spy", "spy"], 3, game=0, seed=5)
    finally:
        BOTS.clear()
        BOTS.update(saved)
    for seat, spy in enumerate(spies):
        assert spy.seen
        for v in spy.seen:
            assert isinstance(v, dict) and set(v) == VIEW_KEYS
            assert v["seat"] == v["current"] == seat
            assert sum(v["hand"].values()) == v["hand_sizes"][seat]
            assert "hands" not in v and "deck" not in v and "seed" not in v


@pytest.mark.parametrize("players", [3, 4, 5])
def test_greedy_and_easy_play_legal_games(players: int) -> None:
    bots: list[Bot] = [GreedyBot(i) if i % 2 == 0 else make_bot("easy", seed=i) for i in range(players)]
    s = play(bots, players, seed=10 + players)
    assert s.is_over and s.winners


@pytest.mark.parametrize("players", [3, 4, 5])
def test_ismcts_plays_legal_games(players: int) -> None:
    bots: list[Bot] = [small_ismcts(i) if i < 2 else GreedyBot(i) for i in range(players)]
    s = play(bots, players, seed=20 + players)
    assert s.is_over and s.winners


@pytest.mark.skipif(not LONG, reason="KARDINAL_LONG=1")
@pytest.mark.slow
@pytest.mark.parametrize("seed", range(5))
def test_ismcts_many_games_long(seed: int) -> None:
    for players in (3, 4, 5):
        s = play([small_ismcts(seed * 10 + i) for i in range(players)], players, seed=seed)
        assert s.is_over


@pytest.mark.parametrize("name", ["random", "greedy", "easy", "ismcts-small"])
def test_bots_are_deterministic_given_seed(name: str) -> None:
    def build(seed: int) -> Bot:
        return small_ismcts(seed) if name == "ismcts-small" else make_bot(name, seed=seed)

    games = [play([build(7), build(8), GreedyBot(9), GreedyBot(10)], 4, seed=99, check_view=False) for _ in range(2)]
    assert games[0].history == games[1].history
    assert games[0].scores == games[1].scores


def test_choice_depends_only_on_the_view() -> None:
    """Two states with the same view for the seat to act (other hands and the pile differ) get the same move."""
    s = mid_game()
    seat = s.current
    v = view(s, seat)
    other = determinize(v, random.Random(12345))
    assert other.key() != s.key()  # hidden cards differ
    v2 = view(other, seat)
    v2["history"] = v["history"]  # the determinized state keeps no history
    assert v2 == v
    for make in (lambda: GreedyBot(4), lambda: small_ismcts(4)):
        assert make().choose(v) == make().choose(v2)


def test_ismcts_iteration_cap_is_the_budget() -> None:
    s = mid_game()
    bot = ISMCTSBot(1, iterations=40, depth=3)
    move = bot.choose(view(s, s.current))
    assert move in s.legal_moves()
    assert bot.last_iterations == 40
    assert sum(visits for visits, _ in bot.last_root.values()) == 40
    assert bot.last_root[move][0] == max(visits for visits, _ in bot.last_root.values())


def test_ismcts_step_budget_stops_at_the_first_iteration_reaching_it() -> None:
    """A step budget (main decisions played in the tree and the rollouts, plus one per
    iteration) ends the search with the iteration that reaches it: the same search as an
    iteration cap of the iterations it ran, move, visits and values alike."""
    s = mid_game()
    v = view(s, s.current)
    bot = ISMCTSBot(3, iterations=None, steps=600, depth=6)
    move = bot.choose(v)
    assert move in s.legal_moves()
    assert bot.last_steps >= 600
    same = ISMCTSBot(3, iterations=bot.last_iterations, depth=6)
    assert same.choose(v) == move
    assert same.last_root == bot.last_root
    assert same.last_steps == bot.last_steps
    one_less = ISMCTSBot(3, iterations=bot.last_iterations - 1, depth=6)
    one_less.choose(v)
    assert one_less.last_steps < 600
    capped = ISMCTSBot(3, iterations=10, steps=600, depth=6)  # the iteration cap still holds
    capped.choose(v)
    assert capped.last_iterations == 10 and capped.cut_short == 0
    with pytest.raises(ValueError):
        ISMCTSBot(1, iterations=None, steps=0)


def test_ismcts_step_budget_gives_short_rollouts_more_iterations() -> None:
    """Near the end rollouts stop at the game's end, so the same step budget runs more
    iterations there than early in the game (the time per decision stays level)."""
    early = mid_game(main_decisions=2)
    late = mid_game(main_decisions=40)
    its = []
    for s in (early, late):
        bot = ISMCTSBot(5, iterations=None, steps=3000, depth=16)
        bot.choose(view(s, s.current))
        its.append(bot.last_iterations)
    assert its[0] <= 3000 // (16 + 1) + 1  # early, every rollout plays its 16 decisions
    assert its[1] > 2 * its[0]


def test_ismcts_sequential_halving_at_the_root() -> None:
    """root="halving": rounds of equal samples per move still in the race (each hidden deal
    played behind every one of them), the better half kept after each round; the move is
    the best mean of the last round. Deterministic given the seed."""
    s = mid_game()
    v = view(s, s.current)
    bot = ISMCTSBot(2, iterations=None, steps=4000, depth=4, root="halving")
    move = bot.choose(v)
    assert move in s.legal_moves()
    assert bot.last_steps >= 4000
    visits = sorted({n for n, _ in bot.last_root.values()})
    assert len(bot.last_root) == 10 and len(visits) == 4  # 10 moves, 4 rounds: 10, 5, 3, 2 in the race
    finalists = [m for m, (n, _) in bot.last_root.items() if n == visits[-1]]
    assert len(finalists) == 2 and move in finalists
    assert bot.last_root[move][1] == max(bot.last_root[m][1] for m in finalists)
    again = ISMCTSBot(2, iterations=None, steps=4000, depth=4, root="halving")
    assert again.choose(v) == move and again.last_root == bot.last_root
    capped = ISMCTSBot(2, iterations=100, depth=4, root="halving")  # an iteration budget shares out too
    capped.choose(v)
    assert 100 <= capped.last_iterations < 100 + 10
    with pytest.raises(ValueError):
        ISMCTSBot(1, root="thompson")


def test_ismcts_time_mode_runs_iterations() -> None:
    s = mid_game()
    bot = ISMCTSBot(1, iterations=None, time_limit=0.05)
    assert bot.choose(view(s, s.current)) in s.legal_moves()
    assert bot.last_iterations >= 1
    with pytest.raises(ValueError):
        ISMCTSBot(1, iterations=None, time_limit=None)


def test_draws_and_forced_moves_need_no_search() -> None:
    s = mid_game()
    bot = ISMCTSBot(1, iterations=500)
    # find a draw decision
    while s.phase != DRAW:
        s.play(GreedyBot(0).choose(view(s, s.current)))
    move = bot.choose(view(s, s.current))
    assert isinstance(move, Draw) and move in s.legal_moves()
    assert bot.last_iterations == 0


def test_ismcts_searched_draws() -> None:
    """draw_steps: a draw decision (R5.1) is searched instead of answered by greedy's rule.
    The draws are the root's moves, compared by sequential halving with common random
    numbers within the step budget (three draws: two rounds, the better two in the second);
    the move is the best mean of the last round. Deterministic given the seed."""
    s = mid_game()
    while s.phase != DRAW:
        s.play(GreedyBot(0).choose(view(s, s.current)))
    v = view(s, s.current)
    draws = s.legal_moves()
    assert len(draws) == 3 and all(isinstance(m, Draw) for m in draws)
    bot = ISMCTSBot(2, iterations=None, steps=1000, depth=4, draw_steps=3000)
    move = bot.choose(v)
    assert move in draws
    assert 3000 <= bot.last_steps < 3000 + 3 * 40  # the budget, and at most one round of samples past it
    assert set(bot.last_root) == set(draws)
    visits = sorted({n for n, _ in bot.last_root.values()})
    assert len(visits) == 2 and visits[0] > 0
    finalists = [m for m, (n, _) in bot.last_root.items() if n == visits[-1]]
    assert len(finalists) == 2 and move in finalists
    assert bot.last_root[move][1] == max(bot.last_root[m][1] for m in finalists)
    again = ISMCTSBot(2, iterations=None, steps=1000, depth=4, draw_steps=3000)
    assert again.choose(v) == move and again.last_root == bot.last_root
    # a main decision is searched as before
    main = mid_game()
    assert bot.choose(view(main, main.current)) in main.legal_moves() and bot.last_steps >= 1000
    with pytest.raises(ValueError):
        ISMCTSBot(1, draw_steps=0)


def test_single_legal_move_is_answered_without_search() -> None:
    s = mid_game()
    while s.phase != DRAW:
        s.play(GreedyBot(0).choose(view(s, s.current)))
    # move the draw pile and one display card to the discard pile: one legal draw is left
    burn(s, 0)  # the draw pile, as if drawn and played
    for k in s.display[1:]:
        s.discard[k] += 1
    s.display = s.display[:1]
    assert len(s.legal_moves()) == 1
    for bot in (ISMCTSBot(1, iterations=500), GreedyBot(1)):
        assert bot.choose(view(s, s.current)) == s.legal_moves()[0]
    assert ISMCTSBot(1).last_iterations == 0


def test_greedy_takes_points_it_can_see() -> None:
    """A placement that makes a majority is preferred to an exchange when one is there (R9)."""
    s = mid_game(main_decisions=12)
    moves = s.legal_moves()
    m = GreedyBot(0).choose(view(s, s.current))
    assert m in moves
    if any(isinstance(x, Place) for x in moves):
        ev = Evaluator(s.board)
        from kardinal.bots.greedy import score_moves

        scored = score_moves(ev, s, s.current, moves)
        assert max(v for v, x in scored) == next(v for v, x in scored if x == m)


def test_greedy_beats_random() -> None:
    """Seeded, so not flaky: greedy wins most of a small rotated tournament against random."""
    from kardinal.bots.tournament import run_tournament

    stats, results = run_tournament(["greedy", "random", "random", "random"], 8, 4, seed=3, workers=1)
    assert len(results) == 8
    assert stats[0].wins >= 6
    assert stats[0].mean_score > max(st.mean_score for st in stats[1:])


def test_no_move_in_a_finished_game() -> None:
    s = play([GreedyBot(i) for i in range(3)], 3, seed=4, check_view=False)
    for bot in (GreedyBot(0), small_ismcts(0)):
        with pytest.raises(ValueError, match="game is over"):
            bot.choose(view(s, 0))


def test_ismcts_reports_margins_per_root_move() -> None:
    """last_margin: per searched root child, the mean estimated point margin of the bot's seat."""
    s = mid_game()
    bot = ISMCTSBot(2, iterations=60, depth=2)
    bot.choose(view(s, s.current))
    assert bot.last_margin
    assert set(bot.last_margin) == {m for m, (visits, _) in bot.last_root.items() if visits > 0}
    for m, margin in bot.last_margin.items():
        assert -200.0 < margin < 200.0
        visits, reward = bot.last_root[m]
        assert visits > 0 and 0.0 <= reward <= 1.0


def test_ismcts_reward_weighs_the_win_against_the_margin() -> None:
    """A finished game's reward: (1 - win_weight) times the logistic of the seat's margin over
    the best other seat plus win_weight times its share of the win (0.5 by default)."""
    s = new_game(4, seed=3)
    bots = [GreedyBot(i) for i in range(4)]
    while not s.is_over:
        s.play(bots[s.current].choose(view(s, s.current)))
    shares = [1.0 / len(s.winners or []) if p in (s.winners or []) else 0.0 for p in range(4)]
    for ww in (0.0, 0.5, 1.0):
        bot = ISMCTSBot(0, win_weight=ww, scale=6.0)
        bot.evaluator(view(s, 0))
        rewards, margin = bot._rewards(s, 0)
        for p in range(4):
            best_other = max(x for q, x in enumerate(s.scores) if q != p)
            logistic = 1.0 / (1.0 + math.exp(-(s.scores[p] - best_other) / 6.0))
            assert rewards[p] == pytest.approx((1.0 - ww) * logistic + ww * shares[p])
        assert margin == s.scores[0] - max(s.scores[1:])
    for bad in (-0.1, 1.5):
        with pytest.raises(ValueError, match="win_weight"):
            ISMCTSBot(0, win_weight=bad)
