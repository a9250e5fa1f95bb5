"""The words of each mail, from the language catalogs (common/catalog.py: messages
``mail.*``), in the account's language (kept in its ``notify`` JSON as ``lang``: the
language of the browser that set the address, or the one chosen on a page while signed
in); numbers, month names and plurals by the language's locale (Babel). Plain text: every mail client
shows it, and a link in it is the whole link.

A subject holds no text a player chose (a name, a seat's name): only the server's own
words and, for the mails of a game, when the game was begun (SUBJECT_PARAMS: digits and
month names the server writes), so that nothing of a player's reaches a mail's headers
(headers.py says why), and two games' mails are not one thread in the reader's mail client. A game is named in the text by its other players ("your game
against Anna and Ben"), and a turn-based game's turn mail says its deadline and the
time left (:func:`deadline_words`)."""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

from babel.dates import get_month_names

from ..common import catalog
from ..common.catalog import plural, text
from ..common.names import UNNAMED, seat_name

__all__ = [
    "render",
    "MAILS",
    "ordinal",
    "result_words",
    "seat_label",
    "names_list",
    "others_words",
    "places_shown",
    "deadline_words",
    "how_words",
    "kind_words",
    "begun_words",
    "push_words",
    "push_left_words",
]

MAILS = ("confirm", "reset", "turn", "invitation", "end")  # the mails there are (messages mail.<kind>.subject and .body)
SUBJECT_PARAMS: tuple[str, ...] = ("begun", "kind")  # what a subject may hold: the server's words only, never a player's text


def places_shown(places: list[float]) -> list[int]:
    """The places as the final table shows them: seats tied share the best of the places
    they take together (two tied after the winner are both 2nd, the next is 4th), where a
    result holds the mean of them (2.5: SeatResult.place)."""
    return [1 + sum(1 for q in places if q < p) for p in places]


def ordinal(place: float, lang: str) -> str:
    """1 -> "1st" / "1."; a shared place (2.5) -> "2.5th" / "2,5."."""
    return catalog.ordinal(lang, place)


def result_words(lang: str, place: int, score: int, win: float, tied: bool = False) -> str:
    """The seat's result in a sentence: its place (as shown: places_shown) and score, a
    place it shares (``tied``), or its (shared) win."""
    if win >= 1:
        return text(lang, "mail.result.won", score=score)
    if win > 0:
        return text(lang, "mail.result.sharedWin", score=score)
    return text(lang, "mail.result.sharedPlace" if tied else "mail.result.placed", place=ordinal(place, lang), score=score)


def rating_words(lang: str, before: int, after: int) -> str:
    """A rated game's change of the reader's rating, as the page shows ratings (whole
    numbers; the change with its sign: "+15", "−12")."""
    change = after - before
    sign = "+" if change >= 0 else "−"
    return text(lang, "mail.result.rating", before=before, after=after, change=f"{sign}{abs(change)}")


def seat_label(name: str, index: int, bot: bool, lang: str) -> str:
    """A seat's name as the table shows it; an unnamed seat (index from 0) is "Player 2" /
    "Spieler 2" (a bot's "Bot 3") in ``lang``."""
    if name.strip():
        return name
    return f"Bot {index + 1}" if bot else seat_name(UNNAMED, index, lang)


def names_list(names: list[str], lang: str) -> str:
    """Names as a sentence says them: "Anna", "Anna and Ben", "Anna, Ben and Carl"."""
    word = text(lang, "mail.and")
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + word + names[-1]


def others_words(seats: list[tuple[str, bool]], reader: int, lang: str) -> str:
    """The other players of a game, as its mails name it: ``seats`` (name, is a bot) in
    order, the reader's (index ``reader``) left out: "Anna, Ben and Bot 4"."""
    return names_list([seat_label(n, i, bot, lang) for i, (n, bot) in enumerate(seats) if i != reader], lang)


def kind_words(options: dict[str, Any], lang: str) -> str:
    """A table's kind for an invitation's subject: "live game" or "turn-based game" (the
    server's words: SUBJECT_PARAMS), so that two invitations are told apart in the inbox."""
    return text(lang, "mail.kind.turn" if options.get("mode") == "turn" else "mail.kind.live")


def how_words(options: dict[str, Any], lang: str) -> str:
    """How a table plays, as its invitation says it: live (and after how long away a bot
    plays for a person) or turn-based (and how long a turn may take), and whether it is rated."""
    clock = options.get("clock") or {}
    if options.get("mode") == "turn":
        days = clock.get("days")
        if days:
            words = text(lang, "mail.how.turn", days=plural(lang, "mail.how.days", int(days)))
        else:
            words = text(lang, "mail.how.turn_free")
    else:
        n = max(1, round(float(options.get("away", 180)) / 60))
        words = text(lang, "mail.how.live", away=plural(lang, "mail.how.minutes", n))
    return words + (text(lang, "mail.how.rated") if options.get("rated") else "")


