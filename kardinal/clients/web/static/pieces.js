// The pieces as SVG: a cloister is a little church, an advisor a standing figure, both in
// the player's colour with a dark outline and the player's mark (dom.js PLAYER_MARKS), so
// two players are told apart by colour and by shape. The map draws its pieces with these,
// and the animations move copies of them.

import { svg, playerColour, playerMark, markInk, PIECE_OUTLINE } from "./dom.js";

/** A seat's mark (circle, square, ...) of size s centred on (x, y).
 * @param {number} seat @param {number} x @param {number} y @param {number} s */
export function markGlyph(seat, x, y, s) {
  const ink = markInk(seat);
  const r = s / 2;
  const attrs = { fill: ink, class: "mark", "data-mark": playerMark(seat) };
  switch (playerMark(seat)) {
    case "circle": return svg("circle", Object.assign(attrs, { cx: x, cy: y, r: r * 0.85 }));
    case "square": return svg("rect", Object.assign(attrs, { x: x - r * 0.8, y: y - r * 0.8, width: r * 1.6, height: r * 1.6 }));
    case "triangle": return svg("path", Object.assign(attrs, { d: `M${x},${y - r} L${x + r},${y + r * 0.8} L${x - r},${y + r * 0.8} Z` }));
    case "diamond": return svg("path", Object.assign(attrs, { d: `M${x},${y - r * 1.1} L${x + r},${y} L${x},${y + r * 1.1} L${x - r},${y} Z` }));
    default: { // star
      const p = [];
      for (let k = 0; k < 10; k++) {
        const a = -Math.PI / 2 + (k * Math.PI) / 5, rr = k % 2 ? r * 0.45 : r * 1.1;
        p.push(`${(x + rr * Math.cos(a)).toFixed(2)},${(y + rr * Math.sin(a)).toFixed(2)}`);
      }
      return svg("path", Object.assign(attrs, { d: `M${p.join(" L")} Z` }));
    }
  }
}

// A church of about 24 x 22 px around (0, 0): nave with a pitched roof, a tower with a spire.
const CHURCH = "M-11,10 V-1 L-4,-7 L3,-1 V-9 L6.5,-16 L10,-9 V10 Z";

/** A cloister of this seat, its door at (x, y) + a little below.
 * @param {number} seat @param {number} x @param {number} y */
export function cloisterGlyph(seat, x, y) {
  const g = svg("g", { class: `piece cloister seat-${seat}`, transform: `translate(${x},${y}) scale(1.15)`, "pointer-events": "none" });
  g.append(svg("path", { d: CHURCH, fill: playerColour(seat), stroke: PIECE_OUTLINE, "stroke-width": 1.6, "stroke-linejoin": "round" }));
  g.append(svg("path", { d: "M3,-1 V10", stroke: PIECE_OUTLINE, "stroke-width": 1, fill: "none" }));
  g.append(markGlyph(seat, -4, 3.5, 7));
  return g;
}

// A figure of about 12 x 17 px: a head and a bell-shaped robe.
const FIGURE = "M-5.5,8 Q-6,1 -2.6,-1.5 A4,4 0 1 1 2.6,-1.5 Q6,1 5.5,8 Z";

/** An advisor of this seat standing at (x, y) (the middle of its robe).
 * @param {number} seat @param {number} x @param {number} y */
export function advisorGlyph(seat, x, y) {
  const g = svg("g", { class: `piece advisor pip seat-${seat}`, transform: `translate(${x},${y})`, "pointer-events": "none" });
  g.append(svg("path", { d: FIGURE, fill: playerColour(seat), stroke: PIECE_OUTLINE, "stroke-width": 1.3, "stroke-linejoin": "round" }));
  g.append(markGlyph(seat, 0, 4, 5));
  return g;
}

/** An empty place for an advisor under the limit.
 * @param {number} x @param {number} y */
export function advisorSlot(x, y) {
  return svg("path", { d: FIGURE, transform: `translate(${x},${y})`, class: "slot", "pointer-events": "none" });
}
