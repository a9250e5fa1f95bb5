// The "Rules" link of the lobby and the game page: it opens /rules in the page's language.

import { T, lang, onLangChange } from "./i18n.js";

const link = document.getElementById("rules-link");
function update() {
  link.textContent = T("rules");
  link.href = "/rules?lang=" + lang();
  link.hreflang = lang();
}
if (link) {
  update();
  onLangChange(update);
}
