// The account page (/account): sign in or sign up (the seats this browser holds come
// along), and signed in: sign out, a new password, the account's data as a file, delete
// the account. The session is a cookie no script can read (HttpOnly): this page only asks
// the server who is signed in.

import { byId, el, fill, findId, keepInput } from "./dom.js";
import { T, addStrings, onLangChange } from "./i18n.js";
import { HttpError, allStoredSeats, forgetStoredSeats, getJSON, postJSON, storeSeats, url } from "./net.js";
import { initHeader } from "./header.js";
import { errorText, sentence } from "./refusals.js";
import { updateAccountLink, whoAmI } from "./account-link.js";
import { moderationSection } from "./account-mod.js";
import { profileLink } from "./profile-link.js";
import { MailSection, forgotForm, mailEnabled } from "./account-mail.js";
import { fillMyRating } from "./rated.js";

addStrings({
  en: {
    accountTitle: "Your account",
    accountWhy: "An account keeps your games: \"My games\" shows them on every device you sign in on. You can also play without an account: then each game is reached by its link.",
    accountName: "Name",
    accountPassword: "Password",
    accountPasswordHint: "at least 8 characters",
    signInTitle: "Sign in",
    signInButton: "Sign in",
    signUpTitle: "New here? Sign up",
    signUpButton: "Sign up",
    signUpKeeps: "The games this browser holds a seat in become your account's.",
    signedInAs: "Signed in as {name}",
    signOut: "Sign out",
    signOutEverywhere: "Sign out everywhere",
    signOutEverywhereWhy: "Also on every other device, and the seats your other devices opened close there.",
    signedOutForgot: "Signed out. This browser no longer keeps your account's seats; sign in to get them back.",
    signedOutEverywhere: "Signed out on every device.",
    myGamesLink: "My games",
    downloadData: "Download my data (JSON)",
    newPasswordTitle: "Change the password",
    currentPassword: "Current password",
    newPassword: "New password",
    newPasswordButton: "Change the password",
    newPasswordDone: "The password is changed; every other device is signed out.",
    deleteTitle: "Delete the account",
    deleteWhy: "Your games stay, without your name; their links keep working. This cannot be undone.",
    deleteButton: "Delete my account",
    deleteSure: "Delete the account {name} for good?",
    deleted: "The account is deleted.",
    broughtSeats: { one: "{n} seat of this browser now belongs to your account.", other: "{n} seats of this browser now belong to your account." },
    myProfile: "My profile",
    followingTitle: "You follow",
    followersTitle: "Your followers",
    followNobody: "Nobody yet: follow players from their profiles.",
    followedByNobody: "Nobody yet.",
    stopFollowing: "Stop following {name}",
  },
  de: {
    accountTitle: "Dein Konto",
    accountWhy: "Ein Konto behält deine Spiele: „Meine Spiele“ zeigt sie auf jedem Gerät, auf dem du angemeldet bist. Du kannst auch ohne Konto spielen: dann erreichst du jedes Spiel über seinen Link.",
    accountName: "Name",
    accountPassword: "Passwort",
    accountPasswordHint: "mindestens 8 Zeichen",
    signInTitle: "Anmelden",
    signInButton: "Anmelden",
    signUpTitle: "Neu hier? Registrieren",
    signUpButton: "Registrieren",
    signUpKeeps: "Die Spiele, in denen dieser Browser einen Platz hat, gehören dann deinem Konto.",
    signedInAs: "Angemeldet als {name}",
    signOut: "Abmelden",
    signOutEverywhere: "Überall abmelden",
    signOutEverywhereWhy: "Auch auf jedem anderen Gerät; die Plätze, die deine anderen Geräte geöffnet haben, schließen sich dort.",
    signedOutForgot: "Abgemeldet. Dieser Browser behält die Plätze deines Kontos nicht mehr; melde dich an, um sie wiederzubekommen.",
    signedOutEverywhere: "Auf allen Geräten abgemeldet.",
    myGamesLink: "Meine Spiele",
    downloadData: "Meine Daten herunterladen (JSON)",
    newPasswordTitle: "Passwort ändern",
    currentPassword: "Jetziges Passwort",
    newPassword: "Neues Passwort",
    newPasswordButton: "Passwort ändern",
    newPasswordDone: "Das Passwort ist geändert; alle anderen Geräte sind abgemeldet.",
    deleteTitle: "Konto löschen",
    deleteWhy: "Deine Spiele bleiben, ohne deinen Namen; ihre Links gelten weiter. Das lässt sich nicht rückgängig machen.",
    deleteButton: "Mein Konto löschen",
    deleteSure: "Das Konto {name} endgültig löschen?",
    deleted: "Das Konto ist gelöscht.",
    broughtSeats: { one: "{n} Platz dieses Browsers gehört jetzt deinem Konto.", other: "{n} Plätze dieses Browsers gehören jetzt deinem Konto." },
    myProfile: "Mein Profil",
    followingTitle: "Du folgst",
    followersTitle: "Dir folgen",
    followNobody: "Noch niemandem: folge Personen auf ihren Profilen.",
    followedByNobody: "Noch niemand.",
    stopFollowing: "{name} nicht mehr folgen",
  },
  da: {
    accountTitle: "Din konto",
    accountWhy: "En konto gemmer dine spil: \"Mine spil\" viser dem på alle enheder, hvor du logger ind. Du kan også spille uden konto: så når du hvert spil via dets link.",
    accountName: "Navn",
    accountPassword: "Adgangskode",
    accountPasswordHint: "mindst 8 tegn",
    signInTitle: "Log ind",
    signInButton: "Log ind",
    signUpTitle: "Ny her? Opret en konto",
    signUpButton: "Opret konto",
    signUpKeeps: "De spil, hvor denne browser har en plads, bliver din kontos.",
    signedInAs: "Logget ind som {name}",
    signOut: "Log ud",
    signOutEverywhere: "Log ud overalt",
    signOutEverywhereWhy: "Også på alle andre enheder, og de pladser, dine andre enheder har åbnet, lukkes dér.",
    signedOutForgot: "Logget ud. Denne browser husker ikke længere din kontos pladser; log ind for at få dem tilbage.",
    signedOutEverywhere: "Logget ud på alle enheder.",
    myGamesLink: "Mine spil",
    downloadData: "Hent mine data (JSON)",
    newPasswordTitle: "Skift adgangskoden",
    currentPassword: "Nuværende adgangskode",
    newPassword: "Ny adgangskode",
    newPasswordButton: "Skift adgangskoden",
    newPasswordDone: "Adgangskoden er skiftet; alle andre enheder er logget ud.",
    deleteTitle: "Slet kontoen",
    deleteWhy: "Dine spil bliver, uden dit navn; deres links virker fortsat. Det kan ikke fortrydes.",
    deleteButton: "Slet min konto",
    deleteSure: "Slet kontoen {name} for altid?",
    deleted: "Kontoen er slettet.",
    broughtSeats: { one: "{n} plads i denne browser tilhører nu din konto.", other: "{n} pladser i denne browser tilhører nu din konto." },
    myProfile: "Min profil",
    followingTitle: "Du følger",
    followersTitle: "Dine følgere",
    followNobody: "Ingen endnu: følg spillere fra deres profiler.",
    followedByNobody: "Ingen endnu.",
    stopFollowing: "Stop med at følge {name}",
  },
});

