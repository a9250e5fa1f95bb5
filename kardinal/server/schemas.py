"""Every message of the server's API, declared: request bodies and WebSocket messages a
client sends (Pydantic models, strict), and the answers it gets (typed dicts).

Requests are checked here before any handler sees them: strict types (no string for a
number or a boolean), bounded numbers and lengths, no control characters or lone
surrogates in text that is stored or shown, no unknown fields. A body that fails is
refused with ``malformed`` (400) and the path of the field (``params.field``, e.g.
``players.0.name``); nothing changes. The finer checks that need the game (whose turn,
the rules, a name taken at the table) stay with the game service.

The same declarations give the OpenAPI document (``/openapi.json``, shown at
``/api/docs``); the WebSocket's messages are in it too, as the schemas ``ClientMessage``
and ``ServerMessage``.
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Annotated, Any, Literal, NotRequired

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, TypeAdapter
from typing_extensions import TypedDict

from kardinal.bots import served_bots
from kardinal.rules.board import get_board, installed_boards
from kardinal.rules.variants import VARIANTS

from .common.refusal import ErrorData
from .play.messages import (
    AckMessage,
    ChatMessage,
    ClockMessage,
    ErrorMessage,
    PlayerData,
    PresenceMessage,
    StateMessage,
    TableOptions,
)

__all__ = [
    "Seat",
    "Token",
    "CLIENT_ID",
    "Action",
    "CreateGame",
    "PlayerSpec",
    "JoinSeat",
    "ClaimSeat",
    "ActionRequest",
    "UndoRequest",
    "HintRequest",
    "AgainRequest",
    "ReviewRequest",
    "TutorialAttempt",
    "ClientMessage",
    "CLIENT_MESSAGE",
    "ServerMessage",
    "SERVER_MESSAGE",
    "field_of",
    "first_error",
    "token_error",
    "ErrorBody",
    "SignUp",
    "SignIn",
    "SignOut",
    "NewPassword",
    "DeleteAccount",
    "SeatKeyRequest",
]

# letters text may not hold: controls other than white space (which is folded into one
# space where text is kept), DEL and C1 controls, and lone surrogates (a stored id or name
# with one cannot even be written as UTF-8: the storage's write failed)
_BAD_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


# the same as a pattern, for the document (pydantic's patterns cannot name surrogates)
_PRINTABLE = "^[^\\x00-\\x08\\x0b\\x0c\\x0e-\\x1f\\x7f-\\x9f]*$"


def _printable(s: str) -> str:
    if _BAD_TEXT.search(s):
        raise ValueError("text may not hold control characters or lone surrogates")
    return s


class _Strict(BaseModel):
    """A request: exact types, no unknown fields."""

    model_config = ConfigDict(extra="forbid", strict=True)


Seat = Annotated[int, Field(ge=0, le=9, description="A seat's number, from 0")]
SeatKey = Annotated[str, Field(pattern=r"^[0-9]$", description="A seat's number as an object key")]
Version = Annotated[int, Field(ge=0, le=1_000_000, description="The number of actions applied so far (the state version)")]
Token = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$", description="A seat's secret token")]
CLIENT_ID = re.compile(r"[!-~]{1,100}")  # what ClientId takes (a refusal echoes only such an id)
ClientId = Annotated[
    str,
    Field(min_length=1, max_length=100, pattern=f"^{CLIENT_ID.pattern}$", description="The client's id for an action (printable ASCII)"),
]
Ident = Annotated[str, Field(min_length=1, max_length=64, pattern=r"^[A-Za-z0-9_-]+$")]
Name = Annotated[
    str,
    Field(
        max_length=100,
        description="A name (at most 24 characters once runs of white space are one space; unique at a table)",
        json_schema_extra={"pattern": _PRINTABLE},
    ),
    AfterValidator(_printable),
]
ChatText = Annotated[str, Field(min_length=1, max_length=2000, json_schema_extra={"pattern": _PRINTABLE}), AfterValidator(_printable)]
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


class Cloister(_Strict):
    type: Literal["cloister"]
    site: Ident


class Advisor(_Strict):
    type: Literal["advisor"]


Piece = Annotated[Cloister | Advisor, Field(discriminator="type")]


class PlaceAction(_Strict):
    """Play cards for pieces in one country (R4)."""

    seat: Seat
    act: Literal["place"]
    country: Ident
    cards: list[Ident] = Field(max_length=8)
    pieces: list[Piece] = Field(max_length=8)


class DrawAction(_Strict):
    """Draw a card: from the pile (``from`` deck) or the display (``card`` names it) (R5)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)
    seat: Seat
    act: Literal["draw"]
    source: Literal["deck", "display"] = Field(alias="from")
    card: Ident | None = None


