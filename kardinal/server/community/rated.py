"""Rated tables: who may make one and take its seats, starting a waiting table with bots,
and "find me a table".

A rated table (the table option ``rated``) moves the ratings of its people (settle.py), so
every person at it is a signed-in account: only a signed-in player makes one, every seat a
person takes (by its link, from the lobby, or by opening it) becomes that person's
account's, and an account takes one seat of a table at most. No hot-seat (one device, one
account), no hints (a hint is a bot's advice). Bots may sit at it: their ratings are fixed
(ratings.BOT_RATINGS), so a game against bots only is rated too.

Find me a table (:func:`find_table`): the open rated tables waiting for people, from the
database (so every process sees the same), the one whose people's mean rating is closest to
the player's, within a window of ``max(WINDOW, 2 sigma)`` of the player (two hundred points
is a 76% chance to finish ahead of the other, and a player whose own rating is uncertain
may sit anywhere it could be); none: the player's own table still waiting, if one is (asked
again), else a new rated table of four with three open seats. A
player who waits there need not wait for ever: :func:`fill_with_bots` starts the table with
bots of their level in the free seats (the level whose fixed rating is closest to the mean
rating of the people at the table).
"""

from __future__ import annotations

import asyncio
import time
from typing import Any

from kardinal.bots import served_bots

from ..common.names import look_key
from ..common.refusal import Refused
from ..play.live import LiveGame
from ..play.service import GameService
from ..storage import AccountRow, GameRow, SeatRow, Storage
from .accounts import Accounts
from .ratings import MU0, SIGMA0, closest_level

__all__ = ["check_creation", "admit", "one_seat", "fill_with_bots", "find_table", "rating_now", "WINDOW", "SEATS"]

WINDOW = 200.0  # find me a table: the narrowest window of mean ratings (see the module)
SEATS = 4  # a table find me a table opens
SCAN = 200  # open tables looked at (newest first)


def check_creation(spec: dict[str, Any], account: AccountRow | None) -> None:
    """A rated table is made by a signed-in player, without hot-seat or hints."""
    if spec.get("rated") is not True:
        return
    if account is None:
        raise Refused("rated_needs_account", "a rated table is for signed-in players: sign in first", 403)
    if spec.get("hotseat") is True:
        raise Refused("rated_no_hotseat", "a rated table has no hot-seat: every person plays on their own device", 409)
    if spec.get("hints") is True:
        raise Refused("rated_no_hints", "a rated table has no hints: a hint is a bot's advice", 409)


async def admit(accounts: Accounts, live: LiveGame, seat: object, account: AccountRow | None) -> bool:
    """Before a person takes a seat of a rated table (by its link, from the lobby, or by
    opening it): refused without an account, or when the account has another seat of the
    table; the seat becomes the account's (checked again as it is taken: two requests at
    once get one seat, Storage.take_seats). Seats already taken, and unrated tables, pass.
    True: the seat became the account's by this call (its tokens of before must end:
    Accounts.own)."""
    if not live.options["rated"] or not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < len(live.row.seats):
        return False
    sr = live.row.seats[seat]
    if sr.kind != "person" or sr.joined:
        return False
    if account is None:
        raise Refused("rated_needs_account", "the seats of a rated table are for signed-in players: sign in first", 403)
    await one_seat(accounts.storage, live.row.id, seat, account)
    mine, new = await accounts.bind(account, [(live.row.id, seat)])
    if (live.row.id, seat) not in mine:  # taken meanwhile: by another account, or this one's other seat
        await one_seat(accounts.storage, live.row.id, seat, account)
        raise Refused("not_your_seat", "this seat belongs to another account", 403)
    return bool(new)


async def one_seat(storage: Storage, game_id: str, seat: int, account: AccountRow) -> None:
    """Refused when the seat is another account's, or the account has another seat of
    this (rated) table."""
    owners = await asyncio.to_thread(storage.game_owners, game_id)
    if owners.get(seat, account.id) != account.id:
        raise Refused("not_your_seat", "this seat belongs to another account", 403)
    if any(a == account.id and s != seat for s, a in owners.items()):
        raise Refused("rated_one_seat", "you have a seat at this rated table already", 409)


async def rating_now(service: GameService, account_ids: list[int]) -> dict[int, tuple[float, float, int]]:
    """The ratings of these accounts (a newcomer's for one without games)."""
    have = await asyncio.to_thread(service.storage.ratings_of, account_ids)
    return {a: have.get(a, (MU0, SIGMA0, 0)) for a in account_ids}


