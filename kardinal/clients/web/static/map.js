// The map: draws a board (its shapes, coast and colours from the board data, mapdata.py) and
// a view on it (cloisters, advisors, limits, the last placement), and marks what the
// selection can still reach. Clicks go to the handlers it is given. Every element explains
// itself in a small popup: on hover with a mouse, on tap when nothing is selected (a tap
// with cards selected plays, as a click does).

import { svg, el, playerColour } from "./dom.js";
import { T, addStrings, listText } from "./i18n.js";
import { placeSites, placeAdvisors } from "./selection.js";
import { cloisterGlyph, advisorGlyph, advisorSlot, markGlyph } from "./pieces.js";
/** @import { AllianceData, HistoryEntry } from "./messages.js" */
/** @import { Board } from "./board.js" */
/** @import { MapZoom } from "./zoom.js" */

/**
 * What the map shows of a game's view (rules/view.py): each taken site's owner, each
 * country's advisors per seat and its limit (R4.8), and the history (the last placement).
 * @typedef {object} MapView
 * @property {Record<string, number>} sites
 * @property {Record<string, number[]>} advisors
 * @property {Record<string, number>} advisor_limit
 * @property {HistoryEntry[] | null} [history]
 */

/** Who would score each alliance if the game ended now (the state message's standing).
 * @typedef {{ alliances?: { number: number, holders: number[], points: number }[] }} MapStanding */

/** What the map's clicks go to; name(seat): a seat's name in the popups.
 * @typedef {object} MapHandlers
 * @property {(cid: string) => void} onCountry
 * @property {(sid: string) => void} onSite
 * @property {(cid: string) => void} onCoat
 * @property {(seat: number) => string} [name]
 */

/** What a choice can still reach (Selection.targets()).
 * @typedef {{ any: boolean, sites: Set<string>, coats: Set<string>, countries: Set<string> }} MapTargets */

/** A popup's contents. @typedef {() => (Node | string)[]} MapInfo */

/** A site, coat of arms, country or alliance of the map, with what it explains and does (explain()).
 * @typedef {SVGGElement & { _info?: MapInfo, _act?: (() => void) | null }} MapItem */

