"""Rate limits shared by the processes of one PostgreSQL database (kardinal.server.common.guard,
storage/limits.py): two apps on one database (each its own game service and guard, as two
processes have) keep to one budget, a sign-in's password checks and sign-ups alike; the
windows follow the guard's clock (a time source the test moves on: nothing waits for
real time); a unit a right password took is given back; a database that fails leaves each
process its own budget. The counting statement itself on SQLite and PostgreSQL."""

from __future__ import annotations

import threading
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from limits import parse_many
from test_web_accounts import PW, post, sign_up
from test_web_clocks import FakeTime

from kardinal.server.common.guard import Guard
from kardinal.server.common.refusal import Refused
from kardinal.server.community import accounts as accounts_module
from kardinal.server.storage import Storage
from kardinal.server.web.app import create_app

pytestmark = pytest.mark.usefixtures("cheap_hashes")  # Argon2id of a low cost (conftest.py)

# the per-address sign-in budget out of the way: the name's (5 a minute) is the one looked at
RULES = {"signin": parse_many("1000/minute"), "create": parse_many("1000/minute")}


def two_apps(tmp_path: Path, url: str, clock: FakeTime) -> tuple[TestClient, TestClient]:
    apps = [create_app(data_dir=tmp_path / n, db_url=url, bot_pause=0.0, guard=Guard(RULES, clock=clock)) for n in ("a", "b")]
    return TestClient(apps[0]), TestClient(apps[1])


def at_once(n: int, clients: tuple[TestClient, TestClient], request: Callable[[TestClient, int], Any]) -> list[Any]:
    """``n`` requests at the same moment, every other one through each app."""
    barrier = threading.Barrier(n)
    out: list[Any] = [None] * n

    def one(i: int) -> None:
        barrier.wait()
        out[i] = request(clients[i % 2], i)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out


@pytest.fixture
def checks(monkeypatch: pytest.MonkeyPatch) -> list[int]:
    """Every password check of the apps in this process (accounts.verify), counted."""
    seen: list[int] = []
    real = accounts_module.verify

    async def counted(stored: str | None, password: str) -> bool:
        seen.append(1)
        return await real(stored, password)

    monkeypatch.setattr(accounts_module, "verify", counted)
    return seen


def test_wrong_sign_ins_through_two_processes_keep_to_one_budget(tmp_path: Path, pg: Any, checks: list[int]) -> None:
    t = FakeTime()
    url = str(pg.new_database())
    a, b = two_apps(tmp_path, url, t)
    with a, b:
        sign_up(a, "Anna")
        answers = at_once(12, (a, b), lambda c, i: post(c, "/api/account/signin", json={"name": "Anna", "password": f"wrong {i}"}))
        codes = sorted(r.json()["error"]["code"] for r in answers)
        assert len(checks) <= 5, codes  # 5 a minute for the name, across both processes (each alone: 10)
        assert codes.count("bad_sign_in") == len(checks) and codes.count("rate_limited") == 12 - len(checks)
        # still over through either process, with the right password too (the name waits)
        for c in (a, b):
            r = post(c, "/api/account/signin", json={"name": "Anna", "password": PW})
            assert r.status_code == 429 and r.json()["error"]["code"] == "rate_limited"
            assert 1 <= r.json()["error"]["params"]["retry"] <= 60
        # the next minute (the guards' clock; nothing waits): the name may be tried again
        t.advance(60)
        n = len(checks)
        assert post(b, "/api/account/signin", json={"name": "Anna", "password": PW}).status_code == 200
        assert len(checks) == n + 1


def test_a_right_password_gives_its_unit_back_across_processes(tmp_path: Path, pg: Any, checks: list[int]) -> None:
    t = FakeTime()
    a, b = two_apps(tmp_path, str(pg.new_database()), t)
    with a, b:
        sign_up(a, "Anna")
        for i in range(4):  # four failures of five, through both
            assert post((a, b)[i % 2], "/api/account/signin", json={"name": "Anna", "password": "wrong"}).status_code == 403
        for i in range(6):  # right passwords take nothing away
            assert post((a, b)[i % 2], "/api/account/signin", json={"name": "Anna", "password": PW}).status_code == 200
        assert post(b, "/api/account/signin", json={"name": "Anna", "password": "wrong"}).status_code == 403  # the fifth
        assert post(a, "/api/account/signin", json={"name": "Anna", "password": "wrong"}).json()["error"]["code"] == "rate_limited"


