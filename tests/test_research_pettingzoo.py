"""PettingZoo conformance of kardinal_v0 (kardinal.research.pettingzoo_env).

Short by default; KARDINAL_LONG=1 (``make test-research``) runs longer checks and the
performance benchmark for every player count.
"""

from __future__ import annotations

import os

import numpy as np
import pytest

pytest.importorskip("pettingzoo")

from pettingzoo.test import api_test, performance_benchmark, seed_test  # noqa: E402
from pettingzoo.utils import wrappers  # noqa: E402

from kardinal.research.actions import action_table  # noqa: E402
from kardinal.research.pettingzoo_env import env, raw_env, stock_env  # noqa: E402
from kardinal.rules.state import RuleError  # noqa: E402

LONG = os.environ.get("KARDINAL_LONG") == "1"
PLAYERS = [3, 4, 5]


# dict observations with an action mask are the pettingzoo.classic style; api_test warns about them
@pytest.mark.filterwarnings("ignore:Observation space for each agent probably should be")
@pytest.mark.filterwarnings("ignore:Observation is not a NumPy array")
@pytest.mark.parametrize("players", PLAYERS)
def test_api_test(players: int) -> None:
    api_test(env(players=players), num_cycles=1000 if LONG else 200)


@pytest.mark.parametrize("players", PLAYERS)
def test_seed_test(players: int) -> None:
    seed_test(lambda: env(players=players), num_cycles=500 if LONG else 100)


@pytest.mark.parametrize("players", PLAYERS if LONG else [4])
def test_performance_benchmark_with_legal_moves(players: int, capsys: pytest.CaptureFixture[str]) -> None:
    performance_benchmark(env(players=players))  # picks actions from the action mask: legal only
    out = capsys.readouterr().out
    assert "turns per second" in out


def play(e, rng: np.random.RandomState) -> dict[str, float]:  # type: ignore[no-untyped-def]
    """A random legal game through the AEC loop; the final rewards."""
    final: dict[str, float] = {}
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        final[agent] = reward
        if termination or truncation:
            e.step(None)
            continue
        others = [a for a in e.agents if a != agent]
        assert all(e.observe(a)["action_mask"].sum() == 0 for a in others)
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    return final


def test_rewards_come_at_the_end_and_are_the_final_scores() -> None:
    e = env(players=4)
    e.reset(seed=3)
    core = e.unwrapped.state
    rewards_seen = []
    rng = np.random.RandomState(0)
    for agent in e.agent_iter():
        obs, reward, termination, truncation, _ = e.last()
        if termination or truncation:
            rewards_seen.append((agent, reward))
            e.step(None)
            continue
        assert reward == 0.0
        e.step(int(rng.choice(np.flatnonzero(obs["action_mask"]))))
    assert core.is_over
    assert sorted(rewards_seen) == [(f"player_{i}", float(core.scores[i])) for i in range(4)]


def test_win_rewards_share_one_point() -> None:
    e = env(players=3, rewards="win")
    e.reset(seed=8)
    final = play(e, np.random.RandomState(1))
    assert sum(final.values()) == pytest.approx(1.0)


def test_observation_holds_only_the_own_hand() -> None:
    """R13: changing another hand (same size) does not change an observation."""
    e = raw_env(players=4)
    e.reset(seed=5)
    s = e.state
    before = {a: e.observe(a)["observation"].copy() for a in e.agents}
    h = s.hands[2]
    k_from = next(k for k, c in enumerate(h) if c)
    k_to = (k_from + 1) % len(h)
    h[k_from] -= 1
    h[k_to] += 1
    for i, a in enumerate(e.agents):
        same = np.array_equal(before[a], e.observe(a)["observation"])
        assert same == (i != 2)


def test_same_seed_same_game_and_masks_are_exactly_the_legal_moves() -> None:
    e1, e2 = raw_env(players=5), raw_env(players=5)
    e1.reset(seed=11)
    e2.reset(seed=11)
    assert e1.state.key() == e2.state.key()
    t = action_table(e1.board)
    mask = e1.observe(e1.agent_selection)["action_mask"]
    assert sorted(np.flatnonzero(mask).tolist()) == sorted(t.encode(m) for m in e1.state.legal_moves())


def test_illegal_actions() -> None:
    raw = raw_env(players=4)
    raw.reset(seed=1)
    mask = raw.observe(raw.agent_selection)["action_mask"]
    bad = int(np.flatnonzero(mask == 0)[0])
    key = raw.state.key()
    with pytest.raises(RuleError):
        raw.step(bad)
    assert raw.state.key() == key
    wrapped = env(players=4)
    wrapped.reset(seed=1)
    agent = wrapped.agent_selection
    wrapped.step(bad)  # TerminateIllegalWrapper: the game ends, the agent gets -1
    assert all(wrapped.terminations.values()) and wrapped.rewards[agent] == -1
    with pytest.raises(ValueError):
        raw_env(players=6)


