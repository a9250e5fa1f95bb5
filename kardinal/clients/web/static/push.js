// Notifications on this device (Web Push) on the account page, beside the mail choices:
// the same three (my turn, an invitation, a game's end), chosen per device. Choosing one
// asks the browser's permission, subscribes this browser with the server's key (GET
// /api/push) and gives the server the subscription (POST /api/account/push); all off
// ends it. The service worker (sw.js, with sw-push.js) shows what is pushed.

import { el } from "./dom.js";
import { T, lang } from "./i18n.js";
import { getJSON, postJSON, url } from "./net.js";
import { errorText } from "./refusals.js";
/** @import { MailPage } from "./account-mail.js" */

/** POST /api/account/push* (mail/schemas.py PushStatus): this device's subscription.
 * @typedef {{ enabled: boolean, subscribed: boolean, notify: { turn: boolean, invitation: boolean, end: boolean } }} PushStatus */
/** @typedef {"turn" | "invitation" | "end"} PushKind */


/** @type {[PushKind, string][]} each notification and its words' key (account-mail.js's, the same choices) */
const KINDS = [["turn", "mailWantTurn"], ["invitation", "mailWantInvitation"], ["end", "mailWantEnd"]];

/** Whether this browser can get Web Push at all (an iPhone's Safari only from the home screen). */
function supported() {
  return "serviceWorker" in navigator && "PushManager" in window && "Notification" in window;
}

/** The service worker's registration: the page's (pwa.js registers sw.js on every page), else
 * one registered here (a device choosing notifications). */
async function registration() {
  const found = await navigator.serviceWorker.getRegistration(url("/"));
  if (found) return found;
  await navigator.serviceWorker.register(url("/sw.js"), { scope: url("/") });
  return navigator.serviceWorker.ready;
}

/** The server's key as the browser takes it. @param {string} key base64url */
function keyBytes(key) {
  const raw = atob(key.replace(/-/g, "+").replace(/_/g, "/") + "=".repeat((4 - (key.length % 4)) % 4));
  return Uint8Array.from(raw, (c) => c.charCodeAt(0));
}

/** The account page's section: `page` is the AccountPage (render(), say(), noteAt()). */
export class PushSection {
  /** @param {MailPage} page */
  constructor(page) {
    this.page = page;
    /** @type {PushStatus | null} */
    this.status = null;
    /** @type {string | null} the server's key (null: Web Push is off there) */
    this.key = null;
    this.loaded = false;
  }

  async load() {
    try {
      const on = await getJSON("/api/push");
      this.key = on.enabled ? on.key : null;
      this.status = { enabled: on.enabled, subscribed: false, notify: { turn: false, invitation: false, end: false } };
      const sub = this.key ? await this.subscription() : null;
      if (sub) this.status = await postJSON("/api/account/push/device", { endpoint: sub.endpoint });
    } catch (e) {
      this.status = null;
    }
    this.loaded = true;
    this.page.render();
  }

  render() {
    const st = this.status;
    if (!this.loaded || !st) return null;
    const head = [el("h2", { text: T("pushTitle") })];
    if (!st.enabled) return el("section", { class: "mail-off", id: "push-section" }, ...head, el("p", { class: "small", id: "push-off", text: T("pushOff") }));
    if (!supported()) return el("section", { class: "mail-off", id: "push-section" }, ...head, el("p", { class: "small", id: "push-unsupported", text: T("pushUnsupported") }));
    return el("section", { class: "push-section", id: "push-section" }, ...head,
      el("p", { class: "small", text: T("pushWhy") }),
      el("fieldset", { class: "mail-wants", id: "push-wants" }, el("legend", { text: T("pushWant") }),
        ...KINDS.map(([k, label]) => {
          const box = el("input", { type: "checkbox", id: `push-want-${k}`, checked: st.notify[k] ? true : null });
          box.addEventListener("change", () => this.want(k, box.checked));
          return el("label", { class: "check", for: `push-want-${k}` }, box, el("span", { text: T(label) }));
        }), this.page.noteAt("push-wants")));
  }

  /** Turn one notification on or off for this device. @param {PushKind} kind @param {boolean} on */
  async want(kind, on) {
    const st = this.status;
    if (!st || !this.key) return;
    const wishes = { ...st.notify, [kind]: on };
    try {
      const reg = await registration();
      let sub = await reg.pushManager.getSubscription();
      if (!wishes.turn && !wishes.invitation && !wishes.end) {
        if (sub) {
          this.status = await postJSON("/api/account/push/remove", { endpoint: sub.endpoint });
          await sub.unsubscribe();
        }
        this.page.say("good", T("mailSaved"), "push-wants");
        return;
      }
      if (await Notification.requestPermission() !== "granted") {
        this.page.say("bad", T("pushDenied"), "push-wants", [`push-want-${kind}`]);
        return;
      }
      if (!sub) sub = await reg.pushManager.subscribe({ userVisibleOnly: true, applicationServerKey: keyBytes(this.key) });
      const keys = sub.toJSON().keys || {};
      this.status = await postJSON("/api/account/push", { endpoint: sub.endpoint, keys: { p256dh: keys.p256dh, auth: keys.auth }, lang: lang(), ...wishes });
      this.page.say("good", T("mailSaved"), "push-wants");
    } catch (e) {
      const why = e instanceof DOMException ? e.name : errorText(e);
      this.page.say("bad", e instanceof DOMException ? T("pushFailed", { why }) : why, "push-wants", [`push-want-${kind}`]);
    }
  }

  /** This browser's subscription, if it has one (no worker is registered for asking). */
  async subscription() {
    const reg = supported() ? await navigator.serviceWorker.getRegistration(url("/")) : undefined;
    return reg ? reg.pushManager.getSubscription() : null;
  }

  /** Signing out: this device gets no more notifications for the account. */
  async signOut() {
    try {
      const sub = await this.subscription();
      if (sub) await postJSON("/api/account/push/remove", { endpoint: sub.endpoint });
    } catch (e) { /* signed out already, or no worker: nothing to end here */ }
    this.status = null;
    this.loaded = false;
  }
}