def test_sign_ups_through_two_processes_keep_to_one_budget(tmp_path: Path, pg: Any) -> None:
    t = FakeTime()
    a, b = two_apps(tmp_path, str(pg.new_database()), t)
    with a, b:
        answers = at_once(12, (a, b), lambda c, i: post(c, "/api/account/signup", json={"name": f"Name{i}", "password": PW}))
        made = [r for r in answers if r.status_code == 200]
        refused = [r for r in answers if r.status_code == 429]
        assert len(made) == 5 and len(refused) == 7  # 5 a minute from one address, across both (each alone: 10)
        assert all(r.json()["error"]["code"] == "rate_limited" for r in refused)
        t.advance(60)
        assert post(a, "/api/account/signup", json={"name": "Later", "password": PW}).status_code == 200


class FailingCounts:
    """A database that is away (``asked``: how often it was)."""

    def __init__(self) -> None:
        self.asked = 0

    def count_rates(self, windows: Any, delta: int) -> dict[tuple[str, str, int], int]:
        self.asked += 1
        raise ConnectionError("away")

    def uncount_rates(self, windows: Any) -> None:
        raise ConnectionError("away")

    def prune_rates(self, now: float) -> int:
        raise ConnectionError("away")


def test_a_database_that_fails_leaves_each_process_its_own_budget() -> None:
    g, away = Guard(clock=FakeTime()), FailingCounts()
    g.share(away)
    for _ in range(5):
        g.spend("signup", "1.2.3.4")
    with pytest.raises(Refused) as e:
        g.spend("signup", "1.2.3.4")
    assert e.value.code == "rate_limited"
    g.take("signin_name", "anna")  # a take and its end work without the database too
    g.give_back("signin_name", "anna")
    assert away.asked == 1  # asked once, then left alone for a while (no wait on every request)


def test_the_guard_counts_in_the_database_by_its_clock(db_url: str) -> None:
    """Two guards on one database (any dialect: the statement is the same) share a budget;
    a check counts nothing and refuses once this guard has seen the budget full; the next
    window (the guard's clock) starts from nothing; passed windows are forgotten."""
    st = Storage(db_url)
    try:
        t = FakeTime()
        one, two = Guard(clock=t), Guard(clock=t)
        one.share(st)
        two.share(st)
        for g in (one, two, one, two, one):
            g.note("bad_token", "9.9.9.9")  # 5 a second
        two.check("bad_token", "9.9.9.9")  # two last saw 4
        with pytest.raises(Refused):
            two.spend("bad_token", "9.9.9.9")  # the sixth, counted: over
        with pytest.raises(Refused):
            two.check("bad_token", "9.9.9.9")
        t.advance(1)
        two.check("bad_token", "9.9.9.9")  # a new second
        assert st.prune_rates(t() + 3600) > 0  # every window has passed an hour on
        assert st.count_rates([("x/60", "k", 0, 60.0)], 1) == {("x/60", "k", 0): 1}
    finally:
        st.close()


def test_the_counts_a_guard_saw_are_forgotten_once_their_windows_pass(db_url: str) -> None:
    st = Storage(db_url)
    try:
        t = FakeTime()
        g = Guard(clock=t)
        g.share(st)
        g._seen_prune_at = 3  # noqa: SLF001 - a small table, to see it cleaned
        for i in range(4):
            g.note("bad_token", f"10.0.0.{i}")
        t.advance(3600)
        g.note("bad_token", "10.0.0.9")
        assert list(g._seen) == [("bad_token", "10.0.0.9")]  # noqa: SLF001
    finally:
        st.close()


def test_a_sign_in_counts_in_one_round_trip(tmp_path: Path, pg: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The address's try and the name's unit in one statement; a right password gives the
    unit back in a second."""
    calls: list[str] = []
    real_count, real_uncount = Storage.count_rates, Storage.uncount_rates

    def count(st: Storage, windows: Any, delta: int) -> dict[tuple[str, str, int], int]:
        calls.append("count " + ",".join(sorted({w[0].partition("/")[0] for w in windows})))
        return real_count(st, windows, delta)

    def uncount(st: Storage, windows: Any) -> None:
        calls.append("uncount")
        real_uncount(st, windows)

    monkeypatch.setattr(Storage, "count_rates", count)
    monkeypatch.setattr(Storage, "uncount_rates", uncount)
    a, _b = two_apps(tmp_path, str(pg.new_database()), FakeTime())
    with a:
        sign_up(a, "Anna")
        calls.clear()
        assert post(a, "/api/account/signin", json={"name": "Anna", "password": "wrong"}).status_code == 403
        assert calls == ["count signin,signin_name"]
        calls.clear()
        assert post(a, "/api/account/signin", json={"name": "Anna", "password": PW}).status_code == 200
        assert calls == ["count signin,signin_name", "uncount"]
