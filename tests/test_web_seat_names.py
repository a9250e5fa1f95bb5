"""Seat names (issue 43, items 7 and 12): an unnamed seat is stored with no words of the
language of the page that made it (each reader says "Player 2" / "Spieler 2": names.seat_name,
the web pages' seatName); a signed-in player's seat takes the account's name (Play now, a new
table, a seat joined or claimed); a "Find me a table" table whose one person deleted their
account closes. Old records, with the names they hold, replay as they did (test_records.py)."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_accounts import PW, get, post, sign_up
from web_helpers import make_client, tokens

from kardinal.server.common.names import UNNAMED, seat_name

pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)

BOTS = [{"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}]


@pytest.fixture
def client(tmp_path: Path) -> Iterator[TestClient]:
    with make_client(tmp_path) as c:
        yield c


def table(c: TestClient, secret: str | None, players: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    r = post(c, "/api/games", secret, json={"players": players, **options})
    assert r.status_code == 200, r.text
    return dict(r.json())


def names(c: TestClient, gid: str) -> list[str]:
    return [p["name"] for p in c.get(f"/api/games/{gid}").json()["players"]]


def test_a_seat_name_is_said_in_the_readers_language() -> None:
    assert seat_name(UNNAMED, 1, "en") == "Player 2" and seat_name(UNNAMED, 1, "de") == "Spieler 2"
    assert seat_name(UNNAMED, 1, "da") == "Spiller 2"
    assert seat_name(UNNAMED, 0, "fr") == "Player 1"  # a language without words of its own: English
    assert seat_name("Spieler 2", 1, "en") == "Spieler 2"  # a name stored by a game of before stays


def test_unnamed_seats_store_no_words(client: TestClient) -> None:
    g = table(client, None, [{"kind": "person"}, {"kind": "person", "open": True}, {"kind": "person"}, *BOTS[:1]])
    assert names(client, g["id"]) == ["", "", "", "Bot 4"]  # several unnamed seats at one table
    assert [s["name"] for s in g["seats"]] == ["", "", ""]
    # named later by joining, and a name is still unique at the table
    links = tokens(g)
    assert client.post(f"/api/games/{g['id']}/join", json={"seat": 0, "token": links[0], "name": "Anna"}).status_code == 200
    r = client.post(f"/api/games/{g['id']}/join", json={"seat": 2, "token": links[2], "name": "anna"})
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
    assert client.post(f"/api/games/{g['id']}/join", json={"seat": 2, "token": links[2]}).status_code == 200
    assert names(client, g["id"]) == ["Anna", "", "", "Bot 4"]


def test_a_record_names_an_unnamed_seat_as_records_do(client: TestClient) -> None:
    """A record (a file for any tool) holds names: an unnamed seat's is the records' own
    default ("Player 2", as kardinal.rules.record.record_of names seats without names)."""
    g = table(client, None, [{"kind": "person", "name": "Anna"}, {"kind": "person"}, *BOTS[:1]])
    for s, tok in tokens(g).items():
        assert client.post(f"/api/games/{g['id']}/join", json={"seat": s, "token": tok}).status_code == 200
    teach = client.app.state.service  # type: ignore[attr-defined]
    assert teach.live[g["id"]].names == ["Anna", "Player 2", "Bot 3"]


def test_find_me_a_table_opens_unnamed_seats_whatever_the_page_says(client: TestClient) -> None:
    ben = sign_up(client, "Ben")
    r = post(client, "/api/find-table", ben, json={"seat_name": "Spieler"})  # what pages of before sent
    assert r.status_code == 200, r.text
    assert names(client, r.json()["id"]) == ["Ben", "", "", ""]


def open_tables(c: TestClient) -> list[str]:
    """The lobby's tables waiting for players (their Join buttons)."""
    return [g["id"] for g in c.get("/api/games").json()["games"] if g["status"] == "open"]


def test_a_find_me_a_table_table_closes_when_its_one_person_deletes_the_account(client: TestClient) -> None:
    ben = sign_up(client, "Ben")
    gid = post(client, "/api/find-table", ben, json={}).json()["id"]
    assert gid in open_tables(client)
    assert post(client, "/api/account/delete", ben, json={"password": PW}).status_code == 200
    assert gid not in open_tables(client) and client.get(f"/api/games/{gid}").json()["status"] == "expired"
    # find me a table no longer finds it; a table where another person waits stays open
    dan, cleo = sign_up(client, "Dan"), sign_up(client, "Cleo")
    other = post(client, "/api/find-table", dan, json={}).json()["id"]
    assert other != gid
    assert post(client, "/api/find-table", cleo, json={}).json()["id"] == other
    assert post(client, "/api/account/delete", dan, json={"password": PW}).status_code == 200
    assert other in open_tables(client)
    assert post(client, "/api/find-table", sign_up(client, "Eve"), json={}).json()["id"] == other


