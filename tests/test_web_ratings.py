"""Ratings (kardinal.server.community.ratings, settle, rated, rating_routes): the rating math on the
bots' scale, a finished game settled exactly once (also by two database connections at the
same time, and after its update failed), rated tables and every refusal, the leaderboard,
find me a table, starting a waiting table with bots, and an account's deletion and data.
Each on SQLite and PostgreSQL (the ``db_url`` fixture) where a database is involved."""

from __future__ import annotations

import math
import random
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import delete, insert, select
from test_web_accounts import PW, get, post, sign_up
from web_helpers import change_settings, make_client, play_out, seats, state, tokens

from kardinal.server.community.account_routes import COOKIE
from kardinal.server.community.ratings import BETA, BOT_RATINGS, BOT_SIGMA, MU0, SIGMA0, closest_level, rate_game, rater
from kardinal.server.storage import SeatResult, SeatRow, Storage
from kardinal.server.storage.schema import rating_events, ratings, seat_owners

pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


@pytest.fixture
def client(tmp_path: Path, db_url: str) -> Iterator[TestClient]:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def storage_of(c: TestClient) -> Storage:
    st: Storage = c.app.state.service.storage  # type: ignore[attr-defined]
    return st


def account_id(c: TestClient, secret: str) -> int:
    return int(get(c, "/api/account", secret).json()["account"]["id"])


def set_rating(st: Storage, aid: int, mu: float, sigma: float, games: int = 10) -> None:
    with st.engine.begin() as conn:
        conn.execute(delete(ratings).where(ratings.c.account_id == aid))
        conn.execute(insert(ratings).values(account_id=aid, mu=mu, sigma=sigma, games=games, updated=time.time()))


def rated_vs_bots(c: TestClient, secret: str, level: str = "random", n: int = 3) -> dict[str, Any]:
    r = post(c, "/api/games", secret, json={"players": seats("person", *[f"bot:{level}"] * n), "rated": True})
    assert r.status_code == 200, r.text
    g = r.json()
    j = post(c, f"/api/games/{g['id']}/join", secret, json={"seat": 0, "token": tokens(g)[0]})
    assert j.status_code == 200, j.text
    return dict(g)


def settled(c: TestClient, gid: str) -> dict[str, Any]:
    """The game's rating changes once its settlement is done (the listener's task)."""
    end = time.monotonic() + 20
    while True:
        r = c.get(f"/api/games/{gid}/ratings")
        assert r.status_code == 200, r.text
        if r.json()["settled"]:
            return dict(r.json())
        assert time.monotonic() < end
        time.sleep(0.02)


# -- the math ------------------------------------------------------------------------------


def test_beta_puts_four_certain_players_on_the_tournaments_scale() -> None:
    # openskill's c = sqrt(sum(sigma^2 + beta^2)); four players of sigma 0: 2 beta = 400 / ln 10,
    # so exp(mu / c) = 10 ** (mu / 400): the tournaments' strengths
    assert 2 * BETA == pytest.approx(400 / math.log(10))
    assert math.exp(200 / (2 * BETA)) == pytest.approx(10 ** (200 / 400))


def test_a_win_against_anchored_bots_raises_a_loss_lowers_and_sigma_shrinks() -> None:
    greedy = BOT_RATINGS["greedy"].mu
    bots = [(greedy, BOT_SIGMA, False)] * 3
    won = rate_game([(MU0, SIGMA0, True), *bots], [1, 2, 3, 4])
    lost = rate_game([(MU0, SIGMA0, True), *bots], [4, 1, 2, 3])
    assert won[0][0] > MU0 > lost[0][0]
    assert won[0][1] < SIGMA0 and lost[0][1] < SIGMA0
    assert won[1:] == bots_after(bots) == lost[1:]  # bots keep their fixed ratings
    # beating strong bots is worth more than beating weak ones
    strong = rate_game([(MU0, SIGMA0, True), *[(BOT_RATINGS["hard"].mu, BOT_SIGMA, False)] * 3], [1, 2, 3, 4])
    weak = rate_game([(MU0, SIGMA0, True), *[(BOT_RATINGS["random"].mu, BOT_SIGMA, False)] * 3], [1, 2, 3, 4])
    assert strong[0][0] > won[0][0] > weak[0][0]


