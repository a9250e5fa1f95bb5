"""Every setting of the server in one place: :class:`Settings`, read once from the
``KARDINAL_*`` environment variables (pydantic-settings) when ``kardinal serve``, a
``kardinal admin`` command or :func:`kardinal.server.web.app.create_app` starts, and passed to
what needs it (the app keeps it on ``app.state.settings``). No other module of the server
reads the environment (tests/test_settings.py checks it).

Each field says its type, default, bounds and, in its description, what it does: the
Host page's table (docs/host/install.md, between :data:`BEGIN` and :data:`END`) is made
from them by ``python -m kardinal.server.common.settings`` (and a test fails when it differs).
A ``kardinal serve`` option that mirrors a setting takes its default and help from its
field (``option`` in its extra), and a given option wins over the environment.

A malformed value stops the start with :class:`SettingsError`, which names the setting and
what it expects and never shows the value given (but for the part of
``KARDINAL_RATE_LIMITS`` at fault: limits, no secret). Not the mail settings: a missing or
malformed one turns e-mail off (kardinal.server.mail.settings says why, in the log).
``KARDINAL_PURE`` is read by kardinal.native itself (the rules are built before any
server exists); it is here so that the Host page lists it with the others.
"""

from __future__ import annotations

import logging
import os
import re
import sys
from pathlib import Path
from typing import Annotated, Any, Literal, get_args

from pydantic import AfterValidator, BeforeValidator, Field, SecretStr, ValidationError
from pydantic_settings import BaseSettings, SettingsConfigDict

from kardinal.bots.analysis import HINT_ITERATIONS, HINT_SECONDS, REVIEW_ITERATIONS

from .guard import DEFAULTS as RATE_LIMIT_KINDS
from .guard import rules_from

__all__ = ["Settings", "SettingsError", "load_settings", "settings_table", "PREFIX"]

PREFIX = "KARDINAL_"
TEST_VARIABLES = {"KARDINAL_LONG", "KARDINAL_FUZZ", "KARDINAL_SCREENS"}  # read by the tests, not the server
log = logging.getLogger("kardinal.web")
MAX_CONTACT = 200  # characters of KARDINAL_CONTACT
MIN_METRICS_TOKEN = 32  # characters of KARDINAL_METRICS_TOKEN: too long to guess
INSTALL_PAGE = Path(__file__).resolve().parents[3] / "docs" / "host" / "install.md"
BEGIN = "<!-- settings: made by `python -m kardinal.server.common.settings` from kardinal/server/common/settings.py -->"
END = "<!-- end of settings -->"


class SettingsError(ValueError):
    """A setting the server cannot start with: which, and what it expects (never its value)."""


def _rate_limits(text: str) -> str:
    rules_from(text)  # ValueError naming the kinds if a part is not "kind=limits"
    return text


def _push_contact(text: str) -> str:
    text = text.strip()
    if text and (
        not text.startswith(("mailto:", "https://")) or len(text) > MAX_CONTACT or any(not ch.isprintable() or ch.isspace() for ch in text)
    ):
        raise ValueError(f"mailto:address or https://address, at most {MAX_CONTACT} characters")
    return text


def _contact(text: str) -> str:
    text = " ".join(text.split())
    if len(text) > MAX_CONTACT or any(not ch.isprintable() for ch in text):
        raise ValueError(f"one line of at most {MAX_CONTACT} printable characters")
    return text


def _token(secret: SecretStr) -> SecretStr:
    if 0 < len(secret.get_secret_value()) < MIN_METRICS_TOKEN:  # (the message never holds the value)
        raise ValueError(f"at least {MIN_METRICS_TOKEN} characters (e.g. `openssl rand -hex 32`)")
    return secret


def _lower(text: Any) -> Any:
    return text.lower() if isinstance(text, str) else text


def _field(default: Any, description: str, option: str | None = None, shown: str | None = None, **bounds: Any) -> Any:
    """A setting: its default, the docs' words, the ``kardinal serve`` option that mirrors
    it (``--port``; with a metavar: ``--data DIR``), the default as the docs show it."""
    extra: Any = {k: v for k, v in (("option", option), ("shown", shown)) if v is not None}
    return Field(default, description=description, json_schema_extra=extra or None, **bounds)


