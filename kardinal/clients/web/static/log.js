// The game log: each decision described from its record action, and what it caused read
// from its events (cards turned up, the intermediate scoring, a new draw pile, the last
// round, the end). Nothing here reads move notation.

import { el, swatch } from "./dom.js";
import { T, lineName, listText, rulesText, boardName, addStrings, levelName } from "./i18n.js";
/** @import { Board } from "./board.js" */
/** @import { HistoryEntry, RecordAction } from "./messages.js" */
/** @import { ChatLineData } from "./chat.js" */

/** @typedef {HistoryEntry["events"][number]} EventData an event of a history entry (rules/events.py EventData: its fields by its type) */

/** @typedef {{ board: Board, name: (seat: number) => string }} DescribeContext the board and the players' names */

/**
 * What the log shows: the board, the names, the history (the view's), the rule variants,
 * the board's id, and the table's notices (from the chat) with yours(notice): whether one
 * is about the page's own seat.
 * @typedef {object} LogContext
 * @property {Board} board
 * @property {(seat: number) => string} name
 * @property {HistoryEntry[] | null | undefined} history
 * @property {string[]} variants
 * @property {string} boardId
 * @property {ChatLineData[]} notices
 * @property {(notice: ChatLineData) => boolean} yours
 */

addStrings({
  en: {
    logAway: "{name} is not at the table: a bot ({level}) plays for them.",
    logBack: "{name} is back.",
    logStandin: "(a bot for {name})",
    logTimeout: "{name}'s time ran out: a bot ({level}) plays this turn.",
    logTimeoutAway: "{name}'s time ran out: a bot ({level}) plays for them.",
    logAwayYou: "You were not at the table: a bot ({level}) plays for you.",
    logBackYou: "You are back.",
    logTimeoutYou: "Your time ran out: a bot ({level}) plays this turn for you.",
    logTimeoutAwayYou: "Your time ran out: a bot ({level}) plays for you.",
  },
  de: {
    logAway: "{name} ist nicht am Tisch: ein Bot ({level}) spielt an diesem Platz.",
    logBack: "{name} ist zurück.",
    logStandin: "(ein Bot für {name})",
    logTimeout: "Die Zeit von {name} ist abgelaufen: ein Bot ({level}) spielt diesen Zug.",
    logTimeoutAway: "Die Zeit von {name} ist abgelaufen: ein Bot ({level}) spielt an diesem Platz.",
    logAwayYou: "Du warst nicht am Tisch: ein Bot ({level}) spielt für dich.",
    logBackYou: "Du bist zurück.",
    logTimeoutYou: "Deine Zeit ist abgelaufen: ein Bot ({level}) spielt diesen Zug für dich.",
    logTimeoutAwayYou: "Deine Zeit ist abgelaufen: ein Bot ({level}) spielt für dich.",
  },
  da: {
    logAway: "{name} er ikke ved bordet: en bot ({level}) spiller for vedkommende.",
    logBack: "{name} er tilbage.",
    logStandin: "(en bot for {name})",
    logTimeout: "Tiden løb ud for {name}: en bot ({level}) spiller denne tur.",
    logTimeoutAway: "Tiden løb ud for {name}: en bot ({level}) spiller for vedkommende.",
    logAwayYou: "Du var ikke ved bordet: en bot ({level}) spiller for dig.",
    logBackYou: "Du er tilbage.",
    logTimeoutYou: "Din tid løb ud: en bot ({level}) spiller denne tur for dig.",
    logTimeoutAwayYou: "Din tid løb ud: en bot ({level}) spiller for dig.",
  },
});

/** @type {Record<string, [string, string]>} the table's notices: their words about another seat, and to the page's own seat */
const NOTICES = {
  away: ["logAway", "logAwayYou"],
  back: ["logBack", "logBackYou"],
  timeout: ["logTimeout", "logTimeoutYou"],
  timeout_away: ["logTimeoutAway", "logTimeoutAwayYou"],
};

/** The table's notices (a person left and a bot stands in; they came back; a turn's time
 * ran out: clock.js): a line, and which seats a bot played for after how many decisions.
 * notices: chat lines of kind "away"/"back"/"timeout"/"timeout_away" ({version, seat, name, text});
 * yours(notice): whether it is about the page's own seat (said in the first person).
 * @param {ChatLineData[] | null | undefined} notices @param {((notice: ChatLineData) => boolean) | null | undefined} yours */
function noticeLines(notices, yours) {
  /** @type {Map<number, HTMLLIElement[]>} number of decisions -> [li] */
  const at = new Map();
  for (const n of notices || []) {
    if (!NOTICES[n.kind]) continue;
    const text = T(NOTICES[n.kind][yours && yours(n) ? 1 : 0], { name: lineName(n), level: levelName(n.text) });
    const lis = at.get(n.version) || [];
    at.set(n.version, lis);
    lis.push(el("li", { class: "event", "data-event": n.kind, "data-after": n.version }, text));
  }
  return at;
}

/** Whether a bot stood in for ``seat`` at its decision number ``i`` (0-based): it left, or
 * its time ran out (turn-based: until it came back; live: for the rest of that turn).
 * @param {ChatLineData[] | null | undefined} notices @param {number | null} seat @param {number} i
 * @param {HistoryEntry[] | null | undefined} history */
