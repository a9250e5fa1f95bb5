"""The HTML pages, for a server at the root of its host or under a path.

Behind a reverse proxy the server may live under a path (``kardinal serve --root-path
/kardinal``, ASGI's ``root_path``). The pages are written with absolute paths
(``/static/style.css``); :func:`html_page` puts the root in front of every ``href``,
``src`` and ``action`` that starts with ``/`` and names it in ``<meta name="root">`` for
the scripts (``net.js`` ``url()``).
"""

from __future__ import annotations

import html
import re
from functools import lru_cache
from importlib import resources

from fastapi import Request
from fastapi.responses import HTMLResponse

__all__ = ["html_page", "root_of", "static_page"]

_ABSOLUTE = re.compile(r'(\s(?:href|src|action)=")/(?!/)')


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


@lru_cache(maxsize=16)
def _static(name: str) -> str:
    return resources.files("kardinal.clients.web").joinpath("static", name).read_text(encoding="utf-8")


def static_page(request: Request, name: str) -> HTMLResponse:
    """One of the static pages (index.html, game.html, ...) for this request's root."""
    return HTMLResponse(html_page(_static(name), root_of(request)))
