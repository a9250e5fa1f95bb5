// Moderation in the chat (chat.js): every line another player (or a spectator) wrote has a
// small menu: mute or unmute them, block or unblock them (signed in), report the line to the
// operator. Muting and blocking are two lists (a player may be on both): the menu offers
// each one's undoing or doing whatever the other is (menuActions).
//
// Muting an account holds on every device (the server keeps it: /api/moderation); a seat
// without an account, or a spectator, is muted by this browser alone, in this game. A
// muted player's lines stay in the list as "a line of Ben (muted)", so the talk still
// makes sense and they can be unmuted from there. Reporting needs an account or a seat at
// the table; the server keeps the line with the lines around it for the operator.

import { el } from "./dom.js";
import { T, lineName, addStrings } from "./i18n.js";
import { getJSON, postJSON } from "./net.js";
import { errorText } from "./refusals.js";
import { whoAmI } from "./account-link.js";

addStrings({
  en: {
    modMenu: "Options for the line of {name}",
    modMute: "Mute {name}",
    modUnmute: "Unmute {name}",
    modBlock: "Block {name}",
    modBlockWhy: "Hides their chat, and you are not invited or seated together any more.",
    modReport: "Report this line",
    modMutedLine: "A line of {name} (muted).",
    modReportTitle: "Report a line to the operator",
    modReportLine: "{name} wrote: “{text}”",
    modReason: "What is wrong with it?",
    modReasonHint: "a few words, e.g. insults, spam, cheating",
    modSend: "Send the report",
    modCancel: "Cancel",
    modReported: "Thank you: the report is sent, with the lines around it. The operator will look at it.",
    modMutedHere: "{name} is muted in this game (this browser).",
    modMutedAll: "{name} is muted on all your devices.",
    modUnmuted: "{name} is no longer muted.",
    modBlocked: "{name} is blocked.",
    modUnblock: "Unblock {name}",
    modUnblocked: "{name} is no longer blocked.",
    modBlockedLine: "A line of {name} (blocked).",
  },
  de: {
    modMenu: "Möglichkeiten zur Zeile von {name}",
    modMute: "{name} stummschalten",
    modUnmute: "{name} wieder hören",
    modBlock: "{name} blockieren",
    modBlockWhy: "Blendet den Chat aus, und ihr werdet nicht mehr eingeladen oder zusammen an einen Tisch gesetzt.",
    modReport: "Diese Zeile melden",
    modMutedLine: "Eine Zeile von {name} (stummgeschaltet).",
    modReportTitle: "Eine Zeile dem Betreiber melden",
    modReportLine: "{name} schrieb: „{text}“",
    modReason: "Was stimmt daran nicht?",
    modReasonHint: "ein paar Worte, z. B. Beleidigung, Spam, Betrug",
    modSend: "Meldung senden",
    modCancel: "Abbrechen",
    modReported: "Danke: die Meldung ist gesendet, mit den Zeilen davor und danach. Der Betreiber sieht sie sich an.",
    modMutedHere: "{name} ist in diesem Spiel stummgeschaltet (dieser Browser).",
    modMutedAll: "{name} ist auf allen deinen Geräten stummgeschaltet.",
    modUnmuted: "{name} ist nicht mehr stummgeschaltet.",
    modBlocked: "{name} ist blockiert.",
    modUnblock: "Blockierung von {name} aufheben",
    modUnblocked: "{name} ist nicht mehr blockiert.",
    modBlockedLine: "Eine Zeile von {name} (blockiert).",
  },
  da: {
    modMenu: "Valg for linjen fra {name}",
    modMute: "Dæmp {name}",
    modUnmute: "Fjern dæmpning af {name}",
    modBlock: "Blokér {name}",
    modBlockWhy: "Skjuler deres chat, og I bliver ikke længere inviteret eller sat ved samme bord.",
    modReport: "Anmeld denne linje",
    modMutedLine: "En linje fra {name} (dæmpet).",
    modReportTitle: "Anmeld en linje til operatøren",
    modReportLine: "{name} skrev: “{text}”",
    modReason: "Hvad er der galt med den?",
    modReasonHint: "få ord, f.eks. fornærmelser, spam, snyd",
    modSend: "Send anmeldelsen",
    modCancel: "Annullér",
    modReported: "Tak: anmeldelsen er sendt sammen med linjerne omkring den. Operatøren ser på den.",
    modMutedHere: "{name} er dæmpet i dette spil (denne browser).",
    modMutedAll: "{name} er dæmpet på alle dine enheder.",
    modUnmuted: "{name} er ikke længere dæmpet.",
    modBlocked: "{name} er blokeret.",
    modUnblock: "Fjern blokering af {name}",
    modUnblocked: "{name} er ikke længere blokeret.",
    modBlockedLine: "En linje fra {name} (blokeret).",
  },
});

