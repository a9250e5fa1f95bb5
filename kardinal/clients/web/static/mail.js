// The page mailed links open (/mail): confirm an address, set a new password, stop a kind
// of mail, open one's seat of a game. The link's token is in the URL's fragment (#...),
// which the browser never sends: this page reads it, takes it out of the address bar, and
// posts it. A seat is never in a mail: signed in, the session gets the seat's token
// (/api/account/seat, as "My games" does); not signed in, the page asks to sign in first
// and comes back here.

import { byId, el, fill } from "./dom.js";
import { T, addStrings, onLangChange } from "./i18n.js";
import { HttpError, postJSON, storeSeats, storedSeats, url } from "./net.js";
import { initHeader } from "./header.js";
import { refusalText } from "./refusals.js";
import { whoAmI, updateAccountLink } from "./account-link.js";
import "./account-mail.js"; // the refusals' words of mail (err.bad_mail_link, ...)

addStrings({
  en: {
    mailPageTitle: "Mail",
    mailPageWhy: "This page opens the links Kardinal & König mails you.",
    mailNoLink: "This page opens the links in our mails; this address holds none.",
    confirmTitle: "Confirm your address",
    confirming: "Confirming…",
    confirmDone: "Your address is confirmed. Choose which mails you want on your account page.",
    resetTitle: "A new password",
    resetButton: "Set the new password",
    resetDone: "Your new password is set: every device is signed out, and this browser is signed in.",
    unsubTitle: "No more of these mails",
    unsubAsk: "Stop the mails about: {what}?",
    unsubButton: "Stop these mails",
    unsubDone: "Done: no more mails about “{what}”. Your account page turns them on again.",
    unsub_turn: "your turn", unsub_invitation: "invitations", unsub_end: "a game's end",
    openTitle: "Your seat",
    opening: "Opening your seat…",
    openSignIn: "Sign in to open your seat: a mailed link holds no seat, your account does.",
    openSignInButton: "Sign in",
    openNotYours: "This seat does not belong to the account you are signed in to. The game:",
    toAccount: "Your account",
    toGame: "Open the game",
    toMine: "My games",
    resetNew: "New password (at least 8 characters)",
  },
  de: {
    mailPageTitle: "Mail",
    mailPageWhy: "Diese Seite öffnet die Links, die dir Kardinal & König mailt.",
    mailNoLink: "Diese Seite öffnet die Links aus unseren Mails; diese Adresse enthält keinen.",
    confirmTitle: "Adresse bestätigen",
    confirming: "Wird bestätigt …",
    confirmDone: "Deine Adresse ist bestätigt. Auf deiner Kontoseite wählst du, welche Mails du willst.",
    resetTitle: "Ein neues Passwort",
    resetButton: "Neues Passwort setzen",
    resetDone: "Dein neues Passwort gilt: alle Geräte sind abgemeldet, und dieser Browser ist angemeldet.",
    unsubTitle: "Keine solchen Mails mehr",
    unsubAsk: "Keine Mails mehr über: {what}?",
    unsubButton: "Diese Mails abbestellen",
    unsubDone: "Erledigt: keine Mails mehr über „{what}“. Auf deiner Kontoseite schaltest du sie wieder ein.",
    unsub_turn: "du bist dran", unsub_invitation: "Einladungen", unsub_end: "Spielende",
    openTitle: "Dein Platz",
    opening: "Dein Platz wird geöffnet …",
    openSignIn: "Melde dich an, um deinen Platz zu öffnen: ein gemailter Link enthält keinen Platz, dein Konto schon.",
    openSignInButton: "Anmelden",
    openNotYours: "Dieser Platz gehört nicht zu dem Konto, mit dem du angemeldet bist. Das Spiel:",
    toAccount: "Dein Konto",
    toGame: "Spiel öffnen",
    toMine: "Meine Spiele",
    resetNew: "Neues Passwort (mindestens 8 Zeichen)",
  },
  da: {
    mailPageTitle: "Mail",
    mailPageWhy: "Denne side åbner de links, Kardinal & König mailer dig.",
    mailNoLink: "Denne side åbner linkene i vores mails; denne adresse indeholder intet.",
    confirmTitle: "Bekræft din adresse",
    confirming: "Bekræfter…",
    confirmDone: "Din adresse er bekræftet. Vælg på din kontoside, hvilke mails du vil have.",
    resetTitle: "En ny adgangskode",
    resetButton: "Vælg den nye adgangskode",
    resetDone: "Din nye adgangskode er valgt: alle enheder er logget ud, og denne browser er logget ind.",
    unsubTitle: "Ikke flere af disse mails",
    unsubAsk: "Stop mails om: {what}?",
    unsubButton: "Stop disse mails",
    unsubDone: "Færdig: ikke flere mails om “{what}”. Din kontoside slår dem til igen.",
    unsub_turn: "din tur",
    unsub_invitation: "invitationer",
    unsub_end: "et spils afslutning",
    openTitle: "Din plads",
    opening: "Åbner din plads…",
    openSignIn: "Log ind for at åbne din plads: et mailet link rummer ingen plads, det gør din konto.",
    openSignInButton: "Log ind",
    openNotYours: "Denne plads tilhører ikke den konto, du er logget ind på. Spillet:",
    toAccount: "Din konto",
    toGame: "Åbn spillet",
    toMine: "Mine spil",
    resetNew: "Ny adgangskode (mindst 8 tegn)",
  },
});

/** The words of a failed request: the server's refusal, else the error's own message.
 * @param {unknown} e @returns {string} */
