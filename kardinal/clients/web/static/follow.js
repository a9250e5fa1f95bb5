// Following the others' turns: each turn another player takes is shown as it happened.
// The cards played appear over the map, the pieces fly from the player onto their sites or
// coat of arms, a card taken from the display flies from the display to the player, and a
// line says what happened ("Ben: 2 cloisters in Italy with a joker"). A speed setting
// (off, slow, normal, fast) is remembered in the browser; "Replay last round" shows the
// last round again.
//
// The animation never delays the game: the page always draws the newest state at once, and
// this module only plays the new decisions over it (the pieces still to arrive are hidden
// until they land). Decisions that come while a turn is being shown wait in a queue, which
// plays faster when it grows and holds at most a round of the others' turns: older ones
// land at once. When it is this page's turn, or the game is over, what is left plays fast,
// so the pieces one decides about are on the map within moments.

import { byId, el, playerColour } from "./dom.js";
import { T, listText } from "./i18n.js";
import { cloisterGlyph, advisorGlyph } from "./pieces.js";

/** @typedef {import("./messages.js").HistoryEntry} HistoryEntry */
/** @typedef {import("./messages.js").PlaceAction} PlaceAction */
/** @typedef {import("./board.js").Board} Board */

/** A turn: a seat's main decision and the draws after it (turnsOf).
 * @typedef {{ seat: number, entries: HistoryEntry[] }} Turn */
/** A turn waiting to be shown: `again` (Replay last round) at its own `speed`.
 * @typedef {Turn & { again?: boolean, speed?: string }} QueuedTurn */
/** What turnSummary names things by: the board, and a seat's name.
 * @typedef {{ board: Board, name: (seat: number) => string }} SummaryContext */
/** A point on the screen (CSS pixels).
 * @typedef {{ x: number, y: number }} Point */

/** @type {Record<string, number>} a speed's name -> its factor on the times shown (0: not shown) */
const SPEEDS = { off: 0, slow: 1.7, normal: 1, fast: 0.45 };
const STORE = "kardinal-follow-speed";

function storedSpeed() {
  try {
    const s = localStorage.getItem(STORE);
    if (s && s in SPEEDS) return s;
  } catch (e) { /* private mode */ }
  return "normal";
}

/** Split history entries into turns: a main decision (place, exchange, pass) and the draws after it.
 * @param {HistoryEntry[]} entries @returns {Turn[]} */
export function turnsOf(entries) {
  /** @type {Turn[]} */
  const turns = [];
  for (const e of entries) {
    const last = turns[turns.length - 1];
    if (e.action.act === "draw" && last && last.seat === e.action.seat) last.entries.push(e);
    else turns.push({ seat: e.action.seat, entries: [e] });
  }
  return turns;
}

/** Whether a placement uses a joker (R4.3): a pair of the same card for one piece.
 * @param {PlaceAction} action */
export function usesJoker(action) {
  const cards = action.cards || [];
  const pieces = (action.pieces || []).length;
  const pair = cards.length >= 2 && cards.some((k, i) => cards.indexOf(k) !== i);
  return pair && (cards.length === 3 || pieces === 1);
}

/** The places a turn's pieces went to: {sites: [cloister sites], coats: [countries given an advisor]}.
 * @param {Turn} turn */
export function placesOf(turn) {
  /** @type {string[]} */
  const sites = [];
  /** @type {string[]} */
  const coats = [];
  for (const e of turn.entries) {
    const a = e.action;
    if (a.act !== "place") continue;
    for (const p of a.pieces) {
      if (p.type === "cloister") sites.push(p.site);
      else if (!coats.includes(a.country)) coats.push(a.country);
    }
  }
  return { sites, coats };
}

/** @param {number} n @param {string} one @param {string} many */
function countText(n, one, many) { return n === 1 ? T(one) : T(many, { n }); }

/** One turn in a line: "Ben: 2 cloisters in Italy with a joker; took Franconia/Aragon from the display".
 * @param {Turn} turn @param {SummaryContext} ctx */
