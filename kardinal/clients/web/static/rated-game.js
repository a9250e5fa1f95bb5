// Ratings on a game's page: at a table still waiting for people, "Start with bots" for a
// person who has taken a seat (nobody need wait for ever); on the final table of a rated
// game, every account's rating change ("1,500 ± 700 → 1,538 ± 640 (+38)") once the server
// has settled the game (GET /api/games/{id}/ratings).

import { byId, el, fill, findId, swatch } from "./dom.js";
import { T, dateTime, levelName, onLangChange } from "./i18n.js";
import { getJSON, postJSON, HttpError } from "./net.js";
import { refusalText } from "./refusals.js";
import { changeText } from "./rated.js";
/** @import { Seats } from "./net.js" */
/** @import { StateMessage } from "./game.js" */

/**
 * A game's rating changes (community/schemas.py GameRatings; `seats`: by seat, RatingChange).
 * @typedef {object} GameRatings
 * @property {string} game
 * @property {boolean} rated
 * @property {boolean} settled
 * @property {Record<string, { name: string, before: number, after: number, change: number, pm: number, pm_before: number }>} seats
 */

/** @typedef {{ seats: number[], until: number | null }} FillPlan the seats "Start with bots" would fill now, and until when (Unix time) the players of the game before keep theirs */

const TRIES = 30; // asks for the settled ratings, ...
const EVERY = 1000; // ... this many ms apart

export class RatedGame {
  /** ``seats()``: the seats this page holds ({seat: token}).
   * @param {string} gameId @param {() => Seats} seats */
  constructor(gameId, seats) {
    this.gameId = gameId;
    this.seats = seats;
    /** @type {StateMessage | null} */
    this.msg = null;
    /** @type {GameRatings | null} the settled answer */
    this.ratings = null;
    this.asking = false;
    this.tries = 0;
    this.error = "";
    /** @type {FillPlan | null} the seats "Start with bots" would fill now, ... (null: not known yet) */
    this.plan = null;
    /** @type {ReturnType<typeof setTimeout> | undefined} asks again when the players of the game before no longer keep their seats */
    this.planTimer = undefined;
    /** @type {string | null} ... for these seats (who has joined) */
    this.planKey = null;
    this.waitbox = el("section", { id: "waitbox", class: "waitbox", hidden: true });
    byId("handbox").before(this.waitbox);
    // the final table is drawn again on every change: the ratings go back under it each time
    const fin = findId("finalbox");
    if (fin) new MutationObserver(() => this.under(fin)).observe(fin, { childList: true });
    onLangChange(() => { if (this.msg) this.render(this.msg); });
  }

  /** Another game is watched now (a spectator followed "Play again"): its ratings and seats are asked for anew.
   * @param {string} gameId */
  reset(gameId) {
    this.gameId = gameId;
    this.msg = null;
    this.ratings = null;
    this.asking = false;
    this.tries = 0;
    this.error = "";
    this.plan = null;
    clearTimeout(this.planTimer);
    this.planKey = null;
    this.waitbox.hidden = true;
    this.waitbox.replaceChildren();
  }

  /** @param {StateMessage} msg */
  render(msg) {
    this.msg = msg;
    this.renderWait(msg);
    if (msg.status === "finished" && msg.table && msg.table.rated && !this.ratings && !this.asking && this.tries < TRIES) this.ask();
    const fin = findId("finalbox");
    if (fin) this.under(fin);
  }

