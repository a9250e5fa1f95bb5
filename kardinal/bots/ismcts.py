"""``ismcts``: single-observer information-set Monte Carlo tree search.

After Cowling, Powley & Whitehouse, "Information Set Monte Carlo Tree Search" (IEEE
TCIAIG 4(2), 2012), SO-ISMCTS. The bot sees only its view. Each iteration:

1. *Determinize*: ``kardinal.bots.determinize.determinize`` deals the cards the bot cannot
   locate (other hands beyond the display cards they are known to hold, the draw pile)
   at random, consistently with its hand, the public discard pile, the removed kinds
   and the display cards each opponent took (``view["known"]``). The future chance
   (draw-pile order, the reshuffle of R7.3) is fixed by that sample.
2. *Select / expand* in one tree shared by all samples, keyed by the sequence of main
   decisions (place, exchange, pass) from the bot's information set. A child is
   *available* when its move is among the candidate moves of the current sample; the
   selection is UCB1 with availability counts (``mean + c * sqrt(ln(avail) / visits)``),
   so moves that are rarely possible are not starved. Candidates are pruned: at the
   root the ``root_k`` best moves by the ``greedy`` evaluation; below it the ``k`` best
   by the cheap gain tables of :mod:`kardinal.bots.evaluate` for the player to move.
   Untried candidates are expanded best-first. Draw decisions (R5.1) are not tree
   nodes: a fixed cheap rule plays them (take a display card that makes a pair, else
   the draw pile; or the weighed rule of ``draw_policy``), like chance; the bot's own
   draw decisions follow greedy's rule, or are searched with ``draw_steps`` (see the
   seventh round below).
3. *Roll out* with an epsilon-greedy policy over the cheap move scores (not uniform
   random; ``rollout="lookahead"``: greedy's choice of the 3 best by them;
   ``rollout="learned"``: the same choice by the learned value, ``learned.py``;
   ``rollout="softmax"``: one of the ``k`` best drawn with probability proportional to
   ``exp(score / temperature)``; ``policy`` weighs the parts of the cheap score) for
   ``depth`` main decisions, then score the position with
   :meth:`Evaluator.estimate` (a truncated rollout; a finished game is scored exactly).
4. *Back-propagate*: every seat's reward is in [0, 1]: a logistic of its estimated
   margin over the best other seat, mixed with its share of the win when the game ended
   (``win_weight`` of the share, half by default). Each node adds the reward of the seat
   that moved into it.

Defaults: ``exploration`` 0.7, ``depth`` 8, ``root_k`` 10, ``k`` 5, ``epsilon`` 0.1,
``scale`` 6 points, and ``prior_visits`` 10: each root child starts with 10 virtual
visits worth greedy's value of the move (prior knowledge, which steadies the choice when
a wall-clock budget on a loaded machine allows only a few hundred iterations). The first
settings (chosen by 40-game tournaments at 300 iterations) rolled out 4 main decisions
with epsilon 0.25; they are kept as :data:`CLASSIC` (``ISMCTSBot(seed, **CLASSIC)``,
pinned by the tests). Issue 14 re-tuned them on the same deals (paired), 120 four-player
games against three ``greedy`` per setting at 300 iterations, seats rotated: the classic
settings won 50.0% (95% block-bootstrap interval 42-58%); rollouts of 0 decisions (the
estimate at the leaf) 30.8%, of 8 decisions 56.2%, of 8 with epsilon 0.1 55.8%, of 16
with epsilon 0.1 60.0% (paired difference to classic +10 points, interval -1 to +22);
epsilon 0 52.5%, exploration 0.3 44.2%, scale 3 41.7%, scale 12 50.8%, 50 prior visits
49.6%. The search's strength comes from its rollouts more than from its iterations:
deeper rollouts cost time per iteration (rollouts of 8 give about half the iterations per
second), and the levels trade iterations for them. At the hard level's time (at most
1.5 s a main decision on the loaded reference machine) rollouts of 8 with epsilon 0.1 at
1,200 iterations won 61.8% of 200 games against three greedy (interval 55-68%, 1.26 s a
main decision), rollouts of 16 at 500 iterations 53.8% of 80 (44-63%). On the first 120
of those deals the classic settings at 3,000 iterations won 58.3% (48-68%, 1.32 s)
against 61.7% for the new ones: a paired difference of +3.3 points (-7 to +14), within
the noise (an earlier run of the classic hard level had won 51% of 120). So the deeper
rollouts were ahead at 300 iterations (by 6 to 10 points, each within its interval) and level at the hard budget: better is not established.

A second round of issue 14 looked at the quality of the search rather than its
parameters, measured the same way and paired on the deals of tournament seed 7 (four
players, three ``greedy``, seats rotated, 95% block-bootstrap intervals). At 300
iterations the defaults won 56.7% of 120 games (46-68%); with ``leaf="fitted"`` (below)
57.6% (51-65%), a paired difference of +1.0 points (-9 to +12); ``k`` 3 52.1% (-4.6, -19
to +10); ``k`` 8 54.6% (-2.1, -12 to +8); a rollout policy closer to greedy's (of the 3
moves of the highest cheap score, the placement greedy values most, played on a copy and
valued by :meth:`Evaluator.estimate`: it picked greedy's move in 89% of the main
decisions of 40 greedy games, the cheap scores alone in 77%) 57.1% (+0.4, -11 to +12) at
2.6 times the time per decision, so it was not kept. At the hard budget (1,200
iterations, 1.5 s limit) on the same 200 deals and seats the defaults won 56.0% (50-62%,
1.10 s a main decision) and the fitted leaf 60.5% (54-67%, 0.98 s; the load of the
machine varied between the runs, the benchmark's rates are equal: 1,381 against 1,309
iterations/s, process time, one run): a paired difference of +4.5 points (-2.5 to +12).
120 more deals (games 200-319 of seed 7) gave 60.4% against 57.9%; over all 320 games
60.5% (56-66%, 0.94 s) against 56.7% (52-62%, 1.02 s), +3.8 points paired (-2.5 to
+10). Ahead, but within the noise, and short of 65%: the default stays ``"plain"``.

A third round gave the hard level all the time its limit allows. The tournaments now count
the decisions the time limit ended early (``cut``). With the fitted leaf, on the deals of
seed 77 (200 games, three greedy, two tournament processes on the 2-core machine): 1,600
iterations won 67.0% (60-74%, 1.14 s a main decision, at most 1.72 s) but the limit ended
266 of 2,123 decisions (12.5%); 1,400 iterations won 61.5% (55-68%, 1.05 s, at most
1.86 s) with 150 of 2,124 ended (7%): +5.5 points for 1,600, within the noise. One game's
decisions alone (no tournament beside it) took 1.05 s on average at 1,600, at most 1.71 s;
at 1,400 1.03 s, at most 1.47 s. ``expert`` (4,000 iterations, fitted leaf) won 25.8% of
120 games against three such ``hard`` (18-34%; an even share is 25%; 2.88 s a main
decision): in this search more iterations no longer buy strength. The levels ``hard``
and ``expert`` search with the fitted leaf since, ``hard`` 1,400 iterations (the most
that fits its 1.5 s on this machine when it is not also running a tournament); the
default of this class stays ``"plain"`` (the pinned data of both is in the tests).

A fourth round gave ``expert`` deeper rollouts instead of more of them: 1,800 iterations
of 16 main decisions (fitted leaf) in about the time of 4,000 of 8 (2.28 s a main decision
on average, at most 4.25 s, two games at once). Against three ``hard`` it won 34.3% of 144
games (27-41%; 92 games on the deals of seed 77 and 52 of seed 78); on the 92 deals of
seed 77 that both played, 34.6% against 25.0% for the 4,000 iterations of 8, a paired
difference of +9.6 points (-4 to +22). Rollouts of 12 for ``hard`` (950 iterations, the
same time) won 57.8% of 200 against three ``greedy`` (51-65%), not more than rollouts of 8
(61.5%), so ``hard`` keeps them. 64 more games on the deals of seed 79 gave that expert
27.3% (17-38%): 32.2% of 208 in all, short of 35%.

A fifth round compiled this module, the evaluator and the determinizer with mypyc
(:mod:`kardinal.bots.native`): the same moves (the tests play both), 1.46 times the
iterations a second (hard's settings on the benchmark's positions: 1,464 against 2,132,
process time, median of three pairs run alternately). The levels spend it on iterations:
``hard`` 2,400 (1.07 s a main decision on average, at most 1.43 s, two games at once),
which won 68.0% of 200 games against three ``greedy`` (62-74%). ``expert`` with 3,000
rollouts of 16 (2.24 s, at most 3.18 s) won 20.1% of 72 games against three such ``hard``
(11-31%); with 4,500 (3.59 s, at most 5.10 s: over its limit) 32.3% of 48 on the same deals
(21-43%; paired +14.6 points); it had 4,000 for a while, never measured in games.

A sixth round gave ``expert`` rollouts of 32 decisions, a budget of work instead of
iterations (``steps``, below) and a different choice at the root. In a pilot with two
experts and two ``hard`` in every game (40 games, seed 90), 4,500 iterations of 32 won
35.0% (23-48%) against 20.0% (10-30%) for 7,000 of 16 in about the same time. With 130,000
steps of rollouts of 32 (3.20 s a main decision on average, at most 5.02 s; the limit ended
6 of 2,023) it won 29.5% of 200 games against three ``hard`` (22-37%, seed 91), and 200
more (seed 92, on a slower day: 3.58 s, at most 5.28 s, 73 of 2,045 ended) gave 30.3%
(23-37%): 29.9% of 400 (25-35%). Its rating by finishing order over the 400, 1,514
(1,495-1,535), was no better than theirs (1,488-1,507): its time went into more and deeper
rollouts, but its choices stayed as noisy as ``hard``'s. The same
search run twice from one position chose the same move in only 61% of 41 positions of
``hard`` games. So ``root="halving"`` replaces UCB at the root by sequential halving
(Karnin, Koren & Somekh, ICML 2013, as in Gumbel MuZero's root): in each of
ceil(log2(moves)) rounds the budget left is shared out evenly, every hidden deal is played
out once behind each move still in the race with the same random stream (common random
numbers: the deal and most of the chance cancel when two moves are compared), and the
better half by mean reward stays; the move is the best mean of the last round. Below the
root the tree is searched as before. On those 41 positions it chose the same move twice in
71% (UCB 61%) and agreed with a UCB search of four times the budget in 67% of its searches
(UCB 61%). In games it was no better: with 130,000 steps it won 31.0% of the first 100
games of seed 91 against three ``hard`` (24-39%, rating 1,537), and on the 101 games both
played, 31.7% against 33.2% for UCB, a paired difference of -1.5 points (-16 to +13). So
``expert`` keeps UCB; ``root="halving"`` stays an option of this class.

A seventh round searched what ``hard`` does not: ``draw_steps`` makes the draw decisions
(R5.1) a search of their own instead of greedy's rule. The draws are the root's moves,
compared by sequential halving with common random numbers (as above) within a budget of
steps; the rest of the turn's draws follow the rollouts' rule, and the tree below is searched
as for a main decision. With 20,000 steps a draw (about 0.55 s) the search was steady (the
same draw twice in 17 of 20 positions) and differed from the rule in 11 of 40 searches, but
``expert`` with it won only 18.4% of the first 38 games of seed 92 against three ``hard``,
against 35.5% without it on the same games (paired -17.1 points, -37.5 to +4.4); the run was
stopped there. A likely reason (not measured): the rollouts judge a card by how players of
the cheap policy go on to use it, a worse judge than the rule's direct look at the hand. It
stays an option (None, the default: the rule).

An eighth round gave ``expert`` better rollouts instead of more: ``rollout="lookahead"``
plays, of the 3 moves of the highest cheap score, the placement greedy values most (played
on a copy; it is :meth:`_lookahead_move`, about 3.3 times the time a step). With 40,000
steps (about the time of the present 130,000, one game alone) it won 28.3% of the first 145
games of seed 92 against three ``hard`` (21-37%, rating 1,513), against 32.1% for the
present ``expert`` on the same games (paired -3.8 points, -14.5 to +6.1); two games at once
it took 3.72 s a main decision on average, and the 5 s limit ended 354 of its 1,477. Stopped
there: it could no longer reach 35% of 200.

A ninth round asked what the hidden cards are worth to this search: ``kardinal tournament
--told 1`` tells the present ``expert`` every other player's hand (its determinizations then
deal only the draw pile, whose order stays hidden). It won 36.7% of the 200 games of seed 92
against three ``hard`` (30-44%, rating 1,551), against 30.3% without the hands on the same
games (paired +6.5 points, -4.0 to +17.0). Better inference of the hands (from what the
others drew and played) can win back only part of those points. The 1,185 games of these
experiments (``hard`` and ``expert``, 100 deals), replayed, say little for a learned value:
on held-out deals the fitted leaf's margin over the best other seat picks the winner in 39%
of the positions before the intermediate scoring (57% after it), a ridge regression on
twice as many features of the same parts 39% (58%), gradient-boosted trees on the raw
position (pieces per country, hands, supplies, scores) 35% (54%; 50 deals to learn from are
too few for them). Before the intermediate scoring the fitted leaf's margins are too wide
by a factor of about 2.6 (least squares gives 0.38 times them), a calibration that would
matter to a shallower search than ``expert``'s: those games lasted 40 main decisions
(median), the intermediate scoring came after 19, so rollouts of 32 end after it and mostly
at the end of the game, scored exactly.

A tenth round inferred the hands instead of being told them: ``infer`` (the ``epsilon`` of
:class:`~kardinal.bots.infer.DrawBelief`) deals the other hands by how likely each player's
last refill (R5.1) was with them, for a player who draws by ``greedy``'s rule (``hard``
does). On positions of 10 of the seed-92 games it dealt an opponent's true hand in 22.5%
of the samples, against 15.1% for uniform deals; the rule applied to the board as it is
now reproduced the true hand's draws for 94% of the refills of the player just before the
viewer, 83% and 75% two and three seats back (the board has changed since). With
``infer=0.25`` ``expert`` won 27.0% of the 200 games of seed 92 against three ``hard``
(21-33%, rating 1,516), against 30.3% without on the same games: paired -3.3 points (-12.8
to +6.2). The rejection sampling cost about 16% more time an iteration (4.19 s a main
decision, the 5 s limit ending 475 of 2,027). It stays an option (None, the default). The
``expert`` of issue 14's target (35% of 200 games against three ``hard``) is still to be
found.

An eleventh round changed what the search's simulated players do, with options whose
defaults play as before: ``policy`` weighs the parts of the cheap move score
(:data:`POLICY_FEATURES`), ``draw_policy`` weighs a draw rule (:data:`DRAW_FEATURES`),
``rollout="softmax"`` draws one of the ``k`` best moves by their scores, and
``win_weight`` weighs the win against the margin in the reward. A conditional logit fitted
to the main decisions of 40 games of ``hard`` gave the policy (1.0, 0.978, 1.382, 0.201,
1.177, 1.235, 0.253, -0.578): it predicted ``hard``'s move in 41.6% of held-out decisions,
against 37.7% for the hand-set score. Measured with a small search (``steps`` 10,000,
``depth`` 32, the fitted leaf, about 0.43 s a main decision), 200 four-player games a
test, seats rotated, paired with the plain one in the same games (95% block-bootstrap
intervals): among searches of its own kind, the fitted policy +1.6 points (-5.7 to +8.8),
a fitted draw rule -1.3 (-11.5 to +9.0), softmax rollouts -6.2 (-17.5 to +4.5), epsilon 0
+5.5 (-4.8 to +15.0) and 0.03 +4.5 and +0.3 in two runs. Against two ``hard`` in the
same games the fitted policy won 28.2% and the plain one 17.0% on seed 93 (paired +11.2
points, +2.7 to +20.5), but 20.7% against 27.5% on seed 94 (-6.8, -16.0 to +2.5; a
slower run, the ``hard`` at 1.29 s a main decision, their 1.5 s limit ending 1,754 of
their decisions): +2.2 over both (-4.3 to +8.8). A first result that did not replicate; nothing here is measurably
better, and ``expert`` is unchanged.

``leaf`` chooses the evaluation at the end of a rollout: ``"plain"`` is
:meth:`Evaluator.estimate` (the hand-written one greedy uses), ``"fitted"`` is
:meth:`Evaluator.leaf_estimate`, the same parts of the position (standing majorities,
alliances, chains) plus pieces and cards left and the seat's place in the turn order,
with weights per player count and stage fitted by least squares to the final scores of
2,400 games of greedy bots (``python -m kardinal.research.fit_estimate``). On held-out games
it predicts the final margin better (four players: R² 0.32 against 0.26; in the final
round 0.92 against 0.81, the winner 90% against 80% of the time), but before the
intermediate scoring neither says much (R² 0.02 and -0.05): that is where the rollouts
do the work, which is why their depth mattered. ``"learned"`` is
:class:`~kardinal.bots.learned.ValueModel` (``value``, the shipped model by default): a
model per stage trained with scikit-learn on greedy games by
``python -m kardinal.research.train_value`` on the fitted leaf's terms and the raw board
(see ``learned.py`` and the research docs for its measured strength).

The move played is the most visited root child. After a search, ``last_root`` holds per
root child (visits, mean reward in [0, 1]) and ``last_margin`` the mean over the
iterations through it of the bot's estimated point margin (its estimated final score
minus the best other seat's, from :meth:`Evaluator.estimate` at the rollout's end, or
the true scores when the game ended there); the prior's virtual visits count in neither.

Budgets: ``iterations`` (a cap), ``steps`` (a cap on the work: the main decisions played
in the tree and the rollouts, plus one per iteration for its sample and leaf, summed over
the iterations; the search ends with the iteration that reaches it) and ``time_limit``
(wall-clock seconds, checked between iterations; at least one iteration is run). The time
of an iteration is about proportional to its steps (a least-squares fit over positions
from the start to the end of 4-player games gave no cost of its own per iteration), so a
step budget costs about the same time early and late in a game, where rollouts stop at
the game's end and an iteration is a fraction of an early one; an iteration budget sized
for the slowest decisions leaves the late ones idle. With a cap that is reached before
the time limit the bot is deterministic given its seed. Draw decisions use ``greedy``'s
draw rule, and a single legal move is answered at once.

Speed (the same moves as the plain version, pinned by ``tests/test_bot_pinned.py``): the
public position is built once per decision and only the hidden cards are dealt per
iteration (:class:`Determinizer`); moves are scored by blocks (a country, a card set, one
or two pieces) from memoised per-country gain tables, so a rollout step finds its greedy
move without building the legal moves, and a tree node lists only the blocks that can
hold one of its ``k`` candidates, remembering them per hand, display and pile; the
evaluator memoises what depends on a few rows of the board (cloister and alliance
points, chains, site bonuses). ``tests/test_bot_fast.py`` checks every fast path
against the slow, obvious one.
"""

