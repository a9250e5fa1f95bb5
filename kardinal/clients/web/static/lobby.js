// The lobby: create a game (persons and bots), hand out invitation links, list games.
"use strict";

let LEVELS = ["random"];
let BOARD_ABOUT = "";
let RECON = false;
let COUNT = 4;
let SEATS = [];
let LAST = null; // the last created game's answer

function $(id) { return document.getElementById(id); }

function defaultSeats(n) {
  const out = [];
  for (let i = 0; i < n; i++) {
    const old = SEATS[i];
    out.push(old || (i === 0 ? { name: "", kind: "person", level: LEVELS[0] } : { name: "", kind: "bot", level: LEVELS.includes("medium") ? "medium" : LEVELS[0] }));
  }
  return out;
}

function renderCreate() {
  const box = $("create");
  const count = el("select", { id: "count", "aria-label": T("players") });
  for (const n of [3, 4, 5]) count.append(el("option", { value: n, selected: n === COUNT ? true : null, text: `${n} ${T("players")}` }));
  count.addEventListener("change", () => { COUNT = Number(count.value); SEATS = defaultSeats(COUNT); renderCreate(); });
  const rows = SEATS.map((s, i) => {
    const name = el("input", { type: "text", id: `name-${i}`, value: s.name, placeholder: s.kind === "bot" ? `Bot ${i + 1}` : `${T("player")} ${i + 1}`, "aria-label": `${T("name")} ${i + 1}`, maxlength: 24 });
    name.addEventListener("input", () => { s.name = name.value; });
    const kind = el("select", { id: `kind-${i}`, "aria-label": `${T("seat")} ${i + 1}` },
      el("option", { value: "person", selected: s.kind === "person" ? true : null, text: T("person") }),
      el("option", { value: "bot", selected: s.kind === "bot" ? true : null, text: T("bot") }));
    kind.addEventListener("change", () => { s.kind = kind.value; renderCreate(); });
    const level = el("select", { id: `level-${i}`, "aria-label": `${T("level")} ${i + 1}`, disabled: s.kind === "bot" ? null : true });
    for (const l of LEVELS) level.append(el("option", { value: l, selected: l === s.level ? true : null, text: l }));
    level.addEventListener("change", () => { s.level = level.value; });
    return el("tr", {}, el("td", { text: String(i + 1) }), el("td", {}, name), el("td", {}, kind), el("td", {}, level));
  });
  const hot = el("input", { type: "checkbox", id: "hotseat" });
  const create = el("button", { type: "button", id: "create-btn", class: "big", onclick: () => createGame(hot.checked) }, T("create"));
  box.replaceChildren(el("h2", { text: T("newGame") }), el("p", {}, count),
    el("table", { class: "seats" }, el("thead", {}, el("tr", {}, el("th", { text: T("seat") }), el("th", { text: T("name") }), el("th", { text: "" }), el("th", { text: T("level") }))), el("tbody", {}, ...rows)),
    el("p", {}, el("label", {}, hot, " " + T("hotseat"))), create);
}

async function createGame(hotseat) {
  const players = SEATS.map((s, i) => ({ name: s.name || (s.kind === "bot" ? `Bot ${i + 1}` : `${T("player")} ${i + 1}`), kind: s.kind, level: s.kind === "bot" ? s.level : undefined }));
  const r = await fetch("/api/games", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ players, hotseat, board: "standard" }) });
  const data = await r.json();
  if (!r.ok) { $("created").replaceChildren(el("p", { class: "bad", role: "alert", text: data.error.message })); return; }
  LAST = data;
  if (data.hotseat_url) { location.href = data.hotseat_url; return; }
  if (data.seats.length === 1) { location.href = data.seats[0].url; return; }
  renderCreated();
  loadGames();
}

function renderCreated() {
  if (!LAST) return;
  const abs = (u) => location.origin + u;
  const list = el("ul", { class: "links" });
  for (const s of LAST.seats) list.append(el("li", {}, `${s.name}: `, el("a", { href: s.url, "data-seat-link": s.seat }, abs(s.url))));
  $("created").replaceChildren(el("h2", { text: T("created") }), el("p", { text: T("invitations") }), list,
    el("p", {}, T("watchLink") + ": ", el("a", { href: LAST.watch }, abs(LAST.watch))));
}

function gameRow(g) {
  const names = g.players.map((p) => p.name + (p.kind === "bot" ? ` (${p.level})` : "") + (p.kind === "person" && !p.joined ? ` [${T("free")}]` : "")).join(", ");
  const actions = el("span", {});
  actions.append(el("a", { href: `/game/${g.id}`, class: "btn" }, g.status === "finished" ? T("replay") : T("watch")));
  if (g.status === "open" && !g.hotseat) {
    g.players.forEach((p, i) => {
      if (p.kind === "person" && !p.joined) {
        actions.append(" ", el("button", { type: "button", "data-claim": `${g.id}:${i}`, onclick: () => claim(g.id, i) }, `${T("join")}: ${T("seat")} ${i + 1}`));
      }
    });
  }
  const when = new Date(g.created * 1000).toLocaleString(LANG);
  const score = g.scores && g.status !== "open" ? ` — ${g.scores.join(" : ")}` : "";
  return el("li", { "data-game": g.id }, el("span", { class: "small", text: when + " · " }), names + score + " ", actions);
}

async function claim(gid, seat) {
  const name = prompt(T("yourName")) || "";
  const r = await fetch(`/api/games/${gid}/claim`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ seat, name }) });
  const data = await r.json();
  if (!r.ok) { alert(data.error.message); loadGames(); return; }
  location.href = data.url;
}

async function loadGames() {
  const r = await fetch("/api/games");
  const data = await r.json();
  const box = $("games");
  box.replaceChildren();
  for (const [status, title] of [["open", "openGames"], ["running", "runningGames"], ["finished", "finishedGames"]]) {
    const games = data.games.filter((g) => g.status === status).slice(0, 30);
    box.append(el("h2", { text: T(title) }), games.length ? el("ul", { class: "games", "data-list": status }, ...games.map(gameRow)) : el("p", { class: "small", text: T("none") }));
  }
}

function renderAll() {
  document.documentElement.lang = LANG;
  $("lang").textContent = T("language");
  $("about-btn").textContent = T("about");
  $("about-title").textContent = T("aboutTitle");
  $("about-close").textContent = T("close");
  $("about-text").textContent = (RECON ? T("reconstruction") + " " : "") + BOARD_ABOUT;
  renderCreate();
  renderCreated();
  loadGames();
}

async function main() {
  $("lang").addEventListener("click", () => { setLang(LANG === "de" ? "en" : "de"); renderAll(); });
  $("about-btn").addEventListener("click", () => $("about").showModal());
  try {
    LEVELS = (await (await fetch("/api/bots")).json()).levels;
    const b = await (await fetch("/api/board")).json();
    BOARD_ABOUT = b.about;
    RECON = b.reconstruction;
  } catch (e) { /* the lists stay at their defaults */ }
  SEATS = defaultSeats(COUNT);
  renderAll();
  setInterval(loadGames, 5000);
}

main();