export function turnSummary(turn, ctx) {
  const { board } = ctx;
  const name = ctx.name(turn.seat);
  /** @type {string[]} */
  const parts = [];
  let pile = 0;
  for (const e of turn.entries) {
    const a = e.action;
    if (a.act === "place") {
      const ncl = a.pieces.filter((p) => p.type === "cloister").length;
      const nadv = a.pieces.length - ncl;
      /** @type {string[]} */
      const pieces = [];
      if (ncl) pieces.push(countText(ncl, "fxCloisters1", "fxCloistersN"));
      if (nadv) pieces.push(countText(nadv, "fxAdvisors1", "fxAdvisorsN"));
      parts.push(T("fxPlace", { name, pieces: listText(pieces), country: board.countryName(a.country) }) + (usesJoker(a) ? T("fxJoker") : ""));
    } else if (a.act === "exchange") {
      const took = a.from === "deck" ? T("fxTookPile") : T("fxTookDisplay", { card: board.cardName(a.card ?? "") });
      parts.push(T("fxExchange", { name, card: board.cardName(a.discard), took }));
    } else if (a.act === "pass") {
      parts.push(T("fxPass", { name }));
    } else if (a.act === "draw") {
      if (a.from === "deck") pile += 1;
      else parts.push(T("fxDrewDisplay", { card: board.cardName(a.card ?? "") }));
    }
  }
  if (pile) parts.push(countText(pile, "fxDrewPile1", "fxDrewPileN"));
  // the draws of a turn can come in a message of their own: they still say whose they are
  const main = turn.entries.some((e) => e.action.act !== "draw");
  return (main ? "" : `${name}: `) + parts.join("; ");
}

const wait = (/** @type {number} */ ms) => new Promise((r) => setTimeout(r, ms));

/** The centre of an element on the screen, or null if it is not laid out.
 * @param {Element | null} node @returns {Point | null} */
function centre(node) {
  if (!node) return null;
  const r = node.getBoundingClientRect();
  if (!r.width && !r.height) return null;
  return { x: r.left + r.width / 2, y: r.top + r.height / 2 };
}

/** @param {Point | null} p */
function visible(p) {
  return p && p.x >= 0 && p.y >= 0 && p.x <= window.innerWidth && p.y <= window.innerHeight;
}

/** A flying piece: the map's own picture of a cloister or an advisor (colour and mark), enlarged.
 * @param {"cloister" | "advisor"} type @param {number} seat */
function pieceNode(type, seat) {
  const s = document.createElementNS("http://www.w3.org/2000/svg", "svg");
  s.setAttribute("viewBox", "-14 -18 28 30");
  s.setAttribute("width", "34");
  s.setAttribute("height", "36");
  s.append(type === "cloister" ? cloisterGlyph(seat, 0, 0) : advisorGlyph(seat, 0, 0));
  return el("div", { class: `fx-piece fx-${type}`, "data-seat": seat }, s);
}

/** A card as it flies: one band per country it names, in the country's colour, with its name.
 * @param {Board} board @param {string} kid */
function cardNode(board, kid) {
  const cs = board.cardCountries(kid);
  return el("div", { class: "fx-card", "data-card": kid },
    ...cs.map((c) => el("span", { class: "fx-band", style: `background:${board.colour(c)}` }, board.countryName(c))));
}

export class Follower {
  /** page: {board(), name(seat)}; the follow bar is built into `bar`.
   * @param {{ board: () => Board | null, name: (seat: number) => string }} page @param {HTMLElement} bar */
  constructor(page, bar) {
    this.page = page;
    this.bar = bar;
    this.speed = storedSpeed();
    /** @type {QueuedTurn[]} turns still to show */
    this.queue = [];
    this.running = false;
    /** @type {number | null} the history length shown so far (null: nothing yet) */
    this.seen = null;
    this.layer = el("div", { class: "fx-layer", "aria-hidden": "true" });
    document.body.append(this.layer);
    this.line = el("p", { id: "follow-line", class: "follow-line" }); // read out by the page's live region (#announce), not twice
    this.select = el("select", { id: "follow-speed", "aria-label": T("followSpeed") });
    this.select.addEventListener("change", () => {
      this.speed = this.select.value;
      try { localStorage.setItem(STORE, this.speed); } catch (e) { /* private mode */ }
      if (!SPEEDS[this.speed]) this.finish();
    });
    this.replayBtn = el("button", { type: "button", id: "replay-round" });
    this.replayBtn.addEventListener("click", () => this.replayLastRound());
    this.label = el("label", { for: "follow-speed" });
    bar.replaceChildren(this.line, el("span", { class: "follow-controls" }, this.label, this.select, this.replayBtn));
    this.texts();
  }