from __future__ import annotations

import math
import time
from typing import Any

from mypy_extensions import mypyc_attr

from kardinal.rules.board import Board
from kardinal.rules.moves import DECK, Draw, Exchange, Move, Pass, Place
from kardinal.rules.scoring import win_shares
from kardinal.rules.state import DRAW, State
from kardinal.rules.view import ViewData

from .determinize import Determinizer
from .evaluate import AdvisorTable, Evaluator
from .greedy import EvaluatingBot, Scored
from .infer import DrawBelief
from .learned import ValueModel, default_model

__all__ = ["ISMCTSBot", "CLASSIC", "POLICY", "POLICY_FEATURES", "DRAW_FEATURES"]

EXCHANGE_WORTH = 0.4  # cheap score of an exchange in rollouts / candidate lists

# the cheap move score's weights (ISMCTSBot's ``policy``), in this order: the cloister
# majority gain, the chain bonus of the sites, the advisor gain (the gain tables of
# evaluate.py), the cost of the cards spent (a factor on CARD_COST a card), the pairs kept
# (a factor on PAIR_KEEP a pair), a bonus for two pieces, a bonus for three cards, and the
# worth of an exchange (before the final round; 0 in it). POLICY is the hand-set score.
POLICY_FEATURES = ("cloister", "site", "advisor", "cards", "pairs", "two", "three", "exchange")
POLICY: tuple[float, ...] = (1.0, 1.0, 1.0, 1.0, 1.0, 0.0, 0.0, EXCHANGE_WORTH)
# the draw rule of the search's simulated players as weights (ISMCTSBot's ``draw_policy``;
# None: the cheap rule, a display card making a pair, else the pile): a display card is
# worth ``pair`` if it makes a pair, ``triple`` more if it makes three of a kind, and
# ``value`` times the best placement of one piece it allows (the cheap score of the seat
# drawing, 0 if none); the draw pile is worth ``pile``; the highest is drawn (on a tie the
# pile, then the display card of the lower kind)
DRAW_FEATURES = ("pile", "pair", "triple", "value")

