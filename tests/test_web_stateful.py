"""The web server driven by random interleavings of what its clients do (a Hypothesis
stateful test): create games (people invited by link, open seats, bots; hot-seat or not),
join, claim, act (legal, stale, with a wrong token, on another's turn, or anything at
all), undo, hint, chat over a WebSocket, play a game out, "Play again", and connect and
disconnect WebSockets (hello with seats, then the state).

A model holds what the test knows (the games, their seats' tokens, the tokens a claim
made stale, the last version seen); after every step every game is checked: no answer was
ever a 5xx; the state the server holds (as a spectator and as each seat it knows a token
of) has version == the number of actions stored == its history's length; every view is
exactly ``view(state, seat)`` of the true game, rebuilt from the stored log and seed (so no
view holds another seat's hand, and a card drawn from the pile shows its kind only to its
drawer, test_web_leak.py's check); legal moves go only to the seat to act; a finished game's
record replays to the same scores and winners. Every message a WebSocket received is
checked the same way when it disconnects.

Default: a minute or less on SQLite, a shorter run on PostgreSQL; ``KARDINAL_FUZZ=1``
(``make fuzz``): ten times the examples.
"""

from __future__ import annotations

import asyncio
import functools
import json
import logging
import os
import random
import re
import shutil
import tempfile
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest
from fastapi.testclient import TestClient
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule, run_state_machine_as_test
from test_web_leak import FORBIDDEN_KEYS, keys_of
from web_helpers import make_client

from kardinal.rules.board import get_board
from kardinal.rules.record import action_of, move_of, replay
from kardinal.rules.state import State, new_game
from kardinal.rules.view import view
from kardinal.server.common.names import BAD_IN_NAME
from kardinal.server.play.chat import MAX_CHAT
from kardinal.server.play.schemas import SERVER_MESSAGE

pytestmark = pytest.mark.fuzz  # left out of make test-fast; make fuzz sizes it up
FUZZ = os.environ.get("KARDINAL_FUZZ") == "1"
SCALE = 10 if FUZZ else 1
MAX_GAMES = 5  # games one example creates at most (a played-out game is about 100 actions)
RECV_TIMEOUT = 10.0  # seconds a WebSocket message may take


# ---------------------------------------------------------------------------- the model


@dataclass
class Game:
    gid: str
    kinds: list[str]  # per seat: "person", "open" (a person seat anyone may claim), "bot"
    hotseat: bool
    hints: bool
    spectator_chat: bool
    tokens: dict[int, str]  # person seats -> their token now
    stale: list[tuple[int, str]] = field(default_factory=list)  # tokens a claim replaced
    joined: set[int] = field(default_factory=set)
    claimable: set[int] = field(default_factory=set)  # open seats not yet taken
    status: str = "open"
    version: int = 0  # as last seen; a refused request must leave it so
    again: str | None = None
    chat: int = 0  # lines said in its chat
    logs: list[list[dict[str, Any]]] = field(default_factory=list)  # every action log seen (undo shortens one)

    @property
    def persons(self) -> list[int]:
        return [i for i, k in enumerate(self.kinds) if k != "bot"]

    @property
    def bots_only(self) -> bool:
        return not self.persons


@dataclass
class Conn:
    game: Game
    seats: set[int]
    ws: Any
    got: list[dict[str, Any]] = field(default_factory=list)
    last_state: int | None = None  # the version of the last state message received


class Failures(logging.Handler):
    """Errors the server logs while it runs (a bot that failed, a table watcher that failed...)."""

    def __init__(self) -> None:
        super().__init__(logging.ERROR)
        self.records: list[logging.LogRecord] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.records.append(record)


async def _recv(ws: Any, timeout: float) -> Any:
    with anyio.fail_after(timeout):
        return await ws._send_rx.receive()


async def _quiet(service: Any, gids: list[str], timeout: float = 60.0) -> None:
    """On the server's event loop: wait until no bot is to act in any of ``gids``."""
    end = asyncio.get_running_loop().time() + timeout
    for gid in gids:
        live = service.live.get(gid)
        while (
            live is not None
            and live.row.status == "running"
            and not live.state.is_over
            and live.acting_level(live.state.current) is not None
        ):
            assert asyncio.get_running_loop().time() < end, f"the bots of {gid} did not hand the turn back"
            await asyncio.sleep(0.002)


