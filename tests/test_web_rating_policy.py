"""The rating policy against farming (kardinal.server.community.ratings, options, clocks): a win counts
only as far as the seats beaten show (ratings.REACH), a seat a bot stands in for at the end
is rated last (ratings.forfeited), and a rated table always has a clock and the weakest
stand-in (options.RATED_CLOCK, RATED_STANDIN), so that walking away from a losing game
lets the clock run out and the game is played out and rated as a loss.

The farming strategies are simulated with the rating update itself (ratings.rater, as
settle.py calls it), seeded and without a server: none lifts a player's leaderboard value
(mu - 2 sigma) above the greedy bot's fixed rating, while honest players reach their
strength. Walking away is shown through the server, with a clock the test moves on."""

from __future__ import annotations

import random
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from test_web_accounts import get, post, sign_up
from test_web_clocks import FakeTime, call, chat_kinds, service
from web_helpers import LENIENT, seats, state, tokens

from kardinal.server.common.guard import Guard
from kardinal.server.community.ratings import BOT_RATINGS, BOT_SIGMA, MU0, REACH, SIGMA0, rater
from kardinal.server.play.options import RATED_CLOCK
from kardinal.server.storage import SeatResult, SeatRow
from kardinal.server.web.app import create_app

pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)

GREEDY = BOT_RATINGS["greedy"].mu  # the bar no farming may pass (the leaderboard lists the bots' mu)

Rating = tuple[float, float]


def leaderboard_value(r: Rating) -> float:
    return r[0] - 2 * r[1]  # the leaderboard orders by it (storage.leaderboard)


def finishing_order(rng: random.Random, strengths: list[float]) -> list[float]:
    """Places drawn from the Plackett-Luce model of the bot tournaments (strength 10 ** (r / 400))."""
    left, places = list(range(len(strengths))), [0.0] * len(strengths)
    for place in range(1, len(strengths) + 1):
        i = rng.choices(left, weights=[10 ** (strengths[k] / 400) for k in left])[0]
        places[i] = float(place)
        left.remove(i)
    return places


def results(places: list[float]) -> list[SeatResult]:
    return [SeatResult(i, len(places), p, 0, 1.0 if p == 1.0 else 0.0) for i, p in enumerate(places)]


def play(
    me: Rating, others: list[SeatRow], places: list[float], owned: dict[int, Rating] | None = None, left: bool = False
) -> dict[int, Rating]:
    """One rated game settled as settle.py does: the person at seat 0 (``me``; ``left``: a
    bot stood in for them at the end) and ``others``; ``owned``: the other seats that belong
    to accounts, with their ratings."""
    rows = [SeatRow("Me", "person", joined=True, standin=left), *others]
    return rater(rows, results(places))({0: me, **(owned or {})})


def bots(level: str, n: int = 3) -> list[SeatRow]:
    return [SeatRow(f"{level} {i}", "bot", level) for i in range(n)]


def wins_against_random(n: int) -> Iterator[Rating]:
    me: Rating = (MU0, SIGMA0)
    for _ in range(n):
        me = play(me, bots("random"), [1.0, 2.0, 3.0, 4.0])[0]
        yield me


# -- the simulations ---------------------------------------------------------------------------


def test_a_thousand_wins_against_random_bots_stay_below_greedy() -> None:
    seen = list(wins_against_random(1000))
    assert max(leaderboard_value(r) for r in seen) < GREEDY
    # a newcomer (1500) is already far above random's reach: the wins only make the rating surer
    assert all(r[0] <= MU0 for r in seen)


def test_wins_against_random_from_below_stop_at_randoms_reach() -> None:
    """A player who starts low (say after many losses) climbs by beating random only up to its reach."""
    me: Rating = (400.0, 80.0)
    for _ in range(1000):
        me = play(me, bots("random"), [1.0, 2.0, 3.0, 4.0])[0]
    reach = BOT_RATINGS["random"].mu - BOT_SIGMA + REACH
    assert me[0] == pytest.approx(reach, abs=1.0) and leaderboard_value(me) < GREEDY


