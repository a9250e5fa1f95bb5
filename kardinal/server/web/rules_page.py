"""The rules page: ``docs/rules.md``, one text in English, German and Danish, served as HTML.

The format of ``docs/rules.md`` (:func:`problems` checks it, and so does
``tests/test_docs.py``):

- every heading carries the three titles, English, German, Danish: ``## R4 Playing cards …
  · Karten ausspielen … · Udspil af kort …`` (a rule number in front belongs to all);
- every English block (a paragraph, a list) is followed right away by its German
  wording, a quoted block whose first line begins with ``> **DE**``, and then by its
  Danish wording, a quoted block beginning ``> **DA**``;
- a table is shared by the languages; it follows a heading or a Danish block;
- a rule is defined by a heading ``## R4 …`` or by a paragraph that begins ``**R4.3**``.

:func:`in_language` cuts the one text into one language (still Markdown); :func:`render`
turns that into HTML with markdown-it-py: an anchor on every rule (``/rules#R4.3``), rule
numbers in the text linked to their rule, and links to other files of the repository
dropped (they are not pages of this server).
"""

from __future__ import annotations

import html
import re
from dataclasses import dataclass
from functools import lru_cache
from importlib import resources
from pathlib import Path
from string import Template

from fastapi.responses import HTMLResponse
from markdown_it import MarkdownIt
from markdown_it.token import Token

from ..common import catalog
from .pages import html_page, page_text

__all__ = ["LANGS", "problems", "in_language", "render", "rules_text", "pick_lang", "rules_response"]

LANGS = ("en", "de", "da")

# Where docs/rules.md is found. It is a file of the repository, outside the package, and
# the package reaches it in two ways, tried in this order:
# 1. static/rules.md is a symbolic link to ../../../../docs/rules.md. In a checkout (and in
#    the editable install that `make run` makes) it reads the file itself; when a wheel is
#    built, setuptools copies the link's target into the wheel along with the other
#    static files (package data "clients/web/static/*"), so an installed package carries
#    the same text. One text, no copy to keep in step.
# 2. docs/rules.md beside the package directory: a checkout where git could not make the
#    link (on Windows without symlinks git writes a one-line file holding the path).
_PACKAGED = ("static", "rules.md")
_CHECKOUT = Path(__file__).resolve().parents[3] / "docs" / "rules.md"

_MD = MarkdownIt("commonmark").enable("table")

_HEADING = re.compile(r"^(#{1,6}[ \t]+)(R\d+[ \t]+)?(.+?)[ \t]+·[ \t]+(.+?)[ \t]+·[ \t]+(.+?)[ \t]*$")
_MARKS = {lang: re.compile(rf"^>[ \t]?\*\*{lang.upper()}\*\*[ \t]*") for lang in LANGS[1:]}  # "> **DE**", "> **DA**"
_RULE_START = re.compile(r"^R\d+(\.\d+)?$")
_RULE_REF = re.compile(r"\bR\d+(?:\.\d+)?\b")
_SOURCE_TAG = re.compile(r"^[A-Z]{2}$")
# a line "<!-- file only -->" before an English block: that block and its German wording
# are about the file itself (how to read it), for its readers, not the rules page's
_FILE_ONLY = re.compile(r"^<!--[ \t]*file only[ \t]*-->[ \t]*$")


@dataclass(frozen=True)
class _Block:
    kind: str  # "heading", "en", "de", "da", "both" or "file" (the mark "<!-- file only -->")
    start: int  # first line (0-based)
    end: int  # line after the last


def _blocks(lines: list[str]) -> list[_Block]:
    """The top-level blocks of the text, each with its lines and its language."""
    out = []
    for tok in _MD.parse("\n".join(lines)):
        if tok.level != 0 or tok.nesting < 0 or tok.map is None:
            continue
        start, end = tok.map
        if tok.type == "heading_open":
            kind = "heading"
        elif tok.type == "blockquote_open" and (lang := next((x for x, m in _MARKS.items() if m.match(lines[start])), None)):
            kind = lang
        elif tok.type == "table_open":
            kind = "both"
        elif tok.type == "html_block" and _FILE_ONLY.match(lines[start]):
            kind = "file"
        else:
            kind = "en"
        out.append(_Block(kind, start, end))
    return out


_WORDING = {"de": "German", "da": "Danish"}


def _missing(block: _Block, lang: str) -> str:
    before = "English" if lang == "de" else "German"
    return f"line {block.start + 1}: {before} text without its {_WORDING[lang]} wording (a '> **{lang.upper()}**' block) right after it"


