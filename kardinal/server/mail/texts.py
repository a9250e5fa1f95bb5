"""The words of each mail, in English, German and Danish (the language of the browser that set the
address, kept in the account's ``notify`` JSON as ``lang``). Plain text: every mail client
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

from ..common.names import UNNAMED, seat_name

__all__ = [
    "render",
    "LANGS",
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
]

LANGS = ("en", "de", "da")
SUBJECT_PARAMS: tuple[str, ...] = ("begun", "kind")  # what a subject may hold: the server's words only, never a player's text

_SIGN = {
    "en": "\n\n-- \nKardinal & König\n",
    "de": "\n\n-- \nKardinal & König\n",
    "da": "\n\n-- \nKardinal & König\n",
}
_UNSUB = {
    "en": "You get this mail because you asked for it on your account page. No more of these mails ({what}), in one click:\n{unsubscribe}",
    "de": "Du bekommst diese Mail, weil du sie auf deiner Kontoseite gewählt hast. Keine solchen Mails mehr ({what}), mit einem Klick:\n{unsubscribe}",
    "da": "Du får denne mail, fordi du har valgt den på din kontoside. Ikke flere af disse mails ({what}), med ét klik:\n{unsubscribe}",
}
WHAT = {
    "en": {"turn": "your turn", "invitation": "invitations", "end": "a game's end"},
    "de": {"turn": "du bist dran", "invitation": "Einladungen", "end": "Spielende"},
    "da": {"turn": "din tur", "invitation": "invitationer", "end": "et spils afslutning"},
}

TEXTS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {
        "confirm": (
            "Kardinal & König: confirm your mail address",
            "Hello {name},\n\nplease confirm that this is your address for Kardinal & König: open this link (valid for {hours} hours, once):\n\n{link}\n\n"
            "If you did not ask for this, ignore this mail: nothing more will be sent to this address.",
        ),
        "reset": (
            "Kardinal & König: a new password for your account",
            "Hello {name},\n\nsomeone (you, we hope) asked for a new password for your account. Set one here (the link works once, for {minutes} minutes):\n\n{link}\n\n"
            "Setting it signs out every device. If you did not ask for this, ignore this mail: your password stays as it is.",
        ),
        "turn": (
            "Kardinal & König: your turn in the game of {begun}",
            "Hello {name},\n\nit is your turn in your game against {others}.{deadline}\n\nOpen your seat:\n{link}\n\nWe mail you once a game until you have moved.",
        ),
        "invitation": (
            "Kardinal & König: an invitation to a {kind} of {begun}",
            "Hello {name},\n\n{inviter} invites you to a game against {others}. {how}\n\nOpen it:\n{link}",
        ),
        "end": (
            "Kardinal & König: the game of {begun} is over",
            "Hello {name},\n\nyour game against {others} is over. {you}\n\n{table}\n\nThe game and its replay:\n{link}",
        ),
    },
    "de": {
        "confirm": (
            "Kardinal & König: bestätige deine Mailadresse",
            "Hallo {name},\n\nbitte bestätige, dass dies deine Adresse für Kardinal & König ist: öffne diesen Link (gültig {hours} Stunden, einmal):\n\n{link}\n\n"
            "Wenn du das nicht warst, beachte diese Mail nicht: an diese Adresse geht dann nichts mehr.",
        ),
        "reset": (
            "Kardinal & König: ein neues Passwort für dein Konto",
            "Hallo {name},\n\njemand (hoffentlich du) hat ein neues Passwort für dein Konto angefordert. Setze es hier (der Link gilt einmal, {minutes} Minuten lang):\n\n{link}\n\n"
            "Damit werden alle Geräte abgemeldet. Wenn du das nicht warst, beachte diese Mail nicht: dein Passwort bleibt, wie es ist.",
        ),
        "turn": (
            "Kardinal & König: du bist dran in der Partie vom {begun}",
            "Hallo {name},\n\ndu bist dran in deinem Spiel gegen {others}.{deadline}\n\nÖffne deinen Platz:\n{link}\n\nWir schreiben dir einmal je Spiel, bis du gezogen hast.",
        ),
        "invitation": (
            "Kardinal & König: eine Einladung zum {kind} vom {begun}",
            "Hallo {name},\n\n{inviter} lädt dich zu einem Spiel gegen {others} ein. {how}\n\nÖffne es:\n{link}",
        ),
        "end": (
            "Kardinal & König: die Partie vom {begun} ist beendet",
            "Hallo {name},\n\ndein Spiel gegen {others} ist beendet. {you}\n\n{table}\n\nDas Spiel und seine Wiederholung:\n{link}",
        ),
    },
    "da": {
        "confirm": (
            "Kardinal & König: bekræft din mailadresse",
            "Hej {name}\n\nBekræft venligst, at dette er din adresse til Kardinal & König: åbn dette link (gyldigt i {hours} timer, én gang):\n\n{link}\n\n"
            "Har du ikke bedt om dette, så se bort fra denne mail: der sendes ikke mere til denne adresse.",
        ),
        "reset": (
            "Kardinal & König: en ny adgangskode til din konto",
            "Hej {name}\n\nNogen (forhåbentlig dig) har bedt om en ny adgangskode til din konto. Vælg den her (linket virker én gang, i {minutes} minutter):\n\n{link}\n\n"
            "Når du vælger den, logges alle enheder ud. Har du ikke bedt om dette, så se bort fra denne mail: din adgangskode forbliver, som den er.",
        ),
        "turn": (
            "Kardinal & König: din tur i spillet fra {begun}",
            "Hej {name}\n\nDet er din tur i dit spil mod {others}.{deadline}\n\nÅbn din plads:\n{link}\n\nVi mailer dig én gang pr. spil, indtil du har trukket.",
        ),
        "invitation": (
            "Kardinal & König: en invitation til et {kind} fra {begun}",
            "Hej {name}\n\n{inviter} inviterer dig til et spil mod {others}. {how}\n\nÅbn det:\n{link}",
        ),
        "end": (
            "Kardinal & König: spillet fra {begun} er slut",
            "Hej {name}\n\nDit spil mod {others} er slut. {you}\n\n{table}\n\nSpillet og dets genafspilning:\n{link}",
        ),
    },
}

_RESULT = {
    "en": (
        "You came {place} with {score} points.",
        "You won with {score} points.",
        "You share the win with {score} points.",
        "You share {place} place with {score} points.",
    ),
    "de": (
        "Du bist {place} geworden, mit {score} Punkten.",
        "Du hast gewonnen, mit {score} Punkten.",
        "Du teilst dir den Sieg, mit {score} Punkten.",
        "Du teilst dir den {place} Platz, mit {score} Punkten.",
    ),
    "da": (
        "Du kom på {place} plads med {score} point.",
        "Du vandt med {score} point.",
        "Du deler sejren med {score} point.",
        "Du deler {place} plads med {score} point.",
    ),
}


def places_shown(places: list[float]) -> list[int]:
    """The places as the final table shows them: seats tied share the best of the places
    they take together (two tied after the winner are both 2nd, the next is 4th), where a
    result holds the mean of them (2.5: SeatResult.place)."""
    return [1 + sum(1 for q in places if q < p) for p in places]


def ordinal(place: float, lang: str) -> str:
    """1 -> "1st" / "1."; a shared place (2.5) -> "2.5th" / "2,5." (German and Danish alike)."""
    if lang in ("de", "da"):
        return (f"{place:g}".replace(".", ",")) + "."
    if place != int(place):
        return f"{place:g}th"
    n = int(place)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def result_words(lang: str, place: int, score: int, win: float, tied: bool = False) -> str:
    """The seat's result in a sentence: its place (as shown: places_shown) and score, a
    place it shares (``tied``), or its (shared) win."""
    placed, alone, shared, shared_place = _RESULT[lang if lang in LANGS else "en"]
    if win >= 1:
        return alone.format(score=score)
    if win > 0:
        return shared.format(score=score)
    return (shared_place if tied else placed).format(place=ordinal(place, lang), score=score)


_AND = {"en": " and ", "de": " und ", "da": " og "}


def seat_label(name: str, index: int, bot: bool, lang: str) -> str:
    """A seat's name as the table shows it; an unnamed seat (index from 0) is "Player 2" /
    "Spieler 2" (a bot's "Bot 3") in ``lang``."""
    if name.strip():
        return name
    return f"Bot {index + 1}" if bot else seat_name(UNNAMED, index, lang)


def names_list(names: list[str], lang: str) -> str:
    """Names as a sentence says them: "Anna", "Anna and Ben", "Anna, Ben and Carl"."""
    word = _AND[lang if lang in LANGS else "en"]
    if len(names) <= 1:
        return "".join(names)
    return ", ".join(names[:-1]) + word + names[-1]


def others_words(seats: list[tuple[str, bool]], reader: int, lang: str) -> str:
    """The other players of a game, as its mails name it: ``seats`` (name, is a bot) in
    order, the reader's (index ``reader``) left out: "Anna, Ben and Bot 4"."""
    return names_list([seat_label(n, i, bot, lang) for i, (n, bot) in enumerate(seats) if i != reader], lang)


_MONTHS = {
    "en": ("January", "February", "March", "April", "May", "June", "July", "August", "September", "October", "November", "December"),
    "de": ("Januar", "Februar", "März", "April", "Mai", "Juni", "Juli", "August", "September", "Oktober", "November", "Dezember"),
    "da": ("januar", "februar", "marts", "april", "maj", "juni", "juli", "august", "september", "oktober", "november", "december"),
}
_DATE = {"en": "{d} {month} {y} at {hm}", "de": "{d}. {month} {y} um {hm} Uhr", "da": "{d}. {month} {y} kl. {hm}"}
_CLOCK = {"en": "%H:%M", "de": "%H:%M", "da": "%H.%M"}  # the time of day: 14:30, in Danish 14.30
_UNITS = {  # (one, many) of days, hours, minutes
    "en": (("day", "days"), ("hour", "hours"), ("minute", "minutes")),
    "de": (("Tag", "Tage"), ("Stunde", "Stunden"), ("Minute", "Minuten")),
    "da": (("dag", "dage"), ("time", "timer"), ("minut", "minutter")),
}
_JOIN = {"en": " ", "de": " und ", "da": " og "}  # "2 days 23 hours", "2 Tage und 23 Stunden", "2 dage og 23 timer"
_DEADLINE = {
    "en": "\n\nYour time for this turn runs out on {when}: about {left} left. Then a bot plays for you until you are back.",
    "de": "\n\nDeine Zeit für diesen Zug läuft am {when} ab: noch etwa {left}. Danach spielt ein Bot für dich, bis du zurück bist.",
    "da": "\n\nDin tid til denne tur løber ud den {when}: omkring {left} tilbage. Derefter spiller en bot for dig, indtil du er tilbage.",
}


_HOW: dict[str, dict[str, str]] = {
    "en": {
        "live": "It is a live game: everyone plays at the table at the same time, and a bot plays for a player away for {away}.",
        "turn": "It is a turn-based game: you move when you have time, within {days} a turn; then a bot plays for you until you are back.",
        "turn_free": "It is a turn-based game: you move when you have time, without a time limit.",
        "rated": " It is rated.",
    },
    "de": {
        "live": "Es ist ein Live-Spiel: alle sitzen zur gleichen Zeit am Tisch, und für eine Person, die {away} weg ist, spielt ein Bot.",
        "turn": "Es ist ein rundenbasiertes Spiel: du ziehst, wenn du Zeit hast, innerhalb von {days} je Zug; danach spielt ein Bot für dich, bis du zurück bist.",
        "turn_free": "Es ist ein rundenbasiertes Spiel: du ziehst, wenn du Zeit hast, ohne Zeitlimit.",
        "rated": " Es wird gewertet.",
    },
    "da": {
        "live": "Det er et livespil: alle spiller ved bordet på samme tid, og en bot spiller for en spiller, der er væk i {away}.",
        "turn": "Det er et turbaseret spil: du trækker, når du har tid, inden for {days} pr. tur; derefter spiller en bot for dig, indtil du er tilbage.",
        "turn_free": "Det er et turbaseret spil: du trækker, når du har tid, uden tidsgrænse.",
        "rated": " Det er rated.",
    },
}
_HOW_UNITS = {  # (one, many): days (dative in German: "innerhalb von 3 Tagen"), minutes
    "en": {"days": ("day", "days"), "minutes": ("minute", "minutes")},
    "de": {"days": ("Tag", "Tagen"), "minutes": ("Minute", "Minuten")},
    "da": {"days": ("dag", "dage"), "minutes": ("minut", "minutter")},
}


_KIND = {
    "en": {"live": "live game", "turn": "turn-based game"},
    "de": {"live": "Live-Spiel", "turn": "rundenbasierten Spiel"},
    "da": {"live": "livespil", "turn": "turbaseret spil"},
}


def kind_words(options: dict[str, Any], lang: str) -> str:
    """A table's kind for an invitation's subject: "live game" or "turn-based game" (the
    server's words: SUBJECT_PARAMS), so that two invitations are told apart in the inbox."""
    return _KIND[lang if lang in LANGS else "en"]["turn" if options.get("mode") == "turn" else "live"]


def how_words(options: dict[str, Any], lang: str) -> str:
    """How a table plays, as its invitation says it: live (and after how long away a bot
    plays for a person) or turn-based (and how long a turn may take), and whether it is rated."""
    lang = lang if lang in LANGS else "en"
    words, units = _HOW[lang], _HOW_UNITS[lang]
    clock = options.get("clock") or {}
    if options.get("mode") == "turn":
        days = clock.get("days")
        if days:
            n = int(days)
            text = words["turn"].format(days=f"{n} {units['days'][n != 1]}")
        else:
            text = words["turn_free"]
    else:
        n = max(1, round(float(options.get("away", 180)) / 60))
        text = words["live"].format(away=f"{n} {units['minutes'][n != 1]}")
    return text + (words["rated"] if options.get("rated") else "")


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
    lang = lang if lang in LANGS else "en"
    tz = zone_of(zone)
    dt = datetime.fromtimestamp(at, tz or UTC)
    words = _DATE[lang].format(d=dt.day, month=_MONTHS[lang][dt.month - 1], y=dt.year, hm=dt.strftime(_CLOCK[lang]))
    return f"{words} ({zone})" if tz is not None else f"{words} UTC"


_BEGUN = {"en": "{d} {month}, {hm}", "de": "{d}. {month}, {hm}", "da": "{d}. {month}, kl. {hm}"}


def begun_words(at: float, lang: str, zone: str | None = None) -> str:
    """When a game was begun, as its mails' subjects name it: "27 November, 14:30" /
    "27. November, 14:30", in the reader's time zone (else UTC). Only digits and the
    server's month names: safe in a header."""
    lang = lang if lang in LANGS else "en"
    dt = datetime.fromtimestamp(at, zone_of(zone) or UTC)
    return _BEGUN[lang].format(d=dt.day, month=_MONTHS[lang][dt.month - 1], hm=dt.strftime(_CLOCK[lang]))


def left_words(seconds: float, lang: str) -> str:
    """A time left, rounded down to two units: "2 days 23 hours", "5 hours 10 minutes",
    "1 minute" (at least a minute)."""
    lang = lang if lang in LANGS else "en"
    units = _UNITS[lang]
    minutes = max(1, int(seconds // 60))
    amounts = (minutes // 1440, minutes // 60 % 24, minutes % 60)
    first = next(i for i, a in enumerate(amounts) if a or i == 2)
    parts = [f"{a} {units[i][a != 1]}" for i, a in enumerate(amounts[first : first + 2], start=first) if a or i == first]
    return _JOIN[lang].join(parts)


def deadline_words(deadline: float | None, now: float, lang: str, zone: str | None = None) -> str:
    """The turn mail's sentence on its deadline ("" for none: a turn without a clock)."""
    if deadline is None:
        return ""
    lang = lang if lang in LANGS else "en"
    return _DEADLINE[lang].format(when=when_words(deadline, lang, zone), left=left_words(deadline - now, lang))


def render(kind: str, lang: str, params: dict[str, Any], unsubscribe: str | None = None) -> tuple[str, str]:
    """A mail's subject and text; ``unsubscribe``: the one-click link (notifications)."""
    lang = lang if lang in LANGS else "en"
    subject, text = TEXTS[lang][kind]
    body = text.format(**params)
    if unsubscribe is not None:
        body += "\n\n" + _UNSUB[lang].format(what=WHAT[lang].get(kind, kind), unsubscribe=unsubscribe)
    return subject.format(**{k: params[k] for k in SUBJECT_PARAMS if k in params}), body + _SIGN[lang]
