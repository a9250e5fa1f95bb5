"""``kardinal tournament``: seat rotation, statistics, records, determinism, the CLI."""

from __future__ import annotations

import json
import math
import random
from pathlib import Path

import pytest
from typer.testing import CliRunner

from kardinal.bots.tournament import (
    RATING_MEAN,
    GameResult,
    block_bootstrap,
    deal_seed,
    finishing_orders,
    plackett_luce,
    run_tournament,
    seating,
    summarize,
    wilson,
)
from kardinal.cli import app
from kardinal.rules.record import load_record, replay


def fake(game: int, players: int, scores: list[int], winners: list[int], pieces: list[int] | None = None) -> GameResult:
    z = [[0.0, 0.0, 0.0] for _ in range(players)]
    return GameResult(game, 0, seating(game, players), scores, winners, pieces or [0] * players, z, [r[:] for r in z])


@pytest.mark.parametrize("players", [3, 4, 5])
def test_rotation_puts_every_entry_in_every_seat_once_per_block(players: int) -> None:
    block = [seating(g, players) for g in range(players)]
    for seat in range(players):
        assert sorted(entry_of_seat[seat] for entry_of_seat in block) == list(range(players))
    for entry_of_seat in block:
        assert sorted(entry_of_seat) == list(range(players))
    # a block shares one deal; the next block has another
    assert len({deal_seed(5, g, players) for g in range(players)}) == 1
    assert deal_seed(5, 0, players) != deal_seed(5, players, players)


def test_tiny_tournament_statistics() -> None:
    stats, results = run_tournament(["greedy", "random", "random"], 5, 3, seed=2, workers=1)
    assert len(results) == 6  # rounded up to whole rotation blocks
    assert [r.game for r in results] == list(range(6))
    assert sum(st.wins for st in stats) == pytest.approx(6)
    for st in stats:
        assert st.games == 6
        assert st.seats == [2, 2, 2]
        assert st.ci_low <= st.win_rate <= st.ci_high
        assert st.mean_margin <= 0
        assert st.decisions > 0 and st.main_decisions > 0
        assert 0 <= st.main_time_mean <= st.main_time_max
    assert sum(st.rating for st in stats) == pytest.approx(3 * RATING_MEAN)
    for st in stats:  # (the resamples are fitted to a tolerance)
        assert st.rating_low - 0.01 <= st.rating <= st.rating_high + 0.01
    # the statistics are those of the games
    for st in stats:
        scores = [r.scores[r.entry_of_seat.index(st.entry)] for r in results]
        assert st.mean_score == pytest.approx(sum(scores) / 6)


def test_shared_wins_count_as_fractions() -> None:
    """R12.1: players still tied share the win; each gets 1/k of it."""
    results = [fake(0, 3, [10, 10, 5], [0, 1]), fake(1, 3, [7, 9, 9], [1, 2], [3, 2, 2]), fake(2, 3, [1, 2, 3], [2])]
    stats = summarize(["a", "b", "c"], results)
    # game 1 rotates seats: entry_of_seat = [2, 0, 1]; game 2: [1, 2, 0]
    wins = [st.wins for st in stats]
    assert sum(wins) == pytest.approx(3)
    assert wins == pytest.approx([0.5 + 0.5 + 1.0, 0.5 + 0.5, 0.0])
    assert stats[0].mean_margin == pytest.approx((0 + 0 + 0) / 3)
    assert stats[2].mean_margin == pytest.approx((-5 - 2 - 1) / 3)
    assert stats[1].wins + stats[0].wins == pytest.approx(3)


def test_finishing_orders_split_ties_evenly() -> None:
    # seats 0 and 2 (entries 0 and 2 in game 0) are equal in points and pieces: both orders, half the weight each
    r = fake(0, 3, [7, 9, 7], [1], [2, 0, 2])
    assert finishing_orders(r) == [(0.5, (1, 0, 2)), (0.5, (1, 2, 0))]
    # in game 1 the seats hold entries [2, 0, 1]
    assert finishing_orders(fake(1, 3, [7, 9, 3], [1])) == [(1.0, (0, 2, 1))]
    # equal points, more pieces left is ahead (R12.1)
    assert finishing_orders(fake(0, 3, [7, 7, 1], [1], [1, 3, 0])) == [(1.0, (1, 0, 2))]


def synthetic(strength: list[float], games: int, seed: int = 1) -> list[GameResult]:
    """Games whose finishing orders follow the Plackett-Luce model with these strengths."""
    rng = random.Random(seed)
    n = len(strength)
    out = []
    for g in range(games):
        es = seating(g, n)
        left, order = list(range(n)), []
        while left:
            seat = rng.choices(left, [strength[es[s]] for s in left])[0]
            left.remove(seat)
            order.append(seat)
        scores = [0] * n
        for rank, seat in enumerate(order):
            scores[seat] = 50 - rank
        out.append(fake(g, n, scores, [order[0]]))
    return out


