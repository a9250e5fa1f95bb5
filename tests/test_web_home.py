"""The home page (issue 32, point 1): it says what the game is (a picture of the board, a
sentence, the players and the time a game takes) and offers three ways in: Play now (one
tap to a playable board against bots, in the page's language), Learn to play (the
tutorial) and Play with friends (the invitations with a copy button each, the phone's
share sheet where there is one, and "Open my seat"); then the open tables, My games and
the full table settings folded away. Bot levels are said in a player's words, their
record behind "Details". On a phone every control is at least 44 px; the German page has
no English word. Desktop and a 390x844 touch phone, English and German."""

from __future__ import annotations

import random
import re
import statistics
import time
from typing import Any

import pytest
from test_web_phone import SMALL_CONTROLS
from webtools import BOTS4, create_game, get, shot, take_turn, wait_turn

pytestmark = pytest.mark.browser

VIEWS: dict[str, dict[str, Any]] = {
    "desktop": {"viewport": {"width": 1400, "height": 950}},
    "phone": {"viewport": {"width": 390, "height": 844}, "has_touch": True, "is_mobile": True},
}
LOCALES = {"en": "en-GB", "de": "de-DE"}

# what each language must say (a few words of each part)
SAYS = {
    "en": {
        "what": "board game of medieval Europe",
        "facts": "3 to 5 players",
        "time": "10–15 minutes against bots, 30–45 minutes with people",
        "ways": ["Play now", "Learn to play", "Play with friends"],
        "medium": "Medium – thinks up to 0.4 s a move",
        "easy": "Easy – plays at once",
        "details": "Details",
        "record": "won 59.3% of 200 four-player games against three bots of the level “Greedy” (95% interval 54–65%; an even share is 25%)",
        "player": "Player 1",
        "copied": "Copied",
        "open": "Open my seat",
    },
    "de": {
        "what": "Brettspiel von Michael Schacht über das Europa des Mittelalters",
        "facts": "3 bis 5 Personen",
        "time": "10–15 Minuten gegen Bots, 30–45 Minuten mit Menschen",
        "ways": ["Sofort spielen", "Spielen lernen", "Mit Freunden spielen"],
        "medium": "Mittel – denkt bis zu 0,4 s pro Zug",
        "easy": "Leicht – spielt sofort",
        "details": "Genauer",
        "record": "gewann 59,3 % von 200 Partien zu viert gegen drei Bots der Stufe „Gierig“ (95-%-Intervall 54–65 %; ein gleicher Anteil wären 25 %)",
        "player": "Spieler 1",
        "copied": "Kopiert",
        "open": "Meinen Platz öffnen",
    },
}

# English words that have no place on a German page (words German shares, such as "Name",
# "Bot", "Tutorial", "Chat", "Person", "Info", are not among them)
ENGLISH = set(
    """the and with of to for your you my all at once players player minutes play now learn friend friends
    thinks plays won games game against level interval even share open tables table settings copy share
    seat seats create watch join details measured searches tree iterations move moves random easy greedy medium
    hard strong expert rules board variant variants none free turn based spectators hints allow leaves
    cancel how many who running finished expired under way ready keep secret starts everyone opened
    about points score""".split()
)

# every text of the page, hidden ones too (closed details, options, placeholders, names for
# assistive technology), word by word; a rule variant's name (in <code>) is an identifier, a
# link's address is no word
ALL_TEXT = """() => { const out = [document.title];
  const w = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
  while (w.nextNode()) { const n = w.currentNode; if (!n.parentElement.closest('code, script, style, .invite-link')) out.push(n.data); }
  for (const e of document.querySelectorAll('[placeholder], [title], [aria-label]'))
    out.push(e.getAttribute('placeholder') || '', e.getAttribute('title') || '', e.getAttribute('aria-label') || '');
  return out.join(' '); }"""


def home(browser: Any, server: str, view: str, lang: str, share: bool = False) -> Any:
    """The home page in a fresh browser (clipboard allowed); ``share``: a phone's share sheet
    (navigator.share, recorded in window.__shared)."""
    ctx = browser.new_context(**VIEWS[view], locale=LOCALES[lang], timezone_id="UTC")
    ctx.grant_permissions(["clipboard-read", "clipboard-write"], origin=server)
    page = ctx.new_page()
    page.errors = []
    page.console_errors = []
    page.on("pageerror", lambda e: page.errors.append(str(e)))
    page.on("console", lambda m: page.console_errors.append(m.text) if m.type == "error" else None)
    page.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    if share:
        page.add_init_script("window.__shared = []; navigator.share = (d) => { window.__shared.push(d); return Promise.resolve(); };")
    page.goto(server + "/")
    page.wait_for_selector("#bot-level-about")
    return page


