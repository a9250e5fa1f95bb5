"""The documentation inside the repository: docs/rules.md defines every rule the code and
the tests cite, each in English and in German; nothing points outside the repository;
the browser serves the rules in both languages from that one text."""

from __future__ import annotations

import html
import re
from collections.abc import Iterator
from pathlib import Path

import pytest
from web_helpers import make_client

from kardinal.server.web import rules_page

ROOT = Path(__file__).resolve().parents[1]
RULES_MD = ROOT / "docs" / "rules.md"

RULE_REF = re.compile(r"\bR\d+(?:\.\d+)?\b")
HEADING = re.compile(r"^## (R\d+) (.+?) · (.+?) · (.+)$")
EN_RULE = re.compile(r"^\*\*(R\d+\.\d+)\*\* ")
DE_RULE = re.compile(r"^> \*\*(DE|DA)\*\* \*\*(R\d+\.\d+)\*\* ")
SOURCE_TAG = re.compile(r"\[([A-Z]{2})\](?!\()")
GERMAN_WORDS = re.compile(r"\b(der|die|das|und|ein|eine|nicht|wird|Karte|Karten)\b")
DANISH_WORDS = re.compile(r"\b(og|ikke|en|et|kort|brik|brikker|kloster|klostre|spilleren|med|eller)\b")


def paragraphs(text: str) -> Iterator[list[str]]:
    """The blocks of a Markdown text: runs of non-blank lines (a quote's ``>`` lines too)."""
    block: list[str] = []
    for line in text.splitlines():
        if line.strip():
            block.append(line)
        elif block:
            yield block
            block = []
    if block:
        yield block


def rules_in(text: str) -> tuple[dict[str, dict[str, str]], list[str]]:
    """Every rule the text defines, read plainly (not with the page's code): number ->
    {"en": ..., "de": ..., "da": ...}; and what is wrong (a rule defined twice in one language)."""
    rules: dict[str, dict[str, str]] = {}
    wrong = []
    for block in paragraphs(text):
        first = block[0]
        if m := HEADING.match(first):
            number, parts = m.group(1), {"en": m.group(2), "de": m.group(3), "da": m.group(4)}
        elif m := EN_RULE.match(first):
            number, parts = m.group(1), {"en": " ".join(block)}
        elif m := DE_RULE.match(first):
            quoted = " ".join(re.sub(r"^>\s?", "", line) for line in block)
            lang = m.group(1).lower()
            number, parts = m.group(2), {lang: quoted.removeprefix(f"**{m.group(1)}** ")}
        else:
            continue
        entry = rules.setdefault(number, {})
        for lang, words in parts.items():
            if lang in entry:
                wrong.append(f"{number} is defined twice in {lang}")
            entry[lang] = words
    return rules, wrong


def citations(path: Path) -> Iterator[tuple[int, str]]:
    """(line number, rule number) of every rule a file cites."""
    for i, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
        for number in citations_in(line):
            yield i, number


def citations_in(text: str) -> Iterator[str]:
    return (m.group() for m in RULE_REF.finditer(text))


def cited_files() -> list[Path]:
    files = [ROOT / "README.md", *sorted((ROOT / "tests").glob("*.py")), *sorted((ROOT / "docs").glob("*.md"))]
    for ext in ("py", "js", "html"):
        files += sorted((ROOT / "kardinal").rglob(f"*.{ext}"))
    return files


def outside_pointers(text: str) -> list[str]:
    """Lines that point to the project's working folder outside the repository."""
    return [line.strip() for line in text.splitlines() if "../shared" in line or "shared/" in line]


def plain(markdown: str) -> str:
    """Markdown as the reader sees it: no emphasis marks, links as their text, spaces collapsed."""
    s = re.sub(r"\[([^\]]+)\]\([^)]*\)", r"\1", markdown)
    s = re.sub(r"\[([A-Z]{2})\]", r"\1", s)
    s = s.replace("**", "").replace("`", "")
    s = re.sub(r"(?<!\w)\*|\*(?!\w)", "", s)
    return " ".join(s.split())


def page_text(page: str) -> str:
    """A page's text as the reader sees it (blocks are on lines of their own)."""
    return " ".join(html.unescape(re.sub(r"<[^>]+>", "", page)).split())


RULES, WRONG = rules_in(RULES_MD.read_text(encoding="utf-8"))


