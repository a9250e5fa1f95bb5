// The account page's players you muted or blocked (moderation), each with a way back.

import { el } from "./dom.js";
import { T } from "./i18n.js";
import { getJSON, postJSON } from "./net.js";
import { errorText } from "./refusals.js";

/** GET /api/moderation (community/schemas.py ModerationLists): whom this account muted and blocked.
 * @typedef {{ muted: { name: string }[], blocked: { name: string }[] }} ModerationLists */

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
