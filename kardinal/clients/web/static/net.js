// The network: JSON over HTTP, and a game's WebSocket (hello with the seats' tokens,
// actions with a client id, reconnecting when the connection drops).
//
// Every address the pages use goes through url(): behind a reverse proxy the server may
// live under a path (`kardinal serve --root-path /kardinal`); the server names it in the
// page's <meta name="root"> and getJSON/postJSON put it in front of "/api/...".

/** @import { ErrorData } from "./messages.js" */

/** The seats a browser holds in a game: each seat's number (as a string) to its token.
 * @typedef {Record<string, string>} Seats */

/** The path the server lives under ("" at the root of its host). */
export const ROOT = (document.querySelector('meta[name="root"]')?.getAttribute("content") || "").replace(/\/$/, "");

/** An absolute path ("/api/games") under the server's root.
 * @param {string} path */
export function url(path) { return path.startsWith("/") ? ROOT + path : path; }

/** An HTTP error with the server's refusal ({"error": {"code", "message", "params", ...}}) as `error`. */
export class HttpError extends Error {
  /** @param {number} status @param {ErrorData} error */
  constructor(status, error) {
    super(error.message);
    this.status = status;
    this.code = error.code;
    this.error = error;
  }
}

/** @param {Response} r */
async function answer(r) {
  let data = null;
  try { data = await r.json(); } catch (e) { /* not JSON */ }
  if (!r.ok) {
    const err = (data && data.error) || {};
    throw new HttpError(r.status, { code: "http", message: `HTTP ${r.status}`, params: {}, ...err });
  }
  return data;
}

/** @param {string} path */
export async function getJSON(path) { return answer(await fetch(url(path))); }

/** @param {string} path @param {unknown} body */
export async function postJSON(path, body) {
  return answer(await fetch(url(path), { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify(body) }));
}

/** The storage key of the seats this browser holds in a game.
 * @param {string} gameId */
function seatsKey(gameId) { return `kardinal-seats:${gameId}`; }

/** The seats this browser holds in a game: {seat: token}, from its storage.
 * @param {string} gameId
 * @returns {Seats} */
export function storedSeats(gameId) {
  try { return JSON.parse(localStorage.getItem(seatsKey(gameId)) || "{}") || {}; } catch (e) { return {}; }
}

/** Keep seats of a game in this browser's storage ({seat: token}, added to those it holds).
 * @param {string} gameId @param {Seats} seats */
export function storeSeats(gameId, seats) {
  try { localStorage.setItem(seatsKey(gameId), JSON.stringify(Object.assign(storedSeats(gameId), seats))); } catch (e) { /* private mode */ }
}

/** Forget the seats this browser holds in a game (a wrong or outdated link).
 * @param {string} gameId */
export function forgetStoredSeats(gameId) {
  try { localStorage.removeItem(seatsKey(gameId)); } catch (e) { /* private mode */ }
}

/** Forget those of the seats this browser holds in a game whose tokens are these ({seat: token}: a token that
 * opens its seat no more), keeping any other (a newer token another page of this browser stored meanwhile).
 * @param {string} gameId @param {Seats} seats */
export function forgetTokens(gameId, seats) {
  const kept = storedSeats(gameId);
  for (const [s, t] of Object.entries(seats)) if (kept[s] === t) delete kept[s];
  try {
    if (Object.keys(kept).length) localStorage.setItem(seatsKey(gameId), JSON.stringify(kept));
    else localStorage.removeItem(seatsKey(gameId));
  } catch (e) { /* private mode */ }
}

/** A seat's new tokens ({seat: token}: it became the signed-in account's, and the tokens of before
 * open it no more): kept in this browser's storage, and in the page's address if it still holds them
 * there (no storage: the link stays the key).
 * @param {string} gameId @param {Seats} tokens */
export function renewSeats(gameId, tokens) {
  storeSeats(gameId, tokens);
  const params = new URLSearchParams(location.search);
  let changed = false;
  const seat = params.get("seat");
  if (seat !== null && params.get("token") && tokens[seat]) { params.set("token", tokens[seat]); changed = true; }
  const held = params.get("tokens");
  if (held) {
    params.set("tokens", held.split(",").map((part) => {
      const i = part.indexOf(":");
      return i > 0 && tokens[part.slice(0, i)] ? `${part.slice(0, i)}:${tokens[part.slice(0, i)]}` : part;
    }).join(","));
    changed = true;
  }
  if (changed && location.pathname.startsWith(ROOT + "/game/")) {
    try { history.replaceState(null, "", location.pathname + "?" + params.toString() + location.hash); } catch (e) { /* as it was */ }
  }
}

/** Keep a seat's token in this browser (the home page: the creator's own seat of a new
 * table, so that "My games" lists it before its link is opened).
 * @param {string} gameId @param {number} seat @param {string} token */
export function storeSeat(gameId, seat, token) {
  try { localStorage.setItem(seatsKey(gameId), JSON.stringify({ ...storedSeats(gameId), [seat]: token })); } catch (e) { /* private mode */ }
}

