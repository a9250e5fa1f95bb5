"""What a game leaves: its scorings in detail, its record, and its replay step by step."""

from __future__ import annotations

from typing import Any

from kardinal.rules.breakdown import scoring_breakdown
from kardinal.rules.record import record_of, rewind
from kardinal.rules.view import view

from ..common.refusal import Refused
from .core import ServiceCore
from .live import public_players
from .messages import (
    ReplayMessage,
    ScoringMessage,
)


class Finished(ServiceCore):
    """Scorings, records and replays of a :class:`GameService`'s games. (kardinal.server.play.service puts the parts together.)"""

    def scoring(self, game_id: str) -> ScoringMessage:
        """The intermediate and the final scoring so far, in detail (kardinal.rules.breakdown):
        public (sites, advisors, scores, supplies), for a running game and a finished one."""
        live = self.get(game_id)
        st = live.state
        return {
            "type": "scoring",
            "game": live.row.id,
            "version": live.version,
            "players": public_players(live.row),
            "scoring": scoring_breakdown(st),
        }

    def record(self, game_id: str) -> dict[str, Any]:
        live = self.get(game_id)
        if live.row.status != "finished":
            raise Refused("not_finished", "the record is available once the game is over")
        return record_of(live.state, live.names)  # never the seed

    def replay_step(self, game_id: str, step: int) -> ReplayMessage:
        """A finished game after ``step`` actions: the spectator view, and every hand (the game is over)."""
        live = self.get(game_id)
        if live.row.status != "finished":
            raise Refused("not_finished", "replays are available once the game is over")
        total = live.version
        if not 0 <= step <= total:
            raise Refused("malformed", f"step must be 0..{total}", 400)
        st = rewind(live.state, step)
        ids = [k.id for k in live.board.cards]
        hands = [{ids[k]: c for k, c in enumerate(h) if c} for h in st.hands]
        return {
            "type": "replay",
            "game": game_id,
            "step": step,
            "total": total,
            "players": public_players(live.row),
            "view": view(st, None),
            "hands": hands,
        }
