// The game page: map, cards, moves by clicking, log, scorings, hot-seat, replay.
// Everything shown comes from the server's state messages (built from the seat's view);
// the legal moves come with the message only for the seat to act.
"use strict";

const SVGNS = "http://www.w3.org/2000/svg";
const PLAYER_COLOURS = ["#d1342f", "#2a62c9", "#2f9e44", "#e0b000", "#8e44ad"];
const COUNTRY_COLOURS = {
  england: "#e9d8b4", franken: "#efe19a", bayern: "#bcd9ee", italien: "#cfe5b5", aragon: "#f1c39f",
  frankreich: "#c7cdef", lothringen: "#e6c3de", schwaben: "#f3d0a9", burgund: "#d9c7a7",
};
const EXTRA_COLOURS = ["#e9d8b4", "#efe19a", "#bcd9ee", "#cfe5b5", "#f1c39f", "#c7cdef", "#e6c3de", "#f3d0a9", "#d9c7a7"];

const params = new URLSearchParams(location.search);
const GAME = decodeURIComponent(location.pathname.split("/").pop());
const MY = {}; // seat -> token
if (params.get("seat") !== null && params.get("token")) MY[params.get("seat")] = params.get("token");
for (const part of (params.get("tokens") || "").split(",")) {
  const i = part.indexOf(":");
  if (i > 0) MY[part.slice(0, i)] = part.slice(i + 1);
}

let BOARD = null;
let KIND = {}; // kind id -> card kind
let SHORT = {}; // short code -> kind id
let COUNTRY = {};
let SITE = {};
let MSG = null; // latest state message
let REPLAY = null; // replay message while stepping through a finished game
let sel = { cards: [], country: null, sites: [], advisors: 0 };
let revealed = null; // hot-seat: the seat whose hand was shown
let ws = null;
let wsDelay = 300;
let counter = 0;
let pendingId = null;

function $(id) { return document.getElementById(id); }
function svg(tag, attrs) {
  const e = document.createElementNS(SVGNS, tag);
  for (const [k, v] of Object.entries(attrs || {})) e.setAttribute(k, v);
  return e;
}
function playerName(seat) { return MSG ? MSG.players[seat].name : "Seat " + seat; }
function cardName(kid) { return KIND[kid].countries.map((c) => countryName(COUNTRY[c])).join("/"); }
function say(text, bad) { const m = $("msg"); m.textContent = text || ""; m.className = bad ? "bad" : ""; }

// ---------------------------------------------------------------- the map (static part)

