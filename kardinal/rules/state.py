"""The rules core: game state, legal moves and their effects (R1-R8, R12, R14).

Pure: no I/O, no printing. Chance is explicit and seeded: the deck order is fixed at
setup (from a seed, or given by a record), and the reshuffle of R7.3 is derived from
the same seed (or given by a record). The same seed and moves give the same game.

Internally everything is small integers and flat lists so that copying a state for
search is cheap; moves and views carry the ids of the board file.
"""

from __future__ import annotations

import random
import secrets
from collections.abc import Iterable, Sequence
from enum import StrEnum
from itertools import combinations
from typing import Any, Final, Literal, cast

from mypy_extensions import mypyc_attr

from .board import Board, BoardError, get_board, standard_board
from .events import Decision, Drew, Event, GameEnded, IntermediateScoring, LastRound, NewDrawPile, Revealed
from .moves import DECK, Draw, Exchange, Move, Pass, Place
from .scoring import FinalScoring, cloister_scoring, final_scoring, winners
from .variants import JOKER_ANYWHERE, parse_variants

__all__ = [
    "State",
    "Phase",
    "RuleError",
    "new_game",
    "legal_moves",
    "apply",
    "MAIN",
    "DRAW",
    "OVER",
    "HAND_SIZE",
    "DISPLAY_SIZE",
]

HAND_SIZE: Final = 3  # R2.2, R5.1
DISPLAY_SIZE: Final = 2  # R2.2, R5.2
MAX_PIECES: Final = 2  # R4.5
MAX_CARDS: Final = 3  # R4.5


class RuleError(ValueError):
    """A move the rules do not allow. ``rule`` is the rule's number, ``code`` a stable tag,
    ``message`` English words, and ``params`` what a client needs to say it in any language
    (ids of countries, sites and cards; counts): the code with its params is the refusal.
    """

    def __init__(self, rule: str, code: str, message: str, **params: str | int) -> None:
        super().__init__(f"{rule}: {message}")
        self.rule = rule
        self.code = code
        self.message = message
        self.params = params


class Phase(StrEnum):
    """Whose decision comes next, and of what sort."""

    MAIN = "main"  # the player to act plays cards or exchanges (R3)
    DRAW = "draw"  # the player refills the hand, card by card (R5.1)
    OVER = "over"  # the game has ended (R8)


MAIN: Final = Phase.MAIN
DRAW: Final = Phase.DRAW
OVER: Final = Phase.OVER


# every field of a State, in one place: __slots__ (the pure-Python class), pickling
_FIELDS: Final = (
    "board",
    "n",
    "variants",
    "joker_anywhere",
    "hands",
    "known",
    "display",
    "deck",
    "initial_deck",
    "top",
    "discard",
    "removed",
    "owner",
    "cloisters",
    "advisors",
    "advisors_total",
    "most_cloisters",
    "free_sites",
    "supply_cl",
    "supply_adv",
    "scores",
    "current",
    "phase",
    "exhaustions",
    "final_round",
    "turns",
    "seed",
    "reshuffle",
    "fixed_reshuffle",
    "intermediate_scoring",
    "final_scoring",
    "history",
    "_winners",
    "_events",
)


