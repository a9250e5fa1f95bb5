"""Every word in the page's language, for every language there is a catalog of (the
German of old, and each one added: kardinal/locale/<lang>.po): a walk through every page of
the browser client in that language (the
lobby, a game through a few turns with a hint and a refused click, the rules dialog and
page, my games, a finished game's final scoring, review and replay with the intermediate
scoring, the tutorial to its end; the account, players and profile pages; with mail on, the
account's mail settings and the mail links' page; a chat line's menu, the report dialog and
a muted line) that fails on an English word or an English number shown. (That every
language has every message is the catalogs' own check: test_catalogs.py.)

The visible text of each page is ``document.body.innerText`` with the words a page gives
to assistive technology and tooltips (``title``, ``aria-label``, ``placeholder``, ``alt``,
and the titles of the map's drawings). Proper nouns (the players' names here; countries,
sites and cards are German names in German) are taken out before the check."""

from __future__ import annotations

import random
import re
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from web_helpers import change_settings
from webtools import APPS, BOTS4, create_game, new_page, shot, sign_up_on_page, take_turn, wait_turn

from kardinal.server.common import catalog

STATIC = Path(__file__).resolve().parent.parent / "kardinal" / "clients" / "web" / "static"

# the languages the walks are made in: every catalog's but the English (a language with no
# catalog yet has no walk)
LANGS = [lang for lang in catalog.langs() if lang != "en"]

# English words that are not also German words (no "Hand", "Bot", "Bots", "Person", "Start",
# "Link", "Name", "Tutorial", "Chat", "Details", "Download", "total", "still", "See", "was",
# "an", "will", "die", "war", "so", "also", "in", "man", "rat", "bin", "hat").
ENGLISH = set(
    """
    the a and or but of to from by on at for with without into onto about after before
    is are were be been being has have had do does did not no yes can cannot could would should may must
    you your yours we our they their them he she his her it its this that these those there here now then
    what who whom which when where why how one two three four five first last next previous
    card cards point points turn turns play plays played playing pass passes passed draw draws drew drawn
    display advisor advisors cloister cloisters click clicks tap taps step steps game games score scores scored
    scoring won win wins lost lose against hint hints review better best worse move moves left right
    pile piles board rules rule seat seats level levels take takes took taken place places placed country countries
    site sites totals winner winners final intermediate close closed open new end ends ended expected
    margin mistake mistakes player players watch watching join joined replay record spectator spectators
    well done loading refused alliance alliances chain chains discard exchange exchanges exchanged show shows
    back forward settings share copy friends learn minutes seconds waiting wait coat arms
    refill hand's fill selection clear choose chosen pieces piece supply already yet only every each
    people reviewing given away cost costs chance chances decision decisions own
    gives shown more most less least than time times read reads
    random easy greedy medium hard expert
    """.split()
)

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

# what else than English a page in the language must not show, and the words its rulebook
# does not use: (foreign words, wrong words, quotations left out, names the pages show);
# a language not here is checked for English (Words' defaults)
CHECKED: dict[str, tuple[set[str], re.Pattern[str], bool, list[str]]] = {
    "da": (NOT_DANISH, NOT_THE_DANISH_RULEBOOK, True, NAMES_ON_THE_RULES),
}


# the browser's locale of a phone in the language (its language found by the browser's, not chosen)
LOCALES = {"de": "de-DE", "da": "da-DK"}

# of the words above, those that are also words of a language (its pages may show them)
ALSO_ITS_OWN: dict[str, set[str]] = {"de": set()}

# (German) words the rulebook does not use for its pieces (it says Rat / Räte, Stein / Steine) and the
# wrong preposition for a cloister in a city ("Kloster in Würzburg", as the rulebook writes)
NOT_THE_RULEBOOK = re.compile(r"\bBerater\w*|\bFigur(?:en)?\b|\bKloster auf [A-ZÄÖÜ]\w*")

