"""Players' names as everyone sees them: cleaned, bounded, and unique at a table and among
accounts, also in look-alike forms.

Two names are the same name when their :func:`look_key` is: NFKC, case folded, and then
Unicode's confusable skeleton (UTS #39: "Аnna" with a Cyrillic А is Anna, "Bot l" is
"Bot 1"). The skeleton is made from Unicode's table of confusables (confusables.txt) as
the package ``confusable_homoglyphs`` ships it. A name may not hold characters one cannot
see (controls, format characters, the Hangul fillers, the Braille blank, variation
selectors: :data:`INVISIBLE`), nor be without a letter or a digit, nor pass for the seat
of a deleted account (begin with "Deleted Player", in any case or look-alike, with or
without separators).
"""

from __future__ import annotations

import hashlib
import json
import re
import unicodedata
from functools import lru_cache
from importlib import resources
from typing import TYPE_CHECKING

from .catalog import langs, text
from .refusal import Refused

if TYPE_CHECKING:
    from ..storage.rows import SeatRow

MAX_NAME = 24
# letters a name may not hold: controls, format characters (the bidirectional overrides
# and isolates among them), surrogates, private use, unassigned code points, and the line
# and paragraph separators
BAD_IN_NAME = frozenset(("Cc", "Cf", "Cs", "Co", "Cn", "Zl", "Zp"))
# characters one cannot see that are letters, marks or symbols to Unicode: the default
# ignorable ones outside the categories above (Hangul fillers, the combining grapheme
# joiner, Khmer inherent vowels, Mongolian and other variation selectors, the Khitan
# filler), the blank Braille pattern and the musical null notehead (drawn blank)
INVISIBLE = frozenset(
    [0x034F, 0x115F, 0x1160, 0x17B4, 0x17B5, 0x180B, 0x180C, 0x180D, 0x180F, 0x2800, 0x3164, 0xFFA0, 0x16FE4, 0x1D159]
    + list(range(0xFE00, 0xFE10))
    + list(range(0xE0100, 0xE01F0))
)
ORDINARY_SPACE = frozenset("\t\n\v\f\r")  # controls a name may hold (each is made a space)
# a name needs a letter or a digit: symbols and punctuation alone are refused, as no list of
# the symbols drawn blank (or nearly: "\u1d15a", "\u2e31") can be complete
SEEN = frozenset("LN")
DELETED = "deleted player"  # the name a deleted account's seats take (with a number after it when taken)
_DELETED_SEAT = re.compile(re.escape(DELETED) + r"( \d+)?")
KEY_MARK = "\ue000"  # starts every account's stored key made by account_keys (never in a name)
# an unnamed person seat is stored with no name (no words of the language of the page that
# made it): each reader says it in its own language ("Player 2", "Spieler 2": seat_name)
UNNAMED = ""


def bad_name(why: str) -> Refused:
    return Refused("bad_name", why, 400, max=MAX_NAME)


def clean_name(name: object, default: str) -> str:
    """A player's name as shown to everyone: NFC, runs of white space as one space, at
    most MAX_NAME characters; Refused ``bad_name`` for anything else (nothing is cut
    silently): a character one cannot see, or no visible one. No name (None or only white
    space) is ``default``."""
    if name is None:
        return default
    if not isinstance(name, str):
        raise bad_name("a name must be text")
    # checked before white space is made spaces: Python splits at the line and paragraph
    # separators and at the C0 and C1 separators too
    if any(_unseen(ch) and ch not in ORDINARY_SPACE for ch in name):
        raise bad_name("a name may hold letters, digits, punctuation and spaces only")
    name = unicodedata.normalize("NFC", " ".join(name.split()))
    if any(_unseen(ch) for ch in name):
        raise bad_name("a name may hold letters, digits, punctuation and spaces only")
    if len(name) > MAX_NAME:
        raise bad_name(f"a name has at most {MAX_NAME} characters")
    if name and not any(unicodedata.category(ch)[0] in SEEN for ch in name):
        raise bad_name("a name needs a letter or a digit")
    return name or default


def seat_name(name: str, seat: int, lang: str = "en") -> str:
    """A seat's name as a reader in ``lang`` sees it: an unnamed seat (UNNAMED) is "Player
    2" ("Spieler 2"), a deleted account's (DELETED, with a number when taken) "gelöschter
    Spieler" in German; any other name, stored in a game of before too, as it is."""
    if not name:
        return f"{text(lang, 'player')} {seat + 1}"
    deleted = _DELETED_SEAT.fullmatch(name)
    return text(lang, "deletedPlayer") + (deleted.group(1) or "") if deleted else name


def own_name(seats: list[SeatRow], seat: int, name: str, named_too: bool = False) -> str | None:
    """The name an unnamed seat takes when a signed-in person takes it: their account's
    ``name``, if no other seat of the table has it (else None: it stays as it is).
    ``named_too``: a seat its host named takes it as well (an open seat taken from the
    lobby: its name was the host's placeholder for whoever comes)."""
    if not 0 <= seat < len(seats) or (seats[seat].name != UNNAMED and not named_too):
        return None
    key = look_key(name)
    return None if any(i != seat and key in _keys_shown(s.name, i) for i, s in enumerate(seats)) else name


def _unseen(ch: str) -> bool:
    """Whether ``ch`` is of BAD_IN_NAME or INVISIBLE."""
    return unicodedata.category(ch) in BAD_IN_NAME or ord(ch) in INVISIBLE