  /** @param {StateMessage} msg */
  renderWait(msg) {
    const held = this.seats();
    const mine = msg.seat !== null && msg.seat !== undefined && held[msg.seat] && msg.players[msg.seat] && msg.players[msg.seat].joined ? msg.seat : null;
    const free = msg.players.filter((p) => p.kind === "person" && !p.joined).length;
    if (msg.status !== "open" || mine === null || !free) { this.waitbox.hidden = true; this.waitbox.replaceChildren(); return; }
    // which seats bots would take (asked again when a seat is taken): none while every free
    // seat is kept for someone, and then no button, but why the table waits
    const key = msg.players.map((p) => `${p.kind}:${p.joined}`).join(",");
    if (this.planKey !== key) { this.planKey = key; this.plan = null; this.askPlan(key); }
    const rated = msg.table && msg.table.rated;
    const level = msg.table ? msg.table.standin : "";
    const levelWord = levelName(level);
    const plan = this.plan;
    const kept = plan !== null && plan.seats.length === 0;
    let why;
    if (kept && plan.until) { // a table of Play again: the players of the game before have a while to come
      why = el("p", { id: "fill-later", text: T("fillLater", { time: dateTime(plan.until) }) });
    } else if (kept) why = el("p", { id: "fill-kept", text: T("fillKept") });
    else why = el("p", { text: rated ? T("fillWhyRated") : T("fillWhy", { level: levelWord }) });
    this.waitbox.hidden = false;
    fill(this.waitbox, el("h2", { text: T("fillTitle") }), why,
      plan && plan.seats.length
        ? el("p", {}, el("button", { type: "button", id: "fill-bots", class: "primary", onclick: (/** @type {MouseEvent} */ ev) => { if (ev.detail < 2) this.fill(mine, held[mine]); } }, T("fillButton")))
        : null,
      this.error ? el("p", { class: "bad", role: "alert", text: this.error }) : null);
  }

  /** Ask which seats bots would take (GET /api/games/{id}/fill), for the seats as they are
   * (`key`); asked again when the players of the game before no longer keep theirs.
   * @param {string} key */
  async askPlan(key) {
    /** @type {FillPlan} */
    let plan;
    try { plan = await getJSON(`/api/games/${encodeURIComponent(this.gameId)}/fill`); } catch (e) { plan = { seats: [-1], until: null }; } // unknown: the button, and the server says why if it refuses
    if (this.planKey !== key) return;
    this.plan = plan;
    if (this.msg) this.renderWait(this.msg);
    if (plan.until) {
      clearTimeout(this.planTimer);
      this.planTimer = setTimeout(() => { if (this.planKey === key) this.askPlan(key); }, Math.max(1000, plan.until * 1000 - Date.now() + 500));
    }
  }

  /** @param {number} seat @param {string} token */
  async fill(seat, token) {
    const b = findId("fill-bots");
    if (b instanceof HTMLButtonElement) b.disabled = true;
    try {
      await postJSON(`/api/games/${encodeURIComponent(this.gameId)}/fill`, { seat, token });
      this.error = "";
    } catch (e) {
      this.error = e instanceof HttpError ? refusalText(e.error, null) : String(e instanceof Error ? e.message : e);
      if (this.msg) this.renderWait(this.msg);
    }
  }

  async ask() {
    this.asking = true;
    this.tries += 1;
    const of = this.gameId;
    try {
      const r = await getJSON(`/api/games/${encodeURIComponent(of)}/ratings`);
      if (of !== this.gameId) return; // (followed to another game meanwhile: asked there anew)
      if (r.settled) this.ratings = r;
    } catch (e) { /* asked again below */ }
    this.asking = false;
    const fin = findId("finalbox");
    if (fin) this.under(fin);
    if (!this.ratings && this.tries < TRIES) setTimeout(() => this.ask(), EVERY);
  }

  /** The ratings' part of the final table (kept at its end).
   * @param {HTMLElement} fin */
  under(fin) {
    const old = findId("final-ratings");
    if (fin.hidden || !fin.firstChild || !this.msg || !(this.msg.table && this.msg.table.rated)) { if (old) old.remove(); return; }
    const box = this.ratingsBox();
    if (old && old.dataset.key === box.dataset.key && fin.lastChild === old) return;
    if (old) old.remove();
    fin.append(box);
  }

  ratingsBox() {
    const r = this.ratings;
    if (!r) return el("div", { id: "final-ratings", class: "final-ratings", "data-key": `wait:${T("ratingsWaiting")}` }, el("p", { class: "small", text: T("ratingsWaiting") }));
    const rows = Object.entries(r.seats).map(([seat, c]) => el("li", { "data-seat": seat, "data-change": c.change },
      swatch(Number(seat)), " ", el("strong", { text: c.name }), ": ", el("span", { class: c.change >= 0 ? "rating-up" : "rating-down", text: changeText(c) })));
    const texts = rows.map((x) => x.textContent).join("|");
    return el("div", { id: "final-ratings", class: "final-ratings", "data-key": `done:${T("ratingsTitle")}:${texts}` },
      el("h3", { text: T("ratingsTitle") }), el("ul", { class: "rating-changes" }, ...rows));
  }
}
