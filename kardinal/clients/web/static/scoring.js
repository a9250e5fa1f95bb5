// The scorings as events: an overlay that walks through the intermediate or the final
// scoring on the map, step by step — each country (its ranking and points, R9), each
// alliance (both countries, the majorities, who qualifies, R10), the chains (the scoring
// paths drawn over the map, R11) — and ends in the totals per player and the standings
// with the tie-break (R12), with "Play again" after the final scoring.
//
// A finished game's page keeps its result: the final table (places, points, the winner)
// with "Play again", "New game" and the walk-through offered (renderFinal), whether the
// walk-through was walked, skipped or never opened.
//
// The details come from GET /api/games/{id}/scoring (kardinal.rules.breakdown: public
// only). The overlay never holds the game back: it is no modal, the page goes on drawing
// the states the server sends while it is open, and closing it shows the live game.

import { el, fill, svg, swatch, playerColour } from "./dom.js";
import { T, seatName } from "./i18n.js";
import { getJSON } from "./net.js";
import { inView } from "./inview.js";
/** @import { Board } from "./board.js" */
/** @import { GameMap } from "./map.js" */
/** @import { HistoryEntry, PlayerData } from "./messages.js" */

// The scoring message (GET /api/games/{id}/scoring: messages.py ScoringMessage, the
// breakdown of rules/breakdown.py), kept here as messages.js has it not yet.

/** @typedef {{ country: string, cloisters: number[], places: number[], points: number[], total: number }} CountryBreakdown one country's ranking (R9) */

/**
 * An alliance in the final scoring (R10): each country's advisors per seat, its majority,
 * who holds both (`qualifies`), what that is worth and the points per seat.
 * @typedef {object} AllianceBreakdown
 * @property {number} number
 * @property {string} across
 * @property {string[]} countries
 * @property {number[][]} advisors
 * @property {number[][]} majority
 * @property {number[]} qualifies
 * @property {number} value
 * @property {number[]} points
 */

/** @typedef {{ seat: number, paths: string[][], points: number }} ChainBreakdown a seat's scoring paths (R11) */

/** @typedef {{ step: number, countries: CountryBreakdown[], points: number[] }} IntermediateBreakdown */

/**
 * The final scoring: the parts per seat add up to `scores`; `order`: the seats from first
 * to last (points, then pieces left, R12.1).
 * @typedef {object} FinalBreakdown
 * @property {number} step
 * @property {string} reason
 * @property {CountryBreakdown[]} countries
 * @property {AllianceBreakdown[]} alliances_detail
 * @property {ChainBreakdown[]} chains_detail
 * @property {number[]} intermediate
 * @property {number[]} cloisters
 * @property {number[]} alliances
 * @property {number[]} chains
 * @property {number[]} scores
 * @property {number[]} pieces_left
 * @property {number[]} winners
 * @property {number[]} order
 */

/**
 * @typedef {object} ScoringMessage
 * @property {string} game
 * @property {number} version
 * @property {PlayerData[]} players
 * @property {{ players: number, intermediate: IntermediateBreakdown | null, final: FinalBreakdown | null }} scoring
 */

/** @typedef {"intermediate" | "final"} ScoringKind */

/** @typedef {{ id: string, title: string, body: () => (HTMLElement | null)[], map: () => void }} Step one step of the walk-through: its panel and what it marks on the map */

/**
 * The final table's inputs (renderFinal).
 * @typedef {object} FinalInfo
 * @property {boolean} finished
 * @property {string | null} again the follow-up's id
 * @property {boolean} canAgain this page may start it
 * @property {boolean} watching this page holds no seat (a spectator: told of the next game, and watches it)
 * @property {() => void} onAgain
 * @property {string} newGame the lobby's address
 */

/**
 * What the overlay needs of the page.
 * @typedef {object} ScoringContext
 * @property {string} gameId
 * @property {() => Board | null} board
 * @property {() => GameMap | null} map
 * @property {(() => void) | null} onAgain the page starts the next game (null: it cannot)
 */

