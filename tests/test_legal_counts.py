"""Pinned legal-move counts on fixed positions, each counted by hand (R4-R6), and the
agreement of ``legal_moves`` with ``check`` over a broad set of candidate moves.

Each position is counted under the rules as written (R4.3: a joker pair places in a
country other than those printed on its cards) and under the variant joker-anywhere
(R14: the pair may also place in its own countries); the joker-anywhere counts are the
ones pinned before the German rule became the default.

Site counts of the board reconstruction-1 (conftest's B): England 5, Franken 7, Bayern 6, Italien 6, Aragon 5,
Frankreich 8, Lothringen 4, Schwaben 4, Burgund 5 (50).
"""

from __future__ import annotations

import random
from itertools import combinations, combinations_with_replacement

import pytest
from conftest import FA, FR, LI, LONG, B, burn, game, pl, put_advisors, put_cloisters
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from kardinal.rules.moves import DECK, Draw, Exchange, Move, Pass, Place, make_place
from kardinal.rules.state import RuleError, State, new_game

HANDS_REST = [["BB", "BB", "ES"], ["FA", "FA", "FA"], ["ES", "LI", "BB"]]
ANYWHERE = ("joker-anywhere",)
BOTH = pytest.mark.parametrize("rules", [(), ANYWHERE], ids=["as-written", "joker-anywhere"])


def count(s: State) -> int:
    moves = s.legal_moves()
    assert len(moves) == len(set(moves)), "duplicates in legal_moves"
    return len(moves)


# -- candidate moves ----------------------------------------------------------------------


def candidates(s: State) -> list[Move]:
    """Every placement shape over every country (any 1-3 cards of any kinds, 0-3 pieces on
    the country's sites or one foreign site), every exchange, every draw, pass."""
    kinds = [k.id for k in B.cards]
    # the kinds in hand and one kind not in hand (any card not held fails the same way, R4.1);
    # the cards in board order, which is not the canonical (sorted) order of a Place
    held = [k.id for k in B.cards if s.hands[s.current][k.index]]
    other = [k.id for k in B.cards if not s.hands[s.current][k.index]][:1]
    cardsets = [c for r in (1, 2, 3) for c in combinations_with_replacement(held + other, r)]
    out: list[Move] = [Pass(), Draw(DECK)] + [Draw(x) for x in kinds]
    out += [Exchange(d, t) for d in kinds for t in [DECK, *kinds]]
    for country in B.countries:
        sites = [B.sites[i].id for i in country.sites]
        foreign = "york" if country.id != "england" else "paris"
        shapes: list[tuple[tuple[str, ...], int]] = [((), 1), ((), 2), ((), 0)]
        shapes += [((x,), a) for x in [*sites, foreign] for a in (0, 1, 2)]
        shapes += [(tuple(sorted(p)), a) for p in combinations([*sites, foreign], 2) for a in (0, 1)]
        for cards in cardsets:
            out += [Place(country.id, cards, cl, a) for cl, a in shapes]
    return out


def check_iff_listed(s: State, cands: list[Move] | None = None) -> None:
    legal = s.legal_moves()
    listed = set(legal)
    assert len(listed) == len(legal)
    before = s.key()
    seen_legal = set()
    for m in cands if cands is not None else candidates(s):
        try:
            s.check(m)
            ok = True
        except RuleError:
            ok = False
        # R4.9: a placement written in another order is the same move (make_place's form)
        c = make_place(*m) if isinstance(m, Place) else m
        assert ok == (c in listed), f"{m}: check says {'legal' if ok else 'illegal'}, legal_moves {'lists' if c in listed else 'omits'} it"
        if ok:
            seen_legal.add(c)
    assert seen_legal == listed, f"listed but never generated as candidate: {listed - seen_legal}"
    assert s.key() == before


# -- the pinned positions -------------------------------------------------------------------


