// Refusals in the page's language. The server refuses with a stable code and parameters
// ({code, message, params, rule?, reason?}; see messages.py ErrorData): a refusal by the
// rules has code "illegal", the rule ("R4.3") and the rules' own code as `reason`
// (RuleError in rules/state.py). This module says each of them in English or German, with
// the names of countries, sites and cards from the board; an unknown code falls back to
// the server's English words, so a newer server never leaves the player without a reason.

import { lang, T } from "./i18n.js";
import { HttpError } from "./net.js";
/** @import { ErrorData } from "./messages.js" */
/** @import { Board } from "./board.js" */

/** A refusal as the pages hold one: the server's ErrorData, or only its code (a refusal the
 * page itself makes, e.g. game.js's "not_your_turn" before asking the server).
 * @typedef {Pick<ErrorData, "code"> & Partial<ErrorData>} Refusal */
/** A refusal's parameters as refusalText fills them in (names for ids, `message`, `n`).
 * @typedef {Record<string, string | number | undefined>} Params */

/** A part of a request in words: "players.0.name" -> "the name of player 1"; a path this
 * page has no words for stays as it is.
 * @param {string | number} path */
export function fieldText(path) {
  const parts = String(path).split(".");
  /** @param {string} key @param {Record<string, unknown>} [vars] */
  const known = (key, vars) => (T(key) !== key ? T(key, vars) : null);
  if (parts[0] === "players" && parts.length > 1 && /^\d+$/.test(parts[1])) {
    const n = Number(parts[1]) + 1;
    const rest = parts.slice(2).join(".");
    if (!rest) return T("field.player", { n });
    return known("field.player." + rest, { n }) || `${T("field.player", { n })}: ${rest}`;
  }
  // a list's entry ("variants.1"): the list's words
  for (let k = parts.length; k > 0; k--) {
    const words = known("field." + parts.slice(0, k).join("."));
    if (words) return k === parts.length || parts.slice(k).every((x) => /^\d+$/.test(x)) ? words : `${words}: ${parts.slice(k).join(".")}`;
  }
  return String(path);
}

/** Words as a sentence of their own: a capital letter first, a full stop last (unless
 * they begin with a name given in `params`, which stays as its owner wrote it).
 * @param {unknown} words @param {Record<string, unknown>} [params] */
export function sentence(words, params) {
  const text = String(words ?? "").trim();
  if (!text) return text;
  const named = Object.values(params || {}).some((v) => typeof v === "string" && v && text.startsWith(v));
  const first = named ? text : text.charAt(0).toLocaleUpperCase(lang()) + text.slice(1);
  return /[.!?…]$/.test(first) ? first : first + ".";
}

/** When a suspension ends, in the reader's language and time zone (the browser's);
 * the server's words (UTC) if the time is not given.
 * @param {Params} p the refusal's params (`at`: seconds, `until`: words) */
function suspendedUntil(p) {
  const at = Number(p.at);
  if (!p.at || !Number.isFinite(at)) return p.until;
  /** @type {Intl.DateTimeFormatOptions} */
  const how = { year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" };
  return new Intl.DateTimeFormat({ de: "de-DE", da: "da-DK" }[lang()] || "en-GB", how).format(new Date(at * 1000));
}

/** A suspended account's refusal: until when, the operator's reason, whom to ask.
 * @param {Params} p the refusal's params */
function suspendedText(p) {
  const parts = [T("err.suspended", { ...p, until: suspendedUntil(p) }), T("err.suspended_seats")];
  if (p.why) parts.push(T("err.suspended_why", { why: p.why }));
  parts.push(p.contact ? T("err.suspended_contact", { contact: p.contact }) : T("err.suspended_ask"));
  return parts.map((x) => sentence(x)).join(" ");
}

/** The words of a refusal in the page's language, as sentences ("It is Anna's turn.");
 * `board` (a Board, or null) names ids.
 * @param {Refusal} err @param {Board | null} [board] */
export function refusalText(err, board) {
  /** @type {Params} (message: undefined for a refusal of a code only, as before) */
  const p = { ...(err.params || {}) };
  if (board) {
    if (p.country !== undefined) p.country = board.countryName(String(p.country));
    if (p.site !== undefined) p.site = board.siteName(String(p.site));
    if (p.card !== undefined) p.card = board.cardName(String(p.card));
  }
  let key;
  if (err.code === "illegal" && err.reason) {
    key = "rule." + err.reason;
    if (err.reason === "advisor_limit" && Number(p.limit) === 0) key = "rule.advisor_limit_empty";
  } else {
    key = "err." + err.code;
    if (err.code === "busy" && p.max !== undefined) key = "err.busy_reviews"; // teach.py's (with max), not passwords.py's
    p.message = err.message;
    // a malformed request that names the part the server could not read: that part in words
    if (err.code === "malformed" && p.field !== undefined && p.field !== null && p.field !== "") {
      key = "err.malformed_field";
      p.field = fieldText(p.field);
    }
  }
  if (p.n === undefined && p.left !== undefined) p.n = p.left; // the number a plural text agrees with
  let words = key === "err.suspended" ? suspendedText(p) : T(key, p);
  if (words === key) words = err.message || err.code; // a code this page does not know yet
  words = sentence(words, err.params);
  return err.rule ? `${err.rule}: ${words}` : words;
}

/** The words of an error caught from the network (getJSON, postJSON): the server's refusal
 * in the page's language (net.js HttpError), else the error's own message (a failed
 * fetch: "Failed to fetch").
 * @param {unknown} e @param {Board | null} [board] */
export function errorText(e, board) {
  if (e instanceof HttpError) return refusalText(e.error, board);
  return e instanceof Error ? e.message : String(e);
}
