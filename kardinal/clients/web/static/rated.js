// Ratings in the pages: the words (English and German), a rating as people see it
// ("1612 ± 140": mu and twice its uncertainty), the lobby's "Rated" choice and "Find me a
// table", and the mark of a rated table in the lists. The server computes every number
// (kardinal.server.community.ratings); this module only says them.

import { el, fill } from "./dom.js";
import { T, addStrings, dateTime, num, onLangChange } from "./i18n.js";
import { getJSON, postJSON, url } from "./net.js";
import { errorText } from "./refusals.js";

/** The signed-in account (account-link.js whoAmI()).
 * @typedef {{ id: number, name: string, created: number }} Account */
/** A player's rating in one game, before and after (community/schemas.py RatingChange).
 * @typedef {{ before: number, after: number, change: number, pm: number, pm_before: number }} RatingChange */
/** GET /api/account/rating (community/schemas.py MyRating), its games newest first.
 * @typedef {object} MyRating
 * @property {number} rating
 * @property {number} pm
 * @property {number} games
 * @property {{ game: string, at: number, before: number, after: number, pm: number }[]} events */

addStrings({
  en: {
    ratedTag: "rated",
    ratedTagWhy: "A rated table: the game moves its players' ratings",
    ratedLabel: "Rated: the game moves every player's rating (signed-in players only; no hints, no hot-seat)",
    ratedNeedsSignIn: "Rated games need an account: sign in to play them.",
    findTable: "Find me a table",
    findTableWhy: "A rated table with players of about your rating; if none is waiting, a new one in the lobby.",
    findTableSignIn: "Sign in to find a rated table.",
    findTableFailed: "No table could be found: {why}",
    rating: "Rating",
    ratingValue: "{r} ± {pm}",
    ratingChange: "{before} → {after} ({change})",
    ratingsTitle: "Ratings",
    ratingsWaiting: "The ratings are being updated …",
    ratingsUnrated: "This game was not rated.",
    fillTitle: "Waiting for players",
    fillWhy: "Nobody else has come yet? Start now: bots take the free seats ({level}).",
    fillWhyRated: "Nobody else has come yet? Start now: bots of your rating take the free seats, and those of anyone not at the table now. The game stays rated.",
    fillButton: "Start with bots",
    fillKept: "The free seats are kept for the players expected here: the game starts when they come.",
    fillLater: "The players of the last game may come until {time}; if they do not, you can start with bots then.",
    playersTitle: "Players",
    playersWhy: {
      one: "Ratings of people from rated games, best first by rating minus twice its uncertainty (a rating one can be fairly sure of). Listed after {n} rated game.",
      other: "Ratings of people from rated games, best first by rating minus twice its uncertainty (a rating one can be fairly sure of). Listed after {n} rated games.",
    },
    playersNone: "Nobody has played enough rated games yet.",
    playersRank: "#",
    playersName: "Name",
    playersGames: "Rated games",
    botsTitle: "The bots, for scale",
    botsWhy: "Bots have fixed ratings, measured in bot tournaments; a newcomer starts at {n}.",
    botName: "{level} (bot)",
    botEstimate: "not measured: between the levels around it",
    leaderboardLink: "Players",
    myRatingTitle: "Your rating",
    myRatingNone: "No rated games yet: you start at {r} ± {pm}. Play a rated table (Find me a table, or a table of bots with \"Rated\" ticked) to get your own.",
    myRatingGames: { one: "{n} rated game", other: "{n} rated games" },
    myRatedGames: "Rated games",
    myRatedGame: "{when}: {change}",
  },
  de: {
    ratedTag: "gewertet",
    ratedTagWhy: "Ein gewerteter Tisch: das Spiel verändert die Wertungszahlen der Spieler",
    ratedLabel: "Gewertet: das Spiel verändert die Wertungszahl jedes Spielers (nur angemeldete Spieler; keine Tipps, kein Hot-Seat)",
    ratedNeedsSignIn: "Gewertete Spiele brauchen ein Konto: melde dich an, um sie zu spielen.",
    findTable: "Finde mir einen Tisch",
    findTableWhy: "Ein gewerteter Tisch mit Spielern etwa deiner Stärke; wartet keiner, ein neuer in der Lobby.",
    findTableSignIn: "Melde dich an, um einen gewerteten Tisch zu finden.",
    findTableFailed: "Es wurde kein Tisch gefunden: {why}",
    rating: "Wertungszahl",
    ratingValue: "{r} ± {pm}",
    ratingChange: "{before} → {after} ({change})",
    ratingsTitle: "Wertungszahlen",
    ratingsWaiting: "Die Wertungszahlen werden berechnet …",
    ratingsUnrated: "Dieses Spiel war nicht gewertet.",
    fillTitle: "Warten auf Mitspieler",
    fillWhy: "Noch niemand gekommen? Jetzt anfangen: Bots nehmen die freien Plätze ({level}).",
    fillWhyRated: "Noch niemand gekommen? Jetzt anfangen: Bots deiner Stärke nehmen die freien Plätze und die aller, die gerade nicht am Tisch sind. Das Spiel bleibt gewertet.",
    fillButton: "Mit Bots anfangen",
    fillKept: "Die freien Plätze sind für die erwarteten Mitspieler reserviert: Das Spiel beginnt, wenn sie kommen.",
    fillLater: "Die Mitspieler der letzten Partie können bis {time} kommen; sonst kannst du dann mit Bots anfangen.",
    playersTitle: "Spieler",
    playersWhy: {
      one: "Wertungszahlen von Menschen aus gewerteten Spielen, die besten zuerst nach Wertungszahl minus doppelter Unsicherheit (einer Zahl, auf die man sich recht sicher verlassen kann). Aufgeführt nach {n} gewerteten Spiel.",
      other: "Wertungszahlen von Menschen aus gewerteten Spielen, die besten zuerst nach Wertungszahl minus doppelter Unsicherheit (einer Zahl, auf die man sich recht sicher verlassen kann). Aufgeführt nach {n} gewerteten Spielen.",
    },
    playersNone: "Noch niemand hat genug gewertete Spiele gespielt.",
    playersRank: "#",
    playersName: "Name",
    playersGames: "Gewertete Spiele",
    botsTitle: "Die Bots, zum Vergleich",
    botsWhy: "Bots haben feste Wertungszahlen, in Bot-Turnieren gemessen; wer neu ist, beginnt bei {n}.",
    botName: "{level} (Bot)",
    botEstimate: "nicht gemessen: zwischen den Stufen daneben",
    leaderboardLink: "Spieler",
    myRatingTitle: "Deine Wertungszahl",
    myRatingNone: "Noch keine gewerteten Spiele: du beginnst bei {r} ± {pm}. Spiele an einem gewerteten Tisch („Finde mir einen Tisch“, oder ein Tisch mit Bots und „Gewertet“ angekreuzt), um deine eigene zu bekommen.",
    myRatingGames: { one: "{n} gewertetes Spiel", other: "{n} gewertete Spiele" },
    myRatedGames: "Gewertete Spiele",
    myRatedGame: "{when}: {change}",
  },
  da: {
    ratedTag: "rated",
    ratedTagWhy: "Et rated bord: spillet flytter spillernes rating",
    ratedLabel: "Rated: spillet flytter alle spilleres rating (kun spillere, der er logget ind; ingen tips, ingen hot-seat)",
    ratedNeedsSignIn: "Ratede spil kræver en konto: log ind for at spille dem.",
    findTable: "Find et bord til mig",
    findTableWhy: "Et rated bord med spillere omtrent på din rating; venter der intet, et nyt i lobbyen.",
    findTableSignIn: "Log ind for at finde et rated bord.",
    findTableFailed: "Der kunne ikke findes et bord: {why}",
    rating: "Rating",
    ratingValue: "{r} ± {pm}",
    ratingChange: "{before} → {after} ({change})",
    ratingsTitle: "Ratings",
    ratingsWaiting: "Ratingerne opdateres …",
    ratingsUnrated: "Dette spil var ikke rated.",
    fillTitle: "Venter på spillere",
    fillWhy: "Er der ikke kommet andre endnu? Start nu: bots tager de ledige pladser ({level}).",
    fillWhyRated: "Er der ikke kommet andre endnu? Start nu: bots på din rating tager de ledige pladser og pladserne for dem, der ikke er ved bordet nu. Spillet forbliver rated.",
    fillButton: "Start med bots",
    fillKept: "De ledige pladser holdes til de spillere, der ventes her: spillet begynder, når de kommer.",
    fillLater: "Spillerne fra sidste spil kan komme indtil {time}; kommer de ikke, kan du derefter starte med bots.",
    playersTitle: "Spillere",
    playersWhy: { one: "Menneskers rating fra ratede spil, bedst først efter rating minus to gange dens usikkerhed (en rating, man kan være nogenlunde sikker på). Vises efter {n} rated spil.", other: "Menneskers rating fra ratede spil, bedst først efter rating minus to gange dens usikkerhed (en rating, man kan være nogenlunde sikker på). Vises efter {n} ratede spil." },
    playersNone: "Ingen har spillet nok ratede spil endnu.",
    playersRank: "#",
    playersName: "Navn",
    playersGames: "Ratede spil",
    botsTitle: "Bottene, til sammenligning",
    botsWhy: "Bots har faste ratings, målt i botturneringer; en nybegynder starter på {n}.",
    botName: "{level} (bot)",
    botEstimate: "ikke målt: mellem niveauerne omkring den",
    leaderboardLink: "Spillere",
    myRatingTitle: "Din rating",
    myRatingNone: "Ingen ratede spil endnu: du starter på {r} ± {pm}. Spil ved et rated bord (Find et bord til mig, eller et bord med bots med \"Rated\" afkrydset) for at få din egen.",
    myRatingGames: { one: "{n} rated spil", other: "{n} ratede spil" },
    myRatedGames: "Ratede spil",
    myRatedGame: "{when}: {change}",
  },
});

