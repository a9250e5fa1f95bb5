"""The command line: board, selfplay -> replay round trip, score, errors and exit codes,
custom board files (--board)."""

from __future__ import annotations

import copy
import json
import subprocess
import sys
from importlib import resources
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from kardinal.cli import app

DATA = Path(__file__).parent / "data"
KARDINAL = Path(sys.executable).parent / "kardinal"
runner = CliRunner()


def run(*args: str) -> Any:
    return runner.invoke(app, [str(a) for a in args])


def no_traceback(res: Any) -> None:
    assert "Traceback" not in res.stdout and "Traceback" not in res.stderr
    assert res.exception is None or isinstance(res.exception, SystemExit)


# -- board --------------------------------------------------------------------------------------


def test_board_says_it_is_a_reconstruction() -> None:
    res = run("board")
    assert res.exit_code == 0
    assert "reconstruction" in res.stdout.lower()
    assert "Verona" in res.stdout and "Alliances" in res.stdout


# -- selfplay and replay ------------------------------------------------------------------------


@pytest.mark.parametrize("players", [3, 4, 5])
def test_selfplay_record_then_replay_json_round_trips(players: int, tmp_path: Path) -> None:
    f = tmp_path / f"game{players}.json"
    res = run("selfplay", "--players", str(players), "--seed", str(10 + players), "--record", str(f))
    assert res.exit_code == 0, res.stderr
    rec = json.loads(f.read_text(encoding="utf-8"))
    assert rec["format"] == "kardinal-record" and len(rec["players"]) == players
    res = run("replay", str(f), "--json")
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    assert list(out) == ["scores", "winners", "breakdown"]
    assert list(out["breakdown"]) == ["intermediate_cloisters", "final_cloisters", "alliances", "chains"]
    assert out["scores"] == rec["result"]["scores"]
    assert out["winners"] == rec["result"]["winners"]
    bd = out["breakdown"]
    assert [sum(bd[k][p] for k in bd) for p in range(players)] == out["scores"]  # R8.4


def test_selfplay_same_seed_same_game(tmp_path: Path) -> None:
    a, b = tmp_path / "a.json", tmp_path / "b.json"
    assert run("selfplay", "--seed", "5", "--record", str(a)).exit_code == 0
    assert run("selfplay", "--seed", "5", "--record", str(b)).exit_code == 0
    assert a.read_text(encoding="utf-8") == b.read_text(encoding="utf-8")


def test_selfplay_bad_player_count() -> None:
    res = run("selfplay", "--players", "7")
    assert res.exit_code == 2 and "players" in res.stderr
    no_traceback(res)


def test_replay_text_describes_the_game(tmp_path: Path) -> None:
    f = tmp_path / "g.json"
    run("selfplay", "--seed", "3", "--record", str(f))
    res = run("replay", str(f))
    assert res.exit_code == 0
    assert "total" in res.stdout.lower()


@pytest.fixture()
def record_file(tmp_path: Path) -> tuple[Path, dict[str, Any]]:
    f = tmp_path / "g.json"
    assert run("selfplay", "--players", "4", "--seed", "21", "--record", str(f)).exit_code == 0
    return f, json.loads(f.read_text(encoding="utf-8"))


