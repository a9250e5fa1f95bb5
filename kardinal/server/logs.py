"""The server's logs: plain lines, or JSON lines (one object per line) on request.

Nothing secret is ever logged: requests are logged by method, path (never the query
string, which can hold a seat token), status and duration; database errors hide their
statements' values (storage.py); games are named by id only.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["setup_logging"]


def setup_logging(json_lines: bool = False, level: str = "info") -> None:
    """Log ``kardinal.*`` at ``level`` to stderr, as JSON lines if asked."""
    handler = logging.StreamHandler(sys.stderr)
    if json_lines:
        from pythonjsonlogger.json import JsonFormatter

        handler.setFormatter(
            JsonFormatter(
                "{asctime}{levelname}{name}{message}", style="{", rename_fields={"asctime": "time", "levelname": "level", "name": "logger"}
            )
        )
    else:
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
    root = logging.getLogger("kardinal")
    root.handlers[:] = [handler]
    root.setLevel(level.upper())
    root.propagate = False
