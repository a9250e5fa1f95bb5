// The lobby: create a game (persons and bots, the board, rule variants), hand out
// invitation links, list the games.

import { byId, el, fill } from "./dom.js";
import { T, dateTime, onLangChange, rulesText, variantText, boardName, num, strengthText, levelName } from "./i18n.js";
import { getJSON, postJSON, url } from "./net.js";
import { loadBoard } from "./board.js";
import { initHeader } from "./header.js";
import { refusalText } from "./refusals.js";
import { addStrings } from "./i18n.js";

addStrings({
  en: {
    openSeat: "Open seat (anyone may join)",
    seatKind: "Who",
    lobbyTitle: "Kardinal & König: the lobby",
    tableChoice: "How you play",
    modeLive: "Live: everyone at the table now",
    modeTurn: "Turn-based: a move when you have time, over days",
    awayLabel: "If a person leaves, a bot plays for them after",
    minutes: "minutes",
    standinLabel: "That bot's level",
    hintsLabel: "Allow hints (every person at the table agrees by joining)",
    spectatorChat: "Spectators may write in the chat",
    publicLabel: "List this game in the lobby (anyone may watch)",
    levelAbout: "{name}: {summary}",
    thinksAtOnce: "answers at once",
    thinksUpTo: "thinks up to {s} s a move",
    "level.random": "Plays any legal move at random.",
    "level.easy": "Looks one move ahead, with deliberate slips.",
    "level.greedy": "Looks one move ahead and takes the best-looking move.",
    "level.medium": "Searches the game tree (ISMCTS), briefly.",
    "level.ismcts": "Searches the game tree (ISMCTS), 1,000 iterations a move.",
    "level.hard": "Searches the game tree (ISMCTS) thoroughly.",
    "level.expert": "Searches the game tree (ISMCTS) longest, playing each line further ahead.",
    turnBased: "turn-based",
    private: "listed nowhere: only its links lead to it",
    expiredGames: "Expired games (nobody moved for too long)",
  },
  de: {
    openSeat: "Offener Platz (jeder darf beitreten)",
    seatKind: "Wer",
    lobbyTitle: "Kardinal & König: die Lobby",
    tableChoice: "Wie ihr spielt",
    modeLive: "Live: alle sitzen jetzt am Tisch",
    modeTurn: "Rundenbasiert: ein Zug, wenn du Zeit hast, über Tage",
    awayLabel: "Geht eine Person, spielt ein Bot für sie nach",
    minutes: "Minuten",
    standinLabel: "Stufe dieses Bots",
    hintsLabel: "Tipps erlauben (wer beitritt, stimmt zu)",
    spectatorChat: "Zuschauer dürfen im Chat schreiben",
    publicLabel: "Dieses Spiel in der Lobby zeigen (jeder darf zusehen)",
    levelAbout: "{name}: {summary}",
    thinksAtOnce: "antwortet sofort",
    thinksUpTo: "denkt bis zu {s} s pro Zug",
    "level.random": "Spielt irgendeinen erlaubten Zug, zufällig.",
    "level.easy": "Schaut einen Zug voraus, mit absichtlichen Patzern.",
    "level.greedy": "Schaut einen Zug voraus und nimmt den besten.",
    "level.medium": "Durchsucht den Spielbaum (ISMCTS), kurz.",
    "level.ismcts": "Durchsucht den Spielbaum (ISMCTS), 1.000 Iterationen pro Zug.",
    "level.hard": "Durchsucht den Spielbaum (ISMCTS) gründlich.",
    "level.expert": "Durchsucht den Spielbaum (ISMCTS) am längsten und spielt jede Linie weiter voraus.",
    turnBased: "rundenbasiert",
    private: "nirgends gelistet: nur seine Links führen hin",
    expiredGames: "Abgelaufene Spiele (zu lange hat niemand gezogen)",
  },
});

const DEFAULT_BOARD = "standard";

