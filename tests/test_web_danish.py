"""Every word in Danish (issue 46): a Danish player, whose browser speaks Danish, goes from
the home page through a game (a hint, a refused click, a few turns, the rules dialog), the
rules page, their games, the account page, a finished game's final scoring and replay, and
the tutorial to its end, and with mail on through the account's mail settings and the mail
links' page, without meeting a word of English or German. The check is test_web_german's
(``Words``), with the words of both other languages that Danish does not share.

What is marked as another language (the rules page's glossary columns, its links to the
other languages) is left out, and so are the rules' quotations of their German sources
(„…“), which stay in the sources' words."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from typing import Any

import pytest
from test_web_german import ENGLISH, Words, walk_overlay
from web_helpers import change_settings
from webtools import APPS, BOTS4, create_game, new_page, shot, sign_up_on_page, take_turn, wait_turn

pytestmark = pytest.mark.browser

# English words that Danish writes the same ("at", "for", "to", "by", "her", "hand", "end", "have", "time", "point", "chance")
DANISH_TOO = {"at", "for", "to", "by", "her", "hand", "end", "have", "time", "point", "chance"}
# German words that are not Danish ones (not "der", "regel", "du", "alle", "land", "runde", "kloster", "konto", "mit",
# "Venedig": Danish too)
GERMAN = set(
    """
    die das und ein eine einen nicht wird ist auf von zu zum zur oder wenn dann hier jetzt nur noch auch
    karte karten zug stein steine rat räte wappen bündnis bündnisse auslage nachziehstapel ablagestapel
    punkte punkten spiel spiele spielen spieler regeln sieger hilfe zurück schließen ausspielen
    wertung zwischenwertung schlusswertung dein deine mein meine anmelden abmelden passwort zuschauen beitreten
    klöster klosterfeld frankreich genf mailand genua
    """.split()
)
# the English names of countries and cities (the Danish page says Frankrig, Bayern, Genève, Milano, ...)
EXONYMS = set("france franconia bavaria italy lorraine swabia burgundy cologne vienna geneva milan genoa venice nuremberg".split())
NOT_DANISH = (ENGLISH - DANISH_TOO) | GERMAN | EXONYMS
# words the Danish rulebook does not use for the pieces (it says rådmand / rådmænd, brik / brikker)
NOT_THE_DANISH_RULEBOOK = re.compile(r"\b[Rr]ådgiver\w*|\b[Ff]igur(?:er)?\b")
# the publisher's name on the rules page (its "Spiele" is a name here, not a German word)
NAMES_ON_THE_RULES = ["Goldsieber Spiele"]


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


def test_every_page_in_danish(server: str, browser: Any) -> None:
    from test_web_tutorial import SOLUTIONS, choose, refill_from_display

    me = "Mette"
    bots = [f"Bot {i}" for i in (1, 2, 3, 4)]
    words = danish_words([me, *bots])

    # the home page, every fold open: Danish because the browser is
    page = danish_page(browser)
    page.goto(server + "/")
    page.locator("#settings-summary").click()
    page.wait_for_selector("#kind-1")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.wait_for_load_state("networkidle")
    assert page.locator("text=Hvordan vil du begynde?").count() == 1
    words.check(page, "home")
    shot(page, "danish-home", full_page=True)

    # a game against bots: a hint, an advisor refused, a few turns, the rules dialog
    players = [{"name": me, "kind": "person"}] + [{"name": n, "kind": "bot", "level": "random"} for n in bots[:3]]
    g = create_game(server, players, hints=True)
    page.goto(server + g["seats"][0]["url"])
    assert wait_turn(page)
    words.check(page, "game")
    # the map's key: every line within its box (Danish words are long)
    wide = page.evaluate(
        "[...document.querySelectorAll('#map .legend-text')].filter((t) => t.getBBox().x + t.getBBox().width > 194).map((t) => t.textContent)"
    )
    assert wide == [], wide
    page.click("#about-btn")  # what the board is, said in Danish (not the board file's English)
    page.wait_for_selector("#about[open]")
    assert "En rekonstruktion af spillepladen" in page.inner_text("#about")
    words.check(page, "game: about the board")
    page.keyboard.press("Escape")
    page.click("#hint-btn")
    page.wait_for_selector("#hint-list li", timeout=30000)
    words.check(page, "game: a hint")
    empty = page.evaluate("[...document.querySelectorAll('#map .coat')].map((c) => c.dataset.coat)")
    page.locator("[data-zone=hand] .card.legal").first.click()
    for cid in empty:
        if not page.locator(f"#map .coat[data-coat='{cid}'].legal").count():
            page.locator(f"#map .coat[data-coat='{cid}'] .shield").click(force=True)
            if page.locator("#msg.bad").count():
                break
    assert "der er endnu intet kloster" in page.inner_text("#msg"), page.inner_text("#msg")
    words.check(page, "game: an advisor refused")
    page.click("#msg .msg-close")
    page.click("#clear")
    assert page.inner_text("#rules-info") == "Regler: som i regelhæftet"
    rng = random.Random(45)
    for k in range(4):
        take_turn(page, rng)
        if not wait_turn(page):
            break
        words.check(page, f"game: turn {k + 2}")
    shot(page, "danish-game")
    page.click("#rules-link")
    page.wait_for_selector("#rules-dialog[open] .rules-text h2")
    assert "Sådan går en tur" in page.inner_text("#rules-dialog")
    words.check(page, "rules dialog")
    page.keyboard.press("Escape")

    # a refusal by the server: a link whose token is wrong
    page.goto(server + f"/game/{g['id']}?seat=0&token=ikke-det-rigtige")
    page.wait_for_function("document.getElementById('msg').textContent.length > 0")
    assert page.inner_text("#msg").startswith("Afvist: ")
    words.check(page, "game: a refusal by the server")

    # my games, the rules page (from the browser's language: no ?lang=)
    page.goto(server + "/mine")
    page.wait_for_load_state("networkidle")
    page.wait_for_selector("main li, main table, main p")
    words.check(page, "my games")
    page.goto(server + "/rules")
    assert page.evaluate("document.documentElement.lang") == "da"
    assert "Det danske regelhæfte læser R4.3 anderledes" in page.inner_text("#R4\\.3")
    words.check(page, "rules page")

    # the account page: a refused sign-in, signed in, the players, a profile
    acct = danish_page(browser)
    acct.goto(server + "/account")
    acct.wait_for_selector("#signin-form")
    words.check(acct, "account page")
    acct.fill("#signin-name", "Ingen")
    acct.fill("#signin-password", "forkert-forkert")
    acct.click("#signin-button")
    acct.wait_for_selector("#account-note:not(:empty)")
    words.check(acct, "account page: a refused sign-in")
    sign_up_on_page(acct, server, "Karen", "rigtigt-rigtigt")
    words.check(acct, "account page: signed in")
    for path, where in (("/players", "players"), ("/player/Karen", "a player's profile")):
        acct.goto(server + path)
        acct.wait_for_selector("main h1")
        words.check(acct, where)
    assert acct.errors == []
    acct.context.close()

    # a finished game: its final scoring step by step, its replay and intermediate scoring
    f = create_game(server, BOTS4)
    page.goto(server + f["watch"])
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=60000)
    page.wait_for_selector("#final-table")
    words.check(page, "the final table")
    if not page.locator("#scoring-overlay[data-kind=final]").count():
        page.click("#final-walk")
    page.wait_for_selector("#scoring-overlay[data-kind=final]")
    assert walk_overlay(page, words, "final scoring") > 5
    shot(page, "danish-final-totals")
    page.click("#sc-close")
    page.click("#rp-jump-start")
    page.wait_for_function("document.body.dataset.replay === '0'")
    page.click("#rp-next-turn")
    page.wait_for_function("!['', '0'].includes(document.body.dataset.replay)")
    step = page.evaluate("document.body.dataset.replay")
    assert re.fullmatch(rf"Tur 1 af \d+ · trin {step}", page.inner_text("#rp-where")), page.inner_text("#rp-where")
    words.check(page, "replay")
    if page.locator("#rp-show-inter").count():
        page.click("#rp-show-inter")
        assert walk_overlay(page, words, "intermediate scoring") > 1
        page.click("#sc-close")

    # the tutorial, every lesson, a refused and a wrong attempt, and its end
    page.goto(server + "/tutorial#1")
    page.wait_for_selector("body[data-status=ready]")
    words.check(page, "tutorial")
    choose(page, ["franken-aragon", "franken-aragon"], ["mainz", "fulda"])
    page.wait_for_selector("body[data-feedback=refused]")
    words.check(page, "tutorial: refused")
    steps = list(SOLUTIONS)
    for i, sid in enumerate(steps):
        cards, targets = SOLUTIONS[sid]
        if sid == "alliance":
            choose(page, ["lothringen-italien"], ["coat:italien"])
            page.wait_for_selector("body[data-feedback=wrong]")
            words.check(page, "tutorial: wrong")
        choose(page, cards, targets)
        if sid == "intermediate":
            page.wait_for_selector("body[data-feedback=goon]")
            words.check(page, f"tutorial: {sid}, go on")
            page.click(".pile.legal")
        if sid == "refill":
            refill_from_display(page, "bayern-burgund", 2)
        page.wait_for_selector("body[data-status=done]")
        words.check(page, f"tutorial: {sid} done")
        page.click("#next")
        if i + 1 < len(steps):
            page.wait_for_selector(f"body[data-step={steps[i + 1]}][data-status=ready]")
            words.check(page, f"tutorial: {steps[i + 1]}")
    page.wait_for_selector("body[data-status=finished]")
    words.check(page, "tutorial: the end")
    shot(page, "danish-tutorial-end", full_page=True)

    assert words.pages >= 25
    assert words.found == [], words.report()
    assert page.errors == [] and page.console_errors == []


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