/** Which scorings a history holds: {intermediate: bool, final: bool}.
 * @param {HistoryEntry[] | null | undefined} history */
export function scoringsIn(history) {
  const out = { intermediate: false, final: false };
  for (const h of history || []) {
    for (const e of h.events || []) {
      if (e.type === "intermediate_scoring") out.intermediate = true;
      if (e.type === "game_ended") out.final = true;
    }
  }
  return out;
}

const FOCUS_SEL = "[data-country], [data-coat], [data-site], [data-alliance]";

export class ScoringOverlay {
  /** ctx: {gameId, board(), map(), name(seat), onAgain()|null (the page starts the next game)}.
   * @param {ScoringContext} ctx */
  constructor(ctx) {
    this.ctx = ctx;
    /** @type {ScoringMessage | null} the scoring message */
    this.data = null;
    /** @type {ScoringKind | null} while open */
    this.kind = null;
    /** @type {Step[]} */
    this.steps = [];
    this.at = 0;
    /** @type {HTMLElement | null} */
    this.box = null;
    /** @type {SVGGElement | null} */
    this.fx = null;
    // set as it opens, and by renderFinal:
    /** @type {HTMLElement | SVGElement | null | undefined} where the keyboard's focus was before the overlay took it */ this.before;
    /** @type {boolean | undefined} */ this.takeFocus;
    /** @type {ScoringMessage | undefined} the scoring message of the final table (fetched once) */ this.finalData;
    /** @type {boolean | undefined} */ this.finalAsked;
    /** @type {[HTMLElement, FinalInfo] | null | undefined} the final table asked for before its data came */ this.lastFinal;
    this.seenKey = `kardinal-scoring-seen:${ctx.gameId}`;
    document.addEventListener("keydown", (ev) => this.key(ev));
  }

  get isOpen() { return Boolean(this.box); }

  /** Another game is watched now (a spectator followed "Play again"): the overlay closed, the
   * final table and what was seen of the game before forgotten.
   * @param {string} gameId */
  reset(gameId) {
    if (this.isOpen) this.close();
    this.ctx.gameId = gameId;
    this.seenKey = `kardinal-scoring-seen:${gameId}`;
    this.data = null;
    this.finalData = undefined;
    this.finalAsked = false;
    this.lastFinal = null;
  }

  /** Open a scoring the first time its event shows in a live history (once per game and
   * browser). offerOnly: the game was over when the page opened: its result is on the page
   * and the walk-through is offered (renderFinal), not opened.
   * @param {HistoryEntry[]} history @param {boolean} [offerOnly] */
  notice(history, offerOnly = false) {
    const has = scoringsIn(history);
    const seen = new Set((sessionStorage.getItem(this.seenKey) || "").split(",").filter(Boolean));
    if (offerOnly && has.final) { seen.add("intermediate"); seen.add("final"); }
    /** @type {ScoringKind | null} */
    const kind = has.final && !seen.has("final") ? "final" : has.intermediate && !seen.has("intermediate") && !has.final ? "intermediate" : null;
    if (has.final) seen.add("intermediate");
    if (!kind) { sessionStorage.setItem(this.seenKey, [...seen].join(",")); return; }
    seen.add(kind);
    sessionStorage.setItem(this.seenKey, [...seen].join(","));
    if (!this.isOpen || kind === "final") this.open(kind, true);
  }

  /** Open a scoring; one that opens by itself (auto) leaves the keyboard's focus where it is
   * (the live region has read the scoring out), one asked for takes it.
   * @param {string} kind "intermediate" or "final" @param {boolean} [auto] */
  async open(kind, auto = false) {
    /** @type {ScoringMessage} */
    let data;
    const of = this.ctx.gameId;
    try {
      data = await getJSON(`/api/games/${encodeURIComponent(of)}/scoring`);
    } catch (e) {
      return;
    }
    if (of !== this.ctx.gameId) return; // (followed to another game meanwhile)
    this.data = data;
    const sc = kind === "final" ? data.scoring.final : kind === "intermediate" ? data.scoring.intermediate : null;
    if (!sc || (kind !== "final" && kind !== "intermediate")) return;
    const a = document.activeElement;
    if (!this.box) this.before = (a instanceof HTMLElement || a instanceof SVGElement) && a !== document.body ? a : null;
    this.takeFocus = !auto || !this.before;
    this.kind = kind;
    this.steps = this.buildSteps(kind, sc);
    this.at = 0;
    this.show();
  }

