// The header both pages share: the language button and the About dialog.

import { byId } from "./dom.js";
import { T, lang, otherLang, setLang, onLangChange } from "./i18n.js";

/** Wire the header; aboutText() gives the dialog's text (it may change, e.g. with the board). */
export function initHeader(aboutText) {
  const update = () => {
    document.documentElement.lang = lang();
    byId("lang").textContent = T("language");
    byId("about-btn").textContent = T("about");
    byId("about-title").textContent = T("aboutTitle");
    byId("about-close").textContent = T("close");
    byId("about-text").textContent = aboutText();
  };
  byId("lang").addEventListener("click", () => setLang(otherLang()));
  byId("about-btn").addEventListener("click", () => { update(); byId("about").showModal(); });
  onLangChange(update);
  update();
  return update;
}
