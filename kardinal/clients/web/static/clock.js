// The table's clock on the game page (a table created with one: options.clock): a line under
// the header, where the turn is said, with each person's time: the one to act counting
// down (the turn's own time, then their reserve), the others' reserves (live tables). The
// server sends durations ("remaining": seconds at the time of its message, like the
// presence message), never a time of its clock: the countdown runs on this page's clock
// from the moment the message came, so a wrong clock does not matter. The last 10 seconds
// show in red, and are said to screen readers once (not every second); at a turn-based
// table the time left is said in words ("2 days 23 h left") and, on the reader's own turn,
// its last URGENT_HOURS are urgent, in red and said once (deadline.js). When the time is
// up, the server's bot plays (clock-choice.js says the rules; the chat and the log say it
// happened: chat.js, log.js).

import { el, pagePart, swatch } from "./dom.js";
import { T, seatName, onLangChange } from "./i18n.js";
import { announce } from "./a11y.js";
import { clock } from "./presence.js";
import { clockText } from "./clock-choice.js";
import { URGENT_HOURS, timeLeft } from "./deadline.js";
/** @import { GamePage } from "./game.js" */
/** @import { ClockOptions } from "./messages.js" */

/**
 * A table's clock (messages.py ClockMessage): durations in seconds from this message.
 * @typedef {object} ClockMessage
 * @property {"clock"} type
 * @property {string} game
 * @property {number} version
 * @property {number | null} seat whose clock runs (null: none)
 * @property {number | null} remaining their seconds left in all
 * @property {number | null} move_left of which the turn's own time
 * @property {(number | null)[]} reserves each seat's reserve at the start of its turn (null: no clock, a bot's)
 * @property {boolean} expired
 * @property {ClockOptions} clock
 */

const WARN = 10; // seconds: the last ones show in red, and are said once

/** A span of seconds: m:ss under an hour, else hours and minutes, or days and hours.
 * @param {number} seconds */
export function left(seconds) {
  const s = Math.max(0, Math.ceil(seconds));
  if (s < 3600) return clock(s);
  if (s < 86400) return T("clockHours", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
  return T("clockDays", { d: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600) });
}

export class ClockLine {
  /** @param {GamePage} page */
  constructor(page) {
    this.page = page;
    /** @type {ClockMessage | null} the latest clock message */
    this.m = null;
    this.at = 0; // performance.now() when it came
    /** @type {string | null} the turn (seat:version) whose last seconds were said */
    this.warned = null;
    /** @type {ReturnType<typeof setInterval> | null} */
    this.timer = null;
    this.box = el("div", { id: "clockline", class: "clockline", role: "group", "aria-label": T("clockTitle"), hidden: true });
    pagePart("body > header").after(this.box);
    onLangChange(() => { this.box.setAttribute("aria-label", T("clockTitle")); this.render(); });
  }

  /** Another game is watched now (a spectator followed "Play again"): its clock message comes anew. */
  reset() {
    this.m = null;
    this.warned = null;
    this.render();
  }

  /** A clock message.
   * @param {ClockMessage} m */
  heard(m) {
    this.m = m;
    this.at = performance.now();
    this.render();
  }

  render() {
    const msg = this.page.msg;
    const m = this.m;
    const on = Boolean(m && msg && msg.status === "running" && !this.page.replay);
    this.box.hidden = !on;
    if (!on || !m || !msg) { this.tick(false); return; }
    const gone = (performance.now() - this.at) / 1000;
    const turnBased = m.clock && m.clock.days !== undefined;
    /** @type {HTMLElement[]} */
    const chips = [];
    let warn = false;
    msg.players.forEach((p, seat) => {
      const reserve = m.reserves[seat];
      if (reserve === null || reserve === undefined) return; // a bot's seat: no clock
      const running = seat === m.seat;
      if (!running && turnBased) return; // no reserve at a turn-based table: only the one to act
      let time;
      let state = "idle";
      if (running && m.expired) { time = T("clockUp"); state = "up"; }
      else if (running && turnBased) { // days: the time left in words, urgent in its last hours (deadline.js)
        const t = timeLeft((m.remaining ?? 0) - gone, this.page.socket.holds(seat)); // urgent to the one to act only
        time = t.text;
        state = t.urgent ? "warn" : "turn";
        warn = warn || t.urgent;
      } else if (running) {
        const all = Math.max(0, (m.remaining ?? 0) - gone); // (a running seat's: never null)
        const own = Math.max(0, (m.move_left ?? 0) - gone);
        state = own > 0 ? "turn" : "reserve";
        time = own > 0 && !turnBased && reserve > 0 ? T("clockPlus", { move: left(own), reserve: left(reserve) })
          : own > 0 ? left(own) : `${left(all)} (${T("clockReserve")})`;
        if (all <= WARN) { warn = true; state = "warn"; }
      } else time = left(reserve);
      chips.push(el("span", { class: "clock-chip", "data-seat": String(seat), "data-state": state, "aria-current": running ? "true" : null },
        swatch(seat), ` ${seatName(p.name, seat)} `, el("b", { class: "clock-time" }, time)));
    });
    if (!chips.length) { this.box.hidden = true; this.tick(false); return; }
    this.box.replaceChildren(el("span", { class: "clock-what", title: clockText(m.clock) }, T("clockLabel") + ":"), ...chips);
    this.box.dataset.warn = warn ? "true" : "false";
    // the last seconds said once a turn (the countdown itself is not read out)
    const turn = `${m.seat}:${m.version}`;
    if (warn && !m.expired && this.warned !== turn && m.seat !== null) { // (warn: a seat's clock runs)
      this.warned = turn;
      if (turnBased) announce(T("clockUrgentYou", { h: URGENT_HOURS })); // (urgent only on the reader's own turn)
      else announce(m.seat === msg.seat ? T("clockWarnYou") : T("clockWarn", { name: seatName(msg.players[m.seat].name, m.seat) }));
    }
    this.tick(m.seat !== null && !m.expired);
  }

  /** @param {boolean} on */
  tick(on) {
    if (on && !this.timer) this.timer = setInterval(() => this.render(), 250);
    else if (!on && this.timer) { clearInterval(this.timer); this.timer = null; }
  }
}
