"""Runs of many games (kardinal.bots.runs): the results file game by game, --resume after an
interruption or a line cut short, the settings check, the progress on standard error, and
Ray never imported without --ray."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from dataclasses import asdict, replace
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kardinal.bots.runs import GameRun, LocalEngine, ResultsError, Settings, play_job, read_results
from kardinal.bots.tournament import GameResult, LiveRatings, plackett_luce, summarize
from kardinal.cli import app
from kardinal.rules.record import load_record, replay

ROOT = Path(__file__).parent.parent
runner = CliRunner()
SETTINGS = Settings(("greedy", "random", "random", "random"), 4, 7, 8, records=True)


def same(r: GameResult) -> tuple[Any, ...]:
    """What a game is, apart from the time it took (a run keeps no records in memory)."""
    return (r.game, r.deal_seed, r.entry_of_seat, r.scores, r.winners, r.pieces_left, r.cut_short, r.record)


def play_all(settings: Settings, out: Path | None = None, resume: bool = False, workers: int = 1, stop: int | None = None) -> GameRun:
    run = GameRun(settings, out=out, resume=resume)
    for k, _ in enumerate(run.play(LocalEngine(workers), play_job), start=1):
        if k == stop:
            break  # as an interruption: the generator closes the file
    return run


def lines(path: Path) -> list[dict[str, Any]]:
    return [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()]


def file_games(path: Path) -> list[dict[str, Any]]:
    """A results file's games in order, apart from the time they took."""
    return sorted(({k: v for k, v in g.items() if "times" not in k} for g in lines(path)[1:]), key=lambda g: g["game"])


def stats_without_times(names: tuple[str, ...], results: list[GameResult]) -> list[dict[str, Any]]:
    return [{k: v for k, v in asdict(st).items() if "time" not in k} for st in summarize(names, results, 7)]


@pytest.fixture(scope="module")
def whole(tmp_path_factory: pytest.TempPathFactory) -> tuple[Path, list[GameResult]]:
    """The uninterrupted run the others are compared with."""
    out = tmp_path_factory.mktemp("whole") / "results.jsonl"
    return out, play_all(SETTINGS, out).sorted_results()


def test_the_file_holds_a_header_and_a_line_per_game_as_it_ends(whole: tuple[Path, list[GameResult]]) -> None:
    out, results = whole
    header, *games = lines(out)
    assert header["format"] == "kardinal-results" and header["version"] == 1 and header["command"] == "tournament"
    assert header["settings"] == {
        "bots": ["greedy", "random", "random", "random"],
        "players": 4,
        "seed": 7,
        "games": 8,
        "board": "standard",
        "board_digest": header["settings"]["board_digest"],
        "variants": [],
        "told": None,
        "records": True,
        "kind": "bots",
    }
    assert header["settings"]["board_digest"].startswith("sha256:")
    assert sorted(g["game"] for g in games) == list(range(8))
    assert set(games[0]) == {
        "game",
        "deal_seed",
        "entry_of_seat",
        "scores",
        "winners",
        "pieces_left",
        "cut_short",
        "times",
        "main_times",
        "record",
    }
    for g, r in zip(sorted(games, key=lambda g: g["game"]), results):
        assert (g["scores"], g["winners"], g["entry_of_seat"], g["deal_seed"]) == (r.scores, r.winners, r.entry_of_seat, r.deal_seed)
        s = replay(g["record"])  # each game's record replays to its result
        assert s.scores == g["scores"] and s.winners == g["winners"]
        assert len(g["times"]) == 4 and all(len(t) == 3 for t in g["times"])


