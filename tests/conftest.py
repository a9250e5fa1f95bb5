"""Shared helpers for the rules-engine tests: hand-made positions and random games.

Positions are built with ``new_game(deck=...)`` (the deck order decides the deal: seat 0
gets the top three cards, seat 1 the next three, ..., then two go to the display) and
then, where needed, by setting State fields directly through the helpers below, which
keep the derived fields (cloisters, most_cloisters, advisors_total, free_sites, owner, supply)
consistent.
"""

from __future__ import annotations

import json
import os
import random
import time
from collections import Counter
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import Any

import pytest

from kardinal.rules.board import Board, get_board
from kardinal.rules.moves import Move, parse_move
from kardinal.rules.state import RuleError, State, new_game

LONG = os.environ.get("KARDINAL_LONG") == "1"

B = get_board("reconstruction-1")  # the hand-made positions were checked on this board
SHORT = {k.short: k.id for k in B.cards}  # "FA" -> "franken-aragon"
FA, BB, LI, ES, FR = (SHORT[x] for x in ("FA", "BB", "LI", "ES", "FR"))


def kid(x: str, board: Board = B) -> str:
    """A card kind id from a short code or an id."""
    return board.cards[board.kind(x)].id


def composition(players: int, board: Board = B) -> dict[str, int]:
    r = board.removed_per_kind[players]
    return {k.id: k.count - r for k in board.cards}


def make_deck(
    players: int,
    hands: Sequence[Sequence[str]],
    display: Sequence[str] = (),
    then: Sequence[str] = (),
    board: Board = B,
    rest: Sequence[str] | None = None,
) -> list[str]:
    """A full legal deck (kind ids, top first) that deals ``hands`` (one per seat, 3 cards
    each), turns up ``display`` (2 cards), puts ``then`` next on the pile and the rest of
    the composition after it (in kind order, or in the order ``rest`` lists the kinds)."""
    assert len(hands) == players and all(len(h) == 3 for h in hands)
    left = composition(players, board)
    top: list[str] = []
    for h in hands:
        top += [kid(x, board) for x in h]
    if len(display) == 2:
        top += [kid(x, board) for x in display]
    else:
        assert not display and not then, "give the display to fix what follows it"
    top += [kid(x, board) for x in then]
    for k in top:
        left[k] -= 1
        assert left[k] >= 0, f"too many {k} cards"
    order = [kid(x, board) for x in rest] if rest else [k.id for k in board.cards]
    order += [k.id for k in board.cards if k.id not in order]
    tail = [k for k in order for _ in range(left[k])]
    return top + tail


def game(
    players: int,
    hands: Sequence[Sequence[str]],
    display: Sequence[str] = (),
    then: Sequence[str] = (),
    board: Board = B,
    rest: Sequence[str] | None = None,
    seed: int | None = 1,
    variants: Sequence[str] = (),
) -> State:
    """A new game whose deal is fixed by :func:`make_deck` (under the rule ``variants``, R14)."""
    s = new_game(players, board=board, deck=make_deck(players, hands, display, then, board, rest), variants=variants)
    s.reseed(seed)  # decides only the reshuffle (R7.3)
    return s


def put_cloisters(s: State, seat: int, sites: Sequence[str]) -> None:
    """Place cloisters of ``seat`` on ``sites`` directly, keeping every derived field consistent."""
    b = s.board
    for sid in sites:
        i = b.site_index[sid]
        assert s.owner[i] < 0, f"{sid} is taken"
        assert s.supply_cl[seat] > 0
        c = b.sites[i].country
        s.owner[i] = seat
        s.cloisters[c][seat] += 1
        s.most_cloisters[c] = max(s.most_cloisters[c], s.cloisters[c][seat])
        s.free_sites[c] = tuple(x for x in s.free_sites[c] if x != sid)
        s.supply_cl[seat] -= 1


def put_advisors(s: State, seat: int, country: str, count: int = 1) -> None:
    """Place advisors directly (checked against R4.8 so the position stays legal)."""
    c = s.board.country_index[country]
    assert s.supply_adv[seat] >= count
    assert s.advisors_total[c] + count <= s.most_cloisters[c], "R4.8 would be broken"
    s.advisors[c][seat] += count
    s.advisors_total[c] += count
    s.supply_adv[seat] -= count


def burn(s: State, left: int) -> None:
    """Move cards from the top of the draw pile to the discard pile until ``left`` remain,
    as if they had been drawn and played: every card stays accounted for."""
    assert s.deck_size >= left
    while s.deck_size > left:
        s.discard[s.deck[s.top]] += 1
        s.top += 1


def pl(cards: str, country: str, pieces: str) -> Move:
    """A placement in notation: pl("FR,FR,LI", "italien", "verona+advisor")."""
    return parse_move(f"play {cards} {country} {pieces}")


def card_total(s: State) -> list[int]:
    """Per kind: hands + display + draw pile remainder + discard + removed."""
    K = len(s.board.cards)
    tot = [0] * K
    for h in s.hands:
        for k in range(K):
            tot[k] += h[k]
    for k in s.display:
        tot[k] += 1
    for k in s.deck[s.top :]:
        tot[k] += 1
    for k in range(K):
        tot[k] += s.discard[k] + s.removed[k]
    return tot


