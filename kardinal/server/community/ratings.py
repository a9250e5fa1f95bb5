"""Ratings of people: the numbers, the bots' fixed ratings, and one rated game's update.

Rated games update their people's ratings with ``openskill``'s Plackett-Luce model (Weng &
Lin 2011), the model of finishing orders the bot tournaments fit (kardinal.bots.tournament),
on the tournaments' scale: a player of rating ``r`` has the strength ``10 ** (r / 400)``, so
that of two players 200 apart the stronger finishes ahead about 76% of the time. A rating is
a mean ``mu`` and an uncertainty ``sigma``; a newcomer starts at MU0 ± SIGMA0. openskill's
model divides the ratings by ``c = sqrt(sum(sigma**2 + BETA**2))`` over the table; BETA is
chosen so that at a table of four players whose ratings are certain ``c`` is ``400 / ln 10``,
the tournaments' model exactly (at three or five players it is a little flatter or steeper).
TAU is added to sigma before every game, so that a rating never freezes.

Bots do not learn: each level has a fixed rating (BOT_RATINGS) measured in bot tournaments,
which enters a game as ``mu`` with the small uncertainty BOT_SIGMA and is never changed. So a
game against bots is rated too, and a newcomer's first games place them among the bots.

Places come from the final scores (results.places: more points, then more pieces left, R12.1);
seats still equal share a place, which openskill takes as a tie. A person whose seat a bot
stands in for when the game ends (they left it) is rated last (:func:`forfeited`).

A win counts only as far as the seats beaten show (REACH): after a game, a person's rating
rises to at most REACH above ``mu - sigma`` of the strongest seat they finished ahead of or
level with; one already above that gains nothing from the game (a loss still counts in
full). Without it every win adds a little however weak the beaten (the model gives a win
over a far weaker player a small but never zero weight), and 200 wins over ``random`` lifted
a newcomer above ``expert``. With it no number of wins over ``random`` (612 ± 25) lifts
anyone past 987, nor wins over fresh accounts (1500 ± 350) past 1550, while a win over
``greedy`` still reaches 1875 and one over ``expert`` 2077 (docs/play/browser.md, "Ratings";
tests/test_web_rating_policy.py simulates the farming strategies). The opponent's sigma
counts against it: a win over a player the ratings know little of shows little.

People see a rating as "1612 ± 140": ``mu`` and ``2 sigma``, rounded. The leaderboard orders
by ``mu - 2 sigma`` (a rating one can be fairly sure of), so that a lucky first game does not
put a newcomer on top.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Sequence
from dataclasses import dataclass

from openskill.models import PlackettLuce

from ..storage import SeatResult, SeatRow

__all__ = [
    "MU0",
    "SIGMA0",
    "BETA",
    "TAU",
    "BOT_SIGMA",
    "REACH",
    "Anchor",
    "BOT_RATINGS",
    "bot_rating",
    "rate_game",
    "rater",
    "shown",
    "closest_level",
    "forfeited",
]

MU0 = 1500.0  # a newcomer's rating ...
SIGMA0 = 350.0  # ... and its uncertainty (a newcomer could be anywhere from random to expert)
BETA = 400.0 / math.log(10) / 2  # ≈ 86.86: four certain players follow the tournaments' model exactly
TAU = 3.5  # added to sigma before each game: a rating keeps moving a little
BOT_SIGMA = 25.0  # the uncertainty a bot's fixed rating enters a game with (about its anchor's interval)
REACH = 400.0  # a win lifts a rating to at most this above mu - sigma of the best seat beaten

MODEL = PlackettLuce(mu=MU0, sigma=SIGMA0, beta=BETA, tau=TAU)


@dataclass(frozen=True)
class Anchor:
    """A bot level's fixed rating and where it comes from."""

    mu: float
    low: float  # 95% interval of the measurement (bootstrap over rotation blocks)
    high: float
    how: str  # the tournament that measured it
    measured: bool = True  # False: an estimate (between measured levels)


# Measured 2026-11-26 on this project's 2-core machine (docs/benchmarks/bots.md, "Fixed
# ratings of the bots"): Plackett-Luce fits of rotation tournaments (kardinal tournament,
# 4 players, 200 games each, 95% intervals from the bootstrap over rotation blocks), on the
# same scale as these ratings, shifted so that greedy is at 1500: a newcomer starts level with
# the bot that takes the best-looking move (a person who knows the rules), with easy below and
# medium above.
#   A: --bots random,easy,greedy,medium --seed 1: random -888 (-1039 to -796) from greedy,
#      easy -133 (-178 to -69), medium +150 (+102 to +219).
#   B: --bots hard,medium,greedy,easy --seed 2 (two at once on a busy machine: hard's 1.5 s
#      limit ended 69% of its decisions, medium's 0.4 s 39%: measured as they play on a busy
#      server): hard +183 (+152 to +216), medium +154 (+129 to +180), easy -114 (-143 to -90).
# easy and medium: the mean of A and B. expert: chained from the recorded 400 games against
# three hard (2026-11-24, the same fit: 1514 against a mean of 1495 for the hard, +19).
# ismcts (1,000 iterations) was not measured: between medium and hard.
BOT_RATINGS: dict[str, Anchor] = {
    "random": Anchor(612.0, 461.0, 704.0, "tournament A, 200 games, 2026-11-26"),
    "easy": Anchor(1376.0, 1322.0, 1431.0, "tournaments A and B, 400 games, 2026-11-26"),
    "greedy": Anchor(1500.0, 1466.0, 1551.0, "the anchor (tournaments A and B, 2026-11-26)"),
    "medium": Anchor(1652.0, 1602.0, 1719.0, "tournaments A and B, 400 games, 2026-11-26"),
    "ismcts": Anchor(1668.0, 1602.0, 1716.0, "not measured: between medium and hard", measured=False),
    "hard": Anchor(1683.0, 1652.0, 1716.0, "tournament B, 200 games, 2026-11-26"),
    "expert": Anchor(1702.0, 1660.0, 1745.0, "chained: hard + 19 (400 games against three hard, 2026-11-24)"),
}


