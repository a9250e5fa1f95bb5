"""Kardinal as an OpenSpiel game: ``pyspiel.load_game("python_kardinal(players=4)")``.

Importing this module registers the game (it needs the ``research`` extra: open_spiel).

Game type: sequential, explicit chance, imperfect information, general-sum, terminal
rewards, 3-5 players. Parameters:

* ``players`` (int, 3-5, default 4).
* ``returns`` (str, default ``"scores"``): ``"scores"``: each player's return is their
  final score (points, R8.4, R12; 0 before the end); ``"win"``: 1/w for each of the w
  winners (R12.1, ties broken by pieces left, then shared), 0 for the others.

The rules are not re-implemented: each OpenSpiel state holds a rules-core ``State``
and every decision goes through ``State.play``.

**Chance.** Every card whose kind is not yet fixed is chosen by a chance node, with
probability proportional to the number of cards of each kind that are left in the pile
it comes from (outcomes are card-kind numbers, board order: 0 FA, 1 BB, 2 LI, 3 ES,
4 FR). This is the same distribution as shuffling the pile at the start and taking
the top card, so the draw-pile order is never stored ahead of time:

1. The deal: 3 cards to seat 0, 3 to seat 1, ..., then the two display cards
   (3n + 2 chance nodes, in this order). A dealt card is seen only by its receiver;
   display cards are public.
2. After a player's decision that takes cards from the draw pile (draw or exchange
   from the pile, and every automatic display refill, R5.2, R6.2, R7.4), the state
   becomes a chance node once per card taken, in the order the core takes them (the
   card into the hand first, then the display cards). Only when all are chosen is the
   decision applied by the core, with the chosen kinds put on top of the pile. A
   card drawn into a hand is seen only by its receiver; a turned-up card is public.
3. The reshuffle (R7.3) needs no node of its own: the new pile is the discard pile,
   whose composition is public; each card later taken from it is a chance node over
   its remaining composition, exactly as for the first pile.

The number of cards a decision takes from the pile does not depend on the kinds of
those cards, so it is found by applying the decision to a copy first.

**Actions.** The fixed table of :mod:`kardinal.research.actions` (1,507 actions on the
standard board). **Observations** are :mod:`kardinal.research.encode` (a flat tensor,
documented field by field, and text). The **information state** is the observation
plus the whole history as the player saw it: each decision, and each chance outcome
that the player saw (hidden ones written ``?``); the tensor form adds, per step of
the history (up to the longest game), actor one-hot (n seats + chance), the action
number + 1 for decisions, the card-kind one-hot for seen chance outcomes, and a flag
for hidden ones.

**Resampling.** ``resample_from_infostate(player, sampler)`` (at decision nodes) draws
a full history consistent with what the player knows: each card another player later
played without it being known to be in their hand is assigned to a hidden card that
player received earlier (deal or draw from the pile), respecting the composition of
the pile it came from; the rest of the unseen cards are shuffled into the remaining
hidden cards and the draw pile. The result is a possible state with the same
information state for that player; it is not exactly posterior-weighted (the
assignment is a random feasible one, not weighted by likelihood).
"""

from __future__ import annotations

import base64
import pickle
import random
from collections.abc import Sequence
from typing import Any

import numpy as np
import pyspiel

from kardinal.rules.board import Board, get_board
from kardinal.rules.moves import DECK, Draw, Exchange, Move, Pass, Place
from kardinal.rules.scoring import win_shares
from kardinal.rules.state import OVER, State
from kardinal.rules.variants import VariantError, parse_variants
from kardinal.rules.view import ViewData

from .actions import ActionTable, action_table
from .encode import fields, observation_text, tensor_size, write_tensor

__all__ = ["GAME_NAME", "KardinalGame", "KardinalState", "KardinalObserver", "load", "state_from_view"]

GAME_NAME = "python_kardinal"
CHANCE = int(pyspiel.PlayerId.CHANCE)
TERMINAL = int(pyspiel.PlayerId.TERMINAL)
RETURNS = ("scores", "win")

