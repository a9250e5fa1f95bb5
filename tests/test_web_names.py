"""Players' names (defects found under attack): a name is normalised (NFC, white space
collapsed) and refused with a clear error, changing nothing, when it holds control,
format (bidirectional override), surrogate or unassigned characters or is too long; such
a name never reaches the lobby."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import create, make_client

from kardinal.server.common.names import name_key
from kardinal.server.community.passwords import _hash as hash_password_now


@pytest.fixture
def client(tmp_path: Path) -> Any:
    with make_client(tmp_path) as c:
        yield c


def body(name: str) -> bytes:
    # written by hand: a lone surrogate cannot be encoded by json.dumps + utf-8
    return (
        '{"players": [{"name": "' + name + '", "kind": "person"}, {"kind": "bot", "level": "random"}, {"kind": "bot", "level": "random"}]}'
    ).encode()


@pytest.mark.parametrize(
    "raw",
    [
        "\\ud800",  # a lone surrogate
        "Ann\\u202eevil",  # RIGHT-TO-LEFT OVERRIDE
        "Ann\\u2066x",  # LEFT-TO-RIGHT ISOLATE
        "Ann\\u0000",  # NUL
        "Ann\\u0007",  # BEL
        "Ann\\u200bB",  # ZERO WIDTH SPACE (a format character)
        "Ann\\ue000",  # private use
        "Ann\\u3164",  # a trailing HANGUL FILLER
        "Ann\\u2800",  # a trailing BRAILLE PATTERN BLANK
        "\\u3164\\u3164",  # invisible characters only
        "\\u115f\\u1160\\uffa0",  # the other Hangul fillers
        "Ann\\ufe0f",  # a variation selector
        "A\\u034fnn",  # COMBINING GRAPHEME JOINER
        "\\u0301\\u0301",  # marks alone: nothing to see them on
        "Eve\\u2028Bcc: x@e.org",  # LINE SEPARATOR (a fake line in a plain-text mail)
        "Eve\\u2029x",  # PARAGRAPH SEPARATOR
        "Eve\\u001cx",  # a C0 separator (white space to Python)
        "Eve\\u0085x",  # NEXT LINE
        "\\ud834\\udd59",  # MUSICAL SYMBOL NULL NOTEHEAD (drawn blank) alone
        "Ann\\ud834\\udd59",  # ... after a name
        "\\ud834\\udd5a",  # symbols alone: no letter or digit
        "\\u2e31?!",  # punctuation alone
        "x" * 25,  # too long
    ],
)
def test_a_bad_name_is_refused_and_changes_nothing(client: TestClient, raw: str) -> None:
    before = client.get("/api/games").json()
    r = client.post("/api/games", content=body(raw), headers={"content-type": "application/json"})
    assert r.status_code == 400, r.text
    err = r.json()["error"]
    assert err["code"] == "bad_name" and err["params"] == {"max": 24}
    assert client.get("/api/games").json() == before


def test_a_bad_name_in_a_claim_leaves_the_seat_free_and_the_lobby_working(client: TestClient) -> None:
    g = create(client, "person", "open", "bot")
    r = client.post(f"/api/games/{g['id']}/claim", content=b'{"seat": 1, "name": "\\udfff"}', headers={"content-type": "application/json"})
    assert r.status_code == 400 and r.json()["error"]["code"] == "bad_name"
    lobby = client.get("/api/games")
    assert lobby.status_code == 200
    # the seat can still be claimed, with a good name
    r = client.post(f"/api/games/{g['id']}/claim", json={"seat": 1, "name": "Ben"})
    assert r.status_code == 200, r.text
    names = [p["name"] for p in client.get(f"/api/games/{g['id']}").json()["players"]]
    assert names[1] == "Ben"


def test_names_are_normalised(client: TestClient) -> None:
    r = client.post("/api/games", content=body("  Jose\\u0301 \\t  Mari\\u0301a  "), headers={"content-type": "application/json"})
    assert r.status_code == 200, r.text
    g = r.json()
    players = client.get(f"/api/games/{g['id']}").json()["players"]
    assert players[0]["name"] == "José María"  # NFC, one space
    assert len("José María") == 10
    # no name at all: unnamed, no words stored (each page says "Player 1" in its language)
    r = client.post("/api/games", content=body("   "), headers={"content-type": "application/json"})
    assert r.json()["seats"][0]["name"] == ""


# -- look-alike names, and names passing for a deleted account's seat --------------------------

PW = "correct horse battery"
BOTS = [{"kind": "bot", "level": "random"}] * 2
SAME_SITE = {"origin": "http://testserver"}


def sign_up(c: TestClient, name: str) -> Any:
    c.cookies.clear()
    try:
        return c.post("/api/account/signup", headers=SAME_SITE, json={"name": name, "password": PW})
    finally:
        c.cookies.clear()


def code(r: Any) -> str:
    return str(r.json()["error"]["code"]) if r.status_code != 200 else "ok"


@pytest.mark.usefixtures("cheap_hashes")
def test_an_account_name_is_one_in_every_look_alike_form(client: TestClient) -> None:
    assert code(sign_up(client, "Anna")) == code(sign_up(client, "B0b")) == "ok"
    for taken in ("\u0410nna", "\u0391nna", "ANNA", "\uff21nna", "Bob", "BOB", "b\u03bfb"):  # Cyrillic А, Greek Α, fullwidth Ａ, Greek ο
        assert code(sign_up(client, taken)) == "account_name_taken", ascii(taken)
    assert code(sign_up(client, "\u1d00nna")) == code(sign_up(client, "\u1d00\u0274\u0274\u1d00")) == "account_name_taken"  # small capitals
    assert code(sign_up(client, "Anna\u3164")) == code(sign_up(client, "\u2800")) == "bad_name"
    assert code(sign_up(client, "Annabel")) == "ok"  # another name


@pytest.mark.usefixtures("cheap_hashes")
@pytest.mark.parametrize(
    "name",
    [
        "Deleted Player",
        "Deleted Player 2",
        "DELETED PLAYER 17",
        "D\u0435leted Player",
        "deleted player l2",
        "deleted  player \u0663",
        "Deleted Player 0",
        "Deleted Player 10",
        "deleted player 100",
        "Deleted Player 0002",
        "DeletedPlayer",
        "Deleted_Player",
        "Deleted.Player",
        "Deleted-Player 3",
        "Deleted Players",
        "Deleted Player 2a",
        "Deleted Playerhouse",
        "\u1d05eleted \u1d18layer",  # small capitals
    ],
)
def test_no_account_or_seat_passes_for_a_deleted_player(client: TestClient, name: str) -> None:
    assert code(sign_up(client, name)) == "account_name_taken"
    r = client.post("/api/games", json={"players": [{"name": name, "kind": "person"}, *BOTS]})
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken", r.text


@pytest.mark.usefixtures("cheap_hashes")
def test_names_like_a_deleted_player_but_not_beginning_so_are_names(client: TestClient) -> None:
    assert code(sign_up(client, "Deleted Players Club")) == "account_name_taken"  # begins as one
    for name in ("Deleted", "Delete Player", "Undeleted Player", "Player Deleted"):
        assert code(sign_up(client, name)) == "ok", name


def test_two_seats_may_not_look_alike(client: TestClient) -> None:
    r = client.post(
        "/api/games", json={"players": [{"name": "Anna", "kind": "person"}, {"name": "\u0410nna", "kind": "person"}, *BOTS[:1]]}
    )
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"
    r = client.post(
        "/api/games", json={"players": [{"name": "Anna", "kind": "person"}, {"name": "\u1d00nna", "kind": "person"}, *BOTS[:1]]}
    )
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"  # a small capital A
    g = create(client, "person", "open", "bot")  # seats P0, P1, B2
    r = client.post(f"/api/games/{g['id']}/claim", json={"seat": 1, "name": "\u0420O"})  # Cyrillic Р, a letter O: "P0"
    assert r.status_code == 409 and r.json()["error"]["code"] == "name_taken"


@pytest.mark.usefixtures("cheap_hashes")
def test_an_account_made_before_look_alikes_counted_keeps_its_name(client: TestClient) -> None:
    """Accounts made before are stored by the key of before (names.name_key): they are
    found by their names, and a look-alike of theirs is refused (no migration)."""
    storage = client.app.state.accounts.storage  # type: ignore[attr-defined]
    stored = hash_password_now("an old password")
    assert storage.create_account("Bob", name_key("Bob"), stored, 1.0) is not None
    for taken in ("B0b", "BOB", "b\u03bfb"):
        assert code(sign_up(client, taken)) == "account_name_taken", ascii(taken)
    client.cookies.clear()
    r = client.post("/api/account/signin", headers=SAME_SITE, json={"name": "BOB", "password": "an old password"})
    assert r.status_code == 200 and r.json()["account"]["name"] == "Bob"
    assert client.get("/api/players/bob").json()["name"] == "Bob"