def test_an_interrupted_run_resumes_to_the_same_games_and_statistics(whole: tuple[Path, list[GameResult]], tmp_path: Path) -> None:
    _, results = whole
    out = tmp_path / "results.jsonl"
    first = play_all(SETTINGS, out, stop=3)
    assert len(first.results) == 3 and len(lines(out)) == 1 + 3
    again = GameRun(SETTINGS, out=out, resume=True)
    assert len(again.results) == 3 and sorted(again.todo) == sorted(set(range(8)) - {r.game for r in first.results})
    assert all(r.record is None for r in again.results)  # (records are not kept in memory)
    for _ in again.play(LocalEngine(1), play_job):
        pass
    assert [same(r) for r in again.sorted_results()] == [same(r) for r in results]
    assert stats_without_times(SETTINGS.bots, again.sorted_results()) == stats_without_times(SETTINGS.bots, results)
    # the file is now the whole run, game by game, records and all
    assert file_games(out) == file_games(whole[0])


def test_a_last_line_cut_short_is_dropped_and_that_game_played_again(whole: tuple[Path, list[GameResult]], tmp_path: Path) -> None:
    src, results = whole
    text = src.read_bytes()
    ends = [i for i, c in enumerate(text) if c == ord("\n")]
    out = tmp_path / "cut.jsonl"
    out.write_bytes(text[: ends[4] + 40])  # the header, four games, and 40 bytes of a fifth (a run killed while writing)
    header, done, good = read_results(out)
    assert len(done) == 4 and good == ends[4] + 1
    run = GameRun(SETTINGS, out=out, resume=True)
    assert any("cut short" in n for n in run.notes)
    assert len(run.todo) == 4
    for _ in run.play(LocalEngine(2), play_job):  # two processes: the games end in any order
        pass
    assert [same(r) for r in run.sorted_results()] == [same(r) for r in results]
    assert len(lines(out)) == 9  # the cut line is gone, not left in the middle of the file
    assert file_games(out) == file_games(src)


def test_other_settings_or_a_broken_file_are_refused_and_change_nothing(whole: tuple[Path, list[GameResult]], tmp_path: Path) -> None:
    src, _ = whole
    out = tmp_path / "r.jsonl"
    out.write_bytes(src.read_bytes())
    before = out.read_bytes()
    for other, words in [
        (replace(SETTINGS, bots=("random", "greedy", "random", "random")), "bots"),
        (replace(SETTINGS, seed=8), "seed 7 there, 8 here"),
        (replace(SETTINGS, games=12), "games 8 there, 12 here"),
        (replace(SETTINGS, board="reconstruction-1"), "board"),
        (replace(SETTINGS, variants=("joker-anywhere",)), "variants"),
        (replace(SETTINGS, records=False), "records"),
        (replace(SETTINGS, players=3, bots=("greedy", "random", "random")), "players 4 there, 3 here"),
        (replace(SETTINGS, bots=("random",) * 4, kind="random-moves"), 'kind "bots" there, "random-moves" here'),
    ]:
        with pytest.raises(ResultsError, match="other settings") as e:
            GameRun(other, out=out, resume=True)
        assert words in str(e.value)
    with pytest.raises(ResultsError, match="exists: add --resume"):
        GameRun(SETTINGS, out=out)
    assert out.read_bytes() == before
    # a broken line that is not the last is not a run's interruption: refused, with its line
    rows = before.split(b"\n")
    rows[3] = rows[3][:20]
    out.write_bytes(b"\n".join(rows))
    with pytest.raises(ResultsError, match="line 4"):
        GameRun(SETTINGS, out=out, resume=True)
    out.write_bytes(b'{"format": "something else"}\n')
    with pytest.raises(ResultsError, match="not a results file"):
        GameRun(SETTINGS, out=out, resume=True)
    with pytest.raises(ValueError, match="--resume needs"):
        GameRun(SETTINGS, resume=True)


def test_resume_without_a_file_starts_one(tmp_path: Path) -> None:
    small = replace(SETTINGS, games=2, records=False)
    out = tmp_path / "new.jsonl"
    run = play_all(small, out, resume=True)
    assert len(run.results) == 2 and len(lines(out)) == 3
    assert "record" not in lines(out)[1]