# a decimal written the English way: "−6.7", "0.4" (not a rule number "R4.3" nor a date "26.11.2026";
# German thousands "1.087" have three digits after the point)
ENGLISH_DECIMAL = re.compile(r"(?<![\w.])[−-]?\d+\.\d{1,2}(?![\d.])")
WORD = re.compile(r"[^\W\d_]+(?:['’-][^\W\d_]+)*")
# a file's or a page's name ("docs/rules.md", "/rules?lang=de") is no word of the text
FILE_NAME = re.compile(r"\S*(?:\.(?:md|js|py|toml|json|html)\b|https?://)\S*|(?<!\S)/\S+")
# proper nouns the rules' sources name: an author, the English edition's title, its publisher
SOURCE_NAMES = ["Roland Winner", "Web of Power", "Rio Grande Games"]

# everything a person reads or hears on the page, with where it comes from; what is marked
# as another language (lang="en" on a German page: a glossary's English column) is left out
VISIBLE = """
(lang) => {
  const other = [...document.body.querySelectorAll("[lang]")].filter((e) => !e.lang.startsWith(lang));
  const foreign = (e) => other.some((o) => o.contains(e));
  let text = document.body.innerText;
  for (const o of other) if (o.innerText) text = text.split(o.innerText).join(" ");
  const out = [["text", text], ["title", document.title]];
  for (const a of ["title", "aria-label", "placeholder", "alt", "aria-valuetext"]) {
    for (const e of document.querySelectorAll(`[${a}]`)) if (!foreign(e)) out.push([a, e.getAttribute(a)]);
  }
  for (const t of document.querySelectorAll("svg title")) if (!foreign(t)) out.push(["svg title", t.textContent]);
  return out;
}
"""


class Words:
    """Collects what is of another language on each page visited: (page, where, word, its
    line). By default the English on a page in ``lang`` (less the words it shares:
    ALSO_ITS_OWN); ``foreign`` (the words of other languages, lower case) and ``wrong``
    (words the page's language should not use) for a language with a walk of its own
    (test_web_danish.py)."""

    def __init__(
        self,
        names: list[str],
        lang: str = "de",
        foreign: set[str] | None = None,
        wrong: re.Pattern[str] | None = None,
        quoted: bool = False,
    ) -> None:
        self.names = names
        self.lang = lang
        self.foreign = ENGLISH - ALSO_ITS_OWN.get(lang, set()) if foreign is None else foreign
        self.wrong = (NOT_THE_RULEBOOK if lang == "de" else None) if wrong is None else wrong
        # a decimal written the English way is wrong where the language writes a comma
        self.decimal = ENGLISH_DECIMAL if catalog.number(lang, 2.5, 1) == "2,5" else None
        # where the language writes a time of day with a point ("14.30": Danish), hh.mm is a time, not a decimal
        if self.decimal and catalog.text(lang, "mail.clock", hh="14", mm="30") == "14.30":
            self.decimal = re.compile(r"(?<![\w.])[−-]?(?!\d\d\.\d\d(?![\d.]))\d+\.\d{1,2}(?![\d.])")
        self.quoted = quoted  # leave out quotations in „…“ (the rules quote the German sources in their words)
        self.found: list[tuple[str, str, str, str]] = []
        self.pages = 0

    def check(self, page: Any, where: str) -> None:
        page.evaluate("() => { for (const d of document.querySelectorAll('details')) d.open = true; }")
        assert page.evaluate("document.documentElement.lang") == self.lang, where
        self.pages += 1
        for kind, text in page.evaluate(VISIBLE, self.lang):
            for line in (text or "").splitlines():
                clean = FILE_NAME.sub(" ", line)
                if self.quoted:
                    clean = re.sub(r"„[^“]*“", " ", clean)
                for n in [*self.names, *SOURCE_NAMES]:
                    clean = clean.replace(n, " ")
                for w in WORD.findall(clean):
                    if w.lower() in self.foreign:
                        self.found.append((where, kind, w, line.strip()[:120]))
                for pattern in (self.wrong, self.decimal):
                    for d in pattern.findall(clean) if pattern else []:
                        self.found.append((where, kind, d, line.strip()[:120]))

    def report(self) -> str:
        seen: set[tuple[str, str, str]] = set()
        lines = []
        for where, kind, w, line in self.found:
            if (kind, w, line) in seen:
                continue
            seen.add((kind, w, line))
            lines.append(f"{where} [{kind}] {w!r}: {line}")
        return f"{len(lines)} words or numbers of another language on pages in {self.lang}:\n" + "\n".join(lines)