  /** Words in the page's language (called again when it changes). */
  texts() {
    this.label.textContent = T("followSpeed") + " ";
    this.select.setAttribute("aria-label", T("followSpeed"));
    this.select.replaceChildren(...Object.keys(SPEEDS).map((k) => el("option", { value: k, selected: k === this.speed }, T("speed" + k[0].toUpperCase() + k.slice(1)))));
    this.replayBtn.textContent = T("replayRound");
    this.replayBtn.title = T("replayRoundWhy");
  }

  /**
   * A new state message arrived (already drawn). New decisions by others are queued to be
   * shown. `mySeat`: the seat this page plays (its own decisions are not shown again).
   * @param {HistoryEntry[]} history @param {number | null | undefined} mySeat @param {number} players
   */
  update(history, mySeat, players, hurry = false) {
    this.players = players;
    this.hurry = hurry; // this page's turn, or the end: play what is left quickly
    this.history = history;
    const n = history.length;
    if (this.seen === null || n < this.seen) { // the first message, or an undo / a new game: nothing to show
      this.seen = n;
      return;
    }
    const fresh = history.slice(this.seen);
    this.seen = n;
    const turns = turnsOf(fresh).filter((t) => t.seat !== mySeat);
    if (!turns.length) return;
    this.enqueue(turns, false);
  }

  /** Show the last round again: the last turn of every player. */
  replayLastRound() {
    if (!this.history || !this.history.length) return;
    const turns = turnsOf(this.history);
    const round = turns.slice(-Math.max(1, this.players || 1));
    this.finish();
    const speed = this.speed === "off" ? "normal" : this.speed; // asked for explicitly
    this.enqueue(round, true, speed);
  }

  /** @param {QueuedTurn[]} turns @param {boolean} again @param {string} [speed] */
  enqueue(turns, again, speed) {
    for (const t of turns) {
      t.again = again;
      t.speed = speed;
      this.queue.push(t);
      this.hidePieces(t);
    }
    // at most a round of the others' turns waits; the older ones land at once
    const cap = Math.max(1, (this.players || 2) - 1);
    if (!again) {
      while (this.queue.length > cap) {
        const t = this.queue.shift();
        if (t) this.hideNone(t);
      }
    }
    document.body.dataset.following = String(this.queue.length);
    if (!this.running) this.run();
  }

  /** The sites and coats a turn's pieces go to (hidden until they land).
   * @param {Turn} turn */
  targets(turn) {
    /** @type {{ type: "cloister" | "advisor", node: Element | null }[]} */
    const out = [];
    for (const e of turn.entries) {
      const a = e.action;
      if (a.act !== "place") continue;
      for (const p of a.pieces) {
        out.push(p.type === "cloister"
          ? { type: "cloister", node: document.querySelector(`#map .site[data-site="${CSS.escape(p.site)}"]`) }
          : { type: "advisor", node: document.querySelector(`#map .coat[data-coat="${CSS.escape(a.country)}"]`) });
      }
    }
    return out;
  }

  /** @param {QueuedTurn} turn */
  hidePieces(turn) {
    if (!SPEEDS[turn.speed || this.speed]) return;
    for (const t of this.targets(turn)) if (t.node && t.type === "cloister") t.node.classList.add("fx-pending");
  }

  /** Another game is watched now (a spectator followed "Play again"): nothing of the game before is shown. */
  reset() {
    this.finish();
    this.seen = null;
    this.history = /** @type {HistoryEntry[]} */ ([]);
    this.line.textContent = "";
    delete this.line.dataset.seat;
    this.line.style.borderColor = "";
  }

  /** Stop showing: everything lands at once. */
  finish() {
    this.queue = [];
    document.body.dataset.following = "0";
    this.layer.replaceChildren();
    for (const n of document.querySelectorAll("#map .fx-pending")) n.classList.remove("fx-pending");
    document.body.dataset.animating = "";
  }

