"""The database's tables and their migrations (numbered, applied in order at start-up;
never edit an applied one, append a new one)."""

from __future__ import annotations

import logging
from collections.abc import Callable

from sqlalchemy import (
    BigInteger,
    Boolean,
    Column,
    Connection,
    Float,
    ForeignKey,
    Integer,
    MetaData,
    String,
    Table,
    Text,
    bindparam,
    insert,
    inspect,
    text,
    update,
)
from sqlalchemy.schema import CreateTable

log = logging.getLogger("kardinal.web")

metadata = MetaData()

games = Table(
    "games",
    metadata,
    Column("id", String(32), primary_key=True),
    Column("created", Float, nullable=False),
    Column("board", String(200), nullable=False),
    Column("seats", Text, nullable=False),  # JSON: [{name, kind, level, token_hash, joined}]
    Column("hotseat", Boolean, nullable=False),
    Column("deck", Text, nullable=False),  # JSON list of kind ids, top first (secret)
    Column("reshuffle", Text, nullable=True),  # JSON list, once formed (secret)
    Column("seed", BigInteger, nullable=False),  # secret
    Column("status", String(16), nullable=False),  # open, running, finished, expired
    Column("updated", Float, nullable=False),
    Column("variants", Text, nullable=False, server_default="[]"),  # JSON list of rule variants (R14); migration 4
    Column("options", Text, nullable=False, server_default="{}"),  # JSON: how the table plays (GameRow.options); migration 6
    Column("again", String(32), nullable=True),  # the game "Play again" started after this one (GameRow.again); migration 7
    # the seat to act after the game's last stored action, written with each action (migration
    # 15): "My games" reads whose turn it is without replaying the log; NULL: not known (an
    # action of before, or written without it), and none before the first action (seat 0's)
    Column("to_act", Integer, nullable=True),
)

actions = Table(
    "actions",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("action", Text, nullable=False),  # a kardinal-record action dict, JSON
    Column("client_id", String(120), nullable=True),  # "seat:id"; migration 5
    Column("created", Float, nullable=False),
)

# the game's chat, and notices to the table (a person away, stood in for, back); public
chat = Table(
    "chat",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("idx", Integer, primary_key=True),
    Column("at", Float, nullable=False),
    Column("version", Integer, nullable=False),  # the game's number of actions when it was said
    Column("seat", Integer, nullable=True),  # the writer's seat; none: a spectator, or a notice
    Column("kind", String(16), nullable=False),  # "say", or a notice: "away", "back"
    Column("name", String(100), nullable=False),
    Column("text", Text, nullable=False),
)

# several processes: who is connected to which seat through which process (migration 17: a
# row per process), written by each process as its connections come and go and every few
# seconds for those it holds (a person connected to any process is present)
presence = Table(
    "presence",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("process", String(32), primary_key=True, server_default=""),  # Storage.origin of the process
    Column("seen", Float, nullable=False),  # when last noted connected there, or (here false) when they left it
    Column("here", Boolean, nullable=False, server_default=text("true")),
)

# accounts (migration 8): a person's name and password; the id is stable (never reused:
# SQLite's AUTOINCREMENT, PostgreSQL's sequence), for whatever comes to hang on an account
accounts = Table(
    "accounts",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("name", String(100), nullable=False),  # as shown (names.clean_name)
    Column("name_key", String(100), nullable=False, unique=True),  # names.name_key: unique
    Column("password", String(255), nullable=False),  # an Argon2id hash (PHC string)
    Column("created", Float, nullable=False),
    Column("password_changed", Float, nullable=False),
    # migration 10: an e-mail address (confirmed by a link) and what the account wants
    # mailed; suspended by the operator until a time (kardinal admin)
    Column("email", String(320), nullable=True),
    Column("email_confirmed", Boolean, nullable=False, server_default="0"),
    Column("notify", Text, nullable=False, server_default="{}"),  # JSON: {"turn": bool, "invitation": bool, "end": bool}
    Column("suspended_until", Float, nullable=True),
    # migration 14: the operator's reason for the suspension, told to the account's owner
    Column("suspended_reason", Text, nullable=True),
    sqlite_autoincrement=True,
)

# a signed-in browser: the SHA-256 of its session cookie's secret (never the secret)
sessions = Table(
    "sessions",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
)

# which account a person seat belongs to (a seat taken while signed in, or brought along
# at sign-up); a seat of a guest has none
seat_owners = Table(
    "seat_owners",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("since", Float, nullable=False),
)

