"""Accessibility: axe-core (tests/js, installed by ``make test`` with ``npm ci``) scans the
lobby, a game, the tutorial and a finished game's replay in Debian's Chromium; no finding
of serious or critical impact is allowed. A missing axe-core fails, it does not skip.
The counts per impact of every scan are written to build/screens/axe-<page>.json."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from webtools import BOTS4, SCREENS, create_game, new_page, version

pytestmark = pytest.mark.browser

AXE = Path(__file__).resolve().parent / "js" / "node_modules" / "axe-core" / "axe.min.js"


def axe_scan(page: Any, name: str) -> list[dict[str, Any]]:
    """Run axe-core on the page as it is; write the counts per impact; return the violations."""
    assert AXE.exists(), f"{AXE} is missing: `make test` installs it (npm ci --prefix tests/js)"
    page.add_script_tag(path=str(AXE))
    result = page.evaluate("axe.run(document, { resultTypes: ['violations'] })")
    violations: list[dict[str, Any]] = result["violations"]
    counts: dict[str, int] = {}
    for v in violations:
        counts[v["impact"]] = counts.get(v["impact"], 0) + len(v["nodes"])
    SCREENS.mkdir(parents=True, exist_ok=True)
    findings = [{"rule": v["id"], "impact": v["impact"], "help": v["help"], "nodes": [n["target"] for n in v["nodes"]]} for v in violations]
    (SCREENS / f"axe-{name}.json").write_text(json.dumps({"counts": counts, "findings": findings}, indent=1))
    return violations


def serious(violations: list[dict[str, Any]]) -> list[str]:
    return [
        f"{v['id']} ({v['impact']}): {v['help']} — {[n['target'] for n in v['nodes']][:5]}"
        for v in violations
        if v["impact"] in ("serious", "critical")
    ]


def test_lobby(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.goto(server + "/")
    page.wait_for_selector("#bot-level-about")
    assert serious(axe_scan(page, "lobby")) == []
    # the full table settings unfolded, a level's details open, and a table made with friends
    page.locator("#settings-summary").click()
    page.wait_for_selector("#kind-1")
    page.locator("#level-about-1 summary").click()
    page.locator("#play-friends").click()
    page.locator("#friends-create").click()
    page.wait_for_selector("#open-my-seat")
    assert serious(axe_scan(page, "lobby-settings")) == []
    page.context.close()


def test_game(server: str, browser: Any) -> None:
    g = create_game(server, [{"name": "Ann", "kind": "person"}] + BOTS4[1:])
    page = new_page(browser)
    page.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + g["seats"][0]["url"])
    page.wait_for_function("document.body.dataset.myTurn === 'true'", timeout=20000)
    # a card chosen: the map marks its targets
    page.locator("[data-zone=hand] .card.legal").first.click()
    assert serious(axe_scan(page, "game")) == []
    page.context.close()


def test_tutorial(server: str, browser: Any) -> None:
    page = new_page(browser)
    page.goto(server + "/tutorial")
    page.wait_for_selector("[data-site=paris]")
    page.wait_for_selector("#step-title:not(:empty)")
    assert serious(axe_scan(page, "tutorial")) == []
    page.context.close()


def test_replay(server: str, browser: Any) -> None:
    g = create_game(server, BOTS4[:3])
    page = new_page(browser)
    page.add_init_script("localStorage.setItem('kardinal-follow-speed', 'off')")
    page.goto(server + g["watch"])
    page.wait_for_function("document.body.dataset.status === 'finished'", timeout=120000)
    page.locator("#rp-back").click()
    page.wait_for_function(f"document.body.dataset.replay === '{version(page) - 1}'")
    assert serious(axe_scan(page, "replay")) == []
    page.context.close()