class ExchangeAction(_Strict):
    """Give up ``discard`` and take a card instead (R6)."""

    model_config = ConfigDict(extra="forbid", strict=True, populate_by_name=False)
    seat: Seat
    act: Literal["exchange"]
    discard: Ident
    source: Literal["deck", "display"] = Field(alias="from")
    card: Ident | None = None


class PassAction(_Strict):
    seat: Seat
    act: Literal["pass"]


Action = Annotated[PlaceAction | DrawAction | ExchangeAction | PassAction, Field(discriminator="act")]


# -- HTTP request bodies ---------------------------------------------------------------


class PlayerSpec(_Strict):
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
                json_schema_extra={"pattern": _PRINTABLE},
            ),
            AfterValidator(_printable),
        ]
        | None
    ) = None


class LiveClock(_Strict):
    """A live table's clock: each turn's own seconds, then the seat's reserve, which gains
    ``increment`` seconds after each of its turns (up to what it started with)."""

    move: float = Field(ge=5.0, le=3600.0)
    reserve: float = Field(default=0.0, ge=0.0, le=7200.0)
    increment: float = Field(default=0.0, ge=0.0, le=600.0)


class TurnClock(_Strict):
    """A turn-based table's clock: whole days a turn."""

    days: int = Field(ge=1, le=14)


class CreateGame(_Strict):
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


class JoinSeat(_Strict):
    """``POST /api/games/{id}/join``: take one's seat by its link (``name``: while the table fills)."""

    seat: Seat
    token: Token
    name: Name | None = None


class ClaimSeat(_Strict):
    """``POST /api/games/{id}/claim``: take a free open seat from the lobby."""

    seat: Seat
    name: Name | None = None


class ActionRequest(_Strict):
    """``POST /api/games/{id}/actions``: one decision of the seat whose token it carries,
    expected to apply to state ``version``; ``id`` makes a resend apply once."""

    id: ClientId | None = None
    seat: Seat
    token: Token
    version: Version
    action: Action


class UndoRequest(_Strict):
    """``POST /api/games/{id}/undo``: take back one's own placement before drawing."""

    id: ClientId | None = None
    seat: Seat
    token: Token
    version: Version


class HintRequest(_Strict):
    """``POST /api/games/{id}/hint``: the best moves for the seat to act."""

    seat: Seat
    token: Token
    version: Version


class AgainRequest(_Strict):
    """``POST /api/games/{id}/again``: the tokens the page holds (none in a game of bots only)."""

    seats: dict[SeatKey, Token] | None = Field(default=None, max_length=10)


class ReviewRequest(_Strict):
    """``POST /api/games/{id}/review``: nothing to say."""


class TutorialAttempt(_Strict):
    """``POST /api/tutorial/{step}``: the step's actions so far; the last is being tried."""

    actions: list[Action] = Field(max_length=8)


# -- accounts ----------------------------------------------------------------------------

