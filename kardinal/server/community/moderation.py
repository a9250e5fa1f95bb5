"""Moderation: a player muted or blocked by an account, a chat line reported, and the
operator's actions (``kardinal admin``: suspend, delete, a new password; kardinal.server.community.admin).

- **Mute** hides a player's chat lines from the account that muted them, in every game and
  on every device (a seat without an account is muted by the browser alone, in that game).
- **Block** hides their chat too, and keeps the two apart: no invitation by name between
  them, and "find me a table" does not seat them together (``blocked_between``).
- **Report** stores a chat line with the lines around it as they were then, the writer's
  account if the seat had one, and who reported it; the operator reads and acts on reports
  with ``kardinal admin``. Reporting needs an account or a seat at the table (a
  spectator without either cannot report), and is rate-limited per address.
- A **suspended** account cannot sign in, its sessions open nothing (they are kept: their
  holder is told why, and they work again when the suspension ends), and neither do its
  seats: no token opens them until then (a link, a device's key, a page open at the time:
  SeatRow.barred, checked with every token), so they cannot move or chat; its games go
  on, a stand-in playing for it as for anyone away (at a turn-based or rated table on each
  of its turns at once: clocks.barred_turn; lifted, a turn-based table's turns wait for
  its person again: GameService.bar_seat). Its seats in a "Play again" game
  made meanwhile are barred as well.

What the operator does that changes the seats of games (a deleted account's seats renamed,
its devices' tokens ended, a suspended account's seats barred) is done by the running server, which may hold those games in
memory: the operator's command stores it in the audit log as pending, and every server
process looks for pending work every few seconds (:meth:`Moderation.apply_pending`).
"""

from __future__ import annotations

import asyncio
import logging
import time
from typing import Any

from ..common.guard import Guard
from ..common.names import seat_name
from ..common.periodic import ticks
from ..common.refusal import Refused, no_player
from ..play.service import GameService
from ..storage import AccountRow, Storage
from ..storage.moderation import Report
from .accounts import DELETED
from .privacy import told_owners

__all__ = ["Moderation", "MAX_REASON", "APPLY_EVERY"]

log = logging.getLogger("kardinal.web")

MAX_REASON = 500  # characters of a report's reason
APPLY_EVERY = 5.0  # seconds between a server's looks for the operator's pending work


