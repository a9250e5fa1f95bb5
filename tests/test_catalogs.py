"""The language catalogs (kardinal/locale/<lang>.po, issue 46): every language has every
message of the English, translated (no empty or fuzzy msgstr), with the English's
placeholders and no other, and every plural form its Plural-Forms asks for; the template
(kardinal.pot) has the English's messages; no word a player sees is left in the code
(no addStrings table in the browser's modules, no dict of words by language in the
server); and the browser gets its language's catalog from /i18n/catalog.json."""

from __future__ import annotations

import ast
import json
import re
from pathlib import Path

import pytest
from babel import Locale
from babel.messages.catalog import Catalog, Message
from babel.messages.pofile import read_po
from web_helpers import make_client

from kardinal.server.common import catalog

LOCALE = catalog.LOCALE_DIR
ROOT = Path(__file__).resolve().parent.parent
STATIC = ROOT / "kardinal" / "clients" / "web" / "static"
LANGS = [p.stem for p in sorted(LOCALE.glob("*.po"))]
OTHERS = [lang for lang in LANGS if lang != "en"]
PLACEHOLDER = re.compile(r"\{(\w+)\}")


def read(path: Path) -> Catalog:
    with path.open("rb") as f:
        return read_po(f, locale=path.stem if path.suffix == ".po" else None)


def by_key(cat: Catalog) -> dict[str, Message]:
    out: dict[str, Message] = {}
    for m in cat:
        if m.id:
            assert m.context, f"{m.id!r} has no key (msgctxt)"
            assert m.context not in out, f"the key {m.context} is in the catalog twice"
            out[m.context] = m
    return out


def forms(m: Message) -> list[str]:
    return list(m.string) if isinstance(m.string, tuple | list) else [m.string]


def english_ids(m: Message) -> list[str]:
    return list(m.id) if isinstance(m.id, tuple | list) else [m.id]


ENGLISH = by_key(read(LOCALE / "en.po"))


def test_the_catalogs_are_found() -> None:
    assert {"en", "de"} <= set(LANGS) and catalog.langs()[0] == "en" and set(catalog.langs()) == set(LANGS)
    assert len(ENGLISH) > 900  # the browser's and the server's words


def untranslated(path: Path) -> list[str]:
    """What a catalog lacks: a message of the English, its translation (empty or fuzzy), or
    the English it translates (its msgid is not the English's now); and what it has too many."""
    own = by_key(read(path))
    problems = [f"{k}: missing" for k in sorted(set(ENGLISH) - set(own))]
    problems += [f"{k}: not in the English" for k in sorted(set(own) - set(ENGLISH))]
    for key, m in own.items():
        if key in ENGLISH and m.id != ENGLISH[key].id:
            problems.append(f"{key}: its msgid is not the English's (the English changed: translate it anew)")
        if m.fuzzy:
            problems.append(f"{key}: fuzzy")
        if not all(forms(m)):
            problems.append(f"{key}: not translated")
    return problems


def placeholder_problems(path: Path) -> list[str]:
    """Translations whose placeholders are not the English's ({name}: each of them, no other)."""
    problems = []
    for key, m in by_key(read(path)).items():
        if key not in ENGLISH:
            continue
        want = set().union(*(PLACEHOLDER.findall(x) for x in english_ids(ENGLISH[key])))
        for f in forms(m):
            if f and set(PLACEHOLDER.findall(f)) != want:
                problems.append(f"{key}: {sorted(PLACEHOLDER.findall(f))} where the English has {sorted(want)}: {f!r}")
    return problems


def plural_problems(path: Path) -> list[str]:
    """Plural messages without one form for each of the language's plural categories (its
    Plural-Forms must count them as the browser's Intl.PluralRules and Babel do)."""
    cat = read(path)
    n = len(catalog.plural_tags(Locale.parse(path.stem)))
    problems = [] if cat.num_plurals == n else [f"Plural-Forms says {cat.num_plurals} forms, the language has {n}"]
    for key, m in by_key(cat).items():
        if key in ENGLISH and m.pluralizable != ENGLISH[key].pluralizable:
            problems.append(f"{key}: plural in one of the English and the translation only")
        elif m.pluralizable and len(forms(m)) != n:
            problems.append(f"{key}: {len(forms(m))} forms, not {n}")
    return problems


@pytest.mark.parametrize("lang", LANGS)
def test_every_language_has_every_message_translated(lang: str) -> None:
    problems = untranslated(LOCALE / f"{lang}.po")
    assert problems == [], f"{lang}.po:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_every_translation_has_the_englishs_placeholders_and_no_other(lang: str) -> None:
    problems = placeholder_problems(LOCALE / f"{lang}.po")
    assert problems == [], f"{lang}.po:\n" + "\n".join(problems)


@pytest.mark.parametrize("lang", LANGS)
def test_every_plural_has_the_languages_forms(lang: str) -> None:
    assert sum(m.pluralizable for m in ENGLISH.values()) > 20
    problems = plural_problems(LOCALE / f"{lang}.po")
    assert problems == [], f"{lang}.po:\n" + "\n".join(problems)


def test_the_template_is_the_english_untranslated() -> None:
    template = by_key(read(LOCALE / "kardinal.pot"))
    assert {k: m.id for k, m in template.items()} == {k: m.id for k, m in ENGLISH.items()}
    assert all(not any(forms(m)) for m in template.values())


