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

__all__ = ["chain_score", "chain_paths", "chain_score_slow", "MIN_CHAIN"]

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


# chain_score is pure and asked again and again for the same sets by search bots (every
# game they play to the end is scored): remembered per road graph, when the graph is a
# tuple (a board's, which cannot change), held so that its id stays its own
_MEMO: dict[int, tuple[Sequence[Sequence[int]], dict[tuple[int, ...], int]]] = {}
_MEMO_LIMIT = 100_000


def chain_score(sites: Iterable[int], neighbours: Sequence[Sequence[int]]) -> int:
    """Largest number of the given sites covered by disjoint road paths of 4 or more."""
    nodes = set(sites)
    if len(nodes) < MIN_CHAIN:
        return 0
    if not isinstance(neighbours, tuple):
        return _chain_score(nodes, neighbours)
    entry = _MEMO.get(id(neighbours))
    if entry is None or entry[0] is not neighbours:
        if len(_MEMO) > 16:
            _MEMO.clear()
        entry = _MEMO[id(neighbours)] = (neighbours, {})
    memo = entry[1]
    key = tuple(sorted(nodes))
    got = memo.get(key)
    if got is None:
        if len(memo) > _MEMO_LIMIT:
            memo.clear()
        got = memo[key] = _chain_score(nodes, neighbours)
    return got


def _chain_score(nodes: set[int], neighbours: Sequence[Sequence[int]]) -> int:
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
        total += _best_cover(adj)[0]
    return total


def chain_paths(sites: Iterable[int], neighbours: Sequence[Sequence[int]]) -> list[list[int]]:
    """The chains that :func:`chain_score` counts: disjoint road paths of 4 or more of the
    given sites, each in road order, whose lengths add up to the chain score (R11.3).

    Where several packings score the same, one of them (the same one every time).
    """
    nodes = set(sites)
    out: list[list[int]] = []
    for comp in _components(nodes, neighbours):
        if len(comp) < MIN_CHAIN:
            continue
        local = {v: i for i, v in enumerate(comp)}
        adj = tuple(tuple(local[y] for y in neighbours[v] if y in local) for v in comp)
        if all(len(a) <= 2 for a in adj):
            masks = [(1 << len(comp)) - 1]  # a simple path or a ring: all of it
        else:
            masks = _best_cover(adj, want_paths=True)[1]
        for m in masks:
            out.append([comp[i] for i in _order_path(adj, m)])
    return out


def _order_path(adj: tuple[tuple[int, ...], ...], mask: int) -> list[int]:
    """The vertices of ``mask`` in an order along roads (a Hamiltonian path of the small set
    the cover search found to be one; a ring is opened at its lowest vertex)."""
    members = [v for v in range(len(adj)) if mask >> v & 1]
    want = len(members)
    inner = {v: [y for y in adj[v] if mask >> y & 1] for v in members}
    # start at an end if there is one (fewest neighbours first), else anywhere
    for start in sorted(members, key=lambda v: (len(inner[v]), v)):
        path = [start]
        if _extend(path, inner, want):
            return path
    raise AssertionError("the cover search gave a set that is no path")  # pragma: no cover


def _extend(path: list[int], inner: dict[int, list[int]], want: int) -> bool:
    """Extend ``path`` depth first along ``inner`` until it holds ``want`` vertices."""
    if len(path) == want:
        return True
    for y in inner[path[-1]]:
        if y not in path:
            path.append(y)
            if _extend(path, inner, want):
                return True
            path.pop()
    return False


def _best_cover(adj: tuple[tuple[int, ...], ...], want_paths: bool = False) -> tuple[int, list[int]]:
    """The best cover's size and, with ``want_paths``, its paths as vertex bitmasks."""
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

    score = best(full)
    if not want_paths:
        return score, []
    # walk the memo back: at each lowest unused vertex, the choice that kept the best value
    masks: list[int] = []
    avail = full
    while best(avail) > 0:
        v = (avail & -avail).bit_length() - 1
        rest = avail & ~(1 << v)
        if best(rest) == best(avail):
            avail = rest
            continue
        m = next(m for m in sorted(paths_through(v, avail)) if m.bit_count() + best(avail & ~m) == best(avail))
        masks.append(m)
        avail &= ~m
    return score, masks


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
