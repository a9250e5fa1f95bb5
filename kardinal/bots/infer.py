"""What the other players' draws say about their hands: a belief for the determinizer.

A player refilling their hand (R5.1) chooses, card by card, a display card or the top of
the draw pile, after seeing their hand. So the choice says something about the hand: a
player who takes the pile while a display card lies there that would have made a pair
probably holds no card of that kind. :class:`DrawBelief` reads each other player's last
refill from the public history of a view (which display cards lay there at each of their
draws, and what they took) and weighs a possible hand by how likely a player who draws by
greedy's rule (:meth:`kardinal.bots.evaluate.Evaluator.choose_draw`) would have drawn
just so with it: the rule's draw with probability ``1 - epsilon`` plus an even share of
``epsilon`` over the draws there were (a player may draw otherwise, for a reason the
rule does not see). :class:`~kardinal.bots.determinize.Determinizer` then deals the
hidden cards by rejection sampling: a deal of the hands is kept with probability its
weight over the largest weight there could be.

Only the last refill of each player counts: every card it brought is still in their
hand (they have not played since), so the hand before each of those draws is the hand
now less the cards drawn after it. Which of the unknown cards of the hand came from the
pile in that refill is not known; the weight is the average over every way of choosing
them. The rule is applied to the board as the viewer sees it now (the players between
may have placed since), an approximation. A refill during which the draw pile was
formed again (R7.3) is not read.

Everything here is public: the history of a view, the display, the viewer's knowledge.
"""

from __future__ import annotations

import itertools
import random
from collections.abc import Sequence

from kardinal.rules.board import Board
from kardinal.rules.events import Drew, NewDrawPile, Revealed
from kardinal.rules.moves import DECK, Draw, Exchange, Move, Place
from kardinal.rules.state import DRAW, State
from kardinal.rules.view import ViewData

from .determinize import public_history
from .evaluate import Evaluator, Gains

__all__ = ["DrawBelief", "Refill", "last_refills"]

# one draw of a refill: the display before it (kind indices, sorted), whether the draw
# pile had a card, and what was taken (a kind index, -1 for the pile)
Step = tuple[tuple[int, ...], bool, int]
Refill = list[Step]


def last_refills(v: ViewData, board: Board) -> dict[int, Refill]:
    """Each other seat's draws of its last refill, oldest first (public history only).

    A seat whose last turn was an exchange or is not in the history has none, nor one
    whose refill happened before the draw pile was last formed again (R7.3) or saw it.
    """
    seat = v["seat"]
    history = public_history(v, board)
    display = [board.kind_index[k] for k in v["display"]]
    pile = v["deck_size"]
    out: dict[int, Refill] = {}
    done: set[int] = {seat} if seat is not None else set()
    complete: set[int] = set()
    for d in reversed(history):
        if len(done) == v["players"]:
            break
        # undo the decision's events, then its move: what lay there before it
        broken = False
        for e in reversed(d.events):
            if isinstance(e, Revealed):
                for kid in e.kinds:
                    display.remove(board.kind_index[kid])
                pile += len(e.kinds)
            elif isinstance(e, Drew):
                pile += 1
            elif isinstance(e, NewDrawPile):
                broken = True
        m: Move = d.move
        take = None
        if isinstance(m, Draw) and m.source != DECK:
            take = m.source
        elif isinstance(m, Exchange) and m.take != DECK:
            take = m.take
        if take is not None:
            display.append(board.kind_index[take])
        p = d.seat
        if broken:
            # the pile was formed again here: a refill it happened in is not read, and
            # what lay there before is not followed further
            if isinstance(m, Draw):
                out.pop(p, None)
            break
        if p in done:
            continue
        if isinstance(m, Draw):
            kind = -1 if m.source == DECK else board.kind_index[m.source]
            out.setdefault(p, []).insert(0, (tuple(sorted(display)), pile > 0, kind))
        else:  # the turn's main decision: the refill (if any) is complete
            done.add(p)
            if isinstance(m, Place) and p in out:
                complete.add(p)
    return {p: out[p] for p in sorted(complete)}  # a refill without its turn's start is not read


