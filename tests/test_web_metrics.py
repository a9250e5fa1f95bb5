"""``/metrics`` (issue 45, item 4): the server's metrics in Prometheus's text format, behind
the operator's token; counted during a game (actions, their latency, WebSockets by kind,
bots, commits, rate limits, mail); several processes on one host add up; and nothing in
them says anything of a game (no id, token, name or hand).

The metrics of this test process are one set for every app it makes: the tests compare
counts before and after (:func:`delta`), never absolute counts, except in the processes
they start themselves."""

from __future__ import annotations

import logging
import os
import random
import re
import subprocess
import sys
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from fastapi.testclient import TestClient
from limits import parse_many
from prometheus_client.parser import text_string_to_metric_families
from test_serve import KARDINAL, _free_port, wait_until_up
from test_web_mail import Smtp, mailer, smtp  # noqa: F401 - smtp: the fixture
from test_web_mail_attacks import drained
from web_helpers import LENIENT, create, join_all, state, tokens

from kardinal.server.common import metrics
from kardinal.server.common.guard import Guard
from kardinal.server.common.settings import SettingsError, load_settings
from kardinal.server.storage.mail import QueuedMail
from kardinal.server.web.app import create_app

TOKEN = "metrics-" + "k3y" * 10  # 38 characters
BEARER = {"Authorization": f"Bearer {TOKEN}"}
ROOT = Path(__file__).resolve().parents[1]

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def app_client(tmp_path: Path, token: str | None = TOKEN, guard: Guard | None = None, db_url: str | None = None) -> TestClient:
    settings = load_settings(metrics_token=token)
    app = create_app(data_dir=tmp_path, db_url=db_url, bot_pause=0.0, settings=settings, guard=guard or Guard(LENIENT))
    return TestClient(app)


def parse(text: str) -> Samples:
    return {(s.name, frozenset(s.labels.items())): s.value for family in text_string_to_metric_families(text) for s in family.samples}


def scrape(c: TestClient) -> Samples:
    r = c.get("/metrics", headers=BEARER)
    assert r.status_code == 200, r.text
    assert r.headers["content-type"].startswith("text/plain; version=0.0.4")
    return parse(r.text)


def value(samples: Samples, name: str, **labels: str) -> float:
    return samples.get((name, frozenset(labels.items())), 0.0)


def delta(before: Samples, after: Samples, name: str, **labels: str) -> float:
    return value(after, name, **labels) - value(before, name, **labels)


# -- during a game ------------------------------------------------------------------------


