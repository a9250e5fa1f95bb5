"""The board and the deck as data (docs/board.md, R1.1, R1.2, R2.1), loaded and validated.

A board file is TOML. Two boards ship in the package (:func:`installed_boards`):
``standard``, the current reconstruction, and ``reconstruction-1``, the earlier one,
kept so that games and records made on it replay exactly. A player who owns the
printed board can describe it in a file of the same format and load it with
``--board FILE``. Every rule of the game is independent of which board is loaded.

**Identity.** A board has an ``id`` (the top-level key ``id`` of its file: lowercase
letters, digits, ``-``, ``_`` and ``.``, starting with a letter or digit) and a content
``digest``, ``"sha256:"`` followed by the hex SHA-256 of the board's *parsed* TOML
document (every key of the file, the ``about`` text and coordinates included) written
as canonical JSON: keys sorted at every level, arrays in file order, no whitespace
(separators ``,`` and ``:``), non-ASCII characters as themselves (``ensure_ascii=False``),
integers as integers, floats in Python's shortest round-trip form (so ``50.0`` and
``50.00`` are the same, ``50`` and ``50.0`` are not), TOML dates and times as
``{"toml-<type>": "<ISO 8601>"}``; that text is encoded as UTF-8 and hashed.
Comments, whitespace, quoting style and the order of keys within a table do not change
the digest; any change to a value, or to the order of an array (sites, roads, cards,
...), does. Records and views name a board by its id, and a record keeps the digest,
so a shipped board file must never change once games were played on it: a changed
board gets a new id and the old file stays (as ``reconstruction-1`` did).

Internally everything is a small integer (countries, sites, card kinds, in file order);
the ids are used at the edges (moves, records, views).
"""

from __future__ import annotations

import datetime
import hashlib
import json
import re
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from functools import cache, partial
from importlib import resources
from pathlib import Path
from typing import Any

__all__ = [
    "Board",
    "BoardError",
    "CardKind",
    "Country",
    "Site",
    "Alliance",
    "STANDARD",
    "board_digest",
    "get_board",
    "installed_boards",
    "load_board",
    "parse_board",
    "standard_board",
]

STANDARD = "standard"
"""The id of the board used when none is named."""

# id -> file in the package (kardinal/rules/data/); the standard board first
_INSTALLED: dict[str, str] = {
    STANDARD: "data/standard.toml",
    "reconstruction-1": "data/reconstruction-1.toml",
}

_ID_RE = re.compile(r"[a-z0-9][a-z0-9._-]*")


class BoardError(ValueError):
    """A board file that cannot be used; the message names the key that is wrong."""


@dataclass(frozen=True)
class CardKind:
    index: int
    id: str
    short: str
    countries: tuple[int, ...]
    count: int


@dataclass(frozen=True)
class Country:
    index: int
    id: str
    name_de: str
    name_en: str
    ring: str
    sites: tuple[int, ...]


@dataclass(frozen=True)
class Site:
    index: int
    id: str
    country: int
    name: str
    lat: float
    lon: float


@dataclass(frozen=True)
class Alliance:
    number: int
    countries: tuple[int, int]
    across: str


