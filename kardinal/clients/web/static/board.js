// The board of a game: its data as GET /api/board?id=<board id> gives it (sites, countries with
// their names and colours, cards, roads, alliances, the map layout), and its names in the
// page's language. Nothing here knows a particular board: everything comes from the data.

import { lang, placeName } from "./i18n.js";
import { getJSON } from "./net.js";
/** @import { AllianceData, BoardData } from "./messages.js" */

const NEUTRAL = "#e8e0d0"; // a country the data gives no colour

export class Board {
  /** @param {BoardData} data */
  constructor(data) {
    this.data = data;
    this.id = data.id || data.name;
    this.kinds = new Map(data.cards.map((k) => [k.id, k]));
    this.countries = new Map(data.countries.map((c) => [c.id, c]));
    this.sites = new Map(data.sites.map((s) => [s.id, s]));
  }

  /** @param {string} cid */
  colour(cid) { const c = this.countries.get(cid); return (c && c.colour) || NEUTRAL; }

  /** @param {string} cid */
  countryName(cid) {
    const c = this.countries.get(cid);
    if (!c) return cid;
    return (lang() === "en" ? c.name_en : placeName(c.name_de)) || c.name_de || cid;
  }

  /** @param {string} sid */
  siteName(sid) {
    const s = this.sites.get(sid);
    return s ? placeName(s.name, s.name_en) : sid;
  }

  /** @param {string} sid */
  siteCountry(sid) { const s = this.sites.get(sid); return s ? s.country : null; }

  /** A card kind by its countries: "Frankreich/Lothringen" (a joker pair is two such cards).
   * @param {string} kid */
  cardName(kid) {
    const k = this.kinds.get(kid);
    return k ? k.countries.map((c) => this.countryName(c)).join("/") : kid;
  }

  /** The board file's short code of a kind (for records and the terminal; the page shows names).
   * @param {string} kid */
  cardShort(kid) { const k = this.kinds.get(kid); return k ? k.short : kid; }

  /** @param {string} kid */
  cardCountries(kid) { const k = this.kinds.get(kid); return k ? k.countries : []; }

  /** @param {AllianceData} a */
  allianceName(a) { return `${a.number}: ${a.countries.map((c) => this.countryName(c)).join("–")}`; }

  /** "2× Franken/Lothringen, Bayern/Burgund": a {kind: count} pile by its countries' names (no codes).
   * @param {Record<string, number> | null | undefined} counts */
  pileText(counts) {
    return Object.entries(counts || {}).filter(([, n]) => n > 0).map(([k, n]) => (n > 1 ? `${n}× ` : "") + this.cardName(k)).join(", ");
  }
}

/** @type {Map<string, Promise<Board>>} board id -> the board, loaded once per page */
const loaded = new Map();

/** The board with this id (once per page); undefined: the server's default board.
 * @param {string} [id]
 * @returns {Promise<Board>} */
export function loadBoard(id) {
  const key = id || "";
  if (!loaded.has(key)) {
    const url = id ? `/api/board?id=${encodeURIComponent(id)}` : "/api/board";
    const p = getJSON(url).then((data) => new Board(data));
    p.catch(() => loaded.delete(key)); // a failed load may be tried again
    loaded.set(key, p);
    return p;
  }
  return /** @type {Promise<Board>} */ (loaded.get(key)); // has(key) above
}
