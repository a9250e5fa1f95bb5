"""Research interfaces: Kardinal for OpenSpiel and PettingZoo (the ``research`` extra).

* :mod:`kardinal.research.actions`: the fixed action table (no extra dependency).
* :mod:`kardinal.research.encode`: observation tensors and text (numpy).
* :mod:`kardinal.research.openspiel_game`: the OpenSpiel game ``python_kardinal``
  (importing it registers the game).
* :mod:`kardinal.research.pettingzoo_env`: the PettingZoo AEC environment ``kardinal_v0``.
* :mod:`kardinal.research.ismcts_bot`: the ``openspiel-ismcts`` yardstick bot.
* :mod:`kardinal.research.bench`: adapter speeds (``python -m kardinal.research.bench``).

Nothing here is imported by the rules core; importing this package imports nothing heavy.
"""
