"""The browser client where it must hold firm: a hot-seat page holds nothing of a hand it
does not show, a double click on "Create game" makes one game, refusals have words.

Needs /usr/bin/chromium (``make test`` installs it); the helpers are in webtools.py.
"""

from __future__ import annotations

import random
import re
from typing import Any

import httpx
import pytest
from webtools import create_game, get, new_page, take_turn, version

pytestmark = pytest.mark.browser

# the DOM of a page as a string (attributes included), without the parts that retell the
# public decisions in the order this page happened to hear them (the follow line, the
# screen reader's live region, the flying cards): they differ between a hot-seat page and
# a spectator's by timing, never by a hand (follow.js and log.js name no card from the pile),
# the cards known to be held (public: R13.1), which the page of a seat leaves out for that
# seat itself, and the map's hover box (where the mouse happens to be)
_DOM = """(skip) => {
  const c = document.documentElement.cloneNode(true);
  if (skip) for (const n of c.querySelectorAll('#follow-line, #announce, .fx-layer, .known, .map-info')) n.remove();
  return c.outerHTML;
}"""


def _card_names(server: str) -> dict[str, str]:
    """Card kind -> its English name as the page writes it ("Lorraine/Italy")."""
    board = get(server, "/api/board?id=standard")
    names = {c["id"]: c["name_en"] for c in board["countries"]}
    return {k["id"]: "/".join(names[c] for c in k["countries"]) for k in board["cards"]}


def _seat_state(server: str, gid: str, seat: int, token: str) -> dict[str, Any]:
    r = httpx.get(f"{server}/api/games/{gid}/state", params={"seat": seat, "token": token})
    assert r.status_code == 200, r.text
    return dict(r.json())


def _drawn(state: dict[str, Any]) -> list[tuple[int, str]]:
    """The cards a seat drew from the pile, as its own view tells them: (log number, kind)."""
    out = []
    for i, entry in enumerate(state["view"]["history"] or []):
        for ev in entry.get("events") or []:
            if ev["type"] == "drew" and ev.get("kind"):
                out.append((i + 1, ev["kind"]))
    return out


def _secrets(server: str, g: dict[str, Any]) -> set[str]:
    """Every card kind that some hand at the table holds or some seat drew from the pile."""
    kinds: set[str] = set()
    for s in g["seats"]:
        st = _seat_state(server, g["id"], s["seat"], s["token"])
        kinds |= {k for k, n in (st["view"].get("hand") or {}).items() if n}
        kinds |= {k for _, k in _drawn(st)}
    return kinds


def _count(html: str, names: dict[str, str], kinds: set[str]) -> dict[str, int]:
    return {k: html.count(names[k]) + html.count(f'"{k}"') for k in kinds}


def _hotseat_turn(page: Any, rng: random.Random) -> None:
    """One decision of the person at the screen; a draw from the pile when refilling, after
    a click on a card of the hand that cannot be played now (its name goes to the message
    line: a message that must not stay for the next person)."""
    if page.evaluate("document.body.dataset.phase") == "draw" and page.locator(".pile.legal").count():
        before = version(page)
        hand = page.locator("[data-zone=hand] .card")
        if hand.count():
            hand.first.click()
        page.locator(".pile.legal").click()
        page.wait_for_function(f"Number(document.body.dataset.version) > {before}", timeout=10000)
    else:
        take_turn(page, rng)


def test_a_hotseat_page_holds_no_hand_it_does_not_show(server: str, browser: Any) -> None:
    people = ["Ann", "Ben", "Cy"]
    g = create_game(
        server,
        [
            {"name": "Ann", "kind": "person"},
            {"name": "Ben", "kind": "person"},
            {"name": "Bot", "kind": "bot", "level": "random"},
            {"name": "Cy", "kind": "person"},
        ],
        hotseat=True,
    )
    names = _card_names(server)
    token = {s["seat"]: s["token"] for s in g["seats"]}
    seat_of = {s["name"]: s["seat"] for s in g["seats"]}
    page = new_page(browser)
    page.add_init_script("try { localStorage.setItem('kardinal-follow-speed', 'off'); } catch (e) {}")
    page.goto(server + g["hotseat_url"])
    watcher = new_page(browser)
    watcher.add_init_script("try { localStorage.setItem('kardinal-follow-speed', 'off'); } catch (e) {}")
    watcher.goto(server + g["watch"])
    rng = random.Random(11)
    curtains = told = 0
    hidden_draws = 0  # curtains at which some seat had drawn from the pile (a card this page must not hold)
    while curtains < 10:
        page.wait_for_selector("#reveal", timeout=20000)
        name = next(n for n in people if page.get_by_role("button", name=f"{n}'s turn — show my hand").count())
        seat = seat_of[name]
        v = version(page)
        watcher.wait_for_function(f"Number(document.body.dataset.version) >= {v}", timeout=10000)
        assert version(watcher) == v and version(page) == v  # nobody acts while the curtain is down
        curtains += 1
        # at the curtain: no hand, no card drawn from the pile, in no attribute, in no hidden element
        whole = page.evaluate(_DOM, False)
        assert page.locator("[data-zone=hand]").count() == 0
        assert "you drew" not in whole and "gezogen" not in whole, re.findall(r"[^<>]{0,80}you drew[^<>]{0,40}", whole)
        assert page.locator("#log [title]").count() == 0
        said = page.inner_text("#msg")
        assert not any(n in said for n in names.values()), f"at {name}'s curtain the message line names a card: {said!r}"
        secret = _secrets(server, g)
        drew_any = any(_drawn(_seat_state(server, g["id"], s, token[s])) for s in token)
        hidden_draws += drew_any
        # every card named no more often than on a spectator's page at the same position
        mine, public = _count(page.evaluate(_DOM, True), names, secret), _count(watcher.evaluate(_DOM, True), names, secret)
        more = {names[k]: (mine[k], public[k]) for k in secret if mine[k] > public[k]}
        assert more == {}, f"at {name}'s curtain (version {v}) the page names cards more often than a spectator's: {more}"
        # the curtain lifted: the person at the screen sees their own draws (and only theirs)
        page.locator("#reveal").click()
        page.wait_for_selector("[data-zone=hand] .card")
        own = _drawn(_seat_state(server, g["id"], seat, token[seat]))
        titles = page.eval_on_selector_all("#log li[title]", "lis => lis.map((li) => [li.value, li.className, li.title])")
        assert sorted(map(tuple, titles)) == sorted((i, f"s{seat}", f"you drew {names[k]}") for i, k in own), (name, titles, own)
        told += len(own)
        # play this person's turn: a placement (or exchange, or pass) and the draws after it
        while True:
            _hotseat_turn(page, rng)
            if page.locator("#reveal").count() or page.evaluate("document.body.dataset.myTurn") != "true":
                break
    assert hidden_draws >= 4 and told >= 2, (hidden_draws, told)
    assert page.errors == [] and watcher.errors == []
    page.context.close()
    watcher.context.close()
