"""The web server: the authority over every game (kardinal.rules decides, kardinal.bots
plays), its database, its bots' worker pool, and the browser's pages (kardinal.clients.web).

``create_app()`` builds the ASGI app; ``kardinal serve`` runs it under uvicorn.
"""

from __future__ import annotations

from typing import Any

__all__ = ["create_app"]


def __getattr__(name: str) -> Any:
    """``create_app`` imported when asked for: the command line reads the settings
    (kardinal.server.settings) without loading the whole server."""
    if name == "create_app":
        from .app import create_app

        return create_app
    raise AttributeError(name)