_GAME_TYPE = pyspiel.GameType(
    short_name=GAME_NAME,
    long_name="Kardinal & Koenig (Web of Power)",
    dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
    chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
    information=pyspiel.GameType.Information.IMPERFECT_INFORMATION,
    utility=pyspiel.GameType.Utility.GENERAL_SUM,
    reward_model=pyspiel.GameType.RewardModel.TERMINAL,
    max_num_players=5,
    min_num_players=3,
    provides_information_state_string=True,
    provides_information_state_tensor=True,
    provides_observation_string=True,
    provides_observation_tensor=True,
    parameter_specification={"players": 4, "returns": "scores", "variants": "", "board": "standard"},
)

# One history entry per applied action: (actor, action, seen_by, pile, receiver).
# actor: seat or CHANCE; seen_by: -1 public, else the only seat that saw the outcome;
# pile: 1 first draw pile (and the deal), 2 the reshuffled pile, 0 for decisions;
# receiver: the seat whose hand got the card, -1 display (chance) or none (decisions).
Entry = tuple[int, int, int, int, int]
_EMPTY_DICT = base64.b64encode(pickle.dumps({})).decode()


def _counts(cards: Sequence[int], K: int) -> list[int]:
    return [cards.count(k) for k in range(K)]


class _Data:
    """Everything a state holds; copied with ``State.copy`` (cheap clones) and pickled small."""

    __slots__ = ("core", "dealt", "hist", "pending", "slots", "fixed", "new_pile", "chosen_from_new_pile", "reshuffled", "left", "cache")

    core: State
    dealt: int
    hist: list[Entry]
    pending: Move | None
    slots: tuple[tuple[bool, int], ...]  # (from the reshuffled pile, receiver) per card the pending move takes
    fixed: int
    new_pile: tuple[int, ...] | None  # sorted kinds of the pile the pending move forms by reshuffling
    chosen_from_new_pile: list[int]
    reshuffled: tuple[int, ...] | None  # composition (per kind) of the reshuffled pile, public
    # per kind, the cards not yet chosen of the pile the next chance node draws from, while
    # known (kept as chance nodes choose cards, instead of counted at each); None: count them
    left: list[int] | None
    cache: dict[Any, Any]  # per position: observation strings, the legal actions ("legal")

    def __deepcopy__(self, memo: dict[int, Any]) -> _Data:
        d = _Data.__new__(_Data)
        d.core = self.core.copy(history=False)
        d.dealt = self.dealt
        d.hist = self.hist[:]
        d.pending = self.pending
        d.slots = self.slots
        d.fixed = self.fixed
        d.new_pile = self.new_pile
        d.chosen_from_new_pile = self.chosen_from_new_pile[:]
        d.reshuffled = self.reshuffled
        d.left = self.left[:] if self.left is not None else None
        d.cache = {}
        return d

    def __getstate__(self) -> dict[str, Any]:
        out = {k: getattr(self, k) for k in self.__slots__ if k not in ("cache", "left")}
        out["core"] = self.core.__getstate__()  # an installed board travels as its id
        return out

    def __setstate__(self, st: dict[str, Any]) -> None:
        core = State.__new__(State)
        core.__setstate__(st.pop("core"))
        self.core = core
        for k, v in st.items():
            setattr(self, k, v)
        self.left = None
        self.cache = {}


