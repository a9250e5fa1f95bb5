// The tutorial (/tutorial): a guided first game on the real board whose steps are the
// rulebook's own examples. It looks and plays like the game (the same map, hand, display
// and selection); the server (tutorial.py) builds each step's position with the rules core
// and checks every attempt: by the rules (a refusal names its rule, linked to the rules
// dialog) and by the step's task. Unlike the game, the learner may try a move the rules
// refuse: the point is to learn why.

import { byId, el, swatch } from "./dom.js";
import { T, lang, otherLang, setLang, onLangChange, addStrings, listText, touchWords } from "./i18n.js";
import { loadBoard } from "./board.js";
import { HttpError, getJSON, postJSON, url } from "./net.js";
import { GameMap } from "./map.js";
import { MapZoom } from "./zoom.js";
import { rememberFocus, restoreFocus } from "./a11y.js";
import { Selection, placeSites } from "./selection.js";
/** @import { PlaceAction, RecordAction } from "./messages.js" */
/** @import { Board } from "./board.js" */
/** @import { ViewData } from "./panels.js" */
/** @import { Refusal } from "./refusals.js" */
import { renderHand, renderTable } from "./hand.js";
import { refusalText } from "./refusals.js";
import { ruleLink } from "./rules-dialog.js";

addStrings({
  en: {
    tutTitle: "Tutorial",
    tutStepOf: "Step {k} of {n}",
    tutYouAre: "You play {name}.",
    tutRules: "The rules:",
    tutTask: "Your task",
    tutNext: "Next step",
    tutSkip: "Skip this step",
    tutPrev: "Previous step",
    tutRetry: "Start the step again",
    tutWrong: "Not quite.",
    tutRefused: "The rules refuse this move.",
    tutDone: "Well done!",
    tutGoOn: "Now refill your hand: click the draw pile (or a display card).",
    tutFinishedTitle: "You know the game",
    tutFinishedText: "You have played the rulebook's examples, lesson by lesson:",
    tutFinishedSome: "The rulebook's examples, lesson by lesson (✓: played; the others are a tap away):",
    tutFinishedMore: "The rest is in the rules; the map explains every site, coat of arms and alliance when you point at it or tap it.",
    tutPlay: "Play a game",
    tutReadRules: "Read all the rules",
    tutAgain: "Start the tutorial again",
    tutWould: "What this move would score:",
    tutScored: "The scoring:",
    tutCountry: "{country}: {total} cloisters",
    tutPlayer: "Player",
    tutCloisters: "Cloisters",
    tutPlace: "Place",
    tutPoints: "Points",
    tutAlliance: "Alliance {n}, {a}–{b}: {v} advisors in all. Majority in {a}: {ma}; in {b}: {mb}.",
    tutAllianceScores: "{who} scores {p}.",
    tutAllianceNobody: "Nobody holds both majorities: nobody scores.",
    tutNobody: "nobody",
    tutChain: "{name}: {sites} — {p} points.",
    tutNoChain: "{name}: no chain of 4 or more cloisters.",
    tutIntermediate: "Intermediate scoring, all nine countries: {points}.",
    tutStepButton: "Step {k}: {title}",
  },
  de: {
    tutTitle: "Tutorial",
    tutStepOf: "Schritt {k} von {n}",
    tutYouAre: "Du spielst {name}.",
    tutRules: "Die Regeln:",
    tutTask: "Deine Aufgabe",
    tutNext: "Nächster Schritt",
    tutSkip: "Schritt überspringen",
    tutPrev: "Voriger Schritt",
    tutRetry: "Schritt neu beginnen",
    tutWrong: "Noch nicht ganz.",
    tutRefused: "Die Regeln erlauben diesen Zug nicht.",
    tutDone: "Gut gemacht!",
    tutGoOn: "Fülle jetzt die Hand auf: Klicke den Nachziehstapel (oder eine Karte der Auslage).",
    tutFinishedTitle: "Du kennst das Spiel",
    tutFinishedText: "Du hast die Beispiele der Spielanleitung gespielt, Lektion für Lektion:",
    tutFinishedSome: "Die Beispiele der Spielanleitung, Lektion für Lektion (✓: gespielt; die anderen sind einen Tipp entfernt):",
    tutFinishedMore: "Der Rest steht in den Regeln; die Karte erklärt jedes Feld, Wappen und Bündnis, wenn du darauf zeigst oder tippst.",
    tutPlay: "Ein Spiel spielen",
    tutReadRules: "Alle Regeln lesen",
    tutAgain: "Tutorial neu beginnen",
    tutWould: "Was dieser Zug brächte:",
    tutScored: "Die Wertung:",
    tutCountry: "{country}: {total} Klöster",
    tutPlayer: "Person",
    tutCloisters: "Klöster",
    tutPlace: "Platz",
    tutPoints: "Punkte",
    tutAlliance: "Bündnis {n}, {a}–{b}: {v} Räte insgesamt. Mehrheit in {a}: {ma}; in {b}: {mb}.",
    tutAllianceScores: "{who} erhält {p}.",
    tutAllianceNobody: "Niemand hat beide Mehrheiten: niemand punktet.",
    tutNobody: "niemand",
    tutChain: "{name}: {sites} — {p} Punkte.",
    tutNoChain: "{name}: keine Kette aus 4 oder mehr Klöstern.",
    tutIntermediate: "Zwischenwertung, alle neun Länder: {points}.",
    tutStepButton: "Schritt {k}: {title}",
  },
  da: {
    tutTitle: "Vejledning",
    tutStepOf: "Trin {k} af {n}",
    tutYouAre: "Du spiller {name}.",
    tutRules: "Reglerne:",
    tutTask: "Din opgave",
    tutNext: "Næste trin",
    tutSkip: "Spring dette trin over",
    tutPrev: "Forrige trin",
    tutRetry: "Start trinnet forfra",
    tutWrong: "Ikke helt.",
    tutRefused: "Reglerne tillader ikke dette træk.",
    tutDone: "Godt klaret!",
    tutGoOn: "Fyld nu din hånd op: klik på trækkebunken (eller et åbent kort).",
    tutFinishedTitle: "Du kan spillet",
    tutFinishedText: "Du har spillet regelhæftets eksempler, lektion for lektion:",
    tutFinishedSome: "Regelhæftets eksempler, lektion for lektion (✓: spillet; de andre er et tryk væk):",
    tutFinishedMore: "Resten står i reglerne; kortet forklarer hvert felt, våbenskjold og hver sammenslutning, når du peger på eller trykker på det.",
    tutPlay: "Spil et spil",
    tutReadRules: "Læs alle reglerne",
    tutAgain: "Start vejledningen forfra",
    tutWould: "Hvad dette træk ville give:",
    tutScored: "Pointtællingen:",
    tutCountry: "{country}: {total} klostre",
    tutPlayer: "Spiller",
    tutCloisters: "Klostre",
    tutPlace: "Plads",
    tutPoints: "Point",
    tutAlliance: "Sammenslutning {n}, {a}–{b}: {v} rådmænd i alt. Flertal i {a}: {ma}; i {b}: {mb}.",
    tutAllianceScores: "{who} får {p}.",
    tutAllianceNobody: "Ingen har begge flertal: ingen får point.",
    tutNobody: "ingen",
    tutChain: "{name}: {sites} — {p} point.",
    tutNoChain: "{name}: ingen kæde på 4 eller flere klostre.",
    tutIntermediate: "Første tælling, alle ni lande: {points}.",
    tutStepButton: "Trin {k}: {title}",
  },
});

