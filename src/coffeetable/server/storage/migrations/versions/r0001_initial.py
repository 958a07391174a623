"""Users, sessions, game tables, actions and ratings.

Revision ID: 0001
Revises:
Create Date: 2026-11-01
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# Plain SQL types only, so that this file keeps meaning what it meant when it was written:
# datetimes are UTC (schema.UTCDateTime), the seed is decimal text (schema.IntAsText).

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("name_key", sa.Text, nullable=False),
        sa.Column("password_hash", sa.Text, nullable=True),
        sa.Column("is_guest", sa.Boolean, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_users"),
        sa.UniqueConstraint("name_key", name="uq_users_name_key"),
    )
    op.create_table(
        "sessions",
        sa.Column("token_hash", sa.Text, nullable=False),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("expires_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("token_hash", name="pk_sessions"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_sessions_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_sessions_user_id", "sessions", ["user_id"])
    op.create_index("ix_sessions_expires_at", "sessions", ["expires_at"])
    op.create_table(
        "game_tables",
        sa.Column("id", sa.Text, nullable=False),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("options", sa.JSON, nullable=False),
        sa.Column("seed", sa.Text, nullable=False),
        sa.Column("seats", sa.JSON, nullable=False),
        sa.Column("clock", sa.JSON, nullable=True),
        sa.Column("rated", sa.Boolean, nullable=False),
        sa.Column("private", sa.Boolean, nullable=False),
        sa.Column("invite_token", sa.Text, nullable=True),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("created_by", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("started_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("result", sa.JSON, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_game_tables"),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            name="fk_game_tables_created_by_users",
            ondelete="SET NULL",
        ),
        sa.CheckConstraint(
            "status IN ('open', 'running', 'finished', 'aborted')", name="ck_game_tables_status"
        ),
        sa.CheckConstraint("version >= 0", name="ck_game_tables_version"),
    )
    op.create_index("ix_game_tables_status_created_at", "game_tables", ["status", "created_at"])
    op.create_table(
        "actions",
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("version", sa.Integer, nullable=False),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column("notation", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("table_id", "version", name="pk_actions"),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name="fk_actions_table_id_game_tables",
            ondelete="CASCADE",
        ),
    )
    op.create_table(
        "ratings",
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("rating", sa.Float, nullable=False),
        sa.Column("games_played", sa.Integer, nullable=False),
        sa.PrimaryKeyConstraint("user_id", "game", name="pk_ratings"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_ratings_user_id_users", ondelete="CASCADE"
        ),
    )
    op.create_index("ix_ratings_game_rating", "ratings", ["game", "rating"])
    op.create_table(
        "rating_history",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column("user_id", sa.Integer, nullable=False),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("rating_before", sa.Float, nullable=False),
        sa.Column("rating_after", sa.Float, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("id", name="pk_rating_history"),
        sa.ForeignKeyConstraint(
            ["user_id"], ["users.id"], name="fk_rating_history_user_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name="fk_rating_history_table_id_game_tables",
            ondelete="CASCADE",
        ),
        sa.UniqueConstraint("table_id", "user_id", name="uq_rating_history_table_id_user_id"),
    )
    op.create_index(
        "ix_rating_history_user_id_game_created_at",
        "rating_history",
        ["user_id", "game", "created_at"],
    )


def downgrade() -> None:
    for table in ("rating_history", "ratings", "actions", "game_tables", "sessions", "users"):
        op.drop_table(table)
