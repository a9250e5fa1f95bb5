"""The browser's map, computed from the board data (kardinal/server/web/mapdata.py): every
country one piece where its roads join its sites, every site on its own country, no two
countries on top of each other, islands apart, markers where they belong, and colours with
at least 3:1 contrast (WCAG 2) where one sits on another."""

from __future__ import annotations

import math
import random
import re
import time
from functools import cache
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("fastapi")

from kardinal.rules.board import Board, get_board, load_board  # noqa: E402
from kardinal.server.web.mapdata import COUNTRY_COLOURS, SEA_COLOUR, board_json, contrast  # noqa: E402
from kardinal.server.web.mapraster import GAP  # noqa: E402

STATIC = Path(__file__).resolve().parent.parent / "kardinal" / "clients" / "web" / "static"
Ring = list[list[float]]


def custom_board(tmp: Path) -> Board:
    """A user's board: the standard one with every site moved a little, under an id of its own."""
    from importlib import resources

    text = resources.files("kardinal.rules").joinpath("data/standard.toml").read_text(encoding="utf-8")
    text = text.replace('id = "standard"', 'id = "moved-test"', 1)
    rng = random.Random(7)

    def move(m: re.Match[str]) -> str:
        return f"{m.group(1)}{float(m.group(2)) + rng.uniform(-0.35, 0.35):.2f}"

    text = re.sub(r"^((?:lat|lon) = )(-?[0-9.]+)", move, text, flags=re.M)
    path = tmp / "moved.toml"
    path.write_text(text, encoding="utf-8")
    return load_board(path)


@cache
def installed(board_id: str) -> tuple[Board, dict[str, Any], float]:
    board = get_board(board_id)
    t = time.perf_counter()
    data = board_json(board)
    return board, data, time.perf_counter() - t


@pytest.fixture(params=["standard", "reconstruction-1", "custom"])
def case(request: pytest.FixtureRequest, tmp_path: Path) -> tuple[Board, dict[str, Any]]:
    if request.param == "custom":
        board = custom_board(tmp_path)
        return board, board_json(board)
    board, data, _ = installed(request.param)
    return board, data


def inside(p: list[float] | tuple[float, float], ring: Ring) -> bool:
    x, y = p
    odd = False
    for (x1, y1), (x2, y2) in zip(ring, ring[1:] + ring[:1]):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            odd = not odd
    return odd


def in_region(p: list[float] | tuple[float, float], rings: list[Ring]) -> bool:
    return sum(inside(p, r) for r in rings) % 2 == 1  # even-odd, as the SVG path is filled


def seg_dist(p: list[float], a: list[float], b: list[float]) -> float:
    dx, dy = b[0] - a[0], b[1] - a[1]
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((p[0] - a[0]) * dx + (p[1] - a[1]) * dy) / L))
    return math.hypot(p[0] - a[0] - t * dx, p[1] - a[1] - t * dy)


def road_connected(board: Board, country: int) -> bool:
    sites = set(board.countries[country].sites)
    start = next(iter(sites))
    seen, todo = {start}, [start]
    while todo:
        a = todo.pop()
        for x, y in board.roads:
            for u, v in ((x, y), (y, x)):
                if u == a and v in sites and v not in seen:
                    seen.add(v)
                    todo.append(v)
    return seen == sites


def test_each_country_is_one_region_holding_its_sites(case: tuple[Board, dict[str, Any]]) -> None:
    board, b = case
    for c, cj in zip(board.countries, b["countries"]):
        rings = cj["region"]
        outer = [r for r in rings if not any(inside(r[0], o) for o in rings if o is not r)]
        if road_connected(board, c.index):
            assert len(outer) == 1, f"{c.id} falls into {len(outer)} pieces"
        for sid in cj["sites"]:
            s = next(x for x in b["sites"] if x["id"] == sid)
            assert in_region(s["xy"], rings), f"{sid} is not on {c.id}"
            for other in b["countries"]:
                if other is not cj:
                    assert not in_region(s["xy"], other["region"]), f"{sid} is also on {other['id']}"


