"""A game in memory (:class:`LiveGame`), its connections (:class:`Connection`), and the
state messages made once per change and shared by everyone who gets the same one."""

from __future__ import annotations

import asyncio
import collections
import functools
import hashlib
import hmac
import time
from dataclasses import dataclass, field
from functools import cached_property
from typing import Any, Protocol

from kardinal.rules.board import Board
from kardinal.rules.events import Decision, Drew, IntermediateScoring, LastRound
from kardinal.rules.moves import Move
from kardinal.rules.record import RecordAction, action_of
from kardinal.rules.scoring import alliance_scoring
from kardinal.rules.state import State
from kardinal.rules.view import hand_view, history_entry, view

from ..common.names import seat_name
from ..storage import (
    ChatLine,
    GameRow,
    SeatRow,
)
from .messages import (
    AckMessage,
    AllianceStanding,
    ChatMessage,
    ClockMessage,
    ErrorMessage,
    Marks,
    PlayerData,
    PresenceMessage,
    Standing,
    StateMessage,
    TableOptions,
    json_text,
)
from .options import options_of


def hash_token(token: str) -> str:
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


def token_ok(seat: SeatRow, token: object) -> bool:
    """The seat's token, or one its account handed to another device (SeatRow.keys)."""
    if not isinstance(token, str) or seat.token_hash is None:
        return False
    h = hash_token(token)
    if hmac.compare_digest(seat.token_hash, h):
        return True
    return any(hmac.compare_digest(k, h) for k in seat.keys)


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


OutMessage = AckMessage | ErrorMessage | ChatMessage | PresenceMessage | ClockMessage
# messages a connection that does not read may have waiting (the state aside, which waits as
# one "send the newest state"): past this, it is closed (ws.py), and its page, connecting
# again, gets the whole state and the chat so far. Memory stays bounded, and nothing a
# player was sent is ever skipped
OUTBOX_MAX = 256
# messages of which a spectator needs only the newest: one waiting is replaced by a newer one
LATEST_ONLY = frozenset({"presence", "clock"})


class Outbox:
    """What is waiting to be sent to one connection, in order, ``None`` standing for "the
    state as it is when sent". Bounded: a run of state notices waits as one (the state
    sent is the newest), a spectator's (``latest_only``) as one wherever it waits, and
    its presence and clock messages as the newest of each; past OUTBOX_MAX waiting,
    ``overflowed`` is set and nothing more is kept (ws.py closes the connection)."""

    def __init__(self, latest_only: bool = False) -> None:
        self.latest_only = latest_only
        self.items: collections.deque[OutMessage | None] = collections.deque()
        self.overflowed = False
        self.ready = asyncio.Event()  # set while something waits (or it overflowed)

    def put_nowait(self, item: OutMessage | None) -> None:
        items = self.items
        if item is None:
            if items and (items[-1] is None or (self.latest_only and None in items)):
                return
        elif self.latest_only and item["type"] in LATEST_ONLY:
            for i, waiting in enumerate(items):
                if waiting is not None and waiting["type"] == item["type"]:
                    items[i] = item
                    return
        if len(items) >= OUTBOX_MAX:
            self.overflowed = True
        else:
            items.append(item)
        self.ready.set()

    def get_nowait(self) -> OutMessage | None:
        item = self.items.popleft()
        if not self.items and not self.overflowed:
            self.ready.clear()
        return item

    async def get(self) -> OutMessage | None:
        """The next item, once there is one (as asyncio.Queue's get); an outbox that
        overflowed with nothing left in it has nothing more to give (its connection closes)."""
        while not self.items:
            if self.overflowed:
                raise RuntimeError("the outbox overflowed: its connection is being closed")
            await self.ready.wait()
        return self.get_nowait()

    def peek(self) -> OutMessage | None:
        """The next item (there is one)."""
        return self.items[0]

    def qsize(self) -> int:
        return len(self.items)

    def empty(self) -> bool:
        return not self.items


class Direct(Protocol):
    """A connection's socket written to at once, without a task of its own (ws.py)."""

    def ready(self) -> bool:
        """It is open and takes more now (its reader keeps up)."""

    def write(self, *texts: str) -> None:
        """Send each text as a message, in one write: the last may be shared by many
        connections (its bytes made once for everyone), the ones before are this one's own."""