class DrawBelief:
    """A weight for each possible deal of the other hands (see the module doc).

    ``accept(hands, rng)`` is the rejection test :class:`Determinizer` takes: a deal is
    kept with probability its weight over the largest possible weight.
    """

    def __init__(self, v: ViewData, state: State, evaluator: Evaluator, epsilon: float = 0.25) -> None:
        if not 0.0 < epsilon <= 1.0:
            raise ValueError(f"epsilon must be in (0, 1], not {epsilon}")
        self.board = state.board
        self.state = state
        self.ev = evaluator
        self.epsilon = epsilon
        self.known = [list(k) for k in state.known]
        self.refills = last_refills(v, self.board)
        self._gains: dict[int, Gains] = {}
        self._step_memo: dict[tuple[int, int, tuple[int, ...]], float] = {}
        self._memo: dict[tuple[int, tuple[int, ...]], float] = {}
        self.best: dict[int, float] = {}
        for p, refill in self.refills.items():
            top = 1.0
            for display, pile, _ in refill:
                n = len(set(display)) + (1 if pile else 0)
                top *= 1.0 - epsilon + epsilon / n if n > 1 else 1.0
            self.best[p] = top
        self.top = 1.0
        for x in self.best.values():
            self.top *= x

    # -- the weight ---------------------------------------------------------------------

    def _step(self, p: int, j: int, hand: tuple[int, ...]) -> float:
        """How likely draw j of p's refill was with ``hand`` before it."""
        key = (p, j, hand)
        got = self._step_memo.get(key)
        if got is not None:
            return got
        display, pile, taken = self.refills[p][j]
        kinds = self.board.cards
        moves: list[Move] = [Draw(kinds[k].id) for k in sorted(set(display))]
        if pile:
            moves.append(Draw(DECK))
        if len(moves) < 2:
            like = 1.0
        else:
            t = self.state.with_hand(p, hand)
            t.display = sorted(display)
            t.phase = DRAW
            g = self._gains.get(p)
            if g is None:
                g = self._gains[p] = self.ev.gains(t, p)
            rule = self.ev.choose_draw(t, p, moves, g)
            assert isinstance(rule, Draw)
            chosen = DECK if taken < 0 else kinds[taken].id
            like = self.epsilon / len(moves) + (1.0 - self.epsilon if rule.source == chosen else 0.0)
        self._step_memo[key] = like
        return like

    def likelihood(self, p: int, hand: Sequence[int]) -> float:
        """How likely p's last refill was, given p holds ``hand`` now (0 < value <= 1)."""
        refill = self.refills.get(p)
        if not refill:
            return 1.0
        key = (p, tuple(hand))
        got = self._memo.get(key)
        if got is not None:
            return got
        # the cards of the hand nobody has located, one entry per card
        unknown = [k for k, c in enumerate(hand) for _ in range(c - self.known[p][k])]
        blind = [j for j, st in enumerate(refill) if st[2] < 0]
        if len(blind) > len(unknown):
            like = 0.0  # impossible with this hand (cannot happen for a consistent deal)
        else:
            total = 0.0
            ways = 0
            for order in itertools.permutations(range(len(unknown)), len(blind)):
                drawn = {j: unknown[i] for j, i in zip(blind, order, strict=True)}
                h = list(hand)
                like = 1.0
                for j in range(len(refill) - 1, -1, -1):
                    k = drawn[j] if j in drawn else refill[j][2]
                    h[k] -= 1
                    if h[k] < 0:  # a display card taken that this hand does not hold
                        like = 0.0
                        break
                    like *= self._step(p, j, tuple(h))
                total += like
                ways += 1
            like = total / ways
        self._memo[key] = like
        return like

    def accept(self, hands: list[list[int]], rng: random.Random) -> bool:
        """Keep this deal? With probability its weight over the largest possible one."""
        w = 1.0
        for p in self.refills:
            w *= self.likelihood(p, hands[p])
        return rng.random() * self.top < w