addStrings({
  en: {
    mapFreeSite: "Free cloister site",
    mapCloisterOf: "Cloister of {name}",
    mapSiteIn: "in {country}",
    mapCoatTitle: "Coat of arms of {country}",
    mapNoAdvisors: "No advisors yet.",
    mapAdvisorsOf: "{name}: {n}",
    mapLimitNone: "No cloister stands here yet, so no advisor may come (R4.8).",
    mapLimitIs: "At most {m} advisors, {a} placed: the most cloisters one player has here is {m} (R4.8).",
    mapAllianceTitle: "Alliance {n}: {a} and {b}",
    mapBySea: "across the sea",
    mapOverLand: "over land",
    mapAllianceRule: "Whoever holds the advisor majority in both countries scores it at the end (R10).",
    mapAllianceNow: "If the game ended now: {who} — {p} points each.",
    mapAllianceNowOne: "If the game ended now: {who} — {p} points.",
    mapAllianceNobody: "If the game ended now, nobody would score it.",
    mapLegend: "Key",
    mapLegendCloister: "cloister",
    mapLegendAdvisor: "advisor",
    mapLegendSite: "free cloister site",
    mapLegendLand: "alliance over land",
    mapLegendSea: "alliance across the sea",
    mapName: "Map of the board",
    mapHelp: "Arrow keys: from site to site along the roads, or within a country; Page Down and Page Up: the next or previous place you can choose now; Enter or Space: choose; Escape: back one step; + and -: zoom.",
    a11ySite: "{site}, {country}: {state}",
    a11yFree: "free",
    a11yCloisterOf: "cloister of {name}",
    a11yCoat: "{country} {a}/{m}: coat of arms; advisors: {who}; at most {m}",
    a11yNobody: "none",
    a11yChosen: "chosen",
    a11yAdvisorsChosen: "{n} advisors chosen",
    a11yCanChoose: "can be chosen",
  },
  de: {
    mapFreeSite: "Freies Klosterfeld",
    mapCloisterOf: "Kloster von {name}",
    mapSiteIn: "in {country}",
    mapCoatTitle: "Wappen von {country}",
    mapNoAdvisors: "Noch keine Räte.",
    mapAdvisorsOf: "{name}: {n}",
    mapLimitNone: "Hier steht noch kein Kloster, also darf noch kein Rat hierher (R4.8).",
    mapLimitIs: "Höchstens {m} Räte, {a} gesetzt: Die meisten Klöster einer Person hier sind {m} (R4.8).",
    mapAllianceTitle: "Bündnis {n}: {a} und {b}",
    mapBySea: "über See",
    mapOverLand: "über Land",
    mapAllianceRule: "Wer in beiden Ländern die Räte-Mehrheit hat, wertet es am Ende (R10).",
    mapAllianceNow: "Endete das Spiel jetzt: {who} — je {p} Punkte.",
    mapAllianceNowOne: "Endete das Spiel jetzt: {who} — {p} Punkte.",
    mapAllianceNobody: "Endete das Spiel jetzt, wertete es niemand.",
    mapLegend: "Legende",
    mapLegendCloister: "Kloster",
    mapLegendAdvisor: "Rat",
    mapLegendSite: "freies Klosterfeld",
    mapLegendLand: "Bündnis über Land",
    mapLegendSea: "Bündnis über See",
    mapName: "Karte des Spielbretts",
    mapHelp: "Pfeiltasten: von Feld zu Feld entlang der Straßen oder innerhalb eines Landes; Bild ab und Bild auf: der nächste oder vorige Ort, den du jetzt wählen kannst; Eingabe oder Leertaste: wählen; Escape: einen Schritt zurück; + und -: zoomen.",
    a11ySite: "{site}, {country}: {state}",
    a11yFree: "frei",
    a11yCloisterOf: "Kloster von {name}",
    a11yCoat: "{country} {a}/{m}: Wappen; Räte: {who}; höchstens {m}",
    a11yNobody: "keine",
    a11yChosen: "gewählt",
    a11yAdvisorsChosen: "{n} Räte gewählt",
    a11yCanChoose: "wählbar",
  },
  da: {
    mapFreeSite: "Ledigt klosterfelt",
    mapCloisterOf: "Kloster tilhørende {name}",
    mapSiteIn: "i {country}",
    mapCoatTitle: "Våbenskjold for {country}",
    mapNoAdvisors: "Ingen rådmænd endnu.",
    mapAdvisorsOf: "{name}: {n}",
    mapLimitNone: "Her står endnu intet kloster, så ingen rådmand må komme hertil (R4.8).",
    mapLimitIs: "Højst {m} rådmænd, {a} sat: flest klostre, som én spiller har her, er {m} (R4.8).",
    mapAllianceTitle: "Sammenslutning {n}: {a} og {b}",
    mapBySea: "over havet",
    mapOverLand: "over land",
    mapAllianceRule: "Den, der har flertal af rådmænd i begge lande, får point for den ved slutningen (R10).",
    mapAllianceNow: "Hvis spillet sluttede nu: {who} — {p} point hver.",
    mapAllianceNowOne: "Hvis spillet sluttede nu: {who} — {p} point.",
    mapAllianceNobody: "Hvis spillet sluttede nu, ville ingen få point for den.",
    mapLegend: "Forklaring",
    mapLegendCloister: "kloster",
    mapLegendAdvisor: "rådmand",
    mapLegendSite: "ledigt klosterfelt",
    mapLegendLand: "sammenslutning, land",
    mapLegendSea: "sammenslutning, hav",
    mapName: "Kort over spillepladen",
    mapHelp: "Piletaster: fra felt til felt langs vejene eller inden for et land; Page Down og Page Up: det næste eller forrige sted, du kan vælge nu; Enter eller mellemrum: vælg; Escape: et skridt tilbage; + og -: zoom.",
    a11ySite: "{site}, {country}: {state}",
    a11yFree: "ledigt",
    a11yCloisterOf: "kloster tilhørende {name}",
    a11yCoat: "{country} {a}/{m}: våbenskjold; rådmænd: {who}; højst {m}",
    a11yNobody: "ingen",
    a11yChosen: "valgt",
    a11yAdvisorsChosen: "{n} rådmænd valgt",
    a11yCanChoose: "kan vælges",
  },
});

/** The sites and the country (if advisors went there) of the last placement in a view's history.
 * @param {{ history?: HistoryEntry[] | null }} view
 * @returns {{ sites: Set<string>, country: string | null }} */
export function lastPlacement(view) {
  const h = view.history || [];
  for (let i = h.length - 1; i >= 0; i--) {
    const a = h[i].action;
    if (a && a.act === "place") return { sites: new Set(placeSites(a)), country: placeAdvisors(a) ? a.country : null };
  }
  return { sites: new Set(), country: null };
}

/** An SVG path through the points [x, y] (close: back to the first).
 * @param {number[][]} pts @param {boolean} [close] */
const path = (pts, close) => (pts.length ? "M" + pts.map((p) => `${p[0]},${p[1]}`).join(" L") + (close ? " Z" : "") : "");

/** A site the board's data names (its countries, its roads): always among its sites.
 * @param {Board} board @param {string} sid */
function siteOf(board, sid) {
  const s = board.sites.get(sid);
  if (!s) throw new Error(`the board has no site ${sid}`);
  return s;
}

/** A part build() made in a map element (.building, .pips, .limit, ...).
 * @param {Element} g @param {string} selector @returns {SVGElement} */