  close() {
    const final = this.kind === "final";
    this.clearMap();
    const had = this.box && this.box.contains(document.activeElement);
    if (this.box) this.box.remove();
    this.box = null;
    this.kind = null;
    // the keyboard's focus goes back to where it was before the overlay took it
    if (had && this.before && this.before.isConnected) this.before.focus({ preventScroll: true });
    this.before = null;
    // the result stays on the page: brought into view once the walk-through is closed
    const fin = document.getElementById("finalbox");
    if (final && fin && !fin.hidden) fin.scrollIntoView({ block: "nearest" });
  }

  /**
   * The final table of a finished game, kept on its page: places, points and the winners
   * (R12), "Play again", "New game" and the walk-through offered. f: {finished, again (the
   * follow-up's id or null), canAgain (this page may start it: it holds a seat, or only bots
   * play), onAgain(), newGame (the lobby's address)}; the standings come from the scoring
   * message (fetched once).
   * @param {HTMLElement} box @param {FinalInfo} f
   */
  renderFinal(box, f) {
    if (!f.finished) { box.hidden = true; box.replaceChildren(); return; }
    const sc = this.finalData && this.finalData.scoring.final;
    if (!sc) {
      box.hidden = true;
      if (!this.finalAsked) {
        this.finalAsked = true;
        const of = this.ctx.gameId;
        getJSON(`/api/games/${encodeURIComponent(of)}/scoring`).then((d) => {
          if (of !== this.ctx.gameId) return; // (followed to another game meanwhile)
          this.finalData = d;
          if (this.lastFinal) this.renderFinal(this.lastFinal[0], this.lastFinal[1]);
        }).catch(() => { this.finalAsked = false; });
      }
      this.lastFinal = [box, f];
      return;
    }
    this.lastFinal = null;
    const players = this.finalData ? this.finalData.players : []; // (sc: from finalData)
    const pname = (/** @type {number} */ p) => (players[p] ? seatName(players[p].name, p) : `${T("seat")} ${p + 1}`);
    /** @type {HTMLTableRowElement[]} */
    const rows = [];
    let place = 0;
    sc.order.forEach((p, i) => {
      const prev = sc.order[i - 1];
      if (i === 0 || sc.scores[prev] !== sc.scores[p] || sc.pieces_left[prev] !== sc.pieces_left[p]) place = i + 1;
      const win = sc.winners.includes(p);
      rows.push(el("tr", { "data-seat": p, class: win ? "fin-win" : "" },
        el("td", { class: "num fin-place", text: `${place}.` }),
        el("td", { class: "fin-name" }, swatch(p), " " + pname(p), win ? el("strong", { class: "fin-winner", text: ` ★ ${T("scWinner")}` }) : null),
        el("td", { class: "num fin-pts", text: sc.scores[p] === 1 ? T("finPoints1") : T("finPointsN", { n: sc.scores[p] }) })));
    });
    const tie = sc.order.some((p, i) => i > 0 && sc.scores[sc.order[i - 1]] === sc.scores[p]);
    const again = f.again
      ? el("button", { type: "button", id: "final-again", class: "primary", onclick: () => f.onAgain() }, T(f.watching ? "scGoWatch" : "scGoAgain"))
      : f.canAgain ? el("button", { type: "button", id: "final-again", class: "primary", title: T("finAgainWhy"), onclick: () => f.onAgain() }, T("scAgain")) : null;
    box.hidden = false;
    fill(box,
      el("h2", { id: "final-title", text: T("finTitle") }),
      el("table", { class: "fin-table", id: "final-table", "aria-labelledby": "final-title" }, el("tbody", {}, ...rows)),
      tie ? el("p", { class: "sc-rule", text: sc.winners.length > 1 ? T("scSharedWin") : T("scTieBreak") }) : null,
      f.again ? el("p", { class: "fin-ready", text: T(f.watching ? "scAgainWatch" : "scAgainReady") }) : null,
      el("p", { class: "fin-buttons" },
        again,
        el("a", { href: f.newGame, id: "final-new", class: "button" }, T("finNew")),
        el("button", { type: "button", id: "final-walk", onclick: () => this.open("final") }, T("finWalk"))));
  }