const DONE_KEY = "kardinal-tutorial-done";

/** Words in each language ({en, de}; tutorial.toml).
 * @typedef {Record<string, string>} Words */
/**
 * A step as GET /api/tutorial gives it (play/tutorial.py Step.public: no position, no solution).
 * @typedef {object} TutorialStep
 * @property {string} id
 * @property {number} seat the learner's
 * @property {string[]} rules the rules it teaches ("R4.3")
 * @property {Words} title
 * @property {Words} text
 * @property {Words} task
 * @property {Words} done
 * @property {string} end
 * @property {string[]} show
 */
/** GET /api/tutorial (play/tutorial.py Tutorial.public).
 * @typedef {{ board: string, players: string[], steps: TutorialStep[] }} TutorialMeta */
/** A country's scoring (rules/breakdown.py CountryBreakdown): each seat's cloisters, place and points.
 * @typedef {{ country: string, cloisters: number[], places: number[], points: number[], total: number }} CountryBreakdown */
/** An alliance's scoring (rules/breakdown.py AllianceBreakdown).
 * @typedef {{ number: number, across: string, countries: string[], advisors: number[][], majority: number[][], qualifies: number[], value: number, points: number[] }} AllianceBreakdown */
/** A seat's chains (rules/breakdown.py ChainBreakdown).
 * @typedef {{ seat: number, paths: string[][], points: number }} ChainBreakdown */
