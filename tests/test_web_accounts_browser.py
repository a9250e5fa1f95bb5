"""Accounts in the browser: sign up in one browser, play a seat, sign in on a second one
(a phone, in German) which then lists the same "My games" and opens the game at its seat;
the account page on a phone in both languages."""

from __future__ import annotations

from typing import Any

import pytest
from webtools import choose_lang, new_page, phone, shot

pytestmark = pytest.mark.browser

PW = "correct horse battery"


def link_says(page: Any, text: str) -> None:
    """The header's account link says ``text`` (it asks the server who is signed in)."""
    page.wait_for_function("(t) => document.getElementById('account-link').textContent === t", arg=text, timeout=10000)


def fill_and_send(page: Any, which: str, name: str, password: str) -> None:
    page.fill(f"#{which}-name", name)
    page.fill(f"#{which}-password", password)
    page.click(f"#{which}-button")


def play_one_move(page: Any, gid: str) -> None:
    """One decision of seat 0 from the page, with the token the page keeps (as the page sends it)."""
    page.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=30000)
    status = page.evaluate(
        """async (gid) => {
            const tok = JSON.parse(localStorage.getItem('kardinal-seats:' + gid))['0'];
            const st = await (await fetch(`/api/games/${gid}/state?seat=0&token=${tok}`)).json();
            const r = await fetch(`/api/games/${gid}/actions`, {method: 'POST', headers: {'content-type': 'application/json'},
                body: JSON.stringify({seat: 0, token: tok, version: st.version, action: st.legal[0]})});
            return r.status;
        }""",
        gid,
    )
    assert status == 200


def test_sign_up_play_and_see_the_same_games_on_a_phone(server: str, browser: Any) -> None:
    # the laptop: sign up, create a table (one person seat, signed in: the account's), play a move
    laptop = new_page(browser)
    laptop.goto(server + "/account")
    link_says(laptop, "Sign in")
    shot(laptop, "account-guest-desktop")
    fill_and_send(laptop, "signup", "Anna", PW)
    laptop.wait_for_selector("#signed-in-as")
    assert laptop.inner_text("#signed-in-as") == "Signed in as Anna"
    link_says(laptop, "Anna")
    shot(laptop, "account-signed-in-desktop")
    cookie = [c for c in laptop.context.cookies() if c["name"] == "kardinal_session"][0]
    assert cookie["httpOnly"] and cookie["sameSite"] == "Lax"
    assert laptop.evaluate("document.cookie") == ""  # no script reads the session
    laptop.goto(server + "/")
    made = laptop.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{name: 'Anna', kind: 'person'}, {kind: 'bot', level: 'random'}, {kind: 'bot', level: 'random'}]})})).json()"""
    )
    gid = made["id"]
    laptop.goto(server + made["seats"][0]["url"])
    play_one_move(laptop, gid)
    laptop.goto(server + "/mine")
    laptop.wait_for_selector(f'li[data-game="{gid}"]')

    # the phone, in German: sign in, My games lists the game, open it at the seat
    mobile = phone(browser, "de-DE")
    mobile.goto(server + "/account")
    mobile.wait_for_selector("#signin-form")
    link_says(mobile, "Anmelden")
    shot(mobile, "account-guest-phone-de")
    fill_and_send(mobile, "signin", "anna", "wrong password")
    mobile.wait_for_selector("#account-note")
    assert mobile.inner_text("#account-note") == "Falscher Name oder falsches Passwort."
    fill_and_send(mobile, "signin", "anna", PW)
    mobile.wait_for_selector("#signed-in-as")
    assert mobile.inner_text("#signed-in-as") == "Angemeldet als Anna"
    shot(mobile, "account-signed-in-phone-de", full_page=True)
    for sel in ("#sign-out", "#account-data", "#password-button", "#delete-button", "#current-password", "#account-link"):
        box = mobile.locator(sel).bounding_box()
        assert box is not None and box["height"] >= 44, (sel, box)
    mobile.goto(server + "/mine")
    row = mobile.locator(f'li[data-game="{gid}"]')
    row.wait_for()
    assert mobile.evaluate(f"localStorage.getItem('kardinal-seats:{gid}')") is None  # nothing of it on this device yet
    shot(mobile, "mine-account-phone-de")
    row.locator("a.btn").click()
    mobile.wait_for_url(f"**/game/{gid}")
    assert "token" not in mobile.url
    held = mobile.evaluate(f"JSON.parse(localStorage.getItem('kardinal-seats:{gid}'))")
    assert list(held) == ["0"]
    mobile.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=30000)
    play_one_move(mobile, gid)  # the phone plays the seat
    shot(mobile, "game-from-account-phone-de")
    assert not laptop.errors and not mobile.errors, (laptop.errors, mobile.errors)
    laptop.context.close()
    mobile.context.close()


def test_the_account_page_on_a_phone_in_english_and_a_guests_seats_come_along(server: str, browser: Any) -> None:
    page = phone(browser, "en-GB")
    page.goto(server + "/")
    made = page.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{name: 'Guest', kind: 'person'}, {kind: 'bot', level: 'random'}, {kind: 'bot', level: 'random'}]})})).json()"""
    )
    page.goto(server + made["seats"][0]["url"])  # a guest's seat, kept in this browser
    page.wait_for_function("document.body.dataset.myTurn === 'true' || document.body.dataset.myTurn === 'false'", timeout=30000)
    page.goto(server + "/account")
    page.wait_for_selector("#signup-form")
    for sel in ("#signin-name", "#signin-password", "#signin-button", "#signup-button", "#lang"):
        box = page.locator(sel).bounding_box()
        assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 390, (sel, box)
    shot(page, "account-guest-phone-en", full_page=True)
    fill_and_send(page, "signup", "Berta", "short")  # the browser itself asks for 8 characters
    assert page.evaluate("document.getElementById('signup-password').validity.tooShort")
    assert page.locator("#signed-in-as").count() == 0
    fill_and_send(page, "signup", "Berta", PW)
    page.wait_for_selector("#signed-in-as")
    assert page.inner_text("#account-note") == "1 seat of this browser now belongs to your account."
    mine = page.evaluate("async () => (await (await fetch('/api/account/games')).json()).games.map((g) => g.game.id)")
    assert mine == [made["id"]]
    # German by the page's switch, then sign out
    choose_lang(page, "de")
    page.wait_for_function("document.getElementById('signed-in-as').textContent === 'Angemeldet als Berta'")
    page.click("#sign-out")
    page.wait_for_selector("#signin-form")
    link_says(page, "Anmelden")
    # signing out, this browser forgot the account's seat (a shared computer keeps no way in)
    assert page.inner_text("#account-note").startswith("Abgemeldet. Dieser Browser behält die Plätze deines Kontos nicht mehr")
    assert page.evaluate(f"localStorage.getItem('kardinal-seats:{made['id']}')") is None
    # signing in again brings the game back in "My games" (through the session)
    fill_and_send(page, "signin", "Berta", PW)
    page.wait_for_selector("#signed-in-as")
    assert page.evaluate("async () => (await (await fetch('/api/account/games')).json()).games.map((g) => g.game.id)") == [made["id"]]
    box = page.locator("#sign-out-everywhere").bounding_box()
    assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 390, box
    page.click("#sign-out-everywhere")
    page.wait_for_selector("#signin-form")
    assert page.inner_text("#account-note") == "Auf allen Geräten abgemeldet."
    shot(page, "account-signed-out-everywhere-phone-de", full_page=True)
    assert not page.errors, page.errors
    page.context.close()