def test_replay_illegal_action_exit_1_with_index_and_rule(record_file: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    _, rec = record_file
    bad = copy.deepcopy(rec)
    # a turn's decision (not a draw) replaced by a pass: refused, R3.1
    i = next(j for j, a in enumerate(rec["actions"]) if j >= 5 and a["act"] in ("place", "exchange"))
    bad["actions"][i] = {"seat": bad["actions"][i]["seat"], "act": "pass"}
    f = tmp_path / "illegal.json"
    f.write_text(json.dumps(bad), encoding="utf-8")
    res = run("replay", str(f), "--json")
    assert res.exit_code == 1
    assert f"action {i}: R3.1" in res.stderr
    assert res.stdout == ""
    no_traceback(res)


def test_replay_wrong_seat_exit_1(record_file: tuple[Path, dict[str, Any]], tmp_path: Path) -> None:
    _, rec = record_file
    bad = copy.deepcopy(rec)
    bad["actions"][0]["seat"] = 2
    f = tmp_path / "seat.json"
    f.write_text(json.dumps(bad), encoding="utf-8")
    res = run("replay", str(f))
    assert res.exit_code == 1 and "action 0" in res.stderr and "R3" in res.stderr


@pytest.mark.parametrize(
    "content, words",
    [
        ("{not json", "not valid JSON"),
        ("[]", "JSON object"),
        ('{"format": "kardinal-record"}', "version"),
        ('{"format": "kardinal-record", "version": 1, "players": ["a", "b", "c"], "deck": ["x"], "actions": []}', "unknown card kind"),
    ],
)
def test_replay_malformed_exit_2_no_traceback(content: str, words: str, tmp_path: Path) -> None:
    f = tmp_path / "bad.json"
    f.write_text(content, encoding="utf-8")
    res = run("replay", str(f), "--json")
    assert res.exit_code == 2
    assert "malformed record" in res.stderr and words in res.stderr
    no_traceback(res)


def test_replay_missing_file_exit_2(tmp_path: Path) -> None:
    res = run("replay", str(tmp_path / "nope.json"))
    assert res.exit_code == 2 and "cannot read" in res.stderr
    no_traceback(res)


def test_subprocess_exit_codes_and_no_traceback(tmp_path: Path) -> None:
    """The installed console script, end to end."""
    if not KARDINAL.exists():
        pytest.skip("console script not installed next to this interpreter")
    f = tmp_path / "g.json"
    p = subprocess.run(
        [str(KARDINAL), "selfplay", "--players", "3", "--seed", "1", "--record", str(f)], capture_output=True, text=True, timeout=120
    )
    assert p.returncode == 0, p.stderr
    p = subprocess.run([str(KARDINAL), "replay", str(f), "--json"], capture_output=True, text=True, timeout=120)
    assert p.returncode == 0 and json.loads(p.stdout)["scores"] == json.loads(f.read_text())["result"]["scores"]
    bad = tmp_path / "bad.json"
    bad.write_text("{oops", encoding="utf-8")
    p = subprocess.run([str(KARDINAL), "replay", str(bad)], capture_output=True, text=True, timeout=120)
    assert p.returncode == 2 and "malformed record" in p.stderr and "Traceback" not in p.stderr


# -- score --------------------------------------------------------------------------------------


def score_json(*args: str) -> dict[str, Any]:
    res = run("score", *args, "--json")
    assert res.exit_code == 0, res.stderr
    out = json.loads(res.stdout)
    assert list(out) == ["cloisters", "alliances", "chains", "total"]
    return out


def test_score_R9_4_franken() -> None:
    assert score_json(str(DATA / "r9_4_franken.json")) == {
        "cloisters": [7, 4, 2, 0],
        "alliances": [0, 0, 0, 0],
        "chains": [0, 0, 0, 0],
        "total": [7, 4, 2, 0],
    }


def test_score_R10_4_alliances() -> None:
    out = score_json(str(DATA / "r10_4_alliances.json"))
    assert out["alliances"] == [6, 0, 0, 0]
    assert out["total"] == [6, 0, 0, 9]


def test_score_R11_4_chain() -> None:
    out = score_json(str(DATA / "r11_4_chain.json"))
    assert out["chains"] == [0, 0, 5]
    assert out["total"] == [0, 0, 11]


def test_score_text_output() -> None:
    res = run("score", str(DATA / "r9_4_franken.json"))
    assert res.exit_code == 0 and "Franken" in res.stdout


@pytest.mark.parametrize(
    "content, words",
    [
        ("{bad", "not valid JSON"),
        ('{"format": "kardinal-position", "version": 1, "players": 3, "cloisters": {"rom": 0}}', "unknown site 'rom'"),
        ('{"format": "kardinal-position", "version": 1, "players": 3, "advisors": {"italien": [1, 0, 0]}}', "R4.8"),
    ],
)
def test_score_malformed_exit_2(content: str, words: str, tmp_path: Path) -> None:
    f = tmp_path / "pos.json"
    f.write_text(content, encoding="utf-8")
    res = run("score", str(f), "--json")
    assert res.exit_code == 2 and words in res.stderr
    no_traceback(res)


# -- custom boards ------------------------------------------------------------------------------


def board_text() -> str:
    return resources.files("kardinal.rules").joinpath("data/reconstruction-1.toml").read_text(encoding="utf-8")


def five_lothringen(tmp_path: Path) -> Path:
    text = board_text().replace('"reconstruction-1"', '"five-lothringen"').replace("reconstruction = true", "reconstruction = false")
    text += '\n[[sites]]\nid = "luettich"\ncountry = "lothringen"\nname = "Lüttich"\nlat = 50.63\nlon = 5.57\n'
    text += "\n"
    p = tmp_path / "five.toml"
    p.write_text(text.replace('  ["brixen", "verona"],\n', '  ["brixen", "verona"],\n  ["luettich", "aachen"],\n'), encoding="utf-8")
    return p


def test_custom_board_file_works_everywhere(tmp_path: Path) -> None:
    bfile = five_lothringen(tmp_path)
    res = run("board", "--board", str(bfile))
    assert res.exit_code == 0 and "Lüttich" in res.stdout and "five-lothringen" in res.stdout
    # R9.4 Lothringen: red 2, purple 2, blue 1 -> 5, 5, 2 (needs 5 Lothringen sites)
    pos = tmp_path / "lo.json"
    pos.write_text(
        json.dumps(
            {
                "format": "kardinal-position",
                "version": 1,
                "players": 3,
                "cloisters": {"aachen": 0, "trier": 0, "koeln": 1, "metz": 1, "luettich": 2},
            }
        ),
        encoding="utf-8",
    )
    out = score_json(str(pos), "--board", str(bfile))
    assert out["cloisters"] == [5, 5, 2]
    # a game on it is recorded with the board's id and digest (no file path), and replays with the board file
    rec = tmp_path / "g.json"
    res = run("selfplay", "--players", "4", "--seed", "2", "--record", str(rec), "--board", str(bfile))
    assert res.exit_code == 0, res.stderr
    data = json.loads(rec.read_text(encoding="utf-8"))
    assert data["board"] == "five-lothringen" and data["board_digest"].startswith("sha256:")
    assert str(tmp_path) not in rec.read_text(encoding="utf-8")
    res = run("replay", str(rec), "--json")
    assert res.exit_code == 2 and "give its board file (--board FILE)" in res.stderr
    res = run("replay", str(rec), "--json", "--board", str(bfile))
    assert res.exit_code == 0 and json.loads(res.stdout)["scores"] == data["result"]["scores"]


BROKEN = [
    ('["brixen", "verona"]', '["brixen", "rom"]', "unknown site 'rom'"),
    ('countries = ["italien", "burgund"]', 'countries = ["italien", "byzanz"]', "unknown country 'byzanz'"),
    ('id = "wien"', 'id = "passau"', "duplicate id 'passau'"),
    ('country = "aragon"', 'country = "kastilien"', "unknown country 'kastilien'"),
    ('id = "frankreich"\nname_de', 'id = "england"\nname_de', "duplicate country id 'england'"),
]


@pytest.mark.parametrize("old, new, words", BROKEN, ids=[b[2] for b in BROKEN])
def test_broken_board_file_clear_error_naming_the_key(old: str, new: str, words: str, tmp_path: Path) -> None:
    text = board_text()
    assert old in text
    p = tmp_path / "broken.toml"
    p.write_text(text.replace(old, new, 1), encoding="utf-8")
    for args in (
        ["board", "--board", str(p)],
        ["selfplay", "--board", str(p)],
        ["score", str(DATA / "r9_4_franken.json"), "--board", str(p)],
    ):
        res = run(*args)
        assert res.exit_code == 2, args
        assert "error" in res.stderr and words in res.stderr, res.stderr
        no_traceback(res)


def test_country_without_sites_board_error(tmp_path: Path) -> None:
    text = board_text() + '\n[[countries]]\nid = "thule"\nname_de = "Thule"\nname_en = "Thule"\nring = "outer"\n'
    p = tmp_path / "thule.toml"
    p.write_text(text, encoding="utf-8")
    res = run("board", "--board", str(p))
    assert res.exit_code == 2 and "thule" in res.stderr and "without cloister sites" in res.stderr


def test_missing_board_file(tmp_path: Path) -> None:
    res = run("board", "--board", str(tmp_path / "none.toml"))
    assert res.exit_code == 2 and "cannot read board file" in res.stderr
    no_traceback(res)