@dataclass(frozen=True, eq=False)
class Board:
    """A loaded board. Boards compare and hash by identity; ``id`` and ``digest`` name the content."""

    id: str
    name: str
    about: str
    reconstruction: bool
    cards: tuple[CardKind, ...]
    countries: tuple[Country, ...]
    sites: tuple[Site, ...]
    roads: tuple[tuple[int, int], ...]
    alliances: tuple[Alliance, ...]
    supply_cloisters: int
    supply_advisors: int
    removed_per_kind: dict[int, int]
    digest: str = ""
    source: str = ""
    # derived lookups
    kind_index: dict[str, int] = field(default_factory=dict, repr=False)
    short_index: dict[str, int] = field(default_factory=dict, repr=False)
    country_index: dict[str, int] = field(default_factory=dict, repr=False)
    site_index: dict[str, int] = field(default_factory=dict, repr=False)
    neighbours: tuple[tuple[int, ...], ...] = field(default=(), repr=False)
    # kinds_naming[country] = card kinds whose cards name that country
    kinds_naming: tuple[tuple[int, ...], ...] = field(default=(), repr=False)

    @property
    def player_counts(self) -> tuple[int, ...]:
        return tuple(sorted(self.removed_per_kind))

    @property
    def total_cards(self) -> int:
        return sum(k.count for k in self.cards)

    def kind(self, ident: str) -> int:
        """Index of a card kind from its id (``bayern-burgund``) or short code (``BB``)."""
        if ident in self.kind_index:
            return self.kind_index[ident]
        up = ident.upper()
        if up in self.short_index:
            return self.short_index[up]
        raise KeyError(f"unknown card kind {ident!r}")

    def country(self, ident: str) -> int:
        try:
            return self.country_index[ident.lower()]
        except KeyError:
            raise KeyError(f"unknown country {ident!r}") from None

    def site(self, ident: str) -> int:
        try:
            return self.site_index[ident.lower()]
        except KeyError:
            raise KeyError(f"unknown cloister site {ident!r}") from None

    def describe(self) -> str:
        """The board in text: countries, sites, roads, alliances."""
        title = self.id if self.name == self.id else f"{self.id} ({self.name})"
        lines = [f"Board: {title}", f"Digest: {self.digest}"]
        if self.reconstruction:
            lines.append("NOTE: " + self.about)
            lines.append("      (the printed board is not fully documented; see docs/board.md)")
        elif self.about:
            lines.append(self.about)
        lines.append("")
        lines.append("Cards:")
        for k in self.cards:
            names = "/".join(self.countries[c].name_de for c in k.countries)
            lines.append(f"  {k.short}  {k.id:<20} x{k.count:<3} names {names}")
        lines.append("")
        lines.append("Countries (conventional scoring order) and cloister sites:")
        for c in self.countries:
            sites = ", ".join(self.sites[s].name for s in c.sites)
            lines.append(f"  {c.name_de} ({c.name_en}, {c.ring}), {len(c.sites)} sites: {sites}")
        lines.append("")
        lines.append(f"Roads ({len(self.roads)}):")
        for a, b in self.roads:
            sa, sb = self.sites[a], self.sites[b]
            border = "" if sa.country == sb.country else "   (border)"
            lines.append(f"  {sa.name} - {sb.name}{border}")
        lines.append("")
        lines.append("Alliances (scored in this order):")
        for al in self.alliances:
            ca, cb = (self.countries[c].name_de for c in al.countries)
            lines.append(f"  {al.number:>2}  {ca} - {cb}  ({al.across})")
        return "\n".join(lines)


def _req(d: dict[str, Any], key: str, typ: type | tuple[type, ...], where: str) -> Any:
    if key not in d:
        raise BoardError(f"{where}: missing key '{key}'")
    v = d[key]
    if typ is float and isinstance(v, int) and not isinstance(v, bool):
        return float(v)
    if not isinstance(v, typ) or (typ is int and isinstance(v, bool)):
        name = typ.__name__ if isinstance(typ, type) else "/".join(t.__name__ for t in typ)
        raise BoardError(f"{where}.{key}: expected {name}, got {v!r}")
    return v


def _table_list(d: dict[str, Any], key: str) -> list[dict[str, Any]]:
    v = d.get(key)
    if not isinstance(v, list) or not v or not all(isinstance(x, dict) for x in v):
        raise BoardError(f"'{key}': expected a non-empty array of tables ([[{key}]])")
    return v


def _canonical(o: Any) -> Any:
    """JSON stand-in for the TOML values JSON has no type for (dates and times)."""
    if isinstance(o, datetime.date | datetime.time):
        return {f"toml-{type(o).__name__}": o.isoformat()}
    raise TypeError(f"not a TOML value: {o!r}")  # pragma: no cover - tomllib makes none


def board_digest(data: dict[str, Any]) -> str:
    """The content digest of a parsed board file (see the module docstring for what is hashed)."""
    text = json.dumps(data, sort_keys=True, separators=(",", ":"), ensure_ascii=False, default=_canonical)
    return "sha256:" + hashlib.sha256(text.encode("utf-8")).hexdigest()


