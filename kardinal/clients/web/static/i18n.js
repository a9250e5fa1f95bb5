// Text: every word the browser shows, from the language catalogs (kardinal/locale/<lang>.po,
// served as JSON at /i18n/catalog.json by the server: common/catalog.py). T(key, vars) looks
// a text up in the page's language; the language is this module's own state, read with
// lang() and changed with setLang() (which loads its catalog and tells whoever listens).
// The page's language is the one chosen on a page (remembered in the browser and, signed
// in, for the account), else the browser's first language with a catalog, else English.
// Names of countries and sites come from the board data (board.js), not from here.

import { url } from "./net.js";

/** A text; its plural forms by category ({one, other}, as Intl.PluralRules names them).
 * @typedef {string | Record<string, string>} Text */
/** A language's catalog: its code, every language's own name, its texts by key (English where it has none).
 * @typedef {{ lang: string, langs: Record<string, string>, texts: Record<string, Text> }} Catalog */

/** The catalog of the first of the wanted languages the server has one for (else English).
 * @param {(string | null | undefined)[]} wanted
 * @returns {Promise<Catalog>} */
async function loadCatalog(wanted) {
  const want = wanted.filter(Boolean).join(",");
  const r = await fetch(url(`/i18n/catalog.json?want=${encodeURIComponent(want)}`));
  if (!r.ok) throw new Error(`the words of the page could not be loaded (HTTP ${r.status})`);
  return r.json();
}

/** The language this browser chose on a page (remembered), or null. */
export function stored() {
  try { return localStorage.getItem("kardinal-lang"); } catch (e) { return null; }
}

/** @type {Catalog} */
let catalog = await loadCatalog([stored(), ...(navigator.languages || [navigator.language])]);
/** @type {string} */
let current = catalog.lang;
document.documentElement.lang = current;
/** @type {Set<(lang: string) => void>} */
const listeners = new Set();

/** The languages there are catalogs for, each by its own name ({en: "English", de: "Deutsch"}). */
export function languages() { return catalog.langs; }

/** The page's language ("en", "de", ...). */
export function lang() { return current; }

/** The browser's own locale where it speaks the page's language (en-GB writes dates
 * day first), else the page's language. */
export function locale() {
  const own = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""];
  return own.find((l) => l.toLowerCase().split("-")[0] === current) || current;
}

/** A moment (seconds since 1970) as a date and time in the page's language and the browser's locale.
 * @param {number} seconds */
export function dateTime(seconds) {
  return new Date(seconds * 1000).toLocaleString(locale(), { dateStyle: "medium", timeStyle: "short" });
}

/** The plural category ("one", "other") of the number n in the page's language.
 * @param {unknown} n */
export function plural(n) {
  return new Intl.PluralRules(current).select(Number(n));
}

/** A number in the page's language: num(-6.73, 1) is "−6.7" in English, "−6,7" in German;
 * thousands are grouped ("1,200" / "1.200"). `digits` (default 0) is the number of decimals.
 * @param {number | string} x */