class KardinalGame(pyspiel.Game):
    """The game object; ``players`` 3-5, ``returns`` "scores" or "win", ``variants`` rule
    variants (R14) separated by commas ("" for the rules as written), ``board`` an
    installed board's id."""

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = dict(params or {})
        n = int(params.get("players", 4))
        mode = str(params.get("returns", "scores"))
        try:
            self.variants = parse_variants([x for x in str(params.get("variants", "")).split(",") if x])
        except VariantError as e:
            raise ValueError(str(e)) from None
        board = get_board(str(params.get("board", "standard")))
        if n not in board.removed_per_kind:
            raise ValueError(f"python_kardinal is for 3 to 5 players, not {n}")
        if mode not in RETURNS:
            raise ValueError(f"returns must be one of {', '.join(RETURNS)}, not {mode!r}")
        self.board: Board = board
        self.n = n
        self.mode = mode
        self.table: ActionTable = action_table(board)
        self.K = len(board.cards)
        self.composition = [k.count - board.removed_per_kind[n] for k in board.cards]
        T = sum(self.composition)
        self.deal_size = 3 * n + 2
        # Bounds (see docs/README): exchanges outside the last round each take a card from a
        # pile (at most 2T - 3n - 2 cards over the game), placements at most all pieces, draws
        # at most 3 per placement, passes and last-round turns at most n.
        pieces = board.supply_cloisters + board.supply_advisors
        self.max_decisions = 2 * T + n * (pieces + 2 + 3 * pieces)
        self.max_chance = 2 * T
        max_score = 2 * len(board.sites) + len(board.alliances) * board.supply_advisors * n + board.supply_cloisters
        info = pyspiel.GameInfo(
            num_distinct_actions=len(self.table),
            max_chance_outcomes=self.K,
            num_players=n,
            min_utility=0.0,
            max_utility=float(max_score) if mode == "scores" else 1.0,
            utility_sum=None if mode == "scores" else 1.0,
            max_game_length=self.max_decisions,
        )
        super().__init__(_GAME_TYPE, info, {"players": n, "returns": mode, "variants": ",".join(self.variants), "board": board.id})
        # before the deal: every card in the pile, in kind order (chance nodes fix the real order);
        # the seed decides the reshuffle only in trial copies, real reshuffles are chance nodes
        self._template = State(
            board,
            n,
            hands=[[0] * self.K for _ in range(n)],
            display=[],
            deck=[k for k, c in enumerate(self.composition) for _ in range(c)],
            removed=[board.removed_per_kind[n]] * self.K,
            seed=0,
            history=False,
            variants=self.variants,
        )

    def new_initial_state(self) -> KardinalState:
        return KardinalState(self)

    def fresh_core(self) -> State:
        """The core state before the deal: empty hands and display, the whole deck in the pile."""
        return self._template.copy(history=False)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> KardinalObserver:
        return KardinalObserver(self, iig_obs_type, params)