def unfold_everything(page: Any) -> None:
    """Open what is folded: the full settings, the other games, a level's details."""
    for summary in ("#settings-summary", "#other-games-summary"):
        page.locator(summary).click()
    page.wait_for_selector("#kind-1")
    page.locator("#bot-level-about summary").click()
    page.locator("#level-about-1 summary").click()


def english_words(page: Any, server: str) -> set[str]:
    """The English words of the page, players' names left out (a name is what its player
    chose, "Player 1" of a game made in English among them)."""
    text = page.evaluate(ALL_TEXT)
    for name in sorted({p["name"] for g in get(server, "/api/games")["games"] for p in g["players"]}, key=len, reverse=True):
        text = text.replace(name, " ")
    words = {w.lower() for w in re.findall(r"[A-Za-zÄÖÜäöüß]+(?:-[A-Za-zÄÖÜäöüß]+)*", text)}
    return words & ENGLISH


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_the_home_page_says_what_the_game_is_and_offers_three_ways_in(server: str, browser: Any, view: str, lang: str) -> None:
    create_game(
        server, [{"name": "Host", "kind": "person"}, {"name": "Anyone", "kind": "person", "open": True}, {"kind": "bot", "level": "easy"}]
    )
    create_game(server, BOTS4[:3])  # a game under way (bots only)
    says = SAYS[lang]
    page = home(browser, server, view, lang)
    height = VIEWS[view]["viewport"]["height"]
    assert page.evaluate("document.documentElement.lang") == lang
    assert page.inner_text("h1") == "Kardinal & König"
    assert says["what"] in page.inner_text("#intro-what")
    facts = page.inner_text("#intro-facts")
    assert says["facts"] in facts and says["time"] in facts
    # the picture of the board: its countries, sites and pieces, one image with a caption
    page.wait_for_selector("#home-map [class*=cloister]", state="attached")
    board = get(server, "/api/board?id=standard")
    assert page.get_attribute("#home-map", "role") == "img" and page.inner_text("#home-map-caption")
    assert page.locator("#home-map .spot").count() + page.locator("#home-map .cloister").count() == len(board["sites"])
    assert page.locator("#home-map .shield").count() == len(board["countries"])
    # the three ways, large and on the first screen
    ways = [page.locator(f"#{w} .way-title").inner_text() for w in ("play-now", "learn", "play-friends")]
    assert ways == says["ways"]
    for w in ("play-now", "learn", "play-friends"):
        box = page.locator(f"#{w}").bounding_box()
        assert box and box["height"] >= 60 and box["y"] + box["height"] <= height, (w, box)
    assert page.get_attribute("#learn", "href") == "/tutorial"
    # the bots' level in words: Medium by default, how long each thinks, the record behind Details
    assert page.input_value("#bot-level") == "medium"
    options = page.eval_on_selector_all("#bot-level option", "os => os.map((o) => o.textContent)")
    assert says["medium"] in options and says["easy"] in options
    about = page.locator("#bot-level-about")
    assert "ISMCTS" not in about.inner_text()
    about.locator("summary").click()
    assert about.locator("summary").inner_text().endswith(says["details"])
    assert says["record"] in about.inner_text()
    # the open table, with its seat to take; My games empty (nothing played on this device)
    page.wait_for_selector("#games [data-list=open] [data-claim]")
    assert page.locator("#my-games").is_hidden()
    # the full settings are folded away until asked for
    assert page.locator("#kind-1").is_hidden()
    shot(page, f"home-{view}-{lang}")
    shot(page, f"home-{view}-{lang}-all", full_page=True)
    unfold_everything(page)
    if view == "phone":
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
        assert page.evaluate(SMALL_CONTROLS) == []
        shot(page, f"home-{view}-{lang}-unfolded", full_page=True)
    if lang == "de":
        assert english_words(page, server) == set()
        # (the board ids, such as "reconstruction-1", are names; the board's About text is said in German)
        page.locator("#about-btn").click()
        assert "Rekonstruktion des Spielplans" in page.inner_text("#about-text")
        page.locator("#about-close").click()
    else:  # the check finds English where there is some
        assert {"play", "now", "against"} <= english_words(page, server)
    assert page.errors == [] and page.console_errors == []
    page.context.close()


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_play_now_reaches_a_playable_board_in_one_tap(server: str, browser: Any, view: str, lang: str) -> None:
    touch = view == "phone"
    times = []
    for run in range(3):
        t0 = time.perf_counter()
        page = home(browser, server, view, lang)
        button = page.locator("#play-now")
        button.tap() if touch else button.click()
        page.wait_for_url("**/game/*")
        assert wait_turn(page)
        page.wait_for_selector("[data-zone=hand] .card.legal")
        times.append(time.perf_counter() - t0)
        gid = page.url.split("/game/")[1].split("?")[0]
        players = get(server, f"/api/games/{gid}")["players"]
        # an unnamed seat stores no words; the page says it in its language (issue 43, item 12)
        assert [p["name"] for p in players] == ["", "Bot 2", "Bot 3", "Bot 4"]
        assert SAYS[lang]["player"] in page.inner_text("#players")
        assert [p.get("level") for p in players[1:]] == ["medium"] * 3
        assert page.evaluate("document.documentElement.lang") == lang
        if run == 0:
            shot(page, f"home-play-now-{view}-{lang}")
            take_turn(page, random.Random(3), touch=touch)  # playable: a move is made by hand
            # back home, the game is among My games
            page.goto(server + "/")
            page.wait_for_selector(f"#my-games [data-game='{gid}']")
        assert page.errors == [] and page.console_errors == []
        page.context.close()
    print(
        f"\nPlay now ({view}, {lang}): from opening / to a playable board {', '.join(f'{t:.2f}' for t in times)} s; median {statistics.median(times):.2f} s"
    )