# what each seat of a finished game came to (migration 9): written when a game ends, so
# that a profile and a rating never replay games; games finished before are filled in
# when first asked for (kardinal.server.community.ratings)
results = Table(
    "results",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("players", Integer, nullable=False),  # seats at the table (3-5)
    Column("place", Float, nullable=False),  # 1 = first; players tied (R12.1) share the mean of their places
    Column("score", Integer, nullable=False),
    Column("win", Float, nullable=False),  # the seat's share of the win (1/k of k winners, else 0)
    Column("rated", Boolean, nullable=False),
    Column("finished", Float, nullable=False),
)

# an account's rating (migration 9): openskill's Plackett-Luce model, mu and sigma on the
# scale of kardinal.server.community.ratings; an account without a row has the newcomer's rating
ratings = Table(
    "ratings",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("mu", Float, nullable=False),
    Column("sigma", Float, nullable=False),
    Column("games", Integer, nullable=False),  # rated games played
    Column("updated", Float, nullable=False),
)

# the rating after each rated game (migration 9): the profile's chart; one per account and game
rating_events = Table(
    "rating_events",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("game_id", String(32), primary_key=True),
    Column("at", Float, nullable=False),
    Column("mu", Float, nullable=False),  # after the game
    Column("sigma", Float, nullable=False),
    Column("before", Float, nullable=False),  # mu before the game
)

