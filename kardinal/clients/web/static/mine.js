// "My games": every game this browser holds a seat in (the seat tokens its game pages
// stored), whose turn it is, and a link back. Turn-based games over days are played from
// here. For a guest the list is read from this browser's storage only, and nothing here is
// sent anywhere but each game's public summary. Signed in, the account's games are listed
// too, from any device: opening one whose seat this browser does not hold asks the server
// for a token of the seat (in the answer, never in an address) and keeps it as a link's.

import { byId, el, fill, keepInput } from "./dom.js";
import { T, seatName, dateTime, onLangChange } from "./i18n.js";
import { HttpError, allStoredSeats, forgetStoredSeats, getJSON, postJSON, storeSeats, url } from "./net.js";
import { whoAmI } from "./account-link.js";
import { initHeader } from "./header.js";
/** @import { ErrorData, GameSummary, InvitationInfo, Invitations } from "./messages.js" */
/** @import { Seats } from "./net.js" */
import { refusalText } from "./refusals.js";
import { profileLink } from "./profile-link.js";

import { ratedTag } from "./rated.js";
import { deadlineTitle, leftUntil } from "./deadline.js";

/** A game in the list: its seats this browser holds (a seat's token, or null: the account's,
 * its token not yet asked for), the game as the server tells it (null: it could not, `error`
 * says why), and whether it is the account's.
 * @typedef {object} MyGame
 * @property {string} game
 * @property {Record<string, string | null>} seats
 * @property {GameSummary | null} info
 * @property {ErrorData | null} error
 * @property {boolean} [owned]
 */

/** A failed request as a refusal: the server's, or the error's message as one.
 * @param {unknown} e @returns {ErrorData} */
function refusalOf(e) {
  if (e instanceof HttpError) return e.error;
  return { code: "http", message: e instanceof Error ? e.message : String(e) };
}

/** The words of a failed request: the server's refusal, else the error's own message.
 * @param {unknown} e @returns {string} */
function failureText(e) { return e instanceof HttpError ? refusalText(e.error, null) : refusalOf(e).message; }

/** The list of this browser's games: on its own page (/mine), or the first few of them on
 * the home page (`home`: a section that stays hidden while there are none). */
export class MyGames {
  constructor(boxId = "mine", home = false, limit = Infinity) {
    /** @type {MyGame[]} */
    this.games = [];
    this.boxId = boxId;
    this.home = home;
    this.limit = limit;
    /** @type {{ id: number, name: string, created: number } | null} the account signed in to, if any */
    this.me = null;
    /** @type {string | undefined} what was last drawn (load) */
    this.seen = undefined;
    /** @type {Invitations} invitations by name (signed in) */
    this.invites = { received: [], sent: [] };
    /** @type {{ key: string, text: string } | null} the last refusal of Open or Take, said in
     * the row it was asked from (`key`: "open:GAME", "take:GAME:SEAT"; the page's top if that row is gone) */
    this.refused = null;
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
    /** @type {{ game: GameSummary, seats: number[] }[]} the account's games and its seats in them */
    let owned = [];
    if (this.me) {
      try { owned = (await getJSON("/api/account/games")).games; } catch (e) { owned = []; }
      try { this.invites = await getJSON("/api/account/invitations"); } catch (e) { this.invites = { received: [], sent: [] }; }
    } else this.invites = { received: [], sent: [] };
    const fromServer = new Map(owned.map((g) => [g.game.id, g]));
    /** @type {MyGame[]} */
    const games = await Promise.all(held.map(async (g) => {
      const mine = fromServer.get(g.game);
      if (mine) return { ...g, info: mine.game, error: null, owned: true };
      try { return { ...g, info: await getJSON(`/api/games/${encodeURIComponent(g.game)}`), error: null }; }
      catch (e) { return { ...g, info: null, error: refusalOf(e) }; }
    }));
    const here = new Set(held.map((g) => g.game));
    // the account's games this browser holds no seat of: their seats, without tokens yet (open())
    for (const g of owned) {
      if (!here.has(g.game.id)) games.push({ game: g.game.id, seats: Object.fromEntries(g.seats.map((s) => [s, null])), info: g.game, error: null, owned: true });
    }
    // asked every 15 s: drawn again only when something changed (a row, and the focus on
    // its button, is not replaced under the reader's finger or keyboard)
    const seen = JSON.stringify([this.me && this.me.id, games, this.invites]);
    this.games = games;
    if (seen === this.seen) { this.showLeft(); return; }
    this.seen = seen;
    this.render();
  }