function part(g, selector) {
  const e = g.querySelector(selector);
  if (!(e instanceof SVGElement)) throw new Error(`the map element has no ${selector}`);
  return e;
}

const SHIELD = "M-27,-27 H27 V4 Q27,24 0,35 Q-27,24 -27,4 Z";

/**
 * What the player has chosen so far (selection.js), as the map marks it.
 * @typedef {{ sites: string[], country: string | null, advisors: number, cards?: string[] }} MapChoice
 */

/** @type {MapChoice} nothing chosen */
const NO_CHOICE = Object.freeze({ sites: [], country: null, advisors: 0 });

export class GameMap {
  /** handlers: onCountry(cid), onSite(sid), onCoat(cid), and optionally name(seat) for the popups. */
  /** The map's name for screen readers, in the page's language, before the board is drawn
   * (the page's HTML names it in English until then).
   * @param {Element} root */
  static label(root) {
    root.setAttribute("aria-label", T("mapName"));
  }

  /** @param {HTMLElement | SVGSVGElement} root the map's <svg> (the pages find it by byId, an HTMLElement to the checker)
   * @param {Board} board @param {MapHandlers} handlers */
  constructor(root, board, handlers) {
    this.root = root;
    this.board = board;
    this.handlers = handlers;
    /** @type {Map<string, MapItem>} */
    this.siteEls = new Map();
    /** @type {Map<string, MapItem>} */
    this.coatEls = new Map();
    /** @type {Map<string, MapItem>} */
    this.countryEls = new Map();
    /** @type {MapView | null} */
    this.view = null;
    /** @type {MapStanding | null} */
    this.standing = null;
    this.selecting = false;
    this.pointer = "mouse";
    /** @type {{ any: boolean, sites: Set<string>, coats: Set<string> } | null} the latest highlight(): what a choice can still reach */
    this.targets = null;
    /** @type {MapChoice | null} */
    this.sel = null;
    /** @type {MapZoom | null} set by the page: the keyboard's focus is kept in the frame */
    this.zoom = null;
    /** @type {MapItem | null} the one map element the Tab key stops at */
    this.roving = null;
    /** @type {{ info: MapInfo, g: MapItem } | null} the popup shown, and over what */
    this.shown = null;
    // made by build():
    /** @type {SVGGElement} */ this.allianceGroup;
    /** @type {SVGGElement} */ this.fxLayer;
    /** @type {HTMLElement} the explanation shown over the map */ this.popup;
    /** @type {HTMLElement} */ this.help;
    /** @type {MapItem[]} the sites and coats of arms, one roving tab stop */ this.items;
    /** @type {Map<string, Set<string>>} each site's neighbours along the roads */ this.roads;
    this.build();
  }

  /** A site's point [x, y] in SVG coordinates (for animations).
   * @param {string} sid @returns {[number, number]} */
  sitePoint(sid) { const s = this.board.sites.get(sid); return s ? [s.xy[0], s.xy[1]] : [0, 0]; }

  /** The middle of a country's coat of arms [x, y] in SVG coordinates.
   * @param {string} cid @returns {[number, number]} */
  coatPoint(cid) { const c = this.board.countries.get(cid); return c ? [c.coat[0], c.coat[1]] : [0, 0]; }

