"""R11 chain scoring: exact values on hand-checked shapes, and the fast search against the
slow obvious oracle (R11.3) on many random site sets."""

from __future__ import annotations

import random
import time
from collections.abc import Sequence

import pytest
from conftest import LONG
from hypothesis import given, settings
from hypothesis import strategies as st

from kardinal.rules.board import parse_board, standard_board
from kardinal.rules.chains import chain_score, chain_score_slow
from kardinal.rules.scoring import chain_scoring, final_scoring

B = standard_board()
NB = B.neighbours


def ids(*names: str) -> list[int]:
    return [B.site_index[x] for x in names]


def std(*names: str) -> int:
    """chain_score on the standard board, checked against the oracle as well."""
    fast = chain_score(ids(*names), NB)
    assert fast == chain_score_slow(ids(*names), NB)
    return fast


def graph(n: int, edges: Sequence[tuple[int, int]]) -> list[list[int]]:
    nb: list[list[int]] = [[] for _ in range(n)]
    for a, b in edges:
        nb[a].append(b)
        nb[b].append(a)
    return nb


def both(sites: Sequence[int], nb: Sequence[Sequence[int]]) -> int:
    fast = chain_score(sites, nb)
    assert fast == chain_score_slow(sites, nb)
    return fast


# -- the standard board ----------------------------------------------------------------


def test_R11_4_rulebook_example_branch_off_the_middle() -> None:
    """R11.4: genf, turin, mailand, verona, venedig in a row, brixen a branch off verona -> 5."""
    assert std("genf", "turin", "mailand", "verona", "venedig", "brixen") == 5


def test_R11_4_without_the_branch_still_five() -> None:
    assert std("genf", "turin", "mailand", "verona", "venedig") == 5


def test_R11_1_straight_row_of_four_scores_four() -> None:
    """rouen-paris-orleans-tours follow one another along roads."""
    assert std("rouen", "paris", "orleans", "tours") == 4


def test_R11_1_row_of_three_scores_nothing() -> None:
    assert std("rouen", "paris", "orleans") == 0
    assert std("genf", "turin", "mailand") == 0


def test_R11_1_gap_breaks_the_row() -> None:
    """rouen, paris, tours, limoges: orleans (between paris and tours) is missing."""
    assert std("rouen", "paris", "tours", "limoges") == 0


def test_R11_1_chain_crosses_borders() -> None:
    """metz (Lothringen) - strassburg (Schwaben) - ulm - freising (Bayern): 4 across 3 countries."""
    assert std("metz", "strassburg", "ulm", "freising") == 4


def test_R11_1_chain_through_verdun() -> None:
    """The counted board: paris-reims-verdun-metz runs from Frankreich into Lothringen (checked
    by hand: reims-metz is no road any more, verdun lies between them)."""
    assert std("paris", "reims", "verdun", "metz") == 4
    assert std("paris", "reims", "metz", "strassburg") == 0  # no road reims-metz
    assert std("rouen", "paris", "reims", "verdun", "metz", "strassburg", "ulm") == 7


def test_R11_3_ring_england_triangle_plus_tail() -> None:
    """london-canterbury-winchester is a triangle; with lincoln and york the path
    york-lincoln-london-winchester-canterbury takes all 5."""
    assert std("london", "canterbury", "winchester") == 0  # a ring of 3 is too short
    assert std("lincoln", "london", "canterbury", "winchester") == 4
    assert std("york", "lincoln", "london", "canterbury", "winchester") == 5


def test_R11_3_branch_long_enough_to_be_its_own_chain() -> None:
    """The rulebook row plus brixen-freising-salzburg-passau: the row (5) and the branch
    (4) are two disjoint chains -> 9, more than the longest single path (8)."""
    assert std("genf", "turin", "mailand", "verona", "venedig", "brixen", "freising", "salzburg", "passau") == 9


def test_R11_2_two_separate_chains_add_up() -> None:
    """rouen-paris-orleans-tours (4) and jaca-huesca-zaragoza-lleida (4)."""
    assert std("rouen", "paris", "orleans", "tours", "jaca", "huesca", "zaragoza", "lleida") == 8


def test_R11_2_a_short_chain_next_to_a_long_one_adds_nothing() -> None:
    assert std("rouen", "paris", "orleans", "tours", "jaca", "huesca", "zaragoza") == 4


def test_R11_2_each_cloister_in_one_chain_only() -> None:
    """The Frankreich ring orleans-tours-limoges-bourges with paris, rouen, toulouse:
    rouen-paris-orleans-tours-limoges-bourges (6) or ...-limoges-toulouse: never 7."""
    assert std("rouen", "paris", "orleans", "tours", "limoges", "bourges", "toulouse") == 6