  /** @param {KeyboardEvent} ev */
  key(ev) {
    if (!this.isOpen || ev.altKey || ev.ctrlKey || ev.metaKey) return;
    const t = ev.target instanceof Element ? ev.target : null; // (a key's target: an element, or the document)
    if (t && (t.tagName === "INPUT" || t.tagName === "TEXTAREA" || t.tagName === "SELECT")) return;
    if (t && t !== document.body && !this.box?.contains(t)) return; // the keys of the map, the hand, ... stay theirs
    if (ev.key === "ArrowRight" || ev.key === "PageDown") { this.go(this.at + 1); ev.preventDefault(); }
    else if (ev.key === "ArrowLeft" || ev.key === "PageUp") { this.go(this.at - 1); ev.preventDefault(); }
    else if (ev.key === "Escape") { this.close(); ev.preventDefault(); }
  }

  /** @param {number} k */
  go(k) {
    if (k < 0 || k >= this.steps.length) return;
    this.at = k;
    this.show();
  }

  /** Texts again in the page's language (the language was switched). */
  texts() {
    if (!this.isOpen || !this.kind || !this.data) return;
    const sc = this.kind === "final" ? this.data.scoring.final : this.data.scoring.intermediate;
    if (!sc) return;
    this.steps = this.buildSteps(this.kind, sc);
    this.show();
  }

  // ------------------------------------------------------------ the steps

  players() { return this.data ? this.data.players : []; }

  /** The board (the overlay opens only over a drawn map, its board loaded). */
  board() {
    const b = this.ctx.board();
    if (!b) throw new Error("no board yet");
    return b;
  }

  /** @param {number} seat */
  pname(seat) { const p = this.players()[seat]; return p ? seatName(p.name, seat) : `${T("seat")} ${seat + 1}`; }

  /** @param {number[]} seats */
  names(seats) { return seats.map((s) => this.pname(s)).join(", "); }

  /** @param {ScoringKind} kind @param {IntermediateBreakdown | FinalBreakdown} sc
   * @returns {Step[]} */
  buildSteps(kind, sc) {
    const B = this.board();
    /** @type {Step[]} */
    const steps = [];
    const final = kind === "final" && "order" in sc ? sc : null; // the final scoring's breakdown (its fields read only then)
    const empty = sc.countries.filter((c) => c.total === 0).map((c) => B.countryName(c.country));
    steps.push({
      id: "intro",
      title: final ? T("scFinalTitle") : T("scInterTitle"),
      body: () => [
        el("p", { text: final ? T("scFinalIntro", { reason: T(final.reason === "blocked" ? "scReasonBlocked" : "scReasonPile") }) : T("scInterIntro") }),
        empty.length ? el("p", { class: "sc-note", text: T("scEmptyCountries", { names: empty.join(", ") }) }) : null,
      ],
      map: () => {},
    });
    for (const c of sc.countries) {
      if (c.total === 0) continue;
      steps.push({
        id: `country-${c.country}`,
        title: B.countryName(c.country),
        body: () => [this.rankingTable(c), el("p", { class: "sc-rule", text: T("scCountryRule", { total: c.total }) })],
        map: () => this.showCountry(c),
      });
    }
    if (final) {
      for (const a of final.alliances_detail) {
        if (a.value === 0) continue;
        steps.push({
          id: `alliance-${a.number}`,
          title: T("scAlliance", { n: a.number, a: B.countryName(a.countries[0]), b: B.countryName(a.countries[1]) }),
          body: () => this.allianceBody(a),
          map: () => this.showAlliance(a),
        });
      }
      steps.push({
        id: "chains",
        title: T("scChainsTitle"),
        body: () => this.chainsBody(final),
        map: () => this.showChains(final),
      });
    }
    steps.push({ id: "totals", title: T("scTotalsTitle"), body: () => this.totalsBody(sc), map: () => {} });
    return steps;
  }