function buildMap() {
  const m = $("map");
  m.setAttribute("viewBox", `0 0 ${BOARD.width} ${BOARD.height}`);
  m.append(svg("rect", { x: 0, y: 0, width: BOARD.width, height: BOARD.height, class: "sea" }));
  const regions = svg("g", { class: "regions" });
  BOARD.countries.forEach((c, i) => {
    const g = svg("g", { class: "country", "data-country": c.id });
    const fill = COUNTRY_COLOURS[c.id] || EXTRA_COLOURS[i % EXTRA_COLOURS.length];
    for (const sid of c.sites) {
      const pts = SITE[sid].cell.map((p) => p.join(",")).join(" ");
      g.append(svg("polygon", { points: pts, fill, stroke: fill, "stroke-width": 1.5 }));
    }
    g.addEventListener("click", () => clickCountry(c.id));
    regions.append(g);
  });
  m.append(regions);
  const roads = svg("g", { class: "roads" });
  for (const [a, b] of BOARD.roads) {
    const [x1, y1] = SITE[a].xy, [x2, y2] = SITE[b].xy;
    roads.append(svg("line", { x1, y1, x2, y2, class: SITE[a].country === SITE[b].country ? "road" : "road border" }));
  }
  m.append(roads);
  const al = svg("g", { class: "alliances" });
  for (const a of BOARD.alliances) {
    const g = svg("g", { class: "alliance " + a.across, "data-alliance": a.number });
    const t = svg("title", {});
    t.textContent = `${a.number}: ${a.countries.map((c) => COUNTRY[c].name_de).join(" – ")}`;
    g.append(t);
    // a thin line to each of the two coats shows what the marker joins
    if (a.across === "sea") for (const cid of a.countries) {
      const [cx, cy] = COUNTRY[cid].coat;
      g.append(svg("line", { x1: a.xy[0], y1: a.xy[1], x2: cx, y2: cy, class: "alliance-link" }));
    }
    g.append(svg("circle", { cx: a.xy[0], cy: a.xy[1], r: 11, class: "alliance-dot" }));
    const tx = svg("text", { x: a.xy[0], y: a.xy[1] + 4, class: "alliance-num" });
    tx.textContent = a.number;
    g.append(tx);
    al.append(g);
  }
  m.append(al);
  const coats = svg("g", { class: "coats" });
  for (const c of BOARD.countries) {
    const [x, y] = c.coat;
    const g = svg("g", { class: "coat", "data-coat": c.id, role: "button", "aria-label": "coat of arms " + c.id, transform: `translate(${x},${y})` });
    g.append(svg("path", { d: "M-17,-20 H17 V0 Q17,16 0,24 Q-17,16 -17,0 Z", class: "shield" }));
    const name = svg("text", { x: 0, y: -25, class: "country-name" });
    name.setAttribute("data-name", c.id);
    g.append(name);
    g.append(svg("g", { class: "pips" }));
    const lim = svg("text", { x: 0, y: 20, class: "limit" });
    g.append(lim);
    g.addEventListener("click", (ev) => { ev.stopPropagation(); clickCoat(c.id); });
    coats.append(g);
  }
  m.append(coats);
  const sites = svg("g", { class: "sites" });
  for (const s of BOARD.sites) {
    const [x, y] = s.xy;
    const g = svg("g", { class: "site", "data-site": s.id, role: "button", "aria-label": s.name });
    g.append(svg("circle", { cx: x, cy: y, r: 7, class: "spot" }));
    const [lx, ly, anchor] = s.label || [x + 9, y + 4, "start"];
    const t = svg("text", { x: lx, y: ly, class: "site-name", "text-anchor": anchor });
    g.append(t);
    g.addEventListener("click", (ev) => { ev.stopPropagation(); clickSite(s.id); });
    sites.append(g);
  }
  m.append(sites);
}

function lastPlaced(v) {
  const h = v.history || [];
  for (let i = h.length - 1; i >= 0; i--) {
    if (h[i][1].startsWith("play ")) {
      const m = parseNotation(h[i][1]);
      return { sites: new Set(m.sites), country: m.advisors ? m.country : null };
    }
  }
  return { sites: new Set(), country: null };
}

function updateMap(v) {
  const last = lastPlaced(v);
  for (const c of BOARD.countries) document.querySelector(`[data-coat="${c.id}"]`).classList.toggle("last", last.country === c.id);
  for (const s of BOARD.sites) {
    const g = document.querySelector(`[data-site="${s.id}"]`);
    const owner = v.sites[s.id];
    const spot = g.querySelector(".spot");
    spot.setAttribute("fill", owner === undefined ? "#fff" : PLAYER_COLOURS[owner]);
    spot.setAttribute("r", owner === undefined ? 6 : 8);
    g.querySelector(".site-name").textContent = siteName(s.name);
    g.classList.toggle("taken", owner !== undefined);
    g.classList.toggle("last", last.sites.has(s.id));
  }
  for (const c of BOARD.countries) {
    const g = document.querySelector(`[data-coat="${c.id}"]`);
    g.querySelector(".country-name").textContent = countryName(c);
    const pips = g.querySelector(".pips");
    pips.replaceChildren();
    const adv = v.advisors[c.id];
    let k = 0;
    adv.forEach((n, seat) => {
      for (let j = 0; j < n; j++, k++) {
        const col = k % 4, row = Math.floor(k / 4);
        pips.append(svg("rect", { x: -14 + col * 7.5, y: -17 + row * 7.5, width: 6, height: 6, fill: PLAYER_COLOURS[seat], class: "pip" }));
      }
    });
    const total = adv.reduce((a, b) => a + b, 0);
    const lim = g.querySelector(".limit");
    lim.textContent = `${total}/${v.advisor_limit[c.id]}`;
    g.setAttribute("aria-label", `${countryName(c)}: ${T("advisorLimit", { a: total, m: v.advisor_limit[c.id] })}`);
    const title = g.querySelector("title") || g.appendChild(svg("title", {}));
    title.textContent = `${countryName(c)}: ${T("advisorLimit", { a: total, m: v.advisor_limit[c.id] })}`;
  }
}

