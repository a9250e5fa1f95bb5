"""Every word in the player's language and room for it: in every language of the
catalogs but the English (German, the longer one, and each added) no card, button or
label of the game page overflows, at a desktop and a phone width; refusals come in the
page's language; one's own placement can be taken back before
drawing (parity with the terminal)."""

from __future__ import annotations

import random
from typing import Any

import pytest
from webtools import HTTP_TIMEOUT, create_game, create_in_lobby, http_get, new_page, open_settings, shot, stray_words, take_turn, wait_turn

from kardinal.server.common import catalog

pytestmark = pytest.mark.browser

LANGS = [lang for lang in catalog.langs() if lang != "en"]  # a language with no catalog yet: no test

ME_AND_BOTS = [{"name": "Annegret", "kind": "person"}] + [{"name": f"Bot {i}", "kind": "bot", "level": "random"} for i in (1, 2, 3)]

# every element that holds words a player reads, with its scroll and client sizes
OVERFLOWS = """
() => {
  const out = [];
  const sel = "button, .card, .pile, label, select, th, td, h2, h3, .follow-line, #status, .rules-info, .pname, [data-zone] *";
  for (const e of document.querySelectorAll(sel)) {
    const r = e.getBoundingClientRect();
    if (!r.width || !r.height) continue;  // not shown
    const cs = getComputedStyle(e);
    if (cs.overflow === "auto" || cs.overflow === "scroll" || cs.overflowX === "auto") continue;  // scrolls on purpose
    if (e.scrollWidth > e.clientWidth + 1 || e.scrollHeight > e.clientHeight + 1) {
      if (e.clientWidth === 0 && e.clientHeight === 0) continue;  // inline: sized by its text
      out.push(`${e.tagName.toLowerCase()}#${e.id}.${[...e.classList].join(".")} "${e.textContent.trim().slice(0, 40)}" ` +
        `${e.scrollWidth}x${e.scrollHeight} > ${e.clientWidth}x${e.clientHeight}`);
    }
  }
  return out;
}
"""


def quiet_page(browser: Any, lang: str = "en", width: int = 1400, height: int = 950) -> Any:
    """A page in ``lang`` that does not animate the others' turns."""
    page = new_page(browser, width, height)
    page.add_init_script(f"localStorage.setItem('kardinal-lang', '{lang}'); localStorage.setItem('kardinal-follow-speed', 'off')")
    return page


def my_game(server: str, browser: Any, lang: str = "en", width: int = 1400, height: int = 950) -> tuple[dict[str, Any], Any]:
    """A new game of one person (seat 0) and three bots, opened at the person's invitation link."""
    g = create_game(server, ME_AND_BOTS)
    page = quiet_page(browser, lang, width, height)
    page.goto(server + g["seats"][0]["url"])
    return g, page


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("width,height", [(1400, 950), (390, 844)])
def test_nothing_overflows_in_german(server: str, browser: Any, width: int, height: int, lang: str) -> None:
    _, page = my_game(server, browser, lang, width, height)
    rng = random.Random(width)
    checked = 0
    for _ in range(6):  # a few turns: the hand, the display and the draw phase change what is shown
        assert wait_turn(page)
        assert page.evaluate("document.documentElement.lang") == lang
        assert page.get_by_text(catalog.text(lang, "drawPile")).count() >= 1
        bad = page.evaluate(OVERFLOWS)
        assert bad == [], bad
        checked += page.evaluate("document.querySelectorAll('button, .card, label').length")
        take_turn(page, rng)
    assert checked > 30
    shot(page, f"german-{width}x{height}" if lang == "de" else f"lang-{lang}-{width}x{height}", full_page=True)
    assert page.errors == [] and page.console_errors == []


@pytest.mark.parametrize("lang", LANGS)
def test_a_refusal_is_said_in_german(server: str, browser: Any, lang: str) -> None:
    g = create_game(server, ME_AND_BOTS)
    page = quiet_page(browser, lang)
    page.goto(server + f"/game/{g['id']}?seat=0&token=nicht-das-zeichen")
    page.wait_for_function("document.body.dataset.status === 'open'")  # nobody has joined seat 0
    page.wait_for_function("document.getElementById('msg').textContent.length > 0")
    why = catalog.text(lang, "err.bad_token")
    assert page.inner_text("#msg") == catalog.text(lang, "refused", msg=why[:1].upper() + why[1:] + ".")
    if lang == "de":  # as it was written before the catalogs
        assert page.inner_text("#msg") == "Abgelehnt: Dieser Link gehört nicht zu diesem Platz (ein falsches oder altes Zeichen)."


def test_ones_own_placement_is_taken_back_before_drawing(server: str, browser: Any) -> None:
    _, page = my_game(server, browser)
    assert wait_turn(page)
    hand = page.inner_text("[data-zone=hand]")
    v0 = int(page.evaluate("document.body.dataset.version"))
    assert page.locator("#undo").count() == 0
    # place: a card, then the first site or coat it reaches, then Play
    for k in range(page.locator("[data-zone=hand] .card.legal").count()):
        page.locator("[data-zone=hand] .card.legal").nth(k).click()
        target = page.locator(".site.legal .spot, .coat.legal .shield")
        if target.count():
            target.first.click()
            break
        page.get_by_role("button", name="Clear selection").click()
    else:
        pytest.fail("no card of the first hand places a piece")
    page.get_by_role("button", name="Play", exact=True).click()
    page.wait_for_function(f"Number(document.body.dataset.version) === {v0 + 1} && document.body.dataset.phase === 'draw'")
    assert page.locator("#map .site.taken").count() + page.locator("#map .coat .pip").count() >= 1
    shot(page, "undo-offered")
    page.get_by_role("button", name="Take back placement").click()
    page.wait_for_function(f"Number(document.body.dataset.version) === {v0} && document.body.dataset.phase === 'main'")
    assert page.inner_text("[data-zone=hand]") == hand
    assert page.locator("#undo").count() == 0
    # after a card is drawn there is nothing to take back
    take_turn(page, random.Random(1))
    if page.evaluate("document.body.dataset.phase") == "draw":
        page.locator(".pile.legal").first.click()
        page.wait_for_function(f"Number(document.body.dataset.version) >= {v0 + 2}")
        assert page.locator("#undo").count() == 0
    assert page.errors == [] and page.console_errors == []


