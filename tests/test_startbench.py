"""The on-demand benchmark of a game's start (``make bench-web``) still finds its way
through the home page: one run of each way in reaches a playable board. Its timings are not
judged here (benchmarks are measured on demand, never asserted)."""

from __future__ import annotations

import pytest

from kardinal.tools.startbench import measure

pytestmark = pytest.mark.browser


def test_the_start_benchmark_reaches_a_playable_board_both_ways() -> None:
    got = measure(1)
    assert set(got) == {"play now", "create game"}
    assert all(len(times) == 1 and times[0] > 0 for times in got.values())
