"""Accounts: sign up, sign in and out, sessions, a new password, deleting an account and
downloading its data; the seats that belong to an account ("My games" on any device).

No web code here (account_routes.py is the HTTP side: cookies, the origin check). A
session is a random secret the browser keeps in a cookie; the database keeps only its
SHA-256, so that a copy of the database opens no session. Sign-in is rate-limited per
address and per name (guard.py), answers a wrong password and a name without an account
with the same refusal, and verifies a password in both cases (passwords.py: a dummy hash
for a name without an account), so that neither the answer nor its time tells more than
that the sign-in failed. (Names themselves are public: profiles, follows and invitations
say whether an account has a name; docs/play/browser.md, privacy.)

One rule decides whether an account may hold a session (:func:`session_refused`: not
while suspended); :meth:`Accounts._session`, the only maker of sessions, asks it, and so
does :meth:`Accounts.session_of` for every request's session (a suspended account's
sessions stay, refused while it is suspended: the header of every page tells their
holder why, as the sign-in would; they work again when the suspension ends). Re-entering the password
(:meth:`Accounts.reauth`) counts in the budgets a sign-in counts in, the device mark's
included; a new password is a compare-and-set on the stored hash.

A seat belongs to an account when it was taken while signed in (created, joined, claimed)
or brought along at sign-up or sign-in (the seats' tokens the browser holds, each checked).
A seat that becomes an account's by a token others may hold as well (its link, which the
table's creator was shown; a token brought along) gets a new one then (:meth:`Accounts.own`,
Tables.rekey), for the device that took it: every token of before ends, so that a seat of
an account is opened only by what the account hands out. At a rated table an account
takes one seat at most (Storage.take_seats).
Another device of the account gets a working seat through :meth:`Accounts.seat_key`: a
further token of the seat, handed over in the answer of an authenticated request (never in
an address); those tokens end when the password changes or the account is deleted.
"""

from __future__ import annotations

import asyncio
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import Any
from urllib.parse import urlsplit

from ..common.guard import Guard
from ..common.names import DELETED, account_keys, as_deleted, clean_name
from ..common.refusal import Refused, suspended
from ..play.live import public_players, token_ok
from ..play.service import GameService
from ..storage import AccountRow, Storage
from .passwords import check_password, hash_password, needs_rehash, verify
from .results import stored_results

__all__ = ["Accounts", "SignedIn", "DELETED"]

MAX_HELD = 200  # games whose seats a browser brings along at sign-up or sign-in


def session_hash(secret: str) -> str:
    return hashlib.sha256(secret.encode("utf-8")).hexdigest()


def wrong_sign_in() -> Refused:
    """The one refusal of a sign-in that fails: no such name and a wrong password alike."""
    return Refused("bad_sign_in", "wrong name or password", 403)


def wrong_password() -> Refused:
    """The refusal of a wrong password of the signed-in account (a new password, a mail
    address, deleting it), whatever its length: only a new password is told the length
    rule (``bad_password``, passwords.check_password)."""
    return Refused("wrong_password", "that is not the account's password", 403)


def session_refused(suspended_until: float | None, now: float, why: str = "", contact: str = "") -> Refused | None:
    """The one rule of who may hold a session (None: the account may; else why not): an
    account the operator suspended (kardinal admin) may not until its suspension ends.
    Every way to a new session asks it (Accounts._session), and so does every request
    that brings one (Accounts.session_of): a session made before or while the account was
    being suspended opens nothing until the suspension ends."""
    if suspended_until is not None and suspended_until > now:
        return suspended(suspended_until, why, contact)
    return None


@dataclass(frozen=True)
class SignedIn:
    """A new session: its account and its secret (for the cookie, once; stored as a hash),
    and the browser's device mark (see :func:`device_mark`; None: keep the one it has)."""

    account: AccountRow
    secret: str
    max_age: int  # seconds
    device: str | None = None


def _device_mac(account_id: int, stored: str, nonce: str) -> str:
    return hmac.new(stored.encode("utf-8"), f"device:{account_id}:{nonce}".encode(), hashlib.sha256).hexdigest()[:32]