def test_countries_do_not_overlap(case: tuple[Board, dict[str, Any]]) -> None:
    _, b = case
    on_land = 0
    for x in range(3, int(b["width"]), 9):
        for y in range(5, int(b["height"]), 9):
            n = sum(in_region((x + 0.37, y + 0.61), c["region"]) for c in b["countries"])
            assert n <= 1, f"({x}, {y}) lies in {n} countries"
            on_land += n
    assert on_land > 1000  # the map is not empty


def test_an_island_stays_an_island(case: tuple[Board, dict[str, Any]]) -> None:
    """England (no road leaves it) is cut off from every other country by sea."""
    board, b = case
    eng = next(c for c in b["countries"] if c["id"] == "england")
    pts = [p for r in eng["region"] for p in r]
    for other in b["countries"]:
        if other is eng:
            continue
        gap = min(math.dist(p, q) for r in other["region"] for q in r for p in pts)
        assert gap >= GAP, f"England is {gap:.1f} px from {other['id']}"


def test_markers_sit_where_they_belong(case: tuple[Board, dict[str, Any]]) -> None:
    """Land alliances on the border of their two countries, sea alliances on the water with a
    route to each coast; coats of arms on their own country; nothing outside the map."""
    _, b = case
    regions = {c["id"]: c["region"] for c in b["countries"]}

    def dist_to(p: list[float], rings: list[Ring]) -> float:
        if in_region(p, rings):
            return 0.0
        return min(seg_dist(p, q, w) for r in rings for q, w in zip(r, r[1:] + r[:1]))

    for c in b["countries"]:
        assert in_region(c["coat"], c["region"]), c["id"]
    for a in b["alliances"]:
        x, y = a["xy"]
        assert 0 < x < b["width"] and 0 < y < b["height"]
        if a["across"] == "land" and not a["route"]:
            assert all(dist_to(a["xy"], regions[c]) < 8 for c in a["countries"]), a
        elif a["across"] == "land":  # two countries that do not touch: a link to each
            assert dist_to(a["route"][0], regions[a["countries"][0]]) < 8 and dist_to(a["route"][2], regions[a["countries"][1]]) < 8
        else:
            assert not any(in_region(a["xy"], r) for r in regions.values()), a
            assert len(a["route"]) == 3
    marks = [a["xy"] for a in b["alliances"]]
    assert all(math.dist(p, q) > 20 for i, p in enumerate(marks) for q in marks[i + 1 :])


def player_colours() -> list[str]:
    text = (STATIC / "dom.js").read_text(encoding="utf-8")
    m = re.search(r"PLAYER_COLOURS = Object\.freeze\(\[([^\]]*)\]", text)
    assert m
    return re.findall(r"#[0-9a-fA-F]{6}", m.group(1))


def js_constant(name: str) -> str:
    m = re.search(name + r' = "(#[0-9a-fA-F]{6})"', (STATIC / "dom.js").read_text(encoding="utf-8"))
    assert m, name
    return m.group(1)


def test_colours_have_contrast() -> None:
    """WCAG 2 contrast of at least 3:1: every country against the sea; every piece against the
    country it stands on (its dark outline gives that: each player's colour is at least 3:1
    against the outline) and each player's mark against the player's colour."""
    outline = js_constant("PIECE_OUTLINE")
    fills = list(COUNTRY_COLOURS)
    assert min(contrast(f, SEA_COLOUR) for f in fills) >= 3.0
    assert min(contrast(outline, f) for f in fills) >= 3.0
    for colour in player_colours():
        assert contrast(colour, outline) >= 3.0, colour
        ink = "#1b1b1b" if colour == "#e0b000" else "#ffffff"  # dom.js markInk
        assert contrast(colour, ink) >= 3.0, colour
    # the free sites (a light spot ringed dark) and the alliance markers on the sea
    assert contrast("#e7f3fb", SEA_COLOUR) >= 3.0 and contrast("#fffdf7", outline) >= 3.0


def test_contrast_formula() -> None:
    assert contrast("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)


def test_layout_time_and_size() -> None:
    """The layout of a board costs about a second once per process (the server computes the
    standard board at start); what the page loads stays small."""
    import json

    for board_id in ("standard", "reconstruction-1"):
        _, data, seconds = installed(board_id)
        assert seconds < 8.0, f"{board_id}: {seconds:.2f} s"
        assert len(json.dumps(data)) < 120_000
