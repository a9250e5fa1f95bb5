"""Results of finished games (kardinal.server.community.results; migration 9): places by R12.1,
stored once, and filled in for a game finished before they were stored."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path

from sqlalchemy import delete
from web_helpers import create, join_all, make_client, play_out, tokens

from kardinal.server.community.results import stored_results
from kardinal.server.play.service import GameService
from kardinal.server.storage.schema import results


def test_a_finished_game_gets_its_results_once_and_an_old_one_is_filled_in(tmp_path: Path, db_url: str) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        g = create(c, "person", "bot", "bot")
        join_all(c, g)
        end = play_out(c, g["id"], tokens(g), random.Random(3))
        assert end["status"] == "finished"
        service: GameService = c.app.state.service  # type: ignore[attr-defined]
        storage = service.storage
        st = service.get(g["id"]).state
        # the settler stores a game's results as it finishes (settle.py), in a task of its own:
        # once it is done, they are there; deleted before it was done, it stored them again
        c.portal.call(c.app.state.settler.wait)  # type: ignore[attr-defined]
        assert [r.score for r, _, _ in storage.results_of([g["id"]])[g["id"]]] == list(st.scores)
        with storage.engine.begin() as conn:  # as if it had finished before migration 9
            conn.execute(delete(results))
        assert storage.results_of([g["id"]]) == {}
        got = asyncio.run(stored_results(service, [g["id"], "nosuchgame"]))
        assert list(got) == [g["id"]]
        rows = got[g["id"]]
        assert [r.score for r, _, _ in rows] == list(st.scores)
        key = [(st.scores[p], st.pieces_left(p)) for p in range(3)]
        for p in range(3):  # R12.1: places by points, then pieces left; equal seats share
            ahead = sum(k > key[p] for k in key)
            tied = sum(k == key[p] for k in key)
            assert rows[p][0].place == ahead + (tied + 1) / 2
        winners = st.winners or []
        assert [r.win for r, _, _ in rows] == [1 / len(winners) if p in winners else 0.0 for p in range(3)]
        assert all(not rated for _, rated, _ in rows)
        # stored now: read back without replaying, and a second save stores nothing
        assert storage.results_of([g["id"]])[g["id"]] == rows
        assert storage.save_results(g["id"], [r for r, _, _ in rows], False, 1.0) is False
