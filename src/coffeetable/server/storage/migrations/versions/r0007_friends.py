"""Friends (a request, then both are friends once it is accepted) and invitations to tables.

Revision ID: 0007
Revises: 0006
Create Date: 2026-11-27
"""

from __future__ import annotations

import sqlalchemy as sa
from alembic import op

# datetimes are UTC (schema.UTCDateTime)

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | None = None
depends_on: str | None = None


def upgrade() -> None:
    op.create_table(
        "friendships",
        sa.Column("from_id", sa.Integer, nullable=False),
        sa.Column("to_id", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("accepted_at", sa.DateTime(timezone=True), nullable=True),
        sa.ForeignKeyConstraint(
            ["from_id"], ["users.id"], name="fk_friendships_from_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["to_id"], ["users.id"], name="fk_friendships_to_id_users", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("from_id", "to_id", name="pk_friendships"),
        sa.CheckConstraint("from_id <> to_id", name="ck_friendships_not_self"),
    )
    op.create_index("ix_friendships_to_id", "friendships", ["to_id"])
    op.create_table(
        "invitations",
        sa.Column("table_id", sa.Text, nullable=False),
        sa.Column("to_id", sa.Integer, nullable=False),
        sa.Column("from_id", sa.Integer, nullable=False),
        sa.Column("created_at", sa.DateTime(timezone=True), nullable=False),
        sa.ForeignKeyConstraint(
            ["table_id"],
            ["game_tables.id"],
            name="fk_invitations_table_id_game_tables",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["to_id"], ["users.id"], name="fk_invitations_to_id_users", ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["from_id"], ["users.id"], name="fk_invitations_from_id_users", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("table_id", "to_id", name="pk_invitations"),
    )
    op.create_index("ix_invitations_to_id_created_at", "invitations", ["to_id", "created_at"])


def downgrade() -> None:
    op.drop_index("ix_invitations_to_id_created_at", "invitations")
    op.drop_table("invitations")
    op.drop_index("ix_friendships_to_id", "friendships")
    op.drop_table("friendships")
