"""The server's logs: plain lines, or JSON lines (one object per line) on request.

Nothing secret is ever logged: requests are logged by method, path (never the query
string, which can hold a seat token), status and duration; database errors hide their
statements' values (storage.py); games are named by id only.
"""

from __future__ import annotations

import logging
import sys

__all__ = ["setup_logging"]


# what uvicorn logs with a traceback although the client caused it (a WebSocket frame that
# is no UTF-8): one line, as any client's error, no traceback
_CLIENTS_DOING = ("Invalid UTF-8 sequence received from client",)


class _ClientErrors(logging.Filter):
    def filter(self, record: logging.LogRecord) -> bool:
        if record.exc_info and record.getMessage().startswith(_CLIENTS_DOING):
            record.exc_info = record.exc_text = None
            record.levelno, record.levelname = logging.INFO, "INFO"
        return True


def setup_logging(json_lines: bool = False, level: str = "info") -> None:
    """Log ``kardinal.*`` at ``level`` to stderr, as JSON lines if asked; uvicorn's own lines
    go the same way (``kardinal serve`` starts uvicorn without a logging set-up of its own),
    so that a JSON-lines log holds nothing else."""
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
    server = logging.getLogger("uvicorn")
    server.handlers[:] = [handler]
    server.propagate = False
    for name in ("uvicorn.error", "uvicorn.access"):
        child = logging.getLogger(name)
        child.handlers[:] = []
        child.propagate = True
    handler.addFilter(_ClientErrors())