def who(name: str, lang: str) -> str:
    """A person's name in the walk of ``lang``: each language's walk signs up its own
    accounts on the module's one server ("Greta", "GretaDA")."""
    return name if lang == "de" else f"{name}{lang.upper()}"


def words_for(names: list[str], lang: str) -> Words:
    """The check of a walk's pages in ``lang`` (its own foreign words where CHECKED has them)."""
    if lang not in CHECKED:
        return Words(names, lang)
    foreign, wrong, quoted, shown = CHECKED[lang]
    return Words([*names, *shown], lang=lang, foreign=foreign, wrong=wrong, quoted=quoted)


def german_page(browser: Any, width: int = 1400, height: int = 950, lang: str = "de") -> Any:
    """A page in ``lang`` (chosen before: remembered in the browser)."""
    page = new_page(browser, width, height)
    page.context.add_init_script(f"localStorage.setItem('kardinal-lang', '{lang}'); localStorage.setItem('kardinal-follow-speed', 'off')")
    return page


def catalog_text(lang: str, key: str, **values: object) -> str:
    """A message of the language's catalog, as the page says it."""
    return catalog.text(lang, key, **values)


def fixed_part(lang: str, key: str) -> str:
    """The longest part of a message between its placeholders (what a page shows of it whatever fills them)."""
    return max(re.split(r"\{\w+\}", catalog_text(lang, key)), key=len).strip()


@pytest.fixture(autouse=True)
def small_budgets(server: str, monkeypatch: pytest.MonkeyPatch) -> Iterator[None]:
    # the server runs in this process: its settings are changed for each test
    change_settings(monkeypatch, APPS[server], hint_seconds=1.0, review_iterations=30)
    yield


# ---------------------------------------------------------------- the tutorial


def test_a_lesson_done_is_praised_once() -> None:
    """The page says "Well done!" before a lesson's closing words: they do not say it again."""
    import tomllib

    steps = tomllib.loads((STATIC / "tutorial.toml").read_text(encoding="utf-8"))["step"]
    assert len(steps) >= 7
    for s in steps:
        assert not s["done"]["en"].lower().startswith("well done"), s["id"]
        assert not s["done"]["de"].lower().startswith("gut gemacht"), s["id"]
        assert not s["done"]["da"].lower().startswith("godt klaret"), s["id"]


# ---------------------------------------------------------------- the walk


def walk_overlay(page: Any, words: Words, where: str, limit: int = 60) -> int:
    """Check every step of the open scoring walk-through; return how many."""
    steps = 0
    for _ in range(limit):
        page.wait_for_selector("#scoring-overlay")
        words.check(page, f"{where} {page.get_attribute('#scoring-overlay', 'data-step')}")
        steps += 1
        if not page.locator("#sc-next").count():
            break
        page.click("#sc-next")
    return steps


