// The map: draws a board (its layout and colours from the board data) and a view on it
// (cloisters, advisors, limits, the last placement), and marks what the selection can
// still reach. Clicks go to the handlers it is given.

import { svg, playerColour } from "./dom.js";
import { T } from "./i18n.js";
import { placeSites, placeAdvisors } from "./selection.js";

/** The sites and the country (if advisors went there) of the last placement in a view's history. */
export function lastPlacement(view) {
  const h = view.history || [];
  for (let i = h.length - 1; i >= 0; i--) {
    const a = h[i].action;
    if (a && a.act === "place") return { sites: new Set(placeSites(a)), country: placeAdvisors(a) ? a.country : null };
  }
  return { sites: new Set(), country: null };
}

export class GameMap {
  /** handlers: onCountry(cid), onSite(sid), onCoat(cid). */
  constructor(root, board, handlers) {
    this.root = root;
    this.board = board;
    this.handlers = handlers;
    this.siteEls = new Map();
    this.coatEls = new Map();
    this.countryEls = new Map();
    this.build();
  }

  build() {
    const B = this.board.data;
    const m = this.root;
    m.replaceChildren();
    m.setAttribute("viewBox", `0 0 ${B.width} ${B.height}`);
    m.dataset.board = this.board.id;
    m.append(svg("rect", { x: 0, y: 0, width: B.width, height: B.height, class: "sea" }));

    const regions = svg("g", { class: "regions" });
    for (const c of B.countries) {
      const g = svg("g", { class: "country", "data-country": c.id });
      const fill = this.board.colour(c.id);
      for (const sid of c.sites) {
        const pts = this.board.sites.get(sid).cell.map((p) => p.join(",")).join(" ");
        g.append(svg("polygon", { points: pts, fill, stroke: fill, "stroke-width": 1.5 }));
      }
      g.addEventListener("click", () => this.handlers.onCountry(c.id));
      regions.append(g);
      this.countryEls.set(c.id, g);
    }
    m.append(regions);

    const roads = svg("g", { class: "roads" });
    for (const [a, b] of B.roads) {
      const sa = this.board.sites.get(a), sb = this.board.sites.get(b);
      const [x1, y1] = sa.xy, [x2, y2] = sb.xy;
      roads.append(svg("line", { x1, y1, x2, y2, class: sa.country === sb.country ? "road" : "road border" }));
    }
    m.append(roads);

    const al = svg("g", { class: "alliances" });
    for (const a of B.alliances) {
      const g = svg("g", { class: "alliance " + a.across, "data-alliance": a.number });
      g.append(svg("title", {}));
      // a thin line to each of the two coats shows what a marker across the sea joins
      if (a.across === "sea") for (const cid of a.countries) {
        const [cx, cy] = this.board.countries.get(cid).coat;
        g.append(svg("line", { x1: a.xy[0], y1: a.xy[1], x2: cx, y2: cy, class: "alliance-link" }));
      }
      g.append(svg("circle", { cx: a.xy[0], cy: a.xy[1], r: 11, class: "alliance-dot" }));
      const tx = svg("text", { x: a.xy[0], y: a.xy[1] + 4, class: "alliance-num" });
      tx.textContent = a.number;
      g.append(tx);
      al.append(g);
    }
    m.append(al);
    this.allianceGroup = al;

    const coats = svg("g", { class: "coats" });
    for (const c of B.countries) {
      const [x, y] = c.coat;
      const g = svg("g", { class: "coat", "data-coat": c.id, role: "button", transform: `translate(${x},${y})` });
      g.append(svg("title", {}));
      g.append(svg("path", { d: "M-17,-20 H17 V0 Q17,16 0,24 Q-17,16 -17,0 Z", class: "shield" }));
      g.append(svg("text", { x: 0, y: -25, class: "country-name", "data-name": c.id }));
      g.append(svg("g", { class: "pips" }));
      g.append(svg("text", { x: 0, y: 20, class: "limit" }));
      g.addEventListener("click", (ev) => { ev.stopPropagation(); this.handlers.onCoat(c.id); });
      coats.append(g);
      this.coatEls.set(c.id, g);
    }
    m.append(coats);

    const sites = svg("g", { class: "sites" });
    for (const s of B.sites) {
      const [x, y] = s.xy;
      const g = svg("g", { class: "site", "data-site": s.id, role: "button" });
      g.append(svg("circle", { cx: x, cy: y, r: 7, class: "spot" }));
      const [lx, ly, anchor] = s.label || [x + 9, y + 4, "start"];
      g.append(svg("text", { x: lx, y: ly, class: "site-name", "text-anchor": anchor }));
      g.addEventListener("click", (ev) => { ev.stopPropagation(); this.handlers.onSite(s.id); });
      sites.append(g);
      this.siteEls.set(s.id, g);
    }
    m.append(sites);
  }

