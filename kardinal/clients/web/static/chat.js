// The table: who is here, the "your turn" signals (notify.js) and the game's chat. The
// chat is stored with the game: everyone at the table and every spectator reads it; the
// players write, spectators only if the players allowed it when creating the game. The
// server also puts its notices here (a bot stands in for a person who left; they came
// back). Everything said is shown as text, never as markup.

import { el } from "./dom.js";
import { T, seatName, lineName, onLangChange, levelName } from "./i18n.js";
import { refusalText } from "./refusals.js";
import { ChatModeration } from "./chatmod.js";
/** @import { GamePage } from "./game.js" */
/** @import { ErrorData } from "./messages.js" */

/**
 * A line of a game's chat, or a notice to the table (messages.py ChatLineData; `kind` "say",
 * "away", "back", "timeout", "timeout_away"; a notice's `text` names the bot's level).
 * @typedef {object} ChatLineData
 * @property {number} idx
 * @property {number} at Unix time
 * @property {number} version the game's number of actions then
 * @property {number | null} seat null: a spectator
 * @property {string} kind
 * @property {string} name
 * @property {string} text
 */

const MAX = 300; // characters in a line (the server's MAX_CHAT)

/** @type {Record<string, [string, string]>} the table's notices: their words about another seat, and to this page's own seat */
const NOTICES = {
  away: ["chatAway", "chatAwayYou"],
  back: ["chatBack", "chatBackYou"],
  timeout: ["chatTimeout", "chatTimeoutYou"],
  timeout_away: ["chatTimeoutAway", "chatTimeoutAwayYou"],
};

export class Chat {
  /** @param {GamePage} page @param {HTMLElement} box */
  constructor(page, box) {
    this.page = page;
    this.box = box;
    /** @type {ChatLineData[]} by idx */
    this.lines = [];
    this.built = false;
    this.shown = ""; // what the list shows (to redraw only on change)
    this.mod = this.moderation();
    // made by build(), the first time the chat is shown:
    /** @type {HTMLOListElement} */ this.list;
    /** @type {HTMLParagraphElement} */ this.here;
    /** @type {HTMLDivElement} */ this.signals;
    /** @type {HTMLParagraphElement} */ this.note;
    /** @type {HTMLInputElement} */ this.input;
    /** @type {HTMLInputElement | null} a spectator's name */ this.nameInput;
    /** @type {HTMLFormElement} */ this.form;
    onLangChange(() => { this.built = false; this.shown = ""; this.render(); });
  }

  /** Mute, block, report: of the page's game (what this browser muted there). */
  moderation() { return new ChatModeration(this, () => { this.shown = ""; this.render(); }); }

  /** Another game is watched now (a spectator followed "Play again"): its lines come anew,
   * and the chat is built again for it (who may write there). */
  reset() {
    this.lines = [];
    this.built = false;
    this.shown = "";
    this.mod = this.moderation();
    this.box.replaceChildren();
  }

  /** Say something under the chat (what a moderation step did, or why it was refused).
   * @param {string} text @param {boolean} [bad] */
  tell(text, bad) {
    if (this.note) { this.note.textContent = text; this.note.className = bad ? "chat-note bad" : "chat-note"; }
  }

  /** New lines from the server (all kept lines right after connecting).
   * @param {ChatLineData[]} lines */
  heard(lines) {
    const have = new Set(this.lines.map((x) => x.idx));
    for (const x of lines) if (!have.has(x.idx)) this.lines.push(x);
    // a live turn of this page's own seat ran out while the page is open (not a notice of an
    // earlier turn, read as the page opened: the chat so far comes after the first state)
    const opened = this.page.firstVersion ?? Infinity;
    const mine = lines.find((x) => x.kind === "timeout" && !have.has(x.idx) && x.version >= opened && this.yours(x));
    this.lines.sort((a, b) => a.idx - b.idx);
    if (mine) this.page.timedOut(mine);
    if (lines.some((x) => x.kind !== "say")) this.page.render(); // the log shows the notices too
    else this.render();
  }

  /** The table's notices (away, back, a turn's time ran out), for the game log. */
  notices() { return this.lines.filter((x) => x.kind !== "say"); }

  /** A refusal of a line this page sent: said under the chat's form.
   * @param {ErrorData} m */
  refused(m) {
    if (this.note) { this.note.textContent = refusalText(m); this.note.className = "chat-note bad"; }
  }

  canWrite() {
    const msg = this.page.msg;
    if (!msg) return false;
    return this.page.socket.holdsAny() || Boolean(msg.table && msg.table.spectator_chat);
  }

