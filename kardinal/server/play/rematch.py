""" "Play again": after a finished game, one new game with the same people, the start player
moved on one seat, however many press it and on however many processes (the link is claimed
in the database)."""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Callable
from dataclasses import replace

from ..common.refusal import Refused, suspended
from ..storage import SeatRow
from .core import ServiceCore
from .live import LiveGame
from .tables import FollowedAlready, seat_number

log = logging.getLogger("kardinal.web")


def rotated(seats: list[SeatRow]) -> list[SeatRow]:
    """The seats of the next game: the start player moves on one seat (new seat i is old
    seat i + 1; the old seat 0 goes last)."""
    return seats[1:] + seats[:1]


def moved(old: list[SeatRow], new: list[SeatRow]) -> dict[int, int]:
    """Where each person of the old game sits in its follow-up: ``{old seat: new seat}``,
    found by the seat's token hash (the same in both), so it holds for any follow-up, also
    one made before the start player moved on (the same seats then)."""
    where = {s.token_hash: i for i, s in enumerate(new) if s.kind == "person" and s.token_hash is not None}
    return {i: where[s.token_hash] for i, s in enumerate(old) if s.kind == "person" and s.token_hash in where}


class Rematch(ServiceCore):
    """ "Play again" for a :class:`GameService`. (kardinal.server.play.service puts the parts together.)"""

    async def followed_up(self, game_id: str, new_id: str, follows: dict[int, int], asking: list[int]) -> None:
        """Tell the listeners (``on_follow_up``) of a follow-up whose seats are its accounts'
        now; one that fails is logged, and fails nothing else."""
        for tell in self.on_follow_up:
            try:
                await tell(game_id, new_id, follows, asking)
            except Exception:  # noqa: BLE001 - a mail that cannot be queued does not undo the game
                log.exception("game %s: telling of its follow-up failed", game_id)

    async def again(
        self,
        game_id: str,
        seats: dict[int, str] | None,
        creator: str | None = None,
        charge: Callable[[], None] | None = None,
    ) -> LiveGame:
        """Play again: after a finished game, a new one with the same players: the same names,
        bots of the same levels, the same board, variants and hot-seat, and the start player
        moved on one seat (R2.3: seat 0 begins): the old seat 1 is the new seat 0, the old
        seat 0 the new last seat (:func:`rotated`).

        The people keep their seat tokens (each new seat takes the token hash of the old
        seat it came from), so every page follows with the token it already holds, for the
        seat :meth:`moved` names; the old game's state messages name the new one (``again``). Only a person of the game may ask (``seats``:
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
        barred: dict[int, tuple[float, str]] = {}  # {seat: (until, why)}
        if any(s.kind == "person" for s in live.row.seats):
            if not isinstance(seats, dict) or not seats:
                raise Refused("bad_token", "no such seat, or a wrong token", 403)
            asking = [self._auth(live, seat_number(k), tok) for k, tok in seats.items()]
            # the seats of suspended accounts (a finished game's seats are not barred): they
            # may not ask, and their seats in the new game are barred until the suspension ends
            barred = await asyncio.to_thread(self.storage.suspended_seats, live.row.id, time.time())
            for seat in asking:
                if seat in barred:
                    raise suspended(*barred[seat], self.contact)
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
            seats_now = rotated([replace(s, barred=barred[i][0]) if i in barred else s for i, s in enumerate(live.row.seats)])
            spec = {
                "players": [{"name": s.name, "kind": s.kind, "level": s.level} if s.kind == "bot" else {"name": s.name} for s in seats_now],
                "hotseat": live.row.hotseat,
                "board": live.row.board,
                "variants": list(live.row.variants),
                **live.options,
            }
            try:
                new, _ = await self._create(spec, creator, charge, same_as=seats_now, follows=(live.row.id, broken))
            except FollowedAlready as e:  # another process's press was first: its game
                if e.game_id is None:
                    raise Refused("no_game", f"there is no game {game_id!r}", 404) from None
                live.again = e.game_id
                self._changed(live)
                return await self.fetch(e.game_id)
            live.again = new.row.id
        self._changed(live)
        return new