def test_R11_chain_scoring_per_seat_on_the_standard_board() -> None:
    owner = [-1] * len(B.sites)
    for s in ids("genf", "turin", "mailand", "verona", "venedig", "brixen"):
        owner[s] = 2
    for s in ids("rouen", "paris", "orleans"):
        owner[s] = 0
    owner[B.site_index["tours"]] = 1  # another colour breaks seat 0's row
    assert chain_scoring(B, owner, 3) == [0, 0, 5]


# -- abstract graphs (chain_score takes any neighbour lists) ---------------------------


def test_R11_3_pure_ring_counts_as_one_path() -> None:
    """A ring of 6 (every vertex of degree 2) counts as a path through all of them."""
    ring = graph(6, [(i, (i + 1) % 6) for i in range(6)])
    assert both(range(6), ring) == 6
    assert both([0, 1, 2, 3], ring) == 4  # an arc of 4
    assert both([0, 1, 2, 4], ring) == 0


def test_R11_3_ring_of_four() -> None:
    ring = graph(4, [(0, 1), (1, 2), (2, 3), (3, 0)])
    assert both(range(4), ring) == 4


def test_R11_2_y_shape_branches_do_not_count() -> None:
    """Centre 0 with three arms of 2 (1-2, 3-4, 5-6): one path arm+centre+arm = 5; the third
    arm (2 long) scores nothing."""
    y = graph(7, [(0, 1), (1, 2), (0, 3), (3, 4), (0, 5), (5, 6)])
    assert both(range(7), y) == 5


def test_R11_3_y_with_long_arms_all_count() -> None:
    """Centre 0 with three arms of 4: arm+centre+arm (9) and the third arm alone (4) = 13."""
    edges = []
    nxt = 1
    for _ in range(3):
        prev = 0
        for _ in range(4):
            edges.append((prev, nxt))
            prev = nxt
            nxt += 1
    y = graph(13, edges)
    assert both(range(13), y) == 13


def test_R11_3_star_scores_nothing_when_arms_are_short() -> None:
    """A star (centre + 4 leaves): the longest path has 3 cloisters."""
    star = graph(5, [(0, 1), (0, 2), (0, 3), (0, 4)])
    assert both(range(5), star) == 0


def test_R11_3_two_paths_beat_one_long() -> None:
    """An H: 0-1-2-3 with 4-5-6-7 joined by 1-5: best is the two rows (8), not one path."""
    h = graph(8, [(0, 1), (1, 2), (2, 3), (4, 5), (5, 6), (6, 7), (1, 5)])
    assert both(range(8), h) == 8


def test_R11_chain_on_a_custom_board_through_final_scoring() -> None:
    """A tiny board (parse_board): a ring of 5 sites in two countries scores 5 for its owner."""
    data = {
        "format": "kardinal-board",
        "version": 1,
        "id": "ring",
        "name": "ring",
        "countries": [
            {"id": "a", "name_de": "A", "name_en": "A", "ring": "outer"},
            {"id": "b", "name_de": "B", "name_en": "B", "ring": "inner"},
        ],
        "cards": [
            {"id": "ka", "short": "KA", "countries": ["a"], "count": 10},
            {"id": "kb", "short": "KB", "countries": ["b"], "count": 10},
        ],
        "sites": [{"id": f"s{i}", "country": "a" if i < 3 else "b", "name": f"S{i}", "lat": 0, "lon": i} for i in range(6)],
        "roads": [[f"s{i}", f"s{(i + 1) % 5}"] for i in range(5)] + [["s4", "s5"]],
        "alliances": [{"number": 1, "countries": ["a", "b"]}],
        "supply": {"cloisters": 20, "advisors": 8},
        "removed_per_kind": {"3": 0},
    }
    b = parse_board(data)
    # seat 0 holds the whole ring s0..s4 -> 5; seat 1's single cloister on s5 -> 0
    owner = [0, 0, 0, 0, 0, 1]
    fin = final_scoring(b, [[3, 0, 0], [2, 1, 0]], [[0, 0, 0], [0, 0, 0]], owner)
    assert fin.chains == [5, 0, 0]
    assert fin.total == [3 + 3 + 5, 2, 0]  # A: 3 alone -> 3; B: 2 and 1 -> 3 and 2
    # ring plus its tail s5 for seat 0: the path s5-s4-s0-s1-s2-s3 covers all 6
    assert chain_scoring(b, [0] * 6, 3) == [6, 0, 0]