/** The scoring a step shows (play/tutorial.py _scoring; `points`: the intermediate scoring's).
 * @typedef {{ countries?: CountryBreakdown[], alliances?: AllianceBreakdown[], chains?: ChainBreakdown[], points?: number[] }} StepScoring */
/** A legal move that is not the step's task: why, and what it would have scored.
 * @typedef {{ why: Words, scoring: StepScoring | null }} Goal */
/** Who would score each alliance now (play/messages.py Standing).
 * @typedef {{ alliances: { number: number, holders: number[], points: number }[] }} Standing */
/**
 * A step after the actions sent (play/tutorial.py attempt): GET and POST /api/tutorial/{step}.
 * @typedef {object} StepAnswer
 * @property {number} step
 * @property {Refusal | null} refusal the rules refused the last action
 * @property {Goal | null} goal the last action was legal, but not the task
 * @property {number} accepted
 * @property {boolean} done
 * @property {boolean} placed
 * @property {ViewData} view
 * @property {RecordAction[]} legal
 * @property {Standing} standing
 * @property {{ name: string }[]} players
 * @property {StepScoring | null} scoring
 */
/** What the page says of the last attempt.
 * @typedef {{ kind: "refused", refusal: Refusal } | { kind: "wrong", goal: Goal } | { kind: "done" } | { kind: "goon" }} Feedback */

/** The game's Selection, but free: the learner may choose any cards, country and pieces
 * (up to two) and send them; the server says whether the rules allow it. The map still
 * marks what the rules allow (the legal moves), as in the game. */
class TrySelection extends Selection {
  /** @param {() => RecordAction[]} legal @param {() => Record<string, number>} hand the learner's @param {() => number} seat the learner's */
  constructor(legal, hand, seat) {
    super(legal);
    this.hand = hand;
    this.seat = seat;
  }

  placing() { return this.legal().some((a) => a.act === "place"); }

  /** @param {string} kid */
  canAddCard(kid) {
    const held = this.hand()[kid] || 0;
    return this.placing() && this.cards.length < 3 && this.cards.filter((k) => k === kid).length < held;
  }

  pieces() { return this.sites.length + this.advisors; }

  /** The placement chosen so far, as a record action (null while incomplete).
   * @returns {PlaceAction | null} */
  exact() {
    if (!this.cards.length || !this.country || !this.pieces()) return null;
    return {
      seat: this.seat(), act: "place", country: this.country, cards: this.cards.slice().sort(),
      pieces: [...this.sites.map((site) => /** @type {const} */ ({ type: "cloister", site })), ...Array.from({ length: this.advisors }, () => /** @type {const} */ ({ type: "advisor" }))],
    };
  }

