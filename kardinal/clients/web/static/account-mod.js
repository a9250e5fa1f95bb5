// The account page's players you muted or blocked (moderation), each with a way back.

import { el } from "./dom.js";
import { T, addStrings } from "./i18n.js";
import { getJSON, postJSON } from "./net.js";
import { errorText } from "./refusals.js";

/** GET /api/moderation (community/schemas.py ModerationLists): whom this account muted and blocked.
 * @typedef {{ muted: { name: string }[], blocked: { name: string }[] }} ModerationLists */

addStrings({
  en: {
    modListTitle: "Muted and blocked players",
    modListNone: "Nobody. In a game's chat, the ⋯ beside a line mutes or blocks its writer.",
    modListMuted: "Muted (their chat is hidden):",
    modListBlocked: "Blocked (their chat is hidden; no invitations or tables together):",
    modUnmuteName: "Unmute {name}",
    modUnblockName: "Unblock {name}",
  },
  de: {
    modListTitle: "Stummgeschaltete und blockierte Spieler",
    modListNone: "Niemand. Im Chat eines Spiels schaltet das ⋯ neben einer Zeile ihren Schreiber stumm oder blockiert ihn.",
    modListMuted: "Stummgeschaltet (ihr Chat ist ausgeblendet):",
    modListBlocked: "Blockiert (ihr Chat ist ausgeblendet; keine Einladungen, keine gemeinsamen Tische):",
    modUnmuteName: "{name} wieder hören",
    modUnblockName: "{name} nicht mehr blockieren",
  },
  da: {
    modListTitle: "Dæmpede og blokerede spillere",
    modListNone: "Ingen. I et spils chat kan du dæmpe eller blokere skriveren med ⋯ ved siden af en linje.",
    modListMuted: "Dæmpet (deres chat er skjult):",
    modListBlocked: "Blokeret (deres chat er skjult; ingen invitationer eller fælles borde):",
    modUnmuteName: "Fjern dæmpning af {name}",
    modUnblockName: "Fjern blokering af {name}",
  },
});

/** A section for the signed-in account page: who is muted and blocked. */
export function moderationSection() {
  const title = el("h2", { text: T("modListTitle") });
  const box = el("section", { id: "moderation" }, title);
  const fillIn = async () => {
    /** @type {ModerationLists} */
    let lists;
    try { lists = await getJSON("/api/moderation"); } catch (e) { box.replaceChildren(title, el("p", { class: "bad", text: errorText(e) })); return; }
    /** @param {string} label @param {{ name: string }[]} people @param {string} path @param {string} undo the text's key */
    const group = (label, people, path, undo) => (people.length ? [el("p", { class: "small", text: label }), el("ul", { class: "mod-list" }, ...people.map((p) =>
      el("li", {}, el("button", { type: "button", "data-name": p.name, onclick: async () => {
        try { await postJSON(path, { name: p.name, on: false }); } catch (e) { /* gone meanwhile: the list is read again */ }
        fillIn();
      } }, T(undo, { name: p.name })))))] : []);
    const parts = [...group(T("modListMuted"), lists.muted, "/api/moderation/mute", "modUnmuteName"), ...group(T("modListBlocked"), lists.blocked, "/api/moderation/block", "modUnblockName")];
    box.replaceChildren(title, ...(parts.length ? parts : [el("p", { class: "small", text: T("modListNone") })]));
  };
  fillIn();
  return box;
}
