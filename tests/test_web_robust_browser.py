"""The browser client where it must hold firm: a hot-seat page holds nothing of a hand it
does not show, a double click on "Create game" makes one game, refusals have words.

Needs /usr/bin/chromium (``make test`` installs it); the helpers are in webtools.py.
"""

from __future__ import annotations

import random
import re
from collections.abc import Callable
from typing import Any

import pytest
from webtools import create_game, get, http_get, new_page, open_settings, take_turn, version

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
    r = http_get(f"{server}/api/games/{gid}/state", params={"seat": seat, "token": token})
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


# every request to create a game, as the page sends it (its body), each held back a while
# so that a second click comes while the first request is on its way
_SLOW_CREATES = """(() => {
  window.__creates = [];
  const real = window.fetch.bind(window);
  window.fetch = async (input, init) => {
    const u = typeof input === 'string' ? input : input.url;
    if (init && init.method === 'POST' && new URL(u, location.href).pathname === '/api/games') {
      window.__creates.push(JSON.parse(init.body));
      await new Promise((r) => setTimeout(r, 700));
    }
    return real(input, init);
  };
})();"""

KEY = re.compile(r"[A-Za-z0-9_-]{8,64}")


def _games(server: str) -> set[str]:
    return {g["id"] for g in get(server, "/api/games")["games"]}