class KardinalState(pyspiel.State):
    """A position; see the module docstring for the chance nodes and the encodings."""

    def __init__(self, game: KardinalGame) -> None:
        super().__init__(game)
        d = _Data.__new__(_Data)
        d.core = game.fresh_core()
        d.dealt = 0
        d.hist = []
        d.pending = None
        d.slots = ()
        d.fixed = 0
        d.new_pile = None
        d.chosen_from_new_pile = []
        d.reshuffled = None
        d.left = None
        d.cache = {}
        self._d = d

    # -- queries ----------------------------------------------------------------

    @property
    def core(self) -> State:
        """The rules-core state (all hidden information included)."""
        return self._d.core

    def _kg(self) -> KardinalGame:
        return self.get_game()  # type: ignore[no-any-return]

    def dealing(self) -> bool:
        return self._d.dealt < 3 * self._d.core.n + 2

    def current_player(self) -> int:
        d = self._d
        core = d.core
        if d.pending is not None or d.dealt < 3 * core.n + 2:  # dealing(), written out: asked several times an action
            return CHANCE
        if core.phase == OVER:
            return TERMINAL
        return core.current

    def is_terminal(self) -> bool:
        return self._d.pending is None and self._d.core.phase == OVER

    def is_chance_node(self) -> bool:
        """As OpenSpiel's, answered here: a call from Python then never crosses into C++ and back."""
        d = self._d
        return d.pending is not None or d.dealt < 3 * d.core.n + 2

    def legal_actions(self, *player: int) -> list[int]:
        """As OpenSpiel's ``legal_actions``; the common call without a player is answered here.

        (OpenSpiel's own would ask ``current_player`` and then ``_legal_actions`` across the
        C++ boundary; with a player given it is OpenSpiel's, unchanged.)
        """
        if player:
            return pyspiel.State.legal_actions(self, *player)  # type: ignore[no-any-return]
        if self.is_chance_node():
            return [k for k, _ in self.chance_outcomes()]
        return self._legal()

    def _legal_actions(self, player: int) -> list[int]:
        if player != self.current_player() or player < 0:
            return []
        return self._legal()

    def _legal(self) -> list[int]:
        """The legal actions at a decision node (or none at the end), sorted; kept per position."""
        d = self._d
        got: list[int] | None = d.cache.get("legal")
        if got is None:
            core = d.core
            got = sorted(action_table(core.board).encode_all(core.legal_moves()))
            d.cache["legal"] = got
        return got[:]

    def _pile_counts(self) -> list[int]:
        """Per kind, the cards the next chance node may choose from (do not change the list)."""
        d = self._d
        if d.left is not None:
            return d.left
        s = d.core
        K = len(s.discard)
        if self.dealing():
            row = _counts(s.deck[s.top :], K)
        else:
            from_new, _ = d.slots[d.fixed]
            if not from_new:
                row = _counts(s.deck[s.top + d.fixed :], K)
            else:
                assert d.new_pile is not None
                row = _counts(d.new_pile, K)
                for k in d.chosen_from_new_pile:
                    row[k] -= 1
        d.left = row
        return row

    def chance_outcomes(self) -> list[tuple[int, float]]:
        if not self.is_chance_node():
            return []
        row = self._pile_counts()
        total = sum(row)
        return [(k, c / total) for k, c in enumerate(row) if c]

    # -- applying ---------------------------------------------------------------

    def _apply_action(self, action: int) -> None:
        d = self._d
        s = d.core
        cache = d.cache  # of the position before this action
        dealing = self.dealing()
        if dealing or d.pending is not None:
            row = self._pile_counts()
            if not (0 <= action < len(row) and row[action]):
                raise ValueError(f"chance outcome {action} is not possible here")
            d.cache = {}
            row[action] -= 1  # d.left: one card fewer left to choose
            if dealing:
                i = d.dealt
                if i < 3 * s.n:
                    seat = i // 3
                    s.deal(action, seat)
                    d.hist.append((CHANCE, action, seat, 1, seat))
                else:
                    s.deal(action, None)
                    d.hist.append((CHANCE, action, -1, 1, -1))
                d.dealt += 1
                return
            from_new, receiver = d.slots[d.fixed]
            if from_new:
                d.chosen_from_new_pile.append(action)
                pile = 2
            else:
                s.fix_next_card(d.fixed, action)
                pile = 1 if s.exhaustions == 0 else 2
            d.hist.append((CHANCE, action, receiver, pile, receiver))
            d.fixed += 1
            if d.fixed == len(d.slots):
                self._commit()
            elif d.slots[d.fixed][0] != from_new:
                d.left = None  # the next card comes from the reshuffled pile: counted anew
            return
        d.cache = {}
        move = action_table(s.board).decode(action)
        legal = cache.get("legal")
        known_legal = legal is not None and action in legal
        if isinstance(move, (Place, Pass)):
            # placing or passing takes no card from the draw pile (R4, R3.1; drawing is
            # decisions of its own), so it is played at once
            seat, top, exhaustions = s.current, s.top, s.exhaustions
            if known_legal:
                s.play_trusted(move)
            else:
                s.play(move)  # RuleError (and nothing changed) if illegal
            assert s.top == top and s.exhaustions == exhaustions, "a placement or a pass took a card from the pile"
            d.hist.append((seat, action, -1, 0, -1))
            return
        trial = s.copy(history=False)
        if known_legal:
            trial.play_trusted(move)
        else:
            trial.play(move)  # RuleError (and nothing changed) if illegal
        d.hist.append((s.current, action, -1, 0, -1))
        if trial.exhaustions == s.exhaustions:
            old, new = trial.top - s.top, 0
        else:
            old = len(s.deck) - s.top
            new = trial.top if s.exhaustions == 0 else 0
            if s.exhaustions == 0:
                assert trial.reshuffle is not None
                d.new_pile = tuple(sorted(trial.reshuffle))
        if old + new == 0:
            d.core = trial
            return
        to_hand = (isinstance(move, Draw) and move.source == DECK) or (isinstance(move, Exchange) and move.take == DECK)
        slots = [(False, -1)] * old + [(True, -1)] * new
        if to_hand:
            slots[0] = (False, s.current)
        d.pending = move
        d.slots = tuple(slots)
        d.fixed = 0
        d.chosen_from_new_pile = []
        if not old:
            d.left = None  # every card comes from the reshuffled pile

    def _commit(self) -> None:
        d = self._d
        s = d.core
        assert d.pending is not None
        if d.new_pile is not None:
            rest = _counts(d.new_pile, len(s.discard))
            for k in d.chosen_from_new_pile:
                rest[k] -= 1
            d.reshuffled = tuple(_counts(d.new_pile, len(s.discard)))
            s.play_with_reshuffle(d.pending, tuple(d.chosen_from_new_pile) + tuple(k for k, c in enumerate(rest) for _ in range(c)))
            d.left = None  # the reshuffled pile (what is left of it is ``rest``, counted anew)
        else:
            s.play_trusted(d.pending)
        d.pending = None
        d.slots = ()
        d.fixed = 0
        d.new_pile = None
        d.chosen_from_new_pile = []

    # -- text -------------------------------------------------------------------

    def _action_to_string(self, player: int, action: int) -> str:
        g = self._kg()
        if player == CHANCE:
            return f"card {g.board.cards[action].short}" if 0 <= action < g.K else f"chance {action}"
        return str(g.table.decode(action))

    def __str__(self) -> str:
        d = self._d
        s = d.core
        b = s.board
        hands = " | ".join(" ".join(b.cards[k].short for k, c in enumerate(h) for _ in range(c)) or "-" for h in s.hands)
        pile = " ".join(f"{b.cards[k].short}x{c}" for k, c in enumerate(_counts(s.deck[s.top :], len(s.discard))) if c)
        text = observation_text(s, None, self.dealing()) + f"\nhands {hands}\npile {pile or '-'}"
        if d.pending is not None:
            text += f"\npending {d.pending} ({d.fixed}/{len(d.slots)} cards chosen)"
        return text

    def returns(self) -> list[float]:
        s = self._d.core
        if not self.is_terminal():
            return [0.0] * s.n
        if self._kg().mode == "scores":
            return [float(x) for x in s.scores]
        return win_shares(s.winners or [], s.n)

    # -- information states -------------------------------------------------------

    def history_tokens(self, player: int) -> str:
        """The history as ``player`` saw it: ``seat:action`` for decisions, ``cK`` / ``c?`` for chance."""
        out = []
        for actor, action, seen, _, _ in self._d.hist:
            if actor >= 0:
                out.append(f"{actor}:{action}")
            elif seen < 0 or seen == player:
                out.append(f"c{action}")
            else:
                out.append("c?")
        return " ".join(out)

    def resample_from_infostate(self, player_id: int, probability_sampler: Any) -> KardinalState:
        """A state with the same information state for ``player_id`` (see the module docstring)."""
        if self.is_chance_node():
            raise ValueError("resample_from_infostate is supported at decision and terminal nodes, not at chance nodes")
        if len(self._d.hist) < 3 * self._d.core.n + 2:
            raise ValueError("this state was built from a view and holds no history; resample it with state_from_view")
        seed = int(float(probability_sampler()) * (1 << 53))
        return _resample(self, int(player_id), random.Random(seed))