  /** @param {CountryBreakdown} c */
  rankingTable(c) {
    const seats = [...c.cloisters.keys()].filter((p) => c.cloisters[p] > 0).sort((a, b) => c.places[a] - c.places[b] || a - b);
    const head = el("tr", {}, el("th", { text: T("scPlace") }), el("th", {}), el("th", { class: "num", text: T("scCloisters") }), el("th", { class: "num", text: T("scPoints") }));
    const rows = seats.map((p) => el("tr", { "data-seat": p },
      el("td", { class: "num", text: `${c.places[p]}.` }),
      el("td", {}, swatch(p), " " + this.pname(p)),
      el("td", { class: "num", text: String(c.cloisters[p]) }),
      el("td", { class: "num pts", text: `+${c.points[p]}` })));
    return el("table", { class: "sc-rank" }, el("thead", {}, head), el("tbody", {}, ...rows));
  }

  /** @param {AllianceBreakdown} a */
  allianceBody(a) {
    const B = this.board();
    const n = this.players().length;
    const head = el("tr", {}, el("th", {}), ...a.countries.map((cid) => el("th", { class: "num", text: B.countryName(cid) })), el("th", { class: "num", text: T("scPoints") }));
    /** @type {HTMLTableRowElement[]} */
    const rows = [];
    for (let p = 0; p < n; p++) {
      if (!a.advisors[0][p] && !a.advisors[1][p]) continue;
      rows.push(el("tr", { "data-seat": p, class: a.qualifies.includes(p) ? "sc-qualifies" : "" },
        el("td", {}, swatch(p), " " + this.pname(p)),
        ...a.advisors.map((row, i) => el("td", { class: "num" + (a.majority[i].includes(p) ? " sc-maj" : ""), text: row[p] })),
        el("td", { class: "num pts", text: a.points[p] ? `+${a.points[p]}` : "–" })));
    }
    const maj = a.countries.map((cid, i) => el("li", {
      text: a.majority[i].length ? T("scMajority", { country: B.countryName(cid), names: this.names(a.majority[i]) }) : T("scNobodyMajority", { country: B.countryName(cid) }),
    }));
    return [
      el("table", { class: "sc-rank" }, el("caption", { text: T("scAdvisors") }), el("thead", {}, head), el("tbody", {}, ...rows)),
      el("ul", { class: "sc-maj-list" }, ...maj),
      el("p", { class: "sc-verdict", text: a.qualifies.length ? T("scQualifies", { names: this.names(a.qualifies), value: a.value, n: a.qualifies.length }) : T("scNobodyQualifies") }),
      el("p", { class: "sc-rule", text: T("scAllianceRule", { value: a.value }) }),
    ];
  }

  /** @param {FinalBreakdown} sc */
  chainsBody(sc) {
    const B = this.board();
    const items = sc.chains_detail.filter((c) => c.points > 0).map((c) => el("li", { "data-seat": c.seat },
      swatch(c.seat), ` ${this.pname(c.seat)}: +${c.points} — `,
      c.paths.map((p) => `${p.map((s) => B.siteName(s)).join("–")} (${T("scChainOf", { n: p.length })})`).join("; ")));
    return [
      items.length ? el("ul", { class: "sc-chains" }, ...items) : el("p", { text: T("scNoChains") }),
      el("p", { class: "sc-rule", text: T("scChainsRule") }),
    ];
  }

