"""State messages made for many connections (issue 13): the texts kept per game (the
history encoded once per viewer, the parts every seat shares) mean what the full message
means, and the deltas a client asks for (hello ``"delta": true``) rebuild it exactly,
through moves, undos, hot-seat changes of viewer and reconnections; a delta never holds a
card another seat may not see. Group commit: several games' actions in one transaction."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import act, create, join_all, make_client, state, tokens

from kardinal.rules.board import get_board
from kardinal.rules.events import Drew, IntermediateScoring, LastRound
from kardinal.rules.record import rewind
from kardinal.rules.state import new_game
from kardinal.rules.view import history_entry
from kardinal.server.play.live import Connection, LiveGame, standing
from kardinal.server.storage import DuplicateAction, GameRow, PendingAction, SeatRow, Storage


def _live(seed: int, players: int = 3) -> LiveGame:
    board = get_board("standard")
    row = GameRow(
        id="g",
        board="standard",
        seats=[SeatRow(f"P{i}", "person", None, "h", True) for i in range(players)],
        hotseat=False,
        deck=[],
        seed=seed,
        status="running",
        variants=[],
        options={},
    )
    return LiveGame(row, board, new_game(players, seed=seed, board=board))


class Client:
    """What net.js does with the state messages of one connection."""

    def __init__(self) -> None:
        self.history: list[Any] | None = None

    def take(self, text: str) -> dict[str, Any]:
        m: dict[str, Any] = json.loads(text)
        if "history" in m:
            d = m.pop("history")
            assert self.history is not None and len(self.history) >= d["from"]
            m["view"]["history"] = self.history[: d["from"]] + d["entries"]
        self.history = m["view"]["history"]
        return m


def _step(live: LiveGame, rng: random.Random) -> None:
    """A move, or now and then one or two taken back (a new history)."""
    if rng.random() < 0.1 and live.version > 2:
        live.state = rewind(live.state, live.version - rng.randint(1, 2))
    else:
        st = live.state.copy()
        st.play(rng.choice(st.legal_moves()))
        live.state = st
    if live.state.is_over:
        live.row.status = "finished"


def _marks_read_afresh(live: LiveGame) -> dict[str, int]:
    out = {}
    for i, d in enumerate(live.state.history or ()):
        for e in d.events:
            if isinstance(e, IntermediateScoring):
                out["intermediate"] = i + 1
            elif isinstance(e, LastRound):
                out["last_round"] = i + 1
    return out


@pytest.mark.parametrize("seed", range(4))
def test_texts_and_deltas_mean_the_full_message(seed: int) -> None:
    live = _live(seed)
    rng = random.Random(seed)
    # each seat, a spectator and a hot-seat connection (its viewer changes with the turn);
    # some connections miss changes (they get the latest state once: a longer delta)
    conns = [Connection({0: "t"}, delta=True), Connection({2: "t"}, delta=True), Connection({}, delta=True)]
    conns.append(Connection({0: "t", 1: "t"}, delta=True))
    clients = [Client() for _ in conns]
    deltas = 0
    while not live.state.is_over:
        _step(live, rng)
        for conn, cl in zip(conns, clients):
            if rng.random() < 0.7:
                seat = live.seat_for(conn.seats)
                text = live.text_for(conn)
                deltas += '"history":{"from"' in text
                assert cl.take(text) == live.message(seat)
                assert json.loads(live.message_text(seat)) == live.message(seat)
        # the parts kept from one state to the next are what they are made from now
        # (the marks are read on from where they were, the standing kept while no advisor moves)
        assert live.message(None)["marks"] == _marks_read_afresh(live)
        assert live.message(None)["standing"] == standing(live.board, live.state)
        if rng.random() < 0.05:  # a reconnection: a new connection, a full message first
            conns[0] = Connection({0: "t"}, delta=True)
            clients[0] = Client()
    assert deltas > 100


def test_a_delta_holds_no_hidden_card() -> None:
    """A spectator's and another seat's deltas never hold a drawn card's kind."""
    live = _live(7)
    rng = random.Random(7)
    spectator, other = Connection({}, delta=True), Connection({1: "t"}, delta=True)
    drawn = 0
    while not live.state.is_over:
        _step(live, rng)
        for conn, viewer in ((spectator, None), (other, 1)):
            m = json.loads(live.text_for(conn))
            entries = m["history"]["entries"] if "history" in m else m["view"]["history"]
            for e in entries:
                for ev in e["events"]:
                    if ev["type"] == "drew":
                        drawn += 1
                        if ev["seat"] != viewer:
                            assert ev["kind"] is None
            assert "hand" not in m["view"] or viewer is not None
    assert drawn > 10