def device_mark(account_id: int, stored: str) -> str:
    """A device mark: what a browser keeps (a cookie) once it signed in to an account, so
    that its sign-ins have a failure budget of their own (OWASP's "device cookies"):
    someone failing on purpose with the account's name from elsewhere cannot lock out the
    browsers its owner signed in with. Signed with the account's password hash (a secret
    the server alone holds), so it ends with the password. It opens nothing by itself."""
    nonce = secrets.token_urlsafe(12)
    return f"{account_id}.{nonce}.{_device_mac(account_id, stored, nonce)}"


def device_nonce(mark: str | None, account_id: int, stored: str) -> str | None:
    """The nonce of a device mark given to ``account_id``'s browser under its password
    ``stored`` now (None: no mark, another account's, forged, or from an old password)."""
    if not mark or len(mark) > 120:
        return None
    aid, _, rest = mark.partition(".")
    nonce, _, mac = rest.partition(".")
    if aid != str(account_id) or not nonce or not mac:
        return None
    return nonce if hmac.compare_digest(mac, _device_mac(account_id, stored, nonce)) else None


def _budget(key: str, found: tuple[AccountRow, str] | None, device: str | None) -> tuple[tuple[str, str], str | None]:
    """The failure budget a check of the password of ``found`` (the account, its password's
    hash) is counted in, and the device mark's nonce: the browser's own if it holds the
    account's device mark (``device``), else the name's (``key``: names.account_keys' first, so that
    look-alikes of a name share its budget)."""
    nonce = device_nonce(device, found[0].id, found[1]) if found is not None else None
    return (("signin_device", nonce) if nonce else ("signin_name", key)), nonce


