// E-mail on the account page (/account) and the page mailed links open (/mail): the
// account's address (confirmed by a link), which mails it wants, "Forgot the password?".
// A server without mail settings says so here, and nothing else changes.

import { byId, el } from "./dom.js";
import { T, lang } from "./i18n.js";
import { HttpError, getJSON, postJSON } from "./net.js";
import { errorText } from "./refusals.js";

/** The mails an account may want (mail/schemas.py NotifyWishes).
 * @typedef {{ turn: boolean, invitation: boolean, end: boolean }} NotifyWishes */
/** GET /api/account/email (mail/schemas.py MailStatus): the account's address, whether it is
 * confirmed, which mails it wants; `enabled`: whether this server sends mail.
 * @typedef {{ enabled: boolean, email: string | null, confirmed: boolean, notify: NotifyWishes }} MailStatus */
/**
 * What the sections here need of the account page (account.js AccountPage): draw it again,
 * a form, a note said in a form (`at`: its id; `fields`: the ids of the fields it refuses).
 * @typedef {object} MailPage
 * @property {() => void} render
 * @property {(id: string, title: string, fields: (Node | string | null)[], button: string, submit: () => void, kind?: string) => HTMLFormElement} form
 * @property {(kind: "good" | "bad", text: string, at?: string | null, fields?: string[]) => void} say
 * @property {(at: string | null) => HTMLElement | null} noteAt
 */

/** The browser's time zone ("Europe/Berlin"; "" if it has none): the times in its mails. */
function timeZone() {
  try {
    return Intl.DateTimeFormat().resolvedOptions().timeZone || "";
  } catch {
    return "";
  }
}

/** Whether this server sends mail (asked once a page).
 * @type {Promise<boolean> | null} */
let mailOn = null;
export function mailEnabled() {
  if (mailOn === null) mailOn = getJSON("/api/mail").then((r) => r.enabled).catch(() => false);
  return mailOn;
}

/** The account page's e-mail section (signed in): `page` is the AccountPage (form(), say()). */
export class MailSection {
  /** @param {MailPage} page */
  constructor(page) {
    this.page = page;
    /** @type {MailStatus | null} */
    this.status = null;
  }

  async load() {
    try { this.status = await getJSON("/api/account/email"); } catch (e) { this.status = null; }
    this.page.render();
  }

  render() {
    const st = this.status;
    if (!st) return null;
    if (!st.enabled) {
      return el("section", { class: "account-form mail-off", id: "mail-section", "aria-disabled": "true" },
        el("h2", { text: T("mailTitle") }), el("p", { id: "mail-off", class: "small", text: T("mailOff") }));
    }
    const state = st.email ? el("p", { id: "mail-state", class: st.confirmed ? "good" : "small" },
      T(st.confirmed ? "mailConfirmed" : "mailWaiting", { email: st.email })) : null;
    const address = el("input", { id: "mail-address", name: "email", type: "email", autocomplete: "email", maxlength: 254, required: true, value: st.email || "" });
    const form = this.page.form("mail", T("mailTitle"), [
      el("p", { class: "small", text: T("mailWhy") }), state,
      el("label", { for: "mail-address" }, el("span", { text: T("mailAddress") }), address),
      el("label", { for: "mail-password" }, el("span", { text: T("mailPasswordToo") }),
        el("input", { id: "mail-password", name: "mail-password", type: "password", autocomplete: "current-password", required: true, maxlength: 256 })),
    ], T("mailSave"), () => this.save(byId("mail-address", HTMLInputElement).value));
    if (st.email) {
      form.append(el("button", { type: "button", id: "mail-remove", onclick: () => this.save("") }, T("mailRemove")));
    }
    /** @type {[keyof NotifyWishes, string][]} each mail and its words' key */
    const kinds = [["turn", "mailWantTurn"], ["invitation", "mailWantInvitation"], ["end", "mailWantEnd"]];
    const wants = st.confirmed
      ? el("fieldset", { class: "account-form mail-wants", id: "mail-wants" }, el("legend", { text: T("mailWant") }),
        ...kinds.map(([k, label]) => {
          const box = el("input", { type: "checkbox", id: `mail-want-${k}`, checked: st.notify[k] ? true : null });
          box.addEventListener("change", () => this.want(k, box.checked));
          return el("label", { class: "check", for: `mail-want-${k}` }, box, el("span", { text: T(label) }));
        }), this.page.noteAt("mail-wants"))
      : el("p", { class: "small", id: "mail-want-first", text: T("mailWantFirst") });
    return el("section", { id: "mail-section" }, form, wants);
  }

  /** @param {string} email the new address ("": none) */
  async save(email) {
    const password = byId("mail-password", HTMLInputElement).value;
    if (!password) { byId("mail-password", HTMLInputElement).reportValidity(); return; }
    try {
      this.status = await postJSON("/api/account/email", { email, password, lang: lang(), tz: timeZone() });
      this.page.say("good", email ? T("mailSent", { email }) : T("mailRemoved"), "mail");
    } catch (e) {
      this.page.say("bad", errorText(e), "mail", e instanceof HttpError && e.error.code === "wrong_password" ? ["mail-password"] : ["mail-address"]);
    }
  }

  /** @param {keyof NotifyWishes} kind @param {boolean} on */
  async want(kind, on) {
    try {
      this.status = await postJSON("/api/account/notify", { [kind]: on });
      this.page.say("good", T("mailSaved"), "mail-wants");
    } catch (e) {
      this.page.say("bad", errorText(e), "mail-wants", [`mail-want-${kind}`]);
    }
  }
}

/** "Forgot the password?" (signed out): the same answer whatever the name or address.
 * @param {MailPage} page @param {boolean} enabled whether this server sends mail */
export function forgotForm(page, enabled) {
  const box = el("details", { class: "account-form forgot", id: "forgot" }, el("summary", { id: "forgot-open", text: T("forgotTitle") }));
  if (!enabled) {
    box.append(el("p", { class: "small", id: "forgot-off", text: T("forgotOff") }));
    return box;
  }
  const f = page.form("forgot", T("forgotTitle"), [
    el("label", { for: "forgot-who" }, el("span", { text: T("forgotWho") }),
      el("input", { id: "forgot-who", name: "forgot-who", type: "text", autocomplete: "username", required: true, maxlength: 254 })),
  ], T("forgotButton"), async () => {
    try {
      await postJSON("/api/mail/forgot", { who: byId("forgot-who", HTMLInputElement).value });
      page.say("good", T("forgotSent"), "forgot");
    } catch (e) {
      page.say("bad", errorText(e), "forgot", ["forgot-who"]);
    }
  });
  box.append(f);
  return box;
}