  build() {
    const msg = this.page.msg;
    this.built = true;
    // a list of lines inside a live log (role=log on the <ol> itself would unmake the list)
    this.list = el("ol", { class: "chat-lines" });
    const log = el("div", { class: "chat-log", role: "log", "aria-live": "polite", "aria-label": T("chatLog") }, this.list);
    this.here = el("p", { class: "chat-here" });
    this.signals = el("div", { id: "signals", class: "signals" });
    this.note = el("p", { class: "chat-note", id: "chat-note", role: "status" });
    const spectator = !this.page.socket.holdsAny();
    this.input = el("input", { type: "text", id: "chat-text", maxlength: MAX, autocomplete: "off", "aria-label": T("chatLabel"), placeholder: T("chatLabel") });
    this.nameInput = spectator ? el("input", { type: "text", id: "chat-name", maxlength: 24, autocomplete: "nickname", "aria-label": T("chatName"), placeholder: T("chatName") }) : null;
    const form = el("form", { class: "chat-form", id: "chat-form" },
      this.nameInput, this.input, el("button", { type: "submit", id: "chat-send" }, T("chatSend")));
    form.addEventListener("submit", (ev) => {
      ev.preventDefault();
      const text = this.input.value.trim();
      if (!text) return;
      this.page.socket.sendChat(text, this.nameInput ? this.nameInput.value.trim() : undefined);
      this.input.value = "";
      this.note.textContent = "";
      this.note.className = "chat-note";
    });
    const readOnly = msg && !this.canWrite() ? el("p", { class: "chat-note" }, T("chatReadOnly")) : null;
    // a player is told who reads what they write: spectators too (every game can be watched)
    const public_ = !spectator && !(msg && msg.hotseat) ? el("p", { class: "chat-note small", id: "chat-public" }, T("chatPublic")) : null;
    this.form = form;
    this.box.replaceChildren(...[el("h2", { id: "table-title" }, T("tableTitle")), this.here, this.signals, log, readOnly || form, public_, this.note].filter((x) => x !== null));
    this.box.setAttribute("aria-labelledby", "table-title");
    if (this.page.signal) this.page.signal.renderControls(this.signals);
  }

  /** A line's words: a notice about this page's own seat in the first person (also when
   * read again as the page opens), about another's by name; what a person said as it is.
   * @param {ChatLineData} x */
  lineText(x) {
    const words = NOTICES[x.kind];
    if (!words) return x.text;
    return T(words[this.yours(x) ? 1 : 0], { name: lineName(x), level: levelName(x.text) });
  }

  /** Whether a notice is about this page's own seat (said to it in the first person, here and in the log; not at a hot-seat table).
   * @param {{ seat: number | null }} x */
  yours(x) { return x.seat !== null && !(this.page.msg && this.page.msg.hotseat) && this.page.socket.holds(x.seat); }

  render() {
    const msg = this.page.msg;
    if (!msg) return;
    if (!this.built) this.build();
    // who is here, and for whom a bot plays
    const people = msg.players.filter((p) => p.kind === "person");
    const told = this.page.presence && this.page.presence.here; // also those connected to another server process
    const here = people.filter((p) => p.present || (told && told.has(p.seat))).map((p) => seatName(p.name, p.seat));
    const standins = people.filter((p) => p.standin).map((p) => seatName(p.name, p.seat));
    let hereText = people.length && !msg.hotseat ? (here.length ? T("hereNow", { names: here.join(", ") }) : T("hereNobody")) : "";
    if (standins.length) hereText += (hereText ? " " : "") + T("standinNow", { names: standins.join(", ") });
    if (this.here.textContent !== hereText) this.here.textContent = hereText;
    // the lines (in a replay: those said up to its step)
    const replay = this.page.replay;
    const lines = replay ? this.lines.filter((x) => x.version <= replay.step) : this.lines;
    const key = `${lines.length}:${lines.length ? lines[lines.length - 1].idx : -1}:${replay ? replay.step : ""}:${this.mod.version}`;
    if (key === this.shown) return;
    this.shown = key;
    const items = lines.map((x) => {
      const notice = x.kind !== "say";
      const menu = !replay && this.mod.hasMenu(x) ? this.mod.menu(x) : null;
      if (!notice && this.mod.hidden(x)) {
        return el("li", { class: "chat-say chat-muted", "data-seat": x.seat === null ? "" : String(x.seat), "data-idx": String(x.idx) },
          el("span", { class: "chat-text" }, this.mod.hiddenText(x)), menu);
      }
      const who = notice ? null : el("span", { class: "chat-who" }, x.seat === null ? (x.name ? `${x.name} (${T("chatSpectator")})` : T("chatSpectatorAnon")) : lineName(x));
      return el("li", { class: notice ? "chat-notice" : "chat-say", "data-seat": x.seat === null ? "" : String(x.seat), "data-idx": String(x.idx) },
        who, who ? ": " : null, el("span", { class: "chat-text" }, this.lineText(x)), menu);
    });
    if (!items.length) items.push(el("li", { class: "chat-empty" }, T("chatEmpty")));
    this.list.replaceChildren(...items);
    this.list.title = replay ? T("chatUntil") : "";
    this.list.scrollTop = this.list.scrollHeight;
  }
}
