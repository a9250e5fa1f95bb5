"""``greedy``: one move of look-ahead with a hand-written evaluation.

The bot sees only its view. It builds a state consistent with the view
(``determinize``; the hidden cards are random and are never looked at), then:

* a main decision: every placement is played on a copy and the position is scored by
  :meth:`Evaluator.estimate` -- the majorities as they stand (R9, counted for the
  intermediate scoring too while it is still to come), alliance majorities within the
  advisor limits (R10), chains and their potential (R11) -- as the bot's estimate
  minus half the best and half the mean of the others'. A pair left in hand (a joker
  for later, R4.3) earns a bonus and every card spent costs a little. An exchange is
  worth a discounted share of what the new hand would allow next turn, less the best
  placement available now; so the bot exchanges only when nothing good can be placed.
  In the final round an exchange is worth nothing.
* a draw decision (R5.1): the display card or the draw pile, whichever makes the best
  next placement most valuable (the draw pile by its expectation over the unseen cards).

``noise`` > 0 adds Gaussian noise to every move's worth (the ``easy`` level).
Deterministic given the seed.
"""

from __future__ import annotations

from dataclasses import dataclass

from kardinal.rules.board import Board
from kardinal.rules.moves import Exchange, Move, Place
from kardinal.rules.state import DRAW, State
from kardinal.rules.view import ViewData

from .base import Bot
from .evaluate import CARD_COST, PAIR_KEEP, Evaluator

EXCHANGE_DISCOUNT = 0.6


@dataclass
class Scored:
    """A position to decide in: the sampled state, the evaluator, the legal moves with their values."""

    state: State
    ev: Evaluator
    moves: list[tuple[float, Move]]


class EvaluatingBot(Bot):
    """A bot with the hand-written evaluation; forced moves and draws need no search."""

    _ev: Evaluator | None = None

    def evaluator(self, view: ViewData) -> Evaluator:
        if self._ev is None:
            self._ev = Evaluator(self._board(view))
        return self._ev

    def start(self, view: ViewData) -> tuple[State, list[Move], Move | None]:
        """A sampled state, the legal moves, and the answer when no search is needed."""
        s = self.sample(view)
        moves = s.legal_moves()
        if not moves:
            raise ValueError("the game is over: there is no move to choose")
        if len(moves) == 1:
            return s, moves, moves[0]
        if s.phase == DRAW:
            return s, moves, self.evaluator(view).choose_draw(s, s.current, moves)
        return s, moves, None

    def scored_start(self, view: ViewData) -> Move | Scored:
        """The answer when no search is needed, else the sampled state, the evaluator and
        every legal move with its one-move value."""
        s, moves, answer = self.start(view)
        if answer is not None:
            return answer
        ev = self.evaluator(view)
        return Scored(s, ev, score_moves(ev, s, s.current, moves))


class GreedyBot(EvaluatingBot):
    name = "greedy"

    def __init__(self, seed: int = 0, board: Board | None = None, noise: float = 0.0) -> None:
        super().__init__(seed, board)
        self.noise = noise

    def choose(self, view: ViewData) -> Move:
        started = self.scored_start(view)
        if not isinstance(started, Scored):
            return started
        scored = started.moves
        if self.noise:
            scored = [(v + self.rng.gauss(0.0, self.noise), m) for v, m in scored]
        best_v, best_m = scored[0]
        for v, m in scored[1:]:
            if v > best_v:
                best_v, best_m = v, m
        return best_m


def score_moves(ev: Evaluator, s: State, p: int, moves: list[Move]) -> list[tuple[float, Move]]:
    """Greedy worth of every main-phase move of seat p (the state is not changed)."""
    base = ev.relative(ev.estimate(s), p)
    hand = s.hands[p]
    out: list[tuple[float, Move]] = []
    best_place = 0.0
    exchanges: list[Exchange] = []
    for m in moves:
        if isinstance(m, Place):
            t = s.copy(history=False)
            t.play_trusted(m)
            v = ev.relative(ev.estimate(t), p) - base
            v -= CARD_COST * len(m.cards)
            left = list(hand)
            for kid in m.cards:
                left[ev.kind_index[kid]] -= 1
            v += PAIR_KEEP * sum(1 for x in left if x >= 2)
            best_place = max(best_place, v)
            out.append((v, m))
        elif isinstance(m, Exchange):
            exchanges.append(m)
        else:
            out.append((0.0, m))
    if exchanges:
        g = ev.gains(s, p)
        unseen = ev._unseen_for(s, p)
        total = sum(unseen)
        cache: dict[tuple[int, ...], float] = {}

        def hv(h: list[int]) -> float:
            key = tuple(h)
            if key not in cache:
                cache[key] = ev.hand_value(s, p, h, g)
            return cache[key]

        for m in exchanges:
            if s.final_round:
                out.append((-0.5, m))
                continue
            h = list(hand)
            h[ev.kind_index[m.discard]] -= 1
            if m.take == "deck":
                val = 0.0
                for k, cnt in enumerate(unseen):
                    if cnt:
                        h2 = h[:]
                        h2[k] += 1
                        val += cnt / total * hv(h2)
            else:
                h[ev.kind_index[m.take]] += 1
                val = hv(h)
            out.append((EXCHANGE_DISCOUNT * val - best_place, m))
    return out
