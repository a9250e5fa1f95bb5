"""Faults in stored games (defects found under faults): one unreadable game, its row or
its log, neither stops the server from starting nor breaks the lobby; it answers with a
clear error, logged with its id only, and every other game goes on."""

from __future__ import annotations

import logging
import sqlite3
import time
from pathlib import Path

import pytest
from fastapi.testclient import TestClient

from kardinal.server.web.app import create_app

BOTS3 = {"players": [{"kind": "bot", "level": "random"}] * 3}


def test_an_unreadable_game_leaves_the_others_running(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    with TestClient(create_app(data_dir=tmp_path, bot_pause=5.0)) as c:  # slow bots: the games stay running
        ids = [c.post("/api/games", json=BOTS3).json()["id"] for _ in range(3)]
        deadline = time.monotonic() + 30
        while not all(c.get(f"/api/games/{g}").json().get("version", 0) >= 1 for g in ids):
            assert time.monotonic() < deadline
            time.sleep(0.05)
    bad_row, bad_log, good = ids
    db = sqlite3.connect(tmp_path / "kardinal.sqlite3")
    db.execute("UPDATE games SET seats = '[{\"oops\": 1}' WHERE id = ?", (bad_row,))
    db.execute("UPDATE actions SET action = 'not json' WHERE game_id = ? AND idx = 0", (bad_log,))
    db.commit()
    db.close()
    caplog.set_level(logging.ERROR, logger="kardinal.web")
    with TestClient(create_app(data_dir=tmp_path, bot_pause=0.0)) as c:  # it starts
        lobby = c.get("/api/games")
        assert lobby.status_code == 200
        listed = {g["id"] for g in lobby.json()["games"]}
        assert bad_row not in listed and {bad_log, good} <= listed
        for gid in (bad_row, bad_log):
            r = c.get(f"/api/games/{gid}/state")
            assert r.status_code == 500 and r.json()["error"]["code"] == "unreadable", r.text
        # the good game's bots play on to the end
        deadline = time.monotonic() + 60
        while c.get(f"/api/games/{good}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the readable game did not go on"
            time.sleep(0.05)
    logged = " ".join(r.getMessage() for r in caplog.records)
    assert bad_row in logged and bad_log in logged
    assert "oops" not in logged and "not json" not in logged  # ids and kinds of error, never stored data


def test_bots_go_on_after_a_storage_error(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    """After failed writes the bots try again (found under faults: one storage error froze
    a bots' game until the server was restarted); no move is applied that was not stored."""
    app = create_app(data_dir=tmp_path, bot_pause=0.0)
    storage = app.state.service.storage
    real = storage.append_action
    fails = {"left": 3}

    def flaky(*a: object, **k: object) -> None:
        if fails["left"] and a[1] == 5:  # the sixth move fails three times
            fails["left"] -= 1
            raise OSError("disk full")
        real(*a, **k)  # type: ignore[arg-type]

    monkeypatch.setattr(storage, "append_action", flaky)
    with TestClient(app) as c:
        gid = c.post("/api/games", json=BOTS3).json()["id"]
        deadline = time.monotonic() + 60
        while c.get(f"/api/games/{gid}").json()["status"] != "finished":
            assert time.monotonic() < deadline, "the bots stopped after the storage errors"
            time.sleep(0.05)
        assert fails["left"] == 0
        rec = c.get(f"/api/games/{gid}/record").json()
        assert len(rec["actions"]) == storage.count_actions(gid)
