"""The database as an operator meets it (defects found under faults): a damaged file or
one of a newer schema is refused at start with a clear message; a SQLite file is backed
up before it is migrated; `kardinal backup` copies a database in use; a database file
deleted while the server runs makes writes fail (503, nothing applied) instead of being
acknowledged and lost; a database error never shows a statement's values."""

from __future__ import annotations

import shutil
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest
from web_helpers import create, join_all, make_client, state, tokens

from kardinal.server.storage import MIGRATIONS, Storage, StorageError

KARDINAL = Path(sys.executable).parent / "kardinal"
DATA = Path(__file__).parent / "data"


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(KARDINAL), *args], capture_output=True, text=True, timeout=60)


def test_a_database_of_a_newer_schema_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "kardinal.sqlite3"
    Storage.sqlite(db).close()
    con = sqlite3.connect(db)
    con.execute("UPDATE schema_version SET version = ?", (len(MIGRATIONS) + 1,))
    con.commit()
    con.close()
    with pytest.raises(StorageError, match="newer than this Kardinal knows"):
        Storage.sqlite(db)
    p = run("serve", "--data", str(tmp_path), "--bot-workers", "0", "--port", "1")
    assert p.returncode == 2 and "newer than this Kardinal knows" in p.stderr and "Traceback" not in p.stderr


def test_a_damaged_database_is_refused(tmp_path: Path) -> None:
    db = tmp_path / "kardinal.sqlite3"
    Storage.sqlite(db).close()
    raw = bytearray(db.read_bytes())
    raw[100:4096] = b"\xff" * (4096 - 100)  # overwrite the schema page
    db.write_bytes(bytes(raw))
    with pytest.raises(StorageError):
        Storage.sqlite(db)
    db.write_bytes(b"this is not a database at all" * 200)
    with pytest.raises(StorageError, match="not a readable SQLite database"):
        Storage.sqlite(db)


def test_a_sqlite_file_is_backed_up_before_it_is_migrated(tmp_path: Path) -> None:
    db = tmp_path / "kardinal.sqlite3"
    shutil.copy(DATA / "web-schema-3.sqlite3", db)
    Storage.sqlite(db).close()
    bak = tmp_path / "kardinal.sqlite3.v3.bak"
    assert bak.exists()
    con = sqlite3.connect(bak)
    assert con.execute("SELECT version FROM schema_version").fetchone() == (3,)
    con.close()
    # migrating again finds nothing to do and makes no backup
    Storage.sqlite(db).close()
    assert sorted(p.name for p in tmp_path.iterdir() if p.suffix == ".bak") == [bak.name]


def test_backup_copies_a_database_in_use(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        ids = [create(c, "bot", "bot", "bot")["id"] for _ in range(3)]
        out = tmp_path / "copy.sqlite3"
        p = run("backup", str(out), "--data", str(tmp_path))  # while the server holds the database
        assert p.returncode == 0, p.stderr
        con = sqlite3.connect(out)
        assert {r[0] for r in con.execute("SELECT id FROM games")} == set(ids)
        con.close()
        again = run("backup", str(out), "--data", str(tmp_path))
        assert again.returncode == 2 and "exists" in again.stderr
        nothing = run("backup", str(tmp_path / "x.sqlite3"), "--data", str(tmp_path / "nowhere"))
        assert nothing.returncode == 2 and "no database" in nothing.stderr


def test_a_deleted_database_file_refuses_moves_instead_of_losing_them(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        g = create(c, "person", "person", "bot")
        join_all(c, g)
        tok = tokens(g)
        before = state(c, g["id"], 0, tok[0])
        (tmp_path / "kardinal.sqlite3").unlink()
        move = before["legal"][0]
        r = c.post(f"/api/games/{g['id']}/actions", json={"seat": 0, "token": tok[0], "version": 0, "action": move})
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable", r.text
        assert state(c, g["id"], 0, tok[0]) == before  # nothing applied, nothing acknowledged
        assert c.get("/readyz").status_code == 503
        r = c.post("/api/games", json={"players": [{"kind": "bot", "level": "random"}] * 3})
        assert r.status_code == 503 and r.json()["error"]["code"] == "unavailable"


def test_a_database_error_does_not_show_the_values(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        g = create(c, "person", "bot", "bot")
        service = c.app.state.service  # type: ignore[attr-defined]
        row = service.storage.get_game(g["id"])
        with pytest.raises(Exception) as err:
            service.storage.create_game(row)  # the same id again: an integrity error
        text = str(err.value)
        assert "hidden" in text
        assert row.seats[0].token_hash not in text and str(row.seed) not in text and row.deck[0] not in text