  /** The time left of each turn shown (the rows stay: only their words change). */
  showLeft() {
    for (const span of byId(this.boxId).querySelectorAll("[data-deadline]")) {
      if (!(span instanceof HTMLElement)) continue;
      const { text, urgent } = leftUntil(Number(span.dataset.deadline), span.dataset.yours === "true");
      if (span.textContent !== text) span.textContent = text;
      span.classList.toggle("urgent", urgent);
    }
  }

  /** Open a game: the seats of the account this browser holds no token of get one first.
   * @param {MyGame} g @param {MouseEvent} ev */
  async open(g, ev) {
    const missing = Object.keys(g.seats).filter((s) => !g.seats[s]);
    if (!missing.length) return;
    ev.preventDefault();
    this.refused = null;
    try {
      /** @type {Seats} */
      const got = {};
      for (const s of missing) got[s] = (await postJSON("/api/account/seat", { game: g.game, seat: Number(s) })).token;
      storeSeats(g.game, got);
      location.href = url(`/game/${encodeURIComponent(g.game)}`);
    } catch (e) {
      this.refuse(`open:${g.game}`, e);
    }
  }

  /** Take a seat this account is invited to: it becomes the account's, and this browser
   * gets its token (in the answer, never in an address) and opens the game.
   * @param {InvitationInfo} inv */
  async take(inv) {
    this.refused = null;
    try {
      const r = await postJSON("/api/account/invitations/take", { game: inv.game.id, seat: inv.seat });
      storeSeats(r.game, { [r.seat]: r.token });
      location.href = url(`/game/${encodeURIComponent(r.game)}`);
    } catch (e) {
      this.refuse(`take:${inv.game.id}:${inv.seat}`, e);
      this.load(); // (an invitation withdrawn meanwhile leaves the list)
    }
  }

  /** Say why Open or Take was refused, in the row of `key` (the page drawn again, the
   * focus kept). @param {string} key @param {unknown} e */
  refuse(key, e) {
    this.refused = { key, text: failureText(e) };
    this.render();
  }

  /** The refusal of the row of `key`, if it has one (role=alert: a screen reader hears it).
   * @param {string} key */
  refusalIn(key) {
    return this.refused && this.refused.key === key ? el("p", { class: "bad mine-refused", role: "alert", text: this.refused.text }) : null;
  }

  /** Withdraw an invitation this account sent: the seat is kept for nobody any more.
   * @param {InvitationInfo} inv */
  async withdraw(inv) {
    try { await postJSON("/api/account/invitations/withdraw", { game: inv.game.id, seat: inv.seat }); } catch (e) { /* gone already */ }
    this.load();
  }

  /** @param {InvitationInfo} inv */
  async decline(inv) {
    try { await postJSON("/api/account/invitations/decline", { game: inv.game.id, seat: inv.seat }); } catch (e) { /* gone already */ }
    this.load();
  }

  /** How a table is played, as a tag: turn-based (over days) or live (now).
   * @param {GameSummary} g */
  howTag(g) {
    const turn = g.table && g.table.mode === "turn";
    return el("span", { class: "tag", "data-how": turn ? "turn" : "live" }, T(turn ? "turnBased" : "liveTable"));
  }

