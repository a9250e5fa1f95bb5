"""A game's chat: lines said by players (and spectators where the table allows), notices to
the table (a stand-in plays, a person is back), kept in the database and told to everyone."""

from __future__ import annotations

import asyncio
import logging
import time
import unicodedata

from ..common.names import BAD_IN_NAME, UNNAMED, check_name_free, clean_name
from ..common.refusal import Refused, suspended
from ..storage import (
    ChatLine,
    StorageError,
)
from .core import ServiceCore
from .live import LiveGame
from .messages import (
    ChatMessage,
)

log = logging.getLogger("kardinal.web")

MAX_CHAT = 300  # characters in a chat line
CHAT_KEPT = 500  # chat lines a game keeps in memory and sends to a new connection


def chat_message(lines: list[ChatLine]) -> ChatMessage:
    return {
        "type": "chat",
        "lines": [
            {"idx": x.idx, "at": x.at, "version": x.version, "seat": x.seat, "kind": x.kind, "name": x.name, "text": x.text} for x in lines
        ],
    }


class Chat(ServiceCore):
    """The chat of a :class:`GameService`'s games. (kardinal.server.play.service puts the parts together.)"""

    def _notice(self, live: LiveGame, seat: int, kind: str) -> None:
        """A notice to the table, kept in the chat: ``away`` (a bot plays for the person
        of ``seat``), ``back`` (they took their seat back), ``timeout`` and ``timeout_away``
        (their time ran out: kardinal.server.play.clocks)."""
        text = live.options["standin"] if kind in ("away", "timeout", "timeout_away") else ""
        asyncio.get_running_loop().create_task(self._add_line(live, seat, kind, live.row.seats[seat].name, text))

    async def chat_lines(self, live: LiveGame) -> list[ChatLine]:
        """A game's chat (the last CHAT_KEPT lines), read once from the database."""
        if live.chat is None:
            lines = await asyncio.to_thread(self.storage.chat_from, live.row.id, 0)
            if live.chat is None:
                live.chat = lines[-CHAT_KEPT:]
                live.chat_seen = lines[-1].idx + 1 if lines else 0
        return live.chat

    async def say(self, game_id: str, seats: dict[int, str], text: object, name: object = None) -> ChatLine:
        """A line in the game's chat from a connection holding ``seats`` (none: a
        spectator, who may write only if the table allows it; ``name`` is theirs)."""
        live = await self.fetch(game_id)
        if not isinstance(text, str):
            raise Refused("malformed", "'text' must be text", 400)
        text = unicodedata.normalize("NFC", " ".join(text.split()))
        if any(unicodedata.category(ch) in BAD_IN_NAME for ch in text):
            text = "".join(ch for ch in text if unicodedata.category(ch) not in BAD_IN_NAME)
        if not text:
            raise Refused("bad_chat", "say something", 400, max=MAX_CHAT)
        if len(text) > MAX_CHAT:
            raise Refused("bad_chat", f"a chat line has at most {MAX_CHAT} characters", 400, max=MAX_CHAT)
        if seats:
            seat: int | None = live.state.current if live.state.current in seats else min(seats)
            assert seat is not None
            who = live.row.seats[seat].name
            found = await asyncio.to_thread(self.storage.seat_suspended, live.row.id, seat, time.time())
            if found is not None:  # its account is suspended by the operator (kardinal admin)
                raise suspended(*found, self.contact)
        else:
            if not live.options["spectator_chat"]:
                raise Refused("chat_closed", "spectators may read the chat; the players have not opened it to them", 403)
            seat, who = None, clean_name(name, UNNAMED)  # no name given: each page says "a spectator" in its language
            check_name_free(live.row.seats, who)  # a spectator's line never looks like a player's
        return await self._add_line(live, seat, "say", who, text)

    async def _add_line(self, live: LiveGame, seat: int | None, kind: str, name: str, text: str) -> ChatLine:
        await self.chat_lines(live)
        try:
            line = await asyncio.to_thread(self.storage.add_chat, live.row.id, live.version, seat, kind, name, text)
        except StorageError as e:
            log.error("game %s: %s", live.row.id, e)
            raise Refused("unavailable", "the line could not be saved", 503) from None
        self._heard(live, [line])
        return line

    def _heard(self, live: LiveGame, lines: list[ChatLine]) -> None:
        """New chat lines (said here, or read from the database): to everyone connected."""
        assert live.chat is not None
        new = [ln for ln in lines if ln.idx >= live.chat_seen]
        if not new:
            return
        live.chat.extend(new)
        del live.chat[:-CHAT_KEPT]
        live.chat_seen = new[-1].idx + 1
        msg = chat_message(new)
        for c in list(live.conns):
            c.outbox.put_nowait(msg)