  matches() {
    const real = super.matches();
    if (real.length || !this.cards.length) return real;
    // for the hint: what to click next (a placement in part: perhaps no country yet)
    return [/** @type {PlaceAction} */ ({ seat: this.seat(), act: "place", country: this.country, cards: this.cards, pieces: [] })];
  }

  // an exchange: one card chosen, then a display card or the pile (the exchange step's task;
  // elsewhere the server says what the step asks instead)
  exchanges() { return super.exchanges(); }

  /** Place in country `cid` (another than before: its sites and advisors chosen start again).
   * @param {string | null | undefined} cid */
  use(cid) { if (this.country !== cid) { this.country = cid ?? null; this.sites = []; this.advisors = 0; } }

  /** @param {string} cid */
  chooseCountry(cid) {
    if (!this.cards.length) return false;
    this.use(cid);
    return true;
  }

  /** @param {string} sid @param {string | null | undefined} cid */
  toggleSite(sid, cid) {
    if (!this.cards.length) return false;
    if (this.sites.includes(sid)) { this.sites = this.sites.filter((x) => x !== sid); return true; }
    this.use(cid);
    if (this.pieces() >= 2) return false;
    this.sites.push(sid);
    return true;
  }

  /** @param {string} cid */
  clickCoat(cid) {
    if (!this.cards.length) return false;
    this.use(cid);
    if (this.pieces() < 2) { this.advisors += 1; return true; }
    if (this.advisors) { this.advisors -= 1; return true; }
    return false;
  }

  /** What the rules allow from here (the game's marks), from the legal moves only. */
  targets() {
    const M = this.cards.length ? super.matches() : [];
    const countries = new Set(M.map((a) => a.country));
    /** @type {Set<string>} */
    const sites = new Set();
    /** @type {Set<string>} */
    const coats = new Set();
    for (const a of M) {
      for (const s of placeSites(a)) if (!this.sites.includes(s)) sites.add(s);
      if (a.pieces.filter((p) => p.type === "advisor").length > this.advisors) coats.add(a.country);
    }
    return { any: M.length > 0, countries, sites, coats };
  }
}

class TutorialPage {
  constructor() {
    /** @type {TutorialMeta | null} GET /api/tutorial */
    this.meta = null;
    /** @type {Board | null} */
    this.board = null;
    /** @type {GameMap | null} drawn once the board is loaded */
    this.map = null;
    /** @type {MapZoom} made by start() */ this.zoom;
    this.index = 0;
    /** @type {RecordAction[]} the accepted actions of this step */
    this.actions = [];
    /** @type {StepAnswer | null} the server's latest answer for this step */
    this.res = null;
    /** @type {Feedback | null} */
    this.feedback = null;
    this.finished = false;
    this.sel = new TrySelection(() => (this.res ? this.res.legal : []), () => (this.res ? this.res.view.hand || {} : {}), () => this.step().seat);
  }

  async start() {
    byId("lang").addEventListener("click", () => setLang(otherLang()));
    GameMap.label(byId("map"));
    this.zoom = new MapZoom(byId("mapwrap"), byId("map", SVGSVGElement), { toggle: byId("zoom", HTMLButtonElement), more: byId("zoom-more", HTMLButtonElement), less: byId("zoom-less", HTMLButtonElement) },
      () => Boolean(this.map && this.map.selecting));
    onLangChange(() => { this.zoom.labels(); this.render(); });
    document.addEventListener("keydown", (ev) => {
      if (ev.key !== "Escape" || ev.defaultPrevented || document.querySelector("dialog[open]")) return;
      if (ev.target instanceof Element && ev.target.closest("input, textarea, select")) return; // typing: not a step back
      if (this.sel.back()) { ev.preventDefault(); this.render(); }
    });
    byId("prev").addEventListener("click", () => this.go(this.index - 1));
    byId("next").addEventListener("click", () => this.go(this.index + 1));
    byId("retry").addEventListener("click", () => this.go(this.index));
    /** @type {TutorialMeta} */
    const meta = await getJSON("/api/tutorial");
    this.meta = meta;
    this.board = await loadBoard(meta.board);
    this.map = new GameMap(byId("map"), this.board, {
      onCountry: (/** @type {string} */ cid) => this.clickCountry(cid),
      onSite: (/** @type {string} */ sid) => this.clickSite(sid),
      onCoat: (/** @type {string} */ cid) => this.clickCoat(cid),
      name: (/** @type {number} */ seat) => meta.players[seat],
    });
    this.map.zoom = this.zoom;
    const m = /^#(\d+)$/.exec(location.hash);
    await this.go(m ? Math.min(Number(m[1]) - 1, meta.steps.length - 1) : 0);
  }

