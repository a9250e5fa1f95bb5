"""Players among themselves (kardinal.server.community.social, social_routes): profiles, following,
invitations by name, tables open to friends only. Each on SQLite and PostgreSQL (the
``db_url`` fixture).

The security tests name what they stand against: one account reading another's
invitations or taking a seat kept for another, following on someone's behalf (a forged
cross-site request), a stranger at a friends-only table, a private table shown on a
profile, and guessing names by invitations (rate limited).
"""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from limits import parse_many
from sqlalchemy import func, insert, select, update
from test_web_accounts import PW, get, post, sign_up
from web_helpers import LENIENT, make_client, play_out, tokens

from kardinal.server.common.guard import Guard
from kardinal.server.storage import SeatResult, Storage
from kardinal.server.storage.schema import follows, games, invitations, rating_events, ratings, results, seat_owners

pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


@pytest.fixture
def client(tmp_path: Path, db_url: str) -> Iterator[TestClient]:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def storage(c: TestClient) -> Storage:
    s: Storage = c.app.state.service.storage  # type: ignore[attr-defined]
    return s


def new_game(c: TestClient, secret: str | None, players: list[dict[str, Any]], **table: Any) -> Any:
    return post(c, "/api/games", secret, json={"players": players, "board": "standard", **table})


def me_and_bots(c: TestClient, secret: str, n: int = 3, **table: Any) -> dict[str, Any]:
    """A table of one person (the signed-in creator's seat, seat 0) and bots."""
    players = [{"name": "Me", "kind": "person"}] + [{"kind": "bot", "level": "random"} for _ in range(n - 1)]
    r = new_game(c, secret, players, **table)
    assert r.status_code == 200, r.text
    g = dict(r.json())
    assert post(c, f"/api/games/{g['id']}/join", secret, json={"seat": 0, "token": tokens(g)[0]}).status_code == 200  # running
    return g


def finish(c: TestClient, gid: str, found: list[SeatResult], at: float) -> None:
    """The game as finished with these results (stored as the game's end stores them)."""
    st = storage(c)
    with st.engine.begin() as conn:
        conn.execute(update(games).where(games.c.id == gid).values(status="finished", updated=at))
    st.save_results(gid, found, False, at)
    c.app.state.service.live.pop(gid, None)  # type: ignore[attr-defined]


def results_of(n: int, mine: tuple[float, int, float]) -> list[SeatResult]:
    """Seat 0's (place, score, win) and made-up others."""
    place, score, win = mine
    return [SeatResult(0, n, place, score, win)] + [SeatResult(s, n, float(s + 1), 10 * s, 0.0) for s in range(1, n)]


def invite_table(c: TestClient, secret: str, name: str, **table: Any) -> dict[str, Any]:
    players = [{"name": "Host", "kind": "person"}, {"kind": "person", "account": name}, {"kind": "bot", "level": "random"}]
    r = new_game(c, secret, players, **table)
    assert r.status_code == 200, r.text
    return dict(r.json())


def count(c: TestClient, table: Any) -> int:
    with storage(c).engine.connect() as conn:
        return int(conn.execute(select(func.count()).select_from(table)).scalar_one())


# -- profiles -------------------------------------------------------------------------------