# -- docs/rules.md ----------------------------------------------------------------------


def test_rules_md_numbers_R1_to_R14_and_their_parts_in_order() -> None:
    assert WRONG == []
    text = RULES_MD.read_text(encoding="utf-8")
    order = [m.group(1) for block in paragraphs(text) if (m := HEADING.match(block[0]) or EN_RULE.match(block[0]))]
    tops = [r for r in order if "." not in r]
    assert tops == [f"R{n}" for n in range(1, 15)]
    # the parts of each rule follow its heading, numbered 1, 2, 3, ... without a gap
    current, expected = "", 1
    for r in order:
        if "." not in r:
            current, expected = r, 1
            continue
        assert r == f"{current}.{expected}", f"{r} after {current}.{expected - 1}"
        expected += 1
    assert {"R4.3", "R4.10", "R11.3", "R14.1", "R14.2"} <= set(RULES)


def test_every_rule_has_its_english_its_german_and_its_danish_wording() -> None:
    assert len(RULES) > 50
    for number, words in RULES.items():
        assert set(words) == {"en", "de", "da"}, f"{number}: only {sorted(words)}"
        en, de, da = words["en"], words["de"], words["da"]
        assert en.strip() and de.strip() and da.strip() and len({en, de, da}) == 3, number
        assert GERMAN_WORDS.search(de) or "." not in number, f"{number}: the German wording does not read as German: {de!r}"
        assert DANISH_WORDS.search(da) or "." not in number, f"{number}: the Danish wording does not read as Danish: {da!r}"
        # the three say the same: the same sources, the same decisions, the same rules cited
        for other, decision in ((de, "**Entscheidung"), (da, "**Afgørelse")):
            assert set(SOURCE_TAG.findall(en)) == set(SOURCE_TAG.findall(other)), number
            assert en.count("**Decision") == other.count(decision), number
            assert set(RULE_REF.findall(en)) == set(RULE_REF.findall(other)), number


def test_the_joker_rule_is_the_german_rulebook_s_and_the_danish_reading_a_variant() -> None:
    en, de = RULES["R4.3"]["en"], RULES["R4.3"]["de"]
    assert "other than the countries printed on those cards" in en
    assert "in ein beliebiges anderes Land" in en and "in ein beliebiges anderes Land" in de
    assert "joker-anywhere" in en and "joker-anywhere" in de
    assert "joker-anywhere" in RULES["R14.1"]["en"] and "Danish" in RULES["R14.1"]["en"]


def test_the_danish_wording_shows_the_standard_joker_and_names_the_danish_reading_as_the_variant() -> None:
    """The Danish rulebook reads R4.3 as the variant joker-anywhere; the Danish page keeps
    the German original's rule and says so."""
    da = RULES["R4.3"]["da"]
    assert "ud over de lande, der står på disse kort" in da and "in ein beliebiges anderes Land" in da
    assert "Det danske regelhæfte læser R4.3 anderledes" in da and "dette kan også være i Frankrig" in da
    assert "`joker-anywhere` (R14.1), som et bord kan vælge" in da
    assert "joker-anywhere" in RULES["R14.1"]["da"] and "danske regelhæftes" in RULES["R14.1"]["da"]


def test_the_two_language_format_holds_for_the_page() -> None:
    text = RULES_MD.read_text(encoding="utf-8")
    assert rules_page.problems(text) == []
    en, de, da = (rules_page.in_language(text, lang) for lang in ("en", "de", "da"))
    assert "**DE**" not in en.replace("marked **DE**", "") and "Zwei Karten derselben Sorte" not in en
    assert "**DA**" not in en and "To kort af samme slags" not in en
    assert "Two cards of the same kind" not in de and "> " not in de and "To kort af samme slags" not in de
    assert "Two cards of the same kind" not in da and "> " not in da and "Zwei Karten derselben Sorte" not in da
    for number in RULES:
        assert number in en and number in de and number in da


def test_every_rule_cited_in_the_code_and_tests_is_defined_in_rules_md() -> None:
    undefined = []
    count = 0
    for path in cited_files():
        for line, number in citations(path):
            count += 1
            if number not in RULES:
                undefined.append(f"{path.relative_to(ROOT)}:{line}: {number}")
    assert count > 300, "the scan found too few citations: is it reading the right files?"
    assert undefined == []


