"""Moderation in Chromium: a player reports a chat line and mutes its writer (on a desktop,
in English); the mute holds after a reload and is lifted from the account page; the
operator suspends the writer with ``kardinal admin`` acting on the report, and the writer
(on a phone, in German, in Berlin) is told at once on the game's page, which he goes on
watching as a spectator (a bot plays for him), and below the header of the next page they
load (the game, My games) that their account is suspended, until when, why and whom to ask
(before: silently signed out, a spectator of their game; then: his open page played on)."""

from __future__ import annotations

from typing import Any

import pytest
from playwright.sync_api import expect
from test_web_account_refusals_browser import german_phone, german_time, in_view
from typer.testing import CliRunner
from web_helpers import change_settings
from webtools import APPS, DATA_DIRS, choose_lang, new_page, shot

from kardinal.cli import app as cli

pytestmark = pytest.mark.browser

PW = "correct horse battery"


def sign_up(page: Any, server: str, name: str) -> None:
    page.goto(server + "/account")
    status = page.evaluate(
        """async ([name, pw]) => (await fetch('/api/account/signup', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({name, password: pw})})).status""",
        [name, PW],
    )
    assert status == 200


def lines(page: Any) -> list[str]:
    return [t.strip() for t in page.locator("#chatbox .chat-lines li").all_inner_texts()]


def say(page: Any, text: str) -> None:
    page.fill("#chat-text", text)
    page.press("#chat-text", "Enter")


