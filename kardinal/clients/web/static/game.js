// The game page: it wires the modules together and holds the page's state (the latest
// state message, a replay being stepped through, the selection). Everything shown comes
// from the server's state messages, built from this seat's view; the legal moves come
// with the message only for the seat to act.
//
//   board.js      the game's board data and its names       net.js     HTTP and the WebSocket
//   map.js        the map                                    hand.js    display, pile and hand
//   selection.js  choosing cards and pieces among the legal moves
//   log.js        the game log (record actions and events)   panels.js  players, scoring, replay
//   i18n.js       every word, in English and German          header.js  language and About
//   teach.js      hints and the post-game review            notify.js  "your turn" signals
//   chat.js       the game's chat                            since.js   "since your last turn"
//   presence.js   who left, and when a bot takes over
//   clock.js      the table's clock: each person's time

import { byId, el } from "./dom.js";
import { T, seatName, onLangChange, rulesText, variantText, boardName, boardAbout, levelName } from "./i18n.js";
import { loadBoard } from "./board.js";
import { GameSocket, HttpError, getJSON, postJSON, storeSeats, storedSeats, tokensFromURL, url } from "./net.js";
/** @import { Seats } from "./net.js" */
/** @import { Board } from "./board.js" */
/** @import { ErrorData, PlayerData, TableOptions, HistoryEntry, RecordAction, InvitationInfo, GameSummary } from "./messages.js" */
/** @import { ChatLineData } from "./chat.js" */
/** @import { EventData } from "./log.js" */

// The shapes of the WebSocket's game messages this page reads (messages.py StateMessage,
// ReplayMessage; rules/view.py ViewData), kept here as messages.js has them not yet.

/** A seat's view of the game (rules/view.py ViewData): one typedef, panels.js's.
 * @typedef {import("./panels.js").ViewData} ViewData */

/**
 * The game as one seat (or a spectator) may see it (messages.py StateMessage; `legal` only
 * for the seat to act; net.js has put a history delta back into `view.history`).
 * @typedef {object} StateMessage
 * @property {"state"} type
 * @property {string} game
 * @property {string} status open, running, finished
 * @property {boolean} hotseat
 * @property {number} version
 * @property {PlayerData[]} players
 * @property {TableOptions} table
 * @property {number | null} seat
 * @property {ViewData} view
 * @property {{ intermediate?: number, last_round?: number }} marks
 * @property {{ alliances: { number: number, holders: number[], points: number }[] }} standing
 * @property {RecordAction[]} [legal]
 * @property {string} [again] the game "Play again" started after this finished one
 */

/**
 * A finished game after `step` actions: the spectator's view and every hand (messages.py ReplayMessage).
 * @typedef {object} ReplayMessage
 * @property {"replay"} type
 * @property {string} game
 * @property {number} step
 * @property {number} total
 * @property {PlayerData[]} players
 * @property {ViewData} view
 * @property {Record<string, number>[]} hands
 */
import { GameMap } from "./map.js";
import { MapZoom } from "./zoom.js";
import { rememberFocus, restoreFocus, announce } from "./a11y.js";
import { Selection } from "./selection.js";
import { renderHand, renderTable } from "./hand.js";
import { renderLog, describeAction, describeEvent, stoodIn } from "./log.js";
import { renderPlayers, renderScoring, turnText } from "./panels.js";
import { renderReplayBox, replayWhere } from "./replay.js";
import { ScoringOverlay } from "./scoring.js";
import { initHeader } from "./header.js";
import { refusalText } from "./refusals.js";
import { Follower } from "./follow.js";
import { renderAlliances } from "./standing.js";
import { Teach } from "./teach.js";
import { TurnSignal } from "./notify.js";
import { Chat } from "./chat.js";
import { Since, standinMoves } from "./since.js";
import { inView } from "./inview.js";
import { PresenceLine } from "./presence.js";
import { ClockLine } from "./clock.js";
import { RatedGame } from "./rated-game.js";
import { sessionRefused, updateAccountLink, whoAmI } from "./account-link.js";

/** A caught error in words: the server's refusal (net.js HttpError), else the error's message.
 * @param {unknown} e @param {Board | null} board */
function caughtText(e, board) {
  return e instanceof HttpError ? refusalText(e.error, board) : e instanceof Error ? e.message : String(e);
}

/** The layouts of phones and tablets held upright (style.css: the map above the side panel)
 * and of phones turned (a short window). */
const PHONE = "(max-width: 900px), (max-height: 560px) and (orientation: landscape)";
const RETAKE_EVERY = 60_000; // ms between two tries of the seats of a suspended account (retakeLater)

