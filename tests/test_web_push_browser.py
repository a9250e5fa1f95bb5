"""Web Push in Chromium (push.js, sw-push.js), on a phone in German: the account page's
notifications on this device, the turn's push reaching the test's push service
(push_service.py: decrypted with the device's keys), the service worker showing the pushed
message as a notification (the DevTools protocol's ``ServiceWorker.deliverPushMessage``),
and a tap on it opening the game at the player's seat.

This machine has no push service that Chromium could subscribe to (a browser's
subscription goes to its maker's service, on the internet): the page's
``PushManager.subscribe`` is given a subscription of the test's device instead (an init
script), with the endpoint of the test's push service and the device's keys. Everything
else is the browser's and the server's own: the permission, the worker's registration,
the push payload as the server sent it, the notification the worker shows.

A notification of the system cannot be clicked from the DevTools protocol, and a worker
may open or focus a window only within a real ``notificationclick``. So the test asks the
worker (Playwright's evaluate in the service worker: ``Runtime.evaluate`` on its target)
which tab the handler's function would focus (``pushTab``, with the worker's own list of
tabs), checks that ``openPushPage`` is refused only by that rule, and opens the
notification's URL as ``clients.openWindow`` would."""

from __future__ import annotations

import json
import re
import time
from collections.abc import Iterator
from typing import Any

import pytest
from push_service import PushService
from webtools import APPS, serve, shot
from webtools import sign_up_on_page as sign_up

pytestmark = pytest.mark.browser

CONTACT = "mailto:push@example.org"
PLAYERS = [{"name": "Anna"}, {"name": "B1", "kind": "bot", "level": "random"}, {"name": "B2", "kind": "bot", "level": "random"}]

# the page's PushManager gives the test's device (its endpoint and public keys) as this
# browser's subscription
FAKE_SUBSCRIPTION = """
(device) => {
  const subscription = {
    endpoint: device.endpoint,
    toJSON: () => ({ endpoint: device.endpoint, keys: device.keys }),
    unsubscribe: async () => { localStorage.removeItem("test-push"); return true; },
  };
  PushManager.prototype.subscribe = async function () { localStorage.setItem("test-push", "1"); return subscription; };
  PushManager.prototype.getSubscription = async function () { return localStorage.getItem("test-push") ? subscription : null; };
}
"""


@pytest.fixture(scope="module")
def push_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, PushService]]:
    """A live server with Web Push on, and the test's push service (http on this machine)."""
    service = PushService()
    with pytest.MonkeyPatch.context() as mp:
        mp.setenv("KARDINAL_PUSH_CONTACT", CONTACT)
        gen = serve(tmp_path_factory)
        url = next(gen)
    APPS[url].state.pusher.endpoint_schemes = ("https", "http")
    APPS[url].state.pusher.local_endpoints = True  # the test's push service, on this machine
    yield url, service
    for _ in gen:
        pass
    service.close()


def wait_until(page: Any, what: Any, timeout: float = 30.0) -> Any:
    """``what()`` once it is true (a generous limit: not a speed test); between two looks
    Playwright takes its events (the DevTools protocol's among them)."""
    end = time.monotonic() + timeout
    while not (found := what()):
        assert time.monotonic() < end, "timed out"
        page.wait_for_timeout(50)
    return found


def deliver(page: Any, cdp: Any, server: str, registration: str, payload: dict[str, Any], shown: Any) -> Any:
    """Deliver ``payload`` to the worker through DevTools, as a push service would, until
    ``shown()`` is true; its value. Chromium now and then drops a push DevTools delivers
    (two suite runs in about ten: the worker showed nothing in 30 s, the worker activated
    and no error reported), so it is delivered again every 10 s, at most three times;
    a push the worker mishandles shows nothing however often it comes."""
    for attempt in range(3):
        cdp.send("ServiceWorker.deliverPushMessage", {"origin": server, "registrationId": registration, "data": json.dumps(payload)})
        try:
            return wait_until(page, shown, timeout=10.0)
        except AssertionError:
            if attempt == 2:
                raise
            print(f"\nthe push delivered through DevTools was not shown in 10 s: delivered again ({attempt + 2} of 3)")
    raise AssertionError("unreachable")


