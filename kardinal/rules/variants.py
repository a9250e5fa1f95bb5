"""Rule variants (R14): named departures from the rules as written, fixed when a game is created.

A game names its variants when it is created; they are public, stored in its record and
shown wherever the game is shown. An empty set means the rules as written.
"""

from __future__ import annotations

from collections.abc import Iterable

__all__ = ["JOKER_ANYWHERE", "VARIANTS", "VariantError", "parse_variants"]

JOKER_ANYWHERE = "joker-anywhere"

# name -> what it changes (one line, for --help, the lobby and the docs)
VARIANTS: dict[str, str] = {
    JOKER_ANYWHERE: "R4.3: a joker pair may also place its piece in a country printed on its cards (the Danish translation's reading)",
}


class VariantError(ValueError):
    """A variant name the rules do not know."""


def parse_variants(names: Iterable[str]) -> tuple[str, ...]:
    """The variants as a sorted tuple without repeats; VariantError names the known ones.

    >>> parse_variants(["joker-anywhere", "joker-anywhere"])
    ('joker-anywhere',)
    >>> parse_variants(["house-rule"])
    Traceback (most recent call last):
    ...
    kardinal.rules.variants.VariantError: unknown rule variant 'house-rule'; known variants: joker-anywhere
    """
    if isinstance(names, str):
        raise VariantError("variants are a list of names, not one string")
    out = set()
    for name in names:
        if name not in VARIANTS:
            raise VariantError(f"unknown rule variant {name!r}; known variants: {', '.join(sorted(VARIANTS))}")
        out.add(name)
    return tuple(sorted(out))
