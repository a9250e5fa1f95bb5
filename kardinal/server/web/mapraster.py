"""The map's geometry: a raster of the land and its countries grown from the board's
sites and roads, traced into shared borders (how, see mapdata.py)."""

from __future__ import annotations

import math
import random
from collections import deque
from typing import Any

from kardinal.rules.board import Board

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


def clip(poly: list[Point], a: Point, n: Point) -> list[Point]:
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


class Raster:
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
