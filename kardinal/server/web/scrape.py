"""``/metrics``: the server's metrics (kardinal.server.common.metrics) in Prometheus's text
format, for a scraper that sends the operator's token (``KARDINAL_METRICS_TOKEN``) in the
header ``Authorization: Bearer TOKEN``.

Without the setting, without the header, with another token, or with another method than
GET, the answer is the one of a page that does not exist (404 ``not_found``, the same body): a stranger learns neither
that the server has metrics nor whether a token was close; a scraper set up wrongly sees
404 in Prometheus's list of targets (docs/host/metrics.md says so). The token is compared
in constant time, and never travels in the address: the access log (which logs paths)
never holds it.

Several processes on one host (PROMETHEUS_MULTIPROC_DIR): each process's gauges of what
exists (games in memory, open WebSockets) are counted every :data:`SAMPLE_EVERY` seconds
(:func:`keep_sampling`), so that a scrape of any one process sums them all; one process
alone counts them as it is scraped.
"""

from __future__ import annotations

import asyncio
import contextlib
import hmac

from fastapi import APIRouter, HTTPException, Request, Response

from ..common import metrics
from ..play.service import GameService

__all__ = ["router", "keep_sampling", "SAMPLE_EVERY"]

router = APIRouter()
SAMPLE_EVERY = 5.0  # seconds (several processes): a scrape's gauges are at most this old


def sample(service: GameService) -> None:
    """Count this process's games in memory by status and its open WebSockets by kind."""
    games = list(service.live.values())
    sockets = ["player" if conn.seats else "spectator" for live in games for conn in list(live.conns)]
    metrics.sample((live.row.status for live in games), sockets)


async def keep_sampling(service: GameService, stop: asyncio.Event, every: float = SAMPLE_EVERY) -> None:
    """Several processes: sample every ``every`` seconds until ``stop``, then leave the sums."""
    if not metrics.MULTIPROCESS:
        return
    try:
        while not stop.is_set():
            sample(service)
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), every)
    finally:
        metrics.goodbye()


def _authorized(request: Request) -> bool:
    token = request.app.state.settings.metrics_token.get_secret_value()
    if not token:
        return False
    given = request.headers.get("authorization", "")
    scheme, _, value = given.partition(" ")
    return scheme.lower() == "bearer" and hmac.compare_digest(value.strip().encode(), token.encode())


# every method: one but GET answered 405 where an unknown page answers 404 (a stranger learnt
# that the server has metrics)
_METHODS = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]


@router.api_route("/metrics", methods=_METHODS, include_in_schema=False)
async def scrape(request: Request) -> Response:
    if request.method != "GET" or not _authorized(request):
        raise HTTPException(404)  # the answer of a page that does not exist (the app's http_refused)
    sample(request.app.state.service)  # on the event loop, where the games change
    text = await asyncio.to_thread(metrics.exposition)  # (several processes: it reads their files)
    return Response(text, media_type=metrics.CONTENT_TYPE)