// ---------------------------------------------------------------- legal choices

function legal() {
  if (REPLAY || !MSG || !MSG.legal) return [];
  if (MSG.hotseat && revealed !== MSG.seat) return [];
  return MSG.legal;
}
function key(cards) { return cards.slice().sort().join(","); }
function contains(big, small) {
  const b = big.slice();
  for (const x of small) { const i = b.indexOf(x); if (i < 0) return false; b.splice(i, 1); }
  return true;
}
function placeSites(a) { return a.pieces.filter((p) => p.type === "cloister").map((p) => p.site); }
function placeAdvisors(a) { return a.pieces.filter((p) => p.type === "advisor").length; }
function places() { return legal().filter((a) => a.act === "place"); }
function matches() {
  const k = key(sel.cards);
  return places().filter((a) => key(a.cards) === k && (!sel.country || a.country === sel.country)
    && contains(placeSites(a), sel.sites) && placeAdvisors(a) >= sel.advisors);
}
function exact() {
  return matches().find((a) => placeSites(a).length === sel.sites.length && placeAdvisors(a) === sel.advisors) || null;
}
function exchanges() {
  if (sel.cards.length !== 1) return [];
  return legal().filter((a) => a.act === "exchange" && a.discard === sel.cards[0]);
}
function canAddCard(kid) {
  const want = sel.cards.concat([kid]);
  return legal().some((a) => (a.act === "place" && contains(a.cards, want)) || (a.act === "exchange" && want.length === 1 && a.discard === kid));
}
function clearSel() { sel = { cards: [], country: null, sites: [], advisors: 0 }; }

// ---------------------------------------------------------------- clicks

function send(action) {
  if (!MSG) return;
  const seat = action.seat;
  const id = `${Date.now().toString(36)}-${(counter++).toString(36)}-${Math.random().toString(36).slice(2, 8)}`;
  pendingId = id;
  ws.send(JSON.stringify({ type: "action", id, seat, token: MY[seat], version: MSG.version, action }));
  clearSel();
  render();
}

function clickHandCard(kid, selected) {
  if (!legal().length) return;
  if (selected) {
    const i = sel.cards.lastIndexOf(kid);
    if (i >= 0) sel.cards.splice(i, 1);
    sel.country = null; sel.sites = []; sel.advisors = 0;
  } else if (canAddCard(kid)) {
    sel.cards.push(kid);
    sel.country = null; sel.sites = []; sel.advisors = 0;
  } else {
    say(T("noCard", { card: cardName(kid) }), true);
    return;
  }
  say("");
  render();
}

function clickCountry(cid) {
  if (REPLAY || !sel.cards.length) return;
  if (matches().some((a) => a.country === cid)) {
    if (sel.country !== cid) { sel.country = cid; sel.sites = []; sel.advisors = 0; }
    render();
  }
}