export function stoodIn(notices, seat, i, history) {
  let away = false;
  for (const n of notices || []) {
    if (n.seat !== seat || n.version > i) continue;
    if (n.kind === "away" || n.kind === "back" || n.kind === "timeout_away") away = n.kind !== "back";
    if (n.kind === "timeout" && (history || []).slice(n.version, i + 1).every((e) => e.action.seat === seat)) return true;
  }
  return away;
}

/**
 * One decision in words. ctx: board (Board), name(seat) -> the player's name.
 * action: a record action ({seat, act, ...}).
 * @param {RecordAction} action @param {DescribeContext} ctx
 * @returns {string}
 */
export function describeAction(action, ctx) {
  const { board } = ctx;
  const name = ctx.name(action.seat);
  switch (action.act) {
    case "pass":
      return T("logPass", { name });
    case "draw":
      return action.from === "deck" ? T("logDrawDeck", { name }) : T("logDrawDisplay", { name, card: board.cardName(action.card ?? "") }); // (from the display: always a card)
    case "exchange": {
      const took = action.from === "deck" ? T("logFromDeck") : T("logFromDisplay", { card: board.cardName(action.card ?? "") });
      return T("logExchange", { name, card: board.cardName(action.discard), took });
    }
    case "place": {
      const pieces = action.pieces.map((p) => (p.type === "cloister" ? T("logCloister", { site: board.siteName(p.site) }) : T("logAdvisor")));
      return T("logPlace", { name, cards: action.cards.map((k) => board.cardName(k)).join(" + "), country: board.countryName(action.country), pieces: pieces.join(T("and")) });
    }
    default: // an act this page does not know (a newer server's): the checker knows only the four
      return `${name}: ${/** @type {{ act: string }} */ (action).act}`;
  }
}

/** @param {number[]} points @param {DescribeContext} ctx */
function pointsText(points, ctx) {
  return points.map((n, seat) => T("logPoints", { name: ctx.name(seat), n })).join(", ");
}

/**
 * An event that gets a line of its own in the log: {kind, text}, or null for an event
 * that belongs to the decision's line (drew, revealed) or is unknown.
 * @param {EventData} ev @param {DescribeContext} ctx
 * @returns {{ kind: string, text: string } | null}
 */
export function describeEvent(ev, ctx) {
  switch (ev.type) {
    case "intermediate_scoring":
      return { kind: "intermediate", text: T("logIntermediate", { points: pointsText(ev.points, ctx) }) };
    case "new_draw_pile":
    case "reshuffled":
      return { kind: "new_draw_pile", text: T("logNewPile", { n: ev.size }) };
    case "last_round":
      return { kind: "last_round", text: T("logLastRound", { name: ctx.name(ev.last_seat) }) };
    case "game_ended": {
      const end = T(ev.reason === "blocked" ? "logFinalBlocked" : "logFinalPile", { points: pointsText(ev.scores, ctx) });
      const names = listText(ev.winners.map((/** @type {number} */ s) => ctx.name(s)));
      return { kind: "final", text: end + " " + T(ev.winners.length > 1 ? "logWinners" : "logWinner", { names }) };
    }
    default:
      return null;
  }
}

/** The part of a decision's line that its events add: the cards turned up into the display.
 * @param {EventData[]} events @param {DescribeContext} ctx */
function inlineEvents(events, ctx) {
  /** @type {string[]} */
  const parts = [];
  let drew = null;
  for (const ev of events) {
    if (ev.type === "revealed" && ev.kinds.length) parts.push(T("logRevealed", { cards: ev.kinds.map((/** @type {string} */ k) => ctx.board.cardName(k)).join(", ") }));
    // the kind of a card drawn from the pile: only the seat that drew it sees it (R13.2)
    if (ev.type === "drew" && ev.kind) drew = T("logYouDrew", { card: ctx.board.cardName(ev.kind) });
  }
  return { text: parts.length ? " — " + parts.join("; ") : "", drew };
}

/**
 * The log's items. ctx: board, name(seat), history (the view's), variants, boardId,
 * the players' count, notices (the table's, from the chat) and yours(notice) (whether one
 * is about the page's own seat); the game's rules and board head the log.
 * @param {LogContext} ctx
 */
export function logItems(ctx) {
  const items = [el("li", { class: "event rules", "data-event": "rules" },
    `${rulesText(ctx.variants)} · ${T("boardOf", { name: boardName(ctx.boardId) })}`)];
  const notices = noticeLines(ctx.notices, ctx.yours);
  (ctx.history || []).forEach((entry, i) => {
    items.push(...(notices.get(i) || []));
    const a = entry.action;
    const events = entry.events || [];
    const inline = inlineEvents(events, ctx);
    const standin = stoodIn(ctx.notices, a.seat, i, ctx.history) ? " " + T("logStandin", { name: ctx.name(a.seat) }) : "";
    items.push(el("li", { class: "s" + a.seat, value: i + 1, "data-act": a.act, "data-standin": standin ? "true" : null, title: inline.drew },
      swatch(a.seat), " " + describeAction(a, ctx) + standin + inline.text));
    for (const ev of events) {
      const d = describeEvent(ev, ctx);
      if (d) items.push(el("li", { class: "event", "data-event": d.kind, "data-after": i + 1 }, d.text));
    }
  });
  items.push(...(notices.get((ctx.history || []).length) || []));
  return items;
}

/** @param {HTMLElement} ol @param {LogContext} ctx */
export function renderLog(ol, ctx) {
  ol.replaceChildren(...logItems(ctx));
  ol.scrollTop = ol.scrollHeight;
}
