"""Make the language catalogs (kardinal/locale/<lang>.po) from the OLD word tables of a
git revision: i18n.js's TEXTS, BOARD_ABOUT and EXONYMS, every ``addStrings({...})`` call
of the browser's modules, and the server's dicts of words (mail/texts.py, common/names.py,
play/tutorial.py, web/rules_page.py). One catalog for every language found there.

    python tools-tmp/convert_catalogs.py REV [OUTDIR]

For the merge of the Danish branch (i46-da, which adds ``da`` in the old format): run it
on that branch's revision to get ``da.po`` (and en.po/de.po again, to compare). A message
a language lacks is written with an empty msgstr, which the catalog check
(tests/test_catalogs.py) names. The lead deletes this tool after the merge.

Needs node (to evaluate the JavaScript object literals) and Babel.
"""

from __future__ import annotations

import ast
import json
import re
import subprocess
import sys
import tomllib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from babel.messages.catalog import Catalog
from babel.messages.pofile import write_po

STATIC = "kardinal/clients/web/static"
PLURAL_TAGS = ("zero", "one", "two", "few", "many", "other")

# two modules never on one page once had their own text under one key: the new key of
# each but the first (the module's code says it so now)
RENAMED = {(f"{STATIC}/rated.js", "ratingValue"): "ratedValue"}

# the old language button's word (the other language's name): a choice among the
# catalogs' languages now, each named by Babel in its own language
DROPPED = {"language"}
# messages the new code has that the old tables lack (English and German; a language
# converted from an old revision gets them untranslated, and the check names them)
ADDED: dict[str, dict[str, str]] = {
    "en": {
        "languageLabel": "Language",
        "languageWhy": "The language of the pages (and, when you are signed in, of your mails)",
        "err.bad_lang": "There are no words in that language here (the languages: {langs}).",
    },
    "de": {
        "languageLabel": "Sprache",
        "languageWhy": "Die Sprache der Seiten (und, wenn du angemeldet bist, deiner Mails)",
        "err.bad_lang": "Diese Sprache gibt es hier nicht (die Sprachen: {langs}).",
    },
}

# message id -> language -> text, or (for plurals) language -> {category: text}
Messages = dict[str, dict[str, Any]]


def show(rev: str, path: str) -> str:
    return subprocess.run(["git", "show", f"{rev}:{path}"], check=True, capture_output=True, text=True).stdout


def files(rev: str, folder: str) -> list[str]:
    out = subprocess.run(["git", "ls-tree", "--name-only", f"{rev}:{folder}"], check=True, capture_output=True, text=True).stdout
    return [f"{folder}/{n}" for n in out.split()]


def literal_end(src: str, start: int) -> int:
    """The index after the bracketed literal that opens at src[start] ("{" or "("),
    skipping strings, template strings and comments."""
    pairs = {"{": "}", "(": ")", "[": "]"}
    stack: list[str] = []
    i = start
    while i < len(src):
        c = src[i]
        if c in "\"'`":
            i += 1
            while src[i] != c:
                i += 2 if src[i] == "\\" else 1
        elif src.startswith("//", i):
            i = src.index("\n", i)
        elif src.startswith("/*", i):
            i = src.index("*/", i) + 1
        elif c in pairs:
            stack.append(pairs[c])
        elif c in ")}]":
            if stack.pop() != c:
                raise ValueError(f"unbalanced {c} at {i}")
            if not stack:
                return i + 1
        i += 1
    raise ValueError("unterminated literal")


def js_values(literals: list[str]) -> list[Any]:
    """Evaluate JavaScript object literals (no references to anything) with node."""
    script = "console.log(JSON.stringify([" + ",\n".join(f"({x})" for x in literals) + "]));"
    out = subprocess.run(["node", "-e", script], check=True, capture_output=True, text=True).stdout
    return list(json.loads(out))


def is_plural(v: object) -> bool:
    return isinstance(v, dict) and "other" in v and set(v) <= set(PLURAL_TAGS)


def add(messages: Messages, key: str, lang: str, text: Any, where: str) -> None:
    key = RENAMED.get((where, key), key)
    if key in DROPPED:
        return
    have = messages.setdefault(key, {})
    if lang in have and have[lang] != text:
        raise SystemExit(f"{where}: the message {key} ({lang}) is defined twice, differently")
    have[lang] = text


def add_table(messages: Messages, tables: dict[str, dict[str, Any]], where: str, prefix: str = "") -> None:
    """Add a {lang: {key: text | plural | sub-table}} table."""
    for lang, table in tables.items():
        for key, v in table.items():
            if isinstance(v, dict) and not is_plural(v):
                for sub, text in v.items():
                    add(messages, f"{prefix}{key}.{sub}", lang, text, where)
            else:
                add(messages, prefix + key, lang, v, where)


