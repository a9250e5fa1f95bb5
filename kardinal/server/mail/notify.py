"""The mails a game causes, for the accounts that asked for them (each kind off until
chosen on the account page): your turn in a turn-based game, an invitation, a game's end.

The game service knows nothing of mail: :class:`GameMail` listens to what changed
(``GameService.on_change``, after a change is committed) and queues the mail after it.
Each mail's queue key says what it is about, so that it is queued once however often the
change is seen (several processes, a restart):

- ``turn:<game>:<seat>:<n>``: the seat's turn came, after it had made ``n`` decisions: one
  mail until it has moved. Mailed when the turn passes to the seat (not after its own
  decision within its turn), in turn-based games (``options.mode == "turn"``) only, to a
  person's seat that nobody stands in for. While its person is at the table (the game open
  on a device, at this process or another), the mail waits: it goes if they leave with the
  turn still theirs, and not at all if they move first.
- ``end:<game>:<seat>``: the game is over, with the seat's result and the table's scores;
  not to a person who was at the table as it ended (they saw the final table there).
- ``invitation:<game>:<seat>:<account>``: :meth:`GameMail.notify_invited`, called by the
  code that invites an account by name, and for the people who were not at a turn-based
  table when "Play again" was pressed (:meth:`GameMail.notify_follow_up`: the new game
  keeps their seats for a turn's time, and without a mail they would find it only in My
  games).

A game is named by its other players, in the reader's language ("your game against Anna
and Ben"; an unnamed seat "Player 2" / "Spieler 2"), never in a subject (texts.py). A turn
mail of a game with a clock says when the turn's time runs out (clocks.seat_deadline), in
the time zone the reader's browser gave with the address (``notify["tz"]``), else in UTC,
and how long that is from now.

The same events are pushed (push.py) to the devices of the seat's account that chose that
kind, each under its mail's key and the device (``push:<mail key>:<subscription>``): a
push needs no mail address, and mail needs no device.

Each mail links to ``/mail#open=<game>.<seat>``: that page, signed in, gets the seat's
token through the session (``/api/account/seat``, as "My games" does), never from the
mail; not signed in, it asks to sign in first and then opens the seat.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..community.results import seat_results
from ..play.clocks import seat_deadline
from ..play.live import LiveGame
from ..play.options import options_of
from ..play.presence import at_table
from ..storage import GameRow
from ..storage.push import PushSubscription
from .mailer import Mailer
from .push import Pusher
from .texts import (
    begun_words,
    deadline_words,
    how_words,
    kind_words,
    ordinal,
    others_words,
    places_shown,
    push_left_words,
    rating_words,
    result_words,
    seat_label,
)

__all__ = ["GameMail"]

log = logging.getLogger("kardinal.mail")

TURN_DELAY = 2.0  # seconds after the turn came before its mail is queued
AT_TABLE_EVERY = 10.0  # seconds between looks at whether a person still at the table has left
MEMORY = 20_000  # games whose last mail this process remembers


def _open_path(game_id: str, seat: int) -> str:
    return f"/mail#open={game_id}.{seat}"


def _seats(row: GameRow) -> list[tuple[str, bool]]:
    """A game's seats as its mails name them: (the stored name, whether a bot's)."""
    return [(s.name, s.kind == "bot") for s in row.seats]


class GameMail:
    """Queues the game mails of one server process (``mailer``: e-mail on; ``now``: the
    time source of the tables' clocks, for the time left a turn mail says), and the same
    events' pushes (``pusher``: Web Push, push.py) to the devices that asked for them."""

    def __init__(self, mailer: Mailer, now: Callable[[], float] = time.time, pusher: Pusher | None = None) -> None:
        self.mailer = mailer
        self.pusher = pusher
        self.now = now
        self._told: dict[str, str] = {}  # game -> the last turn key looked at (a change seen again costs nothing)
        self._ended: set[str] = set()
        self.delay = TURN_DELAY
        self.at_table_every = AT_TABLE_EVERY
        self.held: set[tuple[str, int]] = set()  # (game, seat): a turn's mail waiting for its person to leave the table
        # a rated game's rating changes by seat, (before, after) rounded, once its ratings
        # are updated (community.settle.Settler.rating_changes: create_app sets it); None:
        # the end's mails say no rating
        self.ratings: Callable[[str], Awaitable[dict[int, tuple[int, int]]]] | None = None

    # -- listening to the games ------------------------------------------------------

    def on_change(self, live: LiveGame) -> None:
        """A game changed (committed): queue the turn's or the end's mail and pushes, after this."""
        if not self.mailer.enabled and not self.pushing:
            return
        row, st = live.row, live.state
        if row.hotseat:
            return
        gid = row.id
        if len(self._told) > MEMORY or len(self._ended) > MEMORY:  # only a shortcut: the queue's keys decide
            self._told.clear()
            self._ended.clear()
        if row.status == "finished" and st.is_over:
            if gid not in self._ended:
                self._ended.add(gid)
                self._told.pop(gid, None)
                try:
                    results = seat_results(st)
                except ValueError:
                    return
                people = [i for i, s in enumerate(row.seats) if s.kind == "person" and not at_table(live, i)]
                table = [(r.seat, r.score, r.place, r.win) for r in results]
                self.mailer.later(self._end(gid, people, _seats(row), table, row.created, options_of(row)["rated"]))
            return
        if row.status != "running" or options_of(row).get("mode") != "turn":
            return
        seat = st.current
        hist = st.history or []
        if seat is None or not 0 <= seat < len(row.seats):
            return
        s = row.seats[seat]
        if s.kind != "person" or s.standin or s.barred_now(time.time()) or (hist and hist[-1].seat == seat):
            # a bot's, stood in for, suspended (the stand-in plays it at once: clocks.barred_turn;
            # the seat would not open), or the seat's own decision within its turn
            return
        key = self.turn_key(live, seat)
        if self._told.get(gid) == key:
            return
        self._told[gid] = key
        self.mailer.later(self._turn(live, seat, key))

    @property
    def pushing(self) -> bool:
        return self.pusher is not None and self.pusher.enabled

    async def _push(
        self,
        gid: str,
        kind: str,
        devices: Callable[[Pusher], dict[int, list[PushSubscription]]],
        event: Callable[[int], str],
        params: Callable[[int, str], dict[str, Any]],
    ) -> bool:
        """Queue the pushes of ``kind`` to the devices that want it (``devices``: by seat,
        read in a thread; ``event``: a seat's mail key; ``params``: a seat's words in a
        language). Returns whether one was queued now; never raises (logged)."""
        pusher = self.pusher
        if pusher is None or not pusher.enabled:
            return False
        try:
            found = await asyncio.to_thread(devices, pusher)
            pushes = [
                pusher.message(event(seat), sub, kind, params(seat, sub.lang), gid, seat)
                for seat, subs in sorted(found.items())
                for sub in subs
                if kind in sub.kinds
            ]
            if not pushes or not await asyncio.to_thread(pusher.queue, pushes):
                return False
            log.info("game %s: %s pushes queued", gid, kind)
            pusher.wake()
            return True
        except Exception as e:  # noqa: BLE001 - the game goes on; its push is the one thing lost
            log.error("game %s: the %s pushes could not be queued (%s)", gid, kind, type(e).__name__)
            return False

    @staticmethod
    def _seats_devices(gid: str, seats: list[int]) -> Callable[[Pusher], dict[int, list[PushSubscription]]]:
        return lambda p: {seat: subs for seat, (_aid, subs) in p.storage.push_wishes(gid, seats).items()}

    @staticmethod
    def turn_key(live: LiveGame, seat: int) -> str:
        hist = live.state.history or []
        return f"turn:{live.row.id}:{seat}:{sum(1 for d in hist if d.seat == seat)}"

    async def _turn(self, live: LiveGame, seat: int, key: str) -> None:
        gid = live.row.id
        try:
            # a moment first: the seat taken by this change becomes its account's right after
            # it (routes.py), and a player who moves at once gets no mail
            await asyncio.sleep(self.delay)
            if not await self._left_with_turn(live, seat, key):
                return
            seats = _seats(live.row)
            deadline = seat_deadline(live, seat)
            await self._push(
                gid,
                "turn",
                self._seats_devices(gid, [seat]),
                lambda _s: key,
                lambda s, lang: {"others": others_words(seats, s, lang), "deadline": push_left_words(deadline, self.now(), lang)},
            )
            if not self.mailer.enabled:
                return
            wishes = await asyncio.to_thread(self.mailer.storage.mail_wishes, gid, [seat])
            if seat not in wishes:
                return
            aid, name, email, notify = wishes[seat]
            if notify.get("turn") is not True:
                return
            lang = str(notify.get("lang", "en"))
            zone = notify.get("tz")
            mail = self.mailer._mail(
                key,
                aid,
                "turn",
                email,
                lang,
                {
                    "name": name,
                    "others": others_words(_seats(live.row), seat, lang),
                    "deadline": deadline_words(seat_deadline(live, seat), self.now(), lang, zone if isinstance(zone, str) else None),
                    "begun": begun_words(live.row.created, lang, zone if isinstance(zone, str) else None),
                    "link": self.mailer.link(_open_path(gid, seat)),
                    "_key": notify.get("key", ""),
                },
                unsubscribe=True,
            )
            if await asyncio.to_thread(self.mailer.queue, mail):
                log.info("game %s: the turn mail of seat %d queued", gid, seat)
                self.mailer.wake()
        except Exception as e:  # noqa: BLE001 - the game goes on; its mail is the one thing lost
            log.error("game %s: the turn mail could not be queued (%s)", gid, type(e).__name__)

    async def _left_with_turn(self, live: LiveGame, seat: int, key: str) -> bool:
        """Whether the turn ``key`` is still the seat's once its person is not at the table
        (waits while they are: the page tells them; a mail would say what they see)."""
        try:
            while True:
                if live.state.current != seat or self.turn_key(live, seat) != key or live.row.status != "running":
                    return False
                if not at_table(live, seat):
                    return True
                self.held.add((live.row.id, seat))
                await asyncio.sleep(self.at_table_every)
        finally:
            self.held.discard((live.row.id, seat))

    async def _end(
        self,
        gid: str,
        people: list[int],
        seats: list[tuple[str, bool]],
        table: list[tuple[int, int, float, float]],
        begun: float,
        rated: bool = False,
    ) -> None:
        # the places as the final table shows them: seats tied share the best of theirs
        shown = dict(zip((t[0] for t in table), places_shown([t[2] for t in table])))
        # a rated game's new ratings, once updated (a mail without them if that fails)
        changes: dict[int, tuple[int, int]] = {}
        if rated and self.ratings is not None:
            try:
                changes = await self.ratings(gid)
            except Exception as e:  # noqa: BLE001
                log.error("game %s: the end's mails go without the ratings (%s)", gid, type(e).__name__)

        def you(seat: int, lang: str) -> str:
            _, score, place, win = next(t for t in table if t[0] == seat)
            words = result_words(lang, shown[seat], score, win, sum(1 for t in table if t[2] == place) > 1)
            return f"{words} {rating_words(lang, *changes[seat])}" if seat in changes else words

        await self._push(
            gid,
            "end",
            self._seats_devices(gid, people),
            lambda s: f"end:{gid}:{s}",
            lambda s, lang: {"others": others_words(seats, s, lang), "you": you(s, lang)},
        )
        if not self.mailer.enabled:
            return
        try:
            wishes = await asyncio.to_thread(self.mailer.storage.mail_wishes, gid, people)
            queued = False
            for seat, (aid, name, email, notify) in sorted(wishes.items()):
                if notify.get("end") is not True:
                    continue
                lang = str(notify.get("lang", "en"))
                named = [(seat_label(seats[i][0], i, seats[i][1], lang), sc, shown[i]) for i, sc, _p, _w in table]
                lines = "\n".join(f"{ordinal(p, lang)}  {n}: {sc}" for n, sc, p in sorted(named, key=lambda t: (t[2], t[0])))
                mail = self.mailer._mail(
                    f"end:{gid}:{seat}",
                    aid,
                    "end",
                    email,
                    lang,
                    {
                        "name": name,
                        "others": others_words(seats, seat, lang),
                        "you": you(seat, lang),
                        "begun": begun_words(begun, lang, notify.get("tz") if isinstance(notify.get("tz"), str) else None),
                        "table": lines,
                        "link": self.mailer.link(_open_path(gid, seat)),
                        "_key": notify.get("key", ""),
                    },
                    unsubscribe=True,
                )
                queued = await asyncio.to_thread(self.mailer.queue, mail) or queued
            if queued:
                log.info("game %s: the end's mails queued", gid)
                self.mailer.wake()
        except Exception as e:  # noqa: BLE001
            log.error("game %s: the end's mails could not be queued (%s)", gid, type(e).__name__)

    # -- the hook for invitations ----------------------------------------------------

    async def notify_invited(self, account_id: int, game_id: str, seat: int, inviter_name: str) -> bool:
        """An account was invited to a seat of a game by name: mail it if it asked for
        invitations (a confirmed address, ``notify.invitation``). Once per (game, seat,
        account). Returns whether a mail was queued now. Call it after the invitation is
        stored; it never raises for a mail it cannot queue (logged). The account's devices
        that want invitations get a push of it."""
        await self._push_invited(account_id, game_id, seat, inviter_name)
        if not self.mailer.enabled:
            return False
        try:
            found = await asyncio.to_thread(self.mailer.storage.mail_address, account_id)
            row = await asyncio.to_thread(self.mailer.storage.account_row, account_id)
            if found is None or row is None or not found.email or not found.confirmed or found.notify.get("invitation") is not True:
                return False
            game = await asyncio.to_thread(self.mailer.storage.get_game, game_id)
            if game is None or not 0 <= seat < len(game.seats):
                return False
            notify: dict[str, Any] = found.notify
            lang = str(notify.get("lang", "en"))
            mail = self.mailer._mail(
                f"invitation:{game_id}:{seat}:{account_id}",
                account_id,
                "invitation",
                found.email,
                lang,
                {
                    "name": row.name,
                    "inviter": inviter_name,
                    "others": others_words(_seats(game), seat, lang),
                    "how": how_words(game.options, lang),
                    "kind": kind_words(game.options, lang),
                    "begun": begun_words(game.created, lang, notify.get("tz") if isinstance(notify.get("tz"), str) else None),
                    "link": self.mailer.link(_open_path(game_id, seat)),
                    "_key": notify.get("key", ""),
                },
                unsubscribe=True,
            )
            done = await asyncio.to_thread(self.mailer.queue, mail)
            if done:
                self.mailer.wake()
            return done
        except Exception as e:  # noqa: BLE001
            log.error("game %s: the invitation's mail could not be queued (%s)", game_id, type(e).__name__)
            return False

    async def notify_follow_up(self, game_id: str, new_id: str, follows: dict[int, int], asking: list[int]) -> int:
        """ "Play again" pressed at a turn-based table, by the press that made the new game:
        each account of the new game's seats whose person did not ask for it (was not at the
        table then) is told of the new game as of an invitation by the one who asked
        (:meth:`notify_invited`: if the account wants invitations; once per seat of the new
        game). A live table's people are at the table, and a seat not taken is a bot's
        within minutes: no mail. Returns how many mails were queued now."""
        storage = self.mailer.storage
        new = await asyncio.to_thread(storage.get_game, new_id)
        if new is None or new.status != "open" or options_of(new).get("mode") != "turn" or not asking:
            return 0
        owners = await asyncio.to_thread(storage.game_owners, new_id)
        there = {follows[s] for s in asking if s in follows}
        if not set(owners) - there:
            return 0
        # the one who asked, by their account's name (their seat's name at a table of guests)
        first = follows.get(min(asking))
        if first is None:
            return 0
        account = await asyncio.to_thread(storage.account_row, owners[first]) if first in owners else None
        inviter = account.name if account is not None else new.seats[first].name
        if not inviter.strip():
            return 0  # a guest's seat without a name: no name to invite by
        queued = 0
        for seat, aid in sorted(owners.items()):
            if seat not in there and not new.seats[seat].joined and (account is None or aid != account.id):
                queued += await self.notify_invited(aid, new_id, seat, inviter)
        return queued

    async def _push_invited(self, account_id: int, game_id: str, seat: int, inviter_name: str) -> bool:
        if not self.pushing:
            return False
        game = await asyncio.to_thread(self.mailer.storage.get_game, game_id)
        if game is None or not 0 <= seat < len(game.seats):
            return False
        seats = _seats(game)
        return await self._push(
            game_id,
            "invitation",
            lambda p: {seat: p.storage.push_subscriptions_of(account_id)},
            lambda s: f"invitation:{game_id}:{s}:{account_id}",
            lambda s, lang: {"inviter": inviter_name, "others": others_words(seats, s, lang)},
        )