def bots_after(bots: list[tuple[float, float, bool]]) -> list[tuple[float, float]]:
    return [(mu, sigma) for mu, sigma, _ in bots]


def test_ties_share_a_place() -> None:
    # two equal players tied for first move alike; a tie between equals in the middle moves neither much
    a = rate_game([(1500, 200, True), (1500, 200, True), (1500, 200, True)], [1.5, 1.5, 3])
    assert a[0] == pytest.approx(a[1]) and a[0][0] > 1500 > a[2][0]
    b = rate_game([(1500, 200, True), (1500, 200, True), (1500, 200, True)], [1, 2.5, 2.5])
    assert b[1] == pytest.approx(b[2]) and b[0][0] > b[1][0] > 1500 - 1e-6 - 200


def test_the_bots_of_a_players_level() -> None:
    levels = list(BOT_RATINGS)
    assert closest_level(BOT_RATINGS["greedy"].mu + 10, levels) == "greedy"
    assert closest_level(0, levels) == "random"
    assert closest_level(5000, levels) == max(levels, key=lambda lv: BOT_RATINGS[lv].mu)
    # the anchors are ordered as the levels are
    assert [BOT_RATINGS[lv].mu for lv in ("random", "easy", "greedy", "medium", "hard")] == sorted(
        BOT_RATINGS[lv].mu for lv in ("random", "easy", "greedy", "medium", "hard")
    )


# -- settling exactly once -------------------------------------------------------------------


def _game(st: Storage, gid: str, owners: dict[int, int]) -> tuple[list[SeatResult], list[SeatRow]]:
    with st.engine.begin() as conn:
        for seat, aid in owners.items():
            conn.execute(insert(seat_owners).values(game_id=gid, seat=seat, account_id=aid, since=1.0))
    rows = [SeatResult(0, 4, 1.0, 50, 1.0), SeatResult(1, 4, 2.0, 40, 0.0), SeatResult(2, 4, 3.0, 30, 0.0), SeatResult(3, 4, 4.0, 20, 0.0)]
    seat_rows = [
        SeatRow("A", "person", joined=True),
        SeatRow("B", "person", joined=True),
        SeatRow("x", "bot", "greedy"),
        SeatRow("y", "bot", "easy"),
    ]
    return rows, seat_rows


def test_a_game_is_settled_once(db_url: str) -> None:
    st = Storage(db_url)
    try:
        a = st.create_account("A", "a", "h", 1.0)
        b = st.create_account("B", "b", "h", 1.0)
        assert a is not None and b is not None
        rows, seat_rows = _game(st, "g1", {0: a.id, 1: b.id})
        assert st.settle_game("g1", rows, True, 10.0, rater(seat_rows, rows), (MU0, SIGMA0)) is True
        first = st.ratings_of([a.id, b.id])
        assert first[a.id][0] > MU0 and first[a.id][2] == 1 and first[b.id][2] == 1
        # again (this process, or another, or after a restart): nothing changes
        assert st.settle_game("g1", rows, True, 11.0, rater(seat_rows, rows), (MU0, SIGMA0)) is False
        assert st.ratings_of([a.id, b.id]) == first
        assert [e["game"] for e in st.rating_events_of(a.id)] == ["g1"]
        ev = st.game_rating_events("g1")
        assert ev[0]["before"] == MU0 and ev[0]["mu"] == first[a.id][0] and ev[0]["sigma_before"] is None
        # an unrated game stores its results and rates nobody
        rows2, seat_rows2 = _game(st, "g2", {0: a.id})
        assert st.settle_game("g2", rows2, False, 12.0, rater(seat_rows2, rows2), (MU0, SIGMA0)) is True
        assert st.ratings_of([a.id])[a.id] == first[a.id]
        assert "g2" in st.results_of(["g2"])
        # an account at two seats of one game is left out of its rating
        rows3, seat_rows3 = _game(st, "g3", {0: b.id, 1: b.id})
        assert st.settle_game("g3", rows3, True, 13.0, rater(seat_rows3, rows3), (MU0, SIGMA0)) is True
        assert st.ratings_of([b.id])[b.id] == first[b.id]
    finally:
        st.close()