  /** The invitations by name: to this account (take or decline), and on /mine those it sent. */
  invitations() {
    const got = this.invites.received.map((inv) => {
      const g = inv.game;
      const seat = g.players[inv.seat] ? seatName(g.players[inv.seat].name, inv.seat) : String(inv.seat + 1);
      return el("li", { class: "invitation", "data-invitation": `${g.id}:${inv.seat}` },
        el("span", { class: "invitation-text" }, el("strong", {}, ...(inv.by ? this.byLine(inv.by) : [T("invitedByGone")])), " · ",
          el("span", {}, g.players.map((p) => seatName(p.name, p.seat)).join(", ")), " · ", el("span", { class: "small", text: T("inviteSeat", { seat }) }),
          " ", this.howTag(g)),
        el("button", { type: "button", class: "primary", "data-take": `${g.id}:${inv.seat}`, onclick: () => this.take(inv) }, T("takeSeat")), " ",
        el("button", { type: "button", "data-decline": `${g.id}:${inv.seat}`, onclick: () => this.decline(inv) }, T("declineInvite")),
        this.refusalIn(`take:${g.id}:${inv.seat}`));
    });
    const sent = this.home ? [] : this.invites.sent.map((inv) => el("li", { "data-sent": `${inv.game.id}:${inv.seat}` },
      el("span", { text: T("invitePending", { name: inv.to, seat: inv.seat + 1, players: inv.game.players.filter((p) => p.seat !== inv.seat).map((p) => seatName(p.name, p.seat)).join(", ") }) }),
      " ", this.howTag(inv.game), " ",
      el("a", { class: "btn", href: url(`/game/${encodeURIComponent(inv.game.id)}`) }, T("mineOpen")), " ",
      el("button", { type: "button", "data-withdraw": `${inv.game.id}:${inv.seat}`, "aria-label": T("withdrawInviteWhy", { name: inv.to, seat: inv.seat + 1 }),
        onclick: () => this.withdraw(inv) }, T("withdrawInvite"))));
    if (!got.length && !sent.length) return null;
    return el("section", { id: "invitations", "aria-labelledby": "invitations-title" },
      el(this.home ? "h3" : "h2", { id: "invitations-title", text: T("invitesTitle") }),
      got.length ? el("ul", { class: "games invitations" }, ...got) : null,
      sent.length ? el("h3", { text: T("invitesSent") }) : null, sent.length ? el("ul", { class: "games invites-sent" }, ...sent) : null);
  }

  /** "{name} invites you": the name a link to their profile.
   * @param {string} name */
  byLine(name) {
    const [before, after] = T("invitedBy", { name: "\u0000" }).split("\u0000");
    return [before, profileLink(name), after];
  }

  /** Whose turn: -1 my turn, 0 running, 1 open, 2 finished, 3 unreadable (the order shown).
   * @param {MyGame} g */
  rank(g) {
    if (!g.info) return 3;
    if (this.lost(g)) return 2; // (a bot plays the seat: nothing to do there)
    if (g.info.status === "running") return g.info.current !== undefined && g.seats[g.info.current] !== undefined ? -1 : 0;
    if (g.info.status === "open") return this.waitsForMe(g) ? -1 : 1;
    return 2;
  }

  /** Every seat this browser held of the game is a bot's now: the table was started
   * without me (a rated table, or one of "Play again", after its people's while to come).
   * @param {MyGame} g @returns {boolean} */
  lost(g) {
    const info = g.info;
    if (!info || info.status === "open") return false;
    const held = Object.keys(g.seats).map(Number);
    return held.length > 0 && held.every((s) => info.players[s] !== undefined && info.players[s].kind === "bot");
  }

  /** A table waiting only for seats that are mine (the others have taken theirs): it starts
   * when I open mine.
   * @param {MyGame} g */
  waitsForMe(g) {
    if (!g.info) return false; // rank() asks only of a game it knows
    const waiting = g.info.players.filter((p) => p.kind === "person" && !p.joined);
    return waiting.length > 0 && waiting.every((p) => g.seats[p.seat] !== undefined);
  }

  render() {
    const box = byId(this.boxId);
    keepInput(box, () => this.draw(box));
    if (this.refused && !box.querySelector(".mine-refused")) { // its row is gone: said under the title
      const title = box.querySelector("h1, h2");
      if (title) title.after(el("p", { class: "bad mine-refused", role: "alert", text: this.refused.text }));
    }
    this.showLeft();
  }

  /** @param {HTMLElement} box */
  draw(box) {
    const games = [...this.games].sort((a, b) => this.rank(a) - this.rank(b) || ((b.info && b.info.created) || 0) - ((a.info && a.info.created) || 0));
    if (this.home) {
      box.hidden = games.length === 0 && !this.invites.received.length;
      const shown = games.slice(0, this.limit);
      fill(box, el("h2", { id: "my-games-title" }, T("mineTitle")), this.invitations(), el("ul", { class: "games mine-list" }, ...shown.map((g) => this.row(g))),
        el("p", {}, el("a", { href: url("/mine"), id: "mine-all", class: "btn" }, T("mineAll", { n: games.length }))));
      return;
    }
    document.title = `Kardinal & König — ${T("mineTitle")}`;
    const mine = games.filter((g) => this.rank(g) === -1).length;
    const items = games.map((g) => this.row(g));
    fill(box, el("h1", {}, T("mineTitle")), el("p", { class: "small" }, T(this.me ? "mineWhyAccount" : "mineWhy")), this.invitations(),
      games.length ? el("p", { id: "mine-count" }, T(mine ? "mineUpdated" : "mineUpdatedNone", { n: games.length, k: mine })) : null,
      items.length ? el("ul", { class: "games mine-list" }, ...items) : el("p", { id: "mine-none" }, T("mineNone")));
  }

