"""The words of every language, from its catalog: ``kardinal/locale/<lang>.po`` (gettext
PO, read once with Babel). Each message's msgctxt is its key (``turnOf``,
``mail.turn.subject``), its msgid the English and its msgstr the language's own words,
with ``{name}`` placeholders; a message with plural forms has one per form of the
language's Plural-Forms. The languages are the catalogs present (adding ``da.po`` adds
Danish); the browser gets its language's messages as JSON (:func:`browser_catalog`,
served at ``/i18n/catalog.json``).

Plural forms are matched to the CLDR plural categories (Babel's ``Locale.plural_form``)
in the order zero, one, two, few, many, other: the order in which Babel writes a
language's Plural-Forms, and the categories the browser's ``Intl.PluralRules`` names."""

from __future__ import annotations

import hashlib
import json
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from babel import Locale
from babel.messages.pofile import read_po
from babel.numbers import format_decimal

import kardinal

__all__ = [
    "DEFAULT",
    "LOCALE_DIR",
    "Language",
    "languages",
    "langs",
    "pick",
    "locale_of",
    "text",
    "plural",
    "number",
    "ordinal",
    "browser_catalog",
]

LOCALE_DIR = Path(kardinal.__file__).parent / "locale"
DEFAULT = "en"  # the language of a reader whose language has no catalog
PLURAL_TAGS = ("zero", "one", "two", "few", "many", "other")

Text = str | dict[str, str]  # a message, or its forms by plural category


@dataclass(frozen=True)
class Language:
    code: str  # "de"
    name: str  # its own name for itself: "Deutsch"
    locale: Locale
    texts: dict[str, Text]  # by key


def plural_tags(locale: Locale) -> tuple[str, ...]:
    """The language's plural categories in the order of its Plural-Forms."""
    used = set(locale.plural_form.tags) | {"other"}
    return tuple(t for t in PLURAL_TAGS if t in used)


def read_catalog(path: Path) -> Language:
    """One catalog's messages by key (a message not translated is left out: the English is said instead)."""
    with path.open("rb") as f:
        cat = read_po(f)
    code = path.stem
    locale = Locale.parse(code)
    tags = plural_tags(locale)
    texts: dict[str, Text] = {}
    for m in cat:
        if not m.id or not m.context or m.fuzzy:
            continue
        if isinstance(m.string, tuple | list):
            if all(m.string):
                texts[m.context] = dict(zip(tags, m.string, strict=False))
        elif m.string:
            texts[m.context] = m.string
    name = locale.get_display_name(locale) or code
    return Language(code, name[:1].upper() + name[1:], locale, texts)


@cache
def languages() -> dict[str, Language]:
    """Every catalog's language by its code, English first."""
    paths = sorted(LOCALE_DIR.glob("*.po"), key=lambda p: (p.stem != DEFAULT, p.stem))
    return {p.stem: read_catalog(p) for p in paths}


def langs() -> tuple[str, ...]:
    """The codes of the languages there are catalogs for ("en", "de", ...)."""
    return tuple(languages())


def pick(*wanted: str | None) -> str:
    """The first of the wanted languages (codes or tags: "de-AT") that has a catalog, else English."""
    have = languages()
    for w in wanted:
        code = (w or "").strip().lower().replace("_", "-").split("-")[0]
        if code in have:
            return code
    return DEFAULT


def locale_of(lang: str) -> Locale:
    """The language's locale (Babel), English's for a language without a catalog."""
    have = languages()
    return have[lang].locale if lang in have else have[DEFAULT].locale


def _lookup(lang: str, key: str) -> Text:
    have = languages()
    own = have[lang].texts.get(key) if lang in have else None
    found = own if own is not None else have[DEFAULT].texts.get(key)
    if found is None:
        raise KeyError(f"no message {key!r} in the catalogs")
    return found


def fill(s: str, values: dict[str, object]) -> str:
    """``{name}`` replaced by each value (as the browser does: no other brace is special)."""
    for k, v in values.items():
        s = s.replace("{" + k + "}", str(v))
    return s


def text(lang: str, key: str, **values: object) -> str:
    """A message in ``lang`` (English where its catalog lacks it) with its placeholders filled."""
    found = _lookup(lang, key)
    if isinstance(found, dict):
        raise TypeError(f"the message {key!r} has plural forms: plural()")
    return fill(found, values)


def number(lang: str, x: float, digits: int = 0) -> str:
    """A number as the language writes it ("1,200" / "1.200", "2.5" / "2,5")."""
    fmt = "#,##0" + ("." + "0" * digits if digits else "")
    return format_decimal(x, format=fmt, locale=locale_of(lang))


def plural(lang: str, key: str, n: int, **values: object) -> str:
    """The form of a plural message for the number ``n`` (said as ``{n}``)."""
    found = _lookup(lang, key)
    if not isinstance(found, dict):
        return fill(found, {"n": number(lang, n), **values})
    own = lang in languages() and key in languages()[lang].texts  # else the English's forms
    form = found.get(locale_of(lang if own else DEFAULT).plural_form(n)) or found["other"]
    return fill(form, {"n": number(lang, n), **values})


def ordinal(lang: str, place: float) -> str:
    """A place as the language says it: "1st", "2.5th" / "1.", "2,5." (the form by the
    language's ordinal categories: messages ``mail.ordinal.<category>``)."""
    locale = locale_of(lang)
    whole = place == int(place)
    category = locale.ordinal_form(int(place)) if whole else "other"
    shown = number(lang, int(place)) if whole else format_decimal(place, locale=locale)
    return text(lang, f"mail.ordinal.{category}", n=shown)


@cache
def browser_catalog(lang: str) -> tuple[bytes, str]:
    """The browser's catalog of a language (JSON: its code; every language's own name, in
    the order of the language choice, English first; its messages by key, with English
    where it has none, plural forms by CLDR category) and its ETag (a digest of the text)."""
    have = languages()
    texts = {**have[DEFAULT].texts, **have[lang].texts}
    body = json.dumps(
        {"lang": lang, "langs": {code: language.name for code, language in have.items()}, "texts": texts},
        ensure_ascii=False,
        separators=(",", ":"),
    ).encode()
    return body, '"' + hashlib.sha256(body).hexdigest()[:20] + '"'