def pos_start(rules: tuple[str, ...] = ()) -> State:
    return game(4, [["FR", "FR", "LI"], *HANDS_REST], ["FA", "BB"], variants=rules)


@pytest.mark.parametrize("rules, total", [((), 66), (ANYWHERE, 74)], ids=["as-written", "joker-anywhere"])
def test_count_start_position(rules: tuple[str, ...], total: int) -> None:
    """Seat 0 holds FR, FR, LI; the board is empty (R4.6: one cloister only, everywhere).
    As written: Frankreich: FR only (the FR pair names Frankreich, R4.3) -> 8 sites;
    Italien: LI or FR+FR (joker) -> 2 x 6 = 12; Lothringen: LI or FR+FR -> 2 x 4 = 8; the
    other six countries only the joker FR+FR: 5+7+6+5+4+5 = 32 sites. Placements 60.
    Exchanges: 2 kinds in hand (FR, LI) x 3 takes (FA, BB, deck) = 6. Total 66.
    joker-anywhere: Frankreich FR or FR+FR -> 16, placements 68, total 74."""
    s = pos_start(rules)
    assert count(s) == total
    assert sum(isinstance(m, Exchange) for m in s.legal_moves()) == 6
    check_iff_listed(s)


def pos_italien(rules: tuple[str, ...] = ()) -> State:
    s = pos_start(rules)
    put_cloisters(s, 1, ["mailand"])
    return s


@pytest.mark.parametrize("rules, total", [((), 81), (ANYWHERE, 89)], ids=["as-written", "joker-anywhere"])
def test_count_one_country_open(rules: tuple[str, ...], total: int) -> None:
    """As the start, but Italien has seat 1's cloister on mailand (limit 1, no advisor).
    Italien, one piece: 5 free sites + 1 advisor = 6 options x 2 card sets (LI; FR+FR) = 12.
    Italien, two pieces: card sets: only FR+FR+LI (LI names Italien, FR pair is the joker);
    options: 2 cloisters C(5,2) = 10, cloister+advisor 5 (1 <= max(1, 0+1)), 2 advisors no
    (2 > 1): 15. Italien 27 (the same under both rule sets: the FR pair does not name Italien).
    The empty countries as before without Italien: as written 8 + 8 + 32 = 48, placements 75,
    exchanges 6: 81; joker-anywhere 16 + 8 + 32 = 56, placements 83: 89."""
    s = pos_italien(rules)
    assert count(s) == total
    check_iff_listed(s)


def test_count_refilling_the_hand() -> None:
    """R5.1: after FR+FR+LI in Italien: draw FA, draw BB, draw deck = 3; after taking FA:
    BB or deck = 2."""
    s = pos_italien()
    s.play(pl("FR,FR,LI", "italien", "verona+venedig"))
    assert count(s) == 3
    check_iff_listed(s)
    s.play(Draw(FA))
    assert count(s) == 2
    assert s.legal_moves() == [Draw("bayern-burgund"), Draw(DECK)]


def test_count_display_with_two_of_a_kind() -> None:
    """Display FA, FA: the draws are FA and deck (2, no duplicate); exchanges 2 kinds x 2 = 4."""
    s = game(4, [["FR", "FR", "LI"], *HANDS_REST], ["FA", "FA"])
    assert sum(isinstance(m, Exchange) for m in s.legal_moves()) == 4
    s.play(pl("FR", "frankreich", "paris"))
    assert count(s) == 2 and s.legal_moves() == [Draw(FA), Draw(DECK)]


def pos_full_schwaben(rules: tuple[str, ...] = ()) -> State:
    s = game(4, [["ES", "ES", "LI"], *HANDS_REST], ["FA", "BB"], variants=rules)
    put_cloisters(s, 1, ["strassburg", "ulm"])
    put_cloisters(s, 2, ["konstanz", "zuerich"])
    return s


