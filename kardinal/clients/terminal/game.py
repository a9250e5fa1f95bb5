"""``kardinal play``: a game at one terminal, people (hot-seat) and bots.

The session holds the real state but shows each person only ``view(state, seat)``;
menus offer exactly the seat's legal moves (which depend only on what that seat
knows), narrowed step by step. A save file is a game record plus the seats and,
while the game runs, the seed of the reshuffle: it is private to whoever saved it.
"""

from __future__ import annotations

import json
import os
import random
import secrets
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any

from rich.console import Console, RenderableType
from rich.table import Table
from rich.text import Text

from kardinal.bots import Bot, analysis, make_bot
from kardinal.clients.text import describe_final, describe_hint, describe_intermediate, standings
from kardinal.rules.board import Board
from kardinal.rules.events import Drew, IntermediateScoring, NewDrawPile, Revealed
from kardinal.rules.moves import DECK, Draw, Exchange, Move, MoveParseError, Pass, Place, parse_move
from kardinal.rules.record import record_of, rewind
from kardinal.rules.state import RuleError, State
from kardinal.rules.view import view

from .screen import TableStyle, board_panel, screen, turn_lines
from .seats import Seat

__all__ = ["Session", "Quit", "reveal_index"]

VERBS = ("play", "exchange", "draw", "pass")

HELP = """\
How to enter a move: pick a number at each step (cards, then country, then pieces and sites);
only legal choices are offered. 0 or b goes back a step.
  e          exchange a card instead of placing (R6)
  t          a hint: the bot's three best moves, from what you can see (a second or two)
  u          undo your last decision (only against bots, and never past a card revealed
             from the draw pile: a blind draw, a display refill or the reshuffle)
  l          the whole game log          s   the scores so far, per country
  m          the board with every road   r   draw the screen again
  q          quit (a recorded game can be resumed with --resume FILE)
Or type a move in notation at the first step, e.g.
  play FR,FR frankreich paris+advisor    play LI italien verona
  exchange FR for deck    exchange FR for BB    draw BB    draw deck    pass
Cards: FA Franken/Aragon, BB Bayern/Burgund, LI Lothringen/Italien, ES England/Schwaben,
FR Frankreich. Two cards of one kind are a joker: one piece in any country (R4.3).
Board: 'adv 2/3' = 2 advisors on the coat of arms, limit 3 (the most cloisters of one
player there, R4.8); A2 = player A's advisors. '○ Paris' a free cloister site, 'A Paris'
player A's cloister; after '─' the sites a road leads to ('…': key m shows them all).
Alliances: '1 Eng-Fke H:7' = England-Franken (Fkr: Frankreich): H holds both advisor
majorities and would score 7 now (R10)."""


class Quit(Exception):
    """The person asked to stop (q, Ctrl-D)."""


class _Undo(Exception):
    pass


class _Redraw(Exception):
    pass


_BACK = "back"


def reveal_index(state: State) -> int:
    """The index of the last decision that revealed hidden cards to anyone, or -1.

    A card leaves the draw pile (a blind draw, an exchange for the pile, a display
    refill) or the discard pile is reshuffled (R7.3): undoing past it would show the
    person cards they must not know yet.
    """
    assert state.history is not None
    revealing = (Drew, Revealed, NewDrawPile)
    return max((i for i, d in enumerate(state.history) if any(isinstance(e, revealing) for e in d.events)), default=-1)


def _write_atomic(path: Path, text: str) -> None:
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    try:
        tmp.write_text(text, encoding="utf-8")
        os.replace(tmp, path)
    finally:
        tmp.unlink(missing_ok=True)