/**
 * A line of a game's chat, or a notice to the table (play/messages.py ChatLineData;
 * `seat` null: a spectator's).
 * @typedef {object} ChatLine
 * @property {number} idx
 * @property {number} at
 * @property {number} version
 * @property {number | null} seat
 * @property {string} kind "say", "away", "back", "timeout", "timeout_away"
 * @property {string} name
 * @property {string} text
 */
/** What this module needs of the chat (chat.js Chat): its game page's id and socket, and
 * where it says things.
 * @typedef {{ page: { gameId: string, socket: import("./net.js").GameSocket }, tell: (text: string, bad?: boolean) => void }} ModChat */
/** @typedef {"mute" | "unmute" | "block" | "unblock" | "report"} MenuAction */

/** @param {string} gameId */
const key = (gameId) => `kardinal-muted:${gameId}`;

/** The actions a line's menu offers, by what its writer is to the reader: muted, blocked
 * (either, both or none), whether they can be blocked at all (signed in, a seat's line)
 * and whether the reader may report. Each list applies on its own: muted, "Unmute" and
 * still "Block"; blocked, "Unblock" and still "Mute"; both, "Unmute" and "Unblock".
 * @param {{ muted: boolean, blocked: boolean, canBlock: boolean, canReport: boolean }} who
 * @returns {MenuAction[]} */
export function menuActions({ muted, blocked, canBlock, canReport }) {
  /** @type {MenuAction[]} */
  const acts = [muted ? "unmute" : "mute"];
  if (canBlock) acts.push(blocked ? "unblock" : "block");
  if (canReport) acts.push("report");
  return acts;
}

export class ChatModeration {
  /** chat: the Chat; onChange: redraw its lines.
   * @param {ModChat} chat @param {() => void} onChange */
  constructor(chat, onChange) {
    this.chat = chat;
    this.onChange = onChange;
    /** @type {Set<number>} seats the account muted (from the server) */
    this.mutedSeats = new Set();
    /** @type {Set<number>} seats the account blocked (from the server) */
    this.blockedSeats = new Set();
    this.local = this.readLocal(); // muted by this browser in this game
    /** @type {{ id: number, name: string, created: number } | null} the signed-in account */
    this.me = null;
    this.version = 0; // changes when what is muted changes (the chat's redraw key)
    this.load();
  }

  get gameId() { return this.chat.page.gameId; }

  /** The seats and (spectators') names this browser muted in this game.
   * @returns {{ seats: number[], names: string[] }} */
  readLocal() {
    try { return JSON.parse(localStorage.getItem(key(this.gameId)) || "null") || { seats: [], names: [] }; } catch (e) { return { seats: [], names: [] }; }
  }

  saveLocal() {
    try { localStorage.setItem(key(this.gameId), JSON.stringify(this.local)); } catch (e) { /* private mode: for this page only */ }
  }

  async load() {
    this.me = await whoAmI();
    if (this.me) {
      try {
        const got = await getJSON(`/api/moderation/silenced?game=${encodeURIComponent(this.gameId)}`);
        this.mutedSeats = new Set(got.muted);
        this.blockedSeats = new Set(got.blocked);
      } catch (e) { /* signed out meanwhile */ }
    }
    this.changed();
  }

  changed() { this.version += 1; this.onChange(); }

  /** @param {ChatLine} x */
  muted(x) {
    if (x.seat === null) return this.local.names.includes(x.name);
    return this.mutedSeats.has(x.seat) || this.local.seats.includes(x.seat);
  }

  /** @param {ChatLine} x */
  blocked(x) { return x.seat !== null && this.blockedSeats.has(x.seat); }

  /** Whether the line is hidden (muted or blocked), and the words that stand for it.
   * @param {ChatLine} x */
  hidden(x) { return this.muted(x) || this.blocked(x); }

  /** @param {ChatLine} x */
  hiddenText(x) { return T(this.blocked(x) ? "modBlockedLine" : "modMutedLine", { name: lineName(x) }); }

  /** Whether this line gets a menu: another's line (a player's or a spectator's).
   * @param {ChatLine} x */
  hasMenu(x) {
    return x.kind === "say" && !(x.seat !== null && this.chat.page.socket.holds(x.seat));
  }

  /** @param {string} text @param {boolean} [bad] a refusal */
  say(text, bad) { this.chat.tell(text, bad); }