def zone_of(name: str | None) -> ZoneInfo | None:
    """The time zone of an IANA name ("Europe/Berlin"), or None (unknown, no name, or UTC:
    said as "UTC")."""
    if not name or name in ("UTC", "Etc/UTC") or len(name) > 64 or not all(ch.isascii() and (ch.isalnum() or ch in "/_+-") for ch in name):
        return None
    try:
        return ZoneInfo(name)
    except (ValueError, OSError, KeyError):
        return None


def when_words(at: float, lang: str, zone: str | None = None) -> str:
    """A moment as a reader says it: "29 November 2026 at 14:30 (Europe/Berlin)", or with
    "UTC" when the reader's time zone is not known."""
    tz = zone_of(zone)
    dt = datetime.fromtimestamp(at, tz or UTC)
    words = text(lang, "mail.date", d=dt.day, month=month(lang, dt.month), y=dt.year, hm=clock_words(dt, lang))
    return f"{words} ({zone})" if tz is not None else f"{words} UTC"


def month(lang: str, n: int) -> str:
    """The name of the month ``n`` (1-12) in the language, as a date says it (CLDR: "März", "January")."""
    return str(get_month_names("wide", "format", locale=catalog.locale_of(lang))[n])


def clock_words(dt: datetime, lang: str) -> str:
    """A time of day as the language writes it: "14:30" / "14.30" (Danish)."""
    return text(lang, "mail.clock", hh=f"{dt.hour:02d}", mm=f"{dt.minute:02d}")


def begun_words(at: float, lang: str, zone: str | None = None) -> str:
    """When a game was begun, as its mails' subjects name it: "27 November, 14:30" /
    "27. November, 14:30", in the reader's time zone (else UTC). Only digits and the
    server's month names: safe in a header."""
    dt = datetime.fromtimestamp(at, zone_of(zone) or UTC)
    return text(lang, "mail.begun", d=dt.day, month=month(lang, dt.month), hm=clock_words(dt, lang))


def left_words(seconds: float, lang: str) -> str:
    """A time left, rounded down to two units: "2 days 23 hours", "5 hours 10 minutes",
    "1 minute" (at least a minute)."""
    units = ("mail.left.days", "mail.left.hours", "mail.left.minutes")
    minutes = max(1, int(seconds // 60))
    amounts = (minutes // 1440, minutes // 60 % 24, minutes % 60)
    first = next(i for i, a in enumerate(amounts) if a or i == 2)
    parts = [plural(lang, units[i], a) for i, a in enumerate(amounts[first : first + 2], start=first) if a or i == first]
    return text(lang, "mail.left.join").join(parts)


def deadline_words(deadline: float | None, now: float, lang: str, zone: str | None = None) -> str:
    """The turn mail's sentence on its deadline ("" for none: a turn without a clock)."""
    if deadline is None:
        return ""
    return text(lang, "mail.deadline", when=when_words(deadline, lang, zone), left=left_words(deadline - now, lang))


def render(kind: str, lang: str, params: dict[str, Any], unsubscribe: str | None = None) -> tuple[str, str]:
    """A mail's subject and text; ``unsubscribe``: the one-click link (notifications)."""
    lang = catalog.pick(lang)
    body = text(lang, f"mail.{kind}.body", **params)
    if unsubscribe is not None:
        body += "\n\n" + text(lang, "mail.unsubscribe", what=text(lang, f"mail.what.{kind}"), unsubscribe=unsubscribe)
    subject = text(lang, f"mail.{kind}.subject", **{k: params[k] for k in SUBJECT_PARAMS if k in params})
    return subject, body + text(lang, "mail.sign")


def push_words(kind: str, lang: str, params: dict[str, Any]) -> tuple[str, str]:
    """A push notification's title and text of ``kind`` in ``lang`` (mail/push.py: short,
    what a phone's lock screen shows; messages ``push.<kind>.title`` and ``.body``)."""
    return text(lang, f"push.{kind}.title"), text(lang, f"push.{kind}.body", **params)


def push_left_words(deadline: float | None, now: float, lang: str) -> str:
    """A turn notification's time left (a game with a clock), or ""."""
    if deadline is None:
        return ""
    return " " + text(lang, "push.left", left=left_words(deadline - now, lang))
