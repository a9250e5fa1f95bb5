// The installable app, on every page (parts.html's head loads this module): the service
// worker registered (sw.js, served at /sw.js by pwa.py), and the header's "Install" button
// shown where the browser offers to install the app (its beforeinstallprompt event: Chrome
// and Edge); hidden where it does not, and once the app is installed or runs installed.

import { T, onLangChange } from "./i18n.js";
import { url } from "./net.js";

/** The worker registered (or found registered: then the browser checks it for a new version). */
function register() {
  navigator.serviceWorker.register(url("/sw.js"), { scope: url("/") }).catch((e) => console.warn("no service worker:", e));
}
// once the page has loaded: the worker's first fetch of every static file does not slow the page's own
if ("serviceWorker" in navigator) {
  if (document.readyState === "complete") register();
  else window.addEventListener("load", register, { once: true });
}

/** The browser's offer to install, kept until the button is pressed.
 * @typedef {Event & { prompt: () => Promise<unknown>, userChoice: Promise<{ outcome: string }> }} InstallPrompt */
/** @type {InstallPrompt | null} */
let offer = null;
const button = document.getElementById("install");

function update() {
  if (!button) return;
  button.textContent = T("install");
  button.title = T("installWhy");
  button.hidden = offer === null || matchMedia("(display-mode: standalone)").matches;
}

window.addEventListener("beforeinstallprompt", (event) => {
  if (!button) return; // a page without the button (a game): the browser's own offer
  event.preventDefault(); // the page's own button, not the browser's bar
  offer = /** @type {InstallPrompt} */ (event);
  update();
});
window.addEventListener("appinstalled", () => { offer = null; update(); });
if (button) {
  button.addEventListener("click", async () => {
    if (!offer) return;
    const asked = offer;
    offer = null; // an offer can be shown once
    update();
    await asked.prompt();
  });
}
onLangChange(update);
update();
