"""Game reviews: one per finished table and budget, with the user who asked for it.

Revision ID: 0009
Revises: 0008
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# datetimes are UTC (schema.UTCDateTime)

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "reviews",
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("budget", sa.Text, nullable=False),
        sa.Column("status", sa.Text, nullable=False),
        sa.Column("requested_by", sa.Integer, nullable=True),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("updated_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("review", sa.JSON(none_as_null=True), nullable=True),
        sa.Column("error", sa.Text, nullable=True),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name="fk_reviews_table_id_game_tables",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["requested_by"],
            ["users.id"],
            name="fk_reviews_requested_by_users",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("table_id", "budget", name="pk_reviews"),
        sa.CheckConstraint(
            "status IN ('queued', 'running', 'done', 'failed')", name="ck_reviews_status"
        ),
    )
    op.create_index("ix_reviews_requested_by_created_at", "reviews", ["requested_by", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_reviews_requested_by_created_at", "reviews")
    op.drop_table("reviews")