class Connection:
    """One connected client (a WebSocket): the seats it authenticated, and its outbox."""

    def __init__(self, seats: dict[int, str], delta: bool = False, ack_in_state: bool = False, presence: bool = False) -> None:
        self.seats = seats  # seat -> token
        self.delta = delta  # it takes state messages as deltas of the history (LiveGame.text_for)
        self.ack_in_state = ack_in_state  # it takes its acknowledgements inside the state messages
        self.presence = presence  # it takes presence messages (kardinal.server.play.presence)
        self.base: tuple[int, int | None, int] | None = None  # the history it holds: (epoch, viewer, length)
        self.outbox = Outbox(latest_only=not seats)  # a spectator needs only the newest state
        self.direct: Direct | None = None  # its socket, written to at once (ws.py), or None: by its sender only
        self.busy = False  # its sender is sending the ASGI way (waiting for a slow reader): nothing goes past it
        self.revoked = False  # a token it holds opens its seat no more: it is told so and closed (ws.py)
        self.barred: float | None = None  # ... because its account is suspended (until then): it is told that

    def notify(self) -> None:
        self.outbox.put_nowait(None)  # None: "send the current state"

    def restart(self) -> None:
        """A spectator's connection goes on to another game (ws.py, FollowMessage): nothing
        of the game before waits for it, and it holds none of its history."""
        self.base = None
        self.outbox.items.clear()
        if not self.outbox.overflowed:  # (one that overflowed is being closed)
            self.outbox.ready.clear()

    def tell(self, live: LiveGame, made: dict[Any, tuple[str, Any]] | None = None) -> None:
        """Send the current state: at once if nothing waits before it and its socket takes
        it now (no task woken: a large audience is told in one go), else by its sender.
        ``made``: the spectators' texts made since the game last changed, by the history
        each holds (most of an audience holds the same: one text, looked up once)."""
        direct = self.direct
        if direct is None or self.busy or not self.outbox.empty() or self.revoked or not direct.ready():
            self.notify()
            return
        if made is None or self.seats:
            direct.write(live.text_for(self))
            return
        key = (self.delta, self.base)
        hit = made.get(key)
        if hit is None:
            hit = made[key] = (live.text_for(self), self.base)
        else:
            self.base = hit[1]
        direct.write(hit[0])

    def check_tokens(self, seats: list[SeatRow]) -> bool:
        """Whether every token the connection said hello with still opens its seat (a
        seat that became an account's has a new one; a new password ends the keys of the
        account's devices; a suspension bars the account's seats); if not, it is revoked:
        it gets nothing of the seat any more."""
        if self.revoked:
            return False
        if not all(s < len(seats) and token_ok(seats[s], t) for s, t in self.seats.items()):
            self.revoked = True
        else:  # its account suspended meanwhile (kardinal.server.community.moderation): the seat is barred
            now = time.time()
            self.barred = next((seats[s].barred for s in self.seats if seats[s].barred_now(now)), None)
            self.revoked = self.barred is not None
        if self.revoked:
            self.notify()
        return not self.revoked


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
    # several processes: when each seat was last noted connected to another process, and when
    # its person left one (Unix time: Storage.seat_notes, read as another process tells of a
    # change and every PRESENCE_EVERY while someone here watches), and the presence last told (presence.py)
    seen: dict[int, float] = field(default_factory=dict)
    left: dict[int, float] = field(default_factory=dict)
    notes_due: bool = False  # ... another process told of a change: the notes are read again
    notes_read: asyncio.Task[None] | None = None  # ... being read
    notes_written: asyncio.Task[None] | None = None  # this process's notes of its connections, being written
    presence_told: tuple[Any, ...] | None = None
    spectators_due: asyncio.Task[None] | None = None  # a round of news to a large audience is coming
    spectators_cost: float = 0.0  # seconds the last round of news to its audience took (presence.spectators_pause)
    chat: list[ChatLine] | None = None  # the chat, once read (the last CHAT_KEPT lines)
    chat_seen: int = 0  # the number of chat lines stored (the next line's index)
    clock: Any = None  # the table's clock now (kardinal.server.play.clocks.ClockRun), if it has one
    # seat -> (the account this process saw it become or stay the owner of, the seat's token hash then): see owned_by
    owners: dict[int, tuple[int, str]] = field(default_factory=dict, repr=False)
    # the state messages as JSON text, (seat, since) -> text, and their parts, seat -> (the
    # message without its view and closing brace, the view without its history), for what
    # the game is now (_texts_of; see _fresh)
    _sent: dict[tuple[int | None, int | None], str] = field(default_factory=dict, repr=False)
    _parts: dict[int | None, tuple[str, str]] = field(default_factory=dict, repr=False)
    _texts_of: tuple[Any, ...] | None = field(default=None, repr=False)
    _present: frozenset[int] | None = field(default=None, repr=False)  # see present
    _checked: list[SeatRow] | None = field(default=None, repr=False)  # the seats check_conns saw last
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

    def owned_by(self, seat: int, account_id: int) -> bool:
        """The seat is the account's, as this process saw it last (note_owner), and it is
        still a person's seat with the same token: a seat changes hands only with a new
        token (a claim from the lobby) or none (a bot in its place); the one change that
        keeps it, its account deleted (Tables.drop_seat_keys), forgets what was seen. Then
        opening it signed in has nothing to bind (a hello asked the database each time)."""
        return self.owner(seat) == account_id

    def owner(self, seat: int) -> int | None:
        """The account the seat is known to be (owned_by), or None: not known."""
        known = self.owners.get(seat)
        if known is None or not 0 <= seat < len(self.row.seats):
            return None
        now = self.row.seats[seat]
        return known[0] if now.kind == "person" and now.token_hash == known[1] else None

    def note_owner(self, seat: int, account_id: int) -> None:
        """The seat is the account's now (the database said so: Storage.bind_seats)."""
        token_hash = self.row.seats[seat].token_hash
        if token_hash is not None:
            self.owners[seat] = (account_id, token_hash)

    @property
    def bots_only(self) -> bool:
        """Every seat is played by a bot now: its own, or a stand-in for its person (the cap
        on an address's games of bots only, the bots' turns at thinking: fair.py)."""
        return all(self.acting_level(i) is not None for i in range(len(self.row.seats)))

    @cached_property
    def options(self) -> TableOptions:
        """How the table plays (fixed when the game was created: read once)."""
        return options_of(self.row)

    @property
    def present(self) -> frozenset[int]:
        """The seats held by a connection to this process now (kept until ``conns``
        changes: see :meth:`conns_changed`; a thousand spectators are not counted per message)."""
        if self._present is None:
            self._present = frozenset(s for c in self.conns for s in c.seats)
        return self._present

    def check_conns(self) -> None:
        """After the seats changed (this process or another): the connections whose tokens
        open their seats no more are revoked (Connection.check_tokens)."""
        if self._checked is self.row.seats:
            return
        self._checked = self.row.seats
        for c in list(self.conns):
            if c.seats:
                c.check_tokens(self.row.seats)

    def conns_changed(self) -> None:
        """``conns`` changed: who is present is counted again."""
        self._present = None

    def acting_level(self, seat: int) -> str | None:
        """The bot level that plays ``seat``: its own, or the stand-in's while the person
        is away (live games) or their time ran out (turn-based: kardinal.server.play.clocks);
        None: a person plays it. At an unrated table a stand-in plays only while another
        person waits; at a rated table always (a person who walked away from a rated game does
        not stop it: it is played out, and rated: kardinal.server.play.clocks, ratings.forfeited)."""
        sr = self.row.seats[seat]
        if sr.kind == "bot":
            return sr.level or "random"
        if sr.standin and (self.options["rated"] or self._someone_waits(seat)):
            return self.options["standin"]
        return None

    def _someone_waits(self, seat: int) -> bool:
        """A person other than ``seat``'s is at the table and not stood in for: a stand-in
        plays only for them. A game stored while a stand-in played for a solo game's person
        (before nobody stood in for the last person) waits for that person too."""
        return any(s.kind == "person" and not s.standin for i, s in enumerate(self.row.seats) if i != seat)

    @property
    def hints_allowed(self) -> bool:
        """Hints may be asked for: at a table with at most one person, at hot-seat, or
        where the people agreed to them when the game was created; never at a rated table
        (a hint is a bot's advice)."""
        if self.options["rated"]:
            return False
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
        """The seats' names as a record keeps them (an unnamed seat as the records' own
        default, "Player 2": see seat_name)."""
        return [seat_name(s.name, i) for i, s in enumerate(self.row.seats)]

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
