// Who left the table, and when a bot plays for them: a line under the header, where the
// turn is said, from the server's presence messages (hello "presence"). The server sends
// the seconds until the stand-in, never a time of its clock: the countdown runs on this
// page's own clock from the moment the message came, so a wrong clock does not matter.
// A person who comes back before it ends takes the line with them; when the stand-in takes
// over, the chat and the game log say so (chat.js, log.js). Nothing private is in it: a
// name, a seat, seconds.

import { el, pagePart } from "./dom.js";
import { T, seatName, onLangChange } from "./i18n.js";
import { announce } from "./a11y.js";
/** @import { GamePage, StateMessage } from "./game.js" */

/**
 * A person not at the table (messages.py AwayData).
 * @typedef {object} AwayData
 * @property {number} seat
 * @property {string} name
 * @property {number | null} standin_in seconds until a bot may play for them (null: never)
 */

/**
 * Who is at a running table now (messages.py PresenceMessage).
 * @typedef {object} PresenceMessage
 * @property {"presence"} type
 * @property {string} game
 * @property {number[]} here
 * @property {AwayData[]} away
 */

/** @typedef {{ seat: number, name: string, until: number | null }} Away one away, `until`: performance.now() ms when a bot may take over (null: never) */

/** Seconds as m:ss (the same in both languages).
 * @param {number} seconds */
export function clock(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  return `${Math.floor(s / 60)}:${String(s % 60).padStart(2, "0")}`;
}

export class PresenceLine {
  /** @param {GamePage} page */
  constructor(page) {
    this.page = page;
    /** @type {Set<number> | null} the person seats here now (any server process), once told */
    this.here = null;
    /** @type {Away[]} */
    this.away = [];
    /** @type {Set<number>} seats this page has seen here: they "left", the others are "not here" */
    this.seen = new Set();
    /** @type {ReturnType<typeof setInterval> | null} */
    this.timer = null;
    this.box = el("div", { id: "presence", class: "presence", "aria-label": T("awayTitle"), hidden: true });
    pagePart("body > header").after(this.box);
    onLangChange(() => { this.box.setAttribute("aria-label", T("awayTitle")); this.render(); });
  }

  /** Another game is watched now (a spectator followed "Play again"): its presence messages come anew. */
  reset() {
    this.here = null;
    this.away = [];
    this.seen = new Set();
    this.render();
  }

  /** A presence message.
   * @param {PresenceMessage} m */
  heard(m) {
    const now = performance.now();
    const before = new Set(this.away.map((a) => a.seat));
    this.here = new Set(m.here);
    for (const s of m.here) this.seen.add(s);
    this.away = m.away.map((a) => ({ seat: a.seat, name: a.name, until: a.standin_in === null ? null : now + a.standin_in * 1000 }));
    this.render();
    // read out once who left (the countdown itself is not read out every second)
    for (const a of this.away) if (!before.has(a.seat)) announce(this.text(a, now));
  }

  /** Seen here in a state message (a page that came after them).
   * @param {StateMessage} msg */
  noteState(msg) {
    for (const p of msg.players) if (p.present) this.seen.add(p.seat);
  }

  /** @param {Away} a @param {number} now performance.now() */
  text(a, now) {
    const name = seatName(a.name, a.seat);
    const who = T(this.seen.has(a.seat) ? "awayLeft" : "awayNotHere", { name });
    if (a.until === null) return T("awayWaits", { who, name });
    const left = (a.until - now) / 1000;
    if (left > 0) return T("awayIn", { who, time: clock(left) });
    const v = this.page.msg && this.page.msg.view;
    return T(v && v.current === a.seat ? "awayNow" : "awayTurn", { who, name });
  }

  render() {
    const msg = this.page.msg;
    const now = performance.now();
    const live = msg && msg.status === "running" && !this.page.replay;
    const shown = live ? this.away : [];
    // and those a bot plays for now (until they come back)
    const standins = live && !msg.hotseat ? msg.players.filter((p) => p.kind === "person" && p.standin) : [];
    const lines = shown.map((a) => this.text(a, now)).concat(standins.map((p) => T("awayStandin", { name: seatName(p.name, p.seat) })));
    if (lines.join("\n") !== [...this.box.children].map((x) => x.textContent).join("\n")) {
      this.box.replaceChildren(
        ...shown.map((a, i) => el("p", { "data-seat": String(a.seat), "data-until": a.until === null ? "never" : "" }, lines[i])),
        ...standins.map((p, i) => el("p", { "data-seat": String(p.seat), class: "presence-standin" }, lines[shown.length + i])));
    }
    this.box.hidden = !lines.length;
    // the countdown runs while a line shows one
    const ticking = shown.some((a) => a.until !== null && a.until > now - 1000);
    if (ticking && !this.timer) this.timer = setInterval(() => this.render(), 250);
    else if (!ticking && this.timer) { clearInterval(this.timer); this.timer = null; }
  }
}
