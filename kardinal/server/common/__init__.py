"""What every domain of the server uses, and nothing of any domain.

- :mod:`.refusal`: :class:`Refused`, the error every domain raises and every edge turns
  into the API's answer (its ``ErrorData``).
- :mod:`.names`: players' names as everyone sees them (cleaned, bounded, unique, also in
  look-alike forms), asked by play, community, mail and the storage alike.
- :mod:`.guard`: the rate limits per address, name or account, asked by every domain.
- :mod:`.periodic`: the pace of a server's periodic work (:func:`ticks`).
- :mod:`.schemas`: the API's models that several domains share (seats' tokens, names,
  the answer ``Done``, a validation error in the API's words).

May import: the rules core, pydantic, and the storage's rows (for types only). Nothing
of play, community, mail or web (an import-linter contract in pyproject.toml).
"""
