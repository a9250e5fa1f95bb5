// The rules in the page: a dialog with docs/rules.md in the page's language (the text the
// /rules page shows, from GET /api/rules), opened at a rule by number.
//
//   openRule("R4.3")   open the dialog at rule R4.3 (no number: at the top)
//   linkRules(node)    make every rule number in the text of `node` a link that opens it
//
// Any link with a data-rule attribute opens the dialog too (one listener on the document).

import { el, findId } from "./dom.js";
import { T, lang, onLangChange } from "./i18n.js";
import { url } from "./net.js";

const RULE = /\bR\d+(?:\.\d+)?\b/g;
const TURN = "how-a-turn-goes--so-geht-ein-zug--sådan-går-en-tur"; // docs/rules.md's first section: how a turn goes, in a few sentences
/** GET /api/rules (the rules in one language): docs/rules.md as HTML, and its sections.
 * @typedef {{ html: string, toc: { anchor: string, title: string }[] }} RulesData */
/** The dialog and its parts, once built.
 * @typedef {{ dialog: HTMLDialogElement, title: HTMLElement, page: HTMLAnchorElement, close: HTMLButtonElement, toc: HTMLElement, text: HTMLElement }} Parts */

/** @type {Map<string, Promise<RulesData>>} language -> the rules, asked for once */
const loaded = new Map();
/** @type {Parts | null} */
let built = null;
/** @type {string | null} the language of the rules the dialog holds */
let shownLang = null;
/** @type {string | null} the rule the dialog should show */
let wanted = null;

/** @param {string} l a language */
function rules(l) {
  let p = loaded.get(l);
  if (!p) {
    p = fetch(url(`/api/rules?lang=${l}`)).then((r) => { if (!r.ok) throw new Error(r.statusText); return r.json(); });
    p.catch(() => loaded.delete(l));
    loaded.set(l, p);
  }
  return p;
}

/** The dialog, made the first time (its parts kept, not looked for again).
 * @returns {Parts} */
function build() {
  if (built) return built;
  const title = el("h2", { id: "rules-dialog-title" });
  const page = el("a", { class: "rules-as-page", target: "_blank", rel: "noopener" });
  const close = el("button", { type: "button", class: "rules-close", onclick: () => dialog.close() }, "×");
  const toc = el("nav", { class: "rules-dialog-toc" });
  const text = el("article", { class: "rules-text", tabindex: "-1" });
  const dialog = el("dialog", { id: "rules-dialog", class: "rules-dialog", "aria-labelledby": "rules-dialog-title" },
    el("div", { class: "rules-dialog-head" }, title, el("span", { class: "spacer" }), page, close), toc, text);
  built = { dialog, title, page, close, toc, text };
  // links inside the text: another rule, or a section, in the dialog itself
  dialog.addEventListener("click", (ev) => {
    const a = ev.target instanceof Element ? ev.target.closest("a[href^='#']") : null;
    if (a && dialog.contains(a)) { ev.preventDefault(); show(decodeURIComponent((a.getAttribute("href") || "#").slice(1))); }
  });
  dialog.addEventListener("click", (ev) => { if (ev.target === dialog) dialog.close(); }); // a click on the backdrop
  document.body.append(dialog);
  onLangChange(() => { if (dialog.open) fill(); });
  return built;
}

/** Show the rule or section `anchor` (its id; null or none there: the top).
 * @param {string | null} anchor */
function show(anchor) {
  wanted = anchor;
  const { dialog, text } = build();
  for (const x of text.querySelectorAll(".target")) x.classList.remove("target");
  const target = anchor ? text.querySelector(`[id="${CSS.escape(anchor)}"]`) : null;
  if (target) {
    target.classList.add("target");
    target.scrollIntoView({ block: "start" });
  } else text.scrollTop = 0;
  dialog.dataset.rule = target && anchor ? anchor : "";
}