# Compiled (kardinal/native.py), State is a native class; this option keeps Python's way of
# making one: State.__new__ makes a state without its fields, which copy() and pickle fill
# in (mypyc's native classes otherwise run __init__ in __new__), State(...) runs __init__,
# and a subclass may be written in Python
@mypyc_attr(allow_interpreted_subclasses=True)
class State:
    """One position of a game: play it with :meth:`play`, copy it with :meth:`copy`.

    Build one with :func:`new_game` (or, from a view, ``kardinal.bots.determinize``):
    the constructor takes a position and derives the rest. Only the rules package
    writes the fields; other code reads them, and changes a position only through the
    named methods below (``play``, ``play_trusted``, ``with_hand``, ``set_pile``,
    ``deal``, ``fix_next_card``, ``reseed``).

    >>> s = new_game(3, seed=1)
    >>> s.current, s.phase, s.deck_size
    (0, <Phase.MAIN: 'main'>, 34)
    """

    __slots__ = _FIELDS

    board: Board
    n: int
    variants: tuple[str, ...]  # the rule variants of this game (R14), sorted
    joker_anywhere: bool  # variant joker-anywhere (R4.3)
    hands: list[list[int]]  # [seat][kind] counts; private (R13.2)
    known: list[list[int]]  # [seat][kind]: cards publicly known to be in that hand (taken from the display)
    display: list[int]  # kinds face up, sorted
    deck: tuple[int, ...]  # the current draw pile as laid out, top first; cards before ``top`` are gone
    initial_deck: tuple[int, ...]  # the deck as set up (R2.2), for the record
    top: int  # index in ``deck`` of the draw pile's top card
    discard: list[int]  # [kind] counts, public
    removed: list[int]  # [kind] counts removed at setup (R2.1), public
    owner: list[int]  # [site] -> seat or -1
    cloisters: list[list[int]]  # [country][seat]
    advisors: list[list[int]]  # [country][seat]
    advisors_total: list[int]  # [country]
    most_cloisters: list[int]  # [country]: largest number of cloisters of one player, the advisor limit (R4.8)
    free_sites: list[tuple[str, ...]]  # [country]: ids of free cloister sites
    supply_cl: list[int]  # [seat] cloisters left in supply (R1.2)
    supply_adv: list[int]  # [seat] advisors left in supply (R1.2)
    scores: list[int]
    current: int
    phase: Phase
    exhaustions: int  # times the draw pile has been used up (R7, R8)
    final_round: bool  # R8.1: the round is being completed
    turns: list[int]  # turns taken per seat
    seed: int | None  # decides the reshuffle when none is fixed; hidden from everyone (R13)
    reshuffle: tuple[int, ...] | None  # the draw pile formed at R7.3, top first
    fixed_reshuffle: tuple[int, ...] | None  # the R7.3 order given in advance (a record, a chance node)
    intermediate_scoring: list[list[int]] | None  # [country][seat] points of R7.2
    final_scoring: FinalScoring | None
    history: list[Decision] | None  # every decision with what it caused; all public but Drew.kind (R13)
    _winners: list[int] | None
    _events: list[Event] | None  # what the decision being played has caused so far

    # -- construction -------------------------------------------------------------

    def __init__(
        self,
        board: Board,
        players: int,
        *,
        hands: Sequence[Sequence[int]],
        display: Sequence[int],
        deck: Sequence[int],
        removed: Sequence[int],
        top: int = 0,
        initial_deck: Sequence[int] | None = None,
        known: Sequence[Sequence[int]] | None = None,
        discard: Sequence[int] | None = None,
        owner: Sequence[int] | None = None,
        advisors: Sequence[Sequence[int]] | None = None,
        supply: Sequence[tuple[int, int]] | None = None,
        scores: Sequence[int] | None = None,
        current: int = 0,
        phase: Phase | str = Phase.MAIN,
        exhaustions: int = 0,
        final_round: bool = False,
        turns: Sequence[int] | None = None,
        seed: int | None = None,
        reshuffle: Sequence[int] | None = None,
        intermediate_scoring: Sequence[Sequence[int]] | None = None,
        history: Sequence[Decision] | bool = True,
        variants: Iterable[str] = (),
    ) -> None:
        """A position; everything that follows from it (cloister counts, limits, free sites) is derived.

        ``deck``: the draw pile from ``top`` on, top first (kinds as indices); ``reshuffle``:
        the order of the R7.3 pile fixed in advance (else ``seed`` decides it);
        ``history``: True for an empty history, False for none (search copies), or the
        decisions so far.
        """
        b = board
        K, C, S = len(b.cards), len(b.countries), len(b.sites)
        self.board = b
        self.n = players
        self.variants = parse_variants(variants)
        self.joker_anywhere = JOKER_ANYWHERE in self.variants
        self.hands = [list(h) for h in hands]
        self.known = [list(k) for k in known] if known is not None else [[0] * K for _ in range(players)]
        self.display = sorted(display)
        self.deck = tuple(deck)
        self.initial_deck = tuple(initial_deck) if initial_deck is not None else self.deck
        self.top = top
        self.discard = list(discard) if discard is not None else [0] * K
        self.removed = list(removed)
        self.owner = list(owner) if owner is not None else [-1] * S
        self.cloisters = [[0] * players for _ in range(C)]
        for s, p in enumerate(self.owner):
            if p >= 0:
                self.cloisters[b.sites[s].country][p] += 1
        self.advisors = [list(r) for r in advisors] if advisors is not None else [[0] * players for _ in range(C)]
        self.advisors_total = [sum(r) for r in self.advisors]
        self.most_cloisters = [max(r) for r in self.cloisters]
        self.free_sites = [tuple(b.sites[i].id for i in c.sites if self.owner[i] < 0) for c in b.countries]
        if supply is None:
            supply = [(b.supply_cloisters, b.supply_advisors)] * players
        self.supply_cl = [c for c, _ in supply]
        self.supply_adv = [a for _, a in supply]
        self.scores = list(scores) if scores is not None else [0] * players
        self.current = current
        self.phase = Phase(phase)
        self.exhaustions = exhaustions
        self.final_round = final_round
        self.turns = list(turns) if turns is not None else [0] * players
        self.seed = seed
        self.reshuffle = None
        self.fixed_reshuffle = tuple(reshuffle) if reshuffle is not None else None
        self.intermediate_scoring = [list(r) for r in intermediate_scoring] if intermediate_scoring is not None else None
        self.final_scoring = None
        self.history = list(history) if not isinstance(history, bool) else ([] if history else None)
        self._winners = None
        self._events = None

    def copy(self, history: bool = True) -> State:
        """An independent copy; ``history=False`` drops the history (for search: cheaper)."""
        s = State.__new__(State)
        s.board = self.board
        s.n = self.n
        s.variants = self.variants
        s.joker_anywhere = self.joker_anywhere
        s.hands = [h[:] for h in self.hands]
        s.known = [k[:] for k in self.known]
        s.display = self.display[:]
        s.deck = self.deck
        s.initial_deck = self.initial_deck
        s.top = self.top
        s.discard = self.discard[:]
        s.removed = self.removed
        s.owner = self.owner[:]
        s.cloisters = [r[:] for r in self.cloisters]
        s.advisors = [r[:] for r in self.advisors]
        s.advisors_total = self.advisors_total[:]
        s.most_cloisters = self.most_cloisters[:]
        s.free_sites = self.free_sites[:]
        s.supply_cl = self.supply_cl[:]
        s.supply_adv = self.supply_adv[:]
        s.scores = self.scores[:]
        s.current = self.current
        s.phase = self.phase
        s.exhaustions = self.exhaustions
        s.final_round = self.final_round
        s.turns = self.turns[:]
        s.seed = self.seed
        s.reshuffle = self.reshuffle
        s.fixed_reshuffle = self.fixed_reshuffle
        s.intermediate_scoring = self.intermediate_scoring
        s.final_scoring = self.final_scoring
        s.history = self.history[:] if (history and self.history is not None) else None
        s._winners = self._winners
        s._events = None
        return s

    def __getstate__(self) -> dict[str, Any]:
        """Pickled small: an installed board travels as its id, not as its tables."""
        out = {k: getattr(self, k) for k in _FIELDS}
        out["board"] = _board_ref(self.board)
        return out

    def __setstate__(self, data: dict[str, Any]) -> None:
        for k in _FIELDS:
            setattr(self, k, data[k])
        if isinstance(self.board, str):
            self.board = get_board(self.board)

    def __repr__(self) -> str:
        w = "" if self._winners is None else f", winners={self._winners}"
        v = f", variants={list(self.variants)}" if self.variants else ""
        return (
            f"<State {self.n} players{v}, seat {self.current} to {self.phase.value}, "
            f"scores={self.scores}, pile={self.deck_size}, exhaustions={self.exhaustions}{w}>"
        )

    def __str__(self) -> str:
        """A compact picture of the position (public information and every hand).

        >>> print(new_game(3, seed=1))  # doctest: +ELLIPSIS
        3 players, seat 0 to main; pile 34, display ..., discard 0, exhaustions 0
        England     0/5 sites  cl 0 0 0  adv 0 0 0 / limit 0
        ...
        >seat 0: 0 points, hand ..., supply 20 cloisters 8 advisors
        ...
        """
        b = self.board
        short = [k.short for k in b.cards]
        lines = [
            f"{self.n} players, seat {self.current} to {self.phase.value}; pile {self.deck_size}, "
            f"display {' '.join(short[k] for k in self.display) or '-'}, discard {sum(self.discard)}, "
            f"exhaustions {self.exhaustions}" + (", last round" if self.final_round else "")
        ]
        for c, country in enumerate(b.countries):
            taken = len(country.sites) - len(self.free_sites[c])
            lines.append(
                f"{country.name_de:<11} {taken}/{len(country.sites)} sites  cl {' '.join(map(str, self.cloisters[c]))}  "
                f"adv {' '.join(map(str, self.advisors[c]))} / limit {self.most_cloisters[c]}"
            )
        for p in range(self.n):
            hand = " ".join(short[k] for k, c in enumerate(self.hands[p]) for _ in range(c)) or "-"
            mark = ">" if p == self.current and self.phase != OVER else " "
            lines.append(
                f"{mark}seat {p}: {self.scores[p]} points, hand {hand}, supply {self.supply_cl[p]} cloisters {self.supply_adv[p]} advisors"
            )
        return "\n".join(lines)

    # -- changing a position from outside the rules, by name ----------------------

    def with_hand(self, seat: int, hand: Sequence[int]) -> State:
        """A copy (no history) in which ``seat`` holds ``hand`` and is to play (what could they do with it?)."""
        t = self.copy(history=False)
        t.hands[seat] = list(hand)
        t.current = seat
        t.phase = MAIN
        return t

    def set_pile(self, hands: Sequence[Sequence[int]], pile: Sequence[int], seed: int | None) -> None:
        """Replace the hidden cards: every hand and the draw pile (top first), and the chance seed.

        For samplers (a determinization, OpenSpiel's resampling) that fill in what a player
        cannot see; the public position is unchanged. The order of a reshuffled pile (R7.3)
        is hidden too: only its composition is kept.
        """
        self.hands = [list(h) for h in hands]
        self.deck = self.initial_deck = tuple(pile)
        self.top = 0
        self.seed = seed
        if self.reshuffle is not None:
            self.reshuffle = tuple(sorted(self.reshuffle))

    def fix_next_card(self, offset: int, kind: int) -> None:
        """Make ``kind`` the card ``offset`` places below the top of the draw pile (an explicit chance outcome)."""
        at = self.top + offset
        deck = list(self.deck)
        j = deck.index(kind, at)
        deck[at], deck[j] = deck[j], deck[at]
        self.deck = tuple(deck)

    def deal(self, kind: int, seat: int | None) -> None:
        """R2.2 as a chance outcome: the top card (made ``kind``) goes to ``seat``'s hand, or face up (None)."""
        self.fix_next_card(0, kind)
        self.top += 1
        if seat is None:
            self.display.append(kind)
            self.display.sort()
        else:
            self.hands[seat][kind] += 1

    def reseed(self, seed: int | None) -> None:
        """Set the seed that decides the reshuffle (R7.3) when it is not fixed in advance."""
        self.seed = seed

    def play_with_reshuffle(self, move: Move, reshuffle: Sequence[int]) -> None:
        """Play a legal move (unchecked) whose R7.3 reshuffle, if it causes one, has this order."""
        self.fixed_reshuffle = tuple(reshuffle)
        try:
            self.play_trusted(move)
        finally:
            self.fixed_reshuffle = None

    # -- simple queries -----------------------------------------------------------

    @property
    def is_over(self) -> bool:
        return self.phase == OVER

    @property
    def deck_size(self) -> int:
        return len(self.deck) - self.top

    @property
    def winners(self) -> list[int] | None:
        return self._winners

    def hand_size(self, seat: int) -> int:
        return sum(self.hands[seat])

    def hand_ids(self, seat: int) -> list[str]:
        """The cards of a hand as kind ids, sorted (one entry per card)."""
        cards = self.board.cards
        return [cards[k].id for k, c in enumerate(self.hands[seat]) for _ in range(c)]

    def pieces_left(self, seat: int) -> int:
        return self.supply_cl[seat] + self.supply_adv[seat]

    def advisor_limit(self, country: int) -> int:
        return self.most_cloisters[country]

    def key(self) -> tuple[Any, ...]:
        """Everything that determines the game from here on (for equality in tests)."""
        return (
            self.n,
            tuple(map(tuple, self.hands)),
            tuple(map(tuple, self.known)),
            tuple(self.display),
            self.deck[self.top :],
            tuple(self.discard),
            tuple(self.owner),
            tuple(map(tuple, self.advisors)),
            tuple(self.supply_cl),
            tuple(self.supply_adv),
            tuple(self.scores),
            self.current,
            self.phase,
            self.exhaustions,
            self.final_round,
            tuple(self.turns),
        )

    # -- legal moves --------------------------------------------------------------

    def legal_moves(self) -> list[Move]:
        """Every legal decision for the player to act, without duplicates."""
        if self.phase == DRAW:
            return self._draw_moves()
        if self.phase == OVER:
            return []
        moves: list[Move] = self._placements(self.current)
        moves += self._exchanges(self.current)
        if not moves:
            return [Pass()]
        return moves

    def _draw_moves(self) -> list[Move]:
        key = (self.board, tuple(self.display), self.top < len(self.deck))
        got = _DRAW_MEMO.get(key)
        if got is None:
            kinds = self.board.cards
            new = tuple.__new__  # a NamedTuple's own __new__ is a Python function: slower
            got = [new(Draw, (kinds[k].id,)) for k in sorted(set(self.display))]
            if key[2]:
                got.append(new(Draw, (DECK,)))
            if len(_DRAW_MEMO) > _TAKE_MEMO_SIZE:
                _DRAW_MEMO.clear()
            _DRAW_MEMO[key] = got
        return got[:]  # the caller's own list

    def _exchanges(self, seat: int) -> list[Move]:
        """The legal exchanges (R6): a shared list (do not change it)."""
        key = (self.board, tuple(self.hands[seat]), tuple(self.display), self.top < len(self.deck))
        got = _EXCHANGE_MEMO.get(key)
        if got is None:
            kinds = self.board.cards
            takes = [kinds[k].id for k in sorted(set(self.display))]
            if key[3]:
                takes.append(DECK)
            new = tuple.__new__
            got = [new(Exchange, (kinds[k].id, t)) for k, c in enumerate(self.hands[seat]) if c for t in takes]
            if len(_EXCHANGE_MEMO) > _TAKE_MEMO_SIZE:
                _EXCHANGE_MEMO.clear()
            _EXCHANGE_MEMO[key] = got
        return got

    def _placements(self, seat: int) -> list[Move]:
        scl = self.supply_cl[seat]
        sad = self.supply_adv[seat]
        if not scl and not sad:
            return []
        key = (self.board, self.joker_anywhere, tuple(self.hands[seat]))
        combos = _card_combos(self.board, self.joker_anywhere, key[2])
        memo = _PLACE_MEMO.get(key)
        if memo is None:
            if len(_PLACE_MEMO) > _PLACE_MEMO_HANDS:
                _PLACE_MEMO.clear()
            memo = _PLACE_MEMO[key] = [{} for _ in combos]
        out: list[Move] = []
        cids = _country_ids(self.board)
        places = _PLACES.get(key[:2])
        if places is None:
            places = _PLACES[key[:2]] = {}
        for c, (ones, twos) in enumerate(combos):
            if not ones:
                continue
            free = self.free_sites[c]
            mc = self.most_cloisters[c]
            if mc == 0:
                # R4.6: an empty country takes only one piece, a cloister
                if not scl:
                    continue
                ways = _EMPTY
            else:
                at = self.advisors_total[c]
                ways = 0
                if scl:
                    ways |= _SITE
                    if scl >= 2:
                        ways |= _TWO_SITES
                if sad and at < mc:
                    ways |= _ADVISOR
                if scl and sad and at + 1 <= max(mc, self.cloisters[c][seat] + 1):
                    ways |= _SITE_ADVISOR
                if sad >= 2 and at + 2 <= mc:
                    ways |= _TWO_ADVISORS
            country = memo[c]
            got = country.get((free, ways))
            if got is None:
                if len(country) > _PLACE_MEMO_COUNTRY:
                    country.clear()
                got = country[(free, ways)] = _country_placements(places, cids[c], ones, twos, free, ways)
            out += got
        return out

    def card_combos(self, seat: int) -> list[tuple[list[tuple[str, ...]], list[tuple[str, ...]]]]:
        """Per country: the card sets (sorted kind ids) with which this seat's hand places one
        piece, and two pieces (R4.2-R4.5), as :meth:`legal_moves` uses them. Shared and
        cached: do not change the lists. For search bots that score placements without
        building every move."""
        return _card_combos(self.board, self.joker_anywhere, tuple(self.hands[seat]))

    def can_place_any(self, seat: int) -> bool:
        """R8.3: whether this player could place any piece at all, whatever their cards."""
        if self.supply_cl[seat] and any(self.free_sites):
            return True
        if self.supply_adv[seat]:
            return any(t < m for t, m in zip(self.advisors_total, self.most_cloisters))
        return False

    # -- checking a move ----------------------------------------------------------

    def check(self, move: object) -> None:
        """Raise RuleError naming the rule if the move is not legal here."""
        if self.phase == OVER:
            raise RuleError("R8", "game_over", "the game is over")
        if isinstance(move, Draw):
            self._check_draw(move)
        elif self.phase == DRAW:
            raise RuleError("R5.1", "must_draw", "the hand must be refilled first: draw a card from the display or the draw pile")
        elif isinstance(move, Place):
            self._check_place(move)
        elif isinstance(move, Exchange):
            self._check_exchange(move)
        elif isinstance(move, Pass):
            if self._placements(self.current) or self._exchanges(self.current):
                raise RuleError("R3.1", "cannot_pass", "passing is allowed only when you can neither place a piece nor exchange a card")
        else:
            raise RuleError("R3", "not_a_move", f"not a move: {move!r}")

    def _kind(self, ident: object, rule: str) -> int:
        i = self.board.kind_index.get(ident) if isinstance(ident, str) else None
        if i is None:
            raise RuleError(rule, "unknown_card", f"there is no card kind {ident!r}", card=str(ident))
        return i

    def _check_draw(self, move: Draw) -> None:
        if self.phase != DRAW:
            raise RuleError("R5.1", "not_drawing", "cards are drawn only when refilling the hand after placing")
        self._check_take(move.source, "R5.1")

    def _check_take(self, source: object, rule: str) -> None:
        if source == DECK:
            if self.top >= len(self.deck):
                raise RuleError("R8.2" if self.exhaustions >= 2 else rule, "deck_empty", "the draw pile is empty")
            return
        k = self._kind(source, rule)
        if k not in self.display:
            raise RuleError(rule, "not_on_display", f"there is no {source} card on display", card=str(source))

    def _check_exchange(self, move: Exchange) -> None:
        k = self._kind(move.discard, "R6.1")
        if not self.hands[self.current][k]:
            raise RuleError(
                "R6.1", "card_not_in_hand", f"you hold no {move.discard} card to discard", card=str(move.discard), have=0, play=1
            )
        self._check_take(move.take, "R6.1")

    def _check_place(self, move: Place) -> None:
        b = self.board
        seat = self.current
        c = b.country_index.get(move.country) if isinstance(move.country, str) else None
        if c is None:
            raise RuleError("R4.2", "unknown_country", f"there is no country {move.country!r}", country=str(move.country))
        cname = b.countries[c].name_de
        ncards = len(move.cards)
        if not 1 <= ncards <= MAX_CARDS:
            raise RuleError("R4.5", "card_count", "play 1, 2 or 3 cards")
        kinds = [self._kind(x, "R4.1") for x in move.cards]
        hand = self.hands[seat]
        for k in set(kinds):
            if kinds.count(k) > hand[k]:
                have = hand[k]
                raise RuleError(
                    "R4.1",
                    "card_not_in_hand",
                    f"you hold {have} {b.cards[k].id} card{'s' if have != 1 else ''}, not {kinds.count(k)}",
                    card=b.cards[k].id,
                    have=have,
                    play=kinds.count(k),
                )
        if not isinstance(move.advisors, int) or move.advisors < 0:
            raise RuleError("R4.5", "piece_count", "the number of advisors must be 0, 1 or 2")
        npieces = len(move.cloisters) + move.advisors
        if not 1 <= npieces <= MAX_PIECES:
            raise RuleError("R4.5", "piece_count", "place 1 or 2 pieces")
        names = b.kinds_naming[c]
        if npieces == 1 and ncards == 1:
            if kinds[0] not in names:
                raise RuleError(
                    "R4.2",
                    "card_country",
                    f"a {move.cards[0]} card does not name {cname}",
                    card=b.cards[kinds[0]].id,
                    country=b.countries[c].id,
                )
        elif npieces == 1 and ncards == 2:
            if kinds[0] != kinds[1]:
                raise RuleError("R4.3", "joker_pair", "two cards for one piece must be a pair of the same kind (a joker)")
            if kinds[0] in names and not self.joker_anywhere:
                raise RuleError(
                    "R4.3",
                    "joker_own_country",
                    f"a joker pair places its piece in another country than those on its cards, not in {cname}",
                    country=b.countries[c].id,
                )
        elif npieces == 2 and ncards == 2:
            for k in kinds:
                if k not in names:
                    raise RuleError(
                        "R4.4",
                        "card_country",
                        f"both pieces go to {cname}, and a {b.cards[k].id} card does not name it",
                        card=b.cards[k].id,
                        country=b.countries[c].id,
                    )
        elif npieces == 2 and ncards == 3:
            splits = [(kinds[i], kinds[j]) for i, j, m in ((0, 1, 2), (1, 0, 2), (2, 0, 1)) if kinds[i] in names and kinds[j] == kinds[m]]
            if not splits:
                raise RuleError(
                    "R4.5",
                    "three_cards",
                    f"three cards place two pieces: one card naming {cname} and a pair of the same kind",
                    country=b.countries[c].id,
                )
            if not self.joker_anywhere and all(pair in names for _, pair in splits):
                raise RuleError(
                    "R4.3",
                    "joker_own_country",
                    f"the pair of a three-card play is a joker, and a joker places its piece in another country than those on its cards, not in {cname}",
                    country=b.countries[c].id,
                    three=1,
                )
        elif npieces == 1:
            raise RuleError("R4.5", "unused_cards", "every card played must be used: three cards place two pieces")
        else:
            raise RuleError("R4.5", "too_few_cards", "one card places one piece: two pieces need two or three cards")
        if self.most_cloisters[c] == 0 and (npieces != 1 or move.advisors):
            raise RuleError(
                "R4.6",
                "empty_country",
                f"only one cloister may be placed in an empty country ({cname} has no piece yet)",
                country=b.countries[c].id,
            )
        ncl = len(move.cloisters)
        if ncl > self.supply_cl[seat]:
            raise RuleError(
                "R1.2",
                "no_cloisters",
                "you have no cloister left in your supply" if not self.supply_cl[seat] else "you have only one cloister left",
                left=self.supply_cl[seat],
            )
        if move.advisors > self.supply_adv[seat]:
            raise RuleError(
                "R1.2",
                "no_advisors",
                "you have no advisor left in your supply" if not self.supply_adv[seat] else "you have only one advisor left",
                left=self.supply_adv[seat],
            )
        if ncl == 2 and move.cloisters[0] == move.cloisters[1]:
            raise RuleError("R4.7", "same_site", "each cloister site holds one cloister")
        for sid in move.cloisters:
            s = b.site_index.get(sid) if isinstance(sid, str) else None
            if s is None:
                raise RuleError("R4.7", "unknown_site", f"there is no cloister site {sid!r}", site=str(sid))
            if b.sites[s].country != c:
                raise RuleError(
                    "R4.4",
                    "site_country",
                    f"{b.sites[s].name} is not in {cname}: all pieces of a turn go into one country",
                    site=b.sites[s].id,
                    country=b.countries[c].id,
                )
            if self.owner[s] >= 0:
                if not self.free_sites[c]:
                    raise RuleError("R4.7", "country_full", f"{cname} has no free cloister site", country=b.countries[c].id)
                raise RuleError("R4.7", "site_taken", f"{b.sites[s].name} already holds a cloister", site=b.sites[s].id)
        if move.advisors:
            limit = max(self.most_cloisters[c], self.cloisters[c][seat] + ncl)
            if self.advisors_total[c] + move.advisors > limit:
                if self.most_cloisters[c] == 0 and not ncl:
                    raise RuleError(
                        "R4.8",
                        "advisor_limit",
                        f"{cname} has no cloister, so it takes no advisor",
                        country=b.countries[c].id,
                        total=0,
                        limit=0,
                    )
                raise RuleError(
                    "R4.8",
                    "advisor_limit",
                    f"{cname} would hold {self.advisors_total[c] + move.advisors} advisors, but the most cloisters any player has there is {limit}",
                    country=b.countries[c].id,
                    total=self.advisors_total[c] + move.advisors,
                    limit=limit,
                )

    # -- playing ------------------------------------------------------------------

    def play(self, move: object) -> None:
        """Apply a move to this state (mutating). Raises RuleError and changes nothing if illegal
        (or not a move at all: R3)."""
        self.check(move)
        move = cast(Move, move)
        if isinstance(move, Place):
            # the same move however its cards and sites are written (R4.9)
            move = tuple.__new__(Place, (move.country, tuple(sorted(move.cards)), tuple(sorted(move.cloisters)), move.advisors))
        self.play_trusted(move)

    def play_trusted(self, move: Move) -> None:
        """Apply a move known to be legal and canonical (from ``legal_moves`` or a checked record).

        The fast path for search and replays: nothing is checked, so an illegal move
        leaves a state the rules could not reach.
        """
        seat = self.current
        if self.history is not None:
            self._events = []
            self._apply(seat, move)
            self.history.append(Decision(seat, move, tuple(self._events)))
            self._events = None
        else:
            self._apply(seat, move)

    def _apply(self, seat: int, move: Move) -> None:
        b = self.board
        if isinstance(move, Draw):
            self._take(seat, move.source)
            self._continue_drawing()
        elif isinstance(move, Place):
            c = b.country_index[move.country]
            hand, known = self.hands[seat], self.known[seat]
            for kid in move.cards:
                k = b.kind_index[kid]
                hand[k] -= 1
                self.discard[k] += 1
                if known[k]:
                    known[k] -= 1
            crow = self.cloisters[c]
            free = self.free_sites[c]
            for sid in move.cloisters:
                s = b.site_index[sid]
                self.owner[s] = seat
                crow[seat] += 1
                if crow[seat] > self.most_cloisters[c]:
                    self.most_cloisters[c] = crow[seat]
                free = tuple(x for x in free if x != sid)
            self.free_sites[c] = free
            self.supply_cl[seat] -= len(move.cloisters)
            if move.advisors:
                self.advisors[c][seat] += move.advisors
                self.advisors_total[c] += move.advisors
                self.supply_adv[seat] -= move.advisors
            self.turns[seat] += 1
            self.phase = DRAW
            self._continue_drawing()
        elif isinstance(move, Exchange):
            k = b.kind_index[move.discard]
            self.hands[seat][k] -= 1
            self.discard[k] += 1
            if self.known[seat][k]:
                self.known[seat][k] -= 1
            self.turns[seat] += 1
            self._take(seat, move.take)
            if move.take != DECK:
                self._refill_display()  # R6.2
            self._end_turn()
        else:  # Pass, R3.1
            self.turns[seat] += 1
            self._end_turn()

    def _take(self, seat: int, source: str) -> None:
        if source == DECK:
            k = self.deck[self.top]
            self.top += 1
            self.hands[seat][k] += 1
            if self._events is not None:
                self._events.append(Drew(seat, self.board.cards[k].id))
            if self.top == len(self.deck):
                self._deck_used_up()
        else:
            k = self.board.kind_index[source]
            self.display.remove(k)
            self.hands[seat][k] += 1
            self.known[seat][k] += 1  # R13.1: which display card each player took is public

    def _continue_drawing(self) -> None:
        """R5.1-R5.3: draw decisions until the hand is full or nothing is left."""
        seat = self.current
        if sum(self.hands[seat]) < HAND_SIZE and (self.display or self.top < len(self.deck)):
            return  # the player decides the next draw
        self._refill_display()  # R5.2
        self._end_turn()

    def _refill_display(self) -> None:
        while len(self.display) < DISPLAY_SIZE and self.top < len(self.deck):
            k = self.deck[self.top]
            self.top += 1
            self.display.append(k)
            self.display.sort()
            ev = self._events
            if ev is not None:
                kid = self.board.cards[k].id
                if ev and isinstance(ev[-1], Revealed):
                    ev[-1] = Revealed((*ev[-1].kinds, kid))
                else:
                    ev.append(Revealed((kid,)))
            if self.top == len(self.deck):
                self._deck_used_up()

    def _deck_used_up(self) -> None:
        """The last card of the draw pile was just taken (R7.1, R8.1)."""
        self.exhaustions += 1
        if self.exhaustions == 1:
            # R7.2: intermediate cloister scoring, at once
            pts = cloister_scoring(self.cloisters)
            self.intermediate_scoring = pts
            for row in pts:
                for p, v in enumerate(row):
                    self.scores[p] += v
            # R7.3: the discard pile, shuffled, is the new draw pile
            cards = [k for k, c in enumerate(self.discard) for _ in range(c)]
            if self.fixed_reshuffle is None and self.seed is None:
                raise RuleError("R7.3", "no_reshuffle", "the draw pile is used up, but no reshuffle is given and no seed decides one")
            if self.fixed_reshuffle is not None:
                if sorted(self.fixed_reshuffle) != cards:
                    raise RuleError("R7.3", "bad_reshuffle", "the recorded reshuffle is not the discard pile")
                order = list(self.fixed_reshuffle)
            else:
                random.Random(f"{self.seed}:reshuffle").shuffle(cards)
                order = cards
            self.reshuffle = tuple(order)
            self.deck = tuple(order)
            self.top = 0
            self.discard = [0] * len(self.discard)
            ev = self._events
            if ev is not None:
                ev.append(IntermediateScoring(tuple(map(tuple, pts)), tuple(sum(r[p] for r in pts) for p in range(self.n))))
                ev.append(NewDrawPile(len(order)))
            if not self.deck:  # nothing to reshuffle: the pile is used up again at once
                self.exhaustions = 2
                self._start_last_round()
        else:
            self._start_last_round()

    def _start_last_round(self) -> None:
        """R8.1, R8.2: the round is completed; the seat before the start player (seat 0) plays last."""
        self.final_round = True
        if self._events is not None:
            self._events.append(LastRound(self.n - 1))

    def _end_turn(self) -> None:
        seat = self.current
        # a free site and a cloister in someone's supply: not blocked (the common case, quickly)
        if not (any(self.supply_cl) and any(self.free_sites)) and not any(self.can_place_any(p) for p in range(self.n)):
            self._finish("blocked")  # R8.3
        elif self.final_round and seat == self.n - 1:
            self._finish("pile")  # R8.1: the round is complete
        else:
            self.current = (seat + 1) % self.n
            self.phase = MAIN

    def _finish(self, reason: Literal["pile", "blocked"]) -> None:
        """R8.4, R12: the final scoring and the winner."""
        fin = final_scoring(self.board, self.cloisters, self.advisors, self.owner)
        self.final_scoring = fin
        for p in range(self.n):
            self.scores[p] += fin.total[p]
        self.phase = OVER
        left = [self.pieces_left(p) for p in range(self.n)]
        self._winners = winners(self.scores, left)
        if self._events is not None:
            self._events.append(
                GameEnded(
                    reason,
                    tuple(fin.cloisters),
                    tuple(fin.alliances),
                    tuple(fin.chains),
                    tuple(self.scores),
                    tuple(left),
                    tuple(self._winners),
                )
            )

    # -- breakdown ----------------------------------------------------------------

    def breakdown(self) -> dict[str, Any]:
        """Points so far, per category and seat, with per-country and per-alliance detail."""
        n = self.n
        zero = [0] * n
        inter = self.intermediate_scoring
        fin = self.final_scoring
        cids = [c.id for c in self.board.countries]
        return {
            "intermediate_cloisters": [sum(r[p] for r in inter) for p in range(n)] if inter else zero,
            "final_cloisters": fin.cloisters if fin else zero,
            "alliances": fin.alliances if fin else zero,
            "chains": fin.chains if fin else zero,
            "intermediate_by_country": dict(zip(cids, inter)) if inter else None,
            "final_by_country": dict(zip(cids, fin.by_country)) if fin else None,
            "by_alliance": {str(num): pts for num, pts in fin.by_alliance} if fin else None,
        }