@pytest.mark.parametrize("rules, total", [((), 64), (ANYWHERE, 70)], ids=["as-written", "joker-anywhere"])
def test_count_full_country(rules: tuple[str, ...], total: int) -> None:
    """Seat 0 holds ES, ES, LI. Schwaben is full (seats 1 and 2 hold 2 each: limit 2).
    As written: Schwaben: one piece: the advisor only, card set ES (the ES pair names
    Schwaben: no joker there) -> 1. Two pieces: ES+ES as two single cards (ES+ES+LI no: LI
    does not name Schwaben); no free site, so only 2 advisors (0+2 <= 2) -> 1. Schwaben 2.
    Empty countries, one cloister: England ES only: 5; Italien LI or ES+ES: 2 x 6 = 12;
    Lothringen 2 x 4 = 8; Franken, Bayern, Aragon, Frankreich, Burgund only ES+ES:
    7+6+5+8+5 = 31. Placements 2+5+12+8+31 = 58; exchanges 2 x 3 = 6: 64.
    joker-anywhere: Schwaben's one advisor also by ES+ES (3), England ES or ES+ES (10):
    placements 64, total 70."""
    s = pos_full_schwaben(rules)
    assert count(s) == total
    check_iff_listed(s)


def pos_advisors(rules: tuple[str, ...] = ()) -> State:
    s = game(4, [["LI", "LI", "FR"], *HANDS_REST], ["FA", "BB"], variants=rules)
    put_cloisters(s, 1, ["mailand", "pavia"])
    put_cloisters(s, 0, ["turin"])
    return s


@pytest.mark.parametrize("rules, total", [((), 69), (ANYWHERE, 77)], ids=["as-written", "joker-anywhere"])
def test_count_advisor_limit(rules: tuple[str, ...], total: int) -> None:
    """Seat 0 holds LI, LI, FR. Italien: seat 1 has 2, seat 0 has 1 (limit 2, 0 advisors),
    free: genua, verona, venedig. As written: one piece: 3 sites + advisor = 4, card set LI
    only (the LI pair names Italien) = 4. Two pieces: card set LI+LI as two single cards
    (no FR pair; LI+LI+LI needs 3 LI): 2 cloisters C(3,2) = 3, cloister+advisor 3,
    2 advisors 1 (0+2 <= 2) = 7. Italien 11. Empty: Lothringen LI only: 4; Frankreich FR or
    LI+LI: 2 x 8 = 16; the other six only LI+LI: 5+7+6+5+4+5 = 32. Placements 63,
    exchanges 6: 69. joker-anywhere: Italien's one piece also by LI+LI (8, Italien 15) and
    Lothringen LI or LI+LI (8): placements 71, total 77."""
    s = pos_advisors(rules)
    assert count(s) == total
    check_iff_listed(s)


@pytest.mark.parametrize("rules, total", [((), 64), (ANYWHERE, 71)], ids=["as-written", "joker-anywhere"])
def test_count_advisor_limit_reached(rules: tuple[str, ...], total: int) -> None:
    """As before with 2 advisors of seat 2 in Italien (at the limit 2). One piece: 3 sites
    x (LI) = 3 as written, x (LI; LI+LI) = 6 under joker-anywhere. Two pieces: 2 cloisters
    3; cloister+advisor: seat 0 would have 2, limit stays 2, 3 advisors > 2: no; 2 advisors
    no. Italien 6 / 9. Placements 6+4+16+32 = 58, total 64 / 9+8+16+32 = 65, total 71."""
    s = pos_advisors(rules)
    put_advisors(s, 2, "italien", 2)
    assert count(s) == total
    check_iff_listed(s)