# the settings before issue 14's strength work (shorter, noisier rollouts): ISMCTSBot(seed, **CLASSIC)
CLASSIC: dict[str, Any] = {"depth": 4, "epsilon": 0.25}


# a block of placements: (best cheap score, country, cards, one or two pieces, the table
# values to list its pieces, card cost, pairs kept)
_Block = tuple[float, str, tuple[str, ...], int, tuple[Any, ...], float, float]
# a country's placement values for the seat to act: (best one-piece value, best two-piece
# value, country id, what lists its pieces)
_Country = tuple[float, float, str, tuple[Any, ...]]


class _Node:
    __slots__ = ("player", "children", "visits", "avail", "total", "cands", "tables")

    def __init__(self, player: int) -> None:
        self.player = player
        self.children: dict[Move, _Node] = {}
        self.visits = 0
        self.avail = 0
        self.total = 0.0
        # candidate moves by what they depend on beyond the node's own position (see _iterate)
        self.cands: dict[tuple[Any, ...], list[Move]] | None = None
        self.tables: dict[int, dict[int, _Country]] = {}  # by scoring stage (see _iterate)


@mypyc_attr(allow_interpreted_subclasses=True)  # compiled (native.py), subclassed by analysis.py
class ISMCTSBot(EvaluatingBot):
    name = "ismcts"

    def __init__(
        self,
        seed: int = 0,
        board: Board | None = None,
        iterations: int | None = 1000,
        time_limit: float | None = None,
        exploration: float = 0.7,
        depth: int = 8,
        root_k: int = 10,
        k: int = 5,
        epsilon: float = 0.1,
        scale: float = 6.0,
        prior_visits: int = 10,
        leaf: str = "plain",
        steps: int | None = None,
        root: str = "ucb",
        draw_steps: int | None = None,
        rollout: str = "cheap",
        infer: float | None = None,
        policy: tuple[float, ...] | None = None,
        draw_policy: tuple[float, ...] | None = None,
        temperature: float = 1.0,
        win_weight: float = 0.5,
        value: ValueModel | None = None,
    ) -> None:
        super().__init__(seed, board)
        if iterations is None and time_limit is None and steps is None:
            raise ValueError("ismcts needs an iteration cap, a step budget or a time limit")
        if steps is not None and steps < 1:
            raise ValueError(f"steps must be at least 1, not {steps}")
        self.iterations = iterations
        self.steps = steps
        self.time_limit = time_limit
        self.exploration = exploration
        self.depth = depth
        self.root_k = root_k
        self.k = k
        self.epsilon = epsilon
        self.scale = scale
        self.prior_visits = prior_visits
        if leaf not in ("plain", "fitted", "learned"):
            raise ValueError(f"leaf must be 'plain', 'fitted' or 'learned', not {leaf!r}")
        self.leaf = leaf
        if rollout not in ("cheap", "lookahead", "softmax", "learned"):
            raise ValueError(f"rollout must be 'cheap', 'lookahead', 'softmax' or 'learned', not {rollout!r}")
        # the learned leaf's and rollout's model (learned.py): the shipped one unless given
        self.value: ValueModel | None = (value if value is not None else default_model()) if "learned" in (leaf, rollout) else None
        if root not in ("ucb", "halving"):
            raise ValueError(f"root must be 'ucb' or 'halving', not {root!r}")
        self.root = root
        if draw_steps is not None and draw_steps < 1:
            raise ValueError(f"draw_steps must be at least 1, not {draw_steps}")
        self.draw_steps = draw_steps
        if not temperature > 0.0:
            raise ValueError(f"temperature must be above 0, not {temperature}")
        self.temperature = temperature
        if not 0.0 <= win_weight <= 1.0:
            raise ValueError(f"win_weight must be in [0, 1], not {win_weight}")
        self.win_weight = win_weight
        self.rollout = rollout
        if infer is not None and not 0.0 < infer <= 1.0:
            raise ValueError(f"infer must be in (0, 1], not {infer}")
        self.infer = infer
        if policy is not None and len(policy) != len(POLICY):
            raise ValueError(f"policy needs {len(POLICY)} weights ({', '.join(POLICY_FEATURES)}), not {len(policy)}")
        self.policy = tuple(float(x) for x in (POLICY if policy is None else policy))
        w = self.policy
        self._w_cl, self._w_site, self._w_adv, self._w_cost, self._w_pairs, self._w_two, self._w_three, self._w_exchange = w
        if draw_policy is not None and len(draw_policy) != len(DRAW_FEATURES):
            raise ValueError(f"draw_policy needs {len(DRAW_FEATURES)} weights ({', '.join(DRAW_FEATURES)}), not {len(draw_policy)}")
        self.draw_policy = None if draw_policy is None else tuple(float(x) for x in draw_policy)
        self._belief_ev: Evaluator | None = None
        self.last_iterations = 0
        self.last_steps = 0
        self.last_seconds = 0.0
        # decisions the time limit ended before the iteration cap or the step budget: the level then depends on
        # the machine's speed (reported by tournaments; 0 on a machine fast enough)
        self.cut_short = 0
        self.last_root: dict[Move, tuple[int, float]] = {}
        self.last_margin: dict[Move, float] = {}
        self._margin_sum: dict[Move, float] = {}
        self._draw_moves: dict[int, Move] = {}  # kind index (-1: the pile) -> the draw
        self._exchanges: dict[tuple[int, ...], Exchange | None] = {}  # see _exchange

    # -- the decision ----------------------------------------------------------------------

    def choose(self, view: ViewData) -> Move:
        t0 = time.perf_counter()
        deadline = t0 + self.time_limit if self.time_limit is not None else math.inf
        self.last_iterations = 0
        self.last_steps = 0
        self.last_root = {}
        self.last_margin = {}
        self._margin_sum = {}
        if self.draw_steps is not None and view["phase"] == DRAW:
            return self._choose_draw(view, deadline)
        started = self.scored_start(view)
        if not isinstance(started, Scored):
            return started
        s0, ev, scored = started.state, started.ev, started.moves
        ev.clear_memos()
        me = s0.current
        order = sorted(range(len(scored)), key=lambda i: -scored[i][0])
        root_moves = [scored[i][1] for i in order[: self.root_k]]
        if len(root_moves) == 1:
            return root_moves[0]
        root = _Node(-1)
        if self.prior_visits:
            # greedy's judgement as virtual visits (prior knowledge, Gelly & Silver 2007)
            est = ev.estimate(s0)
            margin = est[me] - max(x for q, x in enumerate(est) if q != me)
            for i in order[: self.root_k]:
                v, m = scored[i]
                ch = root.children[m] = _Node(me)
                ch.visits = ch.avail = self.prior_visits
                ch.total = self.prior_visits / (1.0 + math.exp(-(margin + v) / self.scale))
        cap = self.iterations if self.iterations is not None else 1 << 62
        step_cap = self.steps if self.steps is not None else 1 << 62
        it = 0
        steps = 0
        sampler = self._sampler(view, ev.board)
        alive = root_moves
        if self.root == "halving":
            it, steps, alive = self._halving(root, sampler, root_moves, cap, step_cap, deadline)
        else:
            while it < cap and steps < step_cap and (it == 0 or time.perf_counter() < deadline):  # at least one iteration
                steps += self._iterate(root, sampler.sample(self.rng), root_moves)
                it += 1
        self.last_iterations = it
        self.last_steps = steps
        self.cut_short += it < cap and steps < step_cap
        self.last_seconds = time.perf_counter() - t0
        self.last_root = {m: (ch.visits - self.prior_visits, ch.total / ch.visits if ch.visits else 0.0) for m, ch in root.children.items()}
        for m, ch in root.children.items():
            n = ch.visits - self.prior_visits
            if n > 0:
                self.last_margin[m] = self._margin_sum.get(m, 0.0) / n
        if not root.children:
            return root_moves[0]
        best = root_moves[0]
        best_key = (-1, -1.0)
        for m in alive:
            node = root.children.get(m)
            if node is None:
                continue
            # UCB: the most visited; halving: the best mean of the last round's moves (equal samples)
            mean = node.total / node.visits if node.visits else 0.0
            key = (node.visits, mean) if self.root == "ucb" else (0, mean)
            if key > best_key:
                best_key, best = key, m
        return best

    def _sampler(self, view: ViewData, board: Board) -> Determinizer:
        """The determinizer of a decision: hidden cards dealt at random, or (``infer``) by
        the belief the other players' last refills give (:class:`~kardinal.bots.infer.DrawBelief`)."""
        sampler = Determinizer(view, board)
        if self.infer is not None:
            if self._belief_ev is None:
                self._belief_ev = Evaluator(board)
            sampler.accept = DrawBelief(view, sampler.template, self._belief_ev, self.infer).accept
        return sampler

    def _choose_draw(self, view: ViewData, deadline: float) -> Move:
        """A draw decision (R5.1) searched, not answered by greedy's rule: the draws are
        the root's moves, compared by sequential halving with common random numbers
        (:meth:`_halving`) within ``draw_steps``; the rest of the turn's draws follow the
        rollouts' rule, and the tree below is searched as for a main decision. Ties go to
        greedy's choice, which is listed first."""
        t0 = time.perf_counter()
        _, moves, answer = self.start(view)
        assert answer is not None
        if len(moves) == 1:
            return answer
        ev = self.evaluator(view)
        ev.clear_memos()
        root_moves = [answer] + [m for m in moves if m != answer]
        root = _Node(-1)
        sampler = self._sampler(view, ev.board)
        assert self.draw_steps is not None
        it, steps, alive = self._halving(root, sampler, root_moves, 1 << 62, self.draw_steps, deadline)
        self.last_iterations = it
        self.last_steps = steps
        self.last_seconds = time.perf_counter() - t0
        self.last_root = {m: (ch.visits, ch.total / ch.visits if ch.visits else 0.0) for m, ch in root.children.items()}
        best = answer
        best_mean = -1.0
        for m in alive:
            mean = self._mean(root, m)
            if mean > best_mean:
                best_mean, best = mean, m
        return best

    def _halving(
        self, root: _Node, sampler: Determinizer, root_moves: list[Move], cap: int, step_cap: int, deadline: float
    ) -> tuple[int, int, list[Move]]:
        """The root as sequential halving (Karnin, Koren & Somekh 2013) with common random
        numbers: in each of ceil(log2(moves)) rounds the budget left is shared out evenly,
        and every hidden deal is played out once behind each move still in the race, with
        the same random stream for the rollouts (the deal and the chance that tells moves
        apart cancel in their comparison); after a round the better half by mean reward
        stays. Below the root the tree is searched as with UCB. Returns the iterations, the
        steps and the moves of the last round."""
        alive = list(root_moves)
        rounds = max(1, math.ceil(math.log2(len(alive))))
        it = steps = 0
        rng = self.rng
        for r in range(rounds):
            # the round's share of what is left, in steps (and in iterations)
            left = rounds - r
            round_steps = steps + max(1, (step_cap - steps) // left) if step_cap < 1 << 62 else 1 << 62
            round_its = it + max(len(alive), (cap - it) // left) if cap < 1 << 62 else 1 << 62
            # with only a time limit, the rounds share the time left
            now = time.perf_counter()
            round_end = deadline if round_steps < 1 << 62 or round_its < 1 << 62 else now + (deadline - now) / left
            while it < round_its and steps < round_steps and (it == 0 or time.perf_counter() < round_end):
                d0 = sampler.sample(rng)
                stream = rng.getstate()
                for m in alive:
                    rng.setstate(stream)
                    steps += self._iterate(root, d0.copy(history=False), [m])
                    it += 1
            if r == rounds - 1 or (it > 0 and time.perf_counter() >= deadline) or it >= cap or steps >= step_cap:
                break
            keep = (len(alive) + 1) // 2
            order = sorted(range(len(alive)), key=lambda i: -self._mean(root, alive[i]))
            alive = [alive[i] for i in sorted(order[:keep])]
        return it, steps, alive

    @staticmethod
    def _mean(root: _Node, m: Move) -> float:
        ch = root.children.get(m)
        return ch.total / ch.visits if ch is not None and ch.visits else -1.0

    # -- one iteration ---------------------------------------------------------------------

    def _iterate(self, root: _Node, d: State, root_moves: list[Move]) -> int:
        """One iteration; returns its work: the main decisions it played (in the tree and
        the rollout) plus one for the sample and the leaf (see ``steps``)."""
        node = root
        path: list[_Node] = []
        cands = root_moves
        me = d.current
        first: Move | None = None
        c = self.exploration
        sqrt, log = math.sqrt, math.log
        while True:
            child: _Node | None = None
            chosen: Move | None = None
            best = -math.inf
            untried: Move | None = None
            for m in cands:
                ch = node.children.get(m)
                if ch is None:
                    if untried is None:
                        untried = m
                    continue
                ch.avail += 1
                if untried is None:
                    u = ch.total / ch.visits + c * sqrt(log(ch.avail) / ch.visits)
                    if u > best:
                        best, chosen, child = u, m, ch
            if untried is not None:
                child = node.children[untried] = _Node(d.current)
                child.avail = 1
                chosen = untried
            assert child is not None and chosen is not None
            if first is None:
                first = chosen
            d.play_trusted(chosen)
            path.append(child)
            node = child
            self._draws(d)
            if untried is not None or d.is_over:
                break
            # Below the root, the public board of a node (pieces, supplies, the player to
            # move) follows from the moves leading to it; what the candidates depend on
            # besides is the mover's hand, the display, the pile and the scoring stage.
            key = (tuple(d.hands[d.current]), tuple(d.display), d.top < len(d.deck), d.exhaustions, d.final_round)
            if node.cands is None:
                node.cands = {}
            got = node.cands.get(key)
            if got is None:
                # the countries' values depend on the public board only (and the stage)
                tables = node.tables.get(d.exhaustions)
                if tables is None:
                    tables = node.tables[d.exhaustions] = self._tables(d, [(c, True) for c in range(len(d.free_sites))])
                got = node.cands[key] = self._candidates(d, self.k, tables)
            cands = got
        assert first is not None
        rewards, margin, played = self._rollout(d, me)
        self._margin_sum[first] = self._margin_sum.get(first, 0.0) + margin
        for nd in path:
            nd.visits += 1
            nd.total += rewards[nd.player]
        return len(path) + played + 1

    # -- policies --------------------------------------------------------------------------

    def _draws(self, d: State) -> None:
        """Play the draw decisions (R5.1) by the cheap rule: a display card making a pair, else
        the pile; or by the weights of ``draw_policy`` (:data:`DRAW_FEATURES`)."""
        draws = self._draw_moves
        if not draws:
            draws.update({k: Draw(kind.id) for k, kind in enumerate(d.board.cards)})
            draws[-1] = Draw(DECK)
        if self.draw_policy is not None:
            while d.phase == DRAW:
                d.play_trusted(draws[self._weighed_draw(d, self.draw_policy)])
            return
        while d.phase == DRAW:
            hand = d.hands[d.current]
            src = -1 if d.top < len(d.deck) else None
            for k in d.display:
                if hand[k] >= 1 or src is None:
                    src = k
                    break
            assert src is not None
            d.play_trusted(draws[src])

    def _weighed_draw(self, d: State, w: tuple[float, ...]) -> int:
        """The draw of ``draw_policy`` (see :data:`DRAW_FEATURES`): a display card's kind, or -1 for the pile."""
        hand = d.hands[d.current]
        w_pile, w_pair, w_triple, w_value = w
        best = -1
        best_v = w_pile if d.top < len(d.deck) else -math.inf
        kinds = d.board.cards
        seen = -1
        for k in d.display:
            if k == seen:
                continue
            seen = k
            v = 0.0
            if hand[k] >= 1:
                v += w_pair
                if hand[k] >= 2:
                    v += w_triple
            if w_value:
                tables = self._tables(d, [(c, False) for c in kinds[k].countries])
                top = max([t[0] for t in tables.values()])
                if top > 0.0:
                    v += w_value * top
            if v > best_v:
                best_v, best = v, k
        return best

    def _blocks(self, d: State, best_only: bool = False, tables: dict[int, _Country] | None = None) -> tuple[list[_Block], Exchange | None]:
        """The placements of the seat to act by blocks (a country, a card set, one or two
        pieces), in ``legal_moves`` order, each with the highest cheap score in it; and the
        one exchange worth trying.

        A placement's cheap score is :meth:`Evaluator.fast_place_score` from the gain
        tables plus the pair kept. The tables are read per country and site from the
        evaluator's memos. The best score of a block is reached at its largest table value
        (rounding is monotone), so no move needs to be built to know it.
        ``best_only``: only the first block of the highest score. ``tables``: the
        countries' values (:meth:`_tables`) when they are known already, by country.
        """
        p = d.current
        hand = d.hands[p]
        blocks: list[_Block] = []
        best_v = -math.inf
        best: _Block | None = None
        if d.supply_cl[p] or d.supply_adv[p]:
            ev = self._ev
            assert ev is not None
            combos = d.card_combos(p)
            if tables is None:
                tables = self._tables(d, [(c, len(twos) > 0) for c, (ones, twos) in enumerate(combos) if ones])
            cards_worth = ev.cards_worth(hand)
            inf = -math.inf
            wc, wp, w2, w3 = self._w_cost, self._w_pairs, self._w_two, self._w_three
            for c, (ones, twos) in enumerate(combos):
                if not ones:
                    continue
                top1, top2, cid, args = tables[c]
                if top1 != inf:
                    for cards in ones:
                        cost, kv = cards_worth[cards]
                        cost, kv = cost * wc, kv * wp
                        v = (top1 - cost) + kv
                        if best_only:
                            if v > best_v:
                                best_v, best = v, (v, cid, cards, 0, args, cost, kv)
                        else:
                            blocks.append((v, cid, cards, 0, args, cost, kv))
                if top2 != inf:
                    for cards in twos:
                        cost, kv = cards_worth[cards]
                        # (the bonuses of two pieces and of three cards go with the pairs kept)
                        cost, kv = cost * wc, kv * wp + (w3 if len(cards) == 3 else 0.0) + w2
                        v = (top2 - cost) + kv
                        if best_only:
                            if v > best_v:
                                best_v, best = v, (v, cid, cards, 1, args, cost, kv)
                        else:
                            blocks.append((v, cid, cards, 1, args, cost, kv))
        if best is not None:
            blocks.append(best)
        return blocks, self._exchange(d, hand)

    def _tables(self, d: State, wanted: list[tuple[int, bool]]) -> dict[int, _Country]:
        """Per wanted country (and whether two-piece placements are wanted there): the
        largest table value of a one-piece and of a two-piece placement of the seat to act
        (-inf if there is none), the country id, and what :meth:`_patterns` needs to list
        the pieces. They depend on the public board and the seat, not on its cards."""
        ev = self._ev
        assert ev is not None
        p = d.current
        scl = d.supply_cl[p]
        sad = d.supply_adv[p]
        mult = 2 if d.exhaustions == 0 else 1
        cids = ev.country_ids
        cl_memo = ev._cl_memo
        free_memo = ev._free_memo
        free_sites = d.free_sites
        most = d.most_cloisters
        crows = d.cloisters
        atot = d.advisors_total
        sb: list[float] | None = None
        adv: AdvisorTable | None = None
        inf = -math.inf
        out: dict[int, _Country] = {}
        wcl, ws, wa = self._w_cl, self._w_site, self._w_adv
        for c, has_twos in wanted:
            free = free_sites[c]
            nf = len(free)
            mc = most[c]
            at = atot[c]
            row = crows[c]
            # which pieces can go: one piece (a cloister, an advisor), two pieces (R4.5-R4.8)
            one_cl = nf > 0 and scl > 0
            one_adv = mc > 0 and sad > 0 and at < mc
            two = mc > 0 and has_twos
            two_cl = two and scl >= 2 and nf >= 2
            cl_adv = two and one_cl and sad > 0 and at + 1 <= max(mc, row[p] + 1)
            two_adv = two and sad >= 2 and at + 2 <= mc
            cl1 = cl2 = a1 = a2 = 0.0
            if one_cl:
                cl = cl_memo.get((p, mult, nf if nf < 2 else 2, *row))
                cl1, cl2 = cl if cl is not None else ev.cloister_gain(row, p, nf, mult)
                cl1, cl2 = cl1 * wcl, cl2 * wcl
                if sb is None:
                    sb = ev.site_bonus_memo(d.owner, p)
            if one_adv or cl_adv or two_adv:
                # (the gain tables hold advisor values exactly where an advisor can go)
                if adv is None:
                    adv = ev.advisor_table(d.advisors, p)
                ag = adv[c]
                a1, a2 = ag if ag is not None else adv.get(c)
                a1, a2 = a1 * wa, a2 * wa
            top1 = top2 = inf
            if one_cl:
                assert sb is not None
                fi = free_memo.get(free)
                if fi is None:
                    fi = ev.free_index(free)
                bonus = max([sb[i] for i in fi]) * ws
                top1 = cl1 + bonus
                if cl_adv:
                    top2 = cl1 + bonus + a1
            if one_adv and a1 > top1:
                top1 = a1
            if two_cl:
                assert sb is not None
                for _, i, j in ev.free_pairs(free):
                    val = cl2 + sb[i] * ws + sb[j] * ws
                    if val > top2:
                        top2 = val
            if two_adv and a2 > top2:
                top2 = a2
            out[c] = (top1, top2, cids[c], (free, sb, ws, cl1, cl2, a1, a2, one_cl, one_adv, two_cl, cl_adv, two_adv))
        return out

    def _expand(self, block: _Block) -> list[tuple[float, Place]]:
        """A block's placements with their cheap scores, in ``legal_moves`` order."""
        ev = self._ev
        assert ev is not None
        _, cid, cards, which, args, cost, kv = block
        new = tuple.__new__
        return [((val - cost) + kv, new(Place, (cid, cards, cls, a))) for cls, a, val in self._patterns(ev, which, *args)]

    def _best_move(self, d: State) -> Move:
        """The first move of the highest cheap score (the rollout policy's greedy choice)."""
        blocks, exchange = self._blocks(d, best_only=True)
        xv = 0.0 if d.final_round else self._w_exchange
        if blocks:
            best_v = blocks[0][0]
            if exchange is not None and xv > best_v:
                return exchange
            for v, m in self._expand(blocks[0]):
                if v == best_v:
                    return m
            raise AssertionError("the best score belongs to no placement")  # pragma: no cover
        return exchange if exchange is not None else Pass()

    def _scored(self, d: State) -> list[tuple[float, Move]]:
        """Every main move worth trying with its cheap score, in ``legal_moves`` order:
        the placements, one exchange (EXCHANGE_WORTH, 0 in the final round), or a pass at 0."""
        blocks, exchange = self._blocks(d)
        out: list[tuple[float, Move]] = []
        for b in blocks:
            out += self._expand(b)
        if exchange is not None:
            out.append((0.0 if d.final_round else self._w_exchange, exchange))
        elif not out:
            out.append((0.0, Pass()))
        return out

    def _candidates(self, d: State, k: int, tables: dict[int, _Country] | None = None) -> list[Move]:
        """The k moves of the highest cheap score, ties in ``legal_moves`` order (as a stable
        sort of :meth:`_scored` gives them); only the blocks that can hold one are listed."""
        return [m for _, m in self._ranked(d, k, tables)]

    def _ranked(self, d: State, k: int, tables: dict[int, _Country] | None = None) -> list[tuple[float, Move]]:
        """:meth:`_candidates` with their cheap scores, best first (a lone exchange or pass at 0)."""
        blocks, exchange = self._blocks(d, tables=tables)
        if not blocks:
            return [(0.0, exchange if exchange is not None else Pass())]
        ev = self._ev
        assert ev is not None
        n = len(blocks)
        order = sorted(range(n), key=lambda i: -blocks[i][0])
        got: list[tuple[float, int, int, tuple[str, ...], int]] = []
        kth = -math.inf
        listed: dict[tuple[int, int], list[tuple[tuple[str, ...], int, float]]] = {}
        for i in order:
            ub, _, _, which, args, cost, kv = blocks[i]
            if ub < kth:
                break
            key = (id(args), which)
            pats = listed.get(key)
            if pats is None:
                pats = listed[key] = self._patterns(ev, which, *args)
            got += [(-((val - cost) + kv), i, j, cls, a) for j, (cls, a, val) in enumerate(pats)]
            if len(got) >= k:
                got.sort()
                kth = -got[k - 1][0]
        got.sort()
        out: list[tuple[float, int, Move]] = [
            (v, i, tuple.__new__(Place, (blocks[i][1], blocks[i][2], cls, a))) for v, i, _, cls, a in got[:k]
        ]
        if exchange is not None:
            # the exchange comes after every placement: it goes in only if strictly better
            xv = -(0.0 if d.final_round else self._w_exchange)
            out.append((xv, n, exchange))
            out.sort(key=lambda x: (x[0], x[1]))
        return [(-v, m) for v, _, m in out[:k]]

    @staticmethod
    def _patterns(
        ev: Evaluator,
        which: int,
        free: tuple[str, ...],
        sb: list[float] | None,
        ws: float,
        cl1: float,
        cl2: float,
        a1: float,
        a2: float,
        one_cl: bool,
        one_adv: bool,
        two_cl: bool,
        cl_adv: bool,
        two_adv: bool,
    ) -> list[tuple[tuple[str, ...], int, float]]:
        """The pieces of one country's placements with their table value, in ``legal_moves``
        order: (cloister sites, advisors, value), for one piece (``which`` 0) or two (1);
        ``ws`` weighs the sites' chain bonus (the others come weighed)."""
        out: list[tuple[tuple[str, ...], int, float]] = []
        if which == 0:
            if one_cl:
                assert sb is not None
                out = [((x,), 0, cl1 + sb[i] * ws) for x, i in zip(free, ev.free_index(free))]
            if one_adv:
                out.append(((), 1, a1))
            return out
        if two_cl:
            assert sb is not None
            out = [(pair, 0, cl2 + sb[i] * ws + sb[j] * ws) for pair, i, j in ev.free_pairs(free)]
        if cl_adv:
            assert sb is not None
            out += [((x,), 1, cl1 + sb[i] * ws + a1) for x, i in zip(free, ev.free_index(free))]
        if two_adv:
            out.append(((), 2, a2))
        return out

    def _exchange(self, d: State, hand: list[int]) -> Exchange | None:
        """The one exchange worth trying: the last single card (not of a pair) for the draw
        pile if there is a pile, else the first exchange ``legal_moves`` lists."""
        pile = d.top < len(d.deck)
        key = (pile, *hand, -1, *d.display)
        if key in self._exchanges:
            return self._exchanges[key]
        got = self._exchanges[key] = self._exchange_of(d, hand, pile)
        return got

    @staticmethod
    def _exchange_of(d: State, hand: list[int], pile: bool) -> Exchange | None:
        kinds = d.board.cards
        if pile:
            for k in range(len(hand) - 1, -1, -1):
                if hand[k] == 1:
                    return Exchange(kinds[k].id, DECK)
        if not d.display and not pile:
            return None
        first_take = kinds[min(d.display)].id if d.display else DECK
        for k, x in enumerate(hand):
            if x:
                return Exchange(kinds[k].id, first_take)
        return None

    def _rollout(self, d: State, me: int) -> tuple[list[float], float, int]:
        """Play up to ``depth`` main decisions by the rollout policy; every seat's reward,
        ``me``'s estimated margin (see :meth:`_rewards`) and the decisions played."""
        rng = self.rng
        steps = 0
        lookahead = self.rollout == "lookahead" or self.rollout == "learned"
        softmax = self.rollout == "softmax"
        while not d.is_over and steps < self.depth:
            if rng.random() < self.epsilon:
                m = self._random_move(d)
            elif lookahead:
                m = self._lookahead_move(d)
            elif softmax:
                m = self._softmax_move(d)
            else:
                m = self._best_move(d)
            d.play_trusted(m)
            self._draws(d)
            steps += 1
        rewards, margin = self._rewards(d, me)
        return rewards, margin, steps

    def _softmax_move(self, d: State) -> Move:
        """``rollout="softmax"``: one of the ``k`` moves of the highest cheap score, drawn with
        a probability proportional to exp(score / ``temperature``)."""
        ranked = self._ranked(d, self.k)
        if len(ranked) == 1:
            return ranked[0][1]
        top = ranked[0][0]
        t = self.temperature
        exp = math.exp
        weights = [exp((v - top) / t) for v, _ in ranked]
        r = self.rng.random() * sum(weights)
        for (_, m), x in zip(ranked, weights):
            r -= x
            if r < 0.0:
                return m
        return ranked[-1][1]

    def _lookahead_move(self, d: State) -> Move:
        """``rollout="lookahead"``: of the 3 moves of the highest cheap score, the placement
        greedy values most (played on a copy, valued by :meth:`Evaluator.estimate` relative
        to the best other seat, less the cards spent, plus the pairs kept); an exchange or a
        pass when it has the highest cheap score."""
        cands = self._candidates(d, 3)
        first = cands[0]
        if len(cands) == 1 or not isinstance(first, Place):
            return first
        ev = self._ev
        assert ev is not None
        p = d.current
        worth = ev.cards_worth(d.hands[p])
        value = self.value if self.rollout == "learned" else None
        best = first
        best_v = -math.inf
        for m in cands:
            if not isinstance(m, Place):
                continue
            t = d.copy(history=False)
            t.play_trusted(m)
            if value is not None:  # rollout="learned": the learned value judges the hand too
                v = ev.relative(value.estimate(ev, t), p)
            else:
                cost, kv = worth[m.cards]
                v = ev.relative(ev.estimate(t), p) - cost + kv
            if v > best_v:
                best_v, best = v, m
        return best

    def _random_move(self, d: State) -> Move:
        """``rng.choice(d.legal_moves())`` (the same random draw, the same move) at a main
        decision, counting the legal moves instead of listing them."""
        ev = self._ev
        assert ev is not None
        p = d.current
        hand = d.hands[p]
        scl = d.supply_cl[p]
        sad = d.supply_adv[p]
        # per block of placements, in legal_moves order: (country, card sets, pieces, patterns per card set)
        blocks: list[tuple[int, list[tuple[str, ...]], int, int]] = []
        total = 0
        if scl or sad:
            for c, (ones, twos) in enumerate(d.card_combos(p)):
                if not ones:
                    continue
                nf = len(d.free_sites[c])
                mc = d.most_cloisters[c]
                at = d.advisors_total[c]
                one_cl = nf > 0 and scl > 0
                two = mc > 0 and len(twos) > 0
                n1 = (nf if one_cl else 0) + (1 if mc > 0 and sad > 0 and at < mc else 0)
                n2 = 0
                if two:
                    n2 = (nf * (nf - 1) // 2 if scl >= 2 else 0) + (1 if sad >= 2 and at + 2 <= mc else 0)
                    if one_cl and sad > 0 and at + 1 <= max(mc, d.cloisters[c][p] + 1):
                        n2 += nf
                if n1:
                    blocks.append((c, ones, 0, n1))
                    total += len(ones) * n1
                if n2:
                    blocks.append((c, twos, 1, n2))
                    total += len(twos) * n2
        kinds = d.board.cards
        takes = [kinds[k].id for k in sorted(set(d.display))]
        if d.top < len(d.deck):
            takes.append(DECK)
        held = [k for k, x in enumerate(hand) if x] if takes else []
        count = total + len(held) * len(takes)
        if not count:
            self.rng.choice((0,))  # legal_moves is [Pass()]: the draw is made all the same
            return Pass()
        i = self.rng.choice(range(count))
        if i >= total:
            i -= total
            return Exchange(kinds[held[i // len(takes)]].id, takes[i % len(takes)])
        for c, cardsets, which, n in blocks:
            size = len(cardsets) * n
            if i >= size:
                i -= size
                continue
            cards = cardsets[i // n]
            free = d.free_sites[c]
            mc = d.most_cloisters[c]
            at = d.advisors_total[c]
            pieces: list[tuple[tuple[str, ...], int]] = []
            if which == 0:
                if free and scl:
                    pieces = [((x,), 0) for x in free]
                if mc and sad and at < mc:
                    pieces.append(((), 1))
            else:
                if scl >= 2:
                    pieces = [(pair, 0) for pair, _, _ in ev.free_pairs(free)]
                if free and scl and sad and at + 1 <= max(mc, d.cloisters[c][p] + 1):
                    pieces += [((x,), 1) for x in free]
                if sad >= 2 and at + 2 <= mc:
                    pieces.append(((), 2))
            cls, a = pieces[i % n]
            return tuple.__new__(Place, (ev.country_ids[c], cards, cls, a))
        raise AssertionError("the move index is past the legal moves")  # pragma: no cover

    def _rewards(self, d: State, me: int) -> tuple[list[float], float]:
        """Every seat's reward, and seat ``me``'s estimated margin over the best other seat."""
        ev = self._ev
        assert ev is not None
        value = self.value
        if value is not None and self.leaf == "learned":
            est = value.estimate(ev, d)
        elif self.leaf == "fitted":
            est = ev.leaf_estimate(d)
        else:
            est = ev.estimate(d)
        n = d.n
        top = max(est)
        at = est.index(top)
        second = max(est[:at] + est[at + 1 :])
        margin = est[me] - (second if me == at else top)
        shares = win_shares(d.winners or [], n) if d.is_over else None
        scale = self.scale
        exp = math.exp
        ww = self.win_weight
        out = []
        for p in range(n):
            r = 1.0 / (1.0 + exp(-(est[p] - (second if p == at else top)) / scale))
            if shares is not None:
                r = (1.0 - ww) * r + ww * shares[p]
            out.append(r)
        return out, margin
