"""The bot's judgement of a game: hints, reviews of finished games, chances to win.

Everything here starts from views (``view(state, seat)``, R13), as a bot does:

* :func:`hint` -- the best moves for the seat to act, from that seat's view only: the
  ``ismcts`` search of the ``hard`` level, and per move its visits, its mean reward in
  [0, 1] and its expected final margin in points over the best other seat (the search's
  ``last_margin``). A draw decision (R5.1) is not searched (the bots play draws by a
  rule): its options are ranked by what the best next placement of the new hand would
  be worth (the evaluation's hand value, in points).
* :func:`rate_decision` -- one decision of a finished game judged from the view its
  seat had at that moment: the search is run with the move played among the moves it
  considers, and the move cost ``best margin - played margin`` points (never below 0)
  if the search preferred another. Each move also has its ``gain``: what it adds to its
  seat's standing at once, by the bots' evaluation (greedy's one-move value: majorities,
  alliances, chains, less the cards spent). A decision is named by :func:`verdict`: by
  its cost (:data:`VERDICTS`), or, so that a weak player whose every move costs a
  little is shown where the points go, by its gain against the best move's
  (:data:`RELATIVE`: less than half of it is a mistake).
* :func:`costliest` -- a seat's three costliest decisions, however small their cost:
  what a review shows first.
* :func:`win_chances` -- every seat's chance to win from a position: the bots'
  evaluation estimates each seat's final total (:meth:`Evaluator.estimate`, public
  information only), and the final totals are modelled as those estimates plus
  independent normal errors whose spread shrinks as the game goes on
  (:func:`spread`: 12 points times the square root of the share of the game still to
  play, the best fit to who won 90 games of ``greedy`` and ``easy`` bots, 3-5 players;
  of the seats it gave 20-30% about 23% won, of those at 50-60% about 61%, at
  70-80% about 85%).
* :func:`review_record` -- all of it for a game record: the main decisions of the
  chosen seats rated, and the chances to win after every turn.

Budgets are iteration caps (no wall clock) except for hints, so a review is
deterministic given its seed. A review searches with the classic settings
(:data:`kardinal.bots.ismcts.CLASSIC`, rollouts of 4 decisions): the same judgement and
time per decision as before the levels moved to deeper rollouts.
"""

from __future__ import annotations

import math
import random
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field
from typing import Any

from kardinal.rules.board import Board, get_board
from kardinal.rules.moves import Move
from kardinal.rules.record import RecordAction, action_of, move_of, start_of, steps
from kardinal.rules.scoring import win_shares
from kardinal.rules.state import DRAW, MAIN
from kardinal.rules.view import ViewData, view

from . import LEVEL_ITERATIONS, LEVEL_LEAF
from .determinize import determinize
from .evaluate import Evaluator
from .greedy import Scored
from .ismcts import CLASSIC, ISMCTSBot

__all__ = [
    "Option",
    "Hint",
    "Rated",
    "Review",
    "hint",
    "rate_decision",
    "win_chances",
    "spread",
    "review_plan",
    "review_record",
    "verdict",
    "costliest",
    "VERDICTS",
    "RELATIVE",
    "HINT_ITERATIONS",
    "HINT_SECONDS",
    "REVIEW_ITERATIONS",
]

HINT_ITERATIONS = LEVEL_ITERATIONS["hard"]  # the hard level's budget
HINT_LEAF = LEVEL_LEAF["hard"]  # ... and its leaf evaluation: a hint is what hard would play
HINT_SECONDS = 1.5
REVIEW_ITERATIONS = 400  # per decision: the classic search (CLASSIC), without a clock
SCALE = 6.0  # ismcts's reward: a logistic of the margin over this many points

# expected points a move cost against the best one found, at least: the name of the slip
VERDICTS: tuple[tuple[float, str], ...] = ((6.0, "blunder"), (3.0, "mistake"))
# a mistake judged against what the best move gains: the played move gained less than
# `share` of it, where the best gains `least_gain` points or more and the choice cost
# `least_cost` expected points or more (a smaller difference is within the search's noise)
RELATIVE: dict[str, float] = {"share": 0.5, "least_gain": 0.5, "least_cost": 0.5}
SHOWN = 3  # a review shows each seat's three costliest decisions