class Settings(BaseSettings):
    """The server's settings (see the module's docstring); ``Settings()`` reads the environment."""

    model_config = SettingsConfigDict(env_prefix=PREFIX, env_ignore_empty=True, extra="forbid", frozen=True)

    host: str = _field("127.0.0.1", "the address to listen on", "--host")
    port: int = _field(8000, "the port to listen on", "--port", ge=1, le=65535)
    data: Path = _field(Path("data"), "the folder of the SQLite database `DIR/kardinal.sqlite3`", "--data DIR")
    db: str | None = _field(
        None,
        "the database instead: a SQLite file path or an SQLAlchemy URL (`sqlite:///...`, `postgresql://...`)",
        "--db PATH-or-URL",
        min_length=1,
    )
    bot_pause: float = _field(0.6, "seconds a bot waits before each decision, so people can follow", "--bot-pause", ge=0, le=60)
    bot_workers: int = _field(
        2,
        "processes that run the bots (0: threads in the server process); the worker processes end themselves with the server",
        "--bot-workers",
        ge=0,
        le=256,
    )
    log_json: bool = _field(False, "log JSON lines (one object per line) to stderr", "--log-json")
    log_level: Annotated[Literal["debug", "info", "warning", "error"], BeforeValidator(_lower)] = _field(
        "warning",
        "`debug`, `info` (every request by method, path, status and time; never a query string, token, hand or deck), `warning` or `error`",
        "--log-level",
    )
    root_path: str = _field(
        "",
        "the path the server lives under behind a reverse proxy (e.g. `/kardinal`; [nginx](postgresql.md#under-a-path))",
        "--root-path /PATH",
    )
    forwarded_allow_ips: str = _field(
        "127.0.0.1",
        "the proxies whose `X-Forwarded-For` names the player and whose `X-Forwarded-Proto: https` marks the request as "
        "HTTPS (the session cookie is then `Secure`); comma-separated",
        "--forwarded-allow-ips",
    )
    idle_days: float = _field(
        30.0,
        "an unfinished game nobody has moved in for D days expires (0: never): it is kept to look at, takes no more moves, "
        "and the lobby lists it apart",
        "--idle-days D",
        ge=0,
        le=36500,
    )
    rate_limits: Annotated[str, AfterValidator(_rate_limits)] = _field(
        "",
        "changes the [rate limits](operations.md#rate-limits), e.g. `create=1000/minute,claim=50/minute`; kinds: "
        + ", ".join(f"`{kind}`" for kind in RATE_LIMIT_KINDS),
    )
    smtp_url: SecretStr = _field(
        SecretStr(""),
        "the mail server ([mail](operations.md#mail)): `smtp://user:password@host:587` (STARTTLS; `?starttls=0` for a "
        "relay on the same machine) or `smtps://user:password@host:465`; user and password %-encoded. Without it, or "
        "the next two, or with one of them malformed, e-mail is off (the log says why) and the site says so",
        shown="",
    )
    mail_from: str = _field("", "the sender's address of every mail, e.g. `kardinal@example.org`")
    public_url: str = _field(
        "",
        "the site's address as players reach it, for the links in mails, e.g. `https://kardinal.example.org` "
        "(under a path: with it, `https://example.org/kardinal`)",
    )
    contact: Annotated[str, AfterValidator(_contact)] = _field(
        "",
        "whom players ask about a suspension ([moderation](operations.md#moderation-and-kardinal-admin)), shown to a "
        "suspended player as it is, e.g. `moderation@example.org`; one line of at most 200 characters. Unset: they are "
        "told to contact the site's operator, without an address",
    )
    push_contact: Annotated[str, AfterValidator(_push_contact)] = _field(
        "",
        "whom push services may contact about this site's [Web Push](operations.md#web-push) (the `sub` of its VAPID "
        "signature): `mailto:you@example.org` or an `https://` address. Unset: `KARDINAL_CONTACT` if it is a mail address, "
        "else `KARDINAL_MAIL_FROM`, else "
        "`KARDINAL_PUBLIC_URL`; with none of them, Web Push is off",
    )
    session_days: float = _field(30.0, "how long a sign-in lasts in days ([accounts](operations.md#accounts-and-sessions))", gt=0, le=3650)
    leaderboard_games: int = _field(
        5,
        "the rated games a player needs to be listed on the leaderboard (`/players`, [rated games](../play/browser.md#rated-games))",
        ge=0,
        le=10000,
    )
    hint_seconds: float = _field(HINT_SECONDS, "the time limit of one hint, in seconds", gt=0, le=600)
    hint_iterations: int = _field(
        HINT_ITERATIONS, "the search iterations of one hint (the `hard` level's, with its fitted leaf)", ge=1, le=10_000_000
    )
    review_iterations: int = _field(REVIEW_ITERATIONS, "the search iterations per reviewed decision", ge=1, le=10_000_000)
    pure: str = _field(
        "",
        "set (e.g. `1`): run the rules core and the bots' search from their Python sources, not the compiled build "
        "(read by the rules core itself as it is imported, for every `kardinal` command)",
    )
    clock_check: float = _field(
        1.0,
        "seconds between two looks at the tables' [clocks](operations.md#clocks) for a turn whose time ran out "
        "(a turn runs out at most this late)",
        gt=0,
        le=60,
    )
    metrics_token: Annotated[SecretStr, AfterValidator(_token)] = _field(
        SecretStr(""),
        "turns on [`/metrics`](metrics.md) (Prometheus): the token a scraper sends in the header "
        "`Authorization: Bearer TOKEN`, at least 32 characters. Unset, or a request without it or with another: "
        "`/metrics` answers as an unknown page does (404)",
        shown="",
    )
    docs: Path | None = _field(
        None,
        "the built documentation site the server serves at `/docs/` (`make docs` builds it; without one, `/docs/` says how to build it)",
        shown="the checkout's `site/`",
    )

    def database_url(self) -> str | None:
        """``db`` as an SQLAlchemy URL (a bare path is a SQLite file), or None: the SQLite file in ``data``."""
        if self.db is None:
            return None
        return self.db if "://" in self.db else f"sqlite:///{Path(self.db).resolve()}"

    def mail_values(self) -> dict[str, str]:
        """The mail settings by their variables' names, for kardinal.server.mail.mail_settings."""
        return {
            f"{PREFIX}SMTP_URL": self.smtp_url.get_secret_value(),
            f"{PREFIX}MAIL_FROM": self.mail_from,
            f"{PREFIX}PUBLIC_URL": self.public_url,
        }

    def push_sub(self) -> str | None:
        """Web Push's VAPID contact (``sub``): KARDINAL_PUSH_CONTACT, else KARDINAL_CONTACT
        if it is a mail address, else the mail sender's address, else the site's https
        address; None: Web Push is off."""
        if self.push_contact:
            return self.push_contact
        if re.fullmatch(r"[^@\s<>]+@[^@\s<>]+\.[^@\s<>]+", self.contact):
            return f"mailto:{self.contact}"
        if self.mail_from and "@" in self.mail_from:
            return f"mailto:{self.mail_from}"
        if self.public_url.startswith("https://"):
            return self.public_url.rstrip("/")
        return None


