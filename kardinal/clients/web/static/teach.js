// Hints and the post-game review: the bot's view of a position, shown beside the map and
// on it. The game page calls render() after each redraw; page.msg, page.replay, page.map
// and page.board hold what is shown. The judging is the server's (teach.py): a hint from
// this seat's view only (POST /api/games/{id}/hint), a review of a finished game
// (POST, then GET /api/games/{id}/review while it runs).

import { el, svg, playerColour, swatch } from "./dom.js";
import { T, num } from "./i18n.js";
import { getJSON, postJSON, HttpError } from "./net.js";
import { turnBounds, turnOf } from "./replay.js";
import { inView } from "./inview.js";
/** @import { Board } from "./board.js" */
/** @import { RecordAction } from "./messages.js" */
/** @import { GamePage } from "./game.js" */

// The answers of teach.py (server/play/schemas.py TeachInfo, HintAnswer, ReviewStatus; the
// review itself: bots/analysis.py Review), as this module reads them.

/**
 * One option of a hint, best first: its action and what the search found of it.
 * @typedef {object} HintOption
 * @property {RecordAction} action
 * @property {string} notation
 * @property {number} visits
 * @property {number | null} value
 * @property {number | null} margin
 * @property {number | null} worth
 * @property {number | null} [gain]
 * @property {number | null} vs_best
 */

/**
 * The best moves for the asking seat (`how`: search, draw or only).
 * @typedef {object} HintAnswer
 * @property {number} version
 * @property {number} seat
 * @property {string} how
 * @property {HintOption[]} options
 * @property {number} iterations
 */

/** @typedef {{ version: number, seat: number, data: HintAnswer }} Hint the latest hint, for the position it was asked at */

/**
 * A rated decision of the review: its index in the history, its seat and the seat's own
 * turn number, its cost (points), its verdict (null: none) and the move played and the best one.
 * @typedef {object} RatedDecision
 * @property {number} index
 * @property {number} seat
 * @property {number} turn
 * @property {number} cost
 * @property {string | null} [verdict]
 * @property {{ action: RecordAction, gain?: number | null }} played
 * @property {{ action: RecordAction, gain?: number | null }} best
 */

/**
 * A finished game's review (bots/analysis.py Review.to_json): each seat's chance to win
 * after each step, the rated decisions, each seat's costliest (their indices, by seat).
 * @typedef {object} Review
 * @property {number[]} seats
 * @property {{ step: number, chances: number[] }[]} chances
 * @property {RatedDecision[]} decisions
 * @property {Record<string, number[]>} [costliest]
 */

/** @typedef {{ status: string, done?: number, total?: number, review?: Review }} ReviewStatus "none", "running" with its progress, "done" with the review, or "failed" */

/** @typedef {{ hints: boolean, finished: boolean, review?: ReviewStatus }} TeachInfo */

// a signed number of points to one decimal; what rounds to zero is "0.0" (not "±0.0", "−0.0")
const signed = (/** @type {number} */ x) => (Math.abs(x) < 0.05 ? "" : x > 0 ? "+" : "−") + num(Math.abs(x), 1);

// points to one decimal in the page's language ("2.1", "2,1"; a minus sign, not a hyphen)
const points = (/** @type {number} */ x) => (x < -0.05 ? "−" : "") + num(Math.abs(x), 1);

/** "Playing {cards} for {pieces} instead would have gained {cost} points more."
 * @param {Board} board @param {RecordAction} a @param {string} cost */