def test_two_connections_settling_at_once_rate_each_game_once(db_url: str) -> None:
    """Two Storage objects (two processes' connection pools) settle the same twelve games at
    the same moment: each game is stored and rated by one of them only."""
    one, two = Storage(db_url), Storage(db_url)
    try:
        a = one.create_account("A", "a", "h", 1.0)
        assert a is not None
        games = [f"g{i}" for i in range(12)]
        prepared = {g: _game(one, g, {0: a.id}) for g in games}
        wins: list[bool] = []
        lock = threading.Lock()

        def settle(st: Storage, gid: str, barrier: threading.Barrier) -> None:
            rows, seat_rows = prepared[gid]
            barrier.wait()
            done = st.settle_game(gid, rows, True, time.time(), rater(seat_rows, rows), (MU0, SIGMA0))
            with lock:
                wins.append(done)

        for gid in games:
            barrier = threading.Barrier(2)
            ts = [threading.Thread(target=settle, args=(st, gid, barrier)) for st in (one, two)]
            for t in ts:
                t.start()
            for t in ts:
                t.join(30)
        assert wins.count(True) == len(games) and wins.count(False) == len(games)
        assert one.ratings_of([a.id])[a.id][2] == len(games)
        assert len(one.rating_events_of(a.id)) == len(games)
    finally:
        one.close()
        two.close()


# -- a rated game, through the server ---------------------------------------------------------