def expected_chat(text: str) -> str:
    """A chat line as the server keeps it (GameService.say)."""
    text = unicodedata.normalize("NFC", " ".join(text.split()))
    return "".join(ch for ch in text if unicodedata.category(ch) not in BAD_IN_NAME)


JSONISH = st.recursive(
    st.none()
    | st.booleans()
    | st.integers(-5, 60)
    | st.text(max_size=8)
    | st.sampled_from(["deck", "display", "place", "draw", "exchange", "pass"]),
    lambda kids: (
        st.lists(kids, max_size=4)
        | st.dictionaries(
            st.sampled_from(["seat", "act", "from", "card", "country", "cards", "pieces", "type", "site", "give", "take"]), kids, max_size=5
        )
    ),
    max_leaves=12,
)
INDEX = st.integers(0, 2**16)
# control characters (but white space) and lone surrogates: refused by the declared messages
# (kardinal/server/common/schemas.py), stripped from a chat line by the service before them
BAD_TEXT = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\x7f-\x9f\ud800-\udfff]")


def pick(i: int, xs: list[Any]) -> Any:
    """The ``i``-th of ``xs`` (cyclically), None if empty: a choice drawn before the server's
    random deal is known (a draw that depended on it would make Hypothesis's replays differ)."""
    return xs[i % len(xs)] if xs else None


SEAT_KINDS = st.lists(st.sampled_from(["person", "open", "bot"]), min_size=3, max_size=5)
CHAT_TEXT = st.text(st.characters(codec="utf-8"), max_size=12) | st.text("ab ", min_size=295, max_size=305)


# ---------------------------------------------------------------------------- the machine


