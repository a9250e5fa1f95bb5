// Text: every word the browser shows, in English, German and Danish, from this one table.
// T(key, vars) looks a text up in the page's language; the language is this module's own
// state, read with lang() and changed with setLang() (which tells whoever listens).
// Names of countries and sites come from the board data (board.js), not from here.

/** A text; its plural forms ({one, other}); or a keyed sub-table (boardNames, levelNames).
 * @typedef {string | Record<string, string>} Text */

/** @type {Record<string, Record<string, Text>>} each language's texts by key */
const TEXTS = {
  en: {
    title: "Kardinal & König",
    about: "About",
    rules: "Rules",
    aboutTitle: "About this board",
    close: "Close",
    language: "Deutsch",
    newGame: "New game",
    players: "Players",
    player: "Player",
    deletedPlayer: "deleted player",
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
    invitedSeat: "reserved",
    yourName: "Your name?",
    connecting: "Connecting…",
    disconnected: "Connection lost, reconnecting…",
    waitingPlayers: "Waiting for players to join: {names}",
    turnOf: "{name}'s turn",
    yourTurnMain: "Your turn: choose cards to play, or one card to exchange.",
    yourTurnDraw: "Refill your hand: take a display card or draw from the pile.",
    gameOver: "The game is over.",
    spectating: "You are watching.",
    showHand: "{name}'s turn — show my hand",
    botPlaying: "{name} (bot) is playing…",
    hand: "Your hand",
    handsCol: "In hand",
    display: "Display",
    drawPile: "Draw pile",
    cardsLeft: { one: "{n} card", other: "{n} cards" },
    discard: "Discard pile",
    removed: "Removed at setup",
    play: "Play",
    pass: "Pass",
    clear: "Clear selection",
    score: "Points",
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
    first: "First",
    back: "Back",
    forward: "Forward",
    last: "Last",
    live: "Back to the game",
    advisorLimit: "advisors {a} of at most {m}",
    coatOfArms: "coat of arms of {country}",
    map: "map",
    zoomIn: "Enlarge map",
    zoomOut: "Whole map",
    round: "final round",
    reconstruction: "This board is a reconstruction.",
    // the rules a game is played by (R14) and its board
    rulesAsWritten: "Rules: as written",
    variantOne: "Variant: {names}",
    variantMany: "Variants: {names}",
    rulesAndBoard: "Rules and board",
    ruleVariantsNone: "No rule variants known: the rules as written.",
    boardLabel: "Board",
    boardOf: "Board: {name}",
    boardNames: { standard: "standard (the counted board)", "reconstruction-1": "reconstruction-1 (the earlier board)" },
    variantTexts: {
      "joker-anywhere": "R4.3: a joker pair may also place its piece in a country printed on its cards.",
    },
    // the game log: moves from the record actions, the rest from the events
    logPlace: "{name} plays {cards} in {country}: {pieces}",
    logCloister: "cloister at {site}",
    logAdvisor: "advisor",
    logDrawDeck: "{name} draws from the draw pile",
    logDrawDisplay: "{name} takes {card} from the display",
    logExchange: "{name} exchanges: discards {card}, takes {took}",
    logFromDeck: "a card from the draw pile",
    logFromDisplay: "{card} from the display",
    logPass: "{name} passes",
    logYouDrew: "you drew {card}",
    logRevealed: "turned up: {cards}",
    and: " and ",
    listSep: ", ",
    logIntermediate: "The draw pile is used up: intermediate scoring (cloisters) — {points}.",
    logNewPile: { one: "The discard pile is shuffled into a new draw pile of {n} card.", other: "The discard pile is shuffled into a new draw pile of {n} cards." },
    logLastRound: "The draw pile is used up a second time: the round is completed; {name} plays the last turn.",
    logFinalPile: "Game over: final scoring (cloisters, alliances, chains) — {points}.",
    logFinalBlocked: "Game over, nobody can place a piece any more: final scoring (cloisters, alliances, chains) — {points}.",
    logWinner: "Winner: {names}.",
    logWinners: "Winners: {names}.",
    logPoints: "{name} {n}",
    created: "Game created.",
    noCard: "{card} cannot be added to these cards: no legal move uses them together.",
    noSite: "No cloister can go to {site} with these cards.",
    noCoat: "No advisor can go to {country} with these cards.",
    noCoatEmpty: "No advisor can go to {country}: it has no cloister yet, and a country holds at most as many advisors as the most cloisters anyone has there.",
    noCoatFull: "No more advisors can go to {country}: it would hold {n}, but the most cloisters anyone has there is {m}.",
    noTake: "Select exactly one card to exchange first.",
    // a bot level's measured strength (the server's words, said again in the page's language)
    strengthLoses: "loses almost every game",
    strengthWon: "won {w} of {n} games against three {level}",
    strengthWonShare: "won {w}% of {n} games against three {level}",
    strengthInterval: ", 95% interval {lo}–{hi}%{even}",
    strengthEven: ", an even share being {e}%",
    // the bots' levels (their ids are the English names)
    levelNames: { random: "random", easy: "easy", greedy: "greedy", medium: "medium", ismcts: "searcher", hard: "strong", expert: "expert" },
  },
  de: {
    title: "Kardinal & König",
    about: "Info",
    rules: "Regeln",
    aboutTitle: "Über diesen Spielplan",
    close: "Schließen",
    language: "English",
    newGame: "Neues Spiel",
    players: "Spieler",
    player: "Spieler",
    deletedPlayer: "gelöschter Spieler",
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
    invitedSeat: "reserviert",
    yourName: "Dein Name?",
    connecting: "Verbinde…",
    disconnected: "Verbindung verloren, verbinde neu…",
    waitingPlayers: "Warte auf Mitspieler: {names}",
    turnOf: "{name} ist am Zug",
    yourTurnMain: "Du bist am Zug: wähle Karten zum Ausspielen oder eine Karte zum Tauschen.",
    yourTurnDraw: "Hand auffüllen: nimm eine offene Karte oder ziehe vom Stapel.",
    gameOver: "Das Spiel ist zu Ende.",
    spectating: "Du schaust zu.",
    showHand: "{name} ist am Zug — meine Hand zeigen",
    botPlaying: "{name} (Bot) spielt…",
    hand: "Deine Hand",
    handsCol: "Auf der Hand",
    display: "Auslage",
    drawPile: "Nachziehstapel",
    cardsLeft: { one: "{n} Karte", other: "{n} Karten" },
    discard: "Ablagestapel",
    removed: "Aussortiert",
    play: "Ausspielen",
    pass: "Passen",
    clear: "Auswahl löschen",
    score: "Punkte",
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
    first: "Anfang",
    back: "Zurück",
    forward: "Vor",
    last: "Ende",
    live: "Zurück zum Spiel",
    advisorLimit: "Räte {a} von höchstens {m}",
    coatOfArms: "Wappen von {country}",
    map: "Karte",
    zoomIn: "Karte vergrößern",
    zoomOut: "Ganze Karte",
    round: "letzte Runde",
    reconstruction: "Dieser Spielplan ist eine Rekonstruktion.",
    rulesAsWritten: "Regeln: wie im Regelheft",
    variantOne: "Variante: {names}",
    variantMany: "Varianten: {names}",
    rulesAndBoard: "Regeln und Spielplan",
    ruleVariantsNone: "Keine Regelvarianten bekannt: die Regeln wie im Regelheft.",
    boardLabel: "Spielplan",
    boardOf: "Spielplan: {name}",
    boardNames: { standard: "standard (der gezählte Plan)", "reconstruction-1": "reconstruction-1 (der frühere Plan)" },
    variantTexts: {
      "joker-anywhere": "R4.3: Ein Joker-Paar darf seinen Stein auch in ein Land setzen, das auf seinen Karten steht.",
    },
    logPlace: "{name} spielt {cards} in {country}: {pieces}",
    logCloister: "Kloster in {site}",
    logAdvisor: "Rat",
    logDrawDeck: "{name} zieht vom Nachziehstapel",
    logDrawDisplay: "{name} nimmt {card} aus der Auslage",
    logExchange: "{name} tauscht: legt {card} ab, nimmt {took}",
    logFromDeck: "eine Karte vom Stapel",
    logFromDisplay: "{card} aus der Auslage",
    logPass: "{name} passt",
    logYouDrew: "du hast {card} gezogen",
    logRevealed: "aufgedeckt: {cards}",
    and: " und ",
    listSep: ", ",
    logIntermediate: "Der Nachziehstapel ist aufgebraucht: Zwischenwertung (Klöster) — {points}.",
    logNewPile: { one: "Der Ablagestapel wird gemischt und ist der neue Nachziehstapel ({n} Karte).", other: "Der Ablagestapel wird gemischt und ist der neue Nachziehstapel ({n} Karten)." },
    logLastRound: "Der Nachziehstapel ist zum zweiten Mal aufgebraucht: die Runde wird zu Ende gespielt; {name} hat den letzten Zug.",
    logFinalPile: "Spielende: Schlusswertung (Klöster, Bündnisse, Ketten) — {points}.",
    logFinalBlocked: "Spielende, niemand kann mehr einen Stein setzen: Schlusswertung (Klöster, Bündnisse, Ketten) — {points}.",
    logWinner: "Sieger: {names}.",
    logWinners: "Sieger: {names}.",
    logPoints: "{name} {n}",
    created: "Spiel angelegt.",
    noCard: "{card} passt nicht zu diesen Karten: kein erlaubter Zug nutzt sie zusammen.",
    noSite: "Mit diesen Karten kann kein Kloster nach {site}.",
    noCoat: "Mit diesen Karten kann kein Rat nach {country}.",
    noCoatEmpty: "Kein Rat kann nach {country}: dort steht noch kein Kloster, und ein Land nimmt höchstens so viele Räte auf, wie dort jemand Klöster hat.",
    noCoatFull: "Kein weiterer Rat kann nach {country}: dort stünden dann {n}, aber die meisten Klöster dort hat jemand mit {m}.",
    noTake: "Wähle zuerst genau eine Karte zum Tauschen.",
    strengthLoses: "verliert fast jedes Spiel",
    strengthWon: "gewann {w} von {n} Spielen gegen drei Bots der Stufe {level}",
    strengthWonShare: "gewann {w} % von {n} Spielen gegen drei Bots der Stufe {level}",
    strengthInterval: ", 95-%-Intervall {lo}–{hi} %{even}",
    strengthEven: ", bei einem gleichen Anteil von {e} %",
    levelNames: { random: "Zufall", easy: "leicht", greedy: "gierig", medium: "mittel", ismcts: "Sucher", hard: "stark", expert: "Meister" },
  },
  da: {
    title: "Kardinal & König",
    about: "Om",
    rules: "Regler",
    aboutTitle: "Om denne spilleplade",
    close: "Luk",
    language: "English",
    newGame: "Nyt spil",
    players: "Spillere",
    player: "Spiller",
    deletedPlayer: "slettet spiller",
    seat: "Plads",
    name: "Navn",
    person: "Menneske",
    bot: "Bot",
    level: "Niveau",
    hotseat: "Hot-seat (alle mennesker ved denne browser)",
    create: "Opret spil",
    invitations: "Invitationslinks (ét pr. person; hold dem hemmelige)",
    watchLink: "Offentligt link for tilskuere",
    openGames: "Åbne spil",
    runningGames: "Igangværende spil",
    finishedGames: "Afsluttede spil",
    none: "ingen",
    watch: "Se med",
    join: "Deltag",
    replay: "Genafspilning",
    free: "ledig",
    invitedSeat: "reserveret",
    yourName: "Dit navn?",
    connecting: "Forbinder…",
    disconnected: "Forbindelsen er tabt, forbinder igen…",
    waitingPlayers: "Venter på medspillere: {names}",
    turnOf: "{name} har turen",
    yourTurnMain: "Din tur: vælg kort at spille, eller ét kort at bytte.",
    yourTurnDraw: "Fyld din hånd op: tag et åbent kort, eller træk fra bunken.",
    gameOver: "Spillet er slut.",
    spectating: "Du ser med.",
    showHand: "{name} har turen — vis min hånd",
    botPlaying: "{name} (bot) spiller…",
    hand: "Din hånd",
    handsCol: "På hånden",
    display: "Åbne kort",
    drawPile: "Trækkebunke",
    cardsLeft: { one: "{n} kort", other: "{n} kort" },
    discard: "Aflægningsbunke",
    removed: "Taget ud ved start",
    play: "Spil",
    pass: "Pas",
    clear: "Ryd valget",
    score: "Point",
    cloisters: "klostre",
    advisors: "rådmænd",
    cards: "kort",
    log: "Spilforløb",
    scoring: "Pointtælling",
    standings: "Slutstilling",
    winner: "vinder",
    intermediate: "Første tælling (klostre)",
    finalCloisters: "Sluttælling: klostre",
    alliances: "Sammenslutninger",
    chains: "Kæder",
    total: "I alt",
    piecesLeft: "brikker tilbage",
    refused: "Afvist: {msg}",
    chooseCountry: "Vælg et land på kortet.",
    choosePieces: "Klik på klosterfelter og/eller våbenskjoldet, derefter Spil.",
    readyToPlay: "Tryk på Spil for at sætte disse brikker.",
    chooseTake: "Tag i bytte et åbent kort eller det øverste kort fra trækkebunken.",
    record: "Hent spilprotokollen",
    first: "Start",
    back: "Tilbage",
    forward: "Frem",
    last: "Slut",
    live: "Tilbage til spillet",
    advisorLimit: "rådmænd {a} af højst {m}",
    coatOfArms: "våbenskjold for {country}",
    map: "kort",
    zoomIn: "Forstør kortet",
    zoomOut: "Hele kortet",
    round: "sidste runde",
    reconstruction: "Denne spilleplade er en rekonstruktion.",
    rulesAsWritten: "Regler: som i regelhæftet",
    variantOne: "Variant: {names}",
    variantMany: "Varianter: {names}",
    rulesAndBoard: "Regler og spilleplade",
    ruleVariantsNone: "Ingen kendte regelvarianter: reglerne som i regelhæftet.",
    boardLabel: "Spilleplade",
    boardOf: "Spilleplade: {name}",
    boardNames: { standard: "standard (den optalte plade)", "reconstruction-1": "reconstruction-1 (den tidligere plade)" },
    variantTexts: { "joker-anywhere": "R4.3: Et jokerpar må også sætte sin brik i et land, der står på dets kort." },
    logPlace: "{name} spiller {cards} i {country}: {pieces}",
    logCloister: "kloster i {site}",
    logAdvisor: "rådmand",
    logDrawDeck: "{name} trækker fra trækkebunken",
    logDrawDisplay: "{name} tager {card} fra de åbne kort",
    logExchange: "{name} bytter: lægger {card} af, tager {took}",
    logFromDeck: "et kort fra trækkebunken",
    logFromDisplay: "{card} fra de åbne kort",
    logPass: "{name} passer",
    logYouDrew: "du trak {card}",
    logRevealed: "vendt: {cards}",
    and: " og ",
    listSep: ", ",
    logIntermediate: "Trækkebunken er brugt op: første tælling (klostre) — {points}.",
    logNewPile: { one: "Aflægningsbunken blandes til en ny trækkebunke med {n} kort.", other: "Aflægningsbunken blandes til en ny trækkebunke med {n} kort." },
    logLastRound: "Trækkebunken er brugt op for anden gang: runden spilles til ende; {name} har den sidste tur.",
    logFinalPile: "Spillet er slut: sluttælling (klostre, sammenslutninger, kæder) — {points}.",
    logFinalBlocked: "Spillet er slut, ingen kan sætte flere brikker: sluttælling (klostre, sammenslutninger, kæder) — {points}.",
    logWinner: "Vinder: {names}.",
    logWinners: "Vindere: {names}.",
    logPoints: "{name} {n}",
    created: "Spillet er oprettet.",
    noCard: "{card} passer ikke til disse kort: intet lovligt træk bruger dem sammen.",
    noSite: "Med disse kort kan der ikke bygges et kloster i {site}.",
    noCoat: "Med disse kort kan der ikke sættes en rådmand i {country}.",
    noCoatEmpty: "Der kan ikke sættes en rådmand i {country}: der er endnu intet kloster, og et land kan højst have så mange rådmænd, som den spiller med flest klostre har dér.",
    noCoatFull: "Der kan ikke sættes flere rådmænd i {country}: der ville så stå {n}, men flest klostre dér er {m}.",
    noTake: "Vælg først præcis ét kort at bytte.",
    strengthLoses: "taber næsten hvert spil",
    strengthWon: "vandt {w} af {n} spil mod tre bots på niveauet {level}",
    strengthWonShare: "vandt {w} % af {n} spil mod tre bots på niveauet {level}",
    strengthInterval: ", 95 %-interval {lo}–{hi} %{even}",
    strengthEven: ", hvor en lige andel er {e} %",
    levelNames: { random: "tilfældig", easy: "let", greedy: "grådig", medium: "middel", ismcts: "søger", hard: "stærk", expert: "ekspert" },
  },
};