@pytest.mark.parametrize("lang", ["en", "de"])
@pytest.mark.parametrize("view", ["desktop", "phone"])
def test_play_with_friends_hands_out_the_invitations(server: str, browser: Any, view: str, lang: str) -> None:
    touch = view == "phone"
    says = SAYS[lang]
    page = home(browser, server, view, lang, share=touch)  # a phone has a share sheet

    def press(sel: str) -> None:
        page.locator(sel).tap() if touch else page.locator(sel).click()

    press("#play-friends")
    assert page.get_attribute("#play-friends", "aria-expanded") == "true"
    # one friend: a bot fills the third seat; three friends: no bot
    press("label[for=friends-1]")
    assert page.inner_text("#friends-table") in (
        "At the table: you, one friend and one bot.",
        "Am Tisch: du, eine weitere Person und ein Bot.",
    )
    press("label[for=friends-3]")
    assert page.locator("[id^=friend-name-]").count() == 3 and not re.search(r"Bot", page.inner_text("#friends-table"))
    press("label[for=friends-2]")
    page.fill("#my-name", "Ann")
    page.fill("#friend-name-0", "Ben")
    page.fill("#friend-name-1", "Cy")
    if touch:
        assert page.evaluate(SMALL_CONTROLS) == []
    shot(page, f"home-friends-{view}-{lang}")
    press("#friends-create")
    page.wait_for_selector("#open-my-seat")
    links = page.eval_on_selector_all("#created a[data-seat-link]", "as => as.map((a) => [a.dataset.seatLink, a.href, a.textContent])")
    assert [s for s, _, _ in links] == ["0", "1", "2"]
    assert all(href == text and "token=" in href for _, href, text in links)
    gid = links[0][1].split("/game/")[1].split("?")[0]
    info = get(server, f"/api/games/{gid}")
    assert [p["name"] for p in info["players"]] == ["Ann", "Ben", "Cy"]
    # live, with a clock: nobody who leaves the page open and walks away holds up the table
    assert (info["table"]["mode"], info["table"]["clock"]) == ("live", {"move": 45, "reserve": 300, "increment": 10})
    assert page.inner_text("#open-my-seat") == says["open"]
    assert page.locator("#created button.copy").count() == 4  # each seat and the spectators' link
    assert page.locator("#created button.share").count() == (4 if touch else 0)  # only where there is a share sheet
    # copy: the link is on the clipboard, and the button says so
    press("#copy-1")
    page.wait_for_function(f"document.getElementById('copy-1').textContent.includes({says['copied']!r})")
    assert page.evaluate("navigator.clipboard.readText()") == links[1][1]
    if touch:  # share: the phone's sheet gets the link of that seat
        press("#share-2")
        shared = page.evaluate("window.__shared")
        assert len(shared) == 1 and shared[0]["url"] == links[2][1] and "Cy" in shared[0]["text"]
    if touch:
        assert page.evaluate(SMALL_CONTROLS) == []
        assert page.evaluate("document.documentElement.scrollWidth") <= 390
    if lang == "de":
        assert english_words(page, server) == set()
    shot(page, f"home-invitations-{view}-{lang}")
    # my own seat; the table waits for the others, and My games keeps it
    press("#open-my-seat")
    page.wait_for_url(f"**/game/{gid}*")
    page.wait_for_function("document.body.dataset.status === 'open'")
    page.goto(server + "/")
    page.wait_for_selector(f"#my-games [data-game='{gid}']")
    assert page.errors == [] and page.console_errors == []
    page.context.close()
