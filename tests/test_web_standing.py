"""The state message says who would score each alliance if the game ended now (R10.3),
as the terminal client shows it: the seats holding both majorities and their points."""

from __future__ import annotations

from conftest import B, game, put_advisors, put_cloisters

from kardinal.server.play.live import standing


def test_an_alliance_scores_for_the_seat_holding_both_majorities() -> None:
    s = game(3, [["FA"] * 3, ["BB"] * 3, ["LI"] * 3])
    put_cloisters(s, 0, ["york", "lincoln"])
    put_cloisters(s, 1, ["london", "mainz", "frankfurt"])
    put_advisors(s, 0, "england", 2)  # seat 0 holds England's majority
    put_advisors(s, 0, "franken", 1)
    put_advisors(s, 1, "franken", 1)  # Franken tied: both hold it (R10.2)
    al = {a["number"]: a for a in standing(B, s)["alliances"]}
    assert [a["number"] for a in standing(B, s)["alliances"]] == [a.number for a in B.alliances]
    # alliance 1 is England-Franken: only seat 0 holds both; it scores every advisor there
    assert al[1] == {"number": 1, "holders": [0], "points": 4}
    # England-Lothringen: nobody has an advisor in Lothringen, so nobody holds its majority
    assert al[2] == {"number": 2, "holders": [], "points": 0}


def test_a_tie_in_both_countries_gives_the_alliance_to_both() -> None:
    s = game(3, [["FA"] * 3, ["BB"] * 3, ["LI"] * 3])
    put_cloisters(s, 0, ["york", "lincoln", "mainz", "frankfurt"])  # two each: room for two advisors (R4.8)
    for seat in (0, 1):
        put_advisors(s, seat, "england")
        put_advisors(s, seat, "franken")
    al = {a["number"]: a for a in standing(B, s)["alliances"]}
    assert al[1] == {"number": 1, "holders": [0, 1], "points": 4}
