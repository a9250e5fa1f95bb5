"""E-mail in the browser (account-mail.js, mail.js) against a real SMTP server (aiosmtpd):
the account page's address and mail settings, the confirmation link, "Forgot the
password?" and the reset page, a turn's mail whose link opens the seat after signing in,
unsubscribing; on a desktop in English and a phone in German; and the page of a server
without mail settings."""

from __future__ import annotations

import re
from collections.abc import Iterator
from typing import Any

import pytest
from test_web_mail import Smtp, link, serve_with_mail, text_of
from webtools import choose_lang, new_page, phone, shot
from webtools import sign_up_on_page as sign_up

pytestmark = pytest.mark.browser

PW = "correct horse battery"
PUBLIC = "http://kardinal.test"  # the links' site; the test opens their path on its server


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Smtp]]:
    """A live server whose mail goes to the test's SMTP server."""
    yield from serve_with_mail(tmp_path_factory, PUBLIC)


def sign_in_back_to(page: Any, name: str, gid: str) -> None:
    """On the mail link's page, signed out: "Sign in", sign in, and back to the game."""
    page.click("#open-sign-in")
    page.wait_for_selector("#signin-name")
    page.fill("#signin-name", name)
    page.fill("#signin-password", PW)
    page.click("#signin-button")
    page.wait_for_url(re.compile(rf".*/game/{gid}$"), timeout=15000)


def add_address(page: Any, addr: str) -> None:
    page.wait_for_selector("#mail-address")
    page.fill("#mail-address", addr)
    page.fill("#mail-password", PW)
    page.click("#mail-button")
    page.wait_for_selector("#mail-state")


def test_address_mails_and_a_new_password_on_a_desktop_in_english(mail_server: tuple[str, Smtp], browser: Any) -> None:
    server, smtp = mail_server
    page = new_page(browser)
    page.goto(server + "/account")
    page.click("#forgot-open")
    page.wait_for_selector("#forgot-who")
    shot(page, "mail-account-guest-desktop")
    sign_up(page, server, "Anna")
    page.wait_for_selector("#mail-section")
    assert page.inner_text("#mail-want-first").startswith("Confirm your address first")
    # a wrong password: said in the mail form, the password field marked, what was typed kept
    page.fill("#mail-address", "anna@example.org")
    page.fill("#mail-password", "not my password")
    page.click("#mail-button")
    page.wait_for_selector("#mail-form #account-note.bad")
    assert page.inner_text("#mail-form #account-note") == "This is not the account's password."
    assert page.get_attribute("#mail-password", "aria-invalid") == "true" and page.input_value("#mail-address") == "anna@example.org"
    assert [e for e in page.console_errors if "403" in e and "/api/account/email" in e] == page.console_errors  # the refusal itself
    page.console_errors.clear()
    add_address(page, "anna@example.org")
    assert "A link to confirm the address is on its way to anna@example.org" in page.inner_text("#account-note")
    assert page.inner_text("#mail-state").startswith("anna@example.org — waiting")
    shot(page, "mail-account-waiting-desktop", full_page=True)

    # a link garbled on its way (a token of the wrong form): said as a mail link's refusal,
    # not a seat's (the fifth walk: "This link does not hold that seat")
    page.goto(server + "/mail#confirm=not-a-token")
    page.wait_for_selector("#mail-note.bad")
    assert "seat" not in page.inner_text("#mail-note")
    page.console_errors.clear()  # (the refused request's 403, as a browser logs it)
    page.goto(server + "/account")  # (a new page: the next link's hash is read as it loads)
    # the mailed link: the page posts its token and takes it out of the address bar
    (mail,) = smtp.inbox.wait("anna@example.org")
    page.goto(server + "/mail#confirm=" + link(mail, "confirm", PUBLIC))
    page.wait_for_selector("#mail-note.good")
    assert page.inner_text("#mail-note").startswith("Your address is confirmed")
    assert "#" not in page.url
    shot(page, "mail-confirmed-desktop")

    # the mails wanted
    page.goto(server + "/account")
    page.wait_for_selector("#mail-want-turn")
    page.check("#mail-want-turn")
    page.wait_for_selector("#account-note.good")
    assert page.is_checked("#mail-want-turn") and not page.is_checked("#mail-want-end")
    got = page.evaluate("async () => (await (await fetch('/api/account/email')).json()).notify")
    assert got == {"turn": True, "invitation": False, "end": False}
    shot(page, "mail-account-confirmed-desktop", full_page=True)

    # signed out: "Forgot the password?", the reset page
    page.click("#sign-out")
    page.wait_for_selector("#forgot-open")
    page.click("#forgot-open")
    page.fill("#forgot-who", "Anna")
    page.click("#forgot-button")
    # (the note said "Signed out" until the answer came)
    page.wait_for_function(
        "document.getElementById('account-note').textContent.startsWith('If an account has this name or confirmed address')"
    )
    assert page.locator("#account-note.good").count() == 1
    reset = smtp.inbox.wait("anna@example.org", 2)[-1]
    page.goto(server + "/mail#reset=" + link(reset, "reset", PUBLIC))
    page.wait_for_selector("#reset-password")
    assert "#" not in page.url
    shot(page, "mail-reset-desktop")
    page.fill("#reset-password", "a new password here")
    page.click("#reset-button")
    page.wait_for_selector("#mail-note.good")
    assert page.inner_text("#mail-note").startswith("Your new password is set")
    page.wait_for_function("document.getElementById('account-link').textContent === 'Anna'", timeout=10000)
    shot(page, "mail-reset-done-desktop")
    assert page.errors == [] and page.console_errors == []


