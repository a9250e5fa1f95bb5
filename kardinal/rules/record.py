"""Game records and positions: the JSON contracts other tools read.

A record (``"format": "kardinal-record"``) replays without any seed: it holds the deck
(the shuffled draw pile after R2.1, top first), the reshuffled pile of R7.3 (if one was
formed) and every decision. A position (``"format": "kardinal-position"``) is a board to
score. Both are validated: a malformed file raises RecordError (what is malformed), an
illegal action IllegalAction (its index and the rule).

Record versions. Version 2 (written now) names its board by id with the board's content
digest, and its rule variants (R14)::

    {"format": "kardinal-record", "version": 2, "board": "standard",
     "board_digest": "sha256:...", "variants": [], "players": [...], "deck": [...],
     "reshuffle": [...], "actions": [...], "result": {...}}

Version 1 (written before the counted board and the German joker rule) replays exactly
as it was played: "standard" in a version-1 record means the earlier board, kept as
``reconstruction-1``, and the joker rule of the variant ``joker-anywhere``.

:func:`steps` is the one replay loop: record actions in, (state, what happened) out. The
record replayer, the game in words, the clients and the server all use it.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator
from pathlib import Path
from typing import Any, NamedTuple, NotRequired

from typing_extensions import TypedDict  # see breakdown.py

from .board import Board, BoardError, get_board, installed_boards
from .events import Decision, Event
from .moves import DECK, Draw, Exchange, Move, Pass, Place, make_place
from .scoring import FinalScoring, final_scoring
from .state import OVER, RuleError, State, new_game
from .variants import JOKER_ANYWHERE, VariantError, parse_variants

__all__ = [
    "RecordError",
    "IllegalAction",
    "record_of",
    "action_of",
    "RecordAction",
    "PieceData",
    "Step",
    "steps",
    "record_steps",
    "start_of",
    "rewind",
    "move_of",
    "replay",
    "read_json",
    "load_record",
    "Position",
    "parse_position",
    "score_position",
]

RECORD_FORMAT = "kardinal-record"
POSITION_FORMAT = "kardinal-position"
RECORD_VERSION = 2
# what a version-1 record's "standard" board and rules were
V1_BOARD = "reconstruction-1"
V1_VARIANTS = (JOKER_ANYWHERE,)


class PieceData(TypedDict):
    type: str  # "cloister" or "advisor"
    site: NotRequired[str]  # cloisters only


# One decision in a record: "act" is place, draw, exchange or pass; "from" is "deck" or
# "display" (draw, exchange); "card" names the display card taken. Functional syntax,
# because "from" is a Python keyword.
RecordAction = TypedDict(
    "RecordAction",
    {
        "seat": int,
        "act": str,
        "country": NotRequired[str],
        "cards": NotRequired[list[str]],
        "pieces": NotRequired[list[PieceData]],
        "discard": NotRequired[str],
        "from": NotRequired[str],
        "card": NotRequired[str],
    },
)


class RecordError(ValueError):
    """A record or position file that is malformed (not a rules question)."""


class IllegalAction(ValueError):
    """An action of a record that the rules refuse."""

    def __init__(self, index: int, action: Any, error: RuleError | str) -> None:
        rule = error.rule if isinstance(error, RuleError) else "R3"
        msg = str(error)
        super().__init__(f"action {index}: {msg}")
        self.index = index
        self.action = action
        self.rule = rule


def action_of(seat: int, move: Move) -> RecordAction:
    """One record action for a decision (the keys in the order records have always had)."""
    a: dict[str, Any]
    if isinstance(move, Place):
        a = {"seat": seat, "act": "place", "country": move.country, "cards": list(move.cards), "pieces": move.pieces}
    elif isinstance(move, Draw):
        a = (
            {"seat": seat, "act": "draw", "from": "deck"}
            if move.source == DECK
            else {"seat": seat, "act": "draw", "from": "display", "card": move.source}
        )
    elif isinstance(move, Exchange):
        a = {"seat": seat, "act": "exchange", "discard": move.discard}
        if move.take == DECK:
            a["from"] = "deck"
        else:
            a["from"] = "display"
            a["card"] = move.take
    else:
        a = {"seat": seat, "act": "pass"}
    return a  # type: ignore[return-value]


def _str(a: dict[str, Any], key: str, where: str) -> str:
    v = a.get(key)
    if not isinstance(v, str):
        raise RecordError(f"{where}: '{key}' must be a string")
    return v


def _take(a: dict[str, Any], where: str) -> str:
    src = a.get("from")
    if src == "deck":
        if "card" in a:
            raise RecordError(f"{where}: a draw from the deck names no card")
        return DECK
    if src == "display":
        return _str(a, "card", where)
    raise RecordError(f'{where}: \'from\' must be "deck" or "display"')


_KEYS = {
    "place": {"seat", "act", "country", "cards", "pieces"},
    "draw": {"seat", "act", "from", "card"},
    "exchange": {"seat", "act", "discard", "from", "card"},
    "pass": {"seat", "act"},
}


def move_of(a: Any, where: str = "action") -> tuple[int, Move]:
    """(seat, move) from a record action; RecordError if malformed."""
    if not isinstance(a, dict):
        raise RecordError(f"{where}: expected an object")
    seat = a.get("seat")
    if not isinstance(seat, int) or isinstance(seat, bool):
        raise RecordError(f"{where}: 'seat' must be an integer")
    act = a.get("act")
    if act not in _KEYS:
        raise RecordError(f"{where}: 'act' must be one of place, draw, exchange, pass")
    extra = set(a) - _KEYS[act]
    if extra:
        raise RecordError(f"{where}: unexpected key(s) {', '.join(sorted(extra))} for '{act}'")
    if act == "pass":
        return seat, Pass()
    if act == "draw":
        return seat, Draw(_take(a, where))
    if act == "exchange":
        return seat, Exchange(_str(a, "discard", where), _take(a, where))
    country = _str(a, "country", where)
    cards = a.get("cards")
    if not isinstance(cards, list) or not all(isinstance(c, str) for c in cards):
        raise RecordError(f"{where}: 'cards' must be a list of card kinds")
    pieces = a.get("pieces")
    if not isinstance(pieces, list):
        raise RecordError(f"{where}: 'pieces' must be a list")
    sites: list[str] = []
    advisors = 0
    for j, p in enumerate(pieces):
        if not isinstance(p, dict):
            raise RecordError(f"{where}.pieces[{j}]: expected an object")
        if p.get("type") == "cloister" and set(p) == {"type", "site"} and isinstance(p.get("site"), str):
            sites.append(p["site"])
        elif p.get("type") == "advisor" and set(p) == {"type"}:
            advisors += 1
        else:
            raise RecordError(f'{where}.pieces[{j}]: expected {{"type": "cloister", "site": ...}} or {{"type": "advisor"}}')
    return seat, make_place(country, cards, sites, advisors)


def record_of(state: State, players: list[str] | None = None, seed: bool = False) -> dict[str, Any]:
    """The record of a game played from new_game with history on (finished or not)."""
    if state.history is None:
        raise ValueError("this state keeps no history")
    b = state.board
    ids = [k.id for k in b.cards]
    start = state.initial_deck
    rec: dict[str, Any] = {
        "format": RECORD_FORMAT,
        "version": RECORD_VERSION,
        "board": b.id,
        "board_digest": b.digest,
        "variants": list(state.variants),
        "players": list(players) if players else [f"Player {i + 1}" for i in range(state.n)],
        "deck": [ids[k] for k in start],
    }
    if state.reshuffle is not None:
        rec["reshuffle"] = [ids[k] for k in state.reshuffle]
    rec["actions"] = [action_of(d.seat, d.move) for d in state.history]
    if state.phase == OVER:
        rec["result"] = {"scores": state.scores[:], "winners": list(state.winners or [])}
    if seed and state.seed is not None:
        rec["seed"] = state.seed
    return rec


def read_json(path: str | Path) -> Any:
    p = Path(path)
    try:
        text = p.read_text(encoding="utf-8")
    except OSError as e:
        raise RecordError(f"cannot read {str(p)!r}: {e.strerror}") from None
    except UnicodeDecodeError:
        raise RecordError(f"{p}: not a UTF-8 text file") from None
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        raise RecordError(f"{p}: not valid JSON ({e.msg} at line {e.lineno}, column {e.colno})") from None


def _board_of(data: dict[str, Any], board: Board | None, version: int) -> Board:
    """The board a record or position was made on; ``board``: the one the user gave (--board).

    Version 2 names a board by id and digest: an installed board is found by its id, a
    custom one must be given, and a board that is not the one named is refused.
    """
    name = data.get("board", "standard")
    if not isinstance(name, str):
        raise RecordError("'board' must be a string: a board id")
    if version == 1:
        if board is not None:
            return board
        try:
            # version 1 (records and positions) knew one "standard" board: the earlier one
            return get_board(V1_BOARD if name == "standard" else name)
        except BoardError as e:
            raise RecordError(f"board: {e}") from None
    digest = data.get("board_digest")
    if digest is not None and not isinstance(digest, str):
        raise RecordError("'board_digest' must be a string")
    if board is None:
        try:
            board = get_board(name) if name in installed_boards() else None
        except BoardError as e:
            raise RecordError(f"board: {e}") from None
        if board is None:
            raise RecordError(f"made on the board {name!r}, which is not installed: give its board file (--board FILE)")
    if board.id != name:
        raise RecordError(f"made on the board {name!r}, not on {board.id!r}")
    if digest is not None and digest != board.digest:
        raise RecordError(
            f"made on a different version of the board {name!r} (its content digest differs): this board file is not the one it was played on"
        )
    return board


def _variants_of(data: dict[str, Any], version: int) -> tuple[str, ...]:
    if version == 1:
        return V1_VARIANTS
    names = data.get("variants", [])
    if not isinstance(names, list) or not all(isinstance(x, str) for x in names):
        raise RecordError("'variants' must be a list of variant names")
    try:
        return parse_variants(names)
    except VariantError as e:
        raise RecordError(f"variants: {e}") from None


def _header(data: Any, fmt: str, what: str, board: Board | None) -> tuple[Board, int]:
    """Check the object, its format and version; the board it names, and the version."""
    if not isinstance(data, dict):
        raise RecordError(f"a {what} is a JSON object")
    if data.get("format") != fmt:
        raise RecordError(f"'format' must be \"{fmt}\"")
    version = data.get("version")
    if version not in (1, 2) or isinstance(version, bool):
        raise RecordError(f"'version': unsupported version {version!r} (expected 1 or 2)")
    assert isinstance(version, int)
    return _board_of(data, board, version), version


class Step(NamedTuple):
    """One decision replayed: its index in the record (``action_index``), who took it, the move, what it
    caused, and the state after it (the same object at every step: copy it to keep it)."""

    action_index: int
    seat: int
    move: Move
    events: tuple[Event, ...]
    state: State


def steps(state: State, actions: Iterable[Any], start: int = 0) -> Iterator[Step]:
    """Play record actions on ``state`` (mutating it), checking each; yield every step.

    The one replay loop. ``actions``: record actions (dicts) or Decisions (a history);
    ``start``: the index of the first one (for messages). Raises RecordError for a
    malformed action and IllegalAction for one the rules refuse; the state keeps the
    steps before it.
    """
    b = state.board
    for i, a in enumerate(actions, start):
        if isinstance(a, Decision):
            seat, move = a.seat, a.move
        else:
            seat, move = move_of(a, f"actions[{i}]")
            _check_ids(b, move, f"actions[{i}]")
        if state.phase == OVER:
            raise IllegalAction(i, a, RuleError("R8", "game_over", "the game is already over"))
        if seat != state.current:
            raise IllegalAction(i, a, RuleError("R3", "not_your_turn", f"it is seat {state.current}'s turn, not seat {seat}'s"))
        try:
            state.play(move)
        except RuleError as e:
            if e.code in ("no_reshuffle", "bad_reshuffle"):
                raise RecordError(
                    f"actions[{i}] uses up the draw pile: 'reshuffle' {'is missing' if e.code == 'no_reshuffle' else 'is not a shuffle of the discard pile'}"
                ) from None
            raise IllegalAction(i, a, e) from None
        events = state.history[-1].events if state.history else ()
        yield Step(i, seat, move, events, state)


def start_of(data: Any, board: Board | None = None) -> State:
    """The state a record starts from (after the deal), its header checked."""
    b, version = _header(data, RECORD_FORMAT, "record", board)
    players = data.get("players")
    if not isinstance(players, list) or not all(isinstance(x, str) for x in players):
        raise RecordError("'players' must be a list of names")
    if len(players) not in b.removed_per_kind:
        raise RecordError(f"'players': {len(players)} players; the game is for {', '.join(map(str, b.player_counts))}")
    deck = data.get("deck")
    if not isinstance(deck, list) or not all(isinstance(x, str) for x in deck):
        raise RecordError("'deck' must be a list of card kinds")
    reshuffle = data.get("reshuffle")
    if reshuffle is not None and (not isinstance(reshuffle, list) or not all(isinstance(x, str) for x in reshuffle)):
        raise RecordError("'reshuffle' must be a list of card kinds")
    if not isinstance(data.get("actions"), list):
        raise RecordError("'actions' must be a list")
    try:
        # a record carries no seed: all chance is in it
        return new_game(len(players), board=b, deck=deck, reshuffle=reshuffle, variants=_variants_of(data, version), seed=None)
    except ValueError as e:
        raise RecordError(str(e)) from None


def record_steps(data: Any, board: Board | None = None, stop: int | None = None) -> Iterator[Step]:
    """Replay a record step by step (see :func:`steps`); ``stop``: only that many actions."""
    state = start_of(data, board)
    actions = data["actions"]
    yield from steps(state, actions if stop is None else actions[:stop])


def rewind(state: State, upto: int) -> State:
    """The same game replayed from its deal to just before decision ``upto``.

    Same board, variants, deck, reshuffle and seed: the game can go on from there (undo,
    a replay viewer). ``state`` must keep its history.
    """
    if state.history is None:
        raise ValueError("this state keeps no history")
    ids = [k.id for k in state.board.cards]
    reshuffle = state.reshuffle if state.reshuffle is not None else state.fixed_reshuffle
    s = new_game(
        state.n,
        board=state.board,
        deck=[ids[k] for k in state.initial_deck],
        reshuffle=[ids[k] for k in reshuffle] if reshuffle is not None else None,
        variants=state.variants,
    )
    s.reseed(state.seed)
    for _ in steps(s, state.history[:upto]):
        pass
    return s


def replay(data: Any, board: Board | None = None, stop: int | None = None) -> State:
    """Replay a record, checking every action. ``stop``: replay only that many actions.

    Raises RecordError for a malformed record and IllegalAction for an illegal action.
    """
    state = start_of(data, board)
    actions = data["actions"]
    for _ in steps(state, actions if stop is None else actions[:stop]):
        pass
    if data.get("reshuffle") is not None and state.reshuffle is None and stop is None and state.phase == OVER:
        raise RecordError("'reshuffle' is given, but the draw pile was never used up")
    return state


def _check_ids(b: Board, move: Move, where: str) -> None:
    """A card kind, country or site the board does not have makes the record malformed."""
    kinds: list[str] = []
    if isinstance(move, Place):
        kinds = list(move.cards)
        if move.country not in b.country_index:
            raise RecordError(f"{where}: unknown country {move.country!r}")
        for sid in move.cloisters:
            if sid not in b.site_index:
                raise RecordError(f"{where}: unknown cloister site {sid!r}")
    elif isinstance(move, Exchange):
        kinds = [move.discard] + ([] if move.take == DECK else [move.take])
    elif isinstance(move, Draw) and move.source != DECK:
        kinds = [move.source]
    for k in kinds:
        if k not in b.kind_index:
            raise RecordError(f"{where}: unknown card kind {k!r}")


def load_record(path: str | Path) -> dict[str, Any]:
    data = read_json(path)
    if not isinstance(data, dict):
        raise RecordError("a record is a JSON object")
    return data


# -- positions ----------------------------------------------------------------------


class Position:
    """A board position to score (R9-R11)."""

    def __init__(self, board: Board, players: int, owner: list[int], advisors: list[list[int]]) -> None:
        self.board = board
        self.players = players
        self.owner = owner
        self.advisors = advisors
        self.cloisters = [[0] * players for _ in board.countries]
        for s, p in enumerate(owner):
            if p >= 0:
                self.cloisters[board.sites[s].country][p] += 1

    def score(self) -> FinalScoring:
        return final_scoring(self.board, self.cloisters, self.advisors, self.owner)


def parse_position(data: Any, board: Board | None = None) -> Position:
    b, _ = _header(data, POSITION_FORMAT, "position", board)
    n = data.get("players")
    if not isinstance(n, int) or isinstance(n, bool) or n not in b.removed_per_kind:
        raise RecordError(f"'players' must be one of {', '.join(map(str, b.player_counts))}")
    cl = data.get("cloisters", {})
    if not isinstance(cl, dict):
        raise RecordError("'cloisters' must be an object: site -> seat")
    owner = [-1] * len(b.sites)
    for sid, seat in cl.items():
        if sid not in b.site_index:
            raise RecordError(f"cloisters: unknown site {sid!r}")
        if not isinstance(seat, int) or isinstance(seat, bool) or not 0 <= seat < n:
            raise RecordError(f"cloisters.{sid}: seat must be 0..{n - 1}")
        owner[b.site_index[sid]] = seat
    for p in range(n):
        if owner.count(p) > b.supply_cloisters:
            raise RecordError(f"cloisters: seat {p} has {owner.count(p)} cloisters, more than the {b.supply_cloisters} of a supply (R1.2)")
    adv_raw = data.get("advisors", {})
    if not isinstance(adv_raw, dict):
        raise RecordError("'advisors' must be an object: country -> advisors per seat")
    advisors = [[0] * n for _ in b.countries]
    for cid, row in adv_raw.items():
        if cid not in b.country_index:
            raise RecordError(f"advisors: unknown country {cid!r}")
        if not isinstance(row, list) or len(row) != n or not all(isinstance(x, int) and not isinstance(x, bool) and x >= 0 for x in row):
            raise RecordError(f"advisors.{cid}: expected {n} non-negative integers, one per seat")
        advisors[b.country_index[cid]] = list(row)
    pos = Position(b, n, owner, advisors)
    for c, country in enumerate(b.countries):
        if sum(advisors[c]) > max(pos.cloisters[c]):
            raise RecordError(
                f"advisors.{country.id}: {sum(advisors[c])} advisors, but the most cloisters of one player there is {max(pos.cloisters[c])} (R4.8)"
            )
    for p in range(n):
        total = sum(row[p] for row in advisors)
        if total > b.supply_advisors:
            raise RecordError(f"advisors: seat {p} has {total} advisors, more than the {b.supply_advisors} of a supply (R1.2)")
    return pos


def score_position(data: Any, board: Board | None = None) -> FinalScoring:
    return parse_position(data, board).score()
