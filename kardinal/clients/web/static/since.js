// "Since your last turn": above the hand, the turns the others took since this seat's own
// last turn, one line each ("Anna: 2 cloisters in Burgundy"; "Bot 2 exchanged Savoy for a
// card from the pile"), so that nobody has to scroll the log after three bots' turns.
// A line points at the map: hovering or focusing it marks the places its pieces went to,
// tapping (or clicking) it keeps them marked until it is tapped again or another is.
//
// A turn of this seat's own that a bot played for it (its time ran out, or it was away:
// log.js's stoodIn) is listed too, as "A bot for you: …": the player did not make it.
//
// Only what every player sees: the history as the page may show it (a card drawn from the
// pile is not named), the cards played and taken from the display, the places.

import { el, svg, swatch, playerColour } from "./dom.js";
import { T } from "./i18n.js";
import { turnsOf, turnSummary, placesOf } from "./follow.js";
/** @import { Board } from "./board.js" */
/** @import { GameMap } from "./map.js" */
/** @import { MapZoom } from "./zoom.js" */
/** @import { HistoryEntry } from "./messages.js" */

/**
 * A turn to show: its seat and entries (follow.js turnsOf), a key, the index of its first
 * entry in the history, and whether a bot played it for this page's seat.
 * @typedef {{ seat: number, entries: HistoryEntry[], key: string, start: number, standin?: boolean }} SinceTurn
 */

/** @typedef {{ board: Board, name: (seat: number) => string }} SinceContext the board and the players' names */

/**
 * What "since your last turn" shows of the page (game.js): its board, map and zoom (null
 * until made) and the players' names.
 * @typedef {object} SincePage
 * @property {() => Board | null} board
 * @property {() => GameMap | null} map
 * @property {() => MapZoom | null} zoom
 * @property {(seat: number) => string} name
 */

/**
 * The others' turns to show: for a seat, those since its own last turn (while it is this
 * seat's turn, the turn it is in does not count: the others' turns before it stay); for a
 * spectator (seat null) the last round. At most one turn per other player. The seat's own
 * turns a bot played for it (`stoodIn(start)`: the turn beginning at that history index
 * was a stand-in's) do not end the span: they are listed (`standin: true`), at most as many.
 * history: the history entries; current: the seat to act; players: how many.
 * @param {HistoryEntry[] | null | undefined} history @param {number | null | undefined} seat
 * @param {number} current @param {number} players
 * @param {(start: number) => boolean} [stoodIn]
 * @returns {SinceTurn[]}
 */
export function sinceTurns(history, seat, current, players, stoodIn = () => false) {
  let at = 0;
  /** @type {SinceTurn[]} */
  const turns = turnsOf(history || []).map((/** @type {{ seat: number, entries: HistoryEntry[] }} */ t, /** @type {number} */ i) => {
    const start = at;
    at += t.entries.length;
    return { ...t, key: `${t.seat}@${i}`, start };
  });
  const others = Math.max(1, seat === null || seat === undefined ? players : players - 1);
  if (seat === null || seat === undefined) return turns.slice(-others);
  let end = turns.length;
  if (current === seat) while (end > 0 && turns[end - 1].seat === seat) end -= 1;
  let start = end;
  const standin = (/** @type {SinceTurn} */ t) => t.seat === seat && stoodIn(t.start);
  while (start > 0 && (turns[start - 1].seat !== seat || standin(turns[start - 1]))) start -= 1;
  const span = turns.slice(start, end).map((t) => ({ ...t, standin: t.seat === seat }));
  const theirs = new Set(span.filter((t) => !t.standin).slice(-others));
  const bots = new Set(span.filter((t) => t.standin).slice(-others));
  return span.filter((t) => theirs.has(t) || bots.has(t));
}

/** A turn's line: its main decision and the cards taken from the display (a card from the
 * pile is nobody's business, and that one was drawn takes room a phone does not have).
 * @param {{ seat: number, entries: HistoryEntry[] }} turn @param {SinceContext} ctx
 * @returns {string} */
export function sinceText(turn, ctx) {
  const shown = turn.entries.filter((e) => !(e.action.act === "draw" && e.action.from === "deck"));
  return turnSummary({ seat: turn.seat, entries: shown.length ? shown : turn.entries }, ctx);
}

/** What a bot played for a seat (a turn's entries), without the seat's name, for "a bot
 * played for you: …" ("2 cloisters in Burgundy"; "it exchanged Savoy for …").
 * @param {HistoryEntry[]} entries @param {{ board: Board }} ctx */
export function standinMoves(entries, ctx) {
  const mark = "\u0001";
  const text = sinceText({ seat: entries[0].action.seat, entries }, { ...ctx, name: () => mark });
  return text.replace(`${mark}: `, "").split(mark).join(T("standinIt"));
}