def verdict(cost: float, gain: float | None = None, best_gain: float | None = None) -> str:
    """'blunder', 'mistake', or '': by the cost (expected points) against :data:`VERDICTS`,
    or a mistake by the gain against the best move's (:data:`RELATIVE`).

    >>> verdict(7.5), verdict(3.0), verdict(2.9)
    ('blunder', 'mistake', '')
    >>> verdict(1.2, gain=0.4, best_gain=2.5), verdict(1.2, gain=1.5, best_gain=2.5), verdict(0.3, gain=0.0, best_gain=2.5), verdict(1.2, gain=0.0, best_gain=0.4)
    ('mistake', '', '', '')
    """
    for least, name in VERDICTS:
        if cost >= least:
            return name
    if gain is not None and best_gain is not None and cost >= RELATIVE["least_cost"] and best_gain >= RELATIVE["least_gain"]:
        if gain < RELATIVE["share"] * best_gain:
            return "mistake"
    return ""


def costliest(decisions: Sequence[dict[str, Any]], seat: int, k: int = SHOWN) -> list[int]:
    """The record indices of ``seat``'s ``k`` costliest rated decisions (JSON, as
    :meth:`Rated.to_json`), costliest first, however small: every one that had a better move.

    >>> ds = [{"seat": 0, "index": i, "cost": c} for i, c in enumerate([0.4, 0.0, 1.1, 0.2, 0.9])]
    >>> costliest(ds, 0), costliest(ds, 1)
    ([2, 4, 0], [])
    """
    mine = [d for d in decisions if d["seat"] == seat and d["cost"] > 0]
    mine.sort(key=lambda d: (-d["cost"], d["index"]))
    return [d["index"] for d in mine[:k]]


@dataclass(frozen=True)
class Option:
    """One move as the bot judges it.

    ``visits``: search iterations through it (0: not searched); ``value``: its mean
    reward in [0, 1] (None: not searched); ``margin``: the expected final margin in
    points of the seat over the best other seat after it (None: not searched);
    ``worth``: a draw's value, what the best next placement of the new hand is worth;
    ``gain``: what the move adds to the seat's standing at once, by the bots' evaluation
    (greedy's one-move value, in points; None: not judged).
    """

    move: Move
    visits: int = 0
    value: float | None = None
    margin: float | None = None
    worth: float | None = None
    gain: float | None = None

    def to_json(self, seat: int) -> dict[str, Any]:
        return {
            "action": dict(action_of(seat, self.move)),
            "notation": str(self.move),
            "visits": self.visits,
            "value": _round(self.value),
            "margin": _round(self.margin),
            "worth": _round(self.worth),
            "gain": _round(self.gain),
        }


def _round(x: float | None, digits: int = 3) -> float | None:
    return None if x is None else round(x, digits)


@dataclass(frozen=True)
class Hint:
    """The best moves for ``seat``, best first. ``how``: "search" (a main decision),
    "draw" (ranked by hand value) or "only" (the only legal move)."""

    seat: int
    phase: str
    how: str
    options: list[Option]
    iterations: int = 0
    seconds: float = 0.0

    def to_json(self) -> dict[str, Any]:
        best = self.options[0].margin if self.options else None
        out = []
        for o in self.options:
            d = o.to_json(self.seat)
            d["vs_best"] = None if best is None or o.margin is None else round(o.margin - best, 3)
            out.append(d)
        return {
            "seat": self.seat,
            "phase": self.phase,
            "how": self.how,
            "options": out,
            "iterations": self.iterations,
            "seconds": round(self.seconds, 3),
        }


class _Searcher(ISMCTSBot):
    """The ismcts search with a move that must be among the root's candidates (the move
    a player chose, to be rated); the others are the best by greedy's judgement."""

    def __init__(self, seed: int, board: Board | None, include: Move | None = None, **budget: Any) -> None:
        super().__init__(seed, board, **budget)
        self.include = include
        self.gains: dict[Move, float] = {}  # every legal move's one-move value (greedy's)

    def scored_start(self, view: ViewData) -> Move | Scored:
        started = super().scored_start(view)
        if isinstance(started, Scored):
            self.gains = {m: v for v, m in started.moves}
        if not isinstance(started, Scored) or self.include is None:
            return started
        ranked = sorted(started.moves, key=lambda x: -x[0])
        keep = ranked[: self.root_k]
        if all(m != self.include for _, m in keep):
            mine = [x for x in ranked if x[1] == self.include]
            if mine:
                keep = ranked[: self.root_k - 1] + mine
        return Scored(started.state, started.ev, keep)


