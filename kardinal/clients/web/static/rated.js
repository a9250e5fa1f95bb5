// Ratings in the pages: the words (English and German), a rating as people see it
// ("1612 ± 140": mu and twice its uncertainty), the lobby's "Rated" choice and "Find me a
// table", and the mark of a rated table in the lists. The server computes every number
// (kardinal.server.community.ratings); this module only says them.

import { el, fill } from "./dom.js";
import { T, dateTime, num, onLangChange } from "./i18n.js";
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

/** A rating as people see it: "1.612 ± 140" (German) / "1,612 ± 140".
 * @param {number} r @param {number} pm */
export function ratingText(r, pm) { return T("ratedValue", { r: num(r), pm: num(pm) }); }

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
