// Who would score each alliance if the game ended now (R10.3), as the terminal client shows
// it: from the server's `standing` (computed by the rules core from the advisors, public).

import { el, swatch } from "./dom.js";
import { T, seatName, addStrings } from "./i18n.js";
/** @import { Board } from "./board.js" */

addStrings({
  en: {
    alliancesNow: "Alliances if the game ended now",
    alliancesNowWhy: "R10.3: an alliance scores for whoever holds the advisor majority in both its countries (ties share); it is worth every advisor in the two countries.",
    allianceNobody: "nobody",
    alliancePoints: "{n} points each",
    allianceLand: "land",
    allianceSea: "sea",
  },
  de: {
    alliancesNow: "Bündnisse, wenn das Spiel jetzt endete",
    alliancesNowWhy: "R10.3: Ein Bündnis zählt für jeden, der in beiden Ländern die Mehrheit der Räte hat (bei Gleichstand alle); es bringt so viele Punkte, wie Räte in beiden Ländern stehen.",
    allianceNobody: "niemand",
    alliancePoints: "je {n} Punkte",
    allianceLand: "Land",
    allianceSea: "See",
  },
  da: {
    alliancesNow: "Sammenslutninger, hvis spillet sluttede nu",
    alliancesNowWhy: "R10.3: en sammenslutning giver point til den, der har flertal af rådmænd i begge dens lande (står det lige, deler de); den er værd alle rådmænd i de to lande.",
    allianceNobody: "ingen",
    alliancePoints: "{n} point hver",
    allianceLand: "land",
    allianceSea: "hav",
  },
});

/**
 * The alliances panel. ctx: {board, players, standing (msg.standing) or null}.
 * @param {HTMLElement} box
 * @param {{ board: Board, players: { name: string }[],
 *   standing: { alliances?: { number: number, holders: number[], points: number }[] } | null }} ctx
 */
export function renderAlliances(box, { board, players, standing }) {
  if (!standing || !standing.alliances) { box.replaceChildren(); return; }
  const wasOpen = box.querySelector("details")?.open ?? false;
  const byNumber = new Map(standing.alliances.map((a) => [a.number, a]));
  const rows = board.data.alliances.map((a) => {
    const s = byNumber.get(a.number) || { holders: [], points: 0 };
    const who = s.holders.length
      ? el("span", {}, ...s.holders.flatMap((p) => [swatch(p), ` ${players[p] ? seatName(players[p].name, p) : p} `]))
      : el("span", { class: "muted", text: T("allianceNobody") });
    return el("tr", { "data-alliance-now": a.number, class: s.holders.length ? "held" : "" },
      el("td", { class: "num", text: a.number }),
      el("td", { text: a.countries.map((c) => board.countryName(c)).join(" – ") + ` (${T(a.across === "sea" ? "allianceSea" : "allianceLand")})` }),
      el("td", {}, who),
      el("td", { class: "num", text: s.holders.length ? T("alliancePoints", { n: s.points }) : "" }));
  });
  const details = el("details", { class: "alliances-now", open: wasOpen || null },
    el("summary", { title: T("alliancesNowWhy") }, T("alliancesNow")),
    el("table", {}, el("tbody", {}, ...rows)));
  box.replaceChildren(details);
}
