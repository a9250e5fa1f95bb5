"""Hand-written evaluation shared by the ``greedy`` and ``ismcts`` bots.

Everything here reads only what a player may know: the public board (pieces, scores,
supplies, the display, the discard pile) and the hand of the seat being evaluated. The
bots call it on a determinized state (``kardinal.bots.determinize.determinize``) whose hidden
cards are random; no function here looks at another seat's hand or at the draw pile.

Two levels of detail:

* :meth:`Evaluator.estimate` -- a static estimate of every seat's final total: points
  so far, plus the cloister majorities as they stand (R9; counted twice while the
  intermediate scoring is still to come, R7), the alliance majorities as they stand
  (R10) with a little credit for holding one half of an alliance, and the chains
  (R11) with a little credit for short runs that may still grow.
* :meth:`Evaluator.gains` -- a cheap per-country table of what one or two more
  cloisters or advisors of one seat are worth (change of that seat's points minus the
  mean change of the others), and a per-site chain bonus. Moves are scored from the
  table without playing them (:meth:`Evaluator.fast_place_score`); the ISMCTS rollout
  policy and the hand valuation use it.
* :meth:`Evaluator.leaf_estimate` -- the same parts of the position, plus pieces and
  cards left and the place in the turn order, weighted by :data:`LEAF_WEIGHTS`, fitted
  to the final scores of bot games (``kardinal/research/fit_estimate.py``); the search may
  use it at the end of its rollouts (``ISMCTSBot(leaf="fitted")``), greedy does not.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from itertools import combinations
from typing import NamedTuple

from mypy_extensions import mypyc_attr

from kardinal.rules.board import Board
from kardinal.rules.chains import chain_score
from kardinal.rules.moves import DECK, Draw, Move, Place
from kardinal.rules.scoring import country_cloister_scores
from kardinal.rules.state import DRAW, State

__all__ = ["Evaluator", "Gains", "PARTIAL_ALLIANCE", "CHAIN_SEED", "LEAF_FEATURES", "LEAF_WEIGHTS"]

PARTIAL_ALLIANCE = 0.25  # credit for the majority in one country of an alliance
CHAIN_SEED = 0.35  # credit per cloister (beyond the first) of a run shorter than 4
CARD_COST = 0.25  # a card spent (cards are replaced, but good hands take time to build)
PAIR_KEEP = 0.6  # a pair left in hand: a joker for later (R4.3)


# the features of the search's leaf evaluation per seat (Evaluator.leaf_features): standing
# cloister majority points (R9), alliance points held in both countries and in one (R10),
# chain points (R11) and cloisters beyond the first of runs of 2-3 that can grow, cloisters
# and advisors in supply, cards and pairs in hand, 1, some of these times the share of
# the draw pile still to come ("~"), the part of a round before the seat moves again, and
# in the final round whether it has a turn left
LEAF_FEATURES = (
    "cl",
    "al2",
    "al1",
    "chain",
    "runs",
    "scl",
    "sad",
    "cards",
    "pairs",
    "1",
    "cl~",
    "al2~",
    "scl~",
    "sad~",
    "~",
    "next",
    "last",
)
# per player count and stage (Evaluator.leaf_stage), the weights of the points still to
# come; fitted by ``python -m kardinal.research.fit_estimate --games 2400`` (least squares on
# half of 2,400 greedy games with random noise, 3/4/4/5 players; see there). The weights
# of what is the same for every seat of a position ("1", "~", and nearly always "cards":
# hands are full at a main decision) shift every seat alike, which no decision sees.
LEAF_WEIGHTS: dict[int, tuple[tuple[float, ...], ...]] = {
    3: (
        # stage 0: cl +1.935, al2 -1.446, al1 -0.322, chain +1.252, runs +1.331, scl +0.563, sad -3.720, cards +14.019, pairs +1.219, 1 +4.673, cl~ -1.374, al2~ -0.966, scl~ -2.893, sad~ -0.810, ~ +108.230, next -4.460, last +0.000
        (
            1.935,
            -1.4464,
            -0.3224,
            1.2517,
            1.3315,
            0.5629,
            -3.7201,
            14.019,
            1.2188,
            4.673,
            -1.3737,
            -0.9662,
            -2.8934,
            -0.8101,
            108.2304,
            -4.4596,
            0.0,
        ),
        # stage 1: cl +1.038, al2 +0.997, al1 +0.143, chain +0.976, runs +0.491, scl +0.127, sad +0.314, cards -1.085, pairs +0.917, 1 -0.362, cl~ -0.235, al2~ -0.768, scl~ -0.416, sad~ -2.535, ~ +50.822, next -3.531, last +0.000
        (
            1.0378,
            0.997,
            0.1427,
            0.9755,
            0.4911,
            0.1271,
            0.3136,
            -1.0851,
            0.9172,
            -0.3617,
            -0.2346,
            -0.7678,
            -0.4163,
            -2.5347,
            50.8222,
            -3.5308,
            0.0,
        ),
        # stage 2: cl +1.017, al2 +1.004, al1 +0.047, chain +0.963, runs -0.116, scl -0.142, sad -0.024, cards -0.476, pairs +0.786, 1 +0.838, cl~ -0.000, al2~ +0.000, scl~ +0.000, sad~ +0.000, ~ +0.000, next -0.573, last +3.948
        (1.0174, 1.0035, 0.0473, 0.9629, -0.1163, -0.142, -0.0238, -0.4762, 0.7858, 0.8381, -0.0, 0.0, 0.0, 0.0, 0.0, -0.5726, 3.9482),
    ),
    4: (
        # stage 0: cl +2.050, al2 +1.127, al1 +0.342, chain +1.213, runs +1.538, scl +0.730, sad -1.019, cards +4.705, pairs +2.072, 1 +1.568, cl~ -1.400, al2~ +1.548, scl~ -3.042, sad~ -4.249, ~ +136.518, next -4.901, last +0.000
        (
            2.0505,
            1.1274,
            0.3417,
            1.2129,
            1.5376,
            0.7299,
            -1.0193,
            4.7048,
            2.0722,
            1.5683,
            -1.4003,
            1.5484,
            -3.0418,
            -4.2492,
            136.5185,
            -4.9008,
            0.0,
        ),
        # stage 1: cl +0.998, al2 +1.054, al1 +0.096, chain +1.007, runs +0.537, scl +0.017, sad +0.203, cards -0.311, pairs +0.818, 1 -0.103, cl~ -0.025, al2~ -0.740, scl~ +0.207, sad~ -3.206, ~ +41.163, next -3.458, last +0.000
        (
            0.998,
            1.0542,
            0.096,
            1.0073,
            0.5368,
            0.0172,
            0.2026,
            -0.3106,
            0.8184,
            -0.1035,
            -0.025,
            -0.7404,
            0.2073,
            -3.2064,
            41.163,
            -3.4578,
            0.0,
        ),
        # stage 2: cl +0.974, al2 +1.001, al1 +0.027, chain +0.982, runs -0.009, scl -0.108, sad -0.072, cards -0.006, pairs +0.421, 1 +1.227, cl~ +0.000, al2~ +0.000, scl~ +0.000, sad~ +0.000, ~ +0.000, next +0.203, last +3.858
        (0.9739, 1.0013, 0.0271, 0.9823, -0.0088, -0.1082, -0.0717, -0.0058, 0.4213, 1.2266, 0.0, 0.0, 0.0, 0.0, 0.0, 0.2034, 3.858),
    ),
    5: (
        # stage 0: cl +1.899, al2 +0.555, al1 +0.428, chain +1.285, runs +1.679, scl +0.422, sad -1.598, cards +7.187, pairs +2.030, 1 +2.396, cl~ -1.407, al2~ +3.538, scl~ -3.139, sad~ +0.714, ~ +95.589, next -5.068, last +0.000
        (
            1.8985,
            0.5555,
            0.4285,
            1.2849,
            1.679,
            0.422,
            -1.5979,
            7.187,
            2.03,
            2.3957,
            -1.4072,
            3.5375,
            -3.1388,
            0.714,
            95.5893,
            -5.0676,
            0.0,
        ),
        # stage 1: cl +1.006, al2 +1.053, al1 +0.069, chain +1.093, runs +0.733, scl +0.064, sad +0.095, cards -0.258, pairs +1.045, 1 -0.086, cl~ -0.141, al2~ -0.448, scl~ +0.060, sad~ -3.160, ~ +41.389, next -3.359, last +0.000
        (
            1.006,
            1.0527,
            0.0686,
            1.093,
            0.733,
            0.0642,
            0.0953,
            -0.2581,
            1.045,
            -0.086,
            -0.1405,
            -0.448,
            0.0605,
            -3.1605,
            41.3891,
            -3.3587,
            0.0,
        ),
        # stage 2: cl +0.985, al2 +0.991, al1 +0.013, chain +1.004, runs +0.214, scl -0.059, sad -0.212, cards -0.073, pairs +0.408, 1 +1.806, cl~ +0.000, al2~ +0.000, scl~ +0.000, sad~ +0.000, ~ +0.000, next +0.187, last +3.580
        (0.9845, 0.9909, 0.0125, 1.0044, 0.2138, -0.0593, -0.2122, -0.0727, 0.408, 1.8058, 0.0, 0.0, 0.0, 0.0, 0.0, 0.1871, 3.5799),
    ),
}


class Gains(NamedTuple):
    """Per country: worth of +1/+2 cloisters, +1/+2 advisors for one seat; per site: chain bonus."""

    cl1: list[float]
    cl2: list[float]
    adv1: list[float]
    adv2: list[float]
    site: list[float]


def _rel(delta: Sequence[float], p: int) -> float:
    """A seat's change minus the mean change of the others."""
    n = len(delta)
    if n <= 1:
        return float(delta[p])
    return delta[p] - (sum(delta) - delta[p]) / (n - 1)