def test_notifications_on_a_phone_in_german(push_server: tuple[str, PushService], browser: Any) -> None:
    server, service = push_server
    device = service.device("phone")
    # a phone (webtools.phone's) whose service workers run (the other browser tests block them)
    ctx = browser.new_context(
        viewport={"width": 390, "height": 844}, has_touch=True, is_mobile=True, locale="de-DE", timezone_id="UTC", service_workers="allow"
    )
    page = ctx.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    ctx.grant_permissions(["notifications"], origin=server)
    ctx.add_init_script(script=f"({FAKE_SUBSCRIPTION})({json.dumps({'endpoint': service.endpoint(device), 'keys': device.keys()})})")
    sign_up(page, server, "Anna")
    page.wait_for_selector("#push-wants")
    assert page.text_content("#push-section h2") == "Benachrichtigungen auf diesem Gerät"
    assert page.inner_text("#push-wants legend") == "Benachrichtige dieses Gerät, wenn"
    shot(page, "i46-push-account-phone-de", full_page=True)
    page.check("#push-want-turn")
    page.wait_for_selector("#push-wants #account-note.good")
    assert page.inner_text("#push-wants #account-note") == "Gespeichert."
    shot(page, "i46-push-account-phone-de-on", full_page=True)
    # the choice is the server's: the page drawn anew shows it
    page.reload()
    page.wait_for_selector("#push-want-turn:checked", state="attached")
    assert not page.is_checked("#push-want-end")

    # a turn-based game of Anna's seat and two bots: the turn's push reaches the push service
    r = page.request.post(server + "/api/games", data={"players": PLAYERS, "mode": "turn"}, headers={"origin": server})
    assert r.ok, r.text()
    g = r.json()
    gid = g["id"]
    token = g["seats"][0]["token"]
    assert page.request.post(server + f"/api/games/{gid}/join", data={"seat": 0, "token": token}, headers={"origin": server}).ok
    (push,) = service.wait(device)
    assert service.errors == []
    assert push.payload["title"] == "Du bist dran" and push.payload["body"] == "Dein Spiel gegen B1 und B2 wartet auf deinen Zug."

    # the service worker shows it: the message as the server sent it, delivered by DevTools
    cdp = ctx.new_cdp_session(page)
    registrations: list[dict[str, Any]] = []
    versions: list[dict[str, Any]] = []
    cdp.on("ServiceWorker.workerRegistrationUpdated", lambda e: registrations.extend(e["registrations"]))
    cdp.on("ServiceWorker.workerVersionUpdated", lambda e: versions.extend(e["versions"]))
    cdp.on("ServiceWorker.workerErrorReported", lambda e: errors.append(f"worker: {e['errorMessage']}"))
    cdp.send("ServiceWorker.enable")
    reg = wait_until(page, lambda: next((r for r in registrations if r["scopeURL"] == server + "/" and not r["isDeleted"]), None))
    # a push delivered before the worker is activated is lost: the test then waited in vain, now and then
    wait_until(page, lambda: any(v["registrationId"] == reg["registrationId"] and v["status"] == "activated" for v in versions))
    shown = "navigator.serviceWorker.ready.then((r) => r.getNotifications()).then((ns) => ns.map((n) => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })))"
    notes = deliver(page, cdp, server, reg["registrationId"], push.payload, lambda: page.evaluate(shown))
    row = APPS[server].state.pusher.storage.get_game(gid)
    print(
        f"\nthe push service got the turn's push {push.at - row.updated:.2f} s and the worker showed it {time.time() - row.updated:.2f} s after the move"
    )
    assert notes == [
        {"title": "Du bist dran", "body": push.payload["body"], "tag": f"game-{gid}", "data": {"url": f"{server}/mail#open={gid}.0"}}
    ]
    # a newer push of the same game replaces it (one per game: its tag)
    newer = {**push.payload, "body": "noch einmal"}
    deliver(page, cdp, server, reg["registrationId"], newer, lambda: [n["body"] for n in page.evaluate(shown)] == ["noch einmal"])

    # the tap: the handler (openPushPage) focuses the tab pushTab finds, else opens the
    # notification's page. No tab of the game is open (this page shows the account): it
    # opens the page, which takes the seat through the session and shows the game
    worker = wait_until(page, lambda: next((w for w in ctx.service_workers if w.url.endswith("/sw.js")), None))
    target = notes[0]["data"]["url"]
    tab_of = "(target) => clients.matchAll({ type: 'window', includeUncontrolled: true }).then((tabs) => { const t = pushTab(target, tabs); return t ? t.url : null; })"
    assert worker.evaluate(tab_of, target) is None
    # (openWindow itself: only within a real notificationclick, which DevTools cannot make)
    with pytest.raises(Exception, match="Not allowed to open a window"):
        worker.evaluate("(target) => openPushPage(target).then(() => true)", target)
    game = ctx.new_page()
    game.goto(target)
    game.wait_for_url(re.compile(rf".*/game/{gid}$"))
    # the seat is this browser's now (its token through the session): its hand and its turn,
    # not a spectator's view
    game.get_by_text("Du bist am Zug").first.wait_for()
    shot(game, "i46-push-opened-game-phone-de")
    # a tab of that game open: a tap focuses it
    assert worker.evaluate(tab_of, target) == f"{server}/game/{gid}"
    assert errors == []