function clickSite(sid) {
  if (REPLAY || !sel.cards.length) return;
  const cid = SITE[sid].country;
  if (sel.sites.includes(sid)) {
    sel.sites = sel.sites.filter((x) => x !== sid);
    render();
    return;
  }
  const ok = matches().some((a) => a.country === cid && placeSites(a).includes(sid) && contains(placeSites(a), sel.sites.concat([sid])));
  if (!ok) {
    say(T("noSite", { site: siteName(SITE[sid].name) }), true);
    return;
  }
  sel.country = cid;
  sel.sites.push(sid);
  say("");
  render();
}

function clickCoat(cid) {
  if (REPLAY || !sel.cards.length) return;
  const ok = matches().some((a) => a.country === cid && placeAdvisors(a) > sel.advisors);
  if (!ok) {
    if (sel.advisors && sel.country === cid) { sel.advisors -= 1; render(); return; }
    const v = MSG.view;
    const a = v.advisors[cid].reduce((x, y) => x + y, 0);
    say(T("noCoat", { country: countryName(COUNTRY[cid]), a, m: v.advisor_limit[cid] }), true);
    return;
  }
  sel.country = cid;
  sel.advisors += 1;
  say("");
  render();
}

function clickTake(source) { // source: kind id on display, or "deck"
  const L = legal();
  const draw = L.find((a) => a.act === "draw" && (source === "deck" ? a.from === "deck" : a.card === source));
  if (draw) { send(draw); return; }
  const ex = exchanges().find((a) => (source === "deck" ? a.from === "deck" : a.card === source));
  if (ex) { send(ex); return; }
  if (L.length) say(T("noTake"), true);
}

// ---------------------------------------------------------------- rendering

function cardEl(kid, attrs, onclick) {
  const k = KIND[kid];
  const b = el("button", Object.assign({ type: "button", class: "card", "data-card": kid, "aria-label": cardName(kid), onclick }, attrs || {}));
  const stripes = el("span", { class: "stripes" });
  for (const c of k.countries) stripes.append(el("span", { style: `background:${COUNTRY_COLOURS[c] || "#ddd"}` }));
  b.append(stripes, el("span", { class: "card-short", text: k.short }), el("span", { class: "card-name", text: cardName(kid) }));
  return b;
}

function turnText(v) {
  if (!MSG) return T("connecting");
  if (MSG.status === "open") {
    const names = MSG.players.filter((p) => p.kind === "person" && !p.joined).map((p) => p.name);
    return T("waitingPlayers", { names: names.join(", ") });
  }
  if (v.phase === "over") return T("gameOver");
  const cur = MSG.players[v.current];
  if (MSG.seat === v.current && MSG.legal) {
    if (MSG.hotseat && revealed !== MSG.seat) return T("turnOf", { name: cur.name });
    return v.phase === "draw" ? T("yourTurnDraw") : T("yourTurnMain");
  }
  if (cur.kind === "bot") return T("botPlaying", { name: cur.name });
  return T("turnOf", { name: cur.name }) + (MSG.seat === null && !Object.keys(MY).length ? " · " + T("spectating") : "");
}

function renderPlayers(v, hands) {
  const rows = MSG.players.map((p, i) => {
    const cur = v.phase !== "over" && v.current === i;
    const win = v.winners && v.winners.includes(i);
    const tr = el("tr", { class: (cur ? "current " : "") + (MSG.seat === i ? "me" : ""), "data-seat": i },
      el("td", {}, el("span", { class: "swatch", style: `background:${PLAYER_COLOURS[i]}` })),
      el("td", { class: "pname", text: p.name + (p.kind === "bot" ? ` (${p.level})` : "") + (win ? " ★" : "") }),
      el("td", { class: "num", text: v.scores[i] }),
      el("td", { class: "num", text: `${v.supply[i].cloisters} / ${v.supply[i].advisors}` }),
      el("td", { class: "num", text: v.hand_sizes[i] }));
    if (hands) tr.append(el("td", { class: "hands", text: Object.entries(hands[i]).map(([k, n]) => `${n}×${KIND[k].short}`).join(" ") }));
    return tr;
  });
  const head = el("tr", {}, el("th", {}), el("th", { text: T("players") }), el("th", { text: T("score") }),
    el("th", { text: `${T("cloisters")} / ${T("advisors")}` }), el("th", { text: T("cards") }));
  if (hands) head.append(el("th", { text: T("hand") }));
  $("players").replaceChildren(el("table", { class: "players" }, el("thead", {}, head), el("tbody", {}, ...rows)));
}

