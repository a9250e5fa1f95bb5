"""A refusal: what the server says when it does not do what a client asked."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import NotRequired

from typing_extensions import TypedDict  # typing's gives pydantic no schema on Python 3.11 (the API's documents)

from kardinal.rules.state import RuleError


class ErrorData(TypedDict):
    """A refusal: a stable ``code``, English words, and ``params`` to say it in any language
    (ids of countries, sites and cards; counts; a name). When the rules refused (code
    ``illegal``): the rule (``R4.3``) and the rules' own code (``reason``, e.g.
    ``joker_own_country``)."""

    code: str
    message: str
    params: dict[str, str | int]
    rule: NotRequired[str]
    reason: NotRequired[str]


class Refused(Exception):
    """An action or request the server refuses; ``code`` is stable, ``status`` the HTTP status.

    ``params`` are what a client needs to say the refusal in its own language; a refusal
    by the rules also names the rule and the rules' own code (``reason``, see RuleError).
    """

    def __init__(
        self,
        code: str,
        message: str,
        status: int = 409,
        rule: str | None = None,
        reason: str | None = None,
        **params: str | int,
    ) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.status = status
        self.rule = rule
        self.reason = reason
        self.params = params

    @classmethod
    def by_rules(cls, e: RuleError) -> Refused:
        return cls("illegal", str(e), 422, e.rule, e.code, **e.params)

    def to_json(self) -> ErrorData:
        out: ErrorData = {"code": self.code, "message": self.message, "params": dict(self.params)}
        if self.rule:
            out["rule"] = self.rule
        if self.reason:
            out["reason"] = self.reason
        return out


def no_player(name: str) -> Refused:
    """The one refusal of a name without an account (never made, or deleted), wherever a
    name is looked up (a profile, an invitation, a block or a mute)."""
    return Refused("no_player", f"no player is called {name}", 404, name=name[:100])


def until_text(t: float) -> str:
    """A time in a refusal's parameters: "2026-12-03 14:05 UTC" (the same in every language)."""
    return datetime.fromtimestamp(t, UTC).strftime("%Y-%m-%d %H:%M UTC")


def suspended(until: float, why: str, contact: str) -> Refused:
    """The refusal of a suspended account: until when (``until``: the time as text, in UTC;
    ``at``: the same in seconds since 1970, for the player's own time zone), the
    operator's reason (``why``, "" when none was given) and whom to ask (``contact``,
    "" when the operator set none: Settings.contact, which the game service holds)."""
    return Refused("suspended", "this account is suspended", 403, until=until_text(until), at=int(until), why=why, contact=contact)
