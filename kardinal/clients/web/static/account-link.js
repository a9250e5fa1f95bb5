// The header's account link: "Sign in" for a guest, the account's name when signed in
// (the pages that have an element #account-link), and beside it for a guest "Sign up",
// straight to the sign-up form (the pages that have #signup-link: the home page). whoAmI() is shared by the pages that
// need the account too (My games, the account page): one request per page.

import { T, addStrings, onLangChange } from "./i18n.js";
import { getJSON } from "./net.js";

addStrings({
  en: { signInLink: "Sign in", accountLinkWhy: "Your account: sign in, sign up, sign out, password, your data", signUpLink: "Sign up", signUpLinkWhy: "Make an account: your games on every device, rated games, friends" },
  de: { signInLink: "Anmelden", accountLinkWhy: "Dein Konto: anmelden, registrieren, abmelden, Passwort, deine Daten", signUpLink: "Registrieren", signUpLinkWhy: "Ein Konto anlegen: deine Spiele auf jedem Gerät, gewertete Spiele, Freunde" },
});

let asked = null;

/** The account this browser is signed in to ({id, name, created}), or null (a guest). */
export function whoAmI(again = false) {
  if (!asked || again) asked = getJSON("/api/account").then((r) => r.account).catch(() => null);
  return asked;
}

const link = document.getElementById("account-link");
const signUp = document.getElementById("signup-link");

export async function updateAccountLink() {
  if (!link) return;
  const me = await whoAmI();
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