  build() {
    const B = this.board.data;
    const m = this.root;
    m.replaceChildren();
    m.setAttribute("viewBox", `0 0 ${B.width} ${B.height}`);
    // one stop in the tab order; the arrow keys move inside (keyDown)
    m.setAttribute("role", "application");
    m.setAttribute("aria-describedby", "map-help");
    m.setAttribute("tabindex", "-1"); // the Tab key stops at a site or coat of arms, not at the map itself
    m.dataset.board = this.board.id;
    const defs = svg("defs", {});
    const waves = svg("pattern", { id: "waves", width: 28, height: 14, patternUnits: "userSpaceOnUse" });
    waves.append(svg("path", { d: "M0,10 q7,-5 14,0 t14,0", class: "wave" }));
    defs.append(waves);
    m.append(defs);
    m.append(svg("rect", { x: 0, y: 0, width: B.width, height: B.height, class: "sea", fill: B.sea || "#35648c" }));
    m.append(svg("rect", { x: 0, y: 0, width: B.width, height: B.height, fill: "url(#waves)", "pointer-events": "none" }));

    const coast = (B.coast || []).map((/** @type {number[][]} */ p) => path(p)).join(" ");
    m.append(svg("path", { d: coast, class: "shallows" }));

    const regions = svg("g", { class: "regions" });
    for (const c of B.countries) {
      const g = svg("g", { class: "country", "data-country": c.id });
      const fill = this.board.colour(c.id);
      if (c.region) g.append(svg("path", { d: c.region.map((r) => path(r, true)).join(" "), fill, "fill-rule": "evenodd", class: "land" }));
      else for (const sid of c.sites) g.append(svg("polygon", { points: siteOf(this.board, sid).cell.map((p) => p.join(",")).join(" "), fill, class: "land" }));
      this.explain(g, () => this.countryInfo(c.id), () => this.handlers.onCountry(c.id), false);
      regions.append(g);
      this.countryEls.set(c.id, g);
    }
    m.append(regions);
    m.append(svg("path", { d: (B.borders || []).map((/** @type {number[][]} */ p) => path(p)).join(" "), class: "border-line" }));
    m.append(svg("path", { d: coast, class: "coast-line" }));

    const roads = svg("g", { class: "roads" });
    for (const [a, b] of B.roads) {
      const sa = siteOf(this.board, a), sb = siteOf(this.board, b);
      const [x1, y1] = sa.xy, [x2, y2] = sb.xy;
      roads.append(svg("line", { x1, y1, x2, y2, class: sa.country === sb.country ? "road" : "road border" }));
    }
    m.append(roads);

    const al = svg("g", { class: "alliances" });
    for (const a of B.alliances) {
      const g = svg("g", { class: "alliance " + a.across, "data-alliance": a.number, role: "img" });
      const [x, y] = a.xy;
      if (a.route && a.route.length === 3) { // over the sea, or between two countries that do not touch
        const [p, q, r] = a.route;
        g.append(svg("path", { d: `M${p[0]},${p[1]} L${q[0]},${q[1]} L${r[0]},${r[1]}`, class: a.across === "sea" ? "sea-route" : "land-route" }));
      }
      const [ca, cb] = a.countries.map((c) => this.board.colour(c));
      if (a.across === "sea") {
        g.append(svg("path", { d: `M${x},${y - 15} L${x + 15},${y} L${x},${y + 15} L${x - 15},${y} Z`, class: "alliance-dot" }));
        g.append(svg("path", { d: `M${x},${y - 11} L${x},${y + 11} L${x - 11},${y} Z`, fill: ca, class: "alliance-half" }));
        g.append(svg("path", { d: `M${x},${y - 11} L${x + 11},${y} L${x},${y + 11} Z`, fill: cb, class: "alliance-half" }));
      } else {
        g.append(svg("circle", { cx: x, cy: y, r: 14, class: "alliance-dot" }));
        g.append(svg("path", { d: `M${x},${y - 11} A11,11 0 0 0 ${x},${y + 11} Z`, fill: ca, class: "alliance-half" }));
        g.append(svg("path", { d: `M${x},${y - 11} A11,11 0 0 1 ${x},${y + 11} Z`, fill: cb, class: "alliance-half" }));
      }
      g.append(svg("circle", { cx: x, cy: y, r: 7.5, class: "alliance-core" }));
      const tx = svg("text", { x, y: y + 4, class: "alliance-num" });
      tx.textContent = String(a.number);
      g.append(tx);
      this.explain(g, () => this.allianceInfo(a), null, true, a.countries);
      al.append(g);
    }
    m.append(al);
    this.allianceGroup = al;

    const coats = svg("g", { class: "coats" });
    for (const c of B.countries) {
      const [x, y] = c.coat;
      const g = svg("g", { class: "coat", "data-coat": c.id, role: "button", tabindex: -1, transform: `translate(${x},${y})` });
      g.append(svg("path", { d: SHIELD, class: "shield", fill: this.board.colour(c.id) }));
      g.append(svg("path", { d: "M-22,-22 H22 V4 Q22,20 0,29 Q-22,20 -22,4 Z", class: "shield-inner" }));
      g.append(svg("text", { x: 0, y: -33, class: "country-name", "data-name": c.id, "aria-hidden": "true" }));
      g.append(svg("g", { class: "pips" }));
      g.append(svg("text", { x: 0, y: 27, class: "limit", "aria-hidden": "true" }));
      this.explain(g, () => this.coatInfo(c.id), () => this.handlers.onCoat(c.id));
      coats.append(g);
      this.coatEls.set(c.id, g);
    }
    m.append(coats);

    const sites = svg("g", { class: "sites" });
    for (const s of B.sites) {
      const [x, y] = s.xy;
      const g = svg("g", { class: "site", "data-site": s.id, role: "button", tabindex: -1 });
      // a finger is wider than the spot: on a touch screen the hit area grows to 44 px on the
      // screen (style.css), never past halfway to the next site or onto a coat of arms
      const lim = Math.max(13, Math.min(...B.sites.filter((o) => o !== s).map((o) => Math.hypot(o.xy[0] - x, o.xy[1] - y) / 2),
        ...B.countries.map((c) => Math.hypot(c.coat[0] - x, c.coat[1] - y) - 30)));
      g.append(svg("circle", { cx: x, cy: y, r: 13, class: "hit", style: `--lim:${lim.toFixed(1)}px` }));
      g.append(svg("g", { class: "building" }));
      g.append(svg("circle", { cx: x, cy: y, r: 8, class: "spot" }));
      const [lx, ly, anchor] = s.label || [x + 9, y + 4, "start"];
      g.append(svg("text", { x: lx, y: ly, class: "site-name", "text-anchor": anchor, "aria-hidden": "true" }));
      this.explain(g, () => this.siteInfo(s.id), () => this.handlers.onSite(s.id));
      sites.append(g);
      this.siteEls.set(s.id, g);
    }
    m.append(sites);

    if (B.legend) m.append(this.buildLegend(B.legend[0], B.legend[1])); // its corner [x, y] (mapdata.py)

    this.fxLayer = svg("g", { class: "fx", "pointer-events": "none" });
    m.append(this.fxLayer);

    m.addEventListener("pointerdown", (ev) => { this.pointer = (ev instanceof PointerEvent && ev.pointerType) || "mouse"; }, true);
    this.popup = el("div", { class: "map-info", role: "tooltip", hidden: true });
    const host = m.closest("#mapbox") || m.parentElement;
    if (!host) throw new Error("the map is not in the page");
    const old = host.querySelector(":scope > .map-info");
    if (old) old.remove();
    host.append(this.popup);
    m.addEventListener("click", () => this.hideInfo());
    let help = document.getElementById("map-help");
    if (!help) { help = el("p", { id: "map-help", class: "sr-only" }); host.append(help); }
    this.help = help;

    // the keyboard: the sites and coats of arms in one roving tab stop
    this.items = [...this.siteEls.values(), ...this.coatEls.values()];
    this.roads = new Map(B.sites.map((s) => [s.id, new Set()]));
    for (const [a, b] of B.roads) { this.roads.get(a)?.add(b); this.roads.get(b)?.add(a); }
    this.rove(this.siteEls.values().next().value);
    m.addEventListener("keydown", (ev) => { if (ev instanceof KeyboardEvent) this.keyDown(ev); });
    m.addEventListener("focusin", (ev) => {
      /** @type {MapItem | null} (the sites and coats of arms: explain() made them) */
      const g = ev.target instanceof Element ? ev.target.closest("[data-site], [data-coat]") : null;
      if (!g) return;
      this.rove(g);
      // the keyboard's focus, not a tap's or a click's: the element under a finger or the mouse
      // is in view already, and scrolling the frame between the press and the click would move
      // it from under the point, so that the click went to the map behind it
      const keys = g.matches(":focus-visible");
      if (this.zoom && keys) this.zoom.reveal(g);
      if (g._info && keys) this.showInfo(g._info, g);
    });
    m.addEventListener("focusout", (ev) => { if (!(ev instanceof FocusEvent && ev.relatedTarget instanceof Node && m.contains(ev.relatedTarget))) this.hideInfo(); });
  }