class WebMachine(RuleBasedStateMachine):
    """One example: a fresh server on a fresh database (``new_db``: a SQLAlchemy URL, or
    None for SQLite in a temporary folder)."""

    new_db: Callable[[], str | None] = staticmethod(lambda: None)

    def __init__(self) -> None:
        super().__init__()
        self.dir = Path(tempfile.mkdtemp(prefix="kardinal-stateful-"))
        self.failures = Failures()
        logging.getLogger("kardinal").addHandler(self.failures)
        self.client: TestClient = make_client(self.dir, bot_pause=0.0, db_url=type(self).new_db())
        self.client.__enter__()
        self.service = self.client.app.state.service  # type: ignore[attr-defined]
        # HTTP requests go to the app on the TestClient's event loop in one hop (its own
        # requests take several); the WebSockets are the TestClient's
        self.http = httpx.AsyncClient(
            transport=httpx.ASGITransport(app=self.client.app), base_url="http://testserver", follow_redirects=True
        )
        self.games: dict[str, Game] = {}
        self.conns: list[Conn] = []
        self.states: dict[tuple[str, str], State] = {}  # (game, its log as JSON) -> the true state
        self.seen5xx: list[str] = []

    def teardown(self) -> None:
        try:
            for c in list(self.conns):
                self._close(c, check=False)
            self._quiet()
        finally:
            logging.getLogger("kardinal").removeHandler(self.failures)
            self.client.portal.call(self.http.aclose)  # type: ignore[union-attr]
            self.client.__exit__(None, None, None)
            shutil.rmtree(self.dir, ignore_errors=True)

    # -- requests -------------------------------------------------------------

    def req(self, method: str, url: str, **kw: Any) -> Any:
        r = self.client.portal.call(functools.partial(self.http.request, method, url, **kw))  # type: ignore[union-attr]
        body = kw.get("json", kw.get("params"))
        assert r.status_code < 500, f"{method} {url} {body!r} -> {r.status_code} {r.text}"
        return r

    def expect(self, r: Any, status: int, code: str | None = None) -> Any:
        assert r.status_code == status, (
            f"{r.request.method} {r.request.url} {r.request.content!r}: expected {status} {code}, got {r.status_code} {r.text}"
        )
        if code is not None:
            assert r.json()["error"]["code"] == code, r.text
        return r.json()

    def refused(self, r: Any, *options: tuple[int, str | None]) -> None:
        """One of the refusals ``options`` (status, code); a body the declared request models
        refuse is ``malformed`` (400) before the game is looked at, so where the service
        answered otherwise before, both are named."""
        got = (r.status_code, r.json().get("error", {}).get("code") if r.status_code >= 400 else None)
        assert any(got[0] == st_ and (code is None or got[1] == code) for st_, code in options), (
            f"{r.request.method} {r.request.url} {r.request.content!r}: expected one of {options}, got {r.status_code} {r.text}"
        )

    def _quiet(self, gids: list[str] | None = None) -> None:
        self.client.portal.call(_quiet, self.service, list(self.games) if gids is None else gids)  # type: ignore[union-attr]

    def spectate(self, g: Game) -> dict[str, Any]:
        self._quiet([g.gid])
        return self.expect(self.req("GET", f"/api/games/{g.gid}/state"), 200)  # type: ignore[no-any-return]

    def seat_state(self, g: Game, seat: int) -> dict[str, Any]:
        return self.expect(self.req("GET", f"/api/games/{g.gid}/state", params={"seat": seat, "token": g.tokens[seat]}), 200)  # type: ignore[no-any-return]

    def unchanged(self, g: Game) -> None:
        """A refused request changed nothing."""
        assert self.spectate(g)["version"] == g.version

    def running(self) -> list[Game]:
        return [g for g in self.games.values() if g.status == "running"]

    def to_act(self, g: Game) -> tuple[int, dict[str, Any]] | None:
        """The person seat to act in a running game and its state message, if any."""
        spec = self.spectate(g)
        g.status = spec["status"]
        if spec["status"] != "running":
            return None
        cur = spec["view"]["current"]
        if cur not in g.tokens:
            return None
        msg = self.seat_state(g, cur)
        assert "legal" in msg and msg["legal"], msg
        return cur, msg

    def _add(
        self, gid: str, kinds: list[str], hotseat: bool, hints: bool, spectator_chat: bool, tokens: dict[int, str], status: str
    ) -> Game:
        g = Game(gid, kinds, hotseat, hints, spectator_chat, tokens, status=status)
        g.joined = {i for i, k in enumerate(kinds) if k == "bot" or hotseat}
        g.claimable = set() if hotseat else {i for i, k in enumerate(kinds) if k == "open"}
        assert status == ("running" if len(g.joined) == len(kinds) else "open")
        self.games[gid] = g
        return g

    # -- rules ------------------------------------------------------------------

    @precondition(lambda self: len(self.games) < MAX_GAMES)
    @rule(
        kinds=SEAT_KINDS, hotseat=st.booleans(), hints=st.booleans(), spectator_chat=st.booleans(), mode=st.sampled_from(["live", "turn"])
    )
    def create(self, kinds: list[str], hotseat: bool, hints: bool, spectator_chat: bool, mode: str) -> None:
        players: list[dict[str, Any]] = []
        for i, k in enumerate(kinds):
            if k == "bot":
                players.append({"name": f"Bot{i}", "kind": "bot", "level": "random"})
            else:
                players.append({"name": f"P{i}", "kind": "person", "open": k == "open"})
        spec = {"players": players, "hotseat": hotseat, "board": "standard", "hints": hints, "spectator_chat": spectator_chat, "mode": mode}
        r = self.req("POST", "/api/games", json=spec)
        if all(k == "bot" for k in kinds) and r.status_code == 429:
            self.expect(r, 429, "too_many_bot_games")
            return
        out = self.expect(r, 200)
        toks = {s["seat"]: s["token"] for s in out["seats"]}
        assert sorted(toks) == [i for i, k in enumerate(kinds) if k != "bot"]
        assert ("hotseat_url" in out) == hotseat
        self._add(out["id"], kinds, hotseat, hints, spectator_chat, toks, out["status"])

    @precondition(lambda self: bool(self.games))
    @rule(i=INDEX, j=INDEX, named=st.booleans())
    def join(self, i: int, j: int, named: bool) -> None:
        g = pick(i, [g for g in self.games.values() if g.status == "open"])
        if g is None:
            return
        seat = pick(j, sorted(g.tokens))
        assert seat is not None
        body: dict[str, Any] = {"seat": seat, "token": g.tokens[seat]}
        if named:
            body["name"] = f"Name {seat}"
        self.expect(self.req("POST", f"/api/games/{g.gid}/join", json=body), 200)
        g.joined.add(seat)
        g.claimable.discard(seat)
        if len(g.joined) == len(g.kinds):
            g.status = "running"
        assert self.spectate(g)["status"] == g.status

    @precondition(lambda self: bool(self.games))
    @rule(i=INDEX, j=INDEX, free=st.booleans())
    def claim(self, i: int, j: int, free: bool) -> None:
        g = pick(i, list(self.games.values()))
        assert g is not None
        seat = pick(j, sorted(g.claimable)) if free and g.claimable else j % (len(g.kinds) + 2) - 1
        assert seat is not None
        r = self.req("POST", f"/api/games/{g.gid}/claim", json={"seat": seat, "name": f"Claimer {seat}"})
        if seat < 0:
            self.refused(r, (400, "malformed"), (409, "not_open"))
        elif g.status != "open":
            self.expect(r, 409, "not_open")
        elif not 0 <= seat < len(g.kinds):
            self.expect(r, 400, "malformed")
        elif g.kinds[seat] == "bot" or seat in g.joined:
            self.expect(r, 409, "seat_taken")
        elif seat not in g.claimable:
            self.expect(r, 403, "seat_invited")
        else:
            out = self.expect(r, 200)
            assert out["seat"] == seat
            g.stale.append((seat, g.tokens[seat]))
            g.tokens[seat] = out["token"]
            g.joined.add(seat)
            g.claimable.discard(seat)
            if len(g.joined) == len(g.kinds):
                g.status = "running"
            return
        self.unchanged(g)

    @precondition(lambda self: bool(self.games))
    @rule(i=INDEX, j=INDEX, resend=st.booleans())
    def act_legal(self, i: int, j: int, resend: bool) -> None:
        g = pick(i, self.running())
        turn = None if g is None else self.to_act(g)
        if g is None or turn is None:
            return
        seat, msg = turn
        action = pick(j, msg["legal"])
        body = {"seat": seat, "token": g.tokens[seat], "version": msg["version"], "action": action, "id": f"a{msg['version']}"}
        ack = self.expect(self.req("POST", f"/api/games/{g.gid}/actions", json=body), 200)
        assert ack == {"type": "ack", "id": body["id"], "version": msg["version"] + 1, "index": msg["version"], "duplicate": False}
        after = self.spectate(g)
        assert after["version"] >= msg["version"] + 1
        assert after["view"]["history"][msg["version"]]["action"] == action
        g.version, g.status = after["version"], after["status"]
        if resend:  # the same action sent again (a lost ack): a duplicate, nothing changes
            again = self.req("POST", f"/api/games/{g.gid}/actions", json=body)
            ack2 = self.expect(again, 200)
            assert ack2["duplicate"] is True and ack2["index"] == msg["version"], ack2
            self.unchanged(g)

    @precondition(lambda self: bool(self.games))
    @rule(
        i=INDEX,
        j=INDEX,
        k=INDEX,
        junk=JSONISH,
        how=st.sampled_from(["stale", "wrong_token", "old_token", "other_seat", "anything", "mangled", "not_object"]),
    )
    def act_wrong(self, i: int, j: int, k: int, junk: Any, how: str) -> None:
        g = pick(i, [g for g in self.games.values() if g.persons])
        if g is None:
            return
        spec = self.spectate(g)
        g.version = spec["version"]
        cur = spec["view"]["current"]
        seat = cur if cur in g.tokens else pick(j, sorted(g.tokens))
        assert seat is not None
        token = g.tokens[seat]
        legal = self.seat_state(g, seat).get("legal") or [{"seat": seat, "act": "draw", "from": "deck"}]
        action: Any = pick(k, legal)
        version = g.version
        expected: tuple[int, str] | None = None
        if how == "stale":
            version = pick(j, [g.version - 1, g.version + 1, 10**6, -1])
        elif how == "wrong_token":
            token = pick(j, ["", "x" * 24, token[:-1] + ("A" if token[-1] != "A" else "B")])
            expected = (403, "bad_token")
        elif how == "old_token":
            if not g.stale:
                return
            seat, token = pick(j, g.stale)
            expected = (403, "bad_token")
        elif how == "other_seat":
            others = [s for s in g.tokens if s != cur]
            if not others:
                return
            seat = pick(j, others)
            token = g.tokens[seat]
            action = {**action, "seat": seat}
        elif how == "anything":
            action = junk
        elif how == "mangled":
            action = {**action, pick(j, sorted(action)): junk}
        body: Any = {"seat": seat, "token": token, "version": version, "action": action}
        if how == "not_object":
            body = pick(j, [[], "x", 3, None, [body]])
        r = self.req("POST", f"/api/games/{g.gid}/actions", json=body)
        if how == "wrong_token" and token == "":
            self.refused(r, (403, "bad_token"), (400, "malformed"))
        elif expected is not None:
            self.expect(r, *expected)
        elif how == "not_object" or (how == "stale" and version < 0):
            self.expect(r, 400, "malformed")
        elif how in ("anything", "mangled") and r.status_code == 400:
            self.expect(r, 400, "malformed")
        elif g.status == "open":
            if how == "stale" and not isinstance(version, int):
                self.expect(r, 400, "malformed")
            elif isinstance(action, dict):
                self.expect(r, 409, "not_started")
            else:
                self.expect(r, 400, "malformed")
        elif g.status == "finished":
            self.expect(r, 409 if isinstance(action, dict) else 400)
        elif how == "stale":
            self.expect(r, 409, "stale_version" if seat == cur else "not_your_turn")
        elif how == "other_seat":
            self.expect(r, 409, "not_your_turn")
        elif r.status_code == 200:  # a mangled action may still be a legal one
            spec = self.spectate(g)
            g.version, g.status = spec["version"], spec["status"]
            return
        else:
            assert r.status_code in (400, 409, 422), r.text
            if seat != cur:
                self.expect(r, 409 if isinstance(action, dict) else 400)
        self.unchanged(g)

    @precondition(lambda self: bool(self.games))
    @rule(i=INDEX, stale=st.booleans())
    def undo(self, i: int, stale: bool) -> None:
        g = pick(i, self.running())
        if g is None:
            return
        spec = self.spectate(g)
        v = spec["view"]
        cur = v["current"]
        if cur not in g.tokens or spec["status"] != "running":
            return
        hist = v["history"]
        body = {"seat": cur, "token": g.tokens[cur], "version": spec["version"] + (1 if stale else 0)}
        r = self.req("POST", f"/api/games/{g.gid}/undo", json=body)
        can = (
            bool(hist)
            and hist[-1]["action"]["seat"] == cur
            and hist[-1]["action"]["act"] == "place"
            and v["phase"] == "draw"
            and not hist[-1]["events"]
        )
        if stale:
            self.expect(r, 409, "stale_version")
        elif not can:
            self.expect(r, 409, "cannot_undo")
        else:
            ack = self.expect(r, 200)
            assert ack["version"] == spec["version"] - 1 == ack["index"], ack
            after = self.spectate(g)
            assert after["version"] == spec["version"] - 1
            assert after["view"]["history"] == hist[:-1]
            g.version = after["version"]
            return
        self.unchanged(g)

    @precondition(lambda self: bool(self.games))
    @rule(i=INDEX, j=INDEX, stale=st.booleans())
    def hint(self, i: int, j: int, stale: bool) -> None:
        g = pick(i, [g for g in self.games.values() if g.persons])
        if g is None:
            return
        spec = self.spectate(g)
        cur = spec["view"]["current"]
        seat = cur if cur in g.tokens else pick(j, sorted(g.tokens))
        assert seat is not None
        version = spec["version"] + (1 if stale else 0)
        r = self.req("POST", f"/api/games/{g.gid}/hint", json={"seat": seat, "token": g.tokens[seat], "version": version})
        if not (g.hints or g.hotseat or len(g.persons) <= 1):  # LiveGame.hints_allowed
            self.expect(r, 403, "hints_off")
        elif spec["status"] == "open":
            self.expect(r, 409, "not_started")
        elif spec["status"] == "finished":
            self.expect(r, 409, "game_over")
        elif seat != cur:
            self.expect(r, 409, "not_your_turn")
        elif stale:
            self.expect(r, 409, "stale_version")
        else:
            out = self.expect(r, 200)
            assert out["type"] == "hint" and out["version"] == spec["version"] and out["game"] == g.gid, out
            legal = self.seat_state(g, seat)["legal"]
            assert out["seat"] == seat and out["options"], out
            for o in out["options"]:
                assert o["action"] in legal, (o, legal)
        self.unchanged(g)

    @precondition(lambda self: bool(self.games))
    @rule(i=INDEX, seed=st.integers(0, 2**32))
    def play_out(self, i: int, seed: int) -> None:
        """Every person joins and plays random legal moves until the game is over."""
        g = pick(i, [g for g in self.games.values() if g.persons and g.status != "finished"])
        if g is None:
            return
        rng = random.Random(seed)
        for seat in g.persons:
            if seat not in g.joined:
                self.expect(self.req("POST", f"/api/games/{g.gid}/join", json={"seat": seat, "token": g.tokens[seat]}), 200)
                g.joined.add(seat)
                g.claimable.discard(seat)
        g.status = "running"
        for _ in range(400):
            turn = self.to_act(g)
            if turn is None:
                break
            seat, msg = turn
            body = {"seat": seat, "token": g.tokens[seat], "version": msg["version"], "action": rng.choice(msg["legal"])}
            self.expect(self.req("POST", f"/api/games/{g.gid}/actions", json=body), 200)
        spec = self.spectate(g)
        assert spec["status"] == "finished", "400 person moves did not finish the game"
        g.status, g.version = spec["status"], spec["version"]

    @precondition(lambda self: bool(self.games))
    @rule(i=INDEX, j=INDEX, how=st.sampled_from(["all", "one", "wrong", "none"]))
    def again(self, i: int, j: int, how: str) -> None:
        g = pick(i, [g for g in self.games.values() if g.status == "finished"])
        if g is None:
            return
        seats: Any = {str(s): t for s, t in g.tokens.items()}
        if how == "one" and seats:
            k = pick(j, sorted(seats))
            seats = {k: seats[k]}
        elif how == "wrong" and seats:
            seats = {k: t + "x" for k, t in seats.items()}
        elif how == "none":
            seats = None
        r = self.req("POST", f"/api/games/{g.gid}/again", json={"seats": seats})
        if g.persons and (how in ("wrong", "none")):
            self.expect(r, 403, "bad_token")
            return
        if not g.persons and len([x for x in self.games.values() if x.bots_only and x.status == "running"]) >= 5 and r.status_code == 429:
            return
        out = self.expect(r, 200)
        if g.again is not None:
            assert out["id"] == g.again, "asking again gives the same new game"
            return
        g.again = out["id"]
        assert out["id"] not in self.games
        # the new game's seats are invited ones, the start player moved on one seat (the old seat 1 begins)
        n = len(g.kinds)
        kinds = ["bot" if k == "bot" else "person" for k in g.kinds[1:] + g.kinds[:1]]
        moved = {s: (s - 1) % n for s in g.tokens}
        assert out["seats"] == {k: moved[int(k)] for k in (seats or {})}, out
        status = "running" if g.hotseat or not g.persons else "open"
        assert out["status"] == status, out
        new = self._add(out["id"], kinds, g.hotseat, g.hints, g.spectator_chat, {moved[s]: t for s, t in g.tokens.items()}, status)
        assert self.spectate(g)["again"] == new.gid

    # -- WebSockets -------------------------------------------------------------

    @precondition(lambda self: bool(self.games) and len(self.conns) < 6)
    @rule(i=INDEX, j=INDEX, mask=st.integers(0, 31))
    def ws_connect(self, i: int, j: int, mask: int) -> None:
        g = pick(i, list(self.games.values()))
        assert g is not None
        persons = sorted(g.tokens)
        if g.hotseat:
            seats = {s for s in persons if mask >> s & 1}
        else:
            seats = set(pick(j, [[], *([s] for s in persons)]) or [])
        ws = self.client.websocket_connect(f"/ws/{g.gid}")
        ws.__enter__()
        c = Conn(g, seats, ws)
        self.conns.append(c)
        ws.send_json({"type": "hello", "seats": {str(s): g.tokens[s] for s in sorted(seats)}})
        welcome = self._recv(c)
        assert welcome == {"type": "welcome", "game": g.gid, "seats": sorted(seats)}, welcome
        g.joined |= seats  # a person who connects has joined their seat
        g.claimable -= seats
        if g.status == "open" and len(g.joined) == len(g.kinds):
            g.status = "running"
        first = self._recv(c)
        assert first["type"] == "state", first
        spec = self.spectate(g)
        assert first["status"] in ("open", "running", "finished")
        assert first["version"] <= spec["version"]

    @precondition(lambda self: bool(self.conns))
    @rule(i=INDEX)
    def ws_disconnect(self, i: int) -> None:
        c = pick(i, self.conns)
        assert c is not None
        self._close(c)

    @precondition(lambda self: bool(self.conns))
    @rule(i=INDEX, text=CHAT_TEXT | st.integers() | st.none())
    def ws_chat(self, i: int, text: Any) -> None:
        c = pick(i, self.conns)
        assert c is not None
        g = c.game
        c.ws.send_json({"type": "chat", "id": "chat1", "text": text, "name": "Watcher"})
        # what the service did before the declared messages: control characters stripped
        if not isinstance(text, str):
            want: str | None = "malformed"
        elif not expected_chat(text) or len(expected_chat(text)) > MAX_CHAT:
            want = "bad_chat"
        elif not c.seats and not g.spectator_chat:
            want = "chat_closed"
        else:
            want = None
        # since: control characters and lone surrogates are refused
        bad = isinstance(text, str) and BAD_TEXT.search(text) is not None
        while True:
            m = self._recv(c)
            if m["type"] == "error":
                assert m["id"] == "chat1", m
                assert m["code"] == want or (bad and m["code"] in ("malformed", "bad_chat")), (m, text)
                return
            if m["type"] == "chat":
                mine = [x for x in m["lines"] if x["idx"] == g.chat]
                if not mine:
                    continue  # the chat so far, sent after the welcome
                assert want is None, (m, text)
                line = mine[0]
                g.chat += 1
                assert line["kind"] == "say" and line["text"] == expected_chat(text), (line, text)
                assert (line["seat"] is None) == (not c.seats), line
                return

    def _recv(self, c: Conn, timeout: float = RECV_TIMEOUT) -> dict[str, Any]:
        msg = self.client.portal.call(_recv, c.ws, timeout)  # type: ignore[union-attr]
        assert msg["type"] == "websocket.send", msg
        m: dict[str, Any] = json.loads(msg["text"])
        SERVER_MESSAGE.validate_python(m)  # every message is one the protocol declares (schemas.py)
        c.got.append(m)
        if m["type"] == "state":
            c.last_state = m["version"]
        return m

    def _close(self, c: Conn, check: bool = True) -> None:
        """Read what the connection was sent up to the game's state now, check it, and close."""
        self.conns.remove(c)
        try:
            if check:
                now = self.spectate(c.game)["version"]
                while True:
                    try:
                        self._recv(c, RECV_TIMEOUT if c.last_state != now else 0.05)
                    except TimeoutError:
                        assert c.last_state == now, f"no state message of version {now} came (last: {c.last_state})"
                        break
                self._record_log(c.game)
                for m in c.got:
                    self._check_message(c, m)
        finally:
            c.ws.__exit__(None, None, None)

    # -- checks -----------------------------------------------------------------

    def _record_log(self, g: Game) -> list[dict[str, Any]]:
        log = self.service.storage.actions(g.gid)
        if not g.logs or g.logs[-1] != log:
            g.logs.append(log)
        return log  # type: ignore[no-any-return]

    def _true_state(self, g: Game, log: list[dict[str, Any]]) -> State:
        key = (g.gid, json.dumps(log))
        if key not in self.states:
            row = self.service.storage.get_game(g.gid)
            s = new_game(len(row.seats), seed=row.seed, board=get_board(row.board), variants=row.variants)
            for a in log:
                s.play(move_of(a)[1])
            self.states[key] = s
        return self.states[key]

    def _candidates(self, g: Game, version: int) -> list[State]:
        """The true states the game had at ``version`` (an undo makes several)."""
        logs = {json.dumps(x[:version]): x[:version] for x in g.logs if len(x) >= version}
        return [self._true_state(g, x) for x in logs.values()]

    def _check_message(self, c: Conn, m: dict[str, Any]) -> None:
        g = c.game
        text = json.dumps(m)
        assert not (keys_of(m) & FORBIDDEN_KEYS), keys_of(m) & FORBIDDEN_KEYS
        if m["type"] != "state":
            return
        states = self._candidates(g, m["version"])
        assert states, f"a state message of version {m['version']} that no log seen reached"
        seat = m["seat"]
        if len(c.seats) == 1:
            assert seat in c.seats
        elif not c.seats or m["status"] != "running":
            assert seat is None, m
        else:
            assert seat is None or seat in c.seats
        assert any(m["view"] == view(s, seat) for s in states), "a WebSocket view is not view(state, seat) of the true game"
        if seat is None:
            assert "hand" not in m["view"]
        if "legal" in m:
            assert m["status"] == "running" and seat is not None and g.kinds[seat] != "bot"
            assert any(s.current == seat and m["legal"] == [action_of(seat, x) for x in s.legal_moves()] for s in states)
        assert str(self.service.storage.get_game(g.gid).seed) not in text

    @invariant()
    def every_game_is_consistent(self) -> None:
        self._quiet()
        for g in self.games.values():
            spec = self.expect(self.req("GET", f"/api/games/{g.gid}/state"), 200)
            log = self._record_log(g)
            v = spec["version"]
            assert v == len(log) == len(spec["view"]["history"]), (v, len(log))
            assert v >= g.version or any(len(x) > v for x in g.logs), "the version went back without an undo"
            g.version, g.status = v, spec["status"]
            true = self._true_state(g, log)
            assert spec["seat"] is None and "hand" not in spec["view"] and "legal" not in spec
            assert spec["view"] == view(true, None)
            assert not (keys_of(spec) & FORBIDDEN_KEYS)
            for seat, tok in g.tokens.items():
                msg = self.seat_state(g, seat)
                assert msg["seat"] == seat and msg["version"] == v
                assert msg["view"] == view(true, seat), "a seat's view is not its own view of the true game"
                acts = g.status == "running" and true.current == seat
                assert ("legal" in msg) == acts, msg.get("legal")
                if acts:
                    assert msg["legal"] == [action_of(seat, x) for x in true.legal_moves()]
                assert not (keys_of(msg) & FORBIDDEN_KEYS)
                wrong = self.req("GET", f"/api/games/{g.gid}/state", params={"seat": seat, "token": tok[::-1]})
                self.expect(wrong, 403, "bad_token")
            summary = self.expect(self.req("GET", f"/api/games/{g.gid}"), 200)
            assert summary["status"] == g.status and summary["version"] == v
            r = self.req("GET", f"/api/games/{g.gid}/record")
            if g.status == "finished":
                rec = self.expect(r, 200)
                assert len(rec["actions"]) == v
                again = replay(json.loads(json.dumps(rec)))
                assert again.is_over
                assert again.scores == rec["result"]["scores"] == spec["view"]["scores"] == true.scores
                assert again.winners == rec["result"]["winners"] == spec["view"]["winners"]
            else:
                self.expect(r, 409, "not_finished")
        errors = [f"{r.name}: {r.getMessage()}" for r in self.failures.records]
        assert not errors, errors


def run(new_db: Callable[[], str | None], examples: int, steps: int) -> None:
    machine = type("Machine", (WebMachine,), {"new_db": staticmethod(new_db)})
    run_state_machine_as_test(
        machine,
        settings=settings(
            max_examples=examples,
            stateful_step_count=steps,
            deadline=None,
            # shrinking a failure of a long run of requests can take many minutes: only in the long run
            phases=[Phase.explicit, Phase.reuse, Phase.generate, *([Phase.shrink] if FUZZ else [])],
            suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much, HealthCheck.data_too_large],
        ),
    )


@pytest.fixture()
def quick_hints(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KARDINAL_HINT_ITERATIONS", "30")
    monkeypatch.setenv("KARDINAL_HINT_SECONDS", "0.2")


@pytest.mark.timeout(600 * SCALE)
def test_web_stateful_sqlite(quick_hints: None) -> None:
    run(lambda: None, examples=10 * SCALE, steps=30)


@pytest.mark.timeout(600 * SCALE)
def test_web_stateful_postgresql(quick_hints: None, pg: Any) -> None:
    run(pg.new_database, examples=4 * SCALE, steps=25)