/**
 * The seats' tokens of a game page: those it was opened with (?seat=&token= or
 * ?tokens=seat:token,…), kept in the browser's storage and then taken out of the address
 * (so they do not stay in the history, a bookmark or a shared screen; the server also
 * sends no Referer), together with those stored from an earlier visit. `gameId`: the game
 * page's own game unless given.
 * @param {string} search
 * @param {string} [gameId]
 * @returns {Seats}
 */
export function tokensFromURL(search, gameId) {
  const params = new URLSearchParams(search);
  /** @type {Seats} */
  const out = {};
  const seat = params.get("seat"), token = params.get("token");
  if (seat !== null && token) out[seat] = token;
  for (const part of (params.get("tokens") || "").split(",")) {
    const i = part.indexOf(":");
    if (i > 0) out[part.slice(0, i)] = part.slice(i + 1);
  }
  if (gameId === undefined && location.pathname.startsWith(ROOT + "/game/")) gameId = decodeURIComponent(location.pathname.split("/").pop() || "");
  if (!gameId) return out;
  const all = Object.assign(storedSeats(gameId), out);
  if (Object.keys(out).length) {
    try {
      localStorage.setItem(seatsKey(gameId), JSON.stringify(all));
      params.delete("seat"); params.delete("token"); params.delete("tokens");
      const rest = params.toString();
      history.replaceState(null, "", location.pathname + (rest ? "?" + rest : "") + location.hash);
    } catch (e) { /* no storage (private mode): the link stays the key */ }
  }
  return all;
}

/** Every game this browser holds a seat in ("My games"). */
export function allStoredSeats() {
  /** @type {{ game: string, seats: Seats }[]} */
  const out = [];
  try {
    for (let i = 0; i < localStorage.length; i++) {
      const key = localStorage.key(i);
      if (!key || !key.startsWith("kardinal-seats:")) continue;
      const game = key.slice("kardinal-seats:".length);
      const seats = storedSeats(game);
      if (Object.keys(seats).length) out.push({ game, seats });
    }
  } catch (e) { /* no storage */ }
  return out;
}

/**
 * One game's WebSocket. handlers: onState(msg), onError(msg), onAck(msg), onChat(msg), onPresence(msg), onClock(msg), onClose(),
 * onFollow(gameId). It says hello with the seats it holds, and connects again after a drop. A spectator's socket
 * follows "Play again" over the same connection (follow()): welcomed to the next game, it is that game's socket.
 */
export class GameSocket {
  /**
   * @param {string} gameId
   * @param {Seats} seats
   * @param {{ onState: (m: any) => void, onError: (m: any) => void, onAck?: (m: any) => void, onChat?: (m: any) => void,
   *   onPresence?: (m: any) => void, onClock?: (m: any) => void, onClose?: (ev: CloseEvent) => void,
   *   onFollow?: (gameId: string) => void }} handlers
   *   (the messages' shapes: kardinal/server/play/messages.py)
   */
  constructor(gameId, seats, handlers) {
    this.gameId = gameId;
    /** @type {Seats} */
    this.seats = Object.assign({}, seats);
    this.handlers = handlers;
    /** @type {WebSocket | null} the connection connect() made last */
    this.ws = null;
    this.delay = 300;
    this.counter = 0;
    /** @type {string | null} the id of the action sent last, until acknowledged */
    this.pending = null;
    this.quiet = false; // the connection is closed on purpose (retake): no drop to tell
  }

  /** The connection connect() made: sending before it is a fault, told as such. */
  live() {
    if (!this.ws) throw new Error("a game's socket sends only after connect()");
    return this.ws;
  }

  /** @param {number | string} seat */
  holds(seat) { return Object.prototype.hasOwnProperty.call(this.seats, String(seat)); }

  holdsAny() { return Object.keys(this.seats).length > 0; }