def browser_messages(rev: str, messages: Messages) -> None:
    i18n = show(rev, f"{STATIC}/i18n.js")
    names = ("TEXTS", "BOARD_ABOUT", "EXONYMS")
    literals = []
    for name in names:
        m = re.search(rf"^const {name} = ", i18n, re.M)
        assert m, name
        literals.append(i18n[m.end() : literal_end(i18n, m.end())])
    texts, about, exonyms = js_values(literals)
    add_table(messages, texts, "i18n.js")
    # the boards' About: the English is the board file's own (its "about")
    boards = {}
    for path in files(rev, "kardinal/rules/data"):
        if path.endswith(".toml"):
            board = tomllib.loads(show(rev, path))
            if "about" in board:
                boards[board["id"]] = board["about"]
    add_table(messages, {"en": {"boardAbout": boards}} | {lang: {"boardAbout": t} for lang, t in about.items()}, "i18n.js")
    # an English page's names of the board's sites (the board's own names are German):
    # every other language says the board's name unless its catalog says otherwise
    for lang in texts:
        add_table(messages, {lang: {"exonym": exonyms if lang == "en" else {k: k for k in exonyms}}}, "i18n.js")
    for path in files(rev, STATIC):
        if not path.endswith(".js") or path.endswith("/i18n.js"):
            continue
        src = show(rev, path)
        calls = [m.end() - 1 for m in re.finditer(r"\baddStrings\(", src)]
        if calls:
            for tables in js_values([src[i + 1 : literal_end(src, i) - 1] for i in calls]):
                add_table(messages, tables, path)


def py_dicts(src: str) -> dict[str, Any]:
    """The module's top-level assignments of literal values (names of module constants
    that are literals resolved), by name."""
    consts: dict[str, Any] = {}
    for node in ast.parse(src).body:
        target, value = None, None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target, value = node.targets[0], node.value
        elif isinstance(node, ast.AnnAssign):
            target, value = node.target, node.value
        if not isinstance(target, ast.Name) or value is None:
            continue
        value = _Resolve(consts).visit(value)
        try:
            consts[target.id] = ast.literal_eval(value)
        except ValueError:
            continue
    return consts


class _Resolve(ast.NodeTransformer):
    def __init__(self, consts: dict[str, Any]) -> None:
        self.consts = consts

    def visit_Name(self, node: ast.Name) -> ast.AST:
        if node.id in self.consts:
            return ast.Constant(self.consts[node.id])
        return node


def per_lang(d: dict[str, Any], f: Any) -> dict[str, Any]:
    return {lang: f(v) for lang, v in d.items()}


def plural_pair(pair: tuple[str, str]) -> dict[str, str]:
    """("day", "days") -> a plural message "{n} day" / "{n} days"."""
    return {"one": "{n} " + pair[0], "other": "{n} " + pair[1]}


def server_messages(rev: str, messages: Messages) -> None:
    mail = py_dicts(show(rev, "kardinal/server/mail/texts.py"))
    tables: dict[str, dict[str, Any]] = {}

    def put(key: str, by_lang: dict[str, Any]) -> None:
        for lang, text in by_lang.items():
            tables.setdefault(lang, {})[key] = text

    put("mail.sign", mail["_SIGN"])
    put("mail.unsubscribe", mail["_UNSUB"])
    for lang, what in mail["WHAT"].items():
        for k, text in what.items():
            put(f"mail.what.{k}", {lang: text})
    for lang, kinds in mail["TEXTS"].items():
        for kind, (subject, body) in kinds.items():
            put(f"mail.{kind}.subject", {lang: subject})
            put(f"mail.{kind}.body", {lang: body})
    for lang, forms in mail["_RESULT"].items():
        for name, text in zip(("placed", "won", "sharedWin", "sharedPlace"), forms, strict=True):
            put(f"mail.result.{name}", {lang: text})
    put("mail.and", mail["_AND"])
    put("mail.date", mail["_DATE"])
    put("mail.begun", mail["_BEGUN"])
    for lang, units in mail["_UNITS"].items():
        for name, pair in zip(("days", "hours", "minutes"), units, strict=True):
            put(f"mail.left.{name}", {lang: plural_pair(pair)})
    put("mail.left.join", mail["_JOIN"])
    put("mail.deadline", mail["_DEADLINE"])
    for lang, how in mail["_HOW"].items():
        for k, text in how.items():
            put(f"mail.how.{k}", {lang: text})
    for lang, units in mail["_HOW_UNITS"].items():
        for k, pair in units.items():
            put(f"mail.how.{k}", {lang: plural_pair(pair)})
    for lang, kinds in mail["_KIND"].items():
        for k, text in kinds.items():
            put(f"mail.kind.{k}", {lang: text})
    names = py_dicts(show(rev, "kardinal/server/common/names.py"))
    put("deletedPlayer", names["DELETED_WORD"])
    put("player", names["SEAT_WORD"])
    tutorial = py_dicts(show(rev, "kardinal/server/play/tutorial.py"))
    put("tutorial.placeFirst", tutorial["PLACE_FIRST"])
    put("tutorial.exchangeFirst", tutorial["EXCHANGE_FIRST"])
    rules = py_dicts(show(rev, "kardinal/server/web/rules_page.py"))
    for lang, labels in rules["_LABELS"].items():
        for k, text in labels.items():
            if k != "other":  # the name of the other language: the language choice now
                put(f"rulesPage.{k}", {lang: text})
    add_table(messages, tables, "server")