/** The seats this browser holds, as the server takes them: {game: {seat: token}}. */
function held() {
  /** @type {Record<string, import("./net.js").Seats>} */
  const out = {};
  for (const g of allStoredSeats().slice(0, 200)) out[g.game] = g.seats;
  return out;
}

/** A labelled field of a form (`hint`: said after the label).
 * @param {string} id @param {string} label @param {"text" | "password"} type @param {string} autocomplete @param {string} [hint] */
function field(id, label, type, autocomplete, hint) {
  return el("label", { for: id }, el("span", { text: label + (hint ? ` (${hint})` : "") }),
    el("input", { id, name: id, type, autocomplete, required: true, maxlength: type === "password" ? 256 : 24, minlength: type === "password" && autocomplete === "new-password" ? 8 : null }));
}

/** Bring a note said in a form into sight together with its form (the fields it names, the
 * button just pressed), scrolling no more than needed; a form taller than the screen: the
 * note in the middle of it (never at an edge).
 * @param {HTMLElement} note */
function inSight(note) {
  const form = note.parentElement;
  if (form && form.getBoundingClientRect().height <= innerHeight) form.scrollIntoView({ block: "nearest" });
  else note.scrollIntoView({ block: "center" });
}

/** The account's followings (community/schemas.py FollowLists).
 * @typedef {{ following: { name: string, since: number }[], followers: { name: string, since: number }[] }} FollowLists */