function failureText(e) {
  // a token of the wrong form is refused as a seat's would be (bad_token): here it is a mail's link
  if (e instanceof HttpError) return refusalText(e.error.code === "bad_token" ? { ...e.error, code: "bad_mail_link" } : e.error, null);
  return e instanceof Error ? e.message : String(e);
}

class MailPage {
  constructor() {
    const h = new URLSearchParams(location.hash.slice(1));
    this.what = ["confirm", "reset", "unsubscribe", "open"].find((k) => h.has(k)) || null;
    this.value = this.what ? h.get(this.what) : null;
    /** @type {{ kind: "good" | "bad", text: string } | null} the page's last word */
    this.note = null;
    this.done = false;
    /** @type {HTMLElement | null} a link under the note (sign in, the game) */
    this.extra = null;
    // the token leaves the address bar (and the history) at once
    if (this.what && this.what !== "open") history.replaceState(null, "", location.pathname + location.search);
  }

  async start() {
    initHeader(() => T("mailPageWhy"));
    onLangChange(() => this.render());
    this.render();
    if (this.what === "confirm") await this.post("/api/mail/confirm", { token: this.value }, "confirmDone");
    if (this.what === "open") await this.open();
  }

  /** @param {"good" | "bad"} kind @param {string} text */
  say(kind, text) {
    this.note = { kind, text: text ? text.charAt(0).toUpperCase() + text.slice(1) : text };
    this.render();
  }

  /** Post `body` to `path`; done: say T(doneKey, vars), else the refusal.
   * @param {string} path @param {Record<string, unknown>} body @param {string} doneKey
   * @param {Record<string, unknown>} [vars] */
  async post(path, body, doneKey, vars) {
    try {
      await postJSON(path, body);
      this.done = true;
      this.say("good", T(doneKey, vars));
    } catch (e) {
      this.say("bad", failureText(e));
    }
  }

  render() {
    document.title = `Kardinal & König — ${T("mailPageTitle")}`;
    const box = byId("mail");
    const note = this.note ? el("p", { class: this.note.kind, role: this.note.kind === "bad" ? "alert" : "status", id: "mail-note", text: this.note.text }) : null;
    const account = el("p", {}, el("a", { class: "btn", id: "to-account", href: url("/account") }, T("toAccount")));
    let body;
    if (this.what === "confirm") {
      body = [el("h1", { text: T("confirmTitle") }), note || el("p", { text: T("confirming") }), this.done ? account : null];
    } else if (this.what === "reset") {
      const f = el("form", { class: "account-form", id: "reset-form" },
        el("label", { for: "reset-password" }, el("span", { text: T("resetNew") }),
          el("input", { id: "reset-password", name: "new-password", type: "password", autocomplete: "new-password", required: true, minlength: 8, maxlength: 256 })),
        el("button", { type: "submit", id: "reset-button" }, T("resetButton")));
      f.addEventListener("submit", (ev) => {
        ev.preventDefault();
        this.post("/api/mail/reset", { token: this.value, password: byId("reset-password", HTMLInputElement).value }, "resetDone").then(() => { if (this.done) { whoAmI(true); updateAccountLink(); } });
      });
      body = [el("h1", { text: T("resetTitle") }), note, this.done ? el("p", {}, el("a", { class: "btn", id: "to-mine", href: url("/mine") }, T("toMine"))) : f];
    } else if (this.what === "unsubscribe") {
      const kind = (this.value || "").split(".")[1];
      const what = T(`unsub_${kind}`);
      body = [el("h1", { text: T("unsubTitle") }), note,
        this.done ? account : el("p", {}, el("span", { text: T("unsubAsk", { what }) + " " }),
          el("button", { type: "button", id: "unsub-button", onclick: () => this.post("/api/mail/unsubscribe", { token: this.value }, "unsubDone", { what }) }, T("unsubButton")))];
    } else if (this.what === "open") {
      body = [el("h1", { text: T("openTitle") }), note || el("p", { text: T("opening") }), this.extra || null];
    } else {
      body = [el("h1", { text: T("mailPageTitle") }), el("p", { text: T("mailNoLink") })];
    }
    fill(box, el("div", { class: "account-box" }, ...body));
  }

  /** Open the seat: this browser's own token if it holds one, else one through the session. */
  async open() {
    const value = this.value || "";
    const dot = value.lastIndexOf(".");
    const game = value.slice(0, dot);
    const seat = Number(value.slice(dot + 1));
    const gameUrl = url(`/game/${encodeURIComponent(game)}`);
    if (!game || !Number.isInteger(seat)) { this.what = null; this.render(); return; }
    if ((storedSeats(game) || {})[seat]) { location.replace(gameUrl); return; }
    const me = await whoAmI();
    if (!me) {
      const next = encodeURIComponent(`/mail#open=${game}.${seat}`);
      this.extra = el("p", {}, el("a", { class: "btn", id: "open-sign-in", href: url(`/account#next=${next}`) }, T("openSignInButton")));
      this.say("good", T("openSignIn"));
      return;
    }
    try {
      const r = await postJSON("/api/account/seat", { game, seat });
      storeSeats(game, { [seat]: r.token });
      location.replace(gameUrl);
    } catch (e) {
      this.extra = el("p", {}, el("a", { class: "btn", id: "open-game", href: gameUrl }, T("toGame")));
      this.say("bad", e instanceof HttpError && e.error.code === "not_your_seat" ? T("openNotYours") : failureText(e));
    }
  }
}

new MailPage().start();
