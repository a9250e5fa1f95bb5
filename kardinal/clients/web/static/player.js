// A player's profile (/player/<name>): since when they play, their finished games in
// numbers by the number of players, their rating with its uncertainty and its history as a
// chart, and their last games with a link to replay (finished) or watch (under way, public
// tables only). Signed in, a button to follow them. Only what is public: no seat's link.

import { byId, el, fill } from "./dom.js";
import { T, seatName, dateTime, locale, num, onLangChange } from "./i18n.js";
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
