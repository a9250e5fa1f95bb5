"""The interactive tutorial (``/tutorial``) and the rules for the page's dialog.

The steps are the rulebook's own examples, in ``static/tutorial.toml`` (its header says the
format). Each step is a position on the standard board built with the rules core: the
pieces as a position (``kardinal-position``, version 2, checked by
:func:`kardinal.rules.record.parse_position`), the learner's hand and the display, and the
learner to act. The server keeps nothing: the page sends the actions taken in the step so
far, the server replays them on the step's position and checks the last one, first by the
rules (a refusal names its rule, as in a game) and then by the step's goal (a legal move
that does not do what the step asks is explained in the step's own words).

Routes (one router, included by ``app.py``):

- ``GET /tutorial``: the page;
- ``GET /api/tutorial``: the steps' words in English and German, the players, the board;
- ``POST /api/tutorial/{step}`` ``{"actions": [...]}``: the step after those actions
  (``GET``: its start): ``view``, ``legal``, ``standing``, ``done``, and for the last action
  a ``refusal`` (the game's error format) or a ``goal`` that failed; the scoring the step
  shows, once done (or what the attempt would have scored);
- ``GET /api/rules?lang=de``: docs/rules.md rendered for the rules dialog (HTML and contents).
"""

from __future__ import annotations

import tomllib
from dataclasses import dataclass, field
from functools import lru_cache
from importlib import resources
from typing import Any

from fastapi import APIRouter, Request
from fastapi.responses import HTMLResponse, JSONResponse

from kardinal.rules.board import Board, get_board
from kardinal.rules.breakdown import alliance_breakdown, chain_breakdown, cloister_breakdown
from kardinal.rules.moves import DECK as FROM_PILE
from kardinal.rules.moves import Draw, Exchange, Move, Place
from kardinal.rules.record import RecordError, action_of, move_of, parse_position
from kardinal.rules.state import MAIN, RuleError, State
from kardinal.rules.view import view

from ..common.refusal import Refused
from ..web.pages import static_page
from ..web.rules_page import LANGS, pick_lang, render, rules_text
from .live import standing
from .schemas import TutorialAttempt

__all__ = ["router", "Step", "Tutorial", "tutorial", "step_state", "attempt", "TutorialError"]

DATA = ("static", "tutorial.toml")
DECK = 20  # cards left in the draw pile unless a step says otherwise
Words = dict[str, str]  # language -> text


PLACE_FIRST: Words = {
    "en": "This step is about placing: choose cards, then sites or a coat of arms, then Play.",
    "de": "In diesem Schritt geht es ums Einsetzen: Wähle Karten, dann Felder oder ein Wappen, dann Ausspielen.",
    "da": "Dette trin handler om at sætte brikker: vælg kort, derefter felter eller et våbenskjold, derefter Spil.",
}
EXCHANGE_FIRST: Words = {
    "en": "This step is about exchanging: choose one card of your hand, then a display card or the draw pile. No piece is placed.",
    "de": "In diesem Schritt geht es ums Tauschen: Wähle eine Karte deiner Hand, dann eine Karte der Auslage oder den Nachziehstapel. Es wird kein Stein gesetzt.",
    "da": "Dette trin handler om at bytte: vælg ét kort fra din hånd, derefter et åbent kort eller trækkebunken. Der sættes ingen brik.",
}
ENDS = ("place", "intermediate", "exchange", "draw")


class TutorialError(ValueError):
    """The tutorial's data is broken (a test finds it; the page never should)."""


@dataclass(frozen=True)
class Goal:
    """One condition on the learner's placement, and what to say when it fails."""

    tests: dict[str, Any]
    why: Words


@dataclass(frozen=True)
class Step:
    id: str
    seat: int
    rules: list[str]
    title: Words
    text: Words
    task: Words
    done: Words
    hand: list[str]
    display: list[str]
    deck: int
    cloisters: dict[str, int]
    advisors: dict[str, list[int]]
    end: str
    show: list[str]
    goals: list[Goal]
    solution: dict[str, Any]
    after: list[dict[str, Any]] = field(default_factory=list)
    wrong: list[dict[str, Any]] = field(default_factory=list)

    def public(self) -> dict[str, Any]:
        """What the page shows of the step (no position, no solution)."""
        return {
            "id": self.id,
            "seat": self.seat,
            "rules": self.rules,
            "title": self.title,
            "text": self.text,
            "task": self.task,
            "done": self.done,
            "end": self.end,
            "show": self.show,
        }