def bot_rating(level: str | None) -> float:
    """A bot level's fixed rating (a level without a measurement: a newcomer's)."""
    anchor = BOT_RATINGS.get((level or "").lower())
    return anchor.mu if anchor is not None else MU0


def closest_level(mu: float, levels: Sequence[str]) -> str:
    """Of these bot levels, the one whose fixed rating is closest to ``mu`` (the weaker of two
    as close): the bots a player waiting for people can start with."""
    rated = [lv for lv in levels if lv in BOT_RATINGS] or list(levels)
    return min(rated, key=lambda lv: (abs(bot_rating(lv) - mu), bot_rating(lv)))


def shown(mu: float, sigma: float) -> tuple[int, int]:
    """A rating as people see it: (mu, 2 sigma), rounded."""
    return round(mu), round(2 * sigma)


def rate_game(players: Sequence[tuple[float, float, bool]], places: Sequence[float]) -> list[tuple[float, float]]:
    """One game's update. ``players``: per seat (mu, sigma, learns); ``places``: per seat, 1
    first, equal places a tie. Returns every seat's (mu, sigma) after the game; a seat that
    does not learn (a bot, or a person not rated here) keeps its own."""
    if len(players) != len(places) or not 2 <= len(players) <= 8:
        raise ValueError("one place per seat, 2-8 seats")
    teams = [[MODEL.rating(mu=mu, sigma=sigma)] for mu, sigma, _ in players]
    after = MODEL.rate(teams, ranks=[float(p) for p in places])
    out: list[tuple[float, float]] = []
    for i, ((mu, sigma, learns), team) in enumerate(zip(players, after)):
        if learns:
            new_mu = min(float(team[0].mu), max(mu, ceiling(players, places, i)))
            out.append((new_mu, float(team[0].sigma)))
        else:
            out.append((mu, sigma))
    return out


def ceiling(players: Sequence[tuple[float, float, bool]], places: Sequence[float], seat: int) -> float:
    """How high a win lifts ``seat`` at most (see REACH): REACH above ``mu - sigma`` of the
    strongest other seat that finished behind it or level with it (none: no gain)."""
    beaten = [mu - sigma for j, (mu, sigma, _) in enumerate(players) if j != seat and places[j] >= places[seat]]
    return max(beaten) + REACH if beaten else -math.inf


def rater(
    seats: Sequence[SeatRow], found: Sequence[SeatResult]
) -> Callable[[dict[int, tuple[float, float]]], dict[int, tuple[float, float]]]:
    """The update of one finished game, for Storage.settle_game: given the ratings of the
    seats that belong to accounts (``{seat: (mu, sigma)}``), their ratings after it. Bots
    enter with their fixed ratings; a person seat without an account (it cannot be at a rated
    table, but an account deleted meanwhile leaves one) as a newcomer who does not learn. A
    seat a bot stood in for at the end is rated last (:func:`forfeited`)."""

    def update(owned: dict[int, tuple[float, float]]) -> dict[int, tuple[float, float]]:
        players: list[tuple[float, float, bool]] = []
        for i, s in enumerate(seats):
            if i in owned:
                players.append((*owned[i], True))
            elif s.kind == "bot":
                players.append((bot_rating(s.level), BOT_SIGMA, False))
            else:
                players.append((MU0, SIGMA0, False))
        places = forfeited(seats, [r.place for r in sorted(found, key=lambda r: r.seat)])
        after = rate_game(players, places)
        return {i: after[i] for i in owned}

    return update


def forfeited(seats: Sequence[SeatRow], places: Sequence[float]) -> list[float]:
    """The places a rated game's ratings take: those of the results, but a person whose seat
    a bot stood in for when the game ended (they walked away, or were away when their time
    ran out: clocks.py, presence.py) finishes behind every other seat, level with any other
    such seat. Leaving a rated game loses it, whatever the stand-in made of it."""
    last = float(len(places) + 1)
    return [last if s.kind == "person" and s.standin else float(p) for s, p in zip(seats, places)]
