"""The pages' shared parts written once (static/parts.html): the head's common lines, the
header and the About dialog are put into each page by the server (pages.py) when it serves
it, so the HTML has them before any script runs, and no page file repeats them."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from web_helpers import make_client

import kardinal.clients.web as web
from kardinal.server.web.app import create_app

STATIC = Path(web.__file__).parent / "static"

# each page's address and the items its header has (the page's own link marked current)
PAGES = {
    "/": ["home", "rules-link", "tutorial-link", "mine-link", "players-link", "account-link", "signup-link", "install", "lang", "about-btn"],
    "/mine": ["lobby-link", "rules-link", "tutorial-link", "account-link", "install", "lang", "about-btn"],
    "/account": ["lobby-link", "rules-link", "mine-link", "players-link", "account-link*", "lang", "about-btn"],
    "/game/g1": ["lobby-link", "status", "rules-info", "rules-link", "mine-link", "lang", "about-btn"],
    "/players": ["lobby-link", "mine-link", "players-link*", "account-link", "lang", "about-btn"],
    "/player/anna": ["lobby-link", "mine-link", "account-link", "lang", "about-btn"],
    "/mail": ["lobby-link", "mine-link", "account-link", "lang", "about-btn"],
    "/tutorial": ["lobby-link", "status", "rules-link", "docs-link", "lang"],
    "/offline": ["lobby-link"],
}  # fmt: skip


def _header_items(page: str) -> list[str]:
    """The header's items by id (the home page's brand, without one, as "home"); "*": aria-current."""
    header = re.search(r"<header>\n(.*?)\n</header>", page, re.S)
    assert header, "no header"
    items = []
    for tag in re.findall(r"<(?:a|span|button|select)\b[^>]*>", header.group(1)):
        if 'class="spacer"' in tag:
            continue
        found = re.search(r'\sid="([^"]+)"', tag)
        items.append((found.group(1) if found else "home") + ("*" if 'aria-current="page"' in tag else ""))
    return items


def test_every_page_is_served_with_its_header_head_and_about_dialog(tmp_path: Path) -> None:
    with make_client(tmp_path) as c:
        for path, items in PAGES.items():
            page = c.get(path).text
            assert "<!--part:" not in page and "<!--header:" not in page, path
            assert page.count("<header>") == 1 and _header_items(page) == items, path
            # the head's common lines, the charset first
            head = page[page.index("<head>") : page.index("</head>")]
            assert head.index('<meta charset="utf-8">') < head.index("<title>"), path
            assert '<link rel="stylesheet" href="/static/style.css">' in head and 'name="viewport"' in head, path
            # the About dialog where the header has its button
            assert page.count('<dialog id="about">') == ("about-btn" in items), path
        rules = c.get("/rules?lang=de").text
        assert '<meta charset="utf-8">' in rules and "<!--part:" not in rules and "Regeln" in rules


def test_under_a_root_path_the_shared_parts_link_under_it(tmp_path: Path) -> None:
    with TestClient(create_app(data_dir=tmp_path, bot_pause=0.0), root_path="/kardinal") as c:
        page = c.get("/kardinal/players").text
    assert '<a href="/kardinal/" id="lobby-link"' in page and 'href="/kardinal/static/style.css"' in page
    assert '<a id="players-link" class="rules-link" href="/kardinal/players" aria-current="page">' in page


def test_no_page_file_repeats_the_shared_parts() -> None:
    # written once: the header, the About dialog and the head's common lines are in parts.html only
    for f in sorted(STATIC.glob("*.html")):
        if f.name == "parts.html":
            continue
        text = f.read_text(encoding="utf-8")
        assert '<dialog id="about">' not in text and "<meta charset" not in text, f.name
        if f.name != "rules.html":  # the rules page's header is its own (the other language, no buttons)
            assert "<header>" not in text and "<!--header: " in text, f.name


def test_a_part_that_does_not_exist_is_named() -> None:
    from kardinal.server.web.pages import expand_parts

    with pytest.raises(ValueError, match="no part 'sidebar'"):
        expand_parts("<body>\n<!--part: sidebar-->\n</body>")
    with pytest.raises(ValueError, match="no part 'shop'"):
        expand_parts("<body>\n<!--header: brand shop-->\n</body>")
