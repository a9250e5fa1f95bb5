"""R5-R8: refilling the hand, exchanging, the intermediate scoring at the exact moment,
the end of the game (completed round, nobody can place), the final scoring and the winner.

Positions are hand-made: ``game`` fixes the deal; ``burn`` empties the draw pile down to a
few cards (into the discard pile, so every card stays accounted for).
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from conftest import BB, ES, FA, FR, LI, LONG, assert_rejected, burn, card_total, game, pl, put_cloisters

from kardinal.rules.moves import DECK, Draw, Exchange, Place
from kardinal.rules.scoring import cloister_scoring, final_scoring
from kardinal.rules.state import DRAW, MAIN, OVER, State, new_game

HANDS = [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["LI", "LI", "BB"]]


def k(s: State, kind: str) -> int:
    return s.board.kind_index[kind]


def ids(s: State, kinds: list[int]) -> list[str]:
    return [s.board.cards[x].id for x in kinds]


def base(then: list[str] | None = None) -> State:
    """4 players; display FA, BB; Italien has seat 1's cloister on mailand."""
    s = game(4, HANDS, ["FA", "BB"], then=then or ["ES", "LI", "FR", "BB"])
    put_cloisters(s, 1, ["mailand"])
    return s


# -- R5 refilling the hand -------------------------------------------------------------------


def test_R5_1_R5_2_draw_card_by_card_display_refilled_only_when_full() -> None:
    s = base()
    s.play(pl("FR,FR,LI", "italien", "verona+venedig"))
    assert s.phase == DRAW and s.current == 0 and s.hand_size(0) == 0
    assert s.legal_moves() == [Draw(FA), Draw(BB), Draw(DECK)]
    s.play(Draw(FA))
    assert s.display == [k(s, BB)]  # R5.2: not refilled yet
    assert s.phase == DRAW and s.current == 0
    assert s.legal_moves() == [Draw(BB), Draw(DECK)]
    s.play(Draw(DECK))  # the top of the pile: ES
    assert s.hands[0][k(s, ES)] == 1
    assert s.display == [k(s, BB)]  # still not refilled
    s.play(Draw(BB))
    # hand full: display refilled from the pile (LI, FR), the turn passes on
    assert s.hand_size(0) == 3
    assert sorted(s.display) == sorted([k(s, LI), k(s, FR)])
    assert s.current == 1 and s.phase == MAIN
    assert s.turns == [1, 0, 0, 0]
    # R13.1: the display cards taken are publicly known to be in the hand
    assert s.known[0][k(s, FA)] == 1 and s.known[0][k(s, BB)] == 1 and s.known[0][k(s, ES)] == 0


def test_R5_1_one_card_played_one_card_drawn() -> None:
    s = base()
    s.play(pl("LI", "italien", "verona"))
    assert s.phase == DRAW
    s.play(Draw(DECK))
    assert s.current == 1 and s.phase == MAIN
    assert sorted(s.display) == sorted([k(s, FA), k(s, BB)])  # nothing taken from it: unchanged


def test_R5_1_draw_a_card_not_on_display_refused() -> None:
    s = base()
    s.play(pl("LI", "italien", "verona"))
    assert_rejected(s, Draw(ES), "R5.1", "not_on_display")
    assert_rejected(s, Draw("nothing"), "R5.1", "unknown_card")


def test_R5_3_nothing_left_to_draw_the_hand_stays_short() -> None:
    s = base()
    burn(s, 0)
    for x in s.display:
        s.discard[x] += 1
    s.display = []
    s.exhaustions, s.final_round = 2, True
    s.play(pl("LI", "italien", "verona"))
    assert s.hand_size(0) == 2 and s.current == 1 and s.phase == MAIN


def test_R5_3_only_the_display_is_left() -> None:
    s = base()
    burn(s, 0)
    s.exhaustions, s.final_round = 2, True
    s.play(pl("FR,FR,LI", "italien", "verona+venedig"))
    assert s.legal_moves() == [Draw(FA), Draw(BB)]
    assert_rejected(s, Draw(DECK), "R8.2", "deck_empty")
    s.play(Draw(BB))
    s.play(Draw(FA))
    assert s.hand_size(0) == 2 and s.display == [] and s.current == 1


