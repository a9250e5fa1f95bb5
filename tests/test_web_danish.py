"""Every word in Danish (issue 46), beyond the walks every language gets (test_web_german.py,
run for Danish with the words of English and German that Danish does not share: the home
page, a game, the rules page, the account, a finished game, replay and the tutorial to its
end): on a Danish phone, the account's mail settings, the mailed confirmation and the mail
links' page, and a table's moderation and a deleted account's seat.

What is marked as another language (the rules page's glossary columns, its links to the
other languages) is left out, and so are the rules' quotations of their German sources
(„…“), which stay in the sources' words."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from test_web_german import NAMES_ON_THE_RULES, NOT_DANISH, NOT_THE_DANISH_RULEBOOK, Words
from web_helpers import change_settings
from webtools import APPS, new_page, shot, sign_up_on_page

pytestmark = pytest.mark.browser


def danish_words(names: list[str]) -> Words:
    return Words([*names, *NAMES_ON_THE_RULES], lang="da", foreign=NOT_DANISH, wrong=NOT_THE_DANISH_RULEBOOK, quoted=True)


def danish_page(browser: Any, width: int = 1400, height: int = 950) -> Any:
    """A page of a browser that speaks Danish: the page follows it, nothing is chosen."""
    page = new_page(browser, width, height, locale="da-DK")
    page.context.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    return page


@pytest.fixture(autouse=True)
def small_budgets(server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    change_settings(monkeypatch, APPS[server], hint_seconds=1.0, review_iterations=30)
    yield


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """A second live server of this module, whose mail goes to the test's SMTP server."""
    from test_web_mail import serve_with_mail

    yield from serve_with_mail(tmp_path_factory, "https://kardinal.example.org")


def test_the_mail_pages_and_a_phone_in_danish(mail_server: tuple[str, Any], browser: Any) -> None:
    """On a phone: the account's mail settings (an address waiting, confirmed, the mails
    wanted), the mailed confirmation (in Danish, its language the browser's), the mail links'
    page (confirmed, a link that does not work, unsubscribing); nothing overflows. At a
    table: a chat line's menu, the report dialog, a muted line, a deleted account's seat."""
    from test_web_mail import foreign_in_danish, link, text_of
    from test_web_words import OVERFLOWS

    server, smtp = mail_server
    words = danish_words(["Karen", "Lars", "Hej alle sammen"])
    karen = danish_page(browser, 390, 844)
    sign_up_on_page(karen, server, "Karen", "rigtigt-rigtigt")
    karen.fill("#mail-address", "karen@example.org")
    karen.fill("#mail-password", "rigtigt-rigtigt")
    karen.click("#mail-button")
    karen.wait_for_selector("#mail-state")
    words.check(karen, "account page: an address waiting")
    assert karen.evaluate(OVERFLOWS) == []
    (mail,) = smtp.inbox.wait("karen@example.org")
    assert mail["Subject"] == "Kardinal & König: bekræft din mailadresse" and mail["Content-Language"] == "da"
    assert text_of(mail).startswith("Hej Karen") and foreign_in_danish(text_of(mail)) == []
    karen.goto(server + "/mail#confirm=" + link(mail, "confirm", "https://kardinal.example.org"))
    karen.wait_for_selector("#mail-note.good")
    words.check(karen, "mail page: the address confirmed")
    karen.goto(server + "/mail#confirm=ikke-et-rigtigt-link")
    karen.reload()
    karen.wait_for_selector("#mail-note.bad")
    words.check(karen, "mail page: a link that does not work")
    karen.goto(server + "/mail#unsubscribe=1.turn.0123456789abcdef0123456789abcdef")
    karen.reload()
    karen.wait_for_selector("#unsub-button")
    words.check(karen, "mail page: unsubscribing")
    assert karen.evaluate(OVERFLOWS) == []
    karen.goto(server + "/account")
    karen.wait_for_selector("#mail-want-turn")
    words.check(karen, "account page: the mails wanted")
    assert karen.evaluate(OVERFLOWS) == []
    shot(karen, "danish-phone-account", full_page=True)
    # the rules page on the phone: its table of the three languages' words fits the width
    karen.goto(server + "/rules")
    words.check(karen, "rules page on a phone")
    assert karen.evaluate("document.documentElement.scrollWidth <= document.documentElement.clientWidth"), (
        "the rules page is wider than the phone"
    )

    # at a table: Lars writes, Karen opens the line's menu, the report dialog, mutes him; he deletes his account
    lars = danish_page(browser)
    sign_up_on_page(lars, server, "Lars", "rigtigt-rigtigt")
    g = karen.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{name: 'Karen', kind: 'person'}, {name: 'Lars', kind: 'person'}, {kind: 'bot', level: 'random'}]})})).json()"""
    )
    karen.goto(server + g["seats"][0]["url"])
    karen.wait_for_selector("#fill-bots")
    words.check(karen, "game: waiting for a player")
    lars.goto(server + g["seats"][1]["url"])
    for p in (karen, lars):
        p.wait_for_selector("#chat-text")
        p.wait_for_selector("body[data-status=running]", state="attached")
    lars.fill("#chat-text", "Hej alle sammen")
    lars.press("#chat-text", "Enter")
    line = karen.locator("#chatbox .chat-say", has_text="Hej alle sammen")
    line.locator(".chat-menu summary").click()
    karen.wait_for_selector("#chatbox .chat-menu[open] [data-act=report]")
    words.check(karen, "game: the menu of a line")
    line.locator("[data-act=report]").click()
    karen.wait_for_selector("#report-dialog[open]")
    words.check(karen, "game: the report dialog")
    karen.click("#report-cancel")
    line.locator(".chat-menu").evaluate("(menu) => { menu.open = true; }")
    line.locator("[data-act=mute]").click()
    karen.wait_for_selector("#chatbox .chat-muted")
    words.check(karen, "game: a muted line")
    status = lars.evaluate(
        """async () => (await fetch('/api/account/delete', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({password: 'rigtigt-rigtigt'})})).status"""
    )
    assert status == 200
    karen.reload()
    karen.wait_for_function("document.body.innerText.includes('slettet spiller')")
    words.check(karen, "game: a deleted account's seat")
    assert words.found == [], words.report()
    assert karen.errors == [] and lars.errors == []
    lars.context.close()
    karen.context.close()

    # a touch screen taps ("Tryk på"), where a mouse clicks ("Klik på")
    ctx = browser.new_context(viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="da-DK", timezone_id="UTC")
    phone = ctx.new_page()
    phone.goto(server + "/tutorial#1")
    phone.wait_for_selector("body[data-status=ready]")
    assert (
        phone.inner_text("#task")
        == "Din opgave: Tryk på et Franken/Aragon-kort, derefter på et ledigt klosterfelt i Franken, derefter på Spil."
    )
    ctx.close()