def test_a_profile_counts_games_wins_scores_and_places_by_number_of_players(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    g1, g2, g3 = (me_and_bots(client, a, n) for n in (3, 3, 4))
    finish(client, g1["id"], results_of(3, (1.0, 60, 1.0)), 1000.0)
    finish(client, g2["id"], results_of(3, (1.5, 40, 0.5)), 2000.0)  # a shared win counts its share
    finish(client, g3["id"], results_of(4, (3.0, 20, 0.0)), 3000.0)
    p = get(client, "/api/players/%20anna%20").json()  # the name as accounts match names
    assert p["name"] == "Anna" and p["games"] == 3 and p["wins"] == pytest.approx(1.5)
    assert p["by_players"] == [
        {"players": 3, "games": 2, "wins": 1.5, "score": 50.0, "place": 1.25},
        {"players": 4, "games": 1, "wins": 0.0, "score": 20.0, "place": 3.0},
    ]
    assert p["rating"] is None and p["history"] == []  # not rated yet
    assert [g["game"] for g in p["last"]] == [g3["id"], g2["id"], g1["id"]]  # newest first
    assert p["last"][1] | {"players": None} == {
        "game": g2["id"],
        "status": "finished",
        "at": 2000.0,
        "seat": 0,
        "name": "Me",
        "players": None,
        "public": True,
        "place": 1.5,
        "score": 40,
        "win": 0.5,
        "of": 3,
    }
    assert p["me"] is False and p["following"] is False  # a guest asked
    assert get(client, "/api/players/Anna", a).json()["me"] is True


def test_a_game_finished_before_results_were_stored_is_filled_in_once(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    a = sign_up(client, "Anna")
    g = me_and_bots(client, a)
    end = play_out(client, g["id"], tokens(g), random.Random(3))
    assert end["status"] == "finished"
    with storage(client).engine.begin() as conn:  # as a game finished before migration 9
        conn.execute(results.delete().where(results.c.game_id == g["id"]))
    p = get(client, "/api/players/anna").json()
    assert p["games"] == 1 and p["last"][0]["score"] == end["view"]["scores"][0]
    assert count(client, results) == 3  # stored now

    def no_replay(*_a: Any) -> Any:
        raise AssertionError("a profile replayed a game whose results are stored")

    monkeypatch.setattr(client.app.state.service, "replayed", no_replay)  # type: ignore[attr-defined]
    client.app.state.service.live.clear()  # type: ignore[attr-defined]
    assert get(client, "/api/players/anna").json()["games"] == 1


def test_a_hot_seat_game_is_listed_once_and_not_counted(client: TestClient) -> None:
    """One person at every seat of one browser: every seat is the account's, none is a result of theirs."""
    a = sign_up(client, "Anna")
    r = new_game(client, a, [{"name": "A"}, {"name": "B"}, {"name": "C"}], hotseat=True)
    gid = r.json()["id"]
    finish(client, gid, [SeatResult(s, 3, float(s + 1), 30 - s, float(s == 0)) for s in range(3)], 100.0)
    p = get(client, "/api/players/Anna").json()
    assert p["games"] == 0 and p["by_players"] == []
    assert [g["game"] for g in p["last"]] == [gid]


def test_the_rating_and_its_history(client: TestClient) -> None:
    sign_up(client, "Anna")
    aid = storage(client).account_named("anna").id  # type: ignore[union-attr]
    with storage(client).engine.begin() as conn:
        conn.execute(insert(ratings).values(account_id=aid, mu=27.5, sigma=4.0, games=2, updated=20.0))
        conn.execute(insert(rating_events), [
            {"account_id": aid, "game_id": "g2", "at": 20.0, "mu": 27.5, "sigma": 4.0, "before": 26.0},
            {"account_id": aid, "game_id": "g1", "at": 10.0, "mu": 26.0, "sigma": 6.0, "before": 25.0},
        ])  # fmt: skip
    p = get(client, "/api/players/Anna").json()
    assert p["rating"] == {"mu": 27.5, "sigma": 4.0, "games": 2}
    assert p["history"] == [{"at": 10.0, "mu": 26.0, "sigma": 6.0}, {"at": 20.0, "mu": 27.5, "sigma": 4.0}]  # oldest first


def test_a_profile_shows_no_private_table_to_others_and_no_seat_link(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    public = me_and_bots(client, a)  # running
    private = me_and_bots(client, a, public=False)
    finish(client, private["id"], results_of(3, (1.0, 50, 1.0)), 5000.0)
    for who in (None, b):
        p = get(client, "/api/players/Anna", who)
        assert [g["game"] for g in p.json()["last"]] == [public["id"]]
        assert p.json()["last"][0]["status"] == "running"
        assert p.json()["games"] == 1  # counted in the numbers, without naming it
        for secret in (*tokens(public).values(), *tokens(private).values()):
            assert secret not in p.text
        assert "token" not in p.text
    own = get(client, "/api/players/Anna", a).json()["last"]
    assert {g["game"]: g["public"] for g in own} == {private["id"]: False, public["id"]: True}


def test_an_account_with_many_games_reads_a_page_of_them(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    aid = storage(client).account_named("anna").id  # type: ignore[union-attr]
    first = me_and_bots(client, a)
    st = storage(client)
    with st.engine.begin() as conn:  # 300 more seats of finished games, their results stored
        row = conn.execute(select(games).where(games.c.id == first["id"])).one()._mapping
        conn.execute(insert(games), [{**row, "id": f"many{i}", "status": "finished", "updated": float(i)} for i in range(300)])
        conn.execute(insert(seat_owners), [{"game_id": f"many{i}", "seat": 0, "account_id": aid, "since": float(i)} for i in range(300)])
        conn.execute(insert(results), [
            {"game_id": f"many{i}", "seat": 0, "players": 3, "place": 2.0, "score": 30, "win": 0.0, "rated": False, "finished": float(i)}
            for i in range(300)
        ])  # fmt: skip
    p = get(client, "/api/players/Anna").json()
    assert p["games"] == 300 and len(p["last"]) == 20


def test_a_name_with_a_slash_or_a_question_mark_has_its_profile(client: TestClient) -> None:
    sign_up(client, "A/B? #1")
    assert get(client, "/api/players/a%2Fb%3F%20%231").json()["name"] == "A/B? #1"
    assert get(client, "/player/A%2FB%3F%20%231").status_code == 200


@pytest.mark.parametrize("path", ["/api/players/Nobody", "/player/Nobody"])
def test_a_name_without_an_account_has_no_profile(client: TestClient, path: str) -> None:
    r = get(client, path)
    assert r.status_code == 404
    if path.startswith("/api"):
        assert r.json()["error"]["code"] == "no_player"


def test_a_deleted_account_has_no_profile_and_leaves_no_follows_or_invitations(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    assert post(client, "/api/account/follow", a, json={"name": "Ben"}).status_code == 200
    assert post(client, "/api/account/follow", b, json={"name": "Anna"}).status_code == 200
    invite_table(client, b, "Anna")  # to Anna
    sent = invite_table(client, a, "Ben")  # from Anna: stays kept for Ben, from nobody
    assert get(client, "/player/Anna").status_code == 200
    assert post(client, "/api/account/delete", a, json={"password": PW}).status_code == 200
    assert get(client, "/player/Anna").status_code == 404
    assert get(client, "/api/players/Anna").json()["error"]["code"] == "no_player"
    assert count(client, follows) == 0
    left = get(client, "/api/account/invitations", b).json()
    assert [(i["game"]["id"], i["by"]) for i in left["received"]] == [(sent["id"], None)] and left["sent"] == []
    assert get(client, "/api/players/Ben").json()["followers"] == 0


# -- following -------------------------------------------------------------------------------


def test_follow_and_unfollow(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    r = post(client, "/api/account/follow", b, json={"name": "ANNA"})
    assert r.json() == {"name": "Anna", "following": True}  # the name as accounts match names, shown as its account has it
    assert post(client, "/api/account/follow", b, json={"name": "Anna"}).json()["following"] is True  # twice: once
    p = get(client, "/api/players/Anna", b).json()
    assert p["following"] is True and p["followers"] == 1 and p["follows"] == 0
    assert get(client, "/api/account/follows", a).json()["followers"][0]["name"] == "Ben"
    assert [f["name"] for f in get(client, "/api/account/follows", b).json()["following"]] == ["Anna"]
    assert post(client, "/api/account/follow", b, json={"name": "Anna", "follow": False}).json()["following"] is False
    assert get(client, "/api/players/Anna", b).json()["following"] is False and count(client, follows) == 0
    bad = {
        "follow_self": post(client, "/api/account/follow", b, json={"name": "ben"}),
        "no_player": post(client, "/api/account/follow", b, json={"name": "Nobody"}),
        "signed_out": post(client, "/api/account/follow", None, json={"name": "Anna"}),
    }
    assert {k: r.json()["error"]["code"] for k, r in bad.items()} == {k: k for k in bad}
    assert get(client, "/api/account/follows").status_code == 401
    assert count(client, follows) == 0


@pytest.mark.parametrize(
    "headers", [{"origin": "https://evil.example"}, {"referer": "https://evil.example/x"}, {"sec-fetch-site": "cross-site"}]
)
def test_a_forged_cross_site_follow_is_refused(client: TestClient, headers: dict[str, str]) -> None:
    sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    client.cookies.set("kardinal_session", b)
    try:
        r = client.post("/api/account/follow", json={"name": "Anna"}, headers=headers)
        take = client.post("/api/account/invitations/take", json={"game": "x", "seat": 1}, headers=headers)
    finally:
        client.cookies.clear()
    assert r.status_code == 403 and r.json()["error"]["code"] == "cross_site"
    assert take.status_code == 403 and take.json()["error"]["code"] == "cross_site"
    assert count(client, follows) == 0


# -- invitations by name -------------------------------------------------------------------


def test_an_invited_account_takes_its_seat_from_my_games(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    c = sign_up(client, "Carl")
    g = invite_table(client, a, "ben")
    assert g["seats"][1]["name"] == "Ben"  # the seat takes the account's name
    got = get(client, "/api/account/invitations", b).json()
    assert [(i["game"]["id"], i["seat"], i["by"]) for i in got["received"]] == [(g["id"], 1, "Anna")]
    assert [(i["game"]["id"], i["to"]) for i in get(client, "/api/account/invitations", a).json()["sent"]] == [(g["id"], "Ben")]
    # nobody else reads them, nor takes the seat
    assert get(client, "/api/account/invitations", c).json() == {"received": [], "sent": []}
    assert get(client, "/api/account/invitations").status_code == 401
    r = post(client, "/api/account/invitations/take", c, json={"game": g["id"], "seat": 1})
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_invitation"
    assert post(client, "/api/account/seat", c, json={"game": g["id"], "seat": 1}).json()["error"]["code"] == "not_your_seat"
    # Ben takes it: the seat is his, on this device a working token
    r = post(client, "/api/account/invitations/take", b, json={"game": g["id"], "seat": 1})
    assert r.status_code == 200, r.text
    tok = r.json()["token"]
    assert post(client, f"/api/games/{g['id']}/join", b, json={"seat": 1, "token": tok}).status_code == 200
    assert storage(client).seat_owner(g["id"], 1) == storage(client).account_named("ben").id  # type: ignore[union-attr]
    assert [m["game"]["id"] for m in get(client, "/api/account/games", b).json()["games"]] == [g["id"]]
    assert get(client, "/api/account/invitations", b).json()["received"] == []
    assert get(client, "/api/account/invitations", a).json()["sent"] == []  # no longer pending
    again = post(client, "/api/account/invitations/take", b, json={"game": g["id"], "seat": 1})
    assert again.json()["error"]["code"] == "no_invitation"
    # the seat is Ben's: its link, which Anna was shown, opens it no more (Ben's token does)
    r = post(client, f"/api/games/{g['id']}/join", None, json={"seat": 1, "token": tokens(g)[1]})
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
    assert post(client, f"/api/games/{g['id']}/join", None, json={"seat": 1, "token": tok}).status_code == 200


def test_a_seat_kept_for_an_account_is_not_another_accounts(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    c = sign_up(client, "Carl")
    g = invite_table(client, a, "Ben")
    # Carl has the link and opens it signed in: he may play it, but it does not become his
    assert post(client, f"/api/games/{g['id']}/join", c, json={"seat": 1, "token": tokens(g)[1]}).status_code == 200
    assert storage(client).seat_owner(g["id"], 1) is None
    assert get(client, "/api/account/games", c).json()["games"] == []
    # nor when he signs in with the seat's token in his browser's storage
    r = post(client, "/api/account/signin", None, json={"name": "Carl", "password": PW, "held": {g["id"]: {"1": tokens(g)[1]}}})
    assert r.status_code == 200 and r.json()["brought"] == 0
    assert storage(client).seat_owner(g["id"], 1) is None
    r = post(client, "/api/account/invitations/take", b, json={"game": g["id"], "seat": 1})
    assert r.status_code == 200, r.text


def test_a_seat_opened_signed_in_is_bound_in_one_transaction(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """Opening a seat signed in looks at the invitations, takes the seat and ends the
    account's own invitation to it in one storage call (Storage.bind_seats), not three
    trips to the database; what each account gets stays the same."""
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    c = sign_up(client, "Carl")
    g = invite_table(client, a, "ben")  # seat 1 kept for Ben
    st = storage(client)

    def apart(*_: object) -> None:
        raise AssertionError("a storage call of its own")

    for name in ("invited", "take_seats", "end_invitations"):
        monkeypatch.setattr(st, name, apart)
    # Carl opens seat 1 by its link signed in: he may play it; it stays kept for Ben
    assert post(client, f"/api/games/{g['id']}/join", c, json={"seat": 1, "token": tokens(g)[1]}).status_code == 200
    assert st.seat_owner(g["id"], 1) is None
    # Ben opens it by the link: his, with a new token, and his invitation to it has ended
    r = post(client, f"/api/games/{g['id']}/join", b, json={"seat": 1, "token": tokens(g)[1]})
    assert r.status_code == 200, r.text
    assert r.json()["token"] not in (None, tokens(g)[1])
    assert st.seat_owner(g["id"], 1) == st.account_named("ben").id  # type: ignore[union-attr]
    assert get(client, "/api/account/invitations", b).json()["received"] == []
    assert get(client, "/api/account/invitations", a).json()["sent"] == []


def test_a_table_of_one_invited_person_seat_is_not_the_creators(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    sign_up(client, "Ben")
    players = [{"kind": "person", "account": "Ben"}, {"kind": "bot"}, {"kind": "bot"}]
    g = new_game(client, a, players).json()
    assert storage(client).seat_owner(g["id"], 0) is None
    assert get(client, "/api/account/games", a).json()["games"] == []


def test_invitations_that_are_refused_make_no_table(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    sign_up(client, "Ben")
    before = count(client, games)

    def refused(secret: str | None, players: list[dict[str, Any]], **table: Any) -> str:
        r = new_game(client, secret, players, **table)
        assert r.status_code >= 400, r.text
        return str(r.json()["error"]["code"])

    me = {"name": "Anna", "kind": "person"}
    bot = {"kind": "bot"}
    assert refused(a, [me, {"kind": "person", "account": "Nobody"}, bot]) == "no_player"
    assert refused(a, [me, {"kind": "person", "account": "anna"}, bot]) == "invite_self"
    assert refused(a, [me, {"kind": "person", "account": "Ben"}, {"kind": "person", "account": "BEN", "name": "x"}]) == "invited_twice"
    assert refused(None, [me, {"kind": "person", "account": "Ben"}, bot]) == "signed_out"
    assert refused(a, [me, {"kind": "person", "account": "Ben", "open": True}, bot]) == "malformed"
    assert refused(a, [me, {"kind": "person", "account": "Ben"}, bot], hotseat=True) == "malformed"
    assert count(client, games) == before and count(client, invitations) == 0


def test_no_invitation_between_accounts_one_of_which_blocked_the_other(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    assert post(client, "/api/moderation/block", b, json={"name": "Anna"}).status_code == 200
    for who, whom in ((a, "Ben"), (b, "Anna")):  # either way, and the refusal does not say who blocked
        r = new_game(client, who, [{"kind": "person"}, {"kind": "person", "account": whom}, {"kind": "bot"}])
        assert r.status_code == 403 and r.json()["error"]["code"] == "not_invitable" and "block" not in r.text
    assert count(client, invitations) == 0


def test_inviting_by_name_is_rate_limited(tmp_path: Path, db_url: str) -> None:
    """A name's existence is told to the inviter: looking names up is limited per account."""
    with make_client(tmp_path, db_url=db_url, guard=Guard({**LENIENT, "invite": parse_many("3/minute")})) as c:
        a = sign_up(c, "Anna")
        codes = [new_game(c, a, [{"kind": "person"}, {"kind": "person", "account": f"guess{i}"}, {"kind": "bot"}]).json() for i in range(5)]
        assert [x["error"]["code"] for x in codes] == ["no_player"] * 3 + ["rate_limited"] * 2


def test_an_invitation_to_a_game_that_ended_cannot_be_taken(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    g = invite_table(client, a, "Ben")
    with storage(client).engine.begin() as conn:
        conn.execute(update(games).where(games.c.id == g["id"]).values(status="expired"))
    client.app.state.service.live.pop(g["id"], None)  # type: ignore[attr-defined]
    assert get(client, "/api/account/invitations", b).json()["received"] == []  # not listed any more
    r = post(client, "/api/account/invitations/take", b, json={"game": g["id"], "seat": 1})
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_open"
    assert storage(client).seat_owner(g["id"], 1) is None


def test_a_declined_invitation_ends(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    g = invite_table(client, a, "Ben")
    assert post(client, "/api/account/invitations/decline", a, json={"game": g["id"], "seat": 1}).json()["error"]["code"] == "no_invitation"
    assert post(client, "/api/account/invitations/decline", b, json={"game": g["id"], "seat": 1}).json() == {"ok": True}
    assert count(client, invitations) == 0


def test_the_inviter_withdraws_an_invitation(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    c = sign_up(client, "Carl")
    g = invite_table(client, a, "Ben")
    seat = {"game": g["id"], "seat": 1}
    # only the inviter withdraws: not the invitee, not a third account, not signed out
    assert post(client, "/api/account/invitations/withdraw", b, json=seat).json()["error"]["code"] == "no_invitation"
    assert post(client, "/api/account/invitations/withdraw", c, json=seat).json()["error"]["code"] == "no_invitation"
    assert post(client, "/api/account/invitations/withdraw", None, json=seat).status_code == 401
    assert count(client, invitations) == 1
    assert client.get(f"/api/games/{g['id']}").json()["players"][1]["name"] == "Ben"  # named by the invitation
    r = post(client, "/api/account/invitations/withdraw", a, json=seat)
    assert r.status_code == 200 and r.json() == {"ok": True}
    assert count(client, invitations) == 0
    # ... and unnamed again: the lobby and the table no longer show Ben at a seat kept for nobody
    assert client.get(f"/api/games/{g['id']}").json()["players"][1]["name"] == ""
    assert get(client, "/api/account/invitations", a).json()["sent"] == []
    assert get(client, "/api/account/invitations", b).json()["received"] == []
    r = post(client, "/api/account/invitations/take", b, json=seat)
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_invitation"
    assert storage(client).seat_owner(g["id"], 1) is None
    assert post(client, "/api/account/invitations/withdraw", a, json=seat).json()["error"]["code"] == "no_invitation"  # once


# -- friends only -------------------------------------------------------------------------------


def test_a_friends_only_table(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    c = sign_up(client, "Carl")
    players = [{"name": "Anna", "kind": "person"}, {"kind": "person", "open": True}, {"kind": "bot"}]
    assert new_game(client, None, players, friends=True).json()["error"]["code"] == "signed_out"
    g = new_game(client, a, players, friends=True).json()
    assert post(client, "/api/account/follow", a, json={"name": "Ben"}).status_code == 200

    def lobby(secret: str | None) -> list[str]:
        return [x["id"] for x in get(client, "/api/games", secret).json()["games"]]

    assert g["id"] not in lobby(None) and g["id"] not in lobby(c)  # strangers do not see it at all
    assert g["id"] in lobby(a) and g["id"] in lobby(b)
    info = get(client, f"/api/games/{g['id']}").json()
    assert info["table"]["friends"] is True and "host" not in info["table"]
    for who in (None, c):
        r = post(client, f"/api/games/{g['id']}/claim", who, json={"seat": 1, "name": "X"})
        assert r.status_code == 403 and r.json()["error"]["code"] == "friends_only"
    r = post(client, f"/api/games/{g['id']}/claim", b, json={"seat": 1, "name": "Ben"})
    assert r.status_code == 200, r.text
    assert post(client, f"/api/games/{g['id']}/join", a, json={"seat": 0, "token": tokens(g)[0]}).status_code == 200
    assert get(client, f"/api/games/{g['id']}").json()["status"] == "running"
    assert g["id"] in lobby(c)  # under way: listed (to watch) like any public game


def test_a_table_for_everyone_lets_anyone_claim(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    g = new_game(client, a, [{"name": "Anna"}, {"kind": "person", "open": True}, {"kind": "bot"}]).json()
    assert get(client, f"/api/games/{g['id']}").json()["table"]["friends"] is False
    assert post(client, f"/api/games/{g['id']}/claim", None, json={"seat": 1, "name": "X"}).status_code == 200


# -- an account's own data -------------------------------------------------------------------


def test_the_data_download_holds_follows_and_invitations_and_only_ones_own(client: TestClient) -> None:
    a = sign_up(client, "Anna")
    b = sign_up(client, "Ben")
    c = sign_up(client, "Carl")
    post(client, "/api/account/follow", a, json={"name": "Ben"})
    post(client, "/api/account/follow", c, json={"name": "Anna"})
    g = invite_table(client, a, "Ben")
    h = invite_table(client, c, "Anna")
    d = get(client, "/api/account/data", a).json()
    assert [f["name"] for f in d["following"]] == ["Ben"] and [f["name"] for f in d["followers"]] == ["Carl"]
    assert [(i["game"], i["to"]) for i in d["invitations_sent"]] == [(g["id"], "Ben")]
    assert [(i["game"], i["by"]) for i in d["invitations_received"]] == [(h["id"], "Carl")]
    other = get(client, "/api/account/data", b).json()
    assert other["invitations_sent"] == [] and [(i["game"], i["by"]) for i in other["invitations_received"]] == [(g["id"], "Anna")]
    assert time.time() >= d["exported"]
