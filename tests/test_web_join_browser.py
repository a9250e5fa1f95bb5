"""The lobby's Join and My games say what they ask and what was refused in the page, never
in a browser dialog (issue 43's walk: Join asked for a name with prompt(), My games said a
refusal with alert(); a dialog blocks the page, may be suppressed, and looks foreign on a
phone). A desktop in English and a phone in German."""

from __future__ import annotations

import re
from typing import Any

import pytest
from playwright.sync_api import expect
from test_web_axe import axe_scan, serious
from webtools import choose_lang, create_game, get, http_post, new_page, page_api, phone, shot, sign_up_on_page

pytestmark = pytest.mark.browser

TABLE = [
    {"name": "Host", "kind": "person"},
    {"kind": "person", "open": True},
    {"kind": "person", "open": True},
    {"kind": "bot", "level": "random"},
]


def no_dialogs(page: Any) -> list[str]:
    """Every browser dialog (alert, prompt, confirm) the page opens, recorded and dismissed."""
    seen: list[str] = []
    page.on("dialog", lambda d: (seen.append(f"{d.type}: {d.message}"), d.dismiss()))
    return seen


def test_join_asks_the_name_in_the_row_and_refusals_are_said_in_the_page(server: str, browser: Any) -> None:
    # a desktop in English, a guest: the name the home page keeps is offered in the row's form
    page = new_page(browser)
    dialogs = no_dialogs(page)
    gid = create_game(server, TABLE)["id"]
    page.goto(server + "/")
    page.fill("#my-name", "Carla")
    row = page.locator(f'#games li[data-game="{gid}"]')
    join1 = row.locator(f'button[data-claim="{gid}:1"]')
    join1.click()
    field = row.locator("#join-name")
    expect(field).to_be_focused()
    expect(field).to_have_value("Carla")
    expect(row.locator('label[for="join-name"]')).to_have_text("Your name")
    assert join1.get_attribute("aria-expanded") == "true"
    # Escape closes the form, the focus back on Join; so does Cancel
    page.keyboard.press("Escape")
    expect(row.locator("#join-form")).to_have_count(0)
    expect(join1).to_be_focused()
    assert join1.get_attribute("aria-expanded") == "false"
    join1.click()
    row.locator("#join-cancel").click()
    expect(row.locator("#join-form")).to_have_count(0)
    # seat 2 is taken by someone else while the form is open: the refusal is said in the
    # row, the form and what was typed stay (also through the lobby's look every 5 s)
    join1.click()
    field.fill("Carlotta")
    assert http_post(server + f"/api/games/{gid}/claim", json={"seat": 1, "name": "Dora"}).status_code == 200
    field.press("Enter")
    note = row.locator(".claim-refused")
    expect(note).to_have_text(re.compile("that seat is taken", re.I))
    assert note.get_attribute("role") == "alert"
    expect(field).to_have_value("Carlotta")
    expect(row).to_contain_text("Dora")  # the lobby's next look: the row drawn anew ...
    expect(field).to_have_value("Carlotta")  # ... the form kept
    expect(field).to_be_focused()  # ... and the focus in it
    shot(page, "join-refused-desktop-en")
    assert serious(axe_scan(page, "lobby-join-form")) == []
    # seat 3: joined through the form, under the name typed
    row.locator(f'button[data-claim="{gid}:2"]').click()
    expect(field).to_have_value("Carlotta")  # (the form moves to the seat with what was typed)
    expect(row.locator(".claim-refused")).to_have_count(0)
    field.press("Enter")
    page.wait_for_url(f"**/game/{gid}?seat=2&token=*")
    assert get(server, f"/api/games/{gid}")["players"][2]["name"] == "Carlotta"
    assert dialogs == [] and page.errors == []
    page.context.close()

    # a phone in German, a guest who kept no name: an empty field; Join
    mobile = phone(browser, locale="de-DE")
    dialogs = no_dialogs(mobile)
    gid = create_game(server, TABLE)["id"]
    mobile.goto(server + "/")
    choose_lang(mobile, "de")
    row = mobile.locator(f'#games li[data-game="{gid}"]')
    row.locator(f'button[data-claim="{gid}:1"]').click()
    field = row.locator("#join-name")
    expect(field).to_be_focused()
    expect(field).to_have_value("")
    expect(row.locator('label[for="join-name"]')).to_have_text("Dein Name")
    expect(row.locator("#join-cancel")).to_have_text("Abbrechen")
    assert mobile.evaluate("document.scrollingElement.scrollWidth") <= 390
    field.fill("Emil")
    row.scroll_into_view_if_needed()
    shot(mobile, "join-form-phone-de")
    row.locator("#join-send").click()
    mobile.wait_for_url(f"**/game/{gid}?seat=1&token=*")
    assert get(server, f"/api/games/{gid}")["players"][1]["name"] == "Emil"
    assert dialogs == [] and mobile.errors == []
    mobile.context.close()

    # My games, signed in (English): a seat's Open refused is said in its game's row; an
    # invitation withdrawn before its Take is said on the page
    anna, ben = new_page(browser), new_page(browser)
    dialogs = no_dialogs(ben)
    sign_up_on_page(anna, server, "Annalena")
    sign_up_on_page(ben, server, "Benedikt")
    invited = [{"kind": "person"}, {"kind": "person", "account": "Benedikt"}, {"kind": "bot", "level": "random"}]
    inv = page_api(anna, "POST", "/api/games", {"players": invited})["json"]["id"]
    own = page_api(
        ben, "POST", "/api/games", {"players": [{"kind": "person"}, {"kind": "person", "open": True}, {"kind": "bot", "level": "random"}]}
    )["json"]["id"]
    ben.goto(server + "/mine")
    take = ben.locator(f'button[data-take="{inv}:1"]')
    take.wait_for()
    # (the server's refusal of a seat's token, as it answers one: the account's seat lost meanwhile)
    refusal = '{"error": {"code": "not_your_seat", "message": "this seat does not belong to your account"}}'
    ben.route("**/api/account/seat", lambda route: route.fulfill(status=403, content_type="application/json", body=refusal))
    ben.locator(f'li[data-game="{own}"] a.btn').click()
    note = ben.locator(f'li[data-game="{own}"] .mine-refused')
    expect(note).to_have_text(re.compile("this seat does not belong to your account", re.I))
    assert note.get_attribute("role") == "alert"
    assert page_api(anna, "POST", "/api/account/invitations/withdraw", {"game": inv, "seat": 1})["status"] == 200
    take.click()
    said = ben.locator(".mine-refused")
    expect(said).to_have_text(re.compile("no invitation to this seat", re.I))
    expect(take).to_have_count(0)  # (gone from the list)
    shot(ben, "mine-refused-desktop-en")
    assert dialogs == [] and ben.errors == []
    anna.context.close()
    ben.context.close()
