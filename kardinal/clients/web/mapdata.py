"""The board as JSON for the browser, with a map layout computed from the board data.

Sites are projected from (lat, lon) (equirectangular, scaled by the cosine of the mean
latitude). Each country is drawn as the union of its sites' cells: a disc around each
site clipped by the perpendicular bisectors to every other site (a Voronoi diagram cut
off at the coast). Between two countries that no road joins the cells keep a gap of
sea, so an island (England) reads as one. Coats of arms go where the country has the
most room; land alliances sit on the border, sea alliances over the nearest water.
Everything is derived from the board file, so a user's board is drawn the same way.
"""

from __future__ import annotations

import math
from functools import cache
from typing import Any

from kardinal.rules.board import Board, get_board

__all__ = ["board_json", "named_board_json", "layout"]

SCALE = 64.0  # px per degree of latitude
MARGIN = 70.0
LAND = 62.0  # radius of land around a site
GAP = 11.0  # half the sea between countries that no road joins
CIRCLE = 40  # vertices of the disc

Point = tuple[float, float]


def _clip(poly: list[Point], a: Point, n: Point, off: float) -> list[Point]:
    """Keep the part of a convex polygon with (p - a) . n <= -off."""

    def side(p: Point) -> float:
        return (p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1] + off

    out: list[Point] = []
    for i, p in enumerate(poly):
        q = poly[(i + 1) % len(poly)]
        sp, sq = side(p), side(q)
        if sp <= 0:
            out.append(p)
        if (sp <= 0) != (sq <= 0):
            t = sp / (sp - sq)
            out.append((p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])))
    return out


