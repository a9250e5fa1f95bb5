"""What a game tells about which account sits in which of its seats: one rule, asked by
every place that could tell it (profiles, a game's rating changes, muting and blocking
by seat, the seats whose chat an account silenced).

- A game listed in the lobby tells anyone: its seats' accounts show on their profiles
  and in its rating changes, and muting or blocking one of its seats mutes or blocks the
  seat's account.
- A game not listed (``public: false``: reached through its links only) tells an account
  about its own seats only. To everyone else, players and spectators alike, its seats are
  as seats without an account: no other profile lists it, its rating changes show the
  asking account's own seat only, muting or blocking one of its seats holds for that
  game in that browser (as for a guest's seat), and a mute or block by name does not
  hide the lines of one of its seats (that would tell where the account sits). The
  seats' names, as the table shows them, are seen by whoever has a link.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

__all__ = ["listed", "told_owners"]


def listed(options: Mapping[str, Any]) -> bool:
    """Whether a game of these table options is listed in the lobby (not ``public: false``)."""
    return options.get("public") is not False


def told_owners(options: Mapping[str, Any], owners: Mapping[int, int], viewer: int | None) -> dict[int, int]:
    """The seats' accounts (``owners``: {seat: account id}) of a game of table options
    ``options`` that the account ``viewer`` (None: a guest) may learn: all of a listed
    game's, only its own of one not listed."""
    return {seat: aid for seat, aid in owners.items() if listed(options) or aid == viewer}
