// A player's profile (/player/<name>): since when they play, their finished games in
// numbers by the number of players, their rating with its uncertainty and its history as a
// chart, and their last games with a link to replay (finished) or watch (under way, public
// tables only). Signed in, a button to follow them. Only what is public: no seat's link.

import { byId, el, fill } from "./dom.js";
import { T, seatName, addStrings, dateTime, locale, num, onLangChange } from "./i18n.js";
import { HttpError, getJSON, postJSON, url } from "./net.js";
import { initHeader } from "./header.js";
import { refusalText } from "./refusals.js";
import { whoAmI } from "./account-link.js";
import { lineChart } from "./chart.js";
/** @import { ErrorData } from "./messages.js" */

/** A finished or running game of the player's, newest first (social.py _last_games):
 * place, score, win and of (the number of players) once its results are stored.
 * @typedef {object} ProfileGame
 * @property {string} game
 * @property {"finished" | "running" | "open"} status
 * @property {number} at
 * @property {number} seat
 * @property {string} name
 * @property {string[]} players
 * @property {boolean} public
 * @property {number} [place]
 * @property {number} [score]
 * @property {number} [win]
 * @property {number} [of]
 */

/** A player's profile as GET /api/players/<name> gives it (social.py Social.profile).
 * @typedef {object} Profile
 * @property {string} name
 * @property {number} since
 * @property {number} games
 * @property {number} wins
 * @property {{ players: number, games: number, wins: number, score: number, place: number }[]} by_players
 * @property {{ mu: number, sigma: number, games: number } | null} rating
 * @property {{ at: number, mu: number, sigma: number }[]} history
 * @property {ProfileGame[]} last
 * @property {number} follows
 * @property {number} followers
 * @property {boolean} me
 * @property {boolean} following
 */

/** A failed request as a refusal: the server's, or the error's message as one.
 * @param {unknown} e @returns {ErrorData} */
function refusalOf(e) {
  if (e instanceof HttpError) return e.error;
  return { code: "http", message: e instanceof Error ? e.message : String(e) };
}