def test_a_turn_mail_opens_the_seat_on_a_phone_in_german(mail_server: tuple[str, Smtp], browser: Any) -> None:
    server, smtp = mail_server
    laptop = new_page(browser, timezone_id="Europe/Berlin")
    sign_up(laptop, server, "Bert")
    choose_lang(laptop, "de")
    sent: list[Any] = []
    laptop.on("request", lambda r: sent.append(r.post_data_json) if r.url.endswith("/api/account/email") and r.method == "POST" else None)
    add_address(laptop, "bert@example.org")
    assert [(b["lang"], b["tz"]) for b in sent] == [("de", "Europe/Berlin")]  # the times in its mails
    assert laptop.inner_text("#account-note").startswith("Ein Link zum Bestätigen")
    mail = smtp.inbox.wait("bert@example.org")[0]
    assert mail["Subject"] == "Kardinal & König: bestätige deine Mailadresse"  # the language of the page that set it
    laptop.goto(server + "/mail#confirm=" + link(mail, "confirm", PUBLIC))
    laptop.wait_for_selector("#mail-note.good")
    laptop.goto(server + "/account")
    laptop.wait_for_selector("#mail-want-turn")
    for box in ("#mail-want-turn", "#mail-want-end"):  # each saved before the game starts
        with laptop.expect_response(lambda r: r.url.endswith("/api/account/notify") and r.ok):
            laptop.check(box)
    laptop.evaluate(
        """async () => {
            const g = await (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
                body: JSON.stringify({mode: 'turn', players: [{name: 'Bert'}, {kind: 'bot', level: 'random'}, {kind: 'bot', level: 'random'}]})})).json();
            await fetch(`/api/games/${g.id}/join`, {method: 'POST', headers: {'content-type': 'application/json'},
                body: JSON.stringify({seat: 0, token: g.seats[0].token})});
        }"""
    )
    turn = smtp.inbox.wait("bert@example.org", 2)[-1]
    assert re.fullmatch(r"Kardinal & König: du bist dran in der Partie vom \d{1,2}\. [A-Z][a-zä]+, \d\d:\d\d", turn["Subject"]), turn[
        "Subject"
    ]
    assert "du bist dran in deinem Spiel gegen Bot 2 und Bot 3." in text_of(turn)
    gid, seat = link(turn, "open", PUBLIC).rsplit(".", 1)

    # the phone holds no seat and is signed out: sign in, then the seat opens
    mobile = phone(browser, "de-DE")
    mobile.goto(server + f"/mail#open={gid}.{seat}")
    mobile.wait_for_selector("#open-sign-in")
    assert mobile.inner_text("#mail-note").startswith("Melde dich an, um deinen Platz zu öffnen")
    shot(mobile, "mail-open-sign-in-phone-de")
    sign_in_back_to(mobile, "Bert", gid)
    held = mobile.evaluate(f"JSON.parse(localStorage.getItem('kardinal-seats:{gid}') || '{{}}')")
    assert list(held) == ["0"]  # the seat, through the session
    mobile.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=30000)
    shot(mobile, "mail-open-seat-phone-de")

    # the account page in German on the phone, and unsubscribing from the mail's link
    mobile.goto(server + "/account")
    mobile.wait_for_selector("#mail-want-turn")
    assert mobile.text_content("#mail-section h2") == "E-Mail"
    shot(mobile, "mail-account-phone-de", full_page=True)
    mobile.goto(server + "/mail#unsubscribe=" + link(turn, "unsubscribe", PUBLIC))
    mobile.wait_for_selector("#unsub-button")
    shot(mobile, "mail-unsubscribe-phone-de")
    mobile.click("#unsub-button")
    mobile.wait_for_selector("#mail-note.good")
    assert mobile.inner_text("#mail-note").startswith("Erledigt: keine Mails mehr über „du bist dran“")
    got = mobile.evaluate("async () => (await (await fetch('/api/account/email')).json()).notify")
    assert got == {"turn": False, "invitation": False, "end": True}
    assert mobile.errors == [] and laptop.errors == []


