"""Tables and seats: create a game (once per client key), join it by a seat's link, claim an
open seat from the lobby; names unique at a table; the cap on an address's games of bots only."""

from __future__ import annotations

import asyncio
import logging
import re
import secrets
import time
from collections.abc import Callable
from dataclasses import replace
from typing import Any

from kardinal.bots import served_bots
from kardinal.rules.board import Board, get_board, installed_boards
from kardinal.rules.state import new_game
from kardinal.rules.variants import VariantError, parse_variants

from ..common.names import UNNAMED, check_name_free, clean_name, look_key
from ..common.refusal import Refused
from ..storage import (
    GameRow,
    SeatChange,
    SeatRow,
)
from .clocks import bot_deadline
from .core import ServiceCore
from .live import LiveGame, hash_token, public_players, token_ok
from .options import options_of, table_options

log = logging.getLogger("kardinal.web")

MAX_KEYS = 8  # tokens of a seat handed to an account's other devices (Tables.seat_key)
MAX_BOT_GAMES = 5  # games of bots only one address may run at once
# creation keys (GameService.create): a double click makes one game
KEY_FORMAT = re.compile(r"[A-Za-z0-9_-]{8,64}")
KEYS_KEPT = 4096  # keys remembered at most ...
KEY_SECONDS = 600.0  # ... each for this long


def seat_number(key: object) -> object:
    """A seat number sent as a JSON object's key ("2"): the number (other keys as they are,
    for _auth to refuse). Only a few ASCII digits: int() of a long or a non-ASCII run of
    digits ("²") raises ValueError."""
    if isinstance(key, str) and 0 < len(key) <= 4 and key.isascii() and key.isdigit():
        return int(key)
    return key


class FollowedAlready(Exception):
    """The finished game has its follow-up already ("Play again" through another process,
    or another copy of it in memory): that game's id (None: the finished game is gone)."""

    def __init__(self, game_id: str | None) -> None:
        super().__init__(game_id)
        self.game_id = game_id


def nobody_waits(seats: list[SeatRow], gone: int) -> bool:
    """Whether nobody but the seat ``gone`` (its account deleted) is at an open table or may
    come by a link: every other person seat is a free lobby seat (open, not joined)."""
    return all(i == gone or s.kind != "person" or (s.open and not s.joined) for i, s in enumerate(seats))


