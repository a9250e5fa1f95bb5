// The shapes of what the server sends, for TypeScript's checker (`make jslint`): JSDoc
// types only, no code; a module names them with `/** @import { ErrorData } from "./messages.js" */`
// and the browser never loads this file. They follow kardinal/server/play/messages.py and
// schemas.py (the TypedDicts of the same names); a field the pages do not read may be left out.

/**
 * A refusal (messages.py ErrorData): a stable code, English words, parameters to say it
 * in any language; a refusal by the rules has the rule ("R4.3") and the rules' own code.
 * @typedef {object} ErrorData
 * @property {string} code
 * @property {string} message
 * @property {Record<string, string | number>} [params]
 * @property {string} [rule]
 * @property {string} [reason]
 */

/**
 * A seat as anyone may see it (messages.py PlayerData).
 * @typedef {object} PlayerData
 * @property {number} seat
 * @property {string} name
 * @property {"person" | "bot"} kind
 * @property {string | null} level
 * @property {boolean} joined
 * @property {boolean} open
 * @property {boolean} standin
 * @property {boolean} present
 */

/**
 * A table's clock (messages.py ClockOptions): live, `move` seconds a turn, then the
 * `reserve`, which gains `increment` after each turn; turn-based, `days` a turn.
 * @typedef {object} ClockOptions
 * @property {number} [move]
 * @property {number} [reserve]
 * @property {number} [increment]
 * @property {number} [days]
 */

/**
 * How a table plays (messages.py TableOptions).
 * @typedef {object} TableOptions
 * @property {"live" | "turn"} mode
 * @property {number} away
 * @property {string} standin
 * @property {boolean} hints
 * @property {boolean} spectator_chat
 * @property {boolean} public
 * @property {boolean} [friends]
 * @property {ClockOptions | null} clock
 * @property {boolean} rated
 */

/**
 * A game as the lobby and "My games" list it (schemas.py GameSummary).
 * @typedef {object} GameSummary
 * @property {string} id
 * @property {number} created
 * @property {string} status
 * @property {boolean} hotseat
 * @property {string} board
 * @property {string[]} variants
 * @property {TableOptions} table
 * @property {PlayerData[]} players
 * @property {number} [current]
 * @property {number} [deadline]
 * @property {number} [version]
 * @property {number[]} [scores]
 */

/**
 * An invitation by name, to the account (`by`: who invited it; null: a deleted account)
 * or from it (`to`), with its game (schemas.py InvitationInfo).
 * @typedef {object} InvitationInfo
 * @property {GameSummary} game
 * @property {number} seat
 * @property {number} at
 * @property {string | null} [by]
 * @property {string} [to]
 */

/**
 * The account's invitations (schemas.py Invitations).
 * @typedef {object} Invitations
 * @property {InvitationInfo[]} received
 * @property {InvitationInfo[]} sent
 */

/**
 * The leaderboard (schemas.py Leaderboard): the rated players, and the bots' fixed ratings.
 * @typedef {object} Leaderboard
 * @property {number} min_games rated games a player needs to be listed
 * @property {{ rank: number, name: string, rating: number, pm: number, mu: number, sigma: number, games: number }[]} players
 * @property {{ level: string, rating: number, low: number, high: number, measured: boolean }[]} bots
 * @property {number} newcomer the rating a player starts with
 */

/**
 * A piece a placement puts down (record.py PieceData): a cloister on a site, or an advisor.
 * @typedef {{ type: "cloister", site: string } | { type: "advisor", site?: undefined }} PieceData
 */

/** @typedef {{ seat: number, act: "place", country: string, cards: string[], pieces: PieceData[] }} PlaceAction */
/** @typedef {{ seat: number, act: "draw", from: "deck" | "display", card?: string }} DrawAction */
/** @typedef {{ seat: number, act: "exchange", discard: string, from: "deck" | "display", card?: string }} ExchangeAction */
/** @typedef {{ seat: number, act: "pass" }} PassAction */

/**
 * One decision, as records and the legal moves say it (record.py RecordAction).
 * @typedef {PlaceAction | DrawAction | ExchangeAction | PassAction} RecordAction
 */

/**
 * One decision in a view's history (rules/view.py HistoryEntry): the action, its notation,
 * and what it caused (rules/view.py EventData: a scoring, cards revealed...).
 * @typedef {object} HistoryEntry
 * @property {RecordAction} action
 * @property {string} notation
 * @property {({ type: string } & Record<string, any>)[]} events
 */

/**
 * A kind of card (mapdata.py board_json "cards"): its countries (two; a joker pair is two cards).
 * @typedef {object} CardKind
 * @property {string} id
 * @property {string} short
 * @property {string[]} countries
 * @property {number} count
 */

/**
 * A country of the board (board_json "countries"), with its place on the map.
 * @typedef {object} CountryData
 * @property {string} id
 * @property {string} name_de
 * @property {string} [name_en]
 * @property {number} ring
 * @property {string} colour
 * @property {string[]} sites
 * @property {[number, number]} coat
 * @property {number[][][]} region
 */

/**
 * A cloister site (board_json "sites"), with its place and label on the map.
 * @typedef {object} SiteData
 * @property {string} id
 * @property {string} name
 * @property {string} [name_en]
 * @property {string} country
 * @property {number} lat
 * @property {number} lon
 * @property {[number, number]} xy
 * @property {[number, number, string]} [label]
 * @property {number[][]} cell
 */

/**
 * An alliance of two countries (board_json "alliances").
 * @typedef {object} AllianceData
 * @property {number} number
 * @property {string[]} countries
 * @property {string} across "land" or "sea"
 * @property {[number, number]} xy
 * @property {number[][]} route
 */

/**
 * A board as GET /api/board gives it (mapdata.py board_json): what the browser draws and names.
 * @typedef {object} BoardData
 * @property {string} id
 * @property {string} name
 * @property {string} about
 * @property {boolean} reconstruction
 * @property {number} width
 * @property {number} height
 * @property {string} sea
 * @property {any} legend
 * @property {any} coast
 * @property {any} borders
 * @property {CardKind[]} cards
 * @property {CountryData[]} countries
 * @property {SiteData[]} sites
 * @property {[string, string][]} roads
 * @property {AllianceData[]} alliances
 * @property {{ cloisters: number, advisors: number }} supply
 */

export {};