  /** The tutorial's steps and players, which start() reads before anything asks for them. */
  known() {
    if (!this.meta) throw new Error("the tutorial's steps are read by start()");
    return this.meta;
  }

  /** The server's answer for this step, which draw() waits for before it draws. */
  answer() {
    if (!this.res) throw new Error("the step is drawn once the server has answered");
    return this.res;
  }

  step() { return this.known().steps[this.index]; }

  /** Words in the page's language (English if a step has none in it).
   * @param {Words | null | undefined} w */
  words(w) { return touchWords((w && (w[lang()] || w.en)) || ""); } // "Tap" on a touch screen

  /** @param {number} seat */
  name(seat) { return this.known().players[seat]; }

  doneSteps() { try { return new Set(JSON.parse(localStorage.getItem(DONE_KEY) || "[]")); } catch (e) { return new Set(); } }

  /** @param {string} id a step's */
  markDone(id) {
    const d = this.doneSteps();
    d.add(id);
    try { localStorage.setItem(DONE_KEY, JSON.stringify([...d])); } catch (e) { /* private mode: not remembered */ }
  }

  /** To step `i` (0: the first; past the last: the end).
   * @param {number} i */
  async go(i) {
    if (i < 0) return;
    const meta = this.known();
    this.sel.clear();
    this.feedback = null;
    this.actions = [];
    if (i >= meta.steps.length) {
      this.finished = true;
      this.index = meta.steps.length - 1;
      history.replaceState(null, "", "#end");
      this.render();
      return;
    }
    this.finished = false;
    this.index = i;
    history.replaceState(null, "", `#${i + 1}`);
    document.body.dataset.status = "loading";
    this.res = await getJSON(`/api/tutorial/${encodeURIComponent(this.step().id)}`);
    this.render();
    byId("side").scrollTop = 0;
  }

  /** Try an action: the server checks it by the rules and by the step's task.
   * @param {RecordAction} action */
  async send(action) {
    const step = this.step();
    document.body.dataset.status = "checking";
    /** @type {StepAnswer} */
    let res;
    try {
      res = await postJSON(`/api/tutorial/${encodeURIComponent(step.id)}`, { actions: this.actions.concat([action]) });
    } catch (e) {
      this.feedback = { kind: "refused", refusal: e instanceof HttpError ? e.error : { code: "malformed", message: e instanceof Error ? e.message : String(e), params: {} } };
      this.render();
      return;
    }
    this.sel.clear();
    this.res = res;
    if (res.refusal) this.feedback = { kind: "refused", refusal: res.refusal };
    else if (res.goal) this.feedback = { kind: "wrong", goal: res.goal };
    else {
      this.actions.push(action);
      this.feedback = res.done ? { kind: "done" } : res.placed ? { kind: "goon" } : null;
      if (res.done) this.markDone(step.id);
    }
    this.render();
  }

  // ------------------------------------------------------------ clicks

