"""Following the others' turns in the browser (follow.js): each opponent's turn is shown
on the map as it happened, with a line saying what happened, at a speed the player sets
(or not at all), and the last round can be shown again. The animation never holds the
game back: the newest state is drawn at once."""

from __future__ import annotations

import random
from typing import Any

import pytest
from webtools import choose_lang, create_game, new_page, shot, take_turn, wait_turn

pytestmark = pytest.mark.browser

ME_AND_BOTS = [{"name": "Ann", "kind": "person"}] + [{"name": f"Bot {i}", "kind": "bot", "level": "random"} for i in (1, 2, 3)]


def open_seat0(server: str, browser: Any, speed: str) -> Any:
    g = create_game(server, ME_AND_BOTS)
    page = new_page(browser)
    page.add_init_script(f"localStorage.setItem('kardinal-follow-speed', '{speed}')")
    page.goto(server + g["seats"][0]["url"])
    return page


def test_an_opponents_turn_is_shown_as_it_animates(server: str, browser: Any) -> None:
    page = open_seat0(server, browser, "slow")
    rng = random.Random(3)
    assert wait_turn(page)
    take_turn(page, rng)  # a placement or an exchange
    while page.evaluate("document.body.dataset.phase") == "draw" and page.evaluate("document.body.dataset.myTurn") == "true":
        take_turn(page, rng)  # refill the hand
    # the bots play now; their first turn is shown: a line naming the bot, things flying
    page.wait_for_function("document.body.dataset.animating === 'true'", timeout=15000)
    page.wait_for_function("/Bot [123]/.test(document.getElementById('follow-line').textContent)", timeout=15000)
    line = page.inner_text("#follow-line")
    page.wait_for_selector(".fx-layer .fx-piece, .fx-layer .fx-card, .fx-layer .fx-tray", state="attached", timeout=15000)
    shot(page, "follow-opponent-turn")
    # the game is not held back: it is this page's turn again while the bots' turns still play
    page.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=20000)
    assert page.evaluate("document.body.dataset.animating") == "true", "the animation should still be running"
    # every bot turn gets its line; the animation ends with every piece on the board
    page.wait_for_function("document.body.dataset.animating === ''", timeout=60000)
    assert page.locator("#map .fx-pending").count() == 0
    assert page.locator(".fx-layer > *").count() == 0
    assert line.startswith("Bot ")
    assert page.errors == [] and page.console_errors == []


def test_off_shows_the_line_but_moves_nothing_and_the_last_round_can_be_replayed(server: str, browser: Any) -> None:
    page = open_seat0(server, browser, "off")
    rng = random.Random(5)
    assert wait_turn(page)
    assert page.input_value("#follow-speed") == "off"
    take_turn(page, rng)
    while page.evaluate("document.body.dataset.phase") == "draw" and page.evaluate("document.body.dataset.myTurn") == "true":
        take_turn(page, rng)
    assert wait_turn(page)
    page.wait_for_function("/Bot 3/.test(document.getElementById('follow-line').textContent)", timeout=15000)
    assert page.locator(".fx-layer > *").count() == 0 and page.locator("#map .fx-pending").count() == 0
    # asked for, the last round is shown even with the speed off: four turns, ending with Bot 3's
    seen: list[str] = []
    page.expose_function("noteLine", lambda t: seen.append(t))
    page.evaluate(
        "new MutationObserver(() => window.noteLine(document.getElementById('follow-line').textContent))"
        ".observe(document.getElementById('follow-line'), {childList: true, characterData: true, subtree: true})"
    )
    page.get_by_role("button", name="Replay last round").click()
    page.wait_for_function("document.body.dataset.animating === 'true'", timeout=5000)
    page.wait_for_function("document.body.dataset.animating === ''", timeout=60000)
    assert [t.split(":")[0].split(" exchanged")[0].split(" passed")[0] for t in seen][-4:] == ["Ann", "Bot 1", "Bot 2", "Bot 3"], seen
    assert page.locator("#map .fx-pending").count() == 0
    # German
    choose_lang(page, "de")
    assert page.get_by_role("button", name="Letzte Runde zeigen").count() == 1
    assert page.errors == [] and page.console_errors == []


def test_the_queue_holds_at_most_a_round_and_hurries_on_ones_own_turn(server: str, browser: Any) -> None:
    """Played quickly at the slow speed, the others' turns still to show never exceed a round
    (three, with three bots): older ones land at once, so on one's own turn the map is at
    most a round behind, and what is left of it plays fast until every piece has landed."""
    page = open_seat0(server, browser, "slow")
    rng = random.Random(5)
    most = 0
    for _ in range(6):
        if not wait_turn(page):
            break
        most = max(most, int(page.evaluate("Number(document.body.dataset.following || 0)")))
        take_turn(page, rng)
    assert 1 <= most <= 3, most
    page.wait_for_function("document.body.dataset.animating === ''", timeout=60000)
    assert page.locator("#map .fx-pending").count() == 0 and page.evaluate("document.body.dataset.following") == "0"
    assert page.errors == [] and page.console_errors == []