@pytest.mark.parametrize("rules, total", [((), 63), (ANYWHERE, 69)], ids=["as-written", "joker-anywhere"])
def test_count_R4_9_cloister_raises_the_limit(rules: tuple[str, ...], total: int) -> None:
    """As before but seat 0 has 2 cloisters (turin, genua), 2 advisors there: free verona,
    venedig. One piece: 2 sites x (LI) = 2 as written, x (LI; LI+LI) = 4 under
    joker-anywhere. Two pieces: 2 cloisters 1; cloister+advisor 2 (seat 0 gets 3: limit 3,
    3 advisors fit); 2 advisors no. Italien 5 / 7. Total 5+52+6 = 63 / 7+56+6 = 69."""
    s = pos_advisors(rules)
    put_cloisters(s, 0, ["genua"])
    put_advisors(s, 2, "italien", 2)
    assert count(s) == total
    assert pl("LI,LI", "italien", "verona+advisor") in s.legal_moves()
    check_iff_listed(s)


@pytest.mark.parametrize("rules, total", [((), 68), (ANYWHERE, 93)], ids=["as-written", "joker-anywhere"])
def test_count_three_of_a_kind(rules: tuple[str, ...], total: int) -> None:
    """Seat 0 holds LI, LI, LI; Italien has seat 1's cloister on mailand (limit 1).
    As written (Chris's example: at most two cards of the kind are played in its country):
    Italien one piece: 5 sites + advisor = 6 x (LI) = 6. Two pieces: LI+LI as two single
    cards: C(5,2) = 10 + cloister+advisor 5 = 15. Italien 21. Lothringen LI only: 4. The
    other seven only LI+LI: 5+7+6+5+8+4+5 = 40. Placements 65. Exchanges 1 kind x 3 = 3.
    Total 68. joker-anywhere: Italien one piece x (LI; LI+LI) = 12, two pieces by LI+LI and
    LI+LI+LI (single LI + joker pair): 2 x 15 = 30, Italien 42; Lothringen 8; placements 90,
    total 93."""
    s = game(4, [["LI", "LI", "LI"], *HANDS_REST], ["FA", "BB"], variants=rules)
    put_cloisters(s, 1, ["mailand"])
    assert count(s) == total
    check_iff_listed(s)


def test_count_no_cloisters_left() -> None:
    """R1.2: as pos_italien with seat 0 out of cloisters: only advisors in Italien, one
    piece (LI; FR+FR) = 2; two advisors exceed the limit 1. Plus 6 exchanges = 8."""
    s = pos_italien()
    s.supply_cl[0] = 0
    assert count(s) == 8
    places = {m for m in s.legal_moves() if isinstance(m, Place)}
    assert places == {pl("LI", "italien", "advisor"), pl("FR,FR", "italien", "advisor")}
    check_iff_listed(s)


def test_count_only_pass() -> None:
    """R3.1: nothing to place with, nothing to take: exactly one decision, pass."""
    s = pos_italien()
    s.supply_cl[0] = s.supply_adv[0] = 0
    burn(s, 0)  # the draw pile, as if drawn and played
    s.display = []
    s.exhaustions, s.final_round = 2, True
    assert s.legal_moves() == [Pass()]
    check_iff_listed(s)


# -- check agrees with legal_moves on positions from random games ------------------------------


def test_check_iff_listed_on_random_positions() -> None:
    rng = random.Random(2024)
    positions = 12 if not LONG else 120
    done = 0
    seed = 0
    while done < positions:
        seed += 1
        s = random_position(rng, seed, 10, 160)
        if s is None:
            continue
        check_iff_listed(s)
        done += 1


def random_position(rng: random.Random, seed: int, low: int, high: int, rules: tuple[str, ...] = ()) -> State | None:
    """A position after ``low``..``high`` random decisions of a 3-5 player game on B; None if it ended."""
    s = new_game(rng.choice([3, 4, 5]), seed=seed, board=B, variants=rules)
    for _ in range(rng.randrange(low, high)):
        if s.is_over:
            return None
        s.play(rng.choice(s.legal_moves()))
    return None if s.is_over else s


@pytest.mark.parametrize("players", [3, 4, 5])
def test_legal_moves_no_duplicates_and_all_pass_check_in_random_games(players: int) -> None:
    rng = random.Random(players)
    for g in range(15 if not LONG else 150):
        s = new_game(players, seed=1000 + g)
        while not s.is_over:
            moves = s.legal_moves()
            assert moves and len(moves) == len(set(moves))
            for m in moves:
                s.check(m)
            s.play_trusted(rng.choice(moves))
    assert FR and LI