// English exonyms of the board's (German) site names, for an English page (BOARD.md).
// Used only where the board data brings no English name of its own (site.name_en).
/** @type {Record<string, string>} */
const EXONYMS = {
  Köln: "Cologne", Straßburg: "Strasbourg", Konstanz: "Constance", Zürich: "Zurich", Wien: "Vienna",
  Genf: "Geneva", Mailand: "Milan", Genua: "Genoa", Venedig: "Venice", Nürnberg: "Nuremberg", Würzburg: "Wurzburg",
};

// Danish names of the board's (German) country and site names where Danish says them otherwise
// (the Danish rulebook's "Frankrig"; the cities as Danish writes them); the others stay as they are.
/** @type {Record<string, string>} */
const DANISH_NAMES = {
  Frankreich: "Frankrig", Genf: "Genève", Genua: "Genova", Mailand: "Milano", Straßburg: "Strasbourg", Turin: "Torino",
};

export const LANGUAGES = Object.freeze(Object.keys(TEXTS));

function stored() {
  try { return localStorage.getItem("kardinal-lang"); } catch (e) { return null; }
}

/** @type {string} */
let current = (() => {
  const s = stored();
  if (s && TEXTS[s]) return s;
  const own = (navigator.language || "en").toLowerCase().split("-")[0]; // "da-DK" -> "da"
  return TEXTS[own] ? own : "en";
})();
/** @type {Set<(lang: string) => void>} */
const listeners = new Set();