export function num(x, digits = 0) {
  const s = new Intl.NumberFormat(current, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(Number(x));
  return s.replace(/^-/, "−"); // the minus sign, not a hyphen
}

/** A text of the table in the page's language, with {name} replaced from vars (and the
 * words of a touch screen on one: touchWords). */
/** A seat's name in this page's language: an unnamed seat (stored with no name, "") is
 * "Player 2" ("Spieler 2"); ``seat`` counts from 0.
 * @param {string | null | undefined} name @param {number} seat */
export function seatName(name, seat) {
  if (!name) return `${T("player")} ${seat + 1}`;
  // a deleted account's seat is stored as "deleted player" (with a number when taken): said in the page's language
  const deleted = /^deleted player( \d+)?$/.exec(name);
  return deleted ? T("deletedPlayer") + (deleted[1] || "") : name;
}

/** Who said a chat line (or is named by its notice): its seat's name, or a spectator's.
 * @param {{ seat?: number | null, name?: string | null }} x */
export function lineName(x) {
  if (x.seat === null || x.seat === undefined) return x.name || T("chatSpectatorAnon"); // a spectator who gave no name
  return seatName(x.name, x.seat);
}

/** @param {string} key @param {Record<string, unknown>} [vars] @returns {string} */
export function T(key, vars) {
  let s = catalog.texts[key] ?? key;
  // a text with plural forms ({one, other}) is chosen by the number vars.n
  if (s && typeof s === "object" && "other" in s) s = s[plural(vars && vars.n)] ?? s.other;
  if (typeof s !== "string") return key;
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
  return touchWords(s);
}

// "Click" where the finger taps: the action's word on a screen whose main pointer is a finger
/** @type {[RegExp, (...m: string[]) => string][]} */
const TOUCH_WORDS = [
  [/\bClick(ing|ed|s)?\b/g, (m, e) => "Tap" + ({ ing: "ping", ed: "ped", s: "s" }[e] || "")],
  [/\bclick(ing|ed|s)?\b/g, (m, e) => "tap" + ({ ing: "ping", ed: "ped", s: "s" }[e] || "")],
  [/\b([Kk])lick(e|en|st|t)\b/g, (m, k, e) => (k === "K" ? "T" : "t") + "ipp" + e],
  [/\b([Kk])lik(ke|ker|ket)?\b/g, (m, k, e) => (k === "K" ? "T" : "t") + "ryk" + (e || "")],
];

/** Whether the page is used by a finger (the main pointer is coarse: a phone, a tablet). */
export function touchScreen() {
  return Boolean(window.matchMedia && window.matchMedia("(pointer: coarse)").matches);
}

/** A text with the words of clicking turned into those of tapping on a touch screen
 * ("Click" -> "Tap", "Klicke" -> "Tippe", "Klik" -> "Tryk"); unchanged elsewhere.
 * @param {string} s */
export function touchWords(s) {
  if (!touchScreen() || !/lic?k/.test(s)) return s; // "click", "Klick", "Klik"
  for (const [re, f] of TOUCH_WORDS) s = s.replace(re, f);
  return s;
}

/** An entry of a keyed sub-table (boardNames.standard, variantTexts.<name>), or undefined.
 * @param {string} table @param {string} id
 * @returns {string | undefined} */
function lookup(table, id) {
  const s = catalog.texts[`${table}.${id}`];
  return typeof s === "string" ? s : undefined;
}

/** Switch the language (once its catalog is loaded): remembered in the browser, set on
 * <html lang>, and told to listeners. A language without a catalog changes nothing.
 * @param {string} l */
export async function setLang(l) {
  if (l === current || !(l in catalog.langs)) return;
  const next = await loadCatalog([l]);
  if (next.lang !== l) return;
  catalog = next;
  current = l;
  try { localStorage.setItem("kardinal-lang", l); } catch (e) { /* private mode: not remembered */ }
  document.documentElement.lang = l;
  for (const f of listeners) f(l);
}

/** Call f(lang) whenever the language changes.
 * @param {(lang: string) => void} f */
export function onLangChange(f) { listeners.add(f); }

/** A site's or country's name in the page's language (the board's name, or its English or Danish form).
 * @param {string} name @param {string} [nameEn] */
export function placeName(name, nameEn) {
  if (current === "en" && nameEn) return nameEn;
  return lookup("exonym", name) || name;
}

/** A list of words: "a, b and c".
 * @param {string[]} items */
export function listText(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(T("listSep")) + T("and") + items[items.length - 1];
}

/** The rules a game is played by: "Rules: as written" or "Variant: joker-anywhere".
 * @param {string[] | undefined} variants */
export function rulesText(variants) {
  const v = variants || [];
  if (!v.length) return T("rulesAsWritten");
  return T(v.length === 1 ? "variantOne" : "variantMany", { names: v.join(", ") });
}

/** What a variant changes, in the page's language; `fallback` (the server's words) for one this table lacks.
 * @param {string} name @param {string} [fallback] */
export function variantText(name, fallback) {
  return lookup("variantTexts", name) || fallback || name;
}

/** A bot level's measured strength in the page's language, from the server's English
 * ("won 59% of 200 games against three greedy (95% interval 54-65%)"); words of a form
 * this page does not know are shown as they came.
 * @param {string | null | undefined} words */
export function strengthText(words) {
  if (!words) return "";
  if (words === "loses almost every game") return T("strengthLoses");
  const m = /^won (\d+)(%?) of ([\d,]+) games against three ([\w-]+)(?: \(95% interval (\d+)-(\d+)%(?:; an even share is (\d+)%)?\))?$/.exec(words);
  if (!m) return words;
  const n = num(Number(m[3].replace(/,/g, "")));
  let out = T(m[2] ? "strengthWonShare" : "strengthWon", { w: num(m[1]), n, level: levelName(m[4]) });
  if (m[5]) out += T("strengthInterval", { lo: m[5], hi: m[6], even: m[7] ? T("strengthEven", { e: m[7] }) : "" });
  return out;
}

/** A bot level's name in the page's language, as a sentence says it ("a bot (greedy)"; its
 * id where the table has no other word); the lists' "Greedy": :func:`levelTitle`.
 * @param {string} id */
export function levelName(id) {
  return lookup("levelNames", id) || id;
}

/** A bot level's name at the head of a list item ("Greedy", "Gierig").
 * @param {string} id */
export function levelTitle(id) {
  const name = levelName(id);
  return name.charAt(0).toUpperCase() + name.slice(1);
}

/** What a board is (its About), in the page's language where a translation is known, else the board file's own English.
 * @param {{ id?: string, name?: string, about?: string }} data */
export function boardAbout(data) {
  return lookup("boardAbout", data.id || data.name || "") || data.about || "";
}

/** A board's name for a person: a known id with a word on what it is, else the id.
 * @param {string} id */
export function boardName(id) {
  return lookup("boardNames", id) || id;
}