function renderTable(v) {
  const L = legal();
  const drawing = L.some((a) => a.act === "draw");
  const ex = exchanges();
  const disp = el("div", { class: "display", "data-zone": "display" });
  for (const kid of v.display) {
    const can = L.some((a) => a.act === "draw" && a.card === kid) || ex.some((a) => a.card === kid);
    disp.append(cardEl(kid, { class: "card" + (can ? " legal" : "") }, () => clickTake(kid)));
  }
  const pileLegal = (drawing && L.some((a) => a.act === "draw" && a.from === "deck")) || ex.some((a) => a.from === "deck");
  const pile = el("button", { type: "button", class: "pile" + (pileLegal ? " legal" : ""), "data-pile": "deck", "aria-label": T("drawPile"), onclick: () => clickTake("deck") },
    el("span", { class: "pile-title", text: T("drawPile") }), el("span", { class: "pile-count", text: T("cardsLeft", { n: v.deck_size }) }));
  const discard = Object.entries(v.discard).map(([k, n]) => `${n}×${KIND[k].short}`).join(" ") || "–";
  const removed = Object.entries(v.removed).map(([k, n]) => `${n}×${KIND[k].short}`).join(" ") || "–";
  $("table").replaceChildren(
    el("div", { class: "tablerow" }, el("div", {}, el("h2", { text: T("display") }), disp), el("div", {}, el("h2", { text: T("drawPile") }), pile)),
    el("p", { class: "small" }, el("b", { text: T("discard") + ": " }), el("span", { "data-zone": "discard", text: discard }),
      el("span", { text: "  ·  " + T("removed") + ": " + removed + (v.final_round ? "  ·  " + T("round") : "") })));
}

function renderHand(v) {
  const box = $("handbox");
  box.replaceChildren();
  if (REPLAY || !MSG || MSG.seat === null || v.hand === undefined) return;
  const me = MSG.players[MSG.seat];
  if (MSG.hotseat && revealed !== MSG.seat) {
    box.append(el("button", { type: "button", class: "big", id: "reveal", onclick: () => { revealed = MSG.seat; clearSel(); render(); } }, T("showHand", { name: me.name })));
    return;
  }
  box.append(el("h2", { text: MSG.hotseat ? `${T("hand")} — ${me.name}` : T("hand") }));
  const hand = el("div", { class: "hand", "data-zone": "hand" });
  const left = Object.assign({}, v.hand);
  const selCount = {};
  for (const k of sel.cards) selCount[k] = (selCount[k] || 0) + 1;
  for (const k of Object.keys(left).sort()) {
    for (let j = 0; j < left[k]; j++) {
      const selected = j < (selCount[k] || 0);
      const can = selected || canAddCard(k);
      hand.append(cardEl(k, { class: "card" + (selected ? " selected" : "") + (can && legal().length ? " legal" : ""), "aria-pressed": selected ? "true" : "false" },
        () => clickHandCard(k, selected)));
    }
  }
  box.append(hand);
  const L = legal();
  const ex = exact();
  const buttons = el("div", { class: "buttons" });
  if (L.some((a) => a.act === "place" || a.act === "exchange")) {
    buttons.append(el("button", { type: "button", id: "play", disabled: ex ? null : true, onclick: () => ex && send(ex) }, T("play")));
    buttons.append(el("button", { type: "button", id: "clear", disabled: sel.cards.length ? null : true, onclick: () => { clearSel(); say(""); render(); } }, T("clear")));
  }
  const pass = L.find((a) => a.act === "pass");
  if (pass) buttons.append(el("button", { type: "button", id: "pass", onclick: () => send(pass) }, T("pass")));
  box.append(buttons);
  let hint = "";
  if (sel.cards.length) {
    if (ex) hint = T("readyToPlay");
    else if (matches().length && !sel.country) hint = T("chooseCountry");
    else if (matches().length) hint = T("choosePieces");
    if (exchanges().length && !sel.sites.length && !sel.advisors) hint = (hint ? hint + " " : "") + T("chooseTake");
  }
  box.append(el("p", { class: "hint", text: hint }));
}

