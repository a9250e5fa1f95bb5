"""The belief over the other hands from their draws (kardinal.bots.infer, R5.1, R13).

``last_refills`` reads, from a view's public history alone, what each other player saw
and took at each draw of their last refill; the tests compare it with what the game
recorded as it went. ``DrawBelief`` weighs deals by how a player drawing by greedy's
rule would have drawn; against such players it must favour their true hands, and a
determinizer with it must still deal only what the view allows.
"""

from __future__ import annotations

import random

import pytest

from kardinal.bots import GreedyBot, ISMCTSBot
from kardinal.bots.determinize import TRIES, Determinizer
from kardinal.bots.evaluate import Evaluator
from kardinal.bots.infer import DrawBelief, last_refills
from kardinal.rules.events import NewDrawPile
from kardinal.rules.moves import DECK, Draw, Place
from kardinal.rules.state import MAIN, State, new_game
from kardinal.rules.view import view


def played(players: int, seed: int, noise: float = 0.3) -> list[tuple[State, dict[int, list[tuple[tuple[int, ...], bool, int]]]]]:
    """Main-decision positions of a game of greedy players (``noise``: share of random
    decisions, draws included), each with every seat's last refill as it was played:
    (display before the draw, pile not empty, card taken: kind index or -1 for the pile)."""
    rng = random.Random(seed)
    bots = [GreedyBot(seed + i) for i in range(players)]
    s = new_game(players, seed=seed)
    b = s.board
    last: dict[int, list[tuple[tuple[int, ...], bool, int]] | None] = {}
    out = []
    while not s.is_over:
        if s.phase == MAIN:
            out.append((s.copy(), {q: list(r) for q, r in last.items() if r}))
        p = s.current
        before = (tuple(sorted(s.display)), s.deck_size > 0)
        m = rng.choice(s.legal_moves()) if rng.random() < noise else bots[p].choose(view(s, p))
        s.play(m)
        assert s.history is not None
        if any(isinstance(e, NewDrawPile) for e in s.history[-1].events):
            last = {}  # a refill the pile was formed again in, or before, is not read
            continue
        if isinstance(m, Draw):
            refill = last.get(p)
            if refill is not None:
                refill.append((before[0], before[1], -1 if m.source == DECK else b.kind_index[m.source]))
        else:
            last[p] = [] if isinstance(m, Place) else None
    return out


@pytest.mark.parametrize(("players", "seed"), [(3, 1), (4, 2), (5, 3), (4, 4)])
def test_last_refills_are_what_each_player_saw_and_took(players: int, seed: int) -> None:
    """From the view's history alone: the display before each draw, whether the pile had a
    card, and the card taken, for every other seat's last refill; not the viewer's own."""
    checked = 0
    for s, expected in played(players, seed):
        me = s.current
        got = last_refills(view(s, me), s.board)
        assert me not in got
        assert got == {q: r for q, r in expected.items() if q != me}
        checked += len(got)
    assert checked > 50


def test_a_view_without_history_reads_no_refill() -> None:
    s, _ = played(4, 5)[20]
    assert last_refills(view(s, s.current, history=False), s.board) == {}


def believing(s: State, epsilon: float) -> tuple[Determinizer, DrawBelief]:
    """The viewer's (the seat to act) determinizer and the belief its view gives."""
    v = view(s, s.current)
    sampler = Determinizer(v, s.board)
    return sampler, DrawBelief(v, sampler.template, Evaluator(s.board), epsilon)


def true_hand_share(players: int, seed: int, infer: bool) -> tuple[int, int]:
    """Over the positions of a game of greedy players (who draw by the rule), how often a
    sampled hand of an opponent whose last refill is read equals their true hand."""
    hits = total = 0
    for i, (s, _) in enumerate(played(players, seed, noise=0.0)):
        if i % 3:
            continue
        sampler, belief = believing(s, 0.25)
        if infer:
            sampler.accept = belief.accept
        rng = random.Random(i)
        for _ in range(40):
            d = sampler.sample(rng)
            for q in belief.refills:
                hits += d.hands[q] == s.hands[q]
                total += 1
    return hits, total


@pytest.mark.parametrize(("players", "seed"), [(4, 6), (3, 7)])
def test_the_belief_favours_the_true_hands_of_players_who_draw_by_the_rule(players: int, seed: int) -> None:
    """Against greedy players the belief deals their true hands much more often than chance."""
    hits, total = true_hand_share(players, seed, infer=True)
    base_hits, base_total = true_hand_share(players, seed, infer=False)
    assert total == base_total > 500
    assert hits / total > 1.3 * base_hits / base_total


@pytest.mark.parametrize(("players", "seed"), [(3, 8), (5, 9)])
def test_a_belief_deals_only_what_the_view_allows(players: int, seed: int) -> None:
    """Every deal of a determinizer with a belief has the viewer's view of the true state,
    and the weights are probabilities no greater than the largest the belief allows."""
    for i, (s, _) in enumerate(played(players, seed)):
        if i % 4:
            continue
        me = s.current
        sampler, belief = believing(s, 0.1)
        sampler.accept = belief.accept
        rng = random.Random(i)
        for _ in range(5):
            d = sampler.sample(rng)
            assert view(d, me, history=False) == view(s, me, history=False)
            for q in belief.refills:
                assert 0.0 < belief.likelihood(q, d.hands[q]) <= belief.best[q] + 1e-12


def test_a_determinizer_deals_as_before_when_it_accepts_every_deal_and_gives_up_after_tries() -> None:
    s, _ = played(4, 10)[12]
    v = view(s, s.current)
    plain, accepting = Determinizer(v), Determinizer(v, accept=lambda hands, rng: True)
    assert plain.sample(random.Random(3)).key() == accepting.sample(random.Random(3)).key()
    asked = []

    def never(hands: list[list[int]], rng: random.Random) -> bool:
        asked.append(hands)
        return False

    d = Determinizer(v, accept=never).sample(random.Random(3))
    assert len(asked) == TRIES - 1  # the last deal is kept without asking
    assert view(d, s.current, history=False) == view(s, s.current, history=False)


def test_inference_is_an_option_of_the_search() -> None:
    s, _ = played(4, 11)[9]
    moves = []
    for _ in range(2):
        bot = ISMCTSBot(3, iterations=60, infer=0.25)
        moves.append((bot.choose(view(s, s.current)), bot.last_root))
    assert moves[0] == moves[1]
    assert ISMCTSBot(0).infer is None
    for bad in (0.0, -0.5, 1.5):
        with pytest.raises(ValueError, match="infer must be in"):
            ISMCTSBot(0, infer=bad)
    with pytest.raises(ValueError, match="epsilon must be in"):
        DrawBelief(view(s, s.current), s, Evaluator(s.board), 0.0)
