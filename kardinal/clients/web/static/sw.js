// A temporary service worker until the PWA merge (issue 46 item 1 writes the real sw.js):
// it only takes Web Push's handlers (sw-push.js). Served at /sw.js (scope: the site).
/** @type {any} */ (self).importScripts("static/sw-push.js");