def check_consistent(s: State) -> None:
    """The derived fields agree with owner/advisors (used by the property tests)."""
    b = s.board
    for c, country in enumerate(b.countries):
        counts = [0] * s.n
        for i in country.sites:
            if s.owner[i] >= 0:
                counts[s.owner[i]] += 1
        assert counts == s.cloisters[c]
        assert s.most_cloisters[c] == max(counts)
        assert s.advisors_total[c] == sum(s.advisors[c])
        assert s.free_sites[c] == tuple(b.sites[i].id for i in country.sites if s.owner[i] < 0)


def assert_rejected(s: State, move: Move, rule: str, code: str | None = None) -> RuleError:
    """The move is refused naming ``rule`` (exactly), by check and by play, and nothing changes."""
    before = s.key()
    hist = len(s.history) if s.history is not None else None
    with pytest.raises(RuleError) as e1:
        s.check(move)
    with pytest.raises(RuleError) as e2:
        s.play(move)
    assert e1.value.rule == rule, f"{move}: expected {rule}, got {e1.value}"
    assert e2.value.rule == rule
    assert str(e1.value).startswith(f"{rule}: ")
    if code is not None:
        assert e1.value.code == code, f"{move}: expected code {code}, got {e1.value.code}"
    assert s.key() == before
    assert (len(s.history) if s.history is not None else None) == hist
    assert move not in s.legal_moves()
    return e1.value


def play_random(s: State, rng: random.Random, validate: bool = True, limit: int = 5000) -> State:
    """Play random legal decisions until the game ends (fails if it does not within ``limit``)."""
    for _ in range(limit):
        if s.is_over:
            return s
        move = rng.choice(s.legal_moves())
        s.play(move) if validate else s.play_trusted(move)
    raise AssertionError(f"game did not end within {limit} decisions")


def random_game(players: int, seed: int, history: bool = True) -> State:
    s = new_game(players, seed=seed, history=history)
    return play_random(s, random.Random(seed ^ 0x5EED))


def hidden_twin(s: State, rng: random.Random) -> State:
    """The same public position with the hidden information changed: the draw pile
    re-ordered, and the hidden cards of seats 1.. swapped with pile cards."""
    t = s.copy()
    rest = list(t.deck[t.top :])
    for p in range(1, t.n):
        for k in range(len(t.hands[p])):
            hidden = t.hands[p][k] - t.known[p][k]
            for _ in range(hidden):
                if rest and rng.random() < 0.7:
                    j = rng.randrange(len(rest))
                    t.hands[p][k] -= 1
                    t.hands[p][rest[j]] += 1
                    rest[j] = k
    rng.shuffle(rest)
    t.deck = t.deck[: t.top] + tuple(rest)
    t.seed = 42
    return t


def public_of(v: Any) -> Any:
    """A view less what only its seat may know: the hand, the seat, and the kinds of the
    cards this seat drew from the pile (shown in its history; "a card" to everyone else)."""
    out = {k: x for k, x in v.items() if k not in ("hand", "seat")}
    if out.get("history") is not None:
        out["history"] = [{**h, "events": [{**e, "kind": None} if e["type"] == "drew" else e for e in h["events"]]} for h in out["history"]]
    return out


def keys_deep(x: Any) -> set[str]:
    """Every key of every object inside a JSON value."""
    if isinstance(x, dict):
        return set(x) | {k for v in x.values() for k in keys_deep(v)}
    if isinstance(x, list):
        return {k for v in x for k in keys_deep(v)}
    return set()


def assert_replays_identically(s: State) -> dict[str, Any]:
    """The record of a finished game, through JSON, replays to the same state and result."""
    from kardinal.rules.record import record_of, replay

    rec: dict[str, Any] = json.loads(json.dumps(record_of(s)))
    t = replay(rec)
    assert t.key() == s.key()
    assert t.scores == s.scores == rec["result"]["scores"]
    assert t.winners == s.winners == rec["result"]["winners"]
    assert t.breakdown() == s.breakdown()
    return rec


# ---------------------------------------------------------------- browser tests (webtools.py)


@pytest.fixture(scope="module")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live web server on a free port, with its own data folder, for one test module."""
    from webtools import serve

    yield from serve(tmp_path_factory)


@pytest.fixture(scope="module")
def browser() -> Iterator[Any]:
    """Debian's Chromium driven by Playwright, for one test module. (Not one for the whole
    test process: while Playwright's sync API runs, its event loop counts as running in
    the main thread, and a later module's asyncio.run() is refused.)"""
    from webtools import launch

    yield from launch()


@pytest.fixture(scope="session")
def pg() -> Iterator[Any]:
    """A throwaway PostgreSQL server for the whole test session (tests/pgserver.py)."""
    from pgserver import PgServer

    server = PgServer()
    yield server
    server.stop()


