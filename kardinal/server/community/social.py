"""Players among themselves: profiles, following, invitations by name, tables open to
friends only. No web code here (social_routes.py is the HTTP side).

A profile shows only what is public: the account's name and since when, its finished
games in numbers (from the stored results: an aggregate, never a replay of its games but
for a few finished before results were stored, filled in once, FILL a view), its rating and
the rating's history, and its last games with a link to watch or replay them. A table not
listed in the lobby (``public: false``) is reached only through its links: it shows on a
profile to that account alone (their numbers count it, without naming it): privacy.py.

Following is one way (as on lichess): an account's friends are the accounts it follows. A
table "friends only" (``friends``) lets only the accounts its host follows take its open
seats, and is listed while open to them only (to the others it is not there at all: a
stranger learns nothing of a friends' table).

An invitation by name keeps a person seat of a new table for an account (the
``invitations`` row): it shows in that account's "My games", which takes it through the
session (the seat becomes the account's, and its device gets a token in an answer, never
in an address), and so does the link of the invitation's mail (``/api/account/seat``,
which takes a seat kept for the account); no other account can make the seat its own
meanwhile (Accounts.attach).
Until then the seat's link works as it always did; once the seat is an account's (taken
through "My games", or its link opened signed in), the seat has a new token and the link
opens it no more (Accounts.own): the inviter cannot play or see it.
"""

from __future__ import annotations

import asyncio
import json
import logging
import time
from collections.abc import Awaitable, Callable
from typing import Any

from ..common.guard import Guard
from ..common.refusal import Refused, no_player
from ..play.service import GameService
from ..storage import AccountRow, GameRow, Storage
from ..storage.social import MAX_FOLLOWS
from .privacy import listed, told_owners
from .rated import one_seat
from .results import stored_results

log = logging.getLogger("kardinal.web")

__all__ = ["Social", "LAST", "FILL", "HISTORY"]

LAST = 20  # the last games a profile lists
FILL = 20  # finished games without stored results filled in (replayed once) per profile view
HISTORY = 200  # the rated games the chart shows, at most
PAGE = 50  # the account's seats read at a time for its last games ...
PAGES = 4  # ... at most this many times a view