  /** @param {IntermediateBreakdown | FinalBreakdown} sc */
  totalsBody(sc) {
    const n = this.players().length;
    const seats = [...Array(n).keys()];
    if (!("order" in sc)) { // the intermediate scoring (the final one's breakdown has the order)
      const rows = seats.map((p) => el("tr", { "data-seat": p }, el("td", {}, swatch(p), " " + this.pname(p)), el("td", { class: "num pts", text: sc.points[p] })));
      return [el("table", { class: "sc-totals", id: "sc-totals" },
        el("caption", { text: T("scInterTotals") }),
        el("thead", {}, el("tr", {}, el("th", {}), el("th", { class: "num", text: T("scPoints") }))),
        el("tbody", {}, ...rows))];
    }
    /** @type {["intermediate" | "cloisters" | "alliances" | "chains", string][]} */
    const cols = [["intermediate", "scIntermediate"], ["cloisters", "scCloisterPts"], ["alliances", "scAlliancePts"], ["chains", "scChainPts"]];
    const head = el("tr", {}, el("th", {}), ...cols.map(([, k], i) => el("th", { class: "num", text: (i ? "+ " : "") + T(k) })), el("th", { class: "num", text: "= " + T("scTotal") }));
    const rows = sc.order.map((p) => el("tr", { "data-seat": p, class: sc.winners.includes(p) ? "sc-win" : "" },
      el("td", {}, swatch(p), " " + this.pname(p)),
      ...cols.map(([key]) => el("td", { class: "num", "data-col": key, text: sc[key][p] })),
      el("td", { class: "num total", "data-col": "total", text: sc.scores[p] })));
    const table = el("table", { class: "sc-totals", id: "sc-totals" }, el("thead", {}, head), el("tbody", {}, ...rows));
    const ol = el("ol", { class: "sc-standings", id: "sc-standings" });
    let place = 0;
    sc.order.forEach((p, i) => {
      const prev = sc.order[i - 1];
      if (i === 0 || sc.scores[prev] !== sc.scores[p] || sc.pieces_left[prev] !== sc.pieces_left[p]) place = i + 1;
      ol.append(el("li", { "data-seat": p, value: place }, swatch(p),
        ` ${this.pname(p)}: ${T("scPointsN", { n: sc.scores[p] })}, ${T("scPiecesLeft", { n: sc.pieces_left[p] })}`,
        sc.winners.includes(p) ? el("strong", { text: ` — ${T("scWinner")} ★` }) : null));
    });
    const tied = sc.order.some((p, i) => i > 0 && sc.scores[sc.order[i - 1]] === sc.scores[p]);
    const notes = [];
    if (tied) notes.push(el("p", { class: "sc-rule", id: "sc-tiebreak", text: T("scTieBreak") }));
    if (sc.winners.length > 1) notes.push(el("p", { class: "sc-rule", text: T("scSharedWin") }));
    return [table, el("h3", { text: T("scStandings") }), ol, ...notes];
  }

  // ------------------------------------------------------------ the panel

