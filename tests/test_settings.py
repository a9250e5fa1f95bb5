"""The server's settings in one place (issue 44): kardinal/server/common/settings.py reads every
``KARDINAL_*`` variable once, refuses a malformed one at the start with its name and what
it takes (never its value), a ``kardinal serve`` option wins over the environment, and the
Host page's table is the class's."""

from __future__ import annotations

import ast
import logging
import re
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from typer.testing import CliRunner

from kardinal.cli import app as cli
from kardinal.server.common.settings import INSTALL_PAGE, Settings, SettingsError, env_name, load_settings, settings_table, with_table
from kardinal.server.web.app import create_app

ROOT = Path(__file__).resolve().parents[1]
SECRET = "pa55-w0rd-xyz"  # a password in a URL: never in a message or a log


@pytest.fixture(autouse=True)
def clean_env(monkeypatch: pytest.MonkeyPatch) -> None:
    """No KARDINAL_* setting of the machine's leaks into these tests."""
    import os

    for k in list(os.environ):
        if k.startswith("KARDINAL_") and k not in ("KARDINAL_LONG", "KARDINAL_FUZZ", "KARDINAL_PURE"):
            monkeypatch.delenv(k)


# -- read once, in one place ------------------------------------------------------------


ENV_READERS = {"environ", "getenv", "getenvb"}
ALLOWED = {
    ROOT / "kardinal/server/common/settings.py",  # the one place
    # below the server's layer: KARDINAL_PURE picks the rules' build as they are imported,
    # for every kardinal command, before any server or settings exist
    ROOT / "kardinal/native.py",
    # a benchmark that starts servers: it hands them a copy of its environment (their own
    # settings, read by them) and reads no setting itself
    ROOT / "kardinal/tools/cpubench.py",
}