def test_a_table_whose_links_were_given_stays_open_when_its_creator_deletes_the_account(client: TestClient) -> None:
    ben = sign_up(client, "Ben")
    g = table(client, ben, [{"kind": "person"}, {"kind": "person"}, *BOTS[:1]])
    assert post(client, f"/api/games/{g['id']}/join", ben, json={"seat": 0, "token": tokens(g)[0]}).status_code == 200
    assert post(client, "/api/account/delete", ben, json={"password": PW}).status_code == 200
    assert client.get(f"/api/games/{g['id']}").json()["status"] == "open"  # the friend with seat 2's link may still come


def test_a_signed_in_players_seat_takes_the_accounts_name(client: TestClient) -> None:
    """Issue 43, item 7: not "Player 1 (you)" but the account's name: Play now (no name
    sent), a new table's first seat, a seat joined by its link, a seat claimed from the lobby."""
    anna, ben, cleo = sign_up(client, "Anna"), sign_up(client, "Ben"), sign_up(client, "Cleo")
    now = table(client, anna, [{"kind": "person"}, *BOTS])
    assert names(client, now["id"])[0] == "Anna"
    named = table(client, anna, [{"kind": "person", "name": "Annie"}, *BOTS])
    assert names(client, named["id"])[0] == "Annie"  # a name given is kept
    g = table(client, anna, [{"kind": "person"}, {"kind": "person"}, {"kind": "person", "open": True}])
    gid, links = g["id"], tokens(g)
    assert names(client, gid) == ["Anna", "", ""]
    r = post(client, f"/api/games/{gid}/join", ben, json={"seat": 1, "token": links[1]})
    assert r.status_code == 200, r.text
    r = post(client, f"/api/games/{gid}/claim", cleo, json={"seat": 2})
    assert r.status_code == 200, r.text
    assert names(client, gid) == ["Anna", "Ben", "Cleo"]
    mine = get(client, "/api/account/games", ben).json()["games"]
    assert [x["game"]["players"][1]["name"] for x in mine] == ["Ben"]
    # the lobby's Join, signed in, sends no name (issue 43: no prompt): an open seat the host
    # named ("Anyone") takes the account's name too; one another seat has keeps the seat's
    g = table(
        client,
        anna,
        [{"kind": "person"}, {"kind": "person", "name": "Anyone", "open": True}, {"kind": "person", "name": "Cleo", "open": True}],
    )
    assert post(client, f"/api/games/{g['id']}/claim", ben, json={"seat": 1}).status_code == 200
    assert post(client, f"/api/games/{g['id']}/claim", cleo, json={"seat": 2}).status_code == 200
    assert names(client, g["id"]) == ["Anna", "Ben", "Cleo"]
    g = table(client, anna, [{"kind": "person"}, {"kind": "person", "name": "Ben"}, {"kind": "person", "name": "Anyone", "open": True}])
    assert post(client, f"/api/games/{g['id']}/claim", ben, json={"seat": 2}).status_code == 200
    assert names(client, g["id"])[2] == "Anyone"


def test_an_accounts_name_another_seat_has_leaves_the_seat_unnamed(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    g = table(client, None, [{"kind": "person", "name": "anna"}, {"kind": "person"}, *BOTS[:1]])
    r = post(client, f"/api/games/{g['id']}/join", anna, json={"seat": 1, "token": tokens(g)[1]})
    assert r.status_code == 200, r.text
    assert names(client, g["id"]) == ["anna", "", "Bot 3"]
    # the creator's own seat too: a bot called Anna keeps the seat unnamed
    g = table(client, anna, [{"kind": "person"}, {"kind": "bot", "name": "ANNA"}, *BOTS[:1]])
    assert names(client, g["id"])[0] == ""


def test_a_deleted_accounts_seat_is_named_in_the_readers_language() -> None:
    """A deleted account's seat is stored as "deleted player" (a number after it when that
    is taken); each reader says it in its language."""
    from kardinal.server.common.names import DELETED, seat_name

    assert seat_name(DELETED, 1, "de") == "gelöschter Spieler"
    assert seat_name(DELETED + " 2", 3, "de") == "gelöschter Spieler 2"
    assert seat_name(DELETED + " 2", 3, "da") == "slettet spiller 2"
    assert seat_name(DELETED + " 2", 3, "en") == "deleted player 2"
    assert seat_name("deleted player two", 3, "de") == "deleted player two"  # (a name refused today; of before: as it is)
