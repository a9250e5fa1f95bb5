"""Players' names as everyone sees them: cleaned, bounded, and unique at a table."""

from __future__ import annotations

import unicodedata

from .refusal import Refused
from .storage import (
    SeatRow,
)

MAX_NAME = 24
# letters a name may not hold: controls, format characters (the bidirectional overrides
# and isolates among them), surrogates, private use and unassigned code points
BAD_IN_NAME = frozenset(("Cc", "Cf", "Cs", "Co", "Cn"))


def clean_name(name: object, default: str) -> str:
    """A player's name as shown to everyone: NFC, runs of white space as one space, at
    most MAX_NAME characters; Refused ``bad_name`` for anything else (nothing is cut
    silently). No name (None or only white space) is ``default``."""
    if name is None:
        return default
    if not isinstance(name, str):
        raise Refused("bad_name", "a name must be text", 400, max=MAX_NAME)
    name = unicodedata.normalize("NFC", " ".join(name.split()))
    if any(unicodedata.category(ch) in BAD_IN_NAME for ch in name):
        raise Refused("bad_name", "a name may hold letters, digits, punctuation and spaces only", 400, max=MAX_NAME)
    if len(name) > MAX_NAME:
        raise Refused("bad_name", f"a name has at most {MAX_NAME} characters", 400, max=MAX_NAME)
    return name or default


def storable(text: str) -> bool:
    """Text the database can hold: UTF-8 (JSON may carry a lone surrogate, "\\ud800")."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def name_key(name: str) -> str:
    """What two names must not share at one table: NFKC, case folded, runs of white space
    as one space, stripped ("Ａｎｎａ" and " anna " are Anna)."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


def name_taken(name: str) -> Refused:
    return Refused("name_taken", f"the name {name} is taken at this table", 409, name=name)


def check_name_free(seats: list[SeatRow], name: str, seat: int | None = None) -> None:
    """Refused ``name_taken`` if a seat of the table but ``seat`` has ``name`` (see name_key)."""
    key = name_key(name)
    if any(i != seat and name_key(s.name) == key for i, s in enumerate(seats)):
        raise name_taken(name)
