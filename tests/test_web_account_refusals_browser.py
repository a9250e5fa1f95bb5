"""What a new player meets on the home and account pages of an upright phone in German
(issue 43): "Anmelden" and "Registrieren" side by side, the leaderboard and the
documentation within reach, and every refusal said as a sentence next to the form that
was refused (in view with its form, announced, the typed fields kept and marked), with its
true cause (the e-mail form too: a server with mail settings);
a suspended player told until when in their own time zone, why, and whom to ask."""

from __future__ import annotations

import re
from collections.abc import Iterator
from datetime import UTC, datetime
from typing import Any
from zoneinfo import ZoneInfo

import pytest
from test_web_mail import serve_with_mail
from typer.testing import CliRunner
from web_helpers import change_settings
from webtools import APPS, DATA_DIRS, shot

from kardinal.cli import app as cli

pytestmark = pytest.mark.browser

PW = "correct horse battery"
HEIGHT = 844


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live server with mail settings (the account page's e-mail form is there)."""
    for url, _ in serve_with_mail(tmp_path_factory, "http://kardinal.test"):
        yield url


def german_phone(browser: Any) -> Any:
    """An upright phone in German, in Berlin (its clock is not UTC)."""
    ctx = browser.new_context(
        viewport={"width": 390, "height": HEIGHT}, has_touch=True, is_mobile=True, locale="de-DE", timezone_id="Europe/Berlin"
    )
    page = ctx.new_page()
    page.errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("dialog", lambda d: d.accept())  # "Delete the account for good?"
    return page


def german_time(suspended: str) -> str:
    """When a suspension ends, from what ``kardinal admin suspend`` printed ("until
    2026-12-01 13:05 UTC"), as a German page in Berlin says it ("1. Dezember 2026 um 14:05 MEZ")."""
    until = datetime.strptime(re.search(r"until (\S+ \S+) UTC", suspended).group(1), "%Y-%m-%d %H:%M").replace(tzinfo=UTC)  # type: ignore[union-attr]
    berlin = until.astimezone(ZoneInfo("Europe/Berlin"))
    months = "Januar Februar März April Mai Juni Juli August September Oktober November Dezember".split()
    return f"{berlin.day}. {months[berlin.month - 1]} {berlin.year} um {berlin:%H:%M} {'MESZ' if berlin.dst() else 'MEZ'}"


def in_view(page: Any, selector: str) -> None:
    """The element is on the screen as it is now, without scrolling (its bounding box in the viewport)."""
    box = page.locator(selector).bounding_box()
    assert box is not None and box["y"] >= 0 and box["y"] + box["height"] <= HEIGHT and box["x"] + box["width"] <= 390, (selector, box)


def refused_next_to(page: Any, form: str, text: str, fields: list[str]) -> None:
    """A refusal is said in the form that was refused, in view, as an alert naming its fields."""
    note = page.locator(f"#{form}-form #account-note.bad")
    note.wait_for()
    assert note.inner_text() == text
    assert note.get_attribute("role") == "alert"
    in_view(page, f"#{form}-form #account-note")
    assert page.locator("#account-note").count() == 1  # said once, not also at the top
    for f in fields:
        assert page.get_attribute(f"#{f}", "aria-invalid") == "true", f
        assert page.get_attribute(f"#{f}", "aria-describedby") == "account-note", f


def test_a_new_player_on_a_german_phone_signs_up_and_is_refused_where_they_look(
    mail_server: str, browser: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    server = mail_server
    page = german_phone(browser)
    # the home page: "Anmelden" and "Registrieren", the leaderboard, the documentation in About
    page.goto(server + "/")
    page.wait_for_function("document.getElementById('account-link').textContent === 'Anmelden'")
    assert page.inner_text("#signup-link") == "Registrieren"
    for link in ("#account-link", "#signup-link", "#players-link"):
        in_view(page, link)
    assert page.inner_text("#players-link") == "Spieler"
    page.click("#about-btn")
    docs = page.locator("#about-docs")
    assert docs.inner_text() == "Hilfe und Dokumentation (auf Englisch)" and docs.get_attribute("href") == "/docs/"
    shot(page, "i43-home-about-phone-de")
    page.keyboard.press("Escape")
    # "Registrieren" leads straight to the sign-up form, its name field ready
    page.click("#signup-link")
    page.wait_for_url("**/account#signup")
    page.wait_for_function("document.activeElement && document.activeElement.id === 'signup-name'")
    in_view(page, "#signup-button")
    # the page speaks plain German to a player (no changelog, no English)
    assert "Du kannst auch ohne Konto spielen: dann erreichst du jedes Spiel über seinen Link." in page.inner_text("main")
    assert "wie bisher" not in page.inner_text("main")
    page.fill("#signup-name", "Berta")
    page.fill("#signup-password", PW)
    page.click("#signup-button")
    page.wait_for_selector("#signed-in-as")
    assert "Deine Spiele bleiben, ohne deinen Namen; ihre Links gelten weiter." in page.inner_text("#delete-form")
    assert "deleted player" not in page.inner_text("main")

    # a new mail address with a wrong password, the form scrolled up to the screen's top (a
    # phone's keyboard takes the lower half): the refusal comfortably in view, not pushed to
    # the top edge, the fields it answers still on the screen above it
    page.wait_for_selector("#mail-address")  # (the e-mail section comes with its own answer, after the page's)
    page.evaluate("document.getElementById('mail-address').scrollIntoView({block: 'start'})")
    page.fill("#mail-address", "berta@example.org")
    page.fill("#mail-password", "falsches Passwort")
    page.click("#mail-button")
    refused_next_to(page, "mail", "Das ist nicht das Passwort dieses Kontos.", ["mail-password"])
    note = page.locator("#mail-form #account-note").bounding_box()
    assert note is not None and note["y"] >= HEIGHT / 6, note  # not glued to the top edge
    in_view(page, "#mail-address")
    in_view(page, "#mail-password")
    shot(page, "i43-mail-refused-phone-de")

    # a wrong current password (15 characters): its own cause, next to the form, the fields kept
    page.locator("#current-password").scroll_into_view_if_needed()
    page.fill("#current-password", "falsches Passwo")
    page.fill("#new-password", "ein neues Passwort")
    page.click("#password-button")
    refused_next_to(page, "password", "Das ist nicht das Passwort dieses Kontos.", ["current-password"])
    assert page.input_value("#current-password") == "falsches Passwo" and page.input_value("#new-password") == "ein neues Passwort"
    shot(page, "i43-wrong-password-phone-de")
    page.fill("#current-password", PW)  # mended: no longer marked
    assert page.get_attribute("#current-password", "aria-invalid") is None
    # deleting the account with a wrong password: the same, at the delete form
    page.locator("#delete-password").scroll_into_view_if_needed()
    page.fill("#delete-password", "nicht meins")
    page.click("#delete-button")
    refused_next_to(page, "delete", "Das ist nicht das Passwort dieses Kontos.", ["delete-password"])
    assert page.input_value("#delete-password") == "nicht meins"
    assert page.locator("#password-form #account-note").count() == 0  # the note moved to where it answers

    # the friends' table inviting a name nobody has: a sentence, in an error's box, announced,
    # under the field it refuses, which is marked (and focused), until it is changed
    page.goto(server + "/")
    page.wait_for_function("document.getElementById('account-link').textContent === 'Berta'")
    assert page.locator("#signup-link").is_hidden()  # signed in: nothing to sign up for
    page.click("#play-friends")
    page.click("label[for=friends-2]")
    page.fill("#friend-account-0", "Berta-nicht")
    page.fill("#friend-account-1", "Niemand-da")
    page.click("#friends-create")
    bad = page.locator("#friends-panel p.field + p#friends-refused")
    bad.wait_for()
    assert bad.inner_text() == "Niemand heißt Berta-nicht."  # the first name refused (the names are looked up in order)
    refused = "friend-account-0"
    assert bad.get_attribute("role") == "alert"
    assert page.locator(f"#{refused} >> xpath=../following-sibling::p[1]").get_attribute("id") == "friends-refused"
    assert page.get_attribute(f"#{refused}", "aria-invalid") == "true"
    assert "friends-refused" in (page.get_attribute(f"#{refused}", "aria-describedby") or "")
    assert page.evaluate("document.activeElement.id") == refused
    assert page.evaluate("getComputedStyle(document.getElementById('friends-refused')).backgroundColor") == "rgb(253, 236, 234)"
    in_view(page, "#friends-refused")
    shot(page, "i43-friends-refused-phone-de")
    page.fill(f"#{refused}", "Anders")  # changed: no longer marked, the note gone
    assert page.get_attribute(f"#{refused}", "aria-invalid") is None and page.locator("#friends-refused").count() == 0
    # the English words of the same refusals begin as sentences, and say their own causes
    english = page.evaluate(
        """async () => {
            const { refusalText } = await import('/static/refusals.js');
            const { setLang } = await import('/static/i18n.js');
            await setLang('en');
            const out = [{code: 'wrong_password'}, {code: 'bad_password', params: {min: 8, max: 256}},
              {code: 'no_player', params: {name: 'Nobody-here'}}, {code: 'not_your_turn', params: {name: 'anna'}},
              {code: 'busy', params: {}}, {code: 'busy', params: {max: 4}}].map((e) => refusalText(e, null));
            await setLang('de');
            return out;
        }"""
    )
    assert english == [
        "This is not the account's password.",
        "A password has 8 to 256 characters.",
        "There is no player called Nobody-here.",
        "It is anna's turn.",
        "The server is busy checking passwords; try again in a moment.",  # passwords.py's busy
        "The server is reviewing other games; try again in a minute.",  # teach.py's (with max)
    ]

    # signed out, a wrong password: the same words for no such name and a wrong password
    page.goto(server + "/account")
    page.click("#sign-out")
    page.wait_for_selector("#signin-form")
    for name in ("Berta", "Niemand-da"):
        page.fill("#signin-name", name)
        page.fill("#signin-password", "falsches Passwort")
        page.evaluate("document.getElementById('account-note')?.remove()")  # the answer to this try, not the last one's
        page.click("#signin-button")
        refused_next_to(page, "signin", "Falscher Name oder falsches Passwort.", ["signin-name", "signin-password"])
        assert page.input_value("#signin-password") == "falsches Passwort"

    # suspended by the operator, with a reason and a contact: told in Berlin's time, in German
    change_settings(monkeypatch, APPS[server], contact="moderation@example.org")
    out = CliRunner().invoke(
        cli, ["admin", "suspend", "Berta", "--days", "3", "--reason", "Beleidigungen im Chat", "--data", str(DATA_DIRS[server])]
    )
    assert out.exit_code == 0, out.output
    when = german_time(out.output)
    page.fill("#signin-name", "Berta")
    page.fill("#signin-password", PW)
    page.click("#signin-button")
    page.wait_for_function("(document.querySelector('#signin-form #account-note') || {}).textContent?.startsWith('Dieses Konto')")
    refused_next_to(
        page,
        "signin",
        f"Dieses Konto ist bis {when} gesperrt. Bis dahin siehst du deinen Spielen nur zu, und ein Bot spielt für dich wie für "
        "jeden, der weg ist. Begründung: „Beleidigungen im Chat“. Fragen dazu an: moderation@example.org.",
        [],
    )
    shot(page, "i43-suspended-phone-de")
    assert not page.errors, page.errors
    page.context.close()