function insteadText(board, a, cost) {
  if (a.act !== "place") return T("tcInsteadOther", { move: actionText(board, a), cost });
  const sites = (a.pieces || []).filter((p) => p.type === "cloister").map((p) => board.siteName(p.site));
  const adv = (a.pieces || []).filter((p) => p.type === "advisor").length;
  const country = board.countryName(a.country);
  const pieces = sites.length === 2 ? T("tcPiecesTwoCloisters", { a: sites[0], b: sites[1] })
    : sites.length === 1 && adv ? T("tcPiecesCloisterAdvisor", { site: sites[0] })
      : sites.length === 1 ? T("tcPiecesCloister", { site: sites[0] })
        : adv === 2 ? T("tcPiecesTwoAdvisors", { country }) : T("tcPiecesAdvisor", { country });
  const kinds = [...new Set(a.cards || [])];
  const cards = kinds.map((k) => ((a.cards || []).filter((x) => x === k).length === 2 ? "2 × " : "") + board.cardName(k)).join(" + ");
  return T("tcInsteadPlace", { cards, pieces, cost });
}

/** Why a hint or a review was refused, in words (net.js HttpError: its code; else "http").
 * @param {unknown} e */
function errorText(e) {
  const code = (e instanceof HttpError && (e.code || e.error.code)) || "http";
  const key = "tcErr_" + code;
  const t = T(key);
  return t === key ? T("tcErr_other", { code }) : t;
}

/** A record action in words, with the board's names.
 * @param {Board} board @param {RecordAction} a */
export function actionText(board, a) {
  if (a.act === "place") {
    const parts = [];
    for (const p of a.pieces || []) if (p.type === "cloister") parts.push(T("tcCloisterAt", { site: board.siteName(p.site) }));
    const adv = (a.pieces || []).filter((p) => p.type === "advisor").length;
    if (adv === 1) parts.push(T("tcAdvisor"));
    if (adv === 2) parts.push(T("tcTwoAdvisors"));
    const pieces = parts.join(" + ");
    const cards = (a.cards || []).map((k) => board.cardName(k)).join(", ");
    return `${T("tcPlace", { pieces: pieces.charAt(0).toUpperCase() + pieces.slice(1), country: board.countryName(a.country) })} (${T("tcPlaceCards", { cards })})`;
  }
  if (a.act === "exchange") return T("tcExchange", { card: board.cardName(a.discard), take: a.from === "deck" ? T("tcFromPile") : board.cardName(a.card ?? "") }); // (from the display: a card)
  if (a.act === "draw") return a.from === "deck" ? T("tcDrawPile") : T("tcDrawCard", { card: board.cardName(a.card ?? "") });
  return T("tcPass");
}

/** A seat's three costliest decisions, costliest first (a review made before the server named them).
 * @param {RatedDecision[]} decisions @param {number} seat */
function costliestOf(decisions, seat) {
  return decisions.filter((d) => d.seat === seat && d.cost > 0).sort((a, b) => b.cost - a.cost || a.index - b.index).slice(0, 3).map((d) => d.index);
}

export class Teach {
  /** @param {GamePage} page @param {HTMLElement} box */
  constructor(page, box) {
    this.page = page;
    this.box = box;
    /** @type {TeachInfo | null} GET /teach: {hints, finished, review} */
    this.info = null;
    /** @type {string | null} the status it was loaded for */
    this.infoKey = null;
    /** @type {Hint | null} the latest hint */
    this.hint = null;
    /** @type {number | null} the version a hint is being asked for */
    this.asking = null;
    this.error = "";
    /** @type {ReviewStatus | null} GET /review's answer */
    this.review = null;
    this.polling = false;
    /** @type {RatedDecision | null} the rated decision shown on the map (review) */
    this.focus = null;
    /** @type {SVGGElement | null} */
    this.fx = null;
  }

  /** Another game is watched now (a spectator followed "Play again"): its hints and review are asked for anew. */
  reset() {
    this.info = null;
    this.infoKey = null;
    this.hint = null;
    this.asking = null;
    this.error = "";
    this.review = null;
    this.polling = false;
    this.focus = null;
    if (this.fx) this.fx.replaceChildren();
    this.box.replaceChildren();
  }

  /** The game's board (drawn only once it is loaded: render() returns before). */
  board() {
    const b = this.page.board;
    if (!b) throw new Error("no board yet");
    return b;
  }

  get url() { return `/api/games/${encodeURIComponent(this.page.gameId)}`; }

