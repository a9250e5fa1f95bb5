"""Ratings in the browser: sign up, make a rated table of bots from the home page's
settings, play it out, and see the rating move on the final table, the account page and
the leaderboard (a laptop in English); on a phone in German, a guest sees why "Rated" is
greyed, then signs up, finds a table, starts it with bots, and sees the same."""

from __future__ import annotations

import re
from typing import Any

import pytest
from web_helpers import change_settings
from webtools import APPS, new_page, open_settings, phone, shot
from webtools import sign_up_on_page as sign_up

pytestmark = pytest.mark.browser

PW = "correct horse battery"

# the page's own seat plays its first legal move until the game is over (the bots play on
# the server); moves through the API as the page would send them, so that a whole game is quick
PLAY_OUT = """async (gid) => {
    const tok = JSON.parse(localStorage.getItem('kardinal-seats:' + gid))['0'];
    for (let i = 0; i < 5000; i++) {
        const st = await (await fetch(`/api/games/${gid}/state?seat=0&token=${tok}`)).json();
        if (st.status === 'finished') return st.status;
        if (st.legal && st.legal.length && st.view.current === 0) {
            await fetch(`/api/games/${gid}/actions`, {method: 'POST', headers: {'content-type': 'application/json'},
                body: JSON.stringify({seat: 0, token: tok, version: st.version, action: st.legal[0]})});
        } else {
            await new Promise((r) => setTimeout(r, 30));
        }
    }
    return 'not finished';
}"""


def game_id(page: Any) -> str:
    return str(page.evaluate("decodeURIComponent(location.pathname.split('/').pop())"))


def play_out(page: Any) -> None:
    page.wait_for_function("document.body.dataset.status === 'running' || document.body.dataset.status === 'finished'", timeout=30000)
    assert page.evaluate(PLAY_OUT, game_id(page)) == "finished"
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=30000)


def test_a_rated_game_against_bots_moves_the_rating_on_a_laptop(server: str, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    change_settings(monkeypatch, APPS[server], leaderboard_games=1)
    page = new_page(browser)
    sign_up(page, server, "Rita")
    page.wait_for_selector("#my-rating-none")
    assert "1,500 ± 700" in page.inner_text("#my-rating-none")
    open_settings(page, server)
    page.wait_for_selector("#find-table")  # signed in: the home page offers Find me a table
    for i in (1, 2, 3):
        page.select_option(f"#level-{i}", "random")
    assert page.is_enabled("#rated") and page.locator("#hints").count() == 0  # (one person: no hints box anyway)
    page.check("#rated")
    assert page.is_disabled("#hotseat")  # a rated table has no hot-seat
    page.locator("#rated").scroll_into_view_if_needed()
    shot(page, "rated-settings-desktop")
    page.get_by_role("button", name="Create game").click()
    page.wait_for_url("**/game/*?seat=0&token=*", timeout=30000)
    gid = game_id(page)
    play_out(page)
    row = page.locator('#final-ratings li[data-seat="0"]')
    row.wait_for(timeout=30000)
    text = row.inner_text()
    change = int(row.get_attribute("data-change"))
    assert re.fullmatch(r"● Rita: 1,500 ± 700 → [\d,]+ ± \d+ \((\+\d+|−\d+|±0)\)", text), text
    assert (change > 0) == ("(+" in text)
    assert page.locator("#final-table").count() == 1
    page.locator("#finalbox").scroll_into_view_if_needed()
    shot(page, "rated-final-desktop")
    # the account page: the rating and the game
    page.goto(server + "/account")
    page.wait_for_selector("#my-rating-value")
    value = page.inner_text("#my-rating-value")
    assert value.endswith(text.split(" → ")[1].split(" (")[0].split(" ± ")[1]) and " ± " in value
    assert page.locator(f'#my-rated-games li[data-game="{gid}"]').count() == 1
    shot(page, "rated-account-desktop")
    # the leaderboard: Rita, and the bots for scale
    page.goto(server + "/players")
    page.wait_for_selector('#leaderboard tr[data-player="Rita"]')
    assert page.inner_text('#leaderboard tr[data-player="Rita"] td:nth-child(3)') == value
    assert page.get_attribute('#leaderboard tr[data-player="Rita"] a', "href") == "/player/Rita"
    assert page.locator('#bot-ratings tr[data-bot="greedy"]').count() == 1
    # every level in the player's words, none by its id (the new-user walk found "ismcts (bot)")
    bots = page.locator("#bot-ratings td:first-child").all_inner_texts()
    assert "searcher (bot)" in bots and "strong (bot)" in bots and not any("ismcts" in b or "hard" in b for b in bots), bots
    shot(page, "players-desktop", full_page=True)
    # the lobby marks the rated game (My games)
    page.goto(server + "/")
    page.wait_for_selector(f'#my-games li[data-game="{gid}"] .tag.rated')
    shot(page, "rated-home-desktop")
    assert not page.errors and not page.console_errors, (page.errors, page.console_errors)
    page.context.close()


def test_find_a_table_and_start_it_with_bots_on_a_phone_in_german(server: str, browser: Any) -> None:
    page = phone(browser, "de-DE")
    # a guest: "Gewertet" greyed, with the reason
    open_settings(page, server)
    assert page.is_disabled("#rated")
    assert page.inner_text("#rated-why").strip() == "Gewertete Spiele brauchen ein Konto: melde dich an, um sie zu spielen."
    assert page.locator("#find-table").count() == 0
    page.locator("#rated").scroll_into_view_if_needed()
    shot(page, "rated-settings-guest-phone-de")
    sign_up(page, server, "Grete")
    page.goto(server + "/")
    find = page.locator("#find-table")
    find.wait_for()
    box = find.bounding_box()
    assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 390
    assert "Finde mir einen Tisch" in find.inner_text()
    shot(page, "find-table-phone-de")
    find.click()
    page.wait_for_url("**/game/*?seat=0&token=*", timeout=30000)
    # nobody else is there: start with bots of one's own level
    fill = page.locator("#fill-bots")
    fill.wait_for(timeout=20000)
    assert fill.inner_text() == "Mit Bots anfangen"
    fb = fill.bounding_box()
    assert fb is not None and fb["height"] >= 44
    shot(page, "rated-waiting-phone-de")
    fill.click()
    play_out(page)
    row = page.locator('#final-ratings li[data-seat="0"]')
    row.wait_for(timeout=30000)
    assert re.fullmatch(r"● Grete: 1\.500 ± 700 → [\d.]+ ± \d+ \((\+\d+|−\d+|±0)\)", row.inner_text()), row.inner_text()
    assert page.inner_text("#final-ratings h3") == "Wertungszahlen"
    if page.locator("#sc-close").count():  # the final scoring's walk-through opened by itself
        page.click("#sc-close")
    page.locator("#final-ratings").scroll_into_view_if_needed()
    shot(page, "rated-final-phone-de")
    page.goto(server + "/account")
    page.wait_for_selector("#my-rating-value")
    assert "1 gewertetes Spiel" in page.inner_text(".my-rating")
    page.locator("#my-rating").scroll_into_view_if_needed()
    shot(page, "rated-account-phone-de")
    page.goto(server + "/players")
    page.wait_for_selector("#bot-ratings")
    assert page.inner_text("h1") == "Spieler"
    assert page.inner_text('#bot-ratings tr[data-bot="greedy"] td:first-child') == "gierig (Bot)"
    assert page.inner_text('#bot-ratings tr[data-bot="ismcts"] td:first-child') == "Sucher (Bot)"
    shot(page, "players-phone-de", full_page=True)
    assert not page.errors, page.errors
    page.context.close()
