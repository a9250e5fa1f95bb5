"""Root-parallel ISMCTS (kardinal/bots/parallel.py)."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from kardinal.bots import make_bot
from kardinal.bots.greedy import GreedyBot
from kardinal.bots.parallel import RootParallelBot
from kardinal.rules.moves import Move
from kardinal.rules.state import MAIN, State, new_game
from kardinal.rules.view import view

SEARCH = {"iterations": 30, "depth": 4, "leaf": "fitted"}


def _children() -> set[int]:
    """This process's child processes (Linux), None where /proc does not tell."""
    path = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children")
    if not path.exists():
        pytest.skip("no /proc to list child processes")
    return {int(x) for x in path.read_text().split()}


def _play(bot: RootParallelBot, s: State, decisions: int) -> list[Move]:
    """``decisions`` main decisions of seat 0 by the bot, the others greedy; its moves."""
    others = [GreedyBot(i) for i in range(s.n)]
    out: list[Move] = []
    while not s.is_over and len(out) < decisions:
        p = s.current
        if p == 0:
            m = bot.choose(view(s, p))
            assert m in s.legal_moves()
            if s.phase == MAIN:
                out.append(m)
        else:
            m = others[p].choose(view(s, p))
        s.play(m)
    return out


def test_root_parallel_is_legal_deterministic_and_cleans_up() -> None:
    before = _children()
    runs = []
    for fork in (True, True, False):
        bot = RootParallelBot(3, workers=2, fork=fork, **SEARCH)
        runs.append(_play(bot, new_game(4, seed=8), 4))
        assert bot.last_iterations == 2 * SEARCH["iterations"]
        assert sum(v for v, _ in bot.last_root.values()) <= 2 * SEARCH["iterations"]
        assert _children() == before  # every search process was waited for
    assert runs[0] == runs[1] == runs[2]  # forked or one after the other, the same moves


def test_one_worker_is_the_plain_search() -> None:
    from kardinal.bots import ISMCTSBot

    s = new_game(3, seed=2)
    a = _play(RootParallelBot(4, workers=1, **SEARCH), s.copy(), 3)
    plain = ISMCTSBot(4, **SEARCH)
    others = [GreedyBot(i) for i in range(3)]
    b: list[Move] = []
    t = s.copy()
    while len(b) < 3:
        p = t.current
        m = plain.choose(view(t, p)) if p == 0 else others[p].choose(view(t, p))
        if p == 0 and t.phase == MAIN:
            b.append(m)
        t.play(m)
    assert a == b
    with pytest.raises(ValueError, match="workers"):
        RootParallelBot(0, workers=0, **SEARCH)


def test_the_level_is_registered() -> None:
    bot = make_bot("expert-parallel", seed=1)
    assert isinstance(bot, RootParallelBot) and bot.workers >= 1


def test_a_server_does_not_offer_the_parallel_level(tmp_path: Path) -> None:
    """expert-parallel forks a process per core at every decision: for a player's own
    machine (the terminal, tournaments), not for a server's tables."""
    from web_helpers import make_client

    from kardinal.bots import levels, served_bots

    assert "expert-parallel" in [n for n, _ in levels()] and "expert-parallel" not in served_bots()
    with make_client(tmp_path) as c:
        offered = c.get("/api/bots").json()
        assert "expert-parallel" not in offered["levels"] and "expert" in offered["levels"]
        assert "expert-parallel" not in offered["about"]
        players = [{"name": "Anna", "kind": "person"}, {"kind": "bot", "level": "expert-parallel"}, {"kind": "bot", "level": "random"}]
        r = c.post("/api/games", json={"players": players})
        assert r.status_code in (400, 422), r.text
        players[1]["level"] = "expert"
        assert c.post("/api/games", json={"players": players}).status_code == 200
        table = {"players": players[:1] + [{"kind": "bot", "level": "random"}] * 2, "standin": "expert-parallel"}
        refused = c.post("/api/games", json=table)
        assert refused.status_code in (400, 422) and "standin" in refused.text
        table["standin"] = "expert"
        assert c.post("/api/games", json=table).status_code == 200
