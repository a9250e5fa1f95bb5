// The service worker: the installed app's shell, one version at a time.
//
// The server serves this file at /sw.js with VERSION, FILES and LANGS written in (pwa.py):
// VERSION is a hash of the static files and the language catalogs, so a release changes this
// script's bytes and the browser installs the new worker on the next visit. Installing, it
// caches the offline page, the version's static files and every language's words
// (/i18n/catalog.json, used only without a network) in a cache of that version's own; activating, it deletes
// every other version's cache. Pages and the API always come from the network (a game must
// stay live; an /api or /ws answer is never kept); a page asked for without a network gets
// the offline page. The static files come from this version's cache, except for a page of
// another version (its X-Kardinal-Version header): that page's files come from the network,
// so no page runs with a mix of two versions' scripts.
//
// Every address is relative to the worker's scope: the server's root, also under a
// reverse proxy's path.

/// <reference lib="webworker" />
const sw = /** @type {ServiceWorkerGlobalScope} */ (/** @type {unknown} */ (self));

const VERSION = "__VERSION__";
/** @type {string[]} the static files of this version, relative to the scope */
const FILES = ["__FILES__"];
/** @type {string[]} the languages there are catalogs for (their words are kept too, for the offline page) */
const LANGS = ["__LANGS__"];
const PREFIX = "kardinal-";
const CACHE = PREFIX + VERSION;
const SCOPE = new URL(sw.registration.scope);
const OFFLINE = new URL("offline", SCOPE).href;
const STATIC = new URL("static/", SCOPE).href;
const API = new URL("api/", SCOPE).href;
const CATALOG = new URL("i18n/", SCOPE).href;
const HEADER = "X-Kardinal-Version";

importScripts(new URL("static/sw-push.js", SCOPE).href); // the push messages (sw-push.js)

/** Pages (by their client's id) that belong to another version than this worker's. */
const otherVersion = new Set();

sw.addEventListener("install", (event) => {
  event.waitUntil((async () => {
    const cache = await caches.open(CACHE);
    // "reload": from the server, not from the browser's HTTP cache (which may hold another version's)
    const catalogs = LANGS.map((l) => catalogOf(l));
    await cache.addAll([OFFLINE, ...catalogs, ...FILES.map((f) => new URL(f, SCOPE).href)].map((u) => new Request(u, { cache: "reload" })));
    await sw.skipWaiting();
  })());
});

sw.addEventListener("activate", (event) => {
  event.waitUntil((async () => {
    const names = await caches.keys();
    await Promise.all(names.filter((n) => n.startsWith(PREFIX) && n !== CACHE).map((n) => caches.delete(n)));
    await sw.clients.claim();
  })());
});

/** A page from the network; without one, the offline page.
 * @param {FetchEvent} event */
async function page(event) {
  let answer;
  try {
    answer = await fetch(event.request);
  } catch (e) {
    return (await caches.match(OFFLINE, { cacheName: CACHE })) || Response.error();
  }
  const version = answer.headers.get(HEADER);
  if (version && version !== VERSION) {
    // a release since this worker was installed: this page's files from the network, and the new worker fetched
    if (event.resultingClientId) otherVersion.add(event.resultingClientId);
    sw.registration.update().catch(() => { /* tried again on the next visit */ });
  }
  return answer;
}

/** A static file: this version's copy, or (another version's page, or a file not kept) the server's.
 * @param {FetchEvent} event */
async function staticFile(event) {
  if (otherVersion.has(event.clientId)) return fetch(event.request, { cache: "no-cache" });
  const kept = await caches.match(event.request, { cacheName: CACHE, ignoreSearch: true });
  return kept || fetch(event.request);
}

/** The address of one language's catalog as the worker keeps it.
 * @param {string} l */
function catalogOf(l) {
  return new URL(`i18n/catalog.json?want=${l}`, SCOPE).href;
}

/** A language catalog (/i18n/catalog.json?want=...): the server's; without a network, the
 * kept catalog of the first wanted language there is one of (as the server picks: "de-AT"
 * is "de"), else English's. Every page, the offline page too, needs its words before it runs.
 * @param {FetchEvent} event */
async function catalogFile(event) {
  try {
    return await fetch(event.request);
  } catch (e) {
    const wanted = (new URL(event.request.url).searchParams.get("want") || "").split(",");
    const codes = wanted.map((w) => w.trim().toLowerCase().replace("_", "-").split("-")[0]);
    const l = codes.find((c) => LANGS.includes(c)) || LANGS[0];
    return (await caches.match(catalogOf(l), { cacheName: CACHE })) || Response.error();
  }
}

sw.addEventListener("fetch", (event) => {
  const request = event.request;
  if (request.method !== "GET" || !request.url.startsWith(SCOPE.href) || request.url.startsWith(API)) return; // the browser's own way
  if (request.mode === "navigate") {
    event.respondWith(page(event));
  } else if (request.url.startsWith(STATIC)) {
    event.respondWith(staticFile(event));
  } else if (request.url.startsWith(CATALOG)) {
    event.respondWith(catalogFile(event));
  }
  // everything else (the API, the WebSocket, the documentation) goes to the network as it is
});
