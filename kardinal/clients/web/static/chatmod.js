// Moderation in the chat (chat.js): every line another player (or a spectator) wrote has a
// small menu: mute them, block them (signed in), report the line to the operator.
//
// Muting an account holds on every device (the server keeps it: /api/moderation); a seat
// without an account, or a spectator, is muted by this browser alone, in this game. A
// muted player's lines stay in the list as "a line of Ben (muted)", so the talk still
// makes sense and they can be unmuted from there. Reporting needs an account or a seat at
// the table; the server keeps the line with the lines around it for the operator.

import { el } from "./dom.js";
import { T, lineName, addStrings } from "./i18n.js";
import { getJSON, postJSON } from "./net.js";
import { refusalText } from "./refusals.js";
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
  },
});

const key = (gameId) => `kardinal-muted:${gameId}`;

export class ChatModeration {
  /** chat: the Chat; onChange: redraw its lines. */
  constructor(chat, onChange) {
    this.chat = chat;
    this.onChange = onChange;
    this.silenced = new Set(); // seats the account muted or blocked (from the server)
    this.local = this.readLocal(); // {seats: [...], names: [...]} muted by this browser in this game
    this.me = null;
    this.version = 0; // changes when what is muted changes (the chat's redraw key)
    this.load();
  }

  get gameId() { return this.chat.page.gameId; }

  readLocal() {
    try { return JSON.parse(localStorage.getItem(key(this.gameId)) || "null") || { seats: [], names: [] }; } catch (e) { return { seats: [], names: [] }; }
  }

  saveLocal() {
    try { localStorage.setItem(key(this.gameId), JSON.stringify(this.local)); } catch (e) { /* private mode: for this page only */ }
  }

  async load() {
    this.me = await whoAmI();
    if (this.me) {
      try { this.silenced = new Set((await getJSON(`/api/moderation/silenced?game=${encodeURIComponent(this.gameId)}`)).seats); } catch (e) { /* signed out meanwhile */ }
    }
    this.changed();
  }

  changed() { this.version += 1; this.onChange(); }

  muted(x) {
    if (x.seat === null) return this.local.names.includes(x.name);
    return this.silenced.has(x.seat) || this.local.seats.includes(x.seat);
  }

  /** Whether this line gets a menu: another's line (a player's or a spectator's). */
  hasMenu(x) {
    return x.kind === "say" && !(x.seat !== null && this.chat.page.socket.holds(x.seat));
  }

  say(text, bad) { this.chat.tell(text, bad); }

  async setMute(x, on) {
    const name = x.name;
    let scope = "game";
    if (this.me && x.seat !== null) {
      try { scope = (await postJSON("/api/moderation/mute", { game: this.gameId, seat: x.seat, on })).scope; } catch (e) { this.say(e.error ? refusalText(e.error) : e.message, true); return; }
    }
    if (scope === "account") {
      if (on) this.silenced.add(x.seat); else this.silenced.delete(x.seat);
    }
    if (x.seat === null) this.local.names = on ? [...new Set([...this.local.names, name])] : this.local.names.filter((n) => n !== name);
    else if (scope === "game" || !on) this.local.seats = on ? [...new Set([...this.local.seats, x.seat])] : this.local.seats.filter((s) => s !== x.seat);
    this.saveLocal();
    this.say(T(on ? (scope === "account" ? "modMutedAll" : "modMutedHere") : "modUnmuted", { name }));
    this.changed();
  }

  async block(x) {
    try {
      const r = await postJSON("/api/moderation/block", { game: this.gameId, seat: x.seat, on: true });
      if (r.scope === "account") this.silenced.add(x.seat);
      else { this.local.seats = [...new Set([...this.local.seats, x.seat])]; this.saveLocal(); }
      this.say(T("modBlocked", { name: lineName(x) }));
      this.changed();
    } catch (e) { this.say(e.error ? refusalText(e.error) : e.message, true); }
  }

  /** The line's menu: a disclosure (keyboard and touch alike) with its actions. */
  menu(x) {
    const muted = this.muted(x);
    const d = el("details", { class: "chat-menu" });
    d.addEventListener("toggle", () => { if (d.open) d.parentElement.scrollIntoView({ block: "nearest" }); });
    const close = () => { d.open = false; };
    const item = (id, text, fn, title) => el("button", { type: "button", class: "chat-menu-item", "data-act": id, title, onclick: () => { close(); fn(); } }, text);
    d.append(
      el("summary", { "aria-label": T("modMenu", { name: lineName(x) }), title: T("modMenu", { name: lineName(x) }) }), // its ⋯ drawn by CSS: not in the line's text
      el("div", { class: "chat-menu-items" },
        item(muted ? "unmute" : "mute", T(muted ? "modUnmute" : "modMute", { name: lineName(x) }), () => this.setMute(x, !muted)),
        this.me && x.seat !== null && !muted ? item("block", T("modBlock", { name: lineName(x) }), () => this.block(x), T("modBlockWhy")) : null,
        this.me || this.chat.page.socket.holdsAny() ? item("report", T("modReport"), () => this.report(x)) : null));
    return d;
  }

  /** Ask why, then send the report (the line's index; the server keeps its context). */
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
      } catch (e) { note.textContent = e.error ? refusalText(e.error) : e.message; note.className = "report-note bad"; }
    });
    dialog.append(form);
    dialog.addEventListener("close", () => dialog.remove());
    document.body.append(dialog);
    dialog.showModal();
    reason.focus();
  }
}