def test_live_ratings_are_the_batch_fit(whole: tuple[Path, list[GameResult]]) -> None:
    _, results = whole
    live = LiveRatings(4)
    for k, r in enumerate(results, start=1):
        live.add(r)
        if k in (3, 8):
            assert live.ratings() == pytest.approx(plackett_luce(results[:k], 4), abs=0.01)


# -- the command line ---------------------------------------------------------------------------

TOURNAMENT = ["tournament", "--bots", "greedy,random,random", "--players", "3", "--games", "6", "--seed", "3", "--workers", "1", "--json"]


def without_times(data: dict[str, Any]) -> dict[str, Any]:
    return data | {"entries": [{k: v for k, v in e.items() if "time" not in k} for e in data["entries"]]}


def test_cli_resume_after_an_interruption_gives_the_uninterrupted_result(tmp_path: Path) -> None:
    whole = runner.invoke(app, TOURNAMENT)
    assert whole.exit_code == 0, whole.output
    out = tmp_path / "t.jsonl"
    res = runner.invoke(app, [*TOURNAMENT, "--out", str(out)])
    assert res.exit_code == 0, res.output
    text = out.read_text(encoding="utf-8")
    cut = text[: text.index("\n", text.index("\n") + 1) + 30]  # the header, one game, a piece of the next
    out.write_text(cut, encoding="utf-8")
    res = runner.invoke(app, [*TOURNAMENT, "--out", str(out)])
    assert res.exit_code == 2 and "exists: add --resume" in res.stderr and out.read_text(encoding="utf-8") == cut
    res = runner.invoke(app, [*TOURNAMENT, "--out", str(out), "--resume"])
    assert res.exit_code == 0, res.output
    assert "cut short" in res.stderr
    assert without_times(json.loads(res.stdout)) == without_times(json.loads(whole.stdout))
    assert len(out.read_text(encoding="utf-8").splitlines()) == 7
    # other settings: refused, and the file stays as it is
    before = out.read_text(encoding="utf-8")
    res = runner.invoke(app, [*TOURNAMENT[:-5], "--seed", "4", "--workers", "1", "--json", "--out", str(out), "--resume"])
    assert res.exit_code == 2 and "other settings (seed 3 there, 4 here)" in res.stderr
    assert out.read_text(encoding="utf-8") == before


def test_cli_progress_goes_to_standard_error_and_standard_output_stays_json(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("TTY_COMPATIBLE", "1")  # rich: standard error is a terminal
    monkeypatch.setenv("TTY_INTERACTIVE", "1")
    monkeypatch.setenv("COLUMNS", "200")
    res = runner.invoke(app, TOURNAMENT)
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)  # nothing but the JSON
    assert data["games"] == 6
    assert "6/6" in res.stderr and "games/" in res.stderr and "left" in res.stderr
    assert "1 greedy" in res.stderr and "3 random" in res.stderr  # the current ratings
    # no terminal: no bar (a line at most every minute)
    monkeypatch.delenv("TTY_COMPATIBLE")
    monkeypatch.delenv("TTY_INTERACTIVE")
    res = runner.invoke(app, TOURNAMENT)
    assert res.exit_code == 0 and res.stderr == "" and json.loads(res.stdout)["games"] == 6