export class Since {
  /** page: {board(), map(), zoom(), name(seat)}; box: the element above the hand.
   * @param {SincePage} page @param {HTMLElement} box */
  constructor(page, box) {
    this.page = page;
    this.box = box;
    /** @type {string | null} the key of the line whose places stay marked */
    this.pinned = null;
    /** @type {SinceTurn[]} */
    this.turns = [];
    /** @type {SVGGElement | null} */
    this.fx = null;
  }

  /** Draw the lines. seat: this page's seat (null: a spectator); hidden: nothing to say
   * (a replay, a finished game, a hot-seat curtain before the first turn).
   * @param {{ history: HistoryEntry[], seat: number | null, current: number, players: number, hidden: boolean,
   *   stoodIn: (start: number) => boolean }} what */
  render({ history, seat, current, players, hidden, stoodIn }) {
    const board = this.page.board();
    this.turns = hidden || !board ? [] : sinceTurns(history, seat, current, players, stoodIn);
    if (!this.turns.some((t) => t.key === this.pinned)) this.pinned = null;
    if (!this.turns.length || !board) { // (no board: no turns)
      this.box.replaceChildren();
      this.box.hidden = true;
      this.mark(null);
      return;
    }
    this.box.hidden = false;
    const ctx = { board, name: (/** @type {number} */ s) => this.page.name(s) };
    const forYou = { board, name: () => T("sinceBotForYou") };
    const lines = this.turns.map((t) => {
      const text = sinceText(t, t.standin ? forYou : ctx);
      const places = placesOf(t);
      const where = places.sites.length + places.coats.length > 0;
      const body = [swatch(t.seat), el("span", { class: "since-text", text })];
      const standin = t.standin ? "true" : null;
      if (!where) return el("li", {}, el("span", { class: "since-line", "data-seat": t.seat, "data-standin": standin, title: text }, ...body));
      const b = el("button", {
        type: "button", class: "since-line", "data-seat": t.seat, "data-key": t.key, "data-standin": standin, title: text,
        "aria-label": T("sinceShow", { line: text }), "aria-pressed": String(this.pinned === t.key),
      }, ...body);
      b.addEventListener("click", () => this.pin(t.key));
      for (const ev of ["mouseenter", "focus"]) b.addEventListener(ev, () => this.mark(t));
      for (const ev of ["mouseleave", "blur"]) b.addEventListener(ev, () => this.mark(this.pinnedTurn()));
      return el("li", {}, b);
    });
    this.box.replaceChildren(
      el("h2", { class: "since-title", id: "since-title", text: seat === null || seat === undefined ? T("sinceWatching") : T("sinceTitle") }),
      el("ul", { class: "since-lines", "aria-labelledby": "since-title" }, ...lines));
    this.mark(this.pinnedTurn());
  }

  /** Another game is watched now (a spectator followed "Play again"): nothing of the game before. */
  reset() {
    this.pinned = null;
    this.turns = [];
    this.box.replaceChildren();
    this.box.hidden = true;
    this.mark(null);
  }

  pinnedTurn() { return this.turns.find((t) => t.key === this.pinned) || null; }

  /** Tap a line: its places stay marked (tapped again: unmarked); on an enlarged map they are brought into view.
   * @param {string} key */
  pin(key) {
    this.pinned = this.pinned === key ? null : key;
    for (const b of this.box.querySelectorAll("button.since-line")) if (b instanceof HTMLElement) b.setAttribute("aria-pressed", String(b.dataset.key === this.pinned));
    const turn = this.pinnedTurn();
    this.mark(turn);
    const zoom = this.page.zoom();
    const first = document.querySelector("#map .since-mark");
    if (turn && first && zoom && zoom.z > 1) zoom.centre(first);
  }

  /** Mark a turn's places on the map (null: none): the sites and coats of arms, ringed in the player's colour.
   * @param {SinceTurn | null} turn */
  mark(turn) {
    for (const n of document.querySelectorAll("#map .since-mark")) n.classList.remove("since-mark");
    if (this.fx) this.fx.replaceChildren();
    document.body.dataset.sinceMarked = turn ? turn.key : "";
    const map = this.page.map();
    if (!turn || !map) return;
    if (!this.fx || !this.fx.isConnected) {
      this.fx = svg("g", { class: "since-fx" });
      (map.fxLayer || map.root).append(this.fx);
    }
    const colour = playerColour(turn.seat);
    const { sites, coats } = placesOf(turn);
    for (const sid of sites) {
      const n = document.querySelector(`#map .site[data-site="${CSS.escape(sid)}"]`);
      if (n) n.classList.add("since-mark");
      const [x, y] = map.sitePoint(sid);
      this.fx.append(svg("circle", { cx: x, cy: y, r: 17, class: "since-ring", stroke: colour }));
    }
    for (const cid of coats) {
      const n = document.querySelector(`#map .coat[data-coat="${CSS.escape(cid)}"]`);
      if (n) n.classList.add("since-mark");
      const [x, y] = map.coatPoint(cid);
      this.fx.append(svg("circle", { cx: x, cy: y, r: 38, class: "since-ring", stroke: colour }));
    }
  }
}
