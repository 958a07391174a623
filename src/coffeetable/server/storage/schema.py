"""The database schema as SQLAlchemy Core tables, used to build queries.

The migrations in `migrations/versions/` create and change the real schema; a test checks
that it matches these definitions. Change both together.
"""

from __future__ import annotations

from datetime import UTC, datetime
from typing import Any

import sqlalchemy as sa
from sqlalchemy.engine import Dialect

from coffeetable.server.storage.records import TABLE_STATUSES


class UTCDateTime(sa.TypeDecorator[datetime]):
    """A timezone-aware UTC datetime on every back end (SQLite keeps naive UTC text)."""

    impl = sa.DateTime(timezone=True)
    cache_ok = True

    def process_bind_param(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            raise ValueError(f"datetimes must be timezone-aware, got {value!r}")
        value = value.astimezone(UTC)
        return value.replace(tzinfo=None) if dialect.name == "sqlite" else value

    def process_result_value(self, value: datetime | None, dialect: Dialect) -> datetime | None:
        if value is None:
            return None
        if value.tzinfo is None:
            return value.replace(tzinfo=UTC)
        return value.astimezone(UTC)


class IntAsText(sa.TypeDecorator[int]):
    """An integer of any size (a seed may not fit in 64 bits), kept as decimal text."""

    impl = sa.Text()
    cache_ok = True

    def process_bind_param(self, value: int | None, dialect: Dialect) -> str | None:
        if value is None:
            return None
        if not isinstance(value, int) or isinstance(value, bool):
            raise TypeError(f"expected an integer, got {value!r}")
        return str(value)

    def process_result_value(self, value: Any, dialect: Dialect) -> int | None:
        return None if value is None else int(value)


def _json() -> sa.JSON:
    # none_as_null: a Python None is SQL NULL, not the JSON text 'null'
    return sa.JSON(none_as_null=True)


metadata = sa.MetaData(
    naming_convention={
        "ix": "ix_%(table_name)s_%(column_0_N_name)s",
        "uq": "uq_%(table_name)s_%(column_0_N_name)s",
        "ck": "ck_%(table_name)s_%(constraint_name)s",
        "fk": "fk_%(table_name)s_%(column_0_name)s_%(referred_table_name)s",
        "pk": "pk_%(table_name)s",
    }
)

users = sa.Table(
    "users",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("name", sa.Text, nullable=False),
    # the name folded for comparison (NFKC, casefold): unique
    sa.Column("name_key", sa.Text, nullable=False, unique=True),
    sa.Column("password_hash", sa.Text, nullable=True),
    sa.Column("is_guest", sa.Boolean, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    # "admin" may see reports and suspend accounts (`coffeetable admin grant NAME`)
    sa.Column("role", sa.Text, nullable=False, server_default="player"),
    # a suspended account cannot log in, and its sessions are ended
    sa.Column("suspended_at", UTCDateTime, nullable=True),
)

sessions = sa.Table(
    "sessions",
    metadata,
    sa.Column("token_hash", sa.Text, primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("expires_at", UTCDateTime, nullable=False),
    sa.Index(None, "user_id"),
    sa.Index(None, "expires_at"),
)

game_tables = sa.Table(
    "game_tables",
    metadata,
    sa.Column("id", sa.Text, primary_key=True),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column("options", _json(), nullable=False),
    sa.Column("seed", IntAsText, nullable=False),
    sa.Column("seats", _json(), nullable=False),
    sa.Column("clock", _json(), nullable=True),
    sa.Column("rated", sa.Boolean, nullable=False),
    sa.Column("private", sa.Boolean, nullable=False),
    sa.Column("invite_token", sa.Text, nullable=True),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column("version", sa.Integer, nullable=False),
    # every change of the row (a move, an undo, a seat, the status...): the order in which the
    # nodes of a site apply a table's changes (server/bus.py), and update_table's compare-and-swap
    sa.Column("revision", sa.Integer, nullable=False, server_default="0"),
    sa.Column(
        "created_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("started_at", UTCDateTime, nullable=True),
    sa.Column("finished_at", UTCDateTime, nullable=True),
    sa.Column("result", _json(), nullable=True),
    # the client's id of the request that created the table (`create_table`'s request_key):
    # a repeated request gets this table back; cleared once the repeat window has passed
    sa.Column("request_key", sa.Text, nullable=True),
    # abandonment (docs/server-clocks-ratings.md): the table's own limit in seconds (None:
    # the default of its speed), and the open offer, past waits and seats handed to a bot
    sa.Column("abandon_after", sa.Float, nullable=True),
    sa.Column("abandonment", _json(), nullable=True),
    sa.CheckConstraint(sa.column("status").in_(TABLE_STATUSES), name="status"),
    sa.CheckConstraint(sa.column("version") >= 0, name="version"),
    sa.Index(None, "status", "created_at"),
    sa.Index(None, "created_by", "request_key", unique=True),
)

actions = sa.Table(
    "actions",
    metadata,
    sa.Column(
        "table_id",
        sa.Text,
        sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("version", sa.Integer, primary_key=True),
    sa.Column("seat", sa.Integer, nullable=False),
    sa.Column("notation", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

ratings = sa.Table(
    "ratings",
    metadata,
    sa.Column(
        "user_id",
        sa.Integer,
        sa.ForeignKey("users.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("game", sa.Text, primary_key=True),
    sa.Column("rating", sa.Float, nullable=False),
    sa.Column("games_played", sa.Integer, nullable=False),
    sa.Index(None, "game", "rating"),
)

rating_history = sa.Table(
    "rating_history",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("game", sa.Text, nullable=False),
    sa.Column(
        "table_id",
        sa.Text,
        sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
        nullable=False,
    ),
    sa.Column("rating_before", sa.Float, nullable=False),
    sa.Column("rating_after", sa.Float, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    # a table's result changes each player's rating once
    sa.UniqueConstraint("table_id", "user_id"),
    sa.Index(None, "user_id", "game", "created_at"),
)


#: A friend request from `from_id` to `to_id`; once accepted (`accepted_at`), both are friends.
#: One row per pair: a request that meets the other's request accepts it (storage/sql.py).
friendships = sa.Table(
    "friendships",
    metadata,
    sa.Column("from_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("to_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("accepted_at", UTCDateTime, nullable=True),
    sa.PrimaryKeyConstraint("from_id", "to_id"),
    sa.CheckConstraint("from_id <> to_id", name="not_self"),
    sa.Index(None, "to_id"),
)

#: `from_id` invited `to_id` to the table `table_id` (while it is open).
invitations = sa.Table(
    "invitations",
    metadata,
    sa.Column(
        "table_id", sa.Text, sa.ForeignKey("game_tables.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("to_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("from_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.PrimaryKeyConstraint("table_id", "to_id"),
    sa.Index(None, "to_id", "created_at"),
)


# ---- chat and moderation (migration 0004) --------------------------------------------------
chat_lines = sa.Table(
    "chat_lines",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    # the table the line was said at; NULL: the lobby
    sa.Column(
        "table_id",
        sa.Text,
        sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
        nullable=True,
    ),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    # the speaker's seat then (NULL: a spectator, or the lobby)
    sa.Column("seat", sa.Integer, nullable=True),
    sa.Column("spectator", sa.Boolean, nullable=False),
    # exactly one of text (the words) and preset (a quick message's id)
    sa.Column("text", sa.Text, nullable=True),
    sa.Column("preset", sa.Text, nullable=True),
    # moves made at the table before the line was said (for replays)
    sa.Column("moves", sa.Integer, nullable=True),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.CheckConstraint("(text IS NULL) <> (preset IS NULL)", name="text_or_preset"),
    sa.Index(None, "table_id", "id"),
)

user_mutes = sa.Table(
    "user_mutes",
    metadata,
    sa.Column(
        "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column(
        "muted_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

user_blocks = sa.Table(
    "user_blocks",
    metadata,
    sa.Column(
        "user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column(
        "blocked_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Index(None, "blocked_id"),
)

reports = sa.Table(
    "reports",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column(
        "reporter_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column(
        "target_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False
    ),
    # the reported line (if a line was reported) and a copy of its words as they were
    sa.Column(
        "line_id", sa.Integer, sa.ForeignKey("chat_lines.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("line_text", sa.Text, nullable=True),
    sa.Column(
        "table_id", sa.Text, sa.ForeignKey("game_tables.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("reason", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("handled_at", UTCDateTime, nullable=True),
    sa.Column(
        "handled_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Index(None, "handled_at", "id"),
)


# ---- presence, "my games", notifications (issue 38; migration 0005) -------------------------
# who sits at which table: the index of "my games" (kept by create/update/import_table from
# the seats), and whose move it is there (kept by the node that stored the change, in
# revision order: `turn_revision` only grows)
table_players = sa.Table(
    "table_players",
    metadata,
    sa.Column(
        "table_id",
        sa.Text,
        sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("to_move", sa.Boolean, nullable=False, server_default=sa.false()),
    sa.Column("turn_since", UTCDateTime, nullable=True),
    sa.Column("turn_revision", sa.Integer, nullable=False, server_default="0"),
    sa.Index(None, "user_id"),
)

# a user's notification settings and e-mail address (shown to its owner only)
user_settings = sa.Table(
    "user_settings",
    metadata,
    sa.Column(
        "user_id",
        sa.Integer,
        sa.ForeignKey("users.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("email", sa.Text, nullable=True),
    sa.Column("language", sa.Text, nullable=False, server_default="en"),
    sa.Column("prefs", _json(), nullable=False),
    # the earliest moment the next digest may go (a claim moves it on: one mail per interval)
    sa.Column("next_mail_at", UTCDateTime, nullable=True),
    sa.Column("updated_at", UTCDateTime, nullable=False),
)

# what is to be mailed: gathered into one digest per user, claimed by one node (`batch`)
mail_events = sa.Table(
    "mail_events",
    metadata,
    sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("kind", sa.Text, nullable=False),
    sa.Column("table_id", sa.Text, nullable=True),
    sa.Column("params", _json(), nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("batch", sa.Text, nullable=True),
    sa.Column("sent_at", UTCDateTime, nullable=True),
    sa.Index(None, "user_id", "batch"),
    sa.Index(None, "batch"),
)

# secrets of the whole site, made by the first node that needs one (the key that signs
# unsubscribe links: every node must check every other's)
site_secrets = sa.Table(
    "site_secrets",
    metadata,
    sa.Column("name", sa.Text, primary_key=True),
    sa.Column("value", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

# one row per person's seat at a table (the seats JSON of `game_tables`, indexed), with the
# seat's result once the game has ended: player pages and the solo high scores read this
player_games = sa.Table(
    "player_games",
    metadata,
    sa.Column(
        "table_id",
        sa.Text,
        sa.ForeignKey("game_tables.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("seat", sa.Integer, primary_key=True),
    sa.Column("user_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), nullable=False),
    sa.Column("game", sa.Text, nullable=False),
    # seats at the table (1: a solo game)
    sa.Column("players", sa.Integer, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("finished_at", UTCDateTime, nullable=True),
    # the seat's final total and whether it won: NULL until the game has ended by the rules
    sa.Column("score", sa.Integer, nullable=True),
    sa.Column("won", sa.Boolean, nullable=True),
    # a bot played the seat by the end (the person left, ran out of time or was replaced)
    sa.Column("left_game", sa.Boolean, nullable=False),
    sa.Index(None, "user_id", "created_at"),
    sa.Index(None, "game", "players", "score"),
)

# ==== decks (issue 39): Café deck files and Coffee Rush card files uploaded by players ======
#: One row per file, stored once by the SHA-256 of its canonical text; kept after every owner
#: deleted it (the tables played with it replay with it).
deck_files = sa.Table(
    "deck_files",
    metadata,
    sa.Column("sha256", sa.Text, primary_key=True),
    sa.Column("game", sa.Text, nullable=False),
    # the file's own `name`, its card count, whether any card is reconstructed, provenance
    sa.Column("name", sa.Text, nullable=False),
    sa.Column("cards", sa.Integer, nullable=False),
    sa.Column("reconstructed", sa.Boolean, nullable=False),
    sa.Column("provenance", _json(), nullable=False),
    sa.Column("text", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
)

#: Who has a deck file, and who else may use it (private, friends, public).
user_decks = sa.Table(
    "user_decks",
    metadata,
    sa.Column(
        "sha256",
        sa.Text,
        sa.ForeignKey("deck_files.sha256", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column(
        "owner_id", sa.Integer, sa.ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
    sa.Column("visibility", sa.Text, nullable=False),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.CheckConstraint("visibility IN ('private', 'friends', 'public')", name="visibility"),
    sa.Index(None, "owner_id"),
    sa.Index(None, "visibility"),
)

#: A deck's bot calibration run (one at a time per deck; the last one's result).
deck_calibrations = sa.Table(
    "deck_calibrations",
    metadata,
    sa.Column(
        "sha256",
        sa.Text,
        sa.ForeignKey("deck_files.sha256", ondelete="CASCADE"),
        primary_key=True,
    ),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column(
        "requested_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("requested_at", UTCDateTime, nullable=False),
    sa.Column("finished_at", UTCDateTime, nullable=True),
    sa.Column("figures", _json(), nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.CheckConstraint(
        "status IN ('queued', 'running', 'done', 'failed')", name="calibration_status"
    ),
    sa.Index(None, "requested_by", "requested_at"),
)

# ---- game reviews (migration 0009) --------------------------------------------------------
#: A finished game's review (bots/review.py), one per table and budget (`budget`: the
#: settings' key). `status` queued / running / done / failed; `review` the review's JSON
#: once done; `requested_by` counts toward that user's queue and daily budget.
reviews = sa.Table(
    "reviews",
    metadata,
    sa.Column(
        "table_id", sa.Text, sa.ForeignKey("game_tables.id", ondelete="CASCADE"), nullable=False
    ),
    sa.Column("budget", sa.Text, nullable=False),
    sa.Column("status", sa.Text, nullable=False),
    sa.Column(
        "requested_by", sa.Integer, sa.ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    ),
    sa.Column("created_at", UTCDateTime, nullable=False),
    sa.Column("updated_at", UTCDateTime, nullable=False),
    sa.Column("review", _json(), nullable=True),
    sa.Column("error", sa.Text, nullable=True),
    sa.PrimaryKeyConstraint("table_id", "budget"),
    sa.CheckConstraint("status IN ('queued', 'running', 'done', 'failed')", name="status"),
    sa.Index(None, "requested_by", "created_at"),
)
