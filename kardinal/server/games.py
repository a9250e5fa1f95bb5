"""The server's authority over games: create, join, check and apply actions, run bots.

Every action is checked in a fixed order (:meth:`GameService.submit`): the message is
well formed, the game exists, the seat's secret token, a repeated client action id
(applied once), the game is running, whose turn, the expected state version (number of
actions so far), and the rules (``State.check``). An accepted action is committed to
the database before anyone is told. Bots see only ``view(state, seat)`` and run in an
executor so they never block the event loop.
"""

from __future__ import annotations

import asyncio
import functools
import hashlib
import hmac
import logging
import re
import secrets
import threading
import time
import unicodedata
from collections import Counter, OrderedDict
from collections.abc import Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Any

from kardinal.bots import BOTS, make_bot
from kardinal.rules.board import Board, BoardError, get_board, installed_boards
from kardinal.rules.breakdown import scoring_breakdown
from kardinal.rules.events import Decision, Drew, IntermediateScoring, LastRound
from kardinal.rules.moves import Move, Place
from kardinal.rules.record import IllegalAction, RecordAction, RecordError, action_of, move_of, record_of, rewind, steps
from kardinal.rules.scoring import alliance_scoring
from kardinal.rules.state import DRAW, RuleError, State, new_game
from kardinal.rules.variants import VariantError, parse_variants
from kardinal.rules.view import ViewData, hand_view, history_entry, view

from .fair import BOTS_ONLY, PEOPLE, FairSlots
from .messages import (
    AckMessage,
    AllianceStanding,
    ChatMessage,
    ErrorData,
    ErrorMessage,
    Marks,
    PlayerData,
    ReplayMessage,
    ScoringMessage,
    Standing,
    StateMessage,
    TableOptions,
    json_text,
)
from .storage import (
    ChatLine,
    CorruptGame,
    DuplicateAction,
    GameRow,
    PendingAction,
    PendingWrite,
    SeatChange,
    SeatRow,
    Storage,
    StorageError,
)

__all__ = ["GameService", "LiveGame", "Refused", "bot_move", "hash_token", "public_players", "chat_message", "table_options"]

log = logging.getLogger("kardinal.web")

MAX_NAME = 24
MAX_BOT_GAMES = 5  # games of bots only one address may run at once
MAX_CHAT = 300  # characters in a chat line
CHAT_KEPT = 500  # chat lines a game keeps in memory and sends to a new connection
PRESENCE_EVERY = 5.0  # seconds: how often a process notes its connections (several processes)
EXPIRY_EVERY = 600.0  # seconds between looks for idle games to expire
FINISHED_KEPT = 60.0  # seconds a finished (or expired) game nobody looks at stays in memory
# ... and at most this many of them (the most recently asked for): the memory they take does
# not grow with the number of games finished a minute
FINISHED_MAX = 200
IDLE_KEPT = 3600.0  # ... and a running one nobody is connected to (at least twice its "away")
SPECTATORS_AT_ONCE = 50  # spectators told of a change in one go (more: see GameService._tell)
SPECTATORS_PAUSE = 0.1  # seconds: a large audience is told of changes at most this often
# ... and a larger one less often: SPECTATORS_PAUSE longer for every SPECTATORS_PER_PAUSE, so
# that its rounds of sends take about the same share of the server's time however many watch
# (a send costs about 60 µs: a thousand spectators told every 0.1 s would take 60% of it)
SPECTATORS_PER_PAUSE = 400

# how a table plays (GameRow.options), chosen at creation
MODES = ("live", "turn")  # live: people at the table now; turn: turn-based over days
AWAY_DEFAULT = 180.0  # seconds a person may be away in a live game before a bot stands in
AWAY_RANGE = (1.0, 86400.0)
STANDIN_DEFAULT = "medium"
# creation keys (GameService.create): a double click makes one game
KEY_FORMAT = re.compile(r"[A-Za-z0-9_-]{8,64}")
KEYS_KEPT = 4096  # keys remembered at most ...
KEY_SECONDS = 600.0  # ... each for this long


class Refused(Exception):
    """An action or request the server refuses; ``code`` is stable, ``status`` the HTTP status.

    ``params`` are what a client needs to say the refusal in its own language; a refusal
    by the rules also names the rule and the rules' own code (``reason``, see RuleError).
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 409,
        rule: str | None = None,
        reason: str | None = None,
        **params: str | int,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.rule = rule
        self.reason = reason
        self.params = params

    @classmethod
    def by_rules(cls, e: RuleError) -> Refused:
        return cls("illegal", str(e), 422, e.rule, e.code, **e.params)

    def to_json(self) -> ErrorData:
        out: ErrorData = {"code": self.code, "message": self.message, "params": dict(self.params)}
        if self.rule:
            out["rule"] = self.rule
        if self.reason:
            out["reason"] = self.reason
        return out


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def _token_ok(seat: SeatRow, token: object) -> bool:
    if not isinstance(token, str) or seat.token_hash is None:
        return False
    return hmac.compare_digest(seat.token_hash, hash_token(token))


def public_players(row: GameRow, present: frozenset[int] = frozenset()) -> list[PlayerData]:
    """The seats as anyone may see them (never the token hashes); ``present``: the person
    seats connected now."""
    return [
        {
            "seat": i,
            "name": s.name,
            "kind": s.kind,
            "level": s.level,
            "joined": s.joined,
            "open": s.open,
            "standin": s.standin,
            "present": i in present,
        }
        for i, s in enumerate(row.seats)
    ]


def chat_message(lines: list[ChatLine]) -> ChatMessage:
    return {
        "type": "chat",
        "lines": [
            {"idx": x.idx, "at": x.at, "version": x.version, "seat": x.seat, "kind": x.kind, "name": x.name, "text": x.text} for x in lines
        ],
    }


def table_options(spec: dict[str, Any]) -> TableOptions:
    """How a table plays, from a game's creation request: ``mode`` "live" (default) or
    "turn" (turn-based over days: nobody is stood in for); ``away``: seconds a person of a
    live game may be away on their turn before ``standin`` (a bot level) plays for them;
    ``hints``: the people agree to hints; ``spectator_chat``: spectators may write;
    ``public`` (default): listed in the lobby, else reached only through its links."""
    mode = spec.get("mode", "live")
    if mode not in MODES:
        raise Refused("malformed", "mode: 'live' or 'turn'", 400)
    away = spec.get("away", AWAY_DEFAULT)
    if not isinstance(away, (int, float)) or isinstance(away, bool) or not AWAY_RANGE[0] <= away <= AWAY_RANGE[1]:
        raise Refused("malformed", f"away: seconds, {AWAY_RANGE[0]:g} to {AWAY_RANGE[1]:g}", 400)
    standin = spec.get("standin", STANDIN_DEFAULT)
    if not isinstance(standin, str) or standin.lower() not in BOTS:
        raise Refused("malformed", f"standin: one of {', '.join(sorted(BOTS))}", 400)
    flags = {}
    for key, default in (("hints", False), ("spectator_chat", False), ("public", True)):
        flags[key] = spec.get(key, default)
        if not isinstance(flags[key], bool):
            raise Refused("malformed", f"{key}: true or false", 400)
    return {
        "mode": mode,
        "away": float(away),
        "standin": standin.lower(),
        "hints": flags["hints"],
        "spectator_chat": flags["spectator_chat"],
        "public": flags["public"],
    }


def _options_of(row: GameRow) -> TableOptions:
    """A stored game's options, with the defaults for what it does not say (older games)."""
    o = row.options
    return {
        "mode": o.get("mode", "live"),
        "away": float(o.get("away", AWAY_DEFAULT)),
        "standin": o.get("standin", STANDIN_DEFAULT),
        "hints": o.get("hints") is True,
        "spectator_chat": o.get("spectator_chat") is True,
        "public": o.get("public") is not False,
    }


def bot_move(level: str, seed: int, board_name: str, seat_view: ViewData) -> RecordAction:
    """Run in a worker: the bot's decision for the view, as a record action."""
    board = get_board(board_name)
    bot = make_bot(level, seed, board)
    seat = seat_view["seat"]
    assert seat is not None
    return action_of(seat, bot.choose(seat_view))


class Connection:
    """One connected client (a WebSocket): the seats it authenticated, and its outbox."""

    def __init__(self, seats: dict[int, str], delta: bool = False, ack_in_state: bool = False) -> None:
        self.seats = seats  # seat -> token
        self.delta = delta  # it takes state messages as deltas of the history (LiveGame.text_for)
        self.ack_in_state = ack_in_state  # it takes its acknowledgements inside the state messages
        self.base: tuple[int, int | None, int] | None = None  # the history it holds: (epoch, viewer, length)
        self.outbox: asyncio.Queue[AckMessage | ErrorMessage | ChatMessage | None] = asyncio.Queue()

    def notify(self) -> None:
        self.outbox.put_nowait(None)  # None: "send the current state"


