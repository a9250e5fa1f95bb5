// Cards on the table and in the hand: the display and the draw pile (to take from), the
// hand (to select from) with the Play / Clear / Pass buttons and a hint.

import { el } from "./dom.js";
import { T } from "./i18n.js";
/** @import { Board } from "./board.js" */
/** @import { Selection } from "./selection.js" */
/** @import { RecordAction } from "./messages.js" */
/** @import { ViewData } from "./game.js" */

/**
 * What the hand shows and does (renderHand): the board, the view, the selection, the
 * player's name and the hand's title; hidden: a hot-seat hand not shown yet; the handlers.
 * @typedef {object} HandContext
 * @property {Board} board
 * @property {ViewData} view
 * @property {Selection} sel
 * @property {boolean} hidden
 * @property {string} playerName
 * @property {string} title
 * @property {() => void} onReveal
 * @property {(kid: string, selected: boolean) => void} onCard
 * @property {(action: RecordAction) => void} onSend
 * @property {() => void} onClear
 */

/** A card as a button: one band per country it names, in the country's colour with its name
 * in the page's language (no codes); a card of one country is all its colour.
 * @param {Board} board @param {string} kid @param {Record<string, string | null> | null | undefined} attrs
 * @param {(() => void) | null | undefined} onclick */
export function cardEl(board, kid, attrs, onclick) {
  const name = board.cardName(kid);
  // its name is its text: the countries, as read out and as seen
  const b = el("button", Object.assign({ type: "button", class: "card", "data-card": kid, title: name, onclick }, attrs || {}));
  const cs = board.cardCountries(kid);
  b.classList.add(cs.length > 1 ? "two" : "one");
  for (const c of cs) {
    b.append(el("span", { class: "band", "data-band": c, style: `background:${board.colour(c)}` }, el("span", { class: "cname", text: board.countryName(c) })));
  }
  return b;
}

const FITTED = new Map(); // "name|width" -> the font size that fits it

/** Shrink the names on the cards in `root` until no word is wider than its band (a name
 * never breaks inside a word: "Lothringen", "Frankreich" on a phone's narrow card). Words
 * that would need less than MIN_PX still break (style.css: the .squeezed class).
 * @param {ParentNode} root */
export function fitCardNames(root) {
  const MIN_PX = 8.5;
  for (const n of root.querySelectorAll(".card .cname")) {
    if (!(n instanceof HTMLElement)) continue; // (cardEl's <span>s)
    n.style.fontSize = "";
    n.classList.remove("squeezed");
    const w = n.clientWidth;
    if (!w) continue;
    const k = `${n.textContent}|${w}|${getComputedStyle(n).fontSize}`;
    let size = FITTED.get(k);
    if (size === undefined) {
      size = parseFloat(getComputedStyle(n).fontSize);
      while (n.scrollWidth > n.clientWidth && size > MIN_PX) {
        size -= 0.5;
        n.style.fontSize = `${size}px`;
      }
      if (n.scrollWidth > n.clientWidth) size = 0;
      FITTED.set(k, size);
    }
    if (size) n.style.fontSize = `${size}px`;
    else { n.style.fontSize = ""; n.classList.add("squeezed"); }
  }
}

/** The display, the draw pile, the discard pile and the cards removed at setup.
 * @param {HTMLElement} box
 * @param {{ board: Board, view: ViewData, sel: Selection, onTake: (source: string) => void }} ctx */
export function renderTable(box, { board, view, sel, onTake }) {
  const disp = el("div", { class: "display", "data-zone": "display" });
  for (const kid of view.display) {
    disp.append(cardEl(board, kid, { class: "card" + (sel.canTake(kid) ? " legal" : "") }, () => onTake(kid)));
  }
  const pile = el("button", { type: "button", class: "pile" + (sel.canTake("deck") ? " legal" : ""), "data-pile": "deck", onclick: () => onTake("deck") },
    el("span", { class: "pile-title", text: T("drawPile") }), el("span", { class: "pile-count", text: T("cardsLeft", { n: view.deck_size }) }));
  box.replaceChildren(
    el("div", { class: "tablerow" }, el("div", {}, el("h2", { text: T("display") }), disp), el("div", {}, el("h2", { text: T("drawPile") }), pile)),
    el("p", { class: "small" }, el("b", { text: T("discard") + ": " }), el("span", { "data-zone": "discard", text: board.pileText(view.discard) || "–" }),
      el("span", { text: "  ·  " + T("removed") + ": " + (board.pileText(view.removed) || "–") + (view.final_round ? "  ·  " + T("round") : "") })));
  fitCardNames(box);
}

/**
 * The hand of the seat this page plays (nothing for a spectator or in a replay).
 * ctx: board, view, sel (Selection), acting (may act now), playerName, hidden (hot-seat:
 * the hand is not shown yet), title, and the handlers onReveal, onCard(kid, selected),
 * onSend(action), onClear.
 * @param {HTMLElement} box @param {HandContext} ctx
 */
export function renderHand(box, ctx) {
  const { board, view, sel } = ctx;
  box.replaceChildren();
  if (ctx.hidden) {
    box.append(el("button", { type: "button", class: "big", id: "reveal", onclick: ctx.onReveal }, T("showHand", { name: ctx.playerName })));
    return;
  }
  box.append(el("h2", { text: ctx.title }));
  const hand = el("div", { class: "hand", "data-zone": "hand" });
  /** @type {Record<string, number>} */
  const selCount = {};
  for (const k of sel.cards) selCount[k] = (selCount[k] || 0) + 1;
  const L = sel.legal();
  const cards = view.hand || {}; // (a seat's view: the page draws no hand without one)
  for (const k of Object.keys(cards).sort()) {
    for (let j = 0; j < cards[k]; j++) {
      const selected = j < (selCount[k] || 0);
      const can = selected || sel.canAddCard(k);
      hand.append(cardEl(board, k, { class: "card" + (selected ? " selected" : "") + (can && L.length ? " legal" : ""), "aria-pressed": selected ? "true" : "false" },
        () => ctx.onCard(k, selected)));
    }
  }
  box.append(hand);
  const ex = sel.exact();
  const buttons = el("div", { class: "buttons" });
  if (L.some((a) => a.act === "place" || a.act === "exchange")) {
    buttons.append(el("button", { type: "button", id: "play", disabled: ex ? null : true, onclick: () => ex && ctx.onSend(ex) }, T("play")));
    buttons.append(el("button", { type: "button", id: "clear", disabled: sel.cards.length ? null : true, onclick: ctx.onClear }, T("clear")));
  }
  const pass = L.find((a) => a.act === "pass");
  if (pass) buttons.append(el("button", { type: "button", id: "pass", onclick: () => ctx.onSend(pass) }, T("pass")));
  box.append(buttons);
  let hint = "";
  if (sel.cards.length) {
    const M = sel.matches();
    if (ex) hint = T("readyToPlay");
    else if (M.length && !sel.country) hint = T("chooseCountry");
    else if (M.length) hint = T("choosePieces");
    if (sel.exchanges().length && !sel.sites.length && !sel.advisors) hint = (hint ? hint + " " : "") + T("chooseTake");
  }
  box.append(el("p", { class: "hint", text: hint }));
  fitCardNames(box);
}