def run_farmer(strength: float, levels: tuple[str, ...], games: int, seed: int) -> list[tuple[Rating, bool]]:
    """A farmer of true ``strength`` at tables of three bots of a level drawn from ``levels``:
    a game they would not win they leave (the stand-in plays on; their seat is stood in at
    the end). Their rating after each game, and whether they left it."""
    rng = random.Random(seed)
    me: Rating = (MU0, SIGMA0)
    out: list[tuple[Rating, bool]] = []
    for _ in range(games):
        level = rng.choice(levels)
        places = finishing_order(rng, [strength] + [BOT_RATINGS[level].mu] * 3)
        left = places[0] != 1.0
        me = play(me, bots(level), places, left=left)[0]
        out.append((me, left))
    return out


@pytest.mark.parametrize(
    ("strength", "levels"),
    [
        (GREEDY, ("random",)),  # only random: never a reason to leave
        (GREEDY, ("random", "easy")),  # random and easy, leaving the games going badly
        (GREEDY, ("random", "easy", "greedy", "medium")),  # every level up to medium
        (GREEDY - 100, ("random", "easy", "greedy", "medium", "hard", "expert")),
    ],
)
def test_wins_against_weak_bots_and_walking_away_from_losses_stay_below_greedy(strength: float, levels: tuple[str, ...]) -> None:
    """A player no stronger than greedy who wins where they can and walks away from the rest
    (each such game is played out by the stand-in and rated last) stays below greedy."""
    seen = run_farmer(strength, levels, 2000, seed=7)
    assert max(leaderboard_value(r) for r, _ in seen) < GREEDY
    if levels != ("random",):
        assert any(left for _, left in seen)  # the strategy was used


def test_many_new_accounts_beaten_lift_nobody_above_greedy() -> None:
    """Many tables against fresh accounts (sock puppets, each a newcomer at 1500 ± 350 who
    never finishes ahead): a win over a newcomer reaches 1550 at most, and the leaderboard
    value (mu - 2 sigma) stays below greedy."""
    me: Rating = (MU0, SIGMA0)
    best = leaderboard_value(me)
    for _ in range(1000):
        puppets = [SeatRow(f"P{i}", "person", joined=True) for i in range(3)]
        after = play(me, puppets, [1.0, 2.0, 3.0, 4.0], owned={i: (MU0, SIGMA0) for i in (1, 2, 3)})
        me = after[0]
        best = max(best, leaderboard_value(me))
    assert best < GREEDY and me[0] <= MU0 - SIGMA0 + REACH


def test_an_honest_strong_player_still_rises_above_the_strong_bots() -> None:
    """A player of 1850 winning and losing honestly against hard and expert bots, and one of
    1500 against greedy: each reaches their strength (the reach holds nobody honest back)."""
    rng = random.Random(3)
    for strength, levels, floor in ((1850.0, ("hard", "expert"), 1750.0), (GREEDY, ("greedy",), 1440.0)):
        me: Rating = (MU0, SIGMA0)
        late: list[float] = []
        for n in range(800):
            level = rng.choice(levels)
            places = finishing_order(rng, [strength] + [BOT_RATINGS[level].mu] * 3)
            me = play(me, bots(level), places)[0]
            if n >= 400:
                late.append(me[0])
        mean = sum(late) / len(late)
        assert floor < mean < strength + 100
    # and a strong player's win over people of their own level moves them up
    me = play(
        (1800.0, 60.0),
        [SeatRow(f"P{i}", "person", joined=True) for i in range(3)],
        [1.0, 2.0, 3.0, 4.0],
        {i: (1800.0, 60.0) for i in (1, 2, 3)},
    )[0]
    assert me[0] > 1800.0


def test_a_seat_stood_in_at_the_end_is_rated_last_one_taken_back_as_it_finished() -> None:
    """The stand-in won the game for a person who walked away: rated last all the same; a
    person who came back and won: rated first."""
    left = play((MU0, SIGMA0), bots("greedy"), [1.0, 2.0, 3.0, 4.0], left=True)[0]
    back = play((MU0, SIGMA0), bots("greedy"), [1.0, 2.0, 3.0, 4.0])[0]
    lost = play((MU0, SIGMA0), bots("greedy"), [4.0, 1.0, 2.0, 3.0])[0]
    assert left == pytest.approx(lost) and left[0] < MU0 < back[0]