@dataclass(frozen=True)
class Tutorial:
    board: Board
    players: list[str]
    steps: list[Step]

    def public(self) -> dict[str, Any]:
        return {"board": self.board.id, "players": self.players, "steps": [s.public() for s in self.steps]}


def _words(d: dict[str, Any], key: str, where: str) -> Words:
    w = d.get(key)
    if not isinstance(w, dict) or set(w) != set(LANGS) or not all(isinstance(x, str) and x.strip() for x in w.values()):
        raise TutorialError(f"{where}: '{key}' needs words in {' and '.join(LANGS)}")
    return {k: " ".join(str(v).split()) for k, v in w.items()}


PLACE_KEYS = {"country", "cloisters", "advisors", "pieces", "cards", "alliance", "chain", "seat"}
TAKE_KEYS = {"take", "discard"}  # on an exchange or a draw: where from ("display", "deck" or a card kind), what discarded
GOAL_KEYS = PLACE_KEYS | TAKE_KEYS


def parse_tutorial(data: dict[str, Any]) -> Tutorial:
    board = get_board(data.get("board", "standard"))
    players = data.get("players")
    if not isinstance(players, list) or len(players) not in board.removed_per_kind:
        raise TutorialError("'players': a list of names, as many as the board allows")
    steps = []
    for i, s in enumerate(data.get("step", [])):
        where = f"step {i + 1} ({s.get('id', '?')})"
        goals = []
        for g in s.get("goal", []):
            tests = {k: v for k, v in g.items() if k != "why"}
            if not tests or set(tests) - GOAL_KEYS or (set(tests) & PLACE_KEYS and set(tests) & TAKE_KEYS):
                raise TutorialError(
                    f"{where}: a goal tests a placement ({', '.join(sorted(PLACE_KEYS))}) or a card taken ({', '.join(sorted(TAKE_KEYS))})"
                )
            goals.append(Goal(tests, _words(g, "why", where)))
        step = Step(
            id=str(s["id"]),
            seat=int(s["seat"]),
            rules=list(s.get("rules", [])),
            title=_words(s, "title", where),
            text=_words(s, "text", where),
            task=_words(s, "task", where),
            done=_words(s, "done", where),
            hand=list(s["hand"]),
            display=list(s.get("display", [])),
            deck=int(s.get("deck", DECK)),
            cloisters=dict(s.get("cloisters", {})),
            advisors={k: list(v) for k, v in s.get("advisors", {}).items()},
            end=str(s.get("end", "place")),
            show=list(s.get("show", [])),
            goals=goals,
            solution=dict(s["solution"]),
            after=list(s.get("after", [])),
            wrong=list(s.get("wrong", [])),
        )
        if step.end not in ENDS:
            raise TutorialError(f"{where}: 'end' is one of {', '.join(ENDS)}")
        steps.append(step)
    if not steps:
        raise TutorialError("no steps")
    return Tutorial(board, [str(p) for p in players], steps)


@lru_cache(maxsize=1)
def tutorial() -> Tutorial:
    """The tutorial of the installed data file (read once)."""
    text = resources.files("kardinal.clients.web").joinpath(*DATA).read_text(encoding="utf-8")
    return parse_tutorial(tomllib.loads(text))


def position_of(t: Tutorial, step: Step) -> dict[str, Any]:
    """The step's pieces as a position file (format kardinal-position, version 2)."""
    n = len(t.players)
    return {
        "format": "kardinal-position",
        "version": 2,
        "board": t.board.id,
        "players": n,
        "cloisters": step.cloisters,
        "advisors": step.advisors,
    }


def step_state(t: Tutorial, step: Step) -> State:
    """The step's start: its position, the learner's hand, the display, a draw pile of
    ``deck`` cards; the other hands and the discard pile take the rest of the cards, so
    that every card is accounted for (R1.1, R2.1)."""
    b = t.board
    n = len(t.players)
    try:
        pos = parse_position(position_of(t, step), b)
    except RecordError as e:
        raise TutorialError(f"{step.id}: {e}") from None
    r = b.removed_per_kind[n]
    left = [k.count - r for k in b.cards]
    K = len(b.cards)

    def take(kind: int) -> int:
        if left[kind] <= 0:
            raise TutorialError(f"{step.id}: too many {b.cards[kind].id} cards")
        left[kind] -= 1
        return kind

    hands = [[0] * K for _ in range(n)]
    for kid in step.hand:
        hands[step.seat][take(b.kind(kid))] += 1
    display = [take(b.kind(kid)) for kid in step.display]

    def rest() -> int:  # the kind with most cards left: the other hands and the pile look ordinary
        return take(max(range(K), key=lambda k: (left[k], -k)))

    for p in range(n):
        if p != step.seat:
            for _ in range(3):
                hands[p][rest()] += 1
    deck = [rest() for _ in range(step.deck)]
    discard = left[:]
    supply = [(b.supply_cloisters - pos.owner.count(p), b.supply_advisors - sum(row[p] for row in pos.advisors)) for p in range(n)]
    return State(
        b,
        n,
        hands=hands,
        display=display,
        deck=deck,
        removed=[r] * K,
        discard=discard,
        owner=pos.owner,
        advisors=pos.advisors,
        supply=supply,
        current=step.seat,
        turns=[3] * n,
        seed=1,
    )


