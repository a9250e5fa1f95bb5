// Refusals in the page's language. The server refuses with a stable code and parameters
// ({code, message, params, rule?, reason?}; see messages.py ErrorData): a refusal by the
// rules has code "illegal", the rule ("R4.3") and the rules' own code as `reason`
// (RuleError in rules/state.py). This module says each of them in English or German, with
// the names of countries, sites and cards from the board; an unknown code falls back to
// the server's English words, so a newer server never leaves the player without a reason.

import { addStrings, lang, T } from "./i18n.js";
import { HttpError } from "./net.js";
/** @import { ErrorData } from "./messages.js" */
/** @import { Board } from "./board.js" */

/** A refusal as the pages hold one: the server's ErrorData, or only its code (a refusal the
 * page itself makes, e.g. game.js's "not_your_turn" before asking the server).
 * @typedef {Pick<ErrorData, "code"> & Partial<ErrorData>} Refusal */
/** A refusal's parameters as refusalText fills them in (names for ids, `message`, `n`).
 * @typedef {Record<string, string | number | undefined>} Params */

addStrings({
  en: {
    // the server's own refusals
    "err.bad_token": "this link does not hold that seat (a wrong or outdated token)",
    "err.not_your_turn": "it is {name}'s turn",
    "err.stale_version": "the game has moved on meanwhile; here is the new position",
    "err.not_started": "the game starts when every player has joined",
    "err.game_over": "the game is over",
    "err.not_open": "the game is not waiting for players",
    "err.seat_taken": "that seat is taken",
    "err.seat_invited": "this seat is kept for an invited player: it is taken with its invitation link",
    "err.no_game": "there is no such game",
    "err.not_finished": "this is available once the game is over",
    "err.too_many_bot_games": "at most {max} games of bots only may run at once from here; wait until one ends",
    "err.rate_limited": "too many requests from this address; try again in {retry} s",
    "err.unavailable": "the server could not save this; nothing was changed — try again in a moment",
    "err.unreadable": "this game's stored data cannot be read; the server's operator can find it in the log",
    "err.too_large": "the request is too large (at most {max} bytes)",
    "err.bad_name": "a name has at most {max} characters: letters, digits, punctuation and spaces",
    "err.cannot_undo": "only your own placement can be taken back, and only before you draw a card",
    "err.malformed": "the server could not read the request ({message})",
    // accounts
    "err.bad_sign_in": "wrong name or password",
    "err.account_name_taken": "the name {name} is taken: choose another",
    "err.bad_password": "a password has {min} to {max} characters",
    "err.wrong_password": "this is not the account's password",
    "err.signed_out": "you are signed out: sign in again",
    "err.cross_site": "refused: the request came from another site's page",
    "err.suspended": "this account is suspended until {until}",
    "err.suspended_seats": "until then you watch your games, and a bot plays for you as for anyone away",
    "err.suspended_why": "the reason given: “{why}”",
    "err.suspended_contact": "to ask about it, write to {contact}",
    "err.suspended_ask": "to ask about it, contact the operator of this site",
    "err.not_yourself": "that is you",
    "err.bad_report": "say in a few words what is wrong (at most {max} characters)",
    "err.no_line": "that line is not in this game's chat",
    "err.bad_mail_link": "this link does not work (any more): it was used, it expired, or it is wrong",
    "err.mail_off": "e-mail is off on this server",
    "err.no_address": "confirm a mail address first",
    "err.bad_email": "that is not a mail address",
    "err.rated_needs_account": "rated tables are for signed-in players: sign in first",
    "err.rated_one_seat": "you have a seat at this rated table already",
    "err.rated_no_hotseat": "a rated table has no hot-seat: every person plays on their own device",
    "err.rated_no_hints": "a rated table has no hints: a hint is a bot's advice",
    "err.not_joined": "take your seat first",
    "err.kept_seats": "the free seats are kept for the players expected here: the game starts when they come",
    "err.bot_seat": "a bot plays this seat: the table was started without you, so you watch",
    "err.blocked_at_table": "someone at this table has blocked another player: make a new table instead",
    "err.blocked_table": "a block is between you and someone at this table: take a seat at another table",
    "err.not_your_seat": "this seat does not belong to your account",
    "err.busy": "the server is busy checking passwords; try again in a moment",
    "err.malformed_field": "the server could not read the request: {field} is missing or not valid",
    "err.name_taken": "the name {name} is taken at this table",
    // profiles, following, invitations by name (social.py)
    "err.no_player": "there is no player called {name}",
    "err.follow_self": "you cannot follow yourself",
    "err.too_many_follows": "you follow {max} players already",
    "err.invite_self": "you cannot invite yourself: your own seat is yours already",
    "err.invited_twice": "{name} is invited to this table already",
    "err.not_invitable": "{name} cannot be invited by you",
    "err.no_invitation": "you have no invitation to this seat (taken, declined or withdrawn)",
    "err.friends_only": "this table is for friends only: only players its creator follows (signed in) can join",
    "err.not_found": "there is no such page",
    "err.not_allowed": "the server does not take this kind of request here",
    "err.bad_chat": "a chat line says something, in at most {max} characters",
    "err.chat_closed": "spectators may read the chat; the players have not opened it to them",
    "err.hints_off": "hints were not agreed to when this game was created",
    "err.expired": "this game expired: nobody moved for too long",
    "err.busy_reviews": "the server is reviewing other games; try again in a minute",
    // the rules' refusals (reason codes of RuleError)
    "rule.game_over": "the game is over",
    "rule.not_your_turn": "it is not your turn",
    "rule.must_draw": "refill your hand first: take a display card or draw from the pile",
    "rule.cannot_pass": "you may pass only when you can neither place a piece nor exchange a card",
    "rule.not_a_move": "that is not a move",
    "rule.unknown_card": "there is no such card",
    "rule.not_drawing": "cards are drawn only when refilling the hand after placing",
    "rule.deck_empty": "the draw pile is empty",
    "rule.not_on_display": "there is no {card} card on display",
    "rule.card_not_in_hand": "you hold {have} × {card}, not {play}",
    "rule.unknown_country": "there is no such country",
    "rule.card_count": "play 1, 2 or 3 cards",
    "rule.piece_count": "place 1 or 2 pieces",
    "rule.card_country": "a {card} card does not name {country}",
    "rule.joker_pair": "two cards for one piece must be a pair of the same card (a joker)",
    "rule.joker_own_country": "a joker places its piece in another country than those on its cards, not in {country}",
    "rule.three_cards": "three cards place two pieces in {country}: one card naming it and a pair of the same card",
    "rule.unused_cards": "every card played must be used: three cards place two pieces",
    "rule.too_few_cards": "one card places one piece: two pieces need two or three cards",
    "rule.empty_country": "{country} is empty: the first piece there is a single cloister",
    "rule.no_cloisters": { one: "you have {left} cloister left in your supply", other: "you have {left} cloisters left in your supply" },
    "rule.no_advisors": { one: "you have {left} advisor left in your supply", other: "you have {left} advisors left in your supply" },
    "rule.same_site": "each cloister site holds one cloister",
    "rule.unknown_site": "there is no such cloister site",
    "rule.site_country": "{site} is not in {country}: all pieces of a turn go into one country",
    "rule.country_full": "{country} has no free cloister site",
    "rule.site_taken": "{site} already holds a cloister",
    "rule.advisor_limit_empty": "{country} has no cloister yet, so it takes no advisor",
    "rule.advisor_limit": "{country} would hold {total} advisors, but the most cloisters anyone has there is {limit}",
    "rule.no_reshuffle": "the draw pile is used up and no reshuffle is given",
    "rule.bad_reshuffle": "the recorded reshuffle is not the discard pile",
    // the parts of a request a malformed refusal names (its `field`: "players.0.name")
    "field.players": "the list of players",
    "field.player": "player {n}",
    "field.player.name": "the name of player {n}",
    "field.player.kind": "who plays seat {n}",
    "field.player.level": "the bot level of player {n}",
    "field.name": "the name",
    "field.board": "the board",
    "field.variants": "the choice of rule variants",
    "field.hotseat": "the hot-seat choice",
    "field.key": "the request's key",
    "field.seat": "the seat",
    "field.text": "the chat line",
    "field.mode": "how you play (live or turn-based)",
    "field.away": "the minutes before a bot plays for a person who left",
    "field.standin": "that bot's level",
    "field.hints": "the choice of hints",
    "field.spectator_chat": "the choice of the spectators' chat",
    "field.public": "the choice of listing the game",
  },
  de: {
    "err.bad_token": "dieser Link gehört nicht zu diesem Platz (ein falsches oder altes Zeichen)",
    "err.not_your_turn": "{name} ist am Zug",
    "err.stale_version": "das Spiel ist inzwischen weitergegangen; hier ist die neue Stellung",
    "err.not_started": "das Spiel beginnt, wenn alle Spieler beigetreten sind",
    "err.game_over": "das Spiel ist zu Ende",
    "err.not_open": "das Spiel wartet nicht auf Spieler",
    "err.seat_taken": "dieser Platz ist besetzt",
    "err.seat_invited": "dieser Platz ist für einen eingeladenen Spieler reserviert: er wird mit seinem Einladungslink eingenommen",
    "err.no_game": "dieses Spiel gibt es nicht",
    "err.not_finished": "das gibt es, sobald das Spiel zu Ende ist",
    "err.too_many_bot_games": "von hier laufen höchstens {max} Spiele nur mit Bots gleichzeitig; warte, bis eines endet",
    "err.rate_limited": "zu viele Anfragen von dieser Adresse; bitte in {retry} s noch einmal",
    "err.unavailable": "der Server konnte das nicht speichern; nichts wurde geändert — bitte gleich noch einmal",
    "err.unreadable": "die gespeicherten Daten dieses Spiels sind nicht lesbar; der Betreiber findet es im Protokoll",
    "err.too_large": "die Anfrage ist zu groß (höchstens {max} Bytes)",
    "err.bad_name": "ein Name hat höchstens {max} Zeichen: Buchstaben, Ziffern, Satzzeichen und Leerzeichen",
    "err.cannot_undo": "zurücknehmen lässt sich nur der eigene Einsatz, und nur bevor du eine Karte ziehst",
    "err.malformed": "der Server konnte die Anfrage nicht lesen ({message})",
    // Konten
    "err.bad_sign_in": "falscher Name oder falsches Passwort",
    "err.account_name_taken": "der Name {name} ist vergeben: wähle einen anderen",
    "err.bad_password": "ein Passwort hat {min} bis {max} Zeichen",
    "err.wrong_password": "das ist nicht das Passwort dieses Kontos",
    "err.signed_out": "du bist abgemeldet: melde dich wieder an",
    "err.cross_site": "abgelehnt: die Anfrage kam von der Seite einer anderen Website",
    "err.suspended": "dieses Konto ist bis {until} gesperrt",
    "err.suspended_seats": "bis dahin siehst du deinen Spielen nur zu, und ein Bot spielt für dich wie für jeden, der weg ist",
    "err.suspended_why": "Begründung: „{why}“",
    "err.suspended_contact": "Fragen dazu an: {contact}",
    "err.suspended_ask": "Fragen dazu beantwortet der Betreiber dieser Website",
    "err.not_yourself": "das bist du",
    "err.bad_report": "sag in ein paar Worten, was nicht stimmt (höchstens {max} Zeichen)",
    "err.no_line": "diese Zeile steht nicht im Chat dieses Spiels",
    "err.bad_mail_link": "dieser Link gilt nicht (mehr): er wurde schon benutzt, ist abgelaufen oder falsch",
    "err.mail_off": "E-Mail ist auf diesem Server aus",
    "err.no_address": "bestätige zuerst eine Mailadresse",
    "err.bad_email": "das ist keine Mailadresse",
    "err.rated_needs_account": "gewertete Tische sind für angemeldete Spieler: melde dich zuerst an",
    "err.rated_one_seat": "du hast an diesem gewerteten Tisch schon einen Platz",
    "err.rated_no_hotseat": "ein gewerteter Tisch hat keinen Hot-Seat: jeder spielt auf seinem eigenen Gerät",
    "err.rated_no_hints": "ein gewerteter Tisch hat keine Tipps: ein Tipp ist der Rat eines Bots",
    "err.not_joined": "nimm zuerst deinen Platz ein",
    "err.kept_seats": "die freien Plätze sind für die erwarteten Mitspieler reserviert: das Spiel beginnt, wenn sie kommen",
    "err.bot_seat": "an diesem Platz spielt ein Bot: der Tisch wurde ohne dich begonnen, du schaust zu",
    "err.blocked_at_table": "jemand an diesem Tisch hat jemand anderen blockiert: lege stattdessen einen neuen Tisch an",
    "err.blocked_table": "zwischen dir und jemandem an diesem Tisch besteht eine Blockierung: nimm an einem anderen Tisch Platz",
    "err.not_your_seat": "dieser Platz gehört nicht zu deinem Konto",
    "err.busy": "der Server prüft gerade viele Passwörter; versuche es gleich noch einmal",
    "err.malformed_field": "der Server konnte die Anfrage nicht lesen: {field} fehlt oder ist ungültig",
    "err.name_taken": "der Name {name} ist an diesem Tisch schon vergeben",
    // profiles, following, invitations by name (social.py)
    "err.no_player": "niemand heißt {name}",
    "err.follow_self": "du kannst dir nicht selbst folgen",
    "err.too_many_follows": "du folgst schon {max} Personen",
    "err.invite_self": "du kannst dich nicht selbst einladen: dein eigener Platz ist schon deiner",
    "err.invited_twice": "{name} ist an diesen Tisch schon eingeladen",
    "err.not_invitable": "{name} kannst du nicht einladen",
    "err.no_invitation": "du hast keine Einladung zu diesem Platz (eingenommen, abgelehnt oder zurückgezogen)",
    "err.friends_only": "dieser Tisch ist nur für Freunde: beitreten kann nur, wem die Person folgt, die ihn angelegt hat (angemeldet)",
    "err.not_found": "diese Seite gibt es nicht",
    "err.not_allowed": "diese Art Anfrage nimmt der Server hier nicht an",
    "err.bad_chat": "eine Chatzeile sagt etwas, in höchstens {max} Zeichen",
    "err.chat_closed": "Zuschauer können den Chat lesen; die Spieler haben ihn nicht für sie geöffnet",
    "err.hints_off": "Tipps wurden beim Anlegen dieses Spiels nicht vereinbart",
    "err.expired": "dieses Spiel ist abgelaufen: zu lange hat niemand gezogen",
    "err.busy_reviews": "der Server wertet gerade andere Spiele aus; versuche es in einer Minute noch einmal",
    "rule.game_over": "das Spiel ist zu Ende",
    "rule.not_your_turn": "du bist nicht am Zug",
    "rule.must_draw": "fülle zuerst die Hand auf: nimm eine Karte aus der Auslage oder vom Stapel",
    "rule.cannot_pass": "passen darf nur, wer weder einen Stein setzen noch eine Karte tauschen kann",
    "rule.not_a_move": "das ist kein Zug",
    "rule.unknown_card": "diese Karte gibt es nicht",
    "rule.not_drawing": "Karten werden nur nach dem Einsetzen zum Auffüllen gezogen",
    "rule.deck_empty": "der Nachziehstapel ist leer",
    "rule.not_on_display": "in der Auslage liegt keine Karte {card}",
    "rule.card_not_in_hand": "du hast {have} × {card}, nicht {play}",
    "rule.unknown_country": "dieses Land gibt es nicht",
    "rule.card_count": "spiele 1, 2 oder 3 Karten",
    "rule.piece_count": "setze 1 oder 2 Steine",
    "rule.card_country": "die Karte {card} nennt {country} nicht",
    "rule.joker_pair": "zwei Karten für einen Stein müssen ein gleiches Paar sein (ein Joker)",
    "rule.joker_own_country": "ein Joker setzt in ein anderes Land als die auf seinen Karten, nicht nach {country}",
    "rule.three_cards": "drei Karten setzen zwei Steine nach {country}: eine Karte mit diesem Land und ein gleiches Paar",
    "rule.unused_cards": "jede gespielte Karte muss genutzt werden: drei Karten setzen zwei Steine",
    "rule.too_few_cards": "eine Karte setzt einen Stein: zwei Steine brauchen zwei oder drei Karten",
    "rule.empty_country": "{country} ist leer: dorthin kommt zuerst ein einzelnes Kloster",
    "rule.no_cloisters": { one: "dir bleibt {left} Kloster im Vorrat", other: "dir bleiben {left} Klöster im Vorrat" },
    "rule.no_advisors": { one: "dir bleibt {left} Rat im Vorrat", other: "dir bleiben {left} Räte im Vorrat" },
    "rule.same_site": "jeder Klosterplatz nimmt ein Kloster auf",
    "rule.unknown_site": "diesen Klosterplatz gibt es nicht",
    "rule.site_country": "{site} liegt nicht in {country}: alle Steine eines Zuges kommen in ein Land",
    "rule.country_full": "{country} hat keinen freien Klosterplatz",
    "rule.site_taken": "auf {site} steht schon ein Kloster",
    "rule.advisor_limit_empty": "{country} hat noch kein Kloster und nimmt daher keinen Rat auf",
    "rule.advisor_limit": "{country} hätte {total} Räte, aber die meisten Klöster dort hat jemand mit {limit}",
    "rule.no_reshuffle": "der Nachziehstapel ist aufgebraucht und kein neuer ist gegeben",
    "rule.bad_reshuffle": "der aufgezeichnete neue Stapel ist nicht der Ablagestapel",
    "field.players": "die Liste der Spieler",
    "field.player": "Spieler {n}",
    "field.player.name": "der Name von Spieler {n}",
    "field.player.kind": "wer Platz {n} spielt",
    "field.player.level": "die Bot-Stufe von Spieler {n}",
    "field.name": "der Name",
    "field.board": "das Spielbrett",
    "field.variants": "die Wahl der Regelvarianten",
    "field.hotseat": "die Hot-Seat-Wahl",
    "field.key": "der Schlüssel der Anfrage",
    "field.seat": "der Platz",
    "field.text": "die Chatzeile",
    "field.mode": "wie ihr spielt (live oder rundenbasiert)",
    "field.away": "die Minuten, bis ein Bot für eine gegangene Person spielt",
    "field.standin": "die Stufe dieses Bots",
    "field.hints": "die Wahl der Tipps",
    "field.spectator_chat": "die Wahl des Zuschauer-Chats",
    "field.public": "die Wahl, das Spiel zu zeigen",
  },
  da: {
    "err.bad_token": "dette link giver ikke den plads (et forkert eller forældet token)",
    "err.not_your_turn": "{name} har turen",
    "err.stale_version": "spillet er gået videre i mellemtiden; her er den nye stilling",
    "err.not_started": "spillet begynder, når alle spillere er kommet",
    "err.game_over": "spillet er slut",
    "err.not_open": "spillet venter ikke på spillere",
    "err.seat_taken": "den plads er taget",
    "err.seat_invited": "denne plads holdes til en inviteret spiller: den tages med dens invitationslink",
    "err.no_game": "det spil findes ikke",
    "err.not_finished": "dette er tilgængeligt, når spillet er slut",
    "err.too_many_bot_games": "højst {max} spil med kun bots må køre ad gangen herfra; vent, til et slutter",
    "err.rate_limited": "for mange forespørgsler fra denne adresse; prøv igen om {retry} s",
    "err.unavailable": "serveren kunne ikke gemme dette; intet er ændret — prøv igen om et øjeblik",
    "err.unreadable": "dette spils gemte data kan ikke læses; serverens operatør kan finde det i loggen",
    "err.too_large": "forespørgslen er for stor (højst {max} byte)",
    "err.bad_name": "et navn har højst {max} tegn: bogstaver, cifre, tegnsætning og mellemrum",
    "err.cannot_undo": "kun din egen placering kan tages tilbage, og kun før du trækker et kort",
    "err.malformed": "serveren kunne ikke læse forespørgslen ({message})",
    "err.bad_sign_in": "forkert navn eller adgangskode",
    "err.account_name_taken": "navnet {name} er taget: vælg et andet",
    "err.bad_password": "en adgangskode har {min} til {max} tegn",
    "err.wrong_password": "det er ikke kontoens adgangskode",
    "err.signed_out": "du er logget ud: log ind igen",
    "err.cross_site": "afvist: forespørgslen kom fra en anden hjemmesides side",
    "err.suspended": "denne konto er suspenderet indtil {until}",
    "err.suspended_seats": "indtil da ser du dine spil som tilskuer, og en bot spiller for dig som for alle, der er væk",
    "err.suspended_why": "den angivne grund: “{why}”",
    "err.suspended_contact": "skriv til {contact} for at spørge om det",
    "err.suspended_ask": "kontakt operatøren af denne side for at spørge om det",
    "err.not_yourself": "det er dig",
    "err.bad_report": "sig med få ord, hvad der er galt (højst {max} tegn)",
    "err.no_line": "den linje er ikke i dette spils chat",
    "err.bad_mail_link": "dette link virker ikke (længere): det er brugt, udløbet eller forkert",
    "err.mail_off": "e-mail er slået fra på denne server",
    "err.no_address": "bekræft først en mailadresse",
    "err.bad_email": "det er ikke en mailadresse",
    "err.rated_needs_account": "ratede borde er for spillere, der er logget ind: log ind først",
    "err.rated_one_seat": "du har allerede en plads ved dette ratede bord",
    "err.rated_no_hotseat": "et rated bord har ingen hot-seat: hver person spiller på sin egen enhed",
    "err.rated_no_hints": "et rated bord har ingen tips: et tip er en bots råd",
    "err.not_joined": "tag først din plads",
    "err.kept_seats": "de ledige pladser holdes til de spillere, der ventes her: spillet begynder, når de kommer",
    "err.bot_seat": "en bot spiller denne plads: bordet blev startet uden dig, så du ser med",
    "err.blocked_at_table": "nogen ved dette bord har blokeret en anden spiller: opret hellere et nyt bord",
    "err.blocked_table": "der er en blokering mellem dig og nogen ved dette bord: tag plads ved et andet bord",
    "err.not_your_seat": "denne plads tilhører ikke din konto",
    "err.busy": "serveren har travlt med at tjekke adgangskoder; prøv igen om et øjeblik",
    "err.malformed_field": "serveren kunne ikke læse forespørgslen: {field} mangler eller er ugyldig",
    "err.name_taken": "navnet {name} er taget ved dette bord",
    "err.no_player": "der er ingen spiller ved navn {name}",
    "err.follow_self": "du kan ikke følge dig selv",
    "err.too_many_follows": "du følger allerede {max} spillere",
    "err.invite_self": "du kan ikke invitere dig selv: din egen plads er allerede din",
    "err.invited_twice": "{name} er allerede inviteret til dette bord",
    "err.not_invitable": "{name} kan ikke inviteres af dig",
    "err.no_invitation": "du har ingen invitation til denne plads (taget, afslået eller trukket tilbage)",
    "err.friends_only": "dette bord er kun for venner: kun spillere, som opretteren følger (logget ind), kan deltage",
    "err.not_found": "den side findes ikke",
    "err.not_allowed": "serveren tager ikke imod denne slags forespørgsel her",
    "err.bad_chat": "en chatlinje siger noget, med højst {max} tegn",
    "err.chat_closed": "tilskuere må læse chatten; spillerne har ikke åbnet den for dem",
    "err.hints_off": "der blev ikke givet samtykke til tips, da dette spil blev oprettet",
    "err.expired": "dette spil er udløbet: ingen har trukket i for lang tid",
    "err.busy_reviews": "serveren gennemgår andre spil; prøv igen om et minut",
    "rule.game_over": "spillet er slut",
    "rule.not_your_turn": "det er ikke din tur",
    "rule.must_draw": "fyld først din hånd op: tag et åbent kort, eller træk fra bunken",
    "rule.cannot_pass": "du må kun passe, når du hverken kan sætte en brik eller bytte et kort",
    "rule.not_a_move": "det er ikke et træk",
    "rule.unknown_card": "det kort findes ikke",
    "rule.not_drawing": "der trækkes kun kort, når hånden fyldes op efter en placering",
    "rule.deck_empty": "trækkebunken er tom",
    "rule.not_on_display": "der ligger intet {card}-kort blandt de åbne kort",
    "rule.card_not_in_hand": "du har {have} × {card}, ikke {play}",
    "rule.unknown_country": "det land findes ikke",
    "rule.card_count": "spil 1, 2 eller 3 kort",
    "rule.piece_count": "sæt 1 eller 2 brikker",
    "rule.card_country": "et {card}-kort nævner ikke {country}",
    "rule.joker_pair": "to kort til én brik skal være et par af samme kort (en joker)",
    "rule.joker_own_country": "en joker sætter sin brik i et andet land end dem på kortene, ikke i {country}",
    "rule.three_cards": "tre kort sætter to brikker i {country}: ét kort, der nævner landet, og et par af samme kort",
    "rule.unused_cards": "hvert spillet kort skal bruges: tre kort sætter to brikker",
    "rule.too_few_cards": "ét kort sætter én brik: to brikker kræver to eller tre kort",
    "rule.empty_country": "{country} er tomt: den første brik dér er et enkelt kloster",
    "rule.no_cloisters": { one: "du har {left} kloster tilbage i dit forråd", other: "du har {left} klostre tilbage i dit forråd" },
    "rule.no_advisors": { one: "du har {left} rådmand tilbage i dit forråd", other: "du har {left} rådmænd tilbage i dit forråd" },
    "rule.same_site": "hvert klosterfelt rummer ét kloster",
    "rule.unknown_site": "det klosterfelt findes ikke",
    "rule.site_country": "{site} ligger ikke i {country}: alle brikker i en tur skal i ét land",
    "rule.country_full": "{country} har intet ledigt klosterfelt",
    "rule.site_taken": "der står allerede et kloster i {site}",
    "rule.advisor_limit_empty": "{country} har endnu intet kloster, så der kan ikke sættes rådmænd dér",
    "rule.advisor_limit": "{country} ville få {total} rådmænd, men flest klostre, nogen har dér, er {limit}",
    "rule.no_reshuffle": "trækkebunken er brugt op, og der er ikke angivet nogen ny blanding",
    "rule.bad_reshuffle": "den registrerede blanding er ikke aflægningsbunken",
    "field.players": "listen over spillere",
    "field.player": "spiller {n}",
    "field.player.name": "navnet på spiller {n}",
    "field.player.kind": "hvem der spiller plads {n}",
    "field.player.level": "botniveauet for spiller {n}",
    "field.name": "navnet",
    "field.board": "spillepladen",
    "field.variants": "valget af regelvarianter",
    "field.hotseat": "valget af hot-seat",
    "field.key": "forespørgslens nøgle",
    "field.seat": "pladsen",
    "field.text": "chatlinjen",
    "field.mode": "hvordan I spiller (live eller turbaseret)",
    "field.away": "minutterne, før en bot spiller for en person, der er gået",
    "field.standin": "den bots niveau",
    "field.hints": "valget af tips",
    "field.spectator_chat": "valget af tilskuernes chat",
    "field.public": "valget af at vise spillet",
  },
});