Password = Annotated[str, Field(min_length=1, max_length=256, description="A password (8 to 256 characters at sign-up)")]
AccountName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        description="An account's name (the rules of a seat's name; unique among accounts)",
        json_schema_extra={"pattern": _PRINTABLE},
    ),
    AfterValidator(_printable),
]
GameId = Annotated[str, Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$", description="A game's id")]
HeldSeats = dict[GameId, Annotated[dict[SeatKey, Token], Field(max_length=10)]]


class SignUp(_Strict):
    """``POST /api/account/signup``: a new account, signed in; ``held``: the seats this
    browser holds (``{game: {seat: token}}``), which become the account's."""

    name: AccountName
    password: Password
    held: HeldSeats = Field(default_factory=dict, max_length=200)


class SignIn(_Strict):
    """``POST /api/account/signin``: a new session of the account; ``held`` as at sign-up."""

    name: AccountName
    password: Password
    held: HeldSeats = Field(default_factory=dict, max_length=200)


class SignOut(_Strict):
    """``POST /api/account/signout``: ``{}`` ends this browser's session; ``everywhere``:
    every session of the account, and the seats' tokens its devices were given."""

    everywhere: bool = False


class NewPassword(_Strict):
    """``POST /api/account/password``: the account's password now, and the new one."""

    current: Password
    new: Password


class DeleteAccount(_Strict):
    """``POST /api/account/delete``: the account's password, to be sure."""

    password: Password


class SeatKeyRequest(_Strict):
    """``POST /api/account/seat``: a working token of one of the account's seats, for this device."""

    game: GameId
    seat: Seat


# -- moderation ----------------------------------------------------------------------------


class PlayerRef(_Strict):
    """A player: by account ``name``, or by ``game`` and ``seat`` (the seat's account)."""

    name: AccountName | None = None
    game: GameId | None = None
    seat: Seat | None = None


class MuteRequest(PlayerRef):
    """``POST /api/moderation/mute`` and ``/block``: ``on`` false lifts it."""

    on: bool = True


class ReportRequest(_Strict):
    """``POST /api/moderation/report``: a chat line (its ``line`` index) of ``game``, and why.
    Signed in, or holding ``seats`` of the game (``{seat: token}``)."""

    game: GameId
    line: int = Field(ge=0, le=10_000_000)
    reason: str = Field(min_length=1, max_length=500)
    seats: dict[SeatKey, Token] = Field(default_factory=dict, max_length=10)


# -- mail (kardinal.server.mail) -------------------------------------------------------

MailToken = Annotated[str, Field(min_length=1, max_length=100, pattern=r"^[A-Za-z0-9_.-]+$", description="A token from a mailed link")]
Lang = Literal["en", "de"]


class SetEmail(_Strict):
    """``POST /api/account/email``: a new address (``""``: none), confirmed by a mailed
    link; the account's password, to be sure; ``lang``: the language of its mails; ``tz``:
    the browser's time zone (an IANA name, "Europe/Berlin"), the one its mails' times are
    said in (unknown or "": UTC)."""

    email: str = Field(max_length=254)
    password: Password
    lang: Lang = "en"
    tz: str = Field("", max_length=64)


class SetNotify(_Strict):
    """``POST /api/account/notify``: which mails the account wants (those left out stay)."""

    turn: bool | None = None
    invitation: bool | None = None
    end: bool | None = None


class MailLink(_Strict):
    """``POST /api/mail/confirm``, ``/api/mail/unsubscribe``: the token of a mailed link."""

    token: MailToken


class Forgot(_Strict):
    """``POST /api/mail/forgot``: an account's name or its confirmed address."""

    who: str = Field(min_length=1, max_length=254)


class ResetPassword(_Strict):
    """``POST /api/mail/reset``: the token of a mailed reset link and the new password."""

    token: MailToken
    password: Password


# -- WebSocket messages a client sends ---------------------------------------------------


class HelloMessage(_Strict):
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


class ChatSay(_Strict):
    """A line in the game's chat (``name``: a spectator's, where spectators may write)."""

    type: Literal["chat"]
    id: ClientId | None = None
    text: ChatText
    name: Name | None = None


class PingMessage(_Strict):
    type: Literal["ping"]
    id: ClientId | None = None


ClientMessage = Annotated[HelloMessage | ActionMessage | UndoMessage | ChatSay | PingMessage, Field(discriminator="type")]
CLIENT_MESSAGE: TypeAdapter[HelloMessage | ActionMessage | UndoMessage | ChatSay | PingMessage] = TypeAdapter(ClientMessage)


# -- answers -----------------------------------------------------------------------------


# A model rather than a TypedDict: it is only documentation (app.py's handler writes the
# refusals), declared by every route for each of its refusals, and FastAPI adapts each
# declaration anew for each app (305 an app): a model's schema is made once, a TypedDict's
# each time, which made most of the time of an app's first request.
class ErrorBody(BaseModel):
    """Every refusal over HTTP: ``{"error": {code, message, params, rule?, reason?}}``."""

    error: ErrorData


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


class BotRecord(TypedDict):
    """A level's measured result: ``percent`` of ``games`` four-player games won against
    three ``against`` bots, 95% interval ``low``-``high`` (percent, or null)."""

    percent: float
    games: int
    against: str
    low: float | None
    high: float | None


class AccountData(TypedDict):
    id: int
    name: str
    created: float


class AccountInfo(TypedDict):
    """Who this browser is signed in as (``account``: none, a guest); after sign-up or
    sign-in, ``brought``: how many seats the browser held are the account's now, and
    ``tokens``: the new tokens of those that became its now (``{game: {seat: token}}``; the
    tokens the browser held for them end: keep these instead)."""

    account: AccountData | None
    brought: NotRequired[int]
    tokens: NotRequired[dict[str, dict[str, str]]]


class Done(TypedDict):
    ok: bool


class MuteAnswer(TypedDict):
    """``scope``: "account" (held on every device) or "game" (a seat without an account:
    the browser keeps it for that game)."""

    scope: str


class Silenced(TypedDict):
    """The seats of a game whose chat this account muted or blocked (``seats``): of them,
    those it muted (``muted``) and those it blocked (``blocked``); a seat may be in both."""

    seats: list[int]
    muted: list[int]
    blocked: list[int]


class NamedPlayer(TypedDict):
    name: str


class ModerationLists(TypedDict):
    """The players this account muted and blocked."""

    muted: list[NamedPlayer]
    blocked: list[NamedPlayer]


class ReportAnswer(TypedDict):
    """A stored report (its number, for the operator's ``kardinal admin``)."""

    report: int


class MyGame(TypedDict):
    game: GameSummary
    seats: list[int]


class MyGames(TypedDict):
    """Every game the account has a seat in, newest first, with its seats."""

    games: list[MyGame]


class SeatToken(TypedDict):
    """A token of one's own seat for this device (keep it as the seat's link's)."""

    game: str
    seat: int
    token: str


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


class Health(TypedDict):
    status: str


class Readiness(TypedDict):
    status: str
    database: str


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


def field_of(loc: tuple[int | str, ...], message: bool = False) -> str:
    """A field's path as a client names it: ``players.0.name``, ``action.country`` (the
    body's own place and the tags of unions left out; ``message``: the path is a WebSocket
    message's, whose first part is its type)."""
    if loc and loc[0] in ("body", "query", "path"):  # where FastAPI found it
        loc = loc[1:]
    parts = [str(x) for x in loc[1 if message else 0 :] if x != "[key]"]
    # a member of a discriminated union is named by its tag in pydantic's path
    return ".".join(p for p in parts if p not in _TAGS)


_TAGS = frozenset(("place", "draw", "exchange", "pass", "cloister", "advisor"))


def first_error(errors: Sequence[Any], message: bool = False) -> tuple[str, str]:
    """The first problem of a failed validation (pydantic's ``errors()``): (field path,
    words). ``message``: of a WebSocket message (see field_of)."""
    if not errors:
        return "", "the message is not valid"
    err = errors[0]
    loc = tuple(err.get("loc", ()))
    kind = err.get("type")
    if kind == "json_invalid":
        return "", "the body must be JSON"
    path = field_of(loc, message and len(loc) > 1)
    if kind in ("model_type", "model_attributes_type", "dict_type", "union_tag_invalid", "union_tag_not_found") and not path:
        return "", "expected a JSON object" + (" with a known 'type'" if kind.startswith("union_tag") else "")
    return path, str(err.get("msg", "not valid"))


def token_error(errors: Sequence[Any], message: bool = False) -> bool:
    """A failed validation of a seat's token (a guess, however malformed, counts as one);
    ``message``: of a WebSocket message (see field_of)."""
    return any(_top_field(tuple(err.get("loc", ())), message) in ("token", "seats") for err in errors)


def _top_field(loc: tuple[int | str, ...], message: bool) -> str:
    return field_of(loc, message and len(loc) > 1).partition(".")[0]


# -- profiles, follows, invitations by name (social.py) --------------------------------


class FollowRequest(_Strict):
    """``POST /api/account/follow``: follow (or, ``follow: false``, stop following) the
    account of ``name``."""

    name: AccountName
    follow: bool = True


class InvitationRequest(_Strict):
    """``POST /api/account/invitations/take`` (or ``/decline``; ``/withdraw``: one the account sent): an invitation to a seat."""

    game: GameId
    seat: Seat


class Following(TypedDict):
    name: str
    following: bool


class PlayerStats(TypedDict):
    """Finished games at tables of ``players`` seats: ``wins`` counts a shared win as its share."""

    players: int
    games: int
    wins: float
    score: float  # mean
    place: float  # mean (1 = first)


class RatingInfo(TypedDict):
    mu: float
    sigma: float
    games: int  # rated games


class RatingPoint(TypedDict):
    at: float
    mu: float
    sigma: float


class ProfileGame(TypedDict):
    """One of the last games of a profile: finished (a link to its replay) or under way
    (to watch, public tables only); never a seat's link."""

    game: str
    status: str
    at: float
    seat: int
    name: str  # the seat's name
    players: list[str]  # every seat's name
    public: bool
    place: NotRequired[float]
    score: NotRequired[int]
    win: NotRequired[float]
    of: NotRequired[int]  # players at the table


class Profile(TypedDict):
    """A player's public profile (``me``: it is the asking account's own; ``following``:
    the asking account follows it)."""

    name: str
    since: float
    games: int
    wins: float
    by_players: list[PlayerStats]
    rating: RatingInfo | None
    history: list[RatingPoint]
    last: list[ProfileGame]
    follows: int
    followers: int
    me: bool
    following: bool


class FollowEntry(TypedDict):
    name: str
    since: float


class FollowLists(TypedDict):
    following: list[FollowEntry]
    followers: list[FollowEntry]


class InvitationInfo(TypedDict):
    """An invitation by name: to the account (``by``: who invited it; null: a deleted
    account) or from it (``to``), with its game as the lobby shows it."""

    game: GameSummary
    seat: int
    at: float
    by: NotRequired[str | None]
    to: NotRequired[str]


class Invitations(TypedDict):
    received: list[InvitationInfo]
    sent: list[InvitationInfo]


class MailOn(TypedDict):
    """Whether this server sends mail (``enabled``: false when its settings are missing)."""

    enabled: bool


class NotifyWishes(TypedDict):
    turn: bool
    invitation: bool
    end: bool


class MailStatus(TypedDict):
    """An account's address (shown to that account only), whether it is confirmed, and
    which mails it wants; ``enabled``: whether this server sends mail."""

    enabled: bool
    email: str | None
    confirmed: bool
    notify: NotifyWishes


class Unsubscribed(TypedDict):
    ok: bool
    kind: str


# -- ratings (rating_routes.py) ----------------------------------------------------------


class FindTable(_Strict):
    """``POST /api/find-table``. ``seat_name``: taken and not used (a new table's open seats
    are unnamed: each page names them in its own language, "Player 2", "Spieler 2")."""

    seat_name: Name | None = None


class FillSeats(_Strict):
    """``POST /api/games/{id}/fill``: start a waiting table with bots (a seat that has joined, and its token)."""

    seat: Seat
    token: Token


class Filled(TypedDict):
    ok: bool
    status: str
    level: str  # the bots' level


class FoundTable(TypedDict):
    """Find me a table: the seat found (or of the new table: ``new``) and its link."""

    id: str
    seat: int
    token: str
    url: str
    new: bool


class LeaderRow(TypedDict):
    rank: int
    name: str
    rating: int  # mu, rounded
    pm: int  # 2 sigma, rounded
    mu: float
    sigma: float
    games: int


class BotRating(TypedDict):
    level: str
    rating: int  # fixed (ratings.BOT_RATINGS)
    low: int  # its measurement's 95% interval
    high: int
    measured: bool  # False: an estimate between measured levels


class Leaderboard(TypedDict):
    min_games: int  # rated games a player needs to be listed
    players: list[LeaderRow]
    bots: list[BotRating]
    newcomer: int  # the rating a player starts with


class RatingChange(TypedDict):
    name: str  # the account's
    before: int
    after: int
    change: int
    pm: int  # 2 sigma after
    pm_before: int


class GameRatings(TypedDict):
    game: str
    rated: bool
    settled: bool  # the results are stored (and a rated game's ratings updated)
    seats: dict[str, RatingChange]


class RatedGame(TypedDict):
    game: str
    at: float
    before: int
    after: int
    pm: int


class MyRating(TypedDict):
    rating: int
    pm: int
    mu: float
    sigma: float
    games: int
    min_games: int
    events: list[RatedGame]