def test_answers_that_arrive_late_keep_what_is_typed_and_the_focus(server: str, browser: Any) -> None:
    """The account page draws itself again when its answers arrive (the follows, the mail
    settings); the lobby asks for its tables every 5 s. Neither may wipe a half-typed form
    or take the keyboard's focus away (found by CI: a late answer emptied a filled form)."""
    page = new_page(browser)
    page.goto(server + "/account")
    fill_and_send(page, "signup", "Lotte", PW)
    page.wait_for_selector("#signed-in-as")
    # the follows come back 1.5 s late, while the new password is half typed
    page.route("**/api/account/follows", lambda route: (page.wait_for_timeout(1500), route.continue_()))
    page.reload()
    page.wait_for_selector("#current-password")
    assert page.locator("#following-title").count() == 0
    page.fill("#current-password", PW)
    page.click("#new-password")
    page.keyboard.type("a new pass")
    page.wait_for_selector("#following-title")  # drawn again
    assert page.input_value("#current-password") == PW
    assert page.input_value("#new-password") == "a new pass"
    assert page.evaluate("document.activeElement.id") == "new-password"
    assert page.evaluate("document.activeElement.selectionStart") == len("a new pass")
    page.unroute("**/api/account/follows")
    # done: the form starts empty; refused: what was typed stays, the password too (mended, not typed again)
    page.keyboard.type("word!")
    page.click("#password-button")
    page.wait_for_selector("#account-note.good")
    assert page.input_value("#current-password") == "" and page.input_value("#new-password") == ""
    page.click("#sign-out")
    fill_and_send(page, "signin", "Lotte", "not the password")
    page.wait_for_selector("#account-note.bad")
    assert page.input_value("#signin-name") == "Lotte"
    assert page.input_value("#signin-password") == "not the password"

    # the lobby: an unchanged list is not drawn again; a changed one keeps the focused button
    def make_table() -> str:
        return str(
            page.evaluate(
                """async () => (await (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
                    body: JSON.stringify({players: [{name: 'Host', kind: 'person'}, {kind: 'person', open: true}, {kind: 'bot', level: 'random'}]})})).json()).id"""
            )
        )

    gid = make_table()
    page.goto(server + "/")
    button = page.locator(f'button[data-claim="{gid}:1"]')
    button.wait_for()
    page.evaluate(f"window.row = document.querySelector('li[data-game=\"{gid}\"]')")
    with page.expect_response("**/api/games"):  # the next look at the tables, 5 s on
        pass
    assert page.evaluate("window.row.isConnected")  # nothing changed: the same row
    button.focus()
    make_table()
    page.wait_for_function("document.querySelectorAll('#games li[data-game]').length === 2", timeout=10000)
    assert not page.evaluate("window.row.isConnected")  # drawn again ...
    assert page.evaluate("document.activeElement.dataset.claim") == f"{gid}:1"  # ... with the focus where it was
    assert not page.errors, page.errors
    page.context.close()