def _margin_of(bot: ISMCTSBot, move: Move, value: float) -> float:
    """The search's mean margin for a root move; from its mean reward where the search
    keeps no margins (the reward is a logistic of the margin)."""
    margins: dict[Move, float] = getattr(bot, "last_margin", None) or {}
    if move in margins:
        return float(margins[move])
    v = min(max(value, 1e-4), 1 - 1e-4)
    return bot.scale * math.log(v / (1 - v)) if hasattr(bot, "scale") else SCALE * math.log(v / (1 - v))


def _searched(bot: ISMCTSBot) -> list[Option]:
    """The root moves of the bot's last search, the one it plays first (most visited)."""
    gains: dict[Move, float] = getattr(bot, "gains", {})
    out = [Option(m, n, v, _margin_of(bot, m, v), gain=gains.get(m)) for m, (n, v) in bot.last_root.items()]
    out.sort(key=lambda o: (-o.visits, -(o.value or 0.0)))
    return out


def _draw_options(v: ViewData, board: Board) -> list[Option]:
    """A draw decision's options ranked by the worth of the hand they make (greedy's rule)."""
    rng = random.Random(0)
    s = determinize(v, rng, board)  # only the seat's own hand is read below
    seat = s.current
    ev = Evaluator(board)
    moves = s.legal_moves()
    out = [Option(m, worth=w) for m, w in zip(moves, ev.draw_worths(s, seat, moves), strict=True)]
    out.sort(key=lambda o: -(o.worth or 0.0))
    return out


def hint(
    v: ViewData,
    iterations: int | None = HINT_ITERATIONS,
    time_limit: float | None = HINT_SECONDS,
    seed: int = 0,
    top: int = 3,
    board: Board | None = None,
) -> Hint:
    """The ``top`` best moves for the seat whose view ``v`` is; it must be that seat's turn.

    Computed from ``v`` alone: the hidden cards are sampled, never looked up.
    """
    seat = v["seat"]
    if seat is None or v["current"] != seat or v["phase"] not in (MAIN.value, DRAW.value):
        raise ValueError("a hint is for the seat whose turn it is")
    b = board or get_board(v["board"])
    t0 = time.perf_counter()
    legal = determinize(v, random.Random(0), b).legal_moves()
    if len(legal) == 1:
        return Hint(seat, v["phase"], "only", [Option(legal[0])], 0, time.perf_counter() - t0)
    if v["phase"] == DRAW.value:
        return Hint(seat, v["phase"], "draw", _draw_options(v, b)[:top], 0, time.perf_counter() - t0)
    bot = _Searcher(seed, b, iterations=iterations, time_limit=time_limit, leaf=HINT_LEAF)
    chosen = bot.choose(v)
    opts = _searched(bot) or [Option(chosen)]
    # the move the bot plays comes first (most visited), whatever the order of equals
    opts.sort(key=lambda o: o.move != chosen)
    return Hint(seat, v["phase"], "search", opts[:top], bot.last_iterations, time.perf_counter() - t0)


@dataclass(frozen=True)
class Rated:
    """One main decision of a game, judged from its seat's view before it.

    ``index``: the action's index in the record (the position is the one before it);
    ``played``/``best``: the move chosen and the bot's best; ``options``: the best three;
    ``cost``: expected points the choice cost (best margin - played margin, at least 0);
    ``verdict``: see :func:`verdict`.
    """

    index: int
    seat: int
    turn: int
    played: Option
    best: Option
    options: list[Option]
    cost: float
    verdict: str

    def to_json(self) -> dict[str, Any]:
        return {
            "index": self.index,
            "seat": self.seat,
            "turn": self.turn,
            "played": self.played.to_json(self.seat),
            "best": self.best.to_json(self.seat),
            "options": [o.to_json(self.seat) for o in self.options],
            "cost": round(self.cost, 3),
            "verdict": self.verdict,
        }

    @classmethod
    def from_json(cls, d: dict[str, Any]) -> Rated:
        def opt(o: dict[str, Any]) -> Option:
            return Option(move_of(o["action"])[1], o["visits"], o["value"], o["margin"], o["worth"], o.get("gain"))

        return cls(
            d["index"], d["seat"], d["turn"], opt(d["played"]), opt(d["best"]), [opt(o) for o in d["options"]], d["cost"], d["verdict"]
        )