def wants_invitations(page: Any, server: str, smtp: Smtp, name: str, addr: str) -> None:
    """Sign up ``name`` on ``page``, with a confirmed address that wants invitations."""
    sign_up(page, server, name)
    add_address(page, addr)
    page.goto(server + "/mail#confirm=" + link(smtp.inbox.wait(addr)[0], "confirm", PUBLIC))
    page.wait_for_selector("#mail-note.good")
    page.goto(server + "/account")
    page.wait_for_selector("#mail-want-invitation")
    page.check("#mail-want-invitation")
    page.wait_for_function("document.getElementById('mail-want-invitation').checked")


def open_invitation(page: Any, server: str, smtp: Smtp, addr: str) -> tuple[str, str]:
    """Open the invitation mail's link on ``page``: (game, seat)."""
    mail = [m for m in smtp.inbox.wait(addr, 2) if "invit" in str(m["Subject"]).lower() or "einladung" in str(m["Subject"]).lower()][-1]
    gid, seat = link(mail, "open", PUBLIC).rsplit(".", 1)
    page.goto(server + f"/mail#open={gid}.{seat}")
    return gid, seat


def at_seat(page: Any, gid: str, seat: str) -> None:
    """``page`` shows the game from the seat (its token held, no refusal)."""
    page.wait_for_url(re.compile(rf".*/game/{gid}$"), timeout=15000)
    page.wait_for_function("document.body.dataset.status === 'running'", timeout=30000)
    held = page.evaluate(f"JSON.parse(localStorage.getItem('kardinal-seats:{gid}') || '{{}}')")
    assert list(held) == [seat]
    assert page.evaluate("document.body.dataset.auth") != "bad"


def test_an_invitation_mail_seats_the_invited_on_a_phone_in_german_and_a_desktop_in_english(
    mail_server: tuple[str, Smtp], browser: Any
) -> None:
    """Issue 43, item 1: the invitation mail's link takes the invited account to its seat
    in one tap, signed in (Ben, phone, German), or after signing in and on a second device
    (Finn, desktop, English); the seat is the invited account's, able to play."""
    server, smtp = mail_server
    ben, finn, finn_again, anna = phone(browser, "de-DE"), new_page(browser), new_page(browser), new_page(browser)
    wants_invitations(ben, server, smtp, "Ben", "ben@example.org")
    wants_invitations(finn, server, smtp, "Finn", "finn@example.org")
    sign_up(anna, server, "Alma")  # (Anna has an account on this module's server already)
    anna.evaluate(
        """async () => {
            const r = await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
                body: JSON.stringify({mode: 'turn', players: [{kind: 'person', account: 'Ben'}, {kind: 'person', account: 'Finn'},
                    {kind: 'bot', level: 'random'}]})});
            if (!r.ok) throw new Error(await r.text());
        }"""
    )
    # Finn on a device signed out: sign in, and the link brings him back to the seat
    gid, seat = open_invitation(finn_again, server, smtp, "finn@example.org")
    finn_again.wait_for_selector("#open-sign-in")
    sign_in_back_to(finn_again, "Finn", gid)
    assert seat == "1"
    # Ben, signed in on his phone: one tap, and the game starts with his turn
    gid_ben, seat_ben = open_invitation(ben, server, smtp, "ben@example.org")
    assert (gid_ben, seat_ben) == (gid, "0")
    at_seat(ben, gid, "0")
    ben.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=30000)
    shot(ben, "i43-seats-invitation-phone-de")
    at_seat(finn_again, gid, "1")
    # Finn's first device, signed in all along: the seat (his now) opens there too
    open_invitation(finn, server, smtp, "finn@example.org")
    at_seat(finn, gid, "1")
    shot(finn, "i43-seats-invitation-desktop-en")
    # Alma, who made the table, is refused the seats
    got = anna.evaluate(
        f"async () => (await fetch('/api/account/seat', {{method: 'POST', headers: {{'content-type': 'application/json'}}, body: JSON.stringify({{game: '{gid}', seat: 0}})}})).status"
    )
    assert got == 403
    for page in (ben, finn, finn_again, anna):
        assert page.errors == []


