// The side panels of the game page: the players, the scorings and final standings, and
// the line that says whose turn it is (the replay controls are in replay.js).

import { el, swatch } from "./dom.js";
import { T, seatName, addStrings, levelName } from "./i18n.js";
/** @import { Board } from "./board.js" */
/** @import { HistoryEntry, PlayerData } from "./messages.js" */

/** The points by category and seat (rules/state.py breakdown; the by-country and
 * by-alliance lists: each seat's points there, null until that scoring).
 * @typedef {object} Breakdown
 * @property {number[]} intermediate_cloisters
 * @property {number[]} final_cloisters
 * @property {number[]} alliances
 * @property {number[]} chains
 * @property {Record<string, number[]> | null} intermediate_by_country
 * @property {Record<string, number[]> | null} final_by_country
 * @property {Record<string, number[]> | null} by_alliance
 */
/** A seat's view of the game (rules/view.py ViewData; its docstring says each field).
 * @typedef {object} ViewData
 * @property {string} format
 * @property {string} board
 * @property {number} players
 * @property {number | null} seat
 * @property {number} current
 * @property {string} phase
 * @property {Record<string, number>} [hand] the seat's own hand (a seat's view only)
 * @property {number[]} hand_sizes
 * @property {Record<string, number>[]} known each seat's cards known to all (R13.1)
 * @property {string[]} display
 * @property {number} deck_size
 * @property {Record<string, number>} discard
 * @property {Record<string, number>} removed
 * @property {Record<string, number>} sites
 * @property {Record<string, number[]>} cloisters
 * @property {Record<string, number[]>} advisors
 * @property {Record<string, number>} advisor_limit
 * @property {{ cloisters: number, advisors: number }[]} supply
 * @property {number[]} scores
 * @property {number[]} turns
 * @property {number} exhaustions
 * @property {boolean} final_round
 * @property {Breakdown} breakdown
 * @property {number[] | null} winners
 * @property {string[]} variants
 * @property {HistoryEntry[] | null} [history]
 */
/** A seat as the panels name it (PlayerData; a replay's players too).
 * @typedef {Pick<PlayerData, "name" | "kind" | "level">} Seated */

addStrings({
  en: {
    gameExpired: "This game expired: nobody moved for too long. It stays here to look at.",
    startPlayer: "start player",
    startPlayerWhy: "The start player (R2.3): every player has the same number of turns; the last round ends before the start player's turn (R8.1).",
    knownCards: "known",
    knownCardsWhy: "Cards this player took from the face-up display and cannot have played since: everyone saw them (R13.1).",
    colourCol: "Colour",
    whatCol: "Scored for",
  },
  de: {
    gameExpired: "Dieses Spiel ist abgelaufen: zu lange hat niemand gezogen. Es bleibt hier zum Ansehen.",
    startPlayer: "Startspieler",
    startPlayerWhy: "Der Startspieler (R2.3): alle haben gleich viele Züge; die letzte Runde endet vor dem Zug des Startspielers (R8.1).",
    knownCards: "bekannt",
    knownCardsWhy: "Karten, die dieser Spieler offen aus der Auslage genommen hat und seitdem nicht gespielt haben kann: alle haben sie gesehen (R13.1).",
    colourCol: "Farbe",
    whatCol: "Wertung für",
  },
  da: {
    gameExpired: "Dette spil er udløbet: ingen har trukket i for lang tid. Det bliver her, så du kan se det.",
    startPlayer: "startspiller",
    startPlayerWhy: "Startspilleren (R2.3): alle spillere får lige mange ture; den sidste runde slutter før startspillerens tur (R8.1).",
    knownCards: "kendt",
    knownCardsWhy: "Kort, som denne spiller har taget fra de åbne kort og ikke kan have spillet siden: alle så dem (R13.1).",
    colourCol: "Farve",
    whatCol: "Point for",
  },
});

/** The status line. g: {msg, view, hidden (hot-seat hand not shown), watching}.
 * @param {{ msg: { status: string, players: PlayerData[], seat: number | null, legal?: unknown } | null, view: ViewData, hidden: boolean, watching: boolean }} g */
export function turnText(g) {
  const { msg, view } = g;
  if (!msg) return T("connecting");
  if (msg.status === "open") {
    const names = msg.players.filter((p) => p.kind === "person" && !p.joined).map((p) => seatName(p.name, p.seat));
    return T("waitingPlayers", { names: names.join(", ") });
  }
  if (view.phase === "over") return T("gameOver");
  if (msg.status === "expired") return T("gameExpired");
  const cur = msg.players[view.current];
  if (msg.seat === view.current && msg.legal) {
    if (g.hidden) return T("turnOf", { name: seatName(cur.name, view.current) });
    return view.phase === "draw" ? T("yourTurnDraw") : T("yourTurnMain");
  }
  if (cur.kind === "bot") return T("botPlaying", { name: cur.name });
  return T("turnOf", { name: seatName(cur.name, view.current) }) + (g.watching ? " · " + T("spectating") : "");
}

/** The players: colour, name (the start player marked), points, pieces in supply, cards in
 * hand with the display cards each other player is known to hold (R13.1: taken from the
 * display and not possibly played since), and every hand in a replay. */
// (a card's name "Franken/Aragon" may break after its slash, never inside a country's name: "\u200b")
/** @param {HTMLElement} box
 * @param {{ board: Board, players: Seated[], view: ViewData, mySeat: number | null, hands: Record<string, number>[] | null }} what
 *   (`hands`: every seat's hand, in a replay) */
