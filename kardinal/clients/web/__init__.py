"""Play in the browser: the lobby, live games over WebSockets, bots on the server.

``create_app()`` builds the ASGI app; ``kardinal serve`` runs it under uvicorn.
"""

from __future__ import annotations

from .app import create_app

__all__ = ["create_app"]