/** A rating as people see it: "1.612 ± 140" (German) / "1,612 ± 140".
 * @param {number} r @param {number} pm */
export function ratingText(r, pm) { return T("ratingValue", { r: num(r), pm: num(pm) }); }

/** A signed change: "+38" / "−12" / "±0".
 * @param {number} n */
export function signed(n) { return n > 0 ? `+${num(n)}` : n < 0 ? num(n) : "±0"; }

/** One game's change: "1,500 ± 700 → 1,538 ± 640 (+38)".
 * @param {RatingChange} c */
export function changeText(c) {
  return T("ratingChange", { before: ratingText(c.before, c.pm_before), after: ratingText(c.after, c.pm), change: signed(c.change) });
}

/** The mark of a rated table in a list of games (null for others).
 * @param {{ rated?: boolean } | null | undefined} table a game's TableOptions */
export function ratedTag(table) {
  return table && table.rated ? el("span", { class: "tag rated", title: T("ratedTagWhy"), text: T("ratedTag") }) : null;
}

/** The lobby's "Rated" choice: a checkbox when signed in, greyed with the reason when not.
 * @param {Account | null} me @param {boolean} checked @param {(on: boolean) => void} onChange */
export function ratedChoice(me, checked, onChange) {
  const box = el("input", { type: "checkbox", id: "rated", checked: checked && me ? true : null, disabled: me ? null : true, "aria-describedby": me ? null : "rated-why" });
  box.addEventListener("change", () => onChange(box.checked));
  return el("p", { class: "rated-choice" }, el("label", { for: "rated" }, box, " ", T("ratedLabel")),
    me ? null : el("span", { class: "small rated-why", id: "rated-why" }, " ", T("ratedNeedsSignIn")));
}