def _scoring(t: Tutorial, step: Step, s: State) -> dict[str, Any]:
    """What the step shows: the countries', alliances' and chains' scoring of ``s``."""
    out: dict[str, Any] = {"countries": [], "alliances": [], "chains": []}
    countries = {c["country"]: c for c in cloister_breakdown(t.board, s.cloisters)}
    alliances = {a["number"]: a for a in alliance_breakdown(t.board, s.advisors)}
    chains = {c["seat"]: c for c in chain_breakdown(t.board, s.owner, s.n)}
    for item in step.show:
        kind, _, key = item.partition(":")
        if kind == "country":
            out["countries"].append(countries[key])
        elif kind == "alliance":
            out["alliances"].append(alliances[int(key)])
        elif kind == "chain":
            out["chains"].append(chains[int(key)])
    if step.end == "intermediate" and s.intermediate_scoring is not None:
        out["points"] = [sum(row[p] for row in s.intermediate_scoring) for p in range(s.n)]
    return out


def _taken(move: Exchange | Draw) -> str:
    source = move.take if isinstance(move, Exchange) else move.source
    return "deck" if source == FROM_PILE else source


def take_failed(step: Step, move: Exchange | Draw) -> Goal | None:
    """The first goal on a card taken (an exchange, a draw) that ``move`` misses, or None."""
    for g in step.goals:
        x = g.tests
        if not set(x) & TAKE_KEYS:
            continue
        ok = True
        if "take" in x:
            taken = _taken(move)
            ok &= x["take"] == taken or (x["take"] == "display" and taken != "deck")
        if "discard" in x:
            ok &= isinstance(move, Exchange) and move.discard == x["discard"]
        if not ok:
            return g
    return None


def goal_failed(t: Tutorial, step: Step, before: State, move: Place) -> Goal | None:
    """The first goal condition the (legal) placement misses, or None: it does the task."""
    after = before.copy()
    after.play(move)
    cards = len(move.cards)
    for g in step.goals:
        x = g.tests
        if not set(x) & PLACE_KEYS:
            continue
        ok = True
        if "country" in x:
            ok &= move.country == x["country"]
        if "cloisters" in x:
            ok &= len(move.cloisters) == x["cloisters"]
        if "advisors" in x:
            ok &= move.advisors == x["advisors"]
        if "pieces" in x:
            ok &= move.num_pieces == x["pieces"]
        if "cards" in x:
            ok &= cards == x["cards"]
        if "alliance" in x:
            al = next(a for a in alliance_breakdown(t.board, after.advisors) if a["number"] == x["alliance"])
            ok &= x["seat"] in al["qualifies"]
        if "chain" in x:
            ch = chain_breakdown(t.board, after.owner, after.n)[x["seat"]]
            ok &= ch["points"] >= x["chain"]
        if not ok:
            return g
    return None


def _done(step: Step, s: State, placed: bool) -> bool:
    """``placed``: the step's own move (a placement; in an exchange step, the exchange) is made."""
    if not placed:
        return False
    if step.end == "intermediate":
        return s.intermediate_scoring is not None and s.phase == MAIN
    if step.end == "draw":  # the hand refilled: the turn has passed on
        return s.phase == MAIN
    return True


def _judged(t: Tutorial, step: Step, s: State, move: Move, placed: bool) -> dict[str, Any] | None:
    """A legal move that is not the step's task: the ``goal`` answer (words, what it would score), or None."""
    if step.end == "exchange":
        if not isinstance(move, Exchange):
            return {"why": EXCHANGE_FIRST, "scoring": None}
        failed = take_failed(step, move)
        return None if failed is None else {"why": failed.why, "scoring": None}
    if not placed and not isinstance(move, Place):
        return {"why": PLACE_FIRST, "scoring": None}
    if isinstance(move, Place):
        failed = goal_failed(t, step, s, move) if not placed else None
        if failed is None:
            return None
        trial = s.copy()
        trial.play(move)
        return {"why": failed.why, "scoring": _scoring(t, step, trial)}
    if isinstance(move, Draw) and step.end == "draw":
        failed = take_failed(step, move)
        return None if failed is None else {"why": failed.why, "scoring": None}
    return None