def test_a_rated_game_against_bots_moves_the_rating_once(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    change_settings(monkeypatch, client.app, leaderboard_games=1)
    anna = sign_up(client, "Anna")
    assert get(client, "/api/account/rating", anna).json()["games"] == 0
    g = rated_vs_bots(client, anna)
    assert client.get(f"/api/games/{g['id']}").json()["table"]["rated"] is True
    assert client.get(f"/api/games/{g['id']}/teach").json()["hints"] is False  # no bot's advice at a rated table
    end = play_out(client, g["id"], tokens(g), random.Random(3))
    assert end["status"] == "finished"
    out = settled(client, g["id"])
    assert out["rated"] is True and list(out["seats"]) == ["0"]
    change = out["seats"]["0"]
    assert change["name"] == "Anna" and change["before"] == MU0 and change["after"] - change["before"] == change["change"]
    assert change["pm"] < change["pm_before"] == 2 * SIGMA0
    mine = get(client, "/api/account/rating", anna).json()
    assert mine["games"] == 1 and mine["rating"] == change["after"] and [e["game"] for e in mine["events"]] == [g["id"]]
    # last place lowers the rating; no place raises it: a newcomer (1500) is above what a win
    # over random bots can reach (ratings.REACH; random bots: a person playing at random
    # against them may finish anywhere)
    placed = storage_of(client).results_of([g["id"]])[g["id"]][0][0].place
    assert change["change"] == 0 if placed == 1 else change["change"] < 0 if placed == 4 else change["change"] <= 0
    # asked again: the same, nothing counted twice
    assert settled(client, g["id"]) == out
    assert get(client, "/api/account/rating", anna).json()["games"] == 1
    board = client.get("/api/leaderboard").json()
    assert board["min_games"] == 1 and [p["name"] for p in board["players"]] == ["Anna"]
    assert {b["level"] for b in board["bots"]} >= {"random", "greedy", "hard"}
    # play again: rated too
    again = post(client, f"/api/games/{g['id']}/again", anna, json={"seats": {"0": tokens(g)[0]}})
    assert again.status_code == 200, again.text
    assert client.get(f"/api/games/{again.json()['id']}").json()["table"]["rated"] is True
    # the data download has the rating; deleting the account removes it
    data = get(client, "/api/account/data", anna).json()
    assert data["rating"]["games"] == 1 and [e["game"] for e in data["rated_games"]] == [g["id"]]
    aid = account_id(client, anna)
    assert post(client, "/api/account/delete", anna, json={"password": PW}).status_code == 200
    with storage_of(client).engine.connect() as conn:
        assert conn.execute(select(ratings).where(ratings.c.account_id == aid)).first() is None
        assert conn.execute(select(rating_events).where(rating_events.c.account_id == aid)).first() is None
    assert client.get("/api/leaderboard").json()["players"] == []


def test_an_unrated_game_stores_its_results_at_the_end(client: TestClient) -> None:
    g = client.post("/api/games", json={"players": seats("person", "bot", "bot")}).json()
    client.post(f"/api/games/{g['id']}/join", json={"seat": 0, "token": tokens(g)[0]})
    play_out(client, g["id"], tokens(g), random.Random(4))
    settler = client.app.state.settler  # type: ignore[attr-defined]
    end = time.monotonic() + 20
    while g["id"] not in settler.settled:  # the settler marks it once its transaction is done
        assert time.monotonic() < end
        time.sleep(0.02)
    assert g["id"] in storage_of(client).results_of([g["id"]])
    assert storage_of(client).results_of([g["id"]])[g["id"]][0][1] is False  # not rated


def test_a_game_whose_update_failed_is_rated_when_next_asked(tmp_path: Path, db_url: str) -> None:
    with make_client(tmp_path, db_url=db_url) as c:
        st = storage_of(c)
        real = st.settle_game
        st.settle_game = lambda *a, **k: (_ for _ in ()).throw(OSError("the database is away"))  # type: ignore[method-assign]
        anna = sign_up(c, "Anna")
        g = rated_vs_bots(c, anna)
        play_out(c, g["id"], tokens(g), random.Random(5))
        assert g["id"] not in st.results_of([g["id"]])
    st.settle_game = real  # type: ignore[method-assign]
    # a restart: the settlement's tries ended with the process; the first who asks settles it
    with make_client(tmp_path, db_url=db_url) as c:
        mine = get(c, "/api/account/rating", anna).json()
        assert mine["games"] == 1 and [e["game"] for e in mine["events"]] == [g["id"]]
        assert settled(c, g["id"])["seats"]["0"]["before"] == MU0
        assert get(c, "/api/account/rating", anna).json()["games"] == 1


# -- rated tables: who may sit at one -----------------------------------------------------------


def test_every_refusal_of_a_rated_table(client: TestClient) -> None:
    anna, bert = sign_up(client, "Anna"), sign_up(client, "Bert")
    body = {"players": seats("person", "open", "open"), "rated": True}
    r = post(client, "/api/games", None, json=body)
    assert r.status_code == 403 and r.json()["error"]["code"] == "rated_needs_account"
    r = post(client, "/api/games", anna, json={**body, "hotseat": True})
    assert r.json()["error"]["code"] == "rated_no_hotseat"
    r = post(client, "/api/games", anna, json={**body, "hints": True})
    assert r.json()["error"]["code"] == "rated_no_hints"
    g = post(client, "/api/games", anna, json=body).json()
    gid = g["id"]
    assert post(client, f"/api/games/{gid}/join", anna, json={"seat": 0, "token": tokens(g)[0]}).status_code == 200
    # a guest may not take a seat: from the lobby, by its link, or by opening it
    r = post(client, f"/api/games/{gid}/claim", None, json={"seat": 1})
    assert r.status_code == 403 and r.json()["error"]["code"] == "rated_needs_account"
    r = post(client, f"/api/games/{gid}/join", None, json={"seat": 1, "token": tokens(g)[1]})
    assert r.json()["error"]["code"] == "rated_needs_account"
    client.cookies.clear()
    with client.websocket_connect(f"/ws/{gid}") as ws:
        ws.send_json({"type": "hello", "seats": {"1": tokens(g)[1]}})
        assert ws.receive_json()["code"] == "rated_needs_account"
    # an account takes one seat only
    r = post(client, f"/api/games/{gid}/claim", anna, json={"seat": 1})
    assert r.status_code == 409 and r.json()["error"]["code"] == "rated_one_seat"
    assert all(not p["joined"] for p in client.get(f"/api/games/{gid}").json()["players"][1:])  # nothing changed
    # another account may
    r = post(client, f"/api/games/{gid}/claim", bert, json={"seat": 1, "name": "Bert"})
    assert r.status_code == 200, r.text
    assert storage_of(client).game_owners(gid) == {0: account_id(client, anna), 1: account_id(client, bert)}
    # a seat invited by link, opened signed in on the WebSocket, becomes that account's
    h = post(client, "/api/games", anna, json={"players": seats("person", "person", "person", "bot"), "rated": True}).json()
    client.cookies.set(COOKIE, bert)
    with client.websocket_connect(f"/ws/{h['id']}", headers={"origin": "http://testserver"}) as ws:
        ws.send_json({"type": "hello", "seats": {"1": tokens(h)[1]}})
        assert ws.receive_json()["type"] == "welcome"
    client.cookies.clear()
    assert storage_of(client).game_owners(h["id"])[1] == account_id(client, bert)
    # ... and the same account may not open another seat too; nor the creator's, hers from the start
    for seat, code in ((2, "rated_one_seat"), (0, "not_your_seat")):
        client.cookies.set(COOKIE, bert)
        with client.websocket_connect(f"/ws/{h['id']}", headers={"origin": "http://testserver"}) as ws:
            ws.send_json({"type": "hello", "seats": {str(seat): tokens(h)[seat]}})
            assert ws.receive_json()["code"] == code
        client.cookies.clear()
    # unrated tables are as they were: a guest claims
    u = client.post("/api/games", json={"players": seats("person", "open", "bot")}).json()
    assert post(client, f"/api/games/{u['id']}/claim", None, json={"seat": 1}).status_code == 200


# -- the leaderboard, find me a table, bots for a waiting table --------------------------------


def test_the_leaderboard_lists_players_with_enough_games_best_first(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    change_settings(monkeypatch, client.app, leaderboard_games=5)
    st = storage_of(client)
    for name, mu, sigma, games in (("Ada", 1700, 150, 5), ("Bo", 1650, 40, 30), ("Cy", 1900, 60, 4), ("Di", 1400, 50, 9)):
        set_rating(st, account_id(client, sign_up(client, name)), mu, sigma, games)
    board = client.get("/api/leaderboard").json()
    # by mu - 2 sigma: Bo 1570, Ada 1400, Di 1300; Cy has too few games
    assert [(p["rank"], p["name"], p["rating"], p["pm"]) for p in board["players"]] == [
        (1, "Bo", 1650, 80),
        (2, "Ada", 1700, 300),
        (3, "Di", 1400, 100),
    ]
    change_settings(monkeypatch, client.app, leaderboard_games=10)
    assert [p["name"] for p in client.get("/api/leaderboard").json()["players"]] == ["Bo"]
    assert client.get("/players").status_code == 200


def test_a_wrong_leaderboard_setting_stops_the_start(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    for bad in ("-1", "many", "10001"):
        monkeypatch.setenv("KARDINAL_LEADERBOARD_GAMES", bad)
        with pytest.raises(ValueError):
            make_client(tmp_path)


def test_find_me_a_table_seats_the_closest_else_opens_one(client: TestClient) -> None:
    st = storage_of(client)
    strong, weak, me, far = sign_up(client, "Strong"), sign_up(client, "Weak"), sign_up(client, "Me"), sign_up(client, "Far")
    set_rating(st, account_id(client, strong), 2000, 60)
    set_rating(st, account_id(client, weak), 1400, 60)
    set_rating(st, account_id(client, me), 1900, 60)
    set_rating(st, account_id(client, far), 900, 50)
    tables = {}
    for who in (strong, weak):
        g = post(client, "/api/games", who, json={"players": seats("person", "open", "open", "open"), "rated": True}).json()
        post(client, f"/api/games/{g['id']}/join", who, json={"seat": 0, "token": tokens(g)[0]})
        tables[who] = g["id"]
    assert post(client, "/api/find-table", None, json={}).status_code == 401  # signed-in players only
    r = post(client, "/api/find-table", me, json={})
    assert r.status_code == 200, r.text
    found = r.json()
    assert found["new"] is False and found["id"] == tables[strong] and found["seat"] == 1
    assert st.game_owners(found["id"])[1] == account_id(client, me)
    assert state(client, found["id"], 1, found["token"])["seat"] == 1
    # nobody within reach of 900 ± max(200, 2 sigma): a new rated table of four, three seats open
    r = post(client, "/api/find-table", far, json={})
    new = r.json()
    assert new["new"] is True and new["id"] not in tables.values()
    info = client.get(f"/api/games/{new['id']}").json()
    assert info["table"]["rated"] is True and info["status"] == "open"
    assert [p["open"] for p in info["players"]] == [False, True, True, True] and info["players"][0]["joined"]
    # asked again while that table waits: the same table and seat (a new token for this device)
    again = post(client, "/api/find-table", far, json={}).json()
    assert (again["id"], again["seat"], again["new"]) == (new["id"], 0, False)
    assert state(client, new["id"], 0, again["token"])["seat"] == 0
    # a newcomer (sigma 350) may sit anywhere: the closest by mean rating (Weak's 1400 over Far's 900)
    r = post(client, "/api/find-table", sign_up(client, "New"), json={})
    assert r.json()["id"] == tables[weak]
    # nobody comes to Far's table: Far starts it with bots of Far's level (random's rating is closest to 900)
    r = post(client, f"/api/games/{new['id']}/fill", None, json={"seat": 0, "token": new["token"]})
    assert r.status_code == 200, r.text
    assert r.json() == {"ok": True, "status": "running", "level": closest_level(900, list(BOT_RATINGS))}
    players = client.get(f"/api/games/{new['id']}").json()["players"]
    assert [p["kind"] for p in players] == ["person", "bot", "bot", "bot"] and players[1]["level"] == r.json()["level"]
    # only a person who has taken a seat of a waiting table may
    r = post(client, f"/api/games/{tables[weak]}/fill", None, json={"seat": 0, "token": "wrong"})
    assert r.status_code == 403
    r = post(client, f"/api/games/{new['id']}/fill", None, json={"seat": 0, "token": new["token"]})
    assert r.json()["error"]["code"] == "not_open"


def test_two_servers_asking_at_once_rate_a_game_once(tmp_path: Path, db_url: str) -> None:
    """Two servers (each its own game service and connections) on one database: a rated game
    finished on the first before its settlement ran; both are asked for its ratings at the
    same moment, again and again: it is rated once. (Neither settles it as it sees it finish:
    the second, which took the game into memory to watch its bots (Shared.resume), would
    settle it as soon as it caught up with the end.)"""
    with make_client(tmp_path / "a", db_url=db_url) as a, make_client(tmp_path / "b", db_url=db_url) as b:
        for c in (a, b):
            c.app.state.service.on_change.remove(c.app.state.settler.changed)  # type: ignore[attr-defined]
        anna = sign_up(a, "Anna")
        g = rated_vs_bots(a, anna)
        play_out(a, g["id"], tokens(g), random.Random(6))
        assert g["id"] not in storage_of(a).results_of([g["id"]])
        answers: list[dict[str, Any]] = []
        barrier = threading.Barrier(2)

        def ask(c: TestClient) -> None:
            barrier.wait()
            for _ in range(3):
                answers.append(c.get(f"/api/games/{g['id']}/ratings").json())

        ts = [threading.Thread(target=ask, args=(c,)) for c in (a, b)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        assert len(answers) == 6 and all(x["settled"] and x["seats"] == answers[0]["seats"] for x in answers), answers
        aid = account_id(a, anna)
        assert storage_of(b).ratings_of([aid])[aid][2] == 1
        assert [e["game"] for e in storage_of(b).rating_events_of(aid)] == [g["id"]]


def test_a_server_that_has_not_heard_of_the_end_yet_answers_the_ratings_of_the_finished_game(tmp_path: Path, pg: Any) -> None:
    """Two servers on one PostgreSQL database: the second holds the game in memory but has
    not heard (yet) that the first finished it. Asked for its ratings, it reads the game's
    end from the database and answers as the first does, not "not finished"."""
    db_url = pg.new_database()
    with make_client(tmp_path / "a", db_url=db_url) as a, make_client(tmp_path / "b", db_url=db_url) as b:
        anna = sign_up(a, "Anna")
        g = rated_vs_bots(a, anna)
        assert b.get(f"/api/games/{g['id']}").status_code == 200  # in b's memory now
        b.app.state.service.changed_elsewhere = lambda gid: None  # type: ignore[attr-defined]  # b hears nothing
        play_out(a, g["id"], tokens(g), random.Random(6))
        first = settled(a, g["id"])
        assert first["seats"]["0"]["name"] == "Anna"
        r = b.get(f"/api/games/{g['id']}/ratings")
        assert r.status_code == 200 and r.json() == first


def test_a_seat_a_bot_stood_in_for_is_rated_as_its_person() -> None:
    """A person whose turns a stand-in played for a while and who took the seat back: the
    result is theirs (the seat's owner). One still stood in for at the end left the game: it
    is rated last, whatever the stand-in made of it (ratings.forfeited; tests/test_web_rating_policy.py)."""
    found = [SeatResult(0, 3, 1.0, 50, 1.0), SeatResult(1, 3, 2.0, 40, 0.0), SeatResult(2, 3, 3.0, 30, 0.0)]
    for standin, won in ((False, True), (True, False)):
        seat_rows = [SeatRow("A", "person", joined=True, standin=standin), SeatRow("x", "bot", "greedy"), SeatRow("y", "bot", "greedy")]
        after = rater(seat_rows, found)({0: (MU0, SIGMA0)})
        assert list(after) == [0] and (after[0][0] > MU0) is won


def test_find_me_a_table_does_not_seat_blocked_players_together(client: TestClient) -> None:
    st = storage_of(client)
    host, me = sign_up(client, "Host"), sign_up(client, "Me")
    set_rating(st, account_id(client, host), 1500, 60)
    set_rating(st, account_id(client, me), 1500, 60)
    g = post(client, "/api/games", host, json={"players": seats("person", "open", "open", "open"), "rated": True}).json()
    post(client, f"/api/games/{g['id']}/join", host, json={"seat": 0, "token": tokens(g)[0]})
    # the host blocked Me (moderation): Me is not seated at the host's table, however close
    assert post(client, "/api/moderation/block", host, json={"name": "Me"}).status_code == 200
    r = post(client, "/api/find-table", me, json={})
    assert r.status_code == 200 and r.json()["new"] is True and r.json()["id"] != g["id"]
    # lifted: the closest table again (Me's own waiting table aside, another player finds the host's)
    assert post(client, "/api/moderation/block", host, json={"name": "Me", "on": False}).status_code == 200
    set_rating(st, account_id(client, me), 2500, 60)  # Me's own waiting table is now out of reach of 1500
    other, third = sign_up(client, "Other"), sign_up(client, "Third")
    for who in (other, third):
        set_rating(st, account_id(client, who), 1500, 60)
    assert post(client, "/api/find-table", third, json={}).json()["id"] == g["id"]  # unblocked: the host's table
    assert post(client, "/api/moderation/block", other, json={"name": "Host"}).status_code == 200  # the other way round
    found = post(client, "/api/find-table", other, json={}).json()
    assert found["new"] is True and found["id"] != g["id"]


def test_a_rated_table_starts_with_those_at_it(client: TestClient) -> None:
    """The fourth new-user walk: Bruno took a seat of a rated table and went away; Alice
    started it with bots 15 minutes later, a stand-in played his whole game and he lost 252
    points. A rated game starts with the people at the table: the seat of one who is not
    there goes to a bot too, is no account's, and its link says so; one who is there keeps it."""
    alice, bruno, carl = sign_up(client, "Alice"), sign_up(client, "Bruno"), sign_up(client, "Carl")
    t = post(client, "/api/find-table", alice, json={}).json()
    got = {}
    for who, seat in ((bruno, 3), (carl, 1)):  # (the absent seat after the free one: the game starts as the last is filled)
        r = post(client, f"/api/games/{t['id']}/claim", who, json={"seat": seat})
        assert r.status_code == 200, r.text
        got[seat] = r.json()["token"]
    with client.websocket_connect(f"/ws/{t['id']}") as a, client.websocket_connect(f"/ws/{t['id']}") as c:
        # Alice and Carl are at the table (their pages connected); Bruno went on elsewhere
        for ws, seat, tok in ((a, 0, t["token"]), (c, 1, got[1])):
            ws.send_json({"type": "hello", "seats": {str(seat): tok}})
            assert ws.receive_json()["type"] == "welcome"
        r = post(client, f"/api/games/{t['id']}/fill", None, json={"seat": 0, "token": t["token"]})
        assert r.status_code == 200 and r.json()["status"] == "running", r.text
    players = client.get(f"/api/games/{t['id']}").json()["players"]
    assert [p["kind"] for p in players] == ["person", "person", "bot", "bot"]
    assert set(storage_of(client).game_owners(t["id"])) == {0, 1}  # Bruno's seat is no longer his
    r = client.get(f"/api/games/{t['id']}/state", params={"seat": 3, "token": got[3]})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bot_seat"
    assert all(g["game"]["id"] != t["id"] for g in get(client, "/api/account/games", bruno).json()["games"])
