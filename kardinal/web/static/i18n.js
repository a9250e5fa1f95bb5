// German and English texts of the browser client. T(key, vars) looks up the current language.
"use strict";

const TEXTS = {
  en: {
    title: "Kardinal & König",
    lobby: "Lobby",
    about: "About",
    aboutTitle: "About this board",
    close: "Close",
    language: "Deutsch",
    newGame: "New game",
    players: "Players",
    seat: "Seat",
    name: "Name",
    person: "Person",
    bot: "Bot",
    level: "Level",
    hotseat: "Hot-seat (all people at this browser)",
    create: "Create game",
    invitations: "Invitation links (one per person; keep them secret)",
    watchLink: "Public link for spectators",
    openGames: "Open games",
    runningGames: "Running games",
    finishedGames: "Finished games",
    none: "none",
    watch: "Watch",
    join: "Join",
    replay: "Replay",
    free: "free",
    yourName: "Your name?",
    connecting: "Connecting…",
    disconnected: "Connection lost, reconnecting…",
    waitingPlayers: "Waiting for players to join: {names}",
    turnOf: "{name}'s turn",
    yourTurn: "Your turn",
    yourTurnMain: "Your turn: choose cards to play, or one card to exchange.",
    yourTurnDraw: "Refill your hand: take a display card or draw from the pile.",
    gameOver: "The game is over.",
    spectating: "You are watching.",
    showHand: "{name}'s turn — show my hand",
    handHidden: "{name}'s hand is hidden.",
    botPlaying: "{name} (bot) is playing…",
    hand: "Your hand",
    display: "Display",
    drawPile: "Draw pile",
    cardsLeft: "{n} cards",
    discard: "Discard pile",
    removed: "Removed at setup",
    play: "Play",
    pass: "Pass",
    clear: "Clear selection",
    score: "Points",
    supply: "Supply",
    cloisters: "cloisters",
    advisors: "advisors",
    cards: "cards",
    log: "Game log",
    scoring: "Scoring",
    standings: "Final standings",
    winner: "winner",
    intermediate: "Intermediate scoring (cloisters)",
    finalCloisters: "Final scoring: cloisters",
    alliances: "Alliances",
    chains: "Chains",
    total: "Total",
    piecesLeft: "pieces left",
    refused: "Refused: {msg}",
    chooseCountry: "Choose a country on the map.",
    choosePieces: "Click cloister sites and/or the coat of arms, then Play.",
    readyToPlay: "Press Play to place these pieces.",
    chooseTake: "Take a display card or the top of the draw pile in exchange.",
    record: "Download the game record",
    replayStep: "Step {k} of {n}",
    first: "First",
    back: "Back",
    forward: "Forward",
    last: "Last",
    live: "Back to the game",
    advisorLimit: "advisors {a} of at most {m}",
    round: "final round",
    reconstruction: "This board is a reconstruction.",
    logPlace: "{name} plays {cards} in {country}: {pieces}",
    logCloister: "cloister at {site}",
    logAdvisor: "advisor",
    logDrawDeck: "{name} draws from the draw pile",
    logDrawDisplay: "{name} takes {card} from the display",
    logExchange: "{name} exchanges: discards {card}, takes {took}",
    logFromDeck: "a card from the draw pile",
    logFromDisplay: "{card} from the display",
    logPass: "{name} passes",
    and: " and ",
    created: "Game created.",
    startHotseat: "Start playing",
    alliance: "Alliance {n}",
  },
  de: {
    title: "Kardinal & König",
    lobby: "Lobby",
    about: "Info",
    aboutTitle: "Über diesen Spielplan",
    close: "Schließen",
    language: "English",
    newGame: "Neues Spiel",
    players: "Spieler",
    seat: "Platz",
    name: "Name",
    person: "Mensch",
    bot: "Bot",
    level: "Stufe",
    hotseat: "Hot-Seat (alle Menschen an diesem Browser)",
    create: "Spiel anlegen",
    invitations: "Einladungslinks (einer pro Mensch; geheim halten)",
    watchLink: "Öffentlicher Link für Zuschauer",
    openGames: "Offene Spiele",
    runningGames: "Laufende Spiele",
    finishedGames: "Beendete Spiele",
    none: "keine",
    watch: "Zuschauen",
    join: "Beitreten",
    replay: "Wiederholung",
    free: "frei",
    yourName: "Dein Name?",
    connecting: "Verbinde…",
    disconnected: "Verbindung verloren, verbinde neu…",
    waitingPlayers: "Warte auf Mitspieler: {names}",
    turnOf: "{name} ist am Zug",
    yourTurn: "Du bist am Zug",
    yourTurnMain: "Du bist am Zug: wähle Karten zum Ausspielen oder eine Karte zum Tauschen.",
    yourTurnDraw: "Hand auffüllen: nimm eine offene Karte oder ziehe vom Stapel.",
    gameOver: "Das Spiel ist zu Ende.",
    spectating: "Du schaust zu.",
    showHand: "{name} ist am Zug — meine Hand zeigen",
    handHidden: "Die Hand von {name} ist verdeckt.",
    botPlaying: "{name} (Bot) spielt…",
    hand: "Deine Hand",
    display: "Auslage",
    drawPile: "Nachziehstapel",
    cardsLeft: "{n} Karten",
    discard: "Ablagestapel",
    removed: "Aussortiert",
    play: "Ausspielen",
    pass: "Passen",
    clear: "Auswahl löschen",
    score: "Punkte",
    supply: "Vorrat",
    cloisters: "Klöster",
    advisors: "Räte",
    cards: "Karten",
    log: "Spielverlauf",
    scoring: "Wertung",
    standings: "Endstand",
    winner: "Sieger",
    intermediate: "Zwischenwertung (Klöster)",
    finalCloisters: "Schlusswertung: Klöster",
    alliances: "Bündnisse",
    chains: "Ketten",
    total: "Summe",
    piecesLeft: "Steine übrig",
    refused: "Abgelehnt: {msg}",
    chooseCountry: "Wähle ein Land auf der Karte.",
    choosePieces: "Klicke Klosterplätze und/oder das Wappen, dann Ausspielen.",
    readyToPlay: "Ausspielen setzt diese Steine.",
    chooseTake: "Nimm im Tausch eine offene Karte oder die oberste vom Stapel.",
    record: "Spielprotokoll herunterladen",
    replayStep: "Schritt {k} von {n}",
    first: "Anfang",
    back: "Zurück",
    forward: "Vor",
    last: "Ende",
    live: "Zurück zum Spiel",
    advisorLimit: "Räte {a} von höchstens {m}",
    round: "letzte Runde",
    reconstruction: "Dieser Spielplan ist eine Rekonstruktion.",
    logPlace: "{name} spielt {cards} in {country}: {pieces}",
    logCloister: "Kloster in {site}",
    logAdvisor: "Rat",
    logDrawDeck: "{name} zieht vom Nachziehstapel",
    logDrawDisplay: "{name} nimmt {card} aus der Auslage",
    logExchange: "{name} tauscht: legt {card} ab, nimmt {took}",
    logFromDeck: "eine Karte vom Stapel",
    logFromDisplay: "{card} aus der Auslage",
    logPass: "{name} passt",
    and: " und ",
    created: "Spiel angelegt.",
    startHotseat: "Losspielen",
    alliance: "Bündnis {n}",
  },
};