@pytest.mark.parametrize("lang", LANGS)
def test_every_page_in_german(server: str, browser: Any, lang: str) -> None:
    from test_web_tutorial import SOLUTIONS, choose, refill_from_display

    me = "Annegret"
    bots = [f"Bot {i}" for i in (1, 2, 3, 4)]
    words = words_for([me, *bots], lang)
    shot_name = "german" if lang == "de" else f"lang-{lang}"

    # the home page, every fold open
    page = german_page(browser, lang=lang)
    page.goto(server + "/")
    page.locator("#settings-summary").click()
    page.wait_for_selector("#kind-1")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    page.wait_for_load_state("networkidle")
    words.check(page, "home")
    shot(page, f"{shot_name}-home", full_page=True)

    # a game against bots: a few turns, a hint, an advisor refused, the rules dialog
    players = [{"name": me, "kind": "person"}] + [{"name": n, "kind": "bot", "level": "random"} for n in bots[:3]]
    g = create_game(server, players, hints=True)
    page.goto(server + g["seats"][0]["url"])
    assert wait_turn(page)
    words.check(page, "game")
    page.click("#hint-btn")
    page.wait_for_selector("#hint-list li", timeout=30000)
    words.check(page, "game: a hint")
    shot(page, f"{shot_name}-hint")
    # a card, then the coat of arms of a country with no cloister: refused with the reason
    empty = page.evaluate("[...document.querySelectorAll('#map .coat')].map((c) => c.dataset.coat)")
    assert empty
    page.locator("[data-zone=hand] .card.legal").first.click()
    for cid in empty:
        if not page.locator(f"#map .coat[data-coat='{cid}'].legal").count():
            page.locator(f"#map .coat[data-coat='{cid}'] .shield").click(force=True)
            if page.locator("#msg.bad").count():
                break
    # at the first turn no country has a cloister: the refusal says so, not only the limit
    assert fixed_part(lang, "noCoatEmpty") in page.inner_text("#msg"), page.inner_text("#msg")
    words.check(page, "game: an advisor refused")
    shot(page, f"{shot_name}-refused-coat")
    page.wait_for_selector("#hint-list li")  # a redraw (the hint, the map) leaves it standing
    assert fixed_part(lang, "noCoatEmpty") in page.inner_text("#msg")
    page.click("#msg .msg-close")  # until it is closed
    assert page.inner_text("#msg") == ""
    page.click("#clear")
    # the rules a game is played by: a link to the rules' variants, not a dead button
    assert page.inner_text("#rules-info") == catalog_text(lang, "rulesAsWritten")
    page.click("#rules-info")
    page.wait_for_selector("#rules-dialog[open][data-rule='R14']")
    page.keyboard.press("Escape")
    rng = random.Random(32)
    for k in range(4):
        take_turn(page, rng)
        if not wait_turn(page):
            break
        words.check(page, f"game: turn {k + 2}")
    page.click("#rules-link")
    page.wait_for_selector("#rules-dialog[open] .rules-text h2")
    words.check(page, "rules dialog")
    shot(page, f"{shot_name}-rules-dialog")
    page.keyboard.press("Escape")

    # my games
    page.goto(server + "/mine")
    page.wait_for_load_state("networkidle")
    page.wait_for_selector("main li, main table, main p")
    words.check(page, "my games")

    # the account page: signing in and up, and a refused sign-in (its own page: the browser
    # notes the refusal's 403 in the console, which this page's checks would count)
    acct = german_page(browser, lang=lang)
    acct.goto(server + "/account")
    acct.wait_for_selector("#signin-form")
    words.check(acct, "account page")
    acct.fill("#signin-name", "Niemand")
    acct.fill("#signin-password", "falsch-falsch")
    acct.click("#signin-button")
    acct.wait_for_selector("#account-note:not(:empty)")
    words.check(acct, "account page: a refused sign-in")
    # signed in: the account page (a refused new password too), the leaderboard, a profile
    sign_up_on_page(acct, server, who("Greta", lang), "richtig-richtig")
    acct.fill("#current-password", "falsch-falsch")
    acct.fill("#new-password", "ganz-neues-Passwort")
    acct.click("#password-button")
    acct.wait_for_selector("#password-form #account-note.bad")
    words.check(acct, "account page: signed in, a refused new password")
    for path, where in (("/players", "players"), (f"/player/{who('Greta', lang)}", "a player's profile")):
        acct.goto(server + path)
        acct.wait_for_selector("main h1")
        words.check(acct, where)
    assert acct.errors == []
    acct.context.close()

    # a refusal by the server: a link whose token is wrong
    page.goto(server + f"/game/{g['id']}?seat=0&token=nicht-das-zeichen")
    page.wait_for_function("document.getElementById('msg').textContent.length > 0")
    assert page.inner_text("#msg").startswith(catalog_text(lang, "refused", msg=""))
    words.check(page, "game: a refusal by the server")

    # the rules page
    page.goto(server + f"/rules?lang={lang}")
    words.check(page, "rules page")
    assert page.get_attribute("#docs-link", "href") == "/docs/"  # help, on a page without an About dialog

    # a finished game: its final scoring, its review, its replay and intermediate scoring
    f = create_game(server, BOTS4)
    page.goto(server + f["watch"])
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=60000)
    page.wait_for_selector("#final-table")
    words.check(page, "the final table")
    if not page.locator("#scoring-overlay[data-kind=final]").count():  # finished before the page opened: offered, not opened
        page.click("#final-walk")
    page.wait_for_selector("#scoring-overlay[data-kind=final]")
    assert walk_overlay(page, words, "final scoring") > 5
    shot(page, f"{shot_name}-final-totals")
    page.click("#sc-close")
    page.click("#review-btn")
    page.wait_for_selector("#win-chart", timeout=120000)
    words.check(page, "review")
    if page.locator("#review-list li .tc-slip").count():
        page.locator("#review-list li .tc-slip").first.click()
        page.wait_for_selector("#review-list li.on")
        words.check(page, "review: a decision")
    shot(page, f"{shot_name}-review", full_page=True)
    page.click("#rp-jump-start")
    page.wait_for_function("document.body.dataset.replay === '0'")
    page.click("#rp-next-turn")
    page.wait_for_function("!['', '0'].includes(document.body.dataset.replay)")
    # one counter: the turn, and the step (decision) beside it
    step = page.evaluate("document.body.dataset.replay")
    where = re.escape(catalog_text(lang, "rpTurn", k=1, n="NUMBER") + " · " + catalog_text(lang, "rpStep", s=step)).replace(
        "NUMBER", r"\d+"
    )
    assert re.fullmatch(where, page.inner_text("#rp-where")), page.inner_text("#rp-where")
    assert page.inner_text("#status") == page.inner_text("#rp-where")
    words.check(page, "replay")
    shot(page, f"{shot_name}-replay")
    if page.locator("#rp-show-inter").count():
        page.click("#rp-show-inter")
        assert walk_overlay(page, words, "intermediate scoring") > 1
        page.click("#sc-close")

    # the tutorial, every lesson, a wrong attempt and its end
    page.goto(server + "/tutorial#1")
    page.wait_for_selector("body[data-status=ready]")
    words.check(page, "tutorial")
    assert page.inner_text("#docs-link") == catalog_text(lang, "helpLink") and page.get_attribute("#docs-link", "href") == "/docs/"
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
    shot(page, f"{shot_name}-tutorial-end", full_page=True)

    assert words.pages >= 25
    assert words.found == [], words.report()
    assert page.errors == [] and page.console_errors == []


