"""The models of play's routes (routes.py, ws.py, teach.py, tutorial.py): a new table,
seats, actions and undos, "Play again", hints and reviews, the tutorial's attempts, the
WebSocket's messages both ways, and the lobby's and a game's answers (checked as
common/schemas.py says)."""

from __future__ import annotations

import re
from typing import Annotated, Any, Literal, NotRequired

from pydantic import AfterValidator, ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict

from kardinal.bots import served_bots
from kardinal.rules.board import get_board, installed_boards
from kardinal.rules.variants import VARIANTS

from ..common.schemas import PRINTABLE, ClientId, Ident, Name, Seat, SeatKey, Strict, Token, Version, printable
from .messages import (
    AckMessage,
    ChatMessage,
    ClockMessage,
    ErrorMessage,
    PlayerData,
    PresenceMessage,
    StateMessage,
    TableOptions,
)

ChatText = Annotated[str, Field(min_length=1, max_length=2000, json_schema_extra={"pattern": PRINTABLE}), AfterValidator(printable)]
# what this installation has, named in the document so that a client (and a fuzzer) knows
_BOARDS = tuple(installed_boards())
_VARIANTS = tuple(VARIANTS)
_SEATS = sorted({n for b in _BOARDS for n in get_board(b).player_counts})


def _known_level(v: str) -> str:
    """A bot level this server has (looked up when a request comes: bots may be
    registered after this module was read, kardinal.bots.register_bot); any case."""
    if v.lower() not in served_bots():
        raise ValueError(f"one of {', '.join(served_bots())}")
    return v


def _levels_schema(schema: dict[str, Any]) -> None:
    """The levels as a pattern in the document, letter case free as the server takes them
    (made when the document is: the bots registered by then)."""
    either = "|".join("".join(f"[{c.upper()}{c}]" if c.isalpha() else re.escape(c) for c in name) for name in served_bots())
    schema["pattern"] = f"^({either})$"


BotLevel = Annotated[
    str,
    Field(min_length=1, max_length=32, description="A bot level, any case (GET /api/bots)", json_schema_extra=_levels_schema),
    AfterValidator(_known_level),
]
BoardId = Annotated[Literal[_BOARDS], Field(description="An installed board (GET /api/variants)")]  # type: ignore[valid-type]
VariantName = Annotated[Literal[_VARIANTS], Field(description="A rule variant, R14 (GET /api/variants)")]  # type: ignore[valid-type]


# -- a record action (kardinal-record), one model per kind of decision -------------------


class Cloister(Strict):
    type: Literal["cloister"]
    site: Ident


class Advisor(Strict):
    type: Literal["advisor"]


Piece = Annotated[Cloister | Advisor, Field(discriminator="type")]


class PlaceAction(Strict):
    """Play cards for pieces in one country (R4)."""

    seat: Seat
    act: Literal["place"]
    country: Ident
    cards: list[Ident] = Field(max_length=8)
    pieces: list[Piece] = Field(max_length=8)


class DrawAction(Strict):
    """Draw a card: from the pile (``from`` deck) or the display (``card`` names it) (R5)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)
    seat: Seat
    act: Literal["draw"]
    source: Literal["deck", "display"] = Field(alias="from")
    card: Ident | None = None


class ExchangeAction(Strict):
    """Give up ``discard`` and take a card instead (R6)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)
    seat: Seat
    act: Literal["exchange"]
    discard: Ident
    source: Literal["deck", "display"] = Field(alias="from")
    card: Ident | None = None


class PassAction(Strict):
    seat: Seat
    act: Literal["pass"]


Action = Annotated[PlaceAction | DrawAction | ExchangeAction | PassAction, Field(discriminator="act")]


# -- HTTP request bodies ---------------------------------------------------------------


class PlayerSpec(Strict):
    """A seat of a new game: a person (invited by link; ``open``: anyone may take it from
    the lobby) or a bot of a level."""

    name: Name | None = None
    kind: Literal["person", "bot"] = "person"
    level: BotLevel | None = None
    open: bool | None = None
    account: (
        Annotated[
            str,
            Field(
                min_length=1,
                max_length=100,
                description="A person seat kept for the account of this name (invited by name; the creator signed in)",
                json_schema_extra={"pattern": PRINTABLE},
            ),
            AfterValidator(printable),
        ]
        | None
    ) = None


