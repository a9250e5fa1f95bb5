"""Identical play: the search bots' moves at fixed seeds and iteration counts are pinned.

Three configurations are pinned. ``CLASSIC`` (``ISMCTSBot(seed, **CLASSIC)``: rollouts of 4
main decisions, epsilon 0.25, the defaults before the strength work of issue 14):
``tests/data/ismcts_pinned.json`` was written by the ISMCTS of commit ddd93d8, before its
speed work. The present defaults (deeper rollouts): ``tests/data/ismcts_pinned_tuned.json``,
the same positions and games with the default bot; ``tests/data/ismcts_pinned_fitted.json``,
the same with ``leaf="fitted"`` (the hard and expert levels). ``python tests/test_bot_pinned.py``
writes them again: do that only when play is meant to change (the classic data must then
come out unchanged). Each entry is a position (3-5 players, early to the final round, given
as the moves of a game from its seed), a bot seed and an iteration count; the file holds
the move chosen and the visits of every root child. A faster search must give the same
numbers: the same random draws in the same order, the same evaluation, the same ties.
A few complete games with small searches and greedy seats pin the draws, the reshuffle
and the end of the game too, and three searches of 3,000 iterations (``deep``, recorded with
the version before the speed work too; ``generate`` keeps them) pin the deep trees.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path
from typing import Any

import pytest

from kardinal.bots import LEVEL_ITERATIONS, Bot, GreedyBot, ISMCTSBot
from kardinal.bots.ismcts import CLASSIC
from kardinal.rules.moves import parse_move
from kardinal.rules.state import MAIN, State, new_game
from kardinal.rules.view import view

DATA = Path(__file__).parent / "data" / "ismcts_pinned.json"
TUNED = Path(__file__).parent / "data" / "ismcts_pinned_tuned.json"
FITTED = DATA.parent / "ismcts_pinned_fitted.json"  # the defaults with leaf="fitted" (hard and expert)
# the present configurations: their pinned data, and the settings they were written with
PRESENT = [(TUNED, {}), (FITTED, {"leaf": "fitted"})]

# (players, deal seed, main decisions before the position)
POSITIONS = [
    (3, 11, 4),
    (3, 12, 18),
    (3, 13, 30),
    (3, 14, 99),
    (4, 21, 2),
    (4, 22, 12),
    (4, 23, 22),
    (4, 24, 30),
    (4, 25, 36),
    (4, 26, 99),
    (5, 31, 6),
    (5, 32, 18),
    (5, 33, 30),
    (5, 34, 38),
]
ITERATIONS = 150
# (players, deal seed, seats searching, iterations)
GAMES = [(3, 41, 2, 25), (4, 42, 2, 20), (5, 43, 1, 15)]
HARD = LEVEL_ITERATIONS["hard"]  # the one deep search of the default configuration


def _position(players: int, seed: int, main_decisions: int) -> tuple[State, list[str]]:
    """The position of a greedy game at a main decision (or its last main decision if it ends sooner)."""
    bots = [GreedyBot(100 + i) for i in range(players)]
    s = new_game(players, seed=seed)
    moves: list[str] = []
    found: tuple[State, list[str]] | None = None
    done = 0
    while not s.is_over:
        if s.phase == MAIN and len(s.legal_moves()) > 1:
            found = (s.copy(), moves[:])
            if done == main_decisions:
                break
            done += 1
        m = bots[s.current].choose(view(s, s.current))
        s.play(m)
        moves.append(str(m))
    assert found is not None
    return found


def _replay(players: int, seed: int, moves: list[str]) -> State:
    s = new_game(players, seed=seed)
    for m in moves:
        s.play(parse_move(m))
    return s


def _search(s: State, bot_seed: int, iterations: int, config: dict[str, Any] = CLASSIC) -> dict[str, Any]:
    bot = ISMCTSBot(bot_seed, iterations=iterations, **config)
    move = bot.choose(view(s, s.current))
    return {
        "move": str(move),
        "visits": sorted([str(m), v] for m, (v, _) in bot.last_root.items()),
        "rewards": sorted([str(m), round(r, 9)] for m, (_, r) in bot.last_root.items()),
    }


def _game(players: int, seed: int, searching: int, iterations: int, config: dict[str, Any] = CLASSIC) -> list[str]:
    bots: list[Bot] = [ISMCTSBot(200 + i, iterations=iterations, **config) if i < searching else GreedyBot(200 + i) for i in range(players)]
    s = new_game(players, seed=seed)
    out = []
    while not s.is_over:
        m = bots[s.current].choose(view(s, s.current))
        s.play(m)
        out.append(str(m))
    return out


def generate(config: dict[str, Any] = CLASSIC) -> dict[str, Any]:
    """The moves of ``config`` on the pinned positions and games. The classic data keeps its
    deep searches as recorded before the speed work; the default configuration gets one
    search at the hard budget."""
    positions = []
    for players, seed, decisions in POSITIONS:
        s, moves = _position(players, seed, decisions)
        positions.append(
            {"players": players, "seed": seed, "moves": moves, "bot_seed": seed * 7, "iterations": ITERATIONS}
            | _search(s, seed * 7, ITERATIONS, config)
        )
    games = [
        {"players": p, "seed": seed, "searching": k, "iterations": it, "moves": _game(p, seed, k, it, config)} for p, seed, k, it in GAMES
    ]
    if config == CLASSIC:
        return {"positions": positions, "games": games, "deep": _data()["deep"]}
    s, _ = _position(*POSITIONS[6])
    deep = {"position": 6, "bot_seed": 5, "iterations": HARD} | _search(s, 5, HARD, config)
    return {"positions": positions, "games": games, "deep": [deep]}


def _data(path: Path = DATA) -> dict[str, Any]:
    data: dict[str, Any] = json.loads(path.read_text())
    return data


@pytest.mark.parametrize("i", range(len(POSITIONS)))
def test_ismcts_search_is_pinned(i: int) -> None:
    """The same seed and iteration count give the same root visits and the same move."""
    entry = _data()["positions"][i]
    s = _replay(entry["players"], entry["seed"], entry["moves"])
    got = _search(s, entry["bot_seed"], entry["iterations"])
    assert got["move"] == entry["move"]
    assert got["visits"] == entry["visits"]
    for (m1, r1), (m2, r2) in zip(got["rewards"], entry["rewards"]):
        assert m1 == m2 and r1 == pytest.approx(r2, abs=1e-7)


@pytest.mark.parametrize("i", range(3))
def test_deep_search_is_pinned(i: int) -> None:
    """At the hard level's budget (3,000 iterations, a deep tree whose nodes remember their
    candidates) the root visits are still those of the plain search."""
    data = _data()
    entry = data["deep"][i]
    pos = data["positions"][entry["position"]]
    s = _replay(pos["players"], pos["seed"], pos["moves"])
    bot = ISMCTSBot(entry["bot_seed"], iterations=entry["iterations"], **CLASSIC)
    assert str(bot.choose(view(s, s.current))) == entry["move"]
    assert sorted([str(m), v] for m, (v, _) in bot.last_root.items()) == entry["visits"]


@pytest.mark.parametrize("i", range(len(POSITIONS)))
def test_greedy_play_is_pinned(i: int) -> None:
    """The positions were reached by greedy players; greedy still plays the same moves."""
    entry = _data()["positions"][i]
    players, seed, decisions = POSITIONS[i]
    assert (entry["players"], entry["seed"]) == (players, seed)
    assert _position(players, seed, decisions)[1] == entry["moves"]


@pytest.mark.parametrize("i", range(len(GAMES)))
def test_games_with_search_are_pinned(i: int) -> None:
    """A whole game (draws, the reshuffle, the final round) with searching seats plays out the same."""
    entry = _data()["games"][i]
    assert _game(entry["players"], entry["seed"], entry["searching"], entry["iterations"]) == entry["moves"]


@pytest.mark.parametrize("data,config", PRESENT, ids=["plain", "fitted"])
@pytest.mark.parametrize("i", range(len(POSITIONS)))
def test_default_search_is_pinned(i: int, data: Path, config: dict[str, Any]) -> None:
    """The default configuration (deeper rollouts), with either leaf evaluation, is
    reproducible too: the same seed and iteration count give the same root visits and the
    same move."""
    entry = _data(data)["positions"][i]
    s = _replay(entry["players"], entry["seed"], entry["moves"])
    got = _search(s, entry["bot_seed"], entry["iterations"], config)
    assert got["move"] == entry["move"]
    assert got["visits"] == entry["visits"]
    for (m1, r1), (m2, r2) in zip(got["rewards"], entry["rewards"], strict=True):
        assert m1 == m2 and r1 == pytest.approx(r2, abs=1e-7)


@pytest.mark.parametrize("data,config", PRESENT, ids=["plain", "fitted"])
def test_default_search_at_the_hard_budget_is_pinned(data: Path, config: dict[str, Any]) -> None:
    """One search of the default configuration at the hard level's iteration budget (the
    budget when the data was written: 1,200 for the plain leaf, 1,400 for the fitted)."""
    pinned = _data(data)
    entry = pinned["deep"][0]
    pos = pinned["positions"][entry["position"]]
    s = _replay(pos["players"], pos["seed"], pos["moves"])
    got = _search(s, entry["bot_seed"], entry["iterations"], config)
    assert (got["move"], got["visits"]) == (entry["move"], entry["visits"])


@pytest.mark.parametrize("data,config", PRESENT, ids=["plain", "fitted"])
@pytest.mark.parametrize("i", range(len(GAMES)))
def test_default_games_with_search_are_pinned(i: int, data: Path, config: dict[str, Any]) -> None:
    """Whole games with searching seats of the default configuration (draws, the reshuffle, R7.3, the end)."""
    entry = _data(data)["games"][i]
    assert _game(entry["players"], entry["seed"], entry["searching"], entry["iterations"], config) == entry["moves"]


def test_the_classic_configuration_is_the_one_before_issue_14() -> None:
    """CLASSIC names the settings the classic data was written with; the defaults differ from it."""
    assert CLASSIC == {"depth": 4, "epsilon": 0.25}
    bot = ISMCTSBot(0)
    assert (bot.depth, bot.epsilon) != (CLASSIC["depth"], CLASSIC["epsilon"])


if __name__ == "__main__":  # pragma: no cover - writes the pinned data again
    if sys.argv[1:] == ["fitted"]:  # only the fitted leaf's (it was added later)
        FITTED.write_text(json.dumps(generate({"leaf": "fitted"}), indent=1) + "\n")
        print(f"wrote {FITTED}", file=sys.stderr)
        raise SystemExit
    DATA.write_text(json.dumps(generate(), indent=1) + "\n")
    TUNED.write_text(json.dumps(generate({}), indent=1) + "\n")
    FITTED.write_text(json.dumps(generate({"leaf": "fitted"}), indent=1) + "\n")
    print(f"wrote {DATA}, {TUNED} and {FITTED}", file=sys.stderr)