/** The page's language ("en", "de" or "da"). */
export function lang() { return current; }

/** The browser's own locale where it speaks the page's language (en-GB writes dates
 * day first), else the page's language. */
export function locale() {
  const own = navigator.languages && navigator.languages.length ? navigator.languages : [navigator.language || ""];
  return own.find((l) => l.toLowerCase().split("-")[0] === current) || current;
}

/** A moment (seconds since 1970) as a date and time in the page's language and the browser's locale.
 * @param {number} seconds */
export function dateTime(seconds) {
  return new Date(seconds * 1000).toLocaleString(locale(), { dateStyle: "medium", timeStyle: "short" });
}

/** The plural category ("one", "other") of the number n in the page's language.
 * @param {unknown} n */
export function plural(n) {
  return new Intl.PluralRules(current).select(Number(n));
}

/** A number in the page's language: num(-6.73, 1) is "−6.7" in English, "−6,7" in German;
 * thousands are grouped ("1,200" / "1.200"). `digits` (default 0) is the number of decimals.
 * @param {number | string} x */
export function num(x, digits = 0) {
  const s = new Intl.NumberFormat(current, { minimumFractionDigits: digits, maximumFractionDigits: digits }).format(Number(x));
  return s.replace(/^-/, "−"); // the minus sign, not a hyphen
}