@pytest.fixture(scope="module")
def mail_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Any]]:
    """A second live server of this module, whose mail goes to the test's SMTP server."""
    from test_web_mail import serve_with_mail

    yield from serve_with_mail(tmp_path_factory, "https://kardinal.example.org")


@pytest.mark.parametrize("lang", LANGS)
def test_the_community_pages_in_german(mail_server: tuple[str, Any], browser: Any, lang: str) -> None:
    """The account's pages with mail on (an address waiting, confirmed, the mails wanted),
    the mail links' page (confirmed, a link that does not work, unsubscribing), and
    moderation at the table (a line's menu, the report dialog, a muted line), in German."""
    from test_web_mail import link

    server, smtp = mail_server
    greta_name, hugo_name = who("Greta", lang), who("Hugo", lang)
    words = words_for([greta_name, hugo_name], lang)
    greta = german_page(browser, lang=lang)
    hugo = german_page(browser, 390, 844, lang=lang)
    sign_up_on_page(greta, server, greta_name, "richtig-richtig")
    greta.fill("#mail-address", f"greta-{lang}@example.org")
    greta.fill("#mail-password", "richtig-richtig")
    greta.click("#mail-button")
    greta.wait_for_selector("#mail-state")
    words.check(greta, "account page: an address waiting")
    (mail,) = smtp.inbox.wait(f"greta-{lang}@example.org")
    greta.goto(server + "/mail#confirm=" + link(mail, "confirm", "https://kardinal.example.org"))
    greta.wait_for_selector("#mail-note.good")
    words.check(greta, "mail page: the address confirmed")
    greta.goto(server + "/mail#confirm=kein-echter-Link")
    greta.reload()  # (from /mail, a new hash alone does not load the page again)
    greta.wait_for_selector("#mail-note.bad")
    words.check(greta, "mail page: a link that does not work")
    greta.goto(server + "/mail#unsubscribe=1.turn.0123456789abcdef0123456789abcdef")
    greta.reload()
    greta.wait_for_selector("#unsub-button")
    words.check(greta, "mail page: unsubscribing")
    greta.click("#unsub-button")
    greta.wait_for_selector("#mail-note.bad")
    words.check(greta, "mail page: an unsubscribe link that does not work")
    greta.goto(server + "/account")
    greta.wait_for_selector("#mail-want-turn")
    words.check(greta, "account page: the mails wanted")

    # moderation at a table: Hugo (a phone) writes, Greta opens the line's menu and reports it
    sign_up_on_page(hugo, server, hugo_name, "richtig-richtig")
    g = greta.evaluate(
        """async ([greta, hugo]) => (await fetch('/api/games', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({players: [{name: greta, kind: 'person'}, {name: hugo, kind: 'person'}, {kind: 'bot', level: 'random'}]})})).json()""",
        [greta_name, hugo_name],
    )
    greta.goto(server + g["seats"][0]["url"])
    greta.wait_for_selector("#fill-bots")  # waiting for Hugo: "start now with bots (their level)"
    words.check(greta, "game: waiting for a player")
    hugo.goto(server + g["seats"][1]["url"])
    for p in (greta, hugo):
        p.wait_for_selector("#chat-text")
        p.wait_for_selector("body[data-status=running]", state="attached")
    hugo.fill("#chat-text", "Hallo zusammen")
    hugo.press("#chat-text", "Enter")
    line = greta.locator("#chatbox .chat-say", has_text="Hallo zusammen")
    line.locator(".chat-menu summary").click()
    greta.wait_for_selector("#chatbox .chat-menu[open] [data-act=report]")
    words.check(greta, "game: the menu of a line")
    line.locator("[data-act=report]").click()
    greta.wait_for_selector("#report-dialog[open]")
    words.check(greta, "game: the report dialog")
    greta.click("#report-cancel")
    line.locator(".chat-menu").evaluate("(menu) => { menu.open = true; }")  # open or not after the dialog
    line.locator("[data-act=mute]").click()
    greta.wait_for_selector("#chatbox .chat-muted")
    words.check(greta, "game: a muted line")
    # Hugo deletes his account: his seat is a deleted player's, said in German
    status = hugo.evaluate(
        """async () => (await fetch('/api/account/delete', {method: 'POST', headers: {'content-type': 'application/json'},
            body: JSON.stringify({password: 'richtig-richtig'})})).status"""
    )
    assert status == 200
    greta.reload()
    greta.wait_for_function("(w) => document.body.innerText.includes(w)", arg=catalog_text(lang, "deletedPlayer"))
    words.check(greta, "game: a deleted account's seat")
    assert words.pages == 11
    assert not words.found, words.report()
    assert greta.errors == [] and hugo.errors == []
    greta.context.close()
    hugo.context.close()


