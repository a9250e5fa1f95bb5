"""Tournaments and self-play on a Ray cluster of two nodes, started in the test process with
Ray's own test utilities: the same games, records and results as the local run, spread
over both nodes, resumable; the command line both in this process and as a driver of its
own connecting to the cluster's address."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
import ray
from ray.cluster_utils import Cluster
from typer.testing import CliRunner

from kardinal.bots.runs import GameRun, LocalEngine, Settings, play_job
from kardinal.cli import app
from kardinal.research.cluster import RayEngine
from kardinal.rules.record import replay

pytestmark = pytest.mark.ray
ROOT = Path(__file__).parent.parent
runner = CliRunner()
SETTINGS = Settings(("greedy", "random", "random", "random"), 4, 5, 8, records=True)


@pytest.fixture(scope="module")
def cluster() -> Iterator[Cluster]:
    """A head and one more node of one CPU each, in this process (about 6 s to start)."""
    c = Cluster(initialize_head=True, head_node_args={"num_cpus": 1})
    try:
        c.add_node(num_cpus=1)
        c.wait_for_nodes()
        ray.init(address=c.address)
        yield c
    finally:
        ray.shutdown()
        c.shutdown()


def node_ids() -> set[str]:
    return {n["NodeID"] for n in ray.nodes() if n["Alive"]}


def file_games(path: Path) -> list[dict[str, Any]]:
    """A results file's games in order, apart from the time they took."""
    rows = [json.loads(x) for x in path.read_text(encoding="utf-8").splitlines()[1:]]
    return sorted(({k: v for k, v in g.items() if "times" not in k} for g in rows), key=lambda g: g["game"])


def play(settings: Settings, engine: Any, out: Path, stop: int | None = None) -> GameRun:
    run = GameRun(settings, out=out, resume=out.exists())
    for k, _ in enumerate(run.play(engine, play_job), start=1):
        if k == stop:
            break
    return run


def test_a_tournament_on_two_nodes_gives_the_local_games_and_records(cluster: Cluster, tmp_path: Path) -> None:
    assert len(node_ids()) == 2
    here = play(SETTINGS, LocalEngine(1), tmp_path / "here.jsonl")
    engine = RayEngine()
    there = play(SETTINGS, engine, tmp_path / "there.jsonl")
    games = file_games(tmp_path / "there.jsonl")
    assert games == file_games(tmp_path / "here.jsonl")
    assert [g["game"] for g in games] == list(range(8))
    for g in games:  # the records came back from the nodes whole
        s = replay(g["record"])
        assert s.scores == g["scores"] and s.winners == g["winners"]
    assert [r.scores for r in there.sorted_results()] == [r.scores for r in here.sorted_results()]
    # the tasks ran on both nodes of the cluster
    assert set(engine.nodes) == node_ids() and sum(engine.nodes.values()) == 8


def test_an_interrupted_run_on_the_cluster_resumes_to_the_same_games(cluster: Cluster, tmp_path: Path) -> None:
    small = Settings(("greedy", "random", "random"), 3, 2, 6, records=True)
    out = tmp_path / "r.jsonl"
    first = play(small, RayEngine(tasks=2), out, stop=2)  # the games still running are cancelled
    assert len(first.results) == 2 and len(file_games(out)) == 2
    again = play(small, RayEngine(), out)
    assert len(again.results) == 6 and len(again.todo) == 4
    play(small, LocalEngine(1), tmp_path / "here.jsonl")
    assert file_games(out) == file_games(tmp_path / "here.jsonl")


def without_times(data: dict[str, Any]) -> dict[str, Any]:
    return data | {"entries": [{k: v for k, v in e.items() if "time" not in k} for e in data["entries"]]}


def test_cli_selfplay_on_the_cluster_is_the_local_selfplay(cluster: Cluster, tmp_path: Path) -> None:
    args = ["selfplay", "--bots", "greedy,random,random,random", "--games", "6", "--seed", "4", "--with-records", "--json"]
    there = runner.invoke(app, [*args, "--ray-address", cluster.address, "--out", str(tmp_path / "there.jsonl")])
    assert there.exit_code == 0, there.output
    here = runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "here.jsonl")])
    assert here.exit_code == 0, here.output
    assert without_times(json.loads(there.stdout)) == without_times(json.loads(here.stdout))
    assert file_games(tmp_path / "there.jsonl") == file_games(tmp_path / "here.jsonl")
    assert "games per Ray node" in there.stderr
    assert ray.is_initialized()  # the command used this process's connection and left it open


def test_cli_selfplay_data_on_the_cluster_is_the_local_data(cluster: Cluster, tmp_path: Path) -> None:
    from kardinal.research.selfplay_data import load

    args = ["selfplay", "--bots", "greedy,random,random", "--players", "3", "--games", "3", "--seed", "6", "--json"]
    there = runner.invoke(app, [*args, "--ray-address", cluster.address, "--data", str(tmp_path / "there")])
    assert there.exit_code == 0, there.output
    here = runner.invoke(app, [*args, "--workers", "1", "--data", str(tmp_path / "here")])
    assert here.exit_code == 0, here.output
    order = [("game", "ascending"), ("decision", "ascending")]
    a, b = load(tmp_path / "there").sort_by(order), load(tmp_path / "here").sort_by(order)
    assert a.num_rows > 0 and a.to_pydict() == b.to_pydict()
    assert file_games(tmp_path / "there" / "results.jsonl") == file_games(tmp_path / "here" / "results.jsonl")


@pytest.mark.parametrize("how", ["--ray-address", "--ray and RAY_ADDRESS"])
def test_cli_tournament_as_a_driver_of_its_own_connects_to_the_cluster(cluster: Cluster, tmp_path: Path, how: str) -> None:
    """`kardinal tournament --ray-address HEAD:PORT` in another process, as on a machine of the
    cluster (or `--ray`, which finds it as ray.init() does, here by RAY_ADDRESS): standard
    output holds only the JSON; the games are the local run's."""
    args = ["tournament", "--bots", "greedy,random,random,random", "--games", "8", "--seed", "5", "--with-records", "--json"]
    env = os.environ | {"PYTHONPATH": str(ROOT)}
    env.pop("RAY_ADDRESS", None)
    if how == "--ray-address":
        where = ["--ray-address", cluster.address]
    else:
        where = ["--ray"]
        env["RAY_ADDRESS"] = cluster.address
    res = subprocess.run(
        [sys.executable, "-m", "kardinal.cli", *args, *where, "--out", str(tmp_path / "there.jsonl")],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
    )
    assert res.returncode == 0, res.stderr
    data = json.loads(res.stdout)
    assert data["games"] == 8
    nodes = res.stderr.split("games per Ray node: ")[1].splitlines()[0].split(", ")
    assert len(nodes) == 2  # both nodes played games
    here = runner.invoke(app, [*args, "--workers", "1", "--out", str(tmp_path / "here.jsonl")])
    assert here.exit_code == 0, here.output
    assert without_times(data) == without_times(json.loads(here.stdout))
    assert file_games(tmp_path / "there.jsonl") == file_games(tmp_path / "here.jsonl")


def test_a_games_error_on_a_node_is_raised_as_the_local_run_raises_it(cluster: Cluster) -> None:
    """A job's own error (a bot's illegal move is a BotError) comes back as itself, not
    wrapped in Ray's; the games still running are cancelled."""
    engine = RayEngine()
    with pytest.raises(ValueError, match="invalid literal for int"):
        list(engine.map_unordered(int, ["1", "2", "x", "4"]))
    assert sorted(engine.map_unordered(int, ["1", "2", "3"])) == [1, 2, 3]