def test_a_plain_link_to_the_game_offers_the_invited_seat(mail_server: tuple[str, Smtp], browser: Any) -> None:
    """Issue 43, item 1's sibling: signed in and invited by name, one who opens the game by
    a plain link (not the invitation's) is offered the seat, and one tap takes it; one who
    is not invited is offered nothing."""
    server, _smtp = mail_server
    cleo, dora, emil = new_page(browser), phone(browser, "de-DE"), new_page(browser)
    sign_up(cleo, server, "Cleo")
    sign_up(dora, server, "Dora")
    sign_up(emil, server, "Emil")
    gid = cleo.evaluate(
        """async () => {
            const r = await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
                body: JSON.stringify({players: [{kind: 'person', name: 'Cleo'}, {kind: 'person', account: 'Dora'}, {kind: 'bot', level: 'random'}]})});
            if (!r.ok) throw new Error(await r.text());
            return (await r.json()).id;
        }"""
    )
    emil.goto(server + f"/game/{gid}")
    emil.wait_for_function("document.body.dataset.status === 'open'")
    dora.goto(server + f"/game/{gid}")
    dora.wait_for_selector("#take-invited")
    assert dora.inner_text("#msg").startswith("Cleo lädt dich zu diesem Spiel ein")
    shot(dora, "i43-invited-plain-link-phone-de")
    dora.click("#take-invited")
    dora.wait_for_function(f"Object.keys(JSON.parse(localStorage.getItem('kardinal-seats:{gid}') || '{{}}')).join() === '1'")
    dora.wait_for_function("document.body.dataset.auth !== 'bad' && document.body.dataset.status === 'open'")
    assert dora.locator("#take-invited").count() == 0
    assert emil.locator("#take-invited").count() == 0  # not invited: nothing offered
    for page in (cleo, dora, emil):
        assert page.errors == []


def test_ones_own_seat_link_opened_again_opens_the_seat(mail_server: tuple[str, Smtp], browser: Any) -> None:
    """Signed in, the first opening of a seat's link makes the seat the account's and gives
    it a new token (the link others saw opens it no more); the same link opened again by its
    owner opens the seat (the account's token, got anew), not a refusal and a spectator's view.
    (The table is made by someone signed out: a signed-in creator's own seat is the account's
    from the start, and its link stays.)"""
    server, _smtp = mail_server
    gus = new_page(browser)
    sign_up(gus, server, "Gus")
    g = gus.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', credentials: 'omit', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{kind: 'person', name: 'Gus'}, {kind: 'person', name: 'Ida'}, {kind: 'bot', level: 'random'}]})})).json()"""
    )
    gid, link_url = g["id"], server + g["seats"][0]["url"]
    gus.goto(link_url)
    gus.wait_for_function(f"(JSON.parse(localStorage.getItem('kardinal-seats:{gid}') || '{{}}')['0'] || '') !== '{g['seats'][0]['token']}'")
    gus.goto(link_url)  # the link of before, its token ended
    at_seat_open = f"Object.keys(JSON.parse(localStorage.getItem('kardinal-seats:{gid}') || '{{}}')).join() === '0' && document.body.dataset.auth !== 'bad'"
    gus.wait_for_url(re.compile(rf".*/game/{gid}$"))
    gus.wait_for_function(at_seat_open + " && document.body.dataset.status === 'open'")
    gus.wait_for_function("document.querySelector('#players') && document.querySelector('#players').innerText.includes('Gus')")
    assert gus.errors == []