HEADER = """\
# The words of Kardinal & König in one language: every text a player or a mail reader
# sees. msgctxt is the text's key (the code's name for it), msgid the English.
# How to add a language: docs/develop/languages.md."""
WHEN = datetime(2026, 11, 28, tzinfo=UTC)


def add_ordinals(messages: Messages) -> None:
    """The mails' ordinals by the language's ordinal categories (CLDR, through Babel), which
    the old code wrote by hand: English "1st 2nd 3rd 4th", German "1.". Every language but
    English is given the German form ("{n}.", as Danish writes it too): change it in the
    catalog for a language that writes ordinals otherwise."""
    english = {"one": "{n}st", "two": "{n}nd", "few": "{n}rd", "other": "{n}th"}
    for lang in {lang for texts in messages.values() for lang in texts}:
        for cat, en in english.items():
            add(messages, f"mail.ordinal.{cat}", lang, en if lang == "en" else "{n}.", "ordinals")


def unconverted(rev: str) -> list[str]:
    """Dicts of words by language in the revision's Python that this tool does not read
    (a table a branch added): the lead moves them into the catalogs by hand."""
    read = {
        "kardinal/server/mail/texts.py",
        "kardinal/server/common/names.py",
        "kardinal/server/play/tutorial.py",
        "kardinal/server/web/rules_page.py",
    }
    out = subprocess.run(["git", "ls-tree", "-r", "--name-only", rev, "kardinal"], check=True, capture_output=True, text=True).stdout
    found = []
    for path in out.split():
        if not path.endswith(".py") or path in read:
            continue
        for node in ast.walk(ast.parse(show(rev, path))):
            if isinstance(node, ast.Dict):
                keys = {k.value for k in node.keys if isinstance(k, ast.Constant)}
                if "en" in keys and len([k for k in keys if isinstance(k, str) and len(k) == 2]) > 1:
                    found.append(f"{path}:{node.lineno}")
    return found


def catalogs(messages: Messages) -> dict[str, Catalog]:
    langs = sorted({lang for texts in messages.values() for lang in texts}, key=lambda x: (x != "en", x))
    out = {}
    for lang in langs:
        cat = Catalog(
            locale=lang,
            header_comment=HEADER,
            project="Kardinal",
            version="1",
            creation_date=WHEN,
            revision_date=WHEN,
            last_translator="Kardinal",
            language_team=lang,
            msgid_bugs_address="",
            fuzzy=False,
        )
        for key in sorted(messages):
            texts = messages[key]
            en, own = texts.get("en"), texts.get(lang)
            if en is None:
                raise SystemExit(f"the message {key} has no English")
            if is_plural(en):
                ids = (en.get("one", en["other"]), en["other"])
                forms = plural_forms(lang, own, cat.num_plurals)
                cat.add(ids, forms, context=key)
            else:
                cat.add(en, own if isinstance(own, str) else "", context=key)
        out[lang] = cat
    return out


def plural_forms(lang: str, own: dict[str, str] | None, n: int) -> tuple[str, ...]:
    """The msgstr forms in the order of Plural-Forms (CLDR categories in the order zero,
    one, two, few, many, other: kardinal/server/common/catalog.py)."""
    if not own:
        return ("",) * n
    from babel import Locale

    tags = [t for t in PLURAL_TAGS if t in Locale.parse(lang).plural_form.tags | {"other"}]
    if len(tags) != n:
        raise SystemExit(f"{lang}: {len(tags)} plural categories, but Plural-Forms says {n}")
    return tuple(own.get(t, own["other"]) for t in tags)


def main() -> None:
    rev = sys.argv[1]
    out = Path(sys.argv[2] if len(sys.argv) > 2 else "kardinal/locale")
    messages: Messages = {}
    browser_messages(rev, messages)
    server_messages(rev, messages)
    add_ordinals(messages)
    for lang in {lang for texts in messages.values() for lang in texts} & set(ADDED):
        add_table(messages, {lang: ADDED[lang]}, "new")
    out.mkdir(parents=True, exist_ok=True)
    for lang, cat in catalogs(messages).items():
        with (out / f"{lang}.po").open("wb") as f:
            write_po(f, cat, width=0)
        if lang == "en":  # the template a new language starts from: the English, untranslated
            template = Catalog(
                header_comment=HEADER, project="Kardinal", version="1", creation_date=WHEN, msgid_bugs_address="", fuzzy=False
            )
            for m in cat:
                if m.id:
                    template.add(m.id, ("",) * 2 if isinstance(m.id, tuple) else "", context=m.context)
            with (out / "kardinal.pot").open("wb") as f:
                write_po(f, template, width=0)
        missing = [k for k, t in messages.items() if lang not in t]
        print(f"{lang}: {len(cat)} messages" + (f", {len(missing)} without a translation: {missing[:8]}" if missing else ""))
    for where in unconverted(rev):
        print(f"not converted (words by language this tool does not read): {where}")


if __name__ == "__main__":
    main()
