"""Schema migrations on databases made by earlier servers.

Migration 4 on a database made by the server before rule variants (schema version 3);
migrations 6 and 7 (the follow-up of "Play again" stored) on one made before table options
(schema version 5).

tests/data/web-schema-3.sqlite3 was written by the code of that time: a finished bots-only
game, a running game (a person to act) and an open one. Those games were played on the
board then called "standard" with the joker rule now named joker-anywhere (R4.3, R14);
after the migration they go on exactly as they were played.
"""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

from web_helpers import make_client, state

from kardinal.rules.record import replay
from kardinal.server.storage import MIGRATIONS, Storage

DATA = Path(__file__).parent / "data"


def old_database(tmp_path: Path) -> Path:
    shutil.copy(DATA / "web-schema-3.sqlite3", tmp_path / "kardinal.sqlite3")
    return tmp_path


def test_migration_4_marks_old_games_with_their_board_and_rules(tmp_path: Path) -> None:
    facts = json.loads((DATA / "web-schema-3.json").read_text(encoding="utf-8"))
    st = Storage.sqlite(old_database(tmp_path) / "kardinal.sqlite3")
    assert st.schema_version() == len(MIGRATIONS) == 17
    for key in ("finished", "running", "open"):
        row = st.get_game(facts[key])
        assert row is not None
        assert row.board == "reconstruction-1" and row.variants == ["joker-anywhere"]
    st.close()


def test_old_games_replay_and_go_on_after_the_migration(tmp_path: Path) -> None:
    facts = json.loads((DATA / "web-schema-3.json").read_text(encoding="utf-8"))
    with make_client(old_database(tmp_path)) as client:
        # the finished game: its record (now version 2, naming its board and rules) replays to its result
        rec = client.get(f"/api/games/{facts['finished']}/record").json()
        assert rec["version"] == 2 and rec["board"] == "reconstruction-1" and rec["variants"] == ["joker-anywhere"]
        assert len(rec["actions"]) == facts["finished_actions"]
        assert rec["result"] == facts["finished_result"]
        assert replay(rec).scores == facts["finished_result"]["scores"]
        # the running game continues on its board and rules
        s = state(client, facts["running"])
        assert s["status"] == "running"
        assert s["view"]["board"] == "reconstruction-1" and s["view"]["variants"] == ["joker-anywhere"]
        assert len(s["view"]["sites"]) == 0 and s["view"]["players"] == 4
        # the lobby lists them with their rules
        games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
        assert games[facts["open"]]["variants"] == ["joker-anywhere"]


def test_a_new_database_has_the_same_schema_as_a_migrated_one(tmp_path: Path) -> None:
    """Migration 1 creates the games table as it was; migrations 4, 6, 7 and 15 add the
    variants, options, again and to_act columns to both."""
    new = Storage.sqlite(tmp_path / "new" / "kardinal.sqlite3")
    old = Storage.sqlite(old_database(tmp_path) / "kardinal.sqlite3")
    with new.engine.connect() as a, old.engine.connect() as b:
        cols_new = [r[1] for r in a.exec_driver_sql("PRAGMA table_info(games)")]
        cols_old = [r[1] for r in b.exec_driver_sql("PRAGMA table_info(games)")]
    assert cols_new == cols_old and cols_new[-4:] == ["variants", "options", "again", "to_act"]
    new.close()
    old.close()


def test_new_games_take_board_and_variants(tmp_path: Path) -> None:
    with make_client(tmp_path) as client:
        opts = client.get("/api/variants").json()
        assert "joker-anywhere" in opts["variants"] and opts["boards"] == ["standard", "reconstruction-1"]
        seats = [{"name": "A", "kind": "person"}, {"name": "B", "kind": "bot", "level": "random"}, {"name": "C", "kind": "bot"}]
        r = client.post("/api/games", json={"players": seats, "variants": ["joker-anywhere"]})
        assert r.status_code == 200, r.text
        s = state(client, r.json()["id"])
        assert s["view"]["variants"] == ["joker-anywhere"] and s["view"]["board"] == "standard"
        r = client.post("/api/games", json={"players": seats, "variants": ["nope"]})
        # refused by the declared body, which names the field and the variants this server knows
        err = r.json()["error"]
        assert r.status_code == 400 and err["params"]["field"] == "variants.0" and "joker-anywhere" in err["message"], r.text
        r = client.post("/api/games", json={"players": seats, "board": "reconstruction-1"})
        assert r.status_code == 200 and state(client, r.json()["id"])["view"]["board"] == "reconstruction-1"
        r = client.post("/api/games", json={"players": seats, "board": "/etc/passwd"})
        assert r.status_code == 400
        assert client.get("/api/board", params={"id": "reconstruction-1"}).json()["id"] == "reconstruction-1"
        assert client.get("/api/board", params={"id": "nope"}).status_code == 404