  /** @param {string} kid @param {boolean} selected */
  clickCard(kid, selected) {
    if (!this.res || !this.res.legal.length) return;
    if (selected) this.sel.removeCard(kid);
    else if (!this.sel.addCard(kid)) return;
    this.render();
  }

  /** @param {string} cid */
  clickCountry(cid) { if (this.sel.chooseCountry(cid)) this.render(); }

  /** @param {string} sid */
  clickSite(sid) { if (this.sel.toggleSite(sid, this.board?.siteCountry(sid))) this.render(); }

  /** @param {string} cid */
  clickCoat(cid) { if (this.sel.clickCoat(cid)) this.render(); }

  /** @param {string} source a display card's kind, or "deck" */
  clickTake(source) {
    const a = this.sel.takeFrom(source);
    if (a) this.send(a);
  }

  // ------------------------------------------------------------ drawing

  /** Redraw, the keyboard's focus kept where it was. */
  render() {
    const focus = rememberFocus();
    this.draw();
    restoreFocus(focus);
  }

  draw() {
    if (!this.meta || !this.res || !this.map || !this.board) { byId("status").textContent = "…"; return; }
    const step = this.step();
    const n = this.meta.steps.length;
    const v = this.res.view;
    document.title = `${T("tutTitle")} — Kardinal & König`;
    document.documentElement.lang = lang();
    byId("lang").textContent = T("language");
    const body = document.body;
    body.dataset.status = this.finished ? "finished" : this.res.done ? "done" : "ready";
    body.dataset.step = step.id;
    body.dataset.feedback = this.feedback ? this.feedback.kind : "";
    body.dataset.myTurn = this.res.legal.length ? "true" : "false";
    byId("status").textContent = this.finished ? T("tutTitle") : `${T("tutTitle")} · ${T("tutStepOf", { k: this.index + 1, n })}`;

    this.renderSteps();
    this.map.update(v, this.res.standing);
    this.map.highlight(this.sel.targets(), this.sel);
    this.focus();
    if (this.finished) { this.renderEnd(); return; }

    byId("step-title").textContent = this.words(step.title);
    const text = byId("step-text");
    text.replaceChildren(el("span", { class: "tut-you", title: T("tutYouAre", { name: this.name(step.seat) }) }, swatch(step.seat)), " ", this.words(step.text));
    byId("step-rules").replaceChildren(el("span", { text: T("tutRules") + " " }), ...step.rules.flatMap((r, i) => (i ? [" ", ruleLink(r)] : [ruleLink(r)])));
    byId("task").replaceChildren(el("b", { text: T("tutTask") + ": " }), this.words(step.task));
    byId("task").hidden = false;
    this.renderFeedback();
    this.renderResult();
    byId("prev").textContent = T("tutPrev");
    byId("prev", HTMLButtonElement).disabled = this.index === 0;
    byId("retry").textContent = T("tutRetry");
    byId("next").hidden = false;
    byId("next").textContent = this.res.done ? T("tutNext") : T("tutSkip");
    byId("next").classList.toggle("ready", this.res.done);

    renderHand(byId("handbox"), {
      board: this.board, view: v, sel: this.sel, hidden: false, playerName: this.name(step.seat),
      title: `${T("hand")} — ${this.name(step.seat)}`,
      onCard: (/** @type {string} */ k, /** @type {boolean} */ selected) => this.clickCard(k, selected),
      onSend: (/** @type {RecordAction} */ a) => this.send(a),
      onClear: () => { this.sel.clear(); this.render(); },
      onReveal: () => {},
    });
    renderTable(byId("table"), { board: this.board, view: v, sel: this.sel, onTake: (/** @type {string} */ s) => this.clickTake(s) });
  }

