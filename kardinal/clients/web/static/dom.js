// Small helpers to build the page: elements, SVG elements, and the players' colours and marks.

const SVGNS = "http://www.w3.org/2000/svg";

/** The seats' colours (presentation: pieces, swatches, log). */
export const PLAYER_COLOURS = Object.freeze(["#d1342f", "#2a62c9", "#2f9e44", "#e0b000", "#9b51bd"]);

/** Each seat's second cue beside its colour (red and green differ little in lightness):
 * a shape drawn on every piece and swatch. */
export const PLAYER_MARKS = Object.freeze(["circle", "square", "triangle", "diamond", "star"]);
const MARK_CHARS = { circle: "●", square: "■", triangle: "▲", diamond: "◆", star: "★" };

/** The dark outline every piece has: it, not the player's colour, carries the 3:1 contrast
 * against the light country fills (WCAG 1.4.11 lets the boundary give the contrast). */
export const PIECE_OUTLINE = "#1b1b1b";

export function playerColour(seat) { return PLAYER_COLOURS[seat % PLAYER_COLOURS.length]; }

export function playerMark(seat) { return PLAYER_MARKS[seat % PLAYER_MARKS.length]; }

/** The colour a seat's mark is drawn in on its own colour: white, or dark on yellow. */
export function markInk(seat) { return playerColour(seat) === "#e0b000" ? "#1b1b1b" : "#ffffff"; }

export function byId(id) { return document.getElementById(id); }

/** An HTML element: attrs (null/false/undefined left out; onclick a listener; text its text), then children. */
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
export function fill(box, ...children) {
  box.replaceChildren(...children.filter((c) => c !== null && c !== undefined));
  return box;
}

/** An SVG element with attributes. */
export function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

/** A round swatch in a seat's colour with the seat's mark on it. */
export function swatch(seat) {
  return el("span", { class: "swatch", "data-mark": playerMark(seat), style: `background:${playerColour(seat)};color:${markInk(seat)}`, "aria-hidden": "true" },
    MARK_CHARS[playerMark(seat)]);
}