class Accounts:
    def __init__(self, storage: Storage, service: GameService, guard: Guard, days: float) -> None:
        self.storage = storage
        self.service = service
        self.guard = guard
        self.lifetime = days * 86400.0  # how long a session lasts (KARDINAL_SESSION_DAYS)

    # -- sessions --------------------------------------------------------------------

    async def _admit(self, account: AccountRow) -> None:
        """Refused ``suspended`` unless the account may hold a session now (session_refused)."""
        until, why = await asyncio.to_thread(self.storage.suspension, account.id) or (None, "")
        refused = session_refused(until, time.time(), why, self.service.contact)
        if refused is not None:
            raise refused

    async def _session(self, account: AccountRow, ending: str | None) -> SignedIn:
        """A new session of the account (the only place one is made), if it may have one
        (_admit); ``ending``: the browser's session before, which ends."""
        await self._admit(account)
        secret = secrets.token_urlsafe(32)
        now = time.time()
        old = session_hash(ending) if ending else None
        await asyncio.to_thread(self.storage.new_session, session_hash(secret), account.id, now, now + self.lifetime, old)
        return SignedIn(account, secret, int(self.lifetime))

    async def lang_of(self, account: AccountRow) -> str | None:
        """The account's language (chosen on a page while signed in, or the page's when it
        set its mail address), or None: never said."""
        found = await asyncio.to_thread(self.storage.mail_address, account.id)
        lang = found.notify.get("lang") if found is not None else None
        return lang if isinstance(lang, str) else None

    async def session_of(self, secret: str | None) -> AccountRow | None:
        """The account a session's secret is signed in to (None: none, ended or expired).
        Refused (session_refused: ``suspended``) while its account may hold no session: the
        session stays, and whoever holds it is told what the account's owner is told at
        sign-in (until when, the operator's reason, whom to ask), nothing more; it opens
        the account again once the suspension ends, until it expires."""
        if not secret or len(secret) > 100:
            return None
        now = time.time()
        found = await asyncio.to_thread(self.storage.session_account, session_hash(secret), now)
        if found is None:
            return None
        account, until, why = found
        refused = session_refused(until, now, why, self.service.contact)
        if refused is not None:
            raise refused
        return account

    async def account_of(self, secret: str | None) -> AccountRow | None:
        """The account a session's secret opens now (None: none, ended, expired, or its
        account suspended: :meth:`session_of`)."""
        try:
            return await self.session_of(secret)
        except Refused:
            return None

    async def sign_out(self, secret: str | None) -> None:
        if secret and len(secret) <= 100:
            await asyncio.to_thread(self.storage.end_session, session_hash(secret))

    # -- signing up and in -------------------------------------------------------------

    @staticmethod
    def _name(name: str) -> str:
        shown = clean_name(name, "")
        if not shown:
            raise Refused("bad_name", "a name is needed", 400, max=24)
        return shown

    async def _name_free(self, shown: str, key: str) -> None:
        """Refused ``account_name_taken`` when the name passes for a deleted account's seat
        (names.as_deleted), or an account made before look-alikes counted has a name that
        looks like it (those made since are kept apart by their stored key: create_account)."""
        taken = Refused("account_name_taken", f"the name {shown} is taken", 409, name=shown)
        if as_deleted(shown) or await asyncio.to_thread(self._older_has, key):
            raise taken

    def _older_has(self, key: str) -> bool:
        """Whether an account made before look-alikes counted has a name whose new key
        would be ``key`` (read and compared in a thread: a few microseconds a name)."""
        return any(account_keys(n)[0] == key for n in self.storage.older_account_names())

    async def sign_up(self, name: str, password: str, where: str, ending: str | None = None) -> SignedIn:
        """A new account, signed in (``ending``: the session the browser had, ended).
        Refused ``account_name_taken`` when another account has the name or one that looks
        like it (names.account_keys), or it passes for a deleted account's seat."""
        self.guard.spend("signup", where)
        shown = self._name(name)
        key = account_keys(shown)[0]
        await self._name_free(shown, key)
        check_password(password)
        hashed = await hash_password(password)
        account = await asyncio.to_thread(self.storage.create_account, shown, key, hashed, time.time())
        if account is None:
            raise Refused("account_name_taken", f"the name {shown} is taken", 409, name=shown)
        return replace(await self._session(account, ending), device=device_mark(account.id, hashed))

    async def sign_in(self, name: str, password: str, where: str, ending: str | None = None, device: str | None = None) -> SignedIn:
        """A new session of the account (the browser's session before, ``ending``, ends:
        a session id planted in a browser is never the one signed in). Limited per address
        (every try) and per name (every failure, counted from before its verify: tries at
        once cannot pass the budget); one refusal for every failure. A browser with the
        account's device mark (``device``, see :func:`device_mark`) has a failure budget of
        its own instead of the name's: failing on purpose elsewhere does not lock it out."""
        try:
            shown = self._name(name)
            key = account_keys(shown)[0]
        except Refused:
            shown = key = ""  # a name no account can have: verified against the dummy hash below
        found = await asyncio.to_thread(self.storage.account_login, shown) if shown else None
        budget, nonce = _budget(key, found, device)
        await self._verified(budget if key else None, found[1] if found is not None else None, password, wrong_sign_in, where)
        if found is None:  # (verify said no already)
            raise wrong_sign_in()
        account, stored = found
        session = await self._session(account, ending)  # suspended: told only with the right password
        if needs_rehash(stored):  # hashed with older parameters: hash it as today's are
            stored = await hash_password(password)
            await asyncio.to_thread(self.storage.rehash_password, account.id, stored, found[1])
        return replace(session, device=device if nonce and stored == found[1] else device_mark(account.id, stored))

    async def _verified(
        self, budget: tuple[str, str] | None, stored: str | None, password: str, refusal: Callable[[], Refused], where: str | None = None
    ) -> None:
        """Verify ``password`` against the hash ``stored`` (None: the dummy's), within a
        failure budget of the guard (``budget``: its kind and key): its unit is taken before
        the verify (tries at once keep to the budget) and given back if it succeeds.
        ``where``: a sign-in's address, whose every try counts too (with the unit: one round
        trip when the processes share the counts). Refused ``refusal()`` when it fails."""
        if where is not None:
            self.guard.spend_and_take(("signin", where), budget)
        elif budget is not None:
            self.guard.take(*budget)
        failed = True
        try:
            if not await verify(stored, password):
                raise refusal()
            failed = False
        except Refused as e:
            failed = e.code != "busy"  # not verified (passwords.busy): not a guess
            raise
        finally:
            if budget is not None:
                (self.guard.settle if failed else self.guard.give_back)(*budget)

    async def reauth(self, account: AccountRow, password: str, device: str | None = None) -> str:
        """The account's password again (a new password, a mail address, deleting the
        account): limited as a sign-in is, from this browser (``device``, its device mark)
        as its sign-ins are. Returns the password's hash that was verified."""
        stored = await asyncio.to_thread(self.storage.account_password, account.id)
        budget, _ = _budget(account_keys(account.name)[0], (account, stored) if stored is not None else None, device)
        await self._verified(budget, stored, password, wrong_password)
        assert stored is not None  # (verify said no to None)
        return stored

    async def change_password(self, account: AccountRow, current: str, new: str, device: str | None = None) -> SignedIn:
        """A new password: every session of the account ends, and so do the seats' tokens it
        handed to its devices; this browser gets a new session. Of two changes from the
        same password at once, one is made and the other refused ``wrong_password``."""
        stored = await self.reauth(account, current, device)
        return await self.set_new_password(account, new, stored)

    async def set_new_password(self, account: AccountRow, new: str, expected: str | None = None) -> SignedIn:
        """The password becomes ``new`` (checked; the caller proved the right to set it: the
        password before, whose hash is ``expected``, or a reset link mailed to the account,
        kardinal.server.mail): every session of the account ends, and so do the seats'
        tokens it handed to its devices; this browser gets a new session. Refused
        ``suspended`` (nothing changed) for a suspended account, ``wrong_password`` if the
        stored hash is not ``expected`` any more (changed meanwhile)."""
        check_password(new)
        await self._admit(account)
        hashed = await hash_password(new)
        if not await asyncio.to_thread(self.storage.set_password, account.id, hashed, time.time(), None, expected):
            raise wrong_password()
        signed = replace(await self._session(account, None), device=device_mark(account.id, hashed))
        await self._drop_keys(account)
        return signed

    async def _drop_keys(self, account: AccountRow) -> None:
        """The seats' tokens handed to the account's devices end (every seat, however many)."""
        for gid, seat in await asyncio.to_thread(self.storage.owned_seats, account.id, None):
            await self.service.drop_seat_keys(gid, seat)

    async def sign_out_everywhere(self, account: AccountRow) -> None:
        """Every session of the account ends, and so do the seats' tokens handed to its
        devices (a phone lost, a computer shared): as a new password does, keeping it."""
        await asyncio.to_thread(self.storage.end_sessions, account.id)
        await self._drop_keys(account)

    async def delete(self, account: AccountRow, password: str, device: str | None = None) -> int:
        """Delete the account: its sessions end, its seats belong to nobody and are named
        DELETED (the games stay, and their links work); returns how many seats it had."""
        await self.reauth(account, password, device)
        owned = await asyncio.to_thread(self.storage.delete_account, account.id)
        for gid, seat in owned:
            await self.service.drop_seat_keys(gid, seat, rename=DELETED)
        return len(owned)

    # -- seats -------------------------------------------------------------------------

    async def attach(self, account: AccountRow, seats: list[tuple[str, int]]) -> list[tuple[str, int]]:
        """Seats taken while signed in (their tokens were checked by the game service); a
        seat kept for another account by an invitation stays free for it (social.py), and
        the account's own invitations to those it takes end; at a rated table an account
        takes one seat at most (Storage.take_seats). Returns the seats that are the
        account's now (also those that were)."""
        return (await self.bind(account, seats))[0]

    async def bind(self, account: AccountRow, seats: list[tuple[str, int]]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
        """:meth:`attach`, and which of the seats became the account's by this call."""
        if not seats:
            return [], []
        return await asyncio.to_thread(self.storage.bind_seats, account.id, seats, time.time())

    async def own(self, account: AccountRow, game_id: str, seat: int, held: str, newly: bool = False) -> tuple[bool, str | None]:
        """A seat opened signed in by a token (``held``) becomes the account's, unless it is
        another's. If it became the account's now (or just before: ``newly``, rated.admit),
        it gets a new token, returned for this device: the link others may hold, and any
        token of before, end (a seat of an account is opened only by what the account hands
        out). Returns whether the seat is the account's now, and its new token (None: the
        tokens stay as they are: the seat was the account's, or another's)."""
        mine, new = await self.bind(account, [(game_id, seat)])
        if not (newly or (game_id, seat) in new):
            return (game_id, seat) in mine, None
        return True, await self.service.rekey(game_id, seat, held)

    async def bring(self, account: AccountRow, held: dict[str, dict[str, str]], where: str) -> tuple[int, dict[str, dict[str, str]]]:
        """The seats a browser holds (``{game: {seat: token}}``) become the account's, those
        whose tokens are right and that belong to no other account (not an open seat nobody
        has claimed: its claimant gets a new token); returns how many are the account's
        now, and the new tokens of those that became its now (``{game: {seat: token}}``:
        their tokens of before end, whoever else holds them; see :meth:`own`). A wrong
        token counts as one (guessing is slowed)."""
        held = dict(list(held.items())[:MAX_HELD])
        rows = await asyncio.to_thread(self.storage.seats_by_game, held)
        good: dict[tuple[str, int], str] = {}
        for gid, tokens in held.items():
            seats = rows.get(gid)
            for k, tok in tokens.items():
                s = int(k)
                try:
                    self.guard.check("bad_token", where)  # over: no token of this address is checked
                except Refused:
                    break
                if seats is not None and s < len(seats) and token_ok(seats[s], tok):
                    if not (seats[s].open and not seats[s].joined):  # a lobby seat: its claimant's
                        good[(gid, s)] = tok
                elif seats is not None:
                    self.guard.note("bad_token", where)
        # (a seat kept for another account by an invitation stays its)
        mine, new = await self.bind(account, list(good))
        renewed: dict[str, dict[str, str]] = {}
        for gid, s in new:
            try:
                renewed.setdefault(gid, {})[str(s)] = await self.service.rekey(gid, s, good[(gid, s)])
            except Refused:
                continue  # changed meanwhile (or unreadable): the seat is the account's all the same
        return len(mine), renewed

    async def my_games(self, account: AccountRow) -> list[dict[str, Any]]:
        """Every game the account has a seat in, newest first: each as the lobby shows it,
        with the account's seats. Asked every 15 s while the page is open: no game is read
        into memory for it (whose turn a running game is at, and its deadline, are read
        from the database: GameService.cold_turns; a finished game's scores from its results)."""
        owned = await asyncio.to_thread(self.storage.owned_seats, account.id)
        rows = await asyncio.to_thread(self.storage.games_by_id, [g for g, _ in owned])
        seats: dict[str, list[int]] = {}
        for gid, s in owned:
            seats.setdefault(gid, []).append(s)
        cold = [row for gid, row in rows.items() if gid not in self.service.live]
        turns = await self.service.cold_turns([row for row in cold if row.status == "running"])
        finished = [row.id for row in cold if row.status == "finished"]
        results = await stored_results(self.service, finished) if finished else {}
        out = []
        for gid, mine in seats.items():
            row = rows.get(gid)
            if row is None:
                continue
            game = self.service.summary(row)
            if gid in turns and "current" not in game:  # a running game not in memory: its turn as stored
                game["current"], deadline = turns[gid]
                if deadline is not None:
                    game["deadline"] = deadline
            if gid in results and "scores" not in game:  # a finished game no longer in memory: its stored result
                by_seat = sorted(results[gid], key=lambda r: r[0].seat)
                game["scores"] = [r.score for r, _, _ in by_seat]
                game["winners"] = [r.seat for r, _, _ in by_seat if r.win > 0]
            out.append({"game": game, "seats": sorted(mine)})
        return out

    async def seat_key(self, account: AccountRow, game_id: str, seat: int, secret: str | None = None) -> str:
        """A token of one of the account's seats for this device (its other devices' keep
        working); Refused ``not_your_seat`` for a seat that is not the account's, or an open
        seat nobody has claimed yet (the game service checks that). With the session's
        ``secret``: if the session ended or the password changed while the token was made
        (a new password ends every device's token), it is dropped again and refused."""
        owner = await asyncio.to_thread(self.storage.seat_owner, game_id, seat)
        if owner != account.id:
            raise Refused("not_your_seat", "this seat does not belong to your account", 403)
        self.guard.spend("seat_key", str(account.id))
        token = await self.service.seat_key(game_id, seat)
        if secret is not None:
            now = await self.account_of(secret)
            if now is None or now.password_changed != account.password_changed:
                await self.service.drop_seat_keys(game_id, seat)
                raise Refused("signed_out", "sign in first", 401)
        return token

    async def data(self, account: AccountRow) -> dict[str, Any]:
        """Everything the server keeps of the account, as JSON (never a secret: no password
        hash, no session or seat token)."""
        owned = await asyncio.to_thread(self.storage.owned_seats, account.id)
        rows = await asyncio.to_thread(self.storage.games_by_id, [g for g, _ in owned])
        sessions = await asyncio.to_thread(self.storage.sessions_of, account.id)
        said = await asyncio.to_thread(self.storage.chat_of_seats, owned)
        muted, blocked = await asyncio.to_thread(self.storage.muted_and_blocked, account.id)
        reported = await asyncio.to_thread(self.storage.reports_by, account.id)
        rating = (await asyncio.to_thread(self.storage.ratings_of, [account.id])).get(account.id)
        rated = await asyncio.to_thread(self.storage.rating_events_of, account.id, 100000)
        games = []
        for gid, s in owned:
            row = rows.get(gid)
            if row is None:
                continue
            games.append(
                {
                    "id": gid,
                    "seat": s,
                    "name": row.seats[s].name if s < len(row.seats) else None,
                    "created": row.created,
                    "status": row.status,
                    "board": row.board,
                    "variants": list(row.variants),
                    "players": public_players(row),
                }
            )
        mail = await asyncio.to_thread(self.storage.mail_address, account.id)
        devices = await asyncio.to_thread(self.storage.push_subscriptions_of, account.id)
        return {
            "format": "kardinal-account-data",
            "version": 1,
            "exported": time.time(),
            "account": {"id": account.id, "name": account.name, "created": account.created, "password_changed": account.password_changed},
            "sessions": sessions,
            # the address and what it wants mailed (never the mailed tokens nor the unsubscribe key)
            "mail": {
                "email": mail.email if mail is not None else None,
                "confirmed": bool(mail and mail.confirmed),
                "notify": {k: v for k, v in (mail.notify if mail is not None else {}).items() if k != "key"},
            },
            # the devices that get push notifications: their push service and what they want (never
            # their endpoint or keys, which would let anyone push to the device)
            "push": [
                {"service": urlsplit(d.endpoint).hostname, "created": d.created, "notify": sorted(d.kinds), "lang": d.lang} for d in devices
            ],
            "games": games,
            "chat": [{"game": gid, "seat": line.seat, "at": line.at, "name": line.name, "text": line.text} for gid, line in said],
            # follows and invitations by name (social.py)
            "following": [{"name": n, "since": t} for n, t in await asyncio.to_thread(self.storage.following, account.id)],
            "followers": [{"name": n, "since": t} for n, t in await asyncio.to_thread(self.storage.followers, account.id)],
            "invitations_received": await asyncio.to_thread(self.storage.invitations_to, account.id),
            "invitations_sent": await asyncio.to_thread(self.storage.invitations_by, account.id),
            "muted": [name for _, name in muted],
            "blocked": [name for _, name in blocked],
            "reports": [{"at": r.at, "game": r.game_id, "line": r.line, "reason": r.reason, "status": r.status} for r in reported],
            "rating": None if rating is None else {"mu": rating[0], "sigma": rating[1], "games": rating[2]},
            "rated_games": rated,
        }
