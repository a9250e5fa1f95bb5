// The offline page (/offline): what the service worker (sw.js) shows for a page asked for
// while the network is down, in the page's language; "Try again" reloads the page asked for.

import { T, addStrings, lang } from "./i18n.js";

addStrings({
  en: {
    offlineTitle: "No connection",
    offlineText: "This device cannot reach the Kardinal & König server just now: it is offline, or the server is. Your games are kept on the server and wait for you.",
    offlineRetry: "Try again",
  },
  de: {
    offlineTitle: "Keine Verbindung",
    offlineText: "Dieses Gerät erreicht den Server von Kardinal & König gerade nicht: Entweder ist das Gerät offline oder der Server. Deine Spiele sind auf dem Server gespeichert und warten auf dich.",
    offlineRetry: "Noch einmal versuchen",
  },
});

document.documentElement.lang = lang();
document.title = `${T("offlineTitle")} — ${T("title")}`;
for (const [id, key] of [["offline-title", "offlineTitle"], ["offline-text", "offlineText"], ["offline-retry", "offlineRetry"]]) {
  const node = document.getElementById(id);
  if (node) node.textContent = T(key);
}
document.getElementById("offline-retry")?.addEventListener("click", () => location.reload());
