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
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import combinations
from typing import NamedTuple

from kardinal.rules.board import Board
from kardinal.rules.chains import chain_score
from kardinal.rules.moves import DECK, Draw, Move, Place
from kardinal.rules.scoring import country_cloister_scores
from kardinal.rules.state import DRAW, State

__all__ = ["Evaluator", "Gains", "PARTIAL_ALLIANCE", "CHAIN_SEED"]

PARTIAL_ALLIANCE = 0.25  # credit for the majority in one country of an alliance
CHAIN_SEED = 0.35  # credit per cloister (beyond the first) of a run shorter than 4
CARD_COST = 0.25  # a card spent (cards are replaced, but good hands take time to build)
PAIR_KEEP = 0.6  # a pair left in hand: a joker for later (R4.3)


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
            self._sites_by_owner,
            self._alliances_memo,
            self._cloisters_memo,
            self._free_memo,
            self._pairs_memo,
        ):
            if full or len(m) > self.MEMO_LIMIT:
                m.clear()

    # -- static estimate ---------------------------------------------------------------

    def _alliance_points(self, advisors: Sequence[Sequence[int]], n: int, pairs: Sequence[tuple[int, int]]) -> list[float]:
        pts = [0.0] * n
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
                    pts[p] += value
                elif ma or mb:
                    pts[p] += PARTIAL_ALLIANCE * value
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
            cl = [0] * n
            for row in s.cloisters:
                if max(row):
                    for p, v in enumerate(country_cloister_scores(row)):
                        cl[p] += mult * v
            self._cloisters_memo[ckey] = cl
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
            mines: list[list[int]] = [[] for _ in range(n)]
            for v, o in enumerate(owner):
                if o >= 0:
                    mines[o].append(v)
            chains = self._chains_by_owner[key] = [self.chain_estimate(owner, p, tuple(mines[p])) for p in range(n)]
        for p in range(n):
            est[p] += al[p] + chains[p]
            est[p] += 0.01 * (s.supply_cl[p] + s.supply_adv[p])  # R12.1 tie-break
        return est

    def chain_estimate(self, owner: Sequence[int], p: int, mine: tuple[int, ...] | None = None) -> float:
        """R11 chain points of seat p, plus a little for runs of 2-3 that may grow; the
        components of p's sites (``mine``, ascending) are memoised."""
        if mine is None:
            mine = tuple([v for v, o in enumerate(owner) if o == p])
        if len(mine) < 2:
            return 0.0
        got = self._chain_memo.get(mine)
        if got is None:
            got = self._chain_memo[mine] = self._chain_parts(mine)
        score, short = got
        extra = 0.0
        for size, border in short:
            for y in border:
                if owner[y] < 0:
                    extra += CHAIN_SEED * (size - 1)
                    break
        return score + extra

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