class _CardsWorth(dict[tuple[str, ...], tuple[float, float]]):
    """Card set -> (CARD_COST per card, PAIR_KEEP per pair left in the hand), filled on demand."""

    def __init__(self, ev: Evaluator, hand: tuple[int, ...]) -> None:
        super().__init__()
        self.ev = ev
        self.hand = hand

    def __missing__(self, cards: tuple[str, ...]) -> tuple[float, float]:
        left = list(self.hand)
        for kid in cards:
            left[self.ev.kind_index[kid]] -= 1
        got = self[cards] = (CARD_COST * len(cards), PAIR_KEEP * sum(1 for x in left if x >= 2))
        return got


@mypyc_attr(native_class=False)  # a list subclass: mypyc compiles it as a Python class
class AdvisorTable(list[tuple[float, float] | None]):
    """Per country, seat p's (adv1, adv2) for one advisor position; None until asked for."""

    def __init__(self, ev: Evaluator, rows: tuple[tuple[int, ...], ...], p: int) -> None:
        super().__init__([None] * len(rows))
        self.ev = ev
        self.rows = rows
        self.p = p

    def get(self, c: int) -> tuple[float, float]:
        got = self[c]
        if got is None:
            got = self[c] = self.ev.advisor_gain(self.rows, c, self.p)
        return got


