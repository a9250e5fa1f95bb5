// The replay of a finished game: a slider over its turns (a turn with its draws is one
// step), jumps to the intermediate scoring, the last round and the end, and the scoring
// overlays. The page loads each step from GET /api/games/{id}/replay/{step}.

import { el, fill } from "./dom.js";
import { T, addStrings } from "./i18n.js";
import "./scoring.js"; // the scoring texts (scShowInter, scShowFinal)
/** @import { HistoryEntry } from "./messages.js" */

addStrings({
  en: {
    rpTurn: "Turn {k} of {n}",
    rpStep: "step {s}",
    rpStepWhy: "A step is one decision: a placement, each card drawn, an exchange or a pass.",
    rpSlider: "Turn of the replay",
    rpStart: "Start",
    rpInter: "Intermediate scoring",
    rpLastRound: "Last round",
    rpEnd: "End",
    rpPrevTurn: "Previous turn",
    rpNextTurn: "Next turn",
  },
  de: {
    rpTurn: "Zug {k} von {n}",
    rpStep: "Schritt {s}",
    rpStepWhy: "Ein Schritt ist eine Entscheidung: ein Einsatz, jede gezogene Karte, ein Tausch oder ein Passen.",
    rpSlider: "Zug der Wiederholung",
    rpStart: "Anfang",
    rpInter: "Zwischenwertung",
    rpLastRound: "Letzte Runde",
    rpEnd: "Ende",
    rpPrevTurn: "Voriger Zug",
    rpNextTurn: "Nächster Zug",
  },
  da: {
    rpTurn: "Tur {k} af {n}",
    rpStep: "trin {s}",
    rpStepWhy: "Et trin er én beslutning: en placering, hvert trukket kort, en ombytning eller et pas.",
    rpSlider: "Genafspilningens tur",
    rpStart: "Start",
    rpInter: "Første tælling",
    rpLastRound: "Sidste runde",
    rpEnd: "Slut",
    rpPrevTurn: "Forrige tur",
    rpNextTurn: "Næste tur",
  },
});

/** The steps (numbers of decisions) at which a turn is complete: 0, the end of each turn
 * (a placement with its draws, an exchange or a pass), and the whole game.
 * @param {HistoryEntry[] | null | undefined} history */
export function turnBounds(history) {
  const h = history || [];
  const out = [0];
  for (let i = 1; i < h.length; i++) if (h[i].action.act !== "draw") out.push(i);
  if (h.length && out[out.length - 1] !== h.length) out.push(h.length);
  return out;
}

/** The turn a step lies in: the last bound at or before it (the replay's "Turn k of n").
 * @param {number[]} bounds @param {number} step */
export function turnOf(bounds, step) {
  let k = 0;
  while (k + 1 < bounds.length && bounds[k + 1] <= step) k++;
  return k;
}

/** Where the replay stands, in one counter: "Turn 9 of 40 · step 25".
 * @param {HistoryEntry[] | null | undefined} history @param {number} step */
export function replayWhere(history, step) {
  const bounds = turnBounds(history);
  return `${T("rpTurn", { k: turnOf(bounds, step), n: bounds.length - 1 })} · ${T("rpStep", { s: step })}`;
}

/**
 * What the replay box steps through: a finished game's steps, its history (the whole
 * game's), its marks, and what its buttons do (onScoring: open a scoring overlay).
 * @typedef {object} ReplayBox
 * @property {number} step
 * @property {number} total
 * @property {boolean} replaying
 * @property {HistoryEntry[] | null | undefined} history
 * @property {{ intermediate?: number, last_round?: number } | null} [marks]
 * @property {(step: number) => void} go
 * @property {() => void} live
 * @property {string} recordURL
 * @property {string} fileName
 * @property {((kind: string) => void) | null} [onScoring]
 * @property {string | null} [again]
 */

/** Step through a finished game (null: no box).
 * @param {HTMLElement} box @param {ReplayBox | null} r */
export function renderReplayBox(box, r) {
  box.replaceChildren();
  if (!r) return;
  const bounds = turnBounds(r.history);
  const go = (/** @type {number} */ s) => r.go(Math.max(0, Math.min(r.total, s)));
  const k = turnOf(bounds, r.step);
  const turns = bounds.length - 1;
  // one counter: the turn, and the step (decision) within the game beside it, smaller
  const turnLabel = el("span", { id: "rp-turn", text: T("rpTurn", { k, n: turns }) });
  const where = el("span", { id: "rp-where", class: "step" }, turnLabel,
    el("span", { id: "rp-step", class: "small", title: T("rpStepWhy") }, ` · ${T("rpStep", { s: r.step })}`));
  const slider = el("input", {
    type: "range", id: "rp-slider", min: 0, max: turns, step: 1, value: k, "aria-label": T("rpSlider"),
    "aria-valuetext": T("rpTurn", { k, n: turns }),
  });
  slider.addEventListener("input", () => { turnLabel.textContent = T("rpTurn", { k: Number(slider.value), n: turns }); });
  slider.addEventListener("change", () => go(bounds[Number(slider.value)]));
  const back = () => go(bounds[r.step > bounds[k] ? k : Math.max(0, k - 1)]);
  const marks = r.marks || {};
  const onScoring = r.onScoring;
  /** @param {string} id @param {string} text @param {number | null | undefined} step */
  const jump = (id, text, step) => (step === undefined || step === null ? null
    : el("button", { type: "button", id, class: step === r.step ? "on" : "", onclick: () => go(step) }, text));
  fill(box, el("h2", { text: T("replay") }),
    el("div", { class: "buttons" },
      el("button", { type: "button", id: "rp-first", "aria-label": T("first"), title: T("rpStart"), onclick: () => go(0) }, "«"),
      el("button", { type: "button", id: "rp-prev-turn", "aria-label": T("rpPrevTurn"), title: T("rpPrevTurn"), onclick: back }, "◀◀"),
      el("button", { type: "button", id: "rp-back", "aria-label": T("back"), onclick: () => go(r.step - 1) }, "◀"),
      el("button", { type: "button", id: "rp-forward", "aria-label": T("forward"), onclick: () => go(r.step + 1) }, "▶"),
      el("button", { type: "button", id: "rp-next-turn", "aria-label": T("rpNextTurn"), title: T("rpNextTurn"), onclick: () => go(bounds[Math.min(turns, k + 1)]) }, "▶▶"),
      el("button", { type: "button", id: "rp-last", "aria-label": T("last"), title: T("rpEnd"), onclick: () => go(r.total) }, "»"),
      r.replaying ? el("button", { type: "button", id: "rp-live", onclick: r.live }, T("live")) : null),
    el("div", { class: "replay-slider" }, slider, where),
    el("div", { class: "replay-jumps" },
      jump("rp-jump-start", T("rpStart"), 0),
      jump("rp-jump-inter", T("rpInter"), marks.intermediate),
      jump("rp-jump-last-round", T("rpLastRound"), marks.last_round),
      jump("rp-jump-end", T("rpEnd"), r.total)),
    el("div", { class: "replay-jumps" },
      marks.intermediate !== undefined && onScoring
        ? el("button", { type: "button", id: "rp-show-inter", onclick: () => onScoring("intermediate") }, T("scShowInter")) : null,
      onScoring ? el("button", { type: "button", id: "rp-show-final", onclick: () => onScoring("final") }, T("scShowFinal")) : null),
    el("p", {}, el("a", { href: r.recordURL, download: r.fileName, id: "download" }, T("record"))),
    r.again ? el("p", { class: "again" }, T("scAgainReady"), " ", el("a", { href: r.again, id: "rp-again" }, T("scGoAgain"))) : null);
}
