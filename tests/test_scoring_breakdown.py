"""The scorings in detail (kardinal.rules.breakdown) and the chains as paths (R11): the
rulebook's worked examples (R9.4, R10.4, R11.4), the paths against the chain score, and
whole random games whose breakdown adds up to their events."""

from __future__ import annotations

import json
import random

import pytest
from conftest import LONG, keys_deep, random_game

from kardinal.rules.board import standard_board
from kardinal.rules.breakdown import alliance_breakdown, chain_breakdown, country_breakdown, places, scoring_breakdown
from kardinal.rules.chains import chain_paths, chain_score
from kardinal.rules.events import GameEnded, IntermediateScoring
from kardinal.rules.state import new_game

B = standard_board()
NB = B.neighbours
C = {c.id: c.index for c in B.countries}


def ids(*names: str) -> list[int]:
    return [B.site_index[x] for x in names]


def names(paths: list[list[int]]) -> list[list[str]]:
    return [[B.sites[i].id for i in p] for p in paths]


def is_road_path(path: list[int]) -> bool:
    return len(set(path)) == len(path) and all(b in NB[a] for a, b in zip(path, path[1:]))


# -- R9 ----------------------------------------------------------------------------------


def test_R9_4_franken_breakdown() -> None:
    """Franken with green 4, red 2, blue 1: places 1, 2, 3 and points 7, 4, 2."""
    got = country_breakdown("franken", [4, 2, 1, 0])
    assert got == {"country": "franken", "cloisters": [4, 2, 1, 0], "places": [1, 2, 3, 0], "points": [7, 4, 2, 0], "total": 7}


def test_R9_4_lothringen_breakdown_shared_first_place() -> None:
    """Lothringen with red 2, purple 2, blue 1: red and purple share first place (5 each),
    blue is second (R9.2 dense ranking) and scores 2."""
    got = country_breakdown("lothringen", [2, 2, 1])
    assert got["places"] == [1, 1, 2]
    assert got["points"] == [5, 5, 2]
    assert got["total"] == 5


def test_R9_2_places_dense_and_zero_without_cloister() -> None:
    assert places([3, 3, 1, 0]) == [1, 1, 2, 0]
    assert places([0, 0, 0]) == [0, 0, 0]
    assert places([1, 2, 3, 4]) == [4, 3, 2, 1]


# -- R10 ---------------------------------------------------------------------------------


def test_R10_4_alliance_example_breakdown() -> None:
    """Italien blue 2, red 1, yellow 1; Burgund blue 1, red 1 (alliance 14): blue holds
    both majorities and scores all 6 advisors. Bayern red 2, yellow 1 (alliance 15 with
    Italien): blue holds Italien, red Bayern: nobody qualifies."""
    adv = [[0, 0, 0, 0] for _ in B.countries]
    adv[C["italien"]] = [2, 1, 1, 0]
    adv[C["burgund"]] = [1, 1, 0, 0]
    adv[C["bayern"]] = [0, 2, 1, 0]
    got = {a["number"]: a for a in alliance_breakdown(B, adv)}
    assert [a["number"] for a in alliance_breakdown(B, adv)] == list(range(1, 16))
    a14 = got[14]
    assert sorted(a14["countries"]) == ["burgund", "italien"]
    by = dict(zip(a14["countries"], a14["majority"]))
    assert by == {"italien": [0], "burgund": [0, 1]}
    assert a14["qualifies"] == [0]
    assert a14["value"] == 6
    assert a14["points"] == [6, 0, 0, 0]
    a15 = got[15]
    assert sorted(a15["countries"]) == ["bayern", "italien"]
    assert dict(zip(a15["countries"], a15["majority"])) == {"italien": [0], "bayern": [1]}
    assert a15["qualifies"] == [] and a15["points"] == [0, 0, 0, 0]
    assert a15["value"] == 4 + 3
    assert a15["across"] == "sea"


# -- R11 ---------------------------------------------------------------------------------


def test_R11_4_chain_paths_worked_example() -> None:
    """Five purple cloisters in a row through Burgund and Italien with a sixth on a branch
    in Bayern (brixen off verona): the scoring path is the row of five, in road order."""
    paths = chain_paths(ids("genf", "turin", "mailand", "verona", "venedig", "brixen"), NB)
    assert names(paths) in ([["genf", "turin", "mailand", "verona", "venedig"]], [["venedig", "verona", "mailand", "turin", "genf"]])


def test_R11_4_chain_breakdown_per_seat() -> None:
    owner = [-1] * len(B.sites)
    for s in ids("genf", "turin", "mailand", "verona", "venedig", "brixen"):
        owner[s] = 2
    for s in ids("rouen", "paris", "orleans"):
        owner[s] = 0
    got = chain_breakdown(B, owner, 3)
    assert [c["points"] for c in got] == [0, 0, 5]
    assert got[0]["paths"] == [] and got[1]["paths"] == []
    assert sorted(got[2]["paths"][0]) == sorted(["genf", "turin", "mailand", "verona", "venedig"])


def test_R11_3_two_disjoint_chains_as_paths() -> None:
    """The row plus brixen-freising-salzburg-passau: two paths, 5 and 4."""
    sites = ids("genf", "turin", "mailand", "verona", "venedig", "brixen", "freising", "salzburg", "passau")
    paths = chain_paths(sites, NB)
    assert sorted(map(len, paths)) == [4, 5]
    assert all(is_road_path(p) for p in paths)
    assert set(names([paths[0]])[0]) | set(names([paths[1]])[0]) == {B.sites[i].id for i in sites}