  /** Outline on the map what the scoring shown is about: the countries scored, the two
   * countries of each alliance, the sites of each chain (by the map's data attributes). */
  focus() {
    const f = this.feedback;
    const res = this.answer();
    const sc = this.finished ? null : f && f.kind === "wrong" ? f.goal.scoring : res.done ? res.scoring : null;
    const countries = new Set();
    const sites = new Set();
    for (const c of (sc && sc.countries) || []) countries.add(c.country);
    for (const a of (sc && sc.alliances) || []) for (const c of a.countries) countries.add(c);
    for (const c of (sc && sc.chains) || []) for (const p of c.paths) for (const x of p) sites.add(x);
    const root = byId("map");
    for (const g of root.querySelectorAll(".tut-focus")) g.classList.remove("tut-focus");
    for (const c of countries) for (const g of root.querySelectorAll(`.country[data-country="${c}"]`)) g.classList.add("tut-focus");
    for (const x of sites) for (const g of root.querySelectorAll(`[data-site="${x}"]`)) g.classList.add("tut-focus");
  }

  renderSteps() {
    const done = this.doneSteps();
    const box = byId("steps");
    box.replaceChildren(...this.known().steps.map((s, i) => el("li", {},
      el("button", {
        type: "button", class: "tut-pill" + (i === this.index && !this.finished ? " current" : "") + (done.has(s.id) ? " done" : ""),
        "data-step": s.id, "aria-current": i === this.index && !this.finished ? "step" : null,
        title: T("tutStepButton", { k: i + 1, title: this.words(s.title) }), "aria-label": T("tutStepButton", { k: i + 1, title: this.words(s.title) }),
        onclick: () => this.go(i),
      }, done.has(s.id) ? `${i + 1} ✓` : String(i + 1)))));
  }

  renderFeedback() {
    const m = byId("msg");
    const f = this.feedback;
    m.className = "";
    if (!f) { m.replaceChildren(); return; }
    if (f.kind === "refused") {
      m.className = "bad tut-bad";
      m.replaceChildren(el("b", { text: T("tutRefused") + " " }), el("span", { text: refusalText(f.refusal, this.board) }));
    } else if (f.kind === "wrong") {
      m.className = "bad tut-bad";
      m.replaceChildren(el("b", { text: T("tutWrong") + " " }), el("span", { text: this.words(f.goal.why) }));
      const s = this.scoringEls(f.goal.scoring);
      if (s.length) m.append(el("div", { class: "tut-would" }, el("div", { class: "small", text: T("tutWould") }), ...s));
    } else if (f.kind === "goon") {
      m.className = "tut-good";
      m.replaceChildren(el("span", { text: T("tutGoOn") }));
    } else {
      m.className = "tut-good";
      m.replaceChildren(el("b", { text: T("tutDone") + " " }), el("span", { text: this.words(this.step().done) }));
    }
  }

  renderResult() {
    const box = byId("result");
    const res = this.answer();
    const sc = res.done ? res.scoring : null;
    const parts = sc ? this.scoringEls(sc) : [];
    box.replaceChildren(...(parts.length ? [el("div", { class: "small", text: T("tutScored") }), ...parts] : []));
  }

  /** @param {number[]} seats */
  who(seats) { return seats.length ? listText(seats.map((s) => this.name(s))) : T("tutNobody"); }

