"""The board as JSON for the browser, with a map layout computed from the board data.

How the map is made (everything from the board file, so a user's board gets a map too):

- Sites are projected from (lat, lon) (equirectangular, scaled by the cosine of the mean
  latitude).
- **Land** is a smooth union of discs around the sites (a soft minimum of the distances,
  so neighbouring discs merge without notches) and of strips along the roads, with a
  coastline roughened by a little deterministic noise. Where the sites of two groups that
  no road joins (England and the continent) come close, a channel of sea is cut along
  the bisector, so an island stays an island.
- **Countries** are Voronoi cells of the sites *and of their roads* (a road inside a
  country belongs to it; a road across a border to each end up to its middle), clipped to
  the land. Growing the cells from the roads too keeps every road-connected country one
  piece: every point of a cell sees its nearest road or site along a straight line inside
  the cell. Each country is then kept as the one 4-connected piece of a raster that holds
  its sites; stray bits become sea, and lakes are filled from the land around them.
- The raster's boundaries are traced into chains between junctions and each chain is
  smoothed once, so two countries share exactly the same border line (no gaps, no
  overlaps) and the coastline comes out as its own set of lines.
- Coats of arms go where the country has the most room near its middle, clear of the
  sites and their names; land alliances sit on the border of their two countries, sea
  alliances on open water between the two coasts, with the sea route drawn to each (an
  alliance of two countries that do not touch gets a link to each as well). The key goes
  in the corner with the most open sea.

Pure Python, no numeric or geometry library (the web extra needs nothing new): the raster
of 6-px cells costs about 0.6 s per board on a loaded 2-core machine, and
:func:`named_board_json` keeps one per process (the server computes the standard board as
it starts).
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from kardinal.rules.board import Board, get_board

from .mapraster import CELL_DISC, CIRCLE, GRID, LEGEND, MARGIN, SCALE, SEA, Box, Point, Raster, clip

__all__ = ["board_json", "named_board_json", "layout", "COUNTRY_COLOURS", "SEA_COLOUR", "contrast"]


def _overlap(a: Box, b: Box) -> float:
    w = min(a[2], b[2]) - max(a[0], b[0])
    h = min(a[3], b[3]) - max(a[1], b[1])
    return w * h if w > 0 and h > 0 else 0.0


def _labels(board: Board, pts: list[Point]) -> tuple[list[tuple[float, float, str]], list[Box]]:
    """Site names to the right, left, above or below, wherever they overlap least."""
    dots: list[Box] = [(x - 11, y - 11, x + 11, y + 11) for x, y in pts]
    boxes: list[Box] = []
    placed: dict[int, tuple[float, float, str]] = {}
    for i in sorted(range(len(pts)), key=lambda i: pts[i][0]):
        x, y = pts[i]
        w = 7.0 * len(board.sites[i].name) + 4
        cands = [
            ((x + 14, y - 8, x + 14 + w, y + 6), (x + 14, y + 4, "start")),
            ((x - 14 - w, y - 8, x - 14, y + 6), (x - 14, y + 4, "end")),
            ((x - w / 2, y - 27, x + w / 2, y - 13), (x, y - 15, "middle")),
            ((x - w / 2, y + 13, x + w / 2, y + 27), (x, y + 25, "middle")),
        ]
        best = min(cands, key=lambda c: sum(_overlap(c[0], b) for b in boxes + dots) + (0 if c is cands[0] else 1))
        boxes.append(best[0])
        placed[i] = best[1]
    return [placed[i] for i in range(len(pts))], boxes + dots


def layout(board: Board) -> dict[str, Any]:
    """Projected coordinates and shapes (px) of the board's sites, countries, coast and markers."""
    lats = [s.lat for s in board.sites]
    lons = [s.lon for s in board.sites]
    k = math.cos(math.radians((max(lats) + min(lats)) / 2))
    x0, y0 = min(lons), max(lats)
    pts: list[Point] = [(MARGIN + (s.lon - x0) * k * SCALE, MARGIN + (y0 - s.lat) * SCALE) for s in board.sites]
    width = max(p[0] for p in pts) + MARGIN
    height = max(p[1] for p in pts) + MARGIN
    n = len(board.countries)

    R = Raster(board, pts, width, height)
    rings, chains = R.trace(n)
    room = R.room()
    label_xy, boxes = _labels(board, pts)

    def centre(i: int, j: int) -> Point:
        return ((i + 0.5) * GRID, (j + 0.5) * GRID)

    cells_of: list[list[tuple[int, int]]] = [[] for _ in range(n)]
    for j in range(0, R.ny, 2):
        for i in range(0, R.nx, 2):
            if R.lab[j][i] != SEA:
                cells_of[R.lab[j][i]].append((i, j))

    # coats of arms: on the country's land with room around, clear of sites and names, near its middle
    coats: list[Point] = []
    for c in board.countries:
        half = max(24.0, 4.6 * max(len(c.name_de), len(c.name_en)))  # the name above the shield
        cx = sum(pts[s][0] for s in c.sites) / len(c.sites)
        cy = sum(pts[s][1] for s in c.sites) / len(c.sites)
        mine = cells_of[c.index]
        x0, x1 = min(i for i, _ in mine) * GRID - half, max(i for i, _ in mine) * GRID + half + GRID
        y0, y1 = min(j for _, j in mine) * GRID - 48, max(j for _, j in mine) * GRID + 48
        near = [b for b in boxes if b[2] > x0 and b[0] < x1 and b[3] > y0 and b[1] < y1]
        best: tuple[float, Point] | None = None
        for i, j in mine:
            x, y = centre(i, j)
            score = -math.dist((x, y), (cx, cy)) * 1.5 + 4 * min(room[j][i], 30)
            if best is not None and score <= best[0]:
                continue  # clashes only lower a score
            box = (x - half, y - 48, x + half, y + 36)
            score -= sum(_overlap(box, b) for b in near) + sum(6000 for q in coats if math.dist(q, (x, y)) < 80)
            if best is None or score > best[0]:
                best = (score, (x, y))
        coats.append(best[1] if best else (cx, cy))
        boxes.append((coats[-1][0] - half, coats[-1][1] - 48, coats[-1][0] + half, coats[-1][1] + 36))

    # cells by label, and each country's coast (its cells beside the open sea)
    coast_cells: list[list[Point]] = [[] for _ in range(n)]
    for j in range(R.ny):
        for i in range(R.nx):
            lab = R.lab[j][i]
            if lab != SEA and any(R.label(u, v) == SEA for u, v in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1))):
                coast_cells[lab].append(centre(i, j))

    borders: dict[tuple[int, int], list[Point]] = {}  # the midpoints of the cell sides between two countries
    for j in range(R.ny):
        for i in range(R.nx):
            a = R.lab[j][i]
            if a == SEA:
                continue
            for u, v, mid in ((i + 1, j, (i * GRID + GRID, (j + 0.5) * GRID)), (i, j + 1, ((i + 0.5) * GRID, j * GRID + GRID))):
                b = R.label(u, v)
                if b != SEA and b != a:
                    borders.setdefault((min(a, b), max(a, b)), []).append(mid)

    markers: list[Point] = []
    routes: list[list[list[float]]] = []
    for al in board.alliances:
        ka, kb = al.countries
        cand: list[tuple[float, Point]] = []
        route: list[Point] = []
        if al.across == "sea" and coast_cells[ka] and coast_cells[kb]:
            ca, cb = coast_cells[ka][::4], coast_cells[kb][::4]
            xs = [p[0] for p in ca + cb]
            ys = [p[1] for p in ca + cb]
            for j in range(0, R.ny, 2):
                for i in range(0, R.nx, 2):
                    x, y = centre(i, j)
                    if R.lab[j][i] != SEA or room[j][i] < 17 or not (min(xs) - 90 < x < max(xs) + 90 and min(ys) - 90 < y < max(ys) + 90):
                        continue
                    da = min(math.dist((x, y), p) for p in ca)
                    db = min(math.dist((x, y), p) for p in cb)
                    cand.append((da + db + 0.4 * abs(da - db), (x, y)))
        else:
            cand = [(0.0, p) for p in borders.get((min(ka, kb), max(ka, kb)), [])]
            if cand:  # prefer the middle of their border
                mx = sum(p[0] for _, p in cand) / len(cand)
                my = sum(p[1] for _, p in cand) / len(cand)
                cand = [(math.dist(p, (mx, my)), p) for _, p in cand]
        ends: tuple[Point, Point] | None = None
        if not cand:  # two countries apart (by land): the marker between their nearest points, linked to each
            pa, pb = min(
                ((centre(*u), centre(*v)) for u in cells_of[ka] for v in cells_of[kb]),
                key=lambda e: math.dist(*e),
                default=(coats[ka], coats[kb]),
            )
            ends = (pa, pb)
            L = math.dist(pa, pb) or 1.0
            nx_, ny_ = -(pb[1] - pa[1]) / L, (pb[0] - pa[0]) / L
            for t in (0.3, 0.4, 0.5, 0.6, 0.7):
                for off in (0.0, -18.0, 18.0, -34.0, 34.0):
                    q = (pa[0] + t * (pb[0] - pa[0]) + off * nx_, pa[1] + t * (pb[1] - pa[1]) + off * ny_)
                    room_m = min((math.dist(q, m) for m in markers), default=80.0)
                    room_s = min(math.dist(q, p) for p in pts)
                    cand.append((abs(t - 0.5) * 30 + abs(off) * 0.4 - min(room_m, 80.0) - 0.5 * min(room_s, 50.0), q))
        cand.sort()
        chosen = None
        for _, q in cand:
            mb = (q[0] - 13, q[1] - 13, q[0] + 13, q[1] + 13)
            if (
                all(math.dist(q, m) >= 34 for m in markers)
                and all(math.dist(q, p) >= 24 for p in pts)
                and sum(_overlap(mb, bx) for bx in boxes) < 30
            ):
                chosen = q
                break
        q = chosen or cand[0][1]
        markers.append(q)
        boxes.append((q[0] - 13, q[1] - 13, q[0] + 13, q[1] + 13))
        if ends:
            route = [ends[0], q, ends[1]]
        elif al.across == "sea" and coast_cells[ka] and coast_cells[kb]:
            route = [min(coast_cells[ka], key=lambda p: math.dist(p, q)), q, min(coast_cells[kb], key=lambda p: math.dist(p, q))]
        routes.append([[r1(x), r1(y)] for x, y in route])

    # the legend: in the corner of the map with the most open sea
    lw, lh = LEGEND
    corners = [(8.0, 8.0), (width - lw - 8, 8.0), (8.0, height - lh - 8), (width - lw - 8, height - lh - 8)]

    def crowd(c: Point) -> float:
        box = (c[0], c[1], c[0] + lw, c[1] + lh)
        land = sum(
            1
            for j in range(R.ny)
            for i in range(R.nx)
            if R.lab[j][i] != SEA and box[0] <= (i + 0.5) * GRID <= box[2] and box[1] <= (j + 0.5) * GRID <= box[3]
        )
        return (
            land * 1000
            + sum(_overlap(box, b) for b in boxes)
            + sum(1000 for m in markers if box[0] - 16 <= m[0] <= box[2] + 16 and box[1] - 16 <= m[1] <= box[3] + 16)
        )

    legend = min(corners, key=crowd)

    # each site's own cell: its Voronoi cell among the sites, cut off at CELL_DISC (a catchment)
    cells: list[list[Point]] = []
    for i, p in enumerate(pts):
        poly = [
            (p[0] + CELL_DISC * math.cos(2 * math.pi * t / CIRCLE), p[1] + CELL_DISC * math.sin(2 * math.pi * t / CIRCLE))
            for t in range(CIRCLE)
        ]
        for j, q in enumerate(pts):
            d = math.dist(p, q)
            if i == j or d == 0 or d >= 2 * CELL_DISC:
                continue
            poly = clip(poly, ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2), ((q[0] - p[0]) / d, (q[1] - p[1]) / d))
            if not poly:
                break
        cells.append(poly)

    def line(points: list[Point]) -> list[list[float]]:
        return [[r1(x), r1(y)] for x, y in points]

    return {
        "width": r1(width),
        "height": r1(height),
        "sites": [[r1(x), r1(y)] for x, y in pts],
        "cells": [line(poly) for poly in cells],
        "regions": [[line(ring) for ring in rs] for rs in rings],
        "coast": [line(p) for a, b, p in chains if SEA in (a, b)],
        "borders": [line(p) for a, b, p in chains if SEA not in (a, b)],
        "coats": [[r1(x), r1(y)] for x, y in coats],
        "alliances": [[r1(x), r1(y)] for x, y in markers],
        "routes": routes,
        "labels": [[r1(x), r1(y), anchor] for x, y, anchor in label_xy],
        "legend": [r1(legend[0]), r1(legend[1])],
    }