addStrings({
  en: {
    profileWhy: "A player's profile: their games, their rating and whom they play with. Only what every spectator can see is shown.",
    profileSince: "Playing since {date}",
    profileYou: "This is your profile.",
    profileAccount: "Your account",
    follow: "Follow",
    unfollow: "Stop following",
    followingNow: "You follow {name}.",
    followSignIn: "Sign in to follow {name}.",
    followCounts: "Follows {a} · Followers {b}",
    ratingTitle: "Rating",
    ratingValue: "{mu} ± {spread}",
    ratingGames: { one: "after {n} rated game", other: "after {n} rated games" },
    ratingWhy: "The number is the estimate of the player's strength; their true strength lies very likely (two standard deviations) between {lo} and {hi}. Fewer games, a wider range.",
    notRated: "Not rated yet: a rated game (every person at the table signed in) gives a rating.",
    chartTitle: "{name}'s rating over time",
    chartDesc: "{n} rated games from {from} to {to}: first {first}, last {last}, lowest {low}, highest {high}. The band shows the uncertainty (± two standard deviations).",
    chartNumbers: "The rating as numbers",
    chartWhen: "Date",
    chartRating: "Rating",
    chartRange: "Range (± 2σ)",
    statsTitle: "Games",
    statsTotal: { one: "{n} finished game", other: "{n} finished games" },
    statsTotalWins: { one: "{w} win", other: "{w} wins" },
    statsNone: "No finished game yet.",
    statsPlayers: "Players",
    statsGames: "Games",
    statsWins: "Wins",
    statsScore: "Mean score",
    statsPlace: "Mean place",
    statsShared: "A win shared by several players counts its share.",
    lastTitle: "Last games",
    lastNone: "No games to show.",
    placeOf: "place {place} of {n}",
    points: "{n} points",
    replayGame: "Replay",
    watchGame: "Watch",
    underWay: "under way",
    waitingTable: "waiting for players",
    privateTable: "not listed (only you see it here)",
    noPlayer: "There is no player called {name}.",
    backToLobby: "To the lobby",
  },
  de: {
    profileWhy: "Das Profil einer Person: ihre Spiele, ihre Wertung und mit wem sie spielt. Es zeigt nur, was alle Zuschauer sehen können.",
    profileSince: "Spielt seit {date}",
    profileYou: "Das ist dein Profil.",
    profileAccount: "Dein Konto",
    follow: "Folgen",
    unfollow: "Nicht mehr folgen",
    followingNow: "Du folgst {name}.",
    followSignIn: "Melde dich an, um {name} zu folgen.",
    followCounts: "Folgt {a} · Gefolgt von {b}",
    ratingTitle: "Wertung",
    ratingValue: "{mu} ± {spread}",
    ratingGames: { one: "nach {n} gewerteten Spiel", other: "nach {n} gewerteten Spielen" },
    ratingWhy: "Die Zahl schätzt die Spielstärke; die wahre Stärke liegt sehr wahrscheinlich (zwei Standardabweichungen) zwischen {lo} und {hi}. Je weniger Spiele, desto breiter der Bereich.",
    notRated: "Noch nicht gewertet: ein gewertetes Spiel (alle Personen am Tisch angemeldet) ergibt eine Wertung.",
    chartTitle: "Die Wertung von {name} im Lauf der Zeit",
    chartDesc: "{n} gewertete Spiele vom {from} bis {to}: zuerst {first}, zuletzt {last}, am niedrigsten {low}, am höchsten {high}. Das Band zeigt die Unsicherheit (± zwei Standardabweichungen).",
    chartNumbers: "Die Wertung in Zahlen",
    chartWhen: "Datum",
    chartRating: "Wertung",
    chartRange: "Bereich (± 2σ)",
    statsTitle: "Spiele",
    statsTotal: { one: "{n} beendetes Spiel", other: "{n} beendete Spiele" },
    statsTotalWins: { one: "{w} Sieg", other: "{w} Siege" },
    statsNone: "Noch kein beendetes Spiel.",
    statsPlayers: "Personen",
    statsGames: "Spiele",
    statsWins: "Siege",
    statsScore: "Punkte im Mittel",
    statsPlace: "Platz im Mittel",
    statsShared: "Ein geteilter Sieg zählt mit seinem Anteil.",
    lastTitle: "Letzte Spiele",
    lastNone: "Keine Spiele zu zeigen.",
    placeOf: "Platz {place} von {n}",
    points: "{n} Punkte",
    replayGame: "Nachspielen",
    watchGame: "Zusehen",
    underWay: "läuft",
    waitingTable: "wartet auf Spieler",
    privateTable: "nicht gelistet (nur du siehst es hier)",
    noPlayer: "Niemand heißt {name}.",
    backToLobby: "Zur Lobby",
  },
  da: {
    profileWhy: "En spillers profil: spillerens spil, rating og medspillere. Kun det, enhver tilskuer kan se, vises.",
    profileSince: "Spiller siden {date}",
    profileYou: "Dette er din profil.",
    profileAccount: "Din konto",
    follow: "Følg",
    unfollow: "Stop med at følge",
    followingNow: "Du følger {name}.",
    followSignIn: "Log ind for at følge {name}.",
    followCounts: "Følger {a} · Følgere {b}",
    ratingTitle: "Rating",
    ratingValue: "{mu} ± {spread}",
    ratingGames: { one: "efter {n} rated spil", other: "efter {n} ratede spil" },
    ratingWhy: "Tallet er skønnet over spillerens styrke; den sande styrke ligger meget sandsynligt (to standardafvigelser) mellem {lo} og {hi}. Færre spil, større spænd.",
    notRated: "Endnu ingen rating: et rated spil (alle mennesker ved bordet logget ind) giver en rating.",
    chartTitle: "Rating over tid for {name}",
    chartDesc: "{n} ratede spil fra {from} til {to}: først {first}, sidst {last}, lavest {low}, højest {high}. Båndet viser usikkerheden (± to standardafvigelser).",
    chartNumbers: "Ratingen som tal",
    chartWhen: "Dato",
    chartRating: "Rating",
    chartRange: "Spænd (± 2σ)",
    statsTitle: "Spil",
    statsTotal: { one: "{n} afsluttet spil", other: "{n} afsluttede spil" },
    statsTotalWins: { one: "{w} sejr", other: "{w} sejre" },
    statsNone: "Intet afsluttet spil endnu.",
    statsPlayers: "Spillere",
    statsGames: "Spil",
    statsWins: "Sejre",
    statsScore: "Gns. point",
    statsPlace: "Gns. plads",
    statsShared: "En sejr, som flere spillere deler, tæller med sin andel.",
    lastTitle: "Seneste spil",
    lastNone: "Ingen spil at vise.",
    placeOf: "plads {place} af {n}",
    points: "{n} point",
    replayGame: "Genafspil",
    watchGame: "Se med",
    underWay: "i gang",
    waitingTable: "venter på spillere",
    privateTable: "ikke vist (kun du ser det her)",
    noPlayer: "Der er ingen spiller ved navn {name}.",
    backToLobby: "Til lobbyen",
  },
});

