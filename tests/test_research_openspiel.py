"""OpenSpiel conformance of python_kardinal (kardinal.research.openspiel_game).

Short by default; KARDINAL_LONG=1 (``make test-research``) runs more games and checks
every decision node.
"""

from __future__ import annotations

import os
import pickle
import random
from pathlib import Path

import numpy as np
import pytest

pyspiel = pytest.importorskip("pyspiel")

from kardinal.bots import make_bot  # noqa: E402
from kardinal.research.actions import action_table  # noqa: E402
from kardinal.research.encode import fields, tensor_size  # noqa: E402
from kardinal.research.ismcts_bot import OpenSpielISMCTSBot  # noqa: E402
from kardinal.research.openspiel_game import GAME_NAME, load  # noqa: E402
from kardinal.rules.board import get_board, standard_board  # noqa: E402
from kardinal.rules.moves import DECK, Draw, Exchange, Pass, Place, parse_move  # noqa: E402
from kardinal.rules.state import new_game  # noqa: E402
from kardinal.rules.view import view  # noqa: E402

LONG = os.environ.get("KARDINAL_LONG") == "1"
PLAYERS = [3, 4, 5]
B = standard_board()


def play_random(state, rng: np.random.RandomState, stop=None):  # type: ignore[no-untyped-def]
    """Play uniformly random legal actions and chance by its probabilities; yield each decision node."""
    while not state.is_terminal():
        if state.is_chance_node():
            acts, probs = zip(*state.chance_outcomes())
            state.apply_action(int(rng.choice(acts, p=probs)))
            continue
        yield state
        state.apply_action(int(rng.choice(state.legal_actions())))


# -- the action table -------------------------------------------------------------------


def test_action_table_size_and_layout() -> None:
    """The table follows its board. Updated for the counted standard board: Lothringen has 5
    sites, so its placements are those of any 5-site country named by one kind (132, as
    England, Aragon, Burgund): 6 one-piece card sets x 6 and 6 two-piece sets x 16
    (10 pairs, 5 site+advisor, 2 advisors); 36 more than on reconstruction-1 (96)."""
    t = action_table(B)
    assert len(t) == 1507 == t.num_place + 30 + 6 + 1
    assert t.place_counts == [132, 222, 174, 174, 132, 276, 132, 96, 132]
    old = action_table(get_board("reconstruction-1"))
    assert len(old) == 1471 == old.num_place + 30 + 6 + 1
    assert old.place_counts == [132, 222, 174, 174, 132, 276, 96, 96, 132]
    assert old is action_table(get_board("reconstruction-1")) and old is not t
    assert isinstance(t.decode(t.first_exchange), Exchange) and isinstance(t.decode(t.first_draw), Draw)
    assert t.decode(t.pass_action) == Pass() and t.decode(len(t) - 2) == Draw(DECK)
    assert all(t.encode(m) == i for i, m in enumerate(t.moves))
    with pytest.raises(ValueError):
        t.decode(len(t))
    with pytest.raises(KeyError):
        t.encode(Place("italien", ("frankreich",), ("verona",), 0))  # a FR card does not name Italien (R4.2)


def test_every_legal_move_is_in_the_table_and_canonical() -> None:
    """R4.9: legal placements come in canonical form (sites sorted), so they match the table and the notation."""
    t = action_table(B)
    for g in range(6 if LONG else 2):
        for n in PLAYERS:
            s = new_game(n, seed=g)
            rng = random.Random(g)
            while not s.is_over:
                moves = s.legal_moves()
                for m in moves:
                    assert t.moves[t.encode(m)] == m
                    assert parse_move(str(m)) == m
                s.play(rng.choice(moves))


# -- OpenSpiel's own tests ------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_random_sim_test(players: int) -> None:
    game = load(players)
    pyspiel.random_sim_test(game, num_sims=12 if LONG else 2, serialize=True, verbose=False)


@pytest.mark.parametrize("players", PLAYERS)
def test_games_sim_test_harness(players: int) -> None:
    from open_spiel.python.tests import games_sim_test

    harness = games_sim_test.GamesSimTest()
    game = pyspiel.load_game(GAME_NAME, {"players": players})
    for _ in range(5 if LONG else 1):
        harness.sim_game(game)
    harness.sim_game(pyspiel.load_game(GAME_NAME, {"players": players, "returns": "win"}))


