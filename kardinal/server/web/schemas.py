"""The models of the web edge's own answers: a refusal over HTTP (the document's
declaration of every route's refusals), and the health checks."""

from __future__ import annotations

from pydantic import BaseModel
from typing_extensions import TypedDict

from ..common.refusal import ErrorData


# A model rather than a TypedDict: it is only documentation (app.py's handler writes the
# refusals), declared by every route for each of its refusals, and FastAPI adapts each
# declaration anew for each app (305 an app): a model's schema is made once, a TypedDict's
# each time, which made most of the time of an app's first request.
class ErrorBody(BaseModel):
    """Every refusal over HTTP: ``{"error": {code, message, params, rule?, reason?}}``."""

    error: ErrorData


class Health(TypedDict):
    status: str


class Readiness(TypedDict):
    status: str
    database: str
