"""Presence, "my games" and notifications (issue 38): who sits at which table and whose move
it is there, users' notification settings and e-mail, the mail waiting for a digest, and the
site's secrets (the key that signs unsubscribe links).

Independent of 0004 (made in parallel): it touches no table 0004 adds.

Revision ID: 0005
Revises: 0004
Create Date: 2026-11-27
"""

from __future__ import annotations

import json
from typing import Any

import sqlalchemy as sa
from alembic import op

# Plain SQL types only (as in 0001): datetimes are UTC (schema.UTCDateTime).
UTCDateTime = sa.DateTime(timezone=True)

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "table_players",
        sa.Column(
            "table_id",
            sa.Text,
            sa.ForeignKey(
                "game_tables.id",
                ondelete="CASCADE",
                name="fk_table_players_table_id_game_tables",
            ),
            nullable=False,
        ),
        sa.Column("seat", sa.Integer, nullable=False),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_table_players_user_id_users"),
            nullable=False,
        ),
        sa.Column("to_move", sa.Boolean, nullable=False, server_default=sa.false()),
        sa.Column("turn_since", UTCDateTime, nullable=True),
        sa.Column("turn_revision", sa.Integer, nullable=False, server_default="0"),
        sa.PrimaryKeyConstraint("table_id", "seat", name="pk_table_players"),
    )
    op.create_index("ix_table_players_user_id", "table_players", ["user_id"])
    op.create_table(
        "user_settings",
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_user_settings_user_id_users"),
            nullable=False,
        ),
        sa.Column("email", sa.Text, nullable=True),
        sa.Column("language", sa.Text, nullable=False, server_default="en"),
        sa.Column("prefs", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("next_mail_at", UTCDateTime, nullable=True),
        sa.Column("updated_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("user_id", name="pk_user_settings"),
    )
    op.create_table(
        "mail_events",
        sa.Column("id", sa.Integer, autoincrement=True, nullable=False),
        sa.Column(
            "user_id",
            sa.Integer,
            sa.ForeignKey("users.id", ondelete="CASCADE", name="fk_mail_events_user_id_users"),
            nullable=False,
        ),
        sa.Column("kind", sa.Text, nullable=False),
        sa.Column("table_id", sa.Text, nullable=True),
        sa.Column("params", sa.JSON(none_as_null=True), nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.Column("batch", sa.Text, nullable=True),
        sa.Column("sent_at", UTCDateTime, nullable=True),
        sa.PrimaryKeyConstraint("id", name="pk_mail_events"),
    )
    op.create_index("ix_mail_events_user_id_batch", "mail_events", ["user_id", "batch"])
    op.create_index("ix_mail_events_batch", "mail_events", ["batch"])
    op.create_table(
        "site_secrets",
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("value", sa.Text, nullable=False),
        sa.Column("created_at", UTCDateTime, nullable=False),
        sa.PrimaryKeyConstraint("name", name="pk_site_secrets"),
    )
    # the players of the tables there are already
    connection = op.get_bind()
    rows = connection.execute(sa.text("SELECT id, seats FROM game_tables")).all()
    players: list[dict[str, Any]] = []
    for table_id, seats in rows:
        if isinstance(seats, str):
            seats = json.loads(seats)
        for index, seat in enumerate(seats or []):
            if seat.get("kind") == "human" and seat.get("user_id") is not None:
                players.append({"table_id": table_id, "seat": index, "user_id": seat["user_id"]})
    if players:
        connection.execute(
            sa.text(
                "INSERT INTO table_players (table_id, seat, user_id, to_move, turn_revision) "
                "VALUES (:table_id, :seat, :user_id, false, 0)"
            ),
            players,
        )


def downgrade() -> None:
    op.drop_table("site_secrets")
    op.drop_index("ix_mail_events_batch", table_name="mail_events")
    op.drop_index("ix_mail_events_user_id_batch", table_name="mail_events")
    op.drop_table("mail_events")
    op.drop_table("user_settings")
    op.drop_index("ix_table_players_user_id", table_name="table_players")
    op.drop_table("table_players")