  /** The scoring a step shows: countries (R9), alliances (R10), chains (R11).
   * @param {StepScoring | null} sc */
  scoringEls(sc) {
    if (!sc || !this.board) return [];
    const B = this.board;
    /** @type {HTMLElement[]} */
    const out = [];
    for (const c of sc.countries || []) {
      /** @type {[number, number][]} each seat's cloisters there, and the seat */
      const pairs = c.cloisters.map((k, seat) => [k, seat]);
      const rows = pairs.filter(([k]) => k > 0).sort((a, b) => b[0] - a[0]);
      out.push(el("table", { class: "tut-score", "data-country": c.country },
        el("caption", { text: T("tutCountry", { country: B.countryName(c.country), total: c.total }) }),
        el("tr", {}, el("th", { text: T("tutPlayer") }), el("th", { text: T("tutCloisters") }), el("th", { text: T("tutPlace") }), el("th", { text: T("tutPoints") })),
        ...rows.map(([k, seat]) => el("tr", {}, el("td", {}, swatch(seat), " " + this.name(seat)), el("td", { class: "num", text: String(k) }),
          el("td", { class: "num", text: String(c.places[seat]) }), el("td", { class: "num pts", text: String(c.points[seat]) })))));
    }
    for (const a of sc.alliances || []) {
      const [ca, cb] = a.countries.map((c) => B.countryName(c));
      const who = this.who(a.qualifies);
      out.push(el("p", { class: "tut-alliance", "data-alliance": String(a.number) },
        T("tutAlliance", { n: a.number, a: ca, b: cb, v: a.value, ma: this.who(a.majority[0]), mb: this.who(a.majority[1]) }), " ",
        el("b", { text: a.qualifies.length ? T("tutAllianceScores", { who, p: a.value }) : T("tutAllianceNobody") })));
    }
    for (const c of sc.chains || []) {
      const sites = c.paths.map((p) => p.map((s) => B.siteName(s)).join(" – ")).join("; ");
      out.push(el("p", { class: "tut-chain", "data-points": String(c.points) }, swatch(c.seat), " ",
        c.points ? T("tutChain", { name: this.name(c.seat), sites, p: c.points }) : T("tutNoChain", { name: this.name(c.seat) })));
    }
    if (sc.points) {
      out.push(el("p", { class: "small", text: T("tutIntermediate", { points: sc.points.map((p, seat) => `${this.name(seat)} ${p}`).join(", ") }) }));
    }
    return out;
  }

  renderEnd() {
    byId("step-title").textContent = T("tutFinishedTitle");
    if (this.zoom && this.zoom.z > 1) this.zoom.whole(); // the whole map, not the corner of the last lesson
    // the lessons in their order, each one a way back to it
    const done = this.doneSteps();
    const lessons = el("ol", { class: "tut-summary", id: "tut-summary" }, ...this.known().steps.map((s, i) => el("li", { "data-step": s.id },
      el("button", { type: "button", class: "tut-lesson" + (done.has(s.id) ? " done" : ""), onclick: () => this.go(i) },
        el("span", { class: "tut-lesson-mark", "aria-hidden": "true", text: String(i + 1) }), el("span", { class: "tut-lesson-title", text: this.words(s.title) }),
        done.has(s.id) ? el("span", { class: "tut-lesson-done", text: "✓" }) : null))));
    // (all played, or some skipped: the end says which it was, not "played every lesson")
    const all = this.known().steps.every((s) => done.has(s.id));
    byId("step-text").replaceChildren(el("span", { id: "tut-finished-text", text: T(all ? "tutFinishedText" : "tutFinishedSome") }), lessons, el("span", { text: T("tutFinishedMore") }));
    byId("step-rules").replaceChildren(el("a", { href: url("/"), class: "tut-cta", text: T("tutPlay") }), " ", ruleLink("R1", T("tutReadRules")));
    byId("task").hidden = true;
    byId("msg").replaceChildren();
    byId("msg").className = "";
    byId("result").replaceChildren();
    byId("prev").textContent = T("tutPrev");
    byId("prev", HTMLButtonElement).disabled = false;
    byId("retry").textContent = T("tutAgain");
    byId("next").hidden = true;
    byId("handbox").replaceChildren();
    byId("table").replaceChildren();
  }
}

const page = new TutorialPage();
// the end page's buttons: Back goes to the last step, "again" to the first, Play to the lobby
byId("retry").addEventListener("click", (ev) => { if (page.finished) { ev.stopImmediatePropagation(); page.go(0); } }, true);
byId("prev").addEventListener("click", (ev) => { if (page.finished) { ev.stopImmediatePropagation(); page.go(page.known().steps.length - 1); } }, true);
page.start();