def test_game_type_and_info() -> None:
    game = load(4)
    gt = game.get_type()
    assert gt.short_name == GAME_NAME
    assert gt.chance_mode == pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC
    assert gt.information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert gt.utility == pyspiel.GameType.Utility.GENERAL_SUM
    assert (gt.min_num_players, gt.max_num_players) == (3, 5)
    assert game.num_distinct_actions() == 1507 and game.max_chance_outcomes() == 5  # the counted board (1471 on reconstruction-1)
    assert game.max_game_length() == 2 * 50 + 4 * (28 + 2 + 84)
    assert game.observation_tensor_shape() == [tensor_size(B, 4)]
    # the counted board: 51 sites x 4 seats (322 on reconstruction-1's 50 sites)
    assert tensor_size(B, 4) == sum(int(np.prod(s)) for _, s in fields(B, 4)) == 326
    assert tensor_size(get_board("reconstruction-1"), 4) == 322
    old = pyspiel.load_game(GAME_NAME, {"players": 4, "board": "reconstruction-1"})
    assert old.num_distinct_actions() == 1471 and old.observation_tensor_shape() == [322]
    with pytest.raises(Exception, match="3 to 5 players"):
        pyspiel.load_game(GAME_NAME, {"players": 2})
    with pytest.raises(Exception, match="returns"):
        pyspiel.load_game(GAME_NAME, {"returns": "points"})


# -- chance ----------------------------------------------------------------------------------


def test_the_deal_is_chance_over_the_composition() -> None:
    game = load(4)
    s = game.new_initial_state()
    assert s.is_chance_node()
    # R2.1: 4 players, one card of each kind removed: 12 FA, 11 BB, 10 LI, 9 ES, 8 FR
    assert s.chance_outcomes() == [(0, 12 / 50), (1, 11 / 50), (2, 10 / 50), (3, 9 / 50), (4, 8 / 50)]
    s.apply_action(4)
    assert dict(s.chance_outcomes())[4] == 7 / 49
    for _ in range(3 * 4 + 2 - 1):
        assert s.is_chance_node()
        s.apply_action(s.chance_outcomes()[0][0])
    assert s.current_player() == 0
    assert s.core.hands[0][4] == 1 and sum(map(sum, s.core.hands)) == 12 and len(s.core.display) == 2
    assert s.core.deck_size == 50 - 14


def test_a_draw_from_the_pile_is_a_chance_node_seen_only_by_the_drawer() -> None:
    game = load(4)
    rng = np.random.RandomState(5)
    for s in play_random(game.new_initial_state(), rng):
        if s.core.phase == "draw" and Draw(DECK) in s.core.legal_moves():
            break
    me = s.current_player()
    before = s.core.deck_size
    unseen = [c for c in s.core.deck[s.core.top :]]
    s.apply_action(game.table.encode(Draw(DECK)))
    assert s.is_chance_node()
    outcomes = dict(s.chance_outcomes())
    assert sum(outcomes.values()) == pytest.approx(1.0)
    for k, p in outcomes.items():
        assert p == pytest.approx(unseen.count(k) / before)
    k = max(outcomes, key=outcomes.get)  # type: ignore[arg-type]
    j = len(s.history())  # the index of the drawn card in the history
    s.apply_action(k)
    for p in range(4):
        assert s.history_tokens(p).split()[j] == (f"c{k}" if p == me else "c?")
    assert s._d.hist[j][2] == me  # seen by the drawer only (R13.2)
    while s.is_chance_node():  # a display refill may follow: public (R13.1)
        refill = s.chance_outcomes()[0][0]
        s.apply_action(refill)
        assert all(s.history_tokens(p).split()[-1] == f"c{refill}" for p in range(4))
    assert s.core.deck_size < before