def test_a_finished_games_plain_address_opens_the_accounts_seat_on_another_device(mail_server: tuple[str, Smtp], browser: Any) -> None:
    """The new-user walk (issue 43): a finished game opened by its plain address (My games'
    "Open") on another device signed in showed a spectator's view: no Play again, the chat
    closed. The account's seat opens there too."""
    from test_web_teach import play_first_legal

    server, _smtp = mail_server
    jo = new_page(browser)
    sign_up(jo, server, "Jo")
    g = jo.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{kind: 'person'}, {kind: 'bot', level: 'random'}, {kind: 'bot', level: 'random'}]})})).json()"""
    )
    play_first_legal(server, g)  # (on the first device, by its link)
    jo.evaluate("localStorage.clear(); sessionStorage.clear()")  # another device: no link of the game
    jo.goto(f"{server}/game/{g['id']}")
    jo.wait_for_function("document.querySelector('tr.me[data-seat=\"0\"]') !== null && document.body.dataset.status === 'finished'")
    jo.wait_for_selector("#final-again")
    assert "token" not in jo.url and jo.errors == []


def test_seat_names_in_the_readers_language_and_the_accounts_own(mail_server: tuple[str, Smtp], browser: Any) -> None:
    """Issue 43, items 12 and 7: the open seats of a table a German phone opened ("Find me
    a table") are "Spieler 2" there and "Player 2" to an English visitor (no words stored);
    signed in, Play now seats the player under the account's name, not "Player 1"."""
    server, _smtp = mail_server
    ben, finn = phone(browser, "de-DE"), new_page(browser)
    sign_up(ben, server, "Bena")
    ben.goto(server + "/")
    ben.click("#find-table")
    ben.wait_for_url(re.compile(r".*/game/\w+"), timeout=15000)
    ben.wait_for_function("document.body.dataset.status === 'open'")
    assert "Spieler 2, Spieler 3, Spieler 4" in ben.inner_text("body")
    shot(ben, "i43-seats-find-table-phone-de")
    gid = ben.url.split("/game/")[1].split("?")[0]
    sign_up(finn, server, "Finno")
    finn.goto(server + "/")
    finn.wait_for_selector(f"li[data-game='{gid}']")
    row = finn.inner_text(f"li[data-game='{gid}']")
    assert "Bena" in row and "Player 2" in row and "Spieler" not in row
    assert finn.get_attribute("#my-name", "placeholder") == "Finno"
    finn.click("#play-now")
    finn.wait_for_url(re.compile(r".*/game/\w+"), timeout=15000)
    finn.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=30000)
    players = finn.inner_text("#players")
    assert "Finno" in players and "Player 1" not in players
    shot(finn, "i43-seats-play-now-desktop-en")
    assert ben.errors == [] and finn.errors == [] and finn.console_errors == []


def test_without_mail_settings_the_page_says_email_is_off(server: str, browser: Any) -> None:
    for where, page in (("desktop-en", new_page(browser)), ("phone-de", phone(browser, "de-DE"))):
        name = f"Cleo{where[:5]}"
        sign_up(page, server, name)
        page.wait_for_selector("#mail-off")
        off = page.inner_text("#mail-off")
        assert (
            off.startswith("E-mail is off on this server") if where == "desktop-en" else off.startswith("E-Mail ist auf diesem Server aus")
        )
        assert page.query_selector("#mail-address") is None
        shot(page, f"mail-off-{where}", full_page=True)
        page.click("#sign-out")
        page.wait_for_selector("#forgot-open")
        page.click("#forgot-open")
        page.wait_for_selector("#forgot-off")
        assert page.query_selector("#forgot-who") is None
        shot(page, f"mail-off-forgot-{where}")