/** The player's name from the address (/player/<name>, under the server's root path too). */
function nameFromPath() {
  const i = location.pathname.indexOf("/player/");
  try { return decodeURIComponent(location.pathname.slice(i + "/player/".length)); } catch (e) { return ""; }
}

/** A rating as shown: whole numbers on a scale of hundreds, one decimal on a smaller one.
 * @param {number} x @param {number} scale */
function rate(x, scale) { return num(x, Math.abs(scale) >= 100 ? 0 : 1); }

/** @param {number} seconds */
function day(seconds) { return new Date(seconds * 1000).toLocaleDateString(locale(), { dateStyle: "medium" }); }

class PlayerPage {
  constructor() {
    this.name = nameFromPath();
    /** @type {Profile | null} */
    this.p = null;
    /** @type {ErrorData | null} why there is no profile */
    this.error = null;
    /** @type {{ id: number, name: string, created: number } | null} the viewer's account */
    this.me = null;
    /** @type {{ kind: "good" | "bad", text: string } | null} the follow button's last word */
    this.note = null;
    /** the rating's numbers unfolded (kept across a change of language) */
    this.numbersOpen = false;
  }

  async start() {
    initHeader(() => T("profileWhy"));
    onLangChange(() => this.render());
    this.me = await whoAmI();
    await this.load();
  }

  async load() {
    try { this.p = await getJSON(`/api/players/${encodeURIComponent(this.name)}`); this.error = null; } catch (e) { this.p = null; this.error = refusalOf(e); }
    this.render();
  }

  /** @param {boolean} on */
  async follow(on) {
    const p = this.p;
    if (!p) return; // the button is shown with a profile only
    try {
      const r = await postJSON("/api/account/follow", { name: p.name, follow: on });
      this.note = r.following ? { kind: "good", text: T("followingNow", { name: p.name }) } : null;
      await this.load();
      byId("follow-button").focus();
    } catch (e) {
      this.note = { kind: "bad", text: e instanceof HttpError ? refusalText(e.error, null) : refusalOf(e).message };
      this.render();
    }
  }

  render() {
    const box = byId("player");
    if (!this.p) {
      document.title = "Kardinal & König";
      if (!this.error) return;
      fill(box, el("h1", { text: this.error.code === "no_player" ? T("noPlayer", { name: this.name }) : refusalText(this.error, null) }),
        el("p", {}, el("a", { class: "btn", href: url("/") }, T("backToLobby"))));
      return;
    }
    const p = this.p;
    document.title = `Kardinal & König — ${p.name}`;
    fill(box, el("div", { class: "profile" },
      el("h1", { id: "profile-name", text: p.name }),
      el("p", { class: "small", id: "profile-since", text: `${T("profileSince", { date: day(p.since) })} · ${T("followCounts", { a: num(p.follows), b: num(p.followers) })}` }),
      this.followPart(p),
      this.ratingPart(p),
      this.statsPart(p),
      this.lastPart(p)));
  }

  /** @param {Profile} p */
  followPart(p) {
    if (p.me) return el("p", { id: "profile-you" }, T("profileYou"), " ", el("a", { href: url("/account") }, T("profileAccount")));
    if (!this.me) return el("p", { class: "small", id: "follow-sign-in" }, el("a", { href: url("/account") }, T("followSignIn", { name: p.name })));
    return el("p", { class: "follow-row" },
      el("button", { type: "button", id: "follow-button", "aria-pressed": p.following ? "true" : "false", onclick: () => this.follow(!p.following) }, T(p.following ? "unfollow" : "follow")),
      " ", this.note && this.note.kind === "bad"
        ? el("span", { role: "alert", id: "follow-note", class: "bad", text: this.note.text })
        : el("span", { role: "status", id: "follow-note", text: this.note ? this.note.text : (p.following ? T("followingNow", { name: p.name }) : "") }));
  }

