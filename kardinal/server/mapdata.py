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
import random
from collections import deque
from functools import cache
from typing import Any

from kardinal.rules.board import Board, get_board

__all__ = ["board_json", "named_board_json", "layout", "COUNTRY_COLOURS", "SEA_COLOUR", "contrast"]

SCALE = 64.0  # px per degree of latitude
MARGIN = 105.0  # sea around the land
GRID = 6.0  # px per raster cell
LAND = 58.0  # land reaches about this far from a site
SOFT = 14.0  # softness of the union of the sites' discs (px)
ROAD_LAND = 34.0  # land on either side of a road
NOISE = 9.0  # amplitude of the coastline's roughness (px)
GAP = 9.0  # half the width of a channel between islands
LEGEND = (196.0, 132.0)  # the legend's box (px)
CELL_DISC = 62.0  # radius of a site's own cell (its catchment, sent as "cell")
CIRCLE = 32

SEA = -1
Point = tuple[float, float]
Box = tuple[float, float, float, float]


# ---------------------------------------------------------------- geometry helpers


def _seg_dist(p: Point, a: Point, b: Point) -> float:
    ax, ay = a
    dx, dy = b[0] - ax, b[1] - ay
    L = dx * dx + dy * dy
    t = 0.0 if L == 0 else max(0.0, min(1.0, ((p[0] - ax) * dx + (p[1] - ay) * dy) / L))
    return math.hypot(p[0] - ax - t * dx, p[1] - ay - t * dy)


def _clip(poly: list[Point], a: Point, n: Point) -> list[Point]:
    """Keep the part of a convex polygon with (p - a) . n <= 0."""

    def side(p: Point) -> float:
        return (p[0] - a[0]) * n[0] + (p[1] - a[1]) * n[1]

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


def _chaikin(pts: list[Point], closed: bool, rounds: int = 2) -> list[Point]:
    """Corner cutting: each round replaces a segment by its quarter points (open ends stay)."""
    for _ in range(rounds):
        if len(pts) < 3:
            return pts
        n = len(pts)
        out: list[Point] = [] if closed else [pts[0]]
        for i in range(n if closed else n - 1):
            p, q = pts[i], pts[(i + 1) % n]
            out.append((0.75 * p[0] + 0.25 * q[0], 0.75 * p[1] + 0.25 * q[1]))
            out.append((0.25 * p[0] + 0.75 * q[0], 0.25 * p[1] + 0.75 * q[1]))
        if not closed:
            out.append(pts[-1])
        pts = out
    return pts


def _simplify(pts: list[Point], eps: float) -> list[Point]:
    """Ramer-Douglas-Peucker on an open polyline (the ends stay)."""
    if len(pts) < 3:
        return pts
    keep = [False] * len(pts)
    keep[0] = keep[-1] = True
    stack = [(0, len(pts) - 1)]
    while stack:
        i, j = stack.pop()
        best, k = 0.0, -1
        for m in range(i + 1, j):
            d = _seg_dist(pts[m], pts[i], pts[j])
            if d > best:
                best, k = d, m
        if k >= 0 and best > eps:
            keep[k] = True
            stack += [(i, k), (k, j)]
    return [p for p, kp in zip(pts, keep) if kp]


def _noise(seed: str, spacing: float) -> Any:
    """Smooth value noise in [-1, 1] on a lattice of this spacing, the same for the same seed."""
    table: dict[tuple[int, int], float] = {}

    def at(i: int, j: int) -> float:
        v = table.get((i, j))
        if v is None:
            v = table[(i, j)] = random.Random(f"{seed}:{i}:{j}").uniform(-1.0, 1.0)
        return v

    def f(x: float, y: float) -> float:
        gx, gy = x / spacing, y / spacing
        i, j = math.floor(gx), math.floor(gy)
        u, v = gx - i, gy - j
        u, v = u * u * (3 - 2 * u), v * v * (3 - 2 * v)
        a = at(i, j) + (at(i + 1, j) - at(i, j)) * u
        b = at(i, j + 1) + (at(i + 1, j + 1) - at(i, j + 1)) * u
        return a + (b - a) * v

    return f


# ---------------------------------------------------------------- the raster


