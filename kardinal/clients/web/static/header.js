// The header the pages share: the language choice and the About dialog, which links the
// documentation (/docs/: playing, hosting, the code).

import { byId, el, findId } from "./dom.js";
import { T, lang, languages, setLang, onLangChange, stored } from "./i18n.js";
import { postJSON, url } from "./net.js";
import { whoAmI } from "./account-link.js";

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

/** The header's language choice (#lang: the catalogs' languages, each named in its own
 * words): choosing one switches the page, and for an account signed in it becomes the
 * account's language (its mails are written in it). A browser that has chosen none takes
 * the language of the account signed in on it. */
export function initLanguageChoice() {
  const select = byId("lang", HTMLSelectElement);
  for (const [code, name] of Object.entries(languages())) select.append(el("option", { value: code, lang: code, text: name }));
  const update = () => {
    select.value = lang();
    select.setAttribute("aria-label", T("languageLabel"));
    select.title = T("languageWhy");
  };
  select.addEventListener("change", async () => {
    await setLang(select.value);
    if (await whoAmI()) {
      try { await postJSON("/api/account/lang", { lang: lang() }); } catch (e) { /* the page's language stays: the account's is kept */ }
    }
  });
  onLangChange(update);
  update();
  if (!stored()) {
    whoAmI().then((me) => {
      if (me && me.lang && me.lang !== lang() && me.lang in languages()) setLang(me.lang);
    });
  }
}

/** Wire the header; aboutText() gives the dialog's text (it may change, e.g. with the board).
 * @param {() => string} aboutText */
export function initHeader(aboutText) {
  const update = () => {
    document.documentElement.lang = lang();
    byId("about-btn").textContent = T("about");
    byId("about-title").textContent = T("aboutTitle");
    byId("about-close").textContent = T("close");
    byId("about-text").textContent = aboutText();
    docsLink();
  };
  initLanguageChoice();
  byId("about-btn").addEventListener("click", () => { update(); byId("about", HTMLDialogElement).showModal(); });
  onLangChange(update);
  update();
  return update;
}