def test_the_catalog_check_finds_what_is_wrong(tmp_path: Path) -> None:
    """The checks themselves, on a broken German catalog: a message missing, one empty, one
    fuzzy, a placeholder lost, another one added, a plural form missing."""
    text = (LOCALE / "de.po").read_text(encoding="utf-8")
    for old, new in (
        (
            'msgctxt "turnOf"\nmsgid "{name}\'s turn"\nmsgstr "{name} ist am Zug"',
            'msgctxt "turnOf"\nmsgid "{name}\'s turn"\nmsgstr "ist am Zug"',
        ),
        ('msgstr "{name} (Bot) spielt…"', 'msgstr "{name} ({level}) spielt…"'),
        ('msgctxt "close"\nmsgid "Close"\nmsgstr "Schließen"', 'msgctxt "close"\nmsgid "Close"\nmsgstr ""'),
        ('msgctxt "about"', '#, fuzzy\nmsgctxt "about"'),
        ('msgstr[1] "{n} Karten"', ""),
        ("nplurals=2; plural=(n != 1);", "nplurals=1; plural=0;"),
    ):
        assert text.count(old) == 1, old
        text = text.replace(old, new)
    text = re.sub(r'\nmsgctxt "title"\nmsgid "[^"]*"\nmsgstr "[^"]*"\n', "\n", text)
    broken = tmp_path / "de.po"
    broken.write_text(text, encoding="utf-8")
    assert untranslated(broken) == ["title: missing", "about: fuzzy", "close: not translated"]
    assert [p.split(":")[0] for p in placeholder_problems(broken)] == ["botPlaying", "turnOf"]
    assert plural_problems(broken)[0] == "Plural-Forms says 1 forms, the language has 2"


def test_the_server_reads_the_catalogs() -> None:
    assert catalog.text("de", "turnOf", name="Anna") == "Anna ist am Zug"
    assert catalog.text("xx", "turnOf", name="Anna") == "Anna's turn"  # no catalog: English
    assert catalog.plural("de", "cardsLeft", 1) == "1 Karte" and catalog.plural("de", "cardsLeft", 1200) == "1.200 Karten"
    assert catalog.plural("en", "cardsLeft", 1) == "1 card" and catalog.plural("en", "cardsLeft", 3) == "3 cards"
    assert [catalog.ordinal("en", p) for p in (1, 2, 3, 4, 11, 12, 13, 21, 22, 23, 2.5)] == [
        "1st", "2nd", "3rd", "4th", "11th", "12th", "13th", "21st", "22nd", "23rd", "2.5th",
    ]  # fmt: skip
    assert [catalog.ordinal("de", p) for p in (1, 2, 2.5)] == ["1.", "2.", "2,5."]
    assert catalog.pick("fr-CH", "de-AT", "en") == "de" and catalog.pick(None, "", "xx") == "en"
    assert catalog.languages()["de"].name == "Deutsch" and catalog.languages()["en"].name == "English"


# -------------------------------------------------- no words left in the code


def test_no_table_of_words_is_left_in_the_browsers_code() -> None:
    found = []
    for path in sorted(STATIC.glob("*.js")):
        src = path.read_text(encoding="utf-8")
        found += [f"{path.name}: addStrings(" for _ in re.finditer(r"\baddStrings\(", src)]
        # a table of words by language: `en: {` / `de: {` at the start of a line
        found += [f"{path.name}: {m.group(0).strip()}" for m in re.finditer(r"^\s*(?:en|de|da)\s*:\s*[{\"']", src, re.M)]
    assert found == []


def _word_dicts(path: Path) -> list[str]:
    """The dict literals of a module keyed by language codes ({"en": ..., "de": ...})."""
    out = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Dict):
            keys = {k.value for k in node.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            if "en" in keys and keys & {"de", "da"}:
                out.append(f"{path.name}:{node.lineno}")
    return out


def test_no_dict_of_words_by_language_is_left_in_the_servers_code() -> None:
    found = [w for p in sorted((ROOT / "kardinal").glob("**/*.py")) for w in _word_dicts(p)]
    assert found == []


def test_the_check_of_the_code_finds_a_dict_of_words(tmp_path: Path) -> None:
    p = tmp_path / "words.py"
    p.write_text('WORDS = {"en": "Player", "de": "Spieler"}\n', encoding="utf-8")
    assert _word_dicts(p) == ["words.py:1"]


# -------------------------------------------------- the browser's catalog


def test_the_browser_gets_its_languages_catalog(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        r = c.get("/i18n/catalog.json", params={"want": "fr-CH,de-AT,en"})
        assert r.status_code == 200 and r.headers["content-type"].startswith("application/json")
        data = r.json()
        assert (
            data["lang"] == "de"
            and list(data["langs"].items())[:2] == [("en", "English"), ("da", "Dansk")]
            and data["langs"]["de"] == "Deutsch"
        )  # English first, then by code
        assert data["texts"]["turnOf"] == "{name} ist am Zug"
        assert data["texts"]["cardsLeft"] == {"one": "{n} Karte", "other": "{n} Karten"}
        assert data["texts"]["boardNames.standard"] == "standard (der gezählte Plan)"
        etag = r.headers["etag"]
        assert r.headers["cache-control"] == "no-cache"
        again = c.get("/i18n/catalog.json", params={"want": "fr-CH,de-AT,en"}, headers={"if-none-match": etag})
        assert again.status_code == 304 and again.headers["etag"] == etag
        # no language of ours wanted (or nothing at all): English
        for want in ("xx,fr", ""):
            r = c.get("/i18n/catalog.json", params={"want": want})
            assert r.json()["lang"] == "en" and r.headers["etag"] != etag
            assert json.loads(r.content)["texts"]["turnOf"] == "{name}'s turn"