  show() {
    const step = this.steps[this.at];
    const last = this.at === this.steps.length - 1;
    const onAgain = this.ctx.onAgain;
    const again = this.kind === "final" && last && onAgain
      ? el("button", { type: "button", id: "sc-again", class: "primary", onclick: () => onAgain() }, T("scAgain")) : null;
    const nav = el("div", { class: "sc-nav" },
      el("button", { type: "button", id: "sc-back", disabled: this.at === 0, onclick: () => this.go(this.at - 1) }, "◀ " + T("scBack")),
      el("span", { class: "sc-count", id: "sc-count", text: T("scStep", { k: this.at + 1, n: this.steps.length }) }),
      last ? null : el("button", { type: "button", id: "sc-next", class: "primary", onclick: () => this.go(this.at + 1) }, T("scNext") + " ▶"),
      last ? null : el("button", { type: "button", id: "sc-skip", onclick: () => this.go(this.steps.length - 1) }, T("scSkip")),
      again,
      el("button", { type: "button", id: "sc-close", onclick: () => this.close() }, T("scClose")));
    const body = step.body().filter((x) => x !== null);
    const box = el("section", {
      id: "scoring-overlay", class: `sc-overlay sc-${this.kind}` + (step.id === "totals" ? " sc-wide" : ""),
      role: "dialog", "aria-modal": "false", "aria-labelledby": "sc-title", "data-step": step.id, "data-kind": this.kind,
    },
    el("div", { class: "sc-head" }, el("span", { class: "sc-kind", text: this.kind === "final" ? T("scFinalTitle") : T("scInterTitle") }),
      el("h2", { id: "sc-title", text: step.title })),
    el("div", { class: "sc-body" }, ...body),
    nav,
    el("p", { class: "sc-keys", text: T("scKeys") }));
    if (this.box) this.box.replaceWith(box);
    else {
      // beside the map, at the top of the side panel: the map stays whole and clickable
      const side = document.getElementById("side");
      if (side) side.prepend(box);
      else document.body.append(box);
    }
    this.box = box;
    inView(box); // where the player is looking: the panel may be scrolled (a sheet on a phone: scoring.css)
    this.clearMap();
    step.map();
    const next = box.querySelector("#sc-next") || box.querySelector("#sc-again") || box.querySelector("#sc-close");
    const inside = box.contains(document.activeElement) || document.activeElement === document.body;
    if (next instanceof HTMLElement && (this.takeFocus || inside)) next.focus({ preventScroll: true });
    this.takeFocus = false;
  }

  // ------------------------------------------------------------ the map

  layer() {
    const map = this.ctx.map();
    if (!map) return null;
    if (map.fxLayer) {
      if (!this.fx || this.fx.parentNode !== map.fxLayer) {
        this.fx = svg("g", { class: "scoring-fx" });
        map.fxLayer.append(this.fx);
      }
    } else if (!this.fx || !this.fx.isConnected || this.fx.parentNode !== map.root) {
      this.fx = svg("g", { class: "scoring-fx" });
      map.root.append(this.fx);
    } else map.root.append(this.fx); // stay on top of whatever the map drew since
    return this.fx;
  }

  /** @param {string} sid @returns {[number, number]} */
  sitePoint(sid) {
    const map = this.ctx.map();
    if (map && map.sitePoint) return map.sitePoint(sid);
    const s = this.board().sites.get(sid);
    return s ? s.xy : [0, 0];
  }

  /** @param {string} cid @returns {[number, number]} */
  coatPoint(cid) {
    const map = this.ctx.map();
    if (map && map.coatPoint) return map.coatPoint(cid);
    const c = this.board().countries.get(cid);
    return c ? c.coat : [0, 0];
  }

  root() { const m = this.ctx.map(); return m ? m.root : null; }

  clearMap() {
    const root = this.root();
    if (root) {
      root.classList.remove("sc-focus-mode");
      for (const e of root.querySelectorAll(".sc-focus")) e.classList.remove("sc-focus");
    }
    if (this.fx) this.fx.replaceChildren();
  }

  /** @param {Set<string>} countries @param {Set<string>} sites @param {Set<string>} alliances */
  focus(countries, sites, alliances) {
    const root = this.root();
    if (!root) return;
    root.classList.add("sc-focus-mode");
    for (const e of root.querySelectorAll(FOCUS_SEL)) {
      if (!(e instanceof SVGElement || e instanceof HTMLElement)) continue; // (the map's parts)
      const d = e.dataset;
      const on = (d.country && countries.has(d.country)) || (d.coat && countries.has(d.coat)) || (d.site && sites.has(d.site)) || (d.alliance && alliances.has(d.alliance));
      if (on) e.classList.add("sc-focus");
    }
  }