function highlightMap() {
  const M = sel.cards.length ? matches() : [];
  const countries = new Set(M.map((a) => a.country));
  document.querySelectorAll("[data-country]").forEach((g) => {
    const cid = g.getAttribute("data-country");
    g.classList.toggle("legal", countries.has(cid) && !sel.country);
    g.classList.toggle("chosen", sel.country === cid);
    g.classList.toggle("dim", M.length > 0 && !countries.has(cid));
  });
  const siteOk = new Set();
  const coatOk = new Set();
  for (const a of M) {
    for (const s of placeSites(a)) if (!sel.sites.includes(s)) siteOk.add(s);
    if (placeAdvisors(a) > sel.advisors) coatOk.add(a.country);
  }
  document.querySelectorAll("[data-site]").forEach((g) => {
    const sid = g.getAttribute("data-site");
    g.classList.toggle("legal", siteOk.has(sid));
    g.classList.toggle("selected", sel.sites.includes(sid));
  });
  document.querySelectorAll("[data-coat]").forEach((g) => {
    const cid = g.getAttribute("data-coat");
    g.classList.toggle("legal", coatOk.has(cid));
    g.classList.toggle("selected", sel.country === cid && sel.advisors > 0);
  });
}

function parseNotation(text) {
  const t = text.split(" ");
  if (t[0] === "pass") return { act: "pass" };
  if (t[0] === "draw") return { act: "draw", from: t[1] === "deck" ? "deck" : SHORT[t[1]] };
  if (t[0] === "exchange") return { act: "exchange", discard: SHORT[t[1]], take: t[3] === "deck" ? "deck" : SHORT[t[3]] };
  const pieces = t[3].split("+");
  return { act: "place", cards: t[1].split(",").map((s) => SHORT[s]), country: t[2], sites: pieces.filter((p) => p !== "advisor"), advisors: pieces.filter((p) => p === "advisor").length };
}

function describe(seat, text) {
  const name = MSG.players[seat].name;
  const m = parseNotation(text);
  if (m.act === "pass") return T("logPass", { name });
  if (m.act === "draw") return m.from === "deck" ? T("logDrawDeck", { name }) : T("logDrawDisplay", { name, card: cardName(m.from) });
  if (m.act === "exchange") {
    const took = m.take === "deck" ? T("logFromDeck") : T("logFromDisplay", { card: cardName(m.take) });
    return T("logExchange", { name, card: cardName(m.discard), took });
  }
  const pieces = m.sites.map((s) => T("logCloister", { site: siteName(SITE[s].name) })).concat(Array(m.advisors).fill(T("logAdvisor")));
  return T("logPlace", { name, cards: m.cards.map(cardName).join(" + "), country: countryName(COUNTRY[m.country]), pieces: pieces.join(T("and")) });
}

function renderLog(v) {
  $("log-title").textContent = T("log");
  const ol = $("log");
  const marks = (REPLAY ? REPLAY.marks : MSG.marks) || {};
  const items = [];
  (v.history || []).forEach(([seat, text], i) => {
    items.push(el("li", { class: "s" + seat, value: i + 1 }, el("span", { class: "swatch", style: `background:${PLAYER_COLOURS[seat]}` }), " " + describe(seat, text)));
    if (marks.intermediate === i + 1) items.push(el("li", { class: "event", "data-event": "intermediate" }, T("logIntermediate")));
    if (marks.last_round === i + 1) items.push(el("li", { class: "event", "data-event": "last_round" }, T("logLastRound")));
  });
  if (v.phase === "over") items.push(el("li", { class: "event", "data-event": "final" }, T("logFinal")));
  ol.replaceChildren(...items);
  ol.scrollTop = ol.scrollHeight;
}

