"""A seat taken by a signed-in person is that account's alone, and an account has one seat
of a rated table at most (the security issue "Trust: a rated community an attacker cannot
bend", items 1 and 10). On SQLite and PostgreSQL (the ``db_url`` fixture).

Each test names the attack it stands against: the creator of a table, who was shown every
seat's link, reading and playing the seat of the account that took it (over HTTP and the
WebSocket, with an invitation by name, with seats brought along at sign-in), and one account
at two seats of a rated table (a join and an invitation, a join and a claim, two joins,
seats brought along, two seats at once)."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from sqlalchemy import insert
from starlette.websockets import WebSocketDisconnect
from test_web_accounts import PW, get, post, sign_in, sign_up
from test_web_robust import joined, people, run_two, until
from web_helpers import act, make_client, seats, tokens, wait_for_person

from kardinal.server.community.account_routes import COOKIE
from kardinal.server.community.accounts import Accounts
from kardinal.server.play.live import Connection
from kardinal.server.play.service import GameService
from kardinal.server.storage import Storage
from kardinal.server.storage.schema import seat_owners

pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)


@pytest.fixture
def client(tmp_path: Path, db_url: str) -> Iterator[TestClient]:
    with make_client(tmp_path, db_url=db_url) as c:
        yield c


def storage(c: TestClient) -> Storage:
    s: Storage = c.app.state.service.storage  # type: ignore[attr-defined]
    return s


def account_id(c: TestClient, secret: str) -> int:
    return int(get(c, "/api/account", secret).json()["account"]["id"])


def table(c: TestClient, secret: str | None, players: list[dict[str, Any]], **options: Any) -> dict[str, Any]:
    r = post(c, "/api/games", secret, json={"players": players, "board": "standard", **options})
    assert r.status_code == 200, r.text
    return dict(r.json())


def join(c: TestClient, gid: str, seat: int, token: str, secret: str | None = None) -> Any:
    return post(c, f"/api/games/{gid}/join", secret, json={"seat": seat, "token": token})


def opens(c: TestClient, gid: str, seat: int, token: str) -> bool:
    """Whether the token opens the seat: its state (the hand)."""
    r = c.get(f"/api/games/{gid}/state", params={"seat": seat, "token": token})
    assert r.status_code in (200, 403), r.text
    return r.status_code == 200


def refused(r: Any, code: str) -> dict[str, Any]:
    assert r.status_code >= 400, r.text
    assert r.json()["error"]["code"] == code, r.text
    err: dict[str, Any] = r.json()["error"]
    return err


def service(c: TestClient) -> GameService:
    s: GameService = c.app.state.service  # type: ignore[attr-defined]
    return s


def hello(c: TestClient, gid: str, held: dict[int, str], secret: str | None = None) -> list[dict[str, Any]]:
    """Say hello on the game's WebSocket (signed in with ``secret``); the answers up to the
    welcome or the refusal."""
    c.cookies.clear()
    if secret is not None:
        c.cookies.set(COOKIE, secret)
    out = []
    try:
        with c.websocket_connect(f"/ws/{gid}") as ws:
            ws.send_json({"type": "hello", "seats": {str(s): t for s, t in held.items()}})
            while True:
                m = ws.receive_json()
                out.append(m)
                if m["type"] in ("welcome", "error"):
                    return out
    finally:
        c.cookies.clear()


# -- item 1: the creator keeps no way into a seat an account took -------------------------------


def test_the_creator_cannot_read_or_play_the_seat_another_account_joined_at_a_rated_table(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    g = table(client, anna, seats("person", "person", "bot"), rated=True)
    gid, links = g["id"], tokens(g)
    r = join(client, gid, 0, links[0], anna)
    assert r.status_code == 200, r.text
    assert "token" not in r.json()  # Anna's own seat: her account's since she made the table (its link was shown to her alone)
    mine = links[0]
    r = join(client, gid, 1, links[1], ben)
    assert r.status_code == 200 and r.json()["status"] == "running", r.text
    bens = r.json()["token"]
    assert bens != links[1] and r.json()["url"].endswith(f"/game/{gid}?seat=1&token={bens}")
    assert storage(client).seat_owner(gid, 1) == account_id(client, ben)
    # Anna kept the link she was shown: it opens Ben's seat no more, nor plays it
    assert not opens(client, gid, 1, links[1])
    assert opens(client, gid, 1, bens) and opens(client, gid, 0, mine)
    refused(client.get(f"/api/games/{gid}/state", params={"seat": 1, "token": links[1]}), "bad_token")
    refused(join(client, gid, 1, links[1], anna), "bad_token")
    # ... nor over the WebSocket
    assert hello(client, gid, {1: links[1]}, anna)[-1]["code"] == "bad_token"
    assert hello(client, gid, {1: bens})[-1]["type"] == "welcome"


def test_the_creator_cannot_play_the_seat_by_its_old_link(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    g = table(client, anna, seats("person", "person", "bot"), rated=True)
    gid, links = g["id"], tokens(g)
    assert join(client, gid, 0, links[0], anna).status_code == 200  # the creator's seat: her account's from the start
    held = {0: links[0], 1: join(client, gid, 1, links[1], ben).json()["token"]}
    while True:  # to Ben's turn (Anna plays hers, the bot its own)
        msg = wait_for_person(client, gid, held)
        assert msg["status"] == "running"
        if msg["seat"] == 1:
            break
        assert act(client, gid, 0, held[0], msg["version"], msg["legal"][0]).status_code == 200
    refused(act(client, gid, 1, links[1], msg["version"], msg["legal"][0]), "bad_token")
    assert act(client, gid, 1, held[1], msg["version"], msg["legal"][0]).status_code == 200


def test_the_old_link_is_dead_before_the_game_a_signed_in_join_starts(client: TestClient) -> None:
    """The join that takes the last seat starts the game: the seat's old link must end in
    the same change, or its holder (the creator) can play the first turn in between (an
    attacker's probe did, in 8 of 8 games, looping on the state and the actions)."""
    from kardinal.server.play.live import LiveGame, token_ok

    anna = sign_up(client, "Anna")
    g = table(client, None, seats("person", "person", "bot"))  # made signed out; seat 1 joined as a guest
    gid, links = g["id"], tokens(g)
    assert join(client, gid, 1, links[1]).status_code == 200
    service: GameService = client.app.state.service  # type: ignore[attr-defined]
    seen: list[tuple[str, bool]] = []

    def changed(live: LiveGame) -> None:  # every change of the game, as it is made
        if live.row.id == gid:
            seen.append((live.row.status, token_ok(live.row.seats[0], links[0])))

    service.on_change.append(changed)
    r = join(client, gid, 0, links[0], anna)
    assert r.status_code == 200 and r.json()["status"] == "running", r.text
    assert ("running", True) not in seen, seen  # never running while the old link opens seat 0
    assert not opens(client, gid, 0, links[0]) and opens(client, gid, 0, r.json()["token"])


def test_an_open_websocket_of_the_old_link_is_closed_when_an_account_takes_the_seat(client: TestClient) -> None:
    ben = sign_up(client, "Ben")
    g = table(client, None, seats("person", "person", "bot"))  # an unrated table, made signed out
    gid, links = g["id"], tokens(g)
    with client.websocket_connect(f"/ws/{gid}") as ws:  # the creator watches seat 1's hand
        ws.send_json({"type": "hello", "seats": {"1": links[1]}})
        assert ws.receive_json()["type"] == "welcome"
        assert join(client, gid, 1, links[1], ben).status_code == 200  # Ben takes his seat signed in
        ws.send_json({"type": "chat", "id": "chat-1", "text": "still here"})  # (heard back if it still spoke for the seat)
        while True:
            m = ws.receive_json()
            assert m["type"] != "chat", m
            if m["type"] == "error":
                break
        assert m["code"] == "bad_token"
        with pytest.raises(WebSocketDisconnect) as closed:  # told, then closed
            while True:
                m = ws.receive_json()
                assert m["type"] in ("error", "presence"), m
        assert closed.value.code == 4403


def test_opening_a_seat_signed_in_on_the_websocket_gives_it_a_new_token(client: TestClient) -> None:
    ben = sign_up(client, "Ben")
    g = table(client, None, seats("person", "person", "bot"))
    gid, links = g["id"], tokens(g)
    got = hello(client, gid, {1: links[1]}, ben)
    welcome = got[-1]
    assert welcome["type"] == "welcome" and welcome["seats"] == [1]
    new = welcome["tokens"]["1"]
    assert new != links[1] and storage(client).seat_owner(gid, 1) == account_id(client, ben)
    assert not opens(client, gid, 1, links[1]) and opens(client, gid, 1, new)
    # opened again by its new token: the seat is Ben's already, no token changes
    assert "tokens" not in hello(client, gid, {1: new}, ben)[-1]
    assert opens(client, gid, 1, new)


def test_a_seat_known_to_be_the_accounts_is_opened_without_asking_the_database(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """The creator's seat, and a seat a hello made the account's, are opened by the
    account's next hellos with nothing bound and no session looked up (no trip to the
    database: LiveGame.owner, ws._bound_already); once the seat has changed hands, a hello
    asks again, and another account gets nothing."""
    ann = sign_up(client, "Ann")
    ben = sign_up(client, "Ben")
    g = table(client, ann, seats("person", "person", "bot"))
    gid, links = g["id"], tokens(g)
    st = storage(client)
    binds: list[object] = []
    real = st.bind_seats

    def counted(*a: Any) -> Any:
        binds.append(a)
        return real(*a)

    sessions: list[object] = []
    real_session = st.session_account

    def session(*a: Any) -> Any:
        sessions.append(a)
        return real_session(*a)

    monkeypatch.setattr(st, "bind_seats", counted)
    ann_id, ben_id = account_id(client, ann), account_id(client, ben)
    assert st.seat_owner(gid, 0) == ann_id  # the creator's from the start
    monkeypatch.setattr(st, "session_account", session)
    assert hello(client, gid, {0: links[0]}, ann)[-1]["type"] == "welcome" and binds == [] and sessions == []
    new = hello(client, gid, {1: links[1]}, ben)[-1]["tokens"]["1"]  # Ben's now: bound once
    assert len(binds) == 1 and len(sessions) == 1 and st.seat_owner(gid, 1) == ben_id
    assert "tokens" not in hello(client, gid, {1: new}, ben)[-1] and len(binds) == len(sessions) == 1  # known: nothing to bind
    # Ann, signed in, holds no token of seat 1 any more; with her own seat's, still nothing to bind
    assert refused_hello(client, gid, {1: links[1]}, ann) == "bad_token"
    assert hello(client, gid, {0: links[0]}, ann)[-1]["type"] == "welcome" and len(binds) == 1
    # seat 1 handed over (a new token, as a claim gives): Ben's next hello asks the database again
    other = client.portal.call(service(client).rekey, gid, 1)  # type: ignore[attr-defined]
    hello(client, gid, {1: other}, ben)
    assert len(binds) == 2 and st.seat_owner(gid, 1) == ben_id


def refused_hello(c: TestClient, gid: str, held: dict[int, str], secret: str | None = None) -> str:
    last = hello(c, gid, held, secret)[-1]
    assert last["type"] == "error", last
    return str(last["code"])


def test_a_guest_who_joins_by_link_keeps_the_link(client: TestClient) -> None:
    g = table(client, None, seats("person", "person", "bot"))
    gid, links = g["id"], tokens(g)
    r = join(client, gid, 1, links[1])
    assert r.status_code == 200 and "token" not in r.json()  # no account binds the seat: nothing changes
    assert opens(client, gid, 1, links[1])
    assert "tokens" not in hello(client, gid, {1: links[1]})[-1]


def test_an_account_at_a_table_without_ratings_is_alone_at_its_seat_too(client: TestClient) -> None:
    ben = sign_up(client, "Ben")
    g = table(client, None, seats("person", "person", "bot"))
    gid, links = g["id"], tokens(g)
    assert join(client, gid, 1, links[1]).status_code == 200  # someone with the link, signed out
    r = join(client, gid, 1, links[1], ben)  # Ben opens it signed in: his
    assert r.status_code == 200 and storage(client).seat_owner(gid, 1) == account_id(client, ben)
    assert not opens(client, gid, 1, links[1]) and opens(client, gid, 1, r.json()["token"])


def test_the_creators_link_stays_dead_after_sign_out_everywhere_and_a_new_password(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    g = table(client, anna, seats("person", "person", "bot"), rated=True)
    gid, links = g["id"], tokens(g)
    bens = join(client, gid, 1, links[1], ben).json()["token"]
    phone = sign_in(client, "Ben").cookies[COOKIE]
    key = post(client, "/api/account/seat", phone, json={"game": gid, "seat": 1}).json()["token"]
    assert opens(client, gid, 1, key)
    assert post(client, "/api/account/signout", ben, json={"everywhere": True}).status_code == 200
    assert not opens(client, gid, 1, key)  # the devices' keys end
    assert not opens(client, gid, 1, links[1])  # the creator never gets in again
    assert opens(client, gid, 1, bens)  # the seat's own token stays (as documented)
    ben = sign_in(client, "Ben").cookies[COOKIE]
    key = post(client, "/api/account/seat", ben, json={"game": gid, "seat": 1}).json()["token"]
    assert post(client, "/api/account/password", ben, json={"current": PW, "new": "another password"}).status_code == 200
    assert not opens(client, gid, 1, key) and not opens(client, gid, 1, links[1])
    # the creator cannot get a key of it either
    refused(post(client, "/api/account/seat", anna, json={"game": gid, "seat": 1}), "not_your_seat")


def test_a_seat_taken_by_invitation_is_the_invited_accounts_alone(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    players = [{"name": "Host", "kind": "person"}, {"kind": "person", "account": "Ben"}, {"kind": "bot"}]
    g = table(client, anna, players)
    gid, links = g["id"], tokens(g)
    assert join(client, gid, 1, links[1]).status_code == 200  # the link, passed on to someone signed out
    r = post(client, "/api/account/invitations/take", ben, json={"game": gid, "seat": 1})
    assert r.status_code == 200, r.text
    tok = r.json()["token"]
    assert not opens(client, gid, 1, links[1])  # Anna's link (and whoever she gave it to) is out
    assert opens(client, gid, 1, tok)


def test_the_invitation_mails_link_takes_the_seat_for_the_invited_account_alone(client: TestClient) -> None:
    """The mail's link (/mail#open=<game>.<seat>) asks /api/account/seat: a seat kept for
    the account by an invitation is taken there (issue 43, item 1), for it alone."""
    anna, ben, finn = sign_up(client, "Anna"), sign_up(client, "Ben"), sign_up(client, "Finn")
    players = [{"name": "Host", "kind": "person"}, {"kind": "person", "account": "Ben"}, {"kind": "bot"}]
    g = table(client, anna, players)
    gid, links = g["id"], tokens(g)
    # another account, the inviter included, gets no token of the seat kept for Ben
    for other in (finn, anna):
        refused(post(client, "/api/account/seat", other, json={"game": gid, "seat": 1}), "not_your_seat")
    r = post(client, "/api/account/seat", ben, json={"game": gid, "seat": 1})
    assert r.status_code == 200, r.text
    tok = r.json()["token"]
    assert opens(client, gid, 1, tok) and not opens(client, gid, 1, links[1])  # a new token: the link Anna was shown ends
    assert get(client, "/api/account/invitations", ben).json()["received"] == []
    assert [x["seats"] for x in get(client, "/api/account/games", ben).json()["games"]] == [[1]]
    # the link opened on another device of Ben's: a further token, the first one still works
    again = post(client, "/api/account/seat", ben, json={"game": gid, "seat": 1})
    assert again.status_code == 200, again.text
    assert opens(client, gid, 1, again.json()["token"]) and opens(client, gid, 1, tok)
    refused(post(client, "/api/account/seat", finn, json={"game": gid, "seat": 1}), "not_your_seat")


def test_the_creators_seat_is_the_accounts_from_the_start(client: TestClient) -> None:
    """Signed in, the seat a table's creator makes for themselves is the account's at once
    (issue 43's walk: the creator who opened the game's plain address before "Open my seat"
    was a spectator, and My games did not list the table): not the seats kept for invited
    accounts, not a seat open to anyone, and nothing for a creator signed out."""
    anna, finn = sign_up(client, "Anna"), sign_up(client, "Finn")
    sign_up(client, "Ben")
    players = [{"kind": "person"}, {"kind": "person", "account": "Ben"}, {"kind": "person", "open": True}, {"kind": "bot"}]
    g = table(client, anna, players)
    gid, links = g["id"], tokens(g)
    assert storage(client).seat_owner(gid, 0) == account_id(client, anna)
    assert storage(client).seat_owner(gid, 1) is None and storage(client).seat_owner(gid, 2) is None
    assert [(x["game"]["id"], x["seats"]) for x in get(client, "/api/account/games", anna).json()["games"]] == [(gid, [0])]
    # the plain address on another device: the seat's token comes from the account
    r = post(client, "/api/account/seat", anna, json={"game": gid, "seat": 0})
    assert r.status_code == 200, r.text
    assert opens(client, gid, 0, r.json()["token"])
    assert opens(client, gid, 0, links[0])  # ... and the link shown at creation (to nobody else) still opens it
    for other, seat in ((finn, 0), (anna, 1), (anna, 2)):
        refused(post(client, "/api/account/seat", other, json={"game": gid, "seat": seat}), "not_your_seat")
    # signed out, a creator's seat is nobody's: its link is the key, as before
    g = table(client, None, [{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])
    assert storage(client).seat_owner(g["id"], 0) is None


def test_bots_started_by_a_guest_take_no_seat_kept_for_someone(client: TestClient) -> None:
    """The new-user walk (issue 43): an invited friend pressed "Start with bots" and a bot took
    the creator's seat (the creator's link then opened nothing, and the game left their My
    games). Bots take only the seats nobody is kept: not the creator's, not an account's, not
    one kept for an invited account; with none left, nothing changes."""
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    players = [{"kind": "person"}, {"kind": "person", "account": "Ben"}, {"name": "Dora", "kind": "person"}, {"kind": "bot"}]
    g = table(client, anna, players)
    gid, links = g["id"], tokens(g)
    r = post(client, "/api/account/invitations/take", ben, json={"game": gid, "seat": 1})
    assert r.status_code == 200, r.text
    bens = r.json()["token"]
    assert join(client, gid, 1, bens, ben).status_code == 200  # Ben opens his seat
    assert client.get(f"/api/games/{gid}/fill").json() == {"seats": [2], "until": None}  # what the button would fill: Dora's alone
    r = post(client, f"/api/games/{gid}/fill", ben, json={"seat": 1, "token": bens})
    assert r.status_code == 200, r.text
    seats_now = client.get(f"/api/games/{gid}").json()["players"]
    assert [(p["kind"], p["joined"]) for p in seats_now] == [("person", False), ("person", True), ("bot", True), ("bot", True)]
    assert r.json()["status"] == "open"  # waiting for Anna, whose seat is hers
    # ... and now nothing: the page offers no button (the walk: it offered one that was refused)
    assert client.get(f"/api/games/{gid}/fill").json() == {"seats": [], "until": None}
    refused(post(client, f"/api/games/{gid}/fill", ben, json={"seat": 1, "token": bens}), "kept_seats")
    assert opens(client, gid, 0, links[0]) and [x["seats"] for x in get(client, "/api/account/games", anna).json()["games"]] == [[0]]
    # a table made signed out: its first seat is its creator's all the same
    g = table(client, None, [{"kind": "person"}, {"kind": "person"}, {"kind": "bot"}])
    assert join(client, g["id"], 1, tokens(g)[1]).status_code == 200
    refused(post(client, f"/api/games/{g['id']}/fill", None, json={"seat": 1, "token": tokens(g)[1]}), "kept_seats")
    assert client.get(f"/api/games/{g['id']}").json()["players"][0]["kind"] == "person"


def test_a_rated_seat_taken_by_invitation_is_the_invited_accounts_alone(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    players = [{"name": "Host", "kind": "person"}, {"kind": "person", "account": "Ben"}, {"kind": "bot"}]
    g = table(client, anna, players, rated=True)
    gid, links = g["id"], tokens(g)
    r = post(client, "/api/account/invitations/take", ben, json={"game": gid, "seat": 1})
    assert r.status_code == 200, r.text
    tok = r.json()["token"]
    assert not opens(client, gid, 1, links[1]) and opens(client, gid, 1, tok)
    assert join(client, gid, 0, links[0], anna).status_code == 200
    assert hello(client, gid, {1: links[1]}, anna)[-1]["code"] == "bad_token"


def test_a_seat_brought_along_at_sign_in_gets_a_new_token(client: TestClient) -> None:
    sign_up(client, "Ben")
    g = table(client, None, seats("person", "person", "bot"))  # made signed out: the creator keeps every link
    gid, links = g["id"], tokens(g)
    assert join(client, gid, 1, links[1]).status_code == 200  # Ben plays as a guest, then signs in
    r = sign_in(client, "Ben", held={gid: {"1": links[1]}})
    assert r.status_code == 200 and r.json()["brought"] == 1
    assert r.headers["cache-control"] == "no-store"
    new = r.json()["tokens"][gid]["1"]
    assert not opens(client, gid, 1, links[1]) and opens(client, gid, 1, new)
    # brought along again (another browser with the new token): the seat is his already, nothing changes
    r = sign_in(client, "Ben", held={gid: {"1": new}})
    assert r.json()["brought"] == 1 and "tokens" not in r.json()
    assert opens(client, gid, 1, new)


# -- item 10: one account, one seat of a rated table -------------------------------------------


def rated_table(c: TestClient, secret: str) -> dict[str, Any]:
    """A rated table: seat 0 for its creator, seats 1 and 2 by link, seat 3 kept for Ben (an invitation)."""
    players = [*seats("person", "person", "person"), {"kind": "person", "account": "Ben"}]
    return table(c, secret, players, rated=True)


def bens_seats(c: TestClient, gid: str, ben: str) -> list[int]:
    aid = account_id(c, ben)
    return sorted(s for s, a in storage(c).game_owners(gid).items() if a == aid)


def test_one_account_cannot_take_a_second_rated_seat_by_invitation(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    g = rated_table(client, anna)
    assert join(client, g["id"], 1, tokens(g)[1], ben).status_code == 200
    refused(post(client, "/api/account/invitations/take", ben, json={"game": g["id"], "seat": 3}), "rated_one_seat")
    assert bens_seats(client, g["id"], ben) == [1]


def test_one_account_cannot_join_a_second_rated_seat_after_an_invitation(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    g = rated_table(client, anna)
    assert post(client, "/api/account/invitations/take", ben, json={"game": g["id"], "seat": 3}).status_code == 200
    refused(join(client, g["id"], 1, tokens(g)[1], ben), "rated_one_seat")
    assert hello(client, g["id"], {2: tokens(g)[2]}, ben)[-1]["code"] == "rated_one_seat"
    assert bens_seats(client, g["id"], ben) == [3]


def test_one_account_cannot_take_two_rated_seats_by_join_and_claim(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    g = table(client, anna, seats("person", "person", "open"), rated=True)
    assert join(client, g["id"], 1, tokens(g)[1], ben).status_code == 200
    refused(post(client, f"/api/games/{g['id']}/claim", ben, json={"seat": 2}), "rated_one_seat")
    h = table(client, anna, seats("person", "person", "open"), rated=True)
    assert post(client, f"/api/games/{h['id']}/claim", ben, json={"seat": 2}).status_code == 200
    refused(join(client, h["id"], 1, tokens(h)[1], ben), "rated_one_seat")
    assert bens_seats(client, g["id"], ben) == [1] and bens_seats(client, h["id"], ben) == [2]


def test_one_account_cannot_take_two_rated_seats_by_two_joins(client: TestClient) -> None:
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    g = rated_table(client, anna)
    assert join(client, g["id"], 1, tokens(g)[1], ben).status_code == 200
    refused(join(client, g["id"], 2, tokens(g)[2], ben), "rated_one_seat")
    # two seats in one hello
    h = rated_table(client, anna)
    assert hello(client, h["id"], {1: tokens(h)[1], 2: tokens(h)[2]}, ben)[-1]["code"] == "rated_one_seat"
    assert bens_seats(client, g["id"], ben) == [1] and bens_seats(client, h["id"], ben) == []  # (seat 1 kept, then let go)


def test_one_account_brings_along_one_seat_of_a_rated_table(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    sign_up(client, "Ben")
    g = rated_table(client, anna)
    held = {g["id"]: {"1": tokens(g)[1], "2": tokens(g)[2]}}
    r = sign_in(client, "Ben", held=held)
    assert r.status_code == 200 and r.json()["brought"] == 1
    assert len(bens_seats(client, g["id"], r.cookies[COOKIE])) == 1


def test_two_seats_of_a_rated_table_at_once_are_one_accounts_once(client: TestClient) -> None:
    """Two requests at once (both past rated.admit's look before either takes its seat):
    the seats are taken in one transaction each, the game's row locked, so one of them
    only becomes the account's, whatever the order; a table without ratings is not limited."""
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    acc: Accounts = client.app.state.accounts  # type: ignore[attr-defined]
    g = rated_table(client, anna)
    row = storage(client).account_named("ben")
    assert row is not None and row.id == account_id(client, ben)
    mine = client.portal.call(acc.attach, row, [(g["id"], 1), (g["id"], 2)])  # type: ignore[attr-defined]
    assert len(mine) == 1
    assert client.portal.call(acc.attach, row, [(g["id"], 2)]) in ([], [(g["id"], 2)])  # type: ignore[attr-defined]
    assert len(bens_seats(client, g["id"], ben)) == 1
    hot = table(client, ben, seats("person", "person", "bot"), hotseat=True)  # one device, every seat: not rated
    assert bens_seats(client, hot["id"], ben) == [0, 1]


def test_play_again_does_not_seat_a_blocked_pair_together(client: TestClient) -> None:
    """The third new-user walk (issue 43): Anna blocked Ben during a game ("no invitations or
    tables together"), and Carl's Play again at its end seated them together again."""
    from web_helpers import play_out

    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    g = table(client, anna, [{"kind": "person"}, {"name": "Ben", "kind": "person"}, {"name": "Carl", "kind": "person"}])
    gid, links = g["id"], tokens(g)
    assert join(client, gid, 0, links[0], anna).status_code == 200
    r = join(client, gid, 1, links[1], ben)
    held = {0: links[0], 1: r.json().get("token") or links[1], 2: links[2]}
    assert join(client, gid, 2, links[2]).status_code == 200
    assert play_out(client, gid, held, random.Random(11))["status"] == "finished"
    assert post(client, "/api/moderation/block", anna, json={"name": "Ben"}).status_code == 200
    refused(post(client, f"/api/games/{gid}/again", None, json={"seats": {"2": links[2]}}), "blocked_at_table")  # Carl asks
    assert storage(client).follow_up(gid) is None  # no game was made
    assert post(client, "/api/moderation/block", anna, json={"name": "Ben", "on": False}).status_code == 200
    r = post(client, f"/api/games/{gid}/again", None, json={"seats": {"2": links[2]}})
    assert r.status_code == 200, r.text  # the block lifted: as before
    assert storage(client).follow_up(gid) == r.json()["id"]
    # ... where Carl, alone there, may start with bots once the others had their while to
    # come (the fourth walk: a bot took a seat 3 s after Play again, its person on the way),
    # but then: a table of Play again keeps no seat for those of the game before who went
    # home (the third walk: nobody could start or cancel it)
    new, carl = r.json()["id"], r.json()["seats"]["2"]
    assert join(client, new, carl, links[2]).status_code == 200
    made = service(client).get(new).row.created
    plan = client.get(f"/api/games/{new}/fill").json()
    assert plan["seats"] == [] and made + 179 <= plan["until"] <= made + 182  # the live table's 3 minutes
    err = refused(post(client, f"/api/games/{new}/fill", None, json={"seat": carl, "token": links[2]}), "kept_seats")
    assert abs(err["params"]["until"] - (made + 180)) <= 1
    service(client).get(new).row.created -= 181  # (as if the 3 minutes had passed)
    assert client.get(f"/api/games/{new}/fill").json() == {"seats": sorted({0, 1, 2} - {carl}), "until": None}
    assert set(storage(client).game_owners(new)) == {0, 2}  # Anna's and Ben's, as in the game before
    r = post(client, f"/api/games/{new}/fill", None, json={"seat": carl, "token": links[2]})
    assert r.status_code == 200 and r.json()["status"] == "running", r.text
    # the seats bots took are no account's: not in Anna's or Ben's My games (the fourth walk:
    # listed there, with an Open that did nothing)
    assert storage(client).game_owners(new) == {}
    assert all(x["game"]["id"] != new for who in (anna, ben) for x in get(client, "/api/account/games", who).json()["games"])


def test_play_again_keeps_one_seat_of_a_rated_table_per_account(client: TestClient) -> None:
    """A game stored before the rule (an account at two of its seats): the rated game that
    follows it ("Play again", Storage.copy_owners) gives the account one of them only."""
    anna, ben = sign_up(client, "Anna"), sign_up(client, "Ben")
    old, new = rated_table(client, anna), rated_table(client, anna)
    aid = account_id(client, ben)
    st = storage(client)
    with st.engine.begin() as conn:  # as an older server may have left it
        conn.execute(insert(seat_owners), [{"game_id": old["id"], "seat": s, "account_id": aid, "since": 1.0} for s in (1, 2)])
    st.copy_owners(old["id"], new["id"], {1: 0, 2: 1}, 2.0)
    assert len(bens_seats(client, new["id"], ben)) == 1


def test_a_connection_to_another_process_is_revoked_when_it_catches_up(db_url: str) -> None:
    """The seat gets its new token through one process; a connection to the other one with
    the old token gets nothing of the seat once that process reads the seats again."""

    async def body(one: GameService, two: GameService) -> None:
        live, toks = await joined(one, people("person", "person", "bot"))
        there = await two.fetch(live.row.id)
        conn = Connection({1: toks[1]})
        await two.connect(there, conn)
        assert not conn.revoked
        await one.rekey(live.row.id, 1, toks[1])  # (as Accounts.own does when an account takes it)
        two.changed_elsewhere(live.row.id)
        await until(lambda: conn.revoked, 10, "the other process to revoke the connection")
        held = Connection({0: toks[0]})  # the other seat's tokens are as they were
        await two.connect(there, held)
        assert not held.revoked

    run_two(db_url, body)


def test_one_seat_is_bound_as_several_are(db_url: str) -> None:
    """A hello binds its seats one at a time, in ready-made statements of their own
    (Storage._bind_seat); what they do is what binding several seats does (_bind_many):
    the same answer and the same rows after, in every case of an invitation (none, the
    account's, another's), a rated table or not, the seat's holder (nobody, the account,
    another) and the account holding another seat of the same table."""
    from itertools import product

    from sqlalchemy import select

    from kardinal.server.storage.rows import GameRow, SeatRow
    from kardinal.server.storage.schema import invitations

    store = Storage(db_url)
    me, other = (store.create_account(n, n.lower(), "x", 1.0) for n in ("Anna", "Ben"))
    assert me is not None and other is not None
    cases = list(product(("none", "mine", "other"), (False, True), ("nobody", "mine", "other"), (False, True)))
    seen = set()
    for i, (invited, rated, holder, elsewhere) in enumerate(cases):
        answers, rows = [], []
        for path in ("one", "many"):
            gid = f"g{i}{path}"
            who = {"mine": me.id, "other": other.id}
            store.create_game(
                GameRow(
                    id=gid,
                    board="standard",
                    seats=[SeatRow(n, "person") for n in "abc"],
                    hotseat=False,
                    deck=[],
                    seed=1,
                    options={"rated": rated},
                )
            )
            if invited in who:
                store.invite(gid, {1: who[invited]}, other.id, 1.0)
            with store.engine.begin() as conn:
                if holder in who:
                    conn.execute(insert(seat_owners).values(game_id=gid, seat=1, account_id=who[holder], since=1.0))
                if elsewhere:
                    conn.execute(insert(seat_owners).values(game_id=gid, seat=2, account_id=me.id, since=1.0))
            got = store._bind_seat(me.id, gid, 1, 2.0) if path == "one" else store._bind_many(me.id, [(gid, 1)], 2.0)
            answers.append(tuple(tuple(s for _, s in part) for part in got))
            with store.engine.connect() as conn:
                owners = sorted(
                    (r.seat, r.account_id, r.since) for r in conn.execute(select(seat_owners).where(seat_owners.c.game_id == gid))
                )
                kept = sorted((r.seat, r.account_id) for r in conn.execute(select(invitations).where(invitations.c.game_id == gid)))
            rows.append((owners, kept))
        assert answers[0] == answers[1] and rows[0] == rows[1], (invited, rated, holder, elsewhere, answers, rows)
        seen.add(answers[0])
    # the cases reach every answer: the seat taken now, the account's already, not the account's
    assert seen == {((1,), (1,)), ((1,), ()), ((), ())}
