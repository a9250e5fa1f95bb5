"""R1-R4, R12 on hand-made positions: each rule with legal and illegal cases.

Every rejection checks the RuleError's rule (and code) and that nothing changed
(``assert_rejected`` compares ``state.key()`` before and after, for ``check`` and ``play``).
Seats in a 4-player game (FA 12, BB 11, LI 10, ES 9, FR 8 cards).
"""

from __future__ import annotations

import pytest
from conftest import (
    BB,
    ES,
    FA,
    FR,
    LI,
    assert_rejected,
    burn,
    game,
    pl,
    put_advisors,
    put_cloisters,
)

from kardinal.rules.moves import DECK, Draw, Exchange, Pass, Place, make_place, parse_move
from kardinal.rules.state import DRAW, MAIN, OVER, RuleError, State, new_game


def base() -> State:
    """Seat 0 holds FR, FR, LI. Italien has seat 1's cloister on mailand (limit 1, no advisor);
    Frankreich is empty."""
    s = game(4, [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(s, 1, ["mailand"])
    return s


def ok(s: State, move: Place) -> None:
    """The move is legal: listed, passes check, and play applies it."""
    assert move in s.legal_moves(), move
    s.check(move)
    t = s.copy()
    t.play(move)
    assert t.history is not None and t.history[-1][:2] == (s.current, move)


# -- R2 setup ----------------------------------------------------------------------------


@pytest.mark.parametrize("n, total", [(3, 45), (4, 50), (5, 55)])
def test_R2_1_R2_2_setup(n: int, total: int) -> None:
    s = new_game(n, seed=5)
    assert len(s.deck) == total
    assert s.removed == [{3: 2, 4: 1, 5: 0}[n]] * 5
    assert [sum(h) for h in s.hands] == [3] * n
    assert len(s.display) == 2
    assert s.deck_size == total - 3 * n - 2
    assert s.supply_cl == [20] * n and s.supply_adv == [8] * n
    assert s.current == 0 and s.phase == MAIN  # R2.3: seat 0 starts
    assert s.scores == [0] * n


def test_R2_2_deal_takes_the_top_of_the_deck_in_seat_order() -> None:
    s = game(3, [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"]], ["ES", "LI"], then=["BB"])
    assert sorted(s.hand_ids(0)) == sorted([FR, FR, LI])
    assert sorted(s.hand_ids(1)) == sorted([BB, BB, ES])
    assert s.hand_ids(2) == [FA] * 3
    assert sorted(s.board.cards[k].id for k in s.display) == sorted([ES, LI])
    assert s.deck[s.top] == s.board.kind_index[BB]


def test_R2_1_wrong_player_count_and_wrong_deck_refused() -> None:
    with pytest.raises(ValueError):
        new_game(2)
    with pytest.raises(ValueError):
        new_game(6)
    with pytest.raises(ValueError, match="R2.1"):
        new_game(4, deck=[FR] * 50)
    with pytest.raises(ValueError, match="unknown card kind"):
        new_game(4, deck=["joker"] * 50)


# -- R4.1 cards from hand ---------------------------------------------------------------


def test_R4_1_play_cards_from_hand() -> None:
    s = base()
    ok(s, pl("LI", "italien", "verona"))
    s.play(pl("LI", "italien", "verona"))
    assert s.hands[0][s.board.kind_index[LI]] == 0
    assert s.discard[s.board.kind_index[LI]] == 1  # R4.1: onto the discard pile, public


def test_R4_1_card_not_in_hand_refused() -> None:
    s = base()
    assert_rejected(s, pl("BB", "bayern", "passau"), "R4.1", "card_not_in_hand")
    assert_rejected(s, pl("FR,FR,FR", "frankreich", "paris+reims"), "R4.1", "card_not_in_hand")
    assert_rejected(s, pl("LI,LI", "italien", "verona"), "R4.1", "card_not_in_hand")
    assert_rejected(s, Place("italien", ("no-such-card",), ("verona",), 0), "R4.1", "unknown_card")


def test_R4_1_three_of_a_kind_needs_three_in_hand() -> None:
    s = game(4, [["FR", "FR", "BB"], ["LI"] * 3, ["FA"] * 3, ["ES"] * 3], ["FA", "BB"])
    put_cloisters(s, 1, ["paris"])
    assert_rejected(s, pl("FR,FR,FR", "frankreich", "rouen+reims"), "R4.1", "card_not_in_hand")


def test_R4_5_card_count_zero_or_four_refused() -> None:
    s = base()
    assert_rejected(s, Place("italien", (), ("verona",), 0), "R4.5", "card_count")
    assert_rejected(s, Place("italien", (FR, FR, LI, LI), ("verona",), 1), "R4.5", "card_count")


# -- R4.2 a card names a country --------------------------------------------------------


def test_R4_2_card_places_in_a_country_it_names() -> None:
    s = base()
    ok(s, pl("LI", "italien", "verona"))
    ok(s, pl("LI", "lothringen", "metz"))  # either of the two countries of a pair kind
    ok(s, pl("FR", "frankreich", "paris"))


def test_R4_2_card_not_naming_the_country_refused() -> None:
    s = base()
    assert_rejected(s, pl("FR", "italien", "verona"), "R4.2", "card_country")
    assert_rejected(s, pl("LI", "frankreich", "paris"), "R4.2", "card_country")
    assert_rejected(s, pl("FR", "italien", "advisor"), "R4.2", "card_country")
    assert_rejected(s, Place("narnia", (LI,), ("verona",), 0), "R4.2", "unknown_country")


# -- R4.3 joker -------------------------------------------------------------------------


def test_R4_3_joker_pair_places_in_any_country() -> None:
    s = base()
    ok(s, pl("FR,FR", "italien", "verona"))
    ok(s, pl("FR,FR", "italien", "advisor"))
    ok(s, pl("FR,FR", "bayern", "wien"))
    ok(s, pl("FR,FR", "england", "york"))


def test_R4_3_joker_is_for_another_country_than_its_cards() -> None:
    """R4.3 (German rulebook): a joker pair places in a country other than those printed on it;
    the same pair may still be played as two single cards in its own country."""
    s = base()
    assert_rejected(s, pl("FR,FR", "frankreich", "paris"), "R4.3", "joker_own_country")
    t = game(4, [["LI", "LI", "BB"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(t, 1, ["mailand"])
    assert_rejected(t, pl("LI,LI", "italien", "verona"), "R4.3", "joker_own_country")
    assert_rejected(t, pl("LI,LI", "italien", "advisor"), "R4.3", "joker_own_country")
    ok(t, pl("LI,LI", "italien", "verona+venedig"))  # two single cards
    ok(t, pl("LI,LI", "bayern", "wien"))  # the joker elsewhere


def test_R4_3_R14_joker_anywhere_includes_the_printed_countries() -> None:
    """Variant joker-anywhere (R14, the Danish reading): the pair may be a joker for its own countries."""
    s = game(4, [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"], variants=["joker-anywhere"])
    put_cloisters(s, 1, ["mailand"])
    ok(s, pl("FR,FR", "frankreich", "paris"))
    t = game(4, [["LI", "LI", "BB"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"], variants=["joker-anywhere"])
    put_cloisters(t, 1, ["mailand"])
    ok(t, pl("LI,LI", "italien", "verona"))
    ok(t, pl("LI,LI", "italien", "advisor"))
    ok(t, pl("LI,LI", "italien", "verona+venedig"))  # and as two single cards


def test_R4_3_two_different_cards_are_no_joker() -> None:
    s = base()
    assert_rejected(s, pl("FR,LI", "italien", "verona"), "R4.3", "joker_pair")
    assert_rejected(s, pl("FR,LI", "bayern", "wien"), "R4.3", "joker_pair")


# -- R4.4 one country --------------------------------------------------------------------


def test_R4_4_two_pieces_one_country() -> None:
    t = game(4, [["LI", "LI", "BB"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(t, 1, ["mailand", "metz"])
    ok(t, pl("LI,LI", "italien", "verona+venedig"))
    ok(t, pl("LI,LI", "lothringen", "aachen+koeln"))
    ok(t, pl("LI,LI", "italien", "verona+advisor"))


def test_R4_4_pieces_in_two_countries_refused() -> None:
    t = game(4, [["LI", "LI", "BB"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(t, 1, ["mailand", "metz"])
    # one LI card for Italien and one for Lothringen: not allowed
    assert_rejected(t, pl("LI,LI", "italien", "verona+metz"), "R4.4", "site_country")
    assert_rejected(t, pl("LI,LI", "lothringen", "koeln+verona"), "R4.4", "site_country")
    # a single piece on a site of another country than the one named
    assert_rejected(t, pl("LI", "italien", "metz"), "R4.4", "site_country")


def test_R4_4_both_cards_must_name_the_country() -> None:
    s = base()
    assert_rejected(s, pl("FR,LI", "italien", "verona+venedig"), "R4.4", "card_country")
    assert_rejected(s, pl("FR,FR", "italien", "verona+venedig"), "R4.4", "card_country")
    assert_rejected(s, pl("FR,LI", "italien", "verona+advisor"), "R4.4", "card_country")


# -- R4.5 the 3-2-1 rule ------------------------------------------------------------------


def test_R4_5_every_legal_kind_of_play() -> None:
    """1 card -> 1 piece; 2 cards -> 2 pieces; 2 cards -> 1 joker piece; 3 cards -> 2 pieces."""
    t = game(4, [["LI", "LI", "FR"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(t, 1, ["mailand"])
    ok(t, pl("LI", "italien", "verona"))
    ok(t, pl("LI,LI", "italien", "verona+venedig"))
    ok(t, pl("LI,LI", "bayern", "wien"))  # joker
    s = base()
    ok(s, pl("FR,FR,LI", "italien", "verona+venedig"))  # LI for one, FR+FR joker for the other
    ok(s, pl("FR,FR,LI", "italien", "verona+advisor"))
    ok(s, pl("FR,FR,LI", "italien", "advisor+pavia"))


def test_R4_5_three_of_a_kind_is_single_plus_joker() -> None:
    """Three cards of a kind would be a single card plus a joker of its own kind: never in the
    countries it names (R4.3, Chris's example: at most two cards are played), elsewhere the
    single card does not name the country (R4.5). Under joker-anywhere it places two pieces."""
    t = game(4, [["LI", "LI", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(t, 1, ["mailand", "wien"])
    assert_rejected(t, pl("LI,LI,LI", "italien", "verona+venedig"), "R4.3", "joker_own_country")
    assert_rejected(t, pl("LI,LI,LI", "italien", "verona+advisor"), "R4.3", "joker_own_country")
    assert not any(len(m.cards) == 3 for m in t.legal_moves() if isinstance(m, Place))
    ok(t, pl("LI,LI", "italien", "verona+venedig"))  # two of them as single cards
    # in Bayern the single card must name Bayern: LI does not
    assert_rejected(t, pl("LI,LI,LI", "bayern", "passau+salzburg"), "R4.5", "three_cards")
    v = game(4, [["LI", "LI", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"], variants=["joker-anywhere"])
    put_cloisters(v, 1, ["mailand", "wien"])
    ok(v, pl("LI,LI,LI", "italien", "verona+venedig"))
    ok(v, pl("LI,LI,LI", "italien", "verona+advisor"))
    assert_rejected(v, pl("LI,LI,LI", "bayern", "passau+salzburg"), "R4.5", "three_cards")


def test_R4_5_every_illegal_combination() -> None:
    s = base()  # FR, FR, LI; Italien has a piece, Frankreich is empty
    assert_rejected(s, pl("FR,FR,LI", "italien", "verona"), "R4.5", "unused_cards")  # 3 cards, 1 piece
    assert_rejected(s, pl("LI", "italien", "verona+venedig"), "R4.5", "too_few_cards")  # 1 card, 2 pieces
    assert_rejected(s, pl("LI", "italien", "verona+advisor"), "R4.5", "too_few_cards")
    assert_rejected(s, pl("FR,FR,LI", "italien", "verona+venedig+pavia"), "R4.5", "piece_count")  # 3 pieces
    assert_rejected(s, pl("FR,FR,LI", "italien", "verona+advisor+advisor"), "R4.5", "piece_count")
    assert_rejected(s, Place("italien", (LI,), (), 0), "R4.5", "piece_count")  # no piece
    assert_rejected(s, Place("italien", (LI,), (), -1), "R4.5", "piece_count")
    # three cards, the pair is there but the single card does not name the country
    assert_rejected(s, pl("FR,FR,LI", "bayern", "wien+passau"), "R4.5", "three_cards")
    assert_rejected(s, pl("FR,FR,LI", "frankreich", "paris+reims"), "R4.5", "three_cards")


def test_R4_5_three_cards_without_a_pair_refused() -> None:
    t = game(4, [["ES", "LI", "BB"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["FR", "FR", "LI"]], ["FA", "BB"])
    put_cloisters(t, 1, ["mailand"])
    assert_rejected(t, pl("BB,ES,LI", "italien", "verona+venedig"), "R4.5", "three_cards")
    assert_rejected(t, pl("BB,ES,LI", "italien", "verona"), "R4.5", "unused_cards")


# -- R4.6 empty country ---------------------------------------------------------------------


def test_R4_6_empty_country_takes_one_cloister() -> None:
    s = base()
    ok(s, pl("FR", "frankreich", "paris"))
    ok(s, pl("FR,FR", "bayern", "wien"))  # a joker: one cloister in an empty country
    v = game(4, [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"], variants=["joker-anywhere"])
    ok(v, pl("FR,FR", "frankreich", "toulouse"))  # joker-anywhere: also in its own country


def test_R4_6_empty_country_refuses_two_pieces_or_an_advisor() -> None:
    s = base()
    assert_rejected(s, pl("FR,FR", "frankreich", "paris+reims"), "R4.6", "empty_country")
    assert_rejected(s, pl("FR,FR", "frankreich", "paris+advisor"), "R4.6", "empty_country")
    assert_rejected(s, pl("FR", "frankreich", "advisor"), "R4.6", "empty_country")  # R4.8 too: no cloister there
    assert_rejected(s, pl("LI", "lothringen", "advisor"), "R4.6", "empty_country")


def test_R4_6_only_the_start_of_the_turn_counts() -> None:
    """A country with another player's piece is not empty: two pieces are fine."""
    s = game(4, [["FR", "FR", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(s, 2, ["toulouse"])
    ok(s, pl("FR,FR", "frankreich", "paris+reims"))
    ok(s, pl("FR,FR", "frankreich", "paris+advisor"))


# -- R4.7 free sites ------------------------------------------------------------------------


def test_R4_7_any_free_site_of_the_players_choosing() -> None:
    s = base()
    listed = {m.cloisters for m in s.legal_moves() if isinstance(m, Place) and m.country == "frankreich" and m.cards == (FR,)}
    assert listed == {(x,) for x in ("rouen", "paris", "reims", "orleans", "tours", "bourges", "limoges", "toulouse")}
    italien = {m.cloisters for m in s.legal_moves() if isinstance(m, Place) and m.country == "italien" and m.cards == (LI,)}
    assert italien == {(), ("turin",), ("pavia",), ("genua",), ("verona",), ("venedig",)}  # () = the advisor


def test_R4_7_taken_site_and_unknown_site_refused() -> None:
    s = base()
    assert_rejected(s, pl("LI", "italien", "mailand"), "R4.7", "site_taken")
    assert_rejected(s, Place("italien", (LI,), ("atlantis",), 0), "R4.7", "unknown_site")
    assert_rejected(s, Place("italien", (FR, FR, LI), ("verona", "verona"), 0), "R4.7", "same_site")


def test_R4_7_full_country_accepts_no_cloister_but_advisors() -> None:
    s = game(4, [["ES", "ES", "LI"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(s, 1, ["strassburg", "ulm"])
    put_cloisters(s, 2, ["konstanz", "zuerich"])
    assert s.free_sites[s.board.country_index["schwaben"]] == ()
    assert_rejected(s, pl("ES", "schwaben", "ulm"), "R4.7", "country_full")
    ok(s, pl("ES", "schwaben", "advisor"))
    ok(s, pl("ES,ES", "schwaben", "advisor+advisor"))  # limit 2: seat 1 and seat 2 hold 2 each
    schwaben = [m for m in s.legal_moves() if isinstance(m, Place) and m.country == "schwaben"]
    assert schwaben and all(not m.cloisters for m in schwaben)


# -- R4.8 / R4.9 advisors ---------------------------------------------------------------------


def adv_game() -> State:
    """Seat 0 holds LI, LI, FR. Italien: seat 1 has 2 cloisters, seat 0 one (limit 2)."""
    s = game(4, [["LI", "LI", "FR"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(s, 1, ["mailand", "pavia"])
    put_cloisters(s, 0, ["turin"])
    return s


def test_R4_8_advisors_up_to_the_largest_cloister_count() -> None:
    s = adv_game()
    ok(s, pl("LI", "italien", "advisor"))
    ok(s, pl("LI,LI", "italien", "advisor+advisor"))  # 0 + 2 <= 2
    put_advisors(s, 2, "italien")  # total 1
    ok(s, pl("LI", "italien", "advisor"))
    assert_rejected(s, pl("LI,LI", "italien", "advisor+advisor"), "R4.8", "advisor_limit")  # 3 > 2
    put_advisors(s, 3, "italien")  # total 2 = limit
    assert_rejected(s, pl("LI", "italien", "advisor"), "R4.8", "advisor_limit")
    ok(s, pl("LI", "italien", "verona"))


def test_R4_8_advisor_where_the_player_has_no_cloister() -> None:
    """Seat 0 has no cloister in Bayern; seat 1 has one there: seat 0 may place an advisor."""
    s = game(4, [["BB", "LI", "FR"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(s, 1, ["wien"])
    ok(s, pl("BB", "bayern", "advisor"))
    s.play(pl("BB", "bayern", "advisor"))
    assert s.advisors[s.board.country_index["bayern"]] == [1, 0, 0, 0]


def test_R4_9_cloister_first_raises_the_limit_for_the_advisor() -> None:
    """Italien: seat 1 has 2, seat 0 has 1, 2 advisors (at the limit). Seat 0 places a cloister
    (now 2 - no raise) + advisor: refused; but with seat 0 at 2 already, a third cloister
    raises the limit to 3 and the advisor of the same turn fits."""
    s = adv_game()
    put_advisors(s, 2, "italien", 2)  # limit 2 reached
    assert_rejected(s, pl("LI,LI", "italien", "genua+advisor"), "R4.8", "advisor_limit")  # 0 now 2: limit stays 2
    assert_rejected(s, pl("LI", "italien", "advisor"), "R4.8", "advisor_limit")
    t = adv_game()
    put_cloisters(t, 0, ["genua"])  # seat 0 has 2 too
    put_advisors(t, 2, "italien", 2)
    m = pl("LI,LI", "italien", "verona+advisor")  # cloister first: seat 0 has 3, limit 3
    ok(t, m)
    t.play(m)
    c = t.board.country_index["italien"]
    assert t.most_cloisters[c] == 3 and t.advisors_total[c] == 3
    # written the other way round it is the same move (R4.9)
    assert parse_move("play LI,LI italien advisor+verona") == m


def test_R4_9_new_cloister_of_a_player_with_none_there() -> None:
    """Seat 0 has no cloister in Bayern, seat 1 has one and one advisor is there (limit 1):
    seat 0's cloister gives seat 0 one, the limit stays 1: the advisor does not fit."""
    s = game(4, [["BB", "BB", "FR"], ["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]], ["FA", "BB"])
    put_cloisters(s, 1, ["wien"])
    put_advisors(s, 1, "bayern")
    assert_rejected(s, pl("BB,BB", "bayern", "passau+advisor"), "R4.8", "advisor_limit")
    ok(s, pl("BB,BB", "bayern", "passau+salzburg"))


# -- R1.2 finite supply ------------------------------------------------------------------------


def test_R1_2_no_cloister_left() -> None:
    s = base()
    s.supply_cl[0] = 0
    assert_rejected(s, pl("FR", "frankreich", "paris"), "R1.2", "no_cloisters")
    assert not any(isinstance(m, Place) and m.cloisters for m in s.legal_moves())
    ok(s, pl("LI", "italien", "advisor"))


def test_R1_2_one_cloister_left() -> None:
    s = base()
    s.supply_cl[0] = 1
    assert_rejected(s, pl("FR,FR,LI", "italien", "verona+venedig"), "R1.2", "no_cloisters")
    ok(s, pl("FR,FR,LI", "italien", "verona+advisor"))


def test_R1_2_no_advisor_left() -> None:
    s = base()
    s.supply_adv[0] = 0
    assert_rejected(s, pl("LI", "italien", "advisor"), "R1.2", "no_advisors")
    assert not any(isinstance(m, Place) and m.advisors for m in s.legal_moves())
    s.supply_adv[0] = 1
    put_cloisters(s, 1, ["pavia"])  # limit 2
    assert_rejected(s, pl("FR,FR,LI", "italien", "advisor+advisor"), "R1.2", "no_advisors")
    ok(s, pl("FR,FR,LI", "italien", "advisor+verona"))


def test_R1_2_no_pieces_no_placements_at_all() -> None:
    s = base()
    s.supply_cl[0] = s.supply_adv[0] = 0
    moves = s.legal_moves()
    assert moves and all(isinstance(m, Exchange) for m in moves)  # R3: must exchange


# -- R3.1 pass ---------------------------------------------------------------------------------


def test_R3_1_pass_refused_while_anything_else_is_possible() -> None:
    s = base()
    assert_rejected(s, Pass(), "R3.1", "cannot_pass")
    s.supply_cl[0] = s.supply_adv[0] = 0  # exchanging is still possible
    assert_rejected(s, Pass(), "R3.1", "cannot_pass")


def test_R3_1_pass_when_nothing_else_is_possible() -> None:
    """Final round, draw pile and display empty, seat 0 cannot place: the only decision is pass."""
    s = base()
    s.supply_cl[0] = s.supply_adv[0] = 0
    burn(s, 0)  # the draw pile, as if drawn and played
    for k in s.display:
        s.discard[k] += 1
    s.display = []
    s.exhaustions, s.final_round = 2, True
    assert s.legal_moves() == [Pass()]
    s.play(Pass())
    assert s.turns == [1, 0, 0, 0] and s.current == 1 and s.phase == MAIN


def test_R3_1_pass_with_an_empty_hand() -> None:
    """R5.3 left seat 0 with no card; it cannot place or exchange: pass."""
    s = base()
    for k in range(5):
        s.discard[k] += s.hands[0][k]
    s.hands[0] = [0] * 5
    burn(s, 0)  # the draw pile, as if drawn and played
    s.exhaustions, s.final_round = 2, True
    assert s.legal_moves() == [Pass()]


# -- not a move / wrong phase ----------------------------------------------------------------


def test_R3_not_a_move_refused() -> None:
    s = base()
    before = s.key()
    with pytest.raises(RuleError) as e:
        s.play("play FR frankreich paris")  # type: ignore[arg-type]
    assert e.value.rule == "R3" and s.key() == before


def test_R5_1_draw_outside_the_refill_refused() -> None:
    s = base()
    assert_rejected(s, Draw(DECK), "R5.1", "not_drawing")


def test_R5_1_place_or_exchange_while_refilling_refused() -> None:
    s = base()
    s.play(pl("FR,FR,LI", "italien", "verona+venedig"))
    assert s.phase == DRAW and s.current == 0
    assert_rejected(s, pl("FR", "frankreich", "paris"), "R5.1", "must_draw")
    assert_rejected(s, Exchange(FR, DECK), "R5.1", "must_draw")
    assert_rejected(s, Pass(), "R5.1", "must_draw")


def test_R8_no_move_after_the_game_is_over() -> None:
    s = base()
    s.phase = OVER
    assert s.legal_moves() == []
    assert_rejected(s, Pass(), "R8", "game_over")


def test_make_place_is_canonical() -> None:
    a = make_place("italien", [LI, FR, FR], ["verona", "pavia"], 0)
    b = make_place("italien", [FR, LI, FR], ["pavia", "verona"], 0)
    assert a == b and a.cards == (FR, FR, LI) and a.cloisters == ("pavia", "verona")
    assert ES and BB and FA  # (kind ids are the board's)


# -- the functional API, copies and chance ------------------------------------------------------


def test_apply_returns_a_new_state_and_leaves_the_old_one() -> None:
    from kardinal.rules.state import apply, legal_moves

    s = base()
    before = s.key()
    t = apply(s, pl("LI", "italien", "verona"))
    assert s.key() == before and t.key() != before
    assert legal_moves(s) == s.legal_moves()
    with pytest.raises(RuleError) as e:
        apply(s, pl("FR", "italien", "verona"))
    assert e.value.rule == "R4.2" and s.key() == before


def test_copy_is_independent() -> None:
    s = base()
    t = s.copy()
    t.play(pl("FR,FR,LI", "italien", "verona+venedig"))
    assert s.owner != t.owner and s.hands != t.hands and s.cloisters != t.cloisters
    assert s.history == [] and t.history is not None and len(t.history) == 1
    assert s.copy(history=False).history is None


def test_R2_2_same_seed_same_deal_different_seeds_differ() -> None:
    a, b, c = new_game(4, seed=11), new_game(4, seed=11), new_game(4, seed=12)
    assert a.key() == b.key() and a.deck == b.deck
    assert a.deck != c.deck
    assert sorted(a.deck) == sorted(c.deck)
    r1, r2 = new_game(4), new_game(4)
    assert r1.seed is not None and r2.seed is not None and r1.seed != r2.seed


def test_R7_3_the_reshuffle_follows_the_seed() -> None:
    import random as _random

    outs = []
    for _ in range(2):
        s = new_game(3, seed=99)
        rng = _random.Random(1)
        while s.reshuffle is None:
            s.play(rng.choice(s.legal_moves()))
        outs.append(s.reshuffle)
    assert outs[0] == outs[1]