def test_nothing_points_outside_the_repository() -> None:
    files = [ROOT / "README.md", ROOT / "Makefile", ROOT / "pyproject.toml"]
    for folder in ("kardinal", "tests", "docs"):
        # (not the npm packages make test installs: other projects' files, their own paths)
        files += [p for p in sorted((ROOT / folder).rglob("*")) if p.is_file() and not {"__pycache__", "node_modules"} & set(p.parts)]
    found = []
    for path in files:
        if path.resolve() == Path(__file__).resolve():
            continue
        try:
            text = path.read_text(encoding="utf-8")
        except UnicodeDecodeError:
            continue  # binary test data
        found += [f"{path.relative_to(ROOT)}: {line}" for line in outside_pointers(text)]
    assert len(files) > 50
    assert found == []


def test_the_checks_find_what_they_look_for() -> None:
    """The checks above fail on a broken text, so their passing means something."""
    nowhere = "R" + "9.9"  # not written out: the scan of this file would find it
    broken = f"## R1 Material · Spielmaterial · Materiale\n\n**R1.1** Cards, see {nowhere}. [RB]\n\n**R1.2** Pieces.\n\n> **DE** **R1.2** Steine.\n\n> **DA** **R1.2** Brikker.\n"
    rules, wrong = rules_in(broken)
    assert set(rules["R1.1"]) == {"en"} and wrong == []
    assert (
        nowhere not in rules
        and list(citations_in(broken)) == ["R1", "R1.1", nowhere, "R1.2", "R1.2", "R1.2"]
        and set(rules["R1.2"]) == {"en", "de", "da"}
    )
    assert rules_page.problems(broken) == [
        "line 3: English text without its German wording (a '> **DE**' block) right after it",
    ]
    assert rules_page.problems("## R1 Material · Spielmaterial\n\nText.\n\n> **DE** Text.\n\n> **DA** Tekst.\n")[0].startswith(
        "line 1: a heading needs the three titles"
    )
    assert rules_page.problems("## A · B · C\n\nText.\n\n> **DE** Text.\n\nMore.\n") == [
        "line 5: German text without its Danish wording (a '> **DA**' block) right after it",
        "line 7: English text without its German wording (a '> **DE**' block) right after it",
    ]
    assert rules_page.problems("## A · B · C\n\n> **DA** Tekst.\n") == ["line 3: Danish text without German text right before it"]
    assert outside_pointers("see `../shared/RULES.md`\nthe shared/ folder\none shared tree") == [
        "see `../shared/RULES.md`",
        "the shared/ folder",
    ]
    assert rules_in(broken + "\n**R1.2** Again.\n")[1] == ["R1.2 is defined twice in en"]


# -- the rules page ---------------------------------------------------------------------


@pytest.fixture(scope="module")
def pages(tmp_path_factory: pytest.TempPathFactory) -> dict[str, str]:
    with make_client(tmp_path_factory.mktemp("docs")) as client:
        out = {}
        for key, url, headers in (
            ("en", "/rules", {}),
            ("de", "/rules?lang=de", {}),
            ("en?", "/rules?lang=en", {"Accept-Language": "de"}),
            ("de-browser", "/rules", {"Accept-Language": "de-AT,de;q=0.9,en;q=0.5"}),
            ("da", "/rules?lang=da", {}),
            ("da-browser", "/rules", {"Accept-Language": "da-DK,da;q=0.9,en;q=0.5"}),
            ("lobby", "/", {}),
            ("game", "/game/nothing", {}),
        ):
            r = client.get(url, headers=headers)
            assert r.status_code == 200, (url, r.text)
            out[key] = r.text
            if key in ("en", "de", "da"):
                assert r.headers["content-type"].startswith("text/html")
                assert r.headers["content-language"] == key
        return out


def test_the_rules_page_in_english(pages: dict[str, str]) -> None:
    page = pages["en"]
    text = page_text(page)
    assert '<html lang="en">' in page and 'id="R4.3"' in page
    assert "other than the countries printed on those cards" in text
    assert "Zwei Karten derselben Sorte" not in text
    for number, words in RULES.items():
        assert f'id="{number}"' in page, number
        assert plain(words["en"])[:70] in text, number
        assert plain(words["de"])[:70] not in text, number
    assert pages["en?"] == page  # ?lang= wins over the browser's language