def _board_ref(board: Board) -> Board | str:
    """An installed board's id (it is loaded again by id), or the board itself."""
    ref = getattr(board, "id", None) or board.name
    try:
        if get_board(ref) is board:
            return ref
    except (BoardError, OSError):
        pass
    return board


# -- caches of pure functions of the board -----------------------------------------

# keyed by the board object itself (boards compare and hash by identity), so an entry can
# never be mistaken for another board's, and by the joker rule in force (R4.3, R14)
_Combos = list[tuple[list[tuple[str, ...]], list[tuple[str, ...]]]]
_COMBO_CACHE: dict[tuple[Board, bool, tuple[int, ...]], _Combos] = {}
_CID_CACHE: dict[Board, list[str]] = {}


def _country_ids(board: Board) -> list[str]:
    ids = _CID_CACHE.get(board)
    if ids is None:
        ids = _CID_CACHE[board] = [c.id for c in board.countries]
    return ids


def _card_combos(board: Board, joker_anywhere: bool, hand: tuple[int, ...]) -> _Combos:
    """Per country: card sets (sorted kind ids) that place one piece, and two pieces (R4.2-R4.5).

    A joker pair places a piece in a country its cards do not name (R4.3); under the
    variant joker-anywhere, in any country.
    """
    key = (board, joker_anywhere, hand)
    got = _COMBO_CACHE.get(key)
    if got is not None:
        return got
    ids = [k.id for k in board.cards]
    K = len(ids)
    pairs = [k for k in range(K) if hand[k] >= 2]
    out = []
    for c in range(len(board.countries)):
        names_c = board.kinds_naming[c]
        jokers = pairs if joker_anywhere else [j for j in pairs if j not in names_c]
        naming = [k for k in names_c if hand[k]]
        ones: set[tuple[str, ...]] = {(ids[k],) for k in naming}
        ones |= {(ids[k], ids[k]) for k in jokers}
        twos: set[tuple[str, ...]] = set()
        for i, k1 in enumerate(naming):
            for k2 in naming[i:]:
                if k1 != k2 or hand[k1] >= 2:
                    twos.add(tuple(sorted((ids[k1], ids[k2]))))
        for j in jokers:
            for k in naming:
                if j != k or hand[j] >= 3:
                    twos.add(tuple(sorted((ids[j], ids[j], ids[k]))))
        out.append((sorted(ones), sorted(twos)))
    _COMBO_CACHE[key] = out
    return out