function scoreTable(title, rows, n) {
  const head = el("tr", {}, el("th", { text: "" }), ...MSG.players.slice(0, n).map((p, i) => el("th", {}, el("span", { class: "swatch", style: `background:${PLAYER_COLOURS[i]}` }), " " + p.name)));
  const body = rows.filter(([, pts]) => pts.some((x) => x)).map(([label, pts]) => el("tr", {}, el("td", { text: label }), ...pts.map((x) => el("td", { class: "num", text: x }))));
  return el("div", { class: "scoretable" }, el("h3", { text: title }), el("table", {}, el("thead", {}, head), el("tbody", {}, ...(body.length ? body : [el("tr", {}, el("td", { text: "–" }))]))));
}

function renderScoring(v) {
  const box = $("scoring");
  box.replaceChildren();
  const bd = v.breakdown;
  const n = v.players;
  if (!bd.intermediate_by_country && !bd.final_by_country) return;
  box.append(el("h2", { text: T("scoring") }));
  if (bd.intermediate_by_country) {
    const rows = BOARD.countries.map((c) => [countryName(c), bd.intermediate_by_country[c.id]]);
    rows.push([T("total"), bd.intermediate_cloisters]);
    box.append(scoreTable(T("intermediate"), rows, n));
  }
  if (bd.final_by_country) {
    const rows = BOARD.countries.map((c) => [countryName(c), bd.final_by_country[c.id]]);
    rows.push([T("total"), bd.final_cloisters]);
    box.append(scoreTable(T("finalCloisters"), rows, n));
    const arows = BOARD.alliances.map((a) => [`${a.number}: ${a.countries.map((c) => countryName(COUNTRY[c])).join("–")}`, bd.by_alliance[String(a.number)]]);
    arows.push([T("total"), bd.alliances]);
    box.append(scoreTable(T("alliances"), arows, n));
    box.append(scoreTable(T("chains"), [[T("chains"), bd.chains]], n));
  }
  if (v.winners) {
    const order = [...Array(n).keys()].sort((a, b) => v.scores[b] - v.scores[a] || (v.supply[b].cloisters + v.supply[b].advisors) - (v.supply[a].cloisters + v.supply[a].advisors));
    const ol = el("ol", { class: "standings", id: "standings" });
    for (const p of order) {
      const left = v.supply[p].cloisters + v.supply[p].advisors;
      ol.append(el("li", {}, el("span", { class: "swatch", style: `background:${PLAYER_COLOURS[p]}` }),
        ` ${MSG.players[p].name}: ${v.scores[p]} ${T("score")}, ${left} ${T("piecesLeft")}` + (v.winners.includes(p) ? ` — ${T("winner")} ★` : "")));
    }
    box.prepend(el("h2", { text: T("standings") }), ol);
  }
}

function renderReplayBox() {
  const box = $("replaybox");
  box.replaceChildren();
  if (!MSG || MSG.status !== "finished") return;
  const total = MSG.version;
  const k = REPLAY ? REPLAY.step : total;
  const go = (s) => loadReplay(Math.max(0, Math.min(total, s)));
  box.append(el("h2", { text: T("replay") }),
    el("div", { class: "buttons" },
      el("button", { type: "button", id: "rp-first", "aria-label": T("first"), onclick: () => go(0) }, "«"),
      el("button", { type: "button", id: "rp-back", "aria-label": T("back"), onclick: () => go(k - 1) }, "◀"),
      el("span", { id: "rp-step", class: "step", text: T("replayStep", { k, n: total }) }),
      el("button", { type: "button", id: "rp-forward", "aria-label": T("forward"), onclick: () => go(k + 1) }, "▶"),
      el("button", { type: "button", id: "rp-last", "aria-label": T("last"), onclick: () => go(total) }, "»"),
      REPLAY ? el("button", { type: "button", id: "rp-live", onclick: () => { REPLAY = null; render(); } }, T("live")) : null),
    el("p", {}, el("a", { href: `/api/games/${encodeURIComponent(GAME)}/record`, download: `kardinal-${GAME}.json`, id: "download" }, T("record"))));
}