  /** @param {string} status */
  loadInfo(status) {
    this.infoKey = status;
    const of = this.url;
    getJSON(`${of}/teach`).then((/** @type {TeachInfo} */ info) => {
      if (this.url !== of) return; // (followed to another game meanwhile)
      this.info = info;
      if (info.review && info.review.status !== "none") this.setReview(info.review);
      this.page.render();
    }).catch(() => { this.infoKey = null; });
  }

  async askHint() {
    const msg = this.page.msg;
    if (!msg || msg.seat === null) return; // (the button: for the seat to act)
    const seat = msg.seat;
    const token = this.page.socket.seats[seat];
    this.asking = msg.version;
    this.error = "";
    this.page.render();
    try {
      /** @type {HintAnswer} */
      const h = await postJSON(`${this.url}/hint`, { seat, token, version: msg.version });
      this.hint = { version: h.version, seat, data: h };
    } catch (e) {
      this.error = errorText(e);
    }
    this.asking = null;
    this.page.render();
    // the hint (or why there is none) where the player is looking: the side panel may be scrolled
    inView(document.getElementById("hint-list") || this.box.querySelector(".tc-error") || this.box);
    const h = this.current();
    // the best option drawn on the map (an exchange or a pass has no marks)
    const rank = h ? h.data.options.findIndex((o) => o.action.act === "place") + 1 : 0;
    if (rank) this.bringIntoView(`[data-hint-rank='${rank}']`);
  }

  /** On an enlarged map (a phone), move the frame to the marks of a hint or a review: the
   * marked group if it fits in the frame, else the whole map.
   * @param {string} selector */
  bringIntoView(selector) {
    const zoom = this.page.zoom;
    const g = this.fx && this.fx.querySelector(selector);
    if (!zoom || !g || zoom.z <= 1) return;
    const r = g.getBoundingClientRect();
    if (r.width > zoom.wrap.clientWidth - 48 || r.height > zoom.wrap.clientHeight - 48) zoom.whole();
    else zoom.centre(g); // the middle: the zoom buttons sit over the frame's lower corner
  }

  async startReview() {
    this.error = "";
    try {
      this.setReview(await postJSON(`${this.url}/review`, {}));
    } catch (e) {
      this.error = errorText(e);
    }
    this.page.render();
  }

  /** @param {ReviewStatus} r */
  setReview(r) {
    this.review = r;
    if (r.status === "running" && !this.polling) {
      this.polling = true;
      const of = this.url; // (a spectator who followed "Play again" watches another game: this one's review no more)
      const poll = () => {
        getJSON(`${of}/review`).then((/** @type {ReviewStatus} */ next) => {
          if (this.url !== of) return;
          this.review = next;
          this.page.render();
          if (next.status === "running") setTimeout(poll, 700);
          else this.polling = false;
        }).catch(() => { this.polling = false; });
      };
      setTimeout(poll, 400);
    }
  }

  /** Show a rated decision: the replay goes to the position before it, the map shows both moves.
   * @param {RatedDecision} d */
  show(d) {
    this.focus = d;
    this.page.loadReplay(d.index).then(() => this.bringIntoView("[data-review=better]"));
  }

  // ------------------------------------------------------------ drawing

  render() {
    const page = this.page;
    const msg = page.msg;
    this.box.replaceChildren();
    if (!msg || !page.board) return;
    if (this.infoKey !== msg.status) this.loadInfo(msg.status);
    /** @type {HTMLElement[]} */
    const parts = [];
    if (msg.status === "running") parts.push(...this.hintPart());
    if (msg.status === "finished") parts.push(...this.reviewPart());
    if (this.error) parts.push(el("p", { class: "tc-error", id: "teach-error", role: "alert", text: this.error }));
    if (parts.length) this.box.append(el("h2", { text: T("tcTitle") }), ...parts);
    this.drawMap();
  }