def schema_5(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    """tests/data/web-schema-5.sqlite3, written by the server before table options and the
    chat (commit 85927bc): a finished game of bots, a running game (Ann, a person, to act;
    the joker-anywhere variant) and an open one (an open seat and an invited one)."""
    shutil.copy(DATA / "web-schema-5.sqlite3", tmp_path / "kardinal.sqlite3")
    return tmp_path, json.loads((DATA / "web-schema-5.json").read_text(encoding="utf-8"))


def test_migration_6_makes_old_games_live_tables_with_the_defaults(tmp_path: Path) -> None:
    data, facts = schema_5(tmp_path)
    st = Storage.sqlite(data / "kardinal.sqlite3")
    assert st.schema_version() == len(MIGRATIONS)
    assert (data / "kardinal.sqlite3.v5.bak").exists()  # the backup taken before migrating
    for key in ("finished", "running", "open"):
        row = st.get_game(facts[key])
        assert row is not None and row.options == {}
        assert all(not s.standin for s in row.seats)
        assert st.chat_from(facts[key]) == []
    st.close()


def test_old_games_go_on_with_chat_and_options_after_migration_6(tmp_path: Path) -> None:
    data, facts = schema_5(tmp_path)
    with make_client(data) as client:
        rec = client.get(f"/api/games/{facts['finished']}/record").json()
        assert len(rec["actions"]) == facts["finished_actions"] and rec["result"] == facts["finished_result"]
        assert replay(rec).scores == facts["finished_result"]["scores"]
        s = state(client, facts["running"])
        assert s["status"] == "running" and s["view"]["variants"] == ["joker-anywhere"]
        assert s["table"] == {
            "mode": "live",
            "away": 180.0,
            "standin": "medium",
            "hints": False,
            "spectator_chat": False,
            "public": True,
            "friends": False,
            "clock": None,
            "rated": False,
        }
        # Ann plays on, and talks
        tok = facts["running_token"]
        with client.websocket_connect(f"/ws/{facts['running']}") as ws:
            ws.send_json({"type": "hello", "seats": {"0": tok}})
            assert ws.receive_json()["type"] == "welcome"
            assert ws.receive_json()["type"] == "state"
            ws.send_json({"type": "chat", "text": "hello again"})
            msg = ws.receive_json()
            assert msg["type"] == "chat" and [(x["name"], x["text"], x["seat"]) for x in msg["lines"]] == [("Ann", "hello again", 0)]
        lines = client.get(f"/api/games/{facts['running']}/chat").json()["lines"]
        assert [x["text"] for x in lines] == ["hello again"]
        games = {g["id"]: g for g in client.get("/api/games").json()["games"]}
        assert games[facts["open"]]["table"]["mode"] == "live"


def test_migration_7_old_finished_games_get_one_follow_up_that_is_kept(tmp_path: Path) -> None:
    """Games stored before migration 7 have no stored follow-up: the first "Play again"
    makes one, as before; from then on it is stored, and a press after a restart (the
    finished game read again) gets the same game."""
    data, facts = schema_5(tmp_path)
    st = Storage.sqlite(data / "kardinal.sqlite3")
    assert st.schema_version() == len(MIGRATIONS)
    for key in ("finished", "running", "open"):
        row = st.get_game(facts[key])
        assert row is not None and row.again is None and st.follow_up(facts[key]) is None
    st.close()
    old = facts["finished"]
    with make_client(data) as client:
        assert "again" not in state(client, old)
        new = client.post(f"/api/games/{old}/again", json={}).json()["id"]
        assert new != old and client.post(f"/api/games/{old}/again", json={}).json()["id"] == new
        assert state(client, old)["again"] == new
    with make_client(data) as client:  # the server started again: the link is read from the file
        assert state(client, old)["again"] == new
        assert client.post(f"/api/games/{old}/again", json={}).json()["id"] == new
    st = Storage.sqlite(data / "kardinal.sqlite3")
    assert st.follow_up(old) == new and [g.id for g in st.list_games(None, None)].count(new) == 1
    assert len(st.list_games(None, None)) == 4  # the three old games and one follow-up
    st.close()
