"""Benchmark: from the home page to a playable board, in Debian's Chromium.

``python -m kardinal.tools.startbench [runs]`` starts the web server (``kardinal serve``, a
process of its own: the tool drives it from outside, as a player does) on a free port with a
fresh data folder and measures two ways in, each run in a fresh browser context:

- *Play now*: the clock runs from opening the home page (``/``) until the page's board is
  drawn and one of the player's cards can be chosen (a ``.card.legal`` in the hand),
  through one tap on "Play now" (one person against three bots);
- *Create game*: the table settings unfolded, one person and three bots set, the clock
  runs from the click on "Create game" to the same playable board (the figure recorded
  before the home page had "Play now").

It prints every run and the medians, in milliseconds. The first run (cold caches: the
browser's and the server's) is reported apart. Needs the ``dev`` and ``web`` extras and
/usr/bin/chromium (``make test`` installs both). Not a timed test: timings are measured
on demand.
"""

from __future__ import annotations

import socket
import statistics
import subprocess
import sys
import tempfile
import time
import urllib.request

CHROMIUM = "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def measure(runs: int = 10) -> dict[str, list[float]]:
    """Milliseconds to a playable board, one per run: "play now" from opening the home page,
    "create game" from the click on "Create game"."""
    from playwright.sync_api import sync_playwright

    with tempfile.TemporaryDirectory() as data:
        port = _free_port()
        serve = [sys.executable, "-m", "kardinal.cli", "serve", "--host", "127.0.0.1", "--port", str(port), "--data", data]
        srv = subprocess.Popen([*serve, "--bot-pause", "0.6", "--bot-workers", "0"], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        base = f"http://127.0.0.1:{port}"
        _wait_until_up(base, srv)
        out: dict[str, list[float]] = {"play now": [], "create game": []}
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                for _ in range(runs):
                    ctx = browser.new_context(viewport={"width": 1400, "height": 950}, locale="en-GB")
                    page = ctx.new_page()
                    t0 = time.perf_counter()
                    page.goto(base + "/")
                    page.locator("#play-now").click()
                    page.wait_for_url("**/game/*")
                    page.wait_for_selector("[data-zone=hand] .card.legal", timeout=10000)
                    out["play now"].append((time.perf_counter() - t0) * 1000)
                    ctx.close()
                    ctx = browser.new_context(viewport={"width": 1400, "height": 950}, locale="en-GB")
                    page = ctx.new_page()
                    page.goto(base + "/")
                    page.locator("#settings-summary").click()
                    page.wait_for_selector("#kind-1")
                    for i in (1, 2, 3):
                        page.select_option(f"#kind-{i}", "bot")
                    page.fill("#name-0", "Ann")
                    t0 = time.perf_counter()
                    page.get_by_role("button", name="Create game").click()
                    page.wait_for_url("**/game/*")
                    page.wait_for_selector("[data-zone=hand] .card.legal", timeout=10000)
                    out["create game"].append((time.perf_counter() - t0) * 1000)
                    ctx.close()
                browser.close()
        finally:
            srv.terminate()
            srv.wait(10)
    return out


def _wait_until_up(base: str, srv: subprocess.Popen[bytes], seconds: float = 30.0) -> None:
    end = time.monotonic() + seconds
    while time.monotonic() < end:
        if srv.poll() is not None:
            raise RuntimeError(f"the server stopped at start (exit code {srv.returncode})")
        try:
            with urllib.request.urlopen(base + "/healthz", timeout=1):
                return
        except OSError:
            time.sleep(0.05)
    srv.terminate()
    raise RuntimeError(f"the server did not answer within {seconds:g} s")


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    runs = int(args[0]) if args else 10
    got = measure(runs + 1)
    for what, times in (("from opening the home page through 'Play now'", got["play now"]), ("from 'Create game'", got["create game"])):
        print(f"{what}: first run (cold) {times[0]:.0f} ms; runs " + ", ".join(f"{x:.0f}" for x in times[1:]) + " ms")
        print(f"  median to a playable board: {statistics.median(times[1:]):.0f} ms over {runs} runs")


if __name__ == "__main__":
    main()
