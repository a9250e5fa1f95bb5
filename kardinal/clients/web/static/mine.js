// "My games": every game this browser holds a seat in (the seat tokens its game pages
// stored), whose turn it is, and a link back. Turn-based games over days are played from
// here. For a guest the list is read from this browser's storage only, and nothing here is
// sent anywhere but each game's public summary. Signed in, the account's games are listed
// too, from any device: opening one whose seat this browser does not hold asks the server
// for a token of the seat (in the answer, never in an address) and keeps it as a link's.

import { byId, el, fill } from "./dom.js";
import { T, addStrings, dateTime, onLangChange } from "./i18n.js";
import { allStoredSeats, forgetStoredSeats, getJSON, postJSON, storeSeats, url } from "./net.js";
import { whoAmI } from "./account-link.js";
import { initHeader } from "./header.js";
import { refusalText } from "./refusals.js";

import { ratedTag } from "./rated.js";
addStrings({
  en: {
    mineTitle: "My games",
    mineWhy: "The games this browser holds a seat in. Your seats' links are kept in this browser only: open a game from another device with its invitation link, or sign in there.",
    mineWhyAccount: "Your account's games, on every device you sign in on, and those this browser holds a seat in.",
    mineNone: "No games yet: create one in the lobby, or open an invitation link.",
    mineYourTurn: "Your turn",
    mineTheirTurn: "{name} to play",
    mineWaiting: "waiting for players",
    mineOver: "over",
    mineExpired: "expired (nobody moved for too long)",
    mineOpen: "Open",
    mineForget: "Forget",
    mineForgetWhy: "Remove this game from this browser (its link stops working here)",
    mineGone: "this game cannot be found any more",
    mineYou: "you",
    mineUpdated: { one: "{n} game · your turn in {k}", other: "{n} games · your turn in {k}" },
    turnBased: "turn-based",
    mineAll: "All my games ({n})",
  },
  de: {
    mineTitle: "Meine Spiele",
    mineWhy: "Die Spiele, in denen dieser Browser einen Platz hat. Die Links deiner Plätze sind nur in diesem Browser gespeichert: auf einem anderen Gerät öffnest du ein Spiel mit seinem Einladungslink, oder du meldest dich dort an.",
    mineWhyAccount: "Die Spiele deines Kontos, auf jedem Gerät, auf dem du angemeldet bist, und die, in denen dieser Browser einen Platz hat.",
    mineNone: "Noch keine Spiele: lege eines in der Lobby an oder öffne einen Einladungslink.",
    mineYourTurn: "Du bist dran",
    mineTheirTurn: "{name} ist dran",
    mineWaiting: "wartet auf Spieler",
    mineOver: "beendet",
    mineExpired: "abgelaufen (zu lange hat niemand gezogen)",
    mineOpen: "Öffnen",
    mineForget: "Vergessen",
    mineForgetWhy: "Dieses Spiel aus diesem Browser entfernen (sein Link gilt hier nicht mehr)",
    mineGone: "dieses Spiel gibt es nicht mehr",
    mineYou: "du",
    mineUpdated: { one: "{n} Spiel · du bist dran in {k}", other: "{n} Spiele · du bist dran in {k}" },
    turnBased: "rundenbasiert",
    mineAll: "Alle meine Spiele ({n})",
  },
});

/** The list of this browser's games: on its own page (/mine), or the first few of them on
 * the home page (`home`: a section that stays hidden while there are none). */
export class MyGames {
  constructor(boxId = "mine", home = false, limit = Infinity) {
    this.games = []; // [{game, seats: {seat: token | null}, info | null, error | null}]
    this.boxId = boxId;
    this.home = home;
    this.limit = limit;
    this.me = null; // the account signed in to, if any
  }

  async start() {
    initHeader(() => T("mineWhy"));
    onLangChange(() => this.render());
    await this.load();
    setInterval(() => this.load(), 15000);
  }

  async load() {
    const held = allStoredSeats();
    this.me = await whoAmI();
    let owned = [];
    if (this.me) {
      try { owned = (await getJSON("/api/account/games")).games; } catch (e) { owned = []; }
    }
    const fromServer = new Map(owned.map((g) => [g.game.id, g]));
    const games = await Promise.all(held.map(async (g) => {
      const mine = fromServer.get(g.game);
      if (mine) return { ...g, info: mine.game, error: null };
      try { return { ...g, info: await getJSON(`/api/games/${encodeURIComponent(g.game)}`), error: null }; }
      catch (e) { return { ...g, info: null, error: e.error || { code: "http", message: e.message } }; }
    }));
    const here = new Set(held.map((g) => g.game));
    // the account's games this browser holds no seat of: their seats, without tokens yet (open())
    for (const g of owned) {
      if (!here.has(g.game.id)) games.push({ game: g.game.id, seats: Object.fromEntries(g.seats.map((s) => [s, null])), info: g.game, error: null });
    }
    this.games = games;
    this.render();
  }

