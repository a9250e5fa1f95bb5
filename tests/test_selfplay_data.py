"""Self-play data (``kardinal.research.selfplay_data``): the rows are the game's decisions
as the acting seat saw them (R13: its observation holds no other hand), the game is the
one ``play_game`` plays, and the Parquet shards round-trip, resume and refuse what they
cannot read."""

from __future__ import annotations

import json
import os
import pickle
import random
import subprocess
import sys
from dataclasses import replace
from pathlib import Path
from typing import Any

import numpy as np
import pyarrow as pa
import pyarrow.parquet as pq
import pytest

import kardinal.research.selfplay_data as sd
from kardinal.bots import BOTS, ISMCTSBot
from kardinal.bots.base import Bot
from kardinal.bots.determinize import determinize
from kardinal.bots.tournament import GameResult, play_game
from kardinal.research.actions import action_table
from kardinal.research.encode import fields, tensor_size, write_tensor
from kardinal.research.selfplay_data import COLUMNS, DataFormatError, DataWriter, arrays, data_metadata, game_rows, load
from kardinal.rules.board import Board, get_board
from kardinal.rules.record import start_of, steps
from kardinal.rules.scoring import win_shares
from kardinal.rules.state import DRAW, State
from kardinal.rules.view import view

ROOT = Path(__file__).resolve().parents[1]
BOARD = get_board(None)
TABLE = action_table(BOARD)
# a search small enough for a test: the same class as medium, hard and expert
BOTS_OF_GAME = ["tiny-search", "greedy", "random", "tiny-search"]