def test_R11_3_ring_is_one_path_through_all() -> None:
    """A ring of 6 in an abstract graph gives one path of 6."""
    nb = [[(i - 1) % 6, (i + 1) % 6] for i in range(6)]
    (path,) = chain_paths(range(6), nb)
    assert sorted(path) == list(range(6))
    assert all(b in nb[a] for a, b in zip(path, path[1:]))


def test_R11_3_short_and_branching_sets_give_no_path() -> None:
    assert chain_paths(ids("rouen", "paris", "orleans"), NB) == []
    star = [[1, 2, 3, 4], [0], [0], [0], [0]]
    assert chain_paths(range(5), star) == []


def check_paths(sites: list[int]) -> None:
    paths = chain_paths(sites, NB)
    assert sum(map(len, paths)) == chain_score(sites, NB)
    used = [v for p in paths for v in p]
    assert len(used) == len(set(used)), "paths are disjoint"
    assert set(used) <= set(sites)
    assert all(len(p) >= 4 and is_road_path(p) for p in paths)


def test_R11_3_paths_add_up_to_the_chain_score_on_random_site_sets() -> None:
    """2,000 random site sets on the standard board (up to 20 sites, as a supply allows)."""
    rng = random.Random(11)
    n = len(B.sites)
    for _ in range(2000 if not LONG else 20000):
        check_paths(rng.sample(range(n), rng.randint(4, 20)))


def test_R11_3_paths_add_up_to_the_chain_score_on_connected_blobs() -> None:
    """Sets grown along roads (many branches, large components): the hard cases."""
    rng = random.Random(12)
    for _ in range(400):
        start = rng.randrange(len(B.sites))
        blob = {start}
        while len(blob) < rng.randint(5, 20):
            v = rng.choice(sorted(blob))
            blob.add(rng.choice(NB[v]))
        check_paths(sorted(blob))


# -- whole games -------------------------------------------------------------------------


def events_of(s: object, kind: type) -> list[object]:
    return [e for d in s.history or () for e in d.events if isinstance(e, kind)]  # type: ignore[attr-defined]


@pytest.mark.parametrize("seed", range(40 if not LONG else 400))
def test_breakdown_adds_up_to_the_events_in_random_games(seed: int) -> None:
    s = random_game(3 + seed % 3, seed)
    bd = scoring_breakdown(s)
    (end,) = events_of(s, GameEnded)
    assert isinstance(end, GameEnded)
    fin = bd["final"]
    assert fin is not None
    n = s.n
    assert fin["cloisters"] == list(end.cloisters)
    assert fin["alliances"] == list(end.alliances)
    assert fin["chains"] == list(end.chains)
    assert fin["scores"] == list(end.scores) == s.scores
    assert fin["pieces_left"] == list(end.pieces_left)
    assert fin["winners"] == list(end.winners)
    assert fin["reason"] == end.reason
    for p in range(n):
        assert fin["intermediate"][p] + fin["cloisters"][p] + fin["alliances"][p] + fin["chains"][p] == fin["scores"][p]
        assert sum(c["points"][p] for c in fin["countries"]) == fin["cloisters"][p]
        assert sum(a["points"][p] for a in fin["alliances_detail"]) == fin["alliances"][p]
        assert fin["chains_detail"][p]["points"] == fin["chains"][p] == sum(map(len, fin["chains_detail"][p]["paths"]))
    # every chain runs over the seat's own cloisters along roads
    sites = {B2.id: B2 for B2 in s.board.sites}
    for ch in fin["chains_detail"]:
        for path in ch["paths"]:
            assert all(s.owner[s.board.site_index[x]] == ch["seat"] for x in path)
            assert all(s.board.site_index[b] in s.board.neighbours[s.board.site_index[a]] for a, b in zip(path, path[1:]))
            assert all(x in sites for x in path)
    # the standings: R12.1 order
    order = fin["order"]
    assert sorted(order) == list(range(n))
    assert all((fin["scores"][a], fin["pieces_left"][a]) >= (fin["scores"][b], fin["pieces_left"][b]) for a, b in zip(order, order[1:]))
    assert set(order[: len(fin["winners"])]) == set(fin["winners"])
    inter_events = events_of(s, IntermediateScoring)
    if inter_events:
        (ie,) = inter_events
        assert isinstance(ie, IntermediateScoring)
        inter = bd["intermediate"]
        assert inter is not None
        assert inter["points"] == list(ie.points) == fin["intermediate"]
        assert [c["points"] for c in inter["countries"]] == [list(r) for r in ie.by_country]
        assert 0 < inter["step"] <= fin["step"] == len(s.history or ())
    else:
        assert bd["intermediate"] is None and fin["intermediate"] == [0] * n


def test_breakdown_is_json_and_holds_nothing_hidden() -> None:
    """R13: sites, advisors, scores and supplies only: no hand, pile, reshuffle or seed."""
    s = random_game(4, 5)
    text = json.dumps(scoring_breakdown(s))
    keys = keys_deep(json.loads(text))
    assert not keys & {"hand", "hands", "deck", "pile", "seed", "reshuffle", "known", "display", "discard"}


def test_breakdown_before_any_scoring_is_empty() -> None:
    s = new_game(4, seed=3)
    assert scoring_breakdown(s) == {"players": 4, "intermediate": None, "final": None}