def env_reads(path: Path) -> list[str]:
    """Where a module reads the environment: os.environ, os.getenv, or a command line
    option that reads a variable itself (typer's ``envvar=``)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Attribute) and node.attr in ENV_READERS or isinstance(node, ast.Name) and node.id in ENV_READERS:
            found.append(f"{path.relative_to(ROOT)}:{node.lineno}")
        if isinstance(node, ast.keyword) and node.arg in ("envvar", "auto_envvar_prefix"):
            found.append(f"{path.relative_to(ROOT)}:{node.value.lineno} ({node.arg}=)")
        if isinstance(node, ast.ImportFrom) and node.module == "os" and any(a.name in ENV_READERS for a in node.names):
            found.append(f"{path.relative_to(ROOT)}:{node.lineno} (from os import)")
    return found


def test_no_module_but_the_settings_reads_the_environment() -> None:
    reads = [r for p in sorted((ROOT / "kardinal").rglob("*.py")) if p not in ALLOWED for r in env_reads(p)]
    assert reads == [], "read the setting in kardinal/server/common/settings.py and pass it on: " + ", ".join(reads)
    # native reads its one variable, the one the Host page lists for it
    assert [r.split(":")[0] for r in env_reads(ROOT / "kardinal/native.py")] == ["kardinal/native.py"]
    assert '"KARDINAL_PURE"' in (ROOT / "kardinal/native.py").read_text(encoding="utf-8") and "pure" in Settings.model_fields


def test_the_app_reads_its_settings_once_and_keeps_them(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KARDINAL_LEADERBOARD_GAMES", "7")
    monkeypatch.setenv("KARDINAL_CONTACT", "mod@example.org")
    app = create_app(data_dir=tmp_path, bot_pause=0.0)
    monkeypatch.setenv("KARDINAL_LEADERBOARD_GAMES", "9")  # too late: read at the start
    with TestClient(app) as c:
        assert app.state.settings.leaderboard_games == 7 and app.state.settings.data == tmp_path
        assert c.get("/api/leaderboard").json()["min_games"] == 7
        assert app.state.service.contact == "mod@example.org"


# -- refused at the start, naming the setting ------------------------------------------


@pytest.mark.parametrize(
    ("name", "value", "said"),
    [
        ("KARDINAL_PORT", "eighty", r"KARDINAL_PORT \(or --port\): .*expected a whole number, at least 1, at most 65535"),  # not a number
        ("KARDINAL_PORT", "70000", r"KARDINAL_PORT \(or --port\): .*at most 65535"),  # out of bounds
        ("KARDINAL_SESSION_DAYS", "0", r"KARDINAL_SESSION_DAYS: .*expected a number, more than 0, at most 3650"),
        ("KARDINAL_HINT_SECONDS", "soon", r"KARDINAL_HINT_SECONDS: .*expected a number"),  # was ignored silently
        ("KARDINAL_BOT_WORKERS", "-1", r"KARDINAL_BOT_WORKERS \(or --bot-workers\): .*at least 0"),
        ("KARDINAL_LOG_LEVEL", "loud", r"KARDINAL_LOG_LEVEL \(or --log-level\): .*one of debug, info, warning, error"),  # a choice
        ("KARDINAL_LOG_JSON", "maybe", r"KARDINAL_LOG_JSON \(or --log-json\): .*true or false"),
        ("KARDINAL_RATE_LIMITS", "creat=5/minute", r"KARDINAL_RATE_LIMITS: 'creat=5/minute'; kinds: create, claim"),  # a list of kinds
        ("KARDINAL_CONTACT", "a\x07b", r"KARDINAL_CONTACT: one line of at most 200 printable characters"),
    ],
)
def test_a_malformed_setting_stops_the_start_and_says_which(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, name: str, value: str, said: str
) -> None:
    monkeypatch.setenv(name, value)
    with pytest.raises(SettingsError) as e:
        create_app(data_dir=tmp_path)
    assert re.match(said, str(e.value)), str(e.value)
    assert "\n" not in str(e.value)  # one line: one setting at fault
    out = CliRunner().invoke(cli, ["serve", "--data", str(tmp_path)])
    assert out.exit_code == 2 and re.search(said, out.output) and "Traceback" not in out.output, out.output


def test_a_variable_that_is_no_setting_is_named_in_a_warning(monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture) -> None:
    monkeypatch.setenv("KARDINAL_PROT", "9000")  # a typo of KARDINAL_PORT: ignored, but not silently
    monkeypatch.setenv("KARDINAL_LONG", "1")  # the tests' own
    with caplog.at_level(logging.WARNING, logger="kardinal"):
        assert load_settings().port == 8000
    assert [r.getMessage() for r in caplog.records] == [
        "KARDINAL_PROT is not a setting of the server; ignored (the settings: docs/host/install.md)"
    ]


def test_every_malformed_setting_is_named_at_once() -> None:
    with pytest.raises(SettingsError) as e:
        load_settings(port=0, idle_days=-1)
    assert [line.split(":")[0] for line in str(e.value).splitlines()] == [
        "KARDINAL_PORT (or --port)",
        "KARDINAL_IDLE_DAYS (or --idle-days)",
    ]


def test_a_wrong_option_of_serve_is_refused_like_its_variable(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    out = CliRunner().invoke(cli, ["serve", "--data", str(tmp_path), "--bot-pause", "100"])
    assert out.exit_code == 2 and "KARDINAL_BOT_PAUSE (or --bot-pause): " in out.output and "at most 60" in out.output, out.output
    seen = serve_as(monkeypatch, ["--data", str(tmp_path), "--bot-workers", "0", "--log-json"])  # a flag, as before
    assert seen["logging"] == {"json_lines": True, "level": "warning"}
    out = CliRunner().invoke(cli, ["admin", "reports", "--data", str(tmp_path), "--db", ""])
    assert out.exit_code == 2 and "KARDINAL_DB (or --db): " in out.output, out.output


# -- the mail settings: off, not refused --------------------------------------------------


@pytest.mark.parametrize(
    ("smtp", "public", "why"),
    [
        (f"smtp://kardinal:{SECRET}@mail.example.org:notaport", "https://k.example.org", "KARDINAL_SMTP_URL: not a URL"),  # a bad URL
        (f"http://kardinal:{SECRET}@mail.example.org", "https://k.example.org", "KARDINAL_SMTP_URL: smtp://... or smtps://..."),
        (f"smtp://kardinal:{SECRET}@mail.example.org", "k.example.org", "KARDINAL_PUBLIC_URL must be the site's address"),
    ],
)
def test_a_malformed_mail_setting_turns_email_off_with_a_line_in_the_log_and_no_password(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, caplog: pytest.LogCaptureFixture, smtp: str, public: str, why: str
) -> None:
    monkeypatch.setenv("KARDINAL_SMTP_URL", smtp)
    monkeypatch.setenv("KARDINAL_MAIL_FROM", "kardinal@example.org")
    monkeypatch.setenv("KARDINAL_PUBLIC_URL", public)
    with caplog.at_level(logging.INFO, logger="kardinal"), TestClient(create_app(data_dir=tmp_path, bot_pause=0.0)) as c:
        assert c.get("/api/mail").json() == {"enabled": False}
    said = [r.getMessage() for r in caplog.records if "e-mail is off" in r.getMessage()]
    assert len(said) == 1 and why in said[0] and all(r.levelno == logging.INFO for r in caplog.records if "e-mail" in r.getMessage())
    assert SECRET not in caplog.text


# -- secrets -------------------------------------------------------------------------------


def test_no_secret_in_a_message_a_log_or_the_settings_shown(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KARDINAL_SMTP_URL", f"smtps://kardinal:{SECRET}@mail.example.org")
    s = load_settings()
    assert s.smtp_url.get_secret_value().endswith("@mail.example.org")
    assert SECRET not in repr(s) and SECRET not in str(s) and SECRET not in s.model_dump_json()
    # a value that is refused is never repeated: it may be a password put in the wrong variable
    monkeypatch.setenv("KARDINAL_SESSION_DAYS", SECRET)
    monkeypatch.setenv("KARDINAL_LOG_LEVEL", SECRET)
    monkeypatch.setenv("KARDINAL_DB", f"postgresql://kardinal:{SECRET}@db.example.org/kardinal")
    with pytest.raises(SettingsError) as e:
        load_settings()
    assert "KARDINAL_SESSION_DAYS" in str(e.value) and "KARDINAL_LOG_LEVEL" in str(e.value) and SECRET not in str(e.value)
    out = CliRunner().invoke(cli, ["serve", "--data", str(tmp_path), "--port", "0"])
    assert out.exit_code == 2 and "KARDINAL_PORT" in out.output and SECRET not in out.output, out.output


# -- an option wins over the environment ---------------------------------------------------


def serve_as(monkeypatch: pytest.MonkeyPatch, args: list[str]) -> dict[str, Any]:
    """What ``kardinal serve ARGS`` hands uvicorn and the app (nothing is served)."""
    import uvicorn

    from kardinal.server.web import gcpolicy, logs

    seen: dict[str, Any] = {}

    def run(application: Any, **kw: Any) -> None:
        seen.update(kw, settings=application.state.settings)

    monkeypatch.setattr(uvicorn, "run", run)
    monkeypatch.setattr(logs, "setup_logging", lambda **k: seen.update(logging=k))  # this process's logging stays
    monkeypatch.setattr(gcpolicy, "tune", lambda: None)  # and its garbage collector
    out = CliRunner().invoke(cli, ["serve", *args])
    assert out.exit_code == 0, out.output
    return seen


def test_an_option_given_wins_over_its_variable_which_wins_over_the_default(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("KARDINAL_BOT_WORKERS", "0")
    monkeypatch.setenv("KARDINAL_DATA", str(tmp_path / "env"))
    seen = serve_as(monkeypatch, [])
    assert seen["port"] == 8000 and seen["host"] == "127.0.0.1" and seen["logging"] == {"json_lines": False, "level": "warning"}
    assert seen["settings"].data == tmp_path / "env" and (tmp_path / "env" / "kardinal.sqlite3").exists()
    monkeypatch.setenv("KARDINAL_PORT", "8100")
    monkeypatch.setenv("KARDINAL_LOG_LEVEL", "INFO")
    monkeypatch.setenv("KARDINAL_LOG_JSON", "1")
    monkeypatch.setenv("KARDINAL_ROOT_PATH", "/kardinal")
    seen = serve_as(monkeypatch, [])
    assert seen["port"] == 8100 and seen["root_path"] == "/kardinal" and seen["logging"] == {"json_lines": True, "level": "info"}
    seen = serve_as(monkeypatch, ["--port", "8200", "--data", str(tmp_path / "option"), "--log-level", "error", "--root-path", ""])
    assert seen["port"] == 8200 and seen["root_path"] == "" and seen["logging"] == {"json_lines": True, "level": "error"}
    assert seen["settings"].data == tmp_path / "option" and seen["settings"].port == 8200


def test_the_options_show_their_settings_defaults_and_variables() -> None:
    out = CliRunner().invoke(cli, ["serve", "--help"], terminal_width=200)
    text = " ".join(out.output.replace("│", " ").split())
    for field in (
        "host",
        "port",
        "data",
        "db",
        "bot_pause",
        "bot_workers",
        "log_json",
        "log_level",
        "root_path",
        "forwarded_allow_ips",
        "idle_days",
    ):
        assert f"({env_name(field)})" in text, field
    assert "[default: (8000)]" in text and "[default: (127.0.0.1)]" in text and "[default: (off)]" in text


# -- the Host page's table ----------------------------------------------------------------


def test_the_host_pages_table_is_made_from_the_settings() -> None:
    page = INSTALL_PAGE.read_text(encoding="utf-8")
    assert with_table(page) == page, "run: python -m kardinal.server.common.settings"
    named = re.findall(r"^\| `(KARDINAL_[A-Z_]+)` \|", page, re.M)
    assert named == [env_name(f) for f in Settings.model_fields]  # each once, none missing
    assert settings_table().count("\n") == len(Settings.model_fields) + 1
    for field, info in Settings.model_fields.items():
        assert info.description, field  # every setting says what it does


def test_the_table_writer_refuses_a_stale_page(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    from kardinal.server.common import settings

    stale = tmp_path / "install.md"
    stale.write_text(INSTALL_PAGE.read_text(encoding="utf-8").replace("| `KARDINAL_PORT` |", "| `KARDINAL_PORTS` |"), encoding="utf-8")
    monkeypatch.setattr(settings, "INSTALL_PAGE", stale)
    assert settings.main(["--check"]) == 1
    assert settings.main([]) == 0 and stale.read_text(encoding="utf-8") == INSTALL_PAGE.read_text(encoding="utf-8")
    assert settings.main(["--check"]) == 0