def test_report_and_mute_a_line_then_the_operator_suspends_its_writer(server: str, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    anna = new_page(browser, 1280, 900)
    ben = german_phone(browser)
    sign_up(anna, server, "Anna")
    sign_up(ben, server, "Ben")
    g = anna.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{name: 'Anna', kind: 'person'}, {name: 'Ben', kind: 'person'}, {kind: 'bot', level: 'random'}]})})).json()"""
    )
    anna.goto(server + g["seats"][0]["url"])
    ben.goto(server + g["seats"][1]["url"])
    for p in (anna, ben):
        p.wait_for_selector("#chat-text")
        p.wait_for_selector("body[data-status=running]", state="attached")
    # the players are told who reads what they write (the walk: nothing said spectators do)
    assert anna.inner_text("#chat-public") == "Anyone watching this game reads the chat too."
    assert ben.inner_text("#chat-public") == "Wer diesem Spiel zuschaut, liest den Chat mit."
    say(ben, "you play like an idiot")
    anna.wait_for_function("(document.querySelector('#chatbox .chat-lines')?.textContent || '').includes('idiot')")
    assert "Ben: you play like an idiot" in lines(anna)  # the menu's ⋯ is not part of the line's text
    # Anna reports the line: the menu beside it, then why
    line = anna.locator("#chatbox .chat-say", has_text="idiot")
    assert line.locator(".chat-menu summary").get_attribute("aria-label") == "Options for the line of Ben"
    line.locator(".chat-menu summary").click()
    shot(anna, "moderation-menu")
    line.locator("[data-act=report]").click()
    anna.wait_for_selector("#report-dialog[open]")
    assert "Ben wrote: “you play like an idiot”" in anna.inner_text("#report-dialog")
    anna.click("#report-send")  # empty: the browser asks for a reason first
    assert anna.locator("#report-dialog[open]").count() == 1
    anna.fill("#report-reason", "insults")
    shot(anna, "moderation-report-dialog")
    anna.click("#report-send")
    anna.wait_for_selector("#report-dialog", state="detached")
    assert anna.inner_text("#chat-note").startswith("Thank you: the report is sent")
    # ... and mutes Ben: on every device of hers, also after a reload
    line.locator(".chat-menu summary").click()
    line.locator("[data-act=mute]").click()
    anna.wait_for_function("document.querySelector('#chatbox .chat-muted') !== null")
    assert "A line of Ben (muted)." in lines(anna) and "Ben is muted on all your devices." in anna.inner_text("#chat-note")
    say(ben, "and another one")
    anna.wait_for_function("document.querySelectorAll('#chatbox .chat-muted').length === 2")
    assert not any("another one" in x for x in lines(anna))
    shot(anna, "moderation-muted")
    anna.reload()
    anna.wait_for_function("document.querySelectorAll('#chatbox .chat-muted').length === 2")
    # Ben's phone: the menu beside Anna's line is a finger's size
    say(anna, "please stop")
    ben.wait_for_function("(document.querySelector('#chatbox .chat-lines')?.textContent || '').includes('please stop')")
    box = ben.locator("#chatbox .chat-say", has_text="please stop").locator(".chat-menu summary").bounding_box()
    assert box is not None and box["width"] >= 44 and box["height"] >= 44, box
    # the operator reads the report and suspends Ben, acting on it
    run = CliRunner()
    data = ["--data", str(DATA_DIRS[server])]
    out = run.invoke(cli, ["admin", "reports", *data])
    assert out.exit_code == 0 and "you play like an idiot" in out.output and "insults" in out.output, out.output
    rid = out.output.split("#", 1)[1].split()[0]
    change_settings(monkeypatch, APPS[server], contact="moderation@example.org")
    why = "Beleidigungen im Chat gegen eine Mitspielerin"
    out = run.invoke(cli, ["admin", "suspend", "Ben", "--days", "3", "--report", rid, "--actor", "ops", "--reason", why, *data])
    assert out.exit_code == 0 and "Ben is suspended until" in out.output
    told = (
        f"Dieses Konto ist bis {german_time(out.output)} gesperrt. Bis dahin siehst du deinen Spielen nur zu, und ein Bot spielt "
        f"für dich wie für jeden, der weg ist. Begründung: „{why}“. Fragen dazu an: moderation@example.org."
    )
    # Ben's open page is told at once (the server's next look for the operator's work, every
    # 5 s), where he looks, and goes on as a spectator's: his seat opens by no way until then
    expect(ben.locator("#msg.bad")).to_have_text(told, timeout=60_000)
    expect(ben.locator("body")).to_have_attribute("data-auth", "suspended")
    in_view(ben, "#msg")
    shot(ben, "moderation-suspended-phone-de")
    # Ben loads his game again (his page kept the seat's link), then My games: below the
    # header, why his account shows nothing; in the game, under the board, that he watches
    for path in (f"/game/{g['id']}", "/mine"):
        ben.goto(server + path)
        notice = ben.locator("body > header + #session-refused")
        expect(notice.locator("p")).to_have_text(told)
        assert notice.get_attribute("role") == "alert"
        in_view(ben, "#session-refused button")
        if path.startswith("/game"):
            # (said once in full: under the board, in short)
            expect(ben.locator("#msg.bad")).to_have_text("Du schaust diesem Spiel zu: dein Konto ist gesperrt (siehe oben).")
            expect(ben.locator("body")).to_have_attribute("data-auth", "suspended")
            assert ben.evaluate("Object.keys(localStorage).some((k) => k.startsWith('kardinal-seats:'))")  # kept for later
        shot(ben, f"i43-suspended-notice-{path.split('/')[1]}-phone-de")
    # in English too (the time in Berlin's zone still)
    choose_lang(ben, "en")
    expect(notice.locator("p")).to_contain_text("This account is suspended until ")
    expect(notice.locator("p")).to_contain_text("The reason given: “Beleidigungen")
    expect(notice.locator("button")).to_have_text("Sign out in this browser")
    choose_lang(ben, "de")
    # on a shared phone: signed out there, the notice goes, also from the next page
    notice.locator("button", has_text="In diesem Browser abmelden").click()
    expect(notice).to_have_count(0)
    ben.reload()
    expect(ben.locator("#account-link")).to_have_text("Anmelden")
    assert ben.locator("#session-refused").count() == 0
    assert "0 open reports" in run.invoke(cli, ["admin", "reports", *data]).output
    # Anna lifts the mute on her account page
    anna.goto(server + "/account")
    anna.wait_for_selector("#moderation [data-name=Ben]")
    shot(anna, "moderation-account", full_page=True)
    anna.click("#moderation [data-name=Ben]")
    anna.wait_for_function("document.querySelector('#moderation [data-name=Ben]') === null")
    anna.goto(server + f"/game/{g['id']}")
    anna.wait_for_function("(document.querySelector('#chatbox .chat-lines')?.textContent || '').includes('another one')")
    assert anna.locator("#chatbox .chat-muted").count() == 0
    assert not anna.errors and not ben.errors, (anna.errors, ben.errors)
    anna.context.close()
    ben.context.close()


def test_the_line_menu_offers_every_action_that_applies_muted_blocked_both_followed(server: str, browser: Any) -> None:
    """Muting and blocking are two lists: a muted player can still be blocked, a blocked one
    unblocked (and muted), one on both lists both undone; a followed one is offered them all.
    (Before: once muted, the menu offered "Unmute" and "Report" only.)"""
    cora = new_page(browser, 1280, 900)
    dirk = new_page(browser, 1280, 900)
    sign_up(cora, server, "Cora")
    sign_up(dirk, server, "Dirk")
    followed = cora.evaluate(
        """async () => (await fetch('/api/account/follow', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({name: 'Dirk', follow: true})})).status"""
    )
    assert followed == 200
    g = cora.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{name: 'Cora', kind: 'person'}, {name: 'Dirk', kind: 'person'}, {kind: 'bot', level: 'random'}]})})).json()"""
    )
    cora.goto(server + g["seats"][0]["url"])
    dirk.goto(server + g["seats"][1]["url"])
    for p in (cora, dirk):
        p.wait_for_selector("#chat-text")
    say(dirk, "hello there")
    cora.wait_for_function("(document.querySelector('#chatbox .chat-lines')?.textContent || '').includes('hello there')")
    line = cora.locator("#chatbox .chat-say[data-seat='1']").first

    def offered() -> list[str]:
        line.locator(".chat-menu summary").click()
        acts: list[str] = line.locator("[data-act]").evaluate_all("els => els.map(e => e.dataset.act)")
        line.locator(".chat-menu summary").click()
        return acts

    def choose(act: str, said: str) -> None:
        line.locator(".chat-menu summary").click()
        line.locator(f"[data-act={act}]").click()
        expect(cora.locator("#chat-note")).to_have_text(said)

    assert offered() == ["mute", "block", "report"]  # followed: everything
    choose("mute", "Dirk is muted on all your devices.")
    assert offered() == ["unmute", "block", "report"]
    choose("block", "Dirk is blocked.")
    expect(line).to_contain_text("A line of Dirk (blocked).")
    assert offered() == ["unmute", "unblock", "report"]
    shot(cora, "moderation-menu-muted-and-blocked")
    choose("unmute", "Dirk is no longer muted.")
    assert offered() == ["mute", "unblock", "report"]
    cora.reload()  # what the server keeps
    cora.wait_for_selector("#chatbox .chat-say[data-seat='1'] .chat-menu")
    expect(line).to_contain_text("A line of Dirk (blocked).")
    assert offered() == ["mute", "unblock", "report"]
    choose("unblock", "Dirk is no longer blocked.")
    expect(line).to_contain_text("hello there")
    assert offered() == ["mute", "block", "report"]
    lists = cora.evaluate("async () => (await fetch('/api/moderation')).json()")
    assert lists == {"muted": [], "blocked": []}
    assert not cora.errors and not dirk.errors, (cora.errors, dirk.errors)
    cora.context.close()
    dirk.context.close()