/** A part of a request in words: "players.0.name" -> "the name of player 1"; a path this
 * page has no words for stays as it is.
 * @param {string | number} path */
export function fieldText(path) {
  const parts = String(path).split(".");
  /** @param {string} key @param {Record<string, unknown>} [vars] */
  const known = (key, vars) => (T(key) !== key ? T(key, vars) : null);
  if (parts[0] === "players" && parts.length > 1 && /^\d+$/.test(parts[1])) {
    const n = Number(parts[1]) + 1;
    const rest = parts.slice(2).join(".");
    if (!rest) return T("field.player", { n });
    return known("field.player." + rest, { n }) || `${T("field.player", { n })}: ${rest}`;
  }
  // a list's entry ("variants.1"): the list's words
  for (let k = parts.length; k > 0; k--) {
    const words = known("field." + parts.slice(0, k).join("."));
    if (words) return k === parts.length || parts.slice(k).every((x) => /^\d+$/.test(x)) ? words : `${words}: ${parts.slice(k).join(".")}`;
  }
  return String(path);
}

/** Words as a sentence of their own: a capital letter first, a full stop last (unless
 * they begin with a name given in `params`, which stays as its owner wrote it).
 * @param {unknown} words @param {Record<string, unknown>} [params] */
export function sentence(words, params) {
  const text = String(words ?? "").trim();
  if (!text) return text;
  const named = Object.values(params || {}).some((v) => typeof v === "string" && v && text.startsWith(v));
  const first = named ? text : text.charAt(0).toLocaleUpperCase(lang()) + text.slice(1);
  return /[.!?…]$/.test(first) ? first : first + ".";
}