def test_hidden_cards_do_not_reach_other_players() -> None:
    """R13: two deals that differ only in seat 0's hand look the same to everyone else."""
    game = load(4)
    a, b = game.new_initial_state(), game.new_initial_state()
    for i in range(14):
        a.apply_action(4 if i < 3 else (i % 4))
        b.apply_action(0 if i < 3 else (i % 4))
    assert a.core.hands[0] != b.core.hands[0]
    for p in range(1, 4):
        assert a.information_state_string(p) == b.information_state_string(p)
        assert a.observation_string(p) == b.observation_string(p)
        assert a.information_state_tensor(p) == b.information_state_tensor(p)
        assert a.observation_tensor(p) == b.observation_tensor(p)
    assert a.information_state_string(0) != b.information_state_string(0)
    assert a.observation_tensor(0) != b.observation_tensor(0)


# -- serialization, clones, returns ---------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_serialize_pickle_clone_round_trips(players: int) -> None:
    game = load(players)
    rng = np.random.RandomState(players)
    for i, s in enumerate(play_random(game.new_initial_state(), rng)):
        if i % (7 if LONG else 23):
            continue
        for t in (pickle.loads(pickle.dumps(s)), game.deserialize_state(s.serialize()), s.clone()):
            assert str(t) == str(s) and t.history() == s.history()
            assert t.information_state_string(0) == s.information_state_string(0)
            assert t.core.key() == s.core.key()
        _, s2 = pyspiel.deserialize_game_and_state(pyspiel.serialize_game_and_state(game, s))
        assert str(s2) == str(s)
        c = s.clone()
        c.apply_action(c.legal_actions()[0])
        assert c.history() != s.history() and s.core.key() != c.core.key() or c.is_chance_node()


def test_returns_are_final_scores_or_win_shares() -> None:
    for mode in ("scores", "win"):
        game = load(3, mode)
        s = game.new_initial_state()
        for _ in play_random(s, np.random.RandomState(2)):
            assert s.returns() == [0.0, 0.0, 0.0]
        assert s.is_terminal()
        if mode == "scores":
            assert s.returns() == [float(x) for x in s.core.scores]
        else:
            assert sum(s.returns()) == pytest.approx(1.0)
            assert all((r > 0) == (p in s.core.winners) for p, r in enumerate(s.returns()))


def test_an_illegal_action_is_refused() -> None:
    game = load(4)
    s = game.new_initial_state()
    for _ in range(14):
        s.apply_action(s.chance_outcomes()[0][0])
    legal = set(s.legal_actions())
    bad = next(a for a in range(game.num_distinct_actions()) if a not in legal)
    key = s.core.key()
    with pytest.raises(Exception, match=r"R\d"):
        s.apply_action(bad)
    assert s.core.key() == key


@pytest.mark.parametrize("players", PLAYERS)
def test_what_python_answers_itself_is_what_openspiel_answers(players: int) -> None:
    """legal_actions() and is_chance_node() are answered in Python (not through C++): at
    every node of random games, chance, decision and terminal, they equal OpenSpiel's own
    (pyspiel.State's methods on the same state). A decision applied without asking for the
    legal actions first (nothing cached) gives the same game as one asked for them; an
    illegal action is refused either way and changes nothing."""
    game = load(players)
    rng = np.random.RandomState(players)
    for g in range(4 if not LONG else 40):
        asked, blind = game.new_initial_state(), game.new_initial_state()
        nodes = refused = 0
        while True:
            assert asked.is_chance_node() == pyspiel.State.is_chance_node(asked) == blind.is_chance_node()
            assert asked.legal_actions() == pyspiel.State.legal_actions(asked)
            assert asked.legal_actions_mask() == pyspiel.State.legal_actions_mask(asked)
            nodes += 1
            if asked.is_terminal():
                assert asked.legal_actions() == [] and blind.is_terminal()
                break
            if asked.is_chance_node():
                outcomes = asked.chance_outcomes()
                counted = asked.clone()
                counted._d.left = None  # the pile's kinds counted from the core, not kept
                assert counted.chance_outcomes() == outcomes == blind.chance_outcomes()
                acts, probs = zip(*outcomes)
                action = int(rng.choice(acts, p=probs))
            else:
                legal = asked.legal_actions()
                if g % 2 and rng.random() < 0.1:
                    bad = int(rng.choice([a for a in range(game.num_distinct_actions()) if a not in legal]))
                    for st in (asked, blind):
                        key, history = st.core.key(), st.history()
                        with pytest.raises(Exception, match=r"R\d"):
                            st.apply_action(bad)
                        assert st.core.key() == key and st.history() == history
                    refused += 1
                action = int(rng.choice(legal))
            asked.apply_action(action)
            blind.apply_action(action)
            assert str(asked) == str(blind)
        assert asked.returns() == blind.returns() and asked.history() == blind.history()
        assert nodes > 100 and (refused > 0 or not g % 2)


