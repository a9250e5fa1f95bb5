"""The action pipeline: check an action in a fixed order, commit it to the database (with the
other games' writes waiting meanwhile: group commit), then tell everyone. It knows nothing of
chat, rematches or stand-ins: they listen to what changed (:meth:`Pipeline._changed`)."""

from __future__ import annotations

import asyncio
import logging
from typing import Any

from kardinal.rules.moves import Move, Place
from kardinal.rules.record import RecordError, action_of, move_of, rewind
from kardinal.rules.state import DRAW, RuleError

from ..common import metrics
from ..common.names import seat_name, storable
from ..common.refusal import Refused
from ..storage import (
    DuplicateAction,
    GameRow,
    PendingAction,
    PendingWrite,
    StorageError,
)
from .core import ServiceCore
from .live import LiveGame
from .messages import (
    AckMessage,
)

log = logging.getLogger("kardinal.web")


def _version_of(msg: dict[str, Any]) -> int:
    """The state version a message expects (the number of actions so far)."""
    version = msg.get("version")
    if not isinstance(version, int) or isinstance(version, bool):
        raise Refused("malformed", "'version' must be the number of actions so far", 400)
    return version


class Pipeline(ServiceCore):
    """Check, commit, tell: the action pipeline of a :class:`GameService`. (kardinal.server.play.service puts the parts together.)"""

    async def _sender(self, game_id: object, msg: dict[str, Any]) -> tuple[LiveGame, int]:
        """The game a message is for, and the seat whose secret token it carries."""
        live = await self.fetch(game_id)
        return live, self._auth(live, msg.get("seat"), msg.get("token"))

    @metrics.timed_action("action")
    async def submit(self, game_id: object, msg: Any) -> AckMessage:
        """Check and apply one action message from a person; returns the acknowledgement.

        ``msg``: ``{seat, token, version, id, action}`` where ``action`` is a
        kardinal-record action dict. Raises Refused (nothing changes then).
        """
        if not isinstance(msg, dict):
            raise Refused("malformed", "expected a JSON object", 400)
        client_id = msg.get("id")
        if client_id is not None and (not isinstance(client_id, str) or not 1 <= len(client_id) <= 100 or not storable(client_id)):
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
            name = seat_name(live.row.seats[st.current].name, st.current)
            raise Refused("not_your_turn", f"it is {name}'s turn", name=name)
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

    @metrics.timed_action("undo")
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
            await self._write(PendingAction(live.row.id, index, action_of(seat, move), client_id, status, reshuffle, after.current))
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
        live.check_conns()  # a seat's tokens changed: the connections of tokens of before get nothing more
        if live.leased and live.row.status == "finished":
            live.leased = False
            self.storage.release_lease(live.row.id)
        self._tell(live)
        for f in self.on_change:
            f(live)
        self.start_bots(live)
