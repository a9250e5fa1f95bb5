"""Research interfaces: Kardinal for OpenSpiel and PettingZoo (the ``research`` extra).

* :mod:`kardinal.research.actions`: the fixed action table (no extra dependency).
* :mod:`kardinal.research.encode`: observation tensors and text (numpy).
* :mod:`kardinal.research.openspiel_game`: the OpenSpiel game ``python_kardinal``
  (importing it registers the game).
* :mod:`kardinal.research.pettingzoo_env`: the PettingZoo AEC environment ``kardinal_v0``.
* :mod:`kardinal.research.ismcts_bot`: the ``openspiel-ismcts`` yardstick bot.
* :mod:`kardinal.research.bench`: adapter speeds (``python -m kardinal.research.bench``).
* :mod:`kardinal.research.selfplay_data`: bots' games as training data, in Parquet shards (pyarrow).
* :mod:`kardinal.research.cluster`: games as Ray tasks on a cluster (the ``ray`` extra;
  ``kardinal tournament --ray``, ``kardinal selfplay --ray``).

Nothing here is imported by the rules core; importing this package imports nothing heavy.
"""

from __future__ import annotations

from collections.abc import Callable
from importlib.util import find_spec
from typing import Any


def register_bots(register: Callable[..., None]) -> None:
    """The ``kardinal.bots`` entry point: registers ``openspiel-ismcts`` where OpenSpiel is installed."""
    if find_spec("pyspiel") is None:
        return

    def openspiel_ismcts(seed: int, board: Any) -> Any:
        """OpenSpiel's ISMCTS on python_kardinal; 1.5 s per decision, as 'hard'."""
        from .ismcts_bot import OpenSpielISMCTSBot

        return OpenSpielISMCTSBot(seed, board)

    from kardinal.bots import Level

    register("openspiel-ismcts", openspiel_ismcts, Level(38, "OpenSpiel's ISMCTS, a research yardstick.", 1.5, research=True))
