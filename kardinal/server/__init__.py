"""The web server: the authority over every game (kardinal.rules decides, kardinal.bots
plays), its database, its bots' worker pool, and the browser's pages (kardinal.clients.web).

``create_app()`` builds the ASGI app; ``kardinal serve`` runs it under uvicorn.
"""

from __future__ import annotations

from .web.app import create_app

__all__ = ["create_app"]
