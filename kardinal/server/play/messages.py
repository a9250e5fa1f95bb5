"""The server's messages, as typed contracts (JSON over HTTP and the WebSocket).

Every message a client receives has a ``type``; state and replay messages carry only
views (``kardinal.rules.view``), never the state itself.
"""

from __future__ import annotations

from typing import Any, Literal, NotRequired

import orjson
from typing_extensions import TypedDict  # typing's gives pydantic no schema on Python 3.11 (the API's documents)

from kardinal.rules.breakdown import ScoringBreakdown
from kardinal.rules.record import RecordAction
from kardinal.rules.view import HistoryEntry, ViewData

from ..common.refusal import ErrorData

__all__ = [
    "json_text",
    "AllianceStanding",
    "Standing",
    "PlayerData",
    "StateMessage",
    "HistoryDelta",
    "AckMessage",
    "ErrorMessage",
    "ReplayMessage",
    "Marks",
    "ScoringMessage",
    "TableOptions",
    "ChatLineData",
    "ChatMessage",
    "AwayData",
    "PresenceMessage",
    "ClockOptions",
    "ClockMessage",
]


def json_text(x: Any) -> str:
    """A message as compact JSON text, as the server sends it. orjson: with the standard
    library's encoder, encoding was a tenth of the server's time per move; the same JSON
    (letters beyond ASCII as themselves, not escaped; numbers as dict keys as strings)."""
    return orjson.dumps(x, option=orjson.OPT_NON_STR_KEYS).decode()


class PlayerData(TypedDict):
    """A seat as anyone may see it (never its token hash)."""

    seat: int
    name: str
    kind: str  # "person" or "bot"
    level: str | None
    joined: bool
    open: bool  # a person seat anyone may take from the lobby
    standin: bool  # the person is away: a bot plays for them (TableOptions.standin)
    present: bool  # a connection holds the seat now


class ClockOptions(TypedDict, total=False):
    """A table's clock (kardinal.server.play.clocks): live, ``move`` seconds for each turn, then
    the ``reserve`` (seconds, each seat its own), which gains ``increment`` seconds after
    each of the seat's turns up to what it started with; turn-based, ``days`` per turn."""

    move: float
    reserve: float
    increment: float
    days: float


class TableOptions(TypedDict):
    """How a table plays, chosen when the game was created."""

    mode: str  # "live" or "turn" (turn-based over days)
    away: float  # live: seconds a person may be away on their turn before a bot stands in
    standin: str  # the level of that bot
    hints: bool  # the people agreed to hints
    spectator_chat: bool  # spectators may write in the chat
    public: bool  # listed in the lobby (else reached only through its links)
    friends: NotRequired[bool]  # the open seats are for the accounts the host follows (social.py)
    host: NotRequired[int]  # that host's account (stored; never in a message: options_of leaves it out)
    clock: ClockOptions | None  # the time control (None: no clock, as every game made before them)
    rated: bool  # the game moves its people's ratings (ratings.py)


class Marks(TypedDict, total=False):
    """The number of actions after which the intermediate scoring and the last round began."""

    intermediate: int
    last_round: int


class AllianceStanding(TypedDict):
    """An alliance if the game ended now (R10.3): the seats holding both majorities, and
    the points each of them would score (0 and no holders while nobody qualifies)."""

    number: int
    holders: list[int]
    points: int


class Standing(TypedDict):
    """What the position is worth now, from public information only (terminal parity)."""

    alliances: list[AllianceStanding]  # board order


# the history's entries after the first ``from`` (which the client holds already)
HistoryDelta = TypedDict("HistoryDelta", {"from": int, "entries": list[HistoryEntry]})


