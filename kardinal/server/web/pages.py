"""The HTML pages, for a server at the root of its host or under a path.

Behind a reverse proxy the server may live under a path (``kardinal serve --root-path
/kardinal``, ASGI's ``root_path``). The pages are written with absolute paths
(``/static/style.css``); :func:`html_page` puts the root in front of every ``href``,
``src`` and ``action`` that starts with ``/`` and names it in ``<meta name="root">`` for
the scripts (``net.js`` ``url()``).

What every page shares is written once, in ``static/parts.html``: the head's common lines,
the header's items and the About dialog. A page names the parts it uses
(``<!--part: head-->``, ``<!--header: brand spacer mine lang about-->``) and
:func:`page_text` puts them in when the page is first served (then keeps the result): the
header is in the HTML, there before any script runs and for screen readers.
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from importlib import resources

from fastapi import Request
from fastapi.responses import HTMLResponse

__all__ = ["expand_parts", "html_page", "page_text", "root_of", "static_page", "version_header"]

_ABSOLUTE = re.compile(r'(\s(?:href|src|action)=")/(?!/)')
_PART = re.compile(r"^<!--([a-z-]+)-->\n", re.M)  # a part's start in parts.html
_USE = re.compile(r"^<!--(part|header): ([^>]*?)-->$", re.M)  # a page's use of the parts


def root_of(request: Request) -> str:
    """The path the server lives under ("" at the root), from the ASGI scope."""
    return str(request.scope.get("root_path") or "").rstrip("/")


def html_page(text: str, root: str) -> str:
    """A page's HTML with ``root`` in front of its absolute paths, and named for its scripts."""
    meta = f'<meta name="root" content="{html.escape(root, quote=True)}">'
    text = text.replace("<head>", "<head>\n" + meta, 1)
    if root:
        text = _ABSOLUTE.sub(lambda m: m.group(1) + root + "/", text)
    return text


def _read(name: str) -> str:
    return resources.files("kardinal.clients.web").joinpath("static", name).read_text(encoding="utf-8")


@lru_cache(maxsize=1)
def _parts() -> dict[str, str]:
    """The shared parts by name (static/parts.html: each from its ``<!--name-->`` line)."""
    pieces = _PART.split(_read("parts.html"))  # [the file's own comment, name, part, name, part, ...]
    return {name: part.rstrip("\n") for name, part in zip(pieces[1::2], pieces[2::2], strict=True)}


def _part(name: str) -> str:
    try:
        return _parts()[name]
    except KeyError:
        raise ValueError(f"static/parts.html has no part {name!r}") from None


def _header(items: str) -> str:
    """A page's <header>: the named items in order; ``name*`` is the page's own link."""
    lines = []
    for item in items.split():
        markup = _part(item.removesuffix("*"))
        if item.endswith("*"):
            markup = markup.replace(">", ' aria-current="page">', 1)
        lines.append("  " + markup)
    return "\n".join(["<header>", *lines, "</header>"])


def expand_parts(text: str) -> str:
    """A page's HTML with the shared parts it names put in (``<!--part: ...-->``, ``<!--header: ...-->``)."""
    return _USE.sub(lambda m: _part(m.group(2).strip()) if m.group(1) == "part" else _header(m.group(2)), text)


@lru_cache(maxsize=16)
def page_text(name: str) -> str:
    """A static page (index.html, game.html, ...) with its shared parts, read once."""
    return expand_parts(_read(name))


def version_header(request: Request) -> dict[str, str]:
    """The header that names the version of the static files a page belongs to (the
    service worker's, pwa.py), or none where the app keeps no such version."""
    shell = getattr(request.app.state, "shell", None)
    return {"X-Kardinal-Version": shell.version} if shell is not None else {}


def static_page(request: Request, name: str) -> HTMLResponse:
    """One of the static pages (index.html, game.html, ...) for this request's root."""
    return HTMLResponse(html_page(page_text(name), root_of(request)), headers=version_header(request))