  hintPart() {
    const page = this.page;
    const mine = page.legal().length > 0;
    if (!mine || !this.info) return [];
    if (!this.info.hints) return [el("p", { class: "tc-note", id: "hints-off", text: T("tcHintsOff") })];
    /** @type {HTMLElement[]} */
    const out = [el("p", {}, el("button", {
      type: "button", id: "hint-btn", title: T("tcHintWhy"), disabled: this.asking !== null,
      onclick: () => this.askHint(),
    }, T("tcHint")))];
    if (this.asking !== null) out.push(el("p", { class: "tc-note", id: "hint-wait", text: T("tcThinking") }));
    const h = this.current();
    if (h) out.push(this.hintList(h.data));
    return out;
  }

  /** The hint for the position shown now, if one was asked for. */
  current() {
    const msg = this.page.msg;
    const h = this.hint;
    // (a hint names cards of the hand: none behind a hot-seat curtain)
    if (!h || this.page.replay || !msg || h.version !== msg.version || h.seat !== msg.seat || this.page.hidden()) return null;
    return h;
  }

  /** @param {HintAnswer} h */
  hintList(h) {
    // drawn once the board is loaded (render() returns before); read as it is, not by board():
    // tests/test_web_teach.py calls this with no board, for passes, which name nothing
    const board = /** @type {Board} */ (this.page.board);
    // of all the search's iterations (the options shown are the most searched of them)
    const total = Math.max(h.iterations || 0, h.options.reduce((a, o) => a + (o.visits || 0), 0));
    const list = el("ol", { id: "hint-list", class: "tc-options", "data-how": h.how });
    h.options.forEach((o, i) => {
      const facts = [];
      if (h.how === "only") facts.push(T("tcOnly"));
      if (o.margin !== null && o.margin !== undefined) facts.push(T("tcMargin", { m: signed(o.margin) }));
      if (i > 0 && o.vs_best !== null && o.vs_best !== undefined) {
        // the first is the search's choice (most searched); its expected margin may still be a little lower
        const key = Math.abs(o.vs_best) < 0.05 ? "tcVsBestSame" : o.vs_best > 0 ? "tcVsBestMore" : "tcVsBest";
        facts.push(T(key, { d: signed(o.vs_best) }));
      }
      if (o.worth !== null && o.worth !== undefined) facts.push(T("tcWorth", { w: num(o.worth, 1) }));
      if (o.visits) facts.push(T("tcVisits", { n: num(o.visits), t: num(total) }));
      list.append(el("li", { "data-rank": i + 1, title: o.margin !== null ? T("tcMarginWhy") : null },
        el("span", { class: "tc-rank", text: String(i + 1) }),
        el("span", { class: "tc-move", text: actionText(board, o.action) }),
        el("span", { class: "tc-facts", text: facts.join(" · ") })));
    });
    return list;
  }

  reviewPart() {
    const r = this.review;
    if (!r || r.status === "none" || r.status === "failed") {
      const out = [el("p", {}, el("button", { type: "button", id: "review-btn", title: T("tcReviewWhy"), onclick: () => this.startReview() }, T("tcReview")))];
      if (r && r.status === "failed") out.push(el("p", { class: "tc-error", text: T("tcReviewFailed") }));
      return out;
    }
    if (r.status === "running") {
      const text = r.total ? T("tcReviewing", { k: r.done, n: r.total }) : T("tcPreparing");
      const bar = el("progress", { id: "review-progress", max: r.total || 1, value: r.done || 0, "aria-label": text });
      return [el("p", { class: "tc-note", id: "review-status", text }), bar];
    }
    return r.review ? this.reviewDone(r.review) : []; // (done: with the review)
  }

