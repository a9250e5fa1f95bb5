// A table's clock, chosen on the home page (the table settings): a few named presets for
// live and turn-based tables, sent as the API's exact numbers (options.clock: live,
// {move, reserve, increment} in seconds; turn-based, {days}); and the words for a clock,
// shared by the lobby and the game page (clock.js).

import { el } from "./dom.js";
import { T, addStrings } from "./i18n.js";
/** @import { ClockOptions } from "./messages.js" */

addStrings({
  en: {
    clockLabel: "Clock",
    clockNone: "No clock",
    clockQuick: "Quick: 20 s a turn + 2 min reserve (+5 s a turn)",
    clockStandard: "Standard: 45 s a turn + 5 min reserve (+10 s a turn)",
    clockDays1: "1 day a turn",
    clockDaysN: "{n} days a turn",
    clockLive: "{move} a turn + {reserve} reserve (+{increment} s a turn)",
    clockLiveBare: "{move} a turn",
    clockHelp: "When a turn's time runs out, a bot plays that turn (live) or stands in until the person is back (turn-based).",
  },
  de: {
    clockLabel: "Uhr",
    clockNone: "Ohne Uhr",
    clockQuick: "Schnell: 20 s je Zug + 2 min Reserve (+5 s je Zug)",
    clockStandard: "Standard: 45 s je Zug + 5 min Reserve (+10 s je Zug)",
    clockDays1: "1 Tag je Zug",
    clockDaysN: "{n} Tage je Zug",
    clockLive: "{move} je Zug + {reserve} Reserve (+{increment} s je Zug)",
    clockLiveBare: "{move} je Zug",
    clockHelp: "Läuft die Zeit eines Zuges ab, spielt ein Bot diesen Zug (live) oder vertritt die Person, bis sie zurück ist (rundenbasiert).",
  },
  da: {
    clockLabel: "Ur",
    clockNone: "Intet ur",
    clockQuick: "Hurtig: 20 s pr. tur + 2 min reserve (+5 s pr. tur)",
    clockStandard: "Standard: 45 s pr. tur + 5 min reserve (+10 s pr. tur)",
    clockDays1: "1 dag pr. tur",
    clockDaysN: "{n} dage pr. tur",
    clockLive: "{move} pr. tur + {reserve} reserve (+{increment} s pr. tur)",
    clockLiveBare: "{move} pr. tur",
    clockHelp: "Når tiden for en tur løber ud, spiller en bot turen (live) eller træder til, indtil personen er tilbage (turbaseret).",
  },
});

/** The table being made, as far as its clock goes: its mode and each mode's preset by name.
 * @typedef {{ mode: string, clocks?: Record<string, string> }} ClockTable */

/** The presets: live and turn-based, each with its API numbers (null: no clock).
 * @type {Readonly<Record<string, [string, ClockOptions | null, string][]>>} */
export const CLOCK_PRESETS = Object.freeze({
  live: [["none", null, "clockNone"], ["quick", { move: 20, reserve: 120, increment: 5 }, "clockQuick"],
    ["standard", { move: 45, reserve: 300, increment: 10 }, "clockStandard"]],
  turn: [["none", null, "clockNone"], ["days1", { days: 1 }, "clockDays1"], ["days2", { days: 2 }, "clockDaysN"], ["days3", { days: 3 }, "clockDaysN"]],
});

/** Seconds as "45 s", "2 min", "1 min 30 s" (the same in both languages).
 * @param {number} seconds */
export function spanText(seconds) {
  const s = Math.round(seconds);
  if (s < 60) return `${s} s`;
  return s % 60 ? `${Math.floor(s / 60)} min ${s % 60} s` : `${s / 60} min`;
}

/** A clock in words (null: none).
 * @param {ClockOptions | null | undefined} spec */
export function clockText(spec) {
  if (!spec) return T("clockNone");
  if (spec.days !== undefined) return spec.days === 1 ? T("clockDays1") : T("clockDaysN", { n: spec.days });
  if (!spec.reserve && !spec.increment) return T("clockLiveBare", { move: spanText(spec.move || 0) });
  return T("clockLive", { move: spanText(spec.move || 0), reserve: spanText(spec.reserve || 0), increment: spec.increment || 0 });
}

/** The choice of a table's clock for the mode ``t.mode``; ``t.clocks``: the preset's name, per mode.
 * @param {ClockTable} t */
export function clockChoice(t) {
  const clocks = t.clocks || (t.clocks = { live: "none", turn: "none" });
  const presets = CLOCK_PRESETS[t.mode] || CLOCK_PRESETS.live;
  const select = el("select", { id: "clock", "aria-label": T("clockLabel"), "aria-describedby": "clock-help" });
  for (const [name, spec, key] of presets) {
    select.append(el("option", { value: name, selected: clocks[t.mode] === name ? true : null, text: spec && spec.days ? T(key, { n: spec.days }) : T(key) }));
  }
  select.addEventListener("change", () => { clocks[t.mode] = select.value; });
  return el("p", { class: "clock-choice" }, el("label", { for: "clock" }, T("clockLabel") + " "), select,
    el("br"), el("span", { id: "clock-help", class: "small", text: T("clockHelp") }));
}

/** The clock to send for the table ``t`` (undefined: none).
 * @param {ClockTable} t */
export function clockSpec(t) {
  const name = t.clocks ? t.clocks[t.mode] : "none";
  const found = (CLOCK_PRESETS[t.mode] || []).find((p) => p[0] === name);
  return found && found[1] ? { ...found[1] } : undefined;
}