def test_a_double_click_on_create_game_makes_one_game(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.add_init_script(_SLOW_CREATES)
    open_settings(page, server)
    page.select_option("#kind-1", "person")  # two people: the lobby stays, with their links
    page.fill("#name-0", "Ann")
    page.fill("#name-1", "Ben")

    def creates() -> list[dict[str, Any]]:
        return list(page.evaluate("window.__creates"))

    def made(before: set[str], n: int) -> set[str]:
        page.wait_for_selector("#created a[data-seat-link]", timeout=20000)
        page.wait_for_function("!document.getElementById('create-btn').disabled", timeout=20000)
        new = _games(server) - before
        assert len(new) == n, f"{len(new)} games made: {new}; requests {creates()}"
        return new

    # a double click: one request, the button disabled while it is on its way, one game
    before = _games(server)
    page.dblclick("#create-btn")
    assert page.evaluate("document.getElementById('create-btn').disabled"), "the button is not disabled while the game is being created"
    made(before, 1)
    sent = creates()
    assert all(KEY.fullmatch(b.get("key") or "") for b in sent), sent
    assert len({b["key"] for b in sent}) == 1, sent
    first = sent[0]["key"]
    # two clicks in one task of the page: again one game, with a key of its own
    page.evaluate("document.getElementById('created').replaceChildren()")
    before = _games(server)
    page.evaluate("() => { const b = document.getElementById('create-btn'); b.click(); b.click(); }")
    made(before, 1)
    sent = creates()[1:]
    assert len({b["key"] for b in sent}) == 1 and sent[0]["key"] != first, sent
    assert KEY.fullmatch(sent[0]["key"]), sent
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def lobby_of_two(server: str, browser: Any) -> Any:
    """The lobby with a table of two people (Ann, Ben) and a bot, ready to create."""
    page = new_page(browser)
    open_settings(page, server)
    page.select_option("#kind-1", "person")
    page.fill("#name-0", "Ann")
    page.fill("#name-1", "Ben")
    return page


def on_create(page: Any, first: Callable[[Any], None], times: int) -> list[str]:
    """The keys of the lobby's creation requests, in order; the first ``times`` of them are
    handled by ``first`` (a lost request, a lost answer), the others go through."""
    keys: list[str] = []

    def handle(route: Any) -> None:
        if route.request.method != "POST":
            route.continue_()
            return
        keys.append(route.request.post_data_json.get("key"))
        if len(keys) <= times:
            first(route)
        else:
            route.continue_()

    page.route("**/api/games", handle)
    return keys


def test_a_retried_creation_sends_the_same_key_and_a_changed_form_a_new_one(server: str, browser: Any) -> None:
    page = lobby_of_two(server, browser)
    # the first two requests are lost on the way: the page says so
    keys = on_create(page, lambda route: route.abort("connectionreset"), 2)
    button = page.locator("#create-btn")
    before = _games(server)
    for k in (1, 2):  # a network error, and the same form sent again: the same key
        button.click()
        page.wait_for_selector("#created .bad")
        page.wait_for_function("!document.getElementById('create-btn').disabled")
        page.evaluate("document.getElementById('created').replaceChildren()")
        assert len(keys) == k
    assert keys[0] == keys[1] and KEY.fullmatch(keys[0]), keys
    assert _games(server) == before
    # the form changed: another creation, another key; it goes through
    page.fill("#name-1", "Bea")
    button.click()
    page.wait_for_selector("#created a[data-seat-link]")
    assert len(keys) == 3 and keys[2] != keys[0] and KEY.fullmatch(keys[2]), keys
    assert len(_games(server) - before) == 1
    # a game was created: the same form again is a new creation with a new key
    page.wait_for_function("!document.getElementById('create-btn').disabled")
    with page.expect_response(lambda r: r.request.method == "POST" and r.url.endswith("/api/games")) as answer:
        button.click()
    assert answer.value.ok
    page.wait_for_function("!document.getElementById('create-btn').disabled")
    assert len(keys) == 4 and keys[3] not in keys[:3], keys
    assert len(_games(server) - before) == 2
    page.context.close()


def test_a_creation_whose_answer_was_lost_is_made_once(server: str, browser: Any) -> None:
    # the server made the game but its answer never came back: pressed again, the same form
    # sends the same key, and the server answers with that game instead of making another
    page = lobby_of_two(server, browser)

    def lose_the_answer(route: Any) -> None:
        route.fetch()  # the server makes the game ...
        route.abort("connectionreset")  # ... and its answer is lost

    keys = on_create(page, lose_the_answer, 1)
    before = _games(server)
    page.locator("#create-btn").click()
    page.wait_for_selector("#created .bad")
    assert len(_games(server) - before) == 1
    page.wait_for_function("!document.getElementById('create-btn').disabled")
    page.locator("#create-btn").click()
    page.wait_for_selector("#created a[data-seat-link]")
    assert len(keys) == 2 and keys[0] == keys[1], keys
    made = _games(server) - before
    assert len(made) == 1, made
    link = page.get_attribute("#created a[data-seat-link='0']", "href") or ""
    assert f"/game/{next(iter(made))}?" in link, link
    page.context.close()


_REFUSE = """async (codes) => {
  const { refusalText } = await import('/static/refusals.js');
  const { setLang } = await import('/static/i18n.js');
  const out = {};
  for (const l of ['en', 'de']) { await setLang(l); out[l] = codes.map((e) => refusalText(e, null)); }
  await setLang('en');
  return out;
}"""


def test_a_taken_name_and_a_malformed_field_have_words(server: str, browser: Any) -> None:
    page = new_page(browser)
    open_settings(page, server)
    taken = {"code": "name_taken", "message": "the name 'Ann' is taken", "params": {"name": "Ann"}}
    field = {"code": "malformed", "message": "players.0.name: expected a string", "params": {"field": "players.0.name"}}
    other = {"code": "malformed", "message": "players.2.colour: unknown", "params": {"field": "players.2.colour"}}
    top = {"code": "malformed", "message": "variants.1: expected a string", "params": {"field": "variants.1"}}
    plain = {"code": "malformed", "message": "the body must be JSON", "params": {}}
    got = page.evaluate(_REFUSE, [taken, field, other, top, plain])
    assert got["en"] == [
        "The name Ann is taken at this table.",
        "The server could not read the request: the name of player 1 is missing or not valid.",
        "The server could not read the request: player 3: colour is missing or not valid.",
        "The server could not read the request: the choice of rule variants is missing or not valid.",
        "The server could not read the request (the body must be JSON).",
    ], got["en"]
    assert got["de"] == [
        "Der Name Ann ist an diesem Tisch schon vergeben.",
        "Der Server konnte die Anfrage nicht lesen: der Name von Spieler 1 fehlt oder ist ungültig.",
        "Der Server konnte die Anfrage nicht lesen: Spieler 3: colour fehlt oder ist ungültig.",
        "Der Server konnte die Anfrage nicht lesen: die Wahl der Regelvarianten fehlt oder ist ungültig.",
        "Der Server konnte die Anfrage nicht lesen (the body must be JSON).",
    ], got["de"]

    # the lobby says them when the server refuses a game
    def refuse(r: dict[str, Any]) -> Any:
        def handle(route: Any) -> None:
            if route.request.method == "POST":
                route.fulfill(status=409 if r["code"] == "name_taken" else 400, json={"error": r})
            else:
                route.continue_()

        return handle

    for refusal, words in ((taken, "The name Ann is taken at this table."), (field, "the name of player 1 is missing or not valid")):
        page.evaluate("document.getElementById('created').replaceChildren()")
        page.route("**/api/games", refuse(refusal))
        page.locator("#create-btn").click()
        page.wait_for_function("document.querySelector('#created .bad') !== null")
        assert words in page.inner_text("#created .bad")
        page.unroute("**/api/games")
    assert page.errors == []
    page.context.close()