class AccountPage {
  constructor() {
    /** @type {{ id: number, name: string, created: number } | null} the signed-in account */
    this.me = null;
    /** what the page says, shown in the form it answers (`at`: its id; null: above the
     * forms) and naming the fields it refuses
     * @type {{ kind: "good" | "bad", text: string, at?: string | null, fields?: string[] } | null} */
    this.note = null;
    /** @type {FollowLists | null} of the account */
    this.follows = null;
    this.mail = new MailSection(this); // e-mail (account-mail.js)
    this.mailOn = false;
    /** @type {HTMLElement | null} the muted and blocked players' section (account-mod.js) */
    this.modBox = null;
    /** @type {HTMLElement | null} the account's rating section (rated.js) */
    this.rating = null;
  }

  async start() {
    initHeader(() => T("accountWhy"));
    onLangChange(() => { this.modBox = null; this.rating = null; this.render(); });
    this.me = await whoAmI();
    this.mailOn = await mailEnabled();
    this.render();
    if (this.me) this.mail.load();
    else this.toSignUp();
    this.loadFollows();
  }

  /** Come by "Sign up" (/account#signup): to the sign-up form, its name field ready. */
  toSignUp() {
    if (!new URLSearchParams(location.hash.slice(1)).has("signup")) return;
    byId("signup-form").scrollIntoView({ block: "start" });
    byId("signup-name").focus({ preventScroll: true });
  }

  async loadFollows() {
    if (!this.me) { this.follows = null; return; }
    try { this.follows = await getJSON("/api/account/follows"); } catch (e) { this.follows = null; }
    this.render();
  }

  /** Whom the account follows (each to stop following) and who follows it, linked to their profiles. */
  followLists() {
    if (!this.follows) return null;
    const { following, followers } = this.follows;
    /** @param {{ name: string }} f */
    const stop = (f) => el("button", { type: "button", "data-unfollow": f.name, "aria-label": T("stopFollowing", { name: f.name }),
      onclick: () => this.send("/api/account/follow", { name: f.name, follow: false }, () => this.loadFollows(), "follows") }, "×");
    return el("div", { class: "follow-lists" },
      el("section", { "aria-labelledby": "following-title" }, el("h2", { id: "following-title", text: T("followingTitle") }),
        following.length ? el("ul", { id: "following-list", class: "follow-list" }, ...following.map((f) => el("li", {}, profileLink(f.name), " ", stop(f))))
          : el("p", { class: "small", text: T("followNobody") })),
      el("section", { "aria-labelledby": "followers-title" }, el("h2", { id: "followers-title", text: T("followersTitle") }),
        followers.length ? el("ul", { id: "followers-list", class: "follow-list" }, ...followers.map((f) => el("li", {}, profileLink(f.name))))
          : el("p", { class: "small", text: T("followedByNobody") })), this.noteAt("follows"));
  }

  /** Say something in the form `at` (its id; null: above the forms), where the reader
   * looks after sending it; a refusal names the fields it refuses (`fields`: their ids).
   * Done: the forms start empty again. Refused: everything typed stays, passwords too
   * (the reader mends a typo instead of typing it all again; the page is theirs). */
  /** @param {"good" | "bad"} kind @param {string} text @param {string | null} [at] @param {string[]} [fields] */
  say(kind, text, at = null, fields = []) {
    this.note = { kind, text: sentence(text), at, fields };
    this.render(kind === "good" ? { values: false } : {});
    const shown = findId("account-note");
    if (shown && at) inSight(shown);
  }