export class GamePage {
  constructor() {
    this.gameId = decodeURIComponent(location.pathname.split("/").pop() || "");
    /** @type {StateMessage | null} the latest state message */
    this.msg = null;
    /** @type {ReplayMessage | null} a replay message while stepping through a finished game */
    this.replay = null;
    /** @type {number | null} hot-seat: the seat whose hand was shown */
    this.revealed = null;
    /** @type {Board | null} the Board of this game (view.board) */
    this.board = null;
    /** @type {GameMap | null} drawn once the board is loaded */
    this.map = null;
    /** @type {string | null} the board id being loaded */
    this.wantBoard = null;
    /** @type {Record<string, string>} variant name -> the server's description (a fallback for the text table) */
    this.variantWords = {};
    this.sel = new Selection(() => this.legal());
    this.socket = new GameSocket(this.gameId, tokensFromURL(location.search), {
      onState: (m) => this.onState(m),
      onError: (m) => this.onError(m),
      onChat: (m) => this.chat.heard(m.lines),
      onPresence: (m) => { this.presence.heard(m); this.chat.render(); },
      onClock: (m) => this.clock.heard(m),
      onClose: () => { byId("status").textContent = T("disconnected"); },
      onFollow: (id) => this.followed(id),
    });
    // the page's parts, made by start():
    /** @type {Follower} */ this.follower;
    /** @type {ScoringOverlay} */ this.scoring;
    /** @type {MapZoom} */ this.zoom;
    /** @type {Teach} */ this.teach;
    /** @type {TurnSignal} */ this.signal;
    /** @type {Chat} */ this.chat;
    /** @type {Since} */ this.since;
    /** @type {PresenceLine} */ this.presence;
    /** @type {ClockLine} */ this.clock;
    /** @type {RatedGame} */ this.rated;
    /** @type {ReturnType<typeof setTimeout> | undefined} the next try of a suspended account's seats (retakeLater) */
    this.retakeTimer = undefined;
    document.addEventListener("visibilitychange", () => { if (!document.hidden) this.retake(); }); // (retakeLater)
    // set by the first state message (onState) and by a notice of this seat's time run out (timedOut):
    /** @type {boolean | undefined} the game was over when the page opened */ this.overOnArrival;
    /** @type {number | undefined} the game's version when the page opened */ this.firstVersion;
    /** @type {ChatLineData | null | undefined} a live turn of this seat that ran out, until said (sayTimeout) */ this.timeout;
    /** @type {string | null | undefined} what was said of it */ this.timeoutText;
    /** @type {string | null} the next game this page's socket was asked to follow to (playAgain) */
    this.following = null;
  }

