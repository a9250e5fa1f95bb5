// The "Rules" link of the lobby and the game page: it opens /rules in the page's language.
"use strict";

(function () {
  const link = document.getElementById("rules-link");
  if (!link) return;
  function update() {
    link.textContent = T("rules");
    link.href = "/rules?lang=" + LANG;
    link.hreflang = LANG;
  }
  update();
  // the pages set <html lang> whenever the language is switched (setLang, render)
  new MutationObserver(update).observe(document.documentElement, { attributes: true, attributeFilter: ["lang"] });
})();
