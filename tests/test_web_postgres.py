"""PostgreSQL as the server's database (the protocol, again and restart tests also run on
it through the ``db_url`` fixture): migrations 5, 6 and 7 on databases made by the code
before each, on PostgreSQL as on SQLite."""

from __future__ import annotations

import subprocess
import sys
import textwrap
from pathlib import Path
from typing import Any

import pytest
from web_helpers import act, make_client, state

from kardinal.server.storage import MIGRATIONS, Storage

ROOT = Path(__file__).resolve().parent.parent
# the last commit before migration 5 (action client ids as "seat:id")
BEFORE_M5 = "9cad4a6"
# the last commit before migration 6 (table options, the chat, presence)
BEFORE_M6 = "85927bc"
# the last commit before migration 7 (the follow-up of "Play again" stored)
BEFORE_M7 = "9c91a25"


def run_earlier_code(commit: str, tmp_path: Path, body: str, url: str) -> dict[str, Any]:
    """Run ``body`` (Python, whose last line of output is JSON) with the package as it was at
    ``commit``, from a copy of that commit's tree, on the database ``url``; its JSON. The
    database must be empty, as that code found it (db_url's PostgreSQL one is of the newest
    schema unless the test is marked ``empty_database``)."""
    from sqlalchemy import create_engine, inspect

    engine = create_engine(url)
    try:
        assert inspect(engine).get_table_names() == [], "the earlier code's database is not empty: mark the test empty_database"
    finally:
        engine.dispose()
    old = tmp_path / "old"
    old.mkdir()
    tar = subprocess.run(["git", "-C", str(ROOT), "archive", commit, "kardinal"], capture_output=True, check=True).stdout
    subprocess.run(["tar", "-x", "-C", str(old)], input=tar, check=True)
    p = subprocess.run([sys.executable, "-c", textwrap.dedent(body)], cwd=old, capture_output=True, text=True, timeout=120)
    assert p.returncode == 0, p.stderr
    import json

    return dict(json.loads(p.stdout.strip().splitlines()[-1]))


def made_by_earlier_code(url: str, tmp_path: Path, commit: str = BEFORE_M5) -> dict[str, Any]:
    """A database with a running game of two people, written by the code of ``commit``."""
    return run_earlier_code(
        commit,
        tmp_path,
        f"""
        import json
        from fastapi.testclient import TestClient
        from kardinal.clients.web.app import create_app  # where the app was in that commit
        with TestClient(create_app(db_url={url!r}, bot_pause=0.0)) as c:
            g = c.post("/api/games", json={{"players": [{{"kind": "person"}}, {{"kind": "person"}}, {{"kind": "bot", "level": "random"}}]}}).json()
            for s in g["seats"]:
                c.post(f"/api/games/{{g['id']}}/join", json={{"seat": s["seat"], "token": s["token"]}})
            st = c.get(f"/api/games/{{g['id']}}/state", params={{"seat": 0, "token": g["seats"][0]["token"]}}).json()
            a = st["legal"][0]
            r = c.post(f"/api/games/{{g['id']}}/actions", json={{"seat": 0, "token": g["seats"][0]["token"], "version": 0, "action": a, "id": "y" * 100}})
            assert r.status_code == 200, r.text
            print(json.dumps({{"game": g, "first": a}}))
        """,
        url,
    )


@pytest.mark.empty_database
def test_migration_5_on_a_database_made_by_the_previous_code(db_url: str, tmp_path: Path) -> None:
    made = made_by_earlier_code(db_url, tmp_path)
    st = Storage(db_url)
    assert st.schema_version() == len(MIGRATIONS) == 17
    st.close()
    g = made["game"]
    tok = {s["seat"]: s["token"] for s in g["seats"]}
    with make_client(tmp_path, db_url=db_url) as c:
        s0 = state(c, g["id"], 0, tok[0])
        assert s0["version"] == 1 and s0["view"]["history"][0]["action"] == made["first"]
        # the longest id the protocol allows now fits with its seat in front
        cur = s0["view"]["current"]
        assert cur in tok  # after seat 0's first decision a person acts (seat 0 drawing, or seat 1)
        nxt = state(c, g["id"], cur, tok[cur])["legal"][0]
        r = act(c, g["id"], cur, tok[cur], 1, nxt, cid="z" * 100)
        assert r.status_code == 200, r.text


@pytest.mark.empty_database
def test_migration_6_on_a_database_made_by_the_previous_code(db_url: str, tmp_path: Path) -> None:
    made = made_by_earlier_code(db_url, tmp_path, BEFORE_M6)
    g = made["game"]
    tok = {s["seat"]: s["token"] for s in g["seats"]}
    with make_client(tmp_path, db_url=db_url) as c:
        s0 = state(c, g["id"], 0, tok[0])
        assert s0["version"] == 1 and s0["view"]["history"][0]["action"] == made["first"]
        # a live table with the defaults; nobody stood in for; the chat is empty and works
        assert s0["table"]["mode"] == "live" and s0["table"]["public"] is True
        assert [p["standin"] for p in s0["players"]] == [False, False, False]
        assert c.get(f"/api/games/{g['id']}/chat").json()["lines"] == []
        with c.websocket_connect(f"/ws/{g['id']}") as ws:
            ws.send_json({"type": "hello", "seats": {"1": tok[1]}})
            assert [ws.receive_json()["type"] for _ in range(2)] == ["welcome", "state"]
            ws.send_json({"type": "chat", "text": "still here"})
            assert ws.receive_json()["lines"][0]["text"] == "still here"
        assert g["id"] in {x["id"] for x in c.get("/api/games").json()["games"]}