@pytest.fixture(autouse=True)
def tiny_search(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(BOTS, "tiny-search", lambda seed, board: ISMCTSBot(seed, board, iterations=12, depth=2))
    # sequential halving at the root, and draws (R5.1) searched too
    monkeypatch.setitem(
        BOTS, "tiny-halving", lambda seed, board: ISMCTSBot(seed, board, iterations=12, depth=2, root="halving", draw_steps=40)
    )


def comparable(r: GameResult) -> GameResult:
    """A result without its wall-clock times (the only part that differs between runs)."""
    return replace(r, times=[], main_times=[])


def play_watched(names: list[str], players: int, game: int, seed: int) -> tuple[GameResult, list[tuple[bool, int]]]:
    """A plain play_game with its record, and per decision (a search bot decided, its iterations)."""
    seen: list[tuple[bool, int]] = []

    def watch(s: State, seat: int, move: Any, bot: Bot) -> None:
        seen.append((isinstance(bot, ISMCTSBot), bot.last_iterations if isinstance(bot, ISMCTSBot) else 0))

    return play_game(names, players, game, seed, BOARD, True, (), on_decision=watch), seen


@pytest.mark.parametrize("search", ["tiny-search", "tiny-halving"])
def test_the_rows_are_the_game_s_decisions_as_the_acting_seat_saw_them(search: str) -> None:
    bots = [search if b == "tiny-search" else b for b in BOTS_OF_GAME]
    result, cols = game_rows(bots, 4, 5, 11, None, ())
    plain, seen = play_watched(bots, 4, 5, 11)
    assert comparable(result) == comparable(plain)  # the same game, record included
    assert result.record is not None
    actions = result.record["actions"]
    rows = len(actions)
    assert set(cols) == set(COLUMNS) and all(len(v) == rows for v in cols.values())
    assert cols["decision"] == list(range(rows)) and cols["game"] == [5] * rows
    shares = win_shares(result.winners, 4)
    assert sum(shares) == pytest.approx(1.0)
    s = start_of(result.record)
    replayed = steps(s, actions)
    rngs = [random.Random(1), random.Random(2)]
    searched = 0
    for i in range(rows):
        seat = s.current
        assert cols["seat"][i] == seat and cols["entry"][i] == result.entry_of_seat[seat]
        assert cols["phase"][i] == ("draw" if s.phase == DRAW else "main")
        legal = {TABLE.encode(m) for m in s.legal_moves()}
        assert [a for a, x in enumerate(cols["legal"][i]) if x] == sorted(legal)
        # the observation is the seat's view: the same from any deal of the cards it cannot see
        for rng in rngs:
            seen_state = determinize(view(s, seat), rng, BOARD)
            expected = np.zeros(tensor_size(BOARD, 4), np.float32)
            write_tensor(expected, seen_state, seat)
            assert cols["observation"][i] == expected.tolist()
        step = next(replayed)
        action = cols["action"][i]
        assert action in legal and TABLE.decode(action) == step.move
        is_search, iterations = seen[i]
        visits = cols["visits"][i]
        assert (visits is not None) == (is_search and iterations > 0)
        if visits is not None:
            searched += 1
            assert len(visits) == len(TABLE) and sum(visits) == iterations
            assert all(legal_ for legal_, n in zip(cols["legal"][i], visits) if n)  # visits only on legal actions
            assert visits[action] == max(visits)  # the most visited root move is played
        assert cols["scores"][i] == result.scores and cols["win_shares"][i] == shares
        assert cols["score"][i] == result.scores[seat] and cols["win"][i] == shares[seat]
        assert cols["margin"][i] == result.scores[seat] - max(x for q, x in enumerate(result.scores) if q != seat)
    with pytest.raises(StopIteration):
        next(replayed)
    assert s.scores == result.scores
    # the search bots' main decisions are searched, their draws (R5.1) are answered by rule
    search_seats = {seat for seat, e in enumerate(result.entry_of_seat) if bots[e] == search}
    assert searched > 10
    search_draws = [cols["visits"][i] is not None for i in range(rows) if cols["phase"][i] == "draw" and cols["seat"][i] in search_seats]
    assert any(search_draws) == (search == "tiny-halving")
    assert not all(search_draws)  # a draw from a single choice is answered at once
    assert all(cols["visits"][i] is None for i in range(rows) if cols["seat"][i] not in search_seats)


def test_the_columns_survive_pickling_as_plain_lists() -> None:
    result, cols = game_rows(["random"] * 3, 3, 0, 2, None, ())
    again = pickle.loads(pickle.dumps((result, cols)))
    assert again == (result, cols)
    assert all(type(v) is list for v in cols.values())
    assert {type(x) for x in cols["phase"]} == {str}


def write_games(directory: Path, names: list[str], games: range, **shards: Any) -> dict[int, dict[str, list[Any]]]:
    out = {}
    with DataWriter(directory, data_metadata(names, len(names), 7, None, ()), **shards) as w:
        for g in games:
            _, cols = game_rows(names, len(names), g, 7, None, ())
            w.add(g, cols)
            out[g] = cols
    return out


def test_written_rows_load_back_with_their_metadata(tmp_path: Path) -> None:
    names = ["tiny-search", "random", "random"]
    written = write_games(tmp_path, names, range(3), games_per_shard=2)
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part-00000.parquet", "part-00001.parquet"]
    table = load(tmp_path)
    for name in COLUMNS:
        expected = [x for g in range(3) for x in written[g][name]]
        assert table.column(name).to_pylist() == expected, name
    meta = {k.decode(): v.decode() for k, v in table.schema.metadata.items()}
    assert meta["format"] == "kardinal-selfplay" and meta["format_version"] == str(sd.FORMAT_VERSION)
    assert meta["board"] == "standard" and meta["board_digest"] == BOARD.digest and meta["variants"] == ""
    assert meta["players"] == "3" and meta["bots"] == "tiny-search,random,random" and meta["seed"] == "7"
    assert meta["action_space"] == str(len(TABLE)) == "1507"
    assert meta["observation_size"] == str(tensor_size(BOARD, 3))
    assert [(n, tuple(s)) for n, s in json.loads(meta["observation_fields"])] == fields(BOARD, 3)
    assert meta["kardinal_version"]
    a = arrays(table)
    rows = table.num_rows
    assert a["observation"].shape == (rows, tensor_size(BOARD, 3)) and a["observation"].dtype == np.float32
    assert a["legal"].shape == (rows, 1507) and a["legal"].dtype == bool
    assert a["legal"][np.arange(rows), a["action"]].all()
    assert a["searched"].sum() == sum(v is not None for g in range(3) for v in written[g]["visits"]) > 0
    assert (a["visits"][~a["searched"]] == 0).all()
    assert a["visits"][a["searched"]].sum(axis=1).min() > 0
    assert a["win"].tolist() == [x for g in range(3) for x in written[g]["win"]]
    some = arrays(load(tmp_path, columns=["observation", "win", "phase"]))
    assert sorted(some) == ["draw", "observation", "win"]
    assert (some["observation"] == a["observation"]).all()
    assert some["draw"].tolist() == [p == "draw" for g in range(3) for p in written[g]["phase"]]
    with pytest.raises(ValueError, match="no column value"):
        load(tmp_path, columns=["value"])
    schema = pq.read_schema(tmp_path / "part-00000.parquet")
    assert str(schema.field("observation").type) == f"fixed_size_list<element: float>[{tensor_size(BOARD, 3)}]"
    assert str(schema.field("legal").type) == "fixed_size_list<element: bool>[1507]"


def test_games_in_names_whole_games_and_a_resumed_writer_goes_on(tmp_path: Path) -> None:
    names = ["random"] * 3
    meta = data_metadata(names, 3, 7, None, ())
    w = DataWriter(tmp_path, meta, games_per_shard=2)
    for g in range(3):
        w.add(g, game_rows(names, 3, g, 7, None, ())[1])
    # stopped here, unclosed: game 2 waited for its shard and is lost
    assert DataWriter.games_in(tmp_path) == {0, 1}
    again = DataWriter(tmp_path, meta, games_per_shard=2)
    assert again.written == {0, 1}
    with pytest.raises(ValueError, match="game 1 is already in"):
        again.add(1, game_rows(names, 3, 1, 7, None, ())[1])
    again.add(2, game_rows(names, 3, 2, 7, None, ())[1])
    again.close()
    assert sorted(p.name for p in tmp_path.iterdir()) == ["part-00000.parquet", "part-00001.parquet"]
    assert DataWriter.games_in(tmp_path) == {0, 1, 2}
    # no game is split over shards
    shard_games = [set(pq.read_table(p, columns=["game"]).column("game").to_pylist()) for p in sorted(tmp_path.iterdir())]
    assert shard_games == [{0, 1}, {2}]
    fresh = write_games(tmp_path / "fresh", names, range(3))
    assert load(tmp_path).column("action").to_pylist() == [x for g in range(3) for x in fresh[g]["action"]]
    # another run's data is not mixed in; a note of the caller's may differ
    with pytest.raises(DataFormatError, match="another run.*differs in bots"):
        DataWriter(tmp_path, data_metadata(["greedy"] * 3, 3, 7, None, ()))
    with pytest.raises(DataFormatError, match="another run.*differs in seed"):
        DataWriter(tmp_path, data_metadata(names, 3, 8, None, ()))
    with DataWriter(tmp_path, {**meta, "note": "resumed"}, seconds_per_shard=0.0) as noted:
        for g in (3, 4):
            noted.add(g, game_rows(names, 3, g, 7, None, ())[1])
    assert len(list(tmp_path.glob("part-*.parquet"))) == 4  # seconds_per_shard 0: a shard a game
    assert set(load(tmp_path).column("game").to_pylist()) == {0, 1, 2, 3, 4}
    other = tmp_path / "other"
    write_games(other, names, range(1))
    write_games(other / "b", ["greedy"] * 3, range(1, 2))
    (other / "b" / "part-00000.parquet").rename(other / "part-00001.parquet")
    with pytest.raises(DataFormatError, match="are of different runs .*bots"):
        load(other)


def test_a_shard_is_never_half_written(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["random"] * 3
    meta = data_metadata(names, 3, 7, None, ())
    cols = [game_rows(names, 3, g, 7, None, ())[1] for g in range(2)]
    real = pq.write_table

    def dies_halfway(table: Any, where: Any, **kw: Any) -> None:
        real(table, where, **kw)
        Path(where).write_bytes(Path(where).read_bytes()[:1000])  # the process dies while writing
        raise KeyboardInterrupt

    w = DataWriter(tmp_path, meta, games_per_shard=1)
    w.add(0, cols[0])
    monkeypatch.setattr(pq, "write_table", dies_halfway)
    with pytest.raises(KeyboardInterrupt):
        w.add(1, cols[1])
    monkeypatch.setattr(pq, "write_table", real)
    assert sorted(p.name for p in tmp_path.iterdir()) == [".part-00001.parquet.tmp", "part-00000.parquet"]
    assert DataWriter.games_in(tmp_path) == {0}
    assert load(tmp_path).num_rows == len(cols[0]["game"])
    with DataWriter(tmp_path, meta) as again:  # the resumed run clears the unfinished shard
        assert not (tmp_path / ".part-00001.parquet.tmp").exists()
        again.add(1, cols[1])
    assert DataWriter.games_in(tmp_path) == {0, 1}


def test_bad_rows_are_refused_and_change_nothing(tmp_path: Path) -> None:
    names = ["random"] * 3
    _, cols = game_rows(names, 3, 0, 7, None, ())
    with DataWriter(tmp_path, data_metadata(names, 3, 7, None, ())) as w:
        with pytest.raises(ValueError, match="the columns must be"):
            w.add(0, {k: v for k, v in cols.items() if k != "visits"})
        with pytest.raises(ValueError, match="different lengths"):
            w.add(0, {**cols, "action": cols["action"][:-1]})
        with pytest.raises(ValueError, match="name other games"):
            w.add(1, cols)
        with pytest.raises(ValueError, match="the rows of game 0 do not fit the format"):
            w.add(0, {**cols, "observation": [x[:-1] for x in cols["observation"]]})  # a 4-player tensor in 3-player data
        with pytest.raises(ValueError, match="the rows of game 0 do not fit the format"):
            w.add(0, {**cols, "action": [40_000] * len(cols["action"])})  # not an int16
        assert list(tmp_path.iterdir()) == []
        w.add(0, cols)  # the refusals left nothing behind
    assert load(tmp_path).column("action").to_pylist() == cols["action"]
    empty = tmp_path / "empty"
    with pytest.raises(ValueError, match="needs board"):
        DataWriter(empty, {"players": "3"})


def test_the_loader_refuses_another_format_version(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    names = ["random"] * 3
    monkeypatch.setattr(sd, "FORMAT_VERSION", 99)
    write_games(tmp_path, names, range(1))
    monkeypatch.undo()
    with pytest.raises(DataFormatError, match="format version 99, but this Kardinal .* reads version 1 only"):
        load(tmp_path)
    with pytest.raises(DataFormatError, match="format version 99"):
        DataWriter.games_in(tmp_path)
    with pytest.raises(DataFormatError, match="format version 99"):
        DataWriter(tmp_path, data_metadata(names, 3, 7, None, ()))
    other = tmp_path / "other"
    other.mkdir()
    pq.write_table(pa.table({"game": [0]}), other / "part-00000.parquet")
    with pytest.raises(DataFormatError, match="not Kardinal self-play data"):
        load(other)
    with pytest.raises(FileNotFoundError, match="no self-play data"):
        load(tmp_path / "nowhere")


def test_the_example_loads_the_data(tmp_path: Path) -> None:
    write_games(tmp_path, ["tiny-search", "random", "random"], range(2))
    run = subprocess.run(
        [sys.executable, str(ROOT / "examples" / "load_selfplay.py"), str(tmp_path)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
        cwd=ROOT,
        env={**os.environ, "PYTHONPATH": str(ROOT)},  # this checkout's kardinal, wherever the package is installed from
    )
    assert run.returncode == 0, run.stderr
    rows = load(tmp_path).num_rows
    assert f"{rows} decisions of 2 games" in run.stdout
    assert f"observation  ({rows}, {tensor_size(BOARD, 3)}) float32" in run.stdout
    assert "the action taken is a most visited one at 1.000 of the searched decisions" in run.stdout


def test_the_schema_follows_the_board_and_the_players() -> None:
    small: Board = get_board("reconstruction-1")
    s = sd.schema(small, 5)
    assert s.field("legal").type.list_size == len(action_table(small)) == 1471
    assert s.field("observation").type.list_size == tensor_size(small, 5)
    assert s.field("scores").type.list_size == 5


def test_other_boards_player_counts_and_variants() -> None:
    small = get_board("reconstruction-1")
    result, cols = game_rows(["random"] * 5, 5, 3, 4, "reconstruction-1", ("joker-anywhere",))
    assert result.record is not None and result.record["variants"] == ["joker-anywhere"] and result.record["board"] == small.id
    assert len(cols["game"]) == len(result.record["actions"])
    assert {len(x) for x in cols["observation"]} == {tensor_size(small, 5)}
    assert {len(x) for x in cols["legal"]} == {len(action_table(small))}
    assert all(legal[a] for legal, a in zip(cols["legal"], cols["action"]))
    meta = data_metadata(["random"] * 5, 5, 4, "reconstruction-1", ("joker-anywhere",))
    assert meta["variants"] == "joker-anywhere" and meta["board"] == small.id