  /** @param {SVGGElement} g @param {number[]} at @param {string} text @param {number | null} seat @param {string} [cls] */
  badge(g, [x, y], text, seat, cls) {
    const w = 8 + 7.5 * String(text).length;
    const b = svg("g", { class: "sc-badge " + (cls || ""), transform: `translate(${x},${y})` });
    b.append(svg("rect", { x: -w / 2, y: -10, width: w, height: 20, rx: 10, fill: seat === null ? "#222" : playerColour(seat) }));
    const t = svg("text", { x: 0, y: 5, "text-anchor": "middle" });
    t.textContent = text;
    b.append(t);
    g.append(b);
  }

  /** @param {CountryBreakdown} c */
  showCountry(c) {
    const B = this.board();
    const g = this.layer();
    const country = B.countries.get(c.country);
    const sites = new Set(country ? country.sites : []);
    this.focus(new Set([c.country]), sites, new Set());
    if (!g) return;
    for (const sid of sites) {
      const [x, y] = this.sitePoint(sid);
      g.append(svg("circle", { cx: x, cy: y, r: 13, class: "sc-ring sc-country-ring" }));
    }
    // the points per seat stacked beside the coat of arms
    const [cx, cy] = this.coatPoint(c.country);
    const seats = [...c.points.keys()].filter((p) => c.points[p] > 0).sort((a, b) => c.places[a] - c.places[b] || a - b);
    seats.forEach((p, i) => this.badge(g, [cx + 46, cy - 18 + i * 23], `${c.places[p]}. +${c.points[p]}`, p));
  }

  /** @param {AllianceBreakdown} a */
  showAlliance(a) {
    const B = this.board();
    const g = this.layer();
    const sites = new Set();
    for (const cid of a.countries) for (const s of (B.countries.get(cid) || { sites: [] }).sites) sites.add(s);
    this.focus(new Set(a.countries), new Set(), new Set([String(a.number)]));
    if (!g) return;
    const al = B.data.alliances.find((x) => x.number === a.number);
    const [p1, p2] = a.countries.map((cid) => this.coatPoint(cid));
    const mid = al && al.xy ? al.xy : [(p1[0] + p2[0]) / 2, (p1[1] + p2[1]) / 2];
    g.append(svg("path", { d: `M${p1[0]},${p1[1]} Q${mid[0]},${mid[1]} ${p2[0]},${p2[1]}`, class: "sc-link" }));
    for (const p of [p1, p2]) g.append(svg("circle", { cx: p[0], cy: p[1], r: 30, class: "sc-coat-ring" }));
    a.countries.forEach((cid, i) => {
      const [x, y] = this.coatPoint(cid);
      a.majority[i].forEach((s, j) => this.badge(g, [x + 48, y - 12 + j * 23], `${a.advisors[i][s]}`, s));
    });
    if (a.qualifies.length) a.qualifies.forEach((s, j) => this.badge(g, [mid[0], mid[1] - 24 - j * 23], `+${a.value}`, s, "sc-big"));
    else this.badge(g, [mid[0], mid[1] - 24], "0", null, "sc-big");
  }

  /** @param {FinalBreakdown} sc */
  showChains(sc) {
    const g = this.layer();
    const sites = new Set();
    for (const c of sc.chains_detail) for (const p of c.paths) for (const s of p) sites.add(s);
    this.focus(new Set(), sites, new Set());
    if (!g) return;
    for (const c of sc.chains_detail) {
      for (const p of c.paths) {
        const pts = p.map((s) => this.sitePoint(s).join(",")).join(" ");
        g.append(svg("polyline", { points: pts, class: "sc-chain-casing" }));
        g.append(svg("polyline", { points: pts, class: "sc-chain", stroke: playerColour(c.seat), "data-seat": c.seat }));
        for (const s of p) {
          const [x, y] = this.sitePoint(s);
          g.append(svg("circle", { cx: x, cy: y, r: 11, class: "sc-ring", stroke: playerColour(c.seat) }));
        }
        const [x, y] = this.sitePoint(p[Math.floor(p.length / 2)]);
        this.badge(g, [x, y - 22], `+${p.length}`, c.seat, "sc-big");
      }
    }
  }
}
