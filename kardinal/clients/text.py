"""The game in words: moves, scorings and standings, for logs and the clients.

Only public information is written (R13): a draw from the pile says that a card was
drawn, not which.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from kardinal.rules.board import Board
from kardinal.rules.events import Event, IntermediateScoring, LastRound
from kardinal.rules.moves import DECK, Draw, Exchange, Move, Place
from kardinal.rules.record import move_of, start_of, steps
from kardinal.rules.scoring import FinalScoring
from kardinal.rules.state import State

__all__ = [
    "describe_move",
    "describe_events",
    "describe_intermediate",
    "describe_final",
    "describe_game",
    "standings",
    "describe_hint",
    "describe_review",
    "sparkline",
]


def _kind(board: Board, kid: str) -> str:
    k = board.cards[board.kind_index[kid]]
    return "/".join(board.countries[c].name_de for c in k.countries)


def describe_move(board: Board, name: str, move: Move) -> str:
    """One decision in words, e.g. 'Anna plays Frankreich + Frankreich in Italien: cloister at Verona'."""
    if isinstance(move, Place):
        cards = ", ".join(_kind(board, c) for c in move.cards)
        country = board.countries[board.country_index[move.country]].name_de
        pieces = [f"cloister at {board.sites[board.site_index[s]].name}" for s in move.cloisters]
        pieces += ["advisor"] * move.advisors
        return f"{name} plays {cards} in {country}: {' and '.join(pieces)}"
    if isinstance(move, Draw):
        if move.source == DECK:
            return f"{name} draws from the draw pile"
        return f"{name} takes {_kind(board, move.source)} from the display"
    if isinstance(move, Exchange):
        took = "a card from the draw pile" if move.take == DECK else f"{_kind(board, move.take)} from the display"
        return f"{name} exchanges: discards {_kind(board, move.discard)}, takes {took}"
    return f"{name} passes (can neither place nor exchange)"


def _table(board: Board, title: str, rows: Sequence[tuple[str, Sequence[int]]], names: Sequence[str]) -> list[str]:
    w = max(8, *(len(x) for x in names))
    lines = [title, " " * 14 + "".join(f"{x[:w]:>{w + 1}}" for x in names)]
    for label, pts in rows:
        if any(pts):
            lines.append(f"  {label:<12}" + "".join(f"{p:>{w + 1}}" for p in pts))
    if len(lines) == 2:
        lines[1] = "  nobody scores"
    return lines


def describe_intermediate(board: Board, by_country: Sequence[Sequence[int]], names: Sequence[str]) -> str:
    rows = [(board.countries[c].name_de, by_country[c]) for c in range(len(board.countries))]
    n = len(names)
    rows.append(("total", [sum(r[p] for r in by_country) for p in range(n)]))
    return "\n".join(_table(board, "Intermediate scoring (R7): cloisters", rows, names))


def describe_final(board: Board, fin: FinalScoring, names: Sequence[str]) -> str:
    lines = _table(
        board, "Final scoring (R8.4) - cloisters (R9):", [(board.countries[c].name_de, r) for c, r in enumerate(fin.by_country)], names
    )
    lines += _table(
        board,
        "Alliances (R10):",
        [
            (f"{num:>2} " + "-".join(board.countries[c].name_de[:4] for c in al.countries), pts)
            for (num, pts), al in zip(fin.by_alliance, board.alliances)
        ],
        names,
    )
    lines += _table(board, "Chains (R11):", [("chains", fin.chains)], names)
    lines += _table(
        board,
        "Final scoring total:",
        [("cloisters", fin.cloisters), ("alliances", fin.alliances), ("chains", fin.chains), ("total", fin.total)],
        names,
    )
    return "\n".join(lines)


def standings(state: State, names: Sequence[str]) -> str:
    order = sorted(range(state.n), key=lambda p: (-state.scores[p], -state.pieces_left(p)))
    lines = ["Standings:"]
    win = set(state.winners or [])
    for rank, p in enumerate(order, 1):
        mark = "  WINNER" if p in win else ""
        lines.append(f"  {rank}. {names[p]:<12} {state.scores[p]:>4} points, {state.pieces_left(p)} pieces left{mark}")
    return "\n".join(lines)


def describe_events(board: Board, events: Sequence[Event], names: Sequence[str]) -> list[str]:
    """The public moments among what a decision caused, in words (a drawn card is not named)."""
    lines: list[str] = []
    for ev in events:
        if isinstance(ev, IntermediateScoring):
            lines.append("The draw pile is used up: intermediate scoring; the discard pile is shuffled into a new draw pile.")
            lines.append(describe_intermediate(board, ev.by_country, names))
        elif isinstance(ev, LastRound):
            lines.append("The draw pile is used up a second time: the round is completed (R8.1).")
    return lines


def describe_game(record: dict[str, Any], board: Board | None = None) -> str:
    """A finished or running record as a readable log with its scorings."""
    names = list(record["players"])
    state = start_of(record, board)
    b = state.board
    lines = [f"{len(names)} players: " + ", ".join(f"{i}. {x}" for i, x in enumerate(names)) + f"  (start player {names[0]})"]
    if b.reconstruction:
        lines.append("Board: " + b.about)
    if state.variants:
        lines.append("Rule variants: " + ", ".join(state.variants))
    turn_no = 0
    for step in steps(state, record["actions"]):
        if not isinstance(step.move, Draw):
            turn_no += 1
        lines.append(f"{turn_no:>3}. {describe_move(b, names[step.seat], step.move)}")
        lines += [_indent(x) for x in describe_events(b, step.events, names)]
    if state.final_scoring is not None:
        lines.append(_indent(describe_final(b, state.final_scoring, names)))
        lines.append(standings(state, names))
    else:
        lines.append(f"(game not finished; scores so far {state.scores})")
    return "\n".join(lines)


def _indent(text: str) -> str:
    return "\n".join("    " + x for x in text.split("\n"))


def _signed(x: float) -> str:
    """Points to one decimal with their sign; what rounds to zero is "0.0" (not "+0.0", "-0.0")."""
    return "0.0" if abs(x) < 0.05 else f"{x:+.1f}"


def describe_hint(board: Board, hint: dict[str, Any]) -> str:
    """A hint (``kardinal.bots.analysis.Hint.to_json``) in words, best first."""
    opts = hint["options"]
    if hint["how"] == "only":
        return "Hint: " + describe_move(board, "", move_of(opts[0]["action"])[1]).strip() + " (the only legal move)."
    lines = []
    if hint["how"] == "draw":
        lines.append("Hint (draws are ranked by what the best next placement of the new hand would be worth):")
    else:
        total = max(hint["iterations"], sum(o["visits"] for o in opts))  # out of the whole search
        lines.append(
            f"Hint ({hint['iterations']} searches from what you can see; margin: your expected final score minus the best other score):"
        )
    for i, o in enumerate(opts, 1):
        what = describe_move(board, "", move_of(o["action"])[1]).strip()
        if o["margin"] is not None:
            facts = f"expected margin {_signed(o['margin'])} points"
            d = o.get("vs_best")
            if i > 1 and d is not None:
                # the first is the search's choice; its expected margin may still be a little lower
                if abs(d) < 0.05:
                    facts += ", as many points as the first"
                elif d > 0:
                    facts += f", {_signed(d)} against the first, which the search still prefers (it weighs the chance to win)"
                else:
                    facts += f", {_signed(d)} against the best"
            facts += f", {o['visits']} of {total} searches"
        elif o["worth"] is not None:
            facts = f"next placement worth about {o['worth']:.1f} points"
        else:
            facts = ""
        lines.append(f"  {i}. {what}  [{o['notation']}]" + (f"\n     {facts}" if facts else ""))
    return "\n".join(lines)


SPARKS = "▁▂▃▄▅▆▇█"


def sparkline(values: Sequence[float], width: int = 60) -> str:
    """Values in [0, 1] as a line of block characters, at most ``width`` of them.

    >>> sparkline([0.0, 0.5, 1.0])
    '▁▅█'
    """
    if not values:
        return ""
    n = len(values)
    picks = [values[min(n - 1, round(i * (n - 1) / (width - 1)))] for i in range(width)] if n > width else list(values)
    return "".join(SPARKS[min(len(SPARKS) - 1, max(0, round(v * (len(SPARKS) - 1))))] for v in picks)


def _rated_lines(board: Board, d: dict[str, Any]) -> list[str]:
    """One rated decision of a review: when, how costly, the move played and the better one."""
    played = describe_move(board, "", move_of(d["played"]["action"])[1]).strip()
    better = describe_move(board, "", move_of(d["best"]["action"])[1]).strip()
    return [
        f"  turn {d['turn']} (action {d['index']}): {d['verdict'] + ', ' if d['verdict'] else ''}{d['cost']:.1f} points",
        f"    played: {played}  [{d['played']['notation']}]",
        f"    better: {better}  [{d['best']['notation']}]",
    ]


def describe_review(board: Board, review: dict[str, Any]) -> str:
    """A review (``kardinal.bots.analysis.Review.to_json``) as a report: the chances to win
    across the game, and per reviewed seat its costly decisions with the better move."""
    names = review["players"]
    least = min(review["verdicts"].values())
    width = max(len(x) for x in names)
    lines = [
        f"Review: {len(names)} players; every main decision with a choice searched by the bot ({review['iterations']} iterations each,",
        "from the view its player had then). Cost: the expected points given away against the bot's best move;",
        "  " + ", ".join(f"{name} {v:g} points or more" for name, v in sorted(review["verdicts"].items(), key=lambda x: -x[1])) + ".",
        "",
        "Chance to win after each turn (estimated by the bot; start -> end):",
    ]
    chances = review["chances"]
    for p, name in enumerate(names):
        series = [c["chances"][p] for c in chances]
        lines.append(f"  {name:<{width}}  {sparkline(series)}  {series[0]:.0%} -> {series[-1]:.0%}")
    for s in review["summary"]:
        p = s["seat"]
        lines.append("")
        lines.append(
            f"{names[p]}: {s['decisions']} decisions rated, {s['cost']:.1f} expected points given away;"
            f" mistakes {s['mistakes']}, blunders {s['blunders']}"
        )
        by_index = {d["index"]: d for d in review["decisions"]}
        top = [by_index[i] for i in s.get("costliest", []) if i in by_index]
        if top:
            lines.append("  the three costliest decisions:" if len(top) == 3 else f"  the costliest decision{'s' if len(top) > 1 else ''}:")
        else:
            lines.append("  no decision had a better move")
        for d in top:
            lines.extend(_rated_lines(board, d))
        more = [d for d in review["decisions"] if d["seat"] == p and d["verdict"] and d["index"] not in s.get("costliest", [])]
        if more:
            lines.append(
                f"  other {'mistake' if len(more) == 1 else 'mistakes'} ({least:g} points or more, or less than half of what the best move gained):"
            )
        for d in more:
            lines.extend(_rated_lines(board, d))
    return "\n".join(lines)