/** When a suspension ends, in the reader's language and time zone (the browser's);
 * the server's words (UTC) if the time is not given.
 * @param {Params} p the refusal's params (`at`: seconds, `until`: words) */
function suspendedUntil(p) {
  const at = Number(p.at);
  if (!p.at || !Number.isFinite(at)) return p.until;
  /** @type {Intl.DateTimeFormatOptions} */
  const how = { year: "numeric", month: "long", day: "numeric", hour: "2-digit", minute: "2-digit", timeZoneName: "short" };
  return new Intl.DateTimeFormat({ de: "de-DE", da: "da-DK" }[lang()] || "en-GB", how).format(new Date(at * 1000));
}

/** A suspended account's refusal: until when, the operator's reason, whom to ask.
 * @param {Params} p the refusal's params */
function suspendedText(p) {
  const parts = [T("err.suspended", { ...p, until: suspendedUntil(p) }), T("err.suspended_seats")];
  if (p.why) parts.push(T("err.suspended_why", { why: p.why }));
  parts.push(p.contact ? T("err.suspended_contact", { contact: p.contact }) : T("err.suspended_ask"));
  return parts.map((x) => sentence(x)).join(" ");
}

/** The words of a refusal in the page's language, as sentences ("It is Anna's turn.");
 * `board` (a Board, or null) names ids.
 * @param {Refusal} err @param {Board | null} [board] */