def test_cli_selfplay_with_bots_out_and_records(tmp_path: Path) -> None:
    out, first = tmp_path / "s.jsonl", tmp_path / "first.json"
    args = ["selfplay", "--bots", "greedy,random,random,random", "--games", "5", "--seed", "9", "--workers", "2"]
    res = runner.invoke(app, [*args, "--out", str(out), "--with-records", "--record", str(first)])
    assert res.exit_code == 0, res.output
    assert [x.split(" (")[0] for x in res.stdout.splitlines() if x.startswith("game ")] == [f"game {g}" for g in range(1, 6)]  # in order
    assert "game 2 (seed 9; seats random, greedy, random, random): scores [" in res.stdout and "Plackett-Luce" in res.stdout
    header, *games = lines(out)
    assert header["command"] == "selfplay" and header["settings"]["games"] == 5  # not rounded up to whole blocks
    game0 = next(g for g in games if g["game"] == 0)
    assert load_record(first) == game0["record"]
    assert load_record(first)["players"][game0["entry_of_seat"].index(0)].startswith("greedy")
    # the games of a selfplay run are those of the tournament of the same bots and seed
    t = tmp_path / "t.jsonl"
    res = runner.invoke(app, ["tournament", *args[1:], "--out", str(t), "--with-records", "--json"])
    assert res.exit_code == 0, res.output
    key = lambda g: (g["game"], g["scores"], g["record"]["actions"])  # noqa: E731
    assert sorted(map(key, games)) == sorted(map(key, lines(t)[1:]))[:5]
    # --resume without --seed continues with the file's seed
    out.write_text("\n".join(out.read_text(encoding="utf-8").splitlines()[:3]) + "\n", encoding="utf-8")
    res = runner.invoke(
        app,
        ["selfplay", "--bots", "greedy,random,random,random", "--games", "5", "--out", str(out), "--resume", "--with-records", "--json"],
    )
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["seed"] == 9 and sorted(map(key, lines(out)[1:])) == sorted(map(key, games))


