"""The tutorial's steps (static/tutorial.toml, kardinal/server/play/tutorial.py): every step's
position is valid, its solution is accepted and does the task, its wrong attempts are
refused for the reason the data names; the routes; the rules for the dialog."""

from __future__ import annotations

import copy
import re
import tomllib
from pathlib import Path
from typing import Any

import pytest
from fastapi.testclient import TestClient
from web_helpers import make_client

from kardinal.rules.breakdown import chain_breakdown
from kardinal.rules.record import parse_position
from kardinal.rules.state import MAIN
from kardinal.server.play.tutorial import Step, TutorialError, attempt, parse_tutorial, position_of, step_state, tutorial
from kardinal.server.web.rules_page import LANGS, render, rules_text

T = tutorial()
STEPS = {s.id: (i, s) for i, s in enumerate(T.steps)}
IDS = list(STEPS)


@pytest.fixture(scope="module")
def client(tmp_path_factory: pytest.TempPathFactory) -> TestClient:
    return make_client(tmp_path_factory.mktemp("tutorial"))


def test_the_steps_are_the_rulebooks_examples_on_the_standard_board() -> None:
    assert T.board.id == "standard"
    assert T.players == ["Barbara", "Doris", "Andreas", "Emil", "Chris"]  # the rulebook's colours: red, blue, green, yellow, purple
    assert IDS == [
        "first-cloister",
        "joker",
        "three-frankreich",
        "refill",
        "exchange",
        "advisor-limit",
        "intermediate",
        "alliance",
        "chain",
    ]


@pytest.mark.parametrize("sid", IDS)
def test_each_steps_position_is_valid_and_the_learner_is_to_act(sid: str) -> None:
    _, step = STEPS[sid]
    pos = parse_position(position_of(T, step), T.board)  # a position file, version 2
    assert position_of(T, step)["version"] == 2
    s = step_state(T, step)
    assert s.current == step.seat and s.phase == MAIN
    assert s.owner == pos.owner and s.advisors == pos.advisors
    # every card accounted for: hands, display, draw pile, discard pile (5 players: all 55)
    total = [0] * len(T.board.cards)
    for h in s.hands:
        total = [a + b for a, b in zip(total, h)]
    for k in list(s.display) + list(s.deck[s.top :]):
        total[k] += 1
    total = [a + b for a, b in zip(total, s.discard)]
    assert total == [k.count for k in T.board.cards]
    assert sorted(s.hand_ids(step.seat)) == sorted(step.hand)
    assert s.legal_moves()


@pytest.mark.parametrize("sid", IDS)
def test_each_steps_solution_is_accepted_and_does_the_task(sid: str) -> None:
    i, step = STEPS[sid]
    r = attempt(T, i, [step.solution, *step.after])
    assert r["refusal"] is None and r["goal"] is None
    assert r["done"] and r["legal"] == []
    assert r["accepted"] == 1 + len(step.after)


@pytest.mark.parametrize("sid", IDS)
def test_each_steps_wrong_attempts_are_refused_with_their_reason(sid: str) -> None:
    i, step = STEPS[sid]
    assert step.wrong, "every step has a wrong attempt to test"
    for w in step.wrong:
        before = w.get("before", [])
        start = attempt(T, i, before)
        assert start["refusal"] is None and start["goal"] is None and start["accepted"] == len(before)
        r = attempt(T, i, [*before, w["action"]])
        assert not r["done"] and r["accepted"] == len(before)
        assert r["view"] == start["view"]  # nothing changed
        if "rule" in w:
            assert r["refusal"] is not None and r["refusal"]["rule"] == w["rule"], r["refusal"]
            assert r["refusal"]["code"] == "illegal" and r["refusal"]["reason"]
        else:
            assert r["refusal"] is None and r["goal"] is not None
            assert r["goal"]["why"] == step.goals[w["goal"]].why


def test_the_rulebooks_numbers_come_out() -> None:
    """R9.4 (Franken 7/4/2, Lothringen 5/5/2), R10.4 (alliance 14: blue 6; 15: nobody), R11.4 (a branch does not count)."""
    i, step = STEPS["intermediate"]
    sc = attempt(T, i, [step.solution, *step.after])["scoring"]
    franken, lothringen = sc["countries"]
    assert (franken["country"], franken["points"]) == ("franken", [4, 2, 7, 0, 0])
    assert (lothringen["country"], lothringen["points"]) == ("lothringen", [5, 2, 0, 0, 5])
    i, step = STEPS["alliance"]
    a14, a15 = attempt(T, i, [step.solution])["scoring"]["alliances"]
    assert (a14["number"], a14["points"], a15["number"], a15["qualifies"]) == (14, [0, 6, 0, 0, 0], 15, [])
    i, step = STEPS["chain"]
    start = step_state(T, step)
    assert chain_breakdown(T.board, start.owner, start.n)[4]["points"] == 5  # six cloisters, one on a branch
    branch = copy.deepcopy(step.wrong[0]["action"])
    assert attempt(T, i, [branch])["goal"]["scoring"]["chains"][0]["points"] == 5