def test_a_scrape_during_a_game_counts_actions_latency_sockets_bots_and_commits(tmp_path: Path) -> None:
    with app_client(tmp_path) as c:
        g = create(c, "person", "bot", "bot")
        gid, toks = g["id"], tokens(g)
        join_all(c, g)
        before = scrape(c)
        with c.websocket_connect(f"/ws/{gid}") as player, c.websocket_connect(f"/ws/{gid}") as spectator:
            player.send_json({"type": "hello", "seats": {"0": toks[0]}})
            spectator.send_json({"type": "hello"})
            assert player.receive_json()["type"] == "welcome" and spectator.receive_json()["type"] == "welcome"
            msg = player.receive_json()
            assert msg["type"] == "state"
            # one refused (a version past; or, when it is a bot's turn, not the person's turn)
            player.send_json(
                {
                    "type": "action",
                    "id": "a0",
                    "seat": 0,
                    "token": toks[0],
                    "version": 70,
                    "action": {"seat": 0, "act": "draw", "from": "deck"},
                }
            )
            while (m := player.receive_json())["type"] != "error":
                pass
            refusal = m["code"]
            assert refusal in ("stale_version", "not_your_turn")
            # the person acts on their turns until a bot has acted after them (or the game ended)
            sent: list[int] = []
            while not (msg["status"] == "finished" or (sent and msg["version"] > sent[-1] + 1)):
                if msg.get("legal") and msg["version"] not in sent:
                    action = {"type": "action", "id": f"a{len(sent)}", "seat": 0, "token": toks[0], "version": msg["version"]}
                    player.send_json({**action, "action": msg["legal"][0]})
                    sent.append(msg["version"])
                while (msg := player.receive_json())["type"] != "state":
                    pass
            during = scrape(c)
        after = scrape(c)
    assert sent
    assert delta(before, during, "kardinal_actions_total", kind="action", outcome="ok") == len(sent)
    assert delta(before, during, "kardinal_actions_total", kind="action", outcome=refusal) == 1
    assert delta(before, during, "kardinal_action_seconds_count", kind="action") == len(sent) + 1
    assert delta(before, during, "kardinal_action_seconds_sum", kind="action") > 0
    assert delta(before, during, "kardinal_action_seconds_bucket", kind="action", le="+Inf") == len(sent) + 1
    # the sockets that said hello, by kind, while they are open; none once they closed
    assert value(during, "kardinal_websockets", kind="player") == 1
    assert value(during, "kardinal_websockets", kind="spectator") == 1
    assert value(after, "kardinal_websockets", kind="player") == 0 and value(after, "kardinal_websockets", kind="spectator") == 0
    assert value(during, "kardinal_live_games", status="running") + value(during, "kardinal_live_games", status="finished") == 1
    # the bots' decisions (the random level: the seats' default) and their turns for a worker
    assert delta(before, during, "kardinal_bot_decision_seconds_count", level="random") >= 1
    assert delta(before, during, "kardinal_bot_wait_seconds_count", table="people") >= 1
    # each action a commit (grouped: a commit carries one or more writes)
    commits = delta(before, during, "kardinal_db_commit_seconds_count", database="sqlite")
    assert commits >= 2 and delta(before, during, "kardinal_db_commit_writes_sum", database="sqlite") >= commits
    # the process itself (one process: its CPU and memory)
    assert value(during, "process_cpu_seconds_total") > 0


def test_an_undo_and_a_refusal_over_http_are_counted(tmp_path: Path) -> None:
    with app_client(tmp_path) as c:
        g = create(c, "person", "person", "person")
        gid, toks = g["id"], tokens(g)
        join_all(c, g)
        before = scrape(c)
        seat = state(c, gid)["view"]["current"]
        msg = state(c, gid, seat, toks[seat])
        other = (seat + 1) % 3
        r = c.post(
            f"/api/games/{gid}/actions", json={"seat": other, "token": toks[other], "version": msg["version"], "action": msg["legal"][0]}
        )
        assert r.status_code == 409 and r.json()["error"]["code"] == "not_your_turn"
        place = next(a for a in msg["legal"] if a["act"] == "place")
        r = c.post(f"/api/games/{gid}/actions", json={"seat": seat, "token": toks[seat], "version": msg["version"], "action": place})
        assert r.status_code == 200, r.text
        r = c.post(f"/api/games/{gid}/undo", json={"seat": seat, "token": toks[seat], "version": msg["version"] + 1})
        assert r.status_code == 200, r.text
        after = scrape(c)
    assert delta(before, after, "kardinal_actions_total", kind="action", outcome="ok") == 1
    assert delta(before, after, "kardinal_actions_total", kind="action", outcome="not_your_turn") == 1
    assert delta(before, after, "kardinal_actions_total", kind="undo", outcome="ok") == 1
    assert delta(before, after, "kardinal_action_seconds_count", kind="undo") == 1


# -- who may read them ----------------------------------------------------------------------