  /** A finished game's scores, each after whose it is: "Anna 57 · you 43 · Player 3 40".
   * @param {MyGame} g */
  scoreLine(g) {
    if (!g.info || !g.info.scores) return ""; // row() asks only of a game with scores
    const names = new Map(g.info.players.map((p) => [p.seat, p.name]));
    return g.info.scores.map((score, seat) => `${g.seats[seat] !== undefined ? T("mineYou") : seatName(names.get(seat), seat)} ${score}`).join(" · ");
  }

  /** @param {MyGame} g */
  row(g) {
    const href = url(`/game/${encodeURIComponent(g.game)}`);
    const forget = el("button", { type: "button", class: "forget", title: T("mineForgetWhy"), "data-forget": g.game, onclick: () => { forgetStoredSeats(g.game); this.load(); } }, T("mineForget"));
    if (!g.info) {
      return el("li", { "data-game": g.game, "data-state": "gone" }, el("span", {}, `${g.game}: ${!g.error || g.error.code === "no_game" ? T("mineGone") : refusalText(g.error, null)} `), forget);
    }
    const info = g.info;
    const mine = (/** @type {import("./messages.js").PlayerData} */ p) => g.seats[p.seat] !== undefined && p.kind === "person";
    const names = info.players.map((p) => (mine(p) ? `${seatName(p.name, p.seat)} (${T("mineYou")})` : seatName(p.name, p.seat))).join(", ");
    let state;
    const rank = this.rank(g);
    if (this.lost(g)) state = el("span", { class: "mine-lost" }, T("mineLost"));
    else if (rank === -1 && info.status === "open") state = el("strong", { class: "your-turn" }, T("mineWaitsForYou"));
    else if (rank === -1) state = el("strong", { class: "your-turn" }, T("mineYourTurn"));
    else if (rank === 0) {
      state = info.current === undefined ? el("span", {}, T("mineRunning"))
        : el("span", {}, T("mineTheirTurn", { name: seatName(info.players[info.current].name, info.current) }));
    }
    else if (rank === 1) state = el("span", {}, T("mineWaiting"));
    else if (info.status === "expired") state = el("span", {}, T("mineExpired"));
    else state = el("span", {}, `${T("mineOver")}${info.scores ? " — " + this.scoreLine(g) : ""}`);
    const scored = rank === 2 && info.status !== "expired" && info.scores; // its score line names every seat
    const when = dateTime(info.created);
    const tags = info.table && info.table.mode === "turn" ? el("span", { class: "tag" }, T("turnBased")) : null;
    const rated = ratedTag(info.table);
    // how long the one to act has before a bot takes the turn (filled in by showLeft; urgent only on one's own turn)
    // a bot stands in at one of my seats (I was away): told, with the way back
    const standin = info.status === "running" && info.players.some((p) => p.standin && g.seats[p.seat] !== undefined)
      ? [" · ", el("strong", { class: "mine-standin", text: T("mineStandin") })] : [];
    const left = rank <= 0 && info.deadline !== undefined
      ? [" · ", el("span", { class: "time-left", "data-deadline": String(info.deadline), "data-yours": rank === -1 ? "true" : "false", title: deadlineTitle(info.deadline) })] : [];
    return el("li", { "data-game": g.game, "data-state": rank === -1 ? "my-turn" : info.status },
      el("a", { href, class: "btn", onclick: (/** @type {MouseEvent} */ ev) => this.open(g, ev) }, T("mineOpen")), " ", state, ...standin, ...left, ...(scored ? [] : [" · ", names]), " ", tags, " ", rated, rated ? " " : null,
      // (a game of the account's stays in its list: "Forget" would only drop this browser's link)
      el("span", { class: "small" }, when), " ", (info.status === "finished" || info.status === "expired") && !g.owned ? forget : null,
      this.refusalIn(`open:${g.game}`));
  }
}

if (document.body.classList.contains("mine")) new MyGames().start();
