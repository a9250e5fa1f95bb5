"""Chain scoring (R11): the exact maximum, and a slow obvious oracle for tests.

R11.3: a player's chain score is the largest number of their cloisters that can be
covered by vertex-disjoint simple paths of the road graph, each path made of that
player's cloisters only and at least 4 long. This is a small packing problem; the sets
are small (at most 20 cloisters per player on a sparse graph), so an exact search over
each connected component, memoised on the set of still-unused cloisters, is fast.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from functools import cache

__all__ = ["chain_score", "chain_score_slow", "MIN_CHAIN"]

MIN_CHAIN = 4


def _components(nodes: set[int], nb: Sequence[Sequence[int]]) -> list[list[int]]:
    seen: set[int] = set()
    comps = []
    for v in sorted(nodes):
        if v in seen:
            continue
        stack = [v]
        seen.add(v)
        comp = []
        while stack:
            x = stack.pop()
            comp.append(x)
            for y in nb[x]:
                if y in nodes and y not in seen:
                    seen.add(y)
                    stack.append(y)
        comps.append(sorted(comp))
    return comps


def chain_score(sites: Iterable[int], neighbours: Sequence[Sequence[int]]) -> int:
    """Largest number of the given sites covered by disjoint road paths of 4 or more."""
    nodes = set(sites)
    total = 0
    for comp in _components(nodes, neighbours):
        n = len(comp)
        if n < MIN_CHAIN:
            continue
        local = {v: i for i, v in enumerate(comp)}
        adj = tuple(tuple(local[y] for y in neighbours[v] if y in local) for v in comp)
        if all(len(a) <= 2 for a in adj):
            # a simple path or a ring: one path through all of it (R11.3)
            total += n
            continue
        total += _best_cover(adj)
    return total


def _best_cover(adj: tuple[tuple[int, ...], ...]) -> int:
    n = len(adj)
    full = (1 << n) - 1

    def paths_through(v: int, avail: int) -> set[int]:
        """Vertex sets (bitmasks) of simple paths inside avail that contain v, >= 4 long."""
        arms: list[tuple[int, int]] = []  # (mask of arm incl. v, end vertex)

        def grow(end: int, mask: int) -> None:
            arms.append((mask, end))
            for y in adj[end]:
                bit = 1 << y
                if avail & bit and not mask & bit:
                    grow(y, mask | bit)

        grow(v, 1 << v)
        out: set[int] = set()
        vbit = 1 << v
        for m1, _ in arms:
            for m2, _ in arms:
                if m1 & m2 == vbit:
                    m = m1 | m2
                    if m.bit_count() >= MIN_CHAIN:
                        out.add(m)
        return out

    @cache
    def best(avail: int) -> int:
        if avail.bit_count() < MIN_CHAIN:
            return 0
        v = (avail & -avail).bit_length() - 1  # lowest unused vertex
        rest = avail & ~(1 << v)
        result = best(rest)  # v is in no chain
        whole = avail.bit_count()
        for m in paths_through(v, avail):
            result = max(result, m.bit_count() + best(avail & ~m))
            if result == whole:
                break
        return result

    return best(full)


def chain_score_slow(sites: Iterable[int], neighbours: Sequence[Sequence[int]]) -> int:
    """The obvious version, kept as the test oracle: every simple path, every packing."""
    nodes = sorted(set(sites))
    node_set = set(nodes)
    paths: set[frozenset[int]] = set()

    def walk(path: list[int]) -> None:
        if len(path) >= MIN_CHAIN:
            paths.add(frozenset(path))
        for y in neighbours[path[-1]]:
            if y in node_set and y not in path:
                path.append(y)
                walk(path)
                path.pop()

    for v in nodes:
        walk([v])
    plist = sorted(paths, key=lambda p: (-len(p), sorted(p)))

    def pack(i: int, used: frozenset[int]) -> int:
        best = 0
        for j in range(i, len(plist)):
            p = plist[j]
            if not (p & used):
                best = max(best, len(p) + pack(j + 1, used | p))
        return best

    return pack(0, frozenset())