def rate_decision(
    v: ViewData, action: RecordAction | dict[str, Any], index: int, turn: int, iterations: int = REVIEW_ITERATIONS, seed: int = 0
) -> dict[str, Any]:
    """Judge the decision ``action`` taken from the position seen in ``v`` (its seat's view).

    JSON-ready (see :class:`Rated`), so that it can run in another process.
    """
    seat, played = move_of(action)
    if v["seat"] != seat or v["current"] != seat or v["phase"] != MAIN.value:
        raise ValueError("a decision is rated from the view of the seat that took it, before it")
    b = get_board(v["board"])
    bot = _Searcher(seed, b, include=played, iterations=iterations, time_limit=None, **CLASSIC)
    chosen = bot.choose(v)
    opts = _searched(bot)
    opts.sort(key=lambda o: o.move != chosen)
    if not opts:  # nothing to choose (one legal move): nothing to judge
        only = Option(played)
        return Rated(index, seat, turn, only, only, [only], 0.0, "").to_json()
    best = opts[0]
    mine = next((o for o in opts if o.move == played), Option(played, gain=bot.gains.get(played)))
    cost = 0.0
    if mine.move != best.move and best.margin is not None and mine.margin is not None:
        cost = max(0.0, best.margin - mine.margin)
    judged = verdict(cost, mine.gain, best.gain) if mine.move != best.move else ""
    return Rated(index, seat, turn, mine, best, opts[:3], cost, judged).to_json()


# -- chances to win --------------------------------------------------------------------

# the spread (standard deviation, points) of a seat's final total around the evaluation's
# estimate, at the start of the game and at its end; see spread()
SPREAD_START = 12.0
SPREAD_END = 0.0
SPREAD_POWER = 0.5


def spread(progress: float) -> float:
    """The standard deviation in points of a final total around its estimate, when the
    fraction ``progress`` (0..1) of the game's decisions has been taken.

    >>> spread(0.0) > spread(0.5) > spread(0.9) > spread(1.0) == 0.0
    True
    """
    p = min(max(progress, 0.0), 1.0)
    return SPREAD_END + (SPREAD_START - SPREAD_END) * math.pow(1.0 - p, SPREAD_POWER)


def _phi(x: float) -> float:
    return 0.5 * (1.0 + math.erf(x / math.sqrt(2.0)))


def chances_from(estimates: Sequence[float], sd: float, steps_: int = 241) -> list[float]:
    """P(seat p has the highest total) when totals are estimates + N(0, sd²), independent.

    >>> [round(x, 3) for x in chances_from([10, 10, 10], 5.0)]
    [0.333, 0.333, 0.333]
    >>> chances_from([12, 10], 0.0)
    [1.0, 0.0]
    """
    n = len(estimates)
    if sd <= 1e-9:
        top = max(estimates)
        return win_shares([p for p, x in enumerate(estimates) if x == top], n)
    lo, hi = min(estimates) - 6 * sd, max(estimates) + 6 * sd
    dx = (hi - lo) / (steps_ - 1)
    out = [0.0] * n
    for p in range(n):
        acc = 0.0
        for i in range(steps_):
            x = lo + i * dx
            z = (x - estimates[p]) / sd
            dens = math.exp(-0.5 * z * z) / (sd * math.sqrt(2 * math.pi))
            prod = 1.0
            for q in range(n):
                if q != p:
                    prod *= _phi((x - estimates[q]) / sd)
            acc += dens * prod
        out[p] = acc * dx
    total = sum(out) or 1.0
    return [x / total for x in out]