async def people_mean(service: GameService, game_id: str, seats: list[SeatRow]) -> float:
    """The mean rating of the people who have taken seats of a table (a newcomer's if none)."""
    owners = await asyncio.to_thread(service.storage.game_owners, game_id)
    ids = [a for s, a in owners.items() if s < len(seats) and seats[s].kind == "person" and seats[s].joined]
    if not ids:
        return MU0
    have = await rating_now(service, ids)
    return sum(have[a][0] for a in ids) / len(ids)


async def fill_with_bots(service: GameService, game_id: str, seat: object, token: object) -> tuple[LiveGame, str]:
    """A person who has taken a seat of a table still waiting for people starts it: its free
    seats get bots (at a rated table of the level closest to the people's mean rating, else
    of the table's stand-in level). Returns the game and the level.

    Bots never take a seat kept for someone: an account's (its creator's, signed in), one an
    account is invited to by name, or the creator's own (the first person seat, unless it is
    open to anyone): a guest at a table of friends cannot start it without them (the new-user
    walk: the creator found a bot in their seat). With only such seats free, nothing changes:
    ``kept_seats``, and the table waits for those people. A rated game starts with the
    people at the table: the seats of those who took theirs and are not there now
    (away_from_table) go to bots as well, and are no account's."""
    live = await service.fetch(game_id)
    s = service._auth(live, seat, token)
    if live.row.status != "open":
        raise Refused("not_open", "the game is not waiting for players")
    if not live.row.seats[s].joined:
        raise Refused("not_joined", "take your seat first", 409)
    if live.options["rated"]:
        level = closest_level(await people_mean(service, game_id, live.row.seats), served_bots())
    else:
        level = live.options["standin"]
    taken = {look_key(x.name) for x in live.row.seats}
    free, until = await fill_plan(service, live)
    if not free:
        refused = Refused("kept_seats", "the free seats are kept for the players expected here: the game starts when they come", 409)
        if until is not None:  # the people of the game before may come until then
            refused.params["until"] = int(until)
        raise refused
    # a rated game starts with those here: the seat of one who took it and went away goes
    # to a bot too (they are not rated for a game they are not at: the fourth new-user walk
    # saw a stand-in play a whole rated game for a person gone, who lost 252 points by it);
    # only when the game starts by it (no seat kept for someone stays free), and those seats
    # first: the last free seat filled starts the game
    starts = all(i in free for i, sr in enumerate(live.row.seats) if sr.kind == "person" and not sr.joined)
    gone = await away_from_table(service, live, but=s) if live.options["rated"] and starts else []
    for i in [*gone, *free]:
        name = next(n for n in (f"Bot {i + 1}", *(f"Bot {i + 1}.{k}" for k in range(2, 20))) if look_key(n) not in taken)
        taken.add(look_key(name))

        def still_free(now: SeatRow, i: int = i) -> None:  # taken meanwhile, or its person back: that person plays
            if now.kind != "person" or (now.joined and (i not in gone or i in live.present)):
                raise Refused("seat_taken", "that seat is taken")

        try:
            await service._set_seat(live, i, SeatRow(name, "bot", level, None, True), still_free)
        except Refused as e:
            if e.code != "seat_taken":
                raise
        else:  # a bot's seat is no account's (a "Play again" table's seats were their people's)
            await asyncio.to_thread(service.storage.drop_seat_owner, live.row.id, i)
        if live.row.status != "open":
            break
    return live, level


async def fill_plan(service: GameService, live: LiveGame, now: float | None = None) -> tuple[list[int], float | None]:
    """The seats "Start with bots" would give bots now (fill_with_bots: the free person seats
    of a waiting table kept for nobody; none: the table waits for its people), and when it may give more: the end
    of the time a "Play again" table keeps its people's seats (see kept_seats), while one
    of them is free; else None."""
    if live.row.status != "open":
        return [], None
    now = time.time() if now is None else now
    kept, until = await kept_seats(service, live, now)
    free = [i for i, sr in enumerate(live.row.seats) if sr.kind == "person" and not sr.joined]
    return [i for i in free if i not in kept], until if until is not None and any(i in kept for i in free) else None


async def away_from_table(service: GameService, live: LiveGame, but: int) -> list[int]:
    """The seats of a waiting table whose people have taken them but are not at the table
    now (connected to no server process: GameService.here_now), ``but`` the one asking."""
    here = await service.here_now(live)
    return [i for i, sr in enumerate(live.row.seats) if sr.kind == "person" and sr.joined and i != but and i not in here]


def come_back_time(live: LiveGame) -> float:
    """How long a "Play again" table keeps the seats of the people of the game before for
    them: a live table its "away" time (3 minutes unless set), a turn-based one its time for a
    turn (a day unless set; a week without a clock)."""
    options = live.options
    if options["mode"] == "turn":
        days = (options["clock"] or {}).get("days")
        return float(days or 7) * 86400
    return float(options["away"])