  /** The one map element the Tab key stops at.
   * @param {MapItem | null | undefined} g */
  rove(g) {
    if (!g || this.roving === g) return;
    if (this.roving) this.roving.setAttribute("tabindex", "-1");
    g.setAttribute("tabindex", "0");
    this.roving = g;
  }

  /** A map element's place, country and (sites) neighbours along the roads.
   * @param {Element} g */
  itemOf(g) {
    const sid = g.getAttribute("data-site");
    if (sid) return { xy: this.sitePoint(sid), country: this.board.siteCountry(sid), roads: this.roads.get(sid) || new Set(), id: sid };
    const cid = g.getAttribute("data-coat") || ""; // (not a site: a coat of arms)
    return { xy: this.coatPoint(cid), country: cid, roads: new Set(), id: cid };
  }

  /** The element an arrow key leads to from g: the nearest in that direction, along a road
   * first, then within the country, then any.
   * @param {MapItem} g @param {number} dx @param {number} dy */
  neighbour(g, dx, dy) {
    const a = this.itemOf(g);
    /** @type {MapItem | null} */
    let best = null;
    let cost = Infinity;
    for (const h of this.items) {
      if (h === g) continue;
      const b = this.itemOf(h);
      const vx = b.xy[0] - a.xy[0], vy = b.xy[1] - a.xy[1];
      const d = Math.hypot(vx, vy);
      if (!d) continue;
      const cos = (vx * dx + vy * dy) / d;
      if (cos < 0.5) continue; // within 60 degrees of the arrow
      let c = d * (2.2 - cos);
      if (a.roads.has(b.id)) c *= 0.45;
      else if (a.country === b.country) c *= 0.75;
      if (c < cost) { cost = c; best = h; }
    }
    return best;
  }

  /** The elements a choice can reach now, in the board's order (sites, then coats of arms). */
  choosable() {
    const t = this.targets;
    if (!t || !t.any) return [];
    const sel = this.sel || NO_CHOICE;
    return this.items.filter((g) => {
      const sid = g.getAttribute("data-site");
      if (sid) return t.sites.has(sid) || sel.sites.includes(sid);
      const cid = g.getAttribute("data-coat") || "";
      return t.coats.has(cid) || (sel.country === cid && sel.advisors > 0);
    });
  }

