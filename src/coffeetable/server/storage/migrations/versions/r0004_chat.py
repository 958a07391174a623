"""Chat and moderation: chat lines (tables and the lobby), mutes, blocks, reports, and the
users' role and suspension.

Revision ID: 0004
Revises: 0003
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# Plain SQL types only (as in 0001): datetimes are UTC (schema.UTCDateTime).
UTCDateTime = sa.DateTime(timezone=True)

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    with op.batch_alter_table("users") as batch:
        batch.add_column(sa.Column("role", sa.Text, nullable=False, server_default="player"))
        batch.add_column(sa.Column("suspended_at", UTCDateTime, nullable=True))
    op.create_table(
        "chat_lines",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "table_id",
            sa.Text,
            sa.ForeignKey(
                "game_tables.id",
                ondelete="CASCADE",
                name="fk_chat_lines_table_id_game_tables",
            ),
            nullable=True,
        ),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_chat_lines_user_id_users"),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer, nullable=True),
        sa.Column("spectator", sa.Boolean, nullable=False),
        sa.Column("text", sa.Text, nullable=True),
        sa.Column("preset", sa.Text, nullable=True),
        sa.Column("moves", sa.Integer, nullable=True),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.CheckConstraint(
            "(text IS NULL) <> (preset IS NULL)", name="ck_chat_lines_text_or_preset"
        ),
        sa.PrimaryKeyConstraint("id", name="pk_chat_lines"),
    )
    op.create_index("ix_chat_lines_table_id_id", "chat_lines", ["table_id", "id"])
    for name, other in (("user_mutes", "muted_id"), ("user_blocks", "blocked_id")):
        op.create_table(
            name,
            sa.Column(
                "user_id",
                sa.Integer,
                sa.ForeignKey("users.id", ondelete="CASCADE", name=f"fk_{name}_user_id_users"),
                nullable=False,
            ),
            sa.Column(
                other,
                sa.Integer,
                sa.ForeignKey("users.id", ondelete="CASCADE", name=f"fk_{name}_{other}_users"),
                nullable=False,
            ),
            sa.Column("created_at", UTCDateTime, nullable=False),
            sa.PrimaryKeyConstraint("user_id", other, name=f"pk_{name}"),
        )
    op.create_index("ix_user_blocks_blocked_id", "user_blocks", ["blocked_id"])
    op.create_table(
        "reports",
        sa.Column("id", sa.Integer, primary_key=True, autoincrement=True),
        sa.Column(
            "reporter_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_reports_reporter_id_users"),
            nullable=False,
        ),
        sa.Column(
            "target_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_reports_target_id_users"),
            nullable=False,
        ),
        sa.Column(
            "line_id",
            sa.Integer,
            sa.ForeignKey(
                "chat_lines.id", ondelete="SET NULL", name="fk_reports_line_id_chat_lines"
            ),
            nullable=True,
        ),
        sa.Column("line_text", sa.Text, nullable=True),
        sa.Column(
            "table_id",
            sa.Text,
            sa.ForeignKey(
                "game_tables.id", ondelete="SET NULL", name="fk_reports_table_id_game_tables"
            ),
            nullable=True,
        ),
        sa.Column("reason", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("handled_at", UTCDateTime, nullable=True),
        sa.Column(
            "handled_by",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="SET NULL", name="fk_reports_handled_by_users"),
            nullable=True,
        ),
        sa.PrimaryKeyConstraint("id", name="pk_reports"),
    )
    op.create_index("ix_reports_handled_at_id", "reports", ["handled_at", "id"])


def downgrade() -> None:
    op.drop_index("ix_reports_handled_at_id", table_name="reports")
    op.drop_table("reports")
    op.drop_index("ix_user_blocks_blocked_id", table_name="user_blocks")
    op.drop_table("user_blocks")
    op.drop_table("user_mutes")
    op.drop_index("ix_chat_lines_table_id_id", table_name="chat_lines")
    op.drop_table("chat_lines")
    with op.batch_alter_table("users") as batch:
        batch.drop_column("suspended_at")
        batch.drop_column("role")
