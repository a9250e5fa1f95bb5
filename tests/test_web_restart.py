"""A new server on the same database continues every game where it was, bots included."""

from __future__ import annotations

import random
import time
from pathlib import Path

from web_helpers import act, create, join_all, make_client, play_out, state, tokens, wait_for_person

from kardinal.rules.record import replay


def test_restart_continues_the_game(tmp_path: Path, db_url: str) -> None:
    rng = random.Random(11)
    with make_client(tmp_path, db_url=db_url) as c1:
        g = create(c1, "person", "bot", "person", "bot")
        gid, toks = g["id"], tokens(g)
        join_all(c1, g)
        play_out(c1, gid, toks, rng, limit=10)
        before = {s: state(c1, gid, s, t) for s, t in toks.items()}
        spectator = state(c1, gid)
    with make_client(tmp_path, db_url=db_url) as c2:
        for s, t in toks.items():
            assert state(c2, gid, s, t) == before[s]  # same position, same hands, same legal moves
        assert state(c2, gid) == spectator
        end = play_out(c2, gid, toks, rng)
        assert end["status"] == "finished"
        rec = c2.get(f"/api/games/{gid}/record").json()
    st = replay(rec)
    assert st.is_over and st.scores == end["view"]["scores"]


def test_bots_resume_after_a_restart(tmp_path: Path, db_url: str) -> None:
    with make_client(tmp_path, bot_pause=30.0, db_url=db_url) as c1:  # the bot will not move before the shutdown
        g = create(c1, "person", "bot", "bot")
        gid, toks = g["id"], tokens(g)
        join_all(c1, g)
        msg = wait_for_person(c1, gid, toks)
        move = next(a for a in msg["legal"] if a["act"] == "exchange")  # a one-decision turn
        assert act(c1, gid, 0, toks[0], msg["version"], move).status_code == 200
        time.sleep(0.05)
        assert state(c1, gid)["view"]["current"] == 1
        version = state(c1, gid)["version"]
    with make_client(tmp_path, bot_pause=0.0, db_url=db_url) as c2:
        msg = wait_for_person(c2, gid, toks)  # the bots played on by themselves
        assert msg["version"] > version and msg["view"]["current"] == 0
        assert [h["action"]["seat"] for h in msg["view"]["history"][version:]].count(1) >= 1


def test_duplicate_ids_survive_a_restart(tmp_path: Path, db_url: str) -> None:
    with make_client(tmp_path, db_url=db_url) as c1:
        g = create(c1, "person", "person", "person")
        gid, toks = g["id"], tokens(g)
        join_all(c1, g)
        move = state(c1, gid, 0, toks[0])["legal"][0]
        assert act(c1, gid, 0, toks[0], 0, move, cid="once").json()["duplicate"] is False
    with make_client(tmp_path, db_url=db_url) as c2:
        r = act(c2, gid, 0, toks[0], 0, move, cid="once")
        assert r.status_code == 200 and r.json()["duplicate"] is True
        assert state(c2, gid)["version"] == 1


def test_the_moments_of_the_game_are_kept_across_a_restart(tmp_path: Path, db_url: str) -> None:
    with make_client(tmp_path, db_url=db_url) as c1:
        g = create(c1, "person", "bot", "bot", "bot")
        gid, toks = g["id"], tokens(g)
        join_all(c1, g)
        end = play_out(c1, gid, toks, random.Random(4))
        marks = end["marks"]
    with make_client(tmp_path, db_url=db_url) as c2:
        assert state(c2, gid)["marks"] == marks  # rebuilt from the log
        rec = c2.get(f"/api/games/{gid}/record").json()
    # the draw pile ran out with the action that the mark names, not before
    assert replay(rec, stop=marks["intermediate"] - 1).exhaustions == 0
    assert replay(rec, stop=marks["intermediate"]).exhaustions == 1
    if "last_round" in marks:
        assert replay(rec, stop=marks["last_round"] - 1).exhaustions == 1
        assert replay(rec, stop=marks["last_round"]).exhaustions == 2
