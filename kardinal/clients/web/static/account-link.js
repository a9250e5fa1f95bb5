// The header's account link: "Sign in" for a guest, the account's name when signed in
// (the pages that have an element #account-link), and beside it for a guest "Sign up",
// straight to the sign-up form (the pages that have #signup-link: the home page). whoAmI() is shared by the pages that
// need the account too (My games, the account page): one request per page.
// A session of a suspended account opens nothing, and the server says why (a refusal
// "suspended": until when, the operator's reason, whom to ask): every page that loads this
// module (the game page too) says so below its header, in the words of the sign-in's refusal.

import { T, addStrings, onLangChange } from "./i18n.js";
import { getJSON, postJSON } from "./net.js";
import { refusalText } from "./refusals.js";
/** @import { ErrorData } from "./messages.js" */

addStrings({
  en: { signInLink: "Sign in", accountLinkWhy: "Your account: sign in, sign up, sign out, password, your data", signUpLink: "Sign up", signUpLinkWhy: "Make an account: your games on every device, rated games, friends", refusedSignOut: "Sign out in this browser", refusedWatch: "You watch this game: your account is suspended (see above)." },
  de: { signInLink: "Anmelden", accountLinkWhy: "Dein Konto: anmelden, registrieren, abmelden, Passwort, deine Daten", signUpLink: "Registrieren", signUpLinkWhy: "Ein Konto anlegen: deine Spiele auf jedem Gerät, gewertete Spiele, Freunde", refusedSignOut: "In diesem Browser abmelden", refusedWatch: "Du schaust diesem Spiel zu: dein Konto ist gesperrt (siehe oben)." },
  da: { signInLink: "Log ind", accountLinkWhy: "Din konto: log ind, opret konto, log ud, adgangskode, dine data", signUpLink: "Opret konto", signUpLinkWhy: "Opret en konto: dine spil på alle enheder, ratede spil, venner", refusedSignOut: "Log ud i denne browser", refusedWatch: "Du ser dette spil som tilskuer: din konto er suspenderet (se ovenfor)." },
});

/** @type {Promise<{ id: number, name: string, created: number } | null> | null} the account asked for once */
let asked = null;
/** @type {ErrorData | null} the server's refusal of this browser's session (its account suspended), or null */
let refused = null;

/** The account this browser is signed in to ({id, name, created}), or null (a guest, or
 * a session the server refuses: see `refused`).
 * @returns {Promise<{ id: number, name: string, created: number } | null>} */
export function whoAmI(again = false) {
  if (!asked || again) {
    asked = getJSON("/api/account")
      .then((r) => { refused = null; return r.account; })
      .catch((e) => { refused = e.code === "suspended" ? e.error : null; return null; });
  }
  return asked;
}

/** The server's refusal of this browser's session (said below the header), or null; known
 * once whoAmI() has answered. */
export function sessionRefused() { return refused; }

/** Say below the page's header why this browser's session opens nothing (its account is
 * suspended), as an alert, with a way to sign out here (a shared computer); nothing (and
 * the notice gone) when it is not refused. */
function showRefusal() {
  let box = document.getElementById("session-refused");
  const header = document.querySelector("body > header");
  if (!refused || !header) { if (box) box.remove(); return; }
  if (!box) {
    box = document.createElement("div");
    box.id = "session-refused";
    box.className = "session-refused";
    box.setAttribute("role", "alert");
    const button = document.createElement("button");
    button.type = "button";
    button.addEventListener("click", signOutRefused);
    box.append(document.createElement("p"), button);
    header.after(box);
  }
  const [words, signOut] = box.children;
  words.textContent = refusalText(refused, null);
  signOut.textContent = T("refusedSignOut");
}

/** This browser forgets the refused session (the account stays suspended). */
async function signOutRefused() {
  try { await postJSON("/api/account/signout", {}); } catch (e) { /* asked again below */ }
  whoAmI(true);
  await updateAccountLink();
}

const link = document.getElementById("account-link");
const signUp = document.getElementById("signup-link");

export async function updateAccountLink() {
  const me = await whoAmI();
  showRefusal();
  if (!link) return;
  link.textContent = me ? me.name : T("signInLink");
  link.title = T("accountLinkWhy");
  link.dataset.signedIn = me ? "yes" : "no";
  if (signUp) {
    signUp.hidden = Boolean(me);
    signUp.textContent = T("signUpLink");
    signUp.title = T("signUpLinkWhy");
  }
}

updateAccountLink();
onLangChange(updateAccountLink);