def test_a_suspension_lifted_gives_the_open_page_its_seat_again(server: str, browser: Any, monkeypatch: pytest.MonkeyPatch) -> None:
    """The operator lifts Carl's suspension while Carl's page watches his game: the page
    tries his kept seat again (when the page is shown again, every minute, and when the
    suspension ends) and plays it, with no reload; what was said of the suspension goes,
    below the header too. (Before, the page watched until it was loaded again.)"""
    carl = german_phone(browser)
    errors: list[str] = []
    carl.on("pageerror", lambda e: errors.append(str(e)))
    sign_up(carl, server, "Carl")
    g = carl.evaluate(
        """async () => (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{name: 'Carl', kind: 'person'}, {kind: 'bot', level: 'random'}, {kind: 'bot', level: 'random'}], mode: 'turn'})})).json()"""
    )
    carl.goto(server + g["seats"][0]["url"])
    carl.wait_for_selector("body[data-status=running]", state="attached")
    expect(carl.locator("[data-zone=hand] .card").first).to_be_visible()
    run = CliRunner()
    data = ["--data", str(DATA_DIRS[server])]
    change_settings(monkeypatch, APPS[server], contact="moderation@example.org")
    out = run.invoke(cli, ["admin", "suspend", "Carl", "--days", "2", "--actor", "ops", "--reason", "Test", *data])
    assert out.exit_code == 0, out.output
    # told at the server's next look for the operator's work (every 5 s): he watches
    expect(carl.locator("body")).to_have_attribute("data-auth", "suspended", timeout=60_000)
    expect(carl.locator("#msg.bad")).to_contain_text("gesperrt")
    expect(carl.locator("[data-zone=hand] .card")).to_have_count(0)
    out = run.invoke(cli, ["admin", "unsuspend", "Carl", *data])
    assert out.exit_code == 0, out.output
    # lifted at the server's next look; the page tries again when shown again (here: told so)
    carl.wait_for_function(
        "() => { document.dispatchEvent(new Event('visibilitychange')); return document.body.dataset.auth === undefined; }",
        polling=500,
        timeout=60_000,
    )
    expect(carl.locator("[data-zone=hand] .card").first).to_be_visible()
    expect(carl.locator("#msg")).not_to_contain_text("gesperrt")
    expect(carl.locator("#session-refused")).to_have_count(0)
    shot(carl, "moderation-lifted-phone-de")
    assert errors == []
    carl.context.close()