  start() {
    initHeader(() => this.aboutText());
    this.follower = new Follower({ board: () => this.board, name: (/** @type {number} */ s) => this.name(s) }, byId("followbar"));
    // the scorings as events: an overlay over the map, never holding the game back
    this.scoring = new ScoringOverlay({ gameId: this.gameId, board: () => this.board, map: () => this.map, onAgain: () => this.playAgain() });
    onLangChange(() => this.scoring.texts());
    GameMap.label(byId("map"));
    this.zoom = new MapZoom(byId("mapwrap"), byId("map", SVGSVGElement), { toggle: byId("zoom", HTMLButtonElement), more: byId("zoom-more", HTMLButtonElement), less: byId("zoom-less", HTMLButtonElement) },
      () => Boolean(this.map && this.map.selecting));
    onLangChange(() => { this.zoom.labels(); this.follower.texts(); this.render(); });
    // Escape: one step back in the choice (a dialog or overlay that is open takes it first)
    document.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape" || ev.defaultPrevented || document.querySelector("dialog[open]")) return;
      if (ev.target instanceof Element && ev.target.closest("input, textarea, select")) return; // typing: not a step back
      if (this.sel.back()) { ev.preventDefault(); this.say(""); this.render(); }
    });
    // on a phone the line about the others' turns and its controls sit in the side panel, right under the hand (seen without scrolling)
    const small = window.matchMedia(PHONE);
    const placeFollow = () => {
      const bar = byId("followbar");
      if (small.matches) byId("msg").after(bar); else byId("mapbox").prepend(bar);
    };
    small.addEventListener("change", placeFollow);
    placeFollow();
    this.teach = new Teach(this, byId("teachbox"));
    this.signal = new TurnSignal(this);
    this.chat = new Chat(this, byId("chatbox"));
    // the end: the final table on the finished game's page; "since your last turn" above the hand
    const finalbox = el("section", { id: "finalbox", class: "finalbox", hidden: true });
    const sincebox = el("section", { id: "since", class: "since", hidden: true });
    byId("handbox").before(finalbox, sincebox);
    this.since = new Since({ board: () => this.board, map: () => this.map, zoom: () => this.zoom, name: (s) => this.name(s) }, sincebox);
    this.presence = new PresenceLine(this);
    this.clock = new ClockLine(this);
    this.rated = new RatedGame(this.gameId, () => this.socket.seats); // start with bots; rating changes
    this.render();
    getJSON("/api/variants").then((d) => { this.variantWords = d.variants || {}; this.render(); }).catch(() => { /* the text table's words only */ });
    // Back to a game this page followed from ("Play again", watched over the same socket): that game's page
    window.addEventListener("popstate", () => { if (this.pathGame() !== this.gameId) location.reload(); });
    this.socket.connect();
  }

  /** The game the page's address names. */
  pathGame() { return decodeURIComponent(location.pathname.split("/").pop() || ""); }

  /** The socket followed "Play again" to the next game (a spectator: no new page, no new
   * connection): the address names it, and nothing of the game before is kept, so that
   * its first state message is taken as a page's first. (The board stays if it is the same.)
   * @param {string} id */
  followed(id) {
    this.gameId = id;
    this.following = null;
    if (this.pathGame() !== id) history.pushState(null, "", url(`/game/${encodeURIComponent(id)}`));
    this.msg = null;
    this.replay = null;
    this.revealed = null;
    this.overOnArrival = undefined;
    this.firstVersion = undefined;
    this.timeout = null;
    this.timeoutText = null;
    this.sel.clear();
    this.say("");
    delete document.body.dataset.auth; // (what was said of this page's link to the game before)
    this.follower.reset();
    this.scoring.reset(id);
    this.chat.reset();
    this.since.reset();
    this.presence.reset();
    this.clock.reset();
    this.rated.reset(id);
    this.teach.reset();
    byId("finalbox").hidden = true;
    byId("finalbox").replaceChildren();
    if (this.zoom.z > 1) this.zoom.whole();
    this.render();
  }

  // ------------------------------------------------------------ what the page knows

  /** The latest state message, for what runs only once one came (draw() and what it drew:
   * the clicks, the replay); before it, an error as before (a TypeError then). */
  state() {
    if (!this.msg) throw new Error("no state message yet");
    return this.msg;
  }

  view() { return this.replay ? this.replay.view : this.state().view; }

  players() { return this.replay ? this.replay.players : this.state().players; }

  /** @param {number} seat */
  name(seat) { const p = this.msg && this.msg.players[seat]; return p ? seatName(p.name, seat) : `${T("seat")} ${seat + 1}`; }

  hidden() { return Boolean(this.msg && this.msg.hotseat && this.revealed !== this.msg.seat); }

  /** The seat whose hand this page shows now (null: none; a hot-seat hand behind its curtain
   * is not shown, nor is any card that seat drew). */
  viewer() {
    if (this.replay || !this.msg || this.msg.seat === null || this.msg.seat === undefined || this.hidden()) return null;
    return this.msg.seat;
  }

  /** The history as this page may show it: the kind of a card drawn from the pile only for
   * the seat whose hand is shown (R13.2). A hot-seat page gets the history of the seat to
   * act: behind the curtain that seat's own draws are not shown (the person at the screen
   * may be another), and an entry kept from an earlier viewer never tells its draw.
   * @param {HistoryEntry[] | null | undefined} history
   * @returns {HistoryEntry[]} */
  shownHistory(history) {
    const me = this.viewer();
    const secret = (/** @type {EventData} */ ev) => ev.type === "drew" && ev.kind !== null && ev.kind !== undefined && ev.seat !== me;
    return (history || []).map((entry) => (!(entry.events || []).some(secret) ? entry
      : { ...entry, events: entry.events.map((ev) => (secret(ev) ? { ...ev, kind: null } : ev)) }));
  }

  /** The actions this page may send now. */
  legal() {
    if (this.replay || !this.msg || !this.msg.legal) return [];
    if (this.hidden()) return [];
    return this.msg.legal;
  }

  aboutText() {
    if (!this.board) return "";
    const b = this.board.data;
    const rules = this.msg ? " " + this.rulesLine(this.msg.view.variants) + "." : "";
    return `${T("boardOf", { name: boardName(this.board.id) })}. ` + (b.reconstruction ? T("reconstruction") + " " : "") + boardAbout(b) + rules;
  }

  /** @param {string[] | null | undefined} variants */
  rulesLine(variants) {
    const v = variants || [];
    return v.length ? `${rulesText(v)} — ${v.map((n) => variantText(n, this.variantWords[n]).replace(/\.$/, "")).join("; ")}` : rulesText(v);
  }

  // ------------------------------------------------------------ messages

  /** @param {StateMessage} m */
  onState(m) {
    const old = this.msg;
    const turnChanged = !old || old.seat !== m.seat || old.view.current !== m.view.current || old.version !== m.version;
    if (old && old.hotseat && m.seat !== this.revealed) this.revealed = null;
    // hot-seat: another person comes to the screen; what was said to the one before (a card
    // of their hand that could not be played, a refusal) goes with their hand
    if (old && m.hotseat && old.seat !== m.seat) { this.say(""); this.teach.hint = null; }
    this.msg = m;
    if (m.seat !== null && document.body.dataset.auth === "suspended") this.retaken();
    if (!old) this.overOnArrival = m.status === "finished"; // opened later: the result shown, the walk-through offered
    if (!old) this.toldOnArrival();
    if (!old) this.firstVersion = m.version; // (chat.js: a notice since then is news)
    // (a finished game too: its seat has the final table's Play again and the players' chat)
    if (!old && m.seat === null && !this.socket.holdsAny()) this.seatsOfAccount();
    if (!old && m.seat !== null) sessionStorage.removeItem(`kardinal-reseated:${this.gameId}`); // seated: a later ended link may be healed again
    if (old) this.announceNews(old, m);
    if (turnChanged) this.sel.clear();
    // the others have played: the whole map again, not the corner this player last enlarged
    if (old && this.zoom.z > 1 && m.view.current === m.seat && old.view.current !== m.seat && m.view.phase !== "over") this.zoom.whole();
    // the game is over: the whole map (its result), not the corner this player last enlarged
    if (old && this.zoom.z > 1 && m.status === "finished" && old.status !== "finished") this.zoom.whole();
    this.useBoard(m.view.board);
    this.render();
    // the others' new decisions are shown over the drawn state (never delaying it)
    const hurry = m.view.phase === "over" || (m.seat !== null && m.seat !== undefined && m.view.current === m.seat);
    this.follower.update(m.view.history || [], m.hotseat ? (old ? old.seat : null) : m.seat, m.players.length, hurry);
    // a scoring that just happened opens its overlay (once), over the board it is drawn on
    loadBoard(m.view.board).then(() => { if (!this.replay) this.scoring.notice(m.view.history || [], this.overOnArrival); }).catch(() => {});
  }

  /** Signed in and watching a game this browser holds no seat of (a plain link to it, or
   * a link whose token ended when the seat became the account's): the account's own seats
   * here get their tokens at once (in the answer, never in an address) and the page opens
   * them; a seat it is invited to by name is offered, one tap away. Signed out: nothing. */
  async seatsOfAccount() {
    if (!(await whoAmI())) return;
    try {
      const own = ((await getJSON("/api/account/games")).games || []).find((/** @type {{ game: GameSummary, seats: number[] }} */ g) => g.game && g.game.id === this.gameId); // (schemas.py MyGame)
      const again = `kardinal-reseated:${this.gameId}`; // once: never a loop of reloads
      if (own && own.seats.length && !sessionStorage.getItem(again) && !this.socket.holdsAny()) {
        /** @type {Seats} */
        const got = {};
        for (const s of own.seats) got[s] = (await postJSON("/api/account/seat", { game: this.gameId, seat: Number(s) })).token;
        storeSeats(this.gameId, got);
        sessionStorage.setItem(again, "1");
        location.replace(url(`/game/${encodeURIComponent(this.gameId)}`));
        return;
      }
      sessionStorage.removeItem(again);
    } catch (e) { /* the account's games unknown now: watched as before */ }
    this.offerInvitedSeat();
  }

  /** Invited by name to a seat of this game: the seat offered under the hand, one tap
   * away; taken, it becomes the account's and its token comes in the answer. */
  async offerInvitedSeat() {
    let inv;
    try { inv = await getJSON("/api/account/invitations"); } catch (e) { return; }
    const mine = (inv.received || []).find((/** @type {InvitationInfo} */ i) => i.game && i.game.id === this.gameId);
    if (!mine || this.socket.holdsAny()) return;
    const take = async () => {
      try {
        const r = await postJSON("/api/account/invitations/take", { game: this.gameId, seat: mine.seat });
        storeSeats(r.game, { [r.seat]: r.token });
        location.reload();
      } catch (e) {
        this.say(caughtText(e, this.board), true);
      }
    };
    this.say(T("invitedHere", { by: mine.by || T("deletedPlayer"), seat: this.name(mine.seat) }));
    byId("msg").append(" ", el("button", { type: "button", id: "take-invited", class: "primary", onclick: take }, T("takeInvitedSeat")));
  }

  /** Read out the others' new decisions and every scoring since the last message.
   * @param {StateMessage} old @param {StateMessage} m */
  announceNews(old, m) {
    const before = (old.view.history || []).length;
    const h = m.view.history || [];
    if (h.length <= before || !this.board) return;
    const ctx = { board: this.board, name: (/** @type {number} */ s) => this.name(s) };
    for (const entry of h.slice(before)) {
      const a = entry.action;
      if (a.seat !== m.seat || m.hotseat) announce(describeAction(a, ctx));
      for (const ev of entry.events || []) {
        const d = describeEvent(ev, ctx);
        if (d && d.kind !== "new_draw_pile") announce(d.text);
      }
    }
  }

  /** @param {ErrorData & { type: "error", id?: string | null }} m (messages.py ErrorMessage) */
  onError(m) {
    if (typeof m.id === "string" && m.id.startsWith("chat-")) { this.chat.refused(m); return; }
    // following "Play again" over the socket refused (a server of before, ...): the next game's page as ever
    if (typeof m.id === "string" && m.id.startsWith("follow-")) { this.goAgain(); return; }
    // (a suspension is no refused move: it is said as it is, the page goes on as a spectator's)
    this.say(m.code === "suspended" ? refusalText(m, this.board) : T("refused", { msg: refusalText(m, this.board) }), true);
    if (m.code === "bot_seat") { // the seat went to a bot (a table started without this person): watch
      document.body.dataset.auth = "bot";
      this.socket.forgetSeats();
    }
    if (m.code === "bad_token" && !this.msg) {
      // a wrong or outdated link: watch the game as a spectator instead
      document.body.dataset.auth = "bad";
      this.socket.forgetSeats();
    }
    if (m.code === "suspended" && this.socket.holdsAny()) {
      // the seats' account is suspended: watch (a bot stands in as for anyone away); the
      // refusal stays in sight, with until when, why and whom to ask; said in full once:
      // when the header says it already (this browser is signed in to the account), in short
      document.body.dataset.auth = "suspended";
      this.socket.watchOnly();
      this.retakeLater(m);
      whoAmI().then(() => {
        const above = sessionRefused();
        if (above && above.code === "suspended" && document.body.dataset.auth === "suspended") this.say(T("refusedWatch"), true);
      });
    }
  }

  /** While the seats' account is suspended, the page watches and tries the seats again:
   * when the suspension ends (the refusal's `until`), every RETAKE_EVERY, and whenever the
   * page is shown again (the operator may lift it sooner: seen without a reload).
   * @param {ErrorData} m the refusal "suspended" */
  retakeLater(m) {
    clearTimeout(this.retakeTimer);
    const at = m.params ? Number(m.params.at) : NaN; // (until when: seconds since 1970)
    const until = Number.isFinite(at) ? at * 1000 - Date.now() + 1000 : RETAKE_EVERY;
    this.retakeTimer = setTimeout(() => this.retake(), Math.max(1000, Math.min(RETAKE_EVERY, until)));
  }

  retake() {
    if (document.body.dataset.auth !== "suspended" || this.socket.retake()) return; // (refused again: retakeLater)
    clearTimeout(this.retakeTimer); // not now (the connection is being made again): later
    this.retakeTimer = setTimeout(() => this.retake(), RETAKE_EVERY);
  }

  /** The seats opened again after a suspension (lifted, or over): what was said of it goes,
   * the header's notice too. */
  retaken() {
    clearTimeout(this.retakeTimer);
    delete document.body.dataset.auth;
    this.say("");
    whoAmI(true).then(() => updateAccountLink());
  }

  /** Load and draw the board of this game (once; again only if the view names another).
   * @param {string} id */
  useBoard(id) {
    if ((this.board && this.board.id === id) || this.wantBoard === id) return;
    this.wantBoard = id;
    loadBoard(id).then((board) => {
      if (this.wantBoard !== id) return;
      this.board = board;
      this.map = new GameMap(byId("map"), board, {
        onCountry: (/** @type {string} */ cid) => this.clickCountry(cid),
        onSite: (/** @type {string} */ sid) => this.clickSite(sid),
        onCoat: (/** @type {string} */ cid) => this.clickCoat(cid),
        name: (/** @type {number} */ seat) => this.name(seat),
      });
      this.map.zoom = this.zoom;
      this.render();
    }).catch((e) => {
      this.wantBoard = null;
      this.say(caughtText(e, this.board), true);
    });
  }

  // ------------------------------------------------------------ clicks

  /** @param {string} text @param {boolean} [bad] */
  say(text, bad) {
    const m = byId("msg");
    m.textContent = text || "";
    delete m.dataset.notice;
    m.className = bad ? "bad" : "";
    // a refusal stays until the next action or until it is closed
    if (bad && text) m.append(el("button", { type: "button", class: "msg-close", "aria-label": T("close"), title: T("close"), onclick: () => this.say("") }));
    if (bad && text) inView(m); // a refusal where the player is looking (the side panel may be scrolled)
  }

  /** A live turn of this page's seat ran out (the chat's notice, as it came): said where the
   * player looks, under their hand (#msg: read out at once), in the first person; once the
   * bot's turn is over, with what it played ("Since your last turn" lists it too).
   * @param {ChatLineData} notice */
  timedOut(notice) {
    this.timeout = notice;
    this.timeoutText = null;
    this.sayTimeout();
  }

  sayTimeout() {
    const x = this.timeout;
    if (!x || !this.msg || !this.board || this.replay) return;
    const h = this.msg.view.history || [];
    let end = x.version;
    while (end < h.length && h[end].action.seat === x.seat) end += 1;
    const done = end > x.version && (end < h.length || this.msg.view.current !== x.seat || this.msg.status !== "running");
    if (end > x.version && !done) return; // the bot is in the middle of the turn: said once it is over
    const level = levelName(x.text);
    const text = done ? T("timeoutYouPlayed", { level, moves: standinMoves(h.slice(x.version, end), { board: this.board }) }) : T("timeoutYou", { level });
    if (done) this.timeout = null;
    if (text === this.timeoutText) return;
    this.timeoutText = text;
    this.say(text);
    const m = byId("msg");
    m.dataset.notice = "timeout";
    inView(m);
  }

  /** @param {RecordAction} action */
  send(action) {
    if (!this.msg) return;
    this.socket.sendAction(action, this.msg.version);
    this.sel.clear();
    this.render();
  }

  /** @param {string} kid @param {boolean} selected */
  clickHandCard(kid, selected) {
    if (!this.legal().length) { // out of turn: say why nothing happens
      if (!this.replay && this.msg && this.msg.status === "running") this.say(turnText({ msg: this.msg, view: this.msg.view, hidden: this.hidden(), watching: false }), true);
      return;
    }
    if (selected) this.sel.removeCard(kid);
    else if (!this.sel.addCard(kid)) {
      this.say(T("noCard", { card: this.board?.cardName(kid) }), true);
      return;
    }
    this.say("");
    this.render();
  }

  /** @param {string} cid */
  clickCountry(cid) {
    if (this.replay || this.sel.empty) return;
    if (this.sel.chooseCountry(cid)) this.render();
  }

  /** A site or coat of arms chosen before any card: say what comes first (when it is this seat's turn to place). */
  cardFirst() {
    if (this.legal().some((a) => a.act === "place")) this.say(T("cardFirst"));
  }

  /** @param {string} sid */
  clickSite(sid) {
    if (this.sel.empty && !this.replay) this.cardFirst();
    if (this.replay || this.sel.empty) return;
    if (!this.sel.toggleSite(sid, this.board?.siteCountry(sid))) {
      this.say(T("noSite", { site: this.board?.siteName(sid) }), true);
      return;
    }
    this.say("");
    this.render();
  }

  /** @param {string} cid */
  clickCoat(cid) {
    if (this.sel.empty && !this.replay) this.cardFirst();
    if (this.replay || this.sel.empty) return;
    if (!this.sel.clickCoat(cid)) {
      // the reason: the country's limit (no cloister there yet, or full), else the cards
      const v = this.state().view;
      const m = v.advisor_limit[cid];
      const n = v.advisors[cid].reduce((x, y) => x + y, 0) + (this.sel.country === cid ? this.sel.advisors : 0) + 1;
      const key = m === 0 ? "noCoatEmpty" : n > m ? "noCoatFull" : "noCoat";
      this.say(T(key, { country: this.board?.countryName(cid), n, m }), true);
      return;
    }
    this.say("");
    this.render();
  }

  /** @param {string} source */
  clickTake(source) {
    const action = this.sel.takeFrom(source);
    if (action) this.send(action);
    else if (this.legal().length) this.say(T("noTake"), true);
  }

  /** @param {number} step */
  async loadReplay(step) {
    try {
      this.replay = await getJSON(`/api/games/${encodeURIComponent(this.gameId)}/replay/${step}`);
    } catch (e) {
      this.say(caughtText(e, this.board), true);
      return;
    }
    this.render();
  }

  /** What the page that sent this one here asked it to say as it opens (Play again: this
   * person's seat went to a bot), once. */
  toldOnArrival() {
    const key = `kardinal-told:${this.gameId}`;
    const code = sessionStorage.getItem(key);
    if (!code) return;
    sessionStorage.removeItem(key);
    if (code === "bot_seat") {
      document.body.dataset.auth = "bot";
      this.say(refusalText({ code }, this.board), true);
    }
  }

  /** Play again: a new game with the same players, the start player moved on one seat
   * (or the one another player started already: the server answers the same game). The
   * people keep their tokens; the answer says at which seat each now sits (hot-seat: all
   * seats in this browser). A spectator only goes to watch the new game: over the page's
   * open socket (follow()), else on its page. */
  async playAgain() {
    const held = tokensFromURL(location.search);
    if (!Object.keys(held).length && this.msg && this.msg.again && !this.bots()) {
      if (!this.followAgain(this.msg.again)) this.goAgain();
      return;
    }
    try {
      const r = await postJSON(`/api/games/${encodeURIComponent(this.gameId)}/again`, { seats: held });
      /** @type {Seats} */
      const moved = {};
      for (const [s, t] of Object.entries(held)) if (r.seats && r.seats[s] !== undefined) moved[r.seats[s]] = t;
      // a seat of this page went to a bot (the new table was started without its person):
      // the new game's page says so as it opens, and watches
      if (r.gone && r.gone.length && !Object.keys(moved).length) sessionStorage.setItem(`kardinal-told:${r.id}`, "bot_seat");
      // the seats kept in this browser's storage before going: the new page's address holds no token
      // (only where the storage refuses, in a private window: the address is then the key)
      storeSeats(r.id, moved);
      const kept = storedSeats(r.id);
      const unkept = Object.fromEntries(Object.entries(moved).filter(([s, t]) => kept[s] !== t));
      // nobody's seat (a game of bots only, watched): followed over the open socket
      if (!Object.keys(moved).length && !(r.gone && r.gone.length) && this.followAgain(r.id)) return;
      location.assign(this.againURL(r.id, unkept));
    } catch (e) {
      this.say(caughtText(e, this.board), true);
    }
  }

  /** Watch the game "Play again" started over the page's open socket (a spectator's: it holds
   * no seats); false if it cannot (not connected now).
   * @param {string} id */
  followAgain(id) {
    if (!this.socket.follow()) return false;
    this.following = id;
    return true;
  }

  /** The page of the game "Play again" started (a spectator whose socket could not follow). */
  goAgain() {
    const again = this.following || (this.msg && this.msg.again);
    if (again) location.assign(url(`/game/${encodeURIComponent(again)}`));
  }

  /** Whether only bots play this game (anyone may start the next one). */
  bots() { return this.msg !== null && this.msg.players.every((p) => p.kind === "bot"); }

  /** The new game's page, with the seats this browser holds there that its storage could not
   * keep ({seat: token}; the page takes them out of the address at once).
   * @param {string} id @param {Seats} seats */
  againURL(id, seats) {
    const q = Object.keys(seats).length ? "?tokens=" + Object.entries(seats).map(([s, t]) => `${s}:${encodeURIComponent(t)}`).join(",") : "";
    return url(`/game/${encodeURIComponent(id)}${q}`);
  }

  /** Parity with the terminal: one's own placement may be taken back before drawing a card
   * (the server checks it again: nobody has acted since, no card has come from the pile). */
  canUndo() {
    if (this.replay || !this.msg || !this.legal().length) return false;
    const v = this.msg.view;
    const h = v.history || [];
    const last = h[h.length - 1];
    return v.phase === "draw" && Boolean(last) && last.action.act === "place" && last.action.seat === this.msg.seat && !(last.events || []).length;
  }

  undo() {
    const msg = this.state();
    if (msg.seat === null) return; // (canUndo: a seat to act)
    this.socket.sendUndo(msg.seat, msg.version);
    this.sel.clear();
    this.say("");
  }

  // ------------------------------------------------------------ drawing

  /** Redraw from the page's state, the keyboard's focus kept where it was. */
  render() {
    const focus = rememberFocus();
    this.draw();
    restoreFocus(focus);
  }

  draw() {
    if (!this.msg || !this.board || !this.map) { byId("status").textContent = T("connecting"); return; }
    const msg = this.msg;
    const v = this.view();
    const board = this.board;
    const body = document.body;
    body.dataset.status = msg.status;
    body.dataset.version = String(msg.version);
    body.dataset.phase = v.phase;
    body.dataset.myTurn = this.legal().length ? "true" : "false";
    body.dataset.replay = this.replay ? String(this.replay.step) : "";
    body.dataset.board = board.id;
    body.dataset.variants = (v.variants || []).join(" ");
    byId("status").textContent = this.replay ? replayWhere(msg.view.history, this.replay.step)
      : turnText({ msg, view: v, hidden: this.hidden(), watching: msg.seat === null && !this.socket.holdsAny() });
    const info = byId("rules-info");
    info.textContent = rulesText(v.variants);
    info.title = this.rulesLine(v.variants) + ` · ${T("boardOf", { name: boardName(board.id) })}`;
    info.classList.toggle("variant", Boolean((v.variants || []).length));

    this.map.update(v, this.replay ? null : msg.standing);
    renderPlayers(byId("players"), { board, players: this.players(), view: v, mySeat: msg.seat, hands: this.replay ? this.replay.hands : null });
    renderAlliances(byId("alliancesbox"), { board, players: this.players(), standing: this.replay || msg.status === "finished" ? null : msg.standing });
    renderTable(byId("table"), { board, view: v, sel: this.sel, onTake: (s) => this.clickTake(s) });
    if (this.replay || msg.seat === null || v.hand === undefined) byId("handbox").replaceChildren();
    else {
      const me = msg.players[msg.seat];
      renderHand(byId("handbox"), {
        board, view: v, sel: this.sel, hidden: this.hidden(), playerName: seatName(me.name, msg.seat),
        title: msg.hotseat ? `${T("hand")} — ${seatName(me.name, msg.seat)}` : T("hand"),
        onReveal: () => { this.revealed = msg.seat; this.sel.clear(); this.render(); },
        onCard: (k, selected) => this.clickHandCard(k, selected),
        onSend: (a) => this.send(a),
        onClear: () => { this.sel.clear(); this.say(""); this.render(); },
      });
    }
    if (this.canUndo()) {
      byId("handbox").append(el("p", { class: "undo" },
        el("button", { type: "button", id: "undo", title: T("undoWhy"), onclick: () => this.undo() }, T("undo"))));
    }
    this.map.highlight(this.sel.targets(), this.sel);
    renderReplayBox(byId("replaybox"), msg.status !== "finished" ? null : {
      step: this.replay ? this.replay.step : msg.version,
      total: msg.version,
      replaying: Boolean(this.replay),
      go: (s) => this.loadReplay(s),
      live: () => { this.replay = null; this.render(); },
      recordURL: url(`/api/games/${encodeURIComponent(this.gameId)}/record`),
      fileName: `kardinal-${this.gameId}.json`,
      history: msg.view.history,
      marks: msg.marks,
      onScoring: (kind) => this.scoring.open(kind),
      again: null, // the next game is offered by the final table (finalbox)
    });
    this.scoring.renderFinal(byId("finalbox"), {
      finished: msg.status === "finished", again: msg.again || null, newGame: url("/"),
      canAgain: this.bots() || this.socket.holdsAny(), watching: !this.socket.holdsAny(), onAgain: () => this.playAgain(),
    });
    this.rated.render(msg);
    this.since.render({
      history: this.shownHistory(msg.view.history), seat: msg.seat, current: msg.view.current, players: msg.players.length,
      hidden: Boolean(this.replay) || msg.status !== "running",
      stoodIn: (i) => stoodIn(this.chat.notices(), msg.seat, i, msg.view.history),
    });
    renderScoring(byId("scoring"), { board, players: this.players(), view: v, onScoring: (/** @type {string} */ kind) => this.scoring.open(kind) });
    byId("log-title").textContent = T("log");
    renderLog(byId("log"), { board, name: (s) => this.name(s), history: this.shownHistory(v.history), variants: v.variants, boardId: board.id,
      notices: this.chat ? this.chat.notices() : [], yours: (n) => Boolean(this.chat && this.chat.yours(n)) });
    this.teach.render();
    this.signal.render();
    this.chat.render();
    this.presence.noteState(msg);
    this.presence.render();
    this.clock.render();
    this.sayTimeout();
  }
}

new GamePage().start();
