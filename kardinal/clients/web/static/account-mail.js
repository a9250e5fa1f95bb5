// E-mail on the account page (/account) and the page mailed links open (/mail): the
// account's address (confirmed by a link), which mails it wants, "Forgot the password?".
// A server without mail settings says so here, and nothing else changes.

import { byId, el } from "./dom.js";
import { T, addStrings, lang } from "./i18n.js";
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

addStrings({
  en: {
    mailTitle: "E-mail",
    mailOff: "E-mail is off on this server: its operator has not set up a mail server. Nothing is mailed, and a forgotten password is reset by the operator.",
    mailWhy: "An address lets you set a new password if you forget yours, and brings the mails you choose below. It is shown to nobody else.",
    mailAddress: "Mail address",
    mailPasswordToo: "Your password (to change the address)",
    mailSave: "Save the address",
    mailRemove: "Remove the address",
    mailConfirmed: "{email} — confirmed",
    mailWaiting: "{email} — waiting: open the link we mailed to it (valid for a day). Saving it again sends a new link.",
    mailSent: "A link to confirm the address is on its way to {email}. Until it is opened, nothing else is mailed there.",
    mailRemoved: "The address is removed; nothing is mailed any more.",
    mailWant: "Mail me when",
    mailWantTurn: "it is my turn in a turn-based game (once a game, until I have moved)",
    mailWantInvitation: "someone invites me to a game",
    mailWantEnd: "a game of mine is over (with its result)",
    mailWantFirst: "Confirm your address first; then choose which mails you want here.",
    mailSaved: "Saved.",
    forgotTitle: "Forgot the password?",
    forgotWho: "Your name or your mail address",
    forgotButton: "Mail me a link",
    forgotSent: "If an account has this name or confirmed address, a link to set a new password is on its way to it. It works once, for 30 minutes. While a link mailed before still works, no new one is sent: use that mail.",
    forgotOff: "E-mail is off on this server: ask its operator to reset your password.",
  },
  de: {
    mailTitle: "E-Mail",
    mailOff: "E-Mail ist auf diesem Server aus: sein Betreiber hat keinen Mailserver eingerichtet. Es wird nichts gemailt, und ein vergessenes Passwort setzt der Betreiber zurück.",
    mailWhy: "Mit einer Adresse kannst du ein neues Passwort setzen, wenn du deines vergisst, und bekommst die Mails, die du unten wählst. Niemand sonst sieht sie.",
    mailAddress: "Mailadresse",
    mailPasswordToo: "Dein Passwort (um die Adresse zu ändern)",
    mailSave: "Adresse speichern",
    mailRemove: "Adresse entfernen",
    mailConfirmed: "{email} — bestätigt",
    mailWaiting: "{email} — wartet: öffne den Link, den wir dorthin gemailt haben (einen Tag gültig). Nochmal speichern schickt einen neuen Link.",
    mailSent: "Ein Link zum Bestätigen der Adresse ist an {email} unterwegs. Bis er geöffnet ist, geht nichts anderes dorthin.",
    mailRemoved: "Die Adresse ist entfernt; es wird nichts mehr gemailt.",
    mailWant: "Schreib mir, wenn",
    mailWantTurn: "ich in einem rundenbasierten Spiel dran bin (einmal je Spiel, bis ich gezogen habe)",
    mailWantInvitation: "mich jemand zu einem Spiel einlädt",
    mailWantEnd: "ein Spiel von mir beendet ist (mit dem Ergebnis)",
    mailWantFirst: "Bestätige zuerst deine Adresse; dann wählst du hier, welche Mails du willst.",
    mailSaved: "Gespeichert.",
    forgotTitle: "Passwort vergessen?",
    forgotWho: "Dein Name oder deine Mailadresse",
    forgotButton: "Link mailen",
    forgotSent: "Wenn ein Konto diesen Namen oder diese bestätigte Adresse hat, ist ein Link für ein neues Passwort dorthin unterwegs. Er gilt einmal, 30 Minuten lang. Solange ein früher gemailter Link noch gilt, kommt kein neuer: nimm diese Mail.",
    forgotOff: "E-Mail ist auf diesem Server aus: bitte seinen Betreiber, dein Passwort zurückzusetzen.",
  },
  da: {
    mailTitle: "E-mail",
    mailOff: "E-mail er slået fra på denne server: operatøren har ikke sat en mailserver op. Der sendes ingen mails, og en glemt adgangskode nulstilles af operatøren.",
    mailWhy: "Med en adresse kan du vælge en ny adgangskode, hvis du glemmer din, og du får de mails, du vælger nedenfor. Ingen andre kan se den.",
    mailAddress: "Mailadresse",
    mailPasswordToo: "Din adgangskode (for at ændre adressen)",
    mailSave: "Gem adressen",
    mailRemove: "Fjern adressen",
    mailConfirmed: "{email} — bekræftet",
    mailWaiting: "{email} — venter: åbn linket, vi har mailet dertil (gyldigt i et døgn). Gemmer du den igen, sendes et nyt link.",
    mailSent: "Et link til at bekræfte adressen er på vej til {email}. Indtil det er åbnet, sendes der ikke andet dertil.",
    mailRemoved: "Adressen er fjernet; der sendes ikke flere mails.",
    mailWant: "Mail mig, når",
    mailWantTurn: "det er min tur i et turbaseret spil (én gang pr. spil, indtil jeg har trukket)",
    mailWantInvitation: "nogen inviterer mig til et spil",
    mailWantEnd: "et af mine spil er slut (med resultatet)",
    mailWantFirst: "Bekræft først din adresse; vælg derefter her, hvilke mails du vil have.",
    mailSaved: "Gemt.",
    forgotTitle: "Glemt adgangskoden?",
    forgotWho: "Dit navn eller din mailadresse",
    forgotButton: "Mail mig et link",
    forgotSent: "Hvis en konto har dette navn eller denne bekræftede adresse, er et link til at vælge en ny adgangskode på vej dertil. Det virker én gang, i 30 minutter. Så længe et tidligere mailet link stadig virker, sendes der ikke et nyt: brug den mail.",
    forgotOff: "E-mail er slået fra på denne server: bed operatøren om at nulstille din adgangskode.",
  },
});

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