  /** Show a view: pieces, names in the page's language, advisor limits, the last placement. */
  update(view) {
    const B = this.board;
    this.root.setAttribute("aria-label", T("map"));
    const last = lastPlacement(view);
    for (const [sid, g] of this.siteEls) {
      const owner = view.sites[sid];
      const spot = g.querySelector(".spot");
      spot.setAttribute("fill", owner === undefined ? "#fff" : playerColour(owner));
      spot.setAttribute("r", owner === undefined ? 6 : 8);
      const name = B.siteName(sid);
      g.querySelector(".site-name").textContent = name;
      g.setAttribute("aria-label", name);
      g.classList.toggle("taken", owner !== undefined);
      g.classList.toggle("last", last.sites.has(sid));
    }
    for (const [cid, g] of this.coatEls) {
      const name = B.countryName(cid);
      g.classList.toggle("last", last.country === cid);
      g.querySelector(".country-name").textContent = name;
      const pips = g.querySelector(".pips");
      pips.replaceChildren();
      const adv = view.advisors[cid] || [];
      let k = 0;
      adv.forEach((n, seat) => {
        for (let j = 0; j < n; j++, k++) {
          const col = k % 4, row = Math.floor(k / 4);
          pips.append(svg("rect", { x: -14 + col * 7.5, y: -17 + row * 7.5, width: 6, height: 6, fill: playerColour(seat), class: "pip" }));
        }
      });
      const total = adv.reduce((a, b) => a + b, 0);
      const limit = T("advisorLimit", { a: total, m: view.advisor_limit[cid] });
      g.querySelector(".limit").textContent = `${total}/${view.advisor_limit[cid]}`;
      g.setAttribute("aria-label", `${T("coatOfArms", { country: name })}: ${limit}`);
      g.querySelector("title").textContent = `${name}: ${limit}`;
    }
    for (const g of this.allianceGroup.children) {
      const a = this.board.data.alliances.find((x) => String(x.number) === g.getAttribute("data-alliance"));
      g.querySelector("title").textContent = B.allianceName(a);
    }
  }

  /** Mark what the selection can still reach (Selection.targets()) and what it holds. */
  highlight(targets, sel) {
    for (const [cid, g] of this.countryEls) {
      g.classList.toggle("legal", targets.countries.has(cid) && !sel.country);
      g.classList.toggle("chosen", sel.country === cid);
      g.classList.toggle("dim", targets.any && !targets.countries.has(cid));
    }
    for (const [sid, g] of this.siteEls) {
      g.classList.toggle("legal", targets.sites.has(sid));
      g.classList.toggle("selected", sel.sites.includes(sid));
    }
    for (const [cid, g] of this.coatEls) {
      g.classList.toggle("legal", targets.coats.has(cid));
      g.classList.toggle("selected", sel.country === cid && sel.advisors > 0);
    }
  }
}

/** The Zoom button of narrow windows: the whole map, or the map enlarged and panned in its frame. */
export function initZoom(button, wrap) {
  const label = () => {
    const zoomed = wrap.classList.contains("zoomed");
    button.textContent = zoomed ? T("zoomOut") : T("zoomIn");
    button.setAttribute("aria-pressed", zoomed ? "true" : "false");
  };
  button.addEventListener("click", () => {
    const cx = (wrap.scrollLeft + wrap.clientWidth / 2) / wrap.scrollWidth;
    const cy = (wrap.scrollTop + wrap.clientHeight / 2) / wrap.scrollHeight;
    wrap.classList.toggle("zoomed");
    wrap.scrollLeft = cx * wrap.scrollWidth - wrap.clientWidth / 2; // keep the middle in the middle
    wrap.scrollTop = cy * wrap.scrollHeight - wrap.clientHeight / 2;
    label();
  });
  return label;
}