def test_the_intermediate_step_is_done_only_after_the_scoring() -> None:
    i, step = STEPS["intermediate"]
    r = attempt(T, i, [step.solution])
    assert r["placed"] and not r["done"] and r["scoring"] is None
    assert {a["act"] for a in r["legal"]} == {"draw"}
    # taking a display card instead: the display is refilled from the pile, which is the last card
    r = attempt(T, i, [step.solution, {"seat": step.seat, "act": "draw", "from": "display", "card": step.display[0]}])
    assert r["done"] and r["scoring"]["points"]


def test_an_exchange_is_not_a_placing_steps_task() -> None:
    i, step = STEPS["first-cloister"]
    r = attempt(T, i, [{"seat": step.seat, "act": "exchange", "discard": "frankreich", "from": "deck"}])
    assert r["goal"] is not None and r["accepted"] == 0 and "placing" in r["goal"]["why"]["en"]


def test_the_exchange_step_is_an_exchange_and_ends_the_turn() -> None:
    """R3, R6.1, R6.2: an exchange instead of a placement; the display is refilled; nothing is drawn."""
    i, step = STEPS["exchange"]
    start = attempt(T, i, [])
    assert sorted(start["view"]["display"]) == ["frankreich", "lothringen-italien"]
    assert {a["act"] for a in start["legal"]} == {"place", "exchange"}
    # a placement is legal, but not this step's task
    place = next(a for a in start["legal"] if a["act"] == "place")
    r = attempt(T, i, [place])
    assert r["goal"]["why"]["en"].startswith("This step is about exchanging") and r["accepted"] == 0
    assert r["view"] == start["view"]
    r = attempt(T, i, [step.solution])
    assert r["done"] and r["legal"] == [] and r["view"]["current"] != step.seat  # the whole turn
    assert r["view"]["hand"] == {"franken-aragon": 2, "frankreich": 1}
    assert len(r["view"]["display"]) == 2 and "lothringen-italien" in r["view"]["display"]  # refilled from the pile (R6.2)


def test_the_refill_step_takes_both_display_cards_and_the_display_waits_for_a_full_hand() -> None:
    """R5.1, R5.2: drawn card by card; the display is refilled only once the hand is full."""
    i, step = STEPS["refill"]
    r = attempt(T, i, [step.solution])
    assert r["placed"] and not r["done"] and {a["act"] for a in r["legal"]} == {"draw"}
    r = attempt(T, i, [step.solution, step.after[0]])
    assert not r["done"] and r["view"]["display"] == ["bayern-burgund"]  # not refilled yet
    assert r["view"]["hand"] == {"frankreich": 1, "bayern-burgund": 1}
    r = attempt(T, i, [step.solution, *step.after])
    assert r["done"] and r["view"]["hand"] == {"frankreich": 1, "bayern-burgund": 2}
    assert len(r["view"]["display"]) == 2  # filled up from the draw pile once the hand was full
    # the second card from the pile instead: explained, nothing changed
    r = attempt(T, i, [step.solution, step.after[0], {"seat": step.seat, "act": "draw", "from": "deck"}])
    assert r["goal"]["why"] == step.goals[2].why and r["accepted"] == 2


def test_the_rules_shown_exist_in_docs_rules_md() -> None:
    html, _ = render(rules_text(), "en")
    anchors = set(re.findall(r'id="(R[\d.]+)"', html))
    for step in T.steps:
        assert step.rules and set(step.rules) <= anchors, step.id
    for lang in LANGS:  # goal words naming a rule name one that exists
        for step in T.steps:
            for g in step.goals:
                assert set(re.findall(r"\bR\d+(?:\.\d+)?\b", g.why[lang])) <= anchors


GERMAN_NAMES = re.compile(r"\b(Franken|Bayern|Italien|Frankreich|Lothringen|Schwaben|Burgund|Genf|Mailand|Venedig)\b")
# on a Danish page: the Danish rulebook's names (Frankrig; the others as on the board), the cities as Danish writes them
NOT_DANISH_NAMES = re.compile(
    r"\b(Franconia|Bavaria|Italy|France|Lorraine|Swabia|Burgundy|Frankreich|Genf|Geneva|Mailand|Milan|Venice|Turin)\b"
)


def _english_words(step: Step) -> list[str]:
    return [step.title["en"], step.text["en"], step.task["en"], step.done["en"]] + [g.why["en"] for g in step.goals]