def r1(v: float) -> float:
    return round(v, 1)


# ---------------------------------------------------------------- colours

# Fill colours of the countries, in board order: presentation, not rules, so not in the
# board file (whose digest records keep). Neighbours differ in hue; every fill is light
# enough for at least 3:1 against the sea and for dark outlines and names on top.
COUNTRY_COLOURS = ("#f2c9c4", "#f3dc8f", "#d9d0f2", "#cfe6b0", "#ead7b1", "#c6d6f3", "#bfe4dc", "#f6cba2", "#efc2d3")
SEA_COLOUR = "#35648c"


def _lum(hex_colour: str) -> float:
    h = hex_colour.lstrip("#")
    rgb = [int(h[i : i + 2], 16) / 255 for i in (0, 2, 4)]
    lin = [c / 12.92 if c <= 0.04045 else ((c + 0.055) / 1.055) ** 2.4 for c in rgb]
    return 0.2126 * lin[0] + 0.7152 * lin[1] + 0.0722 * lin[2]


def contrast(a: str, b: str) -> float:
    """The WCAG 2 contrast ratio of two colours "#rrggbb" (1 to 21)."""
    la, lb = sorted((_lum(a), _lum(b)), reverse=True)
    return (la + 0.05) / (lb + 0.05)


def board_json(board: Board) -> dict[str, Any]:
    """Everything the browser draws and names, with the layout."""
    lay = layout(board)
    return {
        "id": board.id,
        "name": board.name,
        "about": board.about,
        "reconstruction": board.reconstruction,
        "width": lay["width"],
        "height": lay["height"],
        "sea": SEA_COLOUR,
        "legend": lay["legend"],
        "coast": lay["coast"],
        "borders": lay["borders"],
        "cards": [
            {"id": k.id, "short": k.short, "countries": [board.countries[c].id for c in k.countries], "count": k.count} for k in board.cards
        ],
        "countries": [
            {
                "id": c.id,
                "name_de": c.name_de,
                "name_en": c.name_en,
                "ring": c.ring,
                "colour": COUNTRY_COLOURS[c.index % len(COUNTRY_COLOURS)],
                "sites": [board.sites[s].id for s in c.sites],
                "coat": lay["coats"][c.index],
                "region": lay["regions"][c.index],
            }
            for c in board.countries
        ],
        "sites": [
            {
                "id": s.id,
                "name": s.name,
                "country": board.countries[s.country].id,
                "lat": s.lat,
                "lon": s.lon,
                "xy": lay["sites"][s.index],
                "label": lay["labels"][s.index],
                "cell": lay["cells"][s.index],
            }
            for s in board.sites
        ],
        "roads": [[board.sites[a].id, board.sites[b].id] for a, b in board.roads],
        "alliances": [
            {
                "number": al.number,
                "countries": [board.countries[c].id for c in al.countries],
                "across": al.across,
                "xy": lay["alliances"][i],
                "route": lay["routes"][i],
            }
            for i, al in enumerate(board.alliances)
        ],
        "supply": {"cloisters": board.supply_cloisters, "advisors": board.supply_advisors},
    }


@cache
def named_board_json(name: str) -> dict[str, Any]:
    """:func:`board_json` of a board by name, computed once per process."""
    return board_json(get_board(name))