async function fill() {
  const l = lang();
  const { dialog: d, title, page, close, toc, text } = build();
  title.textContent = T("rulesDialogTitle");
  page.textContent = T("rulesAsPage");
  page.href = url(`/rules?lang=${l}`) + (wanted ? `#${wanted}` : "");
  close.setAttribute("aria-label", T("close"));
  if (shownLang !== l) {
    text.replaceChildren(el("p", { text: T("rulesLoading") }));
    d.dataset.loaded = "";
    let data;
    try {
      data = await rules(l);
    } catch (e) {
      text.replaceChildren(el("p", { text: T("rulesFailed") }));
      return;
    }
    text.innerHTML = data.html; // the server's rendering of docs/rules.md (the /rules page's text)
    turnBox(text);
    toc.setAttribute("aria-label", T("rulesContents"));
    const turn = data.toc.find((x) => x.anchor === TURN);
    toc.replaceChildren(...(turn ? [el("a", { href: `#${TURN}`, title: turn.title, class: "rules-toc-turn" }, T("rulesTurn"))] : []),
      ...data.toc.filter((x) => /^R\d+$/.test(x.anchor)).map((x) =>
        el("a", { href: `#${x.anchor}`, title: x.title }, x.anchor)));
    shownLang = l;
    d.dataset.loaded = l;
  }
  show(wanted);
}

/** The turn in a few sentences, the first thing the dialog shows: its heading and text
 * framed as one box, before the full rules and their sources.
 * @param {HTMLElement} text */
function turnBox(text) {
  const h = text.querySelector(`h2[id="${TURN}"]`);
  if (!h) return;
  const box = el("section", { class: "rules-turn", id: "rules-turn" });
  h.before(box);
  /** @type {Element | null} */
  let n = h;
  while (n && !(n !== h && /^H[12]$/.test(n.tagName))) {
    /** @type {Element | null} */
    const next = n.nextElementSibling;
    box.append(n);
    n = next;
  }
}

/** Open the rules dialog in the page's language at rule `rule` ("R4.3"; none: the top).
 * @param {string | null} [rule] */
export function openRule(rule) {
  const d = build().dialog;
  wanted = rule || null;
  if (!d.open) d.showModal();
  return fill();
}

/** Turn every rule number ("R4.3") in the text nodes of `node` into a link opening it.
 * @param {Node | null} node */
export function linkRules(node) {
  if (!node) return;
  const walker = document.createTreeWalker(node, NodeFilter.SHOW_TEXT);
  /** @type {Text[]} */
  const hits = [];
  for (let t = walker.nextNode(); t; t = walker.nextNode()) {
    if (!(t instanceof Text) || (t.parentElement && t.parentElement.closest("a, button, [data-rule]"))) continue;
    RULE.lastIndex = 0;
    if (RULE.test(t.data)) hits.push(t);
  }
  for (const t of hits) {
    /** @type {(string | HTMLAnchorElement)[]} */
    const parts = [];
    let pos = 0;
    RULE.lastIndex = 0;
    for (let m = RULE.exec(t.data); m; m = RULE.exec(t.data)) {
      if (m.index > pos) parts.push(t.data.slice(pos, m.index));
      parts.push(ruleLink(m[0]));
      pos = m.index + m[0].length;
    }
    if (pos < t.data.length) parts.push(t.data.slice(pos));
    t.replaceWith(...parts);
  }
}

/** A link to one rule: it opens the dialog there (and, opened in a new tab, the rules page).
 * @param {string} rule @param {string} [label] the link's words (else the rule's number) */
export function ruleLink(rule, label) {
  return el("a", { class: "rule-link", href: url(`/rules?lang=${lang()}#${rule}`), "data-rule": rule, title: T("rulesShow", { rule }) }, label || rule);
}

document.addEventListener("click", (ev) => {
  const a = ev.target instanceof Element ? ev.target.closest("a[data-rule]") : null;
  if (!a || ev.button !== 0 || ev.ctrlKey || ev.metaKey || ev.shiftKey) return; // a new tab: the rules page
  if (built && built.dialog.contains(a)) return;
  ev.preventDefault();
  openRule(a.getAttribute("data-rule"));
});

/** Keep the rule numbers in `node` linked as its text changes (the refusal line of a page).
 * @param {Node | null} node */
export function keepRulesLinked(node) {
  if (!node) return;
  linkRules(node);
  new MutationObserver(() => linkRules(node)).observe(node, { childList: true, characterData: true, subtree: true });
}

// the refusal line of the game page: "Refused: R4.3: …" links to R4.3
keepRulesLinked(findId("msg")); // the game page has one; the others import this module too
