"""The words of each mail, in English and German (the language of the browser that set the
address, kept in the account's ``notify`` JSON as ``lang``). Plain text: every mail client
shows it, and a link in it is the whole link.

A subject holds no text a player chose (a name, a seat's name): only the server's own
words and a game's id (SUBJECT_PARAMS), so that nothing of a player's reaches a mail's
headers (headers.py says why). Names are in the text."""

from __future__ import annotations

from typing import Any

__all__ = ["render", "LANGS", "ordinal", "result_words"]

LANGS = ("en", "de")
SUBJECT_PARAMS = ("game",)  # what a subject may hold: the server's ids, never a player's text

_SIGN = {
    "en": "\n\n-- \nKardinal & König\n",
    "de": "\n\n-- \nKardinal & König\n",
}
_UNSUB = {
    "en": "You get this mail because you asked for it on your account page. No more of these mails ({what}), in one click:\n{unsubscribe}",
    "de": "Du bekommst diese Mail, weil du sie auf deiner Kontoseite gewählt hast. Keine solchen Mails mehr ({what}), mit einem Klick:\n{unsubscribe}",
}
WHAT = {
    "en": {"turn": "your turn", "invitation": "invitations", "end": "a game's end"},
    "de": {"turn": "du bist dran", "invitation": "Einladungen", "end": "Spielende"},
}

TEXTS: dict[str, dict[str, tuple[str, str]]] = {
    "en": {
        "confirm": (
            "Confirm your mail address",
            "Hello {name},\n\nplease confirm that this is your address for Kardinal & König: open this link (valid for {hours} hours, once):\n\n{link}\n\n"
            "If you did not ask for this, ignore this mail: nothing more will be sent to this address.",
        ),
        "reset": (
            "A new password for your account",
            "Hello {name},\n\nsomeone (you, we hope) asked for a new password for your account. Set one here (the link works once, for {minutes} minutes):\n\n{link}\n\n"
            "Setting it signs out every device. If you did not ask for this, ignore this mail: your password stays as it is.",
        ),
        "turn": (
            "Your turn: {game}",
            "Hello {name},\n\nit is your turn in the game {game} ({players}).\n\nOpen your seat:\n{link}\n\nWe mail you once a game until you have moved.",
        ),
        "invitation": (
            "An invitation to a game",
            "Hello {name},\n\n{inviter} invites you to the game {game}.\n\nOpen it:\n{link}",
        ),
        "end": (
            "Game over: {game}",
            "Hello {name},\n\nthe game {game} is over. {you}\n\n{table}\n\nThe game and its replay:\n{link}",
        ),
    },
    "de": {
        "confirm": (
            "Bestätige deine Mailadresse",
            "Hallo {name},\n\nbitte bestätige, dass dies deine Adresse für Kardinal & König ist: öffne diesen Link (gültig {hours} Stunden, einmal):\n\n{link}\n\n"
            "Wenn du das nicht warst, beachte diese Mail nicht: an diese Adresse geht dann nichts mehr.",
        ),
        "reset": (
            "Ein neues Passwort für dein Konto",
            "Hallo {name},\n\njemand (hoffentlich du) hat ein neues Passwort für dein Konto angefordert. Setze es hier (der Link gilt einmal, {minutes} Minuten lang):\n\n{link}\n\n"
            "Damit werden alle Geräte abgemeldet. Wenn du das nicht warst, beachte diese Mail nicht: dein Passwort bleibt, wie es ist.",
        ),
        "turn": (
            "Du bist dran: {game}",
            "Hallo {name},\n\ndu bist dran im Spiel {game} ({players}).\n\nÖffne deinen Platz:\n{link}\n\nWir schreiben dir einmal je Spiel, bis du gezogen hast.",
        ),
        "invitation": (
            "Eine Einladung zu einem Spiel",
            "Hallo {name},\n\n{inviter} lädt dich zum Spiel {game} ein.\n\nÖffne es:\n{link}",
        ),
        "end": (
            "Spiel beendet: {game}",
            "Hallo {name},\n\ndas Spiel {game} ist beendet. {you}\n\n{table}\n\nDas Spiel und seine Wiederholung:\n{link}",
        ),
    },
}

_RESULT = {
    "en": ("You came {place} with {score} points.", "You won with {score} points.", "You share the win with {score} points."),
    "de": (
        "Du bist {place} geworden, mit {score} Punkten.",
        "Du hast gewonnen, mit {score} Punkten.",
        "Du teilst dir den Sieg, mit {score} Punkten.",
    ),
}


def ordinal(place: float, lang: str) -> str:
    """1 -> "1st" / "1."; a shared place (2.5) -> "2.5th" / "2,5."."""
    if lang == "de":
        return (f"{place:g}".replace(".", ",")) + "."
    if place != int(place):
        return f"{place:g}th"
    n = int(place)
    suffix = "th" if 10 <= n % 100 <= 20 else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
    return f"{n}{suffix}"


def result_words(lang: str, place: float, score: int, win: float) -> str:
    """The seat's result in a sentence: its place and score, or its (shared) win."""
    placed, alone, shared = _RESULT[lang if lang in LANGS else "en"]
    if win >= 1:
        return alone.format(score=score)
    if win > 0:
        return shared.format(score=score)
    return placed.format(place=ordinal(place, lang), score=score)


def render(kind: str, lang: str, params: dict[str, Any], unsubscribe: str | None = None) -> tuple[str, str]:
    """A mail's subject and text; ``unsubscribe``: the one-click link (notifications)."""
    lang = lang if lang in LANGS else "en"
    subject, text = TEXTS[lang][kind]
    body = text.format(**params)
    if unsubscribe is not None:
        body += "\n\n" + _UNSUB[lang].format(what=WHAT[lang].get(kind, kind), unsubscribe=unsubscribe)
    return subject.format(**{k: params[k] for k in SUBJECT_PARAMS if k in params}), body + _SIGN[lang]