# -- resampling ------------------------------------------------------------------------------


@pytest.mark.parametrize("players", PLAYERS)
def test_resample_from_infostate_is_consistent(players: int) -> None:
    """At decision nodes, for every player: same information state, observation, current player;
    the resampled history is a possible one (replaying it gives the same state)."""
    game = load(players)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    checked = 0
    for g in range(4 if LONG else 1):
        rng = np.random.RandomState(100 * players + g)
        for i, s in enumerate(play_random(game.new_initial_state(), rng)):
            if not LONG and i % 5:
                continue
            for p in range(players):
                r = s.resample_from_infostate(p, sampler)
                assert r.information_state_string(p) == s.information_state_string(p)
                assert r.observation_string(p) == s.observation_string(p)
                assert r.information_state_tensor(p) == s.information_state_tensor(p)
                assert r.observation_tensor(p) == s.observation_tensor(p)
                assert r.current_player() == s.current_player()
                if p == s.current_player():
                    assert r.legal_actions() == s.legal_actions()
                if (LONG and i % 4 == 0) or i % 25 == 0:
                    x = game.new_initial_state()
                    for a in r.history():
                        if x.is_chance_node():
                            assert a in dict(x.chance_outcomes())
                        x.apply_action(a)
                    assert str(x) == str(r)
                checked += 1
    assert checked > 20


def test_resampling_changes_hidden_cards() -> None:
    game = load(4)
    sampler = pyspiel.UniformProbabilitySampler(0.0, 1.0)
    s = game.new_initial_state()
    for i, _ in enumerate(play_random(s, np.random.RandomState(9))):
        if i == 30:
            break
    seen = {tuple(map(tuple, s.resample_from_infostate(0, sampler).core.hands[1:])) for _ in range(20)}
    assert len(seen) > 1
    assert all(s.resample_from_infostate(0, sampler).core.hands[0] == s.core.hands[0] for _ in range(5))


def test_openspiel_ismcts_runs_on_the_game_with_its_resampler() -> None:
    from open_spiel.python.algorithms import ismcts, mcts

    game = load(3, "win")
    s = game.new_initial_state()
    for i, _ in enumerate(play_random(s, np.random.RandomState(4))):
        if i == 10:
            break
    rs = np.random.RandomState(0)
    bot = ismcts.ISMCTSBot(game, mcts.RandomRolloutEvaluator(1, rs), 2.0, 8, random_state=rs, allow_inconsistent_action_sets=True)
    policy, action = bot.step_with_policy(s)
    assert action in s.legal_actions() and sum(p for _, p in policy) == pytest.approx(1.0)


# -- the yardstick bot ---------------------------------------------------------------------


def test_openspiel_ismcts_bot_plays_a_whole_game_legally() -> None:
    bots = [OpenSpielISMCTSBot(1, simulations=3 if not LONG else 20, seconds=None), make_bot("random", 2), make_bot("random", 3)]
    s = new_game(3, seed=11)
    while not s.is_over:
        s.play(bots[s.current].choose(view(s, s.current)))  # play() checks the move
    assert s.winners


def test_state_from_view_matches_the_view() -> None:
    from kardinal.research.openspiel_game import state_from_view

    game = load(4)
    s = new_game(4, seed=21)
    rng = random.Random(0)
    for _ in range(40):
        s.play(rng.choice(s.legal_moves()))
    v = view(s, s.current)
    st = state_from_view(game, v, random.Random(1))
    assert st.current_player() == s.current
    assert sorted(game.table.decode(a) for a in st.legal_actions()) == sorted(s.legal_moves())
    assert view(st.core, s.current) | {"history": None} == v | {"history": None}
    with pytest.raises(ValueError, match="state_from_view"):
        st.resample_from_infostate(s.current, pyspiel.UniformProbabilitySampler(0.0, 1.0))