class StateMessage(TypedDict):
    """The game as one seat (or a spectator) may see it; ``legal`` only for the person to act.

    To a WebSocket that said ``"delta": true`` in its hello, a state message may carry
    ``history`` (a HistoryDelta) instead of ``view.history``: the client's view history is
    then its first ``from`` entries followed by ``entries``. The first message on a
    connection, and any after a history that does not continue the one before (an undo),
    carries the whole ``view.history``.

    To a WebSocket that said ``"ack_in_state": true`` in its hello, the acknowledgement of
    its own action comes inside the state message the action made, as ``ack`` (one frame
    instead of two); an acknowledgement without a new state (a duplicate) still comes alone."""

    type: Literal["state"]
    game: str
    status: str  # open, running, finished
    hotseat: bool
    version: int  # the number of actions applied
    players: list[PlayerData]
    table: TableOptions
    seat: int | None
    view: ViewData
    marks: Marks
    standing: Standing
    legal: NotRequired[list[RecordAction]]
    again: NotRequired[str]  # the game "Play again" started after this finished one
    history: NotRequired[HistoryDelta]  # a delta: instead of view.history (WebSocket "delta" only)
    ack: NotRequired[AckMessage]  # the receiver's own action that made this state (WebSocket "ack_in_state" only)


class AckMessage(TypedDict):
    """An action was applied (or had been: ``duplicate``) as number ``index``."""

    type: Literal["ack"]
    id: str | None
    version: int
    index: int
    duplicate: bool


class ErrorMessage(ErrorData):
    type: Literal["error"]
    id: NotRequired[str | None]


class ScoringMessage(TypedDict):
    """The scorings of a game so far, in detail (kardinal.rules.breakdown); all public."""

    type: Literal["scoring"]
    game: str
    version: int
    players: list[PlayerData]
    scoring: ScoringBreakdown


class ReplayMessage(TypedDict):
    """A finished game after ``step`` actions: the spectator's view and every hand."""

    type: Literal["replay"]
    game: str
    step: int
    total: int
    players: list[PlayerData]
    view: ViewData
    hands: list[dict[str, int]]


class ChatLineData(TypedDict):
    """A line of a game's chat, or a notice to the table (``kind`` "away": a bot plays for
    the person of ``seat``, ``text`` names its level; "back": they took their seat back;
    "timeout": their time ran out, a bot (``text``) played that turn for them (live);
    "timeout_away": their time ran out, a bot (``text``) stands in until they return (turn-based, or a rated table))."""

    idx: int
    at: float  # Unix time
    version: int  # the game's number of actions then (the replay shows the chat up to a step)
    seat: int | None  # None: a spectator
    kind: str  # "say", "away", "back", "timeout" (live: a bot played a turn whose time ran out), "timeout_away" (turn-based or rated: stood in)
    name: str
    text: str


class ChatMessage(TypedDict):
    """New lines of the chat (all kept lines, right after the welcome)."""

    type: Literal["chat"]
    lines: list[ChatLineData]


class AwayData(TypedDict):
    """A person not at the table (live games): nothing but their seat, their name and when
    a bot may play for them."""

    seat: int
    name: str
    # seconds from this message until a bot (TableOptions.standin) may play for them: it
    # does on their turn from then on (0: now, or when their turn comes); None: nobody will
    # (every other seat a bot's: the game waits for them). A duration, not a time: the
    # client's clock may differ from the server's
    standin_in: float | None


class PresenceMessage(TypedDict):
    """Who is at a running table now, to a WebSocket that said ``"presence": true`` in its
    hello: after its first state message, and whenever it changes (someone leaves, comes
    back, a bot stands in). ``here``: the person seats connected now (to any server
    process); ``away``: the people of a live table who are not, and are not yet stood in
    for (a hot-seat or turn-based table: none)."""

    type: Literal["presence"]
    game: str
    here: list[int]
    away: list[AwayData]


class ClockMessage(TypedDict):
    """A table's clock, to a WebSocket that said ``"presence": true`` in its hello: after its
    first state message and whenever the clock changes (a turn begins or ends, time ran
    out). Durations, not times (the client's clock may differ from the server's): seconds
    from this message. ``seat``: whose clock runs (None: none runs: a bot's turn, a stand-in,
    the game's end); ``remaining``: their seconds left in all; ``move_left``: of which the
    turn's own time (the rest is their reserve); ``reserves``: each seat's reserve at the
    start of its turn (None: a seat with no clock, a bot's); ``expired``: the runner's time ran
    out and a bot plays this turn for them."""

    type: Literal["clock"]
    game: str
    version: int
    seat: int | None
    remaining: float | None
    move_left: float | None
    reserves: list[float | None]
    expired: bool
    clock: ClockOptions