/** A key for one creation of a game: 24 random characters of A-Z a-z 0-9 _ - (18 bytes). */
function newKey() {
  const bytes = new Uint8Array(18);
  crypto.getRandomValues(bytes);
  return btoa(String.fromCharCode(...bytes)).replace(/\+/g, "-").replace(/\//g, "_").replace(/=+$/, "");
}

class Lobby {
  constructor() {
    this.levels = ["random"]; // weakest first (the server's order)
    this.levelAbout = {}; // level -> {summary, seconds, strength}
    this.table = { mode: "live", awayMinutes: 3, standin: "medium", hints: false, spectator_chat: false, public: true };
    this.variants = {}; // name -> the server's one-line description
    this.boards = [DEFAULT_BOARD];
    this.count = 4;
    this.seats = [];
    this.chosenVariants = new Set(); // default: the rules as written
    this.board = DEFAULT_BOARD;
    this.about = ""; // the chosen board's About text
    this.last = null; // the last created game's answer
    this.creating = false; // a request to create a game is on its way
    this.createKey = null; // the key of the creation the form stands for (see createGame)
    this.keyFor = null; // the request that key was made for (without the key)
  }

  async start() {
    this.refreshHeader = initHeader(() => this.about);
    onLangChange(() => this.renderAll());
    const [bots, variants] = await Promise.allSettled([getJSON("/api/bots"), getJSON("/api/variants")]);
    if (bots.status === "fulfilled") { this.levels = bots.value.levels; this.levelAbout = bots.value.about || {}; }
    if (!this.levels.includes(this.table.standin)) this.table.standin = this.levels[Math.min(this.levels.length - 1, 3)];
    if (variants.status === "fulfilled") {
      this.variants = variants.value.variants || {};
      if ((variants.value.boards || []).length) this.boards = variants.value.boards;
    }
    if (!this.boards.includes(this.board)) this.board = this.boards[0];
    this.seats = this.defaultSeats(this.count);
    this.loadAbout();
    this.renderAll();
    setInterval(() => this.loadGames(), 5000);
    // back from the game's page (the page kept in the browser's cache): the button is free again
    window.addEventListener("pageshow", (ev) => { if (ev.persisted) this.setCreating(false); });
  }

  loadAbout() {
    const id = this.board;
    loadBoard(id).then((b) => {
      if (this.board !== id) return;
      this.about = (b.data.reconstruction ? T("reconstruction") + " " : "") + b.data.about;
      this.refreshHeader();
    }).catch(() => { /* no About text */ });
  }

  defaultSeats(n) {
    const out = [];
    for (let i = 0; i < n; i++) {
      const old = this.seats[i];
      const botLevel = this.levels.includes("medium") ? "medium" : this.levels[0];
      out.push(old || (i === 0 ? { name: "", kind: "person", level: this.levels[0] } : { name: "", kind: "bot", level: botLevel }));
    }
    return out;
  }

  renderAll() {
    byId("lobby-title").textContent = T("lobbyTitle");
    this.renderCreate();
    this.renderCreated();
    this.loadGames();
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
      const name = el("input", { type: "text", id: `name-${i}`, value: s.name, placeholder: s.kind === "bot" ? `Bot ${i + 1}` : `${T("player")} ${i + 1}`, "aria-label": `${T("name")} ${i + 1}`, maxlength: 24 });
      name.addEventListener("input", () => { s.name = name.value; });
      // a person invited by link, a seat anyone may take from the list of open games, or a bot
      const kind = el("select", { id: `kind-${i}`, "aria-label": `${T("seat")} ${i + 1}` },
        el("option", { value: "person", selected: s.kind === "person" && !s.open ? true : null, text: T("person") }),
        i > 0 ? el("option", { value: "open", selected: s.kind === "person" && s.open ? true : null, text: T("openSeat") }) : null,
        el("option", { value: "bot", selected: s.kind === "bot" ? true : null, text: T("bot") }));
      kind.addEventListener("change", () => { s.kind = kind.value === "bot" ? "bot" : "person"; s.open = kind.value === "open"; this.renderCreate(); });
      let level = null;
      if (s.kind === "bot") { // a person has no level
        level = el("select", { id: `level-${i}`, "aria-label": `${T("level")} ${i + 1}` });
        for (const l of this.levels) level.append(el("option", { value: l, selected: l === s.level ? true : null, text: this.levelName(l) }));
        level.addEventListener("change", () => { s.level = level.value; this.renderCreate(); });
      }
      const about = level ? el("div", { class: "small level-about", id: `level-about-${i}` }, this.levelLine(s.level)) : null;
      return el("tr", {}, el("td", { text: String(i + 1) }), el("td", {}, name), el("td", {}, kind), el("td", {}, level, about));
    });
    const hot = el("input", { type: "checkbox", id: "hotseat" });
    const create = el("button", { type: "button", id: "create-btn", class: "big", disabled: this.creating ? true : null, "aria-busy": this.creating ? "true" : null,
      onclick: (ev) => { if (ev.detail < 2) this.createGame(hot.checked); } }, T("create")); // (the second click of a double click: nothing)
    byId("create").replaceChildren(el("h2", { text: T("newGame") }), el("p", {}, count),
      el("table", { class: "seats" }, el("thead", {}, el("tr", {}, el("th", { text: T("seat") }), el("th", { text: T("name") }), el("th", { text: T("seatKind") }), el("th", { text: T("level") }))), el("tbody", {}, ...rows)),
      this.renderRules(),
      this.renderTable(),
      el("p", {}, el("label", {}, hot, " " + T("hotseat"))), create);
  }

  /** A level in a list: its name and how long it thinks. */
  levelName(l) {
    const a = this.levelAbout[l];
    if (!a) return levelName(l);
    return `${levelName(l)} — ${a.seconds ? T("thinksUpTo", { s: num(a.seconds, 1) }) : T("thinksAtOnce")}`;
  }

  /** One line on a level: what it is, how long it thinks and its measured strength (the
   * list's own text, which a phone cuts short, says the time too). */
  levelLine(l) {
    const a = this.levelAbout[l] || {};
    const key = `level.${l}`;
    const summary = T(key) !== key ? T(key) : (a.summary || "");
    const facts = [a.seconds ? T("thinksUpTo", { s: num(a.seconds, 1) }) : this.levelAbout[l] ? T("thinksAtOnce") : null, strengthText(a.strength)].filter(Boolean);
    return T("levelAbout", { name: levelName(l), summary }) + (facts.length ? ` (${facts.join("; ")})` : "");
  }

  /** How the table plays: live or turn-based, the stand-in for a person who left, hints,
   * the spectators' chat, listed in the lobby or not. */
  renderTable() {
    const t = this.table;
    const radio = (value, text) => {
      const r = el("input", { type: "radio", name: "mode", id: `mode-${value}`, value, checked: t.mode === value ? true : null });
      r.addEventListener("change", () => { if (r.checked) { t.mode = value; this.renderCreate(); } });
      return el("li", {}, el("label", { for: `mode-${value}` }, r, " ", text));
    };
    const away = el("input", { type: "number", id: "away", min: 1, max: 1440, step: 1, value: t.awayMinutes, "aria-label": `${T("awayLabel")} (${T("minutes")})` });
    away.addEventListener("change", () => { t.awayMinutes = Math.max(1, Math.min(1440, Number(away.value) || 3)); });
    const standin = el("select", { id: "standin", "aria-label": T("standinLabel") });
    for (const l of this.levels) standin.append(el("option", { value: l, selected: l === t.standin ? true : null, text: this.levelName(l) }));
    standin.addEventListener("change", () => { t.standin = standin.value; });
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
      people > 1 ? box("hints", "hints", T("hintsLabel")) : null,
      box("spectator_chat", "spectator-chat", T("spectatorChat")),
      box("public", "public", T("publicLabel")));
  }

  /** The button shows whether a creation is on its way (pressed again meanwhile: nothing). */
  setCreating(on) {
    this.creating = on;
    const b = byId("create-btn");
    if (!b) return;
    b.disabled = on;
    if (on) b.setAttribute("aria-busy", "true"); else b.removeAttribute("aria-busy");
  }

  /** Create the game the form describes. The request carries a key, one per intended
   * creation: the same form sent again (a double click, a retry after a network error)
   * sends the same key, and the server gives one game for it; a created game or a changed
   * form makes a new one. While the request is on its way the button is disabled. */
  async createGame(hotseat) {
    if (this.creating) return;
    const players = this.seats.slice(0, this.count).map((s, i) => ({
      name: s.name || (s.kind === "bot" ? `Bot ${i + 1}` : `${T("player")} ${i + 1}`), kind: s.kind, level: s.kind === "bot" ? s.level : undefined,
      open: s.kind === "person" && s.open ? true : undefined,
    }));
    const t = this.table;
    const body = {
      players, hotseat, board: this.board, variants: [...this.chosenVariants].sort(),
      mode: t.mode, away: t.awayMinutes * 60, standin: t.standin, hints: t.hints, spectator_chat: t.spectator_chat, public: t.public,
    };
    const form = JSON.stringify(body);
    if (!this.createKey || this.keyFor !== form) { this.createKey = newKey(); this.keyFor = form; }
    body.key = this.createKey;
    let data;
    this.setCreating(true);
    try {
      data = await postJSON("/api/games", body);
    } catch (e) {
      // (the key stays: the same form sent again is the same creation)
      this.setCreating(false);
      byId("created").replaceChildren(el("p", { class: "bad", role: "alert", text: e.error ? refusalText(e.error, null) : e.message }));
      return;
    }
    this.createKey = null; // created: the next creation is another
    this.last = data;
    // on to the game's page: the button stays disabled until it has gone (or comes back: pageshow)
    if (data.hotseat_url) { location.href = data.hotseat_url; return; }
    if (data.seats.length === 1) { location.href = data.seats[0].url; return; }
    this.setCreating(false);
    this.renderCreated();
    this.loadGames();
  }

  renderCreated() {
    if (!this.last) return;
    const abs = (u) => location.origin + u;
    const list = el("ul", { class: "links" });
    for (const s of this.last.seats) list.append(el("li", {}, `${s.name}: `, el("a", { href: s.url, "data-seat-link": s.seat }, abs(s.url))));
    fill(byId("created"), el("h2", { text: T("created") }), el("p", { text: T("invitations") }), list,
      el("p", {}, T("watchLink") + ": ", el("a", { href: this.last.watch }, abs(this.last.watch))),
      this.last.public === false ? el("p", { class: "small", text: T("private") }) : null);
  }

  gameRow(g) {
    const names = g.players.map((p) => p.name + (p.kind === "bot" ? ` (${levelName(p.level)})` : "") + (p.kind === "person" && !p.joined ? ` [${T("free")}]` : "")).join(", ");
    const turnBased = g.table && g.table.mode === "turn";
    const actions = el("span", {});
    actions.append(el("a", { href: url(`/game/${g.id}`), class: "btn" }, g.status === "finished" ? T("replay") : T("watch")));
    if (g.status === "open" && !g.hotseat) {
      g.players.forEach((p, i) => {
        if (p.kind === "person" && !p.joined && p.open) { // invited seats are taken with their links only
          actions.append(" ", el("button", { type: "button", "data-claim": `${g.id}:${i}`, onclick: () => this.claim(g.id, i) }, `${T("join")}: ${T("seat")} ${i + 1}`));
        }
      });
    }
    const when = dateTime(g.created);
    const score = g.scores && g.status !== "open" ? ` — ${g.scores.join(" : ")}` : "";
    const variants = g.variants || [];
    const tags = [];
    if (variants.length) tags.push(el("span", { class: "tag variant", title: variants.map((n) => variantText(n, this.variants[n])).join(" "), text: rulesText(variants) }));
    if (g.board && g.board !== DEFAULT_BOARD) tags.push(el("span", { class: "tag board", text: T("boardOf", { name: g.board }) }));
    if (turnBased) tags.push(el("span", { class: "tag", text: T("turnBased") }));
    return el("li", { "data-game": g.id, "data-variants": variants.join(" "), "data-board": g.board || "" },
      el("span", { class: "small", text: when + " · " }), names + score + " ", ...tags.flatMap((t) => [t, " "]), actions);
  }

  async claim(gid, seat) {
    const name = prompt(T("yourName")) || "";
    try {
      const data = await postJSON(`/api/games/${gid}/claim`, { seat, name });
      location.href = data.url;
    } catch (e) {
      alert(e.error ? refusalText(e.error, null) : e.message);
      this.loadGames();
    }
  }

  async loadGames() {
    let data;
    try { data = await getJSON("/api/games"); } catch (e) { return; }
    const box = byId("games");
    box.replaceChildren();
    for (const [status, title] of [["open", "openGames"], ["running", "runningGames"], ["finished", "finishedGames"], ["expired", "expiredGames"]]) {
      const games = data.games.filter((g) => g.status === status).slice(0, 30);
      box.append(el("h2", { text: T(title) }), games.length ? el("ul", { class: "games", "data-list": status }, ...games.map((g) => this.gameRow(g))) : el("p", { class: "small", text: T("none") }));
    }
  }
}

new Lobby().start();
