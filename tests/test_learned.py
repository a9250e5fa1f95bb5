"""The learned leaf evaluation (kardinal/bots/learned.py) and its training script."""

from __future__ import annotations

import math
from typing import Any

import pytest

from kardinal.bots import ISMCTSBot
from kardinal.bots.evaluate import Evaluator
from kardinal.bots.greedy import GreedyBot
from kardinal.bots.learned import VALUE_FEATURES, ValueModel, default_model, value_features
from kardinal.rules.state import MAIN, State, new_game
from kardinal.rules.view import view


def _positions(players: int, seed: int, every: int = 3) -> list[State]:
    """Main decisions of a game of greedy bots, every ``every``-th, and its end."""
    s = new_game(players, seed=seed)
    bots = [GreedyBot(seed * 10 + i) for i in range(players)]
    out: list[State] = []
    k = 0
    while not s.is_over:
        if s.phase == MAIN:
            if k % every == 0:
                out.append(s.copy())
            k += 1
        s.play(bots[s.current].choose(view(s, s.current)))
    out.append(s)
    return out


def test_features_describe_every_seat() -> None:
    for players in (3, 4, 5):
        for s in _positions(players, players, every=7)[:-1]:
            feats = value_features(Evaluator(s.board), s)
            assert len(feats) == players
            assert all(len(f) == len(VALUE_FEATURES) for f in feats)
            assert feats[0][VALUE_FEATURES.index(f"n{players}")] == 1.0
            for p in range(players):
                assert feats[p][VALUE_FEATURES.index("hand0")] == s.hands[p][0]
                assert feats[p][VALUE_FEATURES.index("lead")] == s.scores[p] - max(x for q, x in enumerate(s.scores) if q != p)


def test_shipped_weights_give_finite_estimates() -> None:
    model = default_model()
    assert len(model.stages) == 3
    seen = set()
    for players in (3, 4, 5):
        positions = _positions(players, 10 + players, every=2)
        ev = Evaluator(positions[0].board)
        for s in positions[:-1]:
            est = model.estimate(ev, s)
            assert len(est) == players and all(math.isfinite(x) for x in est)
            seen.add(ev.leaf_stage(s))
        end = positions[-1]
        assert model.estimate(ev, end) == [float(x) for x in end.scores]  # a finished game: the true scores
    assert seen == {0, 1, 2}


@pytest.mark.filterwarnings("ignore:Stochastic Optimizer")  # 20 epochs: it need not converge to be compared
def test_inference_equals_scikit_learn_on_a_tiny_training_run() -> None:
    pytest.importorskip("sklearn")
    np = pytest.importorskip("numpy")
    from kardinal.research import train_value

    parts = [train_value.play((g, (3, 4)[g % 2], 1, (0.0, 1.0))) for g in range(4)]
    x = np.array([r for part in parts for r in part[0]])
    y = np.array([v for part in parts for v in part[1]])
    stage = np.array([v for part in parts for v in part[3]])
    cfg: dict[str, Any] = dict(train_value.SETTINGS, mlp_max_iter=20)
    for kind in ("ridge", "mlp32"):
        pipes = [train_value.make_model(kind, cfg).fit(x[stage == st], y[stage == st]) for st in range(3)]
        model = ValueModel({"features": list(VALUE_FEATURES), "stages": [train_value.export(p) for p in pipes]})
        for st in range(3):
            want = pipes[st].predict(x[stage == st])
            got = [model.points_to_come(st, list(row)) for row in x[stage == st]]
            assert max(abs(a - b) for a, b in zip(got, want, strict=True)) < 1e-9


def test_a_model_of_other_features_is_refused() -> None:
    with pytest.raises(ValueError, match="VALUE_FEATURES"):
        ValueModel({"features": ["cl"], "stages": []})


def test_search_with_the_learned_leaf_is_deterministic_and_legal() -> None:
    s = _positions(4, 3, every=5)[2]
    v = view(s, s.current)
    moves = []
    for _ in range(2):
        bot = ISMCTSBot(5, iterations=40, leaf="learned")
        m = bot.choose(v)
        assert m in s.legal_moves()
        moves.append(m)
    assert moves[0] == moves[1]
    with pytest.raises(ValueError, match="learned"):
        ISMCTSBot(5, iterations=40, leaf="grown")


def test_paired_difference_of_two_entries() -> None:
    from kardinal.bots.tournament import GameResult, seating
    from kardinal.research.compare_leaf import paired, whole_blocks

    def game(g: int, winner_entry: int) -> GameResult:
        seats = seating(g, 4)
        return GameResult(g, 0, seats, [0] * 4, [seats.index(winner_entry)], [0] * 4, [], [])

    always = [game(g, 0) for g in range(8)]
    assert paired(always, 0, 1, 4, seed=1) == (100.0, 100.0, 100.0)
    half = [game(g, g % 2) for g in range(8)]
    assert paired(half, 0, 1, 4, seed=1) == (0.0, 0.0, 0.0)
    assert len(whole_blocks(half[:6], 4)) == 4  # the unfinished second block is left out