class Social:
    def __init__(self, storage: Storage, service: GameService, guard: Guard) -> None:
        self.storage = storage
        self.service = service
        self.guard = guard
        # called with (account id, game, seat, inviter's name) after an invitation is stored
        # (the invitation mail: mail.GameMail.notify_invited); a listener never fails the invitation
        self.on_invited: list[Callable[[int, str, int, str], Awaitable[object]]] = []

    async def account(self, name: str) -> AccountRow:
        """The account of a name (as accounts match names: names.account_keys); Refused ``no_player``."""
        found = await asyncio.to_thread(self.storage.account_named, name) if len(name) <= 100 else None
        if found is None:
            raise no_player(name)
        return found

    # -- profiles ----------------------------------------------------------------------

    async def profile(self, name: str, viewer: AccountRow | None) -> dict[str, Any]:
        account = await self.account(name)
        aid = account.id
        unscored = await asyncio.to_thread(self.storage.profile_unscored, aid, FILL)
        if unscored:
            await stored_results(self.service, unscored)
        totals = await asyncio.to_thread(self.storage.profile_totals, aid)
        rating = await asyncio.to_thread(self.storage.profile_rating, aid)
        history = await asyncio.to_thread(self.storage.profile_history, aid, HISTORY)
        follows, followers = await asyncio.to_thread(self.storage.follow_counts, aid)
        me = viewer is not None and viewer.id == aid
        following = viewer is not None and not me and await asyncio.to_thread(self.storage.is_following, viewer.id, aid)
        return {
            "name": account.name,
            "since": account.created,
            "games": sum(int(t["games"]) for t in totals),
            "wins": sum(t["wins"] for t in totals),
            "by_players": totals,
            "rating": None if rating is None else {"mu": rating[0], "sigma": rating[1], "games": rating[2]},
            "history": [{"at": at, "mu": mu, "sigma": sigma} for at, mu, sigma, _g in history],
            "last": await self._last_games(aid, viewer),
            "follows": follows,
            "followers": followers,
            "me": me,
            "following": following,
        }

    async def _last_games(self, aid: int, viewer: AccountRow | None) -> list[dict[str, Any]]:
        """The account's last LAST games, newest first: finished (to replay) and under way
        (to watch); of those not listed in the lobby, those the viewer may be told of
        (privacy.py: only to the account itself)."""
        out: list[dict[str, Any]] = []
        seen: set[str] = set()
        for page in range(PAGES):
            rows = await asyncio.to_thread(self.storage.profile_seats, aid, PAGE, page * PAGE)
            for r in rows:
                if r["status"] not in ("finished", "running", "open") or r["game_id"] in seen:
                    continue  # expired: never played to its end; a hot-seat game's other seats
                seen.add(r["game_id"])
                try:
                    options, seats = json.loads(r["options"]), json.loads(r["seats"])
                except ValueError:
                    continue
                if not told_owners(options, {int(r["seat"]): aid}, viewer.id if viewer is not None else None):
                    continue
                names = [str(s.get("name", "")) for s in seats]
                g: dict[str, Any] = {
                    "game": str(r["game_id"]),
                    "status": r["status"],
                    "at": float(r["updated"] if r["status"] == "finished" else r["created"]),
                    "seat": int(r["seat"]),
                    "name": names[r["seat"]] if r["seat"] < len(names) else "",
                    "players": names,
                    "public": listed(options),
                }
                if r["place"] is not None:
                    g.update(place=float(r["place"]), score=int(r["score"]), win=float(r["win"]), of=int(r["players"]))
                out.append(g)
                if len(out) >= LAST:
                    return out
            if len(rows) < PAGE:
                break
        return out

    # -- following ---------------------------------------------------------------------

    async def follow(self, me: AccountRow, name: str, on: bool) -> tuple[str, bool]:
        """Follow the account of ``name`` (``on``), or stop: its name as shown, and whether
        ``me`` follows it now."""
        self.guard.spend("follow", str(me.id))
        target = await self.account(name)
        if target.id == me.id:
            raise Refused("follow_self", "you cannot follow yourself", 400)
        if not on:
            await asyncio.to_thread(self.storage.unfollow, me.id, target.id)
            return target.name, False
        count, _ = await asyncio.to_thread(self.storage.follow_counts, me.id)
        if count >= MAX_FOLLOWS:
            raise Refused("too_many_follows", f"you follow {MAX_FOLLOWS} players already", 409, max=MAX_FOLLOWS)
        await asyncio.to_thread(self.storage.follow, me.id, target.id, time.time())
        return target.name, True

    async def follow_lists(self, me: AccountRow) -> dict[str, Any]:
        following = await asyncio.to_thread(self.storage.following, me.id)
        followers = await asyncio.to_thread(self.storage.followers, me.id)
        return {
            "following": [{"name": n, "since": t} for n, t in following],
            "followers": [{"name": n, "since": t} for n, t in followers],
        }

    # -- tables open to friends only -----------------------------------------------------

    async def check_claim(self, game_id: str, account: AccountRow | None) -> None:
        """Refused ``friends_only`` when the table's open seats are for its host's friends
        and ``account`` is none of them (nor the host); ``blocked_table`` when an account at
        the table has blocked ``account`` or is blocked by it, without saying which (a block
        keeps the two apart: no table together, taken from the lobby either; the fourth
        new-user walk found the lobby's Join seating them together)."""
        row = (await self.service.fetch(game_id)).row
        if account is not None:
            owners = [a for a in (await asyncio.to_thread(self.storage.game_owners, game_id)).values() if a != account.id]
            blocked: bool = bool(owners) and await asyncio.to_thread(self.storage.blocked_between, [account.id], owners)
            if blocked:
                raise Refused("blocked_table", "a block is between you and someone at this table: take a seat at another table", 409)
        if row.options.get("friends") is not True:
            return
        host = row.options.get("host")
        if account is not None and (account.id == host or (isinstance(host, int) and host in await self._followed_by(account, [host]))):
            return
        raise Refused("friends_only", "only players the table's host follows may take its seats", 403)

    async def _followed_by(self, account: AccountRow, hosts: list[int]) -> set[int]:
        return await asyncio.to_thread(self.storage.followed_by, account.id, hosts)

    async def lobby(self, rows: list[GameRow], viewer: Callable[[], Awaitable[AccountRow | None]]) -> list[GameRow]:
        """The lobby's games as the asking account (``viewer()``, asked only when an open
        friends-only table is among them) sees them: such a table only for its host and
        those the host follows (one query, for the hosts of the tables listed)."""
        hosts = {
            r.options["host"]
            for r in rows
            if r.status == "open" and r.options.get("friends") is True and isinstance(r.options.get("host"), int)
        }
        if not hosts:
            return rows
        me = await viewer()
        ok = set() if me is None else {me.id} | await self._followed_by(me, sorted(hosts))
        return [r for r in rows if not (r.status == "open" and r.options.get("friends") is True) or r.options.get("host") in ok]

    # -- invitations by name ---------------------------------------------------------------

    async def invitees(self, inviter: AccountRow | None, players: list[dict[str, Any]], hotseat: bool) -> dict[int, AccountRow]:
        """The accounts a new table's seats are kept for (``players[i]["account"]``: a name),
        each checked before anything is made: the creator signed in, a person seat taken by
        its link, an account of that name, not the creator, not twice at one table. Each
        name looked up is counted (``invite``: a name's existence is told to the inviter)."""
        named = [(i, p["account"]) for i, p in enumerate(players) if isinstance(p, dict) and p.get("account") is not None]
        if not named:
            return {}
        if inviter is None:
            raise Refused("signed_out", "sign in to invite a player by name", 401)
        if hotseat:
            raise Refused("malformed", "a hot-seat table invites nobody by name", 400)
        out: dict[int, AccountRow] = {}
        for i, name in named:
            p = players[i]
            if p.get("kind", "person") != "person" or p.get("open"):
                raise Refused("malformed", f"players[{i}].account: only a person seat taken by its link is kept for an account", 400)
            self.guard.spend("invite", str(inviter.id))
            target = await self.account(name)
            if target.id == inviter.id:
                raise Refused("invite_self", "you cannot invite yourself", 400)
            if any(a.id == target.id for a in out.values()):
                raise Refused("invited_twice", f"{target.name} is invited to this table already", 409, name=target.name)
            out[i] = target
        # blocked either way (moderation.py): no invitation between them, told as such alone
        # (not which of them blocked the other)
        for target in out.values():
            if await asyncio.to_thread(self.storage.blocked_between, [inviter.id], [target.id]):
                raise Refused("not_invitable", f"{target.name} cannot be invited by you", 403, name=target.name)
        return out

    async def invite(self, game_id: str, inviter: AccountRow, invited: dict[int, AccountRow]) -> None:
        await asyncio.to_thread(self.storage.invite, game_id, {s: a.id for s, a in invited.items()}, inviter.id, time.time())
        for seat, account in invited.items():
            for tell in self.on_invited:
                try:
                    await tell(account.id, game_id, seat, inviter.name)
                except Exception:  # a mail that cannot be queued does not undo the invitation
                    log.exception("game %s: telling an invited account failed", game_id)

    async def invitations(self, me: AccountRow) -> dict[str, Any]:
        """The account's pending invitations, and those it sent: of games still open or
        under way (an invitation to a game that ended is left out)."""
        received = await asyncio.to_thread(self.storage.invitations_to, me.id)
        sent = await asyncio.to_thread(self.storage.invitations_by, me.id)
        rows = await asyncio.to_thread(self.storage.games_by_id, {i["game"] for i in received + sent})

        def shown(items: list[dict[str, Any]]) -> list[dict[str, Any]]:
            out = []
            for i in items:
                row = rows.get(i["game"])
                if row is None or row.status not in ("open", "running"):
                    continue
                live = self.service.live.get(row.id)
                out.append({**i, "game": self.service.summary(live.row if live is not None else row)})
            return out

        return {"received": shown(received), "sent": shown(sent)}

    async def invited(self, me: AccountRow, game_id: str, seat: int) -> bool:
        """Whether the seat is kept for the account by an invitation it has not taken yet."""
        found = await asyncio.to_thread(self.storage.invitation, game_id, seat)
        return found is not None and found[0] == me.id

    async def _mine(self, me: AccountRow, game_id: str, seat: int) -> None:
        if not await self.invited(me, game_id, seat):
            raise Refused("no_invitation", "you have no invitation to this seat", 404)

    async def take(self, me: AccountRow, game_id: str, seat: int, bind: Any) -> str:
        """Take a seat the account is invited to: it becomes the account's (``bind``:
        Accounts.bind, which ends the invitation) and this device gets a token of it. A
        seat that becomes the account's now gets a new token: its link, which the inviter
        was shown, ends (and so does any other token of before). At a rated table, not
        when the account has another seat there (``rated_one_seat``)."""
        await self._mine(me, game_id, seat)
        live = await self.service.fetch(game_id)
        if live.row.status not in ("open", "running"):
            raise Refused("not_open", "the game is over", 409)
        owner = await asyncio.to_thread(self.storage.seat_owner, game_id, seat)
        if owner is not None and owner != me.id:
            raise Refused("seat_taken", "that seat is taken", 409)
        if live.options["rated"]:
            await one_seat(self.storage, game_id, seat, me)
        self.guard.spend("seat_key", str(me.id))
        mine, new = await bind(me, [(game_id, seat)])
        if (game_id, seat) not in mine:
            if live.options["rated"]:
                await one_seat(self.storage, game_id, seat, me)
            raise Refused("seat_taken", "that seat is taken", 409)
        if (game_id, seat) in new:
            return await self.service.rekey(game_id, seat)
        return await self.service.seat_key(game_id, seat)

    async def withdraw(self, me: AccountRow, game_id: str, seat: int) -> None:
        """Withdraw an invitation the account sent: the seat is kept for nobody any more
        (its link still works for whoever has it); a seat not taken yet that bore the
        invited account's name (given it by the invitation) is unnamed again."""
        name = await asyncio.to_thread(self.storage.withdraw_invitation, me.id, game_id, seat)
        if name is None:
            raise Refused("no_invitation", "you sent no invitation to this seat", 404)
        if name:
            await self.service.unname_seat(game_id, seat, name)

    async def decline(self, me: AccountRow, game_id: str, seat: int) -> None:
        """Decline an invitation: the seat is nobody's kept seat any more (its link still works)."""
        await self._mine(me, game_id, seat)
        await asyncio.to_thread(self.storage.end_invitations, me.id, [(game_id, seat)])
