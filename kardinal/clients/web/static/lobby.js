// The home page: what the game is (a picture of the board, a sentence, the players and the
// time a game takes), three ways in (play now against bots, learn to play, play with
// friends), the invitations of a table just made (copy, share, open my seat), this
// browser's games, the open tables, and the full table settings folded away: create a game
// (persons and bots, the board, rule variants) and list the games.

import { byId, el, fill, findId, keepInput, pagePart } from "./dom.js";
import { T, seatName, dateTime, lang, onLangChange, rulesText, variantText, boardName, boardAbout, levelTitle } from "./i18n.js";
import { HttpError, getJSON, postJSON, storeSeat, url } from "./net.js";
import { loadBoard } from "./board.js";
import { initHeader } from "./header.js";
import { refusalText } from "./refusals.js";
import { drawBoardPicture } from "./home-map.js";
import { MyGames } from "./mine.js";
import { whoAmI } from "./account-link.js";
import { CLOCK_PRESETS, clockChoice, clockSpec, clockText } from "./clock-choice.js";
import { ratedChoice, findTableButton, ratedTag } from "./rated.js";

const DEFAULT_BOARD = "standard";
const PLAY_NOW_LEVEL = "medium"; // thinks briefly (0.4 s), a fair match for a new player
const NAME_KEY = "kardinal-name";
const LEVEL_KEY = "kardinal-bot-level";