@pytest.mark.parametrize("sid", IDS)
def test_every_word_in_english_german_and_danish_with_each_languages_names(sid: str) -> None:
    _, step = STEPS[sid]
    for words in _english_words(step):
        assert not GERMAN_NAMES.search(words), words  # the English page says Franconia, Bavaria, ...
    for w in [step.title, step.text, step.task, step.done] + [g.why for g in step.goals]:
        assert set(w) == {"en", "de", "da"} and len({w["en"], w["de"], w["da"]}) == 3
        assert not NOT_DANISH_NAMES.search(w["da"]), w["da"]  # the Danish page says Frankrig, Genève, Milano, ...


def test_broken_data_is_a_clear_error() -> None:
    data: dict[str, Any] = {"board": "standard", "players": ["A", "B", "C"], "step": []}
    with pytest.raises(TutorialError, match="no steps"):
        parse_tutorial(data)
    good = Path(__file__).parent.parent / "kardinal" / "clients" / "web" / "static" / "tutorial.toml"
    raw = tomllib.loads(good.read_text(encoding="utf-8"))
    raw["step"][0]["title"] = {"en": "only English"}
    with pytest.raises(TutorialError, match="title"):
        parse_tutorial(raw)
    raw = tomllib.loads(good.read_text(encoding="utf-8"))
    raw["step"][0]["cloisters"] = {"atlantis": 0}
    t = parse_tutorial(raw)
    with pytest.raises(TutorialError, match="atlantis"):
        step_state(t, t.steps[0])


# -- the routes ----------------------------------------------------------------------------


def test_the_page_and_the_steps(client: TestClient) -> None:
    r = client.get("/tutorial")
    assert r.status_code == 200 and "tutorial.js" in r.text
    meta = client.get("/api/tutorial").json()
    assert meta["board"] == "standard" and len(meta["steps"]) == len(IDS)
    assert all("solution" not in s and "cloisters" not in s for s in meta["steps"])
    assert meta["steps"][0]["title"]["de"] == "Das erste Kloster in einem leeren Land"
    assert meta["steps"][0]["title"]["da"] == "Det første kloster i et tomt land"
    assert "tutorial-link" in client.get("/").text


def test_a_step_over_http(client: TestClient) -> None:
    i, step = STEPS["joker"]
    start = client.get(f"/api/tutorial/{step.id}").json()
    assert start["view"]["seat"] == step.seat and start["view"]["hand"] == {"bayern-burgund": 2, "franken-aragon": 1}
    assert start["legal"] and start["players"][step.seat]["name"] == "Barbara"
    assert client.get(f"/api/tutorial/{i}").json()["view"] == start["view"]  # by number too
    wrong = client.post(f"/api/tutorial/{step.id}", json={"actions": [step.wrong[0]["action"]]}).json()
    assert wrong["refusal"]["rule"] == "R4.3" and wrong["refusal"]["reason"] == "joker_own_country"
    assert wrong["refusal"]["params"] == {"country": "bayern"}
    ok = client.post(f"/api/tutorial/{step.id}", json={"actions": [step.solution]}).json()
    assert ok["done"] and ok["view"]["sites"]["frankfurt"] == 0
    again = client.post(f"/api/tutorial/{step.id}", json={"actions": [step.solution, step.solution]}).json()
    assert again["refusal"]["code"] == "not_your_turn" and again["accepted"] == 1


def test_bad_requests(client: TestClient) -> None:
    assert client.get("/api/tutorial/nonesuch").status_code == 404
    assert client.post("/api/tutorial/joker", json={"actions": "x"}).status_code == 400
    assert client.post("/api/tutorial/joker", json={"actions": [{}] * 9}).status_code == 400
    assert client.post("/api/tutorial/joker", content=b"{").status_code == 400
    # an action that is no action at all is refused by the declared body, naming the field
    r = client.post("/api/tutorial/joker", json={"actions": [{"seat": 0, "act": "fly"}]})
    assert r.status_code == 400 and r.json()["error"]["code"] == "malformed"
    assert r.json()["error"]["params"]["field"] == "actions.0", r.text


def test_the_rules_for_the_dialog(client: TestClient) -> None:
    for lang, words in (("en", "joker"), ("de", "Joker"), ("da", "jokerpar")):
        r = client.get(f"/api/rules?lang={lang}").json()
        assert r["lang"] == lang and 'id="R4.3"' in r["html"] and words in r["html"]
        assert [x["anchor"] for x in r["toc"] if x["anchor"].startswith("R")] == [f"R{k}" for k in range(1, 15)]
    assert client.get("/api/rules", headers={"accept-language": "de-AT"}).json()["lang"] == "de"
    assert client.get("/api/rules", headers={"accept-language": "da-DK,da;q=0.9"}).json()["lang"] == "da"