  /** Mute (on) or unmute a line's writer: an account's seat, on every device (the server
   * says "account"); else by this browser in this game.
   * @param {ChatLine} x @param {boolean} on */
  async setMute(x, on) {
    const name = x.name;
    let scope = "game";
    if (this.me && x.seat !== null) {
      try { scope = (await postJSON("/api/moderation/mute", { game: this.gameId, seat: x.seat, on })).scope; } catch (e) { this.say(errorText(e), true); return; }
    }
    if (scope === "account" && x.seat !== null) { // "account": only ever for a seat (asked above)
      if (on) this.mutedSeats.add(x.seat); else this.mutedSeats.delete(x.seat);
    }
    if (x.seat === null) this.local.names = on ? [...new Set([...this.local.names, name])] : this.local.names.filter((n) => n !== name);
    else if (scope === "game" || !on) this.local.seats = on ? [...new Set([...this.local.seats, x.seat])] : this.local.seats.filter((s) => s !== x.seat);
    this.saveLocal();
    this.say(T(on ? (scope === "account" ? "modMutedAll" : "modMutedHere") : "modUnmuted", { name: lineName(x) }));
    this.changed();
  }

  /** Block (on) or unblock a line's writer: an account, on every device; a seat without
   * one is muted by this browser in this game instead.
   * @param {ChatLine} x @param {boolean} [on] */
  async block(x, on = true) {
    const seat = x.seat;
    if (seat === null) return; // a spectator's line: its menu has no Block (menuActions: canBlock)
    try {
      const r = await postJSON("/api/moderation/block", { game: this.gameId, seat, on });
      if (r.scope === "account") { if (on) this.blockedSeats.add(seat); else this.blockedSeats.delete(seat); }
      else if (on) { this.local.seats = [...new Set([...this.local.seats, seat])]; this.saveLocal(); }
      this.say(T(on ? "modBlocked" : "modUnblocked", { name: lineName(x) }));
      this.changed();
    } catch (e) { this.say(errorText(e), true); }
  }

  /** The line's menu: a disclosure (keyboard and touch alike) with its actions.
   * @param {ChatLine} x */
  menu(x) {
    const acts = menuActions({
      muted: this.muted(x), blocked: this.blocked(x), canBlock: Boolean(this.me) && x.seat !== null,
      canReport: Boolean(this.me) || this.chat.page.socket.holdsAny(),
    });
    const d = el("details", { class: "chat-menu" });
    d.addEventListener("toggle", () => { if (d.open) d.parentElement?.scrollIntoView({ block: "nearest" }); });
    const close = () => { d.open = false; };
    /** @type {Record<MenuAction, [string, () => unknown, string?]>} each action's words, deed and title */
    const what = {
      mute: [T("modMute", { name: lineName(x) }), () => this.setMute(x, true)],
      unmute: [T("modUnmute", { name: lineName(x) }), () => this.setMute(x, false)],
      block: [T("modBlock", { name: lineName(x) }), () => this.block(x, true), T("modBlockWhy")],
      unblock: [T("modUnblock", { name: lineName(x) }), () => this.block(x, false)],
      report: [T("modReport"), () => this.report(x)],
    };
    /** @param {MenuAction} id */
    const item = (id) => {
      const [text, fn, title] = what[id];
      return el("button", { type: "button", class: "chat-menu-item", "data-act": id, title, onclick: () => { close(); fn(); } }, text);
    };
    d.append(
      el("summary", { "aria-label": T("modMenu", { name: lineName(x) }), title: T("modMenu", { name: lineName(x) }) }), // its ⋯ drawn by CSS: not in the line's text
      el("div", { class: "chat-menu-items" }, ...acts.map(item)));
    return d;
  }

  /** Ask why, then send the report (the line's index; the server keeps its context).
   * @param {ChatLine} x */
  report(x) {
    const reason = el("textarea", { id: "report-reason", maxlength: 500, rows: 3, required: true, placeholder: T("modReasonHint") });
    const note = el("p", { class: "report-note", role: "status" });
    const dialog = el("dialog", { id: "report-dialog", class: "report-dialog", "aria-labelledby": "report-title" });
    const form = el("form", { method: "dialog" },
      el("h2", { id: "report-title" }, T("modReportTitle")),
      el("p", { class: "report-line" }, T("modReportLine", { name: lineName(x), text: x.text })),
      el("label", { for: "report-reason" }, T("modReason")), reason, note,
      el("div", { class: "report-buttons" },
        el("button", { type: "submit", id: "report-send" }, T("modSend")),
        el("button", { type: "button", id: "report-cancel", onclick: () => dialog.close() }, T("modCancel"))));
    form.addEventListener("submit", async (ev) => {
      ev.preventDefault();
      const seats = this.chat.page.socket.seats;
      try {
        await postJSON("/api/moderation/report", { game: this.gameId, line: x.idx, reason: reason.value, seats });
        dialog.close();
        this.say(T("modReported"));
      } catch (e) { note.textContent = errorText(e); note.className = "report-note bad"; }
    });
    dialog.append(form);
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
    reason.focus();
  }
}