def parse_board(data: dict[str, Any], source: str = "") -> Board:
    """Build and validate a board from parsed TOML data."""
    if data.get("format") != "kardinal-board":
        raise BoardError("'format': expected \"kardinal-board\"")
    if data.get("version") != 1:
        raise BoardError(f"'version': unsupported version {data.get('version')!r} (expected 1)")
    if "id" not in data:
        raise BoardError("missing key 'id': a board file names its board (id = \"my-board\"), and records refer to it by that id")
    bid = _req(data, "id", str, "board")
    if not _ID_RE.fullmatch(bid):
        raise BoardError(f"'id': {bid!r} is not a board id (lowercase letters, digits, '-', '_' and '.', starting with a letter or digit)")
    name = _req(data, "name", str, "board")
    about = data.get("about", "")
    if not isinstance(about, str):
        raise BoardError(f"board.about: expected str, got {about!r}")
    reconstruction = bool(data.get("reconstruction", False))

    countries_raw = _table_list(data, "countries")
    country_index: dict[str, int] = {}
    for i, c in enumerate(countries_raw):
        where = f"countries[{i}]"
        cid = _req(c, "id", str, where)
        if cid in country_index:
            raise BoardError(f"{where}.id: duplicate country id {cid!r}")
        for key in ("name_de", "name_en", "ring"):
            _req(c, key, str, where)
        country_index[cid] = i

    cards_raw = _table_list(data, "cards")
    kinds: list[CardKind] = []
    kind_index: dict[str, int] = {}
    short_index: dict[str, int] = {}
    for i, k in enumerate(cards_raw):
        where = f"cards[{i}]"
        kid = _req(k, "id", str, where)
        short = _req(k, "short", str, where).upper()
        if kid in kind_index:
            raise BoardError(f"{where}.id: duplicate card kind {kid!r}")
        if short in short_index:
            raise BoardError(f"{where}.short: duplicate short code {short!r}")
        names = _req(k, "countries", list, where)
        if not names:
            raise BoardError(f"{where}.countries: a card must name at least one country")
        idx = []
        for n in names:
            if n not in country_index:
                raise BoardError(f"{where}.countries: unknown country {n!r}")
            idx.append(country_index[n])
        count = _req(k, "count", int, where)
        if count < 1:
            raise BoardError(f"{where}.count: must be at least 1")
        kind_index[kid] = i
        short_index[short] = i
        kinds.append(CardKind(i, kid, short, tuple(idx), count))

    sites_raw = _table_list(data, "sites")
    site_index: dict[str, int] = {}
    sites: list[Site] = []
    per_country: list[list[int]] = [[] for _ in countries_raw]
    for i, s in enumerate(sites_raw):
        where = f"sites[{i}]"
        sid = _req(s, "id", str, where)
        if sid in site_index or sid in country_index:
            raise BoardError(f"{where}.id: duplicate id {sid!r}")
        cid = _req(s, "country", str, where)
        if cid not in country_index:
            raise BoardError(f"{where}.country: unknown country {cid!r}")
        site = Site(i, sid, country_index[cid], _req(s, "name", str, where), _req(s, "lat", float, where), _req(s, "lon", float, where))
        site_index[sid] = i
        sites.append(site)
        per_country[site.country].append(i)

    countries = []
    for i, c in enumerate(countries_raw):
        if not per_country[i]:
            raise BoardError(f"countries[{i}] ({c['id']!r}): a country without cloister sites")
        countries.append(Country(i, c["id"], c["name_de"], c["name_en"], c["ring"], tuple(per_country[i])))
    for country in countries:
        if not any(country.index in k.countries for k in kinds):
            raise BoardError(f"countries ({country.id!r}): no card kind names this country")

    roads_raw = data.get("roads")
    if not isinstance(roads_raw, list):
        raise BoardError("'roads': expected an array of [site, site] pairs")
    roads: list[tuple[int, int]] = []
    seen: set[frozenset[int]] = set()
    for i, r in enumerate(roads_raw):
        where = f"roads[{i}]"
        if not (isinstance(r, list) and len(r) == 2 and all(isinstance(x, str) for x in r)):
            raise BoardError(f"{where}: expected a pair of site ids, got {r!r}")
        for x in r:
            if x not in site_index:
                raise BoardError(f"{where}: unknown site {x!r}")
        a, b = site_index[r[0]], site_index[r[1]]
        if a == b:
            raise BoardError(f"{where}: a road from {r[0]!r} to itself")
        if frozenset((a, b)) in seen:
            raise BoardError(f"{where}: duplicate road {r[0]!r}-{r[1]!r}")
        seen.add(frozenset((a, b)))
        roads.append((a, b))
    nb: list[list[int]] = [[] for _ in sites]
    for a, b in roads:
        nb[a].append(b)
        nb[b].append(a)

    alliances_raw = _table_list(data, "alliances")
    alliances = []
    numbers: set[int] = set()
    for i, araw in enumerate(alliances_raw):
        where = f"alliances[{i}]"
        num = _req(araw, "number", int, where)
        if num in numbers:
            raise BoardError(f"{where}.number: duplicate alliance number {num}")
        numbers.add(num)
        pair = _req(araw, "countries", list, where)
        if len(pair) != 2 or pair[0] == pair[1]:
            raise BoardError(f"{where}.countries: expected two different countries, got {pair!r}")
        for x in pair:
            if x not in country_index:
                raise BoardError(f"{where}.countries: unknown country {x!r}")
        across = araw.get("across", "land")
        if across not in ("land", "sea"):
            raise BoardError(f'{where}.across: expected "land" or "sea", got {across!r}')
        alliances.append(Alliance(num, (country_index[pair[0]], country_index[pair[1]]), across))
    alliances.sort(key=lambda al: al.number)

    supply = data.get("supply")
    if not isinstance(supply, dict):
        raise BoardError("'supply': expected a table with cloisters and advisors")
    sc = _req(supply, "cloisters", int, "supply")
    sa = _req(supply, "advisors", int, "supply")
    if sc < 1 or sa < 0:
        raise BoardError("supply: cloisters must be at least 1 and advisors at least 0")

    rem_raw = data.get("removed_per_kind")
    if not isinstance(rem_raw, dict) or not rem_raw:
        raise BoardError("'removed_per_kind': expected a table of players = cards removed per kind")
    removed: dict[int, int] = {}
    for key, val in rem_raw.items():
        if not key.isdigit() or not isinstance(val, int) or val < 0:
            raise BoardError(f"removed_per_kind.{key}: expected players = number of cards")
        n = int(key)
        if n < 2:
            raise BoardError(f"removed_per_kind.{key}: at least 2 players")
        left = sum(k.count - val for k in kinds)
        if any(k.count < val for k in kinds) or left < 3 * n + 3:
            raise BoardError(f"removed_per_kind.{key}: too few cards remain for {n} players")
        removed[n] = val

    kinds_naming = tuple(tuple(k.index for k in kinds if c.index in k.countries) for c in countries)
    return Board(
        id=bid,
        name=name,
        about=about,
        reconstruction=reconstruction,
        cards=tuple(kinds),
        countries=tuple(countries),
        sites=tuple(sites),
        roads=tuple(roads),
        alliances=tuple(alliances),
        supply_cloisters=sc,
        supply_advisors=sa,
        removed_per_kind=removed,
        digest=board_digest(data),
        source=source,
        kind_index=kind_index,
        short_index=short_index,
        country_index=country_index,
        site_index=site_index,
        neighbours=tuple(tuple(x) for x in nb),
        kinds_naming=kinds_naming,
    )


