"""The bot's judgement (kardinal.bots.analysis): hints from a seat's view only, decisions
rated with the move played among those searched, chances to win, whole-game reviews, and
``kardinal review``."""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any

import pytest
from conftest import hidden_twin
from typer.testing import CliRunner

from kardinal.bots import make_bot
from kardinal.bots.analysis import (
    RELATIVE,
    chances_from,
    costliest,
    hint,
    rate_decision,
    review_plan,
    review_record,
    spread,
    verdict,
    win_chances,
)
from kardinal.bots.greedy import GreedyBot, score_moves
from kardinal.bots.ismcts import ISMCTSBot
from kardinal.cli import app
from kardinal.rules.moves import Draw, Place
from kardinal.rules.record import action_of, move_of, record_of
from kardinal.rules.state import DRAW, MAIN, State, new_game
from kardinal.rules.view import view

IT = 60  # small budgets: these tests are about what is judged from what, not how well


def played_until(players: int, seed: int, turns: int, phase: Any = MAIN, seat: int | None = None) -> State:
    """A game of greedy bots until seat ``seat`` (any) is to act in ``phase`` after ``turns`` turns of seat 0."""
    s = new_game(players, seed=seed)
    bots = [GreedyBot(i) for i in range(players)]
    while s.turns[0] < turns or s.phase != phase or (seat is not None and s.current != seat):
        s.play(bots[s.current].choose(view(s, s.current)))
    return s


def finished(players: int, seed: int, levels: tuple[str, ...] = ("greedy", "random", "greedy", "random", "greedy")) -> State:
    s = new_game(players, seed=seed)
    bots = [make_bot(levels[i], i) for i in range(players)]
    while not s.is_over:
        s.play(bots[s.current].choose(view(s, s.current)))
    return s


def test_a_hint_depends_on_the_seats_view_only() -> None:
    """R13: the same view with other hidden cards (other hands, the pile's order) gives the same hint."""
    s = played_until(4, 3, 4, seat=0)
    t = hidden_twin(s, random.Random(1))
    assert view(t, 0) == view(s, 0) and t.hands != s.hands
    a = hint(view(s, 0), iterations=IT, time_limit=None, seed=5).to_json()
    b = hint(view(t, 0), iterations=IT, time_limit=None, seed=5).to_json()
    a.pop("seconds"), b.pop("seconds")
    assert a == b and a["options"]


def test_a_hint_is_the_bots_choice_first_then_the_next_best_legal_moves() -> None:
    s = played_until(3, 8, 3)
    v = view(s, s.current)
    h = hint(v, iterations=IT, time_limit=None, seed=2)
    assert h.how == "search" and h.seat == s.current and len(h.options) == 3
    legal = s.legal_moves()
    assert all(o.move in legal for o in h.options)
    # the first option is what the hard bot's search plays with the same budget and seed
    assert h.options[0].move == ISMCTSBot(2, iterations=IT).choose(v)
    assert h.options[0].visits >= max(o.visits for o in h.options)
    j = h.to_json()
    assert j["options"][0]["vs_best"] == 0.0
    for o in j["options"]:
        assert move_of(o["action"])[1] == parse(o["notation"], s)
        assert o["vs_best"] == pytest.approx(o["margin"] - j["options"][0]["margin"], abs=1e-2)
    assert h.iterations == IT


def parse(notation: str, s: State) -> Any:
    from kardinal.rules.moves import parse_move

    return parse_move(notation, s.board)


def test_a_draw_hint_ranks_the_draws_by_the_hand_they_make() -> None:
    s = played_until(4, 5, 2, phase=DRAW)
    h = hint(view(s, s.current))
    legal = s.legal_moves()
    assert h.how == "draw" and h.iterations == 0
    assert len(h.options) == min(3, len(legal)) and all(o.move in legal and isinstance(o.move, Draw) for o in h.options)
    worths = [o.worth for o in h.options]
    assert all(w is not None for w in worths) and worths == sorted(worths, reverse=True)  # type: ignore[type-var]


def test_a_hint_is_for_the_seat_to_act() -> None:
    s = played_until(3, 1, 1)
    other = (s.current + 1) % 3
    with pytest.raises(ValueError, match="whose turn"):
        hint(view(s, other), iterations=IT, time_limit=None)
    with pytest.raises(ValueError, match="whose turn"):
        hint(view(s, None), iterations=IT, time_limit=None)