  /** @param {Review} rv */
  reviewDone(rv) {
    const page = this.page;
    const out = [this.chart(rv)];
    const summary = el("ul", { class: "tc-summary", id: "review-summary" });
    for (const seat of rv.seats) {
      const mine = rv.decisions.filter((d) => d.seat === seat);
      const cost = mine.reduce((a, d) => a + d.cost, 0);
      summary.append(el("li", { "data-seat": seat }, swatch(seat), " ", T("tcSummary", { name: page.name(seat), n: mine.length, cost: points(cost) })));
    }
    out.push(summary);
    // a decision's turn is the one the replay shows for it ("Turn k of n"); d.turn counts its player's own
    const bounds = turnBounds(page.msg ? page.msg.view.history : []);
    const byIndex = new Map(rv.decisions.map((d) => [d.index, d]));
    /** @type {Set<number>} */
    const shown = new Set();
    // each seat's three costliest decisions, however small, with the better move and what it would have changed
    for (const seat of rv.seats) {
      const top = ((rv.costliest || {})[String(seat)] || costliestOf(rv.decisions, seat)).map((i) => byIndex.get(i)).filter((d) => d !== undefined);
      const name = page.name(seat);
      if (!top.length) {
        out.push(el("p", { class: "tc-note review-none", "data-seat": seat, text: T("tcNoneCost", { name }) }));
        continue;
      }
      out.push(el("h3", { text: T(top.length === 3 ? "tcCostliest" : "tcCostliestFew", { name }) }));
      const list = el("ol", { class: "tc-costly", "data-seat": seat });
      for (const d of top) {
        shown.add(d.index);
        list.append(this.costlyItem(d, bounds));
      }
      out.push(list);
    }
    const slips = rv.decisions.filter((d) => d.verdict && !shown.has(d.index));
    if (slips.length) {
      out.push(el("h3", { text: T("tcMoreSlips") }));
      const list = el("ol", { class: "tc-slips", id: "review-list" });
      for (const d of slips) {
        const on = this.focus && this.focus.index === d.index && page.replay && page.replay.step === d.index;
        const item = el("li", { "data-index": d.index, "data-verdict": d.verdict, class: on ? "on" : "" },
          el("button", { type: "button", class: "tc-slip", onclick: () => this.show(d) },
            swatch(d.seat), " ", T("tcSlip", { turn: turnOf(bounds, d.index), own: d.turn, name: page.name(d.seat), verdict: T("tcVerdict_" + d.verdict), cost: points(d.cost) })));
        if (on) item.append(this.pair(d));
        list.append(item);
      }
      out.push(list);
    }
    return out;
  }

  /** One of the costliest decisions: its turn and cost (a button to the position), the move
   * played and the better one, and what the better one would have changed, in words.
   * @param {RatedDecision} d @param {number[]} bounds */
  costlyItem(d, bounds) {
    const page = this.page;
    const on = this.focus && this.focus.index === d.index && page.replay && page.replay.step === d.index;
    const vars = { turn: turnOf(bounds, d.index), own: d.turn, cost: points(d.cost), verdict: d.verdict ? T("tcVerdict_" + d.verdict) : "" };
    const item = el("li", { "data-index": d.index, "data-verdict": d.verdict || "", class: on ? "on" : "" },
      el("button", { type: "button", class: "tc-slip", title: T("tcCostWhy"), onclick: () => this.show(d) },
        swatch(d.seat), " ", T(d.verdict ? "tcCostlyVerdict" : "tcCostly", vars)),
      this.pair(d),
      el("div", { class: "tc-instead", text: insteadText(this.board(), d.best.action, points(d.cost)) }));
    const g = d.played.gain, b = d.best.gain;
    if (g !== null && g !== undefined && b !== null && b !== undefined) item.append(el("div", { class: "tc-gains", text: T("tcGains", { g: points(g), b: points(b) }) }));
    return item;
  }

  /** @param {RatedDecision} d */
  pair(d) {
    const board = this.board();
    return el("div", { class: "tc-pair" },
      el("div", { class: "tc-played-line" }, el("b", { text: T("tcPlayed") + ": " }), actionText(board, d.played.action)),
      el("div", { class: "tc-better-line" }, el("b", { text: T("tcBetter") + ": " }), actionText(board, d.best.action)));
  }