# the placements of one hand in one country follow from the hand, the country's free
# sites and which piece sets the supplies and the advisor limit allow (``ways``): they
# recur again and again (search, random play), so they are built once and shared (moves
# are immutable values), per hand as :func:`_card_combos`, then per country
_EMPTY: Final = 1  # R4.6: the country is empty (one cloister, on a free site)
_SITE: Final = 2  # one cloister
_TWO_SITES: Final = 4  # two cloisters
_ADVISOR: Final = 8  # one advisor (R4.8: below the limit)
_SITE_ADVISOR: Final = 16  # a cloister, then an advisor
_TWO_ADVISORS: Final = 32
_PLACE_MEMO: dict[tuple[Board, bool, tuple[int, ...]], list[dict[tuple[tuple[str, ...], int], list[Move]]]] = {}
_PLACE_MEMO_HANDS: Final = 1_000  # bounds: cleared when larger
_PLACE_MEMO_COUNTRY: Final = 512
_PlaceKey = tuple[str, tuple[str, ...], tuple[str, ...], int]
# the draws and exchanges of a display, a pile that is or is not empty (and a hand), built
# once: (board, display[, hand], pile not empty) -> moves
_DRAW_MEMO: dict[tuple[Board, tuple[int, ...], bool], list[Move]] = {}
_EXCHANGE_MEMO: dict[tuple[Board, tuple[int, ...], tuple[int, ...], bool], list[Move]] = {}
_TAKE_MEMO_SIZE: Final = 20_000  # bounds: cleared when larger (a few thousand occur)
_PLACES: dict[tuple[Board, bool], dict[_PlaceKey, Move]] = {}  # (board, joker rule) -> every placement made


