"""What every part of the game service shares: the games in memory, the database, the
bots' executor, and reading a game (loading and replaying it from its log)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections import Counter, OrderedDict
from collections.abc import Awaitable, Callable
from concurrent.futures import Executor, ThreadPoolExecutor
from typing import TYPE_CHECKING, Any

from kardinal.rules.board import BoardError, get_board
from kardinal.rules.moves import Move
from kardinal.rules.record import IllegalAction, RecordError, steps
from kardinal.rules.state import new_game
from kardinal.rules.variants import VariantError

from ..common.refusal import Refused, suspended
from ..storage import (
    ChatLine,
    CorruptGame,
    GameRow,
    PendingWrite,
    SeatRow,
    Storage,
)
from .fair import FairSlots
from .live import Connection, LiveGame, token_ok

log = logging.getLogger("kardinal.web")


class ServiceCore:
    """The state every part of the game service shares, and reading a game."""

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
        self.contact = ""  # whom a suspended player asks (Settings.contact: create_app sets it)
        self.executor = executor or ThreadPoolExecutor(max_workers=2, thread_name_prefix="kardinal-bot")
        # bots think in turns: games with people first (fair.py); as many at once as workers
        self.thinking = FairSlots(getattr(self.executor, "_max_workers", 2))
        self.live: dict[str, LiveGame] = {}
        self._loading: dict[str, asyncio.Future[LiveGame]] = {}  # games being read (fetch)
        self.on_change: list[Callable[[LiveGame], None]] = []
        # called with (the game, its follow-up, {old seat: new seat}, the seats that asked)
        # after a press of "Play again" made a follow-up and gave its seats their accounts
        # (routes.play_again; once: a later press finds the game made; the mail of the
        # people not at the table: mail.GameMail.notify_follow_up); a listener never fails
        # the request
        self.on_follow_up: list[Callable[[str, str, dict[int, int], list[int]], Awaitable[object]]] = []
        self._pending: list[tuple[PendingWrite, asyncio.Future[None]]] = []  # writes to commit (_write)
        self._flusher: asyncio.Task[None] | None = None
        self.stopping = False  # the server stops: no bot plays on (botplay.stop_bots)
        # games of bots only being created, per address (counted with the running ones: the cap)
        self._bot_creations: Counter[str] = Counter()
        # (creator, client key) -> (when, the creation: the game's id and tokens): a key sent
        # again gets the same game (create; the id, not the game: a forgotten game is not kept)
        self._keys: OrderedDict[tuple[str | None, str], tuple[float, asyncio.Future[tuple[str, dict[int, str]]]]] = OrderedDict()

    if TYPE_CHECKING:  # what the parts call of one another (each defined in its own module)
        now: Callable[[], float]  # clocks: the time source (Unix time)

        async def _write(self, a: PendingWrite) -> None: ...  # pipeline
        async def _commit(self, live: LiveGame, seat: int, move: Move, client_id: str | None) -> int: ...  # pipeline
        def _changed(self, live: LiveGame) -> None: ...  # pipeline
        async def _create(
            self,
            spec: Any,
            creator: str | None,
            charge: Callable[[], None] | None = None,
            same_as: list[SeatRow] | None = None,
            follows: tuple[str, str | None] | None = None,
        ) -> tuple[LiveGame, dict[int, str]]: ...  # tables
        async def _set_seat(
            self, live: LiveGame, seat: int, row: SeatRow | Callable[[SeatRow], SeatRow], check: Callable[[SeatRow], None] | None = None
        ) -> None: ...  # tables
        def start_bots(self, live: LiveGame) -> None: ...  # botplay
        async def check_away(self, live: LiveGame) -> bool: ...  # botplay
        def _tell(self, live: LiveGame) -> None: ...  # presence
        def tell_presence(self, live: LiveGame, to: Connection | None = None, but: Connection | None = None) -> None: ...  # presence
        def _evict(self) -> None: ...  # presence
        def _notice(self, live: LiveGame, seat: int, kind: str) -> None: ...  # chat
        def _heard(self, live: LiveGame, lines: list[ChatLine]) -> None: ...  # chat
        async def _add_line(self, live: LiveGame, seat: int | None, kind: str, name: str, text: str) -> ChatLine: ...  # chat
        async def _catch_up_locked(self, live: LiveGame) -> bool: ...  # shared
        def presence_elsewhere(self, game_id: str) -> None: ...  # presence
        def deadline_elsewhere(self, deadline: float) -> None: ...  # clocks
        async def deadline_now(self, live: LiveGame, seat: int) -> bool: ...  # clocks
        def turn_again(self, live: LiveGame, seat: int) -> None: ...  # clocks

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

    def replayed(self, game_id: str) -> LiveGame:
        """A game read from the database and replayed, not kept in memory (to read a finished
        game's result without pushing the games being played out of memory); Refused if none
        or unreadable. Blocks: call it in a thread."""
        return self._read(game_id)

    def _adopt(self, game_id: str, live: LiveGame) -> LiveGame:
        have = self.live.get(game_id)
        if have is not None:
            return have
        self.live[game_id] = live
        self._evict()
        return live

    def _auth(self, live: LiveGame, seat: object, token: object) -> int:
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(live.row.seats):
            raise Refused("bad_token", "no such seat, or a wrong token", 403)
        sr = live.row.seats[seat]
        if not token_ok(sr, token):
            if sr.kind == "bot" and isinstance(token, str) and token:  # (a bot's seat has no token to guess)
                # e.g. a "Play again" table started with bots after its people's while to come:
                # the page that followed there is told why it watches
                raise Refused("bot_seat", "a bot plays this seat", 403)
            raise Refused("bad_token", "no such seat, or a wrong token", 403)
        if sr.barred_now(time.time()):  # its account is suspended: no way into the seat opens it
            raise suspended(sr.barred or 0.0, "", self.contact)
        return seat