def finished_by_earlier_code(url: str, tmp_path: Path, commit: str = BEFORE_M7) -> dict[str, Any]:
    """A database with a finished game of bots after which "Play again" was pressed (that
    code kept the link in memory only), written by the code of ``commit``."""
    return run_earlier_code(
        commit,
        tmp_path,
        f"""
        import json, time
        from fastapi.testclient import TestClient
        from kardinal.clients.web.app import create_app  # where the app was in that commit
        with TestClient(create_app(db_url={url!r}, bot_pause=0.0)) as c:
            g = c.post("/api/games", json={{"players": [{{"kind": "bot", "level": "random"}}] * 3}}).json()
            end = time.monotonic() + 60
            while c.get(f"/api/games/{{g['id']}}/state").json()["status"] != "finished":
                assert time.monotonic() < end, "the bots did not finish"
                time.sleep(0.01)
            r = c.post(f"/api/games/{{g['id']}}/again", json={{}})
            assert r.status_code == 200, r.text
            print(json.dumps({{"finished": g["id"], "then": r.json()["id"]}}))
        """,
        url,
    )


@pytest.mark.empty_database
def test_migration_7_on_a_database_made_by_the_previous_code(db_url: str, tmp_path: Path) -> None:
    """The follow-up column added to a database of the previous code: its finished game has
    no stored follow-up (that code's "Play again" was kept in memory only, and is gone with
    it), so the next press makes one, as before; from then on every press, also after a
    restart, gets that one, and the finished game's state names it."""
    made = finished_by_earlier_code(db_url, tmp_path)
    old = made["finished"]
    st = Storage(db_url)
    assert st.schema_version() == len(MIGRATIONS) == 17
    row = st.get_game(old)
    assert row is not None and row.status == "finished" and row.again is None
    st.close()
    with make_client(tmp_path, db_url=db_url) as c:
        assert "again" not in state(c, old)
        new = c.post(f"/api/games/{old}/again", json={}).json()["id"]
        assert new not in (old, made["then"])
        assert state(c, old)["again"] == new
    with make_client(tmp_path, db_url=db_url) as c:  # the server started again
        assert state(c, old)["again"] == new
        assert c.post(f"/api/games/{old}/again", json={}).json()["id"] == new
        assert state(c, made["then"])["view"]["players"] == 3  # the earlier code's games go on
    st = Storage(db_url)
    assert st.follow_up(old) == new and len(st.list_games(None, None)) == 3
    st.close()


def test_a_plain_postgresql_url_uses_the_installed_driver(pg: Any) -> None:
    url = pg.new_database().replace("postgresql+psycopg://", "postgresql://")
    st = Storage(url)
    assert st.engine.dialect.driver == "psycopg" and st.schema_version() == len(MIGRATIONS)
    st.close()


def test_processes_started_together_on_a_new_database_all_start(pg: Any) -> None:
    """Two server processes started at once on a new database (two units of a service
    manager): the migrations run once, the other process waits and finds them done. Before,
    both created the schema table and one ended with a traceback at start."""
    import threading

    from sqlalchemy import create_engine, text

    for _ in range(4):
        url = str(pg.new_database())
        start = threading.Barrier(3)
        errors: list[BaseException] = []

        def open_it(url: str, start: threading.Barrier, errors: list[BaseException]) -> None:
            start.wait()
            try:
                Storage(url).close()
            except BaseException as e:  # noqa: BLE001 - reported below
                errors.append(e)

        threads = [threading.Thread(target=open_it, args=(url, start, errors)) for _ in range(3)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(60)
        assert errors == []
        engine = create_engine(url.replace("postgresql://", "postgresql+psycopg://", 1))
        with engine.connect() as conn:
            assert conn.execute(text("SELECT version FROM schema_version")).scalars().all() == [len(MIGRATIONS)]
        engine.dispose()


def test_the_listener_stops_when_told_not_at_its_next_look(pg: Any, monkeypatch: Any) -> None:
    """A stopping server's listener (LISTEN/NOTIFY) is woken to stop at once: it does not
    wait for its next look at the stop flag (every PostgreSQL app's shutdown waited up to
    half a second for it)."""
    import threading

    from kardinal.server.storage import shared

    monkeypatch.setattr(shared, "LISTEN_POLL", 600.0)  # its next look: long after the test's end
    storage = Storage(pg.new_database())
    listening, stop = threading.Event(), threading.Event()
    listener = threading.Thread(target=storage.listen, args=(lambda gid: listening.set(), stop), daemon=True)
    try:
        listener.start()
        assert listening.wait(30), "the listener did not connect"
        stop.set()
        storage.wake_listener()
        listener.join(30)
        assert not listener.is_alive(), "the listener waited for its next look"
    finally:
        stop.set()
        storage.close()