def test_a_history_entry_is_encoded_once_for_all_who_see_it_alike() -> None:
    """Every seat and a spectator get the history; a decision is encoded once for them all,
    and once more only for the seat that drew a card from the pile (its kind is theirs)."""
    live = _live(3)
    rng = random.Random(3)
    conns = [Connection({s: "t"}, delta=True) for s in range(3)] + [Connection({}, delta=True)]
    while not live.state.is_over:
        _step(live, rng)
        for conn in conns:
            live.text_for(conn)
    hist = live.state.history or []
    private = 0
    for i, d in enumerate(hist):
        made, texts = live._entries[i]
        assert made is d
        drawers = {e.seat for e in d.events if isinstance(e, Drew) and e.kind is not None}
        assert set(texts) == {None} | drawers
        for who, text in texts.items():
            assert json.loads(text) == history_entry(live.board, d, who)
        private += len(drawers)
    assert private > 10


def test_a_connection_without_delta_gets_full_messages() -> None:
    live = _live(3)
    rng = random.Random(3)
    conn = Connection({1: "t"})
    for _ in range(5):
        _step(live, rng)
        m = json.loads(live.text_for(conn))
        assert "history" not in m and m == live.message(1)


def _ws_messages(ws: Any, n: int) -> list[dict[str, Any]]:
    return [ws.receive_json() for _ in range(n)]


@pytest.fixture()
def client(tmp_path: Path, db_url: str) -> Any:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def test_the_websocket_sends_deltas_to_who_asks(client: TestClient) -> None:
    g = create(client, "person", "person", "person")
    join_all(client, g)
    gid, toks = g["id"], tokens(g)
    with client.websocket_connect(f"/ws/{gid}") as new, client.websocket_connect(f"/ws/{gid}") as old:
        new.send_json({"type": "hello", "delta": True})
        old.send_json({"type": "hello"})
        assert new.receive_json()["type"] == old.receive_json()["type"] == "welcome"
        first = new.receive_json()
        assert "history" not in first and first["view"]["history"] == [] and old.receive_json()["view"]["history"] == []
        held = first["view"]["history"]
        rng = random.Random(5)
        for _ in range(6):
            s = state(client, gid)
            seat = s["view"]["current"]
            legal = state(client, gid, seat, toks[seat])["legal"]
            assert act(client, gid, seat, toks[seat], s["version"], rng.choice(legal)).status_code == 200
            d, full = new.receive_json(), old.receive_json()
            assert "history" not in full and d["history"]["from"] == len(held)
            held = held[: d["history"]["from"]] + d["history"]["entries"]
            assert held == full["view"]["history"]
            assert {k: v for k, v in d.items() if k != "history"}["view"] == {k: v for k, v in full["view"].items() if k != "history"}


def test_group_commit_writes_every_action_and_refuses_a_taken_one(tmp_path: Path) -> None:
    st = Storage.sqlite(tmp_path / "k.sqlite3")
    board = get_board("standard")
    ids = [k.id for k in board.cards]
    for gid in ("a", "b"):
        g = new_game(3, seed=1, board=board)
        st.create_game(
            GameRow(
                id=gid,
                board="standard",
                seats=[SeatRow(f"P{i}", "person", None, "h", True) for i in range(3)],
                hotseat=False,
                deck=[ids[k] for k in g.initial_deck],
                seed=1,
                status="running",
                variants=[],
                options={},
            )
        )
    act0 = {"seat": 0, "act": "pass"}
    assert st.write_batch([PendingAction("a", 0, act0, "0:x"), PendingAction("b", 0, act0, "0:y", status="finished")]) == [None, None]
    assert st.count_actions("a") == st.count_actions("b") == 1 and st.get_game("b").status == "finished"  # type: ignore[union-attr]
    # one refused (its index is taken): the other is committed all the same
    r = st.write_batch([PendingAction("a", 0, act0), PendingAction("b", 1, act0, "0:z")])
    assert isinstance(r[0], DuplicateAction) and r[1] is None
    assert st.count_actions("a") == 1 and st.count_actions("b") == 2 and st.client_action("b", "0:z") == 1
    # the refused one last: what the batch's transaction had written before it is taken back,
    # then written on its own (SQLite writes such plain actions through its driver: _write_plain)
    before = st.get_game("a").updated  # type: ignore[union-attr]
    r = st.write_batch([PendingAction("a", 1, act0, "0:w"), PendingAction("b", 1, act0)])
    assert r[0] is None and isinstance(r[1], DuplicateAction)
    assert st.count_actions("a") == 2 and st.client_action("a", "0:w") == 1 and st.count_actions("b") == 2
    assert st.get_game("a").updated > before  # type: ignore[union-attr]  # the game's row was touched too
    with pytest.raises(DuplicateAction):
        st.append_action("a", 1, act0)
    st.close()


