// What opens opens where the player is looking. On a phone the side panel scrolls under
// the hand, which stays held at its top (style.css), so a refusal, a hint or the scoring
// walk-through added to the panel can be out of sight, or under the hand: inView(node)
// scrolls the panel (and, if need be, the page) until the node's top is just below the held
// hand, or all of it is seen. It never scrolls what is already in view.

/** The height of what stays stuck at the top of the scrolling `side` (the held hand), unless `node` is in it.
 * @param {Element} side @param {Element} node */
function heldHeight(side, node) {
  let h = 0;
  for (const c of side.children) {
    if (c === node || c.contains(node)) continue;
    const st = getComputedStyle(c);
    if (st.position === "sticky" && st.top !== "auto" && c instanceof HTMLElement && c.offsetHeight) h = Math.max(h, c.getBoundingClientRect().bottom - side.getBoundingClientRect().top);
  }
  return Math.max(0, h);
}

/** Bring `node` into view: inside the side panel below its held hand, else as the browser does.
 * @param {Element | null | undefined} node */
export function inView(node) {
  if (!node || !node.isConnected) return;
  const side = node.closest("#side");
  if (!side || side.scrollHeight <= side.clientHeight) {
    node.scrollIntoView({ block: "nearest" });
    return;
  }
  const s = side.getBoundingClientRect();
  const held = heldHeight(side, node);
  const top = s.top + held, bottom = s.top + side.clientHeight;
  const r = node.getBoundingClientRect();
  if (r.top < top) side.scrollTop -= top - r.top;
  else if (r.bottom > bottom) side.scrollTop += Math.min(r.bottom - bottom, r.top - top);
  // the panel itself on the screen (a short window)
  const again = side.getBoundingClientRect();
  if (again.bottom > innerHeight || again.top < 0) side.scrollIntoView({ block: "nearest" });
}
