// Hand and selection: what the player has chosen so far (cards, a country, cloister sites,
// advisors), always among the legal moves the server sent. Nothing here knows the rules:
// a choice is possible exactly when some legal move contains it.

/** @import { PlaceAction, RecordAction } from "./messages.js" */

/** @param {string[]} cards */
function key(cards) { return cards.slice().sort().join(","); }

/** Whether the multiset `big` contains the multiset `small`.
 * @param {string[]} big @param {string[]} small */
function contains(big, small) {
  const b = big.slice();
  for (const x of small) { const i = b.indexOf(x); if (i < 0) return false; b.splice(i, 1); }
  return true;
}

/** @param {PlaceAction} a */
export function placeSites(a) { return a.pieces.flatMap((p) => (p.type === "cloister" ? [p.site] : [])); }
/** @param {PlaceAction} a */
export function placeAdvisors(a) { return a.pieces.filter((p) => p.type === "advisor").length; }

/** @param {RecordAction} a @returns {a is PlaceAction} */
function isPlace(a) { return a.act === "place"; }

export class Selection {
  /** legal(): the record actions this page may send now ([] when it may not act).
   * @param {() => RecordAction[]} legal */
  constructor(legal) {
    this.legal = legal;
    // set by clear():
    /** @type {string[]} the cards chosen, in order */ this.cards;
    /** @type {string | null} */ this.country;
    /** @type {string[]} the cloister sites chosen */ this.sites;
    /** @type {number} the advisors placed */ this.advisors;
    this.clear();
  }

  clear() {
    this.cards = [];
    this.country = null;
    this.sites = [];
    this.advisors = 0;
  }

  get empty() { return this.cards.length === 0; }

  places() { return this.legal().filter(isPlace); }

  /** The placements that agree with the selection so far. */
  matches() {
    const k = key(this.cards);
    return this.places().filter((a) => key(a.cards) === k && (!this.country || a.country === this.country)
      && contains(placeSites(a), this.sites) && placeAdvisors(a) >= this.advisors);
  }

  /** The placement the selection names exactly, or null. */
  exact() {
    return this.matches().find((a) => placeSites(a).length === this.sites.length && placeAdvisors(a) === this.advisors) || null;
  }

  /** The exchanges of the one selected card. */
  exchanges() {
    if (this.cards.length !== 1) return [];
    return this.legal().filter((a) => a.act === "exchange" && a.discard === this.cards[0]);
  }

  /** @param {string} kid */
  canAddCard(kid) {
    const want = this.cards.concat([kid]);
    return this.legal().some((a) => (a.act === "place" && contains(a.cards, want)) || (a.act === "exchange" && want.length === 1 && a.discard === kid));
  }

  /** Select one more card of this kind (false: no legal move uses it with the others).
   * @param {string} kid */
  addCard(kid) {
    if (!this.canAddCard(kid)) return false;
    this.cards.push(kid);
    this.country = null; this.sites = []; this.advisors = 0;
    return true;
  }

  /** @param {string} kid */
  removeCard(kid) {
    const i = this.cards.lastIndexOf(kid);
    if (i >= 0) this.cards.splice(i, 1);
    this.country = null; this.sites = []; this.advisors = 0;
  }

  /** Choose the country (a click on its land); false if no placement goes there.
   * @param {string} cid */
  chooseCountry(cid) {
    if (!this.matches().some((a) => a.country === cid)) return false;
    if (this.country !== cid) { this.country = cid; this.sites = []; this.advisors = 0; }
    return true;
  }

  /** A click on a site of country `cid`: unselect it, or select it (false: no placement allows it).
   * @param {string} sid @param {string | null | undefined} cid */
  toggleSite(sid, cid) {
    if (this.sites.includes(sid)) {
      this.sites = this.sites.filter((x) => x !== sid);
      return true;
    }
    const want = this.sites.concat([sid]);
    if (!this.matches().some((a) => a.country === cid && contains(placeSites(a), want))) return false;
    this.country = cid ?? null;
    this.sites.push(sid);
    return true;
  }

  /** A click on a coat of arms: one more advisor there, or one fewer once none more fits; false if neither.
   * @param {string} cid */
  clickCoat(cid) {
    if (this.matches().some((a) => a.country === cid && placeAdvisors(a) > this.advisors)) {
      this.country = cid;
      this.advisors += 1;
      return true;
    }
    if (this.advisors && this.country === cid) { this.advisors -= 1; return true; }
    return false;
  }

  /** One step back (Escape): the last advisor, else the last site, else the country, else
   * the last card; false when nothing is chosen. */
  back() {
    if (this.advisors) { this.advisors -= 1; return true; }
    if (this.sites.length) { this.sites.pop(); return true; }
    if (this.country) { this.country = null; return true; }
    if (this.cards.length) { this.removeCard(this.cards[this.cards.length - 1]); return true; }
    return false;
  }

  /** The draw or exchange that takes from `source` (a display card's kind, or "deck"), or null.
   * @param {string} source */
  takeFrom(source) {
    /** @param {RecordAction} a */
    const same = (a) => (a.act === "draw" || a.act === "exchange") && (source === "deck" ? a.from === "deck" : a.card === source);
    return this.legal().find((a) => a.act === "draw" && same(a)) || this.exchanges().find(same) || null;
  }

  /** Whether taking from `source` is possible now.
   * @param {string} source */
  canTake(source) { return this.takeFrom(source) !== null; }

  /** What the map should mark: countries, sites and coats a click can still add. */
  targets() {
    const M = this.cards.length ? this.matches() : [];
    const countries = new Set(M.map((a) => a.country));
    const sites = new Set();
    const coats = new Set();
    for (const a of M) {
      for (const s of placeSites(a)) if (!this.sites.includes(s)) sites.add(s);
      if (placeAdvisors(a) > this.advisors) coats.add(a.country);
    }
    return { any: M.length > 0, countries, sites, coats };
  }
}