def test_without_the_token_metrics_answer_as_an_unknown_page(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """No token set, no header, another token, a token in the address: the 404 of a page that
    does not exist, the same body; the right token in the header: the metrics. The token is
    never in a log line (the access log logs the path)."""
    with app_client(tmp_path, token=None) as c:
        unknown = c.get("/no-such-page")
        assert unknown.status_code == 404
        r = c.get("/metrics", headers=BEARER)
        assert (r.status_code, r.json()) == (404, unknown.json())
    caplog.set_level(logging.INFO, logger="kardinal")
    with app_client(tmp_path, token=TOKEN) as c:
        for headers, params in (
            ({}, {}),
            ({"Authorization": f"Bearer {TOKEN[:-1]}x"}, {}),
            ({"Authorization": f"Bearer {TOKEN}x"}, {}),
            ({"Authorization": f"Basic {TOKEN}"}, {}),
            ({"Authorization": "Bearer "}, {}),
            ({}, {"token": TOKEN}),
        ):
            r = c.get("/metrics", headers=headers, params=params)
            assert (r.status_code, r.json()) == (404, unknown.json()), headers
        r = c.get("/metrics", headers={"Authorization": f"bearer  {TOKEN}"})
        assert r.status_code == 200 and "kardinal_actions" in r.text
    assert "/metrics" in caplog.text  # the access log's lines were taken
    assert TOKEN not in caplog.text and TOKEN[:16] not in caplog.text


def test_a_short_token_stops_the_start_without_showing_it() -> None:
    with pytest.raises(SettingsError) as e:
        load_settings(metrics_token="short-secret-xyz")
    assert "KARDINAL_METRICS_TOKEN" in str(e.value) and "at least 32" in str(e.value)
    assert "short-secret-xyz" not in str(e.value)
    assert load_settings(metrics_token=TOKEN).metrics_token.get_secret_value() == TOKEN


# -- rate limits and mail --------------------------------------------------------------------


def test_rate_limit_refusals_are_counted_by_kind(tmp_path: Path, db_url: str) -> None:
    """Counted in memory (SQLite) and in the database (PostgreSQL: several processes' budgets)."""
    guard = Guard({**LENIENT, "create": parse_many("2/minute")})
    with app_client(tmp_path, guard=guard, db_url=db_url) as c:
        before = scrape(c)
        codes = [c.post("/api/games", json={"players": [{"kind": "bot", "level": "random"}] * 3}).status_code for _ in range(4)]
        assert codes == [200, 200, 429, 429]
        after = scrape(c)
    assert delta(before, after, "kardinal_rate_limited_total", kind="create") == 2
    assert delta(before, after, "kardinal_rate_limited_total", kind="chat") == 0


def test_mail_queued_sent_and_failed_are_counted(tmp_path: Path, smtp: Smtp) -> None:  # noqa: F811 - the fixture
    with app_client(tmp_path) as c:
        before = scrape(c)
        storage = mailer(c).storage
        now = time.time()
        storage.queue_mail(QueuedMail("test:good", None, "confirm", "someone@example.org", "hello", {"text": "hi"}, now), now)
        storage.queue_mail(QueuedMail("test:bad", None, "reset", "not an address", "hello", {"text": "hi"}, now), now)
        storage.queue_mail(
            QueuedMail("test:good", None, "confirm", "someone@example.org", "hello", {"text": "hi"}, now), now
        )  # its key: once
        drained(c)
        after = scrape(c)
    assert delta(before, after, "kardinal_notifications_queued_total", channel="mail", kind="confirm") == 1
    assert delta(before, after, "kardinal_notifications_queued_total", channel="mail", kind="reset") == 1
    assert delta(before, after, "kardinal_notifications_sent_total", channel="mail") == 1
    assert delta(before, after, "kardinal_notifications_failed_total", channel="mail", final="yes") == 1


# -- nothing of a game -------------------------------------------------------------------------

LABELS = {"kind", "outcome", "status", "table", "level", "channel", "final", "database", "le"}


def test_the_metrics_of_a_game_say_nothing_of_it(tmp_path: Path) -> None:
    """The labels are words from short fixed lists: no game id (of a private table or any
    other), no seat, name, token or card; the text holds none of the game's secrets."""
    with app_client(tmp_path) as c:
        r = c.post(
            "/api/games",
            json={"players": [{"name": "Zoe Secretname", "kind": "person"}, {"kind": "bot"}, {"kind": "bot"}], "board": "standard"},
        )
        assert r.status_code == 200, r.text
        g = r.json()
        gid, toks = g["id"], tokens(g)
        join_all(c, g)
        rng = random.Random(5)
        for _ in range(3):
            msg = state(c, gid, 0, toks[0])
            if msg.get("legal"):
                a = c.post(
                    f"/api/games/{gid}/actions",
                    json={"seat": 0, "token": toks[0], "version": msg["version"], "action": rng.choice(msg["legal"])},
                )
                assert a.status_code in (200, 409), a.text
        hand = state(c, gid, 0, toks[0])["view"]["hand"]
        text = c.get("/metrics", headers=BEARER).text
    samples = parse(text)
    for name, labels in samples:
        assert {k for k, _ in labels} <= LABELS, name
        for k, v in labels:
            assert re.fullmatch(r"[a-z_]+|[0-9.e+-]+|\+Inf", v), (name, k, v)
    for secret in (gid, *toks.values(), "Zoe", "Secretname"):
        assert secret not in text
    cards = [str(card["id"] if isinstance(card, dict) else card) for card in hand]
    assert cards and not any(re.search(rf'="{re.escape(card)}"', text) for card in cards)


# -- several processes on one host -----------------------------------------------------------

CHILD = """
import sys
from kardinal.server.common import metrics
assert metrics.MULTIPROCESS
n = int(sys.argv[1])
for _ in range(n):
    metrics.ACTIONS.labels("action", "ok").inc()
    metrics.ACTION_SECONDS.labels("action").observe(0.003)
metrics.rate_limited("chat")
metrics.sample(["running"] * n, ["player"] * n + ["spectator"])
print("counted", flush=True)
sys.stdin.readline()
"""
SCRAPER = "import sys\nfrom kardinal.server.common import metrics\nsys.stdout.write(metrics.exposition().decode())"


def multiprocess_env(folder: Path) -> dict[str, str]:
    return {**os.environ, "PROMETHEUS_MULTIPROC_DIR": str(folder), "PYTHONPATH": str(ROOT)}


def test_several_processes_add_up_and_a_gone_one_leaves_the_gauges(tmp_path: Path) -> None:
    """Two processes count into one folder: a scrape in a third adds their counts up; once
    one is gone (here, as if killed: no goodbye) its counts stay and its gauges leave."""
    env = multiprocess_env(tmp_path)
    procs = [
        subprocess.Popen([sys.executable, "-c", CHILD, str(n)], env=env, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        for n in (2, 3)
    ]
    try:
        for p in procs:
            assert p.stdout is not None and p.stdout.readline() == "counted\n"

        def scraped() -> Samples:
            out = subprocess.run([sys.executable, "-c", SCRAPER], env=env, capture_output=True, text=True, timeout=60)
            assert out.returncode == 0, out.stderr
            return parse(out.stdout)

        both = scraped()
        assert value(both, "kardinal_actions_total", kind="action", outcome="ok") == 5
        assert value(both, "kardinal_action_seconds_count", kind="action") == 5
        assert value(both, "kardinal_rate_limited_total", kind="chat") == 2
        assert value(both, "kardinal_websockets", kind="player") == 5
        assert value(both, "kardinal_websockets", kind="spectator") == 2
        assert value(both, "kardinal_live_games", status="running") == 5
        assert not any(dict(labels).get("pid") for _, labels in both)  # summed, not one series per process
        procs[1].kill()
        procs[1].wait(20)
        one = scraped()
        assert value(one, "kardinal_actions_total", kind="action", outcome="ok") == 5  # made counts stay made
        assert value(one, "kardinal_websockets", kind="player") == 2  # the living one's only
        assert value(one, "kardinal_live_games", status="running") == 2
    finally:
        for p in procs:
            p.kill()
            p.wait(20)


@pytest.fixture
def two_servers(tmp_path: Path) -> Iterator[tuple[list[str], list[subprocess.Popen[Any]]]]:
    """Two ``kardinal serve`` processes on one host sharing the metrics' folder (each with a
    database of its own: the metrics do not care)."""
    folder = tmp_path / "metrics"
    folder.mkdir()
    bases, procs = [], []
    try:
        for i in range(2):
            port = _free_port()
            env = {
                **multiprocess_env(folder),
                "KARDINAL_PORT": str(port),
                "KARDINAL_DATA": str(tmp_path / f"data{i}"),
                "KARDINAL_BOT_WORKERS": "0",
                "KARDINAL_METRICS_TOKEN": TOKEN,
            }
            procs.append(subprocess.Popen([str(KARDINAL), "serve"], env=env, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))
            bases.append(f"http://127.0.0.1:{port}")
        for p, base in zip(procs, bases):
            wait_until_up(p, base)
        yield bases, procs
    finally:
        for p in procs:
            p.terminate()
            p.wait(20)


def test_a_scrape_of_one_server_process_counts_both(two_servers: tuple[list[str], list[subprocess.Popen[Any]]]) -> None:
    bases, procs = two_servers
    with httpx.Client(timeout=30) as http:
        for base in bases:
            g = http.post(base + "/api/games", json={"players": [{"kind": "person"}] * 3, "hotseat": True}).json()
            seat = g["seats"][0]
            msg = http.get(f"{base}/api/games/{g['id']}/state", params={"seat": 0, "token": seat["token"]}).json()
            cur = msg["view"]["current"]
            tok = g["seats"][cur]["token"]
            msg = http.get(f"{base}/api/games/{g['id']}/state", params={"seat": cur, "token": tok}).json()
            r = http.post(
                f"{base}/api/games/{g['id']}/actions",
                json={"seat": cur, "token": tok, "version": msg["version"], "action": msg["legal"][0]},
            )
            assert r.status_code == 200, r.text
        both = parse(http.get(bases[0] + "/metrics", headers=BEARER).text)
        assert value(both, "kardinal_actions_total", kind="action", outcome="ok") == 2
        assert value(both, "kardinal_db_commit_seconds_count", database="sqlite") >= 4  # two games made, two actions
        procs[1].terminate()  # stopped as a supervisor stops it: its gauges leave with it
        procs[1].wait(20)
        one = parse(http.get(bases[0] + "/metrics", headers=BEARER).text)
    assert value(one, "kardinal_actions_total", kind="action", outcome="ok") == 2
    assert value(one, "kardinal_live_games", status="running") == 1  # the first process's game only


# -- the Host page -----------------------------------------------------------------------------


def test_every_metric_is_on_the_host_page_with_its_question() -> None:
    page = (ROOT / "docs" / "host" / "metrics.md").read_text(encoding="utf-8")
    names = {m.name for m in metrics.REGISTRY.collect() if m.name.startswith("kardinal_")}
    assert len(names) >= 12
    for name in names:
        row = next((line for line in page.splitlines() if line.startswith(f"| `{name}")), None)
        assert row is not None, f"{name} is not in docs/host/metrics.md's table"
        assert "?" in row, f"{name}: the question it answers"
    assert "metrics.md" in (ROOT / "mkdocs.yml").read_text(encoding="utf-8")


def test_a_missing_metrics_folder_stops_the_start(tmp_path: Path) -> None:
    """Several processes' folder not there: every count would fail, so the server does not start."""
    env = {
        **multiprocess_env(tmp_path / "missing"),
        "KARDINAL_DATA": str(tmp_path),
        "KARDINAL_BOT_WORKERS": "0",
        "KARDINAL_PORT": str(_free_port()),
    }
    out = subprocess.run([str(KARDINAL), "serve"], env=env, capture_output=True, text=True, timeout=60)
    assert out.returncode == 2 and "PROMETHEUS_MULTIPROC_DIR: not a folder" in out.stderr, out.stderr
    # a command that only imports the server's modules counts nothing and needs no folder
    assert subprocess.run([str(KARDINAL), "serve", "--help"], env=env, capture_output=True, timeout=60).returncode == 0


def test_metrics_by_another_method_answer_as_an_unknown_page(tmp_path: Path) -> None:
    """HEAD, POST, PUT, ... on /metrics answered 405 (an unknown page: 404): a stranger
    learnt that the server has metrics. Now the same answer as an unknown page, with the
    token or without, set or not."""
    for token in (None, TOKEN):
        with app_client(tmp_path, token=token) as c:
            for method in ("HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"):
                for headers in ({}, BEARER):
                    unknown = c.request(method, "/no-such-page", headers=headers)
                    r = c.request(method, "/metrics", headers=headers)
                    assert unknown.status_code == 404, (method, unknown.status_code)
                    assert (r.status_code, r.content, dict(r.headers)) == (404, unknown.content, dict(unknown.headers)), (method, token)