def test_a_link_opened_signed_in_gets_a_new_token_that_the_page_keeps(server: str, browser: Any) -> None:
    """The seat becomes the account's: the page keeps its new token (the WebSocket's welcome),
    plays with it after a reload too, and the link it came by opens the seat no more."""
    page = new_page(browser)
    page.goto(server + "/account")
    fill_and_send(page, "signup", "Carla", PW)
    page.wait_for_selector("#signed-in-as")
    made = page.evaluate(  # made by someone else (no cookie): its creator was shown the seat's link
        """async () => (await fetch('/api/games', {method: 'POST', credentials: 'omit', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{name: 'Carla', kind: 'person'}, {kind: 'bot', level: 'random'}, {kind: 'bot', level: 'random'}]})})).json()"""
    )
    gid, link = made["id"], made["seats"][0]["token"]
    other = new_page(browser)  # someone else with the link, a guest: the seat opens for them first
    other.goto(server + made["seats"][0]["url"])
    other.wait_for_function("document.body.dataset.myTurn !== undefined", timeout=30000)
    page.goto(server + made["seats"][0]["url"])
    page.wait_for_function(
        "(a) => { const s = JSON.parse(localStorage.getItem('kardinal-seats:' + a[0]) || '{}'); return s['0'] && s['0'] !== a[1]; }",
        arg=[gid, link],
        timeout=30000,
    )
    assert "token" not in page.url
    old = page.evaluate("async (a) => (await fetch(`/api/games/${a[0]}/state?seat=0&token=${a[1]}`)).status", [gid, link])
    assert old == 403
    # the guest's page was told: it forgets the token and watches
    other.wait_for_function("(g) => !localStorage.getItem('kardinal-seats:' + g)", arg=gid, timeout=30000)
    page.reload()
    play_one_move(page, gid)  # with the token the page keeps
    assert page.evaluate("document.body.dataset.auth") != "bad"
    assert not page.errors and not other.errors, (page.errors, other.errors)
    page.context.close()
    other.context.close()


def test_the_language_chosen_while_signed_in_is_the_accounts_on_another_device(server: str, browser: Any) -> None:
    """Issue 46: the header offers every catalog's language by its own name; one chosen on a
    page while signed in (desktop, English first) is the account's, and a phone that has
    chosen none (its browser English) opens in it once the account signs in there."""
    desk = new_page(browser)
    sent: list[Any] = []
    desk.on("request", lambda r: sent.append(r.post_data_json) if r.url.endswith("/api/account/lang") and r.method == "POST" else None)
    desk.goto(server + "/account")
    desk.wait_for_selector("#signup-form")
    assert desk.evaluate("document.documentElement.lang") == "en"
    options = desk.locator("#lang option")
    assert options.evaluate_all("(os) => os.map((o) => [o.value, o.textContent, o.lang])") == [
        ["en", "English", "en"],
        ["da", "Dansk", "da"],
        ["de", "Deutsch", "de"],
    ]
    assert desk.get_attribute("#lang", "aria-label") == "Language"
    choose_lang(desk, "de")  # a guest: the browser keeps it, no account to tell
    assert desk.get_attribute("#lang", "aria-label") == "Sprache"
    choose_lang(desk, "en")
    assert sent == []
    fill_and_send(desk, "signup", "Dora", PW)
    desk.wait_for_selector("#signed-in-as")
    with desk.expect_response(lambda r: r.url.endswith("/api/account/lang")) as answer:
        choose_lang(desk, "de")
    assert answer.value.status == 200 and sent == [{"lang": "de"}]
    assert desk.inner_text("#signed-in-as") == "Angemeldet als Dora"
    assert desk.errors == [] and desk.console_errors == []
    # another device, its browser in English and nothing chosen there: German once Dora signs in
    mobile = phone(browser, "en-GB")
    mobile.goto(server + "/account")
    mobile.wait_for_selector("#signin-form")
    assert mobile.evaluate("document.documentElement.lang") == "en"
    fill_and_send(mobile, "signin", "Dora", PW)
    mobile.wait_for_selector("#signed-in-as")
    mobile.goto(server + "/")
    mobile.wait_for_function("document.documentElement.lang === 'de'")
    assert mobile.input_value("#lang") == "de"
    box = mobile.locator("#lang").bounding_box()
    assert box is not None and box["height"] >= 44 and box["x"] + box["width"] <= 390, box
    shot(mobile, "i46-lang-account-phone-de")
    assert mobile.errors == []
    desk.context.close()
    mobile.context.close()