# who follows whom (migration 9): one way, as on lichess; "friends" of an account are the
# accounts it follows
follows = Table(
    "follows",
    metadata,
    Column("follower_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("followee_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("since", Float, nullable=False),
)

# a seat kept for an account invited to it by name (migration 9), until they take it or
# the invitation is withdrawn; it shows in the invited account's "My games"
invitations = Table(
    "invitations",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("seat", Integer, primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("inviter_id", Integer, ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True),
    Column("at", Float, nullable=False),
)

# single-use tokens sent by mail (migration 10): confirming an address, resetting a
# password; only the SHA-256 of the token is kept
mail_tokens = Table(
    "mail_tokens",
    metadata,
    Column("token_hash", String(64), primary_key=True),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("kind", String(16), nullable=False),  # "confirm" or "reset"
    Column("email", String(320), nullable=False),  # the address it was sent to
    Column("created", Float, nullable=False),
    Column("expires", Float, nullable=False),
    Column("used", Float, nullable=True),
)

# mail waiting to be sent, and sent (migration 10): a restart or a slow mail server loses
# nothing; ``key`` is unique, so that a mail queued twice (two processes, a retry) is one
mail_queue = Table(
    "mail_queue",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("key", String(200), nullable=False, unique=True),  # e.g. "turn:<game>:<seat>:<moves made>"
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=True),
    Column("kind", String(16), nullable=False),  # "turn", "invitation", "end", "confirm", "reset"
    Column("to_addr", String(320), nullable=False),
    Column("subject", String(300), nullable=False),
    Column("body", Text, nullable=False),  # JSON: the parts to render (text, links), never a session
    Column("created", Float, nullable=False),
    Column("send_after", Float, nullable=False),
    Column("attempts", Integer, nullable=False, server_default="0"),
    Column("claimed_until", Float, nullable=True),  # a sender is on it (several processes)
    Column("sent", Float, nullable=True),
    Column("failed", String(300), nullable=True),  # the last error (never the address)
    # "mail" (to_addr: an address) or "push" (to_addr: a push subscription's id; migration 16)
    Column("channel", String(8), nullable=False, server_default="mail"),
    sqlite_autoincrement=True,
)

# a running game's clock (migration 10): whose move it waits for and until when, and each
# seat's reserve; acted on by one process (the deadline's lease)
clocks = Table(
    "clocks",
    metadata,
    Column("game_id", String(32), primary_key=True),
    Column("version", Integer, nullable=False),  # the game's number of actions the deadline is for
    Column("seat", Integer, nullable=False),
    Column("deadline", Float, nullable=False),  # epoch seconds
    Column("reserves", Text, nullable=False),  # JSON: seconds of reserve per seat
    Column("updated", Float, nullable=False),
)

# moderation (migration 10): a player muted or blocked by an account, a chat line reported,
# and what the operator did (kardinal admin)
mutes = Table(
    "mutes",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("muted_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("since", Float, nullable=False),
)
blocks = Table(
    "blocks",
    metadata,
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("blocked_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), primary_key=True),
    Column("since", Float, nullable=False),
)
reports = Table(
    "reports",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("reporter_id", Integer, ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True),
    Column("reporter_name", String(100), nullable=False),
    Column("game_id", String(32), nullable=False),
    Column("line", Integer, nullable=False),  # the chat line's idx
    Column("seat", Integer, nullable=True),  # the writer's seat
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="SET NULL"), nullable=True),  # the writer's account, if any
    Column("name", String(100), nullable=False),
    Column("text", Text, nullable=False),
    Column("context", Text, nullable=False),  # JSON: the lines around it, as they were
    Column("reason", String(500), nullable=False),
    Column("status", String(16), nullable=False),  # "open", "dismissed", "acted"
    Column("closed", Float, nullable=True),
    sqlite_autoincrement=True,
)
audit = Table(
    "audit",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("at", Float, nullable=False),
    Column("actor", String(100), nullable=False),  # the operator (the OS user running kardinal admin)
    Column("action", String(32), nullable=False),
    Column("account_id", Integer, nullable=True),  # not a foreign key: the log outlives the account
    Column("detail", Text, nullable=False),  # JSON; never a password or a token
    # what a running server still has to do for it (the seats of games it holds: a deleted
    # account's renamed, devices' tokens ended): None once done, or if nothing
    Column("pending", Boolean, nullable=False, server_default="0"),
    sqlite_autoincrement=True,
)

# the server's processes (migration 11): when each was last known to run, so that a start
# after the server was down gives the tables' clocks that time back (kardinal.server.play.clocks)
server_processes = Table(
    "server_processes",
    metadata,
    Column("id", String(32), primary_key=True),  # random, a process's own for as long as it runs
    Column("alive", Float, nullable=False),  # epoch seconds: last known running (or its stop)
    Column("stopped", Boolean, nullable=False, server_default="0"),  # it stopped in order
)

# rate limits' counts (migration 12), kept here when several processes share a PostgreSQL
# database so that each budget holds across them (kardinal.server.common.guard): one row per
# budget and window ("signin_name/60"), key (an address, a name's key, an account) and the
# window's start (epoch seconds, a multiple of its length); ``until``: when the row can go
rate_counts = Table(
    "rate_counts",
    metadata,
    Column("budget", String(40), primary_key=True),
    Column("key", String(400), primary_key=True),
    Column("start", BigInteger, primary_key=True),
    Column("count", Integer, nullable=False),
    Column("until", Float, nullable=False),
)

# the mails of each kind sent to an address, by the SHA-256 of the address (migration 13):
# what keeps each address's budget (mailer.py: confirmations, 3 an hour and 10 a day)
# across accounts and processes; rows older than the longest window go (sender.py)
mail_sends = Table(
    "mail_sends",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("to_hash", String(64), nullable=False),  # SHA-256 of the address in lower case
    Column("kind", String(16), nullable=False),  # "confirm"
    Column("at", Float, nullable=False),
)

# a device's Web Push subscription (migration 16): the push service's address for it and
# its keys (RFC 8291), which kinds of notification it wants ("turn", "invitation", "end":
# JSON) and in which language; the account's, deleted with it
push_subscriptions = Table(
    "push_subscriptions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("account_id", Integer, ForeignKey("accounts.id", ondelete="CASCADE"), nullable=False),
    Column("endpoint", String(1000), nullable=False, unique=True),
    Column("p256dh", String(200), nullable=False),
    Column("auth", String(100), nullable=False),
    Column("kinds", Text, nullable=False),
    Column("lang", String(8), nullable=False),
    Column("created", Float, nullable=False),
    sqlite_autoincrement=True,
)

# the installation's own keys, made once and shared by its processes (migration 16):
# "vapid" (Web Push's signing key, PEM; its public key is derived from it)
install_keys = Table(
    "install_keys",
    metadata,
    Column("name", String(32), primary_key=True),
    Column("value", Text, nullable=False),
    Column("created", Float, nullable=False),
)

schema_version = Table("schema_version", metadata, Column("version", Integer, nullable=False))

# PostgreSQL advisory lock key held while migrating (any fixed number; "KARDMIGR")
MIGRATION_LOCK = 0x4B4152444D494752
# ... and while a starting process looks whether the server was down ("KARDALIV")
ALIVE_LOCK = 0x4B415244414C4956
# ... and while a mail to an address is counted against its budget: the class of the
# two-key advisory lock whose second key is from the address's hash ("mail")
ADDRESS_LOCK = 0x6D61696C

# the statements of a group commit, made once (each is run for the whole batch)
_INSERT_ACTION = insert(actions)
_TOUCH_GAME = update(games).where(games.c.id == bindparam("gid")).values(updated=bindparam("now"), to_act=bindparam("to_act"))
# ... as SQLite's driver takes them (Storage._write_plain)
_INSERT_ACTION_SQL = "INSERT INTO actions (game_id, idx, action, client_id, created) VALUES (?, ?, ?, ?, ?)"
_TOUCH_GAME_SQL = "UPDATE games SET updated = ?, to_act = ? WHERE id = ?"


def _m1_tables(conn: Connection) -> None:
    # the games table as migration 1 made it (later migrations add to it): frozen here, so
    # that a new database and a migrated one end with the same schema
    games_v1 = Table(
        "games",
        MetaData(),
        *(c._copy() for c in games.columns if c.name not in ("variants", "options", "again", "to_act")),
    )
    conn.execute(CreateTable(games_v1))
    conn.execute(CreateTable(actions))


def _m2_indexes(conn: Connection) -> None:
    conn.execute(text("CREATE INDEX ix_games_status ON games (status, created)"))
    conn.execute(text("CREATE UNIQUE INDEX ux_actions_client ON actions (game_id, client_id)"))


def _m3_created_index(conn: Connection) -> None:
    conn.execute(text("CREATE INDEX ix_games_created ON games (created)"))


def _m4_variants(conn: Connection) -> None:
    """Rule variants per game (R14), and the board by id.

    Games stored before were played on the board then called "standard" (now kept as
    ``reconstruction-1``) with the joker rule of the variant ``joker-anywhere``; they go on
    exactly as they were played (as version-1 records do).
    """
    conn.execute(text("ALTER TABLE games ADD COLUMN variants TEXT NOT NULL DEFAULT '[]'"))
    conn.execute(text("""UPDATE games SET board = 'reconstruction-1', variants = '["joker-anywhere"]' WHERE board = 'standard'"""))


def _m5_client_key(conn: Connection) -> None:
    """An action's client id is kept as "seat:id" (ids are the sending seat's own): room for
    the seat before the 100 characters an id may have. (SQLite does not enforce lengths.)"""
    if conn.dialect.name == "postgresql":
        conn.execute(text("ALTER TABLE actions ALTER COLUMN client_id TYPE VARCHAR(120)"))


def _m6_table_talk(conn: Connection) -> None:
    """How the table plays (live or turn-based, the stand-in for an absent person, hints,
    spectators' chat), the game's chat, and the presence of people across processes.
    Games stored before are live games with the defaults."""
    conn.execute(text("ALTER TABLE games ADD COLUMN options TEXT NOT NULL DEFAULT '{}'"))
    conn.execute(CreateTable(chat))
    conn.execute(CreateTable(presence))


def _m7_again(conn: Connection) -> None:
    """The game "Play again" started after a finished one, stored (it was kept in memory
    only: a game forgotten by memory, or another process, made a second one). Games stored
    before have none: the next press makes it, as before."""
    conn.execute(text("ALTER TABLE games ADD COLUMN again VARCHAR(32)"))


def _m8_accounts(conn: Connection) -> None:
    """Accounts, their sessions, and the seats that belong to them. Games stored before
    belong to no account (their seats are guests', reached by their links as before)."""
    # the accounts table as migration 8 made it (migrations 10 and 14 add to it): frozen here
    accounts_v8 = Table(
        "accounts",
        MetaData(),
        *(c._copy() for c in accounts.columns if c.name not in _ACCOUNT_COLUMNS_AFTER_M8),
        sqlite_autoincrement=True,
    )
    for t in (accounts_v8, sessions, seat_owners):
        conn.execute(CreateTable(t))
    conn.execute(text("CREATE INDEX ix_sessions_account ON sessions (account_id)"))
    conn.execute(text("CREATE INDEX ix_sessions_expires ON sessions (expires)"))
    conn.execute(text("CREATE INDEX ix_seat_owners_account ON seat_owners (account_id, since)"))


def _m9_community(conn: Connection) -> None:
    """Results of finished games, ratings and their history, follows and invitations by
    name. Games finished before get their results when first asked for; nobody has a
    rating or follows anyone yet."""
    for t in (results, ratings, rating_events, follows, invitations):
        conn.execute(CreateTable(t))
    conn.execute(text("CREATE INDEX ix_rating_events_account ON rating_events (account_id, at)"))
    conn.execute(text("CREATE INDEX ix_ratings_mu ON ratings (games, mu)"))
    conn.execute(text("CREATE INDEX ix_follows_followee ON follows (followee_id)"))
    conn.execute(text("CREATE INDEX ix_invitations_account ON invitations (account_id, at)"))


_ACCOUNT_COLUMNS_AFTER_M8 = ("email", "email_confirmed", "notify", "suspended_until", "suspended_reason")


def _m10_place(conn: Connection) -> None:
    """E-mail addresses and what accounts want mailed, mail tokens and the mail queue,
    clocks, and moderation (mutes, blocks, reports, the operator's audit log). Accounts
    made before have no address; games made before have no clock."""
    for col in (
        "email VARCHAR(320)",
        "email_confirmed BOOLEAN NOT NULL DEFAULT false",
        "notify TEXT NOT NULL DEFAULT '{}'",
        "suspended_until FLOAT",
    ):
        conn.execute(text(f"ALTER TABLE accounts ADD COLUMN {col}"))
    for t in (mail_tokens, mail_queue, clocks, mutes, blocks, reports, audit):
        conn.execute(CreateTable(t))
    conn.execute(text("CREATE INDEX ix_mail_tokens_account ON mail_tokens (account_id)"))
    conn.execute(text("CREATE INDEX ix_mail_queue_due ON mail_queue (sent, send_after)"))
    conn.execute(text("CREATE INDEX ix_clocks_deadline ON clocks (deadline)"))
    conn.execute(text("CREATE INDEX ix_reports_status ON reports (status, at)"))
    conn.execute(text("CREATE INDEX ix_audit_pending ON audit (pending)"))
    conn.execute(text("CREATE INDEX ix_accounts_email ON accounts (email)"))


def _m11_processes(conn: Connection) -> None:
    """The server's processes and their last signs of life (a clock gets back the time the
    server was down). The first start after it gives nothing back: nothing says since when
    the server was down."""
    conn.execute(CreateTable(server_processes))


def _m12_rate_counts(conn: Connection) -> None:
    """The rate limits' counts, for the processes sharing a PostgreSQL database (an empty
    table on SQLite: one process, which counts in memory)."""
    conn.execute(CreateTable(rate_counts))
    conn.execute(text("CREATE INDEX ix_rate_counts_until ON rate_counts (until)"))


def _m13_mail_sends(conn: Connection) -> None:
    """The mails sent to each address (by its hash), for the address's budget. Mail sent
    before counts nothing: each address's budget starts full."""
    conn.execute(CreateTable(mail_sends))
    conn.execute(text("CREATE INDEX ix_mail_sends_to ON mail_sends (to_hash, at)"))
    conn.execute(text("CREATE INDEX ix_mail_sends_at ON mail_sends (at)"))


def _m14_suspension_reason(conn: Connection) -> None:
    """The operator's reason for a suspension, which the suspended player is told. A
    suspension made before has none (its reason is in the audit log only)."""
    conn.execute(text("ALTER TABLE accounts ADD COLUMN suspended_reason TEXT"))


def _m15_to_act(conn: Connection) -> None:
    """The seat to act, stored with each action ("My games" reads it without replaying the
    game). Games stored before have none until their next action: their turn is read by
    replaying them, as before."""
    conn.execute(text("ALTER TABLE games ADD COLUMN to_act INTEGER"))


def _m16_push(conn: Connection) -> None:
    """Web Push: the devices' subscriptions, the installation's keys, and a channel per
    queued message (the queue's rows before it are mail). A database made from scratch
    has the column already (migration 10 makes the queue as it is now)."""
    conn.execute(CreateTable(push_subscriptions))
    conn.execute(CreateTable(install_keys))
    conn.execute(text("CREATE INDEX ix_push_subscriptions_account ON push_subscriptions (account_id)"))
    if "channel" not in {c["name"] for c in inspect(conn).get_columns("mail_queue")}:
        conn.execute(text("ALTER TABLE mail_queue ADD COLUMN channel VARCHAR(8) DEFAULT 'mail' NOT NULL"))


def _m17_presence_by_process(conn: Connection) -> None:
    """Presence across processes as each process sees it (a row per process, seat and game,
    with the moment the person left it): a person who leaves one process is noticed by the
    others at once, and the stand-in's countdown runs from then everywhere. The notes kept
    before are dropped (they are renewed every few seconds by the running processes)."""
    conn.execute(text("DROP TABLE presence"))
    conn.execute(CreateTable(presence))


# Ordered; never edit an applied one, append a new one.
MIGRATIONS: list[Callable[[Connection], None]] = [
    _m1_tables,
    _m2_indexes,
    _m3_created_index,
    _m4_variants,
    _m5_client_key,
    _m6_table_talk,
    _m7_again,
    _m8_accounts,
    _m9_community,
    _m10_place,
    _m11_processes,
    _m12_rate_counts,
    _m13_mail_sends,
    _m14_suspension_reason,
    _m15_to_act,
    _m16_push,
    _m17_presence_by_process,
]
