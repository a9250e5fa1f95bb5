"""Benchmark: from "Create game" in the lobby to a playable board, in Debian's Chromium.

``python -m kardinal.clients.web.startbench [runs]`` starts the web server on a free port with a
fresh data folder, opens the lobby, sets one person against three bots and clicks
"Create game"; the clock runs from the click until the page's board is drawn and one of
the player's cards can be chosen (a ``.card.legal`` in the hand). It prints every run
and the median, in milliseconds. The first run (cold caches: the browser's and the
server's) is reported apart. Needs the ``dev`` and ``web`` extras and /usr/bin/chromium
(``make test`` installs both). Not part of the tests: timings are measured on demand.
"""

from __future__ import annotations

import socket
import statistics
import sys
import tempfile
import threading
import time
from pathlib import Path

CHROMIUM = "/usr/bin/chromium"


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def measure(runs: int = 10) -> list[float]:
    """Milliseconds from the click on "Create game" to a playable board, one per run."""
    import uvicorn
    from playwright.sync_api import sync_playwright

    from kardinal.clients.web.app import create_app

    with tempfile.TemporaryDirectory() as data:
        app = create_app(data_dir=Path(data), bot_pause=0.6)
        port = _free_port()
        srv = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning"))
        t = threading.Thread(target=srv.run, daemon=True)
        t.start()
        while not srv.started:
            time.sleep(0.02)
        base = f"http://127.0.0.1:{port}"
        out: list[float] = []
        try:
            with sync_playwright() as p:
                browser = p.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
                for _ in range(runs):
                    ctx = browser.new_context(viewport={"width": 1400, "height": 950}, locale="en-GB")
                    page = ctx.new_page()
                    page.goto(base + "/")
                    page.wait_for_selector("#kind-1")
                    for i in (1, 2, 3):
                        page.select_option(f"#kind-{i}", "bot")
                    page.fill("#name-0", "Ann")
                    t0 = time.perf_counter()
                    page.get_by_role("button", name="Create game").click()
                    page.wait_for_url("**/game/*")
                    page.wait_for_selector("[data-zone=hand] .card.legal", timeout=10000)
                    out.append((time.perf_counter() - t0) * 1000)
                    ctx.close()
                browser.close()
        finally:
            srv.should_exit = True
            t.join(10)
    return out


def main(argv: list[str] | None = None) -> None:
    args = sys.argv[1:] if argv is None else argv
    runs = int(args[0]) if args else 10
    times = measure(runs + 1)
    print(f"first run (cold): {times[0]:.0f} ms")
    print("runs: " + ", ".join(f"{x:.0f}" for x in times[1:]) + " ms")
    print(f"median from 'Create game' to a playable board: {statistics.median(times[1:]):.0f} ms over {runs} runs")


if __name__ == "__main__":
    main()