class Session:
    """One game at the terminal."""

    def __init__(
        self,
        state: State,
        seats: Sequence[Seat],
        console: Console,
        record: Path | None = None,
        ask: Callable[[str], str] | None = None,
    ) -> None:
        if state.seed is None:
            state.reseed(secrets.randbits(63))  # the future reshuffle must not be predictable
        self.state = state
        self.board: Board = state.board
        self.seats = list(seats)
        self.names = [s.name for s in seats]
        self.console = console
        self.record = record
        self._ask = ask
        self.look = TableStyle(self.board, self.names, [s.bot for s in seats])
        self.bots: dict[int, Bot] = {}
        for i, s in enumerate(seats):
            if s.bot is not None:
                bot_seed = random.Random(f"{state.seed}:bot:{i}").randrange(2**31)
                self.bots[i] = make_bot(s.bot, seed=bot_seed, board=self.board)
        self.persons = [i for i, s in enumerate(seats) if s.bot is None]
        self.undo_allowed = len(self.persons) == 1
        self.last_person: int | None = None
        self.notices: list[RenderableType] = []
        self.save_error = ""

    # -- terminal helpers ---------------------------------------------------------

    def out(self, *things: RenderableType) -> None:
        self.console.print(*things)

    def say(self, message: str, style: str = "") -> None:
        """A message line, left to the terminal to wrap (paths stay whole)."""
        self.console.print(Text(message, style=style), soft_wrap=True)

    def ask(self, prompt: str) -> str:
        try:
            if self._ask is not None:
                return self._ask(prompt)
            return self.console.input(Text(prompt))
        except (EOFError, KeyboardInterrupt):
            self.console.print()
            raise Quit from None

    def clear(self, scrollback: bool = False) -> None:
        """Clear the screen; ``scrollback``: the terminal's history too (hot-seat privacy)."""
        c = self.console
        if c.is_terminal and not c.is_dumb_terminal:
            c.clear()
            if scrollback:
                c.file.write("\x1b[3J")
                c.file.flush()
        else:
            c.print("\n" * max(c.height, 30), end="")

    def pause(self, text: str = "Press Enter to continue") -> None:
        if self.ask(text + " ").strip().lower() in ("q", "quit", "exit"):
            raise Quit

    # -- saving -------------------------------------------------------------------

    def save(self) -> bool:
        """Write the save file (atomically: a half-written file never replaces a good one)."""
        if self.record is None:
            return True
        rec = record_of(self.state, self.names, seed=not self.state.is_over)
        rec["seats"] = [s.to_json() for s in self.seats]
        try:
            _write_atomic(self.record, json.dumps(rec, indent=1) + "\n")
        except OSError as e:
            self.save_error = e.strerror or str(e)
            self.notices.append(Text(f"Could not save to {self.record}: {self.save_error}", style="bold red"))
            return False
        return True

    # -- the game loop ------------------------------------------------------------

    def run(self) -> int:
        """Play until the game is over or a person quits; the exit status."""
        if self.record is not None and not self.save():  # fail now, not after the first move
            self.say(f"error: cannot write {self.record}: {self.save_error}", style="bold red")
            return 2
        try:
            while not self.state.is_over:
                seat = self.state.current
                if seat in self.bots:
                    move = self.bot_move(seat)
                    try:
                        self.state.check(move)
                    except RuleError as e:  # a bug in that bot: say so rather than stop with a traceback
                        self.say(
                            f"error: the {self.seats[seat].bot} bot {self.names[seat]} chose an illegal move ({move}): {e}", "bold red"
                        )
                        self.save()
                        return 1
                else:
                    self.hand_over(seat)
                    try:
                        move = self.ask_move(seat)
                    except _Undo:
                        self.undo(seat)
                        continue
                self.apply(move)
                if len(self.persons) > 1 and seat not in self.bots and self.state.current != seat:
                    self.clear(scrollback=True)  # hot-seat: this hand leaves the screen as soon as the turn is over
                    continue
        except (Quit, KeyboardInterrupt):
            if self.record is not None:
                if self.save():
                    self.say(f"Game saved to {self.record}. Resume with:  kardinal play --resume {self.record}")
                else:
                    self.say(f"error: could not save to {self.record}: {self.save_error}", style="bold red")
                    return 1
            else:
                self.say("Game abandoned (start with --record FILE to be able to resume).")
            return 0
        self.finish()
        return 0

    def bot_move(self, seat: int) -> Move:
        v = view(self.state, seat)  # a bot, too, sees only its own view
        c = self.console
        if self.persons and c.is_terminal and not c.is_dumb_terminal:
            with c.status(f"{self.names[seat]} ({self.seats[seat].bot} bot) is thinking…"):
                return self.bots[seat].choose(v)
        return self.bots[seat].choose(v)

    def apply(self, move: Move) -> None:
        self.state.play(move)
        self.save()
        assert self.state.history is not None
        scoring = next((e for e in self.state.history[-1].events if isinstance(e, IntermediateScoring)), None)
        if scoring is not None:
            if self.persons:
                self.clear()
            self.out(
                Text(
                    "The draw pile is used up: intermediate scoring (R7). The discard pile is shuffled into a new draw pile.", style="bold"
                )
            )
            self.out(Text(describe_intermediate(self.board, scoring.by_country, self.names)))
            self.out(Text(standings(self.state, self.names)))
            if self.persons:
                self.pause()

    def hand_over(self, seat: int) -> None:
        """Hot-seat: the next person takes the keyboard before their hand is shown."""
        if len(self.persons) > 1 and self.last_person != seat:
            self.clear(scrollback=True)
            self.pause(f"Pass the keyboard to {self.names[seat]} — press Enter")
            self.clear()
        self.last_person = seat

    def finish(self) -> None:
        st = self.state
        self.clear()
        v = view(st, None)
        self.out(screen(self.look, v, self.console.width, recent=st.n, spare=0))
        if st.intermediate_scoring is not None:
            self.out(Text(describe_intermediate(self.board, st.intermediate_scoring, self.names)))
        assert st.final_scoring is not None
        self.out(Text(describe_final(self.board, st.final_scoring, self.names)))
        self.out(Text(standings(st, self.names), style="bold"))
        if self.record is not None:
            self.say(f"The game record is in {self.record} (kardinal replay {self.record}).")
            self.say(f"The bot's review of your decisions and everyone's chances to win: kardinal review {self.record}")

    def undo(self, seat: int) -> None:
        st = self.state
        assert st.history is not None
        barrier = reveal_index(st)
        mine = [i for i, d in enumerate(st.history) if d.seat == seat and i > barrier]
        if not mine:
            self.notices.append(
                Text("Nothing to undo: a card has been revealed from the draw pile since your last decision.", style="bold red")
            )
            return
        self.state = rewind(st, mine[-1])
        self.save()
        self.notices.append(Text(f"Undone: back to before your decision '{st.history[mine[-1]].move}'.", style="bold"))

    # -- asking a person for a move -----------------------------------------------

    def draw_screen(self, seat: int) -> None:
        self.clear()
        v = view(self.state, seat)
        # the others' turns since this seat's last one (and, while drawing, its own)
        recent = self.state.n - (1 if self.state.phase == "main" else 0)
        self.out(screen(self.look, v, self.console.width, self.console.height, recent=recent, spare=4 + len(self.notices)))
        for n in self.notices:
            self.console.print(n, soft_wrap=True)
        self.notices = []

    def ask_move(self, seat: int) -> Move:
        legal = self.state.legal_moves()
        self.draw_screen(seat)
        while True:
            try:
                if self.state.phase == "draw":
                    return self.ask_draw(legal)
                return self.ask_main(legal)
            except _Redraw:
                self.draw_screen(seat)

    def _menu(self, options: Sequence[Text]) -> None:
        width = self.console.width
        w = max(o.cell_len for o in options) + 5
        ncols = max(1, min(len(options), width // w))
        t = Table.grid(padding=(0, 3))
        for _ in range(ncols):
            t.add_column(no_wrap=ncols > 1)
        cells = [Text(f"{i + 1:>2}) ").append_text(o) for i, o in enumerate(options)]
        nrows = -(-len(cells) // ncols)
        for r in range(nrows):
            t.add_row(*(cells[c * nrows + r] if c * nrows + r < len(cells) else Text("") for c in range(ncols)))
        self.out(t)

    def pick(self, step: str, options: Sequence[Text], keys: dict[str, str] | None = None, first: bool = False) -> int | str | Move:
        """Ask for one of ``options`` (its index), a key of ``keys``, 'back', or (first step) a move."""
        keys = keys or {}
        self.out(Text(step + ":", style="bold"))
        self._menu(options)
        hint = f"1-{len(options)}" if len(options) > 1 else "1"
        for k, what in keys.items():
            hint += f", {k}={what}"
        if not first:
            hint += ", 0=back"
        else:
            hint += ", t=hint"
        hint += ", ?=help"
        while True:
            ans = self.ask(f"{step} [{hint}] > ").strip()
            low = ans.lower()
            if not ans:
                continue
            if low.isdigit():
                num = int(low)
                if 1 <= num <= len(options):
                    return num - 1
                if num == 0 and not first:
                    return _BACK
                self.out(Text(f"There is no choice {num}: type a number from 1 to {len(options)}.", style="bold red"))
                continue
            if low in keys:
                return low
            if low in ("b", "back") and not first:
                return _BACK
            if low in ("q", "quit", "exit"):
                raise Quit
            if low in ("?", "h", "help"):
                self.out(Text(HELP))
                self.say("The rules, with the rule numbers that refusals cite: docs/rules.md (in the browser: /rules).", "dim")
                if self.state.variants:
                    self.say("Rule variants of this game (R14): " + ", ".join(self.state.variants), "dim")
                if self.board.reconstruction:
                    self.say("About the board: " + self.board.about + " (see docs/board.md; --board FILE plays on another board)", "dim")
                continue
            if low in ("r", "redraw"):
                raise _Redraw
            if low in ("l", "log"):
                self.out(Text("Game log:", style="bold"), *turn_lines(self.look, view(self.state, None)["history"] or []))
                continue
            if low in ("m", "map"):
                self.out(
                    Text("The board with every road:", style="bold"), board_panel(self.look, view(self.state, None), self.console.width)
                )
                continue
            if low in ("s", "score", "scores"):
                self.show_scores()
                continue
            if low in ("t", "tip", "hint"):
                self.show_hint()
                continue
            if low in ("u", "undo"):
                if not self.undo_allowed:
                    self.out(Text("Undo is only possible when everybody else is a bot.", style="bold red"))
                    continue
                raise _Undo
            if low.split()[0] in VERBS:
                move = self.check_notation(ans)
                if move is not None:
                    return move
                continue
            self.out(Text(f"Not understood: {ans!r}. Type a number from 1 to {len(options)}, or ? for help.", style="bold red"))

    def check_notation(self, text: str) -> Move | None:
        try:
            move = parse_move(text, self.board)
        except MoveParseError as e:
            self.out(Text(f"Not a move: {e}", style="bold red"))
            return None
        try:
            self.state.check(move)
        except RuleError as e:
            self.out(Text(f"Not allowed: {e}", style="bold red"))
            return None
        return move

    def show_hint(self) -> None:
        """The bot's best moves for the seat to act, from its view only (R13)."""
        seat = self.state.current
        v = view(self.state, seat)
        seed = random.Random(f"hint:{seat}:{len(self.state.history or ())}").randrange(2**31)  # public: never the hidden seed
        c = self.console
        if c.is_terminal and not c.is_dumb_terminal:
            with c.status("The bot is looking for your best moves…"):
                h = analysis.hint(v, seed=seed, board=self.board)
        else:
            h = analysis.hint(v, seed=seed, board=self.board)
        self.console.print(Text(describe_hint(self.board, h.to_json())), soft_wrap=True)

    def show_scores(self) -> None:
        st = self.state
        if st.intermediate_scoring is not None:
            self.out(Text(describe_intermediate(self.board, st.intermediate_scoring, self.names)))
        else:
            self.out(Text("No scoring yet: the intermediate scoring comes when the draw pile is first used up (R7)."))
        self.out(Text(standings(st, self.names)))

    # -- the menus ----------------------------------------------------------------

    def ask_draw(self, legal: list[Move]) -> Move:
        look = self.look
        v = view(self.state, self.state.current)
        opts: list[Text] = []
        for m in legal:
            assert isinstance(m, Draw)
            if m.source == DECK:
                opts.append(Text(f"blind from the draw pile ({v['deck_size']} left)"))
            else:
                opts.append(Text(f"{look.card(m.source)} from the display"))
        have = sum(v["hand"].values())
        while True:
            r = self.pick(f"Draw a card ({have} of 3 in hand)", opts, first=True)
            if isinstance(r, int):
                return legal[r]
            if isinstance(r, (Draw, Exchange, Place, Pass)):
                return r

    def ask_main(self, legal: list[Move]) -> Move:
        look = self.look
        if legal == [Pass()]:
            opts = [Text("pass: you can neither place a piece nor exchange a card (R3.1)")]
            while True:
                r = self.pick("Your turn", opts, first=True)
                if r == 0:
                    return Pass()
                if isinstance(r, (Draw, Exchange, Place, Pass)):
                    return r
        places = [m for m in legal if isinstance(m, Place)]
        exchanges = [m for m in legal if isinstance(m, Exchange)]
        sets = sorted({m.cards for m in places}, key=lambda cs: (len(cs), [look.short[c] for c in cs]))
        opts = []
        for cs in sets:
            countries = [c.id for c in self.board.countries if any(m.cards == cs and m.country == c.id for m in places)]
            t = Text(",".join(look.short[c] for c in cs), style="bold")
            where = ", ".join(look.country_name[c] for c in countries) if len(countries) <= 3 else f"any of {len(countries)} countries"
            t.append(f" → {where}")
            opts.append(t)
        keys = {"e": "exchange"} if exchanges else {}
        while True:
            r = self.pick("Play cards" if places else "No placement is possible: exchange", opts, keys, first=True)
            if isinstance(r, (Draw, Exchange, Place, Pass)):
                return r
            if r == "e":
                m = self.ask_exchange(exchanges)
            else:
                assert isinstance(r, int)
                m = self.ask_place([p for p in places if p.cards == sets[r]])
            if m is not None:
                return m

    def ask_exchange(self, exchanges: list[Exchange]) -> Move | None:
        look = self.look
        v = view(self.state, self.state.current)
        discards = [k.id for k in self.board.cards if any(m.discard == k.id for m in exchanges)]
        while True:
            r = self.pick("Exchange: discard which card", [Text(look.card(k)) for k in discards])
            if not isinstance(r, int):
                return None
            d = discards[r]
            takes = [m.take for m in exchanges if m.discard == d]
            labels = [
                Text(f"blind from the draw pile ({v['deck_size']} left)") if t == DECK else Text(f"{look.card(t)} from the display")
                for t in takes
            ]
            r2 = self.pick(f"Exchange {look.short[d]} for", labels)
            if isinstance(r2, int):
                return Exchange(d, takes[r2])

    def ask_place(self, places: list[Place]) -> Move | None:
        """Country, then the pieces, then the sites: each step offers only what stays legal."""
        look = self.look
        v = view(self.state, self.state.current)
        cards = ",".join(look.short[c] for c in places[0].cards)

        def country_opts(ms: list[Place]) -> tuple[list[Text], list[Any]]:
            ids = [c.id for c in self.board.countries if any(m.country == c.id for m in ms)]
            labels = []
            for cid in ids:
                t = Text(look.country_name[cid], style="bold")
                free = sum(1 for s in self.board.countries[self.board.country_index[cid]].sites if self.board.sites[s].id not in v["sites"])
                t.append(f"  {free} free, adv {sum(v['advisors'][cid])}/{v['advisor_limit'][cid]}")
                labels.append(t)
            return labels, ids

        def kind_opts(ms: list[Place]) -> tuple[list[Text], list[Any]]:
            kinds = sorted({(len(m.cloisters), m.advisors) for m in ms}, key=lambda k: (k[0] + k[1], -k[0]))
            words = {
                (1, 0): "a cloister",
                (0, 1): "an advisor",
                (2, 0): "two cloisters",
                (1, 1): "a cloister and an advisor",
                (0, 2): "two advisors",
            }
            return [Text(words.get(k, f"{k[0]} cloisters, {k[1]} advisors")) for k in kinds], kinds

        def site_opts(ms: list[Place], taken: tuple[str, ...]) -> tuple[list[Text], list[Any]]:
            sites = [
                s.id
                for s in self.board.sites
                if any(s.id in m.cloisters and s.id not in taken and set(taken) <= set(m.cloisters) for m in ms)
            ]
            labels = []
            for sid in sites:
                lines = look.site_line(v, sid, 200)
                labels.append(lines[0])
            return labels, sites

        steps = ["country", "pieces", "site1", "site2"]
        chosen: dict[str, Any] = {}
        i, forward = 0, True
        while True:
            if i < 0:
                return None
            ms = [
                m
                for m in places
                if ("country" not in chosen or i <= 0 or m.country == chosen["country"])
                and ("pieces" not in chosen or i <= 1 or (len(m.cloisters), m.advisors) == chosen["pieces"])
            ]
            if i >= 2 and i - 2 >= chosen["pieces"][0]:  # every cloister has its site
                taken = tuple(chosen[s] for s in ("site1", "site2")[: chosen["pieces"][0]])
                final = [m for m in ms if set(m.cloisters) == set(taken)]
                assert len(final) == 1, final
                return final[0]
            step = steps[i]
            if step == "country":
                labels, values = country_opts(ms)
                title = f"Play {cards} in which country"
            elif step == "pieces":
                labels, values = kind_opts(ms)
                title = f"Play {cards} in {look.country_name[chosen['country']]}: place"
            else:
                taken = (chosen["site1"],) if step == "site2" else ()
                labels, values = site_opts(ms, taken)
                title = (
                    "Cloister on which site"
                    if chosen["pieces"][0] == 1
                    else ("First cloister on" if step == "site1" else "Second cloister on")
                )
            if len(values) == 1:
                if forward:
                    chosen[step] = values[0]
                    self.out(Text(f"{title}: ", style="bold").append_text(labels[0]).append(" (the only choice)", style="dim"))
                    i += 1
                else:
                    chosen.pop(step, None)
                    i -= 1
                continue
            r = self.pick(title, labels)
            if isinstance(r, int):
                chosen[step] = values[r]
                i, forward = i + 1, True
            else:
                chosen.pop(step, None)
                i, forward = i - 1, False