def test_a_poor_move_is_searched_and_costs_points() -> None:
    """The move played is among the moves searched even where greedy would not look at it,
    and its cost is the best move's expected margin less its own."""
    s = played_until(4, 11, 3)
    seat = s.current
    v = view(s, seat)
    ranked = sorted(score_moves(GreedyBot(0).evaluator(v), s, seat, s.legal_moves()), key=lambda x: x[0])
    worst = next(m for _, m in ranked if isinstance(m, Place))
    r = rate_decision(v, action_of(seat, worst), index=len(s.history or ()), turn=4, iterations=IT, seed=1)
    assert r["played"]["action"] == dict(action_of(seat, worst))
    assert r["played"]["visits"] >= 1
    assert r["best"]["action"] != r["played"]["action"]
    assert r["cost"] == pytest.approx(max(0.0, r["best"]["margin"] - r["played"]["margin"]), abs=2e-3)
    assert r["verdict"] == verdict(r["cost"], r["played"]["gain"], r["best"]["gain"])
    # the bot's own choice costs nothing
    best = move_of(r["best"]["action"])[1]
    again = rate_decision(v, action_of(seat, best), index=0, turn=4, iterations=IT, seed=1)
    assert again["cost"] == 0.0 and again["verdict"] == ""
    with pytest.raises(ValueError):
        rate_decision(view(s, (seat + 1) % 4), action_of(seat, best), 0, 1, IT)


def test_chances_to_win() -> None:
    s = new_game(4, seed=2)
    assert win_chances(view(s, None), 0.0) == pytest.approx([0.25] * 4)
    assert chances_from([20, 10, 10], 4.0)[0] > chances_from([20, 10, 10], 8.0)[0] > 1 / 3
    assert sum(chances_from([3, 9, 4, 12, 5], 6.0)) == pytest.approx(1.0)
    assert spread(0.0) > spread(0.3) > spread(0.8) > spread(1.0) == 0.0
    f = finished(3, 4)
    w = f.winners or []
    assert win_chances(view(f, None), 1.0) == pytest.approx([1 / len(w) if p in w else 0.0 for p in range(3)])


def test_review_of_a_record() -> None:
    s = finished(3, 6)
    rec = json.loads(json.dumps(record_of(s, ["Ada", "Ben", "Cleo"])))
    plan, chances = review_plan(rec, [1])
    assert plan and all(d.seat == 1 and d.view["seat"] == 1 and d.view["current"] == 1 for d in plan)
    assert [d.turn for d in plan] == sorted(d.turn for d in plan)
    history = s.history or []
    for d in plan:
        assert history[d.index].seat == 1 and not isinstance(history[d.index].move, Draw)
        assert move_of(d.action)[1] == history[d.index].move
    assert chances[0][0] == 0 and chances[-1][0] == len(history)
    assert all(sum(c) == pytest.approx(1.0) for _, c in chances)
    rv = review_record(rec, [1], iterations=20, seed=3)
    j = rv.to_json()
    assert j["seats"] == [1] and len(j["decisions"]) == len(plan)
    assert j["summary"][0]["cost"] == pytest.approx(sum(d["cost"] for d in j["decisions"]), abs=0.01)
    assert review_record(rec, [1], iterations=20, seed=3).to_json()["decisions"] == j["decisions"]  # deterministic
    unfinished = dict(rec, actions=rec["actions"][:30])
    unfinished.pop("result", None)
    with pytest.raises(ValueError, match="not over"):
        review_plan(unfinished)


def test_cli_review(tmp_path: Path) -> None:
    s = finished(3, 7)
    path = tmp_path / "game.json"
    path.write_text(json.dumps(record_of(s, ["Ada", "Ben", "Cleo"])), encoding="utf-8")
    runner = CliRunner()
    res = runner.invoke(app, ["review", str(path), "--iterations", "15", "--seat", "1", "--json"])
    assert res.exit_code == 0, res.output
    data = json.loads(res.output)
    assert data["format"] == "kardinal-review" and data["seats"] == [1]
    assert data["players"] == ["Ada", "Ben", "Cleo"]
    res = runner.invoke(app, ["review", str(path), "--iterations", "15", "--seat", "1"])
    assert res.exit_code == 0, res.output
    assert "Chance to win after each turn" in res.output
    assert "Ben:" in res.output and "Ada:" not in res.output.split("Chance to win")[1].split("\n\n", 1)[1]
    for d in data["decisions"]:
        if d["verdict"]:
            assert f"[{d['best']['notation']}]" in res.output
    # the costliest decisions are shown however small, each with its better move
    top = data["summary"][0]["costliest"]
    assert top, "seat 1 plays at random: some of its decisions had a better move"
    for i in top:
        d = next(x for x in data["decisions"] if x["index"] == i)
        assert f"turn {d['turn']} (action {i})" in res.output and f"[{d['best']['notation']}]" in res.output
    # a save of 'kardinal play' names its people: they are reviewed, not the bots
    saved = dict(
        record_of(s, ["Ada", "Ben", "Cleo"]),
        seats=[{"name": "Ada", "bot": "hard"}, {"name": "Ben", "bot": None}, {"name": "Cleo", "bot": "easy"}],
    )
    path2 = tmp_path / "saved.json"
    path2.write_text(json.dumps(saved), encoding="utf-8")
    res = runner.invoke(app, ["review", str(path2), "--iterations", "10", "--json"])
    assert res.exit_code == 0, res.output
    assert json.loads(res.output)["seats"] == [1]
    # refusals
    res = runner.invoke(app, ["review", str(path), "--seat", "3"])
    assert res.exit_code == 2 and "--seat" in res.output
    rec = record_of(s)
    rec["actions"] = rec["actions"][:20]
    rec.pop("result")
    short = tmp_path / "short.json"
    short.write_text(json.dumps(rec), encoding="utf-8")
    res = runner.invoke(app, ["review", str(short)])
    assert res.exit_code == 2 and "not over" in res.output