class Tables(ServiceCore):
    """Tables and seats of a :class:`GameService`. (kardinal.server.play.service puts the parts together.)"""

    def bot_games_of(self, creator: str) -> int:
        """Games of bots only that ``creator`` (an address) started and that still run."""
        return sum(1 for g in self.live.values() if g.creator == creator and g.row.status == "running" and g.bots_only)

    async def create(
        self, spec: Any, creator: str | None = None, key: str | None = None, charge: Callable[[], None] | None = None
    ) -> tuple[LiveGame, dict[int, str]]:
        """Create a game from ``{players: [{name, kind, level}], hotseat, board, variants}``.

        ``creator``: the address asking; it may run MAX_BOT_GAMES games of bots only at once.

        ``board``: an installed board's id; ``variants``: rule variants (R14), default none.
        The seats' names are unique (see names.look_key). Returns the game and the secret tokens
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
                if not isinstance(level, str) or level.lower() not in served_bots():
                    raise Refused("malformed", f"players[{i}].level: one of {', '.join(served_bots())}", 400)
                seats.append(SeatRow(clean_name(p.get("name"), f"Bot {i + 1}"), "bot", level.lower(), None, True))
            elif kind == "person":
                tok = secrets.token_urlsafe(18)
                tokens[i] = tok
                is_open = p.get("open", False)
                if not isinstance(is_open, bool):
                    raise Refused("malformed", f"players[{i}].open: true or false", 400)
                name = clean_name(p.get("name"), UNNAMED)  # no words stored: each page names it (seat_name)
                seats.append(SeatRow(name, "person", None, hash_token(tok), hotseat, open=is_open and not hotseat))
            else:
                raise Refused("malformed", f"players[{i}].kind: 'person' or 'bot'", 400)
        if same_as is None:
            for i, sr in enumerate(seats):
                check_name_free(seats[:i], sr.name)
        else:
            seats = [
                replace(sr, token_hash=o.token_hash, keys=list(o.keys), barred=o.barred) if o.kind == "person" else sr
                for sr, o in zip(seats, same_as)
            ]
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
        game has no other follow-up yet (Storage.create_follow_up); else FollowedAlready
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
                raise FollowedAlready(have)
        live = self.live[gid] = LiveGame(row, board, st, creator=creator)
        live.chat, live.chat_seen = [], 0  # nothing said yet: not read from the database
        self._evict()
        self.start_bots(live)
        return live

    async def join(self, game_id: str, seat: object, token: object, name: object = None, new_token: str | None = None) -> LiveGame:
        """A person takes their seat (by their invitation link); the game starts when all have.
        A new ``name`` (while the game is open) may not be another seat's (name_taken).
        ``new_token``: the seat becomes an account's, and this is its token from now on, set
        in the same change that takes the seat (every token of before ends then: none can
        act in the game that this join starts)."""
        live = await self.fetch(game_id)
        s = self._auth(live, seat, token)
        sr = live.row.seats[s]
        new = clean_name(name, sr.name) if name is not None and live.row.status == "open" else sr.name
        if new != sr.name or not sr.joined or new_token is not None:

            def check(now: SeatRow) -> None:  # the seat as it is then (two joins at once, a rekey)
                if not token_ok(now, token):
                    raise Refused("bad_token", "no such seat, or a wrong token", 403)
                if new != now.name:
                    check_name_free(live.row.seats, new, s)

            def joined(now: SeatRow) -> SeatRow:
                if new_token is None:
                    return replace(now, name=new, joined=True)
                return replace(now, name=new, joined=True, token_hash=hash_token(new_token), keys=[])

            await self._set_seat(live, s, joined, check)
        return live

    async def _set_seat(
        self,
        live: LiveGame,
        seat: int,
        row: SeatRow | Callable[[SeatRow], SeatRow],
        check: Callable[[SeatRow], None] | None = None,
        close: bool = False,
    ) -> None:
        """Change a seat: in the database first (in a thread), then in memory (a failed
        write changes nothing); the game starts when every seat has joined. Seat changes of
        one game are made one at a time (its seat lock), each on the seats as they are;
        ``check`` may refuse the change, given the seat as it is then; ``row``: the seat's
        new row, or what makes it from the seat as it is then. ``close``: a table still
        open closes with it (see drop_seat_keys)."""
        async with live.seat_lock:
            if check is not None:
                check(live.row.seats[seat])
            if not isinstance(row, SeatRow):
                row = row(live.row.seats[seat])
            seats = list(live.row.seats)
            seats[seat] = row
            status = "running" if live.row.status == "open" and all(x.joined for x in seats) else live.row.status
            if close and status == "open" and nobody_waits(seats, seat):
                status = "expired"
            at = time.time()
            await self._write(SeatChange(live.row.id, seats, status, at))
            live.row.updated = at
        live.row.seats = seats
        live.row.status = status
        self._changed(live)

    async def claim(self, game_id: str, seat: object, name: object = None, owner: int | None = None) -> str:
        """Take a free person seat of an open game from the lobby: a new token for it.
        ``owner``: the account the seat was kept for already (a rated table: rated.admit)
        keeps it; any other account's hold on it ends."""
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
        new = clean_name(name, sr.name) if name is not None else sr.name
        tok = secrets.token_urlsafe(18)

        def still_free(now: SeatRow) -> None:  # two claims of one seat: the second finds it taken
            if now.joined:
                raise Refused("seat_taken", "that seat is taken")
            if new != sr.name:  # nor may it take another seat's name (the seats as they are then)
                check_name_free(live.row.seats, new, seat)

        # the seat is the claimant's alone: no device's token of before opens it, and no
        # account keeps it (its creator's, signed in, before this change); the claimant's
        # account gets it after (routes.claim)
        await asyncio.to_thread(self.storage.drop_seat_owner, game_id, seat, owner)
        await self._set_seat(live, seat, replace(sr, name=new, token_hash=hash_token(tok), joined=True, keys=[]), still_free)
        await asyncio.to_thread(self.storage.drop_seat_owner, game_id, seat, owner)
        return tok

    async def rekey(self, game_id: str, seat: int, held: str | None = None) -> str:
        """A new token of a person seat that has just become an account's (its link opened
        signed in, an invitation taken, a seat brought along at sign-in): every token of
        before ends, the link others were shown and the keys of devices alike, and the new
        one goes to the account's device in the answer. ``held``: the token that device
        showed; refused ``bad_token`` if it no longer opens the seat (changed meanwhile)."""
        live = await self.fetch(game_id)
        if not 0 <= seat < len(live.row.seats) or live.row.seats[seat].kind != "person":
            raise Refused("bad_token", "no such seat, or a wrong token", 403)
        tok = secrets.token_urlsafe(18)

        def still_held(now: SeatRow) -> None:
            if now.kind != "person" or (held is not None and not token_ok(now, held)):
                raise Refused("bad_token", "no such seat, or a wrong token", 403)

        await self._set_seat(live, seat, lambda now: replace(now, token_hash=hash_token(tok), keys=[]), still_held)
        return tok

    async def seat_key(self, game_id: str, seat: int) -> str:
        """A further token of a person seat, for another device of the account the seat
        belongs to (the accounts module checks that): the seat's other tokens keep working;
        the oldest of more than MAX_KEYS is dropped. An open seat nobody has claimed yet is
        nobody's (a claim gives it a new token): refused."""
        live = await self.fetch(game_id)
        if not 0 <= seat < len(live.row.seats) or live.row.seats[seat].kind != "person":
            raise Refused("not_your_seat", "this seat does not belong to your account", 403)
        tok = secrets.token_urlsafe(18)
        sr = live.row.seats[seat]

        def claimed(now: SeatRow) -> None:  # the seat as it is then (claimed meanwhile: another's)
            if (now.open and not now.joined) or now.token_hash != sr.token_hash:
                raise Refused("not_your_seat", "this seat does not belong to your account", 403)

        claimed(sr)
        await self._set_seat(live, seat, replace(sr, keys=[*sr.keys, hash_token(tok)][-MAX_KEYS:]), claimed)
        return tok

    async def _operators_seat(self, game_id: str, seat: int) -> LiveGame | None:
        """The game of a seat the operator's pending work names (kardinal admin), or None:
        a game that cannot be read, or no such seat, keeps its seats as they are."""
        try:
            live = await self.fetch(game_id)
        except Refused:
            return None
        return live if 0 <= seat < len(live.row.seats) else None

    async def drop_seat_keys(self, game_id: str, seat: int, rename: str | None = None) -> None:
        """The tokens handed to an account's devices end (its password changed, or it was
        deleted); ``rename``: the seat's new name (a number after it if another seat has it),
        its account deleted: a table still open that nobody else waits at and nobody holds
        a link to (nobody_waits: a "Find me a table" table, say) closes ("expired": the lobby
        lists it no more)."""
        live = await self._operators_seat(game_id, seat)
        if live is None:
            return
        live.owners.pop(seat, None)  # its account may be gone: whose the seat is is asked again (LiveGame.owned_by)
        sr = live.row.seats[seat]
        name = sr.name
        if rename is not None:
            others = {look_key(s.name) for i, s in enumerate(live.row.seats) if i != seat}
            name = next(n for n in (rename, *(f"{rename} {k}" for k in range(2, 12))) if look_key(n) not in others)
        close = rename is not None and live.row.status == "open" and nobody_waits(live.row.seats, seat)
        if sr.keys or name != sr.name or close:
            await self._set_seat(live, seat, replace(sr, keys=[], name=name), close=close)

    async def unname_seat(self, game_id: str, seat: int, name: str) -> None:
        """A seat not taken yet that bears ``name`` (given it by an invitation, withdrawn
        since: social.py) is unnamed again: each page says its default name."""

        def unnamed(now: SeatRow) -> SeatRow:
            return replace(now, name=UNNAMED) if not now.joined and look_key(now.name) == look_key(name) else now

        live = await self.fetch(game_id)
        sr = live.row.seats[seat]
        if live.row.status == "open" and unnamed(sr) is not sr:
            await self._set_seat(live, seat, unnamed)

    async def bar_seat(self, game_id: str, seat: int) -> None:
        """The seat as its account's suspension has it now (read from the database: the
        operator may have suspended, lifted or suspended again meanwhile): barred until the
        suspension ends (no token opens it, the connections holding it are told and
        closed: ws.py; at a turn-based or rated table the stand-in plays its turns at once:
        clocks.barred_turn, or, at a turn-based table without a clock, from now on), or no
        longer: at a turn-based table its turns wait for its person again (the stand-in the
        suspension brought stops)."""
        live = await self._operators_seat(game_id, seat)
        if live is None:
            return
        found = await asyncio.to_thread(self.storage.seat_suspended, game_id, seat, time.time())
        until = None if found is None else found[0]
        if live.row.seats[seat].barred != until:
            turn_based = live.options["mode"] == "turn"
            handed_back = until is None and turn_based
            # a turn-based table without a clock has no deadline to run out (clocks.barred_turn):
            # the stand-in takes the seat now
            taken = until is not None and turn_based and live.options["clock"] is None and live.row.status == "running"
            taken = taken and not live.row.seats[seat].standin
            await self._set_seat(live, seat, lambda sr: replace(sr, barred=until, standin=(sr.standin or taken) and not handed_back))
            if taken:
                self._notice(live, seat, "away")
            if handed_back and live.row.status == "running" and live.state.current == seat:
                self.turn_again(live, seat)  # (lifted before the stand-in took the turn)
        if until is not None and live.row.status == "running" and live.state.current == seat:
            await self.deadline_now(live, seat)  # a turn-based table does not wait a day for it (clocks.py)

    def summary(self, row: GameRow) -> dict[str, Any]:
        live = self.live.get(row.id)
        out: dict[str, Any] = {
            "id": row.id,
            "created": row.created,
            "status": row.status,
            "hotseat": row.hotseat,
            "board": row.board,
            "variants": list(row.variants),
            "table": options_of(row),
            "players": public_players(row) if live is None else public_players(live.row, live.present),
        }
        if live is not None:
            if live.row.status == "running":
                out["current"] = live.state.current  # whose turn ("My games")
                deadline = bot_deadline(live, live.state.current, self.now())
                if deadline is not None:
                    out["deadline"] = deadline  # when a bot plays their turn (Unix time, UTC): its clock's, or a stand-in's
            out["version"] = live.version
            out["scores"] = live.state.scores[:]
            out["winners"] = live.state.winners
        return out
