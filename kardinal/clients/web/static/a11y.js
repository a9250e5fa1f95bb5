// Keyboard and screen readers: the focus kept across a redraw (the page rebuilds its
// panels from every state message), and a live region that reads out what others did.

/** A way to find the focused element again after its panel is rebuilt: [selector, index]. */
export function rememberFocus() {
  const a = document.activeElement;
  if (!(a instanceof HTMLElement || a instanceof SVGElement) || a === document.body || !a.isConnected) return null;
  let sel = null;
  if (a.id) sel = `#${CSS.escape(a.id)}`;
  else if (a.dataset && a.dataset.card) {
    const zone = a.closest("[data-zone]");
    sel = (zone ? `[data-zone="${zone.getAttribute("data-zone")}"] ` : "") + `[data-card="${CSS.escape(a.dataset.card)}"]`;
  } else if (a.dataset && a.dataset.pile) sel = `[data-pile="${CSS.escape(a.dataset.pile)}"]`;
  if (!sel) return { el: a, sel: null, zone: null };
  const same = [...document.querySelectorAll(sel)];
  const zone = a.closest("section[id]");
  return { el: a, sel, index: Math.max(0, same.indexOf(a)), zone: zone ? zone.id : null };
}

/** Focus what rememberFocus() saw, or its equivalent in the rebuilt panel, or the first
 * button of the same panel (a button that went away).
 * @param {{ el: HTMLElement | SVGElement, sel: string | null, index?: number, zone: string | null } | null} f */
export function restoreFocus(f) {
  if (!f || (f.el.isConnected && document.activeElement === f.el)) return;
  if (f.el.isConnected && document.activeElement === document.body) { f.el.focus({ preventScroll: true }); return; }
  if (f.el.isConnected) return; // the focus moved on by itself
  let to = null;
  if (f.sel) {
    const same = [...document.querySelectorAll(f.sel)];
    to = same[Math.min(f.index ?? 0, same.length - 1)] || null;
    if (to && to.matches(":disabled")) to = null;
  }
  if (!to && f.zone) {
    const box = document.getElementById(f.zone);
    to = box && (box.querySelector("button:not([disabled]), [href], input, [tabindex='0']") || (box.setAttribute("tabindex", "-1"), box));
  }
  if (to instanceof HTMLElement || to instanceof SVGElement) to.focus({ preventScroll: true });
}

/** Read a line out (a polite live region, #announce; the last few lines are kept).
 * @param {string} text */
export function announce(text) {
  const r = document.getElementById("announce");
  if (!r || !text) return;
  const p = document.createElement("p");
  p.textContent = text;
  r.append(p);
  while (r.firstElementChild && r.childElementCount > 6) r.firstElementChild.remove();
}
