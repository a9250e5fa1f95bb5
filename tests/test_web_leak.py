"""No message of the server tells anyone more than their seat may know (R13).

Complete games are played through the server (bots on the server, random person moves
over HTTP) while a WebSocket is open for every person seat (one for all persons in
hot-seat) and for a spectator. Afterwards every message each of them received is
checked against the true game, rebuilt from the stored log and the secret seed: its
view is exactly ``view(state, seat)`` of the seat the message is for, legal moves go
only to the seat to act, and no message holds the seed, the deck, the reshuffle, a
token hash or another seat's hand.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from web_helpers import create, make_client, play_out, tokens

from kardinal.rules.record import action_of, move_of
from kardinal.rules.state import State, new_game
from kardinal.rules.view import view

FORBIDDEN_KEYS = {"deck", "seed", "reshuffle", "initial_deck", "hands", "token", "token_hash", "pos"}

GAMES = [
    (("person", "bot", "person", "bot"), False),
    (("person", "person", "person"), False),
    (("person", "person", "bot", "person", "bot"), True),
    (("bot", "person", "bot", "bot"), False),
    (("person", "person", "person", "person"), True),
]


def keys_of(x: Any) -> set[str]:
    if isinstance(x, dict):
        out = set(x)
        for v in x.values():
            out |= keys_of(v)
        return out
    if isinstance(x, list):
        out = set()
        for v in x:
            out |= keys_of(v)
        return out
    return set()


def states_of(storage: Any, gid: str) -> tuple[list[State], int]:
    row = storage.get_game(gid)
    st = new_game(len(row.seats), seed=row.seed)
    out = [st.copy()]
    for a in storage.actions(gid):
        _, m = move_of(a)
        st.play(m)
        out.append(st.copy())
    return out, row.seed


def drain(ws: Any) -> list[dict[str, Any]]:
    got: list[dict[str, Any]] = []
    while True:
        m = ws.receive_json()
        got.append(m)
        if m.get("type") == "state" and m["status"] == "finished":
            return got


@pytest.mark.parametrize("g", range(len(GAMES)))
def test_no_message_leaks(tmp_path: Path, g: int) -> None:
    kinds, hotseat = GAMES[g]
    rng = random.Random(100 + g)
    with make_client(tmp_path) as client:
        game = create(client, *kinds, hotseat=hotseat)
        gid, toks = game["id"], tokens(game)
        persons = sorted(toks)
        conns: list[tuple[set[int], Any]] = []
        groups = [set(persons)] if hotseat else [{p} for p in persons]
        for seats in [*groups, set()]:
            ws = client.websocket_connect(f"/ws/{gid}")
            ws.__enter__()
            ws.send_json({"type": "hello", "seats": {str(s): toks[s] for s in seats}})
            assert ws.receive_json()["type"] == "welcome"
            conns.append((seats, ws))
        end = play_out(client, gid, toks, rng)
        assert end["status"] == "finished"
        received = [(seats, drain(ws)) for seats, ws in conns]
        for _, ws in conns:
            ws.__exit__(None, None, None)
        storage = client.app.state.service.storage  # type: ignore[attr-defined]
        states, seed = states_of(storage, gid)
    checked = 0
    for seats, msgs in received:
        assert msgs, "every connection heard of the game"
        for m in msgs:
            text = json.dumps(m)
            assert str(seed) not in text
            assert not (keys_of(m) & FORBIDDEN_KEYS), keys_of(m) & FORBIDDEN_KEYS
            if m["type"] != "state":
                continue
            st = states[m["version"]]
            seat = m["seat"]
            if len(seats) == 1:
                assert seat in seats
            elif m["status"] == "running":
                assert seat == (st.current if st.current in seats else None)
            else:
                assert seat is None
            assert m["view"] == view(st, seat)  # exactly what that seat may know, nothing else
            if seat is None:
                assert "hand" not in m["view"]
            if "legal" in m:
                assert seat == st.current and kinds[seat] == "person" and m["status"] == "running"
                assert m["legal"] == [action_of(seat, x) for x in st.legal_moves()]
            else:
                assert seat is None or seat != st.current or m["status"] != "running"
            checked += 1
    assert checked >= len(received) * 5