/** The other language (what the language button switches to: English and German to each other, Danish to English). */
export function otherLang() { return current === "en" ? "de" : "en"; }

/** A text of the table in the page's language, with {name} replaced from vars (and the
 * words of a touch screen on one: touchWords). */
/** A seat's name in this page's language: an unnamed seat (stored with no name, "") is
 * "Player 2" ("Spieler 2"); ``seat`` counts from 0.
 * @param {string | null | undefined} name @param {number} seat */
export function seatName(name, seat) {
  if (!name) return `${T("player")} ${seat + 1}`;
  // a deleted account's seat is stored as "deleted player" (with a number when taken): said in the page's language
  const deleted = /^deleted player( \d+)?$/.exec(name);
  return deleted ? T("deletedPlayer") + (deleted[1] || "") : name;
}

/** Who said a chat line (or is named by its notice): its seat's name, or a spectator's.
 * @param {{ seat?: number | null, name?: string | null }} x */
export function lineName(x) {
  if (x.seat === null || x.seat === undefined) return x.name || T("chatSpectatorAnon"); // a spectator who gave no name
  return seatName(x.name, x.seat);
}

/** @param {string} key @param {Record<string, unknown>} [vars] @returns {string} */
export function T(key, vars) {
  let s = (TEXTS[current] && TEXTS[current][key]) ?? TEXTS.en[key] ?? key;
  // a text with plural forms ({one, other}) is chosen by the number vars.n
  if (s && typeof s === "object" && "other" in s) s = s[plural(vars && vars.n)] ?? s.other;
  if (typeof s !== "string") return key;
  if (vars) for (const [k, v] of Object.entries(vars)) s = s.split("{" + k + "}").join(String(v));
  return touchWords(s);
}