def env_name(field: str) -> str:
    return PREFIX + field.upper()


def option_of(field: str) -> str | None:
    """The ``kardinal serve`` option of a setting, without its metavar (``--data``), or None."""
    extra = Settings.model_fields[field].json_schema_extra
    option = extra.get("option") if isinstance(extra, dict) else None
    return str(option).split()[0] if option else None


def _expected(field: str) -> str:
    """What a setting takes, in a few words: its type and bounds."""
    info = Settings.model_fields[field]
    kinds: dict[Any, str] = {int: "a whole number", float: "a number", bool: "true or false", Path: "a folder"}
    kind = next((kinds[t] for t in (info.annotation, *get_args(info.annotation)) if t in kinds), "text")
    if field == "log_level":
        kind = "one of debug, info, warning, error"
    words = [kind]
    for m in info.metadata:
        for attr, text in (("ge", "at least"), ("gt", "more than"), ("le", "at most"), ("lt", "less than")):
            if getattr(m, attr, None) is not None:
                words.append(f"{text} {_number(getattr(m, attr))}")
    return ", ".join(words)


def _number(v: Any) -> str:
    """A number as the docs write it: 30, not 30.0."""
    return str(int(v)) if isinstance(v, float) and v.is_integer() else str(v)


def _message(e: ValidationError) -> str:
    """The errors of a validation, one a line, each naming the setting and what it takes;
    never the value given (it may be a password)."""
    lines = []
    for err in e.errors(include_input=False, include_url=False):
        field = str(err["loc"][0]) if err["loc"] else ""
        if field not in Settings.model_fields:
            lines.append(f"{field}: not a setting")
            continue
        name = env_name(field) + (f" (or {option_of(field)})" if option_of(field) else "")
        if err["type"] == "value_error":  # a check of this module's, in its own words
            lines.append(f"{name}: {str(err['ctx']['error']).removeprefix(env_name(field) + ': ')}")
        else:
            lines.append(f"{name}: {err['msg']}; expected {_expected(field)}")
    return "\n".join(lines)