def test_openspiel_ismcts_is_in_the_registry() -> None:
    bot = make_bot("openspiel-ismcts", seed=1)
    assert isinstance(bot, OpenSpielISMCTSBot) and bot.seconds == 1.5
    with pytest.raises(ValueError):
        OpenSpielISMCTSBot(simulations=None, seconds=None)


def test_openspiel_ismcts_is_in_no_players_list_of_bots(tmp_path: Path) -> None:
    """A research yardstick, described in no player's terms (issue 43, item 13): the
    server's list of bots (the lobby, new table, seat settings, the stand-in, the bots'
    ratings) leaves it out; a table takes it by name all the same."""
    from web_helpers import make_client

    from kardinal.bots import levels

    assert "openspiel-ismcts" in [n for n, _ in levels(served=True)]
    assert "openspiel-ismcts" not in [n for n, _ in levels(offered=True)]
    with make_client(tmp_path) as c:
        offered = c.get("/api/bots").json()
        assert "openspiel-ismcts" not in offered["levels"] and "openspiel-ismcts" not in offered["about"]
        assert "hard" in offered["levels"]
        assert "openspiel-ismcts" not in [b["level"] for b in c.get("/api/leaderboard").json()["bots"]]
        players = [{"name": "Anna", "kind": "person"}, {"kind": "bot", "level": "openspiel-ismcts"}, {"kind": "bot", "level": "random"}]
        r = c.post("/api/games", json={"players": players})
        assert r.status_code == 200, r.text


def _tensor_by_fields(s, seat, dealing, own_hand):  # type: ignore[no-untyped-def]
    """The observation tensor built the slow, obvious way: each field of ``fields()`` by itself."""
    n, K = s.n, len(s.discard)
    one = lambda size, i: [1.0 if j == i else 0.0 for j in range(size)]  # noqa: E731
    value = {
        "seat": one(n, seat),
        "current": one(n, None if dealing or s.is_over else s.current),
        "phase": one(4, 0 if dealing else ("deal", "main", "draw", "over").index(s.phase.value)),
        "hand": list(s.hands[seat]) if seat is not None and own_hand else [0] * K,
        "hand_sizes": [sum(h) for h in s.hands],
        "known": [x for row in s.known for x in row],
        "display": [s.display.count(k) for k in range(K)],
        "deck_size": [s.deck_size],
        "discard": s.discard,
        "removed": s.removed,
        "sites": [x for p in s.owner for x in one(n, p if p >= 0 else None)],
        "advisors": [x for row in s.advisors for x in row],
        "advisor_limit": s.most_cloisters,
        "supply": [x for p in range(n) for x in (s.supply_cl[p], s.supply_adv[p])],
        "scores": s.scores,
        "turns": s.turns,
        "exhaustions": one(3, s.exhaustions),
        "final_round": [1.0 if s.final_round else 0.0],
    }
    out = []
    for name, shape in fields(s.board, n):
        assert len(value[name]) == int(np.prod(shape)), name
        out += value[name]
    return np.array(out, np.float32)


def test_the_observation_tensor_holds_each_field_where_fields_says() -> None:
    """write_tensor (three numpy writes) against the tensor built field by field, for every
    seat and the public observer, dealing or not, own hand shown or not, along random games."""
    from kardinal.research.encode import write_tensor

    checked = 0
    for n in PLAYERS:
        s = new_game(n, seed=50 + n, history=False)
        rng = random.Random(n)
        out = np.full(tensor_size(B, n), 7.0, np.float32)  # every entry must be written
        while True:
            if checked % 7 == 0 or s.is_over:
                for seat in [None, *range(n)]:
                    for dealing in (False, True):
                        for own_hand in (False, True):
                            write_tensor(out, s, seat, dealing, own_hand)
                            assert (out == _tensor_by_fields(s, seat, dealing, own_hand)).all(), (n, seat, dealing, own_hand)
            checked += 1
            if s.is_over:
                break
            s.play(rng.choice(s.legal_moves()))
    assert checked > 300
