// The map's zoom: the map fits its frame (zoom 1: the whole board) or is enlarged up to
// MAX times and panned inside the frame by its scroll bars, a finger or the keyboard's
// focus. The frame (#mapwrap) scrolls natively; this module sets the SVG's size in pixels.
//   touch: pinch with two fingers, double tap on the sea or the land (not on a site or a
//          coat of arms); while a card is chosen, a tap where sites or coats of arms lie
//          closer than TARGET px on the screen zooms in first and chooses nothing (not on a
//          coat of arms drawn SHIELD px wide or more: one tap chooses it)
//   mouse: Ctrl + wheel (a touchpad's pinch); keyboard on the map: + and -
//   buttons: "Enlarge map" / "Whole map", and + / − beside it
// It also tells the SVG how many of its units make one screen pixel (--u), so the sizes
// the style sheet gives in screen pixels (names, spots, touch areas) hold at every zoom.

import { T, addStrings } from "./i18n.js";

addStrings({
  en: { zoomMore: "Zoom in", zoomLess: "Zoom out" },
  de: { zoomMore: "Näher heran", zoomLess: "Weiter weg" },
  da: { zoomMore: "Zoom ind", zoomLess: "Zoom ud" },
});

/** The smallest touch target in CSS pixels, and the spacing below which a tap zooms first. */
export const TARGET = 44;
/** The largest zoom: the closest two sites of the standard board 44 px apart on a phone. */
export const MAX = 8;
/** A coat of arms this wide on the screen (px) is chosen by one tap, however near the sites are. */
const SHIELD = 30;
const NAMES_FROM = 0.55; // site names are drawn from this many screen px per map unit on

/** @param {number} x @param {number} lo @param {number} hi */
const clamp = (x, lo, hi) => Math.max(lo, Math.min(hi, x));

export class MapZoom {
  /** wrap: the scrolling frame; svg: the map; buttons: {toggle, more, less} (optional);
   * selecting(): whether a tap on the map would choose something now.
   * @param {HTMLElement} wrap @param {SVGSVGElement} svg
   * @param {{ toggle?: HTMLButtonElement, more?: HTMLButtonElement, less?: HTMLButtonElement }} [buttons]
   * @param {() => boolean} [selecting] */
  constructor(wrap, svg, buttons, selecting) {
    this.wrap = wrap;
    this.svg = svg;
    this.buttons = buttons || {};
    this.selecting = selecting || (() => false);
    this.z = 1;
    this.pinch = null;
    this.lastTap = null;
    this.swallowUntil = 0; // a click before then ends a pinch or a double tap
    this.pointer = "mouse";
    if (window.matchMedia && window.matchMedia("(any-pointer: coarse)").matches) svg.classList.add("touch");
    new ResizeObserver(() => this.apply()).observe(wrap);
    new MutationObserver(() => this.apply()).observe(svg, { attributes: true, attributeFilter: ["viewBox"] });
    svg.addEventListener("pointerdown", (ev) => {
      this.pointer = ev.pointerType || "mouse";
      if (this.pointer !== "mouse") svg.classList.add("touch");
    }, true);
    window.addEventListener("touchstart", () => { this.swallowUntil = 0; }, { capture: true, passive: true }); // a new gesture
    wrap.addEventListener("touchstart", (ev) => this.touchStart(ev), { passive: false });
    wrap.addEventListener("touchmove", (ev) => this.touchMove(ev), { passive: false });
    wrap.addEventListener("touchend", (ev) => this.touchEnd(ev));
    wrap.addEventListener("touchcancel", () => { this.pinch = null; });
    wrap.addEventListener("wheel", (ev) => {
      if (!ev.ctrlKey) return;
      ev.preventDefault();
      this.zoomAt(this.z * Math.exp(-ev.deltaY / 300), ev.clientX, ev.clientY);
    }, { passive: false });
    svg.addEventListener("click", (ev) => this.click(ev), true);
    const b = this.buttons;
    if (b.toggle) b.toggle.addEventListener("click", () => (this.z > 1 ? this.whole() : this.zoomAt(2.5)));
    if (b.more) b.more.addEventListener("click", () => this.zoomAt(this.z * 1.6));
    if (b.less) b.less.addEventListener("click", () => this.zoomAt(this.z / 1.6));
    this.apply();
  }

  /** The map's size in its own units (its viewBox), or null before it is drawn. */
  units() {
    const vb = this.svg.viewBox && this.svg.viewBox.baseVal;
    return vb && vb.width ? { w: vb.width, h: vb.height } : null;
  }

