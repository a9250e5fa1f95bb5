"""How a table plays (live or turn-based, the away time, the stand-in, hints, chat, the lobby), chosen at creation."""

from __future__ import annotations

from typing import Any

from kardinal.bots import BOTS

from .messages import (
    TableOptions,
)
from .refusal import Refused
from .storage import (
    GameRow,
)

# how a table plays (GameRow.options), chosen at creation
MODES = ("live", "turn")  # live: people at the table now; turn: turn-based over days
AWAY_DEFAULT = 180.0  # seconds a person may be away in a live game before a bot stands in
AWAY_RANGE = (1.0, 86400.0)
STANDIN_DEFAULT = "medium"


def table_options(spec: dict[str, Any]) -> TableOptions:
    """How a table plays, from a game's creation request: ``mode`` "live" (default) or
    "turn" (turn-based over days: nobody is stood in for); ``away``: seconds a person of a
    live game may be away on their turn before ``standin`` (a bot level) plays for them;
    ``hints``: the people agree to hints; ``spectator_chat``: spectators may write;
    ``public`` (default): listed in the lobby, else reached only through its links;
    ``rated``: the game moves its people's ratings (the routes allow it only to a signed-in
    creator; no hot-seat, no hints: rated.py)."""
    mode = spec.get("mode", "live")
    if mode not in MODES:
        raise Refused("malformed", "mode: 'live' or 'turn'", 400)
    away = spec.get("away", AWAY_DEFAULT)
    if not isinstance(away, (int, float)) or isinstance(away, bool) or not AWAY_RANGE[0] <= away <= AWAY_RANGE[1]:
        raise Refused("malformed", f"away: seconds, {AWAY_RANGE[0]:g} to {AWAY_RANGE[1]:g}", 400)
    standin = spec.get("standin", STANDIN_DEFAULT)
    if not isinstance(standin, str) or standin.lower() not in BOTS:
        raise Refused("malformed", f"standin: one of {', '.join(sorted(BOTS))}", 400)
    flags = {}
    for key, default in (("hints", False), ("spectator_chat", False), ("public", True), ("rated", False)):
        flags[key] = spec.get(key, default)
        if not isinstance(flags[key], bool):
            raise Refused("malformed", f"{key}: true or false", 400)
    return {
        "mode": mode,
        "away": float(away),
        "standin": standin.lower(),
        "hints": flags["hints"],
        "spectator_chat": flags["spectator_chat"],
        "public": flags["public"],
        "rated": flags["rated"],
    }


def options_of(row: GameRow) -> TableOptions:
    """A stored game's options, with the defaults for what it does not say (older games)."""
    o = row.options
    return {
        "mode": o.get("mode", "live"),
        "away": float(o.get("away", AWAY_DEFAULT)),
        "standin": o.get("standin", STANDIN_DEFAULT),
        "hints": o.get("hints") is True,
        "spectator_chat": o.get("spectator_chat") is True,
        "public": o.get("public") is not False,
        "rated": o.get("rated") is True,
    }