def test_cli_selfplay_one_bot_for_every_seat_and_bad_bots() -> None:
    res = runner.invoke(app, ["selfplay", "--bots", "greedy", "--players", "3", "--seed", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert [e["bot"] for e in json.loads(res.stdout)["entries"]] == ["greedy"] * 3
    res = runner.invoke(app, ["selfplay", "--bots", "greedy,nobody", "--players", "3"])
    assert res.exit_code == 2 and "unknown bot 'nobody'" in res.stderr
    res = runner.invoke(app, ["selfplay", "--bots", "greedy,random", "--players", "3"])
    assert res.exit_code == 2 and "one bot per seat" in res.stderr


def test_without_ray_installed_ray_is_a_clear_error(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    monkeypatch.setitem(sys.modules, "ray", None)  # import ray fails as if it were not installed
    monkeypatch.delitem(sys.modules, "kardinal.research.cluster", raising=False)
    out = tmp_path / "r.jsonl"
    for args in (["tournament", "--games", "4", "--ray"], ["selfplay", "--ray-address", "10.0.0.1:6379"]):
        res = runner.invoke(app, [*args, "--out", str(out)])
        assert res.exit_code == 2, res.output
        assert "--ray needs the 'ray' extra" in res.stderr and "pip install 'kardinal[ray]'" in res.stderr
        assert "Traceback" not in res.output


def test_kardinal_and_a_run_without_ray_never_import_ray(tmp_path: Path) -> None:
    code = (
        "import sys\n"
        "from typer.testing import CliRunner\n"
        "import kardinal, kardinal.bots, kardinal.bots.runs, kardinal.research, kardinal.cli\n"
        "r = CliRunner().invoke(kardinal.cli.app, ['tournament', '--games', '4', '--workers', '2', '--json'])\n"
        "assert r.exit_code == 0, r.output\n"
        "r = CliRunner().invoke(kardinal.cli.app, ['selfplay', '--games', '2', '--seed', '1'])\n"
        "assert r.exit_code == 0, r.output\n"
        "print(sorted(m for m in sys.modules if m == 'ray' or m.startswith('ray.')))\n"
    )
    res = subprocess.run(
        [sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=120, env=os.environ | {"PYTHONPATH": str(ROOT)}
    )
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "[]"


def test_cli_selfplay_data_resumes_and_plays_again_the_games_whose_rows_were_lost(tmp_path: Path) -> None:
    """--data DIR: the rows of every game in Parquet shards, the results in DIR/results.jsonl.
    A run stopped between two shards has results without rows: resumed, those games are
    played again for their rows (not written twice), the others played for both."""
    from kardinal.research.selfplay_data import load

    args = ["selfplay", "--bots", "greedy,random,random", "--players", "3", "--games", "6", "--seed", "2", "--workers", "1", "--json"]
    whole, cut = tmp_path / "whole", tmp_path / "cut"
    res = runner.invoke(app, [*args, "--data", str(whole)])
    assert res.exit_code == 0, res.output
    assert len(lines(whole / "results.jsonl")) == 7
    res = runner.invoke(app, [*args, "--data", str(whole)])
    assert res.exit_code == 2 and "--resume" in res.stderr
    # as if stopped after four games, before any shard: four results, no rows
    cut.mkdir()
    (cut / "results.jsonl").write_text("\n".join((whole / "results.jsonl").read_text(encoding="utf-8").splitlines()[:5]) + "\n")
    unseeded = ["selfplay", "--bots", "greedy,random,random", "--players", "3", "--games", "6", "--workers", "1", "--json"]
    res = runner.invoke(app, [*unseeded, "--data", str(cut), "--resume"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.stdout)["seed"] == 2  # the file's
    assert without_times(json.loads(res.stdout)) == without_times(json.loads(runner.invoke(app, args).stdout))
    assert file_games(cut / "results.jsonl") == file_games(whole / "results.jsonl")  # each game once
    a, b = (
        load(whole).sort_by([("game", "ascending"), ("decision", "ascending")]),
        load(cut).sort_by([("game", "ascending"), ("decision", "ascending")]),
    )
    assert a.num_rows == b.num_rows > 0 and sorted(set(b.column("game").to_pylist())) == list(range(6))
    assert a.to_pydict() == b.to_pydict()


def test_selfplay_without_bots_plays_the_random_moves_it_always_played(tmp_path: Path) -> None:
    """Without --bots, selfplay plays uniformly random legal moves straight from the rules
    core, game g dealt with seed + g (as before runs and engines existed), also through
    the results file and its resume."""
    import random

    from kardinal.rules.record import record_of
    from kardinal.rules.state import new_game

    out = tmp_path / "r.jsonl"
    res = runner.invoke(
        app, ["selfplay", "--players", "3", "--games", "3", "--seed", "40", "--workers", "2", "--out", str(out), "--with-records"]
    )
    assert res.exit_code == 0, res.output
    assert [x.split(":")[0] for x in res.stdout.splitlines()] == ["game 1 (seed 40)", "game 2 (seed 41)", "game 3 (seed 42)"]
    assert "Plackett-Luce" not in res.stdout  # no tournament statistics: the seats are not rotated
    header, *games = lines(out)
    assert header["settings"]["kind"] == "random-moves"
    for g in sorted(games, key=lambda g: g["game"]):
        s = new_game(3, seed=40 + g["game"])
        rng = random.Random(40 + g["game"])
        while not s.is_over:
            s.play_trusted(rng.choice(s.legal_moves()))
        assert g["record"] == record_of(s, ["Random 1", "Random 2", "Random 3"])
        assert g["entry_of_seat"] == [0, 1, 2] and g["deal_seed"] == 40 + g["game"]
    res = runner.invoke(app, ["selfplay", "--players", "3", "--games", "3", "--json", "--out", str(out), "--resume", "--with-records"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.stdout)
    assert (
        data["seed"] == 40 and data["seats_rotated"] is False and [e["seats"] for e in data["entries"]] == [[3, 0, 0], [0, 3, 0], [0, 0, 3]]
    )


def test_without_a_terminal_progress_is_a_line_now_and_then(
    whole: tuple[Path, list[GameResult]], capsys: pytest.CaptureFixture[str]
) -> None:
    from kardinal.clients.progress import RunProgress

    _, results = whole
    with RunProgress(SETTINGS.bots, 8, results[:5], every=3600.0) as p:  # the earlier games of a resumed run
        assert not p.live
        p.add(results[5])
        assert capsys.readouterr() == ("", "")  # not yet an hour
        p.every = 0.0
        p.add(results[6])
    out, err = capsys.readouterr()
    assert out == "" and err.startswith("7 of 8 games, ") and "games/" in err and "left; ratings: 1 greedy " in err
    assert err.count("\n") == 1