def _resample(state: KardinalState, p: int, rng: random.Random) -> KardinalState:
    g: KardinalGame = state.get_game()
    d = state._d
    s = d.core
    n, K = s.n, g.K
    kind_index = g.board.kind_index
    known = [[0] * K for _ in range(n)]
    events: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # per seat: (history index, pile)
    demands: list[list[tuple[int, int]]] = [[] for _ in range(n)]  # per seat: (history index, kind)
    seen = {1: [0] * K, 2: [0] * K}
    moves = g.table.moves
    for t, (actor, action, _, pile, receiver) in enumerate(d.hist):
        if actor == CHANCE:
            if receiver >= 0 and receiver != p:
                events[receiver].append((t, pile))
            else:
                seen[pile][action] += 1
            continue
        m = moves[action]
        gone = [kind_index[x] for x in m.cards] if isinstance(m, Place) else [kind_index[m.discard]] if isinstance(m, Exchange) else []
        kn = known[actor]
        for k in gone:
            if kn[k]:
                kn[k] -= 1
            elif actor != p:
                demands[actor].append((t, k))
        take = m.take if isinstance(m, Exchange) else m.source if isinstance(m, Draw) else DECK
        if take != DECK:
            kn[kind_index[take]] += 1
    assert known == s.known, "the history does not explain the known cards"
    budget = {1: [c - x for c, x in zip(g.composition, seen[1])], 2: [0] * K}
    if d.reshuffled is not None:
        budget[2] = [c - x for c, x in zip(d.reshuffled, seen[2])]
    others = [q for q in range(n) if q != p]
    for _attempt in range(200):
        used = {1: [0] * K, 2: [0] * K}
        assign: dict[int, int] = {}
        unmatched: list[tuple[int, int, int]] = []  # (history index, pile, seat)
        ok = True
        for q in others:
            free = events[q][:]
            for t, k in demands[q]:
                cands = [e for e in free if e[0] < t and budget[e[1]][k] > used[e[1]][k]]
                if not cands:
                    ok = False
                    break
                e = rng.choice(cands)
                free.remove(e)
                used[e[1]][k] += 1
                assign[e[0]] = k
            if not ok:
                break
            unmatched += [(t, pile, q) for t, pile in free]
        if ok:
            break
    else:
        raise RuntimeError("could not find a history consistent with this information state")
    hands = [h[:] if q == p else known[q][:] for q, h in enumerate(s.hands)]
    remaining: list[int] = []
    for pile in (1, 2):
        pool = [k for k in range(K) for _ in range(budget[pile][k] - used[pile][k])]
        rng.shuffle(pool)
        mine = [(t, q) for t, pl, q in unmatched if pl == pile]
        if len(pool) < len(mine):
            raise RuntimeError("inconsistent history: more hidden cards than unseen cards")
        for (t, q), k in zip(mine, pool):
            assign[t] = k
            hands[q][k] += 1
        rest = pool[len(mine) :]
        current = (pile == 1 and s.exhaustions == 0) or (pile == 2 and s.exhaustions == 1)
        if current:
            remaining = rest
        elif rest:
            raise RuntimeError("inconsistent history: cards left over in a used-up pile")
    if len(remaining) != s.deck_size or any(sum(hands[q]) != sum(s.hands[q]) for q in range(n)):
        raise RuntimeError("inconsistent history: the sampled cards do not fill the hands and the pile")
    core = s.copy(history=False)
    core.set_pile(hands, remaining, seed=0)
    hist = [(a, assign.get(t, x), v, pl, r) for t, (a, x, v, pl, r) in enumerate(d.hist)]
    ser = ",".join(f"{a}:{x}" for a, x, _, _, _ in hist)
    new: KardinalState = g.deserialize_state(f"history={ser}\nmove_number={state.move_number()}\n__dict__={_EMPTY_DICT}")
    nd = _Data.__deepcopy__(d, {})
    nd.core = core
    nd.left = None
    nd.hist = hist
    new._d = nd
    return new


