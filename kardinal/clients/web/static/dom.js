// Small helpers to build the page: elements, SVG elements, and the player colours.

const SVGNS = "http://www.w3.org/2000/svg";

/** The seats' colours (presentation: pieces, swatches, log). */
export const PLAYER_COLOURS = Object.freeze(["#d1342f", "#2a62c9", "#2f9e44", "#e0b000", "#8e44ad"]);

export function playerColour(seat) { return PLAYER_COLOURS[seat % PLAYER_COLOURS.length]; }

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

/** An SVG element with attributes. */
export function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}

/** A round swatch in a seat's colour. */
export function swatch(seat) {
  return el("span", { class: "swatch", style: `background:${playerColour(seat)}` });
}