  /** Open a game: the seats of the account this browser holds no token of get one first. */
  async open(g, ev) {
    const missing = Object.keys(g.seats).filter((s) => !g.seats[s]);
    if (!missing.length) return;
    ev.preventDefault();
    try {
      const got = {};
      for (const s of missing) got[s] = (await postJSON("/api/account/seat", { game: g.game, seat: Number(s) })).token;
      storeSeats(g.game, got);
      location.href = url(`/game/${encodeURIComponent(g.game)}`);
    } catch (e) {
      alert(e.error ? refusalText(e.error, null) : e.message);
    }
  }

  /** Whose turn: -1 my turn, 0 running, 1 open, 2 finished, 3 unreadable (the order shown). */
  rank(g) {
    if (!g.info) return 3;
    if (g.info.status === "running") return g.seats[g.info.current] !== undefined ? -1 : 0;
    return g.info.status === "open" ? 1 : 2;
  }

  render() {
    const box = byId(this.boxId);
    const games = [...this.games].sort((a, b) => this.rank(a) - this.rank(b) || ((b.info && b.info.created) || 0) - ((a.info && a.info.created) || 0));
    if (this.home) {
      box.hidden = games.length === 0;
      const shown = games.slice(0, this.limit);
      fill(box, el("h2", { id: "my-games-title" }, T("mineTitle")), el("ul", { class: "games mine-list" }, ...shown.map((g) => this.row(g))),
        el("p", {}, el("a", { href: url("/mine"), id: "mine-all", class: "btn" }, T("mineAll", { n: games.length }))));
      return;
    }
    document.title = `Kardinal & König — ${T("mineTitle")}`;
    const mine = games.filter((g) => this.rank(g) === -1).length;
    const items = games.map((g) => this.row(g));
    fill(box, el("h1", {}, T("mineTitle")), el("p", { class: "small" }, T(this.me ? "mineWhyAccount" : "mineWhy")),
      games.length ? el("p", { id: "mine-count" }, T("mineUpdated", { n: games.length, k: mine })) : null,
      items.length ? el("ul", { class: "games mine-list" }, ...items) : el("p", { id: "mine-none" }, T("mineNone")));
  }

  row(g) {
    const href = url(`/game/${encodeURIComponent(g.game)}`);
    const forget = el("button", { type: "button", class: "forget", title: T("mineForgetWhy"), "data-forget": g.game, onclick: () => { forgetStoredSeats(g.game); this.load(); } }, T("mineForget"));
    if (!g.info) {
      return el("li", { "data-game": g.game, "data-state": "gone" }, el("span", {}, `${g.game}: ${g.error && g.error.code === "no_game" ? T("mineGone") : refusalText(g.error, null)} `), forget);
    }
    const info = g.info;
    const names = info.players.map((p) => (g.seats[p.seat] !== undefined ? `${p.name} (${T("mineYou")})` : p.name)).join(", ");
    let state;
    const rank = this.rank(g);
    if (rank === -1) state = el("strong", { class: "your-turn" }, T("mineYourTurn"));
    else if (rank === 0) state = el("span", {}, T("mineTheirTurn", { name: info.players[info.current].name }));
    else if (rank === 1) state = el("span", {}, T("mineWaiting"));
    else if (info.status === "expired") state = el("span", {}, T("mineExpired"));
    else state = el("span", {}, `${T("mineOver")}${info.scores ? " — " + info.scores.join(" : ") : ""}`);
    const when = dateTime(info.created);
    const tags = info.table && info.table.mode === "turn" ? el("span", { class: "tag" }, T("turnBased")) : null;
    const rated = ratedTag(info.table);
    return el("li", { "data-game": g.game, "data-state": rank === -1 ? "my-turn" : info.status },
      el("a", { href, class: "btn", onclick: (ev) => this.open(g, ev) }, T("mineOpen")), " ", state, " · ", names, " ", tags, " ", rated, rated ? " " : null,
      el("span", { class: "small" }, when), " ", info.status === "finished" || info.status === "expired" ? forget : null);
  }
}

if (document.body.classList.contains("mine")) new MyGames().start();
