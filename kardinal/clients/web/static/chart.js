// A small line chart in SVG: a value over time with its band of uncertainty (the rating on a
// profile). Accessible: the picture has a title and a description naming the first, last,
// lowest and highest values, and the numbers follow as a table (folded away) for those who
// do not see the picture. It scales to its box (a phone's width too): a viewBox, no pixels.

import { el, svg } from "./dom.js";

const W = 640;
const H = 240;
const PAD = { left: 70, right: 14, top: 14, bottom: 34 };

/** A point of the line: y at x, and its band from lo to hi (both or neither).
 * @typedef {{ x: number, y: number, lo?: number, hi?: number }} ChartPoint */

/** The caller's texts: the picture's title and description, a value as text (full: in the
 * table, else on the axis), the table's column headers and its summary.
 * @typedef {object} ChartOptions
 * @property {string} [id]
 * @property {string} title
 * @property {string} desc
 * @property {(x: number, full?: boolean) => string} xText
 * @property {(y: number, full?: boolean) => string} yText
 * @property {[string, string, string]} headers
 * @property {string} tableTitle
 */

/** Round "nice" ticks between lo and hi (about n of them).
 * @param {number} lo @param {number} hi @param {number} n
 * @returns {number[]} */
function ticks(lo, hi, n) {
  const span = hi - lo || 1;
  const raw = span / n;
  const mag = 10 ** Math.floor(Math.log10(raw));
  const step = [1, 2, 5, 10].map((k) => k * mag).find((s) => s >= raw) || raw;
  const out = [];
  for (let v = Math.ceil(lo / step) * step; v <= hi + 1e-9; v += step) out.push(v);
  return out;
}

/**
 * A line chart of points [{x, y, lo, hi}] in x order (lo/hi: the band, may be absent).
 * opts: {id, title, desc, xText(x), yText(y), headers: [x, y, band]} — the texts are the
 * caller's (translated). Returns a <figure>.
 * @param {ChartPoint[]} points
 * @param {ChartOptions} opts
 * @returns {HTMLElement}
 */
export function lineChart(points, opts) {
  const id = opts.id || "chart";
  const fig = el("figure", { class: "chart", id });
  const pic = svg("svg", { viewBox: `0 0 ${W} ${H}`, role: "img", "aria-labelledby": `${id}-title ${id}-desc`, preserveAspectRatio: "xMidYMid meet" });
  const title = svg("title", { id: `${id}-title` });
  title.textContent = opts.title;
  const desc = svg("desc", { id: `${id}-desc` });
  desc.textContent = opts.desc;
  pic.append(title, desc);
  const xs = points.map((p) => p.x);
  const ys = points.flatMap((p) => [p.y, p.lo ?? p.y, p.hi ?? p.y]);
  let [x0, x1] = [Math.min(...xs), Math.max(...xs)];
  if (x0 === x1) { x0 -= 1; x1 += 1; }
  let [y0, y1] = [Math.min(...ys), Math.max(...ys)];
  const margin = (y1 - y0) * 0.08 || 1;
  y0 -= margin; y1 += margin;
  const px = (/** @type {number} */ x) => PAD.left + ((x - x0) / (x1 - x0)) * (W - PAD.left - PAD.right);
  const py = (/** @type {number} */ y) => H - PAD.bottom - ((y - y0) / (y1 - y0)) * (H - PAD.top - PAD.bottom);
  const axis = svg("g", { class: "chart-axis", "aria-hidden": "true" });
  for (const v of ticks(y0, y1, 4)) {
    axis.append(svg("line", { x1: PAD.left, x2: W - PAD.right, y1: py(v), y2: py(v), class: "chart-grid" }));
    const t = svg("text", { x: PAD.left - 6, y: py(v) + 5, "text-anchor": "end" });
    t.textContent = opts.yText(v);
    axis.append(t);
  }
  const ends = points.length > 1 ? [points[0], points[points.length - 1]] : [points[0]];
  ends.forEach((p, i) => {
    const t = svg("text", { x: px(p.x), y: H - 6, "text-anchor": points.length > 1 ? (i === 0 ? "start" : "end") : "middle" });
    t.textContent = opts.xText(p.x);
    axis.append(t);
  });
  pic.append(axis);
  if (points.some((p) => p.lo !== undefined)) {
    const top = points.map((p) => `${px(p.x)},${py(p.hi ?? p.y)}`);
    const bottom = points.map((p) => `${px(p.x)},${py(p.lo ?? p.y)}`).reverse();
    pic.append(svg("polygon", { points: [...top, ...bottom].join(" "), class: "chart-band", "aria-hidden": "true" }));
  }
  pic.append(svg("polyline", { points: points.map((p) => `${px(p.x)},${py(p.y)}`).join(" "), class: "chart-line", "aria-hidden": "true" }));
  for (const p of points) pic.append(svg("circle", { cx: px(p.x), cy: py(p.y), r: 4, class: "chart-dot", "aria-hidden": "true" }));
  const [hx, hy, hb] = opts.headers;
  const table = el("table", { class: "chart-table" },
    el("thead", {}, el("tr", {}, el("th", { scope: "col", text: hx }), el("th", { scope: "col", text: hy }), el("th", { scope: "col", text: hb }))),
    el("tbody", {}, ...points.map((p) => el("tr", {}, el("td", { text: opts.xText(p.x, true) }), el("td", { text: opts.yText(p.y, true) }),
      el("td", { text: p.lo !== undefined ? `${opts.yText(p.lo, true)} – ${opts.yText(p.hi ?? p.y, true)}` : "" })))));
  fig.append(pic, el("details", { class: "chart-numbers" }, el("summary", { text: opts.tableTitle }), table));
  return fig;
}
