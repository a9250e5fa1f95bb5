"""How a table plays (live or turn-based, the away time, the stand-in, hints, chat, the lobby), chosen at creation."""

from __future__ import annotations

from typing import Any

from kardinal.bots import served_bots

from ..common.refusal import Refused
from ..storage import (
    GameRow,
)
from .messages import (
    ClockOptions,
    TableOptions,
)

# how a table plays (GameRow.options), chosen at creation
MODES = ("live", "turn")  # live: people at the table now; turn: turn-based over days
AWAY_DEFAULT = 180.0  # seconds a person may be away in a live game before a bot stands in
AWAY_RANGE = (1.0, 86400.0)
STANDIN_DEFAULT = "medium"
# a table's clock (kardinal.server.play.clocks), seconds; turn-based: days
CLOCK_MOVE = (5.0, 3600.0)  # live: each turn's own time
CLOCK_RESERVE = (0.0, 7200.0)  # live: the reserve each seat starts with
CLOCK_INCREMENT = (0.0, 600.0)  # live: what a turn adds to the reserve (up to its start)
CLOCK_DAYS = (1, 14)  # turn-based: whole days a turn
# a rated table always has a clock (a person alone with bots who walks away from a game going
# badly must not stop it: their time runs out, the stand-in plays on, the game is rated);
# one created without a clock gets these
RATED_CLOCK: dict[str, ClockOptions] = {
    "live": {"move": 60.0, "reserve": 180.0, "increment": 10.0},
    "turn": {"days": 3},
}
# the stand-in of a rated table (whatever the request says): one who leaves a rated game or
# lets its time run out loses it (a strong stand-in would win games for them)
RATED_STANDIN = "random"


def _number(x: object, lo: float, hi: float) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and lo <= x <= hi


def clock_option(spec: object, mode: str, hotseat: bool = False) -> ClockOptions | None:
    """A table's clock from a creation request, checked (Refused ``malformed`` otherwise):
    None (no clock: the default); live, ``{"move", "reserve", "increment"}`` in seconds
    (the reserve and the increment may be left out: 0); turn-based, ``{"days"}``. Not at a
    hot-seat table (everyone plays at one device: nobody to wait for)."""
    if spec is None:
        return None
    if hotseat:
        raise Refused("malformed", "clock: not at a hot-seat table", 400)
    if not isinstance(spec, dict):
        raise Refused("malformed", "clock: an object, or null", 400)
    if mode == "turn":
        if (
            set(spec) != {"days"}
            or not isinstance(spec["days"], int)
            or isinstance(spec["days"], bool)
            or not _number(spec["days"], *CLOCK_DAYS)
        ):
            raise Refused("malformed", f'clock: turn-based, {{"days": {CLOCK_DAYS[0]} to {CLOCK_DAYS[1]}}} (whole days a turn)', 400)
        return {"days": spec["days"]}
    shape = f'clock: live, {{"move": {CLOCK_MOVE[0]:g} to {CLOCK_MOVE[1]:g}, "reserve": {CLOCK_RESERVE[0]:g} to {CLOCK_RESERVE[1]:g}, "increment": {CLOCK_INCREMENT[0]:g} to {CLOCK_INCREMENT[1]:g}}} (seconds)'
    if not set(spec) <= {"move", "reserve", "increment"} or "move" not in spec:
        raise Refused("malformed", shape, 400)
    out: ClockOptions = {"move": 0.0, "reserve": 0.0, "increment": 0.0}
    for key, rng in (("move", CLOCK_MOVE), ("reserve", CLOCK_RESERVE), ("increment", CLOCK_INCREMENT)):
        x = spec.get(key, 0.0)
        if not _number(x, *rng):
            raise Refused("malformed", shape, 400)
        out[key] = float(x)  # type: ignore[literal-required]
    return out


def table_options(spec: dict[str, Any]) -> TableOptions:
    """How a table plays, from a game's creation request: ``mode`` "live" (default) or
    "turn" (turn-based over days: nobody is stood in for); ``away``: seconds a person of a
    live game may be away on their turn before ``standin`` (a bot level) plays for them;
    ``hints``: the people agree to hints; ``spectator_chat``: spectators may write;
    ``public`` (default): listed in the lobby, else reached only through its links;
    ``clock``: the time control (clock_option; none by default, RATED_CLOCK at a rated table);
    ``rated``: the game moves its people's ratings (the routes allow it only to a signed-in
    creator; no hot-seat, no hints: rated.py; always a clock, RATED_CLOCK by default, and
    the stand-in RATED_STANDIN)."""
    mode = spec.get("mode", "live")
    if mode not in MODES:
        raise Refused("malformed", "mode: 'live' or 'turn'", 400)
    away = spec.get("away", AWAY_DEFAULT)
    if not isinstance(away, (int, float)) or isinstance(away, bool) or not AWAY_RANGE[0] <= away <= AWAY_RANGE[1]:
        raise Refused("malformed", f"away: seconds, {AWAY_RANGE[0]:g} to {AWAY_RANGE[1]:g}", 400)
    standin = spec.get("standin", STANDIN_DEFAULT)
    if not isinstance(standin, str) or standin.lower() not in served_bots():
        raise Refused("malformed", f"standin: one of {', '.join(served_bots())}", 400)
    flags = {}
    for key, default in (("hints", False), ("spectator_chat", False), ("public", True), ("rated", False)):
        flags[key] = spec.get(key, default)
        if not isinstance(flags[key], bool):
            raise Refused("malformed", f"{key}: true or false", 400)
    clock = clock_option(spec.get("clock"), mode, bool(spec.get("hotseat", False)))
    if flags["rated"]:
        clock = clock if clock is not None else RATED_CLOCK[mode].copy()
        standin = RATED_STANDIN  # a leaver's game is theirs: no strong bot plays it out for them
    out: TableOptions = {
        "mode": mode,
        "away": float(away),
        "standin": standin.lower(),
        "hints": flags["hints"],
        "spectator_chat": flags["spectator_chat"],
        "public": flags["public"],
        "clock": clock,
        "rated": flags["rated"],
    }
    # friends only (social.py): the open seats are for the accounts the host follows; the
    # host's account id is set by the server (routes.create_game), never by the request
    friends, host = spec.get("friends", False), spec.get("host")
    if not isinstance(friends, bool):
        raise Refused("malformed", "friends: true or false", 400)
    if friends and isinstance(host, int) and not isinstance(host, bool):
        out["friends"], out["host"] = True, host
    return out


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
        "friends": o.get("friends") is True,
        "clock": o.get("clock") if isinstance(o.get("clock"), dict) else None,
        "rated": o.get("rated") is True,
    }
