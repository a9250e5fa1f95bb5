"""Hints and reviews over HTTP (teach.py): who may ask, what a hint holds, that it comes
from the asking seat's view only, and the review of a finished game with its progress."""

from __future__ import annotations

import random
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import create, join_all, make_client, play_out, state, tokens, wait_for_person

from kardinal.rules.record import move_of


@pytest.fixture()
def client(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[TestClient]:
    # small budgets: the tests are about the protocol, not the strength of the advice
    monkeypatch.setenv("KARDINAL_HINT_ITERATIONS", "60")
    monkeypatch.setenv("KARDINAL_HINT_SECONDS", "5")
    monkeypatch.setenv("KARDINAL_REVIEW_ITERATIONS", "20")
    with make_client(tmp_path) as c:
        yield c


def ask(client: TestClient, gid: str, seat: Any, token: Any, version: Any) -> Any:
    return client.post(f"/api/games/{gid}/hint", json={"seat": seat, "token": token, "version": version})


def test_a_hint_is_three_legal_moves_best_first_for_the_seat_to_act(client: TestClient) -> None:
    g = create(client, "person", "bot", "bot")
    gid, toks = g["id"], tokens(g)
    join_all(client, g)
    assert client.get(f"/api/games/{gid}/teach").json()["hints"] is True
    msg = wait_for_person(client, gid, toks)
    r = ask(client, gid, 0, toks[0], msg["version"])
    assert r.status_code == 200, r.text
    h = r.json()
    assert h["type"] == "hint" and h["seat"] == 0 and h["version"] == msg["version"]
    assert h["how"] == "search" and 1 <= len(h["options"]) <= 3
    legal = [move_of(a)[1] for a in msg["legal"]]
    for o in h["options"]:
        assert move_of(o["action"])[1] in legal
        assert o["visits"] > 0 and 0.0 <= o["value"] <= 1.0 and isinstance(o["margin"], float)
    # against the alternatives: the first is the best, the others give up points against it
    assert h["options"][0]["vs_best"] == 0.0
    assert all(o["vs_best"] == pytest.approx(o["margin"] - h["options"][0]["margin"], abs=1e-2) for o in h["options"])
    assert h["options"][0]["visits"] == max(o["visits"] for o in h["options"])
    # the same hint again: the same answer, and the game has not changed
    again = ask(client, gid, 0, toks[0], msg["version"]).json()
    assert again["options"] == h["options"]
    assert state(client, gid)["version"] == msg["version"]


def test_a_hint_comes_from_the_seats_view_only(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    """R13: the search is given view(state, seat) and nothing else."""
    import kardinal.server.play.teach as teach

    seen: list[Any] = []
    real = teach.hint_job

    def spy(v: Any, *args: Any) -> Any:
        seen.append(v)
        return real(v, *args)

    monkeypatch.setattr(teach, "hint_job", spy)
    g = create(client, "person", "bot", "bot")
    gid, toks = g["id"], tokens(g)
    join_all(client, g)
    msg = wait_for_person(client, gid, toks)
    assert ask(client, gid, 0, toks[0], msg["version"]).status_code == 200
    (v,) = seen
    assert v == msg["view"]  # exactly what the seat's own state message holds
    assert v["seat"] == 0 and "seed" not in v and "deck" not in v


def test_refusals_change_nothing(client: TestClient) -> None:
    g = create(client, "person", "bot", "bot")
    gid, toks = g["id"], tokens(g)
    join_all(client, g)
    msg = wait_for_person(client, gid, toks)
    v = msg["version"]
    r = ask(client, gid, 0, "wrong", v)
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
    r = ask(client, gid, 7, toks[0], v)
    assert r.status_code == 403 and r.json()["error"]["code"] == "bad_token"
    r = ask(client, gid, 0, toks[0], v + 5)
    assert r.status_code == 409 and r.json()["error"]["code"] == "stale_version"
    r = ask(client, gid, 0, toks[0], "x")
    assert r.status_code == 400
    r = client.post(f"/api/games/{gid}/hint", content=b"not json")
    assert r.status_code == 400
    r = ask(client, "nosuchgame", 0, toks[0], v)
    assert r.status_code == 404 and r.json()["error"]["code"] == "no_game"
    assert state(client, gid)["version"] == v
    # not the asking seat's turn (hot-seat: hints are allowed; seat 0 begins)
    h = create(client, "person", "person", "bot", hotseat=True)
    th = tokens(h)
    join_all(client, h)
    r = ask(client, h["id"], 1, th[1], state(client, h["id"])["version"])
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_your_turn"
    assert ask(client, h["id"], 0, th[0], state(client, h["id"])["version"]).status_code == 200


def test_two_people_without_agreement_get_no_hints(client: TestClient) -> None:
    g = create(client, "person", "person", "bot")
    gid, toks = g["id"], tokens(g)
    join_all(client, g)
    assert client.get(f"/api/games/{gid}/teach").json()["hints"] is False
    msg = wait_for_person(client, gid, toks)
    r = ask(client, gid, msg["seat"], toks[msg["seat"]], msg["version"])
    assert r.status_code == 403 and r.json()["error"]["code"] == "hints_off"
    # hot-seat: the people share one screen, so hints are allowed
    h = create(client, "person", "person", "bot", hotseat=True)
    assert client.get(f"/api/games/{h['id']}/teach").json()["hints"] is True


def test_review_of_a_finished_game(client: TestClient, monkeypatch: pytest.MonkeyPatch) -> None:
    g = create(client, "person", "bot:greedy", "bot")
    gid, toks = g["id"], tokens(g)
    join_all(client, g)
    r = client.post(f"/api/games/{gid}/review")
    assert r.status_code == 409 and r.json()["error"]["code"] == "not_finished"
    assert client.get(f"/api/games/{gid}/review").json()["status"] == "none"
    end = play_out(client, gid, toks, random.Random(4))
    assert end["status"] == "finished"
    # a process makes a few reviews at once; beyond, it says so and starts nothing
    import kardinal.server.play.teach as teach

    with monkeypatch.context() as m:
        m.setattr(teach, "MAX_REVIEWING", 0)
        r = client.post(f"/api/games/{gid}/review")
        assert r.status_code == 429 and r.json()["error"]["code"] == "busy"
        assert client.get(f"/api/games/{gid}/review").json()["status"] == "none"
    r = client.post(f"/api/games/{gid}/review")
    assert r.status_code == 200 and r.json()["status"] in ("running", "done")
    deadline = time.monotonic() + 120
    while (rev := client.get(f"/api/games/{gid}/review").json())["status"] == "running":
        assert 0 <= rev["done"] <= rev["total"]
        assert time.monotonic() < deadline, "the review did not finish"
        time.sleep(0.1)
    assert rev["status"] == "done", rev
    review = rev["review"]
    assert review["seats"] == [0]  # the person's decisions, not the bots'
    history = end["view"]["history"]
    mains = [i for i, h in enumerate(history) if h["action"]["seat"] == 0 and h["action"]["act"] in ("place", "exchange")]
    rated = review["decisions"]
    assert rated and {d["index"] for d in rated} <= set(mains)
    for d in rated:
        assert d["seat"] == 0
        assert d["played"]["action"] == history[d["index"]]["action"]  # the move that was played
        assert d["cost"] >= 0
        assert d["verdict"] in ("", "mistake", "blunder")
        if d["verdict"]:
            assert d["best"]["action"] != d["played"]["action"]
            assert d["cost"] == pytest.approx(d["best"]["margin"] - d["played"]["margin"], abs=2e-3)
    # the chances to win: from the start to the end, each position's adding up to 1
    ch = review["chances"]
    assert ch[0]["step"] == 0 and ch[-1]["step"] == len(history)
    assert all(sum(c["chances"]) == pytest.approx(1.0, abs=1e-3) for c in ch)
    winners = end["view"]["winners"]
    assert ch[-1]["chances"] == pytest.approx([1 / len(winners) if p in winners else 0.0 for p in range(3)])
    # asking again starts nothing new
    assert client.post(f"/api/games/{gid}/review").json()["review"] == review


def test_guessing_tokens_at_the_hint_address_is_slowed(client: TestClient) -> None:
    """guard.py's budget of wrong tokens (5 a second, 60 a minute) holds here too: once over,
    the address is refused whatever it sends, the right token included. (The budget here is
    5 a minute: 5 a second let the right token through on a loaded machine, where the nine
    requests took more than a second.)"""
    from limits import parse_many

    from kardinal.server.common.guard import RULES, Guard
    from kardinal.server.play.teach import Teaching

    assert Teaching().guard.rules["bad_token"] == RULES["bad_token"]  # the production budget, as everywhere
    client.app.state.teaching = Teaching(guard=Guard({"bad_token": parse_many("5/minute")}))  # type: ignore[attr-defined]
    g = create(client, "person", "bot", "bot")
    gid, toks = g["id"], tokens(g)
    join_all(client, g)
    msg = wait_for_person(client, gid, toks)
    codes = [ask(client, gid, 0, f"guess{i}", msg["version"]).json()["error"]["code"] for i in range(8)]
    assert codes[:5] == ["bad_token"] * 5 and "rate_limited" in codes[5:]
    r = ask(client, gid, 0, toks[0], msg["version"])
    assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
