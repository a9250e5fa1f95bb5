"""The models of community's routes (account_routes.py, moderation_routes.py,
social_routes.py, rating_routes.py): accounts and sessions, muting, blocking and
reports, profiles, following and invitations by name, ratings (checked as
common/schemas.py says)."""

from __future__ import annotations

from typing import Annotated, NotRequired

from pydantic import AfterValidator, Field
from typing_extensions import TypedDict

from ..common.schemas import PRINTABLE, GameId, Name, Password, Seat, SeatKey, Strict, Token, printable
from ..play.schemas import GameSummary

# -- accounts ----------------------------------------------------------------------------


AccountName = Annotated[
    str,
    Field(
        min_length=1,
        max_length=100,
        description="An account's name (the rules of a seat's name; unique among accounts)",
        json_schema_extra={"pattern": PRINTABLE},
    ),
    AfterValidator(printable),
]
HeldSeats = dict[GameId, Annotated[dict[SeatKey, Token], Field(max_length=10)]]


class SignUp(Strict):
    """``POST /api/account/signup``: a new account, signed in; ``held``: the seats this
    browser holds (``{game: {seat: token}}``), which become the account's."""

    name: AccountName
    password: Password
    held: HeldSeats = Field(default_factory=dict, max_length=200)


class SignIn(Strict):
    """``POST /api/account/signin``: a new session of the account; ``held`` as at sign-up."""

    name: AccountName
    password: Password
    held: HeldSeats = Field(default_factory=dict, max_length=200)


class SignOut(Strict):
    """``POST /api/account/signout``: ``{}`` ends this browser's session; ``everywhere``:
    every session of the account, and the seats' tokens its devices were given."""

    everywhere: bool = False


class NewPassword(Strict):
    """``POST /api/account/password``: the account's password now, and the new one."""

    current: Password
    new: Password


class DeleteAccount(Strict):
    """``POST /api/account/delete``: the account's password, to be sure."""

    password: Password


class SeatKeyRequest(Strict):
    """``POST /api/account/seat``: a working token of one of the account's seats, for this device."""

    game: GameId
    seat: Seat


# -- moderation ----------------------------------------------------------------------------


class PlayerRef(Strict):
    """A player: by account ``name``, or by ``game`` and ``seat`` (the seat's account)."""

    name: AccountName | None = None
    game: GameId | None = None
    seat: Seat | None = None


class MuteRequest(PlayerRef):
    """``POST /api/moderation/mute`` and ``/block``: ``on`` false lifts it."""

    on: bool = True


class ReportRequest(Strict):
    """``POST /api/moderation/report``: a chat line (its ``line`` index) of ``game``, and why.
    Signed in, or holding ``seats`` of the game (``{seat: token}``)."""

    game: GameId
    line: int = Field(ge=0, le=10_000_000)
    reason: str = Field(min_length=1, max_length=500)
    seats: dict[SeatKey, Token] = Field(default_factory=dict, max_length=10)


# -- answers -----------------------------------------------------------------------------


class AccountData(TypedDict):
    id: int
    name: str
    created: float
    lang: NotRequired[str | None]  # the account's language (GET /api/account only)


class AccountInfo(TypedDict):
    """Who this browser is signed in as (``account``: none, a guest); after sign-up or
    sign-in, ``brought``: how many seats the browser held are the account's now, and
    ``tokens``: the new tokens of those that became its now (``{game: {seat: token}}``; the
    tokens the browser held for them end: keep these instead)."""

    account: AccountData | None
    brought: NotRequired[int]
    tokens: NotRequired[dict[str, dict[str, str]]]


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


# -- profiles, follows, invitations by name (social.py) --------------------------------


class FollowRequest(Strict):
    """``POST /api/account/follow``: follow (or, ``follow: false``, stop following) the
    account of ``name``."""

    name: AccountName
    follow: bool = True


class InvitationRequest(Strict):
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


# -- ratings (rating_routes.py) ----------------------------------------------------------


class FindTable(Strict):
    """``POST /api/find-table``. ``seat_name``: taken and not used (a new table's open seats
    are unnamed: each page names them in its own language, "Player 2", "Spieler 2")."""

    seat_name: Name | None = None


class FillSeats(Strict):
    """``POST /api/games/{id}/fill``: start a waiting table with bots (a seat that has joined, and its token)."""

    seat: Seat
    token: Token


class Filled(TypedDict):
    ok: bool
    status: str
    level: str  # the bots' level


class FillPlan(TypedDict):
    seats: list[int]  # the seats "Start with bots" would give bots now (none: the table waits for the people it keeps seats for)
    until: int | None  # a "Play again" table: when its people's seats stop being kept for them (Unix time), while one is free


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