def _country_placements(
    places: dict[_PlaceKey, Move], cid: str, ones: list[tuple[str, ...]], twos: list[tuple[str, ...]], free: tuple[str, ...], ways: int
) -> list[Move]:
    """The legal placements in one country (R4): every card set of ``ones`` with every
    one-piece set, then every card set of ``twos`` with every two-piece set ``ways`` allows.

    Each distinct placement is one object in ``places``, shared by every list that holds
    it (a board has about 1,500): a list costs a pointer a move.
    """
    out: list[Move] = []
    if ways & _EMPTY:
        for cards in ones:
            out += [_place(places, (cid, cards, (s,), 0)) for s in free]
        return out
    single: list[tuple[tuple[str, ...], int]] = []
    if ways & _SITE:
        single = [((s,), 0) for s in free]
    if ways & _ADVISOR:
        single.append(((), 1))
    for cards in ones:
        out += [_place(places, (cid, cards, cl, a)) for cl, a in single]
    if not twos:
        return out
    double: list[tuple[tuple[str, ...], int]] = []
    if ways & _TWO_SITES:
        # R4.9: canonical form, the sites sorted (as make_place and parse_move give)
        double = [((a, b) if a < b else (b, a), 0) for a, b in combinations(free, 2)]
    if ways & _SITE_ADVISOR:
        double += [((s,), 1) for s in free]
    if ways & _TWO_ADVISORS:
        double.append(((), 2))
    for cards in twos:
        out += [_place(places, (cid, cards, cl, a)) for cl, a in double]
    return out