def test_plain_writes_keep_their_connection_and_replace_a_broken_one(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """SQLite's plain actions (_write_plain) are committed on one kept connection, not one
    taken from the pool for each commit; a refused write leaves it usable, and after one
    that broke it the next write takes a new one and nothing is lost."""
    st = Storage.sqlite(tmp_path / "k.sqlite3")
    board = get_board("standard")
    g = new_game(3, seed=1, board=board)
    ids = [k.id for k in board.cards]
    st.create_game(
        GameRow(
            id="a",
            board="standard",
            seats=[SeatRow(f"P{i}", "person", None, "h", True) for i in range(3)],
            hotseat=False,
            deck=[ids[k] for k in g.initial_deck],
            seed=1,
            status="running",
            variants=[],
            options={},
        )
    )
    taken: list[object] = []
    raw = st.engine.raw_connection

    def counted() -> object:
        taken.append(1)
        return raw()

    monkeypatch.setattr(st.engine, "raw_connection", counted)
    act0 = {"seat": 0, "act": "pass"}
    for i in range(5):
        assert st.write_batch([PendingAction("a", i, act0, f"0:{i}")]) == [None]
    assert len(taken) == 1  # one connection for the five commits
    with pytest.raises(DuplicateAction):  # refused: nothing written, the connection kept
        st.append_action("a", 4, act0)
    assert st.write_batch([PendingAction("a", 5, act0)]) == [None] and len(taken) == 1
    st._plain_conn.close()  # broken underneath (as by a failing disk)
    with pytest.raises(Exception):  # noqa: B017 - whatever the driver raises for it
        st.write_batch([PendingAction("a", 6, act0)])
    assert st.write_batch([PendingAction("a", 6, act0)]) == [None] and len(taken) == 2  # a new connection
    assert st.count_actions("a") == 7 and st.client_action("a", "0:4") == 4
    st.close()


def test_games_nobody_uses_leave_memory_and_come_back(client: TestClient) -> None:
    """A finished game nobody looks at leaves memory after FINISHED_KEPT seconds (and a
    running one after IDLE_KEPT), never while connected; asked for again, it is read back."""
    from kardinal.server.play.presence import FINISHED_KEPT, IDLE_KEPT

    service = client.app.state.service  # type: ignore[attr-defined]
    g = create(client, "person", "person", "person")
    join_all(client, g)
    gid = g["id"]
    live = service.get(gid)
    conn = Connection({})
    live.conns.add(conn)
    live.conns_changed()
    assert service.sweep(live.touched + IDLE_KEPT * 10) == 0  # connected: kept
    service.disconnect(live, conn)
    assert service.sweep(live.touched + FINISHED_KEPT + 1) == 0  # running: kept longer
    assert service.sweep(live.touched + IDLE_KEPT + 1) == 1 and gid not in service.live
    assert state(client, gid)["version"] == 0 and gid in service.live  # read back


def test_a_large_audience_gets_every_change_and_the_players_first(client: TestClient) -> None:
    """More spectators than SPECTATORS_AT_ONCE: the players are told at once, the
    spectators a moment later, all of them, with the newest state, SPECTATORS_PER_TURN at
    a time with a turn of the event loop between (whatever else waits goes on meanwhile)."""
    import asyncio

    from kardinal.server.play.presence import SPECTATORS_AT_ONCE, SPECTATORS_PER_TURN

    service = client.app.state.service  # type: ignore[attr-defined]
    g = create(client, "person", "person", "person")
    join_all(client, g)
    live = service.get(g["id"])

    async def run() -> None:
        player = Connection({0: "t"})
        crowd = [Connection({}) for _ in range(SPECTATORS_AT_ONCE * 3 + 1)]
        live.conns.update([player, *crowd])
        live.conns_changed()
        service._tell(live)
        assert player.outbox.qsize() == 1 and all(c.outbox.empty() for c in crowd)
        service._tell(live)  # a second change before they were told: one round for both
        due = live.spectators_due
        assert due is not None
        told: list[int] = []  # how many were told, at each turn of the loop another task had

        async def other() -> None:
            while not due.done():
                told.append(sum(1 for c in crowd if not c.outbox.empty()))
                await asyncio.sleep(0)

        watching = asyncio.create_task(other())
        await due
        await watching
        assert all(c.outbox.qsize() == 1 for c in crowd)
        steps = [b - a for a, b in zip(told, told[1:], strict=False) if b != a]
        assert steps and max(steps) <= SPECTATORS_PER_TURN < SPECTATORS_AT_ONCE and len(steps) >= len(crowd) // SPECTATORS_PER_TURN

    asyncio.run(run())


def test_a_larger_audience_is_told_less_often() -> None:
    """Up to SPECTATORS_PER_PAUSE spectators: every SPECTATORS_PAUSE; beyond, the pause
    grows with the audience (the rounds of sends keep about the same share of the server),
    up to SPECTATORS_PAUSE_MAX (every spectator sees the newest state within a second)."""
    from kardinal.server.play.presence import SPECTATORS_PAUSE, SPECTATORS_PAUSE_MAX, SPECTATORS_PER_PAUSE, spectators_pause

    assert spectators_pause(51) == spectators_pause(SPECTATORS_PER_PAUSE) == SPECTATORS_PAUSE
    assert spectators_pause(SPECTATORS_PER_PAUSE * 3 // 2) == pytest.approx(SPECTATORS_PAUSE * 1.5)
    assert spectators_pause(SPECTATORS_PER_PAUSE * 2) == pytest.approx(2 * SPECTATORS_PAUSE)
    assert spectators_pause(100_000) == SPECTATORS_PAUSE_MAX < 1.0
    # a round that took long (a busy machine) is followed by a longer pause, up to the most
    assert spectators_pause(51, cost=SPECTATORS_PAUSE) > 2 * SPECTATORS_PAUSE
    assert spectators_pause(51, cost=10.0) == SPECTATORS_PAUSE_MAX


def test_no_more_than_finished_max_finished_games_stay(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """However many games end a minute, at most FINISHED_MAX finished ones nobody looks at
    stay in memory (the most recently asked for); running ones are not counted."""
    import kardinal.server.play.presence as presence

    monkeypatch.setattr(presence, "FINISHED_MAX", 3)
    service = client.app.state.service  # type: ignore[attr-defined]
    ids = []
    for _ in range(6):
        g = create(client, "person", "person", "person")
        join_all(client, g)
        ids.append(g["id"])
    for i, gid in enumerate(ids[:5]):  # five finished, asked for in this order; one running
        live = service.get(gid)
        live.row.status = "finished"
        live.touched = 1000.0 + i
    assert service.sweep(1010.0) == 2
    assert [gid in service.live for gid in ids] == [False, False, True, True, True, True]
    # asked for again, it is read back from the database (where it was never marked finished:
    # the status was set in memory only, for the sweep)
    assert state(client, ids[0])["version"] == 0 and ids[0] in service.live


@pytest.mark.parametrize("delta", [True, False])
def test_the_load_tool_reads_a_state_message_as_a_full_decode_does(delta: bool) -> None:
    """The load tool decodes only the head, the acknowledgement and the action it plays of a
    state message in which its seat acts (loadtest._digest): through whole games, what it
    reads equals the full message, with every legal action and nothing else."""
    from kardinal.tools.loadtest import _digest

    rng = random.Random(5)
    live = _live(5)
    conns = [Connection({seat: "t"}, delta=delta) for seat in range(3)]
    acted = 0
    while live.row.status == "running":
        for conn in conns:
            text = live.text_for(conn)
            if rng.random() < 0.5:  # as _send_loop puts an acknowledgement inside
                text = f'{text[:-1]},"ack":{{"type":"ack","id":"0-{acted}","version":{live.version},"index":3,"duplicate":false}}}}'
            full = json.loads(text)
            got = _digest(text)
            if "legal" in full:
                acted += 1
                assert [json.loads(a) for a in got["legal"]] == full["legal"] and len(full["legal"]) >= 1
                for key in ("type", "status", "version", "game", "seat", "ack"):
                    assert got.get(key) == full.get(key)
        _step(live, rng)
    assert acted > 50
