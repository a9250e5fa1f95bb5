"""The web server: the authority over every game (kardinal.rules decides, kardinal.bots
plays), its database, its bots' worker pool, and the browser's pages (kardinal.clients.web).

``create_app()`` builds the ASGI app; ``kardinal serve`` runs it under uvicorn.

Grouped by domain, each package's docstring saying what it owns and may import:
``play/`` (the games being played: the game service, its routes and WebSocket),
``community/`` (accounts, social, ratings, moderation), ``mail/``, ``web/`` (the app
that wires them, the request's edge, pages and the map), ``storage/`` (the database) and
``common/`` (what every domain uses: the refusal, names, rate limits).
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    """``create_app`` imported when asked for: the command line reads the settings
    (kardinal.server.common.settings) without loading the whole server."""
    if name == "create_app":
        from .web.app import create_app

        return create_app
    raise AttributeError(name)