  /** @param {Profile} p */
  ratingPart(p) {
    const out = el("section", { class: "profile-part", "aria-labelledby": "rating-title" }, el("h2", { id: "rating-title", text: T("ratingTitle") }));
    if (!p.rating) { out.append(el("p", { id: "not-rated", text: T("notRated") })); return out; }
    const { mu, sigma, games } = p.rating;
    out.append(el("p", { class: "rating", id: "rating-value" }, el("strong", { text: T("ratingValue", { mu: rate(mu, mu), spread: rate(2 * sigma, mu) }) }), " ",
      el("span", { class: "small", text: T("ratingGames", { n: games }) })),
    el("p", { class: "small", text: T("ratingWhy", { lo: rate(mu - 2 * sigma, mu), hi: rate(mu + 2 * sigma, mu) }) }));
    const h = p.history;
    if (h.length) {
      const pts = h.map((e) => ({ x: e.at, y: e.mu, lo: e.mu - 2 * e.sigma, hi: e.mu + 2 * e.sigma }));
      const mus = h.map((e) => e.mu);
      const r = (/** @type {number} */ x) => rate(x, mu);
      const chart = lineChart(pts, {
        id: "rating-chart",
        title: T("chartTitle", { name: p.name }),
        desc: T("chartDesc", { n: h.length, from: day(h[0].at), to: day(h[h.length - 1].at), first: r(mus[0]), last: r(mus[mus.length - 1]), low: r(Math.min(...mus)), high: r(Math.max(...mus)) }),
        xText: (x, full) => (full ? dateTime(x) : day(x)),
        yText: (y) => r(y),
        headers: [T("chartWhen"), T("chartRating"), T("chartRange")],
        tableTitle: T("chartNumbers"),
      });
      const numbers = chart.querySelector("details"); // stays open across a change of language
      if (numbers) numbers.open = Boolean(this.numbersOpen);
      numbers?.addEventListener("toggle", () => { this.numbersOpen = numbers.open; });
      out.append(chart);
    }
    return out;
  }

  /** @param {Profile} p */
  statsPart(p) {
    const out = el("section", { class: "profile-part", "aria-labelledby": "stats-title" }, el("h2", { id: "stats-title", text: T("statsTitle") }));
    if (!p.games) { out.append(el("p", { id: "stats-none", text: T("statsNone") })); return out; }
    const w = (/** @type {number} */ x) => num(x, Number.isInteger(x) ? 0 : 1);
    out.append(el("p", { id: "stats-total", text: `${T("statsTotal", { n: p.games })} · ${T("statsTotalWins", { n: p.wins, w: w(p.wins) })}` }),
      el("div", { class: "table-scroll" }, el("table", { class: "stats", id: "stats-table" },
        el("thead", {}, el("tr", {}, ...["statsPlayers", "statsGames", "statsWins", "statsScore", "statsPlace"].map((k) => el("th", { scope: "col", text: T(k) })))),
        el("tbody", {}, ...p.by_players.map((s) => el("tr", { "data-players": s.players },
          el("th", { scope: "row", text: String(s.players) }), el("td", { text: num(s.games) }), el("td", { text: w(s.wins) }),
          el("td", { text: num(s.score, 1) }), el("td", { text: num(s.place, 1) })))))),
      el("p", { class: "small", text: T("statsShared") }));
    return out;
  }

  /** @param {Profile} p */
  lastPart(p) {
    const out = el("section", { class: "profile-part", "aria-labelledby": "last-title" }, el("h2", { id: "last-title", text: T("lastTitle") }));
    if (!p.last.length) { out.append(el("p", { text: T("lastNone") })); return out; }
    out.append(el("ul", { class: "games profile-games", id: "last-games" }, ...p.last.map((g) => {
      const link = el("a", { class: "btn", href: url(`/game/${encodeURIComponent(g.game)}`) }, T(g.status === "finished" ? "replayGame" : "watchGame"));
      const what = g.status === "finished"
        ? (g.place !== undefined ? `${T("placeOf", { place: num(g.place, Number.isInteger(g.place) ? 0 : 1), n: g.of })} · ${T("points", { n: g.score })}` : "")
        : T(g.status === "running" ? "underWay" : "waitingTable");
      return el("li", { "data-game": g.game, "data-state": g.status }, link,
        el("span", { class: "game-what" }, el("span", { class: "small", text: day(g.at) }), " · ", el("strong", { text: what }), " · ",
          el("span", { class: "names", text: g.players.map((n, i) => seatName(n, i)).join(", ") }), g.public ? " " : null, g.public ? null : el("span", { class: "tag", text: T("privateTable") })));
    })));
    return out;
  }
}

if (document.body.classList.contains("player")) new PlayerPage().start();