# -- R6 exchange ----------------------------------------------------------------------------


def test_R6_1_exchange_for_the_top_of_the_pile() -> None:
    s = base()
    size = s.deck_size
    s.play(Exchange(FR, DECK))
    assert s.hands[0][k(s, FR)] == 1 and s.hands[0][k(s, ES)] == 1 and s.hands[0][k(s, LI)] == 1
    assert s.discard[k(s, FR)] == 1
    assert s.deck_size == size - 1
    assert sorted(s.display) == sorted([k(s, FA), k(s, BB)])
    assert s.current == 1 and s.phase == MAIN and s.turns == [1, 0, 0, 0]


def test_R6_2_exchange_for_a_display_card_refills_the_display() -> None:
    s = base()
    size = s.deck_size
    s.play(Exchange(LI, BB))
    assert s.hands[0][k(s, BB)] == 1 and s.hands[0][k(s, LI)] == 0
    assert sorted(s.display) == sorted([k(s, FA), k(s, ES)])  # refilled from the pile (ES)
    assert s.deck_size == size - 1
    assert s.known[0][k(s, BB)] == 1
    assert s.current == 1


def test_R6_1_bad_exchanges_refused() -> None:
    s = base()
    assert_rejected(s, Exchange(BB, DECK), "R6.1", "card_not_in_hand")
    assert_rejected(s, Exchange(FR, ES), "R6.1", "not_on_display")
    assert_rejected(s, Exchange("joker", DECK), "R6.1", "unknown_card")
    assert_rejected(s, Exchange(FR, "joker"), "R6.1", "unknown_card")