  /** Every player's chance to win after each turn: one line per seat; the replay's step marked.
   * @param {Review} rv */
  chart(rv) {
    const W = 300, H = 120, L = 28, B = 16, TOP = 6;
    const pts = rv.chances;
    const total = pts.length ? pts[pts.length - 1].step || 1 : 1;
    const x = (/** @type {number} */ step) => L + (W - L - 4) * (step / total);
    const y = (/** @type {number} */ p) => TOP + (H - TOP - B) * (1 - p);
    const g = svg("svg", { id: "win-chart", class: "tc-chart", viewBox: `0 0 ${W} ${H}`, role: "img", "aria-label": T("tcChartLabel") });
    for (const p of [0, 0.5, 1]) {
      g.append(svg("line", { x1: L, x2: W - 4, y1: y(p), y2: y(p), class: "tc-grid" }));
      const t = svg("text", { x: L - 4, y: y(p) + 4, class: "tc-axis", "text-anchor": "end" });
      t.textContent = `${Math.round(p * 100)}%`;
      g.append(t);
    }
    // the turns along the bottom, as the replay counts them, and the intermediate scoring
    const bounds = turnBounds(this.page.msg ? this.page.msg.view.history : []);
    const turns = bounds.length - 1;
    if (turns > 0 && bounds[turns] === total) {
      const every = turns > 60 ? 20 : 10;
      for (let k = 0; k <= turns; k += every) {
        if (k > 0 && turns - k < every / 2) continue; // leave room for the last turn's number
        g.append(svg("line", { x1: x(bounds[k]), x2: x(bounds[k]), y1: H - B, y2: H - B + 3, class: "tc-grid" }));
        const t = svg("text", { x: x(bounds[k]), y: H - 3, class: "tc-axis", "text-anchor": k ? "middle" : "start", "data-turn": k });
        t.textContent = k ? String(k) : T("tcTurnAxis");
        g.append(t);
      }
      const t = svg("text", { x: x(total), y: H - 3, class: "tc-axis", "text-anchor": "end", "data-turn": turns });
      t.textContent = String(turns);
      g.append(t);
      const inter = this.page.msg && this.page.msg.marks ? this.page.msg.marks.intermediate : undefined;
      if (inter !== undefined && inter !== null) {
        g.append(svg("line", { x1: x(inter), x2: x(inter), y1: TOP, y2: H - B, class: "tc-inter" }));
        const label = svg("text", { x: x(inter) + 2, y: TOP + 8, class: "tc-axis" });
        label.textContent = T("tcInterAxis");
        g.append(label);
      }
    }
    const n = pts.length ? pts[0].chances.length : 0;
    for (let seat = 0; seat < n; seat++) {
      const line = pts.map((c) => `${x(c.step).toFixed(1)},${y(c.chances[seat]).toFixed(1)}`).join(" ");
      g.append(svg("polyline", { points: line, class: "tc-line", stroke: playerColour(seat), "data-seat": seat }));
    }
    const top = new Set(rv.seats.flatMap((seat) => (rv.costliest || {})[String(seat)] || costliestOf(rv.decisions, seat)));
    for (const d of rv.decisions.filter((d) => d.verdict || top.has(d.index))) {
      const before = pts.filter((c) => c.step <= d.index).pop();
      if (!before) continue;
      const dot = svg("circle", { cx: x(d.index), cy: y(before.chances[d.seat]), r: 3.5, class: "tc-dot " + (d.verdict || "costly"), fill: playerColour(d.seat) });
      dot.addEventListener("click", () => this.show(d));
      g.append(dot);
    }
    const at = this.page.replay ? this.page.replay.step : total;
    g.append(svg("line", { x1: x(at), x2: x(at), y1: TOP, y2: H - B, class: "tc-now" }));
    g.addEventListener("click", (ev) => {
      if (ev.target instanceof Element && ev.target.classList.contains("tc-dot")) return;
      const r = g.getBoundingClientRect();
      const step = Math.round(((ev.clientX - r.left) * (W / r.width) - L) / (W - L - 4) * total);
      const near = pts.reduce((best, c) => (Math.abs(c.step - step) < Math.abs(best.step - step) ? c : best), pts[0]);
      this.focus = null;
      this.page.loadReplay(Math.max(0, Math.min(total, near.step)));
    });
    const legend = el("div", { class: "tc-legend" });
    for (let seat = 0; seat < n; seat++) legend.append(el("span", {}, swatch(seat), " " + this.page.name(seat)));
    return el("figure", { class: "tc-figure" }, g, el("figcaption", { text: T("tcChart") }), legend);
  }