def problems(text: str) -> list[str]:
    """What breaks the three-language format, one message per problem (empty: none)."""
    lines = text.splitlines()
    found = []
    pending: tuple[_Block, str] | None = None  # a block waiting for the next language's wording, and that language
    for b in _blocks(lines):
        if pending is not None and b.kind != pending[1]:
            found.append(_missing(*pending))
            pending = None
        if b.kind == "file":
            continue
        if b.kind == "heading" and not _HEADING.match(lines[b.start]):
            found.append(f"line {b.start + 1}: a heading needs the three titles, 'English · Deutsch · Dansk': {lines[b.start]!r}")
        elif b.kind in _MARKS:
            if pending is None:
                before = "English" if b.kind == "de" else "German"
                found.append(f"line {b.start + 1}: {_WORDING[b.kind]} text without {before} text right before it")
            bad = [i + 1 for i in range(b.start, b.end) if not lines[i].startswith(">")]
            if bad:
                found.append(f"line {b.start + 1}: every line of a {_WORDING[b.kind]} block starts with '>' (not line {bad[0]})")
            pending = (b, "da") if b.kind == "de" and pending is not None else None
        elif b.kind == "en":
            pending = (b, "de")
    if pending is not None:
        found.append(_missing(*pending))
    return found


def _slug(title: str) -> str:
    """The anchor GitHub gives a heading, so that links work there and here alike."""
    return re.sub(r"[^\w\- ]", "", title.strip().lower()).replace(" ", "-")


def _split(text: str, lang: str) -> tuple[str, list[str]]:
    """The text in one language, and the anchor of each of its headings in order."""
    if lang not in LANGS:
        raise ValueError(f"unknown language {lang!r}")
    found = problems(text)
    if found:
        raise ValueError("docs/rules.md: " + "; ".join(found))
    lines = text.splitlines()
    out = list(lines)
    anchors = []
    dropped = 0  # blocks still to drop after a "file only" mark: the English one and its German and Danish
    for b in _blocks(lines):
        if b.kind == "file" or (dropped and b.kind in LANGS):
            dropped = len(LANGS) if b.kind == "file" else dropped - 1
            out[b.start : b.end] = [""] * (b.end - b.start)
        elif b.kind == "heading":
            m = _HEADING.match(lines[b.start])
            assert m is not None  # problems() checked it
            hashes, number, *titles = m.groups()
            anchors.append(number.strip() if number else _slug(lines[b.start].lstrip("#")))
            out[b.start] = hashes + (number or "") + titles[LANGS.index(lang)]
        elif b.kind in LANGS and b.kind != lang:
            out[b.start : b.end] = [""] * (b.end - b.start)
        elif b.kind in _MARKS:
            unquoted = [re.sub(r"^>[ \t]?", "", line) for line in lines[b.start : b.end]]
            unquoted[0] = _MARKS[b.kind].sub("", lines[b.start])
            out[b.start : b.end] = unquoted
    return "\n".join(out) + "\n", anchors


def in_language(text: str, lang: str) -> str:
    """The rules in one language ("en", "de" or "da"), as Markdown."""
    return _split(text, lang)[0]


def _linked(children: list[Token], known: set[str]) -> list[Token]:
    """Inline tokens with every known rule number made a link to its rule."""
    out: list[Token] = []
    in_link = 0
    for t in children:
        in_link += 1 if t.type == "link_open" else -1 if t.type == "link_close" else 0
        if t.type != "text" or in_link:
            out.append(t)
            continue
        pos = 0
        for m in _RULE_REF.finditer(t.content):
            if m.group() not in known:
                continue
            if m.start() > pos:
                out.append(Token("text", "", 0, content=t.content[pos : m.start()]))
            out.append(Token("link_open", "a", 1, attrs={"href": "#" + m.group(), "class": "rule-ref"}))
            out.append(Token("text", "", 0, content=m.group()))
            out.append(Token("link_close", "a", -1))
            pos = m.end()
        if pos == 0:
            out.append(t)
        elif pos < len(t.content):
            out.append(Token("text", "", 0, content=t.content[pos:]))
    return out


def _unlinked(children: list[Token]) -> list[Token]:
    """Inline tokens without links to files (``board.md``: no such page here), and with a
    class on the source tags (``[RB]``)."""
    out: list[Token] = []
    dropped = 0
    for i, t in enumerate(children):
        if t.type == "link_open":
            href = str(t.attrGet("href") or "")
            if not href.startswith(("#", "/", "http://", "https://")):
                dropped += 1
                continue
            label = children[i + 1].content if i + 1 < len(children) else ""
            if href == _SOURCES and _SOURCE_TAG.match(label):
                t.attrSet("class", "src")
        elif t.type == "link_close" and dropped:
            dropped -= 1  # links do not nest: this closes the dropped one
            continue
        out.append(t)
    return out


_SOURCES = "#sources--quellen--kilder"  # the anchor of the section "Sources" (the source tags [RB] link to it)


def _lead_rule(inline: Token) -> str | None:
    """The rule a paragraph defines: the number in bold it begins with (``**R4.3**``)."""
    kids = [k for k in inline.children or [] if not (k.type == "text" and not k.content)]
    if len(kids) >= 3 and kids[0].type == "strong_open" and kids[2].type == "strong_close" and _RULE_START.match(kids[1].content):
        return kids[1].content
    return None


