// Small helpers to build the page: elements, SVG elements, and the players' colours and marks.

const SVGNS = "http://www.w3.org/2000/svg";

/** The seats' colours (presentation: pieces, swatches, log). */
export const PLAYER_COLOURS = Object.freeze(["#d1342f", "#2a62c9", "#2f9e44", "#e0b000", "#9b51bd"]);

/** Each seat's second cue beside its colour (red and green differ little in lightness):
 * a shape drawn on every piece and swatch. */
export const PLAYER_MARKS = Object.freeze(["circle", "square", "triangle", "diamond", "star"]);
/** @type {Record<string, string>} */
const MARK_CHARS = { circle: "●", square: "■", triangle: "▲", diamond: "◆", star: "★" };

/** The dark outline every piece has: it, not the player's colour, carries the 3:1 contrast
 * against the light country fills (WCAG 1.4.11 lets the boundary give the contrast). */
export const PIECE_OUTLINE = "#1b1b1b";

/** @param {number} seat */
export function playerColour(seat) { return PLAYER_COLOURS[seat % PLAYER_COLOURS.length]; }

/** @param {number} seat */
export function playerMark(seat) { return PLAYER_MARKS[seat % PLAYER_MARKS.length]; }

/** The colour a seat's mark is drawn in on its own colour: white, or dark on yellow. */
/** @param {number} seat */
export function markInk(seat) { return playerColour(seat) === "#e0b000" ? "#1b1b1b" : "#ffffff"; }

/**
 * The element with this id, which the page's HTML or its scripts always make: one missing
 * (or not of the `kind` asked for: HTMLInputElement, HTMLDialogElement...) is a fault, told
 * at once with its id, not as "cannot read properties of null" later.
 * @template {HTMLElement | SVGElement} [E=HTMLElement]
 * @param {string} id
 * @param {{ new (): E }} [kind]
 * @returns {E}
 */
export function byId(id, kind) {
  const e = document.getElementById(id);
  if (!e) throw new Error(`the page has no element #${id}`);
  if (kind && !(e instanceof kind)) throw new Error(`#${id} is not a ${kind.name}`);
  return /** @type {E} */ (e); // checked above when a kind is named; an HTMLElement else
}

/**
 * The page's element that the selector finds ("body > header", "main"), which it always has.
 * @param {string} selector
 */
export function pagePart(selector) {
  const e = document.querySelector(selector);
  if (!(e instanceof HTMLElement)) throw new Error(`the page has no ${selector}`);
  return e;
}

/**
 * The element with this id if the page has it now (one drawn only at times), else null.
 * @param {string} id
 */
export function findId(id) { return document.getElementById(id); }

/**
 * An HTML element: attrs (null/false/undefined left out; onclick a listener; text its text), then children.
 * @template {keyof HTMLElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, any> | null} [attrs]
 * @param {...(Node | string | null | undefined)} children
 * @returns {HTMLElementTagNameMap[K]}
 */
export function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}

/** Replace box's children with these, leaving out null and undefined (the DOM's own
 * append and replaceChildren would write them as the words "null" and "undefined"). */
/**
 * @template {Element} E
 * @param {E} box
 * @param {...(Node | string | null | undefined)} children
 * @returns {E}
 */
export function fill(box, ...children) {
  box.replaceChildren(...children.filter((c) => c !== null && c !== undefined));
  return box;
}

/** A selector that finds an element again once it is drawn anew: its id, or its tag and
 * data- attributes (a row's buttons: data-claim="game:seat") and a link's address; null
 * when it has none of these. */
/** @param {Element} e */
function focusKey(e) {
  if (e.id) return `#${CSS.escape(e.id)}`;
  const data = [...e.attributes].filter((a) => a.name.startsWith("data-") || (a.name === "href" && e.tagName === "A"));
  if (!data.length) return null;
  return e.tagName.toLowerCase() + data.map((a) => `[${a.name}="${CSS.escape(a.value)}"]`).join("");
}

/** Rebuild box with build() keeping what the reader was doing in it: the text typed into
 * its fields (by id; unless `values` is false, and password fields only when `passwords`),
 * which one had the focus and where its cursor was, and which <details> were open. A page
 * that redraws when an answer arrives would otherwise wipe a half-typed form or throw the
 * keyboard's focus away. */
/**
 * @param {HTMLElement} box
 * @param {() => void} build
 * @param {{ values?: boolean, passwords?: boolean }} [keep]
 */
export function keepInput(box, build, { values = true, passwords = true } = {}) {
  const typed = new Map();
  for (const f of values ? box.querySelectorAll("input[id], textarea[id]") : []) {
    if (!(f instanceof HTMLInputElement || f instanceof HTMLTextAreaElement)) continue;
    if (f.type === "checkbox" || f.type === "radio" || f.type === "hidden") continue;
    if (f.type === "password" && !passwords) continue;
    if (f.value !== f.defaultValue) typed.set(f.id, f.value);
  }
  const open = new Set([...box.querySelectorAll("details")].filter((d) => d.id && d.open).map((d) => d.id));
  const active = box.contains(document.activeElement) ? document.activeElement : null;
  const focused = active && focusKey(active);
  const caret = (active instanceof HTMLInputElement || active instanceof HTMLTextAreaElement) && typeof active.selectionStart === "number"
    ? [active.selectionStart, active.selectionEnd ?? active.selectionStart] : null;
  build();
  for (const [id, value] of typed) {
    const f = document.getElementById(id);
    if ((f instanceof HTMLInputElement || f instanceof HTMLTextAreaElement) && box.contains(f) && !f.disabled) f.value = value;
  }
  for (const id of open) { const d = document.getElementById(id); if (d instanceof HTMLDetailsElement && box.contains(d)) d.open = true; }
  if (focused) {
    const f = box.querySelector(focused);
    if (f instanceof HTMLElement || f instanceof SVGElement) {
      f.focus({ preventScroll: true });
      if (caret && (f instanceof HTMLInputElement || f instanceof HTMLTextAreaElement)) { try { f.setSelectionRange(caret[0], caret[1]); } catch (e) { /* not a text field */ } }
    }
  }
}

/**
 * An SVG element with attributes.
 * @template {keyof SVGElementTagNameMap} K
 * @param {K} tag
 * @param {Record<string, string | number>} [attrs]
 * @returns {SVGElementTagNameMap[K]}
 */
export function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, String(v));
  return e;
}

/** A round swatch in a seat's colour with the seat's mark on it.
 * @param {number} seat */
export function swatch(seat) {
  return el("span", { class: "swatch", "data-mark": playerMark(seat), style: `background:${playerColour(seat)};color:${markInk(seat)}`, "aria-hidden": "true" },
    MARK_CHARS[playerMark(seat)]);
}