async function loadReplay(step) {
  const r = await fetch(`/api/games/${encodeURIComponent(GAME)}/replay/${step}`);
  if (!r.ok) { say((await r.json()).error.message, true); return; }
  REPLAY = await r.json();
  render();
}

function render() {
  document.documentElement.lang = LANG;
  $("lang").textContent = T("language");
  $("about-btn").textContent = T("about");
  $("about-title").textContent = T("aboutTitle");
  $("about-close").textContent = T("close");
  if (BOARD) $("about-text").textContent = (BOARD.reconstruction ? T("reconstruction") + " " : "") + BOARD.about;
  if (!MSG || !BOARD) { $("status").textContent = T("connecting"); return; }
  const v = REPLAY ? REPLAY.view : MSG.view;
  const body = document.body;
  body.dataset.status = MSG.status;
  body.dataset.version = MSG.version;
  body.dataset.phase = v.phase;
  body.dataset.myTurn = legal().length ? "true" : "false";
  body.dataset.replay = REPLAY ? String(REPLAY.step) : "";
  $("status").textContent = REPLAY ? T("replayStep", { k: REPLAY.step, n: REPLAY.total }) : turnText(v);
  updateMap(v);
  renderPlayers(v, REPLAY ? REPLAY.hands : null);
  renderTable(v);
  renderHand(v);
  highlightMap();
  renderReplayBox();
  renderScoring(v);
  renderLog(v);
}

// ---------------------------------------------------------------- connection

function connect() {
  const proto = location.protocol === "https:" ? "wss:" : "ws:";
  ws = new WebSocket(`${proto}//${location.host}/ws/${encodeURIComponent(GAME)}`);
  ws.onopen = () => { wsDelay = 300; ws.send(JSON.stringify({ type: "hello", seats: MY })); };
  ws.onmessage = (ev) => {
    const m = JSON.parse(ev.data);
    if (m.type === "state") {
      const turnChanged = !MSG || MSG.seat !== m.seat || MSG.view.current !== m.view.current || MSG.version !== m.version;
      if (MSG && MSG.hotseat && m.seat !== revealed) revealed = null;
      MSG = m;
      if (turnChanged) clearSel();
      render();
    } else if (m.type === "error") {
      say(T("refused", { msg: m.message }), true);
      if (m.code === "bad_token" && !MSG) {
        // a wrong or outdated link: watch the game as a spectator instead
        document.body.dataset.auth = "bad";
        for (const k of Object.keys(MY)) delete MY[k];
        ws.send(JSON.stringify({ type: "hello" }));
      }
    } else if (m.type === "ack") {
      if (m.id === pendingId) pendingId = null;
    }
  };
  ws.onclose = () => {
    $("status").textContent = T("disconnected");
    setTimeout(connect, wsDelay);
    wsDelay = Math.min(5000, wsDelay * 2);
  };
}

async function main() {
  $("lang").addEventListener("click", () => { setLang(LANG === "de" ? "en" : "de"); render(); });
  $("about-btn").addEventListener("click", () => $("about").showModal());
  render();
  BOARD = await (await fetch("/api/board")).json();
  for (const k of BOARD.cards) { KIND[k.id] = k; SHORT[k.short] = k.id; }
  for (const c of BOARD.countries) COUNTRY[c.id] = c;
  for (const s of BOARD.sites) SITE[s.id] = s;
  buildMap();
  connect();
}

main();