def test_plackett_luce_is_a_batch_fit_that_recovers_strengths() -> None:
    strength = [4.0, 1.0, 1.0, 0.5]
    results = synthetic(strength, 400)
    r = plackett_luce(results, 4)
    assert sum(r) == pytest.approx(4 * RATING_MEAN)
    assert r[0] > r[1] and r[0] > r[2] and r[1] > r[3] and r[2] > r[3]
    true = [400 * math.log10(x) for x in strength]
    assert (r[0] - r[3]) == pytest.approx(true[0] - true[3], abs=60)
    # the order of the games does not matter (unlike a sequential Elo)
    shuffled = results[:]
    random.Random(2).shuffle(shuffled)
    assert plackett_luce(shuffled, 4) == pytest.approx(r)
    # equals stay equal; the prior keeps an entry that always wins finite
    assert plackett_luce([fake(g, 3, [5, 5, 5], [0, 1, 2], [1, 1, 1]) for g in range(6)], 3) == pytest.approx([RATING_MEAN] * 3)
    always = plackett_luce([fake(g, 3, [9 if e == 0 else 1 for e in seating(g, 3)], [seating(g, 3).index(0)]) for g in range(9)], 3)
    assert math.isfinite(always[0]) and always[0] > always[1]


def test_intervals_resample_whole_blocks() -> None:
    """Games of one block share a deal: where the deal decides, the block bootstrap's interval
    is wider than an interval that takes the games as independent (Wilson's)."""
    results = []
    for blk in range(10):
        for j in range(3):
            g = blk * 3 + j
            es = seating(g, 3)
            winner_entry = 0 if blk % 2 == 0 else 1  # the deal decides who wins
            scores = [9 if e == winner_entry else 1 for e in es]
            results.append(fake(g, 3, scores, [es.index(winner_entry)]))
    rates, ratings_ci = block_bootstrap(results, 3, resamples=500, seed=1)
    lo, hi = rates[0]
    wlo, whi = wilson(15, 30)
    assert lo < 0.5 < hi
    assert hi - lo > (whi - wlo) * 1.2
    assert rates[2] == (0.0, 0.0)
    assert ratings_ci[2][1] < ratings_ci[0][0] or ratings_ci[2][1] < ratings_ci[0][1]
    # deterministic given the seed
    assert block_bootstrap(results, 3, resamples=500, seed=1) == (rates, ratings_ci)


def test_wilson_interval() -> None:
    assert wilson(0, 10)[0] == 0.0 and 0.0 < wilson(0, 10)[1] < 0.35
    assert wilson(10, 10)[1] == 1.0 and 0.65 < wilson(10, 10)[0] < 1.0
    lo, hi = wilson(30, 100)
    assert lo < 0.3 < hi and hi - lo < 0.2


def test_deterministic_and_workers_do_not_change_results(tmp_path: Path) -> None:
    a = run_tournament(["random", "random", "greedy"], 3, 3, seed=11, workers=1)[1]
    b = run_tournament(["random", "random", "greedy"], 3, 3, seed=11, workers=2)[1]
    c = run_tournament(["random", "random", "greedy"], 3, 3, seed=12, workers=1)[1]
    assert [(r.scores, r.winners, r.entry_of_seat) for r in a] == [(r.scores, r.winners, r.entry_of_seat) for r in b]
    assert [r.scores for r in a] != [r.scores for r in c]


def test_records_replay_to_the_same_result(tmp_path: Path) -> None:
    stats, results = run_tournament(["greedy", "random", "random", "random"], 4, 4, seed=4, workers=1, records=tmp_path)
    files = sorted(tmp_path.glob("*.json"))
    assert len(files) == 4
    for f, r in zip(files, results):
        data = load_record(f)
        s = replay(data)
        assert s.scores == r.scores and s.winners == r.winners
        assert data["players"][r.entry_of_seat.index(0)].startswith("greedy")


def test_bad_arguments_are_refused() -> None:
    with pytest.raises(ValueError, match="unknown bot"):
        run_tournament(["greedy", "nobody", "random"], 3, 3, seed=1, workers=1)
    with pytest.raises(ValueError, match="one bot per seat"):
        run_tournament(["greedy", "random"], 3, 3, seed=1, workers=1)
    with pytest.raises(ValueError, match="players"):
        run_tournament(["random"] * 6, 6, 6, seed=1, workers=1)