def _place(places: dict[_PlaceKey, Move], key: _PlaceKey) -> Move:
    """The one placement object of these fields."""
    got = places.get(key)
    if got is None:
        new: Move = tuple.__new__(Place, key)  # a NamedTuple's own __new__ is a Python function: slower
        got = places[key] = new
    return got


# -- the functional API -----------------------------------------------------------


def new_game(
    players: int,
    seed: int | None = None,
    board: Board | None = None,
    deck: Sequence[str] | None = None,
    reshuffle: Sequence[str] | None = None,
    history: bool = True,
    variants: Iterable[str] = (),
) -> State:
    """Set up a game (R2): remove cards, shuffle (or take the given deck), deal, turn up two.

    ``deck`` (kind ids, top first) and ``reshuffle`` come from a record; without them the
    seed decides all chance. Seat 0 is the start player (R2.3). ``variants``: rule
    variants (R14), fixed for the whole game; ValueError names the known ones.
    """
    b = board or standard_board()
    if players not in b.removed_per_kind:
        raise ValueError(f"{b.name} is for {', '.join(map(str, b.player_counts))} players, not {players}")
    r = b.removed_per_kind[players]
    composition = [k.count - r for k in b.cards]
    expected = sorted(k for k, c in enumerate(composition) for _ in range(c))
    if seed is None and deck is None:
        seed = secrets.randbits(63)
    if deck is None:
        order = expected[:]
        random.Random(seed).shuffle(order)
    else:
        try:
            order = [b.kind_index[x] for x in deck]
        except (KeyError, TypeError):
            bad = next((x for x in deck if not isinstance(x, str) or x not in b.kind_index), None)
            raise ValueError(f"deck: unknown card kind {bad!r}") from None
        if sorted(order) != expected:
            want = ", ".join(f"{c} {k.id}" for k, c in zip(b.cards, composition))
            raise ValueError(f"deck: with {players} players the deck holds {want} ({sum(composition)} cards, R2.1)")
    fixed = None
    if reshuffle is not None:
        try:
            fixed = [b.kind_index[x] for x in reshuffle]
        except (KeyError, TypeError):
            raise ValueError("reshuffle: unknown card kind") from None
    K = len(b.cards)
    hands = [[0] * K for _ in range(players)]
    dealt = HAND_SIZE * players
    for i in range(dealt):
        hands[i // HAND_SIZE][order[i]] += 1
    return State(
        b,
        players,
        hands=hands,
        display=order[dealt : dealt + DISPLAY_SIZE],
        deck=order,
        top=dealt + DISPLAY_SIZE,
        removed=[r] * K,
        seed=seed,
        reshuffle=fixed,
        history=history,
        variants=variants,
    )


def legal_moves(state: State) -> list[Move]:
    """Every legal decision for the player to act (``state.current``)."""
    return state.legal_moves()


def apply(state: State, move: Move) -> State:
    """A new state with the move applied; the given state is unchanged. Raises RuleError."""
    state.check(move)
    s = state.copy()
    s.play(move)
    return s
