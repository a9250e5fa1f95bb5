"""Drawing the game for the terminal, from a player's view only.

Every function here takes ``kardinal.rules.view.view(state, seat)`` (a dict), never the
state: what is drawn is exactly what that seat may know (R13).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import NamedTuple

from rich.console import Group, RenderableType
from rich.table import Table
from rich.text import Text

from kardinal.clients.text import describe_move
from kardinal.rules.board import Board
from kardinal.rules.moves import DECK, Draw
from kardinal.rules.record import move_of
from kardinal.rules.scoring import majority_holders
from kardinal.rules.view import HistoryEntry, ViewData

__all__ = ["TableStyle", "seat_tags", "board_panel", "status_panel", "screen", "turn_lines", "alliance_holders"]

SEAT_STYLES = ("bold red", "bold blue", "bold green", "bold dark_orange", "bold magenta")

# Where each country of the standard board goes on the screen: three columns that
# follow the map (west, middle, east), alliances under the short middle column.
_MAP_COLUMNS = (("england", "frankreich", "aragon"), ("lothringen", "schwaben", "burgund"), ("franken", "bayern", "italien"))


def seat_tags(names: Sequence[str]) -> list[str]:
    """One distinct letter per seat (the initial where possible), for the board.

    >>> seat_tags(["Anna", "Ben", "Otto"]), seat_tags(["Anna", "Axel", "Ada"])
    (['A', 'B', 'O'], ['A', 'X', 'D'])
    """
    tags: list[str] = []
    for i, name in enumerate(names):
        letters = [ch.upper() for ch in name if ch.isalpha()] + [str(i + 1)]
        tags.append(next((ch for ch in letters if ch not in tags), str(i + 1)))
    return tags


def alliance_holders(board: Board, v: ViewData) -> list[tuple[int, str, str, list[int], int]]:
    """Per alliance: number, the two country ids, the seats holding both majorities, its points (R10.3)."""
    out = []
    for al in board.alliances:
        a, b = (board.countries[c].id for c in al.countries)
        both = sorted(set(majority_holders(v["advisors"][a])) & set(majority_holders(v["advisors"][b])))
        out.append((al.number, a, b, both, sum(v["advisors"][a]) + sum(v["advisors"][b])))
    return out


def _abbreviations(names: Sequence[str], ids: Sequence[str]) -> dict[str, str]:
    """Three-letter country names, distinct: 'Eng', 'Fkn' (Franken), 'Fkr' (Frankreich)."""
    out: dict[str, str] = {}
    for i, name in enumerate(names):
        clash = [n for n in names if n != name and n[:3].lower() == name[:3].lower()]
        if not clash:
            out[ids[i]] = name[:3]
            continue
        # the first letter where the clashing names part, after their common start
        k = next((j for j in range(len(name)) if all(j >= len(n) or n[j] != name[j] for n in clash)), len(name) - 1)
        out[ids[i]] = name[0] + name[1 : k + 1][-2:] if k >= 2 else name[:3]
    return out


class TableStyle:
    """How seats and cards are drawn: names, one letter and one colour per seat."""

    def __init__(self, board: Board, names: Sequence[str], bots: Sequence[str | None]) -> None:
        self.board = board
        self.names = list(names)
        self.bots = list(bots)
        self.tags = seat_tags(names)
        self.styles = [SEAT_STYLES[i % len(SEAT_STYLES)] for i in range(len(names))]
        self.site_country = {s.id: s.country for s in board.sites}
        self.site_name = {s.id: s.name for s in board.sites}
        self.country_name = {c.id: c.name_de for c in board.countries}
        self.short = {k.id: k.short for k in board.cards}
        self.abbrev = _abbreviations([c.name_de for c in board.countries], [c.id for c in board.countries])

    def who(self, seat: int, tag: bool = False) -> Text:
        label = f"{self.tags[seat]} {self.names[seat]}" if tag else self.names[seat]
        return Text(label, style=self.styles[seat])

    def tag(self, seat: int) -> Text:
        return Text(self.tags[seat], style=self.styles[seat])

    def card(self, kind: str) -> str:
        """'LI (Lothringen/Italien)'."""
        k = self.board.cards[self.board.kind_index[kind]]
        return f"{k.short} ({'/'.join(self.board.countries[c].name_de for c in k.countries)})"

    def cards(self, counts: dict[str, int]) -> str:
        """Card counts in board order, e.g. 'FR FR LI'."""
        return " ".join(k.short for k in self.board.cards for _ in range(counts.get(k.id, 0)))

    def site_line(self, v: ViewData, sid: str, width: int, indent: int = 2, wrap: bool = True) -> list[Text]:
        """'A Verona ─ Mailand, Venedig, Brixen' (A: whose cloister, ○: free), wrapped
        under the neighbours, or (``wrap=False``) cut to one line ending in '…'."""
        b = self.board
        owner = v["sites"].get(sid)
        head = Text()
        if owner is None:
            head.append("○ ", style="dim")
            head.append(self.site_name[sid])
        else:
            head.append(self.tags[owner] + " ", style=self.styles[owner])
            head.append(self.site_name[sid], style=self.styles[owner])
        head.append(" ─ ", style="dim")
        parts: list[Text] = []
        for n in b.neighbours[b.site_index[sid]]:
            nid = b.sites[n].id
            no = v["sites"].get(nid)
            parts.append(Text(self.site_name[nid], style=self.styles[no] if no is not None else ""))
        lines = [head]
        if not wrap:
            for i, p in enumerate(parts):
                head.append(", " if i else "")
                head.append_text(p)
            head.truncate(width, overflow="ellipsis")
            return lines
        for i, p in enumerate(parts):
            piece = p.copy()
            if i < len(parts) - 1:
                piece.append(",")
            if lines[-1].cell_len + 1 + piece.cell_len > width and lines[-1].cell_len > indent + 4:
                lines.append(Text(" " * indent))
            elif i:
                lines[-1].append(" ")
            lines[-1].append_text(piece)
        if not parts:
            lines[-1].append("no road", style="dim")
        return lines


def _country_block(look: TableStyle, v: ViewData, cid: str, width: int, wrap: bool) -> list[Text]:
    b = look.board
    c = b.countries[b.country_index[cid]]
    title = Text(c.name_de, style="bold underline")
    kinds = [k.short for k in b.cards if c.index in k.countries]
    title.append(" " + "/".join(kinds), style="dim")
    adv = v["advisors"][cid]
    title.append(f"  adv {sum(adv)}/{v['advisor_limit'][cid]}")
    for p, a in enumerate(adv):
        if a:
            title.append(" ")
            title.append(f"{look.tags[p]}{a}", style=look.styles[p])
    lines = [title]
    for s in c.sites:
        lines += look.site_line(v, b.sites[s].id, width, wrap=wrap)
    return lines


def _alliance_block(look: TableStyle, v: ViewData, width: int) -> list[Text]:
    lines = [Text("Alliances", style="bold underline").append("  both majorities: pts", style="dim")]
    entries: list[Text] = []
    for num, a, b, both, pts in alliance_holders(look.board, v):
        t = Text(f"{num:>2} {look.abbrev[a]}-{look.abbrev[b]} ")
        if both:
            for p in both:
                t.append(look.tag(p))
            t.append(f":{pts}")
        else:
            t.append("–", style="dim")
        entries.append(t)
    per_line = max(1, width // 16)
    for i in range(0, len(entries), per_line):
        line = Text()
        for t in entries[i : i + per_line]:
            t.pad_right(16 - t.cell_len)
            line.append_text(t)
        line.rstrip()
        lines.append(line)
    return lines


def _place_alliances(cells: list[list[Text]], block: list[Text]) -> None:
    """Put the alliance block under the shortest column, the rest of it (if it would make
    that column the tallest) under the next shortest, keeping the board low."""
    order = sorted(range(len(cells)), key=lambda j: len(cells[j]))
    if len(order) < 2:
        cells[order[0]] += block
        return
    a, b = order[0], order[1]
    for target in range(max(map(len, cells)), len(cells[a]) + len(block) + 1):
        room = target - len(cells[a])
        rest = block[room:]
        if not rest:
            cells[a] += block
            return
        if len(cells[b]) + 1 + len(rest) <= target:
            cells[a] += block[:room]
            cells[b] += [Text("Alliances (cont.)", style="bold underline"), *rest]
            return
    cells[a] += block


class BoardPanel(NamedTuple):
    """The drawn board and its height in lines."""

    grid: Table
    height: int

    def __rich__(self) -> Table:
        return self.grid


def board_panel(look: TableStyle, v: ViewData, width: int, height: int | None = None) -> BoardPanel:
    """The countries with their sites and roads, advisors and alliances, in columns.

    Each site lists its road neighbours; where that would make the board taller than
    ``height`` lines, long lists are cut to one line ending in '…' (the site menus and
    the full map, key m, show them whole)."""
    b = look.board
    ids = [c.id for c in b.countries]
    ncols = 3 if width >= 96 else 2 if width >= 64 else 1
    if ncols == 3 and sorted(ids) == sorted(x for col in _MAP_COLUMNS for x in col):
        columns = [list(col) for col in _MAP_COLUMNS]
    else:
        columns = [[] for _ in range(ncols)]
        sizes = [0] * ncols
        for c in b.countries:
            j = sizes.index(min(sizes))
            columns[j].append(c.id)
            sizes[j] += len(c.sites) + 1
    colw = (width - (ncols - 1)) // ncols
    for wrap in (True, False):
        cells: list[list[Text]] = []
        for col in columns:
            lines: list[Text] = []
            for cid in col:
                lines += _country_block(look, v, cid, colw, wrap)
            cells.append(lines)
        _place_alliances(cells, _alliance_block(look, v, colw))
        if height is None or max(map(len, cells)) <= height:
            break
    grid = Table.grid(padding=(0, 1))
    for _ in range(ncols):
        grid.add_column(width=colw, no_wrap=True, overflow="crop")
    grid.add_row(*(Text("\n").join(c) for c in cells))
    return BoardPanel(grid, max(map(len, cells)))


def status_panel(look: TableStyle, v: ViewData) -> RenderableType:
    """Players (score, supply, hand size), draw pile, display, discard pile."""
    t = Table.grid(padding=(0, 2))
    for _ in range(6):
        t.add_column(no_wrap=True)
    for p in range(v["players"]):
        mark = "▶" if p == v["current"] and v["phase"] != "over" else " "
        name = Text(mark + " ").append(look.who(p, tag=True))
        if look.bots[p]:
            name.append(f" ({look.bots[p]} bot)", style="dim")
        if p == 0:
            name.append(" start", style="dim")
        sup = v["supply"][p]
        known = v["known"][p]
        hand = f"hand {v['hand_sizes'][p]}"
        if known and p != v.get("seat"):
            hand += f", shown: {look.cards(known)}"
        t.add_row(name, f"{v['scores'][p]:>3} pts", f"cloisters {sup['cloisters']:>2}", f"advisors {sup['advisors']}", hand, "")
    return Group(t, pile_line(look, v))


def pile_line(look: TableStyle, v: ViewData) -> Text:
    """Draw pile, display and discard pile in one line."""
    pile = f"Draw pile {v['deck_size']}"
    if v["exhaustions"] == 1:
        pile += " (reshuffled once)"
    elif v["exhaustions"] >= 2:
        pile += " (used up twice)"
    if v["final_round"]:
        pile += " · FINAL ROUND"
    line = Text(pile, style="bold")
    line.append("   Display: ")
    line.append("  ".join(look.card(k) for k in v["display"]) or "empty", style="bold")
    discard = " ".join(f"{look.short[k.id]}×{v['discard'][k.id]}" for k in look.board.cards if v["discard"].get(k.id))
    line.append(f"   Discard: {discard or 'empty'}")
    return line


def hand_line(look: TableStyle, v: ViewData) -> Text:
    hand = v.get("hand") or {}
    t = Text("Your hand: ", style="bold")
    cards = [look.card(k.id) for k in look.board.cards for _ in range(hand.get(k.id, 0))]
    t.append("  ".join(cards) or "no cards", style="bold cyan")
    return t


def turn_lines(look: TableStyle, history: Sequence[HistoryEntry]) -> list[Text]:
    """The public log, one line per turn: the decision in words, then the cards drawn.

    >>> from kardinal.rules.board import standard_board
    >>> from kardinal.rules.moves import parse_move
    >>> from kardinal.rules.view import history_entry
    >>> from kardinal.rules.events import Decision
    >>> look = TableStyle(standard_board(), ["Anna", "Ben", "Cleo"], [None, None, None])
    >>> moves = [(0, "play FR frankreich paris"), (0, "draw BB"), (0, "draw deck"), (1, "exchange FR for deck")]
    >>> hist = [history_entry(look.board, Decision(p, parse_move(m), ()), None) for p, m in moves]
    >>> for t in turn_lines(look, hist): print(t)
    Anna plays Frankreich in Frankreich: cloister at Paris; took BB from the display, 1 from the pile
    Ben exchanges: discards Frankreich, takes a card from the draw pile
    """
    b = look.board
    turns: list[tuple[int, Text, list[str]]] = []
    for entry in history:
        seat, move = move_of(entry["action"])
        if isinstance(move, Draw) and turns and turns[-1][0] == seat:
            turns[-1][2].append(move.source)
            continue
        words = describe_move(b, look.names[seat], move)
        turns.append((seat, look.who(seat).append(words[len(look.names[seat]) :], style=""), []))
    out = []
    for _, text, draws in turns:
        if draws:
            shown = [look.short[d] for d in draws if d != DECK]
            blind = sum(1 for d in draws if d == DECK)
            parts = [f"took {' '.join(shown)} from the display"] if shown else []
            if blind:
                parts.append(f"{blind} from the pile")
            text.append("; " + ", ".join(parts))
        out.append(text)
    return out


def screen(look: TableStyle, v: ViewData, width: int, height: int | None = None, recent: int = 4, spare: int = 4) -> RenderableType:
    """The whole table as ``v["seat"]`` sees it, fitted to ``height`` lines less ``spare`` for a menu."""
    parts: list[RenderableType] = []
    title = Text("Kardinal & König", style="bold")
    if v["phase"] == "over":
        title.append(" · game over")
    else:
        title.append(" · ").append(look.who(v["current"])).append(" to play" if v["phase"] == "main" else " refills the hand")
    if v.get("variants"):
        title.append(" · variants: " + ", ".join(v["variants"]), style="dim")
    title.append("   (board: a reconstruction; ? for help)" if look.board.reconstruction else "   (? for help)", style="dim")
    hist = v.get("history") or []
    lines = [Text("» ", style="dim").append_text(t) for t in turn_lines(look, hist)[-recent:]]
    hand = v.get("seat") is not None and v["phase"] != "over"
    rest = 1 + v["players"] + sum(-(-t.cell_len // width) for t in [pile_line(look, v), *lines]) + (1 if hand else 0) + spare
    board = board_panel(look, v, width, height - rest if height else None)
    if height is None or board.height + rest <= height:
        parts.append(title)  # else the line is better spent on the board and the menu
    parts.append(board)
    parts.append(status_panel(look, v))
    parts += lines
    if hand:
        parts.append(hand_line(look, v))
    return Group(*parts)