@pytest.mark.parametrize("lang", LANGS)
def test_a_phone_in_german(server: str, browser: Any, lang: str) -> None:
    """The home page and a game's first turns on a 390x844 touch screen, where some words
    differ (touch words, shorter labels)."""
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale=LOCALES.get(lang, lang), timezone_id="UTC"
    )
    ctx.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    words = words_for(["Annegret", "Bot 1", "Bot 2", "Bot 3"], lang)
    page.goto(server + "/")
    page.locator("#settings-summary").click()
    page.wait_for_selector("#kind-1")
    page.evaluate("document.querySelectorAll('details').forEach((d) => { d.open = true; })")
    words.check(page, "phone: home")
    players = [{"name": "Annegret", "kind": "person"}] + [{"name": f"Bot {i}", "kind": "bot", "level": "random"} for i in (1, 2, 3)]
    g = create_game(server, players, hints=True)
    page.goto(server + g["seats"][0]["url"])
    assert wait_turn(page)
    words.check(page, "phone: game")
    page.locator("#hint-btn").tap()
    page.wait_for_selector("#hint-list li", timeout=30000)
    words.check(page, "phone: a hint")
    rng = random.Random(390)
    for k in range(3):
        take_turn(page, rng, touch=True)
        if not wait_turn(page):
            break
        words.check(page, f"phone: turn {k + 2}")
    shot(page, "german-phone-game" if lang == "de" else f"lang-{lang}-phone-game", full_page=True)
    assert words.found == [], words.report()
    assert errors == []
    ctx.close()