  // ------------------------------------------------------------ the map

  layer() {
    const map = this.page.map;
    if (!map || !map.fxLayer) return null;
    if (!this.fx || this.fx.parentNode !== map.fxLayer) {
      this.fx = svg("g", { class: "teach-fx" });
      map.fxLayer.append(this.fx);
    }
    return this.fx;
  }

  drawMap() {
    const fx = this.layer();
    if (!fx) return;
    fx.replaceChildren();
    const page = this.page;
    const h = this.current();
    if (h) {
      // the worst first, so the best is drawn on top
      for (let i = h.data.options.length - 1; i >= 0; i--) this.mark(fx, h.data.options[i].action, "hint", String(i + 1), { "data-hint-rank": i + 1 });
      if (h.data.options.length) this.markCards(h.data.options[0].action);
    }
    const d = this.focus;
    if (d && page.replay && page.replay.step === d.index) {
      this.mark(fx, d.played.action, "played", "✗", { "data-review": "played" });
      this.mark(fx, d.best.action, "better", "✓", { "data-review": "better" });
    }
  }

  /** The cards the best hint plays, discards or takes, outlined in the hand and on the table
   * (the hand and the table are drawn anew before each render, so nothing needs undoing).
   * @param {RecordAction} a */
  markCards(a) {
    /** @param {string} selector @param {number} n */
    const pick = (selector, n) => {
      const found = Array.from(document.querySelectorAll(selector)).filter((e) => !e.classList.contains("tc-hinted"));
      for (const e of found.slice(0, n)) e.classList.add("tc-hinted");
    };
    const inHand = (/** @type {string} */ kid) => pick(`[data-zone=hand] .card[data-card="${CSS.escape(kid)}"]`, 1);
    /** @param {string} from @param {string | undefined} kid */
    const take = (from, kid) => (from === "deck" ? pick(".pile[data-pile=deck]", 1) : pick(`[data-zone=display] .card[data-card="${CSS.escape(kid ?? "")}"]`, 1)); // (from the display: a card)
    if (a.act === "place") for (const kid of a.cards || []) inHand(kid);
    else if (a.act === "exchange") { inHand(a.discard); take(a.from, a.card); }
    else if (a.act === "draw") take(a.from, a.card);
  }

  /** Rings on the sites and the coat of arms a placement uses, with a label.
   * @param {SVGGElement} fx @param {RecordAction} a @param {string} kind @param {string} label
   * @param {Record<string, string | number>} attrs */
  mark(fx, a, kind, label, attrs) {
    if (!a || a.act !== "place") return;
    const map = this.page.map;
    if (!map) return; // (drawMap: only on a drawn map)
    const g = svg("g", { class: `tc-mark tc-${kind}`, ...attrs });
    /** @param {number} x @param {number} y @param {number} r */
    const ring = (x, y, r) => {
      g.append(svg("circle", { cx: x, cy: y, r, class: "tc-ring" }));
      const b = svg("g", { class: "tc-badge", transform: `translate(${x + r * 0.75},${y - r * 0.75})` });
      b.append(svg("circle", { r: 9 }));
      const t = svg("text", { y: 4, "text-anchor": "middle" });
      t.textContent = label;
      b.append(t);
      g.append(b);
    };
    for (const p of a.pieces || []) if (p.type === "cloister") ring(...map.sitePoint(p.site), 15);
    if ((a.pieces || []).some((p) => p.type === "advisor")) ring(...map.coatPoint(a.country), 34);
    fx.append(g);
  }
}