def win_chances(v: ViewData, progress: float, board: Board | None = None) -> list[float]:
    """Every seat's chance to win from the position of a view (any seat's or a spectator's);
    ``progress``: the fraction of the game's decisions taken (see :func:`spread`)."""
    if v.get("winners"):
        return win_shares(v["winners"] or [], v["players"])
    b = board or get_board(v["board"])
    s = determinize(v, random.Random(0), b)  # the estimate reads public information only
    return chances_from(Evaluator(b).estimate(s), spread(progress))


# -- reviews of whole games --------------------------------------------------------------


@dataclass(frozen=True)
class Decision:
    """A main decision to rate: the view of its seat before it, and what was played."""

    index: int
    seat: int
    turn: int
    view: ViewData
    action: RecordAction


@dataclass
class Review:
    """A finished game judged by the bot. ``chances``: (actions so far, every seat's chance to
    win) after each turn, from the start to the end; ``decisions``: the rated decisions."""

    players: list[str]
    seats: list[int]
    iterations: int
    chances: list[tuple[int, list[float]]]
    decisions: list[Rated] = field(default_factory=list)
    seconds: float = 0.0

    def cost_of(self, seat: int) -> float:
        return sum(d.cost for d in self.decisions if d.seat == seat)

    def to_json(self) -> dict[str, Any]:
        return {
            "format": "kardinal-review",
            "players": self.players,
            "seats": self.seats,
            "iterations": self.iterations,
            "verdicts": {name: least for least, name in VERDICTS},
            "relative": RELATIVE,
            "chances": [{"step": k, "chances": [round(x, 4) for x in c]} for k, c in self.chances],
            "decisions": [d.to_json() for d in self.decisions],
            "summary": [
                {
                    "seat": p,
                    "decisions": sum(1 for d in self.decisions if d.seat == p),
                    "cost": round(self.cost_of(p), 3),
                    "mistakes": sum(1 for d in self.decisions if d.seat == p and d.verdict == "mistake"),
                    "blunders": sum(1 for d in self.decisions if d.seat == p and d.verdict == "blunder"),
                    "costliest": costliest([d.to_json() for d in self.decisions], p),
                }
                for p in self.seats
            ],
            "seconds": round(self.seconds, 3),
        }


def review_plan(
    data: Any, seats: Iterable[int] | None = None, board: Board | None = None
) -> tuple[list[Decision], list[tuple[int, list[float]]]]:
    """Replay a finished game's record: the main decisions of ``seats`` (default all) that had
    a choice, each with its seat's view before it, and every seat's chance to win after each turn.

    Raises RecordError / IllegalAction for a bad record, ValueError for an unfinished game.
    """
    state = start_of(data, board)
    actions = data["actions"]
    which = set(range(state.n)) if seats is None else set(seats)
    total = len(actions)
    decisions: list[Decision] = []
    chances: list[tuple[int, list[float]]] = []
    turns = [0] * state.n
    replayed = steps(state, actions)
    for i, a in enumerate(actions):
        if state.phase == MAIN:
            chances.append((i, win_chances(view(state, None), i / total, state.board)))
            seat = state.current
            turns[seat] += 1
            if seat in which and len(state.legal_moves()) > 1:
                v = view(state, seat)
                decisions.append(Decision(i, seat, turns[seat], v, action_of(*move_of(a, f"actions[{i}]"))))
        next(replayed)
    if not state.is_over:
        raise ValueError("the game is not over: only a finished game is reviewed")
    chances.append((total, win_shares(state.winners or [], state.n)))
    return decisions, chances


def review_record(
    data: Any,
    seats: Iterable[int] | None = None,
    iterations: int = REVIEW_ITERATIONS,
    seed: int = 0,
    board: Board | None = None,
    progress: Callable[[int, int], None] | None = None,
) -> Review:
    """Review a finished game's record (see :func:`review_plan` and :func:`rate_decision`)."""
    t0 = time.perf_counter()
    decisions, chances = review_plan(data, seats, board)
    players = list(data["players"])
    chosen = sorted(set(range(len(players))) if seats is None else set(seats))
    out = Review(players, chosen, iterations, chances)
    for k, d in enumerate(decisions):
        out.decisions.append(Rated.from_json(rate_decision(d.view, d.action, d.index, d.turn, iterations, seed + d.index)))
        if progress is not None:
            progress(k + 1, len(decisions))
    out.seconds = time.perf_counter() - t0
    return out
