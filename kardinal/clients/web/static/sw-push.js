// Web Push in the service worker (sw.js imports it: importScripts("/static/sw-push.js")).
// A push's payload (kardinal/server/mail/push.py) is JSON: `title`, `body`, `tag` (one per
// game: a newer notification of a game replaces the older) and `url` (the page to open,
// a path under the site: "/mail#open=<game>.<seat>", which finds the seat through the
// account's session; no token in it). A tap on the notification focuses a tab of that
// game, or opens the URL.
//
// A classic script (the worker loads it with importScripts), so its functions are the
// worker's globals; tsc checks it with the page's types, hence the casts to `any` for
// the worker's own (ServiceWorkerGlobalScope).

/** The service worker's global scope. @returns {any} */
function pushScope() {
  return self;
}

/** The page a notification opens: a path of the payload under the worker's scope (the site's
 * root, also under a proxy's path); any other text: the player's games.
 * @param {unknown} path */
function pushPageUrl(path) {
  const p = typeof path === "string" && path.startsWith("/") ? path : "/mine";
  return new URL("." + p, pushScope().registration.scope).href;
}

/** The game a page is about: "/game/<id>" or "/mail#open=<id>.<seat>"; "" for another page.
 * @param {string} href */
function pushGameOf(href) {
  const u = new URL(href);
  const game = /\/game\/([^/?#]+)$/.exec(u.pathname);
  if (game) return decodeURIComponent(game[1]);
  const open = /^#open=(.+)\.\d+$/.exec(u.hash);
  return open ? open[1] : "";
}

/** Show a push's notification. @param {any} data the payload */
function showPush(data) {
  const d = data && typeof data === "object" ? data : {};
  return pushScope().registration.showNotification(typeof d.title === "string" ? d.title : "Kardinal & König", {
    body: typeof d.body === "string" ? d.body : "",
    tag: typeof d.tag === "string" ? d.tag : undefined,
    icon: pushPageUrl("/static/favicon.svg"),
    data: { url: pushPageUrl(d.url) },
  });
}

/** The open tab a tap on a notification focuses: one of its game (or of its very page), if any.
 * @template {{ url: string }} Tab @param {string} target the notification's `data.url` @param {Tab[]} tabs */
function pushTab(target, tabs) {
  const game = pushGameOf(target);
  return tabs.find((tab) => tab.url === target || (game !== "" && pushGameOf(tab.url) === game));
}

/** What a tap on a notification does: focus a tab of its game if one is open (pushTab),
 * else open its page in a new one. Returns the tab.
 * @param {string} target the notification's `data.url` */
async function openPushPage(target) {
  /** @type {{ url: string, focus: () => Promise<unknown> }[]} the worker's WindowClients */
  const tabs = await pushScope().clients.matchAll({ type: "window", includeUncontrolled: true });
  const open = pushTab(target, tabs);
  return open ? open.focus() : pushScope().clients.openWindow(target);
}

pushScope().addEventListener("push", (/** @type {any} */ event) => {
  let data = null;
  try {
    data = event.data ? event.data.json() : null;
  } catch {
    data = null; // not JSON: the notification says the site's name only
  }
  event.waitUntil(showPush(data));
});

pushScope().addEventListener("notificationclick", (/** @type {any} */ event) => {
  event.notification.close();
  const target = event.notification.data && event.notification.data.url;
  event.waitUntil(openPushPage(typeof target === "string" ? target : pushPageUrl("/mine")));
});