class _Raster:
    """Labels (a country index or SEA) on a grid of GRID-px cells covering the map."""

    def __init__(self, board: Board, pts: list[Point], width: float, height: float) -> None:
        self.nx, self.ny = math.ceil(width / GRID), math.ceil(height / GRID)
        nx, ny = self.nx, self.ny
        country_of = [s.country for s in board.sites]
        comp = _components(len(pts), board.roads)

        # seeds: (a, b, country, component); a site is a segment of length 0
        seeds: list[tuple[Point, Point, int, int]] = [(p, p, country_of[i], comp[i]) for i, p in enumerate(pts)]
        roads: list[tuple[Point, Point]] = []
        for a, b in board.roads:
            pa, pb = pts[a], pts[b]
            roads.append((pa, pb))
            if country_of[a] == country_of[b]:
                seeds.append((pa, pb, country_of[a], comp[a]))
            else:
                mid = ((pa[0] + pb[0]) / 2, (pa[1] + pb[1]) / 2)
                seeds.append((pa, mid, country_of[a], comp[a]))
                seeds.append((pb, mid, country_of[b], comp[b]))
        reach = LAND + NOISE + 3 * SOFT
        bucket = 40.0
        buckets: dict[tuple[int, int], list[int]] = {}
        for k, (sa, sb, _c, _m) in enumerate(seeds):
            x0, x1 = min(sa[0], sb[0]) - reach, max(sa[0], sb[0]) + reach
            y0, y1 = min(sa[1], sb[1]) - reach, max(sa[1], sb[1]) + reach
            for bi in range(int(x0 // bucket), int(x1 // bucket) + 1):
                for bj in range(int(y0 // bucket), int(y1 // bucket) + 1):
                    buckets.setdefault((bi, bj), []).append(k)

        rough = _noise(f"{board.id}:coast", 46.0)
        fine = _noise(f"{board.id}:coast2", 17.0)
        # per seed: start, direction, squared length, country, component (precomputed for speed)
        segs = [(a[0], a[1], b[0] - a[0], b[1] - a[1], (b[0] - a[0]) ** 2 + (b[1] - a[1]) ** 2, c, m) for a, b, c, m in seeds]
        many = len(set(comp)) > 1
        lab = [[SEA] * nx for _ in range(ny)]
        near = [[SEA] * nx for _ in range(ny)]  # nearest seed's country, land or not
        exp, hypot, inf = math.exp, math.hypot, math.inf
        for j in range(ny):
            y = (j + 0.5) * GRID
            row, nrow = lab[j], near[j]
            by = int(y // bucket)
            for i in range(nx):
                x = (i + 0.5) * GRID
                cand = buckets.get((int(x // bucket), by))
                if not cand:
                    continue
                best, bc, bm = inf, SEA, -1
                expsum = 0.0
                droad = inf
                for k in cand:
                    ax, ay, dx, dy, L, c, m = segs[k]
                    if L == 0:
                        d = hypot(x - ax, y - ay)
                        expsum += exp(-d / SOFT)
                    else:
                        t = ((x - ax) * dx + (y - ay) * dy) / L
                        t = 0.0 if t < 0 else 1.0 if t > 1 else t
                        d = hypot(x - ax - t * dx, y - ay - t * dy)
                        if d < droad:
                            droad = d
                    if d < best:
                        best, bc, bm = d, c, m
                nrow[i] = bc
                soft = -SOFT * math.log(expsum) if expsum > 0 else inf
                if soft > LAND + NOISE and droad > ROAD_LAND + NOISE:
                    continue
                if soft > LAND - NOISE and droad > ROAD_LAND - NOISE:
                    wobble = NOISE * (0.7 * rough(x, y) + 0.3 * fine(x, y))
                    if soft > LAND + wobble and droad > ROAD_LAND + 0.6 * wobble:
                        continue
                if many:  # the channel between two islands
                    d_other = inf
                    for k in cand:
                        ax, ay, dx, dy, L, c, m = segs[k]
                        if m == bm:
                            continue
                        t = 0.0 if L == 0 else max(0.0, min(1.0, ((x - ax) * dx + (y - ay) * dy) / L))
                        d_other = min(d_other, hypot(x - ax - t * dx, y - ay - t * dy))
                    if d_other - best < 2 * GAP:
                        continue
                row[i] = bc
        self.lab, self.near = lab, near
        # the cells of the sites and of the roads inside a country: each country must hold its own
        self.seed_cells: list[set[tuple[int, int]]] = [set() for _ in board.countries]
        for i, p in enumerate(pts):
            cell = self.cell_of(p)
            lab[cell[1]][cell[0]] = country_of[i]
            self.seed_cells[country_of[i]].add(cell)
        self._tidy(len(board.countries))

    def cell_of(self, p: Point) -> tuple[int, int]:
        return min(self.nx - 1, int(p[0] // GRID)), min(self.ny - 1, int(p[1] // GRID))

    def neighbours(self, i: int, j: int) -> list[tuple[int, int]]:
        return [(a, b) for a, b in ((i + 1, j), (i - 1, j), (i, j + 1), (i, j - 1)) if 0 <= a < self.nx and 0 <= b < self.ny]

    def _tidy(self, n: int) -> None:
        """One 4-connected piece per country (the one with its sites), and no lakes."""
        lab = self.lab
        for _ in range(3):
            changed = False
            seen = [[False] * self.nx for _ in range(self.ny)]
            for j in range(self.ny):
                for i in range(self.nx):
                    c = lab[j][i]
                    if seen[j][i] or c == SEA:
                        continue
                    piece = self._flood(i, j, seen)
                    if not any(cell in self.seed_cells[c] for cell in piece):
                        for a, b in piece:
                            lab[b][a] = SEA
                        changed = True
            changed |= self._fill_lakes()
            if not changed:
                break

    def _flood(self, i: int, j: int, seen: list[list[bool]]) -> list[tuple[int, int]]:
        c = self.lab[j][i]
        seen[j][i] = True
        out = [(i, j)]
        q = deque(out)
        while q:
            a, b = q.popleft()
            for u, v in self.neighbours(a, b):
                if not seen[v][u] and self.lab[v][u] == c:
                    seen[v][u] = True
                    out.append((u, v))
                    q.append((u, v))
        return out

    def _fill_lakes(self) -> bool:
        """Sea that does not reach the edge of the map becomes the land around it."""
        lab, nx, ny = self.lab, self.nx, self.ny
        open_sea = [[False] * nx for _ in range(ny)]
        q: deque[tuple[int, int]] = deque()
        for i in range(nx):
            for j in (0, ny - 1):
                if lab[j][i] == SEA and not open_sea[j][i]:
                    open_sea[j][i] = True
                    q.append((i, j))
        for j in range(ny):
            for i in (0, nx - 1):
                if lab[j][i] == SEA and not open_sea[j][i]:
                    open_sea[j][i] = True
                    q.append((i, j))
        while q:
            a, b = q.popleft()
            for u, v in self.neighbours(a, b):
                if lab[v][u] == SEA and not open_sea[v][u]:
                    open_sea[v][u] = True
                    q.append((u, v))
        lakes = [(i, j) for j in range(ny) for i in range(nx) if lab[j][i] == SEA and not open_sea[j][i]]
        if not lakes:
            return False
        # grow the land around each lake into it (so every country stays one piece)
        todo = set(lakes)
        front = deque(cell for cell in lakes if any(lab[v][u] != SEA for u, v in self.neighbours(*cell)))
        while front:
            a, b = front.popleft()
            if (a, b) not in todo:
                continue
            c = next(lab[v][u] for u, v in self.neighbours(a, b) if lab[v][u] != SEA)
            lab[b][a] = c
            todo.discard((a, b))
            for u, v in self.neighbours(a, b):
                if (u, v) in todo:
                    front.append((u, v))
        return True

    def room(self) -> list[list[float]]:
        """For every cell, about how far (px) it is to a cell of another label."""
        lab, nx, ny = self.lab, self.nx, self.ny
        INF = 10**9
        dist = [[INF] * nx for _ in range(ny)]
        q: deque[tuple[int, int]] = deque()
        for j in range(ny):
            for i in range(nx):
                if any(lab[v][u] != lab[j][i] for u, v in self.neighbours(i, j)):
                    dist[j][i] = 0
                    q.append((i, j))
        while q:
            a, b = q.popleft()
            d = dist[b][a] + 1
            for u, v in ((a + 1, b), (a - 1, b), (a, b + 1), (a, b - 1), (a + 1, b + 1), (a - 1, b - 1), (a + 1, b - 1), (a - 1, b + 1)):
                if 0 <= u < nx and 0 <= v < ny and dist[v][u] > d:
                    dist[v][u] = d
                    q.append((u, v))
        return [[(d + 0.5) * GRID for d in row] for row in dist]

    # ------------------------------------------------------------ tracing

    def label(self, i: int, j: int) -> int:
        return self.lab[j][i] if 0 <= i < self.nx and 0 <= j < self.ny else SEA

    def trace(self, n: int) -> tuple[list[list[list[Point]]], list[tuple[int, int, list[Point]]]]:
        """Each country's rings (smoothed, px) and every boundary chain as (label, label, points)."""
        L = self.label

        def is_node(x: int, y: int) -> bool:
            a, b, c, d = L(x - 1, y - 1), L(x, y - 1), L(x, y), L(x - 1, y)  # nw, ne, se, sw
            kinds = {a, b, c, d}
            return len(kinds) >= 3 or (len(kinds) == 2 and a == c and b == d)

        chains: dict[tuple[tuple[int, int], ...], list[Point]] = {}
        pairs: dict[tuple[tuple[int, int], ...], tuple[int, int]] = {}
        rings: list[list[list[Point]]] = [[] for _ in range(n)]
        for c in range(n):
            out: dict[tuple[int, int], list[tuple[int, int]]] = {}
            for j in range(self.ny):
                for i in range(self.nx):
                    if self.lab[j][i] != c:
                        continue
                    # the cell on the right of each edge (y down): top, right, bottom, left
                    if L(i, j - 1) != c:
                        out.setdefault((i, j), []).append((i + 1, j))
                    if L(i + 1, j) != c:
                        out.setdefault((i + 1, j), []).append((i + 1, j + 1))
                    if L(i, j + 1) != c:
                        out.setdefault((i + 1, j + 1), []).append((i, j + 1))
                    if L(i - 1, j) != c:
                        out.setdefault((i, j + 1), []).append((i, j))
            while out:
                start = next(iter(out))
                ring = [start]
                prev, cur = start, out[start].pop()
                if not out[start]:
                    del out[start]
                while cur != start:
                    ring.append(cur)
                    nxt = out[cur]
                    if len(nxt) > 1:  # a pinch: turn right, hugging this cell
                        dx, dy = cur[0] - prev[0], cur[1] - prev[1]
                        right = (cur[0] - dy, cur[1] + dx)
                        k = nxt.index(right) if right in nxt else 0
                    else:
                        k = 0
                    prev, cur = cur, nxt.pop(k)
                    if not nxt:
                        del out[prev]
                rings[c].append(self._smooth_ring(ring, c, is_node, chains, pairs))
        flat = [(a, b, chains[k]) for k, (a, b) in pairs.items()]
        return rings, flat

    def _smooth_ring(
        self,
        ring: list[tuple[int, int]],
        c: int,
        is_node: Any,
        chains: dict[tuple[tuple[int, int], ...], list[Point]],
        pairs: dict[tuple[tuple[int, int], ...], tuple[int, int]],
    ) -> list[Point]:
        def left_label(p: tuple[int, int], q: tuple[int, int]) -> int:
            dx, dy = q[0] - p[0], q[1] - p[1]
            if dx == 1:
                return self.label(p[0], p[1] - 1)
            if dx == -1:
                return self.label(q[0], p[1])
            if dy == 1:
                return self.label(p[0], p[1])
            return self.label(p[0] - 1, q[1])

        # a chain runs between junctions (where three labels meet), so the label across it is one
        nodes = [k for k, v in enumerate(ring) if is_node(*v)]
        if not nodes:
            pts = [((a[0] + b[0]) / 2 * GRID, (a[1] + b[1]) / 2 * GRID) for a, b in zip(ring, ring[1:] + ring[:1])]
            sm = _chaikin(pts, closed=True)
            sm = _simplify(sm + [sm[0]], 0.5)[:-1]
            chains[tuple(ring)] = sm
            pairs[tuple(ring)] = (c, left_label(ring[0], ring[1]))
            return sm
        k0 = nodes[0]
        ring = ring[k0:] + ring[:k0]
        nodes = [k - k0 for k in nodes] + [len(ring)]
        closed = ring + [ring[0]]
        out: list[Point] = []
        for s, e in zip(nodes, nodes[1:]):
            piece = tuple(closed[s : e + 1])
            rev = piece[::-1]
            key = min(piece, rev)
            if key not in chains:
                pts = [(key[0][0] * GRID, key[0][1] * GRID)]
                pts += [((a[0] + b[0]) / 2 * GRID, (a[1] + b[1]) / 2 * GRID) for a, b in zip(key, key[1:])]
                pts.append((key[-1][0] * GRID, key[-1][1] * GRID))
                chains[key] = _simplify(_chaikin(pts, closed=False), 0.5)
                pairs[key] = (c, left_label(piece[0], piece[1]))
            pts = chains[key] if key == piece else chains[key][::-1]
            out.extend(pts[:-1])
        return out


def _components(n: int, roads: tuple[tuple[int, int], ...] | list[tuple[int, int]]) -> list[int]:
    parent = list(range(n))

    def find(a: int) -> int:
        while parent[a] != a:
            parent[a] = parent[parent[a]]
            a = parent[a]
        return a

    for a, b in roads:
        parent[find(a)] = find(b)
    return [find(i) for i in range(n)]


# ---------------------------------------------------------------- placement


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

    R = _Raster(board, pts, width, height)
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
            poly = _clip(poly, ((p[0] + q[0]) / 2, (p[1] + q[1]) / 2), ((q[0] - p[0]) / d, (q[1] - p[1]) / d))
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
