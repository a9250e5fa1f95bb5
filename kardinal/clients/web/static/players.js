// The leaderboard (/players): the players with enough rated games, best first by mu − 2
// sigma (GET /api/leaderboard), each name a link to the player's page; under it the bots'
// fixed ratings, for scale.

import { byId, el, fill } from "./dom.js";
import { T, levelName, num, onLangChange } from "./i18n.js";
import { getJSON, url } from "./net.js";
import { initHeader } from "./header.js";
import { ratingText } from "./rated.js";
/** @import { Leaderboard } from "./messages.js" */

class PlayersPage {
  constructor() {
    /** @type {Leaderboard | null} GET /api/leaderboard */
    this.data = null;
  }

  async start() {
    initHeader(() => T("playersWhy", { n: this.data ? this.data.min_games : 5 }));
    onLangChange(() => this.render());
    try { this.data = await getJSON("/api/leaderboard"); } catch (e) { this.data = null; }
    this.render();
  }

  render() {
    document.title = `Kardinal & König — ${T("playersTitle")}`;
    const d = this.data;
    if (!d) { fill(byId("players-board"), el("h1", { text: T("playersTitle") })); return; }
    const head = el("tr", {}, el("th", { class: "num", text: T("playersRank") }), el("th", { text: T("playersName") }),
      el("th", { class: "num", text: T("rating") }), el("th", { class: "num", text: T("playersGames") }));
    const rows = d.players.map((p) => el("tr", { "data-player": p.name },
      el("td", { class: "num", text: `${num(p.rank)}.` }),
      el("td", {}, el("a", { href: url(`/player/${encodeURIComponent(p.name)}`) }, p.name)),
      el("td", { class: "num", text: ratingText(p.rating, p.pm) }),
      el("td", { class: "num", text: num(p.games) })));
    const bots = d.bots.map((b) => el("tr", { "data-bot": b.level },
      el("td", { text: T("botName", { level: levelName(b.level) }) }),
      el("td", { class: "num", text: (b.measured ? "" : "≈ ") + num(b.rating), title: b.measured ? `${num(b.low)}–${num(b.high)}` : T("botEstimate") })));
    fill(byId("players-board"),
      el("h1", { text: T("playersTitle") }),
      el("p", { class: "small", text: T("playersWhy", { n: d.min_games }) }),
      rows.length ? el("table", { class: "leaderboard", id: "leaderboard" }, el("thead", {}, head), el("tbody", {}, ...rows))
        : el("p", { id: "leaderboard-none", text: T("playersNone") }),
      el("h2", { text: T("botsTitle") }),
      el("p", { class: "small", text: T("botsWhy", { n: num(d.newcomer) }) }),
      el("table", { class: "leaderboard bots", id: "bot-ratings" }, el("tbody", {}, ...bots)));
  }
}

new PlayersPage().start();