@pytest.mark.parametrize("board, actions, obs", [("standard", 1507, 326), ("reconstruction-1", 1471, 322)])
def test_spaces_follow_the_board(board: str, actions: int, obs: int) -> None:
    """The action table and the observation follow the board given (4 players): the counted
    standard board has one Lothringen site more than reconstruction-1 (36 placements, 4 floats)."""
    e = raw_env(players=4, board=board)
    e.reset(seed=3)
    assert e.board.id == board
    assert e.action_space("player_0").n == actions == len(action_table(e.board))
    assert e.observe(e.agent_selection)["observation"].shape == (obs,)
    mask = e.observe(e.agent_selection)["action_mask"]
    assert sorted(np.flatnonzero(mask).tolist()) == sorted(action_table(e.board).encode(m) for m in e.state.legal_moves())


def _same_last(a, b) -> None:  # type: ignore[no-untyped-def]
    (oa, ra, ta, ua, ia), (ob, rb, tb, ub, ib) = a, b
    assert (ra, ta, ua, ia) == (rb, tb, ub, ib)
    assert (oa is None) == (ob is None)
    if oa is not None:
        assert sorted(oa) == sorted(ob)
        for k in oa:
            assert oa[k].dtype == ob[k].dtype and np.array_equal(oa[k], ob[k])


def _outcome(f, *args) -> tuple[str, str]:  # type: ignore[no-untyped-def]
    try:
        f(*args)
    except Exception as e:  # noqa: BLE001 - the two must fail alike
        return type(e).__name__, str(e)
    return "", ""


@pytest.mark.filterwarnings("ignore::UserWarning")
@pytest.mark.parametrize("players, seed", [(3, 1), (4, 2), (5, 3)])
def test_the_one_checking_layer_behaves_as_pettingzoos_three_wrappers(players: int, seed: int) -> None:
    """env() (one layer, Checked) and stock_env() (PettingZoo's TerminateIllegalWrapper,
    AssertOutOfBoundsWrapper and OrderEnforcingWrapper) side by side, on the same actions:
    legal ones, illegal ones (the game ends, -1), out-of-range ones and ones of the wrong
    type (AssertionError), numpy integers, None for the finished agents, steps after the
    end, and calls before reset. Every answer, error and attribute is the same."""
    ours, stock = env(players=players), stock_env(players=players)
    assert isinstance(ours, wrappers.OrderEnforcingWrapper) and str(ours) == str(stock) == "kardinal_v0"
    for name in ("agent_selection", "agents", "rewards", "terminations", "truncations", "infos", "num_agents"):
        assert _outcome(getattr, ours, name) == _outcome(getattr, stock, name) != ("", "")
    for call in (lambda e: e.step(0), lambda e: e.observe("player_0"), lambda e: e.last(), lambda e: e.agent_iter()):
        assert _outcome(call, ours) == _outcome(call, stock) != ("", "")
    rng = np.random.default_rng(seed)
    steps = illegal = refused = 0
    for game in range(12):
        ours.reset(seed=seed * 100 + game)
        stock.reset(seed=seed * 100 + game)
        for agent, agent2 in zip(ours.agent_iter(), stock.agent_iter()):
            assert agent == agent2
            last = ours.last()
            _same_last(last, stock.last())
            obs, _, term, trunc, _ = last
            for name in ("agents", "rewards", "terminations", "truncations", "infos", "_cumulative_rewards"):
                assert getattr(ours, name) == getattr(stock, name)
            if term or trunc:
                action = None
            else:
                roll = rng.random()
                if game % 3 == 1 and roll < 0.02:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"] == 0)))  # illegal: the game ends
                    illegal += 1
                elif roll < 0.05:
                    size = int(ours.action_space(agent).n)
                    bad = [-1, size, size + players, 2.5, "1", None][int(rng.integers(6))]
                    assert _outcome(ours.step, bad) == _outcome(stock.step, bad) != ("", "")
                    refused += 1
                    # a refused action changed nothing; the loop asks for the next step again
                    legal = np.flatnonzero(obs["action_mask"])
                    action = legal[int(rng.integers(len(legal)))]  # a numpy integer
                else:
                    action = int(rng.choice(np.flatnonzero(obs["action_mask"])))
            assert _outcome(ours.step, action) == _outcome(stock.step, action)
            steps += 1
        assert ours.rewards == stock.rewards and ours._cumulative_rewards == stock._cumulative_rewards
        assert _outcome(ours.step, None) == _outcome(stock.step, None)  # after the end: a warning
    assert steps > 1000 and illegal >= 2 and refused >= 20