// "Click" where the finger taps: the action's word on a screen whose main pointer is a finger
/** @type {[RegExp, (...m: string[]) => string][]} */
const TOUCH_WORDS = [
  [/\bClick(ing|ed|s)?\b/g, (m, e) => "Tap" + ({ ing: "ping", ed: "ped", s: "s" }[e] || "")],
  [/\bclick(ing|ed|s)?\b/g, (m, e) => "tap" + ({ ing: "ping", ed: "ped", s: "s" }[e] || "")],
  [/\b([Kk])lick(e|en|st|t)\b/g, (m, k, e) => (k === "K" ? "T" : "t") + "ipp" + e],
  [/\b([Kk])lik(ke|ker|ket)?\b/g, (m, k, e) => (k === "K" ? "T" : "t") + "ryk" + (e || "")],
];

/** Whether the page is used by a finger (the main pointer is coarse: a phone, a tablet). */
export function touchScreen() {
  return Boolean(window.matchMedia && window.matchMedia("(pointer: coarse)").matches);
}

/** A text with the words of clicking turned into those of tapping on a touch screen
 * ("Click" -> "Tap", "Klicke" -> "Tippe", "Klik" -> "Tryk"); unchanged elsewhere.
 * @param {string} s */
export function touchWords(s) {
  if (!touchScreen() || !/lic?k/.test(s)) return s; // "click", "Klick", "Klik"
  for (const [re, f] of TOUCH_WORDS) s = s.replace(re, f);
  return s;
}