class Moderation:
    def __init__(self, storage: Storage, service: GameService, guard: Guard) -> None:
        self.storage = storage
        self.service = service
        self.guard = guard

    async def _owner(self, me: AccountRow, game_id: str, seat: int) -> int | None:
        """The account of a person seat, as far as the game tells ``me`` (privacy.py: of a
        game not listed in the lobby, none but its own)."""
        live = await self.service.fetch(game_id)
        if not 0 <= seat < len(live.row.seats) or live.row.seats[seat].kind != "person":
            raise Refused("malformed", "no such person seat", 400)
        owner = await asyncio.to_thread(self.storage.seat_owner, game_id, seat)
        return told_owners(live.row.options, {seat: owner} if owner is not None else {}, me.id).get(seat)

    async def _named(self, name: str) -> AccountRow:
        account = await asyncio.to_thread(self.storage.account_named, name)
        if account is None:
            raise no_player(name)
        return account

    async def _other(self, me: AccountRow, game: str | None, seat: int | None, name: str | None) -> int | None:
        """The account meant by a seat of a game or by a name; None for a seat without one."""
        if name is not None:
            other: int | None = (await self._named(name)).id
        elif game is not None and seat is not None:
            other = await self._owner(me, game, seat)
        else:
            raise Refused("malformed", "name a player: 'name', or 'game' and 'seat'", 400)
        if other == me.id:
            raise Refused("not_yourself", "that is you", 400)
        return other

    async def mute(self, me: AccountRow, on: bool, game: str | None = None, seat: int | None = None, name: str | None = None) -> str:
        """Mute (or unmute) a player for this account; "account" if the player has one (it
        holds everywhere), "game" if the seat has none (the browser keeps it for that game)."""
        other = await self._other(me, game, seat, name)
        if other is None:
            return "game"
        await asyncio.to_thread(self.storage.set_mute, me.id, other, on, time.time())
        return "account"

    async def block(self, me: AccountRow, on: bool, game: str | None = None, seat: int | None = None, name: str | None = None) -> str:
        """Block (or unblock) a player: as mute, and no invitations or tables together."""
        other = await self._other(me, game, seat, name)
        if other is None:
            return "game"
        await asyncio.to_thread(self.storage.set_block, me.id, other, on, time.time())
        return "account"

    async def silenced(self, me: AccountRow, game_id: str) -> dict[str, list[int]]:
        """The seats of a game whose chat this account does not want to read (``seats``),
        and of them those it muted and those it blocked (a seat may be both); of a game not
        listed in the lobby, none: its seats' accounts are not told, privacy.py."""
        muted, blocked = await asyncio.to_thread(self.storage.silenced_seats, me.id, game_id)
        if not muted and not blocked:
            return {"seats": [], "muted": [], "blocked": []}
        live = await self.service.fetch(game_id)
        owners = await asyncio.to_thread(self.storage.game_owners, game_id)
        told = told_owners(live.row.options, {s: owners[s] for s in {*muted, *blocked} if s in owners}, me.id)
        muted, blocked = [s for s in muted if s in told], [s for s in blocked if s in told]
        return {"seats": sorted({*muted, *blocked}), "muted": muted, "blocked": blocked}

    async def lists(self, me: AccountRow) -> dict[str, list[dict[str, Any]]]:
        muted, blocked = await asyncio.to_thread(self.storage.muted_and_blocked, me.id)
        return {"muted": [{"name": n} for _, n in muted], "blocked": [{"name": n} for _, n in blocked]}

    async def report(self, reporter: AccountRow | None, seats: dict[int, str], game_id: str, line: int, reason: str, where: str) -> Report:
        """Report a chat line of a game: by an account, or by a player of the game (``seats``
        it holds, checked); its reason in a few words."""
        live = await self.service.fetch(game_id)
        for seat, token in seats.items():
            self.service._auth(live, seat, token)
        if reporter is None and not seats:
            raise Refused("signed_out", "sign in, or take your seat, to report a line", 401)
        reason = " ".join(reason.split())
        if not reason or len(reason) > MAX_REASON:
            raise Refused("bad_report", f"say in a few words what is wrong (at most {MAX_REASON} characters)", 400, max=MAX_REASON)
        self.guard.spend("report", where)
        name = reporter.name if reporter is not None else seat_name(live.row.seats[min(seats)].name, min(seats))
        found = await asyncio.to_thread(
            self.storage.add_report, reporter.id if reporter is not None else None, name, game_id, line, reason, time.time()
        )
        if found is None:
            raise Refused("no_line", "there is no such line in this game's chat", 404)
        log.info("report %d: a chat line of game %s", found.id, game_id)  # never its text or who
        return found

    async def apply_pending(self) -> int:
        """Do the operator's pending work on games' seats (see the module); returns how many
        entries this process finished."""
        done = 0
        for entry in await asyncio.to_thread(self.storage.audit_log, 100, True):
            rename = DELETED if entry.action == "delete" else None
            for gid, seat in entry.detail.get("seats", []):
                if entry.action in ("suspend", "unsuspend"):
                    await self.service.bar_seat(str(gid), int(seat))
                else:
                    await self.service.drop_seat_keys(str(gid), int(seat), rename=rename)
            if await asyncio.to_thread(self.storage.audit_done, entry.id):
                done += 1
        return done

    async def keep_applying(self, stop: asyncio.Event, every: float = APPLY_EVERY) -> None:
        """Look for the operator's pending work at once and then every ``every`` seconds,
        until ``stop`` (a server's task)."""
        await self._apply_logged()
        async for _ in ticks(stop, every):
            await self._apply_logged()

    async def _apply_logged(self) -> None:
        try:
            await self.apply_pending()
        except Exception:  # the database away for a moment: the next look tries again
            log.exception("the operator's pending work could not be done now")