// English exonyms for an English UI (BOARD.md); German board names otherwise.
const EXONYMS = {
  Köln: "Cologne", Straßburg: "Strasbourg", Konstanz: "Constance", Zürich: "Zurich", Wien: "Vienna",
  Genf: "Geneva", Mailand: "Milan", Genua: "Genoa", Venedig: "Venice", Nürnberg: "Nuremberg", Würzburg: "Wurzburg",
};

let LANG = localStorage.getItem("kardinal-lang") || ((navigator.language || "en").toLowerCase().startsWith("de") ? "de" : "en");

function T(key, vars) {
  let s = (TEXTS[LANG] && TEXTS[LANG][key]) || TEXTS.en[key] || key;
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
  return s;
}

function setLang(lang) {
  LANG = lang;
  localStorage.setItem("kardinal-lang", lang);
  document.documentElement.lang = lang;
}

function siteName(name) {
  return LANG === "en" && EXONYMS[name] ? EXONYMS[name] : name;
}

function countryName(c) {
  return LANG === "en" ? c.name_en : c.name_de;
}

function el(tag, attrs, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k === "onclick") e.addEventListener("click", v);
    else if (k === "text") e.textContent = v;
    else e.setAttribute(k, v === true ? "" : v);
  }
  for (const c of children) if (c !== null && c !== undefined) e.append(c);
  return e;
}