# -- through the server: a rated table has a clock, and walking away loses -----------------------


@pytest.fixture
def fake_time() -> FakeTime:
    return FakeTime()


@pytest.fixture
def client(tmp_path: Path, db_url: str, fake_time: FakeTime) -> Iterator[TestClient]:
    # deadlines are looked at only when the test asks (check_clocks): clock_check an hour
    app = create_app(data_dir=tmp_path, db_url=db_url, bot_pause=0.0, guard=Guard(LENIENT), clock=fake_time, clock_check=3600.0)
    with TestClient(app) as c:
        yield c


def test_a_rated_table_always_has_a_clock_and_the_weakest_stand_in(client: TestClient) -> None:
    anna = sign_up(client, "Anna")
    r = post(client, "/api/games", anna, json={"players": seats("person", "bot:greedy", "bot:greedy"), "rated": True, "standin": "expert"})
    assert r.status_code == 200, r.text
    table = client.get(f"/api/games/{r.json()['id']}").json()["table"]
    assert table["clock"] == RATED_CLOCK["live"] and table["standin"] == "random"
    # a clock of one's own choice stays; turn-based gets days
    body: dict[str, Any] = {"players": seats("person", "bot:greedy", "bot:greedy"), "rated": True, "clock": {"move": 30}}
    table = client.get(f"/api/games/{post(client, '/api/games', anna, json=body).json()['id']}").json()["table"]
    assert table["clock"] == {"move": 30.0, "reserve": 0.0, "increment": 0.0}
    body = {"players": seats("person", "bot:greedy", "bot:greedy"), "rated": True, "mode": "turn"}
    table = client.get(f"/api/games/{post(client, '/api/games', anna, json=body).json()['id']}").json()["table"]
    assert table["clock"] == RATED_CLOCK["turn"]
    # an unrated table is as it was: no clock unless asked, the stand-in asked for
    body = {"players": seats("person", "bot:greedy", "bot:greedy"), "standin": "expert"}
    table = client.get(f"/api/games/{post(client, '/api/games', anna, json=body).json()['id']}").json()["table"]
    assert table["clock"] is None and table["standin"] == "expert"


def test_walking_away_from_a_rated_game_loses_it(client: TestClient, fake_time: FakeTime) -> None:
    """A person alone with bots leaves on their turn (no page open, no move): their time runs
    out, the stand-in plays the game out for them, and it is rated, as a loss."""
    anna = sign_up(client, "Anna")
    r = post(client, "/api/games", anna, json={"players": seats("person", *["bot:greedy"] * 3), "rated": True})
    assert r.status_code == 200, r.text
    gid, tok = r.json()["id"], tokens(r.json())[0]
    assert post(client, f"/api/games/{gid}/join", anna, json={"seat": 0, "token": tok}).status_code == 200
    svc = service(client)
    call(client, svc.wait_idle, gid)
    assert state(client, gid)["view"]["current"] == 0  # the bots played up to Anna's turn; she is gone
    clock = RATED_CLOCK["live"]
    fake_time.advance(clock["move"] + clock["reserve"] - 1)
    assert call(client, svc.check_clocks) == []  # a second to go
    fake_time.advance(2)
    assert call(client, svc.check_clocks) == [gid]
    call(client, svc.wait_idle, gid)
    end = state(client, gid)
    assert end["status"] == "finished"  # played out by the stand-in and the bots, not left waiting
    assert end["players"][0]["standin"] is True
    assert ("timeout_away", "P0", "random") in chat_kinds(client, gid)
    call(client, client.app.state.settler.wait)  # type: ignore[attr-defined]
    out = client.get(f"/api/games/{gid}/ratings").json()
    assert out["rated"] is True and out["settled"] is True
    assert out["seats"]["0"]["after"] < out["seats"]["0"]["before"] == round(MU0)  # a loss
    data = get(client, "/api/account/data", anna).json()
    assert data["rating"]["games"] == 1 and [e["game"] for e in data["rated_games"]] == [gid]