/** Add a module's own texts to the table: addStrings({en: {...}, de: {...}}). A module
 * (the tutorial, the scoring overlay, ...) keeps its words beside its code this way;
 * a key already in the table is an error, so two modules cannot fight over one word.
 * @param {Record<string, Record<string, Text>>} tables */
export function addStrings(tables) {
  for (const [l, table] of Object.entries(tables)) {
    if (!TEXTS[l]) throw new Error(`addStrings: unknown language ${l}`);
    for (const [k, v] of Object.entries(table)) {
      if (k in TEXTS[l]) throw new Error(`addStrings: the text ${k} is already defined`);
      TEXTS[l][k] = v;
    }
  }
}

/** An entry of a keyed sub-table (boardNames, variantTexts), or undefined.
 * @param {string} table @param {string} id
 * @returns {string | undefined} */
function lookup(table, id) {
  const own = TEXTS[current] && TEXTS[current][table];
  const en = TEXTS.en[table];
  return (typeof own === "object" ? own[id] : undefined) ?? (typeof en === "object" ? en[id] : undefined);
}

/** Switch the language: remembered in the browser, set on <html lang>, and told to listeners.
 * @param {string} l */
export function setLang(l) {
  if (!TEXTS[l]) return;
  current = l;
  try { localStorage.setItem("kardinal-lang", l); } catch (e) { /* private mode: not remembered */ }
  document.documentElement.lang = l;
  for (const f of listeners) f(l);
}

/** Call f(lang) whenever the language changes.
 * @param {(lang: string) => void} f */
export function onLangChange(f) { listeners.add(f); }

/** A site's or country's name in the page's language (the board's name, or its English or Danish form).
 * @param {string} name @param {string} [nameEn] */
