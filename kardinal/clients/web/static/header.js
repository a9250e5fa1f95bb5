// The header the pages share: the language button and the About dialog, which links the
// documentation (/docs/: playing, hosting, the code).

import { byId, el, findId } from "./dom.js";
import { T, addStrings, lang, otherLang, setLang, onLangChange } from "./i18n.js";
import { url } from "./net.js";

addStrings({
  en: { docsLink: "Help and documentation", docsLinkWhy: "How to play here, how to host a server, and how it is made" },
  de: { docsLink: "Hilfe und Dokumentation (auf Englisch)", docsLinkWhy: "Wie man hier spielt, wie man einen Server betreibt und wie er gebaut ist" },
  da: { docsLink: "Hjælp og dokumentation (på engelsk)", docsLinkWhy: "Sådan spiller du her, sådan driver du en server, og sådan er den lavet" },
});

/** The About dialog's link to the documentation (made once, named in the page's language). */
function docsLink() {
  let a = findId("about-docs");
  if (!a) {
    a = el("a", { id: "about-docs", href: url("/docs/") });
    byId("about-text").after(el("p", {}, a));
  }
  a.textContent = T("docsLink");
  a.title = T("docsLinkWhy");
  a.setAttribute("hreflang", "en");
}

/** Wire the header; aboutText() gives the dialog's text (it may change, e.g. with the board).
 * @param {() => string} aboutText */
export function initHeader(aboutText) {
  const update = () => {
    document.documentElement.lang = lang();
    byId("lang").textContent = T("language");
    byId("about-btn").textContent = T("about");
    byId("about-title").textContent = T("aboutTitle");
    byId("about-close").textContent = T("close");
    byId("about-text").textContent = aboutText();
    docsLink();
  };
  byId("lang").addEventListener("click", () => setLang(otherLang()));
  byId("about-btn").addEventListener("click", () => { update(); byId("about", HTMLDialogElement).showModal(); });
  onLangChange(update);
  update();
  return update;
}