  /** @param {KeyboardEvent} ev */
  keyDown(ev) {
    /** @type {MapItem | null} (the sites and coats of arms: explain() made them) */
    const g = ev.target instanceof Element ? ev.target.closest("[data-site], [data-coat]") : null;
    if (!g || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    /** @type {Record<string, [number, number]>} */
    const dirs = { ArrowLeft: [-1, 0], ArrowRight: [1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] };
    /** @type {MapItem | null | undefined} */
    let to = null;
    if (dirs[ev.key]) to = this.neighbour(g, ...dirs[ev.key]);
    else if (ev.key === "PageDown" || ev.key === "PageUp") {
      const fwd = ev.key === "PageDown";
      const list = this.choosable().length ? this.choosable() : [...this.coatEls.values()];
      const i = list.indexOf(g);
      to = list[i < 0 ? (fwd ? 0 : list.length - 1) : (i + (fwd ? 1 : list.length - 1)) % list.length];
    } else if (ev.key === "Home") to = this.choosable()[0] || null;
    else if (ev.key === "Enter" || ev.key === " ") {
      ev.preventDefault();
      if (g._act) { this.hideInfo(); g._act(); }
      if (document.activeElement !== g && g.isConnected) g.focus();
      return;
    } else if ((ev.key === "+" || ev.key === "=") && this.zoom) { this.zoom.zoomAt(this.zoom.z * 1.6); this.zoom.reveal(g); }
    else if (ev.key === "-" && this.zoom) { this.zoom.zoomAt(this.zoom.z / 1.6); this.zoom.reveal(g); }
    else if (ev.key === "Escape") { this.hideInfo(); return; }
    else return;
    ev.preventDefault();
    if (to) to.focus();
  }

  /** The key to the map's signs, in a corner of open sea (its texts set by update()).
   * @param {number} x @param {number} y */
  buildLegend(x, y) {
    const g = svg("g", { class: "legend", transform: `translate(${x},${y})`, "pointer-events": "none" });
    g.append(svg("rect", { x: 0, y: 0, width: 196, height: 132, rx: 8, class: "legend-box" }));
    g.append(svg("text", { x: 98, y: 18, class: "legend-title", "data-text": "mapLegend" }));
    /** @param {string} k @param {number} yy @param {SVGElement} glyph */
    const row = (k, yy, glyph) => {
      g.append(glyph);
      g.append(svg("text", { x: 36, y: yy + 4, class: "legend-text", "data-text": k }));
    };
    const church = cloisterGlyph(0, 18, 36);
    church.classList.add("neutral");
    row("mapLegendCloister", 36, church);
    const fig = advisorGlyph(0, 18, 57);
    fig.classList.add("neutral");
    row("mapLegendAdvisor", 57, fig);
    row("mapLegendSite", 77, svg("circle", { cx: 18, cy: 77, r: 6, class: "legend-spot" }));
    const land = svg("g", {});
    land.append(svg("circle", { cx: 18, cy: 97, r: 9, class: "alliance-dot" }));
    const landNum = svg("text", { x: 18, y: 100.5, class: "alliance-num" });
    landNum.textContent = "n";
    land.append(landNum);
    row("mapLegendLand", 97, land);
    const sea = svg("g", { class: "legend-sea" });
    sea.append(svg("path", { d: "M18,107 L28,117 L18,127 L8,117 Z", class: "alliance-dot", transform: "translate(0,-1) scale(1)" }));
    const seaNum = svg("text", { x: 18, y: 120, class: "alliance-num" });
    seaNum.textContent = "n";
    sea.append(seaNum);
    row("mapLegendSea", 117, sea);
    return g;
  }

  /** Hover (mouse) and tap (touch, when nothing is selected) show what info() says; other clicks act.
   * @param {MapItem} g @param {MapInfo} info @param {(() => void) | null} act @param {boolean} [hover]
   * @param {string[]} [countries] */
  explain(g, info, act, hover = true, countries = []) {
    g.dataset.countries = countries.join(" ");
    g._info = info;
    g._act = act;
    if (hover) {
      g.addEventListener("pointerenter", (/** @type {PointerEvent} */ ev) => { if (ev.pointerType === "mouse") this.showInfo(info, g); });
      g.addEventListener("pointerleave", (/** @type {PointerEvent} */ ev) => { if (ev.pointerType === "mouse") this.hideInfo(); });
    }
    g.addEventListener("click", (/** @type {MouseEvent} */ ev) => {
      ev.stopPropagation();
      const touch = this.pointer === "touch" || this.pointer === "pen";
      if (!act || (touch && !this.selecting)) {
        if (this.popup.dataset.for === g.dataset.key && !this.popup.hidden) this.hideInfo();
        else this.showInfo(info, g);
        return;
      }
      this.hideInfo();
      act();
    });
    g.dataset.key = g.getAttribute("data-site") || g.getAttribute("data-coat") || g.getAttribute("data-alliance") || g.getAttribute("data-country") || "";
  }

  /** @param {MapInfo} info @param {MapItem} g */
  showInfo(info, g) {
    const p = this.popup;
    this.shown = { info, g };
    p.replaceChildren(...info());
    p.hidden = false;
    p.dataset.for = g.dataset.key;
    this.markAllies(g.dataset.countries);
    const host = (p.parentElement || this.root).getBoundingClientRect();
    const r = g.getBoundingClientRect();
    const w = p.offsetWidth, h = p.offsetHeight;
    let left = r.left + r.width / 2 - host.left - w / 2;
    let top = r.top - host.top - h - 8;
    if (top < 4) top = r.bottom - host.top + 8;
    left = Math.max(4, Math.min(left, host.width - w - 4));
    top = Math.max(4, Math.min(top, Math.max(4, host.height - h - 4)));
    p.style.left = `${left}px`;
    p.style.top = `${top}px`;
  }

  hideInfo() { this.popup.hidden = true; this.popup.dataset.for = ""; this.shown = null; this.markAllies(""); }

  /** Outline the two countries of the alliance being explained.
   * @param {string | undefined} ids */
  markAllies(ids) {
    const set = new Set((ids || "").split(" ").filter(Boolean));
    for (const [cid, g] of this.countryEls) g.classList.toggle("ally", set.has(cid));
  }

  /** @param {number} seat */
  name(seat) {
    if (this.handlers.name) return this.handlers.name(seat);
    return `${T("seat")} ${seat + 1}`;
  }

  /** A player's name after their swatch, for the popups.
   * @param {number} seat */
  who(seat) {
    const s = svg("svg", { width: 14, height: 14, viewBox: "-7 -7 14 14", class: "who" });
    s.append(svg("circle", { r: 6.5, fill: playerColour(seat), stroke: "#1b1b1b", "stroke-width": 1 }));
    s.append(markGlyph(seat, 0, 0, 7));
    return el("span", { class: "who-name" }, s, " " + this.name(seat));
  }

  /** @param {string} sid */
  siteInfo(sid) {
    const B = this.board;
    const owner = this.view ? this.view.sites[sid] : undefined;
    return [
      el("b", { text: B.siteName(sid) }), " ", el("span", { text: T("mapSiteIn", { country: B.countryName(B.siteCountry(sid) ?? "") }) }),
      el("div", {}, owner === undefined ? T("mapFreeSite") : el("span", {}, T("mapCloisterOf", { name: "" }).trim(), " ", this.who(owner))),
    ];
  }

  /** @param {string} cid */
  coatInfo(cid) {
    const B = this.board;
    const v = this.view;
    const adv = (v && v.advisors[cid]) || [];
    const a = adv.reduce((x, y) => x + y, 0);
    const m = v ? v.advisor_limit[cid] : 0;
    const rows = adv.map((n, seat) => [n, seat]).filter(([n]) => n > 0).map(([n, seat]) => el("div", {}, this.who(seat), `: ${n}`));
    return [
      el("b", { text: T("mapCoatTitle", { country: B.countryName(cid) }) }),
      ...(rows.length ? rows : [el("div", { text: T("mapNoAdvisors") })]),
      el("div", { class: "why", text: m ? T("mapLimitIs", { a, m }) : T("mapLimitNone") }),
    ];
  }

  /** @param {string} cid */
  countryInfo(cid) { return this.coatInfo(cid); }

  /** @param {AllianceData} a */
  allianceInfo(a) {
    const B = this.board;
    const [ca, cb] = a.countries.map((c) => B.countryName(c));
    const out = [
      el("b", { text: T("mapAllianceTitle", { n: a.number, a: ca, b: cb }) }), " ",
      el("span", { class: "small", text: `(${a.across === "sea" ? T("mapBySea") : T("mapOverLand")})` }),
      el("div", { class: "why", text: T("mapAllianceRule") }),
    ];
    const now = this.standing && (this.standing.alliances || []).find((x) => x.number === a.number);
    if (now) {
      if (!now.holders.length || !now.points) out.push(el("div", { text: T("mapAllianceNobody") }));
      else {
        const who = listText(now.holders.map((s) => this.name(s)));
        out.push(el("div", { class: "now", text: T(now.holders.length > 1 ? "mapAllianceNow" : "mapAllianceNowOne", { who, p: now.points }) }));
      }
    }
    return out;
  }

  /** Show a view (and, if given, who would score each alliance now): pieces, names in the page's language, limits, the last placement.
   * @param {MapView} view @param {MapStanding | null} [standing] */
  update(view, standing) {
    const B = this.board;
    this.view = view;
    if (standing !== undefined) this.standing = standing;
    this.root.setAttribute("aria-label", T("mapName"));
    this.help.textContent = T("mapHelp");
    const last = lastPlacement(view);
    for (const [sid, g] of this.siteEls) {
      const owner = view.sites[sid];
      const building = part(g, ".building");
      if (building.dataset.owner !== String(owner)) {
        building.replaceChildren();
        if (owner !== undefined) building.append(cloisterGlyph(owner, ...this.sitePoint(sid)));
        building.dataset.owner = String(owner);
      }
      const name = B.siteName(sid);
      part(g, ".site-name").textContent = name;
      g.classList.toggle("taken", owner !== undefined);
      g.classList.toggle("last", last.sites.has(sid));
    }
    for (const [cid, g] of this.coatEls) {
      const name = B.countryName(cid);
      g.classList.toggle("last", last.country === cid);
      part(g, ".country-name").textContent = name;
      const pips = part(g, ".pips");
      pips.replaceChildren();
      const adv = view.advisors[cid] || [];
      const total = adv.reduce((a, b) => a + b, 0);
      const limit = view.advisor_limit[cid];
      const slots = Math.max(total, limit);
      const perRow = slots > 8 ? 5 : 4;
      const rows = Math.max(1, Math.ceil(slots / perRow));
      /** @param {number} k @returns {[number, number]} the k-th advisor's place on the coat */
      const at = (k) => {
        const row = Math.floor(k / perRow), inRow = Math.min(perRow, slots - row * perRow);
        const step = perRow === 5 ? 10 : 12;
        return [(k % perRow - (inRow - 1) / 2) * step, -8 + (row - (rows - 1) / 2) * 19];
      };
      let k = 0;
      adv.forEach((n, seat) => { for (let j = 0; j < n; j++, k++) pips.append(advisorGlyph(seat, ...at(k))); });
      for (; k < slots; k++) pips.append(advisorSlot(...at(k)));
      part(g, ".limit").textContent = ` ${total}/${limit}`; // the space: its name reads "England 1/2" (a11yCoat)
    }
    for (const g of this.allianceGroup.children) {
      const a = this.board.data.alliances.find((x) => String(x.number) === g.getAttribute("data-alliance"));
      if (a) g.setAttribute("aria-label", B.allianceName(a)); // (build() drew one per alliance)
    }
    for (const t of this.root.querySelectorAll(".legend [data-text]")) t.textContent = T(t.getAttribute("data-text") || "");
    this.names();
    if (this.shown) this.showInfo(this.shown.info, this.shown.g); // the popup follows the game
  }

  /** The accessible names: what each site and coat of arms shows, with the choice's state. */
  names() {
    const B = this.board, v = this.view;
    if (!v) return;
    const t = this.targets || { sites: new Set(), coats: new Set() };
    const sel = this.sel || NO_CHOICE;
    for (const [sid, g] of this.siteEls) {
      const owner = v.sites[sid];
      const state = owner === undefined ? T("a11yFree") : T("a11yCloisterOf", { name: this.name(owner) });
      const extra = sel.sites.includes(sid) ? T("a11yChosen") : t.sites.has(sid) ? T("a11yCanChoose") : "";
      g.setAttribute("aria-label", T("a11ySite", { site: B.siteName(sid), country: B.countryName(B.siteCountry(sid) ?? ""), state }) + (extra ? `; ${extra}` : ""));
      if (sel.sites.includes(sid)) g.setAttribute("aria-pressed", "true"); else g.removeAttribute("aria-pressed");
    }
    for (const [cid, g] of this.coatEls) {
      const adv = v.advisors[cid] || [];
      const who = adv.map((n, seat) => [n, seat]).filter(([n]) => n > 0).map(([n, seat]) => `${this.name(seat)} ${n}`);
      const chosen = sel.country === cid && sel.advisors > 0;
      const extra = chosen ? T("a11yAdvisorsChosen", { n: sel.advisors }) : t.coats.has(cid) ? T("a11yCanChoose") : "";
      const a = adv.reduce((x, y) => x + y, 0);
      g.setAttribute("aria-label", T("a11yCoat", { country: B.countryName(cid), a, who: who.length ? who.join(", ") : T("a11yNobody"), m: v.advisor_limit[cid] })
        + (extra ? `; ${extra}` : "") + (chosen && t.coats.has(cid) ? `; ${T("a11yCanChoose")}` : ""));
    }
  }

  /** Mark what the selection can still reach (Selection.targets()) and what it holds.
   * @param {MapTargets} targets @param {MapChoice} sel */
  highlight(targets, sel) {
    this.selecting = Boolean(targets.any || (sel && (sel.cards || []).length));
    this.targets = targets;
    this.sel = sel;
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
    this.names();
    // Tab into the map lands on the first place a choice can reach
    const can = this.choosable();
    if (can.length && !this.root.contains(document.activeElement) && !(this.roving && can.includes(this.roving))) this.rove(can[0]);
  }
}