def load_settings(**given: Any) -> Settings:
    """The settings: ``given`` (a ``kardinal serve`` option, by field; None: not given)
    over the environment over the defaults. SettingsError if one is malformed; a warning
    for a ``KARDINAL_`` variable that is no setting (a typo would be ignored silently)."""
    known = {env_name(f) for f in Settings.model_fields} | TEST_VARIABLES
    for name in sorted(k for k in os.environ if k.upper().startswith(PREFIX) and k.upper() not in known):
        log.warning("%s is not a setting of the server; ignored (the settings: docs/host/install.md)", name)
    try:
        return Settings(**{k: v for k, v in given.items() if v is not None})
    except ValidationError as e:
        raise SettingsError(_message(e)) from None


# -- the Host page's table -----------------------------------------------------------------


def shown_default(field: str) -> str:
    info = Settings.model_fields[field]
    extra = info.json_schema_extra
    if isinstance(extra, dict) and "shown" in extra:
        return str(extra["shown"])
    v = info.default
    if v is None or v == "":
        return ""
    if v is False:
        return "off"
    return f"`{_number(v)}`"


def plain(text: str) -> str:
    """A description as plain text (the command line's help): no links, no code marks."""
    return re.sub(r"\[([^]]+)\]\([^)]+\)", r"\1", text).replace("`", "")


def settings_table() -> str:
    """The Host page's table of every setting, one row each, in the class's order."""
    rows = [
        "| environment | `kardinal serve` option | default | takes | what it does |",
        "| --- | --- | --- | --- | --- |",
    ]
    for field, info in Settings.model_fields.items():
        extra = info.json_schema_extra
        option = f"`{extra['option']}`" if isinstance(extra, dict) and "option" in extra else ""
        rows.append(f"| `{env_name(field)}` | {option} | {shown_default(field)} | {_expected(field)} | {info.description} |")
    return "\n".join(rows)


def with_table(page: str) -> str:
    """The page with the table between its markers made anew."""
    start, end = page.index(BEGIN) + len(BEGIN), page.index(END)
    return page[:start] + "\n\n" + settings_table() + "\n\n" + page[end:]


def main(argv: list[str]) -> int:
    """``python -m kardinal.server.common.settings [--check]``: write the table into the Host page
    (or, with --check, say whether it is up to date)."""
    page = INSTALL_PAGE.read_text(encoding="utf-8")
    made = with_table(page)
    if "--check" in argv:
        if made != page:
            print(f"{INSTALL_PAGE}: the settings table is out of date (python -m kardinal.server.common.settings)")
            return 1
        return 0
    INSTALL_PAGE.write_text(made, encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main(sys.argv[1:]))
