// "Your turn": when this browser's seat is to act, the tab's title and icon say so; on
// request also a short sound, and a browser notification (the Notifications API) while
// the tab is in the background. The choices are kept in this browser.

import { el } from "./dom.js";
import { T, addStrings, onLangChange } from "./i18n.js";
import { url } from "./net.js";
/** @import { GamePage } from "./game.js" */

addStrings({
  en: {
    turnTitle: "Your turn",
    signalSound: "Sound on my turn",
    signalNotify: "Notify me on my turn",
    signalDenied: "This browser does not allow notifications from this page.",
    notifyBody: "{game}: it is your turn.",
  },
  de: {
    turnTitle: "Du bist dran",
    signalSound: "Ton, wenn ich dran bin",
    signalNotify: "Benachrichtigen, wenn ich dran bin",
    signalDenied: "Dieser Browser erlaubt dieser Seite keine Benachrichtigungen.",
    notifyBody: "{game}: Du bist dran.",
  },
  da: {
    turnTitle: "Din tur",
    signalSound: "Lyd, når det er min tur",
    signalNotify: "Giv besked, når det er min tur",
    signalDenied: "Denne browser tillader ikke notifikationer fra denne side.",
    notifyBody: "{game}: det er din tur.",
  },
});

const ICON = url("/static/favicon.svg");
const ICON_TURN = url("/static/favicon-turn.svg");

/** @param {string} key */
function pref(key) { try { return localStorage.getItem(key) === "on"; } catch (e) { return false; } }

/** @param {string} key @param {boolean} on */
function setPref(key, on) { try { localStorage.setItem(key, on ? "on" : "off"); } catch (e) { /* private mode */ } }

export class TurnSignal {
  /** @param {GamePage} page */
  constructor(page) {
    this.page = page;
    this.baseTitle = document.title;
    /** @type {boolean | null} whether it was the reader's turn when last said (null: say it again) */
    this.myTurn = false;
    /** @type {AudioContext | null} */
    this.audio = null;
    /** @type {HTMLElement | null} */
    this.controls = null;
    onLangChange(() => { if (this.controls) this.renderControls(this.controls); this.myTurn = null; this.render(); });
  }

  /** Is it this page's turn (a seat it holds is to act, live)? */
  isMyTurn() {
    return Boolean(this.page.msg && !this.page.replay && this.page.msg.status === "running" && this.page.legal().length);
  }

  render() {
    const now = this.isMyTurn();
    if (now === this.myTurn) return;
    const began = now && this.myTurn === false;
    this.myTurn = now;
    document.title = now ? `▶ ${T("turnTitle")} — ${this.baseTitle}` : this.baseTitle;
    document.body.dataset.signal = now ? "turn" : "";
    const icon = document.querySelector("link[rel=icon]");
    if (icon) icon.setAttribute("href", now ? ICON_TURN : ICON);
    if (began && this.page.msg && !this.page.msg.hotseat) { // (began: a state message came)
      if (pref("kardinal-sound")) this.beep();
      if (pref("kardinal-notify") && document.hidden && "Notification" in window && Notification.permission === "granted") {
        try {
          const n = new Notification(T("turnTitle"), { body: T("notifyBody", { game: this.baseTitle }), tag: `kardinal-${this.page.gameId}`, icon: ICON_TURN });
          n.onclick = () => { window.focus(); n.close(); };
        } catch (e) { /* notifications from a service worker only (some phones) */ }
      }
    }
  }

  /** A short two-note chime (Web Audio; the first click on the page unlocks it). */
  beep() {
    try {
      // webkitAudioContext: older Safari's name for it, which the DOM's types do not list
      if (!this.audio) this.audio = new (window.AudioContext || /** @type {any} */ (window).webkitAudioContext)();
      const ctx = this.audio;
      if (ctx.state === "suspended") ctx.resume();
      [660, 880].forEach((f, i) => {
        const o = ctx.createOscillator();
        const g = ctx.createGain();
        const t = ctx.currentTime + i * 0.16;
        o.frequency.value = f;
        g.gain.setValueAtTime(0.0001, t);
        g.gain.exponentialRampToValueAtTime(0.2, t + 0.02);
        g.gain.exponentialRampToValueAtTime(0.0001, t + 0.15);
        o.connect(g).connect(ctx.destination);
        o.start(t);
        o.stop(t + 0.16);
      });
      document.body.dataset.beeped = String(Number(document.body.dataset.beeped || 0) + 1);
    } catch (e) { /* no audio */ }
  }

  /** The two check boxes (in the table box of chat.js), for people holding a seat.
   * @param {HTMLElement} box */
  renderControls(box) {
    this.controls = box;
    const msg = this.page.msg;
    if (!msg || !this.page.socket.holdsAny() || msg.hotseat) { box.replaceChildren(); return; }
    const sound = el("input", { type: "checkbox", id: "signal-sound", checked: pref("kardinal-sound") });
    sound.addEventListener("change", () => { setPref("kardinal-sound", sound.checked); if (sound.checked) this.beep(); });
    const notify = el("input", { type: "checkbox", id: "signal-notify", checked: pref("kardinal-notify") && "Notification" in window && Notification.permission === "granted" });
    const denied = el("span", { class: "chat-note", role: "status" });
    notify.addEventListener("change", async () => {
      if (!notify.checked) { setPref("kardinal-notify", false); return; }
      if (!("Notification" in window)) { notify.checked = false; denied.textContent = T("signalDenied"); return; }
      const p = Notification.permission === "granted" ? "granted" : await Notification.requestPermission();
      notify.checked = p === "granted";
      setPref("kardinal-notify", notify.checked);
      denied.textContent = notify.checked ? "" : T("signalDenied");
    });
    box.replaceChildren(
      el("label", { for: "signal-sound" }, sound, " ", T("signalSound")),
      el("label", { for: "signal-notify" }, notify, " ", T("signalNotify")),
      denied);
  }
}