@dataclass
class LiveGame:
    """A game in memory: its row, its state (rebuilt from the log) and its listeners."""

    row: GameRow
    board: Board
    state: State
    lock: asyncio.Lock = field(default_factory=asyncio.Lock)
    seat_lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one seat change at a time
    conns: set[Connection] = field(default_factory=set)
    bot_task: asyncio.Task[None] | None = None
    touched: float = field(default_factory=time.monotonic)
    again: str | None = None  # the game "Play again" started after this one (stored: GameRow.again)
    again_lock: asyncio.Lock = field(default_factory=asyncio.Lock)  # one "Play again" at a time makes it
    creator: str | None = None  # the address that created it (memory only: for the cap on bot-only games)
    leased: bool = False  # this process holds the lease on the game's bots (PostgreSQL: several processes)
    catching_up: bool = False  # a catch-up with the database is under way
    catch_again: bool = False  # ... and another change was announced meanwhile
    # person seats without a connection to this process: since when (time.monotonic)
    gone: dict[int, float] = field(default_factory=dict)
    spectators_due: asyncio.Task[None] | None = None  # a round of news to a large audience is coming
    chat: list[ChatLine] | None = None  # the chat, once read (the last CHAT_KEPT lines)
    chat_seen: int = 0  # the number of chat lines stored (the next line's index)
    # the state messages as JSON text, (seat, since) -> text, and their parts, seat -> (the
    # message without its view and closing brace, the view without its history), for what
    # the game is now (_texts_of; see _fresh)
    _sent: dict[tuple[int | None, int | None], str] = field(default_factory=dict, repr=False)
    _parts: dict[int | None, tuple[str, str]] = field(default_factory=dict, repr=False)
    _texts_of: tuple[Any, ...] | None = field(default=None, repr=False)
    _present: frozenset[int] | None = field(default=None, repr=False)  # see present
    _head: str | None = field(default=None, repr=False)  # see _head_text
    _common_of: tuple[State, str] | None = field(default=None, repr=False)  # see _view_text
    # viewer -> (the decisions, the history as JSON text, where each entry starts) (see _history_text)
    _hist: dict[int | None, tuple[list[Decision], str, list[int]]] = field(default_factory=dict, repr=False)
    # history index -> (the decision, its entry as JSON text per kind of viewer) (see _entry_text)
    _entries: dict[int, tuple[Decision, dict[int | None, str]]] = field(default_factory=dict, repr=False)
    # the history the deltas continue, the state it was read from, and how many times a history
    # did not continue the one before (see _sync_line)
    _line: list[Decision] = field(default_factory=list, repr=False)
    _line_of: State | None = field(default=None, repr=False)
    _epoch: int = field(default=0, repr=False)
    _public_of: tuple[State, Marks, Standing] | None = field(default=None, repr=False)  # see _public
    _marks_of: tuple[list[Decision], Marks] | None = field(default=None, repr=False)  # see marks
    _standing_of: tuple[list[list[int]], Standing] | None = field(default=None, repr=False)  # see _public

    def __post_init__(self) -> None:
        now = time.monotonic()
        self.gone = {i: now for i, s in enumerate(self.row.seats) if s.kind == "person"}

    @property
    def bots_only(self) -> bool:
        """Every seat is played by a bot now: its own, or a stand-in for its person (the cap
        on an address's games of bots only, the bots' turns at thinking: fair.py)."""
        return all(self.acting_level(i) is not None for i in range(len(self.row.seats)))

    @cached_property
    def options(self) -> TableOptions:
        """How the table plays (fixed when the game was created: read once)."""
        return _options_of(self.row)

    @property
    def present(self) -> frozenset[int]:
        """The seats held by a connection to this process now (kept until ``conns``
        changes: see :meth:`conns_changed`; a thousand spectators are not counted per message)."""
        if self._present is None:
            self._present = frozenset(s for c in self.conns for s in c.seats)
        return self._present

    def conns_changed(self) -> None:
        """``conns`` changed: who is present is counted again."""
        self._present = None

    def acting_level(self, seat: int) -> str | None:
        """The bot level that plays ``seat``: its own, or the stand-in's while the person
        is away (live games); None: a person plays it."""
        sr = self.row.seats[seat]
        if sr.kind == "bot":
            return sr.level or "random"
        if sr.standin and self.options["mode"] == "live":
            return self.options["standin"]
        return None

    @property
    def hints_allowed(self) -> bool:
        """Hints may be asked for: at a table with at most one person, at hot-seat, or
        where the people agreed to them when the game was created."""
        people = sum(1 for s in self.row.seats if s.kind == "person")
        return people <= 1 or self.row.hotseat or self.options["hints"]

    @property
    def marks(self) -> Marks:
        """Public moments: the number of actions after which the intermediate scoring (R7)
        and the last round (R8.1) began, read from the events of the history."""
        hist = self.state.history or []
        start, out = 0, Marks()
        was = self._marks_of
        # the decisions read before are read again only if this history does not continue them
        if was is not None and _continues(was[0], hist):
            start, out = len(was[0]), Marks(**was[1])
        for i in range(start, len(hist)):
            for e in hist[i].events:
                if isinstance(e, IntermediateScoring):
                    out["intermediate"] = i + 1
                elif isinstance(e, LastRound):
                    out["last_round"] = i + 1
        self._marks_of = (hist[:], out)
        return Marks(**out)

    @property
    def version(self) -> int:
        assert self.state.history is not None
        return len(self.state.history)

    @property
    def names(self) -> list[str]:
        return [s.name for s in self.row.seats]

    def seat_for(self, seats: dict[int, str] | set[int]) -> int | None:
        """Which seat's view a connection holding ``seats`` gets now.

        One seat: always its own. Several (hot-seat): the acting one if it holds it,
        else none (a spectator's view), so a hand shows only on its owner's turn.
        """
        held = set(seats)
        if len(held) == 1:
            return next(iter(held))
        if self.row.status == "running" and self.state.current in held:
            return self.state.current
        return None

    def _made_from(self) -> tuple[Any, ...]:
        """What a state message is made from: a change of any of it makes every message new
        (the state object itself is kept, so a new state, a move or an undo, is never
        mistaken for the one before)."""
        return (self.state, self.row.status, self.again, tuple((s.name, s.joined, s.standin) for s in self.row.seats), self.present)

    def _fresh(self) -> None:
        """Forget the texts made for what the game was before (see _made_from)."""
        made_from = self._made_from()
        was = self._texts_of
        if was is None or was[0] is not made_from[0] or was[1:] != made_from[1:]:
            self._sent.clear()
            self._parts.clear()
            self._head = None
            self._texts_of = made_from

    def message_text(self, seat: int | None, since: int | None = None) -> str:
        """The state message for ``seat`` as JSON text, made once per change of the game
        and shared by every connection that gets it (a thousand spectators cost one view).

        ``since``: a delta for a client that holds the first ``since`` entries of the
        history as the same viewer (see :meth:`text_for`): the message's ``history`` is
        ``{"from": since, "entries": [the entries after them]}`` and the view has no
        history. Without it, the whole message (:meth:`message`). The history, most of a
        message, is kept as text per viewer and only its new entries are encoded; the
        text means the same JSON as :meth:`message` (key order aside)."""
        self._fresh()
        cached = self._sent.get((seat, since))
        if cached is not None:
            return cached
        parts = self._parts.get(seat)
        if parts is None:
            parts = self._parts[seat] = (self._head_text(seat), self._view_text(seat))
        head_text, v = parts
        hist, offsets = self._history_text(seat)
        if since is None:
            text = f'{head_text},"view":{v[:-1]},"history":{hist}}}}}'
        else:
            entries = hist[offsets[since] : -1] if since < len(offsets) else ""
            text = f'{head_text},"history":{{"from":{since},"entries":[{entries}]}},"view":{v}}}'
        self._sent[(seat, since)] = text
        return text

    def text_for(self, conn: Connection) -> str:
        """The state message a connection gets now: a delta if it asked for them (hello
        ``"delta": true``) and holds a history this one continues (the same viewer, no
        undo or reload since: ``_epoch``), else the whole message."""
        seat = self.seat_for(conn.seats)
        if not conn.delta:
            return self.message_text(seat)
        self._sync_line()
        n = self.version
        base = conn.base
        since = base[2] if base is not None and base[0] == self._epoch and base[1] == seat and base[2] <= n else None
        text = self.message_text(seat, since)
        conn.base = (self._epoch, seat, n)
        return text

    def _sync_line(self) -> None:
        """Count the histories that do not continue the one before (an undo, another
        process's change read again): ``_epoch``, the base of every delta."""
        if self._line_of is self.state:
            return
        hist = self.state.history or []
        line = self._line
        if not _continues(line, hist):
            self._epoch += 1
        self._line = hist[:]
        self._line_of = self.state

    def _head_text(self, seat: int | None) -> str:
        """The state message for ``seat`` without its view, as JSON text without the
        closing brace: what every seat shares made once per change, with the seat's own
        ``seat`` and ``legal``."""
        if self._head is None:
            shared: dict[str, Any] = dict(self._message(None, with_view=False))
            del shared["seat"]
            self._head = json_text(shared)[1:-1]
        seat_text = "null" if seat is None else str(seat)
        if not self._acts(seat):
            return f'{{"seat":{seat_text},{self._head}'
        assert seat is not None
        legal = ",".join(_action_text(seat, type(m).__name__, m) for m in self.state.legal_moves())
        return f'{{"seat":{seat_text},"legal":[{legal}],{self._head}'

    def _acts(self, seat: int | None) -> bool:
        """A message for ``seat`` lists the legal actions: the person to act."""
        return seat is not None and self.row.status == "running" and self.state.current == seat and self.acting_level(seat) is None

    def _legal(self, seat: int | None) -> list[RecordAction] | None:
        """The legal actions of a message for ``seat``: only for the person to act."""
        if seat is not None and self._acts(seat):
            return [action_of(seat, m) for m in self.state.legal_moves()]
        return None

    def _view_text(self, seat: int | None) -> str:
        """``view(state, seat)`` without its history, as JSON text: the part every seat
        shares (the spectator's view) made once per state, with the seat's own hand."""
        if self._common_of is None or self._common_of[0] is not self.state:
            common: dict[str, Any] = dict(view(self.state, None, history=False))
            del common["seat"]
            self._common_of = (self.state, json_text(common))
        rest = self._common_of[1][1:]
        if seat is None:
            return '{"seat":null,' + rest
        return f'{{"seat":{seat},"hand":{json_text(hand_view(self.state, seat))},{rest}'

    def _history_text(self, viewer: int | None) -> tuple[str, list[int]]:
        """The view's history for ``viewer`` as JSON text, and where each entry starts in
        it: kept per viewer and extended by the decisions made since (a decision never
        changes; an undo, a reload or another process's change makes a new history, which
        is encoded again)."""
        hist = self.state.history
        if hist is None:
            return "null", []
        have = self._hist.get(viewer)
        if have is not None:
            made, text, offsets = have
            k = len(made)
            if _continues(made, hist):
                if k == len(hist):
                    return text, offsets
                pos = len(text) - 1 + (1 if k else 0)
                offsets = offsets[:]
                parts = []
                for i in range(k, len(hist)):
                    part = self._entry_text(i, hist[i], viewer)
                    offsets.append(pos)
                    pos += len(part) + 1
                    parts.append(part)
                text = f"{text[:-1]}{',' if k else ''}{','.join(parts)}]"
                self._hist[viewer] = (hist[:], text, offsets)
                return text, offsets
        parts = [self._entry_text(i, d, viewer) for i, d in enumerate(hist)]
        offsets, pos = [], 1
        for part in parts:
            offsets.append(pos)
            pos += len(part) + 1
        text = "[" + ",".join(parts) + "]"
        self._hist[viewer] = (hist[:], text, offsets)
        return text, offsets

    def _entry_text(self, i: int, d: Decision, viewer: int | None) -> str:
        """History entry ``i``, the decision ``d``, as JSON text for ``viewer``: made once
        for every viewer who sees it alike. Only a drawn card differs between viewers (R13:
        its kind is the drawer's alone), so a decision is encoded at most twice, for the
        drawer and for everyone else, instead of once per seat and spectator."""
        who = viewer if viewer is not None and any(type(e) is Drew and e.seat == viewer for e in d.events) else None
        have = self._entries.get(i)
        if have is None or have[0] is not d:
            have = self._entries[i] = (d, {})
        text = have[1].get(who)
        if text is None:
            text = have[1][who] = json_text(history_entry(self.board, d, who))
        return text

    def forget_texts(self) -> None:
        """Drop the texts kept for sending (nobody is connected: memory, not time)."""
        self._sent.clear()
        self._parts.clear()
        self._hist.clear()
        self._entries.clear()
        self._texts_of = self._common_of = self._head = None

    def message(self, seat: int | None) -> StateMessage:
        """The state message for ``seat`` (None: spectator): built only from the view."""
        return self._message(seat)

    def _public(self) -> tuple[Marks, Standing]:
        """The parts of a state message that are the same for every seat, once per state."""
        if self._public_of is None or self._public_of[0] is not self.state:
            advisors = self.state.advisors
            if self._standing_of is None or self._standing_of[0] != advisors:  # a draw moves no advisor
                self._standing_of = ([r[:] for r in advisors], standing(self.board, self.state))
            self._public_of = (self.state, self.marks, self._standing_of[1])
        return self._public_of[1], self._public_of[2]

    def _message(self, seat: int | None, with_view: bool = True) -> StateMessage:
        st = self.state
        marks, stand = self._public()
        msg: StateMessage = {
            "type": "state",
            "game": self.row.id,
            "status": self.row.status,
            "hotseat": self.row.hotseat,
            "version": self.version,
            "players": public_players(self.row, self.present),
            "table": self.options,
            "seat": seat,
            "view": view(st, seat) if with_view else {},
            "marks": marks,  # shared by the seats' messages: never changed once made
            "standing": stand,
        }
        if self.again is not None:
            msg["again"] = self.again
        legal = self._legal(seat)
        if legal is not None:
            msg["legal"] = legal
        return msg


