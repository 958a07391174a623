"""Decks: Café deck files and Coffee Rush card files uploaded by players, who may use them,
and their bot calibration runs (issue 39).

Revision ID: 0008
Revises: 0007
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# datetimes are UTC (schema.UTCDateTime)

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "deck_files",
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("game", sa.Text, nullable=False),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("cards", sa.Integer, nullable=False),
        sa.Column("reconstructed", sa.Boolean, nullable=False),
        sa.Column("provenance", sa.JSON, nullable=False),
        sa.Column("text", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.PrimaryKeyConstraint("sha256", name="pk_deck_files"),
    )
    op.create_table(
        "user_decks",
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("owner_id", sa.Integer, nullable=False),
        sa.Column("visibility", sa.Text, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["sha256"],
            ["deck_files.sha256"],
            name="fk_user_decks_sha256_deck_files",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["owner_id"], ["users.id"], name="fk_user_decks_owner_id_users", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("sha256", "owner_id", name="pk_user_decks"),
        sa.CheckConstraint(
            "visibility IN ('private', 'friends', 'public')", name="ck_user_decks_visibility"
        ),
    )
    op.create_index("ix_user_decks_owner_id", "user_decks", ["owner_id"])
    op.create_index("ix_user_decks_visibility", "user_decks", ["visibility"])
    op.create_table(
        "deck_calibrations",
        sa.Column("sha256", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("requested_by", sa.Integer, nullable=True),
        sa.Column("requested_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("figures", sa.JSON, nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.ForeignKeyConstraint(
            ["sha256"],
            ["deck_files.sha256"],
            name="fk_deck_calibrations_sha256_deck_files",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"],
            ["users.id"],
            name="fk_deck_calibrations_requested_by_users",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("sha256", name="pk_deck_calibrations"),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed')",
            name="ck_deck_calibrations_calibration_status",
        ),
    )
    op.create_index(
        "ix_deck_calibrations_requested_by_requested_at",
        "deck_calibrations",
        ["requested_by", "requested_at"],
    )


def downgrade() -> None:
    op.drop_index("ix_deck_calibrations_requested_by_requested_at", "deck_calibrations")
    op.drop_table("deck_calibrations")
    op.drop_index("ix_user_decks_visibility", "user_decks")
    op.drop_index("ix_user_decks_owner_id", "user_decks")
    op.drop_table("user_decks")
    op.drop_table("deck_files")
