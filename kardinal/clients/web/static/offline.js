// The offline page (/offline): what the service worker (sw.js) shows for a page asked for
// while the network is down, in the page's language; "Try again" reloads the page asked for.

import { T, lang } from "./i18n.js";

document.documentElement.lang = lang();
document.title = `${T("offlineTitle")} — ${T("title")}`;
for (const [id, key] of [["offline-title", "offlineTitle"], ["offline-text", "offlineText"], ["offline-retry", "offlineRetry"]]) {
  const node = document.getElementById(id);
  if (node) node.textContent = T(key);
}
document.getElementById("offline-retry")?.addEventListener("click", () => location.reload());