  /** Post to the server; refused: said in the form `at`, marking the fields `fields`
   * names (a list of ids, or ids by the refusal's code). */
  /** @param {string} path @param {object} body @param {(r: any) => unknown} done @param {string | null} [at]
   * @param {string[] | Record<string, string[]>} [fields] the fields a refusal names (by its code) */
  async send(path, body, done, at = null, fields = []) {
    try {
      const r = await postJSON(path, body);
      await done(r);
    } catch (e) {
      const named = Array.isArray(fields) ? fields : (e instanceof HttpError && fields[e.error.code]) || [];
      this.say("bad", errorText(e), at, named);
    }
  }

  /** The note, if it belongs at `at` (a form's id; null: above the forms).
   * @param {string | null} at */
  noteAt(at) {
    const n = this.note;
    if (!n || (n.at || null) !== at) return null;
    return el("p", { class: `${n.kind} account-note`, role: n.kind === "bad" ? "alert" : "status", id: "account-note", text: n.text });
  }

  /** The fields a refusal names: invalid, described by it (until the reader changes them). */
  markRefused() {
    const note = this.note;
    if (!note || note.kind !== "bad") return;
    for (const id of note.fields || []) {
      const f = findId(id);
      if (!f) continue;
      f.setAttribute("aria-invalid", "true");
      f.setAttribute("aria-describedby", "account-note");
      f.addEventListener("input", () => {
        f.removeAttribute("aria-invalid");
        f.removeAttribute("aria-describedby");
        note.fields = (note.fields || []).filter((x) => x !== id);
      }, { once: true });
    }
  }

  /** Draw the page again, keeping the focus and what the reader was typing while answers
   * arrive (the follows, the mail settings) or the language changes; `values: false` once a
   * thing is done (its form starts empty again). */
  render({ values = true, passwords = true } = {}) {
    const box = byId("account");
    keepInput(box, () => this.draw(box), { values, passwords });
    this.markRefused();
  }

  /** @param {HTMLElement} box */
  draw(box) {
    document.title = `Kardinal & König — ${T("accountTitle")}`;
    const note = this.noteAt(null);
    if (!this.me) {
      fill(box, el("div", { class: "account-box" }, el("h1", { text: T("accountTitle") }), el("p", { class: "small", text: T("accountWhy") }), note,
        this.form("signin", T("signInTitle"), [field("signin-name", T("accountName"), "text", "username"), field("signin-password", T("accountPassword"), "password", "current-password")], T("signInButton"),
          () => this.signIn("signin", "/api/account/signin", ["signin-name", "signin-password"])),
        forgotForm(this, this.mailOn),
        this.form("signup", T("signUpTitle"), [field("signup-name", T("accountName"), "text", "username"), field("signup-password", T("accountPassword"), "password", "new-password", T("accountPasswordHint")),
          el("p", { class: "small", text: T("signUpKeeps") })], T("signUpButton"), () => this.signIn("signup", "/api/account/signup",
          { account_name_taken: ["signup-name"], bad_name: ["signup-name"], bad_password: ["signup-password"] }))));
      return;
    }
    const me = this.me;
    fill(box, el("div", { class: "account-box" }, el("h1", { text: T("accountTitle") }), note,
      el("p", { id: "signed-in-as", text: T("signedInAs", { name: me.name }) }),
      this.ratingBox(),
      el("div", { class: "account-actions" },
        el("a", { class: "btn", id: "account-mine", href: url("/mine") }, T("myGamesLink")),
        el("a", { class: "btn", id: "account-profile", href: url(`/player/${encodeURIComponent(me.name)}`) }, T("myProfile")),
        el("a", { class: "btn", id: "account-data", href: url("/api/account/data"), download: `kardinal-account-${me.id}.json` }, T("downloadData")),
        el("button", { type: "button", id: "sign-out", onclick: () => this.signOut(false) }, T("signOut")),
        el("button", { type: "button", id: "sign-out-everywhere", title: T("signOutEverywhereWhy"), onclick: () => this.signOut(true) }, T("signOutEverywhere")),
        this.noteAt("actions")),
      this.followLists(),
      this.mail.render(),
      this.form("password", T("newPasswordTitle"), [field("current-password", T("currentPassword"), "password", "current-password"), field("new-password", T("newPassword"), "password", "new-password", T("accountPasswordHint"))],
        T("newPasswordButton"), () => this.send("/api/account/password", { current: byId("current-password", HTMLInputElement).value, new: byId("new-password", HTMLInputElement).value },
          () => this.say("good", T("newPasswordDone"), "password"), "password", { wrong_password: ["current-password"], bad_password: ["new-password"] })),
      this.form("delete", T("deleteTitle"), [el("p", { class: "small", text: T("deleteWhy") }), field("delete-password", T("accountPassword"), "password", "current-password")], T("deleteButton"), () => {
        if (!confirm(T("deleteSure", { name: me.name }))) return;
        this.send("/api/account/delete", { password: byId("delete-password", HTMLInputElement).value }, () => this.signedOut(T("deleted")), "delete", ["delete-password"]);
      }, "danger")));
    // the muted and blocked players: asked for once, not at every drawing (the page below
    // them would move while a reader looks at it)
    this.modBox = this.modBox || moderationSection();
    byId("delete-form").before(this.modBox); // in the account box, above the delete form
  }