class LiveClock(Strict):
    """A live table's clock: each turn's own seconds, then the seat's reserve, which gains
    ``increment`` seconds after each of its turns (up to what it started with)."""

    move: float = Field(ge=5.0, le=3600.0)
    reserve: float = Field(default=0.0, ge=0.0, le=7200.0)
    increment: float = Field(default=0.0, ge=0.0, le=600.0)


class TurnClock(Strict):
    """A turn-based table's clock: whole days a turn."""

    days: int = Field(ge=1, le=14)


class CreateGame(Strict):
    """``POST /api/games``: a new table."""

    players: list[PlayerSpec] = Field(min_length=_SEATS[0], max_length=_SEATS[-1])
    hotseat: bool = False
    board: BoardId = "standard"
    variants: list[VariantName] = Field(default_factory=list, max_length=len(_VARIANTS))
    mode: Literal["live", "turn"] = "live"
    away: float = Field(default=180.0, ge=1.0, le=86400.0, description="Live games: seconds away on one's turn before a stand-in plays")
    standin: BotLevel = "medium"
    hints: bool = False
    spectator_chat: bool = False
    public: bool = True
    friends: bool = Field(default=False, description="Open seats for the accounts the creator follows only (signed in)")
    clock: LiveClock | TurnClock | None = Field(
        default=None, description="The time control (live: LiveClock; turn-based: TurnClock); none by default"
    )
    rated: bool = Field(default=False, description="The game moves its people's ratings: a signed-in creator, every person signed in")
    key: Annotated[str, Field(min_length=8, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")] | None = Field(
        default=None, description="The client's key for this creation: sent twice (a double click), it makes one game"
    )


class JoinSeat(Strict):
    """``POST /api/games/{id}/join``: take one's seat by its link (``name``: while the table fills)."""

    seat: Seat
    token: Token
    name: Name | None = None


class ClaimSeat(Strict):
    """``POST /api/games/{id}/claim``: take a free open seat from the lobby."""

    seat: Seat
    name: Name | None = None


class ActionRequest(Strict):
    """``POST /api/games/{id}/actions``: one decision of the seat whose token it carries,
    expected to apply to state ``version``; ``id`` makes a resend apply once."""

    id: ClientId | None = None
    seat: Seat
    token: Token
    version: Version
    action: Action


class UndoRequest(Strict):
    """``POST /api/games/{id}/undo``: take back one's own placement before drawing."""

    id: ClientId | None = None
    seat: Seat
    token: Token
    version: Version


class HintRequest(Strict):
    """``POST /api/games/{id}/hint``: the best moves for the seat to act."""

    seat: Seat
    token: Token
    version: Version


class AgainRequest(Strict):
    """``POST /api/games/{id}/again``: the tokens the page holds (none in a game of bots only)."""

    seats: dict[SeatKey, Token] | None = Field(default=None, max_length=10)


class ReviewRequest(Strict):
    """``POST /api/games/{id}/review``: nothing to say."""


class TutorialAttempt(Strict):
    """``POST /api/tutorial/{step}``: the step's actions so far; the last is being tried."""

    actions: list[Action] = Field(max_length=8)


# -- WebSocket messages a client sends ---------------------------------------------------


class HelloMessage(Strict):
    """First: the seats this connection holds (none: a spectator); ``delta``: later state
    messages carry only the history's new entries; ``ack_in_state``: one's own action's
    acknowledgement comes inside the state message it made; ``presence``: presence
    messages (who left, and when a bot stands in for them), and at a table with a clock
    its clock messages (ClockMessage)."""

    type: Literal["hello"]
    seats: dict[SeatKey, Token] | None = Field(default=None, max_length=10)
    delta: bool = False
    ack_in_state: bool = False
    presence: bool = False


class ActionMessage(ActionRequest):
    type: Literal["action"]


class UndoMessage(UndoRequest):
    type: Literal["undo"]


class ChatSay(Strict):
    """A line in the game's chat (``name``: a spectator's, where spectators may write)."""

    type: Literal["chat"]
    id: ClientId | None = None
    text: ChatText
    name: Name | None = None


class PingMessage(Strict):
    type: Literal["ping"]
    id: ClientId | None = None


class FollowMessage(Strict):
    """A spectator's connection goes on to watch the game "Play again" started after this
    one (the state message's ``again``): it is answered as a hello is, with a welcome
    naming that game, its state, its chat so far, and (hello ``presence``) who is there,
    over the same connection (a crowd that follows a table opens no new connections). A
    connection holding seats does not follow: its people play again with their tokens."""

    type: Literal["follow"]
    id: ClientId | None = None


ClientMessage = Annotated[HelloMessage | ActionMessage | UndoMessage | ChatSay | PingMessage | FollowMessage, Field(discriminator="type")]
CLIENT_MESSAGE: TypeAdapter[HelloMessage | ActionMessage | UndoMessage | ChatSay | PingMessage | FollowMessage] = TypeAdapter(ClientMessage)


# -- answers -----------------------------------------------------------------------------


class WelcomeMessage(TypedDict):
    """The answer to a hello: the seats the connection holds; ``tokens``: the new tokens of
    the seats that became the hello's account's now (``{seat: token}``: the tokens it said
    hello with open them no more; keep these instead)."""

    type: Literal["welcome"]
    game: str
    seats: list[int]
    tokens: NotRequired[dict[str, str]]


class PongMessage(TypedDict):
    type: Literal["pong"]


ServerMessage = StateMessage | AckMessage | ErrorMessage | ChatMessage | PresenceMessage | ClockMessage | WelcomeMessage | PongMessage
SERVER_MESSAGE: TypeAdapter[ServerMessage] = TypeAdapter(ServerMessage)


class SeatLink(TypedDict):
    seat: int
    name: str
    token: str
    url: str


class CreatedGame(TypedDict):
    """A new game: the secret link of every person seat (shown once), the spectators'
    address, and for hot-seat the one link that holds every seat."""

    id: str
    status: str
    seats: list[SeatLink]
    watch: str
    public: bool
    hotseat_url: NotRequired[str]


class GameSummary(TypedDict):
    """A game as the lobby and "My games" list it (public information only)."""

    id: str
    created: float
    status: str
    hotseat: bool
    board: str
    variants: list[str]
    table: TableOptions
    players: list[PlayerData]
    current: NotRequired[int]
    # when the turn of ``current`` runs out and a bot takes it over (Unix time, UTC; clocks
    # are public): only while that seat's time runs
    deadline: NotRequired[float]
    version: NotRequired[int]
    scores: NotRequired[list[int]]
    winners: NotRequired[list[int] | None]


class GameList(TypedDict):
    games: list[GameSummary]


class Joined(TypedDict):
    """The seat is taken. Signed in, the seat became the account's: ``token`` and ``url``
    are its new secret link (the link it was taken with, and any other token of before,
    no longer open it)."""

    ok: bool
    status: str
    token: NotRequired[str]
    url: NotRequired[str]


class Claimed(TypedDict):
    seat: int
    token: str
    url: str


class AgainAnswer(TypedDict):
    id: str
    status: str
    watch: str
    seats: dict[str, int]  # the seats asked for: where each sits in the new game (the start player moved on)
    gone: list[int]  # the seats asked for whose place in the new game a bot took (it was started without them)


class BotRecord(TypedDict):
    """A level's measured result: ``percent`` of ``games`` four-player games won against
    three ``against`` bots, 95% interval ``low``-``high`` (percent, or null)."""

    percent: float
    games: int
    against: str
    low: float | None
    high: float | None


class BotAbout(TypedDict):
    summary: str
    seconds: float
    strength: str
    record: BotRecord | None


class BotList(TypedDict):
    levels: list[str]
    about: dict[str, BotAbout]


class VariantList(TypedDict):
    variants: dict[str, str]
    boards: list[str]


class ReviewStatus(TypedDict):
    """A game's review: "none" (not asked for), "running" with its progress, "done" with
    the review, or "failed"."""

    game: str
    status: str
    done: NotRequired[int]
    total: NotRequired[int]
    seats: NotRequired[list[int]]
    review: NotRequired[dict[str, Any]]


class TeachInfo(TypedDict):
    game: str
    hints: bool
    finished: bool
    review: dict[str, Any]


class HintOption(TypedDict):
    action: dict[str, Any]
    notation: str
    visits: int
    value: float | None
    margin: float | None
    worth: float | None
    gain: NotRequired[float | None]  # what the move adds at once, by the bots' evaluation
    vs_best: float | None


class HintAnswer(TypedDict):
    """The best moves for the asking seat, best first (``how``: search, draw or only)."""

    type: Literal["hint"]
    game: str
    version: int
    seat: int
    phase: str
    how: str
    options: list[HintOption]
    iterations: int
    seconds: float