def test_R6_1_exchange_for_the_same_kind_is_allowed() -> None:
    s = game(4, [["FA", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["LI", "LI", "BB"]], ["FA", "BB"])
    assert Exchange(FA, FA) in s.legal_moves()
    s.play(Exchange(FA, FA))
    assert s.hands[0][k(s, FA)] == 1 and s.known[0][k(s, FA)] == 1


# -- R7 intermediate scoring --------------------------------------------------------------


def test_R7_exchange_takes_the_last_card() -> None:
    s = base()
    put_cloisters(s, 1, ["pavia"])
    put_cloisters(s, 2, ["verona"])
    burn(s, 1)
    display = sorted(s.display)
    discard = Counter({x: c for x, c in enumerate(s.discard) if c})
    s.play(Exchange(FR, DECK))
    # R7.1/R7.2: scored at once, cloisters only: Italien seat 1 has 2, seat 2 has 1
    assert s.exhaustions == 1
    assert s.intermediate_scoring is not None
    assert s.intermediate_scoring[s.board.country_index["italien"]] == [0, 3, 2, 0]
    assert s.scores == [0, 3, 2, 0]
    # R7.3: the discard pile (with the card just discarded) is the new pile; display stays
    discard[k(s, FR)] += 1
    assert s.reshuffle is not None and Counter(s.reshuffle) == discard
    assert s.deck_size == sum(discard.values())
    assert s.discard == [0] * 5
    assert sorted(s.display) == display
    assert s.current == 1 and s.phase == MAIN  # R7.4: play goes on with the left neighbour
    assert s.final_scoring is None and not s.final_round


def test_R7_4_last_card_drawn_mid_refill_then_the_turn_continues() -> None:
    s = base()
    burn(s, 1)
    s.play(pl("FR,FR,LI", "italien", "verona+venedig"))  # 3 cards to the discard pile
    discard = Counter({x: c for x, c in enumerate(s.discard) if c})
    assert s.intermediate_scoring is None
    s.play(Draw(DECK))  # the last card
    # scored now, with this turn's cloisters: Italien seat 0 has 2, seat 1 has 1
    assert s.intermediate_scoring is not None
    assert s.intermediate_scoring[s.board.country_index["italien"]] == [3, 2, 0, 0]
    assert s.reshuffle is not None and Counter(s.reshuffle) == discard  # includes FR, FR, LI
    # the interrupted turn goes on: seat 0 still draws, now from the new pile
    assert s.current == 0 and s.phase == DRAW and s.hand_size(0) == 1
    top = s.reshuffle[0]
    s.play(Draw(DECK))
    assert s.hands[0][top] >= 1 and s.deck_size == len(s.reshuffle) - 1
    s.play(Draw(FA))
    # hand full: the display refilled to two from the new pile
    assert len(s.display) == 2 and sorted(s.display) == sorted([k(s, BB), s.reshuffle[1]])
    assert s.current == 1 and s.phase == MAIN


def test_R7_1_last_card_turned_up_into_the_display() -> None:
    s = base()
    burn(s, 1)
    last = s.deck[s.top]
    s.play(pl("LI", "italien", "verona"))
    discard = Counter({x: c for x, c in enumerate(s.discard) if c})
    s.play(Draw(FA))  # hand full: the display refill takes the last card of the pile
    assert s.exhaustions == 1 and s.intermediate_scoring is not None
    assert s.intermediate_scoring[s.board.country_index["italien"]] == [2, 2, 0, 0]  # 1 and 1: both first
    assert s.scores == [2, 2, 0, 0]
    # R7.3: the display (BB and the last card) is not shuffled in
    assert s.reshuffle is not None and Counter(s.reshuffle) == discard
    assert sorted(s.display) == sorted([k(s, BB), last])
    assert s.deck_size == len(s.reshuffle)
    assert s.current == 1 and s.phase == MAIN


def test_R7_4_display_refilled_from_the_new_pile_after_the_last_card() -> None:
    s = base()
    burn(s, 1)
    last = s.deck[s.top]
    s.play(pl("FR,FR", "italien", "verona"))  # joker; hand: LI
    s.play(Draw(FA))
    s.play(Draw(BB))  # hand full; display empty: refill takes the last card, then one more
    assert s.exhaustions == 1 and s.reshuffle is not None
    assert k(s, FR) in s.reshuffle  # the cards played this turn are in the new pile
    assert sorted(s.display) == sorted([last, s.reshuffle[0]])
    assert s.deck_size == len(s.reshuffle) - 1
    assert s.intermediate_scoring is not None and s.intermediate_scoring[s.board.country_index["italien"]] == [2, 2, 0, 0]
    assert s.current == 1


def test_R7_3_exchange_from_display_refill_takes_the_last_card() -> None:
    s = base()
    burn(s, 1)
    before = card_total(s)
    discard = Counter({x: c for x, c in enumerate(s.discard) if c})
    s.play(Exchange(LI, BB))  # LI discarded, BB taken, the refill takes the last card
    assert s.exhaustions == 1
    discard[k(s, LI)] += 1
    assert s.reshuffle is not None and Counter(s.reshuffle) == discard
    assert card_total(s) == before
    assert sum(s.discard) == 0 and len(s.display) == 2 and k(s, FA) in s.display


def test_R7_intermediate_scoring_uses_every_country() -> None:
    s = base()
    put_cloisters(s, 0, ["paris", "reims"])
    put_cloisters(s, 2, ["rouen"])
    put_cloisters(s, 3, ["york"])
    burn(s, 1)
    expected = cloister_scoring(s.cloisters)
    s.play(Exchange(FR, DECK))
    assert s.intermediate_scoring == expected
    assert s.scores == [sum(r[p] for r in expected) for p in range(4)]
    assert s.breakdown()["intermediate_cloisters"] == s.scores


# -- R8.1 the completed round --------------------------------------------------------------


def second_pile(left: int) -> State:
    """As if the intermediate scoring had happened: the pile is the second one, ``left`` cards."""
    s = base()
    burn(s, left)
    s.exhaustions = 1
    s.intermediate_scoring = [[0] * 4 for _ in s.board.countries]
    return s


def test_R8_1_round_completed_after_the_last_card() -> None:
    s = second_pile(2)
    s.play(Exchange(FR, DECK))
    assert not s.final_round
    s.play(Exchange(BB, DECK))  # seat 1 takes the last card
    assert s.exhaustions == 2 and s.final_round and not s.is_over
    assert s.current == 2
    # R8.2: no new pile is formed
    assert s.deck_size == 0
    assert_rejected(s, Exchange(FA, DECK), "R8.2", "deck_empty")
    s.play(Exchange(FA, BB))
    assert len(s.display) == 1  # R8.2: nothing to refill from
    assert not s.is_over and s.current == 3
    s.play(Exchange(LI, FA))
    assert s.is_over and s.phase == OVER
    assert s.turns == [1, 1, 1, 1]
    assert s.final_scoring is not None and s.winners is not None
    assert s.legal_moves() == []


def test_R8_1_the_player_before_the_start_player_takes_the_last_card() -> None:
    s = second_pile(4)
    s.play(Exchange(FR, DECK))
    s.play(Exchange(BB, DECK))
    s.play(Exchange(FA, DECK))
    assert not s.final_round
    s.play(Exchange(LI, DECK))  # seat 3 takes the last card: the round is complete
    assert s.is_over and s.turns == [1, 1, 1, 1]


def test_R8_1_last_card_drawn_by_the_last_seat_who_then_finishes_drawing() -> None:
    s = second_pile(4)
    s.play(Exchange(FR, DECK))
    s.play(Exchange(BB, DECK))
    s.play(Exchange(FA, DECK))
    s.play(pl("LI,LI", "italien", "verona+venedig"))  # seat 3
    s.play(Draw(DECK))  # the last card
    assert s.final_round and not s.is_over and s.current == 3 and s.phase == DRAW
    assert s.legal_moves() == [Draw(FA), Draw(BB)]
    s.play(Draw(FA))
    assert s.is_over and s.turns == [1, 1, 1, 1] and s.hand_size(3) == 3


def test_R8_1_start_player_takes_the_last_card_everyone_else_still_plays() -> None:
    s = second_pile(1)
    s.play(Exchange(FR, DECK))
    assert s.final_round and s.current == 1
    s.play(Exchange(BB, FA))
    s.play(Exchange(FA, BB))
    assert not s.is_over
    s.play(pl("LI", "italien", "verona"))
    # seat 3 played one card; display empty, pile empty: nothing to draw (R5.3), game over
    assert s.is_over and s.turns == [1, 1, 1, 1]


# -- R8.3 nobody can place ----------------------------------------------------------------------


def advisors_only() -> State:
    """Nobody has a cloister left; Italien (seat 1 has one there) is the only country that
    takes an advisor, once. Scores before: 5, 4, 3, 5."""
    s = base()
    s.supply_cl = [0, 0, 0, 0]
    s.supply_adv = [1, 2, 0, 2]
    s.scores = [5, 4, 3, 5]
    return s


def test_R8_3_game_ends_when_nobody_can_place() -> None:
    s = advisors_only()
    assert all(s.can_place_any(p) == (p in (0, 1, 3)) for p in range(4))
    s.play(pl("LI", "italien", "advisor"))
    assert not any(s.can_place_any(p) for p in range(4))
    assert s.phase == DRAW  # the turn is finished first
    s.play(Draw(DECK))
    assert s.is_over and s.turns == [1, 0, 0, 0]  # at once, not at the end of a round
    # R8.4: final scoring added: Italien 1 cloister of seat 1 -> 1; seat 0's advisor majority
    # in Italien scores in no alliance (Aragon, Burgund, Bayern have no advisor)
    assert s.final_scoring is not None
    assert s.final_scoring.total == [0, 1, 0, 0]
    assert s.scores == [5, 5, 3, 5]
    # R12.1: 5-5-5 tie among seats 0, 1, 3; pieces left 0, 2, 2: seats 1 and 3 share the win
    assert s.winners == [1, 3]


def test_R12_1_tie_break_by_supply_single_winner() -> None:
    s = advisors_only()
    s.supply_adv[3] = 1
    s.play(pl("LI", "italien", "advisor"))
    s.play(Draw(DECK))
    assert s.scores == [5, 5, 3, 5] and s.winners == [1]


def test_R8_3_game_goes_on_while_someone_can_place() -> None:
    s = advisors_only()
    s.supply_cl[2] = 1  # seat 2 could still place a cloister
    s.play(pl("LI", "italien", "advisor"))
    s.play(Draw(DECK))
    assert not s.is_over and s.current == 1


def test_R8_3_whatever_cards_they_hold() -> None:
    """Seat 2 holds ES, LI, FR, none of which can reach Bayern, the only country left that
    takes an advisor; seat 2 still has an advisor, so the game goes on (R8.3 looks at the
    pieces and the board, not at the cards)."""
    s = game(4, [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["ES", "LI", "FR"], ["LI", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(s, 1, ["mailand", "wien"])
    s.supply_cl = [0, 0, 0, 0]
    s.supply_adv = [1, 0, 1, 0]
    s.play(pl("LI", "italien", "advisor"))
    s.play(Draw(DECK))
    assert not s.is_over and s.current == 1
    assert s.can_place_any(2) and not s.can_place_any(0)


@pytest.mark.parametrize("players", [3, 5])
def test_R8_1_last_seat_depends_on_player_count(players: int) -> None:
    hands = [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["LI", "LI", "BB"], ["ES", "ES", "ES"]][:players]
    s = game(players, hands, ["FA", "BB"])
    burn(s, 1)
    s.exhaustions = 1
    s.play(Exchange(FR, DECK))
    for seat in range(1, players):
        assert not s.is_over and s.current == seat
        hand = [x for x in range(5) if s.hands[seat][x]]
        s.play(Exchange(s.board.cards[hand[0]].id, s.board.cards[s.display[0]].id) if s.display else s.legal_moves()[0])
    assert s.is_over and s.turns == [1] * players


# -- a second, independent implementation of the turn flow (R3, R5-R8, R12) -----------------------


class RefGame:
    """The flow of RULES.md written out again, plainly: it follows the engine's decisions and
    the engine's chance (deck, reshuffle), and must reach the same positions."""

    def __init__(self, s: State) -> None:
        b = s.board
        self.b = b
        self.n = s.n
        pile = list(s.initial_deck)
        self.hands = [[0] * len(b.cards) for _ in range(self.n)]
        for p in range(self.n):
            for _ in range(3):
                self.hands[p][pile.pop(0)] += 1
        self.display = [pile.pop(0), pile.pop(0)]
        self.pile = pile
        self.discard = [0] * len(b.cards)
        self.owner = [-1] * len(b.sites)
        self.adv = [[0] * self.n for _ in b.countries]
        self.sup_cl = [b.supply_cloisters] * self.n
        self.sup_adv = [b.supply_advisors] * self.n
        self.scores = [0] * self.n
        self.turns = [0] * self.n
        self.current = 0
        self.phase = "main"
        self.used_up = 0
        self.last_round = False
        self.winners: list[int] | None = None
        self.engine = s  # for the reshuffle order only (chance)

    def counts(self, c: int) -> list[int]:
        return [sum(1 for i in self.b.countries[c].sites if self.owner[i] == p) for p in range(self.n)]

    def cloister_points(self) -> list[int]:
        pts = [0] * self.n
        for c in range(len(self.b.countries)):
            cnt = self.counts(c)
            for p in range(self.n):
                if cnt[p]:
                    above = [x for x in cnt if x > cnt[p]]
                    pts[p] += min(above) if above else sum(cnt)
        return pts

    def take_top(self) -> int:
        k = self.pile.pop(0)
        if not self.pile:
            self.pile_used_up()
        return k

    def pile_used_up(self) -> None:
        self.used_up += 1
        if self.used_up == 1:  # R7
            for p, v in enumerate(self.cloister_points()):
                self.scores[p] += v
            order = list(self.engine.reshuffle or ())
            assert sorted(order) == sorted(k for k, c in enumerate(self.discard) for _ in range(c))
            self.pile = order
            self.discard = [0] * len(self.b.cards)
        else:  # R8.1
            self.last_round = True

    def refill_display(self) -> None:
        while len(self.display) < 2 and self.pile:
            self.display.append(self.take_top())

    def can_place(self, p: int) -> bool:
        if self.sup_cl[p] and any(o < 0 for o in self.owner):
            return True
        return bool(self.sup_adv[p]) and any(sum(self.adv[c]) < max(self.counts(c)) for c in range(len(self.b.countries)))

    def end_turn(self) -> None:
        if not any(self.can_place(p) for p in range(self.n)) or (self.last_round and self.current == self.n - 1):
            self.phase = "over"
            fin = final_scoring(self.b, [self.counts(c) for c in range(len(self.b.countries))], self.adv, self.owner)
            for p in range(self.n):
                self.scores[p] += fin.total[p]
            left = [self.sup_cl[p] + self.sup_adv[p] for p in range(self.n)]
            best = max((self.scores[p], left[p]) for p in range(self.n))
            self.winners = [p for p in range(self.n) if (self.scores[p], left[p]) == best]
        else:
            self.current = (self.current + 1) % self.n
            self.phase = "main"

    def after_draw(self) -> None:
        if sum(self.hands[self.current]) < 3 and (self.display or self.pile):
            return
        self.refill_display()
        self.end_turn()

    def take(self, source: str) -> None:
        hand = self.hands[self.current]
        if source == DECK:
            hand[self.take_top()] += 1
        else:
            k = self.b.kind_index[source]
            self.display.remove(k)
            hand[k] += 1

    def play(self, m: object) -> None:
        b, p = self.b, self.current
        if isinstance(m, Place):
            for x in m.cards:
                self.hands[p][b.kind_index[x]] -= 1
                self.discard[b.kind_index[x]] += 1
            for sid in m.cloisters:
                self.owner[b.site_index[sid]] = p
            self.adv[b.country_index[m.country]][p] += m.advisors
            self.sup_cl[p] -= len(m.cloisters)
            self.sup_adv[p] -= m.advisors
            self.turns[p] += 1
            self.phase = "draw"
            self.after_draw()
        elif isinstance(m, Draw):
            self.take(m.source)
            self.after_draw()
        elif isinstance(m, Exchange):
            self.hands[p][b.kind_index[m.discard]] -= 1
            self.discard[b.kind_index[m.discard]] += 1
            self.turns[p] += 1
            self.take(m.take)
            if m.take != DECK:
                self.refill_display()
            self.end_turn()
        else:
            self.turns[p] += 1
            self.end_turn()

    def assert_same(self, s: State) -> None:
        assert s.hands == self.hands
        assert sorted(s.display) == sorted(self.display)
        assert list(s.deck[s.top :]) == self.pile
        assert s.discard == self.discard
        assert s.owner == self.owner and s.advisors == self.adv
        assert s.supply_cl == self.sup_cl and s.supply_adv == self.sup_adv
        assert s.scores == self.scores and s.turns == self.turns
        assert (s.current, s.phase) == (self.current, self.phase)
        assert s.exhaustions == self.used_up and s.final_round == self.last_round
        assert s.winners == self.winners


def ref_check_game(players: int, seed: int, board: object = None) -> State:
    s = new_game(players, seed=seed, board=board)  # type: ignore[arg-type]
    ref = RefGame(s)
    ref.assert_same(s)
    rng = random.Random(seed)
    while not s.is_over:
        m = rng.choice(s.legal_moves())
        s.play(m)
        ref.play(m)
        ref.assert_same(s)
    return s


@pytest.mark.parametrize("players", [3, 4, 5])
def test_flow_equals_an_independent_implementation(players: int) -> None:
    for g in range(40 if not LONG else 400):
        ref_check_game(players, 555_000 + 100 * players + g)


def test_flow_equals_an_independent_implementation_small_supply() -> None:
    """With 5 cloisters and 2 advisors a player most games end by R8.3."""
    from test_properties import small_supply_board

    b = small_supply_board()
    for g in range(60 if not LONG else 600):
        ref_check_game(3 + g % 3, 777_000 + g, b)