export function placeName(name, nameEn) {
  if (current === "da") return DANISH_NAMES[name] || name;
  if (current !== "en") return name;
  return nameEn || EXONYMS[name] || name;
}

/** A list of words: "a, b and c".
 * @param {string[]} items */
export function listText(items) {
  if (items.length <= 1) return items.join("");
  return items.slice(0, -1).join(T("listSep")) + T("and") + items[items.length - 1];
}

/** The rules a game is played by: "Rules: as written" or "Variant: joker-anywhere".
 * @param {string[] | undefined} variants */
export function rulesText(variants) {
  const v = variants || [];
  if (!v.length) return T("rulesAsWritten");
  return T(v.length === 1 ? "variantOne" : "variantMany", { names: v.join(", ") });
}

/** What a variant changes, in the page's language; `fallback` (the server's words) for one this table lacks.
 * @param {string} name @param {string} [fallback] */
export function variantText(name, fallback) {
  return lookup("variantTexts", name) || fallback || name;
}

/** A bot level's measured strength in the page's language, from the server's English
 * ("won 59% of 200 games against three greedy (95% interval 54-65%)"); words of a form
 * this page does not know are shown as they came.
 * @param {string | null | undefined} words */
export function strengthText(words) {
  if (!words) return "";
  if (words === "loses almost every game") return T("strengthLoses");
  const m = /^won (\d+)(%?) of ([\d,]+) games against three ([\w-]+)(?: \(95% interval (\d+)-(\d+)%(?:; an even share is (\d+)%)?\))?$/.exec(words);
  if (!m) return words;
  const n = num(Number(m[3].replace(/,/g, "")));
  let out = T(m[2] ? "strengthWonShare" : "strengthWon", { w: num(m[1]), n, level: levelName(m[4]) });
  if (m[5]) out += T("strengthInterval", { lo: m[5], hi: m[6], even: m[7] ? T("strengthEven", { e: m[7] }) : "" });
  return out;
}

/** A bot level's name in the page's language, as a sentence says it ("a bot (greedy)"; its
 * id where the table has no other word); the lists' "Greedy": :func:`levelTitle`.
 * @param {string} id */
export function levelName(id) {
  return lookup("levelNames", id) || id;
}

/** A bot level's name at the head of a list item ("Greedy", "Gierig").
 * @param {string} id */
export function levelTitle(id) {
  const name = levelName(id);
  return name.charAt(0).toUpperCase() + name.slice(1);
}

// The boards' About in German and Danish: the translation of the English text in each board's file
// (which cannot carry it: a board file's every key is part of its digest, which records keep).
/** @type {Record<string, Record<string, string>>} */
const BOARD_ABOUT = {
  de: {
    standard: "Eine Rekonstruktion des Spielplans von Kardinal & König (Goldsieber 2000): Die gezählten Klosterfelder und Bündnisse je Land und die übrigen bekannten Tatsachen stimmen, der Rest wurde aus Städten und Straßen des 12. Jahrhunderts neu aufgebaut.",
    "reconstruction-1": "Die frühere Rekonstruktion des Spielplans von Kardinal & König (50 Klosterfelder, Lothringen 4), aufbewahrt, damit darauf gespielte Partien und Aufzeichnungen genau nachgespielt werden; neue Spiele nutzen den Plan „standard“.",
  },
  da: {
    standard: "En rekonstruktion af spillepladen til Kardinal & König (Goldsieber 2000): de optalte klosterfelter og sammenslutninger i hvert land og de øvrige kendte fakta passer, resten er genopbygget ud fra byer og veje fra 1100-tallet.",
    "reconstruction-1": "Den tidligere rekonstruktion af spillepladen til Kardinal & König (50 klosterfelter, Lothringen 4), gemt så spil og protokoller fra den kan genafspilles præcist; nye spil bruger pladen “standard”.",
  },
};

/** What a board is (its About), in the page's language where a translation is known, else the board file's own English.
 * @param {{ id?: string, name?: string, about?: string }} data */
export function boardAbout(data) {
  const own = BOARD_ABOUT[current];
  return (own && own[data.id || data.name || ""]) || data.about || "";
}

/** A board's name for a person: a known id with a word on what it is, else the id.
 * @param {string} id */
export function boardName(id) {
  return lookup("boardNames", id) || id;
}
