// The home page's picture of the board: the map drawn from the board data (as the game page
// draws it, map.js, but still: no buttons, no tab stops), with a few cloisters and advisors
// on it as in a game under way. One image for assistive technology, named by its caption.

import { svg } from "./dom.js";
import { cloisterGlyph, advisorGlyph } from "./pieces.js";
/** @import { Board } from "./board.js" */
/** @import { SiteData } from "./messages.js" */

/** An SVG path through the points [x, y] (close: back to the first).
 * @param {number[][]} pts @param {boolean} [close] */
const path = (pts, close) => (pts.length ? "M" + pts.map((p) => `${p[0]},${p[1]}`).join(" L") + (close ? " Z" : "") : "");
const SHIELD = "M-27,-27 H27 V4 Q27,24 0,35 Q-27,24 -27,4 Z";

/** A piece drawn at (0, 0), moved to (x, y) and enlarged (the picture is small on the screen).
 * @param {SVGElement} piece @param {number} x @param {number} y @param {number} k */
function big(piece, x, y, k) {
  const g = svg("g", { transform: `translate(${x},${y}) scale(${k})` });
  g.append(piece);
  return g;
}

/** A site the board's data names (its countries, its roads): always among its sites.
 * @param {Board} board @param {string} sid @returns {SiteData} */
function site(board, sid) {
  const s = board.sites.get(sid);
  if (!s) throw new Error(`the board has no site ${sid}`);
  return s;
}

/** Draw `board` (board.js Board) into the <svg> `root`.
 * @param {SVGSVGElement} root @param {Board} board */
export function drawBoardPicture(root, board) {
  const B = board.data;
  root.replaceChildren();
  root.setAttribute("viewBox", `0 0 ${B.width} ${B.height}`);
  root.dataset.board = board.id;
  root.append(svg("rect", { x: 0, y: 0, width: B.width, height: B.height, class: "sea", fill: B.sea || "#35648c" }));
  const coast = (B.coast || []).map((/** @type {number[][]} */ p) => path(p)).join(" ");
  root.append(svg("path", { d: coast, class: "shallows" }));
  for (const c of B.countries) {
    const fill = board.colour(c.id);
    if (c.region) root.append(svg("path", { d: c.region.map((r) => path(r, true)).join(" "), fill, "fill-rule": "evenodd" }));
    else for (const sid of c.sites) root.append(svg("polygon", { points: site(board, sid).cell.map((p) => p.join(",")).join(" "), fill }));
  }
  root.append(svg("path", { d: (B.borders || []).map((/** @type {number[][]} */ p) => path(p)).join(" "), class: "border-line" }));
  root.append(svg("path", { d: coast, class: "coast-line" }));
  for (const [a, b] of B.roads) {
    const sa = site(board, a), sb = site(board, b);
    root.append(svg("line", { x1: sa.xy[0], y1: sa.xy[1], x2: sb.xy[0], y2: sb.xy[1], class: sa.country === sb.country ? "road" : "road border" }));
  }
  // a game under way: every fourth site a cloister of one of four players, and in each
  // country as many advisors of its strongest player as that player's cloisters allow (R4.8)
  /** @type {Map<string, number>} site id -> the seat of its cloister */
  const owners = new Map();
  B.sites.forEach((s, k) => { if (k % 4 === 1) owners.set(s.id, (k >> 2) % 4); });
  for (const c of B.countries) {
    const [x, y] = c.coat;
    const g = svg("g", { transform: `translate(${x},${y})`, class: "coat" });
    g.append(svg("path", { d: SHIELD, class: "shield", fill: board.colour(c.id) }));
    const counts = [0, 0, 0, 0];
    for (const sid of c.sites) { const o = owners.get(sid); if (o !== undefined) counts[o] += 1; }
    const most = Math.max(...counts);
    const seat = counts.indexOf(most);
    const shown = Math.min(most, 3);
    for (let j = 0; j < shown; j++) g.append(big(advisorGlyph(seat, 0, 0), (j - (shown - 1) / 2) * 17, -3, 1.4));
    root.append(g);
  }
  for (const s of B.sites) {
    const [x, y] = s.xy;
    const o = owners.get(s.id);
    if (o !== undefined) root.append(big(cloisterGlyph(o, 0, 0), x, y, 1.6));
    else root.append(svg("circle", { cx: x, cy: y, r: 8, class: "spot" }));
  }
}