/** "Find me a table" (signed in; a guest sees why not): to the seat found or opened.
 * @param {Account | null} me @param {(text: string) => void} onError */
export function findTableButton(me, onError) {
  const button = el("button", { type: "button", id: "find-table", class: "way", disabled: me ? null : true, "aria-describedby": "find-table-why" },
    el("span", { class: "way-title", text: T("findTable") }), el("span", { class: "way-why", id: "find-table-why", text: me ? T("findTableWhy") : T("findTableSignIn") }));
  button.addEventListener("click", async (ev) => {
    if (ev.detail > 1 || button.disabled) return;
    button.disabled = true;
    button.setAttribute("aria-busy", "true");
    try {
      const r = await postJSON("/api/find-table", {});
      location.href = r.url;
    } catch (e) {
      button.disabled = false;
      button.removeAttribute("aria-busy");
      onError(T("findTableFailed", { why: errorText(e) }));
    }
  });
  return button;
}

/** The account page's rating: the number, the rated games with their changes, linked.
 * @param {HTMLElement} box */
export async function fillMyRating(box) {
  /** @type {MyRating} */
  let r;
  try { r = await getJSON("/api/account/rating"); } catch (e) { box.replaceChildren(); return; }
  const head = el("h2", { text: T("myRatingTitle") });
  if (!r.games) {
    fill(box, head, el("p", { id: "my-rating-none", text: T("myRatingNone", { r: num(r.rating), pm: num(r.pm) }) }),
      el("p", {}, el("a", { href: url("/players"), id: "my-rating-board" }, T("leaderboardLink"))));
    return;
  }
  const rows = r.events.slice(0, 20).map((e) => el("li", { "data-game": e.game },
    el("a", { href: url(`/game/${encodeURIComponent(e.game)}`) }, dateTime(e.at)), ": ",
    el("span", { class: e.after >= e.before ? "rating-up" : "rating-down", text: `${num(e.before)} → ${ratingText(e.after, e.pm)} (${signed(e.after - e.before)})` })));
  fill(box, head,
    el("p", { class: "my-rating" }, el("strong", { id: "my-rating-value", text: ratingText(r.rating, r.pm) }), " · ", T("myRatingGames", { n: r.games })),
    el("h3", { text: T("myRatedGames") }), el("ul", { class: "rated-games", id: "my-rated-games" }, ...rows),
    el("p", {}, el("a", { href: url("/players"), id: "my-rating-board" }, T("leaderboardLink"))));
}

// the header's link to the leaderboard (pages that have #players-link)
const playersLink = document.getElementById("players-link");
function namePlayersLink() { if (playersLink) playersLink.textContent = T("leaderboardLink"); }
namePlayersLink();
onLangChange(namePlayersLink);