class KardinalObserver:
    """Observation (``perfect_recall`` false) or information state (true) of one player.

    ``private_info``: SINGLE_PLAYER (default, own hand included) or NONE (public only).
    """

    def __init__(self, game: KardinalGame, iig_obs_type: Any = None, params: Any = None) -> None:
        if params:
            raise ValueError(f"observation parameters are not supported: {params}")
        self.game = game
        self.perfect_recall = bool(iig_obs_type is not None and iig_obs_type.perfect_recall)
        priv = iig_obs_type.private_info if iig_obs_type is not None else pyspiel.PrivateInfoType.SINGLE_PLAYER
        if priv == pyspiel.PrivateInfoType.ALL_PLAYERS:
            raise ValueError("python_kardinal observers show one player's private information, or none")
        self.own_hand = priv == pyspiel.PrivateInfoType.SINGLE_PLAYER
        n = game.n
        self.obs_size = tensor_size(game.board, n)
        self.step_size = n + 1 + 1 + game.K + 1
        self.max_steps = game.max_decisions + game.max_chance
        size = self.obs_size + (self.max_steps * self.step_size if self.perfect_recall else 0)
        self.tensor = np.zeros(size, np.float32)
        self.dict: dict[str, np.ndarray] = {}
        i = 0
        for name, shape in fields(game.board, n):
            m = int(np.prod(shape))
            self.dict[name] = self.tensor[i : i + m].reshape(shape)
            i += m
        if self.perfect_recall:
            self.dict["history"] = self.tensor[i:].reshape(self.max_steps, self.step_size)

    def set_from(self, state: KardinalState, player: int) -> None:
        d = state._d
        write_tensor(self.tensor[: self.obs_size], d.core, player, state.dealing(), self.own_hand)
        if not self.perfect_recall:
            return
        h = self.dict["history"]
        h[:] = 0.0
        n = self.game.n
        for t, (actor, action, seen, _, _) in enumerate(d.hist[: self.max_steps]):
            row = h[t]
            if actor >= 0:
                row[actor] = 1.0
                row[n + 1] = action + 1
            else:
                row[n] = 1.0
                if seen < 0 or (seen == player and self.own_hand):
                    row[n + 2 + action] = 1.0
                else:
                    row[-1] = 1.0

    def string_from(self, state: KardinalState, player: int) -> str:
        d = state._d
        key = (self.perfect_recall, self.own_hand, player)
        got: str | None = d.cache.get(key)
        if got is not None:
            return got
        text = observation_text(d.core, player, state.dealing(), self.own_hand)
        if d.pending is not None:
            text += f"\npending {d.pending}"
        if self.perfect_recall:
            hp = player if self.own_hand else -2
            text += "\nhistory " + state.history_tokens(hp)
        d.cache[key] = text
        return text


pyspiel.register_game(_GAME_TYPE, KardinalGame)


def load(players: int = 4, returns: str = "scores", variants: Sequence[str] = (), board: str = "standard") -> KardinalGame:
    """``pyspiel.load_game`` with this game's parameters."""
    params = {"players": players, "returns": returns, "variants": ",".join(variants), "board": board}
    return pyspiel.load_game(GAME_NAME, params)  # type: ignore[no-any-return]


def state_from_view(game: KardinalGame, view: ViewData, rng: random.Random) -> KardinalState:
    """An OpenSpiel state for a bot that sees only ``view`` (a decision node of the viewer).

    The public history of a view does not say which cards came from the pile, so the state
    is built from a determinization of the view (kardinal.bots.determinize.determinize): hidden cards
    drawn at random, with the current position exactly as the view shows it. Its OpenSpiel
    history is empty (it starts here); search from it is the same as from a resampled state.
    """
    from kardinal.bots.determinize import determinize

    core = determinize(view, rng, game.board)
    st = game.new_initial_state()
    d = st._d
    d.core = core
    d.left = None
    d.dealt = 3 * core.n + 2
    if core.exhaustions >= 1:
        # the reshuffled pile's composition is not in the view; it only matters for resampling
        d.reshuffled = None
    return st