def _cloister_points(cloisters: Sequence[Sequence[int]], n: int, mult: int = 1) -> list[int]:
    """Each seat's points for the cloister majorities as they stand (R9), ``mult`` times."""
    cl = [0] * n
    for row in cloisters:
        if max(row):
            for p, v in enumerate(country_cloister_scores(row)):
                cl[p] += mult * v
    return cl


def _sites_of(owner: Sequence[int], n: int) -> list[list[int]]:
    """Each seat's cloister sites, in site order (``owner``: a site's seat, -1 free)."""
    mines: list[list[int]] = [[] for _ in range(n)]
    for v, o in enumerate(owner):
        if o >= 0:
            mines[o].append(v)
    return mines


class Evaluator:
    """Heuristics for one board (precomputed lookups)."""

    def __init__(self, board: Board) -> None:
        self.board = board
        self.C = len(board.countries)
        self.site_country = [s.country for s in board.sites]
        self.nb = board.neighbours
        self.alliances = [al.countries for al in board.alliances]
        self.by_country: list[list[tuple[int, int]]] = [[] for _ in range(self.C)]
        for a, b in self.alliances:
            self.by_country[a].append((a, b))
            self.by_country[b].append((a, b))
        self.kind_countries = [k.countries for k in board.cards]
        self.country_index = board.country_index
        self.country_ids = [c.id for c in board.countries]
        self.site_index = board.site_index
        self.kind_index = board.kind_index
        self.partners = [[b if a == c else a for a, b in self.by_country[c]] for c in range(self.C)]
        # memos of pure functions of small keys, for the search bots (see ``clear_memos``)
        self._ccs: dict[tuple[int, ...], list[int]] = {}
        self._cl_memo: dict[tuple[int, ...], tuple[float, float]] = {}
        self._adv_memo: dict[tuple[int | tuple[int, ...], ...], tuple[float, float]] = {}
        self._site_memo: dict[tuple[int, ...], list[float]] = {}
        self._chain_memo: dict[tuple[int, ...], tuple[int, list[tuple[int, list[int]]]]] = {}
        self._adv_tables: dict[tuple[int, tuple[tuple[int, ...], ...]], AdvisorTable] = {}
        self._cloisters_memo: dict[tuple[int | tuple[int, ...], ...], list[int]] = {}
        self._alliances_memo: dict[tuple[tuple[int, ...], ...], list[float]] = {}
        self._chains_by_owner: dict[tuple[int, ...], list[float]] = {}
        self._leaf_al: dict[tuple[tuple[int, ...], ...], tuple[list[float], list[float]]] = {}
        self._leaf_chains: dict[tuple[int, ...], list[tuple[float, float]]] = {}
        self._sites_by_owner: dict[tuple[int, ...], list[float]] = {}
        self._free_memo: dict[tuple[str, ...], list[int]] = {}
        self._pairs_memo: dict[tuple[str, ...], list[tuple[tuple[str, str], int, int]]] = {}
        self._cards_memo: dict[tuple[int, ...], dict[tuple[str, ...], tuple[float, float]]] = {}

    MEMO_LIMIT = 20_000  # entries per memo before it is emptied (memory stays bounded: some keys are a whole board)

    def clear_memos(self, full: bool = False) -> None:
        """Empty the memos that have grown past MEMO_LIMIT (all of them with ``full``).

        Every memo is of a pure function, so emptying one changes no result, only speed;
        the search bots call this before each decision."""
        for m in (
            self._ccs,
            self._cl_memo,
            self._adv_memo,
            self._site_memo,
            self._chain_memo,
            self._adv_tables,
            self._cards_memo,
            self._chains_by_owner,
            self._leaf_al,
            self._leaf_chains,
            self._sites_by_owner,
            self._alliances_memo,
            self._cloisters_memo,
            self._free_memo,
            self._pairs_memo,
        ):
            if full or len(m) > self.MEMO_LIMIT:
                m.clear()

    # -- static estimate ---------------------------------------------------------------

    @staticmethod
    def _alliance_holders(advisors: Sequence[Sequence[int]], n: int, pairs: Sequence[tuple[int, int]]) -> Iterator[tuple[int, int, bool]]:
        """For every alliance with advisors, in order, each seat that has the most advisors in
        one of its two countries or both: (seat, the alliance's advisors, both)."""
        for a, b in pairs:
            ra, rb = advisors[a], advisors[b]
            ta, tb = max(ra), max(rb)
            if not ta and not tb:
                continue
            value = sum(ra) + sum(rb)
            for p in range(n):
                ma = ta > 0 and ra[p] == ta
                mb = tb > 0 and rb[p] == tb
                if ma and mb:
                    yield p, value, True
                elif ma or mb:
                    yield p, value, False

    def _alliance_points(self, advisors: Sequence[Sequence[int]], n: int, pairs: Sequence[tuple[int, int]]) -> list[float]:
        pts = [0.0] * n
        for p, value, both in self._alliance_holders(advisors, n, pairs):
            pts[p] += value if both else PARTIAL_ALLIANCE * value
        return pts

    def estimate(self, s: State) -> list[float]:
        """Every seat's estimated final total (see the module docstring)."""
        n = s.n
        mult = 2 if s.exhaustions == 0 else 1
        est = [float(x) for x in s.scores]
        if s.is_over:
            return est
        # the cloister majorities as they stand: whole points, so their sum is exact in any order
        ckey: tuple[int | tuple[int, ...], ...] = (mult, *map(tuple, s.cloisters))
        cl = self._cloisters_memo.get(ckey)
        if cl is None:
            cl = self._cloisters_memo[ckey] = _cloister_points(s.cloisters, n, mult)
        for p in range(n):
            est[p] += cl[p]
        akey = tuple(map(tuple, s.advisors))
        al = self._alliances_memo.get(akey)
        if al is None:
            al = self._alliances_memo[akey] = self._alliance_points(s.advisors, n, self.alliances)
        owner = s.owner
        key = tuple(owner)
        chains = self._chains_by_owner.get(key)
        if chains is None:
            mines = _sites_of(owner, n)
            chains = self._chains_by_owner[key] = [self.chain_estimate(owner, p, tuple(mines[p])) for p in range(n)]
        for p in range(n):
            est[p] += al[p] + chains[p]
            est[p] += 0.01 * (s.supply_cl[p] + s.supply_adv[p])  # R12.1 tie-break
        return est

    # -- the search's leaf evaluation (fitted, see LEAF_WEIGHTS) -------------------------

    @staticmethod
    def leaf_stage(s: State) -> int:
        """0 before the intermediate scoring (R7), 1 after it, 2 in the final round (R8)."""
        return 2 if s.final_round else (0 if s.exhaustions == 0 else 1)

    def leaf_features(self, s: State, p: int) -> list[float]:
        """Seat p's features of :data:`LEAF_FEATURES` (the plain, slow version)."""
        n = s.n
        cl = 0
        for row in s.cloisters:
            if max(row):
                cl += country_cloister_scores(row)[p]
        full = part = 0.0
        for a, b in self.alliances:
            ra, rb = s.advisors[a], s.advisors[b]
            ta, tb = max(ra), max(rb)
            if not ta and not tb:
                continue
            value = sum(ra) + sum(rb)
            ma = ta > 0 and ra[p] == ta
            mb = tb > 0 and rb[p] == tb
            if ma and mb:
                full += value
            elif ma or mb:
                part += value
        mine = tuple([v for v, o in enumerate(s.owner) if o == p])
        ch = 0.0
        runs = 0.0
        if len(mine) >= 2:
            score, short = self._chain_parts(mine)
            ch = float(score)
            for size, border in short:
                if any(s.owner[y] < 0 for y in border):
                    runs += size - 1
        hand = s.hands[p]
        cards = float(sum(hand))
        pairs = float(sum(1 for x in hand if x >= 2))
        rem = (len(s.deck) - s.top) / len(s.deck) if s.deck else 0.0
        scl = float(s.supply_cl[p])
        sad = float(s.supply_adv[p])
        nxt = ((p - s.current) % n) / n
        last = 1.0 if s.final_round and p >= s.current else 0.0
        return [cl, full, part, ch, runs, scl, sad, cards, pairs, 1.0, cl * rem, full * rem, scl * rem, sad * rem, rem, nxt, last]

    def leaf_parts(self, s: State) -> tuple[list[int], tuple[list[float], list[float]], list[tuple[float, float]]]:
        """The board's parts of the leaf features, memoised: per seat the standing cloister
        majority points, (alliance points held in both countries, in one), and (chain
        points, cloisters beyond the first of open runs of 2-3)."""
        n = s.n
        ckey: tuple[int | tuple[int, ...], ...] = (1, *map(tuple, s.cloisters))  # estimate's memo, counted once
        cl = self._cloisters_memo.get(ckey)
        if cl is None:
            cl = self._cloisters_memo[ckey] = _cloister_points(s.cloisters, n)
        akey = tuple(map(tuple, s.advisors))
        al = self._leaf_al.get(akey)
        if al is None:
            full = [0.0] * n
            part = [0.0] * n
            for p, value, both in self._alliance_holders(s.advisors, n, self.alliances):
                if both:
                    full[p] += value
                else:
                    part[p] += value
            al = self._leaf_al[akey] = (full, part)
        owner = s.owner
        okey = tuple(owner)
        chains = self._leaf_chains.get(okey)
        if chains is None:
            mines = _sites_of(owner, n)
            chains = []
            for p in range(n):
                mine = tuple(mines[p])
                ch = runs = 0.0
                if len(mine) >= 2:
                    score, open_runs = self._open_runs(owner, mine)
                    ch = float(score)
                    runs = float(sum(size - 1 for size in open_runs))
                chains.append((ch, runs))
            self._leaf_chains[okey] = chains
        return cl, al, chains

    def leaf_estimate(self, s: State) -> list[float]:
        """Every seat's estimated final total by the fitted weights (:data:`LEAF_WEIGHTS`):
        ``leaf_features`` with the board's parts memoised (the same numbers)."""
        if s.is_over:
            return [float(x) for x in s.scores]
        n = s.n
        w = LEAF_WEIGHTS[n][self.leaf_stage(s)]
        w_cl, w_full, w_part, w_ch, w_runs, w_scl, w_sad, w_cards, w_pairs, w_one, w_clr, w_fullr, w_sclr, w_sadr, w_r, w_next, w_last = w
        cl, al, chains = self.leaf_parts(s)
        full, part = al
        rem = (len(s.deck) - s.top) / len(s.deck) if s.deck else 0.0
        cur = s.current
        fin = s.final_round
        out = []
        for p in range(n):
            hand = s.hands[p]
            scl = s.supply_cl[p]
            sad = s.supply_adv[p]
            ch, runs = chains[p]
            x = (
                w_cl * cl[p]
                + w_full * full[p]
                + w_part * part[p]
                + w_ch * ch
                + w_runs * runs
                + w_scl * scl
                + w_sad * sad
                + w_cards * sum(hand)
                + w_pairs * sum(1 for k in hand if k >= 2)
                + w_one
                + (w_clr * cl[p] + w_fullr * full[p] + w_sclr * scl + w_sadr * sad + w_r) * rem
                + w_next * (((p - cur) % n) / n)
                + (w_last if fin and p >= cur else 0.0)
            )
            out.append(s.scores[p] + x + 0.01 * (scl + sad))
        return out

    def leaf_estimate_slow(self, s: State) -> list[float]:
        """:meth:`leaf_estimate` as first written, from :meth:`leaf_features` (the tests' oracle)."""
        if s.is_over:
            return [float(x) for x in s.scores]
        w = LEAF_WEIGHTS[s.n][self.leaf_stage(s)]
        out = []
        for p in range(s.n):
            f = self.leaf_features(s, p)
            out.append(s.scores[p] + sum((a * b for a, b in zip(w, f)), 0.0) + 0.01 * (s.supply_cl[p] + s.supply_adv[p]))
        return out

    def chain_estimate(self, owner: Sequence[int], p: int, mine: tuple[int, ...] | None = None) -> float:
        """R11 chain points of seat p, plus a little for runs of 2-3 that may grow; the
        components of p's sites (``mine``, ascending) are memoised."""
        if mine is None:
            mine = tuple([v for v, o in enumerate(owner) if o == p])
        if len(mine) < 2:
            return 0.0
        score, open_runs = self._open_runs(owner, mine)
        extra = 0.0
        for size in open_runs:
            extra += CHAIN_SEED * (size - 1)
        return score + extra

    def _open_runs(self, owner: Sequence[int], mine: tuple[int, ...]) -> tuple[int, list[int]]:
        """The chain score of the sites ``mine`` (ascending, at least two; memoised), and the
        sizes of their runs of 2-3 with a free site beside them (runs that may still grow)."""
        got = self._chain_memo.get(mine)
        if got is None:
            got = self._chain_memo[mine] = self._chain_parts(mine)
        score, short = got
        return score, [size for size, border in short if any(owner[y] < 0 for y in border)]

    def _chain_parts(self, mine: tuple[int, ...]) -> tuple[int, list[tuple[int, list[int]]]]:
        """The chain score of these sites, and each run of 2-3 with the sites around it (in the
        order a depth-first walk from the lowest site meets them)."""
        nb = self.nb
        mset = set(mine)
        seen: set[int] = set()
        short: list[tuple[int, list[int]]] = []
        for v in mine:
            if v in seen:
                continue
            stack = [v]
            seen.add(v)
            size = 0
            border: list[int] = []
            while stack:
                x = stack.pop()
                size += 1
                for y in nb[x]:
                    if y in mset:
                        if y not in seen:
                            seen.add(y)
                            stack.append(y)
                    else:
                        border.append(y)
            if 1 < size < 4:
                short.append((size, border))
        return chain_score(mine, nb), short

    @staticmethod
    def relative(est: Sequence[float], p: int) -> float:
        """Seat p's estimate against the others: half the best other, half their mean."""
        others = [x for q, x in enumerate(est) if q != p]
        if not others:
            return float(est[p])
        return est[p] - 0.5 * max(others) - 0.5 * sum(others) / len(others)

    # -- cheap per-move tables ---------------------------------------------------------

    def reachable(self, hand: Sequence[int]) -> list[int]:
        """Countries a hand can place in now: those its cards name, or all with a pair (R4.3)."""
        if any(x >= 2 for x in hand):
            return list(range(self.C))
        out: set[int] = set()
        for k, x in enumerate(hand):
            if x:
                out.update(self.kind_countries[k])
        return sorted(out)

    def gains(self, s: State, p: int, countries: Sequence[int] | None = None) -> Gains:
        """What more pieces of seat p are worth, per country and per site (see module doc).

        ``countries`` limits the work to those countries (the others read 0).
        """
        n = s.n
        mult = 2 if s.exhaustions == 0 else 1
        C = self.C
        cl1 = [0.0] * C
        cl2 = [0.0] * C
        adv1 = [0.0] * C
        adv2 = [0.0] * C
        advisors = s.advisors
        tops = [max(r) for r in advisors]
        tots = [sum(r) for r in advisors]
        maj = [[t > 0 and x == t for x in r] for t, r in zip(tops, advisors)]
        others = n - 1 if n > 1 else 1
        PA = PARTIAL_ALLIANCE
        for c in range(C) if countries is None else countries:
            row = s.cloisters[c]
            free = len(s.free_sites[c])
            if free:
                base = country_cloister_scores(row)
                r = row[:]
                r[p] += 1
                one = country_cloister_scores(r)
                cl1[c] = mult * _rel([a - b for a, b in zip(one, base)], p)
                if free >= 2 and s.most_cloisters[c]:
                    r[p] += 1
                    two = country_cloister_scores(r)
                    cl2[c] = mult * _rel([a - b for a, b in zip(two, base)], p)
            mc = s.most_cloisters[c]
            if not s.supply_adv[p] or tots[c] >= max(mc, row[p] + 1 if free else 0) or not (mc or free):
                continue
            arow = advisors[c]
            mold = maj[c]
            for k in (1, 2):
                mine = arow[p] + k
                top = tops[c] if tops[c] > mine else mine
                mnew = [(x + k if q == p else x) == top for q, x in enumerate(arow)]
                dsum = 0.0
                dp = 0.0
                for a, b in self.by_country[c]:
                    d = b if a == c else a
                    md = maj[d]
                    vold = tots[c] + tots[d]
                    vnew = vold + k
                    for q in range(n):
                        o = vold if (mold[q] and md[q]) else (PA * vold if (mold[q] or md[q]) else 0.0)
                        w = vnew if (mnew[q] and md[q]) else (PA * vnew if (mnew[q] or md[q]) else 0.0)
                        if q == p:
                            dp += w - o
                        else:
                            dsum += w - o
                val = dp - dsum / others
                if k == 1:
                    adv1[c] = val
                else:
                    adv2[c] = val
        return Gains(cl1, cl2, adv1, adv2, self.site_bonus(s.owner, p))

    def cloister_gain(self, row: list[int], p: int, free: int, mult: int) -> tuple[float, float]:
        """(cl1, cl2) of :meth:`gains` for one country (the same numbers), memoised."""
        key = (p, mult, free if free < 2 else 2, *row)
        got = self._cl_memo.get(key)
        if got is not None:
            return got
        cl1 = cl2 = 0.0
        if free:
            base = country_cloister_scores(row)
            r = row[:]
            r[p] += 1
            one = country_cloister_scores(r)
            cl1 = mult * _rel([a - b for a, b in zip(one, base)], p)
            if free >= 2 and max(row):
                r[p] += 1
                two = country_cloister_scores(r)
                cl2 = mult * _rel([a - b for a, b in zip(two, base)], p)
        got = self._cl_memo[key] = (cl1, cl2)
        return got

    def advisor_table(self, advisors: Sequence[Sequence[int]], p: int) -> AdvisorTable:
        """Per country, (adv1, adv2) of :meth:`gains` for seat p (the same numbers), computed
        on first use: one list per advisor position and seat, memoised."""
        rows = tuple(map(tuple, advisors))
        key = (p, rows)
        got = self._adv_tables.get(key)
        if got is None:
            got = self._adv_tables[key] = AdvisorTable(self, rows, p)
        return got

    def free_index(self, free: tuple[str, ...]) -> list[int]:
        """The site indices of a tuple of site ids (a country's free sites), memoised."""
        got = self._free_memo.get(free)
        if got is None:
            got = self._free_memo[free] = [self.site_index[x] for x in free]
        return got

    def free_pairs(self, free: tuple[str, ...]) -> list[tuple[tuple[str, str], int, int]]:
        """Every two of these sites in ``legal_moves`` order: (the ids sorted, index of the first, of the second)."""
        got = self._pairs_memo.get(free)
        if got is None:
            got = []
            for x, y in combinations(free, 2):
                if y < x:
                    x, y = y, x
                got.append(((x, y), self.site_index[x], self.site_index[y]))
            self._pairs_memo[free] = got
        return got

    def cards_worth(self, hand: Sequence[int]) -> dict[tuple[str, ...], tuple[float, float]]:
        """Per card set this hand can play: (the cost of the cards spent, the worth of the pairs kept)."""
        key = tuple(hand)
        got = self._cards_memo.get(key)
        if got is None:
            got = self._cards_memo[key] = _CardsWorth(self, key)
        return got

    def advisor_gain(self, advisors: Sequence[Sequence[int]], c: int, p: int) -> tuple[float, float]:
        """(adv1, adv2) of :meth:`gains` for one country where advisors may go (the same numbers), memoised."""
        key: tuple[int | tuple[int, ...], ...] = (c, p, tuple(advisors[c]), *[tuple(advisors[d]) for d in self.partners[c]])
        got = self._adv_memo.get(key)
        if got is not None:
            return got
        n = len(advisors[c])
        others = n - 1 if n > 1 else 1
        PA = PARTIAL_ALLIANCE
        arow = advisors[c]
        tc = sum(arow)
        topc = max(arow)
        mold = [topc > 0 and x == topc for x in arow]
        out = [0.0, 0.0]
        for k in (1, 2):
            mine = arow[p] + k
            top = topc if topc > mine else mine
            mnew = [(x + k if q == p else x) == top for q, x in enumerate(arow)]
            dsum = 0.0
            dp = 0.0
            for d in self.partners[c]:
                drow = advisors[d]
                td = max(drow)
                md = [td > 0 and x == td for x in drow]
                vold = tc + sum(drow)
                vnew = vold + k
                for q in range(n):
                    o = vold if (mold[q] and md[q]) else (PA * vold if (mold[q] or md[q]) else 0.0)
                    w = vnew if (mnew[q] and md[q]) else (PA * vnew if (mnew[q] or md[q]) else 0.0)
                    if q == p:
                        dp += w - o
                    else:
                        dsum += w - o
            out[k - 1] = dp - dsum / others
        got = self._adv_memo[key] = (out[0], out[1])
        return got

    def site_bonus_memo(self, owner: Sequence[int], p: int) -> list[float]:
        """:meth:`site_bonus` for every site not p's own (read it only at free sites), memoised on p's sites."""
        key = (p, *owner)
        got = self._sites_by_owner.get(key)
        if got is not None:
            return got
        mine = tuple([v for v, o in enumerate(owner) if o == p])
        got = self._site_memo.get(mine)
        if got is None:
            mask = [-1] * len(owner)
            for v in mine:
                mask[v] = p
            got = self._site_memo[mine] = self.site_bonus(mask, p)
        self._sites_by_owner[key] = got
        return got

    def site_bonus(self, owner: Sequence[int], p: int) -> list[float]:
        """Per free site: a chain bonus for a cloister of seat p there (R11)."""
        nb = self.nb
        comp = [-1] * len(owner)
        sizes: list[int] = []
        for v, o in enumerate(owner):
            if o != p or comp[v] >= 0:
                continue
            cid = len(sizes)
            comp[v] = cid
            stack = [v]
            size = 0
            while stack:
                x = stack.pop()
                size += 1
                for y in nb[x]:
                    if owner[y] == p and comp[y] < 0:
                        comp[y] = cid
                        stack.append(y)
            sizes.append(size)
        out = [0.0] * len(owner)
        for v, o in enumerate(owner):
            if o >= 0:
                continue
            joined = {comp[y] for y in nb[v] if comp[y] >= 0}
            if not joined:
                continue
            old = sum(sizes[i] for i in joined)
            new = old + 1
            val_new = new if new >= 4 else CHAIN_SEED * (new - 1) * 1.5
            val_old = sum(sizes[i] if sizes[i] >= 4 else CHAIN_SEED * (sizes[i] - 1) for i in joined)
            out[v] = max(0.0, val_new - val_old)
        return out

    def fast_place_score(self, m: Place, g: Gains, hand: Sequence[int] | None = None) -> float:
        """A placement's worth from the tables, without playing it."""
        c = self.country_index[m.country]
        ncl = len(m.cloisters)
        v = 0.0
        if ncl == 1:
            v += g.cl1[c] + g.site[self.site_index[m.cloisters[0]]]
        elif ncl == 2:
            v += g.cl2[c] + g.site[self.site_index[m.cloisters[0]]] + g.site[self.site_index[m.cloisters[1]]]
        if m.advisors == 1:
            v += g.adv1[c]
        elif m.advisors == 2:
            v += g.adv2[c]
        v -= CARD_COST * len(m.cards)
        if hand is not None:
            v += PAIR_KEEP * self._pairs_left(hand, m.cards)
        return v

    def _pairs_left(self, hand: Sequence[int], cards: Sequence[str]) -> int:
        left = list(hand)
        for kid in cards:
            left[self.kind_index[kid]] -= 1
        return sum(1 for x in left if x >= 2)

    def hand_value(self, s: State, p: int, hand: Sequence[int], g: Gains) -> float:
        """The best placement worth (from the tables) that this hand would allow now."""
        best = 0.0
        for m in s.with_hand(p, hand).legal_moves():
            if isinstance(m, Place):
                v = self.fast_place_score(m, g) + CARD_COST * len(m.cards)
                if v > best:
                    best = v
        return best + 0.3 * sum(1 for x in hand if x >= 2)

    # -- draw decisions ------------------------------------------------------------------

    def choose_draw(self, s: State, p: int, moves: Sequence[Move], g: Gains | None = None) -> Move:
        """R5.1: take a display card if it makes the hand better than an average deck card."""
        assert s.phase == DRAW
        if len(moves) == 1:
            return moves[0]
        best_move = moves[0]
        best = -1e9
        for m, worth in zip(moves, self.draw_worths(s, p, moves, g), strict=True):
            assert isinstance(m, Draw)
            v = worth + 0.05 if m.source == DECK else worth  # a secret card is worth a little more (R13.2)
            if v > best:
                best, best_move = v, m
        return best_move

    def draw_worths(self, s: State, p: int, moves: Sequence[Move], g: Gains | None = None) -> list[float]:
        """For each draw decision (R5.1), the worth of the hand it makes (:meth:`hand_value`);
        the draw pile's is the average over the cards seat p cannot locate."""
        if g is None:
            g = self.gains(s, p)
        hand = s.hands[p]
        deck_value: float | None = None
        out = []
        for m in moves:
            assert isinstance(m, Draw)
            if m.source == DECK:
                if deck_value is None:
                    unseen = self._unseen_for(s, p)
                    total = sum(unseen)
                    deck_value = 0.0
                    for k, cnt in enumerate(unseen):
                        if cnt:
                            h = list(hand)
                            h[k] += 1
                            deck_value += cnt / total * self.hand_value(s, p, h, g)
                out.append(deck_value)
            else:
                h = list(hand)
                h[self.kind_index[m.source]] += 1
                out.append(self.hand_value(s, p, h, g))
        return out

    def _unseen_for(self, s: State, p: int) -> list[int]:
        """Per kind, cards seat p cannot locate (public information and p's hand only)."""
        out = []
        for k, kind in enumerate(self.board.cards):
            x = kind.count - s.removed[k] - s.discard[k] - s.display.count(k) - s.hands[p][k]
            x -= sum(s.known[q][k] for q in range(s.n) if q != p)
            out.append(max(0, x))
        if not sum(out):
            out = [1] * len(out)
        return out