def test_the_check_finds_english(server: str, browser: Any) -> None:
    """The check itself: the issue's English on a German page is found."""
    page = german_page(browser)
    page.goto(server + "/rules?lang=de")
    page.evaluate(
        """() => { const p = document.createElement('p'); p.setAttribute('aria-label', 'Draw pile');
        p.textContent = 'Gut gemacht! Well done: your cloister ... won 59% of 200 games against three greedy, −6.7 Punkte, ein Berater, Kloster auf Würzburg';
        document.body.append(p); }"""
    )
    words = Words([])
    words.check(page, "made up")
    found = {w for _, _, w, _ in words.found}
    assert {
        "Well",
        "done",
        "your",
        "cloister",
        "won",
        "games",
        "against",
        "−6.7",
        "Draw",
        "pile",
        "Berater",
        "Kloster auf Würzburg",
    } <= found, found
    assert "Gut" not in found and "Punkte" not in found


def test_numbers_and_plurals_in_both_languages(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.goto(server + "/rules")
    said = page.evaluate(
        """async () => {
        const m = await import('/static/i18n.js');
        await import('/static/scoring.js');
        const out = {};
        for (const l of ['en', 'de', 'da']) {
          await m.setLang(l);
          out[l] = [m.num(-6.73, 1), m.num(1200), m.num(0.4, 1), m.T('cardsLeft', {n: 1}), m.T('cardsLeft', {n: 2}),
            m.strengthText('won 59% of 200 games against three greedy (95% interval 54-65%)'),
            m.strengthText('won 30% of 400 games against three hard (95% interval 25-35%; an even share is 25%)'),
            m.strengthText('won 200 of 200 games against three random'), m.strengthText('loses almost every game'),
            m.strengthText('something new'),
            m.T('scQualifies', {names: 'Bot 2', value: 4, n: 1}), m.T('scQualifies', {names: 'Bot 1 und Bot 3', value: 4, n: 2}),
            m.T('scPointsN', {n: 61}), m.T('scPiecesLeft', {n: 1})];
        }
        return out;
      }"""
    )
    assert said["en"] == [
        "−6.7", "1,200", "0.4", "1 card", "2 cards",
        "won 59% of 200 games against three greedy, 95% interval 54–65%",
        "won 30% of 400 games against three strong, 95% interval 25–35%, an even share being 25%",
        "won 200 of 200 games against three random", "loses almost every game", "something new",
        "Bot 2 scores 4 points.", "Bot 1 und Bot 3 score 4 points each.", "61 points", "1 piece left",
    ]  # fmt: skip
    assert said["de"] == [
        "−6,7", "1.200", "0,4", "1 Karte", "2 Karten",
        "gewann 59 % von 200 Spielen gegen drei Bots der Stufe gierig, 95-%-Intervall 54–65 %",
        "gewann 30 % von 400 Spielen gegen drei Bots der Stufe stark, 95-%-Intervall 25–35 %, bei einem gleichen Anteil von 25 %",
        "gewann 200 von 200 Spielen gegen drei Bots der Stufe Zufall", "verliert fast jedes Spiel", "something new",
        "Bot 2 bekommt 4 Punkte.", "Bot 1 und Bot 3 bekommen je 4 Punkte.", "61 Punkte", "1 Stein übrig",
    ]  # fmt: skip
    assert said["da"] == [
        "−6,7", "1.200", "0,4", "1 kort", "2 kort",
        "vandt 59 % af 200 spil mod tre bots på niveauet grådig, 95 %-interval 54–65 %",
        "vandt 30 % af 400 spil mod tre bots på niveauet stærk, 95 %-interval 25–35 %, hvor en lige andel er 25 %",
        "vandt 200 af 200 spil mod tre bots på niveauet tilfældig", "taber næsten hvert spil", "something new",
        "Bot 2 får 4 point.", "Bot 1 und Bot 3 får 4 point hver.", "61 point", "1 brik tilbage",
    ]  # fmt: skip