def layout(board: Board) -> dict[str, Any]:
    """Projected coordinates and polygons (px) for the board's sites and countries."""
    lats = [s.lat for s in board.sites]
    lons = [s.lon for s in board.sites]
    k = math.cos(math.radians((max(lats) + min(lats)) / 2))
    x0, y0 = min(lons), max(lats)
    pts: list[Point] = [(MARGIN + (s.lon - x0) * k * SCALE, MARGIN + (y0 - s.lat) * SCALE) for s in board.sites]
    width = max(p[0] for p in pts) + MARGIN
    height = max(p[1] for p in pts) + MARGIN
    country_of = [s.country for s in board.sites]
    linked: set[tuple[int, int]] = set()
    for a, b in board.roads:
        ca, cb = country_of[a], country_of[b]
        linked.add((ca, cb))
        linked.add((cb, ca))

    cells: list[list[Point]] = []
    for i, p in enumerate(pts):
        poly = [(p[0] + LAND * math.cos(2 * math.pi * t / CIRCLE), p[1] + LAND * math.sin(2 * math.pi * t / CIRCLE)) for t in range(CIRCLE)]
        for j, q in enumerate(pts):
            if i == j:
                continue
            d = math.dist(p, q)
            if d >= 2 * LAND + 2 * GAP or d == 0:
                continue
            n = ((q[0] - p[0]) / d, (q[1] - p[1]) / d)
            mid = ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2)
            ci, cj = country_of[i], country_of[j]
            off = GAP if ci != cj and (ci, cj) not in linked else 0.0
            poly = _clip(poly, mid, n, off)
            if not poly:
                break
        cells.append(poly)

    step = 8.0
    grid = [
        (MARGIN / 2 + i * step, MARGIN / 2 + j * step)
        for i in range(int((width - MARGIN) / step) + 1)
        for j in range(int((height - MARGIN) / step) + 1)
    ]
    info: list[tuple[float, float, float, int | None]] = []  # x, y, distance to the nearest site, its country
    for x, y in grid:
        bd, bi = math.inf, -1
        for i, p in enumerate(pts):
            d = (p[0] - x) ** 2 + (p[1] - y) ** 2
            if d < bd:
                bd, bi = d, i
        bd = math.sqrt(bd)
        info.append((x, y, bd, country_of[bi] if bd < LAND else None))

    # site labels: to the right, left, above or below, wherever they overlap least
    Box = tuple[float, float, float, float]

    def overlap(a: Box, b: Box) -> float:
        w = min(a[2], b[2]) - max(a[0], b[0])
        h = min(a[3], b[3]) - max(a[1], b[1])
        return w * h if w > 0 and h > 0 else 0.0

    dots: list[Box] = [(x - 8, y - 8, x + 8, y + 8) for x, y in pts]
    labels: list[tuple[float, float, str]] = []
    boxes: list[Box] = []
    order = sorted(range(len(pts)), key=lambda i: pts[i][0])
    placed: dict[int, tuple[float, float, str]] = {}
    for i in order:
        x, y = pts[i]
        w = 7.0 * len(board.sites[i].name) + 4
        cands = [
            ((x + 10, y - 8, x + 10 + w, y + 6), (x + 10, y + 4, "start")),
            ((x - 10 - w, y - 8, x - 10, y + 6), (x - 10, y + 4, "end")),
            ((x - w / 2, y - 24, x + w / 2, y - 10), (x, y - 12, "middle")),
            ((x - w / 2, y + 9, x + w / 2, y + 23), (x, y + 21, "middle")),
        ]
        best_c = min(cands, key=lambda c: sum(overlap(c[0], b) for b in boxes + dots) + (0 if c is cands[0] else 1))
        boxes.append(best_c[0])
        placed[i] = best_c[1]
    labels = [placed[i] for i in range(len(pts))]

    # coats of arms: on the country's land, clear of sites and labels, near its middle
    coats: list[Point] = []
    for c in board.countries:
        cx = sum(pts[s][0] for s in c.sites) / len(c.sites)
        cy = sum(pts[s][1] for s in c.sites) / len(c.sites)
        best: tuple[float, Point] | None = None
        for x, y, d, owner in info:
            if owner != c.index or d > LAND - 12:
                continue
            box = (x - 20, y - 40, x + 20, y + 26)
            clash = sum(overlap(box, b) for b in boxes + dots) + sum(4000 for q in coats if math.dist(q, (x, y)) < 70)
            score = -clash - math.dist((x, y), (cx, cy)) * 2
            if best is None or score > best[0]:
                best = (score, (x, y))
        coats.append(best[1] if best else (cx, cy))
        boxes.append((coats[-1][0] - 20, coats[-1][1] - 40, coats[-1][0] + 20, coats[-1][1] + 26))

    # alliance markers
    markers: list[Point] = []
    for al in board.alliances:
        ka, kb = al.countries
        pa, pb = coats[ka], coats[kb]
        cand: list[tuple[float, Point]] = []
        if al.across == "sea":
            for x, y, d, _owner in info:
                if d < LAND + 14:
                    continue
                cand.append((math.dist((x, y), pa) + math.dist((x, y), pb), (x, y)))
        else:
            for s in board.countries[ka].sites:
                for t in board.countries[kb].sites:
                    mid = ((pts[s][0] + pts[t][0]) / 2, (pts[s][1] + pts[t][1]) / 2)
                    cand.append((math.dist(pts[s], pts[t]), mid))
            if not cand:
                cand.append((0.0, ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)))
        cand.sort()
        chosen = None
        for _, q in cand:
            mb = (q[0] - 12, q[1] - 12, q[0] + 12, q[1] + 12)
            if all(math.dist(q, m) >= 30 for m in markers) and sum(overlap(mb, bx) for bx in boxes + dots) < 20:
                chosen = q
                break
        markers.append(chosen or cand[0][1])
        boxes.append((markers[-1][0] - 12, markers[-1][1] - 12, markers[-1][0] + 12, markers[-1][1] + 12))

    def r1(v: float) -> float:
        return round(v, 1)

    return {
        "width": r1(width),
        "height": r1(height),
        "sites": [[r1(x), r1(y)] for x, y in pts],
        "cells": [[[r1(x), r1(y)] for x, y in poly] for poly in cells],
        "coats": [[r1(x), r1(y)] for x, y in coats],
        "alliances": [[r1(x), r1(y)] for x, y in markers],
        "labels": [[r1(x), r1(y), anchor] for x, y, anchor in labels],
    }


# Fill colours of the countries, in board order: presentation, not rules, so not in the
# board file (whose digest records keep). Light enough for dark pieces on top.
COUNTRY_COLOURS = ("#e9d8b4", "#efe19a", "#bcd9ee", "#cfe5b5", "#f1c39f", "#c7cdef", "#e6c3de", "#f3d0a9", "#d9c7a7")


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
            }
            for i, al in enumerate(board.alliances)
        ],
        "supply": {"cloisters": board.supply_cloisters, "advisors": board.supply_advisors},
    }


@cache
def named_board_json(name: str) -> dict[str, Any]:
    """:func:`board_json` of a board by name, computed once per process."""
    return board_json(get_board(name))