def attempt(t: Tutorial, index: int, actions: list[Any]) -> dict[str, Any]:
    """Replay ``actions`` on step ``index``'s start; the last one is the attempt being checked.

    Every action before the last must be accepted (the page sends only those); a wrong last
    action leaves the step where it was, with a ``refusal`` (by the rules: the game's error
    format, with the rule) or a ``goal`` (legal, but not the task: the step's words)."""
    step = t.steps[index]
    s = step_state(t, step)
    placed = False
    out: dict[str, Any] = {"step": index, "refusal": None, "goal": None, "accepted": 0}
    for i, a in enumerate(actions):
        try:
            seat, move = move_of(a, f"actions[{i}]")
        except RecordError as e:
            out["refusal"] = Refused("malformed", str(e), 400).to_json()
            break
        if seat != step.seat or s.current != step.seat or _done(step, s, placed):
            out["refusal"] = Refused("not_your_turn", "the step is done" if placed else "not the learner's turn", 409).to_json()
            break
        try:
            s.check(move)
        except RuleError as e:
            out["refusal"] = Refused.by_rules(e).to_json()
            break
        judged = _judged(t, step, s, move, placed)
        if judged is not None:
            out["goal"] = judged
            break
        if isinstance(move, Place) or (step.end == "exchange" and isinstance(move, Exchange)):
            placed = True
        s.play(move)
        out["accepted"] = i + 1
    done = _done(step, s, placed)
    learner = not done and s.current == step.seat
    out.update(
        {
            "done": done,
            "placed": placed,
            "view": view(s, step.seat),
            "legal": [action_of(step.seat, m) for m in s.legal_moves()] if learner else [],
            "standing": standing(t.board, s),
            "players": [{"name": name} for name in t.players],
            "scoring": _scoring(t, step, s) if done else None,
        }
    )
    return out


# -- the routes ------------------------------------------------------------------------

router = APIRouter(tags=["tutorial and rules"])
_STATIC = resources.files("kardinal.clients.web").joinpath("static")


@router.get("/tutorial", include_in_schema=False)
async def tutorial_page(request: Request) -> HTMLResponse:
    return static_page(request, "tutorial.html")


@router.get("/api/tutorial")
def tutorial_steps() -> dict[str, Any]:
    """The tutorial's steps: their words in English and German, the players, the board."""
    return tutorial().public()


def _step_index(step: str) -> int | None:
    t = tutorial()
    for i, s in enumerate(t.steps):
        if s.id == step or str(i) == step:
            return i
    return None


def _no_step(step: str) -> JSONResponse:
    return JSONResponse({"error": {"code": "no_step", "message": f"no tutorial step {step!r}", "params": {}}}, status_code=404)


@router.get("/api/tutorial/{step}")
def tutorial_start(step: str) -> Any:
    """A step's start (its position, the learner's hand and legal moves)."""
    i = _step_index(step)
    return _no_step(step) if i is None else attempt(tutorial(), i, [])


@router.post("/api/tutorial/{step}", response_model=dict[str, Any])
def tutorial_try(step: str, body: TutorialAttempt) -> Any:  # sync: replaying a step is CPU work (FastAPI runs it in a thread)
    """A step after the actions sent (``{"actions": [...]}``, at most 8); the last one is
    checked: a ``refusal`` by the rules, a ``goal`` not met, or the step done."""
    i = _step_index(step)
    if i is None:
        return _no_step(step)
    return attempt(tutorial(), i, [a.model_dump(by_alias=True, exclude_unset=True) for a in body.actions])


@lru_cache(maxsize=8)
def _rules_json(text: str, lang: str) -> dict[str, Any]:
    html, toc = render(text, lang)
    return {"lang": lang, "html": html, "toc": [{"anchor": a, "title": title} for a, title in toc]}


@router.get("/api/rules")
def rules_json(request: Request, lang: str | None = None) -> Any:
    """docs/rules.md in one language as HTML (the /rules page's text), for the rules dialog."""
    chosen = pick_lang(lang, request.headers.get("accept-language"))
    try:
        text = rules_text()
    except OSError:
        return JSONResponse({"error": {"code": "no_rules", "message": "docs/rules.md is not installed", "params": {}}}, status_code=404)
    return _rules_json(text, chosen)