async def kept_seats(service: GameService, live: LiveGame, now: float | None = None) -> tuple[set[int], float | None]:
    """The seats of a waiting table that bots may not take (see fill_with_bots), and until
    when the people of the game before keep theirs (None: no such time). At a table "Play
    again" made, those kept for an invitation, and for a while (come_back_time: the fourth
    new-user walk saw a bot take a seat three seconds after Play again, its person still on
    the old game's page) its people's: they come from the game before, each seat as much
    theirs as another's, and after that while those there need not wait for one who went
    home (the third walk: such a table could be neither started nor cancelled)."""
    gid = live.row.id
    now = time.time() if now is None else now
    invited = await asyncio.to_thread(service.storage.invited, [(gid, i) for i in range(len(live.row.seats))])
    kept = {i for _g, i in invited}
    if await asyncio.to_thread(service.storage.follows_another, gid):
        until = live.row.created + come_back_time(live)
        if now < until:
            kept |= {i for i, sr in enumerate(live.row.seats) if sr.kind == "person"}
            return kept, until
        return kept, None
    kept |= set(await asyncio.to_thread(service.storage.game_owners, gid))
    people = [i for i, sr in enumerate(live.row.seats) if sr.kind == "person"]
    if people and not live.row.seats[people[0]].open:
        kept.add(people[0])  # the creator's
    return kept, None


async def find_table(service: GameService, account: AccountRow, where: str, charge: Any = None) -> tuple[LiveGame, int, str, bool]:
    """Find me a table: a seat at the open rated table of people of the closest rating (see
    the module), else a new rated table of four with three open seats (unnamed: no words of
    one language stored). Returns the game, the seat, its token and whether the table is new."""
    rating = (await rating_now(service, [account.id]))[account.id]
    mu, sigma = rating[0], rating[1]
    window = max(WINDOW, 2 * sigma)
    rows: list[GameRow] = await asyncio.to_thread(service.storage.list_games, "open", SCAN)
    choices: list[tuple[float, float, GameRow, int]] = []
    own: tuple[str, int] | None = None  # a waiting table of the player's own (the newest)
    for row in rows:
        if row.options.get("rated") is not True or row.options.get("public") is False or row.hotseat:
            continue
        free = [i for i, sr in enumerate(row.seats) if sr.kind == "person" and sr.open and not sr.joined]
        if not free:
            continue
        owners = await asyncio.to_thread(service.storage.game_owners, row.id)
        if account.id in owners.values():
            if own is None:
                own = (row.id, next(s for s, a in owners.items() if a == account.id))
            continue
        if await asyncio.to_thread(service.storage.blocked_between, [account.id], list(owners.values())):
            continue  # someone there blocked the player, or the player them (moderation.py): not together
        mean = await people_mean(service, row.id, row.seats)
        if abs(mean - mu) <= window:
            choices.append((abs(mean - mu), -row.created, row, free[0]))
    for _, _, row, seat in sorted(choices, key=lambda c: (c[0], c[1])):
        # kept for the account first (one seat of a rated table each: Storage.take_seats), then claimed
        mine = await asyncio.to_thread(service.storage.attach_seats, account.id, [(row.id, seat)], time.time())
        if (row.id, seat) not in mine:
            continue  # another's meanwhile, or the account took a seat there meanwhile
        try:
            tok = await service.claim(row.id, seat, account.name if _name_free(row, account.name, seat) else None, owner=account.id)
        except Refused:
            await asyncio.to_thread(service.storage.release_seat, row.id, seat, account.id)
            continue  # taken meanwhile (another process, another player): the next
        return await service.fetch(row.id), seat, tok, False
    if own is not None:  # asked again while one's own table waits: that table, not another
        try:
            return await service.fetch(own[0]), own[1], await service.seat_key(own[0], own[1]), False
        except Refused:
            pass  # gone or changed meanwhile: a new one
    spec = {
        "players": [{"name": account.name, "kind": "person"}] + [{"kind": "person", "open": True} for _ in range(1, SEATS)],
        "rated": True,
    }
    live, tokens = await service.create(spec, creator=where, charge=charge)
    await asyncio.to_thread(service.storage.attach_seats, account.id, [(live.row.id, 0)], time.time())
    await service.join(live.row.id, 0, tokens[0])
    return live, 0, tokens[0], True


def _name_free(row: GameRow, name: str, seat: int) -> bool:
    return all(look_key(s.name) != look_key(name) for i, s in enumerate(row.seats) if i != seat)