def render(text: str, lang: str) -> tuple[str, list[tuple[str, str]]]:
    """The rules in one language as HTML, and the table of contents: (anchor, title) of
    each section."""
    md, anchors = _split(text, lang)
    env: dict[str, object] = {}
    tokens = _MD.parse(md, env)
    headings = iter(anchors)
    known = set(anchors) | {r for i, t in enumerate(tokens) if t.type == "paragraph_open" and (r := _lead_rule(tokens[i + 1]))}
    toc = []
    columns: list[str | None] = []  # a table's language per column: headed "English", "Deutsch", "Dansk" (the words and names)
    column = 0
    for i, t in enumerate(tokens):
        inline = tokens[i + 1] if i + 1 < len(tokens) else None
        if t.type == "table_open":
            heads = [
                x.content.strip()
                for x in tokens[i : next(j for j in range(i, len(tokens)) if tokens[j].type == "thead_close")]
                if x.type == "inline"
            ]
            names = {catalog.languages()[code].name: code for code in LANGS}  # a column headed by its language's own name
            columns = [names.get(h) for h in heads]
        elif t.type == "tr_open":
            column = 0
        elif t.type in ("th_open", "td_open"):
            own = columns[column] if column < len(columns) else None
            if own and own != lang:
                t.attrSet("lang", own)  # English words on a German page, said as English
            column += 1
        if t.type == "heading_open" and inline is not None:
            anchor = next(headings)
            t.attrSet("id", anchor)
            if t.tag == "h2":
                toc.append((anchor, inline.content))
        elif t.type == "paragraph_open" and inline is not None and (rule := _lead_rule(inline)):
            t.attrSet("id", rule)
            t.attrSet("class", "rule")
        if t.type == "inline" and t.children:
            for k in t.children:  # a link's title in the languages ("English · Deutsch · Dansk"): one of them
                title = k.attrGet("title") if k.type == "link_open" else None
                if isinstance(title, str) and " · " in title:
                    titles = title.split(" · ")
                    k.attrSet("title", titles[LANGS.index(lang)] if len(titles) == len(LANGS) else titles[0])
            kids = _unlinked(t.children)
            t.children = kids if tokens[i - 1].type == "heading_open" else _linked(kids, known)
    return _MD.renderer.render(tokens, _MD.options, env), toc


def rules_text() -> str:
    """docs/rules.md, from the package or the checkout (see the comment at the top)."""
    packaged = resources.files("kardinal.clients.web").joinpath(*_PACKAGED)
    if packaged.is_file():
        text = packaged.read_text(encoding="utf-8")
        if text.startswith("#"):
            return text
    return _CHECKOUT.read_text(encoding="utf-8")


def pick_lang(query: str | None, accept_language: str | None) -> str:
    """The page's language: ``?lang=`` if it is one we have, else the browser's
    preference among ours (Accept-Language), else English.

    >>> pick_lang("de", "en"), pick_lang(None, "fr-CH, de;q=0.8, en;q=0.5"), pick_lang("xx", None), pick_lang(None, "da-DK,da;q=0.9")
    ('de', 'de', 'en', 'da')
    """
    if query in LANGS:
        return query
    best, best_q = "en", 0.0
    for part in (accept_language or "").split(","):
        tag, _, params = part.strip().partition(";")
        q = 1.0
        m = re.search(r"q=([0-9.]+)", params)
        if m:
            try:
                q = float(m.group(1))
            except ValueError:
                q = 0.0
        primary = tag.strip().lower().split("-")[0]
        if primary in LANGS and q > best_q:
            best, best_q = primary, q
    return best


def _template() -> Template:
    return Template(page_text("rules.html"))


@lru_cache(maxsize=8)
def _page(text: str, lang: str) -> str:
    body, toc = render(text, lang)
    others = "".join(
        f'<a class="rules-link" href="/rules?lang={o}" hreflang="{o}" lang="{o}">{html.escape(catalog.languages()[o].name)}</a>'
        for o in LANGS
        if o != lang and o in catalog.languages()
    )
    items = []
    for anchor, title in toc:
        number, _, rest = title.partition(" ")
        label = (
            f'<span class="toc-no">{html.escape(number)}</span> <span class="toc-title">{html.escape(rest)}</span>'
            if number == anchor
            else html.escape(title)
        )
        items.append(f'<li><a href="#{html.escape(anchor)}">{label}</a></li>')
    toc_html = "".join(items)
    return _template().substitute(
        lang=lang,
        title=html.escape(catalog.text(lang, "rulesPage.title")),
        toc_label=html.escape(catalog.text(lang, "rulesPage.toc")),
        toc=f"<ol>{toc_html}</ol>",
        body=body,
        other_links=others,
        help_label=html.escape(catalog.text(lang, "rulesPage.help")),
    )


def rules_response(query_lang: str | None, accept_language: str | None, root: str = "") -> HTMLResponse:
    """The rules page, rendered from docs/rules.md as it is now (so an edit shows at once)."""
    lang = pick_lang(query_lang, accept_language)
    try:
        text = rules_text()
    except OSError:
        return HTMLResponse("<!doctype html><title>Kardinal</title><p>docs/rules.md is not installed.</p>", status_code=404)
    headers = {"Content-Language": lang}
    if query_lang not in LANGS:
        headers["Vary"] = "Accept-Language"
    return HTMLResponse(html_page(_page(text, lang), root), headers=headers)