def _read_board(path: str | Path) -> Board:
    p = Path(path)
    try:
        raw = p.read_bytes()
    except OSError as e:
        raise BoardError(f"cannot read board file {str(p)!r}: {e.strerror}") from None
    try:
        data = tomllib.loads(raw.decode("utf-8"))
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as e:
        raise BoardError(f"{p}: not a valid TOML file: {e}") from None
    try:
        return parse_board(data, source=str(p))
    except BoardError as e:
        raise BoardError(f"{p}: {e}") from None


def load_board(path: str | Path) -> Board:
    """Load a board file; raises BoardError with the offending key on any problem.

    A file may not take the id of an installed board unless it has that board's content
    (the same digest): two boards under one id would make the records that name it
    ambiguous.
    """
    b = _read_board(path)
    if b.id in _INSTALLED:
        mine = _installed(b.id)
        if b.digest != mine.digest:
            raise BoardError(
                f"{path}: the id {b.id!r} belongs to an installed board, and this file's content differs from it "
                f'({b.digest} is not {mine.digest}); give your board its own id (id = "..." at the top of the file)'
            )
    return b


@cache
def _installed(bid: str) -> Board:
    """An installed board, loaded once per id."""
    text = resources.files("kardinal.rules").joinpath(_INSTALLED[bid]).read_text(encoding="utf-8")
    b = parse_board(tomllib.loads(text), source=bid)
    if b.id != bid:  # pragma: no cover - a packaging mistake
        raise BoardError(f"{_INSTALLED[bid]}: installed as {bid!r} but its id is {b.id!r}")
    return b


def installed_boards() -> dict[str, Callable[[], Board]]:
    """The boards shipped with the package: id -> a function that loads it (once; cached).

    The standard board comes first.
    """
    return {bid: partial(_installed, bid) for bid in _INSTALLED}


@cache
def standard_board() -> Board:
    """The board used when none is named (a reconstruction; see docs/board.md)."""
    return _installed(STANDARD)


def get_board(id_or_path: str | Path | None) -> Board:
    """A board by id or file.

    ``None``, ``""`` or ``"standard"``: the standard board; the id of another installed
    board (``"reconstruction-1"``): that board; anything else: a board file
    (:func:`load_board`).
    """
    if id_or_path is None or id_or_path in ("", STANDARD):
        return standard_board()
    if isinstance(id_or_path, str) and id_or_path in _INSTALLED:
        return _installed(id_or_path)
    return load_board(id_or_path)