export function renderPlayers(box, { board, players, view, mySeat, hands }) {
  const rows = players.map((p, i) => {
    const cur = view.phase !== "over" && view.current === i;
    const win = view.winners && view.winners.includes(i);
    const known = (view.known && view.known[i]) || {};
    const shown = i !== mySeat && Object.keys(known).length
      ? el("span", { class: "known", title: T("knownCardsWhy"), "data-known": i },
        ` · ${T("knownCards")}: ${Object.entries(known).map(([k, n]) => (n > 1 ? `${n}× ` : "") + board.cardName(k)).join(", ")}`.replace(/\//g, "/\u200b"))
      : null;
    const tr = el("tr", { class: (cur ? "current " : "") + (mySeat === i ? "me" : ""), "data-seat": i },
      el("td", {}, swatch(i)),
      el("td", { class: "pname" },
        seatName(p.name, i) + (p.kind === "bot" ? ` (${levelName(String(p.level))})` : "") + (win ? " ★" : ""), // a bot's level is never null
        i === 0 ? el("span", { class: "start-mark", title: T("startPlayerWhy"), "aria-label": T("startPlayer") }, " ⚑") : null),
      el("td", { class: "num", text: view.scores[i] }),
      el("td", { class: "num", text: `${view.supply[i].cloisters} / ${view.supply[i].advisors}` }),
      el("td", { class: "num" }, String(view.hand_sizes[i]), shown));
    if (hands) tr.append(el("td", { class: "hands", text: board.pileText(hands[i]).replace(/\//g, "/\u200b") }));
    return tr;
  });
  const head = el("tr", {}, el("th", {}, el("span", { class: "sr-only", text: T("colourCol") })), el("th", { text: T("players") }), el("th", { text: T("score") }),
    el("th", { text: `${T("cloisters")} / ${T("advisors")}` }), el("th", { text: T("cards") }));
  if (hands) head.append(el("th", { text: T("handsCol") })); // every player's hand, in a replay
  box.replaceChildren(el("table", { class: "players" }, el("thead", {}, head), el("tbody", {}, ...rows)));
}

/** A table of points: a row a thing scored for (`rows`: its label and each seat's points;
 * a row nobody scored in is left out), a column a player.
 * @param {string} title @param {[string, number[] | null | undefined][]} rows @param {Seated[]} players */
function scoreTable(title, rows, players) {
  const head = el("tr", {}, el("th", {}, el("span", { class: "sr-only", text: T("whatCol") })), ...players.map((p, i) => el("th", {}, swatch(i), " " + seatName(p.name, i))));
  const body = rows.flatMap(([label, pts]) => (pts && pts.some((x) => x)
    ? [el("tr", {}, el("td", { text: label }), ...pts.map((x) => el("td", { class: "num", text: x })))] : []));
  return el("div", { class: "scoretable" }, el("h3", { text: title }),
    el("table", {}, el("thead", {}, head), el("tbody", {}, ...(body.length ? body : [el("tr", {}, el("td", { text: "–" }))]))));
}

/** The scorings so far (the view's breakdown) and, once the game is over, the final standings.
 * @param {HTMLElement} box
 * @param {{ board: Board, players: Seated[], view: ViewData, onScoring?: ((kind: "intermediate" | "final") => void) | null }} what */
export function renderScoring(box, { board, players, view, onScoring }) {
  box.replaceChildren();
  const bd = view.breakdown;
  const ps = players.slice(0, view.players);
  if (!bd.intermediate_by_country && !bd.final_by_country) return;
  const countries = board.data.countries;
  box.append(el("h2", { text: T("scoring") }));
  if (onScoring) {
    // the scorings step by step on the map (scoring.js)
    box.append(el("p", { class: "buttons" },
      bd.intermediate_by_country ? el("button", { type: "button", id: "show-inter", onclick: () => onScoring("intermediate") }, T("scShowInter")) : null,
      bd.final_by_country ? el("button", { type: "button", id: "show-final", onclick: () => onScoring("final") }, T("scShowFinal")) : null));
  }
  if (bd.intermediate_by_country) {
    const inter = bd.intermediate_by_country;
    /** @type {[string, number[] | undefined][]} */
    const rows = countries.map((c) => [board.countryName(c.id), inter[c.id]]);
    rows.push([T("total"), bd.intermediate_cloisters]);
    box.append(scoreTable(T("intermediate"), rows, ps));
  }
  if (bd.final_by_country) {
    const fin = bd.final_by_country;
    /** @type {[string, number[] | undefined][]} */
    const rows = countries.map((c) => [board.countryName(c.id), fin[c.id]]);
    rows.push([T("total"), bd.final_cloisters]);
    box.append(scoreTable(T("finalCloisters"), rows, ps));
    const byAlliance = bd.by_alliance || {}; // given with the final scoring
    /** @type {[string, number[] | undefined][]} */
    const arows = board.data.alliances.map((a) => [board.allianceName(a), byAlliance[String(a.number)]]);
    arows.push([T("total"), bd.alliances]);
    box.append(scoreTable(T("alliances"), arows, ps));
    box.append(scoreTable(T("chains"), [[T("chains"), bd.chains]], ps));
  }
  if (view.winners) {
    /** @param {number} p */
    const left = (p) => view.supply[p].cloisters + view.supply[p].advisors;
    const order = [...Array(view.players).keys()].sort((a, b) => view.scores[b] - view.scores[a] || left(b) - left(a));
    const ol = el("ol", { class: "standings", id: "standings" });
    for (const p of order) {
      ol.append(el("li", {}, swatch(p),
        ` ${seatName(players[p].name, p)}: ${T("scPointsN", { n: view.scores[p] })}, ${T("scPiecesLeft", { n: left(p) })}` + (view.winners.includes(p) ? ` — ${T("winner")} ★` : "")));
    }
    box.prepend(el("h2", { text: T("standings") }), ol);
  }
}