  /** Screen pixels per map unit now. */
  scale() {
    const u = this.units();
    return u ? this.svg.getBoundingClientRect().width / u.w : 1;
  }

  /** Size the SVG for the zoom: at 1 the whole map inside the frame. */
  apply() {
    const u = this.units();
    const W = this.wrap.clientWidth, H = this.wrap.clientHeight;
    if (!u || !W || !H) return;
    const fit = Math.min(W / u.w, H / u.h);
    const s = fit * this.z;
    this.svg.style.width = `${Math.floor(u.w * s)}px`; // whole pixels: at zoom 1 the frame never scrolls
    this.svg.style.height = `${Math.floor(u.h * s)}px`;
    this.svg.style.setProperty("--u", String(1 / s));
    this.svg.classList.toggle("far", s < NAMES_FROM);
    this.svg.dataset.zoom = this.z.toFixed(2);
    this.wrap.classList.toggle("zoomed", this.z > 1.001);
    this.labels();
  }

  labels() {
    const b = this.buttons;
    const zoomed = this.z > 1.001;
    if (b.toggle) {
      b.toggle.textContent = zoomed ? T("zoomOut") : T("zoomIn");
      b.toggle.setAttribute("aria-pressed", zoomed ? "true" : "false");
    }
    if (b.more) { b.more.setAttribute("aria-label", T("zoomMore")); b.more.title = T("zoomMore"); b.more.disabled = this.z >= MAX - 0.001; }
    if (b.less) { b.less.setAttribute("aria-label", T("zoomLess")); b.less.title = T("zoomLess"); b.less.disabled = !zoomed; }
  }

  /** Zoom to z keeping the map point under the screen point (x, y) there (default: the frame's middle).
   * @param {number} z @param {number} [x] @param {number} [y] */
  zoomAt(z, x, y) {
    const wr = this.wrap.getBoundingClientRect();
    if (x === undefined || y === undefined) { x = wr.left + this.wrap.clientWidth / 2; y = wr.top + this.wrap.clientHeight / 2; }
    const r = this.svg.getBoundingClientRect();
    const fx = (x - r.left) / r.width, fy = (y - r.top) / r.height;
    this.z = clamp(z, 1, MAX);
    this.apply();
    this.keep(fx, fy, x, y);
  }

  /** Scroll so that the map's fraction (fx, fy) is at the screen point (x, y).
   * @param {number} fx @param {number} fy @param {number} x @param {number} y */
  keep(fx, fy, x, y) {
    const r = this.svg.getBoundingClientRect();
    this.wrap.scrollLeft += r.left + fx * r.width - x;
    this.wrap.scrollTop += r.top + fy * r.height - y;
  }

  whole() { this.z = 1; this.apply(); this.wrap.scrollLeft = 0; this.wrap.scrollTop = 0; }

  /** Scroll so that a map element's middle is in the frame's middle (as far as the map goes).
   * @param {Element} node */
  centre(node) {
    const r = node.getBoundingClientRect(), w = this.wrap.getBoundingClientRect();
    this.wrap.scrollLeft += r.left + r.width / 2 - (w.left + this.wrap.clientWidth / 2);
    this.wrap.scrollTop += r.top + r.height / 2 - (w.top + this.wrap.clientHeight / 2);
  }

  /** Bring a map element into the frame (the keyboard's focus on an enlarged map).
   * @param {Element} node */
  reveal(node) {
    const r = node.getBoundingClientRect(), w = this.wrap.getBoundingClientRect();
    const m = 24;
    if (r.left < w.left + m) this.wrap.scrollLeft -= w.left + m - r.left;
    else if (r.right > w.left + this.wrap.clientWidth - m) this.wrap.scrollLeft += r.right - (w.left + this.wrap.clientWidth - m);
    if (r.top < w.top + m) this.wrap.scrollTop -= w.top + m - r.top;
    else if (r.bottom > w.top + this.wrap.clientHeight - m) this.wrap.scrollTop += r.bottom - (w.top + this.wrap.clientHeight - m);
  }

  // ------------------------------------------------------------ touch