def test_the_rules_page_in_german(pages: dict[str, str]) -> None:
    page = pages["de"]
    text = page_text(page)
    assert '<html lang="de">' in page and 'id="R4.3"' in page
    assert "außer den Ländern, die auf diesen Karten stehen" in text
    assert "„in ein beliebiges anderes Land“" in text
    assert "other than the countries printed on those cards" not in text
    for number, words in RULES.items():
        assert f'id="{number}"' in page, number
        assert plain(words["de"])[:70] in text, number
        assert plain(words["en"])[:70] not in text, number
    assert pages["de-browser"] == page  # no ?lang=: the browser's language
    assert 'href="/rules?lang=en"' in page and 'href="/rules?lang=da"' in page


def test_the_rules_page_in_danish(pages: dict[str, str]) -> None:
    """The Danish page: the Danish wording of every rule and no other, its chrome in Danish,
    and R4.3 as the standard rule, with the Danish rulebook's reading named as the variant."""
    page = pages["da"]
    text = page_text(page)
    assert '<html lang="da">' in page and 'id="R4.3"' in page
    assert "<title>Spilleregler — Kardinal &amp; König</title>" in page and ">Indhold</h2>" in page
    assert "Hjælp (på engelsk)" in text
    assert 'href="/rules?lang=en"' in page and 'href="/rules?lang=de"' in page
    assert "ud over de lande, der står på disse kort" in text
    assert "Det danske regelhæfte læser R4.3 anderledes" in text and "joker-anywhere" in text
    assert "other than the countries printed on those cards" not in text and "außer den Ländern" not in text
    for number, words in RULES.items():
        assert f'id="{number}"' in page, number
        assert plain(words["da"])[:70] in text, number
        assert plain(words["en"])[:70] not in text and plain(words["de"])[:70] not in text, number
    assert pages["da-browser"] == page  # no ?lang=: the browser's language (Accept-Language: da)
    # the words-and-names table keeps the three languages, each column marked with its own
    assert '<th lang="en">English</th>' in page and '<th lang="de">Deutsch</th>' in page and "<th>Dansk</th>" in page


def test_what_the_file_says_of_itself_is_not_on_the_page(pages: dict[str, str]) -> None:
    """ "How to read this file" is for the file's readers: the rules page, in either
    language, shows the rules without it (the third new-user walk found it on the German
    page); the file still says it."""
    text = RULES_MD.read_text(encoding="utf-8")
    assert "**How to read this file.**" in text and "**So ist diese Datei zu lesen.**" in text and "**Sådan læses denne fil.**" in text
    for key in ("en", "de", "da"):
        shown = page_text(pages[key])
        assert "How to read this file" not in shown and "So ist diese Datei zu lesen" not in shown, key
        assert "Sådan læses denne fil" not in shown, key
        assert "docs/rules.md" not in shown and "board.md" not in shown, key  # (a file's name is no word for a player)
    # the mark drops the one block after it and its German wording, nothing else
    marked = (
        "## A · B · C\n\n<!-- file only -->\n\nAbout the file.\n\n> **DE** Über die Datei.\n\n> **DA** Om filen.\n\n"
        "Kept.\n\n> **DE** Bleibt.\n\n> **DA** Bliver.\n"
    )
    assert rules_page.problems(marked) == []
    assert [x for x in rules_page.in_language(marked, "de").split("\n") if x.strip()] == ["## B", "Bleibt."]
    assert [x for x in rules_page.in_language(marked, "en").split("\n") if x.strip()] == ["## A", "Kept."]
    assert [x for x in rules_page.in_language(marked, "da").split("\n") if x.strip()] == ["## C", "Bliver."]


def test_the_lobby_and_the_game_page_link_to_the_rules(pages: dict[str, str]) -> None:
    for key in ("lobby", "game"):
        assert 'id="rules-link"' in pages[key] and 'href="/rules"' in pages[key]
        assert "/static/rules-link.js" in pages[key]


def test_the_page_reads_the_one_text_of_the_repository() -> None:
    """The package's static/rules.md is docs/rules.md itself (a link in a checkout, a
    copy of it in a wheel), never a second text to keep in step."""
    assert rules_page.rules_text() == RULES_MD.read_text(encoding="utf-8")
    packaged = ROOT / "kardinal" / "clients" / "web" / "static" / "rules.md"
    assert packaged.resolve() == RULES_MD.resolve()
