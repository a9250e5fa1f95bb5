// The time left of a turn-based turn, before a bot takes it over ("2 days 23 h left"), in
// the page's language: "My games" (mine.js: the server sends the deadline as Unix time,
// the summary's "deadline") and the game page's clock (clock.js). In its last URGENT_HOURS
// it is urgent to the one whose turn it is: said in words ("Hurry: only 5 h 10 min left")
// and shown in red; the others waiting on them see the time left as it is ("5 h 10 min left").

import { T, addStrings, dateTime } from "./i18n.js";

export const URGENT_HOURS = 6; // the last hours of a turn-based turn: urgent

addStrings({
  en: {
    leftDays: { one: "{n} day {h} h", other: "{n} days {h} h" },
    leftHours: "{h} h {m} min",
    leftMinutes: "{m} min",
    leftMoment: "less than a minute",
    timeLeft: "{time} left",
    timeLeftUrgent: "Hurry: only {time} left",
    timeUp: "time is up: a bot plays this turn",
    deadlineAt: "Until {when}; then a bot plays this turn",
  },
  de: {
    leftDays: { one: "{n} Tag {h} Std.", other: "{n} Tage {h} Std." },
    leftHours: "{h} Std. {m} Min.",
    leftMinutes: "{m} Min.",
    leftMoment: "weniger als eine Minute",
    timeLeft: "noch {time}",
    timeLeftUrgent: "Beeil dich: nur noch {time}",
    timeUp: "Zeit abgelaufen: ein Bot spielt diesen Zug",
    deadlineAt: "Bis {when}; dann spielt ein Bot diesen Zug",
  },
  da: {
    leftDays: { one: "{n} dag {h} t", other: "{n} dage {h} t" },
    leftHours: "{h} t {m} min",
    leftMinutes: "{m} min",
    leftMoment: "under et minut",
    timeLeft: "{time} tilbage",
    timeLeftUrgent: "Skynd dig: kun {time} tilbage",
    timeUp: "tiden er gået: en bot spiller denne tur",
    deadlineAt: "Indtil {when}; derefter spiller en bot denne tur",
  },
});

/** A span of seconds in words: days and hours, hours and minutes, or minutes.
 * @param {number} seconds */
export function spanText(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  if (s >= 86400) return T("leftDays", { n: Math.floor(s / 86400), h: Math.floor((s % 86400) / 3600) });
  if (s >= 3600) return T("leftHours", { h: Math.floor(s / 3600), m: Math.floor((s % 3600) / 60) });
  if (s >= 60) return T("leftMinutes", { m: Math.floor(s / 60) });
  return T("leftMoment");
}

/** The time left of a turn: {text, urgent, up} ("2 days 23 h left"; up once it ran out).
 * `yours`: the turn is the reader's own: urgent in its last URGENT_HOURS (and once it ran
 * out); another's turn is never urgent to them.
 * @param {number} seconds @param {boolean} yours */
export function timeLeft(seconds, yours) {
  if (seconds <= 0) return { text: T("timeUp"), urgent: Boolean(yours), up: true };
  const urgent = Boolean(yours) && seconds <= URGENT_HOURS * 3600;
  return { text: T(urgent ? "timeLeftUrgent" : "timeLeft", { time: spanText(seconds) }), urgent, up: false };
}

/** The time left until `deadline` (Unix time, seconds) by this browser's clock (`yours`: as timeLeft).
 * @param {number} deadline @param {boolean} yours */
export function leftUntil(deadline, yours) {
  return timeLeft(deadline - Date.now() / 1000, yours);
}

/** When the turn runs out, in the page's language and this browser's time zone (a title).
 * @param {number} deadline */
export function deadlineTitle(deadline) {
  return T("deadlineAt", { when: dateTime(deadline) });
}
