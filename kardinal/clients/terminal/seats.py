"""Who sits where: people and bots in seat order, from the command line or a save file.

>>> [str(s) for s in parse_seats_option("Anna,bot:hard,Ben,bot")]
['Anna', 'bot:hard', 'Ben', 'bot:']
>>> seats_from_argv(["play", "--seat", "Anna", "--bot", "hard", "--seat=Ben"], ["Anna", "Ben"], ["hard"])
[SeatSpec(name='Anna', bot=None), SeatSpec(name=None, bot='hard'), SeatSpec(name='Ben', bot=None)]
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

__all__ = ["SeatSpec", "Seat", "SeatError", "parse_seats_option", "seats_from_argv", "build_seats", "default_bot_level", "seats_of_save"]

# Bots get names of the period, so that every seat has a distinct initial where possible.
BOT_NAMES = ("Otto", "Konrad", "Heinrich", "Lothar", "Mathilde", "Gisela", "Welf", "Ulrich", "Adelheid", "Friedrich")


class SeatError(ValueError):
    """Seats that cannot make a game (wrong count, unknown bot, duplicate names)."""


@dataclass(frozen=True)
class SeatSpec:
    """A seat as asked for: a person (``name``) or a bot (``bot`` level, "" for the default)."""

    name: str | None
    bot: str | None

    def __str__(self) -> str:
        return f"bot:{self.bot}" if self.bot is not None else str(self.name)


@dataclass(frozen=True)
class Seat:
    """A seat of a game: its name and, for a bot, its level."""

    name: str
    bot: str | None

    @property
    def is_person(self) -> bool:
        return self.bot is None

    def to_json(self) -> dict[str, Any]:
        return {"name": self.name, "bot": self.bot}


def parse_seats_option(text: str) -> list[SeatSpec]:
    """``"Anna,bot:hard,Ben"``: names are people, ``bot`` or ``bot:LEVEL`` are bots."""
    out: list[SeatSpec] = []
    for part in text.split(","):
        part = part.strip()
        if not part:
            raise SeatError(f"--seats {text!r}: an empty seat (two commas in a row?)")
        if part.lower() == "bot":
            out.append(SeatSpec(None, ""))
        elif part.lower().startswith("bot:"):
            out.append(SeatSpec(None, part[4:].strip()))
        else:
            out.append(SeatSpec(part, None))
    return out


def seats_from_argv(argv: Sequence[str], persons: Sequence[str], bots: Sequence[str]) -> list[SeatSpec]:
    """The seats of ``--seat NAME`` / ``--bot LEVEL`` in the order they were typed.

    The option parser keeps the two lists apart; the order comes from the command line
    itself. If the command line does not show exactly these options (the command was
    called some other way), people come first, then bots.
    """
    order: list[SeatSpec] = []
    i = 0
    while i < len(argv):
        tok = argv[i]
        if tok == "--":
            break
        for opt, person in (("--seat", True), ("--bot", False)):
            value: str | None = None
            if tok == opt and i + 1 < len(argv):
                value = argv[i + 1]
                i += 1
            elif tok.startswith(opt + "="):
                value = tok[len(opt) + 1 :]
            if value is not None:
                order.append(SeatSpec(value, None) if person else SeatSpec(None, value))
                break
        i += 1
    if [s.name for s in order if s.bot is None] == list(persons) and [s.bot for s in order if s.bot is not None] == list(bots):
        return order
    return [SeatSpec(p, None) for p in persons] + [SeatSpec(None, b) for b in bots]


def default_bot_level(available: Sequence[str]) -> str:
    """The level of a bot nobody named: medium if there is one, else greedy, else random."""
    for level in ("medium", "greedy", "random"):
        if level in available:
            return level
    raise SeatError("no bot is available")


def build_seats(specs: Sequence[SeatSpec], players: int | None, available: Sequence[str], allowed_counts: Sequence[int]) -> list[Seat]:
    """Complete and check the seats: default bots fill up to ``players``; names are unique."""
    specs = list(specs)
    default = default_bot_level(available)
    if not specs:
        specs = [SeatSpec("You", None)]
        if players is None:
            players = 4
    if players is None:
        players = len(specs) if len(specs) >= 3 else 4  # fewer seats given: bots make four
    if len(specs) > players:
        raise SeatError(f"{len(specs)} seats were given, but --players is {players}")
    specs += [SeatSpec(None, "")] * (players - len(specs))
    if players not in allowed_counts:
        raise SeatError(f"the game is for {', '.join(map(str, allowed_counts))} players, not {players}")
    taken: set[str] = set()
    for s in specs:
        if s.bot is None:
            name = (s.name or "").strip()
            if not name:
                raise SeatError("a person's name must not be empty")
            if name.lower() in taken:
                raise SeatError(f"two players are called {name!r}: give each person a different name")
            taken.add(name.lower())
    seats: list[Seat] = []
    spare = [n for n in BOT_NAMES if n.lower() not in taken and n[0].lower() not in {t[0] for t in taken}]
    spare += [n for n in BOT_NAMES if n not in spare and n.lower() not in taken]
    for s in specs:
        if s.bot is None:
            seats.append(Seat((s.name or "").strip(), None))
            continue
        level = (s.bot or default).lower()
        if level not in available:
            raise SeatError(f"unknown bot {s.bot!r}; choose from {', '.join(sorted(available))}")
        name = spare.pop(0)
        seats.append(Seat(name, level))
    return seats


def seats_of_save(data: dict[str, Any], names: Sequence[str], available: Sequence[str]) -> list[Seat]:
    """The seats stored in a save file (``"seats"``); without them everybody is a person."""
    raw = data.get("seats")
    if raw is None:
        return [Seat(n, None) for n in names]
    if not isinstance(raw, list) or len(raw) != len(names):
        raise SeatError("'seats' must list one entry per player")
    seats: list[Seat] = []
    for i, (entry, name) in enumerate(zip(raw, names)):
        if not isinstance(entry, dict) or entry.get("name") != name:
            raise SeatError(f"seats[{i}]: expected {{'name': {name!r}, 'bot': null or a level}}")
        bot = entry.get("bot")
        if bot is not None and (not isinstance(bot, str) or bot not in available):
            raise SeatError(f"seats[{i}]: unknown bot {bot!r}; choose from {', '.join(sorted(available))}")
        seats.append(Seat(name, bot))
    return seats