  /** The account's rating and rated games (rated.js), filled when the server answers:
   * asked for once, not at every drawing (empty again until the answer, it moved the forms
   * below it up and down under a reader who had just sent one of them). */
  ratingBox() {
    if (!this.rating) {
      this.rating = el("section", { id: "my-rating", class: "my-rating-box" });
      fillMyRating(this.rating);
    }
    return this.rating;
  }

  /** A form `${id}-form` with its fields, its button and its note; `kind`: the button's class ("danger").
   * @param {string} id @param {string} title @param {(Node | string | null)[]} fields @param {string} button
   * @param {() => void} submit @param {string} [kind] */
  form(id, title, fields, button, submit, kind) {
    const f = el("form", { class: "account-form", id: `${id}-form` }, el("h2", { text: title }), ...fields,
      el("button", { type: "submit", id: `${id}-button`, class: kind || null }, button), this.noteAt(id));
    f.addEventListener("submit", (ev) => { ev.preventDefault(); submit(); });
    return f;
  }

  /** Sign in or up (`which`: the form), bringing this browser's seats along.
   * @param {"signin" | "signup"} which @param {string} path @param {string[] | Record<string, string[]>} fields the fields a refusal names */
  async signIn(which, path, fields) {
    const name = byId(`${which}-name`, HTMLInputElement).value;
    await this.send(path, { name, password: byId(`${which}-password`, HTMLInputElement).value, held: held() }, async (r) => {
      this.me = r.account;
      // the seats brought along that became the account's now: their new tokens (those of before end)
      for (const [game, tokens] of Object.entries(r.tokens || {})) storeSeats(game, tokens);
      whoAmI(true);
      await updateAccountLink();
      this.note = r.brought ? { kind: "good", text: T("broughtSeats", { n: r.brought }) } : null;
      // come from a mailed link that needs the account (/mail#open=...): back to it
      const next = new URLSearchParams(location.hash.slice(1)).get("next");
      if (next && next.startsWith("/mail#") && !next.startsWith("//")) { location.href = url(next); return; }
      this.render({ values: false });
      this.loadFollows();
      this.mail.load();
    }, which, fields);
  }

  // Signing out, this browser forgets the seats of the account's games (a shared computer
  // keeps no way into them); signing in again brings them back through "My games".
  /** @param {boolean} everywhere every device's session, not only this browser's */
  async signOut(everywhere) {
    /** @type {{ game: { id: string } }[]} GET /api/account/games (MyGames), as far as read here */
    let games = [];
    try { games = (await getJSON("/api/account/games")).games || []; } catch (e) { /* signed out already: nothing to forget */ }
    await this.send("/api/account/signout", everywhere ? { everywhere: true } : {}, () => {
      for (const g of games) forgetStoredSeats(g.game.id);
      return this.signedOut(T(everywhere ? "signedOutEverywhere" : "signedOutForgot"));
    }, "actions");
  }

  /** @param {string} [text] what the page says once signed out */
  async signedOut(text) {
    this.me = null;
    this.mail.status = null;
    this.modBox = null;
    this.rating = null;
    whoAmI(true);
    await updateAccountLink();
    this.note = text ? { kind: "good", text } : null;
    this.render({ values: false });
  }
}

new AccountPage().start();