@pytest.fixture
def cheap_hashes(monkeypatch: pytest.MonkeyPatch) -> None:
    """Argon2id of a low cost, for tests that make many accounts (the production cost is
    checked in test_web_accounts.py's test_production_cost)."""
    from argon2 import PasswordHasher

    from kardinal.server.community import passwords

    monkeypatch.setattr(passwords, "HASHER", PasswordHasher(time_cost=1, memory_cost=1024, parallelism=1))


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request: pytest.FixtureRequest, tmp_path: Any) -> str:
    """The server's database, once SQLite (a file in tmp_path) and once PostgreSQL (a new
    database on the session's throwaway server: of the newest schema already, a copy of a
    migrated one; an empty one for a test marked ``empty_database``)."""
    if request.param == "sqlite":
        return f"sqlite+pysqlite:///{tmp_path / 'kardinal.sqlite3'}"
    migrated = request.node.get_closest_marker("empty_database") is None
    return str(request.getfixturevalue("pg").new_database(migrated=migrated))


# ---------------------------------------------------------------- the suite's areas

# Each test belongs to one area, for the testing page's table of where the time goes
# (tests/suite_times.py reads the area from the JUnit XML that `make test` writes) and for
# choosing a part to run (each area is a marker: `pytest -m "rules or bots"`). The first
# that fits: browser (uses Chromium), postgres (uses the throwaway PostgreSQL server),
# docs, research, then by the file: rules, bots, cli, and server for the rest.
RULES_FILES = {
    "test_board", "test_chains", "test_events", "test_flow", "test_legal_counts", "test_moves", "test_properties",
    "test_records", "test_refusal_texts", "test_rules", "test_scoring", "test_scoring_breakdown", "test_variants", "test_view",
}  # fmt: skip
BOTS_FILES = {
    "test_bot_fast", "test_bot_pinned", "test_bots", "test_infer", "test_learned", "test_native", "test_parallel",
    "test_review", "test_runs", "test_tournament",
}  # fmt: skip
CLI_FILES = {"test_cli", "test_tui"}
AREAS = ("browser", "postgres", "docs", "research", "rules", "bots", "cli", "server")


def area_of(item: pytest.Item) -> str:
    path = item.path
    if "browser" in item.fixturenames or item.get_closest_marker("browser") is not None:
        return "browser"
    ident = getattr(getattr(item, "callspec", None), "id", "").split("-")  # db_url's "sqlite" / "postgresql"
    if "postgresql" in ident or ("pg" in item.fixturenames and "sqlite" not in ident):
        return "postgres"
    if path.suffix == ".md" or path.stem.startswith("test_docs"):
        return "docs"
    if path.parent.name == "tests":
        name = path.stem
        if name.startswith("test_research") or name == "test_selfplay_data":
            return "research"
        if name in RULES_FILES:
            return "rules"
        if name in BOTS_FILES:
            return "bots"
        if name in CLI_FILES:
            return "cli"
        return "server"
    # the doctests of the package: by its folder
    package = {"rules": "rules", "bots": "bots", "research": "research", "clients": "cli", "tools": "cli"}
    return next((a for part, a in package.items() if part in path.parts), "server")


# The times of a whole run (tests/data/suite_seconds.json, written by `python
# tests/suite_times.py build/junit.xml --weights tests/data/suite_seconds.json`): each test
# file's seconds, by which the files are handed to the test processes longest first (so
# that no long file starts last while the other process has nothing left to do), and the
# tests that took HEAVY seconds or more, marked ``heavy`` (make test-fast leaves them out).
# A file or test not listed counts as short; a stale list changes only the order and what
# make test-fast runs.
SUITE_SECONDS = Path(__file__).parent / "data" / "suite_seconds.json"
HEAVY = 3.0


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    times = json.loads(SUITE_SECONDS.read_text(encoding="utf-8")) if SUITE_SECONDS.exists() else {}
    files: dict[str, float] = times.get("files", {})
    heavy: dict[str, float] = times.get("tests", {})
    for item in items:
        area = area_of(item)
        item.add_marker(getattr(pytest.mark, area))
        item.user_properties.append(("area", area))
        if heavy.get(item.nodeid, 0.0) >= HEAVY:
            item.add_marker(pytest.mark.heavy)

    def weight(item: pytest.Item) -> float:
        return files.get(item.path.stem, 0.0) if item.path.parent.name == "tests" else 0.0

    items.sort(key=lambda item: -weight(item))  # stable: a file's tests keep their order


# the time by area, said at the end of every run (before pytest's own last line); with
# pytest-xdist the reports of the test processes come here with their area
AREA_SECONDS: Counter[str] = Counter()
AREA_TESTS: Counter[str] = Counter()
STARTED = time.monotonic()


def pytest_runtest_logreport(report: pytest.TestReport) -> None:
    area = dict(report.user_properties).get("area")
    if isinstance(area, str):
        AREA_SECONDS[area] += report.duration
        AREA_TESTS[area] += report.when == "setup"


def pytest_terminal_summary(terminalreporter: Any) -> None:
    if AREA_TESTS and not hasattr(terminalreporter.config, "workerinput"):
        from suite_times import table

        terminalreporter.section("time by area")
        terminalreporter.write_line(table(AREA_SECONDS, AREA_TESTS, wall=time.monotonic() - STARTED))