def test_cli_tournament_json_and_table(tmp_path: Path) -> None:
    runner = CliRunner()
    res = runner.invoke(
        app, ["tournament", "--bots", "greedy,random,random", "--players", "3", "--games", "3", "--seed", "1", "--workers", "1", "--json"]
    )
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["games"] == 3 and len(data["entries"]) == 3
    assert sum(e["wins"] for e in data["entries"]) == pytest.approx(3)
    assert "bootstrap" in data["interval"] and "Plackett-Luce" in data["rating"]
    for e in data["entries"]:
        lo, hi = e["rating_ci95"]
        assert lo - 0.01 <= e["rating"] <= hi + 0.01
    res = runner.invoke(
        app,
        [
            "tournament",
            "--bots",
            "random,random,random",
            "--players",
            "3",
            "--games",
            "3",
            "--workers",
            "1",
            "--records",
            str(tmp_path / "rec"),
        ],
    )
    assert res.exit_code == 0, res.output
    assert "bootstrap" in res.output and "Plackett-Luce" in res.output and "random" in res.output
    assert len(list((tmp_path / "rec").glob("game-*.json"))) == 3
    res = runner.invoke(app, ["tournament", "--bots", "random,random", "--players", "3", "--games", "3"])
    assert res.exit_code == 2
    assert "one bot per seat" in res.output


def test_decisions_cut_short_by_the_time_limit_are_counted(monkeypatch: pytest.MonkeyPatch) -> None:
    """A level is its iteration budget; the wall clock is only a safety limit. A tournament
    says how many decisions that limit ended early (then the result depends on the machine)."""
    from kardinal.bots import BOTS
    from kardinal.bots.ismcts import ISMCTSBot

    monkeypatch.setitem(BOTS, "t-clock", lambda seed, board: ISMCTSBot(seed, board, iterations=10**9, time_limit=0.002))
    monkeypatch.setitem(BOTS, "t-budget", lambda seed, board: ISMCTSBot(seed, board, iterations=3, time_limit=60.0))
    stats, results = run_tournament(["t-clock", "t-budget", "random"], 3, 3, seed=5, workers=1)
    clock, budget, rnd = stats
    assert clock.cut_short > 0 and all(r.cut_short[0] > 0 for r in results)
    assert budget.cut_short == 0 and rnd.cut_short == 0
    assert clock.cut_short == sum(r.cut_short[0] for r in results) <= clock.main_decisions


def test_a_told_entry_sees_every_other_hand_and_no_one_else_does(monkeypatch: pytest.MonkeyPatch) -> None:
    """``told`` (an experiment on what hidden cards are worth): the told entry's views hold
    the other hands whole in ``known``; every other seat's view is the plain R13 view."""
    from kardinal.bots import tournament

    seen: list[tuple[int, list[list[int]], list[list[int]], dict]] = []
    real = tournament.view

    def spy(s, seat):  # type: ignore[no-untyped-def]
        v = real(s, seat)
        seen.append((seat, [h[:] for h in s.hands], [k[:] for k in s.known], v))
        return v

    monkeypatch.setattr(tournament, "view", spy)
    game = 1
    told_seat = seating(game, 3).index(2)
    res = tournament.play_game(["greedy", "random", "greedy"], 3, game=game, seed=5, told=2, keep_record=True)
    assert res.winners and res.record is not None
    # its record says so: that was not a fair game
    assert [p for p in res.record["players"] if "told" in p] == ["greedy (3, told every hand)"]
    assert res.record["players"][told_seat] == "greedy (3, told every hand)"
    from kardinal.rules.board import get_board

    kids = [k.id for k in get_board(None).cards]

    def counts(row: list[int]) -> dict[str, int]:
        return {kids[k]: c for k, c in enumerate(row) if c}

    told_views = more_than_public = 0
    for seat, hands, known, v in seen:
        if seat == told_seat:
            told_views += 1
            assert v["known"][seat] == counts(known[seat])
            for p in range(3):
                if p != seat:
                    assert v["known"][p] == counts(hands[p])
                    more_than_public += v["known"][p] != counts(known[p])
        else:
            assert v["known"] == [counts(k) for k in known]
        assert v["hand"] == counts(hands[seat])
    assert told_views and more_than_public  # the told seat learnt something the others could not


def test_told_must_name_an_entry() -> None:
    with pytest.raises(ValueError, match="entries are 1 to 3"):
        run_tournament(["random", "random", "random"], 3, 3, seed=1, workers=1, told=3)
    runner = CliRunner()
    base = ["tournament", "--bots", "greedy,random,random", "--players", "3", "--games", "3", "--workers", "1"]
    res = runner.invoke(app, [*base, "--told", "4"])
    assert res.exit_code == 2 and "entries are 1 to 3" in res.output
    res = runner.invoke(app, [*base, "--told", "1", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["told"] == 1
    res = runner.invoke(app, [*base, "--told", "1"])
    assert res.exit_code == 0 and "entry 1 (greedy) was told every other player's hand" in res.output