def storable(text: str) -> bool:
    """Text the database can hold: UTF-8 (JSON may carry a lone surrogate, "\\ud800")."""
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def name_key(name: str) -> str:
    """NFKC, case folded, runs of white space as one space, stripped ("Ａｎｎａ" and
    " anna " are Anna): the key accounts were stored by before look-alikes counted (see
    account_keys), and the guard's key of a name."""
    folded = unicodedata.normalize("NFKC", unicodedata.normalize("NFKC", name).casefold())
    return " ".join(folded.split())


@lru_cache(maxsize=1)
def _prototypes() -> dict[str, str]:
    """Each confusable character's prototype (UTS #39), from confusables.txt as
    confusable_homoglyphs keeps it: for every line "source → prototype" of the table, each
    side lists the other. A source has one prototype and a prototype is never a source, so
    a character listing several is a prototype; one listing one other is that other's
    source, unless the other lists it alone too (a prototype of one source: either of the
    two stands for both)."""
    raw = json.loads(resources.files("confusable_homoglyphs").joinpath("confusables.json").read_text("utf-8"))
    links: dict[str, list[str]] = {}
    for key, others in raw.items():
        # the package wraps right-to-left letters in LEFT-TO-RIGHT MARKs
        links.setdefault(key.replace("\u200e", ""), []).extend(str(o["c"]).replace("\u200e", "") for o in others)
    out: dict[str, str] = {}
    for ch, others in links.items():
        if len(ch) != 1 or len(set(others)) != 1:
            continue  # a sequence, or a prototype of several: itself
        other = others[0]
        out[ch] = other if len(other) > 1 or len(set(links.get(other, ()))) > 1 else min(ch, other)
    return out


def skeleton(text: str) -> str:
    """UTS #39's skeleton of ``text``: two texts that look alike have the same one (for
    comparing only: it is no name to show)."""
    table = _prototypes()
    return unicodedata.normalize("NFD", "".join(table.get(ch, ch) for ch in unicodedata.normalize("NFD", text)))


# the Latin small capitals ("ᴀnna" is Anna): confusables.txt has some of them (ᴄ, ᴏ, ᴠ,
# ...) as their letters, not the others, and NFKC leaves them all as they are
SMALL_CAPITALS = str.maketrans(
    dict(zip("\u1d00\u0299\u1d04\u1d05\u1d07\ua730\u0262\u029c\u026a\u1d0a\u1d0b\u029f\u1d0d", "abcdefghijklm", strict=True))
    | dict(zip("\u0274\u1d0f\u1d18\ua7af\u0280\ua731\u1d1b\u1d1c\u1d20\u1d21\u028f\u1d22", "nopqrstuvwyz", strict=True))
)


def look_key(name: str) -> str:
    """What two names must not share (at a table, among accounts): the skeleton of the
    name's key (name_key) with small capitals as their letters, case folded again and its
    skeleton again (a prototype may be a capital: "0" is "O"), so that case, width and
    look-alike letters do not make a second name. It depends on name_key(name) alone."""
    return skeleton(name_key(skeleton(name_key(name).translate(SMALL_CAPITALS))))


def account_keys(name: str) -> tuple[str, str]:
    """The keys an account of ``name`` can be stored by: a new account's (KEY_MARK and its
    look_key; a look_key too long for the column is stored as its SHA-256), and the one
    accounts made before were stored by (name_key). Look an account up by both."""
    key = KEY_MARK + look_key(name)
    if len(key) > 90:
        key = KEY_MARK + "#" + hashlib.sha256(key.encode("utf-8")).hexdigest()
    return key, name_key(name)


def as_deleted(name: str) -> bool:
    """Whether ``name`` passes for a deleted account's seat: it begins with DELETED in any
    case, width or look-alike form, once all but its letters, marks and digits are taken
    out (spaces and separators: "Deleted_Player", "DeletedPlayer 0", "Deleted Players
    Club"). Whatever follows does not matter: telling a number after it ("l0" is "10")
    from other text has let look-alike numbers through."""
    return _compact(look_key(name)).startswith(_compact(look_key(DELETED)))


def _compact(key: str) -> str:
    """A look_key's letters, marks and digits."""
    return "".join(ch for ch in key if unicodedata.category(ch)[0] in "LMN")


def name_taken(name: str) -> Refused:
    return Refused("name_taken", f"the name {name} is taken at this table", 409, name=name)


def check_name_free(seats: list[SeatRow], name: str, seat: int | None = None) -> None:
    """Refused ``name_taken`` if a seat of the table but ``seat`` has ``name`` (see
    look_key) or is unnamed and shown as ``name`` ("Player 2"), or the name passes for a
    deleted account's seat (as_deleted). Unnamed seats (UNNAMED) may be several."""
    if name == UNNAMED:
        return
    key = look_key(name)
    if as_deleted(name) or any(i != seat and key in _keys_shown(s.name, i) for i, s in enumerate(seats)):
        raise name_taken(name)


def _keys_shown(name: str, seat: int) -> set[str]:
    """The look keys of what a seat is shown as: its name, or, unnamed, "Player 2" in
    every language (so nobody takes the name an unnamed seat is shown with)."""
    if name != UNNAMED:
        return {look_key(name)}
    return {look_key(seat_name(UNNAMED, seat, lang)) for lang in langs()}
