"""Forged cross-site requests: a request that may change something (any method but GET,
HEAD and OPTIONS) sent by a browser from another site is refused (403 ``cross_site``)
before it is read.

A browser names the page a request comes from: ``Origin`` (every cross-site POST of a
form or of ``fetch``), else ``Referer``, else ``Sec-Fetch-Site``. Each, when there, must
name this server's own host (the request's ``Host``, which a reverse proxy passes on:
deploy/nginx.conf); a request naming none of them comes from no browser page (a script, the
command line), which holds no browser's cookie. The session cookie is also
``SameSite=Lax`` (account_routes.py): browsers do not send it with another site's POST at
all; this check stands also where a browser does not keep to that.
"""

from __future__ import annotations

from urllib.parse import urlsplit

from fastapi.responses import Response
from starlette.types import Scope

from ..common.refusal import Refused
from .http import refusal_response

__all__ = ["cross_site"]

SAFE = frozenset(("GET", "HEAD", "OPTIONS"))


def _host(netloc: str) -> str:
    """A host and port as compared: lower case, without a default port (a proxy that ends
    TLS may pass the host of an https page to a server that sees http)."""
    netloc = netloc.lower()
    for port in (":80", ":443"):
        if netloc.endswith(port):
            return netloc[: -len(port)]
    return netloc


def _same(url: str, host: str) -> bool:
    parts = urlsplit(url)
    return parts.scheme in ("http", "https") and bool(parts.netloc) and _host(parts.netloc) == host


def cross_site(scope: Scope) -> Response | None:
    """A refusal of a request that changes something and comes from another site's page;
    None for every other request."""
    if scope["type"] != "http" or scope["method"] in SAFE:
        return None
    headers: dict[bytes, bytes] = {}
    for k, v in scope["headers"]:
        if k in (b"host", b"origin", b"referer", b"sec-fetch-site"):
            headers.setdefault(k, v)
    host = _host(headers.get(b"host", b"").decode("latin-1"))
    origin = headers.get(b"origin")
    referer = headers.get(b"referer")
    site = headers.get(b"sec-fetch-site")
    if origin is not None:
        ok = _same(origin.decode("latin-1"), host)  # "null" (a sandboxed or file page) is no host
    elif referer is not None:
        ok = _same(referer.decode("latin-1"), host)
    elif site is not None:
        ok = site in (b"same-origin", b"none")
    else:
        return None
    if ok:
        return None
    return refusal_response(Refused("cross_site", "a request from another site's page is refused here", 403))