  async run() {
    this.running = true;
    document.body.dataset.animating = "true";
    try {
      while (this.queue.length) {
        const turn = this.queue.shift();
        if (!turn) break; // (the loop's condition: there is one)
        document.body.dataset.following = String(this.queue.length);
        const f = SPEEDS[turn.speed || this.speed];
        const board = this.page.board();
        if (!board) continue;
        this.line.textContent = turnSummary(turn, { board, name: (s) => this.page.name(s) });
        this.line.dataset.seat = String(turn.seat);
        this.line.style.borderColor = playerColour(turn.seat);
        if (!f) { this.hideNone(turn); continue; }
        // a long queue plays faster (the game goes on meanwhile)
        await this.show(turn, board, f * (this.hurry && !turn.again ? 0.3 : 1) / (this.queue.length > 2 ? 2.5 : 1));
      }
    } finally {
      this.running = false;
      document.body.dataset.animating = "";
    }
  }

  /** @param {Turn} turn */
  hideNone(turn) { for (const t of this.targets(turn)) if (t.node) t.node.classList.remove("fx-pending"); }

  /** Where a player's things come from: their row in the players panel, else the top of the map.
   * @param {number} seat @returns {Point | null} */
  origin(seat) {
    const row = centre(document.querySelector(`#players tr[data-seat="${seat}"]`));
    if (visible(row)) return row;
    const m = document.getElementById("mapwrap") || document.getElementById("map");
    if (!m) return row;
    const r = m.getBoundingClientRect();
    return { x: r.left + r.width / 2, y: Math.max(0, r.top) + 12 };
  }

  /** @param {HTMLElement} node @param {Point} from @param {Point} to @param {number} ms */
  fly(node, from, to, ms) {
    node.style.left = `${from.x}px`;
    node.style.top = `${from.y}px`;
    this.layer.append(node);
    const dx = to.x - from.x, dy = to.y - from.y;
    const anim = node.animate([
      { transform: "translate(-50%, -50%) scale(0.7)", opacity: 0.2 },
      { transform: "translate(-50%, -50%) scale(1.15)", opacity: 1, offset: 0.2 },
      { transform: `translate(calc(${dx}px - 50%), calc(${dy}px - 50%)) scale(1)`, opacity: 1 },
    ], { duration: ms, easing: "ease-in-out", fill: "forwards" });
    return anim.finished.catch(() => {}).then(() => node.remove());
  }

  /** Show a turn on `board` (the page's, run() has it), its times by factor f.
   * @param {QueuedTurn} turn @param {Board} board @param {number} f */
  async show(turn, board, f) {
    const from = this.origin(turn.seat);
    if (!from) return; // no players panel and no map: nowhere to fly from
    for (const e of turn.entries) {
      const a = e.action;
      if (a.act === "place") {
        // the cards played, over the map
        const tray = el("div", { class: "fx-tray", "data-seat": turn.seat, style: `border-color:${playerColour(turn.seat)}` },
          ...a.cards.map((k) => cardNode(board, k)));
        const m = (document.getElementById("mapwrap") || byId("map")).getBoundingClientRect();
        tray.style.left = `${m.left + m.width / 2}px`;
        tray.style.top = `${Math.max(8, m.top + 10)}px`;
        this.layer.append(tray);
        tray.animate([{ opacity: 0, transform: "translate(-50%, -12px)" }, { opacity: 1, transform: "translate(-50%, 0)" }], { duration: 250 * f, fill: "forwards" });
        await wait(450 * f);
        const flights = this.targets(turn).map((t, i) => {
          const to = centre(t.node) || from;
          return wait(i * 160 * f).then(() => this.fly(pieceNode(t.type, turn.seat), from, to, 700 * f)).then(() => {
            const node = t.node;
            if (!node) return;
            node.classList.remove("fx-pending");
            node.classList.add("fx-land");
            setTimeout(() => node.classList.remove("fx-land"), 700);
          });
        });
        await Promise.all(flights);
        await wait(250 * f);
        tray.remove();
      } else if (a.act === "draw" || a.act === "exchange") {
        const kid = a.from === "deck" ? null : a.card;
        const src = kid ? centre(document.querySelector("[data-zone=display]")) : centre(document.querySelector(".pile"));
        if (src && (visible(src) || visible(from))) {
          const node = kid ? cardNode(board, kid) : el("div", { class: "fx-card fx-back" }, el("span", { class: "fx-band", text: "?" }));
          await this.fly(node, src, from, 550 * f);
        } else await wait(300 * f);
      } else {
        await wait(500 * f);
      }
    }
    await wait(200 * f);
  }
}