def _last_person(live: LiveGame, seat: int) -> bool:
    """Every seat but ``seat`` is played by a bot (its own or a stand-in): nobody waits for
    its person, so nobody stands in for them (else bots would play the whole game, a game of
    bots only past its address's cap, with the people's turns at thinking)."""
    return all(live.acting_level(i) is not None for i in range(len(live.row.seats)) if i != seat)


def _continues(before: list[Decision], hist: list[Decision]) -> bool:
    """``hist`` continues ``before``: it begins with the same decisions (a decision never
    changes: the same object at the same place is the same; an undo or a reload makes new ones).

    Only ``before``'s last decision is compared: a Decision is made once, by the move that
    appends it to a history beginning with the decisions before it, and histories are
    only ever copied, cut short or replayed (new objects), so the same object at the same
    place has the same decisions before it. Comparing every decision was about a sixth
    of the time spent making state messages (a whole game's history, several times a move)."""
    k = len(before)
    return k <= len(hist) and (k == 0 or hist[k - 1] is before[k - 1])


def spectators_pause(audience: int) -> float:
    """Seconds between two rounds of news to ``audience`` spectators of one game."""
    return SPECTATORS_PAUSE * max(1.0, audience / SPECTATORS_PER_PAUSE)


async def _tell_spectators(live: LiveGame, audience: int) -> None:
    """Tell a game's spectators of its newest state, after a pause (spectators_pause: the
    changes meanwhile go out together), SPECTATORS_AT_ONCE at a time."""
    await asyncio.sleep(spectators_pause(audience))
    live.spectators_due = None  # a change from now on is told in another round
    conns = [c for c in live.conns if not c.seats]
    for i in range(0, len(conns), SPECTATORS_AT_ONCE):
        if i:
            await asyncio.sleep(0)
        for c in conns[i : i + SPECTATORS_AT_ONCE]:
            c.notify()


@functools.lru_cache(maxsize=1 << 14)  # about 2 MB at most
def _action_text(seat: int, kind: str, move: Move) -> str:
    """A legal action as JSON text, made once per move (the legal actions of every state
    message were a sixth of the server's time). ``kind``: the name of the move's class, in the key
    because moves are tuples (equal tuples of two kinds of move are not the same move)."""
    return json_text(action_of(seat, move))


def standing(board: Board, st: State) -> Standing:
    """Who would score each alliance if the game ended now (R10.3), from the advisors."""
    out: list[AllianceStanding] = []
    for number, pts in alliance_scoring(board, st.advisors):
        holders = [p for p, x in enumerate(pts) if x]
        out.append({"number": number, "holders": holders, "points": max(pts, default=0)})
    return {"alliances": out}


# letters a name may not hold: controls, format characters (the bidirectional overrides
# and isolates among them), surrogates, private use and unassigned code points
_BAD_IN_NAME = frozenset(("Cc", "Cf", "Cs", "Co", "Cn"))


def _version_of(msg: dict[str, Any]) -> int:
    """The state version a message expects (the number of actions so far)."""
    version = msg.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise Refused("malformed", "'version' must be the number of actions so far", 400)
    return version


def _clean_name(name: object, default: str) -> str:
    """A player's name as shown to everyone: NFC, runs of white space as one space, at
    most MAX_NAME characters; Refused ``bad_name`` for anything else (nothing is cut
    silently). No name (None or only white space) is ``default``."""
    if name is None:
        return default
    if not isinstance(name, str):
        raise Refused("bad_name", "a name must be text", 400, max=MAX_NAME)
    name = unicodedata.normalize("NFC", " ".join(name.split()))
    if any(unicodedata.category(ch) in _BAD_IN_NAME for ch in name):
        raise Refused("bad_name", "a name may hold letters, digits, punctuation and spaces only", 400, max=MAX_NAME)
    if len(name) > MAX_NAME:
        raise Refused("bad_name", f"a name has at most {MAX_NAME} characters", 400, max=MAX_NAME)
    return name or default


def _storable(text: str) -> bool:
    """Text the database can hold: UTF-8 (JSON may carry a lone surrogate, "\\ud800")."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _name_key(name: str) -> str:
    """What two names must not share at one table: NFKC, case folded, runs of white space
    as one space, stripped ("Ａｎｎａ" and " anna " are Anna)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def _name_taken(name: str) -> Refused:
    return Refused("name_taken", f"the name {name} is taken at this table", 409, name=name)


def _check_name_free(seats: list[SeatRow], name: str, seat: int | None = None) -> None:
    """Refused ``name_taken`` if a seat of the table but ``seat`` has ``name`` (see _name_key)."""
    key = _name_key(name)
    if any(i != seat and _name_key(s.name) == key for i, s in enumerate(seats)):
        raise _name_taken(name)