# -- an independent reading of R4, straight from RULES.md ----------------------------------------


def _groupings(cards: list[str], pieces: int) -> list[list[list[str]]]:
    """Every way to split the cards into ``pieces`` groups of 1 or 2 cards, using all (R4.5)."""
    if pieces == 0:
        return [[]] if not cards else []
    if not cards:
        return []
    first, rest = cards[0], cards[1:]
    out = [[[first], *g] for g in _groupings(rest, pieces - 1)]
    for r in range(len(rest)):
        left = rest[:r] + rest[r + 1 :]
        out += [[[first, rest[r]], *g] for g in _groupings(left, pieces - 1)]
    return out


def rules_allow_place(s: State, m: Place) -> bool:
    """R1.2, R4.1-R4.9, R14 written out independently of kardinal.rules.state."""
    b = s.board
    seat = s.current
    if s.phase != "main" or m.country not in b.country_index:
        return False
    c = b.country_index[m.country]
    cards = list(m.cards)
    if not 1 <= len(cards) <= 3 or any(x not in b.kind_index for x in cards):
        return False
    hand = {k.id: s.hands[seat][k.index] for k in b.cards}
    if any(cards.count(x) > hand[x] for x in set(cards)):  # R4.1
        return False
    if not isinstance(m.advisors, int) or m.advisors < 0:
        return False
    pieces = [("cloister", x) for x in m.cloisters] + [("advisor", "")] * m.advisors
    if not 1 <= len(pieces) <= 2:  # R4.5
        return False

    def names(kind: str) -> bool:
        return c in b.cards[b.kind_index[kind]].countries

    # R4.2-R4.5: one card naming the country, or two identical cards (joker), per piece;
    # R4.3: a joker not naming the country, unless the game has the variant joker-anywhere
    anywhere = "joker-anywhere" in s.variants

    def joker(g: list[str]) -> bool:
        return len(g) == 2 and g[0] == g[1] and (anywhere or not names(g[0]))

    if not any(all((len(g) == 1 and names(g[0])) or joker(g) for g in split) for split in _groupings(cards, len(pieces))):
        return False
    sites = [b.sites[i].id for i in b.countries[c].sites]
    owners = {b.sites[i].id: s.owner[i] for i in b.countries[c].sites}
    counts = [sum(1 for i in b.countries[c].sites if s.owner[i] == p) for p in range(s.n)]
    advisors = sum(s.advisors[c])
    if max(counts) == 0 and advisors == 0 and (len(pieces) != 1 or pieces[0][0] != "cloister"):  # R4.6
        return False
    if len(m.cloisters) > s.supply_cl[seat] or m.advisors > s.supply_adv[seat]:  # R1.2
        return False
    if len(set(m.cloisters)) != len(m.cloisters):  # R4.7
        return False
    if any(x not in sites or owners[x] >= 0 for x in m.cloisters):  # R4.4, R4.7
        return False
    # R4.8/R4.9: some order of the pieces passes, each checked against the board of the moment
    for order in {tuple(pieces), tuple(reversed(pieces))}:
        cnt, adv, fine = counts[:], advisors, True
        for kind, _ in order:
            if kind == "cloister":
                cnt[seat] += 1
            else:
                adv += 1
                if adv > max(cnt):
                    fine = False
        if fine:
            return True
    return False


