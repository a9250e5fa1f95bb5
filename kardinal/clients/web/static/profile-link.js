// A link to a player's profile (/player/<name>), for the pages that name accounts.

import { el } from "./dom.js";
import { url } from "./net.js";

/** @param {string} name @param {Record<string, string>} [attrs] */
export function profileLink(name, attrs = {}) {
  return el("a", { href: url(`/player/${encodeURIComponent(name)}`), class: "player-link", ...attrs }, name);
}