def test_the_alliances_panel_shows_who_would_score_now(server: str, browser: Any) -> None:
    import time

    import httpx
    from webtools import BOTS4, get

    # A running game of a person (playing random legal moves by HTTP) and three bots, until
    # some alliance has a holder (random play may take a while to give one the majority in
    # both its countries); the person's page then shows who would score each alliance now.
    rng = random.Random(5)
    page = new_page(browser)
    held = False
    for _ in range(6):
        g = create_game(server, [{"name": "Ann", "kind": "person"}] + BOTS4[1:])
        tok = g["seats"][0]["token"]
        with httpx.Client(base_url=server, timeout=HTTP_TIMEOUT) as c:
            assert c.post(f"/api/games/{g['id']}/join", json={"seat": 0, "token": tok}).status_code == 200
            end = time.monotonic() + 60
            while time.monotonic() < end:
                msg = c.get(f"/api/games/{g['id']}/state", params={"seat": 0, "token": tok}).json()
                if msg["status"] == "finished":
                    break
                if any(a["holders"] for a in msg["standing"]["alliances"]) and msg["view"]["current"] == 0 and msg.get("legal"):
                    held = True
                    break
                if msg.get("legal"):
                    body = {"seat": 0, "token": tok, "version": msg["version"], "action": rng.choice(msg["legal"])}
                    assert c.post(f"/api/games/{g['id']}/actions", json=body).status_code in (200, 409)
                else:
                    time.sleep(0.02)
        if held:
            break
    assert held, "six games with no alliance held on the person's turn"
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_selector("[data-site=paris]")
    msg = get(server, f"/api/games/{g['id']}/state")
    page.click(".alliances-now summary")
    rows = page.locator("[data-alliance-now]")
    assert rows.count() == len(msg["standing"]["alliances"]) == 15
    for a in msg["standing"]["alliances"]:
        row = page.locator(f"[data-alliance-now='{a['number']}']").inner_text()
        for p in a["holders"]:
            assert msg["players"][p]["name"] in row
        assert (f"{a['points']} points each" in row) == bool(a["holders"])
    shot(page, "alliances-now")
    # a finished game: no "if the game ended now" (it has ended; the final scoring says who scored)
    f = create_game(server, BOTS4)
    page.goto(server + f["watch"])
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=60000)
    page.wait_for_selector("#final-table")
    assert page.locator(".alliances-now").count() == 0


def test_the_seat_token_leaves_the_address_after_the_first_visit(server: str, browser: Any) -> None:

    g, page = my_game(server, browser)
    assert wait_turn(page)
    token = g["seats"][0]["token"]
    assert token not in page.url and page.url.endswith(f"/game/{g['id']}")
    # the same browser comes back without the token in the address and still holds the seat
    page.goto(server + f"/game/{g['id']}")
    assert wait_turn(page)
    assert page.locator("[data-zone=hand] .card").count() >= 1
    history = page.evaluate("JSON.stringify(history.state) + location.href")
    assert token not in history
    # no page sends its address elsewhere
    for path in ("/", f"/game/{g['id']}", "/api/games", "/static/game.js"):
        assert http_get(server + path).headers["referrer-policy"] == "no-referrer"
    assert page.errors == [] and page.console_errors == []


def test_the_lobby_offers_join_only_on_open_seats(server: str, browser: Any) -> None:
    page = new_page(browser)
    open_settings(page, server)
    # person rows have no level; the creator opens seat 3 to anyone
    assert page.locator("#level-0").count() == 0
    page.select_option("#kind-1", "person")
    page.select_option("#kind-2", "open")
    page.select_option("#kind-3", "bot")
    assert page.locator("#level-3").count() == 1 and page.locator("#level-2").count() == 0
    page.fill("#name-0", "Host")
    create_in_lobby(page, then=None)
    page.wait_for_selector("#created a[data-seat-link]")
    assert stray_words(page, "#created") == set()  # a public game: no line about a private one, no "null"
    gid = page.locator("#created a[data-seat-link]").first.get_attribute("href").split("/")[2].split("?")[0]
    page.reload()
    page.wait_for_selector(f"[data-claim^='{gid}:']")
    claims = page.eval_on_selector_all(f"[data-claim^='{gid}:']", "bs => bs.map((b) => b.dataset.claim)")
    assert claims == [f"{gid}:2"]  # not the invited seats 0 and 1
    page.click(f"[data-claim='{gid}:2']")
    page.fill("#join-name", "Stranger")  # (a guest: the name asked in the row)
    page.click("#join-send")
    page.wait_for_url(f"**/game/{gid}*")
    page.wait_for_function("document.body.dataset.status === 'open'")
    assert page.errors == [] and page.console_errors == []
