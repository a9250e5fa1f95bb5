"""The scorings as events in the browser (scoring.js), Play again, and the replay slider
(replay.js), driven by Playwright in Debian's Chromium. Screen pictures of the overlay's
steps go to build/screens (webtools.shot)."""

from __future__ import annotations

import time
from typing import Any

import pytest
from webtools import BOTS4, choose_lang, create_game, get, new_page, shot

pytestmark = pytest.mark.browser


def events(state: dict[str, Any], kind: str) -> list[dict[str, Any]]:
    return [e for h in state["view"]["history"] for e in h["events"] if e["type"] == kind]


def watch_to_the_end(server: str, browser: Any, players: list[dict[str, Any]] = BOTS4) -> tuple[Any, dict[str, Any]]:
    """A game of bots, opened once it is over (as from the lobby): its result is on the page
    and the final walk-through is offered, and opened here (test_web_end.py: a game that
    ends while the page watches opens it by itself)."""
    g = create_game(server, players)
    end = time.monotonic() + 60
    while get(server, f"/api/games/{g['id']}")["status"] != "finished":
        assert time.monotonic() < end, "the bots did not finish"
        time.sleep(0.05)
    page = new_page(browser)
    page.goto(server + g["watch"])
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=60000)
    page.wait_for_selector("#final-table")
    assert page.locator("#scoring-overlay").count() == 0  # offered, not forced
    page.click("#final-walk")
    return page, g


def walk_to(page: Any, step_prefix: str, limit: int = 40) -> None:
    """Press Next until the overlay shows a step whose id starts with ``step_prefix``."""
    for _ in range(limit):
        if page.locator(f"#scoring-overlay[data-step^='{step_prefix}']").count():
            return
        page.click("#sc-next")
    raise AssertionError(f"no step {step_prefix}")


def test_final_overlay_walked_to_its_totals_and_play_again(server: str, browser: Any) -> None:
    players = [
        {"name": n, "kind": "bot", "level": lvl} for n, lvl in [("Ada", "random"), ("Ben", "greedy"), ("Cleo", "random"), ("Dev", "random")]
    ]
    page, g = watch_to_the_end(server, browser, players)
    gid = g["id"]
    page.wait_for_selector("#scoring-overlay[data-kind=final][data-step=intro]")
    state = get(server, f"/api/games/{gid}/state")
    scoring = get(server, f"/api/games/{gid}/scoring")["scoring"]["final"]
    (end,) = events(state, "game_ended")
    # a country: its ranking, the country picked out on the map
    page.click("#sc-next")
    page.wait_for_selector("#scoring-overlay[data-step^=country-]")
    cid = page.get_attribute("#scoring-overlay", "data-step").removeprefix("country-")
    country = next(c for c in scoring["countries"] if c["country"] == cid)
    ranked = page.locator("#scoring-overlay .sc-rank tbody tr")
    assert ranked.count() == sum(1 for x in country["cloisters"] if x)
    assert page.locator(f"#map [data-coat='{cid}'].sc-focus").count() == 1
    assert page.locator("#map .scoring-fx .sc-badge").count() == sum(1 for x in country["points"] if x)
    shot(page, "scoring-country")
    # an alliance: both countries picked out, who qualifies
    walk_to(page, "alliance-")
    number = int(page.get_attribute("#scoring-overlay", "data-step").removeprefix("alliance-"))
    al = next(a for a in scoring["alliances_detail"] if a["number"] == number)
    for c in al["countries"]:
        assert page.locator(f"#map [data-coat='{c}'].sc-focus").count() == 1
    assert page.locator("#scoring-overlay tr.sc-qualifies").count() == len(al["qualifies"])
    shot(page, "scoring-alliance")
    # the chains: one line per scoring path, through the sites
    walk_to(page, "chains")
    paths = [(c["seat"], p) for c in scoring["chains_detail"] for p in c["paths"]]
    assert page.locator("#map .scoring-fx polyline.sc-chain").count() == len(paths)
    for k, (_, p) in enumerate(paths):
        pts = page.locator("#map .scoring-fx polyline.sc-chain").nth(k).get_attribute("points")
        assert len(pts.split(" ")) == len(p)
    shot(page, "scoring-chains")
    # keyboard: back and forth
    page.keyboard.press("ArrowLeft")
    assert page.get_attribute("#scoring-overlay", "data-step") != "chains"
    page.keyboard.press("ArrowRight")
    assert page.get_attribute("#scoring-overlay", "data-step") == "chains"
    # the totals: intermediate + cloisters + alliances + chains = total, as the event says
    page.click("#sc-next")
    page.wait_for_selector("#sc-totals")
    rows = page.locator("#sc-totals tbody tr")
    assert rows.count() == 4
    for i in range(4):
        row = rows.nth(i)
        seat = int(row.get_attribute("data-seat"))
        col = {k: int(row.locator(f"[data-col={k}]").inner_text()) for k in ("intermediate", "cloisters", "alliances", "chains", "total")}
        assert col["intermediate"] + col["cloisters"] + col["alliances"] + col["chains"] == col["total"] == end["scores"][seat]
        assert (
            col["cloisters"] == end["cloisters"][seat]
            and col["alliances"] == end["alliances"][seat]
            and col["chains"] == end["chains"][seat]
        )
    # the standings, first to last, the winners marked
    standings = page.locator("#sc-standings li")
    assert [int(standings.nth(i).get_attribute("data-seat")) for i in range(4)] == scoring["order"]
    for w in end["winners"]:
        assert "★" in page.locator(f"#sc-standings li[data-seat='{w}']").inner_text()
    shot(page, "scoring-totals")
    # in German
    choose_lang(page, "de")
    assert page.inner_text("#scoring-overlay .sc-kind").lower() == "schlusswertung"
    assert page.locator("#sc-again").inner_text() == "Nochmal spielen"
    shot(page, "scoring-totals-de")
    choose_lang(page, "en")
    assert page.errors == [] and page.console_errors == []
    # Play again: a new game with the same players, the start player moved on one seat
    page.click("#sc-again")
    page.wait_for_url(lambda url: gid not in url and "/game/" in url)
    new = page.url.rsplit("/", 1)[1].split("?")[0]
    info = get(server, f"/api/games/{new}")
    assert [(p["name"], p["kind"], p["level"]) for p in info["players"]] == [
        (p["name"], "bot", p["level"]) for p in players[1:] + players[:1]
    ]
    assert info["board"] == "standard"
    page.wait_for_selector("[data-site=paris]")
    assert get(server, f"/api/games/{gid}/state")["again"] == new
    assert page.errors == [] and page.console_errors == []
    page.context.close()