/** A key for one creation of a game: 24 random characters of A-Z a-z 0-9 _ - (18 bytes). */
function newKey() {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

/** @typedef {import("./messages.js").BoardData} BoardData */
/** @typedef {import("./messages.js").ErrorData} ErrorData */
/** @typedef {import("./messages.js").GameSummary} GameSummary */

/** A seat of the form's table: a person (invited by link; `open`: anyone may take it from
 * the list; `account`: kept for an account), or a bot of `level`.
 * @typedef {{ name: string, kind: "person" | "bot", level: string, open?: boolean, account?: string }} SeatChoice */
/** How the form's table plays (renderTable); `clocks`: clock-choice.js's preset per mode.
 * @typedef {object} TableChoice
 * @property {"live" | "turn"} mode
 * @property {number} awayMinutes
 * @property {string} standin
 * @property {boolean} hints
 * @property {boolean} spectator_chat
 * @property {boolean} public
 * @property {boolean} friends
 * @property {boolean} rated
 * @property {Record<string, string>} [clocks]
 */
/** A seat in a request to create a game (POST /api/games).
 * @typedef {{ name?: string, kind: "person" | "bot", level?: string, open?: boolean, account?: string }} NewPlayer */
/** A request to create a game: its players and the rest of the table's options.
 * @typedef {{ players: NewPlayer[], hotseat: boolean, board: string, variants: string[], key?: string } & Record<string, unknown>} NewTable */
/** The server's answer to a created game: a link per seat (the creator's first), the
 * spectators' link; one link for all seats of a hot-seat game.
 * @typedef {object} CreatedGame
 * @property {string} id
 * @property {string} [hotseat_url]
 * @property {{ seat: number, name: string | null, url: string, token: string }[]} seats
 * @property {string} watch
 * @property {boolean} [public]
 */
/** What the server says of a bot level (GET /api/bots about): how it plays, its time, how strong it measured.
 * @typedef {object} LevelAbout
 * @property {string} [summary]
 * @property {number} [seconds]
 * @property {string} [strength]
 * @property {{ percent: number, games: number, against: string, low?: number | null, high?: number | null }} [record]
 */

/** The words of a failed request: the server's refusal, else the error's own message.
 * @param {unknown} e @returns {string} */
function failureText(e) {
  if (e instanceof HttpError) return refusalText(e.error, null);
  return e instanceof Error ? e.message : String(e);
}

/** @param {string} key */
function remembered(key) { try { return localStorage.getItem(key) || ""; } catch (e) { return ""; } }
/** @param {string} key @param {string} value */
function remember(key, value) { try { localStorage.setItem(key, value); } catch (e) { /* private mode */ } }

/** A number as the page's language writes it (0.4 / 0,4).
 * @param {number | null | undefined} x */
function num(x) { return Number(x).toLocaleString({ de: "de-DE", da: "da-DK" }[lang()] || "en-GB", { maximumFractionDigits: 1 }); }

/** "one friend" / "3 friends": a text "singular|plural" by n.
 * @param {string} key @param {number} n */
function plural(key, n) { const [one, many] = T(key).split("|"); return n === 1 ? one : many.replace("{n}", String(n)); }

/** Put text on the clipboard: the Clipboard API (a secure page), else the older copy command.
 * @param {string} text */
async function copyText(text) {
  if (navigator.clipboard && window.isSecureContext) {
    try { await navigator.clipboard.writeText(text); return true; } catch (e) { /* refused: try the old way */ }
  }
  const area = el("textarea", { readonly: true, class: "sr-only", "aria-hidden": "true" });
  area.value = text;
  document.body.append(area);
  area.select();
  let ok = false;
  try { ok = document.execCommand("copy"); } catch (e) { ok = false; }
  area.remove();
  return ok;
}

/** The clock of a live table of Play with friends: the "standard" preset (45 s a turn, 5 min reserve). */
function friendsClock() {
  const standard = CLOCK_PRESETS.live.find((p) => p[0] === "standard");
  return { ...(standard && standard[1]) };
}

class Lobby {
  constructor() {
    this.levels = ["random"]; // weakest first (the server's order)
    /** @type {Record<string, LevelAbout>} level -> {summary, seconds, strength, record} */
    this.levelAbout = {};
    /** @type {TableChoice} */
    this.table = { mode: "live", awayMinutes: 3, standin: "medium", hints: false, spectator_chat: false, public: true, friends: false, rated: false };
    /** @type {{ id: number, name: string, created: number } | null} the signed-in account (rated tables, Find me a table: rated.js; invitations, friends only) */
    this.me = null;
    /** @type {Record<string, string>} name -> the server's one-line description */
    this.variants = {};
    this.boards = [DEFAULT_BOARD];
    this.count = 4;
    /** @type {SeatChoice[]} */
    this.seats = [];
    /** @type {Set<string>} default: the rules as written */
    this.chosenVariants = new Set();
    this.board = DEFAULT_BOARD;
    /** @type {BoardData | null} the chosen board's data (its About text) */
    this.aboutBoard = null;
    /** @type {CreatedGame | null} the last created game's answer */
    this.last = null;
    this.creating = false; // a request to create a game is on its way
    /** @type {string | null} the key of the creation the form stands for (see createGame) */
    this.createKey = null;
    /** @type {string | null} the request that key was made for (without the key) */
    this.keyFor = null;
    this.myName = remembered(NAME_KEY); // the home page's "Your name"
    this.botLevel = remembered(LEVEL_KEY) || PLAY_NOW_LEVEL; // the bots of Play now and Play with friends
    this.friendsOpen = false; // the panel of Play with friends
    this.friendsMode = "live"; // ... its table: live, or turn-based (a day a turn)
    this.friendCount = 2;
    this.friendNames = ["", "", "", ""];
    this.friendAccounts = ["", "", "", ""]; // accounts invited by name (signed in)
    /** @type {Record<string, string>} the last created table's seats kept for accounts: {seat: name} */
    this.invited = {};
    /** @type {{ gid: string, seat: number, name: string | null, refused: string } | null} the seat
     * being joined: its name as typed (null: signed in, no form), and its refusal's words */
    this.joining = null;
    /** @type {Map<string, GameSummary>} the open tables drawn, by id */
    this.shown = new Map();
    /** @type {string | undefined} the list of games last drawn (loadGames) */
    this.gamesSeen = undefined;
    this.mine = new MyGames("my-games", true, 5);
    /** @type {() => void} the header's words anew (initHeader's, once start() wired it) */
    this.refreshHeader = () => {};
  }

  async start() {
    this.refreshHeader = initHeader(() => this.aboutText());
    onLangChange(() => this.renderAll());
    this.renderHome(); // the words and the three ways at once; the levels follow
    const [bots, variants] = await Promise.allSettled([getJSON("/api/bots"), getJSON("/api/variants")]);
    if (bots.status === "fulfilled") { this.levels = bots.value.levels; this.levelAbout = bots.value.about || {}; }
    this.me = await whoAmI();
    if (!this.levels.includes(this.table.standin)) this.table.standin = this.levels[Math.min(this.levels.length - 1, 3)];
    if (!this.levels.includes(this.botLevel)) this.botLevel = this.levels.includes(PLAY_NOW_LEVEL) ? PLAY_NOW_LEVEL : this.levels[0];
    if (variants.status === "fulfilled") {
      this.variants = variants.value.variants || {};
      if ((variants.value.boards || []).length) this.boards = variants.value.boards;
    }
    if (!this.boards.includes(this.board)) this.board = this.boards[0];
    this.seats = this.defaultSeats(this.count);
    this.loadAbout();
    loadBoard(DEFAULT_BOARD).then((b) => drawBoardPicture(byId("home-map", SVGSVGElement), b)).catch(() => { byId("intro-board").hidden = true; });
    this.renderAll();
    this.mine.load();
    whoAmI().then((me) => { this.me = me; if (me) this.renderAll(); });
    setInterval(() => this.loadGames(), 5000);
    setInterval(() => this.mine.load(), 15000);
    // back from the game's page (the page kept in the browser's cache): the buttons are free again
    window.addEventListener("pageshow", (ev) => { if (ev.persisted) { this.setCreating(false); this.mine.load(); } });
  }

  loadAbout() {
    const id = this.board;
    loadBoard(id).then((b) => {
      if (this.board !== id) return;
      this.aboutBoard = b.data;
      this.refreshHeader();
    }).catch(() => { /* no About text */ });
  }

  /** The About dialog: the chosen board, in the page's language where a translation is known. */
  aboutText() {
    const b = this.aboutBoard;
    if (!b) return "";
    return (b.reconstruction ? T("reconstruction") + " " : "") + boardAbout(b);
  }

  /** @param {number} n @returns {SeatChoice[]} */
  defaultSeats(n) {
    /** @type {SeatChoice[]} */
    const out = [];
    for (let i = 0; i < n; i++) {
      const old = this.seats[i];
      const botLevel = this.levels.includes("medium") ? "medium" : this.levels[0];
      out.push(old || (i === 0 ? { name: "", kind: "person", level: this.levels[0] } : { name: "", kind: "bot", level: botLevel }));
    }
    return out;
  }

  renderAll() {
    this.renderHome();
    byId("settings-summary").textContent = T("settingsSummary");
    this.renderCreate();
    this.renderCreated();
    this.mine.render();
    this.loadGames();
  }

  // ------------------------------------------------------------------ the home page

  renderHome() {
    document.title = T("lobbyTitle");
    byId("lobby-title").textContent = T("lobbyTitle");
    byId("intro-what").textContent = T("homeWhat");
    byId("intro-facts").textContent = T("homeFacts");
    byId("home-map-caption").textContent = T("homeMapCaption");
    this.renderWays();
    this.renderFriends();
  }

  /** The three ways in, and under them the name and the bots' level they use. */
  renderWays() {
    /** @param {"button" | "a"} tag @param {Record<string, unknown>} attrs @param {string} title @param {string} why */
    const way = (tag, attrs, title, why) => el(tag, { class: "way", ...attrs }, el("span", { class: "way-title", text: title }), el("span", { class: "way-why", text: why }));
    const now = way("button", { type: "button", id: "play-now", disabled: this.creating ? true : null, "aria-busy": this.creating ? "true" : null,
      onclick: (/** @type {MouseEvent} */ ev) => { if (ev.detail < 2) this.playNow(); } }, T("playNow"), T("playNowWhy"));
    const learn = way("a", { href: url("/tutorial"), id: "learn" }, T("learn"), T("learnWhy"));
    const friends = way("button", { type: "button", id: "play-friends", "aria-expanded": this.friendsOpen ? "true" : "false", "aria-controls": "friends-panel",
      onclick: () => { this.friendsOpen = !this.friendsOpen; this.renderWays(); this.renderFriends(); if (this.friendsOpen) byId("friends-panel").scrollIntoView({ block: "nearest", behavior: "smooth" }); } },
    T("friends"), T("friendsWhy"));
    const name = el("input", { type: "text", id: "my-name", value: this.myName, maxlength: 24, autocomplete: "nickname", placeholder: this.me ? this.me.name : `${T("player")} 1` });
    name.addEventListener("input", () => { this.myName = name.value.trim(); remember(NAME_KEY, this.myName); });
    const level = el("select", { id: "bot-level" });
    for (const l of this.levels) level.append(el("option", { value: l, selected: l === this.botLevel ? true : null, text: this.levelOption(l) }));
    level.addEventListener("change", () => { this.botLevel = level.value; remember(LEVEL_KEY, level.value); this.renderWays(); byId("bot-level").focus(); });
    const options = el("div", { class: "home-options" },
      el("p", { class: "field" }, el("label", { for: "my-name", text: T("yourNameLabel") }), name),
      el("div", { class: "field" }, el("label", { for: "bot-level", text: T("botsLabel") }), level, this.levelWords(this.botLevel, "bot-level-about")));
    const find = this.me ? findTableButton(this.me, (/** @type {string} */ text) => fill(byId("created"), el("p", { class: "bad", role: "alert", text }))) : null;
    fill(byId("ways"), el("h2", { id: "ways-title", class: "sr-only", text: T("waysTitle") }), el("div", { class: "way-list" }, now, learn, friends, find), options);
  }

  /** The player's own name for a new table; none: signed in, the server gives the seat the
   * account's name, else it stays unnamed (each page says "Player 1" in its language). */
  ownName() { return this.myName || undefined; }

  /** One tap: the player and three bots of the chosen level, straight to the board. */
  playNow() {
    /** @type {NewPlayer[]} */
    const players = [{ name: this.ownName(), kind: "person" }];
    for (let i = 1; i < 4; i++) players.push({ name: `Bot ${i + 1}`, kind: "bot", level: this.botLevel });
    this.send({ players, hotseat: false, board: DEFAULT_BOARD, variants: [] });
  }

  /** Play with friends: how many, their names; the free seats (a table has 3 at least) are bots. */
  renderFriends() {
    const box = byId("friends-panel");
    box.hidden = !this.friendsOpen;
    if (!this.friendsOpen) { box.replaceChildren(); return; }
    const n = this.friendCount;
    const bots = Math.max(0, 3 - 1 - n);
    const choices = [1, 2, 3, 4].map((k) => {
      const r = el("input", { type: "radio", name: "friend-count", id: `friends-${k}`, value: k, checked: k === n ? true : null });
      r.addEventListener("change", () => { if (r.checked) { this.friendCount = k; this.renderFriends(); byId(`friends-${k}`).focus(); } });
      return el("label", { for: `friends-${k}`, class: "chip" }, r, " ", k === 1 ? T("friendsOne") : T("friendsMany", { n: k }));
    });
    const modes = [["live", "friendsLive"], ["turn", "friendsTurn"]].map(([mode, key]) => {
      const r = el("input", { type: "radio", name: "friends-mode", id: `friends-mode-${mode}`, value: mode, checked: mode === this.friendsMode ? true : null });
      r.addEventListener("change", () => { if (r.checked) { this.friendsMode = mode; this.renderFriends(); byId(`friends-mode-${mode}`).focus(); } });
      return el("label", { for: `friends-mode-${mode}`, class: "chip" }, r, " ", T(key));
    });
    const names = [];
    for (let i = 0; i < n; i++) {
      const f = el("input", { type: "text", id: `friend-name-${i}`, value: this.friendNames[i], maxlength: 24, placeholder: `${T("player")} ${i + 2}` });
      f.addEventListener("input", () => { this.friendNames[i] = f.value.trim(); });
      names.push(el("p", { class: "field" }, el("label", { for: `friend-name-${i}`, text: T("friendName", { n: i + 1 }) }), f));
      if (this.me) {
        const a = el("input", { type: "text", id: `friend-account-${i}`, value: this.friendAccounts[i], maxlength: 24, autocomplete: "off", "aria-describedby": "invite-why" });
        a.addEventListener("input", () => { this.friendAccounts[i] = a.value.trim(); });
        names.push(el("p", { class: "field" }, el("label", { for: `friend-account-${i}`, text: T("inviteAccount") }), a));
      }
    }
    const table = bots ? T("friendsTable", { friends: plural("friendsN", n), bots: plural("botsN", bots) }) : T("friendsTableNoBots", { friends: plural("friendsN", n) });
    fill(box, el("h2", { text: T("friendsTitle") }),
      el("fieldset", { class: "chips" }, el("legend", { text: T("friendsCount") }), ...choices),
      el("p", { id: "friends-table", text: table }),
      el("fieldset", { class: "chips", "aria-describedby": "friends-mode-why" }, el("legend", { text: T("friendsHow") }), ...modes),
      el("p", { class: "small", id: "friends-mode-why", text: T(this.friendsMode === "turn" ? "friendsTurnWhy" : "friendsLiveWhy") }),
      ...names,
      this.me ? el("p", { class: "small", id: "invite-why", text: T("inviteAccountWhy") }) : null,
      el("p", { class: "buttons-row" },
        el("button", { type: "button", id: "friends-create", class: "big", disabled: this.creating ? true : null, onclick: (/** @type {MouseEvent} */ ev) => { if (ev.detail < 2) this.createWithFriends(); } }, T("friendsCreate")),
        el("button", { type: "button", id: "friends-cancel", onclick: () => { this.friendsOpen = false; this.renderWays(); this.renderFriends(); byId("play-friends").focus(); } }, T("friendsCancel"))));
  }

  /** A refusal of a name invited in the friends panel (no such player, invited twice, not
   * invitable, oneself): said under that name's field, which is marked invalid, described by
   * it and focused (until it is changed). False if the refusal names no field there.
   * @param {ErrorData | undefined} err @param {string} words */
  markFriend(err, words) {
    const codes = ["no_player", "invited_twice", "not_invitable", "invite_self"];
    if (!err || !codes.includes(err.code) || !this.friendsOpen || !this.me) return false;
    const key = (/** @type {unknown} */ x) => String(x || "").trim().toLocaleLowerCase();
    const wanted = err.code === "invite_self" ? key(this.me.name) : key(err.params && err.params.name);
    /** @type {HTMLInputElement | null} */
    let f = null;
    for (const x of document.querySelectorAll("#friends-panel input[id^=friend-account-]")) {
      if (x instanceof HTMLInputElement && key(x.value) === wanted) { f = x; break; }
    }
    const row = f && f.closest("p");
    if (!f || !row) return false;
    const old = findId("friends-refused");
    if (old) old.remove();
    const note = el("p", { class: "bad", id: "friends-refused", role: "alert", text: words });
    row.after(note);
    f.setAttribute("aria-invalid", "true");
    f.setAttribute("aria-describedby", "friends-refused invite-why");
    f.addEventListener("input", () => { f.removeAttribute("aria-invalid"); f.setAttribute("aria-describedby", "invite-why"); note.remove(); }, { once: true });
    f.focus();
    return true;
  }

  createWithFriends() {
    const n = this.friendCount;
    /** @type {NewPlayer[]} */
    const players = [{ name: this.ownName(), kind: "person" }];
    for (let i = 0; i < n; i++) {
      const account = (this.me && this.friendAccounts[i]) || undefined; // the seat takes the account's name unless named
      players.push({ name: this.friendNames[i] || undefined, kind: "person", account }); // unnamed: no words stored
    }
    while (players.length < 3) players.push({ name: `Bot ${players.length + 1}`, kind: "bot", level: this.botLevel });
    // a clock either way: nobody who leaves the page open and walks away holds up the table
    const how = this.friendsMode === "turn" ? { mode: "turn", clock: { days: 1 } } : { mode: "live", clock: friendsClock() };
    this.send({ players, hotseat: false, board: DEFAULT_BOARD, variants: [], ...how });
  }

  // ------------------------------------------------------------------ bot levels in words

  /** @param {string} l */
  levelWord(l) { return levelTitle(l); }

  /** @param {string} l */
  levelTime(l) {
    const a = this.levelAbout[l];
    return a && a.seconds ? T("thinksUpTo", { s: num(a.seconds) }) : T("thinksAtOnce");
  }

  /** A level in a list: "Medium – thinks up to 0.4 s a move".
   * @param {string} l */
  levelOption(l) { return T("levelOption", { name: this.levelWord(l), time: this.levelTime(l) }); }

  /** What a level is, in a player's words, and behind "Details" how it plays and how
   * strong it measured (both in the page's language).
   * @param {string} l @param {string} id */
  levelWords(l, id) {
    /** @type {LevelAbout} */
    const a = this.levelAbout[l] || {};
    const plainKey = `levelPlain.${l}`;
    const plain = T(plainKey) !== plainKey ? T(plainKey) : (a.summary || "");
    const howKey = `level.${l}`;
    const how = T(howKey) !== howKey ? T(howKey) : (a.summary || "");
    const r = a.record;
    let measured;
    if (r) {
      const vars = { p: num(r.percent), n: num(r.games), against: this.levelWord(r.against), low: num(r.low), high: num(r.high) };
      measured = T("levelMeasured", { record: T(r.low !== null && r.low !== undefined ? "levelRecord" : "levelRecordNoInterval", vars) });
    } else {
      const sKey = `levelStrength.${l}`;
      measured = T(sKey) !== sKey ? T("levelMeasured", { record: T(sKey) }) : a.strength ? T("levelMeasured", { record: a.strength }) : T("levelNotMeasured");
    }
    return el("div", { class: "level-about", id },
      el("span", { class: "level-plain", text: `${this.levelWord(l)}: ${plain}` }),
      el("details", { class: "level-details" }, el("summary", { text: T("levelDetails") }),
        el("p", { text: T("levelHow", { how }) }), el("p", { text: measured })));
  }

  renderRules() {
    const board = el("select", { id: "board", "aria-label": T("boardLabel") });
    for (const id of this.boards) board.append(el("option", { value: id, selected: id === this.board ? true : null, text: boardName(id) }));
    board.addEventListener("change", () => { this.board = board.value; this.loadAbout(); });
    const names = Object.keys(this.variants).sort();
    const boxes = names.map((n) => {
      const box = el("input", { type: "checkbox", id: `variant-${n}`, value: n, checked: this.chosenVariants.has(n) ? true : null });
      box.addEventListener("change", () => {
        if (box.checked) this.chosenVariants.add(n); else this.chosenVariants.delete(n);
        byId("rules-summary").textContent = rulesText([...this.chosenVariants].sort());
      });
      return el("li", {}, el("label", {}, box, " ", el("code", { text: n }), " — " + variantText(n, this.variants[n])));
    });
    return el("fieldset", { class: "rules-choice" }, el("legend", { text: T("rulesAndBoard") }),
      el("p", {}, el("label", {}, T("boardLabel") + ": ", board)),
      boxes.length ? el("ul", { class: "variants" }, ...boxes) : el("p", { class: "small", text: T("ruleVariantsNone") }),
      el("p", { class: "small", id: "rules-summary", text: rulesText([...this.chosenVariants].sort()) }));
  }

  renderCreate() {
    const count = el("select", { id: "count", "aria-label": T("players") });
    for (const n of [3, 4, 5]) count.append(el("option", { value: n, selected: n === this.count ? true : null, text: `${n} ${T("players")}` }));
    count.addEventListener("change", () => { this.count = Number(count.value); this.seats = this.defaultSeats(this.count); this.renderCreate(); });
    const rows = this.seats.slice(0, this.count).map((s, i) => {
      const name = el("input", { type: "text", id: `name-${i}`, value: s.name, placeholder: s.kind === "bot" ? `Bot ${i + 1}` : i === 0 && this.me ? this.me.name : `${T("player")} ${i + 1}`, "aria-label": `${T("name")} ${i + 1}`, maxlength: 24 });
      name.addEventListener("input", () => { s.name = name.value; });
      // a person invited by link, a seat anyone may take from the list of open games, or a bot
      const kind = el("select", { id: `kind-${i}`, "aria-label": `${T("seat")} ${i + 1}` },
        el("option", { value: "person", selected: s.kind === "person" && !s.open ? true : null, text: T("person") }),
        i > 0 ? el("option", { value: "open", selected: s.kind === "person" && s.open ? true : null, text: T("openSeat") }) : null,
        el("option", { value: "bot", selected: s.kind === "bot" ? true : null, text: T("bot") }));
      kind.addEventListener("change", () => { s.kind = kind.value === "bot" ? "bot" : "person"; s.open = kind.value === "open"; this.renderCreate(); });
      let level = null;
      if (s.kind === "bot") { // a person has no level
        const select = el("select", { id: `level-${i}`, "aria-label": `${T("level")} ${i + 1}` });
        for (const l of this.levels) select.append(el("option", { value: l, selected: l === s.level ? true : null, text: this.levelOption(l) }));
        select.addEventListener("change", () => { s.level = select.value; this.renderCreate(); });
        level = select;
      }
      const about = level ? this.levelWords(s.level, `level-about-${i}`) : null;
      let account = null;
      if (this.me && i > 0 && s.kind === "person" && !s.open) { // a seat kept for an account, invited by name
        const input = el("input", { type: "text", id: `account-${i}`, value: s.account || "", maxlength: 24, autocomplete: "off", "aria-label": `${T("inviteAccountShort")} (${T("seat")} ${i + 1})` });
        input.addEventListener("input", () => { s.account = input.value.trim(); });
        account = el("label", { class: "small seat-account", for: `account-${i}` }, T("inviteAccountShort"), input);
      }
      return el("tr", {}, el("td", { text: String(i + 1) }), el("td", {}, name, account), el("td", {}, kind), el("td", {}, level, about));
    });
    const rated = this.table.rated && this.me; // a rated table has no hot-seat
    const hot = el("input", { type: "checkbox", id: "hotseat", disabled: rated ? true : null });
    const create = el("button", { type: "button", id: "create-btn", class: "big", disabled: this.creating ? true : null, "aria-busy": this.creating ? "true" : null,
      onclick: (/** @type {MouseEvent} */ ev) => { if (ev.detail < 2) this.createGame(hot.checked); } }, T("create")); // (the second click of a double click: nothing)
    byId("create").replaceChildren(el("h2", { text: T("newGame") }), el("p", {}, count),
      el("table", { class: "seats" }, el("thead", {}, el("tr", {}, el("th", { text: T("seat") }), el("th", { text: T("name") }), el("th", { text: T("seatKind") }), el("th", { text: T("level") }))), el("tbody", {}, ...rows)),
      this.renderRules(),
      this.renderTable(),
      el("p", {}, el("label", {}, hot, " " + T("hotseat"))), create);
  }

  /** How the table plays: live or turn-based, the stand-in for a person who left, hints,
   * the spectators' chat, listed in the lobby or not. */
  renderTable() {
    const t = this.table;
    /** @param {"live" | "turn"} value @param {string} text */
    const radio = (value, text) => {
      const r = el("input", { type: "radio", name: "mode", id: `mode-${value}`, value, checked: t.mode === value ? true : null });
      r.addEventListener("change", () => { if (r.checked) { t.mode = value; this.renderCreate(); } });
      return el("li", {}, el("label", { for: `mode-${value}` }, r, " ", text));
    };
    const away = el("input", { type: "number", id: "away", min: 1, max: 1440, step: 1, value: t.awayMinutes, "aria-label": `${T("awayLabel")} (${T("minutes")})` });
    away.addEventListener("change", () => { t.awayMinutes = Math.max(1, Math.min(1440, Number(away.value) || 3)); });
    const standin = el("select", { id: "standin", "aria-label": T("standinLabel") });
    for (const l of this.levels) standin.append(el("option", { value: l, selected: l === t.standin ? true : null, text: this.levelOption(l) }));
    standin.addEventListener("change", () => { t.standin = standin.value; });
    /** @param {"hints" | "spectator_chat" | "public" | "friends"} key @param {string} id @param {string} text */
    const box = (key, id, text) => {
      const b = el("input", { type: "checkbox", id, checked: t[key] ? true : null });
      b.addEventListener("change", () => { t[key] = b.checked; });
      return el("p", {}, el("label", { for: id }, b, " ", text));
    };
    const people = this.seats.slice(0, this.count).filter((s) => s.kind === "person").length;
    return el("fieldset", { class: "table-choice" }, el("legend", { text: T("tableChoice") }),
      el("ul", { class: "modes" }, radio("live", T("modeLive")), radio("turn", T("modeTurn"))),
      t.mode === "live" ? el("p", {}, el("label", { for: "away" }, T("awayLabel") + " "), away, " " + T("minutes") + " · ",
        el("label", { for: "standin" }, T("standinLabel") + " "), standin) : null,
      people > 1 ? clockChoice(t) : null,
      people > 1 && !(t.rated && this.me) ? box("hints", "hints", T("hintsLabel")) : null,
      box("spectator_chat", "spectator-chat", T("spectatorChat")),
      box("public", "public", T("publicLabel")),
      this.me ? box("friends", "friends-only", T("friendsOnlyLabel")) : null,
      ratedChoice(this.me, t.rated, (/** @type {boolean} */ on) => { t.rated = on; this.renderCreate(); byId("rated").focus(); }));
  }

  /** The buttons that create a table show whether a creation is on its way (pressed again
   * meanwhile: nothing).
   * @param {boolean} on */
  setCreating(on) {
    this.creating = on;
    for (const id of ["create-btn", "play-now", "friends-create"]) {
      const b = findId(id);
      if (!(b instanceof HTMLButtonElement)) continue;
      b.disabled = on;
      if (on) b.setAttribute("aria-busy", "true"); else b.removeAttribute("aria-busy");
    }
  }

  /** Create the game the form describes.
   * @param {boolean} hotseat */
  createGame(hotseat) {
    const players = this.seats.slice(0, this.count).map((s, i) => ({
      // a person's seat left unnamed stores no words (each page says "Player 2" in its language)
      name: s.name || (s.kind === "bot" ? `Bot ${i + 1}` : undefined), kind: s.kind, level: s.kind === "bot" ? s.level : undefined,
      open: s.kind === "person" && s.open ? true : undefined,
      account: this.me && i > 0 && s.kind === "person" && !s.open && s.account ? s.account : undefined,
    }));
    const t = this.table;
    this.send({
      players, hotseat, board: this.board, variants: [...this.chosenVariants].sort(),
      mode: t.mode, away: t.awayMinutes * 60, standin: t.standin, hints: t.hints, spectator_chat: t.spectator_chat, public: t.public,
      friends: this.me && t.friends ? true : undefined,
      clock: hotseat || this.seats.slice(0, this.count).filter((s) => s.kind === "person").length < 2 ? undefined : clockSpec(t),
      ...(t.rated && this.me ? { rated: true, hints: false, hotseat: false } : {}),
    });
  }

  /** Create a table (the form, Play now, Play with friends). The request carries a key, one
   * per intended creation: the same table asked for again (a double click, a retry after a
   * network error) sends the same key, and the server gives one game for it; a created game
   * or another table makes a new one. While the request is on its way the buttons are
   * disabled. One person: straight to the board; more: their invitations.
   * @param {NewTable} body */
  async send(body) {
    if (this.creating) return;
    const form = JSON.stringify(body);
    if (!this.createKey || this.keyFor !== form) { this.createKey = newKey(); this.keyFor = form; }
    body = { ...body, key: this.createKey };
    /** @type {CreatedGame} */
    let data;
    this.setCreating(true);
    try {
      data = await postJSON("/api/games", body);
    } catch (e) {
      // (the key stays: the same table asked for again is the same creation)
      this.setCreating(false);
      const words = failureText(e);
      if (this.markFriend(e instanceof HttpError ? e.error : undefined, words)) { byId("created").replaceChildren(); return; }
      byId("created").replaceChildren(el("p", { class: "bad", role: "alert", text: words }));
      byId("created").scrollIntoView({ block: "nearest" });
      return;
    }
    this.createKey = null; // created: the next creation is another
    this.last = data;
    /** @type {Record<string, string>} */
    const invited = {};
    body.players.forEach((p, i) => { if (p.account) invited[i] = p.account; });
    this.invited = invited;
    // on to the game's page: the buttons stay disabled until it has gone (or comes back: pageshow)
    if (data.hotseat_url) { location.href = data.hotseat_url; return; }
    if (data.seats.length === 1) { location.href = data.seats[0].url; return; }
    storeSeat(data.id, data.seats[0].seat, data.seats[0].token); // "My games" knows this table now
    this.setCreating(false);
    this.friendsOpen = false;
    this.renderWays();
    this.renderFriends();
    this.renderCreated();
    const title = byId("created-title");
    title.scrollIntoView({ block: "start", behavior: "smooth" });
    title.focus({ preventScroll: true });
    this.loadGames();
    this.mine.load();
  }

  /** The invitations of the table just made: per person their link, a copy button, the
   * phone's share sheet where there is one; "Open my seat" for the first person's seat. */
  renderCreated() {
    if (!this.last) return;
    const abs = (/** @type {string} */ u) => location.origin + u;
    const status = el("p", { id: "copy-status", class: "sr-only", role: "status" });
    /** @param {string} id @param {string} text @param {string} name */
    const copy = (id, text, name) => {
      const b = el("button", { type: "button", class: "copy", id, onclick: async () => {
        const ok = await copyText(text);
        b.textContent = ok ? `✓ ${T("copied")}` : T("copyFailed");
        status.textContent = ok ? T("copiedSaid", { name }) : T("copyFailed");
        setTimeout(() => { b.textContent = T("copyLink"); }, 2500);
      } }, T("copyLink"));
      return b;
    };
    /** @param {string} id @param {string} text @param {string} link */
    const share = (id, text, link) => (navigator.share ? el("button", { type: "button", class: "share", id,
      onclick: () => { navigator.share({ title: T("shareTitle"), text, url: link }).catch(() => { /* closed, or not allowed */ }); } }, T("shareLink")) : null);
    const mine = this.last.seats[0];
    const rows = this.last.seats.map((s) => {
      const link = abs(s.url);
      const own = s === mine;
      const name = seatName(s.name, s.seat);
      return el("li", { class: "invite", "data-invite": s.seat },
        el("span", { class: "invite-who" }, el("strong", { text: name }), own ? ` (${T("mySeat")})` : null,
          this.invited[s.seat] ? el("span", { class: "small kept-for", text: ` — ${T("keptFor", { name: name.toLowerCase() === this.invited[s.seat].toLowerCase() ? name : this.invited[s.seat] })}` }) : null),
        el("a", { href: s.url, class: "invite-link", "data-seat-link": s.seat }, link),
        el("span", { class: "invite-actions" },
          own ? el("a", { href: s.url, id: "open-my-seat", class: "btn primary" }, T("openMySeat")) : null,
          copy(`copy-${s.seat}`, link, name), share(`share-${s.seat}`, T("shareText", { name }), link)));
    });
    const watch = abs(this.last.watch);
    fill(byId("created"), el("h2", { id: "created-title", tabindex: "-1", text: T("inviteTitle") }), el("p", { text: T("inviteWhy") }),
      el("ul", { class: "links invites" }, ...rows),
      el("p", { class: "watch" }, T("watchLink") + ": ", el("a", { href: this.last.watch, class: "invite-link" }, watch), " ",
        el("span", { class: "invite-actions" }, copy("copy-watch", watch, T("watchLink")), share("share-watch", T("shareWatchText"), watch))),
      this.last.public === false ? el("p", { class: "small", text: T("private") }) : null, status);
  }

  /** @param {GameSummary} g */
  gameRow(g) {
    const names = g.players.map((p) => seatName(p.name, p.seat) + (p.kind === "bot" ? ` (${this.levelWord(p.level ?? "")})` : "") + (p.kind === "person" && !p.joined ? ` [${T(p.open ? "free" : "invitedSeat")}]` : "")).join(", ");
    const turnBased = g.table && g.table.mode === "turn";
    const actions = el("span", {});
    actions.append(el("a", { href: url(`/game/${g.id}`), class: "btn" }, g.status === "finished" ? T("replay") : T("watch")));
    if (g.status === "open" && !g.hotseat) {
      g.players.forEach((p, i) => {
        if (p.kind === "person" && !p.joined && p.open) { // invited seats are taken with their links only
          const asking = this.me ? null : String(!!this.joining && this.joining.gid === g.id && this.joining.seat === i && this.joining.name !== null);
          actions.append(" ", el("button", { type: "button", "data-claim": `${g.id}:${i}`, "aria-expanded": asking, onclick: () => this.claim(g.id, i) }, `${T("join")}: ${T("seat")} ${i + 1}`));
        }
      });
    }
    const when = dateTime(g.created);
    const score = g.scores && g.status !== "open" ? ` — ${g.scores.join(" : ")}` : "";
    const variants = g.variants || [];
    /** @type {HTMLElement[]} */
    const tags = [];
    if (variants.length) tags.push(el("span", { class: "tag variant", title: variants.map((n) => variantText(n, this.variants[n])).join(" "), text: rulesText(variants) }));
    if (g.board && g.board !== DEFAULT_BOARD) tags.push(el("span", { class: "tag board", text: T("boardOf", { name: g.board }) }));
    if (turnBased) tags.push(el("span", { class: "tag", text: T("turnBased") }));
    if (g.table && g.table.friends) tags.push(el("span", { class: "tag", text: T("friendsOnlyTag") }));
    if (g.table && g.table.clock) tags.push(el("span", { class: "tag clock", text: `${T("clockLabel")}: ${clockText(g.table.clock)}` }));
    const rated = ratedTag(g.table);
    if (rated) tags.push(rated);
    const j = this.joining && this.joining.gid === g.id ? this.joining : null;
    return el("li", { "data-game": g.id, "data-variants": variants.join(" "), "data-board": g.board || "" },
      el("span", { class: "small", text: when + " · " }), names + score + " ", ...tags.flatMap((t) => [t, " "]), actions,
      j && j.name !== null ? this.joinForm(j) : null,
      // said in the table's row, where the player tapped (an alert may be blocked or unseen)
      j && j.refused ? el("p", { class: "bad claim-refused", role: "alert", text: j.refused }) : null);
  }

  /** Join: signed in, the seat is taken at once under the account's name (the server's
   * choice for a claim without one); a guest is asked for a name in the table's row
   * (joinForm). A refusal is said in the row (sendClaim).
   * @param {string} gid @param {number} seat */
  claim(gid, seat) {
    if (this.me) { this.joining = { gid, seat, name: null, refused: "" }; this.sendClaim(); return; }
    // the name: one typed in a form open now (moved to this seat), else the one this browser used last
    this.joining = { gid, seat, name: this.joining && this.joining.name !== null ? this.joining.name : this.myName, refused: "" };
    this.redrawRow(gid);
    const field = findId("join-name");
    if (field instanceof HTMLInputElement) { field.focus(); field.select(); }
  }

  /** Ask for the seat being joined (this.joining) under its name: on to the seat's page,
   * or the refusal said in the row (the name typed stays). */
  async sendClaim() {
    const j = this.joining;
    if (!j) return;
    const name = (j.name || "").trim();
    try {
      const data = await postJSON(`/api/games/${j.gid}/claim`, j.name === null ? { seat: j.seat } : { seat: j.seat, name });
      if (name) { this.myName = name; remember(NAME_KEY, name); } // the name this browser used last
      location.href = data.url;
    } catch (e) {
      if (this.joining !== j) return; // cancelled meanwhile
      j.refused = failureText(e);
      this.redrawRow(j.gid);
    }
  }

  /** Close the name form of a guest's Join, the focus back on its Join button. */
  cancelJoin() {
    const j = this.joining;
    if (!j) return;
    this.joining = null;
    this.redrawRow(j.gid);
    const button = document.querySelector(`#games button[data-claim="${CSS.escape(`${j.gid}:${j.seat}`)}"]`);
    if (button instanceof HTMLElement) button.focus();
  }

  /** Draw one table's row again (the join form opened or closed, a refusal), keeping what
   * is typed and the focus. @param {string} gid */
  redrawRow(gid) {
    const row = document.querySelector(`#games li[data-game="${CSS.escape(gid)}"]`);
    const g = this.shown.get(gid);
    if (row && g) keepInput(pagePart("main"), () => row.replaceWith(this.gameRow(g)));
  }

  /** The guest's name form of a Join in its table's row: the name (the one this browser
   * used last), Join and Cancel; Enter joins, Escape cancels.
   * @param {{ gid: string, seat: number, name: string | null }} j */
  joinForm(j) {
    const field = el("input", { type: "text", id: "join-name", name: "name", maxlength: 24, autocomplete: "nickname", placeholder: `${T("player")} ${j.seat + 1}` });
    field.value = j.name || "";
    field.addEventListener("input", () => { if (this.joining) this.joining.name = field.value; });
    const form = el("form", { class: "join-form", id: "join-form", "data-join": `${j.gid}:${j.seat}`, "aria-label": `${T("join")}: ${T("seat")} ${j.seat + 1}` },
      el("label", { for: "join-name", text: T("yourNameLabel") }), " ", field, " ",
      el("button", { type: "submit", class: "primary", id: "join-send" }, T("join")), " ",
      el("button", { type: "button", id: "join-cancel", onclick: () => this.cancelJoin() }, T("joinCancel")));
    form.addEventListener("submit", (ev) => { ev.preventDefault(); this.sendClaim(); });
    form.addEventListener("keydown", (ev) => { if (ev.key === "Escape") { ev.preventDefault(); this.cancelJoin(); } });
    return form;
  }

  /** The open tables (seats to take), then, folded away, the games under way and finished. */
  async loadGames() {
    let data;
    try { data = await getJSON("/api/games"); } catch (e) { return; }
    // asked every 5 s: drawn again only when something changed, so a row (and the focus on
    // its button) is not replaced under the reader's finger or keyboard
    const seen = JSON.stringify([lang(), data.games]);
    if (seen === this.gamesSeen) return;
    this.gamesSeen = seen;
    keepInput(pagePart("main"), () => this.drawGames(data)); // (#games and #other-games)
  }

  /** @param {{ games: GameSummary[] }} data */
  drawGames(data) {
    const open = data.games.filter((g) => g.status === "open").slice(0, 30);
    this.shown = new Map(open.map((g) => [g.id, g]));
    fill(byId("games"), el("h2", { text: T("openTables") }),
      open.length ? el("ul", { class: "games", "data-list": "open" }, ...open.map((g) => this.gameRow(g))) : el("p", { class: "small", text: T("openTablesNone") }));
    const other = byId("other-games");
    const lists = [];
    for (const [status, title] of [["running", "runningGames"], ["finished", "finishedGames"], ["expired", "expiredGames"]]) {
      const games = data.games.filter((g) => g.status === status).slice(0, 30);
      lists.push(el("h3", { text: T(title) }), games.length ? el("ul", { class: "games", "data-list": status }, ...games.map((g) => this.gameRow(g))) : el("p", { class: "small", text: T("none") }));
    }
    fill(other, el("summary", { id: "other-games-summary", text: T("otherGames") }), ...lists); // (its open state stays)
  }
}

new Lobby().start();