# -- the fast search equals the oracle --------------------------------------------------


@settings(max_examples=300, deadline=None)
@given(st.sets(st.integers(0, len(B.sites) - 1), max_size=16))
def test_R11_3_fast_equals_slow_on_standard_board_subsets(sites: set[int]) -> None:
    assert chain_score(sites, NB) == chain_score_slow(sites, NB)


@st.composite
def small_graphs(draw: st.DrawFn) -> tuple[list[list[int]], list[int]]:
    n = draw(st.integers(1, 10))
    pairs = [(a, b) for a in range(n) for b in range(a + 1, n)]
    edges = draw(st.lists(st.sampled_from(pairs), unique=True, max_size=14)) if pairs else []
    nodes = draw(st.sets(st.integers(0, n - 1)))
    return graph(n, edges), sorted(nodes)


@settings(max_examples=300, deadline=None)
@given(small_graphs())
def test_R11_3_fast_equals_slow_on_random_graphs(g: tuple[list[list[int]], list[int]]) -> None:
    nb, nodes = g
    assert chain_score(nodes, nb) == chain_score_slow(nodes, nb)


def test_R11_3_fast_equals_slow_seeded_connected_sets() -> None:
    """Plain seeded loop: connected site sets grown along roads (these are the hard cases)."""
    rng = random.Random(11)
    for _ in range(150):
        start = rng.randrange(len(B.sites))
        S = {start}
        size = rng.randint(4, 15)
        while len(S) < size:
            frontier = sorted({y for x in S for y in NB[x]} - S)
            if not frontier:
                break
            S.add(rng.choice(frontier))
        assert chain_score(S, NB) == chain_score_slow(S, NB), sorted(B.sites[i].id for i in S)


def test_R11_3_result_never_exceeds_the_set_and_is_zero_or_at_least_four() -> None:
    rng = random.Random(3)
    for _ in range(300):
        S = rng.sample(range(len(B.sites)), rng.randint(0, 20))
        v = chain_score(S, NB)
        assert v == 0 or 4 <= v <= len(S)


# -- timing: measured and printed, never asserted -------------------------------------

DENSE_20 = [
    # found by hill-climbs on time (the slowest sets found), and the densest 20-sets
    "reims metz nuernberg strassburg ulm konstanz zuerich regensburg freising salzburg brixen besancon cluny genf lyon turin mailand pavia verona venedig",
    "metz speyer nuernberg strassburg ulm konstanz zuerich regensburg passau freising salzburg wien brixen besancon genf lyon turin mailand verona venedig",
    "aachen koeln trier metz mainz speyer wuerzburg strassburg ulm konstanz zuerich regensburg freising salzburg brixen besancon genf turin mailand verona",
    "metz nuernberg strassburg ulm konstanz zuerich regensburg passau freising salzburg brixen besancon cluny genf lyon turin mailand pavia verona venedig",
    "tours bourges jaca trier nuernberg ulm konstanz zuerich regensburg freising brixen besancon cluny genf lyon turin mailand pavia verona venedig",
    "bourges aachen koeln trier metz mainz speyer strassburg ulm konstanz zuerich freising brixen besancon cluny genf lyon turin mailand verona",
    "winchester paris reims orleans bourges toulouse aachen koeln trier metz mainz speyer strassburg ulm wien besancon cluny lyon verona venedig",
]


def test_R11_3_fast_equals_slow_on_dense_20_site_sets() -> None:
    """The oracle takes about a second on each of these; one by default, all when long."""
    for line in DENSE_20 if LONG else DENSE_20[:1]:
        S = ids(*line.split())
        assert chain_score(S, NB) == chain_score_slow(S, NB)


def test_R11_chain_score_worst_case_time_printed(capsys: pytest.CaptureFixture[str]) -> None:
    """Measure (print, not assert) chain_score on dense 20-site sets of the standard board."""
    worst = worst_cpu = 0.0
    for line in DENSE_20:
        S = ids(*line.split())
        assert len(S) == 20
        best = best_cpu = float("inf")
        for _ in range(3):  # the best of 3: the machine may be busy
            t, c = time.perf_counter(), time.process_time()
            v = chain_score(S, NB)
            best = min(best, time.perf_counter() - t)
            best_cpu = min(best_cpu, time.process_time() - c)
        assert 0 <= v <= 20
        worst, worst_cpu = max(worst, best), max(worst_cpu, best_cpu)
    with capsys.disabled():
        print(f"\n[chain_score] worst time on dense 20-site sets: {worst * 1000:.1f} ms wall, {worst_cpu * 1000:.1f} ms CPU (best of 3)")