def test_replay_slider_jumps_and_scoring_overlays(server: str, browser: Any) -> None:
    page, g = watch_to_the_end(server, browser)
    gid = g["id"]
    page.wait_for_selector("#scoring-overlay[data-kind=final]")
    page.click("#sc-close")
    assert page.locator("#scoring-overlay").count() == 0
    assert page.locator("#map.sc-focus-mode").count() == 0 and page.locator("#map .sc-focus").count() == 0
    state = get(server, f"/api/games/{gid}/state")
    total = state["version"]
    history = state["view"]["history"]
    bounds = [0] + [i for i in range(1, total) if history[i]["action"]["act"] != "draw"] + [total]
    # the slider moves by turns: a turn with its draws is one step
    assert int(page.get_attribute("#rp-slider", "max")) == len(bounds) - 1
    page.locator("#rp-slider").fill("5")
    page.wait_for_function(f"document.body.dataset.replay === '{bounds[5]}'")
    assert history[bounds[5]]["action"]["act"] != "draw"
    page.click("#rp-next-turn")
    page.wait_for_function(f"document.body.dataset.replay === '{bounds[6]}'")
    page.click("#rp-prev-turn")
    page.wait_for_function(f"document.body.dataset.replay === '{bounds[5]}'")
    # jumps: the intermediate scoring, the last round, the end
    marks = state["marks"]
    page.click("#rp-jump-inter")
    page.wait_for_function(f"document.body.dataset.replay === '{marks['intermediate']}'")
    assert page.locator("#log [data-event=intermediate]").count() == 1
    shot(page, "replay-intermediate")
    # every player's hand in the replay: its own column, and the table stays inside its panel
    assert page.locator("#players th").last.inner_text() == "In hand"
    assert page.locator("#players td.hands").count() == len(state["players"]) == 4
    assert page.evaluate(
        "(() => { const t = document.querySelector('#players table'); return t.offsetWidth <= t.parentElement.clientWidth; })()"
    )
    page.click("#rp-jump-last-round")
    page.wait_for_function(f"document.body.dataset.replay === '{marks['last_round']}'")
    page.click("#rp-jump-end")
    page.wait_for_function(f"document.body.dataset.replay === '{total}'")
    page.click("#rp-jump-start")
    page.wait_for_function("document.body.dataset.replay === '0'")
    # the intermediate scoring's overlay in the replay, walked to its totals
    page.click("#rp-show-inter")
    page.wait_for_selector("#scoring-overlay[data-kind=intermediate]")
    page.click("#sc-next")
    shot(page, "scoring-intermediate-country")
    page.click("#sc-skip")
    page.wait_for_selector("#sc-totals")
    (inter,) = events(state, "intermediate_scoring")
    cells = page.locator("#sc-totals tbody tr")
    got = {int(cells.nth(i).get_attribute("data-seat")): int(cells.nth(i).locator("td.pts").inner_text()) for i in range(cells.count())}
    assert got == dict(enumerate(inter["points"]))
    assert page.locator("#sc-again").count() == 0  # Play again after the final scoring only
    page.keyboard.press("Escape")
    assert page.locator("#scoring-overlay").count() == 0
    page.click("#rp-show-final")
    page.wait_for_selector("#scoring-overlay[data-kind=final]")
    assert page.errors == [] and page.console_errors == []
    page.context.close()