  /** @param {TouchEvent} ev */
  touchStart(ev) {
    if (ev.touches.length === 2) {
      ev.preventDefault();
      const [a, b] = ev.touches;
      const x = (a.clientX + b.clientX) / 2, y = (a.clientY + b.clientY) / 2;
      const r = this.svg.getBoundingClientRect();
      this.pinch = { d: Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY) || 1, z: this.z, fx: (x - r.left) / r.width, fy: (y - r.top) / r.height };
      this.lastTap = null;
    } else if (ev.touches.length === 1) {
      const t = ev.touches[0];
      this.start = { x: t.clientX, y: t.clientY, moved: false };
    }
  }

  /** @param {TouchEvent} ev */
  touchMove(ev) {
    if (this.pinch && ev.touches.length === 2) {
      ev.preventDefault();
      const [a, b] = ev.touches;
      const d = Math.hypot(a.clientX - b.clientX, a.clientY - b.clientY);
      this.z = clamp(this.pinch.z * d / this.pinch.d, 1, MAX);
      this.apply();
      this.keep(this.pinch.fx, this.pinch.fy, (a.clientX + b.clientX) / 2, (a.clientY + b.clientY) / 2);
      this.swallowUntil = performance.now() + 400; // no click at the end of a pinch
    } else if (this.start && ev.touches.length === 1) {
      const t = ev.touches[0];
      if (Math.hypot(t.clientX - this.start.x, t.clientY - this.start.y) > 10) this.start.moved = true;
    }
  }

  /** A double tap on the sea or the land zooms in there (at the largest zoom: the whole map).
   * @param {TouchEvent} ev */
  touchEnd(ev) {
    if (this.pinch) { if (ev.touches.length < 2) this.pinch = null; return; }
    if (ev.touches.length || !this.start || this.start.moved || ev.changedTouches.length !== 1) { this.lastTap = null; return; }
    const t = ev.changedTouches[0];
    const onPiece = ev.target instanceof Element && ev.target.closest("[data-site], [data-coat]");
    const now = ev.timeStamp;
    const prev = this.lastTap;
    this.lastTap = onPiece ? null : { x: t.clientX, y: t.clientY, at: now };
    if (!onPiece && prev && now - prev.at < 450 && Math.hypot(t.clientX - prev.x, t.clientY - prev.y) < 30) {
      this.lastTap = null;
      this.swallowUntil = performance.now() + 400;
      ev.preventDefault();
      if (this.z >= MAX - 0.001) this.whole();
      else this.zoomAt(this.z * 2, t.clientX, t.clientY);
    }
  }

  /** Before a click reaches the map: swallow the one ending a pinch or a double tap, and
   * zoom in first where a finger cannot tell the targets apart.
   * @param {MouseEvent} ev */
  click(ev) {
    if (performance.now() < this.swallowUntil) { this.swallowUntil = 0; ev.stopPropagation(); ev.preventDefault(); return; }
    if (this.pointer === "mouse" || !this.selecting()) return;
    if (this.onShield(ev)) return; // a coat of arms a finger covers: that coat, at once
    const near = this.crowded(ev.clientX, ev.clientY);
    if (near && this.z < MAX - 0.001) {
      ev.stopPropagation();
      ev.preventDefault();
      this.zoomAt(this.z * clamp((TARGET + 6) / near, 1.5, MAX), ev.clientX, ev.clientY);
      this.svg.dispatchEvent(new CustomEvent("map-zoomed", { bubbles: true }));
    }
  }

  /** Whether the tap is on a coat of arms drawn at least SHIELD px wide on the screen: a
   * site's touch area never reaches onto a coat (map.js), so the tap means that coat.
   * @param {MouseEvent} ev */
  onShield(ev) {
    const coat = ev.target instanceof Element && ev.target.closest("[data-coat]");
    const shield = coat && coat.querySelector(".shield");
    if (!shield) return false;
    const r = shield.getBoundingClientRect();
    return Math.min(r.width, r.height) >= SHIELD;
  }

  /** The screen distance between the target nearest to (x, y) and its nearest neighbour,
   * when that target lies within TARGET px of the point and the neighbour closer than TARGET to it; else 0.
   * @param {number} x @param {number} y */
  crowded(x, y) {
    const pts = [...this.svg.querySelectorAll("[data-site] .spot, [data-coat] .shield")].map((n) => {
      const r = n.getBoundingClientRect();
      return [r.left + r.width / 2, r.top + r.height / 2];
    });
    let best = null, bd = Infinity;
    for (const p of pts) { const d = Math.hypot(p[0] - x, p[1] - y); if (d < bd) { bd = d; best = p; } }
    if (!best || bd > TARGET) return 0;
    let nd = Infinity;
    for (const p of pts) if (p !== best) nd = Math.min(nd, Math.hypot(p[0] - best[0], p[1] - best[1]));
    return nd < TARGET ? nd : 0;
  }
}