def test_a_hint_in_words_reads_the_right_way_round() -> None:
    """The terminal's words for a hint: a later option with a slightly higher expected
    margin than the search's choice says so; what rounds to zero reads 0.0; searches are
    counted out of the whole search."""
    from kardinal.clients.text import describe_hint
    from kardinal.rules.board import get_board

    pas = {"act": "pass", "seat": 0}
    opt = {"action": pas, "notation": "pass", "worth": None}
    hint = {
        "how": "search",
        "iterations": 2400,
        "options": [
            {**opt, "visits": 800, "margin": -35.4, "vs_best": 0.0},
            {**opt, "visits": 600, "margin": -34.5, "vs_best": 0.9},
            {**opt, "visits": 500, "margin": -35.42, "vs_best": -0.02},
            {**opt, "visits": 400, "margin": -38.0, "vs_best": -2.6},
        ],
    }
    lines = [x.strip() for x in describe_hint(get_board("standard"), hint).splitlines() if "expected margin" in x]
    assert lines == [
        "expected margin -35.4 points, 800 of 2400 searches",
        "expected margin -34.5 points, +0.9 against the first, which the search still prefers (it weighs the chance to win), 600 of 2400 searches",
        "expected margin -35.4 points, as many points as the first, 500 of 2400 searches",
        "expected margin -38.0 points, -2.6 against the best, 400 of 2400 searches",
    ]


def first_legal_game(players: int, seed: int) -> State:
    """Seat 0 always plays the first legal move (the first legal card); the others are greedy."""
    s = new_game(players, seed=seed)
    bots = [GreedyBot(i) for i in range(players)]
    while not s.is_over:
        s.play(s.legal_moves()[0] if s.current == 0 else bots[s.current].choose(view(s, s.current)))
    return s


def test_the_review_of_a_weak_game_shows_three_costly_decisions_with_a_better_move_each() -> None:
    """A game lost by always playing the first legal card: the review names the three
    costliest decisions of that seat, however small, each with a better move and what it
    would have gained; a mistake is judged against what the best move gained (RELATIVE)."""
    s = first_legal_game(4, 5)
    assert s.winners and 0 not in s.winners  # the first-card player lost
    rec = json.loads(json.dumps(record_of(s, ["Ann", "Ben", "Cleo", "Dan"])))
    j = review_record(rec, [0], iterations=IT, seed=0).to_json()
    assert j["relative"] == RELATIVE
    top = j["summary"][0]["costliest"]
    ds = {d["index"]: d for d in j["decisions"]}
    assert len(top) == 3
    costs = [ds[i]["cost"] for i in top]
    assert costs == sorted(costs, reverse=True) and costs[-1] > 0
    assert costs[-1] >= max(d["cost"] for i, d in ds.items() if i not in top)  # none left out costs more
    for i in top:
        d = ds[i]
        assert d["best"]["action"] != d["played"]["action"]  # a better move, and its value
        assert d["cost"] == pytest.approx(d["best"]["margin"] - d["played"]["margin"], abs=2e-3)
        assert d["played"]["gain"] is not None and d["best"]["gain"] is not None
        assert d["verdict"] == verdict(d["cost"], d["played"]["gain"], d["best"]["gain"])
    # the relative judgement names mistakes the cost alone (3 points or more) does not
    relative = [d for d in j["decisions"] if d["verdict"] == "mistake" and d["cost"] < 3.0]
    assert relative and all(d["played"]["gain"] < 0.5 * d["best"]["gain"] for d in relative)
    assert review_record(rec, [0], iterations=IT, seed=0).to_json()["summary"] == j["summary"]  # deterministic


def test_the_costliest_and_the_verdicts() -> None:
    ds = [{"seat": s, "index": i, "cost": c} for i, (s, c) in enumerate([(0, 0.2), (1, 9.0), (0, 0.0), (0, 0.7), (0, 0.2), (0, 0.1)])]
    assert costliest(ds, 0) == [3, 0, 4]  # ties by their order in the game
    assert costliest(ds, 1) == [1] and costliest(ds, 2) == []
    assert verdict(6.0) == "blunder" and verdict(3.0, gain=9.0, best_gain=9.0) == "mistake"
    assert verdict(1.0, gain=1.0, best_gain=4.0) == "mistake"  # a quarter of what the best gained
    assert verdict(1.0, gain=3.0, best_gain=4.0) == ""  # most of it
    assert verdict(0.4, gain=0.0, best_gain=4.0) == ""  # within the search's noise
    assert verdict(1.0, gain=-1.0, best_gain=0.2) == ""  # nothing much to gain