  connect() {
    const proto = location.protocol === "https:" ? "wss:" : "ws:";
    const ws = new WebSocket(`${proto}//${location.host}${ROOT}/ws/${encodeURIComponent(this.gameId)}`);
    this.ws = ws;
    ws.onopen = () => { this.delay = 300; this.hello(); };
    /** @type {unknown[] | null} the view's history as this connection last sent it */
    let held = null;
    /** @type {number | null} whose view that history is (a hot-seat page's changes with the turn) */
    let heldSeat = null;
    ws.onmessage = (ev) => {
      const m = JSON.parse(ev.data);
      if (m.type === "welcome") {
        if (m.game !== this.gameId) { // followed to the next game (follow()): its history starts afresh
          this.gameId = m.game; // (connecting again after a drop: to this game)
          held = null;
          heldSeat = null;
          if (this.handlers.onFollow) this.handlers.onFollow(m.game); // before its first state
        }
        // seats that became the signed-in account's: their new tokens (those of before open them no more)
        if (m.tokens) { Object.assign(this.seats, m.tokens); renewSeats(this.gameId, m.tokens); }
      }
      else if (m.type === "state") {
        if (m.history) { // a delta (hello "delta"): the entries after the first `from` we hold
          // it continues a history of the same viewer only (another's tells other draws): else start again
          if (!held || held.length < m.history.from || heldSeat !== m.seat) { ws.close(); return; }
          m.view.history = held.slice(0, m.history.from).concat(m.history.entries);
          delete m.history;
        }
        held = m.view.history;
        heldSeat = m.seat;
        const ack = m.ack; // hello "ack_in_state": the acknowledgement of this page's own action
        delete m.ack;
        this.handlers.onState(m);
        if (ack) this.acknowledged(ack);
      }
      else if (m.type === "chat") { if (this.handlers.onChat) this.handlers.onChat(m); }
      else if (m.type === "presence") { if (this.handlers.onPresence) this.handlers.onPresence(m); }
      else if (m.type === "clock") { if (this.handlers.onClock) this.handlers.onClock(m); }
      else if (m.type === "error") this.handlers.onError(m);
      else if (m.type === "ack") this.acknowledged(m);
    };
    ws.onclose = (ev) => {
      if (this.handlers.onClose && !this.quiet) this.handlers.onClose(ev);
      this.quiet = false;
      if (ev.code === 4404) return; // no such game: nothing to come back to
      if (ev.code === 4403) { // the seats' tokens opened them no more (another device or account took them): watch
        forgetTokens(this.gameId, this.seats);
        this.seats = {};
      }
      if (ev.code === 4423) this.seats = {}; // the seats' account is suspended: watch; the tokens stay for later
      setTimeout(() => this.connect(), this.delay);
      this.delay = Math.min(5000, this.delay * 2);
    };
  }

  /** @param {{ id: string }} ack */
  acknowledged(ack) {
    if (ack.id === this.pending) this.pending = null;
    if (this.handlers.onAck) this.handlers.onAck(ack);
  }

  hello() {
    // deltas of the history, and each acknowledgement inside the state its action made
    /** @type {{ type: "hello", delta: boolean, ack_in_state: boolean, presence: boolean, seats?: Record<string, string> }} */
    const hello = { type: "hello", delta: true, ack_in_state: true, presence: true };
    if (this.holdsAny()) hello.seats = this.seats;
    this.live().send(JSON.stringify(hello));
  }

  /** Whether this socket can follow the game "Play again" started (follow()): it is open and holds no seats. */
  canFollow() { return Boolean(this.ws && this.ws.readyState === WebSocket.OPEN) && !this.holdsAny(); }

  /** A spectator goes on to watch the game "Play again" started, over this connection (no new
   * page, no new socket): the server welcomes it there (onFollow), then sends that game's state.
   * Returns the message's id (a refusal echoes it), or null if it cannot (canFollow()). */
  follow() {
    if (!this.canFollow()) return null;
    const id = `follow-${(this.counter++).toString(36)}`;
    this.live().send(JSON.stringify({ type: "follow", id }));
    return id;
  }

  /** Watch as a spectator from now on (a wrong or outdated link). */
  forgetSeats() {
    forgetTokens(this.gameId, this.seats);
    this.seats = {};
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.hello(); // else: on connecting again
  }

  /** Watch as a spectator while the seats' account is suspended: this browser keeps the
   * tokens (they open the seats again once the suspension ends: retake()). */
  watchOnly() {
    this.seats = {};
    if (this.ws && this.ws.readyState === WebSocket.OPEN) this.hello(); // else: on connecting again
  }

  /** Try the seats this browser kept (watchOnly) again: the spectator's connection is
   * closed and made anew with their tokens (a connection says hello once), refused
   * "suspended" while the suspension lasts (then it watches again). Whether it was tried. */
  retake() {
    const kept = storedSeats(this.gameId);
    if (this.holdsAny() || !Object.keys(kept).length || !this.ws || this.ws.readyState !== WebSocket.OPEN) return false;
    this.seats = kept;
    this.quiet = true; // (not a drop: the page does not say "disconnected")
    this.ws.close();
    return true;
  }

  /** Send a record action for its seat, expected to apply to state `version`.
   * @param {{ seat: number }} action @param {number} version */
  sendAction(action, version) {
    const id = `${Date.now().toString(36)}-${(this.counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
    this.pending = id;
    this.live().send(JSON.stringify({ type: "action", id, seat: action.seat, token: this.seats[action.seat], version, action }));
    return id;
  }

  /** Say something in the game's chat (`name`: a spectator's).
   * @param {string} text @param {string} [name] */
  sendChat(text, name) {
    const id = `chat-${(this.counter++).toString(36)}`;
    this.live().send(JSON.stringify(name ? { type: "chat", id, text, name } : { type: "chat", id, text }));
    return id;
  }

  /** Take back this seat's placement (before drawing), expected at state `version`.
   * @param {number} seat @param {number} version */
  sendUndo(seat, version) {
    this.live().send(JSON.stringify({ type: "undo", seat, token: this.seats[seat], version }));
  }
}