def rules_allow(s: State, m: Move) -> bool:
    b = s.board
    if s.phase == "over":
        return False
    seat = s.current
    can_take = {b.cards[k].id for k in s.display} | ({DECK} if s.deck_size else set())
    if isinstance(m, Draw):
        return s.phase == "draw" and m.source in can_take
    if s.phase == "draw":
        return False
    if isinstance(m, Place):
        return rules_allow_place(s, m)
    if isinstance(m, Exchange):
        held = m.discard in b.kind_index and s.hands[seat][b.kind_index[m.discard]] > 0
        return held and m.take in can_take  # R6.1
    if isinstance(m, Pass):  # R3.1: nothing else is possible
        return not any(rules_allow(s, x) for x in candidates(s) if not isinstance(x, Pass))
    return False


@BOTH
def test_check_agrees_with_an_independent_reading_of_the_rules(rules: tuple[str, ...]) -> None:
    rng = random.Random(99)
    positions = 8 if not LONG else 80
    done = seed = 0
    while done < positions:
        seed += 1
        s = random_position(rng, 7000 + seed, 20, 200, rules)
        if s is None:
            continue
        assert_check_matches_reading(s)
        done += 1


def assert_check_matches_reading(s: State, where: str = "") -> None:
    """check() accepts a candidate exactly when the independent reading of R4 allows it."""
    for m in candidates(s):
        if isinstance(m, Pass):
            continue
        try:
            s.check(m)
            ok = True
        except RuleError:
            ok = False
        assert ok == rules_allow(s, m), f"{where}{m}: check says {ok}"


@BOTH
def test_independent_reading_on_the_pinned_positions(rules: tuple[str, ...]) -> None:
    for make in (pos_start, pos_italien, pos_full_schwaben, pos_advisors):
        assert_check_matches_reading(make(rules), f"{make.__name__}: ")


@st.composite
def crafted_positions(draw: st.DrawFn) -> State:
    """Random boards: cloisters anywhere (full countries included), advisors up to the
    limits, supplies run down, any hand of up to 3 cards."""
    n = draw(st.sampled_from([3, 4, 5]))
    s = new_game(n, seed=draw(st.integers(0, 10**6)), board=B, variants=draw(st.sampled_from([(), ANYWHERE])))
    fill = draw(st.floats(0.0, 1.0))
    for site in B.sites:
        if draw(st.floats(0.0, 1.0)) < fill:
            p = draw(st.integers(0, n - 1))
            if s.supply_cl[p]:
                put_cloisters(s, p, [site.id])
    for c in B.countries:
        for _ in range(draw(st.integers(0, 3))):
            p = draw(st.integers(0, n - 1))
            if s.supply_adv[p] and s.advisors_total[c.index] < s.most_cloisters[c.index]:
                put_advisors(s, p, c.id)
    cur = s.current
    s.supply_cl[cur] = min(s.supply_cl[cur], draw(st.sampled_from([0, 1, 2, 20])))
    s.supply_adv[cur] = min(s.supply_adv[cur], draw(st.sampled_from([0, 1, 2, 8])))
    hand = [0] * 5
    for k in draw(st.lists(st.integers(0, 4), max_size=3)):
        hand[k] += 1
    s.hands[cur] = hand
    return s


@settings(max_examples=12 if not LONG else 150, deadline=None, suppress_health_check=list(HealthCheck))
@given(crafted_positions())
def test_check_legal_moves_and_rules_agree_on_crafted_positions(s: State) -> None:
    check_iff_listed(s)
    assert_check_matches_reading(s)


def test_the_shared_moves_are_never_the_callers_list() -> None:
    """The rules core builds the placements, exchanges and draws of a hand, a display and a
    country's free sites once and shares them between positions; ``legal_moves`` still
    gives each caller a list of its own: emptying it, or adding to it, changes nothing that
    this or any later position lists."""
    rng = random.Random(5)
    for g in range(6):
        s = new_game(4, seed=900 + g, history=False)
        while not s.is_over:
            want = [str(m) for m in s.legal_moves()]
            twin = s.copy(history=False)
            got = s.legal_moves()
            got.append(Pass())
            got.clear()
            assert [str(m) for m in s.legal_moves()] == [str(m) for m in twin.legal_moves()] == want
            s.play(rng.choice(s.legal_moves()))
