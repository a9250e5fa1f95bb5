"""The installable app (a PWA): its manifest, its service worker and the offline page.

The service worker (``/sw.js``, from ``static/sw.js``) keeps the static files of one
version in a cache named after that version, a hash of the static files' contents that
the server computes when it starts (:class:`Shell`) and writes into the worker's script.
A release changes the hash, so the worker's bytes change: the browser installs the new
worker on its next visit, which caches the new files and deletes the old caches, and the
pages are never served with a mix of two versions' scripts. Every page says the version it
belongs to in the ``X-Kardinal-Version`` header (pages.py), which the worker compares with
its own.

Routes (one router, included by ``app.py``): ``/manifest.webmanifest`` (its addresses are
relative, so it works under a proxy's root path as it is), ``/sw.js`` and ``/offline``
(the page the worker shows for a page asked for without a network).
"""

from __future__ import annotations

import hashlib
import json
import os
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, Response

from ..common.catalog import LOCALE_DIR, langs
from .pages import static_page

__all__ = ["Shell", "router", "PRECACHED"]

# the kinds of static file the worker keeps (the pages' scripts, styles, pictures); the
# HTML files are templates the server fills in (pages.py), and sw.js is the worker itself
PRECACHED = (".js", ".css", ".svg", ".png")
WORKER_FILES = ("sw.js", "sw-push.js")  # the worker's own scripts: the browser keeps those
CATALOG = "catalog:"  # the mark of a language catalog among the files hashed (kardinal/locale/*.po)


@dataclass(frozen=True)
class Shell:
    """The static files of one version: their folder, the files the worker keeps (names
    relative to it, sorted) and the version, a hash of every file's name and contents and
    of the language catalogs (the worker keeps each language's words too: /i18n/)."""

    directory: Path
    files: tuple[str, ...]
    version: str

    @classmethod
    def of(cls, directory: Path) -> Shell:
        """The shell of ``directory`` as its files are now (the server's start); read again
        only when a file's size or time of change differs (many apps in one test run)."""
        files = []
        for folder, _dirs, names in os.walk(directory):
            for name in names:
                stat = os.stat(os.path.join(folder, name))
                files.append((Path(folder, name).relative_to(directory).as_posix(), stat.st_size, stat.st_mtime_ns))
        catalogs = [(CATALOG + p.name, p.stat().st_size, p.stat().st_mtime_ns) for p in LOCALE_DIR.glob("*.po")]
        return _shell_of(directory, tuple(sorted(files) + sorted(catalogs)))

    def worker(self) -> str:
        """The service worker's script with this version, its files and the catalogs' languages written in."""
        text = (self.directory / "sw.js").read_text(encoding="utf-8")
        text = text.replace('"__VERSION__"', json.dumps(self.version), 1)
        text = text.replace('["__LANGS__"]', json.dumps(list(langs())), 1)
        return text.replace('["__FILES__"]', json.dumps(["static/" + f for f in self.files]), 1)


@lru_cache(maxsize=8)
def _shell_of(directory: Path, files: tuple[tuple[str, int, int], ...]) -> Shell:
    """The shell of ``directory``'s ``files`` (name, size, time of change), hashed."""
    digest = hashlib.sha256()
    kept = []
    for name, _size, _changed in files:
        path = LOCALE_DIR / name.removeprefix(CATALOG) if name.startswith(CATALOG) else directory / name
        digest.update(name.encode() + b"\0" + path.read_bytes() + b"\0")
        if name.endswith(PRECACHED) and name not in WORKER_FILES:
            kept.append(name)
    return Shell(directory, tuple(kept), digest.hexdigest()[:16])


router = APIRouter(include_in_schema=False)


@router.get("/sw.js")
async def service_worker(request: Request) -> Response:
    """The service worker, for the whole site (its scope: the server's root)."""
    shell: Shell = request.app.state.shell
    # no-cache: the browser asks each time whether the worker changed (a release)
    return Response(shell.worker(), media_type="text/javascript", headers={"Cache-Control": "no-cache"})


@router.get("/manifest.webmanifest")
async def manifest(request: Request) -> Response:
    shell: Shell = request.app.state.shell
    return Response((shell.directory / "manifest.webmanifest").read_bytes(), media_type="application/manifest+json")


@router.get("/offline")
async def offline_page(request: Request) -> HTMLResponse:
    """What the service worker shows for a page asked for while the network is down."""
    return static_page(request, "offline.html")