export function refusalText(err, board) {
  /** @type {Params} (message: undefined for a refusal of a code only, as before) */
  const p = { ...(err.params || {}) };
  if (board) {
    if (p.country !== undefined) p.country = board.countryName(String(p.country));
    if (p.site !== undefined) p.site = board.siteName(String(p.site));
    if (p.card !== undefined) p.card = board.cardName(String(p.card));
  }
  let key;
  if (err.code === "illegal" && err.reason) {
    key = "rule." + err.reason;
    if (err.reason === "advisor_limit" && Number(p.limit) === 0) key = "rule.advisor_limit_empty";
  } else {
    key = "err." + err.code;
    if (err.code === "busy" && p.max !== undefined) key = "err.busy_reviews"; // teach.py's (with max), not passwords.py's
    p.message = err.message;
    // a malformed request that names the part the server could not read: that part in words
    if (err.code === "malformed" && p.field !== undefined && p.field !== null && p.field !== "") {
      key = "err.malformed_field";
      p.field = fieldText(p.field);
    }
  }
  if (p.n === undefined && p.left !== undefined) p.n = p.left; // the number a plural text agrees with
  let words = key === "err.suspended" ? suspendedText(p) : T(key, p);
  if (words === key) words = err.message || err.code; // a code this page does not know yet
  words = sentence(words, err.params);
  return err.rule ? `${err.rule}: ${words}` : words;
}

/** The words of an error caught from the network (getJSON, postJSON): the server's refusal
 * in the page's language (net.js HttpError), else the error's own message (a failed
 * fetch: "Failed to fetch").
 * @param {unknown} e @param {Board | null} [board] */
export function errorText(e, board) {
  if (e instanceof HttpError) return refusalText(e.error, board);
  return e instanceof Error ? e.message : String(e);
}