def _seat_number(key: object) -> object:
    """A seat number sent as a JSON object's key ("2"): the number (other keys as they are,
    for _auth to refuse). Only a few ASCII digits: int() of a long or a non-ASCII run of
    digits ("²") raises ValueError."""
    if isinstance(key, str) and 0 < len(key) <= 4 and key.isascii() and key.isdigit():
        return int(key)
    return key


class _FollowedAlready(Exception):
    """The finished game has its follow-up already ("Play again" through another process,
    or another copy of it in memory): that game's id (None: the finished game is gone)."""

    def __init__(self, game_id: str | None) -> None:
        super().__init__(game_id)
        self.game_id = game_id


class GameService:
    """All games of one server process."""

    def __init__(
        self,
        storage: Storage,
        bot_pause: float = 0.6,
        executor: Executor | None = None,
        max_live: int = 5000,
        idle_expiry: float | None = None,
    ) -> None:
        self.storage = storage
        self.idle_expiry = idle_expiry  # seconds without a change after which an unfinished game expires
        self.max_live = max_live  # games kept in memory; idle ones beyond this are reloaded from the log when needed
        self.bot_pause = bot_pause
        self.executor = executor or ThreadPoolExecutor(max_workers=2, thread_name_prefix="kardinal-bot")
        # bots think in turns: games with people first (fair.py); as many at once as workers
        self.thinking = FairSlots(getattr(self.executor, "_max_workers", 2))
        self.live: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Future[LiveGame]] = {}  # games being read (fetch)
        self.on_change: list[Callable[[LiveGame], None]] = []
        self._pending: list[tuple[PendingWrite, asyncio.Future[None]]] = []  # writes to commit (_write)
        self._flusher: asyncio.Task[None] | None = None
        # games of bots only being created, per address (counted with the running ones: the cap)
        self._bot_creations: Counter[str] = Counter()
        # (creator, client key) -> (when, the creation: the game's id and tokens): a key sent
        # again gets the same game (create; the id, not the game: a forgotten game is not kept)
        self._keys: OrderedDict[tuple[str | None, str], tuple[float, asyncio.Future[tuple[str, dict[int, str]]]]] = OrderedDict()

    # -- loading ------------------------------------------------------------------

    def _load(self, row: GameRow) -> LiveGame:
        """A stored game in memory, replayed from its log; Refused ``unreadable`` (logged
        with the game's id only) when its row or log cannot be replayed."""
        try:
            board = get_board(row.board)
            st = new_game(len(row.seats), seed=row.seed, board=board, variants=row.variants)
            live = LiveGame(row, board, st, again=row.again)
            for _ in steps(st, self.storage.actions(row.id)):
                pass
        except (IllegalAction, RecordError, CorruptGame, BoardError, VariantError, ValueError, KeyError, TypeError) as e:
            log.error("game %s cannot be replayed from its log (%s)", row.id, type(e).__name__)
            raise Refused("unreadable", "this game's stored log cannot be read", 500) from None
        return live

    def get(self, game_id: str) -> LiveGame:
        """A game in memory, loaded from the database if need be (on the calling thread:
        the server's handlers call :meth:`fetch` first, which loads it off the event loop)."""
        live = self.live.get(game_id)
        if live is not None:
            live.touched = time.monotonic()
            return live
        return self._adopt(game_id, self._read(game_id))

    async def fetch(self, game_id: object) -> LiveGame:
        """:meth:`get` for the event loop: a game not in memory is read and replayed in a
        thread (other games go on meanwhile), once however many ask for it at the same time."""
        if not isinstance(game_id, str):
            raise Refused("malformed", "'game' must be a game id", 400)
        live = self.live.get(game_id)
        if live is not None:
            live.touched = time.monotonic()
            return live
        pending = self._loading.get(game_id)
        if pending is None:
            pending = self._loading[game_id] = asyncio.ensure_future(asyncio.to_thread(self._read, game_id))
            pending.add_done_callback(lambda _f: self._loading.pop(game_id, None))
        loaded = await asyncio.shield(pending)
        live = self.live.get(game_id)  # another caller adopted it meanwhile
        return live if live is not None else self._adopt(game_id, loaded)

    def _read(self, game_id: str) -> LiveGame:
        """A game from the database, replayed (not yet in memory); Refused if none or unreadable."""
        try:
            row = self.storage.get_game(game_id) if isinstance(game_id, str) and len(game_id) <= 32 else None
        except CorruptGame as e:
            log.error("%s", e)
            raise Refused("unreadable", "this game's stored data cannot be read", 500) from None
        if row is None:
            raise Refused("no_game", f"there is no game {game_id!r}", 404)
        return self._load(row)

    def _adopt(self, game_id: str, live: LiveGame) -> LiveGame:
        have = self.live.get(game_id)
        if have is not None:
            return have
        self.live[game_id] = live
        self._evict()
        return live

    def _evict(self) -> None:
        """Forget the least recently changed idle games (no listener, no bot at work) beyond max_live."""
        if len(self.live) <= self.max_live:
            return
        idle = [
            lv
            for lv in self.live.values()
            if not lv.conns and (lv.bot_task is None or lv.bot_task.done()) and not lv.lock.locked() and not lv.again_lock.locked()
        ]
        idle.sort(key=lambda lv: lv.touched)
        for lv in idle[: len(self.live) - self.max_live]:
            del self.live[lv.row.id]
            if lv.leased:
                self.storage.release_lease(lv.row.id)

    def sweep(self, now: float | None = None) -> int:
        """Forget the games nobody uses (reloaded from the database when asked for): a
        finished or expired one FINISHED_KEPT seconds after it was last asked for, a running
        one IDLE_KEPT (at least twice its table's "away") after; of the finished ones no
        more than FINISHED_MAX; never one with a connection, a bot at work or a change under
        way. Returns how many."""
        now = time.monotonic() if now is None else now
        gone, ended = [], []
        for lv in self.live.values():
            if lv.conns or (lv.bot_task is not None and not lv.bot_task.done()) or lv.lock.locked() or lv.seat_lock.locked():
                continue
            if lv.again_lock.locked():
                continue
            if lv.catching_up:
                continue
            finished = lv.row.status in ("finished", "expired")
            keep = FINISHED_KEPT if finished else max(IDLE_KEPT, 2 * lv.options["away"])
            if now - lv.touched >= keep:
                gone.append(lv)
            elif finished:
                ended.append(lv)
        if len(ended) > FINISHED_MAX:
            ended.sort(key=lambda lv: lv.touched)
            gone += ended[: len(ended) - FINISHED_MAX]
        for lv in gone:
            del self.live[lv.row.id]
            if lv.leased:
                self.storage.release_lease(lv.row.id)
        return len(gone)

    async def keep_shared(self, stop: asyncio.Event, every: float = 2.0) -> None:
        """Several processes (PostgreSQL): listen to the others' changes, and every few
        seconds take over the bots of games whose process has gone (their leases are free)."""
        loop = asyncio.get_running_loop()
        halt = threading.Event()
        listener = threading.Thread(
            target=self.storage.listen,
            args=(lambda gid: loop.call_soon_threadsafe(self.changed_elsewhere, gid), halt),
            name="kardinal-listen",
            daemon=True,
        )
        listener.start()
        try:
            while not stop.is_set():
                try:
                    await asyncio.wait_for(stop.wait(), every)
                except TimeoutError:
                    pass
                if not stop.is_set():
                    try:
                        await self.resume()
                    except Exception as e:  # noqa: BLE001 - logged; tried again in a moment
                        log.error("taking over games failed (%s)", type(e).__name__)
        finally:
            halt.set()
            await asyncio.to_thread(listener.join, 5)

    async def resume(self) -> int:
        """At start-up: load every running game with a bot and let its bots play on.

        Games of persons only are loaded when someone asks for them.
        """
        ids = await asyncio.to_thread(self.storage.game_ids, "running", True)
        resumed = 0
        for gid in ids:
            try:
                self.start_bots(await self.fetch(gid))
                resumed += 1
            except Refused:  # an unreadable game (logged) does not stop the others
                pass
            await asyncio.sleep(0)
        return resumed

    # -- lobby --------------------------------------------------------------------

    def bot_games_of(self, creator: str) -> int:
        """Games of bots only that ``creator`` (an address) started and that still run."""
        return sum(1 for g in self.live.values() if g.creator == creator and g.row.status == "running" and g.bots_only)

    async def create(
        self, spec: Any, creator: str | None = None, key: str | None = None, charge: Callable[[], None] | None = None
    ) -> tuple[LiveGame, dict[int, str]]:
        """Create a game from ``{players: [{name, kind, level}], hotseat, board, variants}``.

        ``creator``: the address asking; it may run MAX_BOT_GAMES games of bots only at once.

        ``board``: an installed board's id; ``variants``: rule variants (R14), default none.
        The seats' names are unique (see _name_key). Returns the game and the secret tokens
        of its person seats.

        ``key``: the client's key for this creation (8-64 of A-Z a-z 0-9 _ -): the same
        ``(creator, key)`` again, also at the same time (a double click), gets the same game
        and tokens (for KEY_SECONDS; a refused creation is not remembered). ``charge``:
        called once, only when a game is really made (it may refuse: the rate limit).
        """
        if key is None:
            return await self._create(spec, creator, charge)
        if not isinstance(key, str) or not KEY_FORMAT.fullmatch(key):
            raise Refused("malformed", "key: 8-64 letters, digits, '_' or '-'", 400)
        ident = (creator, key)
        while True:
            self._forget_keys()
            have = self._keys.get(ident)
            if have is None:
                break
            try:
                gid, tokens = await asyncio.shield(have[1])
            except asyncio.CancelledError:
                if have[1].cancelled():
                    continue  # the first creation was cancelled, not this call: make it here
                raise
            live = self.live.get(gid)  # forgotten since: read again
            return (live if live is not None else await self.fetch(gid)), dict(tokens)
        made: asyncio.Future[tuple[str, dict[int, str]]] = asyncio.get_running_loop().create_future()
        self._keys[ident] = (time.monotonic(), made)
        self._forget_keys()
        try:
            live, tokens = await self._create(spec, creator, charge)
        except BaseException as e:
            if self._keys.get(ident, (0.0, None))[1] is made:
                del self._keys[ident]  # not remembered: the form may be fixed and sent again
            if isinstance(e, Exception):
                made.set_exception(e)
                made.exception()  # retrieved (whoever waits gets it too)
            else:
                made.cancel()
            raise
        made.set_result((live.row.id, dict(tokens)))
        return live, tokens

    def _forget_keys(self) -> None:
        """Forget the creation keys older than KEY_SECONDS, and the oldest beyond KEYS_KEPT."""
        old = time.monotonic() - KEY_SECONDS
        keys = self._keys
        while keys and (len(keys) > KEYS_KEPT or next(iter(keys.values()))[0] < old):
            keys.popitem(last=False)

    async def _create(
        self,
        spec: Any,
        creator: str | None,
        charge: Callable[[], None] | None = None,
        same_as: list[SeatRow] | None = None,
        follows: tuple[str, str | None] | None = None,
    ) -> tuple[LiveGame, dict[int, str]]:
        """:meth:`create` without a key. ``same_as``: the seats of the game "Play again"
        follows: the people's seats take their token hashes, and the names are not checked
        again (a game stored before names were unique per table may repeat one).
        ``follows``: that game's id and the follow-up it names that cannot be read (or
        None): see :meth:`_start`."""
        if not isinstance(spec, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        board_name = spec.get("board", "standard")
        if not isinstance(board_name, str) or board_name not in installed_boards():
            raise Refused("malformed", f"board: one of {', '.join(installed_boards())}", 400)
        board = get_board(board_name)
        names = spec.get("variants", [])
        if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
            raise Refused("malformed", "variants: a list of rule variant names", 400)
        try:
            variants = list(parse_variants(names))
        except VariantError as e:
            raise Refused("malformed", f"variants: {e}", 400) from None
        players = spec.get("players")
        if not isinstance(players, list) or len(players) not in board.removed_per_kind:
            raise Refused("malformed", f"players: a list of {', '.join(map(str, board.player_counts))} seats", 400)
        hotseat = bool(spec.get("hotseat", False))
        options = table_options(spec)
        seats: list[SeatRow] = []
        tokens: dict[int, str] = {}
        for i, p in enumerate(players):
            if not isinstance(p, dict):
                raise Refused("malformed", f"players[{i}]: expected an object", 400)
            kind = p.get("kind", "person")
            if kind == "bot":
                level = p.get("level", "random")
                if not isinstance(level, str) or level.lower() not in BOTS:
                    raise Refused("malformed", f"players[{i}].level: one of {', '.join(sorted(BOTS))}", 400)
                seats.append(SeatRow(_clean_name(p.get("name"), f"Bot {i + 1}"), "bot", level.lower(), None, True))
            elif kind == "person":
                tok = secrets.token_urlsafe(18)
                tokens[i] = tok
                is_open = p.get("open", False)
                if not isinstance(is_open, bool):
                    raise Refused("malformed", f"players[{i}].open: true or false", 400)
                name = _clean_name(p.get("name"), f"Player {i + 1}")
                seats.append(SeatRow(name, "person", None, hash_token(tok), hotseat, open=is_open and not hotseat))
            else:
                raise Refused("malformed", f"players[{i}].kind: 'person' or 'bot'", 400)
        if same_as is None:
            for i, sr in enumerate(seats):
                _check_name_free(seats[:i], sr.name)
        else:
            seats = [replace(sr, token_hash=o.token_hash) if o.kind == "person" else sr for sr, o in zip(seats, same_as)]
            tokens = {}  # the people hold theirs
        counted = creator if creator is not None and all(s.kind == "bot" for s in seats) else None
        if counted is not None:
            # the games of bots only being made count too: several requests at once keep to the cap
            if self.bot_games_of(counted) + self._bot_creations[counted] >= MAX_BOT_GAMES:
                raise Refused("too_many_bot_games", f"at most {MAX_BOT_GAMES} games of bots only at once", 429, max=MAX_BOT_GAMES)
            self._bot_creations[counted] += 1
        try:
            if charge is not None:
                charge()
            return await self._start(board, board_name, seats, hotseat, variants, dict(options), creator, follows), tokens
        finally:
            if counted is not None:
                self._bot_creations[counted] -= 1
                if self._bot_creations[counted] <= 0:
                    del self._bot_creations[counted]

    async def _start(
        self,
        board: Board,
        board_name: str,
        seats: list[SeatRow],
        hotseat: bool,
        variants: list[str],
        options: dict[str, Any],
        creator: str | None,
        follows: tuple[str, str | None] | None = None,
    ) -> LiveGame:
        """Deal a new game with these seats, store it, and keep it in memory.

        ``follows``: the new game is the follow-up of this finished game ("Play again"; and
        the follow-up it names that cannot be read, replaced, or None): stored only if that
        game has no other follow-up yet (Storage.create_follow_up); else _FollowedAlready
        names the one it has, and nothing of this one is stored or kept."""
        seed = secrets.randbits(62)
        st = new_game(len(seats), seed=seed, board=board, variants=variants)
        ids = [k.id for k in board.cards]
        gid = secrets.token_hex(6)
        status = "running" if all(s.joined for s in seats) else "open"
        row = GameRow(
            id=gid,
            board=board_name,
            seats=seats,
            hotseat=hotseat,
            deck=[ids[k] for k in st.initial_deck],
            seed=seed,
            status=status,
            variants=variants,
            options=options,
        )
        if follows is None:
            await self._write(row)
        else:
            have = await asyncio.to_thread(self.storage.create_follow_up, follows[0], row, follows[1])
            if have != gid:
                raise _FollowedAlready(have)
        live = self.live[gid] = LiveGame(row, board, st, creator=creator)
        live.chat, live.chat_seen = [], 0  # nothing said yet: not read from the database
        self._evict()
        self.start_bots(live)
        return live

    def _auth(self, live: LiveGame, seat: object, token: object) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(live.row.seats):
            raise Refused("bad_token", "no such seat, or a wrong token", 403)
        if not _token_ok(live.row.seats[seat], token):
            raise Refused("bad_token", "no such seat, or a wrong token", 403)
        return seat

    async def join(self, game_id: str, seat: object, token: object, name: object = None) -> LiveGame:
        """A person takes their seat (by their invitation link); the game starts when all have.
        A new ``name`` (while the game is open) may not be another seat's (name_taken)."""
        live = await self.fetch(game_id)
        s = self._auth(live, seat, token)
        sr = live.row.seats[s]
        new = _clean_name(name, sr.name) if name is not None and live.row.status == "open" else sr.name
        if new != sr.name or not sr.joined:

            def name_free(_now: SeatRow) -> None:  # the seats as they are then (two joins at once)
                _check_name_free(live.row.seats, new, s)

            await self._set_seat(live, s, replace(sr, name=new, joined=True), name_free if new != sr.name else None)
        return live

    async def _set_seat(self, live: LiveGame, seat: int, row: SeatRow, check: Callable[[SeatRow], None] | None = None) -> None:
        """Change a seat: in the database first (in a thread), then in memory (a failed
        write changes nothing); the game starts when every seat has joined. Seat changes of
        one game are made one at a time (its seat lock), each on the seats as they are;
        ``check`` may refuse the change, given the seat as it is then."""
        async with live.seat_lock:
            if check is not None:
                check(live.row.seats[seat])
            seats = list(live.row.seats)
            seats[seat] = row
            status = "running" if live.row.status == "open" and all(x.joined for x in seats) else live.row.status
            at = time.time()
            await self._write(SeatChange(live.row.id, seats, status, at))
            live.row.updated = at
        live.row.seats = seats
        live.row.status = status
        self._changed(live)

    async def claim(self, game_id: str, seat: object, name: object = None) -> str:
        """Take a free person seat of an open game from the lobby: a new token for it."""
        live = await self.fetch(game_id)
        if live.row.status != "open":
            raise Refused("not_open", "the game is not waiting for players")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(live.row.seats):
            raise Refused("malformed", "no such seat", 400)
        sr = live.row.seats[seat]
        if sr.kind != "person" or sr.joined:
            raise Refused("seat_taken", "that seat is taken")
        if not sr.open:  # an invited seat is taken with its link only
            raise Refused("seat_invited", "this seat is kept for an invited player", 403)
        new = _clean_name(name, sr.name) if name is not None else sr.name
        tok = secrets.token_urlsafe(18)

        def still_free(now: SeatRow) -> None:  # two claims of one seat: the second finds it taken
            if now.joined:
                raise Refused("seat_taken", "that seat is taken")
            if new != sr.name:  # nor may it take another seat's name (the seats as they are then)
                _check_name_free(live.row.seats, new, seat)

        await self._set_seat(live, seat, replace(sr, name=new, token_hash=hash_token(tok), joined=True), still_free)
        return tok

    def summary(self, row: GameRow) -> dict[str, Any]:
        live = self.live.get(row.id)
        out: dict[str, Any] = {
            "id": row.id,
            "created": row.created,
            "status": row.status,
            "hotseat": row.hotseat,
            "board": row.board,
            "variants": list(row.variants),
            "table": _options_of(row),
            "players": public_players(row) if live is None else public_players(live.row, live.present),
        }
        if live is not None:
            if live.row.status == "running":
                out["current"] = live.state.current  # whose turn ("My games")
            out["version"] = live.version
            out["scores"] = live.state.scores[:]
            out["winners"] = live.state.winners
        return out

    # -- actions ------------------------------------------------------------------

    async def _sender(self, game_id: object, msg: dict[str, Any]) -> tuple[LiveGame, int]:
        """The game a message is for, and the seat whose secret token it carries."""
        live = await self.fetch(game_id)
        return live, self._auth(live, msg.get("seat"), msg.get("token"))

    async def submit(self, game_id: object, msg: Any) -> AckMessage:
        """Check and apply one action message from a person; returns the acknowledgement.

        ``msg``: ``{seat, token, version, id, action}`` where ``action`` is a
        kardinal-record action dict. Raises Refused (nothing changes then).
        """
        if not isinstance(msg, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        client_id = msg.get("id")
        if client_id is not None and (not isinstance(client_id, str) or not 1 <= len(client_id) <= 100 or not _storable(client_id)):
            raise Refused("malformed", "'id' must be a string of 1-100 characters", 400)
        version = _version_of(msg)
        if not isinstance(msg.get("action"), dict):
            raise Refused("malformed", "'action' must be a kardinal-record action object", 400)
        live, seat = await self._sender(game_id, msg)
        async with live.lock:
            # a client id is the sending seat's own: another seat's equal id is another action
            key = f"{seat}:{client_id}" if client_id is not None else None
            # an action sent again carries the version it was applied at, now past: an action
            # for the version now is looked up only if it is refused (below; the database's
            # unique client id refuses one applied by another process meanwhile)
            if key is not None and version != live.version:
                done = await asyncio.to_thread(self.storage.client_action, live.row.id, key)
                if done is not None:
                    return {"type": "ack", "id": client_id, "version": live.version, "index": done, "duplicate": True}
                key_checked = True
            else:
                key_checked = False
            try:
                index = await self._checked_commit(live, seat, version, msg, key)
            except Refused as e:
                if key is not None and not key_checked and e.code != "unavailable":
                    try:
                        done = await asyncio.to_thread(self.storage.client_action, live.row.id, key)
                    except Exception:  # noqa: BLE001 - the refusal stands
                        done = None
                    if done is not None:
                        return {"type": "ack", "id": client_id, "version": live.version, "index": done, "duplicate": True}
                raise
        return {"type": "ack", "id": client_id, "version": live.version, "index": index, "duplicate": False}

    async def _checked_commit(self, live: LiveGame, seat: int, version: int, msg: dict[str, Any], key: str | None) -> int:
        """The checks of :meth:`submit` after the client id, then the commit; the caller
        holds the game's lock."""
        st = live.state
        if live.row.status == "open":
            raise Refused("not_started", "the game starts when every player has joined")
        if live.row.status == "expired":
            raise Refused("expired", "this game expired: nobody moved for too long")
        if st.is_over:
            raise Refused("game_over", "the game is over")
        if st.current != seat:  # whose turn
            raise Refused("not_your_turn", f"it is {live.row.seats[st.current].name}'s turn", name=live.row.seats[st.current].name)
        if version != live.version:  # the expected state version
            raise Refused("stale_version", f"the game has moved on: version {live.version}, not {version}", version=live.version)
        try:
            aseat, move = move_of(msg["action"])
        except RecordError as e:
            raise Refused("malformed", f"action: {e}", 400) from None
        if aseat != seat:
            raise Refused("malformed", "action: 'seat' must be the seat that sends it", 400)
        try:  # the rules
            st.check(move)
        except RuleError as e:
            raise Refused.by_rules(e) from None
        return await self._commit(live, seat, move, key)

    async def undo(self, game_id: object, msg: Any) -> AckMessage:
        """Take back one's own placement before any card is drawn (parity with the terminal).

        ``msg``: ``{"seat", "token", "version"}``. Only the seat's last decision, only a
        placement, only while that seat is still refilling its hand: nobody has acted since
        and no card has come from the draw pile, so taking it back shows nobody anything new
        (a placement never reveals a card). The action leaves the game's log as if it had
        never been sent.
        """
        if not isinstance(msg, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        version = _version_of(msg)
        live, seat = await self._sender(game_id, msg)
        async with live.lock:
            st = live.state
            assert st.history is not None
            if version != live.version:
                raise Refused("stale_version", f"the game has moved on: version {live.version}, not {version}", version=live.version)
            last = st.history[-1] if st.history else None
            if live.row.status != "running" or last is None or last.seat != seat or not isinstance(last.move, Place):
                raise Refused("cannot_undo", "only your own placement can be taken back, right after it")
            if st.current != seat or st.phase != DRAW or last.events:
                raise Refused("cannot_undo", "only your own placement can be taken back, before you draw a card")
            index = live.version - 1
            try:
                await asyncio.to_thread(self.storage.remove_last_action, live.row.id, index)
            except DuplicateAction:
                raise Refused("stale_version", "the game has moved on", version=live.version) from None
            live.state = rewind(st, index)
            self._changed(live)
        return {"type": "ack", "id": None, "version": live.version, "index": index, "duplicate": False}

    async def _commit(self, live: LiveGame, seat: int, move: Move, client_id: str | None) -> int:
        """Apply a checked move: to the database first, then to memory, then tell everyone.

        The caller holds the game's lock. The write runs in a thread, so other games go on
        while this one waits for the disk.
        """
        st = live.state
        index = live.version
        after = st.copy()
        after.play_trusted(move)  # checked by the caller
        status = "finished" if after.is_over else None
        reshuffle = None
        if st.reshuffle is None and after.reshuffle is not None:
            ids = [k.id for k in live.board.cards]
            reshuffle = [ids[k] for k in after.reshuffle]
        try:
            await self._write(PendingAction(live.row.id, index, action_of(seat, move), client_id, status, reshuffle))
        except DuplicateAction:
            # another process wrote this index first: take its moves, then say so
            if self.storage.shared and await self._catch_up_locked(live):
                self._changed(live)
            raise Refused("stale_version", "the game has moved on", version=live.version) from None
        except StorageError as e:  # nothing was stored: nothing is applied, nobody is told
            log.error("game %s: %s", live.row.id, e)
            raise Refused("unavailable", "the move could not be saved; nothing was changed", 503) from None
        live.state = after
        if status:
            live.row.status = status
        if reshuffle is not None:
            live.row.reshuffle = reshuffle
        self._changed(live)
        return index

    async def _write(self, a: PendingWrite) -> None:
        """Commit an action, a change of seats or a new game to the database, together with
        the other games' writes that wait meanwhile (group commit: while one transaction
        waits for the disk, the next gathers; one waiting costs every game of the batch one
        write). Raises what Storage.write_batch gives for it; returns once it is committed."""
        fut: asyncio.Future[None] = asyncio.get_running_loop().create_future()
        self._pending.append((a, fut))
        if self._flusher is None or self._flusher.done():
            self._flusher = asyncio.get_running_loop().create_task(self._flush())
        await fut

    async def _flush(self) -> None:
        while self._pending:
            batch, self._pending = self._pending, []
            writes = [a for a, _ in batch]
            try:
                try:
                    results = await asyncio.to_thread(self.storage.write_batch, writes)
                except Exception as e:  # nothing of the batch is committed
                    if len(writes) == 1 or isinstance(e, StorageError):
                        raise  # its own error, or the database's (damaged, gone): for everyone
                    # maybe one write's own fault (a value the database refuses): each alone,
                    # so that one game's failing write does not fail the others
                    results = await asyncio.to_thread(self._write_alone, writes)
            except BaseException as e:  # the database failed: nothing of the batch is committed
                for _, fut in batch:
                    if not fut.done():
                        fut.set_exception(e if isinstance(e, Exception) else StorageError("cancelled"))
                if not isinstance(e, Exception):
                    raise
                continue
            for (_, fut), r in zip(batch, results):
                if not fut.done():
                    if r is None:
                        fut.set_result(None)
                    else:
                        fut.set_exception(r)

    def _write_alone(self, writes: list[PendingWrite]) -> list[Exception | None]:
        """Commit each write in a transaction of its own (in a thread), after their batch
        failed: for each, what Storage.write_batch gives for it alone (None, or its refusal
        such as DuplicateAction) or the exception it raised, logged with its game's id."""
        out: list[Exception | None] = []
        for w in writes:
            try:
                out.append(self.storage.write_batch([w])[0])
            except Exception as e:  # noqa: BLE001 - this write's error, for its game only
                gid = w.id if isinstance(w, GameRow) else w.game_id
                log.error(
                    "game %s: its write failed (%s); the %d others of its batch were tried alone", gid, type(e).__name__, len(writes) - 1
                )
                out.append(e)
        return out

    def _changed(self, live: LiveGame) -> None:
        if live.leased and live.row.status == "finished":
            live.leased = False
            self.storage.release_lease(live.row.id)
        self._tell(live)
        for f in self.on_change:
            f(live)
        self.start_bots(live)

    # -- the table: who is here, stand-ins for the absent, the chat -----------------

    async def connect(self, live: LiveGame, conn: Connection) -> None:
        """A connection holding ``conn.seats`` opened: those people are here. A person a
        bot stood in for takes the seat back (the bot finishes no move for them after)."""
        live.conns.add(conn)
        live.conns_changed()
        for seat in conn.seats:
            live.gone.pop(seat, None)
            sr = live.row.seats[seat]
            if sr.standin:
                await self._set_seat(live, seat, replace(sr, standin=False))
                self._notice(live, seat, "back")
        if conn.seats:
            self._tell(live)

    def disconnect(self, live: LiveGame, conn: Connection) -> None:
        """A connection closed: the seats no other connection holds are away from now."""
        live.conns.discard(conn)
        live.conns_changed()
        if not live.conns:
            live.forget_texts()  # made again when someone comes (memory: thousands of games)
        left = [s for s in conn.seats if s not in live.present]
        now = time.monotonic()
        for seat in left:
            live.gone[seat] = now
        if left:
            self._tell(live)

    def _tell(self, live: LiveGame) -> None:
        """Send everyone the new state: the players first (the mover's acknowledgement
        follows their state message), then the spectators. A large audience (more than
        SPECTATORS_AT_ONCE) is told at most every SPECTATORS_PAUSE seconds (longer for a
        larger one: spectators_pause), SPECTATORS_AT_ONCE at a time with a turn of the event
        loop between: a thousand spectators cost one round of sends per pause however fast
        the game goes, and never hold up the players of any game for long (a spectator gets
        the newest state; a delta holds every entry since the one before)."""
        spectators = []
        for c in list(live.conns):
            if c.seats:
                c.notify()
            else:
                spectators.append(c)
        if len(spectators) <= SPECTATORS_AT_ONCE:
            for c in spectators:
                c.notify()
            return
        if live.spectators_due is None or live.spectators_due.done():
            try:
                live.spectators_due = asyncio.get_running_loop().create_task(_tell_spectators(live, len(spectators)))
            except RuntimeError:  # no event loop (a tool): at once
                for c in spectators:
                    c.notify()

    async def watch_tables(self, stop: asyncio.Event, every: float = 1.0) -> None:
        """Every ``every`` seconds: stand in for the people of live games who have been
        away on their turn longer than their table allows; with several processes, also
        note who is connected here (the others read it before standing in)."""
        last_mark = 0.0
        last_expiry = 0.0
        while not stop.is_set():
            try:
                await asyncio.wait_for(stop.wait(), every)
            except TimeoutError:
                pass
            if stop.is_set():
                return
            try:
                if self.storage.shared and time.monotonic() - last_mark >= PRESENCE_EVERY:
                    last_mark = time.monotonic()
                    here = [(g.row.id, s) for g in self.live.values() if g.row.status == "running" for s in g.present]
                    await asyncio.to_thread(self.storage.mark_present, here)
                for live in list(self.live.values()):
                    await self.check_away(live)
                self.sweep()
                if self.idle_expiry is not None and time.monotonic() - last_expiry >= min(EXPIRY_EVERY, self.idle_expiry / 2):
                    last_expiry = time.monotonic()
                    await self.expire_idle()
            except Exception as e:  # noqa: BLE001 - logged; tried again in a moment
                log.error("watching the tables failed (%s)", type(e).__name__)

    async def check_away(self, live: LiveGame) -> bool:
        """Stand in for the person to act if they have been away too long (live games), but
        never for the last person of the table (every other seat a bot's or stood in for: the
        game waits for them). True if a stand-in took the seat."""
        if live.row.status != "running" or live.state.is_over or live.options["mode"] != "live":
            return False
        seat = live.state.current
        sr = live.row.seats[seat]
        if sr.kind != "person" or sr.standin or seat in live.present or _last_person(live, seat):
            return False
        away = live.options["away"]
        since = live.gone.get(seat)
        if since is None or time.monotonic() - since < away:
            return False
        if self.storage.shared:  # connected to another process?
            seen = (await asyncio.to_thread(self.storage.last_seen, live.row.id)).get(seat)
            if seen is not None and time.time() - seen < max(away, 3 * PRESENCE_EVERY):
                return False
        async with live.lock:
            sr = live.row.seats[seat]
            if live.state.current != seat or sr.standin or seat in live.present or live.row.status != "running":
                return False
            if _last_person(live, seat):
                return False
            await self._set_seat(live, seat, replace(sr, standin=True))
        self._notice(live, seat, "away")
        return True

    async def expire_idle(self) -> list[str]:
        """End the unfinished games nobody has changed for ``idle_expiry`` seconds: their
        status becomes "expired" (kept, never continued; the lobby lists them no more)."""
        if self.idle_expiry is None:
            return []
        ids = await asyncio.to_thread(self.storage.expire_idle, time.time() - self.idle_expiry)
        for gid in ids:
            live = self.live.get(gid)
            if live is not None:
                live.row.status = "expired"
                if live.bot_task is not None:
                    live.bot_task.cancel()
                self._changed(live)
        if ids:
            log.info("%d idle games expired", len(ids))
        return ids

    def _notice(self, live: LiveGame, seat: int, kind: str) -> None:
        """A notice to the table, kept in the chat: ``away`` (a bot plays for the person
        of ``seat``), ``back`` (they took their seat back)."""
        text = live.options["standin"] if kind == "away" else ""
        asyncio.get_running_loop().create_task(self._add_line(live, seat, kind, live.row.seats[seat].name, text))

    async def chat_lines(self, live: LiveGame) -> list[ChatLine]:
        """A game's chat (the last CHAT_KEPT lines), read once from the database."""
        if live.chat is None:
            lines = await asyncio.to_thread(self.storage.chat_from, live.row.id, 0)
            if live.chat is None:
                live.chat = lines[-CHAT_KEPT:]
                live.chat_seen = lines[-1].idx + 1 if lines else 0
        return live.chat

    async def say(self, game_id: str, seats: dict[int, str], text: object, name: object = None) -> ChatLine:
        """A line in the game's chat from a connection holding ``seats`` (none: a
        spectator, who may write only if the table allows it; ``name`` is theirs)."""
        live = await self.fetch(game_id)
        if not isinstance(text, str):
            raise Refused("malformed", "'text' must be text", 400)
        text = unicodedata.normalize("NFC", " ".join(text.split()))
        if any(unicodedata.category(ch) in _BAD_IN_NAME for ch in text):
            text = "".join(ch for ch in text if unicodedata.category(ch) not in _BAD_IN_NAME)
        if not text:
            raise Refused("bad_chat", "say something", 400, max=MAX_CHAT)
        if len(text) > MAX_CHAT:
            raise Refused("bad_chat", f"a chat line has at most {MAX_CHAT} characters", 400, max=MAX_CHAT)
        if seats:
            seat: int | None = live.state.current if live.state.current in seats else min(seats)
            assert seat is not None
            who = live.row.seats[seat].name
        else:
            if not live.options["spectator_chat"]:
                raise Refused("chat_closed", "spectators may read the chat; the players have not opened it to them", 403)
            seat, who = None, _clean_name(name, "Spectator")
            _check_name_free(live.row.seats, who)  # a spectator's line never looks like a player's
        return await self._add_line(live, seat, "say", who, text)

    async def _add_line(self, live: LiveGame, seat: int | None, kind: str, name: str, text: str) -> ChatLine:
        await self.chat_lines(live)
        try:
            line = await asyncio.to_thread(self.storage.add_chat, live.row.id, live.version, seat, kind, name, text)
        except StorageError as e:
            log.error("game %s: %s", live.row.id, e)
            raise Refused("unavailable", "the line could not be saved", 503) from None
        self._heard(live, [line])
        return line

    def _heard(self, live: LiveGame, lines: list[ChatLine]) -> None:
        """New chat lines (said here, or read from the database): to everyone connected."""
        assert live.chat is not None
        new = [ln for ln in lines if ln.idx >= live.chat_seen]
        if not new:
            return
        live.chat.extend(new)
        del live.chat[:-CHAT_KEPT]
        live.chat_seen = new[-1].idx + 1
        msg = chat_message(new)
        for c in list(live.conns):
            c.outbox.put_nowait(msg)

    # -- bots ---------------------------------------------------------------------

    # -- several processes on one database (PostgreSQL) ----------------------------

    def changed_elsewhere(self, game_id: str) -> None:
        """The database announced a change of ``game_id`` ("": of any game, after the
        listener reconnected): bring the copy in memory up to date. Call on the event loop."""
        targets = list(self.live.values()) if not game_id else [g for g in (self.live.get(game_id),) if g is not None]
        for live in targets:
            if live.catching_up:
                live.catch_again = True
                continue
            live.catching_up = True
            asyncio.get_running_loop().create_task(self._catch_up(live))

    async def _catch_up(self, live: LiveGame) -> None:
        try:
            while True:
                live.catch_again = False
                async with live.lock:
                    changed = await self._catch_up_locked(live)
                if changed:
                    self._changed(live)
                if not live.catch_again:
                    return
        except Exception as e:  # noqa: BLE001 - logged; the next announcement tries again
            log.error("game %s: catching up with the database failed (%s)", live.row.id, type(e).__name__)
        finally:
            live.catching_up = False

    async def _catch_up_locked(self, live: LiveGame) -> bool:
        """Read what other processes wrote (moves, an undo, seats, status); the caller holds
        the game's lock. True if anything changed."""
        gid = live.row.id
        row = await asyncio.to_thread(self.storage.get_game, gid)
        if row is None:
            return False
        have = live.version
        log_from = await asyncio.to_thread(self.storage.actions_from, gid, max(0, have - 1))
        assert live.state.history is not None
        mine_last = action_of(live.state.history[-1].seat, live.state.history[-1].move) if have else None
        changed = False
        if have and (not log_from or log_from[0] != mine_last):  # a move taken back (and maybe another made)
            live.state = (await asyncio.to_thread(self._load, row)).state
            changed = True
        elif len(log_from) > (1 if have else 0):
            st = live.state.copy()
            for _ in steps(st, log_from[1:] if have else log_from, have):
                pass
            live.state = st
            changed = True
        # the row (seats, status) only if written after the copy in memory: a slower read must
        # not undo a change this process has made meanwhile
        seats = [s.to_json() for s in row.seats]
        newer = row.updated > live.row.updated
        if newer and (
            seats != [s.to_json() for s in live.row.seats] or row.status != live.row.status or row.reshuffle != live.row.reshuffle
        ):
            live.row.seats, live.row.status, live.row.reshuffle = row.seats, row.status, row.reshuffle
            changed = True
        if newer:
            live.row.updated = row.updated
        if row.again is not None and row.again != live.again:  # "Play again" pressed through another process
            live.again = row.again
            changed = True
        if live.chat is not None:  # lines said through another process
            self._heard(live, await asyncio.to_thread(self.storage.chat_from, gid, live.chat_seen))
        return changed

    def start_bots(self, live: LiveGame) -> None:
        """Start the bot loop of a game if a bot is to act."""
        if live.row.status != "running" or live.state.is_over:
            return
        if live.acting_level(live.state.current) is None:
            return
        if live.bot_task is not None and not live.bot_task.done():
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        live.bot_task = loop.create_task(self._bots(live))

    async def _bots(self, live: LiveGame) -> None:
        loop = asyncio.get_running_loop()
        if self.storage.shared and not live.leased:
            # several processes: the one holding the game's lease runs its bots (each decision once)
            live.leased = await asyncio.to_thread(self.storage.try_lease, live.row.id)
            if not live.leased:
                return
        failures = 0  # storage errors in a row: the loop waits longer each time, and never gives up
        while live.row.status == "running" and not live.state.is_over:
            seat = live.state.current
            level = live.acting_level(seat)
            if level is None:
                return
            if self.bot_pause > 0:
                await asyncio.sleep(self.bot_pause)
            version = live.version
            seed = int.from_bytes(hashlib.sha256(f"{live.row.id}:{seat}:{version}".encode()).digest()[:8], "big")
            seat_view = view(live.state, seat)  # a bot receives only its view
            try:
                async with self.thinking.slot(BOTS_ONLY if live.bots_only else PEOPLE):
                    action = await loop.run_in_executor(self.executor, bot_move, level, seed, live.row.board, seat_view)
            except Exception:
                log.exception("bot %s failed in game %s; a random move instead", level, live.row.id)
                action = bot_move("random", seed, live.row.board, seat_view)
            async with live.lock:
                if live.acting_level(seat) is None:
                    return  # the person came back while the stand-in thought: their turn
                if live.version != version or live.state.current != seat:
                    continue
                _, move = move_of(action)
                try:
                    live.state.check(move)
                except RuleError:
                    log.error("bot %s chose an illegal move %s in game %s; a random move instead", level, move, live.row.id)
                    _, move = move_of(bot_move("random", seed, live.row.board, seat_view))
                live.bot_task = None  # _commit's start_bots must not see this task as running
                try:
                    await self._commit(live, seat, move, None)
                except Refused as e:
                    live.bot_task = asyncio.current_task()
                    if e.code == "stale_version":
                        continue  # another process moved first; the game has caught up
                    failures += 1
                    log.error("game %s: a bot's move was refused (%s, %d in a row); trying again", live.row.id, e.code, failures)
                except Exception as e:  # noqa: BLE001 - the database failed: nothing was applied; try again
                    live.bot_task = asyncio.current_task()
                    failures += 1
                    log.error(
                        "game %s: storing a bot's move failed (%s, %d in a row); trying again", live.row.id, type(e).__name__, failures
                    )
                else:
                    failures = 0
                    if live.bot_task is not None:
                        return  # a fresh loop took over
            if failures:
                await asyncio.sleep(min(30.0, 0.1 * 2**failures))

    async def wait_idle(self, game_id: str, timeout: float = 30.0) -> None:
        """Wait until no bot is to act (for tests and tools)."""
        live = self.get(game_id)
        end = time.monotonic() + timeout
        while live.bot_task is not None and not live.bot_task.done():
            if time.monotonic() > end:
                raise TimeoutError("bots still playing")
            await asyncio.sleep(0.005)

    # -- scorings and "Play again" ------------------------------------------------

    def scoring(self, game_id: str) -> ScoringMessage:
        """The intermediate and the final scoring so far, in detail (kardinal.rules.breakdown):
        public (sites, advisors, scores, supplies), for a running game and a finished one."""
        live = self.get(game_id)
        st = live.state
        return {
            "type": "scoring",
            "game": live.row.id,
            "version": live.version,
            "players": public_players(live.row),
            "scoring": scoring_breakdown(st),
        }

    async def again(
        self,
        game_id: str,
        seats: dict[int, str] | None,
        creator: str | None = None,
        charge: Callable[[], None] | None = None,
    ) -> LiveGame:
        """Play again: after a finished game, a new one with the same seats: the same names,
        bots of the same levels, the same board, variants and hot-seat.

        The people keep their seat tokens (the new seats take the same token hashes), so
        every page follows with the link it already holds; the old game's state messages
        name the new one (``again``). Only a person of the game may ask (``seats``:
        ``{seat: token}``), anyone in a game of bots only. Once per game, however many ask
        at the same time: asking again gives the same new game, also after the old game was
        forgotten by memory and read again, and from another process: the link is stored
        (Storage.create_follow_up claims it and stores the new game in one transaction; of
        two processes at once, the second's game is never stored and it answers with the
        first's).

        ``creator``: the address asking; a new game of bots only counts against its cap
        (MAX_BOT_GAMES). ``charge``: called once, only when the new game is really made (it
        may refuse: the rate limit of creations).
        """
        live = await self.fetch(game_id)
        if live.row.status != "finished":
            raise Refused("not_finished", "a new game can follow once this one is over")
        if any(s.kind == "person" for s in live.row.seats):
            if not isinstance(seats, dict) or not seats:
                raise Refused("bad_token", "no such seat, or a wrong token", 403)
            for k, tok in seats.items():
                self._auth(live, _seat_number(k), tok)
        async with live.again_lock:  # those who ask meanwhile wait for this one's game
            if live.again is None:  # made by another process meanwhile?
                live.again = await asyncio.to_thread(self.storage.follow_up, live.row.id)
                if live.again is not None:
                    self._changed(live)
            broken = None
            if live.again is not None:
                try:
                    return await self.fetch(live.again)
                except Refused:
                    broken = live.again  # gone (an unreadable row): make another
            spec = {
                "players": [
                    {"name": s.name, "kind": s.kind, "level": s.level} if s.kind == "bot" else {"name": s.name} for s in live.row.seats
                ],
                "hotseat": live.row.hotseat,
                "board": live.row.board,
                "variants": list(live.row.variants),
                **live.options,
            }
            try:
                new, _ = await self._create(spec, creator, charge, same_as=live.row.seats, follows=(live.row.id, broken))
            except _FollowedAlready as e:  # another process's press was first: its game
                if e.game_id is None:
                    raise Refused("no_game", f"there is no game {game_id!r}", 404) from None
                live.again = e.game_id
                self._changed(live)
                return await self.fetch(e.game_id)
            live.again = new.row.id
        self._changed(live)
        return new

    # -- finished games -----------------------------------------------------------

    def record(self, game_id: str) -> dict[str, Any]:
        live = self.get(game_id)
        if live.row.status != "finished":
            raise Refused("not_finished", "the record is available once the game is over")
        return record_of(live.state, live.names)  # never the seed

    def replay_step(self, game_id: str, step: int) -> ReplayMessage:
        """A finished game after ``step`` actions: the spectator view, and every hand (the game is over)."""
        live = self.get(game_id)
        if live.row.status != "finished":
            raise Refused("not_finished", "replays are available once the game is over")
        total = live.version
        if not 0 <= step <= total:
            raise Refused("malformed", f"step must be 0..{total}", 400)
        st = rewind(live.state, step)
        ids = [k.id for k in live.board.cards]
        hands = [{ids[k]: c for k, c in enumerate(h) if c} for h in st.hands]
        return {
            "type": "replay",
            "game": game_id,
            "step": step,
            "total": total,
            "players": public_players(live.row),
            "view": view(st, None),
            "hands": hands,
        }
